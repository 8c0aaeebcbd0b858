//! Delegation of everything that is not Zarr to the system's own libnetcdf.
//!
//! A classic or netCDF-4/HDF5 file, a DAP URL, anything our engine does not
//! serve is opened by the system library (found at a default location or named
//! by `NCZARR_SYSTEM_NETCDF`), loaded `RTLD_LOCAL | RTLD_DEEPBIND` so that its
//! own internal calls stay inside it. Its datasets get ncids from our handle
//! table (`handles::insert_foreign`): the slot is ours, the group bits are the
//! same in both libraries.
//!
//! Every export that takes an `ncid` starts with
//! `ffi_boundary!(forward ncid => nc_xxx(ncid, a, b, ...); ...)`: when `ncid`
//! names a delegated dataset, the call goes to the system library's function
//! of the same name (with its own id), inside the panic boundary, and its
//! status is returned unchanged.
//!
//! A second system library may hold datasets: one built with MPI, to which
//! `nc_create_par` and `nc_open_par` hand paths that are not Zarr (found as
//! the serial one is, `NCZARR_SYSTEM_NETCDF_MPI`). Each delegated ncid knows
//! its library, and every later call on it goes there.

use std::ffi::{c_char, c_int, c_void};

use crate::api::delegated::Adopted;
use crate::api::handles::{self, Lib};
use crate::sys::mpi::{CommArg, InfoArg};
pub(crate) use crate::sys::netcdf::{cast_like, function, global, serial, system};

/// A dataset held by a system library: its id there, and which library.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Delegated {
    pub ext_ncid: c_int,
    pub lib: Lib,
}

impl Delegated {
    /// The address of `name` (NUL-terminated) in this dataset's library.
    pub(crate) fn symbol(&self, name: &[u8]) -> Option<*mut std::ffi::c_void> {
        crate::sys::netcdf::symbol_in(self.lib, name)
    }

    /// This dataset's library's function `name` with the C signature of `like`.
    ///
    /// # Safety
    /// `F` must be the C signature of `name`.
    pub(crate) unsafe fn function<F: Copy>(&self, like: F, name: &[u8]) -> Option<F> {
        let p = self.symbol(name)?;
        // SAFETY: p is the address of `name` in the library and `F` its C
        // signature (this function's contract), which is what cast_like needs.
        Some(unsafe { cast_like(like, p) })
    }

    /// Hold while calling into this dataset's library.
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'static, ()> {
        crate::sys::netcdf::lock(self.lib)
    }
}

/// The delegated dataset behind `ncid`, if it is one.
pub(crate) fn lookup(ncid: c_int) -> Option<Delegated> {
    handles::foreign(ncid).map(|(ext_ncid, lib)| Delegated { ext_ncid, lib })
}

/// nc_open's mode bit for writing.
const NC_WRITE: c_int = 1;

type OpenFn = unsafe extern "C" fn(*const c_char, c_int, *mut c_int) -> c_int;
type CloseFn = unsafe extern "C" fn(c_int) -> c_int;

/// nc_open / nc_create of a path that is not Zarr: by the system library when
/// there is one (`None` when there is not). On success `*ncidp` is our id.
///
/// # Safety
/// `path` is NUL-terminated; `ncidp` is writable.
pub(crate) unsafe fn open_or_create(
    create: bool,
    path: *const c_char,
    mode: c_int,
    ncidp: *mut c_int,
) -> Option<c_int> {
    let (name, like): (&[u8], OpenFn) = if create {
        (b"nc_create\0", super::file::nc_create)
    } else {
        (b"nc_open\0", super::file::nc_open)
    };
    // SAFETY: netcdf.h declares nc_open and nc_create as
    // int(const char*, int, int*) in every netcdf-c, the type of `like`.
    let f = unsafe { function(like, name) }?;
    let mut ext: c_int = -1;
    let guard = serial();
    // SAFETY: path is NUL-terminated (this function's contract) and ext is a
    // local the call writes the system library's id to.
    let rc = unsafe { f(path, mode, &mut ext) };
    drop(guard);
    if rc != 0 {
        return Some(rc);
    }
    // A read-only open of a master: the aggregation layer above delegation.
    let ext = if !create && mode & NC_WRITE == 0 && !crate::aggregate::raw_by_env() {
        // SAFETY: path is NUL-terminated (this function's contract).
        let name = unsafe { std::ffi::CStr::from_ptr(path) }.to_string_lossy();
        match crate::api::delegated::adopt(&name, ext) {
            Ok(Adopted::Ours(id)) => {
                // SAFETY: ncidp is writable (this function's contract).
                unsafe { ncidp.write(id) };
                return Some(0);
            }
            Ok(Adopted::Delegated(ext)) => ext,
            Err(e) => return Some(e.code()),
        }
    } else {
        ext
    };
    match handles::insert_foreign(ext, Lib::Serial) {
        Ok(id) => {
            // SAFETY: ncidp is writable (this function's contract).
            unsafe { ncidp.write(id) };
            Some(0)
        }
        Err(e) => {
            // No slot for it: close it again there.
            let like: CloseFn = super::file::nc_close;
            // SAFETY: netcdf.h declares nc_close as int(int), the type of `like`.
            if let Some(close) = unsafe { function(like, b"nc_close\0") } {
                let _g = serial();
                // SAFETY: only an int crosses; ext is the id the system
                // library just gave out.
                unsafe { close(ext) };
            }
            Some(e.code())
        }
    }
}

type OpenParFn = unsafe extern "C" fn(*const c_char, c_int, *mut c_void, *mut c_void, *mut c_int) -> c_int;
type OpenParFortranFn = unsafe extern "C" fn(*const c_char, c_int, c_int, c_int, *mut c_int) -> c_int;

/// nc_create_par / nc_open_par (or their `_fortran` variants, as `comm`
/// says) of a path that is not Zarr: by the parallel system library when
/// there is one, `None` when there is not; NC_ENOPAR when the program
/// cannot share Open MPI's objects with it (`parallel_mpi_mismatch`).
/// Every process of the communicator calls it (the call is collective
/// there as here). On success `*ncidp` is our id, whose every later call
/// goes to that library.
///
/// # Safety
/// `path` is NUL-terminated; `ncidp` is writable; `comm` and `info` are
/// handles of the calling process's MPI.
pub(crate) unsafe fn open_par(
    create: bool,
    path: *const c_char,
    mode: c_int,
    comm: CommArg,
    info: InfoArg,
    ncidp: *mut c_int,
) -> Option<c_int> {
    crate::sys::netcdf::parallel_system()?;
    if let Some(name) = crate::sys::netcdf::parallel_mpi_mismatch() {
        crate::nclog!(
            crate::log::Level::Error,
            "nc_create_par/nc_open_par of a file that is not Zarr: the program holds its own copy of \
             Open MPI's {name} (an executable built without -fPIC), which the parallel system \
             libnetcdf cannot share: rebuild it with -fPIC"
        );
        return Some(crate::error::NcError::NoPar.code());
    }
    // The settings the program made before this library was loaded.
    super::file::apply_settings_to_system();
    let lib = Lib::Parallel;
    let mut ext: c_int = -1;
    let rc = match (comm, info) {
        (CommArg::C(c), InfoArg::C(i)) => {
            let (name, like): (&[u8], OpenParFn) = if create {
                (b"nc_create_par\0", super::parallel::nc_create_par)
            } else {
                (b"nc_open_par\0", super::parallel::nc_open_par)
            };
            let p = crate::sys::netcdf::symbol_in(lib, name)?;
            // SAFETY: netcdf_par.h declares nc_create_par and nc_open_par as
            // int(const char*, int, MPI_Comm, MPI_Info, int*); with Open MPI
            // (the only MPI this library accepts) both handles are pointers,
            // the type of `like`.
            let f = unsafe { cast_like(like, p) };
            let _g = crate::sys::netcdf::lock(lib);
            // SAFETY: path is NUL-terminated (this function's contract), the
            // handles are the caller's own, and ext is a local the call writes.
            unsafe { f(path, mode, c, i, &mut ext) }
        }
        (CommArg::Fortran(c), InfoArg::Fortran(i)) => {
            let (name, like): (&[u8], OpenParFortranFn) = if create {
                (b"nc_create_par_fortran\0", super::parallel::nc_create_par_fortran)
            } else {
                (b"nc_open_par_fortran\0", super::parallel::nc_open_par_fortran)
            };
            let p = crate::sys::netcdf::symbol_in(lib, name)?;
            // SAFETY: netcdf_par.h declares both `_fortran` variants as
            // int(const char*, int, int, int, int*), the type of `like`.
            let f = unsafe { cast_like(like, p) };
            let _g = crate::sys::netcdf::lock(lib);
            // SAFETY: path is NUL-terminated (this function's contract), the
            // Fortran handles are plain ints, and ext is a local the call writes.
            unsafe { f(path, mode, c, i, &mut ext) }
        }
        // The exports always pass two handles of one kind.
        _ => return Some(crate::error::NcError::Internal.code()),
    };
    if rc != 0 {
        return Some(rc);
    }
    match handles::insert_foreign(ext, lib) {
        Ok(id) => {
            // SAFETY: ncidp is writable (this function's contract).
            unsafe { ncidp.write(id) };
            Some(0)
        }
        Err(e) => {
            // No slot for it: close it again there.
            let like: CloseFn = super::file::nc_close;
            if let Some(p) = crate::sys::netcdf::symbol_in(lib, b"nc_close\0") {
                // SAFETY: netcdf.h declares nc_close as int(int), the type of `like`.
                let close = unsafe { cast_like(like, p) };
                let _g = crate::sys::netcdf::lock(lib);
                // SAFETY: only an int crosses; ext is the id it just gave out.
                unsafe { close(ext) };
            }
            Some(e.code())
        }
    }
}

/// nc_close / nc_abort of a delegated dataset: the system library's answer;
/// the slot is freed either way. None when `ncid` is not delegated.
pub(crate) fn close(ncid: c_int, abort: bool) -> Option<c_int> {
    let d = lookup(ncid)?;
    let name: &[u8] = if abort { b"nc_abort\0" } else { b"nc_close\0" };
    let like: CloseFn = super::file::nc_close;
    // SAFETY: netcdf.h declares nc_close and nc_abort as int(int), the type
    // of `like`.
    let rc = match unsafe { d.function(like, name) } {
        Some(f) => {
            let _g = d.lock();
            // SAFETY: only an int crosses: the system library's own id.
            unsafe { f(d.ext_ncid) }
        }
        None => crate::error::NcError::NotBuilt.code(),
    };
    handles::remove_foreign(ncid);
    Some(rc)
}

/// Forward a call to the system libnetcdf when `ncid` names one of its datasets.
/// Names the export itself and every argument, in order. The second form runs
/// `$after(rc)` (with the caller's own `ncid` in scope) to translate group ids
/// the system library wrote into out-parameters. Used only inside
/// `ffi_boundary!` (its `forward` clause), whose closure it returns from.
macro_rules! forward {
    ($ncid:ident => $f:ident ( $($arg:expr),* $(,)? )) => {
        $crate::ffi::delegate::forward!($ncid => $f($($arg),*); after |rc: ::std::ffi::c_int| rc)
    };
    ($ncid:ident => $f:ident ( $($arg:expr),* $(,)? ); after $after:expr) => {
        if let Some(__d) = $crate::ffi::delegate::lookup($ncid) {
            let __rc = {
                let __ours = $f as unsafe extern "C" fn($($crate::ffi::delegate::forward!(@ty $arg)),*) -> ::std::ffi::c_int;
                match __d.symbol(concat!(stringify!($f), "\0").as_bytes()) {
                    None => $crate::error::NcError::NotBuilt.code(),
                    Some(__p) => {
                        // SAFETY: __p is the system library's symbol of the
                        // export's own name, and both libraries implement it
                        // with netcdf.h's prototype, the type of __ours.
                        let __theirs = unsafe { $crate::ffi::delegate::cast_like(__ours, __p) };
                        #[allow(unused_variables)]
                        let $ncid = __d.ext_ncid;
                        let __serial = __d.lock();
                        // SAFETY: the caller's arguments reach a function with
                        // the same prototype and the same documented pointer
                        // rules as the export they were given to (only the ncid
                        // is replaced, by the system library's own id).
                        unsafe { __theirs($($arg),*) }
                    }
                }
            };
            #[allow(clippy::redundant_closure_call)]
            return ($after)(__rc);
        }
    };
    (@ty $x:expr) => { _ };
}
pub(crate) use forward;

/// After a forwarded call succeeded: turn the `n` group ids the system
/// library wrote at `p` into ours (same group bits, our slot of `ours`).
///
/// # Safety
/// `p` is NULL or valid for `n` reads and writes.
pub(crate) unsafe fn map_out_ncids(ours: c_int, rc: c_int, p: *mut c_int, n: usize) -> c_int {
    if rc == 0 && !p.is_null() {
        for i in 0..n {
            // SAFETY: i < n and p is valid for n reads and writes (this
            // function's contract).
            unsafe {
                let q = p.add(i);
                q.write(handles::from_foreign(ours, q.read()));
            }
        }
    }
    rc
}

/// Register a dataset the system library just opened or created (`rc` its
/// status, `ext` its id there) and write our id to `ncidp`.
///
/// # Safety
/// `ncidp` is NULL or writable.
pub(crate) unsafe fn adopt(rc: c_int, ext: c_int, ncidp: *mut c_int) -> c_int {
    if rc != 0 {
        return rc;
    }
    match handles::insert_foreign(ext, Lib::Serial) {
        Ok(id) => {
            // SAFETY: ncidp is NULL or writable (this function's contract).
            unsafe { super::put(ncidp, id) };
            0
        }
        Err(e) => e.code(),
    }
}
