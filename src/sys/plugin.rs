//! The unsafe half of the plugin loader: `dlopen` one file, read the HDF5
//! filter class (`H5PLget_plugin_type`/`H5PLget_plugin_info`) and the NCZarr
//! codec descriptions (`NCZ_get_codec_info`, `NCZ_codec_info_defaults`) it
//! exports, and call their functions with the buffer conventions plugins
//! expect (everything a plugin returns was allocated with libc `malloc` and is
//! released here with `free`).
//!
//! The safe half (directory scan, pairing, the `Hdf5Filter`/`CodecMap`
//! wrappers) is the codec layer's `plugin` module; it never sees a raw pointer.
//!
//! Libraries are never unloaded: a plugin's code may be referenced from
//! `atexit` handlers of the libraries it pulled in (libhdf5 does so), and
//! loading the same file again after a path change just returns the same
//! handle.

use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{NcError, NcResult};

/// `H5PL_TYPE_FILTER`: the only plugin type we use (equal in HDF5 and netcdf-c).
const H5PL_TYPE_FILTER: c_int = 0;
/// `H5Z_CLASS_T_VERS`: the layout of `H5Z_class2_t` we know.
const H5Z_CLASS_T_VERS: c_int = 1;
/// `NCZ_CODEC_CLASS_VER` and `NCZ_CODEC_HDF5` (netcdf_filter_build.h).
const NCZ_CODEC_CLASS_VER: c_int = 1;
const NCZ_CODEC_HDF5: c_int = 1;
/// `H5Z_FLAG_REVERSE`: the filter runs backwards (decodes).
const H5Z_FLAG_REVERSE: c_uint = 0x0100;
/// Largest parameter vector or default-codec list we accept from a plugin.
const MAX_PLUGIN_ITEMS: usize = 1 << 16;

/// `H5Z_func_t`.
type FilterFn = unsafe extern "C" fn(
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize;

/// Our own declaration of HDF5's `H5Z_class2_t` (version 1 layout; `id` is
/// `H5Z_filter_t` = int, the two callbacks are never called).
#[repr(C)]
struct H5ZClass2 {
    version: c_int,
    id: c_int,
    encoder_present: c_uint,
    decoder_present: c_uint,
    name: *const c_char,
    can_apply: *const c_void,
    set_local: *const c_void,
    filter: Option<FilterFn>,
}

type InitFn = unsafe extern "C" fn();
type ToHdf5Fn = unsafe extern "C" fn(codec: *const c_char, nparamsp: *mut usize, paramsp: *mut *mut c_uint) -> c_int;
type ToCodecFn = unsafe extern "C" fn(nparams: usize, params: *const c_uint, codecp: *mut *mut c_char) -> c_int;
type ModifyFn = unsafe extern "C" fn(
    ncid: c_int,
    varid: c_int,
    vnparamsp: *mut usize,
    vparamsp: *mut *mut c_uint,
    wnparamsp: *mut usize,
    wparamsp: *mut *mut c_uint,
) -> c_int;

/// Our own declaration of netcdf-c's `NCZ_codec_t` (netcdf_filter_build.h).
#[repr(C)]
struct NczCodec {
    version: c_int,
    sort: c_int,
    codecid: *const c_char,
    hdf5id: c_uint,
    initialize: Option<InitFn>,
    finalize: Option<InitFn>,
    codec_to_hdf5: Option<ToHdf5Fn>,
    hdf5_to_codec: Option<ToCodecFn>,
    modify_parameters: Option<ModifyFn>,
}

type PluginTypeFn = unsafe extern "C" fn() -> c_int;
type InfoFn = unsafe extern "C" fn() -> *const c_void;

/// Every plugin library ever loaded: never closed (see the module
/// documentation), and kept reachable here rather than leaked.
static LIBS: Mutex<Vec<libloading::Library>> = Mutex::new(Vec::new());

/// One loaded shared library, kept for the life of the process.
#[derive(Debug)]
pub struct LoadedLib {
    path: String,
}

impl LoadedLib {
    pub fn path(&self) -> &str {
        &self.path
    }
}

/// The HDF5 half of a plugin: a filter function and its class data.
#[derive(Debug, Clone)]
pub struct FilterHandle {
    pub lib: Arc<LoadedLib>,
    pub id: i32,
    pub name: String,
    pub encoder_present: bool,
    pub decoder_present: bool,
    func: Option<FilterFn>,
}

/// The Zarr half of a plugin: one `NCZ_codec_t`.
#[derive(Debug, Clone)]
pub struct CodecHandle {
    pub lib: Arc<LoadedLib>,
    pub codec_id: String,
    pub hdf5_id: u32,
    /// Address of the struct, which identifies it across rescans (the same
    /// library loaded again gives the same address).
    pub key: usize,
    initialize: Option<InitFn>,
    finalize: Option<InitFn>,
    to_hdf5: Option<ToHdf5Fn>,
    to_codec: Option<ToCodecFn>,
    modify: Option<ModifyFn>,
}

/// What one file turned out to be.
#[derive(Debug)]
pub enum Loaded {
    /// Not loadable or exports none of the plugin entry points (the reason).
    NotPlugin(String),
    /// Loadable but unusable: wrong plugin type, unknown struct version, a
    /// NULL description, halves with different ids (the reason).
    Rejected(String),
    /// A library of `NCZ_codec_info_defaults` (its other entry points are
    /// ignored, as netcdf-c does). Unusable entries are listed in `skipped`.
    Defaults {
        codecs: Vec<CodecHandle>,
        skipped: Vec<String>,
    },
    /// A library with an HDF5 filter, a codec, or both (same id).
    Plugin {
        filter: Option<FilterHandle>,
        codec: Option<CodecHandle>,
    },
}

/// Serialises every call into a plugin filter: plugins were written for
/// HDF5 and netcdf-c, which never call them from two threads at once (and
/// many call non-thread-safe libhdf5 functions for their buffers).
static FILTER_LOCK: Mutex<()> = Mutex::new(());

fn filter_lock() -> MutexGuard<'static, ()> {
    FILTER_LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// Copy a C string out of a plugin (NULL or non-UTF-8 gives None).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn plugin_str(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    unsafe { CStr::from_ptr(p) }.to_str().ok().map(str::to_owned)
}

/// Look up a symbol as a function pointer of type `T`.
///
/// # Safety
/// `T` must be the C signature the symbol has if it exists.
unsafe fn sym<T: Copy>(lib: &libloading::Library, name: &[u8]) -> Option<T> {
    // SAFETY: T is the symbol's C signature (this function's contract); a
    // missing symbol is an Err, not a pointer.
    unsafe { lib.get::<T>(name) }.ok().map(|s| *s)
}

/// Read a codec description. Returns the handle or why it is unusable.
///
/// # Safety
/// `p` is NULL or points to an `NCZ_codec_t` that lives as long as `lib`.
unsafe fn read_codec(lib: &Arc<LoadedLib>, p: *const NczCodec) -> Result<CodecHandle, String> {
    if p.is_null() {
        return Err("codec description is NULL".into());
    }
    // SAFETY: non-NULL; the plugin promises an NCZ_codec_t. Only the first
    // two ints are read before the version is known.
    let (version, sort) = unsafe { ((*p).version, (*p).sort) };
    if version != NCZ_CODEC_CLASS_VER {
        return Err(format!(
            "NCZ_codec_t version {version} (expected {NCZ_CODEC_CLASS_VER})"
        ));
    }
    if sort != NCZ_CODEC_HDF5 {
        return Err(format!("NCZ_codec_t sort {sort} (expected {NCZ_CODEC_HDF5})"));
    }
    // SAFETY: version 1 fixes the layout declared above.
    let c = unsafe { &*p };
    // SAFETY: codecid is NULL or a NUL-terminated string in the library.
    let codec_id = unsafe { plugin_str(c.codecid) }.ok_or("codec id is NULL or not UTF-8")?;
    Ok(CodecHandle {
        lib: lib.clone(),
        codec_id,
        hdf5_id: c.hdf5id,
        key: p as usize,
        initialize: c.initialize,
        finalize: c.finalize,
        to_hdf5: c.codec_to_hdf5,
        to_codec: c.hdf5_to_codec,
        modify: c.modify_parameters,
    })
}

/// Load one file and report what it provides. Never fails: every problem is
/// a `NotPlugin` or `Rejected` answer for the caller to log.
pub fn load(path: &Path) -> Loaded {
    // RTLD_LOCAL (netcdf-c uses RTLD_GLOBAL): two plugins that bring different
    // builds of the same library (the wheel's libhdf5 and Debian's) each keep
    // their own, as HDF5's own loader does.
    let flags = libc::RTLD_LAZY | libc::RTLD_LOCAL;
    // SAFETY: loading a library runs its initialisers; that is what a plugin
    // path is for (netcdf-c and HDF5 do the same).
    let lib = match unsafe { libloading::os::unix::Library::open(Some(path), flags) } {
        Ok(l) => libloading::Library::from(l),
        Err(e) => return Loaded::NotPlugin(format!("cannot load: {e}")),
    };
    // SAFETY: HDF5's H5PLextern.h declares H5PLget_plugin_type as
    // H5PL_type_t(void), an int enum: the type PluginTypeFn.
    let gpt: Option<PluginTypeFn> = unsafe { sym(&lib, b"H5PLget_plugin_type\0") };
    // SAFETY: H5PLextern.h declares H5PLget_plugin_info as const void*(void):
    // the type InfoFn.
    let gpi: Option<InfoFn> = unsafe { sym(&lib, b"H5PLget_plugin_info\0") };
    // SAFETY: netcdf_filter_build.h declares NCZ_get_codec_info as
    // const void*(void): the type InfoFn.
    let npi: Option<InfoFn> = unsafe { sym(&lib, b"NCZ_get_codec_info\0") };
    // SAFETY: netcdf_filter_build.h declares NCZ_codec_info_defaults as
    // const void*(void): the type InfoFn.
    let cpd: Option<InfoFn> = unsafe { sym(&lib, b"NCZ_codec_info_defaults\0") };
    if gpt.is_none() && gpi.is_none() && npi.is_none() && cpd.is_none() {
        // Dropping `lib` here unloads a library that is not a plugin.
        return Loaded::NotPlugin("exports no plugin entry point".into());
    }
    // The symbols' values were copied out above; the handle itself is kept
    // for the life of the process.
    LIBS.lock().unwrap_or_else(|p| p.into_inner()).push(lib);
    let lib = Arc::new(LoadedLib {
        path: path.display().to_string(),
    });

    if let Some(cpd) = cpd {
        // SAFETY: the entry point returns a NULL-terminated vector of
        // NCZ_codec_t pointers (or NULL).
        let v = unsafe { cpd() }.cast::<*const NczCodec>();
        if v.is_null() {
            return Loaded::Rejected("NCZ_codec_info_defaults returned NULL".into());
        }
        let mut codecs = Vec::new();
        let mut skipped = Vec::new();
        for i in 0..MAX_PLUGIN_ITEMS {
            // SAFETY: the vector is NULL-terminated; we stop at the NULL (and
            // after MAX_PLUGIN_ITEMS entries at the latest).
            let p = unsafe { *v.add(i) };
            if p.is_null() {
                break;
            }
            // SAFETY: each entry points to an NCZ_codec_t in the library.
            match unsafe { read_codec(&lib, p) } {
                Ok(c) => codecs.push(c),
                Err(why) => skipped.push(why),
            }
        }
        return Loaded::Defaults { codecs, skipped };
    }

    let mut filter = None;
    match (gpt, gpi) {
        (Some(gpt), Some(gpi)) => {
            // SAFETY: H5PLget_plugin_type takes nothing and returns the enum.
            let t = unsafe { gpt() };
            if t != H5PL_TYPE_FILTER {
                return Loaded::Rejected(format!("H5PLget_plugin_type is {t}, not a filter (0)"));
            }
            // SAFETY: H5PLget_plugin_info returns the filter's H5Z_class2_t.
            let p = unsafe { gpi() }.cast::<H5ZClass2>();
            if p.is_null() {
                return Loaded::Rejected("H5PLget_plugin_info returned NULL".into());
            }
            // SAFETY: non-NULL; only the version is read before it is known.
            let version = unsafe { (*p).version };
            if version != H5Z_CLASS_T_VERS {
                return Loaded::Rejected(format!("H5Z_class2_t version {version} (expected {H5Z_CLASS_T_VERS})"));
            }
            // SAFETY: version 1 fixes the layout declared above.
            let c = unsafe { &*p };
            // SAFETY: name is NULL or a NUL-terminated string in the library.
            let name = unsafe { plugin_str(c.name) }.unwrap_or_default();
            filter = Some(FilterHandle {
                lib: lib.clone(),
                id: c.id,
                name,
                encoder_present: c.encoder_present != 0,
                decoder_present: c.decoder_present != 0,
                func: c.filter,
            });
        }
        (None, None) => {}
        _ => return Loaded::Rejected("exports only one of H5PLget_plugin_type/_info".into()),
    }
    let mut codec = None;
    if let Some(npi) = npi {
        // SAFETY: NCZ_get_codec_info returns one NCZ_codec_t.
        let p = unsafe { npi() }.cast::<NczCodec>();
        // SAFETY: NULL or an NCZ_codec_t in the library.
        match unsafe { read_codec(&lib, p) } {
            Ok(c) => codec = Some(c),
            Err(why) => return Loaded::Rejected(why),
        }
    }
    if let (Some(f), Some(c)) = (&filter, &codec)
        && i64::from(f.id) != i64::from(c.hdf5_id)
    {
        return Loaded::Rejected(format!("HDF5 filter id {} and codec hdf5id {} differ", f.id, c.hdf5_id));
    }
    Loaded::Plugin { filter, codec }
}

impl FilterHandle {
    /// Run the filter once over `input` (encode, or decode when `decode`).
    /// A return of 0, a missing filter function or a result larger than the
    /// buffer is `NC_EFILTER`.
    pub fn apply(&self, decode: bool, cd_values: &[u32], input: &[u8]) -> NcResult<Vec<u8>> {
        let Some(func) = self.func else {
            return Err(NcError::Filter);
        };
        let flags = if decode { H5Z_FLAG_REVERSE } else { 0 };
        let mut buf_size = input.len();
        // SAFETY: malloc of at least one byte; checked below.
        let mut buf = unsafe { libc::malloc(input.len().max(1)) };
        if buf.is_null() {
            return Err(NcError::NoMem);
        }
        // SAFETY: buf holds input.len() bytes; the regions do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(input.as_ptr(), buf.cast::<u8>(), input.len()) };
        let n = {
            let _g = filter_lock();
            // SAFETY: HDF5's filter contract: buf is malloc'ed with buf_size
            // bytes of which nbytes are valid; the filter may free it and
            // store a new malloc'ed buffer and size; cd_values has cd_nelmts
            // entries.
            unsafe {
                func(
                    flags,
                    cd_values.len(),
                    cd_values.as_ptr(),
                    input.len(),
                    &mut buf_size,
                    &mut buf,
                )
            }
        };
        let out = if n == 0 || buf.is_null() || n > buf_size {
            crate::nclog!(
                crate::log::Level::Error,
                "plugin filter {} ({}) failed to {} {} bytes",
                self.id,
                self.lib.path(),
                if decode { "decode" } else { "encode" },
                input.len()
            );
            Err(NcError::Filter)
        } else {
            // SAFETY: the filter reports n valid bytes in a buffer of buf_size.
            Ok(unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), n) }.to_vec())
        };
        // SAFETY: buf is the filter's current malloc'ed buffer (or NULL).
        unsafe { libc::free(buf) };
        out
    }
}

/// Copy a plugin's malloc'ed parameter vector and free it.
///
/// # Safety
/// `p` is NULL or a malloc'ed vector of at least `n` unsigned ints.
unsafe fn take_params(n: usize, p: *mut c_uint) -> NcResult<Vec<u32>> {
    let r = if n == 0 {
        Ok(Vec::new())
    } else if p.is_null() || n > MAX_PLUGIN_ITEMS {
        Err(NcError::Filter)
    } else {
        // SAFETY: p holds n unsigned ints by the caller's contract.
        Ok(unsafe { std::slice::from_raw_parts(p, n) }.to_vec())
    };
    // SAFETY: p is NULL or malloc'ed by the plugin.
    unsafe { libc::free(p.cast()) };
    r
}

/// A malloc'ed copy of `v` (NULL when empty).
fn malloc_params(v: &[u32]) -> NcResult<*mut c_uint> {
    if v.is_empty() {
        return Ok(std::ptr::null_mut());
    }
    // SAFETY: malloc of a non-zero size (v.len() <= isize::MAX / 4 as a slice).
    let p = unsafe { libc::malloc(std::mem::size_of_val(v)) }.cast::<c_uint>();
    if p.is_null() {
        return Err(NcError::NoMem);
    }
    // SAFETY: p holds v.len() unsigned ints.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
    Ok(p)
}

fn plugin_status(rc: c_int) -> NcResult<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(NcError::from_code(rc).unwrap_or(NcError::Filter))
    }
}

impl CodecHandle {
    /// `NCZ_codec_initialize` (if the codec has one).
    pub fn initialize(&self) {
        if let Some(f) = self.initialize {
            // SAFETY: a void(void) entry point of the plugin.
            unsafe { f() }
        }
    }

    /// `NCZ_codec_finalize` (if the codec has one).
    pub fn finalize(&self) {
        if let Some(f) = self.finalize {
            // SAFETY: a void(void) entry point of the plugin.
            unsafe { f() }
        }
    }

    pub fn has_modify(&self) -> bool {
        self.modify.is_some()
    }

    /// `NCZ_codec_to_hdf5`: codec JSON to visible parameters.
    pub fn codec_to_hdf5(&self, json: &str) -> NcResult<Vec<u32>> {
        let Some(f) = self.to_hdf5 else {
            return Err(NcError::Filter);
        };
        let text = CString::new(json).map_err(|_| NcError::Inval)?;
        let mut n: usize = 0;
        let mut p: *mut c_uint = std::ptr::null_mut();
        // SAFETY: the prototype of NCZ_codec_to_hdf5; the plugin mallocs *p.
        let rc = unsafe { f(text.as_ptr(), &mut n, &mut p) };
        // SAFETY: p is NULL or the plugin's malloc'ed vector of n entries.
        let params = unsafe { take_params(n, p) };
        plugin_status(rc)?;
        params
    }

    /// `NCZ_hdf5_to_codec`: visible parameters to codec JSON. A codec without
    /// this function cannot be written (`NC_EFILTER`, as netcdf-c).
    pub fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        let Some(f) = self.to_codec else {
            return Err(NcError::Filter);
        };
        let mut s: *mut c_char = std::ptr::null_mut();
        // SAFETY: the prototype of NCZ_hdf5_to_codec; the plugin mallocs *s.
        let rc = unsafe { f(visible.len(), visible.as_ptr(), &mut s) };
        // SAFETY: s is NULL or a NUL-terminated string from the plugin.
        let text = unsafe { plugin_str(s) };
        // SAFETY: s is NULL or malloc'ed by the plugin.
        unsafe { libc::free(s.cast()) };
        plugin_status(rc)?;
        text.ok_or(NcError::Filter)
    }

    /// `NCZ_modify_parameters`: (possibly changed) visible and working
    /// parameters for one variable. The plugin may call back into this
    /// library (`nc_inq_var`, ...) with `ncid`/`varid`.
    pub fn modify_parameters(&self, ncid: i32, varid: i32, visible: &[u32]) -> NcResult<(Vec<u32>, Vec<u32>)> {
        let Some(f) = self.modify else {
            return Ok((visible.to_vec(), visible.to_vec()));
        };
        let mut vn = visible.len();
        let mut vp = malloc_params(visible)?;
        let mut wn: usize = 0;
        let mut wp: *mut c_uint = std::ptr::null_mut();
        // SAFETY: the prototype of NCZ_modify_parameters; vp is malloc'ed
        // (the plugin may free and replace it), wp starts NULL.
        let rc = unsafe { f(ncid, varid, &mut vn, &mut vp, &mut wn, &mut wp) };
        // SAFETY: by NCZ_modify_parameters' contract the plugin leaves vp NULL
        // or malloc'ed with vn entries.
        let v = unsafe { take_params(vn, vp) };
        // SAFETY: likewise wp is NULL or malloc'ed by the plugin with wn entries.
        let w = unsafe { take_params(wn, wp) };
        plugin_status(rc)?;
        Ok((v?, w?))
    }
}

/// The function `at_exit` registered (run once at process exit).
static EXIT_HOOK: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

extern "C" fn run_exit_hook() {
    if let Some(f) = EXIT_HOOK.get() {
        // A panic must not unwind into libc's exit machinery.
        let _ = std::panic::catch_unwind(f);
    }
}

/// Run `f` once when the process exits (libc `atexit`). Only the first
/// registration counts.
pub fn at_exit(f: fn()) {
    if EXIT_HOOK.set(f).is_ok() {
        // SAFETY: registers a plain extern "C" function that never unwinds.
        let rc = unsafe { libc::atexit(run_exit_hook) };
        if rc != 0 {
            crate::nclog!(
                crate::log::Level::Warn,
                "atexit failed: plugin codecs will not be finalised at exit"
            );
        }
    }
}
