//! Safe wrappers over the three c-blosc 1.x functions the blosc codec needs
//! (the library is built from source by `blosc-src`). Only the context
//! (`_ctx`) functions are used: they keep no global state and are safe to
//! call from several threads at once.

use std::ffi::{CStr, c_int, c_void};

/// Compress `src` into a new buffer, or `None` when blosc fails.
pub fn compress(
    clevel: i32,
    shuffle: i32,
    typesize: usize,
    src: &[u8],
    cname: &CStr,
    blocksize: usize,
) -> Option<Vec<u8>> {
    let cap = src.len().checked_add(blosc_src::BLOSC_MAX_OVERHEAD as usize)?;
    // A recycled buffer: fresh memory costs a page fault per 4 KiB, and
    // zeroing it would be wasted (blosc writes what it returns).
    let mut out = crate::runtime::buffers::take_len(cap);
    // SAFETY: src is valid for src.len() reads and out for cap writes (blosc
    // never writes past destsize); cname is NUL-terminated; the buffers do
    // not overlap.
    let n = unsafe {
        blosc_src::blosc_compress_ctx(
            clevel as c_int,
            shuffle as c_int,
            typesize,
            src.len(),
            src.as_ptr().cast::<c_void>(),
            out.as_mut_ptr().cast::<c_void>(),
            cap,
            cname.as_ptr(),
            blocksize,
            1,
        )
    };
    if n <= 0 {
        return None;
    }
    out.truncate(n as usize);
    Some(out)
}

/// The decoded size a blosc buffer claims, once blosc has checked that the
/// buffer is safe to decompress; `None` when it is not a valid blosc buffer.
pub fn decoded_size(src: &[u8]) -> Option<usize> {
    let mut nbytes = 0usize;
    // SAFETY: blosc_cbuffer_validate reads at most src.len() bytes of src and
    // writes one usize through the valid pointer.
    let r = unsafe { blosc_src::blosc_cbuffer_validate(src.as_ptr().cast::<c_void>(), src.len(), &mut nbytes) };
    (r == 0).then_some(nbytes)
}

/// Decompress a buffer that `decoded_size` accepted into `out` (of exactly
/// that size); the number of bytes written, or `None` on corrupt data.
pub fn decompress(src: &[u8], out: &mut [u8]) -> Option<usize> {
    if decoded_size(src)? > out.len() {
        return None;
    }
    // SAFETY: the buffer was validated against its own length above (so blosc
    // reads inside it), out is valid for out.len() writes and blosc never
    // writes past destsize.
    let n = unsafe {
        blosc_src::blosc_decompress_ctx(
            src.as_ptr().cast::<c_void>(),
            out.as_mut_ptr().cast::<c_void>(),
            out.len(),
            1,
        )
    };
    (n >= 0).then_some(n as usize)
}

/// The block size (bytes) blosc recorded in a buffer that `decoded_size`
/// accepted: each block decodes on its own.
pub fn blocksize(src: &[u8]) -> Option<usize> {
    decoded_size(src)?;
    let b: [u8; 4] = src.get(8..12)?.try_into().ok()?;
    Some(u32::from_le_bytes(b) as usize)
}

/// The element size blosc recorded in a buffer that `decoded_size` accepted.
pub fn typesize(src: &[u8]) -> Option<usize> {
    decoded_size(src)?;
    src.get(3).map(|&t| t as usize)
}

/// Decompress elements `start..start + out.len() / typesize` of a buffer
/// that `decoded_size` accepted (only the blocks holding them); `out.len()`
/// must be a multiple of the buffer's typesize and the range inside its
/// decoded size. `None` on corrupt data or a range blosc refuses.
pub fn decompress_items(src: &[u8], start: usize, out: &mut [u8]) -> Option<()> {
    let nbytes = decoded_size(src)?;
    let ts = typesize(src)?;
    if ts == 0 || !out.len().is_multiple_of(ts) {
        return None;
    }
    let nitems = out.len() / ts;
    let end = start.checked_add(nitems)?.checked_mul(ts)?;
    if end > nbytes {
        return None;
    }
    let start = c_int::try_from(start).ok()?;
    let nitems = c_int::try_from(nitems).ok()?;
    // SAFETY: the buffer was validated against its own length (so blosc
    // reads inside it); the item range lies inside the decoded size, and out
    // holds exactly nitems * typesize bytes, which is all blosc_getitem
    // writes. blosc_getitem keeps its state on the stack (thread-safe).
    let n = unsafe {
        blosc_src::blosc_getitem(
            src.as_ptr().cast::<c_void>(),
            start,
            nitems,
            out.as_mut_ptr().cast::<c_void>(),
        )
    };
    (usize::try_from(n).ok()? == out.len()).then_some(())
}
