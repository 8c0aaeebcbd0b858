//! In-memory datasets (`netcdf_mem.h`): `nc_open_mem`, `nc_create_mem`,
//! `nc_open_memio`, `nc_close_memio`.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int, c_void};

use crate::error::NcError;
use crate::ffi::delegate;
use crate::ffi::ffi_boundary;
use crate::ffi::file::nc_close;

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
/// netcdf-c accepts, the system libnetcdf opens it (NC_ENOTBUILT without
/// one); invalid arguments give NC_EINVAL as in netcdf-c.
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
    ffi_boundary!(code {
        if path.is_null() || memory.is_null() || size < 4 || mode & (NC_WRITE | NC_MMAP) != 0 {
            return NcError::Inval.code();
        }
        let like: unsafe extern "C" fn(*const c_char, c_int, usize, *mut c_void, *mut c_int) -> c_int = nc_open_mem;
        // SAFETY: netcdf_mem.h declares nc_open_mem as
        // int(const char*, int, size_t, void*, int*) in every netcdf-c, the
        // type of `like`.
        let Some(f) = (unsafe { delegate::function(like, b"nc_open_mem\0") }) else {
            return NcError::NotBuilt.code();
        };
        let mut ext = -1;
        let _g = delegate::serial();
        // SAFETY: path is NUL-terminated and memory holds size bytes (this
        // export's contract); ext is a local.
        let rc = unsafe { f(path, mode, size, memory, &mut ext) };
        // SAFETY: ncidp is NULL or writable (this export's contract).
        unsafe { delegate::adopt(rc, ext, ncidp) }
    })
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
    ffi_boundary!(code {
        if path.is_null() || mode & NC_MMAP != 0 {
            return NcError::Inval.code();
        }
        let like: unsafe extern "C" fn(*const c_char, c_int, usize, *mut c_int) -> c_int = nc_create_mem;
        // SAFETY: netcdf_mem.h declares nc_create_mem as
        // int(const char*, int, size_t, int*) in every netcdf-c, the type of `like`.
        let Some(f) = (unsafe { delegate::function(like, b"nc_create_mem\0") }) else {
            return NcError::NotBuilt.code();
        };
        let mut ext = -1;
        let _g = delegate::serial();
        // SAFETY: path is NUL-terminated (this export's contract); ext is a local.
        let rc = unsafe { f(path, mode, initialsize, &mut ext) };
        // SAFETY: ncidp is NULL or writable (this export's contract).
        unsafe { delegate::adopt(rc, ext, ncidp) }
    })
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
    ffi_boundary!(code {
        if path.is_null() || info.is_null() || mode & NC_MMAP != 0 {
            return NcError::Inval.code();
        }
        // SAFETY: info is non-NULL and points to an NC_memio (this export's contract).
        let (size, memory) = unsafe { ((*info).size, (*info).memory) };
        if memory.is_null() || size < 4 {
            return NcError::Inval.code();
        }
        let like: unsafe extern "C" fn(*const c_char, c_int, *mut NC_memio, *mut c_int) -> c_int = nc_open_memio;
        // SAFETY: netcdf_mem.h declares nc_open_memio as
        // int(const char*, int, NC_memio*, int*) with this NC_memio layout in
        // every netcdf-c, the type of `like`.
        let Some(f) = (unsafe { delegate::function(like, b"nc_open_memio\0") }) else {
            return NcError::NotBuilt.code();
        };
        let mut ext = -1;
        let _g = delegate::serial();
        // SAFETY: path is NUL-terminated and info a valid NC_memio (this
        // export's contract); ext is a local.
        let rc = unsafe { f(path, mode, info, &mut ext) };
        // SAFETY: ncidp is NULL or writable (this export's contract).
        unsafe { delegate::adopt(rc, ext, ncidp) }
    })
}

/// Close a dataset; `info` is left untouched, as netcdf-c's NCZarr close
/// ignores it (only in-memory datasets fill it).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_close_memio(ncid: c_int, info: *mut NC_memio) -> c_int {
    ffi_boundary!(code {
        let Some(d) = delegate::lookup(ncid) else {
            return nc_close(ncid);
        };
        let like: unsafe extern "C" fn(c_int, *mut NC_memio) -> c_int = nc_close_memio;
        // SAFETY: netcdf_mem.h declares nc_close_memio as int(int, NC_memio*)
        // in every netcdf-c, the type of `like`.
        let rc = match unsafe { d.function(like, b"nc_close_memio\0") } {
            Some(f) => {
                let _g = d.lock();
                // SAFETY: info is NULL or a writable NC_memio (this export's contract).
                unsafe { f(d.ext_ncid, info) }
            }
            None => NcError::NotBuilt.code(),
        };
        crate::api::handles::remove_foreign(ncid);
        rc
    })
}
