//! Data access exports: nc_put/get of var, var1, vara, vars and varm, generic
//! and typed, all through one generic path.
//!
//! # Safety (every function here)
//! `startp`/`countp`/`stridep`/`imapp` hold one value per dimension of the
//! variable (they may be NULL where netcdf-c allows it); the value buffer
//! holds the selected values in the call's memory type (for `varm`, as far as
//! the map reaches); strings are `char*` values, NUL-terminated or NULL.
//!
//! A NULL value buffer for a selection of one value or more is NC_EINVAL:
//! netcdf-c 4.10.1 reads through it (a crash) or, for some puts, answers
//! NC_NOERR having written nothing.

use std::ffi::{c_char, c_int, c_long, c_longlong, c_ulonglong, c_void};

use super::{cbytes, ffi_boundary, malloc_cstring, slice, slice_mut};
use crate::api::handles;
use crate::engine::{self, MemIn, MemOut};
use crate::error::{NcError, NcResult};
use crate::model::Dataset;
use crate::model::types::NcType;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Var,
    Var1,
    Vara,
    Vars,
    Varm,
}

/// The selection pointers of one call, as the caller passed them.
#[derive(Clone, Copy)]
struct CArgs {
    start: *const usize,
    count: *const usize,
    stride: *const isize,
    imap: *const isize,
}

impl CArgs {
    const fn new(start: *const usize, count: *const usize, stride: *const isize, imap: *const isize) -> CArgs {
        CArgs {
            start,
            count,
            stride,
            imap,
        }
    }
}

struct Request {
    start: Vec<usize>,
    count: Vec<usize>,
    stride: Option<Vec<isize>>,
    imap: Option<Vec<usize>>,
    total: usize,
}

/// Build the selection from the C arguments, with netcdf-c's NULL rules:
/// a NULL start is NC_EINVALCOORDS, a NULL count means "to the end", NULL
/// stride or map means contiguous.
unsafe fn request(ds: &Dataset, grp: usize, varid: c_int, shape: Shape, a: CArgs) -> NcResult<Request> {
    let CArgs {
        start: startp,
        count: countp,
        stride: stridep,
        imap: imapp,
    } = a;
    let var = ds.var(grp, varid)?;
    ds.var_len(var)?;
    let n = var.dimids.len();
    let dims = ds.var_shape(var);
    let start: Vec<usize> = match shape {
        Shape::Var => vec![0; n],
        _ => {
            if startp.is_null() && n > 0 {
                return Err(NcError::InvalCoords);
            }
            // SAFETY: startp holds n values.
            unsafe { slice(startp, n) }?.to_vec()
        }
    };
    let count: Vec<usize> = match shape {
        Shape::Var => dims.clone(),
        Shape::Var1 => vec![1; n],
        _ if countp.is_null() => dims.iter().zip(&start).map(|(&d, &s)| d.saturating_sub(s)).collect(),
        // SAFETY: countp holds n values.
        _ => unsafe { slice(countp, n) }?.to_vec(),
    };
    let stride = match shape {
        Shape::Vars | Shape::Varm if !stridep.is_null() => {
            // SAFETY: stridep holds n values.
            Some(unsafe { slice(stridep, n) }?.to_vec())
        }
        _ => None,
    };
    let imap = match shape {
        Shape::Varm if !imapp.is_null() && n > 0 => {
            // SAFETY: imapp holds n values.
            let m = unsafe { slice(imapp, n) }?;
            // Negative maps would address memory before the caller's pointer.
            Some(
                m.iter()
                    .map(|&x| usize::try_from(x).map_err(|_| NcError::Inval))
                    .collect::<NcResult<Vec<_>>>()?,
            )
        }
        _ => None,
    };
    let total = count
        .iter()
        .try_fold(1usize, |a, &c| a.checked_mul(c))
        .ok_or(NcError::Edge)?;
    Ok(Request {
        start,
        count,
        stride,
        imap,
        total,
    })
}

/// `n` copies of `v`, or NC_ENOMEM instead of an abort.
fn alloc<T: Clone>(n: usize, v: T) -> NcResult<Vec<T>> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| NcError::NoMem)?;
    out.resize(n, v);
    Ok(out)
}

/// Bytes of `n` values of `size` bytes.
fn nbytes(n: usize, size: usize) -> NcResult<usize> {
    n.checked_mul(size).ok_or(NcError::Edge)
}

/// Elements a mapped buffer spans.
fn map_extent(count: &[usize], imap: &[usize]) -> NcResult<usize> {
    if count.contains(&0) {
        return Ok(0);
    }
    count
        .iter()
        .zip(imap)
        .try_fold(1usize, |a, (&c, &m)| {
            (c - 1).checked_mul(m).and_then(|x| x.checked_add(a))
        })
        .ok_or(NcError::Inval)
}

/// Mapped copies of values of `es` bytes (see `engine::for_each_mapped`).
fn scatter_bytes(contig: &[u8], es: usize, count: &[usize], imap: &[usize], out: &mut [u8]) {
    engine::for_each_mapped(count, imap, |k, off| {
        out[off * es..(off + 1) * es].copy_from_slice(&contig[k * es..(k + 1) * es]);
    });
}

fn gather_bytes(src: &[u8], es: usize, count: &[usize], imap: &[usize], contig: &mut [u8]) {
    engine::for_each_mapped(count, imap, |k, off| {
        contig[k * es..(k + 1) * es].copy_from_slice(&src[off * es..(off + 1) * es]);
    });
}

/// The common start of a data access: read the C selection, leave define
/// mode, settle the memory type and validate the selection before anything
/// is sized from it.
///
/// # Safety
/// As `request`.
unsafe fn begin(
    ds: &mut Dataset,
    grp: usize,
    varid: c_int,
    shape: Shape,
    a: CArgs,
    mem: Option<NcType>,
    for_write: bool,
) -> NcResult<(Request, NcType)> {
    // SAFETY: the selection pointers of `a` hold what request needs (this
    // function's contract).
    let req = unsafe { request(ds, grp, varid, shape, a) }?;
    crate::api::begin_data_access(ds)?;
    let mt = mem.unwrap_or(ds.var(grp, varid)?.ty);
    engine::validate(ds, grp, varid, &req.start, &req.count, req.stride.as_deref(), for_write)?;
    Ok((req, mt))
}

unsafe fn get_impl(
    ncid: c_int,
    varid: c_int,
    shape: Shape,
    a: CArgs,
    mem: Option<NcType>,
    ip: *mut c_void,
) -> NcResult<()> {
    // Codec maps may call back into the library: resolve them unlocked.
    crate::api::filter::ready_chain(ncid, varid)?;
    handles::with(ncid, |ds, grp| {
        // SAFETY: the selection pointers of `a` hold what begin needs (this
        // function's contract).
        let (req, mt) = unsafe { begin(ds, grp, varid, shape, a, mem, false) }?;
        let stride = req.stride.as_deref();
        if mt == NcType::String {
            let mut tmp: Vec<Option<Vec<u8>>> = alloc(req.total, None)?;
            engine::get_vars(ds, grp, varid, &req.start, &req.count, stride, MemOut::Str(&mut tmp))?;
            // An element stored as all-zero bytes (an empty string, a NULL
            // written, or a fill chunk netcdf-c wrote with the default fill "")
            // reads as "": never a NULL pointer that strlen would crash on.
            // (netcdf-c 4.10.1 returns NULL there; docs/differences.md.)
            let ptrs: Vec<*mut c_char> = tmp
                .iter()
                .map(|s| malloc_cstring(s.as_deref().unwrap_or_default()))
                .collect();
            let extent = match &req.imap {
                Some(m) => map_extent(&req.count, m)?,
                None => req.total,
            };
            // SAFETY: ip has room for `extent` char* values.
            let out = unsafe { slice_mut(ip.cast::<*mut c_char>(), extent) }?;
            match &req.imap {
                Some(m) => engine::scatter_map(&ptrs, &req.count, m, out),
                None => out.copy_from_slice(&ptrs),
            }
            return Ok(());
        }
        let ms = mt.size();
        match &req.imap {
            None => {
                // SAFETY: ip has room for total values of the memory type.
                let out = unsafe { slice_mut(ip.cast::<u8>(), nbytes(req.total, ms)?) }?;
                engine::get_vars(
                    ds,
                    grp,
                    varid,
                    &req.start,
                    &req.count,
                    stride,
                    MemOut::Num { ty: mt, data: out },
                )
            }
            Some(m) => {
                let mut tmp = alloc(nbytes(req.total, ms)?, 0u8)?;
                let r = engine::get_vars(
                    ds,
                    grp,
                    varid,
                    &req.start,
                    &req.count,
                    stride,
                    MemOut::Num { ty: mt, data: &mut tmp },
                );
                if matches!(r, Ok(()) | Err(NcError::Range)) {
                    let extent = map_extent(&req.count, m)?;
                    // SAFETY: ip spans `extent` values as the map says.
                    let out = unsafe { slice_mut(ip.cast::<u8>(), nbytes(extent, ms)?) }?;
                    scatter_bytes(&tmp, ms, &req.count, m, out);
                }
                r
            }
        }
    })
}

/// A write, then on a parallel dataset the end of the call
/// (`api::parallel::after_put`: in collective mode every process merges
/// and agrees on the result, whatever failed here).
///
/// # Safety
/// As `put_local`.
unsafe fn put_impl(
    ncid: c_int,
    varid: c_int,
    shape: Shape,
    a: CArgs,
    mem: Option<NcType>,
    op: *const c_void,
) -> NcResult<()> {
    // SAFETY: the arguments carry put_local's contract (this function's).
    let r = unsafe { put_local(ncid, varid, shape, a, mem, op) };
    handles::with(ncid, |ds, grp| Ok(crate::api::parallel::after_put(ds, grp, varid, r))).unwrap_or(r)
}

unsafe fn put_local(
    ncid: c_int,
    varid: c_int,
    shape: Shape,
    a: CArgs,
    mem: Option<NcType>,
    op: *const c_void,
) -> NcResult<()> {
    // Codec maps may call back into the library: resolve them unlocked.
    crate::api::filter::ready_chain(ncid, varid)?;
    handles::with(ncid, |ds, grp| {
        // SAFETY: the selection pointers of `a` hold what begin needs (this
        // function's contract).
        let (req, mt) = unsafe { begin(ds, grp, varid, shape, a, mem, true) }?;
        let stride = req.stride.as_deref();
        if mt == NcType::String {
            let extent = match &req.imap {
                Some(m) => map_extent(&req.count, m)?,
                None => req.total,
            };
            // SAFETY: op holds `extent` char* values.
            let ptrs = unsafe { slice(op.cast::<*const c_char>(), extent) }?;
            let mut all = Vec::with_capacity(extent);
            for &p in ptrs {
                all.push(if p.is_null() {
                    None
                } else {
                    // SAFETY: each non-NULL value is NUL-terminated (this
                    // module's contract for strings).
                    Some(unsafe { cbytes(p) }?.to_vec())
                });
            }
            let vals = match &req.imap {
                Some(m) => {
                    let mut c = alloc(req.total, None)?;
                    engine::gather_map(&all, &req.count, m, &mut c);
                    c
                }
                None => all,
            };
            return crate::api::put_vars(ds, grp, varid, &req.start, &req.count, stride, MemIn::Str(&vals));
        }
        let ms = mt.size();
        match &req.imap {
            None => {
                // SAFETY: op holds total values of the memory type.
                let src = unsafe { slice(op.cast::<u8>(), nbytes(req.total, ms)?) }?;
                crate::api::put_vars(
                    ds,
                    grp,
                    varid,
                    &req.start,
                    &req.count,
                    stride,
                    MemIn::Num { ty: mt, data: src },
                )
            }
            Some(m) => {
                let extent = map_extent(&req.count, m)?;
                // SAFETY: op spans `extent` values as the map says.
                let src = unsafe { slice(op.cast::<u8>(), nbytes(extent, ms)?) }?;
                let mut tmp = alloc(nbytes(req.total, ms)?, 0u8)?;
                gather_bytes(src, ms, &req.count, m, &mut tmp);
                crate::api::put_vars(
                    ds,
                    grp,
                    varid,
                    &req.start,
                    &req.count,
                    stride,
                    MemIn::Num { ty: mt, data: &tmp },
                )
            }
        }
    })
}

const NULL_SZ: *const usize = std::ptr::null();
const NULL_PD: *const isize = std::ptr::null();

macro_rules! data_family {
    ($tin:ty, $tout:ty, $mem:expr,
     $pv:ident, $gv:ident, $pv1:ident, $gv1:ident, $pva:ident, $gva:ident,
     $pvs:ident, $gvs:ident, $pvm:ident, $gvm:ident) => {
        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $pv(ncid: c_int, varid: c_int, op: $tin) -> c_int {
            ffi_boundary!(forward ncid => $pv(ncid, varid, op); status {
                // SAFETY: the selection pointers and the value buffer carry
                // this module's contract, which put_impl requires.
                unsafe {
                    put_impl(
                        ncid,
                        varid,
                        Shape::Var,
                        CArgs::new(NULL_SZ, NULL_SZ, NULL_PD, NULL_PD),
                        $mem,
                        op.cast(),
                    )
                }
            })
        }
        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $gv(ncid: c_int, varid: c_int, ip: $tout) -> c_int {
            ffi_boundary!(forward ncid => $gv(ncid, varid, ip); status {
                // SAFETY: the selection pointers and the value buffer carry
                // this module's contract, which get_impl requires.
                unsafe {
                    get_impl(
                        ncid,
                        varid,
                        Shape::Var,
                        CArgs::new(NULL_SZ, NULL_SZ, NULL_PD, NULL_PD),
                        $mem,
                        ip.cast(),
                    )
                }
            })
        }
        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $pv1(ncid: c_int, varid: c_int, indexp: *const usize, op: $tin) -> c_int {
            ffi_boundary!(forward ncid => $pv1(ncid, varid, indexp, op); status {
                // SAFETY: the selection pointers and the value buffer carry
                // this module's contract, which put_impl requires.
                unsafe {
                    put_impl(
                        ncid,
                        varid,
                        Shape::Var1,
                        CArgs::new(indexp, NULL_SZ, NULL_PD, NULL_PD),
                        $mem,
                        op.cast(),
                    )
                }
            })
        }
        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $gv1(ncid: c_int, varid: c_int, indexp: *const usize, ip: $tout) -> c_int {
            ffi_boundary!(forward ncid => $gv1(ncid, varid, indexp, ip); status {
                // SAFETY: the selection pointers and the value buffer carry
                // this module's contract, which get_impl requires.
                unsafe {
                    get_impl(
                        ncid,
                        varid,
                        Shape::Var1,
                        CArgs::new(indexp, NULL_SZ, NULL_PD, NULL_PD),
                        $mem,
                        ip.cast(),
                    )
                }
            })
        }
        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $pva(
            ncid: c_int,
            varid: c_int,
            startp: *const usize,
            countp: *const usize,
            op: $tin,
        ) -> c_int {
            ffi_boundary!(forward ncid => $pva(ncid, varid, startp, countp, op); status {
                // SAFETY: the selection pointers and the value buffer carry
                // this module's contract, which put_impl requires.
                unsafe {
                    put_impl(
                        ncid,
                        varid,
                        Shape::Vara,
                        CArgs::new(startp, countp, NULL_PD, NULL_PD),
                        $mem,
                        op.cast(),
                    )
                }
            })
        }
        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $gva(
            ncid: c_int,
            varid: c_int,
            startp: *const usize,
            countp: *const usize,
            ip: $tout,
        ) -> c_int {
            ffi_boundary!(forward ncid => $gva(ncid, varid, startp, countp, ip); status {
                // SAFETY: the selection pointers and the value buffer carry
                // this module's contract, which get_impl requires.
                unsafe {
                    get_impl(
                        ncid,
                        varid,
                        Shape::Vara,
                        CArgs::new(startp, countp, NULL_PD, NULL_PD),
                        $mem,
                        ip.cast(),
                    )
                }
            })
        }
        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $pvs(
            ncid: c_int,
            varid: c_int,
            startp: *const usize,
            countp: *const usize,
            stridep: *const isize,
            op: $tin,
        ) -> c_int {
            ffi_boundary!(forward ncid => $pvs(ncid, varid, startp, countp, stridep, op); status {
                // SAFETY: the selection pointers and the value buffer carry
                // this module's contract, which put_impl requires.
                unsafe {
                    put_impl(
                        ncid,
                        varid,
                        Shape::Vars,
                        CArgs::new(startp, countp, stridep, NULL_PD),
                        $mem,
                        op.cast(),
                    )
                }
            })
        }
        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $gvs(
            ncid: c_int,
            varid: c_int,
            startp: *const usize,
            countp: *const usize,
            stridep: *const isize,
            ip: $tout,
        ) -> c_int {
            ffi_boundary!(forward ncid => $gvs(ncid, varid, startp, countp, stridep, ip); status {
                // SAFETY: the selection pointers and the value buffer carry
                // this module's contract, which get_impl requires.
                unsafe {
                    get_impl(
                        ncid,
                        varid,
                        Shape::Vars,
                        CArgs::new(startp, countp, stridep, NULL_PD),
                        $mem,
                        ip.cast(),
                    )
                }
            })
        }
        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $pvm(
            ncid: c_int,
            varid: c_int,
            startp: *const usize,
            countp: *const usize,
            stridep: *const isize,
            imapp: *const isize,
            op: $tin,
        ) -> c_int {
            ffi_boundary!(forward ncid => $pvm(ncid, varid, startp, countp, stridep, imapp, op); status {
                // SAFETY: the selection pointers and the value buffer carry
                // this module's contract, which put_impl requires.
                unsafe {
                    put_impl(
                        ncid,
                        varid,
                        Shape::Varm,
                        CArgs::new(startp, countp, stridep, imapp),
                        $mem,
                        op.cast(),
                    )
                }
            })
        }
        /// # Safety
        /// Pointer arguments must satisfy this module's contract (see the module documentation):
        /// each is NULL where netcdf-c allows it, or valid for the access the function makes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $gvm(
            ncid: c_int,
            varid: c_int,
            startp: *const usize,
            countp: *const usize,
            stridep: *const isize,
            imapp: *const isize,
            ip: $tout,
        ) -> c_int {
            ffi_boundary!(forward ncid => $gvm(ncid, varid, startp, countp, stridep, imapp, ip); status {
                // SAFETY: the selection pointers and the value buffer carry
                // this module's contract, which get_impl requires.
                unsafe {
                    get_impl(
                        ncid,
                        varid,
                        Shape::Varm,
                        CArgs::new(startp, countp, stridep, imapp),
                        $mem,
                        ip.cast(),
                    )
                }
            })
        }
    };
}

const LONG: NcType = if std::mem::size_of::<c_long>() == 8 {
    NcType::Int64
} else {
    NcType::Int
};

data_family!(
    *const c_void,
    *mut c_void,
    None,
    nc_put_var,
    nc_get_var,
    nc_put_var1,
    nc_get_var1,
    nc_put_vara,
    nc_get_vara,
    nc_put_vars,
    nc_get_vars,
    nc_put_varm,
    nc_get_varm
);
data_family!(
    *const c_char,
    *mut c_char,
    Some(NcType::Char),
    nc_put_var_text,
    nc_get_var_text,
    nc_put_var1_text,
    nc_get_var1_text,
    nc_put_vara_text,
    nc_get_vara_text,
    nc_put_vars_text,
    nc_get_vars_text,
    nc_put_varm_text,
    nc_get_varm_text
);
data_family!(
    *const i8,
    *mut i8,
    Some(NcType::Byte),
    nc_put_var_schar,
    nc_get_var_schar,
    nc_put_var1_schar,
    nc_get_var1_schar,
    nc_put_vara_schar,
    nc_get_vara_schar,
    nc_put_vars_schar,
    nc_get_vars_schar,
    nc_put_varm_schar,
    nc_get_varm_schar
);
data_family!(
    *const u8,
    *mut u8,
    Some(NcType::UByte),
    nc_put_var_uchar,
    nc_get_var_uchar,
    nc_put_var1_uchar,
    nc_get_var1_uchar,
    nc_put_vara_uchar,
    nc_get_vara_uchar,
    nc_put_vars_uchar,
    nc_get_vars_uchar,
    nc_put_varm_uchar,
    nc_get_varm_uchar
);
data_family!(
    *const u8,
    *mut u8,
    Some(NcType::UByte),
    nc_put_var_ubyte,
    nc_get_var_ubyte,
    nc_put_var1_ubyte,
    nc_get_var1_ubyte,
    nc_put_vara_ubyte,
    nc_get_vara_ubyte,
    nc_put_vars_ubyte,
    nc_get_vars_ubyte,
    nc_put_varm_ubyte,
    nc_get_varm_ubyte
);
data_family!(
    *const i16,
    *mut i16,
    Some(NcType::Short),
    nc_put_var_short,
    nc_get_var_short,
    nc_put_var1_short,
    nc_get_var1_short,
    nc_put_vara_short,
    nc_get_vara_short,
    nc_put_vars_short,
    nc_get_vars_short,
    nc_put_varm_short,
    nc_get_varm_short
);
data_family!(
    *const c_int,
    *mut c_int,
    Some(NcType::Int),
    nc_put_var_int,
    nc_get_var_int,
    nc_put_var1_int,
    nc_get_var1_int,
    nc_put_vara_int,
    nc_get_vara_int,
    nc_put_vars_int,
    nc_get_vars_int,
    nc_put_varm_int,
    nc_get_varm_int
);
data_family!(
    *const c_long,
    *mut c_long,
    Some(LONG),
    nc_put_var_long,
    nc_get_var_long,
    nc_put_var1_long,
    nc_get_var1_long,
    nc_put_vara_long,
    nc_get_vara_long,
    nc_put_vars_long,
    nc_get_vars_long,
    nc_put_varm_long,
    nc_get_varm_long
);
data_family!(
    *const f32,
    *mut f32,
    Some(NcType::Float),
    nc_put_var_float,
    nc_get_var_float,
    nc_put_var1_float,
    nc_get_var1_float,
    nc_put_vara_float,
    nc_get_vara_float,
    nc_put_vars_float,
    nc_get_vars_float,
    nc_put_varm_float,
    nc_get_varm_float
);
data_family!(
    *const f64,
    *mut f64,
    Some(NcType::Double),
    nc_put_var_double,
    nc_get_var_double,
    nc_put_var1_double,
    nc_get_var1_double,
    nc_put_vara_double,
    nc_get_vara_double,
    nc_put_vars_double,
    nc_get_vars_double,
    nc_put_varm_double,
    nc_get_varm_double
);
data_family!(
    *const u16,
    *mut u16,
    Some(NcType::UShort),
    nc_put_var_ushort,
    nc_get_var_ushort,
    nc_put_var1_ushort,
    nc_get_var1_ushort,
    nc_put_vara_ushort,
    nc_get_vara_ushort,
    nc_put_vars_ushort,
    nc_get_vars_ushort,
    nc_put_varm_ushort,
    nc_get_varm_ushort
);
data_family!(
    *const u32,
    *mut u32,
    Some(NcType::UInt),
    nc_put_var_uint,
    nc_get_var_uint,
    nc_put_var1_uint,
    nc_get_var1_uint,
    nc_put_vara_uint,
    nc_get_vara_uint,
    nc_put_vars_uint,
    nc_get_vars_uint,
    nc_put_varm_uint,
    nc_get_varm_uint
);
data_family!(
    *const c_longlong,
    *mut c_longlong,
    Some(NcType::Int64),
    nc_put_var_longlong,
    nc_get_var_longlong,
    nc_put_var1_longlong,
    nc_get_var1_longlong,
    nc_put_vara_longlong,
    nc_get_vara_longlong,
    nc_put_vars_longlong,
    nc_get_vars_longlong,
    nc_put_varm_longlong,
    nc_get_varm_longlong
);
data_family!(
    *const c_ulonglong,
    *mut c_ulonglong,
    Some(NcType::UInt64),
    nc_put_var_ulonglong,
    nc_get_var_ulonglong,
    nc_put_var1_ulonglong,
    nc_get_var1_ulonglong,
    nc_put_vara_ulonglong,
    nc_get_vara_ulonglong,
    nc_put_vars_ulonglong,
    nc_get_vars_ulonglong,
    nc_put_varm_ulonglong,
    nc_get_varm_ulonglong
);
data_family!(
    *mut *const c_char,
    *mut *mut c_char,
    Some(NcType::String),
    nc_put_var_string,
    nc_get_var_string,
    nc_put_var1_string,
    nc_get_var1_string,
    nc_put_vara_string,
    nc_get_vara_string,
    nc_put_vars_string,
    nc_get_vars_string,
    nc_put_varm_string,
    nc_get_varm_string
);

// ----- memory reclamation -----

/// Free `n` `malloc`'d strings (NULL entries are skipped) and clear the slots.
///
/// # Safety
/// `v` holds pointers that are NULL or `malloc`'d and owned by the caller,
/// who gives them up.
unsafe fn free_strings(v: &mut [*mut c_char]) {
    for p in v.iter_mut() {
        // SAFETY: *p is NULL or malloc'd (this function's contract); free
        // accepts both, and the slot is cleared so it is freed once.
        unsafe { libc::free(p.cast()) };
        *p = std::ptr::null_mut();
    }
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_free_string(nelems: usize, data: *mut *mut c_char) -> c_int {
    // NULL data with nelems > 0 is NC_EINVAL (netcdf-c crashes).
    ffi_boundary!(status {
        // SAFETY: data is NULL (with nelems 0) or holds nelems pointers, each
        // NULL or from malloc (this export's contract).
        unsafe { free_strings(slice_mut(data, nelems)?) };
        Ok(())
    })
}

/// netcdf-c's `nc_reclaim_data`, in its order of checks: a negative ncid or
/// type is NC_EINVAL, as are NULL memory with values; nothing to free needs
/// no dataset; then the ncid and the type. Only strings own memory in an
/// NCZarr dataset.
///
/// # Safety
/// `memory` is NULL or holds `nelems` values of `xtype`.
unsafe fn reclaim(ncid: c_int, xtype: c_int, memory: *mut c_void, nelems: usize) -> NcResult<()> {
    if ncid < 0 || xtype <= 0 {
        return Err(NcError::Inval);
    }
    if memory.is_null() && nelems > 0 {
        return Err(NcError::Inval);
    }
    if memory.is_null() || nelems == 0 {
        return Ok(());
    }
    handles::get(ncid)?;
    let t = NcType::from_id(xtype).map_err(|_| NcError::BadTypId)?;
    if t == NcType::String {
        // SAFETY: memory is non-NULL and holds nelems string pointers, each
        // NULL or malloc'd (this function's contract).
        unsafe { free_strings(slice_mut(memory.cast::<*mut c_char>(), nelems)?) };
    }
    Ok(())
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_reclaim_data(ncid: c_int, xtype: c_int, memory: *mut c_void, nelems: usize) -> c_int {
    ffi_boundary!(forward ncid => nc_reclaim_data(ncid, xtype, memory, nelems); status {
        // SAFETY: memory is NULL or holds nelems values of xtype (this
        // export's contract).
        unsafe { reclaim(ncid, xtype, memory, nelems) }
    })
}

/// # Safety
/// Pointer arguments must satisfy this module's contract (see the module documentation):
/// each is NULL where netcdf-c allows it, or valid for the access the function makes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nc_reclaim_data_all(ncid: c_int, xtype: c_int, memory: *mut c_void, nelems: usize) -> c_int {
    ffi_boundary!(forward ncid => nc_reclaim_data_all(ncid, xtype, memory, nelems); status {
        // SAFETY: memory is NULL or holds nelems values of xtype (this
        // export's contract).
        unsafe { reclaim(ncid, xtype, memory, nelems) }?;
        // SAFETY: memory is NULL or a block from malloc that the caller gives
        // up (nc_reclaim_data_all's contract); free accepts both.
        unsafe { libc::free(memory) };
        Ok(())
    })
}
