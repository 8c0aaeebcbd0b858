//! szip: HDF5 filter 4, NCZarr codec `szip` (netcdf-c's `NCZhdf5filters.c`
//! and `H5Zszip.c`; numcodecs has none). The compressor is libaec's szip
//! API (`sys::szip`), built in when the build finds libaec.
//!
//! JSON: `{"id": "szip", "mask": 32, "pixels-per-block": 32}`; visible
//! parameters `[mask, pixels_per_block]` (`nc_def_var_szip`). The working
//! parameters are HDF5's four, computed for the variable as netcdf-c's
//! `NCZ_szip_modify_parameters` does:
//! - mask: CHIP cleared, ALLOW_K13 and RAW set, LSB or MSB from the
//!   variable's byte order (NN and EC stay as the user chose);
//! - bits per pixel: the type size in bits, rounded up to 32 or 64 above 24;
//! - pixels per scanline: the length of the last dimension, bounded by
//!   `pixels_per_block * 128` (or the chunk's size in elements when the
//!   dimension is shorter than a block).
//!
//! Stored form (HDF5's): the decoded length as a little-endian u32, then
//! libaec's stream. Decoding checks that length against what the chunk may
//! hold before allocating.

use super::json;
use super::{CodecMap, Hdf5Filter, VarContext};
use crate::error::{NcError, NcResult};
use crate::log::Level;
use crate::sys::szip::{self, SzParams};

#[derive(Debug)]
pub struct Szip;

/// `szlib.h` option bits.
pub const ALLOW_K13: u32 = 1;
pub const CHIP: u32 = 2;
pub const EC: u32 = 4;
pub const LSB: u32 = 8;
pub const MSB: u32 = 16;
pub const NN: u32 = 32;
pub const RAW: u32 = 128;
/// `SZ_MAX_PIXELS_PER_BLOCK`, `SZ_MAX_BLOCKS_PER_SCANLINE`.
const MAX_PIXELS_PER_BLOCK: u32 = 32;
const MAX_BLOCKS_PER_SCANLINE: u32 = 128;
const MAX_PIXELS_PER_SCANLINE: u64 = (MAX_BLOCKS_PER_SCANLINE * MAX_PIXELS_PER_BLOCK) as u64;

/// Whether the codec is built in (libaec found at build time).
pub fn built_in() -> bool {
    szip::available()
}

fn bad(why: String) -> NcError {
    crate::nclog!(Level::Error, "szip: {why}");
    NcError::Filter
}

/// The four working parameters, checked against what libaec accepts.
fn working(cd: &[u32]) -> NcResult<SzParams> {
    let [mask, bpp, ppb, pps] = cd else {
        return Err(bad(format!("{} parameters, expected 4", cd.len())));
    };
    let p = SzParams {
        options_mask: *mask,
        bits_per_pixel: *bpp,
        pixels_per_block: *ppb,
        pixels_per_scanline: *pps,
    };
    let bpp_ok = (1..=32).contains(bpp) || *bpp == 64;
    let ppb_ok = *ppb >= 2 && ppb.is_multiple_of(2) && *ppb <= MAX_PIXELS_PER_BLOCK;
    let pps_ok = *pps >= 1 && u64::from(*pps) <= MAX_PIXELS_PER_SCANLINE;
    if !bpp_ok || !ppb_ok || !pps_ok || *mask > 0xff {
        return Err(bad(format!("parameters {cd:?} out of range")));
    }
    Ok(p)
}

/// Bytes per value as libaec's szip API sees the data: 32- and 64-bit
/// values are split into bytes, others are 1, 2 or 4 bytes.
fn unit(bpp: u32) -> usize {
    match bpp {
        32 => 4,
        64 => 8,
        17.. => 4,
        9.. => 2,
        _ => 1,
    }
}

impl Hdf5Filter for Szip {
    fn id(&self) -> u32 {
        4
    }

    fn name(&self) -> &str {
        "szip"
    }

    fn apply(&self, decode: bool, cd_values: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>> {
        if decode {
            return self.decode_bounded(cd_values, input, 0, usize::MAX);
        }
        let p = working(cd_values)?;
        if !input.len().is_multiple_of(unit(p.bits_per_pixel)) {
            return Err(bad(format!(
                "{} bytes are not whole values of {} bits",
                input.len(),
                p.bits_per_pixel
            )));
        }
        let n = u32::try_from(input.len()).map_err(|_| bad("chunk larger than 4 GiB".into()))?;
        // libaec pads every scanline to whole blocks, and a block coded raw
        // takes a few bits more than its data: room for twice the padded
        // input is more than it can need.
        let scanline = u64::from(p.pixels_per_scanline);
        let block = u64::from(p.pixels_per_block);
        let pixels = (input.len() / unit(p.bits_per_pixel).min(4)) as u64;
        let lines = pixels.div_ceil(scanline);
        let padded = lines
            .checked_mul(scanline.div_ceil(block) * block * unit(p.bits_per_pixel).min(4) as u64)
            .ok_or(NcError::NoMem)?;
        let cap = usize::try_from(padded.saturating_mul(2).saturating_add(1024)).map_err(|_| NcError::NoMem)?;
        let mut out = Vec::new();
        out.try_reserve_exact(cap + 4).map_err(|_| NcError::NoMem)?;
        out.resize(cap + 4, 0);
        out[..4].copy_from_slice(&n.to_le_bytes());
        let len = szip::compress(&p, &input, &mut out[4..]).map_err(|e| bad(format!("compression failed: {e:?}")))?;
        out.truncate(len + 4);
        Ok(out)
    }

    fn decode_bounded(&self, cd: &[u32], input: Vec<u8>, expect: usize, limit: usize) -> NcResult<Vec<u8>> {
        let _ = expect;
        let p = working(cd)?;
        let Some((head, stream)) = input.split_first_chunk::<4>() else {
            return Err(bad(format!("chunk of {} bytes has no length header", input.len())));
        };
        let n = u32::from_le_bytes(*head) as usize;
        if n > limit {
            return Err(bad(format!(
                "chunk decodes to {n} bytes, more than the {limit} allowed"
            )));
        }
        let mut out = Vec::new();
        out.try_reserve_exact(n).map_err(|_| NcError::NoMem)?;
        out.resize(n, 0);
        if n == 0 {
            return Ok(out);
        }
        let len = szip::decompress(&p, stream, &mut out).map_err(|e| bad(format!("corrupt chunk: {e:?}")))?;
        if len != n {
            return Err(bad(format!("chunk decoded to {len} bytes, its header says {n}")));
        }
        Ok(out)
    }
}

impl CodecMap for Szip {
    fn hdf5_id(&self) -> u32 {
        4
    }

    fn codec_id(&self) -> &str {
        "szip"
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        let m = json::object(codec_json, "szip")?;
        let mask = json::int_in(&m, "mask", 0, i64::from(u32::MAX), None)? as u32;
        let ppb = json::int_in(&m, "pixels-per-block", 0, i64::from(u32::MAX), None)? as u32;
        Ok(vec![mask, ppb])
    }

    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        let [mask, ppb, ..] = visible else {
            return Err(bad(format!(
                "{} parameters, expected mask and pixels per block",
                visible.len()
            )));
        };
        Ok(format!(
            "{{\"id\": \"szip\", \"mask\": {mask}, \"pixels-per-block\": {ppb}}}"
        ))
    }

    fn modify_parameters(&self, ctx: &VarContext, visible: &[u32]) -> NcResult<Vec<u32>> {
        let [mask, ppb, ..] = visible else {
            return Err(bad(format!("{} parameters, expected 2", visible.len())));
        };
        if ctx.chunk_shape.is_empty() {
            return Err(bad("a scalar has no scanline".into()));
        }
        let mut bpp = (ctx.type_size as u32).saturating_mul(8);
        if bpp > 24 {
            bpp = if bpp <= 32 { 32 } else { 64 };
        }
        let npoints: u64 = ctx.chunk_shape.iter().product();
        // The last dimension's length, as netcdf-c asks nc_inq_dimlen; the
        // chunk's extent stands in when the caller did not say.
        let dimlen = ctx
            .last_dim_len
            .unwrap_or_else(|| ctx.chunk_shape.last().copied().unwrap_or(0));
        let ppb64 = u64::from(*ppb);
        let scanline = if dimlen < ppb64 {
            if npoints < ppb64 {
                return Err(bad(format!(
                    "pixels per block {ppb} greater than the {npoints} elements of a chunk"
                )));
            }
            (ppb64 * u64::from(MAX_BLOCKS_PER_SCANLINE)).min(npoints)
        } else if dimlen <= MAX_PIXELS_PER_SCANLINE {
            (ppb64 * u64::from(MAX_BLOCKS_PER_SCANLINE)).min(dimlen)
        } else {
            ppb64 * u64::from(MAX_BLOCKS_PER_SCANLINE)
        };
        let mut m = (mask & !CHIP) | ALLOW_K13 | RAW;
        m &= !(LSB | MSB);
        m |= if ctx.little_endian { LSB } else { MSB };
        let pps = u32::try_from(scanline).map_err(|_| bad(format!("scanline {scanline} too long")))?;
        Ok(vec![m, bpp, *ppb, pps])
    }
}

#[cfg(all(test, nczarr_szip))]
mod tests {
    use super::*;

    fn ctx(type_size: usize, chunk: &[u64], last: Option<u64>, le: bool) -> VarContext {
        VarContext {
            ncid: -1,
            varid: -1,
            nc_type: 4,
            type_size,
            chunk_shape: chunk.to_vec(),
            little_endian: le,
            last_dim_len: last,
        }
    }

    #[test]
    fn working_parameters_as_netcdf_c() {
        // nc_def_var_szip(NC_SZIP_NN_OPTION_MASK = 32, 32) on int(100, 200)
        // chunked 10 x 200, little-endian: mask 32|K13|RAW|LSB = 169.
        let w = Szip
            .modify_parameters(&ctx(4, &[10, 200], Some(200), true), &[32, 32])
            .unwrap();
        assert_eq!(w, [169, 32, 32, 200]);
        // Big-endian double, long last dimension: MSB, 64 bits, 32*128.
        let w = Szip
            .modify_parameters(&ctx(8, &[5000], Some(10000), false), &[4 | 2, 16])
            .unwrap();
        assert_eq!(w, [4 | 1 | 128 | 16, 64, 16, 2048]);
        // A last dimension shorter than a block: the chunk's size bounds it.
        let w = Szip
            .modify_parameters(&ctx(2, &[50, 4], Some(4), true), &[32, 8])
            .unwrap();
        assert_eq!(w, [169, 16, 8, 200]);
        assert_eq!(
            Szip.modify_parameters(&ctx(2, &[1, 4], Some(4), true), &[32, 8]),
            Err(NcError::Filter)
        );
        assert_eq!(
            Szip.modify_parameters(&ctx(4, &[], None, true), &[32, 8]),
            Err(NcError::Filter)
        );
    }

    #[test]
    fn json_as_netcdf_c_writes_it() {
        assert_eq!(
            Szip.hdf5_to_codec(&[32, 16]).unwrap(),
            r#"{"id": "szip", "mask": 32, "pixels-per-block": 16}"#
        );
        assert_eq!(
            Szip.codec_to_hdf5(r#"{"id": "szip", "mask": 4, "pixels-per-block": 32}"#)
                .unwrap(),
            [4, 32]
        );
        assert!(Szip.codec_to_hdf5(r#"{"id": "szip", "mask": 4}"#).is_err());
        assert!(Szip.hdf5_to_codec(&[4]).is_err());
    }

    #[test]
    fn round_trips() {
        for (ts, le, n, ppb, pps) in [
            (4usize, true, 2000usize, 32u32, 200u32),
            (8, false, 999, 16, 100),
            (2, true, 1234, 8, 10),
            (1, true, 777, 32, 4096),
            (4, true, 33, 8, 33),
        ] {
            let data: Vec<u8> = (0..n * ts).map(|i| ((i * 7) % 253) as u8 ^ ((i / 64) as u8)).collect();
            let c = ctx(ts, &[n as u64], Some(pps as u64), le);
            let w = Szip.modify_parameters(&c, &[32, ppb]).unwrap();
            let enc = Szip.apply(false, &w, data.clone()).unwrap();
            assert_eq!(&enc[..4], &((n * ts) as u32).to_le_bytes());
            assert_eq!(Szip.apply(true, &w, enc.clone()).unwrap(), data, "{ts} {n} {ppb} {pps}");
            assert!(Szip.decode_bounded(&w, enc.clone(), 0, n * ts - 1).is_err());
            // A truncated stream fails or (libaec pads a scanline that ends
            // early) decodes to the header's size: never more, never a crash.
            let mut cut = enc.clone();
            cut.truncate(enc.len() / 2);
            if let Ok(v) = Szip.apply(true, &w, cut) {
                assert_eq!(v.len(), n * ts);
            }
            assert!(Szip.apply(true, &w, vec![1, 0]).is_err());
        }
        // Constant data compresses.
        let zeros = vec![0u8; 40000];
        let w = Szip
            .modify_parameters(&ctx(4, &[10000], Some(10000), true), &[4, 32])
            .unwrap();
        assert!(Szip.apply(false, &w, zeros).unwrap().len() < 2000);
        assert!(Szip.apply(false, &[1, 2, 3], vec![0; 8]).is_err());
        assert!(Szip.apply(false, &[169, 32, 7, 100], vec![0; 8]).is_err());
    }
}
