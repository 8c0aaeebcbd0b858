//! Attribute exports: generic and typed put/get, inquiries, rename, delete, copy.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! names NUL-terminated, value arrays holding `len` values of the call's
//! type (for gets: room for the attribute's length), name buffers of
//! NC_MAX_NAME+1 bytes.

use std::ffi::{c_char, c_int, c_long, c_longlong, c_ulonglong, c_void};

use super::delegate;
use super::{cbytes, cname, cstr, ffi_boundary, malloc_cstring, put, put_name, slice, slice_mut, status_of};
use crate::api;
use crate::api::handles;
use crate::error::{NcError, NcResult};
use crate::model::convert;
use crate::model::types::{NC_MAX_NAME, NcType};
use crate::model::{Att, AttValue};

/// The attribute-length limit netcdf-c enforces (X_INT_MAX).
const MAX_ATT_LEN: usize = i32::MAX as usize;

/// Store an attribute given in memory type `mem` as file type `ty`.
///
/// # Safety
/// `name` is NULL or NUL-terminated; `op` is NULL or holds `len` values of
/// the memory type (`char*` values for strings).
unsafe fn put_att_impl(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: c_int,
    len: usize,
    op: *const c_void,
    mem: Option<NcType>,
) -> NcResult<()> {
    // netcdf-c checks the ncid before any other argument.
    handles::with(ncid, |_, _| Ok(()))?;
    // SAFETY: name is NULL or NUL-terminated (this function's contract).
    let name = unsafe { att_name(name) }?;
    if name.len() > NC_MAX_NAME {
        // What netcdf-c 4.10.1 answers for an over-long new attribute name.
        return Err(NcError::BadName);
    }
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
        // SAFETY: op is NULL or holds len `char*` values (this function's contract).
        let ptrs = unsafe { slice(op.cast::<*const c_char>(), len) }?;
        let mut v = Vec::with_capacity(len);
        for &p in ptrs {
            v.push(if p.is_null() {
                Vec::new()
            } else {
                // SAFETY: each non-NULL value is NUL-terminated (the same contract).
                unsafe { cbytes(p) }?.to_vec()
            });
        }
        AttValue::Strings(v)
    } else {
        convert::check_compatible(mem, ty)?;
        let nbytes = len.checked_mul(mem.size()).ok_or(NcError::Inval)?;
        // SAFETY: op is NULL or holds len values of the memory type, nbytes
        // bytes (this function's contract).
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

/// An attribute name from the caller: netcdf-c 4.10.1 answers a NULL name
/// with NC_EBADNAME in the attribute calls that look one up or store one.
///
/// # Safety
/// `name` is NULL or NUL-terminated.
unsafe fn att_name<'a>(name: *const c_char) -> NcResult<&'a str> {
    if name.is_null() {
        return Err(NcError::BadName);
    }
    // SAFETY: name is non-NULL and NUL-terminated (this function's contract).
    unsafe { cstr(name) }
}

/// Look an attribute up by the caller's name, in netcdf-c's order of
/// checks: the ncid, the varid, then the name (NULL: NC_EBADNAME; longer
/// than NC_MAX_NAME: NC_EMAXNAME).
///
/// # Safety
/// `name` is NULL or NUL-terminated.
unsafe fn lookup_att(ncid: c_int, varid: c_int, name: *const c_char) -> NcResult<Att> {
    handles::with(ncid, |ds, grp| {
        ds.atts(grp, varid)?;
        if name.is_null() {
            return Err(NcError::BadName);
        }
        // SAFETY: name is non-NULL and NUL-terminated (this function's contract).
        let name = unsafe { cname(name) }?;
        Ok(api::att_lookup(ds, grp, varid, name)?.into_owned())
    })
}

/// Read an attribute into memory type `mem` (None: the attribute's own type).
///
/// # Safety
/// `name` is NULL or NUL-terminated; `ip` is NULL or has room for the
/// attribute's values in the memory type (`char*` values for strings).
unsafe fn get_att_impl(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    ip: *mut c_void,
    mem: Option<NcType>,
) -> NcResult<()> {
    // SAFETY: name is NULL or NUL-terminated (this function's contract).
    let att = unsafe { lookup_att(ncid, varid, name) }?;
    let mem = mem.unwrap_or(att.ty);
    match &att.value {
        AttValue::Strings(s) => {
            if mem != NcType::String {
                return Err(convert::check_compatible(mem, NcType::String)
                    .err()
                    .unwrap_or(NcError::BadType));
            }
            if ip.is_null() {
                // netcdf-c copies nothing to a NULL value pointer.
                return Ok(());
            }
            // SAFETY: ip is non-NULL with room for one `char*` per value (this
            // function's contract).
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
            if ip.is_null() {
                // netcdf-c copies nothing to a NULL value pointer.
                return Ok(());
            }
            let n = att.len();
            let nbytes = n.checked_mul(mem.size()).ok_or(NcError::NoMem)?;
            // SAFETY: ip is non-NULL with room for the attribute's n values in
            // the memory type (this function's contract).
            let dst = unsafe { slice_mut(ip.cast::<u8>(), nbytes) }?;
            convert::convert(att.ty, b, mem, dst)?;
            if mem == NcType::Char && varid != crate::model::types::NC_GLOBAL && att.name == "_Codecs" {
                // netcdf-c writes a NUL after the text of `_Codecs`, and
                // Debian's ncdump (4.9.0) relies on it: its buffer has room
                // for one byte more than the length and is not terminated.
                // SAFETY: as netcdf-c does, one byte past the n values; every
                // known caller of this attribute allocates n + 1 bytes.
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
            ffi_boundary!(forward ncid => $put(ncid, varid, name, xtype, len, op); status {
                // SAFETY: name is NULL or NUL-terminated and op NULL or holding
                // len values (this export's contract), as put_att_impl needs.
                unsafe { put_att_impl(ncid, varid, name, xtype, len, op.cast(), Some($nct)) }
            })
        }

        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $get(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut $t) -> c_int {
            ffi_boundary!(forward ncid => $get(ncid, varid, name, ip); status {
                // SAFETY: name is NULL or NUL-terminated and ip NULL or with room
                // for the attribute's values (this export's contract).
                unsafe { get_att_impl(ncid, varid, name, ip.cast(), Some($nct)) }
            })
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
    ffi_boundary!(forward ncid => nc_put_att_text(ncid, varid, name, len, op); status {
        // SAFETY: name is NULL or NUL-terminated and op NULL or holding len
        // chars (this export's contract).
        unsafe { put_att_impl(ncid, varid, name, NcType::Char.id(), len, op.cast(), Some(NcType::Char)) }
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_att_text(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_char) -> c_int {
    ffi_boundary!(forward ncid => nc_get_att_text(ncid, varid, name, ip); status {
        // SAFETY: name is NULL or NUL-terminated and ip NULL or with room for
        // the attribute's chars (this export's contract).
        unsafe { get_att_impl(ncid, varid, name, ip.cast(), Some(NcType::Char)) }
    })
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
    ffi_boundary!(forward ncid => nc_put_att_string(ncid, varid, name, len, op); status {
        // SAFETY: name is NULL or NUL-terminated and op NULL or holding len
        // string pointers (this export's contract).
        unsafe {
            put_att_impl(
                ncid,
                varid,
                name,
                NcType::String.id(),
                len,
                op.cast(),
                Some(NcType::String),
            )
        }
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
    ffi_boundary!(forward ncid => nc_get_att_string(ncid, varid, name, ip); status {
        // SAFETY: name is NULL or NUL-terminated and ip NULL or with room for
        // one pointer per value (this export's contract).
        unsafe { get_att_impl(ncid, varid, name, ip.cast(), Some(NcType::String)) }
    })
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
    ffi_boundary!(forward ncid => nc_put_att(ncid, varid, name, xtype, len, op); status {
        // SAFETY: name is NULL or NUL-terminated and op NULL or holding len
        // values of xtype (this export's contract).
        unsafe { put_att_impl(ncid, varid, name, xtype, len, op, None) }
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_att(ncid: c_int, varid: c_int, name: *const c_char, ip: *mut c_void) -> c_int {
    ffi_boundary!(forward ncid => nc_get_att(ncid, varid, name, ip); status {
        // SAFETY: name is NULL or NUL-terminated and ip NULL or with room for
        // the attribute's values in its own type (this export's contract).
        unsafe { get_att_impl(ncid, varid, name, ip, None) }
    })
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
    ffi_boundary!(forward ncid => nc_inq_att(ncid, varid, name, xtypep, lenp); status {
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let a = unsafe { lookup_att(ncid, varid, name) }?;
        // SAFETY: xtypep and lenp are NULL or writable (this export's contract).
        unsafe {
            put(xtypep, a.ty.id());
            put(lenp, a.len());
        }
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_atttype(ncid: c_int, varid: c_int, name: *const c_char, xtypep: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_atttype(ncid, varid, name, xtypep); status {
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let a = unsafe { lookup_att(ncid, varid, name) }?;
        // SAFETY: xtypep is NULL or writable (this export's contract).
        unsafe { put(xtypep, a.ty.id()) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_attlen(ncid: c_int, varid: c_int, name: *const c_char, lenp: *mut usize) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_attlen(ncid, varid, name, lenp); status {
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let a = unsafe { lookup_att(ncid, varid, name) }?;
        // SAFETY: lenp is NULL or writable (this export's contract).
        unsafe { put(lenp, a.len()) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_attid(ncid: c_int, varid: c_int, name: *const c_char, idp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_attid(ncid, varid, name, idp); status {
        let i = handles::with(ncid, |ds, grp| {
            ds.atts(grp, varid)?;
            if name.is_null() {
                // netcdf-c 4.10.1 answers a NULL name here with NC_EBADNAME.
                return Err(NcError::BadName);
            }
            // SAFETY: name is non-NULL and NUL-terminated (this export's contract).
            let name = unsafe { cname(name) }?;
            let Some(i) = ds.atts(grp, varid)?.iter().position(|a| a.name == name) else {
                // Virtual attributes have no number: netcdf-c says NC_EATTMETA.
                api::att_lookup(ds, grp, varid, name)?;
                return Err(NcError::AttMeta);
            };
            Ok(i as c_int)
        })?;
        // SAFETY: idp is NULL or writable (this export's contract).
        unsafe { put(idp, i) };
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_attname(ncid: c_int, varid: c_int, attnum: c_int, name: *mut c_char) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_attname(ncid, varid, attnum, name); status {
        let n = handles::with(ncid, |ds, grp| {
            let atts = ds.atts(grp, varid)?;
            let a = usize::try_from(attnum)
                .ok()
                .and_then(|i| atts.get(i))
                .ok_or(NcError::NotAtt)?;
            Ok(a.name.clone())
        })?;
        // SAFETY: name is NULL or a buffer of NC_MAX_NAME+1 bytes (this
        // export's contract).
        unsafe { put_name(name, &n) }
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
    ffi_boundary!(forward ncid => nc_rename_att(ncid, varid, name, newname); status {
        handles::with(ncid, |ds, grp| {
            // netcdf-c refuses a read-only dataset before it looks at names.
            if !ds.writable {
                return Err(NcError::Perm);
            }
            ds.atts(grp, varid)?;
            // SAFETY: name and newname are NULL or NUL-terminated (this
            // export's contract).
            let (name, newname) = unsafe { (cname(name)?, cstr(newname)?) };
            ds.rename_att(grp, varid, name, newname)
        })
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_del_att(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    ffi_boundary!(forward ncid => nc_del_att(ncid, varid, name); status {
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let name = unsafe { cstr(name) }?;
        handles::with(ncid, |ds, grp| {
            // netcdf-c refuses a read-only dataset before it looks for the attribute.
            if !ds.writable {
                return Err(NcError::Perm);
            }
            ds.del_att(grp, varid, name)
        })
    })
}

/// Both datasets in one system library: its own `nc_copy_att`, with its ids.
///
/// # Safety
/// `name` is NULL or NUL-terminated.
unsafe fn copy_att_delegated(
    a: delegate::Delegated,
    varid_in: c_int,
    name: *const c_char,
    b: delegate::Delegated,
    varid_out: c_int,
) -> c_int {
    let like: unsafe extern "C" fn(c_int, c_int, *const c_char, c_int, c_int) -> c_int = nc_copy_att;
    // SAFETY: netcdf.h declares nc_copy_att as int(int, int, const char*,
    // int, int) in every netcdf-c, the type of `like`.
    match unsafe { a.function(like, b"nc_copy_att\0") } {
        Some(f) => {
            let _g = a.lock();
            // SAFETY: name is NULL or NUL-terminated (this function's
            // contract), as nc_copy_att requires; the rest are ints.
            unsafe { f(a.ext_ncid, varid_in, name, b.ext_ncid, varid_out) }
        }
        None => NcError::NotBuilt.code(),
    }
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
    ffi_boundary!(code {
        match (delegate::lookup(ncid_in), delegate::lookup(ncid_out)) {
            (None, None) => {}
            (Some(a), Some(b)) if a.lib == b.lib => {
                // SAFETY: name is NULL or NUL-terminated (this export's contract).
                return unsafe { copy_att_delegated(a, varid_in, name, b, varid_out) };
            }
            // SAFETY: name is NULL or NUL-terminated (this export's contract).
            _ => return unsafe { copy_att_across(ncid_in, varid_in, name, ncid_out, varid_out) },
        }
        status_of(|| {
            // Read first and release the source before locking the target
            // (they may be the same dataset). Only stored attributes copy.
            let att = handles::with(ncid_in, |ds, grp| {
                ds.atts(grp, varid_in)?;
                if name.is_null() {
                    return Err(NcError::BadName);
                }
                // SAFETY: name is non-NULL and NUL-terminated (this export's contract).
                let name = unsafe { cname(name) }?;
                Ok(ds.att(grp, varid_in, name)?.clone())
            })?;
            handles::with(ncid_out, |ds, grp| {
                ds.put_att(grp, varid_out, &att.name, att.ty, att.value.clone())
            })
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
    let mut xtype: c_int = 0;
    let mut len: usize = 0;
    // SAFETY: name is NULL or NUL-terminated (this function's contract); the
    // out-parameters are locals.
    let rc = unsafe { nc_inq_att(ncid_in, varid_in, name, &mut xtype, &mut len) };
    if rc != 0 {
        return rc;
    }
    let ty = match NcType::from_id(xtype) {
        // A user-defined type has no counterpart in the other library's dataset.
        Ok(t) => t,
        Err(_) => return NcError::BadType.code(),
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
    // SAFETY: p has room for len values of xtype (n 8-byte words); name as above.
    let rc = unsafe { nc_get_att(ncid_in, varid_in, name, p) };
    if rc != 0 {
        return rc;
    }
    // SAFETY: p holds the len values of xtype just read; name as above.
    let rc = unsafe { nc_put_att(ncid_out, varid_out, name, xtype, len, p) };
    if ty == NcType::String {
        // The strings were allocated by the library that read them, with malloc.
        // SAFETY: p holds len string pointers from nc_get_att.
        unsafe { super::data::nc_free_string(len, p.cast::<*mut c_char>()) };
    }
    rc
}
