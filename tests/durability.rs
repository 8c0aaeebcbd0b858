//! What reaches the disk, counted under `strace`: the test binary runs
//! itself as a child under `strace -f -y`, which logs every `fsync`,
//! `fdatasync`, `syncfs` and `sync` with the path of its descriptor, every
//! rename, link, file created in place (a new array's metadata) and
//! directory creation, and the marks the child leaves between the
//! steps of a scenario (a `chdir` to a path that does not exist). Each step's
//! syncs are then compared with what the step must make durable:
//! - by default nc_enddef and nc_close sync nothing at all;
//! - nc_sync syncs exactly the files put into place since the last
//!   durable flush (`fdatasync`) and the directories whose entries changed
//!   (`fsync`), never the whole file system (`syncfs`, `sync`);
//! - the mode key `durable` and `NCZARR_DURABLE=1` make nc_enddef and
//!   nc_close do the same (the mode key wins over the variable), except that
//!   each object is synced as it is written (nc_create's too), so the
//!   durable steps sync only the directories;
//! - a zip archive is synced (`fdatasync`) before it is renamed into place
//!   and its directory after, only when durable.
//!
//! Without `strace` these tests fail, unless `NCZ_SKIP_STRACE=1`.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;
use common::check;
use std::collections::{BTreeSet, HashMap};
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Command;

use netcdf::ffi::*;

/// Chunks of the variable, and elements per chunk (16 KiB chunks).
const CHUNKS: usize = 6;
const CHUNK: usize = 4096;

/// The child's scenario and dataset URL (set by the parent only).
const SCENARIO_VAR: &str = "NCZ_DURABILITY_CHILD";
const URL_VAR: &str = "NCZ_DURABILITY_URL";
const MARK_DIR: &str = "/nczarr-strace-mark";

/// Leave a mark in the system-call log.
fn mark(name: &str) {
    let _ = std::env::set_current_dir(format!("{MARK_DIR}/{name}"));
}

/// The child: create a dataset with one int variable of CHUNKS chunks,
/// writing and syncing as `scenario` says, with a mark after each step.
fn child(scenario: &str, url: &str) {
    let u = CString::new(url).unwrap();
    let mut ncid = 0;
    unsafe {
        check(nc_create(u.as_ptr(), 0, &mut ncid));
        mark("created");
        let (mut x, mut v) = (0, 0);
        check(nc_def_dim(ncid, c"x".as_ptr(), CHUNKS * CHUNK, &mut x));
        check(nc_def_var(ncid, c"v".as_ptr(), 4, 1, &x, &mut v));
        check(nc_def_var_chunking(ncid, v, 0, [CHUNK].as_ptr()));
        check(nc_enddef(ncid));
        mark("defined");
        if scenario == "sync" {
            check(nc_sync(ncid));
            mark("synced");
        }
        let data: Vec<i32> = (0..(CHUNKS * CHUNK) as i32).collect();
        check(nc_put_var_int(ncid, v, data.as_ptr()));
        if scenario == "sync" {
            check(nc_sync(ncid));
            mark("synced-again");
        }
        check(nc_close(ncid));
        mark("closed");
    }
}

/// The test the parent runs in the child (does nothing when run as a test).
#[test]
fn strace_child() {
    if let (Ok(s), Ok(u)) = (std::env::var(SCENARIO_VAR), std::env::var(URL_VAR)) {
        child(&s, &u);
    }
}

/// One logged system call of interest.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Call {
    /// `fdatasync`, `fsync`, `syncfs` or `sync`, with its descriptor's path.
    Sync(&'static str, PathBuf),
    /// An object put into place, from and to: a rename, or (from empty) a
    /// link of an anonymous file or a new file created at its name.
    Renamed(PathBuf, PathBuf),
    /// A directory created.
    Made(PathBuf),
}

/// The calls of each step, named by the mark that ends it (the last step,
/// after the last mark, is `end`).
type Steps = Vec<(String, Vec<Call>)>;

/// Whether the tests may run: strace is there, or its absence is excused.
fn have_strace() -> bool {
    let ok = Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("NCZ_SKIP_STRACE").as_deref() == Ok("1"),
            "strace not found: install it (scripts/install-deps.sh does) or set NCZ_SKIP_STRACE=1"
        );
        eprintln!("strace not found: skipped (NCZ_SKIP_STRACE=1)");
    }
    ok
}

/// Run `scenario` (`plain`: no nc_sync; `sync`: nc_sync after nc_enddef and
/// after the writes) on `url` in a child under strace, with extra
/// environment `env`; its calls, step by step.
fn traced(scenario: &str, url: &str, env: &[(&str, &str)]) -> Steps {
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = Command::new("strace");
    cmd.args(["-f", "-y", "-qq", "-s", "4096", "-o"])
        .arg(log.path())
        .args([
            "-e",
            "trace=fsync,fdatasync,syncfs,sync,chdir,rename,renameat,renameat2,linkat,mkdir,mkdirat,open,openat",
        ])
        .arg(std::env::current_exe().unwrap())
        .args(["--exact", "strace_child", "--nocapture", "--test-threads=1"])
        .env(SCENARIO_VAR, scenario)
        .env(URL_VAR, url)
        .env_remove("NCZARR_DURABLE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "child under strace failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let steps = parse(&std::fs::read_to_string(log.path()).unwrap());
    let names: Vec<&str> = steps.iter().map(|(n, _)| n.as_str()).collect();
    let want: &[&str] = if scenario == "sync" {
        &["created", "defined", "synced", "synced-again", "closed", "end"]
    } else {
        &["created", "defined", "closed", "end"]
    };
    assert_eq!(names, want, "the marks of the child");
    steps
}

/// The quoted strings of a call's arguments, in order (strace escapes `"`
/// inside them; the paths here have none).
fn quoted(args: &str) -> Vec<&str> {
    args.split('"').skip(1).step_by(2).collect()
}

/// The path strace gives a descriptor (`5</tmp/x>`).
fn fd_path(args: &str) -> Option<&str> {
    let start = args.find('<')? + 1;
    let end = start + args[start..].find('>')?;
    Some(&args[start..end])
}

/// Each call as one line `name(args) = result`: strace logs a call that
/// another thread's interrupts as `name(args <unfinished ...>` and later
/// `<... name resumed>rest`, which are joined here.
fn whole_calls(log: &str) -> Vec<String> {
    let mut open: HashMap<&str, String> = HashMap::new();
    let mut calls = Vec::new();
    for line in log.lines() {
        let Some((pid, body)) = line.split_once(' ') else {
            continue;
        };
        let body = body.trim_start();
        if let Some(start) = body.strip_suffix("<unfinished ...>") {
            open.insert(pid, start.trim_end().to_string());
        } else if let Some(resumed) = body.strip_prefix("<... ") {
            let rest = resumed.split_once("resumed>").map_or("", |(_, r)| r);
            if let Some(start) = open.remove(pid) {
                calls.push(format!("{start}{rest}"));
            }
        } else {
            calls.push(body.to_string());
        }
    }
    calls
}

/// Split a strace log into steps at the marks.
fn parse(log: &str) -> Steps {
    let mut steps = Vec::new();
    let mut calls = Vec::new();
    for line in whole_calls(log) {
        let Some((name, args)) = line.split_once('(') else {
            continue;
        };
        let ok = line.ends_with(" = 0");
        let paths = quoted(args);
        match name {
            "chdir" => {
                if let Some(m) = paths.first().and_then(|p| p.strip_prefix(MARK_DIR)) {
                    steps.push((m.trim_start_matches('/').to_string(), std::mem::take(&mut calls)));
                }
            }
            "fsync" | "fdatasync" | "syncfs" | "sync" => {
                let which = match name {
                    "fsync" => "fsync",
                    "fdatasync" => "fdatasync",
                    "syncfs" => "syncfs",
                    _ => "sync",
                };
                calls.push(Call::Sync(which, PathBuf::from(fd_path(args).unwrap_or(""))));
            }
            "rename" | "renameat" | "renameat2" if ok && paths.len() >= 2 => {
                calls.push(Call::Renamed(
                    PathBuf::from(paths[0]),
                    PathBuf::from(paths[paths.len() - 1]),
                ));
            }
            // A new object linked into place from an anonymous file (by its
            // descriptor: `""`, or through /proc/self/fd): placed like a rename.
            "linkat" if ok && !paths.is_empty() => {
                calls.push(Call::Renamed(PathBuf::new(), PathBuf::from(paths[paths.len() - 1])))
            }
            // A new object created in place at its own name (not a
            // temporary one, which a rename places later).
            "open" | "openat"
                if args.contains("O_CREAT|O_EXCL")
                    && !line.contains(" = -1 ")
                    && paths.last().is_some_and(|p| !unplaced(Path::new(p))) =>
            {
                calls.push(Call::Renamed(PathBuf::new(), PathBuf::from(paths[paths.len() - 1])))
            }
            "mkdir" | "mkdirat" if ok && !paths.is_empty() => calls.push(Call::Made(PathBuf::from(paths[0]))),
            _ => {}
        }
    }
    steps.push(("end".to_string(), calls));
    steps
}

fn syncs(calls: &[Call]) -> Vec<(&'static str, PathBuf)> {
    let mut v: Vec<_> = calls
        .iter()
        .filter_map(|c| match c {
            Call::Sync(n, p) => Some((*n, p.clone())),
            _ => None,
        })
        .collect();
    v.sort();
    v
}

fn parent(p: &Path) -> PathBuf {
    p.parent().unwrap().to_path_buf()
}

/// Whether a synced path is an object's data before it is placed: an
/// anonymous file (strace names it `#<inode>`, on some kernels followed by
/// ` (deleted)`) or a temporary name.
fn unplaced(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let anon = name
        .strip_prefix('#')
        .map(|n| n.trim_end_matches(" (deleted)"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    anon || name.starts_with(".nczarr-tmp.")
}

/// How the objects of a directory dataset reach the disk.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Objects {
    /// By the durable step after them (`fdatasync` of the placed name).
    AtFlush,
    /// Each as it is written (durable mode): before a rename, right after
    /// the link of an anonymous file.
    AsWritten,
}

/// Check a directory dataset's steps: every object placed since the last
/// durable step is synced once (`fdatasync`), by that step (`AtFlush`) or
/// as it is written (`AsWritten`: an anonymous or temporary file in the
/// same directory, one per object placed there, each time it is placed);
/// the steps in `durable`
/// sync the directories whose entries changed (`fsync`: the parents of the
/// objects placed, the directories created and their parents), every one
/// once; no other step syncs anything else. Returns (fdatasync, fsync)
/// counts per step.
fn check_file_steps(steps: &Steps, durable: &[&str], objects: Objects) -> Vec<(String, usize, usize)> {
    let mut files = BTreeSet::new();
    let mut dirs = BTreeSet::new();
    // Objects synced before they were placed, by directory.
    let mut early: HashMap<PathBuf, usize> = HashMap::new();
    // Objects placed (an object written twice counts twice), by directory.
    let mut placed: HashMap<PathBuf, usize> = HashMap::new();
    let mut counts = Vec::new();
    let mut wrote = 0;
    for (step, calls) in steps {
        for c in calls {
            match c {
                Call::Renamed(_, to) => {
                    files.insert(to.clone());
                    dirs.insert(parent(to));
                    *placed.entry(parent(to)).or_default() += 1;
                    wrote += 1;
                }
                Call::Made(d) => {
                    dirs.insert(d.clone());
                    dirs.insert(parent(d));
                }
                Call::Sync(..) => {}
            }
        }
        let all = syncs(calls);
        // (An anonymous file synced once linked may be named by its link.)
        let as_written = |p: &PathBuf| unplaced(p) || (objects == Objects::AsWritten && files.contains(p));
        let (before, got): (Vec<_>, Vec<_>) = all
            .iter()
            .cloned()
            .partition(|(w, p)| *w == "fdatasync" && as_written(p));
        match objects {
            Objects::AtFlush => assert_eq!(before, [], "step {step} syncs no object before placing it"),
            Objects::AsWritten => {
                for (_, p) in &before {
                    *early.entry(parent(p)).or_default() += 1;
                }
            }
        }
        if durable.contains(&step.as_str()) {
            let by_name = files.iter().filter(|_| objects == Objects::AtFlush);
            let mut want: Vec<(&'static str, PathBuf)> = by_name
                .map(|f| ("fdatasync", f.clone()))
                .chain(dirs.iter().map(|d| ("fsync", d.clone())))
                .collect();
            want.sort();
            assert_eq!(got, want, "step {step}: what it syncs");
            if objects == Objects::AsWritten {
                assert_eq!(
                    early, placed,
                    "step {step}: objects synced before they were placed, by directory"
                );
            }
            files.clear();
            dirs.clear();
            early.clear();
            placed.clear();
        } else {
            assert_eq!(got, [], "step {step} syncs no placed object and no directory");
        }
        let n = |what| all.iter().filter(|(w, _)| *w == what).count();
        counts.push((step.clone(), n("fdatasync"), n("fsync")));
    }
    assert!(wrote > CHUNKS, "the child wrote {wrote} objects");
    counts
}

/// A scratch directory and the URL of a directory dataset in it.
fn file_dataset(mode: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}/d.zarr#mode=nczarr,file{mode}", dir.path().display());
    (dir, url)
}

/// (fdatasync, fsync) counts of the `plain` scenario in durable mode, by
/// durable step, each with the steps before it since the last one (every
/// object is synced as it is written, in the background, so a sync may land
/// after the mark of the step that wrote it): nc_create and nc_enddef
/// (.zgroup, .zattrs twice, v/.zarray, v/.zattrs; the dataset directory, its
/// parent and the variable directory), nc_close (every chunk; the variable
/// directory).
const DURABLE_PLAIN: [(&str, usize, usize); 3] = [("defined", 6, 3), ("closed", CHUNKS, 1), ("end", 0, 0)];

/// Counts per step folded into the next step of `durable` (or the last step).
fn by_durable_step<'a>(c: &'a [(String, usize, usize)], durable: &[&str]) -> Vec<(&'a str, usize, usize)> {
    let mut out = Vec::new();
    let (mut a, mut b) = (0, 0);
    for (i, (step, x, y)) in c.iter().enumerate() {
        a += x;
        b += y;
        if durable.contains(&step.as_str()) || i + 1 == c.len() {
            out.push((step.as_str(), a, b));
            (a, b) = (0, 0);
        }
    }
    out
}

fn counts_of(c: &[(String, usize, usize)]) -> Vec<(&str, usize, usize)> {
    c.iter().map(|(s, a, b)| (s.as_str(), *a, *b)).collect()
}

#[test]
fn default_create_and_close_sync_nothing() {
    if !have_strace() {
        return;
    }
    let (_dir, url) = file_dataset("");
    let steps = traced("plain", &url, &[]);
    let counts = check_file_steps(&steps, &[], Objects::AtFlush);
    assert!(counts.iter().all(|&(_, a, b)| a == 0 && b == 0));
}

#[test]
fn nc_sync_syncs_what_was_written_since_the_last_sync() {
    if !have_strace() {
        return;
    }
    let (_dir, url) = file_dataset("");
    let steps = traced("sync", &url, &[]);
    let counts = check_file_steps(&steps, &["synced", "synced-again"], Objects::AtFlush);
    assert_eq!(
        counts_of(&counts),
        [
            ("created", 0, 0),
            ("defined", 0, 0),
            // .zgroup, .zattrs, v/.zarray, v/.zattrs; the parent, root and v.
            ("synced", 4, 3),
            // The chunks; v.
            ("synced-again", CHUNKS, 1),
            ("closed", 0, 0),
            ("end", 0, 0),
        ]
    );
}

#[test]
fn durable_mode_key_syncs_at_enddef_and_close() {
    if !have_strace() {
        return;
    }
    let (_dir, url) = file_dataset(",durable");
    // The mode key wins over the variable.
    let steps = traced("plain", &url, &[("NCZARR_DURABLE", "0")]);
    let counts = check_file_steps(&steps, &["defined", "closed"], Objects::AsWritten);
    assert_eq!(by_durable_step(&counts, &["defined", "closed"]), DURABLE_PLAIN);
}

#[test]
fn durable_environment_variable_syncs_at_enddef_and_close() {
    if !have_strace() {
        return;
    }
    for on in ["1", "true", "YES"] {
        let (_dir, url) = file_dataset("");
        let steps = traced("plain", &url, &[("NCZARR_DURABLE", on)]);
        let counts = check_file_steps(&steps, &["defined", "closed"], Objects::AsWritten);
        assert_eq!(
            by_durable_step(&counts, &["defined", "closed"]),
            DURABLE_PLAIN,
            "NCZARR_DURABLE={on}"
        );
    }
    // Off, and the mode key's durable=no over the variable's yes.
    for (mode, env) in [("", "0"), ("", "no"), (",durable=no", "1")] {
        let (_dir, url) = file_dataset(mode);
        let steps = traced("plain", &url, &[("NCZARR_DURABLE", env)]);
        check_file_steps(&steps, &[], Objects::AtFlush);
    }
}

/// Check a zip dataset's steps: those in `durable` sync the archive once
/// (`fdatasync`: the new file renamed over it in that step, or the archive
/// itself when an earlier step renamed it without a sync) and its
/// directory once (`fsync`); every other step syncs nothing.
fn check_zip_steps(steps: &Steps, archive: &Path, durable: &[&str]) {
    let dir = parent(archive);
    let mut renamed = 0;
    for (step, calls) in steps {
        let new: Vec<PathBuf> = calls
            .iter()
            .filter_map(|c| match c {
                Call::Renamed(from, to) if to == archive => Some(from.clone()),
                _ => None,
            })
            .collect();
        renamed += new.len();
        let got = syncs(calls);
        if durable.contains(&step.as_str()) {
            let synced = new.last().cloned().unwrap_or_else(|| archive.to_path_buf());
            let mut want = vec![("fdatasync", synced), ("fsync", dir.clone())];
            want.sort();
            assert_eq!(got, want, "step {step}: what it syncs");
        } else {
            assert_eq!(got, [], "step {step} syncs nothing");
        }
    }
    assert!(renamed >= 2, "the archive was written {renamed} times");
}

#[test]
fn zip_archives_are_synced_only_when_durable() {
    if !have_strace() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("d.zip");
    let url = |mode: &str| format!("file://{}#mode=nczarr,zip{mode}", archive.display());
    check_zip_steps(&traced("plain", &url(""), &[]), &archive, &[]);
    std::fs::remove_file(&archive).unwrap();
    check_zip_steps(&traced("sync", &url(""), &[]), &archive, &["synced", "synced-again"]);
    std::fs::remove_file(&archive).unwrap();
    check_zip_steps(
        &traced("plain", &url(",durable"), &[]),
        &archive,
        &["defined", "closed"],
    );
    std::fs::remove_file(&archive).unwrap();
    check_zip_steps(
        &traced("plain", &url(""), &[("NCZARR_DURABLE", "1")]),
        &archive,
        &["defined", "closed"],
    );
}

/// The log parser on the forms strace writes.
#[test]
fn strace_log_forms() {
    let log = "\
100 mkdir(\"/d/x\", 0770) = 0
101 mkdir(\"/d/y\", 0770) = -1 EEXIST (File exists)
101 fdatasync(7</d/x/0> <unfinished ...>
100 rename(\"/d/x/.t\", \"/d/x/1\" <unfinished ...>
101 <... fdatasync resumed>) = 0
100 <... rename resumed>) = 0
100 chdir(\"/nczarr-strace-mark/one\") = -1 ENOENT (No such file or directory)
100 renameat2(AT_FDCWD</d>, \"a\", AT_FDCWD</d>, \"b\", RENAME_NOREPLACE) = 0
100 fsync(3</d>) = 0
100 syncfs(3</d>) = 0
100 openat(AT_FDCWD</d>, \"/d/x/.zarray\", O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0660) = 5</d/x/.zarray>
100 openat(AT_FDCWD</d>, \"/d/x/.zattrs\", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0660) = -1 EEXIST (File exists)
100 openat(AT_FDCWD</d>, \"/d/x/.nczarr-tmp.1.2\", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0660) = 6</d/x/.nczarr-tmp.1.2>
100 openat(AT_FDCWD</d>, \"/d/x/.zgroup\", O_RDONLY|O_CLOEXEC) = 7</d/x/.zgroup>
";
    let steps = parse(log);
    assert_eq!(
        steps,
        [
            (
                "one".to_string(),
                vec![
                    Call::Made("/d/x".into()),
                    Call::Sync("fdatasync", "/d/x/0".into()),
                    Call::Renamed("/d/x/.t".into(), "/d/x/1".into()),
                ]
            ),
            (
                "end".to_string(),
                vec![
                    Call::Renamed("a".into(), "b".into()),
                    Call::Sync("fsync", "/d".into()),
                    Call::Sync("syncfs", "/d".into()),
                    Call::Renamed("".into(), "/d/x/.zarray".into()),
                ]
            ),
        ]
    );
}
