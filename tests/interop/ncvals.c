/* ncvals: dump a dataset, read through the netCDF-C API, as one canonical
 * JSON document on stdout.
 *
 * usage: ncvals URL
 *
 * Output:
 * {
 *   "format": <nc_inq_format>, "formatx": <nc_inq_format_extended format>,
 *   "groups": {                               (depth first, root first)
 *     "/": {
 *       "dims": {"name": len, ...},           (this group's own dims)
 *       "unlimited": ["name", ...],
 *       "attributes": {"name": {"type": T, "values": V}, ...},
 *       "variables": {
 *         "name": {
 *           "type": T,
 *           "dims": ["name", ...], "dimpaths": ["/full/path", ...],
 *           "shape": [len, ...],
 *           "storage": "chunked"|"contiguous"|"compact", "chunks": [n, ...],
 *           "no_fill": bool, "fill": V1,      (nc_inq_var_fill; or "fill_error": code)
 *           "endian": "native"|"little"|"big",  (or "endian_error": code)
 *           "codecs": "..."                   (the _Codecs virtual attribute, when present)
 *           "atts": {...},                    (as "attributes")
 *           "values": V                       (flattened, C order; or "values_error": code)
 *         }, ...
 *       }
 *     }, ...
 *   }
 * }
 * T is the CDL type name (byte char short int float double ubyte ushort uint
 * int64 uint64 string). V is an array of numbers for numeric types (floats
 * with %.17g, which reads back exactly; NaN / Infinity / -Infinity as those
 * strings), an array of strings (null for a NULL pointer) for string, and one
 * string of all the bytes for char. V1 is a single such value (char: a
 * one-byte string). Strings are emitted as UTF-8; a byte that is not part of
 * a valid UTF-8 sequence is written as the code point of the same value
 * (\u00XX), control characters are escaped.
 *
 * Exit status 0 on success, 1 if the dataset cannot be opened or walked.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netcdf.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        int e_ = (call);                                                             \
        if (e_ != NC_NOERR) {                                                        \
            fprintf(stderr, "ncvals: %s:%d: %s: %s (%d)\n", __FILE__, __LINE__,      \
                    #call, nc_strerror(e_), e_);                                     \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "ncvals: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- JSON output ---------------------------------------------------------- */

/* Length of the valid UTF-8 sequence starting at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t len;
    unsigned long cp;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n) return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[k] & 0x3f);
    }
    if (len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) return 0;
    if (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) return 0;
    return len;
}

static void json_strn(const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    putchar('"');
    size_t k = 0;
    while (k < n) {
        unsigned char c = s[k];
        if (c == '"') {
            fputs("\\\"", stdout);
        } else if (c == '\\') {
            fputs("\\\\", stdout);
        } else if (c == '\n') {
            fputs("\\n", stdout);
        } else if (c == '\r') {
            fputs("\\r", stdout);
        } else if (c == '\t') {
            fputs("\\t", stdout);
        } else if (c == '\b') {
            fputs("\\b", stdout);
        } else if (c == '\f') {
            fputs("\\f", stdout);
        } else if (c < 0x20 || c == 0x7f) {
            printf("\\u%04x", c);
        } else if (c < 0x80) {
            putchar(c);
        } else {
            size_t len = utf8_len(s + k, n - k);
            if (len == 0) {
                printf("\\u%04x", c); /* not UTF-8: that byte as a code point */
            } else {
                fwrite(s + k, 1, len, stdout);
                k += len;
                continue;
            }
        }
        k++;
    }
    putchar('"');
}

static void json_str(const char *s) {
    if (s == NULL)
        fputs("null", stdout);
    else
        json_strn(s, strlen(s));
}

static void json_double(double v) {
    if (isnan(v))
        fputs("\"NaN\"", stdout);
    else if (isinf(v))
        fputs(v > 0 ? "\"Infinity\"" : "\"-Infinity\"", stdout);
    else
        printf("%.17g", v);
}

static const char *type_name(nc_type t) {
    switch (t) {
    case NC_BYTE: return "byte";
    case NC_CHAR: return "char";
    case NC_SHORT: return "short";
    case NC_INT: return "int";
    case NC_FLOAT: return "float";
    case NC_DOUBLE: return "double";
    case NC_UBYTE: return "ubyte";
    case NC_USHORT: return "ushort";
    case NC_UINT: return "uint";
    case NC_INT64: return "int64";
    case NC_UINT64: return "uint64";
    case NC_STRING: return "string";
    default: return NULL;
    }
}

static void json_type(nc_type t) {
    const char *name = type_name(t);
    if (name)
        json_str(name);
    else
        printf("\"type%d\"", (int)t);
}

/* One value of an atomic non-char type. */
static void json_value(nc_type t, const void *buf, size_t k) {
    switch (t) {
    case NC_BYTE: printf("%d", (int)((const signed char *)buf)[k]); break;
    case NC_UBYTE: printf("%u", (unsigned)((const unsigned char *)buf)[k]); break;
    case NC_CHAR: json_strn((const char *)buf + k, 1); break;
    case NC_SHORT: printf("%d", (int)((const short *)buf)[k]); break;
    case NC_USHORT: printf("%u", (unsigned)((const unsigned short *)buf)[k]); break;
    case NC_INT: printf("%d", ((const int *)buf)[k]); break;
    case NC_UINT: printf("%u", ((const unsigned int *)buf)[k]); break;
    case NC_INT64: printf("%lld", ((const long long *)buf)[k]); break;
    case NC_UINT64: printf("%llu", ((const unsigned long long *)buf)[k]); break;
    case NC_FLOAT: json_double((double)((const float *)buf)[k]); break;
    case NC_DOUBLE: json_double(((const double *)buf)[k]); break;
    case NC_STRING: json_str(((char *const *)buf)[k]); break;
    default: fputs("null", stdout); break;
    }
}

/* n values: one string for char, else an array. */
static void json_values(nc_type t, const void *buf, size_t n) {
    if (t == NC_CHAR) {
        json_strn((const char *)buf, n);
        return;
    }
    putchar('[');
    for (size_t k = 0; k < n; k++) {
        if (k) putchar(',');
        json_value(t, buf, k);
    }
    putchar(']');
}

static size_t type_size(int ncid, nc_type t) {
    size_t size;
    CHECK(nc_inq_type(ncid, t, NULL, &size));
    return size;
}

/* ---- attributes ----------------------------------------------------------- */

static void json_atts(int ncid, int varid) {
    int natts;
    if (varid == NC_GLOBAL)
        CHECK(nc_inq_natts(ncid, &natts));
    else
        CHECK(nc_inq_varnatts(ncid, varid, &natts));
    putchar('{');
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len;
        CHECK(nc_inq_attname(ncid, varid, a, name));
        CHECK(nc_inq_att(ncid, varid, name, &t, &len));
        void *buf = xmalloc(len * type_size(ncid, t));
        CHECK(nc_get_att(ncid, varid, name, buf));
        if (a) putchar(',');
        json_str(name);
        fputs(":{\"type\":", stdout);
        json_type(t);
        fputs(",\"values\":", stdout);
        json_values(t, buf, len);
        putchar('}');
        if (t == NC_STRING) CHECK(nc_free_string(len, (char **)buf));
        free(buf);
    }
    putchar('}');
}

/* ---- dimensions ----------------------------------------------------------- */

/* dimid -> full path of the dimension ("/g1/z"), collected before output. */
static struct {
    int id;
    char *path;
} *dimtab;
static size_t ndimtab;

static char *child_path(const char *parent, const char *name) {
    size_t n = strlen(parent) + strlen(name) + 2;
    char *p = xmalloc(n);
    if (strcmp(parent, "/") == 0)
        snprintf(p, n, "/%s", name);
    else
        snprintf(p, n, "%s/%s", parent, name);
    return p;
}

static void collect_dims(int grp, const char *path) {
    int ndims, ngrps;
    CHECK(nc_inq_dimids(grp, &ndims, NULL, 0));
    int *ids = xmalloc(sizeof(int) * (size_t)ndims);
    CHECK(nc_inq_dimids(grp, &ndims, ids, 0));
    dimtab = realloc(dimtab, sizeof(*dimtab) * (ndimtab + (size_t)ndims + 1));
    if (!dimtab) exit(1);
    for (int k = 0; k < ndims; k++) {
        char name[NC_MAX_NAME + 1];
        CHECK(nc_inq_dimname(grp, ids[k], name));
        dimtab[ndimtab].id = ids[k];
        dimtab[ndimtab].path = child_path(path, name);
        ndimtab++;
    }
    free(ids);
    CHECK(nc_inq_grps(grp, &ngrps, NULL));
    int *grps = xmalloc(sizeof(int) * (size_t)ngrps);
    CHECK(nc_inq_grps(grp, &ngrps, grps));
    for (int k = 0; k < ngrps; k++) {
        char name[NC_MAX_NAME + 1];
        CHECK(nc_inq_grpname(grps[k], name));
        char *p = child_path(path, name);
        collect_dims(grps[k], p);
        free(p);
    }
    free(grps);
}

static const char *dim_path(int id) {
    for (size_t k = 0; k < ndimtab; k++)
        if (dimtab[k].id == id) return dimtab[k].path;
    return NULL;
}

/* ---- variables ------------------------------------------------------------ */

static void json_var(int grp, int varid) {
    char name[NC_MAX_NAME + 1];
    nc_type t;
    int ndims, natts;
    CHECK(nc_inq_var(grp, varid, name, &t, &ndims, NULL, &natts));
    int *dimids = xmalloc(sizeof(int) * (size_t)(ndims + 1));
    size_t *shape = xmalloc(sizeof(size_t) * (size_t)(ndims + 1));
    size_t *chunks = xmalloc(sizeof(size_t) * (size_t)(ndims + 1));
    CHECK(nc_inq_vardimid(grp, varid, dimids));
    size_t total = 1;
    for (int d = 0; d < ndims; d++) {
        CHECK(nc_inq_dimlen(grp, dimids[d], &shape[d]));
        total *= shape[d];
    }
    json_str(name);
    fputs(":{\"type\":", stdout);
    json_type(t);

    fputs(",\"dims\":[", stdout);
    for (int d = 0; d < ndims; d++) {
        char dname[NC_MAX_NAME + 1];
        CHECK(nc_inq_dimname(grp, dimids[d], dname));
        if (d) putchar(',');
        json_str(dname);
    }
    fputs("],\"dimpaths\":[", stdout);
    for (int d = 0; d < ndims; d++) {
        if (d) putchar(',');
        json_str(dim_path(dimids[d]));
    }
    fputs("],\"shape\":[", stdout);
    for (int d = 0; d < ndims; d++) printf(d ? ",%zu" : "%zu", shape[d]);
    putchar(']');

    int storage;
    CHECK(nc_inq_var_chunking(grp, varid, &storage, chunks));
    fputs(",\"storage\":", stdout);
    json_str(storage == NC_CHUNKED      ? "chunked"
             : storage == NC_CONTIGUOUS ? "contiguous"
             : storage == NC_COMPACT    ? "compact"
                                        : "other");
    fputs(",\"chunks\":", stdout);
    if (storage == NC_CHUNKED) {
        putchar('[');
        for (int d = 0; d < ndims; d++) printf(d ? ",%zu" : "%zu", chunks[d]);
        putchar(']');
    } else {
        fputs("null", stdout);
    }

    size_t size = type_size(grp, t);
    void *fill = xmalloc(size);
    memset(fill, 0, size);
    int no_fill = 0;
    int e = nc_inq_var_fill(grp, varid, &no_fill, fill);
    if (e == NC_NOERR) {
        printf(",\"no_fill\":%s,\"fill\":", no_fill ? "true" : "false");
        json_value(t, fill, 0);
        if (t == NC_STRING && *(char **)fill) CHECK(nc_free_string(1, (char **)fill));
    } else {
        printf(",\"fill_error\":%d", e);
    }
    free(fill);

    int endian = 0;
    e = nc_inq_var_endian(grp, varid, &endian);
    if (e == NC_NOERR)
        printf(",\"endian\":\"%s\"", endian == NC_ENDIAN_BIG      ? "big"
                                     : endian == NC_ENDIAN_LITTLE ? "little"
                                                                  : "native");
    else
        printf(",\"endian_error\":%d", e);

    /* _Codecs is a virtual attribute: not counted by natts, read by name. */
    nc_type ct;
    size_t clen;
    if (nc_inq_att(grp, varid, "_Codecs", &ct, &clen) == NC_NOERR && ct == NC_CHAR) {
        char *codecs = xmalloc(clen + 1);
        CHECK(nc_get_att_text(grp, varid, "_Codecs", codecs));
        fputs(",\"codecs\":", stdout);
        json_strn(codecs, clen);
        free(codecs);
    }

    fputs(",\"atts\":", stdout);
    json_atts(grp, varid);

    void *buf = xmalloc(total * size);
    memset(buf, 0, total * size);
    e = nc_get_var(grp, varid, buf);
    if (e == NC_NOERR) {
        fputs(",\"values\":", stdout);
        json_values(t, buf, total);
        if (t == NC_STRING) CHECK(nc_free_string(total, (char **)buf));
    } else {
        printf(",\"values_error\":%d", e);
    }
    free(buf);
    putchar('}');
    free(dimids);
    free(shape);
    free(chunks);
}

/* ---- groups --------------------------------------------------------------- */

static int first_group = 1;

static void json_group(int grp, const char *path) {
    if (!first_group) putchar(',');
    first_group = 0;
    json_str(path);
    fputs(":{\"dims\":{", stdout);

    int ndims;
    CHECK(nc_inq_dimids(grp, &ndims, NULL, 0));
    int *ids = xmalloc(sizeof(int) * (size_t)(ndims + 1));
    CHECK(nc_inq_dimids(grp, &ndims, ids, 0));
    for (int d = 0; d < ndims; d++) {
        char name[NC_MAX_NAME + 1];
        size_t len;
        CHECK(nc_inq_dim(grp, ids[d], name, &len));
        if (d) putchar(',');
        json_str(name);
        printf(":%zu", len);
    }
    fputs("},\"unlimited\":[", stdout);
    int nunlim;
    CHECK(nc_inq_unlimdims(grp, &nunlim, NULL));
    int *unlim = xmalloc(sizeof(int) * (size_t)(nunlim + 1));
    CHECK(nc_inq_unlimdims(grp, &nunlim, unlim));
    int first = 1;
    for (int u = 0; u < nunlim; u++) {
        int own = 0;
        for (int d = 0; d < ndims; d++) own |= ids[d] == unlim[u];
        if (!own) continue;
        char name[NC_MAX_NAME + 1];
        CHECK(nc_inq_dimname(grp, unlim[u], name));
        if (!first) putchar(',');
        first = 0;
        json_str(name);
    }
    free(unlim);
    free(ids);

    fputs("],\"attributes\":", stdout);
    json_atts(grp, NC_GLOBAL);

    fputs(",\"variables\":{", stdout);
    int nvars;
    CHECK(nc_inq_varids(grp, &nvars, NULL));
    int *vars = xmalloc(sizeof(int) * (size_t)(nvars + 1));
    CHECK(nc_inq_varids(grp, &nvars, vars));
    for (int v = 0; v < nvars; v++) {
        if (v) putchar(',');
        json_var(grp, vars[v]);
    }
    free(vars);
    fputs("}}", stdout);

    int ngrps;
    CHECK(nc_inq_grps(grp, &ngrps, NULL));
    int *grps = xmalloc(sizeof(int) * (size_t)(ngrps + 1));
    CHECK(nc_inq_grps(grp, &ngrps, grps));
    for (int g = 0; g < ngrps; g++) {
        char name[NC_MAX_NAME + 1];
        CHECK(nc_inq_grpname(grps[g], name));
        char *p = child_path(path, name);
        json_group(grps[g], p);
        free(p);
    }
    free(grps);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s URL\n", argv[0]);
        return 2;
    }
    int ncid;
    int e = nc_open(argv[1], NC_NOWRITE, &ncid);
    if (e != NC_NOERR) {
        fprintf(stderr, "ncvals: nc_open(%s): %s (%d)\n", argv[1], nc_strerror(e), e);
        return 1;
    }
    int format, formatx, mode;
    CHECK(nc_inq_format(ncid, &format));
    CHECK(nc_inq_format_extended(ncid, &formatx, &mode));
    collect_dims(ncid, "/");
    printf("{\"format\":%d,\"formatx\":%d,\"groups\":{", format, formatx);
    json_group(ncid, "/");
    fputs("}}\n", stdout);
    CHECK(nc_close(ncid));
    for (size_t k = 0; k < ndimtab; k++) free(dimtab[k].path);
    free(dimtab);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ncvals: write error on stdout\n");
        return 1;
    }
    return 0;
}
