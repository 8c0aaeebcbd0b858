//! Reading what others wrote without losing a variable or inventing a
//! value: the JSON dialects of Python and netcdf-c, invalid metadata,
//! names C cannot receive, arrays too large to address, the pure Zarr view
//! of NCZarr data, JSON-valued text attributes, and opening datasets with
//! a hundred thousand attributes, variables, dimensions or groups.

use std::ffi::{CStr, CString, c_char, c_int};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use netcdf::ffi::*;
use serde_json::{Value, json};

mod common;
use common::nc::*;

fn url(p: &Path, mode: &str) -> CString {
    CString::new(format!("file://{}#mode={mode},file", p.display())).unwrap()
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn open(p: &Path, mode: &str) -> c_int {
    let mut ncid = 0;
    let st = unsafe { nc_open(url(p, mode).as_ptr(), 0, &mut ncid) };
    assert_eq!(st, 0, "open {} #mode={mode}", p.display());
    ncid
}

fn put(p: &Path, key: &str, text: &str) {
    let f = p.join(key);
    fs::create_dir_all(f.parent().unwrap()).unwrap();
    fs::write(f, text).unwrap();
}

fn varid(ncid: c_int, name: &str) -> Option<c_int> {
    let mut v = -1;
    (unsafe { nc_inq_varid(ncid, c(name).as_ptr(), &mut v) } == 0).then_some(v)
}

/// An attribute's type and length, or the error code.
fn att(ncid: c_int, var: c_int, name: &str) -> Result<(c_int, usize), c_int> {
    let (mut t, mut n) = (0, 0);
    match unsafe { nc_inq_att(ncid, var, c(name).as_ptr(), &mut t, &mut n) } {
        0 => Ok((t, n)),
        e => Err(e),
    }
}

fn att_text(ncid: c_int, var: c_int, name: &str) -> String {
    let (t, n) = att(ncid, var, name).unwrap();
    assert_eq!(t, NC_CHAR, "{name} is text");
    let mut b = vec![0u8; n + 1];
    assert_eq!(
        unsafe { nc_get_att_text(ncid, var, c(name).as_ptr(), b.as_mut_ptr().cast()) },
        0
    );
    b.truncate(n);
    String::from_utf8(b).unwrap()
}

fn att_strings(ncid: c_int, var: c_int, name: &str) -> Vec<String> {
    let (t, n) = att(ncid, var, name).unwrap();
    assert_eq!(t, NC_STRING, "{name} is strings");
    let mut p = vec![std::ptr::null_mut::<c_char>(); n];
    assert_eq!(
        unsafe { nc_get_att_string(ncid, var, c(name).as_ptr(), p.as_mut_ptr()) },
        0
    );
    let out = p
        .iter()
        .map(|&s| unsafe { CStr::from_ptr(s) }.to_str().unwrap().to_string())
        .collect();
    unsafe { nc_free_string(n, p.as_mut_ptr()) };
    out
}

fn att_doubles(ncid: c_int, var: c_int, name: &str) -> (c_int, Vec<f64>) {
    let (t, n) = att(ncid, var, name).unwrap();
    let mut b = vec![0f64; n];
    assert_eq!(
        unsafe { nc_get_att_double(ncid, var, c(name).as_ptr(), b.as_mut_ptr()) },
        0
    );
    (t, b)
}

fn natts(ncid: c_int, var: c_int) -> c_int {
    let mut n = -1;
    assert_eq!(unsafe { nc_inq_varnatts(ncid, var, &mut n) }, 0);
    n
}

fn read_ints(ncid: c_int, var: c_int, n: usize) -> Result<Vec<i32>, c_int> {
    let mut b = vec![0i32; n];
    match unsafe { nc_get_var_int(ncid, var, b.as_mut_ptr()) } {
        0 => Ok(b),
        e => Err(e),
    }
}

/// The names and lengths of a group's own dimensions, in order.
fn dims(ncid: c_int) -> Vec<(String, usize)> {
    let mut n = 0;
    let mut ids = vec![0; 64];
    assert_eq!(unsafe { nc_inq_dimids(ncid, &mut n, ids.as_mut_ptr(), 0) }, 0);
    ids[..n as usize]
        .iter()
        .map(|&d| {
            let mut name = [0 as c_char; 257];
            let mut len = 0;
            assert_eq!(unsafe { nc_inq_dim(ncid, d, name.as_mut_ptr(), &mut len) }, 0);
            (
                unsafe { CStr::from_ptr(name.as_ptr()) }.to_str().unwrap().to_string(),
                len,
            )
        })
        .collect()
}

fn vartype(ncid: c_int, var: c_int) -> c_int {
    let mut t = 0;
    assert_eq!(unsafe { nc_inq_vartype(ncid, var, &mut t) }, 0);
    t
}

fn le_ints(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

const ZARRAY_V: &str = r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#;

/// Pure Zarr: one int32 array `v` = 1..6 in two chunks, with these `.zattrs`.
fn pure(dir: &Path, root_attrs: &str, v_attrs: &str) {
    put(dir, ".zgroup", r#"{"zarr_format": 2}"#);
    put(dir, ".zattrs", root_attrs);
    put(dir, "v/.zarray", ZARRAY_V);
    put(dir, "v/.zattrs", v_attrs);
    fs::write(dir.join("v/0"), le_ints(&[1, 2, 3])).unwrap();
    fs::write(dir.join("v/1"), le_ints(&[4, 5, 6])).unwrap();
}

/// NCZarr (netcdf-c 4.9.3+ layout): `v(x)` = 1..6, with these user
/// attributes of `v` and their recorded types.
fn nczarr(dir: &Path, v_attrs: &str, v_types: &str) {
    put(dir, ".zgroup", r#"{"zarr_format": 2}"#);
    put(
        dir,
        ".zattrs",
        r#"{"_nczarr_group": {"dimensions": {"x": 6}, "arrays": ["v"], "groups": []}, "_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_attr": {"types": {"_nczarr_group": "|J0", "_nczarr_superblock": "|J0", "_nczarr_attr": "|J0"}}}"#,
    );
    put(dir, "v/.zarray", ZARRAY_V);
    let sep = if v_attrs.is_empty() { "" } else { ", " };
    let tsep = if v_types.is_empty() { "" } else { ", " };
    put(
        dir,
        "v/.zattrs",
        &format!(
            r#"{{{v_attrs}{sep}"_nczarr_array": {{"dimension_references": ["/x"], "storage": "chunked"}}, "_nczarr_attr": {{"types": {{{v_types}{tsep}"_nczarr_array": "|J0", "_nczarr_attr": "|J0"}}}}}}"#
        ),
    );
    fs::write(dir.join("v/0"), le_ints(&[1, 2, 3])).unwrap();
    fs::write(dir.join("v/1"), le_ints(&[4, 5, 6])).unwrap();
}

// ---- 1. One attribute must not take its variable with it ----

#[test]
fn python_nan_and_infinity_keep_the_variable() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("nan.zarr");
    // What Python's json module writes for float('nan') and float('inf').
    pure(
        &d,
        r#"{"title": "t", "fill": NaN}"#,
        r#"{"_ARRAY_DIMENSIONS": ["x"], "missing_value": NaN, "valid_range": [-Infinity, Infinity], "scale": 0.5, "note": "NaN"}"#,
    );
    let ncid = open(&d, "zarr");
    let v = varid(ncid, "v").expect("v is visible");
    assert_eq!(read_ints(ncid, v, 6), Ok(vec![1, 2, 3, 4, 5, 6]));
    let (t, mv) = att_doubles(ncid, v, "missing_value");
    assert_eq!(t, NC_DOUBLE);
    assert!(mv.len() == 1 && mv[0].is_nan());
    assert_eq!(
        att_doubles(ncid, v, "valid_range"),
        (NC_DOUBLE, vec![f64::NEG_INFINITY, f64::INFINITY])
    );
    assert_eq!(att_doubles(ncid, v, "scale"), (NC_DOUBLE, vec![0.5]));
    // The string "NaN" stays text.
    assert_eq!(att_text(ncid, v, "note"), "NaN");
    let (t, f) = att_doubles(ncid, NC_GLOBAL, "fill");
    assert!(t == NC_DOUBLE && f[0].is_nan());
    assert_eq!(att_text(ncid, NC_GLOBAL, "title"), "t");
    assert_eq!(nc_close(ncid), 0);

    // NCZarr with a recorded type: a bare NaN in a float attribute.
    let d = tmp.path().join("nan-nczarr.zarr");
    nczarr(&d, r#""mv": NaN, "r": [1.5, -Infinity]"#, r#""mv": "<f4", "r": "<f8""#);
    let ncid = open(&d, "nczarr");
    let v = varid(ncid, "v").expect("v is visible");
    let (t, mv) = att_doubles(ncid, v, "mv");
    assert!(t == NC_FLOAT && mv[0].is_nan());
    assert_eq!(att_doubles(ncid, v, "r"), (NC_DOUBLE, vec![1.5, f64::NEG_INFINITY]));
    assert_eq!(read_ints(ncid, v, 6), Ok(vec![1, 2, 3, 4, 5, 6]));
    assert_eq!(nc_close(ncid), 0);
}

/// What netcdf-c 4.10.1 writes for its test `nczarr_test/ref_jsonconvention.cdl`
/// (from `nczarr_test/ref_jsonconvention.zmap` in its sources): `varjson3`
/// is `[0.,0.,1.]`, numbers as C prints them.
#[test]
fn netcdf_c_json_convention_is_read_as_netcdf_c_reads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("jc.zarr");
    put(
        &d,
        ".zattrs",
        r#"{"globalfloat": 1, "globalfloatvec": [1,2], "globalchar": "abc", "globalillegal": "[ [ 1.0, 0.0, 0.0 ], [ 0.0, 1.0, 0.0 ], [ 0.0, 0.0, 1.0 ", "_nczarr_group": {"dimensions": {"d1": 1}, "arrays": ["v"], "groups": []}, "_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_attr": {"types": {"globalfloat": "<f8", "globalfloatvec": "<f8", "globalchar": ">S1", "globalillegal": ">S1", "_NCProperties": ">S1", "_nczarr_group": "|J0", "_nczarr_superblock": "|J0", "_nczarr_attr": "|J0"}}}"#,
    );
    put(&d, ".zgroup", r#"{"zarr_format": 2}"#);
    put(
        &d,
        "v/.zarray",
        r#"{"zarr_format": 2, "shape": [1], "dtype": "<i4", "chunks": [1], "fill_value": -2147483647, "order": "C", "compressor": null, "filters": null}"#,
    );
    put(
        &d,
        "v/.zattrs",
        r#"{"varjson1": {"key1": [1,2,3], "key2": {"key3": "abc"}}, "varjson2": [[1.0,0.0,0.0],[0.0,1.0,0.0],[0.0,0.0,1.0]], "varjson3": [0.,0.,1.], "varchar1": "1.0, 0.0, 0.0", "_ARRAY_DIMENSIONS": ["d1"], "_nczarr_array": {"dimension_references": ["/d1"], "storage": "chunked"}, "_nczarr_attr": {"types": {"varjson1": ">S1", "varjson2": ">S1", "varjson3": ">S1", "varchar1": ">S1", "_nczarr_array": "|J0", "_nczarr_attr": "|J0"}}}"#,
    );
    let ncid = open(&d, "nczarr");
    let v = varid(ncid, "v").expect("v is visible");
    // As netcdf-c's ncdump shows them (ref_jsonconvention.cdl).
    assert_eq!(
        att_text(ncid, v, "varjson1"),
        r#"{"key1": [1,2,3], "key2": {"key3": "abc"}}"#
    );
    assert_eq!(
        att_text(ncid, v, "varjson2"),
        "[[1.0,0.0,0.0],[0.0,1.0,0.0],[0.0,0.0,1.0]]"
    );
    assert_eq!(att_text(ncid, v, "varjson3"), "[0.,0.,1.]");
    assert_eq!(att_text(ncid, v, "varchar1"), "1.0, 0.0, 0.0");
    assert_eq!(
        att_doubles(ncid, NC_GLOBAL, "globalfloatvec"),
        (NC_DOUBLE, vec![1.0, 2.0])
    );
    assert_eq!(
        att_text(ncid, NC_GLOBAL, "globalillegal"),
        "[ [ 1.0, 0.0, 0.0 ], [ 0.0, 1.0, 0.0 ], [ 0.0, 0.0, 1.0 "
    );
    assert_eq!(nc_close(ncid), 0);
}

#[test]
fn an_unreadable_attribute_is_skipped_not_its_variable() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("bad-att.zarr");
    let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
    pure(
        &d,
        r#"{"g": 1, "gbad": {"a": undefined}}"#,
        &format!(
            r#"{{"_ARRAY_DIMENSIONS": ["x"], "bad": [1, nope], "deep": {deep}, "surrogate": "\ud800", "good": 5}}"#
        ),
    );
    let ncid = open(&d, "zarr");
    let v = varid(ncid, "v").expect("v is visible");
    assert_eq!(natts(ncid, v), 1);
    for gone in ["bad", "deep", "surrogate"] {
        assert_eq!(att(ncid, v, gone), Err(NC_ENOTATT), "{gone}");
    }
    assert_eq!(att_doubles(ncid, v, "good"), (NC_INT, vec![5.0]));
    assert_eq!(att(ncid, NC_GLOBAL, "gbad"), Err(NC_ENOTATT));
    assert_eq!(att_doubles(ncid, NC_GLOBAL, "g"), (NC_INT, vec![1.0]));
    assert_eq!(read_ints(ncid, v, 6), Ok(vec![1, 2, 3, 4, 5, 6]));
    assert_eq!(nc_close(ncid), 0);
}

// ---- 2. Invalid metadata is refused, never read under a default ----

/// Whether `v` is visible, and what reading it gives.
fn probe(dir: &Path, mode: &str, n: usize) -> Option<Result<Vec<i32>, c_int>> {
    let ncid = open(dir, mode);
    let out = varid(ncid, "v").map(|v| read_ints(ncid, v, n));
    assert_eq!(nc_close(ncid), 0);
    out
}

#[test]
fn invalid_codecs_and_separators_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    // Chunks shuffled with 4-byte elements.
    let shuffled = |vals: [i32; 3]| -> Vec<u8> {
        let b = le_ints(&vals);
        (0..4)
            .flat_map(|byte| (0..3).map(move |e| (byte, e)))
            .map(|(byte, e)| b[e * 4 + byte])
            .collect()
    };
    let case = |name: &str, zarray: &str| {
        let d = tmp.path().join(format!("{name}.zarr"));
        pure(&d, "{}", r#"{"_ARRAY_DIMENSIONS": ["x"]}"#);
        put(&d, "v/.zarray", zarray);
        fs::write(d.join("v/0"), shuffled([1, 2, 3])).unwrap();
        fs::write(d.join("v/1"), shuffled([4, 5, 6])).unwrap();
        probe(&d, "zarr", 6)
    };
    let with = |member: &str| ZARRAY_V.replace(r#""filters": null"#, member);
    // The control: shuffle as a list of codecs reads right.
    assert_eq!(
        case("ok", &with(r#""filters": [{"id": "shuffle", "elementsize": 4}]"#)),
        Some(Ok(vec![1, 2, 3, 4, 5, 6]))
    );
    // Given as an object, the filter was ignored and the bytes came back shuffled.
    assert_eq!(
        case("object", &with(r#""filters": {"id": "shuffle", "elementsize": 4}"#)),
        None
    );
    assert_eq!(case("noid", &with(r#""filters": [{"elementsize": 4}]"#)), None);
    assert_eq!(case("numid", &with(r#""filters": [{"id": 2}]"#)), None);
    assert_eq!(case("notcodec", &with(r#""filters": ["shuffle"]"#)), None);
    assert_eq!(
        case(
            "complist",
            &with(r#""filters": null, "compressor": [{"id": "shuffle", "elementsize": 4}]"#).replacen(
                r#""compressor": null, "#,
                "",
                1
            )
        ),
        None
    );
    // An element larger than the chunk: every chunk came back as stored.
    assert_eq!(
        case(
            "huge-elementsize",
            &with(r#""filters": [{"id": "shuffle", "elementsize": 1000000}]"#)
        ),
        Some(Err(NC_EFILTER))
    );

    // dimension_separator and order: only what the specification allows.
    for (i, (member, visible)) in [
        (r#""dimension_separator": ".""#, true),
        (r#""dimension_separator": null"#, true),
        (r#""dimension_separator": """#, false),
        (r#""dimension_separator": "x""#, false),
        (r#""dimension_separator": "//""#, false),
        (r#""dimension_separator": 46"#, false),
        (r#""order": "K""#, false),
        (r#""order": 0"#, false),
    ]
    .iter()
    .enumerate()
    {
        let d = tmp.path().join(format!("m{i}.zarr"));
        pure(&d, "{}", r#"{"_ARRAY_DIMENSIONS": ["x"]}"#);
        let text = ZARRAY_V.replace(r#""order": "C""#, &format!(r#""order": "C", {member}"#));
        let text = if member.starts_with(r#""order""#) {
            ZARRAY_V.replace(r#""order": "C""#, member)
        } else {
            text
        };
        put(&d, "v/.zarray", &text);
        let got = probe(&d, "zarr", 6);
        assert_eq!(got.is_some(), *visible, "{member}: {got:?}");
        if *visible {
            assert_eq!(got, Some(Ok(vec![1, 2, 3, 4, 5, 6])));
        }
    }

    // 2-D with nested chunk keys: a separator of "//" read as "." found no
    // chunk and gave fill values.
    let d = tmp.path().join("nested.zarr");
    pure(&d, "{}", r#"{"_ARRAY_DIMENSIONS": ["y", "x"]}"#);
    fs::remove_file(d.join("v/0")).unwrap();
    fs::remove_file(d.join("v/1")).unwrap();
    put(
        &d,
        "v/.zarray",
        r#"{"zarr_format": 2, "shape": [2, 3], "chunks": [1, 3], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null, "dimension_separator": "/"}"#,
    );
    fs::create_dir_all(d.join("v/0")).unwrap();
    fs::create_dir_all(d.join("v/1")).unwrap();
    fs::write(d.join("v/0/0"), le_ints(&[1, 2, 3])).unwrap();
    fs::write(d.join("v/1/0"), le_ints(&[4, 5, 6])).unwrap();
    assert_eq!(probe(&d, "zarr", 6), Some(Ok(vec![1, 2, 3, 4, 5, 6])));
    let z = fs::read_to_string(d.join("v/.zarray")).unwrap();
    put(
        &d,
        "v/.zarray",
        &z.replace(r#""dimension_separator": "/""#, r#""dimension_separator": "//""#),
    );
    assert_eq!(probe(&d, "zarr", 6), None);

    // zarr_format is required.
    let d = tmp.path().join("nofmt.zarr");
    pure(&d, "{}", r#"{"_ARRAY_DIMENSIONS": ["x"]}"#);
    put(&d, "v/.zarray", &ZARRAY_V.replace(r#""zarr_format": 2, "#, ""));
    assert_eq!(probe(&d, "zarr", 6), None);
}

#[test]
fn invalid_dimension_and_type_metadata_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    // `_ARRAY_DIMENSIONS` that is not one name per dimension: anonymous
    // dimensions were made up for it.
    for (i, dims) in [r#"[1]"#, r#"["x", "y"]"#, r#""x""#, r#"[nope]"#].iter().enumerate() {
        let d = tmp.path().join(format!("xd{i}.zarr"));
        pure(&d, "{}", &format!(r#"{{"_ARRAY_DIMENSIONS": {dims}}}"#));
        assert_eq!(probe(&d, "zarr", 6), None, "{dims}");
    }
    // A scalar with dimension names (netcdf-c's nczarr_test run_corrupt):
    // hidden as for any other rank, where it was shown as a scalar.
    let d = tmp.path().join("xdscalar.zarr");
    put(&d, ".zgroup", r#"{"zarr_format": 2}"#);
    put(
        &d,
        "v/.zarray",
        r#"{"zarr_format": 2, "shape": [], "chunks": [], "dtype": "<i4", "fill_value": -1, "order": "C", "compressor": null, "filters": null}"#,
    );
    put(&d, "v/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["d0"]}"#);
    let ncid = open(&d, "zarr");
    assert_eq!(varid(ncid, "v"), None);
    assert_eq!(nc_close(ncid), 0);
    put(&d, "v/.zattrs", r#"{"_ARRAY_DIMENSIONS": []}"#);
    let ncid = open(&d, "zarr");
    assert_eq!(varid(ncid, "v"), Some(0));
    assert_eq!(nc_close(ncid), 0);
    // `_nczarr_attr` that is not an object of types: the types were guessed.
    for (i, info) in [r#""_nczarr_attr": 5"#, r#""_nczarr_attr": {"types": []}"#]
        .iter()
        .enumerate()
    {
        let d = tmp.path().join(format!("ty{i}.zarr"));
        nczarr(&d, r#""a": 1"#, r#""a": "<i2""#);
        let z = fs::read_to_string(d.join("v/.zattrs")).unwrap();
        let cut = z.find(r#""_nczarr_attr""#).unwrap();
        put(&d, "v/.zattrs", &format!("{}{info}}}", &z[..cut]));
        assert_eq!(probe(&d, "nczarr", 6), None, "{info}");
    }
    // A char fill value out of range was read as 0.
    let d = tmp.path().join("charfill.zarr");
    nczarr(&d, "", "");
    put(
        &d,
        "v/.zarray",
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": ">S1", "fill_value": 300, "order": "C", "compressor": null, "filters": null}"#,
    );
    let ncid = open(&d, "nczarr");
    assert_eq!(varid(ncid, "v"), None);
    assert_eq!(nc_close(ncid), 0);
    // A dimension with a size that is no length is hidden, with the
    // variables that use it; the rest of the dataset opens.
    let d = tmp.path().join("baddim.zarr");
    nczarr(&d, "", "");
    let z = fs::read_to_string(d.join(".zattrs")).unwrap();
    put(&d, ".zattrs", &z.replace(r#"{"x": 6}"#, r#"{"x": -6, "y": 2}"#));
    let ncid = open(&d, "nczarr");
    assert_eq!(dims(ncid), [("y".to_string(), 2)]);
    assert_eq!(varid(ncid, "v"), None);
    assert_eq!(nc_close(ncid), 0);
}

// ---- 0. Names longer than NC_MAX_NAME are refused ----

#[test]
fn names_longer_than_nc_max_name_hide_their_object() {
    let tmp = tempfile::tempdir().unwrap();
    let long = "n".repeat(257);
    let max = "m".repeat(256);
    // Consolidated metadata: keys of any length (a file name could not be
    // that long).
    let zarray = json!({"zarr_format": 2, "shape": [3], "chunks": [3], "dtype": "<i4", "fill_value": 7, "order": "C", "compressor": null, "filters": null});
    let obj = |pairs: &[(&str, Value)]| -> Value {
        Value::Object(pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
    };
    let mut meta = serde_json::Map::new();
    meta.insert(".zgroup".into(), json!({"zarr_format": 2}));
    meta.insert(".zattrs".into(), obj(&[(&long, json!(1)), (&max, json!(2))]));
    meta.insert("ok/.zarray".into(), zarray.clone());
    meta.insert(
        "ok/.zattrs".into(),
        obj(&[
            ("_ARRAY_DIMENSIONS", json!(["x"])),
            (&long, json!("a")),
            ("b", json!("c")),
        ]),
    );
    meta.insert(format!("{long}/.zarray"), zarray.clone());
    meta.insert(format!("{long}/.zattrs"), json!({"_ARRAY_DIMENSIONS": ["x"]}));
    meta.insert("longdim/.zarray".into(), zarray);
    meta.insert("longdim/.zattrs".into(), obj(&[("_ARRAY_DIMENSIONS", json!([long]))]));
    meta.insert(format!("{long}/.zgroup"), json!({"zarr_format": 2}));
    meta.insert(format!("{long}/.zattrs"), json!({}));
    meta.insert(format!("{max}/.zgroup"), json!({"zarr_format": 2}));
    meta.insert(format!("{max}/.zattrs"), json!({}));
    let d = tmp.path().join("long.zarr");
    put(&d, ".zgroup", r#"{"zarr_format": 2}"#);
    put(
        &d,
        ".zmetadata",
        &json!({"metadata": meta, "zarr_consolidated_format": 1}).to_string(),
    );
    let ncid = open(&d, "zarr");
    let mut n = 0;
    assert_eq!(unsafe { nc_inq_natts(ncid, &mut n) }, 0);
    assert_eq!(n, 1, "only the attribute of 256 bytes");
    assert!(att(ncid, NC_GLOBAL, &max).is_ok());
    let v = varid(ncid, "ok").expect("ok is visible");
    assert_eq!(natts(ncid, v), 1);
    assert_eq!(att_text(ncid, v, "b"), "c");
    assert_eq!(varid(ncid, "longdim"), None);
    let mut nv = 0;
    assert_eq!(unsafe { nc_inq_nvars(ncid, &mut nv) }, 0);
    assert_eq!(nv, 1);
    let mut ng = 0;
    let mut grps = [0; 4];
    assert_eq!(unsafe { nc_inq_grps(ncid, &mut ng, grps.as_mut_ptr()) }, 0);
    assert_eq!(ng, 1, "only the group of 256 bytes");
    let mut len = 0;
    assert_eq!(unsafe { nc_inq_grpname_len(grps[0], &mut len) }, 0);
    assert_eq!(len, 257, "the full name, /mmm...");
    assert_eq!(nc_close(ncid), 0);

    // NCZarr: a dimension with a long name is hidden with its variables.
    let d = tmp.path().join("longdim.zarr");
    nczarr(&d, "", "");
    let z = fs::read_to_string(d.join(".zattrs")).unwrap();
    put(
        &d,
        ".zattrs",
        &z.replace(r#"{"x": 6}"#, &format!(r#"{{"x": 6, "{long}": 2}}"#))
            .replace(r#""arrays": ["v"]"#, r#""arrays": ["v", "w"]"#),
    );
    put(
        &d,
        "w/.zarray",
        r#"{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#,
    );
    put(
        &d,
        "w/.zattrs",
        &format!(r#"{{"_nczarr_array": {{"dimension_references": ["/{long}"]}}}}"#),
    );
    let ncid = open(&d, "nczarr");
    assert_eq!(dims(ncid), [("x".to_string(), 6)]);
    assert!(varid(ncid, "v").is_some());
    assert_eq!(varid(ncid, "w"), None);
    assert_eq!(nc_close(ncid), 0);
}

// ---- 6. Element counts beyond 64 bits ----

#[test]
fn an_array_too_large_to_address_shows_its_header() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("huge.zarr");
    pure(&d, "{}", r#"{"_ARRAY_DIMENSIONS": ["a", "b", "c"], "units": "m"}"#);
    put(
        &d,
        "v/.zarray",
        r#"{"zarr_format": 2, "shape": [4294967296, 4294967296, 4294967296], "chunks": [1, 1, 1], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#,
    );
    let ncid = open(&d, "zarr");
    let v = varid(ncid, "v").expect("the header is shown");
    let big = 1usize << 32;
    assert_eq!(
        dims(ncid),
        [("a".to_string(), big), ("b".to_string(), big), ("c".to_string(), big)]
    );
    assert_eq!(att_text(ncid, v, "units"), "m");
    let mut x = 0i32;
    let at = [0usize, 0, 0];
    assert_eq!(unsafe { nc_get_var1_int(ncid, v, at.as_ptr(), &mut x) }, NC_EVARSIZE);
    let one = [1usize, 1, 1];
    assert_eq!(
        unsafe { nc_get_vara_int(ncid, v, at.as_ptr(), one.as_ptr(), &mut x) },
        NC_EVARSIZE
    );
    assert_eq!(nc_close(ncid), 0);
    // A zero-length dimension makes any shape empty, not too large.
    let d = tmp.path().join("empty.zarr");
    pure(&d, "{}", r#"{"_ARRAY_DIMENSIONS": ["a", "b", "c"]}"#);
    put(
        &d,
        "v/.zarray",
        r#"{"zarr_format": 2, "shape": [18446744073709551615, 0, 18446744073709551615], "chunks": [1, 1, 1], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#,
    );
    let ncid = open(&d, "zarr");
    let v = varid(ncid, "v").unwrap();
    assert_eq!(read_ints(ncid, v, 0), Ok(vec![]));
    assert_eq!(nc_close(ncid), 0);
}

// ---- 10. mode=zarr on NCZarr data is the pure Zarr view ----

/// An NCZarr dataset as netCDF4-python (netcdf-c 4.10.1) writes it.
fn nczarr_tree(d: &Path) {
    let u = url(d, "nczarr");
    let mut ncid = 0;
    unsafe {
        assert_eq!(nc_create(u.as_ptr(), 0, &mut ncid), 0);
        let (mut x, mut t, mut y) = (0, 0, 0);
        assert_eq!(nc_def_dim(ncid, c"x".as_ptr(), 3, &mut x), 0);
        assert_eq!(nc_def_dim(ncid, c"t".as_ptr(), 0, &mut t), 0);
        let mut v = 0;
        assert_eq!(nc_def_var(ncid, c"v".as_ptr(), NC_INT, 2, [t, x].as_ptr(), &mut v), 0);
        assert_eq!(nc_put_att_text(ncid, v, c"units".as_ptr(), 1, c"m".as_ptr()), 0);
        assert_eq!(nc_put_att_short(ncid, v, c"ival".as_ptr(), NC_SHORT, 1, &7), 0);
        let mut cv = 0;
        assert_eq!(nc_def_var(ncid, c"c".as_ptr(), NC_CHAR, 1, &x, &mut cv), 0);
        let mut s = 0;
        assert_eq!(
            nc_def_var(ncid, c"s".as_ptr(), NC_FLOAT, 0, std::ptr::null(), &mut s),
            0
        );
        assert_eq!(
            nc_put_att_text(ncid, NC_GLOBAL, c"title".as_ptr(), 5, c"hello".as_ptr()),
            0
        );
        let mut g = 0;
        assert_eq!(nc_def_grp(ncid, c"g".as_ptr(), &mut g), 0);
        assert_eq!(nc_def_dim(g, c"y".as_ptr(), 2, &mut y), 0);
        let mut w = 0;
        assert_eq!(nc_def_var(g, c"w".as_ptr(), NC_DOUBLE, 2, [y, x].as_ptr(), &mut w), 0);
        let vals = [0i32, 1, 2, 3, 4, 5];
        let (start, count) = ([0usize, 0], [2usize, 3]);
        assert_eq!(
            nc_put_vara_int(ncid, v, start.as_ptr(), count.as_ptr(), vals.as_ptr()),
            0
        );
        assert_eq!(nc_put_var_text(ncid, cv, c"abc".as_ptr()), 0);
    }
    assert_eq!(nc_close(ncid), 0);
}

#[test]
fn mode_zarr_on_nczarr_data_is_the_pure_zarr_view() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("t.zarr");
    nczarr_tree(&d);
    // What netcdf-c 4.10.1 shows for the same dataset written by
    // netCDF4-python, opened with mode=zarr: variables in name order, each
    // `_ARRAY_DIMENSIONS` name a dimension of the variable's own group, char
    // as one-byte strings, attribute types as recorded with `>S1` a string.
    let ncid = open(&d, "zarr");
    assert_eq!(dims(ncid), [("x".to_string(), 3), ("t".to_string(), 2)]);
    let mut unlim = [0; 4];
    let mut nu = -1;
    assert_eq!(unsafe { nc_inq_unlimdims(ncid, &mut nu, unlim.as_mut_ptr()) }, 0);
    assert_eq!(nu, 0, "pure Zarr has no unlimited dimension");
    let mut nv = 0;
    assert_eq!(unsafe { nc_inq_nvars(ncid, &mut nv) }, 0);
    assert_eq!(nv, 3);
    assert_eq!(varid(ncid, "c"), Some(0));
    assert_eq!(varid(ncid, "s"), Some(1));
    assert_eq!(varid(ncid, "v"), Some(2));
    assert_eq!(vartype(ncid, 0), NC_STRING);
    let v = 2;
    assert_eq!(natts(ncid, v), 2, "no _nczarr_ attributes");
    assert_eq!(att_strings(ncid, v, "units"), ["m"]);
    assert_eq!(att_doubles(ncid, v, "ival"), (NC_SHORT, vec![7.0]));
    assert_eq!(att_strings(ncid, NC_GLOBAL, "title"), ["hello"]);
    let mut n = 0;
    assert_eq!(unsafe { nc_inq_natts(ncid, &mut n) }, 0);
    assert_eq!(n, 1);
    assert_eq!(read_ints(ncid, v, 6), Ok(vec![0, 1, 2, 3, 4, 5]));
    let mut g = 0;
    assert_eq!(unsafe { nc_inq_grp_ncid(ncid, c"g".as_ptr(), &mut g) }, 0);
    assert_eq!(dims(g), [("y".to_string(), 2), ("x".to_string(), 3)]);
    assert_eq!(nc_close(ncid), 0);

    // The NCZarr view of the same dataset is unchanged.
    let ncid = open(&d, "nczarr");
    assert_eq!(dims(ncid), [("x".to_string(), 3), ("t".to_string(), 2)]);
    assert_eq!(varid(ncid, "v"), Some(0));
    assert_eq!(vartype(ncid, 1), NC_CHAR);
    assert_eq!(att_text(ncid, 0, "units"), "m");
    let mut g = 0;
    assert_eq!(unsafe { nc_inq_grp_ncid(ncid, c"g".as_ptr(), &mut g) }, 0);
    assert_eq!(dims(g), [("y".to_string(), 2)]);
    assert_eq!(nc_close(ncid), 0);
}

/// netcdf-c's nczarr_test `run_interop` reads a store of xarray arrays
/// with no `.zgroup` at its root: the root is then an implicit pure-Zarr
/// group. A tree without any Zarr object stays "not netCDF".
#[test]
fn a_root_without_zgroup_is_an_implicit_group() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("arrays.zarr");
    put(&d, "v/.zarray", ZARRAY_V);
    put(&d, "v/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["x"], "units": "m"}"#);
    fs::write(d.join("v/0"), le_ints(&[1, 2, 3])).unwrap();
    fs::write(d.join("v/1"), le_ints(&[4, 5, 6])).unwrap();
    for mode in ["zarr", "nczarr"] {
        let ncid = open(&d, mode);
        assert_eq!(dims(ncid), [("x".to_string(), 6)]);
        assert_eq!(varid(ncid, "v"), Some(0));
        assert_eq!(att_text(ncid, 0, "units"), "m");
        assert_eq!(read_ints(ncid, 0, 6), Ok(vec![1, 2, 3, 4, 5, 6]));
        assert_eq!(nc_close(ncid), 0);
    }

    let other = tmp.path().join("other");
    put(&other, "a/b/readme.txt", "not zarr");
    let mut ncid = 0;
    let st = unsafe { nc_open(url(&other, "zarr").as_ptr(), 0, &mut ncid) };
    assert_eq!(st, -51, "NC_ENOTNC for a tree without Zarr objects");
}

// ---- 12. Text that is a JSON object or array is stored as JSON ----

fn zattrs(d: &Path) -> Value {
    serde_json::from_slice(&fs::read(d.join(".zattrs")).unwrap()).unwrap()
}

#[test]
fn json_text_attributes_follow_the_nczarr_convention() {
    let tmp = tempfile::tempdir().unwrap();
    let texts: &[(&str, &str)] = &[
        ("obj", r#"{"a": 1, "b": [1, 2]}"#),
        ("arr", "[1, 2]"),
        ("nested", "[[1], [2]]"),
        ("num", "42"),
        ("truth", "true"),
        ("nul", "null"),
        ("quoted", r#""quoted""#),
        ("cdl", "[0.,1.]"),
        ("escaped", r#"["\u00e9"]"#),
        ("partial", "[1, 2"),
        ("plain", "hello"),
    ];
    for (mode, typed) in [("nczarr", true), ("zarr", false)] {
        let d = tmp.path().join(format!("{mode}.zarr"));
        let mut ncid = 0;
        unsafe {
            assert_eq!(nc_create(url(&d, mode).as_ptr(), 0, &mut ncid), 0);
            for (name, text) in texts {
                let (n, t) = (c(name), c(text));
                assert_eq!(nc_put_att_text(ncid, NC_GLOBAL, n.as_ptr(), text.len(), t.as_ptr()), 0);
            }
        }
        assert_eq!(nc_close(ncid), 0);
        let z = zattrs(&d);
        // What zarr-python and xarray see.
        assert_eq!(z["obj"], json!({"a": 1, "b": [1, 2]}), "{mode}");
        assert_eq!(z["nested"], json!([[1], [2]]), "{mode}");
        // Without recorded types, an array of numbers would read back as numbers.
        assert_eq!(z["arr"], if typed { json!([1, 2]) } else { json!("[1, 2]") }, "{mode}");
        for keep in ["num", "truth", "nul", "quoted", "cdl", "escaped", "partial", "plain"] {
            let want = texts.iter().find(|(n, _)| *n == keep).unwrap().1;
            assert_eq!(z[keep], json!(want), "{mode}: {keep} stays a string");
        }
        // Read back as netcdf-c shows JSON: ", " and ": " in objects, "," in arrays.
        let ncid = open(&d, mode);
        let read = |name: &str| att_text(ncid, NC_GLOBAL, name);
        assert_eq!(read("obj"), r#"{"a": 1, "b": [1,2]}"#);
        assert_eq!(read("nested"), "[[1],[2]]");
        assert_eq!(read("arr"), if typed { "[1,2]" } else { "[1, 2]" });
        for (name, text) in texts.iter().skip(3) {
            assert_eq!(read(name), *text, "{mode}: {name}");
        }
        assert_eq!(nc_close(ncid), 0);
    }
}

#[test]
fn python_json_attributes_read_as_netcdf_c_text() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("py.zarr");
    // json.dumps({"b": [1, 2], "a": 1.50}) in a pure Zarr attribute.
    pure(
        &d,
        r#"{"meta": {"b": [1, 2], "a": 1.50, "s": "x\ty"}, "list": [{"k": 1}, 2]}"#,
        r#"{"_ARRAY_DIMENSIONS": ["x"]}"#,
    );
    let ncid = open(&d, "zarr");
    assert_eq!(
        att_text(ncid, NC_GLOBAL, "meta"),
        r#"{"b": [1,2], "a": 1.50, "s": "x\ty"}"#
    );
    assert_eq!(att_text(ncid, NC_GLOBAL, "list"), r#"[{"k": 1},2]"#);
    assert_eq!(nc_close(ncid), 0);
}

// ---- 4. Opening is linear in the number of objects ----

/// Walk a dataset as `ncdump -h` does: every group, dimension, variable and
/// attribute, names looked up by name as ncdump does. Returns the number of
/// (groups, dimensions, variables, attributes) seen.
fn header_walk(ncid: c_int) -> (usize, usize, usize, usize) {
    let mut seen = (0, 0, 0, 0);
    let mut stack = vec![ncid];
    let mut name = [0 as c_char; 257];
    while let Some(g) = stack.pop() {
        seen.0 += 1;
        let mut nd = 0;
        assert_eq!(unsafe { nc_inq_dimids(g, &mut nd, std::ptr::null_mut(), 0) }, 0);
        let mut dimids = vec![0; nd as usize];
        assert_eq!(unsafe { nc_inq_dimids(g, &mut nd, dimids.as_mut_ptr(), 0) }, 0);
        for &d in &dimids {
            let mut len = 0;
            assert_eq!(unsafe { nc_inq_dim(g, d, name.as_mut_ptr(), &mut len) }, 0);
            seen.1 += 1;
        }
        let mut na = 0;
        assert_eq!(unsafe { nc_inq_natts(g, &mut na) }, 0);
        let mut nv = 0;
        assert_eq!(unsafe { nc_inq_nvars(g, &mut nv) }, 0);
        for v in std::iter::once(NC_GLOBAL).chain(0..nv) {
            let mut natts = na;
            if v != NC_GLOBAL {
                let (mut t, mut ndims) = (0, 0);
                let mut vd = [0; 1024];
                assert_eq!(
                    unsafe { nc_inq_var(g, v, name.as_mut_ptr(), &mut t, &mut ndims, vd.as_mut_ptr(), &mut natts) },
                    0
                );
                for &d in &vd[..ndims as usize] {
                    let mut dn = [0 as c_char; 257];
                    assert_eq!(unsafe { nc_inq_dimname(g, d, dn.as_mut_ptr()) }, 0);
                    let mut found = -1;
                    assert_eq!(unsafe { nc_inq_dimid(g, dn.as_ptr(), &mut found) }, 0);
                    assert_eq!(found, d);
                }
                seen.2 += 1;
            }
            for a in 0..natts {
                assert_eq!(unsafe { nc_inq_attname(g, v, a, name.as_mut_ptr()) }, 0);
                let (mut t, mut len) = (0, 0);
                assert_eq!(unsafe { nc_inq_att(g, v, name.as_ptr(), &mut t, &mut len) }, 0);
                let mut buf = vec![0f64; len.max(1)];
                if t != NC_CHAR && t != NC_STRING {
                    assert_eq!(unsafe { nc_get_att_double(g, v, name.as_ptr(), buf.as_mut_ptr()) }, 0);
                }
                seen.3 += 1;
            }
        }
        let mut ng = 0;
        assert_eq!(unsafe { nc_inq_grps(g, &mut ng, std::ptr::null_mut()) }, 0);
        let mut kids = vec![0; ng as usize];
        assert_eq!(unsafe { nc_inq_grps(g, &mut ng, kids.as_mut_ptr()) }, 0);
        stack.extend(kids);
    }
    seen
}

/// Open `d` and walk it; the seconds taken, and what was seen.
fn timed_walk(d: &Path, mode: &str) -> (Duration, (usize, usize, usize, usize)) {
    let t0 = Instant::now();
    let ncid = open(d, mode);
    let seen = header_walk(ncid);
    assert_eq!(nc_close(ncid), 0);
    (t0.elapsed(), seen)
}

/// Far above what a linear open and walk take (about a second each, on a
/// busy machine), far below what a quadratic one took (a minute and more).
const LINEAR: Duration = Duration::from_secs(30);

/// Write `.zmetadata` (and the root objects) for a consolidated dataset.
fn consolidated(d: &Path, meta: serde_json::Map<String, Value>) {
    put(d, ".zgroup", &meta[".zgroup"].to_string());
    put(d, ".zattrs", &meta[".zattrs"].to_string());
    put(
        d,
        ".zmetadata",
        &json!({"metadata": meta, "zarr_consolidated_format": 1}).to_string(),
    );
}

const N: usize = 100_000;

#[test]
fn a_hundred_thousand_of_each_open_in_seconds() {
    let tmp = tempfile::tempdir().unwrap();

    // Attributes: one variable and the root group with 100 000 each.
    let d = tmp.path().join("atts.zarr");
    let mut a = serde_json::Map::new();
    a.insert("_ARRAY_DIMENSIONS".into(), json!(["x"]));
    for i in 0..N {
        a.insert(format!("att{i}"), json!(i));
    }
    let root: serde_json::Map<String, Value> = (0..N).map(|i| (format!("g{i}"), json!(i as f64 + 0.5))).collect();
    pure(&d, &Value::Object(root).to_string(), &Value::Object(a).to_string());
    let (t, seen) = timed_walk(&d, "zarr");
    assert_eq!(seen, (1, 1, 1, 2 * N));
    assert!(t < LINEAR, "attributes: {t:?}");

    // Variables and dimensions: NCZarr, each variable on a dimension of its own.
    let d = tmp.path().join("vars.zarr");
    let mut meta = serde_json::Map::new();
    let dims: serde_json::Map<String, Value> = (0..N).map(|i| (format!("d{i}"), json!(i % 7 + 1))).collect();
    let arrays: Vec<String> = (0..N).map(|i| format!("v{i}")).collect();
    meta.insert(".zgroup".into(), json!({"zarr_format": 2}));
    meta.insert(
        ".zattrs".into(),
        json!({"_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": {"dimensions": dims, "arrays": arrays, "groups": []}}),
    );
    for i in 0..N {
        meta.insert(
            format!("v{i}/.zarray"),
            json!({"zarr_format": 2, "shape": [i % 7 + 1], "chunks": [i % 7 + 1], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}),
        );
        meta.insert(
            format!("v{i}/.zattrs"),
            json!({"_nczarr_array": {"dimension_references": [format!("/d{i}")]}}),
        );
    }
    consolidated(&d, meta);
    let (t, seen) = timed_walk(&d, "nczarr");
    assert_eq!(seen, (1, N, N, 0));
    assert!(t < LINEAR, "variables and dimensions: {t:?}");

    // Groups: an ncid holds a group index in 16 bits, so 65 536 of them
    // (the root and 65 535 more) are shown; the rest are hidden.
    let d = tmp.path().join("groups.zarr");
    let mut meta = serde_json::Map::new();
    let groups: Vec<String> = (0..N).map(|i| format!("g{i}")).collect();
    meta.insert(".zgroup".into(), json!({"zarr_format": 2}));
    meta.insert(
        ".zattrs".into(),
        json!({"_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": {"dimensions": {}, "arrays": [], "groups": groups}}),
    );
    for g in &groups {
        meta.insert(format!("{g}/.zgroup"), json!({"zarr_format": 2}));
        meta.insert(
            format!("{g}/.zattrs"),
            json!({"_nczarr_group": {"dimensions": {"x": 2}, "arrays": [], "groups": []}}),
        );
    }
    consolidated(&d, meta);
    let (t, seen) = timed_walk(&d, "nczarr");
    assert_eq!(seen, (1 << 16, (1 << 16) - 1, 0, 0));
    assert!(t < LINEAR, "groups: {t:?}");
}
