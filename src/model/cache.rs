//! A bounded LRU cache of decoded chunks for one variable, honouring
//! `nc_set_chunk_cache` / `nc_set_var_chunk_cache` (bytes and entry count).
#![forbid(unsafe_code)]

use std::collections::{BTreeMap, HashMap, VecDeque};

/// How many chunks read in part are remembered (see `ChunkCache::first_part_read`).
const PART_READS_REMEMBERED: usize = 16;

/// A decoded chunk: numbers and chars as native-endian bytes of the variable's
/// type; strings as one optional byte string per element (None = NULL).
#[derive(Debug, Clone, PartialEq)]
pub enum ChunkData {
    Bytes(Vec<u8>),
    Strings(Vec<Option<Vec<u8>>>),
}

impl ChunkData {
    pub fn byte_size(&self) -> usize {
        match self {
            ChunkData::Bytes(b) => b.len(),
            ChunkData::Strings(s) => s.iter().map(|x| x.as_ref().map_or(0, Vec::len) + 24).sum::<usize>(),
        }
    }
}

/// A chunk the cache let go of to stay within its bounds; a dirty one must
/// be written by whoever made the cache let go.
#[derive(Debug)]
pub struct Evicted {
    pub idx: Vec<u64>,
    pub data: ChunkData,
    pub dirty: bool,
}

#[derive(Debug)]
struct Entry {
    data: ChunkData,
    dirty: bool,
    tick: u64,
}

#[derive(Debug)]
pub struct ChunkCache {
    pub size: usize,
    pub nelems: usize,
    pub preemption: f32,
    entries: HashMap<Vec<u64>, Entry>,
    /// Use order of the entries (tick of last use, key), kept only while
    /// there are two or more: one entry is its own least recently used,
    /// and a variable of one chunk (a dataset of thousands of small
    /// variables) then holds no second structure.
    lru: BTreeMap<u64, Vec<u64>>,
    tick: u64,
    used: usize,
    /// How many entries are dirty.
    dirty: usize,
    /// Chunks recently read in part, most recent last.
    part_reads: VecDeque<Vec<u64>>,
}

impl ChunkCache {
    /// May a small read of chunk `key` decode only its part (and bypass the
    /// cache)? Yes the first time; a chunk read in part again soon after is
    /// decoded whole and cached, so reading a chunk piece by piece (row by
    /// row, record by record) decodes it once, not once per piece.
    pub fn first_part_read(&mut self, key: &[u64]) -> bool {
        if let Some(i) = self.part_reads.iter().position(|k| k.as_slice() == key) {
            self.part_reads.remove(i);
            return false;
        }
        if self.part_reads.len() == PART_READS_REMEMBERED {
            self.part_reads.pop_front();
        }
        self.part_reads.push_back(key.to_vec());
        true
    }

    pub fn new(size: usize, nelems: usize, preemption: f32) -> ChunkCache {
        ChunkCache {
            size,
            nelems,
            preemption,
            entries: HashMap::new(),
            lru: BTreeMap::new(),
            tick: 0,
            used: 0,
            dirty: 0,
            part_reads: VecDeque::new(),
        }
    }

    fn touch(&mut self, key: &[u64]) {
        self.tick += 1;
        let t = self.tick;
        let ordered = self.entries.len() > 1;
        if let Some(e) = self.entries.get_mut(key) {
            if ordered {
                self.lru.remove(&e.tick);
                self.lru.insert(t, key.to_vec());
            }
            e.tick = t;
        }
    }

    /// Look without counting as a use (for worker threads); see `touch_key`.
    pub fn peek(&self, key: &[u64]) -> Option<&ChunkData> {
        self.entries.get(key).map(|e| &e.data)
    }

    /// Count a use of a cached chunk.
    pub fn touch_key(&mut self, key: &[u64]) {
        self.touch(key);
    }

    pub fn contains(&self, key: &[u64]) -> bool {
        self.entries.contains_key(key)
    }

    pub fn get(&mut self, key: &[u64]) -> Option<&ChunkData> {
        self.touch(key);
        self.entries.get(key).map(|e| &e.data)
    }

    /// Mutable access; marks the chunk dirty.
    pub fn get_mut(&mut self, key: &[u64]) -> Option<&mut ChunkData> {
        self.touch(key);
        let e = self.entries.get_mut(key)?;
        if !e.dirty {
            e.dirty = true;
            self.dirty += 1;
        }
        // Size may change (strings); recomputed on eviction checks.
        Some(&mut e.data)
    }

    /// Insert a chunk. Returns the entries evicted to stay within bounds
    /// (with their dirty flags); dirty ones must be written by the caller.
    pub fn insert(&mut self, key: Vec<u64>, data: ChunkData, dirty: bool) -> Vec<Evicted> {
        if let Some(old) = self.remove_entry(&key) {
            self.used -= old.data.byte_size();
            self.dirty -= usize::from(old.dirty);
        }
        let sz = data.byte_size();
        // A chunk larger than the whole cache is not kept.
        if sz > self.size || self.nelems == 0 {
            return if dirty {
                vec![Evicted {
                    idx: key,
                    data,
                    dirty: true,
                }]
            } else {
                Vec::new()
            };
        }
        self.tick += 1;
        self.used += sz;
        self.dirty += usize::from(dirty);
        match self.entries.len() {
            0 => {}
            1 => {
                // A second entry: the order starts with the first.
                let (k, e) = self.entries.iter().next().expect("one entry");
                self.lru.insert(e.tick, k.clone());
                self.lru.insert(self.tick, key.clone());
            }
            _ => {
                self.lru.insert(self.tick, key.clone());
            }
        }
        self.entries.insert(
            key,
            Entry {
                data,
                dirty,
                tick: self.tick,
            },
        );
        self.evict()
    }

    /// Take an entry out, keeping the use order as `lru` says.
    fn remove_entry(&mut self, key: &[u64]) -> Option<Entry> {
        let e = self.entries.remove(key)?;
        if self.entries.len() < 2 {
            self.lru.clear();
        } else {
            self.lru.remove(&e.tick);
        }
        Some(e)
    }

    fn evict(&mut self) -> Vec<Evicted> {
        let mut out = Vec::new();
        while self.entries.len() > self.nelems || self.used > self.size {
            let key = match self.lru.first_key_value() {
                Some((_, k)) => k.clone(),
                None => match self.entries.keys().next() {
                    Some(k) if self.entries.len() == 1 => k.clone(),
                    _ => break,
                },
            };
            if let Some(e) = self.remove_entry(&key) {
                self.used -= e.data.byte_size();
                self.dirty -= usize::from(e.dirty);
                out.push(Evicted {
                    idx: key,
                    data: e.data,
                    dirty: e.dirty,
                });
            }
        }
        out
    }

    /// Recompute the byte count after in-place edits and evict if needed.
    pub fn rebalance(&mut self) -> Vec<Evicted> {
        self.used = self.entries.values().map(|e| e.data.byte_size()).sum();
        self.evict()
    }

    /// Remove a chunk from the cache and hand it over (it is put back, dirty,
    /// after modification).
    pub fn take(&mut self, key: &[u64]) -> Option<ChunkData> {
        let e = self.remove_entry(key)?;
        self.used -= e.data.byte_size();
        self.dirty -= usize::from(e.dirty);
        Some(e.data)
    }

    /// Keys of the dirty chunks, sorted (their data stays in place: see `peek`).
    pub fn dirty_keys(&self) -> Vec<Vec<u64>> {
        let mut out: Vec<Vec<u64>> = self
            .entries
            .iter()
            .filter(|(_, e)| e.dirty)
            .map(|(k, _)| k.clone())
            .collect();
        out.sort();
        out
    }

    /// Mark a chunk clean (it was written).
    pub fn clear_dirty(&mut self, key: &[u64]) {
        if let Some(e) = self.entries.get_mut(key)
            && e.dirty
        {
            e.dirty = false;
            self.dirty -= 1;
        }
    }

    /// Mark every chunk clean (all were written).
    pub fn clear_all_dirty(&mut self) {
        if self.dirty > 0 {
            self.entries.values_mut().for_each(|e| e.dirty = false);
            self.dirty = 0;
        }
    }

    /// Mark a chunk dirty again (after a failed write).
    pub fn mark_dirty(&mut self, key: &[u64]) {
        if let Some(e) = self.entries.get_mut(key)
            && !e.dirty
        {
            e.dirty = true;
            self.dirty += 1;
        }
    }

    pub fn has_dirty(&self) -> bool {
        self.dirty > 0
    }

    /// Drop clean entries and resize (nc_set_var_chunk_cache). Dirty entries
    /// are returned for writing.
    pub fn resize(&mut self, size: usize, nelems: usize, preemption: f32) -> Vec<Evicted> {
        self.size = size;
        self.nelems = nelems;
        self.preemption = preemption;
        self.evict()
    }

    /// Forget cached fill-derived state (the fill value changed). Only clean
    /// chunks can depend on it, and none exist before data is written.
    pub fn clear_fill(&mut self) {
        self.entries.retain(|_, e| e.dirty);
        self.lru.retain(|_, k| self.entries.contains_key(k));
        if self.entries.len() < 2 {
            self.lru.clear();
        }
        self.used = self.entries.values().map(|e| e.data.byte_size()).sum();
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.lru.clear();
        self.used = 0;
        self.dirty = 0;
    }
}

impl Drop for ChunkCache {
    fn drop(&mut self) {
        for (_, e) in self.entries.drain() {
            if let ChunkData::Bytes(b) = e.data {
                crate::runtime::buffers::give(b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_bounds() {
        let mut c = ChunkCache::new(100, 2, 0.75);
        assert!(c.insert(vec![0], ChunkData::Bytes(vec![0; 10]), false).is_empty());
        assert!(c.insert(vec![1], ChunkData::Bytes(vec![0; 10]), true).is_empty());
        c.get(&[0]);
        let ev = c.insert(vec![2], ChunkData::Bytes(vec![0; 10]), false);
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].idx, vec![1]);
        assert!(ev[0].dirty);
        let ev = c.insert(vec![3], ChunkData::Bytes(vec![0; 1000]), true);
        assert_eq!(ev.len(), 1);
        assert!(!c.contains(&[3]));
    }
    #[test]
    fn use_order_survives_going_down_to_one_entry_and_back() {
        let b = || ChunkData::Bytes(vec![0; 10]);
        let mut c = ChunkCache::new(100, 2, 0.75);
        c.insert(vec![0], b(), false);
        c.insert(vec![1], b(), false);
        c.get(&[0]);
        let ev = c.insert(vec![2], b(), false);
        assert_eq!(ev.iter().map(|e| e.idx.clone()).collect::<Vec<_>>(), vec![vec![1]]);
        assert!(c.take(&[2]).is_some());
        // One entry left ([0]); a newer one joins, then a third pushes out
        // the older of the two.
        c.insert(vec![3], b(), false);
        c.get(&[3]);
        let ev = c.insert(vec![4], b(), false);
        assert_eq!(ev.iter().map(|e| e.idx.clone()).collect::<Vec<_>>(), vec![vec![0]]);
        // Shrinking to nothing evicts the least recently used first.
        c.get(&[3]);
        let ev = c.resize(100, 0, 0.75);
        assert_eq!(
            ev.iter().map(|e| e.idx.clone()).collect::<Vec<_>>(),
            vec![vec![4], vec![3]]
        );
        assert!(!c.contains(&[3]) && !c.contains(&[4]));
        // A single entry alone over the byte bound goes too.
        let mut c = ChunkCache::new(15, 4, 0.75);
        c.insert(vec![7], b(), true);
        if let Some(d) = c.get_mut(&[7]) {
            *d = ChunkData::Bytes(vec![0; 20]);
        }
        let ev = c.rebalance();
        assert_eq!((ev.len(), ev[0].dirty), (1, true));
    }

    #[test]
    fn dirty_count_follows_every_change() {
        let mut c = ChunkCache::new(100, 3, 0.75);
        assert!(!c.has_dirty());
        c.insert(vec![0], ChunkData::Bytes(vec![0; 10]), false);
        assert!(!c.has_dirty());
        c.get_mut(&[0]);
        c.get_mut(&[0]);
        assert!(c.has_dirty());
        c.clear_dirty(&[0]);
        c.clear_dirty(&[0]);
        assert!(!c.has_dirty());
        c.mark_dirty(&[0]);
        c.insert(vec![0], ChunkData::Bytes(vec![0; 10]), false);
        assert!(!c.has_dirty(), "replaced by a clean chunk");
        c.insert(vec![1], ChunkData::Bytes(vec![0; 10]), true);
        assert!(c.take(&[1]).is_some());
        assert!(!c.has_dirty(), "taken away");
        // Evicted dirty chunks leave with their flag.
        for i in 2..6 {
            let ev = c.insert(vec![i], ChunkData::Bytes(vec![0; 10]), true);
            assert!(ev.iter().all(|e| e.idx != vec![i]));
        }
        assert_eq!(c.dirty_keys(), vec![vec![3], vec![4], vec![5]]);
        c.clear_dirty(&[3]);
        assert_eq!(c.dirty_keys(), vec![vec![4], vec![5]]);
        c.clear_all_dirty();
        assert!(!c.has_dirty());
        assert!(c.dirty_keys().is_empty());
        c.insert(vec![9], ChunkData::Bytes(vec![0; 10]), true);
        c.clear();
        assert!(!c.has_dirty());
    }
}

#[cfg(test)]
mod part_read_tests {
    use super::*;

    #[test]
    fn a_chunk_read_in_part_twice_is_then_decoded_whole() {
        let mut c = ChunkCache::new(1 << 20, 10, 0.5);
        assert!(c.first_part_read(&[0, 1]));
        assert!(c.first_part_read(&[0, 2]));
        // The second small read of chunk (0, 1): decode it whole (and cache it).
        assert!(!c.first_part_read(&[0, 1]));
        // Forgotten after that, and after PART_READS_REMEMBERED other chunks.
        assert!(c.first_part_read(&[0, 1]));
        for i in 0..PART_READS_REMEMBERED as u64 {
            assert!(c.first_part_read(&[1, i]));
        }
        assert!(c.first_part_read(&[0, 1]));
    }
}
