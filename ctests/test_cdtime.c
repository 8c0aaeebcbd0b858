/* Differential test of the cdtime helpers and nc_utf8_to_utf16.
 *
 * The program prints what the library returns for a few thousand
 * (calendar, units, value) cases; scripts/run-cdtime-ctest.sh builds it
 * once against our libnetcdf and once against netcdf-c 4.9.0 (Debian's
 * libnetcdf.so.19) and requires identical output. Error messages are part
 * of the output: the library prints them on stderr (CU_VERBOSE), which the
 * script merges into stdout; both streams are unbuffered here so the
 * interleaving is deterministic.
 *
 * The functions are not in netcdf-c's installed headers, so the types and
 * prototypes of netcdf-c 4.9.0 (include/nctime.h, include/ncutf8.h) are
 * declared below.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cdCalenType */
enum {
    cdStandard = 0x1111,
    cdJulian = 0x11111,
    cdNoLeap = 0x1011,
    cd360 = 0x11,
    cd366 = 0x2011,
    cdClim = 0x1000,
    cdClimLeap = 0x1100,
    cdClim360 = 0x0,
    cdMixed = 0x21111
};
/* CdTimeType */
enum {
    CdChron = 0x1111,
    CdJulianCal = 0x11111,
    CdChronNoLeap = 0x1011,
    CdChron360 = 0x11,
    CdRel = 0x1101,
    CdRelNoLeap = 0x1001,
    CdClim = 0x1000,
    CdClimLeap = 0x1100,
    CdChron366 = 0x2011
};
#define CU_FATAL 1
#define CU_VERBOSE 2
#define CD_MAX_CHARTIME 48

typedef struct {
    long year;
    short month;
    short day;
    double hour;
} cdCompTime;

typedef struct {
    long year;
    short month;
    short day;
    double hour;
    long baseYear;
    int timeType;
} CdTime;

extern int cdParseRelunits(int timetype, char *relunits, int *unit, cdCompTime *base_comptime);
extern void cdRel2Iso(int timetype, char *relunits, int separator, double reltime, char *chartime);
extern void cdChar2Comp(int timetype, char *chartime, cdCompTime *comptime);
extern void Cdh2e(CdTime *htime, double *etime);
extern void Cde2h(double etime, int timeType, long baseYear, CdTime *htime);
extern int cdSetErrOpts(int opts);
extern int nc_utf8_to_utf16(const unsigned char *s8, unsigned short **utf16p, size_t *lenp);

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
    const char *name;
    int value;
} calendars[] = {
    {"mixed", cdMixed},   {"standard", cdStandard}, {"julian", cdJulian},
    {"noleap", cdNoLeap}, {"360", cd360},           {"366", cd366},
    {"clim", cdClim},     {"climleap", cdClimLeap}, {"clim360", cdClim360},
};

static const char *units[] = {
    "seconds since 1970-01-01",
    "seconds since 1970-01-01 00:00:00",
    "seconds since 1970-01-01T00:00:00Z",
    "seconds since 2000-01-01 00:00:00.5",
    "sec since 1999-12-31 23:59:59",
    "s since 2000-01-01",
    "minutes since 2000-02-28 23:00",
    "mn since 1900-03-01",
    "hours since 1900-01-01 00:00:00.0",
    "hours since 1582-10-01",
    "hr since 2000-06-30 18",
    "Hours Since 1800-1-1 6:00:00",
    "days since 0001-01-01",
    "days since 1-1-1 0:0:0",
    "days since 1582-10-04",
    "days since 1582-10-05",
    "days since 1582-10-10",
    "days since 1582-10-15 12:00",
    "days since 1600-02-28",
    "days since 2000-01-01 06:30:15.25",
    "days since 1970-01-01 00:00:00 UTC",
    "days since 2000-01-01T12:00:00+05:00",
    "days since 2000-01-01 12:00:00 -6:00",
    "days since  2000-01-01   10:00",
    "days since -4712-01-01 12:00",
    "days since -100-03-01",
    "dy since 10000-01-01",
    "days since 2000-01-01 24:00:00",
    "days since 2000-01-01 23:59:60",
    "days since 2000-02-30",
    "days since 2000-13-01",
    "days since 2000-00-00",
    "days since 2000-01-01 25:00",
    "days since 2000-01-01 12:61",
    "days since 2000-01-01 12:00:61",
    "days since T12:00",
    "days since 2000-01-01T",
    "days since 1-1",
    "days since 12-31 18",
    "days since garbage",
    "days since",
    "days",
    "DAYS SINCE 2000-1-1",
    "weeks since 1999-12-27",
    "wk since 2001-01-01",
    "months since 2000-01-31",
    "months since 1850-01-15 12:00",
    "months since 2000-13-01",
    "mo since 1-1",
    "seasons since 2000-12-01",
    "years since 2000-02-29",
    "years since 1500-06-15",
    "yr since 1-1",
    "common_years since 2000-01-01",
    "fortnights since 2000-01-01",
    "d since 2000-01-01",
    "",
    "   ",
};

static const double values[] = {
    0.0,      1.0,      -1.0,       0.5,      -0.5,         1.5,         0.25,        -0.75,
    2.0,      11.0,     12.0,       12.25,    13.0,         -13.0,       23.999999,   29.0,
    59.0,     60.0,     -60.0,      0.1,      1.0 / 3.0,    2.0 / 3.0,   0.9999999999,
    100.0,    359.5,    360.0,      365.0,    366.0,        1000.0,      1461.0,      3600.0,
    86399.5,  86400.0,  146097.0,   730119.0, 730120.0,     730121.0,    -730120.0,   1.0e6,
    -1.0e6,   1.0e9,    -2.5e9,     3.0e9,    1.0e12,       123456.789,  -98765.4321,
};

static void show_comp(const cdCompTime *c)
{
    printf("%ld %hd %hd %.17g", c->year, c->month, c->day, c->hour);
}

static void show_cdtime(const CdTime *h)
{
    printf("%ld %hd %hd %.17g base=%ld type=%#x", h->year, h->month, h->day, h->hour, h->baseYear,
           (unsigned)h->timeType);
}

static void test_parse_relunits(void)
{
    size_t c, u;
    for (c = 0; c < N(calendars); c++) {
        for (u = 0; u < N(units); u++) {
            int unit = -99;
            cdCompTime base = {-99, -99, -99, -99.0};
            int rc;
            printf("parse %s \"%s\": ", calendars[c].name, units[u]);
            rc = cdParseRelunits(calendars[c].value, (char *)units[u], &unit, &base);
            printf("rc=%d unit=%d ", rc, unit);
            show_comp(&base);
            printf("\n");
        }
    }
}

static void test_rel2iso(void)
{
    size_t c, u, v;
    for (c = 0; c < N(calendars); c++) {
        for (u = 0; u < N(units); u++) {
            int unit;
            cdCompTime base;
            int old = cdSetErrOpts(0);
            /* netcdf-c formats an uninitialised date when the units do not
             * parse: call cdRel2Iso only with units that do (as ncdump). */
            int bad = cdParseRelunits(calendars[c].value, (char *)units[u], &unit, &base);
            cdSetErrOpts(old);
            if (bad)
                continue;
            for (v = 0; v < N(values); v++) {
                char out[CD_MAX_CHARTIME + 16];
                int sep = (v % 3 == 2) ? 'T' : ' ';
                /* netcdf-c walks year by year: keep month, season and year
                 * offsets to a few million years. */
                if (unit >= 5 && unit <= 7 && (values[v] > 2.0e6 || values[v] < -2.0e6))
                    continue;
                strcpy(out, "<untouched>");
                printf("iso %s \"%s\" %.17g: ", calendars[c].name, units[u], values[v]);
                cdRel2Iso(calendars[c].value, (char *)units[u], sep, values[v], out);
                printf("\"%s\"\n", out);
            }
        }
    }
}

static void test_char2comp(void)
{
    static const char *dates[] = {
        "2000-01-01", "2000-1-1 12", "1999-12-31 23:59:59.999", "1582-10-15 0:0:0",
        "-44-03-15 12:30", "0-1-1", "2000-02", "2000", "12-25", "12-25 06:15",
        "2000-01-01 24:00", "2000-01-01 -1:00", "2000-01-01 12:60", "2000-01-01 12:00:60",
        "2000-01-01 12:00:60.5", "2000-01-01 12:00:1e1", "2000-01-01 12:00:1e", "2000-01-01 1:2:0x10",
        "2000-01-01 1:2:inf", "2000-01-01 1:2:nan", "2000-13-40", "2000 -01-01", " 2000-01-01",
        "+2000-+01-+01 +1:+2:+3.5", "99999999999999999999-1-1", "2000-70000-1", "x", "", "-",
        "1-1 1:1:1.5", "07-04T12", "2000-01-01 1:2:0x.", "2000-01-01 1:2:1e+", "2000-01-01 1:2:.5e",
        "2000-01-01 1:2:nan(x)", "2000-01-01 1:2:0x1p", "2000-01-01 1:2:0x", "2000-01-01 1:2:infin",
        "2000-01-01 1:2:1.5.3", "2000-01-01 1:2:00x1", "2000-01-01\t1:2:3", "2000-01-01\v1:2:3",
    };
    size_t c, d;
    for (c = 0; c < N(calendars); c++) {
        for (d = 0; d < N(dates); d++) {
            cdCompTime comp = {-99, -99, -99, -99.0};
            printf("char2comp %s \"%s\": ", calendars[c].name, dates[d]);
            cdChar2Comp(calendars[c].value, (char *)dates[d], &comp);
            show_comp(&comp);
            printf("\n");
        }
    }
}

static void test_epoch(void)
{
    static const int types[] = {CdChron, CdJulianCal, CdChronNoLeap, CdChron360, CdChron366,
                                CdRel,   CdRelNoLeap, CdClim,        CdClimLeap};
    static const long years[] = {-4713, -401, -1,   0,    1,    4,    30,   100,
                                 1582,  1600, 1900, 1969, 1970, 1971, 2000, 2024, 9999, 100000};
    /* Far enough for netcdf-c's int day count to wrap; it walks year by
     * year, so only a few calls. */
    static const long far_years[] = {6000000, -6000000, 12345678};
    static const short months[] = {0, 1, 2, 3, 12, 13};
    static const short days[] = {1, 28, 29, 31};
    static const double hours[] = {0.0, 12.5, 23.999};
    static const long bases[] = {1970, 2000, 0};
    static const double etimes[] = {0.0,   -1.0,    23.5,    24.0,     -24.0,    8760.0,
                                    8784.0, -8760.5, 1.0e5,  -1.0e5,   1.0e7,    -1.0e7,
                                    3.3e8,  -3.3e8,  1.0e11, -1.0e11};
    size_t t, y, m, d, h, b, e;
    for (t = 0; t < N(types); t++) {
        for (y = 0; y < N(years); y++)
            for (m = 0; m < N(months); m++)
                for (d = 0; d < N(days); d++)
                    for (h = 0; h < N(hours); h++) {
                        b = (y + m + d + h) % N(bases);
                        {
                            CdTime ht = {years[y], months[m], days[d], hours[h], bases[b], types[t]};
                            double et = -1.0;
                            printf("h2e ");
                            show_cdtime(&ht);
                            printf(": ");
                            Cdh2e(&ht, &et);
                            printf("%.17g\n", et);
                        }
                    }
        for (y = 0; y < N(far_years); y++) {
            CdTime ht = {far_years[y], 3, 1, 6.0, 1970, types[t]};
            double et = -1.0;
            printf("h2e ");
            show_cdtime(&ht);
            printf(": ");
            Cdh2e(&ht, &et);
            printf("%.17g\n", et);
        }
        for (e = 0; e < N(etimes); e++)
            for (b = 0; b < N(bases); b++) {
                CdTime ht = {-99, -99, -99, -99.0, -99, -99};
                printf("e2h %#x %.17g %ld: ", (unsigned)types[t], etimes[e], bases[b]);
                Cde2h(etimes[e], types[t], bases[b], &ht);
                show_cdtime(&ht);
                printf("\n");
            }
    }
}

static void test_utf16(void)
{
    static const char *strings[] = {
        "",
        "abc",
        "caf\xc3\xa9",
        "\xe2\x82\xac 100",
        "\xef\xbf\xbf",
        "\xf0\x9f\x98\x80",
        "a\xf4\x8f\xbf\xbf",
        "\xf4\x90\x80\x80",
        "\xc0\xaf",
        "\xc1\xbf",
        "\xc2\x80",
        "\xe0\x9f\xbf",
        "\xe0\xa0\x80",
        "\xed\x9f\xbf",
        "\xed\xa0\x80",
        "\xe2\x82",
        "\xe2",
        "\x80",
        "a\xffz",
        "\xf5\x80\x80\x80",
        "tab\there",
    };
    size_t i, k;
    for (i = 0; i < N(strings); i++) {
        unsigned short *u16 = NULL;
        size_t len = 12345;
        int rc = nc_utf8_to_utf16((const unsigned char *)strings[i], &u16, &len);
        printf("utf16 #%zu: rc=%d", i, rc);
        if (rc == 0) {
            printf(" len=%zu units=", len);
            for (k = 0; k <= len; k++)
                printf("%s%04x", k ? "," : "", u16[k]);
            free(u16);
        }
        printf("\n");
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    setvbuf(stderr, NULL, _IONBF, 0);
    if (cdSetErrOpts(CU_VERBOSE) != 0)
        printf("initial error options not 0\n");
    test_parse_relunits();
    test_rel2iso();
    test_char2comp();
    test_epoch();
    test_utf16();
    return 0;
}
