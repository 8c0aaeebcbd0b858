//! Fletcher-32 checksum: HDF5 filter 3, numcodecs codec `fletcher32` (the two
//! are the same format: HDF5's sum over big-endian 16-bit words, appended
//! little-endian after the data). JSON `{"id": "fletcher32"}`, no parameters.
//! Decoding also accepts the byte-reversed checksum that old HDF5 versions wrote.

use super::json;
use super::{CodecMap, Hdf5Filter};
use crate::error::{NcError, NcResult};
use crate::log::Level;

#[derive(Debug)]
pub struct Fletcher32;

/// HDF5's Fletcher-32 of `data`.
pub fn fletcher32(data: &[u8]) -> u32 {
    let mut sum1: u32 = 0;
    let mut sum2: u32 = 0;
    let mut words = data.chunks_exact(2);
    // 360 words keep both sums below 2^32 between reductions.
    loop {
        let mut n = 0;
        for w in words.by_ref().take(360) {
            sum1 += (u32::from(w[0]) << 8) | u32::from(w[1]);
            sum2 += sum1;
            n += 1;
        }
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
        if n < 360 {
            break;
        }
    }
    if let [last] = words.remainder() {
        sum1 += u32::from(*last) << 8;
        sum2 += sum1;
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    (sum2 << 16) | sum1
}

impl Hdf5Filter for Fletcher32 {
    fn id(&self) -> u32 {
        3
    }

    fn name(&self) -> &str {
        "fletcher32"
    }

    fn apply(&self, decode: bool, _cd: &[u32], mut input: Vec<u8>) -> NcResult<Vec<u8>> {
        if decode {
            if input.len() < 4 {
                crate::nclog!(
                    Level::Error,
                    "fletcher32: chunk of {} bytes has no checksum",
                    input.len()
                );
                return Err(NcError::Filter);
            }
            let n = input.len() - 4;
            let stored = u32::from_le_bytes([input[n], input[n + 1], input[n + 2], input[n + 3]]);
            let sum = fletcher32(&input[..n]);
            if stored != sum && stored != sum.swap_bytes() {
                crate::nclog!(Level::Error, "fletcher32: checksum mismatch");
                return Err(NcError::Filter);
            }
            input.truncate(n);
            return Ok(input);
        }
        let sum = fletcher32(&input);
        input.extend_from_slice(&sum.to_le_bytes());
        Ok(input)
    }
}

impl CodecMap for Fletcher32 {
    fn hdf5_id(&self) -> u32 {
        3
    }

    fn codec_id(&self) -> &str {
        "fletcher32"
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        json::object(codec_json, "fletcher32")?;
        Ok(vec![])
    }

    fn hdf5_to_codec(&self, _visible: &[u32]) -> NcResult<String> {
        Ok("{\"id\": \"fletcher32\"}".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_numcodecs() {
        // numcodecs.Fletcher32().encode(b"abcde") == b"abcde" + c729f04f
        let enc = Fletcher32.apply(false, &[], b"abcde".to_vec()).unwrap();
        assert_eq!(&enc[5..], &[0xc7, 0x29, 0xf0, 0x4f]);
        assert_eq!(Fletcher32.apply(true, &[], enc.clone()).unwrap(), b"abcde");
        let mut bad = enc;
        bad[0] ^= 1;
        assert_eq!(Fletcher32.apply(true, &[], bad).unwrap_err(), NcError::Filter);
        let big: Vec<u8> = (0..100_001u32).map(|i| (i * 31) as u8).collect();
        let e = Fletcher32.apply(false, &[], big.clone()).unwrap();
        assert_eq!(Fletcher32.apply(true, &[], e).unwrap(), big);
    }
}
