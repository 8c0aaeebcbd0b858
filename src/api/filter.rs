//! The filter API of `netcdf_filter.h` on the dataset model: defining filters
//! on variables (with netcdf-c's checks and ordering), the filter inquiries,
//! resolving a variable's codec chain before data access, and the
//! filter-spec syntax of `netcdf_aux.h` (`parse_spec`, `parse_spec_list`:
//! what ncgen and nccopy read `_Filter` and `-F` with).
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

// ----- filter specs (netcdf_aux.h) -----
//
// Filter specs follow netcdf-c 4.9.0 (4.10.1 parses the same way): a spec is
// `id,param,param,...`; each parameter is an unsigned 32-bit integer unless
// its last one or two characters tag it: `b`/`B` byte and `s`/`S` short
// (masked to 8/16 bits), `u`/`U` unsigned int, `f`/`F` float (its 32 bits),
// `d`/`D` double and `l`/`L` (`ul`, `ll`...) 64-bit integer, which take two
// parameters (low word first, as HDF5 filters expect after
// `ncaux_h5filterspec_fix8`). A list is specs separated by `|`, optionally
// after a `[format]` prefix. Every malformed spec is NC_EINVAL.

/// One filter spec: the HDF5 filter id and its parameter words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterSpec {
    pub id: u32,
    pub params: Vec<u32>,
}

/// A list of filter specs and the format of its `[n]` prefix (0 without).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterSpecList {
    pub format: i32,
    pub specs: Vec<FilterSpec>,
}

/// The type a parameter's trailing one or two characters give it, and
/// whether it is unsigned (netcdf-c's `gettype`).
fn param_type(p: &[u8]) -> (u8, bool) {
    let (q0, q1) = match p.len() {
        0 => return (0, false),
        1 | 2 => (p[p.len() - 1], 0),
        n => (p[n - 2], p[n - 1]),
    };
    let mut unsigned = q0 == b'u' || q0 == b'U';
    let c = if q1 == 0 { q0 } else { q1 };
    let t = match c {
        b'f' | b'F' | b'.' => b'f',
        b'd' | b'D' => b'd',
        b'b' | b'B' => b'b',
        b's' | b'S' => b's',
        b'l' | b'L' => b'l',
        b'0'..=b'9' => b'i',
        b'u' | b'U' => {
            unsigned = true;
            b'i'
        }
        _ => 0,
    };
    (t, unsigned)
}

/// `sscanf("%u"/"%d"/"%llu"/"%lld")`: optional blanks and sign, then at
/// least one digit; the digits that follow stop at the first non-digit.
/// Saturates like strtoull/strtoll, and returns the value as 64 bits
/// (negation wraps, as the C conversions do).
fn scan_int(s: &[u8], signed: bool) -> Option<u64> {
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let start = i;
    let mut v: u64 = 0;
    let mut overflow = false;
    while i < s.len() && s[i].is_ascii_digit() {
        match v.checked_mul(10).and_then(|x| x.checked_add(u64::from(s[i] - b'0'))) {
            Some(x) => v = x,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return None;
    }
    if signed {
        let limit = if neg { 1u64 << 63 } else { (1u64 << 63) - 1 };
        if overflow || v > limit {
            v = limit;
        }
    } else if overflow {
        v = u64::MAX;
    }
    Some(if neg { v.wrapping_neg() } else { v })
}

/// `sscanf("%lf")`: the longest prefix that is a decimal floating-point
/// number (or inf/nan) after optional blanks.
fn scan_double(s: &[u8]) -> Option<f64> {
    let t = std::str::from_utf8(s).ok().unwrap_or("").trim_start();
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let lower: String = t[i..].chars().take(8).collect::<String>().to_ascii_lowercase();
    for word in ["infinity", "inf", "nan"] {
        if lower.starts_with(word) {
            return t[..i + word.len()].parse::<f64>().ok().or_else(|| {
                let neg = b.first() == Some(&b'-');
                Some(match (word, neg) {
                    ("nan", _) => f64::NAN,
                    (_, true) => f64::NEG_INFINITY,
                    _ => f64::INFINITY,
                })
            });
        }
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut ndig = i - digits_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        ndig += i - f;
    }
    if ndig == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let e = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > e {
            i = j;
        }
    }
    t[..i].parse::<f64>().ok()
}

/// Split 64 bits into the two parameters HDF5 filters receive (low word
/// first; on a big-endian machine `ncaux_h5filterspec_fix8` arranges the
/// same values).
fn push64(out: &mut Vec<u32>, v: u64) {
    out.push(v as u32);
    out.push((v >> 32) as u32);
}

/// One parameter as one or two words (netcdf-c's `filterspec_cvt`, and
/// `ncaux_h5filterspec_parse_parameter`).
pub fn parse_parameter(txt: &[u8]) -> NcResult<Vec<u32>> {
    let mut out = Vec::with_capacity(2);
    convert_param(txt, &mut out)?;
    Ok(out)
}

fn convert_param(txt: &[u8], out: &mut Vec<u32>) -> NcResult<()> {
    let mut p = txt;
    while let Some((&c, rest)) = p.split_first() {
        if c == b' ' || c == b'\t' {
            p = rest;
        } else {
            break;
        }
    }
    if p.is_empty() {
        return Err(NcError::Inval);
    }
    let negative = p[0] == b'-';
    let (t, unsigned) = param_type(p);
    match t {
        b'b' | b's' | b'i' => {
            let v = scan_int(p, negative).ok_or(NcError::Inval)? as u32;
            out.push(match t {
                b'b' => v & 0xFF,
                b's' => v & 0xFFFF,
                _ => v,
            });
        }
        b'f' => {
            let v = scan_double(p).ok_or(NcError::Inval)? as f32;
            out.push(v.to_bits());
        }
        b'd' => push64(out, scan_double(p).ok_or(NcError::Inval)?.to_bits()),
        b'l' => push64(out, scan_int(p, !unsigned).ok_or(NcError::Inval)?),
        _ => return Err(NcError::Inval),
    }
    Ok(())
}

/// Parse one spec `id,param,...` (`ncaux_h5filterspec_parse`).
pub fn parse_spec(txt: &[u8]) -> NcResult<FilterSpec> {
    if txt.is_empty() {
        return Err(NcError::Inval);
    }
    let mut pieces = txt.split(|&c| c == b',');
    let id = pieces.next().and_then(|s| scan_int(s, false)).ok_or(NcError::Inval)? as u32;
    let mut params = Vec::new();
    for p in pieces {
        convert_param(p, &mut params)?;
    }
    Ok(FilterSpec { id, params })
}

/// Parse a `|`-separated list of specs with an optional leading `[format]`
/// (`ncaux_h5filterspec_parselist`). A trailing `|` is ignored; an empty
/// spec between two `|` is NC_EINVAL; an empty text is an empty list.
pub fn parse_spec_list(txt: &[u8]) -> NcResult<FilterSpecList> {
    let mut txt = txt;
    let mut format = 0;
    if txt.first() == Some(&b'[') {
        let close = txt.iter().position(|&c| c == b']').ok_or(NcError::Inval)?;
        format = scan_int(&txt[1..close], true).ok_or(NcError::Inval)? as i32;
        txt = &txt[close + 1..];
    }
    let mut specs = Vec::new();
    let mut rest = txt;
    while !rest.is_empty() {
        let end = rest.iter().position(|&c| c == b'|').unwrap_or(rest.len());
        specs.push(parse_spec(&rest[..end])?);
        rest = if end < rest.len() { &rest[end + 1..] } else { &[] };
    }
    Ok(FilterSpecList { format, specs })
}

#[cfg(test)]
mod spec_tests {
    use super::*;

    fn spec(txt: &str) -> NcResult<(u32, Vec<u32>)> {
        parse_spec(txt.as_bytes()).map(|s| (s.id, s.params))
    }

    #[test]
    fn plain_and_tagged_parameters() {
        assert_eq!(spec("32015,3"), Ok((32015, vec![3])));
        assert_eq!(spec("1"), Ok((1, vec![])));
        assert_eq!(spec("4,  5,\t6"), Ok((4, vec![5, 6])));
        assert_eq!(spec("4,255b,-1s"), Ok((4, vec![255, 0xffff])));
        assert_eq!(spec("4,300b,70000s"), Ok((4, vec![300 & 0xff, 70000 & 0xffff])));
        assert_eq!(spec("4,-2"), Ok((4, vec![(-2i32) as u32])));
        assert_eq!(spec("4,7u,7U"), Ok((4, vec![7, 7])));
        assert_eq!(spec("4,1e3f"), Ok((4, vec![1000f32.to_bits()])));
        assert_eq!(spec("4,2.5"), Ok((4, vec![2])));
        let d = 0.1f64.to_bits();
        assert_eq!(spec("4,0.1d"), Ok((4, vec![d as u32, (d >> 32) as u32])));
        assert_eq!(spec("4,18446744073709551615ul"), Ok((4, vec![u32::MAX, u32::MAX])));
        assert_eq!(spec("4,-1ll"), Ok((4, vec![u32::MAX, u32::MAX])));
        assert_eq!(spec("4,4294967297l"), Ok((4, vec![1, 1])));
    }

    #[test]
    fn saturation_like_strtoll() {
        // Past i64::MAX a signed 64-bit parameter saturates, an unsigned one wraps to MAX.
        assert_eq!(spec("4,99999999999999999999l"), Ok((4, vec![u32::MAX, 0x7fff_ffff])));
        assert_eq!(spec("4,99999999999999999999ul"), Ok((4, vec![u32::MAX, u32::MAX])));
        assert_eq!(spec("4,-99999999999999999999l"), Ok((4, vec![0, 0x8000_0000])));
    }

    #[test]
    fn special_doubles() {
        let inf = f64::INFINITY.to_bits();
        assert_eq!(spec("4,infd"), Ok((4, vec![inf as u32, (inf >> 32) as u32])));
        let ninf = f64::NEG_INFINITY.to_bits();
        assert_eq!(spec("4,-Infinityd"), Ok((4, vec![ninf as u32, (ninf >> 32) as u32])));
        let (_, p) = spec("4,nanf").unwrap();
        assert!(f32::from_bits(p[0]).is_nan());
    }

    #[test]
    fn malformed_specs_are_einval() {
        // A trailing blank is no type tag: rejected, as in netcdf-c.
        for bad in [
            "",
            ",",
            "x",
            "4,",
            "4,,5",
            "4,zz",
            "4,-",
            "4,.f",
            "4,5 ",
            "7,\u{e9}\u{e9}l",
        ] {
            assert_eq!(spec(bad), Err(NcError::Inval), "{bad:?}");
        }
    }

    #[test]
    fn long_specs_are_parsed_in_full() {
        let long = format!("7{}", ",123456789012345678901234567890".repeat(2000));
        let (id, p) = spec(&long).unwrap();
        assert_eq!((id, p.len()), (7, 2000));
        assert!(p.iter().all(|&w| w == u32::MAX));
    }

    #[test]
    fn one_parameter() {
        assert_eq!(parse_parameter(b"17"), Ok(vec![17]));
        assert_eq!(parse_parameter(b" 1.5d").map(|v| v.len()), Ok(2));
        assert_eq!(parse_parameter(b""), Err(NcError::Inval));
        assert_eq!(parse_parameter(b"q"), Err(NcError::Inval));
    }

    #[test]
    fn lists() {
        let l = |t: &str| parse_spec_list(t.as_bytes()).map(|l| (l.format, l.specs.len()));
        assert_eq!(
            parse_spec_list(b"1,5|32015,3"),
            Ok(FilterSpecList {
                format: 0,
                specs: vec![
                    FilterSpec { id: 1, params: vec![5] },
                    FilterSpec {
                        id: 32015,
                        params: vec![3]
                    }
                ],
            })
        );
        assert_eq!(l("[7]2"), Ok((7, 1)));
        assert_eq!(l("[-3]2|4"), Ok((-3, 2)));
        assert_eq!(l(""), Ok((0, 0)));
        assert_eq!(l("[2]"), Ok((2, 0)));
        assert_eq!(l("1|"), Ok((0, 1)));
        for bad in ["|", "1||2", "[x]1", "[", "[1", "1,|2"] {
            assert_eq!(l(bad), Err(NcError::Inval), "{bad:?}");
        }
    }
}
