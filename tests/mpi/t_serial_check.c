/* t_serial_check.c -- one process without MPI reads what t_par wrote with N
 * processes and checks every value (par_layout.h).
 *
 * Usage: t_serial_check DIR N */
#include "par_layout.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: t_serial_check DIR N\n");
        return 2;
    }
    int nprocs = atoi(argv[2]), ncid;
    char url[4096];
    for (int v3 = 0; v3 < PAR_NDATASETS; v3++) {
        par_url(url, sizeof url, argv[1], v3);
        PCHECK(nc_open(url, NC_NOWRITE, &ncid));
        par_check_dataset(ncid, nprocs, v3 ? "serial read-back, Zarr v3" : "serial read-back");
        PCHECK(nc_close(ncid));
    }
    printf("t_serial_check: written by %d processes: %s\n", nprocs, par_failures ? "FAILED" : "ok");
    return par_failures ? 1 : 0;
}
