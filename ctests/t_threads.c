/* t_threads.c - four threads each write their own dataset while four threads
 * read one shared dataset, all at the same time; every value is checked,
 * then the four written datasets are read back. (netcdf-c is not
 * thread-safe and crashes here: skipped against the reference.) */
#include "nctest.h"

#include <pthread.h>

#define NWRITERS 4
#define NREADERS 4
#define NT 40   /* records */
#define NX 250  /* values per record */
#define ROUNDS 6

static char shared_url[NCT_MAXPATH];
static char writer_url[NWRITERS][NCT_MAXPATH];
static pthread_barrier_t start;

struct result {
    int id;
    int errors; /* failed calls or wrong values */
    char first[256];
};

static double value(int who, int t, int x) { return who * 1e6 + t * 1000.0 + x + 0.25; }

static void note(struct result *r, const char *what, int status)
{
    if (r->errors++ == 0)
        snprintf(r->first, sizeof r->first, "%s: %d (%s)", what, status, nc_strerror(status));
}

#define TRY(r, call)                              \
    do {                                          \
        int s_ = (call);                          \
        if (s_ != NC_NOERR) {                     \
            note((r), #call, s_);                 \
            return NULL;                          \
        }                                         \
    } while (0)

/* Writer: a record variable of doubles, an int variable and a group; one
 * record at a time along the unlimited dimension, with a sync every 10. */
static void *writer(void *arg)
{
    struct result *r = arg;
    int ncid, grp, d[2], v, gi, t, x;
    double row[NX];
    int ints[NX];

    pthread_barrier_wait(&start);
    TRY(r, nc_create(writer_url[r->id], NC_CLOBBER, &ncid));
    TRY(r, nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    TRY(r, nc_def_dim(ncid, "x", NX, &d[1]));
    TRY(r, nc_def_var(ncid, "v", NC_DOUBLE, 2, d, &v));
    TRY(r, nc_put_att_int(ncid, NC_GLOBAL, "writer", NC_INT, 1, &r->id));
    TRY(r, nc_def_grp(ncid, "g", &grp));
    TRY(r, nc_def_var(grp, "i", NC_INT, 1, &d[1], &gi));
    TRY(r, nc_enddef(ncid));
    for (x = 0; x < NX; x++)
        ints[x] = r->id * 100000 + x;
    TRY(r, nc_put_var_int(grp, gi, ints));
    for (t = 0; t < NT; t++) {
        size_t st[2] = {(size_t)t, 0}, ct[2] = {1, NX};
        for (x = 0; x < NX; x++)
            row[x] = value(r->id, t, x);
        TRY(r, nc_put_vara_double(ncid, v, st, ct, row));
        if (t % 10 == 9)
            TRY(r, nc_sync(ncid));
    }
    TRY(r, nc_close(ncid));
    return NULL;
}

/* Reader: reads the shared dataset whole and by records, several rounds. */
static void *reader(void *arg)
{
    struct result *r = arg;
    int ncid, v, round, t, x;
    double *all = malloc(sizeof(double) * NT * NX);
    char name[NC_MAX_NAME + 1];

    if (all == NULL) {
        note(r, "malloc", NC_ENOMEM);
        return NULL;
    }
    pthread_barrier_wait(&start);
    for (round = 0; round < ROUNDS && r->errors == 0; round++) {
        int s = nc_open(shared_url, NC_NOWRITE, &ncid);
        if (s != NC_NOERR) {
            note(r, "nc_open", s);
            break;
        }
        if ((s = nc_inq_varid(ncid, "v", &v)) != NC_NOERR)
            note(r, "nc_inq_varid", s);
        else if ((s = nc_get_var_double(ncid, v, all)) != NC_NOERR)
            note(r, "nc_get_var_double", s);
        else {
            for (t = 0; t < NT; t++)
                for (x = 0; x < NX; x++)
                    if (all[t * NX + x] != value(99, t, x)) {
                        note(r, "wrong value in nc_get_var_double", -1);
                        t = NT;
                        break;
                    }
            /* one record, read backwards from the last */
            for (t = NT - 1; t >= 0 && r->errors == 0; t -= 7) {
                size_t st[2] = {(size_t)t, 0}, ct[2] = {1, NX};
                double row[NX];
                if ((s = nc_get_vara_double(ncid, v, st, ct, row)) != NC_NOERR)
                    note(r, "nc_get_vara_double", s);
                else
                    for (x = 0; x < NX; x++)
                        if (row[x] != value(99, t, x)) {
                            note(r, "wrong value in nc_get_vara_double", -1);
                            break;
                        }
            }
            if ((s = nc_inq_varname(ncid, v, name)) != NC_NOERR || strcmp(name, "v") != 0)
                note(r, "nc_inq_varname", s);
        }
        if ((s = nc_close(ncid)) != NC_NOERR)
            note(r, "nc_close", s);
    }
    free(all);
    return NULL;
}

static void make_shared(void)
{
    int ncid, d[2], v, t, x;
    static double all[NT * NX];
    for (t = 0; t < NT; t++)
        for (x = 0; x < NX; x++)
            all[t * NX + x] = value(99, t, x);
    CHECK(nc_create(shared_url, NC_CLOBBER, &ncid));
    CHECK(nc_def_dim(ncid, "t", NC_UNLIMITED, &d[0]));
    CHECK(nc_def_dim(ncid, "x", NX, &d[1]));
    CHECK(nc_def_var(ncid, "v", NC_DOUBLE, 2, d, &v));
    {
        size_t cs[2] = {4, 50};
        CHECK(nc_def_var_chunking(ncid, v, NC_CHUNKED, cs));
    }
    CHECK(nc_enddef(ncid));
    {
        size_t st[2] = {0, 0}, ct[2] = {NT, NX};
        CHECK(nc_put_vara_double(ncid, v, st, ct, all));
    }
    CHECK(nc_close(ncid));
}

static void test_concurrent(void)
{
    pthread_t th[NWRITERS + NREADERS];
    struct result res[NWRITERS + NREADERS];
    int i, w, t, x;

    if (nct_skip_in_reference("netcdf-c is not thread-safe: concurrent calls crash it"))
        return;
    snprintf(shared_url, sizeof shared_url, "%s", nct_url("shared"));
    for (w = 0; w < NWRITERS; w++) {
        char name[32];
        snprintf(name, sizeof name, "w%d", w);
        snprintf(writer_url[w], sizeof writer_url[w], "%s", nct_url(name));
    }
    make_shared();
    EXPECT_EQ(pthread_barrier_init(&start, NULL, NWRITERS + NREADERS), 0);
    for (i = 0; i < NWRITERS + NREADERS; i++) {
        memset(&res[i], 0, sizeof res[i]);
        res[i].id = i < NWRITERS ? i : i - NWRITERS;
        EXPECT_EQ(pthread_create(&th[i], NULL, i < NWRITERS ? writer : reader, &res[i]), 0);
    }
    for (i = 0; i < NWRITERS + NREADERS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    for (i = 0; i < NWRITERS + NREADERS; i++) {
        nct_result(res[i].errors == 0, __FILE__, __LINE__, "%s %d: %d errors, first: %s",
                   i < NWRITERS ? "writer" : "reader", res[i].id, res[i].errors, res[i].first);
    }

    /* everything the writers wrote reads back */
    for (w = 0; w < NWRITERS; w++) {
        int ncid, v, grp, gi, who = -1, ints[NX];
        size_t len = 0;
        static double all[NT * NX];
        int bad = 0;
        CHECK(nc_open(writer_url[w], NC_NOWRITE, &ncid));
        CHECK(nc_inq_dimlen(ncid, 0, &len));
        EXPECT_EQ(len, NT);
        CHECK(nc_get_att_int(ncid, NC_GLOBAL, "writer", &who));
        EXPECT_EQ(who, w);
        CHECK(nc_inq_varid(ncid, "v", &v));
        CHECK(nc_get_var_double(ncid, v, all));
        for (t = 0; t < NT; t++)
            for (x = 0; x < NX; x++)
                bad += all[t * NX + x] != value(w, t, x);
        EXPECT_EQ(bad, 0);
        CHECK(nc_inq_grp_ncid(ncid, "g", &grp));
        CHECK(nc_inq_varid(grp, "i", &gi));
        CHECK(nc_get_var_int(grp, gi, ints));
        for (x = 0, bad = 0; x < NX; x++)
            bad += ints[x] != w * 100000 + x;
        EXPECT_EQ(bad, 0);
        CHECK(nc_close(ncid));
    }
}

int main(int argc, char **argv)
{
    nct_init(argc, argv);
    RUN(test_concurrent);
    return nct_finish();
}
