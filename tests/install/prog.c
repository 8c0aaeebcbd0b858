/* A netCDF user's program: builds against an installed library found by
 * find_package(netCDF) or pkg-config, writes an NCZarr dataset and reads it
 * back. Usage: prog <directory>. Prints the library version and "ok". */
#include <netcdf.h>
#include <stdio.h>
#include <string.h>

#define TRY(call)                                                               \
    do {                                                                        \
        int rc_ = (call);                                                       \
        if (rc_ != NC_NOERR) {                                                  \
            fprintf(stderr, "%s: %s\n", #call, nc_strerror(rc_));               \
            return 1;                                                           \
        }                                                                       \
    } while (0)

int main(int argc, char **argv)
{
    char url[4096];
    int ncid, dim, var, i;
    double out[4], in[4] = {0.5, 1.5, 2.5, 3.5};
    if (argc < 2) {
        fprintf(stderr, "usage: prog <directory>\n");
        return 2;
    }
    snprintf(url, sizeof url, "file://%s/prog.zarr#mode=nczarr,file", argv[1]);
    TRY(nc_create(url, NC_CLOBBER, &ncid));
    TRY(nc_def_dim(ncid, "x", 4, &dim));
    TRY(nc_def_var(ncid, "v", NC_DOUBLE, 1, &dim, &var));
    TRY(nc_enddef(ncid));
    TRY(nc_put_var_double(ncid, var, in));
    TRY(nc_close(ncid));
    TRY(nc_open(url, NC_NOWRITE, &ncid));
    TRY(nc_get_var_double(ncid, var, out));
    TRY(nc_close(ncid));
    for (i = 0; i < 4; i++)
        if (out[i] != in[i]) {
            fprintf(stderr, "value %d: %g != %g\n", i, out[i], in[i]);
            return 1;
        }
    printf("%s\nok\n", nc_inq_libvers());
    return 0;
}
