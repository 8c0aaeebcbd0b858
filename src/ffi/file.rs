//! Dataset-level exports: create/open/close, define mode, dataset inquiries,
//! library-level settings and error strings.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, out-parameters writable, arrays long enough.

use std::collections::HashMap;
use std::ffi::{CString, c_char, c_float, c_int};
use std::sync::LazyLock;

use super::delegate;
use super::{code_of, cstr, ffi_boundary, put, put_cstring, slice_mut};
use crate::api;
use crate::api::handles::{self, Lib};
use crate::error::{NcError, NcResult, strerror};
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
    // SAFETY: path is non-NULL and NUL-terminated (this function's contract).
    let p = unsafe { cstr(path) }.ok()?;
    if api::is_zarr(p, create) {
        return None;
    }
    delegate::system()?;
    apply_settings_to_system();
    // SAFETY: path is NUL-terminated and ncidp non-NULL and writable (both
    // checked or promised above).
    unsafe { delegate::open_or_create(create, path, mode, ncidp) }
}

/// nc_create / nc_open by our engine.
///
/// # Safety
/// `path` is NULL or NUL-terminated; `ncidp` is NULL or writable.
unsafe fn open_ours(create: bool, path: *const c_char, mode: c_int, ncidp: *mut c_int) -> NcResult<()> {
    // SAFETY: path is NULL or NUL-terminated (this function's contract).
    let path = unsafe { cstr(path) }?;
    if ncidp.is_null() {
        // netcdf-c would crash here; a dataset nobody can close is worse.
        return Err(NcError::Inval);
    }
    let id = if create {
        api::create(path, mode)?
    } else {
        api::open(path, mode)?
    };
    // SAFETY: ncidp was checked non-NULL; it is writable by the contract.
    unsafe { put(ncidp, id) };
    Ok(())
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_create(path: *const c_char, cmode: c_int, ncidp: *mut c_int) -> c_int {
    ffi_boundary!(code {
        // SAFETY: path is NULL or NUL-terminated and ncidp NULL or writable
        // (this export's contract), as both helpers require.
        unsafe {
            if let Some(rc) = delegate_open(true, path, cmode, ncidp) {
                return rc;
            }
            code_of(open_ours(true, path, cmode, ncidp))
        }
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
    ffi_boundary!(code {
        // SAFETY: path and ncidp carry nc_create's contract in this export too.
        unsafe { nc_create(path, cmode, ncidp) }
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open(path: *const c_char, mode: c_int, ncidp: *mut c_int) -> c_int {
    ffi_boundary!(code {
        // SAFETY: path is NULL or NUL-terminated and ncidp NULL or writable
        // (this export's contract), as both helpers require.
        unsafe {
            if let Some(rc) = delegate_open(false, path, mode, ncidp) {
                return rc;
            }
            code_of(open_ours(false, path, mode, ncidp))
        }
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
    ffi_boundary!(code {
        // SAFETY: path and ncidp carry nc_open's contract in this export too.
        unsafe { nc_open(path, mode, ncidp) }
    })
}

/// Check that `ncid` names a group of one of our datasets before the
/// dataset is closed through it (a bad group index is NC_EBADID, as in
/// netcdf-c, and must not close the dataset).
fn check_ncid(ncid: c_int) -> NcResult<()> {
    handles::with(ncid, |_, _| Ok(()))
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_close(ncid: c_int) -> c_int {
    ffi_boundary!(code {
        if let Some(rc) = delegate::close(ncid, false) {
            return rc;
        }
        code_of(check_ncid(ncid).and_then(|()| api::close(ncid)))
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_abort(ncid: c_int) -> c_int {
    ffi_boundary!(code {
        if let Some(rc) = delegate::close(ncid, true) {
            return rc;
        }
        code_of(check_ncid(ncid).and_then(|()| api::abort(ncid)))
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_sync(ncid: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_sync(ncid); status {
        handles::with(ncid, |ds, _| api::sync(ds))
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_redef(ncid: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_redef(ncid); status {
        handles::with(ncid, |ds, _| api::redef(ds))
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_enddef(ncid: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_enddef(ncid); status {
        handles::with(ncid, |ds, _| api::enddef(ds))
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc__enddef(
    ncid: c_int,
    _h_minfree: usize,
    _v_align: usize,
    _v_minfree: usize,
    _r_align: usize,
) -> c_int {
    ffi_boundary!(forward ncid => nc__enddef(ncid, _h_minfree, _v_align, _v_minfree, _r_align); status {
        handles::with(ncid, |ds, _| api::enddef(ds))
    })
}

/// The counts `nc_inq` answers: dims, vars, atts of a group and its first
/// unlimited dimension (-1 for none).
fn inq_counts(ncid: c_int) -> NcResult<[c_int; 4]> {
    handles::with(ncid, |ds, grp| {
        let g = &ds.groups[grp];
        let unlim = g
            .dims
            .iter()
            .copied()
            .find(|&d| ds.dims[d].unlimited)
            .map_or(-1, |d| d as c_int);
        Ok([
            g.dims.len() as c_int,
            g.vars.len() as c_int,
            g.atts.len() as c_int,
            unlim,
        ])
    })
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
    ffi_boundary!(forward ncid => nc_inq(ncid, ndimsp, nvarsp, nattsp, unlimdimidp); status {
        let [nd, nv, na, unlim] = inq_counts(ncid)?;
        // SAFETY: each pointer is NULL (ignored) or writable (this export's contract).
        unsafe {
            put(ndimsp, nd);
            put(nvarsp, nv);
            put(nattsp, na);
            put(unlimdimidp, unlim);
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_ndims(ncid: c_int, ndimsp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_ndims(ncid, ndimsp); status {
        let [n, ..] = inq_counts(ncid)?;
        // SAFETY: ndimsp is NULL or writable (this export's contract).
        unsafe { put(ndimsp, n) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_nvars(ncid: c_int, nvarsp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_nvars(ncid, nvarsp); status {
        let [_, n, ..] = inq_counts(ncid)?;
        // SAFETY: nvarsp is NULL or writable (this export's contract).
        unsafe { put(nvarsp, n) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_natts(ncid: c_int, nattsp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_natts(ncid, nattsp); status {
        let [_, _, n, _] = inq_counts(ncid)?;
        // SAFETY: nattsp is NULL or writable (this export's contract).
        unsafe { put(nattsp, n) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_unlimdim(ncid: c_int, unlimdimidp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_unlimdim(ncid, unlimdimidp); status {
        let found = handles::with(ncid, |ds, grp| {
            // The first unlimited dimension of this group or, failing that, its ancestors.
            let mut g = Some(grp);
            while let Some(x) = g {
                if let Some(&d) = ds.groups[x].dims.iter().find(|&&d| ds.dims[d].unlimited) {
                    return Ok(d as c_int);
                }
                g = ds.groups[x].parent;
            }
            Ok(-1)
        })?;
        // SAFETY: unlimdimidp is NULL or writable (this export's contract).
        unsafe { put(unlimdimidp, found) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_unlimdims(ncid: c_int, nunlimdimsp: *mut c_int, unlimdimidsp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_unlimdims(ncid, nunlimdimsp, unlimdimidsp); status {
        let ids: Vec<c_int> = handles::with(ncid, |ds, grp| {
            Ok(ds.groups[grp]
                .dims
                .iter()
                .copied()
                .filter(|&d| ds.dims[d].unlimited)
                .map(|d| d as c_int)
                .collect())
        })?;
        // SAFETY: nunlimdimsp is NULL or writable; unlimdimidsp NULL or with
        // room for every unlimited dimension of the group (this export's contract).
        unsafe {
            if !unlimdimidsp.is_null() {
                slice_mut(unlimdimidsp, ids.len())?.copy_from_slice(&ids);
            }
            put(nunlimdimsp, ids.len() as c_int);
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_format(ncid: c_int, formatp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_format(ncid, formatp); status {
        let f = handles::with(ncid, |ds, _| Ok(ds.reported_format))?;
        // SAFETY: formatp is NULL or writable (this export's contract).
        unsafe { put(formatp, f.map_or(NC_FORMAT_NETCDF4, |f| f.format)) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_format_extended(ncid: c_int, formatp: *mut c_int, modep: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_format_extended(ncid, formatp, modep); status {
        let f = handles::with(ncid, |ds, _| Ok(ds.reported_format))?;
        // SAFETY: formatp and modep are NULL or writable (this export's contract).
        unsafe {
            put(formatp, f.map_or(NC_FORMATX_NCZARR, |f| f.formatx));
            put(modep, f.map_or(NC_NETCDF4, |f| f.mode));
        }
        Ok(())
    })
}

/// The path as given to `nc_open`/`nc_create`: its length in `*pathlen`, the
/// text in `path`, which must have room for `*pathlen + 1` bytes (a caller
/// asks for the length first; netcdf-c has the same contract).
///
/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_path(ncid: c_int, pathlen: *mut usize, path: *mut c_char) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_path(ncid, pathlen, path); status {
        let p = handles::with(ncid, |ds, _| Ok(ds.path.clone()))?;
        // SAFETY: pathlen is NULL or writable; path is NULL or has room for
        // the path and its terminator (this export's contract).
        unsafe {
            put(pathlen, p.len());
            put_cstring(path, p.as_bytes());
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_set_fill(ncid: c_int, fillmode: c_int, old_modep: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_set_fill(ncid, fillmode, old_modep); status {
        let old = handles::with(ncid, |ds, _| {
            if !ds.writable {
                return Err(NcError::Perm);
            }
            if fillmode != NC_FILL && fillmode != NC_NOFILL {
                return Err(NcError::Inval);
            }
            let old = if ds.fill_mode { NC_FILL } else { NC_NOFILL };
            ds.fill_mode = fillmode == NC_FILL;
            Ok(old)
        })?;
        // SAFETY: old_modep is NULL or writable (this export's contract).
        unsafe { put(old_modep, old) };
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_inq_libvers() -> *const c_char {
    ffi_boundary!(on_panic(c"".as_ptr()) { api::libvers().as_ptr().cast() })
}

static MESSAGES: LazyLock<HashMap<i32, CString>> = LazyLock::new(|| {
    (-200..=0)
        .map(|c| (c, CString::new(strerror(c)).unwrap_or_default()))
        .collect()
});

#[unsafe(no_mangle)]
pub extern "C" fn nc_strerror(ncerr: c_int) -> *const c_char {
    ffi_boundary!(on_panic(c"Unknown Error".as_ptr()) {
        if ncerr > 0 {
            // SAFETY: libc's strerror takes any int and returns a valid
            // NUL-terminated string (static or thread-local), as netcdf-c
            // returns it for system errors.
            return unsafe { libc::strerror(ncerr) }.cast_const();
        }
        MESSAGES.get(&ncerr).map_or(c"Unknown Error".as_ptr(), |s| s.as_ptr())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_initialize() -> c_int {
    ffi_boundary!(status { Ok(()) })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_finalize() -> c_int {
    // netcdf-c: finalise the plugin codecs and forget the plugin path.
    ffi_boundary!(status {
        crate::codec::plugin::finalize();
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nc_set_chunk_cache(size: usize, nelems: usize, preemption: c_float) -> c_int {
    ffi_boundary!(status {
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
    ffi_boundary!(status {
        let (s, n, p) = crate::model::cache_defaults();
        // SAFETY: each pointer is NULL or writable (this export's contract).
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
    ffi_boundary!(forward ncid => nc_set_var_chunk_cache(ncid, varid, size, nelems, preemption); status {
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
    ffi_boundary!(forward ncid => nc_get_var_chunk_cache(ncid, varid, sizep, nelemsp, preemptionp); status {
        let (size, nelems, preemption) = handles::with(ncid, |ds, grp| {
            let c = &ds.var(grp, varid)?.cache;
            Ok((c.size, c.nelems, c.preemption))
        })?;
        // SAFETY: each pointer is NULL or writable (this export's contract).
        unsafe {
            put(sizep, size);
            put(nelemsp, nelems);
            put(preemptionp, preemption);
        }
        Ok(())
    })
}

static DEFAULT_FORMAT: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(1);
static FORMAT_SET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static CACHE_SET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Hand the library-wide settings a program made (default format, chunk
/// cache) to the system libraries that are loaded, the serial one and the
/// parallel one: their datasets follow them too.
pub(crate) fn apply_settings_to_system() {
    use std::sync::atomic::Ordering::Relaxed;
    type SetFormat = unsafe extern "C" fn(c_int, *mut c_int) -> c_int;
    type SetCache = unsafe extern "C" fn(usize, usize, c_float) -> c_int;
    for lib in [Lib::Serial, Lib::Parallel] {
        if FORMAT_SET.load(Relaxed) {
            let like: SetFormat = nc_set_default_format;
            // SAFETY: netcdf.h declares nc_set_default_format as
            // int(int, int*) in every netcdf-c, the type of `like`.
            if let Some(f) = unsafe { delegate::global(lib, like, b"nc_set_default_format\0") } {
                let _g = crate::sys::netcdf::lock(lib);
                // SAFETY: a plain int and a NULL old-format pointer, which
                // netcdf-c ignores.
                unsafe { f(DEFAULT_FORMAT.load(Relaxed), std::ptr::null_mut()) };
            }
        }
        if CACHE_SET.load(Relaxed) {
            let like: SetCache = nc_set_chunk_cache;
            let (size, nelems, pre) = crate::model::cache_defaults();
            // SAFETY: netcdf.h declares nc_set_chunk_cache as
            // int(size_t, size_t, float) in every netcdf-c, the type of `like`.
            if let Some(f) = unsafe { delegate::global(lib, like, b"nc_set_chunk_cache\0") } {
                let _g = crate::sys::netcdf::lock(lib);
                // SAFETY: only plain values cross.
                unsafe { f(size, nelems, pre) };
            }
        }
    }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_set_default_format(format: c_int, old_formatp: *mut c_int) -> c_int {
    ffi_boundary!(status {
        if !(1..=5).contains(&format) {
            return Err(NcError::Inval);
        }
        let old = DEFAULT_FORMAT.swap(format, std::sync::atomic::Ordering::Relaxed);
        FORMAT_SET.store(true, std::sync::atomic::Ordering::Relaxed);
        apply_settings_to_system();
        // SAFETY: old_formatp is NULL or writable (this export's contract).
        unsafe { put(old_formatp, old) };
        Ok(())
    })
}
