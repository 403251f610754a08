/* The decoder of device messages (message.h), shared by the links that carry them. */
#include "link/message.h"

#include <string.h>

#include <tollway/status.h>

int tw_link_msg_deliver(const tw_link_device_t *dev, void *dev_ctx, uint32_t peers, uint32_t source,
                        const void *msg, size_t len) {
    tw_link_msg_hdr_t h;
    if (len < sizeof h || source >= peers) return TW_ERR_CORRUPT;
    memcpy(&h, msg, sizeof h);
    const unsigned char *body = (const unsigned char *)msg + sizeof h;
    size_t blen = len - sizeof h;
    if (h.kind == TW_LINK_MSG_RMA_REQ) return dev->rma_request(dev_ctx, source, body, blen);
    if (h.kind == TW_LINK_MSG_RMA_ANSWER) return dev->rma_answer(dev_ctx, source, body, blen);
    if (h.kind == TW_LINK_MSG_VELO) return dev->velo(dev_ctx, source, h.tag, body, blen);
    return TW_ERR_CORRUPT;
}

void *tw_link_msg_land(const tw_link_device_t *dev, void *dev_ctx, uint32_t peers, uint32_t source,
                       const void *prefix, size_t len, size_t *skip) {
    tw_link_msg_hdr_t h;
    if (len < sizeof h || source >= peers) return NULL;
    memcpy(&h, prefix, sizeof h);
    const unsigned char *body = (const unsigned char *)prefix + sizeof h;
    size_t blen = len - sizeof h, at = 0;
    void *dest = NULL;
    if (h.kind == TW_LINK_MSG_RMA_REQ)
        dest = dev->land_request(dev_ctx, source, body, blen, &at);
    else if (h.kind == TW_LINK_MSG_RMA_ANSWER)
        dest = dev->land_answer(dev_ctx, source, body, blen, &at);
    if (dest) *skip = sizeof h + at;
    return dest;
}

void tw_link_answer_hold(tw_link_held_t *h, tw_link_ctx_t *l, int dest, const rma_answer_t *a,
                         const void *data, size_t len, int may_wait, tw_link_answer_fn send) {
    rma_answer_t joined;
    if (h->held.chunks) {
        if (h->dest == dest && h->held.handle == a->handle) { /* the same operation */
            joined = *a;
            joined.chunks = (uint16_t)(h->held.chunks + a->chunks);
            if (joined.status == TW_OK) joined.status = h->held.status;
            a = &joined;
        } else { /* another one's: what is held goes first, in order */
            send(l, h->dest, &h->held, NULL, 0);
        }
        h->held.chunks = 0;
    }
    if (may_wait && a->status == TW_OK && a->chunks < TW_LINK_ANSWERS_HELD) {
        h->held = *a;
        h->dest = dest;
        return;
    }
    send(l, dest, a, data, len);
}
