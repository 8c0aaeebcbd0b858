//! Exports kept for older programs and for the libraries layered on
//! netcdf-c: the netCDF-2 API, netcdf-fortran's helpers and `netcdf_aux.h`.

pub mod aux;
pub mod fortran;
pub mod legacy;
pub mod memio;
pub mod v2;
