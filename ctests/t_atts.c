/* t_atts.c - attributes: every type, multi-valued, text and strings,
 * inquiries, rename/delete, copy, _FillValue interplay, exact doubles,
 * virtual attributes. */
#include "nctest.h"

static const char *url_all(void) { return nct_url("alltypes"); }

static void write_all_types(int ncid, int varid)
{
    signed char b[3] = {-128, 0, 127};
    unsigned char ub[3] = {0, 128, 255};
    short s[2] = {-32768, 32767};
    unsigned short us[2] = {0, 65535};
    int i[3] = {INT_MIN, -1, INT_MAX};
    unsigned int ui[2] = {0, UINT_MAX};
    long long i64[3] = {LLONG_MIN, 0, LLONG_MAX};
    unsigned long long u64[2] = {0, ULLONG_MAX};
    float f[3] = {1.5f, -0.25f, 3.0e38f};
    double d[3] = {0.5, -2.0, 1.0e300};

    CHECK(nc_put_att_schar(ncid, varid, "b", NC_BYTE, 3, b));
    CHECK(nc_put_att_uchar(ncid, varid, "ub", NC_UBYTE, 3, ub));
    CHECK(nc_put_att_short(ncid, varid, "s", NC_SHORT, 2, s));
    CHECK(nc_put_att_ushort(ncid, varid, "us", NC_USHORT, 2, us));
    CHECK(nc_put_att_int(ncid, varid, "i", NC_INT, 3, i));
    CHECK(nc_put_att_uint(ncid, varid, "ui", NC_UINT, 2, ui));
    CHECK(nc_put_att_longlong(ncid, varid, "i64", NC_INT64, 3, i64));
    CHECK(nc_put_att_ulonglong(ncid, varid, "u64", NC_UINT64, 2, u64));
    CHECK(nc_put_att_float(ncid, varid, "f", NC_FLOAT, 3, f));
    CHECK(nc_put_att_double(ncid, varid, "d", NC_DOUBLE, 3, d));
    CHECK(nc_put_att_text(ncid, varid, "t", 5, "hello"));
    const char *strs[2] = {"one", "two two"};
    CHECK(nc_put_att_string(ncid, varid, "str", 2, strs));
}

static void check_all_types(int ncid, int varid)
{
    signed char b[3];
    unsigned char ub[3];
    short s[2];
    unsigned short us[2];
    int i[3];
    unsigned int ui[2];
    long long i64[3];
    unsigned long long u64[2];
    float f[3];
    double d[3];
    char t[16];
    char *strs[2] = {NULL, NULL};
    nc_type xt;
    size_t len;

    CHECK(nc_get_att_schar(ncid, varid, "b", b));
    EXPECT_EQ(b[0], -128);
    EXPECT_EQ(b[2], 127);
    CHECK(nc_inq_att(ncid, varid, "b", &xt, &len));
    EXPECT_EQ(xt, NC_BYTE);
    EXPECT_EQ(len, 3);
    CHECK(nc_get_att_uchar(ncid, varid, "ub", ub));
    EXPECT_EQ(ub[1], 128);
    EXPECT_EQ(ub[2], 255);
    CHECK(nc_inq_att(ncid, varid, "ub", &xt, &len));
    EXPECT_EQ(xt, NC_UBYTE);
    CHECK(nc_get_att_short(ncid, varid, "s", s));
    EXPECT_EQ(s[0], -32768);
    EXPECT_EQ(s[1], 32767);
    CHECK(nc_inq_att(ncid, varid, "s", &xt, &len));
    EXPECT_EQ(xt, NC_SHORT);
    EXPECT_EQ(len, 2);
    CHECK(nc_get_att_ushort(ncid, varid, "us", us));
    EXPECT_EQ(us[1], 65535);
    CHECK(nc_inq_atttype(ncid, varid, "us", &xt));
    EXPECT_EQ(xt, NC_USHORT);
    CHECK(nc_get_att_int(ncid, varid, "i", i));
    EXPECT_EQ(i[0], INT_MIN);
    EXPECT_EQ(i[1], -1);
    EXPECT_EQ(i[2], INT_MAX);
    CHECK(nc_inq_atttype(ncid, varid, "i", &xt));
    EXPECT_EQ(xt, NC_INT);
    CHECK(nc_get_att_uint(ncid, varid, "ui", ui));
    EXPECT_EQ_U(ui[1], UINT_MAX);
    CHECK(nc_inq_atttype(ncid, varid, "ui", &xt));
    EXPECT_EQ(xt, NC_UINT);
    CHECK(nc_get_att_longlong(ncid, varid, "i64", i64));
    EXPECT_EQ(i64[0], LLONG_MIN);
    EXPECT_EQ(i64[2], LLONG_MAX);
    CHECK(nc_inq_atttype(ncid, varid, "i64", &xt));
    EXPECT_EQ(xt, NC_INT64);
    CHECK(nc_get_att_ulonglong(ncid, varid, "u64", u64));
    EXPECT_EQ_U(u64[1], ULLONG_MAX);
    CHECK(nc_inq_atttype(ncid, varid, "u64", &xt));
    EXPECT_EQ(xt, NC_UINT64);
    CHECK(nc_get_att_float(ncid, varid, "f", f));
    EXPECT_DBL(f[0], 1.5f);
    EXPECT_DBL(f[1], -0.25f);
    EXPECT_DBL(f[2], 3.0e38f);
    CHECK(nc_inq_atttype(ncid, varid, "f", &xt));
    EXPECT_EQ(xt, NC_FLOAT);
    CHECK(nc_get_att_double(ncid, varid, "d", d));
    EXPECT_DBL(d[0], 0.5);
    EXPECT_DBL(d[1], -2.0);
    EXPECT_DBL(d[2], 1.0e300);
    CHECK(nc_inq_att(ncid, varid, "d", &xt, &len));
    EXPECT_EQ(xt, NC_DOUBLE);
    EXPECT_EQ(len, 3);
    memset(t, 0, sizeof t);
    CHECK(nc_get_att_text(ncid, varid, "t", t));
    EXPECT_STR(t, "hello");
    CHECK(nc_inq_att(ncid, varid, "t", &xt, &len));
    EXPECT_EQ(xt, NC_CHAR);
    EXPECT_EQ(len, 5);
    CHECK(nc_get_att_string(ncid, varid, "str", strs));
    EXPECT_STR(strs[0], "one");
    EXPECT_STR(strs[1], "two two");
    CHECK(nc_free_string(2, strs));
    CHECK(nc_inq_att(ncid, varid, "str", &xt, &len));
    EXPECT_EQ(xt, NC_STRING);
    EXPECT_EQ(len, 2);
    /* the generic nc_get_att gives the stored type */
    long long g64[3];
    CHECK(nc_get_att(ncid, varid, "i64", g64));
    EXPECT_EQ(g64[1], 0);
}

static void test_all_types(void)
{
    int ncid, dimid, varid, natts = -1;
    CHECK(nc_create(url_all(), NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 1, &dimid));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    write_all_types(ncid, NC_GLOBAL);
    write_all_types(ncid, varid);
    check_all_types(ncid, NC_GLOBAL);
    check_all_types(ncid, varid);
    CHECK(nc_close(ncid));

    CHECK(nc_open(url_all(), NC_NOWRITE, &ncid));
    check_all_types(ncid, NC_GLOBAL);
    check_all_types(ncid, varid);
    CHECK(nc_inq_natts(ncid, &natts));
    EXPECT_EQ(natts, 12);
    CHECK(nc_inq_varnatts(ncid, varid, &natts));
    EXPECT_EQ(natts, 12);
    CHECK(nc_close(ncid));
}

static void test_inquiries(void)
{
    int ncid, attid = -1, natts = -1;
    char name[NC_MAX_NAME + 1];
    nc_type xt;
    size_t len;
    int one = 1;

    CHECK(nc_create(nct_url("inq"), NC_CLOBBER, &ncid));
    CHECK(nc_put_att_int(ncid, NC_GLOBAL, "first", NC_INT, 1, &one));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "second", 3, "abc"));
    CHECK(nc_put_att_int(ncid, NC_GLOBAL, "third", NC_INT, 1, &one));
    CHECK(nc_inq_attid(ncid, NC_GLOBAL, "second", &attid));
    EXPECT_EQ(attid, 1);
    CHECK(nc_inq_attname(ncid, NC_GLOBAL, 2, name));
    EXPECT_STR(name, "third");
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, "second", &len));
    EXPECT_EQ(len, 3);
    CHECK(nc_inq_atttype(ncid, NC_GLOBAL, "second", &xt));
    EXPECT_EQ(xt, NC_CHAR);
    CHECK(nc_inq_natts(ncid, &natts));
    EXPECT_EQ(natts, 3);
    CHECK(nc_inq_att(ncid, NC_GLOBAL, "first", NULL, NULL));

    /* errors */
    EXPECT_ERR(nc_inq_attid(ncid, NC_GLOBAL, "nothere", &attid), NC_ENOTATT);
    EXPECT_ERR(nc_inq_att(ncid, NC_GLOBAL, "nothere", &xt, &len), NC_ENOTATT);
    EXPECT_ERR(nc_inq_attname(ncid, NC_GLOBAL, 3, name), NC_ENOTATT);
    EXPECT_ERR(nc_inq_attname(ncid, NC_GLOBAL, -1, name), NC_ENOTATT);
    EXPECT_ERR(nc_get_att_int(ncid, NC_GLOBAL, "nothere", &one), NC_ENOTATT);
    EXPECT_ERR(nc_inq_att(ncid, 5, "first", &xt, &len), NC_ENOTVAR);
    EXPECT_ERR(nc_put_att_int(ncid, 5, "x", NC_INT, 1, &one), NC_ENOTVAR);
    EXPECT_ERR(nc_put_att_int(ncid, NC_GLOBAL, "", NC_INT, 1, &one), NC_EBADNAME);
    EXPECT_ERR(nc_put_att_int(ncid, NC_GLOBAL, "a/b", NC_INT, 1, &one), NC_EBADNAME);
    EXPECT_ERR(nc_put_att_int(ncid, NC_GLOBAL, "bt", NC_NAT, 1, &one), NC_EBADTYPE);
    EXPECT_ERR(nc_put_att_int(ncid, NC_GLOBAL, "nodata", NC_INT, 2, NULL), NC_EINVAL);
    /* an attribute holding zero values */
    CHECK(nc_put_att_int(ncid, NC_GLOBAL, "empty", NC_INT, 0, NULL));
    CHECK(nc_inq_att(ncid, NC_GLOBAL, "empty", &xt, &len));
    EXPECT_EQ(xt, NC_INT);
    EXPECT_EQ(len, 0);
    CHECK(nc_close(ncid));
}

static void test_bad_type_leaves_no_att(void)
{
    int ncid, natts = -1, one = 1;
    nc_type xt;
    size_t len;
    const char *url = nct_url("badtype");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_put_att_int(ncid, NC_GLOBAL, "good", NC_INT, 1, &one));
    /* an unknown type id: NC_EBADTYPID here (nc_def_var says NC_EBADTYPE) */
    EXPECT_ERR(nc_put_att_int(ncid, NC_GLOBAL, "bt", 42, 1, &one), NC_EBADTYPID);
    /* A failed put must not leave anything behind. netcdf-c 4.10.1 adds
     * the attribute before it checks the type, so "bt" stays with type 42
     * and length 0, and nc_close then fails with NC_ENCZARR (-137). */
    KNOWN_WRONG_BEGIN("a failed nc_put_att with a bad type leaves a broken attribute; nc_close fails");
    CHECK(nc_inq_natts(ncid, &natts));
    EXPECT_EQ(natts, 1);
    EXPECT_ERR(nc_inq_att(ncid, NC_GLOBAL, "bt", &xt, &len), NC_ENOTATT);
    EXPECT_OK(nc_close(ncid));
    KNOWN_WRONG_END();
}

static void test_text(void)
{
    int ncid;
    char buf[64];
    size_t len = 99;
    nc_type xt;
    const char *utf8 = "gr\xc3\xbc\xc3\x9f dich \xe2\x82\xac \xf0\x9f\x98\x80"; /* grüß dich € 😀 */
    const char *lead = "\xc3\xbc" "ber";                                        /* über */
    const char *mid = "a\xc3\xa9z";                                             /* aéz */
    const char *trail = "gr\xc3\xbc";                                           /* grü */
    const char *esc = "say \"hi\" back\\sl\n\t";
    const char *url = nct_url("text");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "utf8", strlen(utf8), utf8));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "lead", strlen(lead), lead));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "mid", strlen(mid), mid));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "trail", strlen(trail), trail));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "withnul", 4, "ab\0c"));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "escapes", strlen(esc), esc));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "multi word text", 3, "a b"));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "quoted", 8, "\"quoted\""));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    memset(buf, 0, sizeof buf);
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "mid", buf));
    EXPECT_STR(buf, mid);
    memset(buf, 0, sizeof buf);
    CHECK(nc_inq_att(ncid, NC_GLOBAL, "escapes", &xt, &len));
    EXPECT_EQ(xt, NC_CHAR);
    EXPECT_EQ(len, strlen(esc));
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "escapes", buf));
    EXPECT_STR(buf, esc);
    memset(buf, 0, sizeof buf);
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "multi word text", buf));
    EXPECT_STR(buf, "a b");

    /* netcdf-c 4.10.1 writes "lead" as "ber" and "trail" as "gr" (its
     * JSON-convention lexer drops non-ASCII bytes at the start or end of
     * the text; "grüß dich € 😀" happens to survive) */
    KNOWN_WRONG_BEGIN("UTF-8 text attributes lose non-ASCII characters");
    memset(buf, 0, sizeof buf);
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, "utf8", &len));
    EXPECT_EQ(len, strlen(utf8));
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "utf8", buf));
    EXPECT_STR(buf, utf8);
    memset(buf, 0, sizeof buf);
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, "lead", &len));
    EXPECT_EQ(len, strlen(lead));
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "lead", buf));
    EXPECT_STR(buf, lead);
    memset(buf, 0, sizeof buf);
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, "trail", &len));
    EXPECT_EQ(len, strlen(trail));
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "trail", buf));
    EXPECT_STR(buf, trail);
    KNOWN_WRONG_END();

    /* netcdf-c 4.10.1 keeps text as a C string: it comes back as "ab" */
    KNOWN_WRONG_BEGIN("text attributes are cut at an embedded NUL");
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, "withnul", &len));
    EXPECT_EQ(len, 4);
    memset(buf, 0, sizeof buf);
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "withnul", buf));
    EXPECT_MEM(buf, "ab\0c", 4);
    KNOWN_WRONG_END();

    /* the text "\"quoted\"" is valid JSON, stored as a JSON string, and
     * netcdf-c reads it back without the quotes */
    KNOWN_WRONG_BEGIN("text attribute \"\\\"quoted\\\"\" reads back as \"quoted\"");
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, "quoted", &len));
    EXPECT_EQ(len, 8);
    memset(buf, 0, sizeof buf);
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "quoted", buf));
    EXPECT_STR(buf, "\"quoted\"");
    KNOWN_WRONG_END();
    CHECK(nc_close(ncid));
}

static void test_text_empty(void)
{
    int ncid;
    size_t len = 99;
    nc_type xt;
    const char *url = nct_url("text_empty");

    /* netcdf-c 4.10.1: nc_close of a dataset holding a zero-length text
     * attribute fails with -1, and the library's state is broken after
     * that (a later nc_close elsewhere crashed in ncz_sync_atts). */
    if (nct_skip_in_reference("an empty NC_CHAR attribute makes nc_close fail (-1)"))
        return;
    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "empty", 0, ""));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "other", 1, "x"));
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_att(ncid, NC_GLOBAL, "empty", &xt, &len));
    EXPECT_EQ(xt, NC_CHAR);
    EXPECT_EQ(len, 0);
    CHECK(nc_close(ncid));
}

/* netcdf-c 4.10.1 applies its "JSON convention" to NC_CHAR attributes: text
 * that parses as JSON is stored as that JSON value instead of as a string,
 * and reading turns it back into text. A JSON object or array is text again
 * in netcdf-c's spacing (", " and ": " in objects, "," in arrays), as the
 * NCZarr specification has it; a JSON scalar does not survive netcdf-c (our
 * library stores it as a string). */
static void test_text_json_convention(void)
{
    int ncid;
    char buf[64];
    size_t len = 0;
    const char *url = nct_url("jsonconv");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "num", 2, "42"));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "arr", 6, "[1, 2]"));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "obj", 8, "{\"a\": 1}"));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "truth", 4, "true"));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    /* a dict keeps its text */
    memset(buf, 0, sizeof buf);
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, "obj", &len));
    EXPECT_EQ(len, 8);
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "obj", buf));
    EXPECT_STR(buf, "{\"a\": 1}");

    KNOWN_WRONG_BEGIN("NC_CHAR attribute \"42\" is stored as JSON number 42 and reads back as \"4\"");
    memset(buf, 0, sizeof buf);
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, "num", &len));
    EXPECT_EQ(len, 2);
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "num", buf));
    EXPECT_STR(buf, "42");
    KNOWN_WRONG_END();

    /* an array is stored as a JSON array: text in netcdf-c's spacing */
    memset(buf, 0, sizeof buf);
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, "arr", &len));
    EXPECT_EQ(len, 5);
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "arr", buf));
    EXPECT_STR(buf, "[1,2]");

    KNOWN_WRONG_BEGIN("NC_CHAR attribute \"true\" is stored as JSON true");
    memset(buf, 0, sizeof buf);
    CHECK(nc_inq_attlen(ncid, NC_GLOBAL, "truth", &len));
    EXPECT_EQ(len, 4);
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "truth", buf));
    EXPECT_STR(buf, "true");
    KNOWN_WRONG_END();
    CHECK(nc_close(ncid));
}

static void test_strings(void)
{
    int ncid;
    char *one[1] = {NULL}, *many[4] = {NULL, NULL, NULL, NULL};
    nc_type xt;
    size_t len;
    const char *url = nct_url("strings");
    const char *single[1] = {"just one"};
    const char *multi[4] = {"a", "", "long string with \xc3\xa9 utf8", "d"};

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_put_att_string(ncid, NC_GLOBAL, "single", 1, single));
    CHECK(nc_put_att_string(ncid, NC_GLOBAL, "multi", 4, multi));
    /* text and strings do not convert into each other */
    char buf[32];
    EXPECT_ERR(nc_get_att_text(ncid, NC_GLOBAL, "single", buf), NC_ECHAR);
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_att(ncid, NC_GLOBAL, "single", &xt, &len));
    EXPECT_EQ(xt, NC_STRING);
    EXPECT_EQ(len, 1);
    CHECK(nc_get_att_string(ncid, NC_GLOBAL, "single", one));
    EXPECT_STR(one[0], "just one");
    CHECK(nc_free_string(1, one));
    CHECK(nc_inq_att(ncid, NC_GLOBAL, "multi", &xt, &len));
    EXPECT_EQ(xt, NC_STRING);
    EXPECT_EQ(len, 4);
    CHECK(nc_get_att_string(ncid, NC_GLOBAL, "multi", many));
    EXPECT_STR(many[0], "a");
    EXPECT_STR(many[1], "");
    EXPECT_STR(many[2], "long string with \xc3\xa9 utf8");
    EXPECT_STR(many[3], "d");
    CHECK(nc_free_string(4, many));
    EXPECT_ERR(nc_get_att_text(ncid, NC_GLOBAL, "multi", buf), NC_ECHAR);
    int iv;
    /* string -> number: NC_EBADTYPE (text -> number is NC_ECHAR) */
    EXPECT_ERR(nc_get_att_int(ncid, NC_GLOBAL, "multi", &iv), NC_EBADTYPE);
    CHECK(nc_close(ncid));
}

static void names_in_order(int ncid, int varid, const char **want, int n, int line)
{
    int natts = -1, i;
    char name[NC_MAX_NAME + 1];
    CHECK(nc_inq_varnatts(ncid, varid, &natts));
    nct_result(natts == n, __FILE__, line, "natts %d, expected %d", natts, n);
    for (i = 0; i < n && i < natts; i++) {
        CHECK(nc_inq_attname(ncid, varid, i, name));
        nct_result(strcmp(name, want[i]) == 0, __FILE__, line, "att %d is %s, expected %s", i, name,
                   want[i]);
    }
}

static void test_rename_delete(void)
{
    int ncid, dimid, varid, v = 1, attid = -1;
    const char *url = nct_url("rendel");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 2, &dimid));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    const char *names[5] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++) {
        v = i;
        CHECK(nc_put_att_int(ncid, varid, names[i], NC_INT, 1, &v));
    }
    CHECK(nc_rename_att(ncid, varid, "b", "bee"));
    CHECK(nc_inq_attid(ncid, varid, "bee", &attid));
    EXPECT_EQ(attid, 1); /* keeps its position */
    EXPECT_ERR(nc_rename_att(ncid, varid, "c", "a"), NC_ENAMEINUSE);
    EXPECT_ERR(nc_rename_att(ncid, varid, "zz", "y"), NC_ENOTATT);
    EXPECT_ERR(nc_rename_att(ncid, varid, "c", "bad/name"), NC_EBADNAME);
    CHECK(nc_del_att(ncid, varid, "c"));
    EXPECT_ERR(nc_del_att(ncid, varid, "c"), NC_ENOTATT);
    {
        const char *want[4] = {"a", "bee", "d", "e"};
        names_in_order(ncid, varid, want, 4, __LINE__);
    }
    CHECK(nc_inq_attid(ncid, varid, "d", &attid));
    EXPECT_EQ(attid, 2);
    CHECK(nc_enddef(ncid));
    /* rename and delete in data mode too */
    CHECK(nc_rename_att(ncid, varid, "a", "alpha"));
    CHECK(nc_del_att(ncid, varid, "d"));
    /* re-adding a deleted name appends it */
    v = 99;
    CHECK(nc_put_att_int(ncid, varid, "d", NC_INT, 1, &v));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_WRITE, &ncid));
    {
        const char *want[4] = {"alpha", "bee", "e", "d"};
        names_in_order(ncid, varid, want, 4, __LINE__);
    }
    CHECK(nc_get_att_int(ncid, varid, "bee", &v));
    EXPECT_EQ(v, 1);
    CHECK(nc_get_att_int(ncid, varid, "d", &v));
    EXPECT_EQ(v, 99);
    /* overwriting an attribute keeps its position and may change its type */
    double dv = 2.5;
    CHECK(nc_put_att_double(ncid, varid, "alpha", NC_DOUBLE, 1, &dv));
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    {
        const char *want[4] = {"alpha", "bee", "e", "d"};
        names_in_order(ncid, varid, want, 4, __LINE__);
    }
    nc_type xt;
    CHECK(nc_inq_atttype(ncid, varid, "alpha", &xt));
    EXPECT_EQ(xt, NC_DOUBLE);
    EXPECT_ERR(nc_del_att(ncid, varid, "e"), NC_EPERM);
    EXPECT_ERR(nc_rename_att(ncid, varid, "e", "f"), NC_EPERM);
    CHECK(nc_close(ncid));
}

static void test_copy_att(void)
{
    int src, dst, dimid, sv, dv;
    const char *surl = nct_url("copy_src"), *durl = nct_url("copy_dst");
    double vals[2] = {1.25, -8};
    const char *strs[2] = {"x", "yy"};

    CHECK(nc_create(surl, NC_CLOBBER, &src));
    CHECK(nc_def_dim(src, "x", 1, &dimid));
    CHECK(nc_def_var(src, "v", NC_FLOAT, 1, &dimid, &sv));
    CHECK(nc_put_att_double(src, sv, "scale", NC_DOUBLE, 2, vals));
    CHECK(nc_put_att_string(src, NC_GLOBAL, "names", 2, strs));
    CHECK(nc_put_att_text(src, NC_GLOBAL, "title", 4, "copy"));
    CHECK(nc_enddef(src));

    CHECK(nc_create(durl, NC_CLOBBER, &dst));
    CHECK(nc_def_dim(dst, "x", 1, &dimid));
    CHECK(nc_def_var(dst, "w", NC_FLOAT, 1, &dimid, &dv));
    CHECK(nc_copy_att(src, sv, "scale", dst, dv));
    CHECK(nc_copy_att(src, NC_GLOBAL, "names", dst, NC_GLOBAL));
    CHECK(nc_copy_att(src, NC_GLOBAL, "title", dst, dv)); /* global -> var */
    EXPECT_ERR(nc_copy_att(src, NC_GLOBAL, "nothere", dst, NC_GLOBAL), NC_ENOTATT);
    /* within the same dataset */
    CHECK(nc_copy_att(src, sv, "scale", src, NC_GLOBAL));
    CHECK(nc_close(src));
    CHECK(nc_close(dst));

    CHECK(nc_open(durl, NC_NOWRITE, &dst));
    double back[2] = {0, 0};
    CHECK(nc_get_att_double(dst, dv, "scale", back));
    EXPECT_DBL(back[0], 1.25);
    EXPECT_DBL(back[1], -8);
    char *sb[2] = {NULL, NULL};
    CHECK(nc_get_att_string(dst, NC_GLOBAL, "names", sb));
    EXPECT_STR(sb[0], "x");
    EXPECT_STR(sb[1], "yy");
    CHECK(nc_free_string(2, sb));
    char t[8] = {0};
    CHECK(nc_get_att_text(dst, dv, "title", t));
    EXPECT_STR(t, "copy");
    CHECK(nc_close(dst));
    CHECK(nc_open(surl, NC_NOWRITE, &src));
    CHECK(nc_get_att_double(src, NC_GLOBAL, "scale", back));
    EXPECT_DBL(back[0], 1.25);
    CHECK(nc_close(src));
}

static void test_fillvalue_att(void)
{
    int ncid, dimid, v, w, s, nofill = -1, fill = 0;
    short sf = -1;
    double dfill = 1.0;
    const char *url = nct_url("fillatt");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 3, &dimid));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &v));
    CHECK(nc_def_var(ncid, "w", NC_SHORT, 1, &dimid, &w));
    CHECK(nc_def_var(ncid, "s", NC_STRING, 1, &dimid, &s));

    /* The attribute's type must be the var's type (netCDF-4/HDF5 and the
     * API docs: NC_EBADTYPE, "Not a valid data type or _FillValue type
     * mismatch"). netcdf-c 4.10.1's NCZarr dropped that check: it accepts
     * the value, converts it to the var's type for the fill, and keeps the
     * attribute in the type given -- and overruns the fill buffer while
     * doing so (valgrind: invalid write in NC_copy_data from ncz_put_att),
     * so the calls are not made in the reference run. */
    if (!nct_skip_in_reference("a _FillValue of another type overruns a heap buffer in netcdf-c")) {
        fill = 300;
        EXPECT_ERR(nc_put_att_int(ncid, w, "_FillValue", NC_INT, 1, &fill), NC_EBADTYPE);
        EXPECT_ERR(nc_put_att_double(ncid, v, "_FillValue", NC_DOUBLE, 1, &dfill), NC_EBADTYPE);
    }
    /* exactly one value */
    int two[2] = {1, 2};
    EXPECT_ERR(nc_put_att_int(ncid, v, "_FillValue", NC_INT, 2, two), NC_EINVAL);
    EXPECT_ERR(nc_put_att_int(ncid, v, "_FillValue", NC_INT, 0, two), NC_EINVAL);

    /* putting _FillValue sets the var's fill value */
    fill = 17;
    CHECK(nc_put_att_int(ncid, v, "_FillValue", NC_INT, 1, &fill));
    fill = 0;
    CHECK(nc_inq_var_fill(ncid, v, &nofill, &fill));
    EXPECT_EQ(nofill, 0);
    EXPECT_EQ(fill, 17);
    /* the memory type may differ as long as the file type is the var's */
    fill = 17;
    CHECK(nc_put_att_int(ncid, w, "_FillValue", NC_SHORT, 1, &fill));
    CHECK(nc_inq_var_fill(ncid, w, NULL, &sf));
    EXPECT_EQ(sf, 17);
    nc_type xt;
    CHECK(nc_inq_atttype(ncid, w, "_FillValue", &xt));
    EXPECT_EQ(xt, NC_SHORT);
    /* deleting the attribute does not change the fill value in effect
     * (netcdf-c's NCZarr and HDF5 code alike leave var->fill_value alone) */
    CHECK(nc_del_att(ncid, w, "_FillValue"));
    CHECK(nc_inq_var_fill(ncid, w, NULL, &sf));
    EXPECT_EQ(sf, 17);
    /* a global _FillValue is just an attribute, of any type */
    CHECK(nc_put_att_double(ncid, NC_GLOBAL, "_FillValue", NC_DOUBLE, 1, &dfill));
    /* string fill value */
    const char *sfill[1] = {"N/A"};
    CHECK(nc_put_att_string(ncid, s, "_FillValue", 1, sfill));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_WRITE, &ncid));
    CHECK(nc_inq_var_fill(ncid, v, &nofill, &fill));
    EXPECT_EQ(nofill, 0);
    EXPECT_EQ(fill, 17);
    int att = 0;
    CHECK(nc_get_att_int(ncid, v, "_FillValue", &att));
    EXPECT_EQ(att, 17);
    int data[3] = {0, 0, 0};
    CHECK(nc_get_var_int(ncid, v, data));
    EXPECT_EQ(data[0], 17);
    EXPECT_EQ(data[2], 17);
    /* the deleted attribute stays deleted, the fill stays 17 */
    CHECK(nc_inq_var_fill(ncid, w, NULL, &sf));
    EXPECT_EQ(sf, 17);
    EXPECT_ERR(nc_get_att_short(ncid, w, "_FillValue", &sf), NC_ENOTATT);
    short sdata[3] = {0, 0, 0};
    CHECK(nc_get_var_short(ncid, w, sdata));
    EXPECT_EQ(sdata[1], 17);
    CHECK(nc_get_att_double(ncid, NC_GLOBAL, "_FillValue", &dfill));
    EXPECT_DBL(dfill, 1.0);
    char *sb[1] = {NULL};
    CHECK(nc_inq_var_fill(ncid, s, NULL, sb));
    EXPECT_STR(sb[0], "N/A");
    CHECK(nc_free_string(1, sb));
    /* the string _FillValue attribute itself */
    int snatts = -1;
    CHECK(nc_inq_varnatts(ncid, s, &snatts));
    EXPECT_EQ(snatts, 1);
    sb[0] = NULL;
    CHECK(nc_get_att_string(ncid, s, "_FillValue", sb));
    EXPECT_STR(sb[0], "N/A");
    CHECK(nc_free_string(1, sb));
    char *strs[3] = {NULL, NULL, NULL};
    CHECK(nc_get_var_string(ncid, s, strs));
    EXPECT_STR(strs[0], "N/A");
    CHECK(nc_free_string(3, strs));
    CHECK(nc_close(ncid));
}

static void test_latefill(void)
{
    int ncid, dimid, v, fill = 17;
    size_t len = 0;
    const char *url = nct_url("latefill");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 3, &dimid));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &v));
    CHECK(nc_put_att_int(ncid, v, "_FillValue", NC_INT, 1, &fill));
    CHECK(nc_enddef(ncid));
    /* too late once enddef made the var */
    fill = 5;
    EXPECT_ERR(nc_put_att_int(ncid, v, "_FillValue", NC_INT, 1, &fill), NC_ELATEFILL);
    /* The refused put must leave the attribute as it was. netcdf-c 4.10.1
     * has already detached the old value when it notices, so the attribute
     * is left with no data and nc_close segfaults in ncz_sync_atts. */
    if (nct_skip_in_reference("nc_close after an NC_ELATEFILL _FillValue put segfaults")) {
        nc_abort(ncid);
        return;
    }
    fill = 0;
    CHECK(nc_inq_attlen(ncid, v, "_FillValue", &len));
    EXPECT_EQ(len, 1);
    CHECK(nc_get_att_int(ncid, v, "_FillValue", &fill));
    EXPECT_EQ(fill, 17);
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_WRITE, &ncid));
    fill = 5;
    EXPECT_ERR(nc_put_att_int(ncid, v, "_FillValue", NC_INT, 1, &fill), NC_ELATEFILL);
    CHECK(nc_get_att_int(ncid, v, "_FillValue", &fill));
    EXPECT_EQ(fill, 17);
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_var_fill(ncid, v, NULL, &fill));
    EXPECT_EQ(fill, 17);
    CHECK(nc_close(ncid));
}

static void test_exact_doubles(void)
{
    int ncid, dimid, varid;
    const char *url = nct_url("doubles");
    double vals[4] = {1.0 / 3.0, 1e-300, 3.141592653589793, -0.1};
    float fvals[2] = {1.0f / 3.0f, 16777215.0f};
    double back[4] = {0, 0, 0, 0};
    float fback[2] = {0, 0};

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 2, &dimid));
    CHECK(nc_def_var(ncid, "v", NC_DOUBLE, 1, &dimid, &varid));
    CHECK(nc_put_att_double(ncid, NC_GLOBAL, "d", NC_DOUBLE, 4, vals));
    CHECK(nc_put_att_float(ncid, NC_GLOBAL, "f", NC_FLOAT, 2, fvals));
    CHECK(nc_def_var_fill(ncid, varid, NC_FILL, &vals[2]));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_get_att_double(ncid, NC_GLOBAL, "d", back));
    CHECK(nc_get_att_float(ncid, NC_GLOBAL, "f", fback));
    double fill = 0, data[2] = {0, 0};
    CHECK(nc_inq_var_fill(ncid, varid, NULL, &fill));
    CHECK(nc_get_var_double(ncid, varid, data));
    /* netcdf-c 4.10.1 formats float/double attribute values and fill_value
     * with "%lg" (6 significant digits): 1/3 comes back as 0.333333,
     * 3.141592653589793 as 3.14159. A value must survive a round trip. */
    KNOWN_WRONG_BEGIN("float/double attributes and fill values are written with 6 significant digits");
    EXPECT_DBL(back[0], 1.0 / 3.0);
    EXPECT_DBL(back[1], 1e-300);
    EXPECT_DBL(back[2], 3.141592653589793);
    EXPECT_DBL(back[3], -0.1);
    EXPECT_DBL(fback[0], 1.0f / 3.0f);
    EXPECT_DBL(fback[1], 16777215.0f);
    EXPECT_DBL(fill, 3.141592653589793);
    EXPECT_DBL(data[0], 3.141592653589793);
    KNOWN_WRONG_END();
    /* what survives anyway */
    EXPECT_TRUE(fabs(back[0] - 1.0 / 3.0) < 1e-6);
    EXPECT_TRUE(fabs(back[2] - 3.141592653589793) < 1e-5);
    CHECK(nc_close(ncid));
}

static void test_special_values(void)
{
    int ncid;
    const char *url = nct_url("special");
    double d[4] = {NAN, INFINITY, -INFINITY, -0.0};
    float f[3] = {NAN, INFINITY, -INFINITY};
    double back[4] = {0, 0, 0, 1};
    float fback[3] = {0, 0, 0};

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_put_att_double(ncid, NC_GLOBAL, "d", NC_DOUBLE, 4, d));
    CHECK(nc_put_att_float(ncid, NC_GLOBAL, "f", NC_FLOAT, 3, f));
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_get_att_double(ncid, NC_GLOBAL, "d", back));
    EXPECT_TRUE(isnan(back[0]));
    EXPECT_TRUE(isinf(back[1]) && back[1] > 0);
    EXPECT_TRUE(isinf(back[2]) && back[2] < 0);
    EXPECT_DBL(back[3], 0.0);
    CHECK(nc_get_att_float(ncid, NC_GLOBAL, "f", fback));
    EXPECT_TRUE(isnan(fback[0]));
    EXPECT_TRUE(isinf(fback[1]) && fback[1] > 0);
    EXPECT_TRUE(isinf(fback[2]) && fback[2] < 0);
    CHECK(nc_close(ncid));
}

static void test_virtual_atts(void)
{
    int ncid, natts = -1, v = -1, dimid, varid;
    char buf[256];
    size_t len = 0;
    nc_type xt = NC_NAT;
    const char *url = nct_url("virtual");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 1, &dimid));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 2, "hi"));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_WRITE, &ncid));
    /* not counted, not listed */
    CHECK(nc_inq_natts(ncid, &natts));
    EXPECT_EQ(natts, 1);
    CHECK(nc_inq_attname(ncid, NC_GLOBAL, 0, buf));
    EXPECT_STR(buf, "title");
    EXPECT_ERR(nc_inq_attname(ncid, NC_GLOBAL, 1, buf), NC_ENOTATT);

    /* but readable by name */
    CHECK(nc_inq_att(ncid, NC_GLOBAL, "_NCProperties", &xt, &len));
    EXPECT_EQ(xt, NC_CHAR);
    memset(buf, 0, sizeof buf);
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "_NCProperties", buf));
    EXPECT_EQ(strlen(buf), len);
    EXPECT_TRUE(strncmp(buf, "version=2,netcdf=", 17) == 0);
    EXPECT_TRUE(strstr(buf, ",nczarr=2.0.0") != NULL);
    CHECK(nc_inq_att(ncid, NC_GLOBAL, "_IsNetcdf4", &xt, &len));
    EXPECT_EQ(xt, NC_INT);
    EXPECT_EQ(len, 1);
    CHECK(nc_get_att_int(ncid, NC_GLOBAL, "_IsNetcdf4", &v));
    EXPECT_EQ(v, 1);
    CHECK(nc_inq_att(ncid, NC_GLOBAL, "_SuperblockVersion", &xt, &len));
    EXPECT_EQ(xt, NC_INT);
    EXPECT_EQ(len, 1);
    CHECK(nc_get_att_int(ncid, NC_GLOBAL, "_SuperblockVersion", &v));
    EXPECT_EQ(v, 2);
    /* the hidden NCZarr bookkeeping attributes are not visible */
    EXPECT_ERR(nc_inq_att(ncid, NC_GLOBAL, "_nczarr_group", &xt, &len), NC_ENOTATT);
    EXPECT_ERR(nc_inq_att(ncid, NC_GLOBAL, "_nczarr_superblock", &xt, &len), NC_ENOTATT);
    EXPECT_ERR(nc_inq_att(ncid, NC_GLOBAL, "_nczarr_attr", &xt, &len), NC_ENOTATT);
    EXPECT_ERR(nc_inq_att(ncid, varid, "_ARRAY_DIMENSIONS", &xt, &len), NC_ENOTATT);
    EXPECT_ERR(nc_inq_att(ncid, varid, "_nczarr_array", &xt, &len), NC_ENOTATT);
    /* they have no attribute number */
    int attid = -1;
    EXPECT_ERR(nc_inq_attid(ncid, NC_GLOBAL, "_NCProperties", &attid), NC_EATTMETA);
    EXPECT_ERR(nc_inq_attid(ncid, NC_GLOBAL, "_IsNetcdf4", &attid), NC_EATTMETA);
    /* not on variables: netcdf-c 4.10.1 returns NC_NOERR there and leaves
     * the out-parameters unset (ncz_get_att_special skips the var case) */
    KNOWN_WRONG_BEGIN("nc_inq_att(var, \"_NCProperties\") succeeds without output");
    EXPECT_ERR(nc_inq_att(ncid, varid, "_NCProperties", &xt, &len), NC_ENOTATT);
    KNOWN_WRONG_END();
    /* no filters, so no _Codecs */
    EXPECT_ERR(nc_inq_att(ncid, varid, "_Codecs", &xt, &len), NC_ENOTATT);

    /* they cannot be written or deleted */
    int one = 1;
    EXPECT_ERR(nc_put_att_text(ncid, NC_GLOBAL, "_NCProperties", 1, "x"), NC_ENAMEINUSE);
    EXPECT_ERR(nc_put_att_int(ncid, NC_GLOBAL, "_IsNetcdf4", NC_INT, 1, &one), NC_ENAMEINUSE);
    EXPECT_ERR(nc_put_att_int(ncid, NC_GLOBAL, "_SuperblockVersion", NC_INT, 1, &one), NC_ENAMEINUSE);
    EXPECT_ERR(nc_del_att(ncid, NC_GLOBAL, "_NCProperties"), NC_ENOTATT);
    EXPECT_ERR(nc_del_att(ncid, NC_GLOBAL, "_IsNetcdf4"), NC_ENOTATT);
    EXPECT_ERR(nc_put_att_text(ncid, varid, "_ARRAY_DIMENSIONS", 1, "x"), NC_ENAMEINUSE);
    EXPECT_ERR(nc_put_att_text(ncid, varid, "_nczarr_array", 1, "x"), NC_ENAMEINUSE);
    CHECK(nc_close(ncid));

    /* Renaming a user attribute to a reserved name must be refused like
     * nc_put_att. netcdf-c 4.10.1 allows it (no reserved-name check in
     * rename). */
    CHECK(nc_open(url, NC_WRITE, &ncid));
    KNOWN_WRONG_BEGIN("nc_rename_att to \"_NCProperties\" is allowed");
    EXPECT_ERR(nc_rename_att(ncid, NC_GLOBAL, "title", "_NCProperties"), NC_ENAMEINUSE);
    KNOWN_WRONG_END();
    CHECK(nc_abort(ncid));
}

static void test_virtual_atts_in_groups(void)
{
    int ncid, g, v = -1;
    char buf[256], rootbuf[256];
    const char *url = nct_url("virtual_grp");
    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_grp(ncid, "g", &g));
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_WRITE, &ncid));
    CHECK(nc_inq_grp_ncid(ncid, "g", &g));
    /* they are file properties: readable through any group */
    memset(buf, 0, sizeof buf);
    memset(rootbuf, 0, sizeof rootbuf);
    CHECK(nc_get_att_text(ncid, NC_GLOBAL, "_NCProperties", rootbuf));
    CHECK(nc_get_att_text(g, NC_GLOBAL, "_NCProperties", buf));
    EXPECT_STR(buf, rootbuf);
    CHECK(nc_get_att_int(g, NC_GLOBAL, "_IsNetcdf4", &v));
    EXPECT_EQ(v, 1);
    int natts = -1;
    CHECK(nc_inq_natts(g, &natts));
    EXPECT_EQ(natts, 0);
    /* and in a child group the names are not reserved for writing */
    int one = 1;
    CHECK(nc_put_att_int(g, NC_GLOBAL, "_IsNetcdf4", NC_INT, 1, &one));
    CHECK(nc_close(ncid));
}

int main(int argc, char **argv)
{
    nct_init(argc, argv);
    RUN(test_all_types);
    RUN(test_inquiries);
    RUN(test_bad_type_leaves_no_att);
    RUN(test_text);
    RUN(test_text_empty);
    RUN(test_text_json_convention);
    RUN(test_strings);
    RUN(test_rename_delete);
    RUN(test_copy_att);
    RUN(test_fillvalue_att);
    RUN(test_latefill);
    RUN(test_exact_doubles);
    RUN(test_special_values);
    RUN(test_virtual_atts);
    RUN(test_virtual_atts_in_groups);
    return nct_finish();
}
