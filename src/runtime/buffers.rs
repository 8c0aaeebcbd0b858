//! Recycled chunk buffers. Decoding every chunk into freshly allocated memory
//! costs a page fault per 4 KiB (large blocks go back to the system when
//! freed); handing buffers from finished chunks to the next ones avoids that.
//! The idle buffers are bounded: never more than `LIMIT` bytes.
#![forbid(unsafe_code)]

use std::sync::Mutex;

/// The most bytes of idle buffers kept (part of the 64 MiB beyond the
/// caller's buffer and the chunk cache that a read may use).
const LIMIT: usize = 48 << 20;

/// Buffers that finished chunks handed back, waiting for their next owner.
struct IdleBuffers {
    bufs: Vec<Vec<u8>>,
    /// Their capacities, summed.
    bytes: usize,
}

static IDLE_BUFFERS: Mutex<IdleBuffers> = Mutex::new(IdleBuffers {
    bufs: Vec::new(),
    bytes: 0,
});

/// The idle buffer for a request of `want` bytes, contents as they were
/// left: the smallest one that fits, so that a small request (a compressed
/// chunk) does not take the buffer a large one (its decoded chunk) needs
/// next. When none fits, the largest is grown by its new owner: a set of
/// buffers that no request fits would only hold memory.
fn recycled(want: usize) -> Vec<u8> {
    let mut p = IDLE_BUFFERS.lock().unwrap_or_else(|e| e.into_inner());
    let fits = p
        .bufs
        .iter()
        .enumerate()
        .filter(|(_, b)| b.capacity() >= want)
        .min_by_key(|(_, b)| b.capacity())
        .map(|(i, _)| i);
    let pos = fits.or_else(|| {
        p.bufs
            .iter()
            .enumerate()
            .max_by_key(|(_, b)| b.capacity())
            .map(|(i, _)| i)
    });
    match pos {
        Some(i) => {
            let b = p.bufs.swap_remove(i);
            p.bytes -= b.capacity();
            b
        }
        None => Vec::new(),
    }
}

/// An empty buffer, preferably with room for `want` bytes.
pub fn take(want: usize) -> Vec<u8> {
    let mut b = recycled(want);
    b.clear();
    b
}

/// A buffer of exactly `len` bytes for a decoder to overwrite entirely. A
/// recycled buffer keeps its old bytes where it has them (only growth is
/// zeroed), so no time goes into clearing memory that is about to be
/// written; every caller checks that the decoder wrote all `len` bytes, or
/// cuts the buffer to what it wrote.
pub fn take_len(len: usize) -> Vec<u8> {
    // Out of memory aborts here, as any allocation does.
    try_take_len(len).unwrap_or_else(|| vec![0; len])
}

/// `take_len` for a caller that must not abort when memory runs out: `None`
/// when `len` bytes cannot be had.
pub fn try_take_len(len: usize) -> Option<Vec<u8>> {
    let mut b = recycled(len);
    if b.len() >= len {
        b.truncate(len);
    } else {
        b.try_reserve_exact(len - b.len()).ok()?;
        b.resize(len, 0);
    }
    Some(b)
}

/// Return a buffer for reuse (dropped when the idle buffers are at their
/// limit or it is tiny).
pub fn give(b: Vec<u8>) {
    let cap = b.capacity();
    if cap < 64 << 10 {
        return;
    }
    let mut p = IDLE_BUFFERS.lock().unwrap_or_else(|e| e.into_inner());
    if p.bytes + cap <= LIMIT {
        p.bytes += cap;
        p.bufs.push(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_have_the_length_asked_for() {
        for len in [0, 1, 100 << 10, 3 << 20] {
            let b = take_len(len);
            assert_eq!(b.len(), len);
            give(b);
            assert!(take(len).is_empty());
        }
        // A given-back buffer is handed out again, cut or grown to the
        // length asked for.
        let b = try_take_len(1 << 20).unwrap();
        assert_eq!(b.len(), 1 << 20);
        give(b);
        assert_eq!(take_len(200 << 10).len(), 200 << 10);
        assert_eq!(try_take_len(2 << 20).map(|b| b.len()), Some(2 << 20));
    }

    #[test]
    fn impossible_buffers_are_none() {
        assert!(try_take_len(usize::MAX / 2).is_none());
    }

    #[test]
    fn idle_buffers_stay_bounded() {
        for _ in 0..(2 * LIMIT / (8 << 20)) {
            give(vec![0u8; 8 << 20]);
        }
        let p = IDLE_BUFFERS.lock().unwrap_or_else(|e| e.into_inner());
        assert!(p.bytes <= LIMIT);
        assert_eq!(p.bytes, p.bufs.iter().map(Vec::capacity).sum::<usize>());
        assert!(p.bufs.iter().all(|b| b.capacity() >= 64 << 10));
    }
}
