/* A defaults library (NCZ_codec_info_defaults): codecs for filters that have
 * none of their own. "nczarr_neg" pairs with lib__nch5neg (40307);
 * "nczarr_xor_default" names filter 40301, which has its own codec, so it
 * must not be used. The NCZ_get_codec_info also exported here is ignored, as
 * netcdf-c ignores it in a defaults library. */
#include <stdlib.h>

#include "nczplugin.h"
#include "nczplugin_util.h"

static int neg_to_hdf5(const char *codec, size_t *nparamsp, unsigned **paramsp)
{
    if (!nczp_json_id_is(codec, "nczarr_neg")) return NCZP_EINVAL;
    *nparamsp = 0;
    *paramsp = NULL;
    return NCZP_NOERR;
}

static int neg_to_codec(size_t nparams, const unsigned *params, char **codecp)
{
    (void)params;
    if (nparams != 0) return NCZP_EFILTER;
    return nczp_string(codecp, "{\"id\": \"nczarr_neg\"}");
}

static int other_to_codec(size_t nparams, const unsigned *params, char **codecp)
{
    (void)nparams;
    (void)params;
    return nczp_string(codecp, "{\"id\": \"nczarr_xor_default\"}");
}

static const nczp_codec neg_codec = {
    NCZP_CODEC_CLASS_VER, NCZP_CODEC_HDF5, "nczarr_neg", 40307,
    NULL, NULL, neg_to_hdf5, neg_to_codec, NULL,
};
static const nczp_codec xor_default = {
    NCZP_CODEC_CLASS_VER, NCZP_CODEC_HDF5, "nczarr_xor_default", 40301,
    NULL, NULL, NULL, other_to_codec, NULL,
};
static const nczp_codec ignored = {
    NCZP_CODEC_CLASS_VER, NCZP_CODEC_HDF5, "nczarr_ignored", 40308,
    NULL, NULL, NULL, NULL, NULL,
};
static const nczp_codec *const defaults[] = {&neg_codec, &xor_default, NULL};

const void *NCZ_codec_info_defaults(void) { return defaults; }
const void *NCZ_get_codec_info(void) { return &ignored; }
