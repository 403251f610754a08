/* The request pool (request.c): every non-blocking operation of the point-to-point
 * engine, a non-blocking collective or a request-based window operation holds one
 * slot. A handle names its slot and the slot's generation, so a stale handle is
 * refused. Internal to the engine (engine.c, proto_*.c); the rest of MPI uses engine.h. */
#ifndef TW_MPI_REQUEST_H
#define TW_MPI_REQUEST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <mpi.h>
#include <tollway/tollway.h>

#include "mpi/comm/comm.h"
#include "mpi/pt2pt/match.h"
#include "mpi/pt2pt/request_hooks.h"
#include "mpi/pt2pt/status.h"
#include "mpi/pt2pt/wire.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* REQ_MSG: a message matched by MPI_Improbe, waiting for its MPI_Mrecv; REQ_COLL: a
 * non-blocking collective (or window operation), completed by its owner; REQ_GREQ:
 * a generalized request (grequest.c); REQ_PSEND, REQ_PRECV: a partitioned send or
 * receive (pt2pt/partitioned.c) */
enum { REQ_FREE, REQ_SEND, REQ_RECV, REQ_MSG, REQ_COLL, REQ_GREQ, REQ_PSEND, REQ_PRECV };
enum { TW_MAX_REQUESTS = 65535 };

/* The protocol a send or receive runs (chosen by tw_proto_choose for a send; a
 * receive takes the one its message came by). */
typedef enum tw_proto {
    TW_PROTO_EAGER,        /* header and payload in the mailbox (proto_eager.c) */
    TW_PROTO_RNDV_GET,     /* RTS; the receiver gets it all (proto_rndv_get.c) */
    TW_PROTO_RNDV_CHUNKED, /* the same, one packed chunk at a time (proto_rndv_get.c) */
    TW_PROTO_RNDV_SPLIT,   /* RTS, CTS; the receiver gets a part, the sender puts the
                              rest (proto_rndv_split.c) */
    TW_PROTO_RNDV_PUT,     /* RTS, CTS; the sender puts it all (proto_rndv_split.c) */
    TW_PROTO_PIPELINE,     /* eager pieces through the mailbox (proto_pipeline.c) */
    TW_PROTO_RNDV_PIECES,  /* RTS, CTS; then pipelined pieces (proto_pipeline.c) */
    TW_PROTO_EAGER_SYNC,   /* synchronous eager, then the receiver's CTS (proto_eager.c) */
} tw_proto_t;

/* A rendezvous protocol: parts counted (tw_proto_rndv_*), and a registered buffer
 * unless it goes by pieces or synchronous eager. */
static inline int tw_proto_is_rndv(unsigned proto) {
    return proto != TW_PROTO_EAGER && proto != TW_PROTO_PIPELINE;
}

/* A rendezvous whose staged send packs a window first (the others pack each piece or
 * message straight into the mailbox). */
static inline int tw_proto_packs_window(unsigned proto) {
    return tw_proto_is_rndv(proto) && proto != TW_PROTO_RNDV_PIECES && proto != TW_PROTO_EAGER_SYNC;
}

/* Where a running send or receive is in its protocol. */
typedef enum tw_req_state {
    TW_STATE_START,    /* nothing sent or matched yet (a receive may be posted) */
    TW_STATE_QUEUED,   /* send: its message waits for room in the peer's mailbox */
    TW_STATE_WAIT_CTS, /* split, put, pieces or synchronous eager send: its first message
                          went, the CTS is awaited */
    TW_STATE_MOVING,   /* rendezvous: the data is on the move, parts outstanding */
    TW_STATE_CTS_SENT, /* split or put receive: its CTS went; it gets its own part;
                          pieces receive: its CTS went; its first piece is awaited */
} tw_req_state_t;

/* A send's cancel at its receiver (TW_MPI_CANCEL): the ask waits for room in the
 * peer's mailbox, or went and its answer is awaited (a part of the send meanwhile). */
enum { TW_CANCEL_TO_ASK = 1, TW_CANCEL_ASKED = 2 };

typedef struct req {
    uint8_t kind, gen;
    uint8_t proto, state; /* tw_proto_t, tw_req_state_t */
    uint8_t done;
    uint8_t orphan;             /* freed by the user while running: freed when it finishes */
    uint8_t persistent, active; /* a persistent request is inactive between its runs */
    uint8_t mode, cancelled;    /* send: a TW_SEND_* mode; receive: a TW_RECV_* */
    uint8_t parts;              /* rendezvous: notifications (or a CTS) still to come */
    uint8_t get_held;           /* receive: a refused get waits, holding its part */
    uint8_t cancel_asked;       /* send: TW_CANCEL_TO_ASK, TW_CANCEL_ASKED, or 0 */
    uint8_t ready;              /* chunked receive: the sender's next chunk is there already */
    uint8_t channel;            /* the channel (channel.h) whose share it came from */
    int error;
    int peer; /* send: destination; receive: source filter (world rank or ANY) */
    int tag;  /* send: tag; receive: filter */
    uint32_t context;
    void *buf;
    size_t bytes; /* send: size; receive: capacity */
    int st_source, st_tag;
    size_t st_bytes;
    tw_region_t region; /* rendezvous: the registered (part of the) buffer */
    tw_mpi_cts_t cts;   /* split send: the part to put, and where; pieces send: the go
                           (rreq 0 until it comes) */
    tw_mpi_rts_t got;   /* rendezvous receive: the RTS it answers */
    int got_from;
    tw_posted_t posted;   /* receive: its place in the posted queue */
    tw_unexpected_t *msg; /* REQ_MSG: the message */
    /* a derived datatype's data, moved through a packed window (buf): a send packs
     * into it when it starts (and chunk by chunk when chunked), a receive unpacks
     * from the message or from the window as each chunk lands */
    struct tw_mpi_staged *staged;
    /* chunked rendezvous: where in the stream the chunk in flight (or the next) starts;
     * pipelined send: the bytes in the peer's mailbox already */
    size_t chunk_at;
    struct tw_part *part; /* REQ_PSEND, REQ_PRECV: the partitioned state */
    int next;             /* list link: pending sends, pending gets */
} req_t;

extern req_t *tw_reqs; /* slots 1..TW_MAX_REQUESTS; 0 is no request */

void tw_req_pool_init(void);

static inline MPI_Request tw_req_handle(int i) {
    return (MPI_Request)(0x2c000000 | tw_reqs[i].gen << 16 | i);
}

/* The slot of a handle of the given kind (0x2c request, 0x6c message), or -1. */
static inline int tw_req_slot(int h, int kind) {
    int i = h & 0xffff;
    if (((unsigned)h >> 24) != (unsigned)kind || i == 0 || i > TW_MAX_REQUESTS) return -1;
    if (tw_reqs[i].gen != ((h >> 16) & 0xff)) return -1;
    if (kind == 0x6c ? tw_reqs[i].kind != REQ_MSG
                     : tw_reqs[i].kind == REQ_FREE || tw_reqs[i].kind == REQ_MSG)
        return -1;
    return i;
}

static inline int tw_req_index(MPI_Request h) {
    return tw_req_slot(h, 0x2c);
}

/* The slot of a receive's posted-queue entry. */
static inline int tw_req_of_posted(const tw_posted_t *p) {
    return (int)((const req_t *)(const void *)((const char *)p - offsetof(req_t, posted)) -
                 tw_reqs);
}

/* A channel's share of the pool (channel.h): the slots it freed, which only its own
 * calls take and give back, and, when there are none, the next slot never used yet;
 * once every slot has been used, slots another channel freed, lent to it for good. So
 * no channel is held to a fixed part of the pool, and the channels share one counter
 * only while the pool fills. */
typedef struct tw_req_share {
    uint16_t free_head; /* first free slot; 0: none */
    uint8_t channel;    /* whose share */
} tw_req_share_t;

/* A slot for a share with none free, now the share's: one never used, else one lent by
 * another channel; 0 when the pool is exhausted. */
int tw_req_slot_for(tw_req_share_t *share);

void tw_req_free(int i);

/* A (re)started request: no result yet. Inline, as the allocation: both are on
 * every non-blocking call. */
static inline void tw_req_reset(req_t *r) {
    r->chunk_at = 0;
    r->proto = TW_PROTO_EAGER;
    r->state = TW_STATE_START;
    r->ready = 0;
    r->done = r->cancelled = r->parts = 0;
    r->get_held = r->cancel_asked = 0;
    r->region.nla = 0;
    r->active = 1;
    r->error = 0;
    r->st_source = r->st_tag = 0;
    r->st_bytes = 0;
}

/* A slot from a channel's share of the pool, or 0 when it has none free. */
static inline int tw_req_alloc(tw_req_share_t *share, int kind) {
    int i = share->free_head;
    if (__builtin_expect(i != 0, 1))
        share->free_head = (uint16_t)tw_reqs[i].next;
    else if (!(i = tw_req_slot_for(share)))
        return 0;
    req_t *r = &tw_reqs[i];
    r->gen++;
    r->kind = (uint8_t)kind;
    r->orphan = r->persistent = r->mode = 0;
    tw_req_reset(r);
    r->msg = NULL;
    r->staged = NULL;
    r->next = 0;
    return i;
}

/* A request is finished: one the user already freed goes back to the pool now. */
static inline void tw_req_done(int i) {
    tw_reqs[i].done = 1;
    if (tw_reqs[i].orphan) tw_req_free(i);
}

/* A receive's result: where from, and how much of what arrived fits. */
static inline void tw_req_complete_recv(req_t *r, int source, int tag, size_t arrived) {
    r->st_source = source;
    r->st_tag = tag;
    r->st_bytes = arrived < r->bytes ? arrived : r->bytes;
    if (arrived > r->bytes) r->error = MPI_ERR_TRUNCATE;
}

/* Fills a status; the source world rank becomes a rank of the context's communicator. */
static inline void tw_req_set_status(MPI_Status *status, uint32_t context, int source, int tag,
                                     size_t bytes) {
    const tw_mpi_comm_t *c = source >= 0 ? tw_mpi_comm_of_context(context) : NULL;
    tw_mpi_status_fill(status, c ? tw_mpi_comm_rank_of(c, source) : source, tag, bytes, 0);
}

/* A list of requests through their next links, in order. */
typedef struct tw_req_list {
    int head, tail;
} tw_req_list_t;

static inline void tw_req_list_push(tw_req_list_t *l, int i) {
    tw_reqs[i].next = 0;
    if (l->tail)
        tw_reqs[l->tail].next = i;
    else
        l->head = i;
    l->tail = i;
}

static inline void tw_req_list_remove(tw_req_list_t *l, int i, int prev) {
    if (prev)
        tw_reqs[prev].next = tw_reqs[i].next;
    else
        l->head = tw_reqs[i].next;
    if (l->tail == i) l->tail = prev;
}

/* Whether i is in list l; *prev: its predecessor (0: the head). */
int tw_req_list_find(const tw_req_list_t *l, int i, int *prev);

/* ---- requests by handle, for the MPI calls ---- */

/* Statuses name the source by its rank in the request's communicator. */
/* Waits for one request and fills status; frees it, or makes a persistent one
 * inactive. Returns the request's error class. */
int tw_mpi_wait(MPI_Request *req, MPI_Status *status);
int tw_mpi_test(MPI_Request *req, int *flag, MPI_Status *status);
/* tw_mpi_test of a request known valid and finished (tw_mpi_request_finished). */
int tw_mpi_finish(MPI_Request *req, MPI_Status *status);
/* MPI_Request_get_status: the status of a finished request, which stays as it is. */
int tw_mpi_request_status(MPI_Request req, int *flag, MPI_Status *status);

int tw_mpi_request_valid(MPI_Request req);
int tw_mpi_request_active(MPI_Request req); /* valid, and not an inactive persistent one */
int tw_mpi_request_done(MPI_Request req);   /* active and complete */
/* Null, inactive or complete; req must be null or valid (not checked). */
int tw_mpi_request_finished(MPI_Request req);
int tw_mpi_request_free(MPI_Request *req);
/* The communicator of a request, for its errors (NULL: MPI_COMM_WORLD's handler). */
tw_mpi_comm_t *tw_mpi_request_comm(MPI_Request req);

/* Requests of non-blocking collectives and of request-based window operations: a
 * slot in the request pool that completes when tw_mpi_coll_request_done says so. */
int tw_mpi_coll_request(uint32_t context, MPI_Request *req);
void tw_mpi_coll_request_done(MPI_Request req, int error);
/* Per slot, made at the first use (f08 sections are rare): a collective's hooks
 * (request_hooks.h). Before a persistent one starts, its before hook runs. */
extern tw_request_hooks_t *tw_req_hooks;
void tw_req_run_before(int i);
static inline void tw_mpi_request_before_start(int i) {
    if (__builtin_expect(tw_req_hooks != NULL, 0) && tw_req_hooks[i].before) tw_req_run_before(i);
}
/* The same for a request that stands for a receive (MPI_Isendrecv): once done, it
 * reads as that receive, whose status (source, tag, size) status gives. */
void tw_mpi_coll_request_done_as_recv(MPI_Request req, int error, const MPI_Status *status);
/* A persistent collective's request keeps its schedule in buf. The collectives name,
 * when they start (coll/schedule.c), what runs that schedule again (MPI_Start) and
 * what frees it (MPI_Request_free). */
typedef int tw_mpi_sched_start_fn(void *sched, MPI_Request req);
typedef void tw_mpi_sched_free_fn(void *sched);
void tw_mpi_persistent_colls(tw_mpi_sched_start_fn *start, tw_mpi_sched_free_fn *free_fn);
extern tw_mpi_sched_start_fn *tw_mpi_sched_start;

#pragma GCC visibility pop

#endif
