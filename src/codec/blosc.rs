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
use super::shuffle;
use super::zlib::UNBOUNDED;
use super::{CodecMap, Hdf5Filter, VarContext};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::runtime::buffers;
use crate::sys::blosc as c;
use crate::sys::lz4;

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

    fn decodes_ranges(&self) -> bool {
        true
    }

    fn range_piece(&self, _cd: &[u32], input: &[u8]) -> Option<usize> {
        c::blocksize(input)
    }

    /// Decoded piece by piece, each piece once, and written out to the
    /// ranges while it is still in cache: a block at a time by this module
    /// when the chunk is LZ4 with byte shuffle or none (`LzFrame`; the
    /// values are unshuffled straight into the ranges), otherwise by
    /// c-blosc in runs of neighbouring blocks that hold a range, at most
    /// `PIECE_BYTES` each.
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
        // Flag 0x08 (reserved) set: c-blosc's whole decode refuses the
        // buffer, its item decode does not look; refused here too (by the
        // whole decode the caller falls back to).
        if input[2] & 0x08 != 0 {
            return None;
        }
        // Every range on whole elements of the buffer's type, inside the
        // chunk, after the one before.
        let mut bounds: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
        for (start, out) in ranges.iter() {
            let end = start.checked_add(out.len())?;
            if out.is_empty()
                || bounds.last().is_some_and(|&(_, e)| *start < e)
                || end > n
                || !start.is_multiple_of(ts)
                || !out.len().is_multiple_of(ts)
            {
                return None;
            }
            bounds.push((*start, end));
        }
        if let Some(frame) = LzFrame::parse(input) {
            // A block's streams as stored, the values written out of them
            // (unshuffled on the way when they are shuffled).
            let block = |pos: usize| (pos / bs * bs, (pos / bs * bs + bs).min(n));
            let decode = |lo: usize, s: &mut [u8]| frame.decode_streams(lo / bs, s);
            let put = |stored: &[u8], at: usize, out: &mut [u8]| {
                if frame.shuffled {
                    shuffle::unshuffle_part(stored, ts, at / ts, out);
                } else {
                    out.copy_from_slice(&stored[at..at + out.len()]);
                }
            };
            return Some(by_pieces(ranges, bs, |pos, _| block(pos), decode, put));
        }
        // c-blosc: from the block holding `pos` on, the blocks that hold
        // range `i` and the ranges after it, without a gap, up to the cap.
        let most = (PIECE_BYTES / bs).max(1);
        let piece = |pos: usize, i: usize| {
            let first = pos / bs;
            let cap = first + most - 1;
            let mut last = (bounds[i].1 - 1) / bs;
            for &(a, b) in &bounds[i + 1..] {
                if last >= cap || a / bs > last + 1 {
                    break;
                }
                last = last.max((b - 1) / bs);
            }
            (first * bs, ((last.min(cap) + 1) * bs).min(n))
        };
        let decode = |lo: usize, s: &mut [u8]| c::decompress_items(input, lo / ts, s);
        let put = |piece: &[u8], at: usize, out: &mut [u8]| out.copy_from_slice(&piece[at..at + out.len()]);
        Some(by_pieces(ranges, (most * bs).min(n), piece, decode, put))
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

/// The most bytes c-blosc decodes at once for `decode_ranges`: small enough
/// that a piece is still in cache when its ranges are copied out of it.
const PIECE_BYTES: usize = 256 << 10;

/// Decode the byte ranges `ranges` of a chunk (sorted, disjoint, inside it)
/// piece by piece: `piece(pos, i)` is the span of the chunk to decode for
/// byte `pos`, in range `i` (whole blocks, at most `widest` bytes),
/// `decode(lo, scratch)` decodes the span from byte `lo` into `scratch` (of
/// its length; `None` when the chunk is corrupt), and `put(scratch, at,
/// out)` writes the span's bytes from `at` into `out` while the span is
/// still in cache. A span that holds several ranges is decoded once.
fn by_pieces(
    ranges: &mut [(usize, &mut [u8])],
    widest: usize,
    piece: impl Fn(usize, usize) -> (usize, usize),
    mut decode: impl FnMut(usize, &mut [u8]) -> Option<()>,
    put: impl Fn(&[u8], usize, &mut [u8]),
) -> NcResult<()> {
    let mut scratch = buffers::take_len(widest);
    let mut current: Option<(usize, usize)> = None;
    let mut result = Ok(());
    'ranges: for (i, (start, out)) in ranges.iter_mut().enumerate() {
        let mut done = 0;
        while done < out.len() {
            let pos = *start + done;
            let (lo, hi) = match current {
                Some((lo, hi)) if lo <= pos && pos < hi => (lo, hi),
                _ => {
                    let (lo, hi) = piece(pos, i);
                    let fits = lo <= pos && pos < hi && hi - lo <= widest;
                    if !fits || decode(lo, &mut scratch[..hi - lo]).is_none() {
                        result = Err(bad("corrupt chunk".to_string()));
                        break 'ranges;
                    }
                    current = Some((lo, hi));
                    (lo, hi)
                }
            };
            let k = (hi - pos).min(out.len() - done);
            put(&scratch[..hi - lo], pos - lo, &mut out[done..done + k]);
            done += k;
        }
    }
    buffers::give(scratch);
    result
}

/// Bytes of a blosc header; the block offsets follow it.
const HEADER: usize = 16;

/// A blosc buffer whose blocks this module decodes itself: format 2, LZ4,
/// byte shuffle or none (what netcdf-c and numcodecs write with cname
/// `lz4`). Any other buffer is c-blosc's to decode.
#[derive(Debug)]
struct LzFrame<'a> {
    /// The whole buffer (as long as its header says).
    buf: &'a [u8],
    typesize: usize,
    nbytes: usize,
    blocksize: usize,
    /// The blocks hold byte-shuffled values.
    shuffled: bool,
    /// Whole blocks may be stored as one stream per byte of the type.
    split: bool,
}

impl<'a> LzFrame<'a> {
    /// The frame of `input`, when c-blosc accepts its header (the checks
    /// c-blosc makes before it decodes) and it is one this module decodes.
    fn parse(input: &'a [u8]) -> Option<LzFrame<'a>> {
        let nbytes = c::decoded_size(input)?;
        let blocksize = u32_at(input, 8)?;
        let (version, lz_version, flags, typesize) = (input[0], input[1], input[2], usize::from(input[3]));
        // Flags: 0x1 byte shuffle, 0x2 stored as is, 0x4 bit shuffle, 0x8
        // reserved, 0x10 blocks not split, the top three bits the codec
        // (1: LZ4, whose own format version is 1).
        let lz4 = version == 2 && lz_version == 1 && flags >> 5 == 1 && flags & 0x0e == 0;
        if !lz4 || typesize == 0 || blocksize == 0 || nbytes == 0 || blocksize > nbytes {
            return None;
        }
        // Room for every block's offset.
        if nbytes.div_ceil(blocksize) > (input.len() - HEADER) / 4 {
            return None;
        }
        Some(LzFrame {
            buf: input,
            typesize,
            nbytes,
            blocksize,
            shuffled: flags & 0x1 != 0 && typesize > 1,
            split: flags & 0x10 == 0,
        })
    }

    /// Decode the streams of block `j` into `out` (exactly the block's
    /// length; the last block may be short): its bytes as they were before
    /// compression (shuffled when `shuffled`). `None` when the block is
    /// corrupt. The same checks and layout as c-blosc's `blosc_d`.
    fn decode_streams(&self, j: usize, out: &mut [u8]) -> Option<()> {
        let len = out.len();
        if j.checked_mul(self.blocksize)?.checked_add(len)? > self.nbytes {
            return None;
        }
        let ts = self.typesize;
        let whole = len == self.blocksize;
        let splits = if self.split && whole && ts <= 16 && len / ts >= 128 {
            ts
        } else {
            1
        };
        let stream_len = len / splits;
        let end = self.buf.len();
        let mut at = u32_at(self.buf, HEADER + 4 * j)?;
        for stream in out.chunks_exact_mut(stream_len).take(splits) {
            if at > end - 4 {
                return None;
            }
            let size = u32_at(self.buf, at)?;
            at += 4;
            if size > end - at {
                return None;
            }
            let src = &self.buf[at..at + size];
            if size == stream_len {
                stream.copy_from_slice(src);
            } else {
                lz4::decompress_exact(src, stream)?;
            }
            at += size;
        }
        Some(())
    }
}

/// The little-endian u32 at byte `at` of `b`.
fn u32_at(b: &[u8], at: usize) -> Option<usize> {
    let v: [u8; 4] = b.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(v) as usize)
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

    /// `decode_ranges` of every range of `n` bytes in `ranges` (start, len).
    fn ranges_of(enc: &[u8], n: usize, ranges: &[(usize, usize)]) -> Option<NcResult<Vec<Vec<u8>>>> {
        let mut bufs: Vec<Vec<u8>> = ranges.iter().map(|&(_, l)| vec![0x5a; l]).collect();
        let mut parts: Vec<(usize, &mut [u8])> = ranges
            .iter()
            .zip(bufs.iter_mut())
            .map(|(&(a, _), b)| (a, &mut b[..]))
            .collect();
        match Blosc.decode_ranges(&[], enc, n, &mut parts)? {
            Ok(()) => Some(Ok(bufs)),
            Err(e) => Some(Err(e)),
        }
    }

    /// The buffers this module decodes block by block (LZ4, byte shuffle or
    /// none: split or not, blocks stored as they were, a short last block,
    /// every element size) decode to the bytes c-blosc decodes, whole and
    /// in ranges; the others are c-blosc's and decode alike.
    #[test]
    fn lz4_blocks_decode_like_c_blosc() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for ts in [1usize, 2, 3, 4, 8, 16, 32] {
            // Smooth values (compressible), noise (blocks stored as they
            // were), and both in turn.
            let n = ts * 20_011;
            let smooth: Vec<u8> = (0..n).map(|i| ((i / ts) / 64 + (i % ts) * 3) as u8).collect();
            let noise: Vec<u8> = (0..n).map(|_| next() as u8).collect();
            let mixed: Vec<u8> = (0..n)
                .map(|i| if i / 5000 % 2 == 0 { smooth[i] } else { noise[i] })
                .collect();
            for data in [&smooth, &noise, &mixed] {
                for (cname, shuffle, blocksize) in
                    [(1, 1, 0), (1, 0, 0), (1, 1, 256), (1, 1, 4096), (0, 1, 0), (5, 2, 0)]
                {
                    let w = [2, 2, ts as u32, n as u32, 1, shuffle, cname, blocksize];
                    let enc = Blosc.apply(false, &w, data.to_vec()).unwrap();
                    // (Unless blosc stored the whole buffer as it was.)
                    let lz4 = cname == 1 && enc[2] & 0x2 == 0;
                    assert_eq!(LzFrame::parse(&enc).is_some(), lz4, "ts {ts} cname {cname}");
                    let whole = ranges_of(&enc, n, &[(0, n)]).unwrap().unwrap();
                    assert!(
                        whole[0] == *data,
                        "ts {ts} cname {cname} shuffle {shuffle} blocksize {blocksize}"
                    );
                    let bs = c::blocksize(&enc).unwrap();
                    let mut ranges = Vec::new();
                    let mut at = (next() as usize % 50) * ts;
                    while at < n {
                        let len = ((1 + next() as usize % (3 * bs / ts + 2)) * ts).min(n - at);
                        ranges.push((at, len));
                        at += len + (next() as usize % (bs / ts + 1)) * ts * (next() as usize % 2);
                    }
                    let got = ranges_of(&enc, n, &ranges).unwrap().unwrap();
                    for ((a, l), g) in ranges.iter().zip(&got) {
                        assert!(*g == data[*a..a + l], "ts {ts} cname {cname}: range {a}+{l}");
                    }
                }
            }
        }
    }

    /// Damaged buffers: this module's decoder is never more lenient than
    /// c-blosc, and where both decode they agree; nothing panics.
    #[test]
    fn damaged_lz4_buffers_fail_as_c_blosc_does() {
        let data: Vec<u8> = (0..60_000u32).flat_map(|i| ((i / 9) as f32).to_le_bytes()).collect();
        let n = data.len();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as usize
        };
        for blocksize in [0u32, 4096] {
            let w = [2, 2, 4, n as u32, 1, 1, 1, blocksize];
            let enc = Blosc.apply(false, &w, data.clone()).unwrap();
            let (mut agreed, mut failed) = (0, 0);
            for k in 0..3000 {
                let mut bad = enc.clone();
                // Past the header's sizes (which c-blosc's own check covers):
                // flags, block offsets, stream sizes, LZ4 data.
                for _ in 0..1 + k % 3 {
                    let at = if k % 4 == 0 { 2 } else { 16 + next() % (bad.len() - 16) };
                    bad[at] ^= 1 << (next() % 8);
                }
                let c_result = {
                    let mut out = vec![0u8; n];
                    c::decompress(&bad, &mut out).filter(|&k| k == n).map(|_| out)
                };
                match ranges_of(&bad, n, &[(0, n)]) {
                    None => {}
                    Some(Ok(ours)) => {
                        assert!(
                            c_result.as_ref() == Some(&ours[0]),
                            "damage {k} (flags {:#x}): c-blosc {:?}, first differing byte {:?}",
                            bad[2],
                            c_result.as_ref().map(|_| "decodes"),
                            c_result
                                .as_ref()
                                .and_then(|c| c.iter().zip(&ours[0]).position(|(a, b)| a != b))
                        );
                        agreed += 1;
                    }
                    Some(Err(e)) => {
                        assert_eq!(e, NcError::Filter);
                        failed += 1;
                    }
                }
            }
            assert!(agreed > 100 && failed > 100, "agreed {agreed}, failed {failed}");
        }
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
