//! Writing a CF aggregation through the C API (`nc_def_var_aggregation`
//! of include/netcdf_zarr.h, and the special attributes): the fragment
//! grid, the fragments and the master's tables made at nc_enddef, the
//! variable used as the N-d variable while the writing handle is open,
//! and the result read back through the read side; unwritten parts read
//! as fill; the error codes.

use std::ffi::c_int;
use std::path::Path;

use netcdf::ffi::*;

mod common;
use common::def::{Def, c, ok, shape};
use common::nc::*;

const FILL: f32 = -999.0;
const NC_ENOTINDEFINE: c_int = -38;
const NC_ELATEDEF: c_int = -123;

fn zurl(p: &Path, extra: &str) -> String {
    format!("file://{}#mode=nczarr,file{extra}", p.display())
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

fn get_floats(ncid: c_int, v: c_int, start: &[usize], count: &[usize]) -> Vec<f32> {
    let mut out = vec![0f32; count.iter().product()];
    ok(
        unsafe { nc_get_vara_float(ncid, v, start.as_ptr(), count.as_ptr(), out.as_mut_ptr()) },
        "get_vara_float",
    );
    out
}

/// The value written at (t, l) of the 7 x 5 test variable.
fn val(t: usize, l: usize) -> f32 {
    (10 * t + l) as f32 + 0.5
}

/// A master `tas(time = 7, lat = 5)` with a `time` coordinate, defined and
/// asked to be aggregated in fragments of 3 x 2 (a 3 x 3 grid with smaller
/// last fragments). Returns the dataset and the ids of tas and time.
fn define_master(url: &str) -> (Def, c_int, c_int) {
    let d = Def::create(url, 0);
    let time = d.dim("time", 7);
    let lat = d.dim("lat", 5);
    let tv = d.var("time", NC_DOUBLE, &[time]);
    d.text(tv, "units", "days since 2000-01-01");
    d.text(tv, "standard_name", "time");
    let tas = d.var("tas", NC_FLOAT, &[time, lat]);
    d.float_att(tas, "_FillValue", FILL);
    d.text(tas, "units", "K");
    ok(
        unsafe { nc_def_var_chunking(d.ncid, tas, NC_CHUNKED, [1usize, 5].as_ptr()) },
        "chunking",
    );
    ok(
        unsafe { nc_def_var_aggregation(d.ncid, tas, [3usize, 2].as_ptr(), 0, std::ptr::null()) },
        "def_var_aggregation",
    );
    (d, tas, tv)
}

#[test]
fn a_written_aggregation_reads_back_through_its_fragments() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("m.zarr");
    let url = zurl(&path, "");
    let (d, tas, tv) = define_master(&url);
    d.enddef();
    // Every fragment exists from nc_enddef on.
    let mut frags: Vec<String> = std::fs::read_dir(tmp.path().join("m.zarr_tas"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    frags.sort();
    let want: Vec<String> = (0..3)
        .flat_map(|a| (0..3).map(move |b| format!("{a}_{b}.zarr")))
        .collect();
    assert_eq!(frags, want);
    // While open, tas is the 7 x 5 variable.
    assert_eq!(shape(d.ncid, tas), vec![7, 5]);
    // Rows 1..6 (across the three time fragments), all latitudes, as doubles.
    let rows: Vec<f64> = (1..6).flat_map(|t| (0..5).map(move |l| f64::from(val(t, l)))).collect();
    ok(
        unsafe { nc_put_vara_double(d.ncid, tas, [1usize, 0].as_ptr(), [5usize, 5].as_ptr(), rows.as_ptr()) },
        "put_vara_double",
    );
    // One value as a short, and a strided write in row 6 (l = 0, 2, 4).
    ok(
        unsafe { nc_put_var1_short(d.ncid, tas, [0usize, 4].as_ptr(), &7i16) },
        "put_var1_short",
    );
    let strided = [val(6, 0), val(6, 2), val(6, 4)];
    ok(
        unsafe {
            nc_put_vars_float(
                d.ncid,
                tas,
                [6usize, 0].as_ptr(),
                [1usize, 3].as_ptr(),
                [1isize, 2].as_ptr(),
                strided.as_ptr(),
            )
        },
        "put_vars_float",
    );
    // A value out of the float range: written as netCDF does, NC_ERANGE.
    assert_eq!(
        unsafe { nc_put_var1_double(d.ncid, tas, [0usize, 0].as_ptr(), &1e300) },
        NC_ERANGE
    );
    ok(
        unsafe { nc_put_var1_float(d.ncid, tas, [0usize, 0].as_ptr(), &FILL) },
        "put_var1_float",
    );
    let times: Vec<f64> = (0..7).map(|t| f64::from(t) * 0.5).collect();
    ok(unsafe { nc_put_var_double(d.ncid, tv, times.as_ptr()) }, "put time");
    let expect = |t: usize, l: usize| -> f32 {
        match (t, l) {
            (0, 4) => 7.0,
            (0, _) => FILL,
            (6, 1) | (6, 3) => FILL,
            _ => val(t, l),
        }
    };
    let all: Vec<f32> = (0..7).flat_map(|t| (0..5).map(move |l| expect(t, l))).collect();
    // Read through the writing handle (as ints: rounding is C's).
    assert_eq!(get_floats(d.ncid, tas, &[0, 0], &[7, 5]), all);
    let mut ints = vec![0i32; 4];
    ok(
        unsafe {
            nc_get_vara_int(
                d.ncid,
                tas,
                [2usize, 1].as_ptr(),
                [2usize, 2].as_ptr(),
                ints.as_mut_ptr(),
            )
        },
        "get_vara_int",
    );
    assert_eq!(ints, vec![21, 22, 31, 32]);
    d.close();

    // Opened again: the read side assembles it from the fragments.
    let ncid = open(&url);
    let v = varid(ncid, "tas").unwrap();
    assert_eq!(shape(ncid, v), vec![7, 5]);
    assert_eq!(att_text(ncid, NC_GLOBAL, "_Aggregation").as_deref(), Some("CF-1.13"));
    assert_eq!(att_text(ncid, v, "units").as_deref(), Some("K"));
    assert_eq!(att_text(ncid, v, "aggregated_data"), None);
    assert_eq!(get_floats(ncid, v, &[0, 0], &[7, 5]), all);
    assert_eq!(
        get_floats(ncid, v, &[5, 3], &[2, 2]),
        vec![val(5, 3), val(5, 4), FILL, val(6, 4)]
    );
    assert_eq!(varid(ncid, "tas_fragment_map"), None);
    ok(nc_close(ncid), "close");

    // The stored form: a scalar aggregation variable and its tables.
    let raw = open(&zurl(&path, ",aggregation=raw"));
    let v = varid(raw, "tas").unwrap();
    assert!(shape(raw, v).is_empty());
    assert_eq!(att_text(raw, v, "aggregated_dimensions").as_deref(), Some("time lat"));
    assert_eq!(
        att_text(raw, v, "aggregated_data").as_deref(),
        Some("map: tas_fragment_map uris: tas_fragment_uris identifiers: tas_fragment_identifiers")
    );
    let m = varid(raw, "tas_fragment_map").unwrap();
    assert_eq!(shape(raw, m), vec![2, 3]);
    let mut map = vec![0i32; 6];
    ok(unsafe { nc_get_var_int(raw, m, map.as_mut_ptr()) }, "map");
    assert_eq!(map, vec![3, 3, 1, 2, 2, 1]);
    // The text tables are strings, one per fragment.
    let strings = |var: &str| -> Vec<String> {
        let u = varid(raw, var).unwrap();
        assert_eq!(shape(raw, u), vec![3, 3]);
        let mut p = vec![std::ptr::null_mut(); 9];
        ok(unsafe { nc_get_var_string(raw, u, p.as_mut_ptr()) }, var);
        let s = p
            .iter()
            .map(|&x| unsafe { std::ffi::CStr::from_ptr(x) }.to_str().unwrap().to_string())
            .collect();
        ok(unsafe { nc_free_string(9, p.as_mut_ptr()) }, "free");
        s
    };
    assert_eq!(strings("tas_fragment_uris")[7], "m.zarr_tas/2_1.zarr");
    assert_eq!(strings("tas_fragment_identifiers"), vec!["tas"; 9]);
    ok(nc_close(raw), "close raw");

    // A fragment is a dataset of its own: its slice, units, fill value and
    // its slice of the time coordinate.
    let f = open(&zurl(&tmp.path().join("m.zarr_tas/2_1.zarr"), ""));
    let fv = varid(f, "tas").unwrap();
    assert_eq!(shape(f, fv), vec![1, 2]);
    assert_eq!(att_text(f, fv, "units").as_deref(), Some("K"));
    assert_eq!(get_floats(f, fv, &[0, 0], &[1, 2]), vec![val(6, 2), FILL]);
    let ft = varid(f, "time").unwrap();
    let mut t = [0f64; 1];
    ok(unsafe { nc_get_var_double(f, ft, t.as_mut_ptr()) }, "fragment time");
    assert_eq!(t, [3.0]);
    ok(nc_close(f), "close fragment");
}

#[test]
fn the_special_attributes_ask_for_the_splitting_algorithm() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("a.zarr");
    let url = zurl(&path, "");
    let d = Def::create(&url, 0);
    let time = d.dim("time", 12);
    let lat = d.dim("lat", 4);
    let lon = d.dim("lon", 8);
    let tv = d.var("time", NC_DOUBLE, &[time]);
    d.text(tv, "units", "hours since 1970-01-01");
    let v = d.var("pr", NC_DOUBLE, &[time, lat, lon]);
    ok(
        unsafe { nc_def_var_chunking(d.ncid, v, NC_CHUNKED, [1usize, 2, 4].as_ptr()) },
        "chunking",
    );
    // 12 x 4 x 8 doubles (3072 B) in fragments of at most 800 B, time
    // found by its units; the grid is checked below from the map.
    let bytes = 800i64;
    ok(
        unsafe { nc_put_att_longlong(d.ncid, v, c("_Aggregation_FragmentBytes").as_ptr(), NC_INT64, 1, &bytes) },
        "bytes att",
    );
    d.text(v, "_Aggregation_URI", "parts/{var}-{index}.zarr");
    d.enddef();
    // The request attributes are consumed.
    let mut n = 0;
    assert_eq!(
        unsafe { nc_inq_attlen(d.ncid, v, c("_Aggregation_FragmentBytes").as_ptr(), &mut n) },
        NC_ENOTATT
    );
    let vals: Vec<f64> = (0..12 * 4 * 8).map(f64::from).collect();
    ok(unsafe { nc_put_var_double(d.ncid, v, vals.as_ptr()) }, "put all");
    d.close();
    let raw = open(&zurl(&path, ",aggregation=raw"));
    let m = varid(raw, "pr_fragment_map").unwrap();
    let sh = shape(raw, m);
    let mut map = vec![0i32; sh.iter().product()];
    ok(unsafe { nc_get_var_int(raw, m, map.as_mut_ptr()) }, "map");
    ok(nc_close(raw), "close raw");
    // Field ops 1 <= linear 1: lon splits (12 x 4 x 4, 1536 B); 2 > 1: time
    // (6 x 4 x 4, 768 B) fits.
    assert_eq!(sh, vec![3, 2]);
    let fill = i32::MIN + 1;
    assert_eq!(map, vec![6, 6, 4, fill, 4, 4]);
    assert!(tmp.path().join("parts/pr-1_0_1.zarr").is_dir());
    let ncid = open(&url);
    let v = varid(ncid, "pr").unwrap();
    let mut back = vec![0f64; vals.len()];
    ok(unsafe { nc_get_var_double(ncid, v, back.as_mut_ptr()) }, "get all");
    assert_eq!(back, vals);
    ok(nc_close(ncid), "close");
}

#[test]
fn asking_for_aggregation_answers_netcdf_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let url = zurl(&tmp.path().join("e.zarr"), "");
    let d = Def::create(&url, 0);
    let x = d.dim("x", 4);
    let t = d.dim("t", NC_UNLIMITED);
    let v = d.var("v", NC_FLOAT, &[x]);
    let s = d.var("s", NC_FLOAT, &[]);
    let txt = d.var("txt", NC_STRING, &[x]);
    let u = d.var("u", NC_FLOAT, &[t, x]);
    let null: *const usize = std::ptr::null();
    let none: *const std::ffi::c_char = std::ptr::null();
    let agg = |var: c_int, shape: *const usize| unsafe { nc_def_var_aggregation(d.ncid, var, shape, 0, none) };
    assert_eq!(agg(99, null), NC_ENOTVAR);
    assert_eq!(unsafe { nc_def_var_aggregation(-5, v, null, 0, none) }, -33);
    assert_eq!(agg(s, null), NC_EINVAL);
    assert_eq!(agg(txt, null), NC_EINVAL);
    assert_eq!(agg(v, [0usize].as_ptr()), NC_EINVAL);
    // Along an unlimited dimension: built (appending, below).
    ok(agg(u, null), "unlimited");
    assert_eq!(
        unsafe { nc_def_var_aggregation(d.ncid, v, null, 0, c(" ").as_ptr()) },
        NC_EINVAL
    );
    // A template that does not tell the fragments apart fails at nc_enddef.
    ok(
        unsafe { nc_def_var_aggregation(d.ncid, v, [1usize].as_ptr(), 0, c("same.zarr").as_ptr()) },
        "template",
    );
    assert_eq!(nc_enddef(d.ncid), NC_EINVAL);
    ok(
        unsafe { nc_def_var_aggregation(d.ncid, v, [2usize].as_ptr(), 0, none) },
        "again",
    );
    d.enddef();
    assert_eq!(agg(v, null), NC_ENOTINDEFINE);
    ok(nc_redef(d.ncid), "redef");
    assert_eq!(agg(v, null), NC_ELATEDEF);
    d.close();
    let ro = open(&url);
    assert_eq!(unsafe { nc_def_var_aggregation(ro, 0, null, 0, none) }, NC_EPERM);
    ok(nc_close(ro), "close");
}

/// The venv's python (scripts/install-deps.sh), which has cfdm and zarr.
/// cfdm's reading of variable `name` of the master at `path`
/// (tests/interop/cfdm_read_written.py): its `shape` line, its values
/// (None: masked) and its `coordinate` lines.
fn cfdm_read(path: &Path, name: &str) -> (String, Vec<Option<f32>>, Vec<String>) {
    let text = common::run_cfdm("cfdm_read_written.py", &[path.as_os_str(), std::ffi::OsStr::new(name)]);
    let mut lines = text.lines();
    let shape_line = lines.next().unwrap().to_string();
    let mut got: Vec<Option<f32>> = Vec::new();
    let mut coords = Vec::new();
    for l in lines {
        if let Some(c) = l.strip_prefix("coordinate ") {
            coords.push(c.to_string());
        } else {
            got.push((l != "--").then(|| l.parse::<f64>().unwrap() as f32));
        }
    }
    (shape_line, got, coords)
}

#[test]
fn cfdm_reads_what_was_written_into_nczarr_fragments() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("m.zarr");
    let (d, tas, tv) = define_master(&zurl(&path, ""));
    ok(
        unsafe { nc_put_att_text(d.ncid, NC_GLOBAL, c("Conventions").as_ptr(), 7, c("CF-1.13").as_ptr()) },
        "Conventions",
    );
    d.text(tas, "standard_name", "air_temperature");
    // cfdm reads a Zarr v2 master's dimensions from its arrays'
    // `_ARRAY_DIMENSIONS` only (not NCZarr's group metadata): a dimension
    // no array of the master uses is unknown to it, so lat has a coordinate.
    let lv = d.var("lat", NC_DOUBLE, &[1]);
    d.text(lv, "units", "degrees_north");
    d.enddef();
    ok(
        unsafe { nc_put_var_double(d.ncid, lv, [-60.0f64, -30.0, 0.0, 30.0, 60.0].as_ptr()) },
        "put lat",
    );
    let times: Vec<f64> = (0..7).map(f64::from).collect();
    ok(unsafe { nc_put_var_double(d.ncid, tv, times.as_ptr()) }, "put time");
    // Everything but the last row, which stays fill.
    let vals: Vec<f32> = (0..6).flat_map(|t| (0..5).map(move |l| val(t, l))).collect();
    ok(
        unsafe { nc_put_vara_float(d.ncid, tas, [0usize, 0].as_ptr(), [6usize, 5].as_ptr(), vals.as_ptr()) },
        "put_vara_float",
    );
    d.close();
    let (shape_line, got, coords) = cfdm_read(&path, "tas");
    assert_eq!(shape_line, "shape 7 5");
    let want: Vec<Option<f32>> = (0..7)
        .flat_map(|t| (0..5).map(move |l| (t < 6).then(|| val(t, l))))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        coords,
        vec![
            "time 0.0 1.0 2.0 3.0 4.0 5.0 6.0".to_string(),
            "lat -60.0 -30.0 0.0 30.0 60.0".to_string()
        ]
    );
}

#[test]
fn fragments_take_the_masters_format() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, mode, frag) in [
        ("v3.zarr", "nczarr,file,v3", "v3.zarr_tas/1_2.zarr/zarr.json"),
        ("z.zip", "nczarr,zip", "z.zip_tas/1_2.zarr.zip"),
        ("x.zarr", "zarr,file", "x.zarr_tas/1_2.zarr/tas/.zarray"),
    ] {
        let url = format!("file://{}#mode={mode}", tmp.path().join(name).display());
        let (d, tas, _) = define_master(&url);
        // Pure Zarr knows a dimension only from the arrays along it: the
        // master needs one along lat (as cfdm does, see below).
        d.var("lat", NC_DOUBLE, &[1]);
        d.enddef();
        let vals: Vec<f32> = (0..7).flat_map(|t| (0..5).map(move |l| val(t, l))).collect();
        ok(unsafe { nc_put_var_float(d.ncid, tas, vals.as_ptr()) }, "put");
        d.close();
        assert!(tmp.path().join(frag).exists(), "{mode}: {frag}");
        let ncid = open(&url);
        let v = varid(ncid, "tas").unwrap();
        assert_eq!(shape(ncid, v), vec![7, 5], "{mode}");
        assert_eq!(get_floats(ncid, v, &[0, 0], &[7, 5]), vals, "{mode}");
        ok(nc_close(ncid), "close");
    }
}

/// The fragment map of variable `var` of the master at `path` (raw view):
/// its shape and values.
fn raw_map(path: &Path, var: &str) -> (Vec<usize>, Vec<i32>) {
    let raw = open(&zurl(path, ",aggregation=raw"));
    let m = varid(raw, &format!("{var}_fragment_map")).unwrap();
    let sh = shape(raw, m);
    let mut map = vec![0i32; sh.iter().product()];
    ok(unsafe { nc_get_var_int(raw, m, map.as_mut_ptr()) }, "map");
    ok(nc_close(raw), "close raw");
    (sh, map)
}

/// A master `tas(time = unlimited, lat = 5)` with coordinates time and lat,
/// asked to be aggregated in fragments of 3 x 2.
fn define_growing_master(url: &str) -> (Def, c_int, c_int, c_int) {
    let d = Def::create(url, 0);
    ok(
        unsafe { nc_put_att_text(d.ncid, NC_GLOBAL, c("Conventions").as_ptr(), 7, c("CF-1.13").as_ptr()) },
        "Conventions",
    );
    let time = d.dim("time", NC_UNLIMITED);
    let lat = d.dim("lat", 5);
    let tv = d.var("time", NC_DOUBLE, &[time]);
    d.text(tv, "units", "days since 2000-01-01");
    d.text(tv, "standard_name", "time");
    let lv = d.var("lat", NC_DOUBLE, &[lat]);
    d.text(lv, "units", "degrees_north");
    let tas = d.var("tas", NC_FLOAT, &[time, lat]);
    d.float_att(tas, "_FillValue", FILL);
    d.text(tas, "standard_name", "air_temperature");
    d.text(tas, "units", "K");
    ok(
        unsafe { nc_def_var_chunking(d.ncid, tas, NC_CHUNKED, [1usize, 5].as_ptr()) },
        "chunking",
    );
    ok(
        unsafe { nc_def_var_aggregation(d.ncid, tas, [3usize, 2].as_ptr(), 0, std::ptr::null()) },
        "def_var_aggregation",
    );
    (d, tas, tv, lv)
}

fn dimlen(ncid: c_int, name: &str) -> usize {
    let (mut id, mut n) = (0, 0);
    ok(unsafe { nc_inq_dimid(ncid, c(name).as_ptr(), &mut id) }, name);
    ok(unsafe { nc_inq_dimlen(ncid, id, &mut n) }, name);
    n
}

#[test]
fn appending_along_an_unlimited_dimension_adds_fragments() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("g.zarr");
    let url = zurl(&path, "");
    let (d, tas, tv, lv) = define_growing_master(&url);
    d.enddef();
    assert_eq!(shape(d.ncid, tas), vec![0, 5]);
    // No record yet, no fragment.
    let frags = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(tmp.path().join("g.zarr_tas"))
            .map(|r| r.map(|e| e.unwrap().file_name().into_string().unwrap()).collect())
            .unwrap_or_default();
        v.sort();
        v
    };
    assert!(frags().is_empty());
    ok(
        unsafe { nc_put_var_double(d.ncid, lv, [-60.0f64, -30.0, 0.0, 30.0, 60.0].as_ptr()) },
        "put lat",
    );
    // Records 0..4 one at a time, as an appending program writes them.
    for t in 0..4 {
        let row: Vec<f32> = (0..5).map(|l| val(t, l)).collect();
        ok(
            unsafe { nc_put_vara_float(d.ncid, tas, [t, 0].as_ptr(), [1usize, 5].as_ptr(), row.as_ptr()) },
            "append",
        );
        assert_eq!(dimlen(d.ncid, "time"), t + 1);
    }
    // Fragments 0 and 1 along time exist, the second one record long.
    assert_eq!(
        frags(),
        vec!["0_0.zarr", "0_1.zarr", "0_2.zarr", "1_0.zarr", "1_1.zarr", "1_2.zarr"]
    );
    // Record 7, first two latitudes only: records 4..6 and the rest of 7
    // stay fill; the grid grows past a fragment nothing was written to.
    ok(
        unsafe {
            nc_put_vara_float(
                d.ncid,
                tas,
                [7usize, 0].as_ptr(),
                [1usize, 2].as_ptr(),
                [val(7, 0), val(7, 1)].as_ptr(),
            )
        },
        "record 7",
    );
    assert_eq!(shape(d.ncid, tas), vec![8, 5]);
    let expect = |t: usize, l: usize| -> f32 { if t < 4 || (t == 7 && l < 2) { val(t, l) } else { FILL } };
    let upto = |n: usize| -> Vec<f32> { (0..n).flat_map(|t| (0..5).map(move |l| expect(t, l))).collect() };
    assert_eq!(get_floats(d.ncid, tas, &[0, 0], &[8, 5]), upto(8));
    ok(nc_sync(d.ncid), "sync");
    // Synced: another reader sees every record written.
    let mid = open(&url);
    let v = varid(mid, "tas").unwrap();
    assert_eq!(shape(mid, v), vec![8, 5]);
    assert_eq!(get_floats(mid, v, &[0, 0], &[8, 5]), upto(8));
    ok(nc_close(mid), "close");
    // The time coordinate, written longer (10 records), grows the
    // dimension: the aggregation follows with fill.
    let times: Vec<f64> = (0..10).map(f64::from).collect();
    ok(
        unsafe { nc_put_vara_double(d.ncid, tv, [0usize].as_ptr(), [10usize].as_ptr(), times.as_ptr()) },
        "put time",
    );
    d.close();

    let ncid = open(&url);
    let v = varid(ncid, "tas").unwrap();
    assert_eq!(dimlen(ncid, "time"), 10);
    assert_eq!(shape(ncid, v), vec![10, 5]);
    assert_eq!(get_floats(ncid, v, &[0, 0], &[10, 5]), upto(10));
    ok(nc_close(ncid), "close");
    let fill = i32::MIN + 1;
    assert_eq!(raw_map(&path, "tas"), (vec![2, 4], vec![3, 3, 3, 1, 2, 2, 1, fill]));
    assert_eq!(frags().len(), 12);
    // The last fragment along time: one record (9), its time value.
    let f = open(&zurl(&tmp.path().join("g.zarr_tas/3_2.zarr"), ""));
    let fv = varid(f, "tas").unwrap();
    assert_eq!(shape(f, fv), vec![1, 1]);
    assert_eq!(get_floats(f, fv, &[0, 0], &[1, 1]), vec![FILL]);
    let mut t = [0f64; 1];
    ok(
        unsafe { nc_get_var_double(f, varid(f, "time").unwrap(), t.as_mut_ptr()) },
        "time",
    );
    assert_eq!(t, [9.0]);
    ok(nc_close(f), "close fragment");

    // cfdm reads the grown aggregation with the same values.
    let (shape_line, got, coords) = cfdm_read(&path, "tas");
    assert_eq!(shape_line, "shape 10 5");
    let want: Vec<Option<f32>> = upto(10).into_iter().map(|x| (x != FILL).then_some(x)).collect();
    assert_eq!(got, want);
    assert_eq!(coords[0], "time 0.0 1.0 2.0 3.0 4.0 5.0 6.0 7.0 8.0 9.0");
}

#[test]
fn the_splitting_algorithm_fills_fragments_along_the_record_dimension() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("r.zarr");
    let url = zurl(&path, "");
    let d = Def::create(&url, 0);
    let time = d.dim("time", NC_UNLIMITED);
    let x = d.dim("x", 10);
    let v = d.var("v", NC_INT, &[time, x]);
    ok(
        unsafe { nc_def_var_chunking(d.ncid, v, NC_CHUNKED, [2usize, 10].as_ptr()) },
        "chunking",
    );
    // Records of 40 B; 130 B hold 3.25 records, 2 in whole chunks.
    ok(
        unsafe { nc_def_var_aggregation(d.ncid, v, std::ptr::null(), 130, std::ptr::null()) },
        "def_var_aggregation",
    );
    d.enddef();
    let vals: Vec<i32> = (0..50).collect();
    ok(
        unsafe { nc_put_vara_int(d.ncid, v, [0usize, 0].as_ptr(), [5usize, 10].as_ptr(), vals.as_ptr()) },
        "put",
    );
    d.close();
    let fill = i32::MIN + 1;
    assert_eq!(raw_map(&path, "v"), (vec![2, 3], vec![2, 2, 1, 10, fill, fill]));
    let ncid = open(&url);
    let vi = varid(ncid, "v").unwrap();
    let mut back = vec![0i32; 50];
    ok(unsafe { nc_get_var_int(ncid, vi, back.as_mut_ptr()) }, "get");
    assert_eq!(back, vals);
    ok(nc_close(ncid), "close");
}

#[test]
fn abort_removes_the_fragments_of_a_created_master_only() {
    let tmp = tempfile::tempdir().unwrap();
    // Created, written, synced, appended to, aborted: the master, every
    // fragment and the directory made for them are gone; a directory the
    // template names that existed before stays, with what it held.
    let path = tmp.path().join("a.zarr");
    let kept = tmp.path().join("shared");
    std::fs::create_dir(&kept).unwrap();
    std::fs::write(kept.join("note.txt"), b"x").unwrap();
    let (d, tas, _, _) = define_growing_master(&zurl(&path, ""));
    let tmpl = c("shared/{index}.zarr");
    ok(
        unsafe { nc_def_var_aggregation(d.ncid, tas, [3usize, 2].as_ptr(), 0, tmpl.as_ptr()) },
        "template",
    );
    d.enddef();
    let rows: Vec<f32> = (0..20).map(|x| x as f32).collect();
    ok(
        unsafe { nc_put_vara_float(d.ncid, tas, [0usize, 0].as_ptr(), [4usize, 5].as_ptr(), rows.as_ptr()) },
        "put",
    );
    ok(nc_sync(d.ncid), "sync");
    ok(
        unsafe { nc_put_vara_float(d.ncid, tas, [4usize, 0].as_ptr(), [3usize, 5].as_ptr(), rows.as_ptr()) },
        "append",
    );
    assert!(kept.join("2_2.zarr").is_dir());
    ok(nc_abort(d.ncid), "abort");
    assert!(!path.exists());
    let mut left: Vec<String> = std::fs::read_dir(&kept)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, vec!["note.txt"]);

    // The default template's directory is made by the library: removed.
    let path = tmp.path().join("b.zarr");
    let (d, tas, _, _) = define_growing_master(&zurl(&path, ""));
    d.enddef();
    ok(
        unsafe { nc_put_vara_float(d.ncid, tas, [0usize, 0].as_ptr(), [4usize, 5].as_ptr(), rows.as_ptr()) },
        "put",
    );
    assert!(tmp.path().join("b.zarr_tas/1_2.zarr").is_dir());
    ok(nc_abort(d.ncid), "abort");
    assert!(!path.exists());
    assert!(!tmp.path().join("b.zarr_tas").exists());

    // Opened, not created: nc_abort keeps the master and its fragments.
    let path = tmp.path().join("c.zarr");
    let url = zurl(&path, "");
    let (d, tas, _, _) = define_growing_master(&url);
    d.enddef();
    ok(
        unsafe { nc_put_vara_float(d.ncid, tas, [0usize, 0].as_ptr(), [4usize, 5].as_ptr(), rows.as_ptr()) },
        "put",
    );
    d.close();
    let mut w = 0;
    ok(unsafe { nc_open(c(&url).as_ptr(), NC_WRITE, &mut w) }, "open write");
    ok(nc_abort(w), "abort opened");
    let ncid = open(&url);
    let v = varid(ncid, "tas").unwrap();
    assert_eq!(get_floats(ncid, v, &[0, 0], &[4, 5]), rows);
    ok(nc_close(ncid), "close");
    assert!(tmp.path().join("c.zarr_tas/1_2.zarr").is_dir());
}

#[test]
fn appending_works_in_every_master_format() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, mode) in [
        ("v3.zarr", "nczarr,file,v3"),
        ("z.zip", "nczarr,zip"),
        ("x.zarr", "zarr,file"),
    ] {
        let url = format!("file://{}#mode={mode}", tmp.path().join(name).display());
        let (d, tas, tv, _) = define_growing_master(&url);
        d.enddef();
        let rows: Vec<f32> = (0..7).flat_map(|t| (0..5).map(move |l| val(t, l))).collect();
        for t in 0..7 {
            ok(
                unsafe {
                    nc_put_vara_float(
                        d.ncid,
                        tas,
                        [t, 0].as_ptr(),
                        [1usize, 5].as_ptr(),
                        rows[t * 5..].as_ptr(),
                    )
                },
                "append",
            );
        }
        let times: Vec<f64> = (0..7).map(f64::from).collect();
        ok(
            unsafe { nc_put_vara_double(d.ncid, tv, [0usize].as_ptr(), [7usize].as_ptr(), times.as_ptr()) },
            "time",
        );
        d.close();
        let ncid = open(&url);
        let v = varid(ncid, "tas").unwrap();
        assert_eq!(shape(ncid, v), vec![7, 5], "{mode}");
        assert_eq!(get_floats(ncid, v, &[0, 0], &[7, 5]), rows, "{mode}");
        ok(nc_close(ncid), "close");
    }
}
