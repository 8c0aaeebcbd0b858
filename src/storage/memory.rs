//! In-memory store: a sorted map from key to immutable bytes.
//!
//! Same semantics as the file store: a key cannot be both an object and a
//! prefix of another object (`StoreError::ObjectAndPrefix`), the root key holds no object,
//! `list` shows the immediate children (objects and prefixes that lead to
//! objects). Objects are shared `Arc<[u8]>`, so a reader copies out of a
//! snapshot and always sees one whole version of an object.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::{Capabilities, Durability, Key, Store, StoreError, StoreResult};
use crate::log::Level;

/// A dataset held in memory; nothing is ever durable.
#[derive(Default)]
pub struct MemoryStore {
    objects: RwLock<BTreeMap<String, Arc<[u8]>>>,
}

impl std::fmt::Debug for MemoryStore {
    // Not derived: that would print every byte of every object.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.objects.read().map(|m| m.len()).ok();
        f.debug_struct("MemoryStore").field("objects", &count).finish()
    }
}

/// A copy of `data`, or `StoreError::OutOfMemory` instead of an abort.
fn copy_out(data: &[u8]) -> StoreResult<Vec<u8>> {
    let mut v = Vec::new();
    if v.try_reserve_exact(data.len()).is_err() {
        crate::nclog!(Level::Error, "memory store: cannot allocate {} bytes", data.len());
        return Err(StoreError::OutOfMemory);
    }
    v.extend_from_slice(data);
    Ok(v)
}

/// The first string after every key that starts with `p` + '/': '0' is the
/// character right after '/'.
fn past_children(p: &str) -> String {
    format!("{p}0")
}

impl MemoryStore {
    pub fn new() -> Self {
        MemoryStore::default()
    }

    fn read(&self) -> StoreResult<RwLockReadGuard<'_, BTreeMap<String, Arc<[u8]>>>> {
        self.objects.read().map_err(|_| {
            crate::nclog!(Level::Error, "memory store: lock poisoned");
            StoreError::Internal
        })
    }

    fn write(&self) -> StoreResult<RwLockWriteGuard<'_, BTreeMap<String, Arc<[u8]>>>> {
        self.objects.write().map_err(|_| {
            crate::nclog!(Level::Error, "memory store: lock poisoned");
            StoreError::Internal
        })
    }

    /// The object at `key`, shared (cheap: no copy under the lock).
    fn object(&self, key: &Key) -> StoreResult<Option<Arc<[u8]>>> {
        Ok(self.read()?.get(key.as_str()).cloned())
    }
}

/// Whether any key in `map` starts with `dir` + '/'.
fn has_children(map: &BTreeMap<String, Arc<[u8]>>, dir: &str) -> bool {
    let lo = format!("{dir}/");
    map.range::<str, _>((Bound::Included(lo.as_str()), Bound::Unbounded))
        .next()
        .is_some_and(|(k, _)| k.starts_with(&lo))
}

impl Store for MemoryStore {
    fn get(&self, key: &Key, max_len: u64) -> StoreResult<Option<Vec<u8>>> {
        let Some(data) = self.object(key)? else {
            return Ok(None);
        };
        if data.len() as u64 > max_len {
            crate::nclog!(
                Level::Error,
                "memory store: {:?} has {} bytes, more than the limit of {}",
                key.as_str(),
                data.len(),
                max_len
            );
            return Err(StoreError::Corrupt);
        }
        copy_out(&data).map(Some)
    }

    fn get_range(&self, key: &Key, offset: u64, len: u64) -> StoreResult<Option<Vec<u8>>> {
        let Some(data) = self.object(key)? else {
            return Ok(None);
        };
        let range = offset
            .checked_add(len)
            .filter(|&end| end <= data.len() as u64)
            .and_then(|end| Some(usize::try_from(offset).ok()?..usize::try_from(end).ok()?));
        match range.and_then(|r| data.get(r)) {
            Some(part) => copy_out(part).map(Some),
            None => {
                crate::nclog!(
                    Level::Error,
                    "memory store: range {}+{} is past the end of {:?} ({} bytes)",
                    offset,
                    len,
                    key.as_str(),
                    data.len()
                );
                Err(StoreError::Corrupt)
            }
        }
    }

    fn len(&self, key: &Key) -> StoreResult<Option<u64>> {
        Ok(self.object(key)?.map(|d| d.len() as u64))
    }

    fn put(&self, key: &Key, data: &[u8]) -> StoreResult<()> {
        if key.is_root() {
            crate::nclog!(Level::Error, "memory store: cannot write an object at the root key");
            return Err(StoreError::InvalidKey);
        }
        // Copy before taking the lock.
        let value: Arc<[u8]> = Arc::from(data);
        let k = key.as_str();
        let mut map = self.write()?;
        // No proper prefix of the key may be an object...
        let mut conflict = k
            .match_indices('/')
            .any(|(i, _)| k.get(..i).is_some_and(|p| map.contains_key(p)));
        // ...and the key may not be a prefix of another object.
        conflict = conflict || has_children(&map, k);
        if conflict {
            crate::nclog!(
                Level::Error,
                "memory store: {:?} would be both an object and a prefix",
                k
            );
            return Err(StoreError::ObjectAndPrefix);
        }
        map.insert(k.to_string(), value);
        Ok(())
    }

    fn delete(&self, key: &Key) -> StoreResult<()> {
        let mut map = self.write()?;
        if key.is_root() {
            map.clear();
            return Ok(());
        }
        let k = key.as_str();
        map.remove(k);
        let lo = format!("{k}/");
        let hi = past_children(k);
        let doomed: Vec<String> = map
            .range::<str, _>((Bound::Included(lo.as_str()), Bound::Excluded(hi.as_str())))
            .map(|(k, _)| k.clone())
            .collect();
        for d in doomed {
            map.remove(&d);
        }
        Ok(())
    }

    fn list(&self, prefix: &Key) -> StoreResult<Vec<String>> {
        let map = self.read()?;
        let lo = if prefix.is_root() {
            String::new()
        } else {
            format!("{}/", prefix.as_str())
        };
        let mut names: Vec<String> = Vec::new();
        let mut from = lo.clone();
        loop {
            let next = map
                .range::<str, _>((Bound::Included(from.as_str()), Bound::Unbounded))
                .next()
                .map(|(k, _)| k);
            let Some(k) = next else { break };
            let Some(rest) = k.strip_prefix(lo.as_str()) else {
                break;
            };
            match rest.split_once('/') {
                // An object directly below the prefix.
                None => {
                    names.push(rest.to_string());
                    from = format!("{k}\0");
                }
                // A "directory": skip everything below it in one step.
                Some((child, _)) => {
                    names.push(child.to_string());
                    from = past_children(&format!("{lo}{child}"));
                }
            }
        }
        // Keys sort byte-wise, but "a.b" < "a/…" < "a0" can interleave a child
        // directory between objects: sort and deduplicate.
        names.sort_unstable();
        names.dedup();
        Ok(names)
    }

    /// Nothing to do at any level: the objects live in memory only.
    fn flush(&self, _level: Durability) -> StoreResult<()> {
        Ok(())
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            write_once: false,
            ranged_reads: true,
        }
    }
}
