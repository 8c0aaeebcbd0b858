//! Where an S3 dataset lives and how to reach it: bucket, key prefix,
//! endpoint, region and credentials, from the URL, its fragment, the
//! environment, `~/.aws/config`, `~/.aws/credentials` and netcdf-c's `.rc`
//! files.
//!
//! URL forms (the fragment is passed separately):
//! - `https://<bucket>.s3.<region>.amazonaws.com/<key>` (virtual-hosted; also
//!   `<bucket>.s3.amazonaws.com` and `<bucket>.s3-<region>.amazonaws.com`);
//! - `https://s3.<region>.amazonaws.com/<bucket>/<key>` (path style; also
//!   `s3.amazonaws.com` and `s3-<region>.amazonaws.com`);
//! - `s3://<bucket>/<key>`: AWS itself, or the endpoint of `AWS_ENDPOINT_URL_S3`,
//!   `AWS_ENDPOINT_URL` or the profile's `endpoint_url`;
//! - `gs3://<bucket>/<key>`: Google Cloud Storage's S3 interface
//!   (`https://storage.googleapis.com`);
//! - any other `http(s)://host[:port]/<bucket>/<key>`: an S3-compatible server
//!   addressed path-style (plain `http` allowed).
//!
//! The `url` crate parses the URL (user information is refused, the query is
//! ignored, path segments are percent-decoded); what is left here is which
//! host names are AWS's and where they put the bucket. object_store's
//! `AmazonS3Builder::with_url` does not take that over: it knows only
//! `s3.R.amazonaws.com`, `B.s3[.R].amazonaws.com` and `s3://` (not
//! `s3.amazonaws.com`, `s3-R.amazonaws.com`, `gs3://` or other servers), drops
//! the key prefix, and lets the host's region override `aws.region`. The
//! builder gets the resolved bucket, region, endpoint and addressing style
//! instead, and derives AWS's own endpoints from them.
//!
//! Profile: the `aws.profile` fragment key, the `.rc` key `AWS.PROFILE`,
//! `AWS_PROFILE`, else `default` (netcdf-c 4.10.1's order). The profiles `none`
//! and `no` mean unsigned requests.
//!
//! Region: the `aws.region` fragment key; the region named in an
//! `amazonaws.com` host; the active profile's `region` (or `aws_region`); the
//! `.rc` key `AWS.REGION`; `AWS_REGION`; `AWS_DEFAULT_REGION`; `us-east-1`.
//!
//! Credentials: none for the profiles `none`/`no`; for the profile `default`,
//! `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`) when
//! both are set (they replace the default profile, as in netcdf-c 4.10.1);
//! otherwise the profile's `aws_access_key_id`, `aws_secret_access_key`,
//! `aws_session_token`. A profile without keys (or a missing `default`)
//! makes unsigned requests; a profile named explicitly that exists nowhere
//! is an error. Keys are never printed: `Debug` hides them.
//!
//! Profiles are read from `AWS_CONFIG_FILE` (default `~/.aws/config`, sections
//! `[default]` and `[profile NAME]`), then `AWS_SHARED_CREDENTIALS_FILE`
//! (default `~/.aws/credentials`, sections `[NAME]`); the later file wins per
//! key. The `.rc` files are netcdf-c's: `NCRCENV_RC` names the only one;
//! otherwise `.ncrc`, `.daprc`, `.dodsrc` in `NCRCENV_HOME` (default `$HOME`),
//! then in the working directory, later files overriding earlier ones;
//! `NCRCENV_IGNORE` turns them off. An entry is `KEY=VALUE` or
//! `[host[:port][/path]] KEY=VALUE` (applies to URLs of that host and path prefix).
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::log::Level;
use crate::storage::{StoreError, StoreResult};

/// The largest configuration file read (bytes); larger ones are ignored.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Where and how to reach an S3 dataset.
#[derive(Clone, PartialEq, Eq)]
pub struct S3Config {
    pub bucket: String,
    /// Key prefix of the dataset inside the bucket: no leading or trailing
    /// '/', empty for the bucket's root.
    pub prefix: String,
    /// `scheme://host[:port]`, or None for AWS's own endpoint of the region.
    pub endpoint: Option<String>,
    /// Bucket in the host name (AWS virtual-hosted style).
    pub virtual_hosted: bool,
    pub region: String,
    pub profile: String,
    pub credentials: Option<Credentials>,
}

#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub key_id: String,
    pub secret: String,
    pub token: Option<String>,
}

impl std::fmt::Debug for S3Config {
    // Not derived: credentials must never reach a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Config")
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .field("endpoint", &self.endpoint)
            .field("virtual_hosted", &self.virtual_hosted)
            .field("region", &self.region)
            .field("profile", &self.profile)
            .field("signed", &self.credentials.is_some())
            .finish()
    }
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credentials(..)")
    }
}

impl S3Config {
    /// A human name for log lines: `s3://bucket/prefix` (and the endpoint).
    pub fn describe(&self) -> String {
        match &self.endpoint {
            Some(e) => format!("s3://{}/{} at {}", self.bucket, self.prefix, e),
            None => format!("s3://{}/{} ({})", self.bucket, self.prefix, self.region),
        }
    }
}

/// Everything outside the URL that the lookup reads, gathered once so that
/// tests can supply their own.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    pub vars: BTreeMap<String, String>,
    /// Profiles: name -> key -> value (config first, credentials overriding).
    pub profiles: BTreeMap<String, BTreeMap<String, String>>,
    pub rc: Vec<RcEntry>,
}

/// One `.rc` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RcEntry {
    /// `host[:port]`, lower case, or None for every URL.
    pub host: Option<String>,
    /// URL path prefix ("" for any).
    pub path: String,
    pub key: String,
    pub value: String,
}

const ENV_NAMES: &[&str] = &[
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "HOME",
    "NCRCENV_RC",
    "NCRCENV_HOME",
    "NCRCENV_IGNORE",
];

impl Environment {
    /// The process environment and the files it names.
    pub fn from_process() -> Environment {
        let mut vars = BTreeMap::new();
        for name in ENV_NAMES {
            if let Ok(v) = std::env::var(name)
                && !v.is_empty()
            {
                vars.insert((*name).to_string(), v);
            }
        }
        let mut env = Environment {
            vars,
            ..Environment::default()
        };
        let home = env.vars.get("HOME").map(PathBuf::from);
        let config = env
            .vars
            .get("AWS_CONFIG_FILE")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws/config")));
        let creds = env
            .vars
            .get("AWS_SHARED_CREDENTIALS_FILE")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws/credentials")));
        for (path, is_config) in [(config, true), (creds, false)] {
            if let Some(text) = path.as_deref().and_then(read_small) {
                merge_profiles(&mut env.profiles, &text, is_config);
            }
        }
        if !env.vars.contains_key("NCRCENV_IGNORE") {
            for path in rc_files(&env.vars) {
                if let Some(text) = read_small(&path) {
                    env.rc.extend(parse_rc(&text));
                }
            }
        }
        env
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// The `.rc` value of `key` for a URL of `host`/`path`: a matching
    /// host-specific entry first, then a generic one; the last file wins.
    fn rc_lookup(&self, key: &str, host: &str, path: &str) -> Option<&str> {
        let host = host.to_ascii_lowercase();
        let specific = self.rc.iter().rev().find(|e| {
            e.key.eq_ignore_ascii_case(key) && e.host.as_deref() == Some(host.as_str()) && path.starts_with(&e.path)
        });
        let generic = || {
            self.rc
                .iter()
                .rev()
                .find(|e| e.key.eq_ignore_ascii_case(key) && e.host.is_none())
        };
        specific.or_else(generic).map(|e| e.value.as_str())
    }
}

/// A configuration file's text, or None when absent, unreadable, too large
/// or not UTF-8 (logged).
fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_CONFIG_BYTES {
        crate::nclog!(
            Level::Warn,
            "s3: ignoring {} (not a small regular file)",
            path.display()
        );
        return None;
    }
    match std::fs::read(path).map(String::from_utf8) {
        Ok(Ok(s)) => Some(s),
        _ => {
            crate::nclog!(Level::Warn, "s3: cannot read {}", path.display());
            None
        }
    }
}

/// netcdf-c's `.rc` search: `NCRCENV_RC` alone, or `.ncrc`, `.daprc`,
/// `.dodsrc` in the rc home, then in the working directory.
fn rc_files(vars: &BTreeMap<String, String>) -> Vec<PathBuf> {
    if let Some(f) = vars.get("NCRCENV_RC") {
        return vec![PathBuf::from(f)];
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(h) = vars.get("NCRCENV_HOME").or_else(|| vars.get("HOME")) {
        dirs.push(PathBuf::from(h));
    }
    if let Ok(cwd) = std::env::current_dir()
        && !dirs.contains(&cwd)
    {
        dirs.push(cwd);
    }
    dirs.iter()
        .flat_map(|d| [".ncrc", ".daprc", ".dodsrc"].map(|n| d.join(n)))
        .collect()
}

/// Parse `.rc` text: `KEY=VALUE` or `[host[:port][/path]] KEY=VALUE` lines,
/// `#` comments, blank lines; malformed lines are skipped.
pub fn parse_rc(text: &str) -> Vec<RcEntry> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (prefix, rest) = match line.strip_prefix('[') {
            Some(r) => match r.split_once(']') {
                Some((p, rest)) => (Some(p.trim()), rest.trim()),
                None => continue,
            },
            None => (None, line),
        };
        let (key, value) = match rest.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (rest, "1"),
        };
        if key.is_empty() {
            continue;
        }
        let (host, path) = match prefix {
            None | Some("") => (None, String::new()),
            Some(p) => {
                // A URL prefix may carry a scheme and user info; keep host[:port]/path.
                let p = p.split_once("://").map_or(p, |(_, r)| r);
                let p = p.rsplit_once('@').map_or(p, |(_, r)| r);
                match p.split_once('/') {
                    Some((h, path)) => (Some(h.to_ascii_lowercase()), format!("/{path}")),
                    None => (Some(p.to_ascii_lowercase()), String::new()),
                }
            }
        };
        out.push(RcEntry {
            host,
            path,
            key: key.to_string(),
            value: value.to_string(),
        });
    }
    out
}

/// Merge an AWS config (`[profile NAME]`, `[default]`) or credentials
/// (`[NAME]`) file into `profiles`; later values override earlier ones.
/// Keys are lower case; `#`/`;` start comments; nested (indented) settings
/// of sub-sections are kept under their own key names.
pub fn merge_profiles(profiles: &mut BTreeMap<String, BTreeMap<String, String>>, text: &str, is_config: bool) {
    let mut current: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        if let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let inner = inner.trim();
            let name = if is_config {
                match inner.strip_prefix("profile") {
                    Some(rest) if rest.starts_with([' ', '\t']) => rest.trim(),
                    _ => inner,
                }
            } else {
                inner
            };
            current = (!name.is_empty()).then(|| name.to_string());
            if let Some(n) = &current {
                profiles.entry(n.clone()).or_default();
            }
            continue;
        }
        let (Some(name), Some((k, v))) = (&current, t.split_once('=')) else {
            continue;
        };
        let k = k.trim().to_ascii_lowercase();
        if k.is_empty() {
            continue;
        }
        profiles
            .entry(name.clone())
            .or_default()
            .insert(k, v.trim().to_string());
    }
}

/// What the URL itself says.
#[derive(Debug, Clone, PartialEq, Eq)]
struct UrlParts {
    scheme: String,
    /// `host[:port]` as written (lower case).
    hostport: String,
    bucket: String,
    prefix: String,
    /// The URL's path, for `.rc` matching.
    path: String,
    endpoint: Option<String>,
    virtual_hosted: bool,
    host_region: Option<String>,
    /// `s3://` / `gs3://`: the endpoint may come from the environment.
    endpoint_from_env: bool,
}

fn decode(s: &str) -> StoreResult<String> {
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .map(|c| c.into_owned())
        .map_err(|_| {
            crate::nclog!(Level::Error, "s3: URL path is not UTF-8 after decoding");
            StoreError::InvalidUrl
        })
}

/// The region in an AWS host name (`s3.R.amazonaws.com`, `s3-R.amazonaws.com`,
/// `s3.dualstack.R.amazonaws.com`); None for the global `s3.amazonaws.com`.
fn aws_region_of(rest: &str) -> Option<String> {
    // `rest` is what follows "s3" up to ".amazonaws.com": "", ".R", "-R", ".dualstack.R".
    let r = rest.strip_prefix(".dualstack").unwrap_or(rest);
    let r = r.strip_prefix('.').or_else(|| r.strip_prefix('-'))?;
    (!r.is_empty() && !r.contains('.')).then(|| r.to_string())
}

/// How an `amazonaws.com` host addresses a bucket.
#[derive(Debug, PartialEq, Eq)]
enum AwsHost {
    /// `s3[.-]R.amazonaws.com`: the bucket is the first path segment.
    PathStyle { region: Option<String> },
    /// `<bucket>.s3[.-]R.amazonaws.com`.
    VirtualHosted { bucket: String, region: Option<String> },
}

/// netcdf-c's reading of an AWS host name (lower case); None for any other host.
fn aws_host(host: &str) -> Option<AwsHost> {
    let front = host.strip_suffix(".amazonaws.com")?;
    if let Some(rest) = front.strip_prefix("s3")
        && (rest.is_empty() || rest.starts_with(['.', '-']))
    {
        return Some(AwsHost::PathStyle {
            region: aws_region_of(rest),
        });
    }
    let i = front.find(".s3")?;
    let rest = &front[i + 3..];
    (rest.is_empty() || rest.starts_with(['.', '-'])).then(|| AwsHost::VirtualHosted {
        bucket: front[..i].to_string(),
        region: aws_region_of(rest),
    })
}

/// Split a dataset URL into what it says. The `url` crate parses it (scheme,
/// user information, host, port, IPv6 literals, dot segments); this decides
/// where the bucket and the key prefix are, as netcdf-c does.
fn parse_url(url: &str) -> StoreResult<UrlParts> {
    let bad = |why: &str| {
        crate::nclog!(Level::Error, "s3: {url}: {why}");
        StoreError::InvalidUrl
    };
    // An empty authority has no host: WHATWG parsing would take the first
    // path segment for one ("http:///b/k" as host "b").
    if url.split_once("://").is_some_and(|(_, rest)| rest.starts_with('/')) {
        return Err(bad("no host"));
    }
    let u = url::Url::parse(url).map_err(|e| bad(&format!("not a URL ({e})")))?;
    if !u.username().is_empty() || u.password().is_some() {
        return Err(bad("user information in an S3 URL is not supported (use a profile)"));
    }
    let scheme = u.scheme().to_string();
    // Hosts of http(s) URLs come lower case; those of s3:// and gs3:// as
    // written (and percent-encoded): bucket names are lower case.
    let host = u
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| bad("no host"))?
        .to_ascii_lowercase();
    let hostport = match u.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.clone(),
    };
    let path = u.path().to_string();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let join = |segs: &[&str]| -> StoreResult<String> {
        let parts: StoreResult<Vec<String>> = segs.iter().map(|s| decode(s)).collect();
        Ok(parts?.join("/"))
    };
    let in_host = |endpoint: Option<String>, from_env: bool| -> StoreResult<UrlParts> {
        Ok(UrlParts {
            scheme: scheme.clone(),
            hostport: hostport.clone(),
            bucket: decode(&host)?,
            prefix: join(&segments)?,
            path: path.clone(),
            endpoint,
            virtual_hosted: false,
            host_region: None,
            endpoint_from_env: from_env,
        })
    };
    let path_style = |endpoint: Option<String>, host_region: Option<String>| -> StoreResult<UrlParts> {
        let Some((bucket, key)) = segments.split_first() else {
            return Err(bad("no bucket in the URL path"));
        };
        Ok(UrlParts {
            scheme: scheme.clone(),
            hostport: hostport.clone(),
            bucket: decode(bucket)?,
            prefix: join(key)?,
            path: path.clone(),
            endpoint,
            virtual_hosted: false,
            host_region,
            endpoint_from_env: false,
        })
    };
    match scheme.as_str() {
        "s3" => in_host(None, true),
        "gs3" => in_host(Some("https://storage.googleapis.com".to_string()), false),
        "http" | "https" => match aws_host(&host) {
            Some(AwsHost::PathStyle { region }) => path_style(None, region),
            Some(AwsHost::VirtualHosted { bucket, region }) => Ok(UrlParts {
                scheme: scheme.clone(),
                hostport: hostport.clone(),
                bucket,
                prefix: join(&segments)?,
                path: path.clone(),
                endpoint: None,
                virtual_hosted: true,
                host_region: region,
                endpoint_from_env: false,
            }),
            None => path_style(Some(format!("{scheme}://{hostport}")), None),
        },
        _ => Err(bad("not an s3, gs3, http or https URL")),
    }
}

/// An endpoint URL (`AWS_ENDPOINT_URL`, a profile's `endpoint_url`): http or
/// https with a host, without a trailing '/'.
fn check_endpoint(e: &str) -> StoreResult<String> {
    match url::Url::parse(e) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty()) => {
            Ok(e.trim_end_matches('/').to_string())
        }
        _ => {
            crate::nclog!(Level::Error, "s3: endpoint {e:?} is not an http(s) URL");
            Err(StoreError::InvalidUrl)
        }
    }
}

fn is_unsigned_profile(p: &str) -> bool {
    p == "none" || p == "no"
}

/// Resolve an S3 dataset URL (without fragment) and its fragment pairs (keys
/// lower case) against `env`.
pub fn resolve(url: &str, fragment: &[(String, String)], env: &Environment) -> StoreResult<S3Config> {
    let parts = parse_url(url)?;
    if parts.bucket.is_empty() {
        crate::nclog!(Level::Error, "s3: {url}: no bucket");
        return Err(StoreError::InvalidUrl);
    }
    let frag = |k: &str| {
        fragment
            .iter()
            .find(|(fk, v)| fk == k && !v.is_empty())
            .map(|(_, v)| v.as_str())
    };
    let rc = |k: &str| env.rc_lookup(k, &parts.hostport, &parts.path);

    let explicit_profile = frag("aws.profile")
        .or_else(|| rc("AWS.PROFILE"))
        .or_else(|| env.var("AWS_PROFILE"));
    let profile = explicit_profile.unwrap_or("default").to_string();
    let entries = env.profiles.get(&profile);
    if explicit_profile.is_some() && entries.is_none() && !is_unsigned_profile(&profile) && profile != "default" {
        crate::nclog!(
            Level::Error,
            "s3: profile {:?} is not in the AWS config or credentials file",
            profile
        );
        return Err(StoreError::Remote);
    }
    let pget = |k: &str| {
        entries
            .and_then(|e| e.get(k))
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    };

    let region = frag("aws.region")
        .map(str::to_string)
        .or_else(|| parts.host_region.clone())
        .or_else(|| pget("region").or_else(|| pget("aws_region")).map(str::to_string))
        .or_else(|| rc("AWS.REGION").map(str::to_string))
        .or_else(|| env.var("AWS_REGION").map(str::to_string))
        .or_else(|| env.var("AWS_DEFAULT_REGION").map(str::to_string))
        .unwrap_or_else(|| "us-east-1".to_string());

    let credentials = if is_unsigned_profile(&profile) {
        None
    } else {
        let from_env = (profile == "default")
            .then(|| {
                Some(Credentials {
                    key_id: env.var("AWS_ACCESS_KEY_ID")?.to_string(),
                    secret: env.var("AWS_SECRET_ACCESS_KEY")?.to_string(),
                    token: env.var("AWS_SESSION_TOKEN").map(str::to_string),
                })
            })
            .flatten();
        from_env.or_else(|| {
            Some(Credentials {
                key_id: pget("aws_access_key_id")?.to_string(),
                secret: pget("aws_secret_access_key")?.to_string(),
                token: pget("aws_session_token").map(str::to_string),
            })
        })
    };
    if credentials.is_none() && !is_unsigned_profile(&profile) {
        crate::nclog!(
            Level::Note,
            "s3: profile {:?} has no keys: requests are unsigned",
            profile
        );
    }

    let endpoint = if parts.endpoint_from_env {
        env.var("AWS_ENDPOINT_URL_S3")
            .or_else(|| env.var("AWS_ENDPOINT_URL"))
            .or_else(|| pget("endpoint_url"))
            .map(check_endpoint)
            .transpose()?
    } else {
        parts.endpoint.clone()
    };
    let _ = &parts.scheme;
    Ok(S3Config {
        bucket: parts.bucket,
        prefix: parts.prefix,
        virtual_hosted: parts.virtual_hosted && endpoint.is_none(),
        endpoint,
        region,
        profile,
        credentials,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Environment {
        Environment::default()
    }

    fn frag(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn url_forms() {
        let c = resolve("https://mybucket.s3.us-west-2.amazonaws.com/a/b.zarr", &[], &env()).unwrap();
        assert_eq!((c.bucket.as_str(), c.prefix.as_str()), ("mybucket", "a/b.zarr"));
        assert_eq!(c.region, "us-west-2");
        assert!(c.virtual_hosted);
        assert_eq!(c.endpoint, None);

        let c = resolve("https://s3.eu-central-1.amazonaws.com/bkt/ds", &[], &env()).unwrap();
        assert_eq!((c.bucket.as_str(), c.prefix.as_str()), ("bkt", "ds"));
        assert_eq!(c.region, "eu-central-1");
        assert!(!c.virtual_hosted);

        let c = resolve("https://s3.amazonaws.com/bkt/x/y/", &[], &env()).unwrap();
        assert_eq!(
            (c.bucket.as_str(), c.prefix.as_str(), c.region.as_str()),
            ("bkt", "x/y", "us-east-1")
        );
        let c = resolve("https://bkt.s3.amazonaws.com/k", &[], &env()).unwrap();
        assert_eq!((c.bucket.as_str(), c.region.as_str()), ("bkt", "us-east-1"));
        let c = resolve("https://s3-eu-west-1.amazonaws.com/b/k", &[], &env()).unwrap();
        assert_eq!(c.region, "eu-west-1");

        let c = resolve("s3://bkt/some/key", &[], &env()).unwrap();
        assert_eq!((c.bucket.as_str(), c.prefix.as_str()), ("bkt", "some/key"));
        assert_eq!(c.endpoint, None);
        let c = resolve("s3://bkt", &[], &env()).unwrap();
        assert_eq!(c.prefix, "");

        let c = resolve("http://127.0.0.1:7480/bkt/d%20s.zarr?x=1", &[], &env()).unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("http://127.0.0.1:7480"));
        assert_eq!((c.bucket.as_str(), c.prefix.as_str()), ("bkt", "d s.zarr"));
        assert!(!c.virtual_hosted);

        let c = resolve("gs3://gb/k", &[], &env()).unwrap();
        assert_eq!(c.endpoint.as_deref(), Some("https://storage.googleapis.com"));

        for bad in [
            "http://127.0.0.1:7480/",
            "ftp://x/y",
            "https://u:p@h/b/k",
            "https://user@h/b/k",
            "http://h:port/b/k",
            "http://h:99999/b/k",
            "http:///b/k",
            "s3:///k",
            "noscheme",
            "",
        ] {
            assert_eq!(resolve(bad, &[], &env()), Err(StoreError::InvalidUrl), "{bad}");
        }
    }

    /// What the URL parser normalises: case, default ports, IPv6 literals,
    /// dot segments, empty segments, percent-encoding.
    #[test]
    fn url_normalisation() {
        let parts = |u: &str| {
            let c = resolve(u, &[], &env()).unwrap();
            (c.bucket, c.prefix, c.endpoint, c.region, c.virtual_hosted)
        };
        let s = |x: &str| x.to_string();
        assert_eq!(
            parts("http://[::1]:9000/bkt/k"),
            (s("bkt"), s("k"), Some(s("http://[::1]:9000")), s("us-east-1"), false)
        );
        assert_eq!(
            parts("https://h.example:443/b//k/"),
            (s("b"), s("k"), Some(s("https://h.example")), s("us-east-1"), false)
        );
        assert_eq!(
            parts("HTTPS://S3.EU-WEST-1.AMAZONAWS.COM/Bkt/K"),
            (s("Bkt"), s("K"), None, s("eu-west-1"), false)
        );
        assert_eq!(
            parts("https://MyBkt.S3.us-west-2.amazonaws.com/a/./b/../c%2Fd"),
            (s("mybkt"), s("a/c/d"), None, s("us-west-2"), true)
        );
        assert_eq!(parts("s3://BKT/a/../b").0, "bkt");
        assert_eq!(parts("s3://BKT/a/../b").1, "b");
        assert_eq!(parts("s3://b%2Dx/k%20l").0, "b-x");
        assert_eq!(parts("s3://b%2Dx/k%20l").1, "k l");
        assert_eq!(parts("https://s3.dualstack.ap-east-1.amazonaws.com/b/k").3, "ap-east-1");
        // Only amazonaws.com hosts are AWS's.
        assert_eq!(
            parts("https://b.s3.us-west-2.amazonaws.com.evil.example/b2/k"),
            (
                s("b2"),
                s("k"),
                Some(s("https://b.s3.us-west-2.amazonaws.com.evil.example")),
                s("us-east-1"),
                false
            )
        );
    }

    #[test]
    fn region_order() {
        let mut e = env();
        e.vars.insert("AWS_DEFAULT_REGION".into(), "r-default".into());
        assert_eq!(resolve("s3://b/k", &[], &e).unwrap().region, "r-default");
        e.vars.insert("AWS_REGION".into(), "r-env".into());
        assert_eq!(resolve("s3://b/k", &[], &e).unwrap().region, "r-env");
        e.rc = parse_rc("AWS.REGION=r-rc\n");
        assert_eq!(resolve("s3://b/k", &[], &e).unwrap().region, "r-rc");
        merge_profiles(&mut e.profiles, "[default]\naws_region = r-prof\n", false);
        assert_eq!(resolve("s3://b/k", &[], &e).unwrap().region, "r-prof");
        merge_profiles(&mut e.profiles, "[default]\nregion = r-prof2\n", true);
        assert_eq!(resolve("s3://b/k", &[], &e).unwrap().region, "r-prof2");
        assert_eq!(
            resolve("https://s3.r-host.amazonaws.com/b/k", &[], &e).unwrap().region,
            "r-host"
        );
        let f = frag(&[("aws.region", "r-frag")]);
        assert_eq!(
            resolve("https://s3.r-host.amazonaws.com/b/k", &f, &e).unwrap().region,
            "r-frag"
        );
    }

    #[test]
    fn profiles_and_credentials() {
        let mut e = env();
        merge_profiles(
            &mut e.profiles,
            "[default]\nregion=us-west-1\n[profile other]\nregion = eu-north-1\nendpoint_url = http://127.0.0.1:9/\n",
            true,
        );
        merge_profiles(
            &mut e.profiles,
            "# comment\n[default]\naws_access_key_id = AKD\naws_secret_access_key = SKD\n[other]\naws_access_key_id=AKO\naws_secret_access_key=SKO\naws_session_token=TKO\n",
            false,
        );
        let c = resolve("s3://b/k", &[], &e).unwrap();
        assert_eq!(c.profile, "default");
        assert_eq!(c.credentials.as_ref().unwrap().key_id, "AKD");
        assert_eq!(c.region, "us-west-1");
        // Environment keys replace the default profile's...
        e.vars.insert("AWS_ACCESS_KEY_ID".into(), "AKE".into());
        e.vars.insert("AWS_SECRET_ACCESS_KEY".into(), "SKE".into());
        assert_eq!(resolve("s3://b/k", &[], &e).unwrap().credentials.unwrap().key_id, "AKE");
        // ...but not a profile chosen by name.
        let f = frag(&[("aws.profile", "other")]);
        let c = resolve("s3://b/k", &f, &e).unwrap();
        assert_eq!(c.profile, "other");
        let cr = c.credentials.clone().unwrap();
        assert_eq!((cr.key_id.as_str(), cr.token.as_deref()), ("AKO", Some("TKO")));
        assert_eq!(c.region, "eu-north-1");
        assert_eq!(c.endpoint.as_deref(), Some("http://127.0.0.1:9"));
        // AWS_PROFILE, then the rc file, then the fragment.
        e.vars.insert("AWS_PROFILE".into(), "other".into());
        assert_eq!(resolve("s3://b/k", &[], &e).unwrap().profile, "other");
        e.rc = parse_rc("AWS.PROFILE=none\n");
        let c = resolve("s3://b/k", &[], &e).unwrap();
        assert_eq!((c.profile.as_str(), c.credentials.is_none()), ("none", true));
        let f = frag(&[("aws.profile", "default")]);
        assert_eq!(resolve("s3://b/k", &f, &e).unwrap().profile, "default");
        // A profile named explicitly must exist.
        let f = frag(&[("aws.profile", "missing")]);
        assert_eq!(resolve("s3://b/k", &f, &e), Err(StoreError::Remote));
        // Debug output never shows a key.
        let shown = format!(
            "{:?}",
            resolve("s3://b/k", &frag(&[("aws.profile", "other")]), &e).unwrap()
        );
        assert!(
            !shown.contains("SKO") && !shown.contains("AKO") && !shown.contains("TKO"),
            "{shown}"
        );
    }

    #[test]
    fn endpoint_from_env_only_for_s3_scheme() {
        let mut e = env();
        e.vars
            .insert("AWS_ENDPOINT_URL".into(), "http://127.0.0.1:1234/".into());
        assert_eq!(
            resolve("s3://b/k", &[], &e).unwrap().endpoint.as_deref(),
            Some("http://127.0.0.1:1234")
        );
        e.vars
            .insert("AWS_ENDPOINT_URL_S3".into(), "http://127.0.0.1:99".into());
        assert_eq!(
            resolve("s3://b/k", &[], &e).unwrap().endpoint.as_deref(),
            Some("http://127.0.0.1:99")
        );
        assert_eq!(
            resolve("http://h:1/b/k", &[], &e).unwrap().endpoint.as_deref(),
            Some("http://h:1")
        );
        let c = resolve("https://b.s3.us-east-2.amazonaws.com/k", &[], &e).unwrap();
        assert_eq!(c.endpoint, None);
        e.vars.insert("AWS_ENDPOINT_URL_S3".into(), "ftp://x".into());
        assert_eq!(resolve("s3://b/k", &[], &e), Err(StoreError::InvalidUrl));
    }

    #[test]
    fn rc_entries() {
        let rc = parse_rc("# c\n\nAWS.REGION = r1\n[127.0.0.1:7480/bkt] AWS.REGION=r2\n[https://h/x]K=v\nFLAG\n[bad\n");
        assert_eq!(rc.len(), 4);
        let e = Environment {
            rc,
            ..Environment::default()
        };
        assert_eq!(e.rc_lookup("aws.region", "127.0.0.1:7480", "/bkt/ds"), Some("r2"));
        assert_eq!(e.rc_lookup("AWS.REGION", "127.0.0.1:7480", "/other"), Some("r1"));
        assert_eq!(e.rc_lookup("K", "h", "/x/y"), Some("v"));
        assert_eq!(e.rc_lookup("FLAG", "any", "/"), Some("1"));
        assert_eq!(e.rc_lookup("K", "other", "/x"), None);
    }
}
