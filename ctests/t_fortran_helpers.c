/* t_fortran_helpers.c - the int-argument helpers netcdf-fortran calls
 * (nc_*_ints, not in the installed headers) and the parallel entry points,
 * which a serial build answers with NC_ENOPAR. */
#include "nctest.h"

/* netcdf-c's netcdf_f.h / netcdf_par.h (serial: MPI_Comm and MPI_Info are int). */
int nc_set_chunk_cache_ints(int size, int nelems, int preemption);
int nc_get_chunk_cache_ints(int *sizep, int *nelemsp, int *preemptionp);
int nc_set_var_chunk_cache_ints(int ncid, int varid, int size, int nelems, int preemption);
int nc_get_var_chunk_cache_ints(int ncid, int varid, int *sizep, int *nelemsp, int *preemptionp);
int nc_def_var_chunking_ints(int ncid, int varid, int storage, int *chunksizesp);
int nc_inq_var_chunking_ints(int ncid, int varid, int *storagep, int *chunksizesp);
int nc_open_par_fortran(const char *path, int mode, int comm, int info, int *ncidp);
int nc_create_par_fortran(const char *path, int cmode, int comm, int info, int *ncidp);
int nc_var_par_access(int ncid, int varid, int par_access);

static void test_global_cache(void)
{
    int s = 0, n = 0, p = 0;
    size_t ss;
    size_t nn;
    float pp;

    CHECK(nc_get_chunk_cache(&ss, &nn, &pp)); /* to restore */
    CHECK(nc_set_chunk_cache_ints(4000000, 500, 50));
    CHECK(nc_get_chunk_cache_ints(&s, &n, &p));
    EXPECT_EQ(s, 4000000);
    EXPECT_EQ(n, 500);
    EXPECT_EQ(p, 50);
    {
        size_t s2, n2;
        float p2;
        CHECK(nc_get_chunk_cache(&s2, &n2, &p2));
        EXPECT_EQ(s2, 4000000);
        EXPECT_DBL(p2, 0.5f);
    }
    EXPECT_ERR(nc_set_chunk_cache_ints(0, 500, 50), NC_EINVAL);
    EXPECT_ERR(nc_set_chunk_cache_ints(100, 0, 50), NC_EINVAL);
    EXPECT_ERR(nc_set_chunk_cache_ints(100, 5, 101), NC_EINVAL);
    EXPECT_ERR(nc_set_chunk_cache_ints(100, 5, -1), NC_EINVAL);
    CHECK(nc_get_chunk_cache_ints(NULL, NULL, NULL));
    CHECK(nc_set_chunk_cache(ss, nn, pp));
}

static void test_var_helpers(void)
{
    int ncid, d[2], v, storage = -1, cs[2] = {0, 0}, s = 0, n = 0, p = 0;
    const char *url = nct_url("ints");

    CHECK(nc_create(url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "y", 100, &d[0]));
    CHECK(nc_def_dim(ncid, "x", 60, &d[1]));
    CHECK(nc_def_var(ncid, "v", NC_FLOAT, 2, d, &v));
    cs[0] = 10;
    cs[1] = 20;
    CHECK(nc_def_var_chunking_ints(ncid, v, NC_CHUNKED, cs));
    cs[0] = cs[1] = 0;
    CHECK(nc_inq_var_chunking_ints(ncid, v, &storage, cs));
    EXPECT_EQ(storage, NC_CHUNKED);
    EXPECT_EQ(cs[0], 10);
    EXPECT_EQ(cs[1], 20);
    {
        size_t c[2];
        CHECK(nc_inq_var_chunking(ncid, v, &storage, c));
        EXPECT_EQ(c[1], 20);
    }
    EXPECT_ERR(nc_inq_var_chunking_ints(ncid, 7, &storage, cs), NC_ENOTVAR);
    EXPECT_ERR(nc_def_var_chunking_ints(ncid, 7, NC_CHUNKED, cs), NC_ENOTVAR);

    /* per-variable cache: MiB and percent */
    KNOWN_WRONG_BEGIN("netcdf-c sends nc_set_var_chunk_cache_ints to its HDF5 layer: NC_EHDFERR on NCZarr");
    EXPECT_OK(nc_set_var_chunk_cache_ints(ncid, v, 3, 77, 40));
    EXPECT_OK(nc_get_var_chunk_cache_ints(ncid, v, &s, &n, &p));
    EXPECT_EQ(s, 3);
    EXPECT_EQ(n, 77);
    EXPECT_EQ(p, 40);
    {
        size_t s2 = 0, n2 = 0;
        float p2;
        EXPECT_OK(nc_get_var_chunk_cache(ncid, v, &s2, &n2, &p2));
        EXPECT_EQ(s2, 3 * 1048576);
        EXPECT_EQ(n2, 77);
    }
    /* a negative argument keeps the current value */
    EXPECT_OK(nc_set_var_chunk_cache_ints(ncid, v, -1, 90, -1));
    EXPECT_OK(nc_get_var_chunk_cache_ints(ncid, v, &s, &n, &p));
    EXPECT_EQ(s, 3);
    EXPECT_EQ(n, 90);
    EXPECT_EQ(p, 40);
    KNOWN_WRONG_END();
    EXPECT_ERR(nc_get_var_chunk_cache_ints(ncid, 9, &s, &n, &p), NC_ENOTVAR);
    CHECK(nc_close(ncid));

    CHECK(nc_open(url, NC_NOWRITE, &ncid));
    cs[0] = cs[1] = 0;
    CHECK(nc_inq_var_chunking_ints(ncid, v, &storage, cs));
    EXPECT_EQ(cs[0], 10);
    EXPECT_EQ(cs[1], 20);
    CHECK(nc_close(ncid));
}

static void test_parallel(void)
{
    int ncid = -1;
    EXPECT_ERR(nc_create_par_fortran(nct_url("par"), NC_CLOBBER, 0, 0, &ncid), NC_ENOPAR);
    EXPECT_ERR(nc_open_par_fortran(nct_url("par"), NC_NOWRITE, 0, 0, &ncid), NC_ENOPAR);
    CHECK(nc_create(nct_url("par2"), NC_CLOBBER, &ncid));
    EXPECT_ERR(nc_var_par_access(ncid, NC_GLOBAL, 0), NC_ENOPAR);
    CHECK(nc_close(ncid));
}

int main(int argc, char **argv)
{
    nct_init(argc, argv);
    RUN(test_global_cache);
    RUN(test_var_helpers);
    RUN(test_parallel);
    return nct_finish();
}
