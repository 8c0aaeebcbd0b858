//! The table of open datasets. An ncid is `slot << 16 | group index`, as in
//! netcdf-c; slots are reused lowest-first. The global lock is held only to
//! find a dataset, never across I/O; each dataset has its own lock.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{NcError, NcResult};
use crate::model::Dataset;

/// What a slot holds: one of our datasets, or a delegated one (later).
pub type Shared = Arc<Mutex<Dataset>>;

static TABLE: Mutex<BTreeMap<i32, Shared>> = Mutex::new(BTreeMap::new());

/// The highest slot: ncids must stay positive `int`s.
const MAX_SLOT: i32 = 0x7fff;

fn table() -> MutexGuard<'static, BTreeMap<i32, Shared>> {
    // The table holds only Arcs; a panic while it was locked cannot leave it
    // half-updated, so a poisoned lock is safe to reuse.
    TABLE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Register a dataset; returns its root ncid.
pub fn insert(ds: Dataset) -> NcResult<i32> {
    let mut t = table();
    let mut slot = 1;
    while t.contains_key(&slot) {
        slot += 1;
        if slot > MAX_SLOT {
            return Err(NcError::NFile);
        }
    }
    t.insert(slot, Arc::new(Mutex::new(ds)));
    Ok(slot << 16)
}

/// Find the dataset of an ncid and the group index it names.
pub fn get(ncid: i32) -> NcResult<(Shared, usize)> {
    if ncid < 0 {
        return Err(NcError::BadId);
    }
    let slot = ncid >> 16;
    let grp = (ncid & 0xffff) as usize;
    let ds = table().get(&slot).cloned().ok_or(NcError::BadId)?;
    Ok((ds, grp))
}

/// Remove a dataset from the table (close/abort).
pub fn remove(ncid: i32) -> NcResult<Shared> {
    table().remove(&(ncid >> 16)).ok_or(NcError::BadId)
}

/// The ncid of group `grp` of the dataset whose root ncid is `ncid`.
pub fn group_ncid(ncid: i32, grp: usize) -> i32 {
    (ncid & !0xffff) | grp as i32
}

/// Run `f` with the dataset locked. A lock poisoned by a panic makes that
/// dataset unusable (NC_EINTERNAL), never the process.
pub fn with<R>(ncid: i32, f: impl FnOnce(&mut Dataset, usize) -> NcResult<R>) -> NcResult<R> {
    let (ds, grp) = get(ncid)?;
    let mut guard = ds.lock().map_err(|_| NcError::Internal)?;
    if grp >= guard.groups.len() {
        return Err(NcError::BadId);
    }
    f(&mut guard, grp)
}
