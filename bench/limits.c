/* limits: the machine's ceilings for the W1 workloads, measured in the same run
 * as the libraries (bench/run.py). Prints one line per measurement:
 *   LIMIT {"name":"...","threads":n,"mib_s":x}
 * Every rate is in MiB/s of uncompressed data (for codecs) or of bytes copied.
 *
 * Usage: limits SCRATCH_DIR MIB [PARTS [PIPE_MIB]]
 *   PARTS: all (the default), cpu (memcpy and codecs: what does not depend on
 *   the file system) or fs (page cache, metadata, pipelines and durable
 *   writes, on SCRATCH_DIR). PIPE_MIB: the size of the pipelines' array
 *   (default MIB; rounded down to a multiple of 64, at least 64 when given;
 *   without it, pipelines are skipped when MIB < 64).
 *   memcpy   MIB MiB between buffers already touched, 1 and 2 threads
 *   pagecache read() of a MIB MiB file that is in the page cache into a touched
 *            buffer, 1 and 2 threads (pread of halves)
 *   codecs   encode and decode of 4 MiB chunks (16x256x256 float32 of the W1
 *            field) with the libraries our library uses: libdeflate level 1 +
 *            shuffle (and zlib level 1 + shuffle, what netcdf-c uses), zstd
 *            level 1, blosc lz4 clevel 1 + shuffle, and (built with -DHAVE_ISAL
 *            -lisal when ISA-L is installed) igzip level 1 + shuffle, which our
 *            library encodes deflate level 1 with (encode only: libdeflate
 *            decodes); one thread and every core (each thread works on its own
 *            chunks)
 *   pipeline the floor of a W1 full read done the plain way in C: chunk files
 *            of a (MIB/4, 1024, 1024) float32 array in (16, 256, 256) chunks
 *            (the W1 layout), each thread taking the next chunk: open, read()
 *            the whole file, decode with the best decoder into a chunk buffer,
 *            copy its 1 KiB rows into place in a touched array, close (no
 *            codec: preadv of the rows straight into place); every core.
 *            "pipeline-mmap" maps the file instead of reading it. MiB/s of the
 *            array. What the limit leaves out (reading the file, the
 *            decoder's output leaving the cache) is in it.
 *            "write-pipeline" is the W1 write the same way: each thread takes
 *            the next chunk, gathers its rows from the array into a chunk
 *            buffer, encodes it (zstd level 1, or c-blosc lz4 clevel 1 +
 *            shuffle) and writes it to a new file (no codec: writev of the
 *            rows straight from the array).
 *   durable  the floor of a durable W1 write (no codec): the write-pipeline's
 *            chunk files, same layout and bytes, made durable two ways, on every
 *            core, into a fresh directory, best of 3:
 *            "durable-write fdatasync": writev of the rows, fdatasync of each
 *            file before its close, then fsync of the chunk directory and of
 *            its parent (the directories whose entries changed);
 *            "durable-write O_DIRECT": the rows gathered into an aligned chunk
 *            buffer and written with O_DIRECT (no page cache), then fsync of
 *            the two directories. O_DIRECT alone does not ask the device to
 *            flush its write cache nor commit the file's block allocation; on
 *            ext4 the directory fsync's journal commit does both. Where the
 *            file system refuses O_DIRECT the line reads
 *            LIMIT {"name":"durable-write O_DIRECT none","threads":n,"status":"unsupported: ..."}
 *   metadata the floor of W2's create: 2000 directories holding two small files
 *            each (mkdir, then open/write/close of a .zarray and a .zattrs), the
 *            metadata objects an NCZarr dataset of 2000 variables has, with
 *            nothing else done; then the same with the third object W2 writes
 *            per variable, its one chunk (64 bytes, named 0); 1 and 2 threads,
 *            each on a fresh directory. Printed as seconds:
 *            LIMIT {"name":"metadata 2000 arrays","threads":n,"secs":x}
 *            LIMIT {"name":"metadata 2000 arrays + chunk","threads":n,"secs":x}
 *
 * limits DIR 0 metadata-once: the floor with the chunks once, with 2 threads,
 * in DIR (which must not exist yet), left in place: what the bench runs
 * alternately with the libraries' W2 creates, a fresh process each time like
 * theirs, and removes only once every create at that place is done (on ext4
 * without a journal, creating files soon after many were removed nearby is
 * slow for anyone, whatever writes them).
 *            LIMIT {"name":"metadata 2000 arrays + chunk, once","threads":2,"secs":x}
 */
#define _GNU_SOURCE
#include <blosc.h>
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#define CHUNK (16 * 256 * 256 * 4)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *touched(size_t n) {
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(p, 1, n);
    return p;
}

/* A buffer aligned for O_DIRECT (4 KiB: at least the logical block size of
 * every device here), touched. */
static void *aligned_touched(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 4096, n) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(p, 1, n);
    return p;
}

static void emit(const char *name, int threads, double bytes, double secs) {
    printf("LIMIT {\"name\":\"%s\",\"threads\":%d,\"mib_s\":%.1f}\n", name, threads,
           bytes / secs / 1048576.0);
    fflush(stdout);
}

/* ---- memcpy ---- */
struct cp {
    char *dst, *src;
    size_t n;
};
static void *cp_run(void *a) {
    struct cp *c = a;
    memcpy(c->dst, c->src, c->n);
    return NULL;
}
static double par_copy(char *dst, char *src, size_t n, int threads) {
    pthread_t t[64];
    struct cp c[64];
    double t0 = now();
    for (int i = 0; i < threads; i++) {
        c[i] = (struct cp){dst + n / threads * i, src + n / threads * i, n / threads};
        pthread_create(&t[i], NULL, cp_run, &c[i]);
    }
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    return now() - t0;
}

/* ---- page cache ---- */
struct rd {
    int fd;
    char *dst;
    size_t n;
    off_t off;
};
static void *rd_run(void *a) {
    struct rd *r = a;
    size_t done = 0;
    while (done < r->n) {
        ssize_t k = pread(r->fd, r->dst + done, r->n - done, r->off + (off_t)done);
        if (k <= 0) break;
        done += (size_t)k;
    }
    return NULL;
}
static double par_read(int fd, char *dst, size_t n, int threads) {
    pthread_t t[64];
    struct rd r[64];
    double t0 = now();
    for (int i = 0; i < threads; i++) {
        r[i] = (struct rd){fd, dst + n / threads * i, n / threads, (off_t)(n / threads * i)};
        pthread_create(&t[i], NULL, rd_run, &r[i]);
    }
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    return now() - t0;
}

/* ---- codecs ---- */
static void shuffle4(const unsigned char *in, unsigned char *out, size_t n) {
    size_t m = n / 4;
    for (size_t i = 0; i < m; i++)
        for (int b = 0; b < 4; b++) out[b * m + i] = in[i * 4 + b];
}
static void unshuffle4(const unsigned char *in, unsigned char *out, size_t n) {
    size_t m = n / 4;
    for (size_t i = 0; i < m; i++)
        for (int b = 0; b < 4; b++) out[i * 4 + b] = in[b * m + i];
}

enum { C_DEFLATE, C_ZLIB, C_ZSTD, C_BLOSC, C_IGZIP, NCODECS };
static const char *cname[NCODECS] = {"libdeflate-1+shuffle", "zlib-1+shuffle", "zstd-1",
                                     "blosc-lz4-1+shuffle", "igzip-1+shuffle"};

#ifdef HAVE_ISAL
/* igzip's one-shot state and its level-1 work buffer, one per thread. */
struct igzip {
    struct isal_zstream s;
    uint8_t level_buf[ISAL_DEF_LVL1_DEFAULT];
};
static size_t igzip_encode(struct igzip *g, unsigned char *in, size_t n, unsigned char *out, size_t cap) {
    isal_deflate_stateless_init(&g->s);
    g->s.level = 1;
    g->s.level_buf = g->level_buf;
    g->s.level_buf_size = sizeof g->level_buf;
    g->s.gzip_flag = IGZIP_ZLIB;
    g->s.end_of_stream = 1;
    g->s.flush = NO_FLUSH;
    g->s.next_in = in;
    g->s.avail_in = (uint32_t)n;
    g->s.next_out = out;
    g->s.avail_out = (uint32_t)cap;
    return isal_deflate_stateless(&g->s) == COMP_OK ? g->s.total_out : 0;
}
#endif

#define NCH 4 /* distinct chunks of the field (each thread cycles over them) */
static unsigned char *raw[NCH];

static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
/* The W1 field of ncbench.c (NY = NX = 1024), chunk k at z = 16k, y = x = 0. */
static void make_chunk(int k, float *out) {
    size_t i = 0;
    for (size_t z = 16 * (size_t)k; z < 16 * (size_t)k + 16; z++)
        for (size_t y = 0; y < 256; y++)
            for (size_t x = 0; x < 256; x++) {
                float tz = (float)(20.0 * sin((double)z * 0.031));
                float ty = (float)(8.0 * cos((double)y * 0.0123));
                float tx = (float)(5.0 * sin((double)x * 0.0171 + 1.0));
                uint64_t h = mix((z * 1024 + y) * 1024 + x);
                float noise = (float)((double)(h >> 40) / 16777216.0 - 0.5);
                float v = 280.0f + tz + ty * tx * 0.25f + ty + tx + noise;
                out[i++] = nearbyintf(v * 64.0f) / 64.0f;
            }
}

static size_t encode(int c, const unsigned char *in, unsigned char *tmp, unsigned char *out,
                     size_t cap, void *st) {
    switch (c) {
    case C_DEFLATE:
        shuffle4(in, tmp, CHUNK);
        return libdeflate_zlib_compress(st, tmp, CHUNK, out, cap);
    case C_ZLIB: {
        shuffle4(in, tmp, CHUNK);
        uLongf n = cap;
        return compress2(out, &n, tmp, CHUNK, 1) == Z_OK ? n : 0;
    }
    case C_ZSTD: {
        size_t n = ZSTD_compressCCtx(st, out, cap, in, CHUNK, 1);
        return ZSTD_isError(n) ? 0 : n;
    }
    case C_BLOSC: {
        int n = blosc_compress_ctx(1, 1, 4, CHUNK, in, out, cap, "lz4", 0, 1);
        return n > 0 ? (size_t)n : 0;
    }
    case C_IGZIP:
#ifdef HAVE_ISAL
        shuffle4(in, tmp, CHUNK);
        return igzip_encode(st, tmp, CHUNK, out, cap);
#else
        return 0;
#endif
    }
    return 0;
}

static int decode(int c, const unsigned char *in, size_t n, unsigned char *tmp, unsigned char *out,
                  void *st) {
    switch (c) {
    case C_DEFLATE: {
        size_t got = 0;
        if (libdeflate_zlib_decompress(st, in, n, tmp, CHUNK, &got) != LIBDEFLATE_SUCCESS ||
            got != CHUNK)
            return -1;
        unshuffle4(tmp, out, CHUNK);
        return 0;
    }
    case C_ZLIB: {
        uLongf got = CHUNK;
        if (uncompress(tmp, &got, in, n) != Z_OK || got != CHUNK) return -1;
        unshuffle4(tmp, out, CHUNK);
        return 0;
    }
    case C_ZSTD: {
        size_t got = ZSTD_decompressDCtx(st, out, CHUNK, in, n);
        return got == CHUNK ? 0 : -1;
    }
    case C_BLOSC:
        return blosc_decompress_ctx(in, out, CHUNK, 1) == CHUNK ? 0 : -1;
    }
    return -1;
}

struct job {
    int codec, iters, dec;
    double secs;
    size_t csize;
};
static void *job_run(void *a) {
    struct job *j = a;
    size_t cap = CHUNK + CHUNK / 8 + 65536;
    unsigned char *tmp = touched(CHUNK), *out = touched(CHUNK), *comp[NCH];
    size_t clen[NCH];
    void *enc = j->codec == C_DEFLATE ? (void *)libdeflate_alloc_compressor(1)
                : j->codec == C_ZSTD  ? (void *)ZSTD_createCCtx()
#ifdef HAVE_ISAL
                : j->codec == C_IGZIP ? malloc(sizeof(struct igzip))
#endif
                                      : NULL;
    void *dec = j->codec == C_DEFLATE ? (void *)libdeflate_alloc_decompressor()
                : j->codec == C_ZSTD  ? (void *)ZSTD_createDCtx()
                                      : NULL;
    for (int k = 0; k < NCH; k++) {
        comp[k] = touched(cap);
        clen[k] = encode(j->codec, raw[k], tmp, comp[k], cap, enc);
    }
    j->csize = clen[0];
    double t0 = now();
    for (int i = 0; i < j->iters; i++) {
        int k = i % NCH;
        if (j->dec) {
            if (decode(j->codec, comp[k], clen[k], tmp, out, dec) != 0) {
                fprintf(stderr, "%s: decode failed\n", cname[j->codec]);
                exit(2);
            }
        } else {
            clen[k] = encode(j->codec, raw[k], tmp, comp[k], cap, enc);
        }
    }
    j->secs = now() - t0;
    return NULL;
}

static void codec_rate(int codec, int dec, int threads, int iters) {
    pthread_t t[64];
    struct job j[64];
    double t0 = now();
    for (int i = 0; i < threads; i++) {
        j[i] = (struct job){codec, iters, dec, 0, 0};
        pthread_create(&t[i], NULL, job_run, &j[i]);
    }
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    (void)t0;
    /* The slowest thread's timed loop (setup excluded) bounds the aggregate rate. */
    double worst = 0;
    for (int i = 0; i < threads; i++)
        if (j[i].secs > worst) worst = j[i].secs;
    char name[96];
    snprintf(name, sizeof name, "%s %s", dec ? "decode" : "encode", cname[codec]);
    emit(name, threads, (double)CHUNK * iters * threads, worst);
    if (!dec && threads == 1)
        printf("LIMIT {\"name\":\"ratio %s\",\"threads\":1,\"mib_s\":%.4f}\n", cname[codec],
               (double)j[0].csize / CHUNK);
}

/* ---- pipelines: whole W1-layout reads and writes through files, the plain way ---- */
#define PNX 1024 /* the array's y and x extent; chunks are 16 x 256 x 256 */
#define ROWS (16 * 256) /* rows of 256 floats (1 KiB) in a chunk */

/* Row r (z * 256 + y) of chunk k in the (NZ, 1024, 1024) array: chunks in C
 * order, 4 x 4 of them per 16 planes. */
static float *chunk_row(float *array, int k, size_t r) {
    size_t x0 = (size_t)(k % 4) * 256, y0 = (size_t)(k / 4 % 4) * 256, z0 = (size_t)(k / 16) * 16;
    return array + ((z0 + r / 256) * PNX + y0 + r % 256) * PNX + x0;
}
/* The 1024 rows of chunk k from row r0, as buffers for preadv/writev. */
static void chunk_iov(float *array, int k, size_t r0, struct iovec *iov) {
    for (size_t r = 0; r < 1024; r++) iov[r] = (struct iovec){chunk_row(array, k, r0 + r), 1024};
}

/* How a written chunk file is made durable: not at all (the write-pipeline),
 * fdatasync before its close, or written with O_DIRECT. */
enum { SYNC_NONE, SYNC_FDATASYNC, SYNC_DIRECT };

struct pjob {
    const char *dir;
    int codec, use_mmap, nchunks;
    float *array;
    int *next;
    int failed; /* 1: an error; 2: the file system refused O_DIRECT */
    int sync;
};
static int next_chunk(struct pjob *p) { return __atomic_fetch_add(p->next, 1, __ATOMIC_RELAXED); }

/* Runs `run` on `cores` threads over one shared chunk counter: seconds taken. */
static double par_chunks(int cores, void *(*run)(void *), struct pjob proto, int *failed) {
    pthread_t t[64];
    struct pjob p[64];
    int next = 0;
    proto.next = &next;
    double t0 = now();
    for (int i = 0; i < cores; i++) {
        p[i] = proto;
        pthread_create(&t[i], NULL, run, &p[i]);
    }
    for (int i = 0; i < cores; i++) {
        pthread_join(t[i], NULL);
        *failed |= p[i].failed;
    }
    return now() - t0;
}

static void *pipe_run(void *a) {
    struct pjob *p = a;
    size_t cap = CHUNK + CHUNK / 8 + 65536;
    unsigned char *comp = touched(cap), *tmp = touched(CHUNK), *out = touched(CHUNK);
    void *dec = p->codec == C_DEFLATE ? (void *)libdeflate_alloc_decompressor()
                : p->codec == C_ZSTD  ? (void *)ZSTD_createDCtx()
                                      : NULL;
    char path[4096];
    for (int k; (k = next_chunk(p)) < p->nchunks;) {
        snprintf(path, sizeof path, "%s/%d", p->dir, k);
        int fd = open(path, O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size > cap) {
            p->failed = 1;
            if (fd >= 0) close(fd);
            continue;
        }
        size_t n = (size_t)st.st_size;
        if (p->codec < 0) { /* no codec: the rows straight into place, IOV_MAX at a time */
            struct iovec iov[1024];
            for (size_t r0 = 0; r0 < ROWS; r0 += 1024) {
                chunk_iov(p->array, k, r0, iov);
                if (preadv(fd, iov, 1024, (off_t)r0 * 1024) != 1024 * 1024) p->failed = 1;
            }
            close(fd);
            continue;
        }
        const unsigned char *in = comp;
        void *map = NULL;
        if (p->use_mmap) {
            map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
            if (map == MAP_FAILED) {
                p->failed = 1;
                close(fd);
                continue;
            }
            in = map;
        } else {
            size_t got = 0;
            while (got < n) {
                ssize_t r = read(fd, comp + got, n - got);
                if (r <= 0) break;
                got += (size_t)r;
            }
            if (got != n) p->failed = 1;
        }
        if (decode(p->codec, in, n, tmp, out, dec) != 0) p->failed = 1;
        if (map) munmap(map, n);
        close(fd);
        for (size_t r = 0; r < ROWS; r++) memcpy(chunk_row(p->array, k, r), out + r * 1024, 1024);
    }
    if (p->codec == C_DEFLATE) libdeflate_free_decompressor(dec);
    if (p->codec == C_ZSTD) ZSTD_freeDCtx(dec);
    free(comp);
    free(tmp);
    free(out);
    return NULL;
}

static void *wpipe_run(void *a) {
    struct pjob *p = a;
    size_t cap = CHUNK + CHUNK / 8 + 65536;
    unsigned char *comp = touched(cap), *tmp = touched(CHUNK), *chunk = aligned_touched(CHUNK);
    void *enc = p->codec == C_ZSTD ? (void *)ZSTD_createCCtx() : NULL;
    char path[4096];
    for (int k; (k = next_chunk(p)) < p->nchunks;) {
        snprintf(path, sizeof path, "%s/%d", p->dir, k);
        int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | (p->sync == SYNC_DIRECT ? O_DIRECT : 0), 0644);
        if (fd < 0) {
            p->failed = p->sync == SYNC_DIRECT && errno == EINVAL ? 2 : 1;
            continue;
        }
        if (p->sync == SYNC_DIRECT) { /* O_DIRECT: whole aligned blocks, so the rows gathered first */
            for (size_t r = 0; r < ROWS; r++) memcpy(chunk + r * 1024, chunk_row(p->array, k, r), 1024);
            if (write(fd, chunk, CHUNK) != CHUNK) p->failed = errno == EINVAL ? 2 : 1;
        } else if (p->codec < 0) { /* no codec: the rows straight from the array, IOV_MAX at a time */
            struct iovec iov[1024];
            for (size_t r0 = 0; r0 < ROWS; r0 += 1024) {
                chunk_iov(p->array, k, r0, iov);
                if (writev(fd, iov, 1024) != 1024 * 1024) p->failed = 1;
            }
        } else {
            for (size_t r = 0; r < ROWS; r++) memcpy(chunk + r * 1024, chunk_row(p->array, k, r), 1024);
            size_t n = encode(p->codec, chunk, tmp, comp, cap, enc);
            if (n == 0 || write(fd, comp, n) != (ssize_t)n) p->failed = 1;
        }
        if (p->sync == SYNC_FDATASYNC && fdatasync(fd) != 0) p->failed = 1;
        if (close(fd) != 0) p->failed = 1;
    }
    if (p->codec == C_ZSTD) ZSTD_freeCCtx(enc);
    free(comp);
    free(tmp);
    free(chunk);
    return NULL;
}

static void remove_chunks(const char *dir, int nchunks) {
    char path[4200];
    for (int i = 0; i < nchunks; i++) {
        snprintf(path, sizeof path, "%s/%d", dir, i);
        unlink(path);
    }
    rmdir(dir);
}

static void emit_pipeline(const char *kind, int codec, int failed, int cores, int nchunks, double secs) {
    char name[128];
    snprintf(name, sizeof name, "%s %s", kind, codec < 0 ? "none" : cname[codec]);
    if (failed)
        fprintf(stderr, "%s: failed\n", name);
    else
        emit(name, cores, (double)nchunks * CHUNK, secs);
}

/* Writes the chunk files of `codec` (-1: none) under scratch (chunk k holds
 * field chunk k % NCH: sizes and contents as in W1), reads them back into
 * `array` with every core, best of 3, and removes them. */
static void pipeline(const char *scratch, int codec, float *array, size_t mib, int cores) {
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/limits-pipeline-%d", scratch, (int)getpid());
    if (mkdir(dir, 0755) != 0) {
        perror(dir);
        return;
    }
    int nchunks = (int)(mib / 4);
    size_t cap = CHUNK + CHUNK / 8 + 65536;
    unsigned char *tmp = touched(CHUNK), *comp = touched(cap);
    void *enc = codec == C_DEFLATE ? (void *)libdeflate_alloc_compressor(1)
                : codec == C_ZSTD  ? (void *)ZSTD_createCCtx()
                                   : NULL;
    for (int k = 0; k < NCH; k++) {
        size_t clen = codec < 0 ? CHUNK : encode(codec, raw[k], tmp, comp, cap, enc);
        const unsigned char *src = codec < 0 ? raw[k] : comp;
        for (int i = k; i < nchunks; i += NCH) {
            snprintf(path, sizeof path, "%s/%d", dir, i);
            int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
            if (fd < 0 || write(fd, src, clen) != (ssize_t)clen) perror(path);
            if (fd >= 0) close(fd);
        }
    }
    if (codec == C_DEFLATE) libdeflate_free_compressor(enc);
    if (codec == C_ZSTD) ZSTD_freeCCtx(enc);
    free(tmp);
    free(comp);
    for (int use_mmap = 0; use_mmap <= (codec < 0 ? 0 : 1); use_mmap++) {
        double best = 1e9;
        int failed = 0;
        for (int r = 0; r < 3; r++) {
            double s = par_chunks(cores, pipe_run, (struct pjob){dir, codec, use_mmap, nchunks, array, NULL, 0, SYNC_NONE},
                                  &failed);
            if (s < best) best = s;
        }
        emit_pipeline(use_mmap ? "pipeline-mmap" : "pipeline", codec, failed, cores, nchunks, best);
    }
    remove_chunks(dir, nchunks);
}

/* Fills `array` with W1's chunks (chunk k holds field chunk k % NCH), writes it
 * as chunk files of `codec` (-1: none) with every core, best of 3, removing the
 * files after each run (untimed). */
static void write_pipeline(const char *scratch, int codec, float *array, size_t mib, int cores) {
    char dir[4096];
    int nchunks = (int)(mib / 4);
    for (int k = 0; k < nchunks; k++)
        for (size_t r = 0; r < ROWS; r++) memcpy(chunk_row(array, k, r), raw[k % NCH] + r * 1024, 1024);
    snprintf(dir, sizeof dir, "%s/limits-write-pipeline-%d", scratch, (int)getpid());
    double best = 1e9;
    int failed = 0;
    for (int r = 0; r < 3; r++) {
        if (mkdir(dir, 0755) != 0) {
            perror(dir);
            return;
        }
        double s = par_chunks(cores, wpipe_run, (struct pjob){dir, codec, 0, nchunks, array, NULL, 0, SYNC_NONE}, &failed);
        if (s < best) best = s;
        remove_chunks(dir, nchunks);
    }
    emit_pipeline("write-pipeline", codec, failed, cores, nchunks, best);
}

/* 0 when the file system under dir takes O_DIRECT writes of aligned blocks;
 * otherwise the errno of its refusal (EINVAL at open: tmpfs on older kernels). */
static int direct_refused(const char *dir) {
    char path[4200];
    snprintf(path, sizeof path, "%s/odirect-probe", dir);
    int err = 0, fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_DIRECT, 0644);
    if (fd < 0) {
        err = errno;
    } else {
        void *block = aligned_touched(4096);
        if (write(fd, block, 4096) != 4096) err = errno ? errno : EIO;
        free(block);
        close(fd);
    }
    unlink(path);
    return err;
}

/* The floor of a durable W1 write without codec: the write-pipeline's chunk
 * files (`array` as filled by write_pipeline) into a fresh directory on every
 * core, each made durable as `sync` says, then fsync of the new directory and
 * of its parent. The directory is made and the previous repetition's files are
 * removed and their removal synced before the clock starts. Best of 3. */
static void durable_pipeline(const char *scratch, int sync, float *array, size_t mib, int cores) {
    const char *name = sync == SYNC_DIRECT ? "durable-write O_DIRECT none" : "durable-write fdatasync none";
    char dir[4096];
    int nchunks = (int)(mib / 4);
    snprintf(dir, sizeof dir, "%s/limits-durable-%d", scratch, (int)getpid());
    int sfd = open(scratch, O_RDONLY | O_DIRECTORY);
    if (sfd < 0) {
        perror(scratch);
        return;
    }
    double best = 1e9;
    int failed = 0;
    for (int r = 0; r < 3 && !failed; r++) {
        if (mkdir(dir, 0755) != 0) {
            perror(dir);
            break;
        }
        int refused = sync == SYNC_DIRECT ? direct_refused(dir) : 0;
        if (refused) {
            printf("LIMIT {\"name\":\"%s\",\"threads\":%d,\"status\":\"unsupported: O_DIRECT refused (%s)\"}\n",
                   name, cores, strerrorname_np(refused) ? strerrorname_np(refused) : "?");
            fflush(stdout);
            rmdir(dir);
            close(sfd);
            return;
        }
        if (fsync(sfd) != 0) failed = 1;
        int dfd = open(dir, O_RDONLY | O_DIRECTORY);
        double t0 = now();
        par_chunks(cores, wpipe_run, (struct pjob){dir, -1, 0, nchunks, array, NULL, 0, sync}, &failed);
        if (dfd < 0 || fsync(dfd) != 0 || fsync(sfd) != 0) failed |= 1;
        double s = now() - t0;
        if (dfd >= 0) close(dfd);
        if (s < best) best = s;
        remove_chunks(dir, nchunks);
        fsync(sfd);
    }
    close(sfd);
    if (failed & 2) /* (a write refused after the probe passed) */
        printf("LIMIT {\"name\":\"%s\",\"threads\":%d,\"status\":\"unsupported: O_DIRECT write refused\"}\n",
               name, cores);
    else if (failed)
        fprintf(stderr, "%s: failed\n", name);
    else
        emit(name, cores, (double)nchunks * CHUNK, best);
    fflush(stdout);
}

#define NARRAYS 2000

struct mjob {
    const char *root;
    int first, step;
    int chunk; /* also the variable's 64-byte chunk */
    int failed;
};

static void put_small(const char *path, const char *text) {
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) perror(path);
    if (fd >= 0) close(fd);
}

static void *meta_run(void *a) {
    struct mjob *j = a;
    char path[4096];
    const char *zarray = "{\"zarr_format\": 2, \"shape\": [16], \"dtype\": \"<f4\", \"chunks\": [16], "
                         "\"fill_value\": 9.96921e+36, \"order\": \"C\", \"compressor\": null, \"filters\": null}";
    const char *zattrs = "{\"units\": \"m\", \"_ARRAY_DIMENSIONS\": [\"n\"], \"_nczarr_array\": "
                         "{\"dimension_references\": [\"/n\"], \"storage\": \"chunked\"}}";
    for (int i = j->first; i < NARRAYS; i += j->step) {
        snprintf(path, sizeof path, "%s/var%05d", j->root, i);
        if (mkdir(path, 0755) != 0) {
            j->failed = 1;
            continue;
        }
        snprintf(path, sizeof path, "%s/var%05d/.zarray", j->root, i);
        put_small(path, zarray);
        snprintf(path, sizeof path, "%s/var%05d/.zattrs", j->root, i);
        put_small(path, zattrs);
        if (j->chunk) {
            snprintf(path, sizeof path, "%s/var%05d/0", j->root, i);
            put_small(path, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
        }
    }
    return NULL;
}

static void remove_tree(const char *root) {
    char path[4096];
    for (int i = 0; i < NARRAYS; i++) {
        snprintf(path, sizeof path, "%s/var%05d/.zarray", root, i);
        unlink(path);
        snprintf(path, sizeof path, "%s/var%05d/.zattrs", root, i);
        unlink(path);
        snprintf(path, sizeof path, "%s/var%05d/0", root, i);
        unlink(path);
        snprintf(path, sizeof path, "%s/var%05d", root, i);
        rmdir(path);
    }
    rmdir(root);
}

static void metadata_floor(const char *scratch, int chunk) {
    char root[4096];
    for (int threads = 1; threads <= 2; threads++) {
        double best = 1e9;
        for (int r = 0; r < 3; r++) {
            snprintf(root, sizeof root, "%s/limits-metadata-%d", scratch, (int)getpid());
            remove_tree(root);
            if (mkdir(root, 0755) != 0) {
                perror(root);
                return;
            }
            pthread_t t[2];
            struct mjob j[2];
            double t0 = now();
            for (int i = 0; i < threads; i++) {
                j[i] = (struct mjob){root, i, threads, chunk, 0};
                pthread_create(&t[i], NULL, meta_run, &j[i]);
            }
            for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
            double s = now() - t0;
            if (s < best) best = s;
            remove_tree(root);
        }
        printf("LIMIT {\"name\":\"metadata %d arrays%s\",\"threads\":%d,\"secs\":%.6f}\n", NARRAYS,
               chunk ? " + chunk" : "", threads, best);
    }
}

/* The floor with the chunks once in `root`, 2 threads, nothing removed. */
static int metadata_once(const char *root) {
    if (mkdir(root, 0755) != 0) {
        perror(root);
        return 2;
    }
    pthread_t t[2];
    struct mjob j[2];
    double t0 = now();
    for (int i = 0; i < 2; i++) {
        j[i] = (struct mjob){root, i, 2, 1, 0};
        pthread_create(&t[i], NULL, meta_run, &j[i]);
    }
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    double s = now() - t0;
    if (j[0].failed || j[1].failed) {
        fprintf(stderr, "%s: a directory could not be made\n", root);
        return 2;
    }
    printf("LIMIT {\"name\":\"metadata %d arrays + chunk, once\",\"threads\":2,\"secs\":%.6f}\n", NARRAYS, s);
    return 0;
}

int main(int argc, char **argv) {
    const char *parts = argc > 3 ? argv[3] : "all";
    if (argc == 4 && strcmp(parts, "metadata-once") == 0) return metadata_once(argv[1]);
    int cpu = strcmp(parts, "all") == 0 || strcmp(parts, "cpu") == 0;
    int fs = strcmp(parts, "all") == 0 || strcmp(parts, "fs") == 0;
    if (argc < 3 || argc > 5 || (!cpu && !fs)) {
        fprintf(stderr, "usage: limits SCRATCH_DIR MIB [all|cpu|fs [PIPE_MIB]]\n");
        return 1;
    }
    size_t n = (size_t)atol(argv[2]) << 20;
    /* The pipelines' (PIPE_MIB/4, 1024, 1024) array holds whole 16-plane rows of chunks. */
    size_t pmib = argc > 4 ? (size_t)atol(argv[4]) / 64 * 64 : (n >> 20) / 64 * 64;
    if (argc > 4 && pmib < 64) pmib = 64;
    int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    if (cores > 64) cores = 64;
    char *a = touched(n), *b = touched(n);
    for (int threads = 1; cpu && threads <= 2; threads++) {
        double best = 1e9;
        for (int r = 0; r < 3; r++) {
            double s = par_copy(b, a, n, threads);
            if (s < best) best = s;
        }
        emit("memcpy", threads, (double)n, best);
    }
    if (fs) {
        char path[4096];
        snprintf(path, sizeof path, "%s/limits-pagecache.bin", argv[1]);
        int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
        if (fd < 0 || write(fd, a, n) != (ssize_t)n) {
            perror(path);
            return 2;
        }
        par_read(fd, b, n, 1); /* warm */
        for (int threads = 1; threads <= 2; threads++) {
            double best = 1e9;
            for (int r = 0; r < 3; r++) {
                double s = par_read(fd, b, n, threads);
                if (s < best) best = s;
            }
            emit("pagecache read", threads, (double)n, best);
        }
        close(fd);
        unlink(path);
    }
    free(a);
    free(b);
    if (fs) {
        metadata_floor(argv[1], 0);
        metadata_floor(argv[1], 1);
    }

    blosc_init();
    for (int k = 0; k < NCH; k++) {
        raw[k] = touched(CHUNK);
        make_chunk(k, (float *)raw[k]);
    }
    int iters = (int)(n >> 20) / 16; /* about MIB/4 MiB of data per thread, at least 4 chunks */
    if (iters < 4) iters = 4;
    for (int c = 0; cpu && c < NCODECS; c++)
        for (int dec = 0; dec <= 1; dec++) {
#ifndef HAVE_ISAL
            if (c == C_IGZIP) continue;
#endif
            if (c == C_IGZIP && dec) continue; /* libdeflate decodes it */
            int it = c == C_ZLIB && !dec ? (iters + 3) / 4 : iters; /* zlib encode is slow */
            codec_rate(c, dec, 1, it);
            codec_rate(c, dec, cores, it);
        }
    if (fs && pmib >= 64) {
        float *array = touched(pmib << 20);
        int pcodecs[] = {-1, C_DEFLATE, C_ZSTD, C_BLOSC};
        for (size_t i = 0; i < sizeof pcodecs / sizeof pcodecs[0]; i++)
            pipeline(argv[1], pcodecs[i], array, pmib, cores);
        int wcodecs[] = {-1, C_ZSTD, C_BLOSC};
        for (size_t i = 0; i < sizeof wcodecs / sizeof wcodecs[0]; i++)
            write_pipeline(argv[1], wcodecs[i], array, pmib, cores);
        /* The array holds the write-pipeline's chunks: the same bytes, made durable. */
        durable_pipeline(argv[1], SYNC_FDATASYNC, array, pmib, cores);
        durable_pipeline(argv[1], SYNC_DIRECT, array, pmib, cores);
        free(array);
    }
    blosc_destroy();
    return 0;
}
