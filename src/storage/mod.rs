//! Object storage behind a dataset. Knows nothing of netCDF or Zarr: a store
//! maps validated keys (`a/b/.zarray`, `v/0.1`) to byte objects.
//!
//! A missing object is `Ok(None)`, never an error. Errors are [`StoreError`]s,
//! a few kinds shared by every backend (`crate::error` maps them to netCDF
//! errors). Which objects make a dataset, and so what `create` may replace,
//! is decided above this layer and passed in as a [`Replace`]. Every backend
//! passes the one conformance suite in `tests/storage_conformance.rs`.
#![forbid(unsafe_code)]

pub mod error;
pub mod file;
pub mod memory;
pub mod s3;
mod syncer;
pub mod zip;

pub use error::{StoreError, StoreResult};

/// One fetched object: its bytes, or None when absent.
pub type Fetched = StoreResult<Option<Vec<u8>>>;

/// The objects of a `Store::start_get_many`, as they arrive: each is taken
/// once, by whoever needs it, waiting until it is there.
#[derive(Debug)]
pub struct Arrivals {
    slots: std::sync::Mutex<Vec<Slot>>,
    ready: std::sync::Condvar,
}

#[derive(Debug)]
enum Slot {
    Pending,
    Ready(Fetched),
    Taken,
}

impl Arrivals {
    pub fn new(n: usize) -> std::sync::Arc<Arrivals> {
        std::sync::Arc::new(Arrivals {
            slots: std::sync::Mutex::new((0..n).map(|_| Slot::Pending).collect()),
            ready: std::sync::Condvar::new(),
        })
    }

    /// Object `i` has arrived (a second delivery is ignored).
    pub fn deliver(&self, i: usize, r: Fetched) {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s @ Slot::Pending) = slots.get_mut(i) {
            *s = Slot::Ready(r);
            self.ready.notify_all();
        }
    }

    /// Every object not delivered yet fails with `e` (the fetcher stopped).
    pub fn fail_pending(&self, e: StoreError) {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        for s in slots.iter_mut() {
            if matches!(s, Slot::Pending) {
                *s = Slot::Ready(Err(e));
            }
        }
        self.ready.notify_all();
    }

    /// Wait until some object not taken yet is there and take it (the
    /// lowest-numbered of those there); None when every object has been
    /// taken.
    pub fn take_any(&self) -> Option<(usize, Fetched)> {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(i) = slots.iter().position(|s| matches!(s, Slot::Ready(_)))
                && let Slot::Ready(r) = std::mem::replace(&mut slots[i], Slot::Taken)
            {
                return Some((i, r));
            }
            if !slots.iter().any(|s| matches!(s, Slot::Pending)) {
                return None;
            }
            slots = self.ready.wait(slots).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Wait for object `i` and take it.
    pub fn take(&self, i: usize) -> Fetched {
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            match slots.get_mut(i) {
                None | Some(Slot::Taken) => return Err(StoreError::Internal),
                Some(Slot::Pending) => {
                    slots = self.ready.wait(slots).unwrap_or_else(|p| p.into_inner());
                }
                Some(s @ Slot::Ready(_)) => {
                    let Slot::Ready(r) = std::mem::replace(s, Slot::Taken) else {
                        return Err(StoreError::Internal);
                    };
                    return r;
                }
            }
        }
    }
}

/// One request of `Store::start_get_ranges`: `len` bytes of `key` from
/// `offset`, cut into pieces that each arrive in a slot of their own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeRead {
    pub key: Key,
    pub offset: u64,
    pub len: u64,
    /// (slot, offset in the range, length) of each piece.
    pub pieces: Vec<(usize, u64, u64)>,
}

impl RangeRead {
    /// Hand the range's result to its pieces: each gets its bytes (a piece
    /// that is the whole range gets the buffer itself), None when the
    /// object is absent, or the error.
    pub fn deliver(&self, arrivals: &Arrivals, got: Fetched) {
        match got {
            Ok(Some(bytes)) if matches!(self.pieces[..], [(_, 0, n)] if n == bytes.len() as u64) => {
                arrivals.deliver(self.pieces[0].0, Ok(Some(bytes)));
            }
            Ok(Some(bytes)) => {
                for &(slot, at, n) in &self.pieces {
                    let piece = usize::try_from(at)
                        .ok()
                        .zip(usize::try_from(n).ok())
                        .and_then(|(at, n)| bytes.get(at..at.checked_add(n)?));
                    arrivals.deliver(slot, piece.map(|p| Some(p.to_vec())).ok_or(StoreError::Internal));
                }
            }
            Ok(None) => self
                .pieces
                .iter()
                .for_each(|&(slot, _, _)| arrivals.deliver(slot, Ok(None))),
            Err(e) => self
                .pieces
                .iter()
                .for_each(|&(slot, _, _)| arrivals.deliver(slot, Err(e))),
        }
    }
}

/// The largest metadata object (JSON) the library will read: 64 MiB.
pub const MAX_METADATA_BYTES: u64 = 64 << 20;

/// A validated object key: '/'-separated segments, no leading or trailing '/',
/// no empty, `.` or `..` segment, no NUL or backslash. The root is the empty key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(String);

impl Key {
    pub fn root() -> Key {
        Key(String::new())
    }

    /// Validate a key (leading '/' tolerated and dropped).
    pub fn new(s: &str) -> StoreResult<Key> {
        let s = s.strip_prefix('/').unwrap_or(s);
        if s.is_empty() {
            return Ok(Key::root());
        }
        for seg in s.split('/') {
            if seg.is_empty() || seg == "." || seg == ".." || seg.contains(['\0', '\\']) {
                crate::nclog!(crate::log::Level::Error, "invalid storage key {:?}", s);
                return Err(StoreError::InvalidKey);
            }
        }
        Ok(Key(s.to_string()))
    }

    /// This key with one more segment (validated).
    pub fn join(&self, seg: &str) -> StoreResult<Key> {
        if self.0.is_empty() {
            Key::new(seg)
        } else {
            Key::new(&format!("{}/{}", self.0, seg))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|s| !s.is_empty())
    }
}

/// What creating a dataset does when something is already at its place (a
/// directory, an archive, objects below a key prefix).
#[derive(Clone, Copy)]
pub enum Replace<'a> {
    /// Nothing is replaced: `StoreError::AlreadyExists` (NC_NOCLOBBER).
    Never,
    /// What is there is replaced when the caller recognises it: the
    /// function gets the names at its root (as `Store::list` gives them) and
    /// says whether it may be destroyed. Otherwise `StoreError::AlreadyExists`
    /// and it is left untouched. (Each backend documents what it replaces
    /// without asking: an empty directory, a plain file or a link where a
    /// directory dataset goes, an archive file.)
    IfRoot(&'a dyn Fn(&[String]) -> bool),
}

impl std::fmt::Debug for Replace<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Replace::Never => f.write_str("Replace::Never"),
            Replace::IfRoot(_) => f.write_str("Replace::IfRoot(..)"),
        }
    }
}

impl Replace<'_> {
    /// Whether an existing container whose root holds `names` may go.
    pub fn allows(&self, names: &[String]) -> bool {
        match self {
            Replace::Never => false,
            Replace::IfRoot(ours) => ours(names),
        }
    }
}

/// How a batch of objects is written: replacing whatever is there
/// ([`Store::put`]), or as objects that are new ([`Store::put_new`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    Replace,
    New,
}

/// How far [`Store::flush`] goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Complete and visible: every object written is in place (each write is
    /// already atomic; a backend that collects writes, such as a zip
    /// archive, writes them out), so a process killed afterwards loses
    /// nothing that a reader saw. Nothing is forced to the disk.
    Visible,
    /// Also on stable storage: the objects this store wrote since its last
    /// stable flush, and the directory entries that name them, survive an
    /// operating-system crash or a power loss.
    Stable,
}

/// Where a ranged read of a known length lies in its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeAt {
    /// From this byte offset.
    Offset(u64),
    /// The last bytes of the object (a shard index at its end).
    End,
}

/// What a backend can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// Objects can be written once only (zip as netcdf-c writes it).
    pub write_once: bool,
    /// Ranged reads are cheap (no need to fetch a whole object for a part of it).
    pub ranged_reads: bool,
}

/// A byte-object store. Implementations are thread-safe: the engine reads and
/// writes chunks from several threads at once.
pub trait Store: Send + Sync + std::fmt::Debug {
    /// The whole object, or None when absent. An object larger than `max_len`
    /// is `StoreError::Corrupt` and is never read into memory.
    fn get(&self, key: &Key, max_len: u64) -> StoreResult<Option<Vec<u8>>>;

    /// Like `get`, but into `buf` (cleared first), reusing its memory.
    /// Returns false when the object is absent.
    fn get_into(&self, key: &Key, max_len: u64, buf: &mut Vec<u8>) -> StoreResult<bool> {
        match self.get(key, max_len)? {
            Some(b) => {
                *buf = b;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// `len` bytes from `offset`, or None when the object is absent. A range
    /// past the end of the object is `StoreError::Corrupt` (a truncated object).
    fn get_range(&self, key: &Key, offset: u64, len: u64) -> StoreResult<Option<Vec<u8>>>;

    /// Read parts of an object straight into caller memory: each part is
    /// (offset in the object, destination), parts do not overlap. The object
    /// must be exactly `expect_len` bytes long (an uncompressed chunk), else
    /// `StoreError::Corrupt`. Returns false when the object is absent (nothing written).
    /// By default: one whole `get`, then copies; backends that can read ranges
    /// in place (files: `preadv`) do better.
    fn read_parts(&self, key: &Key, expect_len: u64, parts: &mut [(u64, &mut [u8])]) -> StoreResult<bool> {
        let Some(obj) = self.get(key, expect_len)? else {
            return Ok(false);
        };
        copy_parts(key, &obj, expect_len, parts)?;
        Ok(true)
    }

    /// Like `get_range`, but into `buf` (cleared first), reusing its memory.
    /// Returns false when the object is absent.
    fn get_range_into(&self, key: &Key, offset: u64, len: u64, buf: &mut Vec<u8>) -> StoreResult<bool> {
        match self.get_range(key, offset, len)? {
            Some(b) => {
                *buf = b;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// `len` bytes at `at` and the size of the whole object, or None when
    /// the object is absent; an object too short for the range is
    /// `StoreError::Corrupt`. By default `len`, then `get_range`; S3 asks
    /// once (a ranged GET tells the object's size).
    fn get_range_sized(&self, key: &Key, at: RangeAt, len: u64) -> StoreResult<Option<(Vec<u8>, u64)>> {
        let Some(size) = self.len(key)? else {
            return Ok(None);
        };
        let offset = match at {
            RangeAt::Offset(o) => o,
            RangeAt::End => size.checked_sub(len).ok_or_else(|| {
                crate::nclog!(
                    crate::log::Level::Error,
                    "{}: {} bytes, fewer than the {} asked for at its end",
                    key.as_str(),
                    size,
                    len
                );
                StoreError::Corrupt
            })?,
        };
        Ok(self.get_range(key, offset, len)?.map(|b| (b, size)))
    }

    /// Read parts of an object at their offsets straight into caller memory
    /// (parts do not overlap; unlike `read_parts`, the object's size is not
    /// fixed). A part past the object's end is `StoreError::Corrupt`.
    /// Returns false when the object is absent (nothing written). By
    /// default one `get_range` over the parts' span, then copies; files read
    /// in place (`preadv`).
    fn read_ranges(&self, key: &Key, parts: &mut [(u64, &mut [u8])]) -> StoreResult<bool> {
        let Some(span) = span_of(parts) else {
            return Ok(self.len(key)?.is_some());
        };
        let Some(bytes) = self.get_range(key, span.start, span.end - span.start)? else {
            return Ok(false);
        };
        for (off, dst) in parts.iter_mut() {
            let at = usize::try_from(*off - span.start).map_err(|_| StoreError::Internal)?;
            let src = at
                .checked_add(dst.len())
                .and_then(|end| bytes.get(at..end))
                .ok_or(StoreError::Internal)?;
            dst.copy_from_slice(src);
        }
        Ok(true)
    }

    /// Size of an object, or None when absent.
    fn len(&self, key: &Key) -> StoreResult<Option<u64>>;

    /// Write an object, replacing any previous one atomically: a reader sees
    /// the old or the new content, never a mixture, and a crash leaves one of the two.
    fn put(&self, key: &Key, data: &[u8]) -> StoreResult<()>;

    /// Write an object that is new: nothing is stored at `key` yet, and the
    /// format makes a reader reject the object if it finds it half-written
    /// (a writer killed midway), as it rejects any invalid object. A store
    /// may then write it in place, without `put`'s temporary object; if
    /// something is at `key` after all, it is replaced as `put` replaces.
    /// A failed write leaves nothing at `key`. By default: `put`.
    fn put_new(&self, key: &Key, data: &[u8]) -> StoreResult<()> {
        self.put(key, data)
    }

    /// Write an object given as parts to concatenate (a chunk gathered from
    /// caller memory), with `put`'s atomicity. By default: joined, then `put`.
    fn put_parts(&self, key: &Key, parts: &[&[u8]]) -> StoreResult<()> {
        let total = parts
            .iter()
            .try_fold(0usize, |a, p| a.checked_add(p.len()))
            .ok_or(StoreError::OutOfMemory)?;
        let mut joined = Vec::new();
        joined.try_reserve_exact(total).map_err(|_| StoreError::OutOfMemory)?;
        for p in parts {
            joined.extend_from_slice(p);
        }
        self.put(key, &joined)
    }

    /// `put_parts` of parts the store may keep: a store that sends data
    /// from its own buffers (S3) takes them as they are instead of copying.
    fn put_owned(&self, key: &Key, parts: Vec<Vec<u8>>) -> StoreResult<()> {
        let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        self.put_parts(key, &parts)
    }

    /// Delete an object, or every object below `key` when it is a prefix. Absent is fine.
    fn delete(&self, key: &Key) -> StoreResult<()>;

    /// Names of the immediate children of `prefix` (one segment each, sorted):
    /// objects and "directories" that lead to objects.
    fn list(&self, prefix: &Key) -> StoreResult<Vec<String>>;

    /// Whether `get_many`/`put_many` are faster than `get`/`put` called from
    /// a few threads (a backend with network round trips that it overlaps: S3).
    fn concurrent_requests(&self) -> bool {
        false
    }

    /// Several whole objects (each with its size limit), in order; by
    /// default one after the other. Backends whose `concurrent_requests` is true
    /// issue the requests concurrently.
    fn get_many(&self, keys: &[(Key, u64)]) -> Vec<StoreResult<Option<Vec<u8>>>> {
        keys.iter().map(|(k, max)| self.get(k, *max)).collect()
    }

    /// Start fetching several whole objects; each can be taken from the
    /// result as soon as it has arrived, so decoding overlaps the transfer of
    /// the rest. By default they are fetched here, before returning.
    fn start_get_many(&self, keys: Vec<(Key, u64)>) -> std::sync::Arc<Arrivals> {
        let arrivals = Arrivals::new(keys.len());
        for (i, r) in self.get_many(&keys).into_iter().enumerate() {
            arrivals.deliver(i, r);
        }
        arrivals
    }

    /// Start fetching ranges of objects (the inner chunks of shards); each
    /// piece can be taken from its slot of the result (`slots` slots, each
    /// filled by one piece) as soon as its range has arrived, None when the
    /// object is absent. By default fetched here, one after the other;
    /// backends whose `concurrent_requests` is true issue them concurrently.
    fn start_get_ranges(&self, slots: usize, reads: Vec<RangeRead>) -> std::sync::Arc<Arrivals> {
        let arrivals = Arrivals::new(slots);
        for r in &reads {
            r.deliver(&arrivals, self.get_range(&r.key, r.offset, r.len));
        }
        // (A slot no piece names must not be waited for forever.)
        arrivals.fail_pending(StoreError::Internal);
        arrivals
    }

    /// Write several objects, as `put` each; one result per object, in order.
    /// Backends whose `concurrent_requests` is true issue them concurrently.
    fn put_many(&self, objs: &[(Key, Vec<u8>)]) -> Vec<StoreResult<()>> {
        objs.iter().map(|(k, b)| self.put(k, b)).collect()
    }

    /// `put_many` of objects the store may keep: a store that sends data
    /// from its own buffers (S3) takes them as they are instead of copying.
    fn put_many_owned(&self, objs: Vec<(Key, Vec<u8>)>) -> Vec<StoreResult<()>> {
        self.put_many(&objs)
    }

    /// Finish what was written so far, to `level`: at `Durability::Visible`
    /// it is complete and in place for every reader (an archive is written),
    /// and a process killed afterwards leaves it so; at `Durability::Stable`
    /// what this store wrote since its last stable flush is also on stable
    /// storage, safe from an operating-system crash or a power loss. A
    /// failed flush keeps what it did not finish for the next one.
    fn flush(&self, level: Durability) -> StoreResult<()>;

    /// Every object written from now on is to be flushed to
    /// `Durability::Stable` (the dataset is in durable mode): a backend may
    /// make each object durable as it writes it, so that the flush has
    /// little left to do and the device writes overlap the writing of the
    /// next objects. By default nothing changes.
    fn expect_stable(&self) {}

    fn capabilities(&self) -> Capabilities;

    /// Remove the whole dataset, container included (nc_abort of a dataset
    /// this handle created). By default: delete every object.
    fn destroy(&self) -> StoreResult<()> {
        self.delete(&Key::root())
    }
}

/// Check that `obj` is `expect_len` bytes and that every part lies inside it.
pub fn check_parts(key: &Key, len: u64, expect_len: u64, parts: &[(u64, &mut [u8])]) -> StoreResult<()> {
    if len != expect_len {
        crate::nclog!(
            crate::log::Level::Error,
            "chunk {} has {} bytes, expected {}",
            key.as_str(),
            len,
            expect_len
        );
        return Err(StoreError::Corrupt);
    }
    for (off, dst) in parts.iter() {
        if off.checked_add(dst.len() as u64).is_none_or(|end| end > len) {
            return Err(StoreError::Internal);
        }
    }
    Ok(())
}

/// The bytes that parts at offsets cover, first to last (None when there
/// are none); a part whose end overflows is `StoreError::Corrupt`.
pub fn span_of(parts: &[(u64, &mut [u8])]) -> Option<std::ops::Range<u64>> {
    let lo = parts.iter().map(|(o, _)| *o).min()?;
    let hi = parts
        .iter()
        .map(|(o, d)| o.checked_add(d.len() as u64).unwrap_or(u64::MAX))
        .max()?;
    Some(lo..hi)
}

/// `read_parts` over an object already in memory.
pub fn copy_parts(key: &Key, obj: &[u8], expect_len: u64, parts: &mut [(u64, &mut [u8])]) -> StoreResult<()> {
    check_parts(key, obj.len() as u64, expect_len, parts)?;
    for (off, dst) in parts.iter_mut() {
        let o = *off as usize;
        dst.copy_from_slice(&obj[o..o + dst.len()]);
    }
    Ok(())
}

/// Move every object below `from` to the same relative key below `to`
/// (copy, then delete the originals). Used for renames.
pub fn move_tree(store: &dyn Store, from: &Key, to: &Key) -> StoreResult<()> {
    fn walk(store: &dyn Store, from: &Key, to: &Key, depth: usize) -> StoreResult<()> {
        if depth > 64 {
            return Err(StoreError::Corrupt);
        }
        if let Some(b) = store.get(from, u64::MAX)? {
            store.put(to, &b)?;
        }
        for child in store.list(from)? {
            walk(store, &from.join(&child)?, &to.join(&child)?, depth + 1)?;
        }
        Ok(())
    }
    if from == to {
        return Ok(());
    }
    walk(store, from, to, 0)?;
    store.delete(from)
}
