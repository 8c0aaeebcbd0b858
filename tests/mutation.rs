//! Deterministic mutation testing: the committed fixtures, damaged in many
//! random ways (bytes flipped, files truncated or emptied, numbers made huge,
//! JSON spliced), are opened and read in full. Every call must return a
//! netCDF status: no panic (which the boundary reports as NC_EINTERNAL), no
//! crash, no hang.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;
use common::{Rng, copy_tree};
use std::ffi::{CString, c_char, c_int};
use std::fs;
use std::path::{Path, PathBuf};

use netcdf::ffi::*;

const NC_EINTERNAL: c_int = -92;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            files(&e.path(), out);
        } else {
            out.push(e.path());
        }
    }
}

fn mutate(rng: &mut Rng, f: &Path) {
    let mut b = fs::read(f).unwrap();
    match rng.below(7) {
        0 if !b.is_empty() => {
            let i = rng.below(b.len());
            b[i] = rng.next() as u8;
        }
        1 => b.truncate(rng.below(b.len() + 1)),
        2 => b.clear(),
        3 => {
            // Make a number huge or negative, or spell it as Python or
            // netcdf-c may (bare NaN and infinities, C's `1.`), or as no one does.
            let s = String::from_utf8_lossy(&b).into_owned();
            let words = [
                "18446744073709551616",
                "-1",
                "1e308",
                "1e999",
                "99999999999999999999",
                "0",
                "NaN",
                "-Infinity",
                "0.",
                ".5e-3",
                "nanf",
                "nope",
            ];
            let repl = words[rng.below(words.len())];
            let t = s.replacen(|c: char| c.is_ascii_digit(), repl, 1);
            b = t.into_bytes();
        }
        4 => {
            let i = rng.below(b.len() + 1);
            let junk = [b"{".as_slice(), b"]", b"\"", b"null", b"[[[[[[[[", b",,", b"\\u0000"][rng.below(7)];
            b.splice(i..i, junk.iter().copied());
        }
        5 => {
            // Duplicate a slice of itself (wrong sizes, repeated keys).
            let i = rng.below(b.len() + 1);
            let j = i + rng.below(b.len() - i + 1);
            let dup = b[i..j].to_vec();
            b.extend_from_slice(&dup);
        }
        _ => {
            let n = rng.below(64);
            for _ in 0..n {
                b.push(rng.next() as u8);
            }
        }
    }
    fs::write(f, b).unwrap();
}

/// Open and read everything reachable; returns the number of calls made.
fn walk(url: &CString) -> usize {
    let mut calls = 0;
    let mut ncid = 0;
    let st = unsafe { nc_open(url.as_ptr(), 0, &mut ncid) };
    assert_ne!(st, NC_EINTERNAL, "open panicked");
    if st != 0 {
        return 1;
    }
    let mut stack = vec![ncid];
    while let Some(g) = stack.pop() {
        let mut nv = 0;
        unsafe { nc_inq_nvars(g, &mut nv) };
        for v in 0..nv {
            let (mut t, mut nd) = (0, 0);
            let mut dims = [0; 1024];
            let mut name = [0 as c_char; 257];
            let mut na = 0;
            let st = unsafe { nc_inq_var(g, v, name.as_mut_ptr(), &mut t, &mut nd, dims.as_mut_ptr(), &mut na) };
            assert_ne!(st, NC_EINTERNAL);
            let mut n = 1usize;
            for &d in &dims[..nd.max(0) as usize] {
                let mut len = 0;
                unsafe { nc_inq_dimlen(g, d, &mut len) };
                n = n.saturating_mul(len);
            }
            if n > 1 << 20 {
                continue;
            }
            let st = match t {
                2 => {
                    let mut buf = vec![0 as c_char; n.max(1)];
                    unsafe { nc_get_var_text(g, v, buf.as_mut_ptr()) }
                }
                12 => {
                    let mut buf = vec![std::ptr::null_mut::<c_char>(); n.max(1)];
                    let st = unsafe { nc_get_var_string(g, v, buf.as_mut_ptr()) };
                    if st == 0 {
                        unsafe { nc_free_string(n, buf.as_mut_ptr()) };
                    }
                    st
                }
                _ => {
                    let mut buf = vec![0f64; n.max(1)];
                    unsafe { nc_get_var_double(g, v, buf.as_mut_ptr()) }
                }
            };
            assert_ne!(st, NC_EINTERNAL, "read panicked");
            calls += 1;
        }
        let mut ng = 0;
        unsafe { nc_inq_grps(g, &mut ng, std::ptr::null_mut()) };
        let mut kids = vec![0; ng.max(0) as usize];
        unsafe { nc_inq_grps(g, &mut ng, kids.as_mut_ptr()) };
        stack.extend(kids);
    }
    assert_eq!(nc_close(ncid), 0);
    calls
}

#[test]
fn damaged_fixtures_never_panic() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fixtures");
    let mut cases: Vec<PathBuf> = fs::read_dir(&fixtures)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("data.zarr"))
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let mut total = 0;
    for round in 0..1000 {
        let src = &cases[round % cases.len()];
        let dir = tmp.path().join(format!("m{round}.zarr"));
        copy_tree(src, &dir);
        let mut fl = Vec::new();
        files(&dir, &mut fl);
        fl.sort();
        for _ in 0..1 + rng.below(3) {
            let f = &fl[rng.below(fl.len())];
            mutate(&mut rng, f);
        }
        for mode in ["nczarr,file", "zarr,file"] {
            let u = CString::new(format!("file://{}#mode={mode}", dir.display())).unwrap();
            total += walk(&u);
        }
        fs::remove_dir_all(&dir).unwrap();
    }
    assert!(total > 0);
}

#[test]
fn deeply_nested_groups_are_refused_not_overflowed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("deep.zarr");
    let mut p = root.clone();
    for _ in 0..300 {
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join(".zgroup"), r#"{"zarr_format": 2}"#).unwrap();
        p = p.join("g");
    }
    let u = CString::new(format!("file://{}#mode=zarr,file", root.display())).unwrap();
    // Run on a thread with a small stack, as an application thread might be.
    let h = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let mut ncid = 0;
            let st = unsafe { nc_open(u.as_ptr(), 0, &mut ncid) };
            if st == 0 {
                nc_close(ncid);
            }
            st
        })
        .unwrap();
    assert_eq!(h.join().unwrap(), -137);
}
