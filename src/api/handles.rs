//! The table of open datasets. An ncid is `slot << 16 | group index`, as in
//! netcdf-c; slots are reused lowest-first. The global lock is held only to
//! find a dataset, never across I/O; each dataset has its own lock.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::{NcError, NcResult};
use crate::model::Dataset;
pub use crate::sys::netcdf::Lib;

/// One of our datasets, shared between the threads that use it.
pub type Shared = Arc<Mutex<Dataset>>;

/// What a slot holds: one of our datasets, or a dataset of a system
/// libnetcdf (delegated), known by its root ncid there and which library.
#[derive(Clone)]
enum Entry {
    Ours(Shared),
    Foreign(i32, Lib),
}

static TABLE: Mutex<BTreeMap<i32, Entry>> = Mutex::new(BTreeMap::new());

/// How many slots hold delegated datasets: lets every call on our own
/// datasets skip the delegation lookup while there are none.
static FOREIGN: AtomicUsize = AtomicUsize::new(0);

/// The highest slot: ncids must stay positive `int`s.
const MAX_SLOT: i32 = 0x7fff;

fn table() -> MutexGuard<'static, BTreeMap<i32, Entry>> {
    // The table holds only Arcs and ids; a panic while it was locked cannot
    // leave it half-updated, so a poisoned lock is safe to reuse.
    TABLE.lock().unwrap_or_else(|p| p.into_inner())
}

fn insert_entry(e: Entry) -> NcResult<i32> {
    let mut t = table();
    let mut slot = 1;
    while t.contains_key(&slot) {
        slot += 1;
        if slot > MAX_SLOT {
            return Err(NcError::NFile);
        }
    }
    t.insert(slot, e);
    Ok(slot << 16)
}

/// Register a dataset; returns its root ncid.
pub fn insert(ds: Dataset) -> NcResult<i32> {
    insert_entry(Entry::Ours(Arc::new(Mutex::new(ds))))
}

/// Register a dataset of system library `lib` by its root ncid there;
/// returns our root ncid for it.
pub fn insert_foreign(ext_root: i32, lib: Lib) -> NcResult<i32> {
    let id = insert_entry(Entry::Foreign(ext_root & !0xffff, lib))?;
    FOREIGN.fetch_add(1, Ordering::SeqCst);
    Ok(id)
}

/// The system library's ncid for `ncid` (same group bits) and which library,
/// when `ncid` names a delegated dataset.
pub fn foreign(ncid: i32) -> Option<(i32, Lib)> {
    if FOREIGN.load(Ordering::Relaxed) == 0 || ncid < 0 {
        return None;
    }
    match table().get(&(ncid >> 16)) {
        Some(Entry::Foreign(ext, lib)) => Some((ext | (ncid & 0xffff), *lib)),
        _ => None,
    }
}

/// Our ncid for a group id the system library returned for a delegated
/// dataset whose ncid (any of its groups) is `ours`.
pub fn from_foreign(ours: i32, ext_ncid: i32) -> i32 {
    (ours & !0xffff) | (ext_ncid & 0xffff)
}

/// Find the dataset of an ncid and the group index it names.
pub fn get(ncid: i32) -> NcResult<(Shared, usize)> {
    if ncid < 0 {
        return Err(NcError::BadId);
    }
    let slot = ncid >> 16;
    let grp = (ncid & 0xffff) as usize;
    match table().get(&slot) {
        Some(Entry::Ours(ds)) => Ok((ds.clone(), grp)),
        // A delegated dataset reaching our engine: the export did not
        // forward the call (it has no meaning across libraries).
        Some(Entry::Foreign(..)) => Err(NcError::BadId),
        None => Err(NcError::BadId),
    }
}

/// Remove one of our datasets from the table (close/abort).
pub fn remove(ncid: i32) -> NcResult<Shared> {
    let mut t = table();
    match t.get(&(ncid >> 16)) {
        Some(Entry::Ours(_)) => match t.remove(&(ncid >> 16)) {
            Some(Entry::Ours(ds)) => Ok(ds),
            _ => Err(NcError::BadId),
        },
        _ => Err(NcError::BadId),
    }
}

/// Remove a delegated dataset from the table (after the system library closed it).
pub fn remove_foreign(ncid: i32) {
    let mut t = table();
    if let Some(Entry::Foreign(..)) = t.get(&(ncid >> 16)) {
        t.remove(&(ncid >> 16));
        FOREIGN.fetch_sub(1, Ordering::SeqCst);
    }
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
