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

/// The metadata object of every v3 node.
pub const ZARR_JSON: &str = super::markers::V3;
