/* Our own declarations of the two plugin interfaces the library loads:
 * HDF5's filter plugin ABI (H5PLget_plugin_type / H5PLget_plugin_info
 * returning an H5Z_class2_t, version 1) and netcdf-c's NCZarr codec ABI
 * (NCZ_get_codec_info / NCZ_codec_info_defaults returning NCZ_codec_t,
 * version 1, sort 1). Written from the public layouts, so that the plugins
 * here build without HDF5 or netcdf-c installed. */
#ifndef NCZPLUGIN_H
#define NCZPLUGIN_H

#include <stddef.h>

/* HDF5 side. */
#define NCZP_H5PL_TYPE_FILTER 0
#define NCZP_H5Z_CLASS_T_VERS 1
#define NCZP_H5Z_FLAG_REVERSE 0x0100u

typedef size_t (*nczp_filter_func)(unsigned int flags, size_t cd_nelmts,
                                   const unsigned int cd_values[], size_t nbytes,
                                   size_t *buf_size, void **buf);

typedef struct nczp_h5z_class2 {
    int version;              /* NCZP_H5Z_CLASS_T_VERS */
    int id;                   /* H5Z_filter_t */
    unsigned encoder_present;
    unsigned decoder_present;
    const char *name;
    void *can_apply;          /* unused by netCDF: NULL */
    void *set_local;          /* unused by netCDF: NULL */
    nczp_filter_func filter;
} nczp_h5z_class2;

/* NCZarr side. */
#define NCZP_CODEC_CLASS_VER 1
#define NCZP_CODEC_HDF5 1

typedef struct nczp_codec {
    int version;              /* NCZP_CODEC_CLASS_VER */
    int sort;                 /* NCZP_CODEC_HDF5 */
    const char *codecid;
    unsigned int hdf5id;
    void (*initialize)(void);
    void (*finalize)(void);
    int (*codec_to_hdf5)(const char *codec, size_t *nparamsp, unsigned **paramsp);
    int (*hdf5_to_codec)(size_t nparams, const unsigned *params, char **codecp);
    int (*modify_parameters)(int ncid, int varid, size_t *vnparamsp, unsigned **vparamsp,
                             size_t *wnparamsp, unsigned **wparamsp);
} nczp_codec;

/* The entry points, exported with these exact names. */
int H5PLget_plugin_type(void);
const void *H5PLget_plugin_info(void);
const void *NCZ_get_codec_info(void);
const void *NCZ_codec_info_defaults(void);

/* netCDF error codes the codecs return. */
#define NCZP_NOERR 0
#define NCZP_EINVAL (-36)
#define NCZP_ENOMEM (-61)
#define NCZP_EFILTER (-132)

#endif
