//! `nc_utf8_to_utf16`, which ncgen imports (declared in netcdf-c's internal
//! `ncutf8.h`, not in the installed headers).

use std::ffi::{c_int, c_uchar, c_ushort};

use crate::error::NcError;
use crate::ffi::{cbytes, ffi_boundary, put};

/// `int nc_utf8_to_utf16(const unsigned char* s8, unsigned short** utf16p, size_t* lenp)`
///
/// Converts the NUL-terminated UTF-8 string `s8` to UTF-16 code units, one
/// per code point. On success stores in `*utf16p` a `malloc`'d array of the
/// units followed by a 0 unit (the caller frees it; if `utf16p` is NULL
/// nothing is kept) and in `*lenp` the number of units without the
/// terminator. Returns `NC_NOERR`; `NC_EBADNAME` for bytes that are not
/// UTF-8 or a code point above U+FFFF; `NC_ENOMEM`; and `NC_EINVAL` for a
/// NULL `s8` (where netcdf-c crashes). Nothing is written on failure.
///
/// # Safety
/// `s8` is NULL or a NUL-terminated string; `utf16p` and `lenp` are NULL or
/// valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_utf8_to_utf16(s8: *const c_uchar, utf16p: *mut *mut c_ushort, lenp: *mut usize) -> c_int {
    ffi_boundary!(status {
        // SAFETY: NULL or NUL-terminated, by the caller's contract.
        let bytes = unsafe { cbytes(s8.cast()) }?;
        let units = crate::api::utf16::utf8_to_ucs2(bytes)?;
        if !utf16p.is_null() {
            let size = (units.len() + 1)
                .checked_mul(std::mem::size_of::<c_ushort>())
                .ok_or(NcError::NoMem)?;
            // SAFETY: malloc with a non-zero size; the result is checked.
            let p = unsafe { libc::malloc(size) }.cast::<c_ushort>();
            if p.is_null() {
                return Err(NcError::NoMem);
            }
            // SAFETY: p has room for units.len() + 1 elements; utf16p is
            // valid for one write by the caller's contract.
            unsafe {
                std::ptr::copy_nonoverlapping(units.as_ptr(), p, units.len());
                p.add(units.len()).write(0);
                utf16p.write(p);
            }
        }
        // SAFETY: NULL or valid for one write, by the caller's contract.
        unsafe { put(lenp, units.len()) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_and_terminates() {
        let mut p: *mut c_ushort = std::ptr::null_mut();
        let mut n = 0usize;
        let s = c"x\u{e9}\u{20ac}";
        // SAFETY: NUL-terminated input, valid out-pointers.
        let rc = unsafe { nc_utf8_to_utf16(s.as_ptr().cast(), &mut p, &mut n) };
        assert_eq!((rc, n), (0, 3));
        // SAFETY: the export returned 4 malloc'd units.
        let units = unsafe { std::slice::from_raw_parts(p, 4) }.to_vec();
        // SAFETY: p came from malloc.
        unsafe { libc::free(p.cast()) };
        assert_eq!(units, [0x78, 0xe9, 0x20ac, 0]);

        let mut p: *mut c_ushort = std::ptr::null_mut();
        let mut n = 7usize;
        // SAFETY: NUL-terminated input, valid out-pointers.
        let rc = unsafe { nc_utf8_to_utf16(c"\u{1f600}".as_ptr().cast(), &mut p, &mut n) };
        assert_eq!((rc, n), (NcError::BadName.code(), 7));
        assert!(p.is_null());
        // SAFETY: NULL arguments.
        let rc = unsafe { nc_utf8_to_utf16(std::ptr::null(), &mut p, &mut n) };
        assert_eq!(rc, NcError::Inval.code());
        // SAFETY: NULL out-pointers are ignored.
        let rc = unsafe { nc_utf8_to_utf16(c"ok".as_ptr().cast(), std::ptr::null_mut(), std::ptr::null_mut()) };
        assert_eq!(rc, 0);
    }
}
