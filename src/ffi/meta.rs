//! Dimension, group, variable and type exports.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int, c_void};

use super::delegate::forward;
use super::{cstr, put, put_name, slice, slice_mut, status};
use crate::error::{NcError, NcResult};
use crate::handles;
use crate::model::{AttValue, Dataset};
use crate::types::NcType;

/// Copy ids into a caller array when it is non-NULL.
unsafe fn put_ids(p: *mut c_int, ids: &[c_int]) -> NcResult<()> {
    if !p.is_null() {
        // SAFETY: caller provides room for every id (contract above).
        unsafe { slice_mut(p, ids.len()) }?.copy_from_slice(ids);
    }
    Ok(())
}

// ----- dimensions -----

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_dim(ncid: c_int, name: *const c_char, len: usize, idp: *mut c_int) -> c_int {
    forward!(ncid => nc_def_dim(ncid, name, len, idp));
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        let id = handles::with(ncid, |ds, grp| ds.def_dim(grp, name, len))?;
        // SAFETY: NULL or writable.
        unsafe { put(idp, id as c_int) };
        Ok(())
    })
}

/// Resolve a dimension name as seen from a group: a plain name searches the
/// group and its ancestors; a path (`/g/d` or `g/d`) names it exactly.
fn find_dim_by_name(ds: &Dataset, grp: usize, name: &str) -> NcResult<usize> {
    if let Some((path, dname)) = name.rsplit_once('/') {
        let g = find_group_path(ds, grp, path)?;
        return ds.groups[g]
            .dims
            .iter()
            .copied()
            .find(|&d| ds.dims[d].name == dname)
            .ok_or(NcError::BadDim);
    }
    ds.find_dim(grp, name).ok_or(NcError::BadDim)
}

fn find_group_path(ds: &Dataset, grp: usize, path: &str) -> NcResult<usize> {
    let mut g = if path.starts_with('/') { 0 } else { grp };
    for seg in path.split('/').filter(|s| !s.is_empty()) {
        g = *ds.groups[g]
            .children
            .iter()
            .find(|&&c| ds.groups[c].name == seg)
            .ok_or(NcError::NoGrp)?;
    }
    Ok(g)
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_dimid(ncid: c_int, name: *const c_char, idp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_dimid(ncid, name, idp));
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        let id = handles::with(ncid, |ds, grp| find_dim_by_name(ds, grp, name))?;
        // SAFETY: NULL or writable.
        unsafe { put(idp, id as c_int) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_dim(ncid: c_int, dimid: c_int, name: *mut c_char, lenp: *mut usize) -> c_int {
    forward!(ncid => nc_inq_dim(ncid, dimid, name, lenp));
    status(|| {
        handles::with(ncid, |ds, _| {
            let d = ds.check_dimid(dimid)?;
            let dim = &ds.dims[d];
            // SAFETY: NULL or writable (name buffer NC_MAX_NAME+1).
            unsafe {
                put_name(name, &dim.name);
                put(lenp, dim.len);
            }
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_dimname(ncid: c_int, dimid: c_int, name: *mut c_char) -> c_int {
    forward!(ncid => nc_inq_dimname(ncid, dimid, name));
    // SAFETY: forwarded contract.
    unsafe { nc_inq_dim(ncid, dimid, name, std::ptr::null_mut()) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_dimlen(ncid: c_int, dimid: c_int, lenp: *mut usize) -> c_int {
    forward!(ncid => nc_inq_dimlen(ncid, dimid, lenp));
    // SAFETY: forwarded contract.
    unsafe { nc_inq_dim(ncid, dimid, std::ptr::null_mut(), lenp) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rename_dim(ncid: c_int, dimid: c_int, name: *const c_char) -> c_int {
    forward!(ncid => nc_rename_dim(ncid, dimid, name));
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        handles::with(ncid, |ds, grp| ds.rename_dim(grp, dimid, name))
    })
}

// ----- groups -----

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_grp(parent_ncid: c_int, name: *const c_char, new_ncid: *mut c_int) -> c_int {
    // SAFETY (after): new_ncid is NULL or writable.
    forward!(parent_ncid => nc_def_grp(parent_ncid, name, new_ncid); after |rc| unsafe {
        super::delegate::map_out_ncids(parent_ncid, rc, new_ncid, 1)
    });
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        let g = handles::with(parent_ncid, |ds, grp| ds.def_grp(grp, name))?;
        // SAFETY: NULL or writable.
        unsafe { put(new_ncid, handles::group_ncid(parent_ncid, g)) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rename_grp(grpid: c_int, name: *const c_char) -> c_int {
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        handles::with(grpid, |ds, grp| ds.rename_grp(grp, name))
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grps(ncid: c_int, numgrps: *mut c_int, ncids: *mut c_int) -> c_int {
    if super::delegate::lookup(ncid).is_some() {
        // The ids written must be translated, so the count is needed even
        // when the caller does not ask for it (netCDF4-python passes NULL).
        let inner = |numgrps: *mut c_int, ncids: *mut c_int| -> c_int {
            forward!(ncid => nc_inq_grps(ncid, numgrps, ncids));
            NcError::BadId.code()
        };
        let mut n: c_int = 0;
        let count = if numgrps.is_null() {
            &mut n as *mut c_int
        } else {
            numgrps
        };
        let rc = inner(count, std::ptr::null_mut());
        if rc != 0 || ncids.is_null() {
            return rc;
        }
        let rc = inner(count, ncids);
        // SAFETY: ncids has room for *count ids (the caller's contract).
        return unsafe { super::delegate::map_out_ncids(ncid, rc, ncids, count.read().max(0) as usize) };
    }
    status(|| {
        handles::with(ncid, |ds, grp| {
            let ids: Vec<c_int> = ds.groups[grp]
                .children
                .iter()
                .map(|&c| handles::group_ncid(ncid, c))
                .collect();
            // SAFETY: NULL or writable; ncids has room for every child.
            unsafe {
                put(numgrps, ids.len() as c_int);
                put_ids(ncids, &ids)
            }
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grpname(ncid: c_int, name: *mut c_char) -> c_int {
    forward!(ncid => nc_inq_grpname(ncid, name));
    status(|| {
        handles::with(ncid, |ds, grp| {
            // SAFETY: NULL or a buffer of NC_MAX_NAME+1 bytes.
            unsafe { put_name(name, &ds.groups[grp].name) };
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grpname_full(ncid: c_int, lenp: *mut usize, full_name: *mut c_char) -> c_int {
    forward!(ncid => nc_inq_grpname_full(ncid, lenp, full_name));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let full = ds.group_full_name(grp);
            // SAFETY: NULL or writable; full_name has room for the name and NUL.
            unsafe {
                put(lenp, full.len());
                put_name(full_name, &full);
            }
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grpname_len(ncid: c_int, lenp: *mut usize) -> c_int {
    forward!(ncid => nc_inq_grpname_len(ncid, lenp));
    // SAFETY: forwarded contract.
    unsafe { nc_inq_grpname_full(ncid, lenp, std::ptr::null_mut()) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grp_parent(ncid: c_int, parent_ncid: *mut c_int) -> c_int {
    // SAFETY (after): parent_ncid is NULL or writable.
    forward!(ncid => nc_inq_grp_parent(ncid, parent_ncid); after |rc| unsafe { super::delegate::map_out_ncids(ncid, rc, parent_ncid, 1) });
    status(|| {
        handles::with(ncid, |ds, grp| {
            let p = ds.groups[grp].parent.ok_or(NcError::NoGrp)?;
            // SAFETY: NULL or writable.
            unsafe { put(parent_ncid, handles::group_ncid(ncid, p)) };
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grp_ncid(ncid: c_int, grp_name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    // SAFETY (after): grp_ncid is NULL or writable.
    forward!(ncid => nc_inq_grp_ncid(ncid, grp_name, grp_ncid); after |rc| unsafe {
        super::delegate::map_out_ncids(ncid, rc, grp_ncid, 1)
    });
    status(|| {
        if grp_name.is_null() {
            // netcdf-c: no name asks for the root group (ncdump relies on it).
            handles::get(ncid)?;
            // SAFETY: NULL or writable.
            unsafe { put(grp_ncid, handles::group_ncid(ncid, 0)) };
            return Ok(());
        }
        // SAFETY: NUL-terminated.
        let name = unsafe { cstr(grp_name) }?;
        handles::with(ncid, |ds, grp| {
            let c = ds.groups[grp]
                .children
                .iter()
                .copied()
                .find(|&c| ds.groups[c].name == name)
                .ok_or(NcError::NoGrp)?;
            // SAFETY: NULL or writable.
            unsafe { put(grp_ncid, handles::group_ncid(ncid, c)) };
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_ncid(ncid: c_int, name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    // SAFETY (after): grp_ncid is NULL or writable.
    forward!(ncid => nc_inq_ncid(ncid, name, grp_ncid); after |rc| unsafe {
        super::delegate::map_out_ncids(ncid, rc, grp_ncid, 1)
    });
    // SAFETY: forwarded contract.
    unsafe { nc_inq_grp_ncid(ncid, name, grp_ncid) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grp_full_ncid(ncid: c_int, full_name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    // SAFETY (after): grp_ncid is NULL or writable.
    forward!(ncid => nc_inq_grp_full_ncid(ncid, full_name, grp_ncid); after |rc| unsafe {
        super::delegate::map_out_ncids(ncid, rc, grp_ncid, 1)
    });
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(full_name) }?;
        handles::with(ncid, |ds, grp| {
            let g = find_group_path(ds, grp, name)?;
            // SAFETY: NULL or writable.
            unsafe { put(grp_ncid, handles::group_ncid(ncid, g)) };
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_varids(ncid: c_int, nvars: *mut c_int, varids: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_varids(ncid, nvars, varids));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let ids: Vec<c_int> = (0..ds.groups[grp].vars.len() as c_int).collect();
            // SAFETY: NULL or writable with room for every id.
            unsafe {
                put(nvars, ids.len() as c_int);
                put_ids(varids, &ids)
            }
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_dimids(
    ncid: c_int,
    ndims: *mut c_int,
    dimids: *mut c_int,
    include_parents: c_int,
) -> c_int {
    forward!(ncid => nc_inq_dimids(ncid, ndims, dimids, include_parents));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let mut ids: Vec<c_int> = Vec::new();
            let mut g = Some(grp);
            while let Some(x) = g {
                ids.extend(ds.groups[x].dims.iter().map(|&d| d as c_int));
                g = if include_parents != 0 {
                    ds.groups[x].parent
                } else {
                    None
                };
            }
            ids.sort_unstable();
            // SAFETY: NULL or writable with room for every id.
            unsafe {
                put(ndims, ids.len() as c_int);
                put_ids(dimids, &ids)
            }
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_typeids(ncid: c_int, ntypes: *mut c_int, _typeids: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_typeids(ncid, ntypes, _typeids));
    status(|| {
        handles::get(ncid)?;
        // SAFETY: NULL or writable. NCZarr has no user-defined types.
        unsafe { put(ntypes, 0) };
        Ok(())
    })
}

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
        if n > crate::types::NC_MAX_VAR_DIMS {
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
            if varid == crate::types::NC_GLOBAL && !nattsp.is_null() {
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
    if varid == crate::types::NC_GLOBAL {
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
