//! Writing a hyperslab (nc_put_vars). A string variable's width is settled
//! and unlimited dimensions grow first. Then the selection's chunks split in
//! two: those the write covers completely (and that are not cached) are
//! built from the caller's values and stored at once, on the pool, without
//! passing through the cache; the others are merged into their current
//! content (cached, fetched, or fill) and left in the cache, dirty. A few
//! small whole chunks are deferred to the cache too (`defer.rs`).
#![forbid(unsafe_code)]

use super::chunk::recycle;
use super::copy;
use super::defer::WholeChunks;
use super::flush::{Encoded, put_encoded, write_evicted};
use super::io::VarChunks;
use super::schedule::{chunks_per_batch, whole_chunk_batch};
use super::select::{ChunkSel, Selection};
use super::{MemIn, prepare};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::model::cache::ChunkData;
use crate::model::convert;
use crate::model::types::NcType;
use crate::model::{Dataset, StringLayout, Var};
use crate::runtime::buffers;
use crate::runtime::pool::{self, run_jobs};
use crate::storage::Store;

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
    put_vars_where(ds, grp, varid, start, count, stride, src, &|_| true)
}

/// `put_vars` restricted to the chunks `keep` accepts (by chunk index):
/// the selection is checked, unlimited dimensions grow and the variable
/// counts as written as for the whole write, but the values of the other
/// chunks are not stored. The parallel layer (`api::parallel`) writes the
/// chunks a process covers alone this way and hands the others to their
/// owner process.
#[allow(clippy::too_many_arguments)]
pub fn put_vars_where(
    ds: &mut Dataset,
    grp: usize,
    varid: i32,
    start: &[usize],
    count: &[usize],
    stride: Option<&[isize]>,
    src: MemIn<'_>,
    keep: &dyn Fn(&[u64]) -> bool,
) -> NcResult<()> {
    if !ds.writable {
        return Err(NcError::Perm);
    }
    let store = ds.store.clone();
    let Some(sel) = prepare(
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
    // Values held elsewhere (an aggregated variable being written) go to
    // their source, which answers NC_EPERM when it is read-only.
    // Unlimited dimensions grow as for the variable's own chunks.
    if let Some(ext) = ds.var(grp, varid)?.external.clone() {
        let r = match src {
            MemIn::Num { ty, data } => {
                let n = sel.total.checked_mul(ty.size()).ok_or(NcError::Inval)?;
                ext.write(&sel.start, &sel.count, &sel.stride, ty, &data[..n])
            }
            MemIn::Str(_) => Err(NcError::Perm),
        };
        if matches!(r, Ok(()) | Err(NcError::Range)) {
            grow_unlimited(ds, grp, varid, &sel)?;
        }
        return r;
    }
    let quantized = quantize_input(ds.var(grp, varid)?, &src, sel.total)?;
    let mut out_of_range = quantized.as_ref().is_some_and(|q| q.out_of_range);
    let src = match &quantized {
        Some(q) => MemIn::Num {
            ty: ds.var(grp, varid)?.ty,
            data: &q.values,
        },
        None => src,
    };
    if let MemIn::Str(s) = &src {
        fit_string_width(ds, grp, varid, &s[..sel.total])?;
    }
    let chunks = VarChunks::of(ds, grp, ds.var(grp, varid)?);
    grow_unlimited(ds, grp, varid, &sel)?;
    let shape = {
        let var = ds.var(grp, varid)?;
        if var.is_scalar() { vec![1] } else { ds.var_shape(var) }
    };
    let deferred_before = ds.deferred_bytes;
    let var = ds.var_mut(grp, varid)?;
    var.data_written = true;
    let mut work = sel.chunks();
    work.retain(|c| keep(&c.idx));
    let per_batch = chunks_per_batch(chunks.batched_writes(), chunks.spec.chunk_bytes(), pool::threads());
    let (mut whole, mut partial): (Vec<&ChunkSel>, Vec<&ChunkSel>) = work
        .iter()
        .partition(|c| chunks.spec.ty != NcType::String && !var.cache.contains(&c.idx) && sel.covers(&c.segs, &shape));
    let whole_chunks = WholeChunks {
        count: whole.len(),
        chunk_bytes: chunks.spec.chunk_bytes(),
    };
    if chunks.source.writes_together() {
        // The chunks of one shard next to each other: batches of whole shards.
        whole.sort_by_cached_key(|c| chunks.source.place(&c.idx));
    }
    let defer = whole_chunks.defer(pool::threads(), var.cache.size, deferred_before);
    if defer {
        partial.append(&mut whole);
    }
    let writer = Writer {
        chunks: &chunks,
        sel: &sel,
        src: &src,
        shape: &shape,
    };
    out_of_range |= writer.store_whole(var, store.as_ref(), &whole, per_batch)?;
    out_of_range |= writer.merge(var, store.as_ref(), &partial, per_batch)?;
    if defer {
        ds.deferred_bytes += whole_chunks.bytes();
    }
    if out_of_range { Err(NcError::Range) } else { Ok(()) }
}

/// A write's values converted to the variable's type and quantized.
struct Quantized {
    values: Vec<u8>,
    /// Some were out of range for the variable's type (stored anyway).
    out_of_range: bool,
}

/// The values of a write to a quantized variable, converted to its type and
/// quantized: netcdf-c quantizes the caller's values of each `nc_put_vara`
/// before they go into chunks, so BitGroom's alternation follows the
/// position in this write. None when the variable is not quantized.
fn quantize_input(var: &Var, src: &MemIn<'_>, total: usize) -> NcResult<Option<Quantized>> {
    let (mode, nsd) = var.quantize;
    let MemIn::Num { ty, data } = src else {
        return Ok(None);
    };
    if mode <= 0 || !matches!(var.ty, NcType::Float | NcType::Double) {
        return Ok(None);
    }
    let input = total
        .checked_mul(ty.size())
        .and_then(|n| data.get(..n))
        .ok_or(NcError::Internal)?;
    let len = total.checked_mul(var.ty.size()).ok_or(NcError::NoMem)?;
    let mut values = Vec::new();
    values.try_reserve_exact(len).map_err(|_| NcError::NoMem)?;
    values.resize(len, 0);
    let out_of_range = match convert::convert(*ty, input, var.ty, &mut values) {
        Ok(()) => false,
        Err(NcError::Range) => true,
        Err(e) => return Err(e),
    };
    crate::model::quantize::apply(mode, nsd, var.ty, &mut values, &var.fill);
    Ok(Some(Quantized { values, out_of_range }))
}

/// A string variable's width: the user's `_nczarr_maxstrlen` (longer
/// strings are cut, as netcdf-c does), else it grows to the longest string
/// while nothing is stored yet; afterwards a longer string is refused
/// rather than silently cut.
fn fit_string_width(ds: &mut Dataset, grp: usize, varid: i32, strings: &[Option<Vec<u8>>]) -> NcResult<()> {
    let explicit = ds.settle_string_width(grp, varid);
    let longest = strings
        .iter()
        .map(|x| x.as_ref().map_or(0, Vec::len))
        .max()
        .unwrap_or(0);
    let var = ds.var_mut(grp, varid)?;
    if let (StringLayout::Fixed(n), false) = (var.string_layout, explicit)
        && longest > n
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
    Ok(())
}

/// Grow the unlimited dimensions that the write runs past; the dataset and
/// every variable using them get their metadata rewritten.
fn grow_unlimited(ds: &mut Dataset, grp: usize, varid: i32, sel: &Selection) -> NcResult<()> {
    let dimids = ds.var(grp, varid)?.dimids.clone();
    let mut grown = Vec::new();
    for (d, &dimid) in dimids.iter().enumerate() {
        let end = sel.end(d);
        if ds.dims[dimid].unlimited && end > ds.dims[dimid].len {
            ds.dims[dimid].len = end;
            grown.push(dimid);
        }
    }
    ds.dims_grown(&grown);
    Ok(())
}

/// One write: what its jobs share.
struct Writer<'a> {
    chunks: &'a VarChunks,
    sel: &'a Selection,
    src: &'a MemIn<'a>,
    /// The variable's shape after the write.
    shape: &'a [usize],
}

/// A chunk being merged with a write: the chunk and its current content.
struct Merge<'a> {
    chunk: &'a ChunkSel,
    data: ChunkData,
}

impl Writer<'_> {
    /// Store the chunks the write covers completely, on the pool, in
    /// batches (`whole_chunk_batch`). Returns whether some value was out of
    /// range for the file type (stored anyway, as netcdf-c does).
    fn store_whole(&self, var: &mut Var, store: &dyn Store, whole: &[&ChunkSel], per_batch: usize) -> NcResult<bool> {
        if self.chunks.batched_writes() && !self.chunks.source.writes_together() && whole.len() > 1 {
            // Two batches are held at once here: each of a plain batch's bytes.
            let batch = chunks_per_batch(false, self.chunks.spec.chunk_bytes(), pool::threads());
            let r = self.store_whole_concurrently(store, whole, batch);
            var.chunks_stored(&self.chunks.spec.node);
            return r;
        }
        let mut out_of_range = false;
        let batch = whole_chunk_batch(
            whole.len(),
            self.chunks.batched_writes(),
            per_batch,
            self.chunks.source.chunks_per_object(),
        );
        for jobs in whole.chunks(batch) {
            let results = if self.chunks.source.writes_together() {
                self.store_together(jobs)
            } else {
                run_jobs(jobs.to_vec(), |c| self.store_whole_chunk(c))
            };
            var.chunks_stored(&self.chunks.spec.node);
            for r in results {
                out_of_range |= r?;
            }
        }
        Ok(out_of_range)
    }

    /// Store chunks the write covers completely into a store that overlaps
    /// requests (S3), each chunk an object of its own: a batch is built and
    /// encoded on the pool, then its objects go out together, many requests
    /// in flight (`Store::put_many_owned`), while the pool builds the next batch
    /// (at most two batches are held). Returns whether some value was out of
    /// range for the file type; the first error otherwise, once the requests
    /// started are finished.
    fn store_whole_concurrently(&self, store: &dyn Store, whole: &[&ChunkSel], batch: usize) -> NcResult<bool> {
        let source = &*self.chunks.source;
        let mut out_of_range = false;
        std::thread::scope(|scope| {
            let mut sending: Option<std::thread::ScopedJoinHandle<'_, Vec<NcResult<()>>>> = None;
            let finish = |h: std::thread::ScopedJoinHandle<'_, Vec<NcResult<()>>>| -> NcResult<()> {
                h.join().map_err(|_| NcError::Internal)?.into_iter().collect()
            };
            for jobs in whole.chunks(batch) {
                let built = run_jobs(jobs.to_vec(), |c| -> NcResult<(Vec<u8>, bool)> {
                    let (data, out_of_range) = self.build_whole_chunk(c)?;
                    Ok((self.chunks.spec.encode_owned(data)?, out_of_range))
                });
                if let Some(h) = sending.take() {
                    finish(h)?;
                }
                let mut encoded = Vec::with_capacity(jobs.len());
                for (c, b) in jobs.iter().zip(built) {
                    let (bytes, r) = b?;
                    out_of_range |= r;
                    encoded.push(Ok(Encoded {
                        source,
                        idx: &c.idx,
                        bytes,
                    }));
                }
                sending = Some(scope.spawn(move || put_encoded(store, encoded)));
            }
            sending.map_or(Ok(()), finish)
        })?;
        Ok(out_of_range)
    }

    /// Store chunks the write covers completely into a source that writes
    /// chunks together (shards): built and encoded on the pool, then stored
    /// in one `put_many`. One result per chunk: whether some value was out
    /// of range.
    fn store_together(&self, jobs: &[&ChunkSel]) -> Vec<NcResult<bool>> {
        let built = run_jobs(jobs.to_vec(), |c| -> NcResult<(Vec<u8>, bool)> {
            let (data, out_of_range) = self.build_whole_chunk(c)?;
            Ok((self.chunks.spec.encode_owned(data)?, out_of_range))
        });
        let mut results: Vec<NcResult<bool>> = Vec::with_capacity(jobs.len());
        let mut ready: Vec<(&[u64], Vec<u8>)> = Vec::new();
        let mut slots = Vec::new();
        for (c, b) in jobs.iter().zip(built) {
            match b {
                Ok((bytes, r)) => {
                    slots.push(results.len());
                    results.push(Ok(r));
                    ready.push((&c.idx, bytes));
                }
                Err(e) => results.push(Err(e)),
            }
        }
        for (slot, r) in slots.into_iter().zip(self.chunks.source.put_many(ready)) {
            if let Err(e) = r {
                results[slot] = Err(e);
            }
        }
        results
    }

    /// A chunk the write covers completely, built from the caller's values
    /// (fill where it sticks out of the array); whether some value was out
    /// of range for the file type.
    fn build_whole_chunk(&self, c: &ChunkSel) -> NcResult<(ChunkData, bool)> {
        let spec = &self.chunks.spec;
        let in_bounds = c
            .idx
            .iter()
            .zip(&spec.chunk)
            .zip(self.shape)
            .all(|((&i, &n), &len)| (i as usize + 1) * n <= len);
        let mut data = if in_bounds {
            spec.blank_chunk()?
        } else {
            spec.fill_chunk()?
        };
        match copy::chunk_in(self.sel, &c.segs, self.src, spec.ty, &mut data) {
            Ok(r) => Ok((data, r)),
            Err(e) => {
                recycle(data);
                Err(e)
            }
        }
    }

    /// Store one chunk that the write covers completely. Values stored
    /// exactly as the caller holds them go from caller memory to storage in
    /// one gathered write; others are converted into a chunk buffer first.
    fn store_whole_chunk(&self, c: &ChunkSel) -> NcResult<bool> {
        let spec = &self.chunks.spec;
        // Inside the array, the write covers every value of the chunk.
        let in_bounds = c
            .idx
            .iter()
            .zip(&spec.chunk)
            .zip(self.shape)
            .all(|((&i, &n), &len)| (i as usize + 1) * n <= len);
        if let MemIn::Num { ty, data } = self.src
            && in_bounds
            && spec.writes_in_place(*ty)
        {
            let es = ty.size();
            let mut parts: Vec<(usize, &[u8])> = Vec::new();
            self.sel.for_each_run(&c.segs, |r| {
                if r.step != 1 {
                    return Err(NcError::Internal);
                }
                parts.push((r.chunk, &data[r.out * es..(r.out + r.len) * es]));
                Ok(())
            })?;
            parts.sort_unstable_by_key(|p| p.0);
            let slices: Vec<&[u8]> = parts.into_iter().map(|p| p.1).collect();
            return self.chunks.source.put_parts(&c.idx, &slices).map(|()| false);
        }
        let mut data = if in_bounds {
            spec.blank_chunk()?
        } else {
            spec.fill_chunk()?
        };
        let out_of_range = match copy::chunk_in(self.sel, &c.segs, self.src, spec.ty, &mut data) {
            Ok(r) => r,
            Err(e) => {
                recycle(data);
                return Err(e);
            }
        };
        // The chunk was built for this write only: it is encoded in place.
        let raw = spec.encode_owned(data)?;
        let r = self.chunks.source.put(&c.idx, &raw);
        buffers::give(raw);
        r.map(|()| out_of_range)
    }

    /// Merge the write into the other chunks, batch by batch: chunks partly
    /// overwritten and not cached are fetched first (in parallel), the
    /// caller's values are converted into each chunk on the pool, and the
    /// chunks go into the cache, dirty (what it lets go of is written).
    fn merge(&self, var: &mut Var, store: &dyn Store, partial: &[&ChunkSel], per_batch: usize) -> NcResult<bool> {
        let mut out_of_range = false;
        for batch in partial.chunks(per_batch) {
            let need_load: Vec<&Vec<u64>> = batch
                .iter()
                .filter(|c| !var.cache.contains(&c.idx) && !self.sel.covers(&c.segs, self.shape))
                .map(|c| &c.idx)
                .collect();
            let prefetched = self.chunks.prefetch(need_load.iter().copied(), &var.cache)?;
            let loaded: Vec<NcResult<ChunkData>> =
                run_jobs(need_load.clone(), |idx| self.chunks.load_with(&prefetched, idx));
            let mut loaded_by_idx = std::collections::HashMap::new();
            for (idx, r) in need_load.into_iter().zip(loaded) {
                loaded_by_idx.insert(idx.as_slice(), r?);
            }
            // Each chunk's current content (taken out of the cache).
            let mut jobs = Vec::with_capacity(batch.len());
            for &c in batch {
                let data = match var.cache.take(&c.idx) {
                    Some(d) => d,
                    None => match loaded_by_idx.remove(c.idx.as_slice()) {
                        Some(d) => d,
                        None => self.chunks.spec.fill_chunk()?,
                    },
                };
                jobs.push(Merge { chunk: c, data });
            }
            // The caller's values into the chunks, on the pool.
            let done: Vec<(Merge<'_>, NcResult<bool>)> = run_jobs(jobs, |mut m: Merge<'_>| {
                let r = copy::chunk_in(self.sel, &m.chunk.segs, self.src, self.chunks.spec.ty, &mut m.data);
                (m, r)
            });
            let mut evicted = Vec::new();
            let mut failure = None;
            for (m, r) in done {
                match r {
                    Ok(range) => out_of_range |= range,
                    Err(e) => {
                        failure.get_or_insert(e);
                    }
                }
                evicted.extend(var.cache.insert(m.chunk.idx.clone(), m.data, true));
            }
            var.chunks_on_disk |= evicted.iter().any(|e| e.dirty);
            write_evicted(self.chunks, store, evicted)?;
            if let Some(e) = failure {
                return Err(e);
            }
        }
        Ok(out_of_range)
    }
}

#[cfg(test)]
mod tests {
    use super::super::chunk::tests::{spec, with_codecs};
    use super::super::select::Extent;
    use super::super::source::{KeyEncoding, ObjectPerChunk};
    use super::*;
    use crate::storage::Key;
    use crate::storage::memory::MemoryStore;
    use std::sync::Arc;

    fn chunks(store: &Arc<dyn Store>, s: crate::engine::chunk::ChunkSpec) -> VarChunks {
        let source = Arc::new(ObjectPerChunk::new(
            store.clone(),
            "v".into(),
            KeyEncoding::V2 { separator: '.' },
        ));
        VarChunks { spec: s, source }
    }

    fn shorts(b: &[u8]) -> Vec<i16> {
        b.chunks_exact(2).map(|x| i16::from_ne_bytes([x[0], x[1]])).collect()
    }

    #[test]
    fn whole_chunks_go_straight_to_storage() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        // A 3x5 array in 2x4 chunks: chunk (0, 0) lies inside, the others
        // run past its edges.
        let mut s = spec(NcType::Short, &[2, 4]);
        s.fill = (-1i16).to_ne_bytes().to_vec();
        let c = chunks(&store, s);
        let ext = [
            Extent {
                len: 3,
                unlimited: false,
            },
            Extent {
                len: 5,
                unlimited: false,
            },
        ];
        let sel = Selection::over(&ext, &[2, 4], &[0, 0], &[3, 5], None, true).unwrap();
        let vals: Vec<u8> = (0..15i16).flat_map(|v| v.to_ne_bytes()).collect();
        let src = MemIn::Num {
            ty: NcType::Short,
            data: &vals,
        };
        let w = Writer {
            chunks: &c,
            sel: &sel,
            src: &src,
            shape: &[3, 5],
        };
        for ch in sel.chunks() {
            assert_eq!(w.store_whole_chunk(&ch), Ok(false));
        }
        let get = |k: &str| shorts(&store.get(&Key::new(k).unwrap(), 100).unwrap().unwrap());
        assert_eq!(get("v/0.0"), vec![0, 1, 2, 3, 5, 6, 7, 8]);
        // Past the edges: fill.
        assert_eq!(get("v/0.1"), vec![4, -1, -1, -1, 9, -1, -1, -1]);
        assert_eq!(get("v/1.0"), vec![10, 11, 12, 13, -1, -1, -1, -1]);
        assert_eq!(get("v/1.1"), vec![14, -1, -1, -1, -1, -1, -1, -1]);
        // Converted from another type, with a value out of range (stored anyway).
        let wide: Vec<u8> = (0..15i32).map(|v| v * 5000).flat_map(|v| v.to_ne_bytes()).collect();
        let src = MemIn::Num {
            ty: NcType::Int,
            data: &wide,
        };
        let w = Writer { src: &src, ..w };
        assert_eq!(w.store_whole_chunk(&sel.chunks()[0]), Ok(true));
        assert_eq!(&get("v/0.0")[..2], &[0, 5000]);
    }

    #[test]
    fn whole_chunks_through_codecs() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let c = chunks(
            &store,
            with_codecs(
                spec(NcType::Short, &[64]),
                &[serde_json::json!({"id": "zlib", "level": 1})],
            ),
        );
        let ext = [Extent {
            len: 64,
            unlimited: false,
        }];
        let sel = Selection::over(&ext, &[64], &[0], &[64], None, true).unwrap();
        let vals: Vec<u8> = (0..64i16).flat_map(|v| v.to_ne_bytes()).collect();
        let src = MemIn::Num {
            ty: NcType::Short,
            data: &vals,
        };
        let w = Writer {
            chunks: &c,
            sel: &sel,
            src: &src,
            shape: &[64],
        };
        assert_eq!(w.store_whole_chunk(&sel.chunks()[0]), Ok(false));
        let stored = store.get(&Key::new("v/0").unwrap(), 1000).unwrap().unwrap();
        assert!(stored.len() < vals.len());
        assert_eq!(c.load(&[0]).unwrap(), ChunkData::Bytes(vals));
    }

    #[test]
    fn quantized_writes_convert_first() {
        let doubles: Vec<u8> = [std::f64::consts::PI, -2.5e-3, 1e300]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect();
        let src = MemIn::Num {
            ty: NcType::Double,
            data: &doubles,
        };
        let mut var = Var::new("q", NcType::Float, vec![]);
        assert!(quantize_input(&var, &src, 3).unwrap().is_none(), "not quantized");
        var.quantize = (1, 3);
        let q = quantize_input(&var, &src, 3).unwrap().unwrap();
        assert!(q.out_of_range, "1e300 does not fit a float");
        let floats: Vec<f32> = q
            .values
            .chunks_exact(4)
            .map(|b| f32::from_ne_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(floats.len(), 3);
        assert!((floats[0] - std::f32::consts::PI).abs() < 1e-2 && floats[0] != std::f32::consts::PI);
        assert!((floats[1] + 2.5e-3).abs() < 1e-5);
        // Too few values for the selection: an internal error, never a panic.
        assert_eq!(quantize_input(&var, &src, 4).err(), Some(NcError::Internal));
        // Only floating-point variables, and only numbers, are quantized.
        let strs = [None];
        assert!(quantize_input(&var, &MemIn::Str(&strs), 1).unwrap().is_none());
        let mut int = Var::new("i", NcType::Int, vec![]);
        int.quantize = (1, 3);
        assert!(quantize_input(&int, &src, 3).unwrap().is_none());
    }
}
