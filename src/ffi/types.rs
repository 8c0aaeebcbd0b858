//! Type inquiries for the atomic types (`nc_inq_type`, `nc_inq_typeid`,
//! `nc_inq_user_type`, `nc_inq_type_equal`); the user-defined type exports
//! are `usertype`.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int};

use super::delegate::forward;
use super::{cstr, put, put_name, status};
use crate::api::handles;
use crate::error::NcError;
use crate::model::types::NcType;

// ----- types -----

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_type(ncid: c_int, xtype: c_int, name: *mut c_char, size: *mut usize) -> c_int {
    forward!(ncid => nc_inq_type(ncid, xtype, name, size));
    status(|| {
        // netcdf-c answers atomic types without looking at the ncid's format.
        let _ = ncid;
        let t = NcType::from_id(xtype)?;
        // SAFETY: NULL or writable.
        unsafe {
            put_name(name, t.name());
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
    forward!(ncid => nc_inq_typeid(ncid, name, typeidp));
    status(|| {
        handles::get(ncid)?;
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        let t = NcType::ALL.iter().find(|t| t.name() == name).ok_or(NcError::BadType)?;
        // SAFETY: NULL or writable.
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
    forward!(ncid => nc_inq_user_type(ncid, xtype, _name, _size, _base, _nfields, _class));
    status(|| {
        handles::get(ncid)?;
        // No user-defined type exists in an NCZarr dataset.
        let _ = xtype;
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
    if let (Some(a), Some(b)) = (super::delegate::lookup(ncid1), super::delegate::lookup(ncid2)) {
        let like: unsafe extern "C" fn(c_int, c_int, c_int, c_int, *mut c_int) -> c_int = nc_inq_type_equal;
        return match super::delegate::symbol(b"nc_inq_type_equal\0") {
            Some(p) => {
                let _g = super::delegate::serial();
                // SAFETY: same prototype; arguments passed on under the caller's contract.
                unsafe { super::delegate::cast_like(like, p)(a.ext_ncid, t1, b.ext_ncid, t2, equal) }
            }
            None => NcError::NotBuilt.code(),
        };
    }
    // Across the two libraries only atomic types can be equal (a Zarr dataset
    // has no user-defined types); within ours, likewise.
    status(|| {
        for id in [ncid1, ncid2] {
            if super::delegate::lookup(id).is_none() {
                handles::get(id)?;
            }
        }
        let a = NcType::from_id(t1)?;
        let b = NcType::from_id(t2)?;
        // SAFETY: NULL or writable.
        unsafe { put(equal, c_int::from(a == b)) };
        Ok(())
    })
}
