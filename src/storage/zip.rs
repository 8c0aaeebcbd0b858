//! Zip-archive store, netcdf-c's `zmap_zip`, with updates that netcdf-c does
//! not offer.
//!
//! # Layouts
//! - Written: netcdf-c's. Every object lives below one top-level folder named
//!   after the archive without its last extension (`x.zip` holds `x/.zgroup`,
//!   `x/v/0.0`, ...; `x.zarr.zip` holds `x.zarr/...`), and the folder's own
//!   directory entry `x/` comes first. Objects are stored uncompressed, as
//!   netcdf-c writes them (chunks are compressed by their codecs, if at all).
//! - Read: that layout (whatever the folder is called: the one folder that
//!   holds an object the opener names as a dataset's root marker, preferring
//!   the first entry's, as netcdf-c does), and zarr-python's `ZipStore`
//!   layout with the objects at the root of the archive. A directory dataset zipped with `zip -r` is either of the two.
//!   Entries outside the dataset's folder are kept untouched by updates.
//!
//! # Reading
//! The central directory is parsed once, at open, with the `zip` crate; then
//! every object is read with positioned reads of the archive (several threads
//! at once, no lock held during I/O). A stored entry's range is read without
//! touching the rest of it; a deflated entry is inflated into a buffer of its
//! declared size, which is itself bounded by the caller's limit.
//!
//! # Updating
//! Writing never modifies the archive in place. The first change after an
//! open or a flush starts a new archive beside the old one (a hidden
//! `.<name>.nczarr-tmp.<pid>.<n>` in the same directory) that begins with a
//! byte copy of the old archive's entries (an in-kernel copy on Linux), so
//! every old entry keeps its offset; new and replaced objects are appended to
//! it. `flush` (nc_enddef, nc_sync, nc_close) writes the new central directory
//! and renames the new file over the archive; a `Durability::Stable` flush
//! (nc_sync always, nc_enddef and nc_close in durable mode) also syncs the
//! new file before the rename and the directory after it, or, when nothing
//! changed since a flush that did not sync, that archive and its directory.
//! So:
//! - after any flush, what was written survives a kill -9; after a stable
//!   one, an operating-system crash or a power loss too;
//! - a killed process or a failed write leaves the archive as of the last
//!   flush (the stray temporary file of a killed process is the only trace,
//!   removed by the next writable open once that process is gone);
//! - NC_NOCLOBBER never replaces an existing archive (the first rename is
//!   `RENAME_NOREPLACE`), and a plain nc_create replaces the old archive only
//!   at its first flush, so a failed create leaves it as it was.
//!
//! Replaced and deleted objects leave dead bytes behind; when they exceed
//! both the live bytes and 1 MiB, the next update copies only the live
//! entries instead (compaction). Each flush after a change costs a copy of the
//! archive: the price of an update that is atomic for every zip reader.
//!
//! # Hostile archives
//! Duplicate names are read as Python's zipfile (and so zarr-python, whose
//! ZipStore writes one each time it rewrites an object) reads them: the last
//! entry wins; the next update drops the others.
//! Opening refuses (`StoreError::Corrupt`, NC_ENCZARR) archives that are truncated or inconsistent,
//! with names that are absolute, hold `..`/`.`/empty
//! segments, backslashes or NUL, symbolic-link entries, entries whose bytes
//! lie outside the archive or overlap another entry (the overlapping-entry zip
//! bomb), or a declared size more than 1100 times the compressed size (more
//! than deflate can reach: a declared-size zip bomb). Reading an entry inflates
//! at most its declared size plus one byte; more, less, or a CRC mismatch is
//! `Corrupt`. Encrypted entries and compression methods other than stored
//! and deflate are `Corrupt` when read. Nothing is ever extracted to the
//! file system, so no entry name can make us write outside the archive.
//!
//! | situation | error (netCDF error) |
//! |---|---|
//! | archive missing (open) | `NotFound` (NC_ENOOBJECT), as for a missing directory dataset |
//! | a directory where the archive should be | `NotAContainer` (NC_ENOTNC) |
//! | a FIFO, socket or device there | `Corrupt` (NC_ENCZARR; never opened blocking) |
//! | not a zip, truncated, hostile | `Corrupt` (NC_ENCZARR: netcdf-c's answer for libzip's "not a zip archive") |
//! | NC_NOCLOBBER and the archive exists | `AlreadyExists` (NC_EEXIST) |
//! | permission denied | `PermissionDenied` (NC_EAUTH), as the file store |
#![forbid(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, ErrorKind};
use std::ops::Bound;
use std::os::unix::fs::{FileExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Capabilities, Durability, Key, Replace, Store, StoreError, StoreResult};
use crate::log::Level;

/// Deflate cannot expand more than about 1032:1; a larger declared ratio is a lie.
const MAX_RATIO: u64 = 1100;

/// Dead bytes that trigger compaction (when they also exceed the live bytes).
const COMPACT_MIN_DEAD: u64 = 1 << 20;

const LOCAL_SIG: u32 = 0x0403_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
const EOCD_SIG: u32 = 0x0605_4b50;
const EOCD64_SIG: u32 = 0x0606_4b50;
const EOCD64_LOC_SIG: u32 = 0x0706_4b50;
/// General purpose flag: names are UTF-8.
const FLAG_UTF8: u16 = 0x0800;
const U32_MAX: u64 = 0xFFFF_FFFF;

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Stored,
    Deflated,
    Unsupported,
}

impl Method {
    fn code(self) -> u16 {
        match self {
            Method::Stored => 0,
            Method::Deflated => 8,
            // Never written: compaction keeps such entries' method by copying
            // the code read from the archive (see Entry::raw_method).
            Method::Unsupported => 0,
        }
    }
}

/// One entry of the archive (an object or a directory entry).
#[derive(Debug, Clone)]
struct Entry {
    /// Offset of the local header.
    header: u64,
    /// Offset of the (compressed) data.
    data: u64,
    csize: u64,
    size: u64,
    method: Method,
    raw_method: u16,
    crc: u32,
    encrypted: bool,
    dos_time: u16,
    dos_date: u16,
    /// Unix mode bits for the central directory (0 = none recorded).
    mode: u32,
}

impl Entry {
    fn is_dir(name: &str) -> bool {
        name.ends_with('/')
    }
    /// Bytes from the local header to the end of the data.
    fn span(&self) -> u64 {
        self.data.saturating_sub(self.header).saturating_add(self.csize)
    }
}

/// An update in progress: the new archive being built.
#[derive(Debug)]
struct Session {
    tmp: PathBuf,
    file: Arc<File>,
    /// Where the next entry goes.
    end: u64,
}

#[derive(Debug)]
struct Inner {
    /// Folder of the dataset inside the archive ("" for the root layout).
    prefix: String,
    /// Every entry by full name; directory entries keep their trailing '/'.
    entries: BTreeMap<String, Entry>,
    /// The bytes entries point into: the archive, or the session's new file.
    file: Option<Arc<File>>,
    /// End of the entries region of `file` outside a session (where its
    /// central directory starts).
    data_end: u64,
    session: Option<Session>,
    /// Some(noclobber) for a created archive not yet renamed into place.
    pending_create: Option<bool>,
    /// Bytes of replaced or deleted entries still in the file.
    dead: u64,
    /// Permission bits for the new archive: the old archive's, or None for
    /// a created one (0666 less the umask, as libzip gives netcdf-c).
    perm: Option<u32>,
    /// The archive in place was renamed there by a `Durability::Visible`
    /// flush: the next stable flush syncs it and its directory.
    unsynced: bool,
}

/// A dataset stored in a zip archive.
#[derive(Debug)]
pub struct ZipStore {
    path: PathBuf,
    writable: bool,
    inner: Mutex<Inner>,
}

/// Log a system error of the operation `what` on `path` and give its kind.
fn io_error(what: &str, path: &Path, e: &io::Error) -> StoreError {
    crate::nclog!(Level::Error, "zip store: {} {}: {}", what, path.display(), e);
    StoreError::from_io(e)
}

fn bad(path: &Path, why: &str) -> StoreError {
    crate::nclog!(Level::Error, "zip store: {}: {}", path.display(), why);
    StoreError::Corrupt
}

fn zip_error(path: &Path, e: zip::result::ZipError) -> StoreError {
    match e {
        zip::result::ZipError::Io(io) if io.kind() != ErrorKind::UnexpectedEof => io_error("read archive", path, &io),
        other => bad(path, &format!("not a usable zip archive: {other}")),
    }
}

/// A zeroed buffer of `len` bytes, or `StoreError::OutOfMemory` instead of an abort.
fn alloc(len: u64) -> StoreResult<Vec<u8>> {
    let n = usize::try_from(len).map_err(|_| StoreError::OutOfMemory)?;
    let mut v = Vec::new();
    if v.try_reserve_exact(n).is_err() {
        crate::nclog!(Level::Error, "zip store: cannot allocate {} bytes", n);
        return Err(StoreError::OutOfMemory);
    }
    v.resize(n, 0);
    Ok(v)
}

/// Whether an entry name (without a directory's trailing '/') is safe: no
/// absolute path, drive letter, `.`/`..`/empty segment, backslash or NUL.
fn name_is_safe(name: &str) -> bool {
    let body = name.strip_suffix('/').unwrap_or(name);
    if body.is_empty() || body.starts_with('/') || body.contains(['\\', '\0']) {
        return false;
    }
    let b = body.as_bytes();
    if b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
        return false;
    }
    body.split('/').all(|s| !s.is_empty() && s != "." && s != "..")
}

/// The folder netcdf-c names after the archive: its file name up to the last '.'.
fn dataset_name(path: &Path) -> String {
    let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = match file.rfind('.') {
        Some(i) => &file[..i],
        None => file,
    };
    if Key::new(stem).is_ok_and(|k| k.segments().count() == 1) {
        stem.to_string()
    } else {
        "dataset".to_string()
    }
}

/// Open `path` for reading if it is a regular file (links followed, never blocking).
fn open_archive(path: &Path) -> StoreResult<File> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            crate::nclog!(Level::Error, "zip store: {} not found", path.display());
            return Err(StoreError::NotFound);
        }
        Err(e) => return Err(io_error("stat", path, &e)),
    };
    if meta.is_dir() {
        crate::nclog!(
            Level::Error,
            "zip store: {} is a directory, not a zip archive",
            path.display()
        );
        return Err(StoreError::NotAContainer);
    }
    if !meta.is_file() {
        return Err(bad(path, "not a regular file"));
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| io_error("open", path, &e))?;
    let meta = file.metadata().map_err(|e| io_error("fstat", path, &e))?;
    if !meta.is_file() {
        return Err(bad(path, "not a regular file"));
    }
    Ok(file)
}

/// Parse and check the central directory of `file`.
fn read_directory(path: &Path, file: &File) -> StoreResult<(BTreeMap<String, Entry>, Vec<String>, u64)> {
    let file_len = file.metadata().map_err(|e| io_error("fstat", path, &e))?.len();
    let mut archive = zip::ZipArchive::new(file).map_err(|e| zip_error(path, e))?;
    if archive.has_duplicate_names() {
        // zarr-python's ZipStore appends a new entry each time it rewrites an
        // object, so duplicates are its normal output; the last one wins, as
        // in Python's zipfile (the crate keeps the last). Refusing them would
        // refuse every zarr-python archive written in more than one step.
        crate::nclog!(
            Level::Note,
            "zip store: {} has duplicate entry names; the last of each is used",
            path.display()
        );
    }
    let cd_start = archive.central_directory_start().saturating_add(archive.offset());
    let mut entries = BTreeMap::new();
    let mut order = Vec::with_capacity(archive.len().min(1 << 20));
    for i in 0..archive.len() {
        let f = archive.by_index_raw(i).map_err(|e| zip_error(path, e))?;
        let Ok(name) = std::str::from_utf8(f.name_raw()) else {
            return Err(bad(path, "an entry name is not UTF-8"));
        };
        let name = name.to_string();
        if !name_is_safe(&name) {
            return Err(bad(path, &format!("unsafe entry name {name:?}")));
        }
        if f.is_symlink() {
            return Err(bad(path, &format!("entry {name:?} is a symbolic link")));
        }
        let data = f.data_start().ok_or_else(|| bad(path, "entry without data offset"))?;
        let (method, raw_method) = match f.compression() {
            zip::CompressionMethod::Stored => (Method::Stored, 0),
            zip::CompressionMethod::Deflated => (Method::Deflated, 8),
            _ => (Method::Unsupported, 0xFFFF),
        };
        let (dos_time, dos_date) = f.last_modified().map_or((0, 0x21), |d| (d.timepart(), d.datepart()));
        let e = Entry {
            header: f.header_start(),
            data,
            csize: f.compressed_size(),
            size: f.size(),
            method,
            raw_method,
            crc: f.crc32(),
            encrypted: f.encrypted(),
            dos_time,
            dos_date,
            mode: f.unix_mode().unwrap_or(0),
        };
        let end = e
            .data
            .checked_add(e.csize)
            .ok_or_else(|| bad(path, "entry offset overflows"))?;
        if end > file_len || e.data < e.header {
            return Err(bad(
                path,
                &format!("entry {name:?} lies outside the archive (truncated?)"),
            ));
        }
        if e.method == Method::Stored && e.size != e.csize && !e.encrypted {
            return Err(bad(path, &format!("stored entry {name:?} has two sizes")));
        }
        if e.size > e.csize.saturating_mul(MAX_RATIO).saturating_add(1024) {
            return Err(bad(
                path,
                &format!("entry {name:?} declares {} bytes from {} (zip bomb)", e.size, e.csize),
            ));
        }
        order.push(name.clone());
        entries.insert(name, e);
    }
    // Overlapping entries (one compressed stream shared by many entries) are a zip bomb.
    let mut spans: Vec<(u64, u64)> = entries.values().map(|e| (e.header, e.data + e.csize)).collect();
    spans.sort_unstable();
    let mut data_end = 0u64;
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(bad(path, "entries overlap (zip bomb)"));
        }
    }
    if let Some(last) = spans.last() {
        data_end = last.1;
    }
    if data_end > cd_start {
        return Err(bad(path, "entries run into the central directory"));
    }
    // Keep data descriptors and anything else before the directory.
    Ok((entries, order, cd_start.min(file_len)))
}

/// The dataset's folder inside an archive with these entries: the root when
/// it holds a marker object, else a top-level folder that holds one.
fn detect_prefix(
    entries: &BTreeMap<String, Entry>,
    order: &[String],
    path: &Path,
    marks_root: &dyn Fn(&str) -> bool,
) -> String {
    // Directory entries end in '/': a name without one is an object.
    if entries.keys().any(|n| !n.contains('/') && marks_root(n)) {
        return String::new();
    }
    let mut candidates = BTreeSet::new();
    for name in entries.keys() {
        if let Some((first, rest)) = name.split_once('/')
            && !rest.contains('/')
            && marks_root(rest)
        {
            candidates.insert(first.to_string());
        }
    }
    let first_of_entry0 = order
        .first()
        .and_then(|n| n.split_once('/'))
        .map(|(f, _)| f.to_string());
    if let Some(f) = &first_of_entry0
        && candidates.contains(f)
    {
        return f.clone();
    }
    if let Some(c) = candidates.iter().next() {
        if candidates.len() > 1 {
            crate::nclog!(
                Level::Warn,
                "zip store: {} holds several datasets; using {:?}",
                path.display(),
                c
            );
        }
        return c.clone();
    }
    // No marker anywhere: netcdf-c's rule (the folder of entry 0; the
    // root when entry 0 is a file at the root), else for an empty archive
    // the name netcdf-c writes.
    match order.first() {
        Some(_) => first_of_entry0.unwrap_or_default(),
        None => dataset_name(path),
    }
}

fn put_u16(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn put_u32(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn put_u64(v: &mut Vec<u8>, x: u64) {
    v.extend_from_slice(&x.to_le_bytes());
}
fn clamp32(x: u64) -> u32 {
    u32::try_from(x)
        .ok()
        .filter(|&v| u64::from(v) < U32_MAX)
        .unwrap_or(u32::MAX)
}

/// MS-DOS time and date of now (UTC).
fn dos_now() -> (u16, u16) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let year = year.clamp(1980, 2107);
    let time = (((rem / 3600) << 11) | (((rem % 3600) / 60) << 5) | ((rem % 60) / 2)) as u16;
    let date = (((year - 1980) << 9) | (month << 5) | day) as u16;
    (time, date)
}

/// A local file header for `name`.
fn local_header(name: &str, e: &Entry) -> Vec<u8> {
    let zip64 = e.size >= U32_MAX || e.csize >= U32_MAX;
    let mut h = Vec::with_capacity(30 + name.len() + 20);
    put_u32(&mut h, LOCAL_SIG);
    put_u16(&mut h, if zip64 { 45 } else { 20 });
    put_u16(&mut h, FLAG_UTF8);
    put_u16(
        &mut h,
        if e.method == Method::Unsupported {
            e.raw_method
        } else {
            e.method.code()
        },
    );
    put_u16(&mut h, e.dos_time);
    put_u16(&mut h, e.dos_date);
    put_u32(&mut h, e.crc);
    put_u32(&mut h, if zip64 { u32::MAX } else { clamp32(e.csize) });
    put_u32(&mut h, if zip64 { u32::MAX } else { clamp32(e.size) });
    put_u16(&mut h, name.len() as u16);
    put_u16(&mut h, if zip64 { 20 } else { 0 });
    h.extend_from_slice(name.as_bytes());
    if zip64 {
        put_u16(&mut h, 0x0001);
        put_u16(&mut h, 16);
        put_u64(&mut h, e.size);
        put_u64(&mut h, e.csize);
    }
    h
}

/// A central directory record for `name`.
fn central_record(out: &mut Vec<u8>, name: &str, e: &Entry) {
    let mut extra = Vec::new();
    if e.size >= U32_MAX {
        put_u64(&mut extra, e.size);
    }
    if e.csize >= U32_MAX {
        put_u64(&mut extra, e.csize);
    }
    if e.header >= U32_MAX {
        put_u64(&mut extra, e.header);
    }
    let zip64 = !extra.is_empty();
    let dir = Entry::is_dir(name);
    let mode = if e.mode != 0 {
        e.mode
    } else if dir {
        0o040_755
    } else {
        0o100_644
    };
    put_u32(out, CENTRAL_SIG);
    put_u16(out, 3 << 8 | if zip64 { 45 } else { 20 });
    put_u16(out, if zip64 { 45 } else { 20 });
    put_u16(out, FLAG_UTF8);
    put_u16(
        out,
        if e.method == Method::Unsupported {
            e.raw_method
        } else {
            e.method.code()
        },
    );
    put_u16(out, e.dos_time);
    put_u16(out, e.dos_date);
    put_u32(out, e.crc);
    put_u32(out, clamp32(e.csize));
    put_u32(out, clamp32(e.size));
    put_u16(out, name.len() as u16);
    put_u16(out, if zip64 { extra.len() as u16 + 4 } else { 0 });
    put_u16(out, 0); // comment
    put_u16(out, 0); // disk
    put_u16(out, 0); // internal attributes
    put_u32(out, (mode << 16) | (u32::from(dir) * 0x10));
    put_u32(out, clamp32(e.header));
    out.extend_from_slice(name.as_bytes());
    if zip64 {
        put_u16(out, 0x0001);
        put_u16(out, extra.len() as u16);
        out.extend_from_slice(&extra);
    }
}

/// The central directory and end records for entries, directory at `cd_offset`.
fn central_directory(entries: &BTreeMap<String, Entry>, cd_offset: u64) -> Vec<u8> {
    let mut sorted: Vec<(&String, &Entry)> = entries.iter().collect();
    sorted.sort_by_key(|(_, e)| e.header);
    let mut out = Vec::new();
    for (name, e) in &sorted {
        central_record(&mut out, name, e);
    }
    let cd_size = out.len() as u64;
    let count = sorted.len() as u64;
    let zip64 = count >= 0xFFFF || cd_size >= U32_MAX || cd_offset >= U32_MAX;
    if zip64 {
        let eocd64 = cd_offset + cd_size;
        put_u32(&mut out, EOCD64_SIG);
        put_u64(&mut out, 44);
        put_u16(&mut out, 3 << 8 | 45);
        put_u16(&mut out, 45);
        put_u32(&mut out, 0);
        put_u32(&mut out, 0);
        put_u64(&mut out, count);
        put_u64(&mut out, count);
        put_u64(&mut out, cd_size);
        put_u64(&mut out, cd_offset);
        put_u32(&mut out, EOCD64_LOC_SIG);
        put_u32(&mut out, 0);
        put_u64(&mut out, eocd64);
        put_u32(&mut out, 1);
    }
    put_u32(&mut out, EOCD_SIG);
    put_u16(&mut out, 0);
    put_u16(&mut out, 0);
    let c16 = if zip64 { 0xFFFF } else { count as u16 };
    put_u16(&mut out, c16);
    put_u16(&mut out, c16);
    put_u32(&mut out, if zip64 { u32::MAX } else { clamp32(cd_size) });
    put_u32(&mut out, if zip64 { u32::MAX } else { clamp32(cd_offset) });
    put_u16(&mut out, 0);
    out
}

/// Inflate raw deflate `input` into exactly `size` bytes (no more).
fn inflate(input: &[u8], size: u64, out: &mut Vec<u8>) -> Result<(), &'static str> {
    let n = usize::try_from(size).map_err(|_| "too large")?;
    out.clear();
    if out.try_reserve_exact(n + 1).is_err() {
        return Err("out of memory");
    }
    out.resize(n + 1, 0);
    let mut d = flate2::Decompress::new(false);
    let mut in_pos = 0usize;
    let mut out_pos = 0usize;
    loop {
        let before = (d.total_in(), d.total_out());
        let status = d
            .decompress(&input[in_pos..], &mut out[out_pos..], flate2::FlushDecompress::Finish)
            .map_err(|_| "corrupt deflate stream")?;
        in_pos = d.total_in() as usize;
        out_pos = d.total_out() as usize;
        if out_pos > n {
            return Err("inflates to more than its declared size (zip bomb)");
        }
        match status {
            flate2::Status::StreamEnd => break,
            _ if (d.total_in(), d.total_out()) == before => return Err("truncated deflate stream"),
            _ => {}
        }
    }
    if out_pos != n {
        return Err("inflates to less than its declared size");
    }
    out.truncate(n);
    Ok(())
}

fn lock(m: &Mutex<Inner>) -> MutexGuard<'_, Inner> {
    // A panic while holding the lock leaves the maps consistent (every update
    // is a single insert or remove), so a poisoned lock is still usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl ZipStore {
    /// Open an existing archive. `marks_root` tells the objects that mark
    /// the root of a dataset, which decide the layout (see the module notes).
    pub fn open(path: &Path, writable: bool, marks_root: &dyn Fn(&str) -> bool) -> StoreResult<ZipStore> {
        let file = open_archive(path)?;
        // Updates replace the file a symbolic link points to, not the link.
        let real = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let path = real.as_path();
        let (entries, order, data_end) = read_directory(path, &file)?;
        if writable {
            ZipStore::remove_stale_updates(path);
        }
        let prefix = detect_prefix(&entries, &order, path, marks_root);
        let perm = file
            .metadata()
            .map(|m| m.permissions().mode() & 0o7777)
            .unwrap_or(0o644);
        let dead = {
            let live: u64 = entries.values().map(Entry::span).sum();
            data_end.saturating_sub(live)
        };
        Ok(ZipStore {
            path: path.to_path_buf(),
            writable,
            inner: Mutex::new(Inner {
                prefix,
                entries,
                file: Some(Arc::new(file)),
                data_end,
                session: None,
                pending_create: None,
                dead,
                perm: Some(perm),
                unsynced: false,
            }),
        })
    }

    /// Create an archive. With `Replace::Never` an existing path is
    /// `AlreadyExists`; otherwise an existing regular file or link is
    /// replaced at the first flush, whatever it holds (as a file where a
    /// directory dataset goes is), and anything else (a directory, a FIFO)
    /// is `AlreadyExists`.
    pub fn create(path: &Path, replace: Replace<'_>) -> StoreResult<ZipStore> {
        let noclobber = matches!(replace, Replace::Never);
        match fs::symlink_metadata(path) {
            Ok(meta) => {
                if noclobber {
                    crate::nclog!(Level::Error, "zip store: {} exists (NC_NOCLOBBER)", path.display());
                    return Err(StoreError::AlreadyExists);
                }
                let ft = meta.file_type();
                if !(ft.is_file() || ft.is_symlink()) || fs::metadata(path).is_ok_and(|m| !m.is_file()) {
                    crate::nclog!(
                        Level::Error,
                        "zip store: {} exists and is not a file; not replacing it",
                        path.display()
                    );
                    return Err(StoreError::AlreadyExists);
                }
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(io_error("stat", path, &e)),
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|e| io_error("create directory", parent, &e))?;
        }
        ZipStore::remove_stale_updates(path);
        let prefix = dataset_name(path);
        let store = ZipStore {
            path: path.to_path_buf(),
            writable: true,
            inner: Mutex::new(Inner {
                prefix: prefix.clone(),
                entries: BTreeMap::new(),
                file: None,
                data_end: 0,
                session: None,
                pending_create: Some(noclobber),
                dead: 0,
                perm: None,
                unsynced: false,
            }),
        };
        // The folder's directory entry first, as netcdf-c writes it.
        store.put_entry(&format!("{prefix}/"), b"")?;
        Ok(store)
    }

    /// Remove the update files that killed writers left beside the archive
    /// (`.<name>.nczarr-tmp.<pid>.<n>` of a pid that no longer runs, judged
    /// by /proc; without /proc nothing is removed).
    fn remove_stale_updates(path: &Path) {
        let (Some(dir), Some(base)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
            return;
        };
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if !Path::new("/proc/self").exists() {
            return;
        }
        let lead = format!(".{base}.nczarr-tmp.");
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(&lead)) else {
                continue;
            };
            let Some((pid, n)) = rest.split_once('.') else {
                continue;
            };
            let valid = pid.parse::<u32>().is_ok() && n.parse::<u64>().is_ok();
            if valid && pid != std::process::id().to_string() && !Path::new("/proc").join(pid).exists() {
                crate::nclog!(
                    Level::Note,
                    "zip store: removing {} left by a killed writer",
                    name.to_string_lossy()
                );
                let _ = fs::remove_file(entry.path());
            }
        }
    }

    /// The archive's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn full_name(prefix: &str, key: &Key) -> String {
        match (prefix.is_empty(), key.is_root()) {
            (true, _) => key.as_str().to_string(),
            (false, true) => prefix.to_string(),
            (false, false) => format!("{}/{}", prefix, key.as_str()),
        }
    }

    fn check_writable(&self) -> StoreResult<()> {
        if self.writable {
            Ok(())
        } else {
            crate::nclog!(Level::Error, "zip store: {} is read-only", self.path.display());
            Err(StoreError::ReadOnly)
        }
    }

    /// Start an update if none is under way: a new file beside the archive
    /// holding the old entries at their old offsets.
    fn ensure_session(&self, inner: &mut Inner) -> StoreResult<()> {
        if inner.session.is_some() {
            return Ok(());
        }
        let dir = match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let base = self.path.file_name().and_then(|n| n.to_str()).unwrap_or("archive");
        let pid = std::process::id();
        let mut created = None;
        for _ in 0..16 {
            let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
            let tmp = dir.join(format!(".{base}.nczarr-tmp.{pid}.{n}"));
            match OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .mode(0o666)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NOCTTY)
                .open(&tmp)
            {
                Ok(f) => {
                    created = Some((tmp, f));
                    break;
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io_error("create", &tmp, &e)),
            }
        }
        let Some((tmp, out)) = created else {
            crate::nclog!(Level::Error, "zip store: no free temporary name in {}", dir.display());
            return Err(StoreError::Io);
        };
        let fail = |e: io::Error, tmp: &Path| {
            let _ = fs::remove_file(tmp);
            io_error("write", tmp, &e)
        };
        let live: u64 = inner.entries.values().map(Entry::span).sum();
        let mut end = 0u64;
        if let Some(src) = inner.file.clone() {
            if inner.dead > COMPACT_MIN_DEAD && inner.dead > live {
                // Copy only the live entries, each with a fresh local header.
                let mut sorted: Vec<(String, Entry)> =
                    inner.entries.iter().map(|(n, e)| (n.clone(), e.clone())).collect();
                sorted.sort_by_key(|(_, e)| e.header);
                let mut moved = Vec::with_capacity(sorted.len());
                for (name, mut e) in sorted {
                    let h = local_header(&name, &e);
                    out.write_all_at(&h, end).map_err(|x| fail(x, &tmp))?;
                    let from = e.data;
                    e.header = end;
                    e.data = end + h.len() as u64;
                    copy_range(&src, from, &out, e.data, e.csize).map_err(|x| fail(x, &tmp))?;
                    end = e.data + e.csize;
                    moved.push((name, e));
                }
                inner.entries = moved.into_iter().collect();
                inner.dead = 0;
            } else {
                copy_range(&src, 0, &out, 0, inner.data_end).map_err(|x| fail(x, &tmp))?;
                end = inner.data_end;
            }
        }
        let file = Arc::new(out);
        inner.file = Some(file.clone());
        inner.session = Some(Session { tmp, file, end });
        Ok(())
    }

    /// Append one entry (object or `name/` directory) to the update.
    fn put_entry(&self, name: &str, data: &[u8]) -> StoreResult<()> {
        let (dos_time, dos_date) = dos_now();
        let mut e = Entry {
            header: 0,
            data: 0,
            csize: data.len() as u64,
            size: data.len() as u64,
            method: Method::Stored,
            raw_method: 0,
            crc: crc32fast::hash(data),
            encrypted: false,
            dos_time,
            dos_date,
            mode: 0,
        };
        let header = local_header(name, &e);
        let mut inner = lock(&self.inner);
        self.ensure_session(&mut inner)?;
        let session = inner.session.as_mut().ok_or(StoreError::Internal)?;
        let at = session.end;
        let file = session.file.clone();
        let write = file
            .write_all_at(&header, at)
            .and_then(|()| file.write_all_at(data, at + header.len() as u64));
        let span = header.len() as u64 + data.len() as u64;
        session.end = at + span;
        if let Err(err) = write {
            inner.dead += span;
            return Err(io_error("write", &self.path, &err));
        }
        e.header = at;
        e.data = at + header.len() as u64;
        if let Some(old) = inner.entries.insert(name.to_string(), e) {
            inner.dead += old.span();
        }
        Ok(())
    }

    /// Read the whole entry into `buf`, checked against its size and CRC.
    fn read_entry(&self, name: &str, file: &File, e: &Entry, buf: &mut Vec<u8>) -> StoreResult<()> {
        if e.encrypted || e.method == Method::Unsupported {
            return Err(bad(
                &self.path,
                &format!("entry {name:?} is encrypted or uses an unsupported method"),
            ));
        }
        match e.method {
            Method::Stored => {
                buf.clear();
                let n = usize::try_from(e.size).map_err(|_| StoreError::OutOfMemory)?;
                if buf.try_reserve_exact(n).is_err() {
                    return Err(StoreError::OutOfMemory);
                }
                buf.resize(n, 0);
                self.read_at(file, buf, e.data)?;
            }
            _ => {
                let input = {
                    let mut v = alloc(e.csize)?;
                    self.read_at(file, &mut v, e.data)?;
                    v
                };
                inflate(&input, e.size, buf).map_err(|why| bad(&self.path, &format!("entry {name:?}: {why}")))?;
            }
        }
        if crc32fast::hash(buf) != e.crc {
            return Err(bad(&self.path, &format!("entry {name:?}: CRC mismatch")));
        }
        Ok(())
    }

    fn read_at(&self, file: &File, buf: &mut [u8], at: u64) -> StoreResult<()> {
        match file.read_exact_at(buf, at) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => Err(bad(&self.path, "archive truncated while read")),
            Err(e) => Err(io_error("read", &self.path, &e)),
        }
    }

    /// The entry for an object key, with the file it points into.
    fn lookup(&self, key: &Key) -> Option<(String, Entry, Arc<File>)> {
        if key.is_root() {
            return None;
        }
        let inner = lock(&self.inner);
        let name = ZipStore::full_name(&inner.prefix, key);
        let e = inner.entries.get(&name)?.clone();
        Some((name, e, inner.file.clone()?))
    }

    /// fsync the directory that holds the archive (its new name); a
    /// directory that cannot be opened is skipped, as it cannot be synced
    /// either.
    fn sync_dir(&self) -> StoreResult<()> {
        let dir = match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if let Ok(d) = File::open(dir) {
            d.sync_all().map_err(|e| io_error("fsync directory", dir, &e))?;
        }
        Ok(())
    }

    /// Remove the update in progress (its file), keeping the archive as it was.
    fn discard_session(inner: &mut Inner) {
        if let Some(s) = inner.session.take() {
            let _ = fs::remove_file(&s.tmp);
        }
    }
}

/// Rename `from` to `to` unless `to` exists (NC_NOCLOBBER). Where the file
/// system has no RENAME_NOREPLACE, a hard link (which never replaces) and an
/// unlink do the same.
fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    match rustix::fs::renameat_with(
        rustix::fs::CWD,
        from,
        rustix::fs::CWD,
        to,
        rustix::fs::RenameFlags::NOREPLACE,
    ) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS | rustix::io::Errno::OPNOTSUPP) => {
            fs::hard_link(from, to)?;
            let _ = fs::remove_file(from);
            Ok(())
        }
        Err(e) => Err(io::Error::from(e)),
    }
}

/// Whether some object (not a directory entry) has a name starting with `below`.
fn has_object_below(entries: &BTreeMap<String, Entry>, below: &str) -> bool {
    entries
        .range::<str, _>((Bound::Included(below), Bound::Unbounded))
        .take_while(|(n, _)| n.starts_with(below))
        .any(|(n, _)| !Entry::is_dir(n))
}

/// Copy `len` bytes from `src` at `from` to `dst` at `to` (copy_file_range
/// where the kernel offers it, which may share blocks instead of copying).
fn copy_range(src: &File, from: u64, dst: &File, to: u64, len: u64) -> io::Result<()> {
    let mut done = 0u64;
    while done < len {
        let want = usize::try_from((len - done).min(1 << 30)).unwrap_or(1 << 30);
        let mut off_in = from + done;
        let mut off_out = to + done;
        match rustix::fs::copy_file_range(src, Some(&mut off_in), dst, Some(&mut off_out), want) {
            Ok(0) => return Err(io::Error::from(ErrorKind::UnexpectedEof)),
            Ok(n) => done += n as u64,
            Err(rustix::io::Errno::XDEV | rustix::io::Errno::NOSYS | rustix::io::Errno::INVAL) => {
                // Fall back to a buffered copy.
                let mut buf = vec![0u8; 1 << 20];
                while done < len {
                    let n = usize::try_from((len - done).min(buf.len() as u64)).unwrap_or(buf.len());
                    src.read_exact_at(&mut buf[..n], from + done)?;
                    dst.write_all_at(&buf[..n], to + done)?;
                    done += n as u64;
                }
            }
            Err(e) => return Err(io::Error::from(e)),
        }
    }
    Ok(())
}

impl Store for ZipStore {
    fn get(&self, key: &Key, max_len: u64) -> StoreResult<Option<Vec<u8>>> {
        let mut buf = Vec::new();
        Ok(self.get_into(key, max_len, &mut buf)?.then_some(buf))
    }

    fn get_into(&self, key: &Key, max_len: u64, buf: &mut Vec<u8>) -> StoreResult<bool> {
        let Some((name, e, file)) = self.lookup(key) else {
            return Ok(false);
        };
        if e.size > max_len {
            crate::nclog!(
                Level::Error,
                "zip store: {} in {} has {} bytes, more than the limit of {}",
                name,
                self.path.display(),
                e.size,
                max_len
            );
            return Err(StoreError::Corrupt);
        }
        self.read_entry(&name, &file, &e, buf)?;
        Ok(true)
    }

    fn get_range(&self, key: &Key, offset: u64, len: u64) -> StoreResult<Option<Vec<u8>>> {
        let Some((name, e, file)) = self.lookup(key) else {
            return Ok(None);
        };
        if offset.checked_add(len).is_none_or(|end| end > e.size) {
            crate::nclog!(
                Level::Error,
                "zip store: range {}+{} is past the end of {} ({} bytes)",
                offset,
                len,
                name,
                e.size
            );
            return Err(StoreError::Corrupt);
        }
        if e.method == Method::Stored && !e.encrypted {
            let mut buf = alloc(len)?;
            self.read_at(&file, &mut buf, e.data + offset)?;
            return Ok(Some(buf));
        }
        let mut whole = Vec::new();
        self.read_entry(&name, &file, &e, &mut whole)?;
        // In range: checked against the declared size, which read_entry enforced.
        Ok(Some(whole[offset as usize..(offset + len) as usize].to_vec()))
    }

    fn len(&self, key: &Key) -> StoreResult<Option<u64>> {
        Ok(self.lookup(key).map(|(_, e, _)| e.size))
    }

    fn put(&self, key: &Key, data: &[u8]) -> StoreResult<()> {
        self.check_writable()?;
        if key.is_root() {
            crate::nclog!(Level::Error, "zip store: cannot write an object at the root key");
            return Err(StoreError::InvalidKey);
        }
        let name = {
            let inner = lock(&self.inner);
            let name = ZipStore::full_name(&inner.prefix, key);
            // No object may be a prefix of another.
            let mut cut = 0;
            while let Some(i) = name[cut..].find('/') {
                let ancestor = &name[..cut + i];
                if inner.entries.contains_key(ancestor) && ancestor != inner.prefix {
                    crate::nclog!(Level::Error, "zip store: {} is an object, not a prefix", ancestor);
                    return Err(StoreError::ObjectAndPrefix);
                }
                cut += i + 1;
            }
            if has_object_below(&inner.entries, &format!("{name}/")) {
                crate::nclog!(Level::Error, "zip store: {} is a prefix of other objects", name);
                return Err(StoreError::ObjectAndPrefix);
            }
            name
        };
        self.put_entry(&name, data)
    }

    fn delete(&self, key: &Key) -> StoreResult<()> {
        self.check_writable()?;
        let mut inner = lock(&self.inner);
        let name = ZipStore::full_name(&inner.prefix, key);
        let mut doomed: Vec<String> = Vec::new();
        if !key.is_root() && inner.entries.contains_key(&name) {
            doomed.push(name.clone());
        }
        let below = if name.is_empty() {
            String::new()
        } else {
            format!("{name}/")
        };
        for (n, _) in inner
            .entries
            .range::<str, _>((Bound::Included(below.as_str()), Bound::Unbounded))
        {
            if !n.starts_with(&below) {
                break;
            }
            // The dataset folder's own directory entry stays.
            if key.is_root() && n == &below {
                continue;
            }
            doomed.push(n.clone());
        }
        if doomed.is_empty() {
            return Ok(());
        }
        self.ensure_session(&mut inner)?;
        for n in doomed {
            if let Some(e) = inner.entries.remove(&n) {
                inner.dead += e.span();
            }
        }
        Ok(())
    }

    fn list(&self, prefix: &Key) -> StoreResult<Vec<String>> {
        let inner = lock(&self.inner);
        let base = ZipStore::full_name(&inner.prefix, prefix);
        let below = if base.is_empty() {
            String::new()
        } else {
            format!("{base}/")
        };
        let mut names = BTreeSet::new();
        let mut cursor = Bound::Included(below.clone());
        // Visit one name per child: after a child "seg/...", jump to "seg0",
        // the first name past everything below it ('0' follows '/').
        while let Some((n, _)) = inner
            .entries
            .range::<str, _>((cursor.as_ref().map(String::as_str), Bound::Unbounded))
            .next()
        {
            if !n.starts_with(&below) {
                break;
            }
            let rest = &n[below.len()..];
            match rest.split_once('/') {
                None => {
                    if !rest.is_empty() {
                        names.insert(rest.to_string());
                    }
                    cursor = Bound::Excluded(n.clone());
                }
                Some((seg, _)) => {
                    // Directory entries alone lead to no object.
                    if has_object_below(&inner.entries, &format!("{below}{seg}/")) {
                        names.insert(seg.to_string());
                    }
                    cursor = Bound::Included(format!("{below}{seg}0"));
                }
            }
        }
        Ok(names.into_iter().collect())
    }

    fn flush(&self, level: Durability) -> StoreResult<()> {
        let mut inner = lock(&self.inner);
        let stable = level == Durability::Stable;
        let Some(session) = inner.session.as_ref() else {
            // Nothing new; a stable flush still owes the disk an archive
            // that an earlier flush renamed into place without syncing.
            if stable && inner.unsynced {
                let file = inner.file.clone().ok_or(StoreError::Internal)?;
                file.sync_data().map_err(|e| io_error("fdatasync", &self.path, &e))?;
                self.sync_dir()?;
                inner.unsynced = false;
            }
            return Ok(());
        };
        let cd = central_directory(&inner.entries, session.end);
        let file = session.file.clone();
        let tmp = session.tmp.clone();
        let at = session.end;
        file.write_all_at(&cd, at)
            .and_then(|()| file.set_len(at + cd.len() as u64))
            .and_then(|()| match inner.perm {
                // An update keeps the old archive's permissions.
                Some(mode) => file.set_permissions(fs::Permissions::from_mode(mode & 0o777)),
                None => Ok(()),
            })
            .and_then(|()| if stable { file.sync_data() } else { Ok(()) })
            .map_err(|e| io_error("write", &tmp, &e))?;
        let renamed = match inner.pending_create {
            Some(true) => rename_noreplace(&tmp, &self.path),
            _ => fs::rename(&tmp, &self.path),
        };
        if let Err(e) = renamed {
            return Err(io_error("rename into", &self.path, &e));
        }
        // The new archive is in place: the update is over whatever follows.
        inner.data_end = at;
        inner.session = None;
        inner.pending_create = None;
        inner.unsynced = true;
        if stable {
            self.sync_dir()?;
            inner.unsynced = false;
        }
        Ok(())
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            write_once: false,
            ranged_reads: true,
        }
    }

    fn destroy(&self) -> StoreResult<()> {
        self.check_writable()?;
        let mut inner = lock(&self.inner);
        ZipStore::discard_session(&mut inner);
        inner.entries.clear();
        inner.file = None;
        inner.unsynced = false;
        if inner.pending_create.is_none() {
            match fs::remove_file(&self.path) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(io_error("remove", &self.path, &e)),
            }
        }
        Ok(())
    }
}

impl Drop for ZipStore {
    fn drop(&mut self) {
        // Changes not flushed are dropped with their file; the archive stays as it was.
        let inner = self.inner.get_mut().unwrap_or_else(|p| p.into_inner());
        ZipStore::discard_session(inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_names() {
        for ok in ["a", "a/b", "x/.zgroup", "dir/", "a..b/c", "..a"] {
            assert!(name_is_safe(ok), "{ok}");
        }
        for bad in [
            "",
            "/",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a/./b",
            "a//b",
            "C:/x",
            "a\\b",
            "a\0",
        ] {
            assert!(!name_is_safe(bad), "{bad:?}");
        }
    }

    #[test]
    fn names_after_the_archive() {
        assert_eq!(dataset_name(Path::new("/t/data.zip")), "data");
        assert_eq!(dataset_name(Path::new("/t/x.zarr.zip")), "x.zarr");
        assert_eq!(dataset_name(Path::new("/t/plain")), "plain");
        assert_eq!(dataset_name(Path::new("/t/.zip")), "dataset");
    }

    #[test]
    fn inflate_is_bounded() {
        use std::io::Write;
        let data = vec![0u8; 100_000];
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&data).unwrap();
        let z = enc.finish().unwrap();
        let mut out = Vec::new();
        inflate(&z, 100_000, &mut out).unwrap();
        assert_eq!(out, data);
        assert!(inflate(&z, 99_999, &mut out).is_err());
        assert!(inflate(&z, 100_001, &mut out).is_err());
        assert!(inflate(&z[..z.len() / 2], 100_000, &mut out).is_err());
    }

    #[test]
    fn dos_time_is_sane() {
        let (_, date) = dos_now();
        assert!((date >> 9) + 1980 >= 2024);
    }
}
