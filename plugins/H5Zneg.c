/* HDF5 filter 40307 "neg" (every byte complemented) with no codec of its
 * own: its codec comes from the defaults library lib__nczdefaults, as
 * netcdf-c's standard filters get theirs from lib__nczstdfilters. */
#include <stdlib.h>

#include "nczplugin.h"

#define NEG_ID 40307

static size_t neg_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                         size_t nbytes, size_t *buf_size, void **buf)
{
    unsigned char *p = (unsigned char *)*buf;
    size_t i;
    (void)flags;
    (void)cd_values;
    (void)buf_size;
    if (cd_nelmts != 0) return 0;
    for (i = 0; i < nbytes; i++) p[i] = (unsigned char)~p[i];
    return nbytes;
}

static const nczp_h5z_class2 neg_class = {
    NCZP_H5Z_CLASS_T_VERS, NEG_ID, 1, 1, "neg", NULL, NULL, neg_filter,
};

int H5PLget_plugin_type(void) { return NCZP_H5PL_TYPE_FILTER; }
const void *H5PLget_plugin_info(void) { return &neg_class; }
