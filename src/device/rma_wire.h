/* The records of pipelined RMA: requests in the target's request ring (put data
 * follows the header) and answers in the initiator's answer ring (get data follows).
 * They come from another process: every field is checked before it is used. */
#ifndef TW_DEVICE_RMA_WIRE_H
#define TW_DEVICE_RMA_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "device/atu.h"

typedef struct rma_req {
    uint8_t op, notify, atomic_op, width;
    int32_t source;
    uint32_t handle;
    uint32_t chunk_len; /* put data following this header */
    uint64_t nla, key;
    uint64_t total;  /* the whole operation's length */
    uint64_t offset; /* this chunk's place in it */
    uint64_t cookie;
    uint64_t a, b;      /* atomics: operands; a get across nodes: b is this chunk's length */
    uint64_t note_slot; /* the target's notification slot the initiator reserved, if any */
} rma_req_t;

enum { ANSWER_ACK = 1, ANSWER_DATA = 2 };

typedef struct rma_answer {
    uint32_t handle;
    int32_t status;
    uint8_t kind, success;
    uint16_t chunks; /* across nodes: the operation's chunks this answers, up to and with
                        the one at offset (a put's are answered several at once) */
    uint32_t chunk_len;
    uint64_t offset;
    uint64_t value;
} rma_answer_t;

typedef struct tw_ep tw_ep_t;

/* Chunks of put data (and of get answers) across nodes: up to REMOTE_CHUNK_MAX where the
 * link's datagrams hold one, else RMA_CHUNK as on one node. The initiator chooses; a
 * get's request names its chunk's length, so the two ends need not agree. */
enum { RMA_CHUNK = 16384, REMOTE_CHUNK_MAX = 61440 };

/* Every field of a request that does not depend on who serves it, checked; put data
 * at most max_chunk bytes. */
int tw_rma_request_valid(const rma_req_t *r, int size, uint32_t max_chunk);

/* Across nodes (the link is remote.c, the execution rma.c). A request from a peer on
 * another node, checked, executed by this endpoint's device against its own memory:
 * TW_OK when done and answered, TW_RETRY when there is no room for its notification
 * or its answer now (nothing was done: the link brings it again). */
int tw_rma_remote_serve(tw_ep_t *ep, int source, const rma_req_t *r, const void *data);
/* An answer from a peer on another node to one of our operations. 0 when taken, -1
 * when it answers nothing of ours or does not fit the operation (dropped). */
int tw_rma_remote_answer(tw_ep_t *ep, int source, const rma_answer_t *a, const void *data,
                         size_t len);

/* 1 when answer a, with len bytes of get data, fits operation o across nodes: an
 * acknowledgement, a status a target may give, of chunks o still waits for (several
 * only for a put), a get's chunk where o expects one and of its length. */
int tw_rma_answer_fits(const tw_rma_op_t *o, const rma_answer_t *a, size_t len);

/* Receiving in place (the link puts the data where it belongs, see tw_udp_lander_t):
 * a put request's data goes straight into the target's memory, a get answer's into
 * the initiator's buffer. land_put prepares the request as serving it would (a
 * notification slot, room for the answer, the memory translated) and returns where
 * its data goes, or NULL (nothing held: take it the usual way); landed_put finishes
 * it once the datagram is whole and undamaged (ok), or lets everything go (it is sent
 * again). An answer needs no preparing: land_answer says where its data goes, and
 * landed_answer takes it. */
typedef struct tw_remote_serving {
    int status;
    unsigned cls;
    uint64_t span;
    char *at;
    struct tw_slot *mine;
    tw_xlate_t x;
} tw_remote_serving_t;
void *tw_rma_remote_land_put(tw_ep_t *ep, const rma_req_t *r, tw_remote_serving_t *v);
void tw_rma_remote_landed_put(tw_ep_t *ep, int source, const rma_req_t *r, tw_remote_serving_t *v,
                              int ok);
void *tw_rma_remote_land_answer(tw_ep_t *ep, int source, const rma_answer_t *a, size_t len);
void tw_rma_remote_landed_answer(tw_ep_t *ep, int source, const rma_answer_t *a, size_t len);

#endif
