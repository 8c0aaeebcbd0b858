//! The parallel API of `netcdf_par.h`: `nc_create_par`, `nc_open_par`, their
//! Fortran-handle variants and `nc_var_par_access`. MPI is found at run time
//! in the calling process (`sys::mpi`); a process without an initialised
//! Open MPI gets NC_ENOPAR, as from a netcdf-c built without MPI. A path
//! that is not Zarr goes to the parallel system libnetcdf when there is one
//! (`delegate::open_par`), NC_ENOPAR otherwise.
//!
//! # Safety (every function here)
//! `path` is NULL or NUL-terminated; `ncidp` is NULL or writable; `comm` and
//! `info` are the handles of the calling process's MPI (`MPI_Comm`,
//! `MPI_Info`; Fortran integers for the `_fortran` variants).

use std::ffi::{c_char, c_int, c_void};

use super::{code_of, cstr, delegate, ffi_boundary, put};
use crate::api::{handles, parallel};
use crate::error::{NcError, NcResult};
use crate::sys::mpi::{CommArg, InfoArg};

/// Create or open a path that is not Zarr with the parallel system
/// libnetcdf: its status unchanged; `None` when the path is Zarr, MPI is
/// not usable, or there is no such library (`open_par` answers then).
///
/// # Safety
/// `path` is NULL or NUL-terminated; `ncidp` is NULL or writable; `comm`
/// and `info` are the calling process's MPI handles.
unsafe fn open_par_not_zarr(
    create: bool,
    path: *const c_char,
    mode: c_int,
    comm: CommArg,
    info: InfoArg,
    ncidp: *mut c_int,
) -> Option<c_int> {
    if path.is_null() || ncidp.is_null() {
        return None;
    }
    parallel::mpi_ready().ok()?;
    // SAFETY: path is non-NULL and NUL-terminated (this function's contract).
    let p = unsafe { cstr(path) }.ok()?;
    if crate::api::is_zarr(p, create) {
        return None;
    }
    // SAFETY: path is NUL-terminated, ncidp non-NULL and writable, the
    // handles the caller's (all checked or promised above).
    unsafe { delegate::open_par(create, path, mode, comm, info, ncidp) }
}

/// Create or open with MPI. Paths that are not Zarr (without a parallel
/// system libnetcdf): NC_ENOPAR.
///
/// # Safety
/// `path` is NULL or NUL-terminated; `ncidp` is NULL or writable.
unsafe fn open_par(
    create: bool,
    path: *const c_char,
    mode: c_int,
    comm: CommArg,
    info: InfoArg,
    ncidp: *mut c_int,
) -> NcResult<()> {
    parallel::mpi_ready()?;
    // SAFETY: path is NULL or NUL-terminated (this function's contract).
    let path = unsafe { cstr(path) }?;
    if ncidp.is_null() {
        // netcdf-c would crash here; a dataset nobody can close is worse.
        return Err(NcError::Inval);
    }
    let id = if create {
        parallel::create(path, mode, comm, info)?
    } else {
        parallel::open(path, mode, comm, info)?
    };
    // SAFETY: ncidp was checked non-NULL; it is writable by the contract.
    unsafe { put(ncidp, id) };
    Ok(())
}

/// The four create/open exports: a path that is not Zarr to the parallel
/// system libnetcdf when there is one, else (Zarr, or no such library)
/// through this library's parallel layer; the status code.
///
/// # Safety
/// `path` is NULL or NUL-terminated; `ncidp` is NULL or writable; `comm`
/// and `info` are the calling process's MPI handles.
unsafe fn create_or_open_par(
    create: bool,
    path: *const c_char,
    mode: c_int,
    comm: CommArg,
    info: InfoArg,
    ncidp: *mut c_int,
) -> c_int {
    // SAFETY: this function's contract is open_par_not_zarr's.
    if let Some(rc) = unsafe { open_par_not_zarr(create, path, mode, comm, info, ncidp) } {
        return rc;
    }
    // SAFETY: this function's contract is open_par's.
    code_of(unsafe { open_par(create, path, mode, comm, info, ncidp) })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_create_par(
    path: *const c_char,
    cmode: c_int,
    comm: *mut c_void,
    info: *mut c_void,
    ncidp: *mut c_int,
) -> c_int {
    ffi_boundary!(code {
        // SAFETY: this export's contract is create_or_open_par's.
        unsafe { create_or_open_par(true, path, cmode, CommArg::C(comm), InfoArg::C(info), ncidp) }
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open_par(
    path: *const c_char,
    mode: c_int,
    comm: *mut c_void,
    info: *mut c_void,
    ncidp: *mut c_int,
) -> c_int {
    ffi_boundary!(code {
        // SAFETY: this export's contract is create_or_open_par's.
        unsafe { create_or_open_par(false, path, mode, CommArg::C(comm), InfoArg::C(info), ncidp) }
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_create_par_fortran(
    path: *const c_char,
    cmode: c_int,
    comm: c_int,
    info: c_int,
    ncidp: *mut c_int,
) -> c_int {
    ffi_boundary!(code {
        // SAFETY: this export's contract is create_or_open_par's.
        unsafe { create_or_open_par(true, path, cmode, CommArg::Fortran(comm), InfoArg::Fortran(info), ncidp) }
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open_par_fortran(
    path: *const c_char,
    mode: c_int,
    comm: c_int,
    info: c_int,
    ncidp: *mut c_int,
) -> c_int {
    ffi_boundary!(code {
        // SAFETY: this export's contract is create_or_open_par's.
        unsafe { create_or_open_par(false, path, mode, CommArg::Fortran(comm), InfoArg::Fortran(info), ncidp) }
    })
}

/// NC_INDEPENDENT or NC_COLLECTIVE for a variable (NC_GLOBAL: every
/// variable of the group) of a parallel dataset; NC_ENOPAR for a dataset
/// of one process and for an id that names no dataset, as a serial
/// netcdf-c answers (it does not look at the id).
#[unsafe(no_mangle)]
pub extern "C" fn nc_var_par_access(ncid: c_int, varid: c_int, par_access: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_var_par_access(ncid, varid, par_access); status {
        match handles::with(ncid, |ds, grp| parallel::var_par_access(ds, grp, varid, par_access)) {
            Err(NcError::BadId) => Err(NcError::NoPar),
            r => r,
        }
    })
}
