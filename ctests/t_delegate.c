/* t_delegate.c - netCDF files and Zarr datasets side by side in one program.
 *
 * With our library, a path that is not Zarr (a classic or netCDF-4 file) is
 * served by the system's own libnetcdf; its datasets get ncids from our table.
 * This program creates classic and netCDF-4 files, opens them beside an NCZarr
 * dataset, walks groups through both, and copies attributes between the two
 * kinds with nc_copy_att. Against netcdf-c itself (NCZ_REFERENCE=1) the same
 * expectations hold, which shows the delegation is invisible.
 *
 * With argument --no-system (and env NCZARR_SYSTEM_NETCDF=none) it checks the
 * answer without a system library instead: netcdf-c's for an unknown format.
 */
#include "nctest.h"

#include <netcdf_mem.h>

static char nc4_path[NCT_MAXPATH];
static char nc3_path[NCT_MAXPATH];

static void make_paths(void)
{
    snprintf(nc4_path, sizeof nc4_path, "%s/%s_four.nc", nct_dir, nct_prog);
    snprintf(nc3_path, sizeof nc3_path, "%s/%s_classic.nc", nct_dir, nct_prog);
    unlink(nc4_path);
    unlink(nc3_path);
}

static void write_nc4(void)
{
    int ncid, g, dx, dt, v, s, f;
    size_t start[2] = {0, 0}, count[2] = {2, 3};
    int vals[6] = {1, 2, 3, 4, 5, 6};
    const char *strs[3] = {"a", "bb", "ccc"};
    const char *gstrs[2] = {"x", "yz"};
    float fv[3] = {1.5f, 2.5f, 3.5f};
    double pi = 3.14159265358979;
    CHECK(nc_create(nc4_path, NC_NETCDF4 | NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "x", 3, &dx));
    CHECK(nc_def_dim(ncid, "t", NC_UNLIMITED, &dt));
    {
        int dims[2] = {dt, dx};
        CHECK(nc_def_var(ncid, "v", NC_INT, 2, dims, &v));
    }
    CHECK(nc_def_var(ncid, "s", NC_STRING, 1, &dx, &s));
    CHECK(nc_put_att_text(ncid, v, "units", 1, "m"));
    CHECK(nc_put_att_double(ncid, NC_GLOBAL, "pi", NC_DOUBLE, 1, &pi));
    CHECK(nc_put_att_string(ncid, NC_GLOBAL, "names", 2, gstrs));
    CHECK(nc_def_grp(ncid, "g", &g));
    CHECK(nc_def_var(g, "f", NC_FLOAT, 1, &dx, &f));
    CHECK(nc_enddef(ncid));
    CHECK(nc_put_vara_int(ncid, v, start, count, vals));
    CHECK(nc_put_var_string(ncid, s, strs));
    CHECK(nc_put_var_float(g, f, fv));
    CHECK(nc_close(ncid));
}

static void write_classic(void)
{
    int ncid, dx, v;
    short vals[4] = {-1, 0, 1, 32767};
    CHECK(nc_create(nc3_path, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "n", 4, &dx));
    CHECK(nc_def_var(ncid, "h", NC_SHORT, 1, &dx, &v));
    CHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 7, "classic"));
    CHECK(nc_enddef(ncid));
    CHECK(nc_put_var_short(ncid, v, vals));
    CHECK(nc_close(ncid));
}

static void test_side_by_side(void)
{
    int nc4, nc3, z, fmt, mode, ngrps, grps[4], gid, varid, dx, zv, eq;
    int vals[6];
    short h[4];
    float fv[3];
    char name[NC_MAX_NAME + 1];
    char *strs[3] = {NULL, NULL, NULL};
    char *names[2] = {NULL, NULL};
    double pi = 0;
    size_t len = 0;
    nc_type xt = 0;
    make_paths();
    write_nc4();
    write_classic();

    CHECK(nc_create(nct_url("zarr"), NC_CLOBBER, &z));
    CHECK(nc_open(nc4_path, NC_NOWRITE, &nc4));
    CHECK(nc_open(nc3_path, NC_NOWRITE, &nc3));
    EXPECT_TRUE(nc4 != z && nc3 != z && nc4 != nc3);

    CHECK(nc_inq_format(nc4, &fmt));
    EXPECT_EQ(fmt, NC_FORMAT_NETCDF4);
    CHECK(nc_inq_format_extended(nc4, &fmt, &mode));
    EXPECT_EQ(fmt, NC_FORMATX_NC_HDF5);
    CHECK(nc_inq_format(nc3, &fmt));
    EXPECT_EQ(fmt, NC_FORMAT_CLASSIC);
    CHECK(nc_inq_format_extended(z, &fmt, &mode));
    EXPECT_EQ(fmt, NC_FORMATX_NCZARR);

    /* Group ids handed out for the netCDF-4 file work in later calls. */
    CHECK(nc_inq_grps(nc4, &ngrps, grps));
    EXPECT_EQ(ngrps, 1);
    CHECK(nc_inq_grpname(grps[0], name));
    EXPECT_STR(name, "g");
    /* The ids come back usable without the count too (netCDF4-python asks so). */
    grps[0] = -1;
    CHECK(nc_inq_grps(nc4, NULL, grps));
    CHECK(nc_inq_grpname(grps[0], name));
    EXPECT_STR(name, "g");
    CHECK(nc_inq_grp_ncid(nc4, "g", &gid));
    EXPECT_EQ(gid, grps[0]);
    CHECK(nc_inq_grp_full_ncid(nc4, "/g", &gid));
    EXPECT_EQ(gid, grps[0]);
    {
        int parent = -1;
        CHECK(nc_inq_grp_parent(gid, &parent));
        EXPECT_EQ(parent, nc4);
    }
    CHECK(nc_inq_varid(gid, "f", &varid));
    CHECK(nc_get_var_float(gid, varid, fv));
    EXPECT_DBL(fv[2], 3.5);

    CHECK(nc_inq_varid(nc4, "v", &varid));
    CHECK(nc_get_var_int(nc4, varid, vals));
    EXPECT_EQ(vals[5], 6);
    CHECK(nc_inq_varid(nc4, "s", &varid));
    CHECK(nc_get_var_string(nc4, varid, strs));
    EXPECT_STR(strs[2], "ccc");
    CHECK(nc_free_string(3, strs));
    CHECK(nc_inq_varid(nc3, "h", &varid));
    CHECK(nc_get_var_short(nc3, varid, h));
    EXPECT_EQ(h[3], 32767);

    /* Attributes cross between the two kinds of dataset. */
    CHECK(nc_def_dim(z, "x", 3, &dx));
    CHECK(nc_def_var(z, "zv", NC_INT, 1, &dx, &zv));
    CHECK(nc_copy_att(nc4, NC_GLOBAL, "pi", z, NC_GLOBAL));
    CHECK(nc_copy_att(nc4, NC_GLOBAL, "names", z, NC_GLOBAL));
    CHECK(nc_inq_varid(nc4, "v", &varid));
    CHECK(nc_copy_att(nc4, varid, "units", z, zv));
    CHECK(nc_copy_att(nc3, NC_GLOBAL, "title", z, NC_GLOBAL));
    CHECK(nc_get_att_double(z, NC_GLOBAL, "pi", &pi));
    EXPECT_DBL(pi, 3.14159265358979);
    CHECK(nc_inq_att(z, NC_GLOBAL, "names", &xt, &len));
    EXPECT_EQ(xt, NC_STRING);
    EXPECT_EQ_U(len, 2);
    CHECK(nc_get_att_string(z, NC_GLOBAL, "names", names));
    EXPECT_STR(names[1], "yz");
    CHECK(nc_free_string(2, names));
    CHECK(nc_get_att_text(z, zv, "units", name));
    EXPECT_MEM(name, "m", 1);
    CHECK(nc_inq_attlen(z, NC_GLOBAL, "title", &len));
    EXPECT_EQ_U(len, 7);
    /* A missing attribute gives the source library's answer. */
    EXPECT_ERR(nc_copy_att(nc4, NC_GLOBAL, "nope", z, NC_GLOBAL), NC_ENOTATT);

    CHECK(nc_inq_type_equal(nc4, NC_INT, z, NC_INT, &eq));
    EXPECT_EQ(eq, 1);
    CHECK(nc_inq_type_equal(nc4, NC_INT, z, NC_FLOAT, &eq));
    EXPECT_EQ(eq, 0);

    CHECK(nc_close(nc3));
    CHECK(nc_close(z));
    CHECK(nc_close(nc4));
    /* Closed ids are gone in both libraries. */
    EXPECT_ERR(nc_inq_format(nc4, &fmt), NC_EBADID);
    EXPECT_ERR(nc_inq_format(z, &fmt), NC_EBADID);
}

static void test_zarr_to_nc(void)
{
    int z, nc, dx, v, out[3], varid;
    int vals[3] = {7, 8, 9};
    char buf[16] = {0};
    make_paths();
    CHECK(nc_create(nct_url("src"), NC_CLOBBER, &z));
    CHECK(nc_def_dim(z, "x", 3, &dx));
    CHECK(nc_def_var(z, "v", NC_INT, 1, &dx, &v));
    CHECK(nc_put_att_text(z, v, "long_name", 5, "seven"));
    CHECK(nc_enddef(z));
    CHECK(nc_put_var_int(z, v, vals));

    CHECK(nc_create(nc4_path, NC_NETCDF4 | NC_CLOBBER, &nc));
    CHECK(nc_def_dim(nc, "x", 3, &dx));
    CHECK(nc_def_var(nc, "v", NC_INT, 1, &dx, &varid));
    CHECK(nc_copy_att(z, v, "long_name", nc, varid));
    CHECK(nc_enddef(nc));
    CHECK(nc_put_var_int(nc, varid, vals));
    CHECK(nc_close(nc));
    CHECK(nc_close(z));

    CHECK(nc_open(nc4_path, NC_NOWRITE, &nc));
    CHECK(nc_inq_varid(nc, "v", &varid));
    CHECK(nc_get_var_int(nc, varid, out));
    EXPECT_EQ(out[2], 9);
    CHECK(nc_get_att_text(nc, varid, "long_name", buf));
    EXPECT_STR(buf, "seven");
    CHECK(nc_close(nc));
}

/* In-memory images are netCDF files: opened and created by the system library. */
static void test_memory(void)
{
    static char image[1 << 20];
    size_t n;
    int ncid, nvars, dim;
    NC_memio mio = {0, NULL, 0};
    FILE *f;
    make_paths();
    write_nc4();
    f = fopen(nc4_path, "rb");
    EXPECT_TRUE(f != NULL);
    if (!f)
        return;
    n = fread(image, 1, sizeof image, f);
    fclose(f);
    CHECK(nc_open_mem("image.nc", NC_NOWRITE, n, image, &ncid));
    CHECK(nc_inq_nvars(ncid, &nvars));
    EXPECT_EQ(nvars, 2);
    CHECK(nc_close(ncid));
    CHECK(nc_create_mem("made.nc", NC_NETCDF4, 0, &ncid));
    CHECK(nc_def_dim(ncid, "x", 2, &dim));
    CHECK(nc_close_memio(ncid, &mio));
    EXPECT_TRUE(mio.size > 0 && mio.memory != NULL);
    free(mio.memory);
    EXPECT_ERR(nc_inq_nvars(ncid, &nvars), NC_EBADID);
}

static void test_missing_file(void)
{
    int ncid = -1;
    char path[NCT_MAXPATH];
    snprintf(path, sizeof path, "%s/%s_missing.nc", nct_dir, nct_prog);
    /* netcdf-c reports the system error (ENOENT) for a file that is not there. */
    EXPECT_ERR(nc_open(path, NC_NOWRITE, &ncid), ENOENT);
}

static void test_no_system(void)
{
    int ncid = -1;
    FILE *f;
    make_paths();
    f = fopen(nc3_path, "wb");
    if (f) {
        /* The first bytes of a classic file: without a system library this is
         * simply not a format our library serves. */
        fwrite("CDF\001\0\0\0\0", 1, 8, f);
        fclose(f);
    }
    EXPECT_ERR(nc_open(nc3_path, NC_NOWRITE, &ncid), NC_ENOTNC);
    EXPECT_ERR(nc_create(nc4_path, NC_NETCDF4 | NC_CLOBBER, &ncid), NC_ENOTNC);
    unlink(nc3_path);
}

int main(int argc, char **argv)
{
    int no_system = argc > 1 && strcmp(argv[argc - 1], "--no-system") == 0;
    nct_init(no_system ? argc - 1 : argc, argv);
    if (no_system) {
        if (!nct_skip_in_reference("netcdf-c has no system library to go without"))
            RUN(test_no_system);
    } else {
        RUN(test_side_by_side);
        RUN(test_zarr_to_nc);
        RUN(test_memory);
        RUN(test_missing_file);
    }
    make_paths(); /* remove the .nc files */
    return nct_finish();
}
