//! netcdf_aux.h: filter-spec parsing (`ncaux_h5filterspec_*`, what ncgen and
//! nccopy use for `_Filter` and `-F`), type alignment, the compound-type
//! builder, file helpers and the `nc_*` wrappers. The plugin-path helpers
//! (`ncaux_plugin_path_*`) live with the plugin loader.
//!
//! Filter specs follow netcdf-c 4.9.0 (4.10.1 parses the same way): a spec is
//! `id,param,param,...`; each parameter is an unsigned 32-bit integer unless
//! its last one or two characters tag it: `b`/`B` byte and `s`/`S` short
//! (masked to 8/16 bits), `u`/`U` unsigned int, `f`/`F` float (its 32 bits),
//! `d`/`D` double and `l`/`L` (`ul`, `ll`...) 64-bit integer, which take two
//! parameters (low word first, as HDF5 filters expect after
//! `ncaux_h5filterspec_fix8`). A list is specs separated by `|`, optionally
//! after a `[format]` prefix. Results are `malloc`'d for the caller to free.
//!
//! # Safety (every function here)
//! Pointer arguments are NULL or valid for the access netcdf-c documents:
//! strings NUL-terminated, out-parameters writable.

use std::ffi::{c_char, c_int, c_uint, c_void};

use crate::ffi::data::{nc_reclaim_data, nc_reclaim_data_all};
use crate::ffi::delegate::forward;
use crate::ffi::usertype::{nc_def_compound, nc_insert_array_compound, nc_insert_compound};
use crate::ffi::{NC_NOERR, catch, cbytes, put};
use crate::ffi::{nc_inq_type, nc_inq_user_type};

const NC_EINVAL: c_int = -36;
const NC_ENOMEM: c_int = -61;
const NC_EINTERNAL: c_int = -92;
const NC_MAX_ATOMIC_TYPE: c_int = 12;
const NC_VLEN: c_int = 13;
const NC_OPAQUE: c_int = 14;
const NC_ENUM: c_int = 15;
const NC_COMPOUND: c_int = 16;
const NC_MAX_VAR_DIMS: usize = 1024;

/// `struct NC_H5_Filterspec` of netcdf_aux.h.
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct NC_H5_Filterspec {
    pub filterid: c_uint,
    pub nparams: usize,
    pub params: *mut c_uint,
}

// ----- filter specs -----

/// The type a parameter's trailing one or two characters give it, and
/// whether it is unsigned (netcdf-c's `gettype`).
fn param_type(p: &[u8]) -> (u8, bool) {
    let (q0, q1) = match p.len() {
        0 => return (0, false),
        1 | 2 => (p[p.len() - 1], 0),
        n => (p[n - 2], p[n - 1]),
    };
    let mut unsigned = q0 == b'u' || q0 == b'U';
    let c = if q1 == 0 { q0 } else { q1 };
    let t = match c {
        b'f' | b'F' | b'.' => b'f',
        b'd' | b'D' => b'd',
        b'b' | b'B' => b'b',
        b's' | b'S' => b's',
        b'l' | b'L' => b'l',
        b'0'..=b'9' => b'i',
        b'u' | b'U' => {
            unsigned = true;
            b'i'
        }
        _ => 0,
    };
    (t, unsigned)
}

/// `sscanf("%u"/"%d"/"%llu"/"%lld")`: optional blanks and sign, then at
/// least one digit; the digits that follow stop at the first non-digit.
/// Saturates like strtoull/strtoll, and returns the value as 64 bits
/// (negation wraps, as the C conversions do).
fn scan_int(s: &[u8], signed: bool) -> Option<u64> {
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    let start = i;
    let mut v: u64 = 0;
    let mut overflow = false;
    while i < s.len() && s[i].is_ascii_digit() {
        match v.checked_mul(10).and_then(|x| x.checked_add(u64::from(s[i] - b'0'))) {
            Some(x) => v = x,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return None;
    }
    if signed {
        let limit = if neg { 1u64 << 63 } else { (1u64 << 63) - 1 };
        if overflow || v > limit {
            v = limit;
        }
        Some(if neg { v.wrapping_neg() } else { v })
    } else {
        if overflow {
            v = u64::MAX;
        }
        Some(if neg { v.wrapping_neg() } else { v })
    }
}

/// `sscanf("%lf")`: the longest prefix that is a decimal floating-point
/// number (or inf/nan) after optional blanks.
fn scan_double(s: &[u8]) -> Option<f64> {
    let t = std::str::from_utf8(s).ok().unwrap_or("").trim_start();
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let lower: String = t[i..].chars().take(8).collect::<String>().to_ascii_lowercase();
    for word in ["infinity", "inf", "nan"] {
        if lower.starts_with(word) {
            return t[..i + word.len()].parse::<f64>().ok().or_else(|| {
                let neg = b.first() == Some(&b'-');
                Some(match (word, neg) {
                    ("nan", _) => f64::NAN,
                    (_, true) => f64::NEG_INFINITY,
                    _ => f64::INFINITY,
                })
            });
        }
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut ndig = i - digits_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        ndig += i - f;
    }
    if ndig == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let e = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > e {
            i = j;
        }
    }
    t[..i].parse::<f64>().ok()
}

/// Split 64 bits into the two parameters HDF5 filters receive (low word
/// first; on a big-endian machine `ncaux_h5filterspec_fix8` arranges the
/// same values).
fn push64(out: &mut Vec<c_uint>, v: u64) {
    out.push(v as u32);
    out.push((v >> 32) as u32);
}

/// One parameter to one or two unsigned ints (netcdf-c's `filterspec_cvt`).
fn convert_param(txt: &[u8], out: &mut Vec<c_uint>) -> Result<(), c_int> {
    let mut p = txt;
    while let Some((&c, rest)) = p.split_first() {
        if c == b' ' || c == b'\t' {
            p = rest;
        } else {
            break;
        }
    }
    if p.is_empty() {
        return Err(NC_EINVAL);
    }
    let negative = p[0] == b'-';
    let (t, unsigned) = param_type(p);
    match t {
        b'b' | b's' | b'i' => {
            let v = scan_int(p, negative).ok_or(NC_EINVAL)? as u32;
            out.push(match t {
                b'b' => v & 0xFF,
                b's' => v & 0xFFFF,
                _ => v,
            });
        }
        b'f' => {
            let v = scan_double(p).ok_or(NC_EINVAL)? as f32;
            out.push(v.to_bits());
        }
        b'd' => push64(out, scan_double(p).ok_or(NC_EINVAL)?.to_bits()),
        b'l' => push64(out, scan_int(p, !unsigned).ok_or(NC_EINVAL)?),
        _ => return Err(NC_EINVAL),
    }
    Ok(())
}

/// Parse `id,param,...` into the id and the parameter words.
fn parse_spec(txt: &[u8]) -> Result<(c_uint, Vec<c_uint>), c_int> {
    if txt.is_empty() {
        return Err(NC_EINVAL);
    }
    let mut pieces = txt.split(|&c| c == b',');
    let id = pieces.next().and_then(|s| scan_int(s, false)).ok_or(NC_EINVAL)? as c_uint;
    let mut params = Vec::new();
    for p in pieces {
        convert_param(p, &mut params)?;
    }
    Ok((id, params))
}

/// A `malloc`'d copy of `v` (never NULL on success, even when empty).
fn malloc_uints(v: &[c_uint]) -> Option<*mut c_uint> {
    // SAFETY: malloc of at least one byte, checked below.
    let p = unsafe { libc::malloc(std::mem::size_of_val(v).max(1)) }.cast::<c_uint>();
    if p.is_null() {
        return None;
    }
    // SAFETY: p has room for v.len() words.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
    Some(p)
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
    catch(NC_EINTERNAL, || {
        // SAFETY: NULL or NUL-terminated.
        let Ok(txt) = (unsafe { cbytes(txt) }) else {
            return NC_EINVAL;
        };
        let (id, params) = match parse_spec(txt) {
            Ok(r) => r,
            Err(e) => return e,
        };
        let mut vec = std::ptr::null_mut();
        if !paramsp.is_null() {
            let Some(p) = malloc_uints(&params) else {
                return NC_ENOMEM;
            };
            vec = p;
        }
        // SAFETY: NULL or writable.
        unsafe {
            put(idp, id);
            put(nparamsp, params.len());
            put(paramsp, vec);
        }
        NC_NOERR
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
    catch(NC_EINTERNAL, || {
        // SAFETY: NULL or NUL-terminated.
        let Ok(txt) = (unsafe { cbytes(txt) }) else {
            return NC_EINVAL;
        };
        if txt.is_empty() {
            return NC_EINVAL;
        }
        let mut words = Vec::with_capacity(2);
        if let Err(e) = convert_param(txt, &mut words) {
            return e;
        }
        if !uiparams.is_null() {
            // SAFETY: room for two words (contract above).
            unsafe { std::ptr::copy_nonoverlapping(words.as_ptr(), uiparams, words.len()) };
        }
        // SAFETY: NULL or writable.
        unsafe { put(nuiparamsp, words.len()) };
        NC_NOERR
    })
}

/// Free one spec and its parameters (NULL is ignored).
///
/// # Safety
/// `f` is NULL or a spec from `ncaux_h5filterspec_parselist`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_h5filterspec_free(f: *mut NC_H5_Filterspec) {
    catch((), || {
        if f.is_null() {
            return;
        }
        // SAFETY: f and its params came from malloc (contract above).
        unsafe {
            libc::free((*f).params.cast());
            libc::free(f.cast());
        }
    })
}

/// Free a partly built vector of specs.
///
/// # Safety
/// `v` holds `n` specs from `malloc` (or NULL entries).
unsafe fn free_vector(v: *mut *mut NC_H5_Filterspec, n: usize) {
    for i in 0..n {
        // SAFETY: n entries (contract above).
        unsafe { ncaux_h5filterspec_free(v.add(i).read()) };
    }
    // SAFETY: v came from malloc.
    unsafe { libc::free(v.cast()) };
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
    catch(NC_EINTERNAL, || {
        // SAFETY: NULL or NUL-terminated.
        let Ok(mut txt) = (unsafe { cbytes(txt0) }) else {
            return NC_EINVAL;
        };
        let mut format = 0;
        if txt.first() == Some(&b'[') {
            let Some(close) = txt.iter().position(|&c| c == b']') else {
                return NC_EINVAL;
            };
            let Some(f) = scan_int(&txt[1..close], true) else {
                return NC_EINVAL;
            };
            format = f as i32;
            txt = &txt[close + 1..];
        }
        let mut specs = Vec::new();
        let mut rest = txt;
        while !rest.is_empty() {
            let end = rest.iter().position(|&c| c == b'|').unwrap_or(rest.len());
            match parse_spec(&rest[..end]) {
                Ok(s) => specs.push(s),
                Err(e) => return e,
            }
            rest = if end < rest.len() { &rest[end + 1..] } else { &[] };
        }
        let mut vector: *mut *mut NC_H5_Filterspec = std::ptr::null_mut();
        if !specs.is_empty() && !vectorp.is_null() {
            // SAFETY: calloc of specs.len() pointers, checked below.
            vector = unsafe { libc::calloc(specs.len(), size_of::<*mut NC_H5_Filterspec>()) }.cast();
            if vector.is_null() {
                return NC_ENOMEM;
            }
            for (i, (id, params)) in specs.iter().enumerate() {
                // SAFETY: malloc of one spec, checked below.
                let spec = unsafe { libc::malloc(size_of::<NC_H5_Filterspec>()) }.cast::<NC_H5_Filterspec>();
                let words = malloc_uints(params);
                if spec.is_null() || words.is_none() {
                    // SAFETY: free what was allocated; vector holds i specs.
                    unsafe {
                        libc::free(spec.cast());
                        if let Some(w) = words {
                            libc::free(w.cast());
                        }
                        free_vector(vector, i);
                    }
                    return NC_ENOMEM;
                }
                // SAFETY: spec is a fresh allocation; vector has specs.len() slots.
                unsafe {
                    spec.write(NC_H5_Filterspec {
                        filterid: *id,
                        nparams: params.len(),
                        params: words.unwrap_or(std::ptr::null_mut()),
                    });
                    vector.add(i).write(spec);
                }
            }
        }
        // SAFETY: NULL or writable.
        unsafe {
            put(formatp, format);
            put(nspecsp, specs.len());
            put(vectorp, vector);
        }
        NC_NOERR
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
    if mem.is_null() || cfg!(target_endian = "little") {
        return;
    }
    // SAFETY: 8 bytes (contract above).
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
}

// ----- alignment -----

/// C alignment of an atomic type or of the VLEN / OPAQUE classes (ENUM,
/// COMPOUND and anything else: NC_EINVAL with `*alignp` = 0, as netcdf-c).
///
/// # Safety
/// See the module documentation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_class_alignment(ncclass: c_int, alignp: *mut usize) -> c_int {
    let align = class_alignment(ncclass);
    if align == 0 {
        crate::log::c_line(
            2,
            &format!("ncaux_class_alignment: class {ncclass}; alignment cannot be determermined"),
        );
    }
    // SAFETY: NULL or writable.
    unsafe { put(alignp, align) };
    if align == 0 { NC_EINVAL } else { NC_NOERR }
}

fn class_alignment(ncclass: c_int) -> usize {
    match ncclass {
        1 | 2 | 7 | NC_OPAQUE => align_of::<u8>(),
        3 | 8 => align_of::<i16>(),
        4 | 9 => align_of::<i32>(),
        5 => align_of::<f32>(),
        6 => align_of::<f64>(),
        10 | 11 => align_of::<i64>(),
        12 => align_of::<*const c_char>(),
        NC_VLEN => align_of::<(usize, *const c_void)>(),
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
    forward!(ncid => ncaux_type_alignment(xtype, ncid, alignp));
    catch(NC_EINTERNAL, || {
        if (1..=NC_MAX_ATOMIC_TYPE).contains(&xtype) {
            // SAFETY: forwarded contract.
            return unsafe { ncaux_class_alignment(xtype, alignp) };
        }
        let z: *mut c_int = std::ptr::null_mut();
        // SAFETY: NULL outputs.
        let st = unsafe { nc_inq_user_type(ncid, xtype, z.cast(), z.cast(), z, z.cast(), z) };
        if st != NC_NOERR { st } else { NC_EINVAL }
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
    forward!(ncid => ncaux_inq_any_type(ncid, typeid, name, size, basetypep, nfieldsp, classp));
    catch(NC_EINTERNAL, || {
        if (1..=NC_MAX_ATOMIC_TYPE).contains(&typeid) {
            // SAFETY: forwarded contract.
            let st = unsafe { nc_inq_type(ncid, typeid, name, size) };
            if st == NC_NOERR {
                // SAFETY: NULL or writable.
                unsafe {
                    put(basetypep, 0);
                    put(nfieldsp, 0);
                    put(classp, typeid);
                }
            }
            return st;
        }
        // SAFETY: forwarded contract.
        unsafe { nc_inq_user_type(ncid, typeid, name, size, basetypep, nfieldsp, classp) }
    })
}

// ----- wrappers -----

/// # Safety
/// See `nc_reclaim_data`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_reclaim_data(ncid: c_int, xtype: c_int, memory: *mut c_void, count: usize) -> c_int {
    forward!(ncid => ncaux_reclaim_data(ncid, xtype, memory, count));
    // SAFETY: forwarded contract.
    unsafe { nc_reclaim_data(ncid, xtype, memory, count) }
}

/// # Safety
/// See `nc_reclaim_data_all`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_reclaim_data_all(ncid: c_int, xtype: c_int, memory: *mut c_void, count: usize) -> c_int {
    forward!(ncid => ncaux_reclaim_data_all(ncid, xtype, memory, count));
    // SAFETY: forwarded contract.
    unsafe { nc_reclaim_data_all(ncid, xtype, memory, count) }
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
    forward!(ncid => ncaux_copy_data(ncid, xtype, memory, count, copy));
    // SAFETY: forwarded contract.
    unsafe { crate::ffi::nc_copy_data(ncid, xtype, memory, count, copy) }
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
    forward!(ncid => ncaux_copy_data_all(ncid, xtype, memory, count, copyp));
    // SAFETY: forwarded contract.
    unsafe { crate::ffi::nc_copy_data_all(ncid, xtype, memory, count, copyp) }
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
    forward!(ncid => ncaux_dump_data(ncid, xtype, memory, count, buf));
    // SAFETY: forwarded contract.
    unsafe { crate::ffi::nc_dump_data(ncid, xtype, memory, count, buf) }
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
    catch(NC_EINTERNAL, || {
        // SAFETY: NULL or NUL-terminated.
        let Ok(name) = (unsafe { cbytes(filename) }) else {
            return NC_EINVAL;
        };
        let path = std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name));
        let data = match std::fs::read(path) {
            Ok(d) => d,
            Err(e) => return e.raw_os_error().unwrap_or(NC_EINVAL),
        };
        let p = crate::ffi::malloc_cstring(&data);
        if p.is_null() {
            return NC_ENOMEM;
        }
        // SAFETY: NULL or writable; an unreturned block is freed.
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
    catch(NC_EINTERNAL, || {
        // SAFETY: NULL or NUL-terminated.
        let Ok(name) = (unsafe { cbytes(filename) }) else {
            return NC_EINVAL;
        };
        // SAFETY: size bytes (contract above).
        let Ok(data) = (unsafe { crate::ffi::slice(content.cast::<u8>().cast_const(), size) }) else {
            return NC_EINVAL;
        };
        let path = std::path::Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name));
        match std::fs::write(path, data) {
            Ok(()) => NC_NOERR,
            Err(e) => e.raw_os_error().unwrap_or(NC_EINVAL),
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
    // Not forward!(): the tag must be this library's (ncaux_add_field and ncaux_end_compound
    // read it); ncaux_end_compound's nc_def_compound reaches a delegated dataset itself.
    catch(NC_EINTERNAL, || {
        let _ = alignmode;
        // SAFETY: NULL or NUL-terminated.
        let Ok(n) = (unsafe { cbytes(name) }) else {
            return NC_EINVAL;
        };
        let Ok(n) = std::ffi::CString::new(n) else {
            return NC_EINVAL;
        };
        if tag.is_null() {
            return NC_NOERR;
        }
        let b = Box::new(Compound {
            ncid,
            name: n,
            fields: Vec::new(),
        });
        // SAFETY: writable (checked non-NULL).
        unsafe { tag.write(Box::into_raw(b).cast()) };
        NC_NOERR
    })
}

/// # Safety
/// `tag` is NULL or from `ncaux_begin_compound`, not yet aborted.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_abort_compound(tag: *mut c_void) -> c_int {
    if !tag.is_null() {
        // SAFETY: tag came from Box::into_raw in ncaux_begin_compound.
        drop(unsafe { Box::from_raw(tag.cast::<Compound>()) });
    }
    NC_NOERR
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
    catch(NC_EINTERNAL, || {
        if tag.is_null() {
            return NC_NOERR;
        }
        let Ok(n) = usize::try_from(ndims) else {
            return NC_EINVAL;
        };
        if n > NC_MAX_VAR_DIMS {
            return NC_EINVAL;
        }
        // SAFETY: ndims sizes (contract above).
        let Ok(dims) = (unsafe { crate::ffi::slice(dimsizes, n) }) else {
            return NC_EINVAL;
        };
        if dims.iter().any(|&d| d <= 0) {
            return NC_EINVAL;
        }
        // SAFETY: NULL or NUL-terminated.
        let Ok(fname) = (unsafe { cbytes(name) }) else {
            return NC_EINVAL;
        };
        let Ok(fname) = std::ffi::CString::new(fname) else {
            return NC_EINVAL;
        };
        // SAFETY: tag is a live Compound (contract above).
        let c = unsafe { &mut *tag.cast::<Compound>() };
        c.fields.push(Field {
            name: fname,
            xtype: field_type,
            dims: dims.to_vec(),
        });
        NC_NOERR
    })
}

/// Lay the fields out with C alignment and define the type (on an NCZarr
/// dataset `nc_def_compound` answers NC_ENOTNC4, as netcdf-c's NCZarr does).
///
/// # Safety
/// `tag` as for `ncaux_abort_compound`; `xtypeid` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ncaux_end_compound(tag: *mut c_void, xtypeid: *mut c_int) -> c_int {
    catch(NC_EINTERNAL, || {
        if tag.is_null() {
            return NC_EINVAL;
        }
        // SAFETY: tag is a live Compound (contract above).
        let c = unsafe { &*tag.cast::<Compound>() };
        let mut offsets = Vec::with_capacity(c.fields.len());
        let mut offset = 0usize;
        let mut max_align = 1usize;
        for f in &c.fields {
            let mut size = 0usize;
            // SAFETY: a local.
            let st = unsafe { nc_inq_type(c.ncid, f.xtype, std::ptr::null_mut(), &mut size) };
            if st != NC_NOERR {
                return st;
            }
            let n = f.dims.iter().fold(1usize, |a, &d| a.saturating_mul(d as usize));
            let mut align = 0usize;
            let cls = if f.xtype > NC_MAX_ATOMIC_TYPE {
                NC_COMPOUND
            } else {
                f.xtype
            };
            // SAFETY: a local.
            let st = match cls {
                NC_ENUM | NC_COMPOUND => unsafe { ncaux_type_alignment(f.xtype, c.ncid, &mut align) },
                _ => unsafe { ncaux_class_alignment(cls, &mut align) },
            };
            if st != NC_NOERR {
                return st;
            }
            let align = align.max(1);
            max_align = max_align.max(align);
            offset = offset.div_ceil(align) * align;
            offsets.push(offset);
            offset = offset.saturating_add(size.saturating_mul(n));
        }
        let total = offset.div_ceil(max_align) * max_align;
        let mut id = 0;
        // SAFETY: the name is NUL-terminated and owned by the builder; id is a local.
        let st = unsafe { nc_def_compound(c.ncid, total, c.name.as_ptr(), &mut id) };
        if st != NC_NOERR {
            return st;
        }
        for (f, &off) in c.fields.iter().zip(&offsets) {
            // SAFETY: names NUL-terminated and dims valid, owned by the builder.
            let st = if f.dims.is_empty() {
                unsafe { nc_insert_compound(c.ncid, id, f.name.as_ptr(), off, f.xtype) }
            } else {
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
            if st != NC_NOERR {
                return st;
            }
        }
        // SAFETY: NULL or writable.
        unsafe { put(xtypeid, id) };
        NC_NOERR
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
    catch(NC_EINTERNAL, || {
        if pairsp.is_null() {
            return NC_NOERR;
        }
        // SAFETY: writable (checked non-NULL).
        unsafe { pairsp.write(std::ptr::null_mut()) };
        // SAFETY: NULL or NUL-terminated.
        let text = unsafe { cbytes(ncprop) }.unwrap_or(b"");
        if text.is_empty() {
            return NC_NOERR;
        }
        let pairs = split_unescaped(text, |c| c == b',' || c == b'|', false);
        if pairs.iter().any(|p| p.is_empty()) {
            return NC_EINVAL;
        }
        let mut strings: Vec<Vec<u8>> = Vec::with_capacity(pairs.len() * 2);
        for p in pairs {
            let kv = split_unescaped(p, |c| c == b'=', true);
            strings.push(deescape(kv[0]));
            strings.push(deescape(kv.get(1).copied().unwrap_or(b"")));
        }
        let n = strings.len() + 2;
        // SAFETY: calloc of n pointers, checked below.
        let vec = unsafe { libc::calloc(n, size_of::<*mut c_char>()) }.cast::<*mut c_char>();
        if vec.is_null() {
            return NC_ENOMEM;
        }
        for (i, s) in strings.iter().enumerate() {
            let p = crate::ffi::malloc_cstring(s);
            if p.is_null() {
                // SAFETY: the first i entries are malloc'd strings, vec from calloc.
                unsafe {
                    for j in 0..i {
                        libc::free(vec.add(j).read().cast());
                    }
                    libc::free(vec.cast());
                }
                return NC_ENOMEM;
            }
            // SAFETY: i < n.
            unsafe { vec.add(i).write(p) };
        }
        // SAFETY: writable (checked non-NULL).
        unsafe { pairsp.write(vec) };
        NC_NOERR
    })
}
