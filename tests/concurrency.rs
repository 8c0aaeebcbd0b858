//! Many threads using the C API at once: four writers on four datasets and
//! four readers on one dataset, with every value checked.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;
use common::check;
use std::ffi::CString;
use std::thread;

use netcdf::ffi::*;

const N: usize = 64;

fn url(dir: &std::path::Path, name: &str) -> CString {
    CString::new(format!("file://{}/{}#mode=nczarr,file", dir.display(), name)).unwrap()
}

fn write_dataset(u: &CString, seed: i32) {
    unsafe {
        let mut ncid = 0;
        check(nc_create(u.as_ptr(), 0, &mut ncid));
        let (mut t, mut x, mut v) = (0, 0, 0);
        check(nc_def_dim(ncid, c"t".as_ptr(), 0, &mut t));
        check(nc_def_dim(ncid, c"x".as_ptr(), N, &mut x));
        let dims = [t, x];
        check(nc_def_var(ncid, c"v".as_ptr(), 4, 2, dims.as_ptr(), &mut v));
        let chunks = [2usize, 16];
        check(nc_def_var_chunking(ncid, v, 0, chunks.as_ptr()));
        check(nc_enddef(ncid));
        for rec in 0..8usize {
            let row: Vec<i32> = (0..N as i32).map(|i| seed * 100_000 + rec as i32 * 1000 + i).collect();
            let start = [rec, 0];
            let count = [1, N];
            check(nc_put_vara_int(ncid, v, start.as_ptr(), count.as_ptr(), row.as_ptr()));
        }
        check(nc_close(ncid));
    }
}

fn verify_dataset(u: &CString, seed: i32) {
    unsafe {
        let mut ncid = 0;
        check(nc_open(u.as_ptr(), 0, &mut ncid));
        let mut len = 0usize;
        check(nc_inq_dimlen(ncid, 0, &mut len));
        assert_eq!(len, 8);
        let mut all = vec![0i32; 8 * N];
        check(nc_get_var_int(ncid, 0, all.as_mut_ptr()));
        for rec in 0..8 {
            for i in 0..N {
                assert_eq!(all[rec * N + i], seed * 100_000 + rec as i32 * 1000 + i as i32);
            }
        }
        check(nc_close(ncid));
    }
}

#[test]
fn writers_and_readers_in_parallel() {
    let dir = tempfile::tempdir().unwrap();
    let shared = url(dir.path(), "shared.zarr");
    write_dataset(&shared, 9);
    let mut shared_ncid = 0;
    unsafe { check(nc_open(shared.as_ptr(), 0, &mut shared_ncid)) };
    thread::scope(|s| {
        for w in 0..4 {
            let u = url(dir.path(), &format!("w{w}.zarr"));
            s.spawn(move || {
                for _ in 0..5 {
                    write_dataset(&u, w);
                    verify_dataset(&u, w);
                }
            });
        }
        // Four readers of one dataset through one shared handle and their own handles.
        let ncid = shared_ncid;
        for r in 0..4 {
            let shared = shared.clone();
            s.spawn(move || {
                for k in 0..20 {
                    if (r + k) % 2 == 0 {
                        verify_dataset(&shared, 9);
                    } else {
                        let mut v = [0i32; 3];
                        let start = [k % 8, 5];
                        let count = [1, 3];
                        unsafe { check(nc_get_vara_int(ncid, 0, start.as_ptr(), count.as_ptr(), v.as_mut_ptr())) };
                        assert_eq!(v[0], 9 * 100_000 + (k % 8) as i32 * 1000 + 5);
                    }
                }
            });
        }
        s.spawn(move || {
            thread::sleep(std::time::Duration::from_millis(200));
        });
    });
    check(nc_close(shared_ncid));
}
