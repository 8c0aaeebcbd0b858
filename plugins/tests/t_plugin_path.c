/* The plugin-path API of netcdf-c 4.9.3+ (netcdf_filter.h) and its list
 * helpers (netcdf_aux.h), as netcdf-c 4.10.1 behaves. Run with
 * HDF5_PLUGIN_PATH="/p/one:/p/two" (an empty piece would be refused by
 * netcdf-c's HDF5 side; the list helpers keep them, tested below). */
#include "nctest.h"

#include <stdlib.h>
#include <string.h>

#include <netcdf.h>
#include <netcdf_aux.h>
#include <netcdf_filter.h>

static void free_list(NCPluginList *l)
{
    CHECK(ncaux_plugin_path_clear(l));
    EXPECT_EQ_U(l->ndirs, 0);
    EXPECT_TRUE(l->dirs == NULL);
}

static void test_initial_path_from_env(void)
{
    size_t n = 99;
    NCPluginList l = {0, NULL};
    CHECK(nc_plugin_path_ndirs(&n));
    EXPECT_EQ_U(n, 2);
    CHECK(nc_plugin_path_ndirs(NULL));
    CHECK(nc_plugin_path_get(&l));
    EXPECT_EQ_U(l.ndirs, 2);
    if (l.ndirs == 2) {
        EXPECT_STR(l.dirs[0], "/p/one");
        EXPECT_STR(l.dirs[1], "/p/two");
    }
    free_list(&l);
    /* NULL is accepted and does nothing. */
    CHECK(nc_plugin_path_get(NULL));
}

static void test_set_and_get(void)
{
    char *dirs[2] = {"/x/a", "/x/b"};
    char *space[2] = {NULL, NULL};
    NCPluginList in = {2, dirs};
    NCPluginList out = {0, space};
    NCPluginList empty = {0, NULL};
    NCPluginList bad = {1, NULL};
    size_t n = 0;

    EXPECT_ERR(nc_plugin_path_set(NULL), NC_EINVAL);
    CHECK(nc_plugin_path_set(&in));
    CHECK(nc_plugin_path_ndirs(&n));
    EXPECT_EQ_U(n, 2);
    /* A caller-provided vector is filled in place. */
    CHECK(nc_plugin_path_get(&out));
    EXPECT_EQ_U(out.ndirs, 2);
    EXPECT_TRUE(out.dirs == space);
    EXPECT_STR(space[0], "/x/a");
    EXPECT_STR(space[1], "/x/b");
    free(space[0]);
    free(space[1]);
    if (!nct_skip_in_reference("netcdf-c copies the NULL vector and crashes")) {
        EXPECT_ERR(nc_plugin_path_set(&bad), NC_EINVAL);
    }
    CHECK(nc_plugin_path_set(&empty));
    CHECK(nc_plugin_path_ndirs(&n));
    EXPECT_EQ_U(n, 0);
    out.ndirs = 7;
    out.dirs = NULL;
    CHECK(nc_plugin_path_get(&out));
    EXPECT_EQ_U(out.ndirs, 0);
    EXPECT_TRUE(out.dirs == NULL);
}

static void test_string_forms(void)
{
    char buf[64];
    memset(buf, 'z', sizeof buf);
    CHECK(ncaux_plugin_path_stringset((int)strlen("/s/1;/s/2"), "/s/1;/s/2"));
    EXPECT_EQ(ncaux_plugin_path_stringlen(), (int)strlen("/s/1;/s/2"));
    CHECK(ncaux_plugin_path_stringget((int)sizeof buf, buf));
    EXPECT_STR(buf, "/s/1;/s/2");
    EXPECT_EQ(buf[sizeof buf - 1], 0); /* strncpy pads */
    /* Too short: cut, like strncpy. */
    memset(buf, 'z', sizeof buf);
    CHECK(ncaux_plugin_path_stringget(4, buf));
    EXPECT_MEM(buf, "/s/1z", 5);
    EXPECT_ERR(ncaux_plugin_path_stringget(0, buf), NC_EINVAL);
    EXPECT_ERR(ncaux_plugin_path_stringget(4, NULL), NC_EINVAL);
    EXPECT_ERR(ncaux_plugin_path_stringset(0, "/a"), NC_EINVAL);
    /* ':' is not a separator in the string form. */
    CHECK(ncaux_plugin_path_stringset(5, "/a:/b"));
    {
        size_t n = 0;
        CHECK(nc_plugin_path_ndirs(&n));
        EXPECT_EQ_U(n, 1);
    }
}

static void test_list_helpers(void)
{
    NCPluginList l = {0, NULL};
    char *s = NULL;
    NCPluginList *heap;

    EXPECT_ERR(ncaux_plugin_path_parse("/a", 0, NULL), NC_EINVAL);
    CHECK(ncaux_plugin_path_parse("/a:/b::/c", 0, &l));
    EXPECT_EQ_U(l.ndirs, 4);
    if (l.ndirs == 4) {
        EXPECT_STR(l.dirs[2], "");
        EXPECT_STR(l.dirs[3], "/c");
    }
    CHECK(ncaux_plugin_path_tostring(&l, ';', &s));
    EXPECT_STR(s, "/a;/b;;/c");
    free(s);
    CHECK(ncaux_plugin_path_tostring(&l, 0, &s));
    EXPECT_STR(s, "/a:/b::/c");
    free(s);
    free_list(&l);

    /* Only the given separator splits. */
    CHECK(ncaux_plugin_path_parse("/a;/b:/c", ';', &l));
    EXPECT_EQ_U(l.ndirs, 2);
    if (l.ndirs == 2) EXPECT_STR(l.dirs[1], "/b:/c");
    free_list(&l);

    /* parsen reads only pathlen bytes. */
    CHECK(ncaux_plugin_path_parsen(2, "/a:/b", 0, &l));
    EXPECT_EQ_U(l.ndirs, 1);
    if (l.ndirs == 1) EXPECT_STR(l.dirs[0], "/a");
    free_list(&l);

    /* Empty input: no directories. */
    l.ndirs = 5;
    CHECK(ncaux_plugin_path_parse("", 0, &l));
    EXPECT_EQ_U(l.ndirs, 0);
    CHECK(ncaux_plugin_path_parse(NULL, 0, &l));
    EXPECT_EQ_U(l.ndirs, 0);

    CHECK(ncaux_plugin_path_append(&l, "/m"));
    CHECK(ncaux_plugin_path_append(&l, "/n"));
    CHECK(ncaux_plugin_path_prepend(&l, "/first"));
    EXPECT_EQ_U(l.ndirs, 3);
    CHECK(ncaux_plugin_path_tostring(&l, ':', &s));
    EXPECT_STR(s, "/first:/m:/n");
    free(s);
    EXPECT_ERR(ncaux_plugin_path_append(&l, NULL), NC_EINVAL);
    EXPECT_ERR(ncaux_plugin_path_prepend(NULL, "/x"), NC_EINVAL);
    EXPECT_ERR(ncaux_plugin_path_tostring(NULL, ':', &s), NC_EINVAL);

    /* The list round-trips through the global path. */
    CHECK(nc_plugin_path_set(&l));
    free_list(&l);
    CHECK(nc_plugin_path_get(&l));
    EXPECT_EQ_U(l.ndirs, 3);
    if (l.ndirs == 3) EXPECT_STR(l.dirs[0], "/first");
    free_list(&l);
    CHECK(ncaux_plugin_path_clear(NULL));

    heap = (NCPluginList *)calloc(1, sizeof *heap);
    CHECK(ncaux_plugin_path_append(heap, "/h"));
    CHECK(ncaux_plugin_path_reclaim(heap));
}

static void test_finalize_restores_env(void)
{
    size_t n = 0;
    char *dirs[1] = {"/only"};
    NCPluginList in = {1, dirs};
    CHECK(nc_plugin_path_set(&in));
    CHECK(nc_finalize());
    CHECK(nc_initialize());
    CHECK(nc_plugin_path_ndirs(&n));
    EXPECT_EQ_U(n, 2);
}

int main(int argc, char **argv)
{
    const char *env = getenv("HDF5_PLUGIN_PATH");
    nct_init(argc, argv);
    if (env == NULL || strcmp(env, "/p/one:/p/two") != 0) {
        fprintf(stderr, "run with HDF5_PLUGIN_PATH=/p/one:/p/two\n");
        return 2;
    }
    /* netcdf-c computes the path in nc_initialize (which every nc_open or
     * nc_create also runs); before it the path is empty there. */
    if (nc_initialize() != NC_NOERR) return 1;
    RUN(test_initial_path_from_env);
    RUN(test_set_and_get);
    RUN(test_string_forms);
    RUN(test_list_helpers);
    RUN(test_finalize_restores_env);
    return nct_finish();
}
