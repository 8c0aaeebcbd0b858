//! Helpers shared by the integration tests (each test file uses some of them).
#![allow(dead_code)]

pub mod def;
pub mod nc;

use std::ffi::c_int;
use std::fs;
use std::path::Path;

/// Fail the test on a netCDF error code.
pub fn check(e: c_int) {
    assert_eq!(e, 0, "netCDF error {e}");
}

/// xorshift64*: a deterministic generator with no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Copy a directory tree (regular files and directories).
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &t);
        } else {
            fs::copy(e.path(), &t).unwrap();
        }
    }
}

/// The S3 test server that `scripts/s3-server.sh` started, from the `NCZ_S3_*`
/// variables of its env file.
pub struct S3Server {
    pub endpoint: String,
    pub bucket: String,
    /// The bucket anyone may read.
    pub public: Option<String>,
    pub key_id: String,
    pub secret: String,
}

/// The S3 test server. S3 tests run against it whenever they run: with its
/// variables unset the test fails (with how to start the server), unless
/// `NCZ_S3=0` leaves S3 out, in which case this prints "skipped" and
/// returns None (the caller returns). `scripts/test-all.sh` always starts
/// the server and exports the variables.
pub fn s3_server() -> Option<S3Server> {
    if std::env::var("NCZ_S3").is_ok_and(|v| v.trim() == "0") {
        eprintln!("skipped: NCZ_S3=0 leaves the S3 tests out");
        return None;
    }
    let var = |n: &str| std::env::var(n).ok().filter(|s| !s.is_empty());
    let need = |n: &str| {
        var(n).unwrap_or_else(|| {
            panic!(
                "{n} is not set: an S3 test needs the test server \
                 (bash scripts/s3-server.sh start; source target/s3-server/env), \
                 or NCZ_S3=0 to skip the S3 tests"
            )
        })
    };
    Some(S3Server {
        endpoint: need("NCZ_S3_ENDPOINT"),
        bucket: need("NCZ_S3_BUCKET"),
        public: var("NCZ_S3_PUBLIC_BUCKET"),
        key_id: need("NCZ_S3_ACCESS_KEY_ID"),
        secret: need("NCZ_S3_SECRET_ACCESS_KEY"),
    })
}

/// [`s3_server`], with its credentials (and, with `endpoint`, its endpoint
/// as `AWS_ENDPOINT_URL_S3`) set where the library looks for them, and
/// `.ncrc` files ignored: once per test binary, the same values for every
/// test of it.
pub fn s3_server_in_env(endpoint: bool) -> Option<S3Server> {
    let srv = s3_server()?;
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: set once, before any test of this binary opens a dataset
        // (each calls this first), to the same values for every test.
        unsafe {
            std::env::set_var("AWS_ACCESS_KEY_ID", &srv.key_id);
            std::env::set_var("AWS_SECRET_ACCESS_KEY", &srv.secret);
            if endpoint {
                std::env::set_var("AWS_ENDPOINT_URL_S3", &srv.endpoint);
            }
            std::env::set_var("NCRCENV_IGNORE", "1");
        }
    });
    Some(srv)
}

/// The project's Python venv (`NCZ_VENV`, by default
/// `~/.cache/nczarr-venv`, which scripts/install-deps.sh makes).
pub fn venv_dir() -> String {
    let home = std::env::var("HOME").unwrap_or_default();
    std::env::var("NCZ_VENV").unwrap_or_else(|_| format!("{home}/.cache/nczarr-venv"))
}

/// Run `tests/interop/<script>` with `args` on the venv's Python, which has
/// cfdm: the script must succeed and print cfdm's version (1.13) first.
/// Its output after that line.
pub fn run_cfdm(script: &str, args: &[&std::ffi::OsStr]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop").join(script);
    let py = format!("{}/bin/python", venv_dir());
    let out = std::process::Command::new(&py)
        .arg(&script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{py}: {e} (scripts/install-deps.sh makes the venv with cfdm)"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "cfdm failed (scripts/install-deps.sh installs it and UDUNITS-2):\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    assert!(first.starts_with("cfdm 1.13"), "{text}");
    rest.to_string()
}

/// A cfdm script's reading of a variable (`run_cfdm`'s output): a first
/// line `<label> <dim> <dim> ...`, then one line per value. Its shape and
/// the value lines.
pub fn cfdm_shape_and_values(text: &str) -> (Vec<usize>, Vec<String>) {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_else(|| panic!("no shape line in {text:?}"));
    let shape = first.split_whitespace().skip(1).map(|s| s.parse().unwrap()).collect();
    (shape, lines.map(str::to_string).collect())
}
