//! Reading and writing codec JSON objects (`{"id": "zlib", "level": 5}`).

use serde_json::{Map, Value};

use crate::error::{NcError, NcResult};
use crate::log::Level;

/// Parse codec JSON text into its object, checking that its `"id"` is `id`
/// (a mismatch is `NC_EINVAL`, as netcdf-c's codec libraries answer).
pub fn object(text: &str, id: &str) -> NcResult<Map<String, Value>> {
    let v: Value = serde_json::from_str(text).map_err(|_| {
        crate::nclog!(Level::Error, "codec {id}: not JSON: {text}");
        NcError::Filter
    })?;
    let Value::Object(m) = v else {
        crate::nclog!(Level::Error, "codec {id}: not a JSON object: {text}");
        return Err(NcError::Filter);
    };
    if m.get("id").and_then(Value::as_str) != Some(id) {
        crate::nclog!(Level::Error, "codec {id}: JSON names another codec: {text}");
        return Err(NcError::Inval);
    }
    Ok(m)
}

/// An integer member; `None` when absent or null. A member that is present but
/// not an integer is `NC_EFILTER`.
pub fn int(m: &Map<String, Value>, key: &str) -> NcResult<Option<i64>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            if let Some(i) = v.as_i64() {
                return Ok(Some(i));
            }
            if let Some(u) = v.as_u64() {
                return i64::try_from(u).map(Some).map_err(|_| NcError::Filter);
            }
            // numcodecs never writes these, but a float with an integral
            // value is read as that integer.
            match v.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(f as i64)),
                _ => {
                    crate::nclog!(Level::Error, "codec member {key} is not an integer: {v}");
                    Err(NcError::Filter)
                }
            }
        }
    }
}

/// A required integer member in `lo..=hi`, else `NC_EFILTER`.
pub fn int_in(m: &Map<String, Value>, key: &str, lo: i64, hi: i64, default: Option<i64>) -> NcResult<i64> {
    let v = match int(m, key)? {
        Some(v) => v,
        None => default.ok_or_else(|| {
            crate::nclog!(Level::Error, "codec member {key} is missing");
            NcError::Filter
        })?,
    };
    if !(lo..=hi).contains(&v) {
        crate::nclog!(Level::Error, "codec member {key} = {v} is outside {lo}..={hi}");
        return Err(NcError::Filter);
    }
    Ok(v)
}

/// A string member, `None` when absent.
pub fn string<'a>(m: &'a Map<String, Value>, key: &str) -> NcResult<Option<&'a str>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => {
            crate::nclog!(Level::Error, "codec member {key} is not a string: {v}");
            Err(NcError::Filter)
        }
    }
}

/// Quote a string as a JSON string literal.
pub fn quote(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// Check a visible-parameter count (`NC_EFILTER` otherwise).
pub fn nparams(id: &str, visible: &[u32], lo: usize, hi: usize) -> NcResult<()> {
    if visible.len() < lo || visible.len() > hi {
        crate::nclog!(
            Level::Error,
            "codec {id}: {} parameters, expected {lo}..={hi}",
            visible.len()
        );
        return Err(NcError::Filter);
    }
    Ok(())
}
