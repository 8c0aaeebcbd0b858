//! The rest of netcdf.h and netcdf_mem.h: deprecated Cray-era entry points,
//! user-defined formats, in-memory datasets, library settings (alignment,
//! metadata block size, log level, rc table), `nc_copy_var`, and the
//! instance helpers `nc_copy_data*` / `nc_dump_data`.
//!
//! Answers where NCZarr gives a feature no meaning follow netcdf-c (see the
//! README's API coverage table).
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, out-parameters writable, data buffers holding
//! `count` values of the type.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void};
use std::sync::Mutex;

use super::att::{nc_copy_att, nc_inq_attname};
use super::data::{nc_get_vara, nc_put_vara};
use super::delegate::{self, forward};
use super::file::{nc_close, nc_create, nc_open};
use super::meta::{nc_def_var, nc_inq_dim, nc_inq_dimid, nc_inq_var, nc_inq_varid};
use super::{NC_NOERR, catch, cbytes, cstr, malloc_cstring, put, status};
use crate::error::NcError;
use crate::handles;
use crate::types::NcType;

const NC_EINVAL: c_int = -36;
const NC_ENAMEINUSE: c_int = -42;
const NC_EBADTYPE: c_int = -45;
const NC_ENOMEM: c_int = -61;
const NC_EIO: c_int = -68;
const NC_EINTERNAL: c_int = -92;
const NC_ENOTBUILT: c_int = -128;
const NC_WRITE: c_int = 0x0001;
const NC_MMAP: c_int = 0x0010;
const NC_STRING: c_int = 12;
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
    // SAFETY: forwarded contract.
    unsafe { nc_create(path, cmode, ncidp) }
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
    // SAFETY: forwarded contract.
    unsafe { nc_open(path, mode, ncidp) }
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
    catch(NC_EINTERNAL, || {
        let mut ncid = -1;
        // SAFETY: forwarded contract; ncid is a local.
        let st = unsafe { nc_open(path, 0, &mut ncid) };
        if st != NC_NOERR {
            return st;
        }
        let _ = nc_close(ncid);
        if basepe != 0 {
            return NC_EINVAL;
        }
        // SAFETY: path is NUL-terminated (nc_open accepted it).
        if unsafe { libc::unlink(path) } == -1 {
            return NC_EIO;
        }
        NC_NOERR
    })
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_delete(path: *const c_char) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { nc_delete_mp(path, 0) }
}

/// Accepted and ignored for a valid ncid (NC_EBADID otherwise).
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_base_pe(ncid: c_int, pe: c_int) -> c_int {
    forward!(ncid => nc_set_base_pe(ncid, pe));
    status(|| handles::get(ncid).map(|_| ()))
}

/// Always 0 for a valid ncid.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_base_pe(ncid: c_int, pe: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_base_pe(ncid, pe));
    status(|| {
        handles::get(ncid)?;
        // SAFETY: NULL or writable.
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
    catch(NC_EINTERNAL, || {
        let Some(slot) = udf_slot(mode_flag) else {
            return NC_EINVAL;
        };
        if dispatch_table.is_null() {
            return NC_EINVAL;
        }
        let magic = if magic_number.is_null() {
            None
        } else {
            // SAFETY: NUL-terminated (contract above).
            let Ok(m) = (unsafe { cbytes(magic_number) }) else {
                return NC_EINVAL;
            };
            if m.len() > NC_MAX_MAGIC_NUMBER_LEN {
                return NC_EINVAL;
            }
            Some(m)
        };
        // NC_Dispatch starts { int model; int dispatch_version; ... }.
        // SAFETY: the table is an NC_Dispatch (contract above).
        let version = unsafe { dispatch_table.cast::<c_int>().add(1).read() };
        if version != NC_DISPATCH_VERSION {
            return NC_EINVAL;
        }
        let mut udfs = UDFS.lock().unwrap_or_else(|p| p.into_inner());
        udfs[slot].table = dispatch_table as usize;
        if let Some(m) = magic {
            udfs[slot].magic = [0; NC_MAX_MAGIC_NUMBER_LEN];
            udfs[slot].magic[..m.len()].copy_from_slice(m);
        }
        NC_NOERR
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
    catch(NC_EINTERNAL, || {
        let Some(slot) = udf_slot(mode_flag) else {
            return NC_EINVAL;
        };
        let udf = UDFS.lock().unwrap_or_else(|p| p.into_inner())[slot];
        // SAFETY: NULL or writable (contract above).
        unsafe {
            put(dispatch_table, udf.table as *mut NC_Dispatch);
            if !magic_number.is_null() {
                std::ptr::copy_nonoverlapping(udf.magic.as_ptr(), magic_number.cast::<u8>(), NC_MAX_MAGIC_NUMBER_LEN);
            }
        }
        NC_NOERR
    })
}

// ----- in-memory datasets (netcdf_mem.h) -----

/// `NC_memio` of netcdf_mem.h.
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct NC_memio {
    pub size: usize,
    pub memory: *mut c_void,
    pub flags: c_int,
}

/// An in-memory image is a classic or HDF5 file, never Zarr: with arguments
/// netcdf-c accepts, NC_ENOTBUILT (the system libnetcdf's work once
/// delegation is in place); invalid arguments give NC_EINVAL as in netcdf-c.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open_mem(
    path: *const c_char,
    mode: c_int,
    size: usize,
    memory: *mut c_void,
    ncidp: *mut c_int,
) -> c_int {
    if path.is_null() || memory.is_null() || size < 4 || mode & (NC_WRITE | NC_MMAP) != 0 {
        return NC_EINVAL;
    }
    // An in-memory image is a netCDF file, never Zarr: the system library's.
    let like: unsafe extern "C" fn(*const c_char, c_int, usize, *mut c_void, *mut c_int) -> c_int = nc_open_mem;
    // SAFETY: same prototype in every netcdf-c.
    if let Some(f) = unsafe { delegate::function(like, b"nc_open_mem\0") } {
        let mut ext = -1;
        let _g = delegate::serial();
        // SAFETY: arguments passed on under the caller's contract; ext is a local.
        let rc = unsafe { f(path, mode, size, memory, &mut ext) };
        // SAFETY: ncidp NULL or writable.
        return unsafe { delegate::adopt(rc, ext, ncidp) };
    }
    NC_ENOTBUILT
}

/// See `nc_open_mem`.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_create_mem(
    path: *const c_char,
    mode: c_int,
    initialsize: usize,
    ncidp: *mut c_int,
) -> c_int {
    if path.is_null() || mode & NC_MMAP != 0 {
        return NC_EINVAL;
    }
    let like: unsafe extern "C" fn(*const c_char, c_int, usize, *mut c_int) -> c_int = nc_create_mem;
    // SAFETY: same prototype in every netcdf-c.
    if let Some(f) = unsafe { delegate::function(like, b"nc_create_mem\0") } {
        let mut ext = -1;
        let _g = delegate::serial();
        // SAFETY: arguments passed on under the caller's contract; ext is a local.
        let rc = unsafe { f(path, mode, initialsize, &mut ext) };
        // SAFETY: ncidp NULL or writable.
        return unsafe { delegate::adopt(rc, ext, ncidp) };
    }
    NC_ENOTBUILT
}

/// See `nc_open_mem`.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_open_memio(
    path: *const c_char,
    mode: c_int,
    info: *mut NC_memio,
    ncidp: *mut c_int,
) -> c_int {
    let _ = ncidp;
    if path.is_null() || info.is_null() || mode & NC_MMAP != 0 {
        return NC_EINVAL;
    }
    // SAFETY: non-NULL NC_memio (contract above).
    let (size, memory) = unsafe { ((*info).size, (*info).memory) };
    if memory.is_null() || size < 4 {
        return NC_EINVAL;
    }
    let like: unsafe extern "C" fn(*const c_char, c_int, *mut NC_memio, *mut c_int) -> c_int = nc_open_memio;
    // SAFETY: same prototype (and NC_memio layout) in every netcdf-c.
    if let Some(f) = unsafe { delegate::function(like, b"nc_open_memio\0") } {
        let mut ext = -1;
        let _g = delegate::serial();
        // SAFETY: arguments passed on under the caller's contract; ext is a local.
        let rc = unsafe { f(path, mode, info, &mut ext) };
        // SAFETY: ncidp NULL or writable.
        return unsafe { delegate::adopt(rc, ext, ncidp) };
    }
    NC_ENOTBUILT
}

/// Close a dataset; `info` is left untouched, as netcdf-c's NCZarr close
/// ignores it (only in-memory datasets fill it).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_close_memio(ncid: c_int, info: *mut NC_memio) -> c_int {
    if let Some(d) = delegate::lookup(ncid) {
        let like: unsafe extern "C" fn(c_int, *mut NC_memio) -> c_int = nc_close_memio;
        // SAFETY: same prototype in every netcdf-c.
        let rc = match unsafe { delegate::function(like, b"nc_close_memio\0") } {
            Some(f) => {
                let _g = delegate::serial();
                // SAFETY: info passed on under the caller's contract.
                unsafe { f(d.ext_ncid, info) }
            }
            None => NC_ENOTBUILT,
        };
        crate::handles::remove_foreign(ncid);
        return rc;
    }
    nc_close(ncid)
}

// ----- library settings -----

static ALIGNMENT: Mutex<(c_int, c_int)> = Mutex::new((0, 0));

/// Recorded and reported by `nc_get_alignment`; it shapes HDF5 files only,
/// so Zarr datasets ignore it (as in netcdf-c).
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_alignment(threshold: c_int, alignment: c_int) -> c_int {
    *ALIGNMENT.lock().unwrap_or_else(|p| p.into_inner()) = (threshold, alignment);
    NC_NOERR
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_alignment(thresholdp: *mut c_int, alignmentp: *mut c_int) -> c_int {
    let (t, a) = *ALIGNMENT.lock().unwrap_or_else(|p| p.into_inner());
    // SAFETY: NULL or writable.
    unsafe {
        put(thresholdp, t);
        put(alignmentp, a);
    }
    NC_NOERR
}

static META_BLOCK_SIZE: Mutex<usize> = Mutex::new(0);

/// HDF5's metadata block size: recorded, without effect on Zarr (4.10.1).
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_meta_block_size(size: usize) -> c_int {
    *META_BLOCK_SIZE.lock().unwrap_or_else(|p| p.into_inner()) = size;
    NC_NOERR
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_meta_block_size(sizep: *mut usize) -> c_int {
    let s = *META_BLOCK_SIZE.lock().unwrap_or_else(|p| p.into_inner());
    // SAFETY: NULL or writable.
    unsafe { put(sizep, s) };
    NC_NOERR
}

/// The Fortran form of `nc_set_meta_block_size` (4.10.1).
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_meta_block_size_ints(size: c_int) -> c_int {
    match usize::try_from(size) {
        Ok(s) => nc_set_meta_block_size(s),
        Err(_) => NC_EINVAL,
    }
}

/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_meta_block_size_ints(sizep: *mut c_int) -> c_int {
    let s = *META_BLOCK_SIZE.lock().unwrap_or_else(|p| p.into_inner());
    // SAFETY: NULL or writable.
    unsafe { put(sizep, s as c_int) };
    NC_NOERR
}

/// netcdf-c's log level: a level above 0 switches this library's log lines
/// on (as `NCLOGGING` does), 0 or `NC_TURN_OFF_LOGGING` (-1) switches them off.
#[unsafe(no_mangle)]
pub extern "C" fn nc_set_log_level(new_level: c_int) -> c_int {
    catch(NC_EINTERNAL, || {
        crate::log::set_enabled(new_level > 0);
        NC_NOERR
    })
}

/// netcdf-c prints the metadata at log level 2 or more; here: NC_NOERR for a
/// valid ncid (NC_EBADID otherwise), printing nothing.
#[unsafe(no_mangle)]
pub extern "C" fn nc_show_metadata(ncid: c_int) -> c_int {
    forward!(ncid => nc_show_metadata(ncid));
    status(|| handles::get(ncid).map(|_| ()))
}

static RC: Mutex<Option<HashMap<String, String>>> = Mutex::new(None);

/// The value of an rc key set with `nc_rc_set` in this process, as a
/// `malloc`'d copy the caller frees; NULL when unset. (This library reads no
/// `.ncrc` files: its settings come from the URL and environment variables.)
///
/// # Safety
/// `key` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rc_get(key: *const c_char) -> *mut c_char {
    catch(std::ptr::null_mut(), || {
        // SAFETY: NULL or NUL-terminated.
        let Ok(key) = (unsafe { cstr(key) }) else {
            return std::ptr::null_mut();
        };
        let rc = RC.lock().unwrap_or_else(|p| p.into_inner());
        match rc.as_ref().and_then(|m| m.get(key)) {
            Some(v) => malloc_cstring(v.as_bytes()),
            None => std::ptr::null_mut(),
        }
    })
}

/// Set (or replace) an rc key for this process. NULL key or value: NC_EINVAL.
///
/// # Safety
/// `key` and `value` are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rc_set(key: *const c_char, value: *const c_char) -> c_int {
    status(|| {
        // SAFETY: NULL or NUL-terminated.
        let (key, value) = unsafe { (cstr(key)?, cstr(value)?) };
        let mut rc = RC.lock().unwrap_or_else(|p| p.into_inner());
        rc.get_or_insert_with(HashMap::new)
            .insert(key.to_owned(), value.to_owned());
        Ok(())
    })
}

// ----- nc_copy_var -----

/// Copy a variable's definition, attributes and data into another dataset
/// or group (netcdf-c's `nc_copy_var`): the output must hold dimensions of
/// the same names (found from the output group upwards) and no variable of
/// that name. Data moves one index of the first dimension at a time.
/// Takes two ncids: no forwarding of its own.
#[unsafe(no_mangle)]
pub extern "C" fn nc_copy_var(ncid_in: c_int, varid_in: c_int, ncid_out: c_int) -> c_int {
    catch(NC_EINTERNAL, || {
        copy_var(ncid_in, varid_in, ncid_out).err().unwrap_or(NC_NOERR)
    })
}

fn check(st: c_int) -> Result<(), c_int> {
    if st == NC_NOERR { Ok(()) } else { Err(st) }
}

fn copy_var(ncid_in: c_int, varid_in: c_int, ncid_out: c_int) -> Result<(), c_int> {
    let mut name = [0 as c_char; 257];
    let (mut xtype, mut ndims, mut natts) = (0, 0, 0);
    let z = std::ptr::null_mut();
    // SAFETY: name has NC_MAX_NAME+1 bytes; the rest are locals.
    check(unsafe {
        nc_inq_var(
            ncid_in,
            varid_in,
            name.as_mut_ptr(),
            &mut xtype,
            &mut ndims,
            z,
            &mut natts,
        )
    })?;
    let ndims = usize::try_from(ndims).map_err(|_| NC_EINVAL)?;
    let mut dimids = vec![0; ndims];
    // SAFETY: room for every dimension id.
    check(unsafe { nc_inq_var(ncid_in, varid_in, z.cast(), z, z, dimids.as_mut_ptr(), z) })?;
    let mut existing = -1;
    // SAFETY: name is NUL-terminated (written by nc_inq_var).
    if unsafe { nc_inq_varid(ncid_out, name.as_ptr(), &mut existing) } == NC_NOERR {
        return Err(NC_ENAMEINUSE);
    }
    let mut out_dims = Vec::with_capacity(ndims);
    let mut lens = Vec::with_capacity(ndims);
    for &d in &dimids {
        let mut dname = [0 as c_char; 257];
        let mut len = 0usize;
        // SAFETY: buffers of NC_MAX_NAME+1 bytes and locals.
        check(unsafe { nc_inq_dim(ncid_in, d, dname.as_mut_ptr(), &mut len) })?;
        let mut od = -1;
        // SAFETY: dname is NUL-terminated.
        check(unsafe { nc_inq_dimid(ncid_out, dname.as_ptr(), &mut od) })?;
        out_dims.push(od);
        lens.push(len);
    }
    let mut varid_out = -1;
    // SAFETY: name NUL-terminated; out_dims has ndims ids.
    check(unsafe {
        nc_def_var(
            ncid_out,
            name.as_ptr(),
            xtype,
            ndims as c_int,
            out_dims.as_ptr(),
            &mut varid_out,
        )
    })?;
    for a in 0..natts {
        let mut aname = [0 as c_char; 257];
        // SAFETY: buffer of NC_MAX_NAME+1 bytes.
        check(unsafe { nc_inq_attname(ncid_in, varid_in, a, aname.as_mut_ptr()) })?;
        // SAFETY: aname NUL-terminated.
        check(unsafe { nc_copy_att(ncid_in, varid_in, aname.as_ptr(), ncid_out, varid_out) })?;
    }
    let t = NcType::from_id(xtype).map_err(|_| NC_EBADTYPE)?;
    // One slab per index of the first dimension (the whole scalar for ndims 0).
    let per_slab: usize = lens
        .iter()
        .skip(1)
        .try_fold(1usize, |a, &l| a.checked_mul(l))
        .ok_or(NC_ENOMEM)?;
    let nslabs = if ndims == 0 { 1 } else { lens[0] };
    if per_slab == 0 || nslabs == 0 {
        return Ok(());
    }
    let bytes = per_slab.checked_mul(t.size()).ok_or(NC_ENOMEM)?;
    let mut buf: Vec<u8> = Vec::new();
    buf.try_reserve_exact(bytes).map_err(|_| NC_ENOMEM)?;
    buf.resize(bytes, 0);
    let mut start = vec![0usize; ndims];
    let mut count = lens.clone();
    if let Some(c) = count.first_mut() {
        *c = 1;
    }
    for i in 0..nslabs {
        if let Some(s) = start.first_mut() {
            *s = i;
        }
        // SAFETY: buf holds one slab of the variable's type.
        check(unsafe {
            nc_get_vara(
                ncid_in,
                varid_in,
                start.as_ptr(),
                count.as_ptr(),
                buf.as_mut_ptr().cast(),
            )
        })?;
        // SAFETY: as above.
        let st = unsafe { nc_put_vara(ncid_out, varid_out, start.as_ptr(), count.as_ptr(), buf.as_ptr().cast()) };
        if xtype == NC_STRING {
            // SAFETY: nc_get_vara filled buf with per_slab malloc'd strings.
            let _ = unsafe { super::data::nc_free_string(per_slab, buf.as_mut_ptr().cast()) };
        }
        check(st)?;
    }
    Ok(())
}

// ----- instance helpers -----

/// Deep-copy `count` values of an atomic type (strings are duplicated with
/// `malloc`). User-defined types do not exist in Zarr datasets: NC_EBADTYPE.
///
/// # Safety
/// See the module documentation; `copy` has room for `count` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_copy_data(
    ncid: c_int,
    xtype: c_int,
    memory: *const c_void,
    count: usize,
    copy: *mut c_void,
) -> c_int {
    forward!(ncid => nc_copy_data(ncid, xtype, memory, count, copy));
    status(|| {
        let t = NcType::from_id(xtype).map_err(|_| NcError::BadType)?;
        if count == 0 {
            return Ok(());
        }
        if memory.is_null() || copy.is_null() {
            return Err(NcError::Inval);
        }
        let bytes = count.checked_mul(t.size()).ok_or(NcError::NoMem)?;
        if xtype != NC_STRING {
            // SAFETY: both buffers hold count values (contract above).
            unsafe { std::ptr::copy(memory.cast::<u8>(), copy.cast::<u8>(), bytes) };
            return Ok(());
        }
        let src = memory.cast::<*const c_char>();
        let dst = copy.cast::<*mut c_char>();
        for i in 0..count {
            // SAFETY: count string pointers on each side (contract above).
            unsafe {
                let s = src.add(i).read();
                let d = if s.is_null() {
                    std::ptr::null_mut()
                } else {
                    let d = malloc_cstring(cbytes(s)?);
                    if d.is_null() {
                        let _ = super::data::nc_free_string(i, dst);
                        return Err(NcError::NoMem);
                    }
                    d
                };
                dst.add(i).write(d);
            }
        }
        Ok(())
    })
}

/// `nc_copy_data` into a new `malloc`'d block returned in `*copyp`.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_copy_data_all(
    ncid: c_int,
    xtype: c_int,
    memory: *const c_void,
    count: usize,
    copyp: *mut *mut c_void,
) -> c_int {
    forward!(ncid => nc_copy_data_all(ncid, xtype, memory, count, copyp));
    catch(NC_EINTERNAL, || {
        let Ok(t) = NcType::from_id(xtype) else {
            return NC_EBADTYPE;
        };
        let Some(bytes) = count.checked_mul(t.size()) else {
            return NC_ENOMEM;
        };
        // SAFETY: malloc of at least one byte, checked below.
        let block = unsafe { libc::malloc(bytes.max(1)) };
        if block.is_null() {
            return NC_ENOMEM;
        }
        // SAFETY: block has room for count values.
        let st = unsafe { nc_copy_data(ncid, xtype, memory, count, block) };
        if st != NC_NOERR {
            // SAFETY: block came from malloc above.
            unsafe { libc::free(block) };
            return st;
        }
        // SAFETY: NULL or writable; without a place to return it, free it.
        unsafe {
            if copyp.is_null() {
                if xtype == NC_STRING {
                    let _ = super::data::nc_free_string(count, block.cast());
                }
                libc::free(block);
            } else {
                copyp.write(block);
            }
        }
        NC_NOERR
    })
}

/// Print `count` values as text, space separated, into a `malloc`'d string
/// (`*bufp`, caller frees), as netcdf-c 4.9.0: `'c'` for char, `%f` for
/// float and double, strings in double quotes. Unsigned values print as
/// unsigned (netcdf-c prints ushort/uint with `%d`).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_dump_data(
    ncid: c_int,
    xtype: c_int,
    memory: *mut c_void,
    count: usize,
    bufp: *mut *mut c_char,
) -> c_int {
    forward!(ncid => nc_dump_data(ncid, xtype, memory, count, bufp));
    catch(NC_EINTERNAL, || {
        if ncid < 0 || xtype <= 0 || (memory.is_null() && count > 0) {
            return NC_EINVAL;
        }
        if memory.is_null() || count == 0 {
            return NC_NOERR;
        }
        let Ok(t) = NcType::from_id(xtype) else {
            return NC_EBADTYPE;
        };
        let Some(bytes) = count.checked_mul(t.size()) else {
            return NC_ENOMEM;
        };
        // SAFETY: memory holds count values (contract above).
        let mem = unsafe { std::slice::from_raw_parts(memory.cast::<u8>(), bytes) };
        let mut out = String::new();
        for (i, v) in mem.chunks_exact(t.size()).enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&dump_one(xtype, v));
        }
        let s = malloc_cstring(out.as_bytes());
        if s.is_null() {
            return NC_ENOMEM;
        }
        if bufp.is_null() {
            // SAFETY: s came from malloc.
            unsafe { libc::free(s.cast()) };
        } else {
            // SAFETY: writable (contract above).
            unsafe { bufp.write(s) };
        }
        NC_NOERR
    })
}

fn fixed(v: f64) -> String {
    if v.is_nan() {
        if v.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        }
    } else if v.is_infinite() {
        if v < 0.0 { "-inf".into() } else { "inf".into() }
    } else {
        format!("{v:.6}")
    }
}

fn dump_one(xtype: c_int, v: &[u8]) -> String {
    fn arr<const N: usize>(v: &[u8]) -> [u8; N] {
        let mut a = [0u8; N];
        a.copy_from_slice(&v[..N]);
        a
    }
    match xtype {
        2 => format!("'{}'", char::from(v[0])),
        1 => (v[0] as i8).to_string(),
        7 => v[0].to_string(),
        3 => i16::from_ne_bytes(arr(v)).to_string(),
        8 => u16::from_ne_bytes(arr(v)).to_string(),
        4 => i32::from_ne_bytes(arr(v)).to_string(),
        9 => u32::from_ne_bytes(arr(v)).to_string(),
        5 => fixed(f64::from(f32::from_ne_bytes(arr(v)))),
        6 => fixed(f64::from_ne_bytes(arr(v))),
        10 => i64::from_ne_bytes(arr(v)).to_string(),
        11 => u64::from_ne_bytes(arr(v)).to_string(),
        _ => {
            let p = usize::from_ne_bytes(arr(v)) as *const c_char;
            // SAFETY: an NC_STRING value is NULL or a NUL-terminated string.
            let s = unsafe { cbytes(p) }.unwrap_or(b"");
            format!("\"{}\"", String::from_utf8_lossy(s))
        }
    }
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
    type F = unsafe extern "C" fn(*mut u32, *mut u32, *mut u32) -> c_int;
    // SAFETY: dlsym with a NUL-terminated name; RTLD_NEXT skips this library.
    let next = unsafe { libc::dlsym(libc::RTLD_NEXT, c"H5get_libversion".as_ptr()) };
    if !next.is_null() && next != H5get_libversion as *mut c_void {
        // SAFETY: HDF5's H5get_libversion has exactly this prototype.
        let f: F = unsafe { std::mem::transmute::<*mut c_void, F>(next) };
        // SAFETY: the caller's pointers, under the caller's contract.
        return unsafe { f(majnum, minnum, relnum) };
    }
    // SAFETY: NULL or writable.
    unsafe {
        put(majnum, 0);
        put(minnum, 0);
        put(relnum, 0);
    }
    NC_NOERR
}
