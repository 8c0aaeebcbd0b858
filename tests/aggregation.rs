//! CF aggregation through the C API: masters (NCZarr) whose aggregation
//! variables read as the N-d arrays they stand for, assembled from Zarr,
//! netCDF-4 and netCDF-3 fragments; the raw view; constant and missing
//! fragments; packed fragments, fill values, omitted size-1 dimensions;
//! hostile tables, missing fragments, cycles, differing units.
//!
//! The netCDF fragments are written through this library's C API with
//! plain `.nc` paths, which it hands to the system libnetcdf: these tests
//! need it (Debian's libnetcdf19) and fail without it.

use std::ffi::c_int;
use std::path::Path;

use netcdf::ffi::*;

mod common;
use common::def::{Def, c, ok, shape};
use common::nc::*;

const FILL: f32 = -999.0;

fn zurl(p: &Path, extra: &str) -> String {
    format!("file://{}#mode=nczarr,file{extra}", p.display())
}

/// A fragment holding `tas` of shape `shape` (dimension names `names`)
/// with values `vals`; `path` decides the format (a Zarr URL, or a plain
/// `.nc` path for the system libnetcdf with `cmode`).
fn fragment(path: &str, cmode: c_int, names: &[&str], shape: &[usize], vals: &[f32], units: &str) {
    let d = Def::create(path, cmode);
    let dims: Vec<c_int> = names.iter().zip(shape).map(|(n, &l)| d.dim(n, l)).collect();
    let v = d.var("tas", NC_FLOAT, &dims);
    d.text(v, "units", units);
    d.enddef();
    d.floats(v, vals);
    d.close();
}

/// Global value of the 5 x 3 test array.
fn val(t: usize, l: usize) -> f32 {
    (100 * t + l) as f32
}

/// The master of a 5 x 3 `tas` over a 2 x 2 grid of fragments (time sizes
/// [2, 3], lat sizes [1, 2]) whose datasets are `uris`; `map` overrides the
/// fragment sizes.
fn master(path: &Path, uris: &[&str], map: &[i64], data: &str) {
    let d = Def::create(&zurl(path, ""), 0);
    let time = d.dim("time", 5);
    let _lat = d.dim("lat", 3);
    let j = d.dim("j", 2);
    let i = d.dim("i", map.len() / 2);
    let ft = d.dim("f_time", 2);
    let fl = d.dim("f_lat", 2);
    let tv = d.var("time", NC_DOUBLE, &[time]);
    let tas = d.var("tas", NC_FLOAT, &[]);
    d.float_att(tas, "_FillValue", FILL);
    d.text(tas, "units", "K");
    d.text(tas, "standard_name", "air_temperature");
    d.text(tas, "aggregated_dimensions", "time lat");
    d.text(tas, "aggregated_data", data);
    let m = d.var("fragment_map", NC_INT64, &[j, i]);
    let u = d.var("fragment_uris", NC_STRING, &[ft, fl]);
    let id = d.var("fragment_identifiers", NC_STRING, &[]);
    d.enddef();
    ok(
        unsafe { nc_put_var_double(d.ncid, tv, [0.0, 1.0, 2.0, 3.0, 4.0].as_ptr()) },
        "time",
    );
    d.int64s(m, map);
    d.strings(u, uris);
    d.strings(id, &["/tas"]);
    d.close();
}

const CF: &str = "map: fragment_map uris: fragment_uris identifiers: fragment_identifiers";

/// The four Zarr fragments of the 5 x 3 array in `dir`.
fn zarr_fragments(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for (a, (t0, nt)) in [(0usize, 2usize), (2, 3)].into_iter().enumerate() {
        for (b, (l0, nl)) in [(0usize, 1usize), (1, 2)].into_iter().enumerate() {
            let name = format!("f{a}{b}.zarr");
            let vals: Vec<f32> = (0..nt * nl).map(|k| val(t0 + k / nl, l0 + k % nl)).collect();
            fragment(&zurl(&dir.join(&name), ""), 0, &["time", "lat"], &[nt, nl], &vals, "K");
            names.push(name);
        }
    }
    names
}

fn open(url: &str) -> c_int {
    let mut ncid = 0;
    ok(unsafe { nc_open(c(url).as_ptr(), 0, &mut ncid) }, url);
    ncid
}

fn varid(ncid: c_int, name: &str) -> Option<c_int> {
    let mut v = -1;
    (unsafe { nc_inq_varid(ncid, c(name).as_ptr(), &mut v) } == 0).then_some(v)
}

fn get_all(ncid: c_int, v: c_int, n: usize) -> Result<Vec<f32>, c_int> {
    let mut out = vec![0f32; n];
    match unsafe { nc_get_var_float(ncid, v, out.as_mut_ptr()) } {
        0 => Ok(out),
        e => Err(e),
    }
}

fn att_text(ncid: c_int, v: c_int, name: &str) -> Option<String> {
    let mut n = 0;
    if unsafe { nc_inq_attlen(ncid, v, c(name).as_ptr(), &mut n) } != 0 {
        return None;
    }
    let mut b = vec![0u8; n + 1];
    ok(
        unsafe { nc_get_att_text(ncid, v, c(name).as_ptr(), b.as_mut_ptr().cast()) },
        name,
    );
    b.truncate(n);
    Some(String::from_utf8(b).unwrap())
}

fn counts(ncid: c_int) -> (c_int, c_int, c_int) {
    let (mut nd, mut nv, mut na) = (0, 0, 0);
    ok(
        unsafe { nc_inq(ncid, &mut nd, &mut nv, &mut na, std::ptr::null_mut()) },
        "inq",
    );
    (nd, nv, na)
}

#[test]
fn cf_1_13_with_zarr_fragments_in_a_2d_grid() {
    let tmp = tempfile::tempdir().unwrap();
    let names = zarr_fragments(tmp.path());
    // Two plain relative paths, one relative URL, one absolute file: URL.
    let abs = format!("file://{}", tmp.path().join(&names[3]).display());
    let uris = [
        names[0].as_str(),
        "f01.zarr#mode=nczarr,file",
        names[2].as_str(),
        abs.as_str(),
    ];
    let m = tmp.path().join("master.zarr");
    master(&m, &uris, &[2, 3, 1, 2], CF);
    let ncid = open(&zurl(&m, ""));
    // time and lat stay; the table variables and their dimensions are hidden.
    assert_eq!(counts(ncid), (2, 2, 0));
    assert_eq!(varid(ncid, "fragment_map"), None);
    let tas = varid(ncid, "tas").unwrap();
    assert_eq!(shape(ncid, tas), vec![5, 3]);
    assert_eq!(att_text(ncid, tas, "aggregated_data"), None);
    assert_eq!(att_text(ncid, tas, "units").as_deref(), Some("K"));
    assert_eq!(att_text(ncid, NC_GLOBAL, "_Aggregation").as_deref(), Some("CF-1.13"));
    let mut ty = 0;
    ok(unsafe { nc_inq_vartype(ncid, tas, &mut ty) }, "type");
    assert_eq!(ty, NC_FLOAT);
    let want: Vec<f32> = (0..15).map(|k| val(k / 3, k % 3)).collect();
    assert_eq!(get_all(ncid, tas, 15).unwrap(), want);
    // A slab across all four fragments.
    let mut out = vec![0f32; 6];
    ok(
        unsafe { nc_get_vara_float(ncid, tas, [1, 0].as_ptr(), [3, 2].as_ptr(), out.as_mut_ptr()) },
        "vara",
    );
    assert_eq!(
        out,
        vec![val(1, 0), val(1, 1), val(2, 0), val(2, 1), val(3, 0), val(3, 1)]
    );
    // Strided, as int.
    let mut outi = vec![0i32; 6];
    ok(
        unsafe {
            nc_get_vars_int(
                ncid,
                tas,
                [0, 0].as_ptr(),
                [3, 2].as_ptr(),
                [2, 2].as_ptr(),
                outi.as_mut_ptr(),
            )
        },
        "vars",
    );
    assert_eq!(outi, vec![0, 2, 200, 202, 400, 402]);
    // One value; a mapped (transposed) read.
    let mut one = 0f64;
    ok(
        unsafe { nc_get_var1_double(ncid, tas, [4, 2].as_ptr(), &mut one) },
        "var1",
    );
    assert_eq!(one, 402.0);
    let mut tr = vec![0f32; 15];
    ok(
        unsafe {
            nc_get_varm_float(
                ncid,
                tas,
                [0, 0].as_ptr(),
                [5, 3].as_ptr(),
                [1, 1].as_ptr(),
                [1, 5].as_ptr(),
                tr.as_mut_ptr(),
            )
        },
        "varm",
    );
    assert_eq!(tr, (0..15).map(|k| val(k % 5, k / 5)).collect::<Vec<_>>());
    // Out of range for the memory type: every value written, NC_ERANGE.
    let mut b = vec![0i8; 15];
    assert_eq!(unsafe { nc_get_var_schar(ncid, tas, b.as_mut_ptr()) }, NC_ERANGE);
    assert_eq!(b[1], 1);
    // Read-only.
    assert_eq!(unsafe { nc_put_var1_float(ncid, tas, [0, 0].as_ptr(), &1.0) }, NC_EPERM);
    ok(nc_close(ncid), "close");

    // The raw view: exactly what is stored.
    {
        let ncid = open(&zurl(&m, ",aggregation=raw"));
        assert_eq!(counts(ncid), (6, 5, 0));
        let tas = varid(ncid, "tas").unwrap();
        assert_eq!(shape(ncid, tas), Vec::<usize>::new());
        assert!(att_text(ncid, tas, "aggregated_data").is_some());
        assert_eq!(att_text(ncid, NC_GLOBAL, "_Aggregation"), None);
        ok(nc_close(ncid), "close");
    }
    // Opened for writing: shown as stored too.
    let mut ncid = 0;
    ok(
        unsafe { nc_open(c(&zurl(&m, "")).as_ptr(), NC_WRITE, &mut ncid) },
        "open w",
    );
    assert_eq!(counts(ncid).1, 5);
    ok(nc_close(ncid), "close");
    let mut bad = 0;
    assert_eq!(
        unsafe { nc_open(c(&zurl(&m, ",aggregation=rawx")).as_ptr(), 0, &mut bad) },
        -74,
        "NC_EURL for a bad value"
    );
}

#[test]
fn netcdf_fragments_packed_filled_and_with_an_omitted_dimension() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // tas(time=6, lat=1) from three fragments of two times each.
    // 0: netCDF-4, full shape.
    fragment(
        dir.join("a.nc").to_str().unwrap(),
        NC_NETCDF4,
        &["time", "lat"],
        &[2, 1],
        &[1.5, 2.5],
        "K",
    );
    // 1: netCDF-3, the size-1 lat omitted, packed shorts (x * 0.5 + 10).
    {
        let d = Def::create(dir.join("b.nc").to_str().unwrap(), 0);
        let t = d.dim("time", 2);
        let v = d.var("tas", NC_SHORT, &[t]);
        d.float_att(v, "scale_factor", 0.5);
        d.float_att(v, "add_offset", 10.0);
        d.enddef();
        ok(unsafe { nc_put_var_short(d.ncid, v, [4i16, -6].as_ptr()) }, "short");
        d.close();
    }
    // 2: Zarr with its own fill value -1 (and one value equal to it).
    {
        let d = Def::create(&zurl(&dir.join("c.zarr"), ""), 0);
        let t = d.dim("time", 2);
        let l = d.dim("lat", 1);
        let v = d.var("tas", NC_FLOAT, &[t, l]);
        d.float_att(v, "_FillValue", -1.0);
        d.enddef();
        d.floats(v, &[-1.0, 7.0]);
        d.close();
    }
    let m = dir.join("master.zarr");
    {
        let d = Def::create(&zurl(&m, ""), 0);
        let _time = d.dim("time", 6);
        let lat = d.dim("lat", 1);
        let j = d.dim("j", 2);
        let i = d.dim("i", 3);
        let f = d.dim("f", 3);
        let one = d.dim("one", 1);
        let tas = d.var("tas", NC_FLOAT, &[]);
        d.float_att(tas, "_FillValue", FILL);
        d.text(tas, "aggregated_dimensions", "time lat");
        d.text(tas, "aggregated_data", "map: m uris: u identifiers: id");
        let mv = d.var("m", NC_INT64, &[j, i]);
        let uv = d.var("u", NC_STRING, &[f, one]);
        let iv = d.var("id", NC_STRING, &[f, one]);
        // Keep `lat` used by something else: it must stay.
        let _ = lat;
        d.enddef();
        // Row 1 (lat) has one fragment; the rest is missing (fill).
        d.int64s(mv, &[2, 2, 2, 1, -9223372036854775806, -9223372036854775806]);
        d.strings(uv, &["a.nc", "b.nc", "c.zarr"]);
        d.strings(iv, &["tas", "/tas", "tas"]);
        d.close();
    }
    let ncid = open(&zurl(&m, ""));
    let tas = varid(ncid, "tas").unwrap();
    assert_eq!(shape(ncid, tas), vec![6, 1]);
    assert_eq!(get_all(ncid, tas, 6).unwrap(), vec![1.5, 2.5, 12.0, 7.0, FILL, 7.0]);
    // A read of one fragment only, as double.
    let mut d = [0f64; 2];
    ok(
        unsafe { nc_get_vara_double(ncid, tas, [2, 0].as_ptr(), [2, 1].as_ptr(), d.as_mut_ptr()) },
        "vara",
    );
    assert_eq!(d, [12.0, 7.0]);
    ok(nc_close(ncid), "close");
}

/// A 1-D master `tas(time=4)` with `aggregated_data` `data` and the given
/// table writer.
fn master_1d(path: &Path, data: &str, tables: impl FnOnce(&Def, c_int)) {
    let d = Def::create(&zurl(path, ""), 0);
    let time = d.dim("time", 4);
    let tas = d.var("tas", NC_FLOAT, &[]);
    d.float_att(tas, "_FillValue", FILL);
    d.text(tas, "aggregated_dimensions", "time");
    d.text(tas, "aggregated_data", data);
    let tv = d.var("time", NC_INT, &[time]);
    tables(&d, tv);
    d.close();
}

#[test]
fn unique_values_cfa_and_draft_encodings() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // unique_values: [7.5] then a missing one.
    let m = dir.join("uv.zarr");
    master_1d(&m, "map: m unique_values: v", |d, _| {
        let f = d.dim("f", 2);
        let v = d.var("v", NC_FLOAT, &[f]);
        d.float_att(v, "_FillValue", 1e20);
        let m = d.var("m", NC_INT, &[f]);
        d.enddef();
        d.floats(v, &[7.5, 1e20]);
        ok(unsafe { nc_put_var_int(d.ncid, m, [1, 3].as_ptr()) }, "m");
    });
    let ncid = open(&zurl(&m, ""));
    let tas = varid(ncid, "tas").unwrap();
    assert_eq!(get_all(ncid, tas, 4).unwrap(), vec![7.5, FILL, FILL, FILL]);
    ok(nc_close(ncid), "close");

    // CFA-0.6.2: char-array file names with substitutions, a missing
    // fragment (no file, no address).
    fragment(&zurl(&dir.join("f0.zarr"), ""), 0, &["t"], &[2], &[3.0, 4.0], "K");
    let m = dir.join("cfa.zarr");
    master_1d(&m, "location: loc file: file format: fmt address: addr", |d, _| {
        let i = d.dim("i", 2);
        let one = d.dim("j", 1);
        let n = d.dim("n", 16);
        let loc = d.var("loc", NC_INT, &[one, i]);
        let file = d.var("file", NC_CHAR, &[i, n]);
        d.text(file, "substitutions", "${d}: f0");
        let addr = d.var("addr", NC_CHAR, &[i, n]);
        let fmt = d.var("fmt", NC_CHAR, &[n]);
        d.enddef();
        ok(unsafe { nc_put_var_int(d.ncid, loc, [2, 2].as_ptr()) }, "loc");
        let mut f = [0u8; 32];
        f[..9].copy_from_slice(b"${d}.zarr");
        ok(unsafe { nc_put_var_text(d.ncid, file, f.as_ptr().cast()) }, "file");
        let mut a = [0u8; 32];
        a[..3].copy_from_slice(b"tas");
        ok(unsafe { nc_put_var_text(d.ncid, addr, a.as_ptr().cast()) }, "addr");
        let mut fm = [0u8; 16];
        fm[..2].copy_from_slice(b"nc");
        ok(unsafe { nc_put_var_text(d.ncid, fmt, fm.as_ptr().cast()) }, "fmt");
    });
    let ncid = open(&zurl(&m, ""));
    let tas = varid(ncid, "tas").unwrap();
    assert_eq!(get_all(ncid, tas, 4).unwrap(), vec![3.0, 4.0, FILL, FILL]);
    assert_eq!(att_text(ncid, NC_GLOBAL, "_Aggregation").as_deref(), Some("CFA-0.6.2"));
    // The format variable is not a table of the view: it stays.
    assert!(varid(ncid, "fmt").is_some() && varid(ncid, "file").is_none());
    ok(nc_close(ncid), "close");

    // The 2025 draft: map / location / identifier.
    fragment(&zurl(&dir.join("g1.zarr"), ""), 0, &["t"], &[1], &[9.0], "K");
    let m = dir.join("draft.zarr");
    master_1d(&m, "map: m location: u identifier: id", |d, _| {
        let f = d.dim("f", 2);
        let m = d.var("m", NC_INT, &[f]);
        let u = d.var("u", NC_STRING, &[f]);
        let id = d.var("id", NC_STRING, &[]);
        d.enddef();
        ok(unsafe { nc_put_var_int(d.ncid, m, [3, 1].as_ptr()) }, "m");
        d.strings(u, &["f0.zarr", "g1.zarr"]);
        d.strings(id, &["tas"]);
    });
    // f0 has 2 values, the map says 3: a shape error at read time.
    let ncid = open(&zurl(&m, ""));
    let tas = varid(ncid, "tas").unwrap();
    assert_eq!(
        att_text(ncid, NC_GLOBAL, "_Aggregation").as_deref(),
        Some("CF-draft-2025")
    );
    assert_eq!(get_all(ncid, tas, 4), Err(-57), "NC_EEDGE: fragment shape differs");
    let mut v = 0f32;
    ok(
        unsafe { nc_get_var1_float(ncid, tas, [3].as_ptr(), &mut v) },
        "var1 in g1",
    );
    assert_eq!(v, 9.0);
    ok(nc_close(ncid), "close");
}

#[test]
fn hostile_masters_show_raw_or_fail_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let names = zarr_fragments(dir);
    let uris: Vec<&str> = names.iter().map(String::as_str).collect();
    // Sizes that do not sum to the dimension, negative ones, huge ones: shown raw.
    for (k, map) in [[2i64, 2, 1, 2], [6, -1, 1, 2], [i64::MAX, 2, 1, 2]].iter().enumerate() {
        let m = dir.join(format!("bad{k}.zarr"));
        master(&m, &uris, map, CF);
        let ncid = open(&zurl(&m, ""));
        let tas = varid(ncid, "tas").unwrap();
        assert_eq!(shape(ncid, tas), Vec::<usize>::new(), "map {map:?}");
        assert!(varid(ncid, "fragment_map").is_some());
        assert_eq!(att_text(ncid, NC_GLOBAL, "_Aggregation"), None);
        ok(nc_close(ncid), "close");
    }
    // A fragment that does not exist: NC_ENOOBJECT, as nc_open of a missing
    // Zarr dataset answers.
    let m = dir.join("missing.zarr");
    master(&m, &[uris[0], "nothere.nc", uris[2], uris[3]], &[2, 3, 1, 2], CF);
    let ncid = open(&zurl(&m, ""));
    let tas = varid(ncid, "tas").unwrap();
    assert_eq!(get_all(ncid, tas, 15), Err(NC_ENOOBJECT));
    // A request that does not touch it is served.
    let mut v = 0f32;
    ok(unsafe { nc_get_var1_float(ncid, tas, [0, 0].as_ptr(), &mut v) }, "var1");
    assert_eq!(v, 0.0);
    ok(nc_close(ncid), "close");
    // A master that is its own fragment: an error, not a hang.
    let m = dir.join("cycle.zarr");
    master_1d(&m, "map: m uris: u identifiers: id", |d, _| {
        let f = d.dim("f", 1);
        let mv = d.var("m", NC_INT, &[f]);
        let u = d.var("u", NC_STRING, &[f]);
        let id = d.var("id", NC_STRING, &[f]);
        d.enddef();
        ok(unsafe { nc_put_var_int(d.ncid, mv, [4].as_ptr()) }, "m");
        d.strings(u, &["cycle.zarr"]);
        d.strings(id, &["tas"]);
    });
    let ncid = open(&zurl(&m, ""));
    let tas = varid(ncid, "tas").unwrap();
    assert_eq!(shape(ncid, tas), vec![4]);
    assert_eq!(get_all(ncid, tas, 4), Err(NC_EINVAL));
    ok(nc_close(ncid), "close");
    // Units that no affine rule links: NC_EINVAL.
    fragment(
        &zurl(&dir.join("degc.zarr"), ""),
        0,
        &["time", "lat"],
        &[2, 1],
        &[0.0, 1.0],
        "m s-1",
    );
    let m = dir.join("units.zarr");
    master(&m, &["degc.zarr", uris[1], uris[2], uris[3]], &[2, 3, 1, 2], CF);
    let ncid = open(&zurl(&m, ""));
    let tas = varid(ncid, "tas").unwrap();
    assert_eq!(get_all(ncid, tas, 15), Err(NC_EINVAL));
    ok(nc_close(ncid), "close");
    let _ = (NC_CHAR, NC_INT64);
}
