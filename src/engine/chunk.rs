//! One variable's chunks as bytes: their layout (type, byte order, C or
//! Fortran order, string layout), fill, quantization and codec chain, and
//! the steps between a decoded chunk (`ChunkData`) and its stored bytes.
//! Where the stored bytes live is the chunk source's business (`source.rs`).
#![forbid(unsafe_code)]

use std::fmt::Display;
use std::sync::Arc;

use crate::codec::{Chain, Step};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::model::cache::ChunkData;
use crate::model::convert;
use crate::model::types::NcType;
use crate::model::{Dataset, StringLayout, Var};
use crate::runtime::buffers;

/// Everything needed to encode or decode one chunk of a variable, detached
/// from the dataset so that worker threads can use it.
#[derive(Debug, Clone)]
pub(super) struct ChunkSpec {
    pub ty: NcType,
    pub big_endian: bool,
    pub layout: StringLayout,
    pub order_f: bool,
    pub chunk: Vec<usize>,
    pub nelems: usize,
    pub fill: Vec<u8>,
    /// No fill value: absent chunks read as zeros (netcdf-c's behaviour).
    pub no_fill: bool,
    /// The codec chain (None without codecs; an error when a codec is missing).
    pub chain: Option<Result<Arc<Chain>, NcError>>,
    /// The variable's key in the store (where its chunks live; for log lines).
    pub node: String,
}

/// How big a chunk's stored bytes may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct StoredLimits {
    /// The decoded chunk's size in bytes (for vlen strings: the most read).
    pub raw_len: usize,
    /// The most bytes its stored form may have: with codecs, a margin over
    /// the decoded size (incompressible data, checksums).
    pub max_stored: usize,
    /// Variable-length strings (their decoded size is not known ahead).
    pub vlen: bool,
}

/// A chunk decoded in part (`ChunkSpec::decode_part`).
#[derive(Debug)]
pub(super) enum Part {
    /// The elements from the first one asked for (`first`) to the last, in
    /// native order: those of the ranges asked for decoded, the others
    /// between them unspecified.
    Range { first: usize, bytes: Vec<u8> },
    /// The codec could not decode a part: the whole chunk.
    Whole(ChunkData),
}

impl ChunkSpec {
    /// The spec of variable `var` of group `grp`.
    pub fn of(ds: &Dataset, grp: usize, var: &Var) -> ChunkSpec {
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
            node: var.stored_key.clone().unwrap_or_else(|| ds.var_key(grp, &var.name)),
        }
    }

    /// Stored values need a byte swap on this machine.
    fn swaps(&self) -> bool {
        self.big_endian != cfg!(target_endian = "big")
    }

    /// Chunks are stored in Fortran order (and that differs from C order).
    fn transposed(&self) -> bool {
        self.order_f && self.chunk.len() > 1
    }

    /// Whether chunks can be read straight into caller memory of type `mt`:
    /// no codec, no conversion, no byte swap, no transposition, fixed size.
    pub fn reads_in_place(&self, mt: NcType) -> bool {
        self.chain.is_none() && self.ty != NcType::String && mt == self.ty && !self.swaps() && !self.transposed()
    }

    /// Whether values of memory type `mt` are stored exactly as they are in
    /// memory (what `reads_in_place` asks; quantization happened before, in
    /// the write's input).
    pub fn writes_in_place(&self, mt: NcType) -> bool {
        self.reads_in_place(mt)
    }

    /// Bytes of one value in a stored chunk before codecs (0 for vlen strings).
    pub fn elem_size(&self) -> usize {
        match (self.ty, self.layout) {
            (NcType::String, StringLayout::Fixed(n)) => n,
            (NcType::String, StringLayout::Utf32 { n, .. }) => n * 4,
            (NcType::String, StringLayout::VlenUtf8) => 0,
            (t, _) => t.size(),
        }
    }

    /// A decoded chunk's size in bytes, at least 1 (what batches are sized by).
    pub fn chunk_bytes(&self) -> usize {
        (self.nelems * self.elem_size()).max(1)
    }

    /// A chunk every value of which the caller is about to write: numbers
    /// get a recycled buffer as it is (no fill written only to be
    /// overwritten); strings a filled chunk.
    pub fn blank_chunk(&self) -> NcResult<ChunkData> {
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
            self.node,
            self.nelems
        );
        NcError::NoMem
    }

    /// A chunk of fill values (or zeros without a fill value). Its size
    /// comes from metadata, so memory is reserved fallibly (NC_ENOMEM).
    pub fn fill_chunk(&self) -> NcResult<ChunkData> {
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

    /// How big a chunk's stored bytes may be. A missing codec is its error.
    pub fn stored_limits(&self) -> NcResult<StoredLimits> {
        let vlen = self.layout == StringLayout::VlenUtf8 && self.ty == NcType::String;
        let raw_len = if vlen {
            crate::model::MAX_VLEN_CHUNK_BYTES
        } else {
            self.nelems.checked_mul(self.elem_size()).ok_or(NcError::NcZarr)?
        };
        let max_stored = match &self.chain {
            None => raw_len,
            Some(Err(e)) => return Err(*e),
            Some(Ok(_)) if vlen => raw_len,
            Some(Ok(_)) => raw_len
                .saturating_add(raw_len / 8)
                .saturating_add(1 << 16)
                .min(crate::codec::zlib::UNBOUNDED),
        };
        Ok(StoredLimits {
            raw_len,
            max_stored,
            vlen,
        })
    }

    /// The codec chain, when there is one; a missing codec is its error.
    fn codecs(&self) -> NcResult<Option<&Arc<Chain>>> {
        match &self.chain {
            None => Ok(None),
            Some(Ok(c)) => Ok(Some(c)),
            Some(Err(e)) => Err(*e),
        }
    }

    /// A buffer to fetch a stored chunk into (room for the whole chunk
    /// without codecs, for half of it with; at most 64 MiB ahead).
    pub fn fetch_buffer(&self, raw_len: usize) -> Vec<u8> {
        match self.chain {
            None => buffers::take(raw_len.min(64 << 20)),
            Some(_) => buffers::take(raw_len.min(64 << 20) / 2),
        }
    }

    /// Can chunks be decoded in part? Only through a single codec, for
    /// numbers stored in C order (whether that codec can is known once it
    /// sees a chunk).
    pub fn ranged_decode(&self) -> bool {
        matches!(&self.chain, Some(Ok(c)) if c.steps.len() == 1) && self.ty != NcType::String && !self.transposed()
    }

    /// Whether chunks read into memory of type `mt` may be decoded straight
    /// into it (`decode_into`): one codec, which decodes ranges (blosc), and
    /// no conversion (a byte swap is done in place).
    pub fn decodes_into(&self, mt: NcType) -> bool {
        let ranges = matches!(&self.chain, Some(Ok(c)) if c.steps.first().is_some_and(|s| s.filter.decodes_ranges()));
        ranges && self.ranged_decode() && mt == self.ty
    }

    /// Start decoding the parts `dests` of a chunk, each (element offset in
    /// the chunk, destination; sorted and disjoint), from its stored bytes
    /// straight into their destinations (see `IntoPlace`).
    pub fn in_place_decoder<'d>(
        &self,
        stored: Vec<u8>,
        dests: Vec<(usize, &'d mut [u8])>,
    ) -> NcResult<IntoPlace<'_, 'd>> {
        let limits = self.stored_limits()?;
        let step = match &self.chain {
            Some(Ok(chain)) if self.decodes_into(self.ty) && !limits.vlen => Some(&chain.steps[0]),
            _ => None,
        };
        let es = self.elem_size();
        Ok(IntoPlace {
            spec: self,
            step,
            raw_len: limits.raw_len,
            stored,
            parts: dests.into_iter().map(|(at, d)| (at * es, d)).collect(),
            next: 0,
            whole: None,
        })
    }

    /// Decode the parts `dests` of a chunk (as `in_place_decoder`) all at once.
    /// `name` names the chunk in log lines.
    pub fn decode_into(&self, stored: Vec<u8>, dests: Vec<(usize, &mut [u8])>, name: &dyn Display) -> NcResult<()> {
        let mut chunk = self.in_place_decoder(stored, dests)?;
        chunk.advance(usize::MAX, name)?;
        chunk.recycle();
        Ok(())
    }

    /// The one codec that would decode the element ranges `ranges` (sorted,
    /// disjoint, from `part_ranges`) of a chunk, with the byte span from the
    /// first range's start to the last one's end; None when the chunk must
    /// be decoded whole.
    pub fn part_step(&self, ranges: &[(usize, usize)]) -> Option<(&Step, usize, usize)> {
        let (&(e0, _), &(_, e1)) = (ranges.first()?, ranges.last()?);
        let limits = self.stored_limits().ok()?;
        let (true, Some(Ok(chain)), false) = (self.ranged_decode(), &self.chain, limits.vlen) else {
            return None;
        };
        let es = self.elem_size();
        let (b0, b1) = (e0.checked_mul(es)?, e1.checked_mul(es)?);
        let step = chain.steps.first().filter(|_| b0 <= b1 && b1 <= limits.raw_len)?;
        Some((step, b0, b1))
    }

    /// Decode the element ranges `ranges` of a chunk from its stored bytes:
    /// each range apart when the codec decodes ranges (blosc), else the span
    /// from the first to the last when that is at most a quarter of the
    /// chunk; otherwise the whole chunk. `name` names the chunk in log lines.
    pub fn decode_part(&self, stored: Vec<u8>, ranges: &[(usize, usize)], name: &dyn Display) -> NcResult<Part> {
        let Some((step, b0, b1)) = self.part_step(ranges) else {
            return self.decode_stored(stored, name).map(Part::Whole);
        };
        let raw_len = self.stored_limits()?.raw_len;
        let es = self.elem_size();
        let (e0, e1) = (ranges[0].0, ranges[ranges.len() - 1].1);
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
                self.decode_stored(stored, name).map(Part::Whole)
            }
            Some(Err(e)) => {
                crate::nclog!(Level::Error, "chunk {}: the codec chain cannot decode it", name);
                buffers::give(out);
                buffers::give(stored);
                Err(e)
            }
            Some(Ok(())) => {
                buffers::give(stored);
                if self.swaps() {
                    convert::swap_in_place(&mut out, self.ty.size());
                }
                Ok(Part::Range { first: e0, bytes: out })
            }
        }
    }

    /// Decode a chunk from its stored bytes: through the codec chain, then
    /// into values.
    pub fn decode_stored(&self, stored: Vec<u8>, name: &dyn Display) -> NcResult<ChunkData> {
        let limits = self.stored_limits()?;
        let Some(chain) = self.codecs()? else {
            return self.decode(stored, name);
        };
        let expect = if limits.vlen {
            stored.len().saturating_mul(4)
        } else {
            limits.raw_len
        };
        let raw = chain.decode(stored, expect, limits.max_stored).inspect_err(|_| {
            crate::nclog!(Level::Error, "chunk {}: the codec chain cannot decode it", name);
        })?;
        if !limits.vlen && raw.len() != limits.raw_len {
            crate::nclog!(
                Level::Error,
                "chunk {} decodes to {} bytes, expected {}",
                name,
                raw.len(),
                limits.raw_len
            );
            return Err(NcError::Filter);
        }
        self.decode(raw, name)
    }

    /// A chunk's bytes after codecs into values: byte order, C order, strings.
    fn decode(&self, mut raw: Vec<u8>, name: &dyn Display) -> NcResult<ChunkData> {
        if self.ty == NcType::String && self.layout == StringLayout::VlenUtf8 {
            return decode_vlen(&raw, self.nelems, name);
        }
        let es = self.elem_size();
        if raw.len() != self.nelems * es {
            crate::nclog!(
                Level::Error,
                "chunk {} has {} bytes, expected {}",
                name,
                raw.len(),
                self.nelems * es
            );
            return Err(NcError::NcZarr);
        }
        if self.transposed() {
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
                if self.swaps() {
                    convert::swap_in_place(&mut raw, t.size());
                }
                Ok(ChunkData::Bytes(raw))
            }
        }
    }

    /// Whether `data` is stored exactly as it is held (no codec, native
    /// byte order, C order): it can go to storage as it is.
    pub fn stored_as_is(&self, data: &ChunkData) -> bool {
        matches!(data, ChunkData::Bytes(_)) && self.ty != NcType::String && self.writes_in_place(self.ty)
    }

    /// `encode` for a chunk its owner is done with: numbers go through the
    /// codecs in their own buffer, without the copy `encode` makes.
    pub fn encode_owned(&self, data: ChunkData) -> NcResult<Vec<u8>> {
        match data {
            ChunkData::Bytes(b) => self.through_codecs(self.plain_numbers(b)),
            other => {
                let r = self.encode(&other);
                recycle(other);
                r
            }
        }
    }

    /// A chunk's stored bytes (a new buffer from the pool).
    pub fn encode(&self, data: &ChunkData) -> NcResult<Vec<u8>> {
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
    /// byte-swapped, in the stored order.
    fn plain_numbers(&self, mut b: Vec<u8>) -> Vec<u8> {
        if self.swaps() {
            convert::swap_in_place(&mut b, self.ty.size());
        }
        self.in_stored_order(b)
    }

    /// A chunk's bytes (C order) in the order it is stored in.
    fn in_stored_order(&self, b: Vec<u8>) -> Vec<u8> {
        if self.transposed() {
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

/// A chunk decoded straight into caller memory (`ChunkSpec::in_place_decoder`),
/// a stretch at a time: `advance` writes the parts before a byte of the
/// chunk, so that the chunks of one row of chunks, whose parts share pages
/// of caller memory, can be written in step. The codec decodes the ranges
/// when it can (blosc); otherwise the chunk is decoded whole once and the
/// parts copied out of it.
pub(super) struct IntoPlace<'s, 'd> {
    spec: &'s ChunkSpec,
    /// The codec that decodes ranges (None: decode whole).
    step: Option<&'s Step>,
    raw_len: usize,
    stored: Vec<u8>,
    /// (byte offset in the chunk, destination) of every part, in order;
    /// those from `next` on are not written yet.
    parts: Vec<(usize, &'d mut [u8])>,
    next: usize,
    /// The chunk decoded whole (native byte order), once the codec has not
    /// decoded a range.
    whole: Option<ChunkData>,
}

impl<'d> IntoPlace<'_, 'd> {
    /// The stretch of decoded bytes the codec decodes as one piece (blosc:
    /// a block), when it decodes ranges.
    pub fn piece(&self) -> Option<usize> {
        self.step.and_then(|s| s.filter.range_piece(&s.working, &self.stored))
    }

    /// The parts not written yet that lie before byte `until` of the chunk
    /// (a part across it cut there: its tail stays).
    fn take_before(&mut self, until: usize) -> Vec<(usize, &'d mut [u8])> {
        let mut now = Vec::new();
        while let Some((at, d)) = self.parts.get_mut(self.next) {
            let at = *at;
            if at >= until {
                break;
            }
            let d = std::mem::take(d);
            if d.len() <= until - at {
                now.push((at, d));
                self.next += 1;
            } else {
                let (head, tail) = d.split_at_mut(until - at);
                now.push((at, head));
                self.parts[self.next] = (until, tail);
                break;
            }
        }
        now
    }

    /// Write the parts (or their heads) that lie before byte `until` of
    /// the chunk. `name` names the chunk in log lines.
    pub fn advance(&mut self, until: usize, name: &dyn Display) -> NcResult<()> {
        let mut now = self.take_before(until);
        if now.is_empty() {
            return Ok(());
        }
        if self.whole.is_none() {
            let step = self.step;
            match step.and_then(|s| s.filter.decode_ranges(&s.working, &self.stored, self.raw_len, &mut now)) {
                Some(Ok(())) => {
                    if self.spec.swaps() {
                        for (_, d) in now {
                            convert::swap_in_place(d, self.spec.ty.size());
                        }
                    }
                    return Ok(());
                }
                Some(Err(e)) => {
                    crate::nclog!(Level::Error, "chunk {}: the codec chain cannot decode it", name);
                    return Err(e);
                }
                None => {
                    let stored = std::mem::take(&mut self.stored);
                    self.whole = Some(self.spec.decode_stored(stored, name)?);
                }
            }
        }
        let Some(ChunkData::Bytes(b)) = &self.whole else {
            return Err(NcError::Internal);
        };
        for (at, d) in now {
            let src = b.get(at..at + d.len()).ok_or(NcError::Internal)?;
            d.copy_from_slice(src);
        }
        Ok(())
    }

    /// Give the chunk's buffers back for reuse.
    pub fn recycle(self) {
        buffers::give(self.stored);
        if let Some(w) = self.whole {
            recycle(w);
        }
    }
}

/// Hand a chunk's memory back for reuse.
pub(super) fn recycle(d: ChunkData) {
    if let ChunkData::Bytes(b) = d {
        buffers::give(b);
    }
}

/// numcodecs `vlen-utf8`: a little-endian u32 item count, then each item as
/// a u32 length and its bytes. Every length is checked against what is left.
fn decode_vlen(raw: &[u8], nelems: usize, name: &dyn Display) -> NcResult<ChunkData> {
    let bad = |why: &str| {
        crate::nclog!(Level::Error, "chunk {}: bad vlen-utf8 data: {}", name, why);
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
/// Fortran order is Zarr v3's `transpose` with the dimensions reversed: one
/// implementation (`codec::transpose::permute`) serves both.
fn transpose(data: &[u8], shape: &[usize], es: usize, to_c: bool) -> Vec<u8> {
    let reversed: Vec<usize> = (0..shape.len()).rev().collect();
    crate::codec::transpose::permute(data, shape, &reversed, es, to_c)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A spec for `ty` chunks of shape `chunk`, native order, no codecs.
    pub fn spec(ty: NcType, chunk: &[usize]) -> ChunkSpec {
        ChunkSpec {
            ty,
            big_endian: cfg!(target_endian = "big"),
            layout: StringLayout::Fixed(1),
            order_f: false,
            chunk: chunk.to_vec(),
            nelems: chunk.iter().product(),
            fill: vec![0; ty.size().max(1)],
            no_fill: false,
            chain: None,
            node: "v".to_string(),
        }
    }

    /// The same with codecs (their Zarr JSON, encoding order).
    pub fn with_codecs(mut s: ChunkSpec, codecs: &[serde_json::Value]) -> ChunkSpec {
        let ctx = crate::codec::VarContext {
            ncid: -1,
            varid: -1,
            nc_type: s.ty.id(),
            type_size: s.ty.size(),
            chunk_shape: s.chunk.iter().map(|&c| c as u64).collect(),
            little_endian: !s.big_endian,
            last_dim_len: None,
        };
        s.chain = Some(crate::codec::resolve("v", codecs, &ctx).map(Arc::new));
        s
    }

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    /// A chunk decoded into place a stretch at a time (cut anywhere on
    /// whole elements, parts cut across stretches) writes what one whole
    /// decode writes: blosc (ranges decoded, both byte orders) and zstd
    /// (decoded whole once, then copied).
    #[test]
    fn decoded_in_place_in_stretches_equals_at_once() {
        let vals: Vec<i32> = (0..40_000).map(|i| i * 3 - (i >> 4)).collect();
        let codecs = [
            serde_json::json!({"id": "blosc", "cname": "lz4", "clevel": 1, "shuffle": 1, "blocksize": 4096}),
            serde_json::json!({"id": "zstd", "level": 1}),
        ];
        // Parts: (first element, elements).
        let parts = [(0usize, 10usize), (10, 1000), (3000, 5000), (20_000, 3), (39_990, 10)];
        for codec in &codecs {
            for big in [false, true] {
                let mut s = spec(NcType::Int, &[vals.len()]);
                s.big_endian = big;
                let s = with_codecs(s, std::slice::from_ref(codec));
                let stored = s.encode(&ChunkData::Bytes(ints(&vals))).unwrap();
                for stretch in [4usize, 4096, 10_000, 64 << 10, usize::MAX] {
                    let mut bufs: Vec<Vec<u8>> = parts.iter().map(|&(_, n)| vec![0; n * 4]).collect();
                    let dests = parts
                        .iter()
                        .zip(bufs.iter_mut())
                        .map(|(&(a, _), b)| (a, &mut b[..]))
                        .collect();
                    let mut chunk = s.in_place_decoder(stored.clone(), dests).unwrap();
                    let mut until = 0usize;
                    while until < vals.len() * 4 {
                        until = until.saturating_add(stretch);
                        chunk.advance(until, &"c").unwrap();
                    }
                    chunk.recycle();
                    for (&(a, n), b) in parts.iter().zip(&bufs) {
                        assert_eq!(*b, ints(&vals[a..a + n]), "{codec} big-endian {big}, stretch {stretch}");
                    }
                }
            }
        }
    }

    #[test]
    fn transpose_round_trip() {
        let data: Vec<u8> = (0..24).collect();
        let f = transpose(&data, &[2, 3, 4], 1, false);
        assert_eq!(transpose(&f, &[2, 3, 4], 1, true), data);
        assert_eq!(&f[..4], &[0, 12, 4, 16]);
    }

    #[test]
    fn fill_chunks() {
        let mut s = spec(NcType::Int, &[5]);
        s.fill = (-7i32).to_ne_bytes().to_vec();
        assert_eq!(s.fill_chunk().unwrap(), ChunkData::Bytes(ints(&[-7; 5])));
        s.no_fill = true;
        assert_eq!(s.fill_chunk().unwrap(), ChunkData::Bytes(ints(&[0; 5])));
        let mut s = spec(NcType::String, &[2]);
        s.fill = b"x".to_vec();
        assert_eq!(
            s.fill_chunk().unwrap(),
            ChunkData::Strings(vec![Some(b"x".to_vec()), Some(b"x".to_vec())])
        );
        // A chunk too big for memory is NC_ENOMEM, never an abort.
        let s = spec(NcType::Double, &[usize::MAX / 4]);
        assert_eq!(s.fill_chunk().err(), Some(NcError::NoMem));
        assert_eq!(s.blank_chunk().err(), Some(NcError::NoMem));
    }

    #[test]
    fn numbers_round_trip_in_every_stored_form() {
        let vals: Vec<i32> = (0..12).map(|i| i * 1000 - 3).collect();
        let data = ChunkData::Bytes(ints(&vals));
        for (big_endian, order_f) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut s = spec(NcType::Int, &[3, 4]);
            s.big_endian = big_endian;
            s.order_f = order_f;
            let stored = s.encode(&data).unwrap();
            // Stored in the declared byte order and element order (the
            // second value stored is (1, 0) in Fortran order).
            let second_stored = if order_f { vals[4] } else { vals[1] };
            let word = |b: &[u8]| {
                let a = [b[0], b[1], b[2], b[3]];
                if big_endian {
                    i32::from_be_bytes(a)
                } else {
                    i32::from_le_bytes(a)
                }
            };
            assert_eq!((word(&stored[0..4]), word(&stored[4..8])), (vals[0], second_stored));
            assert_eq!(s.decode_stored(stored, &"k").unwrap(), data);
            assert_eq!(s.stored_as_is(&data), !big_endian && !order_f);
        }
    }

    #[test]
    fn codecs_round_trip_and_bad_bytes_are_errors() {
        let s = with_codecs(
            spec(NcType::Int, &[64]),
            &[serde_json::json!({"id": "zlib", "level": 1})],
        );
        let vals: Vec<i32> = (0..64).collect();
        let data = ChunkData::Bytes(ints(&vals));
        let stored = s.encode(&data).unwrap();
        assert!(stored.len() < 256);
        assert!(!s.stored_as_is(&data));
        assert_eq!(s.decode_stored(stored.clone(), &"k").unwrap(), data);
        assert_eq!(s.encode_owned(data.clone()).unwrap(), stored);
        assert_eq!(s.decode_stored(vec![1, 2, 3], &"k").err(), Some(NcError::Filter));
        // A stream that decodes to the wrong size.
        let short = s.encode(&ChunkData::Bytes(ints(&vals[..10]))).unwrap();
        assert_eq!(s.decode_stored(short, &"k").err(), Some(NcError::Filter));
        // Without codecs, a wrong size is NC_ENCZARR.
        assert_eq!(
            spec(NcType::Int, &[64]).decode_stored(vec![0; 12], &"k").err(),
            Some(NcError::NcZarr)
        );
        // A missing codec is its error on every path.
        let mut m = spec(NcType::Int, &[4]);
        m.chain = Some(Err(NcError::NoFilter));
        assert_eq!(m.stored_limits().err(), Some(NcError::NoFilter));
        assert_eq!(
            m.encode(&ChunkData::Bytes(ints(&[1, 2, 3, 4]))).err(),
            Some(NcError::NoFilter)
        );
        assert_eq!(m.decode_stored(vec![0; 16], &"k").err(), Some(NcError::NoFilter));
    }

    #[test]
    fn limits_of_stored_chunks() {
        let s = spec(NcType::Double, &[10, 10]);
        assert_eq!(
            s.stored_limits(),
            Ok(StoredLimits {
                raw_len: 800,
                max_stored: 800,
                vlen: false
            })
        );
        let z = with_codecs(s, &[serde_json::json!({"id": "zlib", "level": 1})]);
        assert_eq!(z.stored_limits().unwrap().max_stored, 800 + 100 + (1 << 16));
        let mut v = spec(NcType::String, &[4]);
        v.layout = StringLayout::VlenUtf8;
        assert_eq!(v.stored_limits().unwrap().raw_len, crate::model::MAX_VLEN_CHUNK_BYTES);
        assert!(v.stored_limits().unwrap().vlen);
    }

    #[test]
    fn strings_round_trip_in_every_layout() {
        let vals = ChunkData::Strings(vec![
            Some(b"ab".to_vec()),
            None,
            Some("\u{e9}t\u{e9}".as_bytes().to_vec()),
        ]);
        for layout in [
            StringLayout::Fixed(6),
            StringLayout::Utf32 { n: 3, big: false },
            StringLayout::Utf32 { n: 3, big: true },
            StringLayout::VlenUtf8,
        ] {
            let mut s = spec(NcType::String, &[3]);
            s.layout = layout;
            let stored = s.encode(&vals).unwrap();
            let back = s.decode_stored(stored, &"k").unwrap();
            let want = match layout {
                // NULL reads back as the empty string where the layout has no NULL.
                StringLayout::Utf32 { .. } => ChunkData::Strings(vec![
                    Some(b"ab".to_vec()),
                    Some(vec![]),
                    Some("\u{e9}t\u{e9}".as_bytes().to_vec()),
                ]),
                StringLayout::VlenUtf8 => ChunkData::Strings(vec![
                    Some(b"ab".to_vec()),
                    Some(vec![]),
                    Some("\u{e9}t\u{e9}".as_bytes().to_vec()),
                ]),
                StringLayout::Fixed(_) => vals.clone(),
            };
            assert_eq!(back, want, "{layout:?}");
        }
        // Fixed width cuts what is longer.
        let mut s = spec(NcType::String, &[1]);
        s.layout = StringLayout::Fixed(2);
        let stored = s.encode(&ChunkData::Strings(vec![Some(b"abcd".to_vec())])).unwrap();
        assert_eq!(stored, b"ab");
    }

    #[test]
    fn hostile_vlen_chunks_are_errors() {
        let ok = encode_vlen(&[Some(b"a".to_vec()), Some(b"bc".to_vec())]).unwrap();
        assert_eq!(
            decode_vlen(&ok, 2, &"k").unwrap(),
            ChunkData::Strings(vec![Some(b"a".to_vec()), Some(b"bc".to_vec())])
        );
        assert_eq!(decode_vlen(&ok, 3, &"k").err(), Some(NcError::NcZarr));
        assert_eq!(decode_vlen(&ok[..ok.len() - 1], 2, &"k").err(), Some(NcError::NcZarr));
        assert_eq!(
            decode_vlen(&[ok.clone(), vec![0]].concat(), 2, &"k").err(),
            Some(NcError::NcZarr)
        );
        assert_eq!(decode_vlen(&[1, 0], 1, &"k").err(), Some(NcError::NcZarr));
        // A length that runs far past the end.
        let mut huge = vec![1, 0, 0, 0];
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode_vlen(&huge, 1, &"k").err(), Some(NcError::NcZarr));
    }

    #[test]
    fn parts_decode_through_one_codec() {
        let s = with_codecs(
            spec(NcType::Int, &[1024]),
            &[serde_json::json!({"id": "zstd", "level": 1})],
        );
        let vals: Vec<i32> = (0..1024).map(|i| i * 7).collect();
        let stored = s.encode(&ChunkData::Bytes(ints(&vals))).unwrap();
        assert!(s.ranged_decode());
        let ranges = [(10, 20), (100, 104)];
        let (_, b0, b1) = s.part_step(&ranges).unwrap();
        assert_eq!((b0, b1), (40, 416));
        match s.decode_part(stored.clone(), &ranges, &"k").unwrap() {
            Part::Range { first, bytes } => {
                assert_eq!(first, 10);
                assert_eq!(&bytes[..40], &ints(&vals[10..20])[..]);
                assert_eq!(&bytes[360..376], &ints(&vals[100..104])[..]);
            }
            Part::Whole(d) => assert_eq!(d, ChunkData::Bytes(ints(&vals))),
        }
        // Nothing asked, or a range past the chunk: decoded whole.
        assert!(s.part_step(&[]).is_none());
        assert!(s.part_step(&[(1000, 1025)]).is_none());
        assert!(matches!(s.decode_part(stored, &[], &"k").unwrap(), Part::Whole(_)));
        // Two codecs, or Fortran order: never in part.
        let two = with_codecs(
            spec(NcType::Int, &[1024]),
            &[
                serde_json::json!({"id": "shuffle", "elementsize": 4}),
                serde_json::json!({"id": "zstd", "level": 1}),
            ],
        );
        assert!(!two.ranged_decode());
        let mut f = with_codecs(
            spec(NcType::Int, &[32, 32]),
            &[serde_json::json!({"id": "zstd", "level": 1})],
        );
        f.order_f = true;
        assert!(!f.ranged_decode());
    }
}
