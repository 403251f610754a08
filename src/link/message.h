/* The device messages a link that carries them sends (tw_link_t.velo_send,
 * rma_request, rma_answer): a small header naming the kind, then the VELO payload or
 * the RMA record (rma_wire.h) and its data. One format for every such link, and one
 * decoder handing what arrives to the device; a link adds what its transport lacks
 * (the ofi link: the sender's rank) in front. */
#ifndef TW_LINK_MESSAGE_H
#define TW_LINK_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "link/link.h"

enum { TW_LINK_MSG_VELO = 1, TW_LINK_MSG_RMA_REQ = 2, TW_LINK_MSG_RMA_ANSWER = 3 };

/* What precedes the payload of every device message. */
typedef struct tw_link_msg_hdr {
    uint8_t kind;
    uint8_t unused;
    uint16_t tag; /* a VELO message's */
} tw_link_msg_hdr_t;

/* The longest RMA message: its header, the record, the longest chunk. */
enum { TW_LINK_RMA_MSG_MAX = sizeof(tw_link_msg_hdr_t) + sizeof(rma_req_t) + REMOTE_CHUNK_MAX };

/* The chunks of a long put are answered ANSWERS_HELD at a time: an answer is a message
 * of its own through the receiver's stack (one per chunk cost a udp receiver streaming a
 * put a fifth of its time). Below RMA_UNANSWERED_MAX, so that an initiator stopped at
 * that bound always has requests on the way whose arrival releases the held answer. */
enum { TW_LINK_ANSWERS_HELD = RMA_UNANSWERED_MAX / 4 };

/* Answers held back (tw_link_t.rma_answer's may_wait): held.chunks of one operation's. */
typedef struct tw_link_held {
    rma_answer_t held;
    int dest; /* the initiator */
} tw_link_held_t;

/* What rma_answer sends: the answer a to dest, now. */
typedef void (*tw_link_answer_fn)(tw_link_ctx_t *l, int dest, const rma_answer_t *a,
                                  const void *data, size_t len);

/* tw_link_t.rma_answer for a link that holds answers back: a joins the chunks held of its
 * operation; what is held of another goes first, in order; the whole goes by send unless
 * it may wait, succeeded and is under TW_LINK_ANSWERS_HELD chunks (the last chunk's answer,
 * which completes the operation, and a fault go at once). */
void tw_link_answer_hold(tw_link_held_t *h, tw_link_ctx_t *l, int dest, const rma_answer_t *a,
                         const void *data, size_t len, int may_wait, tw_link_answer_fn send);

/* The device message in one link message of len bytes from source (of peers), handed to
 * the callback of dev for its kind, with the body after the header; the callback's
 * verdict, or TW_ERR_CORRUPT when it is no device message. These bytes come from
 * another process: everything is checked. */
int tw_link_msg_deliver(const tw_link_device_t *dev, void *dev_ctx, uint32_t peers, uint32_t source,
                        const void *msg, size_t len);
/* Receiving in place: asks the device where the data of the message (prefix holds its
 * first bytes, len is its length) goes; NULL to take it the usual way, else *skip is
 * the bytes that stay. */
void *tw_link_msg_land(const tw_link_device_t *dev, void *dev_ctx, uint32_t peers, uint32_t source,
                       const void *prefix, size_t len, size_t *skip);

#endif
