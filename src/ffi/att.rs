//! Attribute exports: generic and typed put/get, inquiries, rename, delete, copy.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! names NUL-terminated, value arrays holding `len` values of the call's
//! type (for gets: room for the attribute's length), name buffers of
//! NC_MAX_NAME+1 bytes.

use super::delegate::{self, forward};
use std::ffi::{c_char, c_int, c_long, c_longlong, c_ulonglong, c_void};

use super::{cbytes, cstr, malloc_cstring, put, put_name, slice, slice_mut, status};
use crate::api;
use crate::api::handles;
use crate::error::{NcError, NcResult};
use crate::model::convert;
use crate::model::types::NcType;
use crate::model::{Att, AttValue};

/// The attribute-length limit netcdf-c enforces (X_INT_MAX).
const MAX_ATT_LEN: usize = i32::MAX as usize;

/// Store an attribute given in memory type `mem` as file type `ty`.
unsafe fn put_att_impl(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_void,
    mem: Option<NcType>,
) -> NcResult<()> {
    // SAFETY: NUL-terminated or NULL.
    let name = unsafe { cstr(name) }?;
    // netcdf-c checks the type against the dataset's types: NC_EBADTYPID.
    let ty = NcType::from_id(xtype).map_err(|_| {
        if xtype <= 0 {
            NcError::BadType
        } else {
            NcError::BadTypId
        }
    })?;
    let mem = mem.unwrap_or(ty);
    if len > MAX_ATT_LEN {
        return Err(NcError::Inval);
    }
    let mut range = false;
    let value = if ty == NcType::String || mem == NcType::String {
        if ty != mem {
            return Err(convert::check_compatible(mem, ty).err().unwrap_or(NcError::BadType));
        }
        // SAFETY: op holds len `char*` values.
        let ptrs = unsafe { slice(op.cast::<*const c_char>(), len) }?;
        let mut v = Vec::with_capacity(len);
        for &p in ptrs {
            // SAFETY: each is NULL or NUL-terminated.
            v.push(if p.is_null() {
                Vec::new()
            } else {
                unsafe { cbytes(p) }?.to_vec()
            });
        }
        AttValue::Strings(v)
    } else {
        convert::check_compatible(mem, ty)?;
        let nbytes = len.checked_mul(mem.size()).ok_or(NcError::Inval)?;
        // SAFETY: op holds len values of the memory type.
        let src = unsafe { slice(op.cast::<u8>(), nbytes) }?;
        let mut dst = vec![0u8; len * ty.size()];
        match convert::convert(mem, src, ty, &mut dst) {
            Ok(()) => {}
            Err(NcError::Range) => range = true,
            Err(e) => return Err(e),
        }
        AttValue::Bytes(dst)
    };
    handles::with(ncid, |ds, grp| ds.put_att(grp, varid, name, ty, value))?;
    if range { Err(NcError::Range) } else { Ok(()) }
}

/// Read an attribute into memory type `mem` (None: the attribute's own type).
unsafe fn get_att_impl(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    ip: *mut c_void,
    mem: Option<NcType>,
) -> NcResult<()> {
    // SAFETY: NUL-terminated or NULL.
    let name = unsafe { cstr(name) }?;
    let att: Att = handles::with(ncid, |ds, grp| Ok(api::att_lookup(ds, grp, varid, name)?.into_owned()))?;
    let mem = mem.unwrap_or(att.ty);
    match &att.value {
        AttValue::Strings(s) => {
            if mem != NcType::String {
                return Err(convert::check_compatible(mem, NcType::String)
                    .err()
                    .unwrap_or(NcError::BadType));
            }
            // SAFETY: ip has room for one `char*` per value.
            let out = unsafe { slice_mut(ip.cast::<*mut c_char>(), s.len()) }?;
            for (o, v) in out.iter_mut().zip(s) {
                *o = malloc_cstring(v);
                if o.is_null() {
                    return Err(NcError::NoMem);
                }
            }
            Ok(())
        }
        AttValue::Bytes(b) => {
            if mem == NcType::String {
                return Err(convert::check_compatible(mem, att.ty).err().unwrap_or(NcError::BadType));
            }
            convert::check_compatible(mem, att.ty)?;
            let n = att.len();
            // SAFETY: ip has room for the attribute's length in the memory type.
            let dst = unsafe { slice_mut(ip.cast::<u8>(), n * mem.size()) }?;
            convert::convert(att.ty, b, mem, dst)?;
            if mem == NcType::Char && varid != crate::model::types::NC_GLOBAL && att.name == "_Codecs" {
                // netcdf-c writes a NUL after the text of `_Codecs`, and
                // Debian's ncdump (4.9.0) relies on it: its buffer has room
                // for one byte more than the length and is not terminated.
                // SAFETY: as netcdf-c; every known caller allocates len + 1.
                unsafe { ip.cast::<u8>().add(n).write(0) };
            }
            Ok(())
        }
    }
}

macro_rules! typed_att {
    ($put:ident, $get:ident, $t:ty, $nct:expr) => {
        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $put(
            ncid: c_int,
            varid: c_int,
            name: *const c_char,
            xtype: c_int,
            len: usize,
            op: *const $t,
        ) -> c_int {
            forward!(ncid => $put(ncid, varid, name, xtype, len, op));
            // SAFETY: forwarded contract.
            status(|| unsafe { put_att_impl(ncid, varid, name, xtype, len, op.cast(), Some($nct)) })
        }

        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $get(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut $t) -> c_int {
            forward!(ncid => $get(ncid, varid, name, ip));
            // SAFETY: forwarded contract.
            status(|| unsafe { get_att_impl(ncid, varid, name, ip.cast(), Some($nct)) })
        }
    };
}

/// The memory type of C `long`.
const LONG: NcType = if std::mem::size_of::<c_long>() == 8 {
    NcType::Int64
} else {
    NcType::Int
};

typed_att!(nc_put_att_schar, nc_get_att_schar, i8, NcType::Byte);
typed_att!(nc_put_att_uchar, nc_get_att_uchar, u8, NcType::UByte);
typed_att!(nc_put_att_ubyte, nc_get_att_ubyte, u8, NcType::UByte);
typed_att!(nc_put_att_short, nc_get_att_short, i16, NcType::Short);
typed_att!(nc_put_att_int, nc_get_att_int, c_int, NcType::Int);
typed_att!(nc_put_att_long, nc_get_att_long, c_long, LONG);
typed_att!(nc_put_att_float, nc_get_att_float, f32, NcType::Float);
typed_att!(nc_put_att_double, nc_get_att_double, f64, NcType::Double);
typed_att!(nc_put_att_ushort, nc_get_att_ushort, u16, NcType::UShort);
typed_att!(nc_put_att_uint, nc_get_att_uint, u32, NcType::UInt);
typed_att!(nc_put_att_longlong, nc_get_att_longlong, c_longlong, NcType::Int64);
typed_att!(nc_put_att_ulonglong, nc_get_att_ulonglong, c_ulonglong, NcType::UInt64);

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_put_att_text(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    len: usize,
    op: *const c_char,
) -> c_int {
    forward!(ncid => nc_put_att_text(ncid, varid, name, len, op));
    // SAFETY: forwarded contract.
    status(|| unsafe { put_att_impl(ncid, varid, name, NcType::Char.id(), len, op.cast(), Some(NcType::Char)) })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_att_text(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_char) -> c_int {
    forward!(ncid => nc_get_att_text(ncid, varid, name, ip));
    // SAFETY: forwarded contract.
    status(|| unsafe { get_att_impl(ncid, varid, name, ip.cast(), Some(NcType::Char)) })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_put_att_string(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    len: usize,
    op: *mut *const c_char,
) -> c_int {
    forward!(ncid => nc_put_att_string(ncid, varid, name, len, op));
    // SAFETY: forwarded contract.
    status(|| unsafe {
        put_att_impl(
            ncid,
            varid,
            name,
            NcType::String.id(),
            len,
            op.cast(),
            Some(NcType::String),
        )
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_att_string(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    ip: *mut *mut c_char,
) -> c_int {
    forward!(ncid => nc_get_att_string(ncid, varid, name, ip));
    // SAFETY: forwarded contract.
    status(|| unsafe { get_att_impl(ncid, varid, name, ip.cast(), Some(NcType::String)) })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_put_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_void,
) -> c_int {
    forward!(ncid => nc_put_att(ncid, varid, name, xtype, len, op));
    // SAFETY: forwarded contract.
    status(|| unsafe { put_att_impl(ncid, varid, name, xtype, len, op, None) })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_att(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_void) -> c_int {
    forward!(ncid => nc_get_att(ncid, varid, name, ip));
    // SAFETY: forwarded contract.
    status(|| unsafe { get_att_impl(ncid, varid, name, ip, None) })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtypep: *mut c_int,
    lenp: *mut usize,
) -> c_int {
    forward!(ncid => nc_inq_att(ncid, varid, name, xtypep, lenp));
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        handles::with(ncid, |ds, grp| {
            let a = api::att_lookup(ds, grp, varid, name)?;
            // SAFETY: NULL or writable.
            unsafe {
                put(xtypep, a.ty.id());
                put(lenp, a.len());
            }
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_atttype(ncid: c_int, varid: c_int, name: *const c_char, xtypep: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_atttype(ncid, varid, name, xtypep));
    // SAFETY: forwarded contract.
    unsafe { nc_inq_att(ncid, varid, name, xtypep, std::ptr::null_mut()) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_attlen(ncid: c_int, varid: c_int, name: *const c_char, lenp: *mut usize) -> c_int {
    forward!(ncid => nc_inq_attlen(ncid, varid, name, lenp));
    // SAFETY: forwarded contract.
    unsafe { nc_inq_att(ncid, varid, name, std::ptr::null_mut(), lenp) }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_attid(ncid: c_int, varid: c_int, name: *const c_char, idp: *mut c_int) -> c_int {
    forward!(ncid => nc_inq_attid(ncid, varid, name, idp));
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        handles::with(ncid, |ds, grp| {
            let Some(i) = ds.atts(grp, varid)?.iter().position(|a| a.name == name) else {
                // Virtual attributes have no number: netcdf-c says NC_EATTMETA.
                api::att_lookup(ds, grp, varid, name)?;
                return Err(NcError::AttMeta);
            };
            // SAFETY: NULL or writable.
            unsafe { put(idp, i as c_int) };
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_attname(ncid: c_int, varid: c_int, attnum: c_int, name: *mut c_char) -> c_int {
    forward!(ncid => nc_inq_attname(ncid, varid, attnum, name));
    status(|| {
        handles::with(ncid, |ds, grp| {
            let atts = ds.atts(grp, varid)?;
            let a = usize::try_from(attnum)
                .ok()
                .and_then(|i| atts.get(i))
                .ok_or(NcError::NotAtt)?;
            // SAFETY: NULL or a buffer of NC_MAX_NAME+1 bytes.
            unsafe { put_name(name, &a.name) };
            Ok(())
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_rename_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    newname: *const c_char,
) -> c_int {
    forward!(ncid => nc_rename_att(ncid, varid, name, newname));
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let (name, newname) = unsafe { (cstr(name)?, cstr(newname)?) };
        handles::with(ncid, |ds, grp| ds.rename_att(grp, varid, name, newname))
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_del_att(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    forward!(ncid => nc_del_att(ncid, varid, name));
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        handles::with(ncid, |ds, grp| ds.del_att(grp, varid, name))
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_copy_att(
    ncid_in: c_int,
    varid_in: c_int,
    name: *const c_char,
    ncid_out: c_int,
    varid_out: c_int,
) -> c_int {
    match (delegate::lookup(ncid_in), delegate::lookup(ncid_out)) {
        (None, None) => {}
        (Some(a), Some(b)) => {
            // Both in the system library: its own copy, with its ids.
            let like: unsafe extern "C" fn(c_int, c_int, *const c_char, c_int, c_int) -> c_int = nc_copy_att;
            return match delegate::symbol(b"nc_copy_att\0") {
                Some(p) => {
                    let _g = delegate::serial();
                    // SAFETY: same prototype; arguments passed on under the caller's contract.
                    unsafe { delegate::cast_like(like, p)(a.ext_ncid, varid_in, name, b.ext_ncid, varid_out) }
                }
                None => NcError::NotBuilt.code(),
            };
        }
        // SAFETY: forwarded contract.
        _ => return unsafe { copy_att_across(ncid_in, varid_in, name, ncid_out, varid_out) },
    }
    status(|| {
        // SAFETY: NUL-terminated or NULL.
        let name = unsafe { cstr(name) }?;
        // Read first and release the source before locking the target (they
        // may be the same dataset).
        let att: Att = handles::with(ncid_in, |ds, grp| Ok(ds.att(grp, varid_in, name)?.clone()))?;
        handles::with(ncid_out, |ds, grp| {
            ds.put_att(grp, varid_out, &att.name, att.ty, att.value.clone())
        })
    })
}

/// nc_copy_att between a delegated dataset and one of ours (nccopy converting
/// between netCDF files and Zarr): read through one library's public calls,
/// write through the other's, so each side applies its own rules.
///
/// # Safety
/// `name` is NULL or NUL-terminated.
unsafe fn copy_att_across(
    ncid_in: c_int,
    varid_in: c_int,
    name: *const c_char,
    ncid_out: c_int,
    varid_out: c_int,
) -> c_int {
    const NC_STRING: c_int = 12;
    const NC_MAX_ATOMIC_TYPE: c_int = 12;
    let mut xtype: c_int = 0;
    let mut len: usize = 0;
    // SAFETY: name per contract; out-parameters are locals.
    let rc = unsafe { nc_inq_att(ncid_in, varid_in, name, &mut xtype, &mut len) };
    if rc != 0 {
        return rc;
    }
    if !(1..=NC_MAX_ATOMIC_TYPE).contains(&xtype) {
        // A user-defined type has no counterpart in the other library's dataset.
        return NcError::BadType.code();
    }
    let Ok(ty) = NcType::from_id(xtype) else {
        return NcError::BadType.code();
    };
    let Some(bytes) = len.checked_mul(ty.size()) else {
        return NcError::NoMem.code();
    };
    // Aligned storage for the values (pointers and doubles need 8 bytes).
    let mut words: Vec<u64> = Vec::new();
    let n = bytes.div_ceil(8).max(1);
    if words.try_reserve_exact(n).is_err() {
        return NcError::NoMem.code();
    }
    words.resize(n, 0);
    let p = words.as_mut_ptr().cast::<c_void>();
    // SAFETY: p has room for len values of xtype.
    let rc = unsafe { nc_get_att(ncid_in, varid_in, name, p) };
    if rc != 0 {
        return rc;
    }
    // SAFETY: p holds len values of xtype.
    let rc = unsafe { nc_put_att(ncid_out, varid_out, name, xtype, len, p) };
    if xtype == NC_STRING {
        // The strings were allocated by the library that read them, with malloc.
        // SAFETY: p holds len string pointers from nc_get_att.
        unsafe { super::data::nc_free_string(len, p.cast::<*mut c_char>()) };
    }
    rc
}
