/* One library exporting both plugin interfaces: HDF5 filter 40301 "xor"
 * (every byte XORed with a key byte) and its NCZarr codec
 * {"id": "nczarr_xor", "key": <0..255>} <-> [key]. No working parameters. */
#include <stdlib.h>

#include "nczplugin.h"
#include "nczplugin_util.h"

#define XOR_ID 40301

static size_t xor_filter(unsigned int flags, size_t cd_nelmts, const unsigned int cd_values[],
                         size_t nbytes, size_t *buf_size, void **buf)
{
    unsigned char *p = (unsigned char *)*buf;
    size_t i;
    (void)flags;
    (void)buf_size;
    if (cd_nelmts != 1 || cd_values[0] > 255) return 0;
    for (i = 0; i < nbytes; i++) p[i] ^= (unsigned char)cd_values[0];
    return nbytes;
}

static const nczp_h5z_class2 xor_class = {
    NCZP_H5Z_CLASS_T_VERS, XOR_ID, 1, 1, "xor", NULL, NULL, xor_filter,
};

static int xor_to_hdf5(const char *codec, size_t *nparamsp, unsigned **paramsp)
{
    unsigned key;
    if (!nczp_json_id_is(codec, "nczarr_xor")) return NCZP_EINVAL;
    if (nczp_json_uint(codec, "key", &key) != 0 || key > 255) return NCZP_EFILTER;
    return nczp_params(1, &key, nparamsp, paramsp);
}

static int xor_to_codec(size_t nparams, const unsigned *params, char **codecp)
{
    if (nparams != 1 || params == NULL || params[0] > 255) return NCZP_EFILTER;
    return nczp_string(codecp, "{\"id\": \"nczarr_xor\", \"key\": %u}", params[0]);
}

static const nczp_codec xor_codec = {
    NCZP_CODEC_CLASS_VER, NCZP_CODEC_HDF5, "nczarr_xor", XOR_ID,
    NULL, NULL, xor_to_hdf5, xor_to_codec, NULL,
};

int H5PLget_plugin_type(void) { return NCZP_H5PL_TYPE_FILTER; }
const void *H5PLget_plugin_info(void) { return &xor_class; }
const void *NCZ_get_codec_info(void) { return &xor_codec; }
