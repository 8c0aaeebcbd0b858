//! nczarr: the netCDF-C API over NCZarr and Zarr v2 datasets.
//!
//! Layers, in one direction: `ffi` (the C boundary) -> handle table -> `model`
//! and `engine` -> `format` (Zarr/NCZarr metadata) -> `storage` (the `Store`
//! trait). Only `ffi` (and later the plugin loader) contains `unsafe`.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod cdtime;
pub mod error;
#[macro_use]
pub mod log;
pub mod ffi;
pub mod storage;
pub mod types;
pub mod utf16;
