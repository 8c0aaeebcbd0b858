//! The netCDF-2 API (`nccreate`, `ncvarget`, `ncattput`, ...), kept by netcdf.h
//! for old programs and used by netcdf-fortran's F77 layer.
//!
//! Every function here is a thin layer over this library's own `nc_*` exports
//! (which handle delegation themselves), so a v2 call on a delegated dataset
//! still reports through *our* `ncerr` / `ncopts`. The v2 conventions, as in
//! netcdf-c's `libdispatch/dv2i.c`:
//! - the result is an id, a count or 0/1 on success and -1 on failure;
//! - a failure calls `nc_advise` (src/ffi/c/varargs.c), which stores the code
//!   in the data object `ncerr`, prints `routine: detail: message` on stderr
//!   when `ncopts & NC_VERBOSE`, and exits with status `ncopts` when
//!   `ncopts & NC_FATAL` (the default `ncopts` is both);
//! - index vectors are C `long`, the same width as `size_t`/`ptrdiff_t` on the
//!   LP64 targets this library builds for, so they are passed through as they
//!   are (a negative start becomes a huge index and fails the bounds check,
//!   exactly as in netcdf-c);
//! - `ncvarputg`/`ncvargetg` take the index map in bytes, not elements.
//!
//! `nc_inq_rec`, `nc_get_rec` and `nc_put_rec` (exported by netcdf-c without a
//! declaration in its headers) are the record helpers behind `ncrec*`.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes, index
//! vectors with one element per dimension of the variable, data buffers large
//! enough for the selection.

use std::ffi::{CStr, CString, c_char, c_int, c_long, c_void};

use crate::error::NcError;
use crate::ffi::att::{nc_copy_att, nc_del_att, nc_get_att, nc_inq_att, nc_inq_attname, nc_put_att, nc_rename_att};
use crate::ffi::data::{
    nc_get_var1, nc_get_vara, nc_get_varm, nc_get_vars, nc_put_var1, nc_put_vara, nc_put_varm, nc_put_vars,
};
use crate::ffi::file::{
    nc_abort, nc_close, nc_create, nc_enddef, nc_inq, nc_inq_unlimdim, nc_open, nc_redef, nc_set_fill, nc_sync,
};
use crate::ffi::{NC_NOERR, ffi_boundary, put, slice_mut};
use crate::ffi::{
    nc_def_dim, nc_def_var, nc_inq_dim, nc_inq_dimid, nc_inq_dimlen, nc_inq_var, nc_inq_varid, nc_rename_dim,
    nc_rename_var,
};

use crate::model::types::NC_MAX_VAR_DIMS;

const _: () = assert!(size_of::<c_long>() == size_of::<usize>() && size_of::<c_long>() == size_of::<isize>());

unsafe extern "C" {
    /// src/ffi/c/varargs.c.
    fn nc_advise(routine_name: *const c_char, err: c_int, fmt: *const c_char, ...);
}

/// Report a failed v2 call through `nc_advise` (which may exit the process).
fn advise(routine: &CStr, err: c_int, detail: &str) {
    let detail = CString::new(detail.replace('\0', "")).unwrap_or_default();
    // SAFETY: both strings are NUL-terminated and live across the call; the
    // format "%s" consumes exactly the one `char*` argument given.
    unsafe { nc_advise(routine.as_ptr(), err, c"%s".as_ptr(), detail.as_ptr()) };
}

/// The v2 result: `ok` when `status` is NC_NOERR, else -1 after reporting.
fn v2(routine: &CStr, status: c_int, detail: impl FnOnce() -> String, ok: c_int) -> c_int {
    if status == NC_NOERR {
        ok
    } else {
        advise(routine, status, &detail());
        -1
    }
}

/// The v2 answer to a panic caught at the boundary: a reported NC_EINTERNAL.
fn v2_panic(routine: &CStr) -> c_int {
    advise(routine, NcError::Internal.code(), "");
    -1
}

fn ncid_detail(ncid: c_int) -> impl FnOnce() -> String {
    move || format!("ncid {ncid}")
}

/// Size in bytes of one value of an atomic type, or -1 (netcdf-c's table).
#[unsafe(no_mangle)]
pub extern "C" fn nctypelen(datatype: c_int) -> c_int {
    ffi_boundary!(on_panic(-1) {
        match datatype {
            1 | 2 | 7 => 1,
            3 | 8 => 2,
            4 | 5 | 9 => 4,
            6 | 10 | 11 => 8,
            12 => size_of::<*const c_char>() as c_int,
            _ => -1,
        }
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nccreate(path: *const c_char, cmode: c_int) -> c_int {
    ffi_boundary!(on_panic(v2_panic(c"nccreate")) {
        let mut ncid = -1;
        // SAFETY: the caller's pointers reach nc_create with the contract this module documents for
        // them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_create(path, cmode, &mut ncid) };
        v2(c"nccreate", st, || format!("filename \"{}\"", show(path)), ncid)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncopen(path: *const c_char, mode: c_int) -> c_int {
    ffi_boundary!(on_panic(v2_panic(c"ncopen")) {
        let mut ncid = -1;
        // SAFETY: the caller's pointers reach nc_open with the contract this module documents for
        // them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_open(path, mode, &mut ncid) };
        v2(c"ncopen", st, || format!("filename \"{}\"", show(path)), ncid)
    })
}

/// A C string for a message ("(null)" for NULL).
fn show(p: *const c_char) -> String {
    if p.is_null() {
        return "(null)".into();
    }
    // SAFETY: non-NULL strings are NUL-terminated by the module contract.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Returns the previous fill mode, or -1.
#[unsafe(no_mangle)]
pub extern "C" fn ncsetfill(ncid: c_int, fillmode: c_int) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncsetfill")) {
        let mut old = -1;
        // SAFETY: old is a local.
        let st = unsafe { nc_set_fill(ncid, fillmode, &mut old) };
        v2(c"ncsetfill", st, ncid_detail(ncid), old)
    })
}

macro_rules! v2_simple {
    ($name:ident, $routine:literal, $call:ident) => {
        #[unsafe(no_mangle)]
        pub extern "C" fn $name(ncid: c_int) -> c_int {
            // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
            ffi_boundary!(on_panic(v2_panic($routine)) { v2($routine, $call(ncid), ncid_detail(ncid), 0) })
        }
    };
}
v2_simple!(ncredef, c"ncredef", nc_redef);
v2_simple!(ncendef, c"ncendef", nc_enddef);
v2_simple!(ncsync, c"ncsync", nc_sync);
v2_simple!(ncabort, c"ncabort", nc_abort);
v2_simple!(ncclose, c"ncclose", nc_close);

/// Returns the ncid, or -1.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncinquire(
    ncid: c_int,
    ndims: *mut c_int,
    nvars: *mut c_int,
    natts: *mut c_int,
    recdim: *mut c_int,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncinquire")) {
        let (mut nd, mut nv, mut na, mut rd) = (0, 0, 0, -1);
        // SAFETY: every output given to nc_inq is a local or NULL (which it ignores).
        let st = unsafe { nc_inq(ncid, &mut nd, &mut nv, &mut na, &mut rd) };
        if st == NC_NOERR {
            // SAFETY: each out-pointer is NULL or writable (this export's contract).
            unsafe {
                put(ndims, nd);
                put(nvars, nv);
                put(natts, na);
                put(recdim, rd);
            }
        }
        v2(c"ncinquire", st, ncid_detail(ncid), ncid)
    })
}

/// Returns the new dimension's id, or -1.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncdimdef(ncid: c_int, name: *const c_char, length: c_long) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncdimdef")) {
        if length < 0 {
            return v2(c"ncdimdef", NcError::DimSize.code(), ncid_detail(ncid), -1);
        }
        let mut dimid = -1;
        // SAFETY: the caller's pointers reach nc_def_dim with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_def_dim(ncid, name, length as usize, &mut dimid) };
        v2(c"ncdimdef", st, ncid_detail(ncid), dimid)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncdimid(ncid: c_int, name: *const c_char) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncdimid")) {
        let mut dimid = -1;
        // SAFETY: the caller's pointers reach nc_inq_dimid with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_inq_dimid(ncid, name, &mut dimid) };
        v2(c"ncdimid", st, ncid_detail(ncid), dimid)
    })
}

/// Returns the dimension id, or -1. The length is the exact one (netcdf-c
/// passes it through an `int` first).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncdiminq(ncid: c_int, dimid: c_int, name: *mut c_char, length: *mut c_long) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncdiminq")) {
        let mut len = 0usize;
        // SAFETY: the caller's pointers reach nc_inq_dim with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_inq_dim(ncid, dimid, name, &mut len) };
        if st == NC_NOERR {
            // SAFETY: each out-pointer is NULL or writable (this export's contract).
            unsafe { put(length, len as c_long) };
        }
        v2(c"ncdiminq", st, ncid_detail(ncid), dimid)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncdimrename(ncid: c_int, dimid: c_int, name: *const c_char) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncdimrename")) {
        // SAFETY: the caller's pointers reach nc_rename_dim with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_rename_dim(ncid, dimid, name) };
        v2(c"ncdimrename", st, ncid_detail(ncid), dimid)
    })
}

/// Returns the new variable's id, or -1.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvardef(
    ncid: c_int,
    name: *const c_char,
    datatype: c_int,
    ndims: c_int,
    dim: *const c_int,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvardef")) {
        let mut varid = -1;
        // SAFETY: the caller's pointers reach nc_def_var with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_def_var(ncid, name, datatype, ndims, dim, &mut varid) };
        v2(c"ncvardef", st, ncid_detail(ncid), varid)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarid(ncid: c_int, name: *const c_char) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvarid")) {
        let mut varid = -1;
        // SAFETY: the caller's pointers reach nc_inq_varid with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_inq_varid(ncid, name, &mut varid) };
        v2(c"ncvarid", st, ncid_detail(ncid), varid)
    })
}

/// Returns the variable id, or -1.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarinq(
    ncid: c_int,
    varid: c_int,
    name: *mut c_char,
    datatype: *mut c_int,
    ndims: *mut c_int,
    dim: *mut c_int,
    natts: *mut c_int,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvarinq")) {
        let (mut nd, mut na) = (0, 0);
        // SAFETY: the caller's pointers reach nc_inq_var with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_inq_var(ncid, varid, name, datatype, &mut nd, dim, &mut na) };
        if st == NC_NOERR {
            // SAFETY: each out-pointer is NULL or writable (this export's contract).
            unsafe {
                put(ndims, nd);
                put(natts, na);
            }
        }
        v2(c"ncvarinq", st, ncid_detail(ncid), varid)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarrename(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvarrename")) {
        // SAFETY: the caller's pointers reach nc_rename_var with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_rename_var(ncid, varid, name) };
        v2(c"ncvarrename", st, ncid_detail(ncid), varid)
    })
}

// ----- data -----

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarput1(ncid: c_int, varid: c_int, index: *const c_long, value: *const c_void) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvarput1")) {
        // SAFETY: C long has the layout of size_t and ptrdiff_t (asserted above), so the caller's
        // index vectors and buffer reach nc_put_var1 as the module documentation promises.
        let st = unsafe { nc_put_var1(ncid, varid, index.cast(), value) };
        v2(c"ncvarput1", st, ncid_detail(ncid), 0)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarget1(ncid: c_int, varid: c_int, index: *const c_long, value: *mut c_void) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvarget1")) {
        // SAFETY: C long has the layout of size_t and ptrdiff_t (asserted above), so the caller's
        // index vectors and buffer reach nc_get_var1 as the module documentation promises.
        let st = unsafe { nc_get_var1(ncid, varid, index.cast(), value) };
        v2(c"ncvarget1", st, ncid_detail(ncid), 0)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarput(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    value: *const c_void,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvarput")) {
        // SAFETY: C long has the layout of size_t and ptrdiff_t (asserted above), so the caller's
        // index vectors and buffer reach nc_put_vara as the module documentation promises.
        let st = unsafe { nc_put_vara(ncid, varid, start.cast(), count.cast(), value) };
        v2(c"ncvarput", st, ncid_detail(ncid), 0)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarget(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    value: *mut c_void,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvarget")) {
        // SAFETY: C long has the layout of size_t and ptrdiff_t (asserted above), so the caller's
        // index vectors and buffer reach nc_get_vara as the module documentation promises.
        let st = unsafe { nc_get_vara(ncid, varid, start.cast(), count.cast(), value) };
        v2(c"ncvarget", st, || format!("ncid {ncid}; varid {varid}"), 0)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarputs(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    stride: *const c_long,
    value: *const c_void,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvarputs")) {
        if stride.is_null() {
            // SAFETY: the other arguments carry ncvarput's contract in this export too.
            return unsafe { ncvarput(ncid, varid, start, count, value) };
        }
        // SAFETY: C long has the layout of size_t and ptrdiff_t (asserted above), so the caller's
        // index vectors and buffer reach nc_put_vars as the module documentation promises.
        let st = unsafe { nc_put_vars(ncid, varid, start.cast(), count.cast(), stride.cast(), value) };
        v2(c"ncvarputs", st, ncid_detail(ncid), 0)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvargets(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    stride: *const c_long,
    value: *mut c_void,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvargets")) {
        if stride.is_null() {
            // SAFETY: the other arguments carry ncvarget's contract in this export too.
            return unsafe { ncvarget(ncid, varid, start, count, value) };
        }
        // SAFETY: C long has the layout of size_t and ptrdiff_t (asserted above), so the caller's
        // index vectors and buffer reach nc_get_vars as the module documentation promises.
        let st = unsafe { nc_get_vars(ncid, varid, start.cast(), count.cast(), stride.cast(), value) };
        v2(c"ncvargets", st, ncid_detail(ncid), 0)
    })
}

/// The byte map of `ncvarputg`/`ncvargetg` turned into an element map.
///
/// # Safety
/// `map` is valid for one read per dimension of the variable.
unsafe fn element_map(ncid: c_int, varid: c_int, map: *const c_long) -> Result<Vec<isize>, c_int> {
    let (mut xtype, mut ndims) = (0, 0);
    let n: *mut c_int = std::ptr::null_mut();
    // SAFETY: every output given to nc_inq_var is a local or NULL (which it ignores).
    let st = unsafe { nc_inq_var(ncid, varid, n.cast(), &mut xtype, &mut ndims, n, n) };
    if st != NC_NOERR {
        return Err(st);
    }
    let size = nctypelen(xtype);
    if size <= 0 {
        return Err(NcError::BadType.code());
    }
    let ndims = usize::try_from(ndims).map_err(|_| NcError::Inval.code())?;
    // SAFETY: one element per dimension (module contract).
    let m = unsafe { crate::ffi::slice(map, ndims) }.map_err(|e| e.code())?;
    Ok(m.iter().map(|&b| (b / c_long::from(size)) as isize).collect())
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvarputg(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    stride: *const c_long,
    map: *const c_long,
    value: *const c_void,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvarputg")) {
        if map.is_null() {
            // SAFETY: the other arguments carry ncvarputs's contract in this export too.
            return unsafe { ncvarputs(ncid, varid, start, count, stride, value) };
        }
        // SAFETY: the caller's pointers reach element_map with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = match unsafe { element_map(ncid, varid, map) } {
            // SAFETY: C long has the layout of size_t and ptrdiff_t (asserted above), so the
            // caller's index vectors and buffer reach nc_put_varm as the module documentation
            // promises.
            Ok(imap) => unsafe {
                nc_put_varm(
                    ncid,
                    varid,
                    start.cast(),
                    count.cast(),
                    stride.cast(),
                    imap.as_ptr(),
                    value,
                )
            },
            Err(e) => e,
        };
        v2(c"ncvarputg", st, ncid_detail(ncid), 0)
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncvargetg(
    ncid: c_int,
    varid: c_int,
    start: *const c_long,
    count: *const c_long,
    stride: *const c_long,
    map: *const c_long,
    value: *mut c_void,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncvargetg")) {
        if map.is_null() {
            // SAFETY: the other arguments carry ncvargets's contract in this export too.
            return unsafe { ncvargets(ncid, varid, start, count, stride, value) };
        }
        // SAFETY: the caller's pointers reach element_map with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = match unsafe { element_map(ncid, varid, map) } {
            // SAFETY: C long has the layout of size_t and ptrdiff_t (asserted above), so the
            // caller's index vectors and buffer reach nc_get_varm as the module documentation
            // promises.
            Ok(imap) => unsafe {
                nc_get_varm(
                    ncid,
                    varid,
                    start.cast(),
                    count.cast(),
                    stride.cast(),
                    imap.as_ptr(),
                    value,
                )
            },
            Err(e) => e,
        };
        v2(c"ncvargetg", st, ncid_detail(ncid), 0)
    })
}

// ----- attributes -----

/// Returns 0, or -1.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattput(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    datatype: c_int,
    len: c_int,
    value: *const c_void,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncattput")) {
        // netcdf-c converts a negative length to a huge size_t, which fails.
        let st = match usize::try_from(len) {
            // SAFETY: the caller's pointers reach nc_put_att with the contract this module
            // documents for them (netcdf.h's); any other output is a local.
            Ok(len) => unsafe { nc_put_att(ncid, varid, name, datatype, len, value) },
            Err(_) => NcError::Inval.code(),
        };
        v2(c"ncattput", st, ncid_detail(ncid), 0)
    })
}

/// Returns 1, or -1.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattinq(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    datatype: *mut c_int,
    len: *mut c_int,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncattinq")) {
        let mut n = 0usize;
        // SAFETY: the caller's pointers reach nc_inq_att with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_inq_att(ncid, varid, name, datatype, &mut n) };
        if st == NC_NOERR {
            // SAFETY: each out-pointer is NULL or writable (this export's contract).
            unsafe { put(len, n as c_int) };
        }
        v2(
            c"ncattinq",
            st,
            || format!("ncid {ncid}; varid {varid}; attname \"{}\"", show(name)),
            1,
        )
    })
}

/// Returns 1, or -1.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattget(ncid: c_int, varid: c_int, name: *const c_char, value: *mut c_void) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncattget")) {
        // SAFETY: the caller's pointers reach nc_get_att with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_get_att(ncid, varid, name, value) };
        v2(c"ncattget", st, ncid_detail(ncid), 1)
    })
}

/// Returns 0, or -1. Takes two ncids: no forwarding of its own (nc_copy_att's).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattcopy(
    ncid_in: c_int,
    varid_in: c_int,
    name: *const c_char,
    ncid_out: c_int,
    varid_out: c_int,
) -> c_int {
    ffi_boundary!(on_panic(v2_panic(c"ncattcopy")) {
        // SAFETY: the caller's pointers reach nc_copy_att with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_copy_att(ncid_in, varid_in, name, ncid_out, varid_out) };
        v2(c"ncattcopy", st, || show(name), 0)
    })
}

/// Returns attnum, or -1.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattname(ncid: c_int, varid: c_int, attnum: c_int, name: *mut c_char) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncattname")) {
        // SAFETY: the caller's pointers reach nc_inq_attname with the contract this module
        // documents for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_inq_attname(ncid, varid, attnum, name) };
        v2(c"ncattname", st, ncid_detail(ncid), attnum)
    })
}

/// Returns 1, or -1.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattrename(ncid: c_int, varid: c_int, name: *const c_char, newname: *const c_char) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncattrename")) {
        // SAFETY: the caller's pointers reach nc_rename_att with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_rename_att(ncid, varid, name, newname) };
        v2(c"ncattrename", st, ncid_detail(ncid), 1)
    })
}

/// Returns 1, or -1.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncattdel(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncattdel")) {
        // SAFETY: the caller's pointers reach nc_del_att with the contract this module documents
        // for them (netcdf.h's); any other output is a local.
        let st = unsafe { nc_del_att(ncid, varid, name) };
        v2(c"ncattdel", st, ncid_detail(ncid), 1)
    })
}

// ----- records -----

/// The record variables of a group (first dimension = the group's first
/// unlimited dimension) and each one's record size in bytes.
fn record_vars(ncid: c_int) -> Result<Vec<(c_int, usize)>, c_int> {
    let (mut nvars, mut recdim) = (0, -1);
    let n: *mut c_int = std::ptr::null_mut();
    // SAFETY: every output given to nc_inq is a local or NULL (which it ignores).
    let st = unsafe { nc_inq(ncid, n, &mut nvars, n, n) };
    if st != NC_NOERR {
        return Err(st);
    }
    // SAFETY: every output given to nc_inq_unlimdim is a local or NULL (which it ignores).
    let st = unsafe { nc_inq_unlimdim(ncid, &mut recdim) };
    if st != NC_NOERR {
        return Err(st);
    }
    let mut out = Vec::new();
    if recdim < 0 {
        return Ok(out);
    }
    for varid in 0..nvars {
        let (dims, xtype) = var_dims(ncid, varid)?;
        if dims.first() != Some(&recdim) {
            continue;
        }
        let mut size = usize::try_from(nctypelen(xtype)).unwrap_or(0);
        for &d in &dims[1..] {
            let mut len = 0usize;
            // SAFETY: every output given to nc_inq_dimlen is a local or NULL (which it ignores).
            let st = unsafe { nc_inq_dimlen(ncid, d, &mut len) };
            if st != NC_NOERR {
                return Err(st);
            }
            size = size.saturating_mul(len);
        }
        out.push((varid, size));
    }
    Ok(out)
}

/// A variable's dimension ids and type.
fn var_dims(ncid: c_int, varid: c_int) -> Result<(Vec<c_int>, c_int), c_int> {
    let (mut ndims, mut xtype) = (0, 0);
    let n: *mut c_int = std::ptr::null_mut();
    // SAFETY: every output given to nc_inq_var is a local or NULL (which it ignores).
    let st = unsafe { nc_inq_var(ncid, varid, n.cast(), &mut xtype, &mut ndims, n, n) };
    if st != NC_NOERR {
        return Err(st);
    }
    let ndims = usize::try_from(ndims)
        .map_err(|_| NcError::Inval.code())?
        .min(NC_MAX_VAR_DIMS);
    let mut dims = vec![0; ndims];
    // SAFETY: room for every dimension id.
    let st = unsafe { nc_inq_var(ncid, varid, n.cast(), n, n, dims.as_mut_ptr(), n) };
    if st != NC_NOERR {
        return Err(st);
    }
    Ok((dims, xtype))
}

/// One record of variable `varid`: start and count vectors.
fn record_slab(ncid: c_int, varid: c_int, recnum: usize) -> Result<(Vec<usize>, Vec<usize>), c_int> {
    let (dims, _) = var_dims(ncid, varid)?;
    let mut start = vec![0usize; dims.len()];
    let mut count = vec![1usize; dims.len()];
    for (i, &d) in dims.iter().enumerate().skip(1) {
        // SAFETY: every output given to nc_inq_dimlen is a local or NULL (which it ignores).
        let st = unsafe { nc_inq_dimlen(ncid, d, &mut count[i]) };
        if st != NC_NOERR {
            return Err(st);
        }
    }
    if let Some(s) = start.first_mut() {
        *s = recnum;
    }
    Ok((start, count))
}

/// Record variables, their ids and record sizes (netcdf-c exports this
/// without declaring it). Outputs are written only on success; with no
/// unlimited dimension nothing is written.
///
/// # Safety
/// `recvarids`/`recsizes` are NULL or have room for every record variable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_rec(
    ncid: c_int,
    nrecvarsp: *mut usize,
    recvarids: *mut c_int,
    recsizes: *mut usize,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_rec(ncid, nrecvarsp, recvarids, recsizes); code {
        let recs = match record_vars(ncid) {
            Ok(r) => r,
            Err(e) => return e,
        };
        if recs.is_empty() {
            return NC_NOERR;
        }
        // SAFETY: NULL or room for every record variable (contract above).
        unsafe {
            put(nrecvarsp, recs.len());
            if !recvarids.is_null() {
                let Ok(ids) = slice_mut(recvarids, recs.len()) else {
                    return NcError::Inval.code();
                };
                for (o, r) in ids.iter_mut().zip(&recs) {
                    *o = r.0;
                }
            }
            if !recsizes.is_null() {
                let Ok(sz) = slice_mut(recsizes, recs.len()) else {
                    return NcError::Inval.code();
                };
                for (o, r) in sz.iter_mut().zip(&recs) {
                    *o = r.1;
                }
            }
        }
        NC_NOERR
    })
}

/// Move one record of every record variable whose pointer is non-NULL.
///
/// # Safety
/// `datap` has one pointer per record variable, each NULL or valid for one
/// record of that variable.
unsafe fn rec_io(ncid: c_int, recnum: usize, datap: *const *mut c_void, write: bool) -> c_int {
    let recs = match record_vars(ncid) {
        Ok(r) => r,
        Err(e) => return e,
    };
    if recs.is_empty() {
        return NC_NOERR;
    }
    // SAFETY: one pointer per record variable (contract above).
    let Ok(ptrs) = (unsafe { crate::ffi::slice(datap, recs.len()) }) else {
        return NcError::Inval.code();
    };
    for (&(varid, _), &p) in recs.iter().zip(ptrs) {
        if p.is_null() {
            continue;
        }
        let (start, count) = match record_slab(ncid, varid, recnum) {
            Ok(s) => s,
            Err(e) => return e,
        };
        // SAFETY: p holds one record of the variable (contract above).
        let st = unsafe {
            if write {
                nc_put_vara(ncid, varid, start.as_ptr(), count.as_ptr(), p)
            } else {
                nc_get_vara(ncid, varid, start.as_ptr(), count.as_ptr(), p)
            }
        };
        if st != NC_NOERR {
            return st;
        }
    }
    NC_NOERR
}

/// Read record `recnum` of every record variable (netcdf-c exports this
/// without declaring it).
///
/// # Safety
/// See `rec_io`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_rec(ncid: c_int, recnum: usize, datap: *mut *mut c_void) -> c_int {
    ffi_boundary!(forward ncid => nc_get_rec(ncid, recnum, datap); code {
        // SAFETY: datap holds one pointer per record variable, each NULL or
        // with room for one record (this export's contract), as rec_io needs.
        unsafe { rec_io(ncid, recnum, datap.cast_const(), false) }
    })
}

/// Write record `recnum` of every record variable (netcdf-c exports this
/// without declaring it).
///
/// # Safety
/// See `rec_io`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_put_rec(ncid: c_int, recnum: usize, datap: *const *mut c_void) -> c_int {
    ffi_boundary!(forward ncid => nc_put_rec(ncid, recnum, datap); code {
        // SAFETY: datap holds one pointer per record variable, each NULL or
        // holding one record (this export's contract), as rec_io needs.
        unsafe { rec_io(ncid, recnum, datap, true) }
    })
}

/// Returns the number of record variables, or -1.
///
/// # Safety
/// `recvarids`/`recsizes` are NULL or have room for every record variable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncrecinq(
    ncid: c_int,
    nrecvars: *mut c_int,
    recvarids: *mut c_int,
    recsizes: *mut c_long,
) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncrecinq")) {
        let recs = match record_vars(ncid) {
            Ok(r) => r,
            Err(e) => return v2(c"ncrecinq", e, ncid_detail(ncid), -1),
        };
        // SAFETY: NULL or room for every record variable (contract above).
        unsafe {
            put(nrecvars, recs.len() as c_int);
            if !recvarids.is_null() {
                let Ok(ids) = slice_mut(recvarids, recs.len()) else {
                    return -1;
                };
                for (o, r) in ids.iter_mut().zip(&recs) {
                    *o = r.0;
                }
            }
            if !recsizes.is_null() {
                let Ok(sz) = slice_mut(recsizes, recs.len()) else {
                    return -1;
                };
                for (o, r) in sz.iter_mut().zip(&recs) {
                    *o = r.1 as c_long;
                }
            }
        }
        recs.len() as c_int
    })
}

/// Returns 0, or -1.
///
/// # Safety
/// See `rec_io`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncrecget(ncid: c_int, recnum: c_long, datap: *mut *mut c_void) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncrecget")) {
        // SAFETY: the caller's pointers reach rec_io with the contract this module documents for
        // them (netcdf.h's); any other output is a local.
        let st = unsafe { rec_io(ncid, recnum as usize, datap.cast_const(), false) };
        v2(c"ncrecget", st, ncid_detail(ncid), 0)
    })
}

/// Returns 0, or -1.
///
/// # Safety
/// See `rec_io`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncrecput(ncid: c_int, recnum: c_long, datap: *const *mut c_void) -> c_int {
    // No forward clause: layered on our nc_* exports, which forward; ncerr and ncopts stay ours.
    ffi_boundary!(on_panic(v2_panic(c"ncrecput")) {
        // SAFETY: the caller's pointers reach rec_io with the contract this module documents for
        // them (netcdf.h's); any other output is a local.
        let st = unsafe { rec_io(ncid, recnum as usize, datap, true) };
        v2(c"ncrecput", st, ncid_detail(ncid), 0)
    })
}
