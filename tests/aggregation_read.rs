//! CF aggregation, the read side's later additions, through the C API:
//! char and string aggregated variables, unit conversion, empty
//! aggregations, confined fragment URIs, CFA-0.4 and S3netCDF4 masters.
//!
//! The netCDF fragments are written through this library's C API with
//! plain `.nc` paths, which it hands to the system libnetcdf: these tests
//! need it (Debian's libnetcdf19) and fail without it.

use std::ffi::{CStr, c_char, c_int};
use std::path::Path;

use netcdf::ffi::*;

mod common;
use common::def::{Def, c, ok, shape};
use common::nc::*;

const NC_EBADTYPE: c_int = -45;
const NC_ECHAR: c_int = -56;

fn zurl(p: &Path, extra: &str) -> String {
    format!("file://{}#mode=nczarr,file{extra}", p.display())
}

fn open(url: &str) -> c_int {
    let mut ncid = 0;
    ok(unsafe { nc_open(c(url).as_ptr(), 0, &mut ncid) }, url);
    ncid
}

fn varid(ncid: c_int, name: &str) -> c_int {
    let mut v = -1;
    ok(unsafe { nc_inq_varid(ncid, c(name).as_ptr(), &mut v) }, name);
    v
}

/// Write text values into a char variable of shape (n, width).
fn put_chars(ncid: c_int, v: c_int, width: usize, vals: &[&str]) {
    let mut buf = vec![0u8; width * vals.len()];
    for (k, s) in vals.iter().enumerate() {
        buf[k * width..k * width + s.len()].copy_from_slice(s.as_bytes());
    }
    ok(unsafe { nc_put_var_text(ncid, v, buf.as_ptr().cast()) }, "chars");
}

/// nc_get_vara_string: each value, NULL as None.
fn get_strings(ncid: c_int, v: c_int, start: &[usize], count: &[usize]) -> Result<Vec<Option<String>>, c_int> {
    let n: usize = count.iter().product();
    let mut p: Vec<*mut c_char> = vec![std::ptr::null_mut(); n];
    let rc = unsafe { nc_get_vara_string(ncid, v, start.as_ptr(), count.as_ptr(), p.as_mut_ptr()) };
    if rc != 0 {
        return Err(rc);
    }
    let out = p
        .iter()
        .map(|&s| (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()))
        .collect();
    ok(unsafe { nc_free_string(n, p.as_mut_ptr()) }, "free");
    Ok(out)
}

fn get_text(ncid: c_int, v: c_int, start: &[usize], count: &[usize]) -> Result<Vec<u8>, c_int> {
    let n: usize = count.iter().product();
    let mut b = vec![b'?'; n];
    match unsafe { nc_get_vara_text(ncid, v, start.as_ptr(), count.as_ptr(), b.as_mut_ptr().cast()) } {
        0 => Ok(b),
        e => Err(e),
    }
}

/// A 1-D CF-1.13 master of `name(time = sizes' sum)` of type `ty` over
/// fragments `uris` (variable `v` in each) of sizes `sizes`; `dims` are
/// further (master) dimensions `(name, len)` and `own` the variable's own
/// dimensions (a char variable's string length), `extra` lists more
/// aggregated dimensions with their map rows.
struct Master<'a> {
    ty: c_int,
    sizes: &'a [i64],
    uris: &'a [&'a str],
    own: Option<(&'a str, usize)>,
    extra: Option<(&'a str, usize, &'a [i64])>,
    units: Option<&'a str>,
}

fn master(path: &str, m: &Master) {
    let d = Def::create(path, 0);
    let total: i64 = m.sizes.iter().sum();
    d.dim("time", total as usize);
    let own: Vec<c_int> = m.own.iter().map(|&(n, l)| d.dim(n, l)).collect();
    let mut dims = "time".to_string();
    let k = m.sizes.len().max(m.extra.map_or(0, |e| e.2.len()));
    let rows = 1 + usize::from(m.extra.is_some());
    if let Some((n, l, _)) = m.extra {
        d.dim(n, l);
        dims = format!("{dims} {n}");
    }
    let f = d.dim("f", m.uris.len());
    let j = d.dim("j", rows);
    let i = d.dim("i", k);
    let v = d.var("v", m.ty, &own);
    d.text(v, "aggregated_dimensions", &dims);
    d.text(v, "aggregated_data", "map: fmap uris: furis identifiers: fid");
    if let Some(u) = m.units {
        d.text(v, "units", u);
    }
    let mv = d.var("fmap", NC_INT64, &[j, i]);
    let shaped: Vec<c_int> = match m.extra {
        Some((_, _, row)) => vec![d.dim("fa", m.sizes.len()), d.dim("fb", row.len())],
        None => vec![f],
    };
    let uv = d.var("furis", NC_STRING, &shaped);
    let iv = d.var("fid", NC_STRING, &[]);
    d.enddef();
    let pad = |row: &[i64]| -> Vec<i64> {
        let mut r = row.to_vec();
        r.resize(k, -9223372036854775806);
        r
    };
    let mut map = pad(m.sizes);
    if let Some((_, _, row)) = m.extra {
        map.extend(pad(row));
    }
    d.int64s(mv, &map);
    d.strings(uv, m.uris);
    d.strings(iv, &["v"]);
    d.close();
}

#[test]
fn string_aggregation_reads_as_one_dataset() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // Zarr fragment: 2 strings, one of them empty; netCDF-4 fragment: 3.
    {
        let d = Def::create(&zurl(&dir.join("a.zarr"), ""), 0);
        let t = d.dim("time", 2);
        let v = d.var("v", NC_STRING, &[t]);
        d.enddef();
        d.strings(v, &["alpha", ""]);
        d.close();
    }
    {
        let d = Def::create(dir.join("b.nc").to_str().unwrap(), NC_NETCDF4);
        let t = d.dim("time", 3);
        let v = d.var("v", NC_STRING, &[t]);
        d.enddef();
        d.strings(v, &["gamma", "délta", "epsilon"]);
        d.close();
    }
    let m = dir.join("m.zarr");
    master(
        &zurl(&m, ""),
        &Master {
            ty: NC_STRING,
            sizes: &[2, 3],
            uris: &["a.zarr", "b.nc"],
            own: None,
            extra: None,
            units: None,
        },
    );
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    assert_eq!(shape(ncid, v), vec![5]);
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        get_strings(ncid, v, &[0], &[5]).unwrap(),
        vec![s("alpha"), s(""), s("gamma"), s("délta"), s("epsilon")]
    );
    assert_eq!(get_strings(ncid, v, &[1], &[2]).unwrap(), vec![s(""), s("gamma")]);
    // Strided across both fragments.
    let mut p: Vec<*mut c_char> = vec![std::ptr::null_mut(); 3];
    ok(
        unsafe { nc_get_vars_string(ncid, v, [0].as_ptr(), [3].as_ptr(), [2].as_ptr(), p.as_mut_ptr()) },
        "vars",
    );
    let got: Vec<String> = p
        .iter()
        .map(|&x| unsafe { CStr::from_ptr(x) }.to_string_lossy().into_owned())
        .collect();
    ok(unsafe { nc_free_string(3, p.as_mut_ptr()) }, "free");
    assert_eq!(got, ["alpha", "gamma", "epsilon"]);
    // Numbers from strings: what netcdf-c answers for a string variable.
    let mut f = [0f32; 5];
    assert_eq!(unsafe { nc_get_var_float(ncid, v, f.as_mut_ptr()) }, NC_EBADTYPE);
    ok(nc_close(ncid), "close");

    // A fragment of numbers in a string aggregation: NC_EBADTYPE.
    {
        let d = Def::create(&zurl(&dir.join("num.zarr"), ""), 0);
        let t = d.dim("time", 3);
        let v = d.var("v", NC_FLOAT, &[t]);
        d.enddef();
        d.floats(v, &[1.0, 2.0, 3.0]);
        d.close();
    }
    let m2 = dir.join("m2.zarr");
    master(
        &zurl(&m2, ""),
        &Master {
            ty: NC_STRING,
            sizes: &[2, 3],
            uris: &["a.zarr", "num.zarr"],
            own: None,
            extra: None,
            units: None,
        },
    );
    let ncid = open(&zurl(&m2, ""));
    let v = varid(ncid, "v");
    assert_eq!(get_strings(ncid, v, &[0], &[5]), Err(NC_EBADTYPE));
    assert_eq!(get_strings(ncid, v, &[0], &[2]).unwrap(), vec![s("alpha"), s("")]);
    ok(nc_close(ncid), "close");
}

/// A char fragment `v(time = n, strlen = width)` holding `vals`.
fn char_fragment(path: &str, cmode: c_int, width: usize, vals: &[&str]) {
    let d = Def::create(path, cmode);
    let t = d.dim("time", vals.len());
    let s = d.dim("strlen", width);
    let v = d.var("v", NC_CHAR, &[t, s]);
    d.enddef();
    put_chars(d.ncid, v, width, vals);
    d.close();
}

#[test]
fn char_aggregation_with_and_without_an_aggregated_string_length() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    char_fragment(&zurl(&dir.join("a.zarr"), ""), 0, 4, &["ab", "cdef"]);
    char_fragment(dir.join("b.nc").to_str().unwrap(), 0, 4, &["g", "hij", "klmn"]);
    // The string length aggregated (one fragment along it).
    let m = dir.join("agg.zarr");
    master(
        &zurl(&m, ""),
        &Master {
            ty: NC_CHAR,
            sizes: &[2, 3],
            uris: &["a.zarr", "b.nc"],
            own: None,
            extra: Some(("strlen", 4, &[4])),
            units: None,
        },
    );
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    assert_eq!(shape(ncid, v), vec![5, 4]);
    assert_eq!(
        get_text(ncid, v, &[0, 0], &[5, 4]).unwrap(),
        b"ab\0\0cdefg\0\0\0hij\0klmn"
    );
    assert_eq!(get_text(ncid, v, &[1, 1], &[2, 2]).unwrap(), b"de\0\0");
    // Numbers from chars: NC_ECHAR, as netcdf-c.
    let mut f = [0f32; 20];
    assert_eq!(unsafe { nc_get_var_float(ncid, v, f.as_mut_ptr()) }, NC_ECHAR);
    ok(nc_close(ncid), "close");

    // Not aggregated: the master's variable has the string length (6),
    // fragments are shorter (4) and read padded with the fill value.
    let m = dir.join("own.zarr");
    master(
        &zurl(&m, ""),
        &Master {
            ty: NC_CHAR,
            sizes: &[2, 3],
            uris: &["a.zarr", "b.nc"],
            own: Some(("name_len", 6)),
            extra: None,
            units: None,
        },
    );
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    assert_eq!(shape(ncid, v), vec![5, 6]);
    let mut want = Vec::new();
    for s in ["ab", "cdef", "g", "hij", "klmn"] {
        let mut r = s.as_bytes().to_vec();
        r.resize(6, 0);
        want.extend(r);
    }
    assert_eq!(get_text(ncid, v, &[0, 0], &[5, 6]).unwrap(), want);
    // Only the padding.
    assert_eq!(get_text(ncid, v, &[1, 4], &[2, 2]).unwrap(), vec![0u8; 4]);
    // A stride across the padding.
    let mut b = vec![0u8; 6];
    ok(
        unsafe {
            nc_get_vars_text(
                ncid,
                v,
                [1, 1].as_ptr(),
                [2, 3].as_ptr(),
                [2, 2].as_ptr(),
                b.as_mut_ptr().cast(),
            )
        },
        "vars",
    );
    assert_eq!(b, b"df\0i\0\0");
    ok(nc_close(ncid), "close");

    // A fragment longer than the master's string length: NC_EEDGE.
    let m = dir.join("short.zarr");
    master(
        &zurl(&m, ""),
        &Master {
            ty: NC_CHAR,
            sizes: &[2, 3],
            uris: &["a.zarr", "b.nc"],
            own: Some(("name_len", 3)),
            extra: None,
            units: None,
        },
    );
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    assert_eq!(get_text(ncid, v, &[0, 0], &[5, 3]), Err(-57));
    ok(nc_close(ncid), "close");

    // A string fragment in a char aggregation: NC_EBADTYPE.
    {
        let d = Def::create(&zurl(&dir.join("s.zarr"), ""), 0);
        let t = d.dim("time", 3);
        let v = d.var("v", NC_STRING, &[t]);
        d.enddef();
        d.strings(v, &["x", "y", "z"]);
        d.close();
    }
    let m = dir.join("bad.zarr");
    master(
        &zurl(&m, ""),
        &Master {
            ty: NC_CHAR,
            sizes: &[2, 3],
            uris: &["a.zarr", "s.zarr"],
            own: Some(("name_len", 4)),
            extra: None,
            units: None,
        },
    );
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    assert_eq!(get_text(ncid, v, &[0, 0], &[5, 4]), Err(NC_EBADTYPE));
    ok(nc_close(ncid), "close");
}

#[test]
fn char_aggregation_in_a_netcdf3_master() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    char_fragment(dir.join("a.nc").to_str().unwrap(), 0, 3, &["ab", "cde"]);
    char_fragment(&zurl(&dir.join("b.zarr"), ""), 0, 2, &["f"]);
    // netCDF-3: char tables, the variable with its own string length.
    let m = dir.join("m.nc");
    let d = Def::create(m.to_str().unwrap(), 0);
    d.dim("time", 3);
    let sl = d.dim("strlen", 3);
    let j = d.dim("j", 1);
    let i = d.dim("i", 2);
    let w = d.dim("w", 8);
    let v = d.var("v", NC_CHAR, &[sl]);
    d.text(v, "aggregated_dimensions", "time");
    d.text(v, "aggregated_data", "map: fmap uris: furis identifiers: fid");
    let mv = d.var("fmap", NC_INT, &[j, i]);
    let uv = d.var("furis", NC_CHAR, &[i, w]);
    let iv = d.var("fid", NC_CHAR, &[w]);
    d.enddef();
    ok(unsafe { nc_put_var_int(d.ncid, mv, [2, 1].as_ptr()) }, "map");
    put_chars(d.ncid, uv, 8, &["a.nc", "b.zarr"]);
    put_chars(d.ncid, iv, 8, &["v"]);
    d.close();
    let ncid = open(m.to_str().unwrap());
    let v = varid(ncid, "v");
    assert_eq!(shape(ncid, v), vec![3, 3]);
    assert_eq!(get_text(ncid, v, &[0, 0], &[3, 3]).unwrap(), b"ab\0cdef\0\0");
    ok(nc_close(ncid), "close");
}

/// A float fragment `v(time)` with `units` (and `calendar`), `fill` its
/// `_FillValue` when given.
fn unit_fragment(path: &str, cmode: c_int, vals: &[f32], units: &str, calendar: Option<&str>, fill: Option<f32>) {
    let d = Def::create(path, cmode);
    let t = d.dim("time", vals.len());
    let v = d.var("v", NC_FLOAT, &[t]);
    d.text(v, "units", units);
    if let Some(cal) = calendar {
        d.text(v, "calendar", cal);
    }
    if let Some(f) = fill {
        d.float_att(v, "_FillValue", f);
    }
    d.enddef();
    d.floats(v, vals);
    d.close();
}

fn units_master(path: &Path, ty: c_int, units: &str, sizes: &[i64], uris: &[&str]) {
    master(
        &zurl(path, ""),
        &Master {
            ty,
            sizes,
            uris,
            own: None,
            extra: None,
            units: Some(units),
        },
    );
}

fn floats(ncid: c_int, v: c_int, n: usize) -> Result<Vec<f32>, c_int> {
    let mut out = vec![0f32; n];
    match unsafe { nc_get_var_float(ncid, v, out.as_mut_ptr()) } {
        0 => Ok(out),
        e => Err(e),
    }
}

#[test]
fn temperatures_are_converted_to_the_aggregations_units() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    unit_fragment(&zurl(&dir.join("c.zarr"), ""), 0, &[0.0, 10.0], "degC", None, None);
    unit_fragment(
        dir.join("f.nc").to_str().unwrap(),
        NC_NETCDF4,
        &[32.0, 212.0, -999.0],
        "degrees_Fahrenheit",
        None,
        Some(-999.0),
    );
    unit_fragment(&zurl(&dir.join("k.zarr"), ""), 0, &[1.0], "K", None, None);
    let m = dir.join("m.zarr");
    units_master(&m, NC_FLOAT, "K", &[2, 3, 1], &["c.zarr", "f.nc", "k.zarr"]);
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    let f = |x: f64| x as f32;
    // The fragment's missing value reads as the aggregation's fill value
    // (the default here), never converted.
    assert_eq!(
        floats(ncid, v, 6).unwrap(),
        vec![
            f(273.15),
            f(283.15),
            f(32.0 * (5.0 / 9.0) + 459.67 * (5.0 / 9.0)),
            f(212.0 * (5.0 / 9.0) + 459.67 * (5.0 / 9.0)),
            9.969_21e36,
            1.0
        ]
    );
    assert_eq!(f(212.0 * (5.0 / 9.0) + 459.67 * (5.0 / 9.0)), 373.15);
    // As int: converted values, rounded as netcdf-c converts.
    let mut i = [0i32; 2];
    ok(
        unsafe { nc_get_vara_int(ncid, v, [1].as_ptr(), [2].as_ptr(), i.as_mut_ptr()) },
        "int",
    );
    assert_eq!(i, [283, 273]);
    ok(nc_close(ncid), "close");

    // An aggregation of shorts: a converted value out of its range is
    // NC_ERANGE (the fragment's 32767 degC is 33040.15 K).
    unit_fragment(&zurl(&dir.join("hot.zarr"), ""), 0, &[32767.0, 1.0], "degC", None, None);
    let m = dir.join("short.zarr");
    units_master(&m, NC_SHORT, "K", &[2], &["hot.zarr"]);
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    let mut s = [0i16; 2];
    assert_eq!(unsafe { nc_get_var_short(ncid, v, s.as_mut_ptr()) }, NC_ERANGE);
    ok(
        unsafe { nc_get_vara_short(ncid, v, [1].as_ptr(), [1].as_ptr(), s.as_mut_ptr()) },
        "in range",
    );
    assert_eq!(s[0], 274);
    ok(nc_close(ncid), "close");

    // Units that no affine rule links: NC_EINVAL.
    unit_fragment(&zurl(&dir.join("m.zarr"), ""), 0, &[1.0, 2.0], "m", None, None);
    let m = dir.join("metres.zarr");
    units_master(&m, NC_FLOAT, "K", &[2], &["m.zarr"]);
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    assert_eq!(floats(ncid, v, 2), Err(NC_EINVAL));
    ok(nc_close(ncid), "close");
}

#[test]
fn time_units_are_converted_within_one_calendar() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    unit_fragment(
        &zurl(&dir.join("a.zarr"), ""),
        0,
        &[0.0, 0.5],
        "days since 2000-01-02",
        None,
        None,
    );
    unit_fragment(
        dir.join("b.nc").to_str().unwrap(),
        0,
        &[90.0],
        "minutes since 2000-01-01T00:00:00Z",
        Some("gregorian"),
        None,
    );
    let m = dir.join("m.zarr");
    units_master(
        &m,
        NC_DOUBLE,
        "hours since 2000-01-01 00:00",
        &[2, 1],
        &["a.zarr", "b.nc"],
    );
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    let mut d = [0f64; 3];
    ok(unsafe { nc_get_var_double(ncid, v, d.as_mut_ptr()) }, "double");
    assert_eq!(d, [24.0, 36.0, 1.5]);
    ok(nc_close(ncid), "close");

    // 360-day calendar on both sides: a year is 360 days.
    unit_fragment(
        &zurl(&dir.join("c.zarr"), ""),
        0,
        &[0.0, 1.0],
        "days since 2001-01-01",
        Some("360_day"),
        None,
    );
    let m = dir.join("m360.zarr");
    {
        let d = Def::create(&zurl(&m, ""), 0);
        d.dim("time", 2);
        let v = d.var("v", NC_DOUBLE, &[]);
        d.text(v, "units", "days since 2000-01-01");
        d.text(v, "calendar", "360_day");
        let map = d.time_map(v, 1);
        d.enddef();
        map.write(&d, &[2], &["c.zarr"], "v");
        d.close();
    }
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    let mut d = [0f64; 2];
    ok(unsafe { nc_get_var_double(ncid, v, d.as_mut_ptr()) }, "360");
    assert_eq!(d, [360.0, 361.0]);
    ok(nc_close(ncid), "close");

    // Calendars that differ (the master's is standard): NC_EINVAL.
    let m = dir.join("mixed.zarr");
    units_master(&m, NC_DOUBLE, "days since 2000-01-01", &[2], &["c.zarr"]);
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    assert_eq!(unsafe { nc_get_var_double(ncid, v, d.as_mut_ptr()) }, NC_EINVAL);
    ok(nc_close(ncid), "close");
}

#[test]
fn empty_aggregations_and_zero_size_fragments() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // An unlimited aggregated dimension of length 0: no fragment along it.
    let m = dir.join("empty.zarr");
    {
        let d = Def::create(&zurl(&m, ""), 0);
        let t = d.dim("time", NC_UNLIMITED);
        let j = d.dim("j", 1);
        let i = d.dim("i", 1);
        let v = d.var("v", NC_FLOAT, &[]);
        d.text(v, "aggregated_dimensions", "time");
        d.text(v, "aggregated_data", "map: fmap uris: furis identifiers: fid");
        let tv = d.var("time", NC_DOUBLE, &[t]);
        let mv = d.var("fmap", NC_INT64, &[j, i]);
        let uv = d.var("furis", NC_STRING, &[i]);
        let iv = d.var("fid", NC_STRING, &[]);
        let _ = tv;
        d.enddef();
        d.int64s(mv, &[-9223372036854775806]);
        d.strings(uv, &[""]);
        d.strings(iv, &["v"]);
        d.close();
    }
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    assert_eq!(shape(ncid, v), vec![0]);
    let mut unlimited = -1;
    ok(unsafe { nc_inq_unlimdim(ncid, &mut unlimited) }, "unlimdim");
    let mut dimid = -2;
    ok(unsafe { nc_inq_vardimid(ncid, v, &mut dimid) }, "dimids");
    assert_eq!(dimid, unlimited);
    assert_eq!(floats(ncid, v, 0), Ok(vec![]));
    let tv = varid(ncid, "time");
    let mut y = 0f64;
    assert_eq!(
        unsafe { nc_get_vara_double(ncid, tv, [0].as_ptr(), [1].as_ptr(), &mut y) },
        -40
    );
    let mut x = 0f32;
    ok(
        unsafe { nc_get_vara_float(ncid, v, [0].as_ptr(), [0].as_ptr(), &mut x) },
        "nothing",
    );
    assert_eq!(
        unsafe { nc_get_vara_float(ncid, v, [0].as_ptr(), [1].as_ptr(), &mut x) },
        -40,
        "NC_EINVALCOORDS past the end, as for the time variable beside it"
    );
    ok(nc_close(ncid), "close");

    // A zero-size fragment between two others: never opened (its dataset
    // does not exist).
    unit_fragment(&zurl(&dir.join("a.zarr"), ""), 0, &[1.0, 2.0], "K", None, None);
    unit_fragment(&zurl(&dir.join("c.zarr"), ""), 0, &[3.0], "K", None, None);
    let m = dir.join("zero.zarr");
    units_master(&m, NC_FLOAT, "K", &[2, 0, 1], &["a.zarr", "nothere.zarr", "c.zarr"]);
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    assert_eq!(shape(ncid, v), vec![3]);
    assert_eq!(floats(ncid, v, 3), Ok(vec![1.0, 2.0, 3.0]));
    let mut two = [0f32; 2];
    ok(
        unsafe { nc_get_vars_float(ncid, v, [0].as_ptr(), [2].as_ptr(), [2].as_ptr(), two.as_mut_ptr()) },
        "strided over the empty fragment",
    );
    assert_eq!(two, [1.0, 3.0]);
    ok(nc_close(ncid), "close");

    // A map that does not sum to the dimension: shown as stored.
    let m = dir.join("badsum.zarr");
    {
        let d = Def::create(&zurl(&m, ""), 0);
        d.dim("time", 3);
        let v = d.var("v", NC_FLOAT, &[]);
        let map = d.time_map(v, 3);
        d.enddef();
        map.write(&d, &[2, 0, 0], &["a.zarr", "a.zarr", "c.zarr"], "v");
        d.close();
    }
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "v");
    assert_eq!(shape(ncid, v), Vec::<usize>::new());
    ok(nc_close(ncid), "close");
}

const NC_EPERM_: c_int = -37;

/// `inside/master.zarr` over five one-value fragments: one inside its
/// directory, one above it (`..`), one by absolute path, one on S3, one on
/// HTTPS; and `inside/top.zarr` whose one fragment is a nested master
/// (`inside/nested.zarr`) with a fragment above the directory.
fn confinement_tree(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let inside = dir.join("inside");
    std::fs::create_dir_all(inside.join("sub")).unwrap();
    unit_fragment(&zurl(&inside.join("f.zarr"), ""), 0, &[1.0], "K", None, None);
    unit_fragment(&zurl(&dir.join("outside.zarr"), ""), 0, &[2.0], "K", None, None);
    let abs = inside.join("f.zarr").display().to_string();
    let m = inside.join("master.zarr");
    master(
        &zurl(&m, ""),
        &Master {
            ty: NC_FLOAT,
            sizes: &[1, 1, 1, 1, 1],
            uris: &[
                "f.zarr",
                "sub/../../outside.zarr",
                &abs,
                "s3://bucket/x.zarr#mode=nczarr,s3",
                "https://example.invalid/x.nc#mode=bytes",
            ],
            own: None,
            extra: None,
            units: None,
        },
    );
    let one = |path: &Path, uri: &str| {
        master(
            &zurl(path, ""),
            &Master {
                ty: NC_FLOAT,
                sizes: &[1],
                uris: &[uri],
                own: None,
                extra: None,
                units: None,
            },
        )
    };
    one(&inside.join("nested.zarr"), "../outside.zarr");
    let top = inside.join("top.zarr");
    one(&top, "nested.zarr#mode=nczarr,file,aggregation_uris=any");
    (m, top)
}

fn one_value(ncid: c_int, v: c_int, i: usize) -> Result<f32, c_int> {
    let mut x = 0f32;
    match unsafe { nc_get_var1_float(ncid, v, [i].as_ptr(), &mut x) } {
        0 => Ok(x),
        e => Err(e),
    }
}

/// What the master and the nested one read with `key` added to the URL.
fn confinement_reads(m: &Path, top: &Path, key: &str) -> (Vec<Result<f32, c_int>>, Result<f32, c_int>) {
    let ncid = open(&zurl(m, key));
    let v = varid(ncid, "v");
    // The remote fragments are read only when they must be refused (no
    // network is contacted by these tests).
    let by_env = std::env::var("NCZARR_AGGREGATION_URIS").is_ok_and(|v| v != "any");
    let n = if key.contains("=confined") || (by_env && !key.contains("=any")) {
        5
    } else {
        3
    };
    let got = (0..n).map(|i| one_value(ncid, v, i)).collect();
    ok(nc_close(ncid), "close");
    let ncid = open(&zurl(top, key));
    let v = varid(ncid, "v");
    let nested = one_value(ncid, v, 0);
    ok(nc_close(ncid), "close");
    (got, nested)
}

#[test]
fn confined_fragment_uris_by_mode_key() {
    if std::env::var_os("NCZARR_AGGREGATION_URIS").is_some() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (m, top) = confinement_tree(tmp.path());
    // Not confined: the escapes are followed.
    let (got, nested) = confinement_reads(&m, &top, "");
    assert_eq!(got[..3], [Ok(1.0), Ok(2.0), Ok(1.0)]);
    assert_eq!(nested, Ok(2.0));
    // Confined: only the fragment inside the directory is read; the others
    // are NC_EPERM, remote ones too (never contacted), and the nested
    // master's escape as well, whatever its own URL says.
    let (got, nested) = confinement_reads(&m, &top, ",aggregation_uris=confined");
    assert_eq!(
        got,
        [Ok(1.0), Err(NC_EPERM_), Err(NC_EPERM_), Err(NC_EPERM_), Err(NC_EPERM_)]
    );
    assert_eq!(nested, Err(NC_EPERM_));
    // A read that touches a refused fragment fails as a whole.
    let ncid = open(&zurl(&m, ",aggregation_uris=confined"));
    let v = varid(ncid, "v");
    assert_eq!(floats(ncid, v, 5), Err(NC_EPERM_));
    ok(nc_close(ncid), "close");
}

/// Run `name` of this test binary again with `NCZARR_AGGREGATION_URIS` set.
fn rerun_with_env(name: &str, value: &str, dir: &Path) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", name, "--test-threads=1"])
        .env("NCZARR_AGGREGATION_URIS", value)
        .env("AGG_TEST_DIR", dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn confined_fragment_uris_by_environment() {
    let tmp = tempfile::tempdir().unwrap();
    confinement_tree(tmp.path());
    rerun_with_env("env_confined_child", "confined", tmp.path());
    rerun_with_env("env_any_child", "any", tmp.path());
    // A value that is neither: confined (fails closed).
    rerun_with_env("env_confined_child", "yes", tmp.path());
}

#[test]
#[ignore = "run by confined_fragment_uris_by_environment"]
fn env_confined_child() {
    let Some(dir) = std::env::var_os("AGG_TEST_DIR") else {
        return;
    };
    let inside = Path::new(&dir).join("inside");
    let (got, nested) = confinement_reads(&inside.join("master.zarr"), &inside.join("top.zarr"), "");
    assert_eq!(
        got,
        [Ok(1.0), Err(NC_EPERM_), Err(NC_EPERM_), Err(NC_EPERM_), Err(NC_EPERM_)]
    );
    assert_eq!(nested, Err(NC_EPERM_));
    // The caller's own mode key overrides the environment for its dataset
    // (not for the nested master, whose key comes from the master's text:
    // here the top master's key allows, the nested one's is `any` anyway).
    let (got, _) = confinement_reads(
        &inside.join("master.zarr"),
        &inside.join("top.zarr"),
        ",aggregation_uris=any",
    );
    assert_eq!(got[..3], [Ok(1.0), Ok(2.0), Ok(1.0)]);
}

#[test]
#[ignore = "run by confined_fragment_uris_by_environment"]
fn env_any_child() {
    let Some(dir) = std::env::var_os("AGG_TEST_DIR") else {
        return;
    };
    let inside = Path::new(&dir).join("inside");
    let (got, nested) = confinement_reads(&inside.join("master.zarr"), &inside.join("top.zarr"), "");
    assert_eq!(got[..3], [Ok(1.0), Ok(2.0), Ok(1.0)]);
    assert_eq!(nested, Ok(2.0));
}

/// The CFA-0.4 partition matrix of a 5 x 3 `tas` in three partitions
/// along time (sizes 2, 2, 1; the middle one absent), S3netCDF4's form
/// (inclusive locations).
const CFA_ARRAY: &str = r#"{
  "pmshape": [3, 1],
  "pmdimensions": ["time", "lat"],
  "Partitions": [
    {"index": [0, 0], "location": [[0, 1], [0, 2]],
     "subarray": {"ncvar": "tas", "file": "p0.zarr#mode=nczarr,file", "format": "NCZARR", "shape": [2, 3]}},
    {"index": [2, 0], "location": [[4, 4], [0, 2]],
     "subarray": {"ncvar": "/tas", "file": "p2.nc", "format": "NETCDF4", "shape": [1, 3]}}
  ]
}"#;

/// A fragment `tas(time, lat)` of float values.
fn tas_fragment(path: &str, cmode: c_int, nt: usize, vals: &[f32]) {
    let d = Def::create(path, cmode);
    let t = d.dim("time", nt);
    let l = d.dim("lat", 3);
    let v = d.var("tas", NC_FLOAT, &[t, l]);
    d.enddef();
    d.floats(v, vals);
    d.close();
}

/// A CFA-0.4 master at `path` (a Zarr URL or a netCDF-4 path).
fn cfa04_master(path: &str, cmode: c_int, json: &str) {
    let d = Def::create(path, cmode);
    d.dim("time", 5);
    d.dim("lat", 3);
    let tas = d.var("tas", NC_FLOAT, &[]);
    d.float_att(tas, "_FillValue", -1.0);
    d.text(tas, "units", "K");
    d.text(tas, "cf_role", "cfa_variable");
    d.text(tas, "cfa_dimensions", "time lat");
    d.text(tas, "cfa_array", json);
    d.enddef();
    d.close();
}

fn check_cfa04(ncid: c_int) {
    let v = varid(ncid, "tas");
    assert_eq!(shape(ncid, v), vec![5, 3]);
    let mut want: Vec<f32> = (0..6).map(|k| k as f32).collect();
    want.extend([-1.0; 6]);
    want.extend([12.0, 13.0, 14.0]);
    assert_eq!(floats(ncid, v, 15).unwrap(), want);
    let mut n = 0;
    assert_eq!(
        unsafe { nc_inq_attlen(ncid, v, c("cfa_array").as_ptr(), &mut n) },
        NC_ENOTATT
    );
    assert_eq!(
        unsafe { nc_inq_attlen(ncid, v, c("cf_role").as_ptr(), &mut n) },
        NC_ENOTATT
    );
    let mut a = vec![0u8; 64];
    ok(
        unsafe { nc_get_att_text(ncid, NC_GLOBAL, c("_Aggregation").as_ptr(), a.as_mut_ptr().cast()) },
        "_Aggregation",
    );
    assert!(a.starts_with(b"CFA-0.4"));
}

#[test]
fn cfa_0_4_masters_in_nczarr_and_netcdf4() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    tas_fragment(&zurl(&dir.join("p0.zarr"), ""), 0, 2, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    tas_fragment(dir.join("p2.nc").to_str().unwrap(), NC_NETCDF4, 1, &[12.0, 13.0, 14.0]);
    let m = dir.join("m.zarr");
    cfa04_master(&zurl(&m, ""), 0, CFA_ARRAY);
    let ncid = open(&zurl(&m, ""));
    check_cfa04(ncid);
    ok(nc_close(ncid), "close");
    let m4 = dir.join("m4.nc");
    cfa04_master(m4.to_str().unwrap(), NC_NETCDF4, CFA_ARRAY);
    let ncid = open(m4.to_str().unwrap());
    check_cfa04(ncid);
    ok(nc_close(ncid), "close");
    // Hostile matrices are shown as stored: an index outside pmshape.
    let bad = CFA_ARRAY.replace("\"index\": [2, 0]", "\"index\": [3, 0]");
    let mb = dir.join("bad.zarr");
    cfa04_master(&zurl(&mb, ""), 0, &bad);
    let ncid = open(&zurl(&mb, ""));
    let v = varid(ncid, "tas");
    assert_eq!(shape(ncid, v), Vec::<usize>::new());
    ok(nc_close(ncid), "close");
}

/// The partition matrix of S3netCDF4's group form ("CFA-0.5") for the
/// same `tas` as `CFA_ARRAY`: three partitions along time, the middle one
/// not written (its entries left as fill values, its strings empty);
/// `p2` is the location (exclusive ends) and index of the last one.
struct GroupForm<'a> {
    files: [&'a str; 3],
    p2_location: [i64; 2],
    p2_index: i64,
}

const GOOD_GROUP: GroupForm = GroupForm {
    files: ["p0.zarr#mode=nczarr,file", "", "p2.nc"],
    p2_location: [4, 5],
    p2_index: 2,
};

/// A group-form master at `path` (a Zarr URL or a netCDF-4 path).
fn cfa_group_master(path: &str, cmode: c_int, m: &GroupForm) {
    const FILL: i64 = -2147483647;
    let d = Def::create(path, cmode);
    d.dim("time", 5);
    d.dim("lat", 3);
    let tas = d.var("tas", NC_FLOAT, &[]);
    d.float_att(tas, "_FillValue", -1.0);
    d.text(tas, "units", "K");
    d.text(tas, "cf_role", "cfa_variable");
    d.text(tas, "cfa_dimensions", "time lat");
    d.text(tas, "cfa_group", "cfa_tas");
    let mut gid = 0;
    ok(unsafe { nc_def_grp(d.ncid, c("cfa_tas").as_ptr(), &mut gid) }, "group");
    let g = Def { ncid: gid };
    let (t, l, nd, b) = (
        g.dim("time", 3),
        g.dim("lat", 1),
        g.dim("ndimensions", 2),
        g.dim("bounds", 2),
    );
    let pmshape = g.var("pmshape", NC_INT, &[nd]);
    let pmdims = g.var("pmdimensions", NC_STRING, &[]);
    let index = g.var("index", NC_INT, &[t, l, nd]);
    let location = g.var("location", NC_INT, &[t, l, nd, b]);
    let ncvar = g.var("ncvar", NC_STRING, &[t, l]);
    let file = g.var("file", NC_STRING, &[t, l]);
    let format = g.var("format", NC_STRING, &[t, l]);
    let shape_v = g.var("shape", NC_INT, &[t, l, nd]);
    d.enddef();
    g.int64s(pmshape, &[3, 1]);
    g.strings(pmdims, &["time, lat"]);
    g.int64s(index, &[0, 0, FILL, FILL, m.p2_index, 0]);
    let [a, e] = m.p2_location;
    g.int64s(location, &[0, 2, 0, 3, FILL, FILL, FILL, FILL, a, e, 0, 3]);
    g.strings(ncvar, &["tas", "", "tas"]);
    g.strings(file, &m.files);
    g.strings(format, &["NCZARR", "", "NETCDF4"]);
    g.int64s(shape_v, &[2, 3, FILL, FILL, e - a, 3]);
    d.close();
}

/// The expanded view of a group-form master: `tas` as in `check_cfa04`,
/// the matrix's group and its dimensions hidden.
fn check_cfa_group(ncid: c_int) {
    let v = varid(ncid, "tas");
    assert_eq!(shape(ncid, v), vec![5, 3]);
    let mut want: Vec<f32> = (0..6).map(|k| k as f32).collect();
    want.extend([-1.0; 6]);
    want.extend([12.0, 13.0, 14.0]);
    assert_eq!(floats(ncid, v, 15).unwrap(), want);
    let mut slab = [0f32; 4];
    ok(
        unsafe { nc_get_vara_float(ncid, v, [1, 1].as_ptr(), [4, 1].as_ptr(), slab.as_mut_ptr()) },
        "slab",
    );
    assert_eq!(slab, [4.0, -1.0, -1.0, 13.0]);
    let mut n = 0;
    assert_eq!(
        unsafe { nc_inq_attlen(ncid, v, c("cfa_group").as_ptr(), &mut n) },
        NC_ENOTATT
    );
    let (mut ngrps, mut ndims, mut gid) = (-1, -1, -1);
    ok(unsafe { nc_inq_grps(ncid, &mut ngrps, std::ptr::null_mut()) }, "grps");
    assert_eq!(ngrps, 0);
    assert_eq!(
        unsafe { nc_inq_grp_ncid(ncid, c("cfa_tas").as_ptr(), &mut gid) },
        -125,
        "NC_ENOGRP"
    );
    ok(unsafe { nc_inq_ndims(ncid, &mut ndims) }, "ndims");
    assert_eq!(ndims, 2);
    let mut a = vec![0u8; 64];
    ok(
        unsafe { nc_get_att_text(ncid, NC_GLOBAL, c("_Aggregation").as_ptr(), a.as_mut_ptr().cast()) },
        "_Aggregation",
    );
    assert!(a.starts_with(b"S3netCDF4\0"), "{}", String::from_utf8_lossy(&a));
}

/// A master shown as stored: `tas` a scalar, the group there.
fn check_shown_raw(ncid: c_int) {
    let v = varid(ncid, "tas");
    assert_eq!(shape(ncid, v), Vec::<usize>::new());
    let mut ngrps = -1;
    ok(unsafe { nc_inq_grps(ncid, &mut ngrps, std::ptr::null_mut()) }, "grps");
    assert_eq!(ngrps, 1);
}

#[test]
fn s3netcdf4_group_form_in_nczarr_and_netcdf4() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    tas_fragment(&zurl(&dir.join("p0.zarr"), ""), 0, 2, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    tas_fragment(dir.join("p2.nc").to_str().unwrap(), NC_NETCDF4, 1, &[12.0, 13.0, 14.0]);
    let m = dir.join("m.zarr");
    cfa_group_master(&zurl(&m, ""), 0, &GOOD_GROUP);
    let ncid = open(&zurl(&m, ""));
    check_cfa_group(ncid);
    ok(nc_close(ncid), "close");
    let ncid = open(&zurl(&m, ",aggregation=raw"));
    check_shown_raw(ncid);
    ok(nc_close(ncid), "close");
    let m4 = dir.join("m4.nc");
    cfa_group_master(m4.to_str().unwrap(), NC_NETCDF4, &GOOD_GROUP);
    let ncid = open(m4.to_str().unwrap());
    check_cfa_group(ncid);
    ok(nc_close(ncid), "close");
}

#[test]
fn hostile_group_forms_show_raw_or_fail_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    tas_fragment(&zurl(&dir.join("p0.zarr"), ""), 0, 2, &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    tas_fragment(dir.join("p2.nc").to_str().unwrap(), NC_NETCDF4, 1, &[12.0, 13.0, 14.0]);
    // Partitions that do not tile (the last one runs past the dimension),
    // an index outside the matrix: shown as stored, in both kinds of master.
    for (k, bad) in [
        GroupForm {
            p2_location: [4, 6],
            ..GOOD_GROUP
        },
        GroupForm {
            p2_index: 3,
            ..GOOD_GROUP
        },
    ]
    .iter()
    .enumerate()
    {
        let m = dir.join(format!("bad{k}.zarr"));
        cfa_group_master(&zurl(&m, ""), 0, bad);
        let ncid = open(&zurl(&m, ""));
        check_shown_raw(ncid);
        ok(nc_close(ncid), "close");
        let m4 = dir.join(format!("bad{k}.nc"));
        cfa_group_master(m4.to_str().unwrap(), NC_NETCDF4, bad);
        // Nothing expanded: the file stays with the system library.
        let ncid = open(m4.to_str().unwrap());
        check_shown_raw(ncid);
        ok(nc_close(ncid), "close");
    }
    // A partition that is the master itself: a cycle, NC_EINVAL on the
    // read that reaches it, the rest still readable.
    let m = dir.join("cycle.zarr");
    let files = ["p0.zarr#mode=nczarr,file", "", "cycle.zarr#mode=nczarr,file"];
    cfa_group_master(&zurl(&m, ""), 0, &GroupForm { files, ..GOOD_GROUP });
    let ncid = open(&zurl(&m, ""));
    let v = varid(ncid, "tas");
    assert_eq!(floats(ncid, v, 15), Err(NC_EINVAL));
    let mut first = [0f32; 3];
    ok(
        unsafe { nc_get_vara_float(ncid, v, [0, 0].as_ptr(), [1, 3].as_ptr(), first.as_mut_ptr()) },
        "first row",
    );
    assert_eq!(first, [0.0, 1.0, 2.0]);
    ok(nc_close(ncid), "close");
}

/// A CF-1.13 `map` + `unique_values` master of `v(time = 5)` of type `ty`
/// in three constant fragments (sizes 2, 2, 1): `own` is the variable's
/// own string length (a char variable), `uv` the table's dimensions after
/// the fragment one and `put` writes its values.
fn unique_master(
    path: &str,
    cmode: c_int,
    ty: c_int,
    own: Option<usize>,
    uv_len: Option<usize>,
    put: impl FnOnce(&Def, c_int),
) {
    let d = Def::create(path, cmode);
    d.dim("time", 5);
    let own: Vec<c_int> = own.iter().map(|&n| d.dim("strlen", n)).collect();
    let f = d.dim("f", 3);
    let j = d.dim("j", 1);
    let v = d.var("v", ty, &own);
    d.text(v, "aggregated_dimensions", "time");
    d.text(v, "aggregated_data", "map: fmap unique_values: uv");
    let mv = d.var("fmap", NC_INT64, &[j, f]);
    let mut uv_dims = vec![f];
    uv_dims.extend(uv_len.map(|n| d.dim("uvlen", n)));
    let uv = d.var("uv", ty, &uv_dims);
    d.enddef();
    d.int64s(mv, &[2, 2, 1]);
    put(&d, uv);
    d.close();
}

#[test]
fn unique_values_of_strings_and_chars() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let s = |x: &str| Some(x.to_string());
    // NC_STRING, in a Zarr and a netCDF-4 master.
    let zm = zurl(&dir.join("s.zarr"), "");
    let nm = dir.join("s.nc").to_str().unwrap().to_string();
    for (path, cmode) in [(&zm, 0), (&nm, NC_NETCDF4)] {
        unique_master(path, cmode, NC_STRING, None, None, |d, uv| {
            d.strings(uv, &["hot", "", "cold"])
        });
        let ncid = open(path);
        let v = varid(ncid, "v");
        assert_eq!(shape(ncid, v), vec![5]);
        assert_eq!(
            get_strings(ncid, v, &[0], &[5]).unwrap(),
            vec![s("hot"), s("hot"), s(""), s(""), s("cold")],
            "{path}"
        );
        assert_eq!(get_strings(ncid, v, &[1], &[3]).unwrap(), vec![s("hot"), s(""), s("")]);
        let mut f = [0f32; 5];
        assert_eq!(unsafe { nc_get_var_float(ncid, v, f.as_mut_ptr()) }, NC_EBADTYPE);
        ok(nc_close(ncid), "close");
    }
    // NC_CHAR, one character per element (no string length of its own).
    let m = zurl(&dir.join("c.zarr"), "");
    unique_master(&m, 0, NC_CHAR, None, None, |d, uv| {
        put_chars(d.ncid, uv, 1, &["a", "b", "c"])
    });
    let ncid = open(&m);
    let v = varid(ncid, "v");
    assert_eq!(get_text(ncid, v, &[0], &[5]).unwrap(), b"aabbc");
    assert_eq!(get_text(ncid, v, &[3], &[2]).unwrap(), b"bc");
    ok(nc_close(ncid), "close");
    // NC_CHAR with its own string length 4: each constant is a string
    // (the table's last dimension, 3 here), shorter ones padded with NULs.
    let m = zurl(&dir.join("cs.zarr"), "");
    unique_master(&m, 0, NC_CHAR, Some(4), Some(3), |d, uv| {
        put_chars(d.ncid, uv, 3, &["ab", "xyz", ""])
    });
    let ncid = open(&m);
    let v = varid(ncid, "v");
    assert_eq!(shape(ncid, v), vec![5, 4]);
    assert_eq!(
        get_text(ncid, v, &[0, 0], &[5, 4]).unwrap(),
        b"ab\0\0ab\0\0xyz\0xyz\0\0\0\0\0"
    );
    assert_eq!(get_text(ncid, v, &[1, 1], &[3, 2]).unwrap(), b"b\0yzyz");
    let mut strided = [b'?'; 10];
    ok(
        unsafe {
            nc_get_vars_text(
                ncid,
                v,
                [0, 0].as_ptr(),
                [5, 2].as_ptr(),
                [1, 2].as_ptr(),
                strided.as_mut_ptr().cast(),
            )
        },
        "vars",
    );
    assert_eq!(&strided, b"a\0a\0xzxz\0\0");
    ok(nc_close(ncid), "close");
}
