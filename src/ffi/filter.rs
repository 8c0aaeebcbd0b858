//! Filter exports (`netcdf_filter.h` and the filter functions of `netcdf.h`):
//! defining filters on variables, the filter inquiries, quantization.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL (ignored where netcdf-c ignores them) or valid
//! for the access netcdf-c documents: parameter arrays hold `nparams` values
//! (for inquiries: room for as many as the filter has), id arrays room for
//! every filter of the variable. Out-parameters are written only on success.

use std::ffi::{c_int, c_uint};

use super::{ffi_boundary, put, slice, slice_mut};
use crate::api::filter;
use crate::error::{NcError, NcResult};

/// Copy values into a caller array when it is non-NULL.
///
/// # Safety
/// `p` is NULL or valid for `v.len()` writes.
unsafe fn put_all(p: *mut c_uint, v: &[u32]) -> NcResult<()> {
    if !p.is_null() {
        // SAFETY: p is non-NULL and has room for every value (this function's contract).
        unsafe { slice_mut(p, v.len()) }?.copy_from_slice(v);
    }
    Ok(())
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_var_filter(
    ncid: c_int,
    varid: c_int,
    id: c_uint,
    nparams: usize,
    params: *const c_uint,
) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_filter(ncid, varid, id, nparams, params); status {
        // netcdf-c crashes on NULL parameters with nparams > 0: NC_EINVAL here.
        // SAFETY: params is NULL or holds nparams values (this export's contract).
        let p = unsafe { slice(params, nparams) }?;
        filter::def_filter(ncid, varid, id, p)
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_filter_ids(
    ncid: c_int,
    varid: c_int,
    nfilters: *mut usize,
    filterids: *mut c_uint,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_filter_ids(ncid, varid, nfilters, filterids); status {
        let ids = filter::inq_ids(ncid, varid)?;
        // SAFETY: each out-pointer is NULL or writable, arrays with room for every value (this export's contract).
        unsafe {
            put_all(filterids, &ids)?;
            put(nfilters, ids.len());
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_filter_info(
    ncid: c_int,
    varid: c_int,
    id: c_uint,
    nparams: *mut usize,
    params: *mut c_uint,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_filter_info(ncid, varid, id, nparams, params); status {
        let p = filter::inq_info(ncid, varid, id)?;
        // SAFETY: each out-pointer is NULL or writable, arrays with room for every value (this export's contract).
        unsafe {
            put_all(params, &p)?;
            put(nparams, p.len());
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_filter(
    ncid: c_int,
    varid: c_int,
    idp: *mut c_uint,
    nparams: *mut usize,
    params: *mut c_uint,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_filter(ncid, varid, idp, nparams, params); status {
        let ids = filter::inq_ids(ncid, varid)?;
        let Some(&first) = ids.first() else {
            // No filter: id 0 and NC_NOERR, as netcdf-c.
            // SAFETY: each out-pointer is NULL or writable (this export's contract).
            unsafe { put(idp, 0) };
            return Ok(());
        };
        // netcdf-c stores the first id even when its parameters are unknown.
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe { put(idp, first) };
        let p = filter::inq_info(ncid, varid, first)?;
        // SAFETY: each out-pointer is NULL or writable, arrays with room for every value (this export's contract).
        unsafe {
            put_all(params, &p)?;
            put(nparams, p.len());
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_inq_filter_avail(ncid: c_int, id: c_uint) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_filter_avail(ncid, id); status {
        filter::avail(ncid, id)
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_def_var_deflate(ncid: c_int, varid: c_int, shuffle: c_int, deflate: c_int, level: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_deflate(ncid, varid, shuffle, deflate, level); status {
        filter::def_deflate(ncid, varid, shuffle != 0, deflate != 0, level)
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_deflate(
    ncid: c_int,
    varid: c_int,
    shufflep: *mut c_int,
    deflatep: *mut c_int,
    levelp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_deflate(ncid, varid, shufflep, deflatep, levelp); status {
        let (s, d, l) = filter::inq_deflate(ncid, varid)?;
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe {
            put(shufflep, c_int::from(s));
            put(deflatep, c_int::from(d));
            put(levelp, l);
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_def_var_fletcher32(ncid: c_int, varid: c_int, fletcher32: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_fletcher32(ncid, varid, fletcher32); status {
        filter::def_fletcher32(ncid, varid, fletcher32 != 0)
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_fletcher32(ncid: c_int, varid: c_int, fletcher32p: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_fletcher32(ncid, varid, fletcher32p); status {
        let on = filter::inq_ids(ncid, varid)?.contains(&filter::FLETCHER32);
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe { put(fletcher32p, c_int::from(on)) };
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_def_var_szip(ncid: c_int, varid: c_int, options_mask: c_int, pixels_per_block: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_szip(ncid, varid, options_mask, pixels_per_block); status {
        filter::def_filter(
            ncid,
            varid,
            filter::SZIP,
            &[options_mask as u32, pixels_per_block as u32],
        )
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_szip(
    ncid: c_int,
    varid: c_int,
    options_maskp: *mut c_int,
    pixels_per_blockp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_szip(ncid, varid, options_maskp, pixels_per_blockp); status {
        let p = filter::inq_info_opt(ncid, varid, filter::SZIP)?.unwrap_or_default();
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe {
            put(options_maskp, p.first().map_or(0, |&v| v as c_int));
            put(pixels_per_blockp, p.get(1).map_or(0, |&v| v as c_int));
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_def_var_zstandard(ncid: c_int, varid: c_int, level: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_zstandard(ncid, varid, level); status {
        filter::def_zstandard(ncid, varid, level)
    })
}

/// A one-parameter standard filter's answer: (has it, its level).
fn level_of(ncid: c_int, varid: c_int, id: u32) -> NcResult<(bool, c_int)> {
    match filter::inq_standard(ncid, varid, id)? {
        None => Ok((false, 0)),
        Some(p) if p.len() == 1 => Ok((true, p[0] as c_int)),
        Some(_) => Err(NcError::Filter),
    }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_zstandard(
    ncid: c_int,
    varid: c_int,
    hasfilterp: *mut c_int,
    levelp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_zstandard(ncid, varid, hasfilterp, levelp); status {
        let (has, level) = level_of(ncid, varid, filter::ZSTD)?;
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe {
            put(hasfilterp, c_int::from(has));
            put(levelp, level);
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_def_var_bzip2(ncid: c_int, varid: c_int, level: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_bzip2(ncid, varid, level); status {
        filter::def_bzip2(ncid, varid, level)
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_bzip2(
    ncid: c_int,
    varid: c_int,
    hasfilterp: *mut c_int,
    levelp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_bzip2(ncid, varid, hasfilterp, levelp); status {
        let (has, level) = level_of(ncid, varid, filter::BZIP2)?;
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe {
            put(hasfilterp, c_int::from(has));
            put(levelp, level);
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_def_var_blosc(
    ncid: c_int,
    varid: c_int,
    subcompressor: c_uint,
    level: c_uint,
    blocksize: c_uint,
    addshuffle: c_uint,
) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_blosc(ncid, varid, subcompressor, level, blocksize, addshuffle); status {
        filter::def_blosc(ncid, varid, subcompressor, level, blocksize, addshuffle)
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_blosc(
    ncid: c_int,
    varid: c_int,
    hasfilterp: *mut c_int,
    subcompressorp: *mut c_uint,
    levelp: *mut c_uint,
    blocksizep: *mut c_uint,
    addshufflep: *mut c_uint,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_blosc(ncid, varid, hasfilterp, subcompressorp, levelp, blocksizep, addshufflep); status {
        let p = filter::inq_standard(ncid, varid, filter::BLOSC)?;
        let (has, p) = match p {
            None => (false, vec![0; 7]),
            Some(p) if p.len() == 7 => (true, p),
            Some(_) => return Err(NcError::Filter),
        };
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe {
            put(hasfilterp, c_int::from(has));
            put(blocksizep, p[3]);
            put(levelp, p[4]);
            put(addshufflep, p[5]);
            put(subcompressorp, p[6]);
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_def_var_quantize(ncid: c_int, varid: c_int, quantize_mode: c_int, nsd: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_quantize(ncid, varid, quantize_mode, nsd); status {
        crate::api::quantize::def(ncid, varid, quantize_mode, nsd)
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_quantize(
    ncid: c_int,
    varid: c_int,
    quantize_modep: *mut c_int,
    nsdp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_quantize(ncid, varid, quantize_modep, nsdp); status {
        let (m, n) = crate::api::quantize::inq(ncid, varid)?;
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe {
            put(quantize_modep, m);
            put(nsdp, n);
        }
        Ok(())
    })
}
