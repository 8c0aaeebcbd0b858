//! nczarr: the netCDF-C API over NCZarr and Zarr v2 datasets.
//!
//! Layers, in one direction: `ffi` (the C boundary) -> `handles` -> `api`,
//! `model` and `engine` -> `format` (Zarr/NCZarr metadata) -> `storage` (the
//! `Store` trait). Only `ffi` (and later the plugin loader) contains `unsafe`.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod cdtime;
pub mod codec;
pub mod convert;
pub mod error;
#[macro_use]
pub mod log;
pub mod api;
pub mod engine;
pub mod ffi;
pub mod filter;
pub mod format;
pub mod handles;
pub mod model;
pub mod quantize;
pub mod storage;
pub mod types;
pub mod url;
pub mod utf16;
