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
//! `forward!(ncid => nc_xxx(ncid, a, b, ...));`: when `ncid` names a delegated
//! dataset, the call goes to the system library's function of the same name
//! (with its own id) and its status is returned unchanged.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::os::unix::fs::MetadataExt;
use std::sync::OnceLock;

use crate::handles;

/// Environment variable naming the system libnetcdf to delegate to; empty or
/// `none` turns delegation off.
pub const ENV_SYSTEM_LIB: &str = "NCZARR_SYSTEM_NETCDF";

/// Where the system library is looked for when the variable is unset, in order.
pub fn default_candidates() -> Vec<String> {
    let triple = if cfg!(target_arch = "x86_64") {
        "x86_64-linux-gnu"
    } else if cfg!(target_arch = "aarch64") {
        "aarch64-linux-gnu"
    } else {
        ""
    };
    let mut dirs = Vec::new();
    if !triple.is_empty() {
        dirs.push(format!("/usr/lib/{triple}"));
    }
    dirs.extend([
        "/usr/lib64".to_string(),
        "/usr/lib".to_string(),
        "/usr/local/lib".to_string(),
    ]);
    let mut out = Vec::new();
    for d in &dirs {
        for v in ["19", "22", "18", "15"] {
            out.push(format!("{d}/libnetcdf.so.{v}"));
        }
    }
    out
}

/// The loaded system library.
#[derive(Debug)]
pub(crate) struct System {
    /// `dlopen` handle, kept for the life of the process.
    handle: usize,
}

static SYSTEM: OnceLock<Option<System>> = OnceLock::new();

/// The system library, loaded on first use; None when there is none.
pub(crate) fn system() -> Option<&'static System> {
    SYSTEM.get_or_init(load).as_ref()
}

/// Whether the system library has been loaded already (without loading it).
pub(crate) fn loaded() -> Option<&'static System> {
    SYSTEM.get().and_then(|s| s.as_ref())
}

/// (device, inode) of the shared object this code lives in.
fn own_identity() -> Option<(u64, u64)> {
    let mut info: libc::Dl_info = unsafe_zeroed_dl_info();
    let addr = own_identity as *const c_void;
    // SAFETY: dladdr only reads its address argument and fills `info`.
    let ok = unsafe { libc::dladdr(addr, &mut info) };
    if ok == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr returned a NUL-terminated file name owned by the loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname) }.to_str().ok()?;
    let m = std::fs::metadata(name).ok()?;
    Some((m.dev(), m.ino()))
}

fn unsafe_zeroed_dl_info() -> libc::Dl_info {
    libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    }
}

fn load() -> Option<System> {
    let candidates = match std::env::var(ENV_SYSTEM_LIB) {
        Ok(v) if v.is_empty() || v == "none" => {
            crate::nclog!(
                crate::log::Level::Note,
                "delegation to a system libnetcdf is off ({ENV_SYSTEM_LIB}={v:?})"
            );
            return None;
        }
        Ok(v) => vec![v],
        Err(_) => default_candidates(),
    };
    let me = own_identity();
    for path in candidates {
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        // Installed over the system library, we would find ourselves.
        if Some((meta.dev(), meta.ino())) == me {
            crate::nclog!(
                crate::log::Level::Note,
                "{path} is this library itself: not delegating to it"
            );
            continue;
        }
        let Ok(cpath) = CString::new(path.clone()) else {
            continue;
        };
        // SAFETY: dlopen of a file that exists; DEEPBIND keeps its internal
        // references to nc_* inside it instead of resolving them to ours.
        let h = unsafe { libc::dlopen(cpath.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND) };
        if h.is_null() {
            // SAFETY: dlerror returns NULL or a thread-local message.
            let e = unsafe { libc::dlerror() };
            let msg = if e.is_null() {
                String::new()
            } else {
                // SAFETY: non-NULL, NUL-terminated.
                unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
            };
            crate::nclog!(crate::log::Level::Warn, "cannot load system libnetcdf {path}: {msg}");
            continue;
        }
        let sys = System { handle: h as usize };
        if sym_in(&sys, b"nc_open\0").is_none() || sym_in(&sys, b"nc_inq_libvers\0").is_none() {
            crate::nclog!(crate::log::Level::Warn, "{path} is not a netCDF library");
            continue;
        }
        crate::nclog!(crate::log::Level::Note, "non-Zarr datasets go to {path}");
        return Some(sys);
    }
    None
}

fn sym_in(sys: &System, name: &[u8]) -> Option<*mut c_void> {
    if name.last() != Some(&0) {
        return None;
    }
    // SAFETY: the handle is live for the process; name is NUL-terminated.
    let p = unsafe { libc::dlsym(sys.handle as *mut c_void, name.as_ptr().cast::<c_char>()) };
    (!p.is_null()).then_some(p)
}

/// netcdf-c is not thread-safe: every call into the system library holds this
/// lock, so a program's threads may use delegated datasets as freely as ours.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Hold while calling into the system library.
pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// A dataset held by the system library: its id there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Delegated {
    pub ext_ncid: c_int,
}

/// The delegated dataset behind `ncid`, if it is one.
pub(crate) fn lookup(ncid: c_int) -> Option<Delegated> {
    handles::foreign(ncid).map(|ext_ncid| Delegated { ext_ncid })
}

/// The address of `name` (NUL-terminated) in the system library.
pub(crate) fn symbol(name: &[u8]) -> Option<*mut c_void> {
    sym_in(system()?, name)
}

/// Reinterpret a symbol address as the function-pointer type of `_like`.
///
/// # Safety
/// `p` must be the address of a function whose C signature is `F`'s.
pub(crate) unsafe fn cast_like<F: Copy>(_like: F, p: *mut c_void) -> F {
    assert_eq!(size_of::<F>(), size_of::<*mut c_void>());
    // SAFETY: F is a function-pointer type of pointer size (checked above), and
    // the caller guarantees the symbol has that signature.
    unsafe { std::mem::transmute_copy(&p) }
}

type OpenFn = unsafe extern "C" fn(*const c_char, c_int, *mut c_int) -> c_int;

/// The C signature of nc_open / nc_create (for `function`).
const OPEN_LIKE: OpenFn = {
    unsafe extern "C" fn like(_: *const c_char, _: c_int, _: *mut c_int) -> c_int {
        0
    }
    like
};

/// The C signature of nc_close / nc_abort (for `function`).
const CLOSE_LIKE: unsafe extern "C" fn(c_int) -> c_int = {
    unsafe extern "C" fn like(_: c_int) -> c_int {
        0
    }
    like
};

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
    let name: &[u8] = if create { b"nc_create\0" } else { b"nc_open\0" };
    // SAFETY: nc_open and nc_create are (const char*, int, int*) -> int.
    let f = unsafe { function(OPEN_LIKE, name) }?;
    let mut ext: c_int = -1;
    let guard = serial();
    // SAFETY: arguments passed on under the caller's contract; ext is ours.
    let rc = unsafe { f(path, mode, &mut ext) };
    drop(guard);
    if rc != 0 {
        return Some(rc);
    }
    match handles::insert_foreign(ext) {
        Ok(id) => {
            // SAFETY: writable by contract.
            unsafe { ncidp.write(id) };
            Some(0)
        }
        Err(e) => {
            // No slot for it: close it again there.
            // SAFETY: nc_close is int(int) in every netcdf-c.
            if let Some(close) = unsafe { function(CLOSE_LIKE, b"nc_close\0") } {
                let _g = serial();
                // SAFETY: a plain id.
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
    // SAFETY: nc_close and nc_abort are int(int) in every netcdf-c.
    let rc = match unsafe { function(CLOSE_LIKE, name) } {
        Some(f) => {
            let _g = serial();
            // SAFETY: a plain id.
            unsafe { f(d.ext_ncid) }
        }
        None => crate::error::NcError::NotBuilt.code(),
    };
    handles::remove_foreign(ncid);
    Some(rc)
}

/// Call a library-wide setting in the system library too, when it is loaded
/// (settings made before it loads are applied by `system()` callers as needed).
///
/// # Safety
/// `F` must be the C signature of `name`.
pub(crate) unsafe fn global<F: Copy>(like: F, name: &[u8]) -> Option<F> {
    let p = sym_in(loaded()?, name)?;
    // SAFETY: forwarded contract.
    Some(unsafe { cast_like(like, p) })
}

/// Forward a call to the system libnetcdf when `ncid` names one of its datasets.
/// Names the export itself and every argument, in order. The second form runs
/// `$after(rc)` (with the caller's own `ncid` in scope) to translate group ids
/// the system library wrote into out-parameters.
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
                        // SAFETY: the system library's symbol of the same name has
                        // the same C prototype (both implement netcdf.h).
                        let __theirs = unsafe { $crate::ffi::delegate::cast_like(__ours, __p) };
                        #[allow(unused_variables)]
                        let $ncid = __d.ext_ncid;
                        let __serial = $crate::ffi::delegate::serial();
                        // SAFETY: the caller's arguments are passed on unchanged,
                        // under the contract they were given to us with.
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
            // SAFETY: valid for n elements by contract.
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
            // SAFETY: NULL or writable by contract.
            unsafe { super::put(ncidp, id) };
            0
        }
        Err(e) => e.code(),
    }
}

/// The system library's function `name` with the C signature of `like`,
/// when there is a system library.
///
/// # Safety
/// `F` must be the C signature of `name`.
pub(crate) unsafe fn function<F: Copy>(like: F, name: &[u8]) -> Option<F> {
    let p = symbol(name)?;
    // SAFETY: forwarded contract.
    Some(unsafe { cast_like(like, p) })
}
