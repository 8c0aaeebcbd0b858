//! Reading NCZarr (every generation) and plain Zarr v2 metadata into the model.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::dtype;
use super::json::{self, att_from_json, infer_att};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::model::{Att, Dataset, Dim, Flavor, Group, StringLayout, Var, is_hidden_att};
use crate::storage::{Key, MAX_METADATA_BYTES, Store};
use crate::types::NcType;

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
    objects: RefCell<HashMap<Cow<'a, str>, Option<&'a RawValue>>>,
}

/// `.zmetadata` as first read.
#[derive(serde::Deserialize)]
struct ConsolidatedDoc<'a> {
    #[serde(borrow)]
    metadata: Option<HashMap<Cow<'a, str>, &'a RawValue>>,
    zarr_consolidated_format: Option<Value>,
}

impl<'a> Consolidated<'a> {
    /// Read `.zmetadata`; None (with a warning) when it is not valid
    /// consolidated metadata of format 1. A repeated key keeps its last
    /// object, as with any JSON object.
    fn parse(bytes: &'a [u8]) -> Option<Consolidated<'a>> {
        let doc: ConsolidatedDoc<'a> = match serde_json::from_slice(bytes) {
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
            (Some(m), Some(1)) if m.len() <= MAX_OBJECTS => Some(Consolidated {
                objects: RefCell::new(m.into_iter().map(|(k, v)| (k, Some(v))).collect()),
            }),
            _ => {
                crate::nclog!(Level::Warn, "ignoring invalid .zmetadata");
                None
            }
        }
    }

    fn take(&self, key: &str) -> NcResult<Option<Value>> {
        let raw = {
            let mut objects = self.objects.borrow_mut();
            match objects.get_mut(key) {
                None => return Ok(None),
                Some(slot) => slot.take(),
            }
        };
        let Some(raw) = raw else {
            crate::nclog!(Level::Error, "consolidated metadata: {} was asked for twice", key);
            return Err(NcError::Internal);
        };
        json::parse(raw.get().as_bytes(), key).map(Some)
    }
}

impl Meta<'_> {
    /// Fetch these objects now, all at once, when the store overlaps
    /// requests and the metadata is not consolidated: a group's variables
    /// then cost one round trip rather than one each. An object that fails
    /// to arrive is left to `get`, which asks again and reports it.
    fn prefetch(&self, keys: &[String]) {
        if self.consolidated.is_some() || !self.store.concurrent_requests() || keys.is_empty() {
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

    /// A JSON object at `key`, or None when absent.
    fn get(&self, key: &str) -> NcResult<Option<Value>> {
        if let Some(c) = &self.consolidated {
            return c.take(key);
        }
        let fetched = match self.prefetched.borrow_mut().remove(key) {
            Some(pre) => pre,
            None => self.store.get(&Key::new(key)?, MAX_METADATA_BYTES)?,
        };
        match fetched {
            None => Ok(None),
            Some(bytes) => {
                let v = json::parse(&bytes, key)?;
                if !v.is_object() {
                    crate::nclog!(Level::Error, "{} is not a JSON object", key);
                    return Err(NcError::NcZarr);
                }
                Ok(Some(v))
            }
        }
    }

    fn exists(&self, key: &str) -> NcResult<bool> {
        if let Some(c) = &self.consolidated {
            return Ok(c.objects.borrow().contains_key(key));
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
                .keys()
                .filter_map(|k| k.strip_prefix(&prefix))
                .filter_map(|rest| {
                    let (first, tail) = rest.split_once('/')?;
                    matches!(tail, ".zgroup" | ".zarray").then(|| first.to_string())
                })
                .collect();
            names.sort();
            names.dedup();
            return Ok(names);
        }
        self.store.list(&Key::new(grpkey)?)
    }
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}/{b}")
    }
}

/// What the URL asked for.
#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    pub xarray: bool,
    pub consolidated: bool,
    pub writable: bool,
}

/// Read a dataset's metadata.
pub fn open(store: Arc<dyn Store>, path: &str, opts: OpenOptions) -> NcResult<Dataset> {
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
    let zgroup = meta.get(".zgroup")?;
    let zattrs = meta.get(".zattrs")?;
    if zgroup.is_none() && zattrs.is_none() && meta.consolidated.is_none() {
        if store.len(&Key::new("zarr.json")?)?.is_some() {
            crate::nclog!(Level::Error, "{}: Zarr v3 is not supported yet", path);
        } else if store.len(&Key::new(".zarray")?)?.is_some() {
            crate::nclog!(Level::Error, "{}: the root is an array, not a group", path);
        }
        return Err(NcError::NotNc);
    }
    if let Some(Value::Object(g)) = &zgroup
        && let Some(f) = g.get("zarr_format").and_then(Value::as_i64)
        && f != 2
    {
        crate::nclog!(Level::Error, "{}: unsupported zarr_format {}", path, f);
        return Err(NcError::NotNc);
    }

    // Find the superblock: 4.9.3+ in .zattrs, 4.9.1-2 in .zgroup, 4.9.0 upper case.
    let find = |o: &Option<Value>, k: &str| o.as_ref().and_then(|v| v.get(k)).cloned();
    let mut legacy_keys = false;
    let superblock = find(&zattrs, "_nczarr_superblock").or_else(|| {
        let s = find(&zgroup, "_nczarr_superblock").or_else(|| find(&zgroup, "_NCZARR_SUPERBLOCK"));
        legacy_keys |= s.is_some();
        s
    });
    // NCZarr format 1 kept its metadata in separate objects (.nczarr, ...).
    // (A GET that finds nothing, rather than a HEAD first: one request either way.)
    let v1_superblock = if superblock.is_none() {
        meta.get(".nczarr")?
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
        .and_then(|a| a.get("_NCProperties"))
        .and_then(Value::as_str)
        .map(str::to_string);
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
        },
        ncproperties,
        superblock_version,
        meta_dirty: false,
        created: false,
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

/// The `_nczarr_attr.types` map of a `.zattrs` object (any generation).
fn att_types(zattrs: &Option<Value>) -> HashMap<String, String> {
    let mut m = HashMap::new();
    let Some(a) = zattrs else { return m };
    let t = a
        .get("_nczarr_attr")
        .or_else(|| a.get("_NCZARR_ATTR"))
        .and_then(|x| x.get("types"));
    if let Some(Value::Object(o)) = t {
        for (k, v) in o {
            if let Some(s) = v.as_str() {
                m.insert(k.clone(), s.to_string());
            }
        }
    }
    m
}

/// User attributes of a `.zattrs` object, in order.
fn read_atts(zattrs: &Option<Value>, types: &HashMap<String, String>, legacy: bool) -> Vec<Att> {
    let mut out = Vec::new();
    let Some(Value::Object(o)) = zattrs else { return out };
    for (name, v) in o {
        if is_hidden_att(name) {
            continue;
        }
        let att = match types.get(name).map(|t| t.as_str()) {
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

fn as_usize(v: &Value) -> Option<usize> {
    v.as_u64().and_then(|u| usize::try_from(u).ok())
}

impl Reader<'_, '_> {
    /// Attribute types of an object: `_nczarr_attr` in `.zattrs`, or the
    /// format-1 `.nczattr` object beside it.
    fn types_for(&self, key: &str, zattrs: &Option<Value>) -> NcResult<HashMap<String, String>> {
        if self.v1 {
            let obj = self.meta.get(&join(key, ".nczattr"))?;
            return Ok(att_types(&obj.map(|o| serde_json::json!({ "_nczarr_attr": o }))));
        }
        Ok(att_types(zattrs))
    }

    /// An object's NCZarr information, wherever its generation keeps it: the
    /// format-1 object beside it, `.zattrs` (4.9.3+), or inside `.zgroup` /
    /// `.zarray` in lower case (4.9.1–4.9.2) or upper case (4.9.0).
    fn nczarr_info(
        &self,
        key: &str,
        v1_object: &str,
        zattrs: Option<&Value>,
        zobject: Option<&Value>,
        name: &str,
        upper: &str,
    ) -> NcResult<Option<Value>> {
        if self.v1 {
            return self.meta.get(&join(key, v1_object));
        }
        let found = zattrs
            .and_then(|a| a.get(name))
            .or_else(|| zobject.and_then(|o| o.get(name).or_else(|| o.get(upper))));
        Ok(found.cloned())
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
    fn read_tree(&mut self, ds: &mut Dataset, zgroup: Option<Value>, zattrs: Option<Value>) -> NcResult<()> {
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
            let zg = self.meta.get(&join(&gk, ".zgroup"))?;
            let za = self.meta.get(&join(&gk, ".zattrs"))?;
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
        zgroup: Option<Value>,
        zattrs: Option<Value>,
    ) -> NcResult<Vec<String>> {
        let key = ds.group_key(grp);
        let types = self.types_for(&key, &zattrs)?;
        ds.groups[grp].atts = read_atts(&zattrs, &types, self.legacy);

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

        if self.nczarr && !self.v1 {
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
        let zarray = self.meta.get(&join(&vk, ".zarray"))?.ok_or_else(|| {
            crate::nclog!(Level::Error, "{}/.zarray is missing", vk);
            NcError::NcZarr
        })?;
        let zattrs = self.meta.get(&join(&vk, ".zattrs"))?;
        if zarray
            .get("zarr_format")
            .and_then(Value::as_i64)
            .is_some_and(|f| f != 2)
        {
            return Err(NcError::NcZarr);
        }
        let shape: Vec<usize> = zarray
            .get("shape")
            .and_then(Value::as_array)
            .ok_or(NcError::NcZarr)?
            .iter()
            .map(|v| as_usize(v).ok_or(NcError::NcZarr))
            .collect::<NcResult<_>>()?;
        let chunks: Vec<usize> = zarray
            .get("chunks")
            .and_then(Value::as_array)
            .ok_or(NcError::NcZarr)?
            .iter()
            .map(|v| as_usize(v).filter(|&c| c > 0).ok_or(NcError::NcZarr))
            .collect::<NcResult<_>>()?;
        if chunks.len() != shape.len() || shape.len() > crate::types::NC_MAX_VAR_DIMS {
            crate::nclog!(Level::Error, "{}: shape and chunks disagree", vk);
            return Err(NcError::NcZarr);
        }
        let dt = dtype::parse_nczarr(
            zarray.get("dtype").and_then(Value::as_str).ok_or(NcError::NcZarr)?,
            self.legacy,
        )?;
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

        let types = self.types_for(&vk, &zattrs)?;
        let mut atts = read_atts(&zattrs, &types, self.legacy);
        let ainfo = self.nczarr_info(
            &vk,
            ".nczarray",
            zattrs.as_ref(),
            Some(&zarray),
            "_nczarr_array",
            "_NCZARR_ARRAY",
        )?;
        let xdims: Option<Vec<String>> = zattrs
            .as_ref()
            .and_then(|a| a.get("_ARRAY_DIMENSIONS"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect());

        // Dimensions.
        let mut scalar = false;
        let mut dimids = Vec::new();
        if let (true, Some(info)) = (self.nczarr, &ainfo) {
            let is_scalar = info.get("scalar").and_then(Value::as_i64).unwrap_or(0) != 0
                || info.get("storage").and_then(Value::as_str) == Some("scalar");
            if is_scalar {
                scalar = true;
            } else {
                let refs = info
                    .get("dimension_references")
                    .or_else(|| info.get("dimrefs"))
                    .and_then(Value::as_array)
                    .ok_or(NcError::NcZarr)?;
                if refs.len() != shape.len() {
                    return Err(NcError::NcZarr);
                }
                for (i, r) in refs.iter().enumerate() {
                    let fqn = r.as_str().ok_or(NcError::NcZarr)?;
                    let d = self.resolve_dim(ds, grp, fqn, shape[i])?;
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
                        Some(n) => self.xarray_dim(ds, grp, &n[i], len)?,
                        None => self.anon_dim(ds, len),
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
        var.stored_dtype = zarray.get("dtype").and_then(Value::as_str).map(str::to_string);
        if let Some(l) = dt.strings {
            var.string_layout = l;
        }
        var.order_f = zarray.get("order").and_then(Value::as_str) == Some("F");
        var.dim_separator = match zarray.get("dimension_separator").and_then(Value::as_str) {
            Some("/") => '/',
            _ => '.',
        };
        // Fill value.
        match zarray.get("fill_value") {
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
                if let Some(Value::Object(o)) = &zattrs
                    && let Some(v) = o.get("_FillValue")
                    && let Ok(b) = att_from_json("_FillValue", v, ty)
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
        var.quantize = crate::quantize::from_atts(&var);
        // Codec chain in encoding order: filters first, then the compressor.
        if let Some(Value::Array(f)) = zarray.get("filters") {
            var.codecs.extend(f.iter().cloned());
        }
        match zarray.get("compressor") {
            None | Some(Value::Null) => {}
            Some(c) => var.codecs.push(c.clone()),
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

    /// Resolve an NCZarr dimension reference (`/g1/y`).
    fn resolve_dim(&mut self, ds: &mut Dataset, grp: usize, fqn: &str, len: usize) -> NcResult<usize> {
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
    fn xarray_dim(&mut self, ds: &mut Dataset, grp: usize, name: &str, len: usize) -> NcResult<usize> {
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
    fn anon_dim(&mut self, ds: &mut Dataset, len: usize) -> usize {
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
}
