//! gzip: numcodecs codec `gzip` (a gzip member around deflate data), for Zarr
//! written by zarr-python. JSON `{"id": "gzip", "level": 1}`, parameters
//! `[level]` (0..=9). No HDF5 filter id is registered for it: this library
//! uses the private id 40101 (see `README.md`).

use super::json;
use super::zlib::{UNBOUNDED, check_level, compress, grow_decode, with_decompressor};
use super::{CodecMap, Hdf5Filter};
use crate::error::{NcError, NcResult};
use crate::runtime::buffers;

/// The private HDF5 id of the gzip codec.
pub const ID: u32 = 40101;

#[derive(Debug)]
pub struct Gzip;

impl Hdf5Filter for Gzip {
    fn id(&self) -> u32 {
        ID
    }

    fn name(&self) -> &str {
        "gzip"
    }

    fn apply(&self, decode: bool, cd_values: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>> {
        if decode {
            let expect = input.len().saturating_mul(4);
            return self.decode_bounded(cd_values, input, expect, UNBOUNDED);
        }
        let [level] = cd_values else {
            return Err(NcError::Filter);
        };
        let out = compress(check_level(*level)?, &input, true)?;
        buffers::give(input);
        Ok(out)
    }

    fn decode_bounded(&self, _cd: &[u32], input: Vec<u8>, expect: usize, limit: usize) -> NcResult<Vec<u8>> {
        let out = with_decompressor(|d| grow_decode("gzip", &input, expect, limit, |i, o| d.gzip_decompress(i, o)))?;
        buffers::give(input);
        Ok(out)
    }
}

impl CodecMap for Gzip {
    fn hdf5_id(&self) -> u32 {
        ID
    }

    fn codec_id(&self) -> &str {
        "gzip"
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        let m = json::object(codec_json, "gzip")?;
        Ok(vec![json::int_in(&m, "level", 0, 9, Some(1))? as u32])
    }

    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        json::nparams("gzip", visible, 1, 1)?;
        Ok(format!("{{\"id\": \"gzip\", \"level\": {}}}", check_level(visible[0])?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_numcodecs_stream() {
        // numcodecs.GZip().encode(b"abc")
        let nc = [
            0x1f, 0x8b, 0x08, 0x00, 0x7b, 0x95, 0x02, 0x6b, 0x04, 0xff, 0x4b, 0x4c, 0x4a, 0x06, 0x00, 0xc2, 0x41, 0x24,
            0x35, 0x03, 0x00, 0x00, 0x00,
        ];
        assert_eq!(Gzip.apply(true, &[1], nc.to_vec()).unwrap(), b"abc");
        let e = Gzip.apply(false, &[5], b"hello hello hello".to_vec()).unwrap();
        assert_eq!(Gzip.apply(true, &[5], e).unwrap(), b"hello hello hello");
        assert!(Gzip.apply(true, &[5], nc[..10].to_vec()).is_err());
    }
}
