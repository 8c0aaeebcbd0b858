/*
 * header_compat_ns.cpp -- the C++ half of the header compatibility
 * test (see header_compat.c for the C half).
 *
 * Our headers are included at global scope and the reference headers
 * (/usr/include, from libnetcdf-dev) inside namespace ref.  This lets
 * C++ compare what C cannot hold in one translation unit:
 *
 *  - macros: as in C, a different replacement list is an error;
 *  - prototypes: functions with C language linkage name the same
 *    function in every namespace, so g++ rejects a reference prototype
 *    whose type differs from ours ("conflicting C language linkage
 *    declaration");
 *  - types: the reference structs and enums live in namespace ref, so
 *    they are compared with ours member by member and value by value
 *    below, including enum BLOSC_SHUFFLE.
 *
 * A function whose parameters use one of those types necessarily has a
 * different C++ type in each namespace, so the reference declarations
 * of these few functions are renamed to <name>__ref and compared after
 * mapping ref:: types onto ours.
 *
 *   g++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only ctests/header_compat_ns.cpp
 */

#include <stddef.h>
#include <errno.h>
#include <type_traits>

#include "../include/netcdf.h"
#include "../include/netcdf_filter.h"
#include "../include/netcdf_aux.h"
#include "../include/netcdf_mem.h"
#include "../include/netcdf_meta.h"

#include "header_compat_exceptions.h"

#define nc_def_user_format nc_def_user_format__ref
#define nc_inq_user_format nc_inq_user_format__ref
#define nc_free_vlens nc_free_vlens__ref
#define nc_free_vlen nc_free_vlen__ref
#define nc_open_memio nc_open_memio__ref
#define nc_close_memio nc_close_memio__ref
#define ncaux_h5filterspec_parselist ncaux_h5filterspec_parselist__ref
#define ncaux_h5filterspec_free ncaux_h5filterspec_free__ref

namespace ref {
#include "/usr/include/netcdf.h"
#include "/usr/include/netcdf_filter.h"
#include "/usr/include/netcdf_aux.h"
#include "/usr/include/netcdf_mem.h"
#include "/usr/include/netcdf_meta.h"
}

#undef nc_def_user_format
#undef nc_inq_user_format
#undef nc_free_vlens
#undef nc_free_vlen
#undef nc_open_memio
#undef nc_close_memio
#undef ncaux_h5filterspec_parselist
#undef ncaux_h5filterspec_free

/* ------------------------------------------------------------------ */
/* Map a type built from ref:: types onto the same type built from ours */

template <class T> struct to_ours { typedef T type; };
template <> struct to_ours<ref::NC_Dispatch> { typedef ::NC_Dispatch type; };
template <> struct to_ours<ref::nc_vlen_t> { typedef ::nc_vlen_t type; };
template <> struct to_ours<ref::NC_memio> { typedef ::NC_memio type; };
template <> struct to_ours<ref::NC_H5_Filterspec> { typedef ::NC_H5_Filterspec type; };
template <class T> struct to_ours<T *> { typedef typename to_ours<T>::type *type; };
template <class T> struct to_ours<const T> { typedef const typename to_ours<T>::type type; };
template <class R, class... A> struct to_ours<R(A...)> {
    typedef typename to_ours<R>::type type(typename to_ours<A>::type...);
};

#define SAME_SIGNATURE(f)                                                        \
    static_assert(std::is_same<to_ours<decltype(ref::f##__ref)>::type,           \
                               decltype(::f)>::value,                            \
                  #f ": signature differs")

SAME_SIGNATURE(nc_def_user_format);
SAME_SIGNATURE(nc_inq_user_format);
SAME_SIGNATURE(nc_free_vlens);
SAME_SIGNATURE(nc_free_vlen);
SAME_SIGNATURE(nc_open_memio);
SAME_SIGNATURE(nc_close_memio);
SAME_SIGNATURE(ncaux_h5filterspec_parselist);
SAME_SIGNATURE(ncaux_h5filterspec_free);

/* ------------------------------------------------------------------ */
/* Types                                                               */

#define SAME_SIZE(T)                                                     \
    static_assert(sizeof(::T) == sizeof(ref::T) &&                       \
                      alignof(::T) == alignof(ref::T),                   \
                  #T ": size or alignment differs")

#define SAME_MEMBER(T, m)                                                \
    static_assert(offsetof(::T, m) == offsetof(ref::T, m) &&             \
                      std::is_same<decltype(::T::m),                     \
                                   decltype(ref::T::m)>::value,          \
                  #T "." #m ": offset or type differs")

static_assert(std::is_same<::nc_type, ref::nc_type>::value, "nc_type");
static_assert(std::is_same<::nclong, ref::nclong>::value, "nclong");

SAME_SIZE(nc_vlen_t);
SAME_MEMBER(nc_vlen_t, len);
SAME_MEMBER(nc_vlen_t, p);

SAME_SIZE(NC_memio);
SAME_MEMBER(NC_memio, size);
SAME_MEMBER(NC_memio, memory);
SAME_MEMBER(NC_memio, flags);

SAME_SIZE(NC_H5_Filterspec);
SAME_MEMBER(NC_H5_Filterspec, filterid);
SAME_MEMBER(NC_H5_Filterspec, nparams);
SAME_MEMBER(NC_H5_Filterspec, params);

#define SAME_ENUMERATOR(e) \
    static_assert(static_cast<long long>(::e) == static_cast<long long>(ref::e), #e " differs")

static_assert(sizeof(enum ::BLOSC_SHUFFLE) == sizeof(enum ref::BLOSC_SHUFFLE), "enum BLOSC_SHUFFLE");
SAME_ENUMERATOR(BLOSC_NOSHUFFLE);
SAME_ENUMERATOR(BLOSC_SHUFFLE);
SAME_ENUMERATOR(BLOSC_BITSHUFFLE);

static_assert(sizeof(enum ::BLOSC_SUBCOMPRESSORS) == sizeof(enum ref::BLOSC_SUBCOMPRESSORS),
              "enum BLOSC_SUBCOMPRESSORS");
SAME_ENUMERATOR(BLOSC_LZ);
SAME_ENUMERATOR(BLOSC_LZ4);
SAME_ENUMERATOR(BLOSC_LZ4HC);
SAME_ENUMERATOR(BLOSC_SNAPPY);
SAME_ENUMERATOR(BLOSC_ZLIB);
SAME_ENUMERATOR(BLOSC_ZSTD);

/* ncerr and ncopts have C linkage in both: the same objects. */
static_assert(std::is_same<decltype(::ncerr), decltype(ref::ncerr)>::value, "ncerr");
static_assert(std::is_same<decltype(::ncopts), decltype(ref::ncopts)>::value, "ncopts");
