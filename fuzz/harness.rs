//! The bodies of the fuzz targets, shared by `fuzz/fuzz_targets/*.rs`
//! (coverage-guided runs with cargo-fuzz) and by `tests/fuzz_corpus.rs`
//! (every committed corpus file replayed by `cargo test`).
//!
//! Each body feeds its input to the library through the same doors a user
//! has: a dataset tree or a zip archive opened with `nc_open` and read back
//! whole, a codec chain decoding a chunk, a URL classified, a sequence of
//! API calls. The library catches panics at its C boundary and answers
//! `NC_EINTERNAL`; a body treats that answer as the crash it stands for.
//!
//! Nothing here reaches the network: URLs are only parsed, datasets are
//! local directories, and delegation to the system libnetcdf is off.
#![allow(dead_code)]

use std::ffi::{CString, c_char, c_int};
use std::path::{Path, PathBuf};
use std::sync::Once;

use netcdf::ffi::*;

const NC_EINTERNAL: c_int = -92;
const NC_NOWRITE: c_int = 0;
const NC_CLOBBER: c_int = 0;
const NC_NETCDF4: c_int = 0x1000;
const NC_GLOBAL: c_int = -1;
const NC_MAX_NAME: usize = 256;

/// The most bytes of one variable a body reads back (bigger ones are read
/// in part: the first and the last element).
const READ_LIMIT: usize = 1 << 20;

fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY (of the calls below): single-threaded at this point of a
        // fuzz run or a test; nothing else reads the environment yet.
        unsafe {
            std::env::set_var("NCZARR_SYSTEM_NETCDF", "none");
            std::env::set_var("HDF5_PLUGIN_PATH", "/nonexistent");
        }
    });
}

/// A scratch folder for this process, emptied before each input.
fn scratch(name: &str) -> PathBuf {
    let base = if Path::new("/dev/shm").is_dir() {
        PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let d = base.join(format!("nczarr-fuzz-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::remove_file(&d);
    d
}

fn check(st: c_int, what: &str) -> c_int {
    assert_ne!(st, NC_EINTERNAL, "{what}: a panic was caught at the C boundary");
    st
}

/// Every name-returning inquiry with a buffer of exactly NC_MAX_NAME + 1
/// bytes and a guard behind it: a longer write is a bug.
fn name_fits(f: impl FnOnce(*mut c_char) -> c_int, what: &str) {
    let mut buf = vec![0x55u8 as c_char; NC_MAX_NAME + 1 + 64];
    let st = check(f(buf.as_mut_ptr()), what);
    assert!(
        buf[NC_MAX_NAME + 1..].iter().all(|&b| b == 0x55u8 as c_char),
        "{what}: wrote past NC_MAX_NAME + 1"
    );
    if st == 0 {
        assert!(buf[..=NC_MAX_NAME].contains(&0), "{what}: name not terminated");
    }
}

/// Walk everything an open dataset shows, and read every variable.
fn walk(ncid: c_int, depth: usize) {
    if depth > 8 {
        return;
    }
    let (mut ndims, mut nvars, mut natts, mut unlim) = (0, 0, 0, 0);
    if check(
        unsafe { nc_inq(ncid, &mut ndims, &mut nvars, &mut natts, &mut unlim) },
        "nc_inq",
    ) != 0
    {
        return;
    }
    name_fits(|p| unsafe { nc_inq_grpname(ncid, p) }, "nc_inq_grpname");
    for a in 0..natts.min(64) {
        name_fits(|p| unsafe { nc_inq_attname(ncid, NC_GLOBAL, a, p) }, "nc_inq_attname");
    }
    let mut dimids = vec![0; ndims.clamp(0, 1024) as usize];
    let mut nd = 0;
    check(
        unsafe { nc_inq_dimids(ncid, &mut nd, dimids.as_mut_ptr(), 0) },
        "nc_inq_dimids",
    );
    for &d in dimids.iter().take(nd.clamp(0, 1024) as usize) {
        let mut len = 0usize;
        name_fits(|p| unsafe { nc_inq_dim(ncid, d, p, &mut len) }, "nc_inq_dim");
    }
    for v in 0..nvars.min(256) {
        read_var(ncid, v);
    }
    let mut ngrps = 0;
    if check(
        unsafe { nc_inq_grps(ncid, &mut ngrps, std::ptr::null_mut()) },
        "nc_inq_grps",
    ) == 0
        && ngrps > 0
    {
        let mut grps = vec![0; ngrps.min(1024) as usize];
        if ngrps as usize == grps.len()
            && check(
                unsafe { nc_inq_grps(ncid, &mut ngrps, grps.as_mut_ptr()) },
                "nc_inq_grps",
            ) == 0
        {
            for g in grps {
                walk(g, depth + 1);
            }
        }
    }
}

fn read_var(ncid: c_int, varid: c_int) {
    let (mut ty, mut ndims, mut natts) = (0, 0, 0);
    let mut dimids = [0; 1024];
    name_fits(
        |p| unsafe { nc_inq_var(ncid, varid, p, &mut ty, &mut ndims, dimids.as_mut_ptr(), &mut natts) },
        "nc_inq_var",
    );
    for a in 0..natts.min(64) {
        name_fits(|p| unsafe { nc_inq_attname(ncid, varid, a, p) }, "nc_inq_attname");
        let mut name = [0 as c_char; NC_MAX_NAME + 1];
        if unsafe { nc_inq_attname(ncid, varid, a, name.as_mut_ptr()) } != 0 {
            continue;
        }
        let (mut aty, mut alen) = (0, 0usize);
        if check(
            unsafe { nc_inq_att(ncid, varid, name.as_ptr(), &mut aty, &mut alen) },
            "nc_inq_att",
        ) == 0
            && alen <= 1 << 16
            && aty != 12
        {
            let mut buf = vec![0u8; alen * 8 + 8];
            check(
                unsafe { nc_get_att(ncid, varid, name.as_ptr(), buf.as_mut_ptr().cast()) },
                "nc_get_att",
            );
        }
    }
    let mut shape = Vec::new();
    for &d in dimids.iter().take(ndims.clamp(0, 1024) as usize) {
        let mut len = 0usize;
        if unsafe { nc_inq_dimlen(ncid, d, &mut len) } != 0 {
            return;
        }
        shape.push(len);
    }
    let total = shape.iter().try_fold(1usize, |a, &n| a.checked_mul(n));
    let start = vec![0usize; shape.len()];
    match total {
        Some(n) if n <= READ_LIMIT / 8 && ty != 12 => {
            let mut buf = vec![0f64; n.max(1)];
            check(
                unsafe { nc_get_var_double(ncid, varid, buf.as_mut_ptr()) },
                "nc_get_var_double",
            );
        }
        Some(n) if n > 0 => {
            // The first element and the last, as strings for NC_STRING.
            let last: Vec<usize> = shape.iter().map(|&l| l - 1).collect();
            for idx in [&start, &last] {
                if ty == 12 {
                    let mut s: *mut c_char = std::ptr::null_mut();
                    if check(
                        unsafe { nc_get_var1_string(ncid, varid, idx.as_ptr(), &mut s) },
                        "nc_get_var1_string",
                    ) == 0
                    {
                        unsafe { nc_free_string(1, &mut s) };
                    }
                } else {
                    let mut x = 0f64;
                    check(
                        unsafe { nc_get_var1_double(ncid, varid, idx.as_ptr(), &mut x) },
                        "nc_get_var1_double",
                    );
                }
            }
        }
        _ => {}
    }
}

fn open_and_walk(url: &str) {
    let Ok(u) = CString::new(url) else { return };
    let mut ncid = -1;
    if check(unsafe { nc_open(u.as_ptr(), NC_NOWRITE, &mut ncid) }, "nc_open") == 0 {
        walk(ncid, 0);
        check(nc_close(ncid), "nc_close");
    }
}

/// The object names a dataset tree is built from: every marker of every
/// generation, nested groups and arrays, chunk keys of both separators.
const TREE_KEYS: &[&str] = &[
    ".zgroup",
    ".zattrs",
    ".zmetadata",
    ".nczgroup",
    ".nczattr",
    "zarr.json",
    "v/.zarray",
    "v/.zattrs",
    "v/.nczarray",
    "v/.nczattr",
    "v/zarr.json",
    "v/0",
    "v/1",
    "v/0.0",
    "v/0/0",
    "v/c/0",
    "v/c/0/0",
    "v/c.0.0",
    "g/.zgroup",
    "g/.zattrs",
    "g/zarr.json",
    "g/w/.zarray",
    "g/w/.zattrs",
    "g/w/zarr.json",
    "g/w/0",
    "g/w/c/0",
    "g/w/0.0",
];

/// Split an input into (key, content) pairs: one byte picks the key, two
/// give the length, then the content.
fn entries(data: &[u8]) -> Vec<(&'static str, &[u8])> {
    let mut out = Vec::new();
    let mut rest = data;
    while rest.len() >= 3 && out.len() < 64 {
        let key = TREE_KEYS[rest[0] as usize % TREE_KEYS.len()];
        let len = (u16::from_le_bytes([rest[1], rest[2]]) as usize).min(rest.len() - 3);
        out.push((key, &rest[3..3 + len]));
        rest = &rest[3 + len..];
    }
    out
}

fn write_tree(root: &Path, data: &[u8]) {
    std::fs::create_dir_all(root).expect("scratch folder");
    for (key, content) in entries(data) {
        let p = root.join(key);
        if let Some(parent) = p.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::write(&p, content);
    }
}

/// Fuzz target `metadata`: a dataset tree (every metadata generation, v2
/// and v3 markers, chunks) opened in every mode and read back whole.
pub fn metadata(data: &[u8]) {
    setup();
    let root = scratch("tree");
    write_tree(&root, data);
    let mode = ["nczarr,file", "zarr,file", "xarray,file", "zarr,consolidated,file"]
        [data.last().map_or(0, |&b| b as usize >> 6)];
    open_and_walk(&format!("file://{}#mode={mode}", root.display()));
    open_and_walk(&root.display().to_string());
    let _ = std::fs::remove_dir_all(&root);
}

/// Fuzz target `zip`: the input is a zip archive, opened as a dataset.
pub fn zip(data: &[u8]) {
    setup();
    let p = scratch("zip").with_extension("zip");
    std::fs::write(&p, data).expect("scratch file");
    open_and_walk(&format!("file://{}#mode=nczarr,zip", p.display()));
    let _ = std::fs::remove_file(&p);
}

/// The codec configurations a chunk is decoded with (zarr ids, as `.zarray`
/// or `_Codecs` name them).
const CODECS: &[&str] = &[
    r#"{"id": "zlib", "level": 1}"#,
    r#"{"id": "gzip", "level": 1}"#,
    r#"{"id": "bz2", "level": 1}"#,
    r#"{"id": "zstd", "level": 1}"#,
    r#"{"id": "lz4", "acceleration": 1}"#,
    r#"{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}"#,
    r#"{"id": "shuffle", "elementsize": 4}"#,
    r#"{"id": "fletcher32"}"#,
    r#"{"id": "delta", "dtype": "<i4"}"#,
    r#"{"id": "crc32"}"#,
    r#"{"id": "adler32"}"#,
];

/// Fuzz target `codec`: one byte picks a codec, one the element type, the
/// rest is a stored chunk decoded to at most 64 KiB.
pub fn codec(data: &[u8]) {
    setup();
    if data.len() < 2 {
        return;
    }
    let Ok(conf) = serde_json::from_str::<serde_json::Value>(CODECS[data[0] as usize % CODECS.len()]) else {
        return;
    };
    let (nc_type, size) = [(1, 1), (3, 2), (4, 4), (5, 4), (6, 8), (10, 8)][data[1] as usize % 6];
    let ctx = netcdf::codec::VarContext {
        ncid: -1,
        varid: -1,
        nc_type,
        type_size: size,
        chunk_shape: vec![(4096 / size) as u64],
        little_endian: true,
        last_dim_len: None,
    };
    if let Ok(chain) = netcdf::codec::resolve("fuzz", &[conf], &ctx) {
        let _ = chain.decode(data[2..].to_vec(), 4096, 1 << 16);
    }
}

/// Fuzz target `url`: a path or URL classified as open and create would.
pub fn url(data: &[u8]) {
    setup();
    let Ok(s) = std::str::from_utf8(data) else { return };
    let _ = netcdf::api::url::classify(s, false);
    let _ = netcdf::api::url::classify(s, true);
    let _ = netcdf::api::url::test_url_v410(s);
    let _ = netcdf::api::url::dataset_basename(s);
    let _ = netcdf::api::url::path_canonical(data);
}

/// Fuzz target `api`: a sequence of define, write, read and reopen calls on
/// a new NCZarr dataset, each picked and parameterised by the input. Every
/// call must answer a netCDF status; what was written must read back.
pub fn api(data: &[u8]) {
    setup();
    let root = scratch("api");
    let u = CString::new(format!("file://{}#mode=nczarr,file", root.display())).expect("no NUL");
    let mut ncid = -1;
    if check(
        unsafe { nc_create(u.as_ptr(), NC_CLOBBER | NC_NETCDF4, &mut ncid) },
        "nc_create",
    ) != 0
    {
        return;
    }
    let mut open = true;
    let names = [c"a", c"b", c"time", c"x y", c"_FillValue", c"g"];
    let types = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    for op in data.chunks(4).take(64) {
        let [k, a, b, c] = [
            op[0],
            *op.get(1).unwrap_or(&0),
            *op.get(2).unwrap_or(&0),
            *op.get(3).unwrap_or(&0),
        ];
        let name = names[a as usize % names.len()].as_ptr();
        if !open {
            let mut id = -1;
            if check(unsafe { nc_open(u.as_ptr(), 1, &mut id) }, "nc_open") != 0 {
                break;
            }
            ncid = id;
            open = true;
        }
        let st = match k % 12 {
            0 => {
                let mut id = 0;
                unsafe { nc_def_dim(ncid, name, if b == 0 { 0 } else { b as usize % 17 }, &mut id) }
            }
            1 => {
                let mut id = 0;
                let dims = [0, 1, 2];
                unsafe {
                    nc_def_var(
                        ncid,
                        name,
                        types[b as usize % types.len()],
                        (c % 4) as c_int,
                        dims.as_ptr(),
                        &mut id,
                    )
                }
            }
            2 => nc_enddef(ncid),
            3 => nc_redef(ncid),
            4 => {
                let vals: Vec<i32> = (0..256).map(|i| i * (b as i32 + 1)).collect();
                unsafe { nc_put_var_int(ncid, (a % 4) as c_int, vals.as_ptr()) }
            }
            5 => {
                let mut vals = vec![0i32; 4096];
                unsafe { nc_get_var_int(ncid, (a % 4) as c_int, vals.as_mut_ptr()) }
            }
            6 => {
                let v = [b as f64, c as f64];
                unsafe { nc_put_att_double(ncid, (a % 5) as c_int - 1, name, 6, 2, v.as_ptr()) }
            }
            7 => {
                let cs = [(b % 8) as usize, (c % 8) as usize, 1];
                unsafe { nc_def_var_chunking(ncid, (a % 4) as c_int, 0, cs.as_ptr()) }
            }
            8 => nc_def_var_deflate(ncid, (a % 4) as c_int, (b & 1) as c_int, 1, (c % 10) as c_int),
            9 => unsafe { nc_rename_var(ncid, (a % 4) as c_int, names[b as usize % names.len()].as_ptr()) },
            10 => nc_sync(ncid),
            _ => {
                open = false;
                nc_close(ncid)
            }
        };
        check(st, "api call");
    }
    if open {
        walk(ncid, 0);
        check(nc_close(ncid), "nc_close");
    }
    open_and_walk(u.to_str().expect("ascii"));
    let _ = std::fs::remove_dir_all(&root);
}

/// A target's body.
pub type Body = fn(&[u8]);

/// The targets by name (the corpus folders are named after them).
pub const TARGETS: &[(&str, Body)] = &[
    ("metadata", metadata),
    ("zip", zip),
    ("codec", codec),
    ("url", url),
    ("api", api),
];
