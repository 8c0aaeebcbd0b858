//! CF aggregation with masters and fragments in S3: a master in a bucket
//! whose fragment URIs are relative (resolved against the master's
//! prefix), and a local master naming `s3://` fragments (read by default,
//! refused when fragment URIs are confined).
//!
//! Needs the server of scripts/s3-server.sh (its NCZ_S3_* variables):
//! without them these tests fail, unless NCZ_S3=0 skips them.

use std::ffi::c_int;

use netcdf::ffi::*;

mod common;
use common::def::{Def, c, ok, shape};
use common::nc::*;

/// A prefix no other run uses.
fn unique_prefix(what: &str) -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("agg-{what}-{}-{t}", std::process::id())
}

/// A fragment `v(time = vals.len())` of floats.
fn fragment(url: &str, vals: &[f32]) {
    let d = Def::create(url, 0);
    let t = d.dim("time", vals.len());
    let v = d.var("v", NC_FLOAT, &[t]);
    d.enddef();
    d.floats(v, vals);
    d.close();
}

/// A CF-1.13 master of `v(time = 5)` over two fragments of sizes 2 and 3.
fn master(url: &str, uris: [&str; 2]) {
    let d = Def::create(url, 0);
    d.dim("time", 5);
    let v = d.var("v", NC_FLOAT, &[]);
    d.float_att(v, "_FillValue", -1.0);
    let map = d.time_map(v, 2);
    d.enddef();
    map.write(&d, &[2, 3], &uris, "/v");
    d.close();
}

fn read(url: &str) -> Result<Vec<f32>, c_int> {
    let mut ncid = 0;
    ok(unsafe { nc_open(c(url).as_ptr(), 0, &mut ncid) }, url);
    let mut v = -1;
    ok(unsafe { nc_inq_varid(ncid, c("v").as_ptr(), &mut v) }, "v");
    assert_eq!(shape(ncid, v), vec![5]);
    let mut out = vec![0f32; 5];
    let rc = unsafe { nc_get_var_float(ncid, v, out.as_mut_ptr()) };
    ok(nc_close(ncid), "close");
    if rc == 0 { Ok(out) } else { Err(rc) }
}

const WANT: [f32; 5] = [1.0, 2.0, 10.0, 20.0, 30.0];

#[test]
fn master_in_s3_with_relative_fragment_uris() {
    let Some(srv) = common::s3_server_in_env(true) else {
        return;
    };
    let base = format!("{}/{}/{}", srv.endpoint, srv.bucket, unique_prefix("rel"));
    fragment(&format!("{base}/f0.zarr#mode=nczarr,s3"), &[1.0, 2.0]);
    fragment(&format!("{base}/sub/f1.zarr#mode=nczarr,s3"), &[10.0, 20.0, 30.0]);
    let m = format!("{base}/m.zarr#mode=nczarr,s3");
    master(&m, ["f0.zarr#mode=nczarr,s3", "sub/f1.zarr#mode=nczarr,s3"]);
    assert_eq!(read(&m), Ok(WANT.to_vec()));
    // Relative URIs stay under the master's prefix: confinement allows them.
    assert_eq!(
        read(&format!("{base}/m.zarr#mode=nczarr,s3,aggregation_uris=confined")),
        Ok(WANT.to_vec())
    );
}

#[test]
fn local_master_with_s3_fragment_uris() {
    let Some(srv) = common::s3_server_in_env(true) else {
        return;
    };
    let prefix = unique_prefix("abs");
    let base = format!("{}/{}/{prefix}", srv.endpoint, srv.bucket);
    fragment(&format!("{base}/f0.zarr#mode=nczarr,s3"), &[1.0, 2.0]);
    fragment(&format!("{base}/f1.zarr#mode=nczarr,s3"), &[10.0, 20.0, 30.0]);
    let tmp = tempfile::tempdir().unwrap();
    let m = format!("file://{}#mode=nczarr,file", tmp.path().join("m.zarr").display());
    let s3 = |name: &str| format!("s3://{}/{prefix}/{name}#mode=nczarr,s3", srv.bucket);
    master(&m, [&s3("f0.zarr"), &s3("f1.zarr")]);
    assert_eq!(read(&m), Ok(WANT.to_vec()));
    assert_eq!(read(&format!("{m},aggregation_uris=any")), Ok(WANT.to_vec()));
    assert_eq!(read(&format!("{m},aggregation_uris=confined")), Err(NC_EPERM));
}
