/* Filters from plugin libraries end to end: nc_def_var_filter with our
 * plugins (plugins/), write, close, reopen, read back; the filter ids and
 * parameters seen by nc_inq_var_filter_*; a filter nobody provides; a filter
 * that fails. Run with HDF5_PLUGIN_PATH=<junk dir>:<plugin dir> (the junk is
 * skipped). The same program runs against netcdf-c 4.10.1 with our plugins. */
#include "nctest.h"

#include <stdlib.h>
#include <string.h>

#include <netcdf.h>
#include <netcdf_filter.h>

#define ADDK 40300
#define XOR 40301
#define FAIL 40302
#define NEG 40307
#define NOBODY 40399
#define N 100

/* Does the file <dataset>/<var>/.zarray contain `what`? */
static int zarray_has(const char *dataset, const char *var, const char *what)
{
    char path[NCT_MAXPATH + 64];
    char buf[8192];
    size_t n;
    FILE *f;
    snprintf(path, sizeof path, "%s/%s/.zarray", dataset, var);
    f = fopen(path, "r");
    if (f == NULL) return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, what) != NULL;
}

static void test_round_trip(void)
{
    int ncid, dim, a, b, c, i;
    int ia[N], oa[N];
    short ib[N], ob[N];
    double ic[N], oc[N];
    size_t chunk = 25, nf = 0, np = 9;
    unsigned k = 7, key = 0x5a, three = 3, ids[4] = {0}, params[4] = {0};

    for (i = 0; i < N; i++) {
        ia[i] = i * 1000 - 7;
        ib[i] = (short)(i * 300 - 15000);
        ic[i] = i * 0.25 - 3.0;
    }
    CHECK(nc_create(nct_url("rt"), NC_CLOBBER | NC_NETCDF4, &ncid));
    CHECK(nc_def_dim(ncid, "x", N, &dim));
    CHECK(nc_def_var(ncid, "a", NC_INT, 1, &dim, &a));
    CHECK(nc_def_var_chunking(ncid, a, NC_CHUNKED, &chunk));
    /* Separate filter and codec libraries; the codec asks the library for
     * the type size (NCZ_modify_parameters -> nc_inq_var, nc_inq_type). */
    CHECK(nc_def_var_filter(ncid, a, ADDK, 1, &k));
    CHECK(nc_def_var(ncid, "b", NC_SHORT, 1, &dim, &b));
    CHECK(nc_def_var_chunking(ncid, b, NC_CHUNKED, &chunk));
    /* A chain: xor (filter and codec in one library) then addk. */
    CHECK(nc_def_var_filter(ncid, b, XOR, 1, &key));
    CHECK(nc_def_var_filter(ncid, b, ADDK, 1, &three));
    CHECK(nc_def_var(ncid, "c", NC_DOUBLE, 1, &dim, &c));
    CHECK(nc_def_var_chunking(ncid, c, NC_CHUNKED, &chunk));
    /* A filter whose codec comes from a defaults library. */
    CHECK(nc_def_var_filter(ncid, c, NEG, 0, NULL));
    CHECK(nc_enddef(ncid));
    CHECK(nc_put_var_int(ncid, a, ia));
    CHECK(nc_put_var_short(ncid, b, ib));
    CHECK(nc_put_var_double(ncid, c, ic));
    CHECK(nc_close(ncid));

    EXPECT_TRUE(zarray_has(nct_path("rt"), "a", "\"nczarr_addk\""));
    EXPECT_TRUE(zarray_has(nct_path("rt"), "b", "\"nczarr_xor\""));
    EXPECT_TRUE(zarray_has(nct_path("rt"), "c", "\"nczarr_neg\""));

    CHECK(nc_open(nct_url("rt"), NC_NOWRITE, &ncid));
    CHECK(nc_inq_varid(ncid, "a", &a));
    CHECK(nc_inq_varid(ncid, "b", &b));
    CHECK(nc_inq_varid(ncid, "c", &c));
    memset(oa, 0, sizeof oa);
    CHECK(nc_get_var_int(ncid, a, oa));
    EXPECT_MEM(oa, ia, sizeof ia);
    memset(ob, 0, sizeof ob);
    CHECK(nc_get_var_short(ncid, b, ob));
    EXPECT_MEM(ob, ib, sizeof ib);
    memset(oc, 0, sizeof oc);
    CHECK(nc_get_var_double(ncid, c, oc));
    EXPECT_MEM(oc, ic, sizeof ic);

    CHECK(nc_inq_var_filter_ids(ncid, a, &nf, ids));
    EXPECT_EQ_U(nf, 1);
    EXPECT_EQ_U(ids[0], ADDK);
    CHECK(nc_inq_var_filter_info(ncid, a, ADDK, &np, params));
    EXPECT_EQ_U(np, 1);
    EXPECT_EQ_U(params[0], 7);
    CHECK(nc_inq_var_filter_ids(ncid, b, &nf, ids));
    EXPECT_EQ_U(nf, 2);
    EXPECT_EQ_U(ids[0], XOR);
    EXPECT_EQ_U(ids[1], ADDK);
    CHECK(nc_inq_var_filter_info(ncid, b, XOR, &np, params));
    EXPECT_EQ_U(np, 1);
    EXPECT_EQ_U(params[0], 0x5a);
    CHECK(nc_inq_var_filter_ids(ncid, c, &nf, ids));
    EXPECT_EQ_U(nf, 1);
    EXPECT_EQ_U(ids[0], NEG);
    CHECK(nc_inq_var_filter_info(ncid, c, NEG, &np, params));
    EXPECT_EQ_U(np, 0);
    CHECK(nc_close(ncid));
}

static void test_availability(void)
{
    int ncid, dim, v;
    size_t chunk = 10;
    unsigned p = 1;
    CHECK(nc_create(nct_url("avail"), NC_CLOBBER | NC_NETCDF4, &ncid));
    CHECK(nc_inq_filter_avail(ncid, ADDK));
    CHECK(nc_inq_filter_avail(ncid, XOR));
    CHECK(nc_inq_filter_avail(ncid, NEG));
    EXPECT_ERR(nc_inq_filter_avail(ncid, NOBODY), NC_ENOFILTER);
    /* The junk directory's plugins are not loaded. */
    EXPECT_ERR(nc_inq_filter_avail(ncid, 40303), NC_ENOFILTER);
    EXPECT_ERR(nc_inq_filter_avail(ncid, 40304), NC_ENOFILTER);
    EXPECT_ERR(nc_inq_filter_avail(ncid, 40306), NC_ENOFILTER);
    CHECK(nc_def_dim(ncid, "x", 10, &dim));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &dim, &v));
    CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, &chunk));
    EXPECT_ERR(nc_def_var_filter(ncid, v, NOBODY, 1, &p), NC_ENOFILTER);
    CHECK(nc_close(ncid));
}

static void test_failing_filter(void)
{
    int ncid, dim, v, stat, i;
    size_t chunk = 10;
    unsigned mode0 = 0, mode1 = 1;
    int data[10], back[10];
    for (i = 0; i < 10; i++) data[i] = i;

    /* Fails on encode: the write (or, when chunks are cached, the close)
     * is NC_EFILTER. */
    CHECK(nc_create(nct_url("fail0"), NC_CLOBBER | NC_NETCDF4, &ncid));
    CHECK(nc_def_dim(ncid, "x", 10, &dim));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &dim, &v));
    CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, &chunk));
    CHECK(nc_def_var_filter(ncid, v, FAIL, 1, &mode0));
    CHECK(nc_enddef(ncid));
    stat = nc_put_var_int(ncid, v, data);
    if (stat == NC_NOERR) stat = nc_close(ncid);
    else (void)nc_close(ncid);
    EXPECT_EQ(stat, NC_EFILTER);

    /* Encodes, fails on decode. */
    CHECK(nc_create(nct_url("fail1"), NC_CLOBBER | NC_NETCDF4, &ncid));
    CHECK(nc_def_dim(ncid, "x", 10, &dim));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &dim, &v));
    CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, &chunk));
    CHECK(nc_def_var_filter(ncid, v, FAIL, 1, &mode1));
    CHECK(nc_enddef(ncid));
    CHECK(nc_put_var_int(ncid, v, data));
    CHECK(nc_close(ncid));
    CHECK(nc_open(nct_url("fail1"), NC_NOWRITE, &ncid));
    CHECK(nc_inq_varid(ncid, "v", &v));
    EXPECT_ERR(nc_get_var_int(ncid, v, back), NC_EFILTER);
    CHECK(nc_close(ncid));
}

int main(int argc, char **argv)
{
    nct_init(argc, argv);
    if (getenv("HDF5_PLUGIN_PATH") == NULL) {
        fprintf(stderr, "run with HDF5_PLUGIN_PATH=<junk dir>:<plugin dir>\n");
        return 2;
    }
    RUN(test_round_trip);
    RUN(test_availability);
    RUN(test_failing_filter);
    return nct_finish();
}
