//! netCDF's constants, as netcdf.h spells them, for the tests that call
//! the C API.

use std::ffi::c_int;

pub const NC_GLOBAL: c_int = -1;
pub const NC_CHAR: c_int = 2;
pub const NC_SHORT: c_int = 3;
pub const NC_INT: c_int = 4;
pub const NC_FLOAT: c_int = 5;
pub const NC_DOUBLE: c_int = 6;
pub const NC_UBYTE: c_int = 7;
pub const NC_INT64: c_int = 10;
pub const NC_STRING: c_int = 12;
pub const NC_WRITE: c_int = 1;
pub const NC_NETCDF4: c_int = 0x1000;
pub const NC_UNLIMITED: usize = 0;
pub const NC_FORMAT_CLASSIC: c_int = 1;
pub const NC_FORMAT_NETCDF4: c_int = 3;
pub const NC_FORMATX_NC3: c_int = 1;
pub const NC_FORMATX_NC_HDF5: c_int = 2;
pub const NC_CHUNKED: c_int = 0;
pub const NC_CONTIGUOUS: c_int = 1;
pub const NC_EINVAL: c_int = -36;
pub const NC_EPERM: c_int = -37;
pub const NC_ENOTATT: c_int = -43;
pub const NC_ENOTVAR: c_int = -49;
pub const NC_ERANGE: c_int = -60;
pub const NC_EVARSIZE: c_int = -62;
pub const NC_EFILTER: c_int = -132;
pub const NC_ENOOBJECT: c_int = -141;
