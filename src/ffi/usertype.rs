//! User-defined types (compound, vlen, enum, opaque). NCZarr has none: the
//! definitions answer NC_ENOTNC4 as netcdf-c's NCZarr dispatch does, and the
//! inquiries answer NC_EBADTYPE for the atomic ids that are the only types
//! a dataset can hold (NC_EBADID for a bad ncid first).
//!
//! # Safety (every function here)
//! No pointer argument is dereferenced except by `nc_free_vlen(s)`, whose
//! vectors must have been allocated by netCDF (malloc).

use std::ffi::{c_char, c_int, c_longlong, c_void};

use super::{ffi_boundary, slice_mut};
use crate::api::handles;
use crate::error::{NcError, NcResult};

/// NC_ENOTNC4 after a check of the dataset (not the group: netcdf-c's
/// dispatch answers before it looks at one).
fn not_nc4(ncid: c_int) -> NcResult<()> {
    handles::get(ncid)?;
    Err(NcError::NotNc4)
}

/// NC_EBADTYPE after an ncid check: no user-defined type exists.
fn no_such_type(ncid: c_int) -> NcResult<()> {
    handles::with(ncid, |_, _| Ok(()))?;
    Err(NcError::BadType)
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_compound(
    ncid: c_int,
    _size: usize,
    _name: *const c_char,
    _typeidp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_def_compound(ncid, _size, _name, _typeidp); status { not_nc4(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_insert_compound(
    ncid: c_int,
    _xtype: c_int,
    _name: *const c_char,
    _offset: usize,
    _field: c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_insert_compound(ncid, _xtype, _name, _offset, _field); status { not_nc4(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_insert_array_compound(
    ncid: c_int,
    _xtype: c_int,
    _name: *const c_char,
    _offset: usize,
    _field: c_int,
    _ndims: c_int,
    _dim_sizes: *const c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_insert_array_compound(ncid, _xtype, _name, _offset, _field, _ndims, _dim_sizes); status { not_nc4(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_compound(
    ncid: c_int,
    _xtype: c_int,
    _name: *mut c_char,
    _sizep: *mut usize,
    _nfieldsp: *mut usize,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_compound(ncid, _xtype, _name, _sizep, _nfieldsp); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_compound_name(ncid: c_int, _xtype: c_int, _name: *mut c_char) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_compound_name(ncid, _xtype, _name); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_compound_size(ncid: c_int, _xtype: c_int, _sizep: *mut usize) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_compound_size(ncid, _xtype, _sizep); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_compound_nfields(ncid: c_int, _xtype: c_int, _nfieldsp: *mut usize) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_compound_nfields(ncid, _xtype, _nfieldsp); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_compound_field(
    ncid: c_int,
    _xtype: c_int,
    _fieldid: c_int,
    _name: *mut c_char,
    _offsetp: *mut usize,
    _field_typeidp: *mut c_int,
    _ndimsp: *mut c_int,
    _dim_sizesp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_compound_field(ncid, _xtype, _fieldid, _name, _offsetp, _field_typeidp, _ndimsp, _dim_sizesp); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_compound_fieldname(
    ncid: c_int,
    _xtype: c_int,
    _fieldid: c_int,
    _name: *mut c_char,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_compound_fieldname(ncid, _xtype, _fieldid, _name); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_compound_fieldindex(
    ncid: c_int,
    _xtype: c_int,
    _name: *const c_char,
    _fieldidp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_compound_fieldindex(ncid, _xtype, _name, _fieldidp); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_compound_fieldoffset(
    ncid: c_int,
    _xtype: c_int,
    _fieldid: c_int,
    _offsetp: *mut usize,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_compound_fieldoffset(ncid, _xtype, _fieldid, _offsetp); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_compound_fieldtype(
    ncid: c_int,
    _xtype: c_int,
    _fieldid: c_int,
    _typeidp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_compound_fieldtype(ncid, _xtype, _fieldid, _typeidp); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_compound_fieldndims(
    ncid: c_int,
    _xtype: c_int,
    _fieldid: c_int,
    _ndimsp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_compound_fieldndims(ncid, _xtype, _fieldid, _ndimsp); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_compound_fielddim_sizes(
    ncid: c_int,
    _xtype: c_int,
    _fieldid: c_int,
    _dim_sizes: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_compound_fielddim_sizes(ncid, _xtype, _fieldid, _dim_sizes); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_vlen(ncid: c_int, _name: *const c_char, _base: c_int, _xtypep: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_def_vlen(ncid, _name, _base, _xtypep); status { not_nc4(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_vlen(
    ncid: c_int,
    _xtype: c_int,
    _name: *mut c_char,
    _datum_sizep: *mut usize,
    _basep: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_vlen(ncid, _xtype, _name, _datum_sizep, _basep); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_put_vlen_element(
    ncid: c_int,
    _typeid1: c_int,
    _vlen_element: *mut c_void,
    _len: usize,
    _data: *const c_void,
) -> c_int {
    ffi_boundary!(forward ncid => nc_put_vlen_element(ncid, _typeid1, _vlen_element, _len, _data); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_get_vlen_element(
    ncid: c_int,
    _typeid1: c_int,
    _vlen_element: *const c_void,
    _len: *mut usize,
    _data: *mut c_void,
) -> c_int {
    ffi_boundary!(forward ncid => nc_get_vlen_element(ncid, _typeid1, _vlen_element, _len, _data); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_enum(ncid: c_int, _base: c_int, _name: *const c_char, _typeidp: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_def_enum(ncid, _base, _name, _typeidp); status { not_nc4(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_insert_enum(
    ncid: c_int,
    _xtype: c_int,
    _name: *const c_char,
    _value: *const c_void,
) -> c_int {
    ffi_boundary!(forward ncid => nc_insert_enum(ncid, _xtype, _name, _value); status { not_nc4(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_enum(
    ncid: c_int,
    _xtype: c_int,
    _name: *mut c_char,
    _basep: *mut c_int,
    _base_sizep: *mut usize,
    _num_membersp: *mut usize,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_enum(ncid, _xtype, _name, _basep, _base_sizep, _num_membersp); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_enum_member(
    ncid: c_int,
    _xtype: c_int,
    _idx: c_int,
    _name: *mut c_char,
    _value: *mut c_void,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_enum_member(ncid, _xtype, _idx, _name, _value); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_enum_ident(
    ncid: c_int,
    _xtype: c_int,
    _value: c_longlong,
    _identifier: *mut c_char,
) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_enum_ident(ncid, _xtype, _value, _identifier); status { no_such_type(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_def_opaque(ncid: c_int, _size: usize, _name: *const c_char, _xtypep: *mut c_int) -> c_int {
    ffi_boundary!(forward ncid => nc_def_opaque(ncid, _size, _name, _xtypep); status { not_nc4(ncid) })
}

/// # Safety
/// Pointer arguments are passed on unchanged when the dataset is delegated:
/// they must be valid as netcdf-c documents them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_inq_opaque(ncid: c_int, _xtype: c_int, _name: *mut c_char, _sizep: *mut usize) -> c_int {
    ffi_boundary!(forward ncid => nc_inq_opaque(ncid, _xtype, _name, _sizep); status { no_such_type(ncid) })
}

/// `nc_vlen_t` as netcdf.h lays it out.
#[repr(C)]
pub struct NcVlen {
    pub len: usize,
    pub p: *mut c_void,
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_free_vlen(vl: *mut NcVlen) -> c_int {
    // NULL is NC_EINVAL (netcdf-c crashes).
    ffi_boundary!(status {
        // SAFETY: vl is NULL or points to one nc_vlen_t (this export's contract).
        let Some(v) = (unsafe { vl.as_mut() }) else {
            return Err(NcError::Inval);
        };
        // SAFETY: its data is NULL or came from malloc and is given up by the
        // caller (this export's contract); free accepts both.
        unsafe { libc::free(v.p) };
        v.p = std::ptr::null_mut();
        v.len = 0;
        Ok(())
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_free_vlens(nelems: usize, vlens: *mut NcVlen) -> c_int {
    // NULL with nelems > 0 is NC_EINVAL (netcdf-c crashes).
    ffi_boundary!(status {
        // SAFETY: vlens is NULL (with nelems 0) or holds nelems nc_vlen_t
        // values (this export's contract).
        let v = unsafe { slice_mut(vlens, nelems) }?;
        for x in v.iter_mut() {
            // SAFETY: each data pointer is NULL or came from malloc and is
            // given up by the caller (this export's contract).
            unsafe { libc::free(x.p) };
            x.p = std::ptr::null_mut();
            x.len = 0;
        }
        Ok(())
    })
}
