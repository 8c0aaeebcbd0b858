/* t_par.c -- parallel I/O on a Zarr directory dataset, run by
 * scripts/test-mpi.sh with 1 to 4 processes:
 *
 *   1. nc_create_par; every process defines the same dimensions and
 *      variables (1 to 3 dimensions, zstd on some, an unlimited dimension);
 *      each writes its share of every variable (par_layout.h): blocks on
 *      chunk boundaries and not, rows or the middle dimension, every
 *      size-th element (a stride), records of the unlimited dimension;
 *      half the variables in NC_COLLECTIVE mode, half NC_INDEPENDENT;
 *      after nc_sync every process reads every variable and checks it.
 *   2. nc_open_par read-only: every process reads and checks again.
 *   3. error agreement: a collective put with a bad start, then one with a
 *      bad varid, on the last process only: every process gets the same
 *      code, and nobody waits forever (the script runs this under timeout).
 *   Steps 1 and 2 run on NCZarr over Zarr v2 and over Zarr v3 with sharded
 *   variables (par_layout.h).
 *   4. refusals: a zip archive (NC_EINVAL), a bad nc_var_par_access mode
 *      (NC_EINVAL), data access in define mode (NC_EINDEFINE).
 *
 * Usage: mpirun -np N t_par DIR   (the datasets are left in DIR for t_serial_check)
 *
 * Built with -DPAR_SYSTEM_NETCDF against Debian's parallel netcdf-c
 * (libnetcdf-mpi-dev: netCDF-4/HDF5 over MPI-IO), the same program writes the
 * same variables with the same decompositions to DIR/par.nc and checks them
 * on every process (steps 1 and 2 only), so that scripts/test-mpi.sh can
 * compare that file with the Zarr datasets. What it must do differently:
 * no Zarr v3 shards, deflate level 1 where the Zarr variables use zstd (that
 * build has no zstd), and collective access for the compressed variables
 * (nc_var_par_access answers NC_EINVAL to NC_INDEPENDENT on a filtered
 * variable) and for the records of the unlimited dimension (HDF5 cannot
 * extend a dimension in independent mode: NC_ECANTEXTEND). Steps 3 and 4 are left out: a bad start on one process of
 * a collective HDF5 write leaves the others waiting in MPI-IO. */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <netcdf_filter.h>
#ifndef PAR_SYSTEM_NETCDF
#include <netcdf_zarr.h>
#endif
#include "par_layout.h"

static int nprocs;

/* This process's share [start, start+count) of n values split in blocks
 * (on boundaries of `unit` when aligned). */
static void block(size_t n, int aligned, size_t unit, size_t *start, size_t *count) {
    size_t lo, hi;
    if (aligned) {
        size_t units = (n + unit - 1) / unit;
        lo = units * (size_t)par_rank / (size_t)nprocs * unit;
        hi = units * (size_t)(par_rank + 1) / (size_t)nprocs * unit;
        if (hi > n) hi = n;
    } else {
        lo = n * (size_t)par_rank / (size_t)nprocs;
        hi = n * (size_t)(par_rank + 1) / (size_t)nprocs;
    }
    *start = lo;
    *count = hi - lo;
}

static void define(int ncid, int v3) {
    for (int k = 0; k < PAR_NVARS; k++) {
        const struct par_var *v = &PAR_VARS[k];
        int dimids[3], varid;
        for (int d = 0; d < v->ndims; d++) {
            if (nc_inq_dimid(ncid, v->dims[d], &dimids[d]) != NC_NOERR)
                PCHECK(nc_def_dim(ncid, v->dims[d], v->len[d] ? v->len[d] : NC_UNLIMITED, &dimids[d]));
        }
        PCHECK(nc_def_var(ncid, v->name, v->type, v->ndims, dimids, &varid));
        PCHECK(nc_def_var_chunking(ncid, varid, NC_CHUNKED, v->chunk));
#ifdef PAR_SYSTEM_NETCDF
        (void)v3;
        if (v->zstd) PCHECK(nc_def_var_deflate(ncid, varid, 0, 1, 1));
#else
        if (v->zstd) PCHECK(nc_def_var_zstandard(ncid, varid, v->zstd));
        if (v3 && v->shard[0]) PCHECK(nc_def_var_zarr_shards(ncid, varid, v->shard));
#endif
    }
    PCHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 8, "parallel"));
}

/* Write this process's share of variable k. */
static void write_share(int ncid, int k) {
    const struct par_var *v = &PAR_VARS[k];
    int varid;
    PCHECK(nc_inq_varid(ncid, v->name, &varid));
    int mode = v->mode == PAR_COLL ? NC_COLLECTIVE : NC_INDEPENDENT;
#ifdef PAR_SYSTEM_NETCDF
    if (v->len[0] == 0 || v->zstd) mode = NC_COLLECTIVE;
#endif
    PCHECK(nc_var_par_access(ncid, varid, mode));
    if (v->split < 0) {
        size_t n = v->len[0], r = (size_t)par_rank, p = (size_t)nprocs;
        size_t start = r, count = r < n ? (n - r + p - 1) / p : 0;
        ptrdiff_t stride = nprocs;
        double *vals = malloc((count + 1) * sizeof *vals);
        for (size_t j = 0; j < count; j++) vals[j] = par_value(k, r + j * p);
        PCHECK(nc_put_vars_double(ncid, varid, &start, &count, &stride, vals));
        free(vals);
        return;
    }
    size_t start[3], count[3], len[3];
    for (int d = 0; d < v->ndims; d++) {
        len[d] = par_len(k, d, nprocs);
        start[d] = 0;
        count[d] = len[d];
    }
    if (v->len[v->split] == 0) {
        start[v->split] = (size_t)PAR_RECS_PER_RANK * (size_t)par_rank;
        count[v->split] = PAR_RECS_PER_RANK;
    } else {
        block(len[v->split], v->aligned, v->chunk[v->split], &start[v->split], &count[v->split]);
    }
    size_t n = 1;
    for (int d = 0; d < v->ndims; d++) n *= count[d];
    double *vals = malloc((n + 1) * sizeof *vals);
    size_t idx[3] = {0, 0, 0};
    for (size_t j = 0; j < n; j++) {
        size_t lin = 0;
        for (int d = 0; d < v->ndims; d++) lin = lin * len[d] + start[d] + idx[d];
        vals[j] = par_value(k, lin);
        for (int d = v->ndims - 1; d >= 0; d--) {
            if (++idx[d] < count[d]) break;
            idx[d] = 0;
        }
    }
    PCHECK(nc_put_vara_double(ncid, varid, start, count, vals));
    free(vals);
}

static void test_write_and_read(const char *url, int v3) {
    int ncid;
    PCHECK(nc_create_par(url, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    define(ncid, v3);
    PCHECK(nc_enddef(ncid));
    for (int k = 0; k < PAR_NVARS; k++) write_share(ncid, k);
    PCHECK(nc_sync(ncid));
    par_check_dataset(ncid, nprocs, "after nc_sync");
    PCHECK(nc_close(ncid));

    PCHECK(nc_open_par(url, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    par_check_dataset(ncid, nprocs, "nc_open_par read-only");
    char title[16] = {0};
    PCHECK(nc_get_att_text(ncid, NC_GLOBAL, "title", title));
    PEXPECT(strcmp(title, "parallel") == 0, "title %s", title);
    PCHECK(nc_close(ncid));
}

#ifndef PAR_SYSTEM_NETCDF
static void test_error_agreement(const char *url) {
    int ncid, varid;
    PCHECK(nc_open_par(url, NC_WRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    PCHECK(nc_inq_varid(ncid, "v1", &varid));
    PCHECK(nc_var_par_access(ncid, varid, NC_COLLECTIVE));
    int last = par_rank == nprocs - 1;
    /* The others rewrite one value each, unchanged. */
    size_t start = last ? 99 : (size_t)par_rank, count = 1;
    double val = par_value(0, start);
    int rc = nc_put_vara_double(ncid, varid, &start, &count, &val);
    PEXPECT(rc == NC_EINVALCOORDS, "collective put, bad start on the last process: %d", rc);
    start = last ? 0 : (size_t)par_rank;
    val = par_value(0, start);
    rc = nc_put_vara_double(ncid, last ? 999 : varid, &start, &count, &val);
    PEXPECT(rc == NC_ENOTVAR, "collective put, bad varid on the last process: %d", rc);
    rc = nc_var_par_access(ncid, varid, 7);
    PEXPECT(rc == NC_EINVAL, "nc_var_par_access mode 7: %d", rc);
    PCHECK(nc_close(ncid));
    /* Nothing changed. */
    PCHECK(nc_open_par(url, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    par_check_dataset(ncid, nprocs, "after the failed puts");
    PCHECK(nc_close(ncid));
}

static void test_refusals(const char *dir) {
    char url[4096];
    int ncid, varid, dimid;
    snprintf(url, sizeof url, "file://%s/par.zip#mode=nczarr,zip", dir);
    int rc = nc_create_par(url, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid);
    PEXPECT(rc == NC_EINVAL, "nc_create_par on a zip archive: %d", rc);
    snprintf(url, sizeof url, "file://%s/par_define.zarr#mode=nczarr,file", dir);
    PCHECK(nc_create_par(url, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    PCHECK(nc_def_dim(ncid, "x", 4, &dimid));
    PCHECK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    int one = 1;
    size_t idx = 0;
    rc = nc_put_var1_int(ncid, varid, &idx, &one);
    PEXPECT(rc == NC_EINDEFINE, "a put in define mode: %d", rc);
    PCHECK(nc_close(ncid));
}
#endif

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &par_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        fprintf(stderr, "usage: t_par DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char url[4096];
#ifdef PAR_SYSTEM_NETCDF
    snprintf(url, sizeof url, "%s/par.nc", argv[1]);
    test_write_and_read(url, 0);
#else
    par_url(url, sizeof url, argv[1], 1);
    test_write_and_read(url, 1);
    par_url(url, sizeof url, argv[1], 0);
    test_write_and_read(url, 0);
    test_error_agreement(url);
    test_refusals(argv[1]);
#endif
    int all = 0;
    MPI_Allreduce(&par_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (par_rank == 0) printf("t_par: %d processes: %s (%d failures)\n", nprocs, all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
