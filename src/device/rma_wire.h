/* The records of pipelined RMA: requests in the target's request ring (put data
 * follows the header) and answers in the initiator's answer ring (get data follows).
 * They come from another process: every field is checked before it is used. */
#ifndef TW_DEVICE_RMA_WIRE_H
#define TW_DEVICE_RMA_WIRE_H

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
    uint64_t a, b;
    uint64_t note_slot; /* the target's notification slot the initiator reserved, if any */
} rma_req_t;

enum { ANSWER_ACK = 1, ANSWER_DATA = 2 };

typedef struct rma_answer {
    uint32_t handle;
    int32_t status;
    uint8_t kind, success;
    uint16_t unused;
    uint32_t chunk_len;
    uint64_t offset;
    uint64_t value;
} rma_answer_t;

#endif
