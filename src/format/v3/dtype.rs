//! Zarr v3 `data_type` <-> netCDF types.
//!
//! Core types (zarr-specs `docs/v3/core/index.rst`, "Data types"): `bool`,
//! `int8`..`uint64`, `float32`, `float64` and the raw bits `r<8n>`; the
//! registered extensions zarr-python writes (zarr-extensions `data-types/`):
//! `string` (with the `vlen-utf8` codec), `variable_length_bytes` (`bytes`,
//! with `vlen-bytes`), `null_terminated_bytes`, `fixed_length_utf32` and
//! `raw_bytes`, each `{"name": ..., "configuration": {"length_bytes": n}}`.
//! Everything else (float16, complex, datetime64, struct, ...) has no
//! netCDF type: the array is hidden.
#![forbid(unsafe_code)]

use serde_json::Value;

use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::model::StringLayout;
use crate::model::types::NcType;

/// Fixed-width strings wider than this are refused (as the v2 reader does).
const MAX_STRING_BYTES: usize = 1 << 20;

/// What a v3 data type is in netCDF terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V3Type {
    pub ty: NcType,
    /// How strings sit in a chunk before codecs (None for numbers).
    pub strings: Option<StringLayout>,
    /// The kind of value, for fill values and for writing it back.
    pub kind: Kind,
    /// The data type exactly as stored (JSON text), written back unchanged.
    pub json: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Bool,
    Int,
    Float,
    /// `string`: UTF-8 of any length (`vlen-utf8`).
    Utf8,
    /// `variable_length_bytes`: bytes of any length (`vlen-bytes`).
    VlenBytes,
    /// `null_terminated_bytes` (numpy `S<n>`).
    NullTerminated,
    /// `fixed_length_utf32` (numpy `U<n>`).
    Utf32,
    /// Raw bytes: `r<8n>` (fill: an array of byte values) or `raw_bytes`
    /// (fill: base64).
    Raw,
}

fn unsupported(what: &str) -> NcError {
    crate::nclog!(Level::Warn, "Zarr v3 data type {} has no netCDF type", what);
    NcError::NcZarr
}

/// `length_bytes` of an extension data type's configuration.
fn length_bytes(v: &Value) -> Option<usize> {
    let n = v.get("configuration")?.get("length_bytes")?.as_u64()?;
    usize::try_from(n).ok().filter(|&n| (1..=MAX_STRING_BYTES).contains(&n))
}

/// Parse a `data_type` member. `nczarr_char`: the NCZarr alias says the
/// `uint8` array is NC_CHAR.
pub fn parse(v: &Value, nczarr_alias: Option<&str>) -> NcResult<V3Type> {
    let json = v.to_string();
    let (name, configured) = match v {
        Value::String(s) => (s.as_str(), false),
        Value::Object(o) => (
            o.get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| unsupported(&json))?,
            true,
        ),
        _ => return Err(unsupported(&json)),
    };
    let num = |ty: NcType, kind: Kind| V3Type {
        ty,
        strings: None,
        kind,
        json: json.clone(),
    };
    let strings = |layout: StringLayout, kind: Kind| V3Type {
        ty: NcType::String,
        strings: Some(layout),
        kind,
        json: json.clone(),
    };
    Ok(match name {
        "bool" => num(NcType::UByte, Kind::Bool),
        "int8" => num(NcType::Byte, Kind::Int),
        "uint8" if nczarr_alias == Some("char") => num(NcType::Char, Kind::Int),
        "uint8" => num(NcType::UByte, Kind::Int),
        "int16" => num(NcType::Short, Kind::Int),
        "uint16" => num(NcType::UShort, Kind::Int),
        "int32" => num(NcType::Int, Kind::Int),
        "uint32" => num(NcType::UInt, Kind::Int),
        "int64" => num(NcType::Int64, Kind::Int),
        "uint64" => num(NcType::UInt64, Kind::Int),
        "float32" => num(NcType::Float, Kind::Float),
        "float64" => num(NcType::Double, Kind::Float),
        "string" => strings(StringLayout::VlenUtf8, Kind::Utf8),
        "variable_length_bytes" | "bytes" => strings(StringLayout::VlenUtf8, Kind::VlenBytes),
        "null_terminated_bytes" if configured => {
            let n = length_bytes(v).ok_or_else(|| unsupported(&json))?;
            strings(StringLayout::Fixed(n), Kind::NullTerminated)
        }
        "fixed_length_utf32" if configured => {
            let n = length_bytes(v)
                .filter(|n| n % 4 == 0)
                .ok_or_else(|| unsupported(&json))?;
            // (The byte order comes from the `bytes` codec.)
            strings(StringLayout::Utf32 { n: n / 4, big: false }, Kind::Utf32)
        }
        "raw_bytes" if configured => {
            let n = length_bytes(v).ok_or_else(|| unsupported(&json))?;
            strings(StringLayout::Fixed(n), Kind::Raw)
        }
        r if r.len() > 1 && r.starts_with('r') && !configured => {
            let bits: usize = r[1..].parse().map_err(|_| unsupported(&json))?;
            if bits == 0 || !bits.is_multiple_of(8) || bits / 8 > MAX_STRING_BYTES {
                return Err(unsupported(&json));
            }
            if bits == 8 && nczarr_alias != Some("string") {
                num(NcType::UByte, Kind::Raw)
            } else {
                strings(StringLayout::Fixed(bits / 8), Kind::Raw)
            }
        }
        _ => return Err(unsupported(&json)),
    })
}

/// The `data_type` written for a variable of type `ty` stored as `layout`.
pub fn format(ty: NcType, layout: StringLayout) -> String {
    let s = match ty {
        NcType::Byte => "int8",
        NcType::UByte | NcType::Char => "uint8",
        NcType::Short => "int16",
        NcType::UShort => "uint16",
        NcType::Int => "int32",
        NcType::UInt => "uint32",
        NcType::Int64 => "int64",
        NcType::UInt64 => "uint64",
        NcType::Float => "float32",
        NcType::Double => "float64",
        NcType::String => {
            return match layout {
                StringLayout::VlenUtf8 => "\"string\"".to_string(),
                StringLayout::Fixed(n) => {
                    format!("{{\"name\": \"null_terminated_bytes\", \"configuration\": {{\"length_bytes\": {n}}}}}")
                }
                StringLayout::Utf32 { n, .. } => format!(
                    "{{\"name\": \"fixed_length_utf32\", \"configuration\": {{\"length_bytes\": {}}}}}",
                    n * 4
                ),
            };
        }
    };
    format!("\"{s}\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn core_and_extension_types() {
        assert_eq!(parse(&json!("int32"), None).unwrap().ty, NcType::Int);
        assert_eq!(parse(&json!("bool"), None).unwrap().kind, Kind::Bool);
        assert_eq!(parse(&json!("uint8"), Some("char")).unwrap().ty, NcType::Char);
        let s = parse(&json!("string"), None).unwrap();
        assert_eq!((s.ty, s.strings), (NcType::String, Some(StringLayout::VlenUtf8)));
        let u = parse(
            &json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}}),
            None,
        )
        .unwrap();
        assert_eq!(u.strings, Some(StringLayout::Utf32 { n: 3, big: false }));
        let b = parse(
            &json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 5}}),
            None,
        )
        .unwrap();
        assert_eq!(b.strings, Some(StringLayout::Fixed(5)));
        assert_eq!(parse(&json!("r8"), None).unwrap().ty, NcType::UByte);
        assert_eq!(
            parse(&json!("r64"), Some("string")).unwrap().strings,
            Some(StringLayout::Fixed(8))
        );
        for bad in [
            json!("float16"),
            json!("complex64"),
            json!({"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}}),
            json!("r7"),
            json!("r0"),
            json!("r99999999999999999999"),
            json!({"name": "fixed_length_utf32", "configuration": {"length_bytes": 3}}),
            json!({"name": "null_terminated_bytes", "configuration": {"length_bytes": 0}}),
            json!({"name": "null_terminated_bytes"}),
            json!(5),
            json!({"configuration": {}}),
        ] {
            assert_eq!(parse(&bad, None), Err(NcError::NcZarr), "{bad}");
        }
    }

    #[test]
    fn written_types_read_back() {
        for t in NcType::ALL {
            let layout = StringLayout::VlenUtf8;
            let v: Value = serde_json::from_str(&format(t, layout)).unwrap();
            let alias = (t == NcType::Char).then_some("char");
            assert_eq!(parse(&v, alias).unwrap().ty, t);
        }
    }
}
