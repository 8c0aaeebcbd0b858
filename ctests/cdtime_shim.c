/* LD_PRELOAD shim for scripts/run-cdtime-ctest.sh: defines the cdtime
 * helpers and nc_utf8_to_utf16 that Debian's ncdump and ncgen import, and
 * forwards each call to the same function of the library named by
 * $NCZ_SHIM_TARGET (our libnetcdf.so), loaded privately with RTLD_LOCAL.
 * Everything else the tools use still comes from the reference libnetcdf.
 * The first call of each function is recorded in $NCZ_SHIM_TRACE (if set),
 * so the test can tell the shim was really used. Prototypes are netcdf-c
 * 4.9.0's (include/nctime.h, include/ncutf8.h), with the enums as int. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct cdCompTime cdCompTime;
typedef struct CdTime CdTime;

static void *target(const char *name)
{
    static void *lib;
    void *f;
    const char *trace = getenv("NCZ_SHIM_TRACE");
    if (lib == NULL) {
        const char *path = getenv("NCZ_SHIM_TARGET");
        lib = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
        if (lib == NULL) {
            fprintf(stderr, "cdtime_shim: cannot load $NCZ_SHIM_TARGET: %s\n", path ? dlerror() : "unset");
            abort();
        }
    }
    f = dlsym(lib, name);
    if (f == NULL) {
        fprintf(stderr, "cdtime_shim: %s missing from $NCZ_SHIM_TARGET\n", name);
        abort();
    }
    if (trace != NULL) {
        FILE *t = fopen(trace, "a");
        if (t != NULL) {
            fprintf(t, "%s\n", name);
            fclose(t);
        }
    }
    return f;
}

typedef int parse_fn(int, char *, int *, cdCompTime *);
typedef void rel2iso_fn(int, char *, int, double, char *);
typedef void char2comp_fn(int, char *, cdCompTime *);
typedef void h2e_fn(CdTime *, double *);
typedef int erropts_fn(int);
typedef int utf16_fn(const unsigned char *, unsigned short **, size_t *);

/* Resolve once per function; `fn` then points to the forwarded function. */
#define FORWARD(type, name) \
    static type *fn; \
    if (fn == NULL) \
    *(void **)(&fn) = target(name)

int cdParseRelunits(int timetype, char *relunits, int *unit, cdCompTime *base)
{
    FORWARD(parse_fn, "cdParseRelunits");
    return fn(timetype, relunits, unit, base);
}

void cdRel2Iso(int timetype, char *relunits, int separator, double reltime, char *chartime)
{
    FORWARD(rel2iso_fn, "cdRel2Iso");
    fn(timetype, relunits, separator, reltime, chartime);
}

void cdChar2Comp(int timetype, char *chartime, cdCompTime *comptime)
{
    FORWARD(char2comp_fn, "cdChar2Comp");
    fn(timetype, chartime, comptime);
}

void Cdh2e(CdTime *htime, double *etime)
{
    FORWARD(h2e_fn, "Cdh2e");
    fn(htime, etime);
}

int cdSetErrOpts(int opts)
{
    FORWARD(erropts_fn, "cdSetErrOpts");
    return fn(opts);
}

int nc_utf8_to_utf16(const unsigned char *s8, unsigned short **utf16p, size_t *lenp)
{
    FORWARD(utf16_fn, "nc_utf8_to_utf16");
    return fn(s8, utf16p, lenp);
}
