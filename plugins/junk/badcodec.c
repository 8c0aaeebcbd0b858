/* A plugin whose NCZ_codec_t has an unknown version (99): skipped. */
#include <stddef.h>

#include "../nczplugin.h"

static size_t never(unsigned int flags, size_t n, const unsigned int v[], size_t nbytes,
                    size_t *buf_size, void **buf)
{
    (void)flags; (void)n; (void)v; (void)buf_size; (void)buf;
    return nbytes;
}

static const nczp_h5z_class2 good = {NCZP_H5Z_CLASS_T_VERS, 40304, 1, 1, "badcodec", NULL, NULL, never};
static const nczp_codec bad = {99, NCZP_CODEC_HDF5, "nczarr_badcodec", 40304, NULL, NULL, NULL, NULL, NULL};

int H5PLget_plugin_type(void) { return NCZP_H5PL_TYPE_FILTER; }
const void *H5PLget_plugin_info(void) { return &good; }
const void *NCZ_get_codec_info(void) { return &bad; }
