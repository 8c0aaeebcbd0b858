//! Zarr v2 `dtype` strings <-> netCDF types.
#![forbid(unsafe_code)]

use crate::error::{NcError, NcResult};
use crate::model::StringLayout;
use crate::model::types::NcType;

/// A parsed dtype: the netCDF type, whether values are big-endian, and the string layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dtype {
    pub ty: NcType,
    pub big_endian: bool,
    pub strings: Option<StringLayout>,
    /// The dtype says "no byte order" (`|`), which netcdf-c reports as NC_ENDIAN_NATIVE.
    pub native: bool,
}

/// Parse a Zarr v2 dtype. `>S1` is NC_CHAR (netcdf-c's convention); other `S`
/// widths and `U` are NC_STRING; `|b1` reads as NC_UBYTE. Anything else is
/// NC_ENCZARR.
pub fn parse(s: &str) -> NcResult<Dtype> {
    let bad = || {
        crate::nclog!(crate::log::Level::Warn, "unsupported Zarr dtype {:?}", s);
        NcError::NcZarr
    };
    let b = s.as_bytes();
    let (order, rest) = match b.first() {
        Some(b'<') => ('<', &s[1..]),
        Some(b'>') => ('>', &s[1..]),
        Some(b'|') => ('|', &s[1..]),
        _ => ('=', s),
    };
    if rest == "O" {
        // Python objects: only strings, with the vlen-utf8 codec (checked by the reader).
        return Ok(Dtype {
            ty: NcType::String,
            big_endian: false,
            strings: Some(StringLayout::VlenUtf8),
            native: true,
        });
    }
    let mut chars = rest.chars();
    let kind = chars.next().ok_or_else(bad)?;
    let size: usize = chars.as_str().parse().map_err(|_| bad())?;
    let big = order == '>' || (order == '=' && cfg!(target_endian = "big"));
    let ty = match (kind, size) {
        ('i', 1) => NcType::Byte,
        ('i', 2) => NcType::Short,
        ('i', 4) => NcType::Int,
        ('i', 8) => NcType::Int64,
        ('u', 1) => NcType::UByte,
        ('u', 2) => NcType::UShort,
        ('u', 4) => NcType::UInt,
        ('u', 8) => NcType::UInt64,
        ('f', 4) => NcType::Float,
        ('f', 8) => NcType::Double,
        ('b', 1) => NcType::UByte,
        ('S', 1) if order == '>' => NcType::Char,
        ('S', n) if (1..=1 << 20).contains(&n) => {
            return Ok(Dtype {
                ty: NcType::String,
                big_endian: false,
                strings: Some(StringLayout::Fixed(n)),
                native: true,
            });
        }
        ('U', n) if (1..=1 << 18).contains(&n) => {
            return Ok(Dtype {
                ty: NcType::String,
                big_endian: big,
                strings: Some(StringLayout::Utf32 { n, big }),
                native: false,
            });
        }
        _ => return Err(bad()),
    };
    Ok(Dtype {
        ty,
        big_endian: big && ty.size() > 1,
        strings: None,
        native: order == '|',
    })
}

/// Parse a dtype found in NCZarr metadata. netcdf-c up to 4.9.0 wrote char
/// data and char attributes as `<U1`/`>U1` holding one byte per value.
pub fn parse_nczarr(s: &str, legacy: bool) -> NcResult<Dtype> {
    if legacy && matches!(s, "<U1" | ">U1" | "|U1" | "U1") {
        return Ok(Dtype {
            ty: NcType::Char,
            big_endian: false,
            strings: None,
            native: true,
        });
    }
    parse(s)
}

/// The dtype written for a variable or attribute type: netcdf-c's, except
/// that one-byte numbers carry no byte order (`|i1`, `|u1`), which every Zarr
/// reader accepts (zarr-python 3 refuses `<u1`) and netcdf-c reads alike.
/// `pure_zarr` char is `|S1` (zarr-python refuses `>S1`, NCZarr's char marker).
pub fn format(ty: NcType, big_endian: bool, maxstrlen: usize, pure_zarr: bool) -> String {
    let e = if big_endian { '>' } else { '<' };
    match ty {
        NcType::Char if pure_zarr => "|S1".to_string(),
        NcType::Char => ">S1".to_string(),
        NcType::Byte => "|i1".to_string(),
        NcType::UByte => "|u1".to_string(),
        NcType::String => format!("|S{maxstrlen}"),
        NcType::Short => format!("{e}i2"),
        NcType::UShort => format!("{e}u2"),
        NcType::Int => format!("{e}i4"),
        NcType::UInt => format!("{e}u4"),
        NcType::Int64 => format!("{e}i8"),
        NcType::UInt64 => format!("{e}u8"),
        NcType::Float => format!("{e}f4"),
        NcType::Double => format!("{e}f8"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_dtypes() {
        assert_eq!(parse("<i4").unwrap().ty, NcType::Int);
        assert!(parse(">f8").unwrap().big_endian);
        assert!(!parse("|u1").unwrap().big_endian);
        assert_eq!(parse(">S1").unwrap().ty, NcType::Char);
        assert_eq!(parse("|S1").unwrap().ty, NcType::String);
        assert_eq!(parse("|S128").unwrap().strings, Some(StringLayout::Fixed(128)));
        assert_eq!(
            parse("<U3").unwrap().strings,
            Some(StringLayout::Utf32 { n: 3, big: false })
        );
        assert_eq!(parse("<c8"), Err(NcError::NcZarr));
        assert_eq!(parse(""), Err(NcError::NcZarr));
        assert_eq!(parse("<i3"), Err(NcError::NcZarr));
        assert_eq!(parse("|S99999999999999999999"), Err(NcError::NcZarr));
    }
}
