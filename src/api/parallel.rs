//! Datasets written and read by several MPI processes together
//! (`nc_create_par`, `nc_open_par`): a layer over the model and the engine,
//! chosen at create/open, that never forks them.
//!
//! - **Metadata is collective.** Every process makes every define-mode call
//!   with the same arguments (as netcdf-c requires), so each keeps the same
//!   model. At `nc_enddef`, `nc_sync` and `nc_close` only process 0 writes
//!   metadata objects; the others update their model as if they had. Each
//!   such point ends with an agreement of every process (an allreduce), so
//!   none goes on before every object is complete.
//! - **Data: the unit a process owns is a chunk** (a shard for a sharded
//!   Zarr v3 variable). The units a write covers completely go from the
//!   writing process straight to storage. The part of a unit the write
//!   covers only in part is sent to the unit's owner process (its linear
//!   index, an unlimited dimension counting as one unit in the weights,
//!   modulo the number of processes), which merges every part it receives
//!   into the stored unit and writes it: two-phase I/O. In collective mode
//!   (`nc_var_par_access(..., NC_COLLECTIVE)`) the parts are exchanged
//!   within each `nc_put_var*` call; in independent mode (the default, as
//!   in netcdf-c) each process keeps its parts until the next collective
//!   point (`nc_enddef`, `nc_sync`, `nc_close`, a collective put), where
//!   they are exchanged and merged. Parts to the same values are applied
//!   in rank order (the higher rank's values win).
//! - **Unlimited dimensions** grow by the maximum over the processes at
//!   every collective point.
//! - **Reads** are local; at every collective point each process writes
//!   its cached chunks and empties its caches, so it then reads what every
//!   process wrote.
//! - **Errors**: every collective point ends by agreeing on one code (the
//!   minimum of the processes' codes), so every process returns the same
//!   and none waits for one that gave up.
//! - **One process** (`mpirun -np 1`, or a communicator of one) shares
//!   nothing with anyone: its writes go through the engine as a serial
//!   dataset's do (whole chunks straight to storage, the rest merged in the
//!   cache, read back at once), a collective put is just a put, and
//!   `nc_enddef`, `nc_sync` and `nc_close` do what they do serially; no
//!   part is held, exchanged or counted, and the caches are kept.
//! - **Traffic**: each process counts the bytes of parts it sends to and
//!   receives from the others; with `NCZARR_MPI_STATS` naming a file, it
//!   appends one line of them there when the dataset is closed.
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use super::handles;
use super::url::{StoreKind, Target};
use crate::engine::{self, MemIn};
use crate::error::{NcError, NcResult};
use crate::format::write;
use crate::log::Level;
use crate::model::Dataset;
use crate::model::types::{NC_GLOBAL, NcType};
use crate::storage::{Capabilities, Durability, Key, Store, StoreResult};
use crate::sys::mpi::{Comm, CommArg, InfoArg, Op};

/// `nc_var_par_access` modes (netcdf_par.h).
pub const NC_INDEPENDENT: i32 = 0;
pub const NC_COLLECTIVE: i32 = 1;

/// What a parallel dataset adds to the model: the communicator and each
/// process's pending parts.
#[derive(Debug)]
pub struct Parallel {
    comm: Comm,
    /// The dataset's path, for the stats line.
    path: String,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Variables in collective mode, by (group, varid).
    collective: HashSet<(usize, i32)>,
    /// Parts of units this process wrote in independent mode, for their
    /// owners at the next collective point.
    held: Vec<Part>,
    /// What went between this process and the others.
    traffic: Traffic,
}

/// Environment variable naming the file each process appends its
/// [`Traffic`] line to when it closes a parallel dataset.
pub const ENV_STATS: &str = "NCZARR_MPI_STATS";

/// Bytes of parts exchanged with the other processes (encoded, headers
/// included; parts a process owns itself never leave it and are not
/// counted), how many exchanges there were, and the time this process
/// spent in the collective MPI calls of its collective points (waiting
/// there for slower processes, mostly).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Traffic {
    exchanges: u64,
    parts_sent: u64,
    bytes_sent: u64,
    bytes_received: u64,
    wait: std::time::Duration,
}

impl Traffic {
    /// Count one exchange: `out[r]` went to process r, `received[r]` came
    /// from it; `me` is this process.
    fn count(&mut self, me: usize, out: &[Vec<u8>], parts_out: &[u64], received: &[Vec<u8>]) {
        self.exchanges += 1;
        for (r, m) in out.iter().enumerate().filter(|&(r, _)| r != me) {
            self.bytes_sent += m.len() as u64;
            self.parts_sent += parts_out.get(r).copied().unwrap_or(0);
        }
        for (_, m) in received.iter().enumerate().filter(|&(r, _)| r != me) {
            self.bytes_received += m.len() as u64;
        }
    }

    /// The line of one process for the stats file.
    fn line(&self, rank: usize, size: usize, path: &str) -> String {
        format!(
            "nczarr-mpi rank={rank} size={size} exchanges={} parts_sent={} bytes_sent={} bytes_received={} wait_ms={} path={path}\n",
            self.exchanges,
            self.parts_sent,
            self.bytes_sent,
            self.bytes_received,
            self.wait.as_millis()
        )
    }
}

impl Drop for Parallel {
    fn drop(&mut self) {
        let Some(file) = std::env::var_os(ENV_STATS).filter(|v| !v.is_empty()) else {
            return;
        };
        let t = self.state().traffic;
        let line = t.line(self.comm.rank(), self.comm.size(), &self.path);
        // One write of one short line with O_APPEND: the processes' lines
        // do not interleave.
        let r = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&file)
            .and_then(|mut f| std::io::Write::write_all(&mut f, line.as_bytes()));
        if let Err(e) = r {
            crate::nclog!(Level::Warn, "{ENV_STATS}={file:?}: {e}");
        }
    }
}

/// The values a write put into part of one unit: a hyperslab of the
/// variable inside that unit, in the caller's memory type.
#[derive(Debug, Clone, PartialEq)]
struct Part {
    owner: usize,
    grp: usize,
    varid: i32,
    mem: NcType,
    start: Vec<usize>,
    count: Vec<usize>,
    stride: Vec<usize>,
    data: Vec<u8>,
}

impl Parallel {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // Held parts and modes stay consistent whatever panicked.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One process in the communicator: no unit is shared, nothing is
    /// exchanged or agreed, and no other process writes what the caches
    /// hold, so the dataset takes the serial engine's route.
    fn alone(&self) -> bool {
        self.comm.size() == 1
    }

    /// Run one collective MPI call, adding its time to [`Traffic::wait`].
    fn timed<T>(&self, call: impl FnOnce(&Comm) -> T) -> T {
        let t0 = std::time::Instant::now();
        let r = call(&self.comm);
        self.state().traffic.wait += t0.elapsed();
        r
    }
}

/// Ok when the calling process has an MPI the library can use (NC_ENOPAR
/// otherwise): checked before any argument, as a serial netcdf-c answers
/// NC_ENOPAR whatever the arguments.
pub fn mpi_ready() -> NcResult<()> {
    crate::sys::mpi::ready()
}

/// The parallel state of a dataset, None for a dataset of one process.
pub fn of(ds: &Dataset) -> Option<Arc<Parallel>> {
    ds.parallel.clone().and_then(|p| p.downcast::<Parallel>().ok())
}

/// Agree on one result over every process: the minimum of the error codes
/// (0 for success). A process that succeeded alone gets the others' error.
fn agree<T>(comm: &Comm, r: NcResult<T>) -> NcResult<T> {
    let mine = r.as_ref().err().map_or(0, |e| e.code());
    let all = comm.allreduce_i32(mine, Op::Min)?;
    if all == 0 {
        return r;
    }
    if mine == 0 {
        crate::nclog!(Level::Error, "parallel: another process failed ({})", all);
    }
    Err(NcError::from_code(all).unwrap_or(NcError::Internal))
}

/// The storage a parallel dataset may use: a directory (every process sees
/// the same file system) or S3. A zip archive is one file that one writer
/// rebuilds: refused.
fn check_location(path: &str, for_create: bool) -> NcResult<()> {
    match super::url::classify(path, for_create)? {
        Target::Zarr(loc) if loc.kind == StoreKind::Zip => {
            crate::nclog!(
                Level::Error,
                "{}: a zip archive cannot be written by several processes (use a directory)",
                path
            );
            Err(NcError::Inval)
        }
        Target::Zarr(_) => Ok(()),
        Target::NotZarr => {
            crate::nclog!(Level::Error, "{}: not a Zarr dataset: no parallel I/O for it", path);
            Err(NcError::NoPar)
        }
    }
}

fn attach(mut ds: Dataset, comm: Comm, path: &str) -> NcResult<i32> {
    ds.parallel = Some(Arc::new(Parallel {
        comm,
        path: path.to_string(),
        state: Mutex::new(State::default()),
    }));
    handles::insert(ds)
}

/// nc_create_par: process 0 creates the dataset (replacing what the mode
/// allows), then, once it is there, the others open it and build the same
/// model.
pub fn create(path: &str, cmode: i32, comm: CommArg, info: InfoArg) -> NcResult<i32> {
    let comm = Comm::dup(comm, info)?;
    let first = check_location(path, true).and_then(|()| {
        if comm.rank() == 0 {
            super::create_dataset(path, cmode).map(Some)
        } else {
            Ok(None)
        }
    });
    let ds = match agree(&comm, first)? {
        Some(ds) => Ok(ds),
        None => super::attach_created(path).map(|mut ds| {
            // The model as process 0 has it once it wrote the root group.
            mute_metadata(&mut ds);
            ds
        }),
    };
    let ds = agree(&comm, ds)?;
    attach(ds, comm, path)
}

/// nc_open_par: every process opens the dataset and reads its metadata.
pub fn open(path: &str, mode: i32, comm: CommArg, info: InfoArg) -> NcResult<i32> {
    let comm = Comm::dup(comm, info)?;
    let ds = check_location(path, false).and_then(|()| super::open_view(path, mode, &[]));
    let ds = agree(&comm, ds)?;
    attach(ds, comm, path)
}

/// nc_var_par_access: NC_ENOPAR for a dataset of one process; NC_GLOBAL
/// sets every variable of the group.
pub fn var_par_access(ds: &Dataset, grp: usize, varid: i32, mode: i32) -> NcResult<()> {
    let par = of(ds).ok_or(NcError::NoPar)?;
    if mode != NC_INDEPENDENT && mode != NC_COLLECTIVE {
        return Err(NcError::Inval);
    }
    let ids: Vec<i32> = if varid == NC_GLOBAL {
        (0..ds.groups[grp].vars.len() as i32).collect()
    } else {
        ds.var(grp, varid)?;
        vec![varid]
    };
    let mut st = par.state();
    for id in ids {
        if mode == NC_COLLECTIVE {
            st.collective.insert((grp, id));
        } else {
            st.collective.remove(&(grp, id));
        }
    }
    Ok(())
}

/// Whether a data call on (grp, varid) is collective. A variable that does
/// not exist (the call fails on this process) counts as collective when
/// any variable is, so that a process with a bad varid still takes part in
/// its peers' collective call.
fn is_collective(ds: &Dataset, par: &Parallel, grp: usize, varid: i32) -> bool {
    let st = par.state();
    if ds.var(grp, varid).is_ok() {
        st.collective.contains(&(grp, varid))
    } else {
        !st.collective.is_empty()
    }
}

/// The end of a data write: on a variable in collective mode, the
/// collective point where the parts of this write are merged; the result
/// every process then returns is agreed. Otherwise `r`.
pub fn after_put(ds: &mut Dataset, grp: usize, varid: i32, r: NcResult<()>) -> NcResult<()> {
    match of(ds) {
        Some(par) if is_collective(ds, &par, grp, varid) => collective_point(ds, &par, r, None),
        _ => r,
    }
}

/// A collective point: unlimited dimensions agreed, cached chunks written
/// and caches emptied, held parts exchanged and merged by their owners,
/// then (`meta`: at nc_enddef, nc_sync, nc_close) metadata written by
/// process 0 and the store flushed to that level; `local` is this
/// process's result so far. Every process runs every collective step
/// whatever failed before, and all return one agreed result.
pub fn collective_point(
    ds: &mut Dataset,
    par: &Parallel,
    local: NcResult<()>,
    meta: Option<Durability>,
) -> NcResult<()> {
    let mut first: Option<NcError> = local.err();
    let mut note = |r: NcResult<()>| {
        if let Err(e) = r {
            first.get_or_insert(e);
        }
    };
    if par.alone() {
        // What nc_sync does to a serial dataset; a collective put is done.
        if let (true, Some(level)) = (ds.writable, meta) {
            note(engine::flush_chunks(ds));
            note(write::sync_metadata(ds, &engine::put_all));
            note(ds.store.flush(level).map_err(NcError::from));
        }
        return first.map_or(Ok(()), Err);
    }
    if ds.writable {
        note(grow_to_max(ds, par));
        note(flush_and_forget(ds));
        note(exchange(ds, par));
        note(flush_and_forget(ds));
        if let Some(level) = meta {
            note(metadata(ds, par));
            note(ds.store.flush(level).map_err(NcError::from));
        }
    }
    par.timed(|comm| agree(comm, first.map_or(Ok(()), Err)))
}

/// Every unlimited dimension takes the largest length any process has.
fn grow_to_max(ds: &mut Dataset, par: &Parallel) -> NcResult<()> {
    let unlim: Vec<usize> = (0..ds.dims.len()).filter(|&d| ds.dims[d].unlimited).collect();
    let lens: Vec<u64> = unlim.iter().map(|&d| ds.dims[d].len as u64).collect();
    let max = par.timed(|comm| comm.allreduce_u64(&lens, Op::Max))?;
    let mut grown = Vec::new();
    for (&d, &m) in unlim.iter().zip(&max) {
        let m = usize::try_from(m).map_err(|_| NcError::Internal)?;
        if m > ds.dims[d].len {
            ds.dims[d].len = m;
            grown.push(d);
        }
    }
    ds.dims_grown(&grown);
    Ok(())
}

/// Write this process's dirty chunks, then forget every cached chunk and
/// shard index: other processes may have changed them.
fn flush_and_forget(ds: &mut Dataset) -> NcResult<()> {
    let r = engine::flush_chunks(ds);
    for g in ds.groups.iter_mut() {
        for v in g.vars.iter_mut() {
            if !v.cache.has_dirty() {
                v.cache.clear();
            }
            v.shard_indexes = Arc::default();
        }
    }
    r
}

/// Send every held part to its owner and merge the parts received, in
/// rank order.
fn exchange(ds: &mut Dataset, par: &Parallel) -> NcResult<()> {
    let held = std::mem::take(&mut par.state().held);
    let size = par.comm.size();
    let mut out = vec![Vec::new(); size];
    let mut parts_out = vec![0u64; size];
    for p in &held {
        encode_part(p, &mut out[p.owner % size]);
        parts_out[p.owner % size] += 1;
    }
    drop(held);
    let received = par.timed(|comm| comm.alltoallv(&out))?;
    par.state().traffic.count(par.comm.rank(), &out, &parts_out, &received);
    drop(out);
    let mut first = None;
    for msg in received {
        let mut at = 0;
        while at < msg.len() {
            let p = decode_part(&msg, &mut at)?;
            let stride: Vec<isize> = p.stride.iter().map(|&s| s as isize).collect();
            let r = engine::put_vars(
                ds,
                p.grp,
                p.varid,
                &p.start,
                &p.count,
                Some(&stride),
                MemIn::Num {
                    ty: p.mem,
                    data: &p.data,
                },
            );
            if let Err(e) = r {
                first.get_or_insert(e);
            }
        }
    }
    first.map_or(Ok(()), Err)
}

fn encode_part(p: &Part, out: &mut Vec<u8>) {
    let u64s = |v: u64, out: &mut Vec<u8>| out.extend_from_slice(&v.to_le_bytes());
    u64s(p.grp as u64, out);
    out.extend_from_slice(&p.varid.to_le_bytes());
    out.extend_from_slice(&p.mem.id().to_le_bytes());
    u64s(p.start.len() as u64, out);
    for d in 0..p.start.len() {
        u64s(p.start[d] as u64, out);
        u64s(p.count[d] as u64, out);
        u64s(p.stride[d] as u64, out);
    }
    u64s(p.data.len() as u64, out);
    out.extend_from_slice(&p.data);
}

/// One part from a message of another process (checked like stored bytes:
/// a short or inconsistent message is NC_EINTERNAL, never a panic).
fn decode_part(msg: &[u8], at: &mut usize) -> NcResult<Part> {
    fn take<'a>(msg: &'a [u8], at: &mut usize, n: usize) -> NcResult<&'a [u8]> {
        let end = at.checked_add(n).ok_or(NcError::Internal)?;
        let s = msg.get(*at..end).ok_or(NcError::Internal)?;
        *at = end;
        Ok(s)
    }
    let u64 = |at: &mut usize| -> NcResult<u64> {
        Ok(u64::from_le_bytes(
            take(msg, at, 8)?.try_into().map_err(|_| NcError::Internal)?,
        ))
    };
    let i32 = |at: &mut usize| -> NcResult<i32> {
        Ok(i32::from_le_bytes(
            take(msg, at, 4)?.try_into().map_err(|_| NcError::Internal)?,
        ))
    };
    let size = |v: u64| usize::try_from(v).map_err(|_| NcError::Internal);
    let grp = size(u64(at)?)?;
    let varid = i32(at)?;
    let mem = NcType::from_id(i32(at)?)?;
    let ndims = size(u64(at)?)?;
    if ndims > crate::model::types::NC_MAX_VAR_DIMS {
        return Err(NcError::Internal);
    }
    let (mut start, mut count, mut stride) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ndims {
        start.push(size(u64(at)?)?);
        count.push(size(u64(at)?)?);
        stride.push(size(u64(at)?)?);
    }
    let n = size(u64(at)?)?;
    let data = take(msg, at, n)?.to_vec();
    let values = count
        .iter()
        .try_fold(1usize, |a, &c| a.checked_mul(c))
        .ok_or(NcError::Internal)?;
    if values.checked_mul(mem.size()) != Some(data.len()) {
        return Err(NcError::Internal);
    }
    Ok(Part {
        owner: 0,
        grp,
        varid,
        mem,
        start,
        count,
        stride,
        data,
    })
}

/// Metadata at a collective point: process 0 writes it; the others update
/// their model the same way and write nothing.
fn metadata(ds: &mut Dataset, par: &Parallel) -> NcResult<()> {
    if par.comm.rank() == 0 {
        write::sync_metadata(ds, &engine::put_all)
    } else {
        mute_metadata(ds);
        Ok(())
    }
}

/// Run the metadata writer over a store that writes nothing: the model
/// ends as it does on the process that writes.
fn mute_metadata(ds: &mut Dataset) {
    let real = ds.store.clone();
    ds.store = Arc::new(Muted(real.clone()));
    let r = write::sync_metadata(ds, &|_, _, _| Ok(()));
    ds.store = real;
    if let Err(e) = r {
        crate::nclog!(Level::Warn, "parallel: metadata model update failed: {:?}", e);
    }
}

/// A store through which nothing is written (reads pass through).
#[derive(Debug)]
struct Muted(Arc<dyn Store>);

impl Store for Muted {
    fn get(&self, key: &Key, max_len: u64) -> StoreResult<Option<Vec<u8>>> {
        self.0.get(key, max_len)
    }
    fn get_range(&self, key: &Key, offset: u64, len: u64) -> StoreResult<Option<Vec<u8>>> {
        self.0.get_range(key, offset, len)
    }
    fn len(&self, key: &Key) -> StoreResult<Option<u64>> {
        self.0.len(key)
    }
    fn put(&self, _key: &Key, _data: &[u8]) -> StoreResult<()> {
        Ok(())
    }
    fn delete(&self, _key: &Key) -> StoreResult<()> {
        Ok(())
    }
    fn list(&self, prefix: &Key) -> StoreResult<Vec<String>> {
        self.0.list(prefix)
    }
    fn flush(&self, _level: Durability) -> StoreResult<()> {
        Ok(())
    }
    fn capabilities(&self) -> Capabilities {
        self.0.capabilities()
    }
}

/// How one dimension of a write meets the units (chunks or shards).
#[derive(Debug, Clone, PartialEq)]
struct DimUnits {
    /// The first unit touched.
    first: u64,
    /// Per unit from `first` on: the request's index range inside it
    /// (empty when the stride jumps over it), and whether the write covers
    /// all of the unit that lies inside the array.
    spans: Vec<(usize, usize, bool)>,
}

/// The units one dimension of a write touches. `unit` is the unit size;
/// `bound` is the dimension's length for a fixed dimension and None for an
/// unlimited one (whose units are covered only in full).
fn dim_units(start: usize, count: usize, stride: usize, unit: usize, bound: Option<usize>) -> DimUnits {
    let last = start + (count - 1) * stride;
    let (first, end) = (start / unit, last / unit);
    let mut spans = Vec::with_capacity(end - first + 1);
    for u in first..=end {
        let (lo, hi) = (u * unit, (u + 1) * unit);
        let i_lo = if lo > start { (lo - start).div_ceil(stride) } else { 0 };
        let i_hi = count.min((hi - start).div_ceil(stride));
        let span = bound.map_or(hi, |b| hi.min(b)) - lo;
        let hits = i_hi.saturating_sub(i_lo);
        let whole = hits > 0 && start + i_lo * stride == lo && hits == span && (stride == 1 || span == 1);
        spans.push((i_lo, i_hi.max(i_lo), whole));
    }
    DimUnits {
        first: first as u64,
        spans,
    }
}

/// Copy the values of the request's sub-box `lo..hi` (request indices per
/// dimension) out of the request's row-major values.
fn gather(data: &[u8], es: usize, count: &[usize], lo: &[usize], hi: &[usize]) -> Vec<u8> {
    let n: usize = lo.iter().zip(hi).map(|(a, b)| b - a).product();
    let mut out = Vec::with_capacity(n * es);
    let nd = count.len();
    let row = (hi[nd - 1] - lo[nd - 1]) * es;
    let mut idx: Vec<usize> = lo.to_vec();
    loop {
        let off = idx.iter().zip(count).fold(0usize, |a, (&i, &c)| a * c + i);
        out.extend_from_slice(&data[off * es..off * es + row]);
        // Next row: the dimensions before the last, odometer style.
        let mut d = nd - 1;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < hi[d] {
                break;
            }
            idx[d] = lo[d];
        }
    }
}

/// A write to a parallel dataset, this process's half: the units it covers
/// completely go to storage through the engine; the parts of the others
/// are held for their owners (`after_put` or the next collective point
/// sends them).
#[allow(clippy::too_many_arguments)]
pub fn put_vars(
    ds: &mut Dataset,
    par: &Parallel,
    grp: usize,
    varid: i32,
    start: &[usize],
    count: &[usize],
    stride: Option<&[isize]>,
    src: MemIn<'_>,
) -> NcResult<()> {
    let MemIn::Num { ty: mem, data } = src else {
        crate::nclog!(
            Level::Error,
            "parallel: NC_STRING values are not written in parallel yet"
        );
        return Err(NcError::Inval);
    };
    let var = ds.var(grp, varid)?;
    if par.alone() || var.is_scalar() || count.contains(&0) {
        return engine::put_vars(ds, grp, varid, start, count, stride, src);
    }
    let nd = var.dimids.len();
    let unit: Vec<usize> = match &var.shards {
        Some(l) => l.shard.clone(),
        None => var.chunks.clone(),
    };
    let chunk = var.chunks.clone();
    if start.len() < nd || count.len() < nd || unit.len() < nd || unit.contains(&0) {
        return Err(NcError::Internal);
    }
    let strides: Vec<usize> = match stride {
        Some(s) => s[..nd]
            .iter()
            .map(|&x| usize::try_from(x).map_err(|_| NcError::Stride))
            .collect::<NcResult<_>>()?,
        None => vec![1; nd],
    };
    let dims: Vec<DimUnits> = (0..nd)
        .map(|d| {
            let dim = &ds.dims[var.dimids[d]];
            let bound = (!dim.unlimited).then_some(dim.len);
            dim_units(start[d], count[d], strides[d], unit[d], bound)
        })
        .collect();
    // Weights of the owner's linear index: the units per fixed dimension,
    // an unlimited one counting as one.
    let mut weights = vec![1u64; nd];
    for d in (0..nd.saturating_sub(1)).rev() {
        let dim = &ds.dims[var.dimids[d + 1]];
        let n = if dim.unlimited {
            1
        } else {
            dim.len.div_ceil(unit[d + 1]).max(1) as u64
        };
        weights[d] = weights[d + 1].wrapping_mul(n);
    }
    let all_whole = dims.iter().all(|u| u.spans.iter().all(|s| s.2));
    let keep = |idx: &[u64]| -> bool {
        all_whole
            || idx.iter().enumerate().all(|(d, &c)| {
                let u = c * chunk[d] as u64 / unit[d] as u64;
                u.checked_sub(dims[d].first)
                    .and_then(|k| dims[d].spans.get(k as usize))
                    .is_some_and(|s| s.2)
            })
    };
    engine::put_vars_where(
        ds,
        grp,
        varid,
        start,
        count,
        stride,
        MemIn::Num { ty: mem, data },
        &keep,
    )?;
    if all_whole {
        return Ok(());
    }
    let size = par.comm.size() as u64;
    let es = mem.size();
    let mut parts = Vec::new();
    let mut k = vec![0usize; nd];
    'units: loop {
        let spans: Vec<(usize, usize, bool)> = (0..nd).map(|d| dims[d].spans[k[d]]).collect();
        if spans.iter().all(|s| s.0 < s.1) && !spans.iter().all(|s| s.2) {
            let lo: Vec<usize> = spans.iter().map(|s| s.0).collect();
            let hi: Vec<usize> = spans.iter().map(|s| s.1).collect();
            let linear = (0..nd).fold(0u64, |a, d| {
                a.wrapping_add((dims[d].first + k[d] as u64).wrapping_mul(weights[d]))
            });
            parts.push(Part {
                owner: (linear % size) as usize,
                grp,
                varid,
                mem,
                start: (0..nd).map(|d| start[d] + lo[d] * strides[d]).collect(),
                count: (0..nd).map(|d| hi[d] - lo[d]).collect(),
                stride: strides.clone(),
                data: gather(data, es, &count[..nd], &lo, &hi),
            });
        }
        let mut d = nd;
        loop {
            if d == 0 {
                break 'units;
            }
            d -= 1;
            k[d] += 1;
            if k[d] < dims[d].spans.len() {
                break;
            }
            k[d] = 0;
        }
    }
    par.state().held.extend(parts);
    Ok(())
}

/// nc_abort of a parallel dataset: every process drops its pending
/// changes; process 0 removes a dataset this handle created.
pub fn abort(ds: &Dataset, par: &Parallel) -> NcResult<()> {
    par.state().held.clear();
    let r = par.comm.barrier().and_then(|()| {
        if par.comm.rank() == 0 && ds.created && ds.writable {
            ds.store.destroy().map_err(NcError::from)
        } else {
            Ok(())
        }
    });
    agree(&par.comm, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_of_one_dimension() {
        // 10 values from 3 in chunks of 4 (fixed length 13): chunk 0 in
        // part, 1 and 2 whole, 3 (values 12..13) whole up to the bound.
        let u = dim_units(3, 10, 1, 4, Some(13));
        assert_eq!(u.first, 0);
        assert_eq!(u.spans, vec![(0, 1, false), (1, 5, true), (5, 9, true), (9, 10, true)]);
        // Unlimited: the last chunk is covered only in part.
        let u = dim_units(3, 10, 1, 4, None);
        assert_eq!(u.spans[3], (9, 10, false));
        // Stride 3 from 0, 4 values (0, 3, 6, 9), chunks of 2: chunk 2
        // (values 4 and 5) is jumped over.
        let u = dim_units(0, 4, 3, 2, Some(10));
        assert_eq!(
            u.spans,
            vec![
                (0, 1, false),
                (1, 2, false),
                (2, 2, false),
                (2, 3, false),
                (3, 4, false)
            ]
        );
        // Chunks of 1 are whole whatever the stride.
        let u = dim_units(1, 3, 2, 1, Some(10));
        assert!(u.spans.iter().all(|s| s.2 || s.0 == s.1));
        assert_eq!(u.spans.iter().filter(|s| s.2).count(), 3);
    }

    #[test]
    fn gather_sub_boxes() {
        // A 3x4 request of bytes 0..12; rows 1..3, columns 1..3.
        let data: Vec<u8> = (0..12).collect();
        assert_eq!(gather(&data, 1, &[3, 4], &[1, 1], &[3, 3]), vec![5, 6, 9, 10]);
        assert_eq!(gather(&data, 1, &[3, 4], &[0, 0], &[3, 4]), data);
        // Two-byte values, one dimension.
        let data: Vec<u8> = (0..8).collect();
        assert_eq!(gather(&data, 2, &[4], &[1], &[3]), vec![2, 3, 4, 5]);
    }

    #[test]
    fn traffic_counts_only_other_processes() {
        let mut t = Traffic::default();
        // Process 1 of 3: 5 bytes (2 parts) to 0, 7 to itself, 3 (1 part) to 2.
        let out = vec![vec![0u8; 5], vec![0u8; 7], vec![0u8; 3]];
        let received = vec![vec![0u8; 11], vec![0u8; 7], Vec::new()];
        t.count(1, &out, &[2, 4, 1], &received);
        t.count(1, &[vec![], vec![], vec![]], &[0, 0, 0], &[vec![], vec![], vec![]]);
        t.wait = std::time::Duration::from_micros(12_345);
        let want = Traffic {
            exchanges: 2,
            parts_sent: 3,
            bytes_sent: 8,
            bytes_received: 11,
            wait: std::time::Duration::from_micros(12_345),
        };
        assert_eq!(t, want);
        assert_eq!(
            t.line(1, 3, "/d/x.zarr"),
            "nczarr-mpi rank=1 size=3 exchanges=2 parts_sent=3 bytes_sent=8 bytes_received=11 wait_ms=12 path=/d/x.zarr\n"
        );
    }

    #[test]
    fn parts_round_trip_and_hostile_messages() {
        let p = Part {
            owner: 0,
            grp: 2,
            varid: 5,
            mem: NcType::Short,
            start: vec![1, 2],
            count: vec![2, 1],
            stride: vec![1, 3],
            data: vec![1, 2, 3, 4],
        };
        let mut msg = Vec::new();
        encode_part(&p, &mut msg);
        encode_part(&p, &mut msg);
        let mut at = 0;
        assert_eq!(decode_part(&msg, &mut at), Ok(p.clone()));
        assert_eq!(decode_part(&msg, &mut at), Ok(p.clone()));
        assert_eq!(at, msg.len());
        // Cut short anywhere: an error, never a panic.
        for cut in 0..msg.len() / 2 {
            let mut at = 0;
            assert!(decode_part(&msg[..cut], &mut at).is_err(), "cut at {cut}");
        }
        // A data length that does not match the counts.
        let mut bad = p.clone();
        bad.data.push(0);
        let mut msg = Vec::new();
        encode_part(&bad, &mut msg);
        assert_eq!(decode_part(&msg, &mut 0), Err(NcError::Internal));
    }
}
