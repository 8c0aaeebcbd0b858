//! HDF5-style filter plugins and NCZarr codec libraries found on the plugin
//! path, loaded and paired as netcdf-c 4.10.1's NCZarr loader does.
//!
//! The path: `HDF5_PLUGIN_PATH` (`:`-separated, empty pieces kept and skipped)
//! when set, else the build-time default (`NCZARR_PLUGIN_SEARCH_PATH` at
//! compile time, else `/usr/local/hdf5/lib/plugin`); replaced at run time by
//! `nc_plugin_path_set` (which, unlike netcdf-c, rescans); reset by
//! `nc_finalize`.
//!
//! The scan, on first use: each directory in path order, its entries in
//! byte order of their names (netcdf-c takes `readdir` order, which is not
//! reproducible); every regular file is tried with `dlopen`. A library that
//! exports `NCZ_codec_info_defaults` is a *defaults* library (its other entry
//! points are ignored); otherwise it gives an HDF5 filter
//! (`H5PLget_plugin_type` must be a filter, `H5Z_class2_t` version 1), a codec
//! (`NCZ_get_codec_info`, `NCZ_codec_t` version 1 and sort 1), or both for
//! the same id. Per HDF5 id the first filter and the first codec found win.
//! After the scan a default codec is attached to an id that has a filter but
//! no codec. Anything that is not a plugin, or that is malformed, is skipped
//! with a log line; netcdf-c instead fails the whole scan for some of these
//! (an unknown struct version, a default codec for an id above the highest
//! loaded filter id, a path entry that is not a directory).
//!
//! `NCZ_codec_initialize` runs once for each codec paired with a filter after
//! the scan (and for any other codec on its first use); `NCZ_codec_finalize`
//! for every initialised codec at `nc_finalize` and at process exit.
//! Libraries stay loaded for the life of the process.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, Once};

use super::{CodecMap, Hdf5Filter, VarContext};
use crate::error::NcResult;
use crate::log::Level;
use crate::sys::plugin::{self as plugin_loader, CodecHandle, FilterHandle, Loaded};

/// netcdf-c's platform default plugin directory (searched when
/// `HDF5_PLUGIN_PATH` is not set).
pub const PLATFORM_DEFAULT_DIR: &str = "/usr/local/hdf5/lib/plugin";
/// The environment variable naming the plugin path.
pub const PLUGIN_PATH_ENV: &str = "HDF5_PLUGIN_PATH";
/// HDF5 filter ids are 1..=65534 (`H5Z_FILTER_MAX` = 65535 excluded).
const MAX_FILTER_ID: u32 = 65534;

/// Everything found on the plugin path, in search order.
#[derive(Debug, Default)]
pub struct PluginSet {
    /// HDF5 filters (`H5PLget_plugin_info`), the first found for each id.
    pub filters: Vec<Arc<dyn Hdf5Filter>>,
    /// Codecs from `NCZ_get_codec_info`, the first found for each id.
    pub codecs: Vec<Arc<dyn CodecMap>>,
    /// Codecs from `NCZ_codec_info_defaults`, in search order (the first for
    /// an id is the one that counts).
    pub defaults: Vec<Arc<dyn CodecMap>>,
    /// The directories that were scanned.
    dirs: Vec<String>,
    /// Per HDF5 id: the codec paired with the path's filter (explicit, or a
    /// default attached to a filter that had no codec), as netcdf-c pairs.
    paired: HashMap<u32, Arc<dyn CodecMap>>,
}

impl PluginSet {
    /// The plugin filter for an HDF5 id.
    pub fn filter(&self, id: u32) -> Option<Arc<dyn Hdf5Filter>> {
        self.filters.iter().find(|f| f.id() == id).cloned()
    }

    /// The codec for an HDF5 id as netcdf-c finds it: one from a codec
    /// library, or a default codec attached to a filter found on the path.
    pub fn codec(&self, id: u32) -> Option<Arc<dyn CodecMap>> {
        self.paired
            .get(&id)
            .cloned()
            .or_else(|| self.codecs.iter().find(|c| c.hdf5_id() == id).cloned())
    }

    /// A default codec for an HDF5 id, whether or not the path has the filter
    /// (for pairing with a built-in filter).
    pub fn default_codec(&self, id: u32) -> Option<Arc<dyn CodecMap>> {
        self.defaults.iter().find(|c| c.hdf5_id() == id).cloned()
    }

    /// A complete plugin: the path's filter and its codec.
    pub fn complete(&self, id: u32) -> Option<(Arc<dyn Hdf5Filter>, Arc<dyn CodecMap>)> {
        Some((self.filter(id)?, self.codec(id)?))
    }

    /// The codec with a Zarr codec id (`"bz2"`, ...), searched by ascending
    /// HDF5 id among explicit and paired codecs (netcdf-c's lookup by name).
    pub fn codec_by_name(&self, name: &str) -> Option<Arc<dyn CodecMap>> {
        let mut all: Vec<&Arc<dyn CodecMap>> = self.paired.values().collect();
        all.extend(self.codecs.iter());
        all.sort_by_key(|c| c.hdf5_id());
        all.into_iter().find(|c| c.codec_id() == name).cloned()
    }

    /// The directories that were scanned, in order.
    pub fn dirs(&self) -> &[String] {
        &self.dirs
    }

    pub fn is_empty(&self) -> bool {
        self.filters.is_empty() && self.codecs.is_empty() && self.defaults.is_empty()
    }
}

// ---------------------------------------------------------------------------
// The wrappers

/// An HDF5 filter from a plugin library.
#[derive(Debug)]
struct PluginFilter {
    h: FilterHandle,
}

impl Hdf5Filter for PluginFilter {
    fn id(&self) -> u32 {
        self.h.id as u32
    }
    fn name(&self) -> &str {
        &self.h.name
    }
    fn apply(&self, decode: bool, cd_values: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>> {
        self.h.apply(decode, cd_values, &input)
    }
}

/// A codec from a plugin library (`NCZ_codec_t`).
#[derive(Debug)]
struct PluginCodec {
    h: CodecHandle,
}

impl CodecMap for PluginCodec {
    fn hdf5_id(&self) -> u32 {
        self.h.hdf5_id
    }
    fn codec_id(&self) -> &str {
        &self.h.codec_id
    }
    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        ensure_initialized(&self.h);
        self.h.codec_to_hdf5(codec_json)
    }
    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        ensure_initialized(&self.h);
        self.h.hdf5_to_codec(visible)
    }
    fn modify_parameters(&self, ctx: &VarContext, visible: &[u32]) -> NcResult<Vec<u32>> {
        ensure_initialized(&self.h);
        let (v, w) = self.h.modify_parameters(ctx.ncid, ctx.varid, visible)?;
        if v != visible {
            crate::nclog!(
                Level::Note,
                "codec {} rewrote its visible parameters {:?} -> {:?}; kept as defined",
                self.h.codec_id,
                visible,
                v
            );
        }
        Ok(w)
    }
}

// ---------------------------------------------------------------------------
// Initialisation and finalisation of codecs

/// Codecs whose `NCZ_codec_initialize` ran and whose finalize has not, keyed
/// by the address of their `NCZ_codec_t`.
static INITIALIZED: Mutex<Vec<CodecHandle>> = Mutex::new(Vec::new());
static AT_EXIT: Once = Once::new();

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Run `NCZ_codec_initialize` unless it already ran (and was not finalised).
/// The plugin function runs without any lock held.
fn ensure_initialized(h: &CodecHandle) {
    {
        let mut done = lock(&INITIALIZED);
        if done.iter().any(|d| d.key == h.key) {
            return;
        }
        done.push(h.clone());
    }
    AT_EXIT.call_once(|| plugin_loader::at_exit(finalize_at_exit));
    h.initialize();
}

/// At process exit: as `finalize_codecs`, but never waits for a lock another
/// (now frozen) thread may hold.
fn finalize_at_exit() {
    let done = match INITIALIZED.try_lock() {
        Ok(mut g) => std::mem::take(&mut *g),
        Err(std::sync::TryLockError::Poisoned(p)) => std::mem::take(&mut *p.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => return,
    };
    for h in done.iter().rev() {
        h.finalize();
    }
}

/// `NCZ_codec_finalize` for every initialised codec.
fn finalize_codecs() {
    let done = std::mem::take(&mut *lock(&INITIALIZED));
    for h in done.iter().rev() {
        h.finalize();
    }
}

// ---------------------------------------------------------------------------
// The path and the current set

#[derive(Default)]
struct State {
    /// The plugin path; None until first needed (then from the environment).
    dirs: Option<Vec<String>>,
    /// The scan of `dirs`; None until first needed or after a change.
    set: Option<Arc<PluginSet>>,
    /// Bumped at every change, so that a scan of an old path is not stored.
    generation: u64,
}

static STATE: Mutex<State> = Mutex::new(State {
    dirs: None,
    set: None,
    generation: 0,
});

/// Split a path list at `sep` as `ncaux_plugin_path_parse` does: an empty
/// list has no directories; otherwise every piece counts, empty ones too.
pub fn parse_path_list(list: &str, sep: char) -> Vec<String> {
    if list.is_empty() {
        return Vec::new();
    }
    list.split(sep).map(str::to_owned).collect()
}

/// The initial path: `HDF5_PLUGIN_PATH` when set, else the default.
fn initial_dirs() -> Vec<String> {
    match std::env::var(PLUGIN_PATH_ENV) {
        Ok(v) => parse_path_list(&v, ':'),
        Err(std::env::VarError::NotUnicode(v)) => {
            crate::nclog!(Level::Warn, "{PLUGIN_PATH_ENV} is not UTF-8: {}", v.to_string_lossy());
            parse_path_list(&v.to_string_lossy(), ':')
        }
        Err(std::env::VarError::NotPresent) => parse_path_list(
            option_env!("NCZARR_PLUGIN_SEARCH_PATH").unwrap_or(PLATFORM_DEFAULT_DIR),
            ':',
        ),
    }
}

/// The current plugin path (what `nc_plugin_path_get` returns).
pub fn path() -> Vec<String> {
    let mut st = lock(&STATE);
    st.dirs.get_or_insert_with(initial_dirs).clone()
}

/// Replace the plugin path (`nc_plugin_path_set`); the next `current()`
/// scans the new path. An empty list means no plugins.
pub fn set_path(dirs: Vec<String>) {
    let mut st = lock(&STATE);
    st.dirs = Some(dirs);
    st.set = None;
    st.generation += 1;
}

/// The plugins of the current plugin path, scanned once on first use and again
/// after the path changes.
pub fn current() -> Arc<PluginSet> {
    let (dirs, generation) = {
        let mut st = lock(&STATE);
        if let Some(s) = &st.set {
            return s.clone();
        }
        (st.dirs.get_or_insert_with(initial_dirs).clone(), st.generation)
    };
    // Scan without the lock: loading runs library initialisers, and codec
    // initialisers may call back into this library.
    let set = Arc::new(scan(&dirs));
    {
        let mut st = lock(&STATE);
        if st.generation == generation {
            match &st.set {
                Some(s) => return s.clone(), // another thread was faster
                None => st.set = Some(set.clone()),
            }
        }
    }
    set
}

/// `nc_finalize`: run every initialised codec's finalize and forget the path
/// and the scan (the next use starts again from the environment, as in
/// netcdf-c). Libraries stay loaded.
pub fn finalize() {
    {
        let mut st = lock(&STATE);
        st.dirs = None;
        st.set = None;
        st.generation += 1;
    }
    finalize_codecs();
}

// ---------------------------------------------------------------------------
// The scan

fn valid_id(id: i64) -> bool {
    (1..=i64::from(MAX_FILTER_ID)).contains(&id)
}

/// Scan `dirs` and pair what is found. Never fails.
pub fn scan(dirs: &[String]) -> PluginSet {
    let mut filters: Vec<FilterHandle> = Vec::new();
    let mut codecs: Vec<CodecHandle> = Vec::new();
    let mut defaults: Vec<CodecHandle> = Vec::new();
    for dir in dirs {
        for file in dir_entries(dir) {
            load_one(&file, &mut filters, &mut codecs, &mut defaults);
        }
    }
    // Pairing: explicit codecs for ids with a filter, then defaults where the
    // filter still has no codec.
    let mut paired: HashMap<u32, CodecHandle> = HashMap::new();
    for f in &filters {
        let id = f.id as u32;
        if let Some(c) = codecs.iter().find(|c| c.hdf5_id == id) {
            paired.insert(id, c.clone());
        } else if let Some(c) = defaults.iter().find(|c| c.hdf5_id == id) {
            crate::nclog!(
                Level::Note,
                "plugin: filter {id} uses default codec {:?} from {}",
                c.codec_id,
                c.lib.path()
            );
            paired.insert(id, c.clone());
        } else {
            crate::nclog!(
                Level::Note,
                "plugin: filter {id} ({}) has no codec information",
                f.lib.path()
            );
        }
    }
    for c in &codecs {
        if !paired.contains_key(&c.hdf5_id) {
            crate::nclog!(
                Level::Note,
                "plugin: codec {:?} ({}) has no HDF5 filter on the path",
                c.codec_id,
                c.lib.path()
            );
        }
    }
    // netcdf-c initialises the complete plugins right after the scan.
    let mut ids: Vec<&u32> = paired.keys().collect();
    ids.sort();
    for id in ids {
        ensure_initialized(&paired[id]);
    }
    let wrap = |c: &CodecHandle| -> Arc<dyn CodecMap> { Arc::new(PluginCodec { h: c.clone() }) };
    PluginSet {
        filters: filters
            .into_iter()
            .map(|h| Arc::new(PluginFilter { h }) as Arc<dyn Hdf5Filter>)
            .collect(),
        codecs: codecs.iter().map(wrap).collect(),
        defaults: defaults.iter().map(wrap).collect(),
        dirs: dirs.to_vec(),
        paired: paired.iter().map(|(id, c)| (*id, wrap(c))).collect(),
    }
}

/// The regular files of one directory, sorted by name. A missing or
/// unreadable directory gives nothing (as in netcdf-c), and so does a path
/// entry that is not a directory (netcdf-c fails the scan with NC_EINVAL).
fn dir_entries(dir: &str) -> Vec<std::path::PathBuf> {
    if dir.is_empty() {
        return Vec::new();
    }
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            crate::nclog!(Level::Note, "plugin path: skipping {dir}: {e}");
            return Vec::new();
        }
    };
    let mut names: Vec<std::ffi::OsString> = rd.filter_map(|e| e.ok().map(|e| e.file_name())).collect();
    names.sort();
    let mut files = Vec::new();
    for name in names {
        let p = Path::new(dir).join(&name);
        // Follow symlinks; only regular files are tried (a FIFO would block
        // dlopen, a directory cannot load).
        match std::fs::metadata(&p) {
            Ok(m) if m.is_file() => files.push(p),
            Ok(_) => crate::nclog!(Level::Note, "plugin: skipping {}: not a regular file", p.display()),
            Err(e) => crate::nclog!(Level::Note, "plugin: skipping {}: {e}", p.display()),
        }
    }
    files
}

fn load_one(
    file: &Path,
    filters: &mut Vec<FilterHandle>,
    codecs: &mut Vec<CodecHandle>,
    defaults: &mut Vec<CodecHandle>,
) {
    let shown = file.display();
    match plugin_loader::load(file) {
        Loaded::NotPlugin(why) => crate::nclog!(Level::Note, "plugin: skipping {shown}: not a plugin ({why})"),
        Loaded::Rejected(why) => crate::nclog!(Level::Warn, "plugin: skipping {shown}: {why}"),
        Loaded::Defaults { codecs: found, skipped } => {
            for why in skipped {
                crate::nclog!(Level::Warn, "plugin: {shown}: skipping a default codec: {why}");
            }
            for c in found {
                if !valid_id(i64::from(c.hdf5_id)) {
                    crate::nclog!(
                        Level::Warn,
                        "plugin: {shown}: default codec {:?} has invalid HDF5 id {}",
                        c.codec_id,
                        c.hdf5_id
                    );
                    continue;
                }
                crate::nclog!(
                    Level::Note,
                    "plugin: {shown}: default codec {:?} for filter {}",
                    c.codec_id,
                    c.hdf5_id
                );
                defaults.push(c);
            }
        }
        Loaded::Plugin { filter, codec } => {
            let id = filter.as_ref().map_or_else(
                || codec.as_ref().map_or(0, |c| i64::from(c.hdf5_id)),
                |f| i64::from(f.id),
            );
            if !valid_id(id) {
                crate::nclog!(Level::Warn, "plugin: skipping {shown}: invalid filter id {id}");
                return;
            }
            let id = id as u32;
            if let Some(f) = filter {
                if filters.iter().any(|g| g.id as u32 == id) {
                    crate::nclog!(Level::Note, "plugin: {shown}: filter {id} already loaded; ignored");
                } else {
                    crate::nclog!(Level::Note, "plugin: {shown}: HDF5 filter {id} ({:?})", f.name);
                    filters.push(f);
                }
            }
            if let Some(c) = codec {
                if codecs.iter().any(|g| g.hdf5_id == id) {
                    crate::nclog!(
                        Level::Note,
                        "plugin: {shown}: codec for filter {id} already loaded; ignored"
                    );
                } else {
                    crate::nclog!(Level::Note, "plugin: {shown}: codec {:?} for filter {id}", c.codec_id);
                    codecs.push(c);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_lists_split_like_ncaux() {
        assert!(parse_path_list("", ':').is_empty());
        assert_eq!(parse_path_list("/a", ':'), vec!["/a"]);
        assert_eq!(parse_path_list("/a::/b:", ':'), vec!["/a", "", "/b", ""]);
        assert_eq!(parse_path_list("/a;/b", ';'), vec!["/a", "/b"]);
    }

    #[test]
    fn missing_and_odd_directories_give_nothing() {
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("plain");
        std::fs::write(&f, b"x").unwrap();
        let set = scan(&[
            String::new(),
            "/nonexistent/plugins".into(),
            f.display().to_string(),
            t.path().display().to_string(),
        ]);
        assert!(set.is_empty());
        assert_eq!(set.dirs().len(), 4);
    }
}
