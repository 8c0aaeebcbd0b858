/* Small helpers shared by the test codecs: read one unsigned integer member
 * of a flat JSON object, and build a malloc'ed parameter vector / string.
 * Header-only (static), so each plugin stays one self-contained library. */
#ifndef NCZPLUGIN_UTIL_H
#define NCZPLUGIN_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nczplugin.h"

/* Find "key": <unsigned> in a flat JSON object. Returns 0 on success. */
static inline int nczp_json_uint(const char *json, const char *key, unsigned *out)
{
    char pat[64];
    const char *p;
    char *end;
    unsigned long v;
    if (json == NULL || strlen(key) + 3 > sizeof pat) return -1;
    snprintf(pat, sizeof pat, "\"%s\"", key);
    p = strstr(json, pat);
    if (p == NULL) return -1;
    p += strlen(pat);
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p != ':') return -1;
    p++;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p < '0' || *p > '9') return -1;
    v = strtoul(p, &end, 10);
    if (end == p || v > 0xFFFFFFFFul) return -1;
    *out = (unsigned)v;
    return 0;
}

/* Check that the object's "id" is the expected codec id. */
static inline int nczp_json_id_is(const char *json, const char *id)
{
    char pat[128];
    const char *p;
    if (json == NULL || strlen(id) + 3 > sizeof pat) return 0;
    p = strstr(json, "\"id\"");
    if (p == NULL) return 0;
    p += 4;
    while (*p == ' ' || *p == ':' || *p == '\t') p++;
    snprintf(pat, sizeof pat, "\"%s\"", id);
    return strncmp(p, pat, strlen(pat)) == 0;
}

/* A malloc'ed vector of n parameters. */
static inline int nczp_params(size_t n, const unsigned *src, size_t *nparamsp, unsigned **paramsp)
{
    unsigned *v = NULL;
    if (n > 0) {
        v = (unsigned *)malloc(n * sizeof(unsigned));
        if (v == NULL) return NCZP_ENOMEM;
        memcpy(v, src, n * sizeof(unsigned));
    }
    *nparamsp = n;
    *paramsp = v;
    return NCZP_NOERR;
}

/* A malloc'ed, printf-formatted string. */
static inline int nczp_string(char **out, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) return NCZP_EINVAL;
    *out = (char *)malloc((size_t)n + 1);
    if (*out == NULL) return NCZP_ENOMEM;
    memcpy(*out, buf, (size_t)n + 1);
    return NCZP_NOERR;
}

#endif
