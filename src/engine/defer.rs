//! The deferral policy for small writes. A write of a few small whole chunks
//! (`nc_put_var` of a small variable, the usual way to fill many) cannot
//! spread them over the pool: stored at once, they would go one after
//! another in the caller, a file or request each. They wait in the cache
//! instead, dirty, and the next sync or close stores them with every other
//! variable's on the pool together (`flush_chunks`).
#![forbid(unsafe_code)]

/// A chunk is deferred only when it is at most this big...
const DEFER_CHUNK_BYTES: usize = 64 << 10;
/// ... and the dataset's caches then hold at most this many deferred bytes.
const DEFER_TOTAL_BYTES: usize = 32 << 20;

/// A write's whole chunks, as the policy weighs them.
#[derive(Debug, Clone, Copy)]
pub(super) struct WholeChunks {
    /// How many chunks the write covers completely (and are not cached).
    pub count: usize,
    /// The size of one decoded chunk.
    pub chunk_bytes: usize,
}

impl WholeChunks {
    /// The bytes they hold.
    pub fn bytes(&self) -> usize {
        self.count.saturating_mul(self.chunk_bytes)
    }

    /// Whether they wait in the cache: fewer than the pool has threads
    /// (at least two), each at most `DEFER_CHUNK_BYTES`, all of them fitting
    /// the variable's cache (`cache_size`) and, with what the dataset
    /// deferred already (`deferred_before`), `DEFER_TOTAL_BYTES`.
    pub fn defer(&self, threads: usize, cache_size: usize, deferred_before: usize) -> bool {
        let bytes = self.bytes();
        self.count > 0
            && self.count < threads.max(2)
            && self.chunk_bytes <= DEFER_CHUNK_BYTES
            && bytes <= cache_size
            && deferred_before.saturating_add(bytes) <= DEFER_TOTAL_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CACHE: usize = 64 << 20;

    fn whole(count: usize, chunk_bytes: usize) -> WholeChunks {
        WholeChunks { count, chunk_bytes }
    }

    #[test]
    fn a_few_small_chunks_wait() {
        assert!(whole(1, 4096).defer(2, CACHE, 0));
        assert!(whole(3, DEFER_CHUNK_BYTES).defer(4, CACHE, 0));
        // One thread still defers a single chunk.
        assert!(whole(1, 4096).defer(1, CACHE, 0));
    }

    #[test]
    fn others_are_stored_at_once() {
        assert!(!whole(0, 4096).defer(2, CACHE, 0), "nothing to defer");
        assert!(!whole(2, 4096).defer(2, CACHE, 0), "as many chunks as threads");
        assert!(!whole(1, DEFER_CHUNK_BYTES + 1).defer(2, CACHE, 0), "a large chunk");
        assert!(!whole(1, 4096).defer(2, 4095, 0), "larger than the cache");
        assert!(
            !whole(1, 4096).defer(2, CACHE, DEFER_TOTAL_BYTES - 4095),
            "over the dataset's bound"
        );
        assert!(whole(1, 4096).defer(2, CACHE, DEFER_TOTAL_BYTES - 4096));
        assert!(!whole(1, 4096).defer(2, CACHE, usize::MAX));
    }
}
