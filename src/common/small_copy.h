/* A copy of a few bytes without a call: the VELO rings' records and MPI's eager
 * payloads are mostly 8 to 16 bytes, where memcpy's call and size dispatch cost more
 * than the copy. */
#ifndef TW_COMMON_SMALL_COPY_H
#define TW_COMMON_SMALL_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Copies len bytes; up to 16 without a call, as one or two overlapping words (the
 * usual VELO message and RMA word), more through memcpy. Reads and writes only
 * inside [0, len) of each side. */
static inline void tw_copy(void *dst, const void *src, size_t len) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (len >= 8 && len <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + len - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + len - 8, &b, 8);
    } else if (len >= 4 && len < 8) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + len - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + len - 4, &b, 4);
    } else if (len && len < 4) {
        unsigned char a = s[0], m = s[len / 2], z = s[len - 1];
        d[0] = a;
        d[len / 2] = m;
        d[len - 1] = z;
    } else if (len) {
        memcpy(d, s, len);
    }
}

#endif
