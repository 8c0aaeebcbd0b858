//! Zarr v3 `sharding_indexed`: many inner chunks in one stored object (a
//! shard), found through an index of (offset, length) pairs.
//!
//! Spec: zarr-specs `docs/v3/codecs/sharding-indexed/index.rst`. Configuration:
//!
//! ```json
//! {"name": "sharding_indexed", "configuration": {
//!     "chunk_shape": [16, 256, 256],
//!     "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", ...}],
//!     "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
//!     "index_location": "end"}}
//! ```
//!
//! The index is an array of shape `chunks_per_shard + [2]` of uint64 in C
//! order: for each inner chunk its offset and length in the shard, both
//! 2^64-1 when the chunk is absent (it reads as fill). With `crc32c` the
//! index bytes are followed by their CRC-32C. This module holds the pure
//! parts (layout, index decoding and encoding, assembling a shard); the data
//! path (`engine`) fetches the index and the inner chunks' byte ranges.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::checksum::crc32c;
use crate::error::{NcError, NcResult};
use crate::log::Level;

/// The most inner chunks one shard may hold (an index of 64 MiB).
pub const MAX_INNER_CHUNKS: usize = 1 << 22;

/// An absent inner chunk's offset and length.
const EMPTY: u64 = u64::MAX;

/// How the index is encoded: `bytes` in either order, then `crc32c` or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexCodecs {
    pub big_endian: bool,
    pub crc32c: bool,
}

/// The shape of shards and of the chunks inside them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardLayout {
    /// Shard shape in elements (the array's chunk grid).
    pub shard: Vec<usize>,
    /// Inner chunk shape (divides `shard`).
    pub inner: Vec<usize>,
    /// Inner chunks per shard along each dimension.
    pub per_shard: Vec<usize>,
    /// Inner chunks per shard.
    pub count: usize,
    pub index: IndexCodecs,
    pub index_at_start: bool,
}

/// A shard's index, checked against the shard's length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardIndex {
    /// (offset, length) per inner chunk in C order; None when absent.
    entries: Vec<Option<(u64, u64)>>,
}

impl ShardIndex {
    /// Where inner chunk `pos` is (None: absent, or no such chunk).
    pub fn get(&self, pos: usize) -> Option<(u64, u64)> {
        self.entries.get(pos).copied().flatten()
    }

    /// Number of inner chunks present.
    pub fn present(&self) -> usize {
        self.entries.iter().filter(|e| e.is_some()).count()
    }
}

impl ShardLayout {
    /// None when the inner chunks do not divide the shard, a dimension is
    /// zero, or a shard would hold more than `MAX_INNER_CHUNKS` chunks.
    pub fn new(shard: Vec<usize>, inner: Vec<usize>, index: IndexCodecs, index_at_start: bool) -> Option<ShardLayout> {
        if shard.len() != inner.len() || inner.contains(&0) || shard.contains(&0) {
            return None;
        }
        let per_shard: Vec<usize> = shard
            .iter()
            .zip(&inner)
            .map(|(&s, &i)| (s % i == 0).then_some(s / i))
            .collect::<Option<_>>()?;
        let count = per_shard
            .iter()
            .try_fold(1usize, |a, &n| a.checked_mul(n))
            .filter(|&n| n <= MAX_INNER_CHUNKS)?;
        Some(ShardLayout {
            shard,
            inner,
            per_shard,
            count,
            index,
            index_at_start,
        })
    }

    /// A layout with the index as zarr-python writes it by default: at the
    /// end, little-endian, with crc32c.
    pub fn standard(shard: Vec<usize>, inner: Vec<usize>) -> Option<ShardLayout> {
        ShardLayout::new(
            shard,
            inner,
            IndexCodecs {
                big_endian: false,
                crc32c: true,
            },
            false,
        )
    }

    /// The same shards around new inner chunks: each shard dimension rounded
    /// up to a multiple of the new chunk (None when that is not possible).
    pub fn with_inner(&self, inner: &[usize]) -> Option<ShardLayout> {
        let shard = self
            .shard
            .iter()
            .zip(inner)
            .map(|(&s, &i)| s.div_ceil(i.max(1)).checked_mul(i))
            .collect::<Option<Vec<usize>>>()?;
        ShardLayout::new(shard, inner.to_vec(), self.index, self.index_at_start)
    }

    /// Bytes of the encoded index.
    pub fn index_len(&self) -> u64 {
        16 * self.count as u64 + if self.index.crc32c { 4 } else { 0 }
    }

    /// The shard holding inner chunk `idx` and the chunk's position in it
    /// (C order over `per_shard`).
    pub fn locate(&self, idx: &[u64]) -> (Vec<u64>, usize) {
        let mut shard = Vec::with_capacity(idx.len());
        let mut pos = 0usize;
        for (&i, &n) in idx.iter().zip(&self.per_shard) {
            let n64 = n as u64;
            shard.push(i / n64);
            pos = pos * n + (i % n64) as usize;
        }
        (shard, pos)
    }

    /// The inner chunk indices of a shard, in C order (position order).
    pub fn inner_of(&self, shard: &[u64]) -> Vec<Vec<u64>> {
        let n = self.per_shard.len();
        let mut out = Vec::with_capacity(self.count);
        let mut within = vec![0usize; n];
        for _ in 0..self.count {
            out.push(
                within
                    .iter()
                    .zip(shard)
                    .zip(&self.per_shard)
                    .map(|((&w, &s), &p)| s * p as u64 + w as u64)
                    .collect(),
            );
            for d in (0..n).rev() {
                within[d] += 1;
                if within[d] < self.per_shard[d] {
                    break;
                }
                within[d] = 0;
            }
        }
        out
    }

    /// Where the index sits in a shard of `shard_len` bytes.
    pub fn index_offset(&self, shard_len: u64) -> Option<u64> {
        if self.index_at_start {
            (shard_len >= self.index_len()).then_some(0)
        } else {
            shard_len.checked_sub(self.index_len())
        }
    }

    /// Decode and check an index read from a shard of `shard_len` bytes:
    /// every present chunk lies inside the shard and outside the index; a
    /// bad checksum, a half-empty entry or a chunk outside is `NC_ENCZARR`.
    pub fn decode_index(&self, bytes: &[u8], shard_len: u64) -> NcResult<ShardIndex> {
        let bad = |why: &str| {
            crate::nclog!(Level::Error, "shard index: {}", why);
            NcError::NcZarr
        };
        if bytes.len() as u64 != self.index_len() {
            return Err(bad("wrong length"));
        }
        let body = 16 * self.count;
        if self.index.crc32c {
            let stored = u32::from_le_bytes([bytes[body], bytes[body + 1], bytes[body + 2], bytes[body + 3]]);
            if stored != crc32c(&bytes[..body]) {
                return Err(bad("checksum mismatch"));
            }
        }
        let (lo, hi) = if self.index_at_start {
            (self.index_len(), shard_len)
        } else {
            (
                0,
                shard_len
                    .checked_sub(self.index_len())
                    .ok_or_else(|| bad("shard shorter than its index"))?,
            )
        };
        let u64_at = |p: usize| {
            let a: [u8; 8] = bytes[p..p + 8].try_into().unwrap_or([0; 8]);
            if self.index.big_endian {
                u64::from_be_bytes(a)
            } else {
                u64::from_le_bytes(a)
            }
        };
        let mut entries = Vec::new();
        entries.try_reserve_exact(self.count).map_err(|_| NcError::NoMem)?;
        for i in 0..self.count {
            let (off, len) = (u64_at(16 * i), u64_at(16 * i + 8));
            if off == EMPTY && len == EMPTY {
                entries.push(None);
                continue;
            }
            let end = off.checked_add(len).ok_or_else(|| bad("chunk range overflows"))?;
            if off < lo || end > hi {
                return Err(bad("chunk outside the shard"));
            }
            entries.push(Some((off, len)));
        }
        Ok(ShardIndex { entries })
    }

    /// Assemble a shard from its encoded inner chunks (position order;
    /// None: absent). None when every chunk is absent (no shard is stored).
    pub fn encode_shard(&self, chunks: &[Option<Vec<u8>>]) -> NcResult<Option<Vec<u8>>> {
        let Some(index) = self.encode_index(chunks)? else {
            return Ok(None);
        };
        let data: usize = chunks.iter().flatten().map(Vec::len).sum();
        let total = data.checked_add(index.len()).ok_or(NcError::NoMem)?;
        let mut out = Vec::new();
        out.try_reserve_exact(total).map_err(|_| NcError::NoMem)?;
        for part in self.shard_parts(chunks.iter().map(Option::as_deref), &index[..]) {
            out.extend_from_slice(part);
        }
        Ok(Some(out))
    }

    /// The encoded index of a shard holding `chunks` (one per position,
    /// stored one after the other in position order); None when every
    /// chunk is absent (no shard).
    pub fn encode_index(&self, chunks: &[Option<Vec<u8>>]) -> NcResult<Option<Vec<u8>>> {
        if chunks.len() != self.count {
            return Err(NcError::Internal);
        }
        if chunks.iter().all(Option::is_none) {
            return Ok(None);
        }
        let base = if self.index_at_start { self.index_len() } else { 0 };
        let mut index = Vec::with_capacity(self.index_len() as usize);
        let mut at = base;
        for c in chunks {
            let (off, len) = match c {
                Some(b) => {
                    let e = (at, b.len() as u64);
                    at += b.len() as u64;
                    e
                }
                None => (EMPTY, EMPTY),
            };
            for v in [off, len] {
                index.extend_from_slice(&if self.index.big_endian {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                });
            }
        }
        if self.index.crc32c {
            let s = crc32c(&index);
            index.extend_from_slice(&s.to_le_bytes());
        }
        Ok(Some(index))
    }

    /// The pieces of a shard in stored order: its chunks (position order,
    /// None: absent) and its index (from `encode_index` of the same
    /// chunks), for a write that gathers them without joining them first.
    /// Borrowed pieces or owned ones alike.
    pub fn shard_parts<T>(&self, chunks: impl IntoIterator<Item = Option<T>>, index: T) -> Vec<T> {
        let chunks = chunks.into_iter();
        let mut parts: Vec<T> = Vec::with_capacity(chunks.size_hint().0 + 1);
        let mut index = Some(index);
        if self.index_at_start {
            parts.extend(index.take());
        }
        parts.extend(chunks.flatten());
        parts.extend(index);
        parts
    }
}

/// A shard shape of about `target` bytes for an array of `shape` with inner
/// chunks `inner` of `elem`-byte values: whole inner chunks, growing along
/// the last dimension first (a shard then holds contiguous rows), never
/// along an unlimited dimension, never past the array. None when a shard
/// would hold a single chunk (sharding would not pay).
pub fn auto_shape(
    shape: &[usize],
    unlimited: &[bool],
    inner: &[usize],
    elem: usize,
    target: u64,
) -> Option<Vec<usize>> {
    let mut bytes = inner
        .iter()
        .try_fold(elem.max(1) as u64, |a, &c| a.checked_mul(c as u64))?;
    let mut per = vec![1usize; inner.len()];
    for d in (0..inner.len()).rev() {
        if unlimited.get(d).copied().unwrap_or(true) {
            break;
        }
        let most = shape[d].div_ceil(inner[d].max(1)).max(1);
        let room = usize::try_from(target / bytes.max(1)).unwrap_or(usize::MAX).max(1);
        per[d] = most.min(room).min(MAX_INNER_CHUNKS);
        bytes = bytes.saturating_mul(per[d] as u64);
        if per[d] < most {
            break;
        }
    }
    let count = per.iter().try_fold(1usize, |a, &n| a.checked_mul(n))?;
    if !(2..=MAX_INNER_CHUNKS).contains(&count) {
        return None;
    }
    Some(per.iter().zip(inner).map(|(&n, &c)| n * c).collect())
}

/// The most index entries the cache of one variable keeps (8 MiB of them).
const CACHE_ENTRIES: usize = 1 << 19;

/// Shard indexes already read, per variable: a read of a few inner chunks
/// then costs one ranged read each. None records a shard that is absent.
#[derive(Debug, Default)]
pub struct IndexCache {
    /// The indexes by shard, and how many entries they hold in all.
    map: Mutex<(IndexMap, usize)>,
}

type IndexMap = HashMap<Vec<u64>, Option<Arc<ShardIndex>>>;

impl IndexCache {
    pub fn get(&self, shard: &[u64]) -> Option<Option<Arc<ShardIndex>>> {
        let m = self.map.lock().unwrap_or_else(|p| p.into_inner());
        m.0.get(shard).cloned()
    }

    /// Keep an index (the whole cache is dropped when it would grow past its bound).
    pub fn insert(&self, shard: Vec<u64>, index: Option<Arc<ShardIndex>>) {
        let mut m = self.map.lock().unwrap_or_else(|p| p.into_inner());
        let n = index.as_ref().map_or(1, |i| i.entries.len());
        if m.1 + n > CACHE_ENTRIES {
            m.0.clear();
            m.1 = 0;
        }
        if let Some(old) = m.0.insert(shard, index) {
            m.1 -= old.as_ref().map_or(1, |i| i.entries.len());
        }
        m.1 += n;
    }

    /// Forget a shard (it is being rewritten).
    pub fn remove(&self, shard: &[u64]) {
        let mut m = self.map.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(old) = m.0.remove(shard) {
            m.1 -= old.as_ref().map_or(1, |i| i.entries.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(at_start: bool, crc: bool) -> ShardLayout {
        ShardLayout::new(
            vec![4, 10],
            vec![2, 5],
            IndexCodecs {
                big_endian: false,
                crc32c: crc,
            },
            at_start,
        )
        .unwrap()
    }

    #[test]
    fn layout_and_positions() {
        let l = layout(false, true);
        assert_eq!((l.count, l.index_len()), (4, 68));
        assert_eq!(l.locate(&[3, 1]), (vec![1, 0], 3));
        assert_eq!(l.locate(&[4, 3]), (vec![2, 1], 1));
        assert_eq!(
            l.inner_of(&[1, 2]),
            vec![vec![2, 4], vec![2, 5], vec![3, 4], vec![3, 5]]
        );
        assert!(ShardLayout::new(vec![4], vec![3], l.index, false).is_none());
        assert!(ShardLayout::new(vec![1 << 23], vec![1], l.index, false).is_none());
        assert!(ShardLayout::new(vec![usize::MAX, usize::MAX], vec![1, 1], l.index, false).is_none());
    }

    #[test]
    fn shards_round_trip() {
        for (start, crc) in [(false, true), (true, true), (false, false), (true, false)] {
            let l = layout(start, crc);
            let chunks = vec![Some(b"abc".to_vec()), None, Some(b"".to_vec()), Some(b"defg".to_vec())];
            let shard = l.encode_shard(&chunks).unwrap().unwrap();
            let off = l.index_offset(shard.len() as u64).unwrap() as usize;
            let ix = l
                .decode_index(&shard[off..off + l.index_len() as usize], shard.len() as u64)
                .unwrap();
            assert_eq!(ix.present(), 3);
            for (p, c) in chunks.iter().enumerate() {
                let got = ix.get(p).map(|(o, n)| shard[o as usize..(o + n) as usize].to_vec());
                assert_eq!(&got, c);
            }
        }
        assert_eq!(
            layout(false, true).encode_shard(&[None, None, None, None]).unwrap(),
            None
        );
    }

    #[test]
    fn hostile_indexes() {
        let l = layout(false, false);
        let shard = l.encode_shard(&[Some(vec![1; 10]), None, None, None]).unwrap().unwrap();
        let len = shard.len() as u64;
        let ix = |patch: &dyn Fn(&mut Vec<u8>)| {
            let mut b = shard[10..].to_vec();
            patch(&mut b);
            l.decode_index(&b, len)
        };
        assert!(ix(&|_| {}).is_ok());
        // Past the end, into the index, overflowing, half empty.
        assert!(ix(&|b| b[8..16].copy_from_slice(&11u64.to_le_bytes())).is_err());
        assert!(ix(&|b| b[0..8].copy_from_slice(&5u64.to_le_bytes())).is_err());
        assert!(ix(&|b| b[0..8].copy_from_slice(&(u64::MAX - 1).to_le_bytes())).is_err());
        assert!(ix(&|b| b[16..24].copy_from_slice(&0u64.to_le_bytes())).is_err());
        assert!(l.decode_index(&shard[10..20], len).is_err());
        assert!(l.decode_index(&shard[10..], 3).is_err());
        // A flipped bit fails the checksum.
        let lc = layout(false, true);
        let s = lc
            .encode_shard(&[Some(vec![1; 10]), None, None, None])
            .unwrap()
            .unwrap();
        let mut b = s[10..].to_vec();
        b[3] ^= 1;
        assert!(lc.decode_index(&b, s.len() as u64).is_err());
    }

    #[test]
    fn automatic_shapes() {
        // W4's layout: 16x256x256 float chunks (4 MiB) in 64 MiB shards.
        let s = auto_shape(&[64, 1024, 1024], &[false; 3], &[16, 256, 256], 4, 64 << 20).unwrap();
        assert_eq!(s, [16, 1024, 1024]);
        // Growing stops at the array's end, then goes on outwards.
        assert_eq!(auto_shape(&[100, 10], &[false; 2], &[2, 5], 8, 800), Some(vec![10, 10]));
        // Never along an unlimited dimension (nor before it).
        assert_eq!(
            auto_shape(&[0, 100], &[true, false], &[1, 10], 4, 1 << 20),
            Some(vec![1, 100])
        );
        assert_eq!(auto_shape(&[0], &[true], &[10], 4, 1 << 20), None);
        // One chunk already as big as the target, or the whole array.
        assert_eq!(auto_shape(&[10], &[false], &[10], 4, 1 << 20), None);
        assert_eq!(auto_shape(&[100], &[false], &[10], 4, 8), None);
        let l = ShardLayout::standard(vec![4, 10], vec![2, 5]).unwrap();
        assert_eq!(l.with_inner(&[3, 4]).unwrap().shard, [6, 12]);
    }

    #[test]
    fn cache_is_bounded() {
        let c = IndexCache::default();
        for i in 0..(CACHE_ENTRIES as u64 + 10) {
            c.insert(vec![i], None);
        }
        let m = c.map.lock().unwrap();
        assert!(m.1 <= CACHE_ENTRIES && m.0.len() == m.1);
    }
}
