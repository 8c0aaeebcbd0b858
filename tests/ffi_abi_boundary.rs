//! The client-ABI exports (netCDF-2 API, Fortran helpers, ncaux_*, the rest
//! of netcdf.h) called with NULL pointers, invalid ids and hostile strings:
//! each returns the exact code netcdf-c 4.10.1 returns (or -1 and that code
//! in `ncerr` for the v2 API), checked against the netCDF4 wheel's libnetcdf
//! with the same arguments; where netcdf-c crashes or misbehaves, the code
//! this library gives instead, with a comment.

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::ptr::{null, null_mut};

use netcdf::ffi::*;

const NC_NOERR: c_int = 0;
const NC_EBADID: c_int = -33;
const NC_EINVAL: c_int = -36;
const NC_ENOPAR: c_int = -114;

unsafe extern "C" {
    static mut ncopts: c_int;
    static mut ncerr: c_int;
}

/// The current value of the v2 `ncerr`.
fn last_error() -> c_int {
    // SAFETY: a plain read of a C int global.
    unsafe { (&raw const ncerr).read() }
}

/// Ids that name no dataset: negative, slot 0 (never used), a free slot.
const BAD_IDS: [c_int; 3] = [-1, 0, 0x7fff << 16];

/// v2 calls on ids that name nothing: -1 and NC_EBADID in ncerr, silently
/// with ncopts = 0 (the default would print and exit). netcdf-c 4.10.1's
/// ncvarputg/ncvargetg with a map return the raw NC_EBADID without setting
/// ncerr (dv2i.c skips nc_advise there); here they follow the v2 convention.
#[test]
fn v2_bad_ids() {
    // SAFETY: a plain write of a C int global; this is the only test here
    // that touches it.
    unsafe { (&raw mut ncopts).write(0) };
    let n = null_mut::<c_int>();
    let name = c"x".as_ptr();
    let zero: [i64; 2] = [0, 0];
    let l = zero.as_ptr().cast::<std::ffi::c_long>();
    for id in BAD_IDS {
        // SAFETY: every pointer is NULL, the literal "x" or the zeroed local
        // index vector; no call reaches a dataset.
        unsafe {
            for r in [
                ncredef(id),
                ncendef(id),
                ncsync(id),
                ncabort(id),
                ncclose(id),
                ncsetfill(id, 0),
                ncinquire(id, n, n, n, n),
                ncdimdef(id, name, 1),
                ncdimid(id, name),
                ncdiminq(id, 0, null_mut(), null_mut()),
                ncdimrename(id, 0, name),
                ncvardef(id, name, 4, 0, null()),
                ncvarid(id, name),
                ncvarinq(id, 0, null_mut(), n, n, n, n),
                ncvarrename(id, 0, name),
                ncvarput1(id, 0, l, null()),
                ncvarget1(id, 0, l, null_mut()),
                ncvarput(id, 0, l, l, null()),
                ncvarget(id, 0, l, l, null_mut()),
                ncvarputs(id, 0, l, l, l, null()),
                ncvargets(id, 0, l, l, l, null_mut()),
                ncvarputg(id, 0, l, l, l, l, null()),
                ncvargetg(id, 0, l, l, l, l, null_mut()),
                ncattput(id, -1, name, 4, 0, null()),
                ncattinq(id, -1, name, n, n),
                ncattget(id, -1, name, null_mut()),
                ncattcopy(id, -1, name, id, -1),
                ncattname(id, -1, 0, null_mut()),
                ncattrename(id, -1, name, name),
                ncattdel(id, -1, name),
                ncrecinq(id, n, n, null_mut()),
                ncrecget(id, 0, null_mut()),
                ncrecput(id, 0, null()),
            ] {
                assert_eq!((r, last_error()), (-1, NC_EBADID), "ncid {id:#x}");
            }
            assert_eq!(nc_inq_rec(id, null_mut(), n, null_mut()), NC_EBADID);
            assert_eq!(nc_get_rec(id, 0, null_mut()), NC_EBADID);
            assert_eq!(nc_put_rec(id, 0, null()), NC_EBADID);
            assert_eq!((nccreate(null(), 0), last_error()), (-1, NC_EINVAL));
            assert_eq!((ncopen(null(), 0), last_error()), (-1, NC_EINVAL));
        }
    }
    assert_eq!(nctypelen(0), -1);
    assert_eq!(nctypelen(6), 8);
}

#[test]
fn fortran_helpers_bad_ids() {
    let n = null_mut::<c_int>();
    for id in BAD_IDS {
        // SAFETY: every pointer is NULL; no call reaches a dataset.
        unsafe {
            assert_eq!(nc_set_var_chunk_cache_ints(id, 0, 1, 1, 1), NC_EBADID);
            assert_eq!(nc_get_var_chunk_cache_ints(id, 0, n, n, n), NC_EBADID);
            assert_eq!(nc_def_var_chunking_ints(id, 0, 0, n), NC_EBADID);
            assert_eq!(nc_inq_var_chunking_ints(id, 0, n, n), NC_EBADID);
            assert_eq!(nc_var_par_access(id, 0, 0), NC_ENOPAR);
            assert_eq!(nc_set_base_pe(id, 0), NC_EBADID);
            assert_eq!(nc_inq_base_pe(id, n), NC_EBADID);
            assert_eq!(nc_show_metadata(id), NC_EBADID);
            assert_eq!(nc_close_memio(id, null_mut()), NC_EBADID);
        }
    }
    assert_eq!(nc_set_chunk_cache_ints(-1, 1, 1), NC_EINVAL);
    // SAFETY: NULL pointers; without MPI in the process (a Rust test has
    // none) the answer is NC_ENOPAR before any argument is looked at.
    unsafe {
        assert_eq!(nc_open_par_fortran(null(), 0, 0, 0, null_mut()), NC_ENOPAR);
        assert_eq!(nc_create_par_fortran(null(), 0, 0, 0, null_mut()), NC_ENOPAR);
        assert_eq!(nc_open_par(null(), 0, null_mut(), null_mut(), null_mut()), NC_ENOPAR);
        assert_eq!(nc_create_par(null(), 0, null_mut(), null_mut(), null_mut()), NC_ENOPAR);
    }
    // SAFETY: every pointer is NULL.
    unsafe {
        assert_eq!(nc_get_chunk_cache_ints(n, n, n), NC_NOERR);
        assert_eq!(nc_delete(null()), NC_EINVAL);
        assert_eq!(nc_open_mem(null(), 0, 0, null_mut(), null_mut()), NC_EINVAL);
        assert_eq!(nc_create_mem(null(), 0, 0, null_mut()), NC_EINVAL);
        assert_eq!(nc_open_memio(null(), 0, null_mut(), null_mut()), NC_EINVAL);
        assert_eq!(nc_def_user_format(0x40, null_mut(), null_mut()), NC_EINVAL);
        assert_eq!(nc_inq_user_format(1, null_mut(), null_mut()), NC_EINVAL);
        assert_eq!(nc_rc_set(null(), null()), NC_EINVAL);
        assert!(nc_rc_get(null()).is_null());
        assert_eq!(nc_copy_data(0, 99, null(), 1, null_mut()), NC_EINVAL);
        assert_eq!(nc_dump_data(0, 4, null_mut(), 1, null_mut()), NC_EINVAL);
    }
}

fn parse(txt: &CStr) -> Result<(c_uint, Vec<c_uint>), c_int> {
    let (mut id, mut n, mut p) = (0 as c_uint, 0usize, null_mut::<c_uint>());
    // SAFETY: txt is NUL-terminated; the outputs are locals.
    let st = unsafe { ncaux_h5filterspec_parse(txt.as_ptr(), &mut id, &mut n, &mut p) };
    if st != NC_NOERR {
        return Err(st);
    }
    // SAFETY: on success p is a malloc'd vector of n words.
    let v = unsafe { std::slice::from_raw_parts(p, n) }.to_vec();
    // SAFETY: p came from malloc and is freed once.
    unsafe { libc::free(p.cast()) };
    Ok((id, v))
}

#[test]
fn filterspec_parsing() {
    assert_eq!(parse(c"32015,3"), Ok((32015, vec![3])));
    assert_eq!(parse(c"1"), Ok((1, vec![])));
    assert_eq!(parse(c"4,  5,\t6"), Ok((4, vec![5, 6])));
    // a trailing blank is no type tag: rejected, as in netcdf-c
    assert_eq!(parse(c"4,5 "), Err(NC_EINVAL));
    assert_eq!(parse(c"4,255b,-1s"), Ok((4, vec![255, 0xffff])));
    assert_eq!(parse(c"4,1e3f"), Ok((4, vec![1000f32.to_bits()])));
    let d = 0.1f64.to_bits();
    assert_eq!(parse(c"4,0.1d"), Ok((4, vec![d as u32, (d >> 32) as u32])));
    assert_eq!(parse(c"4,18446744073709551615ul"), Ok((4, vec![u32::MAX, u32::MAX])));
    for bad in [c"", c",", c"x", c"4,", c"4,,5", c"4,zz", c"4,-", c"4,.f"] {
        assert_eq!(parse(bad), Err(NC_EINVAL), "{bad:?}");
    }
    // Hostile: very long and odd input never crashes.
    let long = std::ffi::CString::new(format!("7{}", ",123456789012345678901234567890".repeat(2000))).unwrap();
    assert!(parse(&long).is_ok());
    let weird = std::ffi::CString::new("7,\u{00e9}\u{00e9}l,\\,[|]").unwrap();
    assert_eq!(parse(&weird), Err(NC_EINVAL));
    // SAFETY: NULL pointers and NUL-terminated literals.
    unsafe {
        assert_eq!(
            ncaux_h5filterspec_parse(null(), null_mut(), null_mut(), null_mut()),
            NC_EINVAL
        );
        assert_eq!(
            ncaux_h5filterspec_parse(c"5,6".as_ptr(), null_mut(), null_mut(), null_mut()),
            NC_NOERR
        );
        assert_eq!(
            ncaux_h5filterspec_parse_parameter(null(), null_mut(), null_mut()),
            NC_EINVAL
        );
        ncaux_h5filterspec_free(null_mut());
        ncaux_h5filterspec_fix8(null_mut(), 0);
    }
}

/// A parsed filter: id and parameter words.
type Spec = (c_uint, Vec<c_uint>);

#[test]
fn filterspec_lists() {
    let list = |txt: &CStr| -> Result<(c_int, Vec<Spec>), c_int> {
        let (mut f, mut n, mut v) = (-1, 0usize, null_mut::<*mut NC_H5_Filterspec>());
        // SAFETY: txt is NUL-terminated; the outputs are locals.
        let st = unsafe { ncaux_h5filterspec_parselist(txt.as_ptr(), &mut f, &mut n, &mut v) };
        if st != NC_NOERR {
            return Err(st);
        }
        let mut out = Vec::new();
        for i in 0..n {
            // SAFETY: on success v holds n malloc'd specs, each with nparams words.
            unsafe {
                let s = *v.add(i);
                out.push((
                    (*s).filterid,
                    std::slice::from_raw_parts((*s).params, (*s).nparams).to_vec(),
                ));
                ncaux_h5filterspec_free(s);
            }
        }
        // SAFETY: v is NULL or the malloc'd vector, freed once.
        unsafe { libc::free(v.cast()) };
        Ok((f, out))
    };
    assert_eq!(list(c"1,5|32015,3"), Ok((0, vec![(1, vec![5]), (32015, vec![3])])));
    assert_eq!(list(c"[7]2"), Ok((7, vec![(2, vec![])])));
    assert_eq!(list(c""), Ok((0, vec![])));
    assert_eq!(list(c"1|"), Ok((0, vec![(1, vec![])])));
    for bad in [c"|", c"1||2", c"[x]1", c"[", c"[1", c"1,|2"] {
        assert_eq!(list(bad), Err(NC_EINVAL), "{bad:?}");
    }
    // SAFETY: NULL pointers and NUL-terminated literals.
    unsafe {
        assert_eq!(
            ncaux_h5filterspec_parselist(null(), null_mut(), null_mut(), null_mut()),
            NC_EINVAL
        );
        assert_eq!(
            ncaux_h5filterspec_parselist(c"1,2|3".as_ptr(), null_mut(), null_mut(), null_mut()),
            NC_NOERR
        );
    }
}

#[test]
fn provenance() {
    let parse = |txt: &CStr| -> Result<Vec<String>, c_int> {
        let mut v = null_mut::<*mut c_char>();
        // SAFETY: txt is NUL-terminated; v is a local.
        let st = unsafe { ncaux_parse_provenance(txt.as_ptr(), &mut v) };
        if st != NC_NOERR {
            return Err(st);
        }
        let mut out = Vec::new();
        if v.is_null() {
            return Ok(out);
        }
        let mut i = 0;
        // SAFETY: on success v is a malloc'd vector of malloc'd strings ended
        // by two NULLs; each is freed once.
        unsafe {
            while !(*v.add(i)).is_null() {
                out.push(CStr::from_ptr(*v.add(i)).to_string_lossy().into_owned());
                libc::free((*v.add(i)).cast());
                i += 1;
            }
            assert!((*v.add(i + 1)).is_null());
            libc::free(v.cast());
        }
        Ok(out)
    };
    assert_eq!(
        parse(c"version=2,netcdf=4.10.1,nczarr=2.0.0"),
        Ok(vec!["version", "2", "netcdf", "4.10.1", "nczarr", "2.0.0"]
            .into_iter()
            .map(String::from)
            .collect())
    );
    assert_eq!(parse(c"a=b|c"), Ok(vec!["a".into(), "b".into(), "c".into(), "".into()]));
    assert_eq!(parse(c"k=x\\,y"), Ok(vec!["k".into(), "x,y".into()]));
    assert_eq!(parse(c""), Ok(vec![]));
    assert_eq!(parse(c",a=b"), Err(NC_EINVAL));
    assert_eq!(parse(c"a=b,"), Err(NC_EINVAL));
    assert_eq!(parse(c"trailing\\"), Ok(vec!["trailing\\".into(), "".into()]));
    // SAFETY: a NUL-terminated literal and a NULL output (ignored).
    unsafe { assert_eq!(ncaux_parse_provenance(c"a=b".as_ptr(), null_mut()), NC_NOERR) };
}

#[test]
fn aux_null_arguments() {
    let mut a = 0usize;
    // SAFETY: every pointer is NULL, a NUL-terminated literal or a local;
    // the compound tag is used only while it lives.
    unsafe {
        assert_eq!(ncaux_class_alignment(16, &mut a), NC_EINVAL);
        assert_eq!(a, 0);
        assert_eq!(ncaux_class_alignment(4, null_mut()), NC_NOERR);
        assert_eq!(ncaux_type_alignment(40, -1, &mut a), NC_EBADID);
        assert_eq!(
            ncaux_inq_any_type(-1, 40, null_mut(), null_mut(), null_mut(), null_mut(), null_mut()),
            NC_EBADID
        );
        // netcdf-c passes a NULL name to fopen: the errno it sets, EFAULT.
        assert_eq!(ncaux_readfile(null(), null_mut(), null_mut()), libc::EFAULT);
        assert_eq!(
            ncaux_readfile(c"/nonexistent/file".as_ptr(), null_mut(), null_mut()),
            libc::ENOENT
        );
        assert_eq!(ncaux_writefile(null(), 0, null_mut()), libc::EFAULT);
        assert_eq!(ncaux_abort_compound(null_mut()), NC_NOERR);
        assert_eq!(ncaux_end_compound(null_mut(), null_mut()), NC_EINVAL);
        assert_eq!(ncaux_add_field(null_mut(), null(), 4, 0, null()), NC_NOERR);
        let mut tag = null_mut::<c_void>();
        assert_eq!(ncaux_begin_compound(-1, c"c".as_ptr(), 0, &mut tag), NC_NOERR);
        assert_eq!(ncaux_add_field(tag, c"f".as_ptr(), 4, -1, null()), NC_EINVAL);
        assert_eq!(ncaux_add_field(tag, null(), 4, 0, null()), NC_EINVAL);
        assert_eq!(ncaux_end_compound(tag, null_mut()), NC_EBADID);
        assert_eq!(ncaux_abort_compound(tag), NC_NOERR);
        // netcdf-c crashes on a NULL name; NC_EINVAL here.
        assert_eq!(ncaux_begin_compound(-1, null(), 0, &mut tag), NC_EINVAL);
    }
}
