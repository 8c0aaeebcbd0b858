//! Bindings to the C libraries the library calls (not exports): mimalloc,
//! the allocator of the library's own memory (`alloc.rs`), c-blosc and
//! the LZ4 block decoder it links,
//! Intel's ISA-L (through `c/isal.c`), libaec's szip API (`szip.rs`),
//! HDF5-style filter plugins loaded with
//! `dlopen`, the system libnetcdf that non-Zarr datasets are handed to, MPI
//! (`mpi.rs`, resolved in the calling process);
//! and the SSE2 unshuffle (`simd.rs`).
//! Each `unsafe` block here says why the call is sound.

pub mod alloc;
pub mod blosc;
pub mod isal;
pub mod lz4;
pub mod mpi;
pub mod netcdf;
pub mod plugin;
pub mod simd;
pub mod szip;
