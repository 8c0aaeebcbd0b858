/* Build probe for szip (libaec's szlib compatibility API, Debian libaec-dev):
 * build.rs compiles this file to learn whether <szlib.h> is installed, and
 * then links libsz. The function is the layout check src/sys/szip.rs relies
 * on: SZ_com_t is four ints in this order. */
#include <stddef.h>
#include <szlib.h>

int nczarr_szip_layout_ok(void)
{
    return sizeof(SZ_com_t) == 4 * sizeof(int) && offsetof(SZ_com_t, options_mask) == 0 &&
           offsetof(SZ_com_t, bits_per_pixel) == sizeof(int) &&
           offsetof(SZ_com_t, pixels_per_block) == 2 * sizeof(int) &&
           offsetof(SZ_com_t, pixels_per_scanline) == 3 * sizeof(int);
}
