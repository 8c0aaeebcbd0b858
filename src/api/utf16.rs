//! UTF-8 to UTF-16 for ncgen's Java output (`nc_utf8_to_utf16`).
//!
//! netcdf-c only handles the Basic Multilingual Plane here: each code point
//! becomes one 16-bit unit, and a code point above U+FFFF is an error rather
//! than a surrogate pair.
#![forbid(unsafe_code)]

use crate::error::{NcError, NcResult};

/// The UTF-16 code units of `s8` (without a terminator). Bytes that are not
/// well-formed UTF-8 (overlong forms, surrogates, truncated sequences) and
/// code points outside the BMP give `NC_EBADNAME`.
pub fn utf8_to_ucs2(s8: &[u8]) -> NcResult<Vec<u16>> {
    let text = std::str::from_utf8(s8).map_err(|_| NcError::BadName)?;
    text.chars()
        .map(|c| u16::try_from(u32::from(c)).map_err(|_| NcError::BadName))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bmp_only() {
        assert_eq!(utf8_to_ucs2(b"").unwrap(), Vec::<u16>::new());
        assert_eq!(
            utf8_to_ucs2("a\u{e9}\u{20ac}".as_bytes()).unwrap(),
            vec![0x61, 0xe9, 0x20ac]
        );
        assert_eq!(utf8_to_ucs2("\u{1f600}".as_bytes()), Err(NcError::BadName));
        assert_eq!(utf8_to_ucs2(b"\xc0\xaf"), Err(NcError::BadName));
        assert_eq!(utf8_to_ucs2(b"\xed\xa0\x80"), Err(NcError::BadName));
        assert_eq!(utf8_to_ucs2(b"ab\xe2\x82"), Err(NcError::BadName));
    }
}
