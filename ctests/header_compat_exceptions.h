/*
 * header_compat_exceptions.h -- the documented differences between our
 * headers (netCDF-C 4.10.1) and the reference headers the compatibility
 * test compiles them with (Debian bookworm's libnetcdf-dev, netCDF-C
 * 4.9.0, in /usr/include).
 *
 * Included by ctests/header_compat.c and ctests/header_compat_ns.cpp
 * between the first and the second set of headers.  Everything not
 * listed here must be identical: a macro defined with another
 * replacement list, or a conflicting prototype, fails the build under
 * -Werror.  scripts/check-headers.sh also checks that every entry is
 * still needed (a listed macro must really differ, a listed absentee
 * must really be absent), so the list cannot go stale.
 *
 * Keep one entry per line; the script parses the "#undef NAME" lines
 * of section 2 and the "ABSENT:" lines of section 3.
 */

/* ---- 1. include guards: let the second set be read at all --------- */
#undef _NETCDF_
#undef NETCDF_FILTER_H
#undef NCAUX_H
#undef NETCDF_MEM_H
#undef NETCDF_META_H

/* ---- 2. macros whose value changed between 4.9.0 and 4.10.1 --------
 * BEGIN DIFFERING MACROS */
/* netcdf.h: 4.10 added user-defined formats UDF2..UDF9 to the mask. */
#undef NC_FORMAT_ALL
/* netcdf.h: the float NSD limit was corrected from 7 to 6 in 4.10. */
#undef NC_QUANTIZE_MAX_FLOAT_NSD
/* netcdf.h: 4.10 added NC_ENOTZARR (-143) and NC_EZARRMETA (-144). */
#undef NC4_LAST_ERROR
/* netcdf_meta.h: version 4.9.0 -> 4.10.1. */
#undef NC_VERSION_MINOR
#undef NC_VERSION_PATCH
#undef NC_VERSION
/* netcdf_meta.h: build features of Debian's HDF5/DAP build that this
 * library does not have, or has and Debian's build lacks (zstd). */
#undef NC_HAS_HDF5
#undef NC_HAS_SZIP
#undef NC_HAS_SZIP_WRITE
#undef NC_HAS_DAP2
#undef NC_HAS_DAP4
#undef NC_HAS_DISKLESS
#undef NC_HAS_MMAP
#undef NC_HAS_ERANGE_FILL
#undef NC_HAS_PAR_FILTERS
#undef NC_HAS_ZSTD
/* END DIFFERING MACROS */

/* ---- 3. things the reference declares that 4.10.1 no longer does ---
 * (absence cannot conflict, so nothing to undo here; listed so the
 * script can check that nothing else has gone missing)
 *
 * ABSENT: NC_HAS_NC4          netcdf_meta.h; removed from the 4.10 template
 * ABSENT: NC_HAS_JNA          netcdf_meta.h; removed from the 4.10 template
 * ABSENT: NC_HAS_MULTIFILTERS netcdf_meta.h; removed from the 4.10 template
 * ABSENT: _FillValue          netcdf.h; 4.10 defines it only when the client defines NETCDF_ENABLE_LEGACY_MACROS
 * ABSENT: nc_dump_data        netcdf.h; prototype dropped in 4.10 (the library still exports the symbol)
 */
