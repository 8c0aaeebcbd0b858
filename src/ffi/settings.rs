//! Library-wide settings: alignment, metadata block size, log level,
//! `nc_show_metadata` and the rc table (`nc_rc_get`/`nc_rc_set`).
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int};
use std::sync::Mutex;

use super::{cstr, ffi_boundary, malloc_cstring, put};
use crate::api::handles;
use crate::error::NcError;

// ----- library settings -----

static ALIGNMENT: Mutex<(c_int, c_int)> = Mutex::new((0, 0));

/// Recorded and reported by `nc_get_alignment`; it shapes HDF5 files only,
/// so Zarr datasets ignore it (as in netcdf-c).
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_alignment(threshold: c_int, alignment: c_int) -> c_int {
    ffi_boundary!(status {
        *ALIGNMENT.lock().unwrap_or_else(|p| p.into_inner()) = (threshold, alignment);
        Ok(())
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_alignment(thresholdp: *mut c_int, alignmentp: *mut c_int) -> c_int {
    ffi_boundary!(status {
        let (t, a) = *ALIGNMENT.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: both pointers are NULL or writable (this export's contract).
        unsafe {
            put(thresholdp, t);
            put(alignmentp, a);
        }
        Ok(())
    })
}

static META_BLOCK_SIZE: Mutex<usize> = Mutex::new(0);

/// HDF5's metadata block size: recorded, without effect on Zarr (4.10.1).
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_meta_block_size(size: usize) -> c_int {
    ffi_boundary!(status {
        *META_BLOCK_SIZE.lock().unwrap_or_else(|p| p.into_inner()) = size;
        Ok(())
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_meta_block_size(sizep: *mut usize) -> c_int {
    ffi_boundary!(status {
        let s = *META_BLOCK_SIZE.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: sizep is NULL or writable (this export's contract).
        unsafe { put(sizep, s) };
        Ok(())
    })
}

/// The Fortran form of `nc_set_meta_block_size` (4.10.1).
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_meta_block_size_ints(size: c_int) -> c_int {
    ffi_boundary!(status {
        let s = usize::try_from(size).map_err(|_| NcError::Inval)?;
        *META_BLOCK_SIZE.lock().unwrap_or_else(|p| p.into_inner()) = s;
        Ok(())
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_meta_block_size_ints(sizep: *mut c_int) -> c_int {
    ffi_boundary!(status {
        let s = *META_BLOCK_SIZE.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: sizep is NULL or writable (this export's contract).
        unsafe { put(sizep, c_int::try_from(s).unwrap_or(c_int::MAX)) };
        Ok(())
    })
}

/// netcdf-c's log level: a level above 0 switches this library's log lines
/// on (as `NCLOGGING` does), 0 or `NC_TURN_OFF_LOGGING` (-1) switches them off.
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_log_level(new_level: c_int) -> c_int {
    ffi_boundary!(status {
        crate::log::set_enabled(new_level > 0);
        Ok(())
    })
}

/// netcdf-c prints the metadata at log level 2 or more; here: NC_NOERR for a
/// valid ncid (NC_EBADID otherwise), printing nothing.
#[unsafe(no_mangle)]
pub extern "C" fn nc_show_metadata(ncid: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_show_metadata(ncid); status {
        handles::get(ncid).map(|_| ())
    })
}

/// The value of an rc key (from the `.ncrc`/`.daprc`/`.dodsrc` files, or
/// set with `nc_rc_set`), as a `malloc`'d copy the caller frees; NULL when
/// unset, or when `NCRCENV_IGNORE` is set (`api::rc`).
///
/// # Safety
/// `key` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rc_get(key: *const c_char) -> *mut c_char {
    ffi_boundary!(on_panic(std::ptr::null_mut()) {
        // SAFETY: key is NULL or NUL-terminated (this export's contract).
        let Ok(key) = (unsafe { cstr(key) }) else {
            return std::ptr::null_mut();
        };
        match crate::api::rc::get(key) {
            Some(v) => malloc_cstring(v.as_bytes()),
            None => std::ptr::null_mut(),
        }
    })
}

/// Set (or replace) an rc key for this process. NULL key or value:
/// NC_EINVAL. `ZARR.DIMENSION_SEPARATOR` applies to variables defined
/// afterwards.
///
/// # Safety
/// `key` and `value` are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rc_set(key: *const c_char, value: *const c_char) -> c_int {
    ffi_boundary!(status {
        // SAFETY: key and value are NULL or NUL-terminated (this export's contract).
        let (key, value) = unsafe { (cstr(key)?, cstr(value)?) };
        crate::api::rc::set(key, value)
    })
}
