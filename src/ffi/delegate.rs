//! Delegation of everything that is not Zarr to the system's own libnetcdf.
//!
//! A classic or netCDF-4/HDF5 file, a DAP URL, anything our engine does not
//! serve is opened by the system library (found at a default location or named
//! by `NCZARR_SYSTEM_NETCDF`), loaded `RTLD_LOCAL | RTLD_DEEPBIND` so that its
//! own internal calls stay inside it. Its datasets get ncids from our handle
//! table (`handles::insert_foreign`): the slot is ours, the group bits are the
//! same in both libraries.
//!
//! Every export that takes an `ncid` starts with
//! `ffi_boundary!(forward ncid => nc_xxx(ncid, a, b, ...); ...)`: when `ncid`
//! names a delegated dataset, the call goes to the system library's function
//! of the same name (with its own id), inside the panic boundary, and its
//! status is returned unchanged.

use std::ffi::{c_char, c_int};

use crate::api::delegated::Adopted;
use crate::api::handles;
pub(crate) use crate::sys::netcdf::{cast_like, function, global, serial, symbol, system};

/// A dataset held by the system library: its id there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Delegated {
    pub ext_ncid: c_int,
}

/// The delegated dataset behind `ncid`, if it is one.
pub(crate) fn lookup(ncid: c_int) -> Option<Delegated> {
    handles::foreign(ncid).map(|ext_ncid| Delegated { ext_ncid })
}

/// nc_open's mode bit for writing.
const NC_WRITE: c_int = 1;

type OpenFn = unsafe extern "C" fn(*const c_char, c_int, *mut c_int) -> c_int;
type CloseFn = unsafe extern "C" fn(c_int) -> c_int;

/// nc_open / nc_create of a path that is not Zarr: by the system library when
/// there is one (`None` when there is not). On success `*ncidp` is our id.
///
/// # Safety
/// `path` is NUL-terminated; `ncidp` is writable.
pub(crate) unsafe fn open_or_create(
    create: bool,
    path: *const c_char,
    mode: c_int,
    ncidp: *mut c_int,
) -> Option<c_int> {
    let (name, like): (&[u8], OpenFn) = if create {
        (b"nc_create\0", super::file::nc_create)
    } else {
        (b"nc_open\0", super::file::nc_open)
    };
    // SAFETY: netcdf.h declares nc_open and nc_create as
    // int(const char*, int, int*) in every netcdf-c, the type of `like`.
    let f = unsafe { function(like, name) }?;
    let mut ext: c_int = -1;
    let guard = serial();
    // SAFETY: path is NUL-terminated (this function's contract) and ext is a
    // local the call writes the system library's id to.
    let rc = unsafe { f(path, mode, &mut ext) };
    drop(guard);
    if rc != 0 {
        return Some(rc);
    }
    // A read-only open of a master: the aggregation layer above delegation.
    let ext = if !create && mode & NC_WRITE == 0 && !crate::aggregate::raw_by_env() {
        // SAFETY: path is NUL-terminated (this function's contract).
        let name = unsafe { std::ffi::CStr::from_ptr(path) }.to_string_lossy();
        match crate::api::delegated::adopt(&name, ext) {
            Ok(Adopted::Ours(id)) => {
                // SAFETY: ncidp is writable (this function's contract).
                unsafe { ncidp.write(id) };
                return Some(0);
            }
            Ok(Adopted::Delegated(ext)) => ext,
            Err(e) => return Some(e.code()),
        }
    } else {
        ext
    };
    match handles::insert_foreign(ext) {
        Ok(id) => {
            // SAFETY: ncidp is writable (this function's contract).
            unsafe { ncidp.write(id) };
            Some(0)
        }
        Err(e) => {
            // No slot for it: close it again there.
            let like: CloseFn = super::file::nc_close;
            // SAFETY: netcdf.h declares nc_close as int(int), the type of `like`.
            if let Some(close) = unsafe { function(like, b"nc_close\0") } {
                let _g = serial();
                // SAFETY: only an int crosses; ext is the id the system
                // library just gave out.
                unsafe { close(ext) };
            }
            Some(e.code())
        }
    }
}

/// nc_close / nc_abort of a delegated dataset: the system library's answer;
/// the slot is freed either way. None when `ncid` is not delegated.
pub(crate) fn close(ncid: c_int, abort: bool) -> Option<c_int> {
    let d = lookup(ncid)?;
    let name: &[u8] = if abort { b"nc_abort\0" } else { b"nc_close\0" };
    let like: CloseFn = super::file::nc_close;
    // SAFETY: netcdf.h declares nc_close and nc_abort as int(int), the type
    // of `like`.
    let rc = match unsafe { function(like, name) } {
        Some(f) => {
            let _g = serial();
            // SAFETY: only an int crosses: the system library's own id.
            unsafe { f(d.ext_ncid) }
        }
        None => crate::error::NcError::NotBuilt.code(),
    };
    handles::remove_foreign(ncid);
    Some(rc)
}

/// Forward a call to the system libnetcdf when `ncid` names one of its datasets.
/// Names the export itself and every argument, in order. The second form runs
/// `$after(rc)` (with the caller's own `ncid` in scope) to translate group ids
/// the system library wrote into out-parameters. Used only inside
/// `ffi_boundary!` (its `forward` clause), whose closure it returns from.
macro_rules! forward {
    ($ncid:ident => $f:ident ( $($arg:expr),* $(,)? )) => {
        $crate::ffi::delegate::forward!($ncid => $f($($arg),*); after |rc: ::std::ffi::c_int| rc)
    };
    ($ncid:ident => $f:ident ( $($arg:expr),* $(,)? ); after $after:expr) => {
        if let Some(__d) = $crate::ffi::delegate::lookup($ncid) {
            let __rc = {
                let __ours = $f as unsafe extern "C" fn($($crate::ffi::delegate::forward!(@ty $arg)),*) -> ::std::ffi::c_int;
                match $crate::ffi::delegate::symbol(concat!(stringify!($f), "\0").as_bytes()) {
                    None => $crate::error::NcError::NotBuilt.code(),
                    Some(__p) => {
                        // SAFETY: __p is the system library's symbol of the
                        // export's own name, and both libraries implement it
                        // with netcdf.h's prototype, the type of __ours.
                        let __theirs = unsafe { $crate::ffi::delegate::cast_like(__ours, __p) };
                        #[allow(unused_variables)]
                        let $ncid = __d.ext_ncid;
                        let __serial = $crate::ffi::delegate::serial();
                        // SAFETY: the caller's arguments reach a function with
                        // the same prototype and the same documented pointer
                        // rules as the export they were given to (only the ncid
                        // is replaced, by the system library's own id).
                        unsafe { __theirs($($arg),*) }
                    }
                }
            };
            #[allow(clippy::redundant_closure_call)]
            return ($after)(__rc);
        }
    };
    (@ty $x:expr) => { _ };
}
pub(crate) use forward;

/// After a forwarded call succeeded: turn the `n` group ids the system
/// library wrote at `p` into ours (same group bits, our slot of `ours`).
///
/// # Safety
/// `p` is NULL or valid for `n` reads and writes.
pub(crate) unsafe fn map_out_ncids(ours: c_int, rc: c_int, p: *mut c_int, n: usize) -> c_int {
    if rc == 0 && !p.is_null() {
        for i in 0..n {
            // SAFETY: i < n and p is valid for n reads and writes (this
            // function's contract).
            unsafe {
                let q = p.add(i);
                q.write(handles::from_foreign(ours, q.read()));
            }
        }
    }
    rc
}

/// Register a dataset the system library just opened or created (`rc` its
/// status, `ext` its id there) and write our id to `ncidp`.
///
/// # Safety
/// `ncidp` is NULL or writable.
pub(crate) unsafe fn adopt(rc: c_int, ext: c_int, ncidp: *mut c_int) -> c_int {
    if rc != 0 {
        return rc;
    }
    match handles::insert_foreign(ext) {
        Ok(id) => {
            // SAFETY: ncidp is NULL or writable (this function's contract).
            unsafe { super::put(ncidp, id) };
            0
        }
        Err(e) => e.code(),
    }
}
