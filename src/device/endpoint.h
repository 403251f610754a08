/* An endpoint's private state: the units' states embedded, receive side first. */
#ifndef TW_DEVICE_ENDPOINT_H
#define TW_DEVICE_ENDPOINT_H

#include <stdint.h>

#include <tollway/endpoint.h>

#include "device/atu.h"
#include "device/heap.h"
#include "device/peer.h"
#include "device/ring.h"
#include "device/rma.h"
#include "device/segment.h"
#include "link/link.h"
#include "runtime/job.h"

/* Links open at once, at most: the mapped one and those that carry messages. */
enum {
    TW_EP_LINKS_MAX = 4,
    /* TW_WAIT=auto on a core per rank: empty polls in a row before the core is given
     * away once (some 6 microseconds of polling shared memory). A sched_yield is a
     * system call of a microsecond: every 64 polls (1.5 us) put one into most waits
     * of a few microseconds (8 KiB ping-pong: 0.96-1.04 us, 0.75 without). Not much
     * longer: where the ranks outnumber the cores unseen (two-host tests on one
     * machine), a waiter keeps the rank it waits for off its core this long */
    TW_EP_SPINS_BEFORE_YIELD = 256,
    /* TW_WAIT=yield: the core is given away every so many empty polls, a pause
     * between the others */
    TW_EP_YIELD_EVERY = 64,
    /* TW_WAIT=sleep, and ranks outnumbering cores: empty polls with a pause between
     * them, then polls with the core given away, then sleeps on the doorbell. Few
     * pauses: the rank waited for most often waits for this core (32 pauses were
     * 3 us of nothing; with 2, 8-byte calls on 4 to 16 ranks of 2 cores take
     * 0.5-0.8x the time, bench/mpi/ab_coll.sh). As many polls before a sleep as
     * before: sooner, a reduction of 1 MiB on 4 ranks paid a wake-up a step (1.5x) */
    TW_EP_SLEEP_PAUSES = 2,
    TW_EP_SLEEP_YIELDS = 62,
    /* a sleep's bound, in microseconds, when a link must be polled to receive and no
     * progress thread watches it: its packets end the sleep (ppoll on its socket and the
     * bell socket, bell.h), but its timers (retransmissions, acknowledgements owed) are
     * kept only by polling it */
    TW_EP_SLEEP_POLLED_US = 200,
};

struct tw_progress_thread; /* progress.h */

struct tw_ep {
    /* receive side first: the poll path touches only these lines and the mailbox */
    tw_ring_consumer_t velo_rx;
    /* the first open link that must be polled to receive (TW_LINK_POLLED), NULL when
     * none: an empty poll reads it, in the line of stats.polls_empty */
    struct tw_ep_link *polled;
    tw_ep_stats_t stats;
    int rank, size;
    tw_peer_t **peers; /* by rank; NULL until first contact */
    int index;
    unsigned idle_spins;   /* empty polls in a row before tw_ep_yield (TW_WAIT) */
    unsigned sleep_us;     /* TW_WAIT=sleep: a sleep's bound; 0: this endpoint never sleeps */
    uint64_t retries_seen; /* sends refused for a full ring, at the last sleep */
    uint64_t sleeps;       /* sleeps on the doorbell (TW_STATS) */
    uint64_t sleeps_ended; /* of them in ppoll, ended by a packet or a ring (TW_STATS) */
    uint64_t peeked;       /* the status word of the message tw_velo_peek handed out and
                              that is not yet released; 0: none */
    tw_job_t *job;
    tw_segment_header_t *segment;
    size_t segment_size;
    char segment_name[TW_LINK_SEGMENT_NAME_MAX];

    /* notifications, and the pipelined-RMA rings this endpoint consumes */
    tw_ring_consumer_t nq_rx, req_rx, resp_rx;
    tw_ring_producer_t nq_self; /* notifications this endpoint writes for itself */
    int serving;                /* guards tw_dev_progress against re-entry */

    tw_atu_t atu;
    tw_heap_t heap;
    tw_rma_t rma;

    /* the links open, in the order of tw_links */
    tw_ep_link_t links[TW_EP_LINKS_MAX];
    unsigned nlinks;
    tw_ep_link_t *mapped; /* the mapped link (TW_LINK_MAPPED): this node, and our segment */
    /* the link that carries messages TW_LINK names for every peer of the job, this node's
     * too; NULL: each peer by its node */
    tw_ep_link_t *every_peer;
    tw_ring_producer_t velo_self; /* what links deliver goes into our own mailbox */
    /* notifications the device writes while it serves a link: a producer of its own,
     * since the progress thread may write them while the owner writes through nq_self */
    tw_ring_producer_t nq_dev;
    struct tw_progress_thread *progress_thread; /* and its lock; NULL: none */
    /* the bell socket, when its waits sleep in ppoll on it and the polled link's socket
     * (the segment's sleeps is TW_BELL_SOCKET, bell.h); -1: none */
    int bell_fd;
    tw_bell_address_t bell_socket; /* its address, for this process's own rings */
    struct tw_lost *lost;          /* by rank, from the first peer lost (failure.h); NULL */
    unsigned lost_owed;            /* notices of lost peers waiting for room in the mailbox */
    char **addrs; /* by rank: the addresses of peers outside this job (tw_ep_add_peer) */
};

/* Maps rank's segment, or tells its link where it is, on first contact. TW_OK or
 * TW_ERR_PEER / TW_ERR_NOMEM. */
int tw_ep_connect(tw_ep_t *ep, int rank);

static inline int tw_ep_peer(tw_ep_t *ep, int rank, tw_peer_t **peer) {
    if (__builtin_expect(!ep->peers[rank], 0)) {
        int rc = tw_ep_connect(ep, rank);
        if (rc) return rc;
    }
    *peer = ep->peers[rank];
    return 0;
}

/* Pause between polls in blocking calls (*spins counts the empty ones in a row): on
 * a core of its own a count and a compare, the core given away after
 * TW_EP_SPINS_BEFORE_YIELD of them, since the rank waited for may be the one kept
 * off a core by other work on the machine. When this node has more ranks than cores
 * (or TW_WAIT=sleep), a pause, then the core given away, then a sleep on the
 * endpoint's doorbell (bell.h) until a peer writes to it or sleep_us passes. */
void tw_ep_yield(tw_ep_t *ep, unsigned *spins);
static inline void tw_ep_idle(tw_ep_t *ep, unsigned *spins) {
    if (__builtin_expect(++*spins >= ep->idle_spins, 0)) tw_ep_yield(ep, spins);
}

#endif
