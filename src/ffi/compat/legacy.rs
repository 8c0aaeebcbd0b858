//! Entry points kept for old programs: the deprecated Cray-era `_mp`
//! functions and `nc_delete`, user-defined formats (`nc_def_user_format`),
//! and `H5get_libversion`, the one HDF5 name Debian's tools import.
//! Where NCZarr gives a feature no meaning the answer follows netcdf-c
//! (docs/api-coverage.md).
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int, c_void};
use std::sync::Mutex;

use crate::api::handles;
use crate::error::NcError;
use crate::ffi::file::{nc_close, nc_create, nc_open};
use crate::ffi::{NC_NOERR, cbytes, ffi_boundary, put};

const NC_MAX_MAGIC_NUMBER_LEN: usize = 8;
const NC_DISPATCH_VERSION: c_int = 5;
/// The user-defined-format mode flags NC_UDF0..NC_UDF9 (netcdf.h).
const UDF_FLAGS: [c_int; 10] = [
    0x40, 0x80, 0x10000, 0x80000, 0x100000, 0x200000, 0x400000, 0x800000, 0x1000000, 0x2000000,
];

// ----- deprecated Cray-era entry points -----

/// `nc__create` with a base PE (ignored). Returns an ncid: no forwarding of its own.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc__create_mp(
    path: *const c_char,
    cmode: c_int,
    _initialsz: usize,
    _basepe: c_int,
    _chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    ffi_boundary!(code {
        // SAFETY: path and ncidp carry nc_create's contract in this export too.
        unsafe { nc_create(path, cmode, ncidp) }
    })
}

/// `nc__open` with a base PE (ignored). Returns an ncid: no forwarding of its own.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc__open_mp(
    path: *const c_char,
    mode: c_int,
    _basepe: c_int,
    _chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    ffi_boundary!(code {
        // SAFETY: path and ncidp carry nc_open's contract in this export too.
        unsafe { nc_open(path, mode, ncidp) }
    })
}

/// netcdf-c's `nc_delete_mp`: open the dataset (so that a non-dataset is
/// refused), NC_EINVAL unless `basepe` is 0, close it, then `unlink(path)`:
/// NC_EIO when that fails. A Zarr dataset is a directory or a URL, which
/// `unlink` refuses: as in netcdf-c, nothing is deleted and the answer is
/// NC_EIO.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_delete_mp(path: *const c_char, basepe: c_int) -> c_int {
    ffi_boundary!(code {
        let mut ncid = -1;
        // SAFETY: path is NULL or NUL-terminated (this export's contract);
        // ncid is a local.
        let st = unsafe { nc_open(path, 0, &mut ncid) };
        if st != NC_NOERR {
            return st;
        }
        let _ = nc_close(ncid);
        if basepe != 0 {
            return NcError::Inval.code();
        }
        // SAFETY: path is non-NULL and NUL-terminated (nc_open accepted it).
        if unsafe { libc::unlink(path) } == -1 {
            return NcError::Io.code();
        }
        NC_NOERR
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_delete(path: *const c_char) -> c_int {
    ffi_boundary!(code {
        // SAFETY: path carries nc_delete_mp's contract in this export too.
        unsafe { nc_delete_mp(path, 0) }
    })
}

/// Accepted and ignored for a valid ncid (NC_EBADID otherwise).
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_base_pe(ncid: c_int, pe: c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_set_base_pe(ncid, pe); status {
        handles::get(ncid).map(|_| ())
    })
}

/// Always 0 for a valid ncid.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_base_pe(ncid: c_int, pe: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_base_pe(ncid, pe); status {
        handles::get(ncid)?;
        // SAFETY: pe is NULL or writable (this export's contract).
        unsafe { put(pe, 0) };
        Ok(())
    })
}

// ----- user-defined formats -----

/// netcdf_dispatch.h's dispatch table, opaque here: only its second `int`
/// (`dispatch_version`) is read.
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct NC_Dispatch {
    _opaque: [u8; 0],
}

/// A registered user-defined format: the caller's dispatch table (kept as
/// an address, never called: this library dispatches only to its own engine)
/// and its magic number.
#[derive(Clone, Copy, Default)]
struct Udf {
    table: usize,
    magic: [u8; NC_MAX_MAGIC_NUMBER_LEN],
}

static UDFS: Mutex<[Udf; 10]> = Mutex::new(
    [Udf {
        table: 0,
        magic: [0; NC_MAX_MAGIC_NUMBER_LEN],
    }; 10],
);

fn udf_slot(mode_flag: c_int) -> Option<usize> {
    UDF_FLAGS.iter().position(|&f| f == mode_flag)
}

/// Record a user-defined format (NC_UDF0..NC_UDF9), checking what netcdf-c
/// checks: a known flag, a table of dispatch version 5, a magic number of at
/// most 8 bytes. The table is reported back by `nc_inq_user_format` but never
/// used to open a dataset.
///
/// # Safety
/// `dispatch_table` is NULL or points to an `NC_Dispatch`; `magic_number` is
/// NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_user_format(
    mode_flag: c_int,
    dispatch_table: *mut NC_Dispatch,
    magic_number: *mut c_char,
) -> c_int {
    ffi_boundary!(status {
        let slot = udf_slot(mode_flag).ok_or(NcError::Inval)?;
        if dispatch_table.is_null() {
            return Err(NcError::Inval);
        }
        let magic = if magic_number.is_null() {
            None
        } else {
            // SAFETY: magic_number is non-NULL and NUL-terminated (this export's contract).
            let m = unsafe { cbytes(magic_number) }?;
            if m.len() > NC_MAX_MAGIC_NUMBER_LEN {
                return Err(NcError::Inval);
            }
            Some(m)
        };
        // NC_Dispatch starts { int model; int dispatch_version; ... }.
        // SAFETY: dispatch_table is non-NULL and points to an NC_Dispatch
        // (this export's contract), whose second member is an int.
        let version = unsafe { dispatch_table.cast::<c_int>().add(1).read() };
        if version != NC_DISPATCH_VERSION {
            return Err(NcError::Inval);
        }
        let mut udfs = UDFS.lock().unwrap_or_else(|p| p.into_inner());
        udfs[slot].table = dispatch_table as usize;
        if let Some(m) = magic {
            udfs[slot].magic = [0; NC_MAX_MAGIC_NUMBER_LEN];
            udfs[slot].magic[..m.len()].copy_from_slice(m);
        }
        Ok(())
    })
}

/// The table and magic number recorded for a user-defined format (NULL and
/// an empty string when none). `magic_number` receives up to 8 bytes, NUL
/// terminated when shorter (as `strncpy` in netcdf-c).
///
/// # Safety
/// `dispatch_table` is NULL or writable; `magic_number` is NULL or has room
/// for `NC_MAX_MAGIC_NUMBER_LEN` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_user_format(
    mode_flag: c_int,
    dispatch_table: *mut *mut NC_Dispatch,
    magic_number: *mut c_char,
) -> c_int {
    ffi_boundary!(status {
        let slot = udf_slot(mode_flag).ok_or(NcError::Inval)?;
        let udf = UDFS.lock().unwrap_or_else(|p| p.into_inner())[slot];
        // SAFETY: dispatch_table is NULL or writable, magic_number NULL or with
        // room for NC_MAX_MAGIC_NUMBER_LEN bytes (this export's contract).
        unsafe {
            put(dispatch_table, udf.table as *mut NC_Dispatch);
            if !magic_number.is_null() {
                std::ptr::copy_nonoverlapping(udf.magic.as_ptr(), magic_number.cast::<u8>(), NC_MAX_MAGIC_NUMBER_LEN);
            }
        }
        Ok(())
    })
}

// ----- the one HDF5 name -----

/// `herr_t H5get_libversion(unsigned*, unsigned*, unsigned*)`, HDF5's.
///
/// Debian's python3-netcdf4 calls it to fill `netCDF4.__hdf5libversion__`
/// but does not link libhdf5 itself: it finds the name through the libhdf5
/// that Debian's libnetcdf.so.19 pulls in, and it is loaded with every
/// symbol bound at once, so without this export `import netCDF4` fails. When
/// a real HDF5 is loaded in the process (after this library in the lookup
/// order) the call goes to it; otherwise the answer is 0.0.0 (no HDF5 here),
/// with success, as the module requires. No other HDF5 name is exported.
///
/// # Safety
/// Each pointer is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn H5get_libversion(majnum: *mut u32, minnum: *mut u32, relnum: *mut u32) -> c_int {
    // HDF5's herr_t: negative on failure.
    ffi_boundary!(on_panic(-1) {
        type F = unsafe extern "C" fn(*mut u32, *mut u32, *mut u32) -> c_int;
        // SAFETY: dlsym takes a NUL-terminated name; RTLD_NEXT searches the
        // objects loaded after this library only.
        let next = unsafe { libc::dlsym(libc::RTLD_NEXT, c"H5get_libversion".as_ptr()) };
        if !next.is_null() && next != H5get_libversion as *mut c_void {
            // SAFETY: next is HDF5's H5get_libversion, declared in H5public.h
            // as herr_t(unsigned*, unsigned*, unsigned*): the type F.
            let f: F = unsafe { std::mem::transmute::<*mut c_void, F>(next) };
            // SAFETY: each pointer is NULL or writable (this export's
            // contract), which HDF5 requires too.
            return unsafe { f(majnum, minnum, relnum) };
        }
        // SAFETY: each pointer is NULL or writable (this export's contract).
        unsafe {
            put(majnum, 0);
            put(minnum, 0);
            put(relnum, 0);
        }
        NC_NOERR
    })
}
