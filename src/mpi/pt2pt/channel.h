/* A channel: the state of the point-to-point operations that run through one device
 * endpoint, which one progress pass drains and (under MPI_THREAD_MULTIPLE) one lock
 * will guard. Every access to that state names its channel: the channel of a request
 * (by its slot), of a communicator (by its context id) or of the endpoint a pass
 * drains, so that channels of their own for threads on different communicators, as
 * MPICH's VCIs (docs/architecture.md, Threads), change where these lookups point and
 * nothing else.
 *
 * Today the library runs one channel: every lookup gives tw_channels[0], a constant
 * the compiler folds, so the single-threaded paths cost what they cost before. */
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

typedef struct tw_channel {
    tw_ep_t *ep; /* its endpoint: mailbox, notification queue, registrations */
    tw_match_t match;
    tw_req_share_t reqs;         /* its slice of the request pool */
    tw_req_list_t pending_sends; /* sends waiting for room in a peer's mailbox, in order */
    tw_req_list_t pending_gets;  /* gets, puts, CTSs and READYs refused for now */
    int *pending_to;             /* pending sends per destination, to keep their order */
    unsigned *refused_in;        /* per destination: the last pass that refused a send to it */
    unsigned passes;             /* passes over the pending sends */
    tw_pieces_t *pieces;         /* per source: its pipelined message under way */
    int rendezvous; /* parts of rendezvous awaited: the notification queue is polled only then */
    int rndv_sends; /* rendezvous sends under way: while this process sends too, its
                       receives do not split (see proto_rndv_split.c) */
} tw_channel_t;

enum { TW_CHANNELS = 1 };
extern tw_channel_t tw_channels[TW_CHANNELS];

/* The channel of request slot i. */
static inline tw_channel_t *tw_channel_of_req(int i) {
    (void)i;
    return &tw_channels[0];
}

/* The channel of request r. */
static inline tw_channel_t *tw_channel_of(const req_t *r) {
    return tw_channel_of_req((int)(r - tw_reqs));
}

/* The channel of a communicator's (or a window's, a file's) context id. */
static inline tw_channel_t *tw_channel_of_context(uint32_t context) {
    (void)context;
    return &tw_channels[0];
}

/* The channel of what the library does for itself (generalized requests, windows'
 * own messages, failure reports): the first. */
static inline tw_channel_t *tw_channel_main(void) {
    return &tw_channels[0];
}

/* Sets the channels up for peers 0..peers-1, their unexpected messages within
 * unexpected_max bytes in all: 0, or -1 when memory runs out. */
int tw_channels_init(int peers, size_t unexpected_max);
/* Room for peers up to n - 1, where there was room for peers: 0, or -1. */
int tw_channels_grow(int peers, int n);
/* The channels take the endpoint just opened (NULL: closed). */
void tw_channels_attach(tw_ep_t *ep);

#pragma GCC visibility pop

#endif
