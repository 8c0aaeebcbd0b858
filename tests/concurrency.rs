//! Many threads using the C API at once, every one doing work whose result
//! is checked: four writers on four datasets, four readers of one dataset
//! (through one shared handle and their own handles), and a writer of
//! strided pieces of a compressed variable through a cache too small to hold
//! it (chunks merged, evicted, written and read back while the others run).

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;
use common::{Rng, check};
use std::ffi::CString;
use std::thread;

use netcdf::ffi::*;

const N: usize = 64;
const NC_FILL_INT: i32 = -2147483647;

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

/// Shape of the strided writer's variable, and its chunks.
const ROWS: usize = 12;
const COLS: usize = 20;
const CHUNK: [usize; 2] = [4, 8];

/// Read the whole strided variable and compare it with the model.
fn check_whole(ncid: i32, model: &[i32], when: &str) {
    let mut all = vec![0i32; ROWS * COLS];
    unsafe { check(nc_get_var_int(ncid, 0, all.as_mut_ptr())) };
    assert_eq!(all, model, "{when}");
}

/// Write strided pieces of a deflated variable through a cache of three
/// chunks (of its fifteen), checking the whole variable against a model
/// along the way, after closing, and with strided reads.
fn strided_compressed(u: &CString, seed: u64) {
    let mut rng = Rng(seed);
    let mut model = vec![NC_FILL_INT; ROWS * COLS];
    unsafe {
        let mut ncid = 0;
        check(nc_create(u.as_ptr(), 0, &mut ncid));
        let (mut y, mut x, mut v) = (0, 0, 0);
        check(nc_def_dim(ncid, c"y".as_ptr(), ROWS, &mut y));
        check(nc_def_dim(ncid, c"x".as_ptr(), COLS, &mut x));
        let dims = [y, x];
        check(nc_def_var(ncid, c"z".as_ptr(), 4, 2, dims.as_ptr(), &mut v));
        check(nc_def_var_chunking(ncid, v, 0, CHUNK.as_ptr()));
        check(nc_def_var_deflate(ncid, v, 1, 1, 1));
        check(nc_enddef(ncid));
        check(nc_set_var_chunk_cache(ncid, v, 3 * CHUNK[0] * CHUNK[1] * 4, 3, 0.5));
        for k in 0..40 {
            let start = [rng.below(ROWS), rng.below(COLS)];
            let stride = [1 + rng.below(4), 1 + rng.below(6)];
            let count = [
                1 + rng.below((ROWS - 1 - start[0]) / stride[0] + 1),
                1 + rng.below((COLS - 1 - start[1]) / stride[1] + 1),
            ];
            let vals: Vec<i32> = (0..count[0] * count[1]).map(|i| (k * 10_000 + i) as i32).collect();
            let st = [stride[0] as isize, stride[1] as isize];
            check(nc_put_vars_int(
                ncid,
                v,
                start.as_ptr(),
                count.as_ptr(),
                st.as_ptr(),
                vals.as_ptr(),
            ));
            for (i, val) in vals.iter().enumerate() {
                let (r, c) = (
                    start[0] + (i / count[1]) * stride[0],
                    start[1] + (i % count[1]) * stride[1],
                );
                model[r * COLS + c] = *val;
            }
            if k % 10 == 9 {
                check_whole(ncid, &model, &format!("after write {k}"));
            }
        }
        check(nc_close(ncid));
        check(nc_open(u.as_ptr(), 0, &mut ncid));
        check_whole(ncid, &model, "after reopening");
        for _ in 0..10 {
            let start = [rng.below(ROWS), rng.below(COLS)];
            let stride = [1 + rng.below(3), 1 + rng.below(3)];
            let count = [
                (ROWS - 1 - start[0]) / stride[0] + 1,
                (COLS - 1 - start[1]) / stride[1] + 1,
            ];
            let mut got = vec![0i32; count[0] * count[1]];
            let st = [stride[0] as isize, stride[1] as isize];
            check(nc_get_vars_int(
                ncid,
                0,
                start.as_ptr(),
                count.as_ptr(),
                st.as_ptr(),
                got.as_mut_ptr(),
            ));
            for (i, g) in got.iter().enumerate() {
                let (r, c) = (
                    start[0] + (i / count[1]) * stride[0],
                    start[1] + (i % count[1]) * stride[1],
                );
                assert_eq!(*g, model[r * COLS + c], "strided read at ({r}, {c})");
            }
        }
        check(nc_close(ncid));
    }
    assert!(model.iter().any(|&v| v != NC_FILL_INT), "the writer wrote something");
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
                        let first = 9 * 100_000 + (k % 8) as i32 * 1000 + 5;
                        assert_eq!(v, [first, first + 1, first + 2]);
                    }
                }
            });
        }
        let u = url(dir.path(), "strided.zarr");
        s.spawn(move || {
            for round in 0..3 {
                strided_compressed(&u, 0x9e37_79b9_7f4a_7c15 ^ round);
            }
        });
    });
    check(nc_close(shared_ncid));
}
