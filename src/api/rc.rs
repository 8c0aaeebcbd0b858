//! netcdf-c's run-time configuration files (`.ncrc`, `.daprc`, `.dodsrc`)
//! and the table `nc_rc_get`/`nc_rc_set` read and change.
//!
//! Which files, as netcdf-c 4.10.1 (libdispatch/drc.c) finds them, once per
//! process, on the first `nc_create`/`nc_open`/`nc_rc_get`/`nc_rc_set`:
//! - `NCRCENV_IGNORE` set (to anything): no file is read, `nc_rc_get`
//!   answers NULL and `nc_rc_set` does nothing;
//! - `NCRCENV_RC` names a file: that file alone;
//! - otherwise `.ncrc`, `.daprc`, `.dodsrc` in `NCRCENV_HOME` (when set and
//!   not empty, else `$HOME`), then the same three in the working directory.
//!   Later files override earlier ones.
//!
//! A line is `KEY=VALUE`, or `[URL]KEY=VALUE` for one host (and path); `#`
//! starts a comment. The parser is the one the S3 store uses for its keys
//! (`storage::s3::config::parse_rc`), so both read the same entries.
//!
//! Keys this library acts on (docs/environment.md):
//! - `ZARR.DIMENSION_SEPARATOR` (`.` or `/`): the chunk key separator of
//!   variables created afterwards, as netcdf-c's `NCZ_initialize_internal`;
//!   any other value is ignored (logged);
//! - `AWS.PROFILE`, `AWS.REGION` (optionally per `[URL]`): read by the S3
//!   store (`storage::s3::config`).
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::storage::s3::config::{RcEntry, parse_rc};

/// The key of the chunk key separator.
pub const DIMENSION_SEPARATOR: &str = "ZARR.DIMENSION_SEPARATOR";

/// Larger configuration files are not read (logged).
const MAX_RC_BYTES: u64 = 1 << 20;

/// The rc table of the process.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RcTable {
    /// `NCRCENV_IGNORE`: no lookups, no changes.
    pub ignore: bool,
    /// Entries in file order; a later entry with the same key, host and
    /// path replaces an earlier one.
    pub entries: Vec<RcEntry>,
}

impl RcTable {
    /// Add the entries of one file's text.
    pub fn merge_text(&mut self, text: &str) {
        for e in parse_rc(text) {
            self.insert(e);
        }
    }

    fn insert(&mut self, e: RcEntry) {
        match self
            .entries
            .iter_mut()
            .find(|x| x.key == e.key && x.host == e.host && x.path == e.path)
        {
            Some(x) => x.value = e.value,
            None => self.entries.push(e),
        }
    }

    /// The value of `key` for no URL in particular (`nc_rc_get`): an entry
    /// without a `[URL]` prefix.
    pub fn get(&self, key: &str) -> Option<&str> {
        if self.ignore {
            return None;
        }
        self.entries
            .iter()
            .find(|e| e.key == key && e.host.is_none())
            .map(|e| e.value.as_str())
    }

    /// Set `key` for no URL in particular (`nc_rc_set`); ignored when the
    /// files are.
    pub fn set(&mut self, key: &str, value: &str) {
        if self.ignore {
            return;
        }
        self.insert(RcEntry {
            host: None,
            path: String::new(),
            key: key.to_string(),
            value: value.to_string(),
        });
    }
}

/// The files netcdf-c would read, in order, given the environment `var`
/// and the working directory.
pub fn rc_files(var: &dyn Fn(&str) -> Option<String>, cwd: Option<&Path>) -> Vec<PathBuf> {
    if let Some(f) = var("NCRCENV_RC").filter(|f| !f.is_empty()) {
        return vec![PathBuf::from(f)];
    }
    let home = var("NCRCENV_HOME")
        .filter(|h| !h.is_empty())
        .or_else(|| var("HOME").filter(|h| !h.is_empty()));
    let dirs = home.map(PathBuf::from).into_iter().chain(cwd.map(Path::to_path_buf));
    dirs.flat_map(|d| [".ncrc", ".daprc", ".dodsrc"].map(|n| d.join(n)))
        .collect()
}

/// Read the table as netcdf-c does, from the environment `var` and the
/// working directory: missing files are skipped, files that are not small
/// regular UTF-8 files are skipped with a log line.
pub fn load_with(var: &dyn Fn(&str) -> Option<String>, cwd: Option<&Path>) -> RcTable {
    let mut t = RcTable::default();
    if var("NCRCENV_IGNORE").is_some() {
        crate::nclog!(Level::Note, ".rc file loading suppressed");
        t.ignore = true;
        return t;
    }
    for path in rc_files(var, cwd) {
        if let Some(text) = read_small(&path) {
            crate::nclog!(Level::Note, "Found rc file={}", path.display());
            t.merge_text(&text);
        }
    }
    t
}

fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_RC_BYTES {
        crate::nclog!(
            Level::Warn,
            "ignoring rc file {} (not a regular file of at most {} bytes)",
            path.display(),
            MAX_RC_BYTES
        );
        return None;
    }
    match std::fs::read(path).map(String::from_utf8) {
        Ok(Ok(s)) => Some(s),
        _ => {
            crate::nclog!(Level::Warn, "cannot read rc file {} as UTF-8 text", path.display());
            None
        }
    }
}

static TABLE: LazyLock<Mutex<RcTable>> = LazyLock::new(|| {
    let env = |k: &str| std::env::var(k).ok();
    let cwd = std::env::current_dir().ok();
    let t = load_with(&env, cwd.as_deref());
    apply(&t);
    Mutex::new(t)
});

/// Act on the keys that shape later datasets.
fn apply(t: &RcTable) {
    let sep = match t.get(DIMENSION_SEPARATOR) {
        Some(v @ ("." | "/")) => v.chars().next(),
        Some(v) => {
            crate::nclog!(Level::Warn, "{DIMENSION_SEPARATOR}={v}: not '.' or '/', ignored");
            None
        }
        None => None,
    };
    crate::model::set_default_dim_separator(sep.unwrap_or('.'));
}

fn with<T>(f: impl FnOnce(&mut RcTable) -> T) -> T {
    let mut t = TABLE.lock().unwrap_or_else(|p| p.into_inner());
    f(&mut t)
}

/// Read the files if that has not happened yet (first create or open).
pub fn ensure_loaded() {
    LazyLock::force(&TABLE);
}

/// `nc_rc_get`: the value of `key`, None when absent or ignored.
pub fn get(key: &str) -> Option<String> {
    with(|t| t.get(key).map(str::to_string))
}

/// `nc_rc_set`: set or replace `key` (a no-op under `NCRCENV_IGNORE`).
/// `ZARR.DIMENSION_SEPARATOR` takes effect for variables defined afterwards.
pub fn set(key: &str, value: &str) -> NcResult<()> {
    if key.is_empty() {
        return Err(NcError::Inval);
    }
    with(|t| {
        t.set(key, value);
        apply(t);
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn search_order() {
        let cwd = Path::new("/work");
        let files = rc_files(&env(&[("HOME", "/h")]), Some(cwd));
        let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            names,
            [
                "/h/.ncrc",
                "/h/.daprc",
                "/h/.dodsrc",
                "/work/.ncrc",
                "/work/.daprc",
                "/work/.dodsrc"
            ]
        );
        let files = rc_files(&env(&[("HOME", "/h"), ("NCRCENV_HOME", "/r")]), Some(cwd));
        assert_eq!(files[0], Path::new("/r/.ncrc"));
        let files = rc_files(&env(&[("HOME", "/h"), ("NCRCENV_HOME", "")]), Some(cwd));
        assert_eq!(files[0], Path::new("/h/.ncrc"));
        let files = rc_files(&env(&[("HOME", "/h"), ("NCRCENV_RC", "/etc/my.rc")]), Some(cwd));
        assert_eq!(files, [Path::new("/etc/my.rc")]);
    }

    #[test]
    fn later_files_override_and_ignore_turns_off() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let cwd = dir.path().join("cwd");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::write(home.join(".ncrc"), "# comment\nZARR.DIMENSION_SEPARATOR=/\nA=1\n").unwrap();
        std::fs::write(home.join(".dodsrc"), "A=2\n[https://h.example:9000/p]A=3\n").unwrap();
        std::fs::write(cwd.join(".ncrc"), "  B = x  \n").unwrap();
        std::fs::create_dir(cwd.join(".daprc")).unwrap(); // not a file: skipped
        let h = home.to_str().unwrap();
        let vars = [("HOME", h)];
        let t = load_with(&env(&vars), Some(&cwd));
        assert_eq!(t.get(DIMENSION_SEPARATOR), Some("/"));
        assert_eq!(t.get("A"), Some("2"));
        assert_eq!(t.get("B"), Some("x"));
        assert_eq!(t.get("C"), None);
        assert_eq!(t.entries.iter().filter(|e| e.key == "A").count(), 2);
        let ignored = load_with(&env(&[("HOME", h), ("NCRCENV_IGNORE", "1")]), Some(&cwd));
        assert!(ignored.ignore);
        assert_eq!(ignored.get(DIMENSION_SEPARATOR), None);
        let mut t2 = ignored.clone();
        t2.set("K", "v");
        assert_eq!(t2, ignored);
        let mut t3 = t.clone();
        t3.set("A", "9");
        assert_eq!(t3.get("A"), Some("9"));
    }
}
