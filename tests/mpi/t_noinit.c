/* t_noinit.c -- a program linked with MPI that never calls MPI_Init:
 * nc_create_par and nc_open_par answer NC_ENOPAR (MPI is not usable). */
#include <mpi.h>
#include <netcdf_par.h>
#include "par_layout.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: t_noinit DIR\n");
        return 2;
    }
    char url[4096];
    snprintf(url, sizeof url, "file://%s/noinit.zarr#mode=nczarr,file", argv[1]);
    int ncid = -1;
    int rc = nc_create_par(url, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid);
    PEXPECT(rc == NC_ENOPAR, "nc_create_par before MPI_Init: %d", rc);
    rc = nc_open_par(url, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid);
    PEXPECT(rc == NC_ENOPAR, "nc_open_par before MPI_Init: %d", rc);
    PEXPECT(ncid == -1, "ncid written on failure: %d", ncid);
    printf("t_noinit: %s\n", par_failures ? "FAILED" : "ok");
    return par_failures ? 1 : 0;
}
