//! The safe Rust API behind the C boundary: dataset life cycle and the
//! inquiries that need more than the model (virtual attributes, formats).
#![forbid(unsafe_code)]

pub mod cdtime;
pub mod delegated;
pub mod filter;
pub mod handles;
pub mod parallel;
pub mod quantize;
pub mod rc;
pub mod url;
pub mod utf16;

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use crate::error::{NcError, NcResult};
use crate::format::{markers, read, write};
use crate::model::types::{NC_GLOBAL, NcType};
use crate::model::{Att, AttValue, Dataset, Flavor, Group};
use crate::storage::file::FileStore;
use crate::storage::zip::ZipStore;
use crate::storage::{Durability, Store};
use url::{Location, StoreKind, Target};

pub const NC_WRITE: i32 = 0x0001;
pub const NC_NOCLOBBER: i32 = 0x0004;
const NC_DISKLESS: i32 = 0x0008;
const NC_MMAP: i32 = 0x0010;
const NC_CDF5: i32 = 0x0020;
const NC_64BIT_OFFSET: i32 = 0x0200;
const NC_NETCDF4: i32 = 0x1000;
const NC_INMEMORY: i32 = 0x8000;

/// The mode checks of netcdf-c's `check_create_mode` (libdispatch/dfile.c),
/// then those its NCZarr dispatch adds: the classic formats, diskless and
/// mmap storage do not exist for a Zarr dataset (`NC_EINVAL`, as netcdf-c
/// 4.10.1 answers for a Zarr URL).
pub fn check_create_mode(cmode: i32) -> NcResult<()> {
    let format = cmode & (NC_NETCDF4 | NC_64BIT_OFFSET | NC_CDF5);
    if format & format.wrapping_sub(1) != 0 {
        return Err(NcError::Inval);
    }
    let (mmap, inmemory, diskless) = (cmode & NC_MMAP != 0, cmode & NC_INMEMORY != 0, cmode & NC_DISKLESS != 0);
    if diskless && (inmemory || mmap) {
        return Err(NcError::Diskless);
    }
    if inmemory && mmap {
        return Err(NcError::InMemory);
    }
    if mmap && cmode & NC_NETCDF4 != 0 {
        return Err(NcError::Inval);
    }
    if cmode & (NC_64BIT_OFFSET | NC_CDF5 | NC_MMAP | NC_DISKLESS) != 0 {
        crate::nclog!(
            crate::log::Level::Error,
            "nc_create mode 0x{cmode:x}: a Zarr dataset is netCDF-4 on its own storage (no classic format, diskless or mmap)"
        );
        return Err(NcError::Inval);
    }
    Ok(())
}

/// The version string of `nc_inq_libvers`: netcdf-c's form, naming us.
pub fn libvers() -> &'static str {
    concat!("4.10.1 of nczarr-rs ", env!("CARGO_PKG_VERSION"), " $\0")
}

/// Whether our engine serves `path` (a Zarr dataset, or a Zarr URL it will
/// reject with its own error); everything else may be delegated.
pub fn is_zarr(path: &str, for_create: bool) -> bool {
    !matches!(url::classify(path, for_create), Ok(Target::NotZarr))
}

fn zarr_location(path: &str, for_create: bool) -> NcResult<Location> {
    match url::classify(path, for_create)? {
        Target::Zarr(loc) => Ok(loc),
        // Delegation of non-Zarr paths to the system libnetcdf comes later;
        // without it, netcdf-c's answer for an unknown format.
        Target::NotZarr => {
            crate::nclog!(crate::log::Level::Note, "{}: not a Zarr dataset", path);
            Err(NcError::NotNc)
        }
    }
}

/// The store of a dataset: opened, or created (`create` is `Some(noclobber)`)
/// replacing only what looks like a Zarr dataset.
fn file_store(loc: &Location, create: Option<bool>, writable: bool) -> NcResult<Arc<dyn Store>> {
    let replace = create.map(markers::replace_rule);
    let store: Arc<dyn Store> = match loc.kind {
        StoreKind::File => {
            let p = Path::new(&loc.path);
            Arc::new(match replace {
                Some(r) => FileStore::create(p, r)?,
                None => FileStore::open(p, writable)?,
            })
        }
        StoreKind::Zip => {
            let p = Path::new(&loc.path);
            Arc::new(match replace {
                Some(r) => ZipStore::create(p, r)?,
                None => ZipStore::open(p, writable, &markers::is_marker)?,
            })
        }
        StoreKind::S3 => Arc::new(crate::storage::s3::open_url(
            &loc.path,
            &loc.fragment,
            replace,
            writable,
        )?),
    };
    Ok(store)
}

/// nc_create.
pub fn create(path: &str, cmode: i32) -> NcResult<i32> {
    handles::insert(create_dataset(path, cmode)?)
}

/// A new dataset at `path`, in define mode, its root group stored, not yet a
/// handle: what nc_create makes (and the fragments of an aggregation).
pub fn create_dataset(path: &str, cmode: i32) -> NcResult<Dataset> {
    check_create_mode(cmode)?;
    rc::ensure_loaded();
    let loc = zarr_location(path, true)?;
    let store = file_store(&loc, Some(cmode & NC_NOCLOBBER != 0), true)?;
    let mut ds = new_dataset(path, &loc, store);
    // The root group exists on storage from the start (on the disk too at
    // the nc_enddef of durable mode, which syncs it with everything else).
    write::sync_metadata(&mut ds, &crate::engine::put_all)?;
    ds.store.flush(Durability::Visible)?;
    Ok(ds)
}

/// The dataset another process has just created at `path` (with
/// `create_dataset`), as the creator's model has it before its root group
/// is written: the other processes of `nc_create_par` open it so.
pub fn attach_created(path: &str) -> NcResult<Dataset> {
    rc::ensure_loaded();
    let loc = zarr_location(path, true)?;
    let store = file_store(&loc, None, true)?;
    Ok(new_dataset(path, &loc, store))
}

/// The model of a new, empty dataset at `loc`.
fn new_dataset(path: &str, loc: &Location, store: Arc<dyn Store>) -> Dataset {
    let durable = durable(loc);
    if durable {
        store.expect_stable();
    }
    let v3 = loc.zarr_format.unwrap_or_else(url::default_zarr_format) == 3;
    Dataset {
        path: path.to_string(),
        store,
        groups: vec![Group::new("/", None)],
        dims: Vec::new(),
        writable: true,
        define_mode: true,
        fill_mode: true,
        flavor: Flavor {
            pure_zarr: loc.zarr,
            xarray: loc.xarray_dims,
            consolidated: loc.consolidated,
            v3,
            shard_target: loc.shard_target,
        },
        ncproperties: Some(write::ncproperties()),
        superblock_version: if v3 { 3 } else { 2 },
        meta_dirty: true,
        created: true,
        deferred_bytes: 0,
        aggregation: None,
        reported_format: None,
        durable,
        parallel: None,
    }
}

/// nc_open.
pub fn open(path: &str, mode: i32) -> NcResult<i32> {
    let ds = open_view(path, mode, &[])?;
    handles::insert(ds)
}

/// Open a Zarr dataset as `nc_open` shows it: opened read-only, with its
/// aggregation variables expanded (`crate::aggregate`) unless the raw view
/// is asked for (mode key `aggregation=raw`, `NCZARR_AGGREGATION=raw`). A
/// dataset opened for writing is always shown as stored. `ancestors` are
/// the masters this dataset is a fragment of (for nested aggregations).
pub fn open_view(path: &str, mode: i32, ancestors: &[String]) -> NcResult<Dataset> {
    open_view_confined(path, mode, ancestors, false)
}

/// [`open_view`] of a fragment whose master confines fragment URIs
/// (`inherited`): then this dataset's own fragments are confined too, to
/// its directory, whatever its URL's mode keys say.
pub fn open_view_confined(path: &str, mode: i32, ancestors: &[String], inherited: bool) -> NcResult<Dataset> {
    rc::ensure_loaded();
    let loc = zarr_location(path, false)?;
    let writable = mode & NC_WRITE != 0;
    let store = file_store(&loc, None, writable)?;
    let opts = read::OpenOptions {
        xarray: loc.xarray_dims,
        consolidated: loc.consolidated,
        writable,
        zarr_format: loc.zarr_format,
        shard_target: loc.shard_target,
        pure_zarr: loc.zarr,
    };
    let mut ds = read::open(store, path, opts)?;
    ds.durable = durable(&loc);
    if ds.durable && writable {
        ds.store.expect_stable();
    }
    if !writable && !loc.aggregation_raw && !crate::aggregate::raw_by_env() {
        let master = crate::aggregate::MasterAt {
            uri: path.to_string(),
            base: crate::aggregate::fragment::Base::of_master(&loc.path, loc.kind != StoreKind::S3),
            confined: inherited
                || loc
                    .aggregation_confined
                    .unwrap_or_else(crate::aggregate::confined_by_env),
        };
        crate::aggregate::expand(&mut ds, &master, ancestors)?;
    }
    Ok(ds)
}

/// Whether nc_enddef and nc_close of the dataset at `loc` make what was
/// written durable on the disk: the URL's mode key `durable` (`durable=no`
/// turns it off), else `NCZARR_DURABLE`, else no (netcdf-c never syncs).
fn durable(loc: &Location) -> bool {
    loc.durable.unwrap_or_else(url::env_durable)
}

/// How far nc_enddef and nc_close flush the store: complete and visible to
/// every reader (consistent after a kill), and also on the disk in durable
/// mode. nc_sync always goes to the disk.
fn close_level(ds: &Dataset) -> Durability {
    if ds.durable {
        Durability::Stable
    } else {
        Durability::Visible
    }
}

/// Write everything pending: chunks, then metadata, then flush the store to
/// `level`.
/// On a parallel dataset, a collective point (`parallel::collective_point`).
pub fn sync_all(ds: &mut Dataset, level: Durability) -> NcResult<()> {
    if !ds.writable {
        return Ok(());
    }
    if let Some(par) = parallel::of(ds) {
        return parallel::collective_point(ds, &par, Ok(()), Some(level));
    }
    // Variables to be aggregated get their fragments, and those being
    // written flush theirs (`aggregate::write`); the master stores them as
    // aggregation variables.
    crate::aggregate::write::before_sync(ds, level)?;
    crate::engine::flush_chunks(ds)?;
    crate::aggregate::write::as_stored(ds, |ds| write::sync_metadata(ds, &crate::engine::put_all))?;
    Ok(ds.store.flush(level)?)
}

/// nc_enddef (also entered implicitly by data access).
pub fn enddef(ds: &mut Dataset) -> NcResult<()> {
    let level = close_level(ds);
    end_define(ds, level)
}

fn end_define(ds: &mut Dataset, level: Durability) -> NcResult<()> {
    if !ds.define_mode {
        return Err(NcError::NotInDefine);
    }
    sync_all(ds, level)?;
    ds.define_mode = false;
    Ok(())
}

/// Data access leaves define mode, as netCDF-4 does (the classic model's
/// NC_EINDEFINE does not apply to NCZarr). On a parallel dataset leaving
/// define mode is collective, and a data call may fail on one process
/// before it gets here: NC_EINDEFINE, nc_enddef must come first.
pub fn begin_data_access(ds: &mut Dataset) -> NcResult<()> {
    if ds.define_mode && ds.writable {
        if ds.parallel.is_some() {
            return Err(NcError::InDefine);
        }
        enddef(ds)?;
    }
    Ok(())
}

/// nc_redef.
pub fn redef(ds: &mut Dataset) -> NcResult<()> {
    if !ds.writable {
        return Err(NcError::Perm);
    }
    if ds.define_mode {
        return Err(NcError::InDefine);
    }
    ds.define_mode = true;
    Ok(())
}

/// nc_sync: in define mode it ends define mode first, as netCDF-4 does.
/// It keeps netcdf-c's documented meaning, "flush to disk": what the
/// dataset wrote since its last durable flush is made durable, whatever the
/// mode.
pub fn sync(ds: &mut Dataset) -> NcResult<()> {
    if ds.define_mode {
        return end_define(ds, Durability::Stable);
    }
    sync_all(ds, Durability::Stable)
}

/// nc_close.
pub fn close(ncid: i32) -> NcResult<()> {
    // Any group's ncid closes its dataset, as in netcdf-c.
    let (shared, _) = handles::get(ncid)?;
    let result = {
        let mut ds = shared.lock().map_err(|_| NcError::Internal)?;
        let level = close_level(&ds);
        let r = sync_all(&mut ds, level);
        ds.define_mode = false;
        free_model_later(&mut ds);
        r
    };
    handles::remove(ncid)?;
    result
}

/// From this many variables on, a closed dataset's variables are freed on
/// the pool, after `nc_close` returns (thousands of them take milliseconds).
const FREE_LATER_MIN: usize = 256;

/// Hand the variables of a dataset being closed to the pool to free: only
/// plain memory (no variable reads from elsewhere, no parallel state).
fn free_model_later(ds: &mut Dataset) {
    let vars: usize = ds.groups.iter().map(|g| g.vars.len()).sum();
    let plain = ds.parallel.is_none() && ds.groups.iter().all(|g| g.vars.iter().all(|v| v.external.is_none()));
    if vars >= FREE_LATER_MIN && plain {
        crate::runtime::pool::drop_later(std::mem::take(&mut ds.groups));
    }
}

/// nc_abort: drop pending changes; a dataset created by this handle is
/// removed, as netcdf-c does (even after nc_enddef).
pub fn abort(ncid: i32) -> NcResult<()> {
    let shared = handles::remove(ncid)?;
    let ds = shared.lock().map_err(|_| NcError::Internal)?;
    if let Some(par) = parallel::of(&ds) {
        return parallel::abort(&ds, &par);
    }
    // Aggregations being written close their fragments; those this
    // handle created go with the master it created.
    let remove = ds.created && ds.writable;
    let fragments = crate::aggregate::write::abort(&ds, remove);
    if remove {
        ds.store.destroy()?;
    }
    fragments
}

/// Remove the Zarr dataset at `path` (a fragment of an aggregation whose
/// master nc_abort removes).
pub fn destroy_dataset(path: &str) -> NcResult<()> {
    let loc = zarr_location(path, false)?;
    let store = file_store(&loc, None, true)?;
    Ok(store.destroy()?)
}

/// nc_put_vars on a dataset (`grp`, `varid` already checked by the caller):
/// the engine's, or on a parallel dataset this process's half of it
/// (`parallel::put_vars`; `parallel::after_put` ends the call).
#[allow(clippy::too_many_arguments)]
pub fn put_vars(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    start: &[usize],
    count: &[usize],
    stride: Option<&[isize]>,
    src: crate::engine::MemIn<'_>,
) -> NcResult<()> {
    match parallel::of(ds) {
        Some(par) => parallel::put_vars(ds, &par, grp, varid, start, count, stride, src),
        None => crate::engine::put_vars(ds, grp, varid, start, count, stride, src),
    }
}

/// Whether the dataset has netCDF-4's virtual attributes (a netCDF-3
/// master read through the system libnetcdf has not).
fn is_nc4(ds: &Dataset) -> bool {
    ds.reported_format.is_none_or(|f| f.format == 3 || f.format == 4)
}

/// Look an attribute up, answering the virtual ones netcdf-c answers by name.
pub fn att_lookup<'a>(ds: &'a Dataset, grp: usize, varid: i32, name: &str) -> NcResult<Cow<'a, Att>> {
    match ds.att(grp, varid, name) {
        Ok(a) => return Ok(Cow::Borrowed(a)),
        Err(NcError::NotAtt) => {}
        Err(e) => return Err(e),
    }
    if varid == NC_GLOBAL {
        let int = |v: i32| Att {
            name: name.to_string(),
            ty: NcType::Int,
            value: AttValue::Bytes(v.to_ne_bytes().to_vec()),
        };
        match name {
            "_NCProperties" => {
                if let Some(p) = &ds.ncproperties {
                    return Ok(Cow::Owned(write::text_att(name, p)));
                }
            }
            "_IsNetcdf4" if is_nc4(ds) => return Ok(Cow::Owned(int(1))),
            "_SuperblockVersion" if is_nc4(ds) => return Ok(Cow::Owned(int(ds.superblock_version))),
            "_Aggregation" => {
                if let Some(a) = &ds.aggregation {
                    return Ok(Cow::Owned(write::text_att(name, a)));
                }
            }
            _ => {}
        }
    } else if name == "_Codecs"
        && let Some(t) = write::codecs_text(ds.var(grp, varid)?)
    {
        return Ok(Cow::Owned(write::text_att(name, &t)));
    }
    Err(NcError::NotAtt)
}

/// `nc_def_var_zarr_shards` (include/netcdf_zarr.h): store a Zarr v3
/// variable's chunks in shards of `sizes` elements per dimension, each a
/// multiple of the chunk size; None stores every chunk as its own object.
/// Errors: NC_EINVAL for a dataset that is not v3, a scalar, a string
/// variable, or sizes that are not whole chunks (or too many chunks per
/// shard); NC_ELATEDEF once the variable is stored; NC_EPERM read-only.
pub fn def_var_shards(ds: &mut Dataset, grp: usize, varid: i32, sizes: Option<&[usize]>) -> NcResult<()> {
    let v3 = ds.flavor.v3;
    let writable = ds.writable;
    let v = ds.var_mut(grp, varid)?;
    if !writable {
        return Err(NcError::Perm);
    }
    if v.created {
        return Err(NcError::LateDef);
    }
    let Some(sizes) = sizes else {
        v.shards = None;
        v.meta_dirty = true;
        return Ok(());
    };
    let invalid = |why: &str| {
        crate::nclog!(crate::log::Level::Error, "nc_def_var_zarr_shards: {}", why);
        NcError::Inval
    };
    if !v3 {
        return Err(invalid("shards need Zarr v3 (mode v3)"));
    }
    if v.is_scalar() || v.ty == NcType::String {
        return Err(invalid("scalars and strings are not sharded"));
    }
    let n = v.chunks.len();
    if sizes.len() < n || sizes[..n].iter().zip(&v.chunks).any(|(&s, &c)| s == 0 || s % c != 0) {
        return Err(invalid("shard sizes must be positive multiples of the chunk sizes"));
    }
    let layout = crate::codec::sharding::ShardLayout::standard(sizes[..n].to_vec(), v.chunks.clone())
        .ok_or_else(|| invalid("too many chunks in one shard"))?;
    v.shards = Some(layout);
    v.meta_dirty = true;
    ds.define_mode = true;
    Ok(())
}

/// `nc_inq_var_zarr_shards`: the shard sizes of a variable, None when its
/// chunks are not sharded.
pub fn inq_var_shards(ds: &Dataset, grp: usize, varid: i32) -> NcResult<Option<Vec<usize>>> {
    Ok(ds.var(grp, varid)?.shards.as_ref().map(|l| l.shard.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Placement;
    use std::sync::Mutex;

    /// A dataset in a directory (NCZarr, v2 or v3) with dimension `x` and
    /// one array `old`, stored, whose attributes changed since: the
    /// directory (removed when dropped), its URL, the dataset and `x`.
    fn with_a_stored_array(v3: bool) -> (tempfile::TempDir, String, Dataset, i32) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.zarr");
        let mode = if v3 { "nczarr,v3,file" } else { "nczarr,file" };
        let url = format!("file://{}#mode={mode}", path.display());
        let mut ds = create_dataset(&url, NC_NETCDF4).unwrap();
        let x = ds.def_dim(0, "x", 4).unwrap() as i32;
        ds.def_var(0, "old", NcType::Int, &[x]).unwrap();
        sync_all(&mut ds, Durability::Visible).unwrap();
        ds.put_att(
            0,
            0,
            "units",
            NcType::Char,
            crate::model::AttValue::Bytes(b"m".to_vec()),
        )
        .unwrap();
        (dir, url, ds, x)
    }

    /// Many arrays in a directory (built and stored on the pool, array by
    /// array): each new array's objects as new objects, in order (the one
    /// that makes it an array last), an array stored before replaced, the
    /// groups after every array.
    #[test]
    fn many_arrays_keep_each_arrays_order_and_placement() {
        for v3 in [false, true] {
            let (_dir, url, mut ds, x) = with_a_stored_array(v3);
            let n = 200;
            for i in 0..n {
                ds.def_var(0, &format!("v{i}"), NcType::Float, &[x]).unwrap();
            }
            let calls: Mutex<Vec<(Placement, Vec<String>)>> = Mutex::new(Vec::new());
            let record = |store: &dyn Store, objs: write::Batch, how: Placement| {
                let keys = objs
                    .iter()
                    .map(|(k, _)| k.as_str().trim_start_matches('/').to_string())
                    .collect();
                calls.lock().unwrap().push((how, keys));
                crate::engine::put_all(store, objs, how)
            };
            write::sync_metadata(&mut ds, &record).unwrap();
            let calls = calls.into_inner().unwrap();
            let at = |key: &str| {
                let found: Vec<(usize, Placement)> = calls
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, keys))| keys.iter().any(|k| k == key))
                    .map(|(i, (how, _))| (i, *how))
                    .collect();
                assert_eq!(found.len(), 1, "{key} stored once (v3 {v3})");
                found[0]
            };
            let group = at(if v3 { "zarr.json" } else { ".zattrs" }).0;
            for i in 0..n {
                let last = if v3 {
                    at(&format!("v{i}/zarr.json"))
                } else {
                    let attrs = at(&format!("v{i}/.zattrs"));
                    let array = at(&format!("v{i}/.zarray"));
                    assert_eq!(attrs.1, Placement::New);
                    assert!(attrs.0 < array.0, "v{i}: .zattrs before .zarray");
                    array
                };
                assert_eq!(last.1, Placement::New);
                assert!(last.0 < group, "v{i} before the group");
            }
            let old = at(if v3 { "old/zarr.json" } else { "old/.zarray" });
            assert_eq!(old.1, Placement::Replace);
            assert!(old.0 < group);
            // What was stored reads back.
            drop(ds);
            let ncid = open(&url, 0).unwrap();
            let (shared, _) = handles::get(ncid).unwrap();
            assert_eq!(shared.lock().unwrap().groups[0].vars.len(), n + 1);
            close(ncid).unwrap();
        }
    }

    /// A sync of a few arrays stores a new array's objects as new ones,
    /// `.zattrs` for every new array before any `.zarray` (which makes it an
    /// array); an array stored before has its objects replaced; the groups
    /// come last.
    #[test]
    fn new_arrays_are_stored_as_new_objects_in_steps() {
        for v3 in [false, true] {
            let (_dir, url, mut ds, x) = with_a_stored_array(v3);
            ds.def_var(0, "a", NcType::Int, &[x]).unwrap();
            ds.def_var(0, "b", NcType::Float, &[x]).unwrap();
            let calls: Mutex<Vec<(Placement, Vec<String>)>> = Mutex::new(Vec::new());
            let record = |store: &dyn Store, objs: write::Batch, how: Placement| {
                let keys = objs.iter().map(|(k, _)| k.as_str().to_string()).collect();
                calls.lock().unwrap().push((how, keys));
                crate::engine::put_all(store, objs, how)
            };
            write::sync_metadata(&mut ds, &record).unwrap();
            let calls = calls.into_inner().unwrap();
            let want: Vec<(Placement, Vec<&str>)> = if v3 {
                vec![
                    (Placement::Replace, vec!["old/zarr.json"]),
                    (Placement::New, vec!["a/zarr.json", "b/zarr.json"]),
                    (Placement::Replace, vec!["zarr.json"]),
                ]
            } else {
                vec![
                    (Placement::Replace, vec!["old/.zattrs", "old/.zarray"]),
                    (Placement::New, vec!["a/.zattrs", "b/.zattrs"]),
                    (Placement::New, vec!["a/.zarray", "b/.zarray"]),
                    (Placement::Replace, vec![".zgroup", ".zattrs"]),
                ]
            };
            let got: Vec<(Placement, Vec<&str>)> = calls
                .iter()
                .map(|(how, keys)| (*how, keys.iter().map(|k| k.trim_start_matches('/')).collect()))
                .collect();
            assert_eq!(got, want, "v3 {v3}");
            // What was stored reads back.
            drop(ds);
            let ncid = open(&url, 0).unwrap();
            let (shared, _) = handles::get(ncid).unwrap();
            let names: Vec<String> = shared.lock().unwrap().groups[0]
                .vars
                .iter()
                .map(|v| v.name.clone())
                .collect();
            assert_eq!(names, ["old", "a", "b"]);
            close(ncid).unwrap();
        }
    }
}
