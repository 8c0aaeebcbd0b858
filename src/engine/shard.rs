//! The chunk source of sharded arrays (Zarr v3 `sharding_indexed`): the
//! engine's chunks are the inner chunks; each is a byte range of its shard
//! object, found through the shard's index (read once, then cached per
//! variable). A read fetches only the ranges it needs, neighbouring ranges
//! of a shard in one request.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::{ChunkSpec, Prefetched};
use crate::codec::sharding::{IndexCache, ShardIndex, ShardLayout};
use crate::error::{NcError, NcResult};
use crate::log::Level;
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
