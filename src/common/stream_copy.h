/* Copies into shared memory that another core reads next (a collective's slot), with
 * non-temporal stores: they write whole lines without first taking them from the core
 * that read them last, which between cores that share no cache costs more than the
 * copy itself. Where the reader shares the writer's cache, a plain copy is faster (the
 * reader then takes the lines from memory): the caller decides. */
#ifndef TW_COMMON_STREAM_COPY_H
#define TW_COMMON_STREAM_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* n bytes from src to dst, the stores ordered before any store after the call (a
 * flag that publishes them). */
static inline void tw_stream_copy(void *dst, const void *src, size_t n) {
#if defined(__SSE2__)
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = (size_t)(-(uintptr_t)d & 15);
    if (head > n) head = n;
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s),
                b = _mm_loadu_si128((const __m128i *)(s + 16)),
                c = _mm_loadu_si128((const __m128i *)(s + 32)),
                e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    memcpy(d, s, n);
    _mm_sfence(); /* non-temporal stores are not ordered by a release store */
#else
    memcpy(dst, src, n);
#endif
}

#endif
