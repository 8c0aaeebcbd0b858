//! An aggregation written to S3 through the C API: the master and its
//! fragments in one bucket, the fragment URIs relative to the master, read
//! back with exact values; nc_abort removes what it created there too.
//!
//! Needs the server of scripts/s3-server.sh (its NCZ_S3_* variables):
//! without them this test fails, unless NCZ_S3=0 skips it.

use std::ffi::c_int;

use netcdf::ffi::*;

mod common;
use common::def::{Def, c, ok, shape};
use common::nc::*;

const FILL: f32 = -999.0;

fn val(t: usize, l: usize) -> f32 {
    (10 * t + l) as f32 + 0.25
}

fn open(url: &str, mode: c_int) -> c_int {
    let mut ncid = 0;
    ok(unsafe { nc_open(c(url).as_ptr(), mode, &mut ncid) }, url);
    ncid
}

fn varid(ncid: c_int, name: &str) -> c_int {
    let mut v = -1;
    ok(unsafe { nc_inq_varid(ncid, c(name).as_ptr(), &mut v) }, name);
    v
}

fn get_floats(ncid: c_int, v: c_int, count: &[usize]) -> Vec<f32> {
    let mut out = vec![0f32; count.iter().product()];
    let start = vec![0usize; count.len()];
    ok(
        unsafe { nc_get_vara_float(ncid, v, start.as_ptr(), count.as_ptr(), out.as_mut_ptr()) },
        "get_vara_float",
    );
    out
}

/// `tas(time = unlimited, lat = 5)` in fragments of 3 x 2 at `url`; rows
/// 0..7 written (row 5 left fill), in two appends.
fn write_master(url: &str) -> Def {
    let d = Def::create(url, 0);
    let time = d.dim("time", NC_UNLIMITED);
    let lat = d.dim("lat", 5);
    let tas = d.var("tas", NC_FLOAT, &[time, lat]);
    d.float_att(tas, "_FillValue", FILL);
    ok(
        unsafe { nc_def_var_aggregation(d.ncid, tas, [3usize, 2].as_ptr(), 0, std::ptr::null()) },
        "def_var_aggregation",
    );
    d.enddef();
    for (t0, n) in [(0usize, 5usize), (6, 1)] {
        let rows: Vec<f32> = (t0..t0 + n).flat_map(|t| (0..5).map(move |l| val(t, l))).collect();
        ok(
            unsafe { nc_put_vara_float(d.ncid, tas, [t0, 0].as_ptr(), [n, 5].as_ptr(), rows.as_ptr()) },
            "append",
        );
    }
    d
}

#[test]
fn an_aggregation_in_s3_reads_back_through_relative_uris() {
    let Some(srv) = common::s3_server_in_env(false) else {
        return;
    };
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let base = format!("{}/{}/aggw-{}-{stamp}", srv.endpoint, srv.bucket, std::process::id());
    let url = format!("{base}/m.zarr#mode=nczarr,s3");
    write_master(&url).close();

    let ncid = open(&url, 0);
    let v = varid(ncid, "tas");
    assert_eq!(shape(ncid, v), vec![7, 5]);
    let want: Vec<f32> = (0..7)
        .flat_map(|t| (0..5).map(move |l| if t == 5 { FILL } else { val(t, l) }))
        .collect();
    assert_eq!(get_floats(ncid, v, &[7, 5]), want);
    ok(nc_close(ncid), "close");

    // The URIs are relative to the master, inside the bucket.
    let raw = open(&format!("{base}/m.zarr#mode=nczarr,s3,aggregation=raw"), 0);
    let u = varid(raw, "tas_fragment_uris");
    assert_eq!(shape(raw, u), vec![3, 3]);
    let mut p = vec![std::ptr::null_mut(); 9];
    ok(unsafe { nc_get_var_string(raw, u, p.as_mut_ptr()) }, "uris");
    let uris: Vec<String> = p
        .iter()
        .map(|&x| unsafe { std::ffi::CStr::from_ptr(x) }.to_str().unwrap().to_string())
        .collect();
    ok(unsafe { nc_free_string(9, p.as_mut_ptr()) }, "free");
    assert_eq!(uris[0], "m.zarr_tas/0_0.zarr#mode=nczarr,s3");
    assert_eq!(uris[8], "m.zarr_tas/2_2.zarr#mode=nczarr,s3");
    ok(nc_close(raw), "close raw");
    // A fragment is a dataset of its own in the bucket.
    let f = open(&format!("{base}/m.zarr_tas/2_2.zarr#mode=nczarr,s3"), 0);
    let fv = varid(f, "tas");
    assert_eq!(get_floats(f, fv, &[1, 1]), vec![val(6, 4)]);
    ok(nc_close(f), "close fragment");

    // nc_abort of a master created in S3 removes its fragments: opening
    // the master or a fragment finds nothing (NC_ENOOBJECT).
    let url2 = format!("{base}/a.zarr#mode=nczarr,s3");
    let d = write_master(&url2);
    ok(nc_abort(d.ncid), "abort");
    let mut x = 0;
    for gone in [url2.clone(), format!("{base}/a.zarr_tas/1_1.zarr#mode=nczarr,s3")] {
        assert_eq!(unsafe { nc_open(c(&gone).as_ptr(), 0, &mut x) }, NC_ENOOBJECT, "{gone}");
    }
}
