/* Deadlines on the monotonic clock, for waits a timeout bounds: libmpi's socket I/O
 * (dynamic.c) and twrun's job timeout and kill grace. */
#ifndef TW_COMMON_DEADLINE_H
#define TW_COMMON_DEADLINE_H

#include <limits.h>
#include <time.h>

/* The monotonic time ms milliseconds from now. */
static inline struct timespec tw_deadline_in_ms(long long ms) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += (time_t)(ms / 1000);
    t.tv_nsec += (long)(ms % 1000) * 1000000;
    if (t.tv_nsec >= 1000000000) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000;
    }
    return t;
}

/* The monotonic time seconds from now. */
static inline struct timespec tw_deadline_in(int seconds) {
    return tw_deadline_in_ms(seconds * 1000LL);
}

/* Milliseconds until t: 0 once t has passed, else rounded up (a poll() that long
 * reaches it), at most INT_MAX. */
static inline int tw_ms_until(struct timespec t) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ns = (long long)(t.tv_sec - now.tv_sec) * 1000000000LL + (t.tv_nsec - now.tv_nsec);
    if (ns <= 0) return 0;
    long long ms = (ns + 999999) / 1000000;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

#endif
