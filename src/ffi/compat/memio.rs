//! In-memory datasets (`netcdf_mem.h`): `nc_open_mem`, `nc_create_mem`,
//! `nc_open_memio`, `nc_close_memio`.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int, c_void};

use crate::ffi::delegate;
use crate::ffi::file::nc_close;

const NC_EINVAL: c_int = -36;
const NC_ENOTBUILT: c_int = -128;
const NC_WRITE: c_int = 0x0001;
const NC_MMAP: c_int = 0x0010;

// ----- in-memory datasets (netcdf_mem.h) -----

/// `NC_memio` of netcdf_mem.h.
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct NC_memio {
    pub size: usize,
    pub memory: *mut c_void,
    pub flags: c_int,
}

/// An in-memory image is a classic or HDF5 file, never Zarr: with arguments
/// netcdf-c accepts, NC_ENOTBUILT (the system libnetcdf's work once
/// delegation is in place); invalid arguments give NC_EINVAL as in netcdf-c.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open_mem(
    path: *const c_char,
    mode: c_int,
    size: usize,
    memory: *mut c_void,
    ncidp: *mut c_int,
) -> c_int {
    if path.is_null() || memory.is_null() || size < 4 || mode & (NC_WRITE | NC_MMAP) != 0 {
        return NC_EINVAL;
    }
    // An in-memory image is a netCDF file, never Zarr: the system library's.
    let like: unsafe extern "C" fn(*const c_char, c_int, usize, *mut c_void, *mut c_int) -> c_int = nc_open_mem;
    // SAFETY: same prototype in every netcdf-c.
    if let Some(f) = unsafe { delegate::function(like, b"nc_open_mem\0") } {
        let mut ext = -1;
        let _g = delegate::serial();
        // SAFETY: arguments passed on under the caller's contract; ext is a local.
        let rc = unsafe { f(path, mode, size, memory, &mut ext) };
        // SAFETY: ncidp NULL or writable.
        return unsafe { delegate::adopt(rc, ext, ncidp) };
    }
    NC_ENOTBUILT
}

/// See `nc_open_mem`.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_create_mem(
    path: *const c_char,
    mode: c_int,
    initialsize: usize,
    ncidp: *mut c_int,
) -> c_int {
    if path.is_null() || mode & NC_MMAP != 0 {
        return NC_EINVAL;
    }
    let like: unsafe extern "C" fn(*const c_char, c_int, usize, *mut c_int) -> c_int = nc_create_mem;
    // SAFETY: same prototype in every netcdf-c.
    if let Some(f) = unsafe { delegate::function(like, b"nc_create_mem\0") } {
        let mut ext = -1;
        let _g = delegate::serial();
        // SAFETY: arguments passed on under the caller's contract; ext is a local.
        let rc = unsafe { f(path, mode, initialsize, &mut ext) };
        // SAFETY: ncidp NULL or writable.
        return unsafe { delegate::adopt(rc, ext, ncidp) };
    }
    NC_ENOTBUILT
}

/// See `nc_open_mem`.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open_memio(
    path: *const c_char,
    mode: c_int,
    info: *mut NC_memio,
    ncidp: *mut c_int,
) -> c_int {
    let _ = ncidp;
    if path.is_null() || info.is_null() || mode & NC_MMAP != 0 {
        return NC_EINVAL;
    }
    // SAFETY: non-NULL NC_memio (contract above).
    let (size, memory) = unsafe { ((*info).size, (*info).memory) };
    if memory.is_null() || size < 4 {
        return NC_EINVAL;
    }
    let like: unsafe extern "C" fn(*const c_char, c_int, *mut NC_memio, *mut c_int) -> c_int = nc_open_memio;
    // SAFETY: same prototype (and NC_memio layout) in every netcdf-c.
    if let Some(f) = unsafe { delegate::function(like, b"nc_open_memio\0") } {
        let mut ext = -1;
        let _g = delegate::serial();
        // SAFETY: arguments passed on under the caller's contract; ext is a local.
        let rc = unsafe { f(path, mode, info, &mut ext) };
        // SAFETY: ncidp NULL or writable.
        return unsafe { delegate::adopt(rc, ext, ncidp) };
    }
    NC_ENOTBUILT
}

/// Close a dataset; `info` is left untouched, as netcdf-c's NCZarr close
/// ignores it (only in-memory datasets fill it).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_close_memio(ncid: c_int, info: *mut NC_memio) -> c_int {
    if let Some(d) = delegate::lookup(ncid) {
        let like: unsafe extern "C" fn(c_int, *mut NC_memio) -> c_int = nc_close_memio;
        // SAFETY: same prototype in every netcdf-c.
        let rc = match unsafe { delegate::function(like, b"nc_close_memio\0") } {
            Some(f) => {
                let _g = delegate::serial();
                // SAFETY: info passed on under the caller's contract.
                unsafe { f(d.ext_ncid, info) }
            }
            None => NC_ENOTBUILT,
        };
        crate::api::handles::remove_foreign(ncid);
        return rc;
    }
    nc_close(ncid)
}
