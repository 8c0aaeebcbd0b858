//! Writing the model as NCZarr (netcdf-c >= 4.9.3 layout) or pure Zarr v2.
#![forbid(unsafe_code)]

use super::dtype;
use super::json::{Out, att_to_out, bytes_to_out};
use crate::error::NcResult;
use crate::model::types::NcType;
use crate::model::{Att, AttValue, Dataset, StringLayout, Var};
use crate::storage::{Key, Placement, Store, move_tree};

/// The `_NCProperties` value this library writes.
pub fn ncproperties() -> String {
    format!(
        "version=2,netcdf=4.10.1,nczarr=2.0.0,nczarr-rs={}",
        env!("CARGO_PKG_VERSION")
    )
}

fn att_dtype(a: &Att) -> String {
    match a.ty {
        NcType::Char => ">S1".to_string(),
        NcType::String => "|S1".to_string(),
        t => dtype::format(t, false, 0, false),
    }
}

/// Attributes as JSON; `typed`: their types are recorded (`_nczarr_attr`).
fn atts_out(atts: &[Att], typed: bool) -> Vec<(String, Out)> {
    atts.iter().map(|a| (a.name.clone(), att_to_out(a, typed))).collect()
}

fn types_out(atts: &[Att], extra: &[&str]) -> Out {
    let mut t: Vec<(String, Out)> = atts.iter().map(|a| (a.name.clone(), Out::Str(att_dtype(a)))).collect();
    for e in extra {
        let d = if *e == "_NCProperties" { ">S1" } else { "|J0" };
        t.push((e.to_string(), Out::Str(d.to_string())));
    }
    Out::obj(vec![("types", Out::Obj(t))])
}

/// The width (bytes per value) used for a string variable's `|Sn` dtype.
pub fn string_width(var: &Var) -> usize {
    match var.string_layout {
        StringLayout::Fixed(n) => n,
        StringLayout::Utf32 { n, .. } => n,
        StringLayout::VlenUtf8 => 0,
    }
}

/// The fill value as `.zarray` JSON.
fn fill_out(var: &Var) -> Out {
    if var.no_fill {
        return Out::Null;
    }
    match var.ty {
        NcType::Char | NcType::String => {
            let s = if var.ty == NcType::Char && var.fill.first() == Some(&0) {
                &[][..]
            } else {
                &var.fill[..]
            };
            Out::Str(String::from_utf8_lossy(s).into_owned())
        }
        t => bytes_to_out(&var.fill, t),
    }
}

fn dtype_of(var: &Var, pure_zarr: bool) -> String {
    if let Some(d) = &var.stored_dtype {
        return d.clone();
    }
    match (var.ty, var.string_layout) {
        (NcType::String, StringLayout::Utf32 { n, big }) => format!("{}U{n}", if big { '>' } else { '<' }),
        (NcType::String, StringLayout::VlenUtf8) => "|O".to_string(),
        (t, _) => dtype::format(t, var.big_endian, string_width(var), pure_zarr),
    }
}

/// `.zarray` of a variable.
pub fn zarray(ds: &Dataset, var: &Var) -> Out {
    let (shape, chunks): (Vec<Out>, Vec<Out>) = if var.is_scalar() {
        if ds.flavor.pure_zarr {
            (vec![], vec![])
        } else {
            (vec![Out::U(1)], vec![Out::U(1)])
        }
    } else {
        (
            ds.var_shape(var).iter().map(|&s| Out::U(s as u64)).collect(),
            var.chunks.iter().map(|&c| Out::U(c as u64)).collect(),
        )
    };
    let mut filters = Vec::new();
    let mut compressor = Out::Null;
    if let Some((last, rest)) = var.codecs.split_last() {
        compressor = Out::from_value(last);
        filters = rest.iter().map(Out::from_value).collect();
    }
    if var.string_layout == StringLayout::VlenUtf8 {
        filters.insert(0, Out::obj(vec![("id", Out::Str("vlen-utf8".into()))]));
    }
    let mut pairs = vec![
        ("zarr_format", Out::U(2)),
        ("shape", Out::Arr(shape)),
        ("dtype", Out::Str(dtype_of(var, ds.flavor.pure_zarr))),
        ("chunks", Out::Arr(chunks)),
        ("fill_value", fill_out(var)),
        ("order", Out::Str(if var.order_f { "F" } else { "C" }.into())),
        ("compressor", compressor),
        (
            "filters",
            if filters.is_empty() {
                Out::Null
            } else {
                Out::Arr(filters)
            },
        ),
    ];
    if var.dim_separator != '.' {
        pairs.push(("dimension_separator", Out::Str(var.dim_separator.to_string())));
    }
    Out::obj(pairs)
}

/// `.zattrs` of a variable.
pub fn var_zattrs(ds: &Dataset, var: &Var) -> Out {
    let mut pairs = atts_out(&var.atts, !ds.flavor.pure_zarr);
    let mut extra = Vec::new();
    if ds.flavor.xarray {
        let names: Vec<Out> = var.dimids.iter().map(|&d| Out::Str(ds.dims[d].name.clone())).collect();
        let names = if var.is_scalar() && !ds.flavor.pure_zarr {
            vec![Out::Str("_scalar_".into())]
        } else {
            names
        };
        pairs.push(("_ARRAY_DIMENSIONS".into(), Out::Arr(names)));
    }
    if !ds.flavor.pure_zarr {
        let refs: Vec<Out> = var
            .dimids
            .iter()
            .map(|&d| {
                let dim = &ds.dims[d];
                let g = ds.group_full_name(dim.group);
                Out::Str(if g == "/" {
                    format!("/{}", dim.name)
                } else {
                    format!("{g}/{}", dim.name)
                })
            })
            .collect();
        let mut info = vec![("dimension_references", Out::Arr(refs))];
        if var.is_scalar() {
            info.push(("scalar", Out::U(1)));
        }
        info.push(("storage", Out::Str("chunked".into())));
        pairs.push(("_nczarr_array".into(), Out::obj(info)));
        extra.push("_nczarr_array");
        extra.push("_nczarr_attr");
        pairs.push(("_nczarr_attr".into(), types_out(&var.atts, &extra)));
    }
    Out::Obj(pairs)
}

/// `.zattrs` of a group.
pub fn group_zattrs(ds: &Dataset, grp: usize) -> Out {
    let g = &ds.groups[grp];
    let mut pairs = atts_out(&g.atts, !ds.flavor.pure_zarr);
    let mut extra = Vec::new();
    if grp == 0 {
        let p = ds.ncproperties.clone().unwrap_or_else(ncproperties);
        pairs.push(("_NCProperties".into(), Out::Str(p)));
        extra.push("_NCProperties");
    }
    if !ds.flavor.pure_zarr {
        let dims: Vec<(String, Out)> = g
            .dims
            .iter()
            .map(|&d| {
                let dim = &ds.dims[d];
                let v = if dim.unlimited {
                    Out::obj(vec![("size", Out::U(dim.len as u64)), ("unlimited", Out::U(1))])
                } else {
                    Out::U(dim.len as u64)
                };
                (dim.name.clone(), v)
            })
            .collect();
        let arrays = g.vars.iter().map(|v| Out::Str(v.name.clone())).collect();
        let groups = g
            .children
            .iter()
            .map(|&c| Out::Str(ds.groups[c].name.clone()))
            .collect();
        pairs.push((
            "_nczarr_group".into(),
            Out::obj(vec![
                ("dimensions", Out::Obj(dims)),
                ("arrays", Out::Arr(arrays)),
                ("groups", Out::Arr(groups)),
            ]),
        ));
        extra.push("_nczarr_group");
        if grp == 0 {
            pairs.push((
                "_nczarr_superblock".into(),
                Out::obj(vec![("version", Out::Str("2.0.0".into()))]),
            ));
            extra.push("_nczarr_superblock");
        }
        extra.push("_nczarr_attr");
        pairs.push(("_nczarr_attr".into(), types_out(&g.atts, &extra)));
    }
    Out::Obj(pairs)
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}/{b}")
    }
}

/// Move renamed groups and variables to their new keys.
fn apply_renames(ds: &mut Dataset) -> NcResult<()> {
    let store = ds.store.clone();
    for g in 0..ds.groups.len() {
        let want = ds.group_key(g);
        if let Some(old) = ds.groups[g].stored_key.clone()
            && old != want
        {
            {
                move_tree(store.as_ref(), &Key::new(&old)?, &Key::new(&want)?)?;
                let rekey = |k: &mut Option<String>| {
                    if let Some(s) = k
                        && (s == &old || s.starts_with(&format!("{old}/")))
                    {
                        *s = format!("{want}{}", &s[old.len()..]);
                    }
                };
                for gg in ds.groups.iter_mut() {
                    rekey(&mut gg.stored_key);
                    for v in gg.vars.iter_mut() {
                        rekey(&mut v.stored_key);
                    }
                }
            }
        }
    }
    for g in 0..ds.groups.len() {
        let group_key = ds.group_key(g);
        for vi in 0..ds.groups[g].vars.len() {
            let var = &ds.groups[g].vars[vi];
            // A variable never stored has nothing to move; one stored where
            // its name says has nothing either.
            let Some(old) = var.stored_key.as_deref() else { continue };
            if crate::model::is_key_in(old, &group_key, &var.name) {
                continue;
            }
            let want = crate::model::key_in(&group_key, &var.name);
            move_tree(store.as_ref(), &Key::new(old)?, &Key::new(&want)?)?;
            ds.groups[g].vars[vi].stored_key = Some(want);
        }
    }
    Ok(())
}

/// Objects to store in one go; the writer may store them in any order, in parallel.
pub type Batch = Vec<(Key, Vec<u8>)>;

fn json_obj(key: &str, v: &Out) -> NcResult<(Key, Vec<u8>)> {
    Ok((Key::new(key)?, v.to_json_bytes()))
}

/// The arrays whose metadata changed: (group, variable, key).
pub(super) fn dirty_arrays(ds: &Dataset) -> Vec<(usize, usize, String)> {
    let mut dirty = Vec::new();
    for g in 0..ds.groups.len() {
        let mut group_key = None;
        for (vi, var) in ds.groups[g].vars.iter().enumerate() {
            if var.meta_dirty {
                let gk = group_key.get_or_insert_with(|| ds.group_key(g));
                dirty.push((g, vi, crate::model::key_in(gk, &var.name)));
            }
        }
    }
    dirty
}

/// Below this many arrays their metadata is built on the calling thread: a
/// trip to the pool costs more than building a few objects.
const POOL_BUILD_MIN: usize = 64;

/// How `sync_metadata` stores a batch of objects (`engine::put_all`).
pub type PutAll<'a> = &'a (dyn Fn(&dyn Store, Batch, Placement) -> NcResult<()> + Sync);

/// Build and store the metadata objects of the arrays `dirty` (see
/// [`dirty_arrays`]); `build` makes an array's objects from its key and
/// variable, the one that makes it an array last. An array stored before
/// has its objects replaced; a new one's are new objects
/// (`Placement::New`), each stored only once the one before it is whole: a
/// reader finds the array only once its other objects are whole, and a
/// half-written last object is invalid metadata, which it reports and
/// skips. Building only reads the dataset.
///
/// Where one request at a time is the way to store (a directory, a zip),
/// many arrays are built and stored on the pool, array by array, each
/// array's objects in order: no array waits for the others, and no object
/// outlives its write. Where requests overlap (S3), every array's objects
/// are built first and stored through `put_all` in steps (each step for
/// every new array before the next), so that each step goes out at once.
pub(super) fn store_array_objects(
    ds: &Dataset,
    dirty: &[(usize, usize, String)],
    build: impl Fn(&str, &Var) -> NcResult<Batch> + Sync,
    put_all: PutAll<'_>,
) -> NcResult<()> {
    use rayon::prelude::*;
    let store = ds.store.as_ref();
    let one = |(g, vi, key): &(usize, usize, String)| build(key, &ds.groups[*g].vars[*vi]);
    if dirty.len() >= POOL_BUILD_MIN && !store.concurrent_requests() {
        let store_one = |d: &(usize, usize, String)| -> NcResult<()> {
            let how = if ds.groups[d.0].vars[d.1].created {
                Placement::Replace
            } else {
                Placement::New
            };
            one(d)?.into_iter().try_for_each(|obj| put_all(store, vec![obj], how))
        };
        // Tasks of some dozens of arrays: one array per task would spend
        // more time handing out work than writing, and a few large tasks
        // leave a thread idle at the end while the other finishes its last
        // one (or waits for its core, on a busy machine).
        let per_task = dirty.len().div_ceil(crate::runtime::pool::threads() * 32).max(1);
        return crate::runtime::pool::on_pool(|| {
            dirty
                .par_chunks(per_task)
                .try_for_each(|arrays| arrays.iter().try_for_each(store_one))
        });
    }
    let per_array: Vec<Batch> = if dirty.len() < POOL_BUILD_MIN {
        dirty.iter().map(one).collect::<NcResult<_>>()?
    } else {
        crate::runtime::pool::on_pool(|| dirty.par_iter().map(one).collect::<NcResult<_>>())?
    };
    let mut replace = Batch::new();
    let mut steps: Vec<Batch> = Vec::new();
    for ((g, vi, _), objs) in dirty.iter().zip(per_array) {
        if ds.groups[*g].vars[*vi].created {
            replace.extend(objs);
            continue;
        }
        for (step, obj) in objs.into_iter().enumerate() {
            if steps.len() <= step {
                steps.push(Batch::new());
            }
            steps[step].push(obj);
        }
    }
    if !replace.is_empty() {
        put_all(store, replace, Placement::Replace)?;
    }
    steps
        .into_iter()
        .try_for_each(|step| put_all(store, step, Placement::New))
}

/// Write all changed metadata through `put_all`, in phases that each finish
/// before the next begins: arrays, then groups from the deepest level up (a
/// group never lists a child that is not written yet), then `.zmetadata`.
/// Chunks must have been flushed before, so that metadata never describes
/// data that is not there yet. State is marked clean only once written.
pub fn sync_metadata(ds: &mut Dataset, put_all: PutAll<'_>) -> NcResult<()> {
    apply_renames(ds)?;
    if ds.flavor.v3 {
        return super::v3::write::sync_metadata(ds, put_all);
    }
    for g in 0..ds.groups.len() {
        for vi in 0..ds.groups[g].vars.len() {
            ds.settle_string_width(g, vi as i32);
        }
    }
    let store = ds.store.clone();
    let written = dirty_arrays(ds);
    // `.zarray` last: it makes the folder an array.
    let build = |key: &str, var: &Var| {
        Ok(vec![
            json_obj(&join(key, ".zattrs"), &var_zattrs(ds, var))?,
            json_obj(&join(key, ".zarray"), &zarray(ds, var))?,
        ])
    };
    store_array_objects(ds, &written, build, put_all)?;
    let any = !written.is_empty();
    for (g, vi, key) in written {
        let var = &mut ds.groups[g].vars[vi];
        var.meta_dirty = false;
        var.created = true;
        var.stored_key = Some(key);
    }
    if ds.meta_dirty || any {
        for level in groups_deepest_first(ds) {
            let mut batch = Batch::new();
            for g in level {
                let key = ds.group_key(g);
                batch.push(json_obj(
                    &join(&key, ".zgroup"),
                    &Out::obj(vec![("zarr_format", Out::U(2))]),
                )?);
                batch.push(json_obj(&join(&key, ".zattrs"), &group_zattrs(ds, g))?);
            }
            put_all(store.as_ref(), batch, Placement::Replace)?;
        }
        for g in 0..ds.groups.len() {
            ds.groups[g].stored_key = Some(ds.group_key(g));
        }
        if ds.flavor.consolidated {
            put_all(
                store.as_ref(),
                vec![json_obj(".zmetadata", &consolidated(ds))?],
                Placement::Replace,
            )?;
        }
        ds.meta_dirty = false;
    }
    Ok(())
}

/// The dataset's groups by depth, deepest level first: a group's metadata
/// is stored after its children's, so a reader never finds a group that
/// names a child not yet written.
pub fn groups_deepest_first(ds: &Dataset) -> Vec<Vec<usize>> {
    let depth = |mut g: usize| {
        let mut d = 0;
        while let Some(p) = ds.groups[g].parent {
            g = p;
            d += 1;
        }
        d
    };
    let depths: Vec<usize> = (0..ds.groups.len()).map(depth).collect();
    let deepest = depths.iter().copied().max().unwrap_or(0);
    (0..=deepest)
        .rev()
        .map(|level| (0..ds.groups.len()).filter(|&g| depths[g] == level).collect())
        .collect()
}

/// The consolidated `.zmetadata` document.
pub fn consolidated(ds: &Dataset) -> Out {
    let mut m = Vec::new();
    for g in 0..ds.groups.len() {
        let key = ds.group_key(g);
        m.push((join(&key, ".zgroup"), Out::obj(vec![("zarr_format", Out::U(2))])));
        m.push((join(&key, ".zattrs"), group_zattrs(ds, g)));
        for v in &ds.groups[g].vars {
            let vk = ds.var_key(g, &v.name);
            m.push((join(&vk, ".zarray"), zarray(ds, v)));
            m.push((join(&vk, ".zattrs"), var_zattrs(ds, v)));
        }
    }
    Out::obj(vec![("metadata", Out::Obj(m)), ("zarr_consolidated_format", Out::U(1))])
}

/// The `_Codecs` virtual attribute: the codec chain as JSON text.
pub fn codecs_text(var: &Var) -> Option<String> {
    if var.codecs.is_empty() {
        return None;
    }
    let parts: Vec<String> = var.codecs.iter().map(|c| Out::from_value(c).to_json()).collect();
    Some(format!("[{}]", parts.join(",")))
}

/// An attribute value of one string (used for virtual attributes).
pub fn text_att(name: &str, s: &str) -> Att {
    Att {
        name: name.to_string(),
        ty: NcType::Char,
        value: AttValue::Bytes(s.as_bytes().to_vec()),
    }
}
