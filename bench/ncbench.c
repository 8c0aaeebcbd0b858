/* ncbench: the benchmark workloads of bench/run.py, written against the netCDF-C
 * API only, so the same binary runs on this library or on any other libnetcdf
 * (chosen at run time with LD_LIBRARY_PATH).
 *
 * Each command does its untimed setup (generating data, touching buffers), then
 * times one operation from nc_open/nc_create to nc_close, and prints one line:
 *   RESULT {"wall":s,"user":s,"sys":s,"rss_kib":n,"bytes":n,"status":"ok"|"..."}
 * wall is CLOCK_MONOTONIC over the timed part, user/sys the process's CPU time
 * over it (all threads, getrusage), rss_kib the process's peak RSS (which
 * includes the caller's buffer, reported as "buffer_kib").
 *
 * Commands:
 *   ncbench w1write URL CODEC NZ NY NX CZ CY CX [SZ SY SX]
 *       with SZ SY SX: chunks stored in shards of that shape (Zarr v3,
 *       nc_def_var_zarr_shards of netcdf_zarr.h, looked up at run time: a
 *       library without it answers NC_ENOTBUILT)
 *   ncbench w6write URL CODEC NZ NY NX CZ CY CX FZ FY FX
 *       W1's array written as a CF aggregation of fragments of FZ x FY x FX
 *       (nc_def_var_aggregation of netcdf_zarr.h, looked up at run time);
 *       read back with w1read, like the one-dataset store
 *   ncbench w1read  URL MODE  NZ NY NX [NRANDOM]
 *       MODE: full (into a touched buffer), full-alloc (malloc'd inside the timed
 *       part, first touch included), slab ([:, 500:524, :]), random (NRANDOM
 *       reads of 1x16x16 at seeded positions)
 *   ncbench w2create URL NVARS
 *   ncbench w2open   URL
 *   ncbench version  (prints nc_inq_libvers())
 * CODEC: none | zlib1+shuffle | zstd1 | blosc-lz4-1+shuffle
 * Values are checked on read against the generator (a sample of points), so a
 * fast wrong answer fails.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <netcdf.h>
#include <netcdf_filter.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static struct {
    double t0, u0, s0;
    double wall, user, sys;
    int stopped;
} clk;

static double tv(struct timeval v) { return (double)v.tv_sec + (double)v.tv_usec * 1e-6; }

static void start(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    clk.u0 = tv(r.ru_utime);
    clk.s0 = tv(r.ru_stime);
    clk.t0 = now();
}

/* End the timed part (value checks after it are not timed). */
static void stop(void) {
    clk.wall = now() - clk.t0;
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    clk.user = tv(r.ru_utime) - clk.u0;
    clk.sys = tv(r.ru_stime) - clk.s0;
    clk.stopped = 1;
}

static void report(const char *status, double bytes, double buffer_bytes) {
    if (!clk.stopped) stop();
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    printf("RESULT {\"wall\":%.6f,\"user\":%.6f,\"sys\":%.6f,\"rss_kib\":%ld,\"bytes\":%.0f,"
           "\"buffer_kib\":%.0f,\"status\":\"%s\"}\n",
           clk.wall, clk.user, clk.sys, r.ru_maxrss, bytes,
           buffer_bytes / 1024.0, status);
    fflush(stdout);
}

static void fail(const char *what, int stat) {
    char buf[256];
    const char *name = "";
    switch (stat) {
    case NC_ENOFILTER: name = "NC_ENOFILTER "; break;
    case NC_ENOTBUILT: name = "NC_ENOTBUILT "; break;
    case NC_EFILTER: name = "NC_EFILTER "; break;
    case NC_ENOTNC: name = "NC_ENOTNC "; break;
    case NC_EINVAL: name = "NC_EINVAL "; break;
    default: break;
    }
    snprintf(buf, sizeof buf, "%s: %s%d", what, name, stat);
    for (char *p = buf; *p; p++)
        if (*p == '"' || *p == '\\') *p = '\'';
    report(buf, 0, 0);
    exit(3);
}

#define CHECK(what, call)                                                                          \
    do {                                                                                           \
        int st_ = (call);                                                                          \
        if (st_ != NC_NOERR) fail(what, st_);                                                      \
    } while (0)

/* ---- the W1 field: separable smooth part + hashed noise, quantised to 1/64 ---- */
static size_t NZ, NY, NX;
static float *tz, *ty, *tx;

static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static void field_init(size_t nz, size_t ny, size_t nx) {
    NZ = nz, NY = ny, NX = nx;
    tz = malloc(nz * sizeof *tz);
    ty = malloc(ny * sizeof *ty);
    tx = malloc(nx * sizeof *tx);
    if (!tz || !ty || !tx) exit(2);
    for (size_t i = 0; i < nz; i++) tz[i] = (float)(20.0 * sin((double)i * 0.031));
    for (size_t i = 0; i < ny; i++) ty[i] = (float)(8.0 * cos((double)i * 0.0123));
    for (size_t i = 0; i < nx; i++) tx[i] = (float)(5.0 * sin((double)i * 0.0171 + 1.0));
}

static inline float field(size_t z, size_t y, size_t x) {
    uint64_t h = mix(((uint64_t)z * NY + y) * NX + x);
    float noise = (float)((double)(h >> 40) / 16777216.0 - 0.5); /* [-0.5, 0.5) */
    float v = 280.0f + tz[z] + ty[y] * tx[x] * 0.25f + ty[y] + tx[x] + noise;
    return nearbyintf(v * 64.0f) / 64.0f;
}

static float *touched(size_t n) {
    float *p = malloc(n * sizeof(float));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(p, 0xff, n * sizeof(float));
    return p;
}

static int check_box(const float *buf, const size_t *st, const size_t *ct, int samples) {
    size_t n = ct[0] * ct[1] * ct[2];
    for (int s = 0; s < samples; s++) {
        size_t i = (size_t)(mix((uint64_t)s * 7919 + 11) % n);
        size_t z = i / (ct[1] * ct[2]), y = (i / ct[2]) % ct[1], x = i % ct[2];
        float want = field(st[0] + z, st[1] + y, st[2] + x);
        if (buf[i] != want) {
            fprintf(stderr, "wrong value at (%zu,%zu,%zu): %g, want %g\n", st[0] + z, st[1] + y,
                    st[2] + x, (double)buf[i], (double)want);
            return 0;
        }
    }
    return 1;
}

static int define_codec(int ncid, int varid, const char *codec) {
    if (!strcmp(codec, "none")) return NC_NOERR;
    int st;
    if (!strcmp(codec, "zlib1+shuffle")) {
        st = nc_def_var_deflate(ncid, varid, 1, 1, 1);
    } else if (!strcmp(codec, "zstd1")) {
        unsigned p[1] = {1};
        st = nc_def_var_filter(ncid, varid, H5Z_FILTER_ZSTD, 1, p);
    } else if (!strcmp(codec, "blosc-lz4-1+shuffle")) {
        /* netcdf-c's nc_def_var_blosc parameter layout: 0,0,0,blocksize,level,shuffle,compressor */
        unsigned p[7] = {0, 0, 0, 0, 1, 1, BLOSC_LZ4};
        st = nc_def_var_filter(ncid, varid, H5Z_FILTER_BLOSC, 7, p);
    } else {
        return NC_EINVAL;
    }
    if (st != NC_NOERR) return st;
    /* Some builds accept a filter call and do nothing: make sure it took. */
    size_t nf = 0;
    st = nc_inq_var_filter_ids(ncid, varid, &nf, NULL);
    if (st != NC_NOERR) return st;
    return nf == 0 ? NC_ENOFILTER : NC_NOERR;
}

/* Shards of shape `shards` for a variable, through this library's extension
 * (netcdf_zarr.h). It is looked up at run time, so that the same program runs
 * on a libnetcdf without it (NC_ENOTBUILT), and the shard shape is read back. */
static int define_shards(int ncid, int varid, const size_t *shards) {
    typedef int (*def_fn)(int, int, const size_t *);
    typedef int (*inq_fn)(int, int, int *, size_t *);
    def_fn def;
    inq_fn inq;
    *(void **)&def = dlsym(RTLD_DEFAULT, "nc_def_var_zarr_shards");
    *(void **)&inq = dlsym(RTLD_DEFAULT, "nc_inq_var_zarr_shards");
    if (!def || !inq) return NC_ENOTBUILT;
    int st = def(ncid, varid, shards);
    if (st != NC_NOERR) return st;
    int sharded = 0;
    size_t got[3] = {0, 0, 0};
    st = inq(ncid, varid, &sharded, got);
    if (st != NC_NOERR) return st;
    if (!sharded || memcmp(got, shards, sizeof got) != 0) return NC_EINVAL;
    return NC_NOERR;
}

/* The variable as an aggregation of fragments of shape `frag`, through this
 * library's extension (netcdf_zarr.h), looked up at run time. */
static int define_aggregation(int ncid, int varid, const size_t *frag) {
    typedef int (*def_fn)(int, int, const size_t *, size_t, const char *);
    def_fn def;
    *(void **)&def = dlsym(RTLD_DEFAULT, "nc_def_var_aggregation");
    if (!def) return NC_ENOTBUILT;
    return def(ncid, varid, frag, 0, NULL);
}

static int w1write(int argc, char **argv) {
    int aggregated = !strcmp(argv[1], "w6write");
    if (argc != 10 && argc != 13) return 1;
    const char *url = argv[2], *codec = argv[3];
    size_t n[3], c[3], sh[3];
    for (int i = 0; i < 3; i++) n[i] = strtoull(argv[4 + i], NULL, 10);
    for (int i = 0; i < 3; i++) c[i] = strtoull(argv[7 + i], NULL, 10);
    int sharded = argc == 13 && !aggregated;
    if (aggregated && argc != 13) return 1;
    for (int i = 0; argc == 13 && i < 3; i++) sh[i] = strtoull(argv[10 + i], NULL, 10);
    field_init(n[0], n[1], n[2]);
    size_t total = n[0] * n[1] * n[2];
    float *buf = touched(total);
    for (size_t z = 0; z < n[0]; z++)
        for (size_t y = 0; y < n[1]; y++) {
            float *row = buf + (z * n[1] + y) * n[2];
            for (size_t x = 0; x < n[2]; x++) row[x] = field(z, y, x);
        }
    int ncid, varid, dims[3];
    start();
    CHECK("nc_create", nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid));
    CHECK("nc_def_dim", nc_def_dim(ncid, "z", n[0], &dims[0]));
    CHECK("nc_def_dim", nc_def_dim(ncid, "y", n[1], &dims[1]));
    CHECK("nc_def_dim", nc_def_dim(ncid, "x", n[2], &dims[2]));
    CHECK("nc_def_var", nc_def_var(ncid, "field", NC_FLOAT, 3, dims, &varid));
    CHECK("nc_def_var_chunking", nc_def_var_chunking(ncid, varid, NC_CHUNKED, c));
    CHECK("nc_def_var_fill", nc_def_var_fill(ncid, varid, 1, NULL));
    CHECK(codec, define_codec(ncid, varid, codec));
    if (sharded) CHECK("nc_def_var_zarr_shards", define_shards(ncid, varid, sh));
    if (aggregated) CHECK("nc_def_var_aggregation", define_aggregation(ncid, varid, sh));
    CHECK("nc_enddef", nc_enddef(ncid));
    size_t st0[3] = {0, 0, 0};
    CHECK("nc_put_vara_float", nc_put_vara_float(ncid, varid, st0, n, buf));
    CHECK("nc_close", nc_close(ncid));
    report("ok", (double)total * 4, (double)total * 4);
    return 0;
}

static int w1read(int argc, char **argv) {
    if (argc < 7) return 1;
    const char *url = argv[2], *mode = argv[3];
    size_t n[3];
    for (int i = 0; i < 3; i++) n[i] = strtoull(argv[4 + i], NULL, 10);
    long nrandom = argc > 7 ? atol(argv[7]) : 1000;
    field_init(n[0], n[1], n[2]);
    int ncid, varid;
    size_t st[3] = {0, 0, 0};
    if (!strcmp(mode, "full") || !strcmp(mode, "full-alloc")) {
        size_t total = n[0] * n[1] * n[2];
        int alloc = !strcmp(mode, "full-alloc");
        float *buf = alloc ? NULL : touched(total);
        start();
        if (alloc) buf = malloc(total * sizeof(float));
        if (!buf) exit(2);
        CHECK("nc_open", nc_open(url, NC_NOWRITE, &ncid));
        CHECK("nc_inq_varid", nc_inq_varid(ncid, "field", &varid));
        CHECK("nc_get_vara_float", nc_get_vara_float(ncid, varid, st, n, buf));
        CHECK("nc_close", nc_close(ncid));
        stop();
        /* The caller's buffer either way: allocated inside the timed part, it is
         * first touched there (by the library's copies into it). */
        report(check_box(buf, st, n, 100000) ? "ok" : "wrong values", (double)total * 4,
               (double)total * 4);
    } else if (!strcmp(mode, "slab")) {
        size_t s[3] = {0, 500, 0}, c[3] = {n[0], 24, n[2]};
        size_t total = c[0] * c[1] * c[2];
        float *buf = touched(total);
        start();
        CHECK("nc_open", nc_open(url, NC_NOWRITE, &ncid));
        CHECK("nc_inq_varid", nc_inq_varid(ncid, "field", &varid));
        CHECK("nc_get_vara_float", nc_get_vara_float(ncid, varid, s, c, buf));
        CHECK("nc_close", nc_close(ncid));
        stop();
        report(check_box(buf, s, c, 100000) ? "ok" : "wrong values", (double)total * 4,
               (double)total * 4);
    } else if (!strcmp(mode, "random")) {
        size_t c[3] = {1, 16, 16};
        float *buf = touched((size_t)nrandom * 256);
        size_t(*pos)[3] = malloc((size_t)nrandom * sizeof *pos);
        if (!pos) exit(2);
        for (long i = 0; i < nrandom; i++) {
            pos[i][0] = mix((uint64_t)i * 3 + 1) % n[0];
            pos[i][1] = mix((uint64_t)i * 3 + 2) % (n[1] - 15);
            pos[i][2] = mix((uint64_t)i * 3 + 3) % (n[2] - 15);
        }
        start();
        CHECK("nc_open", nc_open(url, NC_NOWRITE, &ncid));
        CHECK("nc_inq_varid", nc_inq_varid(ncid, "field", &varid));
        for (long i = 0; i < nrandom; i++)
            CHECK("nc_get_vara_float", nc_get_vara_float(ncid, varid, pos[i], c, buf + i * 256));
        CHECK("nc_close", nc_close(ncid));
        stop();
        int ok = 1;
        for (long i = 0; i < nrandom && ok; i++) ok = check_box(buf + i * 256, pos[i], c, 8);
        report(ok ? "ok" : "wrong values", (double)nrandom * 1024, (double)nrandom * 1024);
    } else {
        return 1;
    }
    return 0;
}

/* W2: NVARS small variables, each 1-D float of 16 values with one attribute. */
static int w2create(int argc, char **argv) {
    if (argc != 4) return 1;
    const char *url = argv[2];
    int nvars = atoi(argv[3]);
    float vals[16];
    for (int i = 0; i < 16; i++) vals[i] = (float)i * 0.5f;
    int ncid, dim, varid;
    char name[32];
    start();
    CHECK("nc_create", nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid));
    CHECK("nc_def_dim", nc_def_dim(ncid, "n", 16, &dim));
    for (int v = 0; v < nvars; v++) {
        snprintf(name, sizeof name, "var%05d", v);
        CHECK("nc_def_var", nc_def_var(ncid, name, NC_FLOAT, 1, &dim, &varid));
        CHECK("nc_put_att_text", nc_put_att_text(ncid, varid, "units", 1, "m"));
    }
    CHECK("nc_enddef", nc_enddef(ncid));
    for (int v = 0; v < nvars; v++) CHECK("nc_put_var_float", nc_put_var_float(ncid, v, vals));
    CHECK("nc_close", nc_close(ncid));
    report("ok", 0, 0);
    return 0;
}

static int w2open(int argc, char **argv) {
    if (argc != 3) return 1;
    int ncid, nvars;
    start();
    CHECK("nc_open", nc_open(argv[2], NC_NOWRITE, &ncid));
    CHECK("nc_inq_nvars", nc_inq_nvars(ncid, &nvars));
    for (int v = 0; v < nvars; v++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        int nd, dimids[NC_MAX_VAR_DIMS], na, storage;
        size_t chunks[NC_MAX_VAR_DIMS], len;
        CHECK("nc_inq_var", nc_inq_var(ncid, v, name, &t, &nd, dimids, &na));
        CHECK("nc_inq_var_chunking", nc_inq_var_chunking(ncid, v, &storage, chunks));
        for (int a = 0; a < na; a++) {
            char aname[NC_MAX_NAME + 1];
            CHECK("nc_inq_attname", nc_inq_attname(ncid, v, a, aname));
            CHECK("nc_inq_attlen", nc_inq_attlen(ncid, v, aname, &len));
        }
    }
    CHECK("nc_close", nc_close(ncid));
    report("ok", 0, 0);
    fprintf(stderr, "nvars=%d\n", nvars);
    return 0;
}

int main(int argc, char **argv) {
    int rc = 1;
    if (argc >= 2) {
        if (!strcmp(argv[1], "w1write") || !strcmp(argv[1], "w6write")) rc = w1write(argc, argv);
        else if (!strcmp(argv[1], "w1read")) rc = w1read(argc, argv);
        else if (!strcmp(argv[1], "w2create")) rc = w2create(argc, argv);
        else if (!strcmp(argv[1], "w2open")) rc = w2open(argc, argv);
        else if (!strcmp(argv[1], "version")) {
            printf("%s\n", nc_inq_libvers());
            rc = 0;
        }
    }
    if (rc == 1)
        fprintf(stderr, "usage: see the comment at the top of bench/ncbench.c\n");
    return rc;
}
