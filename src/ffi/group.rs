//! Group exports: define, rename, navigate, and the id lists of a group
//! (`nc_inq_varids`, `nc_inq_dimids`, `nc_inq_typeids`).
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int};

use super::delegate::{self, Delegated};
use super::{cbytes, cname, code_of, cstr, ffi_boundary, put, put_cstring, put_ids, put_name};
use crate::api::handles;
use crate::error::{NcError, NcResult};
use crate::model::Dataset;
use crate::model::types::NC_MAX_NAME;

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
    ffi_boundary!(forward parent_ncid => nc_def_grp(parent_ncid, name, new_ncid) then |rc| {
        // SAFETY: new_ncid is NULL or writable (this export's contract).
        unsafe { delegate::map_out_ncids(parent_ncid, rc, new_ncid, 1) }
    }; status {
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let name = unsafe { cstr(name) }?;
        let g = handles::with(parent_ncid, |ds, grp| ds.def_grp(grp, name))?;
        // SAFETY: new_ncid is NULL or writable (this export's contract).
        unsafe { put(new_ncid, handles::group_ncid(parent_ncid, g)) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rename_grp(grpid: c_int, name: *const c_char) -> c_int {
    ffi_boundary!(forward grpid => nc_rename_grp(grpid, name); status {
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let name = unsafe { cstr(name) }?;
        handles::with(grpid, |ds, grp| ds.rename_grp(grp, name))
    })
}

/// `nc_inq_grps` of a delegated dataset. The ids written must be translated,
/// so the count is needed even when the caller does not ask for it
/// (netCDF4-python passes NULL).
///
/// # Safety
/// As `nc_inq_grps`.
unsafe fn delegated_inq_grps(ours: c_int, d: Delegated, numgrps: *mut c_int, ncids: *mut c_int) -> c_int {
    type InqGrps = unsafe extern "C" fn(c_int, *mut c_int, *mut c_int) -> c_int;
    let like: InqGrps = nc_inq_grps;
    // SAFETY: netcdf.h declares nc_inq_grps as int(int, int*, int*) in every
    // netcdf-c, the type of `like`.
    let Some(f) = (unsafe { d.function(like, b"nc_inq_grps\0") }) else {
        return NcError::NotBuilt.code();
    };
    let mut n: c_int = 0;
    let _serial = d.lock();
    // SAFETY: n is a local; a NULL id array is allowed (netcdf-c ignores it).
    let rc = unsafe { f(d.ext_ncid, &mut n, std::ptr::null_mut()) };
    if rc != 0 {
        return rc;
    }
    if !ncids.is_null() {
        // SAFETY: ncids has room for every child group (this export's
        // contract): the n the system library just counted.
        let rc = unsafe { f(d.ext_ncid, &mut n, ncids) };
        // SAFETY: the system library wrote n ids to ncids.
        let rc = unsafe { delegate::map_out_ncids(ours, rc, ncids, usize::try_from(n).unwrap_or(0)) };
        if rc != 0 {
            return rc;
        }
    }
    // SAFETY: numgrps is NULL or writable (this export's contract).
    unsafe { put(numgrps, n) };
    0
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grps(ncid: c_int, numgrps: *mut c_int, ncids: *mut c_int) -> c_int {
    ffi_boundary!(code {
        if let Some(d) = delegate::lookup(ncid) {
            // SAFETY: the caller's pointers, under this export's contract.
            return unsafe { delegated_inq_grps(ncid, d, numgrps, ncids) };
        }
        let ids = handles::with(ncid, |ds, grp| {
            Ok(ds.groups[grp]
                .children
                .iter()
                .map(|&c| handles::group_ncid(ncid, c))
                .collect::<Vec<c_int>>())
        });
        code_of(ids.and_then(|ids| {
            // SAFETY: numgrps is NULL or writable; ncids NULL or with room for
            // every child group (this export's contract).
            unsafe {
                put_ids(ncids, &ids)?;
                put(numgrps, ids.len() as c_int);
            }
            Ok(())
        }))
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grpname(ncid: c_int, name: *mut c_char) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_grpname(ncid, name); status {
        let n = handles::with(ncid, |ds, grp| Ok(ds.groups[grp].name.clone()))?;
        // SAFETY: name is NULL or a buffer of NC_MAX_NAME+1 bytes (this
        // export's contract).
        unsafe { put_name(name, &n) }
    })
}

/// The full name of a group (`/` for the root, `/a/b` below): its length in
/// `*lenp`, the text in `full_name`, which must have room for `*lenp + 1`
/// bytes: it can be longer than NC_MAX_NAME, and a caller asks for the
/// length first (`nc_inq_grpname_len`), as with netcdf-c.
///
/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grpname_full(ncid: c_int, lenp: *mut usize, full_name: *mut c_char) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_grpname_full(ncid, lenp, full_name); status {
        let full = handles::with(ncid, |ds, grp| Ok(ds.group_full_name(grp)))?;
        // SAFETY: lenp is NULL or writable; full_name NULL or with room for
        // the full name and its terminator (this export's contract).
        unsafe {
            put(lenp, full.len());
            put_cstring(full_name, full.as_bytes());
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grpname_len(ncid: c_int, lenp: *mut usize) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_grpname_len(ncid, lenp); status {
        let full = handles::with(ncid, |ds, grp| Ok(ds.group_full_name(grp)))?;
        // SAFETY: lenp is NULL or writable (this export's contract).
        unsafe { put(lenp, full.len()) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grp_parent(ncid: c_int, parent_ncid: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_grp_parent(ncid, parent_ncid) then |rc| {
        // SAFETY: parent_ncid is NULL or writable (this export's contract).
        unsafe { delegate::map_out_ncids(ncid, rc, parent_ncid, 1) }
    }; status {
        let p = handles::with(ncid, |ds, grp| ds.groups[grp].parent.ok_or(NcError::NoGrp))?;
        // SAFETY: parent_ncid is NULL or writable (this export's contract).
        unsafe { put(parent_ncid, handles::group_ncid(ncid, p)) };
        Ok(())
    })
}

/// The ncid of the child group `grp_name` of `ncid` (NULL: the root group,
/// ncdump relies on it, as netcdf-c answers).
///
/// # Safety
/// `grp_name` is NULL or NUL-terminated.
unsafe fn child_ncid(ncid: c_int, grp_name: *const c_char) -> NcResult<c_int> {
    handles::with(ncid, |ds, grp| {
        if grp_name.is_null() {
            return Ok(handles::group_ncid(ncid, 0));
        }
        // SAFETY: grp_name is non-NULL and NUL-terminated (this function's contract).
        let name = unsafe { cname(grp_name) }?;
        let c = ds.groups[grp]
            .children
            .iter()
            .copied()
            .find(|&c| ds.groups[c].name == name)
            .ok_or(NcError::NoGrp)?;
        Ok(handles::group_ncid(ncid, c))
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grp_ncid(ncid: c_int, grp_name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_grp_ncid(ncid, grp_name, grp_ncid) then |rc| {
        // SAFETY: grp_ncid is NULL or writable (this export's contract).
        unsafe { delegate::map_out_ncids(ncid, rc, grp_ncid, 1) }
    }; status {
        // SAFETY: grp_name is NULL or NUL-terminated (this export's contract).
        let id = unsafe { child_ncid(ncid, grp_name) }?;
        // SAFETY: grp_ncid is NULL or writable (this export's contract).
        unsafe { put(grp_ncid, id) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_ncid(ncid: c_int, name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_ncid(ncid, name, grp_ncid) then |rc| {
        // SAFETY: grp_ncid is NULL or writable (this export's contract).
        unsafe { delegate::map_out_ncids(ncid, rc, grp_ncid, 1) }
    }; status {
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let id = unsafe { child_ncid(ncid, name) }?;
        // SAFETY: grp_ncid is NULL or writable (this export's contract).
        unsafe { put(grp_ncid, id) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_grp_full_ncid(ncid: c_int, full_name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_grp_full_ncid(ncid, full_name, grp_ncid) then |rc| {
        // SAFETY: grp_ncid is NULL or writable (this export's contract).
        unsafe { delegate::map_out_ncids(ncid, rc, grp_ncid, 1) }
    }; status {
        let g = handles::with(ncid, |ds, grp| {
            // SAFETY: full_name is NULL or NUL-terminated (this export's contract).
            let bytes = unsafe { cbytes(full_name) }?;
            // netcdf-c checks each group name of the path against NC_MAX_NAME.
            if bytes.split(|&b| b == b'/').any(|seg| seg.len() > NC_MAX_NAME) {
                return Err(NcError::MaxName);
            }
            let name = std::str::from_utf8(bytes).map_err(|_| NcError::BadName)?;
            Ok(handles::group_ncid(ncid, find_group_path(ds, grp, name)?))
        })?;
        // SAFETY: grp_ncid is NULL or writable (this export's contract).
        unsafe { put(grp_ncid, g) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_varids(ncid: c_int, nvars: *mut c_int, varids: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_varids(ncid, nvars, varids); status {
        let n = handles::with(ncid, |ds, grp| Ok(ds.groups[grp].vars.len() as c_int))?;
        let ids: Vec<c_int> = (0..n).collect();
        // SAFETY: nvars is NULL or writable; varids NULL or with room for
        // every variable of the group (this export's contract).
        unsafe {
            put_ids(varids, &ids)?;
            put(nvars, n);
        }
        Ok(())
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
    ffi_boundary!(forward ncid => nc_inq_dimids(ncid, ndims, dimids, include_parents); status {
        let ids = handles::with(ncid, |ds, grp| {
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
            Ok(ids)
        })?;
        // SAFETY: ndims is NULL or writable; dimids NULL or with room for
        // every dimension visible (this export's contract).
        unsafe {
            put_ids(dimids, &ids)?;
            put(ndims, ids.len() as c_int);
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_typeids(ncid: c_int, ntypes: *mut c_int, _typeids: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_typeids(ncid, ntypes, _typeids); status {
        handles::with(ncid, |_, _| Ok(()))?;
        // SAFETY: ntypes is NULL or writable (this export's contract). NCZarr
        // has no user-defined types: nothing goes to the id array.
        unsafe { put(ntypes, 0) };
        Ok(())
    })
}
