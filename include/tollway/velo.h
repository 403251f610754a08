/* VELO: small two-sided messages into the receiver's mailbox.
 *
 * The mailbox is a ring of 64-byte slots (one cache line each) that every sender
 * writes and only its owner reads. Word 0 of a slot is the status word (source,
 * tag, length; never zero while valid), the payload follows. A message of up to
 * TW_VELO_INLINE_SIZE bytes is exactly one slot; longer ones, up to
 * TW_VELO_MAX_SIZE, take consecutive slots reserved in one step.
 *
 * Posting is transactional: tw_velo_send either places the whole message or
 * returns TW_RETRY at once (mailbox full). It never blocks and never drops; the
 * caller makes progress (for example by polling its own mailbox) and retries.
 * Messages from one sender arrive in the order they were sent. */
#ifndef TOLLWAY_VELO_H
#define TOLLWAY_VELO_H

#include <stddef.h>
#include <stdint.h>

#include <tollway/endpoint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TW_VELO_SLOT_SIZE   64
#define TW_VELO_INLINE_SIZE 56 /* payload that fits the first slot beside the status word */
/* The longest message: 65 slots, as many as 4096 bytes take, filled to the last byte, so
 * that 4096 bytes of payload fit one message beside an upper layer's header (MPI's 8
 * bytes; a pipelined message's first piece, 56). */
#define TW_VELO_MAX_SIZE 4152
#define TW_VELO_TAG_MAX  255 /* tags are 0..TW_VELO_TAG_MAX */
/* The tag of a message the device itself puts into the mailbox when a peer is
 * declared lost: source is that peer, and the 4 bytes of the message hold the cause
 * as an int32_t tw_status (TW_ERR_LOST: it stopped answering; TW_ERR_RESET: it had
 * declared this endpoint lost; TW_ERR_DESYNC: it gave up data this endpoint never
 * received). From then on every operation toward it fails with
 * that cause. No peer can send this tag. */
#define TW_VELO_TAG_LOST 256

/* A received (or probed) message. data is set by tw_velo_peek only. */
typedef struct tw_velo_msg {
    int source;
    unsigned tag;
    size_t length;
    const void *data;
    uint32_t slots_; /* private: slots the message occupies */
} tw_velo_msg_t;

/* Sends len bytes (0..TW_VELO_MAX_SIZE) with a tag (0..TW_VELO_TAG_MAX) to rank
 * dest. TW_OK, TW_RETRY (mailbox full, nothing posted), or TW_ERR_RANK,
 * TW_ERR_SIZE, TW_ERR_TAG, TW_ERR_ARG, TW_ERR_PEER. The first send to a rank maps
 * its mailbox; every later one touches only the slots it writes. */
int tw_velo_send(tw_ep_t *ep, int dest, unsigned tag, const void *buf, size_t len);

/* As tw_velo_send, for a message made of a header and a body, copied straight into
 * the mailbox one after the other (hlen + len <= TW_VELO_MAX_SIZE): the way upper
 * layers add their header without copying the payload twice. */
int tw_velo_sendv(tw_ep_t *ep, int dest, unsigned tag, const void *hdr, size_t hlen,
                  const void *buf, size_t len);

/* Writes len bytes of a message's body; to points into the receiver's mailbox. */
typedef void (*tw_velo_fill_fn)(void *ctx, void *to, size_t len);

/* As tw_velo_sendv, but the body is written by fill(ctx, to, len) straight into the
 * mailbox (or, to a peer a link reaches, into a buffer the link then sends): the way
 * to pack a non-contiguous payload without a copy of it in between. fill must write
 * all len bytes, and the same bytes each time it is called for one message: into a
 * mailbox it runs once the message has its room, but a link may answer TW_RETRY after
 * it ran, and then it runs again at the next try. */
int tw_velo_send_fill(tw_ep_t *ep, int dest, unsigned tag, const void *hdr, size_t hlen, size_t len,
                      tw_velo_fill_fn fill, void *ctx);

/* Receives the next message into buf if there is one: TW_OK (msg filled),
 * TW_EMPTY, or TW_ERR_TRUNCATE (cap < length; msg says the length, the message
 * stays queued). */
int tw_velo_poll(tw_ep_t *ep, tw_velo_msg_t *msg, void *buf, size_t cap);

/* As tw_velo_poll, but waits for a message. */
int tw_velo_recv(tw_ep_t *ep, tw_velo_msg_t *msg, void *buf, size_t cap);

/* Describes the next message without consuming it: TW_OK or TW_EMPTY. */
int tw_velo_probe(tw_ep_t *ep, tw_velo_msg_t *msg);

/* Zero-copy receive: msg->data points at the payload inside the mailbox (contiguous,
 * valid until tw_velo_release). TW_OK or TW_EMPTY. At most one message is peeked
 * at a time; release it before the next poll, peek or recv. */
int tw_velo_peek(tw_ep_t *ep, tw_velo_msg_t *msg);
int tw_velo_release(tw_ep_t *ep, tw_velo_msg_t *msg);
/* Ends a peek without consuming: the message stays first in the mailbox. */
int tw_velo_unpeek(tw_ep_t *ep, tw_velo_msg_t *msg);

#ifdef __cplusplus
}
#endif
#endif
