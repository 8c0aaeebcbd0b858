/*
 * netcdf_par.h -- the parallel (MPI) API of netCDF, as netCDF-C 4.10.1
 * declares it: nc_create_par() and nc_open_par() open a dataset with every
 * process of an MPI communicator, nc_var_par_access() chooses independent
 * or collective data access per variable.
 *
 * This library serves it for Zarr datasets in a directory, with MPI found
 * at run time in the calling program (which links libmpi and calls
 * MPI_Init); without it the calls return NC_ENOPAR. See the README,
 * "Parallel I/O (MPI)".
 */
#ifndef NETCDF_PAR_H
#define NETCDF_PAR_H 1

#include <mpi.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* nc_var_par_access() modes. */
#define NC_INDEPENDENT 0 /* each process reads and writes on its own (the default) */
#define NC_COLLECTIVE 1  /* every process makes each data call together */

/* Create a dataset with every process of comm. */
extern int
nc_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info,
              int *ncidp);

/* Open a dataset with every process of comm. */
extern int
nc_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info,
            int *ncidp);

/* Set a variable's data access to NC_INDEPENDENT or NC_COLLECTIVE. */
extern int
nc_var_par_access(int ncid, int varid, int par_access);

/* The same with Fortran handles (MPI_Fint), as netcdf-fortran calls them. */
extern int
nc_create_par_fortran(const char *path, int cmode, int comm,
                      int info, int *ncidp);
extern int
nc_open_par_fortran(const char *path, int mode, int comm,
                    int info, int *ncidp);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_PAR_H */
