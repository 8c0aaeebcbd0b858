//! Bindings to the C libraries the library calls (not exports): c-blosc,
//! Intel's ISA-L (through `c/isal.c`), libaec's szip API (`szip.rs`),
//! HDF5-style filter plugins loaded with
//! `dlopen`, and the system libnetcdf that non-Zarr datasets are handed to.
//! Each `unsafe` block here says why the call is sound.

pub mod blosc;
pub mod isal;
pub mod netcdf;
pub mod plugin;
pub mod szip;
