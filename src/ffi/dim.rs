//! Dimension exports: define, inquire, rename.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int};

use super::group::find_group_path;
use super::{check_name_out, cname, cstr, ffi_boundary, put, put_name};
use crate::api::handles;
use crate::error::{NcError, NcResult};
use crate::model::Dataset;

// ----- dimensions -----

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_dim(ncid: c_int, name: *const c_char, len: usize, idp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_def_dim(ncid, name, len, idp); status {
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let name = unsafe { cstr(name) }?;
        let id = handles::with(ncid, |ds, grp| ds.def_dim(grp, name, len))?;
        // SAFETY: idp is NULL or writable (this export's contract).
        unsafe { put(idp, id as c_int) };
        Ok(())
    })
}

/// Resolve a dimension name as seen from a group: a plain name searches the
/// group and its ancestors; a path (`/g/d` or `g/d`) names it exactly.
fn find_dim_by_name(ds: &Dataset, grp: usize, name: &str) -> NcResult<usize> {
    if let Some((path, dname)) = name.rsplit_once('/') {
        let g = find_group_path(ds, grp, path)?;
        return ds.group_dim(g, dname).ok_or(NcError::BadDim);
    }
    ds.find_dim(grp, name).ok_or(NcError::BadDim)
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_dimid(ncid: c_int, name: *const c_char, idp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_dimid(ncid, name, idp); status {
        let id = handles::with(ncid, |ds, grp| {
            // SAFETY: name is NULL or NUL-terminated (this export's contract).
            let name = unsafe { cname(name) }?;
            find_dim_by_name(ds, grp, name)
        })?;
        // SAFETY: idp is NULL or writable (this export's contract).
        unsafe { put(idp, id as c_int) };
        Ok(())
    })
}

/// A dimension's name and length.
fn inq_dim(ncid: c_int, dimid: c_int) -> NcResult<(String, usize)> {
    handles::with(ncid, |ds, _| {
        let d = ds.check_dimid(dimid)?;
        Ok((ds.dims[d].name.clone(), ds.dims[d].len))
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_dim(ncid: c_int, dimid: c_int, name: *mut c_char, lenp: *mut usize) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_dim(ncid, dimid, name, lenp); status {
        let (n, len) = inq_dim(ncid, dimid)?;
        check_name_out(name, &n)?;
        // SAFETY: name is NULL or a buffer of NC_MAX_NAME+1 bytes, lenp NULL
        // or writable (this export's contract).
        unsafe {
            put_name(name, &n)?;
            put(lenp, len);
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_dimname(ncid: c_int, dimid: c_int, name: *mut c_char) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_dimname(ncid, dimid, name); status {
        let (n, _) = inq_dim(ncid, dimid)?;
        // SAFETY: name is NULL or a buffer of NC_MAX_NAME+1 bytes (this
        // export's contract).
        unsafe { put_name(name, &n) }
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_dimlen(ncid: c_int, dimid: c_int, lenp: *mut usize) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_dimlen(ncid, dimid, lenp); status {
        let (_, len) = inq_dim(ncid, dimid)?;
        // SAFETY: lenp is NULL or writable (this export's contract).
        unsafe { put(lenp, len) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rename_dim(ncid: c_int, dimid: c_int, name: *const c_char) -> c_int {
    ffi_boundary!(forward ncid => nc_rename_dim(ncid, dimid, name); status {
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let name = unsafe { cstr(name) }?;
        handles::with(ncid, |ds, grp| ds.rename_dim(grp, dimid, name))
    })
}
