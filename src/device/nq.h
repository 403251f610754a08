/* Notification queue records: one 64-byte slot of the ring each. op, class,
 * success and status ride in the status word; the rest is the payload. */
#ifndef TW_DEVICE_NQ_H
#define TW_DEVICE_NQ_H

#include <string.h>

#include <tollway/endpoint.h>
#include <tollway/notify.h>
#include <tollway/status.h>

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

/* A record of the queue as its consumer reads it (tw_nq_poll): status word st and the
 * payload after it, which a peer's process or its link wrote. TW_OK with the
 * notification in *n, or TW_ERR_CORRUPT when it cannot be one: a length other than a
 * notification's, an op that is no tw_op_t, a class that is not one TW_NOTIFY_* bit,
 * or a peer outside the job's ranks (size). */
static inline int tw_nq_decode(uint64_t st, const void *payload, int size, tw_notification_t *n) {
    if ((st & TW_RING_LEN_MASK) != sizeof(tw_nq_payload_t)) return TW_ERR_CORRUPT;
    tw_nq_payload_t p;
    memcpy(&p, payload, sizeof p);
    n->op = (uint8_t)(st >> TW_NQ_OP_SHIFT);
    n->cls = (uint8_t)((st >> TW_NQ_CLASS_SHIFT) & 7);
    n->success = (uint8_t)((st >> TW_NQ_SUCCESS_SHIFT) & 1);
    n->status = -(int32_t)(uint8_t)(st >> TW_NQ_STATUS_SHIFT);
    n->peer = p.peer;
    n->length = p.length;
    n->cookie = p.cookie;
    n->value = p.value;
    n->nla = p.nla;
    if (n->op < TW_OP_PUT || n->op > TW_OP_ATOMIC || !n->cls || (n->cls & (n->cls - 1)) ||
        (uint32_t)n->peer >= (uint32_t)size)
        return TW_ERR_CORRUPT;
    return TW_OK;
}

/* Reserves and commits at once: TW_RING_OK or TW_RING_FULL. */
static inline int tw_nq_push(tw_ring_producer_t *p, const tw_notification_t *n) {
    tw_slot_t *s = tw_nq_reserve(p);
    if (!s) return TW_RING_FULL;
    tw_nq_commit(s, n);
    tw_ring_wake(p);
    return TW_RING_OK;
}

/* Reclaims cancelled reservations at the head of the endpoint's queue, and hands the
 * slots taken back to a producer that waits for room (a step of the progress engine). */
void tw_nq_reclaim(tw_ep_t *ep);

#endif
