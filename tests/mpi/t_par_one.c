/* t_par_one.c -- a parallel dataset of one process (mpirun -np 1) takes the
 * serial engine's route, run by scripts/test-mpi.sh:
 *
 *   1. independent mode: a write that covers part of a chunk is read back
 *      at once, before any collective point (with several processes it
 *      would wait for the chunk's owner until the next one);
 *   2. collective mode: rows written one put at a time, fewer than a chunk
 *      holds, are read back at once, then after nc_close by nc_open_par;
 *   3. the NCZARR_MPI_STATS line of each dataset says that nothing was
 *      exchanged: exchanges=0 (a collective point of several processes
 *      exchanges parts every time, even when it has none to send).
 *
 * Usage: NCZARR_MPI_STATS=FILE mpirun -np 1 t_par_one DIR */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include "par_layout.h"

#define ROWS 12
#define COLS 8

static int value(size_t r, size_t c) { return (int)(100 * r + c) + 1; }

/* Every element of rows [0, nrows) of the variable: written, or fill. */
static void check_rows(int ncid, int varid, size_t nrows, const char *when) {
    int got[ROWS * COLS];
    size_t start[2] = {0, 0}, count[2] = {ROWS, COLS};
    PCHECK(nc_get_vara_int(ncid, varid, start, count, got));
    int bad = 0;
    for (size_t r = 0; r < ROWS; r++)
        for (size_t c = 0; c < COLS; c++) {
            int want = r < nrows ? value(r, c) : NC_FILL_INT;
            if (got[r * COLS + c] != want && bad++ < 3)
                PEXPECT(0, "%s: [%zu][%zu] = %d, want %d", when, r, c, got[r * COLS + c], want);
        }
}

/* Write rows [0, nrows) `rows_per_put` at a time, checking after each put. */
static void write_rows(int ncid, int varid, size_t nrows, size_t rows_per_put, const char *mode) {
    for (size_t r0 = 0; r0 < nrows; r0 += rows_per_put) {
        size_t n = r0 + rows_per_put <= nrows ? rows_per_put : nrows - r0;
        int buf[ROWS * COLS];
        for (size_t r = 0; r < n; r++)
            for (size_t c = 0; c < COLS; c++) buf[r * COLS + c] = value(r0 + r, c);
        size_t start[2] = {r0, 0}, count[2] = {n, COLS};
        PCHECK(nc_put_vara_int(ncid, varid, start, count, buf));
        char when[64];
        snprintf(when, sizeof when, "%s, after the put of rows %zu..%zu", mode, r0, r0 + n);
        check_rows(ncid, varid, r0 + n, when);
    }
}

/* The largest exchanges= of the stats lines naming `url` (the writing
 * handle's and the reading one's); -1 if none. */
static long exchanges_of(const char *stats, const char *url) {
    FILE *f = fopen(stats, "r");
    if (!f) return -1;
    char line[8192];
    long found = -1;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, " path="), *e = strstr(line, " exchanges=");
        if (!p || !e) continue;
        p += strlen(" path=");
        size_t n = strcspn(p, "\n");
        if (n == strlen(url) && strncmp(p, url, n) == 0) {
            long x = strtol(e + strlen(" exchanges="), NULL, 10);
            if (x > found) found = x;
        }
    }
    fclose(f);
    return found;
}

static void test_one(const char *url, int mode, size_t rows_per_put) {
    const char *name = mode == NC_COLLECTIVE ? "collective" : "independent";
    int ncid, dims[2], varid;
    PCHECK(nc_create_par(url, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    PCHECK(nc_def_dim(ncid, "y", ROWS, &dims[0]));
    PCHECK(nc_def_dim(ncid, "x", COLS, &dims[1]));
    PCHECK(nc_def_var(ncid, "v", NC_INT, 2, dims, &varid));
    size_t chunk[2] = {5, 4}; /* rows written per put: fewer than a chunk holds */
    PCHECK(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunk));
    PCHECK(nc_enddef(ncid));
    PCHECK(nc_var_par_access(ncid, varid, mode));
    check_rows(ncid, varid, 0, "before any write");
    write_rows(ncid, varid, ROWS - 1, rows_per_put, name);
    PCHECK(nc_close(ncid));
    PCHECK(nc_open_par(url, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    check_rows(ncid, varid, ROWS - 1, "after nc_open_par");
    PCHECK(nc_close(ncid));
    const char *stats = getenv("NCZARR_MPI_STATS");
    if (stats && *stats) {
        long e = exchanges_of(stats, url);
        PEXPECT(e == 0, "%s: %s: exchanges=%ld in %s, want 0", name, url, e, stats);
    } else {
        PEXPECT(0, "NCZARR_MPI_STATS is not set");
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &par_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2 || nprocs != 1) {
        fprintf(stderr, "usage: NCZARR_MPI_STATS=FILE mpirun -np 1 t_par_one DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char url[4096];
    snprintf(url, sizeof url, "file://%s/one-indep.zarr#mode=nczarr,file", argv[1]);
    test_one(url, NC_INDEPENDENT, 2);
    snprintf(url, sizeof url, "file://%s/one-coll.zarr#mode=nczarr,file", argv[1]);
    test_one(url, NC_COLLECTIVE, 3);
    printf("t_par_one: %s (%d failures)\n", par_failures ? "FAILED" : "ok", par_failures);
    MPI_Finalize();
    return par_failures ? 1 : 0;
}
