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

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_ZARR_H */
