/* Matching (match.c): the posted-receive queue and the unexpected-message queue of
 * MPI point-to-point, with MPI_ANY_SOURCE and MPI_ANY_TAG. Both queues are kept in
 * arrival (or posting) order and searched from the oldest, which is MPI's
 * non-overtaking rule as long as messages are fed in the order each sender sent
 * them. The unit knows no endpoint: it is fed envelopes and receives. */
#ifndef TW_MPI_MATCH_H
#define TW_MPI_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "mpi/pt2pt/wire.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* A posted receive: what it accepts (source and tag may be MPI_ANY_*), and its place
 * in the queue. Embedded in the receive request. */
typedef struct tw_posted {
    struct tw_posted *next;
    int source, tag;
    uint32_t context;
} tw_posted_t;

/* A message that came before its receive: its envelope and either its payload
 * (eager, or pipelined: then the pieces still to come are copied in as they arrive)
 * or its request-to-send. */
typedef struct tw_unexpected {
    struct tw_unexpected *next;
    int source, tag;
    uint32_t context;
    int is_rts;
    tw_mpi_rts_t rts;
    size_t len;         /* eager: bytes of payload in data; RTS: the RTS's length */
    size_t missing;     /* pipelined: bytes of its pieces still to come */
    MPI_Request waiter; /* pipelined and taken before its last piece: the receive it goes to */
    uint32_t sync;      /* synchronous eager: the sender's request, to answer; else 0 */
    unsigned char data[];
} tw_unexpected_t;

/* Entries are recycled through free lists by the payload they hold, not allocated each
 * time: up to TW_MATCH_KEPT of the smallest class (TW_MATCH_SMALL bytes: tags, small
 * messages), and of the classes above it, powers of two up to TW_MATCH_POOLED (an
 * eager message, a pipelined one), up to TW_MATCH_POOL_BYTES in all. A window of 64
 * pipelined 8 KiB messages that arrive before their receives otherwise mallocs 512 KiB
 * and frees it, which glibc hands back to the kernel and faults in again at the next
 * window: 7 page faults an iteration of osu_bibw, 5 % of its time. */
enum {
    TW_MATCH_SMALL = 256 - 64,
    TW_MATCH_KEPT = 4096,
    TW_MATCH_POOLED = 64 << 10,
    TW_MATCH_POOL_BYTES = 2 << 20,
    TW_MATCH_CLASSES = 10 /* TW_MATCH_SMALL, then 256 B .. TW_MATCH_POOLED */
};

typedef struct tw_match {
    tw_posted_t *posted, *posted_tail;
    tw_unexpected_t *unexpected, *unexpected_tail;
    size_t unexpected_bytes; /* payload kept, bounded by bytes_max */
    size_t bytes_max;
    struct tw_match_pool *pool; /* recycled entries, made at the first one */
} tw_match_t;

/* The recycled entries by size class: spares of the smallest, spare_bytes the payload
 * room of the others. */
typedef struct tw_match_pool {
    tw_unexpected_t *spare[TW_MATCH_CLASSES];
    int spares;
    size_t spare_bytes;
} tw_match_pool_t;

/* Whether a receive for (source, tag, context), wildcards allowed, takes a message
 * of the given envelope. MPI_ANY_TAG takes tags of 0 or more only: the negative ones
 * are the communicator creation exchanges' (comm.h), which their own receives name,
 * and a user's receive of any tag must not report one. */
static inline int tw_match_accepts(int want_source, int want_tag, uint32_t want_context, int source,
                                   int tag, uint32_t context) {
    return want_context == context && (want_source == MPI_ANY_SOURCE || want_source == source) &&
           (want_tag == MPI_ANY_TAG ? tag >= 0 : want_tag == tag);
}

/* No receive posted and no message waiting (one test: every blocking receive asks). */
static inline int tw_match_idle(const tw_match_t *m) {
    return !((uintptr_t)m->posted | (uintptr_t)m->unexpected);
}

/* bytes_max: how much unexpected payload may be kept (beyond it, messages are left
 * where they are, except when the queue is empty). */
void tw_match_init(tw_match_t *m, size_t bytes_max);
/* Frees every unexpected message and the spare entries. */
void tw_match_fini(tw_match_t *m);

/* Posts receive p (its filter set) behind the others. */
static inline void tw_match_post(tw_match_t *m, tw_posted_t *p) {
    p->next = NULL;
    if (m->posted_tail)
        m->posted_tail->next = p;
    else
        m->posted = p;
    m->posted_tail = p;
}

/* An arrival: the oldest posted receive that takes it, taken out of the queue; NULL
 * when none does. Inline: every message that finds its receive posted runs it. */
static inline tw_posted_t *tw_match_arrival(tw_match_t *m, int source, int tag, uint32_t context) {
    for (tw_posted_t *p = m->posted, *prev = NULL; p; prev = p, p = p->next) {
        if (!tw_match_accepts(p->source, p->tag, p->context, source, tag, context)) continue;
        if (prev)
            prev->next = p->next;
        else
            m->posted = p->next;
        if (m->posted_tail == p) m->posted_tail = prev;
        return p;
    }
    return NULL;
}
/* Takes p out of the posted queue: 1 when it was there (a cancel). */
int tw_match_unpost(tw_match_t *m, tw_posted_t *p);

/* Keeps an arrival no receive took: rts (NULL for an eager message) or len bytes of
 * payload at data. NULL when it cannot be kept now (the bound is reached or memory
 * is short): the caller leaves it where it is and tries again later. */
tw_unexpected_t *tw_match_keep(tw_match_t *m, int source, int tag, uint32_t context,
                               const tw_mpi_rts_t *rts, const void *data, size_t len);
/* The same for the first piece of a pipelined message of size bytes: len bytes at
 * data now, room for the rest (its owner copies the pieces in and counts missing down). */
tw_unexpected_t *tw_match_keep_first(tw_match_t *m, int source, int tag, uint32_t context,
                                     const void *data, size_t len, size_t size);
/* The oldest unexpected message a receive (source, tag, context) takes; it stays
 * queued (a probe). NULL: none. */
tw_unexpected_t *tw_match_probe(const tw_match_t *m, int source, int tag, uint32_t context);
tw_unexpected_t *tw_match_take_search(tw_match_t *m, int source, int tag, uint32_t context);
/* The same, taken out of the queue (a receive, or a matched probe): no other receive
 * or probe sees it again. Its payload still counts as kept until tw_match_release. */
static inline tw_unexpected_t *tw_match_take(tw_match_t *m, int source, int tag, uint32_t context) {
    return m->unexpected ? tw_match_take_search(m, source, tag, context) : NULL;
}
/* The kept message that source sent by request sreq (an RTS or a synchronous eager
 * message), which no receive has taken: NULL when there is none (a send's cancel). */
tw_unexpected_t *tw_match_find_send(const tw_match_t *m, int source, uint32_t sreq);
/* Takes kept message u out of the queue and lets it go (a cancelled send's). */
void tw_match_withdraw(tw_match_t *m, tw_unexpected_t *u);
/* A taken message has been delivered: its entry goes. */
void tw_match_release(tw_match_t *m, tw_unexpected_t *u);

/* The size of the message an unexpected entry stands for. */
static inline size_t tw_unexpected_size(const tw_unexpected_t *u) {
    return u->is_rts ? (size_t)u->rts.size : u->len;
}

#pragma GCC visibility pop

#endif
