//! The C boundary: every `extern "C"` function of the library lives below this
//! module. Each export parses its pointers, calls one safe function and maps the
//! result. Every export's body is one [`ffi_boundary!`] invocation, so a panic
//! never crosses into C (it becomes `NC_EINTERNAL`), delegated calls included;
//! `tests/ffi_boundary_macro.rs` fails the build's tests when one is not.

use std::ffi::{CStr, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::error::{NcError, NcResult};
use crate::model::types::NC_MAX_NAME;

pub mod att;
pub mod client;
pub mod compat;
pub mod copy;
pub mod data;
pub mod delegate;
pub mod dim;
pub mod file;
pub mod filter;
pub mod group;
pub mod parallel;
pub mod plugin_path;
pub mod settings;
pub mod types;
pub mod usertype;
pub mod var;
pub mod zarr;

// Every export, reachable by its C name from `netcdf::ffi` (the Rust tests
// call them this way).
pub use att::*;
pub use client::cdtime::*;
pub use client::utf16::*;
pub use client::*;
pub use compat::aux::*;
pub use compat::fortran::*;
pub use compat::legacy::*;
pub use compat::memio::*;
pub use compat::v2::*;
pub use copy::*;
pub use data::*;
pub use dim::*;
pub use file::*;
pub use filter::*;
pub use group::*;
pub use parallel::*;
pub use plugin_path::*;
pub use settings::*;
pub use types::*;
pub use usertype::*;
pub use var::*;
pub use zarr::*;

pub const NC_NOERR: c_int = 0;

/// The one boundary every export's body goes through (rustls-ffi's
/// `ffi_panic_boundary!` is the model). A panic inside becomes the export's
/// panic answer, logged, and never unwinds into C. Three forms:
///
/// - `ffi_boundary!(status { ... })`: the body is an `NcResult<()>`; `Ok` is
///   `NC_NOERR`, an error its `NC_*` code (`NcError::code`), a panic
///   `NC_EINTERNAL`.
/// - `ffi_boundary!(code { ... })`: the body is the `c_int` the export
///   returns as it is (a status the system library gave, a positive `errno`,
///   a count); a panic is `NC_EINTERNAL`.
/// - `ffi_boundary!(on_panic(value) { ... })`: any other return type
///   (pointers, `void`, sizes, the netCDF-2 API's `-1`); `value` is evaluated
///   only after a panic.
///
/// The first two may start with `forward ncid => nc_xxx(ncid, a, b, ...);`
/// (optionally `forward ncid => nc_xxx(...) then |rc| ...;`, see
/// `delegate::forward!`): when `ncid` names a dataset of the system
/// libnetcdf, the call goes there, inside the boundary, and its status is
/// returned unchanged.
macro_rules! ffi_boundary {
    ($(forward $ncid:ident => $f:ident ( $($arg:expr),* $(,)? ) $(then $after:expr)? ;)? status $body:block) => {
        $crate::ffi::catch_with(
            || $crate::error::NcError::Internal.code(),
            || -> ::std::ffi::c_int {
                $( $crate::ffi::delegate::forward!($ncid => $f($($arg),*) $(; after $after)?); )?
                $crate::ffi::status_of(|| $body)
            },
        )
    };
    ($(forward $ncid:ident => $f:ident ( $($arg:expr),* $(,)? ) $(then $after:expr)? ;)? code $body:block) => {
        $crate::ffi::catch_with(
            || $crate::error::NcError::Internal.code(),
            || -> ::std::ffi::c_int {
                $( $crate::ffi::delegate::forward!($ncid => $f($($arg),*) $(; after $after)?); )?
                $body
            },
        )
    };
    (on_panic($on_panic:expr) $body:block) => {
        $crate::ffi::catch_with(|| $on_panic, || $body)
    };
}
pub(crate) use ffi_boundary;

/// Run `f`; after a panic, log it and answer `on_panic()` instead. Only
/// [`ffi_boundary!`] calls this.
pub(crate) fn catch_with<R>(on_panic: impl FnOnce() -> R, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            crate::log::log(crate::log::Level::Error, "internal panic caught at the C boundary");
            on_panic()
        }
    }
}

/// Run a status body: `NC_NOERR`, or the `NC_*` code of its error.
pub(crate) fn status_of(f: impl FnOnce() -> NcResult<()>) -> c_int {
    code_of(f())
}

/// The C status of a result: `NC_NOERR` or the error's `NC_*` code.
pub(crate) fn code_of(r: NcResult<()>) -> c_int {
    match r {
        Ok(()) => NC_NOERR,
        Err(e) => e.code(),
    }
}

/// The result a C status stands for. A positive `errno` or an unknown code
/// has no `NcError` and becomes NC_EINTERNAL: calls whose statuses may be
/// such (the system library's) keep the `c_int` instead.
pub(crate) fn result_of(status: c_int) -> NcResult<()> {
    match status {
        NC_NOERR => Ok(()),
        s => Err(NcError::from_code(s).unwrap_or(NcError::Internal)),
    }
}

/// Copy ids into a caller array when it is non-NULL.
///
/// # Safety
/// `p` is NULL or valid for `ids.len()` writes of `c_int`.
pub(crate) unsafe fn put_ids(p: *mut c_int, ids: &[c_int]) -> NcResult<()> {
    if !p.is_null() {
        // SAFETY: p is non-NULL and, by this function's contract, valid for
        // ids.len() writes.
        unsafe { slice_mut(p, ids.len()) }?.copy_from_slice(ids);
    }
    Ok(())
}

/// Borrow a NUL-terminated C string. NULL gives `NC_EINVAL`; bytes that are
/// not UTF-8 give `NC_EBADNAME` (netCDF names are UTF-8).
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn cstr<'a>(p: *const c_char) -> NcResult<&'a str> {
    // SAFETY: p is NULL or NUL-terminated and valid for 'a (this function's
    // contract), which is cbytes' contract.
    let b = unsafe { cbytes(p) }?;
    std::str::from_utf8(b).map_err(|_| NcError::BadName)
}

/// Borrow a name an inquiry looks up (`nc_inq_varid`, `nc_inq_attid`...):
/// NULL is `NC_EINVAL`, more than `NC_MAX_NAME` bytes `NC_EMAXNAME` (no
/// stored name can match it; netcdf-c 4.10.1 answers so), bytes that are not
/// UTF-8 `NC_EBADNAME`.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn cname<'a>(p: *const c_char) -> NcResult<&'a str> {
    // SAFETY: p is NULL or NUL-terminated and valid for 'a (this function's
    // contract), which is cbytes' contract.
    let b = unsafe { cbytes(p) }?;
    if b.len() > NC_MAX_NAME {
        return Err(NcError::MaxName);
    }
    std::str::from_utf8(b).map_err(|_| NcError::BadName)
}

/// Borrow a C string as bytes (no UTF-8 check). NULL gives `NC_EINVAL`.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn cbytes<'a>(p: *const c_char) -> NcResult<&'a [u8]> {
    if p.is_null() {
        return Err(NcError::Inval);
    }
    // SAFETY: p is non-NULL and, by this function's contract, NUL-terminated
    // and valid for 'a.
    Ok(unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// Borrow `n` elements at `p`. NULL is accepted only when `n == 0`.
///
/// # Safety
/// `p` is NULL or valid for reads of `n` elements of `T` for `'a`.
pub(crate) unsafe fn slice<'a, T>(p: *const T, n: usize) -> NcResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(NcError::Inval);
    }
    // SAFETY: p is non-NULL and, by this function's contract, valid for n
    // reads of T for 'a.
    Ok(unsafe { std::slice::from_raw_parts(p, n) })
}

/// Borrow `n` writable elements at `p`. NULL is accepted only when `n == 0`.
///
/// # Safety
/// `p` is NULL or valid for writes of `n` elements of `T` for `'a`, not aliased.
pub(crate) unsafe fn slice_mut<'a, T>(p: *mut T, n: usize) -> NcResult<&'a mut [T]> {
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(NcError::Inval);
    }
    // SAFETY: p is non-NULL and, by this function's contract, valid for n
    // writes of T for 'a and not aliased.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

/// Write an optional out-parameter: ignored when `p` is NULL.
///
/// # Safety
/// `p` is NULL or valid for one write of `T`.
pub(crate) unsafe fn put<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: p is non-NULL and, by this function's contract, valid for
        // one write of T.
        unsafe { p.write(v) };
    }
}

/// Before any out-parameter is written: `NC_EMAXNAME` when the caller asked
/// for a name (`p` non-NULL) that does not fit its buffer.
pub(crate) fn check_name_out(p: *const c_char, name: &str) -> NcResult<()> {
    if !p.is_null() {
        fits_name(name)?;
    }
    Ok(())
}

/// A name that fits a caller's name buffer (`NC_MAX_NAME + 1` bytes with its
/// terminator), or `NC_EMAXNAME` (logged).
pub(crate) fn fits_name(name: &str) -> NcResult<&str> {
    if name.len() > NC_MAX_NAME {
        crate::nclog!(
            crate::log::Level::Error,
            "a stored name of {} bytes is longer than NC_MAX_NAME ({NC_MAX_NAME}): not returned",
            name.len()
        );
        return Err(NcError::MaxName);
    }
    Ok(name)
}

/// Copy a name into a caller buffer of `NC_MAX_NAME + 1` bytes, NUL
/// terminated; ignored when `p` is NULL (the name is not checked then: a
/// caller that asks only for a length must get it). Never writes more than
/// `NC_MAX_NAME + 1` bytes: a longer name is `NC_EMAXNAME` and nothing is
/// written. Exports that write other out-parameters too call
/// [`check_name_out`] first, so that all or none are written.
///
/// # Safety
/// `p` is NULL or valid for `NC_MAX_NAME + 1` byte writes (netcdf.h's
/// contract for every name buffer).
pub(crate) unsafe fn put_name(p: *mut c_char, name: &str) -> NcResult<()> {
    if p.is_null() {
        return Ok(());
    }
    let name = fits_name(name)?;
    // SAFETY: name.len() + 1 <= NC_MAX_NAME + 1 (checked just above), which p
    // has room for by this function's contract.
    unsafe { put_cstring(p, name.as_bytes()) };
    Ok(())
}

/// Copy `s` and a NUL terminator into a caller buffer; ignored when `p` is
/// NULL. For buffers whose size the caller learnt from us first (the full
/// group name after `nc_inq_grpname_len`, the path after `nc_inq_path`).
///
/// # Safety
/// `p` is NULL or valid for `s.len() + 1` byte writes.
pub(crate) unsafe fn put_cstring(p: *mut c_char, s: &[u8]) {
    if p.is_null() {
        return;
    }
    // SAFETY: p has room for s.len() + 1 bytes by this function's contract;
    // s is our own memory, so the two cannot overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), p.cast::<u8>(), s.len());
        p.add(s.len()).write(0);
    }
}

/// Allocate a NUL-terminated copy of `s` with libc `malloc`, so that C callers
/// (and `nc_free_string`) can release it with `free`. NULL on allocation failure.
pub(crate) fn malloc_cstring(s: &[u8]) -> *mut c_char {
    let Some(size) = s.len().checked_add(1) else {
        return std::ptr::null_mut();
    };
    // SAFETY: malloc may be called with any size; the result is checked for
    // NULL before use.
    let p = unsafe { libc::malloc(size) }.cast::<c_char>();
    if !p.is_null() {
        // SAFETY: p is a fresh allocation of s.len() + 1 bytes.
        unsafe { put_cstring(p, s) };
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_any_form_is_the_panic_answer() {
        fn status_panics() -> c_int {
            ffi_boundary!(status {
                let v: Vec<u8> = Vec::new();
                let _ = v[3];
                Ok(())
            })
        }
        fn code_panics() -> c_int {
            ffi_boundary!(code { panic!("test panic") })
        }
        fn pointer_panics() -> *const c_char {
            ffi_boundary!(on_panic(c"fallback".as_ptr()) { panic!("test panic") })
        }
        assert_eq!(status_panics(), NcError::Internal.code());
        assert_eq!(code_panics(), NcError::Internal.code());
        // SAFETY: the fallback is a static NUL-terminated string.
        assert_eq!(unsafe { CStr::from_ptr(pointer_panics()) }.to_bytes(), b"fallback");
    }

    #[test]
    fn status_bodies_map_results() {
        fn ok() -> c_int {
            ffi_boundary!(status { Ok(()) })
        }
        fn early(flag: bool) -> c_int {
            ffi_boundary!(status {
                if flag {
                    return Err(NcError::NotVar);
                }
                Err(NcError::BadId)?;
                Ok(())
            })
        }
        fn raw() -> c_int {
            ffi_boundary!(code { 17 })
        }
        let mut panicked_answer_evaluated = false;
        let v = ffi_boundary!(on_panic({
            panicked_answer_evaluated = true;
            0
        }) { 5 });
        assert_eq!((ok(), early(true), early(false), raw(), v), (0, -49, -33, 17, 5));
        assert!(
            !panicked_answer_evaluated,
            "the panic answer is evaluated only after a panic"
        );
    }

    #[test]
    fn the_forward_clause_is_skipped_for_our_ids() {
        // An id that names no delegated dataset: the body answers.
        extern "C" fn probe(ncid: c_int) -> c_int {
            ffi_boundary!(forward ncid => probe(ncid); status { Err(NcError::BadId) })
        }
        assert_eq!(probe(-1), NcError::BadId.code());
        assert_eq!(probe(0x7fff << 16), NcError::BadId.code());
    }

    #[test]
    fn name_buffers_hold_at_most_nc_max_name_plus_one_bytes() {
        let mut buf = [0x5au8; 600];
        let fits = "n".repeat(NC_MAX_NAME);
        // SAFETY: buf has 600 bytes, more than NC_MAX_NAME + 1.
        assert_eq!(unsafe { put_name(buf.as_mut_ptr().cast(), &fits) }, Ok(()));
        assert_eq!(buf[NC_MAX_NAME], 0);
        assert!(buf[NC_MAX_NAME + 1..].iter().all(|&b| b == 0x5a));
        let mut buf = [0x5au8; 600];
        let long = "n".repeat(NC_MAX_NAME + 1);
        // SAFETY: buf has 600 bytes, more than NC_MAX_NAME + 1.
        let r = unsafe { put_name(buf.as_mut_ptr().cast(), &long) };
        assert_eq!(r, Err(NcError::MaxName));
        assert!(buf.iter().all(|&b| b == 0x5a));
        // A NULL buffer asks for no name: no error.
        // SAFETY: NULL is allowed.
        assert_eq!(unsafe { put_name(std::ptr::null_mut(), &long) }, Ok(()));
        assert_eq!(check_name_out(std::ptr::null(), &long), Ok(()));
        assert_eq!(check_name_out(buf.as_ptr().cast(), &long), Err(NcError::MaxName));
    }

    #[test]
    fn lookup_names_longer_than_nc_max_name() {
        let c = std::ffi::CString::new("x".repeat(NC_MAX_NAME + 1)).unwrap();
        // SAFETY: NUL-terminated strings, or NULL.
        unsafe {
            assert_eq!(cname(c.as_ptr()), Err(NcError::MaxName));
            assert_eq!(cname(c"ok".as_ptr()), Ok("ok"));
            assert_eq!(cname(std::ptr::null()), Err(NcError::Inval));
            assert_eq!(cname(c"\xff".as_ptr()), Err(NcError::BadName));
        }
    }
}
