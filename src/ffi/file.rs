//! Dataset-level exports: create/open/close, define mode, dataset inquiries,
//! library-level settings and error strings.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, out-parameters writable, arrays long enough.

use super::delegate::forward;
use std::collections::HashMap;
use std::ffi::{CString, c_char, c_float, c_int};
use std::sync::LazyLock;

use super::delegate;
use super::{cstr, put, slice_mut, status};
use crate::api;
use crate::api::handles;
use crate::error::{NcError, strerror};
use crate::model::CACHE_DEFAULTS;

const NC_FORMAT_NETCDF4: c_int = 3;
const NC_FORMATX_NCZARR: c_int = 10;
const NC_NETCDF4: c_int = 0x1000;
const NC_FILL: c_int = 0;
const NC_NOFILL: c_int = 0x100;

/// Open or create a path that is not Zarr with the system libnetcdf, after
/// handing it the library-wide settings made here. Returns its status
/// unchanged (netcdf-c's positive errno values included); `None` when the path
/// is ours to serve, or there is no system library (our engine answers then).
///
/// # Safety
/// `path` is NULL or NUL-terminated; `ncidp` is NULL or writable.
unsafe fn delegate_open(create: bool, path: *const c_char, mode: c_int, ncidp: *mut c_int) -> Option<c_int> {
    if path.is_null() || ncidp.is_null() {
        return None;
    }
    super::catch(Some(NcError::Internal.code()), || {
        // SAFETY: non-NULL, NUL-terminated by contract.
        let p = unsafe { cstr(path) }.ok()?;
        if api::is_zarr(p, create) {
            return None;
        }
        delegate::system()?;
        apply_settings_to_system();
        // SAFETY: path NUL-terminated, ncidp writable (checked non-NULL).
        unsafe { delegate::open_or_create(create, path, mode, ncidp) }
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_create(path: *const c_char, cmode: c_int, ncidp: *mut c_int) -> c_int {
    // SAFETY: same contract.
    if let Some(rc) = unsafe { delegate_open(true, path, cmode, ncidp) } {
        return rc;
    }
    status(|| {
        // SAFETY: path is NULL or NUL-terminated (contract above).
        let path = unsafe { cstr(path) }?;
        if ncidp.is_null() {
            // netcdf-c would crash here; creating a dataset nobody can close is worse.
            return Err(NcError::Inval);
        }
        let id = api::create(path, cmode)?;
        // SAFETY: ncidp checked non-NULL, writable by contract.
        unsafe { put(ncidp, id) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc__create(
    path: *const c_char,
    cmode: c_int,
    _initialsz: usize,
    _chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    // SAFETY: same contract as nc_create.
    unsafe { nc_create(path, cmode, ncidp) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open(path: *const c_char, mode: c_int, ncidp: *mut c_int) -> c_int {
    // SAFETY: same contract.
    if let Some(rc) = unsafe { delegate_open(false, path, mode, ncidp) } {
        return rc;
    }
    status(|| {
        // SAFETY: path is NULL or NUL-terminated.
        let path = unsafe { cstr(path) }?;
        if ncidp.is_null() {
            return Err(NcError::Inval);
        }
        let id = api::open(path, mode)?;
        // SAFETY: checked non-NULL.
        unsafe { put(ncidp, id) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc__open(
    path: *const c_char,
    mode: c_int,
    _chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    // SAFETY: same contract as nc_open.
    unsafe { nc_open(path, mode, ncidp) }
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_close(ncid: c_int) -> c_int {
    if let Some(rc) = delegate::close(ncid, false) {
        return rc;
    }
    status(|| api::close(ncid))
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_abort(ncid: c_int) -> c_int {
    if let Some(rc) = delegate::close(ncid, true) {
        return rc;
    }
    status(|| api::abort(ncid))
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_sync(ncid: c_int) -> c_int {
    forward!(ncid => nc_sync(ncid));
    status(|| handles::with(ncid, |ds, _| api::sync(ds)))
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_redef(ncid: c_int) -> c_int {
    forward!(ncid => nc_redef(ncid));
    status(|| handles::with(ncid, |ds, _| api::redef(ds)))
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_enddef(ncid: c_int) -> c_int {
    forward!(ncid => nc_enddef(ncid));
    status(|| handles::with(ncid, |ds, _| api::enddef(ds)))
}

#[unsafe(no_mangle)]
pub extern "C" fn nc__enddef(
    ncid: c_int,
    _h_minfree: usize,
    _v_align: usize,
    _v_minfree: usize,
    _r_align: usize,
) -> c_int {
    forward!(ncid => nc__enddef(ncid, _h_minfree, _v_align, _v_minfree, _r_align));
    nc_enddef(ncid)
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq(
    ncid: c_int,
    ndimsp: *mut c_int,
    nvarsp: *mut c_int,
    nattsp: *mut c_int,
    unlimdimidp: *mut c_int,
) -> c_int {
    forward!(ncid => nc_inq(ncid, ndimsp, nvarsp, nattsp, unlimdimidp));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let g = &ds.groups[grp];
            let unlim = g
                .dims
                .iter()
                .copied()
                .find(|&d| ds.dims[d].unlimited)
                .map_or(-1, |d| d as c_int);
            // SAFETY: each pointer is NULL (ignored) or writable.
            unsafe {
                put(ndimsp, g.dims.len() as c_int);
                put(nvarsp, g.vars.len() as c_int);
                put(nattsp, g.atts.len() as c_int);
                put(unlimdimidp, unlim);
            }
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_ndims(ncid: c_int, ndimsp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_ndims(ncid, ndimsp));
    // SAFETY: forwarded contract.
    unsafe {
        nc_inq(
            ncid,
            ndimsp,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_nvars(ncid: c_int, nvarsp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_nvars(ncid, nvarsp));
    // SAFETY: forwarded contract.
    unsafe {
        nc_inq(
            ncid,
            std::ptr::null_mut(),
            nvarsp,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_natts(ncid: c_int, nattsp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_natts(ncid, nattsp));
    // SAFETY: forwarded contract.
    unsafe {
        nc_inq(
            ncid,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            nattsp,
            std::ptr::null_mut(),
        )
    }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_unlimdim(ncid: c_int, unlimdimidp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_unlimdim(ncid, unlimdimidp));
    status(|| {
        handles::with(ncid, |ds, grp| {
            // The first unlimited dimension of this group or, failing that, its ancestors.
            let mut g = Some(grp);
            let mut found = -1;
            while let Some(x) = g {
                if let Some(&d) = ds.groups[x].dims.iter().find(|&&d| ds.dims[d].unlimited) {
                    found = d as c_int;
                    break;
                }
                g = ds.groups[x].parent;
            }
            // SAFETY: NULL or writable.
            unsafe { put(unlimdimidp, found) };
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_unlimdims(ncid: c_int, nunlimdimsp: *mut c_int, unlimdimidsp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_unlimdims(ncid, nunlimdimsp, unlimdimidsp));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let ids: Vec<c_int> = ds.groups[grp]
                .dims
                .iter()
                .copied()
                .filter(|&d| ds.dims[d].unlimited)
                .map(|d| d as c_int)
                .collect();
            // SAFETY: NULL or writable for as many ids as the group has unlimited dims.
            unsafe {
                put(nunlimdimsp, ids.len() as c_int);
                if !unlimdimidsp.is_null() {
                    slice_mut(unlimdimidsp, ids.len())?.copy_from_slice(&ids);
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
pub unsafe extern "C" fn nc_inq_format(ncid: c_int, formatp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_format(ncid, formatp));
    status(|| {
        handles::get(ncid)?;
        // SAFETY: NULL or writable.
        unsafe { put(formatp, NC_FORMAT_NETCDF4) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_format_extended(ncid: c_int, formatp: *mut c_int, modep: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_format_extended(ncid, formatp, modep));
    status(|| {
        handles::get(ncid)?;
        // SAFETY: NULL or writable.
        unsafe {
            put(formatp, NC_FORMATX_NCZARR);
            put(modep, NC_NETCDF4);
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_path(ncid: c_int, pathlen: *mut usize, path: *mut c_char) -> c_int {
    forward!(ncid => nc_inq_path(ncid, pathlen, path));
    status(|| {
        handles::with(ncid, |ds, _| {
            // SAFETY: NULL or writable; path has room for the path and a NUL.
            unsafe {
                put(pathlen, ds.path.len());
                if !path.is_null() {
                    let b = ds.path.as_bytes();
                    std::ptr::copy_nonoverlapping(b.as_ptr(), path.cast::<u8>(), b.len());
                    path.add(b.len()).write(0);
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
pub unsafe extern "C" fn nc_set_fill(ncid: c_int, fillmode: c_int, old_modep: *mut c_int) -> c_int {
    forward!(ncid => nc_set_fill(ncid, fillmode, old_modep));
    status(|| {
        handles::with(ncid, |ds, _| {
            if !ds.writable {
                return Err(NcError::Perm);
            }
            if fillmode != NC_FILL && fillmode != NC_NOFILL {
                return Err(NcError::Inval);
            }
            let old = if ds.fill_mode { NC_FILL } else { NC_NOFILL };
            ds.fill_mode = fillmode == NC_FILL;
            // SAFETY: NULL or writable.
            unsafe { put(old_modep, old) };
            Ok(())
        })
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_inq_libvers() -> *const c_char {
    api::libvers().as_ptr().cast()
}

static MESSAGES: LazyLock<HashMap<i32, CString>> = LazyLock::new(|| {
    (-200..=0)
        .map(|c| (c, CString::new(strerror(c)).unwrap_or_default()))
        .collect()
});

#[unsafe(no_mangle)]
pub extern "C" fn nc_strerror(ncerr: c_int) -> *const c_char {
    super::catch(c"Unknown Error".as_ptr(), || {
        if ncerr > 0 {
            // SAFETY: libc strerror returns a valid static or thread-local string.
            return unsafe { libc::strerror(ncerr) }.cast_const();
        }
        MESSAGES.get(&ncerr).map_or(c"Unknown Error".as_ptr(), |s| s.as_ptr())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_initialize() -> c_int {
    0
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_finalize() -> c_int {
    // netcdf-c: finalise the plugin codecs and forget the plugin path.
    super::catch(NcError::Internal.code(), || {
        crate::codec::plugin::finalize();
        0
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_set_chunk_cache(size: usize, nelems: usize, preemption: c_float) -> c_int {
    status(|| {
        if !(0.0..=1.0).contains(&preemption) {
            return Err(NcError::Inval);
        }
        *CACHE_DEFAULTS.lock().unwrap_or_else(|p| p.into_inner()) = (size, nelems, preemption);
        CACHE_SET.store(true, std::sync::atomic::Ordering::Relaxed);
        apply_settings_to_system();
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_chunk_cache(
    sizep: *mut usize,
    nelemsp: *mut usize,
    preemptionp: *mut c_float,
) -> c_int {
    status(|| {
        let (s, n, p) = crate::model::cache_defaults();
        // SAFETY: NULL or writable.
        unsafe {
            put(sizep, s);
            put(nelemsp, n);
            put(preemptionp, p);
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_set_var_chunk_cache(
    ncid: c_int,
    varid: c_int,
    size: usize,
    nelems: usize,
    preemption: c_float,
) -> c_int {
    forward!(ncid => nc_set_var_chunk_cache(ncid, varid, size, nelems, preemption));
    status(|| {
        if !(0.0..=1.0).contains(&preemption) {
            return Err(NcError::Inval);
        }
        handles::with(ncid, |ds, grp| {
            crate::engine::set_var_cache(ds, grp, varid, size, nelems, preemption)
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_var_chunk_cache(
    ncid: c_int,
    varid: c_int,
    sizep: *mut usize,
    nelemsp: *mut usize,
    preemptionp: *mut c_float,
) -> c_int {
    forward!(ncid => nc_get_var_chunk_cache(ncid, varid, sizep, nelemsp, preemptionp));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let v = ds.var(grp, varid)?;
            // SAFETY: NULL or writable.
            unsafe {
                put(sizep, v.cache.size);
                put(nelemsp, v.cache.nelems);
                put(preemptionp, v.cache.preemption);
            }
            Ok(())
        })
    })
}

static DEFAULT_FORMAT: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(1);
static FORMAT_SET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static CACHE_SET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Hand the library-wide settings a program made (default format, chunk
/// cache) to the system library, when it is loaded: its datasets follow them too.
fn apply_settings_to_system() {
    use std::sync::atomic::Ordering::Relaxed;
    type SetFormat = unsafe extern "C" fn(c_int, *mut c_int) -> c_int;
    type SetCache = unsafe extern "C" fn(usize, usize, c_float) -> c_int;
    if FORMAT_SET.load(Relaxed) {
        let like: SetFormat = nc_set_default_format;
        // SAFETY: nc_set_default_format has this prototype in every netcdf-c.
        if let Some(f) = unsafe { delegate::global(like, b"nc_set_default_format\0") } {
            let _g = delegate::serial();
            // SAFETY: NULL old-format pointer is allowed.
            unsafe { f(DEFAULT_FORMAT.load(Relaxed), std::ptr::null_mut()) };
        }
    }
    if CACHE_SET.load(Relaxed) {
        let like: SetCache = nc_set_chunk_cache;
        let (size, nelems, pre) = crate::model::cache_defaults();
        // SAFETY: nc_set_chunk_cache has this prototype in every netcdf-c.
        if let Some(f) = unsafe { delegate::global(like, b"nc_set_chunk_cache\0") } {
            let _g = delegate::serial();
            // SAFETY: plain values.
            unsafe { f(size, nelems, pre) };
        }
    }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_set_default_format(format: c_int, old_formatp: *mut c_int) -> c_int {
    status(|| {
        if !(1..=5).contains(&format) {
            return Err(NcError::Inval);
        }
        let old = DEFAULT_FORMAT.swap(format, std::sync::atomic::Ordering::Relaxed);
        FORMAT_SET.store(true, std::sync::atomic::Ordering::Relaxed);
        apply_settings_to_system();
        // SAFETY: NULL or writable.
        unsafe { put(old_formatp, old) };
        Ok(())
    })
}
