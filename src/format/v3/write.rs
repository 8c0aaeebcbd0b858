//! Writing the model as Zarr v3: one `zarr.json` per group and array.
//!
//! Pure Zarr (mode `zarr`) writes what zarr-python 3 writes: `dimension_names`,
//! the codec pipeline (`bytes` or `vlen-utf8` then the variable's own
//! filters; none means no compression, as for v2), NC_STRING as the
//! `string` data type with `vlen-utf8`, and xarray's base64 `_FillValue` for
//! floats. NCZarr (mode `nczarr`) adds netCDF's model in `attributes` as
//! netcdf-c's draft v3 support does: `_nczarr_superblock`, `_nczarr_group`
//! (dimensions, arrays, subgroups), `_nczarr_array` (`dimension_references`,
//! the `char`/`string` alias of the stored type) and `_nczarr_attrs` (the
//! attribute types). With `consolidated` the root holds every node's
//! metadata inline (`consolidated_metadata`), as zarr-python writes it.
#![forbid(unsafe_code)]

use serde_json::Value;

use super::codecs::{PipelineOut, pipeline_out, sharding_out};
use super::dtype::{self, Kind, V3Type};
use super::{ZARR_JSON, fill};
use crate::codec::sharding::{ShardLayout, auto_shape};
use crate::error::NcResult;
use crate::format::json::{Out, att_to_out};
use crate::format::write::{Batch, PutAll, dirty_arrays, groups_deepest_first, ncproperties, store_array_objects};
use crate::model::types::NcType;
use crate::model::{Att, AttValue, ChunkKeys, Dataset, StringLayout, Var};
use crate::storage::{Key, Placement};

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}/{b}")
    }
}

/// The variable's v3 data type: as read, else from its netCDF type.
fn v3_type(var: &Var) -> V3Type {
    let stored = var
        .stored_dtype
        .as_deref()
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
        .and_then(|v| {
            let alias = (var.ty == NcType::Char).then_some("char");
            dtype::parse(&v, alias).ok()
        })
        .filter(|t| t.ty == var.ty && (t.strings.is_none() || t.strings == Some(var.string_layout)));
    stored.unwrap_or_else(|| {
        let text = dtype::format(var.ty, var.string_layout);
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        dtype::parse(&v, (var.ty == NcType::Char).then_some("char")).unwrap_or(V3Type {
            ty: var.ty,
            strings: None,
            kind: Kind::Int,
            json: text,
        })
    })
}

/// The fill value: the variable's, or (no fill) the type's zero, since v3
/// has no "none".
fn fill_out(var: &Var, t: &V3Type) -> Out {
    let zero = vec![0u8; if var.ty == NcType::String { 0 } else { var.ty.size() }];
    let f = if var.no_fill || (var.ty != NcType::String && var.fill.len() != var.ty.size()) {
        &zero
    } else {
        &var.fill
    };
    fill::to_out(f, t)
}

/// One attribute as JSON; a float variable's `_FillValue` as xarray writes
/// it for v3 (base64 of a little-endian double). `typed`: NCZarr records
/// the attribute types.
fn att_out(var: Option<&Var>, a: &Att, typed: bool) -> Out {
    if let (Some(v), "_FillValue", AttValue::Bytes(b)) = (var, a.name.as_str(), &a.value)
        && a.ty == v.ty
        && let Some(t) = fill::xarray_fill_text(b, a.ty)
    {
        return Out::Str(t);
    }
    att_to_out(a, typed)
}

/// The v3 name of an attribute's type (NCZarr's attribute types).
fn att_type_name(ty: NcType) -> &'static str {
    match ty {
        NcType::Byte => "int8",
        NcType::UByte => "uint8",
        NcType::Char => "char",
        NcType::Short => "int16",
        NcType::UShort => "uint16",
        NcType::Int => "int32",
        NcType::UInt => "uint32",
        NcType::Int64 => "int64",
        NcType::UInt64 => "uint64",
        NcType::Float => "float32",
        NcType::Double => "float64",
        NcType::String => "string",
    }
}

/// `_nczarr_attrs`: the types of the user attributes.
fn attrs_types(atts: &[Att]) -> Out {
    let list = atts
        .iter()
        .map(|a| {
            Out::obj(vec![
                ("name", Out::Str(a.name.clone())),
                (
                    "configuration",
                    Out::obj(vec![("type", Out::Str(att_type_name(a.ty).into()))]),
                ),
            ])
        })
        .collect();
    Out::obj(vec![("attribute_types", Out::Arr(list))])
}

/// The full name of a dimension (`/g/d`).
fn dim_ref(ds: &Dataset, d: usize) -> String {
    let dim = &ds.dims[d];
    let g = ds.group_full_name(dim.group);
    if g == "/" {
        format!("/{}", dim.name)
    } else {
        format!("{g}/{}", dim.name)
    }
}

/// An array's `zarr.json`.
pub fn array_json(ds: &Dataset, var: &Var) -> Out {
    let t = v3_type(var);
    let shape: Vec<Out> = ds.var_shape(var).iter().map(|&s| Out::U(s as u64)).collect();
    let grid: Vec<Out> = match &var.shards {
        Some(l) => l.shard.iter().map(|&c| Out::U(c as u64)).collect(),
        None => var.chunks.iter().map(|&c| Out::U(c as u64)).collect(),
    };
    let vlen = match (var.ty, var.string_layout, t.kind) {
        (NcType::String, StringLayout::VlenUtf8, Kind::VlenBytes) => Some("vlen-bytes"),
        (NcType::String, StringLayout::VlenUtf8, _) => Some("vlen-utf8"),
        _ => None,
    };
    let utf32 = matches!(var.string_layout, StringLayout::Utf32 { .. }) && var.ty == NcType::String;
    let big_endian = match var.string_layout {
        StringLayout::Utf32 { big, .. } if utf32 => big,
        _ => var.big_endian,
    };
    let one_byte = var.ty.size() == 1 || (var.ty == NcType::String && !utf32);
    let mut codecs = pipeline_out(&PipelineOut {
        codecs: &var.codecs,
        big_endian,
        typesize: var.stored_elem_size(),
        vlen,
        no_endian: one_byte && !utf32,
    });
    if let Some(l) = &var.shards {
        codecs = vec![sharding_out(l, codecs)];
    }
    let (name, sep) = match var.chunk_keys {
        ChunkKeys::V3Default => ("default", var.dim_separator),
        ChunkKeys::V2 => ("v2", var.dim_separator),
    };
    let mut attrs: Vec<(String, Out)> = var
        .atts
        .iter()
        .map(|a| (a.name.clone(), att_out(Some(var), a, !ds.flavor.pure_zarr)))
        .collect();
    if !ds.flavor.pure_zarr {
        let refs = var.dimids.iter().map(|&d| Out::Str(dim_ref(ds, d))).collect();
        let mut info = vec![
            ("dimension_references", Out::Arr(refs)),
            ("storage", Out::Str("chunked".into())),
        ];
        match var.ty {
            NcType::Char => info.push(("nczarr_type", Out::Str("char".into()))),
            NcType::String => info.push(("nczarr_type", Out::Str("string".into()))),
            _ => {}
        }
        attrs.push(("_nczarr_array".into(), Out::obj(info)));
        attrs.push(("_nczarr_attrs".into(), attrs_types(&var.atts)));
    }
    let names = var.dimids.iter().map(|&d| Out::Str(ds.dims[d].name.clone())).collect();
    let data_type: Value = serde_json::from_str(&t.json).unwrap_or(Value::Null);
    Out::obj(vec![
        ("zarr_format", Out::U(3)),
        ("node_type", Out::Str("array".into())),
        ("shape", Out::Arr(shape)),
        ("data_type", Out::from_value(&data_type)),
        (
            "chunk_grid",
            Out::obj(vec![
                ("name", Out::Str("regular".into())),
                ("configuration", Out::obj(vec![("chunk_shape", Out::Arr(grid))])),
            ]),
        ),
        (
            "chunk_key_encoding",
            Out::obj(vec![
                ("name", Out::Str(name.into())),
                (
                    "configuration",
                    Out::obj(vec![("separator", Out::Str(sep.to_string()))]),
                ),
            ]),
        ),
        ("fill_value", fill_out(var, &t)),
        ("codecs", Out::Arr(codecs)),
        ("attributes", Out::Obj(attrs)),
        ("dimension_names", Out::Arr(names)),
        ("storage_transformers", Out::Arr(vec![])),
    ])
}

/// A group's `zarr.json` (the root's without its consolidated metadata).
pub fn group_json(ds: &Dataset, grp: usize) -> Out {
    let g = &ds.groups[grp];
    let typed = !ds.flavor.pure_zarr;
    let mut attrs: Vec<(String, Out)> = g
        .atts
        .iter()
        .map(|a| (a.name.clone(), att_out(None, a, typed)))
        .collect();
    if grp == 0 {
        let p = ds.ncproperties.clone().unwrap_or_else(ncproperties);
        attrs.push(("_NCProperties".into(), Out::Str(p)));
    }
    if !ds.flavor.pure_zarr {
        if grp == 0 {
            attrs.push((
                "_nczarr_superblock".into(),
                Out::obj(vec![("version", Out::Str("3.0.0".into())), ("format", Out::U(3))]),
            ));
        }
        let dims = g
            .dims
            .iter()
            .map(|&d| {
                let dim = &ds.dims[d];
                Out::obj(vec![
                    ("name", Out::Str(dim.name.clone())),
                    ("size", Out::U(dim.len as u64)),
                    ("unlimited", Out::Bool(dim.unlimited)),
                ])
            })
            .collect();
        let arrays = g.vars.iter().map(|v| Out::Str(v.name.clone())).collect();
        let subgroups = g
            .children
            .iter()
            .map(|&c| Out::Str(ds.groups[c].name.clone()))
            .collect();
        attrs.push((
            "_nczarr_group".into(),
            Out::obj(vec![
                ("dimensions", Out::Arr(dims)),
                ("arrays", Out::Arr(arrays)),
                ("subgroups", Out::Arr(subgroups)),
            ]),
        ));
        attrs.push(("_nczarr_attrs".into(), attrs_types(&g.atts)));
    }
    Out::obj(vec![
        ("zarr_format", Out::U(3)),
        ("node_type", Out::Str("group".into())),
        ("attributes", Out::Obj(attrs)),
    ])
}

/// The root's `zarr.json`, with every other node inline when consolidated.
fn root_json(ds: &Dataset) -> Out {
    let Out::Obj(mut pairs) = group_json(ds, 0) else {
        return group_json(ds, 0);
    };
    if ds.flavor.consolidated {
        let mut nodes = Vec::new();
        for g in 0..ds.groups.len() {
            if g > 0 {
                nodes.push((ds.group_key(g), group_json(ds, g)));
            }
            for v in &ds.groups[g].vars {
                nodes.push((ds.var_key(g, &v.name), array_json(ds, v)));
            }
        }
        nodes.sort_by(|a, b| a.0.cmp(&b.0));
        pairs.push((
            "consolidated_metadata".into(),
            Out::obj(vec![
                ("kind", Out::Str("inline".into())),
                ("must_understand", Out::Bool(false)),
                ("metadata", Out::Obj(nodes)),
            ]),
        ));
    }
    Out::Obj(pairs)
}

fn json_obj(key: &str, v: &Out) -> NcResult<(Key, Vec<u8>)> {
    Ok((Key::new(key)?, v.to_json_bytes()))
}

/// Mode key `shards=`: variables about to be stored for the first time,
/// without shards of their own, get shards of about `target` bytes (see
/// `sharding::auto_shape`; not scalars nor strings).
fn auto_shards(ds: &mut Dataset, target: u64) {
    for g in 0..ds.groups.len() {
        for vi in 0..ds.groups[g].vars.len() {
            let v = &ds.groups[g].vars[vi];
            if v.created || v.shards.is_some() || v.is_scalar() || v.ty == NcType::String {
                continue;
            }
            let shape = ds.var_shape(v);
            let unlimited: Vec<bool> = v.dimids.iter().map(|&d| ds.dims[d].unlimited).collect();
            let Some(s) = auto_shape(&shape, &unlimited, &v.chunks, v.stored_elem_size(), target) else {
                continue;
            };
            let layout = ShardLayout::standard(s, v.chunks.clone());
            let v = &mut ds.groups[g].vars[vi];
            v.shards = layout;
            v.meta_dirty = true;
        }
    }
}

/// Write all changed metadata: arrays, then groups from the deepest level up
/// (a consolidated root last, so it never lists what is not there yet).
pub fn sync_metadata(ds: &mut Dataset, put_all: PutAll<'_>) -> NcResult<()> {
    if let Some(target) = ds.flavor.shard_target {
        auto_shards(ds, target);
    }
    let store = ds.store.clone();
    let written = dirty_arrays(ds);
    let build = |key: &str, var: &Var| Ok(vec![json_obj(&join(key, ZARR_JSON), &array_json(ds, var))?]);
    store_array_objects(ds, &written, build, put_all)?;
    let any = !written.is_empty();
    for (g, vi, key) in written {
        let var = &mut ds.groups[g].vars[vi];
        var.meta_dirty = false;
        var.created = true;
        var.stored_key = Some(key);
    }
    // The root lists every array when consolidated, and NCZarr groups list
    // theirs: any change rewrites the groups.
    if ds.meta_dirty || any {
        for level in groups_deepest_first(ds) {
            let mut batch = Batch::new();
            for g in level {
                let node = if g == 0 { root_json(ds) } else { group_json(ds, g) };
                batch.push(json_obj(&join(&ds.group_key(g), ZARR_JSON), &node)?);
            }
            put_all(store.as_ref(), batch, Placement::Replace)?;
        }
        for g in 0..ds.groups.len() {
            ds.groups[g].stored_key = Some(ds.group_key(g));
        }
        ds.meta_dirty = false;
    }
    Ok(())
}
