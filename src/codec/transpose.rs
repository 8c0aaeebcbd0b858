//! Zarr v3 `transpose`: chunks stored with their dimensions permuted.
//!
//! Spec: zarr-specs `docs/v3/codecs/transpose/index.rst`. Configuration
//! `{"order": [1, 0]}`: encoded dimension `i` is the array's dimension
//! `order[i]`. In the model's chain it is `{"id": "transpose", "order":
//! [...]}` (private HDF5 id 40107), run on the chunk's bytes before the
//! other codecs; byte order commutes with it. Visible parameters: the
//! order; working parameters add the chunk shape and the element size:
//! `[ndim, order..., shape..., element size]`.

use serde_json::Value;

use super::json;
use super::{CodecMap, Hdf5Filter, VarContext};
use crate::error::{NcError, NcResult};
use crate::log::Level;

/// The private HDF5 id of the transpose codec.
pub const ID: u32 = 40107;

#[derive(Debug)]
pub struct Transpose;

fn bad(msg: &str) -> NcError {
    crate::nclog!(Level::Error, "transpose: {msg}");
    NcError::Filter
}

/// Check that `order` permutes `0..order.len()`.
fn check_order(order: &[u32]) -> NcResult<()> {
    let n = order.len();
    let mut seen = vec![false; n];
    for &o in order {
        let o = o as usize;
        if o >= n || std::mem::replace(&mut seen[o], true) {
            return Err(bad("order is not a permutation"));
        }
    }
    Ok(())
}

/// Copy `data` (elements of `es` bytes) into a new buffer in C order over
/// `shape`, taking the element at `sum(index[i] * strides[i])` of `data`
/// for each output index.
fn gather(data: &[u8], shape: &[usize], strides: &[usize], es: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let n = shape.len();
    if n == 0 || shape.contains(&0) {
        out.extend_from_slice(data);
        return out;
    }
    let last = n - 1;
    let mut idx = vec![0usize; n];
    loop {
        let base: usize = (0..last).map(|d| idx[d] * strides[d]).sum();
        for k in 0..shape[last] {
            let p = (base + k * strides[last]) * es;
            out.extend_from_slice(&data[p..p + es]);
        }
        let mut d = last;
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// Permute a C-order chunk of `shape` so that dimension `i` of the result is
/// dimension `order[i]` of the input (`inverse`: undo that, given the
/// permuted chunk). `data` must hold the whole chunk.
pub fn permute(data: &[u8], shape: &[usize], order: &[usize], es: usize, inverse: bool) -> Vec<u8> {
    let n = shape.len();
    let permuted: Vec<usize> = order.iter().map(|&o| shape[o]).collect();
    if !inverse {
        let s = c_strides(shape);
        let strides: Vec<usize> = order.iter().map(|&o| s[o]).collect();
        gather(data, &permuted, &strides, es)
    } else {
        let t = c_strides(&permuted);
        let mut strides = vec![0usize; n];
        for (i, &o) in order.iter().enumerate() {
            strides[o] = t[i];
        }
        gather(data, shape, &strides, es)
    }
}

/// (order, shape, element size) of working parameters.
fn working(cd: &[u32]) -> NcResult<(Vec<usize>, Vec<usize>, usize)> {
    let n = *cd.first().ok_or_else(|| bad("no parameters"))? as usize;
    if cd.len() != 2 + 2 * n {
        return Err(bad("wrong number of parameters"));
    }
    check_order(&cd[1..=n])?;
    let order = cd[1..=n].iter().map(|&o| o as usize).collect();
    let shape = cd[n + 1..=2 * n].iter().map(|&s| s as usize).collect();
    Ok((order, shape, cd[2 * n + 1] as usize))
}

impl Hdf5Filter for Transpose {
    fn id(&self) -> u32 {
        ID
    }

    fn name(&self) -> &str {
        "transpose"
    }

    fn apply(&self, decode: bool, cd: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>> {
        let (order, shape, es) = working(cd)?;
        let n = shape
            .iter()
            .try_fold(es, |a, &s| a.checked_mul(s))
            .ok_or_else(|| bad("chunk too large"))?;
        if input.len() != n || es == 0 {
            return Err(bad(&format!("chunk of {} bytes, expected {n}", input.len())));
        }
        let out = permute(&input, &shape, &order, es, decode);
        crate::runtime::buffers::give(input);
        Ok(out)
    }
}

impl CodecMap for Transpose {
    fn hdf5_id(&self) -> u32 {
        ID
    }

    fn codec_id(&self) -> &str {
        "transpose"
    }

    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>> {
        let m = json::object(codec_json, "transpose")?;
        let order: Vec<u32> = m
            .get("order")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("no order"))?
            .iter()
            .map(|v| v.as_u64().and_then(|u| u32::try_from(u).ok()))
            .collect::<Option<_>>()
            .ok_or_else(|| bad("order is not a list of dimensions"))?;
        check_order(&order)?;
        Ok(order)
    }

    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String> {
        check_order(visible)?;
        let order: Vec<String> = visible.iter().map(u32::to_string).collect();
        Ok(format!("{{\"id\": \"transpose\", \"order\": [{}]}}", order.join(",")))
    }

    fn modify_parameters(&self, ctx: &VarContext, visible: &[u32]) -> NcResult<Vec<u32>> {
        check_order(visible)?;
        if visible.len() != ctx.chunk_shape.len() {
            return Err(bad("order and chunk rank differ"));
        }
        let mut w = vec![visible.len() as u32];
        w.extend_from_slice(visible);
        for &s in &ctx.chunk_shape {
            w.push(u32::try_from(s).map_err(|_| bad("chunk too large"))?);
        }
        w.push(u32::try_from(ctx.type_size).map_err(|_| bad("element too large"))?);
        Ok(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations() {
        let data: Vec<u8> = (0..24).collect();
        // 2x3x4 -> order [2, 0, 1]: shape 4x2x3.
        let p = permute(&data, &[2, 3, 4], &[2, 0, 1], 1, false);
        // Encoded [k][i][j] = input [i][j][k].
        assert_eq!(p[0..6], [0, 4, 8, 12, 16, 20]);
        assert_eq!(p[6..12], [1, 5, 9, 13, 17, 21]);
        assert_eq!(permute(&p, &[2, 3, 4], &[2, 0, 1], 1, true), data);
        // 2-byte elements, 2-D transpose.
        let d: Vec<u8> = (0..12).collect();
        assert_eq!(
            permute(&d, &[2, 3], &[1, 0], 2, false),
            [0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11]
        );
    }

    #[test]
    fn as_a_filter() {
        let ctx = VarContext {
            ncid: -1,
            varid: -1,
            nc_type: 4,
            type_size: 4,
            chunk_shape: vec![3, 2],
            little_endian: true,
            last_dim_len: Some(2),
        };
        let v = Transpose
            .codec_to_hdf5(r#"{"id": "transpose", "order": [1, 0]}"#)
            .unwrap();
        let w = Transpose.modify_parameters(&ctx, &v).unwrap();
        assert_eq!(w, [2, 1, 0, 3, 2, 4]);
        let data: Vec<u8> = (0..24).collect();
        let e = Transpose.apply(false, &w, data.clone()).unwrap();
        assert_eq!(Transpose.apply(true, &w, e).unwrap(), data);
        assert!(Transpose.apply(true, &w, vec![0; 23]).is_err());
        assert!(
            Transpose
                .codec_to_hdf5(r#"{"id": "transpose", "order": [1, 1]}"#)
                .is_err()
        );
        assert!(Transpose.modify_parameters(&ctx, &[0]).is_err());
        assert_eq!(
            Transpose.hdf5_to_codec(&v).unwrap(),
            r#"{"id": "transpose", "order": [1,0]}"#
        );
    }
}
