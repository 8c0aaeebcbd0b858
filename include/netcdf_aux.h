/*
 * netcdf_aux.h -- auxiliary helpers (ncaux_*) of the nczarr libnetcdf.
 *
 * Written for the nczarr project; declares the same interface as
 * netCDF-C 4.10.1's netcdf_aux.h (same constants, types and
 * prototypes).
 *
 * netCDF-C requires netcdf.h to be included before this header; this
 * one also includes it itself, so either order works.
 */

#ifndef NCAUX_H
#define NCAUX_H

#include "netcdf.h"

/* Alignment rules for ncaux_begin_compound(). */
#define NCAUX_ALIGN_C 0       /* lay fields out as the C compiler would */
#define NCAUX_ALIGN_UNIFORM 1 /* no padding */

#if defined(__cplusplus)
extern "C" {
#endif

/* ===================================================================
 * Releasing, copying and printing data.
 *
 * Deprecated: thin wrappers of nc_reclaim_data(), nc_reclaim_data_all(),
 * nc_copy_data() and nc_copy_data_all() of netcdf.h.
 * =================================================================== */

EXTERNL int ncaux_reclaim_data(int ncid, int xtype, void *memory, size_t count);
EXTERNL int ncaux_reclaim_data_all(int ncid, int xtype, void *memory, size_t count);
EXTERNL int ncaux_copy_data(int ncid, int xtype, void *memory, size_t count, void *copy);
EXTERNL int ncaux_copy_data_all(int ncid, int xtype, void *memory, size_t count, void **copyp);

/* Render count values as text into a malloc'ed string (*buf). */
EXTERNL int ncaux_dump_data(int ncid, nc_type xtypeid, void *memory, size_t count, char **buf);

/* nc_inq_user_type() that also accepts atomic types.  (netCDF-C names
 * the second parameter "typeid", a C++ keyword that stops its header
 * compiling as C++; only the name differs here.) */
EXTERNL int ncaux_inq_any_type(int ncid, nc_type xtypeid, char *name, size_t *size, nc_type *basetypep, size_t *nfieldsp, int *classp);

/* ===================================================================
 * Filter specifications in HDF5 form (id plus unsigned int parameters)
 * =================================================================== */

typedef struct NC_H5_Filterspec {
    unsigned int filterid; /* HDF5 filter id */
    size_t nparams;        /* number of parameters */
    unsigned int *params;  /* the parameters */
} NC_H5_Filterspec;

/* Parse "id,p1,p2,..." into an id and a malloc'ed parameter vector. */
EXTERNL int ncaux_h5filterspec_parse(const char *txt, unsigned int *idp, size_t *nparamsp, unsigned int **paramsp);
/* Parse a '|'-separated list of specs, optionally prefixed by "[format]",
 * into a malloc'ed vector. */
EXTERNL int ncaux_h5filterspec_parselist(const char *txt0, int *formatp, size_t *nspecsp, struct NC_H5_Filterspec ***vectorp);
/* Parse one parameter (which may expand to several unsigned ints). */
EXTERNL int ncaux_h5filterspec_parse_parameter(const char *txt, size_t *nuiparamsp, unsigned int *uiparams);
EXTERNL void ncaux_h5filterspec_free(struct NC_H5_Filterspec *f);
/* Convert, in place, an 8-byte value (long long or double parameter)
 * between native order and its two-unsigned-int parameter encoding
 * (decode != 0: encoding to native).  Nothing to do on little-endian
 * machines. */
EXTERNL void ncaux_h5filterspec_fix8(unsigned char *mem, int decode);

/* ===================================================================
 * Whole-file read and write
 * =================================================================== */

EXTERNL int ncaux_readfile(const char *filename, size_t *sizep, void **content);
EXTERNL int ncaux_writefile(const char *filename, size_t size, void *content);

/* ===================================================================
 * Type alignment and building compound types with correct offsets
 * =================================================================== */

/* Alignment of any type, or of a type class. */
EXTERNL int ncaux_type_alignment(int xtype, int ncid, size_t *alignp);
EXTERNL int ncaux_class_alignment(int ncclass, size_t *alignp);

EXTERNL int ncaux_begin_compound(int ncid, const char *name, int alignmode, void **tag);
EXTERNL int ncaux_end_compound(void *tag, nc_type *xtypeid);
EXTERNL int ncaux_abort_compound(void *tag);
EXTERNL int ncaux_add_field(void *tag, const char *name, nc_type field_type,
                            int ndims, const int *dimsizes);

/* ===================================================================
 * Directory-list (plugin path) helpers.  The list type is defined in
 * netcdf_filter.h.
 *
 * A path list is empty or directories separated by ';' or ':'; a
 * separator argument of '\0' means the platform default.  Where a
 * function fills dirs->dirs and that is NULL, the vector is allocated
 * and the caller owns it (see ncaux_plugin_path_reclaim()).
 * =================================================================== */

struct NCPluginList;

/* Split the first pathlen bytes of pathlist into dirs. */
EXTERNL int ncaux_plugin_path_parsen(size_t pathlen, const char *pathlist, char sep, struct NCPluginList *dirs);
/* Split a NUL-terminated pathlist into dirs. */
EXTERNL int ncaux_plugin_path_parse(const char *pathlist, char sep, struct NCPluginList *dirs);
/* Join dirs with sep into a malloc'ed string (*catp). */
EXTERNL int ncaux_plugin_path_tostring(const struct NCPluginList *dirs, char sep, char **catp);
/* Empty dirs (frees its entries). */
EXTERNL int ncaux_plugin_path_clear(struct NCPluginList *dirs);
/* Free dirs itself and its contents (heap-allocated lists only). */
EXTERNL int ncaux_plugin_path_reclaim(struct NCPluginList *dirs);
/* Add one directory at the end / at the front. */
EXTERNL int ncaux_plugin_path_append(struct NCPluginList *dirs, const char *dir);
EXTERNL int ncaux_plugin_path_prepend(struct NCPluginList *dirs, const char *dir);

/* The global plugin path as a single ';'-separated string (for
 * Fortran): its length, a copy into path, and replacement from path. */
EXTERNL int ncaux_plugin_path_stringlen(void);
EXTERNL int ncaux_plugin_path_stringget(int pathlen, char *path);
EXTERNL int ncaux_plugin_path_stringset(int pathlen, const char *path);

/* ===================================================================
 * _NCProperties attribute
 * =================================================================== */

/* Split the attribute text into a malloc'ed, NULL-terminated vector
 * of alternating keys and values. */
EXTERNL int ncaux_parse_provenance(const char *ncprop, char ***pairsp);

#if defined(__cplusplus)
}
#endif

#endif /* NCAUX_H */
