//! zlib / deflate: HDF5 filter 1, numcodecs codec `zlib`.
//!
//! JSON: `{"id": "zlib", "level": 5}` (level 0..=9). Visible and working
//! parameters: `[level]`. Whole chunks are decoded by libdeflate (about twice
//! as fast as zlib); level 1 is encoded by ISA-L's igzip when the library is
//! built with it (`crate::sys::isal`), other levels by libdeflate. Either
//! way the output is a standard zlib stream. A stream
//! libdeflate refuses (trailing bytes after the end, say) is retried with a
//! streaming zlib decoder, as zlib's `inflate` accepts it.

use std::cell::RefCell;
use std::io::Read;

use libdeflater::{CompressionLvl, Compressor, DecompressionError, Decompressor};

use super::json;
use super::{CodecMap, Hdf5Filter};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::runtime::buffers;

/// The most a decode without a caller's bound may produce (netcdf-c's chunk limit).
pub(crate) const UNBOUNDED: usize = 1 << 32;

#[derive(Debug)]
pub struct Zlib;

thread_local! {
    static DECOMPRESSOR: RefCell<Option<Decompressor>> = const { RefCell::new(None) };
    static COMPRESSOR: RefCell<Option<(i32, Compressor)>> = const { RefCell::new(None) };
}

/// Decode into a buffer of `expect` bytes, doubling it (up to `limit`) while
/// the decoder reports too little room.
pub(crate) fn grow_decode(
    what: &str,
    input: &[u8],
    expect: usize,
    limit: usize,
    mut run: impl FnMut(&[u8], &mut [u8]) -> Result<usize, DecompressionError>,
) -> NcResult<Vec<u8>> {
    let mut size = expect.clamp(64, limit.max(64));
    loop {
        let mut out = buffers::take_len(size);
        match run(input, &mut out) {
            Ok(n) => {
                out.truncate(n);
                return Ok(out);
            }
            Err(DecompressionError::InsufficientSpace) if size < limit => {
                buffers::give(out);
                size = size.saturating_mul(2).min(limit);
            }
            Err(e) => {
                buffers::give(out);
                crate::nclog!(
                    Level::Error,
                    "{what}: cannot decode a chunk of {} bytes: {e}",
                    input.len()
                );
                return Err(NcError::Filter);
            }
        }
    }
}

/// Decode a zlib stream with the streaming decoder, at most `limit` bytes.
fn inflate_stream(input: &[u8], limit: usize) -> NcResult<Vec<u8>> {
    let mut out = Vec::new();
    let mut d = flate2::read::ZlibDecoder::new(input).take(limit as u64 + 1);
    d.read_to_end(&mut out).map_err(|e| {
        crate::nclog!(Level::Error, "zlib: corrupt chunk: {e}");
        NcError::Filter
    })?;
    if out.len() > limit {
        crate::nclog!(Level::Error, "zlib: chunk decodes to more than {limit} bytes");
        return Err(NcError::Filter);
    }
    Ok(out)
}

pub(crate) fn check_level(level: u32) -> NcResult<i32> {
    if level > 9 {
        crate::nclog!(Level::Error, "deflate level {level} is outside 0..=9");
        return Err(NcError::Filter);
    }
    Ok(level as i32)
}

/// Compress as a zlib stream (`gzip`: a gzip stream). Level 1, the speed
/// level, goes through ISA-L's igzip when the library is built with it
/// (about four times faster, a ratio within a few per cent); other levels,
/// and anything igzip declines, through libdeflate.
pub(crate) fn compress(level: i32, input: &[u8], gzip: bool) -> NcResult<Vec<u8>> {
    COMPRESSOR.with(|c| {
        let mut c = c.borrow_mut();
        if c.as_ref().is_none_or(|(l, _)| *l != level) {
            let lvl = CompressionLvl::new(level).map_err(|_| NcError::Filter)?;
            *c = Some((level, Compressor::new(lvl)));
        }
        let (_, comp) = c.as_mut().ok_or(NcError::Internal)?;
        let bound = if gzip {
            comp.gzip_compress_bound(input.len())
        } else {
            comp.zlib_compress_bound(input.len())
        };
        let mut out = buffers::take_len(bound);
        if level == 1
            && let Some(n) = crate::sys::isal::deflate1(input, &mut out, gzip)
        {
            out.truncate(n);
            return Ok(out);
        }
        let r = if gzip {
            comp.gzip_compress(input, &mut out)
        } else {
            comp.zlib_compress(input, &mut out)
        };
        let n = r.map_err(|e| {
            crate::nclog!(Level::Error, "deflate: compression failed: {e}");
            NcError::Filter
        })?;
        out.truncate(n);
        Ok(out)
    })
}

pub(crate) fn with_decompressor<R>(f: impl FnOnce(&mut Decompressor) -> R) -> R {
    DECOMPRESSOR.with(|d| {
        let mut d = d.borrow_mut();
        f(d.get_or_insert_with(Decompressor::new))
    })
}

impl Hdf5Filter for Zlib {
    fn id(&self) -> u32 {
        1
    }

    fn name(&self) -> &str {
        "deflate"
    }

    fn apply(&self, decode: bool, cd_values: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>> {
        if decode {
            let expect = input.len().saturating_mul(4);
            return self.decode_bounded(cd_values, input, expect, UNBOUNDED);
        }
        let [level] = cd_values else {
            crate::nclog!(Level::Error, "deflate: expected 1 parameter, got {}", cd_values.len());
            return Err(NcError::Filter);
        };
        let out = compress(check_level(*level)?, &input, false)?;
        buffers::give(input);
        Ok(out)
    }

    fn decode_bounded(&self, _cd: &[u32], input: Vec<u8>, expect: usize, limit: usize) -> NcResult<Vec<u8>> {
        let r = with_decompressor(|d| grow_decode("zlib", &input, expect, limit, |i, o| d.zlib_decompress(i, o)));
        let out = match r {
            Ok(o) => o,
            Err(_) => inflate_stream(&input, limit)?,
        };
        buffers::give(input);
        Ok(out)
    }
}

impl CodecMap for Zlib {
    fn hdf5_id(&self) -> u32 {
        1
    }

    fn codec_id(&self) -> &str {
        "zlib"
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        let m = json::object(codec_json, "zlib")?;
        Ok(vec![json::int_in(&m, "level", 0, 9, None)? as u32])
    }

    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        json::nparams("zlib", visible, 1, 1)?;
        Ok(format!("{{\"id\": \"zlib\", \"level\": {}}}", check_level(visible[0])?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_level_and_corrupt_input() {
        let data: Vec<u8> = (0..10000u32).flat_map(|i| (i % 97).to_le_bytes()).collect();
        for level in 0..=9 {
            let enc = Zlib.apply(false, &[level], data.clone()).unwrap();
            assert_eq!(Zlib.decode_bounded(&[level], enc.clone(), 10, 1 << 20).unwrap(), data);
            assert!(Zlib.decode_bounded(&[level], enc, data.len(), data.len() - 1).is_err());
        }
        assert_eq!(Zlib.apply(false, &[10], data.clone()).unwrap_err(), NcError::Filter);
        assert_eq!(Zlib.apply(true, &[1], vec![1, 2, 3, 4]).unwrap_err(), NcError::Filter);
        assert_eq!(Zlib.codec_to_hdf5(r#"{"id": "zlib", "level": 3}"#).unwrap(), vec![3]);
        assert_eq!(Zlib.hdf5_to_codec(&[3]).unwrap(), r#"{"id": "zlib", "level": 3}"#);
        assert!(Zlib.codec_to_hdf5(r#"{"id": "zlib", "level": 12}"#).is_err());
        assert_eq!(
            Zlib.codec_to_hdf5(r#"{"id": "gzip", "level": 1}"#).unwrap_err(),
            NcError::Inval
        );
    }

    /// Level 1 (igzip when built in) writes standard streams: flate2's
    /// zlib-rs inflate, an independent decoder, reads them back, for empty,
    /// tiny, compressible and incompressible inputs, zlib and gzip wrappers.
    #[test]
    fn level_one_output_is_standard_zlib_and_gzip() {
        use std::io::Read;
        if std::env::var("NCZ_EXPECT_ISAL").is_ok_and(|v| v == "1") {
            assert!(
                crate::sys::isal::available(),
                "built without ISA-L (install libisal-dev)"
            );
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let noise: Vec<u8> = (0..(3 << 20))
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let smooth: Vec<u8> = (0..(1u32 << 20)).flat_map(|i| (i / 300).to_le_bytes()).collect();
        for data in [&[][..], &[7u8][..], &smooth[..], &noise[..]] {
            let z = compress(1, data, false).unwrap();
            let mut back = Vec::new();
            flate2::read::ZlibDecoder::new(&z[..]).read_to_end(&mut back).unwrap();
            assert_eq!(back, data);
            let g = compress(1, data, true).unwrap();
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&g[..]).read_to_end(&mut back).unwrap();
            assert_eq!(back, data);
            assert_eq!(Zlib.decode_bounded(&[1], z, 1, UNBOUNDED).unwrap(), data);
        }
        assert!(compress(1, &smooth, false).unwrap().len() < smooth.len() / 4);
    }
}
