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

/// A dataset opened read-only in the system library for this library's own
/// use (a fragment of an aggregation): a few typed calls, each under the
/// `serial` lock, closed on drop. Codes are the system library's.
#[derive(Debug)]
pub struct SysFile {
    ncid: i32,
}

type OpenFnC = unsafe extern "C" fn(*const c_char, i32, *mut i32) -> i32;
type CloseFnC = unsafe extern "C" fn(i32) -> i32;
type NameIdFn = unsafe extern "C" fn(i32, *const c_char, *mut i32) -> i32;
type InqVarFn = unsafe extern "C" fn(i32, i32, *mut c_char, *mut i32, *mut i32, *mut i32, *mut i32) -> i32;
type DimLenFn = unsafe extern "C" fn(i32, i32, *mut usize) -> i32;
type InqAttFn = unsafe extern "C" fn(i32, i32, *const c_char, *mut i32, *mut usize) -> i32;
type GetAttFn = unsafe extern "C" fn(i32, i32, *const c_char, *mut c_void) -> i32;
type VarFillFn = unsafe extern "C" fn(i32, i32, *mut i32, *mut c_void) -> i32;
type GetVarsFn = unsafe extern "C" fn(i32, i32, *const usize, *const usize, *const isize, *mut c_void) -> i32;

/// `name`'s address in the system library as the function type `F`.
///
/// # Safety
/// `F` must be the C signature netcdf.h declares for `name`.
unsafe fn sys_fn<F: Copy>(name: &[u8]) -> Result<F, i32> {
    let p = symbol(name).ok_or(crate::error::NcError::NotBuilt.code())?;
    // SAFETY: F is the declared signature of `name` (this function's
    // contract) and p its address.
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
}

/// Most dimensions a variable has (NC_MAX_VAR_DIMS).
const MAX_VAR_DIMS: usize = 1024;

fn cstring(s: &str) -> Result<CString, i32> {
    CString::new(s).map_err(|_| crate::error::NcError::Inval.code())
}

fn status(rc: i32) -> Result<(), i32> {
    if rc == 0 { Ok(()) } else { Err(rc) }
}

impl SysFile {
    /// nc_open(path, NC_NOWRITE).
    pub(crate) fn open(path: &str) -> Result<SysFile, i32> {
        let c = cstring(path)?;
        // SAFETY: netcdf.h: int nc_open(const char*, int, int*).
        let f: OpenFnC = unsafe { sys_fn(b"nc_open\0") }?;
        let mut id = -1;
        let _g = serial();
        // SAFETY: c is NUL-terminated and id a local the call writes.
        status(unsafe { f(c.as_ptr(), 0, &mut id) })?;
        Ok(SysFile { ncid: id })
    }

    /// The id of the group or variable `name` in group `ncid`.
    fn name_id(&self, func: &[u8], ncid: i32, name: &str) -> Result<i32, i32> {
        let c = cstring(name)?;
        // SAFETY: nc_inq_grp_ncid and nc_inq_varid are both
        // int(int, const char*, int*) in netcdf.h; callers pass only those.
        let f: NameIdFn = unsafe { sys_fn(func) }?;
        let mut id = -1;
        let _g = serial();
        // SAFETY: c is NUL-terminated and id a local the call writes.
        status(unsafe { f(ncid, c.as_ptr(), &mut id) })?;
        Ok(id)
    }

    /// The variable at `path` (`a/b/v`: groups then the variable): its group
    /// id and variable id.
    pub(crate) fn var(&self, path: &str) -> Result<(i32, i32), i32> {
        let mut parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let name = parts.pop().ok_or(crate::error::NcError::NotVar.code())?;
        let mut g = self.ncid;
        for p in parts {
            g = self.name_id(b"nc_inq_grp_ncid\0", g, p)?;
        }
        Ok((g, self.name_id(b"nc_inq_varid\0", g, name)?))
    }

    /// A variable's type id and shape.
    pub(crate) fn var_type_shape(&self, grp: i32, varid: i32) -> Result<(i32, Vec<usize>), i32> {
        // SAFETY: netcdf.h: int nc_inq_var(int, int, char*, nc_type*, int*, int*, int*).
        let f: InqVarFn = unsafe { sys_fn(b"nc_inq_var\0") }?;
        // SAFETY: netcdf.h: int nc_inq_dimlen(int, int, size_t*).
        let dl: DimLenFn = unsafe { sys_fn(b"nc_inq_dimlen\0") }?;
        let (mut ty, mut nd) = (0, 0);
        let mut dimids = vec![0i32; MAX_VAR_DIMS];
        let _g = serial();
        // SAFETY: NULL name and natts are "ignored if NULL"; dimids has room
        // for NC_MAX_VAR_DIMS ids, the most a variable has.
        status(unsafe {
            f(
                grp,
                varid,
                std::ptr::null_mut(),
                &mut ty,
                &mut nd,
                dimids.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })?;
        let nd = usize::try_from(nd).unwrap_or(0).min(MAX_VAR_DIMS);
        let mut shape = Vec::with_capacity(nd);
        for &d in &dimids[..nd] {
            let mut n = 0usize;
            // SAFETY: n is a local the call writes.
            status(unsafe { dl(grp, d, &mut n) })?;
            shape.push(n);
        }
        Ok((ty, shape))
    }

    /// An attribute's type id and raw values (`size` bytes per value), or
    /// None when absent. Only atomic fixed-size types (and text) are read.
    pub(crate) fn att(
        &self,
        grp: i32,
        varid: i32,
        name: &str,
        size_of_type: impl Fn(i32) -> Option<usize>,
    ) -> Option<(i32, Vec<u8>)> {
        let c = cstring(name).ok()?;
        // SAFETY: netcdf.h: int nc_inq_att(int, int, const char*, nc_type*, size_t*).
        let inq: InqAttFn = unsafe { sys_fn(b"nc_inq_att\0") }.ok()?;
        // SAFETY: netcdf.h: int nc_get_att(int, int, const char*, void*).
        let get: GetAttFn = unsafe { sys_fn(b"nc_get_att\0") }.ok()?;
        let (mut ty, mut n) = (0, 0usize);
        let _g = serial();
        // SAFETY: c is NUL-terminated; ty and n are locals the call writes.
        if unsafe { inq(grp, varid, c.as_ptr(), &mut ty, &mut n) } != 0 {
            return None;
        }
        let bytes = n.checked_mul(size_of_type(ty)?)?;
        if bytes > 1 << 20 {
            return None;
        }
        let mut buf = vec![0u8; bytes];
        // SAFETY: buf holds n values of the attribute's own fixed-size type,
        // what nc_get_att writes.
        (unsafe { get(grp, varid, c.as_ptr(), buf.as_mut_ptr().cast()) } == 0).then_some((ty, buf))
    }

    /// The variable's fill value as it reads (its `_FillValue` or the
    /// default), `size` bytes; None when fill is off.
    pub(crate) fn fill(&self, grp: i32, varid: i32, size: usize) -> Option<Vec<u8>> {
        // SAFETY: netcdf.h: int nc_inq_var_fill(int, int, int*, void*).
        let f: VarFillFn = unsafe { sys_fn(b"nc_inq_var_fill\0") }.ok()?;
        let mut no_fill = 0;
        let mut buf = vec![0u8; size.max(8)];
        let _g = serial();
        // SAFETY: buf has room for one value of the variable's fixed-size
        // type (at most 8 bytes), what the call writes.
        if unsafe { f(grp, varid, &mut no_fill, buf.as_mut_ptr().cast()) } != 0 || no_fill != 0 {
            return None;
        }
        buf.truncate(size);
        Some(buf)
    }

    /// nc_get_vars of (group, variable) in the variable's own type into
    /// `out` (sized by the caller to count's product times `esize`).
    pub(crate) fn get_vars(
        &self,
        (grp, varid): (i32, i32),
        start: &[usize],
        count: &[usize],
        stride: &[isize],
        esize: usize,
        out: &mut [u8],
    ) -> Result<(), i32> {
        let n = count
            .iter()
            .try_fold(esize, |a, &c| a.checked_mul(c))
            .ok_or(crate::error::NcError::Inval.code())?;
        if out.len() < n || start.len() != count.len() || stride.len() != count.len() {
            return Err(crate::error::NcError::Inval.code());
        }
        // SAFETY: netcdf.h: int nc_get_vars(int, int, const size_t*,
        // const size_t*, const ptrdiff_t*, void*).
        let f: GetVarsFn = unsafe { sys_fn(b"nc_get_vars\0") }?;
        let _g = serial();
        // SAFETY: start, count and stride hold one entry per dimension of the
        // variable (the caller took them from its shape) and out has room for
        // count's product values of its type (checked above).
        status(unsafe {
            f(
                grp,
                varid,
                start.as_ptr(),
                count.as_ptr(),
                stride.as_ptr(),
                out.as_mut_ptr().cast(),
            )
        })
    }
}

impl Drop for SysFile {
    fn drop(&mut self) {
        // SAFETY: netcdf.h: int nc_close(int).
        if let Ok(f) = unsafe { sys_fn::<CloseFnC>(b"nc_close\0") } {
            let _g = serial();
            // SAFETY: only an int crosses: the id nc_open gave.
            unsafe { f(self.ncid) };
        }
    }
}
