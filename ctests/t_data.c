/* t_data.c - reading and writing data: var/var1/vara/vars/varm, index
 * errors, multi-chunk variables with partial edge chunks, fill values for
 * unwritten data, no-fill, unlimited dimension growth and appending. */
#include "nctest.h"

#define NR 7
#define NC 5

/* v[r][c] = 100*r + c on a 7x5 int var with 3x2 chunks (edge chunks
 * partial in both dims). */
static void make_grid(const char *url, nc_type type)
{
    int ncid, d[2], varid, r, c;
    double vals[NR][NC];
    size_t cs[2] = {3, 2};

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "r", NR, &d[0]));
    CHECK(nc_def_dim(ncid, "c", NC, &d[1]));
    CHECK(nc_def_var(ncid, "v", type, 2, d, &varid));
    CHECK(nc_def_var_chunking(ncid, varid, NC_CHUNKED, cs));
    CHECK(nc_enddef(ncid));
    for (r = 0; r < NR; r++)
        for (c = 0; c < NC; c++)
            vals[r][c] = 100 * r + c;
    CHECK(nc_put_var_double(ncid, varid, &vals[0][0]));
    CHECK(nc_close(ncid));
}

static void test_whole_and_var1(void)
{
    int ncid, r, c, bad = 0;
    int all[NR][NC];
    const char *url = nct_url("grid");

    make_grid(url, NC_INT);
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_get_var_int(ncid, 0, &all[0][0]));
    for (r = 0; r < NR; r++)
        for (c = 0; c < NC; c++)
            if (all[r][c] != 100 * r + c)
                bad++;
    EXPECT_EQ(bad, 0);
    for (r = 0; r < NR; r++)
        for (c = 0; c < NC; c++) {
            size_t idx[2] = {(size_t)r, (size_t)c};
            short s = -1;
            CHECK(nc_get_var1_short(ncid, 0, idx, &s));
            if (s != 100 * r + c)
                bad++;
        }
    EXPECT_EQ(bad, 0);
    size_t idx[2] = {NR, 0};
    int x;
    EXPECT_ERR(nc_get_var1_int(ncid, 0, idx, &x), NC_EINVALCOORDS);
    idx[0] = 0;
    idx[1] = NC;
    EXPECT_ERR(nc_get_var1_int(ncid, 0, idx, &x), NC_EINVALCOORDS);
    EXPECT_ERR(nc_get_var1_int(ncid, 1, idx, &x), NC_ENOTVAR);
    CHECK(nc_close(ncid));

    /* var1 writes across chunks, then reread */
    CHECK(nc_open(url, NC_WRITE, &ncid));
    for (r = 0; r < NR; r += 2) {
        size_t i2[2] = {(size_t)r, (size_t)(NC - 1)};
        int val = -r;
        CHECK(nc_put_var1_int(ncid, 0, i2, &val));
    }
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_get_var_int(ncid, 0, &all[0][0]));
    EXPECT_EQ(all[0][4], 0);
    EXPECT_EQ(all[2][4], -2);
    EXPECT_EQ(all[6][4], -6);
    EXPECT_EQ(all[1][4], 104);
    EXPECT_EQ(all[6][3], 603);
    CHECK(nc_close(ncid));
}

static void test_vara(void)
{
    int ncid, i, bad = 0;
    const char *url = nct_url("vara");

    make_grid(url, NC_DOUBLE);
    CHECK(nc_open(url, NC_WRITE, &ncid));
    /* a block crossing chunk boundaries, ending in the partial edge chunk */
    size_t start[2] = {2, 1}, count[2] = {5, 4};
    double blk[5][4];
    CHECK(nc_get_vara_double(ncid, 0, start, count, &blk[0][0]));
    for (i = 0; i < 20; i++)
        if (blk[i / 4][i % 4] != 100 * (2 + i / 4) + (1 + i % 4))
            bad++;
    EXPECT_EQ(bad, 0);
    /* zero count reads nothing, even at the end */
    size_t s0[2] = {NR, NC}, c0[2] = {0, 0};
    CHECK(nc_get_vara_double(ncid, 0, s0, c0, &blk[0][0]));
    /* errors */
    size_t s1[2] = {NR + 1, 0}, c1[2] = {0, 1};
    EXPECT_ERR(nc_get_vara_double(ncid, 0, s1, c1, &blk[0][0]), NC_EINVALCOORDS);
    size_t s2[2] = {5, 0}, c2[2] = {3, 1};
    EXPECT_ERR(nc_get_vara_double(ncid, 0, s2, c2, &blk[0][0]), NC_EEDGE);
    size_t s3[2] = {0, 4}, c3[2] = {1, 2};
    EXPECT_ERR(nc_put_vara_double(ncid, 0, s3, c3, &blk[0][0]), NC_EEDGE);
    size_t s4[2] = {0, NC + 1}, c4[2] = {1, 1};
    EXPECT_ERR(nc_put_vara_double(ncid, 0, s4, c4, &blk[0][0]), NC_EINVALCOORDS);

    /* write a block and read it back through another type */
    size_t ws[2] = {4, 3}, wc[2] = {3, 2};
    float w[6] = {-1.5f, -2.5f, -3.5f, -4.5f, -5.5f, -6.5f};
    CHECK(nc_put_vara_float(ncid, 0, ws, wc, w));
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    double all[NR][NC];
    CHECK(nc_get_var_double(ncid, 0, &all[0][0]));
    EXPECT_DBL(all[4][3], -1.5);
    EXPECT_DBL(all[4][4], -2.5);
    EXPECT_DBL(all[6][4], -6.5);
    EXPECT_DBL(all[3][3], 303);
    EXPECT_DBL(all[4][2], 402);
    CHECK(nc_close(ncid));
}

static void test_vars(void)
{
    int ncid;
    const char *url = nct_url("vars");

    make_grid(url, NC_SHORT);
    CHECK(nc_open(url, NC_WRITE, &ncid));
    /* every 3rd row from 0, every 2nd column from 1 */
    size_t start[2] = {0, 1}, count[3] = {3, 2};
    ptrdiff_t stride[2] = {3, 2};
    short got[3][2];
    CHECK(nc_get_vars_short(ncid, 0, start, count, stride, &got[0][0]));
    EXPECT_EQ(got[0][0], 1);
    EXPECT_EQ(got[0][1], 3);
    EXPECT_EQ(got[1][0], 301);
    EXPECT_EQ(got[2][1], 603);
    /* NULL stride means 1 */
    size_t s1[2] = {1, 1}, c1[2] = {2, 2};
    CHECK(nc_get_vars_short(ncid, 0, s1, c1, NULL, &got[0][0]));
    EXPECT_EQ(got[0][0], 101);
    EXPECT_EQ(got[0][1], 102);
    EXPECT_EQ(got[1][0], 201);
    /* bad strides */
    ptrdiff_t neg[2] = {-1, 1}, zero[2] = {1, 0};
    EXPECT_ERR(nc_get_vars_short(ncid, 0, s1, c1, neg, &got[0][0]), NC_ESTRIDE);
    EXPECT_ERR(nc_get_vars_short(ncid, 0, s1, c1, zero, &got[0][0]), NC_ESTRIDE);
    EXPECT_ERR(nc_put_vars_short(ncid, 0, s1, c1, neg, &got[0][0]), NC_ESTRIDE);
    /* last element out of range */
    size_t s2[2] = {0, 0}, c2[2] = {3, 1};
    ptrdiff_t st2[2] = {4, 1};
    EXPECT_ERR(nc_get_vars_short(ncid, 0, s2, c2, st2, &got[0][0]), NC_EEDGE);
    /* a stride larger than the dim with count 1 is fine */
    size_t c3[2] = {1, 1};
    ptrdiff_t st3[2] = {100, 100};
    CHECK(nc_get_vars_short(ncid, 0, s2, c3, st3, &got[0][0]));
    EXPECT_EQ(got[0][0], 0);

    /* strided write */
    short w[4] = {-1, -2, -3, -4};
    size_t ws[2] = {1, 0}, wc[2] = {2, 2};
    ptrdiff_t wst[2] = {4, 3};
    CHECK(nc_put_vars_short(ncid, 0, ws, wc, wst, w));
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    short all[NR][NC];
    CHECK(nc_get_var_short(ncid, 0, &all[0][0]));
    EXPECT_EQ(all[1][0], -1);
    EXPECT_EQ(all[1][3], -2);
    EXPECT_EQ(all[5][0], -3);
    EXPECT_EQ(all[5][3], -4);
    EXPECT_EQ(all[1][1], 101);
    EXPECT_EQ(all[5][4], 504);
    CHECK(nc_close(ncid));
}

static void test_varm(void)
{
    int ncid, r, c, bad = 0;
    const char *url = nct_url("varm");

    make_grid(url, NC_INT);
    CHECK(nc_open(url, NC_WRITE, &ncid));
    /* transposed read: t[c][r] = v[r][c]; imap in elements */
    long long t[NC][NR];
    size_t start[2] = {0, 0}, count[2] = {NR, NC};
    ptrdiff_t imap[2] = {1, NR};
    CHECK(nc_get_varm_longlong(ncid, 0, start, count, NULL, imap, &t[0][0]));
    for (r = 0; r < NR; r++)
        for (c = 0; c < NC; c++)
            if (t[c][r] != 100 * r + c)
                bad++;
    EXPECT_EQ(bad, 0);
    /* strided and mapped: rows 1,3,5 columns 0,2,4 into a 3x3 transposed */
    size_t s2[2] = {1, 0}, c2[2] = {3, 3};
    ptrdiff_t st2[2] = {2, 2}, im2[2] = {1, 3};
    int m[3][3];
    CHECK(nc_get_varm_int(ncid, 0, s2, c2, st2, im2, &m[0][0]));
    EXPECT_EQ(m[0][0], 100);
    EXPECT_EQ(m[0][1], 300);
    EXPECT_EQ(m[1][0], 102);
    EXPECT_EQ(m[2][2], 504);
    /* NULL imap is the natural layout */
    int n[3][3];
    CHECK(nc_get_varm_int(ncid, 0, s2, c2, st2, NULL, &n[0][0]));
    EXPECT_EQ(n[0][1], 102);
    EXPECT_EQ(n[1][0], 300);
    /* transposed write */
    int tw[NC][NR];
    for (r = 0; r < NR; r++)
        for (c = 0; c < NC; c++)
            tw[c][r] = -(100 * r + c);
    CHECK(nc_put_varm_int(ncid, 0, start, count, NULL, imap, &tw[0][0]));
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    int all[NR][NC];
    CHECK(nc_get_var_int(ncid, 0, &all[0][0]));
    bad = 0;
    for (r = 0; r < NR; r++)
        for (c = 0; c < NC; c++)
            if (all[r][c] != -(100 * r + c))
                bad++;
    EXPECT_EQ(bad, 0);
    CHECK(nc_close(ncid));
}

static void test_fill_unwritten(void)
{
    int ncid, d, vi, vd, vc, vu, vb, vf;
    const char *url = nct_url("fill");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 10, &d));
    CHECK(nc_def_var(ncid, "i", NC_INT, 1, &d, &vi));
    CHECK(nc_def_var(ncid, "d", NC_DOUBLE, 1, &d, &vd));
    CHECK(nc_def_var(ncid, "c", NC_CHAR, 1, &d, &vc));
    CHECK(nc_def_var(ncid, "u", NC_UINT64, 1, &d, &vu));
    CHECK(nc_def_var(ncid, "b", NC_BYTE, 1, &d, &vb));
    CHECK(nc_def_var(ncid, "f", NC_FLOAT, 1, &d, &vf));
    float ff = -1.0f;
    CHECK(nc_def_var_fill(ncid, vf, NC_FILL, &ff));
    size_t cs = 4;
    CHECK(nc_def_var_chunking(ncid, vi, NC_CHUNKED, &cs));
    CHECK(nc_enddef(ncid));
    /* partly written */
    size_t st = 5, ct = 2;
    int two[2] = {7, 8};
    CHECK(nc_put_vara_int(ncid, vi, &st, &ct, two));
    CHECK(nc_put_vara_int(ncid, vf, &st, &ct, two));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    int i[10];
    CHECK(nc_get_var_int(ncid, vi, i));
    EXPECT_EQ(i[0], NC_FILL_INT);
    EXPECT_EQ(i[4], NC_FILL_INT);
    EXPECT_EQ(i[5], 7);
    EXPECT_EQ(i[6], 8);
    EXPECT_EQ(i[7], NC_FILL_INT);
    EXPECT_EQ(i[9], NC_FILL_INT);
    double dd[10];
    CHECK(nc_get_var_double(ncid, vd, dd));
    /* netcdf-c 4.10.1 writes the default double fill into .zarray as
     * 9.96921e+36 ("%lg") and reads back 9.96921e36, not NC_FILL_DOUBLE */
    KNOWN_WRONG_BEGIN("the default double fill value is stored with 6 significant digits");
    EXPECT_DBL(dd[0], NC_FILL_DOUBLE);
    EXPECT_DBL(dd[9], NC_FILL_DOUBLE);
    double fillv = 0;
    CHECK(nc_inq_var_fill(ncid, vd, NULL, &fillv));
    EXPECT_DBL(fillv, NC_FILL_DOUBLE);
    KNOWN_WRONG_END();
    EXPECT_TRUE(fabs(dd[0] / NC_FILL_DOUBLE - 1) < 1e-6);
    char cc[10];
    CHECK(nc_get_var_text(ncid, vc, cc));
    EXPECT_EQ(cc[0], NC_FILL_CHAR);
    unsigned long long uu[10];
    CHECK(nc_get_var_ulonglong(ncid, vu, uu));
    EXPECT_EQ_U(uu[3], NC_FILL_UINT64);
    signed char bb[10];
    CHECK(nc_get_var_schar(ncid, vb, bb));
    EXPECT_EQ(bb[3], NC_FILL_BYTE);
    float fv[10];
    CHECK(nc_get_var_float(ncid, vf, fv));
    EXPECT_DBL(fv[0], -1.0f);
    EXPECT_DBL(fv[5], 7.0f);
    EXPECT_DBL(fv[9], -1.0f);
    CHECK(nc_close(ncid));
}

static void test_nofill(void)
{
    int ncid, d, v, w, old = -1;
    const char *url = nct_url("nofill");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    /* nc_set_fill returns the previous mode */
    CHECK(nc_set_fill(ncid, NC_NOFILL, &old));
    EXPECT_EQ(old, NC_FILL);
    CHECK(nc_set_fill(ncid, NC_NOFILL, &old));
    EXPECT_EQ(old, NC_NOFILL);
    EXPECT_ERR(nc_set_fill(ncid, 7, &old), NC_EINVAL);
    CHECK(nc_def_dim(ncid, "x", 6, &d));
    /* vars defined now are no-fill */
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &d, &v));
    int nofill = -1;
    CHECK(nc_inq_var_fill(ncid, v, &nofill, NULL));
    EXPECT_EQ(nofill, 1);
    CHECK(nc_set_fill(ncid, NC_FILL, &old));
    EXPECT_EQ(old, NC_NOFILL);
    CHECK(nc_def_var(ncid, "w", NC_INT, 1, &d, &w));
    CHECK(nc_inq_var_fill(ncid, w, &nofill, NULL));
    EXPECT_EQ(nofill, 0);
    CHECK(nc_inq_var_fill(ncid, v, &nofill, NULL));
    EXPECT_EQ(nofill, 1);
    CHECK(nc_enddef(ncid));
    size_t st = 0, ct = 2;
    int two[2] = {1, 2};
    CHECK(nc_put_vara_int(ncid, v, &st, &ct, two));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_var_fill(ncid, v, &nofill, NULL));
    EXPECT_EQ(nofill, 1);
    int vals[6] = {9, 9, 9, 9, 9, 9};
    CHECK(nc_get_var_int(ncid, v, vals));
    EXPECT_EQ(vals[0], 1);
    EXPECT_EQ(vals[1], 2);
    /* unwritten no-fill data reads as zeros (fill_value null in .zarray:
     * a missing chunk is synthesised as zero bytes) */
    EXPECT_EQ(vals[2], 0);
    EXPECT_EQ(vals[5], 0);
    CHECK(nc_get_var_int(ncid, w, vals));
    EXPECT_EQ(vals[0], NC_FILL_INT);
    /* nc_set_fill on a read-only dataset */
    EXPECT_ERR(nc_set_fill(ncid, NC_NOFILL, &old), NC_EPERM);
    CHECK(nc_close(ncid));
}

static void test_unlimited_growth(void)
{
    int ncid, t, x, v, w, s;
    size_t len = 99;
    const char *url = nct_url("unlim");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    CHECK(nc_def_dim(ncid, "x", 3, &x));
    int d2[2] = {t, x};
    CHECK(nc_def_var(ncid, "v", NC_INT, 2, d2, &v));
    CHECK(nc_def_var(ncid, "w", NC_DOUBLE, 1, &t, &w));
    CHECK(nc_def_var(ncid, "s", NC_SHORT, 1, &t, &s));
    CHECK(nc_enddef(ncid));
    CHECK(nc_inq_dimlen(ncid, t, &len));
    EXPECT_EQ(len, 0);
    /* reading an empty record var: count 0 is fine, count 1 is not (the
     * start index is already past the end: NC_EINVALCOORDS) */
    int dummy[3];
    size_t s0[2] = {0, 0}, c0[2] = {0, 3}, c1[2] = {1, 3};
    CHECK(nc_get_vara_int(ncid, v, s0, c0, dummy));
    EXPECT_ERR(nc_get_vara_int(ncid, v, s0, c1, dummy), NC_EINVALCOORDS);
    /* write record 4 first: the dim grows to 5 */
    size_t st[2] = {4, 0}, ct[2] = {1, 3};
    int rec[3] = {40, 41, 42};
    CHECK(nc_put_vara_int(ncid, v, st, ct, rec));
    CHECK(nc_inq_dimlen(ncid, t, &len));
    EXPECT_EQ(len, 5);
    /* records 0..3 read as fill */
    int all[5][3];
    CHECK(nc_get_var_int(ncid, v, &all[0][0]));
    EXPECT_EQ(all[0][0], NC_FILL_INT);
    EXPECT_EQ(all[3][2], NC_FILL_INT);
    EXPECT_EQ(all[4][1], 41);
    /* another var on the same dim, written shorter */
    double wv[2] = {0.5, 1.5};
    size_t ws = 0, wc = 2;
    CHECK(nc_put_vara_double(ncid, w, &ws, &wc, wv));
    CHECK(nc_inq_dimlen(ncid, t, &len));
    EXPECT_EQ(len, 5);
    /* reading it up to the dim length gives fill after its data */
    double wr[5];
    CHECK(nc_get_var_double(ncid, w, wr));
    EXPECT_DBL(wr[1], 1.5);
    EXPECT_DBL(wr[2], NC_FILL_DOUBLE);
    EXPECT_DBL(wr[4], NC_FILL_DOUBLE);
    /* but not past it */
    size_t ps = 5, pc = 1;
    EXPECT_ERR(nc_get_vara_double(ncid, w, &ps, &pc, wr), NC_EINVALCOORDS);
    ps = 4;
    pc = 2;
    EXPECT_ERR(nc_get_vara_double(ncid, w, &ps, &pc, wr), NC_EEDGE);
    CHECK(nc_close(ncid));

    /* reopen and append */
    CHECK(nc_open(url, NC_WRITE, &ncid));
    CHECK(nc_inq_dimlen(ncid, t, &len));
    EXPECT_EQ(len, 5);
    short sv[3] = {1, 2, 3};
    size_t ss = 6, sc = 3;
    CHECK(nc_put_vara_short(ncid, s, &ss, &sc, sv));
    CHECK(nc_inq_dimlen(ncid, t, &len));
    EXPECT_EQ(len, 9);
    size_t idx = 0;
    double one = 9.0;
    CHECK(nc_put_var1_double(ncid, w, &idx, &one));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_dimlen(ncid, t, &len));
    EXPECT_EQ(len, 9);
    int vall[9][3];
    CHECK(nc_get_var_int(ncid, v, &vall[0][0]));
    EXPECT_EQ(vall[4][2], 42);
    EXPECT_EQ(vall[8][0], NC_FILL_INT);
    double wall[9];
    CHECK(nc_get_var_double(ncid, w, wall));
    EXPECT_DBL(wall[0], 9.0);
    EXPECT_DBL(wall[1], 1.5);
    EXPECT_DBL(wall[8], NC_FILL_DOUBLE);
    short sall[9];
    CHECK(nc_get_var_short(ncid, s, sall));
    EXPECT_EQ(sall[0], NC_FILL_SHORT);
    EXPECT_EQ(sall[6], 1);
    EXPECT_EQ(sall[8], 3);
    CHECK(nc_close(ncid));
}

static void test_unlimited_put_var(void)
{
    int ncid, t, v;
    size_t len = 99;
    const char *url = nct_url("unlim_putvar");
    /* nc_put_var on a record var writes the current number of records,
     * i.e. nothing when the dim is empty */
    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &t, &v));
    CHECK(nc_enddef(ncid));
    int vals[4] = {1, 2, 3, 4};
    CHECK(nc_put_var_int(ncid, v, vals));
    CHECK(nc_inq_dimlen(ncid, t, &len));
    EXPECT_EQ(len, 0);
    size_t st = 0, ct = 4;
    CHECK(nc_put_vara_int(ncid, v, &st, &ct, vals));
    CHECK(nc_inq_dimlen(ncid, t, &len));
    EXPECT_EQ(len, 4);
    int back[4] = {0, 0, 0, 0};
    CHECK(nc_get_var_int(ncid, v, back));
    EXPECT_MEM(back, vals, sizeof vals);
    CHECK(nc_close(ncid));
}

static void test_many_types_roundtrip(void)
{
    int ncid, d, vb, vub, vus, vui, vi64, vu64, vf;
    const char *url = nct_url("types");
    signed char b[4] = {-128, -1, 0, 127};
    unsigned char ub[4] = {0, 1, 200, 255};
    unsigned short us[4] = {0, 1, 40000, 65535};
    unsigned int ui[4] = {0, 1, 3000000000u, 4294967295u};
    long long i64[4] = {LLONG_MIN, -1, 1, LLONG_MAX};
    unsigned long long u64[4] = {0, 1, 1ull << 63, ULLONG_MAX};
    float f[4] = {-0.0f, 1e-38f, 3.4e38f, 0.1f};

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 4, &d));
    CHECK(nc_def_var(ncid, "b", NC_BYTE, 1, &d, &vb));
    CHECK(nc_def_var(ncid, "ub", NC_UBYTE, 1, &d, &vub));
    CHECK(nc_def_var(ncid, "us", NC_USHORT, 1, &d, &vus));
    CHECK(nc_def_var(ncid, "ui", NC_UINT, 1, &d, &vui));
    CHECK(nc_def_var(ncid, "i64", NC_INT64, 1, &d, &vi64));
    CHECK(nc_def_var(ncid, "u64", NC_UINT64, 1, &d, &vu64));
    CHECK(nc_def_var(ncid, "f", NC_FLOAT, 1, &d, &vf));
    CHECK(nc_def_var_endian(ncid, vu64, NC_ENDIAN_BIG));
    CHECK(nc_enddef(ncid));
    CHECK(nc_put_var_schar(ncid, vb, b));
    CHECK(nc_put_var_uchar(ncid, vub, ub));
    CHECK(nc_put_var_ushort(ncid, vus, us));
    CHECK(nc_put_var_uint(ncid, vui, ui));
    CHECK(nc_put_var_longlong(ncid, vi64, i64));
    CHECK(nc_put_var_ulonglong(ncid, vu64, u64));
    CHECK(nc_put_var_float(ncid, vf, f));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    signed char b2[4];
    unsigned char ub2[4];
    unsigned short us2[4];
    unsigned int ui2[4];
    long long i642[4];
    unsigned long long u642[4];
    float f2[4];
    CHECK(nc_get_var_schar(ncid, vb, b2));
    EXPECT_MEM(b2, b, sizeof b);
    CHECK(nc_get_var_uchar(ncid, vub, ub2));
    EXPECT_MEM(ub2, ub, sizeof ub);
    CHECK(nc_get_var_ushort(ncid, vus, us2));
    EXPECT_MEM(us2, us, sizeof us);
    CHECK(nc_get_var_uint(ncid, vui, ui2));
    EXPECT_MEM(ui2, ui, sizeof ui);
    CHECK(nc_get_var_longlong(ncid, vi64, i642));
    EXPECT_MEM(i642, i64, sizeof i64);
    CHECK(nc_get_var_ulonglong(ncid, vu64, u642));
    EXPECT_MEM(u642, u64, sizeof u64);
    CHECK(nc_get_var_float(ncid, vf, f2));
    EXPECT_MEM(f2, f, sizeof f);
    /* generic nc_get_var: the var's own type */
    long long g[4];
    CHECK(nc_get_var(ncid, vi64, g));
    EXPECT_MEM(g, i64, sizeof i64);
    CHECK(nc_close(ncid));
}

static void test_pure_zarr_data(void)
{
    int ncid, d[2], v;
    const char *url = nct_zarr_url("purezarr");
    double vals[2][3] = {{1, 2, 3}, {4, 5, 6}}, back[2][3];

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "y", 2, &d[0]));
    CHECK(nc_def_dim(ncid, "x", 3, &d[1]));
    CHECK(nc_def_var(ncid, "v", NC_DOUBLE, 2, d, &v));
    CHECK(nc_enddef(ncid));
    CHECK(nc_put_var_double(ncid, v, &vals[0][0]));
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    int nd = -1;
    CHECK(nc_inq_ndims(ncid, &nd));
    EXPECT_EQ(nd, 2);
    CHECK(nc_inq_varid(ncid, "v", &v));
    CHECK(nc_get_var_double(ncid, v, &back[0][0]));
    EXPECT_MEM(back, vals, sizeof vals);
    /* dims come from _ARRAY_DIMENSIONS */
    int dimid;
    size_t len;
    CHECK(nc_inq_dimid(ncid, "x", &dimid));
    CHECK(nc_inq_dimlen(ncid, dimid, &len));
    EXPECT_EQ(len, 3);
    CHECK(nc_close(ncid));
    /* and the same store reads in nczarr mode too */
    CHECK(nc_open(nct_url("purezarr"), NC_NOWRITE, &ncid));
    CHECK(nc_inq_varid(ncid, "v", &v));
    CHECK(nc_get_var_double(ncid, v, &back[0][0]));
    EXPECT_MEM(back, vals, sizeof vals);
    CHECK(nc_close(ncid));
}

int main(int argc, char **argv)
{
    nct_init(argc, argv);
    RUN(test_whole_and_var1);
    RUN(test_vara);
    RUN(test_vars);
    RUN(test_varm);
    RUN(test_fill_unwritten);
    RUN(test_nofill);
    RUN(test_unlimited_growth);
    RUN(test_unlimited_put_var);
    RUN(test_many_types_roundtrip);
    RUN(test_pure_zarr_data);
    return nct_finish();
}
