/* t_cache.c - chunk cache settings: the global defaults and setters, and
 * the per-variable cache. */
#include "nctest.h"

#define MIB (1024 * 1024)

static void test_global_defaults(void)
{
    size_t size = 0, nelems = 0;
    float pre = -1;
    CHECK(nc_get_chunk_cache(&size, &nelems, &pre));
    EXPECT_EQ(size, 64 * MIB);
    EXPECT_EQ(nelems, 1000);
    EXPECT_DBL(pre, 0.75f);
    /* NULLs are ignored */
    CHECK(nc_get_chunk_cache(NULL, NULL, NULL));
}

static void test_var_defaults(void)
{
    int ncid, d, v;
    size_t size = 0, nelems = 0;
    float pre = -1;
    const char *url = nct_url("vardefault");
    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 10, &d));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &d, &v));
    CHECK(nc_get_var_chunk_cache(ncid, v, &size, &nelems, &pre));
    EXPECT_EQ(size, 64 * MIB);
    EXPECT_EQ(nelems, 1000);
    EXPECT_DBL(pre, 0.75f);
    CHECK(nc_close(ncid));
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_get_var_chunk_cache(ncid, v, &size, &nelems, &pre));
    EXPECT_EQ(size, 64 * MIB);
    EXPECT_EQ(nelems, 1000);
    EXPECT_DBL(pre, 0.75f);
    CHECK(nc_close(ncid));
}

static void test_var_set(void)
{
    int ncid, d, v, w;
    size_t size = 0, nelems = 0;
    float pre = -1;
    const char *url = nct_url("varset");
    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 100, &d));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &d, &v));
    CHECK(nc_def_var(ncid, "w", NC_INT, 1, &d, &w));
    CHECK(nc_set_var_chunk_cache(ncid, v, 1 * MIB, 7, 0.5f));
    CHECK(nc_get_var_chunk_cache(ncid, v, &size, &nelems, &pre));
    EXPECT_EQ(size, 1 * MIB);
    EXPECT_EQ(nelems, 7);
    EXPECT_DBL(pre, 0.5f);
    /* the other var is unaffected */
    CHECK(nc_get_var_chunk_cache(ncid, w, &size, &nelems, &pre));
    EXPECT_EQ(size, 64 * MIB);
    /* preemption must be in [0, 1] */
    EXPECT_ERR(nc_set_var_chunk_cache(ncid, v, 1 * MIB, 7, 1.5f), NC_EINVAL);
    EXPECT_ERR(nc_set_var_chunk_cache(ncid, v, 1 * MIB, 7, -0.1f), NC_EINVAL);
    CHECK(nc_set_var_chunk_cache(ncid, v, 0, 0, 0.0f));
    CHECK(nc_set_var_chunk_cache(ncid, v, 2 * MIB, 3, 1.0f));
    EXPECT_ERR(nc_set_var_chunk_cache(ncid, 9, 1 * MIB, 7, 0.5f), NC_ENOTVAR);
    EXPECT_ERR(nc_get_var_chunk_cache(ncid, 9, &size, &nelems, &pre), NC_ENOTVAR);
    EXPECT_ERR(nc_set_var_chunk_cache(ncid, NC_GLOBAL, 1 * MIB, 7, 0.5f), NC_ENOTVAR);
    CHECK(nc_get_var_chunk_cache(ncid, v, NULL, NULL, NULL));
    /* a small cache with many chunks still reads and writes correctly */
    size_t cs = 10;
    int x;
    CHECK(nc_def_var(ncid, "small", NC_INT, 1, &d, &x));
    CHECK(nc_def_var_chunking(ncid, x, NC_CHUNKED, &cs));
    CHECK(nc_set_var_chunk_cache(ncid, x, 40, 1, 0.75f));
    CHECK(nc_enddef(ncid));
    int vals[100], back[100], i, bad = 0;
    for (i = 0; i < 100; i++)
        vals[i] = i * 3;
    CHECK(nc_put_var_int(ncid, x, vals));
    CHECK(nc_get_var_int(ncid, x, back));
    EXPECT_MEM(back, vals, sizeof vals);
    CHECK(nc_close(ncid));

    /* not stored: a reopened var has the defaults again; setting it on a
     * read-only dataset is allowed */
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    CHECK(nc_get_var_chunk_cache(ncid, v, &size, &nelems, &pre));
    EXPECT_EQ(size, 64 * MIB);
    EXPECT_EQ(nelems, 1000);
    CHECK(nc_set_var_chunk_cache(ncid, x, 40, 1, 0.75f));
    CHECK(nc_get_var_int(ncid, x, back));
    for (i = 0; i < 100; i++)
        if (back[i] != i * 3)
            bad++;
    EXPECT_EQ(bad, 0);
    CHECK(nc_close(ncid));
}

static void test_global_set(void)
{
    int ncid, d, v;
    size_t size = 0, nelems = 0;
    float pre = -1;
    EXPECT_ERR(nc_set_chunk_cache(32 * MIB, 500, 1.01f), NC_EINVAL);
    EXPECT_ERR(nc_set_chunk_cache(32 * MIB, 500, -1.0f), NC_EINVAL);
    CHECK(nc_set_chunk_cache(32 * MIB, 500, 0.25f));
    CHECK(nc_get_chunk_cache(&size, &nelems, &pre));
    EXPECT_EQ(size, 32 * MIB);
    EXPECT_EQ(nelems, 500);
    EXPECT_DBL(pre, 0.25f);
    /* new vars start from the global settings */
    CHECK(nc_create(nct_url("globalset"), NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 10, &d));
    CHECK(nc_def_var(ncid, "v", NC_INT, 1, &d, &v));
    CHECK(nc_get_var_chunk_cache(ncid, v, &size, &nelems, &pre));
    EXPECT_EQ(size, 32 * MIB);
    EXPECT_EQ(nelems, 500);
    EXPECT_DBL(pre, 0.25f);
    CHECK(nc_close(ncid));
    /* back to the defaults */
    CHECK(nc_set_chunk_cache(64 * MIB, 1000, 0.75f));
}

int main(int argc, char **argv)
{
    nct_init(argc, argv);
    RUN(test_global_defaults);
    RUN(test_var_defaults);
    RUN(test_var_set);
    RUN(test_global_set);
    return nct_finish();
}
