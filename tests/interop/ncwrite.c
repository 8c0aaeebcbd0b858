/* ncwrite: write the interop reference dataset through the netCDF-C API.
 *
 * usage: ncwrite URL [--reopen-append]
 *
 *   URL is a netCDF URL, e.g. file:///tmp/x.zarr#mode=nczarr,file
 *   With --reopen-append the last record (time index 4) is written after
 *   closing and reopening the dataset with NC_WRITE (only meaningful where
 *   the unlimited dimension survives a reopen, i.e. NCZarr); otherwise every
 *   record is written in the creating session (records 0-2, nc_sync, then
 *   records 3-4, so the unlimited dimension grows after a sync).
 *
 * The content is fixed; tests/interop/check.py (EXPECTED) mirrors it.
 * Prints one line, "fresh-endian flags N": nc_inq_var_endian of the ubyte
 * variable flags right after nc_def_var.
 *
 * Root group "/"
 *   dims: time = UNLIMITED (5 records written), y = 3, x = 4
 *   attributes:
 *     title   char   "nczarr interop dataset"
 *     i_att   int    {1, -2, 2147483647, -2147483648}
 *     d_att   double {1.0/3.0, -1e300, 0.1}          (compared bit-exactly)
 *     f_att   float  {0.1f, -2.5f, 3.40282347e38f}
 *     s_att   string {"alpha", "beta \u03b3", "", "q\"b\\s"}
 *     b_att   byte   {-128, 127}
 *     i64_att int64  {-9007199254740993, 9223372036854775807}
 *   variables:
 *     float  temp(time,y,x)  chunks (2,2,3) (edge chunks are partial),
 *                            _FillValue = -999.0f, units = "K",
 *                            long_name = "temperature"
 *                            temp[t][j][i] = t*100 + j*10 + i + 0.25
 *                            except temp[3][0][0] = -Infinity and
 *                                   temp[4][2][3] = NaN
 *     short  packed(y,x)     scale_factor = 0.01 (double)
 *                            packed[j][i] = (j*4 + i)*1000 - 5000
 *     int64  t(time)         units = "seconds since 2000-01-01"
 *                            t = {0, 3600, -7200, 9007199254740993,
 *                                 -9223372036854775807-1}
 *     double s               scalar, 6.02214076e23
 *     string names(x)        {"alpha", "", "\u03b3-ray", "q\"b\\s\t/"}
 *     char   code(x)         "ABCD"
 *     ubyte  flags(x)        {0, 1, 128, 255}
 *     int    be(y,x)         big-endian; be[j][i] = j*1000000 + i*1000 - 7
 *     double y(y)            coordinate variable {10.5, 20.5, 30.5}, units "m"
 *     int    partial(x)      chunks (1); only partial[0] = 42 is written,
 *                            the rest reads as the default int fill
 *                            -2147483647 (chunks 1..3 are never stored)
 * Group "/g1"
 *   dims: z = 2
 *   attributes: note char "group one"
 *   variables:
 *     double v(y)            parent dimension; {1.5, -2.25, 1e-300}
 *     ushort w(z,x)          w[k][i] = k*40000 + i   (k*40000 needs > 16 bit
 *                            signed)  -> {0,1,2,3,40000,40001,40002,40003}
 * Group "/g1/g2"
 *   attributes: deep int {7}, where char "g1/g2"
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netcdf.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        int e_ = (call);                                                             \
        if (e_ != NC_NOERR) {                                                        \
            fprintf(stderr, "ncwrite: %s:%d: %s: %s (%d)\n", __FILE__, __LINE__,     \
                    #call, nc_strerror(e_), e_);                                     \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

#define NT 5
#define NY 3
#define NX 4

static float temp_value(int t, int j, int i) {
    if (t == 3 && j == 0 && i == 0) return -INFINITY;
    if (t == 4 && j == 2 && i == 3) return NAN;
    return (float)(t * 100 + j * 10 + i) + 0.25f;
}

static const long long t_values[NT] = {0, 3600, -7200, 9007199254740993LL,
                                       -9223372036854775807LL - 1};

/* Write records [t0, t1) of temp and t. */
static void write_records(int ncid, int temp, int tvar, int t0, int t1) {
    float buf[NT][NY][NX];
    for (int t = t0; t < t1; t++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) buf[t - t0][j][i] = temp_value(t, j, i);
    size_t start[3] = {(size_t)t0, 0, 0}, count[3] = {(size_t)(t1 - t0), NY, NX};
    CHECK(nc_put_vara_float(ncid, temp, start, count, &buf[0][0][0]));
    size_t s1[1] = {(size_t)t0}, c1[1] = {(size_t)(t1 - t0)};
    CHECK(nc_put_vara_longlong(ncid, tvar, s1, c1, &t_values[t0]));
}

static void put_text(int ncid, int varid, const char *name, const char *text) {
    CHECK(nc_put_att_text(ncid, varid, name, strlen(text), text));
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--reopen-append") != 0)) {
        fprintf(stderr, "usage: %s URL [--reopen-append]\n", argv[0]);
        return 2;
    }
    const char *url = argv[1];
    int reopen = argc == 3;
    int ncid, g1, g2;
    int d_time, d_y, d_x, d_z;
    int temp, packed, tvar, s, names, code, flags, be, yvar, partial, v, w;

    CHECK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid));

    /* Root attributes. */
    put_text(ncid, NC_GLOBAL, "title", "nczarr interop dataset");
    int i_att[4] = {1, -2, INT_MAX, INT_MIN};
    CHECK(nc_put_att_int(ncid, NC_GLOBAL, "i_att", NC_INT, 4, i_att));
    double d_att[3] = {1.0 / 3.0, -1e300, 0.1};
    CHECK(nc_put_att_double(ncid, NC_GLOBAL, "d_att", NC_DOUBLE, 3, d_att));
    float f_att[3] = {0.1f, -2.5f, 3.40282347e38f};
    CHECK(nc_put_att_float(ncid, NC_GLOBAL, "f_att", NC_FLOAT, 3, f_att));
    const char *s_att[4] = {"alpha", "beta \xce\xb3", "", "q\"b\\s"};
    CHECK(nc_put_att_string(ncid, NC_GLOBAL, "s_att", 4, s_att));
    signed char b_att[2] = {-128, 127};
    CHECK(nc_put_att_schar(ncid, NC_GLOBAL, "b_att", NC_BYTE, 2, b_att));
    long long i64_att[2] = {-9007199254740993LL, 9223372036854775807LL};
    CHECK(nc_put_att_longlong(ncid, NC_GLOBAL, "i64_att", NC_INT64, 2, i64_att));

    /* Dimensions. */
    CHECK(nc_def_dim(ncid, "time", NC_UNLIMITED, &d_time));
    CHECK(nc_def_dim(ncid, "y", NY, &d_y));
    CHECK(nc_def_dim(ncid, "x", NX, &d_x));

    /* Root variables. */
    int dims3[3] = {d_time, d_y, d_x};
    CHECK(nc_def_var(ncid, "temp", NC_FLOAT, 3, dims3, &temp));
    size_t temp_chunks[3] = {2, 2, 3};
    CHECK(nc_def_var_chunking(ncid, temp, NC_CHUNKED, temp_chunks));
    float temp_fill = -999.0f;
    CHECK(nc_def_var_fill(ncid, temp, NC_FILL, &temp_fill));
    put_text(ncid, temp, "units", "K");
    put_text(ncid, temp, "long_name", "temperature");

    int dims_yx[2] = {d_y, d_x};
    CHECK(nc_def_var(ncid, "packed", NC_SHORT, 2, dims_yx, &packed));
    double scale = 0.01;
    CHECK(nc_put_att_double(ncid, packed, "scale_factor", NC_DOUBLE, 1, &scale));

    CHECK(nc_def_var(ncid, "t", NC_INT64, 1, &d_time, &tvar));
    put_text(ncid, tvar, "units", "seconds since 2000-01-01");

    CHECK(nc_def_var(ncid, "s", NC_DOUBLE, 0, NULL, &s));
    CHECK(nc_def_var(ncid, "names", NC_STRING, 1, &d_x, &names));
    CHECK(nc_def_var(ncid, "code", NC_CHAR, 1, &d_x, &code));
    CHECK(nc_def_var(ncid, "flags", NC_UBYTE, 1, &d_x, &flags));
    /* Reported on stdout for check.py: a freshly defined one-byte variable
     * answers the machine byte order (NC_ENDIAN_LITTLE on little-endian
     * hosts), as in netcdf-c; NC_ENDIAN_NATIVE only once it is stored as
     * '|u1' and reopened. */
    int flags_endian = -1;
    CHECK(nc_inq_var_endian(ncid, flags, &flags_endian));
    printf("fresh-endian flags %d\n", flags_endian);
    CHECK(nc_def_var(ncid, "be", NC_INT, 2, dims_yx, &be));
    CHECK(nc_def_var_endian(ncid, be, NC_ENDIAN_BIG));
    CHECK(nc_def_var(ncid, "y", NC_DOUBLE, 1, &d_y, &yvar));
    put_text(ncid, yvar, "units", "m");
    CHECK(nc_def_var(ncid, "partial", NC_INT, 1, &d_x, &partial));
    size_t one_chunk[1] = {1};
    CHECK(nc_def_var_chunking(ncid, partial, NC_CHUNKED, one_chunk));

    /* Groups. */
    CHECK(nc_def_grp(ncid, "g1", &g1));
    put_text(g1, NC_GLOBAL, "note", "group one");
    CHECK(nc_def_dim(g1, "z", 2, &d_z));
    CHECK(nc_def_var(g1, "v", NC_DOUBLE, 1, &d_y, &v));
    int dims_zx[2] = {d_z, d_x};
    CHECK(nc_def_var(g1, "w", NC_USHORT, 2, dims_zx, &w));
    CHECK(nc_def_grp(g1, "g2", &g2));
    int deep = 7;
    CHECK(nc_put_att_int(g2, NC_GLOBAL, "deep", NC_INT, 1, &deep));
    put_text(g2, NC_GLOBAL, "where", "g1/g2");

    CHECK(nc_enddef(ncid));

    /* Data. */
    short packed_v[NY][NX];
    int be_v[NY][NX];
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            packed_v[j][i] = (short)((j * 4 + i) * 1000 - 5000);
            be_v[j][i] = j * 1000000 + i * 1000 - 7;
        }
    CHECK(nc_put_var_short(ncid, packed, &packed_v[0][0]));
    CHECK(nc_put_var_int(ncid, be, &be_v[0][0]));
    double s_v = 6.02214076e23;
    CHECK(nc_put_var_double(ncid, s, &s_v));
    const char *names_v[NX] = {"alpha", "", "\xce\xb3-ray", "q\"b\\s\t/"};
    CHECK(nc_put_var_string(ncid, names, names_v));
    CHECK(nc_put_var_text(ncid, code, "ABCD"));
    unsigned char flags_v[NX] = {0, 1, 128, 255};
    CHECK(nc_put_var_uchar(ncid, flags, flags_v));
    double y_v[NY] = {10.5, 20.5, 30.5};
    CHECK(nc_put_var_double(ncid, yvar, y_v));
    size_t p0[1] = {0};
    int p_v = 42;
    CHECK(nc_put_var1_int(ncid, partial, p0, &p_v));
    double v_v[NY] = {1.5, -2.25, 1e-300};
    CHECK(nc_put_var_double(g1, v, v_v));
    unsigned short w_v[2][NX];
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < NX; i++) w_v[k][i] = (unsigned short)(k * 40000 + i);
    CHECK(nc_put_var_ushort(g1, w, &w_v[0][0]));

    write_records(ncid, temp, tvar, 0, 3);
    CHECK(nc_sync(ncid));
    if (reopen) {
        write_records(ncid, temp, tvar, 3, 4);
        CHECK(nc_close(ncid));
        CHECK(nc_open(url, NC_WRITE, &ncid));
        CHECK(nc_inq_varid(ncid, "temp", &temp));
        CHECK(nc_inq_varid(ncid, "t", &tvar));
        write_records(ncid, temp, tvar, 4, 5);
    } else {
        write_records(ncid, temp, tvar, 3, 5);
    }
    CHECK(nc_close(ncid));
    return 0;
}
