/* mpi_w5.c -- a first, small form of benchmark W5 (parallel write and read):
 * a ROWS x 4096 float32 array, chunks of 100 x 1024 rows x columns (not
 * aligned with the processes' blocks of rows), written in collective mode
 * by every process (its block of rows) and read back by each (its block),
 * uncompressed or zstd level 1. Prints the slowest process's times.
 *
 * Build: mpicc -O2 -Iinclude bench/mpi_w5.c -Ltarget/release -lnetcdf -o mpi_w5
 * Run:   LD_LIBRARY_PATH=target/release mpirun -np N ./mpi_w5 DIR ROWS [zstd] */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLS 4096

static void check(int rc, const char *what) {
    if (rc != NC_NOERR) {
        fprintf(stderr, "%s: %s\n", what, nc_strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0) fprintf(stderr, "usage: mpi_w5 DIR ROWS [zstd]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t rows = strtoul(argv[2], NULL, 10);
    int zstd = argc > 3 && strcmp(argv[3], "zstd") == 0;
    char url[4096];
    snprintf(url, sizeof url, "file://%s/w5.zarr#mode=nczarr,file", argv[1]);
    size_t lo = rows * (size_t)rank / (size_t)size, hi = rows * (size_t)(rank + 1) / (size_t)size;
    size_t n = (hi - lo) * COLS;
    float *buf = malloc((n + 1) * sizeof *buf);
    for (size_t i = 0; i < n; i++) buf[i] = (float)((lo * COLS + i) % 1000003) * 0.5f;

    int ncid, dims[2], varid;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    check(nc_create_par(url, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), "create");
    check(nc_def_dim(ncid, "y", rows, &dims[0]), "def_dim");
    check(nc_def_dim(ncid, "x", COLS, &dims[1]), "def_dim");
    check(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &varid), "def_var");
    size_t chunk[2] = {100, 1024};
    check(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunk), "chunking");
    if (zstd) check(nc_def_var_zstandard(ncid, varid, 1), "zstd");
    check(nc_enddef(ncid), "enddef");
    check(nc_var_par_access(ncid, varid, NC_COLLECTIVE), "par_access");
    size_t start[2] = {lo, 0}, count[2] = {hi - lo, COLS};
    check(nc_put_vara_float(ncid, varid, start, count, buf), "put");
    check(nc_close(ncid), "close");
    double tw = MPI_Wtime() - t0;

    memset(buf, 0, n * sizeof *buf);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    check(nc_open_par(url, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), "open");
    check(nc_get_vara_float(ncid, varid, start, count, buf), "get");
    check(nc_close(ncid), "close");
    double tr = MPI_Wtime() - t0;
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] != (float)((lo * COLS + i) % 1000003) * 0.5f) bad = 1;

    double w, r;
    int anybad = 0;
    MPI_Reduce(&tw, &w, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&tr, &r, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double mib = (double)rows * COLS * 4 / (1 << 20);
        printf("mpi_w5: %d processes, %.0f MiB, %s: write %.3f s (%.0f MiB/s), read %.3f s (%.0f MiB/s)%s\n",
               size, mib, zstd ? "zstd1" : "none", w, mib / w, r, mib / r, anybad ? " WRONG VALUES" : "");
    }
    free(buf);
    MPI_Finalize();
    return rank == 0 ? anybad : 0;
}
