/*
 * netcdf_zarr.h -- Zarr extensions of the nczarr libnetcdf.
 *
 * netCDF-C has no such functions: this header is this library's own, and a
 * program that uses it needs this library. Include netcdf.h first, or let
 * this header include it.
 */

#ifndef NETCDF_ZARR_H
#define NETCDF_ZARR_H

#include <stddef.h>

#include "netcdf.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* Zarr v3 sharding (the sharding_indexed codec): a variable's chunks stored
 * together in larger objects, the shards, each with an index of its chunks.
 * A read fetches only the chunks it needs (byte ranges of the shard); a shard
 * is written whole.
 *
 * nc_def_var_zarr_shards: shards of shardsizes[i] elements along dimension
 * i, each a multiple of the variable's chunk size along that dimension (the
 * chunks, nc_def_var_chunking, are the units that are read and compressed).
 * NULL shardsizes: no shards. Only for datasets written as Zarr v3 (mode
 * v3), before the variable is first stored (as nc_def_var_chunking); not for
 * scalars or string variables. A later nc_def_var_chunking rounds the shard
 * sizes up to whole chunks.
 * Returns NC_NOERR, NC_EBADID, NC_ENOTVAR, NC_EINVAL (not Zarr v3, scalar or
 * string variable, sizes that are not whole chunks), NC_ELATEDEF, NC_EPERM,
 * NC_ENOTBUILT (a dataset that is not Zarr).
 *
 * nc_inq_var_zarr_shards: *shardedp is 1 when the variable is sharded, else
 * 0; shardsizesp receives the shard sizes (one per dimension) when it is.
 * Either pointer may be NULL.
 * Returns NC_NOERR, NC_EBADID, NC_ENOTVAR, NC_ENOTBUILT.
 *
 * The mode key shards=auto (or shards=<bytes>, with k, m or g suffixes) in a
 * dataset's URL gives every new variable shards of about 64 MiB (or that
 * size), so that unchanged programs such as nccopy write sharded datasets:
 *   nccopy in.zarr 'file:///out.zarr#mode=nczarr,v3,shards=auto,file'
 */
EXTERNL int nc_def_var_zarr_shards(int ncid, int varid, const size_t *shardsizes);
EXTERNL int nc_inq_var_zarr_shards(int ncid, int varid, int *shardedp, size_t *shardsizesp);

/* CF aggregation (CF-1.13 section 2.8): a variable written as fragments,
 * each a Zarr dataset of the master's format (NCZarr or Zarr v2 directory,
 * Zarr v3, zip, S3), the master holding the aggregation variable
 * (aggregated_dimensions, aggregated_data = "map: ... uris: ...
 * identifiers: ...") and its tables. While the writing handle is open the
 * variable is the N-d variable (nc_inq_var, nc_put_vara, nc_get_vara);
 * opened again, the library reads it through the fragments.
 *
 * nc_def_var_aggregation: fragments of fragment_shape[i] elements along
 * dimension i (the last fragment along a dimension may be smaller), or, with
 * NULL fragment_shape, fragments of at most max_fragment_bytes bytes (0:
 * 64 MiB) cut by S3netCDF4's splitting algorithm (whole chunks, balancing a
 * time series against a map, axes from CF metadata). uri_template names
 * each fragment, relative to the master's directory, with {master} (the
 * master's last path component), {var} and {index} (grid indices joined by
 * '_'); a "#mode=..." suffix chooses its format; NULL is
 * "{master}_{var}/{index}.zarr". Every fragment is created at nc_enddef,
 * so what is not written reads as fill. Along an unlimited dimension the
 * fragment extent is fixed (given, or the records that fill
 * max_fragment_bytes) and a write past the last record creates the new
 * fragments; the master's tables follow at nc_sync and nc_close. nc_abort
 * of a dataset created by nc_create removes the fragments it created.
 * Only in define mode, before the
 * variable is first stored; not for scalars or non-numeric types.
 * Programs that can only set attributes use the variable attributes
 * _Aggregation_FragmentShape (integers), _Aggregation_FragmentBytes (an
 * integer) and _Aggregation_URI (text), read and removed at nc_enddef.
 * Returns NC_NOERR, NC_EBADID, NC_ENOTVAR, NC_ENOTINDEFINE, NC_EINVAL
 * (scalar, non-numeric type, a size of 0, an empty template), NC_ELATEDEF,
 * NC_EPERM, NC_ENOTBUILT (a dataset that is not Zarr, or of several MPI
 * processes).
 */
EXTERNL int nc_def_var_aggregation(int ncid, int varid, const size_t *fragment_shape,
                                   size_t max_fragment_bytes, const char *uri_template);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_ZARR_H */
