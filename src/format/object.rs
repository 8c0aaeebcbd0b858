//! A metadata object read lazily: the members of one JSON object, in order,
//! each kept as its raw (already checked) JSON text until someone asks for
//! it. Opening a dataset reads thousands of small `.zarray` / `.zattrs`
//! objects and uses only a few members of each; building a full
//! `serde_json::Value` tree of every object (a map, a hash table and an
//! allocated string per key and per number) was most of the cost of an open.
//!
//! Objects are read in the JSON dialect of `dialect` (what Python and
//! netcdf-c write); a member asked for as a typed value or a tree is first
//! made strict JSON (`dialect::to_strict`), so `NaN` reads as Zarr's `"NaN"`.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::collections::HashMap;

use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::dialect::{self, Member, SyntaxError};
use crate::error::{NcError, NcResult};

/// Past this many members, keys are found through a hash index instead of a
/// scan (a hostile object may have millions of members).
const SCAN_LIMIT: usize = 16;

/// The most members one object may have (a 64 MiB metadata object of tiny
/// members would otherwise cost ~40 bytes of index per 6 bytes of text).
pub const MAX_MEMBERS: usize = 1 << 20;

type Index<'t> = HashMap<Cow<'t, str>, usize, foldhash::fast::RandomState>;

/// One JSON object's members in document order. A repeated key keeps its
/// first position and its last value, as serde_json's ordered map does.
#[derive(Debug, Default)]
pub struct Obj<'t> {
    members: Vec<(Cow<'t, str>, &'t str)>,
    /// Position of each key, for objects of more than `SCAN_LIMIT` members.
    index: Option<Index<'t>>,
}

impl<'t> Obj<'t> {
    /// Parse the top level of `text`; malformed JSON, or JSON that is not
    /// an object, is `NC_ENCZARR` (logged with `what`). Depth is bounded by
    /// `dialect::MAX_DEPTH`, as for any metadata parse.
    pub fn parse(text: &'t [u8], what: &str) -> NcResult<Obj<'t>> {
        Obj::parse_str(utf8(text, what)?, what)
    }

    /// `parse` of text already known to be UTF-8.
    pub fn parse_str(text: &'t str, what: &str) -> NcResult<Obj<'t>> {
        match members(text, MAX_MEMBERS) {
            Ok(all) => Ok(Obj::from_members(all)),
            Err(e) => {
                crate::nclog!(crate::log::Level::Error, "{} is not a valid JSON object: {}", what, e);
                Err(NcError::NcZarr)
            }
        }
    }

    /// Parse an attributes object (`.zattrs`): as `parse`, except that a
    /// member whose value holds a word that is no JSON value, or nests too
    /// deeply, is kept; reading that member fails (an attribute that cannot
    /// be read is skipped, not its variable). Members the library interprets
    /// itself are read through `checked`.
    pub fn parse_attrs(text: &'t [u8], what: &str) -> NcResult<Obj<'t>> {
        let text = utf8(text, what)?;
        match strict_members(text, MAX_MEMBERS).map_or_else(|| dialect::members_tolerant(text, MAX_MEMBERS), Ok) {
            Ok(all) => Ok(Obj::from_members(all)),
            Err(e) => {
                crate::nclog!(crate::log::Level::Error, "{} is not a valid JSON object: {}", what, e);
                Err(NcError::NcZarr)
            }
        }
    }

    /// A member as a strict JSON tree: Ok(None) when absent, `NC_ENCZARR`
    /// (logged with `what`) when present but unreadable.
    pub fn checked(&self, key: &str, what: &str) -> NcResult<Option<Value>> {
        let Some(raw) = self.raw(key) else { return Ok(None) };
        match to_value(raw) {
            Some(v) => Ok(Some(v)),
            None => {
                crate::nclog!(crate::log::Level::Error, "{}: {} cannot be read", what, key);
                Err(NcError::NcZarr)
            }
        }
    }

    /// Whether `text` (checked JSON) is an object.
    pub fn is_object_text(text: &str) -> bool {
        text.trim_start().starts_with('{')
    }

    /// A member's raw JSON text (in the dialect it was written in).
    pub fn raw(&self, key: &str) -> Option<&'t str> {
        match &self.index {
            Some(ix) => ix.get(key).map(|&i| self.members[i].1),
            None => self.members.iter().find(|(k, _)| k == key).map(|&(_, v)| v),
        }
    }

    /// A member that is itself an object (None when absent or not an object).
    pub fn obj(&self, key: &str) -> Option<Obj<'t>> {
        self.raw(key).and_then(Obj::of_raw)
    }

    /// A member's text read as an object (None when it is not one).
    pub fn of_raw(raw: &'t str) -> Option<Obj<'t>> {
        if !Obj::is_object_text(raw) {
            return None;
        }
        members(raw, MAX_MEMBERS).ok().map(Obj::from_members)
    }

    /// A member as a strict JSON tree.
    pub fn value(&self, key: &str) -> Option<Value> {
        self.raw(key).and_then(to_value)
    }

    /// A member as a `T`; None when absent or of another JSON type (the
    /// lenient reading `Value::as_u64` / `as_str` / ... give).
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        from_raw(self.raw(key)?)
    }

    /// A string member (escapes decoded).
    pub fn str(&self, key: &str) -> Option<Cow<'t, str>> {
        let raw = self.raw(key)?;
        if !raw.starts_with('"') {
            return None;
        }
        dialect::decode_str(raw).ok()
    }

    /// The members in document order.
    pub fn members(&self) -> impl Iterator<Item = (&str, &'t str)> {
        self.members.iter().map(|(k, v)| (k.as_ref(), *v))
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// Metadata bytes as text; not UTF-8 is `NC_ENCZARR` (JSON is UTF-8).
pub fn utf8<'t>(bytes: &'t [u8], what: &str) -> NcResult<&'t str> {
    std::str::from_utf8(bytes).map_err(|e| {
        crate::nclog!(crate::log::Level::Error, "{} is not UTF-8 text: {}", what, e);
        NcError::NcZarr
    })
}

/// A member's strict JSON tree. Its text was checked when the object was
/// parsed, so this fails only past the recursion limit (then: absent).
pub fn to_value(raw: &str) -> Option<Value> {
    match raw {
        // (The commonest members, e.g. `"compressor": null`, without a parse.)
        "null" => Some(Value::Null),
        text => strict(text),
    }
}

/// A member's text as a `T` (read as strict JSON); None when it is not one.
pub fn from_raw<T: DeserializeOwned>(raw: &str) -> Option<T> {
    strict(raw)
}

/// `raw` read by serde: as it is when it is strict JSON (most metadata; the
/// dialect means the same by it), else made strict first.
fn strict<T: DeserializeOwned>(raw: &str) -> Option<T> {
    if let Ok(v) = serde_json::from_str(raw) {
        return Some(v);
    }
    match dialect::to_strict(raw).ok()? {
        // (Strict already: serde refused it for its type.)
        Cow::Borrowed(_) => None,
        Cow::Owned(s) => serde_json::from_str(&s).ok(),
    }
}

/// The members of the object `text` (see `dialect::members`): strict JSON,
/// most metadata, is scanned by serde (faster), anything else by the dialect.
pub fn members(text: &str, max: usize) -> Result<Vec<Member<'_>>, SyntaxError> {
    strict_members(text, max).map_or_else(|| dialect::members(text, max), Ok)
}

/// `dialect::members_and_inner`, by serde when `text` is strict JSON.
pub fn members_and_inner<'t>(
    text: &'t str,
    inner: &str,
    max: usize,
) -> Result<(Vec<Member<'t>>, Option<Vec<Member<'t>>>), SyntaxError> {
    if let Some(outer) = strict_members(text, max) {
        let last = outer.iter().rev().find(|(k, _)| k == inner).map(|&(_, v)| v);
        match last.filter(|v| Obj::is_object_text(v)) {
            None => return Ok((outer, None)),
            Some(raw) => {
                if let Some(nested) = strict_members(raw, max) {
                    return Ok((outer, Some(nested)));
                }
            }
        }
    }
    dialect::members_and_inner(text, inner, max)
}

/// The members of `text` when it is one strict JSON object of at most `max`
/// members (else None): serde's scan, which means the same as the dialect's
/// on strict JSON, and nests as deep.
fn strict_members(text: &str, max: usize) -> Option<Vec<Member<'_>>> {
    let mut de = serde_json::Deserializer::from_str(text);
    let m = StrictMembers(max).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(m)
}

/// A seed that reads an object's members (keys decoded, values raw), at most `.0`.
struct StrictMembers(usize);

impl<'de> DeserializeSeed<'de> for StrictMembers {
    type Value = Vec<Member<'de>>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for StrictMembers {
    type Value = Vec<Member<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if out.len() == self.0 {
                return Err(de::Error::custom("too many members"));
            }
            let value: &'de RawValue = map.next_value()?;
            out.push((key, value.get()));
        }
        Ok(out)
    }
}

/// A key, borrowed from the text when it has no escapes.
struct Key<'t>(Cow<'t, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'t> Obj<'t> {
    /// One member per key, in the order keys first appear, each with its
    /// last value (in place: repeated keys are rare).
    fn from_members(mut all: Vec<Member<'t>>) -> Obj<'t> {
        let mut index: Option<Index<'t>> = None;
        let mut kept = 0;
        for i in 0..all.len() {
            let seen = match &index {
                Some(ix) => ix.get(&all[i].0).copied(),
                None => all[..kept].iter().position(|(k, _)| *k == all[i].0),
            };
            if let Some(j) = seen {
                all[j].1 = all[i].1;
                continue;
            }
            all.swap(kept, i);
            if let Some(ix) = &mut index {
                ix.insert(all[kept].0.clone(), kept);
            }
            kept += 1;
            if index.is_none() && kept > SCAN_LIMIT {
                index = Some(
                    all[..kept]
                        .iter()
                        .enumerate()
                        .map(|(j, (k, _))| (k.clone(), j))
                        .collect(),
                );
            }
        }
        all.truncate(kept);
        Obj { members: all, index }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_in_order_last_value_wins() {
        let text = br#"{"b": 1, "a": [1, {"x": 2}], "b": "two", "c\u0041": null}"#;
        let o = Obj::parse(text, "t").unwrap();
        let keys: Vec<&str> = o.members().map(|(k, _)| k).collect();
        assert_eq!(keys, ["b", "a", "cA"]);
        assert_eq!(o.str("b").as_deref(), Some("two"));
        assert_eq!(o.value("a"), Some(serde_json::json!([1, {"x": 2}])));
        assert_eq!(o.get::<u64>("b"), None);
        assert!(o.raw("missing").is_none());
    }

    #[test]
    fn many_repeated_keys_use_the_index() {
        let mut text = String::from("{");
        for round in 0..3 {
            for i in 0..100 {
                if text.len() > 1 {
                    text.push(',');
                }
                text.push_str(&format!("\"k{i}\": {round}"));
            }
        }
        text.push('}');
        let o = Obj::parse(text.as_bytes(), "t").unwrap();
        assert_eq!(o.members().count(), 100);
        assert_eq!(o.members().next().map(|(k, _)| k), Some("k0"));
        assert_eq!(o.get::<u64>("k99"), Some(2));
        assert_eq!(o.get::<u64>("k5"), Some(2));
        assert!(o.raw("k100").is_none());
    }

    #[test]
    fn typed_reads_are_lenient_like_value_accessors() {
        let o = Obj::parse(br#"{"n": 16, "f": 16.0, "neg": -1, "big": 1e3, "s": "x"}"#, "t").unwrap();
        assert_eq!(o.get::<u64>("n"), Some(16));
        assert_eq!(o.get::<u64>("f"), None);
        assert_eq!(o.get::<u64>("neg"), None);
        assert_eq!(o.get::<i64>("neg"), Some(-1));
        assert_eq!(o.get::<u64>("big"), None);
        assert_eq!(o.get::<u64>("s"), None);
        assert_eq!(o.get::<Vec<u64>>("n"), None);
    }

    #[test]
    fn too_many_members_is_an_error() {
        let mut text = String::from("{");
        for i in 0..=MAX_MEMBERS {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&format!("\"{i}\":0"));
        }
        text.push('}');
        assert!(Obj::parse(text.as_bytes(), "t").is_err());
    }

    #[test]
    fn dialect_members_read_as_strict_json() {
        let o = Obj::parse(br#"{"f": NaN, "a": [0., 1.e2], "s": "x"}"#, "t").unwrap();
        assert_eq!(o.value("f"), Some(serde_json::json!("NaN")));
        assert_eq!(o.get::<Vec<f64>>("a"), Some(vec![0.0, 100.0]));
        assert_eq!(o.raw("a"), Some("[0., 1.e2]"));
        assert_eq!(o.str("f"), None);
        assert_eq!(o.str("s").as_deref(), Some("x"));
        assert!(Obj::parse(br#"{"f": nope}"#, "t").is_err());
        let a = Obj::parse_attrs(br#"{"f": nope, "g": 1}"#, "t").unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a.get::<u64>("g"), Some(1));
        assert_eq!(a.value("f"), None);
        assert_eq!(a.checked("f", "t"), Err(NcError::NcZarr));
        assert_eq!(a.checked("g", "t"), Ok(Some(serde_json::json!(1))));
        assert_eq!(a.checked("h", "t"), Ok(None));
        assert!(Obj::parse_attrs(br#"{"f": [}"#, "t").is_err());
    }

    #[test]
    fn serde_and_dialect_scans_agree_on_strict_json() {
        let text = r#" {"a": [1, {"x": "y\n"}], "k\u0041": null, "a": -2.5e3, "s": "\"q\""} "#;
        let fast = strict_members(text, 10).unwrap();
        assert_eq!(fast, dialect::members(text, 10).unwrap());
        assert!(matches!(fast[0].0, Cow::Borrowed("a")));
        assert_eq!(fast[1].0, "kA");
        assert!(strict_members(r#"{"a": NaN}"#, 10).is_none());
        assert!(strict_members(r#"{"a": 1, "b": 2}"#, 1).is_none());
        assert!(strict_members(r#"{"a": 1} x"#, 10).is_none());
        assert_eq!(members(r#"{"a": NaN}"#, 10).unwrap()[0].1, "NaN");
        let (outer, inner) = members_and_inner(r#"{"metadata": {"v/.zarray": {}}, "f": 1}"#, "metadata", 10).unwrap();
        assert_eq!((outer.len(), inner.unwrap()[0].0.as_ref()), (2, "v/.zarray"));
        let (_, inner) = members_and_inner(r#"{"metadata": {"v": NaN}}"#, "metadata", 10).unwrap();
        assert_eq!(inner.unwrap()[0].1, "NaN");
        assert!(members_and_inner(r#"{"metadata": {"v": 1, "w": 2}}"#, "metadata", 1).is_err());
    }

    #[test]
    fn not_an_object_is_an_error() {
        assert!(Obj::parse(b"[1]", "t").is_err());
        assert!(Obj::parse(b"{\"a\": }", "t").is_err());
        assert!(Obj::parse(b"{} x", "t").is_err());
        assert!(Obj::is_object_text(" {\"a\": 1}"));
        assert!(!Obj::is_object_text("5"));
    }
}
