/* mpi_w5.c -- benchmark W5 (parallel write and read, run by bench/run.py
 * --only W5): a ROWS x 4096 float32 array in chunks of 100 x 1024 (rows x
 * columns; 400 KiB), which are not aligned with the processes' blocks of
 * rows, written in collective mode by every process (its block of rows),
 * closed, then opened again and read back by each (its block) and checked.
 * The slowest process's times are the result; CPU is the sum over the
 * processes (user + system, every thread).
 *
 * The same source builds against this library and, with -DW5_SYSTEM_NETCDF,
 * against Debian's parallel netcdf-c (libnetcdf-mpi-dev, netCDF-4/HDF5 over
 * MPI-IO), where TARGET is a file path. CODEC is none, zstd (level 1) or zlib
 * (deflate level 1, no shuffle). `serial` as the last argument makes one
 * process use nc_create / nc_open instead of the parallel calls: this
 * library without its parallel layer.
 *
 * Build: mpicc -O2 -Iinclude bench/mpi_w5.c target/release/libnetcdf.so.22 -o mpi_w5
 * Run:   LD_LIBRARY_PATH=target/release mpirun -np N ./mpi_w5 TARGET ROWS CODEC [serial]
 *        TARGET e.g. file:///d/w5.zarr#mode=nczarr,file
 * Prints one line `RESULT {json}` (process 0). */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define COLS 4096

static void check(int rc, const char *what) {
    if (rc != NC_NOERR) {
        fprintf(stderr, "mpi_w5: %s: %s\n", what, nc_strerror(rc));
        printf("RESULT {\"status\": \"%s: %s\"}\n", what, nc_strerror(rc));
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

static float value(size_t i) { return (float)(i % 1000003) * 0.5f; }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0) fprintf(stderr, "usage: mpi_w5 TARGET ROWS none|zstd|zlib [serial]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *target = argv[1], *codec = argv[3];
    size_t rows = strtoul(argv[2], NULL, 10);
    int serial = argc > 4 && strcmp(argv[4], "serial") == 0;
    if (serial && size != 1) {
        if (rank == 0) fprintf(stderr, "mpi_w5: serial runs with one process\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t lo = rows * (size_t)rank / (size_t)size, hi = rows * (size_t)(rank + 1) / (size_t)size;
    size_t n = (hi - lo) * COLS;
    float *buf = malloc((n + 1) * sizeof *buf);
    for (size_t i = 0; i < n; i++) buf[i] = value(lo * COLS + i);

    int ncid, dims[2], varid;
    MPI_Barrier(MPI_COMM_WORLD);
    double c0 = cpu_seconds(), t0 = MPI_Wtime();
    if (serial)
        check(nc_create(target, NC_CLOBBER | NC_NETCDF4, &ncid), "create");
    else
        check(nc_create_par(target, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), "create");
    check(nc_def_dim(ncid, "y", rows, &dims[0]), "def_dim");
    check(nc_def_dim(ncid, "x", COLS, &dims[1]), "def_dim");
    check(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &varid), "def_var");
    size_t chunk[2] = {100, 1024};
    check(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunk), "chunking");
    check(nc_def_var_fill(ncid, varid, NC_NOFILL, NULL), "nofill");
    if (strcmp(codec, "zstd") == 0)
        check(nc_def_var_zstandard(ncid, varid, 1), "zstd");
    else if (strcmp(codec, "zlib") == 0)
        check(nc_def_var_deflate(ncid, varid, 0, 1, 1), "deflate");
    else if (strcmp(codec, "none") != 0)
        check(NC_EINVAL, "codec");
    check(nc_enddef(ncid), "enddef");
    if (!serial) check(nc_var_par_access(ncid, varid, NC_COLLECTIVE), "par_access");
    size_t start[2] = {lo, 0}, count[2] = {hi - lo, COLS};
    check(nc_put_vara_float(ncid, varid, start, count, buf), "put");
    check(nc_close(ncid), "close");
    double tw = MPI_Wtime() - t0, cw = cpu_seconds() - c0;

    memset(buf, 0, n * sizeof *buf);
    MPI_Barrier(MPI_COMM_WORLD);
    c0 = cpu_seconds();
    t0 = MPI_Wtime();
    if (serial)
        check(nc_open(target, NC_NOWRITE, &ncid), "open");
    else
        check(nc_open_par(target, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), "open");
    if (!serial) check(nc_var_par_access(ncid, varid, NC_COLLECTIVE), "par_access");
    check(nc_get_vara_float(ncid, varid, start, count, buf), "get");
    check(nc_close(ncid), "close");
    double tr = MPI_Wtime() - t0, cr = cpu_seconds() - c0;
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] != value(lo * COLS + i)) bad = 1;

    double w, r, cws, crs;
    int anybad = 0;
    MPI_Reduce(&tw, &w, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&tr, &r, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cw, &cws, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cr, &crs, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double mib = (double)rows * COLS * 4 / (1 << 20);
        printf("RESULT {\"status\": \"%s\", \"np\": %d, \"mib\": %.1f, \"codec\": \"%s\", \"write\": %.4f, "
               "\"write_cpu\": %.3f, \"read\": %.4f, \"read_cpu\": %.3f}\n",
               anybad ? "wrong values" : "ok", size, mib, codec, w, cws, r, crs);
    }
    free(buf);
    MPI_Finalize();
    return rank == 0 ? anybad : 0;
}
