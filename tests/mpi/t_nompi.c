/* t_nompi.c -- a serial program, built and linked without MPI: the
 * parallel entry points answer NC_ENOPAR and serial I/O works as before.
 * It calls the Fortran-handle variants, whose MPI handles are plain ints
 * (netcdf_par.h itself needs <mpi.h>). */
#include "par_layout.h"

extern int nc_create_par_fortran(const char *path, int cmode, int comm, int info, int *ncidp);
extern int nc_open_par_fortran(const char *path, int mode, int comm, int info, int *ncidp);
extern int nc_var_par_access(int ncid, int varid, int par_access);

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: t_nompi DIR\n");
        return 2;
    }
    char url[4096];
    snprintf(url, sizeof url, "file://%s/nompi.zarr#mode=nczarr,file", argv[1]);
    int ncid = -1, dimid, varid, rc;
    rc = nc_create_par_fortran(url, NC_CLOBBER | NC_NETCDF4, 0, 0, &ncid);
    PEXPECT(rc == NC_ENOPAR, "nc_create_par_fortran without MPI: %d", rc);
    PEXPECT(ncid == -1, "ncid written on failure: %d", ncid);
    rc = nc_open_par_fortran(url, NC_NOWRITE, 0, 0, &ncid);
    PEXPECT(rc == NC_ENOPAR, "nc_open_par_fortran without MPI: %d", rc);
    PCHECK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
    PCHECK(nc_def_dim(ncid, "x", 5, &dimid));
    PCHECK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    rc = nc_var_par_access(ncid, varid, 1);
    PEXPECT(rc == NC_ENOPAR, "nc_var_par_access on a serial dataset: %d", rc);
    int in[5] = {1, 2, 3, 4, 5}, out[5] = {0};
    PCHECK(nc_put_var_int(ncid, varid, in));
    PCHECK(nc_close(ncid));
    PCHECK(nc_open(url, NC_NOWRITE, &ncid));
    PCHECK(nc_get_var_int(ncid, 0, out));
    PEXPECT(memcmp(in, out, sizeof in) == 0, "values read back differ");
    PCHECK(nc_close(ncid));
    printf("t_nompi: %s\n", par_failures ? "FAILED" : "ok");
    return par_failures ? 1 : 0;
}
