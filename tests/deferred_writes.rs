//! Small whole chunks written a few at a time (nc_put_var of small variables)
//! wait in the chunk caches and are stored together at nc_sync / nc_close:
//! they read back before and after, a sync stores them, and the bounds hold
//! (a cache of size 0 and the dataset-wide limit write at once).

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;
use common::check;
use std::ffi::{CString, c_int};
use std::path::Path;

use netcdf::ffi::*;

const NC_INT: c_int = 4;
const NC_NOWRITE: c_int = 0;

fn name(v: usize) -> CString {
    CString::new(format!("v{v:04}")).unwrap()
}

fn values(v: usize, n: usize) -> Vec<i32> {
    (0..n).map(|i| (v * 100_000 + i) as i32).collect()
}

/// Create `nvars` int variables of `n` values, one chunk each, and write each
/// with one nc_put_var_int. Returns the open ncid.
fn create_small_vars(url: &CString, nvars: usize, n: usize) -> c_int {
    let mut ncid = 0;
    let mut dim = 0;
    unsafe {
        check(nc_create(url.as_ptr(), 0, &mut ncid));
        check(nc_def_dim(ncid, c"n".as_ptr(), n, &mut dim));
        for v in 0..nvars {
            let mut varid = 0;
            check(nc_def_var(ncid, name(v).as_ptr(), NC_INT, 1, &dim, &mut varid));
            check(nc_def_var_chunking(ncid, varid, 0, &n));
        }
        check(nc_enddef(ncid));
        for v in 0..nvars {
            check(nc_put_var_int(ncid, v as c_int, values(v, n).as_ptr()));
        }
    }
    ncid
}

fn check_values(ncid: c_int, nvars: usize, n: usize) {
    let mut got = vec![0i32; n];
    for v in 0..nvars {
        check(unsafe { nc_get_var_int(ncid, v as c_int, got.as_mut_ptr()) });
        assert_eq!(got, values(v, n), "variable {v}");
    }
}

fn stored_chunks(root: &Path, nvars: usize) -> usize {
    (0..nvars)
        .filter(|&v| root.join(format!("v{v:04}")).join("0").is_file())
        .count()
}

#[test]
fn small_chunks_are_stored_at_sync_and_read_back_before() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("small.zarr");
    let url = CString::new(format!("file://{}#mode=nczarr,file", root.display())).unwrap();
    let (nvars, n) = (300, 16);
    let ncid = create_small_vars(&url, nvars, n);
    // Cached, not yet stored: reads see them.
    assert_eq!(stored_chunks(&root, nvars), 0);
    check_values(ncid, nvars, n);
    // nc_sync stores every one of them.
    check(nc_sync(ncid));
    assert_eq!(stored_chunks(&root, nvars), nvars);
    // Rewritten after the sync: stored again at close.
    check(unsafe { nc_put_var_int(ncid, 7, values(9, n).as_ptr()) });
    check(nc_close(ncid));
    let mut ncid = 0;
    check(unsafe { nc_open(url.as_ptr(), NC_NOWRITE, &mut ncid) });
    let mut got = vec![0i32; n];
    check(unsafe { nc_get_var_int(ncid, 7, got.as_mut_ptr()) });
    assert_eq!(got, values(9, n));
    check(nc_close(ncid));
}

#[test]
fn deferral_is_bounded_by_the_cache_and_the_dataset() {
    let dir = tempfile::tempdir().unwrap();
    // A variable whose cache holds nothing stores its chunk at once.
    let root = dir.path().join("nocache.zarr");
    let url = CString::new(format!("file://{}#mode=nczarr,file", root.display())).unwrap();
    let mut ncid = 0;
    let mut dim = 0;
    let mut varid = 0;
    let n = 16usize;
    unsafe {
        check(nc_create(url.as_ptr(), 0, &mut ncid));
        check(nc_def_dim(ncid, c"n".as_ptr(), n, &mut dim));
        check(nc_def_var(ncid, c"v0000".as_ptr(), NC_INT, 1, &dim, &mut varid));
        check(nc_def_var_chunking(ncid, varid, 0, &n));
        check(nc_enddef(ncid));
        check(nc_set_var_chunk_cache(ncid, varid, 0, 0, 0.0));
        check(nc_put_var_int(ncid, varid, values(0, n).as_ptr()));
    }
    assert_eq!(stored_chunks(&root, 1), 1);
    check_values(ncid, 1, n);
    check(nc_close(ncid));

    // 600 chunks of 64 KiB are more than the dataset holds back (32 MiB):
    // the ones past the limit are stored at once, all read back right.
    let root = dir.path().join("many.zarr");
    let url = CString::new(format!("file://{}#mode=nczarr,file", root.display())).unwrap();
    let (nvars, n) = (600, 16 << 10);
    let ncid = create_small_vars(&url, nvars, n);
    let early = stored_chunks(&root, nvars);
    assert!(early > 0 && early < nvars, "{early} of {nvars} stored before the sync");
    check_values(ncid, nvars, n);
    check(nc_close(ncid));
    assert_eq!(stored_chunks(&root, nvars), nvars);
    let mut ncid = 0;
    check(unsafe { nc_open(url.as_ptr(), NC_NOWRITE, &mut ncid) });
    check_values(ncid, nvars, n);
    check(nc_close(ncid));
}
