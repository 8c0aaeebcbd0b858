/*
 * The internal libnetcdf helpers that Debian's ncdump/ncgen/nccopy import
 * (NC_shellUnescape, NCpathcanonical, nc__testurl, strlcat, nclog,
 * ncsetlogging, NClist, NCURI), exercised through the C ABI.
 *
 * Build against our library:     -DHAVE_410_NAMES  (also tests NC__testurl
 *                                  with three arguments and nc_strlcat)
 * Build against netcdf-c 4.9.0:  -DREFERENCE_LIB   (Debian's libnetcdf.so.19)
 * Under REFERENCE_LIB, the few expectations where 4.9.0 has a bug (noted at
 * each place) take 4.9.0's value, and calls where 4.9.0 crashes are skipped.
 * Run with NCLOGGING and NCTRACING unset (scripts/run-client-ctest.sh).
 *
 * These functions are not in the installed headers, so their 4.9.0
 * prototypes and structures are declared here.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* include/ncpathmgr.h, include/ncmodel.h, dstring.c */
char* NC_shellUnescape(const char* esc);
int NCpathcanonical(const char* srcpath, char** canonp);
int nc__testurl(const char* path, char** basenamep);
size_t strlcat(char* dst, const char* src, size_t dsize);
#ifdef HAVE_410_NAMES
int NC__testurl(const char* path, char** basenamep, int* isfilep);
size_t nc_strlcat(char* dst, const char* src, size_t dsize);
#endif

/* include/nclog.h */
int ncsetlogging(int tf);
void nclog(int tag, const char* fmt, ...);
int ncvlog(int tag, const char* fmt, va_list ap);

/* include/nclist.h (4.9.0 layout) */
typedef struct NClist {
    size_t alloc;
    size_t length;
    void** content;
} NClist;
int nclistnull(void*);
NClist* nclistnew(void);
int nclistfree(NClist*);
int nclistfreeall(NClist*);
int nclistclearall(NClist*);
int nclistsetalloc(NClist*, size_t);
int nclistsetlength(NClist*, size_t);
int nclistset(NClist*, size_t, void*);
void* nclistget(const NClist*, size_t);
int nclistinsert(NClist*, size_t, void*);
void* nclistremove(NClist* l, size_t i);
int nclistpush(NClist*, const void*);
void* nclistpop(NClist*);
void* nclisttop(NClist*);
int nclistcontains(NClist*, void*);
int nclistmatch(NClist*, const char*, int casesensistive);
int nclistelemremove(NClist* l, void* elem);
int nclistunique(NClist*);
NClist* nclistclone(const NClist*, int deep);
void* nclistextract(NClist*);
#define nclistlength(l) ((l) == NULL ? 0 : (l)->length)

/* include/ncuri.h (4.9.0 layout) */
#define NCURIPATH 1
#define NCURIPWD 2
#define NCURIQUERY 4
#define NCURIFRAG 8
#define NCURIENCODEPATH 16
#define NCURIENCODEQUERY 32
#define NCURIBASE (NCURIPWD | NCURIPATH)
#define NCURISVC (NCURIBASE | NCURIQUERY)
#define NCURIALL (NCURIBASE | NCURIQUERY | NCURIFRAG)
typedef struct NCURI {
    char* uri;
    char* protocol;
    char* user;
    char* password;
    char* host;
    char* port;
    char* path;
    char* query;
    char* fragment;
    char** fraglist;
    char** querylist;
} NCURI;
int ncuriparse(const char* s, NCURI** ncuri);
void ncurifree(NCURI* ncuri);
int ncuriappendfragmentkey(NCURI* duri, const char* key, const char* value);
int ncurisetfragmentkey(NCURI* duri, const char* key, const char* value);
char* ncuribuild(NCURI*, const char* prefix, const char* suffix, int flags);
const char* ncurifragmentlookup(NCURI*, const char* param);
const char* ncuriquerylookup(NCURI*, const char* param);
char* ncuridecode(const char* s);
char* ncuriencodeonly(const char* s, const char* allowable);
NCURI* ncuriclone(NCURI*);

#define NC_EURL (-74)

static int passed, failed;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (cond)                                                            \
            passed++;                                                        \
        else {                                                               \
            failed++;                                                        \
            fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                    \
    } while (0)

/* s equals want, both possibly NULL. */
static int streq(const char* s, const char* want)
{
    if (s == NULL || want == NULL)
        return s == want;
    return strcmp(s, want) == 0;
}

/* Compare a malloc'd result with want, report, free it. */
static void check_str(const char* what, char* got, const char* want, int line)
{
    if (streq(got, want))
        passed++;
    else {
        failed++;
        fprintf(stderr, "%s:%d: FAILED: %s: got \"%s\", want \"%s\"\n", __FILE__, line, what,
                got ? got : "(null)", want ? want : "(null)");
    }
    free(got);
}
#define CHECK_STR(what, got, want) check_str(what, got, want, __LINE__)

static void test_shell_unescape(void)
{
    CHECK_STR("unescape", NC_shellUnescape("file:///x/d.zarr\\#mode=nczarr,file"),
              "file:///x/d.zarr#mode=nczarr,file");
    CHECK_STR("unescape other", NC_shellUnescape("a\\b\\\\c\\"), "a\\b\\\\c\\");
    CHECK_STR("unescape empty", NC_shellUnescape(""), "");
    CHECK(NC_shellUnescape(NULL) == NULL);
}

static void test_pathcanonical(void)
{
    static const char* cases[][2] = {
        {"/tmp/x.nc", "/tmp/x.nc"},
        {"rel/x", "rel/x"},
        {"x\\#y", "x/#y"},
        {"C:\\data\\x", "/cygdrive/C/data/x"},
        {"C:", "/cygdrive/C"},
        {"//srv/x", "/cygdrive///srv/x"},
        {"//", "/cygdrive//"},
        {"/cygdrive/c/x", "/cygdrive/c/x"},
        {"/cygdrive/cx", "/cygdrive/cx"},
        {"/:", "/cygdrive//"},
        {"file:///x/d.zarr#mode=nczarr,file", "file:///x/d.zarr#mode=nczarr,file"},
        {"", ""},
    };
    size_t i;
    char* out = (char*)"untouched";
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char* got = NULL;
        CHECK(NCpathcanonical(cases[i][0], &got) == 0);
        CHECK_STR(cases[i][0], got, cases[i][1]);
    }
    CHECK(NCpathcanonical(NULL, &out) == 0);
    CHECK(strcmp(out, "untouched") == 0);
    CHECK(NCpathcanonical("/x", NULL) == 0);
}

static void test_testurl(void)
{
    static const char* cases[][2] = {
        {"file:///x/data.zarr#mode=nczarr,file", "data"},
        {"s3://bucket/key#mode=zarr", "key"},
        {"file:///a/b.tar.gz#x=1", "b.tar"},
        {"file://rel/x.nc", "x"},
        {"https://u:p@h:80/p/name?q=1#f", "name"},
        /* not URLs for 4.9.0 */
        {"/tmp/x.nc", NULL},
        {"file:///x/y/#mode=zarr", NULL},
        {"file:///x/.zarr", NULL},
        {"C:\\x", NULL},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char* base = NULL;
        int r = nc__testurl(cases[i][0], &base);
        CHECK(r == (cases[i][1] != NULL));
        CHECK_STR(cases[i][0], base, cases[i][1]);
    }
    CHECK(nc__testurl("file:///x/d.zarr#mode=zarr", NULL) == 1);
#ifndef REFERENCE_LIB
    /* 4.9.0 crashes (strdup(NULL)) on a URL without a path */
    CHECK(nc__testurl("https://host", NULL) == 0);
#endif
#ifdef HAVE_410_NAMES
    {
        char* base = NULL;
        int isfile = -1;
        CHECK(NC__testurl("file:///x/data.zarr#mode=nczarr,file", &base, &isfile) == 1);
        CHECK(isfile == 1);
        CHECK_STR("NC__testurl", base, "data");
        base = NULL;
        CHECK(NC__testurl("https://host", &base, &isfile) == 1);
        CHECK(isfile == 0);
        CHECK_STR("NC__testurl no path", base, "");
        base = NULL;
        CHECK(NC__testurl("file:///x/.zarr", &base, NULL) == 1);
        CHECK_STR("NC__testurl dot", base, ".zarr");
        base = NULL;
        isfile = -1;
        CHECK(NC__testurl("/tmp/x.nc", &base, &isfile) == 0);
        CHECK(base == NULL && isfile == 0);
    }
#endif
}

static void test_strlcat(void)
{
    char b[8] = "ab";
    char full[8] = "abcdefg";
    CHECK(strlcat(b, "cdef", sizeof b) == 6);
    CHECK(strcmp(b, "abcdef") == 0);
    CHECK(strlcat(b, "ghijk", sizeof b) == 11);
    CHECK(strcmp(b, "abcdefg") == 0);
    CHECK(strlcat(b, "xyz", 0) == 3);
    CHECK(strcmp(b, "abcdefg") == 0);
    /* no NUL within dsize: nothing written, dsize + strlen(src) returned */
    CHECK(strlcat(full, "xy", 4) == 6);
    CHECK(strcmp(full, "abcdefg") == 0);
    b[0] = '\0';
    CHECK(strlcat(b, "", sizeof b) == 0);
    CHECK(b[0] == '\0');
#ifdef HAVE_410_NAMES
    b[0] = '\0';
    CHECK(nc_strlcat(b, "0123456789", sizeof b) == 10);
    CHECK(strcmp(b, "0123456") == 0);
#endif
}

static int call_ncvlog(int tag, const char* fmt, ...)
{
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = ncvlog(tag, fmt, ap);
    va_end(ap);
    return r;
}

static void test_logging(void)
{
    int saved;
    FILE* tmp = tmpfile();
    char text[256];
    size_t n;

    CHECK(ncsetlogging(1) == 0);
    CHECK(ncsetlogging(0) == 1);
    CHECK(ncsetlogging(0) == 0);

    /* Capture standard error in a temporary file. */
    fflush(stderr);
    saved = dup(2);
    CHECK(tmp != NULL && saved >= 0);
    if (tmp == NULL || saved < 0)
        return;
    dup2(fileno(tmp), 2);

    nclog(1, "hidden %d", 1);                        /* logging off */
    CHECK(ncsetlogging(1) == 0);
    nclog(1, "hello %d %s %.2f", 42, "x", 1.5);       /* Warning:... */
    nclog(7, "odd tag");                              /* unknown:... */
    CHECK(call_ncvlog(0, "note %s", "n") == -1);      /* Note:... */
    CHECK(ncsetlogging(0) == 1);
    CHECK(call_ncvlog(2, "err %c", 'e') == 0);        /* an error turns logging on */
    CHECK(ncsetlogging(0) == 1);
    nclog(3, "%s", "hidden again");
    nclog(1, NULL);

    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    n = fread(text, 1, sizeof text - 1, tmp);
    text[n] = '\0';
    fclose(tmp);
    CHECK(strcmp(text, "Warning:hello 42 x 1.50\nunknown:odd tag\nNote:note n\nError:err e\n") == 0);
    if (strcmp(text, "Warning:hello 42 x 1.50\nunknown:odd tag\nNote:note n\nError:err e\n") != 0)
        fprintf(stderr, "log text was: [%s]\n", text);
}

static void test_list(void)
{
    static char a[] = "Alpha", b[] = "beta", c[] = "gamma";
    NClist* l = nclistnew();
    NClist* k;
    void** content;
    size_t i;

    CHECK(l != NULL && l->alloc == 0 && l->length == 0 && l->content == NULL);
    CHECK(nclistnull(NULL) == 1 && nclistnull(l) == 0);

    /* ncdump's breadth-first group queue */
    for (i = 1; i <= 40; i++)
        CHECK(nclistpush(l, (void*)(uintptr_t)i) == 1);
    CHECK(nclistlength(l) == 40 && l->alloc >= 40);
    for (i = 1; nclistlength(l) > 0; i++) {
        void* id = nclistremove(l, 0);
        if ((uintptr_t)id != i)
            break;
    }
    CHECK(i == 41 && l->length == 0);
    CHECK(nclistremove(l, 0) == NULL);
    CHECK(nclistpop(l) == NULL && nclisttop(l) == NULL);

    CHECK(nclistpush(l, a) && nclistpush(l, c));
    CHECK(nclistinsert(l, 1, b) == 1);            /* a b c */
    CHECK(nclistinsert(l, 4, a) == 0);            /* past the end */
    CHECK(nclistinsert(l, 3, a) == 1);            /* a b c a */
    CHECK(l->length == 4 && nclistget(l, 1) == b && nclistget(l, 3) == a);
    CHECK(nclistget(l, 4) == NULL && nclistget(NULL, 0) == NULL);
    CHECK(nclisttop(l) == a && nclistpop(l) == a && l->length == 3);
    CHECK(nclistcontains(l, c) == 1 && nclistcontains(l, (void*)1) == 0);
    CHECK(nclistmatch(l, "alpha", 1) == 0 && nclistmatch(l, "alpha", 0) == 1);
    CHECK(nclistmatch(l, "gamma", 1) == 1 && nclistmatch(l, "delta", 0) == 0);

    k = nclistclone(l, 0);
    CHECK(k != NULL && k->length == 3 && k->alloc >= 4 && k->content[3] == NULL);
    CHECK(k->content[0] == a && k->content[2] == c);
    content = (void**)nclistextract(k);
    CHECK(content != NULL && content[1] == b && k->length == 0 && k->alloc == 0 && k->content == NULL);
    free(content);
    nclistfree(k);

    k = nclistclone(l, 1);
    CHECK(k != NULL && k->length == 3 && k->content[0] != a && strcmp(k->content[0], "Alpha") == 0);
    CHECK(k->content[3] == NULL);
    nclistfreeall(k);

    CHECK(nclistelemremove(l, b) == 1 && nclistelemremove(l, b) == 0);
    CHECK(l->length == 2 && nclistget(l, 1) == c);

    /* set past the end grows the list with NULL slots */
    CHECK(nclistset(l, 5, b) == 1);
    CHECK(l->length == 6 && l->alloc >= 6 && nclistget(l, 3) == NULL && nclistget(l, 5) == b);
    CHECK(nclistsetlength(l, 1) == 1 && l->length == 1);
    CHECK(nclistsetlength(l, 3) == 1 && nclistget(l, 2) == NULL);
    CHECK(nclistsetalloc(l, 100) == 1 && l->alloc == 100 && l->length == 3);

    /* unique: a b a c b -> a b c */
    nclistsetlength(l, 0);
    nclistpush(l, a);
    nclistpush(l, b);
    nclistpush(l, a);
    nclistpush(l, c);
    nclistpush(l, b);
    CHECK(nclistunique(l) == 1);
    CHECK(l->length == 3 && l->content[0] == a && l->content[1] == b && l->content[2] == c);
    CHECK(nclistfree(l) == 1);
    CHECK(nclistfree(NULL) == 1);

    /* freeall frees the elements */
    l = nclistnew();
    nclistpush(l, strdup("x"));
    nclistpush(l, NULL);
    nclistpush(l, strdup("y"));
    CHECK(nclistclearall(l) == 1 && l->length == 0);
    nclistpush(l, strdup("z"));
    CHECK(nclistfreeall(l) == 1);
}

static void test_uri(void)
{
    NCURI* u = NULL;
    NCURI* v;

    CHECK(ncuriparse("https://u:p@host:8080/a/b.c?x=1&y#frag", &u) == 0);
    if (u == NULL)
        return;
    CHECK(streq(u->uri, "https://u:p@host:8080/a/b.c?x=1&y#frag"));
    CHECK(streq(u->protocol, "https") && streq(u->user, "u") && streq(u->password, "p"));
    CHECK(streq(u->host, "host") && streq(u->port, "8080") && streq(u->path, "/a/b.c"));
    CHECK(streq(u->query, "x=1&y") && streq(u->fragment, "frag"));
    CHECK(u->fraglist != NULL && streq(u->fraglist[0], "frag") && streq(u->fraglist[1], ""));
    CHECK(u->querylist != NULL && streq(u->querylist[0], "x") && streq(u->querylist[1], "1"));
    CHECK(streq(u->querylist[2], "y") && streq(u->querylist[3], "") && u->querylist[4] == NULL);
    CHECK_STR("build all", ncuribuild(u, NULL, NULL, NCURIALL), "https://u:p@host:8080/a/b.c?x=1&y#frag");
    CHECK_STR("build path", ncuribuild(u, NULL, NULL, NCURIPATH), "https://host:8080/a/b.c");
    CHECK_STR("build svc", ncuribuild(u, "P", ".dds", NCURISVC), "Phttps://u:p@host:8080/a/b.c.dds?x=1&y");
    CHECK(streq(ncuriquerylookup(u, "X"), "1") && ncuriquerylookup(u, "z") == NULL);
    ncurifree(u);
    ncurifree(NULL);

    /* ncdump -w on an NCZarr URL: parse, append "cache", rebuild */
    u = NULL;
    CHECK(ncuriparse("file:///x/data.zarr#mode=nczarr,file", &u) == 0);
    if (u == NULL)
        return;
    CHECK(streq(u->protocol, "file") && u->host == NULL && streq(u->path, "/x/data.zarr"));
    CHECK(streq(u->fragment, "mode=nczarr,file") && u->query == NULL && u->querylist == NULL);
    CHECK(streq(ncurifragmentlookup(u, "MODE"), "nczarr,file"));
    CHECK(ncuriappendfragmentkey(u, "cache", NULL) == 0);
    v = ncuriclone(u);
#ifdef REFERENCE_LIB
    /* 4.9.0 bug: the rebuilt fragment text starts with '#', so the URL
       gets "##" and its mode is lost */
    CHECK(streq(u->fragment, "#mode=nczarr,file&cache"));
    CHECK_STR("append", ncuribuild(u, NULL, NULL, NCURIALL), "file:///x/data.zarr##mode=nczarr,file&cache");
#else
    CHECK(streq(u->fragment, "mode=nczarr,file&cache"));
    CHECK_STR("append", ncuribuild(u, NULL, NULL, NCURIALL), "file:///x/data.zarr#mode=nczarr,file&cache");
    CHECK_STR("clone", ncuribuild(v, NULL, NULL, NCURIALL), "file:///x/data.zarr#mode=nczarr,file&cache");
    CHECK(ncurisetfragmentkey(u, "Cache", "yes") == 0);
    CHECK(ncurisetfragmentkey(u, "nokey", "x") != 0);
    CHECK_STR("setkey", ncuribuild(u, NULL, NULL, NCURIALL), "file:///x/data.zarr#mode=nczarr,file&cache=yes");
#endif
    ncurifree(v);
    ncurifree(u);

#ifndef REFERENCE_LIB
    /* 4.9.0 crashes appending to a URL without fragment */
    u = NULL;
    CHECK(ncuriparse("https://h/p", &u) == 0 && u != NULL && u->fragment == NULL);
    CHECK(ncuriappendfragmentkey(u, "cache", NULL) == 0);
    CHECK_STR("append new", ncuribuild(u, NULL, NULL, NCURIALL), "https://h/p#cache");
    ncurifree(u);
#endif

    /* other forms */
    u = NULL;
    CHECK(ncuriparse("file:/abs/p.nc#mode=nczarr", &u) == 0);
    CHECK_STR("file:/", ncuribuild(u, NULL, NULL, NCURIALL), "file:///abs/p.nc#mode=nczarr");
    ncurifree(u);
    u = NULL;
    CHECK(ncuriparse("[log][show=fetch]https://h/p", &u) == 0);
    CHECK_STR("prefix params", ncuribuild(u, NULL, NULL, NCURIALL), "https://h/p#log&show=fetch");
    ncurifree(u);
    u = NULL;
    CHECK(ncuriparse("https://host", &u) == 0 && u != NULL && u->path == NULL);
    CHECK_STR("no path", ncuribuild(u, NULL, NULL, NCURIALL), "https://host/");
    ncurifree(u);
    u = NULL;
    CHECK(ncuriparse("file://rel/x.nc", &u) == 0 && u != NULL && streq(u->path, "rel/x.nc"));
    ncurifree(u);

    /* not URLs: nothing written */
    u = NULL;
    CHECK(ncuriparse("/tmp/x.nc", &u) == NC_EURL && u == NULL);
    CHECK(ncuriparse("", &u) == NC_EURL && u == NULL);
    CHECK(ncuriparse(NULL, &u) == NC_EURL && u == NULL);
    CHECK(ncuriparse("https://@h/x", &u) == NC_EURL && u == NULL);
    CHECK(ncuriparse("https://h:8x/x", &u) == NC_EURL && u == NULL);
    CHECK(ncuriparse("file:////x", &u) == NC_EURL && u == NULL);

    CHECK_STR("decode", ncuridecode("a%20b%2fc%zz"), "a b/c%zz");
    /* only the listed characters pass, letters included */
    CHECK_STR("encode", ncuriencodeonly("a b/c,d", "/,"), "%61%20%62/%63,%64");
    CHECK_STR("encode alnum", ncuriencodeonly("a b/C,9", "abC9/,"), "a%20b/C,9");
}

int main(void)
{
    test_shell_unescape();
    test_pathcanonical();
    test_testurl();
    test_strlcat();
    test_logging();
    test_list();
    test_uri();
#ifdef REFERENCE_LIB
    printf("test_client_helpers (reference netcdf-c 4.9.0):\n");
#else
    printf("test_client_helpers:\n");
#endif
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
