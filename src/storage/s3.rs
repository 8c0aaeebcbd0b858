//! S3 (and S3-compatible) store over the `object_store` crate, netcdf-c's
//! `zmap_s3sdk`.
//!
//! A dataset is every object below a key prefix of a bucket: the key
//! `g/v/0.0` of the dataset `s3://bkt/data/x.zarr` is the object
//! `data/x.zarr/g/v/0.0`. Which bucket, endpoint, region and credentials is
//! decided by [`config`] (URL forms and lookup order are documented there).
//!
//! The C caller is synchronous; requests run on a private tokio runtime
//! (multi-threaded, two workers, created on first use) that only this
//! module's methods enter, with `block_on` on the calling thread. Every
//! request of one store holds a permit of a semaphore, so a batch never has
//! more than `NCZARR_S3_CONCURRENCY` requests in flight.
//!
//! Behaviour:
//! - a GET is never preceded by a HEAD: a missing object (404) is absent;
//!   the announced size is checked against the caller's limit before the
//!   body is read, and a body longer or shorter than announced is an error;
//! - `get_range` is one ranged GET (a HEAD only for zero-length ranges and on
//!   errors, to tell "past the end" from a server failure); `read_parts` (part
//!   of an uncompressed chunk read in place) is one ranged GET over the parts
//!   when they span less than half of the chunk;
//! - `get_many` and `put_many` issue their requests concurrently (bounded as
//!   above); the engine uses them for the chunks of a read or a flush;
//! - `put` is one PUT, or a multipart upload (parts of
//!   `NCZARR_S3_PART_SIZE`, four in flight) for objects of at least
//!   `NCZARR_S3_MULTIPART_THRESHOLD` bytes; a failed multipart upload is
//!   aborted, so the object keeps its old content (S3 PUTs are atomic);
//! - `list` is one delimited LIST (all pages) of the prefix: one level;
//! - `delete` of a prefix lists it recursively and deletes in bulk;
//! - requests that fail with 5xx, throttling (429/503 SlowDown), connection
//!   resets or timeouts are retried with exponential backoff (100 ms
//!   doubling to 5 s, at most `NCZARR_S3_RETRIES` times and within
//!   `NCZARR_S3_RETRY_TIMEOUT` seconds); each request has a deadline of
//!   `NCZARR_S3_TIMEOUT` seconds. When retries run out the error is
//!   `StoreError::Remote` (NC_ES3) and the log (`NCLOGGING=1`) shows the server's message.
//!   Credentials never appear in a log line or an error.
//!
//! Deliberate difference from the file and memory stores: S3 lets a key be
//! both an object and a prefix, and checking on every put would cost two
//! more round trips per chunk, so `put` does not refuse that (netcdf-c's S3
//! driver does not either).
#![forbid(unsafe_code)]

pub mod config;

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path;
use object_store::{
    BackoffConfig, ClientOptions, GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutPayload, RetryConfig,
    WriteMultipart,
};
use tokio::sync::Semaphore;

use super::{Capabilities, Durability, Key, RangeAt, RangeRead, Replace, Store, StoreError, StoreResult};
use crate::log::Level;
pub use config::{Environment, S3Config};

/// The library's private runtime, with the process that made it.
static RUNTIME: Mutex<Option<(u32, Arc<tokio::runtime::Runtime>)>> = Mutex::new(None);

/// The runtime, made on first use. A child made by `fork` has none of its
/// parent's threads, so it gets a runtime of its own (the parent's is left
/// alone: dropping it would wait for threads that do not exist here).
fn runtime() -> StoreResult<Arc<tokio::runtime::Runtime>> {
    let mut slot = RUNTIME.lock().map_err(|_| StoreError::Internal)?;
    let pid = std::process::id();
    if let Some((p, rt)) = slot.as_ref()
        && *p == pid
    {
        return Ok(rt.clone());
    }
    if let Some((_, inherited)) = slot.take() {
        std::mem::forget(inherited);
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("nczarr-s3")
        .enable_all()
        .build()
        .map_err(|e| {
            crate::nclog!(Level::Error, "s3: cannot start the I/O runtime: {e}");
            StoreError::Remote
        })?;
    let rt = Arc::new(rt);
    *slot = Some((pid, rt.clone()));
    Ok(rt)
}

/// Run `fut` to completion on the private runtime. A caller that is itself
/// inside a tokio runtime (a Rust program using the rlib) is served from a
/// scoped helper thread, since `block_on` may not nest.
fn block_on<F>(fut: F) -> StoreResult<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    let rt = runtime()?;
    if tokio::runtime::Handle::try_current().is_ok() {
        std::thread::scope(|s| s.spawn(|| rt.block_on(fut)).join()).map_err(|_| StoreError::Internal)
    } else {
        Ok(rt.block_on(fut))
    }
}

/// Tuning, from `NCZARR_S3_*` environment variables by default.
#[derive(Debug, Clone, PartialEq)]
pub struct S3Options {
    /// Deadline of one request (`NCZARR_S3_TIMEOUT`, seconds, default 30).
    pub timeout: Duration,
    /// Deadline of one connection attempt (5 s, capped by `timeout`).
    pub connect_timeout: Duration,
    /// Retries of one request (`NCZARR_S3_RETRIES`, default 5).
    pub retries: usize,
    /// No retry starts later than this after the first attempt
    /// (`NCZARR_S3_RETRY_TIMEOUT`, seconds, default 60).
    pub retry_timeout: Duration,
    /// Requests in flight per store (`NCZARR_S3_CONCURRENCY`, default 32).
    pub concurrency: usize,
    /// Objects of at least this many bytes use a multipart upload
    /// (`NCZARR_S3_MULTIPART_THRESHOLD`, default 64 MiB, at least 5 MiB).
    pub multipart_threshold: usize,
    /// Part size of multipart uploads (`NCZARR_S3_PART_SIZE`, default 16 MiB,
    /// at least 5 MiB, S3's minimum).
    pub part_size: usize,
    /// Whether request bodies are part of the SigV4 signature
    /// (`NCZARR_S3_SIGN_PAYLOAD=1` or `0`). By default (`None`) they are only
    /// over plain HTTP to another machine: over HTTPS, TLS already guards
    /// them (what the AWS SDKs do), and on this machine nothing sits in
    /// between; a signed body costs a SHA-256 of every byte at both ends.
    pub sign_payload: Option<bool>,
}

impl Default for S3Options {
    fn default() -> Self {
        S3Options {
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(5),
            retries: 5,
            retry_timeout: Duration::from_secs(60),
            concurrency: 32,
            multipart_threshold: 64 << 20,
            part_size: 16 << 20,
            sign_payload: None,
        }
    }
}

const MIN_PART: usize = 5 << 20;

impl S3Options {
    pub fn from_env() -> S3Options {
        let d = S3Options::default();
        let secs = |name: &str, dflt: Duration| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e6)
                .map_or(dflt, Duration::from_secs_f64)
        };
        let num = |name: &str, dflt: usize| {
            std::env::var(name)
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(dflt)
        };
        let timeout = secs("NCZARR_S3_TIMEOUT", d.timeout);
        S3Options {
            timeout,
            connect_timeout: d.connect_timeout.min(timeout),
            retries: num("NCZARR_S3_RETRIES", d.retries).min(100),
            retry_timeout: secs("NCZARR_S3_RETRY_TIMEOUT", d.retry_timeout),
            concurrency: num("NCZARR_S3_CONCURRENCY", d.concurrency).clamp(1, 1024),
            multipart_threshold: num("NCZARR_S3_MULTIPART_THRESHOLD", d.multipart_threshold).max(MIN_PART),
            part_size: num("NCZARR_S3_PART_SIZE", d.part_size).max(MIN_PART),
            sign_payload: match std::env::var("NCZARR_S3_SIGN_PAYLOAD").as_deref().map(str::trim) {
                Ok("1") => Some(true),
                Ok("0") => Some(false),
                _ => d.sign_payload,
            },
        }
    }
}

/// Whether SigV4 should cover request bodies for `endpoint` (None: AWS
/// itself, over HTTPS): only plain HTTP to a host other than this machine.
fn sign_payload_by_default(endpoint: Option<&str>) -> bool {
    let Some(u) = endpoint.and_then(|e| url::Url::parse(e).ok()) else {
        return false;
    };
    if u.scheme() != "http" {
        return false;
    }
    match u.host() {
        Some(url::Host::Domain(d)) => !d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => !ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => !ip.is_loopback(),
        None => false,
    }
}

/// A dataset below a key prefix of an S3 bucket.
#[derive(Clone)]
pub struct S3Store {
    client: Arc<AmazonS3>,
    /// Dataset prefix inside the bucket ("" for the bucket root).
    prefix: String,
    /// For log lines: bucket, prefix and endpoint, never credentials.
    name: String,
    writable: bool,
    opts: S3Options,
    limit: Arc<Semaphore>,
}

impl std::fmt::Debug for S3Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Store")
            .field("name", &self.name)
            .field("writable", &self.writable)
            .finish()
    }
}

/// What one object write is given: parts to copy, or buffers to send as
/// they are.
enum Pieces<'a> {
    Borrowed(&'a [&'a [u8]]),
    Owned(Vec<Bytes>),
}

impl Pieces<'_> {
    fn total(&self) -> Option<usize> {
        match self {
            Pieces::Borrowed(b) => b.iter().try_fold(0usize, |a, p| a.checked_add(p.len())),
            Pieces::Owned(o) => o.iter().try_fold(0usize, |a, p| a.checked_add(p.len())),
        }
    }

    fn into_payload(self) -> PutPayload {
        match self {
            Pieces::Borrowed([one]) => PutPayload::from(Bytes::copy_from_slice(one)),
            Pieces::Borrowed(b) => PutPayload::from_iter(b.iter().map(|p| Bytes::copy_from_slice(p))),
            Pieces::Owned(o) => PutPayload::from_iter(o),
        }
    }
}

/// One piece of a multipart upload.
enum Piece<'a> {
    Borrowed(&'a [u8]),
    Owned(Bytes),
}

/// Which operation failed, for the log.
#[derive(Clone, Copy)]
enum Op {
    Get,
    Head,
    Put,
    Delete,
    List,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Get => "GET",
            Op::Head => "HEAD",
            Op::Put => "PUT",
            Op::Delete => "DELETE",
            Op::List => "LIST",
        }
    }
}

impl S3Store {
    /// A store for an existing dataset: one LIST of its prefix. Nothing
    /// there is `StoreError::NotFound` (as for a missing directory). When listing
    /// is not allowed (a bucket that grants GetObject only), the dataset is
    /// taken to exist and its metadata reads tell.
    pub fn open(cfg: &S3Config, writable: bool, opts: S3Options) -> StoreResult<S3Store> {
        let store = S3Store::new(cfg, writable, opts)?;
        match store.list(&Key::root()) {
            Ok(top) if top.is_empty() => {
                crate::nclog!(Level::Error, "s3 store: {} not found", store.name);
                Err(StoreError::NotFound)
            }
            Ok(_) | Err(StoreError::Remote) => Ok(store),
            Err(e) => Err(e),
        }
    }

    /// Create a dataset. Existing objects below the prefix: with
    /// `Replace::Never` `AlreadyExists`; otherwise they are deleted when
    /// `replace` recognises the names at the prefix's root, else
    /// `AlreadyExists` (the prefix holds other data, which is left alone).
    pub fn create(cfg: &S3Config, replace: Replace<'_>, opts: S3Options) -> StoreResult<S3Store> {
        let store = S3Store::new(cfg, true, opts)?;
        let top = store.list(&Key::root())?;
        if !top.is_empty() {
            if matches!(replace, Replace::Never) {
                crate::nclog!(Level::Error, "s3 store: {} exists (NC_NOCLOBBER)", store.name);
                return Err(StoreError::AlreadyExists);
            }
            if !replace.allows(&top) {
                crate::nclog!(
                    Level::Error,
                    "s3 store: {} holds objects that are not a dataset to replace; not replacing them",
                    store.name
                );
                return Err(StoreError::AlreadyExists);
            }
            store.delete(&Key::root())?;
        }
        Ok(store)
    }

    fn new(cfg: &S3Config, writable: bool, opts: S3Options) -> StoreResult<S3Store> {
        let retry = RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(5),
                base: 2.0,
            },
            max_retries: opts.retries,
            retry_timeout: opts.retry_timeout,
        };
        let client_opts = ClientOptions::new()
            .with_timeout(opts.timeout)
            .with_connect_timeout(opts.connect_timeout)
            .with_allow_http(cfg.endpoint.as_deref().is_some_and(|e| e.starts_with("http://")));
        let mut b = AmazonS3Builder::new()
            .with_bucket_name(&cfg.bucket)
            .with_region(&cfg.region)
            .with_virtual_hosted_style_request(cfg.virtual_hosted)
            .with_retry(retry)
            .with_unsigned_payload(
                !opts
                    .sign_payload
                    .unwrap_or_else(|| sign_payload_by_default(cfg.endpoint.as_deref())),
            )
            .with_client_options(client_opts);
        if let Some(e) = &cfg.endpoint {
            b = b.with_endpoint(e);
        }
        match &cfg.credentials {
            Some(c) => {
                b = b.with_access_key_id(&c.key_id).with_secret_access_key(&c.secret);
                if let Some(t) = &c.token {
                    b = b.with_token(t);
                }
            }
            // Unsigned: never fall back to instance metadata or other providers.
            None => b = b.with_skip_signature(true),
        }
        let name = cfg.describe();
        let client = b.build().map_err(|e| {
            crate::nclog!(Level::Error, "s3 store: {name}: {e}");
            StoreError::Remote
        })?;
        let limit = Arc::new(Semaphore::new(opts.concurrency));
        Ok(S3Store {
            client: Arc::new(client),
            prefix: cfg.prefix.trim_matches('/').to_string(),
            name,
            writable,
            opts,
            limit,
        })
    }

    /// The object path of `key` (the dataset prefix + key).
    fn path(&self, key: &Key) -> StoreResult<Path> {
        let full = match (self.prefix.is_empty(), key.is_root()) {
            (true, _) => key.as_str().to_string(),
            (false, true) => self.prefix.clone(),
            (false, false) => format!("{}/{}", self.prefix, key.as_str()),
        };
        Path::parse(&full).map_err(|e| {
            crate::nclog!(
                Level::Error,
                "s3 store: key {:?} is not a valid object name: {e}",
                key.as_str()
            );
            StoreError::InvalidKey
        })
    }

    /// The prefix to list below `key`, None for the whole bucket.
    fn dir(&self, key: &Key) -> StoreResult<Option<Path>> {
        if key.is_root() && self.prefix.is_empty() {
            Ok(None)
        } else {
            self.path(key).map(Some)
        }
    }

    fn fail(&self, op: Op, key: &str, e: &object_store::Error) -> StoreError {
        crate::nclog!(
            Level::Error,
            "s3 store: {} {:?} in {}: {}",
            op.name(),
            key,
            self.name,
            e
        );
        StoreError::Remote
    }

    fn check_writable(&self) -> StoreResult<()> {
        if self.writable {
            Ok(())
        } else {
            crate::nclog!(Level::Error, "s3 store: {} is read-only", self.name);
            Err(StoreError::ReadOnly)
        }
    }

    /// A write of one object at `key`: writable store, not the root.
    fn check_object_write(&self, key: &Key) -> StoreResult<()> {
        self.check_writable()?;
        if key.is_root() {
            crate::nclog!(Level::Error, "s3 store: cannot write an object at the root key");
            return Err(StoreError::InvalidKey);
        }
        Ok(())
    }

    async fn permit(&self) -> StoreResult<tokio::sync::SemaphorePermit<'_>> {
        self.limit.acquire().await.map_err(|_| StoreError::Internal)
    }

    /// One GET into `buf`; false when absent.
    async fn get_async(&self, key: &Key, max_len: u64, buf: &mut Vec<u8>) -> StoreResult<bool> {
        buf.clear();
        if key.is_root() {
            return Ok(false);
        }
        let path = self.path(key)?;
        let _permit = self.permit().await?;
        let r = match self.client.get_opts(&path, GetOptions::default()).await {
            Ok(r) => r,
            Err(object_store::Error::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(self.fail(Op::Get, key.as_str(), &e)),
        };
        let size = r.meta.size;
        if size > max_len {
            crate::nclog!(
                Level::Error,
                "s3 store: {}/{} has {} bytes, more than the limit of {}",
                self.name,
                key.as_str(),
                size,
                max_len
            );
            return Err(StoreError::Corrupt);
        }
        self.read_body(key, r.into_stream(), size, buf).await?;
        Ok(true)
    }

    /// Read a response body of exactly `size` bytes into `buf`.
    async fn read_body(
        &self,
        key: &Key,
        mut body: futures::stream::BoxStream<'static, object_store::Result<Bytes>>,
        size: u64,
        buf: &mut Vec<u8>,
    ) -> StoreResult<()> {
        let want = usize::try_from(size).map_err(|_| StoreError::OutOfMemory)?;
        if buf.try_reserve_exact(want).is_err() {
            crate::nclog!(Level::Error, "s3 store: cannot allocate {want} bytes");
            return Err(StoreError::OutOfMemory);
        }
        while let Some(part) = body.next().await {
            let part = part.map_err(|e| self.fail(Op::Get, key.as_str(), &e))?;
            if part.len() > want - buf.len() {
                crate::nclog!(
                    Level::Error,
                    "s3 store: {}/{}: the server sent more than the {want} bytes it announced",
                    self.name,
                    key.as_str()
                );
                return Err(StoreError::Remote);
            }
            buf.extend_from_slice(&part);
        }
        if buf.len() != want {
            crate::nclog!(
                Level::Error,
                "s3 store: {}/{}: body ended after {} of {want} bytes",
                self.name,
                key.as_str(),
                buf.len()
            );
            return Err(StoreError::Remote);
        }
        Ok(())
    }

    async fn head_async(&self, key: &Key) -> StoreResult<Option<u64>> {
        if key.is_root() {
            return Ok(None);
        }
        let path = self.path(key)?;
        let _permit = self.permit().await?;
        match self.client.head(&path).await {
            Ok(m) => Ok(Some(m.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.fail(Op::Head, key.as_str(), &e)),
        }
    }

    fn past_end(&self, key: &Key, offset: u64, len: u64, size: u64) -> StoreError {
        crate::nclog!(
            Level::Error,
            "s3 store: range {}+{} is past the end of {}/{} ({} bytes)",
            offset,
            len,
            self.name,
            key.as_str(),
            size
        );
        StoreError::Corrupt
    }

    async fn get_range_async(&self, key: &Key, offset: u64, len: u64) -> StoreResult<Option<Vec<u8>>> {
        Ok(self
            .get_range_sized_async(key, RangeAt::Offset(offset), len)
            .await?
            .map(|(b, _)| b))
    }

    /// A ranged GET of `len` bytes at `at` (`bytes=A-B`, or `bytes=-N` for
    /// the end): the bytes and the size of the whole object.
    async fn get_range_sized_async(&self, key: &Key, at: RangeAt, len: u64) -> StoreResult<Option<(Vec<u8>, u64)>> {
        let r = match self.ranged_get(key, at, len).await? {
            Ranged::Absent => return Ok(None),
            Ranged::Empty(size) => return Ok(Some((Vec::new(), size))),
            Ranged::Body(r) => r,
        };
        let total = r.meta.size;
        let mut buf = Vec::new();
        self.read_body(key, r.into_stream(), len, &mut buf).await?;
        Ok(Some((buf, total)))
    }

    /// Send a ranged GET of `len` bytes at `at` and check the answer's
    /// range; an empty range only asks whether the object is there (a
    /// HEAD), and so does a failed GET, to tell a range past the end
    /// (`StoreError::Corrupt`) from a failure.
    async fn ranged_get(&self, key: &Key, at: RangeAt, len: u64) -> StoreResult<Ranged> {
        // The range asked for, and the size an object needs to hold it.
        let (range, needs) = match at {
            RangeAt::Offset(offset) => match offset.checked_add(len) {
                Some(end) if len > 0 => (GetRange::Bounded(offset..end), end),
                end => {
                    // Nothing to fetch (or an impossible range): only existence and size matter.
                    return match self.head_async(key).await? {
                        None => Ok(Ranged::Absent),
                        Some(size) if end.is_some_and(|e| e <= size) => Ok(Ranged::Empty(size)),
                        Some(size) => Err(self.past_end(key, offset, len, size)),
                    };
                }
            },
            RangeAt::End if len == 0 => {
                return Ok(self.head_async(key).await?.map_or(Ranged::Absent, Ranged::Empty));
            }
            RangeAt::End => (GetRange::Suffix(len), len),
        };
        if key.is_root() {
            return Ok(Ranged::Absent);
        }
        let path = self.path(key)?;
        let opts = GetOptions {
            range: Some(range),
            ..GetOptions::default()
        };
        let result = {
            let _permit = self.permit().await?;
            self.client.get_opts(&path, opts).await
        };
        let start = |size: u64| match at {
            RangeAt::Offset(o) => o,
            RangeAt::End => size.saturating_sub(len),
        };
        let r = match result {
            Ok(r) => r,
            Err(object_store::Error::NotFound { .. }) => return Ok(Ranged::Absent),
            Err(e) => {
                // 416 for a range starting past the end, or a real failure.
                return match self.head_async(key).await {
                    Ok(None) => Ok(Ranged::Absent),
                    Ok(Some(size)) if needs > size => Err(self.past_end(key, start(size), len, size)),
                    _ => Err(self.fail(Op::Get, key.as_str(), &e)),
                };
            }
        };
        let total = r.meta.size;
        // (A suffix longer than the object is answered with the whole object.)
        if r.range.end.saturating_sub(r.range.start) != len || r.range.start != start(total) {
            return Err(self.past_end(key, start(total), len, total));
        }
        Ok(Ranged::Body(r))
    }

    /// One request of `start_get_ranges`: its body is cut into the pieces
    /// as it arrives (each byte copied once, from the connection's buffers
    /// into its piece), and each piece is handed over the moment its last
    /// byte is in.
    async fn get_pieces(&self, r: &RangeRead, arrivals: &super::Arrivals) {
        let pieces_fit = r
            .pieces
            .iter()
            .all(|&(_, at, n)| at.checked_add(n).is_some_and(|end| end <= r.len));
        if r.len == 0 || !pieces_fit {
            // (Nothing to stream; a piece outside its range is the caller's bug.)
            let got = if pieces_fit {
                self.get_range_async(&r.key, r.offset, r.len).await
            } else {
                Err(StoreError::Internal)
            };
            r.deliver(arrivals, got);
            return;
        }
        let mut done = vec![false; r.pieces.len()];
        let result = self.stream_pieces(r, arrivals, &mut done).await;
        for (&(slot, _, _), done) in r.pieces.iter().zip(done) {
            if !done {
                arrivals.deliver(
                    slot,
                    match result {
                        Ok(()) => Err(StoreError::Internal),
                        Err(e) => Err(e),
                    },
                );
            }
        }
    }

    /// The body of `get_pieces`: marks in `done` the pieces it delivered;
    /// an absent object delivers None to every piece.
    async fn stream_pieces(&self, r: &RangeRead, arrivals: &super::Arrivals, done: &mut [bool]) -> StoreResult<()> {
        let resp = match self.ranged_get(&r.key, RangeAt::Offset(r.offset), r.len).await? {
            Ranged::Body(resp) => resp,
            Ranged::Absent | Ranged::Empty(_) => {
                for (&(slot, _, _), d) in r.pieces.iter().zip(done.iter_mut()) {
                    arrivals.deliver(slot, Ok(None));
                    *d = true;
                }
                return Ok(());
            }
        };
        // Recycled buffers (the decoders hand them back): fresh memory would
        // cost a page fault per 4 KiB of every piece.
        let mut bufs: Vec<Vec<u8>> = Vec::with_capacity(r.pieces.len());
        for &(_, _, n) in &r.pieces {
            let n = usize::try_from(n).map_err(|_| StoreError::OutOfMemory)?;
            let mut b = crate::runtime::buffers::take(n);
            b.try_reserve_exact(n).map_err(|_| StoreError::OutOfMemory)?;
            bufs.push(b);
        }
        let mut body = resp.into_stream();
        let mut pos = 0u64;
        loop {
            // Pieces complete so far (empty ones at once) are handed over.
            for (j, &(slot, at, n)) in r.pieces.iter().enumerate() {
                if !done[j] && at + n <= pos.max(at) {
                    arrivals.deliver(slot, Ok(Some(std::mem::take(&mut bufs[j]))));
                    done[j] = true;
                }
            }
            let Some(part) = body.next().await else { break };
            let part = part.map_err(|e| self.fail(Op::Get, r.key.as_str(), &e))?;
            let end = pos + part.len() as u64;
            if end > r.len {
                crate::nclog!(
                    Level::Error,
                    "s3 store: {}/{}: the server sent more than the {} bytes it announced",
                    self.name,
                    r.key.as_str(),
                    r.len
                );
                return Err(StoreError::Remote);
            }
            for (j, &(_, at, n)) in r.pieces.iter().enumerate() {
                let (lo, hi) = (at.max(pos), (at + n).min(end));
                if !done[j] && lo < hi {
                    bufs[j].extend_from_slice(&part[(lo - pos) as usize..(hi - pos) as usize]);
                }
            }
            pos = end;
        }
        if pos != r.len {
            crate::nclog!(
                Level::Error,
                "s3 store: {}/{}: body ended after {} of {} bytes",
                self.name,
                r.key.as_str(),
                pos,
                r.len
            );
            return Err(StoreError::Remote);
        }
        Ok(())
    }

    async fn put_async(&self, key: &Key, data: &[u8]) -> StoreResult<()> {
        self.put_parts_async(key, Pieces::Borrowed(&[data])).await
    }

    /// One PUT of the parts joined, or a multipart upload fed from the parts
    /// as they are (a shard: its chunks and its index, never joined first).
    async fn put_parts_async(&self, key: &Key, parts: Pieces<'_>) -> StoreResult<()> {
        let path = self.path(key)?;
        let total = parts.total().ok_or(StoreError::OutOfMemory)?;
        if total < self.opts.multipart_threshold {
            let payload = parts.into_payload();
            let _permit = self.permit().await?;
            return match self.client.put(&path, payload).await {
                Ok(_) => Ok(()),
                Err(e) => Err(self.fail(Op::Put, key.as_str(), &e)),
            };
        }
        let _permit = self.permit().await?;
        let upload = self
            .client
            .put_multipart(&path)
            .await
            .map_err(|e| self.fail(Op::Put, key.as_str(), &e))?;
        let mut w = WriteMultipart::new_with_chunk_size(upload, self.opts.part_size);
        // Borrowed parts are copied a part at a time, owned ones are sent
        // from their own buffers; either way at most four parts in flight.
        let pieces: Box<dyn Iterator<Item = Piece<'_>> + Send + '_> = match parts {
            Pieces::Borrowed(b) => Box::new(
                b.iter()
                    .flat_map(|p| p.chunks(self.opts.part_size))
                    .map(Piece::Borrowed),
            ),
            Pieces::Owned(o) => Box::new(o.into_iter().map(Piece::Owned)),
        };
        for piece in pieces {
            if let Err(e) = w.wait_for_capacity(4).await {
                let err = self.fail(Op::Put, key.as_str(), &e);
                let _ = w.abort().await;
                return Err(err);
            }
            match piece {
                Piece::Borrowed(b) => w.write(b),
                Piece::Owned(b) => w.put(b),
            }
        }
        match w.finish().await {
            Ok(_) => Ok(()),
            // finish aborts the upload itself when a part failed.
            Err(e) => Err(self.fail(Op::Put, key.as_str(), &e)),
        }
    }

    async fn delete_async(&self, key: &Key) -> StoreResult<()> {
        let mut doomed: Vec<Path> = Vec::new();
        if !key.is_root() {
            doomed.push(self.path(key)?);
        }
        let dir = self.dir(key)?;
        {
            let _permit = self.permit().await?;
            let mut listing = self.client.list(dir.as_ref());
            while let Some(m) = listing.next().await {
                match m {
                    Ok(m) => doomed.push(m.location),
                    Err(e) => return Err(self.fail(Op::List, key.as_str(), &e)),
                }
            }
        }
        let _permit = self.permit().await?;
        let stream = futures::stream::iter(doomed.into_iter().map(Ok)).boxed();
        let mut results = self.client.delete_stream(stream);
        while let Some(r) = results.next().await {
            match r {
                Ok(_) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(self.fail(Op::Delete, key.as_str(), &e)),
            }
        }
        Ok(())
    }

    async fn list_async(&self, prefix: &Key) -> StoreResult<Vec<String>> {
        let dir = self.dir(prefix)?;
        let _permit = self.permit().await?;
        let r = self
            .client
            .list_with_delimiter(dir.as_ref())
            .await
            .map_err(|e| self.fail(Op::List, prefix.as_str(), &e))?;
        let mut names: Vec<String> = r
            .common_prefixes
            .iter()
            .chain(r.objects.iter().map(|o| &o.location))
            .filter_map(|p| p.filename().map(str::to_string))
            .collect();
        names.sort_unstable();
        names.dedup();
        Ok(names)
    }

    /// Fetch several whole objects concurrently (bounded by the store's
    /// concurrency): for each key, its content or None when absent.
    fn get_many_async(&self, keys: &[(Key, u64)]) -> Vec<StoreResult<Option<Vec<u8>>>> {
        let fut = futures::stream::iter(keys.iter().map(|(k, max)| async move {
            let mut buf = Vec::new();
            Ok(self.get_async(k, *max, &mut buf).await?.then_some(buf))
        }))
        .buffered(self.opts.concurrency)
        .collect::<Vec<_>>();
        match block_on(fut) {
            Ok(v) => v,
            Err(e) => keys.iter().map(|_| Err(e)).collect(),
        }
    }

    /// Store several objects concurrently: one result per object.
    fn put_many_async(&self, objs: &[(Key, Vec<u8>)]) -> Vec<StoreResult<()>> {
        self.put_each(
            objs.len(),
            objs.iter().map(|(k, b)| async move {
                if k.is_root() {
                    return Err(StoreError::InvalidKey);
                }
                self.put_async(k, b).await
            }),
        )
    }

    /// `put_many_async` of owned objects, each sent from its own buffer.
    fn put_many_owned_async(&self, objs: Vec<(Key, Vec<u8>)>) -> Vec<StoreResult<()>> {
        self.put_each(
            objs.len(),
            objs.into_iter().map(|(k, b)| async move {
                if k.is_root() {
                    return Err(StoreError::InvalidKey);
                }
                self.put_parts_async(&k, Pieces::Owned(vec![Bytes::from(b)])).await
            }),
        )
    }

    /// Run `n` PUTs (`puts`, in order), up to `concurrency` at once: one
    /// result per PUT, in order; every one fails alike when the store is
    /// read-only or the runtime cannot run them.
    fn put_each<F>(&self, n: usize, puts: impl Iterator<Item = F> + Send) -> Vec<StoreResult<()>>
    where
        F: std::future::Future<Output = StoreResult<()>> + Send,
    {
        if let Err(e) = self.check_writable() {
            return vec![Err(e); n];
        }
        let fut = futures::stream::iter(puts)
            .buffered(self.opts.concurrency)
            .collect::<Vec<_>>();
        match block_on(fut) {
            Ok(v) => v,
            Err(e) => vec![Err(e); n],
        }
    }
}

impl Store for S3Store {
    fn get(&self, key: &Key, max_len: u64) -> StoreResult<Option<Vec<u8>>> {
        let mut buf = Vec::new();
        Ok(self.get_into(key, max_len, &mut buf)?.then_some(buf))
    }

    fn get_into(&self, key: &Key, max_len: u64, buf: &mut Vec<u8>) -> StoreResult<bool> {
        block_on(self.get_async(key, max_len, buf))?
    }

    fn get_range(&self, key: &Key, offset: u64, len: u64) -> StoreResult<Option<Vec<u8>>> {
        block_on(self.get_range_async(key, offset, len))?
    }

    /// One ranged GET, whose answer tells the object's size: no HEAD.
    fn get_range_sized(&self, key: &Key, at: RangeAt, len: u64) -> StoreResult<Option<(Vec<u8>, u64)>> {
        block_on(self.get_range_sized_async(key, at, len))?
    }

    /// One ranged GET covering the parts when they need less than half of
    /// the chunk; else the whole object.
    fn read_parts(&self, key: &Key, expect_len: u64, parts: &mut [(u64, &mut [u8])]) -> StoreResult<bool> {
        let lo = parts.iter().map(|(o, _)| *o).min().unwrap_or(0);
        let hi = parts
            .iter()
            .map(|(o, d)| o.saturating_add(d.len() as u64))
            .max()
            .unwrap_or(0);
        if parts.is_empty() || hi > expect_len || hi - lo >= expect_len / 2 {
            let Some(obj) = self.get(key, expect_len)? else {
                return Ok(false);
            };
            super::copy_parts(key, &obj, expect_len, parts)?;
            return Ok(true);
        }
        let Some((bytes, total)) = block_on(self.get_range_sized_async(key, RangeAt::Offset(lo), hi - lo))?? else {
            return Ok(false);
        };
        super::check_parts(key, total, expect_len, parts)?;
        for (off, dst) in parts.iter_mut() {
            let o = usize::try_from(*off - lo).map_err(|_| StoreError::Internal)?;
            let src = bytes.get(o..o + dst.len()).ok_or(StoreError::Internal)?;
            dst.copy_from_slice(src);
        }
        Ok(true)
    }

    fn concurrent_requests(&self) -> bool {
        true
    }

    fn get_many(&self, keys: &[(Key, u64)]) -> Vec<StoreResult<Option<Vec<u8>>>> {
        self.get_many_async(keys)
    }

    /// The GETs run on the private runtime, at most `concurrency` at a time,
    /// and each object is handed over the moment it has arrived.
    fn start_get_many(&self, keys: Vec<(Key, u64)>) -> Arc<super::Arrivals> {
        let arrivals = super::Arrivals::new(keys.len());
        let rt = match runtime() {
            Ok(rt) => rt,
            Err(e) => {
                arrivals.fail_pending(e);
                return arrivals;
            }
        };
        let me = self.clone();
        let guard = FailPending(arrivals.clone());
        rt.spawn(async move {
            let guard = guard;
            let me = &me;
            let mut done = futures::stream::iter(keys.into_iter().enumerate().map(|(i, (k, max))| async move {
                let mut buf = Vec::new();
                let r = me.get_async(&k, max, &mut buf).await.map(|found| found.then_some(buf));
                (i, r)
            }))
            .buffer_unordered(me.opts.concurrency);
            while let Some((i, r)) = done.next().await {
                guard.0.deliver(i, r);
            }
        });
        arrivals
    }

    /// The ranged GETs run on the private runtime as `start_get_many`'s
    /// GETs do; each piece is handed over the moment its bytes are in.
    fn start_get_ranges(&self, slots: usize, reads: Vec<RangeRead>) -> Arc<super::Arrivals> {
        let arrivals = super::Arrivals::new(slots);
        let rt = match runtime() {
            Ok(rt) => rt,
            Err(e) => {
                arrivals.fail_pending(e);
                return arrivals;
            }
        };
        let me = self.clone();
        let guard = FailPending(arrivals.clone());
        rt.spawn(async move {
            let guard = guard;
            let me = &me;
            let arrivals: &super::Arrivals = &guard.0;
            let mut done = futures::stream::iter(reads.into_iter().map(|r| async move {
                me.get_pieces(&r, arrivals).await;
            }))
            .buffer_unordered(me.opts.concurrency);
            while done.next().await.is_some() {}
        });
        arrivals
    }

    fn put_many(&self, objs: &[(Key, Vec<u8>)]) -> Vec<StoreResult<()>> {
        self.put_many_async(objs)
    }

    fn put_many_owned(&self, objs: Vec<(Key, Vec<u8>)>) -> Vec<StoreResult<()>> {
        self.put_many_owned_async(objs)
    }

    fn len(&self, key: &Key) -> StoreResult<Option<u64>> {
        block_on(self.head_async(key))?
    }

    fn put(&self, key: &Key, data: &[u8]) -> StoreResult<()> {
        self.check_object_write(key)?;
        block_on(self.put_async(key, data))?
    }

    fn put_parts(&self, key: &Key, parts: &[&[u8]]) -> StoreResult<()> {
        self.check_object_write(key)?;
        block_on(self.put_parts_async(key, Pieces::Borrowed(parts)))?
    }

    fn put_owned(&self, key: &Key, parts: Vec<Vec<u8>>) -> StoreResult<()> {
        self.check_object_write(key)?;
        let parts = parts.into_iter().map(Bytes::from).collect();
        block_on(self.put_parts_async(key, Pieces::Owned(parts)))?
    }

    fn delete(&self, key: &Key) -> StoreResult<()> {
        self.check_writable()?;
        block_on(self.delete_async(key))?
    }

    fn list(&self, prefix: &Key) -> StoreResult<Vec<String>> {
        block_on(self.list_async(prefix))?
    }

    /// A PUT that returned is durable: nothing to do, at either level.
    fn flush(&self, _level: Durability) -> StoreResult<()> {
        Ok(())
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            write_once: false,
            ranged_reads: true,
        }
    }
}

/// The answer to a ranged GET.
enum Ranged {
    Absent,
    /// Nothing to read, from an object of this size.
    Empty(u64),
    /// The range's body is coming.
    Body(object_store::GetResult),
}

/// Whatever happens to a fetching task, nobody waits forever: what it has
/// not delivered when it ends (or is dropped) fails.
struct FailPending(Arc<super::Arrivals>);

impl Drop for FailPending {
    fn drop(&mut self) {
        self.0.fail_pending(StoreError::Remote);
    }
}

/// Open or create the S3 dataset at `url` (without fragment) with the given
/// fragment pairs: `create` is `Some(what it may replace)` to create.
pub fn open_url(
    url: &str,
    fragment: &[(String, String)],
    create: Option<Replace<'_>>,
    writable: bool,
) -> StoreResult<S3Store> {
    let env = Environment::from_process();
    let cfg = config::resolve(url, fragment, &env)?;
    crate::nclog!(Level::Note, "s3 store: {:?}", cfg);
    let opts = S3Options::from_env();
    match create {
        Some(replace) => S3Store::create(&cfg, replace, opts),
        None => S3Store::open(&cfg, writable, opts),
    }
}

// The engine calls a store from several threads at once.
const _: fn() = || {
    fn is_sync<T: Send + Sync>() {}
    is_sync::<S3Store>();
};

#[cfg(test)]
mod tests {
    use super::sign_payload_by_default as signed;

    #[test]
    fn payloads_are_signed_only_over_plain_http_to_another_machine() {
        assert!(!signed(None)); // AWS, over HTTPS
        assert!(!signed(Some("https://s3.example.org")));
        assert!(!signed(Some("https://10.0.0.5:9000/")));
        for local in [
            "http://127.0.0.1:17480",
            "http://127.9.9.9/",
            "http://localhost:9000",
            "http://LOCALHOST",
            "http://[::1]:9000/x",
            "http://user@127.0.0.1:80",
        ] {
            assert!(!signed(Some(local)), "{local}");
        }
        for remote in [
            "http://10.0.0.5:9000",
            "http://minio.internal",
            "http://[2001:db8::1]:9000",
            "http://localhost.example.org",
            "http://127.0.0.1.example.org",
            "HTTP://10.0.0.5",
        ] {
            assert!(signed(Some(remote)), "{remote}");
        }
    }
}
