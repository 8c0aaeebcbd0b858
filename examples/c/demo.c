/* Demo: write a small NCZarr dataset with groups, an unlimited dimension,
 * strings and attributes through the netCDF-C API, then read it back. */
#include <stdio.h>
#include <stdlib.h>
#include <netcdf.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        int e_ = (call);                                                         \
        if (e_ != NC_NOERR) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
                    nc_strerror(e_));                                            \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s URL\n", argv[0]);
        return 2;
    }
    const char *url = argv[1];
    int ncid, grp, dims[2], temp, names, counts;
    CHECK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 11, "nczarr demo"));
    CHECK(nc_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]));
    CHECK(nc_def_dim(ncid, "station", 4, &dims[1]));
    CHECK(nc_def_var(ncid, "temperature", NC_FLOAT, 2, dims, &temp));
    size_t chunks[2] = {2, 4};
    CHECK(nc_def_var_chunking(ncid, temp, NC_CHUNKED, chunks));
    CHECK(nc_put_att_text(ncid, temp, "units", 1, "K"));
    float fill = -999.0f;
    CHECK(nc_def_var_fill(ncid, temp, 0, &fill));
    CHECK(nc_def_var(ncid, "station_name", NC_STRING, 1, &dims[1], &names));
    CHECK(nc_def_grp(ncid, "stats", &grp));
    CHECK(nc_def_var(grp, "count", NC_INT, 1, &dims[1], &counts));
    double scale = 0.1;
    CHECK(nc_put_att_double(grp, counts, "scale", NC_DOUBLE, 1, &scale));
    CHECK(nc_enddef(ncid));

    float t[3][4];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) t[i][j] = 270.0f + (float)i + 0.25f * (float)j;
    size_t start[2] = {0, 0}, count[2] = {3, 4};
    CHECK(nc_put_vara_float(ncid, temp, start, count, &t[0][0]));
    const char *station[4] = {"Alpha", "Bravo", "Charlie", "Delta"};
    CHECK(nc_put_var_string(ncid, names, station));
    int n[4] = {10, 20, 30, 40};
    CHECK(nc_put_var_int(grp, counts, n));
    CHECK(nc_close(ncid));

    /* Read it back. */
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    size_t ntime;
    CHECK(nc_inq_dimlen(ncid, 0, &ntime));
    double back[3][4];
    CHECK(nc_get_var_double(ncid, temp, &back[0][0]));
    printf("time = %zu records; temperature[2][3] = %g\n", ntime, back[2][3]);
    char *s[4];
    CHECK(nc_get_var_string(ncid, names, s));
    printf("station_name[2] = %s\n", s[2]);
    CHECK(nc_free_string(4, s));
    CHECK(nc_close(ncid));
    printf("%s\n", nc_inq_libvers());
    return 0;
}
