//! Zarr v2 / v3 and NCZarr metadata: parsing and writing. Knows the `Store` trait only.
#![forbid(unsafe_code)]
pub mod dialect;
pub mod dtype;
pub mod json;
pub mod markers;
pub mod names;
pub mod object;
pub mod read;
pub mod v3;
pub mod write;
