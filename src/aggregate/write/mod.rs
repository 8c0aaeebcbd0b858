//! Writing an aggregation: a variable of a Zarr dataset asked to be
//! aggregated (`nc_def_var_aggregation`, or the special attributes below
//! for programs that can only set attributes) is split into fragments, each
//! a Zarr dataset of its own, and the master stores it as a CF-1.13
//! aggregation variable (`aggregated_dimensions`, `aggregated_data = "map:
//! ... uris: ... identifiers: ..."` and the three table variables).
//!
//! At the first sync of the variable (nc_enddef, or nc_close in define
//! mode) the fragment grid is fixed (`grid.rs`), every fragment is created
//! with its metadata (so a partly written aggregation is valid, and what
//! was not written reads as fill), and the tables are written to the
//! master. While the writing handle stays open the variable is the N-d
//! array: its data source (`writer.rs`) sends reads and writes to the
//! fragments; at every sync the master stores it as the scalar aggregation
//! variable (`as_stored`). Coordinate variables along the aggregated
//! dimensions are defined in every fragment, and their values copied into
//! each fragment's slice at every sync of the master after they are written.
#![forbid(unsafe_code)]

pub mod grid;
pub mod writer;

use std::sync::Arc;

use crate::api::url::{self, StoreKind, Target};
use crate::engine::MemIn;
use crate::error::{NcError, NcResult};
use crate::format::write::text_att;
use crate::model::convert::convert;
use crate::model::types::NcType;
use crate::model::{Att, AttValue, Dataset, Var};
use crate::runtime::pool;
use crate::storage::Durability;
use grid::{Axis, CfHints};
use writer::{AggWriter, Coordinate, StoredForm, Tables};

/// The special attribute with the fragment shape (integers, one per
/// dimension).
pub const ATT_SHAPE: &str = "_Aggregation_FragmentShape";
/// The special attribute with the largest fragment in bytes (an integer).
pub const ATT_BYTES: &str = "_Aggregation_FragmentBytes";
/// The special attribute with the fragment URI template (text).
pub const ATT_URI: &str = "_Aggregation_URI";
const REQUEST_ATTS: [&str; 3] = [ATT_SHAPE, ATT_BYTES, ATT_URI];
/// The fragment size when neither a shape nor a size is given (64 MiB).
pub const DEFAULT_FRAGMENT_BYTES: usize = 64 << 20;

/// What a program asked for one variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The fragment shape, or None for the splitting algorithm.
    pub shape: Option<Vec<usize>>,
    /// The largest fragment in bytes (for the splitting algorithm).
    pub max_bytes: usize,
    /// The fragment URI template (None: the default).
    pub template: Option<String>,
}

pub(super) fn invalid(why: &str) -> NcError {
    crate::nclog!(crate::log::Level::Error, "aggregation: {why}");
    NcError::Inval
}

fn att_text(a: &Att) -> Option<String> {
    match &a.value {
        AttValue::Bytes(b) if a.ty == NcType::Char => {
            Some(String::from_utf8_lossy(b).trim_end_matches('\0').to_string())
        }
        AttValue::Strings(s) => s.first().map(|x| String::from_utf8_lossy(x).into_owned()),
        _ => None,
    }
}

fn att_ints(a: &Att) -> Option<Vec<i64>> {
    let AttValue::Bytes(b) = &a.value else {
        return None;
    };
    if !a.ty.is_numeric() || matches!(a.ty, NcType::Float | NcType::Double) {
        return None;
    }
    b.chunks_exact(a.ty.size())
        .map(|x| {
            let mut o = [0u8; 8];
            convert(a.ty, x, NcType::Int64, &mut o)
                .ok()
                .map(|()| i64::from_ne_bytes(o))
        })
        .collect()
}

impl Request {
    /// The request the special attributes of `var` make; None without any.
    pub fn of(var: &Var) -> NcResult<Option<Request>> {
        if !var.atts.has_any(&REQUEST_ATTS) {
            return Ok(None);
        }
        let shape = match var.att(ATT_SHAPE) {
            None => None,
            Some(a) => {
                let v = att_ints(a).ok_or_else(|| invalid(&format!("{ATT_SHAPE} of {} is not integers", var.name)))?;
                if v.len() != var.dimids.len() || v.iter().any(|&x| x < 1) {
                    return Err(invalid(&format!(
                        "{ATT_SHAPE} of {} needs one positive size per dimension",
                        var.name
                    )));
                }
                Some(
                    v.into_iter()
                        .map(|x| usize::try_from(x).unwrap_or(usize::MAX))
                        .collect(),
                )
            }
        };
        let max_bytes = match var.att(ATT_BYTES) {
            None => DEFAULT_FRAGMENT_BYTES,
            Some(a) => match att_ints(a).as_deref() {
                Some(&[n]) if n >= 1 => usize::try_from(n).unwrap_or(usize::MAX),
                _ => {
                    return Err(invalid(&format!(
                        "{ATT_BYTES} of {} is not one positive integer",
                        var.name
                    )));
                }
            },
        };
        let template = match var.att(ATT_URI) {
            None => None,
            Some(a) => Some(att_text(a).ok_or_else(|| invalid(&format!("{ATT_URI} of {} is not text", var.name)))?),
        };
        Ok(Some(Request {
            shape,
            max_bytes,
            template,
        }))
    }
}

/// Whether variable `var` of `ds` can be aggregated: NC_EINVAL for a
/// scalar or a type that is not a number; NC_ELATEDEF once stored;
/// NC_ENOTBUILT on a dataset of several MPI processes.
fn check_aggregatable(ds: &Dataset, var: &Var) -> NcResult<()> {
    if var.created || var.external.is_some() {
        return Err(NcError::LateDef);
    }
    if var.is_scalar() {
        return Err(invalid(&format!("{} is a scalar", var.name)));
    }
    if !var.ty.is_numeric() {
        return Err(invalid(&format!("{} is not of a numeric type", var.name)));
    }
    if ds.parallel.is_some() {
        crate::nclog!(
            crate::log::Level::Error,
            "aggregation: writing {} as an aggregation from several MPI processes is not built",
            var.name
        );
        return Err(NcError::NotBuilt);
    }
    Ok(())
}

/// `nc_def_var_aggregation` (include/netcdf_zarr.h): ask for variable
/// `varid` to be written as an aggregation, in fragments of `shape` (one
/// size per dimension) or, with None, of at most `max_bytes` (0: the
/// default) cut by the splitting algorithm; `template` names the fragments.
/// It sets the special attributes, consumed at nc_enddef.
pub fn define(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    shape: Option<&[usize]>,
    max_bytes: usize,
    template: Option<&str>,
) -> NcResult<()> {
    let var = ds.var(grp, varid)?;
    if !ds.writable {
        return Err(NcError::Perm);
    }
    if !ds.define_mode {
        return Err(NcError::NotInDefine);
    }
    check_aggregatable(ds, var)?;
    if let Some(s) = shape
        && (s.len() != var.dimids.len() || s.contains(&0))
    {
        return Err(invalid("fragment sizes must be positive"));
    }
    if let Some(t) = template {
        check_template(t)?;
    }
    for n in REQUEST_ATTS {
        if ds.att(grp, varid, n).is_ok() {
            ds.del_att(grp, varid, n)?;
        }
    }
    let i64s = |v: &[usize]| -> Vec<u8> {
        v.iter()
            .flat_map(|&x| i64::try_from(x).unwrap_or(i64::MAX).to_ne_bytes())
            .collect()
    };
    match shape {
        Some(s) => ds.put_att(grp, varid, ATT_SHAPE, NcType::Int64, AttValue::Bytes(i64s(s)))?,
        None => {
            let b = if max_bytes == 0 {
                DEFAULT_FRAGMENT_BYTES
            } else {
                max_bytes
            };
            ds.put_att(grp, varid, ATT_BYTES, NcType::Int64, AttValue::Bytes(i64s(&[b])))?
        }
    }
    if let Some(t) = template {
        ds.put_att(
            grp,
            varid,
            ATT_URI,
            NcType::Char,
            AttValue::Bytes(t.as_bytes().to_vec()),
        )?;
    }
    Ok(())
}

/// A template names each fragment apart (`{index}`) unless it is used for
/// one fragment only; checked again when the grid is known.
fn check_template(t: &str) -> NcResult<()> {
    if t.trim().is_empty() {
        return Err(invalid("an empty fragment URI template"));
    }
    Ok(())
}

/// Where the master is, for naming and creating its fragments.
#[derive(Debug)]
struct MasterLoc {
    base: crate::aggregate::fragment::Base,
    /// The last component of the master's path (`{master}`).
    name: String,
    /// The master's URL fragment (`mode=...`), given to every fragment.
    fragment: String,
    zip: bool,
    /// The master is in S3: its URIs keep the master's URL fragment (a
    /// reader resolving a relative URI against the master's URL gets an
    /// HTTP or `s3:` URL that says nothing of the storage without it).
    s3: bool,
}

impl MasterLoc {
    fn of(path: &str) -> NcResult<MasterLoc> {
        let Target::Zarr(loc) = url::classify(path, true)? else {
            return Err(NcError::NotNc);
        };
        let local = loc.kind != StoreKind::S3;
        let trimmed = loc.path.trim_end_matches('/');
        let name = trimmed.rsplit('/').next().unwrap_or(trimmed).to_string();
        let fragment = loc
            .fragment
            .iter()
            .map(|(k, v)| if v.is_empty() { k.clone() } else { format!("{k}={v}") })
            .collect::<Vec<_>>()
            .join("&");
        Ok(MasterLoc {
            base: crate::aggregate::fragment::Base::of_master(&loc.path, local),
            name,
            fragment,
            zip: loc.kind == StoreKind::Zip,
            s3: loc.kind == StoreKind::S3,
        })
    }

    /// The URI of a fragment as the master records it: the template with
    /// `{master}`, `{var}` and `{index}` (grid indices joined by `_`)
    /// replaced. The default is `{master}_{var}/{index}.zarr` (`.zarr.zip` for
    /// a zip master).
    fn uri(&self, template: Option<&str>, var: &str, idx: &[usize]) -> String {
        let default = format!(
            "{{master}}_{{var}}/{{index}}{}",
            if self.zip { ".zarr.zip" } else { ".zarr" }
        );
        let t = template.unwrap_or(&default);
        let index = idx.iter().map(usize::to_string).collect::<Vec<_>>().join("_");
        let uri = t
            .replace("{master}", &self.name)
            .replace("{var}", var)
            .replace("{index}", &index);
        if self.s3 && !uri.contains('#') && !self.fragment.is_empty() {
            format!("{uri}#{}", self.fragment)
        } else {
            uri
        }
    }

    /// Where the library creates and opens the fragment of `uri`: resolved
    /// against the master, with the master's mode unless the URI has its own.
    fn open_path(&self, uri: &str) -> String {
        let (path, own) = match uri.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (uri, None),
        };
        let frag = own.unwrap_or(&self.fragment);
        let resolved = crate::aggregate::fragment::resolve(&self.base, path);
        let url = if resolved.contains("://") {
            resolved
        } else {
            format!("file://{resolved}")
        };
        if frag.is_empty() { url } else { format!("{url}#{frag}") }
    }
}

/// What a fragment's variable is defined with.
#[derive(Debug, Clone)]
struct VarSpec {
    name: String,
    ty: NcType,
    /// Positions among the aggregated dimensions.
    dims: Vec<usize>,
    chunks: Vec<usize>,
    codecs: Vec<serde_json::Value>,
    atts: Vec<Att>,
    no_fill: bool,
}

impl VarSpec {
    fn of(v: &Var, dims: Vec<usize>) -> VarSpec {
        VarSpec {
            name: v.name.clone(),
            ty: v.ty,
            dims,
            chunks: v.chunks.clone(),
            codecs: v.codecs.clone(),
            atts: v
                .atts
                .iter()
                .filter(|a| !REQUEST_ATTS.contains(&a.name.as_str()))
                .cloned()
                .collect(),
            no_fill: v.no_fill,
        }
    }
}

/// The coordinate variable of dimension `dimid` seen from group `grp`: a
/// one-dimensional variable of the dimension's name along it.
fn coordinate_of(ds: &Dataset, grp: usize, dimid: usize) -> Option<(usize, usize)> {
    let name = &ds.dims[dimid].name;
    let mut g = Some(grp);
    while let Some(x) = g {
        if let Some(i) = ds.groups[x].vars.iter().position(|v| &v.name == name) {
            let v = &ds.groups[x].vars[i];
            return (v.dimids == [dimid]).then_some((x, i));
        }
        g = ds.groups[x].parent;
    }
    None
}

fn hints(v: &Var) -> CfHints {
    let t = |n: &str| v.att(n).and_then(att_text);
    CfHints {
        axis: t("axis"),
        standard_name: t("standard_name"),
        units: t("units"),
        positive: t("positive"),
    }
}

/// What names and makes the fragments of one aggregation.
#[derive(Debug)]
pub struct Maker {
    master: MasterLoc,
    template: Option<String>,
    var: String,
    /// The aggregated dimensions' names (each fragment's dimensions).
    dim_names: Vec<String>,
    specs: Vec<VarSpec>,
    /// The fragment extent along each unlimited dimension (None: fixed).
    extents: Vec<Option<usize>>,
    /// Where the fragments this handle created are, and the local
    /// directories it made for them (for nc_abort).
    made: std::sync::Mutex<Made>,
}

/// The fragments and directories a handle made.
#[derive(Debug, Default, Clone)]
pub struct Made {
    pub fragments: Vec<String>,
    pub dirs: Vec<std::path::PathBuf>,
}

impl Maker {
    /// The URI the master records for the fragment at grid index `idx`.
    fn uri(&self, idx: &[usize]) -> String {
        self.master.uri(self.template.as_deref(), &self.var, idx)
    }

    /// Where the fragment of `uri` is created and opened.
    fn path(&self, uri: &str) -> String {
        self.master.open_path(uri)
    }

    /// Create the fragment at `path` with lengths `lens`: its metadata is
    /// stored, the dataset is returned open for writing.
    fn create(&self, path: &str, lens: &[usize]) -> NcResult<Dataset> {
        let dirs = new_dirs(path, &self.master.base);
        let d = create_fragment(path, &self.dim_names, lens, &self.extents, &self.specs).inspect_err(|e| {
            crate::nclog!(crate::log::Level::Error, "aggregation fragment {path}: {e:?}");
        })?;
        if let Ok(mut m) = self.made.lock() {
            m.fragments.push(path.to_string());
            m.dirs.extend(dirs);
        }
        Ok(d)
    }

    /// What this handle made.
    pub fn made(&self) -> Made {
        self.made.lock().map(|m| m.clone()).unwrap_or_default()
    }
}

/// The local directories that creating a fragment at `path` will make:
/// its missing ancestors below the master's directory `base`.
fn new_dirs(path: &str, base: &crate::aggregate::fragment::Base) -> Vec<std::path::PathBuf> {
    let crate::aggregate::fragment::Base::Dir(base) = base else {
        return Vec::new();
    };
    let Ok(Target::Zarr(loc)) = url::classify(path, true) else {
        return Vec::new();
    };
    if loc.kind == StoreKind::S3 {
        return Vec::new();
    }
    std::path::Path::new(&loc.path)
        .ancestors()
        .skip(1)
        .take_while(|p| p.starts_with(base) && *p != base.as_path())
        .filter(|p| !p.exists())
        .map(std::path::Path::to_path_buf)
        .collect()
}

/// Create fragment `path` with the grid's lengths `lens` (an unlimited
/// dimension, where `extents` has its extent, stays unlimited in the
/// fragment), define every variable of `specs`, store its metadata, and
/// return it open for writing.
fn create_fragment(
    path: &str,
    dim_names: &[String],
    lens: &[usize],
    extents: &[Option<usize>],
    specs: &[VarSpec],
) -> NcResult<Dataset> {
    const NC_NETCDF4: i32 = 0x1000;
    let mut d = crate::api::create_dataset(path, NC_NETCDF4)?;
    let mut dimids = Vec::with_capacity(lens.len());
    for ((n, &l), ext) in dim_names.iter().zip(lens).zip(extents) {
        let id = d.def_dim(0, n, if ext.is_some() { 0 } else { l })?;
        d.dims[id].len = l;
        dimids.push(id as i32);
    }
    // Chunks are cut to what the fragment may hold.
    let caps: Vec<usize> = lens.iter().zip(extents).map(|(&l, e)| e.unwrap_or(l).max(1)).collect();
    for s in specs {
        let ids: Vec<i32> = s.dims.iter().map(|&k| dimids[k]).collect();
        let vid = d.def_var(0, &s.name, s.ty, &ids)?;
        let ch: Vec<usize> = s
            .chunks
            .iter()
            .zip(&s.dims)
            .map(|(&c, &k)| c.clamp(1, caps[k]))
            .collect();
        if !ch.is_empty() {
            d.def_var_chunking(0, vid, 0, Some(&ch))?;
        }
        d.var_mut(0, vid)?.codecs = s.codecs.clone();
        for a in &s.atts {
            d.put_att(0, vid, &a.name, a.ty, a.value.clone())?;
        }
        if s.no_fill {
            d.def_var_fill(0, vid, true, None)?;
        }
    }
    crate::api::sync_all(&mut d, Durability::Visible)?;
    d.define_mode = false;
    Ok(d)
}

/// Define the master's tables of an aggregation in group `grp`: the map,
/// one URI and one identifier per fragment. The dimensions that count
/// fragments along an unlimited aggregated dimension (`unlimited`), and the
/// map's columns then, are unlimited: the tables grow with the grid.
/// `width` is the longest URI the table holds.
fn define_tables(
    ds: &mut Dataset,
    grp: usize,
    vname: &str,
    dim_names: &[String],
    unlimited: &[bool],
    counts: &[usize],
    width: usize,
) -> NcResult<(Tables, StoredForm)> {
    let nd = counts.len();
    let grows = unlimited.contains(&true);
    let maxf = counts.iter().copied().max().unwrap_or(1);
    let map_name = format!("{vname}_fragment_map");
    let uris_name = format!("{vname}_fragment_uris");
    let ids_name = format!("{vname}_fragment_identifiers");
    let j = ds.def_dim(grp, &format!("{map_name}_j"), nd)? as i32;
    let i = ds.def_dim(grp, &format!("{map_name}_i"), if grows { 0 } else { maxf })? as i32;
    let mut fdims = Vec::with_capacity(nd);
    for ((n, &c), &u) in dim_names.iter().zip(counts).zip(unlimited) {
        fdims.push(ds.def_dim(grp, &format!("{vname}_fragments_{n}"), if u { 0 } else { c })? as i32);
    }
    let map = ds.def_var(grp, &map_name, NcType::Int, &[j, i])?;
    let uv = ds.def_var(grp, &uris_name, NcType::String, &fdims)?;
    // One identifier per fragment, not a scalar: NCZarr stores a scalar as
    // a one-element array, which cfdm would index as the fragment grid.
    let iv = ds.def_var(grp, &ids_name, NcType::String, &fdims)?;
    if grows {
        // Chunks of a growing table hold many fragments' entries.
        const GROWING: usize = 256;
        let along = |ids: &[i32]| -> Vec<usize> {
            ids.iter()
                .map(|&d| {
                    let dim = &ds.dims[d as usize];
                    if dim.unlimited { GROWING } else { dim.len.max(1) }
                })
                .collect()
        };
        let (mc, fc) = (along(&[j, i]), along(&fdims));
        ds.def_var_chunking(grp, map, 0, Some(&mc))?;
        for v in [uv, iv] {
            ds.def_var_chunking(grp, v, 0, Some(&fc))?;
        }
    }
    // The text tables are fixed-length Unicode strings (`<U<n>`): cfdm
    // 1.13 reads a Zarr master through zarr-python and takes NCZarr's
    // fixed-length byte strings (`|S<n>`) for characters, zarr-python
    // refuses NCZarr's characters (`>S1`), and cfdm cannot index
    // variable-length ones (`|O`) as identifiers.
    // (Zarr v3 keeps its `string` data type.)
    let width = if ds.flavor.v3 {
        None
    } else {
        for (v, n) in [(uv, width), (iv, vname.chars().count())] {
            ds.var_mut(grp, v)?.string_layout = crate::model::StringLayout::Utf32 {
                n: n.max(1),
                big: false,
            };
        }
        Some(width.max(1))
    };
    let tables = Tables {
        grp,
        map,
        uris: uv,
        ids: iv,
        width,
    };
    let stored = StoredForm {
        dims_text: dim_names.join(" "),
        data_text: format!("map: {map_name} uris: {uris_name} identifiers: {ids_name}"),
    };
    Ok((tables, stored))
}

/// Write the master's tables of an aggregation with fragment `sizes` and
/// `uris` (whole; the tables grow with the grid).
fn put_tables(ds: &mut Dataset, t: &Tables, vname: &str, sizes: &[Vec<usize>], uris: &[String]) -> NcResult<()> {
    let nd = sizes.len();
    let maxf = sizes.iter().map(Vec::len).max().unwrap_or(1);
    let fill = i32::from_ne_bytes(NcType::Int.default_fill().try_into().map_err(|_| NcError::Internal)?);
    let mut cells = Vec::with_capacity(nd * maxf * 4);
    for s in sizes {
        for k in 0..maxf {
            let v = s.get(k).map_or(Ok(fill), |&n| {
                i32::try_from(n).map_err(|_| invalid("a fragment too long for the map"))
            })?;
            cells.extend(v.to_ne_bytes());
        }
    }
    crate::engine::put_vars(
        ds,
        t.grp,
        t.map,
        &[0, 0],
        &[nd, maxf],
        None,
        MemIn::Num {
            ty: NcType::Int,
            data: &cells,
        },
    )?;
    let zeros = vec![0usize; nd];
    let counts: Vec<usize> = sizes.iter().map(Vec::len).collect();
    let strs: Vec<Option<Vec<u8>>> = uris.iter().map(|u| Some(u.as_bytes().to_vec())).collect();
    crate::engine::put_vars(ds, t.grp, t.uris, &zeros, &counts, None, MemIn::Str(&strs))?;
    let ids: Vec<Option<Vec<u8>>> = vec![Some(vname.as_bytes().to_vec()); uris.len()];
    crate::engine::put_vars(ds, t.grp, t.ids, &zeros, &counts, None, MemIn::Str(&ids))?;
    Ok(())
}

/// The fragment shape of a variable asked to be aggregated: the one given
/// (cut to each fixed dimension's length), or the splitting algorithm's.
/// Along an unlimited dimension the algorithm sees the dimension as long
/// as the records that fill `max_bytes` (`grid::record_span`), at least
/// its current length.
fn fragment_shape(ds: &Dataset, var: &Var, req: &Request, coords: &[(usize, usize, usize)]) -> Vec<usize> {
    let shape = ds.var_shape(var);
    let unlimited: Vec<bool> = var.dimids.iter().map(|&d| ds.dims[d].unlimited).collect();
    match &req.shape {
        Some(s) => s
            .iter()
            .zip(&shape)
            .zip(&unlimited)
            .map(|((&f, &n), &u)| if u { f.max(1) } else { f.clamp(1, n.max(1)) })
            .collect(),
        None => {
            let mut known = vec![None; shape.len()];
            for &(k, cg, ci) in coords {
                known[k] = grid::axis_from_cf(&hints(&ds.groups[cg].vars[ci]));
            }
            let axes: Vec<Axis> = grid::axes(&known);
            let planned = grid::record_span(&shape, &unlimited, &var.chunks, var.ty.size(), req.max_bytes);
            grid::fragment_shape(&planned, &var.chunks, var.ty.size(), &axes, req.max_bytes)
        }
    }
}

/// Make variable `vi` of group `g`, asked to be aggregated, an aggregation:
/// its grid, its fragments, the master's tables (written by the caller),
/// its data source.
fn setup(ds: &mut Dataset, g: usize, vi: usize, level: Durability) -> NcResult<()> {
    let var = &ds.groups[g].vars[vi];
    let Some(req) = Request::of(var)? else {
        return Ok(());
    };
    check_aggregatable(ds, var)?;
    let vname = var.name.clone();
    let shape = ds.var_shape(var);
    let unlimited: Vec<bool> = var.dimids.iter().map(|&d| ds.dims[d].unlimited).collect();
    let dim_names: Vec<String> = var.dimids.iter().map(|&d| ds.dims[d].name.clone()).collect();
    let coords: Vec<(usize, usize, usize)> = var
        .dimids
        .iter()
        .enumerate()
        .filter_map(|(k, &d)| coordinate_of(ds, g, d).map(|(cg, ci)| (k, cg, ci)))
        .filter(|&(_, cg, ci)| (cg, ci) != (g, vi))
        .collect();
    let frag = fragment_shape(ds, var, &req, &coords);
    let sizes: Vec<Vec<usize>> = shape
        .iter()
        .zip(&frag)
        .map(|(&n, &f)| grid::sizes_along(n, f))
        .collect();
    let count = sizes
        .iter()
        .try_fold(1usize, |a, s| a.checked_mul(s.len()))
        .filter(|&n| n <= crate::aggregate::parse::MAX_FRAGMENTS)
        .ok_or_else(|| invalid(&format!("{vname}: too many fragments")))?;
    let mut specs = vec![VarSpec::of(var, (0..shape.len()).collect())];
    for &(k, cg, ci) in &coords {
        specs.push(VarSpec::of(&ds.groups[cg].vars[ci], vec![k]));
    }
    let maker = Maker {
        master: MasterLoc::of(&ds.path)?,
        template: req.template.clone(),
        var: vname.clone(),
        dim_names: dim_names.clone(),
        specs,
        extents: unlimited.iter().zip(&frag).map(|(&u, &f)| u.then_some(f)).collect(),
        made: std::sync::Mutex::new(Made::default()),
    };
    // The template must tell fragments apart when there may be several.
    let first = vec![0usize; sizes.len()];
    let second: Vec<usize> = sizes
        .iter()
        .zip(&unlimited)
        .map(|(s, &u)| usize::from(u || s.len() > 1))
        .collect();
    if second != first && maker.uri(&first) == maker.uri(&second) {
        return Err(invalid(&format!("{vname}: the fragment URI template needs {{index}}")));
    }
    let grid = AggWriter::grid_of(&maker, sizes);
    // The widest URI the table will hold: the grid's, or one with an index
    // of seven digits along each unlimited dimension (more fragments than
    // the read side accepts).
    let far: Vec<usize> = grid
        .sizes
        .iter()
        .zip(&unlimited)
        .map(|(s, &u)| if u { 9_999_999 } else { s.len().saturating_sub(1) })
        .collect();
    let width = grid
        .uris
        .iter()
        .map(|u| u.chars().count())
        .chain([maker.uri(&far).chars().count()])
        .max()
        .unwrap_or(1);
    let made = pool::run_jobs((0..count).collect(), |f| {
        let idx = grid.index(f);
        let lens: Vec<usize> = idx.iter().enumerate().map(|(d, &i)| grid.sizes[d][i]).collect();
        maker
            .create(&grid.paths[f], &lens)
            .and_then(|mut d| crate::api::sync_all(&mut d, level))
    });
    made.into_iter().collect::<NcResult<Vec<()>>>()?;
    let counts: Vec<usize> = grid.sizes.iter().map(Vec::len).collect();
    let (tables, stored) = define_tables(ds, g, &vname, &dim_names, &unlimited, &counts, width)?;
    let coordinates = coords
        .iter()
        .map(|&(k, cg, ci)| Coordinate {
            grp: cg,
            varid: ci as i32,
            name: ds.groups[cg].vars[ci].name.clone(),
            dim: k,
        })
        .collect();
    let var = &mut ds.groups[g].vars[vi];
    var.atts.retain(|a| !REQUEST_ATTS.contains(&a.name.as_str()));
    var.meta_dirty = true;
    var.external = Some(Arc::new(AggWriter::new(
        vname,
        stored,
        coordinates,
        tables,
        maker,
        grid,
    )));
    Ok(())
}

/// The grid index of the `f`-th fragment in row-major order.
fn grid_index(sizes: &[Vec<usize>], mut f: usize) -> Vec<usize> {
    let mut idx = vec![0usize; sizes.len()];
    for d in (0..sizes.len()).rev() {
        let n = sizes[d].len().max(1);
        idx[d] = f % n;
        f /= n;
    }
    idx
}

fn writer_of(v: &Var) -> Option<Arc<dyn crate::model::ExternalData>> {
    v.external
        .clone()
        .filter(|e| e.as_any().is_some_and(|a| a.is::<AggWriter>()))
}

/// Every aggregation being written in `ds`: its group, variable and writer.
fn writers(ds: &Dataset) -> Vec<(usize, usize, Arc<dyn crate::model::ExternalData>)> {
    let mut out = Vec::new();
    for (g, grp) in ds.groups.iter().enumerate() {
        for (vi, v) in grp.vars.iter().enumerate() {
            if let Some(w) = writer_of(v) {
                out.push((g, vi, w));
            }
        }
    }
    out
}

/// Before a sync of `ds` (nc_enddef, nc_sync, nc_close): variables asked to
/// be aggregated become aggregations; those being written grow their grid
/// to the variable's length (another variable may have grown an unlimited
/// dimension), sync their open fragments, copy the master's coordinate
/// values into them, and rewrite the master's tables when the grid grew.
pub fn before_sync(ds: &mut Dataset, level: Durability) -> NcResult<()> {
    let mut asked = Vec::new();
    for (g, grp) in ds.groups.iter().enumerate() {
        for (vi, v) in grp.vars.iter().enumerate() {
            if v.atts.has_any(&REQUEST_ATTS) {
                asked.push((g, vi));
            }
        }
    }
    for (g, vi) in asked {
        setup(ds, g, vi, level)?;
    }
    for (g, vi, ext) in writers(ds) {
        let Some(w) = ext.as_any().and_then(|a| a.downcast_ref::<AggWriter>()) else {
            continue;
        };
        let lens = ds.var_shape(&ds.groups[g].vars[vi]);
        let mut values = Vec::new();
        for c in &w.coords {
            let v = ds.var(c.grp, c.varid)?;
            if !v.data_written {
                continue;
            }
            let ty = v.ty;
            let n = ds.var_shape(v).first().copied().unwrap_or(0);
            let mut data = vec![0u8; n * ty.size()];
            crate::engine::get_vars(
                ds,
                c.grp,
                c.varid,
                &[0],
                &[n],
                None,
                crate::engine::MemOut::Num { ty, data: &mut data },
            )?;
            values.push((c.name.clone(), c.dim, data, ty));
        }
        w.flush(level, &lens, &values)?;
        if let Some(rows) = w.tables_to_write()?
            && let Err(e) = put_tables(ds, &w.tables, &w.name, &rows.sizes, &rows.uris)
        {
            w.tables_failed();
            return Err(e);
        }
    }
    Ok(())
}

/// nc_abort of `ds`: every aggregation being written closes its open
/// fragments without syncing them; when `remove` (the dataset was created
/// by this handle, and is removed) the fragments it created are removed
/// too, with the local directories made for them.
pub fn abort(ds: &Dataset, remove: bool) -> NcResult<()> {
    let mut first_err = None;
    for (_, _, ext) in writers(ds) {
        let Some(w) = ext.as_any().and_then(|a| a.downcast_ref::<AggWriter>()) else {
            continue;
        };
        w.drop_open();
        if !remove {
            continue;
        }
        let made = w.made();
        for f in &made.fragments {
            if let Err(e) = crate::api::destroy_dataset(f) {
                crate::nclog!(crate::log::Level::Error, "aggregation fragment {f}: not removed: {e:?}");
                first_err.get_or_insert(e);
            }
        }
        // Deepest first; a directory that is not empty (something else was
        // put there) stays.
        let mut dirs = made.dirs;
        dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        dirs.dedup();
        for d in dirs {
            let _ = std::fs::remove_dir(&d);
        }
    }
    first_err.map_or(Ok(()), Err)
}

/// Run `f` (the metadata writer) with every aggregation being written in
/// its stored form: a scalar with `aggregated_dimensions` and
/// `aggregated_data`; the N-d view is restored afterwards.
pub fn as_stored<R>(ds: &mut Dataset, f: impl FnOnce(&mut Dataset) -> NcResult<R>) -> NcResult<R> {
    type Saved = (
        usize,
        usize,
        Vec<usize>,
        Vec<usize>,
        Option<crate::codec::sharding::ShardLayout>,
    );
    let mut saved: Vec<Saved> = Vec::new();
    for g in 0..ds.groups.len() {
        for vi in 0..ds.groups[g].vars.len() {
            let v = &mut ds.groups[g].vars[vi];
            let Some(ext) = writer_of(v) else { continue };
            let Some(w) = ext.as_any().and_then(|a| a.downcast_ref::<AggWriter>()) else {
                continue;
            };
            saved.push((
                g,
                vi,
                std::mem::take(&mut v.dimids),
                std::mem::take(&mut v.chunks),
                v.shards.take(),
            ));
            v.atts.set(text_att("aggregated_dimensions", &w.stored.dims_text));
            v.atts.set(text_att("aggregated_data", &w.stored.data_text));
        }
    }
    let r = f(ds);
    for (g, vi, dimids, chunks, shards) in saved {
        let v = &mut ds.groups[g].vars[vi];
        v.dimids = dimids;
        v.chunks = chunks;
        v.shards = shards;
        v.atts
            .retain(|a| !crate::aggregate::parse::AGG_ATT_NAMES.contains(&a.name.as_str()));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragment_uris_follow_the_template() {
        let m = MasterLoc {
            base: crate::aggregate::fragment::Base::Dir("/data".into()),
            name: "out.zarr".into(),
            fragment: "mode=nczarr,file".into(),
            zip: false,
            s3: false,
        };
        assert_eq!(m.uri(None, "tas", &[1, 0]), "out.zarr_tas/1_0.zarr");
        assert_eq!(m.uri(Some("f/{var}.{index}.zarr"), "tas", &[2]), "f/tas.2.zarr");
        assert_eq!(
            m.open_path("out.zarr_tas/1_0.zarr"),
            "file:///data/out.zarr_tas/1_0.zarr#mode=nczarr,file"
        );
        assert_eq!(
            m.open_path("x.zip#mode=nczarr,zip"),
            "file:///data/x.zip#mode=nczarr,zip"
        );
        assert_eq!(grid_index(&[vec![1, 1, 1], vec![2, 2]], 3), vec![1, 1]);
        // In S3, the master's mode goes with each (relative) URI.
        let s3 = MasterLoc {
            base: crate::aggregate::fragment::Base::Url("http://h:1/b/k/".into()),
            name: "m.zarr".into(),
            fragment: "mode=nczarr,s3".into(),
            zip: false,
            s3: true,
        };
        assert_eq!(s3.uri(None, "tas", &[0, 2]), "m.zarr_tas/0_2.zarr#mode=nczarr,s3");
        assert_eq!(
            s3.open_path(&s3.uri(None, "tas", &[0, 2])),
            "http://h:1/b/k/m.zarr_tas/0_2.zarr#mode=nczarr,s3"
        );
    }
}
