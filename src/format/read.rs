//! Reading NCZarr (every generation) and plain Zarr v2 metadata into the model.
//!
//! Every object is read in the JSON dialect of `dialect` (what Python and
//! netcdf-c write). What the metadata says is checked against the Zarr v2
//! specification: an array whose metadata is invalid is hidden with a log
//! line, never read under a guessed default; names that C callers cannot
//! receive (`names`) hide their object; an attribute that cannot be read is
//! skipped with a log line, never its variable.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::dialect;
use super::dtype;
use super::json;
use super::names::{self, Kind};
use super::object::{self, Obj};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::model::types::NcType;
use crate::model::{Att, Dataset, Dim, Flavor, Group, StringLayout, Var, is_hidden_att};
use crate::storage::{Key, MAX_METADATA_BYTES, Store};

/// The most groups, variables or dimensions one dataset may declare; bounds
/// every loop driven by metadata.
const MAX_OBJECTS: usize = 1 << 20;

/// The deepest group nesting read (a path that deep is already near PATH_MAX);
/// bounds the reader's recursion.
const MAX_GROUP_DEPTH: usize = 256;

/// The most groups a dataset shows: an ncid holds a group index in 16 bits
/// (`slot << 16 | group`, as in netcdf-c), so a group past these has no ncid.
const MAX_GROUPS: usize = 1 << 16;

/// Source of metadata objects: the store itself, or a consolidated `.zmetadata`.
struct Meta<'a> {
    store: &'a dyn Store,
    consolidated: Option<Consolidated<'a>>,
    /// Objects fetched ahead, concurrently (stores where requests overlap,
    /// like S3), each taken by the `get` that asks for it: raw bytes, or
    /// None when the object is absent.
    prefetched: RefCell<HashMap<String, Option<Vec<u8>>>>,
}

/// The objects of a consolidated `.zmetadata`, by key, each kept as its raw
/// JSON text (checked, not yet parsed) until the reader asks for it: the
/// reader asks for each key once, so every object is parsed once and nothing
/// is copied. A taken key stays, so `exists` and `children` still see it.
struct Consolidated<'a> {
    /// One entry per key, sorted by key; the text is None once taken.
    objects: RefCell<Vec<(Cow<'a, str>, Option<&'a str>)>>,
    /// Where the last lookup found its key: the reader asks for a group's
    /// objects in key order (`a/.zarray`, `a/.zattrs`, `b/.zarray`, ...), so
    /// the next key is usually the next entry.
    cursor: Cell<usize>,
    /// The arrays and groups in each group folder, sorted; made on first use
    /// in one pass over the keys (one pass per group would be quadratic).
    children: OnceCell<HashMap<String, Vec<String>>>,
}

impl<'a> Consolidated<'a> {
    /// Read `.zmetadata`; None (with a warning) when it is not valid
    /// consolidated metadata of format 1. A repeated key keeps its last
    /// object, as with any JSON object.
    fn parse(bytes: &'a [u8]) -> Option<Consolidated<'a>> {
        let invalid = |e: &dyn std::fmt::Display| {
            crate::nclog!(Level::Warn, "ignoring invalid .zmetadata: {}", e);
        };
        // (Checked as UTF-8 once: the objects' texts need no check of their own.)
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                invalid(&e);
                return None;
            }
        };
        let (doc, metadata) = match object::members_and_inner(text, "metadata", object::MAX_MEMBERS) {
            Ok(d) => d,
            Err(e) => {
                invalid(&e);
                return None;
            }
        };
        // The last of a repeated key counts, as in any object.
        let member = |k: &str| doc.iter().rev().find(|(key, _)| key == k).map(|&(_, v)| v);
        let format = member("zarr_consolidated_format").and_then(object::from_raw::<i64>);
        let (Some(1), Some(m)) = (format, metadata) else {
            invalid(&"not consolidated metadata of format 1");
            return None;
        };
        if m.len() > MAX_OBJECTS {
            invalid(&"too many objects");
            return None;
        }
        let mut objects: Vec<_> = m.into_iter().map(|(k, v)| (k, Some(v))).collect();
        // Stable (a repeated key's entries stay in document order; fast on
        // the sorted keys writers produce), then one entry per key holding
        // the last value.
        objects.sort_by(|a, b| a.0.cmp(&b.0));
        objects.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 = later.1;
            }
            same
        });
        Some(Consolidated {
            objects: RefCell::new(objects),
            cursor: Cell::new(0),
            children: OnceCell::new(),
        })
    }

    /// The entry of `key`.
    fn find(&self, objects: &[(Cow<'a, str>, Option<&'a str>)], key: &str) -> Option<usize> {
        let next = self.cursor.get();
        let i = (next..objects.len().min(next + 2))
            .find(|&i| objects[i].0 == key)
            .or_else(|| objects.binary_search_by(|(k, _)| k.as_ref().cmp(key)).ok())?;
        self.cursor.set(i + 1);
        Some(i)
    }

    fn contains(&self, key: &str) -> bool {
        self.find(&self.objects.borrow(), key).is_some()
    }

    fn take(&self, key: &str) -> NcResult<Option<Text<'a>>> {
        let raw = {
            let mut objects = self.objects.borrow_mut();
            match self.find(&objects, key) {
                None => return Ok(None),
                Some(i) => objects[i].1.take(),
            }
        };
        let Some(raw) = raw else {
            crate::nclog!(Level::Error, "consolidated metadata: {} was asked for twice", key);
            return Err(NcError::Internal);
        };
        if !Obj::is_object_text(raw) {
            // (As before: a member of .zmetadata that is no object reads as
            // an object without members.)
            crate::nclog!(Level::Warn, "consolidated metadata: {} is not a JSON object", key);
            return Ok(Some(Text::Consolidated("{}")));
        }
        Ok(Some(Text::Consolidated(raw)))
    }

    /// The arrays and groups in the group folder `grpkey` ("" for the root).
    fn children(&self, grpkey: &str) -> Vec<String> {
        let all = self.children.get_or_init(|| {
            let mut all: HashMap<String, Vec<String>> = HashMap::new();
            for (k, _) in self.objects.borrow().iter() {
                let Some(path) = k.strip_suffix("/.zgroup").or_else(|| k.strip_suffix("/.zarray")) else {
                    continue;
                };
                let (parent, child) = path.rsplit_once('/').unwrap_or(("", path));
                all.entry(parent.to_string()).or_default().push(child.to_string());
            }
            for names in all.values_mut() {
                names.sort();
                names.dedup();
            }
            all
        });
        all.get(grpkey).cloned().unwrap_or_default()
    }
}

/// A metadata object's JSON text: fetched from the store, or a slice of the
/// consolidated `.zmetadata`. `obj` reads its members.
enum Text<'a> {
    Fetched(Vec<u8>),
    Consolidated(&'a str),
}

impl Text<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Text::Fetched(b) => b,
            Text::Consolidated(s) => s.as_bytes(),
        }
    }

    fn obj(&self, what: &str) -> NcResult<Obj<'_>> {
        match self {
            Text::Fetched(b) => Obj::parse(b, what),
            Text::Consolidated(s) => Obj::parse_str(s, what),
        }
    }

    /// The object read as attributes (`Obj::parse_attrs`).
    fn attrs(&self, what: &str) -> NcResult<Obj<'_>> {
        Obj::parse_attrs(self.bytes(), what)
    }

    /// The whole object as a JSON tree (small objects read whole).
    fn value(&self, what: &str) -> NcResult<Value> {
        let v = json::parse(self.bytes(), what)?;
        if !v.is_object() {
            crate::nclog!(Level::Error, "{} is not a JSON object", what);
            return Err(NcError::NcZarr);
        }
        Ok(v)
    }
}
impl<'a> Meta<'a> {
    /// Whether `prefetch` fetches anything (so its key list is worth building).
    fn prefetches(&self) -> bool {
        self.consolidated.is_none() && self.store.concurrent_requests()
    }

    /// Fetch these objects now, all at once, when the store overlaps
    /// requests and the metadata is not consolidated: a group's variables
    /// then cost one round trip rather than one each. An object that fails
    /// to arrive is left to `get`, which asks again and reports it.
    fn prefetch(&self, keys: &[String]) {
        if !self.prefetches() || keys.is_empty() {
            return;
        }
        // (A name no key can have is left to `get`, which reports it.)
        let (names, todo): (Vec<&String>, Vec<(Key, u64)>) = keys
            .iter()
            .filter_map(|k| Some((k, (Key::new(k).ok()?, MAX_METADATA_BYTES))))
            .unzip();
        let got = self.store.get_many(&todo);
        let mut pre = self.prefetched.borrow_mut();
        for (k, r) in names.into_iter().zip(got) {
            if let Ok(v) = r {
                pre.insert(k.clone(), v);
            }
        }
    }

    /// The text of the JSON object at `key`, or None when absent.
    fn get(&self, key: &str) -> NcResult<Option<Text<'a>>> {
        if let Some(c) = &self.consolidated {
            return c.take(key);
        }
        let fetched = match self.prefetched.borrow_mut().remove(key) {
            Some(pre) => pre,
            None => self.store.get(&Key::new(key)?, MAX_METADATA_BYTES)?,
        };
        Ok(fetched.map(Text::Fetched))
    }

    /// The JSON object at `key` as a tree, or None when absent.
    fn get_value(&self, key: &str) -> NcResult<Option<Value>> {
        self.get(key)?.map(|t| t.value(key)).transpose()
    }

    fn exists(&self, key: &str) -> NcResult<bool> {
        if let Some(c) = &self.consolidated {
            return Ok(c.contains(key));
        }
        if let Some(pre) = self.prefetched.borrow().get(key) {
            return Ok(pre.is_some());
        }
        Ok(self.store.len(&Key::new(key)?)?.is_some())
    }

    /// Child names of a group folder (pure Zarr discovery).
    fn children(&self, grpkey: &str) -> NcResult<Vec<String>> {
        if let Some(c) = &self.consolidated {
            return Ok(c.children(grpkey));
        }
        Ok(self.store.list(&Key::new(grpkey)?)?)
    }
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        return b.to_string();
    }
    let mut k = String::with_capacity(a.len() + 1 + b.len());
    k.push_str(a);
    k.push('/');
    k.push_str(b);
    k
}

/// What the URL asked for.
#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    pub xarray: bool,
    pub consolidated: bool,
    pub writable: bool,
    /// The Zarr format the URL asked for (mode `v2` or `v3`), if any.
    pub zarr_format: Option<u8>,
    /// The shard size new v3 variables get (`shards=`), if any.
    pub shard_target: Option<u64>,
    /// The pure Zarr view (`mode=zarr`): NCZarr's own metadata is not
    /// read, as in netcdf-c. Dimensions come from `_ARRAY_DIMENSIONS` (or
    /// are anonymous), groups and arrays from the objects in storage, and
    /// `>S1` (NCZarr's char) is a string of one byte, as for any Zarr reader.
    pub pure_zarr: bool,
}

/// Read a dataset's metadata.
pub fn open(store: Arc<dyn Store>, path: &str, opts: OpenOptions) -> NcResult<Dataset> {
    if opts.zarr_format == Some(3) {
        return open_v3(store, path, opts);
    }
    let mut meta = Meta {
        store: store.as_ref(),
        consolidated: None,
        prefetched: RefCell::new(HashMap::new()),
    };
    // Consolidated metadata is used whenever it exists and is valid (it saves
    // one request per object); an invalid one is ignored with a warning.
    let zmetadata = store.get(&Key::new(".zmetadata")?, MAX_METADATA_BYTES)?;
    if let Some(bytes) = &zmetadata {
        meta.consolidated = Consolidated::parse(bytes);
    }
    let zgroup_text = meta.get(".zgroup")?;
    let zattrs_text = meta.get(".zattrs")?;
    let zgroup = zgroup_text.as_ref().map(|t| t.obj(".zgroup")).transpose()?;
    let zattrs = zattrs_text.as_ref().map(|t| t.attrs(".zattrs")).transpose()?;
    if zgroup.is_none() && zattrs.is_none() && meta.consolidated.is_none() {
        if opts.zarr_format.is_none()
            && let Some(root) = store.get(&Key::new(super::v3::ZARR_JSON)?, MAX_METADATA_BYTES)?
        {
            return super::v3::read::open(store, path, &root, opts);
        }
        if store.len(&Key::new(".zarray")?)?.is_some() {
            crate::nclog!(Level::Error, "{}: the root is an array, not a group", path);
            return Err(NcError::NotNc);
        }
        // A root without .zgroup whose tree holds Zarr objects (arrays
        // written straight into a store) is a pure-Zarr group, as netcdf-c
        // reads it.
        if !holds_zarr_objects(store.as_ref()) {
            return Err(NcError::NotNc);
        }
        crate::nclog!(
            Level::Note,
            "{}: no .zgroup at the root; read as a pure-Zarr group",
            path
        );
    }
    if let Some(f) = zgroup.as_ref().and_then(|g| g.get::<i64>("zarr_format"))
        && f != 2
    {
        crate::nclog!(Level::Error, "{}: unsupported zarr_format {}", path, f);
        return Err(NcError::NotBuilt);
    }

    // Find the superblock: 4.9.3+ in .zattrs, 4.9.1-2 in .zgroup, 4.9.0 upper case.
    let find = |o: &Option<Obj>, k: &str, what: &str| match o {
        Some(o) => o.checked(k, what),
        None => Ok(None),
    };
    let mut legacy_keys = false;
    let mut superblock = find(&zattrs, "_nczarr_superblock", ".zattrs")?;
    if superblock.is_none() {
        superblock = find(&zgroup, "_nczarr_superblock", ".zgroup")?;
        if superblock.is_none() {
            superblock = find(&zgroup, "_NCZARR_SUPERBLOCK", ".zgroup")?;
        }
        legacy_keys |= superblock.is_some();
    }
    // NCZarr format 1 kept its metadata in separate objects (.nczarr, ...).
    // (A GET that finds nothing, rather than a HEAD first: one request either
    // way; none for the pure Zarr view, which does not read them.)
    let v1_superblock = if superblock.is_none() && !opts.pure_zarr {
        meta.get_value(".nczarr")?
    } else {
        None
    };
    let v1 = v1_superblock.is_some();
    let superblock = if v1 { v1_superblock } else { superblock };
    legacy_keys |= v1;
    let nczarr = superblock.is_some() && !opts.pure_zarr;
    let superblock_version = superblock
        .as_ref()
        .and_then(|s| s.get("version").or_else(|| s.get("nczarr_version")))
        .and_then(Value::as_str)
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse::<i32>().ok())
        .or(if superblock.is_some() { Some(2) } else { None });

    let ncproperties = zattrs
        .as_ref()
        .and_then(|a| a.str("_NCProperties"))
        .map(Cow::into_owned);
    // Pure Zarr written by netcdf-c still names its NCZarr version in
    // _NCProperties ("...,nczarr=2.0.0"); netcdf-c reports that, else 0.
    let superblock_version = superblock_version
        .or_else(|| {
            let p = ncproperties.as_deref()?;
            let v = p.split(',').find_map(|kv| kv.strip_prefix("nczarr="))?;
            v.split('.').next()?.parse::<i32>().ok()
        })
        .unwrap_or(0);

    let mut ds = Dataset {
        path: path.to_string(),
        store: store.clone(),
        groups: vec![Group::new("/", None)],
        dims: Vec::new(),
        writable: opts.writable && !legacy_keys,
        define_mode: false,
        fill_mode: true,
        flavor: Flavor {
            pure_zarr: !nczarr,
            xarray: opts.xarray,
            consolidated: meta.consolidated.is_some() || opts.consolidated,
            v3: false,
            shard_target: None,
        },
        ncproperties,
        superblock_version,
        meta_dirty: false,
        created: false,
        deferred_bytes: 0,
        aggregation: None,
        reported_format: None,
        durable: false,
        parallel: None,
    };
    ds.groups[0].stored_key = Some(String::new());
    let mut reader = Reader {
        meta: &meta,
        nczarr,
        legacy: legacy_keys && nczarr,
        v1: v1 && nczarr,
        xarray: opts.xarray,
        count: 0,
        dims_by_name: HashMap::new(),
        groups_by_key: HashMap::from([(String::new(), 0)]),
        hidden_dims: HashMap::new(),
    };
    reader.read_tree(&mut ds, zgroup, zattrs)?;
    Ok(ds)
}

/// How many listings `holds_zarr_objects` may make before it gives up.
const MAX_PROBE_LISTINGS: usize = 1024;

/// Whether some object below the root is Zarr v2 metadata (`.zgroup`,
/// `.zarray`, `.zattrs`, `.zmetadata`), searched breadth first with a bound
/// on depth and on listings, so that a large tree of other data costs a
/// bounded number of requests. A listing that fails counts as "no".
fn holds_zarr_objects(store: &dyn Store) -> bool {
    let mut queue = std::collections::VecDeque::from([(String::new(), 0usize)]);
    let mut listings = 0;
    while let Some((prefix, depth)) = queue.pop_front() {
        if listings == MAX_PROBE_LISTINGS {
            return false;
        }
        listings += 1;
        let Ok(key) = Key::new(&prefix) else {
            continue;
        };
        let Ok(names) = store.list(&key) else {
            return false;
        };
        for name in names {
            if matches!(name.as_str(), ".zgroup" | ".zarray" | ".zattrs" | ".zmetadata") {
                return true;
            }
            if depth < MAX_GROUP_DEPTH && !name.starts_with('.') {
                queue.push_back((join(&prefix, &name), depth + 1));
            }
        }
    }
    false
}

/// An array of length `len` along the dimension `fqn`: an unlimited
/// dimension grows to it, a fixed one must have that length.
pub(super) fn use_dim_length(dim: &mut crate::model::Dim, fqn: &str, len: usize) -> NcResult<()> {
    if dim.unlimited {
        dim.len = dim.len.max(len);
    } else if dim.len != len {
        crate::nclog!(
            Level::Error,
            "dimension {} has length {} but an array uses {}",
            fqn,
            dim.len,
            len
        );
        return Err(NcError::DimSize);
    }
    Ok(())
}

/// Open a Zarr v3 dataset (its root `zarr.json`).
fn open_v3(store: Arc<dyn Store>, path: &str, opts: OpenOptions) -> NcResult<Dataset> {
    match store.get(&Key::new(super::v3::ZARR_JSON)?, MAX_METADATA_BYTES)? {
        Some(root) => super::v3::read::open(store, path, &root, opts),
        None => {
            crate::nclog!(Level::Error, "{}: no zarr.json at the root", path);
            Err(NcError::NotNc)
        }
    }
}

struct Reader<'a, 'b> {
    meta: &'a Meta<'b>,
    /// NCZarr metadata is read (else: the pure Zarr view).
    nczarr: bool,
    /// Written by netcdf-c <= 4.9.2 (keys inside .zgroup/.zarray, or format 1).
    legacy: bool,
    /// NCZarr format 1: `.nczgroup`, `.nczarray`, `.nczattr` objects.
    v1: bool,
    xarray: bool,
    count: usize,
    /// The dimensions defined so far: by group, by name.
    dims_by_name: HashMap<usize, HashMap<String, usize>>,
    /// The groups read so far, by key ("" for the root, "g1/g2").
    groups_by_key: HashMap<String, usize>,
    /// Dimensions a group declares but that are hidden (a name or size
    /// that cannot be shown): by group, by name. A reference to one is not
    /// an undeclared dimension to define.
    hidden_dims: HashMap<usize, std::collections::HashSet<String>>,
}

/// The NCZarr types of an object's attributes (`_nczarr_attr.types`), by
/// attribute name; a type that is not a string counts as absent.
enum AttTypes<'t> {
    /// The `types` member of `_nczarr_attr` in `.zattrs` (any generation).
    Inline(Option<Obj<'t>>),
    /// Format 1's separate `.nczattr` object.
    Fetched(HashMap<String, String>),
}

impl AttTypes<'_> {
    /// The types in `.zattrs`; `_nczarr_attr` (or its `types`) present but
    /// not an object is an error (the types would otherwise be guessed).
    fn of<'t>(zattrs: Option<&Obj<'t>>, what: &str) -> NcResult<AttTypes<'t>> {
        // (The lower-case key wins when present, an object or not.)
        let Some(info) = zattrs.and_then(|a| a.raw("_nczarr_attr").or_else(|| a.raw("_NCZARR_ATTR"))) else {
            return Ok(AttTypes::Inline(None));
        };
        let bad = || {
            crate::nclog!(Level::Error, "{}: _nczarr_attr is not an object of types", what);
            NcError::NcZarr
        };
        let info = Obj::of_raw(info).ok_or_else(bad)?;
        match info.raw("types") {
            None => Ok(AttTypes::Inline(None)),
            Some(t) => Ok(AttTypes::Inline(Some(Obj::of_raw(t).ok_or_else(bad)?))),
        }
    }

    fn get(&self, name: &str) -> Option<Cow<'_, str>> {
        match self {
            AttTypes::Inline(types) => types.as_ref()?.str(name),
            AttTypes::Fetched(m) => m.get(name).map(|s| Cow::Borrowed(s.as_str())),
        }
    }
}

/// How attribute types are read.
#[derive(Debug, Clone, Copy)]
struct AttRead {
    /// netcdf-c <= 4.9.0's `<U1` char type is read.
    legacy: bool,
    /// The pure Zarr view: `>S1` is a string (Zarr has no char type).
    pure: bool,
}

/// The netCDF type of a recorded attribute or array dtype.
fn stored_type(t: &str, how: AttRead) -> NcResult<NcType> {
    let d = dtype::parse_nczarr(t, how.legacy)?;
    Ok(if how.pure && d.ty == NcType::Char {
        NcType::String
    } else {
        d.ty
    })
}

/// User attributes of a `.zattrs` object, in order. An attribute whose
/// name cannot be shown, or whose value cannot be read, is skipped with a
/// log line; one whose value does not fit its recorded type is shown as
/// its JSON text (with a log line).
fn read_atts(zattrs: Option<&Obj>, types: &AttTypes, how: AttRead, place: &str) -> Vec<Att> {
    let mut out = Vec::new();
    let Some(o) = zattrs else { return out };
    for (name, raw) in o.members() {
        if is_hidden_att(name) || !names::usable(Kind::Attribute, name, place) {
            continue;
        }
        let v = match dialect::parse(raw) {
            Ok(v) => v,
            Err(e) => {
                crate::nclog!(
                    Level::Warn,
                    "attribute {:?} of {} cannot be read ({}); skipped",
                    names::shortened(name),
                    place,
                    e
                );
                continue;
            }
        };
        let att = match types.get(name).as_deref() {
            Some("|J0") => continue,
            Some(t) => match stored_type(t, how) {
                Ok(ty) => json::att_typed(name, &v, ty),
                Err(e) => Err(e),
            },
            None => json::att_inferred(name, &v),
        };
        match att {
            Ok(a) => out.push(a),
            Err(_) => {
                crate::nclog!(
                    Level::Warn,
                    "attribute {:?} of {} does not fit its type {:?}; shown as JSON text",
                    names::shortened(name),
                    place,
                    types.get(name).as_deref().unwrap_or("")
                );
                out.push(json::char_att(name, json::read_text(&v)));
            }
        }
    }
    out
}

/// Where 4.9.3+ keeps an object's NCZarr information (`name` in `.zattrs`),
/// else where 4.9.1–4.9.2 (`name`) or 4.9.0 (`upper`) kept it: inside
/// `.zgroup` / `.zarray`.
fn info_member<'t>(zattrs: Option<&Obj<'t>>, zobject: Option<&Obj<'t>>, name: &str, upper: &str) -> Option<&'t str> {
    zattrs
        .and_then(|a| a.raw(name))
        .or_else(|| zobject.and_then(|o| o.raw(name).or_else(|| o.raw(upper))))
}

/// What `_nczarr_array` says: a scalar, or the dimensions by full name.
struct ArrayInfo {
    scalar: bool,
    /// `dimension_references` (or format 1's `dimrefs`): None when absent.
    dimrefs: Option<Vec<String>>,
}

impl ArrayInfo {
    /// From the object; not an object, or references that are not a list
    /// of strings, is an error.
    fn of(info: Option<Obj>, what: &str) -> NcResult<ArrayInfo> {
        let bad = |m: &str| {
            crate::nclog!(Level::Error, "{}: _nczarr_array {}", what, m);
            NcError::NcZarr
        };
        let o = info.ok_or_else(|| bad("is not an object"))?;
        let dimrefs = match o.raw("dimension_references").or_else(|| o.raw("dimrefs")) {
            None => None,
            Some(r) => Some(object::from_raw::<Vec<String>>(r).ok_or_else(|| bad("has bad dimension references"))?),
        };
        Ok(ArrayInfo {
            scalar: o.get::<i64>("scalar").unwrap_or(0) != 0 || o.str("storage").as_deref() == Some("scalar"),
            dimrefs,
        })
    }
}

/// A JSON list of names (`_nczarr_group`'s `arrays` and `groups`): absent
/// is empty; anything but a list of strings is an error.
fn name_list(info: &Value, key: &str, alt: &str, what: &str) -> NcResult<Vec<String>> {
    match info.get(key).or_else(|| info.get(alt)) {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => {
            Ok(a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        }
        Some(_) => {
            crate::nclog!(Level::Error, "{}: _nczarr_group {} is not a list of names", what, key);
            Err(NcError::NcZarr)
        }
    }
}

/// The codec chain of `.zarray` in encoding order (filters, then the
/// compressor), as the Zarr v2 specification has it: `filters` is null or a
/// list of codec objects, `compressor` null or one codec object, and every
/// codec object names its codec with a string `id`. Anything else is an
/// error: reading the chunks without their codecs would give wrong values.
fn codecs_of(zarray: &Obj, what: &str) -> NcResult<Vec<Value>> {
    let bad = |m: &str| {
        crate::nclog!(Level::Error, "{}: {}", what, m);
        NcError::NcZarr
    };
    let is_codec = |c: &Value| c.get("id").is_some_and(Value::is_string);
    let mut codecs = Vec::new();
    match zarray.checked("filters", what)? {
        None | Some(Value::Null) => {}
        Some(Value::Array(f)) if f.iter().all(is_codec) => codecs.extend(f),
        Some(_) => return Err(bad("\"filters\" is not null or a list of codecs with an \"id\"")),
    }
    match zarray.checked("compressor", what)? {
        None | Some(Value::Null) => {}
        Some(c) if is_codec(&c) => codecs.push(c),
        Some(_) => return Err(bad("\"compressor\" is not null or a codec with an \"id\"")),
    }
    Ok(codecs)
}

/// `.zarray`'s `dimension_separator`: `.` (also when absent or null) or `/`.
fn dim_separator(zarray: &Obj, what: &str) -> NcResult<char> {
    match zarray.checked("dimension_separator", what)? {
        None | Some(Value::Null) => Ok('.'),
        Some(Value::String(s)) if s == "." => Ok('.'),
        Some(Value::String(s)) if s == "/" => Ok('/'),
        Some(v) => {
            crate::nclog!(
                Level::Error,
                "{}: dimension_separator {} is neither \".\" nor \"/\"",
                what,
                v
            );
            Err(NcError::NcZarr)
        }
    }
}

/// `.zarray`'s `order`: Fortran order (`"F"`) or not (`"C"`, also when absent).
fn fortran_order(zarray: &Obj, what: &str) -> NcResult<bool> {
    match zarray.checked("order", what)? {
        None => Ok(false),
        Some(Value::String(s)) if s == "C" => Ok(false),
        Some(Value::String(s)) if s == "F" => Ok(true),
        Some(v) => {
            crate::nclog!(Level::Error, "{}: order {} is neither \"C\" nor \"F\"", what, v);
            Err(NcError::NcZarr)
        }
    }
}

/// The size of a dimension in `_nczarr_group.dimensions`: a length, or
/// `{"size": n, "unlimited": 0|1}`. None when it is neither.
fn dim_size(d: &Value) -> Option<(usize, bool)> {
    let len = |v: &Value| v.as_u64().and_then(|u| usize::try_from(u).ok());
    match d {
        Value::Object(o) => {
            let unlimited = match o.get("unlimited") {
                None => false,
                Some(u) => u.as_i64()? != 0,
            };
            Some((len(o.get("size")?)?, unlimited))
        }
        v => Some((len(v)?, false)),
    }
}

impl Reader<'_, '_> {
    fn att_read(&self) -> AttRead {
        AttRead {
            legacy: self.legacy,
            pure: !self.nczarr,
        }
    }

    /// Attribute types of an object: `_nczarr_attr` in `.zattrs`, or the
    /// format-1 `.nczattr` object beside it.
    fn types_for<'t>(&self, key: &str, zattrs: Option<&Obj<'t>>, what: &str) -> NcResult<AttTypes<'t>> {
        if !self.v1 {
            return AttTypes::of(zattrs, what);
        }
        let mut m = HashMap::new();
        if let Some(Value::Object(o)) = self
            .meta
            .get_value(&join(key, ".nczattr"))?
            .as_mut()
            .and_then(|x| x.get_mut("types"))
        {
            for (k, v) in std::mem::take(o) {
                if let Value::String(s) = v {
                    m.insert(k, s);
                }
            }
        }
        Ok(AttTypes::Fetched(m))
    }

    /// An object's NCZarr information, wherever its generation keeps it: the
    /// format-1 object beside it, `.zattrs` (4.9.3+), or inside `.zgroup` /
    /// `.zarray` in lower case (4.9.1–4.9.2) or upper case (4.9.0). Present
    /// but unreadable is an error.
    fn nczarr_info(
        &self,
        key: &str,
        v1_object: &str,
        zattrs: Option<&Obj>,
        zobject: Option<&Obj>,
        name: &str,
        upper: &str,
    ) -> NcResult<Option<Value>> {
        if self.v1 {
            return self.meta.get_value(&join(key, v1_object));
        }
        match info_member(zattrs, zobject, name, upper) {
            None => Ok(None),
            Some(raw) => match object::to_value(raw) {
                Some(v) => Ok(Some(v)),
                None => {
                    crate::nclog!(Level::Error, "{}: {} cannot be read", key, name);
                    Err(NcError::NcZarr)
                }
            },
        }
    }

    /// An array's NCZarr information (`_nczarr_array`), wherever its
    /// generation keeps it (see `nczarr_info`).
    fn array_info(&self, key: &str, zattrs: Option<&Obj>, zarray: &Obj) -> NcResult<Option<ArrayInfo>> {
        if self.v1 {
            let k = join(key, ".nczarray");
            let Some(text) = self.meta.get(&k)? else {
                return Ok(None);
            };
            return ArrayInfo::of(Some(text.obj(&k)?), key).map(Some);
        }
        let raw = info_member(zattrs, Some(zarray), "_nczarr_array", "_NCZARR_ARRAY");
        raw.map(|r| ArrayInfo::of(Obj::of_raw(r), key)).transpose()
    }

    fn bump(&mut self) -> NcResult<()> {
        self.count += 1;
        if self.count > MAX_OBJECTS {
            crate::nclog!(Level::Error, "too many objects in dataset");
            return Err(NcError::NcZarr);
        }
        Ok(())
    }

    /// The dimension `name` of group `grp`, if defined.
    fn find_dim(&self, grp: usize, name: &str) -> Option<usize> {
        self.dims_by_name.get(&grp)?.get(name).copied()
    }

    /// Define a dimension in group `grp`.
    fn add_dim(&mut self, ds: &mut Dataset, grp: usize, name: &str, len: usize, unlimited: bool) -> usize {
        let id = ds.dims.len();
        ds.dims.push(Dim {
            name: name.to_string(),
            len,
            unlimited,
            group: grp,
        });
        ds.groups[grp].dims.push(id);
        self.dims_by_name.entry(grp).or_default().insert(name.to_string(), id);
        id
    }

    /// Read the whole group tree without recursion (an explicit stack, so a
    /// deep tree cannot exhaust the caller's thread stack). Groups are
    /// numbered depth first, parents before children, as netcdf-c numbers them.
    fn read_tree(&mut self, ds: &mut Dataset, zgroup: Option<Obj>, zattrs: Option<Obj>) -> NcResult<()> {
        let kids = self.read_group(ds, 0, zgroup, zattrs)?;
        let mut stack: Vec<(usize, String, usize)> = kids.into_iter().rev().map(|n| (0, n, 1)).collect();
        while let Some((parent, name, depth)) = stack.pop() {
            self.bump()?;
            if depth > MAX_GROUP_DEPTH {
                crate::nclog!(Level::Error, "groups nested deeper than {}", MAX_GROUP_DEPTH);
                return Err(NcError::NcZarr);
            }
            if !names::usable(Kind::Group, &name, &ds.group_full_name(parent)) {
                continue;
            }
            if ds.groups.len() == MAX_GROUPS {
                crate::nclog!(
                    Level::Warn,
                    "group {:?} in {} and the groups after it are hidden: an ncid addresses at most {} groups",
                    name,
                    ds.group_full_name(parent),
                    MAX_GROUPS
                );
                break;
            }
            let gk = join(&ds.group_key(parent), &name);
            let zg_key = join(&gk, ".zgroup");
            let za_key = join(&gk, ".zattrs");
            let zg_text = self.meta.get(&zg_key)?;
            let za_text = self.meta.get(&za_key)?;
            let zg = zg_text.as_ref().map(|t| t.obj(&zg_key)).transpose()?;
            let za = za_text.as_ref().map(|t| t.attrs(&za_key)).transpose()?;
            if zg.is_none() && za.is_none() {
                crate::nclog!(Level::Warn, "group {:?} has no metadata; skipped", gk);
                continue;
            }
            if self.groups_by_key.contains_key(&gk) {
                crate::nclog!(Level::Warn, "group {:?} is listed twice; read once", gk);
                continue;
            }
            let idx = ds.groups.len();
            let mut g = Group::new(&name, Some(parent));
            g.stored_key = Some(gk.clone());
            ds.groups.push(g);
            ds.groups[parent].children.push(idx);
            self.groups_by_key.insert(gk, idx);
            let kids = self.read_group(ds, idx, zg, za)?;
            stack.extend(kids.into_iter().rev().map(|n| (idx, n, depth + 1)));
        }
        Ok(())
    }

    /// Read one group's attributes, dimensions and variables; returns the
    /// names of its subgroups.
    fn read_group(
        &mut self,
        ds: &mut Dataset,
        grp: usize,
        zgroup: Option<Obj>,
        zattrs: Option<Obj>,
    ) -> NcResult<Vec<String>> {
        let key = ds.group_key(grp);
        let place = ds.group_full_name(grp);
        let types = self.types_for(&key, zattrs.as_ref(), &place)?;
        ds.groups[grp].atts = read_atts(zattrs.as_ref(), &types, self.att_read(), &place).into();

        let ginfo = if self.nczarr {
            self.nczarr_info(
                &key,
                ".nczgroup",
                zattrs.as_ref(),
                zgroup.as_ref(),
                "_nczarr_group",
                "_NCZARR_GROUP",
            )?
        } else {
            None
        };

        let (arrays, subgroups) = if let Some(info) = &ginfo {
            match info.get("dimensions").or_else(|| info.get("dims")) {
                None => {}
                Some(Value::Object(dims)) => {
                    for (name, d) in dims {
                        self.bump()?;
                        let size = dim_size(d);
                        if size.is_none() {
                            crate::nclog!(
                                Level::Warn,
                                "dimension {:?} in {} has no valid size ({}); hidden",
                                names::shortened(name),
                                place,
                                d
                            );
                        }
                        let Some((len, unlimited)) = size.filter(|_| names::usable(Kind::Dimension, name, &place))
                        else {
                            self.hidden_dims.entry(grp).or_default().insert(name.clone());
                            continue;
                        };
                        self.add_dim(ds, grp, name, len, unlimited || len == 0);
                    }
                }
                Some(_) => {
                    crate::nclog!(Level::Error, "{}: _nczarr_group dimensions is not an object", place);
                    return Err(NcError::NcZarr);
                }
            }
            (
                name_list(info, "arrays", "vars", &place)?,
                name_list(info, "groups", "groups", &place)?,
            )
        } else {
            let mut arrays = Vec::new();
            let mut groups = Vec::new();
            let children = self.meta.children(&key)?;
            if children.len() > MAX_OBJECTS {
                crate::nclog!(Level::Error, "too many objects in dataset");
                return Err(NcError::NcZarr);
            }
            // Over S3: every child's .zarray and .zattrs in one round trip,
            // then .zgroup of those that are not arrays (no HEAD requests).
            let kids: Vec<&String> = children.iter().filter(|c| !c.starts_with('.')).collect();
            self.meta.prefetch(
                &kids
                    .iter()
                    .flat_map(|c| [join(&join(&key, c), ".zarray"), join(&join(&key, c), ".zattrs")])
                    .collect::<Vec<_>>(),
            );
            let not_arrays: Vec<String> = kids
                .iter()
                .map(|c| join(&key, c))
                .filter(|ck| !matches!(self.meta.prefetched.borrow().get(&join(ck, ".zarray")), Some(Some(_))))
                .map(|ck| join(&ck, ".zgroup"))
                .collect();
            self.meta.prefetch(&not_arrays);
            for child in children {
                self.bump()?;
                if child.starts_with('.') {
                    continue;
                }
                let ck = join(&key, &child);
                if self.meta.exists(&join(&ck, ".zarray"))? {
                    arrays.push(child);
                } else if self.meta.exists(&join(&ck, ".zgroup"))? {
                    groups.push(child);
                }
            }
            (arrays, groups)
        };

        if self.nczarr && !self.v1 && self.meta.prefetches() {
            // Over S3: the metadata of every variable and subgroup here in
            // one round trip.
            let mut keys = Vec::with_capacity(2 * (arrays.len() + subgroups.len()));
            for a in arrays.iter().take(MAX_OBJECTS) {
                keys.push(join(&join(&key, a), ".zarray"));
                keys.push(join(&join(&key, a), ".zattrs"));
            }
            for g in subgroups.iter().take(MAX_OBJECTS) {
                keys.push(join(&join(&key, g), ".zgroup"));
                keys.push(join(&join(&key, g), ".zattrs"));
            }
            self.meta.prefetch(&keys);
        }
        // (Bounded: the names came from metadata already in memory.)
        ds.groups[grp].vars.reserve(arrays.len());
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        for name in arrays {
            self.bump()?;
            if !names::usable(Kind::Variable, &name, &place) {
                continue;
            }
            if !seen.insert(name.clone()) {
                crate::nclog!(
                    Level::Warn,
                    "variable {:?} in {} is listed twice; read once",
                    name,
                    place
                );
                continue;
            }
            match self.read_var(ds, grp, &name) {
                Ok(v) => ds.groups[grp].vars.push(v),
                Err(e) => {
                    crate::nclog!(Level::Warn, "variable {:?} in group {:?} is hidden: {}", name, place, e);
                }
            }
        }
        Ok(subgroups)
    }

    fn read_var(&mut self, ds: &mut Dataset, grp: usize, name: &str) -> NcResult<Var> {
        let vk = ds.var_key(grp, name);
        let zarray_key = join(&vk, ".zarray");
        let zattrs_key = join(&vk, ".zattrs");
        let zarray_text = self.meta.get(&zarray_key)?.ok_or_else(|| {
            crate::nclog!(Level::Error, "{} is missing", zarray_key);
            NcError::NcZarr
        })?;
        let zattrs_text = self.meta.get(&zattrs_key)?;
        let zarray = zarray_text.obj(&zarray_key)?;
        let zattrs = zattrs_text.as_ref().map(|t| t.attrs(&zattrs_key)).transpose()?;
        let invalid = |m: &dyn std::fmt::Display| {
            crate::nclog!(Level::Error, "{}: {}", zarray_key, m);
            NcError::NcZarr
        };
        match zarray.checked("zarr_format", &zarray_key)? {
            Some(Value::Number(n)) if n.as_u64() == Some(2) => {}
            other => return Err(invalid(&format_args!("zarr_format is {other:?}, not 2"))),
        }
        // Lengths as Zarr writes them: JSON integers (a member of another
        // type, or a negative one, makes the array unreadable).
        let lengths = |k: &str| -> NcResult<Vec<usize>> {
            zarray
                .get::<Vec<u64>>(k)
                .ok_or_else(|| invalid(&format_args!("{k} is not a list of lengths")))?
                .into_iter()
                .map(|u| usize::try_from(u).map_err(|_| NcError::NcZarr))
                .collect()
        };
        let shape = lengths("shape")?;
        let chunks = lengths("chunks")?;
        if chunks.contains(&0) {
            return Err(invalid(&"a chunk length is 0"));
        }
        if chunks.len() != shape.len() || shape.len() > crate::model::types::NC_MAX_VAR_DIMS {
            return Err(invalid(&"shape and chunks disagree"));
        }
        let stored_dtype = zarray.str("dtype").ok_or_else(|| invalid(&"dtype is not a string"))?;
        let mut dt = dtype::parse_nczarr(&stored_dtype, self.legacy)?;
        if !self.nczarr && dt.ty == NcType::Char {
            // Zarr has no char type: `>S1` is a string of one byte (netcdf-c's
            // pure Zarr view).
            dt = dtype::Dtype {
                ty: NcType::String,
                big_endian: false,
                strings: Some(StringLayout::Fixed(1)),
                native: true,
            };
        }
        let ty = dt.ty;
        // One chunk must be addressable: elements * size fits in memory limits.
        let elem = match dt.strings {
            Some(StringLayout::Fixed(n)) => n,
            Some(StringLayout::Utf32 { n, .. }) => n * 4,
            Some(StringLayout::VlenUtf8) => 8,
            None => ty.size(),
        };
        let chunk_bytes = chunks.iter().try_fold(elem, |a, &c| a.checked_mul(c));
        // netcdf-c refuses chunks over 4 GiB (NC_EBADCHUNK); so do we, on read too.
        if chunk_bytes.is_none_or(|b| b > u32::MAX as usize) {
            return Err(invalid(&"chunk too large"));
        }
        // (A shape whose element count overflows 64 bits is shown: only its
        // data access fails, `Dataset::var_len`.)

        let types = self.types_for(&vk, zattrs.as_ref(), &zattrs_key)?;
        let mut atts = read_atts(zattrs.as_ref(), &types, self.att_read(), &vk);
        let ainfo = if self.nczarr {
            self.array_info(&vk, zattrs.as_ref(), &zarray)?
        } else {
            None
        };
        // `_ARRAY_DIMENSIONS`: a list of names (used by the pure Zarr view).
        let xdims: Option<Vec<String>> = match zattrs.as_ref() {
            Some(a) if !self.nczarr => match a.checked("_ARRAY_DIMENSIONS", &zattrs_key)? {
                None => None,
                Some(Value::Array(n)) if n.iter().all(Value::is_string) => {
                    Some(n.iter().filter_map(Value::as_str).map(str::to_string).collect())
                }
                Some(v) => {
                    crate::nclog!(
                        Level::Error,
                        "{}: _ARRAY_DIMENSIONS {} is not a list of names",
                        zattrs_key,
                        v
                    );
                    return Err(NcError::NcZarr);
                }
            },
            _ => None,
        };

        // Dimensions.
        let mut scalar = false;
        let mut dimids = Vec::new();
        if let (true, Some(info)) = (self.nczarr, &ainfo) {
            if info.scalar {
                scalar = true;
            } else {
                let refs = info.dimrefs.as_ref().ok_or(NcError::NcZarr)?;
                if refs.len() != shape.len() {
                    return Err(NcError::NcZarr);
                }
                for (fqn, &len) in refs.iter().zip(&shape) {
                    let d = self.resolve_dim(ds, grp, fqn, len)?;
                    dimids.push(d);
                }
            }
        } else {
            let scalar_marker = xdims.as_deref() == Some(&["_scalar_".to_string()][..]) && shape == [1];
            if shape.is_empty() && !scalar_marker && self.xarray && xdims.as_ref().is_some_and(|n| !n.is_empty()) {
                // As for any other rank: names that contradict the shape
                // make the array's dimensions unknowable.
                crate::nclog!(
                    Level::Error,
                    "{}: _ARRAY_DIMENSIONS names {} dimensions, the shape has 0",
                    zattrs_key,
                    xdims.as_ref().map_or(0, Vec::len)
                );
                return Err(NcError::NcZarr);
            }
            if shape.is_empty() || scalar_marker {
                scalar = true;
            } else {
                let names = match xdims.filter(|_| self.xarray) {
                    Some(n) if n.len() != shape.len() => {
                        crate::nclog!(
                            Level::Error,
                            "{}: _ARRAY_DIMENSIONS names {} dimensions, the shape has {}",
                            zattrs_key,
                            n.len(),
                            shape.len()
                        );
                        return Err(NcError::NcZarr);
                    }
                    n => n,
                };
                for (i, &len) in shape.iter().enumerate() {
                    let d = match &names {
                        Some(n) => self.xarray_dim(ds, grp, &n[i], len)?,
                        None => self.anon_dim(ds, len),
                    };
                    dimids.push(d);
                }
            }
        }
        if scalar && chunks.iter().product::<usize>() != 1 {
            return Err(invalid(&"a scalar with chunks of more than one element"));
        }

        let mut var = Var::new(name, ty, dimids);
        var.chunks = if scalar { Vec::new() } else { chunks };
        var.big_endian = dt.big_endian;
        var.native_order = dt.native && ty.size() == 1;
        var.stored_dtype = Some(stored_dtype.into_owned());
        if let Some(l) = dt.strings {
            var.string_layout = l;
        }
        var.order_f = fortran_order(&zarray, &zarray_key)?;
        var.dim_separator = dim_separator(&zarray, &zarray_key)?;
        // Fill value.
        match zarray.checked("fill_value", &zarray_key)? {
            None | Some(Value::Null) => {
                var.no_fill = true;
                var.fill = vec![0u8; if ty == NcType::String { 0 } else { ty.size() }];
            }
            Some(v) => {
                let bad_fill = || invalid(&format_args!("bad fill_value {v} for {ty:?}"));
                var.fill = match ty {
                    NcType::String | NcType::Char => match &v {
                        Value::String(s) => s.as_bytes().to_vec(),
                        Value::Number(n) if ty == NcType::Char => {
                            vec![n.as_u64().and_then(|u| u8::try_from(u).ok()).ok_or_else(bad_fill)?]
                        }
                        _ => return Err(bad_fill()),
                    },
                    _ => {
                        let mut b = Vec::new();
                        json::scalar_to_bytes(&v, ty, &mut b).map_err(|_| bad_fill())?;
                        b
                    }
                };
                if ty == NcType::Char {
                    var.fill.resize(1, 0);
                }
            }
        }
        // A _FillValue attribute wins over fill_value for the reported fill.
        if let Some(a) = atts.iter_mut().find(|a| a.name == "_FillValue") {
            if a.ty != ty {
                // Re-type it to the variable type (netcdf-c's hint), when possible.
                if let Some(raw) = zattrs.as_ref().and_then(|o| o.raw("_FillValue"))
                    && let Ok(v) = dialect::parse(raw)
                    && let Ok(b) = json::att_typed("_FillValue", &v, ty)
                    && b.ty == ty
                {
                    *a = b;
                }
            }
            if a.ty == ty && a.len() == 1 {
                var.fill = match &a.value {
                    crate::model::AttValue::Bytes(b) => b.clone(),
                    crate::model::AttValue::Strings(s) => s[0].clone(),
                };
            }
        }
        var.atts = atts.into();
        var.quantize = crate::model::quantize::from_atts(&var);
        // Codec chain in encoding order: filters first, then the compressor.
        var.codecs = codecs_of(&zarray, &zarray_key)?;
        if var.string_layout == StringLayout::VlenUtf8 {
            // The object codec is the string layout itself; it must come first.
            let is_vlen = |c: &Value| c.get("id").and_then(Value::as_str) == Some("vlen-utf8");
            if !var.codecs.first().is_some_and(is_vlen) {
                return Err(invalid(&"object dtype without a leading vlen-utf8 codec"));
            }
            var.codecs.remove(0);
        }
        var.stored_key = Some(vk);
        var.meta_dirty = false;
        var.created = true;
        var.chunks_on_disk = true;
        Ok(var)
    }

    /// Resolve an NCZarr dimension reference (`/g1/y`).
    fn resolve_dim(&mut self, ds: &mut Dataset, grp: usize, fqn: &str, len: usize) -> NcResult<usize> {
        let (gpath, dname) = fqn.rsplit_once('/').unwrap_or(("", fqn));
        let gkey = gpath.split('/').filter(|s| !s.is_empty()).collect::<Vec<_>>().join("/");
        let g = *self.groups_by_key.get(&gkey).ok_or(NcError::NcZarr)?;
        if let Some(d) = self.find_dim(g, dname) {
            use_dim_length(&mut ds.dims[d], fqn, len)?;
            return Ok(d);
        }
        // A reference to a dimension the group did not declare (older writers):
        // define it where the reference says, if that group is an ancestor.
        if self.hidden_dims.get(&g).is_some_and(|h| h.contains(dname)) {
            crate::nclog!(Level::Error, "dimension {} is hidden", names::shortened(fqn));
            return Err(NcError::NcZarr);
        }
        if !ds.is_ancestor(g, grp) || !names::usable(Kind::Dimension, dname, &ds.group_full_name(g)) {
            return Err(NcError::NcZarr);
        }
        Ok(self.add_dim(ds, g, dname, len, false))
    }

    /// A dimension named by `_ARRAY_DIMENSIONS`: defined in the variable's own
    /// group (as netcdf-c does), shared by the arrays of that group.
    fn xarray_dim(&mut self, ds: &mut Dataset, grp: usize, name: &str, len: usize) -> NcResult<usize> {
        if !names::usable(Kind::Dimension, name, &ds.group_full_name(grp)) {
            return Err(NcError::BadName);
        }
        if let Some(d) = self.find_dim(grp, name) {
            if ds.dims[d].len != len {
                crate::nclog!(
                    Level::Error,
                    "dimension {:?}: conflicting lengths {} and {}",
                    name,
                    ds.dims[d].len,
                    len
                );
                return Err(NcError::DimSize);
            }
            return Ok(d);
        }
        Ok(self.add_dim(ds, grp, name, len, false))
    }

    /// netcdf-c's anonymous dimension `_Anonymous_Dim_<len>` in the root group.
    fn anon_dim(&mut self, ds: &mut Dataset, len: usize) -> usize {
        let name = format!("_Anonymous_Dim_{len}");
        match self.find_dim(0, &name) {
            Some(d) => d,
            None => self.add_dim(ds, 0, &name, len, false),
        }
    }
}
