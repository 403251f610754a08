/* An endpoint's private state and the layout of its shared segment. */
#ifndef TW_DEVICE_ENDPOINT_H
#define TW_DEVICE_ENDPOINT_H

#include <stdint.h>
#include <sys/types.h>

#include <tollway/atu.h>
#include <tollway/endpoint.h>
#include <tollway/notify.h>

#include "device/ring.h"
#include "link/shm.h"
#include "link/udp.h"
#include "runtime/job.h"

#define TW_SEGMENT_MAGIC       0x3247455357544e45ull /* "ENTWSEG2" */
#define TW_SEGMENT_VERSION     2u
#define TW_SEGMENT_HEADER_SIZE 4096u

/* VELO status word bits above the ring's own: tag in 16..23, source rank in 24..55. */
#define TW_VELO_TAG_SHIFT    16
#define TW_VELO_SOURCE_SHIFT 24

/* Translation faults, counted in the owner's segment by whoever faulted. */
enum { TW_FAULT_KEY, TW_FAULT_BOUNDS, TW_FAULT_STALE, TW_FAULT_PERM, TW_FAULT_ALIGN, TW_FAULTS };

/* One registration in the ATU table (in the owner's segment, read by initiators).
 * state = generation << 8 | perms << 1 | valid, published last (release). An
 * initiator counts itself in `inflight` before it checks `state` and out after the
 * access; deregistration clears valid and waits for inflight to drain. */
typedef struct tw_atu_entry {
    _Alignas(TW_CACHELINE) _Atomic uint64_t state;
    _Atomic uint64_t inflight;
    uint64_t base;
    uint64_t length;
    uint64_t key;
    uint32_t heap_id; /* 0: ordinary memory; else the shared-heap block holding it */
    uint32_t unused;
} tw_atu_entry_t;

/* The head of an endpoint's segment; the regions follow in the order of
 * tw_segment_layout. Written by the owner before it announces its address;
 * checked field by field by every peer that maps it. */
typedef struct tw_segment_header {
    uint64_t magic;
    uint64_t job_key;
    uint32_t version;
    uint32_t rank;
    uint32_t index;
    int32_t owner_pid;
    uint32_t velo_slots, nq_slots, rma_slots, atu_entries;
    _Alignas(TW_CACHELINE) _Atomic uint64_t faults[TW_FAULTS];
    tw_ring_ctrl_t velo_ctrl; /* VELO mailbox */
    tw_ring_ctrl_t nq_ctrl;   /* notification queue */
    tw_ring_ctrl_t req_ctrl;  /* pipelined RMA: requests this endpoint's device serves */
    tw_ring_ctrl_t resp_ctrl; /* pipelined RMA: answers to this endpoint's requests */
} tw_segment_header_t;

typedef struct tw_segment_layout {
    size_t velo, nq, req, resp, locks, atu; /* byte offsets */
    size_t total;
} tw_segment_layout_t;

void tw_segment_layout(uint32_t velo_slots, uint32_t nq_slots, uint32_t rma_slots,
                       uint32_t atu_entries, tw_segment_layout_t *out);

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

/* What this endpoint keeps per peer it has talked to: producer views of the peer's
 * rings, its tables, and the peer's shared-heap blocks mapped so far. */
/* RMA requests to one peer on another node sent and not yet answered, at most: it
 * bounds what the peer's device must hold of answers it cannot send yet. */
enum { TW_REMOTE_REQUESTS = 32 };

typedef struct tw_peer {
    tw_tlb_entry_t tlb[TW_TLB_ENTRIES];
    /* remote next to velo: a send reads both, and they share a cache line */
    int remote;          /* on another node (or TW_LINK=udp): reached over the udp link; of
                            the rest only unanswered is set up then */
    uint32_t unanswered; /* remote: RMA requests sent, not answered yet */
    tw_ring_producer_t velo, nq, req, resp;
    tw_segment_header_t *segment;
    size_t segment_size;
    tw_atu_entry_t *atu;
    uint32_t atu_entries;
    _Atomic uint64_t *locks;
    pid_t pid;
    int pipelined;        /* sticky: RMA to this peer goes through its request ring */
    uint32_t outstanding; /* pipelined operations not yet answered */
    void **heap_map;      /* by heap id */
    size_t *heap_size;
    uint32_t heap_cap;
} tw_peer_t;

/* A pipelined operation waiting for its answers (bounded table: a full table is
 * TW_RETRY, never growth). */
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

struct tw_progress; /* progress.h */

typedef struct tw_heap_block {
    void *base;
    size_t size;
    uint32_t id;
    tw_region_t region;
    char name[TW_SHM_NAME_MAX];
} tw_heap_block_t;

struct tw_ep {
    /* receive side first: the poll path touches only these lines and the mailbox */
    tw_ring_consumer_t velo_rx;
    tw_udp_link_t *udp; /* the udp link when the job spans nodes (else NULL): an empty
                           poll reads it, in the line of stats.polls_empty */
    tw_ep_stats_t stats;
    int rank, size;
    tw_peer_t **peers; /* by rank; NULL until first contact */
    int index;
    int yield_when_idle;
    int peeked; /* a message handed out by tw_velo_peek and not yet released */
    tw_job_t *job;
    tw_segment_header_t *segment;
    size_t segment_size;
    char segment_name[TW_SHM_NAME_MAX];

    /* notifications, and the pipelined-RMA rings this endpoint consumes */
    tw_ring_consumer_t nq_rx, req_rx, resp_rx;
    tw_ring_producer_t nq_self; /* notifications this endpoint writes for itself */
    tw_rma_copy_t rma_copy;
    uint64_t serve_offset; /* bytes of the request at the head already answered */
    int serving;           /* guards tw_progress against re-entry */

    /* ATU: the table lives in the segment; the free list is private */
    tw_atu_entry_t *atu;
    uint32_t atu_entries;
    uint32_t *atu_free;
    uint32_t atu_free_count;
    uint64_t key_state;
    _Atomic uint64_t *locks;

    /* shared heap */
    tw_heap_block_t *heap;
    uint32_t heap_count, heap_cap, next_heap_id;

    /* pipelined operations in flight */
    tw_rma_op_t ops[TW_RMA_OUTSTANDING];
    uint32_t ops_free[TW_RMA_OUTSTANDING];
    uint32_t ops_free_count;
    uint32_t ops_owed; /* finished operations still owing a fault notification */

    /* the rest of the udp link's state */
    tw_ring_producer_t velo_self;             /* what the link delivers goes into our own mailbox */
    uint64_t remote_malformed;                /* link messages that were no device message */
    struct tw_remote_answers *remote_answers; /* RMA answers waiting for the window */
    uint64_t remote_answers_lost;             /* answers that found no memory to wait in */
    /* notifications the device writes while it serves the link: a producer of its own,
     * since the progress thread may write them while the owner writes through nq_self */
    tw_ring_producer_t nq_dev;
    struct tw_progress *progress; /* the progress thread and its lock; NULL: none */
};

/* Maps rank's segment on first contact. TW_OK or TW_ERR_PEER / TW_ERR_NOMEM. */
int tw_ep_connect(tw_ep_t *ep, int rank);

static inline int tw_ep_peer(tw_ep_t *ep, int rank, tw_peer_t **peer) {
    if (__builtin_expect(!ep->peers[rank], 0)) {
        int rc = tw_ep_connect(ep, rank);
        if (rc) return rc;
    }
    *peer = ep->peers[rank];
    return 0;
}

/* Pause between polls in blocking calls: nothing on a core of its own, the core
 * given away now and then when this node has more ranks than cores. */
void tw_ep_yield(tw_ep_t *ep, unsigned *spins);
static inline void tw_ep_idle(tw_ep_t *ep, unsigned *spins) {
    if (__builtin_expect(ep->yield_when_idle, 0)) tw_ep_yield(ep, spins);
}

/* ATU internals (atu.c) */
int tw_atu_init(tw_ep_t *ep);
void tw_atu_fini(tw_ep_t *ep);
int tw_atu_register(tw_ep_t *ep, void *addr, size_t length, unsigned perms, uint32_t heap_id,
                    tw_region_t *region);

/* shared heap internals (heap.c) */
void tw_heap_fini(tw_ep_t *ep);
/* The address of byte offset of the peer's heap block, mapping it on first use. */
void *tw_heap_peer_map(tw_ep_t *ep, tw_peer_t *peer, int rank, uint32_t heap_id, uint64_t offset,
                       uint64_t length);
static inline void *tw_heap_peer_addr(tw_ep_t *ep, tw_peer_t *peer, int rank, uint32_t heap_id,
                                      uint64_t offset, uint64_t length) {
    if (__builtin_expect(heap_id < peer->heap_cap && peer->heap_map[heap_id] &&
                             offset <= peer->heap_size[heap_id] &&
                             length <= peer->heap_size[heap_id] - offset,
                         1))
        return (char *)peer->heap_map[heap_id] + offset;
    return tw_heap_peer_map(ep, peer, rank, heap_id, offset, length);
}
void tw_heap_peer_unmap_all(tw_peer_t *peer);

/* RMA internals (rma.c) */
void tw_rma_init(tw_ep_t *ep);
/* Serves pending requests and answers: one load each when there are none. */
void tw_rma_progress(tw_ep_t *ep);
static inline void tw_rma_progress_if_pending(tw_ep_t *ep) {
    if (__builtin_expect(tw_ring_pending(&ep->req_rx) || tw_ring_pending(&ep->resp_rx), 0))
        tw_rma_progress(ep);
}

#endif
