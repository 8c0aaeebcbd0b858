//! Recycled chunk buffers. Decoding every chunk into freshly allocated memory
//! costs a page fault per 4 KiB (large blocks go back to the system when
//! freed); handing buffers from finished chunks to the next ones avoids that.
//! The pool is bounded, so it never holds more than `LIMIT` bytes.
#![forbid(unsafe_code)]

use std::sync::Mutex;

/// The most bytes of idle buffers kept.
const LIMIT: usize = 256 << 20;

struct Pool {
    bufs: Vec<Vec<u8>>,
    bytes: usize,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    bufs: Vec::new(),
    bytes: 0,
});

/// An empty buffer, preferably with room for `want` bytes.
pub fn take(want: usize) -> Vec<u8> {
    let mut p = POOL.lock().unwrap_or_else(|e| e.into_inner());
    // Chunks of one variable share a size: the most recent buffer usually fits.
    let pos = p.bufs.iter().rposition(|b| b.capacity() >= want);
    match pos {
        Some(i) => {
            let mut b = p.bufs.swap_remove(i);
            p.bytes -= b.capacity();
            b.clear();
            b
        }
        None => Vec::new(),
    }
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
