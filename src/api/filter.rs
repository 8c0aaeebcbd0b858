//! The filter API of `netcdf_filter.h` on the dataset model: defining filters
//! on variables (with netcdf-c's checks and ordering), the filter inquiries,
//! and resolving a variable's codec chain before data access.
//!
//! Codec maps may come from plugins, whose functions may call back into the
//! library: every codec-map call here is made with no dataset lock held (the
//! lock is taken to gather what is needed, released, and taken again to
//! store the result).
#![forbid(unsafe_code)]

use std::sync::Arc;

use serde_json::Value;

use crate::api::handles;
use crate::codec;
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::model::ResolvedChain;
use crate::model::types::NcType;

pub const DEFLATE: u32 = 1;
pub const SHUFFLE: u32 = 2;
pub const FLETCHER32: u32 = 3;
pub const SZIP: u32 = 4;
pub const BZIP2: u32 = 307;
pub const ZSTD: u32 = 32015;
pub const BLOSC: u32 = 32001;
/// netcdf-c's limit on szip pixels per block.
const MAX_PIXELS_PER_BLOCK: u32 = 32;

/// One codec of a variable as the filter API sees it: its HDF5 id (0 when no
/// filter provides it) and visible parameters (`None` when unavailable).
#[derive(Debug, Clone)]
pub struct FilterInfo {
    pub id: u32,
    pub params: Option<Vec<u32>>,
}

/// The filters of a chain of codec JSON values (no lock needed).
pub fn filters_of(codecs: &[Value], type_size: usize) -> Vec<FilterInfo> {
    codecs
        .iter()
        .map(|c| {
            let name = c.get("id").and_then(Value::as_str).unwrap_or("");
            let Some(map) = codec::codec_by_id(name) else {
                return FilterInfo { id: 0, params: None };
            };
            let id = map.hdf5_id();
            if codec::filter(id).is_none() {
                return FilterInfo { id: 0, params: None };
            }
            let mut params = map.codec_to_hdf5(&c.to_string()).ok();
            // This library writes shuffle's real element size where netcdf-c
            // writes 0; both read back as netcdf-c reports them: no parameters.
            if id == SHUFFLE && params.as_deref() == Some(&[type_size as u32][..]) {
                params = Some(vec![]);
            }
            FilterInfo { id, params }
        })
        .collect()
}

/// A variable's codecs and stored element size, read under the lock.
fn var_codecs(ncid: i32, varid: i32) -> NcResult<(Vec<Value>, usize)> {
    handles::with(ncid, |ds, grp| {
        let v = ds.var(grp, varid)?;
        Ok((v.codecs.clone(), v.stored_elem_size()))
    })
}

/// `nc_inq_var_filter_ids`: one id per codec, 0 for a codec without a filter.
pub fn inq_ids(ncid: i32, varid: i32) -> NcResult<Vec<u32>> {
    let (codecs, es) = var_codecs(ncid, varid)?;
    Ok(filters_of(&codecs, es).into_iter().map(|f| f.id).collect())
}

/// `nc_inq_var_filter_info`: the visible parameters of filter `id`.
pub fn inq_info(ncid: i32, varid: i32, id: u32) -> NcResult<Vec<u32>> {
    let (codecs, es) = var_codecs(ncid, varid)?;
    let found = filters_of(&codecs, es).into_iter().find(|f| f.id == id && id != 0);
    match found.and_then(|f| f.params) {
        Some(p) => Ok(p),
        None => {
            crate::nclog!(Level::Warn, "Undefined filter: {id}");
            Err(NcError::NoFilter)
        }
    }
}

/// `nc_inq_var_filter_info` for a filter that may be absent: `None` then.
pub fn inq_info_opt(ncid: i32, varid: i32, id: u32) -> NcResult<Option<Vec<u32>>> {
    match inq_info(ncid, varid, id) {
        Ok(p) => Ok(Some(p)),
        Err(NcError::NoFilter) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `nc_inq_filter_avail`.
pub fn avail(ncid: i32, id: u32) -> NcResult<()> {
    handles::get(ncid)?;
    if codec::available(id) {
        Ok(())
    } else {
        crate::nclog!(Level::Note, "filter {id} is not available");
        Err(NcError::NoFilter)
    }
}

/// `nc_def_var_filter`: add filter `id` with visible parameters `params`, or
/// replace the parameters of the one already there (which keeps its place).
/// New filters go last, except fletcher32 (first) and shuffle (first, or
/// right after fletcher32), as netcdf-c places them for HDF5.
pub fn def_filter(ncid: i32, varid: i32, id: u32, params: &[u32]) -> NcResult<()> {
    // Checks in netcdf-c's order, under the lock.
    let (ty, type_size, codecs, nelems) = handles::with(ncid, |ds, grp| {
        if !ds.define_mode {
            return Err(NcError::InDefine);
        }
        let v = ds.var(grp, varid)?;
        if v.is_scalar() {
            return Err(NcError::Inval);
        }
        if v.created {
            return Err(NcError::LateDef);
        }
        let nelems: u64 = ds.var_shape(v).iter().filter(|&&n| n > 0).map(|&n| n as u64).product();
        Ok((v.ty, v.stored_elem_size(), v.codecs.clone(), nelems))
    })?;
    let present = filters_of(&codecs, type_size);
    let has = |fid: u32| present.iter().any(|f| f.id == fid);
    if id == DEFLATE {
        if params.len() != 1 {
            return Err(NcError::Filter);
        }
        // netcdf-c checks the level only for a new deflate filter (and then
        // writes a dataset it cannot read); this library always checks it.
        if params[0] > 9 {
            return Err(NcError::Inval);
        }
        if !has(DEFLATE) && has(SZIP) {
            return Err(NcError::Inval);
        }
    }
    if id == SZIP {
        if !has(SZIP) {
            if params.len() != 2 {
                return Err(NcError::Filter);
            }
            if !params[1].is_multiple_of(2) || params[1] > MAX_PIXELS_PER_BLOCK || has(DEFLATE) {
                return Err(NcError::Inval);
            }
        }
        if params.get(1).is_some_and(|&p| u64::from(p) > nelems) {
            return Err(NcError::Inval);
        }
    }
    let (Some(map), Some(_)) = (codec::codec_by_hdf5(id), codec::filter(id)) else {
        if id == SZIP {
            crate::nclog!(
                Level::Error,
                "szip is not built in (this build found no libaec) and no plugin provides filter 4"
            );
        }
        crate::nclog!(Level::Warn, "Undefined filter: {id}");
        return Err(NcError::NoFilter);
    };
    if ty == NcType::String {
        // As netcdf-c: filters on variable-length data are accepted and ignored.
        crate::nclog!(
            Level::Warn,
            "Filters cannot be applied to variable length data types; ignored"
        );
        return Ok(());
    }
    // Shuffle's JSON records the real element size (netcdf-c writes 0).
    let visible: Vec<u32> = if id == SHUFFLE && params.is_empty() {
        vec![type_size as u32]
    } else {
        params.to_vec()
    };
    let text = map.hdf5_to_codec(&visible)?;
    let json: Value = serde_json::from_str(&text).map_err(|_| {
        crate::nclog!(Level::Error, "codec for filter {id} wrote invalid JSON: {text}");
        NcError::Filter
    })?;
    handles::with(ncid, |ds, grp| {
        if !ds.define_mode {
            return Err(NcError::InDefine);
        }
        let v = ds.var_mut(grp, varid)?;
        if v.created {
            return Err(NcError::LateDef);
        }
        let ids: Vec<u32> = v
            .codecs
            .iter()
            .map(|c| {
                c.get("id")
                    .and_then(Value::as_str)
                    .and_then(codec::codec_by_id)
                    .map_or(0, |m| m.hdf5_id())
            })
            .collect();
        if let Some(i) = ids.iter().position(|&x| x == id) {
            v.codecs[i] = json;
        } else {
            let at = match id {
                FLETCHER32 => 0,
                SHUFFLE => usize::from(ids.first() == Some(&FLETCHER32)),
                _ => v.codecs.len(),
            };
            v.codecs.insert(at, json);
        }
        v.chain = None;
        v.meta_dirty = true;
        Ok(())
    })
}

/// Check that a variable exists and may still be given filters (the checks
/// netcdf-c makes before looking at the arguments of `nc_def_var_deflate`).
fn check_definable(ncid: i32, varid: i32) -> NcResult<()> {
    handles::with(ncid, |ds, grp| {
        if !ds.writable {
            return Err(NcError::Perm);
        }
        let v = ds.var(grp, varid)?;
        if v.created {
            return Err(NcError::LateDef);
        }
        Ok(())
    })
}

/// `nc_def_var_deflate`: shuffle first (if asked), then deflate.
pub fn def_deflate(ncid: i32, varid: i32, shuffle: bool, deflate: bool, level: i32) -> NcResult<()> {
    check_definable(ncid, varid)?;
    if deflate && !(0..=9).contains(&level) {
        return Err(NcError::Inval);
    }
    if shuffle {
        def_filter(ncid, varid, SHUFFLE, &[])?;
    }
    if deflate {
        def_filter(ncid, varid, DEFLATE, &[level as u32])?;
    }
    Ok(())
}

/// `nc_def_var_fletcher32`.
pub fn def_fletcher32(ncid: i32, varid: i32, on: bool) -> NcResult<()> {
    check_definable(ncid, varid)?;
    if on {
        def_filter(ncid, varid, FLETCHER32, &[])?;
    }
    Ok(())
}

/// `nc_inq_var_deflate`: (shuffle, deflate, level).
pub fn inq_deflate(ncid: i32, varid: i32) -> NcResult<(bool, bool, i32)> {
    let ids = inq_ids(ncid, varid)?;
    let level = match inq_info_opt(ncid, varid, DEFLATE)? {
        Some(p) => p.first().map_or(0, |&l| l as i32),
        None => 0,
    };
    Ok((ids.contains(&SHUFFLE), ids.contains(&DEFLATE), level))
}

/// `nc_def_var_zstandard`.
pub fn def_zstandard(ncid: i32, varid: i32, level: i32) -> NcResult<()> {
    avail(ncid, ZSTD)?;
    if !(codec::zstd::MIN_LEVEL..=codec::zstd::MAX_LEVEL).contains(&level) {
        return Err(NcError::Inval);
    }
    def_filter(ncid, varid, ZSTD, &[level as u32])
}

/// `nc_def_var_bzip2`.
pub fn def_bzip2(ncid: i32, varid: i32, level: i32) -> NcResult<()> {
    avail(ncid, BZIP2)?;
    if !(1..=9).contains(&level) {
        return Err(NcError::Inval);
    }
    def_filter(ncid, varid, BZIP2, &[level as u32])
}

/// `nc_def_var_blosc`.
pub fn def_blosc(ncid: i32, varid: i32, sub: u32, level: u32, blocksize: u32, shuffle: u32) -> NcResult<()> {
    avail(ncid, BLOSC)?;
    if shuffle > 2 || sub > 5 {
        return Err(NcError::Inval);
    }
    def_filter(ncid, varid, BLOSC, &[0, 0, 0, blocksize, level, shuffle, sub])
}

/// The parameters of a standard filter, for the `nc_inq_var_<name>`
/// functions: `None` when the variable does not use it.
pub fn inq_standard(ncid: i32, varid: i32, id: u32) -> NcResult<Option<Vec<u32>>> {
    avail(ncid, id)?;
    inq_info_opt(ncid, varid, id)
}

/// Resolve a variable's codec chain for data access, with no lock held while
/// codec maps run (plugins may call back into the library). Cheap when the
/// chain is current.
pub fn ready_chain(ncid: i32, varid: i32) -> NcResult<()> {
    let need = handles::with(ncid, |ds, grp| {
        let v = ds.var(grp, varid)?;
        if v.codecs.is_empty() {
            return Ok(None);
        }
        if v.chain.as_ref().is_some_and(|c| v.chain_key_matches(&c.key)) {
            return Ok(None);
        }
        let mut ctx = v.codec_context(ncid, varid);
        ctx.last_dim_len = ds.var_shape(v).last().map(|&n| n as u64);
        Ok(Some((v.name.clone(), v.chain_key(), ctx)))
    })?;
    let Some((name, key, ctx)) = need else {
        return Ok(());
    };
    let chain = codec::resolve(&name, &key.codecs, &ctx).map(Arc::new);
    handles::with(ncid, |ds, grp| {
        let v = ds.var_mut(grp, varid)?;
        if v.chain_key_matches(&key) {
            v.chain = Some(ResolvedChain { key, chain });
        }
        Ok(())
    })
}
