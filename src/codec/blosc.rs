//! Blosc (format 1, c-blosc 1.21): HDF5 filter 32001, numcodecs codec `blosc`.
//!
//! JSON: `{"id": "blosc", "clevel": 5, "blocksize": 0, "cname": "lz4",
//! "shuffle": 1}` (written in netcdf-c's member order, so `_Codecs` reads as
//! netcdf-c's does; numcodecs' order reads alike); cname one of blosclz, lz4, lz4hc, zlib,
//! zstd; shuffle 0 none, 1 byte, 2 bit, -1 automatic (bit for one-byte
//! values, byte otherwise); blocksize 0 = automatic.
//!
//! Visible parameters, as netcdf-c: `[0, 0, 0, blocksize, clevel, shuffle,
//! compressor code]` (shuffle -1 as its bit pattern). Working parameters, as
//! netcdf-c's codec library makes them: `[2, 2, type size, chunk bytes,
//! clevel, shuffle, compressor code]`, plus the blocksize as an eighth (which
//! netcdf-c drops).

use std::ffi::CStr;

use super::json;
use super::zlib::UNBOUNDED;
use super::{CodecMap, Hdf5Filter, VarContext};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::runtime::buffers;
use crate::sys::blosc as c;

#[derive(Debug)]
pub struct Blosc;

/// Compressor names by blosc code (3, snappy, is not built).
pub const CNAMES: [&str; 6] = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"];

fn cname_c(code: u32) -> Option<&'static CStr> {
    Some(match code {
        0 => c"blosclz",
        1 => c"lz4",
        2 => c"lz4hc",
        4 => c"zlib",
        5 => c"zstd",
        _ => return None,
    })
}

pub fn code_of(name: &str) -> Option<u32> {
    CNAMES
        .iter()
        .position(|&n| n == name)
        .filter(|&i| i != 3)
        .map(|i| i as u32)
}

fn bad(msg: String) -> NcError {
    crate::nclog!(Level::Error, "blosc: {msg}");
    NcError::Filter
}

impl Hdf5Filter for Blosc {
    fn id(&self) -> u32 {
        32001
    }

    fn name(&self) -> &str {
        "blosc"
    }

    fn apply(&self, decode: bool, cd: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>> {
        if decode {
            return self.decode_bounded(cd, input, 0, UNBOUNDED);
        }
        if cd.len() < 7 {
            return Err(bad(format!("{} parameters, expected 7", cd.len())));
        }
        let typesize = (cd[2] as usize).max(1);
        let clevel = cd[4];
        if clevel > 9 {
            return Err(bad(format!("clevel {clevel} outside 0..=9")));
        }
        let shuffle = match cd[5] {
            u32::MAX => {
                if typesize == 1 {
                    2
                } else {
                    1
                }
            }
            s @ 0..=2 => s,
            s => return Err(bad(format!("shuffle {s} outside -1..=2"))),
        };
        let cname = cname_c(cd[6]).ok_or_else(|| bad(format!("unknown compressor code {}", cd[6])))?;
        let blocksize = cd.get(7).copied().unwrap_or(0) as usize;
        let out = c::compress(clevel as i32, shuffle as i32, typesize, &input, cname, blocksize)
            .ok_or_else(|| bad("compression failed".to_string()))?;
        buffers::give(input);
        Ok(out)
    }

    fn decode_range(
        &self,
        cd: &[u32],
        input: &[u8],
        chunk_len: usize,
        start: usize,
        out: &mut [u8],
    ) -> Option<NcResult<()>> {
        // One range of the many `decode_ranges` takes (the same checks: on
        // whole elements of the buffer's type, inside the chunk).
        self.decode_ranges(cd, input, chunk_len, &mut [(start, out)])
    }

    /// Each run of neighbouring blocks that holds a range is decoded once
    /// (into a scratch buffer) and the ranges it holds copied out of it.
    fn decode_ranges(
        &self,
        _cd: &[u32],
        input: &[u8],
        chunk_len: usize,
        ranges: &mut [(usize, &mut [u8])],
    ) -> Option<NcResult<()>> {
        let n = c::decoded_size(input)?;
        let ts = c::typesize(input)?;
        let bs = c::blocksize(input)?;
        if n != chunk_len || ts == 0 || bs == 0 || !bs.is_multiple_of(ts) || !n.is_multiple_of(ts) {
            return None;
        }
        // (first block, last block, first range, end of ranges) per span of
        // neighbouring blocks; every range on whole elements, inside the chunk.
        let mut spans: Vec<(usize, usize, usize, usize)> = Vec::new();
        let mut prev_end = 0;
        for (i, (start, out)) in ranges.iter().enumerate() {
            let end = start.checked_add(out.len())?;
            if out.is_empty()
                || *start < prev_end
                || end > n
                || !start.is_multiple_of(ts)
                || !out.len().is_multiple_of(ts)
            {
                return None;
            }
            prev_end = end;
            let (b0, b1) = (start / bs, (end - 1) / bs);
            match spans.last_mut() {
                Some(s) if b0 <= s.1 + 1 => {
                    s.1 = s.1.max(b1);
                    s.3 = i + 1;
                }
                _ => spans.push((b0, b1, i, i + 1)),
            }
        }
        let widest = spans.iter().map(|s| ((s.1 + 1) * bs).min(n) - s.0 * bs).max()?;
        let mut scratch = buffers::take_len(widest);
        for &(b0, b1, r0, r1) in &spans {
            let from = b0 * bs;
            let to = ((b1 + 1) * bs).min(n);
            if c::decompress_items(input, from / ts, &mut scratch[..to - from]).is_none() {
                buffers::give(scratch);
                return Some(Err(bad("corrupt chunk".to_string())));
            }
            for (start, out) in ranges[r0..r1].iter_mut() {
                let at = *start - from;
                out.copy_from_slice(&scratch[at..at + out.len()]);
            }
        }
        buffers::give(scratch);
        Some(Ok(()))
    }

    fn decode_bounded(&self, _cd: &[u32], input: Vec<u8>, _expect: usize, limit: usize) -> NcResult<Vec<u8>> {
        let n = c::decoded_size(&input).ok_or_else(|| bad("corrupt chunk".to_string()))?;
        if n > limit {
            return Err(bad(format!("chunk says {n} bytes, more than {limit}")));
        }
        // Into a recycled buffer: fresh memory costs a page fault per 4 KiB.
        let mut out = buffers::take_len(n);
        match c::decompress(&input, &mut out) {
            Some(k) if k == n => {
                buffers::give(input);
                Ok(out)
            }
            _ => Err(bad("corrupt chunk".to_string())),
        }
    }
}

impl CodecMap for Blosc {
    fn hdf5_id(&self) -> u32 {
        32001
    }

    fn codec_id(&self) -> &str {
        "blosc"
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        let m = json::object(codec_json, "blosc")?;
        let clevel = json::int_in(&m, "clevel", 0, 9, Some(5))? as u32;
        let blocksize = json::int_in(&m, "blocksize", 0, u32::MAX as i64, Some(0))? as u32;
        let shuffle = json::int_in(&m, "shuffle", -1, 2, Some(1))? as i32 as u32;
        let cname = json::string(&m, "cname")?.unwrap_or("lz4");
        let code = code_of(cname).ok_or_else(|| bad(format!("unknown cname {cname}")))?;
        Ok(vec![0, 0, 0, blocksize, clevel, shuffle, code])
    }

    fn hdf5_to_codec(&self, v: &[u32]) -> NcResult<String> {
        // At least 7; netcdf-c's codec ignores any further ones.
        json::nparams("blosc", v, 7, usize::MAX)?;
        let cname = CNAMES
            .get(v[6] as usize)
            .filter(|_| v[6] != 3)
            .ok_or_else(|| bad(format!("unknown compressor code {}", v[6])))?;
        if v[4] > 9 || !(v[5] <= 2 || v[5] == u32::MAX) {
            return Err(bad(format!("parameters {v:?} out of range")));
        }
        Ok(format!(
            "{{\"id\": \"blosc\", \"clevel\": {}, \"blocksize\": {}, \"cname\": \"{cname}\", \"shuffle\": {}}}",
            v[4], v[3], v[5] as i32
        ))
    }

    fn modify_parameters(&self, ctx: &VarContext, v: &[u32]) -> NcResult<Vec<u32>> {
        json::nparams("blosc", v, 7, usize::MAX)?;
        let chunk: u64 = ctx
            .chunk_shape
            .iter()
            .product::<u64>()
            .saturating_mul(ctx.type_size as u64);
        Ok(vec![
            2,
            2,
            ctx.type_size as u32,
            chunk.min(u64::from(u32::MAX)) as u32,
            v[4],
            v[5],
            v[6],
            v[3],
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cname_and_shuffle() {
        let data: Vec<u8> = (0..20000u32).flat_map(|i| ((i / 3) as f32).to_le_bytes()).collect();
        for code in [0, 1, 2, 4, 5] {
            for shuffle in [0, 1, 2, u32::MAX] {
                let w = [2, 2, 4, data.len() as u32, 5, shuffle, code, 0];
                let e = Blosc.apply(false, &w, data.clone()).unwrap();
                assert_eq!(Blosc.apply(true, &w, e.clone()).unwrap(), data);
                assert!(Blosc.decode_bounded(&w, e, 0, 100).is_err());
            }
        }
        assert!(Blosc.apply(false, &[2, 2, 4, 0, 5, 1, 3], data.clone()).is_err());
        assert!(
            Blosc
                .apply(true, &[], vec![2, 1, 33, 4, 0xff, 0xff, 0xff, 0x7f, 1, 2])
                .is_err()
        );
        let j = r#"{"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}"#;
        assert_eq!(Blosc.codec_to_hdf5(j).unwrap(), vec![0, 0, 0, 0, 5, 1, 1]);
        // Written in netcdf-c's order (its nczarr_test run_specific_filters
        // compares `_Codecs`).
        assert_eq!(
            Blosc.hdf5_to_codec(&[0, 0, 0, 256, 5, 1, 1]).unwrap(),
            r#"{"id": "blosc", "clevel": 5, "blocksize": 256, "cname": "lz4", "shuffle": 1}"#
        );
        assert!(Blosc.codec_to_hdf5(r#"{"id": "blosc", "cname": "nope"}"#).is_err());
    }

    /// Several ranges decoded apart equal the same bytes of a whole decode:
    /// in one block, across blocks, in neighbouring and distant blocks, up to
    /// the last (short) block; and what decode_ranges refuses it leaves alone.
    #[test]
    fn ranges_decode_like_the_whole() {
        // 4-byte elements, many blocks, a short last block.
        let data: Vec<u8> = (0..300_001u32)
            .flat_map(|i| (i.wrapping_mul(2_654_435_761) >> 7).to_le_bytes())
            .collect();
        let w = [2, 2, 4, data.len() as u32, 1, 1, 1];
        let enc = Blosc.apply(false, &w, data.clone()).unwrap();
        let n = data.len();
        let bs = c::blocksize(&enc).unwrap();
        assert!(bs * 8 < n && !n.is_multiple_of(bs), "block size {bs}");
        let cases: [&[(usize, usize)]; 5] = [
            &[(0, 4), (8, 12)],
            &[(100, 200), (bs - 96, bs + 400), (bs * 5, bs * 5 + 8)],
            &[
                (bs - 4, bs + 4),
                (2 * bs - 4, 3 * bs + 12),
                (6 * bs, 6 * bs + 4),
                (n - 12, n),
            ],
            &[(0, bs), (bs, 2 * bs)],
            &[(12, 16), (bs * 7, bs * 8)],
        ];
        for ranges in cases {
            let mut bufs: Vec<Vec<u8>> = ranges.iter().map(|(a, b)| vec![0; b - a]).collect();
            let mut parts: Vec<(usize, &mut [u8])> = ranges
                .iter()
                .zip(bufs.iter_mut())
                .map(|((a, _), b)| (*a, &mut b[..]))
                .collect();
            Blosc.decode_ranges(&w, &enc, n, &mut parts).unwrap().unwrap();
            for ((a, b), got) in ranges.iter().zip(&bufs) {
                assert_eq!(got[..], data[*a..*b], "range {a}..{b}");
            }
        }
        let mut one = [0u8; 4];
        // Unsorted, overlapping, off the elements, past the end, or a chunk
        // of another size: refused.
        for (ranges, len) in [
            (vec![(8usize, 4usize), (0, 4)], n),
            (vec![(0, 8), (4, 4)], n),
            (vec![(2, 4)], n),
            (vec![(n - 4, 8)], n),
            (vec![(0, 4)], n + 4),
        ] {
            let mut bufs: Vec<Vec<u8>> = ranges.iter().map(|&(_, l)| vec![0; l]).collect();
            let mut parts: Vec<(usize, &mut [u8])> = ranges
                .iter()
                .zip(bufs.iter_mut())
                .map(|((a, _), b)| (*a, &mut b[..]))
                .collect();
            assert!(Blosc.decode_ranges(&w, &enc, len, &mut parts).is_none(), "{ranges:?}");
        }
        // Corrupt blocks: an error, not wrong bytes.
        let mut bad = enc.clone();
        let last = bad.len() - 40;
        bad[last..].iter_mut().for_each(|b| *b = 0xff);
        let mut parts = [(n - 4, &mut one[..])];
        assert!(matches!(
            Blosc.decode_ranges(&w, &bad, n, &mut parts),
            Some(Err(_)) | None
        ));
    }
}
