//! Variable exports: define, inquire, rename, and the storage properties
//! (chunking, fill, endianness).
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int, c_void};

use super::{
    cbytes, check_name_out, cname, cstr, ffi_boundary, malloc_cstring, put, put_ids, put_name, slice, slice_mut,
};
use crate::api::handles;
use crate::error::{NcError, NcResult};
use crate::model::AttValue;
use crate::model::types::{NC_GLOBAL, NcType};

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
    ffi_boundary!(forward ncid => nc_def_var(ncid, name, xtype, ndims, dimidsp, varidp); status {
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let name = unsafe { cstr(name) }?;
        let n = usize::try_from(ndims).map_err(|_| NcError::Inval)?;
        if n > crate::model::types::NC_MAX_VAR_DIMS {
            return Err(NcError::MaxDims);
        }
        // SAFETY: dimidsp is NULL or holds ndims ids (this export's contract).
        let dims = unsafe { slice(dimidsp, n) }?;
        let id = handles::with(ncid, |ds, grp| {
            let t = NcType::from_id(xtype)?;
            ds.def_var(grp, name, t, dims)
        })?;
        // SAFETY: varidp is NULL or writable (this export's contract).
        unsafe { put(varidp, id) };
        Ok(())
    })
}

/// What `nc_inq_var` reports about one variable.
struct VarInfo {
    name: String,
    xtype: c_int,
    dimids: Vec<c_int>,
    natts: c_int,
}

fn var_info(ncid: c_int, varid: c_int) -> NcResult<VarInfo> {
    handles::with(ncid, |ds, grp| {
        let v = ds.var(grp, varid)?;
        Ok(VarInfo {
            name: v.name.clone(),
            xtype: v.ty.id(),
            dimids: v.dimids.iter().map(|&d| d as c_int).collect(),
            natts: v.atts.len() as c_int,
        })
    })
}

/// The number of attributes of a group (`varid` NC_GLOBAL).
fn group_natts(ncid: c_int) -> NcResult<c_int> {
    handles::with(ncid, |ds, grp| Ok(ds.groups[grp].atts.len() as c_int))
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
    ffi_boundary!(forward ncid => nc_inq_var(ncid, varid, name, xtypep, ndimsp, dimidsp, nattsp); status {
        if varid == NC_GLOBAL && !nattsp.is_null() {
            // netcdf-c answers an attribute count for NC_GLOBAL (and
            // nothing else: nc_inq_varname(NC_GLOBAL) is NC_ENOTVAR).
            let n = group_natts(ncid)?;
            // SAFETY: nattsp is non-NULL and writable (this export's contract).
            unsafe { put(nattsp, n) };
            return Ok(());
        }
        let v = var_info(ncid, varid)?;
        check_name_out(name, &v.name)?;
        // SAFETY: name is NULL or a buffer of NC_MAX_NAME+1 bytes; dimidsp
        // NULL or with room for the variable's dimensions; the others NULL or
        // writable (this export's contract).
        unsafe {
            put_name(name, &v.name)?;
            put_ids(dimidsp, &v.dimids)?;
            put(xtypep, v.xtype);
            put(ndimsp, v.dimids.len() as c_int);
            put(nattsp, v.natts);
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_varid(ncid: c_int, name: *const c_char, varidp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_varid(ncid, name, varidp); status {
        let i = handles::with(ncid, |ds, grp| {
            // SAFETY: name is NULL or NUL-terminated (this export's contract).
            let name = unsafe { cname(name) }?;
            ds.group_var(grp, name).ok_or(NcError::NotVar)
        })?;
        // SAFETY: varidp is NULL or writable (this export's contract).
        unsafe { put(varidp, i as c_int) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_varname(ncid: c_int, varid: c_int, name: *mut c_char) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_varname(ncid, varid, name); status {
        let v = var_info(ncid, varid)?;
        // SAFETY: name is NULL or a buffer of NC_MAX_NAME+1 bytes (this
        // export's contract).
        unsafe { put_name(name, &v.name) }
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_vartype(ncid: c_int, varid: c_int, xtypep: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_vartype(ncid, varid, xtypep); status {
        let v = var_info(ncid, varid)?;
        // SAFETY: xtypep is NULL or writable (this export's contract).
        unsafe { put(xtypep, v.xtype) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_varndims(ncid: c_int, varid: c_int, ndimsp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_varndims(ncid, varid, ndimsp); status {
        let v = var_info(ncid, varid)?;
        // SAFETY: ndimsp is NULL or writable (this export's contract).
        unsafe { put(ndimsp, v.dimids.len() as c_int) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_vardimid(ncid: c_int, varid: c_int, dimidsp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_vardimid(ncid, varid, dimidsp); status {
        let v = var_info(ncid, varid)?;
        // SAFETY: dimidsp is NULL or has room for the variable's dimensions
        // (this export's contract).
        unsafe { put_ids(dimidsp, &v.dimids) }
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_varnatts(ncid: c_int, varid: c_int, nattsp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_varnatts(ncid, varid, nattsp); status {
        let n = if varid == NC_GLOBAL {
            group_natts(ncid)?
        } else {
            var_info(ncid, varid)?.natts
        };
        // SAFETY: nattsp is NULL or writable (this export's contract).
        unsafe { put(nattsp, n) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rename_var(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    ffi_boundary!(forward ncid => nc_rename_var(ncid, varid, name); status {
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
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
    ffi_boundary!(forward ncid => nc_def_var_chunking(ncid, varid, storage, chunksizesp); status {
        handles::with(ncid, |ds, grp| {
            let n = ds.var(grp, varid)?.dimids.len();
            let sizes = if chunksizesp.is_null() {
                None
            } else {
                // SAFETY: chunksizesp is non-NULL and holds one size per
                // dimension of the variable (this export's contract).
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
    ffi_boundary!(forward ncid => nc_inq_var_chunking(ncid, varid, storagep, chunksizesp); status {
        let (chunks, contiguous) = handles::with(ncid, |ds, grp| {
            let v = ds.var(grp, varid)?;
            Ok((v.chunks.clone(), v.contiguous))
        })?;
        // SAFETY: storagep is NULL or writable; chunksizesp NULL or with room
        // for one size per dimension (this export's contract).
        unsafe {
            if contiguous {
                // NC_CONTIGUOUS (a netCDF master's variable); chunk sizes
                // untouched, as netcdf-c.
                put(storagep, 1);
                return Ok(());
            }
            if !chunksizesp.is_null() {
                slice_mut(chunksizesp, chunks.len())?.copy_from_slice(&chunks);
            }
            put(storagep, 0); // NC_CHUNKED: NCZarr stores everything in chunks.
        }
        Ok(())
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
    ffi_boundary!(forward ncid => nc_def_var_fill(ncid, varid, no_fill, fill_value); status {
        handles::with(ncid, |ds, grp| {
            let ty = ds.var(grp, varid)?.ty;
            let value = if fill_value.is_null() {
                None
            } else if ty == NcType::String {
                // SAFETY: fill_value is non-NULL and points to one `char*`
                // (this export's contract for an NC_STRING variable).
                let p = unsafe { fill_value.cast::<*const c_char>().read_unaligned() };
                let b = if p.is_null() {
                    Vec::new()
                } else {
                    // SAFETY: that pointer is non-NULL and NUL-terminated
                    // (the same contract).
                    unsafe { cbytes(p) }?.to_vec()
                };
                Some(AttValue::Strings(vec![b]))
            } else {
                // SAFETY: fill_value is non-NULL and points to one value of
                // the variable's type (this export's contract).
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
    ffi_boundary!(forward ncid => nc_inq_var_fill(ncid, varid, no_fill, fill_valuep); status {
        let (ty, nofill, mut fill) = handles::with(ncid, |ds, grp| {
            let v = ds.var(grp, varid)?;
            // The fill in effect (set by _FillValue, kept when it is deleted, as netcdf-c).
            Ok((v.ty, v.no_fill, v.fill.clone()))
        })?;
        if !fill_valuep.is_null() {
            if ty == NcType::String {
                let s = malloc_cstring(&fill);
                if s.is_null() {
                    return Err(NcError::NoMem);
                }
                // SAFETY: fill_valuep is non-NULL and writable for one
                // `char*` (this export's contract for an NC_STRING variable).
                unsafe { fill_valuep.cast::<*mut c_char>().write_unaligned(s) };
            } else {
                fill.resize(ty.size(), 0);
                // SAFETY: fill_valuep is non-NULL and writable for one value
                // of the variable's type (this export's contract).
                unsafe { slice_mut(fill_valuep.cast::<u8>(), ty.size()) }?.copy_from_slice(&fill);
            }
        }
        // SAFETY: no_fill is NULL or writable (this export's contract).
        unsafe { put(no_fill, c_int::from(nofill)) };
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_def_var_endian(ncid: c_int, varid: c_int, endian: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_endian(ncid, varid, endian); status {
        handles::with(ncid, |ds, grp| ds.def_var_endian(grp, varid, endian))
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_endian(ncid: c_int, varid: c_int, endianp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_endian(ncid, varid, endianp); status {
        let e = handles::with(ncid, |ds, grp| {
            let v = ds.var(grp, varid)?;
            // Text has no byte order: NC_ENDIAN_NATIVE, as netcdf-c reports.
            Ok(match v.ty {
                NcType::Char | NcType::String => 0,
                _ if v.native_order => 0,
                _ if v.big_endian => 2,
                _ => 1,
            })
        })?;
        // SAFETY: endianp is NULL or writable (this export's contract).
        unsafe { put(endianp, e) };
        Ok(())
    })
}
