/* The NCZarr codec for HDF5 filter 40300 ("addk", lib__nch5addk):
 * {"id": "nczarr_addk", "k": <unsigned>} <-> visible [k]; working [k, typesize],
 * where typesize comes from libnetcdf itself (nc_inq_var, nc_inq_type), so
 * loading this library exercises callbacks from a plugin into the library.
 * NCZ_codec_initialize / _finalize append a line to the file named by the
 * environment variable NCZP_ADDK_LOG, when set, so tests can count them. */
#include <stdio.h>
#include <stdlib.h>

#include <netcdf.h>

#include "nczplugin.h"
#include "nczplugin_util.h"

#define ADDK_ID 40300

static void addk_log(const char *what)
{
    const char *f = getenv("NCZP_ADDK_LOG");
    FILE *fp;
    if (f == NULL || *f == '\0') return;
    fp = fopen(f, "a");
    if (fp == NULL) return;
    fprintf(fp, "%s\n", what);
    fclose(fp);
}

static void addk_initialize(void) { addk_log("initialize"); }
static void addk_finalize(void) { addk_log("finalize"); }

static int addk_to_hdf5(const char *codec, size_t *nparamsp, unsigned **paramsp)
{
    unsigned k;
    if (!nczp_json_id_is(codec, "nczarr_addk")) return NCZP_EINVAL;
    if (nczp_json_uint(codec, "k", &k) != 0) return NCZP_EFILTER;
    return nczp_params(1, &k, nparamsp, paramsp);
}

static int addk_to_codec(size_t nparams, const unsigned *params, char **codecp)
{
    if (nparams != 1 || params == NULL) return NCZP_EFILTER;
    return nczp_string(codecp, "{\"id\": \"nczarr_addk\", \"k\": %u}", params[0]);
}

static int addk_modify(int ncid, int varid, size_t *vnparamsp, unsigned **vparamsp,
                       size_t *wnparamsp, unsigned **wparamsp)
{
    nc_type xtype;
    size_t size = 0;
    unsigned w[2];
    int stat;
    if (*vnparamsp != 1 || *vparamsp == NULL) return NCZP_EFILTER;
    if ((stat = nc_inq_var(ncid, varid, NULL, &xtype, NULL, NULL, NULL))) return stat;
    if ((stat = nc_inq_type(ncid, xtype, NULL, &size))) return stat;
    w[0] = (*vparamsp)[0];
    w[1] = (unsigned)size;
    free(*wparamsp);
    return nczp_params(2, w, wnparamsp, wparamsp);
}

static const nczp_codec addk_codec = {
    NCZP_CODEC_CLASS_VER, NCZP_CODEC_HDF5, "nczarr_addk", ADDK_ID,
    addk_initialize, addk_finalize, addk_to_hdf5, addk_to_codec, addk_modify,
};

const void *NCZ_get_codec_info(void) { return &addk_codec; }
