#include "device/bell.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Shared between processes: no FUTEX_PRIVATE_FLAG. */
static long futex(_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout) {
    return syscall(SYS_futex, (uint32_t *)word, op, value, timeout, NULL, 0);
}

void tw_bell_address(uint64_t job_key, uint32_t rank, uint32_t index, tw_bell_address_t *a) {
    memset(a, 0, sizeof *a);
    a->addr.sun_family = AF_UNIX;
    /* abstract: the name starts with a NUL and counts by its length, no file */
    int n = snprintf(a->addr.sun_path + 1, sizeof a->addr.sun_path - 1,
                     "tollway-bell-%016llx-%u-%u", (unsigned long long)job_key, rank, index);
    a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int tw_bell_socket(const tw_bell_address_t *a) {
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (bind(fd, (const struct sockaddr *)&a->addr, a->len) != 0) { /* taken: the futex alone */
        close(fd);
        return -1;
    }
    return fd;
}

void tw_bell_socket_drain(int fd) {
    char byte;
    while (recv(fd, &byte, sizeof byte, MSG_DONTWAIT) >= 0) {
    }
}

/* The process's socket that rings bell sockets: made at the first ring. */
static _Atomic int ringer = -1;

static int ringer_socket(void) {
    int fd = atomic_load_explicit(&ringer, memory_order_acquire);
    if (fd >= 0) return fd;
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int none = -1;
    if (fd >= 0 && !atomic_compare_exchange_strong(&ringer, &none, fd)) { /* another thread's */
        close(fd);
        fd = none;
    }
    return fd;
}

void tw_bell_wake(tw_bell_t *b, const tw_bell_address_t *at) {
    atomic_fetch_add_explicit(&b->seq, 1, memory_order_seq_cst);
    futex(&b->seq, FUTEX_WAKE, INT_MAX, NULL);
    int fd = at ? ringer_socket() : -1;
    /* refused (the owner closed), or its socket full (it is rung already): nothing to do */
    if (fd >= 0) (void)sendto(fd, "", 0, MSG_DONTWAIT, (const struct sockaddr *)&at->addr, at->len);
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
