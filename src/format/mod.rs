//! Zarr v2 / NCZarr metadata: parsing and writing. Knows the `Store` trait only.
pub mod dtype;
pub mod json;
pub mod markers;
pub mod object;
pub mod read;
pub mod write;
