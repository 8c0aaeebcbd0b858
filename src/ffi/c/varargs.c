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

/* Rust side (src/ffi/client.rs). */
extern int nczarr_log_begin(int tag);
extern int nczarr_log_enabled(void);
extern void nczarr_log_line(int tag, const char* msg);

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
    int was = nczarr_log_begin(tag);
    char* msg;

    if (!nczarr_log_enabled())
        return was;
    msg = fmt != NULL ? format_message(fmt, ap) : NULL;
    nczarr_log_line(tag, msg != NULL ? msg : "");
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
