//! Safe wrappers over libaec's szip compatibility API (`szlib.h`:
//! `SZ_BufftoBuffCompress`, `SZ_BufftoBuffDecompress`), the library HDF5's
//! and netcdf-c's szip filter calls. Linked when the build found libaec
//! (`cfg(nczarr_szip)`, set by build.rs; Debian: libaec-dev). Every call
//! works on its own stream state: safe from several threads at once.

/// The four `SZ_com_t` settings of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SzParams {
    pub options_mask: u32,
    pub bits_per_pixel: u32,
    pub pixels_per_block: u32,
    pub pixels_per_scanline: u32,
}

/// Why a call failed: libaec's status (`SZ_OUTBUFF_FULL` 2, `SZ_PARAM_ERROR`
/// -1 ... as `szlib.h`), or a parameter refused before calling it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SzError {
    /// Not built with libaec.
    NotBuilt,
    /// A parameter out of the range libaec accepts (not passed to C).
    Param,
    /// libaec's status code.
    Status(i32),
}

/// Whether szip is built in.
pub fn available() -> bool {
    imp::available()
}

/// Compress `src` into `out`; the number of bytes written.
pub fn compress(p: &SzParams, src: &[u8], out: &mut [u8]) -> Result<usize, SzError> {
    imp::call(true, p, src, out)
}

/// Decompress `src` into `out` (exactly as many bytes as the data had);
/// the number of bytes written.
pub fn decompress(p: &SzParams, src: &[u8], out: &mut [u8]) -> Result<usize, SzError> {
    imp::call(false, p, src, out)
}

#[cfg(nczarr_szip)]
mod imp {
    use super::{SzError, SzParams};
    use std::ffi::{c_int, c_void};

    /// `SZ_com_t` (szlib.h): four ints in this order, which
    /// `nczarr_szip_layout_ok` (src/sys/c/szip_probe.c) confirms against the
    /// installed header.
    #[repr(C)]
    struct SzCom {
        options_mask: c_int,
        bits_per_pixel: c_int,
        pixels_per_block: c_int,
        pixels_per_scanline: c_int,
    }

    unsafe extern "C" {
        fn SZ_BufftoBuffCompress(
            dest: *mut c_void,
            dest_len: *mut usize,
            source: *const c_void,
            source_len: usize,
            param: *mut SzCom,
        ) -> c_int;
        fn SZ_BufftoBuffDecompress(
            dest: *mut c_void,
            dest_len: *mut usize,
            source: *const c_void,
            source_len: usize,
            param: *mut SzCom,
        ) -> c_int;
        fn nczarr_szip_layout_ok() -> c_int;
    }

    pub fn available() -> bool {
        // SAFETY: a pure function of the header's layout, no arguments.
        unsafe { nczarr_szip_layout_ok() != 0 }
    }

    pub fn call(encode: bool, p: &SzParams, src: &[u8], out: &mut [u8]) -> Result<usize, SzError> {
        if !available() {
            return Err(SzError::NotBuilt);
        }
        let int = |v: u32| c_int::try_from(v).map_err(|_| SzError::Param);
        let mut param = SzCom {
            options_mask: int(p.options_mask)?,
            bits_per_pixel: int(p.bits_per_pixel)?,
            pixels_per_block: int(p.pixels_per_block)?,
            pixels_per_scanline: int(p.pixels_per_scanline)?,
        };
        let mut len = out.len();
        // SAFETY: src is valid for src.len() reads and out for out.len()
        // writes; libaec writes at most *dest_len bytes (its stream stops at
        // avail_out) and reads at most source_len; param is a valid SZ_com_t
        // (layout checked by nczarr_szip_layout_ok) that libaec only reads;
        // the buffers are distinct borrows, so they do not overlap. The
        // parameters were checked by the caller against libaec's limits, and
        // libaec checks them again (SZ_PARAM_ERROR) before any buffer work.
        let status = unsafe {
            if encode {
                SZ_BufftoBuffCompress(
                    out.as_mut_ptr().cast::<c_void>(),
                    &mut len,
                    src.as_ptr().cast::<c_void>(),
                    src.len(),
                    &mut param,
                )
            } else {
                SZ_BufftoBuffDecompress(
                    out.as_mut_ptr().cast::<c_void>(),
                    &mut len,
                    src.as_ptr().cast::<c_void>(),
                    src.len(),
                    &mut param,
                )
            }
        };
        if status != 0 {
            return Err(SzError::Status(status));
        }
        if len > out.len() {
            return Err(SzError::Status(-1));
        }
        Ok(len)
    }
}

#[cfg(not(nczarr_szip))]
mod imp {
    use super::{SzError, SzParams};

    pub fn available() -> bool {
        false
    }

    pub fn call(_encode: bool, _p: &SzParams, _src: &[u8], _out: &mut [u8]) -> Result<usize, SzError> {
        Err(SzError::NotBuilt)
    }
}
