/* t_reclaim.c - nc_reclaim_data / nc_reclaim_data_all (and nc_free_string)
 * on what the library hands out for NC_STRING data. Leaks and double
 * frees show up under AddressSanitizer/valgrind, not as failed checks. */
#include "nctest.h"

static void make(const char *url)
{
    int ncid, d, v;
    const char *vals[4] = {"one", "two", "three", "four"};
    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "n", 4, &d));
    CHECK(nc_def_var(ncid, "s", NC_STRING, 1, &d, &v));
    CHECK(nc_def_var(ncid, "i", NC_INT, 1, &d, &v));
    CHECK(nc_put_att_string(ncid, NC_GLOBAL, "names", 2, vals));
    CHECK(nc_enddef(ncid));
    CHECK(nc_put_var_string(ncid, 0, vals));
    CHECK(nc_close(ncid));
}

static void test_reclaim_strings(void)
{
    int ncid;
    const char *url = nct_url("strings");
    make(url);
    CHECK(nc_open(url, NC_NOWRITE, &ncid));

    /* nc_reclaim_data frees the strings, not the top-level array */
    char *r[4] = {NULL, NULL, NULL, NULL};
    CHECK(nc_get_var_string(ncid, 0, r));
    EXPECT_STR(r[2], "three");
    CHECK(nc_reclaim_data(ncid, NC_STRING, r, 4));

    /* nc_reclaim_data_all frees the top-level array too */
    char **h = malloc(4 * sizeof(char *));
    EXPECT_TRUE(h != NULL);
    if (h == NULL)
        return;
    CHECK(nc_get_var_string(ncid, 0, h));
    EXPECT_STR(h[3], "four");
    CHECK(nc_reclaim_data_all(ncid, NC_STRING, h, 4));

    /* attributes the same way */
    char *a[2] = {NULL, NULL};
    CHECK(nc_get_att_string(ncid, NC_GLOBAL, "names", a));
    EXPECT_STR(a[1], "two");
    CHECK(nc_reclaim_data(ncid, NC_STRING, a, 2));

    /* NULL elements are fine */
    char *withnull[3] = {NULL, strdup("x"), NULL};
    CHECK(nc_reclaim_data(ncid, NC_STRING, withnull, 3));

    /* count 0 and NULL memory */
    CHECK(nc_reclaim_data(ncid, NC_STRING, NULL, 0));
    CHECK(nc_reclaim_data_all(ncid, NC_STRING, NULL, 0));
    CHECK(nc_close(ncid));
}

static void test_reclaim_fixed(void)
{
    int ncid;
    const char *url = nct_url("fixed");
    make(url);
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    /* fixed-size types own no memory: nc_reclaim_data does nothing, and
     * nc_reclaim_data_all frees the array */
    int stack[4] = {1, 2, 3, 4};
    CHECK(nc_reclaim_data(ncid, NC_INT, stack, 4));
    EXPECT_EQ(stack[3], 4);
    int *heap = malloc(4 * sizeof(int));
    EXPECT_TRUE(heap != NULL);
    if (heap == NULL)
        return;
    CHECK(nc_get_var_int(ncid, 1, heap));
    CHECK(nc_reclaim_data_all(ncid, NC_INT, heap, 4));
    double *dh = malloc(2 * sizeof(double));
    CHECK(nc_reclaim_data_all(ncid, NC_DOUBLE, dh, 2));
    /* a bad type id */
    EXPECT_ERR(nc_reclaim_data(ncid, 77, stack, 4), NC_EBADTYPID);
    /* NULL memory with a nonzero count */
    EXPECT_ERR(nc_reclaim_data(ncid, NC_STRING, NULL, 2), NC_EINVAL);
    CHECK(nc_close(ncid));
    /* a closed dataset */
    char *r[1] = {NULL};
    EXPECT_ERR(nc_reclaim_data(ncid, NC_STRING, r, 1), NC_EBADID);
}

static void test_free_string_matches(void)
{
    int ncid;
    const char *url = nct_url("free");
    make(url);
    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    char *r[4];
    size_t st = 1, ct = 2;
    CHECK(nc_get_vara_string(ncid, 0, &st, &ct, r));
    EXPECT_STR(r[0], "two");
    EXPECT_STR(r[1], "three");
    CHECK(nc_free_string(2, r));
    /* what nc_inq_var_fill hands out for strings is freed the same way */
    char *fill = NULL;
    CHECK(nc_inq_var_fill(ncid, 0, NULL, &fill));
    CHECK(nc_reclaim_data(ncid, NC_STRING, &fill, 1));
    CHECK(nc_close(ncid));
}

int main(int argc, char **argv)
{
    nct_init(argc, argv);
    RUN(test_reclaim_strings);
    RUN(test_reclaim_fixed);
    RUN(test_free_string_matches);
    return nct_finish();
}
