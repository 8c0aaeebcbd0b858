/* t_dims.c - dimensions: define, inquire, rename, unlimited dims, names,
 * visibility across groups. */
#include "nctest.h"

static void test_define_inquire(void)
{
    int ncid, x, y, t, ndims = -1, unlim = -2, id = -1;
    size_t len = 99;
    char name[NC_MAX_NAME + 1];
    const char *url = nct_url("basic");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 10, &x));
    CHECK(nc_def_dim(ncid, "y", 3, &y));
    CHECK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    EXPECT_EQ(x, 0);
    EXPECT_EQ(y, 1);
    EXPECT_EQ(t, 2);
    CHECK(nc_inq_ndims(ncid, &ndims));
    EXPECT_EQ(ndims, 3);
    CHECK(nc_inq_dim(ncid, x, name, &len));
    EXPECT_STR(name, "x");
    EXPECT_EQ(len, 10);
    CHECK(nc_inq_dimname(ncid, y, name));
    EXPECT_STR(name, "y");
    CHECK(nc_inq_dimlen(ncid, t, &len));
    EXPECT_EQ(len, 0);
    CHECK(nc_inq_dimid(ncid, "y", &id));
    EXPECT_EQ(id, y);
    CHECK(nc_inq_unlimdim(ncid, &unlim));
    EXPECT_EQ(unlim, t);
    /* NULL out-parameters are ignored */
    CHECK(nc_inq_dim(ncid, x, NULL, NULL));
    CHECK(nc_inq_dimid(ncid, "x", NULL));

    /* errors */
    EXPECT_ERR(nc_inq_dim(ncid, 3, name, &len), NC_EBADDIM);
    EXPECT_ERR(nc_inq_dim(ncid, -1, name, &len), NC_EBADDIM);
    EXPECT_ERR(nc_inq_dimlen(ncid, 42, &len), NC_EBADDIM);
    EXPECT_ERR(nc_inq_dimname(ncid, 42, name), NC_EBADDIM);
    EXPECT_ERR(nc_inq_dimid(ncid, "nope", &id), NC_EBADDIM);
    EXPECT_ERR(nc_def_dim(ncid, "x", 5, &id), NC_ENAMEINUSE);
    EXPECT_ERR(nc_def_dim(ncid, "t", NC_UNLIMITED, &id), NC_ENAMEINUSE);
    CHECK(nc_close(ncid));

    /* everything is there after reopening */
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_ndims(ncid, &ndims));
    EXPECT_EQ(ndims, 3);
    CHECK(nc_inq_dimid(ncid, "x", &id));
    EXPECT_EQ(id, 0);
    CHECK(nc_inq_dim(ncid, id, name, &len));
    EXPECT_STR(name, "x");
    EXPECT_EQ(len, 10);
    CHECK(nc_inq_dimid(ncid, "t", &id));
    EXPECT_EQ(id, 2);
    CHECK(nc_inq_dimlen(ncid, id, &len));
    EXPECT_EQ(len, 0);
    CHECK(nc_inq_unlimdim(ncid, &unlim));
    EXPECT_EQ(unlim, 2);
    EXPECT_ERR(nc_def_dim(ncid, "z", 1, &id), NC_EPERM);
    CHECK(nc_close(ncid));
}

static void test_unlimited(void)
{
    int ncid, a, b, c, n = -1, ids[4] = {-1, -1, -1, -1}, unlim = -2, varid;
    size_t len = 0;
    const char *url = nct_url("unlim");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    /* no unlimited dims yet */
    CHECK(nc_inq_unlimdim(ncid, &unlim));
    EXPECT_EQ(unlim, -1);
    CHECK(nc_inq_unlimdims(ncid, &n, NULL));
    EXPECT_EQ(n, 0);

    /* netCDF-4: several unlimited dims */
    CHECK(nc_def_dim(ncid, "a", NC_UNLIMITED, &a));
    CHECK(nc_def_dim(ncid, "fixed", 4, &b));
    CHECK(nc_def_dim(ncid, "c", NC_UNLIMITED, &c));
    CHECK(nc_inq_unlimdims(ncid, &n, ids));
    EXPECT_EQ(n, 2);
    EXPECT_EQ(ids[0], a);
    EXPECT_EQ(ids[1], c);
    CHECK(nc_inq_unlimdims(ncid, NULL, ids)); /* NULL count is allowed */
    CHECK(nc_inq_unlimdim(ncid, &unlim));
    EXPECT_EQ(unlim, a); /* the first one */

    /* a var on both unlimited dims; write a 2x3 block at (1,2) */
    int dims[2] = {a, c};
    CHECK(nc_def_var(ncid, "v", NC_INT, 2, dims, &varid));
    CHECK(nc_enddef(ncid));
    size_t start[2] = {1, 2}, count[2] = {2, 3};
    int data[6] = {1, 2, 3, 4, 5, 6};
    CHECK(nc_put_vara_int(ncid, varid, start, count, data));
    CHECK(nc_inq_dimlen(ncid, a, &len));
    EXPECT_EQ(len, 3);
    CHECK(nc_inq_dimlen(ncid, c, &len));
    EXPECT_EQ(len, 5);
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_unlimdims(ncid, &n, ids));
    EXPECT_EQ(n, 2);
    EXPECT_EQ(ids[0], a);
    EXPECT_EQ(ids[1], c);
    CHECK(nc_inq_dimlen(ncid, a, &len));
    EXPECT_EQ(len, 3);
    CHECK(nc_inq_dimlen(ncid, c, &len));
    EXPECT_EQ(len, 5);
    CHECK(nc_inq_dimlen(ncid, b, &len));
    EXPECT_EQ(len, 4);
    CHECK(nc_close(ncid));
}

static void test_names(void)
{
    int ncid, id, x;
    char longname[NC_MAX_NAME + 2];
    char name[NC_MAX_NAME + 1];

    CHECK(nc_create(nct_url("names"), NC_CLOBBER, &ncid));
    EXPECT_ERR(nc_def_dim(ncid, "", 1, &id), NC_EBADNAME);
    EXPECT_ERR(nc_def_dim(ncid, "a/b", 1, &id), NC_EBADNAME);
    EXPECT_ERR(nc_def_dim(ncid, "/a", 1, &id), NC_EBADNAME);
    EXPECT_ERR(nc_def_dim(ncid, "trailing ", 1, &id), NC_EBADNAME);
    EXPECT_ERR(nc_def_dim(ncid, "ctl\001x", 1, &id), NC_EBADNAME);
    EXPECT_ERR(nc_def_dim(ncid, " lead", 1, &id), NC_EBADNAME);
    EXPECT_ERR(nc_def_dim(ncid, NULL, 1, &id), NC_EINVAL);
    /* not valid UTF-8 */
    EXPECT_ERR(nc_def_dim(ncid, "bad\xff", 1, &id), NC_EBADNAME);
    /* too long */
    memset(longname, 'n', NC_MAX_NAME + 1);
    longname[NC_MAX_NAME + 1] = '\0';
    EXPECT_ERR(nc_def_dim(ncid, longname, 1, &id), NC_EMAXNAME);
    /* exactly NC_MAX_NAME is fine */
    longname[NC_MAX_NAME] = '\0';
    CHECK(nc_def_dim(ncid, longname, 1, &id));
    CHECK(nc_inq_dimname(ncid, id, name));
    EXPECT_STR(name, longname);

    /* legal names */
    CHECK(nc_def_dim(ncid, "_under", 1, &id));
    CHECK(nc_def_dim(ncid, "1digit", 1, &id));
    CHECK(nc_def_dim(ncid, "with space", 1, &id));
    CHECK(nc_def_dim(ncid, "dash-dot.plus+", 1, &id));
    CHECK(nc_def_dim(ncid, "caf\xc3\xa9", 2, &x)); /* UTF-8 "café" */
    CHECK(nc_def_dim(ncid, "Case", 1, &id));
    CHECK(nc_def_dim(ncid, "case", 1, &id)); /* names are case sensitive */
    CHECK(nc_close(ncid));

    CHECK(nc_open(nct_url("names"), NC_NOWRITE, &ncid));
    CHECK(nc_inq_dimid(ncid, "caf\xc3\xa9", &id));
    EXPECT_EQ(id, x);
    CHECK(nc_inq_dimid(ncid, "with space", &id));
    CHECK(nc_inq_dimid(ncid, "dash-dot.plus+", &id));
    CHECK(nc_inq_dimid(ncid, "case", &id));
    CHECK(nc_inq_dimid(ncid, longname, &id));
    CHECK(nc_close(ncid));
}

static void test_rename(void)
{
    int ncid, x, y, id = -1, varid, dimids[1] = {-1};
    char name[NC_MAX_NAME + 1];
    const char *url = nct_url("rename");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 2, &x));
    CHECK(nc_def_dim(ncid, "y", 3, &y));
    CHECK(nc_def_var(ncid, "v", NC_SHORT, 1, &y, &varid));
    CHECK(nc_rename_dim(ncid, x, "xx"));
    CHECK(nc_inq_dimname(ncid, x, name));
    EXPECT_STR(name, "xx");
    EXPECT_ERR(nc_inq_dimid(ncid, "x", &id), NC_EBADDIM);
    CHECK(nc_inq_dimid(ncid, "xx", &id));
    EXPECT_EQ(id, x);
    EXPECT_ERR(nc_rename_dim(ncid, x, "y"), NC_ENAMEINUSE);
    EXPECT_ERR(nc_rename_dim(ncid, x, "bad/name"), NC_EBADNAME);
    EXPECT_ERR(nc_rename_dim(ncid, 7, "q"), NC_EBADDIM);
    CHECK(nc_enddef(ncid));
    /* renaming in data mode is allowed (netCDF-4) */
    CHECK(nc_rename_dim(ncid, y, "yy"));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_WRITE, &ncid));
    CHECK(nc_inq_dimid(ncid, "xx", &id));
    EXPECT_EQ(id, x);
    CHECK(nc_inq_dimid(ncid, "yy", &id));
    EXPECT_EQ(id, y);
    EXPECT_ERR(nc_inq_dimid(ncid, "y", &id), NC_EBADDIM);
    CHECK(nc_inq_vardimid(ncid, varid, dimids));
    EXPECT_EQ(dimids[0], y);
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    EXPECT_ERR(nc_rename_dim(ncid, x, "zz"), NC_EPERM);
    CHECK(nc_close(ncid));
}

static void test_groups(void)
{
    int ncid, g1, g2, x, t, y, z, id = -1, n = -1, ids[8];
    size_t len;
    const char *url = nct_url("groups");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 2, &x));
    CHECK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    CHECK(nc_def_grp(ncid, "g1", &g1));
    CHECK(nc_def_dim(g1, "y", 3, &y));
    CHECK(nc_def_grp(g1, "g2", &g2));
    CHECK(nc_def_dim(g2, "z", NC_UNLIMITED, &z));
    /* dim ids are numbered across the whole file */
    EXPECT_EQ(x, 0);
    EXPECT_EQ(t, 1);
    EXPECT_EQ(y, 2);
    EXPECT_EQ(z, 3);
    /* a name used in a parent may be used again in a child */
    CHECK(nc_def_dim(g1, "x", 5, &id));
    EXPECT_EQ(id, 4);

    /* lookup walks up to the parents; the nearest wins */
    CHECK(nc_inq_dimid(g2, "y", &id));
    EXPECT_EQ(id, y);
    CHECK(nc_inq_dimid(g2, "t", &id));
    EXPECT_EQ(id, t);
    CHECK(nc_inq_dimid(g2, "x", &id));
    EXPECT_EQ(id, 4);
    CHECK(nc_inq_dimid(ncid, "x", &id));
    EXPECT_EQ(id, x);
    /* but never down into children */
    EXPECT_ERR(nc_inq_dimid(ncid, "y", &id), NC_EBADDIM);
    EXPECT_ERR(nc_inq_dimid(g1, "z", &id), NC_EBADDIM);
    /* a parent's dim can be inquired through the child */
    CHECK(nc_inq_dimlen(g2, x, &len));
    EXPECT_EQ(len, 2);
    CHECK(nc_inq_dimlen(g2, y, &len));
    EXPECT_EQ(len, 3);
    /* dim ids are file-wide: inquiring by id works from any group of the
     * file, even for a child's dim through the root (netcdf-c looks ids up
     * in the file's table, not by scope) */
    CHECK(nc_inq_dimlen(ncid, y, &len));
    EXPECT_EQ(len, 3);
    CHECK(nc_inq_dimlen(g1, z, &len));
    EXPECT_EQ(len, 0);

    /* nc_inq_ndims counts the group's own dims only */
    CHECK(nc_inq_ndims(g1, &n));
    EXPECT_EQ(n, 2);
    CHECK(nc_inq_ndims(g2, &n));
    EXPECT_EQ(n, 1);

    /* nc_inq_dimids with and without parents */
    CHECK(nc_inq_dimids(g2, &n, ids, 0));
    EXPECT_EQ(n, 1);
    EXPECT_EQ(ids[0], z);
    CHECK(nc_inq_dimids(g2, &n, ids, 1));
    EXPECT_EQ(n, 5);
    /* all of them, sorted by id (netcdf-c sorts the list) */
    EXPECT_EQ(ids[0], x);
    EXPECT_EQ(ids[1], t);
    EXPECT_EQ(ids[2], y);
    EXPECT_EQ(ids[3], z);
    EXPECT_EQ(ids[4], 4);
    CHECK(nc_inq_dimids(ncid, &n, ids, 1));
    EXPECT_EQ(n, 2);
    CHECK(nc_inq_dimids(g1, &n, NULL, 1));
    EXPECT_EQ(n, 4);

    /* unlimited dims are per group */
    CHECK(nc_inq_unlimdims(g2, &n, ids));
    EXPECT_EQ(n, 1);
    EXPECT_EQ(ids[0], z);
    CHECK(nc_inq_unlimdims(g1, &n, ids));
    EXPECT_EQ(n, 0);
    CHECK(nc_inq_unlimdims(ncid, &n, ids));
    EXPECT_EQ(n, 1);
    EXPECT_EQ(ids[0], t);

    /* a var in g2 using dims from all levels */
    int vdims[4] = {t, y, 4, z}, varid;
    CHECK(nc_def_var(g2, "v", NC_BYTE, 4, vdims, &varid));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_grp_ncid(ncid, "g1", &g1));
    CHECK(nc_inq_grp_ncid(g1, "g2", &g2));
    CHECK(nc_inq_dimids(g2, &n, ids, 1));
    EXPECT_EQ(n, 5);
    CHECK(nc_inq_dimid(g2, "x", &id));
    CHECK(nc_inq_dimlen(g2, id, &len));
    EXPECT_EQ(len, 5);
    CHECK(nc_inq_dimid(ncid, "x", &id));
    CHECK(nc_inq_dimlen(ncid, id, &len));
    EXPECT_EQ(len, 2);
    int rdims[4];
    char name[NC_MAX_NAME + 1];
    CHECK(nc_inq_varid(g2, "v", &varid));
    CHECK(nc_inq_vardimid(g2, varid, rdims));
    CHECK(nc_inq_dimname(g2, rdims[0], name));
    EXPECT_STR(name, "t");
    CHECK(nc_inq_dimname(g2, rdims[1], name));
    EXPECT_STR(name, "y");
    CHECK(nc_inq_dimname(g2, rdims[2], name));
    EXPECT_STR(name, "x");
    CHECK(nc_inq_dimlen(g2, rdims[2], &len));
    EXPECT_EQ(len, 5);
    CHECK(nc_inq_dimname(g2, rdims[3], name));
    EXPECT_STR(name, "z");
    CHECK(nc_inq_unlimdims(g2, &n, ids));
    EXPECT_EQ(n, 1);
    CHECK(nc_close(ncid));
}

static void test_def_in_data_mode(void)
{
    int ncid, id = -1;
    size_t len = 0;
    const char *url = nct_url("datamode");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "a", 1, &id));
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_WRITE, &ncid));
    CHECK(nc_def_dim(ncid, "b", 7, &id)); /* no nc_redef needed */
    EXPECT_EQ(id, 1);
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_inq_dimid(ncid, "b", &id));
    CHECK(nc_inq_dimlen(ncid, id, &len));
    EXPECT_EQ(len, 7);
    CHECK(nc_close(ncid));
}

static void test_big_len(void)
{
    int ncid, id = -1;
    size_t len = 0;
    CHECK(nc_create(nct_url("biglen"), NC_CLOBBER, &ncid));
    /* lengths beyond 32 bits are fine in netCDF-4 */
    CHECK(nc_def_dim(ncid, "huge", (size_t)1 << 40, &id));
    CHECK(nc_inq_dimlen(ncid, id, &len));
    EXPECT_EQ_U(len, (size_t)1 << 40);
    CHECK(nc_close(ncid));
    CHECK(nc_open(nct_url("biglen"), NC_NOWRITE, &ncid));
    CHECK(nc_inq_dimlen(ncid, id, &len));
    EXPECT_EQ_U(len, (size_t)1 << 40);
    CHECK(nc_close(ncid));
}

static void test_pure_zarr(void)
{
    int ncid, t, x, v, n = -1, id;
    size_t len = 0;
    const char *url = nct_zarr_url("purezarr");
    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "t", NC_UNLIMITED, &t));
    CHECK(nc_def_dim(ncid, "x", 4, &x));
    CHECK(nc_def_dim(ncid, "unused", 9, &id));
    int dims[2] = {t, x};
    CHECK(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &v));
    CHECK(nc_enddef(ncid));
    size_t st[2] = {0, 0}, ct[2] = {3, 4};
    float vals[12] = {0};
    CHECK(nc_put_vara_float(ncid, v, st, ct, vals));
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    /* Zarr has no unlimited dims and no free-standing dims: t comes back
     * as a fixed dim of its current length, "unused" is gone */
    CHECK(nc_inq_unlimdims(ncid, &n, NULL));
    EXPECT_EQ(n, 0);
    CHECK(nc_inq_ndims(ncid, &n));
    EXPECT_EQ(n, 2);
    CHECK(nc_inq_dimid(ncid, "t", &id));
    CHECK(nc_inq_dimlen(ncid, id, &len));
    EXPECT_EQ(len, 3);
    EXPECT_ERR(nc_inq_dimid(ncid, "unused", &id), NC_EBADDIM);
    CHECK(nc_close(ncid));
}

int main(int argc, char **argv)
{
    nct_init(argc, argv);
    RUN(test_define_inquire);
    RUN(test_unlimited);
    RUN(test_names);
    RUN(test_rename);
    RUN(test_groups);
    RUN(test_def_in_data_mode);
    RUN(test_big_len);
    RUN(test_pure_zarr);
    return nct_finish();
}
