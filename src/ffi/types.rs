//! Type inquiries for the atomic types (`nc_inq_type`, `nc_inq_typeid`,
//! `nc_inq_user_type`, `nc_inq_type_equal`); the user-defined type exports
//! are `usertype`.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int};

use super::delegate;
use super::{check_name_out, cname, ffi_boundary, put, put_name, status_of};
use crate::api::handles;
use crate::error::NcError;
use crate::model::types::NcType;

// ----- types -----

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_type(ncid: c_int, xtype: c_int, name: *mut c_char, size: *mut usize) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_type(ncid, xtype, name, size); status {
        // netcdf-c answers atomic types without looking at the ncid's format.
        let t = NcType::from_id(xtype)?;
        check_name_out(name, t.name())?;
        // SAFETY: name is NULL or a buffer of NC_MAX_NAME+1 bytes, size NULL
        // or writable (this export's contract).
        unsafe {
            put_name(name, t.name())?;
            put(size, t.size());
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_typeid(ncid: c_int, name: *const c_char, typeidp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_typeid(ncid, name, typeidp); status {
        // netcdf-c checks the dataset before the atomic names and the group
        // only after them.
        handles::get(ncid)?;
        // A NULL name is NC_EINVAL (netcdf-c crashes).
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let name = unsafe { cname(name) }?;
        let Some(t) = NcType::ALL.iter().find(|t| t.name() == name) else {
            handles::with(ncid, |_, _| Ok(()))?;
            return Err(NcError::BadType);
        };
        // SAFETY: typeidp is NULL or writable (this export's contract).
        unsafe { put(typeidp, t.id()) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_user_type(
    ncid: c_int,
    xtype: c_int,
    _name: *mut c_char,
    _size: *mut usize,
    _base: *mut c_int,
    _nfields: *mut usize,
    _class: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_user_type(ncid, xtype, _name, _size, _base, _nfields, _class); status {
        handles::with(ncid, |_, _| Ok(()))?;
        // No user-defined type exists in an NCZarr dataset.
        Err(NcError::BadType)
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_type_equal(
    ncid1: c_int,
    t1: c_int,
    ncid2: c_int,
    t2: c_int,
    equal: *mut c_int,
) -> c_int {
    ffi_boundary!(code {
        if let (Some(a), Some(b)) = (delegate::lookup(ncid1), delegate::lookup(ncid2))
            && a.lib == b.lib
        {
            let like: unsafe extern "C" fn(c_int, c_int, c_int, c_int, *mut c_int) -> c_int = nc_inq_type_equal;
            // SAFETY: netcdf.h declares nc_inq_type_equal as
            // int(int, nc_type, int, nc_type, int*) in every netcdf-c, the
            // type of `like`.
            return match unsafe { a.function(like, b"nc_inq_type_equal\0") } {
                Some(f) => {
                    let _g = a.lock();
                    // SAFETY: equal is NULL or writable (this export's
                    // contract), as the system library's function requires.
                    unsafe { f(a.ext_ncid, t1, b.ext_ncid, t2, equal) }
                }
                None => NcError::NotBuilt.code(),
            };
        }
        // Across the two libraries only atomic types can be equal (a Zarr
        // dataset has no user-defined types); within ours, likewise.
        status_of(|| {
            for id in [ncid1, ncid2] {
                if delegate::lookup(id).is_none() {
                    handles::get(id)?;
                }
            }
            let a = NcType::from_id(t1)?;
            let b = NcType::from_id(t2)?;
            // SAFETY: equal is NULL or writable (this export's contract).
            unsafe { put(equal, c_int::from(a == b)) };
            Ok(())
        })
    })
}
