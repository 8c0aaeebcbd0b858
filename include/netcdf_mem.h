/*
 * netcdf_mem.h -- in-memory datasets in the nczarr libnetcdf.
 *
 * Written for the nczarr project; declares the same interface as
 * netCDF-C 4.10.1's netcdf_mem.h (same constants, types and
 * prototypes).
 *
 * netCDF-C requires netcdf.h to be included before this header; this
 * one also includes it itself, so either order works.
 */

#ifndef NETCDF_MEM_H
#define NETCDF_MEM_H 1

#include "netcdf.h"

/* A memory block holding a dataset image. */
typedef struct NC_memio {
    size_t size;   /* bytes in memory */
    void *memory;  /* the image */
    int flags;     /* NC_MEMIO_* bits */
} NC_memio;

/* NC_memio flag: the library must not realloc or free the block. */
#define NC_MEMIO_LOCKED 1

#if defined(__cplusplus)
extern "C" {
#endif

/* Open a dataset image held in memory (read-only). */
EXTERNL int nc_open_mem(const char *path, int mode, size_t size, void *memory, int *ncidp);

/* Create a dataset in memory, initially sized initialsize. */
EXTERNL int nc_create_mem(const char *path, int mode, size_t initialsize, int *ncidp);

/* Open a memory image described by info (may be writable). */
EXTERNL int nc_open_memio(const char *path, int mode, NC_memio *info, int *ncidp);

/* Close an in-memory dataset and hand back the final image in info. */
EXTERNL int nc_close_memio(int ncid, NC_memio *info);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_MEM_H */
