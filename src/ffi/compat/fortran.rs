//! The helpers netcdf-fortran calls instead of the `size_t`/`float` C API
//! (netcdf-c's `netcdf_f.h`, exported but not in the installed headers), and
//! the parallel entry points, answered as a serial netcdf-c build does.
//!
//! Units follow netcdf-c 4.9.0: `nc_set/get_chunk_cache_ints` take bytes and a
//! preemption in percent; `nc_set/get_var_chunk_cache_ints` take MiB (what
//! `nf_set_var_chunk_cache` documents) and percent. In
//! `nc_set_var_chunk_cache_ints` a negative argument keeps the variable's
//! current setting (netcdf-c puts HDF5's defaults there instead).
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! chunk-size arrays have one element per dimension of the variable.

use std::ffi::{c_float, c_int};

use crate::error::NcError;
use crate::ffi::file::{nc_get_var_chunk_cache, nc_set_chunk_cache, nc_set_var_chunk_cache};
use crate::ffi::{NC_NOERR, ffi_boundary, put, slice, slice_mut};
use crate::ffi::{nc_def_var_chunking, nc_inq_var, nc_inq_var_chunking};

const NC_CHUNKED: c_int = 0;
const MEGABYTE: usize = 1 << 20;

/// Number of dimensions of a variable, or the error.
fn ndims(ncid: c_int, varid: c_int) -> Result<usize, c_int> {
    let mut n = 0;
    let z: *mut c_int = std::ptr::null_mut();
    // SAFETY: n is a local; every other output is NULL, which nc_inq_var ignores.
    let st = unsafe { nc_inq_var(ncid, varid, z.cast(), z, &mut n, z, z) };
    if st != NC_NOERR {
        return Err(st);
    }
    usize::try_from(n).map_err(|_| NcError::Inval.code())
}

/// Global chunk cache: size in bytes, slots, preemption in percent (0..=100).
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_chunk_cache_ints(size: c_int, nelems: c_int, preemption: c_int) -> c_int {
    ffi_boundary!(code {
        if size <= 0 || nelems <= 0 || !(0..=100).contains(&preemption) {
            return NcError::Inval.code();
        }
        nc_set_chunk_cache(size as usize, nelems as usize, preemption as c_float / 100.0)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_chunk_cache_ints(
    sizep: *mut c_int,
    nelemsp: *mut c_int,
    preemptionp: *mut c_int,
) -> c_int {
    ffi_boundary!(status {
        let (s, n, p) = crate::model::cache_defaults();
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe {
            put(sizep, s as c_int);
            put(nelemsp, n as c_int);
            put(preemptionp, (p * 100.0) as c_int);
        }
        Ok(())
    })
}

/// Per-variable chunk cache: size in MiB, slots, preemption in percent; a
/// negative value keeps the current setting.
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_var_chunk_cache_ints(
    ncid: c_int,
    varid: c_int,
    size: c_int,
    nelems: c_int,
    preemption: c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_set_var_chunk_cache_ints(ncid, varid, size, nelems, preemption); code {
        let (mut s, mut n, mut p) = (0usize, 0usize, 0.0 as c_float);
        // SAFETY: the three outputs are locals.
        let st = unsafe { nc_get_var_chunk_cache(ncid, varid, &mut s, &mut n, &mut p) };
        if st != NC_NOERR {
            return st;
        }
        if size >= 0 {
            s = (size as usize).saturating_mul(MEGABYTE);
        }
        if nelems >= 0 {
            n = nelems as usize;
        }
        if preemption >= 0 {
            p = preemption as c_float / 100.0;
        }
        nc_set_var_chunk_cache(ncid, varid, s, n, p)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_var_chunk_cache_ints(
    ncid: c_int,
    varid: c_int,
    sizep: *mut c_int,
    nelemsp: *mut c_int,
    preemptionp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_get_var_chunk_cache_ints(ncid, varid, sizep, nelemsp, preemptionp); code {
        let (mut s, mut n, mut p) = (0usize, 0usize, 0.0 as c_float);
        // SAFETY: the three outputs are locals.
        let st = unsafe { nc_get_var_chunk_cache(ncid, varid, &mut s, &mut n, &mut p) };
        if st == NC_NOERR {
            // SAFETY: each out-pointer is NULL or writable (this export's contract).
            unsafe {
                put(sizep, (s / MEGABYTE) as c_int);
                put(nelemsp, n as c_int);
                put(preemptionp, (p * 100.0) as c_int);
            }
        }
        st
    })
}

/// `nc_def_var_chunking` with `int` chunk sizes (a negative size is invalid).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_var_chunking_ints(
    ncid: c_int,
    varid: c_int,
    storage: c_int,
    chunksizesp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_def_var_chunking_ints(ncid, varid, storage, chunksizesp); code {
        let n = match ndims(ncid, varid) {
            Ok(n) => n,
            Err(e) => return e,
        };
        if chunksizesp.is_null() {
            // SAFETY: NULL chunk sizes are allowed by nc_def_var_chunking.
            return unsafe { nc_def_var_chunking(ncid, varid, storage, std::ptr::null()) };
        }
        // SAFETY: chunksizesp is non-NULL and holds one size per dimension
        // (this export's contract).
        let ints = match unsafe { slice(chunksizesp.cast_const(), n) } {
            Ok(i) => i,
            Err(e) => return e.code(),
        };
        let Ok(sizes) = ints.iter().map(|&c| usize::try_from(c)).collect::<Result<Vec<usize>, _>>() else {
            return NcError::Inval.code();
        };
        // SAFETY: sizes holds one size per dimension.
        unsafe { nc_def_var_chunking(ncid, varid, storage, sizes.as_ptr()) }
    })
}

/// `nc_inq_var_chunking` with `int` chunk sizes: NC_ERANGE when one does not
/// fit (the others are still written, as in netcdf-c).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_var_chunking_ints(
    ncid: c_int,
    varid: c_int,
    storagep: *mut c_int,
    chunksizesp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_var_chunking_ints(ncid, varid, storagep, chunksizesp); code {
        let n = match ndims(ncid, varid) {
            Ok(n) => n,
            Err(e) => return e,
        };
        let mut storage = 0;
        let mut sizes = vec![0usize; n];
        // SAFETY: storage is a local and sizes has room for every dimension.
        let st = unsafe { nc_inq_var_chunking(ncid, varid, &mut storage, sizes.as_mut_ptr()) };
        if st != NC_NOERR {
            return st;
        }
        // SAFETY: storagep is NULL or writable (this export's contract).
        unsafe { put(storagep, storage) };
        let mut ret = NC_NOERR;
        if !chunksizesp.is_null() && storage == NC_CHUNKED {
            // SAFETY: chunksizesp is non-NULL with one element per dimension
            // (this export's contract).
            let out = match unsafe { slice_mut(chunksizesp, n) } {
                Ok(o) => o,
                Err(e) => return e.code(),
            };
            for (o, &s) in out.iter_mut().zip(&sizes) {
                *o = s as c_int;
                if s > c_int::MAX as usize {
                    ret = NcError::Range.code();
                }
            }
        }
        ret
    })
}
