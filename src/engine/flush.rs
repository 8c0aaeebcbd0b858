//! Storing what waits in memory: the dirty chunks of every variable at sync
//! or close, dirty chunks a cache lets go of, and metadata objects.
#![forbid(unsafe_code)]

use rayon::prelude::*;

use super::chunk::recycle;
use super::io::VarChunks;
use super::source::ChunkSource;
use crate::error::{NcError, NcResult};
use crate::model::Dataset;
use crate::model::cache::Evicted;
use crate::runtime::{buffers, pool};
use crate::storage::{Key, Placement, Store};

/// How many encoded chunks a flush to a store with concurrent requests
/// holds at a time.
const ENCODED_PER_BATCH: usize = 256;

/// From this many variables with dirty chunks on, a flush prepares them on the pool.
const POOL_COLLECT_MIN: usize = 64;

/// A chunk's stored bytes, ready to be written by its source.
pub(super) struct Encoded<'a> {
    pub source: &'a dyn ChunkSource,
    pub idx: &'a [u64],
    pub bytes: Vec<u8>,
}

/// A source's chunks to write together: (result slot, index, bytes) each.
type Together<'a> = (&'a dyn ChunkSource, Vec<(usize, &'a [u64], Vec<u8>)>);

/// Store encoded chunks (of one variable or several); a chunk that failed
/// to encode keeps its error; one result per chunk, in order. Chunks that
/// are objects of their own (`ChunkSource::object`) go to `store` in one
/// `put_many_owned` (concurrent requests, each sent from its buffer); the
/// others through their source's `put`.
pub(super) fn put_encoded(store: &dyn Store, encoded: Vec<NcResult<Encoded<'_>>>) -> Vec<NcResult<()>> {
    let mut results: Vec<NcResult<()>> = Vec::with_capacity(encoded.len());
    let mut objs: Vec<(Key, Vec<u8>)> = Vec::new();
    let mut slots: Vec<usize> = Vec::new();
    // Chunks of sources that write them together, by source.
    let mut together: Vec<Together<'_>> = Vec::new();
    for r in encoded {
        let e = match r {
            Ok(e) => e,
            Err(err) => {
                results.push(Err(err));
                continue;
            }
        };
        match e.source.object(e.idx) {
            Some(Ok(key)) => {
                slots.push(results.len());
                objs.push((key, e.bytes));
                results.push(Ok(()));
            }
            Some(Err(err)) => {
                buffers::give(e.bytes);
                results.push(Err(err));
            }
            None if e.source.writes_together() => {
                // Written below, a source's chunks together.
                let at = together.iter().position(|(s, _)| std::ptr::addr_eq(*s, e.source));
                let slot = results.len();
                results.push(Ok(()));
                match at {
                    Some(i) => together[i].1.push((slot, e.idx, e.bytes)),
                    None => together.push((e.source, vec![(slot, e.idx, e.bytes)])),
                }
            }
            None => {
                results.push(e.source.put(e.idx, &e.bytes));
                buffers::give(e.bytes);
            }
        }
    }
    for (source, chunks) in together {
        let slots: Vec<usize> = chunks.iter().map(|c| c.0).collect();
        let rs = source.put_many(chunks.into_iter().map(|(_, idx, b)| (idx, b)).collect());
        for (slot, r) in slots.into_iter().zip(rs) {
            results[slot] = r;
        }
    }
    if !objs.is_empty() {
        for (slot, r) in slots.into_iter().zip(store.put_many_owned(objs)) {
            results[slot] = r.map_err(NcError::from);
        }
    }
    results
}

/// Write the dirty chunks a cache let go of (encoding them on the pool);
/// the clean ones' memory is recycled.
pub(super) fn write_evicted(chunks: &VarChunks, store: &dyn Store, ev: Vec<Evicted>) -> NcResult<()> {
    let mut dirty = Vec::new();
    for e in ev {
        if e.dirty {
            dirty.push(e);
        } else {
            recycle(e.data);
        }
    }
    let put = |e: &Evicted| -> NcResult<()> { chunks.store(&e.idx, &e.data) };
    let r = if dirty.len() > 1 && chunks.batched_writes() {
        let encoded: Vec<NcResult<Encoded<'_>>> = pool::on_pool(|| {
            dirty
                .par_iter()
                .map(|e| {
                    Ok(Encoded {
                        source: &*chunks.source,
                        idx: &e.idx,
                        bytes: chunks.spec.encode(&e.data)?,
                    })
                })
                .collect()
        });
        put_encoded(store, encoded).into_iter().collect()
    } else if dirty.len() > 1 {
        pool::on_pool(|| dirty.par_iter().try_for_each(put))
    } else {
        dirty.iter().try_for_each(put)
    };
    dirty.into_iter().for_each(|e| recycle(e.data));
    r
}

/// Store a set of objects on the worker pool (metadata written at sync).
pub fn put_all(store: &dyn Store, objs: Vec<(Key, Vec<u8>)>, how: Placement) -> NcResult<()> {
    let put = |(k, b): &(Key, Vec<u8>)| {
        match how {
            Placement::Replace => store.put(k, b),
            Placement::New => store.put_new(k, b),
        }
        .map_err(NcError::from)
    };
    let threads = pool::threads().max(1);
    if objs.len() > 1 && store.concurrent_requests() {
        store
            .put_many(&objs)
            .into_iter()
            .try_for_each(|r| r.map_err(NcError::from))
    } else if objs.len() > 1 && threads > 1 {
        // A few large tasks per thread: one small object per task would spend
        // more time waking threads than writing.
        let per_task = objs.len().div_ceil(threads * 4).max(1);
        pool::on_pool(|| objs.par_chunks(per_task).try_for_each(|c| c.iter().try_for_each(put)))
    } else {
        objs.iter().try_for_each(put)
    }
}

/// A variable with dirty chunks, at a flush.
struct DirtyVar {
    grp: usize,
    var: usize,
    chunks: VarChunks,
    /// Its dirty chunks' indices (sorted).
    idxs: Vec<Vec<u64>>,
}

/// One dirty chunk: its variable in the flush's list and its place there.
#[derive(Clone, Copy)]
struct DirtyChunk {
    var: usize,
    chunk: usize,
}

/// Encode and store every dirty chunk of every variable, in parallel: the
/// chunks of all variables go to the pool together (a dataset of many small
/// variables has one chunk each). Chunks are encoded from where they sit in
/// the cache, never copied first.
pub fn flush_chunks(ds: &mut Dataset) -> NcResult<()> {
    let store = ds.store.clone();
    ds.deferred_bytes = 0;
    let dirty: Vec<(usize, usize)> = (0..ds.groups.len())
        .flat_map(|g| (0..ds.groups[g].vars.len()).map(move |vi| (g, vi)))
        .filter(|&(g, vi)| ds.groups[g].vars[vi].cache.has_dirty())
        .collect();
    let dsr: &Dataset = ds;
    let of = |&(grp, var): &(usize, usize)| {
        let v = &dsr.groups[grp].vars[var];
        DirtyVar {
            grp,
            var,
            chunks: VarChunks::of(dsr, grp, v),
            idxs: v.cache.dirty_keys(),
        }
    };
    // A dataset of many small variables: their sources are made on the pool too.
    let vars: Vec<DirtyVar> = if dirty.len() >= POOL_COLLECT_MIN {
        pool::on_pool(|| dirty.par_iter().map(of).collect())
    } else {
        dirty.iter().map(of).collect()
    };
    if vars.is_empty() {
        return Ok(());
    }
    let jobs: Vec<DirtyChunk> = vars
        .iter()
        .enumerate()
        .flat_map(|(var, d)| (0..d.idxs.len()).map(move |chunk| DirtyChunk { var, chunk }))
        .collect();
    let concurrent = vars.iter().any(|d| d.chunks.batched_writes());
    let results: Vec<NcResult<()>> = {
        let ds: &Dataset = ds;
        let vars = &vars;
        // A dirty chunk where it sits in its variable's cache.
        let cached = |j: DirtyChunk| {
            let d = &vars[j.var];
            let idx = &d.idxs[j.chunk];
            let data = ds.groups[d.grp].vars[d.var].cache.peek(idx).ok_or(NcError::Internal)?;
            Ok::<_, NcError>((d, idx, data))
        };
        let put = |&j: &DirtyChunk| -> NcResult<()> {
            let (d, idx, data) = cached(j)?;
            d.chunks.store(idx, data)
        };
        if jobs.len() > 1 && concurrent {
            // Encode on the pool, then concurrent batches of PUTs (bounded
            // memory: ENCODED_PER_BATCH encoded chunks at a time).
            let mut out = Vec::with_capacity(jobs.len());
            for batch in jobs.chunks(ENCODED_PER_BATCH) {
                let encoded: Vec<NcResult<Encoded<'_>>> = pool::on_pool(|| {
                    batch
                        .par_iter()
                        .map(|&j| {
                            let (d, idx, data) = cached(j)?;
                            Ok(Encoded {
                                source: &*d.chunks.source,
                                idx,
                                bytes: d.chunks.spec.encode(data)?,
                            })
                        })
                        .collect()
                });
                out.extend(put_encoded(store.as_ref(), encoded));
            }
            out
        } else if jobs.len() == 1 {
            jobs.iter().map(put).collect()
        } else {
            // Small tasks (as `format::write::store_array_objects`'s): no
            // thread idles at the end while the other finishes a large one.
            let per_task = jobs.len().div_ceil(pool::threads().max(1) * 32).max(1);
            pool::on_pool(|| jobs.par_chunks(per_task).flat_map_iter(|c| c.iter().map(put)).collect())
        }
    };
    // Jobs (and so results) come variable by variable, in `vars`' order.
    let mut first_err = None;
    let mut results = results.into_iter();
    for d in vars {
        let var = &mut ds.groups[d.grp].vars[d.var];
        let mut all_written = true;
        for (idx, r) in d.idxs.iter().zip(results.by_ref()) {
            match r {
                Ok(()) => {
                    if !all_written {
                        var.cache.clear_dirty(idx);
                    }
                }
                Err(e) => {
                    first_err.get_or_insert(e);
                    if all_written {
                        // Those before this one were written.
                        let done = d.idxs.iter().take_while(|&i| i != idx);
                        done.for_each(|i| var.cache.clear_dirty(i));
                        all_written = false;
                    }
                }
            }
        }
        if all_written {
            // Every dirty chunk was collected and written: nothing dirtied
            // the cache since (the dataset is borrowed all along).
            var.cache.clear_all_dirty();
        }
        var.chunks_stored(&d.chunks.spec.node);
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(()),
    }
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
    let chunks = VarChunks::of(ds, grp, ds.var(grp, varid)?);
    let var = ds.var_mut(grp, varid)?;
    let ev = var.cache.resize(size, nelems, preemption);
    var.chunks_on_disk |= ev.iter().any(|e| e.dirty);
    write_evicted(&chunks, store.as_ref(), ev)
}

#[cfg(test)]
mod tests {
    use super::super::chunk::tests::spec;
    use super::super::source::{KeyEncoding, ObjectPerChunk};
    use super::*;
    use crate::model::cache::ChunkData;
    use crate::model::types::NcType;
    use crate::storage::memory::MemoryStore;
    use std::sync::Arc;

    fn chunks(store: &Arc<dyn Store>) -> VarChunks {
        let source = Arc::new(ObjectPerChunk::new(
            store.clone(),
            "v".into(),
            KeyEncoding::V2 { separator: '.' },
        ));
        VarChunks {
            spec: spec(NcType::Short, &[2]),
            source,
        }
    }

    fn get(store: &Arc<dyn Store>, key: &str) -> Option<Vec<u8>> {
        store.get(&Key::new(key).unwrap(), 100).unwrap()
    }

    #[test]
    fn evicted_dirty_chunks_are_written() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let c = chunks(&store);
        let ev = |i: u64, dirty| Evicted {
            idx: vec![i],
            data: ChunkData::Bytes(vec![i as u8; 4]),
            dirty,
        };
        write_evicted(&c, store.as_ref(), vec![ev(0, true), ev(1, false), ev(2, true)]).unwrap();
        assert_eq!(get(&store, "v/0"), Some(vec![0; 4]));
        assert_eq!(get(&store, "v/1"), None, "a clean chunk is not written");
        assert_eq!(get(&store, "v/2"), Some(vec![2; 4]));
        write_evicted(&c, store.as_ref(), vec![ev(3, true)]).unwrap();
        assert_eq!(get(&store, "v/3"), Some(vec![3; 4]));
    }

    #[test]
    fn encoded_chunks_keep_their_errors() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let c = chunks(&store);
        let encoded = vec![
            Ok(Encoded {
                source: &*c.source,
                idx: &[4],
                bytes: vec![4; 4],
            }),
            Err(NcError::Filter),
            Ok(Encoded {
                source: &*c.source,
                idx: &[5],
                bytes: vec![5; 4],
            }),
        ];
        assert_eq!(
            put_encoded(store.as_ref(), encoded),
            vec![Ok(()), Err(NcError::Filter), Ok(())]
        );
        assert_eq!(get(&store, "v/4"), Some(vec![4; 4]));
        assert_eq!(get(&store, "v/5"), Some(vec![5; 4]));
    }

    #[test]
    fn put_all_stores_every_object() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let objs: Vec<(Key, Vec<u8>)> = (0..50)
            .map(|i| (Key::new(&format!("m/{i}")).unwrap(), vec![i as u8]))
            .collect();
        put_all(store.as_ref(), objs, Placement::Replace).unwrap();
        for i in 0..50 {
            assert_eq!(get(&store, &format!("m/{i}")), Some(vec![i as u8]));
        }
    }
}
