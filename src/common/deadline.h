/* Deadlines on the monotonic clock, for waits a timeout bounds: libmpi's socket I/O
 * (dynamic.c) and twrun's job timeout and kill grace. */
#ifndef TW_COMMON_DEADLINE_H
#define TW_COMMON_DEADLINE_H

#include <limits.h>
#include <time.h>

/* The monotonic time seconds from now. */
static inline struct timespec tw_deadline_in(int seconds) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += seconds;
    return t;
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
