//! CF aggregation masters written by hand (netCDF-4, through the system
//! libnetcdf) read by this library and by cfdm 1.13 (the venv of
//! scripts/install-deps.sh, `tests/interop/cfdm_read.py`): the values must
//! be the same: a unit-converted aggregation (fragments in degrees Celsius
//! and in kelvin, the aggregation in kelvin). Text aggregations are not
//! compared: cfdm 1.13.3 fails on each form tried (an NC_STRING scalar or a
//! char variable with its own string length, as a data variable: "Can't set
//! field construct data axes"; the char one as an auxiliary coordinate:
//! "Shape of (1, 5) does not match the shape required by domain axes").

use std::ffi::c_int;
use std::path::Path;

use netcdf::ffi::*;

mod common;
use common::def::{Def, c, ok, shape};
use common::nc::*;

/// cfdm's reading of `var` in `master`: its shape and one line per value.
fn cfdm_reads(master: &Path, var: &str) -> (Vec<usize>, Vec<String>) {
    let text = common::run_cfdm("cfdm_read.py", &[master.as_os_str(), std::ffi::OsStr::new(var)]);
    common::cfdm_shape_and_values(&text)
}

/// A CF-1.13 netCDF-4 master of `v(time = 5)` of type `ty` over `uris`
/// (sizes 2 and 3, variable `v` in each).
fn master(path: &Path, ty: c_int, units: Option<&str>) {
    let d = Def::create(path.to_str().unwrap(), NC_NETCDF4);
    d.text(NC_GLOBAL, "Conventions", "CF-1.13");
    d.dim("time", 5);
    let v = d.var("v", ty, &[]);
    if let Some(u) = units {
        d.text(v, "units", u);
    }
    let map = d.time_map(v, 2);
    d.enddef();
    map.write(&d, &[2, 3], &["a.nc", "b.nc"], "v");
    d.close();
}

fn open(path: &Path) -> (c_int, c_int) {
    let mut ncid = 0;
    ok(
        unsafe { nc_open(c(path.to_str().unwrap()).as_ptr(), 0, &mut ncid) },
        "open",
    );
    let mut v = -1;
    ok(unsafe { nc_inq_varid(ncid, c("v").as_ptr(), &mut v) }, "v");
    assert_eq!(shape(ncid, v), vec![5]);
    (ncid, v)
}

#[test]
fn unit_converted_aggregation_reads_as_cfdm_reads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for (name, units, vals) in [
        ("a.nc", "degC", &[0.0f32, 25.5][..]),
        ("b.nc", "K", &[250.0, 273.15, 300.5]),
    ] {
        let d = Def::create(dir.join(name).to_str().unwrap(), NC_NETCDF4);
        let t = d.dim("time", vals.len());
        let v = d.var("v", NC_FLOAT, &[t]);
        d.text(v, "units", units);
        d.enddef();
        d.floats(v, vals);
        d.close();
    }
    let m = dir.join("m.nc");
    master(&m, NC_FLOAT, Some("K"));
    let (ncid, v) = open(&m);
    let mut got = [0f32; 5];
    ok(unsafe { nc_get_var_float(ncid, v, got.as_mut_ptr()) }, "read");
    ok(nc_close(ncid), "close");
    assert_eq!(got, [273.15, 298.65, 250.0, 273.15, 300.5]);
    let (shape, values) = cfdm_reads(&m, "v");
    assert_eq!(shape, [5]);
    let theirs: Vec<f32> = values.iter().map(|s| s.parse().unwrap()).collect();
    assert_eq!(theirs, got);
}
