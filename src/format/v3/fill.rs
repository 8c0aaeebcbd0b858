//! Zarr v3 `fill_value` in every encoding the spec and zarr-python use:
//! numbers; `"NaN"`, `"Infinity"`, `"-Infinity"` and the bits of a float as
//! hex (`"0x7fc00000"`); booleans; strings; raw bytes as an array of byte
//! values (`r<8n>`) or base64 (zarr-python's bytes types). Also xarray's
//! `_FillValue` attribute of a v3 array: base64 of the value's bytes.
#![forbid(unsafe_code)]

use serde_json::Value;

use super::dtype::{Kind, V3Type};
use crate::error::{NcError, NcResult};
use crate::format::json::{Out, scalar_to_bytes};
use crate::model::StringLayout;
use crate::model::types::NcType;

/// The fill value as the model keeps it: native-endian bytes of the type,
/// the string's bytes for NC_STRING. Anything that does not fit the type is
/// `NC_ENCZARR`.
pub fn parse(v: &Value, t: &V3Type) -> NcResult<Vec<u8>> {
    let bad = || NcError::NcZarr;
    let mut out = Vec::new();
    match (t.kind, v) {
        (_, Value::Null) => return Err(bad()),
        (Kind::Bool, Value::Bool(b)) => out.push(u8::from(*b)),
        (Kind::Bool, _) => return Err(bad()),
        (Kind::Int, Value::Number(n)) if t.ty == NcType::Char => {
            out.push(n.as_u64().and_then(|u| u8::try_from(u).ok()).ok_or_else(bad)?);
        }
        (Kind::Int, Value::Number(_)) => scalar_to_bytes(v, t.ty, &mut out)?,
        (Kind::Int, _) => return Err(bad()),
        (Kind::Float, Value::String(s)) if s.starts_with("0x") => {
            let digits = &s[2..];
            let size = t.ty.size();
            if digits.len() != size * 2 {
                return Err(bad());
            }
            let bits = u64::from_str_radix(digits, 16).map_err(|_| bad())?;
            match t.ty {
                NcType::Float => out.extend_from_slice(&u32::try_from(bits).map_err(|_| bad())?.to_ne_bytes()),
                _ => out.extend_from_slice(&bits.to_ne_bytes()),
            }
        }
        (Kind::Float, Value::Number(_) | Value::String(_)) => scalar_to_bytes(v, t.ty, &mut out)?,
        (Kind::Float, _) => return Err(bad()),
        (Kind::Utf8 | Kind::Utf32, Value::String(s)) => out.extend_from_slice(s.as_bytes()),
        (Kind::NullTerminated | Kind::VlenBytes, Value::String(s)) => {
            out = base64_decode(s).ok_or_else(bad)?;
        }
        // Raw bytes: zarr-python's base64, else (netcdf-c's draft strings
        // as raw bits) the text itself.
        (Kind::Raw, Value::String(s)) => out = base64_decode(s).unwrap_or_else(|| s.as_bytes().to_vec()),
        (Kind::Raw, Value::Array(a)) => {
            for x in a {
                out.push(x.as_u64().and_then(|u| u8::try_from(u).ok()).ok_or_else(bad)?);
            }
        }
        _ => return Err(bad()),
    }
    match (t.ty, t.strings) {
        (NcType::String, Some(StringLayout::Fixed(n))) => {
            if out.len() > n {
                return Err(bad());
            }
            let end = out.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
            out.truncate(end);
        }
        (NcType::String, _) => {}
        (ty, _) if out.len() != ty.size() => return Err(bad()),
        _ => {}
    }
    Ok(out)
}

/// The fill value as `zarr.json` JSON, the way zarr-python writes it.
pub fn to_out(fill: &[u8], t: &V3Type) -> Out {
    match t.kind {
        Kind::Bool => Out::Bool(fill.first().is_some_and(|&b| b != 0)),
        Kind::Utf8 | Kind::Utf32 => Out::Str(String::from_utf8_lossy(fill).into_owned()),
        Kind::NullTerminated | Kind::VlenBytes => Out::Str(base64_encode(fill)),
        Kind::Raw if t.ty == NcType::String => {
            let n = match t.strings {
                Some(StringLayout::Fixed(n)) => n,
                _ => fill.len(),
            };
            let mut b = fill.to_vec();
            b.resize(n, 0);
            Out::Arr(b.into_iter().map(|x| Out::U(u64::from(x))).collect())
        }
        Kind::Raw => Out::Arr(fill.iter().map(|&x| Out::U(u64::from(x))).collect()),
        Kind::Int if t.ty == NcType::Char => Out::U(u64::from(fill.first().copied().unwrap_or(0))),
        Kind::Int | Kind::Float => crate::format::json::bytes_to_out(fill, t.ty),
    }
}

/// xarray's `_FillValue` attribute of a v3 float array: base64 of a
/// little-endian double (`struct.pack("<d", value)`), or of the value in the
/// array's own type. None when `s` is not that.
pub fn xarray_fill_att(s: &str, ty: NcType) -> Option<Vec<u8>> {
    let b = base64_decode(s)?;
    let f = match (ty, b.len()) {
        (NcType::Float | NcType::Double, 8) => f64::from_le_bytes(b.try_into().ok()?),
        (NcType::Float, 4) => f64::from(f32::from_le_bytes(b.try_into().ok()?)),
        _ => return None,
    };
    Some(match ty {
        NcType::Float => (f as f32).to_ne_bytes().to_vec(),
        _ => f.to_ne_bytes().to_vec(),
    })
}

/// xarray's encoding of a float `_FillValue` for v3: base64 of the value as
/// a little-endian double.
pub fn xarray_fill_text(fill: &[u8], ty: NcType) -> Option<String> {
    let f = match ty {
        NcType::Float => f64::from(f32::from_ne_bytes(fill.try_into().ok()?)),
        NcType::Double => f64::from_ne_bytes(fill.try_into().ok()?),
        _ => return None,
    };
    Some(base64_encode(&f.to_le_bytes()))
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (Python's `standard_b64encode`).
pub fn base64_encode(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len().div_ceil(3) * 4);
    for c in b.chunks(3) {
        let n =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                s.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// Standard base64 (padding optional); None for anything else.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let v = ALPHABET.iter().position(|&a| a == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    // Leftover bits must be zero padding of the last byte (at most 4 bits).
    if bits >= 6 || acc & ((1 << bits) - 1) != 0 {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::v3::dtype;
    use serde_json::json;

    fn ty(v: Value) -> V3Type {
        dtype::parse(&v, None).unwrap()
    }

    #[test]
    fn every_encoding() {
        let f32t = ty(json!("float32"));
        let f64t = ty(json!("float64"));
        let f = |v: Value, t: &V3Type| parse(&v, t);
        assert_eq!(f(json!(1.5), &f32t).unwrap(), 1.5f32.to_ne_bytes());
        assert!(f32::from_ne_bytes(f(json!("NaN"), &f32t).unwrap().try_into().unwrap()).is_nan());
        assert_eq!(f(json!("Infinity"), &f64t).unwrap(), f64::INFINITY.to_ne_bytes());
        assert_eq!(f(json!("-Infinity"), &f64t).unwrap(), f64::NEG_INFINITY.to_ne_bytes());
        assert_eq!(f(json!("0x3fc00000"), &f32t).unwrap(), 1.5f32.to_ne_bytes());
        assert_eq!(f(json!("0x3ff8000000000000"), &f64t).unwrap(), 1.5f64.to_ne_bytes());
        assert_eq!(f(json!("0x7fc00001"), &f32t).unwrap(), 0x7fc0_0001u32.to_ne_bytes());
        assert!(f(json!("0x3ff8"), &f64t).is_err());
        assert!(f(json!("0xzz000000"), &f32t).is_err());
        assert!(f(json!("nope"), &f32t).is_err());
        assert!(f(json!(null), &f32t).is_err());
        assert!(f(json!(true), &f32t).is_err());
        let i16t = ty(json!("int16"));
        assert_eq!(f(json!(-7), &i16t).unwrap(), (-7i16).to_ne_bytes());
        assert!(f(json!(40000), &i16t).is_err());
        assert!(f(json!(1.5), &i16t).is_err());
        assert!(f(json!("1"), &i16t).is_err());
        let b = ty(json!("bool"));
        assert_eq!(f(json!(true), &b).unwrap(), [1]);
        assert!(f(json!(1), &b).is_err());
        assert_eq!(f(json!("héllo"), &ty(json!("string"))).unwrap(), "héllo".as_bytes());
        let nt = ty(json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 4}}));
        assert_eq!(f(json!("YWIAAA=="), &nt).unwrap(), b"ab");
        assert!(f(json!("YWJjZGU="), &nt).is_err(), "longer than the type");
        let r = ty(json!("r16"));
        assert_eq!(f(json!([65, 0]), &r).unwrap(), b"A");
        assert!(f(json!([256, 0]), &r).is_err());
        assert_eq!(f(json!([9]), &ty(json!("r8"))).unwrap(), [9]);
        let c = dtype::parse(&json!("uint8"), Some("char")).unwrap();
        assert_eq!(f(json!(65), &c).unwrap(), b"A");
        assert_eq!(to_out(b"A", &c), Out::U(65));
        assert!(f(json!("A"), &c).is_err());
    }

    #[test]
    fn base64_round_trip() {
        for n in 0..10 {
            let b: Vec<u8> = (0..n).map(|i| (i * 37 + 1) as u8).collect();
            assert_eq!(base64_decode(&base64_encode(&b)).unwrap(), b);
        }
        assert_eq!(base64_encode(&f64::NAN.to_le_bytes()), "AAAAAAAA+H8=");
        assert!(base64_decode("A").is_none());
        assert!(base64_decode("a$==").is_none());
        assert_eq!(
            xarray_fill_att("AAAAAAAA+H8=", NcType::Float).map(|b| f32::from_ne_bytes(b.try_into().unwrap()).is_nan()),
            Some(true)
        );
        assert_eq!(xarray_fill_att("AAAAAAAA+H8=", NcType::Int), None);
    }
}
