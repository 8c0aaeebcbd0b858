//! Names and caller buffers. A stored name longer than NC_MAX_NAME (a
//! hostile `.zattrs`, `_ARRAY_DIMENSIONS` or zip entry can hold one of 10 000
//! bytes) never overruns the caller's `NC_MAX_NAME + 1`-byte name buffer:
//! every export that returns a name answers NC_EMAXNAME and writes nothing,
//! no out-parameter included. Names longer than NC_MAX_NAME given to the
//! inquiry functions answer what netcdf-c 4.10.1 answers (NC_EMAXNAME for
//! every lookup, checked with the netCDF4 wheel's libnetcdf). The full group
//! name and the path are the exceptions netcdf.h documents: the caller asks
//! for their length first, and gets all of it.

use std::ffi::{CStr, CString, c_char, c_int, c_long};
use std::ptr::null_mut;

use netcdf::api::handles;
use netcdf::ffi::*;

const NC_NOERR: c_int = 0;
const NC_MAX_NAME: usize = 256;
const NC_EMAXNAME: c_int = -53;
const NC_EBADNAME: c_int = -59;
const NC_ENOTATT: c_int = -43;
const NC_EBADDIM: c_int = -46;
const NC_ENOTVAR: c_int = -49;
const NC_ENOGRP: c_int = -125;
const NC_EBADTYPE: c_int = -45;
const NC_EPERM: c_int = -37;
const NC_NOWRITE: c_int = 0;

unsafe extern "C" {
    static mut ncopts: c_int;
    static mut ncerr: c_int;
}

/// The netCDF-2 API's last error.
fn last_v2_error() -> c_int {
    // SAFETY: a plain read of a C int global.
    unsafe { (&raw const ncerr).read() }
}
const LONG: usize = 10_000;
/// What fills a name buffer before a call: any other byte was written.
const UNTOUCHED: u8 = 0xA5;

/// A name buffer of NC_MAX_NAME + 1 bytes inside a larger guard area.
struct NameBuf([u8; 1024]);

impl NameBuf {
    fn new() -> NameBuf {
        NameBuf([UNTOUCHED; 1024])
    }
    fn ptr(&mut self) -> *mut c_char {
        self.0.as_mut_ptr().cast()
    }
    fn untouched(&self) -> bool {
        self.0.iter().all(|&b| b == UNTOUCHED)
    }
    /// The name written, checked to fit NC_MAX_NAME + 1 bytes with nothing
    /// written past its terminator.
    fn name(&self) -> String {
        let end = self.0.iter().position(|&b| b == 0).expect("terminated");
        assert!(end <= NC_MAX_NAME, "name of {end} bytes");
        assert!(self.0[end + 1..].iter().all(|&b| b == UNTOUCHED), "bytes past the name");
        String::from_utf8(self.0[..end].to_vec()).unwrap()
    }
}

fn check(rc: c_int) {
    assert_eq!(rc, NC_NOERR, "{}", unsafe_strerror(rc));
}

fn unsafe_strerror(rc: c_int) -> String {
    // SAFETY: nc_strerror returns a static NUL-terminated string for any code.
    unsafe { CStr::from_ptr(nc_strerror(rc)) }
        .to_string_lossy()
        .into_owned()
}

/// A dataset with a dimension `d`, a variable `v(d)` with attribute `va`, a
/// global attribute `ga` and a group `g` with a child `h`, reopened
/// read-only; returns (ncid, varid, group ncid, child ncid).
fn dataset(dir: &std::path::Path) -> (c_int, c_int, c_int, c_int) {
    let u = CString::new(format!("file://{}/names.zarr#mode=nczarr,file", dir.display())).unwrap();
    let (mut ncid, mut d, mut v, mut g, mut h) = (-1, -1, -1, -1, -1);
    // SAFETY: NUL-terminated literals and locals for every output.
    unsafe {
        check(nc_create(u.as_ptr(), 0, &mut ncid));
        check(nc_def_dim(ncid, c"d".as_ptr(), 3, &mut d));
        check(nc_def_var(ncid, c"v".as_ptr(), 4, 1, &d, &mut v));
        check(nc_put_att_int(ncid, v, c"va".as_ptr(), 4, 1, &7));
        check(nc_put_att_int(ncid, -1, c"ga".as_ptr(), 4, 1, &8));
        check(nc_def_grp(ncid, c"g".as_ptr(), &mut g));
        check(nc_def_grp(g, c"h".as_ptr(), &mut h));
        check(nc_close(ncid));
        check(nc_open(u.as_ptr(), NC_NOWRITE, &mut ncid));
        check(nc_inq_varid(ncid, c"v".as_ptr(), &mut v));
        check(nc_inq_grp_ncid(ncid, c"g".as_ptr(), &mut g));
        check(nc_inq_grp_ncid(g, c"h".as_ptr(), &mut h));
    }
    (ncid, v, g, h)
}

/// Give every object of the open (read-only) dataset a name of `LONG`
/// bytes in memory, as a hostile dataset's metadata could.
fn lengthen_names(ncid: c_int) {
    handles::with(ncid, |ds, _| {
        let long = |c: char| c.to_string().repeat(LONG);
        ds.dims[0].name = long('d');
        ds.groups[0].vars[0].name = long('v');
        let old = ds.groups[0].vars[0].atts[0].name.clone();
        assert!(ds.groups[0].vars[0].atts.rename(&old, &long('a')));
        let old = ds.groups[0].atts[0].name.clone();
        assert!(ds.groups[0].atts.rename(&old, &long('b')));
        for gi in 1..ds.groups.len() {
            let c = if ds.groups[gi].name == "g" { 'g' } else { 'h' };
            ds.groups[gi].name = long(c);
        }
        Ok(())
    })
    .unwrap();
}

#[test]
fn stored_names_longer_than_nc_max_name_are_never_copied() {
    let dir = tempfile::tempdir().unwrap();
    let (ncid, v, g, h) = dataset(dir.path());
    lengthen_names(ncid);
    let mut b = NameBuf::new();
    let (mut xtype, mut ndims, mut natts, mut dimid) = (-7, -7, -7, -7);
    let mut len = 7usize;
    // SAFETY: every name buffer is a NameBuf (1024 bytes); the other
    // outputs are locals.
    unsafe {
        assert_eq!(nc_inq_dim(ncid, 0, b.ptr(), &mut len), NC_EMAXNAME);
        assert!(b.untouched() && len == 7, "nc_inq_dim wrote on failure");
        assert_eq!(nc_inq_dimname(ncid, 0, b.ptr()), NC_EMAXNAME);
        assert!(b.untouched());
        assert_eq!(
            nc_inq_var(ncid, v, b.ptr(), &mut xtype, &mut ndims, &mut dimid, &mut natts),
            NC_EMAXNAME
        );
        assert!(b.untouched() && (xtype, ndims, dimid, natts) == (-7, -7, -7, -7));
        assert_eq!(nc_inq_varname(ncid, v, b.ptr()), NC_EMAXNAME);
        assert!(b.untouched());
        assert_eq!(nc_inq_attname(ncid, v, 0, b.ptr()), NC_EMAXNAME);
        assert!(b.untouched());
        assert_eq!(nc_inq_attname(ncid, -1, 0, b.ptr()), NC_EMAXNAME);
        assert!(b.untouched());
        assert_eq!(nc_inq_grpname(g, b.ptr()), NC_EMAXNAME);
        assert!(b.untouched());
        assert_eq!(nc_inq_grpname(h, b.ptr()), NC_EMAXNAME);
        assert!(b.untouched());
        // The netCDF-2 API over them: -1, NC_EMAXNAME in ncerr, nothing
        // written (ncopts 0: report silently, do not exit).
        (&raw mut ncopts).write(0);
        let mut l: c_long = 7;
        assert_eq!(ncdiminq(ncid, 0, b.ptr(), &mut l), -1);
        assert_eq!((last_v2_error(), l), (NC_EMAXNAME, 7));
        assert_eq!(
            ncvarinq(ncid, v, b.ptr(), &mut xtype, &mut ndims, &mut dimid, &mut natts),
            -1
        );
        assert_eq!(last_v2_error(), NC_EMAXNAME);
        assert_eq!(ncattname(ncid, v, 0, b.ptr()), -1);
        assert_eq!(last_v2_error(), NC_EMAXNAME);
        assert!(b.untouched() && (xtype, ndims, dimid, natts) == (-7, -7, -7, -7));

        // Without a name buffer the other answers still come.
        assert_eq!(nc_inq_dim(ncid, 0, null_mut(), &mut len), NC_NOERR);
        assert_eq!(len, 3);
        assert_eq!(nc_inq_dimlen(ncid, 0, &mut len), NC_NOERR);
        assert_eq!(
            nc_inq_var(ncid, v, null_mut(), &mut xtype, &mut ndims, &mut dimid, &mut natts),
            NC_NOERR
        );
        assert_eq!((xtype, ndims, dimid, natts), (4, 1, 0, 1));

        // A variable copy reads the name into NC_MAX_NAME + 1 bytes: refused.
        assert_eq!(nc_copy_var(ncid, v, ncid), NC_EMAXNAME);

        // The full group name may be longer than NC_MAX_NAME: its length
        // first, then all of it into a buffer of that size.
        let mut full_len = 0usize;
        assert_eq!(nc_inq_grpname_len(h, &mut full_len), NC_NOERR);
        assert_eq!(full_len, 2 * LONG + 2);
        let mut full = vec![UNTOUCHED; full_len + 2];
        let mut len2 = 0usize;
        assert_eq!(nc_inq_grpname_full(h, &mut len2, full.as_mut_ptr().cast()), NC_NOERR);
        assert_eq!(len2, full_len);
        assert_eq!(full[full_len], 0);
        assert_eq!(full[full_len + 1], UNTOUCHED, "one byte past length + 1 was written");
        let expect = format!("/{}/{}", "g".repeat(LONG), "h".repeat(LONG));
        assert_eq!(&full[..full_len], expect.as_bytes());
        check(nc_close(ncid));
    }
}

#[test]
fn names_that_fit_are_copied_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (ncid, v, g, _) = dataset(dir.path());
    let exact = "n".repeat(NC_MAX_NAME);
    handles::with(ncid, |ds, _| {
        ds.dims[0].name = exact.clone();
        ds.groups[0].vars[0].name = exact.clone();
        let old = ds.groups[0].atts[0].name.clone();
        assert!(ds.groups[0].atts.rename(&old, &exact));
        Ok(())
    })
    .unwrap();
    let mut b = NameBuf::new();
    // SAFETY: every name buffer is a NameBuf (1024 bytes).
    unsafe {
        assert_eq!(nc_inq_dimname(ncid, 0, b.ptr()), NC_NOERR);
        assert_eq!(b.name(), exact);
        let mut b = NameBuf::new();
        assert_eq!(nc_inq_varname(ncid, v, b.ptr()), NC_NOERR);
        assert_eq!(b.name(), exact);
        let mut b = NameBuf::new();
        assert_eq!(nc_inq_attname(ncid, -1, 0, b.ptr()), NC_NOERR);
        assert_eq!(b.name(), exact);
        let mut b = NameBuf::new();
        assert_eq!(nc_inq_grpname(g, b.ptr()), NC_NOERR);
        assert_eq!(b.name(), "g");
        // And a lookup of a name of exactly NC_MAX_NAME bytes finds it.
        let c = CString::new(exact.clone()).unwrap();
        let mut id = -1;
        assert_eq!(nc_inq_varid(ncid, c.as_ptr(), &mut id), NC_NOERR);
        assert_eq!(id, v);
        assert_eq!(nc_inq_dimid(ncid, c.as_ptr(), &mut id), NC_NOERR);
        assert_eq!(id, 0);
        assert_eq!(nc_inq_attid(ncid, -1, c.as_ptr(), &mut id), NC_NOERR);
        assert_eq!(id, 0);
        check(nc_close(ncid));
    }
}

/// Lookups with a name of 257, 300 and 10 000 bytes: NC_EMAXNAME from every
/// inquiry (netcdf-c 4.10.1), even when the dataset holds an object of that
/// very name; a name of 256 bytes that names nothing: the not-found code.
#[test]
fn lookups_with_names_longer_than_nc_max_name() {
    let dir = tempfile::tempdir().unwrap();
    let (ncid, v, _, _) = dataset(dir.path());
    lengthen_names(ncid);
    let mut out = -7;
    let mut len = 7usize;
    for n in [NC_MAX_NAME + 1, 300, LONG] {
        for c in ['x', 'v', 'd', 'a', 'b', 'g'] {
            let name = CString::new(c.to_string().repeat(n)).unwrap();
            let p = name.as_ptr();
            let slash = CString::new(format!("/{}", c.to_string().repeat(n))).unwrap();
            let what = format!("a name of {n} '{c}'");
            // SAFETY: NUL-terminated names and locals for every output.
            unsafe {
                assert_eq!(nc_inq_dimid(ncid, p, &mut out), NC_EMAXNAME, "{what}");
                assert_eq!(nc_inq_dimid(ncid, slash.as_ptr(), &mut out), NC_EMAXNAME, "{what}");
                assert_eq!(nc_inq_varid(ncid, p, &mut out), NC_EMAXNAME, "{what}");
                assert_eq!(nc_inq_attid(ncid, -1, p, &mut out), NC_EMAXNAME, "{what}");
                assert_eq!(nc_inq_attid(ncid, v, p, &mut out), NC_EMAXNAME, "{what}");
                assert_eq!(nc_inq_att(ncid, -1, p, &mut out, &mut len), NC_EMAXNAME, "{what}");
                assert_eq!(nc_inq_atttype(ncid, v, p, &mut out), NC_EMAXNAME, "{what}");
                assert_eq!(nc_inq_attlen(ncid, -1, p, &mut len), NC_EMAXNAME, "{what}");
                assert_eq!(nc_get_att(ncid, -1, p, null_mut()), NC_EMAXNAME, "{what}");
                assert_eq!(nc_get_att_int(ncid, v, p, &mut out), NC_EMAXNAME, "{what}");
                assert_eq!(nc_inq_grp_ncid(ncid, p, &mut out), NC_EMAXNAME, "{what}");
                assert_eq!(nc_inq_ncid(ncid, p, &mut out), NC_EMAXNAME, "{what}");
                assert_eq!(nc_inq_grp_full_ncid(ncid, p, &mut out), NC_EMAXNAME, "{what}");
                assert_eq!(
                    nc_inq_grp_full_ncid(ncid, slash.as_ptr(), &mut out),
                    NC_EMAXNAME,
                    "{what}"
                );
                assert_eq!(nc_inq_typeid(ncid, p, &mut out), NC_EMAXNAME, "{what}");
                // The dataset is read-only: netcdf-c answers NC_EPERM before
                // it looks at the name, except for a new attribute's.
                assert_eq!(nc_rename_att(ncid, -1, p, c"q".as_ptr()), NC_EPERM, "{what}");
                assert_eq!(nc_del_att(ncid, -1, p), NC_EPERM, "{what}");
                assert_eq!(nc_put_att_int(ncid, -1, p, 4, 1, &1), NC_EBADNAME, "{what}");
            }
            assert_eq!((out, len), (-7, 7), "an output was written for {what}");
        }
    }
    // In define mode: netcdf-c 4.10.1 answers an over-long renamed attribute
    // with NC_EMAXNAME, a new one with NC_EBADNAME, a deleted one NC_ENOTATT.
    let wdir = tempfile::tempdir().unwrap();
    let wu = CString::new(format!("file://{}/w.zarr#mode=nczarr,file", wdir.path().display())).unwrap();
    let long = CString::new("x".repeat(300)).unwrap();
    let mut w = -1;
    // SAFETY: NUL-terminated names and a local for the id.
    unsafe {
        check(nc_create(wu.as_ptr(), 0, &mut w));
        check(nc_put_att_int(w, -1, c"a".as_ptr(), 4, 1, &1));
        assert_eq!(nc_rename_att(w, -1, long.as_ptr(), c"q".as_ptr()), NC_EMAXNAME);
        assert_eq!(nc_put_att_int(w, -1, long.as_ptr(), 4, 1, &1), NC_EBADNAME);
        assert_eq!(nc_del_att(w, -1, long.as_ptr()), NC_ENOTATT);
        check(nc_close(w));
    }
    // A full group path of group names that each fit is looked up normally.
    let two = CString::new(format!("/{}/{}", "s".repeat(200), "t".repeat(200))).unwrap();
    let fits = CString::new("y".repeat(NC_MAX_NAME)).unwrap();
    // SAFETY: NUL-terminated names and locals for every output.
    unsafe {
        assert_eq!(nc_inq_grp_full_ncid(ncid, two.as_ptr(), &mut out), NC_ENOGRP);
        assert_eq!(nc_inq_dimid(ncid, fits.as_ptr(), &mut out), NC_EBADDIM);
        assert_eq!(nc_inq_varid(ncid, fits.as_ptr(), &mut out), NC_ENOTVAR);
        assert_eq!(nc_inq_attid(ncid, -1, fits.as_ptr(), &mut out), NC_ENOTATT);
        assert_eq!(nc_inq_grp_ncid(ncid, fits.as_ptr(), &mut out), NC_ENOGRP);
        assert_eq!(nc_inq_typeid(ncid, fits.as_ptr(), &mut out), NC_EBADTYPE);
        check(nc_close(ncid));
    }
}

/// The fixed-size buffers the other exports fill: never more than their
/// documented size.
#[test]
fn other_caller_buffers_keep_their_size() {
    let dir = tempfile::tempdir().unwrap();
    let (ncid, _, _, _) = dataset(dir.path());
    // SAFETY: every buffer is a local array larger than the documented size;
    // the bytes past it are checked.
    unsafe {
        // nc_inq_type: an atomic type name fits NC_MAX_NAME + 1.
        for t in 1..=12 {
            let mut b = NameBuf::new();
            let mut size = 0usize;
            assert_eq!(nc_inq_type(ncid, t, b.ptr(), &mut size), NC_NOERR);
            assert!(!b.name().is_empty());
            let mut b2 = NameBuf::new();
            let z = null_mut::<c_int>();
            assert_eq!(
                ncaux_inq_any_type(ncid, t, b2.ptr(), null_mut(), z, null_mut(), z),
                NC_NOERR
            );
            assert_eq!(b2.name(), b.name());
        }
        // nc_inq_path: the length first, then that many bytes and a NUL.
        let mut plen = 0usize;
        assert_eq!(nc_inq_path(ncid, &mut plen, null_mut()), NC_NOERR);
        let mut path = vec![UNTOUCHED; plen + 2];
        assert_eq!(nc_inq_path(ncid, &mut plen, path.as_mut_ptr().cast()), NC_NOERR);
        assert_eq!((path[plen], path[plen + 1]), (0, UNTOUCHED));
        // nc_inq_user_format: exactly NC_MAX_MAGIC_NUMBER_LEN (8) bytes.
        let mut magic = [UNTOUCHED; 16];
        assert_eq!(
            nc_inq_user_format(0x40, null_mut(), magic.as_mut_ptr().cast()),
            NC_NOERR
        );
        assert!(magic[8..].iter().all(|&b| b == UNTOUCHED));
        // ncaux_plugin_path_stringget: exactly pathlen bytes.
        let mut pb = [UNTOUCHED; 16];
        assert_eq!(ncaux_plugin_path_stringget(4, pb.as_mut_ptr().cast()), NC_NOERR);
        assert!(pb[4..].iter().all(|&b| b == UNTOUCHED));
        // nc_strerror and nc_inq_libvers return pointers to our strings.
        assert!(!CStr::from_ptr(nc_inq_libvers()).to_bytes().is_empty());
        for code in [-200, -143, -53, 0, 1, 1000] {
            assert!(!CStr::from_ptr(nc_strerror(code)).to_bytes().is_empty());
        }
        check(nc_close(ncid));
    }
    // cdRel2Iso: at most 43 bytes (CD_MAX_CHARTIME is 48).
    let mut t = [UNTOUCHED as c_char; 64];
    // SAFETY: a NUL-terminated unit string and a 64-byte buffer.
    unsafe {
        cdRel2Iso(
            2,
            c"seconds since 1970-01-01 00:00:00".as_ptr(),
            b' ' as c_int,
            1.0e18,
            t.as_mut_ptr(),
        )
    };
    assert!(t[48..].iter().all(|&b| b == UNTOUCHED as c_char));
}
