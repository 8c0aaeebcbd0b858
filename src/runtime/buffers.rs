//! Recycled chunk buffers. Decoding every chunk into freshly allocated memory
//! costs a page fault per 4 KiB (large blocks go back to the system when
//! freed); handing buffers from finished chunks to the next ones avoids that.
//! The pool is bounded, so it never holds more than `LIMIT` bytes.
#![forbid(unsafe_code)]

use std::sync::Mutex;

/// The most bytes of idle buffers kept (part of the 64 MiB beyond the
/// caller's buffer and the chunk cache that a read may use).
const LIMIT: usize = 48 << 20;

struct Pool {
    bufs: Vec<Vec<u8>>,
    bytes: usize,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    bufs: Vec::new(),
    bytes: 0,
});

/// The pool's buffer for a request of `want` bytes, contents as they were
/// left: the smallest one that fits, so that a small request (a compressed
/// chunk) does not take the buffer a large one (its decoded chunk) needs
/// next. When none fits, the largest is grown by its new owner: a pool of
/// buffers that no request fits would only hold memory.
fn recycled(want: usize) -> Vec<u8> {
    let mut p = POOL.lock().unwrap_or_else(|e| e.into_inner());
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

/// Return a buffer for reuse (dropped when the pool is full or it is tiny).
pub fn give(b: Vec<u8>) {
    let cap = b.capacity();
    if cap < 64 << 10 {
        return;
    }
    let mut p = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if p.bytes + cap <= LIMIT {
        p.bytes += cap;
        p.bufs.push(b);
    }
}
