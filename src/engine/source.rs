//! Chunk sources: where a variable's stored chunks live and how one is
//! fetched or stored, by chunk index. The engine's scheduling code sees only
//! the `ChunkSource` trait, so a new kind of source (the inner chunks of a
//! shard, say) is a new implementation here plus a line in `for_var`.
//!
//! The source every variable has today is `ObjectPerChunk`: one store
//! object per chunk, named by a `KeyEncoding` under the variable's key.
//! Zarr v3's `default` chunk key encoding (`c/1/0`) is one more
//! `KeyEncoding` variant. A sharded array's inner chunks are `shard::Sharded`:
//! its `get_into` reads the shard index (kept) and then the inner chunk's
//! byte range, its `object` is None, and its `put_many` rewrites each shard
//! once.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::error::{NcError, NcResult};
use crate::model::{ChunkKeys, Dataset, Var};
use std::sync::Mutex;

use crate::storage::{Arrivals, Key, Store};

/// One fetched chunk's stored bytes, or None when it is absent.
pub(super) type Fetched = NcResult<Option<Vec<u8>>>;

/// Where a variable's stored chunks live. Chunk indices are the chunk's
/// position in the chunk grid. Implementations are shared by the worker
/// threads: every method may be called from several threads at once, for
/// different chunks (a source whose chunks share an object serialises its
/// own read-modify-write).
pub(super) trait ChunkSource: Send + Sync + fmt::Debug {
    /// Write chunk `idx`'s name (its key) for log lines.
    fn fmt_name(&self, idx: &[u64], f: &mut fmt::Formatter<'_>) -> fmt::Result;

    /// Whether many requests in flight pay (S3): chunks are then fetched
    /// ahead with `start_get_many` and written in batches.
    fn concurrent_requests(&self) -> bool;

    /// The stored bytes of chunk `idx` into `buf` (cleared first, its memory
    /// reused). False when the chunk is absent. A chunk larger than
    /// `max_len` bytes is `NC_ENCZARR` and is never read into memory.
    fn get_into(&self, idx: &[u64], max_len: u64, buf: &mut Vec<u8>) -> NcResult<bool>;

    /// Parts of a chunk stored without codecs, straight into memory: each
    /// part is (byte offset in the chunk, destination); the chunk must be
    /// exactly `expect_len` bytes, else `NC_ENCZARR`. False when absent
    /// (nothing written). By default: one whole fetch, then copies.
    fn read_parts(&self, idx: &[u64], expect_len: u64, parts: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let mut buf = Vec::new();
        if !self.get_into(idx, expect_len, &mut buf)? {
            return Ok(false);
        }
        if buf.len() as u64 != expect_len {
            crate::nclog!(
                crate::log::Level::Error,
                "chunk {} has {} bytes, expected {}",
                ChunkName { source: self, idx },
                buf.len(),
                expect_len
            );
            return Err(NcError::NcZarr);
        }
        for (off, dst) in parts.iter_mut() {
            let at = usize::try_from(*off).map_err(|_| NcError::Internal)?;
            let src = at
                .checked_add(dst.len())
                .and_then(|end| buf.get(at..end))
                .ok_or(NcError::Internal)?;
            dst.copy_from_slice(src);
        }
        Ok(true)
    }

    /// Start fetching chunks `idxs` (each at most `max_len` bytes); each can
    /// be taken from the result, by its position in `idxs`, as soon as it
    /// has arrived. By default fetched here, one after the other.
    fn start_get_many(&self, idxs: &[&[u64]], max_len: u64) -> NcResult<Arriving> {
        let fetched = idxs
            .iter()
            .map(|idx| {
                let mut buf = Vec::new();
                Some(self.get_into(idx, max_len, &mut buf).map(|there| there.then_some(buf)))
            })
            .collect();
        Ok(Arriving::Fetched(Mutex::new(fetched)))
    }

    /// Store chunk `idx`, replacing it atomically (a reader sees the old
    /// or the new chunk, never a mixture).
    fn put(&self, idx: &[u64], data: &[u8]) -> NcResult<()>;

    /// Store chunk `idx` given as parts to concatenate (a chunk gathered from
    /// caller memory), as `put`. By default: joined, then `put`.
    fn put_parts(&self, idx: &[u64], parts: &[&[u8]]) -> NcResult<()> {
        let total = parts
            .iter()
            .try_fold(0usize, |a, p| a.checked_add(p.len()))
            .ok_or(NcError::NoMem)?;
        let mut joined = Vec::new();
        joined.try_reserve_exact(total).map_err(|_| NcError::NoMem)?;
        parts.iter().for_each(|p| joined.extend_from_slice(p));
        self.put(idx, &joined)
    }

    /// Whether chunks share stored objects (the inner chunks of a shard):
    /// the engine then stores them a batch at a time through `put_many`,
    /// never chunk by chunk in parallel.
    fn writes_together(&self) -> bool {
        false
    }

    /// Where chunk `idx` sits among chunks that share an object: (the
    /// object's position, the chunk's place in it); None (the default) when
    /// each chunk is an object of its own. Writes sort their chunks by it,
    /// so that a batch holds whole objects.
    fn place(&self, idx: &[u64]) -> Option<(Vec<u64>, usize)> {
        let _ = idx;
        None
    }

    /// Chunks per shared object (1: none is shared).
    fn chunks_per_object(&self) -> usize {
        1
    }

    /// Store several chunks, as `put` each (by default one after the
    /// other); one result per chunk, in order.
    fn put_many(&self, chunks: Vec<(&[u64], Vec<u8>)>) -> Vec<NcResult<()>> {
        chunks.iter().map(|(idx, b)| self.put(idx, b)).collect()
    }

    /// The store object that holds chunk `idx` and nothing else, when the
    /// source keeps each chunk as an object of its own in the dataset's
    /// store: such chunks, of any variable, may then be written together in
    /// one `Store::put_many` (concurrent requests on S3). None (the
    /// default): the chunk is written through `put`.
    fn object(&self, idx: &[u64]) -> Option<NcResult<Key>> {
        let _ = idx;
        None
    }
}

/// A chunk's name for log lines, written only when a line is.
pub(super) struct ChunkName<'a, S: ChunkSource + ?Sized> {
    pub source: &'a S,
    pub idx: &'a [u64],
}

impl<S: ChunkSource + ?Sized> fmt::Display for ChunkName<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.source.fmt_name(self.idx, f)
    }
}

/// How a chunk index becomes the name of its object under the variable's
/// key (`write` is the one place that spells it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyEncoding {
    /// Zarr v2: the indices joined by the separator (`.` or `/`): `1.0.3`.
    V2 { separator: char },
    /// Zarr v3 `default`: `c` then each index after the separator
    /// (`c/1/0`, `c.1.0`); just `c` for a 0-d array (`zero_d`), whose one
    /// chunk the engine calls `[0]`.
    V3Default { separator: char, zero_d: bool },
}

impl KeyEncoding {
    /// Write the name of chunk `idx` (without the variable's key).
    pub fn write(&self, idx: &[u64], f: &mut impl fmt::Write) -> fmt::Result {
        match *self {
            KeyEncoding::V2 { separator } => {
                for (i, c) in idx.iter().enumerate() {
                    if i > 0 {
                        f.write_char(separator)?;
                    }
                    write!(f, "{c}")?;
                }
                Ok(())
            }
            KeyEncoding::V3Default { separator, zero_d } => {
                f.write_char('c')?;
                if !zero_d {
                    for c in idx {
                        f.write_char(separator)?;
                        write!(f, "{c}")?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// One store object per chunk: `<variable key>/<encoded index>`.
#[derive(Debug)]
pub(super) struct ObjectPerChunk {
    store: Arc<dyn Store>,
    /// The variable's key (its folder).
    node: String,
    keys: KeyEncoding,
}

impl ObjectPerChunk {
    pub fn new(store: Arc<dyn Store>, node: String, keys: KeyEncoding) -> ObjectPerChunk {
        ObjectPerChunk { store, node, keys }
    }

    /// The object that holds chunk `idx`.
    pub fn key(&self, idx: &[u64]) -> NcResult<Key> {
        let mut name = String::with_capacity(self.node.len() + 4 * idx.len() + 1);
        name.push_str(&self.node);
        name.push('/');
        self.keys.write(idx, &mut name).map_err(|_| NcError::Internal)?;
        Ok(Key::new(&name)?)
    }
}

impl ChunkSource for ObjectPerChunk {
    fn fmt_name(&self, idx: &[u64], f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/", self.node)?;
        self.keys.write(idx, f)
    }

    fn concurrent_requests(&self) -> bool {
        self.store.concurrent_requests()
    }

    fn get_into(&self, idx: &[u64], max_len: u64, buf: &mut Vec<u8>) -> NcResult<bool> {
        Ok(self.store.get_into(&self.key(idx)?, max_len, buf)?)
    }

    fn read_parts(&self, idx: &[u64], expect_len: u64, parts: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        Ok(self.store.read_parts(&self.key(idx)?, expect_len, parts)?)
    }

    fn start_get_many(&self, idxs: &[&[u64]], max_len: u64) -> NcResult<Arriving> {
        let keys = idxs
            .iter()
            .map(|idx| Ok((self.key(idx)?, max_len)))
            .collect::<NcResult<Vec<_>>>()?;
        Ok(Arriving::Store(self.store.start_get_many(keys)))
    }

    fn put(&self, idx: &[u64], data: &[u8]) -> NcResult<()> {
        Ok(self.store.put(&self.key(idx)?, data)?)
    }

    fn put_parts(&self, idx: &[u64], parts: &[&[u8]]) -> NcResult<()> {
        Ok(self.store.put_parts(&self.key(idx)?, parts)?)
    }

    fn object(&self, idx: &[u64]) -> Option<NcResult<Key>> {
        Some(self.key(idx))
    }
}

/// The chunk source of variable `var`, whose key is `node`: the one place
/// that chooses a variable's kind of source and key encoding.
pub(super) fn for_var(ds: &Dataset, var: &Var, node: &str) -> Arc<dyn ChunkSource> {
    let keys = match var.chunk_keys {
        ChunkKeys::V2 => KeyEncoding::V2 {
            separator: var.dim_separator,
        },
        ChunkKeys::V3Default => KeyEncoding::V3Default {
            separator: var.dim_separator,
            zero_d: var.is_scalar(),
        },
    };
    if let Some(layout) = &var.shards {
        return Arc::new(super::shard::Sharded::new(
            ds.store.clone(),
            node.to_string(),
            keys,
            layout.clone(),
            var.shard_indexes.clone(),
            ds.var_shape(var),
        ));
    }
    Arc::new(ObjectPerChunk::new(ds.store.clone(), node.to_string(), keys))
}

/// The chunks of a `ChunkSource::start_get_many`, each taken once, by its
/// position, waiting until it is there.
#[derive(Debug)]
pub(super) enum Arriving {
    /// Fetched by the store, concurrently, as they arrive.
    Store(Arc<Arrivals>),
    /// Fetched already (None once taken).
    Fetched(Mutex<Vec<Option<Fetched>>>),
    /// Byte ranges of shards, fetched concurrently, as they arrive.
    Ranged(super::shard::Ranged),
}

impl Arriving {
    /// Wait for chunk `i` and take it (taking it twice is an internal error).
    pub fn take(&self, i: usize) -> Fetched {
        match self {
            Arriving::Store(a) => Ok(a.take(i)?),
            Arriving::Ranged(r) => r.take(i),
            Arriving::Fetched(v) => {
                let mut v = v.lock().unwrap_or_else(|p| p.into_inner());
                v.get_mut(i).and_then(Option::take).unwrap_or(Err(NcError::Internal))
            }
        }
    }

    /// Wait until some chunk not taken yet is there and take it, with its
    /// position; None when every one has been taken.
    pub fn take_any(&self) -> Option<(usize, Fetched)> {
        match self {
            Arriving::Store(a) => a.take_any().map(|(i, r)| (i, r.map_err(NcError::from))),
            Arriving::Ranged(r) => r.take_any(),
            Arriving::Fetched(v) => {
                let mut v = v.lock().unwrap_or_else(|p| p.into_inner());
                v.iter_mut().enumerate().find_map(|(i, f)| f.take().map(|f| (i, f)))
            }
        }
    }
}

/// Chunks whose fetching started ahead of their decoding (`start_get_many`):
/// each is taken once, by whoever decodes it, waiting until it is there.
#[derive(Debug, Default)]
pub(super) struct Prefetched {
    arrivals: Option<Arriving>,
    /// Each chunk's position in the fetch.
    slots: HashMap<Vec<u64>, usize>,
}

impl Prefetched {
    /// Start fetching `idxs` (each at most `max_len` bytes).
    pub fn start(source: &dyn ChunkSource, idxs: Vec<&Vec<u64>>, max_len: u64) -> NcResult<Prefetched> {
        let slices: Vec<&[u64]> = idxs.iter().map(|i| i.as_slice()).collect();
        let arrivals = source.start_get_many(&slices, max_len)?;
        let slots = idxs.into_iter().enumerate().map(|(i, idx)| (idx.clone(), i)).collect();
        Ok(Prefetched {
            arrivals: Some(arrivals),
            slots,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn contains(&self, idx: &[u64]) -> bool {
        self.slots.contains_key(idx)
    }

    /// Chunk `idx`'s position in the fetch (as `take_any` reports it).
    pub fn slot(&self, idx: &[u64]) -> Option<usize> {
        self.slots.get(idx).copied()
    }

    /// Wait for chunk `idx` and take it; None when it was not fetched ahead.
    pub fn take(&self, idx: &[u64]) -> Option<Fetched> {
        let i = self.slot(idx)?;
        Some(self.arrivals.as_ref().map_or(Err(NcError::Internal), |a| a.take(i)))
    }

    /// Wait until some chunk not taken yet has arrived and take it, with its
    /// position; None when every one has been taken.
    pub fn take_any(&self) -> Option<(usize, Fetched)> {
        self.arrivals.as_ref()?.take_any()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::memory::MemoryStore;

    fn source(sep: char) -> (Arc<dyn Store>, ObjectPerChunk) {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let s = ObjectPerChunk::new(store.clone(), "g/v".into(), KeyEncoding::V2 { separator: sep });
        (store, s)
    }

    #[test]
    fn v2_keys() {
        let (_, s) = source('.');
        assert_eq!(s.key(&[1, 0, 12]).unwrap().as_str(), "g/v/1.0.12");
        assert_eq!(s.key(&[0]).unwrap().as_str(), "g/v/0");
        let (_, s) = source('/');
        assert_eq!(s.key(&[3, 4]).unwrap().as_str(), "g/v/3/4");
        assert_eq!(
            ChunkName {
                source: &s,
                idx: &[3, 4]
            }
            .to_string(),
            "g/v/3/4"
        );
    }

    #[test]
    fn v3_keys() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let k = |separator, zero_d, idx: &[u64]| {
            let s = ObjectPerChunk::new(
                store.clone(),
                "g/v".into(),
                KeyEncoding::V3Default { separator, zero_d },
            );
            s.key(idx).unwrap().as_str().to_string()
        };
        assert_eq!(k('/', false, &[0, 12]), "g/v/c/0/12");
        assert_eq!(k('.', false, &[1, 2]), "g/v/c.1.2");
        assert_eq!(k('/', true, &[0]), "g/v/c");
    }

    #[test]
    fn chunks_are_objects() {
        let (store, s) = source('.');
        let mut buf = vec![9; 3];
        assert_eq!(s.get_into(&[0, 1], 100, &mut buf), Ok(false));
        s.put(&[0, 1], b"abcdef").unwrap();
        assert_eq!(
            store.get(&Key::new("g/v/0.1").unwrap(), 100).unwrap().as_deref(),
            Some(&b"abcdef"[..])
        );
        assert_eq!(s.get_into(&[0, 1], 100, &mut buf), Ok(true));
        assert_eq!(buf, b"abcdef");
        assert_eq!(s.get_into(&[0, 1], 5, &mut buf), Err(NcError::NcZarr));
        s.put_parts(&[1, 1], &[b"ab", b"", b"cd"]).unwrap();
        let (mut a, mut b) = ([0u8; 1], [0u8; 2]);
        let mut parts: Vec<(u64, &mut [u8])> = vec![(0, &mut a), (2, &mut b)];
        assert_eq!(s.read_parts(&[1, 1], 4, &mut parts), Ok(true));
        assert_eq!((a, b), ([b'a'], *b"cd"));
        // The expected size is checked; an absent chunk writes nothing.
        let mut parts: Vec<(u64, &mut [u8])> = vec![(0, &mut a)];
        assert_eq!(s.read_parts(&[1, 1], 5, &mut parts), Err(NcError::NcZarr));
        assert_eq!(s.read_parts(&[7, 7], 4, &mut parts), Ok(false));
        assert_eq!(
            s.object(&[2, 0]).map(|k| k.unwrap().as_str().to_string()).as_deref(),
            Some("g/v/2.0")
        );
        assert_eq!(store.list(&Key::new("g/v").unwrap()).unwrap(), vec!["0.1", "1.1"]);
    }

    #[test]
    fn prefetched_chunks_are_taken_once() {
        let (_, s) = source('.');
        s.put(&[0], b"zero").unwrap();
        s.put(&[2], b"two").unwrap();
        let (i0, i1, i2) = (vec![0u64], vec![1u64], vec![2u64]);
        let p = Prefetched::start(&s, vec![&i0, &i1, &i2], 100).unwrap();
        assert_eq!((p.len(), p.contains(&[1]), p.contains(&[3])), (3, true, false));
        assert_eq!(p.take(&[2]), Some(Ok(Some(b"two".to_vec()))));
        assert_eq!(p.take(&[2]), Some(Err(NcError::Internal)));
        assert_eq!(p.take(&[3]), None);
        let mut rest: Vec<(usize, Fetched)> = std::iter::from_fn(|| p.take_any()).collect();
        rest.sort_by_key(|r| r.0);
        assert_eq!(rest, vec![(0, Ok(Some(b"zero".to_vec()))), (1, Ok(None))]);
        assert!(Prefetched::default().take_any().is_none());
    }

    /// A source of its own kind (chunks kept in a map), to show that the
    /// trait's defaults make a complete source.
    #[derive(Debug, Default)]
    struct MapSource(std::sync::Mutex<HashMap<Vec<u64>, Vec<u8>>>);

    impl ChunkSource for MapSource {
        fn fmt_name(&self, idx: &[u64], f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "map{idx:?}")
        }
        fn concurrent_requests(&self) -> bool {
            false
        }
        fn get_into(&self, idx: &[u64], max_len: u64, buf: &mut Vec<u8>) -> NcResult<bool> {
            let m = self.0.lock().unwrap();
            let Some(b) = m.get(idx) else { return Ok(false) };
            if b.len() as u64 > max_len {
                return Err(NcError::NcZarr);
            }
            buf.clear();
            buf.extend_from_slice(b);
            Ok(true)
        }
        fn put(&self, idx: &[u64], data: &[u8]) -> NcResult<()> {
            self.0.lock().unwrap().insert(idx.to_vec(), data.to_vec());
            Ok(())
        }
    }

    #[test]
    fn trait_defaults_make_a_source() {
        let s = MapSource::default();
        s.put_parts(&[0], &[b"ab", b"cd"]).unwrap();
        s.put(&[1], b"efgh").unwrap();
        assert!(s.object(&[1]).is_none());
        let mut a = [0u8; 2];
        let mut parts: Vec<(u64, &mut [u8])> = vec![(1, &mut a)];
        assert_eq!(s.read_parts(&[1], 4, &mut parts), Ok(true));
        assert_eq!(&a, b"fg");
        let mut parts: Vec<(u64, &mut [u8])> = vec![(1, &mut a)];
        assert_eq!(s.read_parts(&[1], 3, &mut parts), Err(NcError::NcZarr));
        let (i0, i2) = (vec![0u64], vec![2u64]);
        let p = Prefetched::start(&s, vec![&i0, &i2], 10).unwrap();
        assert_eq!(p.take(&[0]), Some(Ok(Some(b"abcd".to_vec()))));
        assert_eq!(p.take(&[2]), Some(Ok(None)));
    }
}
