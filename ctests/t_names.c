/* t_names.c - names and the caller's name buffers.
 *
 * Every buffer a name is returned in here is malloc'd with exactly
 * NC_MAX_NAME + 1 bytes, so that valgrind (scripts/run-ctests-valgrind.sh)
 * and AddressSanitizer see a single byte written past it.
 *
 * - A hand-written Zarr dataset whose attribute and dimension names are
 *   10 000 bytes long (a hostile .zattrs / _ARRAY_DIMENSIONS): every call
 *   that returns a name gives NC_NOERR with a name that fits, or
 *   NC_EMAXNAME with the buffer untouched (or the object is not shown at
 *   all); Debian's nccopy died with SIGSEGV on such a dataset. netcdf-c
 *   copies such names whole, past the buffer: skipped in reference mode.
 * - Names longer than NC_MAX_NAME given to the inquiry functions answer
 *   NC_EMAXNAME, as netcdf-c 4.10.1 does.
 * - A name of exactly NC_MAX_NAME bytes round-trips.
 */
#include "nctest.h"

#define LONGNAME 10000

/* A name buffer of exactly NC_MAX_NAME + 1 bytes, filled with a marker. */
static char *name_buffer(void)
{
    char *b = malloc(NC_MAX_NAME + 1);
    if (b == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(b, 0x5a, NC_MAX_NAME + 1);
    return b;
}

/* Whether nothing was written to a name buffer. */
static int untouched(const char *b)
{
    int i;
    for (i = 0; i <= NC_MAX_NAME; i++)
        if ((unsigned char)b[i] != 0x5a)
            return 0;
    return 1;
}

/* A call that returns a name gave either a name that fits (NUL-terminated
 * inside the buffer) or NC_EMAXNAME with the buffer untouched. */
#define EXPECT_NAME_OR_EMAXNAME(call, buf)                                                          \
    do {                                                                                            \
        int nct_n_ = (call);                                                                        \
        if (nct_n_ == NC_NOERR)                                                                     \
            EXPECT_TRUE(memchr((buf), 0, NC_MAX_NAME + 1) != NULL);                                 \
        else {                                                                                      \
            EXPECT_ERR(nct_n_, NC_EMAXNAME);                                                        \
            EXPECT_TRUE(untouched(buf));                                                            \
        }                                                                                           \
    } while (0)

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[NCT_MAXPATH + 64];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

/* `{"<c x LONGNAME>": <value>, <rest>}` and the like, malloc'd. */
static char *json_with_long_key(char c, const char *before, const char *after)
{
    size_t n = strlen(before) + LONGNAME + strlen(after) + 1;
    char *s = malloc(n);
    if (s == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    strcpy(s, before);
    memset(s + strlen(before), c, LONGNAME);
    strcpy(s + strlen(before) + LONGNAME, after);
    return s;
}

static void test_stored_names_longer_than_nc_max_name(void)
{
    char dir[NCT_MAXPATH - 64], vdir[NCT_MAXPATH], url[NCT_MAXPATH + 64];
    char *root_atts, *var_atts, *b;
    int ncid, natts, nvars, ndims, i, v, found_ok = 0;
    size_t len;

    if (nct_s3() != NULL || nct_skip_in_reference("netcdf-c copies a 10000-byte name into the 257-byte buffer"))
        return;
    /* Always a directory (the storage kind of the run does not matter). */
    snprintf(dir, sizeof dir, "%s/t_names_hostile.zarr", nct_dir);
    snprintf(vdir, sizeof vdir, "%s/v", dir);
    nct_rmtree(dir);
    nct_mkdirs(vdir);
    root_atts = json_with_long_key('A', "{\"", "\": \"v\", \"ok\": 1}");
    var_atts = json_with_long_key('D', "{\"_ARRAY_DIMENSIONS\": [\"", "\"], \"units\": \"m\"}");
    write_file(dir, ".zgroup", "{\"zarr_format\": 2}");
    write_file(dir, ".zattrs", root_atts);
    write_file(vdir, ".zarray",
               "{\"zarr_format\": 2, \"shape\": [3], \"chunks\": [3], \"dtype\": \"<i4\", "
               "\"compressor\": null, \"fill_value\": 0, \"order\": \"C\", \"filters\": null}");
    write_file(vdir, ".zattrs", var_atts);
    free(root_atts);
    free(var_atts);
    snprintf(url, sizeof url, "file://%s#mode=zarr,file", dir);

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    b = name_buffer();
    CHECK(nc_inq(ncid, &ndims, &nvars, &natts, NULL));
    for (i = 0; i < natts; i++) {
        memset(b, 0x5a, NC_MAX_NAME + 1);
        EXPECT_NAME_OR_EMAXNAME(nc_inq_attname(ncid, NC_GLOBAL, i, b), b);
        if (!untouched(b) && strcmp(b, "ok") == 0)
            found_ok = 1;
    }
    /* The attribute with an ordinary name is still there. */
    EXPECT_TRUE(found_ok);
    for (i = 0; i < ndims; i++) {
        memset(b, 0x5a, NC_MAX_NAME + 1);
        len = 7;
        EXPECT_NAME_OR_EMAXNAME(nc_inq_dim(ncid, i, b, &len), b);
        memset(b, 0x5a, NC_MAX_NAME + 1);
        EXPECT_NAME_OR_EMAXNAME(nc_inq_dimname(ncid, i, b), b);
    }
    for (v = 0; v < nvars; v++) {
        int nvatts = 0;
        memset(b, 0x5a, NC_MAX_NAME + 1);
        EXPECT_NAME_OR_EMAXNAME(nc_inq_varname(ncid, v, b), b);
        EXPECT_OK(nc_inq_varnatts(ncid, v, &nvatts));
        for (i = 0; i < nvatts; i++) {
            memset(b, 0x5a, NC_MAX_NAME + 1);
            EXPECT_NAME_OR_EMAXNAME(nc_inq_attname(ncid, v, i, b), b);
        }
    }
    /* A lookup by the stored name itself is NC_EMAXNAME, as in netcdf-c. */
    {
        char *key = json_with_long_key('A', "", "");
        EXPECT_ERR(nc_inq_attid(ncid, NC_GLOBAL, key, &i), NC_EMAXNAME);
        EXPECT_ERR(nc_inq_att(ncid, NC_GLOBAL, key, NULL, NULL), NC_EMAXNAME);
        memset(key, 'D', LONGNAME);
        EXPECT_ERR(nc_inq_dimid(ncid, key, &i), NC_EMAXNAME);
        free(key);
    }
    free(b);
    EXPECT_OK(nc_close(ncid));
    if (!nct_env_true("NCZ_TEST_KEEP"))
        nct_rmtree(dir);
}

static void test_lookups_longer_than_nc_max_name(void)
{
    char longname[301], *b;
    int ncid, dimid, varid, grpid, out = -7;
    size_t len = 7;
    nc_type t;

    memset(longname, 'x', 300);
    longname[300] = '\0';
    CHECK(nc_create(nct_url("lookups"), NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "d", 3, &dimid));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    CHECK(nc_def_grp(ncid, "g", &grpid));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "a", 1, "x"));
    EXPECT_ERR(nc_inq_dimid(ncid, longname, &out), NC_EMAXNAME);
    EXPECT_ERR(nc_inq_varid(ncid, longname, &out), NC_EMAXNAME);
    EXPECT_ERR(nc_inq_attid(ncid, NC_GLOBAL, longname, &out), NC_EMAXNAME);
    EXPECT_ERR(nc_inq_att(ncid, NC_GLOBAL, longname, &t, &len), NC_EMAXNAME);
    EXPECT_ERR(nc_inq_attlen(ncid, varid, longname, &len), NC_EMAXNAME);
    EXPECT_ERR(nc_get_att(ncid, NC_GLOBAL, longname, &out), NC_EMAXNAME);
    EXPECT_ERR(nc_inq_grp_ncid(ncid, longname, &out), NC_EMAXNAME);
    EXPECT_ERR(nc_inq_ncid(ncid, longname, &out), NC_EMAXNAME);
    EXPECT_ERR(nc_inq_grp_full_ncid(ncid, longname, &out), NC_EMAXNAME);
    EXPECT_ERR(nc_inq_typeid(ncid, longname, &out), NC_EMAXNAME);
    EXPECT_ERR(nc_rename_att(ncid, NC_GLOBAL, longname, "q"), NC_EMAXNAME);
    EXPECT_EQ(out, -7);
    EXPECT_EQ(len, 7);
    /* A bad ncid is reported before the name. */
    EXPECT_ERR(nc_inq_varid(0x7fff0000, longname, &out), NC_EBADID);
    /* A bad varid too. */
    EXPECT_ERR(nc_inq_attid(ncid, 77, longname, &out), NC_ENOTVAR);

    /* Names of exactly NC_MAX_NAME bytes round-trip through buffers of
     * NC_MAX_NAME + 1. (A variable of that name has no directory name a
     * file system takes, so the dataset is not stored: nc_abort.) */
    longname[NC_MAX_NAME] = '\0';
    CHECK(nc_def_var(ncid, longname, NC_INT, 1, &dimid, &varid));
    CHECK(nc_def_dim(ncid, longname, 2, &dimid));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, longname, 1, "y"));
    b = name_buffer();
    EXPECT_OK(nc_inq_varname(ncid, varid, b));
    EXPECT_STR(b, longname);
    memset(b, 0x5a, NC_MAX_NAME + 1);
    EXPECT_OK(nc_inq_dimname(ncid, dimid, b));
    EXPECT_STR(b, longname);
    memset(b, 0x5a, NC_MAX_NAME + 1);
    EXPECT_OK(nc_inq_attname(ncid, NC_GLOBAL, 1, b));
    EXPECT_STR(b, longname);
    EXPECT_OK(nc_inq_varid(ncid, longname, &out));
    EXPECT_EQ(out, varid);
    EXPECT_OK(nc_inq_dimid(ncid, longname, &out));
    EXPECT_EQ(out, dimid);
    free(b);
    EXPECT_OK(nc_abort(ncid));
}

int main(int argc, char **argv)
{
    nct_init(argc, argv);
    RUN(test_stored_names_longer_than_nc_max_name);
    RUN(test_lookups_longer_than_nc_max_name);
    return nct_finish();
}
