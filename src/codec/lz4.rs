//! LZ4 as numcodecs frames it: codec `lz4`, a little-endian u32 holding the
//! decoded size, then one LZ4 block. JSON `{"id": "lz4", "acceleration": 1}`,
//! parameters `[acceleration]` (kept for the JSON; this encoder has one
//! speed). This is not HDF5's LZ4 filter (32004, another framing): the
//! library uses the private id 40102.

use super::json;
use super::zlib::UNBOUNDED;
use super::{CodecMap, Hdf5Filter};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::runtime::buffers;

pub const ID: u32 = 40102;

#[derive(Debug)]
pub struct Lz4;

impl Hdf5Filter for Lz4 {
    fn id(&self) -> u32 {
        ID
    }

    fn name(&self) -> &str {
        "lz4"
    }

    fn apply(&self, decode: bool, cd_values: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>> {
        if decode {
            return self.decode_bounded(cd_values, input, 0, UNBOUNDED);
        }
        let n = u32::try_from(input.len()).map_err(|_| NcError::Filter)?;
        let bound = lz4_flex::block::get_maximum_output_size(input.len());
        let mut out = buffers::take(bound + 4);
        out.extend_from_slice(&n.to_le_bytes());
        out.resize(bound + 4, 0);
        let k = lz4_flex::block::compress_into(&input, &mut out[4..]).map_err(|_| NcError::Filter)?;
        out.truncate(4 + k);
        buffers::give(input);
        Ok(out)
    }

    fn decode_bounded(&self, _cd: &[u32], input: Vec<u8>, _expect: usize, limit: usize) -> NcResult<Vec<u8>> {
        let Some((head, body)) = input.split_first_chunk::<4>() else {
            crate::nclog!(Level::Error, "lz4: chunk of {} bytes has no size header", input.len());
            return Err(NcError::Filter);
        };
        let n = u32::from_le_bytes(*head) as usize;
        if n > limit {
            crate::nclog!(Level::Error, "lz4: chunk says {n} bytes, more than {limit}");
            return Err(NcError::Filter);
        }
        let mut out = buffers::take_len(n);
        match lz4_flex::block::decompress_into(body, &mut out) {
            Ok(k) if k == n => {
                buffers::give(input);
                Ok(out)
            }
            _ => {
                crate::nclog!(Level::Error, "lz4: corrupt chunk");
                Err(NcError::Filter)
            }
        }
    }
}

impl CodecMap for Lz4 {
    fn hdf5_id(&self) -> u32 {
        ID
    }

    fn codec_id(&self) -> &str {
        "lz4"
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        let m = json::object(codec_json, "lz4")?;
        Ok(vec![
            json::int_in(&m, "acceleration", i64::from(i32::MIN), i64::from(i32::MAX), Some(1))? as i32 as u32,
        ])
    }

    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        json::nparams("lz4", visible, 0, 1)?;
        let a = visible.first().map_or(1, |&a| a as i32);
        Ok(format!("{{\"id\": \"lz4\", \"acceleration\": {a}}}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numcodecs_frame() {
        // numcodecs.LZ4().encode(b"a" * 20)
        let nc = [
            0x14, 0, 0, 0, 0x1a, 0x61, 0x01, 0x00, 0x50, 0x61, 0x61, 0x61, 0x61, 0x61,
        ];
        assert_eq!(Lz4.apply(true, &[1], nc.to_vec()).unwrap(), vec![b'a'; 20]);
        let e = Lz4.apply(false, &[1], vec![7u8; 1000]).unwrap();
        assert_eq!(Lz4.apply(true, &[1], e.clone()).unwrap(), vec![7u8; 1000]);
        assert!(Lz4.decode_bounded(&[1], e, 0, 999).is_err());
        assert!(Lz4.apply(true, &[1], vec![0xff, 0xff, 0xff, 0x7f, 1]).is_err());
    }
}
