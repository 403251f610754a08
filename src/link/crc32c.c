/* CRC32C, reflected polynomial 0x82f63b78: by the SSE4.2 crc32 instruction where the
 * CPU has it (chosen once), else by a byte table. */
#include "link/crc32c.h"

#include <pthread.h>
#include <string.h>

static uint32_t table[256];

static uint32_t crc_table(uint32_t crc, const unsigned char *p, size_t len) {
    for (size_t i = 0; i < len; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
/* Multiplication modulo the polynomial, bit-reflected (as zlib's crc32_combine): a
 * register shifted over n zero bytes is the register times x^(8n). */
static uint32_t multmodp(uint32_t a, uint32_t b) {
    uint32_t m = 1u << 31, p = 0;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0) break;
        }
        m >>= 1;
        b = b & 1 ? (b >> 1) ^ 0x82f63b78u : b >> 1;
    }
    return p;
}

/* x^(8n) modulo the polynomial. */
static uint32_t zeros_operator(size_t n) {
    uint32_t p = 1u << 31, sq = 1u << 30; /* x^0; x^1 */
    for (size_t bits = 8 * n; bits; bits >>= 1) {
        if (bits & 1) p = multmodp(sq, p);
        sq = multmodp(sq, sq);
    }
    return p;
}

/* The crc32 instruction takes three cycles and can start one every cycle: a long
 * buffer goes as three interleaved streams of a third of it each, joined by shifting
 * the first two over the bytes that follow them (a multiplication, see multmodp). The
 * two factors depend on the stream length only, which is rounded down to a multiple
 * of STREAM_GRAIN so that packets of nearby lengths share it; the factors of the last
 * few stream lengths are kept (per thread: the progress thread checks packets too), as
 * the link's packets come in a few lengths at a time (full chunks and the last ones). */
enum { MIN_STREAM = 1024, STREAM_GRAIN = 256, SHIFTS_KEPT = 8 };

typedef struct stream_shift {
    size_t block;
    uint32_t block_shift, twice_shift;
} stream_shift_t;

static const stream_shift_t *shifts_for(size_t block) {
    static _Thread_local stream_shift_t kept[SHIFTS_KEPT];
    stream_shift_t *s = &kept[block / STREAM_GRAIN % SHIFTS_KEPT];
    if (s->block != block) {
        s->block_shift = zeros_operator(block);
        s->twice_shift = zeros_operator(2 * block);
        s->block = block;
    }
    return s;
}

__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const unsigned char *p,
                                                            size_t len) {
    uint64_t c = crc;
    if (len >= 3 * MIN_STREAM) {
        size_t block = len / 3 & ~(size_t)(STREAM_GRAIN - 1);
        const stream_shift_t *shift = shifts_for(block);
        uint64_t c1 = 0, c2 = 0;
        for (size_t i = 0; i < block; i += 8) {
            uint64_t w0, w1, w2;
            memcpy(&w0, p + i, 8);
            memcpy(&w1, p + block + i, 8);
            memcpy(&w2, p + 2 * block + i, 8);
            c = __builtin_ia32_crc32di(c, w0);
            c1 = __builtin_ia32_crc32di(c1, w1);
            c2 = __builtin_ia32_crc32di(c2, w2);
        }
        c = multmodp(shift->twice_shift, (uint32_t)c) ^ multmodp(shift->block_shift, (uint32_t)c1) ^
            (uint32_t)c2;
        p += 3 * block;
        len -= 3 * block;
    }
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __builtin_ia32_crc32di(c, w);
    }
    uint32_t c32 = (uint32_t)c;
    for (; len; p++, len--) c32 = __builtin_ia32_crc32qi(c32, *p);
    return c32;
}
#endif

static uint32_t (*crc_impl)(uint32_t, const unsigned char *, size_t);

static void choose(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        table[i] = c;
    }
    crc_impl = crc_table;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.2")) crc_impl = crc_sse42;
#endif
}

uint32_t tw_crc32c(uint32_t crc, const void *data, size_t len) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, choose);
    return ~crc_impl(~crc, data, len);
}
