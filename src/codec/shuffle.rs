//! Byte shuffle: HDF5 filter 2, numcodecs codec `shuffle`.
//!
//! JSON: `{"id": "shuffle", "elementsize": 4}`. The stored bytes of `n` values
//! of `k` bytes are regrouped as all first bytes, then all second bytes, ...;
//! bytes past the last whole value stay in place (HDF5's rule).
//!
//! netcdf-c writes `"elementsize": 0` and uses the variable's type size; other
//! readers (zarr-python) take 0 literally and decode wrong data. This library
//! writes the real element size, and reads 0 (or a missing member) as netcdf-c
//! means it. Visible parameters: `[]` for 0, `[n]` otherwise; working: `[n]`,
//! or `[type size]`.

use super::json;
use super::{CodecMap, Hdf5Filter, VarContext};
use crate::error::{NcError, NcResult};
use crate::runtime::buffers;
use crate::sys::simd;

#[derive(Debug)]
pub struct Shuffle;

/// Shuffle (`decode == false`) or unshuffle `src` with elements of `es` bytes.
pub fn shuffle(src: &[u8], es: usize, decode: bool) -> Vec<u8> {
    let mut out = buffers::take_len(src.len());
    let count = src.len().checked_div(es).unwrap_or(0);
    if es <= 1 || count <= 1 {
        out.copy_from_slice(src);
        return out;
    }
    let body = count * es;
    if decode {
        unshuffle_part(&src[..body], es, 0, &mut out[..body]);
        out[body..].copy_from_slice(&src[body..]);
        return out;
    }
    match es {
        2 => shuffle_n::<2>(&src[..body], &mut out[..body], count),
        4 => shuffle_n::<4>(&src[..body], &mut out[..body], count),
        8 => shuffle_n::<8>(&src[..body], &mut out[..body], count),
        _ => {
            for b in 0..es {
                let plane = b * count..(b + 1) * count;
                for (d, &v) in out[plane].iter_mut().zip(src[b..body].iter().step_by(es)) {
                    *d = v;
                }
            }
        }
    }
    out[body..].copy_from_slice(&src[body..]);
    out
}

/// Unshuffle part of a shuffled run of whole elements of `es` bytes
/// (`src`: all first bytes, then all second bytes, ...) straight into its
/// place: elements `first..first + out.len() / es` into `out`. `out` holds
/// whole elements inside `src` (the caller's check; past it this panics).
pub fn unshuffle_part(src: &[u8], es: usize, first: usize, out: &mut [u8]) {
    let count = src.len().checked_div(es).unwrap_or(0);
    match es {
        0 | 1 => out.copy_from_slice(&src[first..first + out.len()]),
        2 => unshuffle_n::<2>(src, count, first, out),
        4 => unshuffle_n::<4>(src, count, first, out),
        8 => unshuffle_n::<8>(src, count, first, out),
        _ => {
            let k = out.len() / es;
            for b in 0..es {
                for (i, &v) in src[b * count + first..][..k].iter().enumerate() {
                    out[i * es + b] = v;
                }
            }
        }
    }
}

/// `unshuffle_part` for elements of `N` bytes (the common sizes), `count`
/// elements in `src`: 16 at a time with SSE2 (`sys::simd`), the rest
/// without per-byte index arithmetic.
fn unshuffle_n<const N: usize>(src: &[u8], count: usize, first: usize, out: &mut [u8]) {
    let (elems, _) = out.as_chunks_mut::<N>();
    let planes: [&[u8]; N] = std::array::from_fn(|b| &src[b * count + first..][..elems.len()]);
    let done = simd::unshuffle(&planes, elems.as_flattened_mut());
    // Planes cut to exactly the elements left and whole output elements:
    // the loop has no bounds checks left.
    let rest: [&[u8]; N] = planes.map(|p| &p[done..]);
    for (i, o) in elems[done..].iter_mut().enumerate() {
        *o = std::array::from_fn(|b| rest[b][i]);
    }
}

fn shuffle_n<const N: usize>(src: &[u8], out: &mut [u8], count: usize) {
    let mut rest = &mut out[..count * N];
    let planes: [&mut [u8]; N] = std::array::from_fn(|_| {
        let (p, r) = std::mem::take(&mut rest).split_at_mut(count);
        rest = r;
        p
    });
    for (i, e) in src[..count * N].chunks_exact(N).enumerate() {
        // Always N bytes; as an array the inner loop unrolls.
        let Ok(e) = <&[u8; N]>::try_from(e) else { continue };
        for b in 0..N {
            planes[b][i] = e[b];
        }
    }
}

impl Hdf5Filter for Shuffle {
    fn id(&self) -> u32 {
        2
    }

    fn name(&self) -> &str {
        "shuffle"
    }

    fn apply(&self, decode: bool, cd_values: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>> {
        let es = *cd_values.first().ok_or(NcError::Filter)? as usize;
        let out = shuffle(&input, es, decode);
        buffers::give(input);
        Ok(out)
    }
}

impl CodecMap for Shuffle {
    fn hdf5_id(&self) -> u32 {
        2
    }

    fn codec_id(&self) -> &str {
        "shuffle"
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        let m = json::object(codec_json, "shuffle")?;
        let es = json::int_in(&m, "elementsize", 0, u32::MAX as i64, Some(0))?;
        Ok(if es == 0 { vec![] } else { vec![es as u32] })
    }

    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        // netcdf-c's codec uses the first parameter, if any, and ignores the rest.
        let es = visible.first().copied().unwrap_or(0);
        Ok(format!("{{\"id\": \"shuffle\", \"elementsize\": {es}}}"))
    }

    fn modify_parameters(&self, ctx: &VarContext, visible: &[u32]) -> NcResult<Vec<u32>> {
        match visible.first() {
            Some(&n) if n > 0 => Ok(vec![n]),
            _ => Ok(vec![ctx.type_size as u32]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_layout_and_round_trip() {
        let src: Vec<u8> = (0..11).collect();
        let s = shuffle(&src, 4, false);
        assert_eq!(s, vec![0, 4, 1, 5, 2, 6, 3, 7, 8, 9, 10]);
        assert_eq!(shuffle(&s, 4, true), src);
        for es in [1, 2, 3, 8, 16] {
            let src: Vec<u8> = (0..200u32).map(|i| (i * 7) as u8).collect();
            assert_eq!(shuffle(&shuffle(&src, es, false), es, true), src);
        }
        // The unrolled paths (2, 4, 8) against the definition: byte b of
        // element i at b * count + i, a tail of fewer than es bytes as is.
        for es in [2usize, 4, 8] {
            for len in [0usize, 1, es - 1, es, 3 * es + 1, 1000, 4099] {
                let src: Vec<u8> = (0..len).map(|i| (i * 31 + i / 7) as u8).collect();
                let count = len / es;
                let mut want = src.clone();
                for i in 0..count {
                    for b in 0..es {
                        want[b * count + i] = src[i * es + b];
                    }
                }
                assert_eq!(shuffle(&src, es, false), want, "es {es} len {len}");
                assert_eq!(shuffle(&want, es, true), src, "es {es} len {len}");
            }
        }
        // Parts of a shuffled run unshuffled into place: the same bytes as
        // the whole run unshuffled, for every element size and any part.
        for es in [1usize, 2, 3, 4, 8, 16] {
            let count = 333;
            let src: Vec<u8> = (0..count * es).map(|i| (i * 13 + i / 5) as u8).collect();
            let whole = shuffle(&src, es, true);
            for (first, n) in [(0, count), (0, 1), (5, 17), (100, 233), (count - 1, 1), (7, 0)] {
                let mut out = vec![0xaa; n * es];
                unshuffle_part(&src, es, first, &mut out);
                assert_eq!(out, whole[first * es..(first + n) * es], "es {es} part {first}+{n}");
            }
        }
        assert_eq!(
            Shuffle.codec_to_hdf5(r#"{"id": "shuffle", "elementsize": 0}"#).unwrap(),
            Vec::<u32>::new()
        );
        assert_eq!(
            Shuffle.codec_to_hdf5(r#"{"id": "shuffle", "elementsize": 8}"#).unwrap(),
            vec![8]
        );
    }
}
