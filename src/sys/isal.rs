//! Safe wrapper over the igzip shim (`src/sys/c/isal.c`): deflate level 1
//! through Intel's ISA-L, when the library was built with it
//! (`cfg(nczarr_isal)`, set by build.rs when libisal-dev is installed).

/// Whether deflate level 1 encodes with ISA-L in this build.
pub fn available() -> bool {
    cfg!(nczarr_isal)
}

#[cfg(nczarr_isal)]
mod imp {
    use std::cell::RefCell;

    unsafe extern "C" {
        fn nczarr_isal_scratch_size() -> usize;
        fn nczarr_isal_deflate1(
            input: *const u8,
            in_len: usize,
            out: *mut u8,
            out_cap: usize,
            gzip: std::ffi::c_int,
            scratch: *mut u8,
            scratch_len: usize,
        ) -> usize;
    }

    thread_local! {
        /// igzip's state and work buffer, reused by every call on a thread.
        static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }

    pub fn deflate1(input: &[u8], out: &mut [u8], gzip: bool) -> Option<usize> {
        SCRATCH.with(|s| {
            let mut s = s.try_borrow_mut().ok()?;
            if s.is_empty() {
                // SAFETY: a pure function of the header's constants.
                let size = unsafe { nczarr_isal_scratch_size() };
                s.try_reserve_exact(size).ok()?;
                s.resize(size, 0);
            }
            // SAFETY: input is valid for input.len() reads, out for out.len()
            // writes and scratch for scratch.len() writes; the shim writes
            // only inside out and scratch, and they do not overlap input
            // (distinct borrows).
            let n = unsafe {
                nczarr_isal_deflate1(
                    input.as_ptr(),
                    input.len(),
                    out.as_mut_ptr(),
                    out.len(),
                    std::ffi::c_int::from(gzip),
                    s.as_mut_ptr(),
                    s.len(),
                )
            };
            (n > 0 && n <= out.len()).then_some(n)
        })
    }
}

/// Deflate `input` at level 1 into `out` as a zlib stream (`gzip`: a gzip
/// stream); the number of bytes written, or `None` when ISA-L is not built
/// in or cannot do it (input over 4 GiB, `out` too small), in which case the
/// caller encodes another way.
pub fn deflate1(input: &[u8], out: &mut [u8], gzip: bool) -> Option<usize> {
    #[cfg(nczarr_isal)]
    {
        imp::deflate1(input, out, gzip)
    }
    #[cfg(not(nczarr_isal))]
    {
        let _ = (input, out, gzip);
        None
    }
}
