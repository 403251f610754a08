/* The VELO unit: small messages through the receiver's mailbox ring. To a peer whose
 * segment is mapped (TW_LINK_MAPPED) the sender writes that ring itself; to any other
 * peer its link carries the message, and the receiving device puts it into the same
 * ring there (tw_velo_link_deliver). */
#include "device/velo.h"

#include <tollway/status.h>
#include <tollway/velo.h>

#include "device/endpoint.h"
#include "device/progress.h"

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* To a peer whose link carries the message. */
__attribute__((noinline)) static int link_send(tw_ep_t *ep, tw_peer_t *peer, int dest, unsigned tag,
                                               const void *hdr, size_t hlen, const void *buf,
                                               size_t len) {
    tw_ep_link_t *via = peer->via;
    tw_dev_lock(ep); /* a link instance is driven by one thread at a time */
    int rc = via->link->velo_send(via->ctx, dest, tag, hdr, hlen, buf, len);
    tw_dev_unlock(ep);
    if (rc == TW_RETRY) ep->stats.send_retries++;
    if (rc) return rc;
    ep->stats.msgs_sent++;
    ep->stats.bytes_sent += hlen + len;
    return TW_OK;
}

int tw_velo_link_deliver(void *dev, uint32_t source, unsigned tag, const void *data, size_t len) {
    tw_ep_t *ep = ((tw_ep_link_t *)dev)->ep;
    /* a source outside the job would stay at the head of the mailbox for good: the
     * receiver refuses it there (head_message) */
    if (source >= (uint32_t)ep->size || tag > TW_VELO_TAG_MAX || len > TW_VELO_MAX_SIZE)
        return TW_ERR_CORRUPT;
    tw_slot_t *s = tw_ring_reserve(&ep->velo_self, len);
    if (!s) return TW_RETRY;
    tw_copy(&s->word[1], data, len);
    tw_ring_commit(
        s, ((uint64_t)tag << TW_VELO_TAG_SHIFT) | ((uint64_t)source << TW_VELO_SOURCE_SHIFT), len);
    tw_ring_wake(&ep->velo_self); /* perhaps the progress thread, the owner asleep */
    return TW_OK;
}

/* Writes header + body into a mapped peer's mailbox; rings its doorbell when ring
 * (a constant: the fast path has no such step, nor a fill). */
__attribute__((always_inline)) static inline int
mailbox_post(tw_ep_t *ep, tw_peer_t *peer, unsigned tag, const void *hdr, size_t hlen,
             const void *buf, size_t len, tw_velo_fill_fn fill, void *ctx, int ring) {
    tw_slot_t *s = tw_ring_reserve(&peer->velo, hlen + len);
    if (unlikely(!s)) {
        ep->stats.send_retries++;
        return TW_RETRY;
    }
    unsigned char *at = (unsigned char *)&s->word[1];
    if (hlen) tw_copy(at, hdr, hlen);
    if (fill)
        fill(ctx, at + hlen, len);
    else
        tw_copy(at + hlen, buf, len);
    tw_ring_commit(
        s, ((uint64_t)tag << TW_VELO_TAG_SHIFT) | ((uint64_t)ep->rank << TW_VELO_SOURCE_SHIFT),
        hlen + len);
    if (ring) tw_ring_wake(&peer->velo);
    ep->stats.msgs_sent++;
    ep->stats.bytes_sent += hlen + len;
    return TW_OK;
}

/* To a peer that may sleep (TW_WAIT=sleep), or whose link carries the message (a
 * filled body is written aside first: the link takes bytes). */
__attribute__((noinline, cold)) static int post_other(tw_ep_t *ep, int dest, unsigned tag,
                                                      const void *hdr, size_t hlen, const void *buf,
                                                      size_t len, tw_velo_fill_fn fill, void *ctx) {
    tw_peer_t *peer = ep->peers[dest];
    if (peer->mapped) return mailbox_post(ep, peer, tag, hdr, hlen, buf, len, fill, ctx, 1);
    unsigned char aside[TW_VELO_MAX_SIZE];
    if (fill) fill(ctx, aside, len), buf = aside;
    return link_send(ep, peer, dest, tag, hdr, hlen, buf, len);
}

/* Posts header + body into dest's mailbox: the body of tw_velo_send (no header),
 * tw_velo_sendv and tw_velo_send_fill. */
__attribute__((always_inline)) static inline int velo_post(tw_ep_t *ep, int dest, unsigned tag,
                                                           const void *hdr, size_t hlen,
                                                           const void *buf, size_t len,
                                                           tw_velo_fill_fn fill, void *ctx) {
    if (unlikely(!ep || (!hdr && hlen) || (!buf && !fill && len))) return TW_ERR_ARG;
    if (unlikely((unsigned)dest >= (unsigned)ep->size)) return TW_ERR_RANK;
    if (unlikely(hlen > TW_VELO_MAX_SIZE || len > TW_VELO_MAX_SIZE - hlen)) return TW_ERR_SIZE;
    if (unlikely(tag > TW_VELO_TAG_MAX)) return TW_ERR_TAG;
    tw_peer_t *peer = ep->peers[dest];
    if (unlikely(!peer)) {
        int rc = tw_ep_connect(ep, dest);
        if (rc) return rc;
        peer = ep->peers[dest];
    }
    if (unlikely(peer->mapped != TW_PEER_MAPPED))
        return post_other(ep, dest, tag, hdr, hlen, buf, len, fill, ctx);
    return mailbox_post(ep, peer, tag, hdr, hlen, buf, len, fill, ctx, 0);
}

int tw_velo_send(tw_ep_t *ep, int dest, unsigned tag, const void *buf, size_t len) {
    return velo_post(ep, dest, tag, NULL, 0, buf, len, NULL, NULL);
}

int tw_velo_sendv(tw_ep_t *ep, int dest, unsigned tag, const void *hdr, size_t hlen,
                  const void *buf, size_t len) {
    return velo_post(ep, dest, tag, hdr, hlen, buf, len, NULL, NULL);
}

int tw_velo_send_fill(tw_ep_t *ep, int dest, unsigned tag, const void *hdr, size_t hlen, size_t len,
                      tw_velo_fill_fn fill, void *ctx) {
    if (!fill) return TW_ERR_ARG;
    return velo_post(ep, dest, tag, hdr, hlen, NULL, len, fill, ctx);
}

/* The message at the head of the mailbox, decoded and checked. */
static inline int head_message(tw_ep_t *ep, tw_velo_msg_t *msg, uint64_t *status, int count_empty) {
    void *payload;
    int rc = tw_ring_peek(&ep->velo_rx, status, &payload);
    if (likely(rc == TW_RING_EMPTY)) {
        /* an idle endpoint serves RMA and what comes over its links, then looks again */
        if (tw_dev_progress_if_pending(ep)) rc = tw_ring_peek(&ep->velo_rx, status, &payload);
        if (rc == TW_RING_EMPTY) {
            if (count_empty) ep->stats.polls_empty++;
            return TW_EMPTY;
        }
    }
    if (rc != TW_RING_OK) return TW_ERR_CORRUPT;
    uint64_t st = *status;
    uint64_t source = (st >> TW_VELO_SOURCE_SHIFT) & 0xffffffffull;
    if (unlikely(source >= (uint64_t)ep->size)) return TW_ERR_CORRUPT;
    msg->source = (int)source;
    msg->tag = (unsigned)(st >> TW_VELO_TAG_SHIFT) & TW_VELO_TAG_MASK;
    msg->length = st & TW_RING_LEN_MASK;
    msg->data = payload;
    msg->slots_ = tw_ring_slots_for(msg->length);
    return TW_OK;
}

static inline void consume(tw_ep_t *ep, uint64_t status) {
    tw_ring_release(&ep->velo_rx, status);
    ep->stats.msgs_received++;
    ep->stats.bytes_received += status & TW_RING_LEN_MASK;
}

/* tw_velo_poll; count_empty says whether an empty poll goes into the counters. */
static inline int velo_poll(tw_ep_t *ep, tw_velo_msg_t *msg, void *buf, size_t cap,
                            int count_empty) {
    if (unlikely(!ep || !msg || (!buf && cap) || ep->peeked))
        return ep && ep->peeked ? TW_ERR_STATE : TW_ERR_ARG;
    uint64_t status;
    int rc = head_message(ep, msg, &status, count_empty);
    if (rc != TW_OK) return rc;
    if (unlikely(msg->length > cap)) {
        msg->data = NULL;
        return TW_ERR_TRUNCATE;
    }
    tw_copy(buf, msg->data, msg->length); /* buf may be NULL when length is 0 */
    msg->data = NULL;
    consume(ep, status);
    return TW_OK;
}

int tw_velo_poll(tw_ep_t *ep, tw_velo_msg_t *msg, void *buf, size_t cap) {
    return velo_poll(ep, msg, buf, cap, 1);
}

int tw_velo_recv(tw_ep_t *ep, tw_velo_msg_t *msg, void *buf, size_t cap) {
    /* Spin on the poll itself: when the message lands, the loop that sees it is
     * already on its way to copy it out. Its empty polls are not counted. */
    unsigned spins = 0;
    int rc;
    while ((rc = velo_poll(ep, msg, buf, cap, 0)) == TW_EMPTY) tw_ep_idle(ep, &spins);
    return rc;
}

int tw_velo_probe(tw_ep_t *ep, tw_velo_msg_t *msg) {
    if (!ep || !msg) return TW_ERR_ARG;
    uint64_t status;
    int rc = head_message(ep, msg, &status, 1);
    msg->data = NULL;
    return rc;
}

int tw_velo_peek(tw_ep_t *ep, tw_velo_msg_t *msg) {
    if (!ep || !msg) return TW_ERR_ARG;
    if (ep->peeked) return TW_ERR_STATE;
    uint64_t status;
    int rc = head_message(ep, msg, &status, 1);
    if (rc == TW_OK) ep->peeked = status; /* never 0: a valid record's */
    return rc;
}

int tw_velo_release(tw_ep_t *ep, tw_velo_msg_t *msg) {
    if (!ep || !msg) return TW_ERR_ARG;
    /* the status word as the peek read it: the caller's copy of msg is not trusted to
     * say how many slots to free, and the record cannot change while it is peeked
     * (its producer wrote it whole; only this owner frees it) */
    uint64_t status = ep->peeked;
    if (!status) return TW_ERR_STATE;
    ep->peeked = 0;
    consume(ep, status);
    return TW_OK;
}

int tw_velo_unpeek(tw_ep_t *ep, tw_velo_msg_t *msg) {
    if (!ep || !msg) return TW_ERR_ARG;
    if (!ep->peeked) return TW_ERR_STATE;
    ep->peeked = 0;
    msg->data = NULL;
    return TW_OK;
}
