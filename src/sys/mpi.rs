//! MPI, resolved at run time in the calling process. The library never
//! links libmpi: `nc_create_par`/`nc_open_par` look the MPI functions up
//! among the symbols the process already has (`dlsym(RTLD_DEFAULT)`: the
//! program linked libmpi and called `MPI_Init`), so serial programs and
//! machines without MPI are not affected.
//!
//! Only Open MPI's ABI is bound (what Debian ships): its handles are
//! pointers to global objects (`MPI_COMM_WORLD` is `&ompi_mpi_comm_world`,
//! `MPI_BYTE` is `&ompi_mpi_byte`), so an `MPI_Comm` passed by value is a
//! pointer. MPICH's ABI (integer handles) is recognised and refused.
//!
//! [`Comm`] is the safe face the rest of the library uses: a communicator
//! duplicated from the caller's and freed on drop, with the few collective
//! operations the parallel layer needs.

use std::ffi::{CString, c_int, c_void};
use std::sync::OnceLock;

use crate::error::{NcError, NcResult};
use crate::log::Level;

/// An Open MPI handle (`MPI_Comm`, `MPI_Datatype`, `MPI_Op`, `MPI_Info`).
type Handle = *mut c_void;

type FnFlag = unsafe extern "C" fn(*mut c_int) -> c_int;
type FnCommDup = unsafe extern "C" fn(Handle, *mut Handle) -> c_int;
type FnCommFree = unsafe extern "C" fn(*mut Handle) -> c_int;
type FnCommInt = unsafe extern "C" fn(Handle, *mut c_int) -> c_int;
type FnBarrier = unsafe extern "C" fn(Handle) -> c_int;
type FnBcast = unsafe extern "C" fn(*mut c_void, c_int, Handle, c_int, Handle) -> c_int;
type FnAllreduce = unsafe extern "C" fn(*const c_void, *mut c_void, c_int, Handle, Handle, Handle) -> c_int;
type FnAlltoall = unsafe extern "C" fn(*const c_void, c_int, Handle, *mut c_void, c_int, Handle, Handle) -> c_int;
type FnAlltoallv = unsafe extern "C" fn(
    *const c_void,
    *const c_int,
    *const c_int,
    Handle,
    *mut c_void,
    *const c_int,
    *const c_int,
    Handle,
    Handle,
) -> c_int;
type FnF2c = unsafe extern "C" fn(c_int) -> Handle;

/// The MPI functions and predefined handles of the process.
struct Api {
    initialized: FnFlag,
    finalized: FnFlag,
    comm_dup: FnCommDup,
    comm_free: FnCommFree,
    comm_rank: FnCommInt,
    comm_size: FnCommInt,
    barrier: FnBarrier,
    bcast: FnBcast,
    allreduce: FnAllreduce,
    alltoall: FnAlltoall,
    alltoallv: FnAlltoallv,
    comm_f2c: FnF2c,
    info_f2c: FnF2c,
    byte: Handle,
    int: Handle,
    ulonglong: Handle,
    op_min: Handle,
    op_max: Handle,
    op_sum: Handle,
}

// SAFETY: the handles are addresses of Open MPI's predefined global objects,
// constant for the life of the process; sharing them between threads shares
// only the addresses.
unsafe impl Send for Api {}
// SAFETY: as for Send: nothing here is mutated after it is found.
unsafe impl Sync for Api {}

static API: OnceLock<Result<Api, &'static str>> = OnceLock::new();

/// The address of `name` among the process's global symbols, or None.
fn symbol(name: &str) -> Option<*mut c_void> {
    let c = CString::new(name).ok()?;
    // SAFETY: dlsym with RTLD_DEFAULT only searches the global symbol scope
    // for a NUL-terminated name; it does not load anything.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c.as_ptr()) };
    (!p.is_null()).then_some(p)
}

/// A function symbol typed as `F`.
///
/// # Safety
/// `F` must be the function-pointer type of the C function `name` in the
/// MPI ABI this module binds (Open MPI's).
unsafe fn function<F: Copy>(name: &str) -> Result<F, &'static str> {
    let p = symbol(name).ok_or("an MPI function is missing")?;
    debug_assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: F is a function pointer type of pointer size (the caller's
    // contract); p is the address of that function.
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
}

fn find() -> Result<Api, &'static str> {
    if symbol("MPI_Initialized").is_none() {
        return Err("the program has no MPI (it was not linked with libmpi)");
    }
    if symbol("ompi_mpi_comm_world").is_none() {
        return Err("the program's MPI is not Open MPI (only Open MPI's ABI is supported)");
    }
    let global = |name: &str| symbol(name).ok_or("an Open MPI predefined handle is missing");
    // SAFETY: each type alias below is the C prototype of the named
    // function in Open MPI's mpi.h (handles passed as pointers), as
    // `function` requires.
    unsafe {
        Ok(Api {
            initialized: function("MPI_Initialized")?,
            finalized: function("MPI_Finalized")?,
            comm_dup: function("MPI_Comm_dup")?,
            comm_free: function("MPI_Comm_free")?,
            comm_rank: function("MPI_Comm_rank")?,
            comm_size: function("MPI_Comm_size")?,
            barrier: function("MPI_Barrier")?,
            bcast: function("MPI_Bcast")?,
            allreduce: function("MPI_Allreduce")?,
            alltoall: function("MPI_Alltoall")?,
            alltoallv: function("MPI_Alltoallv")?,
            comm_f2c: function("MPI_Comm_f2c")?,
            info_f2c: function("MPI_Info_f2c")?,
            byte: global("ompi_mpi_byte")?,
            int: global("ompi_mpi_int")?,
            ulonglong: global("ompi_mpi_unsigned_long_long")?,
            op_min: global("ompi_mpi_op_min")?,
            op_max: global("ompi_mpi_op_max")?,
            op_sum: global("ompi_mpi_op_sum")?,
        })
    }
}

/// The process's MPI, when it has one and has initialised it (and not yet
/// finalised it); NC_ENOPAR otherwise, with the reason in the log.
fn api() -> NcResult<&'static Api> {
    let api = match API.get_or_init(find) {
        Ok(a) => a,
        Err(why) => {
            crate::nclog!(Level::Error, "parallel I/O: {}", why);
            return Err(NcError::NoPar);
        }
    };
    let (mut init, mut fin) = (0, 0);
    // SAFETY: MPI_Initialized and MPI_Finalized may be called at any time,
    // before MPI_Init and after MPI_Finalize; each writes one int.
    unsafe {
        (api.initialized)(&mut init);
        (api.finalized)(&mut fin);
    }
    if init == 0 || fin != 0 {
        crate::nclog!(
            Level::Error,
            "parallel I/O: MPI is not initialised (MPI_Init) or already finalised"
        );
        return Err(NcError::NoPar);
    }
    Ok(api)
}

/// A communicator handle as the caller passes it: Open MPI's pointer, or a
/// Fortran integer handle to convert.
#[derive(Debug, Clone, Copy)]
pub enum CommArg {
    C(*mut c_void),
    Fortran(c_int),
}

/// An info handle as the caller passes it (accepted, not used: no hint
/// applies to Zarr storage).
#[derive(Debug, Clone, Copy)]
pub enum InfoArg {
    C(*mut c_void),
    Fortran(c_int),
}

/// A reduction of [`Comm::allreduce`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Min,
    Max,
    Sum,
}

fn check(rc: c_int) -> NcResult<()> {
    if rc == 0 {
        Ok(())
    } else {
        crate::nclog!(Level::Error, "MPI call failed with error class {}", rc);
        Err(NcError::Mpi)
    }
}

/// A communicator of our own (duplicated from the caller's), freed on drop.
#[derive(Debug)]
pub struct Comm {
    raw: Handle,
    rank: usize,
    size: usize,
}

// SAFETY: an MPI communicator is a process-wide handle; the library calls
// MPI on it only from the thread that holds the dataset's lock, one call at
// a time (MPI_THREAD_SERIALIZED use, which every MPI level allows as long as
// the program's other threads do not call MPI at the same time).
unsafe impl Send for Comm {}
// SAFETY: as for Send: every method takes &self but runs under the
// dataset's lock.
unsafe impl Sync for Comm {}

impl Comm {
    /// Duplicate the caller's communicator (the info handle is only
    /// checked to be convertible). NC_ENOPAR when the process has no
    /// initialised Open MPI.
    pub fn dup(comm: CommArg, info: InfoArg) -> NcResult<Comm> {
        let api = api()?;
        let from = match comm {
            CommArg::C(p) => p,
            // SAFETY: MPI_Comm_f2c converts any integer; an invalid one gives
            // MPI_COMM_NULL, which MPI_Comm_dup rejects with an error code.
            CommArg::Fortran(f) => unsafe { (api.comm_f2c)(f) },
        };
        if let InfoArg::Fortran(f) = info {
            // SAFETY: as above, for info handles; the result is not used.
            let _ = unsafe { (api.info_f2c)(f) };
        }
        if from.is_null() {
            return Err(NcError::Inval);
        }
        let mut raw: Handle = std::ptr::null_mut();
        // SAFETY: `from` is the caller's communicator (its contract on
        // nc_create_par); raw receives the new handle.
        check(unsafe { (api.comm_dup)(from, &mut raw) })?;
        let (mut rank, mut size) = (0, 0);
        // SAFETY: raw is the valid communicator just made; each call writes one int.
        unsafe {
            check((api.comm_rank)(raw, &mut rank))?;
            check((api.comm_size)(raw, &mut size))?;
        }
        Ok(Comm {
            raw,
            rank: usize::try_from(rank).map_err(|_| NcError::Mpi)?,
            size: usize::try_from(size).map_err(|_| NcError::Mpi)?.max(1),
        })
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn size(&self) -> usize {
        self.size
    }

    fn api(&self) -> NcResult<&'static Api> {
        api()
    }

    pub fn barrier(&self) -> NcResult<()> {
        let api = self.api()?;
        // SAFETY: raw is our live communicator.
        check(unsafe { (api.barrier)(self.raw) })
    }

    /// Broadcast `buf` from `root` (every rank passes a buffer of the same length).
    pub fn bcast(&self, buf: &mut [u8], root: usize) -> NcResult<()> {
        let api = self.api()?;
        let n = c_int::try_from(buf.len()).map_err(|_| NcError::Mpi)?;
        let root = c_int::try_from(root).map_err(|_| NcError::Inval)?;
        // SAFETY: buf holds n bytes, written on the other ranks and read on root.
        check(unsafe { (api.bcast)(buf.as_mut_ptr().cast(), n, api.byte, root, self.raw) })
    }

    fn op(&self, op: Op) -> NcResult<Handle> {
        let api = self.api()?;
        Ok(match op {
            Op::Min => api.op_min,
            Op::Max => api.op_max,
            Op::Sum => api.op_sum,
        })
    }

    /// Reduce one int over every rank; every rank gets the result.
    pub fn allreduce_i32(&self, v: i32, op: Op) -> NcResult<i32> {
        let api = self.api()?;
        let mut out: c_int = 0;
        let h = self.op(op)?;
        // SAFETY: one int in, one int out, on our live communicator.
        check(unsafe {
            (api.allreduce)(
                (&v as *const c_int).cast(),
                (&mut out as *mut c_int).cast(),
                1,
                api.int,
                h,
                self.raw,
            )
        })?;
        Ok(out)
    }

    /// Reduce a vector of u64 element-wise over every rank (every rank
    /// passes the same length).
    pub fn allreduce_u64(&self, v: &[u64], op: Op) -> NcResult<Vec<u64>> {
        let api = self.api()?;
        let mut out = vec![0u64; v.len()];
        if v.is_empty() {
            return Ok(out);
        }
        let n = c_int::try_from(v.len()).map_err(|_| NcError::Mpi)?;
        let h = self.op(op)?;
        // SAFETY: v and out hold n unsigned long longs each.
        check(unsafe {
            (api.allreduce)(
                v.as_ptr().cast(),
                out.as_mut_ptr().cast(),
                n,
                api.ulonglong,
                h,
                self.raw,
            )
        })?;
        Ok(out)
    }

    /// Send `send[r]` to rank r and receive one message from every rank
    /// (indexed by source). A message of 2 GiB or more, or more than 2 GiB
    /// to receive, on any rank: every rank gets NC_EMPI and nothing is
    /// exchanged (every rank still makes the same MPI calls, so none waits).
    pub fn alltoallv(&self, send: &[Vec<u8>]) -> NcResult<Vec<Vec<u8>>> {
        let api = self.api()?;
        if send.len() != self.size {
            return Err(NcError::Internal);
        }
        let mut fits = true;
        let mut scount = Vec::with_capacity(self.size);
        for m in send {
            let c = c_int::try_from(m.len()).unwrap_or_else(|_| {
                fits = false;
                0
            });
            scount.push(c);
        }
        let mut rcount = vec![0 as c_int; self.size];
        // SAFETY: size ints out and size ints in, one per rank.
        check(unsafe {
            (api.alltoall)(
                scount.as_ptr().cast(),
                1,
                api.int,
                rcount.as_mut_ptr().cast(),
                1,
                api.int,
                self.raw,
            )
        })?;
        let displs = |counts: &[c_int]| -> Option<Vec<c_int>> {
            let mut d = Vec::with_capacity(counts.len());
            let mut at: c_int = 0;
            for &c in counts {
                d.push(at);
                at = at.checked_add(c)?;
            }
            Some(d)
        };
        let (sdispl, rdispl) = match (displs(&scount), displs(&rcount)) {
            (Some(s), Some(r)) if fits => (s, r),
            _ => (Vec::new(), Vec::new()),
        };
        let ok = i32::from(!sdispl.is_empty() || self.size == 0);
        if self.allreduce_i32(ok, Op::Min)? == 0 {
            crate::nclog!(
                Level::Error,
                "parallel: more than 2 GiB to exchange between two processes"
            );
            return Err(NcError::Mpi);
        }
        let sendbuf: Vec<u8> = send.concat();
        let total: usize = rcount.iter().map(|&c| c as usize).sum();
        let mut recvbuf = vec![0u8; total.max(1)];
        let nothing = [0u8; 1];
        let sendptr = if sendbuf.is_empty() {
            nothing.as_ptr()
        } else {
            sendbuf.as_ptr()
        };
        // SAFETY: the counts and displacements describe sendbuf and recvbuf
        // exactly (prefix sums of the counts, which every rank agreed on in
        // the MPI_Alltoall above); an empty send buffer is never read.
        check(unsafe {
            (api.alltoallv)(
                sendptr.cast(),
                scount.as_ptr(),
                sdispl.as_ptr(),
                api.byte,
                recvbuf.as_mut_ptr().cast(),
                rcount.as_ptr(),
                rdispl.as_ptr(),
                api.byte,
                self.raw,
            )
        })?;
        Ok(rcount
            .iter()
            .zip(&rdispl)
            .map(|(&c, &d)| recvbuf[d as usize..(d + c) as usize].to_vec())
            .collect())
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        // After MPI_Finalize nothing may be freed (the handle died with MPI).
        let Ok(api) = api() else { return };
        // SAFETY: raw is the communicator this value owns, freed once here.
        unsafe {
            (api.comm_free)(&mut self.raw);
        }
    }
}

/// Ok when the process has an initialised MPI this library can use;
/// NC_ENOPAR (and a log line saying why) otherwise.
pub fn ready() -> NcResult<()> {
    api().map(|_| ())
}
