/* nccodecs: codec interop helper.
 *
 *   nccodecs write URL   write one variable per codec chain through the
 *                        netCDF-C filter API (table below)
 *   nccodecs read URL    print every variable as one line:
 *                        "<name> <status> v0 v1 ..." (%.9g; status is the
 *                        nc_get_var_double result, values only when 0)
 *
 * Every variable is float or int (y=20, x=30, chunks 8x16) with
 * value[j][i] = (j*30 + i) * 0.25 (float) or (j*30 + i) * 7 - 900 (int).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netcdf.h>
#include <netcdf_filter.h>

#define NY 20
#define NX 30

static int fail(const char *what, int e) {
    fprintf(stderr, "nccodecs: %s: %s (%d)\n", what, nc_strerror(e), e);
    return 1;
}
#define CK(x) do { int e_ = (x); if (e_) return fail(#x, e_); } while (0)

static int defvar(int nc, const char *name, nc_type t, int *dims, int *v) {
    size_t ch[2] = {8, 16};
    CK(nc_def_var(nc, name, t, 2, dims, v));
    CK(nc_def_var_chunking(nc, *v, NC_CHUNKED, ch));
    return 0;
}

static int write_all(const char *url) {
    int nc, d[2], v;
    CK(nc_create(url, NC_CLOBBER, &nc));
    CK(nc_def_dim(nc, "y", NY, &d[0]));
    CK(nc_def_dim(nc, "x", NX, &d[1]));
#define F(name) if (defvar(nc, name, NC_FLOAT, d, &v)) return 1;
#define I(name) if (defvar(nc, name, NC_INT, d, &v)) return 1;
    F("deflate0") CK(nc_def_var_deflate(nc, v, 0, 1, 0));
    F("deflate9") CK(nc_def_var_deflate(nc, v, 0, 1, 9));
    F("shuffle_deflate") CK(nc_def_var_deflate(nc, v, 1, 1, 5));
    F("fletcher_shuffle_deflate") CK(nc_def_var_fletcher32(nc, v, 1)); CK(nc_def_var_deflate(nc, v, 1, 1, 4));
    I("int_shuffle_zstd") CK(nc_def_var_deflate(nc, v, 1, 0, 0)); CK(nc_def_var_zstandard(nc, v, 3));
    F("zstd_neg5") CK(nc_def_var_zstandard(nc, v, -5));
    F("zstd22") CK(nc_def_var_zstandard(nc, v, 22));
    F("bzip2_9") CK(nc_def_var_bzip2(nc, v, 9));
    F("blosc_blosclz") CK(nc_def_var_blosc(nc, v, 0, 5, 0, 1));
    F("blosc_lz4") CK(nc_def_var_blosc(nc, v, 1, 5, 0, 1));
    F("blosc_lz4hc") CK(nc_def_var_blosc(nc, v, 2, 9, 0, 2));
    F("blosc_zlib") CK(nc_def_var_blosc(nc, v, 4, 1, 0, 0));
    I("blosc_zstd") CK(nc_def_var_blosc(nc, v, 5, 3, 256, 2));
    F("fletcher32") CK(nc_def_var_fletcher32(nc, v, 1));
    {   /* numcodecs-only codecs through their private ids */
        unsigned lvl = 5, acc = 1, delta[2] = {(0u << 16) | ('i' << 8) | 4, (0u << 16) | ('i' << 8) | 4};
        F("gzip") CK(nc_def_var_filter(nc, v, 40101, 1, &lvl));
        F("lz4") CK(nc_def_var_filter(nc, v, 40102, 1, &acc));
        I("delta_zlib") CK(nc_def_var_filter(nc, v, 40103, 2, delta)); CK(nc_def_var_deflate(nc, v, 0, 1, 1));
        F("crc32") CK(nc_def_var_filter(nc, v, 40104, 0, NULL));
        F("adler32") CK(nc_def_var_filter(nc, v, 40105, 0, NULL));
        F("crc32c_zstd") CK(nc_def_var_filter(nc, v, 40106, 0, NULL)); CK(nc_def_var_zstandard(nc, v, 1));
    }
    CK(nc_enddef(nc));
    int nvars;
    CK(nc_inq_nvars(nc, &nvars));
    static float f[NY * NX];
    static int iv[NY * NX];
    for (int k = 0; k < NY * NX; k++) {
        f[k] = (float)k * 0.25f;
        iv[k] = k * 7 - 900;
    }
    for (int i = 0; i < nvars; i++) {
        nc_type t;
        CK(nc_inq_vartype(nc, i, &t));
        if (t == NC_FLOAT) CK(nc_put_var_float(nc, i, f));
        else CK(nc_put_var_int(nc, i, iv));
    }
    CK(nc_close(nc));
    return 0;
}

static int read_all(const char *url) {
    int nc, nvars;
    CK(nc_open(url, NC_NOWRITE, &nc));
    CK(nc_inq_nvars(nc, &nvars));
    for (int i = 0; i < nvars; i++) {
        char name[NC_MAX_NAME + 1];
        int nd, dims[NC_MAX_VAR_DIMS];
        size_t n = 1;
        CK(nc_inq_var(nc, i, name, NULL, &nd, dims, NULL));
        for (int k = 0; k < nd; k++) {
            size_t len;
            CK(nc_inq_dimlen(nc, dims[k], &len));
            n *= len;
        }
        double *buf = malloc((n ? n : 1) * sizeof(double));
        if (!buf) return 1;
        int e = nc_get_var_double(nc, i, buf);
        printf("%s %d", name, e);
        if (e == 0)
            for (size_t k = 0; k < n; k++) printf(" %.9g", buf[k]);
        printf("\n");
        free(buf);
    }
    CK(nc_close(nc));
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s write|read URL\n", argv[0]);
        return 2;
    }
    if (!strcmp(argv[1], "write")) return write_all(argv[2]);
    if (!strcmp(argv[1], "read")) return read_all(argv[2]);
    return 2;
}
