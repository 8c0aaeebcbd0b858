/* One-shot deflate through Intel's ISA-L (igzip), used for deflate level 1
 * when the library is built with libisal-dev. igzip's level 1 encodes about
 * four times faster than libdeflate's on this project's benchmark data, at
 * a compression ratio within a few per cent; its output is a standard zlib
 * (or gzip) stream that any inflate reads.
 *
 * igzip's state (about 80 KiB) has to be laid out exactly as the installed
 * header says, which is why this part is C: Rust only hands over buffers,
 * including a per-thread scratch area of nczarr_isal_scratch_size() bytes
 * that holds the state and igzip's level-1 work buffer. */
#include <isa-l/igzip_lib.h>
#include <stdint.h>
#include <stdlib.h>

#define ALIGN 64
#define ROUND_UP(n) (((n) + ALIGN - 1) / ALIGN * ALIGN)

size_t nczarr_isal_scratch_size(void)
{
    return ALIGN + ROUND_UP(sizeof(struct isal_zstream)) + ISAL_DEF_LVL1_DEFAULT;
}

/* Compress in[0..in_len) into out[0..out_cap) as a zlib stream (gzip != 0:
 * a gzip stream) at igzip level 1, using scratch (scratch_len bytes, at
 * least nczarr_isal_scratch_size()). Returns the number of bytes written, or
 * 0 when igzip cannot do it (input over 4 GiB, output too small, scratch too
 * small); the caller then uses another encoder. */
size_t nczarr_isal_deflate1(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_cap,
                            int gzip, uint8_t *scratch, size_t scratch_len)
{
    struct isal_zstream *s;
    uintptr_t at;

    if (in_len > UINT32_MAX || scratch_len < nczarr_isal_scratch_size())
        return 0;
    if (out_cap > UINT32_MAX)
        out_cap = UINT32_MAX;
    at = ((uintptr_t)scratch + ALIGN - 1) / ALIGN * ALIGN;
    s = (struct isal_zstream *)at;
    isal_deflate_stateless_init(s);
    s->level = 1;
    s->level_buf = (uint8_t *)(at + ROUND_UP(sizeof(struct isal_zstream)));
    s->level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    s->gzip_flag = gzip ? IGZIP_GZIP : IGZIP_ZLIB;
    s->end_of_stream = 1;
    s->flush = NO_FLUSH;
    /* igzip does not write through next_in; the cast only drops const. */
    s->next_in = (uint8_t *)in;
    s->avail_in = (uint32_t)in_len;
    s->next_out = out;
    s->avail_out = (uint32_t)out_cap;
    if (isal_deflate_stateless(s) != COMP_OK || s->avail_in != 0)
        return 0;
    return s->total_out;
}
