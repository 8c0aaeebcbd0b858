//! Datasets written through S3 are the datasets written to a directory:
//! the same program writes one of each (NCZarr, pure Zarr, consolidated) and
//! every object must be byte-identical, then read back equal through S3.
//! (What a directory holds is checked against netcdf-c, netCDF4-python and
//! zarr-python by the interop tests.)
//!
//! Needs the server of scripts/s3-server.sh (its NCZ_S3_* variables): without
//! them these tests fail, unless NCZ_S3=0 skips them.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;

use std::collections::BTreeMap;
use std::ffi::CString;

use common::check;
use netcdf::ffi::nc_def_var_deflate;
use netcdf::ffi::*;
use netcdf::storage::file::FileStore;
use netcdf::storage::s3::{Environment, S3Options, S3Store, config};
use netcdf::storage::{Key, Store};

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// The same dataset, whatever the URL: groups, an unlimited dimension,
/// partial chunks, attributes, fill values, data written in two sessions.
fn write(url: &str) {
    let u = c(url);
    let (mut ncid, mut grp, mut x, mut t, mut v, mut d, mut w) = (0, 0, 0, 0, 0, 0, 0);
    // SAFETY (all calls): valid NUL-terminated strings, buffers of the sizes passed.
    unsafe {
        check(nc_create(u.as_ptr(), 0, &mut ncid));
        check(nc_put_att_text(ncid, -1, c("title").as_ptr(), 5, c("hello").as_ptr()));
        check(nc_def_dim(ncid, c("x").as_ptr(), 10, &mut x));
        check(nc_def_dim(ncid, c("t").as_ptr(), 0, &mut t));
        let dims = [t, x];
        check(nc_def_var(ncid, c("v").as_ptr(), 4, 2, dims.as_ptr(), &mut v));
        let chunks = [2usize, 4];
        check(nc_def_var_chunking(ncid, v, 0, chunks.as_ptr()));
        check(nc_put_att_text(ncid, v, c("units").as_ptr(), 1, c("K").as_ptr()));
        check(nc_def_var(ncid, c("d").as_ptr(), 6, 1, &x, &mut d));
        check(nc_def_grp(ncid, c("sub").as_ptr(), &mut grp));
        check(nc_def_var(grp, c("w").as_ptr(), 1, 1, &x, &mut w));
        check(nc_enddef(ncid));
        let rows: Vec<i32> = (0..30).collect();
        let (start, count) = ([0usize, 0], [3usize, 10]);
        check(nc_put_vara_int(ncid, v, start.as_ptr(), count.as_ptr(), rows.as_ptr()));
        let dd: Vec<f64> = (0..10).map(|i| i as f64 / 3.0).collect();
        check(nc_put_var_double(ncid, d, dd.as_ptr()));
        check(nc_close(ncid));

        check(nc_open(u.as_ptr(), 1, &mut ncid));
        let more: Vec<i32> = (100..120).collect();
        let (start, count) = ([3usize, 0], [2usize, 10]);
        check(nc_put_vara_int(ncid, v, start.as_ptr(), count.as_ptr(), more.as_ptr()));
        check(nc_inq_ncid(ncid, c("sub").as_ptr(), &mut grp));
        let bytes: Vec<i8> = (0..10).map(|i| i as i8 - 5).collect();
        check(nc_put_var_schar(grp, w, bytes.as_ptr()));
        check(nc_close(ncid));
    }
}

/// Every object of a store, by key.
fn objects(s: &dyn Store) -> BTreeMap<String, Vec<u8>> {
    fn walk(s: &dyn Store, k: &Key, out: &mut BTreeMap<String, Vec<u8>>, depth: usize) {
        assert!(depth < 32);
        if let Some(b) = s.get(k, 1 << 30).unwrap() {
            out.insert(k.as_str().to_string(), b);
        }
        for child in s.list(k).unwrap() {
            walk(s, &k.join(&child).unwrap(), out, depth + 1);
        }
    }
    let mut out = BTreeMap::new();
    walk(s, &Key::root(), &mut out, 0);
    out
}

fn unique(what: &str) -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("dataset-{what}-{}-{t}", std::process::id())
}

fn same_as_directory(mode: &str) {
    let Some(srv) = common::s3_server_in_env(false) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ds.zarr");
    write(&format!("file://{}#mode={mode},file", path.display()));
    let prefix = format!("{}/ds.zarr", unique(&mode.replace(',', "-")));
    write(&format!("{}/{}/{prefix}#mode={mode},s3", srv.endpoint, srv.bucket));

    let mut env = Environment::default();
    env.vars.insert("AWS_ACCESS_KEY_ID".into(), srv.key_id.clone());
    env.vars.insert("AWS_SECRET_ACCESS_KEY".into(), srv.secret.clone());
    let cfg = config::resolve(&format!("{}/{}/{prefix}", srv.endpoint, srv.bucket), &[], &env).unwrap();
    let s3 = S3Store::open(&cfg, true, S3Options::default()).unwrap();
    let file = FileStore::open(&path, false).unwrap();
    let (a, b) = (objects(&file), objects(&s3));
    assert!(a.len() > 5, "{:?}", a.keys());
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{mode}: same objects"
    );
    for (k, v) in &a {
        assert_eq!(Some(v), b.get(k), "{mode}: object {k} differs");
    }

    // And it reads back through S3 as from the directory.
    let read = |url: &str| {
        let url = c(url);
        let (mut ncid, mut v) = (0, 0);
        let mut back = vec![0i32; 50];
        // SAFETY: valid strings; the variable has at most 5 x 10 values.
        unsafe {
            check(nc_open(url.as_ptr(), 0, &mut ncid));
            check(nc_inq_varid(ncid, c("v").as_ptr(), &mut v));
            check(nc_get_var_int(ncid, v, back.as_mut_ptr()));
            check(nc_close(ncid));
        }
        back
    };
    let from_s3 = read(&format!("{}/{}/{prefix}#mode={mode},s3", srv.endpoint, srv.bucket));
    assert_eq!(from_s3, read(&format!("file://{}#mode={mode},file", path.display())));
    if !mode.split(',').any(|m| m == "zarr") {
        // (Pure Zarr has no unlimited dimension: v keeps its first 3 rows.)
        let want: Vec<i32> = (0..30).chain(100..120).collect();
        assert_eq!(from_s3, want);
    }
    s3.destroy().unwrap();
    assert!(s3.list(&Key::root()).unwrap().is_empty());
}

#[test]
fn nczarr_through_s3_equals_directory() {
    same_as_directory("nczarr");
}

#[test]
fn pure_zarr_through_s3_equals_directory() {
    same_as_directory("zarr");
}

#[test]
fn consolidated_through_s3_equals_directory() {
    same_as_directory("nczarr,consolidated");
}

/// How `create_int_var` stores its variable.
struct Layout {
    chunks: [usize; 3],
    deflate: bool,
    /// Zarr v3 shards of this shape (None: Zarr v2, no shards).
    shards: Option<[usize; 3]>,
}

/// Create a new S3 dataset holding `values` as int variable `v` of shape
/// `shape`, stored as `layout` says; returns its URL.
fn create_int_var(srv: &common::S3Server, what: &str, shape: [usize; 3], layout: Layout, values: &[i32]) -> CString {
    let Layout {
        chunks,
        deflate,
        shards,
    } = layout;
    let u = c(&format!(
        "{}/{}/{}/ds.zarr#mode=nczarr,{}s3",
        srv.endpoint,
        srv.bucket,
        unique(what),
        if shards.is_some() { "v3," } else { "" }
    ));
    let (mut ncid, mut v) = (0, 0);
    // SAFETY (all calls): valid NUL-terminated strings, buffers of the sizes passed.
    unsafe {
        check(nc_create(u.as_ptr(), 0, &mut ncid));
        let mut dims = [0; 3];
        for (i, (n, len)) in ["z", "y", "x"].into_iter().zip(shape).enumerate() {
            check(nc_def_dim(ncid, c(n).as_ptr(), len, &mut dims[i]));
        }
        check(nc_def_var(ncid, c("v").as_ptr(), 4, 3, dims.as_ptr(), &mut v));
        check(nc_def_var_chunking(ncid, v, 0, chunks.as_ptr()));
        if deflate {
            check(nc_def_var_deflate(ncid, v, 1, 1, 1));
        }
        if let Some(shards) = shards {
            check(nc_def_var_zarr_shards(ncid, v, shards.as_ptr()));
        }
        check(nc_put_var_int(ncid, v, values.as_ptr()));
        check(nc_close(ncid));
    }
    u
}

/// nc_get_vars_int of variable `v` into a new vector.
fn get_strided(ncid: i32, v: i32, start: [usize; 3], count: [usize; 3], stride: [isize; 3]) -> Vec<i32> {
    let mut got = vec![0i32; count.iter().product()];
    // SAFETY: arrays of the variable's rank, a buffer of the count's size.
    check(unsafe {
        nc_get_vars_int(
            ncid,
            v,
            start.as_ptr(),
            count.as_ptr(),
            stride.as_ptr(),
            got.as_mut_ptr(),
        )
    });
    got
}

/// Reads that fetch several chunks over S3 decode them in the order they
/// arrive: whatever that order, and with some chunks already in the cache,
/// every value lands in its place (a subset, a strided read, a whole read).
#[test]
fn chunks_decoded_as_they_arrive_land_in_place() {
    let Some(srv) = common::s3_server_in_env(false) else {
        return;
    };
    let layout = Layout {
        chunks: [2, 4, 5],
        deflate: true,
        shards: None,
    };
    reads_land_in_place(&srv, "arrival", layout);
}

/// The same with the chunks as the inner chunks of shards (partial shards at
/// the edges): their byte ranges are fetched together, neighbours in one
/// request, and decoded as they arrive; uncompressed, small reads take only
/// the bytes they need.
#[test]
fn inner_chunks_of_shards_land_in_place() {
    let Some(srv) = common::s3_server_in_env(false) else {
        return;
    };
    for deflate in [false, true] {
        let layout = Layout {
            chunks: [2, 4, 5],
            deflate,
            shards: Some([4, 8, 10]),
        };
        reads_land_in_place(&srv, "sharded", layout);
    }
}

/// Write a 6x10x12 int variable stored as `layout`, then read it: a subset
/// across chunks, strided, whole (some chunks cached), streamed, one value.
fn reads_land_in_place(srv: &common::S3Server, what: &str, layout: Layout) {
    let (nz, ny, nx) = (6usize, 10usize, 12usize);
    let value = |z: usize, y: usize, x: usize| (z * 1000 + y * 100 + x) as i32;
    let all: Vec<i32> = (0..nz * ny * nx)
        .map(|i| value(i / (ny * nx), i / nx % ny, i % nx))
        .collect();
    let u = create_int_var(srv, what, [nz, ny, nx], layout, &all);
    let (mut ncid, v) = (0, 0);
    // SAFETY (all calls): valid NUL-terminated strings, buffers of the sizes passed.
    unsafe {
        check(nc_open(u.as_ptr(), 0, &mut ncid));
        // One value, then a subset across chunk boundaries, few chunks cached.
        let mut one = 0i32;
        check(nc_get_var1_int(ncid, v, [5usize, 9, 11].as_ptr(), &mut one));
        assert_eq!(one, value(5, 9, 11), "one value");
        let (start, count) = ([1usize, 2, 3], [4usize, 7, 8]);
        let mut got = vec![0i32; 4 * 7 * 8];
        check(nc_get_vara_int(
            ncid,
            v,
            start.as_ptr(),
            count.as_ptr(),
            got.as_mut_ptr(),
        ));
        let want: Vec<i32> = (0..got.len())
            .map(|i| value(1 + i / 56, 2 + i / 8 % 7, 3 + i % 8))
            .collect();
        assert_eq!(got, want, "subset");
        // Strided: every other z, every third x.
        let got = get_strided(ncid, v, [0, 0, 0], [3, 10, 4], [2, 1, 3]);
        let want: Vec<i32> = (0..got.len())
            .map(|i| value(2 * (i / 40), i / 4 % 10, 3 * (i % 4)))
            .collect();
        assert_eq!(got, want, "strided");
        // The whole variable, some of its chunks cached by the reads above.
        let mut got = vec![0i32; all.len()];
        check(nc_get_var_int(ncid, v, got.as_mut_ptr()));
        assert_eq!(got, all, "whole");
        // Again with a cache too small to hold it: the read streams (its
        // chunks decoded and dropped, none kept).
        check(nc_set_var_chunk_cache(ncid, v, 64, 1, 0.75));
        let mut got = vec![0i32; all.len()];
        check(nc_get_var_int(ncid, v, got.as_mut_ptr()));
        assert_eq!(got, all, "streamed");
        check(nc_close(ncid));
    }
}

/// A read that streams past a small cache in several batches: each batch's
/// fetches start while the one before is decoded. Every value lands in place,
/// whole and strided, uncompressed and compressed.
#[test]
fn streamed_read_of_many_batches_lands_in_place() {
    let Some(srv) = common::s3_server_in_env(false) else {
        return;
    };
    // 100 chunks of 256 KiB: more than one batch of fetches.
    let (nz, ny, nx) = (100usize, 256usize, 256usize);
    let value = |i: usize| (i as i32).wrapping_mul(7).wrapping_add(3);
    let all: Vec<i32> = (0..nz * ny * nx).map(value).collect();
    for deflate in [false, true] {
        let layout = Layout {
            chunks: [1, ny, nx],
            deflate,
            shards: None,
        };
        let u = create_int_var(&srv, "batches", [nz, ny, nx], layout, &all);
        let (mut ncid, v) = (0, 0);
        // SAFETY (all calls): valid NUL-terminated strings, buffers of the sizes passed.
        unsafe {
            check(nc_open(u.as_ptr(), 0, &mut ncid));
            check(nc_set_var_chunk_cache(ncid, v, 1 << 20, 4, 0.75));
            let mut got = vec![0i32; all.len()];
            check(nc_get_var_int(ncid, v, got.as_mut_ptr()));
            assert!(got == all, "whole (deflate {deflate})");
            // Every chunk, a few values of each.
            let got = get_strided(ncid, v, [0, 3, 5], [nz, 30, 20], [1, 8, 12]);
            let want: Vec<i32> = (0..got.len())
                .map(|i| value((i / 600) * ny * nx + (3 + 8 * (i / 20 % 30)) * nx + 5 + 12 * (i % 20)))
                .collect();
            assert!(got == want, "strided (deflate {deflate})");
            check(nc_close(ncid));
        }
    }
}
