/* A plugin whose filter fails, for tests: HDF5 filter 40302 "fail" with its
 * codec {"id": "nczarr_fail", "mode": <m>} <-> [m] in the same library.
 * mode 0: encoding and decoding fail (return 0); mode 1: encoding copies,
 * decoding fails. */
#include <stdlib.h>

#include "nczplugin.h"
#include "nczplugin_util.h"

#define FAIL_ID 40302

static size_t fail_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                          size_t nbytes, size_t *buf_size, void **buf)
{
    (void)buf_size;
    (void)buf;
    if (cd_nelmts != 1) return 0;
    if (cd_values[0] == 1 && !(flags & NCZP_H5Z_FLAG_REVERSE)) return nbytes;
    return 0;
}

static const nczp_h5z_class2 fail_class = {
    NCZP_H5Z_CLASS_T_VERS, FAIL_ID, 1, 1, "fail", NULL, NULL, fail_filter,
};

static int fail_to_hdf5(const char *codec, size_t *nparamsp, unsigned **paramsp)
{
    unsigned mode;
    if (!nczp_json_id_is(codec, "nczarr_fail")) return NCZP_EINVAL;
    if (nczp_json_uint(codec, "mode", &mode) != 0) return NCZP_EFILTER;
    return nczp_params(1, &mode, nparamsp, paramsp);
}

static int fail_to_codec(size_t nparams, const unsigned *params, char **codecp)
{
    if (nparams != 1 || params == NULL) return NCZP_EFILTER;
    return nczp_string(codecp, "{\"id\": \"nczarr_fail\", \"mode\": %u}", params[0]);
}

static const nczp_codec fail_codec = {
    NCZP_CODEC_CLASS_VER, NCZP_CODEC_HDF5, "nczarr_fail", FAIL_ID,
    NULL, NULL, fail_to_hdf5, fail_to_codec, NULL,
};

int H5PLget_plugin_type(void) { return NCZP_H5PL_TYPE_FILTER; }
const void *H5PLget_plugin_info(void) { return &fail_class; }
const void *NCZ_get_codec_info(void) { return &fail_codec; }
