/* HDF5 filter 40300 "addk": adds a constant k to every element, read as a
 * little-endian unsigned integer of the variable's type size (wrapping), and
 * subtracts it on decode. Working parameters: [k, typesize]; the type size is
 * found by the separate codec library (lib__nczaddk) through callbacks into
 * libnetcdf. Encoding returns a new malloc'ed buffer (and frees the old one),
 * as HDF5 filters may. Not a compressor: a reversible transform for tests. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nczplugin.h"

#define ADDK_ID 40300

static void addk_apply(unsigned char *p, size_t nbytes, uint64_t k, size_t ts, int reverse)
{
    size_t i, b;
    for (i = 0; i + ts <= nbytes; i += ts) {
        uint64_t v = 0;
        for (b = 0; b < ts; b++) v |= (uint64_t)p[i + b] << (8 * b);
        v = reverse ? v - k : v + k;
        for (b = 0; b < ts; b++) p[i + b] = (unsigned char)(v >> (8 * b));
    }
}

static size_t addk_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                          size_t nbytes, size_t *buf_size, void **buf)
{
    size_t ts;
    if (cd_nelmts != 2) return 0;
    ts = cd_values[1];
    if (ts != 1 && ts != 2 && ts != 4 && ts != 8) return 0;
    if (nbytes % ts != 0) return 0;
    if (flags & NCZP_H5Z_FLAG_REVERSE) {
        addk_apply((unsigned char *)*buf, nbytes, cd_values[0], ts, 1);
    } else {
        unsigned char *out = (unsigned char *)malloc(nbytes > 0 ? nbytes : 1);
        if (out == NULL) return 0;
        memcpy(out, *buf, nbytes);
        addk_apply(out, nbytes, cd_values[0], ts, 0);
        free(*buf);
        *buf = out;
        *buf_size = nbytes > 0 ? nbytes : 1;
    }
    return nbytes;
}

static const nczp_h5z_class2 addk_class = {
    NCZP_H5Z_CLASS_T_VERS, ADDK_ID, 1, 1, "addk", NULL, NULL, addk_filter,
};

int H5PLget_plugin_type(void) { return NCZP_H5PL_TYPE_FILTER; }
const void *H5PLget_plugin_info(void) { return &addk_class; }
