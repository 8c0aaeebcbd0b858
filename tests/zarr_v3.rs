//! Zarr v3 through the C API: datasets written by zarr-python 3 and xarray
//! (testdata/v3, made by testdata/v3/generate.py, each with the netCDF view
//! it must give in expected.json) read with the right values on every
//! storage kind; hand-made hostile metadata and shards are errors or hidden
//! arrays, never a crash or wrong values.

mod common;
use common::{check, copy_tree};
use std::ffi::{CStr, CString, c_char, c_int};
use std::fs;
use std::path::{Path, PathBuf};

use netcdf::ffi::*;
use serde_json::{Value, json};

const NC_ENOTVAR: c_int = -49;
const NC_ENOTNC: c_int = -51;
const NC_ENCZARR: c_int = -137;
const NC_ENOFILTER: c_int = -136;

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/v3").join(name)
}

fn cs(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn url(p: &Path, mode: &str) -> String {
    format!("file://{}#mode={mode}", p.display())
}

fn open(path: &str) -> c_int {
    let mut ncid = -1;
    let rc = unsafe { nc_open(cs(path).as_ptr(), 0, &mut ncid) };
    assert_eq!(rc, 0, "nc_open({path}) = {rc}");
    ncid
}

fn open_rc(path: &str) -> c_int {
    let mut ncid = -1;
    let rc = unsafe { nc_open(cs(path).as_ptr(), 0, &mut ncid) };
    if rc == 0 {
        check(nc_close(ncid));
    }
    rc
}

/// The group and variable name of a variable path (`/g1/a`).
fn locate(ncid: c_int, path: &str) -> (c_int, String) {
    let (g, name) = path.rsplit_once('/').unwrap();
    let g = if g.is_empty() { "/" } else { g };
    let mut grp = -1;
    unsafe { check(nc_inq_grp_full_ncid(ncid, cs(g).as_ptr(), &mut grp)) };
    (grp, name.to_string())
}

fn varid(grp: c_int, name: &str) -> c_int {
    let mut v = -1;
    let rc = unsafe { nc_inq_varid(grp, cs(name).as_ptr(), &mut v) };
    assert_eq!(rc, 0, "no variable {name}");
    v
}

fn name_of(buf: &[c_char]) -> String {
    unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
}

/// A value of expected.json as f64 ("NaN", "Infinity", "-Infinity" too).
fn num(v: &Value) -> f64 {
    match v {
        Value::String(s) => match s.as_str() {
            "NaN" => f64::NAN,
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            _ => panic!("not a number: {s}"),
        },
        v => v.as_f64().unwrap(),
    }
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b
}

/// Read a whole variable as strings.
fn strings(grp: c_int, v: c_int, n: usize) -> Vec<String> {
    let mut p: Vec<*mut c_char> = vec![std::ptr::null_mut(); n];
    unsafe {
        check(nc_get_var_string(grp, v, p.as_mut_ptr()));
        let out = p
            .iter()
            .map(|&s| {
                if s.is_null() {
                    String::new()
                } else {
                    CStr::from_ptr(s).to_string_lossy().into_owned()
                }
            })
            .collect();
        check(nc_free_string(n, p.as_mut_ptr()));
        out
    }
}

/// Check one variable against its expected.json entry.
fn check_var(ncid: c_int, path: &str, want: &Value) {
    let (grp, name) = locate(ncid, path);
    let v = varid(grp, &name);
    let mut ty = 0;
    let mut ndims = 0;
    let mut dimids = [0 as c_int; 16];
    unsafe {
        check(nc_inq_var(
            grp,
            v,
            std::ptr::null_mut(),
            &mut ty,
            &mut ndims,
            dimids.as_mut_ptr(),
            std::ptr::null_mut(),
        ))
    };
    assert_eq!(ty as i64, want["type"].as_i64().unwrap(), "{path}: type");
    let dims = want["dims"].as_array().unwrap();
    assert_eq!(ndims as usize, dims.len(), "{path}: rank");
    let mut n = 1usize;
    for (d, w) in dimids[..ndims as usize].iter().zip(dims) {
        let mut buf = [0 as c_char; 257];
        let mut len = 0usize;
        unsafe { check(nc_inq_dim(grp, *d, buf.as_mut_ptr(), &mut len)) };
        assert_eq!(name_of(&buf), w[0].as_str().unwrap(), "{path}: dimension name");
        assert_eq!(len as u64, w[1].as_u64().unwrap(), "{path}: dimension length");
        n *= len;
    }
    let values = want["values"].as_array().unwrap();
    assert_eq!(values.len(), n, "{path}: expected.json value count");
    match ty {
        12 => {
            let got = strings(grp, v, n);
            let want: Vec<&str> = values.iter().map(|x| x.as_str().unwrap()).collect();
            assert_eq!(got, want, "{path}");
        }
        2 => {
            let mut got = vec![0u8; n];
            unsafe { check(nc_get_var_text(grp, v, got.as_mut_ptr().cast())) };
            let want: Vec<u8> = values.iter().map(|x| x.as_u64().unwrap() as u8).collect();
            assert_eq!(got, want, "{path}");
        }
        10 => {
            let mut got = vec![0i64; n];
            unsafe { check(nc_get_var_longlong(grp, v, got.as_mut_ptr())) };
            let want: Vec<i64> = values.iter().map(|x| x.as_i64().unwrap()).collect();
            assert_eq!(got, want, "{path}");
        }
        11 => {
            let mut got = vec![0u64; n];
            unsafe { check(nc_get_var_ulonglong(grp, v, got.as_mut_ptr())) };
            let want: Vec<u64> = values.iter().map(|x| x.as_u64().unwrap()).collect();
            assert_eq!(got, want, "{path}");
        }
        _ => {
            let mut got = vec![0f64; n];
            unsafe { check(nc_get_var_double(grp, v, got.as_mut_ptr())) };
            for (i, (g, w)) in got.iter().zip(values).enumerate() {
                assert!(same(*g, num(w)), "{path}[{i}]: got {g}, expected {w}");
            }
        }
    }
}

/// Check one attribute (numbers, text, lists of numbers or strings).
fn check_att(grp: c_int, v: c_int, name: &str, want: &Value, what: &str) {
    let mut ty = 0;
    let mut len = 0usize;
    let n = cs(name);
    let rc = unsafe { nc_inq_att(grp, v, n.as_ptr(), &mut ty, &mut len) };
    assert_eq!(rc, 0, "{what}: attribute {name}");
    match want {
        Value::String(s) => {
            assert_eq!(ty, 2, "{what}:{name} is text");
            let mut buf = vec![0u8; len];
            unsafe { check(nc_get_att_text(grp, v, n.as_ptr(), buf.as_mut_ptr().cast())) };
            assert_eq!(String::from_utf8(buf).unwrap(), *s, "{what}:{name}");
        }
        Value::Array(a) if a.iter().all(Value::is_string) => {
            assert_eq!((ty, len), (12, a.len()), "{what}:{name} is a string list");
            let mut p: Vec<*mut c_char> = vec![std::ptr::null_mut(); len];
            unsafe {
                check(nc_get_att_string(grp, v, n.as_ptr(), p.as_mut_ptr()));
                for (s, w) in p.iter().zip(a) {
                    assert_eq!(CStr::from_ptr(*s).to_str().unwrap(), w.as_str().unwrap());
                }
                check(nc_free_string(len, p.as_mut_ptr()));
            }
        }
        w => {
            let want: Vec<f64> = match w {
                Value::Array(a) => a.iter().map(num).collect(),
                x => vec![num(x)],
            };
            assert_eq!(len, want.len(), "{what}:{name} length");
            let mut got = vec![0f64; len];
            unsafe { check(nc_get_att_double(grp, v, n.as_ptr(), got.as_mut_ptr())) };
            for (g, w) in got.iter().zip(&want) {
                assert!(same(*g, *w), "{what}:{name}: got {g}, expected {w}");
            }
        }
    }
}

/// Check a whole dataset against its expected.json.
fn check_dataset(path: &str, expected: &Path) {
    let want: Value = serde_json::from_slice(&fs::read(expected).unwrap()).unwrap();
    let ncid = open(path);
    for (p, w) in want["vars"].as_object().unwrap() {
        check_var(ncid, p, w);
    }
    for h in want["hidden"].as_array().unwrap() {
        let (grp, name) = locate(ncid, h.as_str().unwrap());
        let mut v = -1;
        let rc = unsafe { nc_inq_varid(grp, cs(&name).as_ptr(), &mut v) };
        assert_eq!(rc, NC_ENOTVAR, "{h} must be hidden");
    }
    for (p, atts) in want["atts"].as_object().unwrap() {
        let (grp, v) = if let Some(g) = p.strip_suffix('/') {
            let mut grp = -1;
            let g = if g.is_empty() { "/" } else { g };
            unsafe { check(nc_inq_grp_full_ncid(ncid, cs(g).as_ptr(), &mut grp)) };
            (grp, -1)
        } else {
            let (grp, name) = locate(ncid, p);
            (grp, varid(grp, &name))
        };
        for (name, w) in atts.as_object().unwrap() {
            check_att(grp, v, name, w, p);
        }
    }
    check(nc_close(ncid));
}

fn each_url(dir: &Path) -> Vec<String> {
    vec![
        dir.to_str().unwrap().to_string(),
        url(dir, "zarr,file"),
        url(dir, "nczarr,file"),
        url(dir, "zarr,v3,file"),
        url(dir, "nczarr,v3,file"),
    ]
}

#[test]
fn zarr_python_defaults_read_on_every_path_form() {
    let d = testdata("zp3_defaults.zarr");
    for u in each_url(&d) {
        check_dataset(&u, &d.join("expected.json"));
    }
}

#[test]
fn zip_archives_read_as_their_directory() {
    let z = testdata("zp3_defaults.zarr.zip");
    let expected = testdata("zp3_defaults.zarr").join("expected.json");
    check_dataset(z.to_str().unwrap(), &expected);
    check_dataset(&url(&z, "zarr,zip"), &expected);
}

#[test]
fn without_consolidated_metadata_the_store_is_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d.zarr");
    copy_tree(&testdata("zp3_defaults.zarr"), &d);
    let root = d.join("zarr.json");
    let mut m: Value = serde_json::from_slice(&fs::read(&root).unwrap()).unwrap();
    // Invalid consolidated metadata is ignored: the store is listed instead.
    m["consolidated_metadata"]["kind"] = json!("elsewhere");
    fs::write(&root, serde_json::to_vec(&m).unwrap()).unwrap();
    check_dataset(d.to_str().unwrap(), &d.join("expected.json"));
    m.as_object_mut().unwrap().remove("consolidated_metadata");
    fs::write(&root, serde_json::to_vec(&m).unwrap()).unwrap();
    check_dataset(&url(&d, "zarr,file"), &d.join("expected.json"));
}

#[test]
fn consolidated_metadata_is_used_when_valid() {
    // Nodes whose zarr.json is only in the consolidated metadata are seen:
    // the store is not listed.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d.zarr");
    copy_tree(&testdata("zp3_defaults.zarr"), &d);
    fs::remove_file(d.join("g1/g2/zarr.json")).unwrap();
    fs::remove_file(d.join("g1/g2/b/zarr.json")).unwrap();
    check_dataset(d.to_str().unwrap(), &d.join("expected.json"));
}

#[test]
fn every_codec_reads() {
    let d = testdata("zp3_codecs.zarr");
    check_dataset(&url(&d, "zarr,file"), &d.join("expected.json"));
}

#[test]
fn sharded_arrays_read() {
    let d = testdata("zp3_shards.zarr");
    check_dataset(&url(&d, "zarr,file"), &d.join("expected.json"));
}

#[test]
fn xarray_defaults_read() {
    let d = testdata("xr3_defaults.zarr");
    check_dataset(d.to_str().unwrap(), &d.join("expected.json"));
}

#[test]
fn the_reference_fixture_reads() {
    // zv3_basic: the v3 case of the fixture set (zarr-python 3.1.6).
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fixtures/zv3_basic/data.zarr");
    let want = json!({
        "vars": {
            "/a": {"type": 4, "dims": [["y", 5], ["x", 7]], "values": (0..35).collect::<Vec<i32>>()},
            "/b": {"type": 6, "dims": [["x", 7]], "values": (0..7).map(|i| f64::from(i) / 2.0).collect::<Vec<_>>()},
            "/sub/c": {"type": 8, "dims": [["z", 3]], "values": [1, 2, 3]},
        },
        "hidden": [],
        "atts": {"/": {"title": "zarr v3"}},
    });
    let tmp = tempfile::tempdir().unwrap();
    let e = tmp.path().join("expected.json");
    fs::write(&e, want.to_string()).unwrap();
    check_dataset(&url(&d, "zarr,file"), &e);
    check_dataset(d.to_str().unwrap(), &e);
}

#[test]
fn filters_and_codecs_of_v3_arrays() {
    let d = testdata("zp3_codecs.zarr");
    let ncid = open(&url(&d, "zarr,file"));
    let ids = |name: &str| -> Vec<u32> {
        let v = varid(ncid, name);
        let mut n = 0usize;
        let mut ids = [0u32; 8];
        unsafe {
            check(nc_inq_var_filter_ids(ncid, v, &mut n, std::ptr::null_mut()));
            check(nc_inq_var_filter_ids(ncid, v, &mut n, ids.as_mut_ptr()));
        }
        ids[..n].to_vec()
    };
    assert_eq!(ids("zstd9"), [32015]);
    assert_eq!(ids("gzip"), [40101]);
    assert_eq!(ids("crc32c"), [32015, 40106]);
    assert_eq!(ids("nc_shuffle_zstd"), [2, 32015]);
    assert_eq!(ids("transpose"), [40107, 40101]);
    assert_eq!(ids("nocodec"), Vec::<u32>::new());
    // zstd level 9 as nc_inq_var_filter_info answers it.
    let v = varid(ncid, "zstd9");
    let mut np = 0usize;
    let mut params = [0u32; 4];
    unsafe {
        check(nc_inq_var_filter_info(ncid, v, 32015, &mut np, params.as_mut_ptr()));
    }
    assert_eq!(&params[..np], [9]);
    // _Codecs shows the chain; the byte order comes from the bytes codec.
    let mut len = 0usize;
    unsafe { check(nc_inq_attlen(ncid, v, c"_Codecs".as_ptr(), &mut len)) };
    let mut buf = vec![0u8; len];
    unsafe { check(nc_get_att_text(ncid, v, c"_Codecs".as_ptr(), buf.as_mut_ptr().cast())) };
    let codecs: Value = serde_json::from_slice(&buf).unwrap();
    assert_eq!(codecs, json!([{"id": "zstd", "level": 9, "checksum": true}]));
    let mut endian = -1;
    unsafe { check(nc_inq_var_endian(ncid, varid(ncid, "big"), &mut endian)) };
    assert_eq!(endian, 2, "NC_ENDIAN_BIG");
    unsafe { check(nc_inq_var_endian(ncid, varid(ncid, "gzip"), &mut endian)) };
    assert_eq!(endian, 1, "NC_ENDIAN_LITTLE");
    check(nc_close(ncid));
}

#[test]
fn mode_v2_does_not_open_v3() {
    let d = testdata("zp3_defaults.zarr");
    assert_eq!(open_rc(&url(&d, "zarr,v2,file")), NC_ENOTNC);
    assert_eq!(open_rc(&url(&d, "zarr,v3,file")), 0);
    // ... nor v3 a v2 dataset.
    let v2 = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fixtures/zarr_pure/data.zarr");
    assert_eq!(open_rc(&url(&v2, "zarr,v3,file")), NC_ENOTNC);
    assert_eq!(open_rc(&url(&v2, "zarr,file")), 0);
}

// ----- hostile metadata -----

/// A named edit of an array's `zarr.json`.
type MetaEdit = (&'static str, Box<dyn Fn(&mut Value)>);

/// A named edit of an array's `zarr.json` and what reading the array gives then.
type Tolerated = (&'static str, Box<dyn Fn(&mut Value)>, Result<Vec<i32>, c_int>);

/// A named edit of a shard (its bytes, the offset of its index).
type ShardEdit = (&'static str, Box<dyn Fn(&mut Vec<u8>, usize)>);

/// A one-array dataset: root group plus array `a` with this `zarr.json`
/// and chunk objects.
fn one_array(dir: &Path, meta: &Value, chunks: &[(&str, &[u8])]) {
    fs::create_dir_all(dir.join("a")).unwrap();
    fs::write(
        dir.join("zarr.json"),
        r#"{"zarr_format": 3, "node_type": "group", "attributes": {}}"#,
    )
    .unwrap();
    fs::write(dir.join("a/zarr.json"), meta.to_string()).unwrap();
    for (k, b) in chunks {
        let p = dir.join("a").join(k);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, b).unwrap();
    }
}

fn base_meta() -> Value {
    json!({
        "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "int32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 7, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "attributes": {}, "dimension_names": ["x"]
    })
}

/// Open the dataset; None when `a` is hidden, else the result of reading
/// `a` whole (its values, or the error code).
fn read_a(dir: &Path) -> Option<Result<Vec<i32>, c_int>> {
    let ncid = open(&url(dir, "zarr,file"));
    let mut v = -1;
    let rc = unsafe { nc_inq_varid(ncid, c"a".as_ptr(), &mut v) };
    let out = if rc == NC_ENOTVAR {
        None
    } else {
        assert_eq!(rc, 0);
        let mut len = 0usize;
        let mut d = [0 as c_int; 4];
        unsafe {
            check(nc_inq_vardimid(ncid, v, d.as_mut_ptr()));
            check(nc_inq_dimlen(ncid, d[0], &mut len));
        }
        let mut got = vec![0i32; len];
        let rc = unsafe { nc_get_var_int(ncid, v, got.as_mut_ptr()) };
        Some(if rc == 0 { Ok(got) } else { Err(rc) })
    };
    check(nc_close(ncid));
    out
}

fn le(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn hostile_array_metadata_hides_the_array() {
    let tmp = tempfile::tempdir().unwrap();
    let ok = tmp.path().join("ok.zarr");
    one_array(&ok, &base_meta(), &[("c/0", &le(&[1, 2]))]);
    assert_eq!(read_a(&ok), Some(Ok(vec![1, 2, 7, 7])));
    let edits: Vec<MetaEdit> = vec![
        ("unknown data type", Box::new(|m| m["data_type"] = json!("float8_e4m3"))),
        ("complex", Box::new(|m| m["data_type"] = json!("complex128"))),
        ("null fill", Box::new(|m| m["fill_value"] = json!(null))),
        ("fill out of range", Box::new(|m| m["fill_value"] = json!(1u64 << 40))),
        ("fill of another type", Box::new(|m| m["fill_value"] = json!("seven"))),
        ("no codecs", Box::new(|m| m["codecs"] = json!([]))),
        (
            "codecs not a list",
            Box::new(|m| m["codecs"] = json!({"name": "bytes"})),
        ),
        (
            "no serializer",
            Box::new(|m| m["codecs"] = json!([{"name": "zstd", "configuration": {"level": 1}}])),
        ),
        (
            "unknown array codec",
            Box::new(|m| m["codecs"] = json!(["bitsqueeze", "bytes"])),
        ),
        ("vlen for numbers", Box::new(|m| m["codecs"] = json!(["vlen-utf8"]))),
        (
            "bad endian",
            Box::new(|m| m["codecs"] = json!([{"name": "bytes", "configuration": {"endian": "pdp"}}])),
        ),
        (
            "bad transpose",
            Box::new(|m| m["codecs"] = json!([{"name": "transpose", "configuration": {"order": [1]}}, "bytes"])),
        ),
        (
            "rectilinear grid",
            Box::new(|m| m["chunk_grid"]["name"] = json!("rectilinear")),
        ),
        (
            "chunk rank",
            Box::new(|m| m["chunk_grid"]["configuration"]["chunk_shape"] = json!([2, 2])),
        ),
        (
            "zero chunk",
            Box::new(|m| m["chunk_grid"]["configuration"]["chunk_shape"] = json!([0])),
        ),
        (
            "huge chunk",
            Box::new(|m| m["chunk_grid"]["configuration"]["chunk_shape"] = json!([1u64 << 40])),
        ),
        ("negative shape", Box::new(|m| m["shape"] = json!([-4]))),
        (
            "overflowing shape",
            Box::new(|m| {
                m["shape"] = json!([u64::MAX, u64::MAX]);
                m["chunk_grid"]["configuration"]["chunk_shape"] = json!([1, 1]);
                m["dimension_names"] = json!(null);
            }),
        ),
        (
            "key encoding",
            Box::new(|m| m["chunk_key_encoding"] = json!({"name": "hashed"})),
        ),
        (
            "separator",
            Box::new(|m| m["chunk_key_encoding"]["configuration"]["separator"] = json!("-")),
        ),
        (
            "storage transformer",
            Box::new(|m| m["storage_transformers"] = json!([{"name": "x"}])),
        ),
        (
            "extension",
            Box::new(|m| m["new_feature"] = json!({"must_understand": true})),
        ),
        ("plain extension", Box::new(|m| m["new_feature"] = json!(3))),
        (
            "dimension names",
            Box::new(|m| m["dimension_names"] = json!(["x", "y"])),
        ),
        (
            "bad dimension name",
            Box::new(|m| m["dimension_names"] = json!(["a/b"])),
        ),
        ("wrong zarr_format", Box::new(|m| m["zarr_format"] = json!(4))),
        (
            "sharding too many inner chunks",
            Box::new(|m| {
                m["shape"] = json!([1u64 << 40]);
                m["chunk_grid"]["configuration"]["chunk_shape"] = json!([1u64 << 30]);
                m["codecs"] = json!([{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [1], "codecs": ["bytes"], "index_codecs": ["bytes", "crc32c"]}}]);
            }),
        ),
        (
            "sharding inner shape",
            Box::new(|m| {
                m["codecs"] = json!([{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [3], "codecs": ["bytes"]}}]);
            }),
        ),
        (
            "sharding index codecs",
            Box::new(|m| {
                m["codecs"] = json!([{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [1], "codecs": ["bytes"], "index_codecs": ["bytes", {"name": "gzip", "configuration": {"level": 1}}]}}]);
            }),
        ),
        (
            "codec after sharding",
            Box::new(|m| {
                m["codecs"] = json!([{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [1], "codecs": ["bytes"]}}, {"name": "gzip", "configuration": {"level": 1}}]);
            }),
        ),
    ];
    for (what, edit) in edits {
        let d = tmp.path().join(format!("{}.zarr", what.replace(' ', "_")));
        let mut m = base_meta();
        edit(&mut m);
        one_array(&d, &m, &[("c/0", &le(&[1, 2]))]);
        assert_eq!(read_a(&d), None, "{what}: the array must be hidden");
    }
    // Not JSON at all: hidden too; the dataset still opens.
    let d = tmp.path().join("notjson.zarr");
    one_array(&d, &base_meta(), &[]);
    fs::write(d.join("a/zarr.json"), b"{\"zarr_format\": 3, ").unwrap();
    assert_eq!(read_a(&d), None);
}

#[test]
fn tolerated_metadata() {
    let tmp = tempfile::tempdir().unwrap();
    let edits: Vec<Tolerated> = vec![
        (
            "an optional extension",
            Box::new(|m| m["new_feature"] = json!({"must_understand": false, "x": 1})),
            Ok(vec![1, 2, 7, 7]),
        ),
        (
            "an optional codec",
            Box::new(|m| m["codecs"] = json!(["bytes", {"name": "hint", "must_understand": false}])),
            Ok(vec![1, 2, 7, 7]),
        ),
        (
            "a hex fill",
            Box::new(|m| {
                m["data_type"] = json!("float32");
                m["fill_value"] = json!("0x3fc00000");
            }),
            Ok(vec![1, 2, 1, 1]),
        ),
        (
            "an unknown bytes codec: NC_ENOFILTER on reading, as for v2",
            Box::new(|m| m["codecs"] = json!(["bytes", {"name": "mystery", "configuration": {}}])),
            Err(NC_ENOFILTER),
        ),
        (
            "the v2 key encoding",
            Box::new(|m| m["chunk_key_encoding"] = json!({"name": "v2"})),
            Ok(vec![7, 7, 1, 2]),
        ),
    ];
    for (what, edit, want) in edits {
        let d = tmp.path().join(format!("{}.zarr", what.len()));
        let mut m = base_meta();
        edit(&mut m);
        let chunk = if m["data_type"] == "float32" {
            [1.0f32, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect()
        } else {
            le(&[1, 2])
        };
        // (`c/0` for the default encoding, `1` for v2.)
        one_array(&d, &m, &[("c/0", &chunk), ("1", &chunk)]);
        assert_eq!(read_a(&d), Some(want), "{what}");
    }
}

#[test]
fn hostile_roots() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("r.zarr");
    fs::create_dir_all(&d).unwrap();
    for (root, want) in [
        (&b"not json"[..], NC_ENCZARR),
        (br#"{"zarr_format": 3, "node_type": "array"}"#, NC_ENOTNC),
        (br#"{"zarr_format": 3}"#, NC_ENCZARR),
        (
            br#"{"zarr_format": 3, "node_type": "group", "must": {"must_understand": true}}"#,
            NC_ENOTNC,
        ),
        (br#"[1, 2]"#, NC_ENCZARR),
    ] {
        fs::write(d.join("zarr.json"), root).unwrap();
        assert_eq!(open_rc(d.to_str().unwrap()), want, "{}", String::from_utf8_lossy(root));
    }
    // A group whose zarr.json is broken is skipped; the rest reads.
    fs::write(d.join("zarr.json"), br#"{"zarr_format": 3, "node_type": "group"}"#).unwrap();
    fs::create_dir_all(d.join("g")).unwrap();
    fs::write(d.join("g/zarr.json"), b"{").unwrap();
    fs::create_dir_all(d.join("h")).unwrap();
    fs::write(d.join("h/zarr.json"), br#"{"zarr_format": 3, "node_type": "group"}"#).unwrap();
    let ncid = open(d.to_str().unwrap());
    let mut g = -1;
    unsafe {
        assert_eq!(nc_inq_grp_ncid(ncid, c"g".as_ptr(), &mut g), -125, "NC_ENOGRP");
        check(nc_inq_grp_ncid(ncid, c"h".as_ptr(), &mut g));
        check(nc_close(ncid));
    }
}

// ----- hostile shards -----

/// The `default` array of zp3_shards (10x10 int16, shards 4x10, inner 2x5,
/// index at the end with crc32c), copied, with its shard `c/0/0` rewritten
/// by `edit` (given the shard bytes and the index offset).
fn edited_shard(tmp: &Path, name: &str, edit: &dyn Fn(&mut Vec<u8>, usize)) -> PathBuf {
    let d = tmp.join(name);
    copy_tree(&testdata("zp3_shards.zarr"), &d);
    let p = d.join("default/c/0/0");
    let mut b = fs::read(&p).unwrap();
    let at = b.len() - (16 * 4 + 4);
    edit(&mut b, at);
    fs::write(&p, b).unwrap();
    d
}

/// Re-seal an index after editing it (the crc32c of its entries).
fn reseal(b: &mut [u8], at: usize) {
    let n = b.len() - at - 4;
    let s = netcdf::codec::checksum::crc32c(&b[at..at + n]);
    let end = b.len();
    b[end - 4..].copy_from_slice(&s.to_le_bytes());
}

fn set_entry(b: &mut [u8], at: usize, i: usize, off: u64, len: u64) {
    b[at + 16 * i..at + 16 * i + 8].copy_from_slice(&off.to_le_bytes());
    b[at + 16 * i + 8..at + 16 * i + 16].copy_from_slice(&len.to_le_bytes());
}

/// Read `default` of a shards dataset: whole, then the row range 4.. (not
/// in shard c/0/0, which must still read).
fn read_default(d: &Path) -> (c_int, Vec<i16>) {
    let ncid = open(&url(d, "zarr,file"));
    let v = varid(ncid, "default");
    let mut all = vec![0i16; 100];
    let rc = unsafe { nc_get_var_short(ncid, v, all.as_mut_ptr()) };
    let mut rest = vec![0i16; 60];
    unsafe {
        check(nc_get_vara_short(
            ncid,
            v,
            [4, 0].as_ptr(),
            [6, 10].as_ptr(),
            rest.as_mut_ptr(),
        ))
    };
    assert!(rest.iter().all(|&x| x == 7), "other shards read as fill");
    check(nc_close(ncid));
    (rc, all)
}

#[test]
fn hostile_shards_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let (rc, all) = read_default(&edited_shard(tmp.path(), "same.zarr", &|_, _| {}));
    assert_eq!(rc, 0);
    assert_eq!(&all[..12], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    let cases: Vec<ShardEdit> = vec![
        ("bad checksum", Box::new(|b, at| b[at] ^= 1)),
        ("truncated shard", Box::new(|b, _| b.truncate(b.len() - 30))),
        ("shorter than its index", Box::new(|b, _| b.truncate(20))),
        ("empty shard", Box::new(|b, _| b.clear())),
        (
            "chunk past the end",
            Box::new(|b, at| {
                set_entry(b, at, 0, 0, at as u64 + 1);
                reseal(b, at);
            }),
        ),
        (
            "chunk inside the index",
            Box::new(|b, at| {
                set_entry(b, at, 1, at as u64 - 2, 4);
                reseal(b, at);
            }),
        ),
        (
            "overflowing range",
            Box::new(|b, at| {
                set_entry(b, at, 0, u64::MAX - 2, 10);
                reseal(b, at);
            }),
        ),
        (
            "half-empty entry",
            Box::new(|b, at| {
                set_entry(b, at, 0, u64::MAX, 3);
                reseal(b, at);
            }),
        ),
        (
            "chunk that decodes to garbage",
            Box::new(|b, at| {
                let (off, len) = (
                    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize,
                    u64::from_le_bytes(b[at + 8..at + 16].try_into().unwrap()) as usize,
                );
                for x in &mut b[off..off + len] {
                    *x = 0xa5;
                }
            }),
        ),
    ];
    for (what, edit) in cases {
        let d = edited_shard(tmp.path(), &format!("{}.zarr", what.replace(' ', "_")), &*edit);
        let (rc, _) = read_default(&d);
        assert!(rc == NC_ENCZARR || rc == -132, "{what}: got {rc}");
    }
    // An empty inner chunk (both entries 2^64-1) reads as fill.
    let d = edited_shard(tmp.path(), "emptied.zarr", &|b, at| {
        set_entry(b, at, 0, u64::MAX, u64::MAX);
        reseal(b, at);
    });
    let (rc, all) = read_default(&d);
    assert_eq!(rc, 0);
    assert_eq!(&all[..5], &[7; 5], "the emptied inner chunk is fill");
    assert_eq!(&all[5..10], &[6, 7, 8, 9, 10]);
}

#[test]
fn an_inner_chunk_larger_than_its_encoding_may_be_is_an_error() {
    // Uncompressed inner chunks of 2 int32 (8 bytes): an entry of 4 KiB is
    // refused before anything is read.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("big.zarr");
    let mut m = base_meta();
    m["chunk_grid"]["configuration"]["chunk_shape"] = json!([4]);
    m["codecs"] = json!([{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [2], "codecs": ["bytes"], "index_codecs": ["bytes"], "index_location": "start"}}]);
    let mut shard = Vec::new();
    for v in [32u64, 4096, u64::MAX, u64::MAX] {
        shard.extend_from_slice(&v.to_le_bytes());
    }
    shard.extend(std::iter::repeat_n(1u8, 4096));
    one_array(&d, &m, &[("c/0", &shard)]);
    assert_eq!(read_a(&d), Some(Err(NC_ENCZARR)));
    // The same shard with the right length reads.
    shard[8..16].copy_from_slice(&8u64.to_le_bytes());
    shard.truncate(32 + 8);
    shard[32..40].copy_from_slice(&le(&[4, 5]));
    one_array(&d, &m, &[("c/0", &shard)]);
    assert_eq!(read_a(&d), Some(Ok(vec![4, 5, 7, 7])));
}

// ----- writing -----

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&fs::read(p).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn create(path: &str) -> c_int {
    let mut ncid = -1;
    let rc = unsafe { nc_create(cs(path).as_ptr(), 0, &mut ncid) };
    assert_eq!(rc, 0, "nc_create({path}) = {rc}");
    ncid
}

fn def_dim(ncid: c_int, name: &str, len: usize) -> c_int {
    let mut d = -1;
    unsafe { check(nc_def_dim(ncid, cs(name).as_ptr(), len, &mut d)) };
    d
}

fn def_var(ncid: c_int, name: &str, ty: c_int, dims: &[c_int]) -> c_int {
    let mut v = -1;
    unsafe {
        check(nc_def_var(
            ncid,
            cs(name).as_ptr(),
            ty,
            dims.len() as c_int,
            dims.as_ptr(),
            &mut v,
        ))
    };
    v
}

/// Write a dataset of every kind of variable, with filters, in `mode`.
fn write_sample(path: &str) {
    let ncid = create(path);
    let t = def_dim(ncid, "time", 0);
    let y = def_dim(ncid, "y", 3);
    let x = def_dim(ncid, "x", 5);
    unsafe {
        check(nc_put_att_text(ncid, -1, c"title".as_ptr(), 9, c"written 3".as_ptr()));
        let temp = def_var(ncid, "temp", 5, &[t, y, x]);
        check(nc_def_var_chunking(ncid, temp, 0, [1, 2, 3].as_ptr()));
        check(nc_def_var_deflate(ncid, temp, 1, 1, 4));
        let fill = -999.0f32;
        check(nc_def_var_fill(ncid, temp, 0, (&fill as *const f32).cast()));
        check(nc_put_att_text(ncid, temp, c"units".as_ptr(), 1, c"K".as_ptr()));
        let z = def_var(ncid, "zstd", 10, &[y, x]);
        check(nc_def_var_zstandard(ncid, z, 5));
        let b = def_var(ncid, "blosc", 6, &[y, x]);
        check(nc_def_var_blosc(ncid, b, 1, 5, 0, 1));
        let s = def_var(ncid, "names", 12, &[y]);
        let c = def_var(ncid, "chars", 2, &[x]);
        let u = def_var(ncid, "big", 8, &[x]);
        check(nc_def_var_endian(ncid, u, 2));
        let sc = def_var(ncid, "scalar", 4, &[]);
        let mut g = -1;
        check(nc_def_grp(ncid, c"sub".as_ptr(), &mut g));
        let gd = def_dim(g, "n", 2);
        let gv = def_var(g, "v", 1, &[gd, x]);
        check(nc_put_att_int(g, gv, c"valid".as_ptr(), 4, 2, [-1, 1].as_ptr()));
        check(nc_enddef(ncid));
        let tv: Vec<f32> = (0..30).map(|i| i as f32 / 4.0).collect();
        check(nc_put_vara_float(
            ncid,
            temp,
            [0, 0, 0].as_ptr(),
            [2, 3, 5].as_ptr(),
            tv.as_ptr(),
        ));
        // A partial write of record 2: the rest is fill.
        check(nc_put_vara_float(
            ncid,
            temp,
            [2, 1, 1].as_ptr(),
            [1, 1, 2].as_ptr(),
            [7.5f32, 8.5].as_ptr(),
        ));
        let zv: Vec<i64> = (0..15).map(|i| i * 1_000_000_007).collect();
        check(nc_put_var_longlong(ncid, z, zv.as_ptr()));
        let bv: Vec<f64> = (0..15).map(|i| f64::from(i) * 0.1).collect();
        check(nc_put_var_double(ncid, b, bv.as_ptr()));
        let strs = [cs("a"), cs("été"), cs("")];
        let ptrs: Vec<*const c_char> = strs.iter().map(|s| s.as_ptr()).collect();
        check(nc_put_var_string(ncid, s, ptrs.as_ptr().cast_mut()));
        check(nc_put_var_text(ncid, c, c"hello".as_ptr()));
        check(nc_put_var_ushort(ncid, u, [1u16, 256, 513, 65535, 0].as_ptr()));
        check(nc_put_var_int(ncid, sc, &42));
        let gvv: Vec<i8> = (0..10).map(|i| i - 5).collect();
        check(nc_put_var_schar(g, gv, gvv.as_ptr()));
        check(nc_close(ncid));
    }
}

/// The netCDF view of `write_sample`'s dataset.
fn sample_expected(nczarr: bool) -> Value {
    let mut temp: Vec<Value> = (0..30).map(|i| json!(f64::from(i) / 4.0)).collect();
    temp.extend(std::iter::repeat_n(json!(-999.0), 15));
    temp[30 + 6] = json!(7.5);
    temp[30 + 7] = json!(8.5);
    // Pure Zarr keeps no NC_CHAR: the chars are bytes (uint8).
    let chars = if nczarr {
        json!({"type": 2, "dims": [["x", 5]], "values": [104, 101, 108, 108, 111]})
    } else {
        json!({"type": 7, "dims": [["x", 5]], "values": [104, 101, 108, 108, 111]})
    };
    json!({
        "vars": {
            "/temp": {"type": 5, "dims": [["time", 3], ["y", 3], ["x", 5]], "values": temp},
            "/zstd": {"type": 10, "dims": [["y", 3], ["x", 5]], "values": (0..15).map(|i| i * 1_000_000_007i64).collect::<Vec<_>>()},
            "/blosc": {"type": 6, "dims": [["y", 3], ["x", 5]], "values": (0..15).map(|i| f64::from(i) * 0.1).collect::<Vec<_>>()},
            "/names": {"type": 12, "dims": [["y", 3]], "values": ["a", "été", ""]},
            "/chars": chars,
            "/big": {"type": 8, "dims": [["x", 5]], "values": [1, 256, 513, 65535, 0]},
            "/scalar": {"type": 4, "dims": [], "values": [42]},
            "/sub/v": {"type": 1, "dims": [["n", 2], ["x", 5]], "values": (-5..5).collect::<Vec<i32>>()},
        },
        "hidden": [],
        "atts": {"/": {"title": "written 3"}, "/temp": {"units": "K", "_FillValue": -999.0}, "/sub/v": {"valid": [-1, 1]}},
    })
}

#[test]
fn written_v3_reads_back_in_both_flavours() {
    let tmp = tempfile::tempdir().unwrap();
    for (mode, nczarr) in [
        ("nczarr,v3,file", true),
        ("zarr,v3,file", false),
        ("zarr,v3,consolidated,file", false),
    ] {
        let d = tmp.path().join(format!("{}.zarr", mode.replace(',', "_")));
        write_sample(&url(&d, mode));
        // v3 only: zarr.json per node, no v2 objects.
        assert!(!d.join(".zgroup").exists() && !d.join(".zattrs").exists());
        let root = read_json(&d.join("zarr.json"));
        assert_eq!(
            (root["zarr_format"].as_u64(), root["node_type"].as_str()),
            (Some(3), Some("group"))
        );
        let temp = read_json(&d.join("temp/zarr.json"));
        assert_eq!(temp["dimension_names"], json!(["time", "y", "x"]));
        assert_eq!(temp["shape"], json!([3, 3, 5]));
        assert_eq!(temp["chunk_grid"]["configuration"]["chunk_shape"], json!([1, 2, 3]));
        assert_eq!(
            temp["codecs"],
            json!([
                {"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}},
                {"name": "numcodecs.zlib", "configuration": {"level": 4}}
            ])
        );
        assert_eq!(temp["fill_value"], json!(-999.0));
        assert!(d.join("temp/c/0/0/0").is_file(), "default chunk keys");
        let names = read_json(&d.join("names/zarr.json"));
        assert_eq!(names["data_type"], json!("string"));
        assert_eq!(names["codecs"][0]["name"], json!("vlen-utf8"));
        let big = read_json(&d.join("big/zarr.json"));
        assert_eq!(
            big["codecs"][0],
            json!({"name": "bytes", "configuration": {"endian": "big"}})
        );
        let blosc = read_json(&d.join("blosc/zarr.json"));
        assert_eq!(blosc["codecs"][1]["name"], json!("blosc"));
        assert_eq!(blosc["codecs"][1]["configuration"]["shuffle"], json!("shuffle"));
        assert_eq!(blosc["codecs"][1]["configuration"]["typesize"], json!(8));
        assert_eq!(read_json(&d.join("zstd/zarr.json"))["codecs"][1]["name"], json!("zstd"));
        assert_eq!(read_json(&d.join("scalar/zarr.json"))["shape"], json!([]));
        assert!(d.join("scalar/c").is_file(), "a 0-d array's chunk is c");
        let attrs = &root["attributes"];
        assert_eq!(attrs.get("_nczarr_superblock").is_some(), nczarr);
        if nczarr {
            assert_eq!(attrs["_nczarr_group"]["arrays"][0], json!("temp"));
            let info = &read_json(&d.join("sub/v/zarr.json"))["attributes"]["_nczarr_array"];
            assert_eq!(info["dimension_references"], json!(["/sub/n", "/x"]));
            let chars = read_json(&d.join("chars/zarr.json"));
            assert_eq!(chars["data_type"], json!("uint8"));
            assert_eq!(chars["attributes"]["_nczarr_array"]["nczarr_type"], json!("char"));
        }
        assert_eq!(
            root.get("consolidated_metadata").is_some(),
            mode.contains("consolidated")
        );
        let e = tmp.path().join("expected.json");
        fs::write(&e, sample_expected(nczarr).to_string()).unwrap();
        check_dataset(&url(&d, mode), &e);
        check_dataset(d.to_str().unwrap(), &e);
    }
}

#[test]
fn unlimited_dimensions_survive_in_nczarr_v3() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("u.zarr");
    write_sample(&url(&d, "nczarr,v3,file"));
    let ncid = open(d.to_str().unwrap());
    let mut n = 0;
    let mut ids = [0 as c_int; 4];
    unsafe {
        check(nc_inq_unlimdims(ncid, &mut n, ids.as_mut_ptr()));
        check(nc_close(ncid));
    }
    assert_eq!(n, 1, "time is unlimited");
}

#[test]
fn an_existing_v3_dataset_stays_v3() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d.zarr");
    copy_tree(&testdata("zp3_defaults.zarr"), &d);
    let mut ncid = -1;
    unsafe {
        check(nc_open(cs(d.to_str().unwrap()).as_ptr(), 1, &mut ncid));
        let x = {
            let mut x = -1;
            check(nc_inq_dimid(ncid, c"x".as_ptr(), &mut x));
            x
        };
        let v = def_var(ncid, "added", 4, &[x]);
        check(nc_put_var_int(ncid, v, [1, 2, 3, 4, 5, 6, 7].as_ptr()));
        // Changing existing data rewrites only its chunks.
        check(nc_put_vara_int(
            ncid,
            varid(ncid, "i32"),
            [4, 0].as_ptr(),
            [1, 2].as_ptr(),
            [100, 101].as_ptr(),
        ));
        check(nc_close(ncid));
    }
    assert!(!d.join("added/.zarray").exists());
    let added = read_json(&d.join("added/zarr.json"));
    assert_eq!(added["dimension_names"], json!(["x"]));
    // The consolidated metadata was rewritten with the new array.
    let root = read_json(&d.join("zarr.json"));
    assert!(root["consolidated_metadata"]["metadata"].get("added").is_some());
    let mut want = read_json(&d.join("expected.json"));
    want["vars"]["/added"] = json!({"type": 4, "dims": [["x", 7]], "values": [1, 2, 3, 4, 5, 6, 7]});
    want["vars"]["/i32"]["values"][28] = json!(100);
    want["vars"]["/i32"]["values"][29] = json!(101);
    let e = tmp.path().join("expected.json");
    fs::write(&e, want.to_string()).unwrap();
    check_dataset(d.to_str().unwrap(), &e);
}

#[test]
fn the_default_format_comes_from_the_environment() {
    // Only this test creates without a v2/v3 mode key, so the variable
    // cannot reach another test's nc_create.
    let tmp = tempfile::tempdir().unwrap();
    let v2 = tmp.path().join("v2.zarr");
    let v3 = tmp.path().join("v3.zarr");
    write_sample(&url(&v2, "nczarr,file"));
    assert!(v2.join(".zgroup").is_file() && !v2.join("zarr.json").exists());
    // SAFETY: no other thread of this test binary reads NCZARR_DEFAULT_FORMAT
    // concurrently (see above).
    unsafe { std::env::set_var("NCZARR_DEFAULT_FORMAT", "v3") };
    write_sample(&url(&v3, "nczarr,file"));
    unsafe { std::env::remove_var("NCZARR_DEFAULT_FORMAT") };
    assert!(v3.join("zarr.json").is_file() && !v3.join(".zgroup").exists());
    let e = tmp.path().join("expected.json");
    fs::write(&e, sample_expected(true).to_string()).unwrap();
    check_dataset(v2.to_str().unwrap(), &e);
    check_dataset(v3.to_str().unwrap(), &e);
}

// ----- writing shards -----

const NC_EINVAL: c_int = -36;
const NC_ELATEDEF: c_int = -123;

/// Every object below `dir` (relative names, sorted).
fn objects(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn sharded_writes_match_a_model() {
    // Random slabs (strided too) into sharded arrays of random shapes, with
    // a cache of one chunk or none, so that shards are read, merged and
    // rewritten as chunks leave it; then the whole array against the model.
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = common::Rng(0x5eed_0003);
    for case in 0..24 {
        let ndims = 1 + rng.below(3);
        let shape: Vec<usize> = (0..ndims).map(|_| 2 + rng.below(11)).collect();
        let chunks: Vec<usize> = shape.iter().map(|&s| 1 + rng.below(s.min(4))).collect();
        let shards: Vec<usize> = chunks.iter().map(|&c| c * (1 + rng.below(3))).collect();
        let total: usize = shape.iter().product();
        let d = tmp.path().join(format!("s{case}.zarr"));
        let mode = if case % 2 == 0 {
            "nczarr,v3,file"
        } else {
            "zarr,v3,file"
        };
        let ncid = create(&url(&d, mode));
        let dims: Vec<c_int> = shape
            .iter()
            .enumerate()
            .map(|(i, &n)| def_dim(ncid, &format!("d{i}"), n))
            .collect();
        let v = def_var(ncid, "v", 4, &dims);
        let mut model = vec![-1i32; total];
        unsafe {
            check(nc_def_var_chunking(ncid, v, 0, chunks.as_ptr()));
            check(nc_def_var_fill(ncid, v, 0, (&-1i32 as *const i32).cast()));
            if case % 3 == 0 {
                check(nc_def_var_zstandard(ncid, v, 1));
            }
            check(nc_def_var_zarr_shards(ncid, v, shards.as_ptr()));
            check(nc_enddef(ncid));
            let cache = if case % 4 < 2 { 0 } else { 1 << 20 };
            check(nc_set_var_chunk_cache(ncid, v, cache, 10, 0.5));
            for round in 0..4 {
                let start: Vec<usize> = shape.iter().map(|&s| rng.below(s)).collect();
                let stride: Vec<usize> = (0..ndims).map(|_| 1 + rng.below(2)).collect();
                let count: Vec<usize> = (0..ndims)
                    .map(|i| 1 + rng.below((shape[i] - start[i]).div_ceil(stride[i])))
                    .collect();
                let n: usize = count.iter().product();
                let vals: Vec<i32> = (0..n).map(|k| (case * 1000 + round * 100 + k) as i32).collect();
                let pstride: Vec<isize> = stride.iter().map(|&s| s as isize).collect();
                check(nc_put_vars_int(
                    ncid,
                    v,
                    start.as_ptr(),
                    count.as_ptr(),
                    pstride.as_ptr(),
                    vals.as_ptr(),
                ));
                // The model: C order over the selection.
                let mut k = 0;
                let mut idx = vec![0usize; ndims];
                loop {
                    let mut off = 0;
                    for dd in 0..ndims {
                        off = off * shape[dd] + start[dd] + idx[dd] * stride[dd];
                    }
                    model[off] = vals[k];
                    k += 1;
                    let mut dd = ndims;
                    loop {
                        if dd == 0 {
                            break;
                        }
                        dd -= 1;
                        idx[dd] += 1;
                        if idx[dd] < count[dd] {
                            break;
                        }
                        idx[dd] = 0;
                    }
                    if k == n {
                        break;
                    }
                }
                // Read back in the same session (cache and shards).
                let mut got = vec![0i32; total];
                check(nc_get_var_int(ncid, v, got.as_mut_ptr()));
                assert_eq!(got, model, "case {case} round {round} (before close)");
            }
            check(nc_close(ncid));
        }
        let ncid = open(d.to_str().unwrap());
        let v = varid(ncid, "v");
        let mut got = vec![0i32; total];
        let mut sharded = 0;
        let mut sizes = [0usize; 4];
        unsafe {
            check(nc_get_var_int(ncid, v, got.as_mut_ptr()));
            check(nc_inq_var_zarr_shards(ncid, v, &mut sharded, sizes.as_mut_ptr()));
        }
        check(nc_close(ncid));
        assert_eq!(
            got, model,
            "case {case}: shape {shape:?} chunks {chunks:?} shards {shards:?}"
        );
        assert_eq!((sharded, &sizes[..ndims]), (1, &shards[..]), "case {case}");
        // Only shard objects: one per shard at most, keys of the shard grid.
        let meta = read_json(&d.join("v/zarr.json"));
        assert_eq!(meta["codecs"][0]["name"], json!("sharding_indexed"));
        assert_eq!(meta["chunk_grid"]["configuration"]["chunk_shape"], json!(shards));
        let n_shards: usize = shape.iter().zip(&shards).map(|(&s, &h)| s.div_ceil(h)).product();
        let stored = objects(&d.join("v")).len() - 1;
        assert!(
            stored <= n_shards,
            "case {case}: {stored} objects for {n_shards} shards"
        );
    }
}

#[test]
fn whole_shards_are_written_without_reading() {
    // A write covering whole shards writes each shard once; zarr.json says so.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("w.zarr");
    let ncid = create(&url(&d, "zarr,v3,file"));
    let y = def_dim(ncid, "y", 10);
    let x = def_dim(ncid, "x", 9);
    let v = def_var(ncid, "v", 6, &[y, x]);
    let vals: Vec<f64> = (0..90).map(|i| f64::from(i) / 8.0).collect();
    unsafe {
        check(nc_def_var_chunking(ncid, v, 0, [2, 3].as_ptr()));
        check(nc_def_var_zarr_shards(ncid, v, [4, 9].as_ptr()));
        check(nc_put_var_double(ncid, v, vals.as_ptr()));
        check(nc_close(ncid));
    }
    // Shards 4x9 over 10x9: three shards, the last partial (rows 8-9).
    assert_eq!(objects(&d.join("v")), ["c/0/0", "c/1/0", "c/2/0", "zarr.json"]);
    let meta = read_json(&d.join("v/zarr.json"));
    assert_eq!(
        meta["codecs"],
        json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2, 3],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
            "index_location": "end"}}])
    );
    // The partial shard holds its two live inner-chunk rows only: 3 chunks
    // of 2x3 doubles, plus the index of 6 entries.
    assert_eq!(fs::metadata(d.join("v/c/2/0")).unwrap().len(), 3 * 48 + 6 * 16 + 4);
    let e = tmp.path().join("e.json");
    fs::write(
        &e,
        json!({"vars": {"/v": {"type": 6, "dims": [["y", 10], ["x", 9]], "values": vals}}, "hidden": [], "atts": {}})
            .to_string(),
    )
    .unwrap();
    check_dataset(d.to_str().unwrap(), &e);
}

#[test]
fn shard_definitions_are_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("d.zarr");
    let ncid = create(&url(&d, "nczarr,v3,file"));
    let x = def_dim(ncid, "x", 10);
    let v = def_var(ncid, "v", 4, &[x]);
    let s = def_var(ncid, "s", 12, &[x]);
    let sc = def_var(ncid, "sc", 4, &[]);
    let mut sharded = -1;
    let mut size = [0usize; 1];
    unsafe {
        check(nc_def_var_chunking(ncid, v, 0, [2].as_ptr()));
        check(nc_inq_var_zarr_shards(ncid, v, &mut sharded, size.as_mut_ptr()));
        assert_eq!(sharded, 0);
        assert_eq!(
            nc_def_var_zarr_shards(ncid, v, [3].as_ptr()),
            NC_EINVAL,
            "not whole chunks"
        );
        assert_eq!(nc_def_var_zarr_shards(ncid, v, [0].as_ptr()), NC_EINVAL);
        assert_eq!(nc_def_var_zarr_shards(ncid, s, [10].as_ptr()), NC_EINVAL, "strings");
        assert_eq!(nc_def_var_zarr_shards(ncid, sc, std::ptr::null()), 0, "NULL: none");
        assert_eq!(nc_def_var_zarr_shards(ncid, 99, [4].as_ptr()), NC_ENOTVAR);
        check(nc_def_var_zarr_shards(ncid, v, [4].as_ptr()));
        // Chunks changed afterwards: shards round up to whole chunks.
        check(nc_def_var_chunking(ncid, v, 0, [3].as_ptr()));
        check(nc_inq_var_zarr_shards(ncid, v, &mut sharded, size.as_mut_ptr()));
        assert_eq!((sharded, size[0]), (1, 6));
        check(nc_inq_var_zarr_shards(
            ncid,
            v,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        ));
        check(nc_put_var_int(ncid, v, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].as_ptr()));
        assert_eq!(nc_def_var_zarr_shards(ncid, v, [9].as_ptr()), NC_ELATEDEF);
        check(nc_close(ncid));
    }
    // Not for v2.
    let d2 = tmp.path().join("d2.zarr");
    let ncid = create(&url(&d2, "nczarr,v2,file"));
    let x = def_dim(ncid, "x", 10);
    let v = def_var(ncid, "v", 4, &[x]);
    unsafe {
        check(nc_def_var_chunking(ncid, v, 0, [2].as_ptr()));
        assert_eq!(nc_def_var_zarr_shards(ncid, v, [4].as_ptr()), NC_EINVAL);
        check(nc_close(ncid));
    }
    let ncid = open(d.to_str().unwrap());
    let mut got = [0i32; 10];
    unsafe {
        check(nc_get_var_int(ncid, varid(ncid, "v"), got.as_mut_ptr()));
        check(nc_inq_var_zarr_shards(
            ncid,
            varid(ncid, "v"),
            &mut sharded,
            size.as_mut_ptr(),
        ));
    }
    check(nc_close(ncid));
    assert_eq!(got, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert_eq!((sharded, size[0]), (1, 6));
}

#[test]
fn the_shards_mode_key_shards_new_variables() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("auto.zarr");
    // Chunks of 4x4 ints (64 bytes) in shards of about 256 bytes: the 4
    // chunks of a row of chunks (rows first), two shards for the 8x16 array.
    let ncid = create(&format!("{}&shards=256", url(&d, "nczarr,v3,file")));
    let y = def_dim(ncid, "y", 8);
    let x = def_dim(ncid, "x", 16);
    let v = def_var(ncid, "v", 4, &[y, x]);
    let small = def_var(ncid, "small", 4, &[x]);
    let vals: Vec<i32> = (0..128).collect();
    let mut sharded = -1;
    let mut sizes = [0usize; 2];
    unsafe {
        check(nc_def_var_chunking(ncid, v, 0, [4, 4].as_ptr()));
        check(nc_put_var_int(ncid, v, vals.as_ptr()));
        check(nc_put_var_int(ncid, small, vals.as_ptr()));
        check(nc_inq_var_zarr_shards(ncid, v, &mut sharded, sizes.as_mut_ptr()));
        assert_eq!((sharded, sizes), (1, [4, 16]));
        // One chunk holds the whole of `small`: no shards.
        check(nc_inq_var_zarr_shards(ncid, small, &mut sharded, sizes.as_mut_ptr()));
        assert_eq!(sharded, 0);
        check(nc_close(ncid));
    }
    assert_eq!(objects(&d.join("v")), ["c/0/0", "c/1/0", "zarr.json"]);
    assert_eq!(
        read_json(&d.join("v/zarr.json"))["codecs"][0]["name"],
        json!("sharding_indexed")
    );
}

#[test]
fn netcdf_c_draft_conventions_read() {
    // NCZarr on v3 as netcdf-c's draft writes it: dimensions in
    // _nczarr_group, dimension_references, NC_STRING as raw bits with the
    // `string` alias, NC_CHAR as uint8 with the `char` alias, attribute types.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("draft.zarr");
    let w = |k: &str, v: Value| {
        let p = d.join(k);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, v.to_string()).unwrap();
    };
    let array = |shape: Value, dt: &str, fill: Value, info: Value, attrs: Value| {
        let mut a = json!({
            "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dt,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": fill, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "attributes": attrs, "dimension_names": ["wrong"]
        });
        a["attributes"]["_nczarr_array"] = info;
        a
    };
    w(
        "zarr.json",
        json!({"zarr_format": 3, "node_type": "group", "attributes": {
            "_nczarr_superblock": {"version": "3.0.0"},
            "_nczarr_group": {"dimensions": [{"name": "n", "size": 3, "unlimited": 0}], "arrays": ["s", "c", "i"], "subgroups": []},
            "count": 5,
            "_nczarr_attrs": {"attribute_types": [{"name": "count", "configuration": {"type": "int16"}}]}
        }}),
    );
    w(
        "s/zarr.json",
        array(
            json!([3]),
            "r32",
            json!(""),
            json!({"dimension_references": ["/n"], "nczarr_type": "string"}),
            json!({}),
        ),
    );
    fs::create_dir_all(d.join("s/c")).unwrap();
    fs::write(d.join("s/c/0"), b"ab\0\0cdef\0\0\0\0").unwrap();
    w(
        "c/zarr.json",
        array(
            json!([3]),
            "uint8",
            json!(0),
            json!({"dimension_references": ["/n"], "nczarr_type": "char"}),
            json!({}),
        ),
    );
    fs::create_dir_all(d.join("c/c")).unwrap();
    fs::write(d.join("c/c/0"), b"xyz").unwrap();
    w(
        "i/zarr.json",
        array(
            json!([3]),
            "int32",
            json!(-1),
            json!({"dimension_references": ["/n"]}),
            json!({"big": 7, "_nczarr_attrs": {"attribute_types": [{"name": "big", "configuration": {"type": "int64"}}]}}),
        ),
    );
    let e = tmp.path().join("e.json");
    fs::write(
        &e,
        json!({
            "vars": {
                "/s": {"type": 12, "dims": [["n", 3]], "values": ["ab", "cdef", ""]},
                "/c": {"type": 2, "dims": [["n", 3]], "values": [120, 121, 122]},
                "/i": {"type": 4, "dims": [["n", 3]], "values": [-1, -1, -1]},
            },
            "hidden": [],
            "atts": {"/": {"count": 5}, "/i": {"big": 7}},
        })
        .to_string(),
    )
    .unwrap();
    check_dataset(d.to_str().unwrap(), &e);
    // The attribute types of _nczarr_attrs are kept.
    let ncid = open(d.to_str().unwrap());
    let mut ty = 0;
    unsafe {
        check(nc_inq_atttype(ncid, -1, c"count".as_ptr(), &mut ty));
        assert_eq!(ty, 3, "NC_SHORT");
        check(nc_inq_atttype(ncid, varid(ncid, "i"), c"big".as_ptr(), &mut ty));
        assert_eq!(ty, 10, "NC_INT64");
    }
    check(nc_close(ncid));
}

// ----- S3 -----

/// A dataset prefix of its own in the bucket.
fn s3_prefix(srv: &common::S3Server, what: &str) -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}/{}/v3-{what}-{}-{t}", srv.endpoint, srv.bucket, std::process::id())
}

/// The library's S3 store at `url` (no fragment), created when `create`.
fn s3_store(srv: &common::S3Server, url: &str, create: bool) -> netcdf::storage::s3::S3Store {
    use netcdf::storage::s3::{Environment, S3Options, S3Store, config};
    let mut env = Environment::default();
    env.vars.insert("AWS_ACCESS_KEY_ID".into(), srv.key_id.clone());
    env.vars.insert("AWS_SECRET_ACCESS_KEY".into(), srv.secret.clone());
    let cfg = config::resolve(url, &[], &env).unwrap();
    if create {
        S3Store::create(&cfg, netcdf::storage::Replace::Never, S3Options::default()).unwrap()
    } else {
        S3Store::open(&cfg, true, S3Options::default()).unwrap()
    }
}

/// Upload a directory tree below the store's root.
fn upload(store: &dyn netcdf::storage::Store, dir: &Path) {
    for rel in objects(dir) {
        let key = netcdf::storage::Key::new(&rel).unwrap();
        store.put(&key, &fs::read(dir.join(&rel)).unwrap()).unwrap();
    }
}

#[test]
fn v3_through_s3() {
    use netcdf::storage::Store;
    let Some(srv) = common::s3_server_in_env(false) else {
        return;
    };
    // What zarr-python wrote (consolidated; sharded with ranged reads).
    for name in ["zp3_defaults.zarr", "zp3_shards.zarr"] {
        let base = s3_prefix(&srv, name);
        let store = s3_store(&srv, &base, true);
        upload(&store, &testdata(name));
        check_dataset(&format!("{base}#mode=zarr,s3"), &testdata(name).join("expected.json"));
        store.destroy().unwrap();
    }
    // What this library writes, sharded or not.
    let tmp = tempfile::tempdir().unwrap();
    for mode in ["nczarr,v3,s3", "zarr,v3,consolidated,s3", "nczarr,v3,shards=256,s3"] {
        let base = s3_prefix(&srv, &mode.replace([',', '='], "-"));
        write_sample(&format!("{base}#mode={mode}"));
        let e = tmp.path().join("expected.json");
        fs::write(&e, sample_expected(mode.starts_with("nczarr")).to_string()).unwrap();
        check_dataset(&format!("{base}#mode={mode}"), &e);
        let store = s3_store(&srv, &base, false);
        let meta = store
            .get(&netcdf::storage::Key::new("temp/zarr.json").unwrap(), 1 << 20)
            .unwrap()
            .unwrap();
        let meta: Value = serde_json::from_slice(&meta).unwrap();
        let sharded = meta["codecs"][0]["name"] == "sharding_indexed";
        assert_eq!(sharded, mode.contains("shards"), "{mode}");
        store.destroy().unwrap();
    }
}

#[test]
fn python_json_dialect_reads() {
    // zarr-python writes zarr.json with Python's json module: bare NaN and
    // Infinity, in attributes and the fill value. They read as numbers.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("nan.zarr");
    let meta = base_meta()
        .to_string()
        .replace(r#""data_type":"int32""#, r#""data_type":"float64""#)
        .replace(r#""fill_value":7"#, r#""fill_value":NaN"#)
        .replace(
            r#""attributes":{}"#,
            r#""attributes":{"valid_max":Infinity,"missing":NaN,"text":"NaN"}"#,
        );
    assert!(meta.contains("NaN,") && meta.contains("float64"), "{meta}");
    one_array(&d, &base_meta(), &[]);
    fs::write(d.join("a/zarr.json"), meta).unwrap();
    let ncid = open(&url(&d, "zarr,file"));
    let v = varid(ncid, "a");
    let mut got = [0f64; 4];
    let mut ty = 0;
    unsafe {
        check(nc_get_var_double(ncid, v, got.as_mut_ptr()));
        check(nc_get_att_double(ncid, v, c"valid_max".as_ptr(), got[..1].as_mut_ptr()));
        assert_eq!(got[0], f64::INFINITY);
        check(nc_inq_atttype(ncid, v, c"missing".as_ptr(), &mut ty));
        assert_eq!(ty, 6, "bare NaN: a double");
        check(nc_inq_atttype(ncid, v, c"text".as_ptr(), &mut ty));
        assert_eq!(ty, 2, "\"NaN\": text");
        check(nc_get_var_double(ncid, v, got.as_mut_ptr()));
    }
    check(nc_close(ncid));
    assert!(got.iter().all(|x| x.is_nan()), "the NaN fill: {got:?}");
}
