//! A variable's chunks in and out of their source: fetch and decode (whole,
//! in part, fetched ahead, or straight into caller memory, stored or
//! decoded), encode and store.
#![forbid(unsafe_code)]

use std::sync::Arc;

use super::chunk::{ChunkSpec, Part};
use super::source::{self, ChunkName, ChunkSource, Fetched, Prefetched};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::model::cache::{ChunkCache, ChunkData};
use crate::model::{Dataset, Var};
use crate::runtime::buffers;

/// A variable's chunks: how they are encoded (`spec`) and where they live
/// (`source`), detached from the dataset so that worker threads can use it.
#[derive(Debug, Clone)]
pub(super) struct VarChunks {
    pub spec: ChunkSpec,
    pub source: Arc<dyn ChunkSource>,
}

impl VarChunks {
    /// The chunks of variable `var` of group `grp`.
    pub fn of(ds: &Dataset, grp: usize, var: &Var) -> VarChunks {
        let spec = ChunkSpec::of(ds, grp, var);
        let source = source::for_var(ds, var, &spec.node);
        VarChunks { spec, source }
    }

    /// Chunk `idx`'s name for log lines.
    pub fn name<'a>(&'a self, idx: &'a [u64]) -> ChunkName<'a, dyn ChunkSource> {
        ChunkName {
            source: &*self.source,
            idx,
        }
    }

    /// Whether many requests in flight pay (S3).
    pub fn concurrent(&self) -> bool {
        self.source.concurrent_requests()
    }

    /// Whether writes go in bounded batches of encoded chunks, each batch
    /// stored together: with many requests in flight (S3), and where chunks
    /// share objects (shards, rewritten once per batch).
    pub fn batched_writes(&self) -> bool {
        self.concurrent() || self.source.writes_together()
    }

    /// Fetch and decode one whole chunk (fill when absent).
    pub fn load(&self, idx: &[u64]) -> NcResult<ChunkData> {
        let limits = self.spec.stored_limits()?;
        let mut stored = self.spec.fetch_buffer(limits.raw_len);
        let fetched = match self.source.get_into(idx, limits.max_stored as u64, &mut stored) {
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
        self.decode_fetched(idx, fetched)
    }

    /// The element ranges `ranges` (sorted, disjoint, from `part_ranges`) of
    /// a chunk, decoding only what holds them when the codec can (see
    /// `ChunkSpec::decode_part`); the chunk is fetched once either way.
    pub fn load_part(&self, idx: &[u64], ranges: &[(usize, usize)]) -> NcResult<Part> {
        let limits = self.spec.stored_limits()?;
        if self.spec.part_step(ranges).is_none() {
            return self.load(idx).map(Part::Whole);
        }
        let mut stored = self.spec.fetch_buffer(limits.raw_len);
        match self.source.get_into(idx, limits.max_stored as u64, &mut stored) {
            Ok(true) => self.spec.decode_part(stored, ranges, &self.name(idx)),
            Ok(false) => {
                buffers::give(stored);
                self.decode_fetched(idx, Ok(None)).map(Part::Whole)
            }
            Err(e) => {
                buffers::give(stored);
                self.decode_fetched(idx, Err(e)).map(Part::Whole)
            }
        }
    }

    /// Fetch a chunk's stored bytes (`None`: absent).
    pub fn fetch(&self, idx: &[u64]) -> Fetched {
        let limits = self.spec.stored_limits()?;
        let mut stored = self.spec.fetch_buffer(limits.raw_len);
        match self.source.get_into(idx, limits.max_stored as u64, &mut stored) {
            Ok(true) => Ok(Some(stored)),
            other => {
                buffers::give(stored);
                other.map(|_| None)
            }
        }
    }

    /// Fetch a chunk and decode the parts `dests` of it (element offset in
    /// the chunk, destination; sorted and disjoint) straight into their
    /// destinations (see `ChunkSpec::decode_into`): `None`. An absent chunk
    /// is the fill chunk, for the caller to copy from.
    pub fn load_into(&self, idx: &[u64], dests: Vec<(usize, &mut [u8])>) -> NcResult<Option<ChunkData>> {
        match self.fetch(idx) {
            Ok(Some(stored)) => self.spec.decode_into(stored, dests, &self.name(idx)).map(|()| None),
            other => self.decode_fetched(idx, other).map(Some),
        }
    }

    /// Decode a chunk as fetched (by `load`, or ahead of time); fill when absent.
    pub fn decode_fetched(&self, idx: &[u64], fetched: Fetched) -> NcResult<ChunkData> {
        // A missing codec is the error even for an absent chunk.
        self.spec.stored_limits()?;
        let stored = match fetched {
            Ok(Some(b)) => b,
            Ok(None) => return self.spec.fill_chunk(),
            Err(NcError::NcZarr) if self.spec.chain.is_some() => {
                crate::nclog!(
                    Level::Error,
                    "chunk {} is larger than any encoding of its data",
                    self.name(idx)
                );
                return Err(NcError::Filter);
            }
            Err(e) => return Err(e),
        };
        self.spec.decode_stored(stored, &self.name(idx))
    }

    /// Decode a chunk fetched ahead, or fetch and decode it now.
    pub fn load_with(&self, pre: &Prefetched, idx: &[u64]) -> NcResult<ChunkData> {
        match pre.take(idx) {
            Some(fetched) => self.decode_fetched(idx, fetched),
            None => self.load(idx),
        }
    }

    /// Read the parts `dests` of a chunk stored exactly as the caller holds
    /// its values (see `ChunkSpec::reads_in_place`) straight into them: each
    /// is (element offset in the chunk, destination). False when the chunk
    /// is absent (nothing written).
    pub fn read_in_place(&self, idx: &[u64], dests: Vec<(usize, &mut [u8])>) -> NcResult<bool> {
        let es = self.spec.ty.size() as u64;
        let mut parts: Vec<(u64, &mut [u8])> = dests.into_iter().map(|(at, d)| (at as u64 * es, d)).collect();
        self.source.read_parts(idx, self.spec.chunk_bytes() as u64, &mut parts)
    }

    /// For a source that overlaps requests (S3), start fetching the chunks
    /// of `idxs` that are not cached, all at once; other sources fetch in
    /// the jobs that decode (an empty result).
    pub fn prefetch<'i>(&self, idxs: impl Iterator<Item = &'i Vec<u64>>, cache: &ChunkCache) -> NcResult<Prefetched> {
        if !self.concurrent() {
            return Ok(Prefetched::default());
        }
        // (A missing codec: each load reports it.)
        let Ok(limits) = self.spec.stored_limits() else {
            return Ok(Prefetched::default());
        };
        let todo: Vec<&Vec<u64>> = idxs.filter(|idx| !cache.contains(idx)).collect();
        if todo.len() < 2 {
            return Ok(Prefetched::default());
        }
        // The requests overlap each other and the decoding: each job takes
        // its chunk the moment it has arrived.
        Prefetched::start(&*self.source, todo, limits.max_stored as u64)
    }

    /// Encode one chunk and store it. Bytes that need no transformation
    /// (no codec, native byte order, C order) are stored as they are.
    pub fn store(&self, idx: &[u64], data: &ChunkData) -> NcResult<()> {
        if let ChunkData::Bytes(b) = data
            && self.spec.stored_as_is(data)
        {
            return self.source.put(idx, b);
        }
        let raw = self.spec.encode(data)?;
        let r = self.source.put(idx, &raw);
        buffers::give(raw);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::super::chunk::tests::{spec, with_codecs};
    use super::super::source::{KeyEncoding, ObjectPerChunk};
    use super::*;
    use crate::model::types::NcType;
    use crate::storage::memory::MemoryStore;
    use crate::storage::{Key, Store};

    fn chunks(spec: ChunkSpec) -> (Arc<dyn Store>, VarChunks) {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let source = Arc::new(ObjectPerChunk::new(
            store.clone(),
            "v".into(),
            KeyEncoding::V2 { separator: '.' },
        ));
        (store, VarChunks { spec, source })
    }

    fn ints(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
        v.into_iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn absent_chunks_read_as_fill() {
        let mut s = spec(NcType::Int, &[4]);
        s.fill = 42i32.to_ne_bytes().to_vec();
        let (_, c) = chunks(s);
        assert_eq!(c.load(&[3]).unwrap(), ChunkData::Bytes(ints([42; 4])));
        let mut one = [0u8; 4];
        assert_eq!(c.read_in_place(&[3], vec![(1, &mut one[..])]), Ok(false));
    }

    #[test]
    fn stored_chunks_load_whole_in_part_and_in_place() {
        let (store, c) = chunks(spec(NcType::Int, &[8]));
        let data = ChunkData::Bytes(ints(0..8));
        c.store(&[1], &data).unwrap();
        assert_eq!(store.get(&Key::new("v/1").unwrap(), 64).unwrap(), Some(ints(0..8)));
        assert_eq!(c.load(&[1]).unwrap(), data);
        let (mut a, mut b) = ([0u8; 8], [0u8; 4]);
        assert_eq!(c.read_in_place(&[1], vec![(2, &mut a[..]), (7, &mut b[..])]), Ok(true));
        assert_eq!((&a[..], &b[..]), (&ints(2..4)[..], &ints(7..8)[..]));
        // A chunk of the wrong size is NC_ENCZARR either way.
        store.put(&Key::new("v/2").unwrap(), &[0; 12]).unwrap();
        assert_eq!(c.load(&[2]).err(), Some(NcError::NcZarr));
        assert_eq!(c.read_in_place(&[2], vec![(0, &mut b[..])]), Err(NcError::NcZarr));
    }

    #[test]
    fn compressed_chunks_load_in_part() {
        let (store, c) = chunks(with_codecs(
            spec(NcType::Int, &[4096]),
            &[serde_json::json!({"id": "zstd", "level": 1})],
        ));
        let vals = ints((0..4096).map(|i| i * 3));
        c.store(&[0], &ChunkData::Bytes(vals.clone())).unwrap();
        assert!(store.get(&Key::new("v/0").unwrap(), 1 << 20).unwrap().unwrap().len() < vals.len());
        let got = match c.load_part(&[0], &[(100, 110)]).unwrap() {
            Part::Range { first, bytes } => {
                assert_eq!(first, 100);
                bytes[..40].to_vec()
            }
            Part::Whole(ChunkData::Bytes(b)) => b[400..440].to_vec(),
            Part::Whole(_) => panic!("strings"),
        };
        assert_eq!(got, &vals[400..440]);
        // Absent: the whole chunk of fill.
        assert!(
            matches!(c.load_part(&[1], &[(0, 1)]).unwrap(), Part::Whole(ChunkData::Bytes(b)) if b == ints([0; 4096]))
        );
        // An object bigger than any encoding of a chunk is a filter error.
        store
            .put(
                &Key::new("v/2").unwrap(),
                &vec![0; 4096 * 4 + 4096 * 4 / 8 + (1 << 16) + 1],
            )
            .unwrap();
        assert_eq!(c.load(&[2]).err(), Some(NcError::Filter));
        store.put(&Key::new("v/3").unwrap(), b"not zstd").unwrap();
        assert_eq!(c.load(&[3]).err(), Some(NcError::Filter));
    }

    #[test]
    fn prefetch_only_where_requests_overlap() {
        let (_, c) = chunks(spec(NcType::Int, &[4]));
        let cache = ChunkCache::new(1 << 20, 100, 0.75);
        let idxs = [vec![0u64], vec![1u64]];
        let p = c.prefetch(idxs.iter(), &cache).unwrap();
        assert!(p.is_empty(), "a memory store reads in the jobs");
        assert_eq!(c.load_with(&p, &[0]).unwrap(), ChunkData::Bytes(ints([0; 4])));
    }
}
