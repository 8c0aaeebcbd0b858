//! Codecs: the filters that turn a chunk's bytes into what is stored, and back.
//!
//! netCDF's model (and ours): every filter is an HDF5-style filter, known by an
//! HDF5 id and run with a vector of unsigned 32-bit parameters (`cd_values`).
//! A Zarr dataset names its codecs by JSON (`{"id": "zstd", "level": 3}`); a
//! *codec map* converts that JSON to the filter's *visible* parameters and back,
//! and turns visible parameters into the *working* parameters the filter needs
//! for one variable (type size, chunk size: `NCZ_modify_parameters`).
//!
//! Built-in codecs and the ones loaded from `HDF5_PLUGIN_PATH` (`plugin`) both
//! implement the two traits below; the registry searches plugin entries first.
#![forbid(unsafe_code)]

pub mod blosc;
pub mod bz2;
pub mod checksum;
pub mod delta;
pub mod fletcher32;
pub mod gzip;
pub mod lz4;
pub mod plugin;
pub mod sharding;
pub mod shuffle;
pub mod szip;
pub mod transpose;
pub mod zlib;
pub mod zstd;

mod chain;
mod json;
mod registry;

pub use chain::{Chain, Step, resolve};
pub use registry::{available, builtin_ids, codec_by_hdf5, codec_by_id, filter};

use crate::error::{NcError, NcResult};

/// What a filter or codec map may need to know about the variable it serves.
/// Plugin codec libraries ask libnetcdf itself through `ncid`/`varid`
/// (`nc_inq_var`, ...): they must be called without any dataset lock held.
#[derive(Debug, Clone)]
pub struct VarContext {
    pub ncid: i32,
    pub varid: i32,
    /// netCDF type id of the variable (`NC_FLOAT`, ...).
    pub nc_type: i32,
    /// Size in bytes of one stored value (1 for char, 8 for a vlen pointer).
    pub type_size: usize,
    /// Chunk shape in elements (empty for a scalar).
    pub chunk_shape: Vec<u64>,
    /// Whether stored values are little-endian.
    pub little_endian: bool,
    /// The current length of the last dimension, when the caller knows it
    /// (szip's scanline, as netcdf-c asks `nc_inq_dimlen`).
    pub last_dim_len: Option<u64>,
}

/// An HDF5-style filter (what `H5Z_class2_t` describes).
pub trait Hdf5Filter: Send + Sync + std::fmt::Debug {
    /// The HDF5 filter id (1 deflate, 2 shuffle, 32015 zstd, ...).
    fn id(&self) -> u32;
    /// A human-readable name (for logs).
    fn name(&self) -> &str;
    /// Encode (`decode == false`) or decode one chunk with the *working*
    /// parameters. A failure (corrupt input, bad parameters) is `NC_EFILTER`.
    fn apply(&self, decode: bool, cd_values: &[u32], input: Vec<u8>) -> NcResult<Vec<u8>>;

    /// Decode with what the caller knows of the result: `expect` is its likely
    /// size (the chunk's size; a hint for one-shot decoders), `limit` the most
    /// bytes it may have. Output beyond `limit` is `NC_EFILTER`, and built-in
    /// filters stop before allocating past it (hostile input). By default
    /// `apply` runs and its result is checked.
    fn decode_bounded(&self, cd_values: &[u32], input: Vec<u8>, expect: usize, limit: usize) -> NcResult<Vec<u8>> {
        let _ = expect;
        let out = self.apply(true, cd_values, input)?;
        if out.len() > limit {
            crate::nclog!(
                crate::log::Level::Error,
                "filter {} decoded {} bytes, more than the {} allowed",
                self.id(),
                out.len(),
                limit
            );
            return Err(NcError::Filter);
        }
        Ok(out)
    }

    /// Decode only bytes `start..start + out.len()` of the chunk `input`
    /// encodes (`chunk_len` bytes in all) into `out`, when the codec can do
    /// that for less than a whole decode (blosc decompresses only the blocks
    /// holding them). `None`: not supported, decode the whole chunk.
    fn decode_range(
        &self,
        cd_values: &[u32],
        input: &[u8],
        chunk_len: usize,
        start: usize,
        out: &mut [u8],
    ) -> Option<NcResult<()>> {
        let _ = (cd_values, input, chunk_len, start, out);
        None
    }

    /// Whether `decode_ranges` decodes ranges apart (for less than a whole
    /// decode): reads then ask it for the parts they need, straight into
    /// their place. False by default.
    fn decodes_ranges(&self) -> bool {
        false
    }

    /// How many decoded bytes of the chunk `input` encodes `decode_ranges`
    /// decodes as one piece (blosc: its block size), for a caller that asks
    /// for the ranges of a chunk in stretches: best a whole number of
    /// pieces each. `None`: no ranges decoded, or no such unit.
    fn range_piece(&self, cd_values: &[u32], input: &[u8]) -> Option<usize> {
        let _ = (cd_values, input);
        None
    }

    /// Decode several byte ranges of the chunk `input` encodes (`chunk_len`
    /// bytes in all), each `(start, out)` into its `out`; the ranges come
    /// sorted and disjoint. For codecs that can decode apart what holds each
    /// one (blosc: the blocks), so that a read touching a few scattered parts
    /// of a chunk decodes only those. `None`: not supported.
    fn decode_ranges(
        &self,
        cd_values: &[u32],
        input: &[u8],
        chunk_len: usize,
        ranges: &mut [(usize, &mut [u8])],
    ) -> Option<NcResult<()>> {
        let _ = (cd_values, input, chunk_len, ranges);
        None
    }
}

/// The Zarr side of a filter (what `NCZ_codec_t` describes).
pub trait CodecMap: Send + Sync + std::fmt::Debug {
    /// The HDF5 filter id this codec pairs with.
    fn hdf5_id(&self) -> u32;
    /// The Zarr codec id (`"zstd"`, `"blosc"`, `"zlib"`, ...).
    fn codec_id(&self) -> &str;
    /// Codec JSON (one object, as text) to visible parameters.
    fn codec_to_hdf5(&self, codec_json: &str) -> NcResult<Vec<u32>>;
    /// Visible parameters to codec JSON (one object, as text).
    fn hdf5_to_codec(&self, visible: &[u32]) -> NcResult<String>;
    /// Visible to working parameters for one variable. By default the same.
    fn modify_parameters(&self, _ctx: &VarContext, visible: &[u32]) -> NcResult<Vec<u32>> {
        Ok(visible.to_vec())
    }
}
