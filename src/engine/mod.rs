//! The data path: hyperslab <-> chunk mapping, chunk decode/encode on a
//! private thread pool, type conversion, and the chunk cache.
#![forbid(unsafe_code)]

mod shard;

use rayon::prelude::*;

use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::model::cache::{self, ChunkData};
use crate::model::convert;
use crate::model::types::NcType;
use crate::model::{Dataset, StringLayout, Var};
use crate::runtime::buffers;
use crate::runtime::pool::{self, run_jobs};
use crate::storage::{Key, Store};

/// How many bytes of decoded chunks one batch of parallel reads or writes
/// may hold (memory stays near the caller's buffer plus this)...
const BATCH_BYTES: usize = 32 << 20;
/// ... or this, on stores where many requests in flight pay (S3).
const BATCH_BYTES_CONCURRENT: usize = 48 << 20;

/// A write storing fewer whole chunks than the pool has threads leaves them in
/// the cache when each is at most this big...
const DEFER_CHUNK_BYTES: usize = 64 << 10;
/// ... and the dataset's caches then hold at most this many such bytes.
const DEFER_TOTAL_BYTES: usize = 32 << 20;

/// Chunks per batch: bounded in bytes, but enough to keep every worker busy.
fn chunks_per_batch(store: &dyn Store, chunk_bytes: usize) -> usize {
    let bytes = if store.concurrent_requests() {
        BATCH_BYTES_CONCURRENT
    } else {
        BATCH_BYTES
    };
    (bytes / chunk_bytes.max(1)).max(2 * pool::threads()).max(1)
}

/// Caller memory for a read.
pub enum MemOut<'a> {
    Num { ty: NcType, data: &'a mut [u8] },
    Str(&'a mut [Option<Vec<u8>>]),
}

/// Caller memory for a write.
pub enum MemIn<'a> {
    Num { ty: NcType, data: &'a [u8] },
    Str(&'a [Option<Vec<u8>>]),
}

impl MemOut<'_> {
    fn mem_type(&self) -> NcType {
        match self {
            MemOut::Num { ty, .. } => *ty,
            MemOut::Str(_) => NcType::String,
        }
    }

    /// Room for `n` values?
    fn holds(&self, n: usize) -> bool {
        match self {
            MemOut::Num { ty, data } => data.len() >= n * ty.size(),
            MemOut::Str(s) => s.len() >= n,
        }
    }
}

impl MemIn<'_> {
    fn mem_type(&self) -> NcType {
        match self {
            MemIn::Num { ty, .. } => *ty,
            MemIn::Str(_) => NcType::String,
        }
    }

    /// Holds `n` values?
    fn holds(&self, n: usize) -> bool {
        match self {
            MemIn::Num { ty, data } => data.len() >= n * ty.size(),
            MemIn::Str(s) => s.len() >= n,
        }
    }
}

/// Check an access and build its selection: None when it selects nothing.
/// `holds` says whether caller memory has room for a number of values.
#[allow(clippy::too_many_arguments)]
fn prepare(
    ds: &Dataset,
    grp: usize,
    varid: i32,
    start: &[usize],
    count: &[usize],
    stride: Option<&[isize]>,
    mem_type: NcType,
    holds: impl Fn(usize) -> bool,
    for_write: bool,
) -> NcResult<Option<(ChunkSpec, Selection)>> {
    let var = ds.var(grp, varid)?;
    check_types(mem_type, var.ty)?;
    let sel = selection(ds, var, start, count, stride, for_write)?;
    if sel.total == 0 {
        return Ok(None);
    }
    if !holds(sel.total) {
        return Err(NcError::Inval);
    }
    Ok(Some((ChunkSpec::of(ds, grp, var), sel)))
}

/// Validate an access (coordinates, counts, strides against the variable)
/// without doing it: the C layer calls this before sizing its own buffers.
pub fn validate(
    ds: &Dataset,
    grp: usize,
    varid: i32,
    start: &[usize],
    count: &[usize],
    stride: Option<&[isize]>,
    for_write: bool,
) -> NcResult<usize> {
    let var = ds.var(grp, varid)?;
    Ok(selection(ds, var, start, count, stride, for_write)?.total)
}

/// Everything needed to encode or decode one chunk of a variable, detached
/// from the dataset so that worker threads can use it.
#[derive(Debug, Clone)]
struct ChunkSpec {
    ty: NcType,
    big_endian: bool,
    layout: StringLayout,
    order_f: bool,
    chunk: Vec<usize>,
    nelems: usize,
    fill: Vec<u8>,
    /// No fill value: absent chunks read as zeros (netcdf-c's behaviour).
    no_fill: bool,
    /// The codec chain (None without codecs; an error when a codec is missing).
    chain: Option<Result<std::sync::Arc<crate::codec::Chain>, NcError>>,
    /// Quantize mode and parameter (`nc_def_var_quantize`).
    quantize: (i32, i32),
    prefix: String,
    sep: char,
    /// How chunk indices become keys, and whether the array is 0-d.
    keys: crate::model::ChunkKeys,
    scalar: bool,
    /// Sharded (Zarr v3): chunks are byte ranges of shard objects.
    shards: Option<std::sync::Arc<shard::Shards>>,
}

impl ChunkSpec {
    fn of(ds: &Dataset, grp: usize, var: &Var) -> ChunkSpec {
        let chunk = if var.is_scalar() { vec![1] } else { var.chunks.clone() };
        let nelems = chunk.iter().product();
        ChunkSpec {
            ty: var.ty,
            big_endian: var.big_endian,
            layout: var.string_layout,
            order_f: var.order_f,
            nelems,
            chunk,
            fill: var.fill.clone(),
            no_fill: var.no_fill,
            chain: var.current_chain(),
            quantize: var.quantize,
            prefix: var.stored_key.clone().unwrap_or_else(|| ds.var_key(grp, &var.name)),
            sep: var.dim_separator,
            keys: var.chunk_keys,
            scalar: var.is_scalar(),
            shards: var.shards.as_ref().map(|l| {
                std::sync::Arc::new(shard::Shards {
                    layout: l.clone(),
                    indexes: var.shard_indexes.clone(),
                })
            }),
        }
    }

    /// The key of chunk `idx` (of the shard `idx` when sharded).
    fn key(&self, idx: &[u64]) -> NcResult<Key> {
        Key::new(&crate::format::v3::chunk_key(
            &self.prefix,
            self.keys,
            self.sep,
            idx,
            self.scalar,
        ))
    }

    /// Fetch chunk `idx`'s stored bytes into `buf` (false: absent): its own
    /// object, or its byte range of a shard.
    fn fetch_into(&self, store: &dyn Store, idx: &[u64], limit: usize, buf: &mut Vec<u8>) -> NcResult<bool> {
        match &self.shards {
            None => store.get_into(&self.key(idx)?, limit as u64, buf),
            Some(s) => match s.fetch(self, store, idx, limit)? {
                Some(b) => {
                    buffers::give(std::mem::replace(buf, b));
                    Ok(true)
                }
                None => Ok(false),
            },
        }
    }

    /// Whether chunks can be read straight into caller memory of type `mt`:
    /// no codec, no conversion, no byte swap, no transposition, fixed size.
    fn reads_in_place(&self, mt: NcType) -> bool {
        self.chain.is_none()
            && self.shards.is_none()
            && self.ty != NcType::String
            && mt == self.ty
            && self.big_endian == cfg!(target_endian = "big")
            && !(self.order_f && self.chunk.len() > 1)
    }

    /// Whether values of memory type `mt` are stored exactly as they are in
    /// memory (what `reads_in_place` asks, and no quantization on write).
    fn writes_in_place(&self, mt: NcType) -> bool {
        self.reads_in_place(mt) && self.quantize.0 == 0
    }

    fn elem_size(&self) -> usize {
        match (self.ty, self.layout) {
            (NcType::String, StringLayout::Fixed(n)) => n,
            (NcType::String, StringLayout::Utf32 { n, .. }) => n * 4,
            (NcType::String, StringLayout::VlenUtf8) => 0,
            (t, _) => t.size(),
        }
    }

    /// A chunk every value of which the caller is about to write: numbers
    /// get a recycled buffer as it is (no fill written only to be
    /// overwritten); strings a filled chunk.
    fn blank_chunk(&self) -> NcResult<ChunkData> {
        if self.ty == NcType::String {
            return self.fill_chunk();
        }
        let n = self.nelems.checked_mul(self.ty.size()).ok_or(NcError::NoMem)?;
        let b = buffers::try_take_len(n).ok_or_else(|| self.no_mem())?;
        Ok(ChunkData::Bytes(b))
    }

    /// NC_ENOMEM for a chunk buffer that cannot be had, logged.
    fn no_mem(&self) -> NcError {
        crate::nclog!(
            Level::Error,
            "{}: no memory for a chunk of {} values",
            self.prefix,
            self.nelems
        );
        NcError::NoMem
    }

    /// A chunk of fill values (or zeros without a fill value). Its size
    /// comes from metadata, so memory is reserved fallibly (NC_ENOMEM).
    fn fill_chunk(&self) -> NcResult<ChunkData> {
        let no_mem = |_| self.no_mem();
        match self.ty {
            NcType::String => {
                let mut v = Vec::new();
                v.try_reserve_exact(self.nelems).map_err(no_mem)?;
                v.resize(self.nelems, Some(self.fill.clone()));
                Ok(ChunkData::Strings(v))
            }
            t => {
                let n = self.nelems.checked_mul(t.size()).ok_or(NcError::NoMem)?;
                let mut b = buffers::take(n);
                b.try_reserve_exact(n).map_err(no_mem)?;
                let fill = if self.no_fill { &[][..] } else { &self.fill[..t.size()] };
                if fill.iter().all(|&x| x == 0) {
                    b.resize(n, 0);
                } else if n > 0 {
                    // One value, then the filled part doubled until full.
                    b.extend_from_slice(fill);
                    while b.len() < n {
                        b.extend_from_within(..b.len().min(n - b.len()));
                    }
                }
                Ok(ChunkData::Bytes(b))
            }
        }
    }

    /// The decoded size of a chunk, the most bytes its stored form may have
    /// (a margin over the decoded size with codecs: incompressible data,
    /// checksums), and whether it is vlen strings. A missing codec is its error.
    fn stored_limits(&self) -> NcResult<(usize, usize, bool)> {
        let vlen = self.layout == StringLayout::VlenUtf8 && self.ty == NcType::String;
        let raw_len = if vlen {
            crate::model::MAX_VLEN_CHUNK_BYTES
        } else {
            self.nelems.checked_mul(self.elem_size()).ok_or(NcError::NcZarr)?
        };
        let limit = match &self.chain {
            None => raw_len,
            Some(Err(e)) => return Err(*e),
            Some(Ok(_)) if vlen => raw_len,
            Some(Ok(_)) => raw_len
                .saturating_add(raw_len / 8)
                .saturating_add(1 << 16)
                .min(crate::codec::zlib::UNBOUNDED),
        };
        Ok((raw_len, limit, vlen))
    }

    /// Fetch and decode one chunk (fill when absent).
    fn load(&self, store: &dyn Store, idx: &[u64]) -> NcResult<ChunkData> {
        let (raw_len, limit, _) = self.stored_limits()?;
        let mut stored = match self.chain {
            None => buffers::take(raw_len.min(64 << 20)),
            Some(_) => buffers::take(raw_len.min(64 << 20) / 2),
        };
        let fetched = match self.fetch_into(store, idx, limit, &mut stored) {
            Ok(true) => Ok(Some(stored)),
            Ok(false) => {
                buffers::give(stored);
                Ok(None)
            }
            Err(e) => {
                buffers::give(stored);
                Err(e)
            }
        };
        self.load_fetched(idx, fetched)
    }

    /// Can chunks be decoded in part? Only through a single codec, for
    /// numbers stored in C order (whether that codec can is known once it
    /// sees a chunk).
    fn ranged_decode(&self) -> bool {
        matches!(&self.chain, Some(Ok(c)) if c.steps.len() == 1)
            && self.ty != NcType::String
            && !(self.order_f && self.chunk.len() > 1)
    }

    /// The element ranges `ranges` (sorted, disjoint, from `part_ranges`) of a
    /// chunk, decoding only what holds them when the codec can (see
    /// `ranged_decode`): each range apart when the codec decodes ranges
    /// (blosc), else the span from the first to the last when that is at most
    /// a quarter of the chunk; otherwise the whole chunk, fetched once either way.
    fn load_part(&self, store: &dyn Store, idx: &[u64], ranges: &[(usize, usize)]) -> NcResult<Part> {
        let key = self.key(idx)?;
        let (raw_len, limit, vlen) = self.stored_limits()?;
        let es = self.elem_size();
        let (Some(&(e0, _)), Some(&(_, e1))) = (ranges.first(), ranges.last()) else {
            return self.load(store, idx).map(Part::Whole);
        };
        let (true, Some(Ok(chain)), false, Some(b0), Some(b1)) = (
            self.ranged_decode(),
            &self.chain,
            vlen,
            e0.checked_mul(es),
            e1.checked_mul(es),
        ) else {
            return self.load(store, idx).map(Part::Whole);
        };
        let Some(step) = chain.steps.first().filter(|_| b0 <= b1 && b1 <= raw_len) else {
            return self.load(store, idx).map(Part::Whole);
        };
        let mut stored = buffers::take(raw_len.min(64 << 20) / 2);
        match self.fetch_into(store, idx, limit, &mut stored) {
            Ok(true) => {}
            Ok(false) => {
                buffers::give(stored);
                return self.load_fetched(idx, Ok(None)).map(Part::Whole);
            }
            Err(e) => {
                buffers::give(stored);
                return self.load_fetched(idx, Err(e)).map(Part::Whole);
            }
        }
        let mut out = buffers::take_len(b1 - b0);
        let apart = if ranges.len() > 1 {
            // The ranges' slices of `out` (sorted and disjoint: cut in turn).
            let mut parts: Vec<(usize, &mut [u8])> = Vec::with_capacity(ranges.len());
            let mut rest: &mut [u8] = &mut out;
            let mut at = e0;
            for &(a, b) in ranges {
                let (_, tail) = std::mem::take(&mut rest).split_at_mut((a - at) * es);
                let (part, tail) = tail.split_at_mut((b - a) * es);
                parts.push((a * es, part));
                rest = tail;
                at = b;
            }
            step.filter.decode_ranges(&step.working, &stored, raw_len, &mut parts)
        } else {
            None
        };
        let decoded = match apart {
            Some(r) => Some(r),
            None if (e1 - e0).saturating_mul(4) <= self.nelems => {
                step.filter.decode_range(&step.working, &stored, raw_len, b0, &mut out)
            }
            None => None,
        };
        match decoded {
            None => {
                buffers::give(out);
                self.load_fetched(idx, Ok(Some(stored))).map(Part::Whole)
            }
            Some(Err(e)) => {
                crate::nclog!(Level::Error, "chunk {}: the codec chain cannot decode it", key.as_str());
                buffers::give(out);
                buffers::give(stored);
                Err(e)
            }
            Some(Ok(())) => {
                buffers::give(stored);
                if self.big_endian != cfg!(target_endian = "big") {
                    convert::swap_in_place(&mut out, self.ty.size());
                }
                Ok(Part::Range(e0, out))
            }
        }
    }

    /// Decode a chunk as fetched from storage (by `load`, or ahead of time by
    /// `Store::get_many`); fill when absent.
    fn load_fetched(&self, idx: &[u64], fetched: NcResult<Option<Vec<u8>>>) -> NcResult<ChunkData> {
        let key = self.key(idx)?;
        let (raw_len, limit, vlen) = self.stored_limits()?;
        let chain = match &self.chain {
            None => None,
            Some(Ok(c)) => Some(c),
            Some(Err(e)) => return Err(*e),
        };
        let stored = match fetched {
            Ok(Some(b)) => b,
            Ok(None) => return self.fill_chunk(),
            Err(NcError::NcZarr) if chain.is_some() => {
                crate::nclog!(
                    Level::Error,
                    "chunk {} is larger than any encoding of its data",
                    key.as_str()
                );
                return Err(NcError::Filter);
            }
            Err(e) => return Err(e),
        };
        let Some(chain) = chain else {
            return self.decode(stored, &key);
        };
        let expect = if vlen { stored.len().saturating_mul(4) } else { raw_len };
        let raw = chain.decode(stored, expect, limit).inspect_err(|_| {
            crate::nclog!(Level::Error, "chunk {}: the codec chain cannot decode it", key.as_str());
        })?;
        if !vlen && raw.len() != raw_len {
            crate::nclog!(
                Level::Error,
                "chunk {} decodes to {} bytes, expected {}",
                key.as_str(),
                raw.len(),
                raw_len
            );
            return Err(NcError::Filter);
        }
        self.decode(raw, &key)
    }

    fn decode(&self, mut raw: Vec<u8>, key: &Key) -> NcResult<ChunkData> {
        if self.ty == NcType::String && self.layout == StringLayout::VlenUtf8 {
            return decode_vlen(&raw, self.nelems, key);
        }
        let es = self.elem_size();
        if raw.len() != self.nelems * es {
            crate::nclog!(
                Level::Error,
                "chunk {} has {} bytes, expected {}",
                key.as_str(),
                raw.len(),
                self.nelems * es
            );
            return Err(NcError::NcZarr);
        }
        if self.order_f && self.chunk.len() > 1 {
            let c = transpose(&raw, &self.chunk, es, true);
            buffers::give(std::mem::replace(&mut raw, c));
        }
        let strings = |v: Vec<Option<Vec<u8>>>, raw: Vec<u8>| {
            buffers::give(raw);
            Ok(ChunkData::Strings(v))
        };
        match (self.ty, self.layout) {
            (NcType::String, StringLayout::Fixed(n)) => {
                let v = raw
                    .chunks_exact(n)
                    .map(|c| {
                        let end = c.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                        if end == 0 { None } else { Some(c[..end].to_vec()) }
                    })
                    .collect();
                strings(v, raw)
            }
            (NcType::String, StringLayout::Utf32 { n, big }) => Ok(ChunkData::Strings(
                raw.chunks_exact(n * 4)
                    .map(|c| {
                        let s: String = c
                            .chunks_exact(4)
                            .map(|u| {
                                let a = [u[0], u[1], u[2], u[3]];
                                if big {
                                    u32::from_be_bytes(a)
                                } else {
                                    u32::from_le_bytes(a)
                                }
                            })
                            .take_while(|&u| u != 0)
                            .map(|u| char::from_u32(u).unwrap_or('\u{fffd}'))
                            .collect();
                        Some(s.into_bytes())
                    })
                    .collect(),
            )),
            (t, _) => {
                if self.big_endian != cfg!(target_endian = "big") {
                    convert::swap_in_place(&mut raw, t.size());
                }
                Ok(ChunkData::Bytes(raw))
            }
        }
    }

    /// Encode one chunk and store it. Bytes that need no transformation
    /// (no codec, native byte order, C order) are stored as they are.
    fn store_chunk(&self, store: &dyn Store, idx: &[u64], data: &ChunkData) -> NcResult<()> {
        let key = self.key(idx)?;
        if let ChunkData::Bytes(b) = data
            && self.ty != NcType::String
            && self.writes_in_place(self.ty)
        {
            return store.put(&key, b);
        }
        let raw = self.encode(data)?;
        let r = store.put(&key, &raw);
        buffers::give(raw);
        r
    }

    /// `encode` for a chunk its owner is done with: numbers go through the
    /// codecs in their own buffer, without the copy `encode` makes.
    fn encode_owned(&self, data: ChunkData) -> NcResult<Vec<u8>> {
        match data {
            ChunkData::Bytes(b) => self.through_codecs(self.plain_numbers(b)),
            other => {
                let r = self.encode(&other);
                recycle(other);
                r
            }
        }
    }

    fn encode(&self, data: &ChunkData) -> NcResult<Vec<u8>> {
        self.through_codecs(self.encode_plain(data)?)
    }

    /// A chunk's stored bytes before codecs, through the codec chain.
    fn through_codecs(&self, raw: Vec<u8>) -> NcResult<Vec<u8>> {
        match &self.chain {
            None => Ok(raw),
            Some(Ok(c)) => c.encode(raw),
            Some(Err(e)) => {
                buffers::give(raw);
                Err(*e)
            }
        }
    }

    /// Numbers as stored before codecs, transformed in their own buffer:
    /// quantized, byte-swapped, in the stored order.
    fn plain_numbers(&self, mut b: Vec<u8>) -> Vec<u8> {
        if self.quantize.0 > 0 {
            crate::model::quantize::apply(self.quantize.0, self.quantize.1, self.ty, &mut b, &self.fill);
        }
        if self.big_endian != cfg!(target_endian = "big") {
            convert::swap_in_place(&mut b, self.ty.size());
        }
        self.in_stored_order(b)
    }

    /// A chunk's bytes (C order) in the order it is stored in.
    fn in_stored_order(&self, b: Vec<u8>) -> Vec<u8> {
        if self.order_f && self.chunk.len() > 1 {
            let t = transpose(&b, &self.chunk, self.elem_size(), false);
            buffers::give(b);
            t
        } else {
            b
        }
    }

    /// A chunk's bytes before codecs.
    fn encode_plain(&self, data: &ChunkData) -> NcResult<Vec<u8>> {
        if let (ChunkData::Strings(s), StringLayout::VlenUtf8) = (data, self.layout) {
            return encode_vlen(s);
        }
        let es = self.elem_size();
        let raw = match data {
            ChunkData::Bytes(b) => {
                let mut c = buffers::take(b.len());
                c.extend_from_slice(b);
                return Ok(self.plain_numbers(c));
            }
            ChunkData::Strings(s) => {
                let mut out = vec![0u8; s.len() * es];
                for (i, v) in s.iter().enumerate() {
                    let Some(v) = v else { continue };
                    let slot = &mut out[i * es..(i + 1) * es];
                    match self.layout {
                        StringLayout::Fixed(_) => {
                            let n = v.len().min(es);
                            slot[..n].copy_from_slice(&v[..n]);
                        }
                        StringLayout::VlenUtf8 => unreachable!("handled above"),
                        StringLayout::Utf32 { big, .. } => {
                            let text = String::from_utf8_lossy(v);
                            for (j, ch) in text.chars().take(es / 4).enumerate() {
                                let u = ch as u32;
                                let b = if big { u.to_be_bytes() } else { u.to_le_bytes() };
                                slot[j * 4..j * 4 + 4].copy_from_slice(&b);
                            }
                        }
                    }
                }
                out
            }
        };
        Ok(self.in_stored_order(raw))
    }
}

/// numcodecs `vlen-utf8`: a little-endian u32 item count, then each item as
/// a u32 length and its bytes. Every length is checked against what is left.
fn decode_vlen(raw: &[u8], nelems: usize, key: &Key) -> NcResult<ChunkData> {
    let bad = |why: &str| {
        crate::nclog!(Level::Error, "chunk {}: bad vlen-utf8 data: {}", key.as_str(), why);
        NcError::NcZarr
    };
    let u32_at = |p: usize| -> Option<usize> {
        let b = raw.get(p..p + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let n = u32_at(0).ok_or_else(|| bad("truncated header"))?;
    if n != nelems {
        return Err(bad("item count differs from the chunk shape"));
    }
    let mut out = Vec::with_capacity(n);
    let mut p = 4;
    for _ in 0..n {
        let len = u32_at(p).ok_or_else(|| bad("truncated length"))?;
        p += 4;
        let s = raw
            .get(p..p.checked_add(len).ok_or_else(|| bad("length overflow"))?)
            .ok_or_else(|| bad("truncated item"))?;
        out.push(Some(s.to_vec()));
        p += len;
    }
    if p != raw.len() {
        return Err(bad("trailing bytes"));
    }
    Ok(ChunkData::Strings(out))
}

fn encode_vlen(s: &[Option<Vec<u8>>]) -> NcResult<Vec<u8>> {
    let len32 = |n: usize| u32::try_from(n).map(u32::to_le_bytes).map_err(|_| NcError::NcZarr);
    let total: usize = s.iter().map(|x| 4 + x.as_ref().map_or(0, Vec::len)).sum();
    let mut out = Vec::with_capacity(4 + total);
    out.extend_from_slice(&len32(s.len())?);
    for x in s {
        let b = x.as_deref().unwrap_or(&[]);
        out.extend_from_slice(&len32(b.len())?);
        out.extend_from_slice(b);
    }
    Ok(out)
}

/// Reorder a chunk between C and Fortran order. `to_c`: input is F-ordered.
fn transpose(data: &[u8], shape: &[usize], es: usize, to_c: bool) -> Vec<u8> {
    let n = shape.len();
    let total: usize = shape.iter().product();
    let mut out = vec![0u8; data.len()];
    let mut cstr = vec![1usize; n];
    let mut fstr = vec![1usize; n];
    for d in (0..n.saturating_sub(1)).rev() {
        cstr[d] = cstr[d + 1] * shape[d + 1];
    }
    for d in 1..n {
        fstr[d] = fstr[d - 1] * shape[d - 1];
    }
    let mut idx = vec![0usize; n];
    for c in 0..total {
        let f: usize = idx.iter().zip(&fstr).map(|(i, s)| i * s).sum();
        let (src, dst) = if to_c { (f, c) } else { (c, f) };
        out[dst * es..(dst + 1) * es].copy_from_slice(&data[src * es..(src + 1) * es]);
        for d in (0..n).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
        let _ = cstr[0];
    }
    out
}

/// One dimension's part of a selection inside one chunk.
#[derive(Debug, Clone, Copy)]
struct Seg {
    /// Chunk index along the dimension.
    c: u64,
    /// First selected output index and how many.
    k0: usize,
    kn: usize,
    /// Offset inside the chunk of the first selected element.
    j0: usize,
}

/// Per dimension, the chunks a (start, count, stride) selection touches.
fn segments(start: usize, count: usize, stride: usize, chunk: usize) -> Vec<Seg> {
    let mut out = Vec::new();
    let mut k = 0usize;
    while k < count {
        let pos = start + k * stride;
        let c = pos / chunk;
        let end = (c + 1) * chunk; // first position past this chunk
        // number of k with start + k*stride < end
        let kn = ((end - 1 - start) / stride + 1).min(count) - k;
        out.push(Seg {
            c: c as u64,
            k0: k,
            kn,
            j0: pos - c * chunk,
        });
        k += kn;
    }
    out
}

/// A validated selection over a variable (scalars become one element of shape [1]).
struct Selection {
    start: Vec<usize>,
    count: Vec<usize>,
    stride: Vec<usize>,
    chunk: Vec<usize>,
    total: usize,
}

fn selection(
    ds: &Dataset,
    var: &Var,
    start: &[usize],
    count: &[usize],
    stride: Option<&[isize]>,
    for_write: bool,
) -> NcResult<Selection> {
    if var.is_scalar() {
        // netcdf-c ignores start/count for scalars beyond their being in range.
        if start.first().is_some_and(|&s| s > 0) {
            return Err(NcError::InvalCoords);
        }
        return Ok(Selection {
            start: vec![0],
            count: vec![1],
            stride: vec![1],
            chunk: vec![1],
            total: 1,
        });
    }
    let n = var.dimids.len();
    if start.len() < n || count.len() < n {
        return Err(NcError::Inval);
    }
    let mut st = Vec::with_capacity(n);
    if let Some(s) = stride {
        if s.len() < n {
            return Err(NcError::Inval);
        }
        for &x in &s[..n] {
            if x <= 0 {
                return Err(NcError::Stride);
            }
            st.push(x as usize);
        }
    } else {
        st = vec![1; n];
    }
    let mut total: usize = 1;
    for d in 0..n {
        let dim = &ds.dims[var.dimids[d]];
        let (s, c) = (start[d], count[d]);
        if !(for_write && dim.unlimited) {
            if s > dim.len || (c > 0 && s >= dim.len) {
                return Err(NcError::InvalCoords);
            }
            if c > 0 {
                let last = (c - 1)
                    .checked_mul(st[d])
                    .and_then(|x| x.checked_add(s))
                    .ok_or(NcError::Edge)?;
                if last >= dim.len {
                    return Err(NcError::Edge);
                }
            }
        } else if c > 0 {
            (c - 1)
                .checked_mul(st[d])
                .and_then(|x| x.checked_add(s))
                .ok_or(NcError::Edge)?;
        }
        total = total.checked_mul(c).ok_or(NcError::Edge)?;
    }
    Ok(Selection {
        start: start[..n].to_vec(),
        count: count[..n].to_vec(),
        stride: st,
        chunk: var.chunks.clone(),
        total,
    })
}

/// Visit every chunk of a selection: `f(chunk index, per-dimension segments)`.
fn for_each_chunk(sel: &Selection, mut f: impl FnMut(Vec<u64>, Vec<Seg>) -> NcResult<()>) -> NcResult<()> {
    let per_dim: Vec<Vec<Seg>> = (0..sel.start.len())
        .map(|d| segments(sel.start[d], sel.count[d], sel.stride[d], sel.chunk[d]))
        .collect();
    if per_dim.iter().any(Vec::is_empty) {
        return Ok(());
    }
    let n = per_dim.len();
    let mut pos = vec![0usize; n];
    loop {
        let segs: Vec<Seg> = (0..n).map(|d| per_dim[d][pos[d]]).collect();
        f(segs.iter().map(|s| s.c).collect(), segs)?;
        let mut d = n;
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            pos[d] += 1;
            if pos[d] < per_dim[d].len() {
                break;
            }
            pos[d] = 0;
        }
    }
}

/// One contiguous stretch of the selection inside a chunk: `len` elements
/// starting at element `out` of caller memory (consecutive) and at element
/// `chunk` of the chunk (every `step`-th).
#[derive(Debug, Clone, Copy)]
struct Run {
    out: usize,
    chunk: usize,
    len: usize,
    step: usize,
}

/// Call `run` for every run of the selection inside one chunk; runs follow
/// the last dimension.
fn for_each_run(sel: &Selection, segs: &[Seg], mut run: impl FnMut(Run) -> NcResult<()>) -> NcResult<()> {
    let n = segs.len();
    // Output strides (C order over count) and chunk strides (C order over chunk shape).
    let mut ostr = vec![1usize; n];
    let mut cstr = vec![1usize; n];
    for d in (0..n - 1).rev() {
        ostr[d] = ostr[d + 1] * sel.count[d + 1];
        cstr[d] = cstr[d + 1] * sel.chunk[d + 1];
    }
    let last = n - 1;
    let mut i = vec![0usize; n];
    loop {
        let mut o = 0;
        let mut c = 0;
        for d in 0..last {
            o += (segs[d].k0 + i[d]) * ostr[d];
            c += (segs[d].j0 + i[d] * sel.stride[d]) * cstr[d];
        }
        o += segs[last].k0;
        c += segs[last].j0;
        run(Run {
            out: o,
            chunk: c,
            len: segs[last].kn,
            step: sel.stride[last],
        })?;
        let mut d = last;
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            i[d] += 1;
            if i[d] < segs[d].kn {
                break;
            }
            i[d] = 0;
        }
    }
}

fn check_types(mem: NcType, file: NcType) -> NcResult<()> {
    if mem == NcType::String || file == NcType::String {
        if mem != file {
            return Err(convert::check_compatible(mem, file).err().unwrap_or(NcError::BadType));
        }
        return Ok(());
    }
    convert::check_compatible(mem, file)
}

fn copy_in(src: &MemIn<'_>, chunk: &mut ChunkData, ft: NcType, r: Run, scratch: &mut Vec<u8>) -> NcResult<()> {
    let Run {
        out: o,
        chunk: c,
        len,
        step,
    } = r;
    match (src, chunk) {
        (MemIn::Num { ty, data }, ChunkData::Bytes(b)) => {
            let fs = ft.size();
            let ms = ty.size();
            let s = &data[o * ms..(o + len) * ms];
            if step == 1 {
                convert::convert(*ty, s, ft, &mut b[c * fs..(c + len) * fs])
            } else {
                scratch.clear();
                scratch.resize(len * fs, 0);
                let r = convert::convert(*ty, s, ft, scratch);
                for k in 0..len {
                    let p = (c + k * step) * fs;
                    b[p..p + fs].copy_from_slice(&scratch[k * fs..(k + 1) * fs]);
                }
                r
            }
        }
        (MemIn::Str(s), ChunkData::Strings(dst)) => {
            for k in 0..len {
                dst[c + k * step] = s[o + k].clone();
            }
            Ok(())
        }
        _ => Err(NcError::BadType),
    }
}

/// Hand a chunk's memory back for reuse.
fn recycle(d: ChunkData) {
    if let ChunkData::Bytes(b) = d {
        buffers::give(b);
    }
}

/// Write dirty chunks evicted from a cache, encoding them on the pool.
fn write_evicted(spec: &ChunkSpec, store: &dyn Store, ev: Vec<(Vec<u64>, ChunkData, bool)>) -> NcResult<()> {
    let mut dirty = Vec::new();
    for (k, d, is_dirty) in ev {
        if is_dirty {
            dirty.push((k, d));
        } else {
            recycle(d);
        }
    }
    if spec.shards.is_some() && !dirty.is_empty() {
        let refs: Vec<(&Vec<u64>, &ChunkData)> = dirty.iter().map(|(k, d)| (k, d)).collect();
        let r = shard::store_chunks(spec, store, &refs).into_iter().collect();
        dirty.into_iter().for_each(|(_, d)| recycle(d));
        return r;
    }
    let put = |(idx, data): &(Vec<u64>, ChunkData)| -> NcResult<()> { spec.store_chunk(store, idx, data) };
    let r = if dirty.len() > 1 && store.concurrent_requests() {
        let encoded: Vec<NcResult<(Key, Vec<u8>)>> = pool::on_pool(|| {
            dirty
                .par_iter()
                .map(|(idx, d)| Ok((spec.key(idx)?, spec.encode(d)?)))
                .collect()
        });
        put_encoded(store, encoded).into_iter().collect()
    } else if dirty.len() > 1 {
        pool::on_pool(|| dirty.par_iter().try_for_each(put))
    } else {
        dirty.iter().try_for_each(put)
    };
    dirty.into_iter().for_each(|(_, d)| recycle(d));
    r
}

/// Read a hyperslab (nc_get_vars) into caller memory. Chunks are fetched,
/// decoded and converted on the worker pool, each straight into the part of
/// the caller's buffer it covers (the buffer is split into those disjoint
/// runs first, so no staging copy is needed).
pub fn get_vars(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    start: &[usize],
    count: &[usize],
    stride: Option<&[isize]>,
    out: MemOut<'_>,
) -> NcResult<()> {
    let store = ds.store.clone();
    let Some((spec, sel)) = prepare(
        ds,
        grp,
        varid,
        start,
        count,
        stride,
        out.mem_type(),
        |n| out.holds(n),
        false,
    )?
    else {
        return Ok(());
    };
    // The chunks touched, each with its per-dimension segments; the runs in
    // caller memory are worked out by the job that reads the chunk.
    let mut work: Vec<ChunkWork> = Vec::new();
    for_each_chunk(&sel, |idx, segs| {
        work.push((idx, segs));
        Ok(())
    })?;
    let ft = spec.ty;
    let var = ds.var_mut(grp, varid)?;
    let chunk_bytes = (spec.nelems * spec.elem_size()).max(1);
    // A read larger than the cache streams: its chunks would only push each
    // other out, so they are not kept.
    let streaming = work.len().saturating_mul(chunk_bytes) > var.cache.size;
    // Streaming from a store that overlaps requests (S3): the next batch's
    // fetches start before this batch is decoded, so the requests in flight
    // never drain between batches; the batches are half as big, so as much
    // fetched data waits in memory as without.
    let lookahead = streaming && store.concurrent_requests();
    let per_batch = if streaming && !store.concurrent_requests() {
        // Read as decoded and kept nowhere: a job holds only the chunk it
        // decodes, so the whole read is one batch and the workers never
        // wait for each other between batches.
        work.len().max(1)
    } else if lookahead {
        (chunks_per_batch(store.as_ref(), chunk_bytes) / 2).max(1)
    } else {
        // Bounded batches: fetched chunks wait in memory for their decode
        // (S3), and chunks kept for the cache enter it batch by batch (so
        // what they evict leaves as they come).
        chunks_per_batch(store.as_ref(), chunk_bytes)
    };
    let mut range_err = false;
    let mut out = out;
    let batches: Vec<&[ChunkWork]> = work.chunks(per_batch).collect();
    let mut ahead: Option<Prefetched> = None;
    for (b, &batch) in batches.iter().enumerate() {
        // Which chunks may be decoded in part (see `first_part_read`).
        let part_ok: std::collections::HashSet<&Vec<u64>> = if spec.ranged_decode() {
            batch
                .iter()
                .map(|(idx, _)| idx)
                .filter(|idx| !var.cache.contains(idx) && var.cache.first_part_read(idx))
                .collect()
        } else {
            Default::default()
        };
        let cache = &var.cache;
        let prefetched = match ahead.take() {
            Some(p) => p,
            None => prefetch(&spec, store.as_ref(), batch.iter().map(|(idx, _)| idx), cache)?,
        };
        // (A streaming read keeps nothing in the cache, so what the next
        // batch finds uncached now it finds uncached then.)
        if lookahead && let Some(next) = batches.get(b + 1) {
            ahead = Some(prefetch(&spec, store.as_ref(), next.iter().map(|(idx, _)| idx), cache)?);
        }
        let load = |idx: &Vec<u64>| load_with(&spec, store.as_ref(), &prefetched, idx);
        let groups = read_groups(&sel, batch);
        // Decode (when not cached) and convert each chunk of a group into
        // its runs of the group's blocks.
        let results: Vec<Vec<ChunkRead>> = match &mut out {
            MemOut::Num { ty, data } => {
                let mt = *ty;
                let direct = spec.reads_in_place(mt);
                let blocks = split_blocks(data, mt.size(), &groups)?;
                let chunk_job = |(idx, segs): &ChunkWork, blocks: &mut [Block<'_, u8>]| {
                    let rs = chunk_runs(&sel, segs)?;
                    let mut sl = carve_runs(blocks, mt.size(), &rs)?;
                    let fresh = if cache.contains(idx) {
                        None
                    } else if prefetched.contains_key(idx) {
                        Some(load(idx)?)
                    } else if direct && rs.iter().all(|r| r.step == 1) {
                        // Uncompressed, stored as the caller wants it: read
                        // only the bytes asked for, straight into place.
                        let es = ft.size() as u64;
                        let mut parts: Vec<(u64, &mut [u8])> = rs
                            .iter()
                            .zip(sl.iter_mut())
                            .map(|(r, d)| (r.chunk as u64 * es, &mut **d))
                            .collect();
                        let key = spec.key(idx)?;
                        if store.read_parts(&key, chunk_bytes as u64, &mut parts)? {
                            return Ok((None, false));
                        }
                        Some(spec.load(store.as_ref(), idx)?)
                    } else if let Some(ranges) = part_ranges(&rs, spec.nelems).filter(|_| part_ok.contains(idx)) {
                        // A small part of a compressed chunk: decode only
                        // that part when the codec can (not kept in the cache).
                        match spec.load_part(store.as_ref(), idx, &ranges)? {
                            Part::Range(e0, bytes) => {
                                let shifted: Vec<Run> = rs
                                    .iter()
                                    .map(|r| Run {
                                        chunk: r.chunk - e0,
                                        ..*r
                                    })
                                    .collect();
                                let part = ChunkData::Bytes(bytes);
                                let range = convert_runs(&part, ft, mt, &shifted, &mut sl);
                                recycle(part);
                                return Ok((None, range?));
                            }
                            Part::Whole(d) => Some(d),
                        }
                    } else {
                        Some(spec.load(store.as_ref(), idx)?)
                    };
                    let data = fresh.as_ref().or_else(|| cache.peek(idx)).ok_or(NcError::Internal)?;
                    let range = convert_runs(data, ft, mt, &rs, &mut sl)?;
                    Ok((fresh.and_then(|d| keep_or_recycle(d, streaming)), range))
                };
                match prefetched.values().next() {
                    None => {
                        let job = |(g, mut bl): (&ReadGroup<'_>, Vec<Block<'_, u8>>)| {
                            g.chunks.iter().map(|c| chunk_job(c, &mut bl)).collect()
                        };
                        run_jobs(groups.iter().zip(blocks).collect(), job)
                    }
                    Some((arrivals, _)) => {
                        // Fetched chunks are decoded in the order they
                        // arrive, by whichever worker is free (rather than
                        // each job waiting for its own chunks while others
                        // have come): the workers idle only when nothing
                        // has arrived. A chunk is decoded outside its
                        // group's lock and copied into place under it.
                        let owner: Vec<(usize, &ChunkWork)> = groups
                            .iter()
                            .enumerate()
                            .flat_map(|(gi, g)| g.chunks.iter().map(move |c| (gi, c)))
                            .collect();
                        let mut by_arrival = vec![usize::MAX; prefetched.len()];
                        let mut others = Vec::new();
                        for (p, (_, (idx, _))) in owner.iter().enumerate() {
                            match prefetched.get(idx) {
                                Some((_, i)) => *by_arrival.get_mut(*i).ok_or(NcError::Internal)? = p,
                                None => others.push(p),
                            }
                        }
                        let locks: Vec<std::sync::Mutex<Vec<Block<'_, u8>>>> =
                            blocks.into_iter().map(std::sync::Mutex::new).collect();
                        let lock = |gi: usize| locks[gi].lock().unwrap_or_else(|p| p.into_inner());
                        let job = |k: usize| -> (usize, ChunkRead) {
                            if let Some(&p) = others.get(k) {
                                let (gi, c) = owner[p];
                                return (p, chunk_job(c, &mut lock(gi)));
                            }
                            let Some((i, fetched)) = arrivals.take_any() else {
                                return (usize::MAX, Err(NcError::Internal));
                            };
                            let Some(&p) = by_arrival.get(i).filter(|&&p| p < owner.len()) else {
                                return (usize::MAX, Err(NcError::Internal));
                            };
                            let (gi, (idx, segs)) = owner[p];
                            let read = || -> ChunkRead {
                                let data = spec.load_fetched(idx, fetched)?;
                                let rs = chunk_runs(&sel, segs)?;
                                let range = {
                                    let mut bl = lock(gi);
                                    let mut sl = carve_runs(&mut bl, mt.size(), &rs)?;
                                    convert_runs(&data, ft, mt, &rs, &mut sl)?
                                };
                                Ok((keep_or_recycle(data, streaming), range))
                            };
                            (p, read())
                        };
                        let done = run_jobs((0..owner.len()).collect(), job);
                        // Back in batch order (the cache takes them in it).
                        let mut ordered: Vec<Option<ChunkRead>> = owner.iter().map(|_| None).collect();
                        for (p, r) in done {
                            match ordered.get_mut(p) {
                                Some(slot) => *slot = Some(r),
                                None => return Err(r.err().unwrap_or(NcError::Internal)),
                            }
                        }
                        vec![
                            ordered
                                .into_iter()
                                .map(|r| r.unwrap_or(Err(NcError::Internal)))
                                .collect(),
                        ]
                    }
                }
            }
            MemOut::Str(dst) => {
                let blocks = split_blocks(dst, 1, &groups)?;
                let chunk_job = |(idx, segs): &ChunkWork, blocks: &mut [Block<'_, Option<Vec<u8>>>]| {
                    let rs = chunk_runs(&sel, segs)?;
                    let mut sl = carve_runs(blocks, 1, &rs)?;
                    let fresh = if cache.contains(idx) { None } else { Some(load(idx)?) };
                    let data = fresh.as_ref().or_else(|| cache.peek(idx)).ok_or(NcError::Internal)?;
                    copy_string_runs(data, &rs, &mut sl)?;
                    Ok((fresh.and_then(|d| keep_or_recycle(d, streaming)), false))
                };
                let job = |(g, mut bl): (&ReadGroup<'_>, Vec<Block<'_, Option<Vec<u8>>>>)| {
                    g.chunks.iter().map(|c| chunk_job(c, &mut bl)).collect()
                };
                run_jobs(groups.iter().zip(blocks).collect(), job)
            }
        };
        for ((idx, _), r) in batch.iter().zip(results.into_iter().flatten()) {
            let (fresh, range) = r?;
            range_err |= range;
            match fresh {
                Some(data) => {
                    let ev = var.cache.insert(idx.clone(), data, false);
                    var.chunks_on_disk |= ev.iter().any(|e| e.2);
                    write_evicted(&spec, store.as_ref(), ev)?;
                }
                None => var.cache.touch_key(idx),
            }
        }
    }
    if range_err { Err(NcError::Range) } else { Ok(()) }
}

/// A chunk's index and the segments of a write inside it.
type WriteWork = (Vec<u64>, Vec<Seg>);

/// A chunk's index and the segments of a read inside it.
type ChunkWork = (Vec<u64>, Vec<Seg>);

/// What reading one chunk gives: the decoded chunk when the cache should
/// keep it, and whether a value was out of range for the memory type.
type ChunkRead = NcResult<(Option<ChunkData>, bool)>;

/// A chunk read in part (`ChunkSpec::load_part`).
enum Part {
    /// The elements from the first one asked for (`e0`) to the last, in
    /// native order: those of the ranges asked for decoded, the others
    /// between them unspecified.
    Range(usize, Vec<u8>),
    /// The codec could not decode a part: the whole chunk.
    Whole(ChunkData),
}

/// The element ranges of a chunk that a read's runs touch (sorted, those that
/// touch or overlap merged), when they hold at most a quarter of the chunk
/// (worth decoding in part).
fn part_ranges(runs: &[Run], nelems: usize) -> Option<Vec<(usize, usize)>> {
    // The runs' own elements (distinct, each inside its range) already too
    // many: no need to sort and merge (a read of whole chunks).
    let asked = runs.iter().try_fold(0usize, |n, r| n.checked_add(r.len))?;
    if asked.saturating_mul(4) > nelems {
        return None;
    }
    let mut spans: Vec<(usize, usize)> = runs
        .iter()
        .map(|r| (r.chunk, r.chunk + r.len.saturating_sub(1) * r.step + 1))
        .collect();
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (a, b) in spans {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let held: usize = merged.iter().map(|(a, b)| b - a).sum();
    (!merged.is_empty() && held.saturating_mul(4) <= nelems).then_some(merged)
}

/// A decoded chunk kept for the cache, or recycled at once when the read
/// streams (so a job holds at most one decoded chunk at a time).
fn keep_or_recycle(data: ChunkData, streaming: bool) -> Option<ChunkData> {
    if streaming {
        recycle(data);
        None
    } else {
        Some(data)
    }
}

/// The chunks of a read batch that one job handles: consecutive chunks that
/// differ only in their last coordinate. Together they fill whole rows of
/// the selection, so the caller memory they write is a set of contiguous
/// blocks (one per index of the dimensions before the last two), disjoint
/// from every other group's. Splitting the caller's buffer into blocks
/// rather than into runs keeps that serial step small; each job then cuts
/// its own blocks into runs.
struct ReadGroup<'a> {
    chunks: &'a [ChunkWork],
    /// (first output element, elements) of each block, in output order.
    blocks: Vec<(usize, usize)>,
}

/// A block of caller memory: its first output element and its items.
type Block<'a, T> = (usize, &'a mut [T]);

/// Group a batch's chunks (see `ReadGroup`). A 1-D selection groups each
/// chunk alone: its run is its block.
fn read_groups<'a>(sel: &Selection, batch: &'a [ChunkWork]) -> Vec<ReadGroup<'a>> {
    let n = sel.count.len();
    let mut groups = Vec::new();
    let mut i = 0;
    while i < batch.len() {
        let lead = &batch[i].1[..n - 1];
        let mut j = i + 1;
        if n > 1 {
            while j < batch.len() && batch[j].1[..n - 1].iter().zip(lead).all(|(a, b)| a.c == b.c) {
                j += 1;
            }
        }
        groups.push(ReadGroup {
            chunks: &batch[i..j],
            blocks: group_blocks(sel, &batch[i].1),
        });
        i = j;
    }
    groups
}

/// The blocks of caller memory of the group a chunk with these segments
/// belongs to.
fn group_blocks(sel: &Selection, segs: &[Seg]) -> Vec<(usize, usize)> {
    let n = segs.len();
    if n == 1 {
        return vec![(segs[0].k0, segs[0].kn)];
    }
    // Output strides (C order over count).
    let mut ostr = vec![1usize; n];
    for d in (0..n - 1).rev() {
        ostr[d] = ostr[d + 1] * sel.count[d + 1];
    }
    let inner = n - 2;
    let len = segs[inner].kn * ostr[inner];
    let first = segs[inner].k0 * ostr[inner];
    let mut blocks = Vec::new();
    let mut i = vec![0usize; inner];
    loop {
        let base: usize = (0..inner).map(|d| (segs[d].k0 + i[d]) * ostr[d]).sum();
        blocks.push((base + first, len));
        let mut d = inner;
        loop {
            if d == 0 {
                return blocks;
            }
            d -= 1;
            i[d] += 1;
            if i[d] < segs[d].kn {
                break;
            }
            i[d] = 0;
        }
    }
}

/// The runs of a selection inside one chunk, in output order.
fn chunk_runs(sel: &Selection, segs: &[Seg]) -> NcResult<Vec<Run>> {
    let mut runs = Vec::new();
    for_each_run(sel, segs, |r| {
        runs.push(r);
        Ok(())
    })?;
    Ok(runs)
}

/// Raw chunks fetched ahead, each taken once by the job that decodes it.
type Prefetched = std::collections::HashMap<Vec<u64>, (std::sync::Arc<crate::storage::Arrivals>, usize)>;

/// Decode a prefetched chunk, or fetch and decode it now.
fn load_with(spec: &ChunkSpec, store: &dyn Store, pre: &Prefetched, idx: &Vec<u64>) -> NcResult<ChunkData> {
    match pre.get(idx) {
        Some((arrivals, i)) => spec.load_fetched(idx, arrivals.take(*i)),
        None => spec.load(store, idx),
    }
}

/// For a store that overlaps requests (S3), start fetching the uncached
/// chunks of a batch all at once; other stores read on the pool.
fn prefetch<'a>(
    spec: &ChunkSpec,
    store: &dyn Store,
    idxs: impl Iterator<Item = &'a Vec<u64>>,
    cache: &cache::ChunkCache,
) -> NcResult<Prefetched> {
    let mut map = Prefetched::new();
    if let Some(s) = &spec.shards {
        // Inner chunks: their shards' indexes, then their byte ranges,
        // neighbours read together.
        return s.prefetch(spec, store, idxs.filter(|idx| !cache.contains(idx)));
    }
    if !store.concurrent_requests() {
        return Ok(map);
    }
    // (A missing codec: each load reports it.)
    let Ok((_, limit, _)) = spec.stored_limits() else {
        return Ok(map);
    };
    let todo: Vec<&Vec<u64>> = idxs.filter(|idx| !cache.contains(idx)).collect();
    if todo.len() < 2 {
        return Ok(map);
    }
    let keys: Vec<(Key, u64)> = todo
        .iter()
        .map(|idx| Ok((spec.key(idx)?, limit as u64)))
        .collect::<NcResult<_>>()?;
    // The GETs overlap each other and the decoding: each job takes its
    // chunk the moment it has arrived.
    let arrivals = store.start_get_many(keys);
    for (i, idx) in todo.into_iter().enumerate() {
        map.insert(idx.clone(), (arrivals.clone(), i));
    }
    Ok(map)
}

/// Split `buf` into the blocks of every group, `unit` items per element; the
/// blocks come back grouped as `groups` is. Overlapping blocks are an
/// internal error.
fn split_blocks<'a, T>(buf: &'a mut [T], unit: usize, groups: &[ReadGroup<'_>]) -> NcResult<Vec<Vec<Block<'a, T>>>> {
    let mut order: Vec<(usize, usize, usize)> = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        for (bi, b) in g.blocks.iter().enumerate() {
            order.push((b.0, gi, bi));
        }
    }
    order.sort_unstable();
    let mut pieces: Vec<Vec<Option<Block<'a, T>>>> =
        groups.iter().map(|g| g.blocks.iter().map(|_| None).collect()).collect();
    let mut rest: &'a mut [T] = buf;
    let mut pos = 0usize;
    for (o, gi, bi) in order {
        let len = groups[gi].blocks[bi].1;
        let skip = o.checked_sub(pos).ok_or(NcError::Internal)? * unit;
        if skip + len * unit > rest.len() {
            return Err(NcError::Internal);
        }
        let (_, tail) = std::mem::take(&mut rest).split_at_mut(skip);
        let (piece, tail) = tail.split_at_mut(len * unit);
        pieces[gi][bi] = Some((o, piece));
        rest = tail;
        pos = o + len;
    }
    pieces
        .into_iter()
        .map(|v| v.into_iter().map(|p| p.ok_or(NcError::Internal)).collect())
        .collect()
}

/// Cut one chunk's runs (in output order) out of its group's blocks.
fn carve_runs<'b, T>(blocks: &'b mut [Block<'_, T>], unit: usize, runs: &[Run]) -> NcResult<Vec<&'b mut [T]>> {
    let mut out = Vec::with_capacity(runs.len());
    let mut it = blocks.iter_mut();
    // The current block: its unread tail and the output element it starts at.
    let mut cur: Option<(usize, usize, &'b mut [T])> = None; // (pos, end, rest)
    for r in runs {
        loop {
            match &cur {
                Some((pos, end, _)) if r.out >= *pos && r.out + r.len <= *end => break,
                Some((pos, _, _)) if r.out < *pos => return Err(NcError::Internal),
                _ => {
                    let (first, slice) = it.next().ok_or(NcError::Internal)?;
                    let len = slice.len() / unit.max(1);
                    cur = Some((*first, *first + len, &mut **slice));
                }
            }
        }
        let (pos, end, rest) = cur.take().ok_or(NcError::Internal)?;
        let skip = (r.out - pos) * unit;
        let (_, tail) = rest.split_at_mut(skip);
        let (piece, tail) = tail.split_at_mut(r.len * unit);
        out.push(piece);
        cur = Some((r.out + r.len, end, tail));
    }
    Ok(out)
}

/// Convert a chunk's selected values into their pieces of caller memory.
/// Returns whether some value was out of range for the memory type.
fn convert_runs(data: &ChunkData, ft: NcType, mt: NcType, runs: &[Run], out: &mut [&mut [u8]]) -> NcResult<bool> {
    let ChunkData::Bytes(b) = data else {
        return Err(NcError::BadType);
    };
    let fs = ft.size();
    let mut range = false;
    let mut scratch = Vec::new();
    for (r, dst) in runs.iter().zip(out.iter_mut()) {
        let res = if r.step == 1 {
            convert::convert(ft, &b[r.chunk * fs..(r.chunk + r.len) * fs], mt, dst)
        } else {
            scratch.clear();
            for k in 0..r.len {
                let p = (r.chunk + k * r.step) * fs;
                scratch.extend_from_slice(&b[p..p + fs]);
            }
            convert::convert(ft, &scratch, mt, dst)
        };
        match res {
            Ok(()) => {}
            Err(NcError::Range) => range = true,
            Err(e) => return Err(e),
        }
    }
    Ok(range)
}

fn copy_string_runs(data: &ChunkData, runs: &[Run], out: &mut [&mut [Option<Vec<u8>>]]) -> NcResult<()> {
    let ChunkData::Strings(s) = data else {
        return Err(NcError::BadType);
    };
    for (r, dst) in runs.iter().zip(out.iter_mut()) {
        for (k, slot) in dst.iter_mut().enumerate() {
            *slot = s[r.chunk + k * r.step].clone();
        }
    }
    Ok(())
}

/// Does the selection within this chunk cover every in-bounds element of it?
fn covers_chunk(sel: &Selection, segs: &[Seg], shape: &[usize]) -> bool {
    segs.iter().enumerate().all(|(d, s)| {
        let c0 = s.c as usize * sel.chunk[d];
        let inb = sel.chunk[d].min(shape[d].saturating_sub(c0));
        sel.stride[d] == 1 && s.j0 == 0 && s.kn >= inb
    })
}

/// Write a hyperslab (nc_put_vars) from caller memory. Unlimited dimensions grow.
pub fn put_vars(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    start: &[usize],
    count: &[usize],
    stride: Option<&[isize]>,
    src: MemIn<'_>,
) -> NcResult<()> {
    if !ds.writable {
        return Err(NcError::Perm);
    }
    let store = ds.store.clone();
    let Some((_, sel)) = prepare(
        ds,
        grp,
        varid,
        start,
        count,
        stride,
        src.mem_type(),
        |n| src.holds(n),
        true,
    )?
    else {
        return Ok(());
    };
    let dimids = ds.var(grp, varid)?.dimids.clone();
    // A string variable's width: the user's `_nczarr_maxstrlen` (longer
    // strings are cut, as netcdf-c does), else it grows to the longest string
    // while nothing is stored yet; afterwards a longer string is refused
    // rather than silently cut.
    if let MemIn::Str(s) = &src {
        let explicit = ds.settle_string_width(grp, varid);
        let longest = s[..sel.total]
            .iter()
            .map(|x| x.as_ref().map_or(0, Vec::len))
            .max()
            .unwrap_or(0);
        let var = ds.var_mut(grp, varid)?;
        if let (StringLayout::Fixed(n), false) = (var.string_layout, explicit)
            && longest > n
        {
            {
                if var.chunks_on_disk {
                    crate::nclog!(
                        Level::Error,
                        "string of {} bytes exceeds the variable's stored width {}",
                        longest,
                        n
                    );
                    return Err(NcError::Range);
                }
                var.string_layout = StringLayout::Fixed(longest);
                var.meta_dirty = true;
            }
        }
    }
    let spec = {
        let var = ds.var(grp, varid)?;
        ChunkSpec::of(ds, grp, var)
    };
    // New dimension lengths after this write.
    let mut grown = Vec::new();
    for (d, &dimid) in dimids.iter().enumerate() {
        let end = sel.start[d] + (sel.count[d] - 1) * sel.stride[d] + 1;
        if ds.dims[dimid].unlimited && end > ds.dims[dimid].len {
            grown.push((dimid, end));
        }
    }
    for &(dimid, end) in &grown {
        ds.dims[dimid].len = end;
    }
    if !grown.is_empty() {
        ds.meta_dirty = true;
        for g in ds.groups.iter_mut() {
            for v in g.vars.iter_mut() {
                if v.dimids.iter().any(|d| grown.iter().any(|(g, _)| g == d)) {
                    v.meta_dirty = true;
                }
            }
        }
    }
    let shape = {
        let var = ds.var(grp, varid)?;
        if var.is_scalar() { vec![1] } else { ds.var_shape(var) }
    };
    let ft = spec.ty;
    let deferred_before = ds.deferred_bytes;
    let var = ds.var_mut(grp, varid)?;
    var.data_written = true;
    let mut work: Vec<(Vec<u64>, Vec<Seg>)> = Vec::new();
    for_each_chunk(&sel, |idx, segs| {
        work.push((idx, segs));
        Ok(())
    })?;
    let chunk_bytes = (spec.nelems * spec.elem_size()).max(1);
    let per_batch = chunks_per_batch(store.as_ref(), chunk_bytes);
    let mut range_err = false;
    // Chunks this write covers completely and that are not cached are built
    // from the caller's values and stored at once, on the pool, without
    // passing through the cache (strings excepted: their stored width is
    // settled when the first chunk is written). Each job holds only its own
    // chunk, so on stores without overlapping requests they all go to the
    // pool together (no wait between batches); on S3, in bounded batches.
    let (mut whole, mut partial): (Vec<&WriteWork>, Vec<&WriteWork>) = work.iter().partition(|(idx, segs)| {
        spec.ty != NcType::String && !var.cache.contains(idx) && covers_chunk(&sel, segs, &shape)
    });
    if spec.shards.is_some() {
        // Sharded: shards covered whole are stored at once; every other
        // chunk goes through the cache, its shard rewritten when it leaves.
        let (range, rest) = shard::put_whole_shards(&spec, store.as_ref(), &sel, &src, &shape, whole)?;
        range_err |= range;
        if var.stored_key.is_none() {
            var.stored_key = Some(spec.prefix.clone());
        }
        var.chunks_on_disk = true;
        partial.extend(rest);
        whole = Vec::new();
    }
    // A write of a few small whole chunks (nc_put_var of a small variable,
    // the usual way to fill many) cannot spread them over the pool: stored
    // now, they would go one after another in the caller, a file or request
    // each. They wait in the cache instead, dirty, and the next sync or close
    // stores them with every other variable's on the pool together. Bounded
    // by the chunk size, the cache's own size and DEFER_TOTAL_BYTES.
    let deferred = whole.len() * chunk_bytes;
    let defer = !whole.is_empty()
        && spec.shards.is_none()
        && whole.len() < pool::threads().max(2)
        && chunk_bytes <= DEFER_CHUNK_BYTES
        && deferred <= var.cache.size
        && deferred_before + deferred <= DEFER_TOTAL_BYTES;
    if defer {
        partial.append(&mut whole);
    }
    let whole_batch = if store.concurrent_requests() {
        per_batch
    } else {
        whole.len().max(1)
    };
    for jobs in whole.chunks(whole_batch) {
        let results = run_jobs(jobs.to_vec(), |(idx, segs)| {
            store_whole_chunk(&spec, store.as_ref(), &sel, &src, &shape, idx, segs)
        });
        var.chunks_on_disk = true;
        if var.stored_key.is_none() {
            var.stored_key = Some(spec.prefix.clone());
        }
        for r in results {
            range_err |= r?;
        }
    }
    for batch in partial.chunks(per_batch) {
        // Chunks partly overwritten and not cached must be read first: in parallel.
        let need_load: Vec<&Vec<u64>> = batch
            .iter()
            .filter(|(idx, segs)| !var.cache.contains(idx) && !covers_chunk(&sel, segs, &shape))
            .map(|(idx, _)| idx)
            .collect();
        let prefetched = prefetch(&spec, store.as_ref(), need_load.iter().copied(), &var.cache)?;
        let loaded: Vec<NcResult<ChunkData>> =
            run_jobs(need_load.clone(), |k| load_with(&spec, store.as_ref(), &prefetched, k));
        let mut loaded_by_key = std::collections::HashMap::new();
        for (k, r) in need_load.into_iter().zip(loaded) {
            loaded_by_key.insert(k.clone(), r?);
        }
        // Gather each chunk's current content (taking it out of the cache).
        let mut jobs = Vec::with_capacity(batch.len());
        for (idx, segs) in batch {
            let data = match var.cache.take(idx) {
                Some(d) => d,
                None => match loaded_by_key.remove(idx) {
                    Some(d) => d,
                    None => spec.fill_chunk()?,
                },
            };
            jobs.push((idx.clone(), segs, data));
        }
        // Convert the caller's values into the chunks on the pool.
        let done: Vec<(Vec<u64>, ChunkData, NcResult<()>)> = run_jobs(jobs, |(idx, segs, mut data)| {
            let r = copy_chunk_in(&sel, segs, &src, ft, &mut data)
                .and_then(|range| if range { Err(NcError::Range) } else { Ok(()) });
            (idx, data, r)
        });
        let mut evicted = Vec::new();
        let mut failure = None;
        for (idx, data, r) in done {
            match r {
                Ok(()) => {}
                Err(NcError::Range) => range_err = true,
                Err(e) => {
                    failure.get_or_insert(e);
                }
            }
            evicted.extend(var.cache.insert(idx, data, true));
        }
        var.chunks_on_disk |= evicted.iter().any(|e| e.2);
        write_evicted(&spec, store.as_ref(), evicted)?;
        if let Some(e) = failure {
            return Err(e);
        }
    }
    if defer {
        ds.deferred_bytes += deferred;
    }
    if range_err { Err(NcError::Range) } else { Ok(()) }
}

/// Store encoded objects with one `put_many` (an object that failed to
/// encode keeps its error); one result per object. Buffers go back to the pool.
fn put_encoded(store: &dyn Store, encoded: Vec<NcResult<(Key, Vec<u8>)>>) -> Vec<NcResult<()>> {
    let mut results: Vec<NcResult<()>> = Vec::with_capacity(encoded.len());
    let mut objs: Vec<(Key, Vec<u8>)> = Vec::new();
    let mut slots: Vec<usize> = Vec::new();
    for r in encoded {
        match r {
            Ok(obj) => {
                slots.push(results.len());
                objs.push(obj);
                results.push(Ok(()));
            }
            Err(e) => results.push(Err(e)),
        }
    }
    for (slot, r) in slots.into_iter().zip(store.put_many(&objs)) {
        results[slot] = r;
    }
    objs.into_iter().for_each(|(_, raw)| buffers::give(raw));
    results
}

/// Store one chunk that a write covers completely. Values stored exactly as
/// the caller holds them go from caller memory to storage in one gathered
/// write; others are converted into a chunk buffer first. Returns whether some
/// value was out of range for the file type (stored anyway, as netcdf-c does).
fn store_whole_chunk(
    spec: &ChunkSpec,
    store: &dyn Store,
    sel: &Selection,
    src: &MemIn<'_>,
    shape: &[usize],
    idx: &[u64],
    segs: &[Seg],
) -> NcResult<bool> {
    let in_bounds = idx
        .iter()
        .zip(&spec.chunk)
        .zip(shape)
        .all(|((&i, &c), &n)| (i as usize + 1) * c <= n);
    if let MemIn::Num { ty, data } = src
        && in_bounds
        && spec.writes_in_place(*ty)
    {
        let es = ty.size();
        let mut parts: Vec<(usize, &[u8])> = Vec::new();
        for_each_run(sel, segs, |r| {
            if r.step != 1 {
                return Err(NcError::Internal);
            }
            parts.push((r.chunk, &data[r.out * es..(r.out + r.len) * es]));
            Ok(())
        })?;
        parts.sort_unstable_by_key(|p| p.0);
        let slices: Vec<&[u8]> = parts.into_iter().map(|p| p.1).collect();
        return store.put_parts(&spec.key(idx)?, &slices).map(|()| false);
    }
    let key = spec.key(idx)?;
    // Inside the array, the write covers every value of the chunk.
    let mut data = if in_bounds {
        spec.blank_chunk()?
    } else {
        spec.fill_chunk()?
    };
    let range = match copy_chunk_in(sel, segs, src, spec.ty, &mut data) {
        Ok(range) => range,
        Err(e) => {
            recycle(data);
            return Err(e);
        }
    };
    // The chunk was built for this write only: it is encoded in place.
    let raw = spec.encode_owned(data)?;
    let r = store.put(&key, &raw);
    buffers::give(raw);
    r.map(|()| range)
}

/// Copy (converting) the caller's values of one chunk's segments into it.
/// Values out of range for the file type are stored anyway, as netcdf-c does;
/// returns whether there were any.
fn copy_chunk_in(sel: &Selection, segs: &[Seg], src: &MemIn<'_>, ft: NcType, data: &mut ChunkData) -> NcResult<bool> {
    let mut scratch = Vec::new();
    let mut range = false;
    for_each_run(sel, segs, |run| match copy_in(src, data, ft, run, &mut scratch) {
        Err(NcError::Range) => {
            range = true;
            Ok(())
        }
        r => r,
    })?;
    Ok(range)
}

/// Store a set of objects on the worker pool (metadata written at sync).
pub fn put_all(store: &dyn Store, objs: Vec<(Key, Vec<u8>)>) -> NcResult<()> {
    let put = |(k, b): &(Key, Vec<u8>)| store.put(k, b);
    let threads = pool::threads().max(1);
    if objs.len() > 1 && store.concurrent_requests() {
        store.put_many(&objs).into_iter().collect()
    } else if objs.len() > 1 && threads > 1 {
        // A few large tasks per thread: one small object per task would spend
        // more time waking threads than writing.
        let per_task = objs.len().div_ceil(threads * 4).max(1);
        pool::on_pool(|| objs.par_chunks(per_task).try_for_each(|c| c.iter().try_for_each(put)))
    } else {
        objs.iter().try_for_each(put)
    }
}

/// Encode and store every dirty chunk of every variable, in parallel: the
/// chunks of all variables go to the pool together (a dataset of many small
/// variables has one chunk each). Chunks are encoded from where they sit in
/// the cache, never copied first.
pub fn flush_chunks(ds: &mut Dataset) -> NcResult<()> {
    let store = ds.store.clone();
    ds.deferred_bytes = 0;
    // (group, variable, its chunk spec, its dirty chunks' keys)
    let mut work: Vec<(usize, usize, ChunkSpec, Vec<Vec<u64>>)> = Vec::new();
    for g in 0..ds.groups.len() {
        for vi in 0..ds.groups[g].vars.len() {
            let var = &ds.groups[g].vars[vi];
            if !var.cache.has_dirty() {
                continue;
            }
            work.push((g, vi, ChunkSpec::of(ds, g, var), var.cache.dirty_keys()));
        }
    }
    // Sharded variables: their chunks grouped by shard, each shard written once.
    let mut first_err = None;
    for (g, vi, spec, keys) in work.iter().filter(|w| w.2.shards.is_some()) {
        let var = &ds.groups[*g].vars[*vi];
        let chunks: Vec<(&Vec<u64>, &ChunkData)> =
            keys.iter().filter_map(|k| var.cache.peek(k).map(|d| (k, d))).collect();
        let results = shard::store_chunks(spec, store.as_ref(), &chunks);
        let done: Vec<Vec<u64>> = chunks
            .iter()
            .zip(results)
            .filter_map(|((k, _), r)| match r {
                Ok(()) => Some((*k).clone()),
                Err(e) => {
                    first_err.get_or_insert(e);
                    None
                }
            })
            .collect();
        let var = &mut ds.groups[*g].vars[*vi];
        for k in &done {
            var.cache.clear_dirty(k);
        }
        var.chunks_on_disk = true;
        if var.stored_key.is_none() {
            var.stored_key = Some(spec.prefix.clone());
        }
    }
    work.retain(|w| w.2.shards.is_none());
    if work.is_empty() {
        return first_err.map_or(Ok(()), Err);
    }
    let jobs: Vec<(usize, usize)> = work
        .iter()
        .enumerate()
        .flat_map(|(w, (_, _, _, d))| (0..d.len()).map(move |c| (w, c)))
        .collect();
    let results: Vec<NcResult<()>> = {
        let ds: &Dataset = ds;
        let put = |&(w, c): &(usize, usize)| -> NcResult<()> {
            let (g, vi, spec, keys) = &work[w];
            let data = ds.groups[*g].vars[*vi].cache.peek(&keys[c]).ok_or(NcError::Internal)?;
            spec.store_chunk(store.as_ref(), &keys[c], data)
        };
        if jobs.len() > 1 && store.concurrent_requests() {
            // Encode on the pool, then concurrent batches of PUTs (bounded
            // memory: 256 encoded chunks at a time).
            let mut out = Vec::with_capacity(jobs.len());
            for batch in jobs.chunks(256) {
                let encoded: Vec<NcResult<(Key, Vec<u8>)>> = pool::on_pool(|| {
                    batch
                        .par_iter()
                        .map(|&(w, c)| {
                            let (g, vi, spec, keys) = &work[w];
                            let data = ds.groups[*g].vars[*vi].cache.peek(&keys[c]).ok_or(NcError::Internal)?;
                            Ok((spec.key(&keys[c])?, spec.encode(data)?))
                        })
                        .collect()
                });
                out.extend(put_encoded(store.as_ref(), encoded));
            }
            out
        } else if jobs.len() == 1 {
            jobs.iter().map(put).collect()
        } else {
            let per_task = jobs.len().div_ceil(pool::threads().max(1) * 8).max(1);
            pool::on_pool(|| jobs.par_chunks(per_task).flat_map_iter(|c| c.iter().map(put)).collect())
        }
    };
    for (&(w, c), r) in jobs.iter().zip(results) {
        let (g, vi, _, keys) = &work[w];
        match r {
            Ok(()) => ds.groups[*g].vars[*vi].cache.clear_dirty(&keys[c]),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    for (g, vi, spec, _) in work {
        let var = &mut ds.groups[g].vars[vi];
        var.chunks_on_disk = true;
        if var.stored_key.is_none() {
            var.stored_key = Some(spec.prefix.clone());
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Mapped access (nc_get/put_varm): call `f(k, off)` for the k-th value of a
/// selection of shape `count` (C order) and its offset `off` in elements in
/// the caller's memory, where `imap` gives the distance between successive
/// values along each dimension.
pub fn for_each_mapped(count: &[usize], imap: &[usize], mut f: impl FnMut(usize, usize)) {
    if count.contains(&0) {
        return;
    }
    let n = count.len();
    let total: usize = count.iter().product();
    let mut idx = vec![0usize; n];
    for k in 0..total {
        f(k, idx.iter().zip(imap).map(|(i, m)| i * m).sum());
        for d in (0..n).rev() {
            idx[d] += 1;
            if idx[d] < count[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// Place contiguous values at their mapped positions.
pub fn scatter_map<T: Clone>(contig: &[T], count: &[usize], imap: &[usize], out: &mut [T]) {
    for_each_mapped(count, imap, |k, off| out[off] = contig[k].clone());
}

/// Collect values from their mapped positions into contiguous order.
pub fn gather_map<T: Clone>(src: &[T], count: &[usize], imap: &[usize], contig: &mut [T]) {
    for_each_mapped(count, imap, |k, off| contig[k] = src[off].clone());
}

/// nc_set_var_chunk_cache: resize one variable's cache, writing out what it evicts.
pub fn set_var_cache(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    size: usize,
    nelems: usize,
    preemption: f32,
) -> NcResult<()> {
    let store = ds.store.clone();
    let spec = ChunkSpec::of(ds, grp, ds.var(grp, varid)?);
    let var = ds.var_mut(grp, varid)?;
    let ev = var.cache.resize(size, nelems, preemption);
    var.chunks_on_disk |= ev.iter().any(|e| e.2);
    write_evicted(&spec, store.as_ref(), ev)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segs() {
        let s = segments(3, 5, 1, 4);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].c, s[0].k0, s[0].kn, s[0].j0), (0, 0, 1, 3));
        assert_eq!((s[1].c, s[1].k0, s[1].kn, s[1].j0), (1, 1, 4, 0));
        let s = segments(1, 4, 3, 4); // positions 1,4,7,10
        assert_eq!(
            s.iter().map(|x| (x.c, x.kn, x.j0)).collect::<Vec<_>>(),
            vec![(0, 1, 1), (1, 2, 0), (2, 1, 2)]
        );
    }

    #[test]
    fn transpose_round_trip() {
        let data: Vec<u8> = (0..24).collect();
        let f = transpose(&data, &[2, 3, 4], 1, false);
        assert_eq!(transpose(&f, &[2, 3, 4], 1, true), data);
        assert_eq!(&f[..4], &[0, 12, 4, 16]);
    }
}
