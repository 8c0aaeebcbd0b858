//! Group exports: define, rename, navigate, and the id lists of a group
//! (`nc_inq_varids`, `nc_inq_dimids`, `nc_inq_typeids`).
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int};

use super::delegate::forward;
use super::{cstr, put, put_ids, put_name, status};
use crate::api::handles;
use crate::error::{NcError, NcResult};
use crate::model::Dataset;

// ----- groups -----

pub(super) fn find_group_path(ds: &Dataset, grp: usize, path: &str) -> NcResult<usize> {
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
