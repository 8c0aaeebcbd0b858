//! Reading NCZarr (every generation) and plain Zarr v2 metadata into the model.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::dtype;
use super::json::{self, att_from_json, infer_att};
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
    objects: RefCell<Vec<(Cow<'a, str>, Option<&'a RawValue>)>>,
    /// Where the last lookup found its key: the reader asks for a group's
    /// objects in key order (`a/.zarray`, `a/.zattrs`, `b/.zarray`, ...), so
    /// the next key is usually the next entry.
    cursor: Cell<usize>,
}

/// `.zmetadata` as first read.
#[derive(serde::Deserialize)]
struct ConsolidatedDoc<'a> {
    #[serde(borrow)]
    metadata: Option<object::Members<'a>>,
    zarr_consolidated_format: Option<Value>,
}

impl<'a> Consolidated<'a> {
    /// Read `.zmetadata`; None (with a warning) when it is not valid
    /// consolidated metadata of format 1. A repeated key keeps its last
    /// object, as with any JSON object.
    fn parse(bytes: &'a [u8]) -> Option<Consolidated<'a>> {
        // (Checked as UTF-8 once: the objects' texts need no check of their own.)
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                crate::nclog!(Level::Warn, "ignoring invalid .zmetadata: {}", e);
                return None;
            }
        };
        let doc: ConsolidatedDoc<'a> = match serde_json::from_str(text) {
            Ok(d) => d,
            Err(e) => {
                crate::nclog!(Level::Warn, "ignoring invalid .zmetadata: {}", e);
                return None;
            }
        };
        match (
            doc.metadata,
            doc.zarr_consolidated_format.as_ref().and_then(Value::as_i64),
        ) {
            (Some(object::Members(m)), Some(1)) if m.len() <= MAX_OBJECTS => {
                let mut objects: Vec<_> = m.into_iter().map(|(k, v)| (k, Some(v))).collect();
                // Stable (a repeated key's entries stay in document order;
                // fast on the sorted keys writers produce), then one entry
                // per key holding the last value.
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
                })
            }
            _ => {
                crate::nclog!(Level::Warn, "ignoring invalid .zmetadata");
                None
            }
        }
    }

    /// The entry of `key`.
    fn find(&self, objects: &[(Cow<'a, str>, Option<&'a RawValue>)], key: &str) -> Option<usize> {
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
        if !Obj::is_object_text(raw.get()) {
            // (As before: a member of .zmetadata that is no object reads as
            // an object without members.)
            crate::nclog!(Level::Warn, "consolidated metadata: {} is not a JSON object", key);
            return Ok(Some(Text::Consolidated("{}")));
        }
        Ok(Some(Text::Consolidated(raw.get())))
    }
}

/// A metadata object's JSON text: fetched from the store, or a slice of the
/// consolidated `.zmetadata`. `obj` reads its members.
enum Text<'a> {
    Fetched(Vec<u8>),
    Consolidated(&'a str),
}

impl Text<'_> {
    fn obj(&self, what: &str) -> NcResult<Obj<'_>> {
        match self {
            Text::Fetched(b) => Obj::parse(b, what),
            Text::Consolidated(s) => Obj::parse_str(s, what),
        }
    }

    /// The whole object as a JSON tree (small objects read whole).
    fn value(&self, what: &str) -> NcResult<Value> {
        let bytes = match self {
            Text::Fetched(b) => &b[..],
            Text::Consolidated(s) => s.as_bytes(),
        };
        let v = json::parse(bytes, what)?;
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
            let prefix = if grpkey.is_empty() {
                String::new()
            } else {
                format!("{grpkey}/")
            };
            let objects = c.objects.borrow();
            let mut names: Vec<String> = objects
                .iter()
                .filter_map(|(k, _)| k.strip_prefix(&prefix))
                .filter_map(|rest| {
                    let (first, tail) = rest.split_once('/')?;
                    matches!(tail, ".zgroup" | ".zarray").then(|| first.to_string())
                })
                .collect();
            names.sort();
            names.dedup();
            return Ok(names);
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
    let zattrs = zattrs_text.as_ref().map(|t| t.obj(".zattrs")).transpose()?;
    if zgroup.is_none() && zattrs.is_none() && meta.consolidated.is_none() {
        if opts.zarr_format.is_none()
            && let Some(root) = store.get(&Key::new(super::v3::ZARR_JSON)?, MAX_METADATA_BYTES)?
        {
            return super::v3::read::open(store, path, &root, opts);
        }
        if store.len(&Key::new(".zarray")?)?.is_some() {
            crate::nclog!(Level::Error, "{}: the root is an array, not a group", path);
        }
        return Err(NcError::NotNc);
    }
    if let Some(f) = zgroup.as_ref().and_then(|g| g.get::<i64>("zarr_format"))
        && f != 2
    {
        crate::nclog!(Level::Error, "{}: unsupported zarr_format {}", path, f);
        return Err(NcError::NotBuilt);
    }

    // Find the superblock: 4.9.3+ in .zattrs, 4.9.1-2 in .zgroup, 4.9.0 upper case.
    let find = |o: &Option<Obj>, k: &str| o.as_ref().and_then(|v| v.value(k));
    let mut legacy_keys = false;
    let superblock = find(&zattrs, "_nczarr_superblock").or_else(|| {
        let s = find(&zgroup, "_nczarr_superblock").or_else(|| find(&zgroup, "_NCZARR_SUPERBLOCK"));
        legacy_keys |= s.is_some();
        s
    });
    // NCZarr format 1 kept its metadata in separate objects (.nczarr, ...).
    // (A GET that finds nothing, rather than a HEAD first: one request either way.)
    let v1_superblock = if superblock.is_none() {
        meta.get_value(".nczarr")?
    } else {
        None
    };
    let v1 = v1_superblock.is_some();
    let superblock = if v1 { v1_superblock } else { superblock };
    legacy_keys |= v1;
    let nczarr = superblock.is_some();
    let superblock_version = superblock
        .as_ref()
        .and_then(|s| s.get("version").or_else(|| s.get("nczarr_version")))
        .and_then(Value::as_str)
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse::<i32>().ok())
        .or(if nczarr { Some(2) } else { None });

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
    };
    ds.groups[0].stored_key = Some(String::new());
    let mut reader = Reader {
        meta: &meta,
        nczarr,
        legacy: legacy_keys,
        v1,
        xarray: opts.xarray,
        count: 0,
    };
    reader.read_tree(&mut ds, zgroup, zattrs)?;
    Ok(ds)
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
    nczarr: bool,
    /// Written by netcdf-c <= 4.9.2 (keys inside .zgroup/.zarray, or format 1).
    legacy: bool,
    /// NCZarr format 1: `.nczgroup`, `.nczarray`, `.nczattr` objects.
    v1: bool,
    xarray: bool,
    count: usize,
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
    fn of<'t>(zattrs: Option<&Obj<'t>>) -> AttTypes<'t> {
        // (The lower-case key wins when present, an object or not.)
        let info = zattrs.and_then(|a| a.raw("_nczarr_attr").or_else(|| a.raw("_NCZARR_ATTR")));
        AttTypes::Inline(info.and_then(Obj::of_raw).and_then(|i| i.obj("types")))
    }

    fn get(&self, name: &str) -> Option<Cow<'_, str>> {
        match self {
            AttTypes::Inline(types) => types.as_ref()?.str(name),
            AttTypes::Fetched(m) => m.get(name).map(|s| Cow::Borrowed(s.as_str())),
        }
    }
}

/// User attributes of a `.zattrs` object, in order.
fn read_atts(zattrs: Option<&Obj>, types: &AttTypes, legacy: bool) -> Vec<Att> {
    let mut out = Vec::new();
    let Some(o) = zattrs else { return out };
    for (name, raw) in o.members() {
        if is_hidden_att(name) {
            continue;
        }
        let Some(v) = object::to_value(raw) else {
            crate::nclog!(Level::Warn, "attribute {:?} is nested too deeply; skipped", name);
            continue;
        };
        let v = &v;
        let att = match types.get(name).as_deref() {
            Some("|J0") => continue,
            Some(t) => match dtype::parse_nczarr(t, legacy) {
                Ok(d) => att_from_json(name, v, d.ty),
                Err(e) => Err(e),
            },
            None => infer_att(name, v),
        };
        match att {
            Ok(a) => out.push(a),
            Err(_) => {
                crate::nclog!(
                    Level::Warn,
                    "attribute {:?} cannot be represented; shown as JSON text",
                    name
                );
                if let Ok(a) = att_from_json(name, &Value::String(v.to_string()), NcType::Char) {
                    out.push(a);
                }
            }
        }
    }
    out
}

/// Where 4.9.3+ keeps an object's NCZarr information (`name` in `.zattrs`),
/// else where 4.9.1–4.9.2 (`name`) or 4.9.0 (`upper`) kept it: inside
/// `.zgroup` / `.zarray`.
fn info_member<'t>(
    zattrs: Option<&Obj<'t>>,
    zobject: Option<&Obj<'t>>,
    name: &str,
    upper: &str,
) -> Option<&'t RawValue> {
    zattrs
        .and_then(|a| a.raw(name))
        .or_else(|| zobject.and_then(|o| o.raw(name).or_else(|| o.raw(upper))))
}

/// What `_nczarr_array` says: a scalar, or the dimensions by full name.
struct ArrayInfo {
    scalar: bool,
    /// `dimension_references` (or format 1's `dimrefs`): None when absent or
    /// not an array of strings.
    dimrefs: Option<Vec<String>>,
}

impl ArrayInfo {
    /// From the object (None: the member was there but is no object).
    fn of(info: Option<&Obj>) -> ArrayInfo {
        let Some(o) = info else {
            return ArrayInfo {
                scalar: false,
                dimrefs: None,
            };
        };
        let refs = o.raw("dimension_references").or_else(|| o.raw("dimrefs"));
        ArrayInfo {
            scalar: o.get::<i64>("scalar").unwrap_or(0) != 0 || o.str("storage").as_deref() == Some("scalar"),
            dimrefs: refs.and_then(|r| serde_json::from_str(r.get()).ok()),
        }
    }
}

fn as_usize(v: &Value) -> Option<usize> {
    v.as_u64().and_then(|u| usize::try_from(u).ok())
}

impl Reader<'_, '_> {
    /// Attribute types of an object: `_nczarr_attr` in `.zattrs`, or the
    /// format-1 `.nczattr` object beside it.
    fn types_for<'t>(&self, key: &str, zattrs: Option<&Obj<'t>>) -> NcResult<AttTypes<'t>> {
        if !self.v1 {
            return Ok(AttTypes::of(zattrs));
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
    /// `.zarray` in lower case (4.9.1–4.9.2) or upper case (4.9.0).
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
        Ok(info_member(zattrs, zobject, name, upper).and_then(object::to_value))
    }

    /// An array's NCZarr information (`_nczarr_array`), wherever its
    /// generation keeps it (see `nczarr_info`).
    fn array_info(&self, key: &str, zattrs: Option<&Obj>, zarray: &Obj) -> NcResult<Option<ArrayInfo>> {
        if self.v1 {
            let k = join(key, ".nczarray");
            let Some(text) = self.meta.get(&k)? else {
                return Ok(None);
            };
            return Ok(Some(ArrayInfo::of(Some(&text.obj(&k)?))));
        }
        let raw = info_member(zattrs, Some(zarray), "_nczarr_array", "_NCZARR_ARRAY");
        Ok(raw.map(|r| ArrayInfo::of(Obj::of_raw(r).as_ref())))
    }

    fn bump(&mut self) -> NcResult<()> {
        self.count += 1;
        if self.count > MAX_OBJECTS {
            crate::nclog!(Level::Error, "too many objects in dataset");
            return Err(NcError::NcZarr);
        }
        Ok(())
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
            if crate::model::check_name(&name).is_err() {
                crate::nclog!(Level::Warn, "group {:?} has an invalid name; skipped", name);
                continue;
            }
            let gk = join(&ds.group_key(parent), &name);
            let zg_key = join(&gk, ".zgroup");
            let za_key = join(&gk, ".zattrs");
            let zg_text = self.meta.get(&zg_key)?;
            let za_text = self.meta.get(&za_key)?;
            let zg = zg_text.as_ref().map(|t| t.obj(&zg_key)).transpose()?;
            let za = za_text.as_ref().map(|t| t.obj(&za_key)).transpose()?;
            if zg.is_none() && za.is_none() {
                crate::nclog!(Level::Warn, "group {:?} has no metadata; skipped", gk);
                continue;
            }
            let idx = ds.groups.len();
            let mut g = Group::new(&name, Some(parent));
            g.stored_key = Some(gk);
            ds.groups.push(g);
            ds.groups[parent].children.push(idx);
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
        let types = self.types_for(&key, zattrs.as_ref())?;
        ds.groups[grp].atts = read_atts(zattrs.as_ref(), &types, self.legacy);

        let ginfo = self.nczarr_info(
            &key,
            ".nczgroup",
            zattrs.as_ref(),
            zgroup.as_ref(),
            "_nczarr_group",
            "_NCZARR_GROUP",
        )?;

        let (arrays, subgroups) = if let (true, Some(info)) = (self.nczarr, &ginfo) {
            let dims = info.get("dimensions").or_else(|| info.get("dims"));
            if let Some(Value::Object(dims)) = dims {
                for (name, d) in dims {
                    self.bump()?;
                    let (len, unlimited) = match d {
                        Value::Object(o) => (
                            o.get("size").and_then(as_usize).ok_or(NcError::NcZarr)?,
                            o.get("unlimited").and_then(Value::as_i64).unwrap_or(0) != 0,
                        ),
                        v => (as_usize(v).ok_or(NcError::NcZarr)?, false),
                    };
                    if crate::model::check_name(name).is_err() {
                        crate::nclog!(Level::Error, "bad dimension name {:?}", name);
                        return Err(NcError::NcZarr);
                    }
                    let id = ds.dims.len();
                    ds.dims.push(Dim {
                        name: name.clone(),
                        len,
                        unlimited: unlimited || len == 0,
                        group: grp,
                    });
                    ds.groups[grp].dims.push(id);
                }
            }
            let names = |k1: &str, k2: &str| -> Vec<String> {
                info.get(k1)
                    .or_else(|| info.get(k2))
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                    .unwrap_or_default()
            };
            (names("arrays", "vars"), names("groups", "groups"))
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
        for name in arrays {
            self.bump()?;
            match self.read_var(ds, grp, &name) {
                Ok(v) => ds.groups[grp].vars.push(v),
                Err(e) => {
                    crate::nclog!(
                        Level::Warn,
                        "variable {:?} in group {:?} is hidden: {}",
                        name,
                        ds.group_full_name(grp),
                        e
                    );
                }
            }
        }
        Ok(subgroups)
    }

    fn read_var(&mut self, ds: &mut Dataset, grp: usize, name: &str) -> NcResult<Var> {
        crate::model::check_name(name)?;
        let vk = ds.var_key(grp, name);
        let zarray_key = join(&vk, ".zarray");
        let zattrs_key = join(&vk, ".zattrs");
        let zarray_text = self.meta.get(&zarray_key)?.ok_or_else(|| {
            crate::nclog!(Level::Error, "{} is missing", zarray_key);
            NcError::NcZarr
        })?;
        let zattrs_text = self.meta.get(&zattrs_key)?;
        let zarray = zarray_text.obj(&zarray_key)?;
        let zattrs = zattrs_text.as_ref().map(|t| t.obj(&zattrs_key)).transpose()?;
        if zarray.get::<i64>("zarr_format").is_some_and(|f| f != 2) {
            return Err(NcError::NcZarr);
        }
        // Lengths as Zarr writes them: JSON integers (a member of another
        // type, or a negative one, makes the array unreadable).
        let lengths = |k: &str| -> NcResult<Vec<usize>> {
            zarray
                .get::<Vec<u64>>(k)
                .ok_or(NcError::NcZarr)?
                .into_iter()
                .map(|u| usize::try_from(u).map_err(|_| NcError::NcZarr))
                .collect()
        };
        let shape = lengths("shape")?;
        let chunks = lengths("chunks")?;
        if chunks.contains(&0) {
            return Err(NcError::NcZarr);
        }
        if chunks.len() != shape.len() || shape.len() > crate::model::types::NC_MAX_VAR_DIMS {
            crate::nclog!(Level::Error, "{}: shape and chunks disagree", vk);
            return Err(NcError::NcZarr);
        }
        let stored_dtype = zarray.str("dtype").ok_or(NcError::NcZarr)?;
        let dt = dtype::parse_nczarr(&stored_dtype, self.legacy)?;
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
            crate::nclog!(Level::Error, "{}: chunk too large", vk);
            return Err(NcError::NcZarr);
        }
        if shape.iter().try_fold(1usize, |a, &s| a.checked_mul(s)).is_none() {
            return Err(NcError::DimSize);
        }

        let types = self.types_for(&vk, zattrs.as_ref())?;
        let mut atts = read_atts(zattrs.as_ref(), &types, self.legacy);
        let ainfo = self.array_info(&vk, zattrs.as_ref(), &zarray)?;
        let xdims: Option<Vec<String>> = zattrs
            .as_ref()
            .and_then(|a| a.value("_ARRAY_DIMENSIONS"))
            .and_then(|v| match v {
                Value::Array(a) => Some(a),
                _ => None,
            })
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect());

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
                    let d = resolve_dim(ds, grp, fqn, len)?;
                    dimids.push(d);
                }
            }
        } else {
            let scalar_marker = xdims.as_deref() == Some(&["_scalar_".to_string()][..]) && shape == [1];
            if shape.is_empty() || scalar_marker {
                scalar = true;
            } else {
                let names = xdims.filter(|n| self.xarray && n.len() == shape.len());
                for (i, &len) in shape.iter().enumerate() {
                    let d = match &names {
                        Some(n) => xarray_dim(ds, grp, &n[i], len)?,
                        None => anon_dim(ds, len),
                    };
                    dimids.push(d);
                }
            }
        }
        if scalar && chunks.iter().product::<usize>() != 1 {
            return Err(NcError::NcZarr);
        }

        let mut var = Var::new(name, ty, dimids);
        var.chunks = if scalar { Vec::new() } else { chunks };
        var.big_endian = dt.big_endian;
        var.native_order = dt.native && ty.size() == 1;
        var.stored_dtype = Some(stored_dtype.into_owned());
        if let Some(l) = dt.strings {
            var.string_layout = l;
        }
        var.order_f = zarray.str("order").as_deref() == Some("F");
        var.dim_separator = match zarray.str("dimension_separator").as_deref() {
            Some("/") => '/',
            _ => '.',
        };
        // Fill value.
        match zarray.value("fill_value").as_ref() {
            None | Some(Value::Null) => {
                var.no_fill = true;
                var.fill = vec![0u8; if ty == NcType::String { 0 } else { ty.size() }];
            }
            Some(v) => {
                var.fill = match ty {
                    NcType::String | NcType::Char => match v {
                        Value::String(s) => s.as_bytes().to_vec(),
                        Value::Number(n) if ty == NcType::Char => {
                            vec![n.as_u64().and_then(|u| u8::try_from(u).ok()).unwrap_or(0)]
                        }
                        _ => return Err(NcError::NcZarr),
                    },
                    _ => {
                        let mut b = Vec::new();
                        json::scalar_to_bytes(v, ty, &mut b).inspect_err(|_| {
                            crate::nclog!(Level::Error, "{}: bad fill_value {}", vk, v);
                        })?;
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
                if let Some(v) = zattrs.as_ref().and_then(|o| o.value("_FillValue"))
                    && let Ok(b) = att_from_json("_FillValue", &v, ty)
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
        var.atts = atts;
        var.quantize = crate::model::quantize::from_atts(&var);
        // Codec chain in encoding order: filters first, then the compressor.
        if let Some(Value::Array(f)) = zarray.value("filters") {
            var.codecs.extend(f);
        }
        match zarray.value("compressor") {
            None | Some(Value::Null) => {}
            Some(c) => var.codecs.push(c),
        }
        if var.string_layout == StringLayout::VlenUtf8 {
            // The object codec is the string layout itself; it must come first.
            let is_vlen = |c: &Value| c.get("id").and_then(Value::as_str) == Some("vlen-utf8");
            if !var.codecs.first().is_some_and(is_vlen) {
                crate::nclog!(Level::Warn, "{}: object dtype without a leading vlen-utf8 codec", vk);
                return Err(NcError::NcZarr);
            }
            var.codecs.remove(0);
        }
        var.stored_key = Some(vk);
        var.meta_dirty = false;
        var.created = true;
        var.chunks_on_disk = true;
        Ok(var)
    }
}

/// Resolve an NCZarr dimension reference (`/g1/y`).
pub(super) fn resolve_dim(ds: &mut Dataset, grp: usize, fqn: &str, len: usize) -> NcResult<usize> {
    let (gpath, dname) = fqn.rsplit_once('/').unwrap_or(("", fqn));
    let mut g = 0usize;
    for seg in gpath.split('/').filter(|s| !s.is_empty()) {
        g = *ds.groups[g]
            .children
            .iter()
            .find(|&&c| ds.groups[c].name == seg)
            .ok_or(NcError::NcZarr)?;
    }
    if let Some(&d) = ds.groups[g].dims.iter().find(|&&d| ds.dims[d].name == dname) {
        let dim = &mut ds.dims[d];
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
        return Ok(d);
    }
    // A reference to a dimension the group did not declare (older writers):
    // define it where the reference says, if that group is an ancestor.
    if !ds.is_ancestor(g, grp) || crate::model::check_name(dname).is_err() {
        return Err(NcError::NcZarr);
    }
    let id = ds.dims.len();
    ds.dims.push(Dim {
        name: dname.to_string(),
        len,
        unlimited: false,
        group: g,
    });
    ds.groups[g].dims.push(id);
    Ok(id)
}

/// A dimension named by `_ARRAY_DIMENSIONS`: defined in the variable's own
/// group (as netcdf-c does), shared by the arrays of that group.
pub(super) fn xarray_dim(ds: &mut Dataset, grp: usize, name: &str, len: usize) -> NcResult<usize> {
    crate::model::check_name(name)?;
    if let Some(&d) = ds.groups[grp].dims.iter().find(|&&d| ds.dims[d].name == name) {
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
    let id = ds.dims.len();
    ds.dims.push(Dim {
        name: name.to_string(),
        len,
        unlimited: false,
        group: grp,
    });
    ds.groups[grp].dims.push(id);
    Ok(id)
}

/// netcdf-c's anonymous dimension `_Anonymous_Dim_<len>` in the root group.
pub(super) fn anon_dim(ds: &mut Dataset, len: usize) -> usize {
    let name = format!("_Anonymous_Dim_{len}");
    if let Some(&d) = ds.groups[0].dims.iter().find(|&&d| ds.dims[d].name == name) {
        return d;
    }
    let id = ds.dims.len();
    ds.dims.push(Dim {
        name,
        len,
        unlimited: false,
        group: 0,
    });
    ds.groups[0].dims.push(id);
    id
}
