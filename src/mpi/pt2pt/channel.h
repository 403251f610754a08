/* A channel: the state of the point-to-point operations that run through one device
 * endpoint, which one progress pass drains and (under MPI_THREAD_MULTIPLE) one lock
 * will guard. Every access to that state names its channel: the channel of a request
 * (by its slot), of a communicator (by its context id) or of the endpoint a pass
 * drains, so that channels of their own for threads on different communicators, as
 * MPICH's VCIs (docs/architecture.md, Threads), change where these lookups point and
 * nothing else.
 *
 * TW_CHANNELS sets how many run; 1 unless set, and then every lookup gives the first.
 * Channel k's endpoint is endpoint k of its process (tw_ep_open's order), which talks
 * to endpoint k of every peer; so a communicator's traffic stays on its channel at
 * both ends. What the library does for itself (windows' own messages, partitioned
 * requests, failure reports) goes through the first. */
#ifndef TW_MPI_CHANNEL_H
#define TW_MPI_CHANNEL_H

#include <stdint.h>

#include <tollway/tollway.h>

#include "mpi/pt2pt/match.h"
#include "mpi/pt2pt/request.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* A pipelined message arriving from one sender: where its pieces go. */
typedef struct tw_pieces {
    MPI_Request recv;      /* the receive that matched it, or MPI_REQUEST_NULL */
    tw_unexpected_t *kept; /* or the unexpected entry that keeps it */
    size_t at, size;       /* bytes come, of size (0: none under way) */
} tw_pieces_t;

/* On lines of its own (two: the prefetcher's pair), so that threads on different
 * channels share none; a power of two in size, so a lookup is a shift. */
typedef struct tw_channel {
    _Alignas(128) tw_ep_t *ep; /* its endpoint: mailbox, notification queue, registrations */
    tw_match_t match;
    int *pending_to;             /* pending sends per destination, to keep their order */
    unsigned *refused_in;        /* per destination: the last pass that refused a send to it */
    tw_pieces_t *pieces;         /* per source: its pipelined message under way */
    tw_req_list_t pending_sends; /* sends waiting for room in a peer's mailbox, in order */
    tw_req_list_t pending_gets;  /* gets, puts, CTSs and READYs refused for now */
    tw_req_share_t reqs;         /* its share of the request pool */
    unsigned passes;             /* passes over the pending sends */
    int rendezvous; /* parts of rendezvous awaited: the notification queue is polled only then */
    int rndv_sends; /* rendezvous sends under way: while this process sends too, its
                       receives do not split (see proto_rndv_split.c) */
} tw_channel_t;

enum { TW_CHANNELS_MOST = 16 }; /* TW_CHANNELS_MAX (the setting's bound) */
_Static_assert(sizeof(tw_channel_t) == 128, "a channel is two lines");
extern tw_channel_t tw_channels[TW_CHANNELS_MOST];
/* The channels running (TW_CHANNELS, a power of two, fixed at the first MPI_Init or
 * session), less one. */
extern unsigned tw_channel_mask;

/* Whether one channel runs: a hot path then takes &tw_channels[0], a constant, so
 * that its inlined body addresses the channel's state directly. */
static inline int tw_channel_single(void) {
    return __builtin_expect(!tw_channel_mask, 1);
}

static inline int tw_channel_count(void) {
    return (int)tw_channel_mask + 1;
}

/* The channel of request slot i. */
static inline tw_channel_t *tw_channel_of_req(int i) {
    return &tw_channels[tw_reqs[i].channel];
}

/* The number of the channel of a request handle, or -1 when it names no slot. */
static inline int tw_channel_index_of_request(MPI_Request h) {
    int i = tw_req_index(h);
    return i > 0 ? tw_reqs[i].channel : -1;
}

/* The channel of request r. */
static inline tw_channel_t *tw_channel_of(const req_t *r) {
    return tw_channel_of_req((int)(r - tw_reqs));
}

/* The channel of a context id, which every member of its communicator knows alike:
 * a communicator's point-to-point context (2k) is on channel k & mask; its collective
 * context (2k + 1) on the first, where collectives, their schedules and everything
 * else the library's lock guards run (threads in collectives on different
 * communicators wait on their shared blocks without it: coll_shm.c). */
static inline tw_channel_t *tw_channel_of_context(uint32_t context) {
    return tw_channel_single() || (context & 1) ? &tw_channels[0]
                                                : &tw_channels[(context >> 1) & tw_channel_mask];
}

/* The channel of what the library does for itself (generalized requests, windows'
 * own messages, failure reports): the first. */
static inline tw_channel_t *tw_channel_main(void) {
    return &tw_channels[0];
}

/* Sets count channels up (a power of two, at most TW_CHANNELS_MOST) for peers
 * 0..peers-1, the unexpected messages each keeps within unexpected_max bytes (a bound
 * per channel, as its queue's: a communicator may use it all whatever the count): 0,
 * or -1 when memory runs out. Before the request pool is. */
int tw_channels_init(int count, int peers, size_t unexpected_max);
/* Room for peers up to n - 1, where there was room for peers: 0, or -1. */
int tw_channels_grow(int peers, int n);
/* The locks (env/thread.h's sets) a call on these takes under MPI_THREAD_MULTIPLE:
 * its channel's for a communicator's point-to-point traffic and for requests and
 * matched messages of it; the library's for what names no channel (an invalid handle,
 * whose error the call raises), for the requests of everything else (collectives,
 * windows, generalized and partitioned requests: the first channel's), and for all
 * of it while one channel runs. */
unsigned tw_mpi_lock_of_comm(MPI_Comm comm);
unsigned tw_mpi_lock_of_comm_at(const MPI_Comm *comm); /* NULL: the library's */
unsigned tw_mpi_lock_of_requests(int count, const MPI_Request *requests);
unsigned tw_mpi_lock_of_message(const MPI_Message *message);
/* 0 for a predefined datatype (its handle says all), the library's for a derived one. */
unsigned tw_mpi_lock_of_type(MPI_Datatype type);
/* Every lock: calls that look at requests of any channel. */
unsigned tw_mpi_lock_all(void);

/* The library's endpoint was just opened: the first channel takes it, the others
 * open endpoints of their own (collective over the job, as tw_ep_open). TW_OK or
 * tw_ep_open's error. */
int tw_channels_open(tw_ep_t *first);
/* Closes the endpoints the channels opened; the first is the library's to close. */
void tw_channels_close(void);

#pragma GCC visibility pop

#endif
