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
use super::{NC_NOERR, cbytes, ffi_boundary, malloc_cstring, slice, slice_mut};
use crate::error::{NcError, NcResult};
use crate::ffi::{nc_def_var, nc_inq_dim, nc_inq_dimid, nc_inq_var, nc_inq_varid};
use crate::model::types::{NC_MAX_NAME, NcType};

// ----- nc_copy_var -----

/// Copy a variable's definition, attributes and data into another dataset
/// or group (netcdf-c's `nc_copy_var`): the output must hold dimensions of
/// the same names (found from the output group upwards) and no variable of
/// that name. Data moves one index of the first dimension at a time.
/// Takes two ncids: no forwarding of its own.
#[unsafe(no_mangle)]
pub extern "C" fn nc_copy_var(ncid_in: c_int, varid_in: c_int, ncid_out: c_int) -> c_int {
    ffi_boundary!(code { copy_var(ncid_in, varid_in, ncid_out).err().unwrap_or(NC_NOERR) })
}

/// A status of a call made through the exports (from either library, so a
/// positive errno too) as a result that keeps it.
fn check(st: c_int) -> Result<(), c_int> {
    if st == NC_NOERR { Ok(()) } else { Err(st) }
}

fn copy_var(ncid_in: c_int, varid_in: c_int, ncid_out: c_int) -> Result<(), c_int> {
    let mut name = [0 as c_char; NC_MAX_NAME + 1];
    let (mut xtype, mut ndims, mut natts) = (0, 0, 0);
    let z = std::ptr::null_mut();
    // SAFETY: name has NC_MAX_NAME+1 bytes; the rest are locals or NULL.
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
    let ndims = usize::try_from(ndims).map_err(|_| NcError::Inval.code())?;
    let mut dimids = vec![0; ndims];
    // SAFETY: dimids has room for every dimension id; the rest are NULL.
    check(unsafe { nc_inq_var(ncid_in, varid_in, z.cast(), z, z, dimids.as_mut_ptr(), z) })?;
    let mut existing = -1;
    // SAFETY: name is NUL-terminated (written by nc_inq_var); existing is a local.
    if unsafe { nc_inq_varid(ncid_out, name.as_ptr(), &mut existing) } == NC_NOERR {
        return Err(NcError::NameInUse.code());
    }
    let mut out_dims = Vec::with_capacity(ndims);
    let mut lens = Vec::with_capacity(ndims);
    for &d in &dimids {
        let mut dname = [0 as c_char; NC_MAX_NAME + 1];
        let mut len = 0usize;
        // SAFETY: dname has NC_MAX_NAME+1 bytes; len is a local.
        check(unsafe { nc_inq_dim(ncid_in, d, dname.as_mut_ptr(), &mut len) })?;
        let mut od = -1;
        // SAFETY: dname is NUL-terminated (written by nc_inq_dim); od is a local.
        check(unsafe { nc_inq_dimid(ncid_out, dname.as_ptr(), &mut od) })?;
        out_dims.push(od);
        lens.push(len);
    }
    let mut varid_out = -1;
    // SAFETY: name is NUL-terminated; out_dims holds ndims ids; varid_out is a local.
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
        let mut aname = [0 as c_char; NC_MAX_NAME + 1];
        // SAFETY: aname has NC_MAX_NAME+1 bytes.
        check(unsafe { nc_inq_attname(ncid_in, varid_in, a, aname.as_mut_ptr()) })?;
        // SAFETY: aname is NUL-terminated (written by nc_inq_attname).
        check(unsafe { nc_copy_att(ncid_in, varid_in, aname.as_ptr(), ncid_out, varid_out) })?;
    }
    let t = NcType::from_id(xtype).map_err(|e| e.code())?;
    // One slab per index of the first dimension (the whole scalar for ndims 0).
    let per_slab: usize = lens
        .iter()
        .skip(1)
        .try_fold(1usize, |a, &l| a.checked_mul(l))
        .ok_or(NcError::NoMem.code())?;
    let nslabs = if ndims == 0 { 1 } else { lens[0] };
    if per_slab == 0 || nslabs == 0 {
        return Ok(());
    }
    let bytes = per_slab.checked_mul(t.size()).ok_or(NcError::NoMem.code())?;
    // Whole 8-byte words: string pointers and doubles are read and written
    // in place, aligned.
    let mut buf: Vec<u64> = Vec::new();
    buf.try_reserve_exact(bytes.div_ceil(8))
        .map_err(|_| NcError::NoMem.code())?;
    buf.resize(bytes.div_ceil(8), 0);
    let mut start = vec![0usize; ndims];
    let mut count = lens.clone();
    if let Some(c) = count.first_mut() {
        *c = 1;
    }
    for i in 0..nslabs {
        if let Some(s) = start.first_mut() {
            *s = i;
        }
        // SAFETY: start and count hold ndims values; buf has room for one
        // slab of the variable's type.
        check(unsafe {
            nc_get_vara(
                ncid_in,
                varid_in,
                start.as_ptr(),
                count.as_ptr(),
                buf.as_mut_ptr().cast(),
            )
        })?;
        // SAFETY: start and count hold ndims values; buf holds the slab just read.
        let st = unsafe { nc_put_vara(ncid_out, varid_out, start.as_ptr(), count.as_ptr(), buf.as_ptr().cast()) };
        if t == NcType::String {
            // SAFETY: nc_get_vara filled buf with per_slab malloc'd strings (or NULLs).
            let _ = unsafe { super::data::nc_free_string(per_slab, buf.as_mut_ptr().cast()) };
        }
        check(st)?;
    }
    Ok(())
}

// ----- instance helpers -----

/// `nc_copy_data` in netcdf-c's order of checks: a negative ncid or type,
/// and NULL memory or copy with values, are NC_EINVAL; nothing to copy needs
/// no dataset; then the dataset and the type.
///
/// # Safety
/// `memory` is NULL or holds `count` values of `xtype`; `copy` is NULL or
/// has room for as many.
unsafe fn copy_data(ncid: c_int, xtype: c_int, memory: *const c_void, count: usize, copy: *mut c_void) -> NcResult<()> {
    if ncid < 0 || xtype <= 0 {
        return Err(NcError::Inval);
    }
    if count > 0 && (memory.is_null() || copy.is_null()) {
        return Err(NcError::Inval);
    }
    if memory.is_null() || count == 0 {
        return Ok(());
    }
    crate::api::handles::get(ncid)?;
    let t = NcType::from_id(xtype)?;
    let bytes = count.checked_mul(t.size()).ok_or(NcError::NoMem)?;
    if t != NcType::String {
        // SAFETY: both buffers are non-NULL and hold count values of xtype,
        // bytes bytes (this function's contract); `copy` allows overlap.
        unsafe { std::ptr::copy(memory.cast::<u8>(), copy.cast::<u8>(), bytes) };
        return Ok(());
    }
    // SAFETY: memory holds count string pointers (this function's contract).
    let src = unsafe { slice(memory.cast::<*const c_char>(), count) }?;
    let mut out: Vec<*mut c_char> = Vec::with_capacity(count);
    for &p in src {
        let d = if p.is_null() {
            std::ptr::null_mut()
        } else {
            // SAFETY: each non-NULL value is NUL-terminated (the same contract).
            let d = malloc_cstring(unsafe { cbytes(p) }?);
            if d.is_null() {
                for q in out {
                    // SAFETY: q was malloc'd just above and never handed out.
                    unsafe { libc::free(q.cast()) };
                }
                return Err(NcError::NoMem);
            }
            d
        };
        out.push(d);
    }
    // SAFETY: copy has room for count string pointers (this function's contract).
    unsafe { slice_mut(copy.cast::<*mut c_char>(), count) }?.copy_from_slice(&out);
    Ok(())
}

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
    ffi_boundary!(forward ncid => nc_copy_data(ncid, xtype, memory, count, copy); status {
        // SAFETY: memory holds count values and copy has room for as many
        // (this export's contract).
        unsafe { copy_data(ncid, xtype, memory, count, copy) }
    })
}

/// `nc_copy_data` into a new `malloc`'d block returned in `*copyp` (written
/// only on success; without `copyp` the copy is freed again).
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
    ffi_boundary!(forward ncid => nc_copy_data_all(ncid, xtype, memory, count, copyp); status {
        // netcdf-c asks for the type's size first (through the dataset).
        crate::api::handles::get(ncid)?;
        let t = NcType::from_id(xtype)?;
        let bytes = count.checked_mul(t.size()).ok_or(NcError::NoMem)?;
        // SAFETY: malloc may be called with any size; the result is checked.
        let block = unsafe { libc::malloc(bytes.max(1)) };
        if block.is_null() {
            return Err(NcError::NoMem);
        }
        // SAFETY: memory holds count values (this export's contract) and block
        // has room for as many.
        if let Err(e) = unsafe { copy_data(ncid, xtype, memory, count, block) } {
            // SAFETY: block came from malloc above and holds no copied string.
            unsafe { libc::free(block) };
            return Err(e);
        }
        if copyp.is_null() {
            if t == NcType::String {
                // SAFETY: block holds count string pointers copied just above.
                let _ = unsafe { super::data::nc_free_string(count, block.cast()) };
            }
            // SAFETY: block came from malloc above.
            unsafe { libc::free(block) };
        } else {
            // SAFETY: copyp is non-NULL and writable (this export's contract).
            unsafe { copyp.write(block) };
        }
        Ok(())
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
    ffi_boundary!(forward ncid => nc_dump_data(ncid, xtype, memory, count, bufp); status {
        if ncid < 0 || xtype <= 0 || (memory.is_null() && count > 0) {
            return Err(NcError::Inval);
        }
        if memory.is_null() || count == 0 {
            return Ok(());
        }
        let t = NcType::from_id(xtype)?;
        let bytes = count.checked_mul(t.size()).ok_or(NcError::NoMem)?;
        // SAFETY: memory is non-NULL and holds count values of xtype, bytes
        // bytes (this export's contract).
        let mem = unsafe { slice(memory.cast::<u8>().cast_const(), bytes) }?;
        let mut out = String::new();
        for (i, v) in mem.chunks_exact(t.size()).enumerate() {
            if i > 0 {
                out.push(' ');
            }
            // SAFETY: a string value is NULL or NUL-terminated (the same contract).
            out.push_str(&unsafe { dump_one(t, v) });
        }
        let s = malloc_cstring(out.as_bytes());
        if s.is_null() {
            return Err(NcError::NoMem);
        }
        if bufp.is_null() {
            // SAFETY: s came from malloc just above.
            unsafe { libc::free(s.cast()) };
        } else {
            // SAFETY: bufp is non-NULL and writable (this export's contract).
            unsafe { bufp.write(s) };
        }
        Ok(())
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

/// One value of type `t` (its bytes `v`) as netcdf-c's `nc_dump_data` prints it.
///
/// # Safety
/// For `NcType::String`, `v` holds a pointer that is NULL or NUL-terminated.
unsafe fn dump_one(t: NcType, v: &[u8]) -> String {
    fn arr<const N: usize>(v: &[u8]) -> [u8; N] {
        let mut a = [0u8; N];
        a.copy_from_slice(&v[..N]);
        a
    }
    match t {
        NcType::Char => format!("'{}'", char::from(v[0])),
        NcType::Byte => (v[0] as i8).to_string(),
        NcType::UByte => v[0].to_string(),
        NcType::Short => i16::from_ne_bytes(arr(v)).to_string(),
        NcType::UShort => u16::from_ne_bytes(arr(v)).to_string(),
        NcType::Int => i32::from_ne_bytes(arr(v)).to_string(),
        NcType::UInt => u32::from_ne_bytes(arr(v)).to_string(),
        NcType::Float => fixed(f64::from(f32::from_ne_bytes(arr(v)))),
        NcType::Double => fixed(f64::from_ne_bytes(arr(v))),
        NcType::Int64 => i64::from_ne_bytes(arr(v)).to_string(),
        NcType::UInt64 => u64::from_ne_bytes(arr(v)).to_string(),
        NcType::String => {
            let p = usize::from_ne_bytes(arr(v)) as *const c_char;
            // SAFETY: an NC_STRING value is NULL or NUL-terminated (this
            // function's contract); cbytes rejects NULL.
            let s = unsafe { cbytes(p) }.unwrap_or(b"");
            format!("\"{}\"", String::from_utf8_lossy(s))
        }
    }
}
