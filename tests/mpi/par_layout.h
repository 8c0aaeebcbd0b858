/* par_layout.h -- the dataset the parallel tests write (t_par.c, with MPI)
 * and check (t_par.c on every process, t_serial_check.c in one process
 * without MPI): its variables, their chunks, how each is split between the
 * processes, and the value of every element.
 *
 * Every value is 1000 * (variable number) + (its row-major index), so any
 * element lost, shifted or taken from another variable shows. */
#ifndef PAR_LAYOUT_H
#define PAR_LAYOUT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>

static int par_failures __attribute__((unused)) = 0;
static int par_rank __attribute__((unused)) = 0;

#define PCHECK(call)                                                                 \
    do {                                                                             \
        int rc_ = (call);                                                            \
        if (rc_ != NC_NOERR) {                                                       \
            fprintf(stderr, "FAIL rank %d %s:%d: %s -> %d (%s)\n", par_rank,         \
                    __FILE__, __LINE__, #call, rc_, nc_strerror(rc_));               \
            par_failures++;                                                          \
        }                                                                            \
    } while (0)

#define PEXPECT(cond, ...)                                                           \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "FAIL rank %d %s:%d: %s: ", par_rank, __FILE__,          \
                    __LINE__, #cond);                                                \
            fprintf(stderr, __VA_ARGS__);                                            \
            fprintf(stderr, "\n");                                                   \
            par_failures++;                                                          \
        }                                                                            \
    } while (0)

/* The two datasets every run writes: NCZarr on Zarr v2, and on Zarr v3 with
 * some variables sharded (a shard is then the unit a process owns). In DIR,
 * or with env NCZ_TEST_S3_URL (http://host:port/bucket/prefix) in S3. */
#define PAR_NDATASETS 2
static inline void par_url(char *buf, size_t n, const char *dir, int v3) {
    const char *s3 = getenv("NCZ_TEST_S3_URL");
    const char *name = v3 ? "par3.zarr" : "par.zarr", *version = v3 ? "v3," : "";
    if (s3 && *s3)
        snprintf(buf, n, "%s/%s#mode=nczarr,%ss3", s3, name, version);
    else
        snprintf(buf, n, "file://%s/%s#mode=nczarr,%sfile", dir, name, version);
}

/* The variables. `split` is the dimension the processes divide (-1:
 * interleaved with a stride, along the only dimension). */
enum par_mode { PAR_INDEP = 0, PAR_COLL = 1 };
struct par_var {
    const char *name;
    nc_type type;
    int ndims;
    const char *dims[3];
    size_t len[3];   /* 0: the unlimited dimension, as long as the processes write */
    size_t chunk[3];
    int split;       /* the dimension split between processes; -1 interleaved */
    int aligned;     /* split on chunk boundaries */
    int mode;        /* PAR_INDEP or PAR_COLL */
    int zstd;        /* zstd level, 0 for none */
    size_t shard[3]; /* in the Zarr v3 dataset: shard shape (0: not sharded) */
};

#define PAR_RECS_PER_RANK 3
static const struct par_var PAR_VARS[] = {
    {"v1", NC_INT, 1, {"x1"}, {23}, {5}, 0, 0, PAR_COLL, 0, {0}},
    {"v1a", NC_INT, 1, {"x1a"}, {20}, {5}, 0, 1, PAR_INDEP, 0, {0}},
    {"v2", NC_FLOAT, 2, {"y2", "x2"}, {7, 10}, {3, 4}, 0, 0, PAR_INDEP, 0, {6, 8}},
    {"v2c", NC_FLOAT, 2, {"y2", "x2"}, {7, 10}, {3, 4}, 1, 0, PAR_COLL, 0, {0}},
    {"v3", NC_DOUBLE, 3, {"z3", "y3", "x3"}, {5, 6, 7}, {2, 4, 3}, 1, 0, PAR_COLL, 3, {4, 4, 6}},
    {"v3a", NC_INT, 3, {"z3", "y3", "x3"}, {5, 6, 7}, {5, 2, 7}, 1, 1, PAR_INDEP, 1, {5, 4, 7}},
    {"vs", NC_SHORT, 1, {"s"}, {30}, {4}, -1, 0, PAR_COLL, 0, {0}},
    {"vsi", NC_SHORT, 1, {"s"}, {30}, {4}, -1, 0, PAR_INDEP, 0, {8}},
    {"vu", NC_INT, 2, {"t", "xu"}, {0, 6}, {2, 3}, 0, 0, PAR_INDEP, 0, {0}},
    {"vuc", NC_DOUBLE, 2, {"t", "xu"}, {0, 6}, {4, 6}, 0, 0, PAR_COLL, 2, {0}},
};
#define PAR_NVARS ((int)(sizeof PAR_VARS / sizeof PAR_VARS[0]))

static inline double par_value(int k, size_t i) { return 1000.0 * k + (double)i; }

/* The length of dimension d of variable k with `nprocs` processes. */
static inline size_t par_len(int k, int d, int nprocs) {
    size_t n = PAR_VARS[k].len[d];
    return n ? n : (size_t)PAR_RECS_PER_RANK * (size_t)nprocs;
}

static inline size_t par_total(int k, int nprocs) {
    size_t n = 1;
    for (int d = 0; d < PAR_VARS[k].ndims; d++) n *= par_len(k, d, nprocs);
    return n;
}

/* Check a whole variable read into `got` (as doubles). */
static inline void par_check_values(int k, const double *got, int nprocs, const char *when) {
    size_t n = par_total(k, nprocs), bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (got[i] != par_value(k, i)) {
            if (bad < 5)
                fprintf(stderr, "FAIL rank %d: %s: %s[%zu] = %.17g, expected %.17g\n",
                        par_rank, when, PAR_VARS[k].name, i, got[i], par_value(k, i));
            bad++;
        }
    }
    if (bad) par_failures++;
}

/* Read every variable of the open dataset and check it. */
static inline void par_check_dataset(int ncid, int nprocs, const char *when) {
    for (int k = 0; k < PAR_NVARS; k++) {
        int varid;
        PCHECK(nc_inq_varid(ncid, PAR_VARS[k].name, &varid));
        int dimids[3];
        PCHECK(nc_inq_vardimid(ncid, varid, dimids));
        for (int d = 0; d < PAR_VARS[k].ndims; d++) {
            size_t len = 0;
            PCHECK(nc_inq_dimlen(ncid, dimids[d], &len));
            PEXPECT(len == par_len(k, d, nprocs), "%s: %s %s has length %zu, expected %zu", when,
                    PAR_VARS[k].name, PAR_VARS[k].dims[d], len, par_len(k, d, nprocs));
        }
        size_t n = par_total(k, nprocs);
        double *got = malloc(n * sizeof *got);
        PCHECK(nc_get_var_double(ncid, varid, got));
        par_check_values(k, got, nprocs, when);
        free(got);
    }
}

#endif
