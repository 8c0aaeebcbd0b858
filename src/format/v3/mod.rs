//! Zarr v3: `zarr.json` per node (zarr-specs `docs/v3/core/index.rst`, v3.1),
//! read into the same model as v2 and written from it; NCZarr's netCDF
//! model in `attributes` as netcdf-c's draft v3 support writes it.
//!
//! - `dtype`: `data_type` <-> netCDF types;
//! - `fill`: `fill_value` in every encoding;
//! - `codecs`: the codec pipeline <-> the model's chain (sharding included);
//! - `read`: a dataset whose root holds `zarr.json`;
//! - `write`: the model as `zarr.json` objects.
#![forbid(unsafe_code)]

pub mod codecs;
pub mod dtype;
pub mod fill;
pub mod read;
pub mod write;

use crate::model::ChunkKeys;

/// The metadata object of every v3 node.
pub const ZARR_JSON: &str = "zarr.json";

/// The key of chunk `idx` below the array at `prefix` (`scalar`: a 0-d
/// array, whose one chunk the engine calls `[0]`).
pub fn chunk_key(prefix: &str, keys: ChunkKeys, sep: char, idx: &[u64], scalar: bool) -> String {
    let mut k = String::with_capacity(prefix.len() + 2 + 4 * idx.len());
    k.push_str(prefix);
    if !k.is_empty() {
        k.push('/');
    }
    let idx = if scalar && keys == ChunkKeys::V3Default {
        &[][..]
    } else {
        idx
    };
    if keys == ChunkKeys::V3Default {
        k.push('c');
    }
    for (i, x) in idx.iter().enumerate() {
        if i > 0 || keys == ChunkKeys::V3Default {
            k.push(sep);
        }
        k.push_str(&x.to_string());
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_keys() {
        assert_eq!(chunk_key("a", ChunkKeys::V3Default, '/', &[0, 12], false), "a/c/0/12");
        assert_eq!(chunk_key("g/a", ChunkKeys::V3Default, '.', &[1, 2], false), "g/a/c.1.2");
        assert_eq!(chunk_key("a", ChunkKeys::V3Default, '/', &[0], true), "a/c");
        assert_eq!(chunk_key("a", ChunkKeys::V2, '.', &[3, 4], false), "a/3.4");
        assert_eq!(chunk_key("a", ChunkKeys::V2, '/', &[0], true), "a/0");
    }
}
