//! Hostile datasets: malformed metadata and chunks must give netCDF error
//! codes (or hide the one bad variable), never a panic (NC_EINTERNAL), a
//! hang or wrong data.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

use std::ffi::{CString, c_int};
use std::fs;
use std::path::Path;

use netcdf::ffi::*;

const NC_EINTERNAL: c_int = -92;

fn url(p: &Path, mode: &str) -> CString {
    CString::new(format!("file://{}#mode={mode},file", p.display())).unwrap()
}

/// A small valid pure-Zarr dataset with one int32 array `v` of 6 elements in two chunks.
fn base(dir: &Path) {
    fs::create_dir_all(dir.join("v")).unwrap();
    fs::write(dir.join(".zgroup"), r#"{"zarr_format": 2}"#).unwrap();
    fs::write(dir.join(".zattrs"), "{}").unwrap();
    fs::write(
        dir.join("v/.zarray"),
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#,
    )
    .unwrap();
    fs::write(dir.join("v/.zattrs"), r#"{"_ARRAY_DIMENSIONS": ["x"]}"#).unwrap();
    let c0: Vec<u8> = [1i32, 2, 3].iter().flat_map(|x| x.to_le_bytes()).collect();
    let c1: Vec<u8> = [4i32, 5, 6].iter().flat_map(|x| x.to_le_bytes()).collect();
    fs::write(dir.join("v/0"), c0).unwrap();
    fs::write(dir.join("v/1"), c1).unwrap();
}

/// Open and read everything; return (open status, read status of `v` if visible).
fn probe(dir: &Path) -> (c_int, Option<c_int>) {
    let u = url(dir, "zarr");
    let mut ncid = 0;
    let st = unsafe { nc_open(u.as_ptr(), 0, &mut ncid) };
    assert_ne!(st, NC_EINTERNAL, "open panicked");
    if st != 0 {
        return (st, None);
    }
    let mut varid = -1;
    let found = unsafe { nc_inq_varid(ncid, c"v".as_ptr(), &mut varid) } == 0;
    let read = found.then(|| {
        let mut ndims = 0;
        unsafe { nc_inq_varndims(ncid, varid, &mut ndims) };
        let mut buf = vec![0i32; 64];
        let r = unsafe { nc_get_var_int(ncid, varid, buf.as_mut_ptr()) };
        assert_ne!(r, NC_EINTERNAL, "read panicked");
        if r == 0 && ndims == 1 {
            let mut len = 0usize;
            let mut dimid = 0;
            unsafe { nc_inq_vardimid(ncid, varid, &mut dimid) };
            unsafe { nc_inq_dimlen(ncid, dimid, &mut len) };
            assert!(len <= 64);
        }
        r
    });
    assert_eq!(nc_close(ncid), 0);
    (st, read)
}

fn case(name: &str, mutate: impl FnOnce(&Path)) -> (c_int, Option<c_int>) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(format!("{name}.zarr"));
    base(&dir);
    mutate(&dir);
    probe(&dir)
}

fn zarray(dir: &Path, text: &str) {
    fs::write(dir.join("v/.zarray"), text).unwrap();
}

#[test]
fn valid_base_reads() {
    assert_eq!(case("ok", |_| {}), (0, Some(0)));
}

#[test]
fn malformed_metadata_hides_the_variable() {
    let bad_arrays = [
        "{not json",
        "[]",
        "null",
        r#"{"zarr_format": 2}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [0], "dtype": "<i4", "fill_value": 0}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3, 3], "dtype": "<i4", "fill_value": 0}"#,
        r#"{"zarr_format": 2, "shape": [-6], "chunks": [3], "dtype": "<i4", "fill_value": 0}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<c16", "fill_value": 0}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": "x"}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 1e40}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": 7, "fill_value": 0}"#,
        r#"{"zarr_format": 3, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [18446744073709551615], "dtype": "<i8", "fill_value": 0}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "|S99999999999", "fill_value": ""}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "|O", "fill_value": "", "filters": null}"#,
        // Fields the Zarr v2 specification defines, with values it does not allow.
        r#"{"shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0}"#,
        r#"{"zarr_format": "2", "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "filters": {"id": "shuffle", "elementsize": 4}}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "filters": [{"elementsize": 4}]}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "filters": "zlib"}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "compressor": [{"id": "zlib"}]}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "compressor": {"level": 1}}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "dimension_separator": "x"}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "dimension_separator": ""}"#,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "order": "X"}"#,
    ];
    for (i, text) in bad_arrays.iter().enumerate() {
        let (open, read) = case(&format!("arr{i}"), |d| zarray(d, text));
        assert_eq!(open, 0, "case {i}: the dataset still opens");
        assert_eq!(read, None, "case {i}: the bad variable is hidden: {text}");
    }
}

#[test]
fn an_array_too_large_to_address_is_shown_but_not_read() {
    // 2^96 elements: the dimensions are fine, the data has no address.
    let huge = r#"{"zarr_format": 2, "shape": [4294967296, 4294967296, 4294967296], "chunks": [1,1,1], "dtype": "<i4", "fill_value": 0}"#;
    let shown = case("huge", |d| {
        zarray(d, huge);
        fs::write(d.join("v/.zattrs"), r#"{"_ARRAY_DIMENSIONS": ["a", "b", "c"]}"#).unwrap();
    });
    assert_eq!(shown, (0, Some(-62)));
}

#[test]
fn deep_json_is_refused() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let (open, read) = case("deep", |d| fs::write(d.join("v/.zattrs"), &deep).unwrap());
    assert_eq!(open, 0);
    assert_eq!(read, None);
    let (open, _) = case("deeproot", |d| fs::write(d.join(".zattrs"), &deep).unwrap());
    assert_ne!(open, 0);
}

#[test]
fn bad_chunks_are_errors_not_data() {
    // Too short, too long, a directory, a FIFO in place of a chunk.
    let (_, read) = case("short", |d| fs::write(d.join("v/1"), [1u8, 2, 3]).unwrap());
    assert_eq!(read, Some(-137));
    let (_, read) = case("long", |d| fs::write(d.join("v/1"), vec![0u8; 13]).unwrap());
    assert_eq!(read, Some(-137));
    let (_, read) = case("dir", |d| {
        fs::remove_file(d.join("v/1")).unwrap();
        fs::create_dir(d.join("v/1")).unwrap();
        fs::write(d.join("v/1/x"), b"junk").unwrap();
    });
    // A folder where a chunk should be is not data; netcdf-c would read it as missing.
    assert!(matches!(read, Some(0) | Some(-137)), "{read:?}");
    let (_, read) = case("fifo", |d| {
        fs::remove_file(d.join("v/1")).unwrap();
        let st = std::process::Command::new("mkfifo")
            .arg(d.join("v/1"))
            .status()
            .unwrap();
        assert!(st.success());
    });
    assert_eq!(read, Some(-137));
}

#[test]
fn bad_nczarr_group_metadata() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, zattrs) in [
        r#"{"_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": {"dimensions": {"x": -1}, "arrays": [], "groups": []}}"#,
        r#"{"_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": {"dimensions": {"a/b": 3}, "arrays": [], "groups": []}}"#,
        r#"{"_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": {"dimensions": {}, "arrays": ["../../etc"], "groups": ["..", "/", ""]}}"#,
        r#"{"_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": {"dimensions": {}, "arrays": ["v"], "groups": []}}"#,
    ]
    .iter()
    .enumerate()
    {
        let dir = tmp.path().join(format!("g{i}.zarr"));
        base(&dir);
        fs::write(dir.join(".zattrs"), zattrs).unwrap();
        // `v` has no _nczarr_array: it must be hidden or read as pure Zarr, never panic.
        let u = url(&dir, "nczarr");
        let mut ncid = 0;
        let st = unsafe { nc_open(u.as_ptr(), 0, &mut ncid) };
        assert_ne!(st, NC_EINTERNAL);
        if st == 0 {
            let mut nvars = 0;
            unsafe { nc_inq_nvars(ncid, &mut nvars) };
            assert!(nvars <= 1);
            assert_eq!(nc_close(ncid), 0);
        }
    }
}

#[test]
fn not_zarr_at_all() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty.zarr");
    fs::create_dir(&empty).unwrap();
    let mut ncid = 0;
    assert_eq!(unsafe { nc_open(url(&empty, "nczarr").as_ptr(), 0, &mut ncid) }, -51);
    let file = tmp.path().join("file.zarr");
    fs::write(&file, b"hello").unwrap();
    let st = unsafe { nc_open(url(&file, "nczarr").as_ptr(), 0, &mut ncid) };
    assert!(st == -51 || st == -141, "{st}");
}

#[test]
fn rewriting_metadata_keeps_a_foreign_dtype() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("b.zarr");
    base(&dir);
    zarray(
        &dir,
        r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "|b1", "fill_value": false, "order": "C", "compressor": null, "filters": null}"#,
    );
    fs::write(dir.join("v/0"), [1u8, 0, 1]).unwrap();
    fs::remove_file(dir.join("v/1")).unwrap();
    let u = url(&dir, "zarr");
    let mut ncid = 0;
    unsafe {
        assert_eq!(nc_open(u.as_ptr(), 1, &mut ncid), 0);
        let one = 1i32;
        assert_eq!(netcdf::ffi::nc_put_att_int(ncid, 0, c"flag".as_ptr(), 4, 1, &one), 0);
    }
    assert_eq!(nc_close(ncid), 0);
    let z: serde_json::Value = serde_json::from_slice(&fs::read(dir.join("v/.zarray")).unwrap()).unwrap();
    assert_eq!(z["dtype"], "|b1", "{z}");
    let a: serde_json::Value = serde_json::from_slice(&fs::read(dir.join("v/.zattrs")).unwrap()).unwrap();
    assert_eq!(a["flag"], 1);
    assert_eq!(probe(&dir), (0, Some(0)));
}

/// `.zmetadata` for the base dataset with `v/.zarray` replaced by `zarray`.
fn zmetadata(dir: &Path, zarray: &str, extra: &str) {
    let doc = format!(
        r#"{{"metadata": {{".zgroup": {{"zarr_format": 2}}, ".zattrs": {{}}, "v/.zarray": {zarray}, "v/.zattrs": {{"_ARRAY_DIMENSIONS": ["x"]}}{extra}}}, "zarr_consolidated_format": 1}}"#
    );
    fs::write(dir.join(".zmetadata"), doc).unwrap();
}

/// Read `v` as ints; None when it is not visible.
fn read_v(dir: &Path) -> Option<Vec<i32>> {
    let u = url(dir, "zarr");
    let mut ncid = 0;
    assert_eq!(unsafe { nc_open(u.as_ptr(), 0, &mut ncid) }, 0);
    let mut varid = -1;
    let found = unsafe { nc_inq_varid(ncid, c"v".as_ptr(), &mut varid) } == 0;
    let out = found.then(|| {
        let mut len = 0usize;
        let mut dimid = 0;
        unsafe { nc_inq_vardimid(ncid, varid, &mut dimid) };
        unsafe { nc_inq_dimlen(ncid, dimid, &mut len) };
        assert!(len <= 64);
        let mut buf = vec![0i32; len];
        assert_eq!(unsafe { nc_get_var_int(ncid, varid, buf.as_mut_ptr()) }, 0);
        buf
    });
    assert_eq!(nc_close(ncid), 0);
    out
}

#[test]
fn consolidated_metadata_is_used_and_bad_ones_are_ignored() {
    let good = r#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#;
    // Consolidated metadata wins over the objects: it says 3 elements.
    let three = good.replace("[6]", "[3]");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("c.zarr");
    base(&dir);
    zmetadata(&dir, &three, "");
    assert_eq!(read_v(&dir), Some(vec![1, 2, 3]));
    // A repeated key keeps the last object, as a JSON object does.
    zmetadata(&dir, good, &format!(r#", "v/.zarray": {three}"#));
    assert_eq!(read_v(&dir), Some(vec![1, 2, 3]));
    // Escaped keys are keys like any other.
    zmetadata(&dir, &three, r#", "w\u002f.zattrs": {}"#);
    assert_eq!(read_v(&dir), Some(vec![1, 2, 3]));
    // Invalid consolidated metadata is ignored: the objects are read.
    for bad in [
        "{".to_string(),
        "[]".to_string(),
        r#"{"metadata": {}, "zarr_consolidated_format": 2}"#.to_string(),
        r#"{"metadata": [], "zarr_consolidated_format": 1}"#.to_string(),
        r#"{"zarr_consolidated_format": 1}"#.to_string(),
        format!(
            r#"{{"metadata": {{"v/.zarray": {good}, "x": {}}}, "zarr_consolidated_format": 1}}"#,
            "[".repeat(200) + &"]".repeat(200)
        ),
    ] {
        fs::write(dir.join(".zmetadata"), &bad).unwrap();
        assert_eq!(read_v(&dir), Some(vec![1, 2, 3, 4, 5, 6]), "{bad:.60}");
    }
    // An object of the wrong kind inside valid consolidated metadata hides
    // the variable, as the same object in its own file does.
    zmetadata(&dir, "[1, 2]", "");
    assert_eq!(read_v(&dir), None);
    zarray(&dir, "[1, 2]");
    fs::remove_file(dir.join(".zmetadata")).unwrap();
    assert_eq!(read_v(&dir), None);
}
