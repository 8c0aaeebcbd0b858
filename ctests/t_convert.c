/* t_convert.c - type conversion between memory and file types: NC_ERANGE
 * (and what is stored anyway), NC_ECHAR for text <-> numbers, rounding. */
#include "nctest.h"

/* Create a dataset with one 3-element var of each listed type. */
static int make(const char *name, int *ncidp)
{
    int ncid, d, v, err;
    nc_type types[] = {NC_BYTE, NC_UBYTE, NC_SHORT, NC_USHORT, NC_INT, NC_UINT,
                       NC_INT64, NC_UINT64, NC_FLOAT, NC_DOUBLE, NC_CHAR, NC_STRING};
    const char *names[] = {"b", "ub", "s", "us", "i", "ui", "i64", "u64", "f", "d", "c", "str"};
    if ((err = nc_create(nct_url(name), NC_CLOBBER, &ncid))) return err;
    if ((err = nc_def_dim(ncid, "x", 3, &d))) return err;
    for (int i = 0; i < 12; i++)
        if ((err = nc_def_var(ncid, names[i], types[i], 1, &d, &v))) return err;
    if ((err = nc_enddef(ncid))) return err;
    *ncidp = ncid;
    return NC_NOERR;
}

static int vid(int ncid, const char *name)
{
    int v = -1;
    nc_inq_varid(ncid, name, &v);
    return v;
}

static void test_put_range(void)
{
    int ncid;
    CHECK(make("put", &ncid));
    int b = vid(ncid, "b"), ub = vid(ncid, "ub"), s = vid(ncid, "s"), us = vid(ncid, "us");
    int ui = vid(ncid, "ui"), f = vid(ncid, "f"), u64 = vid(ncid, "u64"), i = vid(ncid, "i");

    /* in range */
    int ok[3] = {-128, 0, 127};
    CHECK(nc_put_var_int(ncid, b, ok));
    /* one element out of range: NC_ERANGE, but all elements are written,
     * the bad one as the C conversion gives it (300 -> 44) */
    int bad[3] = {1, 300, -2};
    EXPECT_ERR(nc_put_var_int(ncid, b, bad), NC_ERANGE);
    signed char sb[3] = {0, 0, 0};
    CHECK(nc_get_var_schar(ncid, b, sb));
    EXPECT_EQ(sb[0], 1);
    EXPECT_EQ(sb[1], 44);
    EXPECT_EQ(sb[2], -2);

    /* negative into unsigned */
    int neg[3] = {-1, 5, 255};
    EXPECT_ERR(nc_put_var_int(ncid, ub, neg), NC_ERANGE);
    unsigned char ubb[3];
    CHECK(nc_get_var_uchar(ncid, ub, ubb));
    EXPECT_EQ(ubb[0], 255);
    EXPECT_EQ(ubb[1], 5);
    EXPECT_EQ(ubb[2], 255);
    long long negll[3] = {0, -5, 1};
    EXPECT_ERR(nc_put_var_longlong(ncid, u64, negll), NC_ERANGE);
    EXPECT_ERR(nc_put_var_int(ncid, ui, neg), NC_ERANGE);
    int usv[3] = {70000, 0, 65535};
    EXPECT_ERR(nc_put_var_int(ncid, us, usv), NC_ERANGE);

    /* uchar into byte (netCDF-3 allowed it without error; netCDF-4?) */
    unsigned char big[3] = {200, 1, 127};
    EXPECT_ERR(nc_put_var_uchar(ncid, b, big), NC_ERANGE);
    /* schar into ubyte */
    signed char negc[3] = {-1, 1, 2};
    EXPECT_ERR(nc_put_var_schar(ncid, ub, negc), NC_ERANGE);

    /* short range */
    double dv[3] = {32767.0, -32768.0, 40000.0};
    EXPECT_ERR(nc_put_var_double(ncid, s, dv), NC_ERANGE);
    short sv[3];
    CHECK(nc_get_var_short(ncid, s, sv));
    EXPECT_EQ(sv[0], 32767);
    EXPECT_EQ(sv[1], -32768);

    /* double -> float overflow */
    double huge[3] = {1e300, -1e300, 1.5};
    EXPECT_ERR(nc_put_var_double(ncid, f, huge), NC_ERANGE);
    float fv[3];
    CHECK(nc_get_var_float(ncid, f, fv));
    EXPECT_TRUE(isinf(fv[0]) && fv[0] > 0);
    EXPECT_TRUE(isinf(fv[1]) && fv[1] < 0);
    EXPECT_DBL(fv[2], 1.5f);
    /* FLT_MAX is in range; infinities count as out of range (inf >
     * FLT_MAX) but are stored as infinities */
    double edge[3] = {3.4028234663852886e38, -3.4028234663852886e38, 0};
    CHECK(nc_put_var_double(ncid, f, edge));
    CHECK(nc_get_var_float(ncid, f, fv));
    EXPECT_DBL(fv[0], FLT_MAX);
    EXPECT_DBL(fv[1], -FLT_MAX);
    double infs[3] = {INFINITY, -INFINITY, NAN};
    EXPECT_ERR(nc_put_var_double(ncid, f, infs), NC_ERANGE);
    CHECK(nc_get_var_float(ncid, f, fv));
    EXPECT_TRUE(isinf(fv[0]) && fv[0] > 0);
    EXPECT_TRUE(isinf(fv[1]) && fv[1] < 0);
    EXPECT_TRUE(isnan(fv[2]));
    /* NaN alone is not a range error */
    double nan1[3] = {NAN, 1, 2};
    CHECK(nc_put_var_double(ncid, f, nan1));

    /* double -> int: truncation toward zero */
    double frac[3] = {3.7, -3.7, 2147483647.0};
    CHECK(nc_put_var_double(ncid, i, frac));
    int iv[3];
    CHECK(nc_get_var_int(ncid, i, iv));
    EXPECT_EQ(iv[0], 3);
    EXPECT_EQ(iv[1], -3);
    EXPECT_EQ(iv[2], 2147483647);
    double over[3] = {2147483648.0, 0, 0};
    EXPECT_ERR(nc_put_var_double(ncid, i, over), NC_ERANGE);
    CHECK(nc_close(ncid));
}

static void test_get_range(void)
{
    int ncid;
    CHECK(make("get", &ncid));
    int i = vid(ncid, "i"), d = vid(ncid, "d"), i64 = vid(ncid, "i64"), u64 = vid(ncid, "u64");
    int iv[3] = {-5, 200, 70000};
    CHECK(nc_put_var_int(ncid, i, iv));
    CHECK(nc_close(ncid));
    CHECK(nc_open(nct_url("get"), NC_NOWRITE, &ncid));

    /* get_uchar of negative values: NC_ERANGE, values still converted */
    unsigned char uc[3] = {0, 0, 0};
    EXPECT_ERR(nc_get_var_uchar(ncid, i, uc), NC_ERANGE);
    EXPECT_EQ(uc[0], (unsigned char)-5);
    EXPECT_EQ(uc[1], 200);
    signed char sc[3];
    EXPECT_ERR(nc_get_var_schar(ncid, i, sc), NC_ERANGE);
    short sv[3];
    EXPECT_ERR(nc_get_var_short(ncid, i, sv), NC_ERANGE);
    EXPECT_EQ(sv[0], -5);
    EXPECT_EQ(sv[1], 200);
    /* only the elements asked for count */
    size_t st = 0, ct = 2;
    CHECK(nc_get_vara_short(ncid, i, &st, &ct, sv));
    ct = 1;
    CHECK(nc_get_vara_schar(ncid, i, &st, &ct, sc));
    EXPECT_EQ(sc[0], -5);
    double dv[3];
    CHECK(nc_get_var_double(ncid, i, dv));
    EXPECT_DBL(dv[2], 70000.0);
    CHECK(nc_close(ncid));

    CHECK(nc_open(nct_url("get"), NC_WRITE, &ncid));
    double big[3] = {1e300, 1e10, -1e39};
    CHECK(nc_put_var_double(ncid, d, big));
    float fv[3];
    EXPECT_ERR(nc_get_var_float(ncid, d, fv), NC_ERANGE);
    EXPECT_DBL(fv[1], 1e10f);
    int iv2[3];
    EXPECT_ERR(nc_get_var_int(ncid, d, iv2), NC_ERANGE);
    long long ll[3] = {LLONG_MIN, LLONG_MAX, 5};
    CHECK(nc_put_var_longlong(ncid, i64, ll));
    EXPECT_ERR(nc_get_var_int(ncid, i64, iv2), NC_ERANGE);
    EXPECT_EQ(iv2[2], 5);
    unsigned long long ull[3];
    EXPECT_ERR(nc_get_var_ulonglong(ncid, i64, ull), NC_ERANGE);
    unsigned long long u[3] = {ULLONG_MAX, 1, 0};
    CHECK(nc_put_var_ulonglong(ncid, u64, u));
    long long l2[3];
    EXPECT_ERR(nc_get_var_longlong(ncid, u64, l2), NC_ERANGE);
    EXPECT_EQ(l2[1], 1);
    double du[3];
    CHECK(nc_get_var_double(ncid, u64, du));
    EXPECT_DBL(du[0], 18446744073709551615.0);
    /* reading unwritten data into a narrower type: the default fill of a
     * ushort (65535) does not fit a short */
    short sfill[3];
    int us = vid(ncid, "us");
    EXPECT_ERR(nc_get_var_short(ncid, us, sfill), NC_ERANGE);
    EXPECT_EQ(sfill[0], -1);
    CHECK(nc_close(ncid));
}

static void test_char_conversions(void)
{
    int ncid;
    CHECK(make("char", &ncid));
    int c = vid(ncid, "c"), i = vid(ncid, "i"), str = vid(ncid, "str"), f = vid(ncid, "f");
    int iv[3] = {65, 66, 67};
    char text[4] = "abc";
    /* numbers into a char var and text into a numeric var */
    EXPECT_ERR(nc_put_var_int(ncid, c, iv), NC_ECHAR);
    EXPECT_ERR(nc_put_var_text(ncid, i, text), NC_ECHAR);
    EXPECT_ERR(nc_put_var_text(ncid, f, text), NC_ECHAR);
    CHECK(nc_put_var_text(ncid, c, text));
    EXPECT_ERR(nc_get_var_int(ncid, c, iv), NC_ECHAR);
    EXPECT_ERR(nc_get_var_text(ncid, i, text), NC_ECHAR);
    /* schar/uchar into char: also NC_ECHAR in netCDF-4 */
    signed char sc[3] = {1, 2, 3};
    EXPECT_ERR(nc_put_var_schar(ncid, c, sc), NC_ECHAR);
    unsigned char uc[3] = {1, 2, 3};
    EXPECT_ERR(nc_get_var_uchar(ncid, c, uc), NC_ECHAR);
    /* strings do not convert to or from anything else */
    EXPECT_ERR(nc_put_var_text(ncid, str, text), NC_ECHAR);
    /* string <-> number is NC_EBADTYPE, string <-> text NC_ECHAR */
    EXPECT_ERR(nc_put_var_int(ncid, str, iv), NC_EBADTYPE);
    EXPECT_ERR(nc_get_var_int(ncid, str, iv), NC_EBADTYPE);
    const char *sv[3] = {"a", "b", "c"};
    EXPECT_ERR(nc_put_var_string(ncid, i, sv), NC_EBADTYPE);
    EXPECT_ERR(nc_put_var_string(ncid, c, sv), NC_ECHAR);
    char got[4] = {0};
    CHECK(nc_get_var_text(ncid, c, got));
    EXPECT_STR(got, "abc");
    CHECK(nc_close(ncid));
}

static void test_att_conversions(void)
{
    int ncid;
    CHECK(nc_create(nct_url("atts"), NC_CLOBBER, &ncid));
    int v[2] = {300, 1};
    /* an out-of-range attribute value: NC_ERANGE, and the attribute is
     * still created with the converted values */
    EXPECT_ERR(nc_put_att_int(ncid, NC_GLOBAL, "b", NC_BYTE, 2, v), NC_ERANGE);
    signed char sb[2] = {0, 0};
    CHECK(nc_get_att_schar(ncid, NC_GLOBAL, "b", sb));
    EXPECT_EQ(sb[0], 44);
    EXPECT_EQ(sb[1], 1);
    double d[1] = {1e300};
    EXPECT_ERR(nc_put_att_double(ncid, NC_GLOBAL, "f", NC_FLOAT, 1, d), NC_ERANGE);
    int iv[2] = {-1, 70000};
    CHECK(nc_put_att_int(ncid, NC_GLOBAL, "i", NC_INT, 2, iv));
    short s[2];
    EXPECT_ERR(nc_get_att_short(ncid, NC_GLOBAL, "i", s), NC_ERANGE);
    EXPECT_EQ(s[0], -1);
    unsigned int u[2];
    EXPECT_ERR(nc_get_att_uint(ncid, NC_GLOBAL, "i", u), NC_ERANGE);
    double dd[2];
    CHECK(nc_get_att_double(ncid, NC_GLOBAL, "i", dd));
    EXPECT_DBL(dd[1], 70000.0);
    /* text <-> numbers */
    EXPECT_ERR(nc_put_att_int(ncid, NC_GLOBAL, "t", NC_CHAR, 1, iv), NC_ECHAR);
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "t", 2, "hi"));
    EXPECT_ERR(nc_get_att_int(ncid, NC_GLOBAL, "t", iv), NC_ECHAR);
    char txt[4];
    EXPECT_ERR(nc_get_att_text(ncid, NC_GLOBAL, "i", txt), NC_ECHAR);
    CHECK(nc_close(ncid));
}

int main(int argc, char **argv)
{
    nct_init(argc, argv);
    RUN(test_put_range);
    RUN(test_get_range);
    RUN(test_char_conversions);
    RUN(test_att_conversions);
    return nct_finish();
}
