//! The chunk source of sharded arrays (Zarr v3 `sharding_indexed`): the
//! engine's chunks are the inner chunks; each is a byte range of its shard
//! object, found through the shard's index (read once, then kept per
//! variable). A read fetches only the ranges it needs, neighbouring ranges of
//! a shard in one request; a write stores whole shards: a shard all of whose
//! chunks are written is stored without reading it, others are read,
//! merged and rewritten once per batch of chunks (`put_many`).
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use super::source::{Arriving, ChunkSource, Fetched, KeyEncoding};
use crate::codec::sharding::{IndexCache, ShardIndex, ShardLayout};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::runtime::pool;
use crate::storage::{Arrivals, Key, RangeAt, RangeRead, Store, StoreError};

/// Ranges of one shard closer than this are read as one request...
const MAX_GAP: u64 = 1 << 20;
/// ... as long as that request stays within this size. A request's body is
/// cut into its chunks as it arrives, so merging costs no copy; against
/// radosgw, the W4 zstd read of 1 GiB in 1.6 MiB inner chunks took 2.16 s
/// with 16 MiB requests and 3.49 s with 4 MiB (medians of 7 runs each on a
/// busy machine, zarrs 2.37 and 3.32 s in the same runs).
const MAX_REQUEST: u64 = 16 << 20;

/// Encoded inner chunks of one shard: (position in the shard, bytes).
type Parts = Vec<(usize, Vec<u8>)>;

/// The inner chunks of a sharded variable.
#[derive(Debug)]
pub(super) struct Sharded {
    store: Arc<dyn Store>,
    /// The variable's key (its folder).
    node: String,
    /// How a shard's index in the shard grid becomes its key.
    keys: KeyEncoding,
    layout: ShardLayout,
    /// The shard indexes read so far (kept by the variable).
    indexes: Arc<IndexCache>,
    /// The array's shape (which inner chunks hold elements).
    shape: Vec<usize>,
    /// Serialises the read-merge-write of shards.
    writing: Mutex<()>,
}

/// One byte range to read from a shard, and the chunks it serves:
/// (position in the request list, offset in the range, length).
struct Read {
    key: Key,
    offset: u64,
    len: u64,
    parts: Vec<(usize, u64, u64)>,
}

impl Sharded {
    pub fn new(
        store: Arc<dyn Store>,
        node: String,
        keys: KeyEncoding,
        layout: ShardLayout,
        indexes: Arc<IndexCache>,
        shape: Vec<usize>,
    ) -> Sharded {
        Sharded {
            store,
            node,
            keys,
            layout,
            indexes,
            shape,
            writing: Mutex::new(()),
        }
    }

    /// The object of shard `shard`.
    fn key(&self, shard: &[u64]) -> NcResult<Key> {
        let mut name = String::with_capacity(self.node.len() + 4 * shard.len() + 3);
        name.push_str(&self.node);
        name.push('/');
        self.keys.write(shard, &mut name).map_err(|_| NcError::Internal)?;
        Ok(Key::new(&name)?)
    }

    /// The index of shard `shard` (None: the shard is absent), in one
    /// request: a ranged read at the shard's start or end, which also tells
    /// the shard's size (no HEAD on S3).
    fn index(&self, shard: &[u64]) -> NcResult<Option<Arc<ShardIndex>>> {
        if let Some(ix) = self.indexes.get(shard) {
            return Ok(ix);
        }
        let key = self.key(shard)?;
        let at = if self.layout.index_at_start {
            RangeAt::Offset(0)
        } else {
            RangeAt::End
        };
        let fetched = self
            .store
            .get_range_sized(&key, at, self.layout.index_len())
            .map_err(|e| {
                if e == StoreError::Corrupt {
                    crate::nclog!(Level::Error, "shard {}: shorter than its index", key.as_str());
                }
                NcError::from(e)
            })?;
        let Some((bytes, len)) = fetched else {
            self.indexes.insert(shard.to_vec(), None);
            return Ok(None);
        };
        let ix = Arc::new(self.layout.decode_index(&bytes, len).inspect_err(|_| {
            crate::nclog!(Level::Error, "shard {}: bad index", key.as_str());
        })?);
        self.indexes.insert(shard.to_vec(), Some(ix.clone()));
        Ok(Some(ix))
    }

    /// Where inner chunk `idx` is: its shard's key and its byte range; None
    /// when absent. A range longer than `max_len` (more than any encoding of
    /// the chunk) is `NC_ENCZARR`, and is not read.
    fn locate(&self, idx: &[u64], max_len: u64) -> NcResult<Option<(Key, u64, u64)>> {
        let (shard, pos) = self.layout.locate(idx);
        let Some(ix) = self.index(&shard)? else {
            return Ok(None);
        };
        let Some((off, len)) = ix.get(pos) else {
            return Ok(None);
        };
        let key = self.key(&shard)?;
        if len > max_len {
            crate::nclog!(
                Level::Error,
                "shard {}: inner chunk {} has {} bytes, more than the {} its chunk may have",
                key.as_str(),
                pos,
                len,
                max_len
            );
            return Err(NcError::NcZarr);
        }
        Ok(Some((key, off, len)))
    }

    /// The positions of shard `shard`'s inner chunks that hold elements of
    /// the array (all of them, except in partial shards at its edges).
    fn live(&self, shard: &[u64]) -> Vec<bool> {
        let l = &self.layout;
        let inner = l.inner_of(shard);
        inner
            .iter()
            .map(|idx| {
                idx.iter()
                    .zip(&l.inner)
                    .zip(&self.shape)
                    .all(|((&i, &c), &n)| (i as usize).saturating_mul(c) < n)
            })
            .collect()
    }

    /// Store shard `shard` with these encoded inner chunks. Unless they
    /// cover every inner chunk that holds elements, the chunks already
    /// stored and not given are kept (read, merged, rewritten). A shard left
    /// with no chunk is deleted.
    fn write_shard(&self, shard: &[u64], parts: Parts) -> NcResult<()> {
        let key = self.key(shard)?;
        let l = &self.layout;
        let mut slots: Vec<Option<Vec<u8>>> = Vec::new();
        slots.try_reserve_exact(l.count).map_err(|_| NcError::NoMem)?;
        slots.resize(l.count, None);
        let mut given = vec![false; l.count];
        for &(pos, _) in &parts {
            *given.get_mut(pos).ok_or(NcError::Internal)? = true;
        }
        let complete = self.live(shard).iter().zip(&given).all(|(&live, &g)| g || !live);
        if !complete && let Some(ix) = self.index(shard)? {
            let len = self.store.len(&key)?.unwrap_or(0);
            let old = self.store.get(&key, len.max(l.index_len()))?.ok_or_else(|| {
                crate::nclog!(Level::Error, "shard {} vanished while rewritten", key.as_str());
                NcError::NcZarr
            })?;
            for (pos, slot) in slots.iter_mut().enumerate() {
                if let (Some((off, n)), false) = (ix.get(pos), given[pos]) {
                    let r = off as usize..(off + n) as usize;
                    *slot = Some(old.get(r).ok_or(NcError::NcZarr)?.to_vec());
                }
            }
        }
        for (pos, b) in parts {
            slots[pos] = Some(b);
        }
        // (Forgotten first: a failed write must not leave a stale index.)
        self.indexes.remove(shard);
        match l.encode_index(&slots)? {
            None => Ok(self.store.delete(&key)?),
            Some(index) => {
                // Chunks and index handed over as they are, never joined or
                // copied here (an S3 upload sends them from these buffers).
                let ix = {
                    let total = slots.iter().flatten().map(|p| p.len() as u64).sum::<u64>();
                    l.decode_index(&index, total + index.len() as u64)?
                };
                self.store.put_owned(&key, l.shard_parts(slots, index))?;
                self.indexes.insert(shard.to_vec(), Some(Arc::new(ix)));
                Ok(())
            }
        }
    }
}

impl ChunkSource for Sharded {
    fn fmt_name(&self, idx: &[u64], f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (shard, pos) = self.layout.locate(idx);
        write!(f, "{}/", self.node)?;
        self.keys.write(&shard, f)?;
        write!(f, " (inner chunk {pos})")
    }

    /// As the store: on S3, fetches go through `start_get_many`
    /// (neighbouring ranges coalesced); on files each job reads its own
    /// chunk's range (uncompressed parts straight into place). Writes go
    /// through `put_many` either way (`writes_together`).
    fn concurrent_requests(&self) -> bool {
        self.store.concurrent_requests()
    }

    fn writes_together(&self) -> bool {
        true
    }

    fn place(&self, idx: &[u64]) -> Option<(Vec<u64>, usize)> {
        Some(self.layout.locate(idx))
    }

    fn chunks_per_object(&self) -> usize {
        self.layout.count
    }

    fn get_into(&self, idx: &[u64], max_len: u64, buf: &mut Vec<u8>) -> NcResult<bool> {
        let Some((key, off, len)) = self.locate(idx, max_len)? else {
            return Ok(false);
        };
        if self.store.get_range_into(&key, off, len, buf)? {
            Ok(true)
        } else {
            crate::nclog!(Level::Error, "shard {} vanished while read", key.as_str());
            Err(NcError::NcZarr)
        }
    }

    /// Parts of an uncompressed inner chunk straight into place: ranges of
    /// the shard, read where it lies (`Store::read_ranges`: `preadv` on
    /// files, one ranged GET over the parts on S3).
    fn read_parts(&self, idx: &[u64], expect_len: u64, parts: &mut [(u64, &mut [u8])]) -> NcResult<bool> {
        let Some((key, off, len)) = self.locate(idx, expect_len)? else {
            return Ok(false);
        };
        if len != expect_len {
            crate::nclog!(
                Level::Error,
                "shard {}: inner chunk {:?} has {} bytes, expected {}",
                key.as_str(),
                idx,
                len,
                expect_len
            );
            return Err(NcError::NcZarr);
        }
        let mut in_shard = Vec::with_capacity(parts.len());
        for (at, dst) in parts.iter_mut() {
            if at.checked_add(dst.len() as u64).is_none_or(|end| end > len) {
                return Err(NcError::Internal);
            }
            in_shard.push((off + *at, &mut **dst));
        }
        if self.store.read_ranges(&key, &mut in_shard)? {
            Ok(true)
        } else {
            crate::nclog!(Level::Error, "shard {} vanished while read", key.as_str());
            Err(NcError::NcZarr)
        }
    }

    /// The indexes first, then the chunks' byte ranges, neighbours in one
    /// request, all requests started at once (`Store::start_get_ranges`):
    /// each chunk can be taken as soon as its range has arrived. An error
    /// is its chunk's.
    fn start_get_many(&self, idxs: &[&[u64]], max_len: u64) -> NcResult<Arriving> {
        let mut local: Vec<Option<Fetched>> = Vec::with_capacity(idxs.len());
        let mut by_shard: HashMap<Key, Vec<(usize, u64, u64)>> = HashMap::new();
        for (i, idx) in idxs.iter().enumerate() {
            match self.locate(idx, max_len) {
                Ok(Some((key, off, len))) => {
                    by_shard.entry(key).or_default().push((i, off, len));
                    local.push(None);
                }
                Ok(None) => local.push(Some(Ok(None))),
                Err(e) => local.push(Some(Err(e))),
            }
        }
        // The chunks fetched get slots of their own, in request order.
        let mut slot_of: Vec<Option<usize>> = vec![None; idxs.len()];
        let mut chunk_of: Vec<usize> = Vec::new();
        let reads: Vec<RangeRead> = by_shard
            .into_iter()
            .flat_map(|(k, r)| coalesce(k, r))
            .map(|r| RangeRead {
                key: r.key,
                offset: r.offset,
                len: r.len,
                pieces: r
                    .parts
                    .into_iter()
                    .map(|(i, at, n)| {
                        slot_of[i] = Some(chunk_of.len());
                        chunk_of.push(i);
                        (chunk_of.len() - 1, at, n)
                    })
                    .collect(),
            })
            .collect();
        let remote = self.store.start_get_ranges(chunk_of.len(), reads);
        Ok(Arriving::Ranged(Ranged {
            remote,
            slot_of,
            chunk_of,
            local: Mutex::new(local),
        }))
    }

    fn put(&self, idx: &[u64], data: &[u8]) -> NcResult<()> {
        self.put_many(vec![(idx, data.to_vec())])
            .pop()
            .unwrap_or(Err(NcError::Internal))
    }

    /// Each shard read (unless every chunk of it is given), merged and
    /// written once; the shards on the worker pool.
    fn put_many(&self, chunks: Vec<(&[u64], Vec<u8>)>) -> Vec<NcResult<()>> {
        let _serial = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        let n = chunks.len();
        // Shard -> (the chunks' numbers, their parts).
        let mut by_shard: HashMap<Vec<u64>, (Vec<usize>, Parts)> = HashMap::new();
        for (i, (idx, bytes)) in chunks.into_iter().enumerate() {
            let (shard, pos) = self.layout.locate(idx);
            let e = by_shard.entry(shard).or_default();
            e.0.push(i);
            e.1.push((pos, bytes));
        }
        let shards: Vec<_> = by_shard.into_iter().collect();
        let results = pool::run_jobs(shards, |(shard, (who, parts))| (who, self.write_shard(&shard, parts)));
        let mut out: Vec<NcResult<()>> = vec![Ok(()); n];
        for (who, r) in results {
            for i in who {
                out[i] = r;
            }
        }
        out
    }
}

/// The chunks of a `Sharded::start_get_many`: those fetched arrive through
/// the store (by slot); absent ones and errors found before fetching wait
/// here.
#[derive(Debug)]
pub(super) struct Ranged {
    remote: Arc<Arrivals>,
    /// Each chunk's slot in `remote`, when it is fetched.
    slot_of: Vec<Option<usize>>,
    /// Each slot's chunk.
    chunk_of: Vec<usize>,
    local: Mutex<Vec<Option<Fetched>>>,
}

impl Ranged {
    /// A fetched range: a shard that vanished since its index was read is
    /// `NC_ENCZARR` (its index said the chunk is there).
    fn arrived(r: crate::storage::Fetched) -> Fetched {
        match r {
            Ok(Some(b)) => Ok(Some(b)),
            Ok(None) => {
                crate::nclog!(Level::Error, "a shard vanished while read");
                Err(NcError::NcZarr)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Wait for chunk `i` and take it (taking it twice is an internal error).
    pub fn take(&self, i: usize) -> Fetched {
        match self.slot_of.get(i) {
            Some(Some(s)) => Ranged::arrived(self.remote.take(*s)),
            Some(None) => {
                let mut local = self.local.lock().unwrap_or_else(|p| p.into_inner());
                local
                    .get_mut(i)
                    .and_then(Option::take)
                    .unwrap_or(Err(NcError::Internal))
            }
            None => Err(NcError::Internal),
        }
    }

    /// The chunks known without fetching first, then each fetched one as it
    /// arrives; None when every one has been taken.
    pub fn take_any(&self) -> Option<(usize, Fetched)> {
        {
            let mut local = self.local.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(got) = local.iter_mut().enumerate().find_map(|(i, f)| f.take().map(|f| (i, f))) {
                return Some(got);
            }
        }
        let (s, r) = self.remote.take_any()?;
        Some((*self.chunk_of.get(s)?, Ranged::arrived(r)))
    }
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
    use crate::storage::memory::MemoryStore;

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

    /// A memory store that counts the calls a shard read makes.
    #[derive(Debug, Default)]
    struct Counting {
        inner: MemoryStore,
        lens: std::sync::atomic::AtomicUsize,
        sized: std::sync::atomic::AtomicUsize,
        ranges: std::sync::atomic::AtomicUsize,
    }

    impl Counting {
        fn count(c: &std::sync::atomic::AtomicUsize) -> usize {
            c.load(std::sync::atomic::Ordering::SeqCst)
        }
    }

    impl Store for Counting {
        fn get(&self, key: &Key, max_len: u64) -> crate::storage::StoreResult<Option<Vec<u8>>> {
            self.inner.get(key, max_len)
        }
        fn get_range(&self, key: &Key, offset: u64, len: u64) -> crate::storage::StoreResult<Option<Vec<u8>>> {
            self.ranges.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            self.inner.get_range(key, offset, len)
        }
        fn get_range_sized(
            &self,
            key: &Key,
            at: RangeAt,
            len: u64,
        ) -> crate::storage::StoreResult<Option<(Vec<u8>, u64)>> {
            self.sized.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            self.inner.get_range_sized(key, at, len)
        }
        fn len(&self, key: &Key) -> crate::storage::StoreResult<Option<u64>> {
            self.lens.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            self.inner.len(key)
        }
        fn put(&self, key: &Key, data: &[u8]) -> crate::storage::StoreResult<()> {
            self.inner.put(key, data)
        }
        fn delete(&self, key: &Key) -> crate::storage::StoreResult<()> {
            self.inner.delete(key)
        }
        fn list(&self, prefix: &Key) -> crate::storage::StoreResult<Vec<String>> {
            self.inner.list(prefix)
        }
        fn flush(&self, _level: crate::storage::Durability) -> crate::storage::StoreResult<()> {
            Ok(())
        }
        fn capabilities(&self) -> crate::storage::Capabilities {
            self.inner.capabilities()
        }
    }

    /// An index costs one request (no size query first) and is kept; parts
    /// of an inner chunk are read at their offsets, one range each read.
    #[test]
    fn index_once_then_parts_in_place() {
        let counting = Arc::new(Counting::default());
        let store: Arc<dyn Store> = counting.clone();
        source(&store)
            .put_many(vec![(&[0], b"abcd".to_vec()), (&[1], b"efgh".to_vec())])
            .into_iter()
            .for_each(|r| r.unwrap());
        let s = source(&store);
        let (mut x, mut y) = ([0u8; 1], [0u8; 2]);
        let mut parts: Vec<(u64, &mut [u8])> = vec![(2, &mut y[..]), (0, &mut x[..])];
        assert_eq!(s.read_parts(&[1], 4, &mut parts), Ok(true));
        assert_eq!((&x, &y), (b"e", b"gh"));
        let mut parts: Vec<(u64, &mut [u8])> = vec![(3, &mut x[..])];
        assert_eq!(s.read_parts(&[0], 4, &mut parts), Ok(true));
        assert_eq!(&x, b"d");
        assert_eq!(Counting::count(&counting.sized), 1, "one index fetch for shard c/0");
        assert_eq!(Counting::count(&counting.lens), 0, "no size query");
        assert_eq!(Counting::count(&counting.ranges), 2, "one range per read_parts");
        // Wrong size for an uncompressed chunk, absent chunk, absent shard.
        let mut z = [0u8; 1];
        let mut parts: Vec<(u64, &mut [u8])> = vec![(0, &mut z[..])];
        assert_eq!(s.read_parts(&[1], 5, &mut parts), Err(NcError::NcZarr));
        assert_eq!(s.read_parts(&[2], 4, &mut parts), Ok(false));
        let mut buf = vec![1u8; 9];
        assert_eq!(s.get_into(&[1], 4, &mut buf), Ok(true));
        assert_eq!(buf, b"efgh");
        assert_eq!(s.get_into(&[3], 4, &mut buf), Ok(false));
        assert_eq!(Counting::count(&counting.sized), 2, "shard c/1's absence learnt once");
        assert_eq!(s.get_into(&[2], 4, &mut buf), Ok(false));
        assert_eq!(Counting::count(&counting.sized), 2);
        // A shard shorter than its index.
        store.put(&Key::new("v/c/1").unwrap(), b"short").unwrap();
        assert_eq!(source(&store).get_into(&[2], 4, &mut buf), Err(NcError::NcZarr));
    }

    fn source(store: &Arc<dyn Store>) -> Sharded {
        Sharded::new(
            store.clone(),
            "v".into(),
            KeyEncoding::V3Default {
                separator: '/',
                zero_d: false,
            },
            ShardLayout::standard(vec![4], vec![2]).unwrap(),
            Arc::default(),
            vec![6],
        )
    }

    #[test]
    fn chunks_live_in_shards() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let s = source(&store);
        let mut buf = Vec::new();
        assert_eq!(s.get_into(&[1], 100, &mut buf), Ok(false));
        // Chunks 0 and 1 share shard c/0; chunk 2 is alone in the partial c/1.
        assert_eq!(
            s.put_many(vec![(&[0], b"ab".to_vec()), (&[2], b"ef".to_vec())]),
            vec![Ok(()), Ok(())]
        );
        s.put(&[1], b"cd").unwrap();
        let fresh = source(&store);
        for (i, want) in [(0u64, b"ab"), (1, b"cd"), (2, b"ef")] {
            assert_eq!(fresh.get_into(&[i], 100, &mut buf), Ok(true));
            assert_eq!(buf, want);
        }
        assert_eq!(
            fresh.get_into(&[0], 1, &mut buf),
            Err(NcError::NcZarr),
            "longer than allowed"
        );
        assert_eq!(store.list(&Key::new("v/c").unwrap()).unwrap(), vec!["0", "1"]);
        let a = fresh.start_get_many(&[&[2], &[3], &[0]], 100).unwrap();
        assert_eq!(a.take(0), Ok(Some(b"ef".to_vec())));
        assert_eq!(a.take(1), Ok(None));
        assert_eq!(a.take(2), Ok(Some(b"ab".to_vec())));
        // A shard written whole is not read: a corrupt old one does not matter.
        store.put(&Key::new("v/c/1").unwrap(), b"junk").unwrap();
        assert_eq!(fresh.put(&[2], b"gh"), Ok(()));
        assert_eq!(fresh.get_into(&[2], 100, &mut buf), Ok(true));
        assert_eq!(buf, b"gh");
    }
}
