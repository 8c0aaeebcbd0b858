//! Older NCZarr generations read the same: the dataset written by netcdf-c
//! 4.9.0 (testdata/legacy), and the 4.9.1–4.9.2 and format-1 layouts derived
//! from it here. All are opened read-only, as netcdf-c opens them.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;
use common::{check, copy_tree};
use std::ffi::{CString, c_char, c_int};
use std::fs;
use std::path::{Path, PathBuf};

use netcdf::ffi::*;
use serde_json::{Map, Value};

fn read_json(p: &Path) -> Map<String, Value> {
    match serde_json::from_slice(&fs::read(p).unwrap()).unwrap() {
        Value::Object(o) => o,
        _ => panic!("not an object"),
    }
}

fn write_json(p: &Path, o: Map<String, Value>) {
    fs::write(p, serde_json::to_vec(&Value::Object(o)).unwrap()).unwrap();
}

/// An edit of one metadata object: (its path, its file name, its content).
type Edit<'a> = &'a dyn Fn(&Path, &str, &mut Map<String, Value>);

/// Every metadata file below `dir`, with `f` applied.
fn rewrite(dir: &Path, f: Edit) {
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            rewrite(&p, f);
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        if matches!(name.as_str(), ".zgroup" | ".zarray" | ".zattrs") {
            let mut o = read_json(&p);
            f(&p, &name, &mut o);
            write_json(&p, o);
        }
    }
}

fn lower_keys(o: &mut Map<String, Value>) {
    for (upper, lower) in [
        ("_NCZARR_SUPERBLOCK", "_nczarr_superblock"),
        ("_NCZARR_GROUP", "_nczarr_group"),
        ("_NCZARR_ARRAY", "_nczarr_array"),
        ("_NCZARR_ATTR", "_nczarr_attr"),
    ] {
        if let Some(v) = o.remove(upper) {
            o.insert(lower.to_string(), v);
        }
    }
}

/// 4.9.1–4.9.2: lower-case keys, char as `>S1`.
fn to_v491(dir: &Path) {
    rewrite(dir, &|_, _, o| {
        lower_keys(o);
        if o.get("dtype").and_then(Value::as_str) == Some("<U1") {
            o.insert("dtype".into(), Value::String(">S1".into()));
        }
        if let Some(Value::Object(a)) = o.get_mut("_nczarr_attr")
            && let Some(Value::Object(t)) = a.get_mut("types")
        {
            for v in t.values_mut() {
                if v.as_str() == Some("<U1") {
                    *v = Value::String(">S1".into());
                }
            }
        }
    });
}

/// Format 1: the NCZarr keys move out into `.nczarr`, `.nczgroup`, `.nczarray`, `.nczattr`.
fn to_v1(dir: &Path) {
    rewrite(dir, &|p, name, o| {
        let folder = p.parent().unwrap();
        let mut take = |key: &str, obj: &str| {
            if let Some(v) = o.remove(key) {
                fs::write(folder.join(obj), serde_json::to_vec(&v).unwrap()).unwrap();
            }
        };
        take("_NCZARR_SUPERBLOCK", ".nczarr");
        take("_NCZARR_GROUP", ".nczgroup");
        take("_NCZARR_ARRAY", ".nczarray");
        take("_NCZARR_ATTR", ".nczattr");
        let _ = name;
    });
}

fn cstr(b: &[c_char]) -> String {
    let bytes: Vec<u8> = b.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8(bytes).unwrap()
}

/// A textual summary of a group: dims, atts, variables and their data as doubles.
fn summary(ncid: c_int, out: &mut Vec<String>) {
    unsafe {
        let mut name = [0 as c_char; 257];
        check(nc_inq_grpname(ncid, name.as_mut_ptr()));
        out.push(format!("group {}", cstr(&name)));
        let (mut nd, mut nv, mut na, mut ul) = (0, 0, 0, 0);
        check(nc_inq(ncid, &mut nd, &mut nv, &mut na, &mut ul));
        let mut dimids = vec![0; nd as usize];
        check(nc_inq_dimids(ncid, &mut nd, dimids.as_mut_ptr(), 0));
        for d in dimids {
            let mut len = 0;
            check(nc_inq_dim(ncid, d, name.as_mut_ptr(), &mut len));
            out.push(format!("dim {} {len}", cstr(&name)));
        }
        for varid in -1..nv {
            let natts = if varid < 0 {
                na
            } else {
                let (mut t, mut n, mut a) = (0, 0, 0);
                let mut dims = [0; 8];
                check(nc_inq_var(
                    ncid,
                    varid,
                    name.as_mut_ptr(),
                    &mut t,
                    &mut n,
                    dims.as_mut_ptr(),
                    &mut a,
                ));
                let mut vals = vec![0f64; 64];
                let r = nc_get_var_double(ncid, varid, vals.as_mut_ptr());
                let shown = if t == 2 {
                    let mut txt = vec![0 as c_char; 64];
                    check(nc_get_var_text(ncid, varid, txt.as_mut_ptr()));
                    cstr(&txt)
                } else {
                    check(r);
                    format!("{:?}", &vals[..6])
                };
                out.push(format!("var {} type {t} ndims {n} {shown}", cstr(&name)));
                a
            };
            for i in 0..natts {
                let mut an = [0 as c_char; 257];
                check(nc_inq_attname(ncid, varid, i, an.as_mut_ptr()));
                let (mut t, mut len) = (0, 0);
                check(nc_inq_att(ncid, varid, an.as_ptr(), &mut t, &mut len));
                let v = if t == 2 {
                    let mut txt = vec![0 as c_char; len + 1];
                    check(nc_get_att_text(ncid, varid, an.as_ptr(), txt.as_mut_ptr()));
                    cstr(&txt)
                } else {
                    let mut d = vec![0f64; len];
                    check(nc_get_att_double(ncid, varid, an.as_ptr(), d.as_mut_ptr()));
                    format!("{d:?}")
                };
                out.push(format!("  att {varid} {} type {t} = {v}", cstr(&an)));
            }
        }
        let mut ng = 0;
        check(nc_inq_grps(ncid, &mut ng, std::ptr::null_mut()));
        let mut kids = vec![0; ng as usize];
        check(nc_inq_grps(ncid, &mut ng, kids.as_mut_ptr()));
        for k in kids {
            summary(k, out);
        }
    }
}

fn open_summary(dir: &Path) -> Vec<String> {
    let u = CString::new(format!("file://{}#mode=nczarr,file", dir.display())).unwrap();
    let mut ncid = 0;
    let mut out = Vec::new();
    unsafe {
        check(nc_open(u.as_ptr(), 1, &mut ncid));
        summary(ncid, &mut out);
        // Legacy layouts open read-only, as netcdf-c opens them.
        assert_eq!(nc_redef(ncid), -37);
    }
    check(nc_close(ncid));
    out
}

fn legacy_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/legacy/nczarr-4.9.0.zarr")
}

#[test]
fn every_generation_reads_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let v490 = tmp.path().join("v490.zarr");
    copy_tree(&legacy_source(), &v490);
    let base = open_summary(&v490);
    let text = base.join("\n");
    for want in [
        "dim x 3",
        "var v type 4 ndims 1 [1.0, 2.0, 3.0",
        "var c type 2 ndims 1 abcd",
        "var f type 5 ndims 1 [1.5, -1.0, 3.0",
        "att 0 units type 2 = m",
        "att 2 _FillValue type 5 = [-1.0]",
        "att -1 title type 2 = old",
        "group g",
        "var d type 6 ndims 2 [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    let v491 = tmp.path().join("v491.zarr");
    copy_tree(&legacy_source(), &v491);
    to_v491(&v491);
    assert_eq!(open_summary(&v491), base);
    let v1 = tmp.path().join("v1.zarr");
    copy_tree(&legacy_source(), &v1);
    to_v1(&v1);
    assert_eq!(open_summary(&v1), base);
}
