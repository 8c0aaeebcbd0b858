//! API-side correctness against netcdf-c 4.10.1: string reads never hand
//! out NULL pointers, netcdf-c's argument checks (create modes, quantize on
//! NC_GLOBAL, zero chunk sizes), filter parameter lists netcdf-c accepts,
//! quantized bits equal to netcdf-c's (testdata/quantize/), the `.ncrc`
//! keys, szip, and URL mistakes reported instead of passed on.
//!
//! Tests that need a process of their own (the working directory, rc files
//! read once per process) run this binary again as a child with
//! `NCZ_CORRECTNESS_CHILD` set; in the parent those test functions return
//! at once.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

use std::ffi::{CStr, CString, c_char, c_int, c_uint};
use std::path::Path;
use std::process::Command;

use netcdf::ffi::*;

const NC_NOERR: c_int = 0;
const NC_EINVAL: c_int = -36;
const NC_EGLOBAL: c_int = -50;
const NC_EURL: c_int = -74;
const NC_ENOTBUILT: c_int = -128;
const NC_EDISKLESS: c_int = -129;
const NC_EINMEMORY: c_int = -135;
const NC_ENOFILTER: c_int = -136;
const NC_GLOBAL: c_int = -1;
const NC_CLOBBER: c_int = 0;
const NC_NOWRITE: c_int = 0;
const NC_INT: c_int = 4;
const NC_FLOAT: c_int = 5;
const NC_DOUBLE: c_int = 6;
const NC_STRING: c_int = 12;
const NC_CHUNKED: c_int = 0;

fn url(p: &Path) -> CString {
    CString::new(format!("file://{}#mode=nczarr,file", p.display())).unwrap()
}

fn create(p: &Path) -> c_int {
    let u = url(p);
    let mut ncid = -1;
    assert_eq!(unsafe { nc_create(u.as_ptr(), NC_CLOBBER, &mut ncid) }, NC_NOERR);
    ncid
}

fn open(p: &Path) -> c_int {
    let u = url(p);
    let mut ncid = -1;
    assert_eq!(unsafe { nc_open(u.as_ptr(), NC_NOWRITE, &mut ncid) }, NC_NOERR);
    ncid
}

fn def_dim(ncid: c_int, name: &CStr, len: usize) -> c_int {
    let mut d = -1;
    assert_eq!(unsafe { nc_def_dim(ncid, name.as_ptr(), len, &mut d) }, NC_NOERR);
    d
}

fn def_var(ncid: c_int, name: &str, ty: c_int, dims: &[c_int]) -> c_int {
    let n = CString::new(name).unwrap();
    let mut v = -1;
    assert_eq!(
        unsafe { nc_def_var(ncid, n.as_ptr(), ty, dims.len() as c_int, dims.as_ptr(), &mut v) },
        NC_NOERR
    );
    v
}

fn chunking(ncid: c_int, v: c_int, chunks: &[usize]) -> c_int {
    unsafe { nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks.as_ptr()) }
}

/// `nc_get_var_string` of `n` elements: each pointer, NULL as None.
fn get_strings(ncid: c_int, v: c_int, n: usize) -> Vec<Option<String>> {
    let mut r: Vec<*mut c_char> = vec![std::ptr::null_mut(); n];
    assert_eq!(unsafe { nc_get_var_string(ncid, v, r.as_mut_ptr()) }, NC_NOERR);
    let out = r
        .iter()
        .map(|&p| (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()))
        .collect();
    assert_eq!(unsafe { nc_free_string(n, r.as_mut_ptr()) }, NC_NOERR);
    out
}

fn some(v: &[&str]) -> Vec<Option<String>> {
    v.iter().map(|s| Some(s.to_string())).collect()
}

/// Run test `name` of this binary in a child process (working directory
/// `cwd`, extra environment `env`); it must pass, and must have run.
fn run_child(name: &str, cwd: &Path, env: &[(&str, &str)]) {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .current_dir(cwd)
        .env("NCZ_CORRECTNESS_CHILD", "1")
        .env_remove("NCRCENV_IGNORE")
        .env_remove("NCRCENV_RC")
        .env("HOME", cwd)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "child {name} failed:\n{text}");
    assert!(text.contains("1 passed"), "child {name} did not run:\n{text}");
}

fn in_child() -> bool {
    std::env::var_os("NCZ_CORRECTNESS_CHILD").is_some()
}

// ----- item 3: strings never read back as NULL pointers -----

#[test]
fn unwritten_and_empty_strings_read_as_the_fill_not_null() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("s.zarr");
    let ncid = create(&p);
    let d = def_dim(ncid, c"n", 6);
    let v = def_var(ncid, "v", NC_STRING, &[d]);
    assert_eq!(chunking(ncid, v, &[2]), NC_NOERR);
    let f = def_var(ncid, "f", NC_STRING, &[d]);
    assert_eq!(chunking(ncid, f, &[2]), NC_NOERR);
    let fill = [c"_".as_ptr()];
    assert_eq!(unsafe { nc_def_var_fill(ncid, f, 0, fill.as_ptr().cast()) }, NC_NOERR);
    let w = def_var(ncid, "w", NC_STRING, &[d]);
    assert_eq!(nc_enddef(ncid), NC_NOERR);
    // "a", then NULL (written as ""), elements 2..5 never written.
    let vals = [c"a".as_ptr(), std::ptr::null()];
    let (start, count) = ([0usize], [2usize]);
    for var in [v, f] {
        assert_eq!(
            unsafe { nc_put_vara_string(ncid, var, start.as_ptr(), count.as_ptr(), vals.as_ptr().cast_mut()) },
            NC_NOERR
        );
    }
    // Before closing (from the cache) and after reopening.
    for reopen in [false, true] {
        let id = if reopen {
            assert_eq!(nc_close(ncid), NC_NOERR);
            open(&p)
        } else {
            ncid
        };
        assert_eq!(
            get_strings(id, v, 6),
            some(&["a", "", "", "", "", ""]),
            "reopen {reopen}"
        );
        assert_eq!(
            get_strings(id, f, 6),
            some(&["a", "", "_", "_", "_", "_"]),
            "reopen {reopen}"
        );
        assert_eq!(
            get_strings(id, w, 6),
            some(&["", "", "", "", "", ""]),
            "reopen {reopen}"
        );
        if reopen {
            assert_eq!(nc_close(id), NC_NOERR);
        }
    }
}

/// A dataset netcdf-c 4.10.1 wrote (testdata/strings_ref/: its fill chunks
/// hold all-zero slots, which it reads back as NULL pointers).
#[test]
fn zero_slots_written_by_netcdf_c_read_as_empty_strings() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/strings_ref/s.zarr");
    let ncid = open(&src);
    assert_eq!(get_strings(ncid, 0, 6), some(&["a", "", "", "", "", ""]));
    assert_eq!(get_strings(ncid, 1, 6), some(&["a", "_", "_", "_", "_", "_"]));
    assert_eq!(get_strings(ncid, 2, 6), some(&["", "", "", "", "", ""]));
    assert_eq!(nc_close(ncid), NC_NOERR);
}

// ----- item 5: netcdf-c's argument checks -----

#[test]
fn create_mode_conflicts() {
    let tmp = tempfile::tempdir().unwrap();
    let u = url(&tmp.path().join("m.zarr"));
    // Answers of netcdf-c 4.10.1 for a Zarr URL.
    for (mode, want) in [
        (0x1000 | 0x0200, NC_EINVAL),    // NC_NETCDF4 | NC_64BIT_OFFSET
        (0x1000 | 0x0020, NC_EINVAL),    // NC_NETCDF4 | NC_CDF5
        (0x0200 | 0x0020, NC_EINVAL),    // NC_64BIT_OFFSET | NC_CDF5
        (0x0008 | 0x8000, NC_EDISKLESS), // NC_DISKLESS | NC_INMEMORY
        (0x0008 | 0x0010, NC_EDISKLESS), // NC_DISKLESS | NC_MMAP
        (0x8000 | 0x0010, NC_EINMEMORY), // NC_INMEMORY | NC_MMAP
        (0x0010 | 0x1000, NC_EINVAL),    // NC_MMAP | NC_NETCDF4
        (0x0200, NC_EINVAL),             // NC_64BIT_OFFSET
        (0x0020, NC_EINVAL),             // NC_CDF5
        (0x0010, NC_EINVAL),             // NC_MMAP
        (0x0008, NC_EINVAL),             // NC_DISKLESS
        (0x0008 | 0x4000, NC_EINVAL),    // NC_DISKLESS | NC_PERSIST
        (0x0300, NC_EINVAL),             // NC_CLASSIC_MODEL | NC_64BIT_OFFSET
        (0x1000, NC_NOERR),              // NC_NETCDF4
        (0x1100, NC_NOERR),              // NC_NETCDF4 | NC_CLASSIC_MODEL
        (0x0100, NC_NOERR),              // NC_CLASSIC_MODEL
        (0x8000, NC_NOERR),              // NC_INMEMORY
        (0x0800, NC_NOERR),              // NC_SHARE
        (0x4000, NC_NOERR),              // NC_PERSIST
    ] {
        let mut ncid = -1;
        let r = unsafe { nc_create(u.as_ptr(), mode, &mut ncid) };
        assert_eq!(r, want, "mode 0x{mode:x}");
        if r == NC_NOERR {
            assert_eq!(nc_close(ncid), NC_NOERR);
        } else {
            assert_eq!(ncid, -1, "mode 0x{mode:x}: ncid written on failure");
        }
    }
}

#[test]
fn quantize_on_nc_global_is_eglobal() {
    let tmp = tempfile::tempdir().unwrap();
    let ncid = create(&tmp.path().join("q.zarr"));
    let d = def_dim(ncid, c"n", 4);
    let v = def_var(ncid, "v", NC_FLOAT, &[d]);
    assert_eq!(nc_def_var_quantize(ncid, NC_GLOBAL, 1, 3), NC_EGLOBAL);
    let (mut m, mut n) = (-7, -7);
    assert_eq!(
        unsafe { nc_inq_var_quantize(ncid, NC_GLOBAL, &mut m, &mut n) },
        NC_EGLOBAL
    );
    assert_eq!((m, n), (-7, -7));
    // Other variables keep netcdf-c's other answers.
    assert_eq!(nc_def_var_quantize(ncid, 99, 1, 3), -49);
    assert_eq!(nc_def_var_quantize(ncid, v, 1, 3), NC_NOERR);
    assert_eq!(unsafe { nc_inq_var_quantize(ncid, v, &mut m, &mut n) }, NC_NOERR);
    assert_eq!((m, n), (1, 3));
    assert_eq!(nc_close(ncid), NC_NOERR);
}

/// netcdf-c 4.10.1 (NCZarr and HDF5 alike) takes a zero chunk size as "use
/// the default" and returns NC_NOERR, not NC_EBADCHUNK; so does this library.
#[test]
fn zero_chunk_sizes_take_the_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let ncid = create(&tmp.path().join("c.zarr"));
    let (x, y) = (def_dim(ncid, c"x", 10), def_dim(ncid, c"y", 10));
    let v = def_var(ncid, "v", NC_FLOAT, &[x, y]);
    assert_eq!(chunking(ncid, v, &[0, 5]), NC_NOERR);
    assert_eq!(chunking(ncid, v, &[0, 0]), NC_NOERR);
    let (mut st, mut c) = (-1, [0usize; 2]);
    assert_eq!(
        unsafe { nc_inq_var_chunking(ncid, v, &mut st, c.as_mut_ptr()) },
        NC_NOERR
    );
    assert_eq!((st, c), (NC_CHUNKED, [10, 10]));
    assert_eq!(chunking(ncid, v, &[11, 5]), -127);
    assert_eq!(nc_close(ncid), NC_NOERR);
}

// ----- item 8: filter parameter lists netcdf-c's plugins accept -----

/// The codec JSON of variable `name` as stored.
fn zarray(p: &Path, name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(p.join(name).join(".zarray")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn bzip2_with_two_parameters_uses_the_level() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("b.zarr");
    let ncid = create(&p);
    let d = def_dim(ncid, c"n", 1000);
    let v = def_var(ncid, "v", NC_INT, &[d]);
    // nccopy -F "/v,307,9,4"
    let params: [c_uint; 2] = [9, 4];
    assert_eq!(unsafe { nc_def_var_filter(ncid, v, 307, 2, params.as_ptr()) }, NC_NOERR);
    // shuffle with a parameter list (netcdf-c ignores them), blosc with 8.
    let s = def_var(ncid, "s", NC_INT, &[d]);
    let sp: [c_uint; 2] = [4, 7];
    assert_eq!(unsafe { nc_def_var_filter(ncid, s, 2, 2, sp.as_ptr()) }, NC_NOERR);
    let b = def_var(ncid, "b", NC_INT, &[d]);
    let bp: [c_uint; 8] = [0, 0, 0, 0, 5, 1, 1, 99];
    assert_eq!(unsafe { nc_def_var_filter(ncid, b, 32001, 8, bp.as_ptr()) }, NC_NOERR);
    // Out of range or empty stays an error.
    let z = def_var(ncid, "z", NC_INT, &[d]);
    let bad: [c_uint; 2] = [10, 4];
    assert_eq!(unsafe { nc_def_var_filter(ncid, z, 307, 2, bad.as_ptr()) }, -132);
    assert_eq!(unsafe { nc_def_var_filter(ncid, z, 307, 0, bad.as_ptr()) }, -132);
    assert_eq!(nc_enddef(ncid), NC_NOERR);
    let data: Vec<i32> = (0..1000).map(|i| i * 3 % 17).collect();
    for var in [v, s, b] {
        assert_eq!(unsafe { nc_put_var_int(ncid, var, data.as_ptr()) }, NC_NOERR);
    }
    assert_eq!(nc_close(ncid), NC_NOERR);
    assert_eq!(
        zarray(&p, "v")["compressor"],
        serde_json::json!({"id": "bz2", "level": 9})
    );
    let ncid = open(&p);
    for var in [v, s, b] {
        let mut back = vec![0i32; 1000];
        assert_eq!(unsafe { nc_get_var_int(ncid, var, back.as_mut_ptr()) }, NC_NOERR);
        assert_eq!(back, data);
    }
    let (mut n, mut got) = (0usize, [0 as c_uint; 4]);
    assert_eq!(
        unsafe { nc_inq_var_filter_info(ncid, v, 307, &mut n, got.as_mut_ptr()) },
        NC_NOERR
    );
    assert_eq!(&got[..n], [9]);
    assert_eq!(nc_close(ncid), NC_NOERR);
}

// ----- item 9: quantized bits equal netcdf-c's -----

fn quantize_mode(name: &str) -> c_int {
    match name {
        "BitGroom" => 1,
        "GranularBitRound" => 2,
        "BitRound" => 3,
        other => panic!("mode {other}"),
    }
}

/// One write of a pattern: (start, count, stride, values).
type Write = (usize, usize, isize, Vec<f64>);

/// The writes of testdata/quantize/gen_reference.py's patterns.
fn pattern(name: &str, values: &[f64]) -> Vec<Write> {
    let n = values.len();
    match name {
        "whole" => vec![(0, n, 1, values.to_vec())],
        "var1_at_1" => vec![(1, 1, 1, vec![-99.0])],
        "var1_at_4" => vec![(4, 1, 1, vec![3.3333])],
        "var1_each" => values.iter().enumerate().map(|(i, &v)| (i, 1, 1, vec![v])).collect(),
        "strided_1_3" => vec![(1, 3, 3, vec![values[1], values[4], values[7]])],
        "slab_5_4" => vec![(5, 4, 1, values[5..9].to_vec())],
        other => panic!("pattern {other}"),
    }
}

#[test]
fn quantized_bits_equal_netcdf_c() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/quantize/reference.json"))
        .unwrap();
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    let values: Vec<f64> = reference["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let cases = reference["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 36);
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("q.zarr");
    let ncid = create(&p);
    let d = def_dim(ncid, c"n", values.len());
    let mut vars = Vec::new();
    for c in cases {
        let ty = if c["type"] == "f4" { NC_FLOAT } else { NC_DOUBLE };
        let v = def_var(ncid, c["var"].as_str().unwrap(), ty, &[d]);
        assert_eq!(chunking(ncid, v, &[values.len()]), NC_NOERR);
        let mode = quantize_mode(c["mode"].as_str().unwrap());
        assert_eq!(
            nc_def_var_quantize(ncid, v, mode, c["nsd"].as_i64().unwrap() as c_int),
            NC_NOERR
        );
        vars.push((v, ty, c));
    }
    assert_eq!(nc_enddef(ncid), NC_NOERR);
    for (v, ty, c) in &vars {
        for (start, count, stride, vals) in pattern(c["pattern"].as_str().unwrap(), &values) {
            let (st, ct, sd) = ([start], [count], [stride]);
            let r = if *ty == NC_FLOAT {
                let f: Vec<f32> = vals.iter().map(|&x| x as f32).collect();
                unsafe { nc_put_vars_float(ncid, *v, st.as_ptr(), ct.as_ptr(), sd.as_ptr(), f.as_ptr()) }
            } else {
                unsafe { nc_put_vars_double(ncid, *v, st.as_ptr(), ct.as_ptr(), sd.as_ptr(), vals.as_ptr()) }
            };
            assert_eq!(r, NC_NOERR);
        }
    }
    assert_eq!(nc_close(ncid), NC_NOERR);
    let ncid = open(&p);
    let mut failures = Vec::new();
    for (v, ty, c) in &vars {
        let want: Vec<String> = c["bits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap().to_string())
            .collect();
        let got: Vec<String> = if *ty == NC_FLOAT {
            let mut b = vec![0f32; values.len()];
            assert_eq!(unsafe { nc_get_var_float(ncid, *v, b.as_mut_ptr()) }, NC_NOERR);
            b.iter().map(|x| format!("{:#x}", x.to_bits())).collect()
        } else {
            let mut b = vec![0f64; values.len()];
            assert_eq!(unsafe { nc_get_var_double(ncid, *v, b.as_mut_ptr()) }, NC_NOERR);
            b.iter().map(|x| format!("{:#x}", x.to_bits())).collect()
        };
        if got != want {
            failures.push(format!("{}: got {got:?}, netcdf-c {want:?}", c["var"]));
        }
    }
    assert_eq!(nc_close(ncid), NC_NOERR);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ----- item 11: .ncrc -----

#[test]
fn rc_dimension_separator() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join(".ncrc"),
        "# test\nZARR.DIMENSION_SEPARATOR=/\nMY.KEY = some value\n",
    )
    .unwrap();
    run_child("child_rc_dimension_separator", tmp.path(), &[]);
    // NCRCENV_IGNORE: the file is not read.
    run_child("child_rc_ignored", tmp.path(), &[("NCRCENV_IGNORE", "1")]);
    // NCRCENV_RC names the only file.
    let other = tmp.path().join("other.rc");
    std::fs::write(&other, "MY.KEY=from NCRCENV_RC\n").unwrap();
    run_child(
        "child_rc_named_file",
        tmp.path(),
        &[("NCRCENV_RC", other.to_str().unwrap())],
    );
}

fn rc_get(key: &CStr) -> Option<String> {
    let p = unsafe { nc_rc_get(key.as_ptr()) };
    if p.is_null() {
        return None;
    }
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    unsafe { libc_free(p) };
    Some(s)
}

unsafe extern "C" {
    #[link_name = "free"]
    fn libc_free(p: *mut c_char);
}

fn write_2d(p: &Path) {
    let ncid = create(p);
    let (x, y) = (def_dim(ncid, c"x", 4), def_dim(ncid, c"y", 4));
    let v = def_var(ncid, "v", NC_INT, &[x, y]);
    assert_eq!(chunking(ncid, v, &[2, 2]), NC_NOERR);
    assert_eq!(nc_enddef(ncid), NC_NOERR);
    let data: Vec<i32> = (0..16).collect();
    assert_eq!(unsafe { nc_put_var_int(ncid, v, data.as_ptr()) }, NC_NOERR);
    assert_eq!(nc_close(ncid), NC_NOERR);
    let ncid = open(p);
    let mut back = vec![0i32; 16];
    assert_eq!(unsafe { nc_get_var_int(ncid, v, back.as_mut_ptr()) }, NC_NOERR);
    assert_eq!(back, data);
    assert_eq!(nc_close(ncid), NC_NOERR);
}

#[test]
fn child_rc_dimension_separator() {
    if !in_child() {
        return;
    }
    assert_eq!(rc_get(c"ZARR.DIMENSION_SEPARATOR").as_deref(), Some("/"));
    assert_eq!(rc_get(c"MY.KEY").as_deref(), Some("some value"));
    let p = std::env::current_dir().unwrap().join("sep.zarr");
    write_2d(&p);
    assert!(p.join("v/1/1").is_file(), "chunk keys use '/'");
    assert!(!p.join("v/1.1").exists());
    assert_eq!(zarray(&p, "v")["dimension_separator"], "/");
    // nc_rc_set changes it for variables defined afterwards.
    assert_eq!(
        unsafe { nc_rc_set(c"ZARR.DIMENSION_SEPARATOR".as_ptr(), c".".as_ptr()) },
        NC_NOERR
    );
    let q = std::env::current_dir().unwrap().join("dot.zarr");
    write_2d(&q);
    assert!(q.join("v/1.1").is_file());
}

#[test]
fn child_rc_ignored() {
    if !in_child() {
        return;
    }
    assert_eq!(rc_get(c"ZARR.DIMENSION_SEPARATOR"), None);
    assert_eq!(unsafe { nc_rc_set(c"A".as_ptr(), c"1".as_ptr()) }, NC_NOERR);
    assert_eq!(rc_get(c"A"), None);
    let p = std::env::current_dir().unwrap().join("ign.zarr");
    write_2d(&p);
    assert!(p.join("v/1.1").is_file());
}

#[test]
fn child_rc_named_file() {
    if !in_child() {
        return;
    }
    assert_eq!(rc_get(c"MY.KEY").as_deref(), Some("from NCRCENV_RC"));
    assert_eq!(rc_get(c"ZARR.DIMENSION_SEPARATOR"), None);
}

// ----- item 13: szip -----

#[test]
fn szip_round_trip_and_json() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("z.zarr");
    let ncid = create(&p);
    let (x, y) = (def_dim(ncid, c"x", 30), def_dim(ncid, c"y", 50));
    let v = def_var(ncid, "v", NC_INT, &[x, y]);
    let dv = def_var(ncid, "d", NC_DOUBLE, &[x, y]);
    assert_eq!(chunking(ncid, v, &[10, 50]), NC_NOERR);
    let avail = nc_inq_filter_avail(ncid, 4);
    if !cfg!(nczarr_szip) {
        // Built without libaec: szip stays unavailable, as before.
        assert_eq!(avail, NC_ENOFILTER);
        assert_eq!(nc_def_var_szip(ncid, v, 32, 8), NC_ENOFILTER);
        assert_eq!(nc_close(ncid), NC_NOERR);
        return;
    }
    assert_eq!(avail, NC_NOERR);
    // NC_SZIP_NN_OPTION_MASK, 8 pixels per block; EC, 32.
    assert_eq!(nc_def_var_szip(ncid, v, 32, 8), NC_NOERR);
    assert_eq!(nc_def_var_szip(ncid, dv, 4, 32), NC_NOERR);
    assert_eq!(nc_enddef(ncid), NC_NOERR);
    let data: Vec<i32> = (0..1500).map(|i| (i % 50) * 1000 + i / 50).collect();
    let dd: Vec<f64> = (0..1500).map(|i| f64::from(i).sin() * 100.0).collect();
    assert_eq!(unsafe { nc_put_var_int(ncid, v, data.as_ptr()) }, NC_NOERR);
    assert_eq!(unsafe { nc_put_var_double(ncid, dv, dd.as_ptr()) }, NC_NOERR);
    assert_eq!(nc_close(ncid), NC_NOERR);
    assert_eq!(
        zarray(&p, "v")["compressor"],
        serde_json::json!({"id": "szip", "mask": 32, "pixels-per-block": 8})
    );
    // HDF5's framing: the decoded size, little-endian, first.
    let chunk = std::fs::read(p.join("v/0.0")).unwrap();
    assert_eq!(chunk[..4], 2000u32.to_le_bytes());
    assert!(chunk.len() < 2000);
    let ncid = open(&p);
    let mut back = vec![0i32; 1500];
    assert_eq!(unsafe { nc_get_var_int(ncid, v, back.as_mut_ptr()) }, NC_NOERR);
    assert_eq!(back, data);
    let mut dback = vec![0f64; 1500];
    assert_eq!(unsafe { nc_get_var_double(ncid, dv, dback.as_mut_ptr()) }, NC_NOERR);
    assert_eq!(dback, dd);
    let (mut mask, mut ppb) = (0, 0);
    assert_eq!(unsafe { nc_inq_var_szip(ncid, v, &mut mask, &mut ppb) }, NC_NOERR);
    assert_eq!((mask, ppb), (32, 8));
    let (mut n, mut ids) = (0usize, [0 as c_uint; 4]);
    assert_eq!(
        unsafe { nc_inq_var_filter_ids(ncid, v, &mut n, ids.as_mut_ptr()) },
        NC_NOERR
    );
    assert_eq!(&ids[..n], [4]);
    assert_eq!(nc_close(ncid), NC_NOERR);
}

/// Variables netcdf-c 4.10.1 wrote with its szip plugin (testdata/szip_ref/gen.py).
#[test]
fn szip_written_by_netcdf_c_reads_back() {
    if !cfg!(nczarr_szip) {
        return;
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/szip_ref/szip.zarr");
    let ncid = open(&p);
    let mut i = vec![0i32; 1500];
    assert_eq!(unsafe { nc_get_var_int(ncid, 0, i.as_mut_ptr()) }, NC_NOERR);
    let want: Vec<i32> = (0..1500).map(|k| (k % 50) * 1000 + k / 50).collect();
    assert_eq!(i, want);
    let mut d = vec![0f64; 1500];
    assert_eq!(unsafe { nc_get_var_double(ncid, 1, d.as_mut_ptr()) }, NC_NOERR);
    let want: Vec<f64> = (0..1500).map(|k| f64::from(k) * 0.25).collect();
    assert_eq!(d, want);
    let (mut mask, mut ppb) = (0, 0);
    assert_eq!(unsafe { nc_inq_var_szip(ncid, 1, &mut mask, &mut ppb) }, NC_NOERR);
    assert_eq!((mask, ppb), (4, 32));
    assert_eq!(nc_close(ncid), NC_NOERR);
}

// ----- item 14: URL mistakes -----

#[test]
fn misspelled_mode_keys_are_url_errors() {
    let tmp = tempfile::tempdir().unwrap();
    for frag in ["mode=nczar,file", "mode=nczarr,fiel", "mode=zarr,file,consolidatd"] {
        let u = CString::new(format!("file://{}/x.zarr#{frag}", tmp.path().display())).unwrap();
        let mut ncid = -1;
        assert_eq!(
            unsafe { nc_create(u.as_ptr(), NC_CLOBBER, &mut ncid) },
            NC_EURL,
            "{frag}"
        );
        assert_eq!(unsafe { nc_open(u.as_ptr(), NC_NOWRITE, &mut ncid) }, NC_EURL, "{frag}");
        assert_eq!(ncid, -1);
    }
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "nothing created");
}

#[test]
fn relative_path_with_a_zarr_fragment() {
    let tmp = tempfile::tempdir().unwrap();
    run_child("child_relative_path", tmp.path(), &[]);
    assert!(tmp.path().join("out.zarr/.zgroup").is_file());
    assert!(tmp.path().join("sub/in.zarr/v/.zarray").is_file());
    assert!(!tmp.path().join("out.zarr#mode=nczarr,file").exists());
}

#[test]
fn child_relative_path() {
    if !in_child() {
        return;
    }
    let mut ncid = -1;
    let u = c"out.zarr#mode=nczarr,file";
    assert_eq!(unsafe { nc_create(u.as_ptr(), NC_CLOBBER, &mut ncid) }, NC_NOERR);
    assert_eq!(nc_close(ncid), NC_NOERR);
    assert_eq!(unsafe { nc_open(u.as_ptr(), NC_NOWRITE, &mut ncid) }, NC_NOERR);
    assert_eq!(nc_close(ncid), NC_NOERR);
    std::fs::create_dir("sub").unwrap();
    let u = c"sub/in.zarr#mode=zarr,file";
    assert_eq!(unsafe { nc_create(u.as_ptr(), NC_CLOBBER, &mut ncid) }, NC_NOERR);
    let d = def_dim(ncid, c"n", 3);
    def_var(ncid, "v", NC_INT, &[d]);
    assert_eq!(nc_close(ncid), NC_NOERR);
}

#[test]
fn unknown_zarr_format_is_not_built() {
    let tmp = tempfile::tempdir().unwrap();
    // Zarr v3 opens (tests/zarr_v3.rs has the rest).
    let p = tmp.path().join("v3.zarr");
    std::fs::create_dir(&p).unwrap();
    std::fs::write(p.join("zarr.json"), r#"{"zarr_format": 3, "node_type": "group"}"#).unwrap();
    let u = CString::new(format!("file://{}#mode=zarr,file", p.display())).unwrap();
    let mut ncid = -1;
    assert_eq!(unsafe { nc_open(u.as_ptr(), NC_NOWRITE, &mut ncid) }, NC_NOERR);
    assert_eq!(nc_close(ncid), NC_NOERR);
    // A .zgroup of another zarr_format: recognised, not readable.
    let q = tmp.path().join("v9.zarr");
    std::fs::create_dir(&q).unwrap();
    std::fs::write(q.join(".zgroup"), r#"{"zarr_format": 9}"#).unwrap();
    let u = CString::new(format!("file://{}#mode=zarr,file", q.display())).unwrap();
    assert_eq!(unsafe { nc_open(u.as_ptr(), NC_NOWRITE, &mut ncid) }, NC_ENOTBUILT);
}
