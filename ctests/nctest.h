/* nctest.h - the tiny harness shared by the C behaviour tests in ctests/.
 *
 * Every test program is one behaviour area of the netCDF-C API on NCZarr
 * datasets. It is written against the public <netcdf.h> only, so the same
 * source runs against the reference netcdf-c (to prove the expectations) and
 * against our replacement library.
 *
 * Usage in a test program:
 *
 *     #include "nctest.h"            (first include: it sets feature macros)
 *     static void test_x(void) { int ncid; CHECK(nc_create(nct_url("x"), NC_CLOBBER, &ncid)); ... }
 *     int main(int argc, char **argv) { nct_init(argc, argv); RUN(test_x); return nct_finish(); }
 *
 * Location of datasets: argv[1], else env NCZ_TEST_DIR, else the current
 * directory. Dataset URLs are file://<dir>/<prog>_<name>.zarr#mode=<mode>,file.
 * With env NCZ_TEST_S3_URL set (e.g. http://127.0.0.1:17480/bucket/run1), they
 * are <that URL>/<prog>_<name>.zarr#mode=<mode>,s3 instead: the same tests
 * then run over S3 (the `s3` CTest label).
 * Env NCZ_TEST_STORAGE=zip stores every dataset in a zip archive instead:
 * file://<dir>/<prog>_<name>.zip#mode=<mode>,zip (CTest runs each program
 * once per storage kind, labels `file` and `zip`).
 *
 * Output: one line per failed check ("FAIL file:line: ..."), one line per test
 * function ("PASS file:line name" / "FAIL file:line name") and a summary line.
 * The exit status is nonzero when any check failed.
 *
 * Known-wrong behaviour of netcdf-c: checks between KNOWN_WRONG_BEGIN(why)
 * and KNOWN_WRONG_END() encode the correct behaviour, which our library must
 * have. When env NCZ_REFERENCE=1 is set (running against netcdf-c itself) a
 * failing check there prints "KNOWN-WRONG in netcdf-c file:line: ..." and is
 * not counted as a failure. Where netcdf-c would crash, the code is guarded
 * with `if (nct_skip_in_reference("why"))`.
 *
 * Env NCZ_TEST_KEEP=1 keeps the datasets; NCZ_TEST_VERBOSE=1 prints every
 * passing check too.
 */
#ifndef NCTEST_H
#define NCTEST_H

#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif

#include <errno.h>
#include <float.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <netcdf.h>

/* Codes newer than some installed headers (4.9.0 lacks them). */
#ifndef NC_ENOTZARR
#define NC_ENOTZARR (-143)
#endif

#define NCT_MAXPATH 4096
#define NCT_MAXDS 128

static int nct_nfail;       /* failed checks */
static int nct_nchecks;     /* all checks */
static int nct_nknown;      /* failed checks excused as KNOWN-WRONG */
static int nct_nskipped;    /* blocks skipped in reference mode */
static int nct_reference;   /* NCZ_REFERENCE=1: running against netcdf-c */
static int nct_verbose;
static const char *nct_known_reason; /* non-NULL inside a KNOWN_WRONG block */
static char nct_dir[NCT_MAXPATH - 512];
static char nct_prog[128];
static char nct_paths[NCT_MAXDS][NCT_MAXPATH];
static int nct_npaths;

#if defined(__GNUC__)
#define NCT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define NCT_PRINTF(a, b)
#endif

static inline void nct_result(int ok, const char *file, int line, const char *fmt, ...) NCT_PRINTF(4, 5);

/* Record one check. ok != 0: passed. */
static inline void nct_result(int ok, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    nct_nchecks++;
    if (ok) {
        if (!nct_verbose)
            return;
        printf("PASS %s:%d: ", file, line);
    } else if (nct_known_reason != NULL && nct_reference) {
        nct_nknown++;
        printf("KNOWN-WRONG in netcdf-c %s:%d: (%s) ", file, line, nct_known_reason);
    } else {
        nct_nfail++;
        printf("FAIL %s:%d: ", file, line);
    }
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

#define KNOWN_WRONG_BEGIN(why) (nct_known_reason = (why))
#define KNOWN_WRONG_END() (nct_known_reason = NULL)

/* True (and prints SKIP) when running against the reference, for code that
 * would crash netcdf-c. */
static inline int nct_skip_in_reference_at(const char *why, const char *file, int line)
{
    if (!nct_reference)
        return 0;
    nct_nskipped++;
    printf("SKIP-IN-REFERENCE %s:%d: %s\n", file, line, why);
    return 1;
}
#define nct_skip_in_reference(why) nct_skip_in_reference_at((why), __FILE__, __LINE__)

/* CHECK(call): the call must succeed; otherwise the test function returns. */
#define CHECK(call)                                                                                 \
    do {                                                                                            \
        int nct_e_ = (call);                                                                        \
        nct_result(nct_e_ == NC_NOERR, __FILE__, __LINE__, "%s -> %d (%s)", #call, nct_e_,          \
                   nc_strerror(nct_e_));                                                            \
        if (nct_e_ != NC_NOERR)                                                                     \
            return;                                                                                 \
    } while (0)

/* EXPECT_OK(call): the call must succeed; the test goes on either way. */
#define EXPECT_OK(call)                                                                             \
    do {                                                                                            \
        int nct_e_ = (call);                                                                        \
        nct_result(nct_e_ == NC_NOERR, __FILE__, __LINE__, "%s -> %d (%s)", #call, nct_e_,          \
                   nc_strerror(nct_e_));                                                            \
    } while (0)

/* EXPECT_ERR(call, NC_EXXX): the call must return exactly that code. */
#define EXPECT_ERR(call, code)                                                                      \
    do {                                                                                            \
        int nct_e_ = (call);                                                                        \
        int nct_x_ = (code);                                                                        \
        nct_result(nct_e_ == nct_x_, __FILE__, __LINE__, "%s -> %d (%s), expected %s = %d", #call,  \
                   nct_e_, nc_strerror(nct_e_), #code, nct_x_);                                     \
    } while (0)

#define EXPECT_EQ(a, b)                                                                             \
    do {                                                                                            \
        long long nct_a_ = (long long)(a), nct_b_ = (long long)(b);                                 \
        nct_result(nct_a_ == nct_b_, __FILE__, __LINE__, "%s == %s: %lld vs %lld", #a, #b, nct_a_,  \
                   nct_b_);                                                                         \
    } while (0)

#define EXPECT_EQ_U(a, b)                                                                           \
    do {                                                                                            \
        unsigned long long nct_a_ = (unsigned long long)(a), nct_b_ = (unsigned long long)(b);      \
        nct_result(nct_a_ == nct_b_, __FILE__, __LINE__, "%s == %s: %llu vs %llu", #a, #b, nct_a_,  \
                   nct_b_);                                                                         \
    } while (0)

#define EXPECT_TRUE(cond)                                                                           \
    nct_result((cond) ? 1 : 0, __FILE__, __LINE__, "%s", #cond)

/* Exact equality of doubles (bitwise for NaN: both NaN passes). */
#define EXPECT_DBL(a, b)                                                                            \
    do {                                                                                            \
        double nct_a_ = (double)(a), nct_b_ = (double)(b);                                          \
        nct_result(nct_a_ == nct_b_ || (isnan(nct_a_) && isnan(nct_b_)), __FILE__, __LINE__,        \
                   "%s == %s: %.17g vs %.17g", #a, #b, nct_a_, nct_b_);                             \
    } while (0)

#define EXPECT_STR(a, b)                                                                            \
    do {                                                                                            \
        const char *nct_a_ = (a), *nct_b_ = (b);                                                    \
        int nct_ok_ = (nct_a_ == NULL || nct_b_ == NULL) ? nct_a_ == nct_b_                         \
                                                          : strcmp(nct_a_, nct_b_) == 0;            \
        nct_result(nct_ok_, __FILE__, __LINE__, "%s == %s: \"%s\" vs \"%s\"", #a, #b,               \
                   nct_a_ ? nct_a_ : "(null)", nct_b_ ? nct_b_ : "(null)");                         \
    } while (0)

#define EXPECT_MEM(a, b, n)                                                                         \
    nct_result(memcmp((a), (b), (n)) == 0, __FILE__, __LINE__, "memcmp(%s, %s, %s) == 0", #a, #b, #n)

/* ---- datasets ---------------------------------------------------------- */

/* Base URL of S3 datasets (env NCZ_TEST_S3_URL), or NULL for directories. */
static inline const char *nct_s3(void)
{
    const char *v = getenv("NCZ_TEST_S3_URL");
    return v != NULL && v[0] != '\0' ? v : NULL;
}


static inline int nct_rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static inline void nct_rmtree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    nftw(path, nct_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Whether datasets live in zip archives (env NCZ_TEST_STORAGE=zip). */
static inline int nct_zip(void)
{
    const char *s = getenv("NCZ_TEST_STORAGE");
    return s != NULL && strcmp(s, "zip") == 0;
}

/* Filesystem path of dataset `name`. The first time a name is seen, anything
 * left there by an earlier run is removed and the path is recorded for
 * cleanup at nct_finish(). */
static inline const char *nct_path(const char *name)
{
    static char buf[NCT_MAXPATH];
    int i;
    const char *s3 = nct_s3();
    int n = s3 ? snprintf(buf, sizeof buf, "%s/%s_%s.zarr", s3, nct_prog, name)
               : snprintf(buf, sizeof buf, "%s/%s_%s.%s", nct_dir, nct_prog, name, nct_zip() ? "zip" : "zarr");
    if (n < 0 || (size_t)n >= sizeof buf) {
        fprintf(stderr, "nctest: dataset path too long\n");
        exit(2);
    }
    for (i = 0; i < nct_npaths; i++)
        if (strcmp(nct_paths[i], buf) == 0)
            return nct_paths[i];
    if (nct_npaths == NCT_MAXDS) {
        fprintf(stderr, "nctest: too many datasets\n");
        exit(2);
    }
    if (s3 == NULL)
        nct_rmtree(buf);
    memcpy(nct_paths[nct_npaths], buf, sizeof buf);
    return nct_paths[nct_npaths++];
}

/* URL of dataset `name` with the given mode list, e.g. "nczarr,file". The
 * result stays valid for the next 15 calls. With NCZ_TEST_STORAGE=zip a
 * mode list ending in ",file" ends in ",zip" instead. */
static inline const char *nct_url_mode(const char *name, const char *mode)
{
    static char ring[16][NCT_MAXPATH + 64];
    static int next;
    char *buf = ring[next];
    char m[256];
    const char *file;
    int n;
    next = (next + 1) % 16;
    snprintf(m, sizeof m, "%s", mode);
    if (nct_s3() != NULL) {
        /* The storage mode "file" becomes "s3". */
        file = strstr(m, "file");
        if (file != NULL && strlen(file) == 4 && (file == m || file[-1] == ','))
            snprintf(m + (file - m), sizeof m - (size_t)(file - m), "s3");
        n = snprintf(buf, sizeof ring[0], "%s#mode=%s", nct_path(name), m);
    } else {
        size_t ml = strlen(mode);
        int keep = (int)ml;
        const char *store = "";
        if (nct_zip() && ml >= 5 && strcmp(mode + ml - 5, ",file") == 0) {
            keep = (int)ml - 5;
            store = ",zip";
        }
        n = snprintf(buf, sizeof ring[0], "file://%s#mode=%.*s%s", nct_path(name), keep, mode, store);
    }
    if (n < 0 || (size_t)n >= sizeof ring[0]) {
        fprintf(stderr, "nctest: URL too long\n");
        exit(2);
    }
    return buf;
}

/* NCZarr URL of dataset `name`. */
static inline const char *nct_url(const char *name) { return nct_url_mode(name, "nczarr,file"); }

/* Pure-Zarr URL of dataset `name`. */
static inline const char *nct_zarr_url(const char *name) { return nct_url_mode(name, "zarr,file"); }

static inline int nct_exists(const char *path)
{
    struct stat st;
    if (nct_s3() != NULL && strncmp(path, nct_s3(), strlen(nct_s3())) == 0) {
        /* An S3 dataset exists when it opens. */
        char url[NCT_MAXPATH + 64];
        int ncid;
        snprintf(url, sizeof url, "%s#mode=nczarr,s3", path);
        if (nc_open(url, NC_NOWRITE, &ncid) != NC_NOERR)
            return 0;
        nc_close(ncid);
        return 1;
    }
    return stat(path, &st) == 0;
}

static inline int nct_env_true(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static inline void nct_mkdirs(const char *dir)
{
    char tmp[NCT_MAXPATH];
    char *p;
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0777);
            *p = '/';
        }
    }
    mkdir(tmp, 0777);
}

static inline void nct_init(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : getenv("NCZ_TEST_DIR");
    const char *base;
    char real[PATH_MAX];

    if (dir == NULL || dir[0] == '\0')
        dir = ".";
    nct_mkdirs(dir);
    if (realpath(dir, real) == NULL) {
        fprintf(stderr, "nctest: cannot resolve test dir %s: %s\n", dir, strerror(errno));
        exit(2);
    }
    if (strlen(real) >= sizeof nct_dir) {
        fprintf(stderr, "nctest: test dir path too long: %s\n", real);
        exit(2);
    }
    memcpy(nct_dir, real, strlen(real) + 1);
    base = strrchr(argv[0], '/');
    snprintf(nct_prog, sizeof nct_prog, "%s", base ? base + 1 : argv[0]);
    nct_reference = nct_env_true("NCZ_REFERENCE");
    nct_verbose = nct_env_true("NCZ_TEST_VERBOSE");
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("# %s: library %s, dir %s%s\n", nct_prog, nc_inq_libvers(), nct_s3() ? nct_s3() : nct_dir,
           nct_reference ? ", reference mode (KNOWN-WRONG checks excused)" : "");
}

/* Run one test function and print its verdict. */
static inline void nct_run(const char *name, void (*fn)(void), const char *file, int line)
{
    int before = nct_nfail;
    nct_known_reason = NULL;
    fn();
    nct_known_reason = NULL;
    printf("%s %s:%d %s\n", nct_nfail == before ? "PASS" : "FAIL", file, line, name);
}
#define RUN(fn) nct_run(#fn, fn, __FILE__, __LINE__)

static inline int nct_finish(void)
{
    int i;
    if (!nct_env_true("NCZ_TEST_KEEP") && nct_s3() == NULL)
        for (i = 0; i < nct_npaths; i++)
            nct_rmtree(nct_paths[i]);
    printf("# %s: %d checks, %d failed, %d known-wrong in netcdf-c, %d skipped in reference\n",
           nct_prog, nct_nchecks, nct_nfail, nct_nknown, nct_nskipped);
    return nct_nfail == 0 ? 0 : 1;
}

#endif /* NCTEST_H */
