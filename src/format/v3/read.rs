//! Reading a Zarr v3 dataset (a root `zarr.json` with `"node_type":
//! "group"`) into the model: groups, arrays, `dimension_names` as shared
//! dimensions, attributes, fill values, codecs and sharding; inline
//! consolidated metadata when present and valid; NCZarr's model (netcdf-c's
//! draft v3 conventions) when the root attributes hold `_nczarr_superblock`.
//!
//! An array this library cannot represent (a data type netCDF has no type
//! for, an unknown array codec or extension that must be understood, invalid
//! metadata) is hidden with a log line, as unsupported v2 arrays are.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::codecs::{self, Serializer};
use super::dtype::{self, Kind};
use super::{ZARR_JSON, fill};
use crate::error::{NcError, NcResult};
use crate::format::dialect::{self, Json};
use crate::format::json;
use crate::format::names::{self, Kind as NameKind};
use crate::format::read::OpenOptions;
use crate::log::Level;
use crate::model::types::NcType;
use crate::model::{Att, AttValue, ChunkKeys, Dataset, Dim, Flavor, Group, StringLayout, Var, is_hidden_att};
use crate::storage::{Key, MAX_METADATA_BYTES, Store};

/// The most groups, arrays or dimensions one dataset may declare.
const MAX_OBJECTS: usize = 1 << 20;

/// The deepest group nesting read.
const MAX_GROUP_DEPTH: usize = 256;

/// Members every group `zarr.json` may have; others are extensions.
const GROUP_KEYS: [&str; 4] = ["zarr_format", "node_type", "attributes", "consolidated_metadata"];

/// Members every array `zarr.json` may have; others are extensions.
const ARRAY_KEYS: [&str; 11] = [
    "zarr_format",
    "node_type",
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
    "attributes",
    "dimension_names",
    "storage_transformers",
];

fn bad(what: &str, why: &str) -> NcError {
    crate::nclog!(Level::Warn, "{}: {}", what, why);
    NcError::NcZarr
}

/// One node's metadata: its members as strict JSON (non-finite numbers as
/// Zarr's strings), and its attributes as the dialect tree that keeps how
/// each value was written (a bare `NaN` from Python's `json` is a number,
/// `"NaN"` a string).
#[derive(Debug, Clone)]
struct Node {
    meta: Map<String, Value>,
    attrs: Vec<(String, Json)>,
    /// A group's `consolidated_metadata`, as written.
    consolidated: Option<Json>,
}

impl Node {
    fn get(&self, k: &str) -> Option<&Value> {
        self.meta.get(k)
    }

    /// An attribute as strict JSON (for NCZarr's own members).
    fn att_value(&self, k: &str) -> Option<Value> {
        self.attrs.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.to_value())
    }
}

/// A `zarr.json` (bytes), checked to be Zarr v3 of `node_type` group or
/// array. It may use the JSON dialect Python writes (bare `NaN`).
fn node(bytes: &[u8], what: &str) -> NcResult<Node> {
    let text = std::str::from_utf8(bytes).map_err(|_| bad(what, "not UTF-8 text"))?;
    let tree = dialect::parse(text).map_err(|e| {
        crate::nclog!(Level::Warn, "malformed JSON in {}: {}", what, e);
        NcError::NcZarr
    })?;
    node_of(tree, what)
}

/// A node from its dialect tree.
fn node_of(tree: Json, what: &str) -> NcResult<Node> {
    let Json::Obj(members) = tree else {
        return Err(bad(what, "not a JSON object"));
    };
    let mut meta = Map::new();
    let mut attrs = Vec::new();
    let mut consolidated = None;
    for (k, v) in members {
        if k == "consolidated_metadata" {
            consolidated = Some(v);
        } else if k == "attributes" {
            attrs = match v {
                Json::Obj(a) => a,
                Json::Null => Vec::new(),
                _ => return Err(bad(what, "attributes is not an object")),
            };
            meta.insert(k, Value::Object(Map::new()));
        } else {
            meta.insert(k, v.to_value());
        }
    }
    if meta.get("zarr_format").and_then(Value::as_u64) != Some(3) {
        return Err(bad(what, "zarr_format is not 3"));
    }
    match meta.get("node_type").and_then(Value::as_str) {
        Some("group" | "array") => Ok(Node {
            meta,
            attrs,
            consolidated,
        }),
        _ => Err(bad(what, "node_type is neither group nor array")),
    }
}

fn is_array(m: &Node) -> bool {
    m.get("node_type").and_then(Value::as_str) == Some("array")
}

/// Refuse extensions that must be understood (members beyond `known`,
/// unless they say `"must_understand": false`).
fn check_extensions(m: &Node, known: &[&str], what: &str) -> NcResult<()> {
    for (k, v) in &m.meta {
        if known.contains(&k.as_str()) {
            continue;
        }
        if v.get("must_understand").and_then(Value::as_bool) == Some(false) {
            crate::nclog!(
                Level::Note,
                "{}: extension {} ignored (must_understand: false)",
                what,
                k
            );
            continue;
        }
        return Err(bad(what, &format!("unknown extension {k:?} that must be understood")));
    }
    Ok(())
}

fn add_dim(ds: &mut Dataset, grp: usize, name: &str, len: usize) -> usize {
    let id = ds.dims.len();
    ds.dims.push(Dim {
        name: name.to_string(),
        len,
        unlimited: false,
        group: grp,
    });
    ds.groups[grp].dims.push(id);
    id
}

/// Resolve an NCZarr dimension reference (`/g1/y`): a dimension of that
/// group (an unlimited one grows to the array's length), else one defined
/// there when that group is the array's or an ancestor.
fn resolve_dim(ds: &mut Dataset, grp: usize, fqn: &str, len: usize) -> NcResult<usize> {
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
        crate::format::read::use_dim_length(&mut ds.dims[d], fqn, len)?;
        return Ok(d);
    }
    if !ds.is_ancestor(g, grp) || !names::usable(NameKind::Dimension, dname, &ds.group_full_name(g)) {
        return Err(NcError::NcZarr);
    }
    Ok(add_dim(ds, g, dname, len))
}

/// A dimension named by `dimension_names`: defined in the array's own group
/// (as for v2's `_ARRAY_DIMENSIONS`), shared by the arrays there.
fn named_dim(ds: &mut Dataset, grp: usize, name: &str, len: usize) -> NcResult<usize> {
    if !names::usable(NameKind::Dimension, name, &ds.group_full_name(grp)) {
        return Err(NcError::BadName);
    }
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
    Ok(add_dim(ds, grp, name, len))
}

/// netcdf-c's anonymous dimension `_Anonymous_Dim_<len>` in the root group.
fn anon_dim(ds: &mut Dataset, len: usize) -> usize {
    let name = format!("_Anonymous_Dim_{len}");
    match ds.groups[0].dims.iter().find(|&&d| ds.dims[d].name == name) {
        Some(&d) => d,
        None => add_dim(ds, 0, &name, len),
    }
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}/{b}")
    }
}

/// Where node metadata comes from: the store, or the root's inline
/// consolidated metadata (keys relative to the root).
struct Source<'a> {
    store: &'a dyn Store,
    consolidated: Option<HashMap<String, Node>>,
}

impl Source<'_> {
    /// The child nodes of group `key`, by name (sorted): each child's
    /// `zarr.json`. A child without one is no node; one that is not valid
    /// v3 metadata is skipped with a log line.
    fn children(&self, key: &str) -> NcResult<Vec<(String, Node)>> {
        if let Some(c) = &self.consolidated {
            let prefix = if key.is_empty() {
                String::new()
            } else {
                format!("{key}/")
            };
            let mut out: Vec<(String, Node)> = c
                .iter()
                .filter_map(|(k, m)| {
                    let rest = k.strip_prefix(&prefix)?;
                    (!rest.is_empty() && !rest.contains('/')).then(|| (rest.to_string(), m.clone()))
                })
                .collect();
            out.sort_by(|a, b| a.0.cmp(&b.0));
            return Ok(out);
        }
        let names: Vec<String> = self
            .store
            .list(&Key::new(key)?)?
            .into_iter()
            .filter(|n| n != ZARR_JSON)
            .collect();
        if names.len() > MAX_OBJECTS {
            crate::nclog!(Level::Error, "too many objects in dataset");
            return Err(NcError::NcZarr);
        }
        // (A name no key can have is no node.)
        let named: Vec<(String, Key)> = names
            .into_iter()
            .filter_map(|n| Some((n.clone(), Key::new(&join(&join(key, &n), ZARR_JSON)).ok()?)))
            .collect();
        let todo: Vec<(Key, u64)> = named.iter().map(|(_, k)| (k.clone(), MAX_METADATA_BYTES)).collect();
        let mut out = Vec::new();
        for ((name, k), got) in named.into_iter().zip(self.store.get_many(&todo)) {
            match got {
                Ok(None) => {}
                Ok(Some(b)) => match node(&b, k.as_str()) {
                    Ok(m) => out.push((name, m)),
                    Err(_) => crate::nclog!(Level::Warn, "{} is hidden: invalid metadata", k.as_str()),
                },
                Err(e) => return Err(e.into()),
            }
        }
        Ok(out)
    }
}

/// The root's inline `consolidated_metadata`, when present and valid:
/// `{"kind": "inline", "must_understand": false, "metadata": {path: node}}`.
/// Invalid consolidated metadata is ignored with a warning (the store is
/// then listed).
fn consolidated(c: Option<Json>) -> Option<HashMap<String, Node>> {
    let c = c?;
    if c == Json::Null {
        return None;
    }
    let member = |o: &Json, k: &str| match o {
        Json::Obj(m) => m.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.clone()),
        _ => None,
    };
    let ignore = |why: &str| {
        crate::nclog!(Level::Warn, "ignoring the consolidated metadata: {}", why);
        None
    };
    if member(&c, "kind") != Some(Json::Str("inline".into())) {
        return ignore("kind is not inline");
    }
    let Some(Json::Obj(m)) = member(&c, "metadata") else {
        return ignore("no metadata object");
    };
    if m.len() > MAX_OBJECTS {
        return ignore("too many nodes");
    }
    let mut out = HashMap::with_capacity(m.len());
    for (k, v) in m {
        // Nodes must be valid v3 metadata at keys that make sense.
        if Key::new(&k).is_err() || k.is_empty() {
            return ignore(&format!("bad path {k:?}"));
        }
        match node_of(v, &k) {
            Ok(n) => {
                out.insert(k.trim_start_matches('/').to_string(), n);
            }
            Err(_) => return ignore(&format!("{k} is not a v3 node")),
        }
    }
    Some(out)
}

/// Read the dataset whose root `zarr.json` is `root` (its bytes).
pub fn open(store: Arc<dyn Store>, path: &str, root: &[u8], opts: OpenOptions) -> NcResult<Dataset> {
    let mut root = node(root, ZARR_JSON)?;
    if is_array(&root) {
        crate::nclog!(Level::Error, "{}: the root is an array, not a group", path);
        return Err(NcError::NotNc);
    }
    check_extensions(&root, &GROUP_KEYS, ZARR_JSON).map_err(|_| NcError::NotNc)?;
    let nczarr = root.att_value("_nczarr_superblock").is_some() && !opts.pure_zarr;
    let source = Source {
        store: store.as_ref(),
        consolidated: consolidated(root.consolidated.take()),
    };
    let ncproperties = root
        .att_value("_NCProperties")
        .and_then(|v| v.as_str().map(str::to_string));
    let mut ds = Dataset {
        path: path.to_string(),
        store: store.clone(),
        groups: vec![Group::new("/", None)],
        dims: Vec::new(),
        writable: opts.writable,
        define_mode: false,
        fill_mode: true,
        flavor: Flavor {
            pure_zarr: !nczarr,
            xarray: opts.xarray,
            consolidated: source.consolidated.is_some() || opts.consolidated,
            v3: true,
            shard_target: opts.shard_target,
        },
        ncproperties,
        superblock_version: if nczarr { 3 } else { 0 },
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
        source,
        nczarr,
        count: 0,
    };
    reader.read_tree(&mut ds, &root)?;
    Ok(ds)
}

struct Reader<'a> {
    source: Source<'a>,
    nczarr: bool,
    count: usize,
}

/// The NCZarr attribute types of a node (`_nczarr_attrs.attribute_types`:
/// `[{"name": ..., "configuration": {"type": ...}}]`), by attribute name.
fn att_types(node: &Node) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let Some(info) = node.att_value("_nczarr_attrs") else {
        return out;
    };
    let list = info.get("attribute_types").and_then(Value::as_array);
    for t in list.into_iter().flatten() {
        let name = t.get("name").and_then(Value::as_str);
        let ty = t
            .get("configuration")
            .and_then(|c| c.get("type"))
            .or_else(|| t.get("type"))
            .and_then(Value::as_str);
        if let (Some(n), Some(ty)) = (name, ty) {
            out.insert(n.to_string(), ty.to_string());
        }
    }
    out
}

/// A netCDF type named in NCZarr attribute types: a v3 data type name
/// (`int32`), NCZarr's `char`/`string`, or a v2 dtype (`<i4`).
fn named_type(t: &str) -> Option<NcType> {
    match t {
        "char" => return Some(NcType::Char),
        "string" => return Some(NcType::String),
        _ => {}
    }
    if let Ok(d) = dtype::parse(&Value::String(t.to_string()), None) {
        return Some(d.ty);
    }
    crate::format::dtype::parse(t).ok().map(|d| d.ty)
}

/// The user attributes of a node, in order: typed by NCZarr's attribute
/// types when given, else inferred as for v2 (a bare `NaN` is a number).
fn read_atts(node: &Node, place: &str) -> Vec<Att> {
    let types = att_types(node);
    let mut out = Vec::new();
    for (name, v) in &node.attrs {
        if is_hidden_att(name) || !names::usable(NameKind::Attribute, name, place) {
            continue;
        }
        let att = match types.get(name).map(|t| named_type(t)) {
            Some(Some(ty)) => json::att_typed(name, v, ty),
            _ => json::att_inferred(name, v),
        };
        match att {
            Ok(x) => out.push(x),
            Err(_) => {
                crate::nclog!(
                    Level::Warn,
                    "attribute {:?} of {} does not fit its type; shown as JSON text",
                    names::shortened(name),
                    place
                );
                out.push(json::char_att(name, json::read_text(v)));
            }
        }
    }
    out
}

/// A list of lengths (shape, chunk shape): JSON integers.
fn lengths(v: Option<&Value>, what: &str, name: &str) -> NcResult<Vec<usize>> {
    v.and_then(Value::as_array)
        .ok_or_else(|| bad(what, &format!("no {name}")))?
        .iter()
        .map(|x| x.as_u64().and_then(|u| usize::try_from(u).ok()))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| bad(what, &format!("{name} is not a list of lengths")))
}

impl Reader<'_> {
    fn bump(&mut self) -> NcResult<()> {
        self.count += 1;
        if self.count > MAX_OBJECTS {
            crate::nclog!(Level::Error, "too many objects in dataset");
            return Err(NcError::NcZarr);
        }
        Ok(())
    }

    /// The whole tree, without recursion; groups numbered depth first,
    /// parents before children.
    fn read_tree(&mut self, ds: &mut Dataset, root: &Node) -> NcResult<()> {
        let kids = self.read_group(ds, 0, root)?;
        let mut stack: Vec<(usize, String, Node, usize)> = kids.into_iter().rev().map(|(n, m)| (0, n, m, 1)).collect();
        while let Some((parent, name, meta, depth)) = stack.pop() {
            self.bump()?;
            if depth > MAX_GROUP_DEPTH {
                crate::nclog!(Level::Error, "groups nested deeper than {}", MAX_GROUP_DEPTH);
                return Err(NcError::NcZarr);
            }
            let gk = join(&ds.group_key(parent), &name);
            if crate::model::check_name(&name).is_err() {
                crate::nclog!(Level::Warn, "group {:?} has an invalid name; skipped", gk);
                continue;
            }
            if check_extensions(&meta, &GROUP_KEYS, &gk).is_err() {
                crate::nclog!(Level::Warn, "group {:?} is hidden", gk);
                continue;
            }
            let idx = ds.groups.len();
            let mut g = Group::new(&name, Some(parent));
            g.stored_key = Some(gk);
            ds.groups.push(g);
            ds.groups[parent].children.push(idx);
            let kids = self.read_group(ds, idx, &meta)?;
            stack.extend(kids.into_iter().rev().map(|(n, m)| (idx, n, m, depth + 1)));
        }
        Ok(())
    }

    /// One group's attributes, NCZarr dimensions and arrays; returns its
    /// subgroups' names and metadata.
    fn read_group(&mut self, ds: &mut Dataset, grp: usize, meta: &Node) -> NcResult<Vec<(String, Node)>> {
        let key = ds.group_key(grp);
        ds.groups[grp].atts = read_atts(meta, &ds.group_full_name(grp)).into();
        let info = meta.att_value("_nczarr_group");
        let info = info.as_ref();
        if self.nczarr
            && let Some(info) = info
        {
            self.nczarr_dims(ds, grp, info)?;
        }
        let mut children = self.source.children(&key)?;
        // NCZarr lists arrays and groups in definition order: that order
        // first, then anything unlisted.
        if self.nczarr
            && let Some(info) = info
        {
            let listed: Vec<&str> = ["arrays", "groups", "subgroups"]
                .iter()
                .filter_map(|k| info.get(*k).and_then(Value::as_array))
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            children.sort_by_key(|(n, _)| listed.iter().position(|l| l == n).unwrap_or(usize::MAX));
        }
        let mut groups = Vec::new();
        for (name, m) in children {
            self.bump()?;
            if !is_array(&m) {
                groups.push((name, m));
                continue;
            }
            match self.read_var(ds, grp, &name, &m) {
                Ok(v) => ds.groups[grp].vars.push(v),
                Err(e) => crate::nclog!(
                    Level::Warn,
                    "variable {:?} in group {:?} is hidden: {}",
                    name,
                    ds.group_full_name(grp),
                    e
                ),
            }
        }
        Ok(groups)
    }

    /// `_nczarr_group.dimensions`: `[{"name", "size", "unlimited"}]` (the
    /// draft's list) or `{name: size | {"size", "unlimited"}}` (v2's map).
    fn nczarr_dims(&mut self, ds: &mut Dataset, grp: usize, info: &Value) -> NcResult<()> {
        let mut dims: Vec<(String, usize, bool)> = Vec::new();
        let size = |v: &Value| v.as_u64().and_then(|u| usize::try_from(u).ok());
        match info.get("dimensions").or_else(|| info.get("dims")) {
            Some(Value::Array(a)) => {
                for d in a {
                    let name = d.get("name").and_then(Value::as_str);
                    let len = d.get("size").and_then(size);
                    let (Some(name), Some(len)) = (name, len) else {
                        return Err(bad("_nczarr_group", "bad dimension"));
                    };
                    let unlim = d
                        .get("unlimited")
                        .is_some_and(|u| u.as_bool() == Some(true) || u.as_i64().is_some_and(|i| i != 0));
                    dims.push((name.to_string(), len, unlim));
                }
            }
            Some(Value::Object(o)) => {
                for (name, d) in o {
                    let (len, unlim) = match d {
                        Value::Object(x) => (
                            x.get("size").and_then(size),
                            x.get("unlimited").and_then(Value::as_i64).unwrap_or(0) != 0,
                        ),
                        v => (size(v), false),
                    };
                    dims.push((
                        name.clone(),
                        len.ok_or_else(|| bad("_nczarr_group", "bad dimension"))?,
                        unlim,
                    ));
                }
            }
            _ => {}
        }
        for (name, len, unlimited) in dims {
            self.bump()?;
            crate::model::check_name(&name).map_err(|_| bad("_nczarr_group", "bad dimension name"))?;
            if ds.groups[grp].dims.iter().any(|&d| ds.dims[d].name == name) {
                return Err(bad("_nczarr_group", "a dimension is defined twice"));
            }
            let id = ds.dims.len();
            ds.dims.push(Dim {
                name,
                len,
                unlimited: unlimited || len == 0,
                group: grp,
            });
            ds.groups[grp].dims.push(id);
        }
        Ok(())
    }

    fn read_var(&mut self, ds: &mut Dataset, grp: usize, name: &str, m: &Node) -> NcResult<Var> {
        crate::model::check_name(name)?;
        let vk = ds.var_key(grp, name);
        let what = vk.as_str();
        check_extensions(m, &ARRAY_KEYS, what)?;
        let info = m.att_value("_nczarr_array").filter(|_| self.nczarr);
        let info = info.as_ref();
        let alias = info
            .and_then(|i| i.get("nczarr_type").or_else(|| i.get("type_alias")))
            .and_then(Value::as_str);
        let shape = lengths(m.get("shape"), what, "shape")?;
        if shape.len() > crate::model::types::NC_MAX_VAR_DIMS {
            return Err(bad(what, "too many dimensions"));
        }
        if shape.iter().try_fold(1usize, |a, &s| a.checked_mul(s)).is_none() {
            return Err(NcError::DimSize);
        }
        let t = dtype::parse(m.get("data_type").unwrap_or(&Value::Null), alias)?;
        // The chunk grid: regular only.
        let grid = m.get("chunk_grid").ok_or_else(|| bad(what, "no chunk_grid"))?;
        if grid.get("name").and_then(Value::as_str) != Some("regular") {
            return Err(bad(what, "only the regular chunk grid is supported"));
        }
        let chunk = lengths(
            grid.get("configuration").and_then(|c| c.get("chunk_shape")),
            what,
            "chunk_shape",
        )?;
        if chunk.len() != shape.len() || chunk.contains(&0) {
            return Err(bad(what, "chunk_shape does not fit the shape"));
        }
        // Chunk keys.
        let cke = m
            .get("chunk_key_encoding")
            .ok_or_else(|| bad(what, "no chunk_key_encoding"))?;
        let sep = cke.get("configuration").and_then(|c| c.get("separator"));
        let (keys, sep) = match (cke.get("name").and_then(Value::as_str), sep.map(Value::as_str)) {
            (Some("default"), None) => (ChunkKeys::V3Default, '/'),
            (Some("v2"), None) => (ChunkKeys::V2, '.'),
            (Some("default"), Some(Some("/"))) => (ChunkKeys::V3Default, '/'),
            (Some("default"), Some(Some("."))) => (ChunkKeys::V3Default, '.'),
            (Some("v2"), Some(Some("/"))) => (ChunkKeys::V2, '/'),
            (Some("v2"), Some(Some("."))) => (ChunkKeys::V2, '.'),
            _ => return Err(bad(what, "unsupported chunk_key_encoding")),
        };
        match m.get("storage_transformers") {
            None | Some(Value::Null) => {}
            Some(Value::Array(a)) if a.is_empty() => {}
            Some(_) => return Err(bad(what, "storage transformers are not supported")),
        }
        let pipeline = codecs::parse(m.get("codecs").unwrap_or(&Value::Null), shape.len(), &chunk)?;
        let (inner, shards) = match pipeline.serializer {
            Serializer::Sharding(ref l) => (l.inner.clone(), Some(l.clone())),
            _ => (chunk.clone(), None),
        };
        // The serializer must fit the data type.
        let fits = match (&pipeline.serializer, t.kind) {
            (Serializer::VlenUtf8, Kind::Utf8) | (Serializer::VlenBytes, Kind::VlenBytes) => true,
            (Serializer::Bytes | Serializer::Sharding(_), k) => !matches!(k, Kind::Utf8 | Kind::VlenBytes),
            _ => false,
        };
        if !fits {
            return Err(bad(what, "the codecs do not fit the data type"));
        }
        let vlen = t.strings == Some(StringLayout::VlenUtf8);
        if vlen
            && pipeline
                .codecs
                .iter()
                .any(|c| c.get("id").and_then(Value::as_str) == Some("transpose"))
        {
            return Err(bad(what, "transposed variable-length strings are not supported"));
        }
        // One chunk must be addressable (as netcdf-c: at most 4 GiB).
        let elem = match t.strings {
            Some(StringLayout::Fixed(n)) => n,
            Some(StringLayout::Utf32 { n, .. }) => n * 4,
            Some(StringLayout::VlenUtf8) => 8,
            None => t.ty.size(),
        };
        if inner
            .iter()
            .try_fold(elem, |a, &c| a.checked_mul(c))
            .is_none_or(|b| b > u32::MAX as usize)
        {
            return Err(bad(what, "chunk too large"));
        }

        // Dimensions: NCZarr's references, else dimension_names, else
        // _ARRAY_DIMENSIONS, else anonymous.
        // (NCZarr's scalars are 0-d arrays here: their one chunk is `c`.)
        let scalar = shape.is_empty();
        let mut dimids = Vec::new();
        if !scalar {
            let refs: Option<Vec<String>> = info
                .and_then(|i| i.get("dimension_references"))
                .and_then(|r| serde_json::from_value(r.clone()).ok());
            let names: Option<Vec<Option<String>>> = m
                .get("dimension_names")
                .filter(|v| !v.is_null())
                .map(|v| serde_json::from_value(v.clone()).map_err(|_| bad(what, "bad dimension_names")))
                .transpose()?
                .or_else(|| {
                    m.att_value("_ARRAY_DIMENSIONS")
                        .and_then(|v| serde_json::from_value::<Vec<String>>(v).ok())
                        .map(|v| v.into_iter().map(Some).collect())
                });
            if names.as_ref().is_some_and(|n| n.len() != shape.len()) {
                return Err(bad(what, "dimension_names do not fit the shape"));
            }
            if let Some(refs) = refs {
                if refs.len() != shape.len() {
                    return Err(bad(what, "dimension_references do not fit the shape"));
                }
                for (fqn, &len) in refs.iter().zip(&shape) {
                    dimids.push(resolve_dim(ds, grp, fqn, len)?);
                }
            } else {
                for (i, &len) in shape.iter().enumerate() {
                    let d = match names.as_ref().and_then(|n| n[i].as_deref()) {
                        Some(n) => named_dim(ds, grp, n, len)?,
                        None => anon_dim(ds, len),
                    };
                    dimids.push(d);
                }
            }
        }
        if scalar && inner.iter().product::<usize>() != 1 {
            return Err(bad(what, "a scalar with more than one element per chunk"));
        }

        let mut var = Var::new(name, t.ty, dimids);
        var.chunks = if scalar { Vec::new() } else { inner };
        var.chunk_keys = keys;
        var.dim_separator = sep;
        var.shards = shards;
        var.big_endian = pipeline.big_endian.unwrap_or(false) && t.ty.size() > 1;
        var.native_order = t.ty.size() == 1;
        if let Some(l) = t.strings {
            var.string_layout = match l {
                StringLayout::Utf32 { n, .. } => StringLayout::Utf32 {
                    n,
                    big: pipeline.big_endian == Some(true),
                },
                l => l,
            };
        }
        var.stored_dtype = Some(t.json.clone());
        var.fill = fill::parse(m.get("fill_value").unwrap_or(&Value::Null), &t).inspect_err(|_| {
            crate::nclog!(Level::Warn, "{}: bad fill_value {:?}", what, m.get("fill_value"));
        })?;
        if t.ty == NcType::Char {
            var.fill.resize(1, 0);
        }
        let mut atts = read_atts(m, what);
        // A `_FillValue` attribute wins for the reported fill (as for v2);
        // xarray writes a float one as base64 of its bytes.
        if let Some(a) = atts.iter_mut().find(|a| a.name == "_FillValue") {
            if a.ty != t.ty
                && let Some((_, v)) = m.attrs.iter().rev().find(|(n, _)| n == "_FillValue")
            {
                let typed = match v {
                    Json::Str(s) => fill::xarray_fill_att(s, t.ty).map(|b| Att {
                        name: a.name.clone(),
                        ty: t.ty,
                        value: AttValue::Bytes(b),
                    }),
                    v => json::att_typed("_FillValue", v, t.ty).ok(),
                };
                if let Some(typed) = typed {
                    *a = typed;
                }
            }
            if a.ty == t.ty && a.len() == 1 {
                var.fill = match &a.value {
                    AttValue::Bytes(b) => b.clone(),
                    AttValue::Strings(s) => s[0].clone(),
                };
            }
        }
        var.atts = atts.into();
        var.quantize = crate::model::quantize::from_atts(&var);
        var.codecs = pipeline.codecs;
        var.stored_key = Some(vk);
        var.meta_dirty = false;
        var.created = true;
        var.chunks_on_disk = true;
        Ok(var)
    }
}
