//! Fault injection between the S3 store and a real server: a small TCP proxy
//! (loopback only) in front of the radosgw of scripts/s3-server.sh that can
//! answer 500/503 itself, cut a response in the middle, delay it, or never
//! answer. Transient faults are retried away; persistent ones end in a clean
//! `NC_ES3` within a bounded time, never a panic, a hang, or a partly
//! written object or dataset reported as complete.
//!
//! Needs the server of scripts/s3-server.sh (its NCZ_S3_* variables): without
//! them these tests fail, unless NCZ_S3=0 skips them.

// Every unsafe block below calls an export of the C API with pointers to
// the test's own buffers and C strings.
#![allow(clippy::undocumented_unsafe_blocks)]

mod common;

use std::ffi::CString;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use netcdf::error::NcError;
use netcdf::format::markers::replace_rule;
use netcdf::storage::s3::{Environment, S3Options, S3Store, config};
use netcdf::storage::{Key, Store, StoreError};

use common::{S3Server as Server, s3_server as server};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    Pass,
    /// Answer this status (with an S3 XML error body) to the next `n`
    /// requests (`usize::MAX`: all), then pass.
    Status(u16, usize),
    /// Forward the next `n` requests but cut their responses after `bytes`.
    Cut {
        bytes: i64,
        n: usize,
    },
    /// Hold every response back this long.
    Delay(Duration),
    /// Never answer.
    Hang,
}

struct Proxy {
    port: u16,
    fault: Arc<Mutex<Fault>>,
    /// Requests that met a fault.
    injected: Arc<AtomicUsize>,
}

impl Proxy {
    fn start(upstream: &str) -> Proxy {
        let upstream = upstream
            .strip_prefix("http://")
            .expect("http endpoint")
            .trim_end_matches('/')
            .to_string();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let fault = Arc::new(Mutex::new(Fault::Pass));
        let injected = Arc::new(AtomicUsize::new(0));
        let (f, inj) = (fault.clone(), injected.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let (f, inj, up) = (f.clone(), inj.clone(), upstream.clone());
                std::thread::spawn(move || serve(client, &up, &f, &inj));
            }
        });
        Proxy { port, fault, injected }
    }

    fn set(&self, f: Fault) {
        *self.fault.lock().unwrap() = f;
        self.injected.store(0, Ordering::SeqCst);
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// Take the fault for one request (counting it down).
fn next_fault(f: &Mutex<Fault>, inj: &AtomicUsize) -> Fault {
    let mut g = f.lock().unwrap();
    let now = *g;
    match &mut *g {
        Fault::Pass => {}
        Fault::Status(_, n) | Fault::Cut { n, .. } => {
            inj.fetch_add(1, Ordering::SeqCst);
            if *n != usize::MAX {
                *n -= 1;
                if *n == 0 {
                    *g = Fault::Pass;
                }
            }
        }
        Fault::Delay(_) | Fault::Hang => {
            inj.fetch_add(1, Ordering::SeqCst);
        }
    }
    now
}

fn serve(mut client: TcpStream, upstream: &str, f: &Mutex<Fault>, inj: &AtomicUsize) {
    let Ok(mut server) = TcpStream::connect(upstream) else {
        return;
    };
    // Bytes of the response still allowed through (-1: unlimited).
    let budget = Arc::new(AtomicI64::new(-1));
    let delay = Arc::new(Mutex::new(Duration::ZERO));
    {
        let (mut from, mut to) = (server.try_clone().unwrap(), client.try_clone().unwrap());
        let (budget, delay) = (budget.clone(), delay.clone());
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 << 10];
            loop {
                let n = match from.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let d = *delay.lock().unwrap();
                if !d.is_zero() {
                    std::thread::sleep(d);
                }
                let b = budget.load(Ordering::SeqCst);
                let n = if b >= 0 { n.min(b as usize) } else { n };
                if to.write_all(&buf[..n]).is_err() {
                    break;
                }
                if b >= 0 {
                    let left = budget.fetch_sub(n as i64, Ordering::SeqCst) - n as i64;
                    if left <= 0 {
                        break;
                    }
                }
            }
            let _ = to.shutdown(Shutdown::Both);
            let _ = from.shutdown(Shutdown::Both);
        });
    }
    let mut buf = vec![0u8; 64 << 10];
    let mut in_request = false;
    loop {
        let n = match client.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        // A read that starts with a method starts a request.
        let starts = !in_request
            || [&b"GET "[..], b"PUT ", b"POST ", b"HEAD ", b"DELETE "]
                .iter()
                .any(|m| buf[..n].starts_with(m));
        in_request = true;
        let fault = if starts { next_fault(f, inj) } else { Fault::Pass };
        match fault {
            Fault::Pass => {}
            Fault::Status(code, _) => {
                let body = format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>InternalError</Code><Message>injected failure {code}</Message></Error>"
                );
                let reason = if code == 503 {
                    "Slow Down"
                } else {
                    "Internal Server Error"
                };
                let _ = write!(
                    client,
                    "HTTP/1.1 {code} {reason}\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                break;
            }
            Fault::Cut { bytes, .. } => budget.store(bytes, Ordering::SeqCst),
            Fault::Delay(d) => *delay.lock().unwrap() = d,
            Fault::Hang => {
                // Swallow everything, answer nothing.
                while matches!(client.read(&mut buf), Ok(n) if n > 0) {}
                break;
            }
        }
        if server.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = client.shutdown(Shutdown::Both);
    let _ = server.shutdown(Shutdown::Both);
}

fn unique(what: &str) -> String {
    static SEQ: AtomicUsize = AtomicUsize::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "faults-{what}-{}-{t}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    )
}

/// Short deadlines so that persistent faults end quickly.
fn quick() -> S3Options {
    S3Options {
        timeout: Duration::from_millis(2000),
        connect_timeout: Duration::from_millis(1000),
        retries: 2,
        retry_timeout: Duration::from_secs(3),
        ..S3Options::default()
    }
}

/// A store at `endpoint` (the proxy) over a fresh prefix.
fn store_at(srv: &Server, endpoint: &str, prefix: &str, opts: S3Options) -> S3Store {
    let mut env = Environment::default();
    env.vars.insert("AWS_ACCESS_KEY_ID".into(), srv.key_id.clone());
    env.vars.insert("AWS_SECRET_ACCESS_KEY".into(), srv.secret.clone());
    let url = format!("{endpoint}/{}/{prefix}", srv.bucket);
    let cfg = config::resolve(&url, &[], &env).unwrap();
    S3Store::create(&cfg, replace_rule(false), opts).unwrap()
}

fn k(s: &str) -> Key {
    Key::new(s).unwrap()
}

/// The call ends within `limit`, whatever it returns.
fn timed<T>(limit: Duration, f: impl FnOnce() -> T) -> T {
    let t0 = Instant::now();
    let r = f();
    assert!(t0.elapsed() < limit, "took {:?}, limit {:?}", t0.elapsed(), limit);
    r
}

#[test]
fn transient_errors_are_retried() {
    let Some(srv) = server() else { return };
    let proxy = Proxy::start(&srv.endpoint);
    let s = store_at(&srv, &proxy.endpoint(), &unique("transient"), quick());
    let data: Vec<u8> = (0..200_000u32).map(|i| (i % 241) as u8).collect();
    s.put(&k("v/0"), &data).unwrap();

    for code in [500, 503] {
        proxy.set(Fault::Status(code, 2));
        assert_eq!(s.get(&k("v/0"), u64::MAX).unwrap().as_deref(), Some(&data[..]));
        assert_eq!(proxy.injected.load(Ordering::SeqCst), 2, "both faults met");
        proxy.set(Fault::Status(code, 2));
        s.put(&k("v/1"), b"after retries").unwrap();
        proxy.set(Fault::Status(code, 1));
        assert_eq!(s.list(&k("v")).unwrap(), vec!["0", "1"]);
    }
    // A response cut after its headers and a few body bytes, twice.
    proxy.set(Fault::Cut { bytes: 600, n: 2 });
    assert_eq!(s.get(&k("v/0"), u64::MAX).unwrap().as_deref(), Some(&data[..]));
    proxy.set(Fault::Cut { bytes: 5000, n: 1 });
    assert_eq!(
        s.get_range(&k("v/0"), 1000, 100_000).unwrap().as_deref(),
        Some(&data[1000..101_000])
    );
    // Slow but within the deadline.
    proxy.set(Fault::Delay(Duration::from_millis(300)));
    assert_eq!(s.get(&k("v/1"), 100).unwrap().as_deref(), Some(&b"after retries"[..]));
    proxy.set(Fault::Pass);
    s.destroy().unwrap();
}

#[test]
fn persistent_errors_end_in_nc_es3() {
    let Some(srv) = server() else { return };
    let proxy = Proxy::start(&srv.endpoint);
    let s = store_at(&srv, &proxy.endpoint(), &unique("persistent"), quick());
    s.put(&k("v/0"), b"old content").unwrap();
    let limit = Duration::from_secs(15);

    for fault in [
        Fault::Status(500, usize::MAX),
        Fault::Status(503, usize::MAX),
        Fault::Cut {
            bytes: 100,
            n: usize::MAX,
        },
        Fault::Delay(Duration::from_secs(4)),
        Fault::Hang,
    ] {
        proxy.set(fault);
        assert_eq!(
            timed(limit, || s.get(&k("v/0"), 100)),
            Err(StoreError::Remote),
            "{fault:?} get"
        );
        assert_eq!(
            timed(limit, || s.put(&k("v/0"), b"new")),
            Err(StoreError::Remote),
            "{fault:?} put"
        );
        if !matches!(fault, Fault::Delay(_) | Fault::Hang) {
            // (Deadlines are slow to meet: two operations are enough for those.)
            assert_eq!(
                timed(limit, || s.get_range(&k("v/0"), 1, 3)),
                Err(StoreError::Remote),
                "{fault:?} range"
            );
            assert_eq!(
                timed(limit, || s.list(&Key::root())),
                Err(StoreError::Remote),
                "{fault:?} list"
            );
        }
        assert!(proxy.injected.load(Ordering::SeqCst) > 1, "{fault:?}: retried");
        proxy.set(Fault::Pass);
        // Whatever the fault did, the object is whole: old or new, never a part.
        let got = s.get(&k("v/0"), 100).unwrap().unwrap();
        assert!(got == b"old content" || got == b"new", "{fault:?}: {got:?}");
        s.put(&k("v/0"), b"old content").unwrap();
    }
    s.destroy().unwrap();
}

#[test]
fn failed_multipart_upload_leaves_the_old_object() {
    let Some(srv) = server() else { return };
    let proxy = Proxy::start(&srv.endpoint);
    // Parts of 5 MiB take time on a busy machine: generous deadlines.
    let opts = S3Options {
        multipart_threshold: 5 << 20,
        part_size: 5 << 20,
        timeout: Duration::from_secs(20),
        retries: 4,
        retry_timeout: Duration::from_secs(30),
        ..quick()
    };
    let s = store_at(&srv, &proxy.endpoint(), &unique("multipart"), opts);
    s.put(&k("big"), b"small old version").unwrap();
    let big = vec![7u8; 11 << 20];
    // Parts fail: the upload is aborted, the old object stays.
    proxy.set(Fault::Status(500, usize::MAX));
    assert_eq!(
        timed(Duration::from_secs(60), || s.put(&k("big"), &big)),
        Err(StoreError::Remote)
    );
    proxy.set(Fault::Pass);
    assert_eq!(
        s.get(&k("big"), 1 << 30).unwrap().as_deref(),
        Some(&b"small old version"[..])
    );
    // A transient failure in the middle is retried and the whole object lands.
    proxy.set(Fault::Status(503, 2));
    s.put(&k("big"), &big).unwrap();
    proxy.set(Fault::Pass);
    assert_eq!(s.len(&k("big")), Ok(Some(big.len() as u64)));
    assert_eq!(s.get(&k("big"), 1 << 30).unwrap().as_deref(), Some(&big[..]));
    s.destroy().unwrap();
}

/// Through the C API: a close whose writes fail reports NC_ES3, never
/// success; what was closed before reads back whole.
#[test]
fn dataset_close_reports_failed_writes() {
    use netcdf::ffi::*;
    let Some(srv) = server() else { return };
    let proxy = Proxy::start(&srv.endpoint);
    set_env(&srv);
    let url = CString::new(format!(
        "{}/{}/{}#mode=nczarr,s3",
        proxy.endpoint(),
        srv.bucket,
        unique("dataset")
    ))
    .unwrap();
    let (mut ncid, mut dim, mut var) = (0, 0, 0);
    let name = |s: &str| CString::new(s).unwrap();
    // SAFETY (all calls below): valid NUL-terminated strings and out-pointers.
    unsafe {
        common::check(nc_create(url.as_ptr(), 0, &mut ncid));
        common::check(nc_def_dim(ncid, name("x").as_ptr(), 100, &mut dim));
        common::check(nc_def_var(ncid, name("v").as_ptr(), 4, 1, &dim, &mut var));
        let data: Vec<i32> = (0..100).collect();
        common::check(nc_put_var_int(ncid, var, data.as_ptr()));
        common::check(nc_close(ncid));

        // Second session: the server fails for good, then new data. The
        // write (chunks may be stored at once or at close) is reported failed
        // by the put or by the close, never by neither.
        common::check(nc_open(url.as_ptr(), 1, &mut ncid));
        let newer: Vec<i32> = (0..100).map(|i| -i).collect();
        proxy.set(Fault::Status(500, usize::MAX));
        let rc_put = timed(Duration::from_secs(60), || nc_put_var_int(ncid, var, newer.as_ptr()));
        let rc_close = timed(Duration::from_secs(60), || nc_close(ncid));
        assert!(
            rc_put == NcError::S3.code() || rc_close == NcError::S3.code(),
            "put {rc_put}, close {rc_close}: a failed write must be reported"
        );
        proxy.set(Fault::Pass);

        // New metadata that cannot be written: the close says so.
        let mut w = 0;
        common::check(nc_open(url.as_ptr(), 1, &mut ncid));
        common::check(nc_redef(ncid));
        common::check(nc_def_var(ncid, name("w").as_ptr(), 4, 1, &dim, &mut w));
        proxy.set(Fault::Status(503, usize::MAX));
        let rc = timed(Duration::from_secs(60), || nc_close(ncid));
        assert_eq!(rc, NcError::S3.code(), "a failed close is reported");
        proxy.set(Fault::Pass);

        // What is there is a whole version of each chunk.
        common::check(nc_open(url.as_ptr(), 0, &mut ncid));
        let mut back = vec![0i32; 100];
        common::check(nc_get_var_int(ncid, var, back.as_mut_ptr()));
        assert!(back == data || back == newer, "{back:?}");
        common::check(nc_close(ncid));
        // Reading with the server down: NC_ES3 from open, no hang.
        proxy.set(Fault::Hang);
        let rc = timed(Duration::from_secs(60), || nc_open(url.as_ptr(), 0, &mut ncid));
        assert_eq!(rc, NcError::S3.code());
        proxy.set(Fault::Pass);
    }
}

/// The library reads credentials and deadlines from the environment; every
/// test of this file that sets them sets the same values, once.
fn set_env(srv: &Server) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: no other thread of this test binary reads or writes these
        // variables concurrently: they are set once, before any use.
        unsafe {
            std::env::set_var("AWS_ACCESS_KEY_ID", &srv.key_id);
            std::env::set_var("AWS_SECRET_ACCESS_KEY", &srv.secret);
            std::env::set_var("NCZARR_S3_TIMEOUT", "2");
            std::env::set_var("NCZARR_S3_RETRIES", "2");
            std::env::set_var("NCZARR_S3_RETRY_TIMEOUT", "3");
            std::env::set_var("NCRCENV_IGNORE", "1");
        }
    });
}
