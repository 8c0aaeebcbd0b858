//! What a user passes to `nc_open`/`nc_create`: a Zarr dataset (a URL with an
//! NCZarr mode, or a plain path to a Zarr directory or `.zarr.zip` file), or
//! something else that is delegated (classic/HDF5 files, DAP URLs).
//!
//! URLs follow netcdf-c's `NC_infermodel` (libdispatch/dinfermodel.c) as its
//! documentation describes it:
//! 1. the protocol adds implied fragment keys: `s3:` -> `mode=s3`, `gs3:` ->
//!    `mode=gs3`, `dods:` -> `mode=dap2`, `dap4:` -> `mode=dap4`;
//! 2. bare fragment keys are macros: `#zarr` = `mode=nczarr,zarr`, `#xarray` =
//!    `mode=zarr`, `#noxarray` = `mode=nczarr,noxarray`, `#s3` = `mode=s3,nczarr`,
//!    `#gs3` = `mode=gs3,nczarr`, `#bytes`, `#dap2`, `#dap4`;
//! 3. all `mode` values are merged into one comma list, lower case, duplicates
//!    removed;
//! 4. inferences are added breadth first: `zarr` => `nczarr`, `xarray` =>
//!    `zarr`, `noxarray` => `nczarr` and `zarr`;
//! 5. negations remove values: `bytes` removes `nczarr` and `zarr`, `noxarray`
//!    removes `xarray`;
//! 6. the last mode value naming a format decides it; `nczarr`/`zarr` mean Zarr.
//!
//! Where netcdf-c 4.9.0 differs it has bugs this module does not copy: its macro
//! expansion misaligns the key/value list (so `#zarr` ends up as
//! `mode=nczarr&zarr`, not pure Zarr), its inference loop never ends when the
//! last mode value infers something (`#mode=file,zarr` hangs `nc_open`), and it
//! keeps duplicate mode values.
//!
//! Plain paths (no URL) are Zarr only by their content or name; netcdf-c itself
//! never opens a plain path as Zarr:
//! - open: a directory holding a Zarr marker at its root (`.zgroup`,
//!   `.zarray`, `.zattrs`, `.zmetadata`, `zarr.json`, `.nczarr`: the list of
//!   `crate::format::markers`), or a regular file named `*.zarr.zip`;
//! - create: a name ending in `.zarr` or `.zarr/` (directory store) or
//!   `.zarr.zip` (zip store).
//!
//! Such paths get the mode `nczarr,file` (or `nczarr,zip`): the reader tells
//! NCZarr from pure Zarr by the metadata it finds.
//!
//! Mistakes are reported rather than passed on (netcdf-c hands a misspelled
//! mode to another format, or ignores it):
//! - a mode list that names a Zarr key (`nczarr`, `zarr`, `file`, `zip`,
//!   `consolidated`, ...) or a word one edit away from one (`nczar`, `fiel`)
//!   is ours, and every key in it must be known: otherwise `NC_EURL`, with a
//!   log line naming the key and the nearest known one;
//! - a path that is not a URL but ends in such a fragment
//!   (`out.zarr#mode=nczarr,file`) is a `file:` URL of that path, made
//!   absolute against the working directory (netcdf-c needs `file://` and an
//!   absolute path, and creates an HDF5 file of that literal name instead).
#![forbid(unsafe_code)]

pub mod uri;

use std::path::{Path, PathBuf};

use crate::error::{NcError, NcResult};
use crate::format::markers;
use uri::{NCURIPATH, NCURIPWD, NCURIQUERY, Uri};

/// Where a Zarr dataset is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// A directory tree on the local file system.
    File,
    /// A zip archive on the local file system.
    Zip,
    /// An S3 (or S3-compatible, or Google `gs3`) object store.
    S3,
}

/// A Zarr dataset location with its normalised controls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Exactly as passed by the caller.
    pub original: String,
    pub kind: StoreKind,
    /// File/Zip: absolute file system path (percent-decoded, no trailing `/`).
    /// S3: the URL without its fragment.
    pub path: String,
    pub is_url: bool,
    /// The mode list after macro expansion, inference and negation, lower case,
    /// without duplicates (e.g. `["nczarr", "file"]`, `["zarr", "file", "nczarr"]`).
    pub mode: Vec<String>,
    /// Every fragment key with its value, keys in lower case (legacy
    /// `awsprofile`/`awsregion` become `aws.profile`/`aws.region`), the `mode`
    /// value replaced by the normalised list joined with commas.
    pub fragment: Vec<(String, String)>,
    /// Pure Zarr: no `_nczarr_*` metadata (mode `zarr`, implied by `xarray` and
    /// `noxarray`).
    pub zarr: bool,
    /// Write `_ARRAY_DIMENSIONS` (default on; mode `noxarray` clears it).
    pub xarray_dims: bool,
    /// Use consolidated metadata (mode `consolidated`, or the environment
    /// variable `NCZARR_CONSOLIDATED` set to `true`, `yes` or a number > 0).
    pub consolidated: bool,
    /// The Zarr format asked for: mode `v2` or `v3` (the last one wins), as
    /// netcdf-c's draft v3 support names them; None when neither is given.
    pub zarr_format: Option<u8>,
    /// Shards of about this many bytes for new v3 variables: fragment key
    /// `shards=auto` (64 MiB) or `shards=<bytes>` (`k`, `m`, `g` suffixes
    /// allowed, powers of 1024); None without the key or with `shards=none`.
    pub shard_target: Option<u64>,
    /// The stored view of aggregation variables (mode key `aggregation=raw`;
    /// `aggregation=expanded`, the default, undoes it).
    pub aggregation_raw: bool,
    /// Fragment URIs confined to the master's directory: mode key
    /// `aggregation_uris=confined` Some(true), `aggregation_uris=any`
    /// Some(false); None without the key (then `NCZARR_AGGREGATION_URIS`).
    pub aggregation_confined: Option<bool>,
    /// Whether nc_enddef and nc_close flush to the disk: mode key `durable`
    /// (or `durable=1|true|yes`) Some(true), `durable=0|false|no`
    /// Some(false); None without the key (then `NCZARR_DURABLE` decides).
    pub durable: Option<bool>,
}

impl Location {
    /// The value of fragment key `key` (lower case).
    pub fn fragment_value(&self, key: &str) -> Option<&str> {
        self.fragment.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Whether the normalised mode list holds `m` (lower case).
    pub fn has_mode(&self, m: &str) -> bool {
        self.mode.iter().any(|x| x == m)
    }
}

/// What a path given to `nc_open`/`nc_create` is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Zarr(Location),
    /// A classic/HDF5 file, a DAP URL, anything else: delegated elsewhere.
    NotZarr,
}

/// Mode values that select a format, as netcdf-c's table (the last one wins).
const FORMAT_MODES: [&str; 19] = [
    "dap2", "dap4", "netcdf-3", "classic", "netcdf-4", "enhanced", "udf0", "udf1", "udf2", "udf3", "udf4", "udf5",
    "udf6", "udf7", "udf8", "udf9", "nczarr", "zarr", "bytes",
];

/// Mode values a Zarr dataset may use; a mode list holding one of them (or
/// a word one edit away from one) is ours to check. `s3`/`gs3` are not among
/// them: netcdf-c reads HDF5 files over S3 with `mode=bytes,s3`.
const ZARR_MODES: [&str; 13] = [
    "nczarr",
    "zarr",
    "xarray",
    "noxarray",
    "file",
    "zip",
    "consolidated",
    "v2",
    "v3",
    "shards",
    "aggregation",
    "aggregation_uris",
    "durable",
];

/// Every mode value known (netcdf-c's and this library's): the Zarr ones,
/// the formats, the S3 stores.
fn is_known_mode(m: &str) -> bool {
    let key = mode_key(m);
    ZARR_MODES.contains(&key) || FORMAT_MODES.contains(&key) || matches!(key, "s3" | "gs3")
}

/// The key of a mode value: `shards=4` is the key `shards` with a value.
fn mode_key(m: &str) -> &str {
    m.split_once('=').map_or(m, |(k, _)| k)
}

/// Edit distance with adjacent transpositions counting as one edit (optimal
/// string alignment), on bytes; the words compared here are short.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// Whether a mode list is a Zarr one this library must check: it names a
/// Zarr mode, or an unknown word one edit away from one.
fn claims_zarr(modes: &[String]) -> bool {
    modes.iter().any(|m| {
        let key = mode_key(m);
        ZARR_MODES.contains(&key) || (!is_known_mode(m) && ZARR_MODES.iter().any(|z| edit_distance(key, z) <= 1))
    })
}

/// The known mode value nearest to `word` (Zarr ones first on ties).
fn nearest_mode(word: &str) -> &'static str {
    let key = mode_key(word);
    ZARR_MODES
        .iter()
        .chain(FORMAT_MODES.iter())
        .chain(["s3", "gs3"].iter())
        .min_by_key(|k| edit_distance(key, k))
        .copied()
        .unwrap_or("nczarr")
}

/// `NC_EURL` for the first unknown value of a Zarr mode list, logged with
/// the nearest known one.
fn check_mode_keys(original: &str, modes: &[String]) -> NcResult<()> {
    if let Some(bad) = modes.iter().find(|m| !is_known_mode(m)) {
        crate::nclog!(
            crate::log::Level::Error,
            "{original}: unknown mode key '{bad}' (nearest known: '{}')",
            nearest_mode(bad)
        );
        return Err(NcError::Url);
    }
    Ok(())
}

/// Classify `path` for `nc_open` (`for_create == false`) or `nc_create`.
///
/// Errors: `NcError::Url` for a malformed URL (something shaped `scheme://...`
/// or `[...]...` that does not parse) or one whose storage does not fit
/// its protocol (a `file`/`zip` store over `https:`, an `s3` store over
/// `file:`), `NcError::Inval` for an empty path.
pub fn classify(path: &str, for_create: bool) -> NcResult<Target> {
    classify_with(path, for_create, env_consolidated())
}

/// [`classify`] with the `NCZARR_CONSOLIDATED` setting passed in.
pub fn classify_with(path: &str, for_create: bool, env_consolidated: bool) -> NcResult<Target> {
    if path.is_empty() {
        return Err(NcError::Inval);
    }
    match Uri::parse(path) {
        Ok(uri) => classify_url(path, &uri, env_consolidated),
        Err(_) if looks_like_url(path) => {
            crate::nclog!(crate::log::Level::Error, "malformed URL: {path}");
            Err(NcError::Url)
        }
        Err(_) => match classify_plain_fragment(path, env_consolidated)? {
            Some(t) => Ok(t),
            None => classify_plain(path, for_create, env_consolidated),
        },
    }
}

/// A path that is not a URL but carries a Zarr mode fragment
/// (`out.zarr#mode=nczarr,file`, `/data/x.zarr#mode=zarr,zip`): the `file:`
/// URL of that path, made absolute against the working directory. None when
/// there is no fragment or it is not a Zarr one (a file may have `#` in its
/// name).
fn classify_plain_fragment(original: &str, env_consolidated: bool) -> NcResult<Option<Target>> {
    let Some((path, frag)) = original.split_once('#') else {
        return Ok(None);
    };
    if path.is_empty() {
        return Ok(None);
    }
    let fraglist = uri::first_wins(uri::parse_params(frag));
    let (_, modes) = process_fragment(&[], &fraglist);
    if !claims_zarr(&modes) {
        return Ok(None);
    }
    let uri = Uri {
        protocol: "file".to_string(),
        // The path is taken as it is: only `%` needs escaping from the
        // decoding classify_url applies to URL paths.
        path: Some(path.replace('%', "%25")),
        fraglist,
        ..Uri::default()
    };
    classify_url(original, &uri, env_consolidated).map(Some)
}

/// Starts like a URL (`scheme://` or a `[` parameter prefix), so a parse
/// failure is a malformed URL rather than a file name. (netcdf-c treats any
/// string it cannot parse as a file name and then fails to find the file.)
fn looks_like_url(s: &str) -> bool {
    if s.starts_with('[') {
        return true;
    }
    let Some((scheme, _)) = s.split_once("://") else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `NCZARR_CONSOLIDATED` is `true`/`yes` (any case) or starts with a number > 0.
fn env_consolidated() -> bool {
    std::env::var("NCZARR_CONSOLIDATED").is_ok_and(|v| env_flag(&v))
}

/// `NCZARR_DURABLE`: whether nc_enddef and nc_close flush to the disk when
/// the URL does not say (`1`/`true`/`yes` on, `0`/`false`/`no` or unset off;
/// anything else is off, with a log line).
pub fn env_durable() -> bool {
    let Ok(v) = std::env::var("NCZARR_DURABLE") else {
        return false;
    };
    on_off(&v).unwrap_or_else(|| {
        crate::nclog!(
            crate::log::Level::Warn,
            "NCZARR_DURABLE={v:?} is none of 1, true, yes, 0, false, no; not durable"
        );
        false
    })
}

/// A switch's value: `1`/`true`/`yes` (or empty, the bare key) on,
/// `0`/`false`/`no` off, in any case; None for anything else.
fn on_off(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "" | "1" | "true" | "yes" => Some(true),
        "0" | "false" | "no" => Some(false),
        _ => None,
    }
}

fn env_flag(v: &str) -> bool {
    v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("yes") || atoi(v) > 0
}

/// C `atoi`: leading blanks, a sign, then digits; anything else ends it.
fn atoi(s: &str) -> i64 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut n: i64 = 0;
    for c in digits.bytes().take_while(u8::is_ascii_digit) {
        n = n.saturating_mul(10).saturating_add(i64::from(c - b'0'));
    }
    if neg { -n } else { n }
}

/// Protocol-implied fragment pairs, or None for an unknown protocol.
fn protocol_pairs(protocol: &str) -> Option<&'static [(&'static str, &'static str)]> {
    Some(match protocol {
        "http" | "https" | "file" => &[],
        "dods" => &[("mode", "dap2")],
        "dap4" => &[("mode", "dap4")],
        "s3" => &[("mode", "s3")],
        "gs3" => &[("mode", "gs3")],
        _ => return None,
    })
}

fn macro_expansion(key: &str) -> Option<&'static str> {
    Some(match key {
        "zarr" => "nczarr,zarr",
        "xarray" => "zarr",
        "noxarray" => "nczarr,noxarray",
        "s3" => "s3,nczarr",
        "gs3" => "gs3,nczarr",
        "bytes" => "bytes",
        "dap2" => "dap2",
        "dap4" => "dap4",
        _ => return None,
    })
}

fn inferences(mode: &str) -> &'static [&'static str] {
    match mode {
        "zarr" => &["nczarr"],
        "xarray" => &["zarr"],
        "noxarray" => &["nczarr", "zarr"],
        _ => &[],
    }
}

fn negations(mode: &str) -> &'static [&'static str] {
    match mode {
        "bytes" => &["nczarr", "zarr"],
        "noxarray" => &["xarray"],
        _ => &[],
    }
}

fn normalise_key(k: &str) -> String {
    let k = k.to_ascii_lowercase();
    match k.as_str() {
        "awsprofile" => "aws.profile".to_string(),
        "awsregion" => "aws.region".to_string(),
        _ => k,
    }
}

fn push_unique(list: &mut Vec<String>, v: &str) {
    if !v.is_empty() && !list.iter().any(|x| x == v) {
        list.push(v.to_string());
    }
}

/// Steps 1-5 of the module documentation: the final fragment pairs and the
/// normalised mode list.
fn process_fragment(protocol: &[(&str, &str)], uri_pairs: &[(String, String)]) -> (Vec<(String, String)>, Vec<String>) {
    let all = protocol
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain(uri_pairs.iter().map(|(k, v)| (normalise_key(k), v.clone())));
    // Macro expansion, then one entry per key: modes merged, otherwise first wins.
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut modes: Vec<String> = Vec::new();
    for (k, v) in all {
        let (k, v) = match macro_expansion(&k) {
            Some(exp) if v.is_empty() => ("mode".to_string(), exp.to_string()),
            _ => (k, v),
        };
        if k == "mode" {
            for m in v.split(',') {
                push_unique(&mut modes, &m.to_ascii_lowercase());
            }
        }
        if !pairs.iter().any(|(k2, _)| *k2 == k) {
            pairs.push((k, v));
        }
    }
    // Inference, breadth first (the inference graph is acyclic).
    let mut inferred: Vec<String> = Vec::new();
    let mut current = modes;
    while !current.is_empty() {
        let mut next: Vec<String> = Vec::new();
        for m in &current {
            for i in inferences(m) {
                push_unique(&mut next, i);
            }
        }
        for m in current {
            push_unique(&mut inferred, &m);
        }
        current = next;
    }
    // Negation.
    let removed: Vec<&str> = inferred.iter().flat_map(|m| negations(m)).copied().collect();
    let modes: Vec<String> = inferred
        .iter()
        .filter(|m| !removed.contains(&m.as_str()))
        .cloned()
        .collect();
    if let Some(pair) = pairs.iter_mut().find(|(k, _)| k == "mode") {
        pair.1 = modes.join(",");
    }
    (pairs, modes)
}

fn is_zarr_format(modes: &[String]) -> bool {
    modes
        .iter()
        .rev()
        .find(|m| FORMAT_MODES.contains(&m.as_str()))
        .is_some_and(|m| m == "nczarr" || m == "zarr")
}

fn looks_like_s3_host(host: Option<&str>) -> bool {
    host.is_some_and(|h| {
        let h = h.to_ascii_lowercase();
        h.ends_with(".amazonaws.com") || h == "storage.googleapis.com"
    })
}

fn ends_with_ci(s: &str, suffix: &str) -> bool {
    s.len() >= suffix.len()
        && s.is_char_boundary(s.len() - suffix.len())
        && s[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

fn classify_url(original: &str, uri: &Uri, env_consolidated: bool) -> NcResult<Target> {
    let protocol = uri.protocol.to_ascii_lowercase();
    let Some(implied) = protocol_pairs(&protocol) else {
        return Ok(Target::NotZarr);
    };
    let (fragment, modes) = process_fragment(implied, &uri.fraglist);
    if claims_zarr(&modes) {
        check_mode_keys(original, &modes)?;
    }
    if !is_zarr_format(&modes) {
        return Ok(Target::NotZarr);
    }
    let is_file_protocol = protocol == "file";
    // The storage: the last of file/zip/s3/gs3 in the mode list, else inferred.
    let chosen = modes.iter().rev().find_map(|m| match m.as_str() {
        "file" => Some(StoreKind::File),
        "zip" => Some(StoreKind::Zip),
        "s3" | "gs3" => Some(StoreKind::S3),
        _ => None,
    });
    let kind = match chosen {
        Some(k) => k,
        None if is_file_protocol => {
            if uri
                .path
                .as_deref()
                .is_some_and(|p| ends_with_ci(p.trim_end_matches('/'), ".zip"))
            {
                StoreKind::Zip
            } else {
                StoreKind::File
            }
        }
        None if looks_like_s3_host(uri.host.as_deref()) => StoreKind::S3,
        None => {
            crate::nclog!(
                crate::log::Level::Error,
                "{original}: no storage for a non-file URL (add mode s3)"
            );
            return Err(NcError::Url);
        }
    };
    let path = match kind {
        StoreKind::File | StoreKind::Zip => {
            if !is_file_protocol {
                crate::nclog!(
                    crate::log::Level::Error,
                    "{original}: file and zip storage need a file: URL"
                );
                return Err(NcError::Url);
            }
            let raw = uri.path.as_deref().ok_or(NcError::Url)?;
            let decoded = String::from_utf8(uri::decode_bytes(raw.as_bytes())).map_err(|_| NcError::Url)?;
            absolute(&decoded).ok_or(NcError::Url)?
        }
        StoreKind::S3 => {
            if is_file_protocol {
                crate::nclog!(
                    crate::log::Level::Error,
                    "{original}: s3 storage needs an s3:, gs3: or http(s): URL"
                );
                return Err(NcError::Url);
            }
            uri.build(None, None, NCURIPWD | NCURIPATH | NCURIQUERY)
        }
    };
    let zarr = modes.iter().any(|m| m == "zarr");
    let xarray_dims = !modes.iter().any(|m| m == "noxarray");
    let consolidated = env_consolidated || modes.iter().any(|m| m == "consolidated");
    let zarr_format = zarr_format(&modes);
    // `shards=` in the mode list (`#mode=nczarr,v3,shards=auto,file`), or
    // as a fragment key of its own (`#mode=nczarr,v3,file&shards=auto`).
    let in_modes = modes
        .iter()
        .rev()
        .find(|m| mode_key(m) == "shards")
        .map(|m| m.split_once('=').map_or("", |(_, v)| v).to_string());
    let in_keys = fragment.iter().find(|(k, _)| k == "shards").map(|(_, v)| v.clone());
    let shard_target = match in_modes.or(in_keys) {
        None => None,
        Some(v) => shard_target(&v).ok_or_else(|| {
            crate::nclog!(
                crate::log::Level::Error,
                "{original}: bad shards={v:?} (auto, none or a size in bytes)"
            );
            NcError::Url
        })?,
    };
    // `aggregation=raw` or `aggregation=expanded` (the last one wins).
    let aggregation = modes
        .iter()
        .rev()
        .find(|m| mode_key(m) == "aggregation")
        .map(|m| m.split_once('=').map_or("", |(_, v)| v).to_string());
    // `aggregation_uris=confined` or `aggregation_uris=any` (the last one wins).
    let aggregation_confined = match modes
        .iter()
        .rev()
        .find(|m| mode_key(m) == "aggregation_uris")
        .map(|m| m.split_once('=').map_or("", |(_, v)| v))
    {
        None => None,
        Some("confined") => Some(true),
        Some("any") => Some(false),
        Some(v) => {
            crate::nclog!(
                crate::log::Level::Error,
                "{original}: bad aggregation_uris={v:?} (confined or any)"
            );
            return Err(NcError::Url);
        }
    };
    let aggregation_raw = match aggregation.as_deref() {
        None | Some("expanded") => false,
        Some("raw") => true,
        Some(v) => {
            crate::nclog!(
                crate::log::Level::Error,
                "{original}: bad aggregation={v:?} (raw or expanded)"
            );
            return Err(NcError::Url);
        }
    };
    // `durable` in the mode list, with an optional value (the last wins).
    let durable = match modes.iter().rev().find(|m| mode_key(m) == "durable") {
        None => None,
        Some(m) => {
            let v = m.split_once('=').map_or("", |(_, v)| v);
            Some(on_off(v).ok_or_else(|| {
                crate::nclog!(
                    crate::log::Level::Error,
                    "{original}: bad durable={v:?} (1, true, yes, 0, false or no)"
                );
                NcError::Url
            })?)
        }
    };
    Ok(Target::Zarr(Location {
        original: original.to_string(),
        kind,
        path,
        is_url: true,
        mode: modes,
        fragment,
        zarr,
        xarray_dims,
        consolidated,
        zarr_format,
        shard_target,
        aggregation_raw,
        aggregation_confined,
        durable,
    }))
}

/// The shard size of 64 MiB that `shards=auto` asks for (a few dozen chunks
/// of the usual few MiB, as zarrs and tensorstore datasets have).
pub const AUTO_SHARD_BYTES: u64 = 64 << 20;

/// The value of `shards=`: Some(None) for `none`/`0`, Some(Some(bytes)) for
/// `auto` or a size; None when it is neither.
fn shard_target(v: &str) -> Option<Option<u64>> {
    let v = v.trim().to_ascii_lowercase();
    match v.as_str() {
        "auto" | "" => return Some(Some(AUTO_SHARD_BYTES)),
        "none" | "no" | "0" => return Some(None),
        _ => {}
    }
    let digits = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let n: u64 = v[..digits].parse().ok()?;
    let unit: u64 = match &v[digits..] {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return None,
    };
    Some(n.checked_mul(unit).filter(|&b| b > 0))
}

/// The Zarr format a mode list asks for: the last of `v2` and `v3`.
fn zarr_format(modes: &[String]) -> Option<u8> {
    modes.iter().rev().find_map(|m| match m.as_str() {
        "v2" => Some(2),
        "v3" => Some(3),
        _ => None,
    })
}

/// The format `nc_create` writes when the URL names none:
/// `NCZARR_DEFAULT_FORMAT` (`v2`/`2` or `v3`/`3`), else v2, which every
/// netCDF-C release reads.
pub fn default_zarr_format() -> u8 {
    match std::env::var("NCZARR_DEFAULT_FORMAT").ok().as_deref().map(str::trim) {
        Some("v3" | "V3" | "3") => 3,
        Some("" | "v2" | "V2" | "2") | None => 2,
        Some(other) => {
            crate::nclog!(
                crate::log::Level::Warn,
                "NCZARR_DEFAULT_FORMAT={other:?} is neither v2 nor v3; writing v2"
            );
            2
        }
    }
}

/// `p` made absolute against the working directory, trailing `/` removed
/// (except for the root). No symbolic links are resolved.
fn absolute(p: &str) -> Option<String> {
    let trimmed = p.trim_end_matches('/');
    let trimmed = if trimmed.is_empty() && p.starts_with('/') {
        "/"
    } else {
        trimmed
    };
    if trimmed.is_empty() {
        return None;
    }
    let pb = Path::new(trimmed);
    let abs: PathBuf = if pb.is_absolute() {
        pb.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(pb)
    };
    abs.into_os_string().into_string().ok()
}

fn classify_plain(original: &str, for_create: bool, env_consolidated: bool) -> NcResult<Target> {
    let name = original.trim_end_matches('/');
    let kind = if for_create {
        if ends_with_ci(name, ".zarr.zip") && !original.ends_with('/') {
            Some(StoreKind::Zip)
        } else if ends_with_ci(name, ".zarr") {
            Some(StoreKind::File)
        } else {
            None
        }
    } else {
        let p = Path::new(original);
        if p.is_dir() && markers::ALL.iter().any(|m| p.join(m).exists()) {
            Some(StoreKind::File)
        } else if p.is_file() && ends_with_ci(name, ".zarr.zip") {
            Some(StoreKind::Zip)
        } else {
            None
        }
    };
    let Some(kind) = kind else {
        return Ok(Target::NotZarr);
    };
    let path = absolute(original).ok_or(NcError::Inval)?;
    let store = if kind == StoreKind::Zip { "zip" } else { "file" };
    Ok(Target::Zarr(Location {
        original: original.to_string(),
        kind,
        path,
        is_url: false,
        mode: vec!["nczarr".to_string(), store.to_string()],
        fragment: Vec::new(),
        zarr: false,
        xarray_dims: true,
        consolidated: env_consolidated,
        zarr_format: None,
        shard_target: None,
        aggregation_raw: false,
        aggregation_confined: None,
        durable: None,
    }))
}

/// The dataset name `ncdump` (4.9.0) prints in `netcdf NAME {` for the
/// argument `path` as ncdump receives it: shell-escaped `\#` undone, then the
/// last segment of the URL path (or of the plain path) without the extension
/// after its last `.`. A URL whose last segment is empty or only an extension
/// (`file:///x/y/`, `file:///x/.zarr`) is not taken as a URL by 4.9.0's
/// `nc__testurl`, and its name comes from the plain-path rule instead
/// (`file:///x/y/#mode=zarr` gives `#mode=zarr`, verified with Debian's ncdump).
/// The name is returned unescaped; ncdump escapes it as a CDL name when
/// printing (`netcdf \#mode\=zarr {`). None for an empty path.
pub fn dataset_basename(path: &str) -> Option<String> {
    if path.is_empty() {
        return None;
    }
    let unescaped = String::from_utf8_lossy(&shell_unescape(path.as_bytes())).into_owned();
    let canon = String::from_utf8_lossy(&path_canonical(unescaped.as_bytes())).into_owned();
    if let Some(base) = test_url_v490(&canon) {
        return Some(base);
    }
    let last = canon.rsplit('/').next().unwrap_or(&canon);
    let stem = match last.rfind('.') {
        Some(i) => &last[..i],
        None => last,
    };
    Some(stem.to_string())
}

/// `nc__testurl` of netcdf-c 4.9.0: the URL's basename without extension when
/// `path` is a URL with a non-empty one, else None (not a URL). Unlike 4.9.0,
/// a URL without a path (`https://host`) is None instead of a crash.
pub fn test_url_v490(path: &str) -> Option<String> {
    let uri = Uri::parse(path).ok()?;
    let p = uri.path?;
    let last = p.rsplit('/').next().unwrap_or(&p);
    let stem = match last.rfind('.') {
        Some(i) => &last[..i],
        None => last,
    };
    (!stem.is_empty()).then(|| stem.to_string())
}

/// What `NC__testurl` of netcdf-c 4.10 reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlTest {
    pub is_url: bool,
    /// Protocol is exactly `file`.
    pub is_file: bool,
    /// Last path segment without its extension (a leading dot is kept); "" for
    /// a URL without a path.
    pub basename: Option<String>,
}

/// `NC__testurl` of netcdf-c 4.10.
pub fn test_url_v410(path: &str) -> UrlTest {
    let Ok(uri) = Uri::parse(path) else {
        return UrlTest {
            is_url: false,
            is_file: false,
            basename: None,
        };
    };
    let p = uri.path.as_deref().unwrap_or("/");
    let last = p.rsplit('/').next().unwrap_or(p);
    let stem = match last.rfind('.') {
        Some(i) if i > 0 => &last[..i],
        _ => last,
    };
    UrlTest {
        is_url: true,
        is_file: uri.protocol == "file",
        basename: Some(stem.to_string()),
    }
}

/// `NC_shellUnescape`: drop a backslash that precedes `#` (some shells pass
/// `\#` through); every other byte is kept.
pub fn shell_unescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for (i, &c) in s.iter().enumerate() {
        if c == b'\\' && s.get(i + 1) == Some(&b'#') {
            continue;
        }
        out.push(c);
    }
    out
}

/// `NCpathcanonical` as netcdf-c 4.9.0 computes it on a Unix host (no MSYS2
/// mount point): every `\` becomes `/`; Windows forms are rewritten to Cygwin
/// form (`D:/x` -> `/cygdrive/D/x`, `//srv/x` -> `/cygdrive///srv/x`, `/cygdrive/d/x`
/// unchanged); Unix and relative paths, and so URLs, pass through.
pub fn path_canonical(src: &[u8]) -> Vec<u8> {
    const CYGDRIVE: &[u8] = b"/cygdrive/";
    let is_drive = |c: u8| c.is_ascii_alphabetic() || c == b'/';
    let t: Vec<u8> = src.iter().map(|&c| if c == b'\\' { b'/' } else { c }).collect();
    let n = t.len();
    // (drive, rest) for the Windows and Cygwin forms.
    let windows = if n >= 2 && t[0] == b'/' && t[1] == b'/' {
        Some((b'/', &t[1..]))
    } else if n > CYGDRIVE.len()
        && t.starts_with(CYGDRIVE)
        && is_drive(t[CYGDRIVE.len()])
        && (n == CYGDRIVE.len() + 1 || t[CYGDRIVE.len() + 1] == b'/')
    {
        Some((t[CYGDRIVE.len()], &t[CYGDRIVE.len() + 1..]))
    } else if n >= 2 && is_drive(t[0]) && t[1] == b':' && (n == 2 || t[2] == b'/') {
        Some((t[0], &t[2..]))
    } else {
        None
    };
    match windows {
        Some((drive, rest)) => {
            // "//" alone has no remainder: netcdf-c then writes just the prefix.
            let rest: &[u8] = if n == 2 && t[0] == b'/' && t[1] == b'/' {
                b""
            } else {
                rest
            };
            let mut out = CYGDRIVE.to_vec();
            out.push(drive);
            out.extend_from_slice(rest);
            out
        }
        None => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every URL form, from what the user passes to `nc_open` to the config.
    #[test]
    fn url_forms_through_classification() {
        use crate::storage::s3::config::{Environment, resolve};
        for (url, bucket, prefix, endpoint, region) in [
            ("s3://bkt/a/b#mode=nczarr", "bkt", "a/b", None, "us-east-1"),
            (
                "s3://bkt/a#mode=zarr&aws.region=eu-west-3",
                "bkt",
                "a",
                None,
                "eu-west-3",
            ),
            (
                "https://bkt.s3.us-west-2.amazonaws.com/k/x.zarr#mode=nczarr",
                "bkt",
                "k/x.zarr",
                None,
                "us-west-2",
            ),
            (
                "https://s3.ap-south-1.amazonaws.com/bkt/k#mode=nczarr,s3",
                "bkt",
                "k",
                None,
                "ap-south-1",
            ),
            (
                "https://s3.amazonaws.com/bkt/k#mode=zarr",
                "bkt",
                "k",
                None,
                "us-east-1",
            ),
            (
                "http://127.0.0.1:7480/bkt/p/d.zarr#mode=nczarr,s3",
                "bkt",
                "p/d.zarr",
                Some("http://127.0.0.1:7480"),
                "us-east-1",
            ),
            (
                "https://minio.example:9000/bkt/d#s3",
                "bkt",
                "d",
                Some("https://minio.example:9000"),
                "us-east-1",
            ),
        ] {
            let Ok(Target::Zarr(loc)) = classify_with(url, false, false) else {
                panic!("{url}: not Zarr")
            };
            assert_eq!(loc.kind, StoreKind::S3, "{url}");
            let c = resolve(&loc.path, &loc.fragment, &Environment::default()).unwrap();
            assert_eq!(
                (
                    c.bucket.as_str(),
                    c.prefix.as_str(),
                    c.endpoint.as_deref(),
                    c.region.as_str()
                ),
                (bucket, prefix, endpoint, region),
                "{url}"
            );
        }
    }

    fn zarr(path: &str) -> Location {
        match classify_with(path, false, false) {
            Ok(Target::Zarr(l)) => l,
            other => panic!("{path}: {other:?}"),
        }
    }

    fn modes(path: &str) -> Vec<String> {
        zarr(path).mode
    }

    #[test]
    fn zarr_format_and_shard_keys() {
        assert_eq!(zarr("file:///x.zarr#mode=nczarr,file").zarr_format, None);
        assert_eq!(zarr("file:///x.zarr#mode=nczarr,v3,file").zarr_format, Some(3));
        assert_eq!(zarr("file:///x.zarr#mode=zarr,v3,v2,file").zarr_format, Some(2));
        assert_eq!(zarr("file:///x.zarr#mode=v3,nczarr,file").zarr_format, Some(3));
        let t = |f: &str| zarr(&format!("file:///x.zarr#mode=nczarr,v3,file&{f}")).shard_target;
        assert_eq!(t("shards=auto"), Some(AUTO_SHARD_BYTES));
        assert_eq!(t("shards"), Some(AUTO_SHARD_BYTES));
        assert_eq!(t("shards=16m"), Some(16 << 20));
        assert_eq!(t("SHARDS=2GiB"), Some(2 << 30));
        assert_eq!(t("shards=4096"), Some(4096));
        assert_eq!(t("shards=none"), None);
        let m = |f: &str| zarr(&format!("file:///x.zarr#mode={f}")).shard_target;
        assert_eq!(m("nczarr,v3,shards=auto,file"), Some(AUTO_SHARD_BYTES));
        assert_eq!(m("nczarr,v3,file,shards=2m"), Some(2 << 20));
        assert_eq!(m("nczarr,v3,file,shards"), Some(AUTO_SHARD_BYTES));
        assert_eq!(t("other=1"), None);
        for bad in ["shards=lots", "shards=12q", "shards=99999999999999999999g", "shards=-5"] {
            assert_eq!(
                classify_with(&format!("file:///x.zarr#mode=nczarr,v3,file&{bad}"), true, false),
                Err(NcError::Url),
                "{bad}"
            );
        }
    }

    #[test]
    fn durable_key() {
        let d = |m: &str| zarr(&format!("file:///x.zarr#mode={m}")).durable;
        assert_eq!(d("nczarr,file"), None);
        assert_eq!(d("nczarr,file,durable"), Some(true));
        assert_eq!(d("durable,zarr,file"), Some(true));
        assert_eq!(d("nczarr,zip,DURABLE"), Some(true));
        for on in ["1", "true", "yes", "Yes"] {
            assert_eq!(d(&format!("nczarr,file,durable={on}")), Some(true), "{on}");
        }
        for off in ["0", "false", "no", "NO"] {
            assert_eq!(d(&format!("nczarr,file,durable={off}")), Some(false), "{off}");
        }
        // The last one wins.
        assert_eq!(d("nczarr,file,durable=no,durable"), Some(true));
        assert_eq!(d("nczarr,file,durable,durable=0"), Some(false));
        assert_eq!(zarr("s3://b/k#mode=nczarr,s3,durable").durable, Some(true));
        assert_eq!(zarr("out.zarr#mode=nczarr,file,durable").durable, Some(true));
        for bad in ["durable=2", "durable=on", "durable=maybe"] {
            assert_eq!(
                classify_with(&format!("file:///x.zarr#mode=nczarr,file,{bad}"), true, false),
                Err(NcError::Url),
                "{bad}"
            );
        }
        assert_eq!(on_off(" yes "), Some(true));
        assert_eq!(on_off("off"), None);
    }

    #[test]
    fn file_url_nczarr() {
        let l = zarr("file:///x/data.zarr#mode=nczarr,file");
        assert_eq!(l.original, "file:///x/data.zarr#mode=nczarr,file");
        assert_eq!(l.kind, StoreKind::File);
        assert_eq!(l.path, "/x/data.zarr");
        assert!(l.is_url);
        assert_eq!(l.mode, ["nczarr", "file"]);
        assert_eq!(l.fragment, [("mode".to_string(), "nczarr,file".to_string())]);
        assert!(!l.zarr);
        assert!(l.xarray_dims);
        assert!(!l.consolidated);
        assert_eq!(l.durable, None);
    }

    #[test]
    fn macros_and_inferences() {
        assert_eq!(modes("file:///x#zarr"), ["nczarr", "zarr"]);
        assert!(zarr("file:///x#zarr").zarr);
        assert_eq!(modes("file:///x#mode=zarr,file"), ["zarr", "file", "nczarr"]);
        assert_eq!(modes("file:///x#mode=file,zarr"), ["file", "zarr", "nczarr"]);
        // xarray => zarr => nczarr, breadth first
        assert_eq!(modes("file:///x#xarray"), ["zarr", "nczarr"]);
        assert_eq!(
            modes("file:///x#mode=xarray,file"),
            ["xarray", "file", "zarr", "nczarr"]
        );
        let l = zarr("file:///x#mode=xarray,file");
        assert!(l.zarr && l.xarray_dims);
        // noxarray => nczarr + zarr: pure Zarr without _ARRAY_DIMENSIONS
        let l = zarr("file:///x#mode=nczarr,noxarray,file");
        assert_eq!(l.mode, ["nczarr", "noxarray", "file", "zarr"]);
        assert!(l.zarr && !l.xarray_dims);
        let l = zarr("file:///x#noxarray");
        assert!(l.zarr && !l.xarray_dims);
        // noxarray removes xarray
        assert_eq!(modes("file:///x#mode=xarray,noxarray"), ["noxarray", "zarr", "nczarr"]);
        // consolidated
        assert!(zarr("file:///x#mode=nczarr,consolidated").consolidated);
        assert!(
            classify_with("file:///x#mode=nczarr", false, true)
                .is_ok_and(|t| matches!(t, Target::Zarr(l) if l.consolidated))
        );
    }

    #[test]
    fn case_and_duplicates() {
        let l = zarr("file:///x#MODE=NCZarr,File,nczarr,,file&Log&AWS.Region=Us-West-1&awsprofile=p");
        assert_eq!(l.mode, ["nczarr", "file"]);
        assert_eq!(
            l.fragment,
            [
                ("mode".to_string(), "nczarr,file".to_string()),
                ("log".to_string(), String::new()),
                ("aws.region".to_string(), "Us-West-1".to_string()),
                ("aws.profile".to_string(), "p".to_string()),
            ]
        );
        assert_eq!(l.fragment_value("aws.region"), Some("Us-West-1"));
        assert!(l.has_mode("file"));
        // a macro and a mode key merge into one mode list
        assert_eq!(modes("file:///x#zarr&mode=file"), ["nczarr", "zarr", "file"]);
    }

    #[test]
    fn not_zarr_urls() {
        for p in [
            "https://server/dap/data.nc",
            "https://server/dap/data.nc#mode=dap4",
            "dods://server/x",
            "file:///x#bytes",
            "file:///x#mode=nczarr,bytes",
            "file:///x#mode=nczarr,dap2",
            "file:///x#log",
            "ftp://x/y#mode=nczarr",
        ] {
            assert_eq!(classify_with(p, false, false), Ok(Target::NotZarr), "{p}");
        }
        // the last format named wins
        assert!(matches!(
            classify_with("file:///x#mode=dap2,nczarr", false, false),
            Ok(Target::Zarr(_))
        ));
    }

    #[test]
    fn zip_and_file_kinds() {
        let l = zarr("file:///x/data.zip#mode=nczarr");
        assert_eq!(l.kind, StoreKind::Zip);
        assert_eq!(zarr("file:///x/data#mode=nczarr,zip").kind, StoreKind::Zip);
        assert_eq!(zarr("file:///x/data.zip#mode=nczarr,file").kind, StoreKind::File);
        // the last storage named wins
        assert_eq!(zarr("file:///x/d#mode=nczarr,zip,file").kind, StoreKind::File);
    }

    #[test]
    fn file_paths_decoded_and_absolute() {
        assert_eq!(zarr("file:///a%20b/c.zarr/#mode=zarr").path, "/a b/c.zarr");
        assert_eq!(zarr("file:/abs/p#mode=zarr").path, "/abs/p");
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            zarr("file://rel/x.zarr#mode=zarr").path,
            cwd.join("rel/x.zarr").to_str().unwrap()
        );
        assert_eq!(classify_with("file:///a%ff#mode=zarr", false, false), Err(NcError::Url));
    }

    #[test]
    fn s3_urls() {
        let l = zarr("s3://bucket/key#mode=zarr&aws.region=us-west-1");
        assert_eq!(l.kind, StoreKind::S3);
        assert_eq!(l.path, "s3://bucket/key");
        assert_eq!(l.mode, ["s3", "zarr", "nczarr"]);
        assert_eq!(l.fragment_value("aws.region"), Some("us-west-1"));
        let l = zarr("https://s3.us-east-1.amazonaws.com/bucket/key?x=1#mode=nczarr");
        assert_eq!(l.kind, StoreKind::S3);
        assert_eq!(l.path, "https://s3.us-east-1.amazonaws.com/bucket/key?x=1");
        let l = zarr("http://localhost:9000/bucket/key#mode=nczarr,s3");
        assert_eq!(l.kind, StoreKind::S3);
        assert_eq!(l.path, "http://localhost:9000/bucket/key");
        assert_eq!(zarr("https://h/b/k#s3").mode, ["s3", "nczarr"]);
        assert_eq!(zarr("gs3://bucket/key#mode=zarr").kind, StoreKind::S3);
        assert_eq!(zarr("s3://bucket#mode=zarr").path, "s3://bucket/");
        // s3: alone (no nczarr/zarr) is not a Zarr dataset
        assert_eq!(classify_with("s3://bucket/key", false, false), Ok(Target::NotZarr));
    }

    #[test]
    fn storage_protocol_mismatch() {
        for p in [
            "https://h/b/k#mode=nczarr",
            "https://h/b/k#mode=nczarr,file",
            "https://h/b/k#mode=zarr,zip",
            "file:///x#mode=nczarr,s3",
        ] {
            assert_eq!(classify_with(p, false, false), Err(NcError::Url), "{p}");
        }
    }

    #[test]
    fn malformed() {
        assert_eq!(classify_with("", false, false), Err(NcError::Inval));
        for p in [
            "[mode=zarr file:///x",
            "https://@h/x#mode=zarr",
            "file:////x#mode=zarr",
            "s3://h:port/x",
        ] {
            assert_eq!(classify_with(p, false, false), Err(NcError::Url), "{p}");
        }
        // not URL-shaped: a relative path with a Zarr fragment
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(zarr("x:y#mode=zarr").path, cwd.join("x:y").to_str().unwrap());
        assert_eq!(classify_with("/tmp/a://b", false, false), Ok(Target::NotZarr));
    }

    #[test]
    fn misspelled_mode_keys_are_url_errors() {
        assert_eq!(edit_distance("fiel", "file"), 1);
        assert_eq!(edit_distance("nczar", "nczarr"), 1);
        assert_eq!(edit_distance("zip", "zip"), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        for (p, nearest) in [
            ("file:///x/d.zarr#mode=nczar,file", "nczarr"),
            ("file:///x/d.zarr#mode=nczarr,fiel", "file"),
            ("file:///x/d.zarr#mode=zarr,file,consolidatd", "consolidated"),
            ("file:///x/d.zarr#mode=nczarr,file,bogus", "bytes"),
            ("file:///x/d.zarr#mode=nczar", "nczarr"),
            ("s3://b/k#mode=nczarr,s3,v4", "v2"),
            ("file:///x/d.zarr#mode=nczarr,file,durabel", "durable"),
            ("file:///x/d.zarr#mode=nczarr,file,durible=1", "durable"),
        ] {
            assert_eq!(classify_with(p, false, false), Err(NcError::Url), "{p}");
            let modes = match Uri::parse(p) {
                Ok(u) => process_fragment(&[], &u.fraglist).1,
                Err(e) => panic!("{p}: {e:?}"),
            };
            let bad = modes.iter().find(|m| !is_known_mode(m)).unwrap();
            assert_eq!(nearest_mode(bad), nearest, "{p}");
        }
        // Every known key, and the keys the Zarr v3 work adds, are accepted.
        for p in [
            "file:///x/d.zarr#mode=nczarr,file,consolidated",
            "file:///x/d.zarr#mode=zarr,file,v2",
            "file:///x/d.zarr#mode=zarr,file,v3,shards=4",
            "file:///x/d.zip#mode=nczarr,zip",
            "file:///x/d.zarr#mode=noxarray,file",
            "file:///x/d.zarr#mode=xarray,file",
            "file:///x/d.zarr#mode=nczarr,file,aggregation=expanded",
            "file:///x/d.zarr#mode=nczarr,file,durable",
            "file:///x/d.zip#mode=nczarr,zip,durable=no",
        ] {
            assert!(matches!(classify_with(p, true, false), Ok(Target::Zarr(_))), "{p}");
        }
        // The aggregation view key: raw, expanded (the default), nothing else.
        let raw = |p: &str| match classify_with(p, false, false) {
            Ok(Target::Zarr(l)) => Ok(l.aggregation_raw),
            Ok(Target::NotZarr) => Err(NcError::NotNc),
            Err(e) => Err(e),
        };
        assert_eq!(raw("file:///x/d.zarr#mode=nczarr,file,aggregation=raw"), Ok(true));
        // Fragment URIs confined or not.
        let confined = |p: &str| match classify_with(p, false, false) {
            Ok(Target::Zarr(l)) => Ok(l.aggregation_confined),
            Ok(Target::NotZarr) => Err(NcError::NotNc),
            Err(e) => Err(e),
        };
        assert_eq!(
            confined("file:///x/d.zarr#mode=nczarr,file,aggregation_uris=confined"),
            Ok(Some(true))
        );
        assert_eq!(
            confined("file:///x/d.zarr#mode=nczarr,file,aggregation_uris=confined,aggregation_uris=any"),
            Ok(Some(false))
        );
        assert_eq!(confined("file:///x/d.zarr#mode=nczarr,file"), Ok(None));
        assert_eq!(
            confined("file:///x/d.zarr#mode=nczarr,file,aggregation_uris=local"),
            Err(NcError::Url)
        );
        assert_eq!(raw("file:///x/d.zarr#mode=nczarr,file"), Ok(false));
        assert_eq!(
            raw("file:///x/d.zarr#mode=nczarr,file,aggregation=raw,aggregation=expanded"),
            Ok(false)
        );
        assert_eq!(
            raw("file:///x/d.zarr#mode=nczarr,file,aggregation=bogus"),
            Err(NcError::Url)
        );
        // Mode lists that are not Zarr ones stay someone else's.
        for p in [
            "https://h/x.nc#mode=bytes",
            "https://h/x.nc#mode=bytes,s3",
            "https://h/x#mode=dap4",
            "file:///x/y.nc#mode=netcdf-4",
            "file:///x/y.nc#mode=foo",
            "file:///x/y.nc#mode=file",
        ] {
            assert_eq!(classify_with(p, false, false), Ok(Target::NotZarr), "{p}");
        }
    }

    #[test]
    fn relative_paths_with_a_zarr_fragment() {
        let cwd = std::env::current_dir().unwrap();
        for (p, rel, kind) in [
            ("out.zarr#mode=nczarr,file", "out.zarr", StoreKind::File),
            ("sub/out.zarr#mode=zarr,file", "sub/out.zarr", StoreKind::File),
            ("a%20b.zarr#mode=nczarr,file", "a%20b.zarr", StoreKind::File),
            ("o.zip#mode=nczarr,zip", "o.zip", StoreKind::Zip),
        ] {
            for create in [true, false] {
                let l = match classify_with(p, create, false) {
                    Ok(Target::Zarr(l)) => l,
                    other => panic!("{p}: {other:?}"),
                };
                assert_eq!(l.path, cwd.join(rel).to_str().unwrap(), "{p}");
                assert_eq!(l.kind, kind);
                assert_eq!(l.original, p);
            }
        }
        assert_eq!(zarr("/abs/x.zarr#mode=nczarr,file").path, "/abs/x.zarr");
        assert_eq!(zarr("/abs/x.zarr#mode=nczarr,file").mode, ["nczarr", "file"]);
        // A misspelled key there is an error too; a fragment that is not
        // Zarr's leaves the name alone (a file may have # in its name).
        assert_eq!(
            classify_with("out.zarr#mode=nczar,file", true, false),
            Err(NcError::Url)
        );
        assert_eq!(classify_with("notes#1.nc", true, false), Ok(Target::NotZarr));
        assert_eq!(classify_with("x.nc#mode=netcdf-4", true, false), Ok(Target::NotZarr));
    }

    #[test]
    fn plain_paths_open() {
        let dir = tempfile::tempdir().unwrap();
        let z = dir.path().join("g");
        std::fs::create_dir(&z).unwrap();
        let zs = z.to_str().unwrap();
        assert_eq!(classify_with(zs, false, false), Ok(Target::NotZarr));
        for marker in markers::ALL {
            std::fs::write(z.join(marker), "{}").unwrap();
            let t = classify_with(&format!("{zs}/"), false, false).unwrap();
            let Target::Zarr(l) = t else { panic!("{marker}") };
            assert_eq!(l.kind, StoreKind::File);
            assert_eq!(l.path, zs);
            assert!(!l.is_url);
            assert_eq!(l.mode, ["nczarr", "file"]);
            std::fs::remove_file(z.join(marker)).unwrap();
        }
        let zip = dir.path().join("d.zarr.zip");
        std::fs::write(&zip, b"PK").unwrap();
        let Ok(Target::Zarr(l)) = classify_with(zip.to_str().unwrap(), false, false) else {
            panic!()
        };
        assert_eq!(l.kind, StoreKind::Zip);
        assert_eq!(l.mode, ["nczarr", "zip"]);
        let nc = dir.path().join("d.zip");
        std::fs::write(&nc, b"PK").unwrap();
        assert_eq!(classify_with(nc.to_str().unwrap(), false, false), Ok(Target::NotZarr));
        assert_eq!(classify_with("/nonexistent/x.zarr", false, false), Ok(Target::NotZarr));
    }

    #[test]
    fn plain_paths_create() {
        let kind = |p: &str| match classify_with(p, true, false).unwrap() {
            Target::Zarr(l) => Some(l.kind),
            Target::NotZarr => None,
        };
        assert_eq!(kind("/tmp/a.zarr"), Some(StoreKind::File));
        assert_eq!(kind("/tmp/a.zarr/"), Some(StoreKind::File));
        assert_eq!(kind("/tmp/a.ZARR"), Some(StoreKind::File));
        assert_eq!(kind("/tmp/a.zarr.zip"), Some(StoreKind::Zip));
        assert_eq!(kind("/tmp/a.nc"), None);
        assert_eq!(kind("/tmp/a.zip"), None);
        let Ok(Target::Zarr(l)) = classify_with("rel.zarr/", true, true) else {
            panic!()
        };
        assert_eq!(
            l.path,
            std::env::current_dir().unwrap().join("rel.zarr").to_str().unwrap()
        );
        assert!(l.consolidated);
    }

    #[test]
    fn consolidated_env_values() {
        for (v, want) in [
            ("true", true),
            ("YES", true),
            ("1", true),
            (" 2x", true),
            ("0", false),
            ("-1", false),
            ("no", false),
            ("", false),
        ] {
            assert_eq!(env_flag(v), want, "{v:?}");
        }
    }

    #[test]
    fn basenames() {
        let b = |p: &str| dataset_basename(p).unwrap();
        assert_eq!(b("file:///x/data.zarr#mode=nczarr,file"), "data");
        assert_eq!(b("file:///x/data.zarr\\#mode=nczarr,file"), "data");
        assert_eq!(b("s3://bucket/key#mode=zarr"), "key");
        assert_eq!(b("/tmp/foo.zarr"), "foo");
        assert_eq!(b("foo.tar.gz"), "foo.tar");
        assert_eq!(b("foo"), "foo");
        assert_eq!(b("file:///a/b.tar.gz#x=1"), "b.tar");
        // 4.9.0 does not take these as URLs; ncdump's plain-path rule applies
        assert_eq!(b("file:///x/y/#mode=zarr"), "#mode=zarr");
        assert_eq!(b("file:///x/.zarr#mode=zarr"), "");
        assert_eq!(b("https://host"), "host");
        assert_eq!(b("C:\\data\\x.nc"), "x");
        assert_eq!(dataset_basename(""), None);
    }

    #[test]
    fn testurl_forms() {
        assert_eq!(
            test_url_v490("file:///x/data.zarr#mode=nczarr,file").as_deref(),
            Some("data")
        );
        assert_eq!(test_url_v490("/tmp/x.nc"), None);
        assert_eq!(test_url_v490("https://host"), None);
        assert_eq!(test_url_v490("file:///x/.zarr"), None);
        assert_eq!(
            test_url_v410("file:///x/data.zarr#mode=nczarr,file"),
            UrlTest {
                is_url: true,
                is_file: true,
                basename: Some("data".into())
            }
        );
        assert_eq!(
            test_url_v410("https://host"),
            UrlTest {
                is_url: true,
                is_file: false,
                basename: Some(String::new())
            }
        );
        assert_eq!(test_url_v410("file:///x/.zarr").basename.as_deref(), Some(".zarr"));
        assert!(!test_url_v410("/tmp/x").is_url);
    }

    #[test]
    fn shell_unescape_cases() {
        assert_eq!(shell_unescape(b"a\\#b"), b"a#b");
        assert_eq!(shell_unescape(b"a\\b\\"), b"a\\b\\");
        assert_eq!(shell_unescape(b"a\\\\#b"), b"a\\#b");
        assert_eq!(shell_unescape(b""), b"");
    }

    #[test]
    fn canonical_paths() {
        let c = |s: &str| String::from_utf8(path_canonical(s.as_bytes())).unwrap();
        assert_eq!(c("/tmp/x.nc"), "/tmp/x.nc");
        assert_eq!(c("rel/x"), "rel/x");
        assert_eq!(c("x\\#y"), "x/#y");
        assert_eq!(c("C:\\data\\x"), "/cygdrive/C/data/x");
        assert_eq!(c("C:"), "/cygdrive/C");
        assert_eq!(c("//srv/x"), "/cygdrive///srv/x");
        assert_eq!(c("//"), "/cygdrive//");
        assert_eq!(c("/cygdrive/c/x"), "/cygdrive/c/x");
        assert_eq!(c("/cygdrive/c"), "/cygdrive/c");
        assert_eq!(c("/cygdrive/cx"), "/cygdrive/cx");
        assert_eq!(c("/:"), "/cygdrive//");
        assert_eq!(
            c("file:///x/d.zarr#mode=nczarr,file"),
            "file:///x/d.zarr#mode=nczarr,file"
        );
        assert_eq!(c(""), "");
    }
}
