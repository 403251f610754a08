/* The notification queue of an endpoint: poll and wait. */
#include "device/nq.h"

#include <tollway/status.h>

#include "device/endpoint.h"
#include "device/progress.h"

/* The notification at the head of the queue, taken: TW_OK, TW_EMPTY or TW_ERR_CORRUPT.
 * Touches only this endpoint's queue. */
static inline int take(tw_ep_t *ep, tw_notification_t *n) {
    uint64_t st;
    void *payload;
    int rc = tw_ring_peek(&ep->nq_rx, &st, &payload);
    if (rc == TW_RING_EMPTY) return TW_EMPTY;
    if (rc != TW_RING_OK) return TW_ERR_CORRUPT;
    /* read whole before the slot is handed back; a record that is no notification
     * stays, as a corrupt mailbox record does */
    rc = tw_nq_decode(st, payload, ep->size, n);
    if (rc != TW_OK) return rc;
    tw_ring_release(&ep->nq_rx, st);
    ep->stats.notifications++;
    return TW_OK;
}

/* The queue was empty and the engine has work: run it, look again. Out of line, so
 * the empty poll saves nothing across a call. */
__attribute__((noinline)) static int take_after_progress(tw_ep_t *ep, tw_notification_t *n) {
    tw_dev_progress(ep);
    return take(ep, n);
}

int tw_nq_poll(tw_ep_t *ep, tw_notification_t *n) {
    if (!ep || !n) return TW_ERR_ARG;
    int rc = take(ep, n);
    /* an idle endpoint serves RMA and what comes over its links, then looks again */
    if (rc == TW_EMPTY && tw_dev_has_work(ep)) return take_after_progress(ep, n);
    return rc;
}

void tw_nq_reclaim(tw_ep_t *ep) {
    uint64_t st;
    void *payload;
    (void)tw_ring_peek(&ep->nq_rx, &st, &payload);
    /* the slots taken are handed back in bulk, when the queue is found empty; one not
     * empty while a peer waits to notify (the owner takes the rest only after what
     * that peer is finishing) would otherwise keep up to two batches from it */
    tw_ring_idle(&ep->nq_rx);
}

int tw_nq_wait(tw_ep_t *ep, tw_notification_t *n) {
    unsigned spins = 0;
    for (;;) {
        int rc = tw_nq_poll(ep, n);
        if (rc != TW_EMPTY) return rc;
        while (!tw_ring_pending(&ep->nq_rx) && !tw_ring_pending(&ep->req_rx) &&
               !tw_ring_pending(&ep->resp_rx)) {
            if (ep->polled) tw_dev_progress(ep);
            tw_ep_idle(ep, &spins);
        }
    }
}
