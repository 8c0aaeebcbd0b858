/* t_par_delegate.c -- nc_create_par / nc_open_par on a path that is not Zarr
 * (a netCDF-4 file), run by scripts/test-mpi.sh with -np 2 and 4:
 *
 *   with a parallel system libnetcdf (Debian's libnetcdf-mpi-19, found at
 *   run time; argument `par`): every process creates DIR/del.nc, defines a
 *   group, a dimension and a variable in it, writes its block of rows in
 *   collective mode and closes; then nc_open_par reads every value back on
 *   every process, through group ids the library translated (nc_inq_grps),
 *   and nc_inq_format says netCDF-4; the Fortran-handle variant opens it too;
 *   nc_set_chunk_cache reaches that library (a new variable's cache);
 *   with NCZARR_SYSTEM_NETCDF_MPI=none, or built as a position-independent
 *   executable without -fPIC (it then holds copies of Open MPI's objects the
 *   library cannot share) (argument `none`): both calls answer NC_ENOPAR and
 *   leave *ncidp alone.
 *
 * Built with -fPIC for `par`. Usage: mpirun -np N t_par_delegate DIR par|none */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include "par_layout.h"

#define ROWS 10
#define COLS 3

static int value(size_t i) { return 7 * (int)i + 1; }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &par_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 3) {
        fprintf(stderr, "usage: t_par_delegate DIR par|none\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/del.nc", argv[1]);
    int ncid = -77, rc;
    if (strcmp(argv[2], "none") == 0) {
        rc = nc_create_par(path, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid);
        PEXPECT(rc == NC_ENOPAR && ncid == -77, "nc_create_par of a .nc file, no parallel library: %d", rc);
        rc = nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid);
        PEXPECT(rc == NC_ENOPAR && ncid == -77, "nc_open_par of a .nc file, no parallel library: %d", rc);
    } else {
        int grp, dims[2], varid;
        PCHECK(nc_create_par(path, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
        PCHECK(nc_def_grp(ncid, "g", &grp));
        PCHECK(nc_def_dim(grp, "y", ROWS, &dims[0]));
        PCHECK(nc_def_dim(grp, "x", COLS, &dims[1]));
        PCHECK(nc_def_var(grp, "v", NC_INT, 2, dims, &varid));
        PCHECK(nc_put_att_text(ncid, NC_GLOBAL, "title", 9, "delegated"));
        PCHECK(nc_enddef(ncid));
        PCHECK(nc_var_par_access(grp, varid, NC_COLLECTIVE));
        size_t lo = ROWS * (size_t)par_rank / (size_t)nprocs, hi = ROWS * (size_t)(par_rank + 1) / (size_t)nprocs;
        size_t start[2] = {lo, 0}, count[2] = {hi - lo, COLS};
        int vals[ROWS * COLS];
        for (size_t i = 0; i < (hi - lo) * COLS; i++) vals[i] = value(lo * COLS + i);
        PCHECK(nc_put_vara_int(grp, varid, start, count, vals));
        PCHECK(nc_close(ncid));

        ncid = -1;
        PCHECK(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
        int format = 0, ngrps = 0, grps[2] = {-1, -1};
        PCHECK(nc_inq_format(ncid, &format));
        PEXPECT(format == NC_FORMAT_NETCDF4, "format %d", format);
        PCHECK(nc_inq_grps(ncid, &ngrps, grps));
        PEXPECT(ngrps == 1 && (grps[0] & ~0xffff) == (ncid & ~0xffff), "groups %d: %#x (root %#x)", ngrps,
                grps[0], ncid);
        PCHECK(nc_inq_varid(grps[0], "v", &varid));
        int got[ROWS * COLS] = {0};
        PCHECK(nc_get_var_int(grps[0], varid, got));
        for (size_t i = 0; i < ROWS * COLS; i++)
            PEXPECT(got[i] == value(i), "v[%zu] = %d, expected %d", i, got[i], value(i));
        char title[16] = {0};
        PCHECK(nc_get_att_text(ncid, NC_GLOBAL, "title", title));
        PEXPECT(strcmp(title, "delegated") == 0, "title %s", title);
        PCHECK(nc_close(ncid));
        /* A closed id is gone from both libraries. */
        rc = nc_inq_format(ncid, &format);
        PEXPECT(rc == NC_EBADID, "nc_inq_format after close: %d", rc);

        ncid = -1;
        PCHECK(nc_open_par_fortran(path, NC_NOWRITE, (int)MPI_Comm_c2f(MPI_COMM_WORLD),
                                   (int)MPI_Info_c2f(MPI_INFO_NULL), &ncid));
        PCHECK(nc_inq_format(ncid, &format));
        PEXPECT(format == NC_FORMAT_NETCDF4, "format %d (Fortran handles)", format);
        PCHECK(nc_close(ncid));

        /* The library-wide chunk cache reaches the parallel library: a new
         * variable there starts with it. */
        const size_t cache = 48 << 20, nelems = 1009;
        const float preemption = 0.25f;
        PCHECK(nc_set_chunk_cache(cache, nelems, preemption));
        snprintf(path, sizeof path, "%s/del2.nc", argv[1]);
        ncid = -1;
        PCHECK(nc_create_par(path, NC_CLOBBER | NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
        PCHECK(nc_def_dim(ncid, "x", COLS, &dims[0]));
        PCHECK(nc_def_var(ncid, "w", NC_INT, 1, dims, &varid));
        size_t size = 0, n = 0;
        float pre = 0;
        PCHECK(nc_get_var_chunk_cache(ncid, varid, &size, &n, &pre));
        PEXPECT(size == cache && n == nelems && pre == preemption, "chunk cache %zu %zu %g", size, n, pre);
        PCHECK(nc_close(ncid));
    }
    int all = 0;
    MPI_Allreduce(&par_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (par_rank == 0)
        printf("t_par_delegate (%s): %d processes: %s (%d failures)\n", argv[2], nprocs, all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
