/* The optional progress thread (TW_PROGRESS_THREAD=1, progress.c).
 *
 * Across nodes the target's device executes RMA requests, and takes messages into
 * the mailbox, only when it makes progress. A process that computes without calling
 * tollway would leave its peers waiting; the thread serves the udp link meanwhile.
 *
 * The thread and the owner share the udp link and everything serving it touches (the
 * table of operations in flight, the answers waiting for the window, the peers
 * table); one recursive mutex guards them, taken by the owner around every call into
 * that state and tried by the thread. Without the thread the lock is one predictable
 * branch; the shared-memory paths never take it. */
#ifndef TW_DEVICE_PROGRESS_H
#define TW_DEVICE_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "device/endpoint.h"

struct tw_progress {
    pthread_mutex_t lock; /* recursive: the owner's calls nest */
    pthread_t thread;
    _Atomic int stop;
    _Atomic uint64_t entries; /* times the owner took the lock: it is calling in */
    uint32_t interval_us;
    uint64_t polls, delivered; /* by the thread, read after it ended */
};

/* Starts the thread when TW_PROGRESS_THREAD=1 and the endpoint has a udp link. */
int tw_progress_start(tw_ep_t *ep);
/* Stops and joins it (nothing when there is none). */
void tw_progress_stop(tw_ep_t *ep);

static inline void tw_dev_lock(tw_ep_t *ep) {
    struct tw_progress *p = ep->progress;
    if (__builtin_expect(p != NULL, 0)) {
        pthread_mutex_lock(&p->lock);
        /* only the owner writes it: a load and a store, no locked instruction */
        atomic_store_explicit(&p->entries,
                              atomic_load_explicit(&p->entries, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    }
}

static inline void tw_dev_unlock(tw_ep_t *ep) {
    if (__builtin_expect(ep->progress != NULL, 0)) pthread_mutex_unlock(&ep->progress->lock);
}

#endif
