//! The system's own libnetcdf, loaded at run time: everything that is not
//! Zarr (a classic or netCDF-4/HDF5 file, a DAP URL) is handed to it. It is
//! found at a default location or named by `NCZARR_SYSTEM_NETCDF`, and loaded
//! `RTLD_LOCAL | RTLD_DEEPBIND` so that its own internal calls stay inside it.
//! This module only finds the library and its symbols; the exports that
//! forward to it are `ffi::delegate`.

use std::ffi::{CStr, CString, c_char, c_void};
use std::os::unix::fs::MetadataExt;
use std::sync::OnceLock;

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

/// Call a library-wide setting in the system library too, when it is loaded
/// (settings made before it loads are applied by `system()` callers as needed).
///
/// # Safety
/// `F` must be the C signature of `name`.
pub(crate) unsafe fn global<F: Copy>(like: F, name: &[u8]) -> Option<F> {
    let p = sym_in(loaded()?, name)?;
    // SAFETY: p is the address of `name` in the system library and `F` its C
    // signature (this function's contract), which is what cast_like needs.
    Some(unsafe { cast_like(like, p) })
}

/// The system library's function `name` with the C signature of `like`,
/// when there is a system library.
///
/// # Safety
/// `F` must be the C signature of `name`.
pub(crate) unsafe fn function<F: Copy>(like: F, name: &[u8]) -> Option<F> {
    let p = symbol(name)?;
    // SAFETY: p is the address of `name` in the system library and `F` its C
    // signature (this function's contract), which is what cast_like needs.
    Some(unsafe { cast_like(like, p) })
}
