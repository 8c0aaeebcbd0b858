//! A writer killed with SIGKILL at an arbitrary moment: everything up to its
//! last `nc_sync` reads back intact, the dataset still opens, and records
//! written after it are either right or fill, never garbage. Records go to
//! two variables: one whose chunks each record covers in part, one whose
//! small chunks each record covers whole (those wait in the cache for the
//! next sync).

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;
use common::check;
use std::ffi::CString;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use netcdf::ffi::*;

const N: usize = 1000;

fn value(rec: usize, i: usize) -> i32 {
    (rec * 100_000 + i) as i32
}

/// The child: write records forever, syncing every few and saying so.
fn child(url: &str) -> ! {
    let u = CString::new(url).unwrap();
    let mut ncid = 0;
    unsafe {
        check(nc_create(u.as_ptr(), 0, &mut ncid));
        let (mut t, mut x, mut v) = (0, 0, 0);
        check(nc_def_dim(ncid, c"t".as_ptr(), 0, &mut t));
        check(nc_def_dim(ncid, c"x".as_ptr(), N, &mut x));
        let dims = [t, x];
        check(nc_def_var(ncid, c"v".as_ptr(), 4, 2, dims.as_ptr(), &mut v));
        let chunks = [3usize, 250];
        check(nc_def_var_chunking(ncid, v, 0, chunks.as_ptr()));
        let mut w = 0;
        check(nc_def_var(ncid, c"w".as_ptr(), 4, 2, dims.as_ptr(), &mut w));
        let chunks = [1usize, N];
        check(nc_def_var_chunking(ncid, w, 0, chunks.as_ptr()));
        check(nc_enddef(ncid));
        // A small cache: chunks are written out between syncs too.
        check(nc_set_var_chunk_cache(ncid, v, 4 * 3 * 250 * 2, 2, 0.5));
        let mut out = std::io::stdout();
        for rec in 0.. {
            let row: Vec<i32> = (0..N).map(|i| value(rec, i)).collect();
            let start = [rec, 0];
            let count = [1, N];
            check(nc_put_vara_int(ncid, v, start.as_ptr(), count.as_ptr(), row.as_ptr()));
            check(nc_put_vara_int(ncid, w, start.as_ptr(), count.as_ptr(), row.as_ptr()));
            if rec % 7 == 6 {
                check(nc_sync(ncid));
                writeln!(out, "SYNCED {}", rec + 1).unwrap();
                out.flush().unwrap();
            }
        }
    }
    unreachable!()
}

#[test]
fn killed_writer_keeps_what_was_synced() {
    kill_rounds("killed_writer_keeps_what_was_synced", "zarr", "file");
}

/// The same over zip storage: an update is a new archive renamed over the old
/// one at nc_sync, so a kill leaves the archive of the last sync.
#[test]
fn killed_zip_writer_keeps_what_was_synced() {
    kill_rounds("killed_zip_writer_keeps_what_was_synced", "zip", "zip");
}

fn kill_rounds(test: &str, ext: &str, storage: &str) {
    if let Ok(url) = std::env::var("NCZ_KILL9_CHILD") {
        child(&url);
    }
    let dir = tempfile::tempdir().unwrap();
    for round in 0..4 {
        let url = format!("file://{}/k{round}.{ext}#mode=nczarr,{storage}", dir.path().display());
        let mut kid = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", test, "--nocapture", "--test-threads=1"])
            .env("NCZ_KILL9_CHILD", &url)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(kid.stdout.take().unwrap()).lines();
        let mut synced = 0usize;
        let want = 10 + 9 * round;
        let deadline = Instant::now() + Duration::from_secs(60);
        while synced < want && Instant::now() < deadline {
            match lines.next() {
                Some(Ok(l)) => {
                    if let Some(n) = l.strip_prefix("SYNCED ") {
                        synced = n.trim().parse().unwrap();
                    }
                }
                _ => break,
            }
        }
        assert!(synced >= want, "child stopped early");
        // Let it run on a little (into an unsynced write), then kill it.
        std::thread::sleep(Duration::from_millis(3 * round as u64));
        kid.kill().unwrap();
        kid.wait().unwrap();

        let u = CString::new(url).unwrap();
        let mut ncid = 0;
        unsafe {
            check(nc_open(u.as_ptr(), 0, &mut ncid));
            let mut len = 0;
            check(nc_inq_dimlen(ncid, 0, &mut len));
            assert!(len >= synced, "round {round}: {len} records on disk, {synced} synced");
            for var in 0..2 {
                let mut all = vec![0i32; len * N];
                check(nc_get_var_int(ncid, var, all.as_mut_ptr()));
                for rec in 0..len {
                    for i in 0..N {
                        let got = all[rec * N + i];
                        if rec < synced {
                            assert_eq!(got, value(rec, i), "round {round}: variable {var}, synced record {rec}");
                        } else {
                            assert!(
                                got == value(rec, i) || got == -2147483647,
                                "round {round}: variable {var}: garbage {got}"
                            );
                        }
                    }
                }
            }
            check(nc_close(ncid));
        }
    }
}
