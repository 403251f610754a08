/* The device's progress engine, and the optional progress thread (progress.c).
 *
 * tw_dev_progress runs the units' pollers in this order:
 *   1. link receive: every open link that must be polled (TW_LINK_POLLED) takes in
 *      what arrived and hands it to the units (tw_link_device_t): VELO messages into
 *      our mailbox, RMA requests from other nodes executed against our memory, answers
 *      to our operations taken; it acknowledges, retransmits and sends answers that
 *      waited for its window;
 *   2. RMA serving: the answers in our response ring first (they always complete an
 *      operation's part and free room), then the requests of this node's peers in our
 *      request ring (pipelined RMA);
 *   3. RMA: fault notifications still owed to operations that finished;
 *   4. notifications: cancelled reservations at the head of our queue reclaimed, so a
 *      user who asked for no notifications never has to poll it;
 *   5. peers lost: their notices that found the mailbox full (failure.h).
 * A unit's own poll (tw_ring_peek of the mailbox, of the notification queue) touches
 * only its ring; the public calls that find their ring empty run the engine when
 * there is work for it (tw_dev_progress_if_pending: one load per ring and one of
 * ep->polled when there is none) and look at their ring again. A link reaches the
 * units only through the tw_link_device_t the device gave it.
 *
 * Across nodes the target's device executes RMA requests, and takes messages into
 * the mailbox, only when it makes progress. A process that computes without calling
 * tollway would leave its peers waiting; the thread runs step 1 meanwhile (the rings
 * of steps 2 to 4 have one consumer, the owner).
 *
 * The thread and the owner share the polled links and everything serving them
 * touches (the table of operations in flight, the answers waiting for a window, the
 * peers table); one recursive mutex guards them, taken by the owner around every call into
 * that state and tried by the thread. Without the thread the lock is one predictable
 * branch; the shared-memory paths never take it. */
#ifndef TW_DEVICE_PROGRESS_H
#define TW_DEVICE_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "device/endpoint.h"

struct tw_progress_thread {
    pthread_mutex_t lock; /* recursive: the owner's calls nest */
    pthread_t thread;
    _Atomic int stop;
    _Atomic uint64_t entries; /* times the owner took the lock: it is calling in */
    uint32_t interval_us;
    uint64_t polls, delivered; /* by the thread, read after it ended */
};

/* Runs the engine once (not re-entered: a call from inside it returns at once).
 * Returns the messages the links handed over. Takes the device lock. */
int tw_dev_progress(tw_ep_t *ep);
/* Step 1 alone, for a caller that holds the device lock (the progress thread, an
 * operation waiting for a link's window). */
int tw_dev_poll_links(tw_ep_t *ep);

/* 1 when the engine has work: a request or an answer in our rings, or a link to poll. */
static inline int tw_dev_has_work(const tw_ep_t *ep) {
    return __builtin_expect(
        tw_ring_pending(&ep->req_rx) || tw_ring_pending(&ep->resp_rx) || ep->polled, 0);
}

/* Runs the engine when it has work: 1 when it ran (look at the ring again). */
static inline int tw_dev_progress_if_pending(tw_ep_t *ep) {
    if (tw_dev_has_work(ep)) {
        tw_dev_progress(ep);
        return 1;
    }
    return 0;
}

/* Starts the thread when TW_PROGRESS_THREAD=1 and the endpoint has a link to poll. */
int tw_progress_thread_start(tw_ep_t *ep);
/* Stops and joins it (nothing when there is none). */
void tw_progress_thread_stop(tw_ep_t *ep);

static inline void tw_dev_lock(tw_ep_t *ep) {
    struct tw_progress_thread *p = ep->progress_thread;
    if (__builtin_expect(p != NULL, 0)) {
        pthread_mutex_lock(&p->lock);
        /* only the owner writes it: a load and a store, no locked instruction */
        atomic_store_explicit(&p->entries,
                              atomic_load_explicit(&p->entries, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    }
}

static inline void tw_dev_unlock(tw_ep_t *ep) {
    if (__builtin_expect(ep->progress_thread != NULL, 0))
        pthread_mutex_unlock(&ep->progress_thread->lock);
}

#endif
