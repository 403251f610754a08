/* The RMA unit: operations in flight, the translations an initiator caches, and the
 * serving of requests executed by this endpoint's device (pipelined requests from
 * this node through the request ring, requests from other nodes through a link). */
#ifndef TW_DEVICE_RMA_H
#define TW_DEVICE_RMA_H

#include <stddef.h>
#include <stdint.h>

#include <tollway/endpoint.h>
#include <tollway/notify.h>

#include "device/atu.h"
#include "device/ring.h"
#include "link/rma_wire.h"

/* A translation cached by the initiator, as the ATU's TLB caches GATEs: a shared-heap
 * registration of the peer with the state word it had, valid while that word has
 * not changed (every registration and deregistration changes it). */
typedef struct tw_tlb_entry {
    uint64_t state;
    uint64_t key;
    uint64_t length;
    unsigned char *local; /* the registration's first byte, mapped here */
    uint32_t index;       /* table index + 1; 0: empty */
} tw_tlb_entry_t;

enum { TW_TLB_ENTRIES = 16 };

/* An operation executed by the target's device, waiting for its answers (bounded
 * table: a full table is TW_RETRY, never growth). */
enum { TW_RMA_OUTSTANDING = 256 };

typedef struct tw_rma_op {
    uint16_t gen;
    uint8_t in_use;
    uint8_t op;
    uint8_t notify;
    uint8_t success;
    int32_t status;
    int dest;
    uint64_t length, acked, cookie, nla, value;
    void *local;          /* get: destination; atomic: where the old value goes */
    tw_slot_t *requester; /* our notification slots, reserved at issue */
    tw_slot_t *completer;
    uint8_t owed; /* finished, but its fault notification waits for room */
    uint32_t chunks, chunks_acked;
    uint32_t chunk; /* across nodes: bytes per chunk */
} tw_rma_op_t;

/* Serving a request from another node in two halves (see tw_rma_link_device): the
 * notification slot it owes and room for its answer reserved, the memory translated. */
typedef struct tw_rma_serving {
    int status;
    unsigned cls;
    uint64_t span;
    char *at;
    tw_slot_t *mine;
    tw_xlate_t x;
} tw_rma_serving_t;

/* The unit's state in the endpoint. */
typedef struct tw_rma {
    tw_rma_op_t ops[TW_RMA_OUTSTANDING];
    uint32_t free[TW_RMA_OUTSTANDING];
    uint32_t free_count;
    uint32_t owed;         /* finished operations still owing a fault notification */
    uint64_t serve_offset; /* bytes of the request at the head already answered */
    int copy;              /* TW_RMA_COPY_* */
    /* a message from a link being received in place (land, then landed) */
    int landing;
    rma_req_t req;
    tw_rma_serving_t serving;
    rma_answer_t answer;
} tw_rma_t;

void tw_rma_init(tw_ep_t *ep);
/* Serves the answers to our pipelined operations and the requests of this node's
 * peers in our rings, and delivers fault notifications still owed. */
void tw_rma_serve(tw_ep_t *ep);

/* Every field of a request that does not depend on who serves it, checked; put data
 * at most max_chunk bytes. */
int tw_rma_request_valid(const rma_req_t *r, int size, uint32_t max_chunk);

/* 1 when a request of len bytes (header and put data) from source, a peer on another
 * node of a job of size ranks, may be served: every field checked, its put data and a
 * get's chunk (b) within chunk_max, what the link it came by carries (tw_link_t). */
int tw_rma_link_request_ok(int size, uint32_t source, const rma_req_t *r, size_t len,
                           size_t chunk_max);

/* 1 when answer a, with len bytes of get data, fits operation o across nodes: an
 * acknowledgement, a status a target may give, of chunks o still waits for (several
 * only for a put), a get's chunk where o expects one and of its length. */
int tw_rma_answer_fits(const tw_rma_op_t *o, const rma_answer_t *a, size_t len);

/* What links that carry device messages hand the RMA unit: requests from peers on
 * other nodes, executed here against our own memory, and answers to our operations
 * (the rma_request, rma_answer, land_* and landed members of tw_link_device_t).
 * dev is the tw_ep_link_t that received them. */
int tw_rma_link_request(void *dev, uint32_t source, const void *msg, size_t len);
int tw_rma_link_answer(void *dev, uint32_t source, const void *msg, size_t len);
void *tw_rma_link_land_request(void *dev, uint32_t source, const void *msg, size_t len,
                               size_t *skip);
void *tw_rma_link_land_answer(void *dev, uint32_t source, const void *msg, size_t len,
                              size_t *skip);
void tw_rma_link_landed(void *dev, uint32_t source, size_t len, int ok);

/* Ends every operation of ours still waiting for peer's answers with status cause
 * (the peer was declared lost): their notifications say so, flushes stop waiting. */
void tw_rma_fail_peer(tw_ep_t *ep, int peer, int cause);

#endif
