/*
 * header_compat.c -- compile our public headers and the reference
 * netCDF-C headers (/usr/include, from libnetcdf-dev) into one C
 * translation unit, so that the compiler compares them.
 *
 * C accepts a macro redefinition only when the replacement list is the
 * same, and a function redeclaration only when the types are
 * compatible; with -Wall -Wextra -Werror, any other difference stops
 * the build.  Build it twice, once with -DOURS_FIRST and once with
 * -DREFERENCE_FIRST (and each with and without
 * -DNETCDF_ENABLE_LEGACY_MACROS):
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -fsyntax-only -DOURS_FIRST ctests/header_compat.c
 *
 * scripts/check-headers.sh runs all the variants.
 *
 * Between the two sets, header_compat_exceptions.h removes the include
 * guards and the few macros whose values changed between the reference
 * (4.9.0) and 4.10.1.
 *
 * C (before C23) also refuses a second definition of the same struct or
 * enum, even an identical one.  So the second set's type definitions
 * are renamed to <name>__2nd, together with the functions whose
 * parameters use those types, and this file then proves with static
 * assertions that each renamed type has the same layout (size,
 * alignment, and offset and type of every member) and each renamed
 * function the same signature.  The second set's enum BLOSC_SHUFFLE is
 * skipped through its own #ifndef guard; header_compat_ns.cpp compares
 * it (C++ can put the reference headers in a namespace).
 */

#include <stddef.h>
#include <errno.h>

#if defined(OURS_FIRST) == defined(REFERENCE_FIRST)
#error "define exactly one of OURS_FIRST and REFERENCE_FIRST"
#endif

/* ------------------------------------------------------------------ */
/* First set                                                           */

#if defined(OURS_FIRST)
#include "../include/netcdf.h"
#include "../include/netcdf_filter.h"
#include "../include/netcdf_aux.h"
#include "../include/netcdf_mem.h"
#include "../include/netcdf_meta.h"
#else
#include "/usr/include/netcdf.h"
#include "/usr/include/netcdf_filter.h"
#include "/usr/include/netcdf_aux.h"
#include "/usr/include/netcdf_mem.h"
#include "/usr/include/netcdf_meta.h"
#endif

/* ------------------------------------------------------------------ */
/* Documented differences                                              */

#include "header_compat_exceptions.h"

/* ------------------------------------------------------------------ */
/* Second set, with its type definitions renamed                       */

#define nc_vlen_t nc_vlen_t__2nd
#define NC_memio NC_memio__2nd
#define NC_H5_Filterspec NC_H5_Filterspec__2nd
#define BLOSC_SUBCOMPRESSORS BLOSC_SUBCOMPRESSORS__2nd
#define BLOSC_LZ BLOSC_LZ__2nd
#define BLOSC_LZ4 BLOSC_LZ4__2nd
#define BLOSC_LZ4HC BLOSC_LZ4HC__2nd
#define BLOSC_SNAPPY BLOSC_SNAPPY__2nd
#define BLOSC_ZLIB BLOSC_ZLIB__2nd
#define BLOSC_ZSTD BLOSC_ZSTD__2nd
#define BLOSC_SHUFFLE BLOSC_SHUFFLE /* expands to itself; trips the guard */
#define nc_free_vlens nc_free_vlens__2nd
#define nc_free_vlen nc_free_vlen__2nd
#define nc_open_memio nc_open_memio__2nd
#define nc_close_memio nc_close_memio__2nd
#define ncaux_h5filterspec_parselist ncaux_h5filterspec_parselist__2nd
#define ncaux_h5filterspec_free ncaux_h5filterspec_free__2nd

#if defined(OURS_FIRST)
#include "/usr/include/netcdf.h"
#include "/usr/include/netcdf_filter.h"
#include "/usr/include/netcdf_aux.h"
#include "/usr/include/netcdf_mem.h"
#include "/usr/include/netcdf_meta.h"
#else
#include "../include/netcdf.h"
#include "../include/netcdf_filter.h"
#include "../include/netcdf_aux.h"
#include "../include/netcdf_mem.h"
#include "../include/netcdf_meta.h"
#endif

#undef nc_vlen_t
#undef NC_memio
#undef NC_H5_Filterspec
#undef BLOSC_SUBCOMPRESSORS
#undef BLOSC_LZ
#undef BLOSC_LZ4
#undef BLOSC_LZ4HC
#undef BLOSC_SNAPPY
#undef BLOSC_ZLIB
#undef BLOSC_ZSTD
#undef BLOSC_SHUFFLE
#undef nc_free_vlens
#undef nc_free_vlen
#undef nc_open_memio
#undef nc_close_memio
#undef ncaux_h5filterspec_parselist
#undef ncaux_h5filterspec_free

/* ------------------------------------------------------------------ */
/* The renamed types and functions equal the first set's               */

#define SAME_TYPE(a, b) __builtin_types_compatible_p(a, b)

#define SAME_SIZE(T, U)                                                  \
    _Static_assert(sizeof(T) == sizeof(U) && _Alignof(T) == _Alignof(U), \
                   #T ": size or alignment differs")

#define SAME_MEMBER(T, U, m)                                             \
    _Static_assert(offsetof(T, m) == offsetof(U, m) &&                   \
                       SAME_TYPE(__typeof__(((T *)0)->m),                \
                                 __typeof__(((U *)0)->m)),               \
                   #T "." #m ": offset or type differs")

SAME_SIZE(nc_vlen_t, nc_vlen_t__2nd);
SAME_MEMBER(nc_vlen_t, nc_vlen_t__2nd, len);
SAME_MEMBER(nc_vlen_t, nc_vlen_t__2nd, p);
_Static_assert(sizeof(nc_vlen_t) == sizeof(size_t) + sizeof(void *),
               "nc_vlen_t has members besides len and p");

SAME_SIZE(NC_memio, NC_memio__2nd);
SAME_MEMBER(NC_memio, NC_memio__2nd, size);
SAME_MEMBER(NC_memio, NC_memio__2nd, memory);
SAME_MEMBER(NC_memio, NC_memio__2nd, flags);

SAME_SIZE(NC_H5_Filterspec, NC_H5_Filterspec__2nd);
SAME_MEMBER(NC_H5_Filterspec, NC_H5_Filterspec__2nd, filterid);
SAME_MEMBER(NC_H5_Filterspec, NC_H5_Filterspec__2nd, nparams);
SAME_MEMBER(NC_H5_Filterspec, NC_H5_Filterspec__2nd, params);

/* Enumerators of different enum types: compare them as int values. */
#define SAME_VALUE(e) _Static_assert((int)(e) == (int)(e##__2nd), #e " differs")

SAME_SIZE(enum BLOSC_SUBCOMPRESSORS, enum BLOSC_SUBCOMPRESSORS__2nd);
SAME_VALUE(BLOSC_LZ);
SAME_VALUE(BLOSC_LZ4);
SAME_VALUE(BLOSC_LZ4HC);
SAME_VALUE(BLOSC_SNAPPY);
SAME_VALUE(BLOSC_ZLIB);
SAME_VALUE(BLOSC_ZSTD);

/* Each renamed function must have the signature below, with the first
 * set's types for the original and the second set's for the copy. */
#define SAME_SIGNATURE(f, sig_of)                                              \
    _Static_assert(SAME_TYPE(__typeof__(&f), sig_of(/* first */)) &&          \
                       SAME_TYPE(__typeof__(&f##__2nd), sig_of(__2nd)),       \
                   #f ": signature differs")

#define SIG_nc_free_vlens(s) int (*)(size_t, nc_vlen_t##s *)
#define SIG_nc_free_vlen(s) int (*)(nc_vlen_t##s *)
#define SIG_nc_open_memio(s) int (*)(const char *, int, NC_memio##s *, int *)
#define SIG_nc_close_memio(s) int (*)(int, NC_memio##s *)
#define SIG_ncaux_h5filterspec_parselist(s) \
    int (*)(const char *, int *, size_t *, struct NC_H5_Filterspec##s ***)
#define SIG_ncaux_h5filterspec_free(s) void (*)(struct NC_H5_Filterspec##s *)

SAME_SIGNATURE(nc_free_vlens, SIG_nc_free_vlens);
SAME_SIGNATURE(nc_free_vlen, SIG_nc_free_vlen);
SAME_SIGNATURE(nc_open_memio, SIG_nc_open_memio);
SAME_SIGNATURE(nc_close_memio, SIG_nc_close_memio);
SAME_SIGNATURE(ncaux_h5filterspec_parselist, SIG_ncaux_h5filterspec_parselist);
SAME_SIGNATURE(ncaux_h5filterspec_free, SIG_ncaux_h5filterspec_free);

/* The v2 error globals are declared by both sets; they must agree. */
_Static_assert(SAME_TYPE(__typeof__(ncerr), int) && SAME_TYPE(__typeof__(ncopts), int),
               "ncerr/ncopts");

/* A translation unit must declare something even if every header were
 * empty. */
typedef int header_compat_done;
