/*
 * netcdf_meta.h -- version and build features of the nczarr libnetcdf.
 *
 * Written for the nczarr project.  It defines the macros of netCDF-C
 * 4.10.1's netcdf_meta.h (same names), with the values a netCDF-C
 * 4.10.1 build configured like this library would produce: NCZarr with
 * built-in codecs (zstd, blosc, bzip2) and an internal S3 client, the
 * classic formats including CDF-5, and no HDF5, HDF4, DAP, szip or
 * parallel I/O.
 *
 * The values are checked against testdata/headers/netcdf_meta.config.tsv
 * by scripts/compare-headers-4101.py.
 */

#ifndef NETCDF_META_H
#define NETCDF_META_H

#define NC_VERSION_MAJOR 4
#define NC_VERSION_MINOR 10
#define NC_VERSION_PATCH 1
#define NC_VERSION_NOTE  ""  /* suffix such as "-rc1"; empty for a release */

/* "MAJOR.MINOR.PATCH" followed by NC_VERSION_NOTE. */
#define NC_VERSION       "4.10.1"

#define NC_HAS_NC2       1 /* version-2 API */
#define NC_HAS_HDF4      0 /* HDF4 files */
#define NC_HAS_HDF5      0 /* HDF5-based netCDF-4 files */
#define NC_HAS_SZIP      0 /* szip filter */
#define NC_HAS_SZIP_WRITE 0 /* szip compression on write */
#define NC_HAS_DAP2      0 /* OPeNDAP DAP2 client */
#define NC_HAS_DAP4      0 /* OPeNDAP DAP4 client */
#define NC_HAS_BYTERANGE 0 /* HTTP byte-range access */
#define NC_HAS_DISKLESS  0 /* NC_DISKLESS datasets */
#define NC_HAS_MMAP      0 /* NC_MMAP datasets */
#define NC_HAS_PNETCDF   0 /* PnetCDF parallel I/O */
#define NC_HAS_PARALLEL4 0 /* parallel I/O through HDF5 */
#define NC_HAS_PARALLEL  0 /* any parallel I/O */

#define NC_HAS_CDF5          1 /* CDF-5 (64-bit data) format */
#define NC_HAS_ERANGE_FILL   0 /* fill value on NC_ERANGE conversions */
#define NC_RELAX_COORD_BOUND 1 /* zero counts allowed at the dimension end */
#define NC_DISPATCH_VERSION  5 /* version of the dispatch table ABI */
#define NC_HAS_PAR_FILTERS   0 /* filters with parallel I/O */
#define NC_HAS_LOGGING       0 /* nc_set_log_level() logging */

#define NC_HAS_QUANTIZE      1 /* nc_def_var_quantize() */
#define NC_HAS_ZSTD          1 /* Zstandard filter */
#define NC_HAS_BENCHMARKS    0 /* benchmark programs */
#define NC_HAS_BLOSC         1 /* Blosc filter */
#define NC_HAS_BZ2           1 /* bzip2 filter */
#define NC_HAS_UDF_SELF_LOAD 0 /* user-defined formats loaded from .rc keys */
#define NC_HAS_S3            1 /* S3 storage */
#define NC_HAS_S3_AWS        0 /* S3 through the AWS C++ SDK */
#define NC_HAS_S3_INTERNAL   1 /* S3 through the built-in client */
#define NC_HAS_HDF5_ROS3     0 /* HDF5 read-only S3 driver */
#define NC_HAS_NCZARR        1 /* NCZarr / Zarr storage */

#endif /* NETCDF_META_H */
