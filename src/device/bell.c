#include "device/bell.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Shared between processes: no FUTEX_PRIVATE_FLAG. */
static long futex(_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout) {
    return syscall(SYS_futex, (uint32_t *)word, op, value, timeout, NULL, 0);
}

void tw_bell_wake(tw_bell_t *b) {
    atomic_fetch_add_explicit(&b->seq, 1, memory_order_seq_cst);
    futex(&b->seq, FUTEX_WAKE, INT_MAX, NULL);
}

void tw_bell_sleep_any(tw_bell_t *const *bells, const uint32_t *tickets, int n,
                       unsigned timeout_us) {
    struct futex_waitv w[FUTEX_WAITV_MAX];
    if (n > FUTEX_WAITV_MAX) n = FUTEX_WAITV_MAX;
    for (int i = 0; i < n; i++) /* shared between processes: no FUTEX_PRIVATE_FLAG */
        w[i] = (struct futex_waitv){
            .val = tickets[i], .uaddr = (uint64_t)(uintptr_t)&bells[i]->seq, .flags = FUTEX_32};
    struct timespec t; /* futex_waitv's timeout is a point in time */
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += (time_t)(timeout_us / 1000000u);
    t.tv_nsec += (long)(timeout_us % 1000000u) * 1000;
    if (t.tv_nsec >= 1000000000L) t.tv_sec++, t.tv_nsec -= 1000000000L;
    /* EAGAIN: one was rung since its ticket; EINTR, ETIMEDOUT: the caller polls again */
    syscall(SYS_futex_waitv, w, (unsigned)n, 0u, &t, CLOCK_MONOTONIC);
}

int tw_bell_sleep_any_works(void) {
    static _Atomic int known; /* 0: not asked yet, 1: works, 2: does not */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (!k) {
        /* no waiters: EINVAL where the call exists, ENOSYS where it does not */
        long rc = syscall(SYS_futex_waitv, NULL, 0u, 0u, NULL, CLOCK_MONOTONIC);
        k = rc < 0 && errno == ENOSYS ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 1;
}

void tw_bell_sleep(tw_bell_t *b, uint32_t ticket, unsigned timeout_us) {
    struct timespec t = {(time_t)(timeout_us / 1000000u), (long)(timeout_us % 1000000u) * 1000};
    /* EAGAIN: rung since the ticket; EINTR, ETIMEDOUT: the caller polls again anyway */
    futex(&b->seq, FUTEX_WAIT, ticket, &t);
}
