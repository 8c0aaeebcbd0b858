//! The URI grammar of netcdf-c's `ncuriparse`/`ncuribuild` (libdispatch/ncuri.c,
//! v4.9.0), written from its observed behaviour. Both the path classifier
//! (`crate::api::url`) and the C exports `ncuriparse`/`ncuribuild` (`ffi::client`) use
//! this one parser, so what ncdump rebuilds is exactly what `classify` accepts.
//!
//! Grammar, as netcdf-c accepts it:
//! - control characters (< 0x20) are dropped, and a backslash that is followed
//!   by another backslash is dropped (`\\` -> `\`);
//! - an optional prefix of bracketed parameters `[k=v][k2]` is moved into the
//!   fragment list (old DAP syntax);
//! - `protocol ':'` then, for `file`: `file:/p`, `file:///p`, `file://rel/p`,
//!   `file:D:/p`, `file://D:/p`; for every other protocol `//` [user:pwd@] host
//!   [:port] [/path];
//! - `?query` and `#fragment` are `&`-separated `key[=value]` lists; a
//!   backslash escapes the next character while looking for `?`, `#`, `&`, `/`.
//!
//! Deliberate differences from 4.9.0 (each one a crash or a mangling there):
//! bytes >= 0x80 are kept (4.9.0 drops them with the control characters, since
//! `char` is signed), and a repeated fragment key keeps only its first
//! occurrence even when the value is the same (4.9.0 keeps identical repeats).
#![forbid(unsafe_code)]

use crate::error::{NcError, NcResult};

/// `ncuribuild` flag: include the path.
pub const NCURIPATH: i32 = 1;
/// `ncuribuild` flag: include `user:password@`.
pub const NCURIPWD: i32 = 2;
/// `ncuribuild` flag: include `?query`.
pub const NCURIQUERY: i32 = 4;
/// `ncuribuild` flag: include `#fragment`.
pub const NCURIFRAG: i32 = 8;
/// `ncuribuild` flag: percent-encode the path.
pub const NCURIENCODEPATH: i32 = 16;
/// `ncuribuild` flag: percent-encode the query.
pub const NCURIENCODEQUERY: i32 = 32;
/// Both encodings.
pub const NCURIENCODE: i32 = NCURIENCODEPATH | NCURIENCODEQUERY;
/// Path and credentials.
pub const NCURIBASE: i32 = NCURIPWD | NCURIPATH;
/// What is sent to a server.
pub const NCURISVC: i32 = NCURIBASE | NCURIQUERY;
/// Everything (used to rebuild a URL after changes).
pub const NCURIALL: i32 = NCURIBASE | NCURIQUERY | NCURIFRAG;

/// Characters left alone when encoding a path or a query.
pub const PATH_ALLOW: &str = concat!(
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "!#$&'()*+,-./:;=?@_~"
);
/// Same set as [`PATH_ALLOW`]; netcdf-c keeps two names for it.
pub const QUERY_ALLOW: &str = PATH_ALLOW;
/// Characters left alone in user names and passwords (no `@` or `:`).
pub const USERPWD_ALLOW: &str = concat!(
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "!$&'()*+,-.;=_~?#/"
);

/// One parsed URI. `query`/`fragment` hold the text `ncuribuild` writes after
/// `?`/`#`; the lists hold the decomposed `key=value` pairs (value "" when absent).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Uri {
    pub protocol: String,
    pub user: Option<String>,
    pub password: Option<String>,
    pub host: Option<String>,
    pub port: Option<String>,
    pub path: Option<String>,
    pub query: Option<String>,
    pub fragment: Option<String>,
    pub querylist: Vec<(String, String)>,
    pub fraglist: Vec<(String, String)>,
}

/// Position of the first byte of `s` in `set`, skipping any byte that follows a
/// backslash (netcdf-c's `nclocate`).
fn locate(s: &str, set: &[u8]) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if set.contains(&b[i]) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Split an `&`-separated parameter text into `(key, value)` pairs. A key without
/// `=` gets the value "". A trailing `&` adds nothing; an empty segment elsewhere
/// gives an empty key (as netcdf-c's `parselist`).
pub fn parse_params(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (seg, next) = match locate(rest, b"&") {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        match seg.split_once('=') {
            Some((k, v)) => out.push((k.to_string(), v.to_string())),
            None => out.push((seg.to_string(), String::new())),
        }
        rest = next;
    }
    out
}

/// Join pairs back into `k=v&k2` text; values are percent-encoded with
/// [`QUERY_ALLOW`] when `encode` is set, keys never are (netcdf-c's `buildlist`).
pub fn unparse_params(pairs: &[(String, String)], encode: bool) -> String {
    let mut out = String::new();
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        out.push_str(k);
        if !v.is_empty() {
            out.push('=');
            if encode {
                out.push_str(&encode_only(v, QUERY_ALLOW));
            } else {
                out.push_str(v);
            }
        }
    }
    out
}

/// Keep the first occurrence of each key (compared without regard to case).
pub fn first_wins(pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        if !out.iter().any(|(k2, _)| k2.eq_ignore_ascii_case(&k)) {
            out.push((k, v));
        }
    }
    out
}

/// Percent-encode every byte of `s` that is not in `allow` (alphanumerics
/// included: they pass only if `allow` lists them), with lower-case hex digits
/// (as `ncuriencodeonly`).
pub fn encode_only(s: &str, allow: &str) -> String {
    // Only non-ASCII bytes that the caller allowed can make this invalid UTF-8.
    String::from_utf8(encode_bytes(s.as_bytes(), allow.as_bytes()))
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Byte form of [`encode_only`]: the output is ASCII.
pub fn encode_bytes(s: &[u8], allow: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if allow.contains(&c) {
            out.push(c);
        } else {
            out.extend_from_slice(&[b'%', HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]);
        }
    }
    out
}

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Decode `%XX` escapes whose decoded byte passes `keep`; any other `%` stays
/// as it is (as `ncuridecode` / `ncuridecodepartial`). `plus_space` turns `+`
/// into a space.
pub fn decode_bytes_if(s: &[u8], plus_space: bool, keep: impl Fn(u8) -> bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c == b'+' && plus_space {
            out.push(b' ');
        } else if c == b'%'
            && let (Some(h), Some(l)) = (
                s.get(i + 1).copied().and_then(hex_value),
                s.get(i + 2).copied().and_then(hex_value),
            )
            && keep((h << 4) | l)
        {
            out.push((h << 4) | l);
            i += 3;
            continue;
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// Decode every `%XX` escape.
pub fn decode_bytes(s: &[u8]) -> Vec<u8> {
    decode_bytes_if(s, false, |_| true)
}

/// Move a `[k=v][k2]` prefix into parameter text `k=v&k2`; returns the text and
/// the rest of the URL. An unclosed bracket is a malformed URL.
fn split_prefix(s: &str) -> NcResult<(String, &str)> {
    let mut params = String::new();
    let mut rest = s;
    while let Some(inner) = rest.strip_prefix('[') {
        let end = locate(inner, b"]").ok_or(NcError::Url)?;
        if !params.is_empty() {
            params.push('&');
        }
        params.push_str(&inner[..end]);
        rest = &inner[end + 1..];
    }
    Ok((params, rest))
}

fn is_drive_letter(c: u8) -> bool {
    c.is_ascii_alphabetic()
}

/// The path part of a `file:` URL (text after `file:`), by netcdf-c's five
/// accepted forms.
fn file_path(p: &str) -> NcResult<&str> {
    let b = p.as_bytes();
    let l = b.len();
    // file:D:/x and file:/x: the path is all of it.
    let whole = l >= 2 && ((b[1] == b':' && is_drive_letter(b[0])) || (b[0] == b'/' && b[1] != b'/'));
    // file://D:/x, file:///x and file://relative/x: drop the "//".
    let after_slashes = l >= 4 && b[0] == b'/' && b[1] == b'/' && !(b[2] == b'/' && b[3] == b'/');
    if whole {
        Ok(p)
    } else if after_slashes {
        Ok(&p[2..])
    } else {
        Err(NcError::Url)
    }
}

fn decode_lossy(s: &str) -> String {
    String::from_utf8_lossy(&decode_bytes(s.as_bytes())).into_owned()
}

impl Uri {
    /// Parse `s` as netcdf-c 4.9.0's `ncuriparse` does. Anything that is not a
    /// URL (a plain path, `C:\x`, `name:x` without `//`) is `NcError::Url`.
    pub fn parse(s: &str) -> NcResult<Uri> {
        if s.is_empty() {
            return Err(NcError::Url);
        }
        // Drop control characters and the first of each backslash pair.
        let b = s.as_bytes();
        let mut clean = String::with_capacity(s.len());
        for (i, ch) in s.char_indices() {
            if (ch == '\\' && b.get(i + 1) == Some(&b'\\')) || (ch as u32) < 0x20 {
                continue;
            }
            clean.push(ch);
        }

        let (prefix, core_and_tail) = split_prefix(&clean)?;
        let (core, query, fragment) = match locate(core_and_tail, b"?#") {
            None => (core_and_tail, None, None),
            Some(i) if core_and_tail.as_bytes()[i] == b'?' => {
                let after = &core_and_tail[i + 1..];
                match locate(after, b"#") {
                    Some(j) => (&core_and_tail[..i], Some(&after[..j]), Some(&after[j + 1..])),
                    None => (&core_and_tail[..i], Some(after), None),
                }
            }
            Some(i) => (&core_and_tail[..i], None, Some(&core_and_tail[i + 1..])),
        };

        let mut params = parse_params(&prefix);
        if let Some(f) = fragment {
            params.extend(parse_params(f));
        }
        let fraglist = first_wins(params);
        let querylist = query.map(parse_params).unwrap_or_default();

        let (protocol, rest) = core.split_once(':').ok_or(NcError::Url)?;
        if protocol.is_empty() {
            return Err(NcError::Url);
        }
        let mut uri = Uri {
            protocol: protocol.to_string(),
            ..Uri::default()
        };
        if protocol == "file" {
            uri.path = Some(file_path(rest)?.to_string());
        } else {
            let rest = rest.strip_prefix("//").ok_or(NcError::Url)?;
            let (mut host, path) = match locate(rest, b"/") {
                Some(i) => (&rest[..i], Some(&rest[i..])),
                None => (rest, None),
            };
            uri.path = path.map(str::to_string);
            if let Some(at) = host.find('@') {
                if at == 0 {
                    return Err(NcError::Url);
                }
                let (user, pwd) = host[..at].split_once(':').ok_or(NcError::Url)?;
                if user.is_empty() || pwd.is_empty() {
                    return Err(NcError::Url);
                }
                uri.user = Some(decode_lossy(user));
                uri.password = Some(decode_lossy(pwd));
                host = &host[at + 1..];
            }
            if let Some((h, port)) = host.split_once(':') {
                if h.is_empty() || port.is_empty() {
                    return Err(NcError::Url);
                }
                if !port.bytes().all(|c| c.is_ascii_digit() || c == b'-') {
                    return Err(NcError::Url);
                }
                uri.port = Some(port.to_string());
                host = h;
            }
            if !host.is_empty() {
                uri.host = Some(host.to_string());
            }
        }
        uri.fraglist = fraglist;
        uri.querylist = querylist;
        uri.sync_strings();
        Ok(uri)
    }

    /// Rebuild `query`/`fragment` text from the lists (values encoded), as
    /// netcdf-c does right after parsing. An empty list gives `None`.
    pub fn sync_strings(&mut self) {
        self.query = (!self.querylist.is_empty()).then(|| unparse_params(&self.querylist, true));
        self.fragment = (!self.fraglist.is_empty()).then(|| unparse_params(&self.fraglist, true));
    }

    /// The value of fragment key `key` (compared without regard to case).
    pub fn fragment_lookup(&self, key: &str) -> Option<&str> {
        lookup(&self.fraglist, key)
    }

    /// The value of query key `key` (compared without regard to case).
    pub fn query_lookup(&self, key: &str) -> Option<&str> {
        lookup(&self.querylist, key)
    }

    /// Set fragment key `key` to `value`, appending it when absent, and rebuild
    /// the fragment text unencoded (as `ncuriappendfragmentkey`, but without
    /// 4.9.0's stray leading `#`, which made `ncuribuild` write `##`).
    pub fn append_fragment_key(&mut self, key: &str, value: &str) {
        match self.fraglist.iter_mut().find(|(k, _)| k.eq_ignore_ascii_case(key)) {
            Some(pair) => pair.1 = value.to_string(),
            None => self.fraglist.push((key.to_string(), value.to_string())),
        }
        self.fragment = Some(unparse_params(&self.fraglist, false));
    }

    /// Assemble the URL text as `ncuribuild(uri, prefix, suffix, flags)`.
    pub fn build(&self, prefix: Option<&str>, suffix: Option<&str>, flags: i32) -> String {
        let mut out = String::new();
        if let Some(p) = prefix {
            out.push_str(p);
        }
        out.push_str(&self.protocol);
        out.push_str("://");
        if flags & NCURIPWD != 0
            && let (Some(u), Some(p)) = (&self.user, &self.password)
        {
            out.push_str(&encode_only(u, USERPWD_ALLOW));
            out.push(':');
            out.push_str(&encode_only(p, USERPWD_ALLOW));
            out.push('@');
        }
        if let Some(h) = &self.host {
            out.push_str(h);
        }
        if let Some(p) = &self.port {
            out.push(':');
            out.push_str(p);
        }
        if flags & NCURIPATH != 0 {
            match &self.path {
                None => out.push('/'),
                Some(p) if flags & NCURIENCODEPATH != 0 => out.push_str(&encode_only(p, PATH_ALLOW)),
                Some(p) => out.push_str(p),
            }
        }
        if let Some(s) = suffix {
            out.push_str(s);
        }
        if flags & NCURIQUERY != 0
            && let Some(q) = self.query.as_deref().filter(|q| !q.is_empty())
        {
            out.push('?');
            if flags & NCURIENCODEQUERY != 0 {
                out.push_str(&encode_only(q, QUERY_ALLOW));
            } else {
                out.push_str(q);
            }
        }
        if flags & NCURIFRAG != 0
            && let Some(f) = self.fragment.as_deref().filter(|f| !f.is_empty())
        {
            out.push('#');
            out.push_str(f);
        }
        out
    }
}

fn lookup<'a>(list: &'a [(String, String)], key: &str) -> Option<&'a str> {
    list.iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn file_url_with_mode() {
        let u = Uri::parse("file:///x/data.zarr#mode=nczarr,file").unwrap();
        assert_eq!(u.protocol, "file");
        assert_eq!(u.host, None);
        assert_eq!(u.path.as_deref(), Some("/x/data.zarr"));
        assert_eq!(u.fragment.as_deref(), Some("mode=nczarr,file"));
        assert_eq!(u.fraglist, pairs(&[("mode", "nczarr,file")]));
        assert_eq!(u.build(None, None, NCURIALL), "file:///x/data.zarr#mode=nczarr,file");
    }

    #[test]
    fn file_url_forms() {
        let p = |s: &str| Uri::parse(s).map(|u| u.path.unwrap());
        assert_eq!(p("file:/abs/p.nc").unwrap(), "/abs/p.nc");
        assert_eq!(p("file:///abs/p.nc").unwrap(), "/abs/p.nc");
        assert_eq!(p("file://rel/x.nc").unwrap(), "rel/x.nc");
        assert_eq!(p("file:C:/x").unwrap(), "C:/x");
        assert_eq!(p("file://C:/x").unwrap(), "C:/x");
        assert_eq!(p("file:////x"), Err(NcError::Url));
        assert_eq!(p("file:"), Err(NcError::Url));
        assert_eq!(p("file:///"), Err(NcError::Url));
        // file:/abs is rebuilt with three slashes
        let u = Uri::parse("file:/abs/p.nc#mode=nczarr").unwrap();
        assert_eq!(u.build(None, None, NCURIALL), "file:///abs/p.nc#mode=nczarr");
    }

    #[test]
    fn not_urls() {
        for s in [
            "",
            "/tmp/x.nc",
            "x",
            "C:\\data\\x",
            "abc:def",
            ":x//y",
            "http:/x",
            "x#y:z",
        ] {
            assert_eq!(Uri::parse(s), Err(NcError::Url), "{s}");
        }
    }

    #[test]
    fn host_user_port_query() {
        let u = Uri::parse("https://u:p%40x@host:8080/a/b.c?x=1&y#frag").unwrap();
        assert_eq!(u.user.as_deref(), Some("u"));
        assert_eq!(u.password.as_deref(), Some("p@x"));
        assert_eq!(u.host.as_deref(), Some("host"));
        assert_eq!(u.port.as_deref(), Some("8080"));
        assert_eq!(u.path.as_deref(), Some("/a/b.c"));
        assert_eq!(u.query.as_deref(), Some("x=1&y"));
        assert_eq!(u.querylist, pairs(&[("x", "1"), ("y", "")]));
        assert_eq!(u.fraglist, pairs(&[("frag", "")]));
        assert_eq!(
            u.build(None, None, NCURIALL),
            "https://u:p%40x@host:8080/a/b.c?x=1&y#frag"
        );
        assert_eq!(u.build(None, None, NCURIPATH), "https://host:8080/a/b.c");
        assert_eq!(
            u.build(Some("P"), Some(".dds"), NCURISVC),
            "Phttps://u:p%40x@host:8080/a/b.c.dds?x=1&y"
        );
        for bad in [
            "https://@h/x",
            "https://u@h/x",
            "https://:p@h/x",
            "https://u:@h/x",
            "https://h:/x",
            "https://:80/x",
            "https://h:8x/x",
        ] {
            assert_eq!(Uri::parse(bad), Err(NcError::Url), "{bad}");
        }
    }

    #[test]
    fn no_path_builds_slash() {
        let u = Uri::parse("https://host").unwrap();
        assert_eq!(u.path, None);
        assert_eq!(u.build(None, None, NCURIALL), "https://host/");
    }

    #[test]
    fn duplicate_fragment_keys_first_wins() {
        let u = Uri::parse("https://host/a#mode=nczarr&mode=s3&Mode=zarr&b&x=1").unwrap();
        assert_eq!(u.fraglist, pairs(&[("mode", "nczarr"), ("b", ""), ("x", "1")]));
        assert_eq!(u.fragment.as_deref(), Some("mode=nczarr&b&x=1"));
    }

    #[test]
    fn bracket_prefix_params() {
        let u = Uri::parse("[log][show=fetch]https://h/p#x=1").unwrap();
        assert_eq!(u.fraglist, pairs(&[("log", ""), ("show", "fetch"), ("x", "1")]));
        assert_eq!(u.build(None, None, NCURIALL), "https://h/p#log&show=fetch&x=1");
        assert_eq!(Uri::parse("[log https://h/p"), Err(NcError::Url));
    }

    #[test]
    fn escapes_and_controls() {
        // a backslash hides '#' from the splitter; "\\\\" collapses to one
        let u = Uri::parse("file:///a\\#b#mode=zarr").unwrap();
        assert_eq!(u.path.as_deref(), Some("/a\\#b"));
        let u = Uri::parse("file:///a\\\\b\n#mode=zarr").unwrap();
        assert_eq!(u.path.as_deref(), Some("/a\\b"));
        // non-ASCII is kept
        let u = Uri::parse("file:///tmp/d\u{e4}t\u{e4}.zarr#mode=zarr").unwrap();
        assert_eq!(u.path.as_deref(), Some("/tmp/d\u{e4}t\u{e4}.zarr"));
    }

    #[test]
    fn fragment_values_encoded_on_rebuild() {
        let u = Uri::parse("file:///a#k=a b&j=%41").unwrap();
        assert_eq!(u.fraglist, pairs(&[("k", "a b"), ("j", "%41")]));
        assert_eq!(u.fragment.as_deref(), Some("k=a%20b&j=%2541"));
    }

    #[test]
    fn append_fragment_key() {
        let mut u = Uri::parse("file:///x/data.zarr#mode=nczarr,file").unwrap();
        u.append_fragment_key("cache", "");
        assert_eq!(u.fragment.as_deref(), Some("mode=nczarr,file&cache"));
        assert_eq!(
            u.build(None, None, NCURIALL),
            "file:///x/data.zarr#mode=nczarr,file&cache"
        );
        u.append_fragment_key("MODE", "zarr");
        assert_eq!(u.fragment.as_deref(), Some("mode=zarr&cache"));
        let mut u = Uri::parse("https://h/p").unwrap();
        u.append_fragment_key("cache", "");
        assert_eq!(u.build(None, None, NCURIALL), "https://h/p#cache");
        assert_eq!(u.fragment_lookup("CACHE"), Some(""));
        assert_eq!(u.fragment_lookup("nope"), None);
    }

    #[test]
    fn encode_decode() {
        assert_eq!(encode_only("a b/c,d", PATH_ALLOW), "a%20b/c,d");
        assert_eq!(encode_only("u@x:y", USERPWD_ALLOW), "u%40x%3ay");
        assert_eq!(encode_bytes(&[0xff, b'a', b'/'], b"/"), b"%ff%61/");
        assert_eq!(decode_bytes(b"a%20b%2Fc%zz%4"), b"a b/c%zz%4");
        assert_eq!(decode_bytes_if(b"a+b%20%2f", true, |c| c == b' '), b"a b %2f");
    }

    #[test]
    fn params_edge_cases() {
        assert_eq!(parse_params("a&"), pairs(&[("a", "")]));
        assert_eq!(parse_params("&a"), pairs(&[("", ""), ("a", "")]));
        assert_eq!(parse_params("a=b=c"), pairs(&[("a", "b=c")]));
        assert_eq!(parse_params(""), pairs(&[]));
        assert_eq!(parse_params("a\\&b=1"), pairs(&[("a\\&b", "1")]));
    }
}
