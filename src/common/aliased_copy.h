/* Long copies whose destination lies 1 to 63 bytes after their source modulo 4 KiB.
 * On some CPUs (the AMD EPYC of this project's machines) `rep movsb`, which memcpy and
 * the kernel's copies to and from user memory take for long runs, then moves 2.5-3 GB/s
 * where it otherwise moves 13-50: a 64 KiB pread from the page cache into a buffer 16
 * bytes past a page, as malloc gives, ran at 2.5 GB/s against 15.9 at 32 bytes past it.
 * A loop of 16-byte loads and stores does not slow down so (49.5 GB/s there). */
#ifndef TW_COMMON_ALIASED_COPY_H
#define TW_COMMON_ALIASED_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* 1 when a copy from address src to address dst is one rep movsb slows down on such
 * CPUs (addresses as integers: a file's offset stands for its page cache's). */
static inline int tw_copy_aliased(uintptr_t dst, uintptr_t src) {
    size_t d = (dst - src) & 4095;
    return d != 0 && d < 64;
}

/* n bytes from src to dst (not overlapping) through vector registers, whatever their
 * distance modulo 4 KiB. */
static inline void tw_copy_by_vectors(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
#if defined(__SSE2__)
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s),
                b = _mm_loadu_si128((const __m128i *)(s + 16)),
                c = _mm_loadu_si128((const __m128i *)(s + 32)),
                e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_storeu_si128((__m128i *)d, a);
        _mm_storeu_si128((__m128i *)(d + 16), b);
        _mm_storeu_si128((__m128i *)(d + 32), c);
        _mm_storeu_si128((__m128i *)(d + 48), e);
    }
#endif
    memcpy(d, s, n);
}

/* Whether this CPU is one of those (aliased_copy.c: probed once per library, the first
 * time it is asked). The kernel's copies to and from user memory are rep movsb too: a
 * system call that copies at such a distance is worth a second copy through a buffer
 * placed between (tw_copy_bounce_offset), where this says so. */
__attribute__((visibility("hidden"))) int tw_copy_aliased_slow(void);

/* Where in a buffer of 4 KiB more than a chunk a chunk copied to or from address `far`
 * goes, half a page from it: neither the copy between far and the buffer nor the one
 * between the buffer and an address 1 to 63 bytes from far is then aliased. */
static inline size_t tw_copy_bounce_offset(uintptr_t far) {
    return (size_t)((far + 2048) & 4095);
}

/* The buffer of such copies: TW_COPY_BOUNCE_CHUNK + 4 KiB bytes, one per thread (kept
 * until it exits, as the I/O thread's and the program's), NULL without memory. */
enum { TW_COPY_BOUNCE_CHUNK = 256 << 10 };
__attribute__((visibility("hidden"))) char *tw_copy_bounce_buffer(void);

/* A copy of n bytes (not overlapping) at memcpy's speed whatever the distance: by
 * vectors where rep movsb would slow down, else memcpy. */
static inline void tw_copy_long(void *dst, const void *src, size_t n) {
    if (tw_copy_aliased((uintptr_t)dst, (uintptr_t)src))
        tw_copy_by_vectors(dst, src, n);
    else
        memcpy(dst, src, n);
}

#endif
