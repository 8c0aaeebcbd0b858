//! bzip2: HDF5 filter 307, numcodecs codec `bz2`. JSON `{"id": "bz2", "level": 9}`
//! (level = block size in 100 kB units, 1..=9); parameters `[level, ...]`:
//! as netcdf-c's `H5Zbzip2.c` and `NCZstdfilters.c`, the first parameter is
//! the level and any further ones are ignored (`nccopy -F "v,307,9,4"`), and
//! only the level is written to the JSON.
//! Pure-Rust libbzip2 (`bzip2` crate, libbz2-rs-sys backend).

use std::io::{Read, Write};

use super::json;
use super::zlib::UNBOUNDED;
use super::{CodecMap, Hdf5Filter};
use crate::error::{NcError, NcResult};
use crate::log::Level;

#[derive(Debug)]
pub struct Bz2;

/// The level: the first parameter, in 1..=9 (netcdf-c's filter fails on
/// others; its codec refuses an empty list).
fn level(cd: &[u32]) -> NcResult<u32> {
    match cd.first() {
        Some(&l @ 1..=9) => Ok(l),
        _ => {
            crate::nclog!(
                Level::Error,
                "bzip2: parameters {cd:?}: expected a level in 1..=9 first"
            );
            Err(NcError::Filter)
        }
    }
}

impl Hdf5Filter for Bz2 {
    fn id(&self) -> u32 {
        307
    }

    fn name(&self) -> &str {
        "bzip2"
    }

    fn apply(&self, decode: bool, cd_values: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>> {
        if decode {
            return self.decode_bounded(cd_values, input, 0, UNBOUNDED);
        }
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level(cd_values)?));
        e.write_all(&input).map_err(|_| NcError::Filter)?;
        e.finish().map_err(|_| NcError::Filter)
    }

    fn decode_bounded(&self, _cd: &[u32], input: Vec<u8>, expect: usize, limit: usize) -> NcResult<Vec<u8>> {
        let mut out = Vec::with_capacity(expect.min(limit));
        let mut d = bzip2::read::MultiBzDecoder::new(&input[..]).take(limit as u64 + 1);
        d.read_to_end(&mut out).map_err(|e| {
            crate::nclog!(Level::Error, "bzip2: corrupt chunk: {e}");
            NcError::Filter
        })?;
        if out.len() > limit {
            crate::nclog!(Level::Error, "bzip2: chunk decodes to more than {limit} bytes");
            return Err(NcError::Filter);
        }
        Ok(out)
    }
}

impl CodecMap for Bz2 {
    fn hdf5_id(&self) -> u32 {
        307
    }

    fn codec_id(&self) -> &str {
        "bz2"
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        let m = json::object(codec_json, "bz2")?;
        Ok(vec![json::int_in(&m, "level", 1, 9, Some(9))? as u32])
    }

    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        Ok(format!("{{\"id\": \"bz2\", \"level\": {}}}", level(visible)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corrupt() {
        let data: Vec<u8> = (0..50000u32).map(|i| (i % 251) as u8).collect();
        for l in 1..=9 {
            let e = Bz2.apply(false, &[l], data.clone()).unwrap();
            assert_eq!(Bz2.apply(true, &[l], e.clone()).unwrap(), data);
            assert!(Bz2.decode_bounded(&[l], e, 0, 100).is_err());
        }
        assert!(Bz2.apply(true, &[9], b"BZh9garbage".to_vec()).is_err());
        assert!(Bz2.apply(false, &[0], data.clone()).is_err());
        assert!(Bz2.apply(false, &[], data.clone()).is_err());
        assert!(Bz2.apply(false, &[10, 4], data.clone()).is_err());
    }

    #[test]
    fn parameters_after_the_level_are_ignored() {
        // nccopy -F "/g/var,307,9,4": netcdf-c's bzip2 filter uses cd_values[0].
        let data: Vec<u8> = (0..20000u32).map(|i| (i % 13) as u8).collect();
        let two = Bz2.apply(false, &[9, 4], data.clone()).unwrap();
        assert_eq!(two, Bz2.apply(false, &[9], data.clone()).unwrap());
        assert_eq!(Bz2.apply(true, &[9, 4], two).unwrap(), data);
        assert_eq!(Bz2.hdf5_to_codec(&[9, 4]).unwrap(), r#"{"id": "bz2", "level": 9}"#);
        assert_eq!(Bz2.hdf5_to_codec(&[3, 1, 2]).unwrap(), r#"{"id": "bz2", "level": 3}"#);
        assert_eq!(Bz2.hdf5_to_codec(&[]), Err(NcError::Filter));
    }
}
