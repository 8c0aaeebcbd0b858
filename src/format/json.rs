//! JSON in and out: bounded parsing, exact numbers, and attribute values.
#![forbid(unsafe_code)]

use serde_json::Value;

use super::dialect::{self, Json};
use crate::error::{NcError, NcResult};
use crate::model::types::NcType;
use crate::model::{Att, AttValue};

/// Parse a metadata object (in the dialect of `dialect`) as a strict JSON
/// tree. Size is bounded by the caller's read limit; nesting depth by
/// `dialect::MAX_DEPTH`.
pub fn parse(bytes: &[u8], what: &str) -> NcResult<Value> {
    let bad = |e: &dyn std::fmt::Display| {
        crate::nclog!(crate::log::Level::Error, "malformed JSON in {}: {}", what, e);
        NcError::NcZarr
    };
    let text = std::str::from_utf8(bytes).map_err(|e| bad(&e))?;
    dialect::check(text).map_err(|e| bad(&e))?;
    let strict = dialect::to_strict(text).map_err(|e| bad(&e))?;
    serde_json::from_str(&strict).map_err(|e| bad(&e))
}

/// Output tree: like serde_json's Value, but floats keep their own width so
/// that an f32 is written with the shortest digits that round-trip as f32.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    Null,
    Bool(bool),
    I(i64),
    U(u64),
    F32(f32),
    F64(f64),
    Str(String),
    Arr(Vec<Out>),
    Obj(Vec<(String, Out)>),
    /// JSON text written as it is (checked strict JSON).
    Raw(String),
}

impl Out {
    pub fn obj(pairs: Vec<(&str, Out)>) -> Out {
        Out::Obj(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    pub fn from_value(v: &Value) -> Out {
        match v {
            Value::Null => Out::Null,
            Value::Bool(b) => Out::Bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    Out::U(u)
                } else if let Some(i) = n.as_i64() {
                    Out::I(i)
                } else {
                    Out::F64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => Out::Str(s.clone()),
            Value::Array(a) => Out::Arr(a.iter().map(Out::from_value).collect()),
            Value::Object(o) => Out::Obj(o.iter().map(|(k, v)| (k.clone(), Out::from_value(v))).collect()),
        }
    }

    /// Serialise in netcdf-c's style: `", "` and `": "` in objects, arrays compact.
    pub fn to_json(&self) -> String {
        // Only UTF-8 is pushed: ASCII, Rust's number formatting, `str`s
        // escaped by serde_json.
        String::from_utf8(self.to_json_bytes()).expect("JSON output is UTF-8")
    }

    /// [`Out::to_json`] as the bytes of a metadata object.
    pub fn to_json_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(256);
        self.write(&mut b);
        b
    }

    fn write(&self, b: &mut Vec<u8>) {
        use std::io::Write;
        // Writing to a Vec cannot fail.
        match self {
            Out::Null => b.extend_from_slice(b"null"),
            Out::Bool(v) => b.extend_from_slice(if *v { b"true" } else { b"false" }),
            Out::I(i) => {
                let _ = write!(b, "{i}");
            }
            Out::U(u) => {
                let _ = write!(b, "{u}");
            }
            Out::F32(f) => write_float(b, f64::from(*f), |b| write!(b, "{f:?}")),
            Out::F64(f) => write_float(b, *f, |b| write!(b, "{f:?}")),
            Out::Str(t) => write_str(b, t),
            Out::Raw(t) => b.extend_from_slice(t.as_bytes()),
            Out::Arr(a) => {
                b.push(b'[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        b.push(b',');
                    }
                    v.write(b);
                }
                b.push(b']');
            }
            Out::Obj(o) => {
                b.push(b'{');
                for (i, (k, v)) in o.iter().enumerate() {
                    if i > 0 {
                        b.extend_from_slice(b", ");
                    }
                    write_str(b, k);
                    b.extend_from_slice(b": ");
                    v.write(b);
                }
                b.push(b'}');
            }
        }
    }
}

/// A JSON string, escaped as serde_json escapes it.
fn write_str(b: &mut Vec<u8>, t: &str) {
    // Serialising a str into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *b, t);
}

/// Write a float as JSON: NaN and infinities as the strings Zarr uses, finite
/// values with the shortest digits that read back to the same value
/// (`digits`: Rust prints "1e300" / "1.5" / "-0.0", all valid JSON numbers).
fn write_float(b: &mut Vec<u8>, f: f64, digits: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) {
    if f.is_nan() {
        b.extend_from_slice(b"\"NaN\"");
    } else if f.is_infinite() {
        b.extend_from_slice(if f > 0.0 { b"\"Infinity\"" } else { b"\"-Infinity\"" });
    } else {
        let _ = digits(b);
    }
}

/// Read one JSON scalar as f64, accepting Zarr's spellings of NaN and infinity.
pub fn value_as_f64(v: &Value) -> Option<f64> {
    match v {
        // An integer token is an integer: "-0" is zero, as netcdf-c reads it.
        Value::Number(n) => n
            .as_i64()
            .map(|i| i as f64)
            .or_else(|| n.as_u64().map(|u| u as f64))
            .or_else(|| n.as_f64()),
        Value::String(s) => match s.as_str() {
            "NaN" | "nan" => Some(f64::NAN),
            "Infinity" | "inf" | "+Infinity" => Some(f64::INFINITY),
            "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// Encode one JSON scalar as native-endian bytes of a numeric type.
/// Integers must be exact and in range; floats are rounded to f32 for NC_FLOAT.
pub fn scalar_to_bytes(v: &Value, ty: NcType, out: &mut Vec<u8>) -> NcResult<()> {
    let bad = || NcError::NcZarr;
    macro_rules! int {
        ($t:ty) => {{
            let x: $t = match v {
                Value::Number(n) => {
                    if let Some(i) = n.as_i64() {
                        <$t>::try_from(i).map_err(|_| bad())?
                    } else if let Some(u) = n.as_u64() {
                        <$t>::try_from(u).map_err(|_| bad())?
                    } else {
                        let f = n.as_f64().ok_or_else(bad)?;
                        if f.fract() != 0.0 || !f.is_finite() {
                            return Err(bad());
                        }
                        // Integral float within range (e.g. 1e3 or 5.0).
                        let i = f as i128;
                        <$t>::try_from(i).map_err(|_| bad())?
                    }
                }
                Value::Bool(b) => <$t>::try_from(u8::from(*b)).map_err(|_| bad())?,
                _ => return Err(bad()),
            };
            out.extend_from_slice(&x.to_ne_bytes());
        }};
    }
    match ty {
        NcType::Byte => int!(i8),
        NcType::UByte => int!(u8),
        NcType::Short => int!(i16),
        NcType::UShort => int!(u16),
        NcType::Int => int!(i32),
        NcType::UInt => int!(u32),
        NcType::Int64 => int!(i64),
        NcType::UInt64 => int!(u64),
        NcType::Float => {
            let f = value_as_f64(v).ok_or_else(bad)?;
            out.extend_from_slice(&(f as f32).to_ne_bytes());
        }
        NcType::Double => {
            let f = value_as_f64(v).ok_or_else(bad)?;
            out.extend_from_slice(&f.to_ne_bytes());
        }
        NcType::Char | NcType::String => return Err(bad()),
    }
    Ok(())
}

/// One value of a numeric type, as an output JSON scalar.
pub fn bytes_to_out(b: &[u8], ty: NcType) -> Out {
    macro_rules! arr {
        ($t:ty) => {{
            let mut a = [0u8; std::mem::size_of::<$t>()];
            a.copy_from_slice(b);
            <$t>::from_ne_bytes(a)
        }};
    }
    match ty {
        NcType::Byte => Out::I(i64::from(arr!(i8))),
        NcType::UByte => Out::U(u64::from(arr!(u8))),
        NcType::Short => Out::I(i64::from(arr!(i16))),
        NcType::UShort => Out::U(u64::from(arr!(u16))),
        NcType::Int => Out::I(i64::from(arr!(i32))),
        NcType::UInt => Out::U(u64::from(arr!(u32))),
        NcType::Int64 => Out::I(arr!(i64)),
        NcType::UInt64 => Out::U(arr!(u64)),
        NcType::Float => Out::F32(arr!(f32)),
        NcType::Double => Out::F64(arr!(f64)),
        NcType::Char => Out::Str(String::from_utf8_lossy(b).into_owned()),
        NcType::String => Out::Null,
    }
}

/// An attribute's value as JSON (one value: a scalar; several: an array).
///
/// Text (NC_CHAR) that is a JSON object or array is stored as that JSON
/// value, as the NCZarr specification asks (its JSON attribute convention),
/// so that Zarr readers see a dict or a list; but only when a reader gets
/// the same text back (`text_as_json`). Other text, a JSON scalar such as
/// `42` or `true` included, is a JSON string: stored as a number it would
/// read back as something else in every reader. `typed` says whether the
/// types of attributes are recorded (NCZarr's `_nczarr_attr`): without them
/// an array of numbers reads back as numbers, so only what reads back as
/// text (an object, an array holding arrays or objects) is stored as JSON.
pub fn att_to_out(att: &Att, typed: bool) -> Out {
    match (&att.value, att.ty) {
        (AttValue::Bytes(b), NcType::Char) => {
            let text = String::from_utf8_lossy(b);
            let text = text.trim_end_matches('\0');
            match text_as_json(text, typed) {
                Some(j) => Out::Raw(j),
                None => Out::Str(text.to_string()),
            }
        }
        (AttValue::Bytes(b), ty) => {
            let vals: Vec<Out> = b.chunks_exact(ty.size()).map(|c| bytes_to_out(c, ty)).collect();
            if vals.len() == 1 {
                vals.into_iter().next().unwrap_or(Out::Null)
            } else {
                Out::Arr(vals)
            }
        }
        (AttValue::Strings(s), _) => {
            let vals: Vec<Out> = s
                .iter()
                .map(|x| Out::Str(String::from_utf8_lossy(x).into_owned()))
                .collect();
            if vals.len() == 1 {
                vals.into_iter().next().unwrap_or(Out::Null)
            } else {
                Out::Arr(vals)
            }
        }
    }
}

/// The JSON to store for the text attribute `text`, when it is a JSON object
/// or array that reads back as the same text, whitespace between tokens
/// aside (`read_text`): strict JSON (Zarr readers must parse it), no number
/// respelled, no escape rewritten. None: store it as a string.
pub fn text_as_json(text: &str, typed: bool) -> Option<String> {
    let t = text.trim_start();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
    let j = dialect::parse(text).ok()?;
    let as_text = match &j {
        Json::Obj(_) => true,
        Json::Arr(a) => typed || a.iter().any(|x| !x.is_atomic()),
        _ => false,
    };
    if !as_text {
        return None;
    }
    let back = j.to_nc_text();
    (dialect::squeeze(&back) == dialect::squeeze(text)).then_some(back)
}

/// A JSON attribute value shown as netCDF text: a string as itself, any
/// other value as netcdf-c writes it (`Json::to_nc_text`), numbers spelled
/// as they were stored.
pub fn read_text(v: &Json) -> String {
    match v {
        Json::Str(s) => s.clone(),
        other => other.to_nc_text(),
    }
}

/// A text (NC_CHAR) attribute.
pub fn char_att(name: &str, text: String) -> Att {
    Att {
        name: name.to_string(),
        ty: NcType::Char,
        value: AttValue::Bytes(text.into_bytes()),
    }
}

/// Whether a value is one netcdf-c shows as JSON text whatever its type
/// (an object, an array holding arrays or objects; `NCZ_iscomplexjson`).
fn is_complex(v: &Json) -> bool {
    match v {
        Json::Obj(_) => true,
        Json::Arr(a) => a.iter().any(|x| !x.is_atomic()),
        _ => false,
    }
}

/// Decode an attribute value of a known type. Text takes any JSON (a
/// string as itself, anything else as netcdf-c shows it); an object, or an
/// array holding arrays or objects, is text whatever the type (as in
/// netcdf-c); numbers must be representable in the type (else an error).
pub fn att_typed(name: &str, v: &Json, ty: NcType) -> NcResult<Att> {
    if ty == NcType::Char || is_complex(v) {
        return Ok(char_att(name, read_text(v)));
    }
    let value = match ty {
        NcType::String => {
            let one = |x: &Json| read_text(x).into_bytes();
            AttValue::Strings(match v {
                Json::Arr(a) => a.iter().map(one).collect(),
                x => vec![one(x)],
            })
        }
        _ => {
            let mut out = Vec::new();
            match v {
                Json::Arr(a) => {
                    for x in a {
                        scalar_to_bytes(&x.to_value(), ty, &mut out)?;
                    }
                }
                x => scalar_to_bytes(&x.to_value(), ty, &mut out)?,
            }
            AttValue::Bytes(out)
        }
    };
    Ok(Att {
        name: name.to_string(),
        ty,
        value,
    })
}

/// Infer an attribute's type from JSON alone (pure Zarr), as netcdf-c does:
/// integers take the smallest of int, uint, int64, uint64 that holds them all;
/// any fraction (or NaN, or an infinity) makes it double; booleans are ubyte;
/// a string is char text; an array of strings is NC_STRING; anything else is
/// char holding the JSON text as netcdf-c writes it.
pub fn att_inferred(name: &str, v: &Json) -> NcResult<Att> {
    let items: Vec<&Json> = match v {
        Json::Arr(a) if !a.is_empty() && !is_complex(v) => a.iter().collect(),
        Json::Arr(_) | Json::Obj(_) => return Ok(char_att(name, v.to_nc_text())),
        x => vec![x],
    };
    let all = |f: &dyn Fn(&Json) -> bool| items.iter().all(|x| f(x));
    if all(&|x| matches!(x, Json::Str(_))) {
        if items.len() == 1 && !matches!(v, Json::Arr(_)) {
            return att_typed(name, v, NcType::Char);
        }
        return att_typed(name, v, NcType::String);
    }
    if all(&|x| matches!(x, Json::Bool(_))) {
        return att_typed(name, v, NcType::UByte);
    }
    let int = |x: &Json| match x {
        Json::Num(dialect::NumValue::Int(i), _) => Some(*i),
        _ => None,
    };
    if all(&|x| int(x).is_some()) {
        let fits = |lo: i128, hi: i128| items.iter().all(|x| int(x).is_some_and(|n| n >= lo && n <= hi));
        let ty = if fits(i32::MIN.into(), i32::MAX.into()) {
            NcType::Int
        } else if fits(0, u32::MAX.into()) {
            NcType::UInt
        } else if fits(i64::MIN.into(), i64::MAX.into()) {
            NcType::Int64
        } else if fits(0, u64::MAX.into()) {
            NcType::UInt64
        } else {
            NcType::Double
        };
        return att_typed(name, v, ty);
    }
    let number = |x: &Json| match x {
        Json::Num(..) => true,
        // Zarr's spellings of NaN and the infinities, in a list of numbers.
        Json::Str(_) | Json::Bool(_) => value_as_f64(&x.to_value()).is_some(),
        _ => false,
    };
    if all(&|x| number(x)) {
        return att_typed(name, v, NcType::Double);
    }
    Ok(char_att(name, v.to_nc_text()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_round_trip() {
        for f in [
            0.1f64,
            1.0 / 3.0,
            1e-300,
            std::f64::consts::PI,
            9.969209968386869e36,
            -0.0,
        ] {
            let s = Out::F64(f).to_json();
            let back: f64 = serde_json::from_str(&s).unwrap();
            assert_eq!(back.to_bits(), f.to_bits(), "{s}");
        }
        assert_eq!(Out::F32(0.1).to_json(), "0.1");
        assert_eq!(Out::F64(f64::NAN).to_json(), "\"NaN\"");
        assert_eq!(Out::F64(f64::NEG_INFINITY).to_json(), "\"-Infinity\"");
    }

    fn j(text: &str) -> Json {
        dialect::parse(text).unwrap()
    }

    #[test]
    fn inference() {
        assert_eq!(att_inferred("a", &j("[1, 2, 3000000000]")).unwrap().ty, NcType::UInt);
        assert_eq!(att_inferred("a", &j("-3000000000")).unwrap().ty, NcType::Int64);
        assert_eq!(
            att_inferred("a", &j("18446744073709551615")).unwrap().ty,
            NcType::UInt64
        );
        assert_eq!(att_inferred("a", &j("[1, 2.5]")).unwrap().ty, NcType::Double);
        assert_eq!(att_inferred("a", &j("[true, false]")).unwrap().ty, NcType::UByte);
        assert_eq!(att_inferred("a", &j(r#"["x", "y"]"#)).unwrap().ty, NcType::String);
        let a = att_inferred("a", &j(r#""x""#)).unwrap();
        assert_eq!((a.ty, a.value), (NcType::Char, AttValue::Bytes(b"x".to_vec())));
        let a = att_inferred("a", &j("{\"a\":1,\"b\":[1, 2]}")).unwrap();
        assert_eq!(a.ty, NcType::Char);
        assert_eq!(a.value, AttValue::Bytes(b"{\"a\": 1, \"b\": [1,2]}".to_vec()));
        let a = att_inferred("a", &j("[[1.0, 0.0], [0., 1.]]")).unwrap();
        assert_eq!(a.value, AttValue::Bytes(b"[[1.0,0.0],[0.,1.]]".to_vec()));
        // Python's bare NaN is a number: the attribute is double.
        let a = att_inferred("a", &j("NaN")).unwrap();
        assert_eq!(a.ty, NcType::Double);
        let AttValue::Bytes(b) = &a.value else { panic!() };
        assert!(f64::from_ne_bytes(b[..8].try_into().unwrap()).is_nan());
        let a = att_inferred("a", &j("[1.5, -Infinity]")).unwrap();
        let want: Vec<u8> = [1.5f64, f64::NEG_INFINITY]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect();
        assert_eq!((a.ty, a.value), (NcType::Double, AttValue::Bytes(want)));
        // The string "NaN" alone is text.
        assert_eq!(att_inferred("a", &j(r#""NaN""#)).unwrap().ty, NcType::Char);
        assert_eq!(
            att_inferred("a", &j("[]")).unwrap().value,
            AttValue::Bytes(b"[]".to_vec())
        );
        assert_eq!(
            att_inferred("a", &j("null")).unwrap().value,
            AttValue::Bytes(b"null".to_vec())
        );
    }

    #[test]
    fn typed_values() {
        let a = att_typed("a", &j("[0.,0.,1.]"), NcType::Char).unwrap();
        assert_eq!(a.value, AttValue::Bytes(b"[0.,0.,1.]".to_vec()));
        let a = att_typed("a", &j("42"), NcType::Char).unwrap();
        assert_eq!(a.value, AttValue::Bytes(b"42".to_vec()));
        let a = att_typed("a", &j("[1, 2]"), NcType::Short).unwrap();
        let want: Vec<u8> = [1i16, 2].iter().flat_map(|x| x.to_ne_bytes()).collect();
        assert_eq!(a.value, AttValue::Bytes(want));
        assert!(att_typed("a", &j("70000"), NcType::Short).is_err());
        assert!(att_typed("a", &j("1.5"), NcType::Int).is_err());
        assert!(att_typed("a", &j("NaN"), NcType::Int).is_err());
        let a = att_typed("a", &j("NaN"), NcType::Float).unwrap();
        let AttValue::Bytes(b) = &a.value else { panic!() };
        assert!(f32::from_ne_bytes(b[..4].try_into().unwrap()).is_nan());
        let a = att_typed("a", &j(r#"["x", 1]"#), NcType::String).unwrap();
        assert_eq!(a.value, AttValue::Strings(vec![b"x".to_vec(), b"1".to_vec()]));
        // An object is text whatever the recorded type, as in netcdf-c.
        let a = att_typed("a", &j(r#"{"k": [1]}"#), NcType::Int).unwrap();
        assert_eq!(
            (a.ty, a.value),
            (NcType::Char, AttValue::Bytes(br#"{"k": [1]}"#.to_vec()))
        );
    }

    #[test]
    fn text_attributes_as_json() {
        let obj = r#"{"a": 1, "b": [1, 2]}"#;
        assert_eq!(text_as_json(obj, true).as_deref(), Some(r#"{"a": 1, "b": [1,2]}"#));
        assert_eq!(text_as_json(obj, false).as_deref(), Some(r#"{"a": 1, "b": [1,2]}"#));
        assert_eq!(text_as_json("[1, 2]", true).as_deref(), Some("[1,2]"));
        // Numbers keep their spelling.
        assert_eq!(text_as_json("[1e5, 1.50]", true).as_deref(), Some("[1e5,1.50]"));
        // Without recorded types an array of numbers would read back as numbers.
        assert_eq!(text_as_json("[1, 2]", false), None);
        assert_eq!(text_as_json("[[1], [2]]", false).as_deref(), Some("[[1],[2]]"));
        for keep in [
            "42",
            "true",
            "null",
            "\"quoted\"",
            "text",
            "[0.,1.]",
            "[1, 2",
            "{\"a\": NaN}",
            "[\"\\u00e9\"]",
            "",
        ] {
            assert_eq!(text_as_json(keep, true), None, "{keep}");
        }
        // What is stored reads back as the text netcdf-c shows.
        let stored = text_as_json(obj, true).unwrap();
        assert_eq!(read_text(&j(&stored)), stored);
    }

    #[test]
    fn out_style() {
        let o = Out::obj(vec![("a", Out::I(1)), ("b", Out::Arr(vec![Out::I(1), Out::I(2)]))]);
        assert_eq!(o.to_json(), "{\"a\": 1, \"b\": [1,2]}");
        assert_eq!(Out::Arr(vec![Out::Raw("{\"x\": 1}".into())]).to_json(), "[{\"x\": 1}]");
    }

    #[test]
    fn metadata_dialects_parse() {
        let v = parse(b"{\"fill_value\": NaN, \"a\": [0., 1.e2]}", "t").unwrap();
        assert_eq!(v["fill_value"], "NaN");
        assert_eq!(v["a"][0].as_f64(), Some(0.0));
        assert_eq!(v["a"][1].as_f64(), Some(100.0));
        assert!(parse(b"{\"a\": nope}", "t").is_err());
        assert!(parse(b"[1] 2", "t").is_err());
    }
}
