/* Notification queue records: one 64-byte slot of the ring each. op, class,
 * success and status ride in the status word; the rest is the payload. */
#ifndef TW_DEVICE_NQ_H
#define TW_DEVICE_NQ_H

#include <string.h>

#include <tollway/endpoint.h>
#include <tollway/notify.h>

#include "device/ring.h"

typedef struct tw_nq_payload {
    int32_t peer;
    uint32_t unused;
    uint64_t length, cookie, value, nla;
} tw_nq_payload_t;

#define TW_NQ_OP_SHIFT      16
#define TW_NQ_CLASS_SHIFT   24
#define TW_NQ_SUCCESS_SHIFT 27
#define TW_NQ_STATUS_SHIFT  28

static inline tw_slot_t *tw_nq_reserve(tw_ring_producer_t *p) {
    return tw_ring_reserve(p, sizeof(tw_nq_payload_t));
}

static inline void tw_nq_cancel(tw_slot_t *s) {
    tw_ring_cancel(s, sizeof(tw_nq_payload_t));
}

/* Fills and commits a reserved notification slot, field by field. */
static inline void tw_nq_write(tw_slot_t *s, uint8_t op, unsigned cls, int success, int status,
                               int peer, uint64_t length, uint64_t cookie, uint64_t value,
                               uint64_t nla) {
    tw_nq_payload_t *p = (tw_nq_payload_t *)(void *)&s->word[1];
    p->peer = peer;
    p->unused = 0;
    p->length = length;
    p->cookie = cookie;
    p->value = value;
    p->nla = nla;
    uint64_t user = (uint64_t)op << TW_NQ_OP_SHIFT | (uint64_t)(cls & 7) << TW_NQ_CLASS_SHIFT |
                    (uint64_t)(success & 1) << TW_NQ_SUCCESS_SHIFT |
                    (uint64_t)(uint8_t)(-status) << TW_NQ_STATUS_SHIFT;
    tw_ring_commit(s, user, sizeof *p);
}

static inline void tw_nq_commit(tw_slot_t *s, const tw_notification_t *n) {
    tw_nq_write(s, n->op, n->cls, n->success, n->status, n->peer, n->length, n->cookie, n->value,
                n->nla);
}

/* Reserves and commits at once: TW_RING_OK or TW_RING_FULL. */
static inline int tw_nq_push(tw_ring_producer_t *p, const tw_notification_t *n) {
    tw_slot_t *s = tw_nq_reserve(p);
    if (!s) return TW_RING_FULL;
    tw_nq_commit(s, n);
    return TW_RING_OK;
}

/* Reclaims cancelled reservations at the head of the endpoint's queue (a step of
 * the progress engine). */
void tw_nq_reclaim(tw_ep_t *ep);

#endif
