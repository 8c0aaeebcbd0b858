//! netcdf_aux.h: filter-spec parsing (`ncaux_h5filterspec_*`, what ncgen and
//! nccopy use for `_Filter` and `-F`; the syntax and its parser are
//! `api::filter::parse_spec`), type alignment, the compound-type builder,
//! file helpers and the `nc_*` wrappers. The plugin-path helpers
//! (`ncaux_plugin_path_*`) live with the plugin loader. Results are
//! `malloc`'d for the caller to free.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, out-parameters writable.

use std::ffi::{c_char, c_int, c_uint, c_void};

use crate::api::filter::{self, FilterSpec};
use crate::error::{NcError, NcResult};
use crate::ffi::data::{nc_reclaim_data, nc_reclaim_data_all};
use crate::ffi::usertype::{nc_def_compound, nc_insert_array_compound, nc_insert_compound};
use crate::ffi::{NC_NOERR, cbytes, ffi_boundary, put, result_of, slice};
use crate::ffi::{nc_inq_type, nc_inq_user_type};
use crate::model::types::NC_MAX_VAR_DIMS;

const NC_MAX_ATOMIC_TYPE: c_int = 12;
/// The type classes of netcdf.h (NC_VLEN, NC_OPAQUE, NC_ENUM, NC_COMPOUND).
const CLASS_VLEN: c_int = 13;
const CLASS_OPAQUE: c_int = 14;
const CLASS_ENUM: c_int = 15;
const CLASS_COMPOUND: c_int = 16;

/// `struct NC_H5_Filterspec` of netcdf_aux.h.
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct NC_H5_Filterspec {
    pub filterid: c_uint,
    pub nparams: usize,
    pub params: *mut c_uint,
}

// ----- filter specs -----

/// A `malloc`'d copy of `v` (never NULL on success, even when empty).
fn malloc_uints(v: &[c_uint]) -> NcResult<*mut c_uint> {
    // SAFETY: malloc may be called with any size; the result is checked.
    let p = unsafe { libc::malloc(std::mem::size_of_val(v).max(1)) }.cast::<c_uint>();
    if p.is_null() {
        return Err(NcError::NoMem);
    }
    // SAFETY: p is a fresh allocation with room for v.len() words.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
    Ok(p)
}

/// Parse one filter spec. `*paramsp` receives a `malloc`'d vector (freed by
/// the caller). Outputs are written only on success; NC_EINVAL on a NULL,
/// empty or malformed spec.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_h5filterspec_parse(
    txt: *const c_char,
    idp: *mut c_uint,
    nparamsp: *mut usize,
    paramsp: *mut *mut c_uint,
) -> c_int {
    ffi_boundary!(status {
        // SAFETY: txt is NULL or NUL-terminated (this export's contract).
        let spec = filter::parse_spec(unsafe { cbytes(txt) }?)?;
        let vec = if paramsp.is_null() {
            std::ptr::null_mut()
        } else {
            malloc_uints(&spec.params)?
        };
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe {
            put(idp, spec.id);
            put(nparamsp, spec.params.len());
            put(paramsp, vec);
        }
        Ok(())
    })
}

/// Parse one parameter into `uiparams` (room for two words) and its word
/// count into `*nuiparamsp`.
///
/// # Safety
/// See the module documentation; `uiparams` has room for 2 words.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_h5filterspec_parse_parameter(
    txt: *const c_char,
    nuiparamsp: *mut usize,
    uiparams: *mut c_uint,
) -> c_int {
    ffi_boundary!(status {
        // SAFETY: txt is NULL or NUL-terminated (this export's contract).
        let words = filter::parse_parameter(unsafe { cbytes(txt) }?)?;
        if !uiparams.is_null() {
            // SAFETY: uiparams has room for two words (this export's
            // contract); a parameter is one or two.
            unsafe { std::ptr::copy_nonoverlapping(words.as_ptr(), uiparams, words.len()) };
        }
        // SAFETY: nuiparamsp is NULL or writable (this export's contract).
        unsafe { put(nuiparamsp, words.len()) };
        Ok(())
    })
}

/// Free one spec and its parameters (NULL is ignored).
///
/// # Safety
/// `f` is NULL or a spec from `ncaux_h5filterspec_parselist`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_h5filterspec_free(f: *mut NC_H5_Filterspec) {
    ffi_boundary!(on_panic(()) {
        // SAFETY: f is NULL or a spec from ncaux_h5filterspec_parselist (this
        // export's contract): it and its params came from malloc.
        unsafe { free_spec(f) }
    })
}

/// # Safety
/// `f` is NULL or a `malloc`'d spec whose params are NULL or `malloc`'d.
unsafe fn free_spec(f: *mut NC_H5_Filterspec) {
    if f.is_null() {
        return;
    }
    // SAFETY: f is non-NULL, and it and its params came from malloc (this
    // function's contract).
    unsafe {
        libc::free((*f).params.cast());
        libc::free(f.cast());
    }
}

/// A `calloc`'d vector of `malloc`'d C specs; NULL for no spec.
fn malloc_specs(specs: &[FilterSpec]) -> NcResult<*mut *mut NC_H5_Filterspec> {
    if specs.is_empty() {
        return Ok(std::ptr::null_mut());
    }
    // SAFETY: calloc checks the size product; the result is checked.
    let vector =
        unsafe { libc::calloc(specs.len(), size_of::<*mut NC_H5_Filterspec>()) }.cast::<*mut NC_H5_Filterspec>();
    if vector.is_null() {
        return Err(NcError::NoMem);
    }
    for (i, s) in specs.iter().enumerate() {
        // SAFETY: malloc of one spec; the result is checked.
        let spec = unsafe { libc::malloc(size_of::<NC_H5_Filterspec>()) }.cast::<NC_H5_Filterspec>();
        let words = malloc_uints(&s.params);
        let (false, Ok(words)) = (spec.is_null(), words) else {
            // SAFETY: spec and words are NULL or fresh allocations; the
            // vector (from calloc) holds i filled specs and NULLs after them.
            unsafe {
                libc::free(spec.cast());
                if let Ok(w) = words {
                    libc::free(w.cast());
                }
                for j in 0..i {
                    free_spec(vector.add(j).read());
                }
                libc::free(vector.cast());
            }
            return Err(NcError::NoMem);
        };
        // SAFETY: spec is a fresh allocation for one NC_H5_Filterspec; the
        // vector has specs.len() slots and i < specs.len().
        unsafe {
            spec.write(NC_H5_Filterspec {
                filterid: s.id,
                nparams: s.params.len(),
                params: words,
            });
            vector.add(i).write(spec);
        }
    }
    Ok(vector)
}

/// Parse a `|`-separated list of specs, with an optional leading
/// `[format]`. `*vectorp` receives a `malloc`'d array of `*nspecsp`
/// `malloc`'d specs (each freed with `ncaux_h5filterspec_free`, then the
/// array with `free`); NULL for an empty list. A trailing `|` is ignored; an
/// empty spec between two `|` is NC_EINVAL. (netcdf-c 4.9.0 frees the wrong
/// pointer when a format prefix is present; this does not.)
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_h5filterspec_parselist(
    txt0: *const c_char,
    formatp: *mut c_int,
    nspecsp: *mut usize,
    vectorp: *mut *mut *mut NC_H5_Filterspec,
) -> c_int {
    ffi_boundary!(status {
        // SAFETY: txt0 is NULL or NUL-terminated (this export's contract).
        let list = filter::parse_spec_list(unsafe { cbytes(txt0) }?)?;
        let vector = if vectorp.is_null() {
            std::ptr::null_mut()
        } else {
            malloc_specs(&list.specs)?
        };
        // SAFETY: each out-pointer is NULL or writable (this export's contract).
        unsafe {
            put(formatp, list.format);
            put(nspecsp, list.specs.len());
            put(vectorp, vector);
        }
        Ok(())
    })
}

/// Convert an 8-byte parameter between host order and the order HDF5
/// filters receive: nothing to do on a little-endian host; on a big-endian
/// host the same swaps netcdf-c makes.
///
/// # Safety
/// `mem` is NULL or valid for 8 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_h5filterspec_fix8(mem: *mut u8, decode: c_int) {
    ffi_boundary!(on_panic(()) {
        if mem.is_null() || cfg!(target_endian = "little") {
            return;
        }
        // SAFETY: mem is non-NULL and valid for 8 bytes (this export's contract).
        let m = unsafe { std::slice::from_raw_parts_mut(mem, 8) };
        if decode != 0 {
            m[..4].reverse();
            m[4..].reverse();
            m.reverse();
        } else {
            m.reverse();
            m[..4].reverse();
            m[4..].reverse();
        }
    })
}

// ----- alignment -----

/// C alignment of an atomic type or of the VLEN / OPAQUE classes (ENUM,
/// COMPOUND and anything else: NC_EINVAL with `*alignp` = 0, as netcdf-c).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_class_alignment(ncclass: c_int, alignp: *mut usize) -> c_int {
    ffi_boundary!(status {
        let align = class_alignment(ncclass);
        if align == 0 {
            crate::log::c_line(
                2,
                &format!("ncaux_class_alignment: class {ncclass}; alignment cannot be determermined"),
            );
        }
        // SAFETY: alignp is NULL or writable (this export's contract).
        unsafe { put(alignp, align) };
        if align == 0 { Err(NcError::Inval) } else { Ok(()) }
    })
}

fn class_alignment(ncclass: c_int) -> usize {
    match ncclass {
        1 | 2 | 7 | CLASS_OPAQUE => align_of::<u8>(),
        3 | 8 => align_of::<i16>(),
        4 | 9 => align_of::<i32>(),
        5 => align_of::<f32>(),
        6 => align_of::<f64>(),
        10 | 11 => align_of::<i64>(),
        12 => align_of::<*const c_char>(),
        CLASS_VLEN => align_of::<(usize, *const c_void)>(),
        _ => 0,
    }
}

/// C alignment of any type of the dataset: atomic types from the table;
/// user-defined types would need their definition, and an NCZarr dataset
/// has none (the error `nc_inq_user_type` gives).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_type_alignment(xtype: c_int, ncid: c_int, alignp: *mut usize) -> c_int {
    ffi_boundary!(forward ncid => ncaux_type_alignment(xtype, ncid, alignp); code {
        if (1..=NC_MAX_ATOMIC_TYPE).contains(&xtype) {
            // SAFETY: alignp is NULL or writable (this export's contract).
            return unsafe { ncaux_class_alignment(xtype, alignp) };
        }
        let z: *mut c_int = std::ptr::null_mut();
        // SAFETY: every output is NULL, which nc_inq_user_type ignores.
        let st = unsafe { nc_inq_user_type(ncid, xtype, z.cast(), z.cast(), z, z.cast(), z) };
        if st != NC_NOERR { st } else { NcError::Inval.code() }
    })
}

/// Everything about a type, atomic or user-defined (4.10.1): an atomic type
/// reports its name, size, base type NC_NAT, 0 fields and itself as class.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_inq_any_type(
    ncid: c_int,
    typeid: c_int,
    name: *mut c_char,
    size: *mut usize,
    basetypep: *mut c_int,
    nfieldsp: *mut usize,
    classp: *mut c_int,
) -> c_int {
    ffi_boundary!(forward ncid => ncaux_inq_any_type(ncid, typeid, name, size, basetypep, nfieldsp, classp); code {
        if (1..=NC_MAX_ATOMIC_TYPE).contains(&typeid) {
            // SAFETY: name is NULL or a buffer of NC_MAX_NAME+1 bytes and size
            // NULL or writable (this export's contract), as nc_inq_type needs.
            let st = unsafe { nc_inq_type(ncid, typeid, name, size) };
            if st == NC_NOERR {
                // SAFETY: each out-pointer is NULL or writable (this export's contract).
                unsafe {
                    put(basetypep, 0);
                    put(nfieldsp, 0);
                    put(classp, typeid);
                }
            }
            return st;
        }
        // SAFETY: the out-pointers carry nc_inq_user_type's contract in this
        // export too (same order, same types).
        unsafe { nc_inq_user_type(ncid, typeid, name, size, basetypep, nfieldsp, classp) }
    })
}

// ----- wrappers -----

/// # Safety
/// See `nc_reclaim_data`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_reclaim_data(ncid: c_int, xtype: c_int, memory: *mut c_void, count: usize) -> c_int {
    ffi_boundary!(forward ncid => ncaux_reclaim_data(ncid, xtype, memory, count); code {
        // SAFETY: memory carries nc_reclaim_data's contract in this export too.
        unsafe { nc_reclaim_data(ncid, xtype, memory, count) }
    })
}

/// # Safety
/// See `nc_reclaim_data_all`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_reclaim_data_all(ncid: c_int, xtype: c_int, memory: *mut c_void, count: usize) -> c_int {
    ffi_boundary!(forward ncid => ncaux_reclaim_data_all(ncid, xtype, memory, count); code {
        // SAFETY: memory carries nc_reclaim_data_all's contract in this export too.
        unsafe { nc_reclaim_data_all(ncid, xtype, memory, count) }
    })
}

/// Declared in 4.10.1's netcdf_aux.h (netcdf-c itself never defined it).
///
/// # Safety
/// See `nc_copy_data`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_copy_data(
    ncid: c_int,
    xtype: c_int,
    memory: *mut c_void,
    count: usize,
    copy: *mut c_void,
) -> c_int {
    ffi_boundary!(forward ncid => ncaux_copy_data(ncid, xtype, memory, count, copy); code {
        // SAFETY: memory and copy carry nc_copy_data's contract in this export too.
        unsafe { crate::ffi::nc_copy_data(ncid, xtype, memory, count, copy) }
    })
}

/// Declared in 4.10.1's netcdf_aux.h (netcdf-c itself never defined it).
///
/// # Safety
/// See `nc_copy_data_all`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_copy_data_all(
    ncid: c_int,
    xtype: c_int,
    memory: *mut c_void,
    count: usize,
    copyp: *mut *mut c_void,
) -> c_int {
    ffi_boundary!(forward ncid => ncaux_copy_data_all(ncid, xtype, memory, count, copyp); code {
        // SAFETY: memory and copyp carry nc_copy_data_all's contract in this export too.
        unsafe { crate::ffi::nc_copy_data_all(ncid, xtype, memory, count, copyp) }
    })
}

/// # Safety
/// See `nc_dump_data`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_dump_data(
    ncid: c_int,
    xtype: c_int,
    memory: *mut c_void,
    count: usize,
    buf: *mut *mut c_char,
) -> c_int {
    ffi_boundary!(forward ncid => ncaux_dump_data(ncid, xtype, memory, count, buf); code {
        // SAFETY: memory and buf carry nc_dump_data's contract in this export too.
        unsafe { crate::ffi::nc_dump_data(ncid, xtype, memory, count, buf) }
    })
}

/// The path a file helper names (bytes, as the file system takes them).
fn os_path(name: &[u8]) -> &std::path::Path {
    std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name))
}

/// Read a whole file into a `malloc`'d, NUL-terminated block (`*content`,
/// caller frees) and its size without the terminator. Errors are the
/// system's `errno` (positive), as netcdf-c returns them.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_readfile(
    filename: *const c_char,
    sizep: *mut usize,
    content: *mut *mut c_void,
) -> c_int {
    ffi_boundary!(code {
        if filename.is_null() {
            // What netcdf-c answers: the errno fopen(NULL) sets.
            return libc::EFAULT;
        }
        // SAFETY: filename is non-NULL and NUL-terminated (this export's contract).
        let name = match unsafe { cbytes(filename) } {
            Ok(n) => n,
            Err(e) => return e.code(),
        };
        let data = match std::fs::read(os_path(name)) {
            Ok(d) => d,
            Err(e) => return e.raw_os_error().unwrap_or(NcError::Inval.code()),
        };
        let p = crate::ffi::malloc_cstring(&data);
        if p.is_null() {
            return NcError::NoMem.code();
        }
        // SAFETY: sizep and content are NULL or writable (this export's
        // contract); p came from malloc just above and is freed when it
        // cannot be handed out.
        unsafe {
            put(sizep, data.len());
            if content.is_null() {
                libc::free(p.cast());
            } else {
                content.write(p.cast());
            }
        }
        NC_NOERR
    })
}

/// Write `size` bytes to a file (created or truncated). Errors: `errno`.
///
/// # Safety
/// `content` is valid for `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_writefile(filename: *const c_char, size: usize, content: *mut c_void) -> c_int {
    ffi_boundary!(code {
        if filename.is_null() {
            // What netcdf-c answers: the errno fopen(NULL) sets.
            return libc::EFAULT;
        }
        // SAFETY: filename is non-NULL and NUL-terminated, content NULL (size
        // 0) or valid for size bytes (this export's contract).
        let (name, data) = match unsafe { (cbytes(filename), slice(content.cast::<u8>().cast_const(), size)) } {
            (Ok(n), Ok(d)) => (n, d),
            (Err(e), _) | (_, Err(e)) => return e.code(),
        };
        match std::fs::write(os_path(name), data) {
            Ok(()) => NC_NOERR,
            Err(e) => e.raw_os_error().unwrap_or(NcError::Inval.code()),
        }
    })
}

// ----- compound builder -----

struct Field {
    name: std::ffi::CString,
    xtype: c_int,
    dims: Vec<c_int>,
}

/// The tag `ncaux_begin_compound` hands out.
struct Compound {
    ncid: c_int,
    name: std::ffi::CString,
    fields: Vec<Field>,
}

/// Start building a compound type; `*tag` receives the builder (freed by
/// `ncaux_abort_compound`, also after `ncaux_end_compound`, as in netcdf-c).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_begin_compound(
    ncid: c_int,
    name: *const c_char,
    alignmode: c_int,
    tag: *mut *mut c_void,
) -> c_int {
    // No forward clause: the tag must be this library's (ncaux_add_field and
    // ncaux_end_compound read it); ncaux_end_compound's nc_def_compound
    // reaches a delegated dataset itself.
    ffi_boundary!(status {
        let _ = alignmode;
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let n = unsafe { cbytes(name) }?;
        let n = std::ffi::CString::new(n).map_err(|_| NcError::Inval)?;
        if tag.is_null() {
            return Ok(());
        }
        let b = Box::new(Compound {
            ncid,
            name: n,
            fields: Vec::new(),
        });
        // SAFETY: tag is non-NULL and writable (this export's contract).
        unsafe { tag.write(Box::into_raw(b).cast()) };
        Ok(())
    })
}

/// # Safety
/// `tag` is NULL or from `ncaux_begin_compound`, not yet aborted.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_abort_compound(tag: *mut c_void) -> c_int {
    ffi_boundary!(status {
        if !tag.is_null() {
            // SAFETY: tag is a Box<Compound> from ncaux_begin_compound, not yet
            // freed (this export's contract).
            drop(unsafe { Box::from_raw(tag.cast::<Compound>()) });
        }
        Ok(())
    })
}

/// Add a field (an array field when `ndims` > 0; every size must be > 0).
///
/// # Safety
/// `tag` as for `ncaux_abort_compound`; `dimsizes` has `ndims` sizes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_add_field(
    tag: *mut c_void,
    name: *const c_char,
    field_type: c_int,
    ndims: c_int,
    dimsizes: *const c_int,
) -> c_int {
    ffi_boundary!(status {
        if tag.is_null() {
            return Ok(());
        }
        let n = usize::try_from(ndims).map_err(|_| NcError::Inval)?;
        if n > NC_MAX_VAR_DIMS {
            return Err(NcError::Inval);
        }
        // SAFETY: dimsizes is NULL (ndims 0) or holds ndims sizes (this
        // export's contract).
        let dims = unsafe { slice(dimsizes, n) }?;
        if dims.iter().any(|&d| d <= 0) {
            return Err(NcError::Inval);
        }
        // SAFETY: name is NULL or NUL-terminated (this export's contract).
        let fname = unsafe { cbytes(name) }?;
        let fname = std::ffi::CString::new(fname).map_err(|_| NcError::Inval)?;
        // SAFETY: tag is a live Box<Compound> from ncaux_begin_compound, not
        // otherwise borrowed (this export's contract).
        let c = unsafe { &mut *tag.cast::<Compound>() };
        c.fields.push(Field {
            name: fname,
            xtype: field_type,
            dims: dims.to_vec(),
        });
        Ok(())
    })
}

/// Lay the fields out with C alignment: their offsets and the padded size.
fn layout(c: &Compound) -> NcResult<(Vec<usize>, usize)> {
    let mut offsets = Vec::with_capacity(c.fields.len());
    let mut offset = 0usize;
    let mut max_align = 1usize;
    for f in &c.fields {
        let mut size = 0usize;
        // SAFETY: the name output is NULL (ignored); size is a local.
        result_of(unsafe { nc_inq_type(c.ncid, f.xtype, std::ptr::null_mut(), &mut size) })?;
        let n = f.dims.iter().fold(1usize, |a, &d| a.saturating_mul(d as usize));
        let mut align = 0usize;
        let cls = if f.xtype > NC_MAX_ATOMIC_TYPE {
            CLASS_COMPOUND
        } else {
            f.xtype
        };
        let st = match cls {
            // SAFETY: align is a local.
            CLASS_ENUM | CLASS_COMPOUND => unsafe { ncaux_type_alignment(f.xtype, c.ncid, &mut align) },
            // SAFETY: align is a local.
            _ => unsafe { ncaux_class_alignment(cls, &mut align) },
        };
        result_of(st)?;
        let align = align.max(1);
        max_align = max_align.max(align);
        offset = offset.div_ceil(align) * align;
        offsets.push(offset);
        offset = offset.saturating_add(size.saturating_mul(n));
    }
    Ok((offsets, offset.div_ceil(max_align) * max_align))
}

/// Define the compound type a builder describes (on an NCZarr dataset
/// `nc_def_compound` answers NC_ENOTNC4, as netcdf-c's NCZarr does).
fn define(c: &Compound) -> Result<c_int, c_int> {
    let (offsets, total) = layout(c).map_err(NcError::code)?;
    let check = |st: c_int| if st == NC_NOERR { Ok(()) } else { Err(st) };
    let mut id = 0;
    // SAFETY: the name is NUL-terminated and owned by the builder; id is a local.
    check(unsafe { nc_def_compound(c.ncid, total, c.name.as_ptr(), &mut id) })?;
    for (f, &off) in c.fields.iter().zip(&offsets) {
        let st = if f.dims.is_empty() {
            // SAFETY: the field name is NUL-terminated and owned by the builder.
            unsafe { nc_insert_compound(c.ncid, id, f.name.as_ptr(), off, f.xtype) }
        } else {
            // SAFETY: the field name is NUL-terminated and dims holds
            // f.dims.len() sizes, both owned by the builder.
            unsafe {
                nc_insert_array_compound(
                    c.ncid,
                    id,
                    f.name.as_ptr(),
                    off,
                    f.xtype,
                    f.dims.len() as c_int,
                    f.dims.as_ptr(),
                )
            }
        };
        check(st)?;
    }
    Ok(id)
}

/// Lay the fields out with C alignment and define the type.
///
/// # Safety
/// `tag` as for `ncaux_abort_compound`; `xtypeid` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_end_compound(tag: *mut c_void, xtypeid: *mut c_int) -> c_int {
    ffi_boundary!(code {
        if tag.is_null() {
            return NcError::Inval.code();
        }
        // SAFETY: tag is a live Box<Compound> from ncaux_begin_compound (this
        // export's contract), read only here.
        let c = unsafe { &*tag.cast::<Compound>() };
        match define(c) {
            Ok(id) => {
                // SAFETY: xtypeid is NULL or writable (this export's contract).
                unsafe { put(xtypeid, id) };
                NC_NOERR
            }
            Err(st) => st,
        }
    })
}

// ----- provenance -----

/// Remove backslash escapes (a trailing lone backslash is kept).
fn deescape(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' {
            i += 1;
            if i == s.len() {
                out.push(b'\\');
                break;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

/// Split at unescaped separators (a backslash escapes the next byte).
fn split_unescaped(s: &[u8], is_sep: impl Fn(u8) -> bool, first_only: bool) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < s.len() {
        if s[i] == b'\\' {
            i += 2;
            continue;
        }
        if is_sep(s[i]) {
            out.push(&s[start..i]);
            start = i + 1;
            if first_only {
                break;
            }
        }
        i += 1;
    }
    out.push(&s[start.min(s.len())..]);
    out
}

/// Parse an `_NCProperties` text (`key=value` pairs separated by `,`, or by
/// `|` in version 1; backslash escapes) into a `malloc`'d vector
/// `key0, value0, key1, value1, ..., NULL, NULL` of `malloc`'d strings
/// (4.10.1). An empty text gives `*pairsp` = NULL; an empty key NC_EINVAL.
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_parse_provenance(ncprop: *const c_char, pairsp: *mut *mut *mut c_char) -> c_int {
    ffi_boundary!(status {
        if pairsp.is_null() {
            return Ok(());
        }
        // SAFETY: pairsp is non-NULL and writable (this export's contract).
        unsafe { pairsp.write(std::ptr::null_mut()) };
        // SAFETY: ncprop is NULL or NUL-terminated (this export's contract).
        let text = unsafe { cbytes(ncprop) }.unwrap_or(b"");
        if text.is_empty() {
            return Ok(());
        }
        let pairs = split_unescaped(text, |c| c == b',' || c == b'|', false);
        if pairs.iter().any(|p| p.is_empty()) {
            return Err(NcError::Inval);
        }
        let mut strings: Vec<Vec<u8>> = Vec::with_capacity(pairs.len() * 2);
        for p in pairs {
            let kv = split_unescaped(p, |c| c == b'=', true);
            strings.push(deescape(kv[0]));
            strings.push(deescape(kv.get(1).copied().unwrap_or(b"")));
        }
        let vec = malloc_string_vector(&strings)?;
        // SAFETY: pairsp is non-NULL and writable (this export's contract).
        unsafe { pairsp.write(vec) };
        Ok(())
    })
}

/// A `calloc`'d vector of `malloc`'d copies of `strings`, then two NULLs.
fn malloc_string_vector(strings: &[Vec<u8>]) -> NcResult<*mut *mut c_char> {
    let n = strings.len().checked_add(2).ok_or(NcError::NoMem)?;
    // SAFETY: calloc checks the size product; the result is checked.
    let vec = unsafe { libc::calloc(n, size_of::<*mut c_char>()) }.cast::<*mut c_char>();
    if vec.is_null() {
        return Err(NcError::NoMem);
    }
    for (i, s) in strings.iter().enumerate() {
        let p = crate::ffi::malloc_cstring(s);
        if p.is_null() {
            // SAFETY: the first i entries are malloc'd strings; vec came from calloc.
            unsafe {
                for j in 0..i {
                    libc::free(vec.add(j).read().cast());
                }
                libc::free(vec.cast());
            }
            return Err(NcError::NoMem);
        }
        // SAFETY: i < strings.len() < n slots of vec.
        unsafe { vec.add(i).write(p) };
    }
    Ok(vec)
}
