/*
 * The C-variadic entry points of libnetcdf. Stable Rust cannot define a
 * C-variadic function, so each one lives here: it formats its arguments with
 * vsnprintf and hands the text to a Rust function (src/ffi/client.rs). Built
 * by build.rs; every function defined here for C callers is listed in
 * exports.map, because a Rust cdylib exports only Rust symbols unless told.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* The Rust side of logging (src/ffi/client.rs), filled in by a Rust
 * constructor when the library loads. Hidden: reached through this table so
 * that no internal function needs to be exported from the library. */
struct nczarr_log_hooks {
    int (*begin)(int tag);
    int (*enabled)(void);
    void (*line)(int tag, const char* msg);
};
__attribute__((visibility("hidden"))) struct nczarr_log_hooks nczarr_log_hooks;

/* Public (netcdf.h); nc_advise's result goes through these. */
const char* nc_strerror(int ncerr1);

/* The netCDF-2 API's error state (netcdf.h): the last error of a v2 call,
 * and what a v2 error does: NC_VERBOSE (2) prints it on stderr, NC_FATAL (1)
 * exits. Data objects, as in netcdf-c: programs read and assign them. */
int ncerr = 0;
int ncopts = 1 | 2;

void nc_advise(const char* routine_name, int err, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Exported (netcdf-c's nclog.h). */
int ncvlog(int tag, const char* fmt, va_list ap);
void nclog(int tag, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* fmt formatted with ap into a malloc'd string; NULL on failure. */
static char* format_message(const char* fmt, va_list ap)
{
    va_list copy;
    int n;
    char* buf;

    va_copy(copy, ap);
    n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    buf = malloc((size_t)n + 1);
    if (buf == NULL)
        return NULL;
    va_copy(copy, ap);
    vsnprintf(buf, (size_t)n + 1, fmt, copy);
    va_end(copy);
    return buf;
}

/*
 * int ncvlog(int tag, const char* fmt, va_list ap): print "Tag:message" on
 * stderr when logging is on. An error (tag 2, NCLOGERR) switches logging on
 * first. Returns the previous logging state for an error, else -1.
 */
int ncvlog(int tag, const char* fmt, va_list ap)
{
    int was;
    char* msg;

    if (nczarr_log_hooks.begin == NULL || nczarr_log_hooks.enabled == NULL || nczarr_log_hooks.line == NULL)
        return -1;
    was = nczarr_log_hooks.begin(tag);
    if (!nczarr_log_hooks.enabled())
        return was;
    msg = fmt != NULL ? format_message(fmt, ap) : NULL;
    nczarr_log_hooks.line(tag, msg != NULL ? msg : "");
    free(msg);
    return was;
}

/* void nclog(int tag, const char* fmt, ...): ncvlog with printf arguments; a
 * NULL fmt prints nothing. */
void nclog(int tag, const char* fmt, ...)
{
    va_list ap;

    if (fmt == NULL)
        return;
    va_start(ap, fmt);
    (void)ncvlog(tag, fmt, ap);
    va_end(ap);
}

/*
 * void nc_advise(const char* routine, int err, const char* fmt, ...): the
 * netCDF-2 error report. Records err in ncerr (a system error, err > 0, is
 * recorded as NC_SYSERR, -31); with NC_VERBOSE in ncopts prints
 * "routine: message: nc_strerror(err)" on stderr; with NC_FATAL in ncopts and
 * an error, exits with status ncopts.
 */
void nc_advise(const char* routine_name, int err, const char* fmt, ...)
{
    va_list ap;

    ncerr = err > 0 ? -31 : err;
    if (ncopts & 2) {
        fprintf(stderr, "%s: ", routine_name != NULL ? routine_name : "");
        if (fmt != NULL) {
            va_start(ap, fmt);
            vfprintf(stderr, fmt, ap);
            va_end(ap);
        }
        if (err != 0)
            fprintf(stderr, ": %s", nc_strerror(err));
        fputc('\n', stderr);
        fflush(stderr);
    }
    if ((ncopts & 1) && err != 0)
        exit(ncopts);
}
