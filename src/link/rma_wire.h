/* The records of RMA executed by the target's device: requests (put data follows
 * the header) and answers (get data follows), carried by the target's request ring
 * and the initiator's answer ring on one node (pipelined RMA), and by a link between
 * nodes. They come from another process: every field is checked before it is used. */
#ifndef TW_LINK_RMA_WIRE_H
#define TW_LINK_RMA_WIRE_H

#include <stddef.h>
#include <stdint.h>

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

/* Chunks of put data (and of get answers): RMA_CHUNK on one node; across nodes what the
 * link prefers (tw_link_t.rma_chunk), at most REMOTE_CHUNK_MAX (a 64 KiB message, the
 * most common rendezvous size, in one chunk where the link carries it) in a message;
 * a put the fabric's writes move may be one chunk however long (ofi). The initiator
 * chooses; a get's request names its chunk's length, so the two ends need not agree. */
enum { RMA_CHUNK = 16384, REMOTE_CHUNK_MAX = 65536 };

/* RMA requests to one peer on another node sent and not yet answered, at most: it
 * bounds what the peer's device must hold of answers it cannot send yet. */
enum { RMA_UNANSWERED_MAX = 32 };

#endif
