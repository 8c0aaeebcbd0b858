//! nczarr: the netCDF-C API over NCZarr and Zarr datasets.
//!
//! Layers, in one direction (see docs/architecture.md):
//! `ffi` (the exports) -> `api` (handles, the safe API) -> `model` and
//! `engine` -> `format` (Zarr/NCZarr metadata) -> `storage` (the `Store`
//! trait); `codec` beside them; `runtime` (thread and buffer pools), `error`
//! and `log` under all; `sys` holds the bindings to C libraries we call.
//! Only `ffi` and `sys` contain `unsafe`.
#![deny(unsafe_op_in_unsafe_fn)]
// Every unsafe block (only in ffi/ and sys/) says why it is sound.
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod error;
#[macro_use]
pub mod log;
pub mod aggregate;
pub mod api;
pub mod codec;
pub mod engine;
pub mod ffi;
pub mod format;
pub mod model;
pub mod runtime;
pub mod storage;
pub mod sys;
