//! Variable exports: define, inquire, rename, and the storage properties
//! (chunking, fill, endianness).
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int, c_void};

use super::delegate::forward;
use super::{cstr, put, put_ids, put_name, slice, slice_mut, status};
use crate::api::handles;
use crate::error::NcError;
use crate::model::AttValue;
use crate::model::types::NcType;

// ----- variables -----

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_var(
    ncid: c_int,
    name: *const c_char,
    xtype: c_int,
    ndims: c_int,
    dimidsp: *const c_int,
    varidp: *mut c_int,
) -> c_int {
    forward!(ncid => nc_def_var(ncid, name, xtype, ndims, dimidsp, varidp));
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        let n = usize::try_from(ndims).map_err(|_| NcError::Inval)?;
        if n > crate::model::types::NC_MAX_VAR_DIMS {
            return Err(NcError::MaxDims);
        }
        // SAFETY: dimidsp holds ndims ids.
        let dims = unsafe { slice(dimidsp, n) }?;
        let id = handles::with(ncid, |ds, grp| {
            let t = NcType::from_id(xtype)?;
            ds.def_var(grp, name, t, dims)
        })?;
        // SAFETY: NULL or writable.
        unsafe { put(varidp, id) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var(
    ncid: c_int,
    varid: c_int,
    name: *mut c_char,
    xtypep: *mut c_int,
    ndimsp: *mut c_int,
    dimidsp: *mut c_int,
    nattsp: *mut c_int,
) -> c_int {
    forward!(ncid => nc_inq_var(ncid, varid, name, xtypep, ndimsp, dimidsp, nattsp));
    status(|| {
        handles::with(ncid, |ds, grp| {
            if varid == crate::model::types::NC_GLOBAL && !nattsp.is_null() {
                // netcdf-c answers an attribute count for NC_GLOBAL (and
                // nothing else: nc_inq_varname(NC_GLOBAL) is NC_ENOTVAR).
                // SAFETY: checked non-NULL, writable.
                unsafe { put(nattsp, ds.groups[grp].atts.len() as c_int) };
                return Ok(());
            }
            let v = ds.var(grp, varid)?;
            let ids: Vec<c_int> = v.dimids.iter().map(|&d| d as c_int).collect();
            // SAFETY: NULL or writable; dimidsp has room for ndims ids.
            unsafe {
                put_name(name, &v.name);
                put(xtypep, v.ty.id());
                put(ndimsp, ids.len() as c_int);
                put(nattsp, v.atts.len() as c_int);
                put_ids(dimidsp, &ids)
            }
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_varid(ncid: c_int, name: *const c_char, varidp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_varid(ncid, name, varidp));
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        handles::with(ncid, |ds, grp| {
            let i = ds.groups[grp]
                .vars
                .iter()
                .position(|v| v.name == name)
                .ok_or(NcError::NotVar)?;
            // SAFETY: NULL or writable.
            unsafe { put(varidp, i as c_int) };
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_varname(ncid: c_int, varid: c_int, name: *mut c_char) -> c_int {
    forward!(ncid => nc_inq_varname(ncid, varid, name));
    let n = std::ptr::null_mut();
    // SAFETY: forwarded contract.
    unsafe { nc_inq_var(ncid, varid, name, n, n, n, n) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_vartype(ncid: c_int, varid: c_int, xtypep: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_vartype(ncid, varid, xtypep));
    let n = std::ptr::null_mut();
    // SAFETY: forwarded contract.
    unsafe { nc_inq_var(ncid, varid, std::ptr::null_mut(), xtypep, n, n, n) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_varndims(ncid: c_int, varid: c_int, ndimsp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_varndims(ncid, varid, ndimsp));
    let n = std::ptr::null_mut();
    // SAFETY: forwarded contract.
    unsafe { nc_inq_var(ncid, varid, std::ptr::null_mut(), n, ndimsp, n, n) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_vardimid(ncid: c_int, varid: c_int, dimidsp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_vardimid(ncid, varid, dimidsp));
    let n = std::ptr::null_mut();
    // SAFETY: forwarded contract.
    unsafe { nc_inq_var(ncid, varid, std::ptr::null_mut(), n, n, dimidsp, n) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_varnatts(ncid: c_int, varid: c_int, nattsp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_varnatts(ncid, varid, nattsp));
    if varid == crate::model::types::NC_GLOBAL {
        // SAFETY: forwarded contract.
        return unsafe { super::file::nc_inq_natts(ncid, nattsp) };
    }
    let n = std::ptr::null_mut();
    // SAFETY: forwarded contract.
    unsafe { nc_inq_var(ncid, varid, std::ptr::null_mut(), n, n, n, nattsp) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rename_var(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    forward!(ncid => nc_rename_var(ncid, varid, name));
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        handles::with(ncid, |ds, grp| ds.rename_var(grp, varid, name))
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_var_chunking(
    ncid: c_int,
    varid: c_int,
    storage: c_int,
    chunksizesp: *const usize,
) -> c_int {
    forward!(ncid => nc_def_var_chunking(ncid, varid, storage, chunksizesp));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let n = ds.var(grp, varid)?.dimids.len();
            let sizes = if chunksizesp.is_null() {
                None
            } else {
                // SAFETY: chunksizesp holds one size per dimension.
                Some(unsafe { slice(chunksizesp, n) }?)
            };
            ds.def_var_chunking(grp, varid, storage, sizes)
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_chunking(
    ncid: c_int,
    varid: c_int,
    storagep: *mut c_int,
    chunksizesp: *mut usize,
) -> c_int {
    forward!(ncid => nc_inq_var_chunking(ncid, varid, storagep, chunksizesp));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let v = ds.var(grp, varid)?;
            // SAFETY: NULL or writable; chunksizesp has room for ndims sizes.
            unsafe {
                put(storagep, 0); // NC_CHUNKED: NCZarr stores everything in chunks.
                if !chunksizesp.is_null() {
                    slice_mut(chunksizesp, v.chunks.len())?.copy_from_slice(&v.chunks);
                }
            }
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_var_fill(
    ncid: c_int,
    varid: c_int,
    no_fill: c_int,
    fill_value: *const c_void,
) -> c_int {
    forward!(ncid => nc_def_var_fill(ncid, varid, no_fill, fill_value));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let ty = ds.var(grp, varid)?.ty;
            let value = if fill_value.is_null() {
                None
            } else if ty == NcType::String {
                // SAFETY: fill_value points to one `char*`.
                let p = unsafe { *fill_value.cast::<*const c_char>() };
                // SAFETY: that pointer is NULL or NUL-terminated.
                let b = if p.is_null() {
                    Vec::new()
                } else {
                    unsafe { super::cbytes(p) }?.to_vec()
                };
                Some(AttValue::Strings(vec![b]))
            } else {
                // SAFETY: fill_value points to one value of the variable's type.
                Some(AttValue::Bytes(
                    unsafe { slice(fill_value.cast::<u8>(), ty.size()) }?.to_vec(),
                ))
            };
            ds.def_var_fill(grp, varid, no_fill != 0, value)
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_fill(
    ncid: c_int,
    varid: c_int,
    no_fill: *mut c_int,
    fill_valuep: *mut c_void,
) -> c_int {
    forward!(ncid => nc_inq_var_fill(ncid, varid, no_fill, fill_valuep));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let v = ds.var(grp, varid)?;
            // The fill in effect (set by _FillValue, kept when it is deleted, as netcdf-c).
            let mut fill = v.fill.clone();
            if v.ty != NcType::String {
                fill.resize(v.ty.size(), 0);
            }
            // SAFETY: NULL or writable for one value of the variable's type.
            unsafe {
                put(no_fill, c_int::from(v.no_fill));
                if !fill_valuep.is_null() {
                    if v.ty == NcType::String {
                        put(fill_valuep.cast::<*mut c_char>(), super::malloc_cstring(&fill));
                    } else {
                        slice_mut(fill_valuep.cast::<u8>(), v.ty.size())?.copy_from_slice(&fill[..v.ty.size()]);
                    }
                }
            }
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_def_var_endian(ncid: c_int, varid: c_int, endian: c_int) -> c_int {
    forward!(ncid => nc_def_var_endian(ncid, varid, endian));
    status(|| handles::with(ncid, |ds, grp| ds.def_var_endian(grp, varid, endian)))
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_endian(ncid: c_int, varid: c_int, endianp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_var_endian(ncid, varid, endianp));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let v = ds.var(grp, varid)?;
            // Text has no byte order: NC_ENDIAN_NATIVE, as netcdf-c reports.
            let e = match v.ty {
                NcType::Char | NcType::String => 0,
                _ if v.native_order => 0,
                _ if v.big_endian => 2,
                _ => 1,
            };
            // SAFETY: NULL or writable.
            unsafe { put(endianp, e) };
            Ok(())
        })
    })
}
