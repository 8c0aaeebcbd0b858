/*
 * netcdf_filter.h -- filter (codec) interface of the nczarr libnetcdf.
 *
 * Written for the nczarr project; declares the same interface as
 * netCDF-C 4.10.1's netcdf_filter.h (same constants, types and
 * prototypes).  Filters are named by their HDF5 filter id; for Zarr
 * storage each id is paired with a Zarr/numcodecs codec.
 *
 * netCDF-C requires netcdf.h to be included before this header; this
 * one also includes it itself, so either order works.
 */

#ifndef NETCDF_FILTER_H
#define NETCDF_FILTER_H 1

#include "netcdf.h"

/* ===================================================================
 * Well-known HDF5 filter ids.  The values are those of HDF5's
 * H5Zpublic.h, so each group is skipped when that header (or another
 * that defines the same names) has already been included.
 * =================================================================== */

#ifndef H5Z_FILTER_DEFLATE
#define H5Z_FILTER_DEFLATE 1
#define H5Z_FILTER_SHUFFLE 2
#define H5Z_FILTER_FLETCHER32 3
#endif

#ifndef H5Z_FILTER_SZIP
#define H5Z_FILTER_SZIP 4
/* szip option-mask bits */
#define H5_SZIP_ALLOW_K13_OPTION_MASK   1
#define H5_SZIP_CHIP_OPTION_MASK        2
#define H5_SZIP_EC_OPTION_MASK          4
#define H5_SZIP_LSB_OPTION_MASK         8
#define H5_SZIP_MSB_OPTION_MASK         16
#define H5_SZIP_NN_OPTION_MASK          32
#define H5_SZIP_MAX_PIXELS_PER_BLOCK    32
#define H5_SZIP_RAW_OPTION_MASK         128

/* Coding methods for nc_def_var_szip() (same values as in netcdf.h). */
#define NC_SZIP_EC 4
#define NC_SZIP_NN 32
#endif

/* The option-mask bits nc_def_var_szip() accepts. */
#define H5_SZIP_ALL_MASKS (H5_SZIP_CHIP_OPTION_MASK|H5_SZIP_EC_OPTION_MASK|H5_SZIP_NN_OPTION_MASK)

/* Largest pixels_per_block nc_def_var_szip() accepts. */
#define NC_MAX_PIXELS_PER_BLOCK 32

/* Registered ids of the other standard filters. */
#ifndef H5Z_FILTER_ZSTD
#define H5Z_FILTER_ZSTD 32015
#endif
#ifndef H5Z_FILTER_BZIP2
#define H5Z_FILTER_BZIP2 307
#endif
#ifndef H5Z_FILTER_BLOSC
#define H5Z_FILTER_BLOSC 32001
#endif

/* Blosc shuffle modes (values as in c-blosc's blosc.h; skipped when
 * blosc.h has defined them). */
#ifndef BLOSC_SHUFFLE
enum BLOSC_SHUFFLE {
    BLOSC_NOSHUFFLE = 0,  /* no shuffle */
    BLOSC_SHUFFLE = 1,    /* byte shuffle */
    BLOSC_BITSHUFFLE = 2  /* bit shuffle */
};
#endif

/* Blosc inner compressors, numbered as c-blosc numbers them. */
#ifndef BLOSC_BLOSCLZ
enum BLOSC_SUBCOMPRESSORS {
    BLOSC_LZ = 0,
    BLOSC_LZ4 = 1,
    BLOSC_LZ4HC = 2,
    BLOSC_SNAPPY = 3,
    BLOSC_ZLIB = 4,
    BLOSC_ZSTD = 5
};
#endif

#if defined(__cplusplus)
extern "C" {
#endif

/* ===================================================================
 * Filters of a variable
 * =================================================================== */

/* Append filter id with nparams parameters to the variable's chain
 * (also declared in netcdf.h). */
EXTERNL int nc_def_var_filter(int ncid, int varid, unsigned int id, size_t nparams, const unsigned int *params);

/* The first filter of the variable and its parameters (also declared in
 * netcdf.h). */
EXTERNL int nc_inq_var_filter(int ncid, int varid, unsigned int *idp, size_t *nparams, unsigned int *params);

/* Number of filters and their ids, in chain order.  Call once with
 * filterids NULL to learn the count. */
EXTERNL int nc_inq_var_filter_ids(int ncid, int varid, size_t *nfilters, unsigned int *filterids);

/* Parameters of the variable's filter with the given id. */
EXTERNL int nc_inq_var_filter_info(int ncid, int varid, unsigned int id, size_t *nparams, unsigned int *params);

/* NC_NOERR if a filter with this id can be used, NC_ENOFILTER if not. */
EXTERNL int nc_inq_filter_avail(int ncid, unsigned id);

/* ===================================================================
 * Shortcuts for the standard filters
 * =================================================================== */

EXTERNL int nc_def_var_bzip2(int ncid, int varid, int level);
EXTERNL int nc_inq_var_bzip2(int ncid, int varid, int *hasfilterp, int *levelp);

/* Zstandard (note the spelling "zstandard"). */
EXTERNL int nc_def_var_zstandard(int ncid, int varid, int level);
EXTERNL int nc_inq_var_zstandard(int ncid, int varid, int *hasfilterp, int *levelp);

EXTERNL int nc_def_var_blosc(int ncid, int varid, unsigned subcompressor, unsigned level, unsigned blocksize, unsigned addshuffle);
EXTERNL int nc_inq_var_blosc(int ncid, int varid, int *hasfilterp, unsigned *subcompressorp, unsigned *levelp, unsigned *blocksizep, unsigned *addshufflep);

/* Declared by netCDF-C 4.10.1, which provides no implementation. */
EXTERNL int nc_filter_path_query(int id);

#if defined(__cplusplus)
}
#endif

/* ===================================================================
 * Plugin search path
 * =================================================================== */

/* A list of directories: ndirs entries in dirs. */
typedef struct NCPluginList {
    size_t ndirs;
    char **dirs;
} NCPluginList;

#if defined(__cplusplus)
extern "C" {
#endif

/* Number of directories in the global plugin path. */
EXTERNL int nc_plugin_path_ndirs(size_t *ndirsp);

/* Copy the global plugin path into dirs.  If dirs->dirs is NULL the
 * vector is allocated (the caller frees it); otherwise it must have
 * room for nc_plugin_path_ndirs() entries. */
EXTERNL int nc_plugin_path_get(NCPluginList *dirs);

/* Replace the global plugin path; NULL or an empty list clears it. */
EXTERNL int nc_plugin_path_set(NCPluginList *dirs);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_FILTER_H */
