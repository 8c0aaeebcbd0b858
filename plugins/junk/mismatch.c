/* Both halves in one library but for different ids (40306 / 40309): netcdf-c
 * ignores such a library, and so do we. */
#include <stddef.h>

#include "../nczplugin.h"

static size_t never(unsigned int flags, size_t n, const unsigned int v[], size_t nbytes,
                    size_t *buf_size, void **buf)
{
    (void)flags; (void)n; (void)v; (void)buf_size; (void)buf;
    return nbytes;
}

static const nczp_h5z_class2 cls = {NCZP_H5Z_CLASS_T_VERS, 40306, 1, 1, "mismatch", NULL, NULL, never};
static const nczp_codec codec = {NCZP_CODEC_CLASS_VER, NCZP_CODEC_HDF5, "nczarr_mismatch", 40309,
                                 NULL, NULL, NULL, NULL, NULL};

int H5PLget_plugin_type(void) { return NCZP_H5PL_TYPE_FILTER; }
const void *H5PLget_plugin_info(void) { return &cls; }
const void *NCZ_get_codec_info(void) { return &codec; }
