//! The C boundary: every `extern "C"` function of the library lives below this
//! module. Each export parses its pointers, calls one safe function and maps the
//! result; a panic never crosses the boundary (it becomes `NC_EINTERNAL`).

use std::ffi::{CStr, c_char, c_int};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::error::{NcError, NcResult};

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
pub use plugin_path::*;
pub use settings::*;
pub use types::*;
pub use usertype::*;
pub use var::*;
pub use zarr::*;

pub const NC_NOERR: c_int = 0;

/// Copy ids into a caller array when it is non-NULL.
pub(crate) unsafe fn put_ids(p: *mut c_int, ids: &[c_int]) -> NcResult<()> {
    if !p.is_null() {
        // SAFETY: caller provides room for every id (the export's contract).
        unsafe { slice_mut(p, ids.len()) }?.copy_from_slice(ids);
    }
    Ok(())
}

/// Run `f`, turning a panic into `on_panic`.
pub(crate) fn catch<R>(on_panic: R, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            crate::log::log(crate::log::Level::Error, "internal panic caught at the C boundary");
            on_panic
        }
    }
}

/// The wrapper for every export that returns a netCDF status code.
pub(crate) fn status(f: impl FnOnce() -> NcResult<()>) -> c_int {
    catch(NcError::Internal.code(), || match f() {
        Ok(()) => NC_NOERR,
        Err(e) => e.code(),
    })
}

/// Borrow a NUL-terminated C string. NULL gives `NC_EINVAL`; bytes that are
/// not UTF-8 give `NC_EBADNAME` (netCDF names are UTF-8).
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn cstr<'a>(p: *const c_char) -> NcResult<&'a str> {
    if p.is_null() {
        return Err(NcError::Inval);
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str().map_err(|_| NcError::BadName)
}

/// Borrow a C string as bytes (no UTF-8 check). NULL gives `NC_EINVAL`.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn cbytes<'a>(p: *const c_char) -> NcResult<&'a [u8]> {
    if p.is_null() {
        return Err(NcError::Inval);
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
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
    // SAFETY: non-NULL, valid for n reads by the caller's contract.
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
    // SAFETY: non-NULL, valid for n writes by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

/// Write an optional out-parameter: ignored when `p` is NULL.
///
/// # Safety
/// `p` is NULL or valid for one write of `T`.
pub(crate) unsafe fn put<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: non-NULL and writable by the caller's contract.
        unsafe { p.write(v) };
    }
}

/// Copy a name into a caller buffer of at least `NC_MAX_NAME + 1` bytes, NUL
/// terminated; ignored when `p` is NULL.
///
/// # Safety
/// `p` is NULL or valid for `name.len() + 1` byte writes.
pub(crate) unsafe fn put_name(p: *mut c_char, name: &str) {
    if p.is_null() {
        return;
    }
    let b = name.as_bytes();
    // SAFETY: the caller provides room for the name and its terminator
    // (netCDF names are at most NC_MAX_NAME bytes).
    unsafe {
        std::ptr::copy_nonoverlapping(b.as_ptr(), p.cast::<u8>(), b.len());
        p.add(b.len()).write(0);
    }
}

/// Allocate a NUL-terminated copy of `s` with libc `malloc`, so that C callers
/// (and `nc_free_string`) can release it with `free`. NULL on allocation failure.
pub(crate) fn malloc_cstring(s: &[u8]) -> *mut c_char {
    // SAFETY: malloc with a non-zero size; the result is checked before use.
    let p = unsafe { libc::malloc(s.len() + 1) }.cast::<u8>();
    if p.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: p has room for s.len() + 1 bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr(), p, s.len());
        p.add(s.len()).write(0);
    }
    p.cast()
}
