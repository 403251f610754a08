#include "device/bell.h"

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

void tw_bell_sleep(tw_bell_t *b, uint32_t ticket, unsigned timeout_us) {
    struct timespec t = {(time_t)(timeout_us / 1000000u), (long)(timeout_us % 1000000u) * 1000};
    /* EAGAIN: rung since the ticket; EINTR, ETIMEDOUT: the caller polls again anyway */
    futex(&b->seq, FUTEX_WAIT, ticket, &t);
}
