//! Reading a hyperslab (nc_get_vars). The selection's chunks go to the
//! worker pool batch by batch (`schedule.rs`); each chunk takes one read
//! path (`ReadPath`: cached, fetched ahead, read in place, decoded into
//! place, decoded in part, decoded whole) and its values go straight into
//! the part of the caller's buffer it covers (the buffer is split into
//! disjoint pieces first, so no staging copy is needed). Decoded chunks then
//! enter the cache.
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::sync::Mutex;

use super::chunk::{Part, recycle};
use super::copy;
use super::flush::write_evicted;
use super::io::VarChunks;
use super::schedule::{
    Block, ReadPlan, by_arrival, by_group, by_group_jobs, carve_group, carve_runs, read_batches, read_groups,
    split_blocks,
};
use super::select::{ChunkSel, Run, Selection, part_ranges};
use super::source::{Fetched, Prefetched};
use super::{MemOut, prepare};
use crate::error::{NcError, NcResult};
use crate::model::Dataset;
use crate::model::cache::{ChunkCache, ChunkData};
use crate::model::types::NcType;
use crate::runtime::pool;

/// The most decoded bytes of a row of chunks decoded in step at once
/// (`BatchReader::decode_in_step`; each chunk's stored bytes are held
/// meanwhile).
const IN_STEP_BYTES: usize = 16 << 20;
/// The least bytes of each chunk decoded per step (a whole number of the
/// codec's pieces).
const IN_STEP_STRETCH: usize = 64 << 10;

/// Read a hyperslab (nc_get_vars) into caller memory.
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
    let mem = out.mem_type();
    let Some(sel) = prepare(ds, grp, varid, start, count, stride, mem, |n| out.holds(n), false)? else {
        return Ok(());
    };
    // Values held elsewhere (an aggregated variable) come from their source.
    if let Some(ext) = ds.var(grp, varid)?.external.clone() {
        return match out {
            MemOut::Num { ty, data } => {
                let n = sel.total.checked_mul(ty.size()).ok_or(NcError::Inval)?;
                ext.read(&sel.start, &sel.count, &sel.stride, ty, &mut data[..n])
            }
            MemOut::Str(data) => ext.read_strings(&sel.start, &sel.count, &sel.stride, &mut data[..sel.total]),
        };
    }
    let chunks = VarChunks::of(ds, grp, ds.var(grp, varid)?);
    // The chunks touched, each with its per-dimension segments; the runs in
    // caller memory are worked out by the job that reads the chunk.
    let work = sel.chunks();
    let var = ds.var_mut(grp, varid)?;
    let plan = ReadPlan::new(
        work.len(),
        chunks.spec.chunk_bytes(),
        var.cache.size,
        chunks.concurrent(),
        pool::threads(),
    );
    let mut out = out;
    let mut out_of_range = false;
    let source = &chunks.source;
    let batches = read_batches(&work, plan.per_batch, |c| source.place(&c.idx).map(|p| p.0));
    let mut ahead: Option<Prefetched> = None;
    for (b, &batch) in batches.iter().enumerate() {
        // Which chunks may be decoded in part (see `ChunkCache::first_part_read`).
        let part_ok: HashSet<&[u64]> = if chunks.spec.ranged_decode() {
            batch
                .iter()
                .map(|c| c.idx.as_slice())
                .filter(|idx| !var.cache.contains(idx) && var.cache.first_part_read(idx))
                .collect()
        } else {
            HashSet::new()
        };
        let prefetched = match ahead.take() {
            Some(p) => p,
            None => chunks.prefetch(batch.iter().map(|c| &c.idx), &var.cache)?,
        };
        // (A streaming read keeps nothing in the cache, so what the next
        // batch finds uncached now it finds uncached then.)
        if plan.lookahead
            && let Some(next) = batches.get(b + 1)
        {
            ahead = Some(chunks.prefetch(next.iter().map(|c| &c.idx), &var.cache)?);
        }
        let reader = BatchReader {
            chunks: &chunks,
            sel: &sel,
            cache: &var.cache,
            prefetched: &prefetched,
            part_ok,
            streaming: plan.streaming,
        };
        let results = reader.read(batch, &mut out)?;
        // Into the cache, in batch order.
        for (c, r) in batch.iter().zip(results) {
            let r = r?;
            out_of_range |= r.out_of_range;
            match r.keep {
                Some(data) => {
                    let ev = var.cache.insert(c.idx.clone(), data, false);
                    var.chunks_on_disk |= ev.iter().any(|e| e.dirty);
                    write_evicted(&chunks, store.as_ref(), ev)?;
                }
                None => var.cache.touch_key(&c.idx),
            }
        }
    }
    if out_of_range { Err(NcError::Range) } else { Ok(()) }
}

/// What reading one chunk gives.
#[derive(Debug)]
struct ChunkRead {
    /// The decoded chunk, when the cache should keep it.
    keep: Option<ChunkData>,
    /// Some value was out of range for the memory type.
    out_of_range: bool,
}

/// Where one chunk of a read takes its values from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ReadPath {
    /// Decoded in the cache already.
    Cached,
    /// Fetched ahead (a store with concurrent requests): decoded when it arrives.
    Prefetched,
    /// Stored exactly as the caller wants it (no codec, no conversion): only
    /// the bytes asked for are read, straight into caller memory.
    InPlace,
    /// A read that keeps nothing in the cache (streaming), with no
    /// conversion, through a codec that decodes ranges (blosc): the values
    /// are decoded straight into caller memory (block by block, each block
    /// still in cache when its values are written out), the chunks of a row
    /// of chunks in step (`BatchReader::decode_in_step`).
    DecodeInto,
    /// A small part of a compressed chunk read for the first time: only
    /// these element ranges are decoded, when the codec can (not cached).
    Part(Vec<(usize, usize)>),
    /// Fetched and decoded whole.
    Whole,
}

/// One batch of a read: what its jobs share.
struct BatchReader<'a> {
    chunks: &'a VarChunks,
    sel: &'a Selection,
    cache: &'a ChunkCache,
    prefetched: &'a Prefetched,
    /// The chunks that may be decoded in part.
    part_ok: HashSet<&'a [u64]>,
    /// Decoded chunks are not kept (see `ReadPlan::streaming`).
    streaming: bool,
}

impl BatchReader<'_> {
    /// Read the chunks of `batch` into `out`; one result per chunk, in order.
    fn read(&self, batch: &[ChunkSel], out: &mut MemOut<'_>) -> NcResult<Vec<NcResult<ChunkRead>>> {
        let groups = read_groups(self.sel, batch);
        match out {
            MemOut::Num { ty, data } => {
                let mt = *ty;
                let blocks = split_blocks(data, mt.size(), &groups)?;
                if self.prefetched.is_empty() {
                    let group = |cs: &[ChunkSel], bl: &mut Vec<Block<'_, u8>>| self.number_group(cs, mt, bl);
                    Ok(by_group_jobs(&groups, blocks, group))
                } else {
                    let job = |c: &ChunkSel, bl: &mut Vec<Block<'_, u8>>| {
                        let runs = self.sel.runs(&c.segs);
                        self.number_chunk(c, &runs, mt, bl)
                    };
                    let arrived =
                        |c: &ChunkSel, fetched, bl: &Mutex<Vec<Block<'_, u8>>>| self.arrived_chunk(c, mt, fetched, bl);
                    by_arrival(&groups, blocks, self.prefetched, job, arrived)
                }
            }
            MemOut::Str(dst) => {
                let blocks = split_blocks(dst, 1, &groups)?;
                Ok(by_group(&groups, blocks, |c, bl| self.string_chunk(c, bl)))
            }
        }
    }

    /// The read path of chunk `idx`, whose runs are `runs`, into memory of type `mt`.
    fn path(&self, idx: &[u64], mt: NcType, runs: &[Run]) -> ReadPath {
        let spec = &self.chunks.spec;
        if self.cache.contains(idx) {
            ReadPath::Cached
        } else if self.prefetched.contains(idx) {
            ReadPath::Prefetched
        } else if spec.reads_in_place(mt) && runs.iter().all(|r| r.step == 1) {
            ReadPath::InPlace
        } else if self.streaming && spec.decodes_into(mt) && runs.iter().all(|r| r.step == 1) {
            ReadPath::DecodeInto
        } else if let Some(ranges) = self.part_ranges(idx, runs) {
            ReadPath::Part(ranges)
        } else {
            ReadPath::Whole
        }
    }

    /// The element ranges of chunk `idx` to decode, when it may be decoded
    /// in part and its runs hold a small part of it.
    fn part_ranges(&self, idx: &[u64], runs: &[Run]) -> Option<Vec<(usize, usize)>> {
        if !self.part_ok.contains(idx) {
            return None;
        }
        part_ranges(runs, self.chunks.spec.nelems)
    }

    /// A decoded chunk kept for the cache, or recycled at once when the read
    /// streams (so a job holds at most one decoded chunk at a time).
    fn keep(&self, data: ChunkData) -> Option<ChunkData> {
        if self.streaming {
            recycle(data);
            None
        } else {
            Some(data)
        }
    }

    /// Read the chunks of one group (a row of chunks) into its blocks: in
    /// step when they all decode into place (`decode_in_step`), otherwise
    /// one after the other.
    fn number_group(&self, chunks: &[ChunkSel], mt: NcType, blocks: &mut [Block<'_, u8>]) -> Vec<NcResult<ChunkRead>> {
        let runs: Vec<Vec<Run>> = chunks.iter().map(|c| self.sel.runs(&c.segs)).collect();
        let in_step = chunks.len() > 1
            && chunks
                .iter()
                .zip(&runs)
                .all(|(c, r)| self.path(&c.idx, mt, r) == ReadPath::DecodeInto);
        if !in_step {
            return chunks
                .iter()
                .zip(&runs)
                .map(|(c, r)| self.number_chunk(c, r, mt, blocks))
                .collect();
        }
        // At most IN_STEP_BYTES of decoded chunks (and their stored bytes
        // in memory) at once.
        let per = (IN_STEP_BYTES / self.chunks.spec.chunk_bytes()).max(1);
        chunks
            .chunks(per)
            .zip(runs.chunks(per))
            .flat_map(|(cs, rs)| self.decode_in_step(cs, rs, mt, blocks))
            .collect()
    }

    /// Decode chunks of one row of chunks straight into place in step: a
    /// stretch of every chunk in turn (the same rows of each), so that the
    /// pages of caller memory they share are written while they are at
    /// hand, not once per chunk. `runs` are the chunks' runs.
    fn decode_in_step(
        &self,
        chunks: &[ChunkSel],
        runs: &[Vec<Run>],
        mt: NcType,
        blocks: &mut [Block<'_, u8>],
    ) -> Vec<NcResult<ChunkRead>> {
        let pieces = match carve_group(blocks, mt.size(), runs) {
            Ok(p) => p,
            Err(e) => return chunks.iter().map(|_| Err(e)).collect(),
        };
        let done = || ChunkRead {
            keep: None,
            out_of_range: false,
        };
        let mut results = Vec::with_capacity(chunks.len());
        let mut going = Vec::with_capacity(chunks.len());
        for (k, ((c, r), mut p)) in chunks.iter().zip(runs).zip(pieces).enumerate() {
            match self.chunks.fetch(&c.idx) {
                Ok(Some(stored)) => {
                    let dests = r.iter().zip(p).map(|(run, d)| (run.chunk, d)).collect();
                    match self.chunks.spec.in_place_decoder(stored, dests) {
                        Ok(chunk) => {
                            going.push((k, chunk));
                            results.push(Ok(done()));
                        }
                        Err(e) => results.push(Err(e)),
                    }
                }
                // Absent (filled), or not fetched.
                other => results.push(self.chunks.decode_fetched(&c.idx, other).and_then(|fill| {
                    let out_of_range = copy::runs_out(&fill, self.chunks.spec.ty, mt, r, &mut p);
                    recycle(fill);
                    Ok(ChunkRead {
                        keep: None,
                        out_of_range: out_of_range?,
                    })
                })),
            }
        }
        // Stretches of whole pieces of the codec (blosc blocks), on whole
        // elements.
        let es = mt.size().max(1);
        let piece = going.iter().filter_map(|(_, g)| g.piece()).max().unwrap_or(0);
        let stretch = piece.max(IN_STEP_STRETCH).next_multiple_of(es);
        let mut until = 0usize;
        while !going.is_empty() && until < usize::MAX {
            until = until.saturating_add(stretch);
            if until >= self.chunks.spec.chunk_bytes() {
                until = usize::MAX;
            }
            going.retain_mut(|(k, g)| match g.advance(until, &self.chunks.name(&chunks[*k].idx)) {
                Ok(()) => true,
                Err(e) => {
                    results[*k] = Err(e);
                    false
                }
            });
        }
        for (_, g) in going {
            g.recycle();
        }
        results
    }

    /// Read one chunk of numbers (its runs `runs`) into its runs of its
    /// group's blocks.
    fn number_chunk(
        &self,
        c: &ChunkSel,
        runs: &[Run],
        mt: NcType,
        blocks: &mut [Block<'_, u8>],
    ) -> NcResult<ChunkRead> {
        let ft = self.chunks.spec.ty;
        let mut pieces = carve_runs(blocks, mt.size(), runs)?;
        let fresh = match self.path(&c.idx, mt, runs) {
            ReadPath::Cached => None,
            ReadPath::Prefetched => Some(self.chunks.load_with(self.prefetched, &c.idx)?),
            ReadPath::InPlace => {
                let dests = runs
                    .iter()
                    .zip(pieces.iter_mut())
                    .map(|(r, d)| (r.chunk, &mut **d))
                    .collect();
                if self.chunks.read_in_place(&c.idx, dests)? {
                    return Ok(ChunkRead {
                        keep: None,
                        out_of_range: false,
                    });
                }
                // Absent: fill.
                Some(self.chunks.load(&c.idx)?)
            }
            ReadPath::DecodeInto => {
                let dests = runs
                    .iter()
                    .zip(pieces.iter_mut())
                    .map(|(r, d)| (r.chunk, &mut **d))
                    .collect();
                match self.chunks.load_into(&c.idx, dests)? {
                    None => {
                        return Ok(ChunkRead {
                            keep: None,
                            out_of_range: false,
                        });
                    }
                    // Absent (filled), or a codec that decodes no ranges.
                    Some(d) => Some(d),
                }
            }
            ReadPath::Part(ranges) => match self.chunks.load_part(&c.idx, &ranges)? {
                Part::Range { first, bytes } => {
                    let shifted: Vec<Run> = runs
                        .iter()
                        .map(|r| Run {
                            chunk: r.chunk - first,
                            ..*r
                        })
                        .collect();
                    let part = ChunkData::Bytes(bytes);
                    let out_of_range = copy::runs_out(&part, ft, mt, &shifted, &mut pieces);
                    recycle(part);
                    return Ok(ChunkRead {
                        keep: None,
                        out_of_range: out_of_range?,
                    });
                }
                Part::Whole(d) => Some(d),
            },
            ReadPath::Whole => Some(self.chunks.load(&c.idx)?),
        };
        let data = fresh
            .as_ref()
            .or_else(|| self.cache.peek(&c.idx))
            .ok_or(NcError::Internal)?;
        let out_of_range = copy::runs_out(data, ft, mt, runs, &mut pieces)?;
        Ok(ChunkRead {
            keep: fresh.and_then(|d| self.keep(d)),
            out_of_range,
        })
    }

    /// Decode a chunk fetched ahead (outside its group's lock) and copy its
    /// values into place (under it).
    fn arrived_chunk(
        &self,
        c: &ChunkSel,
        mt: NcType,
        fetched: Fetched,
        blocks: &Mutex<Vec<Block<'_, u8>>>,
    ) -> NcResult<ChunkRead> {
        let data = self.chunks.decode_fetched(&c.idx, fetched)?;
        let runs = self.sel.runs(&c.segs);
        let out_of_range = {
            let mut bl = blocks.lock().unwrap_or_else(|p| p.into_inner());
            let mut pieces = carve_runs(&mut bl, mt.size(), &runs)?;
            copy::runs_out(&data, self.chunks.spec.ty, mt, &runs, &mut pieces)?
        };
        Ok(ChunkRead {
            keep: self.keep(data),
            out_of_range,
        })
    }

    /// Read one chunk of strings into its runs of its group's blocks.
    fn string_chunk(&self, c: &ChunkSel, blocks: &mut [Block<'_, Option<Vec<u8>>>]) -> NcResult<ChunkRead> {
        let runs = self.sel.runs(&c.segs);
        let mut pieces = carve_runs(blocks, 1, &runs)?;
        let fresh = if self.cache.contains(&c.idx) {
            None
        } else {
            Some(self.chunks.load_with(self.prefetched, &c.idx)?)
        };
        let data = fresh
            .as_ref()
            .or_else(|| self.cache.peek(&c.idx))
            .ok_or(NcError::Internal)?;
        copy::string_runs_out(data, &runs, &mut pieces)?;
        Ok(ChunkRead {
            keep: fresh.and_then(|d| self.keep(d)),
            out_of_range: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::chunk::tests::{spec, with_codecs};
    use super::super::select::Extent;
    use super::super::source::{KeyEncoding, ObjectPerChunk};
    use super::*;
    use crate::storage::memory::MemoryStore;
    use crate::storage::{Key, Store};
    use std::sync::Arc;

    /// An 8x8 int array in 4x4 chunks, value 100 * row + column, stored
    /// with `codecs`; chunk (1, 1) is absent (fill 0).
    fn array(codecs: &[serde_json::Value]) -> (Arc<dyn Store>, VarChunks) {
        array_in(codecs, cfg!(target_endian = "big"))
    }

    /// `array`, stored big-endian or little-endian.
    fn array_in(codecs: &[serde_json::Value], big_endian: bool) -> (Arc<dyn Store>, VarChunks) {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let source = Arc::new(ObjectPerChunk::new(
            store.clone(),
            "v".into(),
            KeyEncoding::V2 { separator: '.' },
        ));
        let mut s = spec(NcType::Int, &[4, 4]);
        s.big_endian = big_endian;
        if !codecs.is_empty() {
            s = with_codecs(s, codecs);
        }
        let chunks = VarChunks { spec: s, source };
        for (ci, cj) in [(0i32, 0i32), (0, 1), (1, 0)] {
            let vals: Vec<u8> = (0..16)
                .flat_map(|k: i32| (100 * (ci * 4 + k / 4) + cj * 4 + k % 4).to_ne_bytes())
                .collect();
            chunks.store(&[ci as u64, cj as u64], &ChunkData::Bytes(vals)).unwrap();
        }
        (store, chunks)
    }

    fn whole_array() -> Vec<i32> {
        (0..64)
            .map(|k| {
                if k / 8 >= 4 && k % 8 >= 4 {
                    0
                } else {
                    100 * (k / 8) + k % 8
                }
            })
            .collect()
    }

    fn selection(start: &[usize], count: &[usize], stride: Option<&[isize]>) -> Selection {
        let ext = [Extent {
            len: 8,
            unlimited: false,
        }; 2];
        Selection::over(&ext, &[4, 4], start, count, stride, false).unwrap()
    }

    /// Read `sel` through a batch reader of one batch; the values, each
    /// chunk's read path and the reads' results.
    fn read(
        chunks: &VarChunks,
        cache: &ChunkCache,
        sel: &Selection,
        part: bool,
        mt: NcType,
    ) -> (Vec<u8>, Vec<ReadPath>, Vec<ChunkRead>) {
        read_streaming(chunks, cache, sel, part, mt, false)
    }

    /// `read`, keeping nothing in the cache (`streaming`) or not.
    fn read_streaming(
        chunks: &VarChunks,
        cache: &ChunkCache,
        sel: &Selection,
        part: bool,
        mt: NcType,
        streaming: bool,
    ) -> (Vec<u8>, Vec<ReadPath>, Vec<ChunkRead>) {
        let batch = sel.chunks();
        let part_ok: HashSet<&[u64]> = if part {
            batch.iter().map(|c| c.idx.as_slice()).collect()
        } else {
            HashSet::new()
        };
        let prefetched = Prefetched::default();
        let reader = BatchReader {
            chunks,
            sel,
            cache,
            prefetched: &prefetched,
            part_ok,
            streaming,
        };
        let paths = batch
            .iter()
            .map(|c| reader.path(&c.idx, mt, &sel.runs(&c.segs)))
            .collect();
        let mut buf = vec![0u8; sel.total * mt.size()];
        let results = reader
            .read(&batch, &mut MemOut::Num { ty: mt, data: &mut buf })
            .unwrap();
        (buf, paths, results.into_iter().map(|r| r.unwrap()).collect())
    }

    fn ints(b: &[u8]) -> Vec<i32> {
        b.chunks_exact(4)
            .map(|x| i32::from_ne_bytes([x[0], x[1], x[2], x[3]]))
            .collect()
    }

    #[test]
    fn uncompressed_chunks_read_in_place() {
        let (_, chunks) = array(&[]);
        let cache = ChunkCache::new(1 << 20, 100, 0.75);
        let sel = selection(&[0, 0], &[8, 8], None);
        let (buf, paths, results) = read(&chunks, &cache, &sel, false, NcType::Int);
        assert_eq!(ints(&buf), whole_array());
        assert_eq!(paths, vec![ReadPath::InPlace; 4]);
        // Nothing decoded to keep, but the absent chunk: filled and kept.
        let kept: Vec<bool> = results.iter().map(|r| r.keep.is_some()).collect();
        assert_eq!(kept, vec![false, false, false, true]);
        // Strided, or another memory type: decoded whole.
        let sel = selection(&[0, 1], &[4, 3], Some(&[2, 2]));
        let (buf, paths, _) = read(&chunks, &cache, &sel, false, NcType::Int);
        assert_eq!(ints(&buf), vec![1, 3, 5, 201, 203, 205, 401, 403, 0, 601, 603, 0]);
        assert_eq!(paths, vec![ReadPath::Whole; 4]);
        let sel = selection(&[3, 3], &[2, 2], None);
        let (buf, paths, _) = read(&chunks, &cache, &sel, false, NcType::Double);
        let doubles: Vec<f64> = buf
            .chunks_exact(8)
            .map(|x| f64::from_ne_bytes(x.try_into().unwrap()))
            .collect();
        assert_eq!(doubles, vec![303.0, 304.0, 403.0, 0.0]);
        assert_eq!(paths, vec![ReadPath::Whole; 4]);
    }

    #[test]
    fn cached_chunks_are_read_from_the_cache() {
        let (store, chunks) = array(&[]);
        let mut cache = ChunkCache::new(1 << 20, 100, 0.75);
        let changed: Vec<u8> = (0..16).flat_map(|k: i32| (-k).to_ne_bytes()).collect();
        assert!(cache.insert(vec![0, 1], ChunkData::Bytes(changed), true).is_empty());
        let sel = selection(&[0, 3], &[2, 3], None);
        let (buf, paths, results) = read(&chunks, &cache, &sel, false, NcType::Int);
        assert_eq!(paths, vec![ReadPath::InPlace, ReadPath::Cached]);
        assert_eq!(ints(&buf), vec![3, 0, -1, 103, -4, -5]);
        assert!(results.iter().all(|r| r.keep.is_none() && !r.out_of_range));
        // The cached chunk was not fetched: deleting it changes nothing.
        store.delete(&Key::new("v/0.1").unwrap()).unwrap();
        let (again, _, _) = read(&chunks, &cache, &sel, false, NcType::Int);
        assert_eq!(again, buf);
    }

    #[test]
    fn compressed_chunks_decode_in_part_or_whole() {
        let (_, chunks) = array(&[serde_json::json!({"id": "zstd", "level": 1})]);
        let cache = ChunkCache::new(1 << 20, 100, 0.75);
        // One value of each chunk: a part when allowed, else whole.
        let sel = selection(&[2, 2], &[2, 2], Some(&[3, 3]));
        let (buf, paths, results) = read(&chunks, &cache, &sel, true, NcType::Int);
        assert_eq!(ints(&buf), vec![202, 205, 502, 0]);
        assert_eq!(
            paths,
            vec![
                ReadPath::Part(vec![(10, 11)]),
                ReadPath::Part(vec![(9, 10)]),
                ReadPath::Part(vec![(6, 7)]),
                ReadPath::Part(vec![(5, 6)]),
            ]
        );
        // Decoded in part: nothing kept but the absent (filled) chunk.
        let kept: Vec<bool> = results.iter().map(|r| r.keep.is_some()).collect();
        assert_eq!(kept, vec![false, false, false, true]);
        let (buf, paths, results) = read(&chunks, &cache, &sel, false, NcType::Int);
        assert_eq!(ints(&buf), vec![202, 205, 502, 0]);
        assert_eq!(paths, vec![ReadPath::Whole; 4]);
        assert!(results.iter().all(|r| r.keep.is_some()));
        // Out of range for the memory type: flagged, the rest converted.
        let sel = selection(&[0, 0], &[8, 8], None);
        let (buf, _, results) = read(&chunks, &cache, &sel, false, NcType::Byte);
        assert!(results.iter().any(|r| r.out_of_range));
        assert_eq!(&buf[..8], &[0, 1, 2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn streaming_reads_decode_blosc_into_place() {
        let blosc = serde_json::json!({"id": "blosc", "cname": "lz4", "clevel": 1, "shuffle": 1, "blocksize": 0});
        let zstd = serde_json::json!({"id": "zstd", "level": 1});
        let cache = ChunkCache::new(1 << 20, 100, 0.75);
        let whole = selection(&[0, 0], &[8, 8], None);
        let part = selection(&[1, 2], &[6, 5], None);
        let want_part: Vec<i32> = (1..7)
            .flat_map(|y| (2..7).map(move |x| whole_array()[y * 8 + x]))
            .collect();
        for big in [false, true] {
            let (_, chunks) = array_in(std::slice::from_ref(&blosc), big);
            let (buf, paths, results) = read_streaming(&chunks, &cache, &whole, false, NcType::Int, true);
            assert_eq!(ints(&buf), whole_array(), "big-endian {big}");
            assert_eq!(paths, vec![ReadPath::DecodeInto; 4]);
            assert!(results.iter().all(|r| r.keep.is_none() && !r.out_of_range));
            let (buf, _, _) = read_streaming(&chunks, &cache, &part, true, NcType::Int, true);
            assert_eq!(ints(&buf), want_part, "big-endian {big}");
            // Another memory type, or a read the cache keeps: decoded whole.
            let (buf, paths, _) = read_streaming(&chunks, &cache, &whole, false, NcType::Double, true);
            assert_eq!(paths, vec![ReadPath::Whole; 4]);
            assert_eq!(
                buf.chunks_exact(8)
                    .map(|x| f64::from_ne_bytes(x.try_into().unwrap()) as i32)
                    .collect::<Vec<_>>(),
                whole_array()
            );
            let (_, paths, _) = read_streaming(&chunks, &cache, &whole, false, NcType::Int, false);
            assert_eq!(paths, vec![ReadPath::Whole; 4]);
            // A codec that decodes no ranges: decoded whole.
            let (_, chunks) = array_in(std::slice::from_ref(&zstd), big);
            let (buf, paths, _) = read_streaming(&chunks, &cache, &whole, false, NcType::Int, true);
            assert_eq!(ints(&buf), whole_array(), "zstd, big-endian {big}");
            assert_eq!(paths, vec![ReadPath::Whole; 4]);
        }
        // A damaged chunk (cut short) is NC_EFILTER.
        let (store, chunks) = array(&[blosc]);
        let key = Key::new("v/0.1").unwrap();
        let b = store.get(&key, 1 << 20).unwrap().unwrap();
        store.put(&key, &b[..b.len() - 4]).unwrap();
        let batch = whole.chunks();
        let prefetched = Prefetched::default();
        let reader = BatchReader {
            chunks: &chunks,
            sel: &whole,
            cache: &cache,
            prefetched: &prefetched,
            part_ok: HashSet::new(),
            streaming: true,
        };
        let mut buf = vec![0u8; 64 * 4];
        let r = reader
            .read(
                &batch,
                &mut MemOut::Num {
                    ty: NcType::Int,
                    data: &mut buf,
                },
            )
            .unwrap();
        assert_eq!(r[1].as_ref().err(), Some(&NcError::Filter));
        assert!(r[0].is_ok() && r[2].is_ok());
    }

    #[test]
    fn strings_read_whole_or_cached() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let source = Arc::new(ObjectPerChunk::new(
            store,
            "s".into(),
            KeyEncoding::V2 { separator: '.' },
        ));
        let mut s = spec(NcType::String, &[2]);
        s.layout = crate::model::StringLayout::Fixed(3);
        let chunks = VarChunks { spec: s, source };
        let abc = ChunkData::Strings(vec![Some(b"a".to_vec()), Some(b"bc".to_vec())]);
        chunks.store(&[0], &abc).unwrap();
        let mut cache = ChunkCache::new(1 << 20, 100, 0.75);
        assert!(
            cache
                .insert(vec![1], ChunkData::Strings(vec![None, Some(b"z".to_vec())]), true)
                .is_empty()
        );
        let ext = [Extent {
            len: 4,
            unlimited: false,
        }];
        let sel = Selection::over(&ext, &[2], &[1], &[3], None, false).unwrap();
        let batch = sel.chunks();
        let prefetched = Prefetched::default();
        let reader = BatchReader {
            chunks: &chunks,
            sel: &sel,
            cache: &cache,
            prefetched: &prefetched,
            part_ok: HashSet::new(),
            streaming: true,
        };
        let mut dst = vec![Some(b"old".to_vec()); 3];
        let r = reader.read(&batch, &mut MemOut::Str(&mut dst)).unwrap();
        assert_eq!(dst, vec![Some(b"bc".to_vec()), None, Some(b"z".to_vec())]);
        // A streaming read keeps nothing.
        assert!(r.into_iter().all(|x| x.unwrap().keep.is_none()));
    }
}
