//! Copying between datasets and instance helpers: `nc_copy_var`,
//! `nc_copy_data`, `nc_copy_data_all`, `nc_dump_data`.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, name buffers at least NC_MAX_NAME+1 bytes,
//! out-parameters writable, arrays long enough for what the dataset holds.

use std::ffi::{c_char, c_int, c_void};

use super::att::{nc_copy_att, nc_inq_attname};
use super::data::{nc_get_vara, nc_put_vara};
use super::delegate::forward;
use super::{NC_NOERR, catch, cbytes, malloc_cstring, status};
use crate::error::NcError;
use crate::ffi::{nc_def_var, nc_inq_dim, nc_inq_dimid, nc_inq_var, nc_inq_varid};
use crate::model::types::NcType;

const NC_EINVAL: c_int = -36;
const NC_ENAMEINUSE: c_int = -42;
const NC_EBADTYPE: c_int = -45;
const NC_ENOMEM: c_int = -61;
const NC_EINTERNAL: c_int = -92;
const NC_STRING: c_int = 12;

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
