/* Reference table of netCDF type conversion through the NCZarr dispatch.
 *
 * Built against a real libnetcdf (netcdf-c 4.10.1 for the committed table),
 * this program writes edge values of every memory type into variables of
 * every file type with the typed put functions, reads edge values of every
 * file type back with the typed get functions, and prints one line per
 * (memory type, file type, value) with the return code.  The Rust test
 * tests/convert_reference.rs recomputes every line with src/convert.rs.
 *
 * Usage: test_convert_ref <dataset-url>
 *   e.g. test_convert_ref 'file:///tmp/x.zarr#mode=nczarr,file'
 *
 * Line formats (fields separated by one space; text after " #" is a
 * human-readable comment that the comparison ignores):
 *   PUTALL mem=M file=F rc=R
 *   PUT mem=M file=F i=K in=V rc=R stored=S
 *   GETALL file=F mem=M rc=R
 *   GET file=F mem=M i=K in=V rc=R out=O
 *   FILLGET file=F mem=M rc=R out=O
 *   API name=N rc=R [out=O]
 * Integers print in decimal, floats as their IEEE bit pattern in hex,
 * chars as their unsigned byte value.  rc is the netCDF return code
 * (0, -56 NC_ECHAR, -60 NC_ERANGE, -45 NC_EBADTYPE ...).  "in" is in
 * the source type of the conversion, "stored" in the file type (read back
 * natively after one nc_put_var_<mem> of the whole vector), "out" in the
 * memory type (from one nc_get_var_<mem> of the whole vector; "none" when
 * that call failed with something other than NC_ERANGE).  The per-value rc
 * comes from nc_put_var1_<mem> / nc_get_var1_<mem> of that value alone.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <netcdf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTYPES 12

static const char *tname(nc_type t)
{
    switch (t) {
    case NC_BYTE: return "byte";
    case NC_CHAR: return "char";
    case NC_SHORT: return "short";
    case NC_INT: return "int";
    case NC_FLOAT: return "float";
    case NC_DOUBLE: return "double";
    case NC_UBYTE: return "ubyte";
    case NC_USHORT: return "ushort";
    case NC_UINT: return "uint";
    case NC_INT64: return "int64";
    case NC_UINT64: return "uint64";
    default: return "?";
    }
}

static size_t tsize(nc_type t)
{
    switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    default: return 8;
    }
}

/* Edge values of each type. */
static const signed char v_byte[] = {-128, -127, -1, 0, 1, 126, 127};
static const char v_char[] = {0, 'A', 127, (char)128, (char)255};
static const short v_short[] = {-32768, -32767, -257, -129, -128, -1, 0, 1,
                                127, 128, 255, 256, 32767};
static const int v_int[] = {INT32_MIN, INT32_MIN + 1, -65537, -32769, -32768,
                            -129, -128, -1, 0, 1, 127, 128, 255, 256, 32767,
                            32768, 65535, 65536, 16777216, 16777217,
                            INT32_MAX - 1, INT32_MAX};
static const float v_float[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 0.99999994f, 1.5f, -1.5f, 2.5f,
    126.5f, 127.0f, 127.5f, 128.0f, -128.0f, -128.5f, -129.0f, 255.0f,
    255.5f, 256.0f, 32767.0f, 32767.5f, 32768.0f, -32768.0f, -32768.5f,
    -32769.0f, 65535.0f, 65535.5f, 65536.0f, 16777216.0f, 16777218.0f,
    2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f,
    4294967040.0f, 4294967296.0f, 9223371487098961920.0f,
    9223372036854775808.0f, -9223372036854775808.0f,
    -9223373136366403584.0f, 18446742974197923840.0f,
    18446744073709551616.0f, 1.0e30f, FLT_MAX, -FLT_MAX, FLT_MIN,
    1.0e-45f, -1.0e-45f, 1.17549421e-38f, INFINITY, -INFINITY, NAN, -NAN};
static const double v_double[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.9999999999999999, -0.9999999999999999,
    1.5, -1.5, 2.5, 126.9, 127.0, 127.5, 128.0, -128.0, -128.5, -129.0,
    255.0, 255.5, 256.0, 32767.0, 32767.5, 32768.0, -32768.0, -32768.5,
    -32769.0, 65535.0, 65535.5, 65536.0, 16777217.0, 2147483647.0,
    2147483647.5, 2147483648.0, -2147483648.0, -2147483648.5,
    -2147483649.0, 4294967295.0, 4294967295.5, 4294967296.0,
    9007199254740993.0, 9223372036854774784.0, 9223372036854775807.0,
    -9223372036854775808.0, -9223372036854777856.0,
    18446744073709549568.0, 18446744073709551615.0, 1.0e30,
    (double)FLT_MAX, 3.4028235677973362e38, 3.4028235677973366e38,
    -3.4028235677973362e38, -3.4028235677973366e38, 1.0e39, -1.0e39,
    1.0e300, DBL_MAX, -DBL_MAX, DBL_MIN, 4.9406564584124654e-324,
    1.0e-40, 1.0e-46, -1.0e-46, 0.1, INFINITY, -INFINITY, NAN, -NAN};
static const unsigned char v_ubyte[] = {0, 1, 126, 127, 128, 129, 254, 255};
static const unsigned short v_ushort[] = {0, 1, 127, 128, 255, 256, 32767,
                                          32768, 65534, 65535};
static const unsigned int v_uint[] = {0, 1, 127, 128, 255, 256, 32767, 32768,
                                      65535, 65536, 16777217, 2147483647U,
                                      2147483648U, 4294967294U, 4294967295U};
static const long long v_int64[] = {
    INT64_MIN, INT64_MIN + 1, -9007199254740993LL, -4294967296LL,
    -2147483649LL, -2147483648LL, -65536, -32769, -129, -128, -1, 0, 1, 127,
    128, 255, 256, 32767, 32768, 65535, 65536, 16777217, 2147483647LL,
    2147483648LL, 4294967295LL, 4294967296LL, 9007199254740993LL,
    9223372036854775295LL, 9223372036854775296LL, INT64_MAX - 1, INT64_MAX};
static const unsigned long long v_uint64[] = {
    0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 16777217,
    2147483647ULL, 2147483648ULL, 4294967295ULL, 4294967296ULL,
    9007199254740993ULL, 9223372036854775807ULL, 9223372036854775808ULL,
    18446744073709550591ULL, 18446744073709550592ULL, UINT64_MAX - 1,
    UINT64_MAX};

#define NV(a) (sizeof(a) / sizeof((a)[0]))

static const void *edge_values(nc_type t, size_t *n)
{
    switch (t) {
    case NC_BYTE: *n = NV(v_byte); return v_byte;
    case NC_CHAR: *n = NV(v_char); return v_char;
    case NC_SHORT: *n = NV(v_short); return v_short;
    case NC_INT: *n = NV(v_int); return v_int;
    case NC_FLOAT: *n = NV(v_float); return v_float;
    case NC_DOUBLE: *n = NV(v_double); return v_double;
    case NC_UBYTE: *n = NV(v_ubyte); return v_ubyte;
    case NC_USHORT: *n = NV(v_ushort); return v_ushort;
    case NC_UINT: *n = NV(v_uint); return v_uint;
    case NC_INT64: *n = NV(v_int64); return v_int64;
    default: *n = NV(v_uint64); return v_uint64;
    }
}

/* Print one value: exact field text, then a readable comment for floats. */
static void fmt_val(char *out, size_t cap, nc_type t, const void *p)
{
    switch (t) {
    case NC_BYTE: snprintf(out, cap, "%d", *(const signed char *)p); break;
    case NC_CHAR: snprintf(out, cap, "%u", *(const unsigned char *)p); break;
    case NC_SHORT: snprintf(out, cap, "%d", *(const short *)p); break;
    case NC_INT: snprintf(out, cap, "%d", *(const int *)p); break;
    case NC_UBYTE: snprintf(out, cap, "%u", *(const unsigned char *)p); break;
    case NC_USHORT: snprintf(out, cap, "%u", *(const unsigned short *)p); break;
    case NC_UINT: snprintf(out, cap, "%u", *(const unsigned int *)p); break;
    case NC_INT64: snprintf(out, cap, "%lld", *(const long long *)p); break;
    case NC_UINT64:
        snprintf(out, cap, "%llu", *(const unsigned long long *)p);
        break;
    case NC_FLOAT: {
        uint32_t b;
        memcpy(&b, p, 4);
        snprintf(out, cap, "0x%08" PRIx32, b);
        break;
    }
    default: {
        uint64_t b;
        memcpy(&b, p, 8);
        snprintf(out, cap, "0x%016" PRIx64, b);
        break;
    }
    }
}

static void readable(char *out, size_t cap, nc_type t, const void *p)
{
    if (t == NC_FLOAT)
        snprintf(out, cap, "%.9g", (double)*(const float *)p);
    else if (t == NC_DOUBLE)
        snprintf(out, cap, "%.17g", *(const double *)p);
    else
        out[0] = 0;
}

/* Typed calls, one per memory type, as a C client would write them. */
#define TYPED(T, CT)                                                          \
    static int put_all_##T(int nc, int v, const void *p)                      \
    {                                                                         \
        return nc_put_var_##T(nc, v, (const CT *)p);                          \
    }                                                                         \
    static int put_one_##T(int nc, int v, size_t i, const void *p)            \
    {                                                                         \
        return nc_put_var1_##T(nc, v, &i, (const CT *)p);                     \
    }                                                                         \
    static int get_all_##T(int nc, int v, void *p)                            \
    {                                                                         \
        return nc_get_var_##T(nc, v, (CT *)p);                                \
    }                                                                         \
    static int get_one_##T(int nc, int v, size_t i, void *p)                  \
    {                                                                         \
        return nc_get_var1_##T(nc, v, &i, (CT *)p);                           \
    }
TYPED(schar, signed char)
TYPED(text, char)
TYPED(short, short)
TYPED(int, int)
TYPED(float, float)
TYPED(double, double)
TYPED(ubyte, unsigned char)
TYPED(ushort, unsigned short)
TYPED(uint, unsigned int)
TYPED(longlong, long long)
TYPED(ulonglong, unsigned long long)

struct ops {
    int (*put_all)(int, int, const void *);
    int (*put_one)(int, int, size_t, const void *);
    int (*get_all)(int, int, void *);
    int (*get_one)(int, int, size_t, void *);
};
#define OPS(T) {put_all_##T, put_one_##T, get_all_##T, get_one_##T}

static struct ops ops_for(nc_type t)
{
    static const struct ops o[NTYPES] = {
        OPS(schar), OPS(text),     OPS(short),  OPS(int),
        OPS(float), OPS(double),   OPS(ubyte),  OPS(ushort),
        OPS(uint),  OPS(longlong), OPS(ulonglong), OPS(ulonglong)};
    return o[t - 1];
}

static int check(int rc, const char *what)
{
    if (rc != NC_NOERR) {
        fprintf(stderr, "%s: %s\n", what, nc_strerror(rc));
        exit(2);
    }
    return rc;
}

static int def_var(int nc, const char *name, nc_type t, size_t len)
{
    int dim, var;
    char dname[NC_MAX_NAME + 1];
    snprintf(dname, sizeof dname, "d_%s", name);
    check(nc_def_dim(nc, dname, len, &dim), "nc_def_dim");
    check(nc_def_var(nc, name, t, 1, &dim, &var), "nc_def_var");
    return var;
}

#define BUF 1024

int main(int argc, char **argv)
{
    int nc;
    nc_type mem, file;
    int putvar[NTYPES + 1][NTYPES + 1];
    int getvar[NTYPES + 1];
    int fillvar[NTYPES + 1];
    int fill300, fill300w;
    char name[NC_MAX_NAME + 1];
    unsigned char buf[BUF * 8], back[BUF * 8];
    char a[64], b[64], c1[64], c2[64];

    if (argc != 2) {
        fprintf(stderr, "usage: %s <dataset-url>\n", argv[0]);
        return 2;
    }
    check(nc_create(argv[1], NC_CLOBBER | NC_NETCDF4, &nc), "nc_create");

    for (mem = NC_BYTE; mem <= NC_UINT64; mem++)
        for (file = NC_BYTE; file <= NC_UINT64; file++) {
            size_t n;
            edge_values(mem, &n);
            snprintf(name, sizeof name, "put_%s_%s", tname(mem), tname(file));
            putvar[mem][file] = def_var(nc, name, file, n);
        }
    for (file = NC_BYTE; file <= NC_UINT64; file++) {
        size_t n;
        edge_values(file, &n);
        snprintf(name, sizeof name, "get_%s", tname(file));
        getvar[file] = def_var(nc, name, file, n);
        snprintf(name, sizeof name, "fill_%s", tname(file));
        fillvar[file] = def_var(nc, name, file, 1);
    }
    {
        int f = 300;
        fill300 = def_var(nc, "fill300", NC_INT, 1);
        check(nc_def_var_fill(nc, fill300, 0, &f), "nc_def_var_fill");
        fill300w = def_var(nc, "fill300w", NC_INT, 1);
        check(nc_def_var_fill(nc, fill300w, 0, &f), "nc_def_var_fill");
    }
    check(nc_enddef(nc), "nc_enddef");

    printf("# netCDF type conversion reference, library %s\n", nc_inq_libvers());

    /* Writes: memory type -> file type. */
    for (mem = NC_BYTE; mem <= NC_UINT64; mem++)
        for (file = NC_BYTE; file <= NC_UINT64; file++) {
            size_t n, i;
            const unsigned char *in = edge_values(mem, &n);
            int var = putvar[mem][file], rc;
            rc = ops_for(mem).put_all(nc, var, in);
            printf("PUTALL mem=%s file=%s rc=%d\n", tname(mem), tname(file), rc);
            memset(back, 0xA5, sizeof back);
            check(ops_for(file).get_all(nc, var, back), "read back");
            for (i = 0; i < n; i++) {
                const void *x = in + i * tsize(mem);
                const void *y = back + i * tsize(file);
                int rc1 = ops_for(mem).put_one(nc, var, i, x);
                fmt_val(a, sizeof a, mem, x);
                fmt_val(b, sizeof b, file, y);
                readable(c1, sizeof c1, mem, x);
                readable(c2, sizeof c2, file, y);
                printf("PUT mem=%s file=%s i=%zu in=%s rc=%d stored=%s",
                       tname(mem), tname(file), i, a, rc1, b);
                if (c1[0] || c2[0])
                    printf(" # %s -> %s", c1[0] ? c1 : a, c2[0] ? c2 : b);
                printf("\n");
            }
        }

    /* Reads: file type -> memory type. */
    for (file = NC_BYTE; file <= NC_UINT64; file++) {
        size_t n;
        const unsigned char *in = edge_values(file, &n);
        check(ops_for(file).put_all(nc, getvar[file], in), "native write");
    }
    for (file = NC_BYTE; file <= NC_UINT64; file++)
        for (mem = NC_BYTE; mem <= NC_UINT64; mem++) {
            size_t n, i;
            const unsigned char *in = edge_values(file, &n);
            int var = getvar[file], rc;
            memset(buf, 0xA5, sizeof buf);
            rc = ops_for(mem).get_all(nc, var, buf);
            printf("GETALL file=%s mem=%s rc=%d\n", tname(file), tname(mem), rc);
            for (i = 0; i < n; i++) {
                const void *x = in + i * tsize(file);
                const void *y = buf + i * tsize(mem);
                unsigned char one[8];
                int rc1 = ops_for(mem).get_one(nc, var, i, one);
                fmt_val(a, sizeof a, file, x);
                if (rc == NC_NOERR || rc == NC_ERANGE)
                    fmt_val(b, sizeof b, mem, y);
                else
                    snprintf(b, sizeof b, "none");
                readable(c1, sizeof c1, file, x);
                readable(c2, sizeof c2, mem, y);
                printf("GET file=%s mem=%s i=%zu in=%s rc=%d out=%s",
                       tname(file), tname(mem), i, a, rc1, b);
                if (c1[0] || (c2[0] && strcmp(b, "none") != 0))
                    printf(" # %s -> %s", c1[0] ? c1 : a,
                           strcmp(b, "none") == 0 ? b : (c2[0] ? c2 : b));
                printf("\n");
            }
        }

    /* Never-written variables: the default fill value is converted like
     * data, so an out-of-range fill is an NC_ERANGE too (or not, if
     * netcdf-c exempts fill values). */
    for (file = NC_BYTE; file <= NC_UINT64; file++)
        for (mem = NC_BYTE; mem <= NC_UINT64; mem++) {
            unsigned char one[8];
            int rc;
            memset(one, 0xA5, sizeof one);
            rc = ops_for(mem).get_all(nc, fillvar[file], one);
            if (rc == NC_NOERR || rc == NC_ERANGE)
                fmt_val(b, sizeof b, mem, one);
            else
                snprintf(b, sizeof b, "none");
            printf("FILLGET file=%s mem=%s rc=%d out=%s\n", tname(file),
                   tname(mem), rc, b);
        }
    /* An explicit _FillValue (300 in an int variable) read as ubyte,
     * unwritten and after writing the fill value itself. */
    {
        unsigned char u = 0xA5;
        int f = 300, rc;
        rc = nc_get_var_ubyte(nc, fill300, &u);
        printf("API name=fill300_unwritten_as_ubyte rc=%d out=%u\n", rc, u);
        check(nc_put_var_int(nc, fill300w, &f), "write fill");
        u = 0xA5;
        rc = nc_get_var_ubyte(nc, fill300w, &u);
        printf("API name=fill300_written_as_ubyte rc=%d out=%u\n", rc, u);
        /* Writing 300 from a double into the int variable is in range. */
        {
            double d = 300.0;
            rc = nc_put_var_double(nc, fill300w, &d);
            printf("API name=fill300_put_double rc=%d\n", rc);
        }
        /* Writing the ubyte fill from memory: 255 to a byte variable. */
        {
            unsigned char uf = NC_FILL_UBYTE;
            size_t zero = 0;
            rc = nc_put_var1_uchar(nc, putvar[NC_UBYTE][NC_BYTE], &zero, &uf);
            printf("API name=ubyte_fill_put_to_byte rc=%d\n", rc);
        }
    }

    /* Which memory type each typed function uses, and the char rules. */
    {
        long l = 0;
        long long big = INT64_MAX;
        unsigned char uc = 0xA5;
        signed char sc = 0x5A;
        char t = 'x';
        int rc;
        int i64 = getvar[NC_INT64], chv = putvar[NC_CHAR][NC_CHAR];
        int bv = getvar[NC_BYTE];
        size_t last;
        edge_values(NC_INT64, &last);
        last--;
        rc = nc_get_var1_long(nc, i64, &last, &l);
        printf("API name=get_long_int64max rc=%d out=%ld\n", rc, l);
        rc = nc_get_var1_longlong(nc, i64, &last, &big);
        printf("API name=get_longlong_int64max rc=%d out=%lld\n", rc, big);
        {
            long lp = INT64_MAX;
            int iv = getvar[NC_INT];
            size_t zero = 0;
            rc = nc_put_var1_long(nc, iv, &zero, &lp);
            printf("API name=put_long_int64max_to_int rc=%d\n", rc);
            lp = INT32_MIN;
            check(nc_put_var1_long(nc, iv, &zero, &lp), "restore");
        }
        rc = nc_get_var1_uchar(nc, chv, (size_t[]){0}, &uc);
        printf("API name=get_uchar_from_char rc=%d\n", rc);
        rc = nc_get_var1_schar(nc, chv, (size_t[]){0}, &sc);
        printf("API name=get_schar_from_char rc=%d\n", rc);
        rc = nc_put_var1_uchar(nc, chv, (size_t[]){0}, &uc);
        printf("API name=put_uchar_to_char rc=%d\n", rc);
        rc = nc_put_var1_schar(nc, chv, (size_t[]){0}, &sc);
        printf("API name=put_schar_to_char rc=%d\n", rc);
        rc = nc_get_var1_text(nc, bv, (size_t[]){0}, &t);
        printf("API name=get_text_from_byte rc=%d\n", rc);
        rc = nc_put_var1_text(nc, bv, (size_t[]){0}, &t);
        printf("API name=put_text_to_byte rc=%d\n", rc);
        /* nc_get_var1 (untyped) reads the variable's own type. */
        {
            unsigned long long u = 0;
            size_t lastu;
            edge_values(NC_UINT64, &lastu);
            lastu--;
            rc = nc_get_var1(nc, getvar[NC_UINT64], &lastu, &u);
            printf("API name=get_untyped_uint64 rc=%d out=%llu\n", rc, u);
        }
        /* Strings against numbers and chars. */
        {
            char *s = NULL;
            const char *w = "x";
            rc = nc_get_var1_string(nc, getvar[NC_INT], (size_t[]){0}, &s);
            printf("API name=get_string_from_int rc=%d\n", rc);
            rc = nc_put_var1_string(nc, getvar[NC_INT], (size_t[]){0}, &w);
            printf("API name=put_string_to_int rc=%d\n", rc);
            rc = nc_get_var1_string(nc, chv, (size_t[]){0}, &s);
            printf("API name=get_string_from_char rc=%d\n", rc);
        }
    }

    check(nc_close(nc), "nc_close");
    return 0;
}
