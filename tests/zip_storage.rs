//! Zip storage end to end: both layouts read, zipped directory trees, updates
//! of existing archives (atomic, layout and foreign entries kept), NC_NOCLOBBER,
//! and hostile archives (zip bombs, unsafe names, overlaps, truncation,
//! FIFOs, directories): an error code, never a panic, a hang or a write
//! outside the archive.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;
use common::check;

use std::ffi::{CString, c_int};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use netcdf::ffi::*;
use netcdf::format::markers::is_marker;
use netcdf::storage::zip::ZipStore;
use netcdf::storage::{Durability, Key, Replace, Store, StoreError};

const NC_EINTERNAL: c_int = -92;
const NC_ENCZARR: c_int = -137;
const NC_ENOTNC: c_int = -51;
const NC_ENOOBJECT: c_int = -141;
const NC_EEXIST: c_int = -35;
const NC_WRITE: c_int = 1;
const NC_NOCLOBBER: c_int = 4;

/// One entry for the raw archive builder.
struct E {
    name: String,
    data: Vec<u8>,
    /// Deflate the data.
    deflate: bool,
    /// Override the declared uncompressed size.
    size: Option<u32>,
    /// Override the CRC.
    crc: Option<u32>,
}

fn e(name: &str, data: &[u8]) -> E {
    E {
        name: name.to_string(),
        data: data.to_vec(),
        deflate: false,
        size: None,
        crc: None,
    }
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// A zip archive holding `entries` as given (any names, sizes, CRCs), with
/// central records optionally pointing at other entries' local headers.
fn build(entries: &[E], point_all_at_first: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    let mut first_offset = None;
    for en in entries {
        let body = if en.deflate { deflate(&en.data) } else { en.data.clone() };
        let crc = en.crc.unwrap_or_else(|| crc32fast::hash(&en.data));
        let size = en.size.unwrap_or(en.data.len() as u32);
        let method: u16 = if en.deflate { 8 } else { 0 };
        let offset = out.len() as u32;
        let offset = if point_all_at_first {
            *first_offset.get_or_insert(offset)
        } else {
            offset
        };
        let mut h = Vec::new();
        h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        h.extend_from_slice(&20u16.to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(&method.to_le_bytes());
        h.extend_from_slice(&[0, 0, 0x21, 0]);
        h.extend_from_slice(&crc.to_le_bytes());
        h.extend_from_slice(&(body.len() as u32).to_le_bytes());
        h.extend_from_slice(&size.to_le_bytes());
        h.extend_from_slice(&(en.name.len() as u16).to_le_bytes());
        h.extend_from_slice(&0u16.to_le_bytes());
        h.extend_from_slice(en.name.as_bytes());
        out.extend_from_slice(&h);
        out.extend_from_slice(&body);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        central.extend_from_slice(&h[4..30]);
        central.extend_from_slice(&[0u8; 8]); // comment len, disk, internal, external (part)
        central.extend_from_slice(&[0u8; 2]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(en.name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0u8; 4]);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// A pure-Zarr dataset: int32 `v` = 1..6 in two chunks, below `prefix`.
fn dataset(prefix: &str, deflated_chunk: bool) -> Vec<E> {
    let c0: Vec<u8> = [1i32, 2, 3].iter().flat_map(|x| x.to_le_bytes()).collect();
    let c1: Vec<u8> = [4i32, 5, 6].iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut v = vec![
        e(&format!("{prefix}.zgroup"), br#"{"zarr_format": 2}"#),
        e(&format!("{prefix}.zattrs"), b"{}"),
        e(
            &format!("{prefix}v/.zarray"),
            br#"{"zarr_format": 2, "shape": [6], "chunks": [3], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#,
        ),
        e(&format!("{prefix}v/.zattrs"), br#"{"_ARRAY_DIMENSIONS": ["x"]}"#),
        e(&format!("{prefix}v/0"), &c0),
        e(&format!("{prefix}v/1"), &c1),
    ];
    v[5].deflate = deflated_chunk;
    v
}

fn url(p: &Path, mode: &str) -> CString {
    CString::new(format!("file://{}#mode={mode}", p.display())).unwrap()
}

/// Open read-only and read `v`: (open status, values or read status).
fn read_v(p: &Path) -> Result<Vec<i32>, c_int> {
    let u = url(p, "zarr,zip");
    let mut ncid = 0;
    let st = unsafe { nc_open(u.as_ptr(), 0, &mut ncid) };
    assert_ne!(st, NC_EINTERNAL, "open panicked");
    if st != 0 {
        return Err(st);
    }
    let mut varid = -1;
    let r = unsafe { nc_inq_varid(ncid, c"v".as_ptr(), &mut varid) };
    let out = if r != 0 {
        Err(r)
    } else {
        let mut buf = vec![0i32; 6];
        let r = unsafe { nc_get_var_int(ncid, varid, buf.as_mut_ptr()) };
        assert_ne!(r, NC_EINTERNAL, "read panicked");
        if r == 0 { Ok(buf) } else { Err(r) }
    };
    assert_eq!(nc_close(ncid), 0);
    out
}

fn write_zip(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, bytes).unwrap();
    p
}

fn tmp_leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".nczarr-tmp."))
        .collect()
}

const V: [i32; 6] = [1, 2, 3, 4, 5, 6];

#[test]
fn reads_zarr_python_root_layout() {
    let d = tempfile::tempdir().unwrap();
    let p = write_zip(d.path(), "zp.zip", &build(&dataset("", false), false));
    assert_eq!(read_v(&p), Ok(V.to_vec()));
    // Deflated entries inflate (and the plain-path form .zarr.zip opens too).
    let p = write_zip(d.path(), "zp.zarr.zip", &build(&dataset("", true), false));
    assert_eq!(read_v(&p), Ok(V.to_vec()));
    let plain = CString::new(p.to_str().unwrap()).unwrap();
    let mut ncid = 0;
    check(unsafe { nc_open(plain.as_ptr(), 0, &mut ncid) });
    check(nc_close(ncid));
}

#[test]
fn reads_netcdf_c_layout_whatever_the_folder() {
    let d = tempfile::tempdir().unwrap();
    let mut entries = vec![e("other/", b"")];
    entries.extend(dataset("other/", false));
    let p = write_zip(d.path(), "x.zip", &build(&entries, false));
    assert_eq!(read_v(&p), Ok(V.to_vec()));
    // No directory entry and an unrelated entry first: the folder holding
    // the metadata is still found.
    let mut entries = vec![e("README", b"not zarr")];
    entries.extend(dataset("ds.zarr/", true));
    let p = write_zip(d.path(), "y.zip", &build(&entries, false));
    assert_eq!(read_v(&p), Ok(V.to_vec()));
}

#[test]
fn stored_entries_are_read_by_range() {
    let d = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    let mut entries = vec![e("big", &data)];
    entries.push(e("z", &data));
    entries[1].deflate = true;
    let p = write_zip(d.path(), "r.zip", &build(&entries, false));
    let s = ZipStore::open(&p, false, &is_marker).unwrap();
    let k = Key::new("big").unwrap();
    assert_eq!(s.get_range(&k, 77_777, 10).unwrap().unwrap(), &data[77_777..77_787]);
    let z = Key::new("z").unwrap();
    assert_eq!(s.get_range(&z, 5, 3).unwrap().unwrap(), &data[5..8]);
    assert_eq!(s.get(&z, 100_000).unwrap().unwrap(), data);
    assert_eq!(s.get(&z, 99_999), Err(StoreError::Corrupt));
}

/// A directory dataset written by this library, zipped as `zip -r` would
/// (with and without the top folder), reads like the tree.
#[test]
fn zipped_file_tree_reads_like_the_tree() {
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("t.zarr");
    let u = url(&tree, "nczarr,file");
    let mut ncid = 0;
    unsafe {
        check(nc_create(u.as_ptr(), 0, &mut ncid));
        let (mut x, mut v) = (0, 0);
        check(nc_def_dim(ncid, c"x".as_ptr(), 6, &mut x));
        check(nc_def_var(ncid, c"v".as_ptr(), 4, 1, &x, &mut v));
        check(nc_enddef(ncid));
        check(nc_put_var_int(ncid, v, V.as_ptr()));
        check(nc_close(ncid));
    }
    fn walk(root: &Path, dir: &Path, prefix: &str, out: &mut Vec<E>) {
        let mut items: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        items.sort();
        for p in items {
            let rel = p.strip_prefix(root).unwrap().to_str().unwrap().to_string();
            if p.is_dir() {
                out.push(e(&format!("{prefix}{rel}/"), b""));
                walk(root, &p, prefix, out);
            } else {
                out.push(e(&format!("{prefix}{rel}"), &fs::read(&p).unwrap()));
            }
        }
    }
    for (prefix, name) in [("t.zarr/", "folder.zip"), ("", "root.zip")] {
        let mut entries = Vec::new();
        if !prefix.is_empty() {
            entries.push(e(prefix, b""));
        }
        walk(&tree, &tree, prefix, &mut entries);
        let p = write_zip(d.path(), name, &build(&entries, false));
        let u = url(&p, "nczarr,zip");
        let mut ncid = 0;
        let mut got = [0i32; 6];
        unsafe {
            check(nc_open(u.as_ptr(), 0, &mut ncid));
            check(nc_get_var_int(ncid, 0, got.as_mut_ptr()));
            check(nc_close(ncid));
        }
        assert_eq!(got, V, "{name}");
    }
}

/// Updating an existing archive keeps its layout and its foreign entries,
/// and nc_abort leaves it as it was.
#[test]
fn updates_keep_layout_and_foreign_entries() {
    let d = tempfile::tempdir().unwrap();
    let mut entries = dataset("", true);
    entries.push(e("notes/readme.txt", b"keep me"));
    let p = write_zip(d.path(), "u.zip", &build(&entries, false));
    let u = url(&p, "zarr,zip");
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
    let new = [9i32, 8, 7, 6, 5, 4];
    let mut ncid = 0;
    unsafe {
        check(nc_open(u.as_ptr(), NC_WRITE, &mut ncid));
        check(nc_put_var_int(ncid, 0, new.as_ptr()));
        check(nc_close(ncid));
    }
    assert_eq!(read_v(&p), Ok(new.to_vec()));
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o600,
        "permissions kept"
    );
    let s = ZipStore::open(&p, false, &is_marker).unwrap();
    assert!(
        s.list(&Key::root()).unwrap().contains(&".zgroup".to_string()),
        "root layout kept"
    );
    assert_eq!(
        s.get(&Key::new("notes/readme.txt").unwrap(), 100).unwrap().as_deref(),
        Some(&b"keep me"[..])
    );
    drop(s);
    // nc_abort after changes: the archive is as before, nothing left behind.
    let before = fs::read(&p).unwrap();
    unsafe {
        check(nc_open(u.as_ptr(), NC_WRITE, &mut ncid));
        check(nc_put_var_int(ncid, 0, V.as_ptr()));
        check(nc_abort(ncid));
    }
    assert_eq!(fs::read(&p).unwrap(), before);
    assert_eq!(tmp_leftovers(d.path()), Vec::<String>::new());
    // What a killed writer left (a pid that cannot run) goes at the next
    // writable open; other files stay.
    let stale = d.path().join(".u.zip.nczarr-tmp.999999999.3");
    let other = d.path().join(".v.zip.nczarr-tmp.999999999.3");
    fs::write(&stale, b"junk").unwrap();
    fs::write(&other, b"junk").unwrap();
    drop(ZipStore::open(&p, false, &is_marker).unwrap());
    assert!(stale.exists());
    drop(ZipStore::open(&p, true, &is_marker).unwrap());
    assert!(!stale.exists() && other.exists());
    fs::remove_file(&other).unwrap();
    // Many rewrites: dead space is compacted away.
    let s = ZipStore::open(&p, true, &is_marker).unwrap();
    let big = vec![3u8; 300_000];
    for _ in 0..12 {
        s.put(&Key::new("v/junk").unwrap(), &big).unwrap();
        s.flush(Durability::Visible).unwrap();
    }
    s.delete(&Key::new("v/junk").unwrap()).unwrap();
    s.flush(Durability::Visible).unwrap();
    s.put(&Key::new("v/other").unwrap(), b"x").unwrap();
    s.flush(Durability::Visible).unwrap();
    drop(s);
    assert!(
        fs::metadata(&p).unwrap().len() < 1_500_000,
        "dead space was not compacted"
    );
    assert_eq!(read_v(&p), Ok(new.to_vec()));
}

#[test]
fn noclobber_never_replaces_and_create_replaces() {
    let d = tempfile::tempdir().unwrap();
    let p = write_zip(d.path(), "c.zip", &build(&dataset("", false), false));
    let before = fs::read(&p).unwrap();
    let u = url(&p, "nczarr,zip");
    let mut ncid = 0;
    assert_eq!(unsafe { nc_create(u.as_ptr(), NC_NOCLOBBER, &mut ncid) }, NC_EEXIST);
    assert_eq!(fs::read(&p).unwrap(), before);
    check(unsafe { nc_create(u.as_ptr(), 0, &mut ncid) });
    check(nc_close(ncid));
    assert_ne!(fs::read(&p).unwrap(), before);
    // netcdf-c's layout: the folder named after the archive, its entry first.
    let s = ZipStore::open(&p, false, &is_marker).unwrap();
    assert_eq!(s.list(&Key::root()).unwrap(), vec![".zattrs", ".zgroup"]);
    let raw = fs::read(&p).unwrap();
    assert_eq!(&raw[30..32], b"c/");
    assert_eq!(tmp_leftovers(d.path()), Vec::<String>::new());
    // nc_abort of a created archive removes it.
    let q = d.path().join("gone.zip");
    let uq = url(&q, "nczarr,zip");
    unsafe {
        check(nc_create(uq.as_ptr(), 0, &mut ncid));
        check(nc_abort(ncid));
    }
    assert!(!q.exists());
    // A directory in the way is not replaced.
    let dirp = d.path().join("dir.zip");
    fs::create_dir(&dirp).unwrap();
    let ud = url(&dirp, "nczarr,zip");
    assert_eq!(unsafe { nc_create(ud.as_ptr(), 0, &mut ncid) }, NC_EEXIST);
    assert!(dirp.is_dir());
}

#[test]
fn hostile_archives_are_errors() {
    let d = tempfile::tempdir().unwrap();
    let outside = d.path().join("evil");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("dotdot", build(&[e("../evil", b"x"), e(".zgroup", b"{}")], false)),
        (
            "inner-dotdot",
            build(&[e("a/../../evil", b"x"), e(".zgroup", b"{}")], false),
        ),
        ("absolute", build(&[e("/tmp/evil", b"x"), e(".zgroup", b"{}")], false)),
        ("backslash", build(&[e("..\\evil", b"x"), e(".zgroup", b"{}")], false)),
        ("overlap", build(&dataset("", false), true)),
        (
            "garbage",
            b"PK\x03\x04 this is not really a zip archive at all".to_vec(),
        ),
        ("empty-file", Vec::new()),
        ("truncated", {
            let b = build(&dataset("", false), false);
            b[..b.len() / 2].to_vec()
        }),
        ("truncated-tail", {
            let b = build(&dataset("", false), false);
            b[..b.len() - 1].to_vec()
        }),
        ("declared-bomb", {
            let mut en = dataset("", false);
            en[4].deflate = true;
            en[4].size = Some(4_000_000_000);
            build(&en, false)
        }),
    ];
    for (name, bytes) in cases {
        let p = write_zip(d.path(), &format!("{name}.zip"), &bytes);
        let r = read_v(&p);
        assert_eq!(r, Err(NC_ENCZARR), "{name}");
        assert!(!outside.exists(), "{name} wrote outside the archive");
    }
}

#[test]
fn hostile_entries_fail_when_read() {
    let d = tempfile::tempdir().unwrap();
    // A real bomb: 12 bytes declared, megabytes inside.
    let mut en = dataset("", false);
    en[4].data = vec![0u8; 4 << 20];
    en[4].deflate = true;
    en[4].size = Some(12);
    en[4].crc = Some(crc32fast::hash(&[0u8; 12]));
    let p = write_zip(d.path(), "bomb.zip", &build(&en, false));
    assert_eq!(read_v(&p), Err(NC_ENCZARR));
    // A wrong CRC.
    let mut en = dataset("", false);
    en[5].crc = Some(0xdead_beef);
    let p = write_zip(d.path(), "crc.zip", &build(&en, false));
    assert_eq!(read_v(&p), Err(NC_ENCZARR));
    // Corrupt deflate data.
    let mut bytes = build(&dataset("", true), false);
    let at = bytes.windows(3).position(|w| w == b"v/1").unwrap() + 3;
    bytes[at] ^= 0xff;
    bytes[at + 1] ^= 0xff;
    let p = write_zip(d.path(), "corrupt.zip", &bytes);
    assert_eq!(read_v(&p), Err(NC_ENCZARR));
}

/// zarr-python's ZipStore appends a new entry for every rewrite: the last wins.
#[test]
fn duplicate_names_last_wins() {
    let d = tempfile::tempdir().unwrap();
    let mut en = dataset("", false);
    let old: Vec<u8> = [0i32, 0, 0].iter().flat_map(|x| x.to_le_bytes()).collect();
    en.insert(4, e("v/0", &old));
    let p = write_zip(d.path(), "dup.zip", &build(&en, false));
    assert_eq!(read_v(&p), Ok(V.to_vec()));
}

#[test]
fn not_a_zip_where_the_archive_should_be() {
    let d = tempfile::tempdir().unwrap();
    assert_eq!(read_v(&d.path().join("missing.zip")), Err(NC_ENOOBJECT));
    let dir = d.path().join("dir.zip");
    fs::create_dir(&dir).unwrap();
    assert_eq!(read_v(&dir), Err(NC_ENOTNC));
    let fifo = d.path().join("fifo.zip");
    let c = CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(read_v(&fifo));
    });
    let r = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("opening a FIFO blocked");
    assert_eq!(r, Err(NC_ENCZARR));
}

/// Data before the archive (a self-extracting stub): offsets are relative to
/// the archive's start, and updates keep the stub.
#[test]
fn prepended_data() {
    let d = tempfile::tempdir().unwrap();
    let mut bytes = vec![b'#'; 100];
    bytes.extend(build(&dataset("", false), false));
    let p = write_zip(d.path(), "sfx.zip", &bytes);
    assert_eq!(read_v(&p), Ok(V.to_vec()));
    let u = url(&p, "zarr,zip");
    let new = [6i32, 5, 4, 3, 2, 1];
    let mut ncid = 0;
    unsafe {
        check(nc_open(u.as_ptr(), NC_WRITE, &mut ncid));
        check(nc_put_var_int(ncid, 0, new.as_ptr()));
        check(nc_close(ncid));
    }
    assert_eq!(read_v(&p), Ok(new.to_vec()));
}

/// More than 65535 entries: the archive needs zip64 end records.
#[test]
fn many_entries_use_zip64() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("many.zip");
    let s = ZipStore::create(&p, Replace::Never).unwrap();
    for i in 0..70_000u32 {
        s.put(&Key::new(&format!("v/{i}")).unwrap(), &i.to_le_bytes()).unwrap();
    }
    s.flush(Durability::Visible).unwrap();
    drop(s);
    let s = ZipStore::open(&p, false, &is_marker).unwrap();
    assert_eq!(s.list(&Key::new("v").unwrap()).unwrap().len(), 70_000);
    let k = Key::new("v/69999").unwrap();
    assert_eq!(s.get(&k, 4).unwrap().unwrap(), 69_999u32.to_le_bytes());
}

/// A write that fails (here: the file-size limit, EFBIG) leaves the archive
/// as of the last sync, readable.
#[test]
fn failed_write_keeps_the_last_synced_archive() {
    const BIG: usize = 100_000;
    if let Ok(path) = std::env::var("NCZ_ZIP_EFBIG_CHILD") {
        let u = url(Path::new(&path), "zarr,zip");
        let mut ncid = 0;
        unsafe {
            check(nc_open(u.as_ptr(), NC_WRITE, &mut ncid));
            check(nc_redef(ncid));
            let (mut x, mut w) = (0, 0);
            check(nc_def_dim(ncid, c"big".as_ptr(), BIG, &mut x));
            check(nc_def_var(ncid, c"w".as_ptr(), 4, 1, &x, &mut w));
            check(nc_enddef(ncid));
            check(nc_sync(ncid));
            // From here on no file may grow past 64 KiB.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: 64 << 10,
                rlim_max: 64 << 10,
            };
            assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &lim), 0);
            let data = vec![7i32; BIG];
            let put = nc_put_var_int(ncid, w, data.as_ptr());
            let close = nc_close(ncid);
            println!("STATUS {put} {close}");
        }
        std::process::exit(0);
    }
    let d = tempfile::tempdir().unwrap();
    let p = write_zip(d.path(), "f.zip", &build(&dataset("", false), false));
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "failed_write_keeps_the_last_synced_archive",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("NCZ_ZIP_EFBIG_CHILD", &p)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let status = text
        .lines()
        .find_map(|l| l.split("STATUS ").nth(1))
        .unwrap_or_else(|| panic!("child: {text} {}", String::from_utf8_lossy(&out.stderr)));
    assert_ne!(status, "0 0", "the oversized write did not fail");
    assert_eq!(
        tmp_leftovers(d.path()),
        Vec::<String>::new(),
        "the failed update left its file"
    );
    assert_eq!(read_v(&p), Ok(V.to_vec()));
    let u = url(&p, "zarr,zip");
    let mut ncid = 0;
    let mut w = 0;
    let mut got = vec![0i32; BIG];
    unsafe {
        check(nc_open(u.as_ptr(), 0, &mut ncid));
        check(nc_inq_varid(ncid, c"w".as_ptr(), &mut w));
        check(nc_get_var_int(ncid, w, got.as_mut_ptr()));
    }
    check(nc_close(ncid));
    assert!(got.iter().all(|&x| x != 7), "data of the failed write is visible");
}

/// Random damage to a valid archive (flipped bytes, truncation, a shortened
/// or grown central directory): every outcome is a value or an error code,
/// never a panic (NC_EINTERNAL) or a hang.
#[test]
fn mutated_archives_never_panic() {
    let d = tempfile::tempdir().unwrap();
    let mut entries = vec![e("m/", b"")];
    entries.extend(dataset("m/", true));
    let good = build(&entries, false);
    let mut rng = common::Rng(0x5eed_2026);
    for i in 0..400 {
        let mut b = good.clone();
        match i % 4 {
            0 => {
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(b.len());
                    b[at] ^= 1 << rng.below(8);
                }
            }
            1 => b.truncate(rng.below(b.len())),
            2 => {
                // Damage the central directory or the end record.
                let tail = b.len() - rng.below(200.min(b.len()));
                let at = tail.min(b.len() - 1);
                b[at] = rng.next() as u8;
            }
            _ => {
                let at = rng.below(b.len());
                let junk: Vec<u8> = (0..rng.below(64)).map(|_| rng.next() as u8).collect();
                b.splice(at..at, junk);
            }
        }
        let p = write_zip(d.path(), &format!("m{i}.zip"), &b);
        match read_v(&p) {
            Ok(v) => assert_eq!(v.len(), 6),
            Err(code) => assert!(code < 0 && code != NC_EINTERNAL, "case {i}: {code}"),
        }
        fs::remove_file(&p).unwrap();
    }
}

/// An update through a symbolic link replaces the archive it points to.
#[test]
fn update_through_a_link_updates_the_target() {
    let d = tempfile::tempdir().unwrap();
    fs::create_dir(d.path().join("real")).unwrap();
    let target = write_zip(&d.path().join("real"), "t.zip", &build(&dataset("", false), false));
    let link = d.path().join("link.zip");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let u = url(&link, "zarr,zip");
    let new = [0i32, 1, 0, 1, 0, 1];
    let mut ncid = 0;
    unsafe {
        check(nc_open(u.as_ptr(), NC_WRITE, &mut ncid));
        check(nc_put_var_int(ncid, 0, new.as_ptr()));
        check(nc_close(ncid));
    }
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(read_v(&target), Ok(new.to_vec()));
    assert_eq!(read_v(&link), Ok(new.to_vec()));
}

/// NC_NOCLOBBER holds even when the archive appears between nc_create and
/// the first flush: the new archive never replaces it.
#[test]
fn noclobber_race_keeps_the_newcomer() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("race.zip");
    let s = ZipStore::create(&p, Replace::Never).unwrap();
    s.put(&Key::new(".zgroup").unwrap(), b"{}").unwrap();
    fs::write(&p, b"someone else's archive").unwrap();
    assert_eq!(s.flush(Durability::Visible), Err(StoreError::AlreadyExists));
    assert_eq!(fs::read(&p).unwrap(), b"someone else's archive");
    drop(s);
    assert_eq!(tmp_leftovers(d.path()), Vec::<String>::new());
}

/// Which folder of an archive is the dataset is the opener's rule: the store
/// takes the folder holding an object the opener names, and knows no Zarr
/// marker itself.
#[test]
fn the_opener_names_the_root_markers() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("two.zip");
    fs::write(
        &p,
        build(&[e("a/.zgroup", b"{}"), e("b/mark", b"m"), e("b/x", b"1")], false),
    )
    .unwrap();
    let names = |s: &ZipStore| s.list(&Key::root()).unwrap();
    assert_eq!(names(&ZipStore::open(&p, false, &is_marker).unwrap()), vec![".zgroup"]);
    assert_eq!(
        names(&ZipStore::open(&p, false, &|n: &str| n == "mark").unwrap()),
        vec!["mark", "x"]
    );
    // A marker at the root of the archive: the root layout.
    fs::write(&p, build(&[e("mark", b"m"), e("a/.zgroup", b"{}")], false)).unwrap();
    assert_eq!(
        names(&ZipStore::open(&p, false, &|n: &str| n == "mark").unwrap()),
        vec!["a", "mark"]
    );
}
