//! The chunk source of sharded arrays (Zarr v3 `sharding_indexed`): the
//! engine's chunks are the inner chunks; each is a byte range of its shard
//! object, found through the shard's index (read once, then cached per
//! variable). A read fetches only the ranges it needs, neighbouring ranges
//! of a shard in one request.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::{ChunkSpec, MemIn, Prefetched, Seg, Selection, WriteWork, copy_chunk_in, recycle};
use crate::codec::sharding::{IndexCache, ShardIndex, ShardLayout};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::model::cache::ChunkData;
use crate::runtime::pool;
use crate::storage::{Arrivals, Fetched, Key, Store};

/// Ranges of one shard closer than this are read as one request...
const MAX_GAP: u64 = 1 << 20;
/// ... as long as that request stays below this size.
const MAX_REQUEST: u64 = 16 << 20;

/// A sharded variable's layout and its cache of shard indexes.
#[derive(Debug)]
pub(super) struct Shards {
    pub layout: ShardLayout,
    pub indexes: Arc<IndexCache>,
}

/// Encoded inner chunks of one shard: (position in the shard, bytes).
type Parts = Vec<(usize, Vec<u8>)>;

/// One byte range to read from a shard, and the requests it serves:
/// (which request, offset in the range, length).
struct Read {
    key: Key,
    offset: u64,
    len: u64,
    parts: Vec<(usize, u64, u64)>,
}

impl Shards {
    /// The index of shard `shard` (None: the shard is absent).
    fn index(&self, spec: &ChunkSpec, store: &dyn Store, shard: &[u64]) -> NcResult<Option<Arc<ShardIndex>>> {
        if let Some(ix) = self.indexes.get(shard) {
            return Ok(ix);
        }
        let key = spec.key(shard)?;
        let Some(len) = store.len(&key)? else {
            self.indexes.insert(shard.to_vec(), None);
            return Ok(None);
        };
        let Some(at) = self.layout.index_offset(len) else {
            crate::nclog!(
                Level::Error,
                "shard {}: {} bytes, shorter than its index",
                key.as_str(),
                len
            );
            return Err(NcError::NcZarr);
        };
        let bytes = store.get_range(&key, at, self.layout.index_len())?.ok_or_else(|| {
            crate::nclog!(Level::Error, "shard {} vanished while read", key.as_str());
            NcError::NcZarr
        })?;
        let ix = Arc::new(self.layout.decode_index(&bytes, len).inspect_err(|_| {
            crate::nclog!(Level::Error, "shard {}: bad index", key.as_str());
        })?);
        self.indexes.insert(shard.to_vec(), Some(ix.clone()));
        Ok(Some(ix))
    }

    /// Where inner chunk `idx` is: its shard's key and its byte range, None
    /// when absent. A range longer than `limit` (more than any encoding of
    /// the chunk) is `NC_ENCZARR`.
    fn locate(
        &self,
        spec: &ChunkSpec,
        store: &dyn Store,
        idx: &[u64],
        limit: usize,
    ) -> NcResult<Option<(Key, u64, u64)>> {
        let (shard, pos) = self.layout.locate(idx);
        let Some(ix) = self.index(spec, store, &shard)? else {
            return Ok(None);
        };
        let Some((off, len)) = ix.get(pos) else {
            return Ok(None);
        };
        let key = spec.key(&shard)?;
        if len > limit as u64 {
            crate::nclog!(
                Level::Error,
                "shard {}: inner chunk {} has {} bytes, more than the {} its chunk may have",
                key.as_str(),
                pos,
                len,
                limit
            );
            return Err(NcError::NcZarr);
        }
        Ok(Some((key, off, len)))
    }

    /// The stored bytes of inner chunk `idx` (None: absent).
    pub fn fetch(&self, spec: &ChunkSpec, store: &dyn Store, idx: &[u64], limit: usize) -> Fetched {
        match self.locate(spec, store, idx, limit)? {
            None => Ok(None),
            Some((key, off, len)) => Ok(Some(read_range(store, &key, off, len)?)),
        }
    }

    /// Fetch inner chunks ahead, for `get_vars`: the indexes first, then the
    /// chunks' byte ranges, neighbours in one request, the requests on the
    /// worker pool. Each chunk is delivered as `Prefetched` says.
    pub fn prefetch<'a>(
        &self,
        spec: &ChunkSpec,
        store: &dyn Store,
        idxs: impl Iterator<Item = &'a Vec<u64>>,
    ) -> NcResult<Prefetched> {
        let mut map = Prefetched::new();
        let todo: Vec<&Vec<u64>> = idxs.collect();
        if todo.len() < 2 {
            return Ok(map);
        }
        // (A missing codec: each load reports it.)
        let Ok((_, limit, _)) = spec.stored_limits() else {
            return Ok(map);
        };
        let arrivals = Arrivals::new(todo.len());
        // Where each chunk is; an error is that chunk's.
        let mut by_shard: HashMap<Key, Vec<(usize, u64, u64)>> = HashMap::new();
        for (i, idx) in todo.iter().enumerate() {
            match self.locate(spec, store, idx, limit) {
                Ok(Some((key, off, len))) => by_shard.entry(key).or_default().push((i, off, len)),
                Ok(None) => arrivals.deliver(i, Ok(None)),
                Err(e) => arrivals.deliver(i, Err(e)),
            }
            map.insert((*idx).clone(), (arrivals.clone(), i));
        }
        let reads: Vec<Read> = by_shard.into_iter().flat_map(|(k, r)| coalesce(k, r)).collect();
        let done = |r: &Read| {
            let got = read_range(store, &r.key, r.offset, r.len);
            for &(i, at, n) in &r.parts {
                arrivals.deliver(
                    i,
                    match &got {
                        Ok(b) => Ok(Some(b[at as usize..(at + n) as usize].to_vec())),
                        Err(e) => Err(*e),
                    },
                );
            }
        };
        if reads.len() > 1 {
            pool::on_pool(|| reads.par_iter().for_each(done));
        } else {
            reads.iter().for_each(done);
        }
        Ok(map)
    }
}

impl Shards {
    /// How many inner chunks of shard `shard` hold elements of an array of
    /// `shape` (all of them, except in the partial shards at its edges).
    pub fn live_inner(&self, shard: &[u64], shape: &[usize]) -> usize {
        let l = &self.layout;
        shard
            .iter()
            .zip(shape)
            .enumerate()
            .map(|(d, (&s, &n))| {
                let first = s as usize * l.shard[d];
                n.saturating_sub(first).div_ceil(l.inner[d]).min(l.per_shard[d])
            })
            .product()
    }

    /// Store shard `shard` with these encoded inner chunks (position, bytes).
    /// Unless `complete`, the inner chunks already stored and not given are
    /// kept (read, merged, rewritten). A shard left with no chunk is deleted.
    fn write(
        &self,
        spec: &ChunkSpec,
        store: &dyn Store,
        shard: &[u64],
        chunks: Vec<(usize, Vec<u8>)>,
        complete: bool,
    ) -> NcResult<()> {
        let key = spec.key(shard)?;
        let l = &self.layout;
        let mut slots: Vec<Option<Vec<u8>>> = Vec::new();
        slots.try_reserve_exact(l.count).map_err(|_| NcError::NoMem)?;
        slots.resize(l.count, None);
        if !complete && let Some(ix) = self.index(spec, store, shard)? {
            let (_, limit, _) = spec.stored_limits()?;
            let max = (limit as u64)
                .saturating_mul(l.count as u64)
                .saturating_add(l.index_len());
            let old = store.get(&key, max)?.ok_or_else(|| {
                crate::nclog!(Level::Error, "shard {} vanished while rewritten", key.as_str());
                NcError::NcZarr
            })?;
            for (pos, slot) in slots.iter_mut().enumerate() {
                if let Some((off, len)) = ix.get(pos) {
                    let r = off as usize..(off + len) as usize;
                    *slot = Some(old.get(r).ok_or(NcError::NcZarr)?.to_vec());
                }
            }
        }
        for (pos, b) in chunks {
            *slots.get_mut(pos).ok_or(NcError::Internal)? = Some(b);
        }
        // (The index is forgotten first: a failed write must not leave a stale one.)
        self.indexes.remove(shard);
        match l.encode_shard(&slots)? {
            None => store.delete(&key),
            Some(bytes) => {
                store.put(&key, &bytes)?;
                let at = l.index_offset(bytes.len() as u64).ok_or(NcError::Internal)? as usize;
                let ix = l.decode_index(&bytes[at..at + l.index_len() as usize], bytes.len() as u64)?;
                self.indexes.insert(shard.to_vec(), Some(Arc::new(ix)));
                Ok(())
            }
        }
    }
}

/// Store inner chunks (evicted from the cache, or flushed): encoded on the
/// pool, then each shard read, merged and rewritten once. One result per
/// chunk (its shard's).
pub(super) fn store_chunks(
    spec: &ChunkSpec,
    store: &dyn Store,
    chunks: &[(&Vec<u64>, &ChunkData)],
) -> Vec<NcResult<()>> {
    let Some(sh) = &spec.shards else {
        return chunks.iter().map(|_| Err(NcError::Internal)).collect();
    };
    let encoded: Vec<NcResult<Vec<u8>>> = pool::run_jobs(chunks.to_vec(), |(_, d)| spec.encode(d));
    // Shard -> (chunk numbers, (position, bytes)).
    let mut by_shard: HashMap<Vec<u64>, (Vec<usize>, Parts)> = HashMap::new();
    let mut out: Vec<NcResult<()>> = chunks.iter().map(|_| Ok(())).collect();
    for (i, ((idx, _), e)) in chunks.iter().zip(encoded).enumerate() {
        let (shard, pos) = sh.layout.locate(idx);
        match e {
            Ok(b) => {
                let entry = by_shard.entry(shard).or_default();
                entry.0.push(i);
                entry.1.push((pos, b));
            }
            Err(e) => out[i] = Err(e),
        }
    }
    let shards: Vec<_> = by_shard.into_iter().collect();
    let results = pool::run_jobs(shards, |(shard, (who, parts))| {
        let complete = parts.len() == sh.layout.count;
        (who, sh.write(spec, store, &shard, parts, complete))
    });
    for (who, r) in results {
        for i in who {
            out[i] = r;
        }
    }
    out
}

/// The part of a write that covers whole shards: those shards are built
/// from the caller's values (their inner chunks encoded on the pool) and
/// stored at once, without reading them. Returns whether some value was out
/// of range for the file type, and the chunks of the other shards (for the
/// cache).
pub(super) fn put_whole_shards<'w>(
    spec: &ChunkSpec,
    store: &dyn Store,
    sel: &Selection,
    src: &MemIn<'_>,
    shape: &[usize],
    whole: Vec<&'w WriteWork>,
) -> NcResult<(bool, Vec<&'w WriteWork>)> {
    let Some(sh) = &spec.shards else {
        return Ok((false, whole));
    };
    let mut by_shard: HashMap<Vec<u64>, Vec<&WriteWork>> = HashMap::new();
    for w in whole {
        by_shard.entry(sh.layout.locate(&w.0).0).or_default().push(w);
    }
    let mut rest = Vec::new();
    let mut range = false;
    let mut shards: Vec<(Vec<u64>, Vec<&WriteWork>)> = by_shard.into_iter().collect();
    shards.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (shard, items) in shards {
        if items.len() != sh.live_inner(&shard, shape) {
            rest.extend(items);
            continue;
        }
        let built: Vec<NcResult<(Parts, bool)>> = pool::run_jobs(items, |(idx, segs)| {
            let (data, r) = build_chunk(spec, sel, src, shape, idx, segs)?;
            Ok((vec![(sh.layout.locate(idx).1, spec.encode_owned(data)?)], r))
        });
        let mut parts = Vec::with_capacity(built.len());
        for b in built {
            let (part, r) = b?;
            range |= r;
            parts.extend(part);
        }
        sh.write(spec, store, &shard, parts, true)?;
    }
    Ok((range, rest))
}

/// One inner chunk that a write covers, built from the caller's values
/// (fill where it sticks out of the array); whether a value was out of
/// range for the file type.
fn build_chunk(
    spec: &ChunkSpec,
    sel: &Selection,
    src: &MemIn<'_>,
    shape: &[usize],
    idx: &[u64],
    segs: &[Seg],
) -> NcResult<(ChunkData, bool)> {
    let in_bounds = idx
        .iter()
        .zip(&spec.chunk)
        .zip(shape)
        .all(|((&i, &c), &n)| (i as usize + 1) * c <= n);
    let mut data = if in_bounds {
        spec.blank_chunk()?
    } else {
        spec.fill_chunk()?
    };
    match copy_chunk_in(sel, segs, src, spec.ty, &mut data) {
        Ok(r) => Ok((data, r)),
        Err(e) => {
            recycle(data);
            Err(e)
        }
    }
}

/// Bytes `off..off + len` of a shard; a shard shorter than its index says
/// (truncated) is `NC_ENCZARR`.
fn read_range(store: &dyn Store, key: &Key, off: u64, len: u64) -> NcResult<Vec<u8>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    store.get_range(key, off, len)?.ok_or_else(|| {
        crate::nclog!(Level::Error, "shard {} vanished while read", key.as_str());
        NcError::NcZarr
    })
}

/// The requests for some ranges of one shard: sorted, neighbours closer
/// than `MAX_GAP` merged while the request stays under `MAX_REQUEST`.
fn coalesce(key: Key, mut ranges: Vec<(usize, u64, u64)>) -> Vec<Read> {
    ranges.sort_unstable_by_key(|r| r.1);
    let mut out: Vec<Read> = Vec::new();
    for (i, off, len) in ranges {
        let end = off + len;
        if let Some(last) = out.last_mut() {
            let last_end = last.offset + last.len;
            let new_end = last_end.max(end);
            if off <= last_end.saturating_add(MAX_GAP) && new_end - last.offset <= MAX_REQUEST {
                last.len = new_end - last.offset;
                last.parts.push((i, off - last.offset, len));
                continue;
            }
        }
        out.push(Read {
            key: key.clone(),
            offset: off,
            len,
            parts: vec![(i, 0, len)],
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_merge() {
        let k = Key::new("a/c/0").unwrap();
        let r = coalesce(k.clone(), vec![(0, 100, 10), (1, 0, 50), (2, 60, 10), (3, 50 << 20, 5)]);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].offset, r[0].len), (0, 110));
        assert_eq!(r[0].parts, vec![(1, 0, 50), (2, 60, 10), (0, 100, 10)]);
        assert_eq!(
            (r[1].offset, r[1].len, r[1].parts.clone()),
            (50 << 20, 5, vec![(3, 0, 5)])
        );
        // Overlapping and duplicate ranges stay whole.
        let r = coalesce(k, vec![(0, 0, 10), (1, 5, 10), (2, 0, 10)]);
        assert_eq!((r.len(), r[0].len), (1, 15));
    }
}
