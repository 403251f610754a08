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
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const unsigned char *p,
                                                            size_t len) {
    uint64_t c = crc;
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
