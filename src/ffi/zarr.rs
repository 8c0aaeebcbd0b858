//! Exports of `include/netcdf_zarr.h`: this library's Zarr extensions, which
//! netcdf-c does not have (so a dataset delegated to the system libnetcdf
//! answers NC_ENOTBUILT).
//!
//! # Safety (every function here)
//! Pointer arguments are NULL where the header allows it, or valid for the
//! access it documents: `shardsizes` holds one size per dimension of the
//! variable. Out-parameters are written only on success.

use std::ffi::{c_char, c_int};

use super::{cstr, ffi_boundary, put, slice, slice_mut};
use crate::api::{self, handles};

/// Store variable `varid`'s chunks in shards of `shardsizes` elements (one
/// per dimension, each a multiple of the chunk size): Zarr v3
/// `sharding_indexed`. NULL `shardsizes`: no shards.
///
/// Returns NC_NOERR; NC_EBADID, NC_ENOTVAR; NC_EINVAL when the dataset is
/// not Zarr v3, the variable is a scalar or a string, or a size is not a
/// multiple of the chunk size; NC_ELATEDEF after the variable was stored;
/// NC_EPERM when read-only; NC_ENOTBUILT for a dataset that is not Zarr.
///
/// # Safety
/// `shardsizes` is NULL or valid for as many reads as the variable has
/// dimensions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_var_zarr_shards(ncid: c_int, varid: c_int, shardsizes: *const usize) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_zarr_shards(ncid, varid, shardsizes); status {
        handles::with(ncid, |ds, grp| {
            let n = ds.var(grp, varid)?.dimids.len();
            let sizes = if shardsizes.is_null() {
                None
            } else {
                // SAFETY: non-NULL, valid for one size per dimension (contract).
                Some(unsafe { slice(shardsizes, n) }?)
            };
            api::def_var_shards(ds, grp, varid, sizes)
        })
    })
}

/// Whether variable `varid`'s chunks are stored in shards (`*shardedp`, 1 or
/// 0) and the shard sizes (`shardsizesp`, one per dimension; left alone when
/// not sharded). Either pointer may be NULL.
///
/// Returns NC_NOERR, NC_EBADID, NC_ENOTVAR; NC_ENOTBUILT for a dataset that
/// is not Zarr.
///
/// # Safety
/// `shardedp` is NULL or valid for one write; `shardsizesp` is NULL or valid
/// for as many writes as the variable has dimensions.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_zarr_shards(
    ncid: c_int,
    varid: c_int,
    shardedp: *mut c_int,
    shardsizesp: *mut usize,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_zarr_shards(ncid, varid, shardedp, shardsizesp); status {
        let shards = handles::with(ncid, |ds, grp| api::inq_var_shards(ds, grp, varid))?;
        if let (Some(s), false) = (&shards, shardsizesp.is_null()) {
            // SAFETY: non-NULL, valid for one write per dimension (contract).
            unsafe { slice_mut(shardsizesp, s.len()) }?.copy_from_slice(s);
        }
        // SAFETY: NULL or valid for one write.
        unsafe { put(shardedp, c_int::from(shards.is_some())) };
        Ok(())
    })
}

/// Write variable `varid` as a CF aggregation: split into fragments, each a
/// Zarr dataset of the master's format, the master holding the CF-1.13
/// aggregation variable. `fragment_shape` gives one size per dimension;
/// NULL lets the splitting algorithm choose fragments of at most
/// `max_fragment_bytes` (0: 64 MiB). `uri_template` names each fragment
/// relative to the master (`{master}`, `{var}`, `{index}`); NULL is
/// `{master}_{var}/{index}.zarr`. Fixed at nc_enddef.
///
/// Returns NC_NOERR; NC_EBADID, NC_ENOTVAR; NC_ENOTINDEFINE out of define
/// mode; NC_EINVAL for a scalar, a type that is not a number, a size of 0
/// or an empty template; NC_ELATEDEF once the variable is stored; NC_EPERM
/// when read-only; NC_ENOTBUILT for a dataset that is not Zarr or of
/// several MPI processes.
///
/// # Safety
/// `fragment_shape` is NULL or valid for as many reads as the variable has
/// dimensions; `uri_template` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_var_aggregation(
    ncid: c_int,
    varid: c_int,
    fragment_shape: *const usize,
    max_fragment_bytes: usize,
    uri_template: *const c_char,
) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_aggregation(ncid, varid, fragment_shape, max_fragment_bytes, uri_template); status {
        handles::with(ncid, |ds, grp| {
            let n = ds.var(grp, varid)?.dimids.len();
            let shape = if fragment_shape.is_null() {
                None
            } else {
                // SAFETY: non-NULL, valid for one size per dimension (contract).
                Some(unsafe { slice(fragment_shape, n) }?)
            };
            let template = if uri_template.is_null() {
                None
            } else {
                // SAFETY: non-NULL and NUL-terminated (contract).
                Some(unsafe { cstr(uri_template) }?)
            };
            crate::aggregate::write::define(ds, grp, varid, shape, max_fragment_bytes, template)
        })
    })
}
