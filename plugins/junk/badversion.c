/* A plugin whose H5Z_class2_t has an unknown version (2): skipped. */
#include <stddef.h>

#include "../nczplugin.h"

static size_t never(unsigned int flags, size_t n, const unsigned int v[], size_t nbytes,
                    size_t *buf_size, void **buf)
{
    (void)flags; (void)n; (void)v; (void)buf_size; (void)buf;
    return nbytes;
}

static const nczp_h5z_class2 bad = {2, 40303, 1, 1, "badversion", NULL, NULL, never};

int H5PLget_plugin_type(void) { return NCZP_H5PL_TYPE_FILTER; }
const void *H5PLget_plugin_info(void) { return &bad; }
