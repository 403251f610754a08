/* Partitioned point-to-point communication (MPI-4.1 chapter 4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready, MPI_Pready_range, MPI_Pready_list, MPI_Parrived; the
 * requests are started, completed and freed by the calls of every request.
 *
 * How a send and a receive meet and move their data (the messages are in
 * partitioned_wire.h): the send's first start sends a SEND naming it and its order
 * among the Psend_inits of its envelope; the receive matches the SEND of its source,
 * tag and communicator of its own Precv_init's order once it is started (the
 * initialization calls match in order, as the standard asks), and every start of
 * the matched receive sends a CLEAR naming its registered buffer. A partition marked
 * ready is put at once into the receiver's buffer once the round is cleared (and as
 * soon as the CLEAR comes for those marked before), asking for requester and
 * completer notifications: the send's round is done when every put's requester
 * notification came, the receive's when every partition of the sender landed. The
 * two sides may cut the message into different numbers of partitions; the receiver
 * maps each landed range onto its own partitions for MPI_Parrived.
 *
 * Threads. MPI_Pready and its range and list forms take no library lock to mark a
 * partition (the generator leaves them unlocked, src/mpi/bindings/gen_bindings.py): a partition is
 * a bit set with one atomic OR, and a count of markings not yet taken in says who puts them. The
 * thread that raises the count from 0 takes the library's lock and puts every marked partition it
 * finds, again while others marked more meanwhile (a combining lock: the others return at once,
 * their partitions on their way by the taker). */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/env/info.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/pt2pt/channel.h"
#include "mpi/pt2pt/partitioned.h"
#include "mpi/pt2pt/partitioned_wire.h"
#include "mpi/pt2pt/request.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/wire.h"

typedef struct tw_part {
    int slot;
    int send; /* 1: a partitioned send; 0: a receive */
    int partitions;
    size_t part_bytes, bytes; /* each partition's bytes; the whole message's */
    unsigned char *buf;
    int peer; /* world rank, or MPI_PROC_NULL */
    int tag;
    uint32_t context;
    uint32_t started;  /* starts so far: the round is this number */
    uint32_t peer_req; /* the other side's request handle, once matched (0: not yet) */
    uint64_t order;    /* its initialization's place among its envelope's (tw_part_msg_t) */
    int broken;        /* the two sides do not agree on the size: every round fails so */
    int owe;           /* a TW_PART_* message that found the peer's mailbox full */
    int counted;       /* counted in tw_mpi_notify_waiters this round */
    /* send */
    uint32_t cleared;         /* rounds the receiver cleared */
    uint64_t nla, key;        /* its buffer */
    _Atomic uint64_t *ready;  /* a bit per partition marked ready this round */
    uint64_t *issued;         /* a bit per partition put this round */
    _Atomic unsigned pending; /* Pready calls whose partitions nobody took in yet */
    int puts, puts_done;      /* partitions put, and those whose requester notification came */
    int refused;              /* a put found the queues full: the progress hook puts again */
    /* receive */
    tw_region_t region;
    uint64_t sender_part; /* bytes of each of the sender's partitions */
    uint64_t *landed;     /* a bit per sender's partition landed this round */
    size_t landed_words;
    size_t *arrived; /* bytes landed of each own partition this round */
    size_t landed_bytes;
    struct tw_part *next, *prev;  /* the active list (or the unmatched receives) */
    struct tw_part *next_waiting; /* started receives not matched yet, in order */
} tw_part_t;

/* A SEND that came before its receive started. */
typedef struct early_send {
    tw_part_msg_t m;
    int source;
    struct early_send *next;
} early_send_t;

/* a peer cannot have more partitioned sends than request slots */
enum { EARLY_MAX = TW_MAX_REQUESTS };

static tw_part_t *active;                      /* requests running a round */
static tw_part_t *waiting_head, *waiting_tail; /* started receives not matched yet */

/* The initializations so far of each envelope, sends and receives apart: both sides
 * count alike, so the n-th Psend_init of an envelope meets the n-th Precv_init. */
typedef struct inits_of {
    int send, peer, tag;
    uint32_t context;
    uint64_t count;
    struct inits_of *next;
} inits_of_t;
enum { INITS_BUCKETS = 64 };
static inits_of_t *inits[INITS_BUCKETS];

/* The count of that envelope's initializations, made at its first; NULL when out of
 * memory. */
static inits_of_t *inits_entry(int send, int peer, int tag, uint32_t context) {
    unsigned b = ((unsigned)peer * 31u + (unsigned)tag * 7u + context) % INITS_BUCKETS;
    inits_of_t *e = inits[b];
    while (e && !(e->send == send && e->peer == peer && e->tag == tag && e->context == context))
        e = e->next;
    if (!e) {
        if (!(e = malloc(sizeof *e))) return NULL;
        *e = (inits_of_t){send, peer, tag, context, 0, inits[b]};
        inits[b] = e;
    }
    return e;
}
static early_send_t *early_head, *early_tail;
static int early_count;

static inline tw_part_t *part_of(int i) {
    return tw_reqs[i].part;
}

static uint32_t handle_of(const tw_part_t *p) {
    return (uint32_t)tw_req_handle(p->slot);
}

static size_t words_for(int partitions) {
    return ((size_t)partitions + 63) / 64;
}

/* ---- the round's end ---- */

static void active_remove(tw_part_t *p) {
    if (p->prev)
        p->prev->next = p->next;
    else if (active == p)
        active = p->next;
    if (p->next) p->next->prev = p->prev;
    p->next = p->prev = NULL;
    if (!active) tw_mpi_hook_off(TW_HOOK_PART);
}

/* The round of p ends (err: its error, or 0); the request may go back to the pool
 * here (freed while running), so p is not used after. */
static void round_done(tw_part_t *p, int err) {
    req_t *r = &tw_reqs[p->slot];
    if (r->done) return;
    if (err && !r->error) r->error = err;
    if (!p->send) {
        r->st_source = p->peer;
        r->st_tag = p->peer == MPI_PROC_NULL ? MPI_ANY_TAG : p->tag;
        r->st_bytes = p->peer == MPI_PROC_NULL || r->error ? 0 : p->bytes;
    }
    if (p->counted) tw_mpi_notify_waiters--;
    p->counted = 0;
    active_remove(p);
    tw_req_done(p->slot);
}

/* ---- control messages ---- */

/* Sends op of p; TW_RETRY leaves it owed (the progress hook sends it again). 0, or
 * the round failed. */
static int control_send(tw_part_t *p, int op) {
    tw_part_msg_t m = {.op = (uint32_t)op,
                       .tag = p->tag,
                       .context = p->context,
                       .partitions = (uint32_t)p->partitions,
                       .bytes = p->bytes};
    if (p->send) {
        m.sreq = handle_of(p);
        m.rreq = p->peer_req;
        m.order = op == TW_PART_SEND ? p->order : 0;
    } else {
        m.sreq = p->peer_req;
        m.rreq = handle_of(p);
        m.nla = p->region.nla;
        m.key = p->region.key;
    }
    int rc = tw_velo_send(tw_mpi.ep, p->peer, TW_MPI_PART, &m, sizeof m);
    if (rc == TW_RETRY) {
        p->owe = op;
        return 0;
    }
    p->owe = 0;
    if (rc != TW_OK) {
        round_done(p, tw_mpi_peer_error(p->peer, rc));
        return -1;
    }
    if (op == TW_PART_EMPTY) round_done(p, 0); /* nothing else to wait for */
    return 0;
}

/* ---- sending partitions ---- */

/* Puts every partition marked ready and not put yet, once the round is cleared.
 * Under the library's lock (or with one thread). */
static void send_ready(tw_part_t *p) {
    req_t *r = &tw_reqs[p->slot];
    p->refused = 0;
    if (r->done || p->owe || p->cleared < p->started) return;
    size_t words = words_for(p->partitions);
    if (!p->bytes) { /* nothing to put: the receiver hears when all are ready */
        int marked = 0;
        for (size_t w = 0; w < words; w++)
            marked +=
                __builtin_popcountll(atomic_load_explicit(&p->ready[w], memory_order_acquire));
        if (marked == p->partitions) control_send(p, TW_PART_EMPTY);
        return;
    }
    uint64_t cookie = tw_part_cookie(handle_of(p), p->peer_req);
    for (size_t w = 0; w < words; w++) {
        uint64_t todo = atomic_load_explicit(&p->ready[w], memory_order_acquire) & ~p->issued[w];
        while (todo) {
            int b = __builtin_ctzll(todo);
            size_t q = w * 64 + (size_t)b, off = q * p->part_bytes;
            int rc = tw_put(tw_mpi.ep, p->peer, p->buf + off, p->part_bytes, p->nla + off, p->key,
                            TW_NOTIFY_REQUESTER | TW_NOTIFY_COMPLETER, cookie);
            if (rc == TW_RETRY) { /* the progress hook tries again */
                p->refused = 1;
                return;
            }
            if (rc != TW_OK) {
                round_done(p, tw_mpi_peer_error(p->peer, rc));
                return;
            }
            p->issued[w] |= (uint64_t)1 << b;
            p->puts++;
            todo &= todo - 1;
        }
    }
}

/* Takes in what Pready calls marked: the caller raised p->pending from 0. Under
 * MPI_THREAD_MULTIPLE it takes the library's lock, and goes on until no marking is
 * left that nobody took in. */
static void take_in_marked(tw_part_t *p) {
    if (!tw_mpi_threads_on) {
        send_ready(p);
        return;
    }
    unsigned took = tw_mpi_enter();
    unsigned seen;
    do {
        seen = atomic_load_explicit(&p->pending, memory_order_acquire);
        send_ready(p);
    } while (atomic_fetch_sub_explicit(&p->pending, seen, memory_order_acq_rel) != seen);
    tw_mpi_leave(took);
}

/* ---- receiving ---- */

static void recv_matched(tw_part_t *p, const tw_part_msg_t *m) {
    p->peer_req = m->sreq;
    p->sender_part = m->bytes / m->partitions;
    if (m->bytes != p->bytes) p->broken = MPI_ERR_TRUNCATE;
    /* a bit per partition of the sender's, known now (once: the match holds) */
    p->landed_words = words_for((int)m->partitions);
    p->landed = calloc(p->landed_words, sizeof *p->landed);
    if (!p->landed && !p->broken) p->broken = MPI_ERR_NO_MEM;
    /* the CLEAR goes even so: the sender learns of the mismatch from it */
    if (control_send(p, TW_PART_CLEAR)) return;
    if (p->broken) round_done(p, p->broken);
}

static int envelope_matches(const tw_part_t *p, int source, const tw_part_msg_t *m) {
    return p->peer == source && p->tag == m->tag && p->context == m->context &&
           p->order == m->order;
}

static void take_send(int source, const tw_part_msg_t *m) {
    for (tw_part_t *p = waiting_head, *prev = NULL; p; prev = p, p = p->next_waiting) {
        if (!envelope_matches(p, source, m)) continue;
        if (prev)
            prev->next_waiting = p->next_waiting;
        else
            waiting_head = p->next_waiting;
        if (waiting_tail == p) waiting_tail = prev;
        p->next_waiting = NULL;
        recv_matched(p, m);
        return;
    }
    if (early_count >= EARLY_MAX) return; /* more than any peer can have: dropped */
    early_send_t *e = malloc(sizeof *e);
    if (!e) return;
    *e = (early_send_t){*m, source, NULL};
    if (early_tail)
        early_tail->next = e;
    else
        early_head = e;
    early_tail = e;
    early_count++;
}

/* A receive's first start: the first SEND that came for it, or it waits for one. */
static void recv_match(tw_part_t *p) {
    for (early_send_t *e = early_head, *prev = NULL; e; prev = e, e = e->next) {
        if (!envelope_matches(p, e->source, &e->m)) continue;
        if (prev)
            prev->next = e->next;
        else
            early_head = e->next;
        if (early_tail == e) early_tail = prev;
        early_count--;
        tw_part_msg_t m = e->m;
        free(e);
        recv_matched(p, &m);
        return;
    }
    if (waiting_tail)
        waiting_tail->next_waiting = p;
    else
        waiting_head = p;
    waiting_tail = p;
}

/* The partitioned request of ours a message from source names: running, of the
 * kind, peer and (once matched) the other side's handle it must have. */
static tw_part_t *named(uint32_t handle, int kind, int source, uint32_t other) {
    int i = tw_req_index((MPI_Request)handle);
    if (i <= 0 || tw_reqs[i].kind != kind) return NULL;
    tw_part_t *p = part_of(i);
    if (p->peer != source || (p->peer_req && p->peer_req != other)) return NULL;
    return p;
}

static void take_clear(int source, const tw_part_msg_t *m) {
    tw_part_t *p = named(m->sreq, REQ_PSEND, source, m->rreq);
    /* a receiver clears at most the round after this one (it cannot start that
     * round's successor before this side put that round) */
    if (!p || !p->started || p->cleared > p->started) return;
    p->peer_req = m->rreq;
    p->nla = m->nla;
    p->key = m->key;
    p->cleared++;
    if (m->bytes != p->bytes) p->broken = MPI_ERR_TRUNCATE;
    req_t *r = &tw_reqs[p->slot];
    if (!r->active || r->done) return;
    if (p->broken)
        round_done(p, p->broken);
    else
        send_ready(p);
}

static void take_empty(int source, const tw_part_msg_t *m) {
    tw_part_t *p = named(m->rreq, REQ_PRECV, source, m->sreq);
    if (!p || !p->peer_req || p->bytes) return;
    req_t *r = &tw_reqs[p->slot];
    if (r->active && !r->done) round_done(p, 0);
}

static void on_message(int source, const void *data, size_t len) {
    tw_part_msg_t m;
    switch (tw_part_msg_take(data, len, &m)) {
    case TW_PART_SEND:
        take_send(source, &m);
        break;
    case TW_PART_CLEAR:
        take_clear(source, &m);
        break;
    case TW_PART_EMPTY:
        take_empty(source, &m);
        break;
    default:
        break; /* none of ours: dropped */
    }
}

/* A partition of the sender's landed here. */
static void landed(tw_part_t *p, const tw_notification_t *n) {
    if (!p->landed) return; /* its round failed at the match */
    tw_part_recv_view_t v = {p->peer, p->region.nla, p->bytes, p->sender_part};
    int64_t q = tw_part_arrival(&v, n);
    if (q < 0) return;
    uint64_t bit = (uint64_t)1 << (q % 64);
    if (p->landed[q / 64] & bit) return; /* told twice: counted once */
    p->landed[q / 64] |= bit;
    uint64_t first, last;
    tw_part_span((uint64_t)q, p->sender_part, p->part_bytes, &first, &last);
    for (uint64_t k = first; k <= last && k < (uint64_t)p->partitions; k++)
        p->arrived[k] += tw_part_overlap((uint64_t)q, p->sender_part, k, p->part_bytes);
    p->landed_bytes += p->sender_part;
    if (p->landed_bytes == p->bytes) round_done(p, 0);
}

static void on_notification(const tw_notification_t *n) {
    int at_target = n->cls == TW_NOTIFY_COMPLETER;
    uint32_t h = at_target ? tw_part_cookie_rreq(n->cookie) : tw_part_cookie_sreq(n->cookie);
    int i = tw_req_index((MPI_Request)h);
    if (i <= 0) return;
    req_t *r = &tw_reqs[i];
    tw_part_t *p = part_of(i);
    if (!r->active || r->done || n->peer != p->peer) return;
    if (at_target) {
        if (r->kind == REQ_PRECV) landed(p, n);
        return;
    }
    if (r->kind != REQ_PSEND || n->op != TW_OP_PUT || p->puts_done >= p->puts) return;
    if (n->status != TW_OK) {
        round_done(p, tw_mpi_peer_error(p->peer, n->status));
        return;
    }
    if (++p->puts_done == p->partitions) round_done(p, 0);
}

/* Every pass while a round runs: messages owed, puts refused, lost peers. */
static void progress_hook(void) {
    for (tw_part_t *p = active, *next; p; p = next) {
        next = p->next;
        if (tw_mpi_lost_count && tw_mpi_is_lost(p->peer)) {
            round_done(p, tw_mpi_lost_code(p->peer));
            continue;
        }
        if (p->owe && control_send(p, p->owe)) continue;
        if (p->owe) continue;
        if (p->send && p->refused)
            send_ready(p);
        else if (p->broken && p->peer_req)
            round_done(p, p->broken);
    }
}

void tw_mpi_part_init(void) {
    tw_mpi_progress_on_message(TW_MPI_PART, on_message);
    tw_mpi_progress_on_part_notification(on_notification);
    tw_mpi_progress_hook(TW_HOOK_PART, progress_hook);
}

/* ---- requests ---- */

int tw_mpi_part_start(int i) {
    req_t *r = &tw_reqs[i];
    tw_part_t *p = part_of(i);
    tw_req_reset(r);
    p->started++;
    size_t words = words_for(p->partitions);
    if (p->send) {
        for (size_t w = 0; w < words; w++) atomic_store(&p->ready[w], 0);
        memset(p->issued, 0, words * sizeof *p->issued);
        /* pending is not reset: a Pready of the last round may still be taking its
         * count back (it balances itself) */
        p->puts = p->puts_done = 0;
    } else {
        if (p->landed) memset(p->landed, 0, p->landed_words * sizeof *p->landed);
        memset(p->arrived, 0, (size_t)p->partitions * sizeof *p->arrived);
        p->landed_bytes = 0;
    }
    if (p->peer == MPI_PROC_NULL) {
        p->next = p->prev = NULL;
        round_done(p, 0);
        return MPI_SUCCESS;
    }
    if (p->broken) {
        round_done(p, p->broken);
        return MPI_SUCCESS;
    }
    if (tw_mpi_lost_count && tw_mpi_is_lost(p->peer)) {
        r->active = 0;
        return tw_mpi_lost_code(p->peer);
    }
    p->next = active;
    p->prev = NULL;
    if (active) active->prev = p;
    active = p;
    tw_mpi_hook_on(TW_HOOK_PART);
    if (p->bytes) {
        p->counted = 1;
        tw_mpi_notify_waiters++;
    }
    if (p->send) {
        if (p->started == 1) control_send(p, TW_PART_SEND);
    } else if (p->peer_req) {
        control_send(p, TW_PART_CLEAR);
    } else {
        recv_match(p);
    }
    return MPI_SUCCESS;
}

void tw_mpi_part_release(int i) {
    tw_part_t *p = part_of(i);
    if (!p) return;
    if (p->next || p->prev || active == p) active_remove(p);
    if (p->counted) tw_mpi_notify_waiters--;
    for (tw_part_t *w = waiting_head, *prev = NULL; w; prev = w, w = w->next_waiting) {
        if (w != p) continue;
        if (prev)
            prev->next_waiting = w->next_waiting;
        else
            waiting_head = w->next_waiting;
        if (waiting_tail == w) waiting_tail = prev;
        break;
    }
    if (p->region.nla) tw_dereg(tw_mpi.ep, &p->region);
    free((void *)p->ready);
    free(p->issued);
    free(p->landed);
    free(p->arrived);
    free(p);
    tw_reqs[i].part = NULL;
}

/* ---- the calls ---- */

/* What Psend_init and Precv_init check and set up alike. */
static int part_init(const char *call, int send, const void *buf, int partitions, MPI_Count count,
                     MPI_Datatype datatype, int rank, int tag, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request) {
    NEED_INIT(call);
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    char d[96];
    if (partitions < 1 || partitions > TW_PART_MAX) {
        snprintf(d, sizeof d, "%d partitions (1 to %d)", partitions, TW_PART_MAX);
        return tw_mpi_error(c, call, MPI_ERR_ARG, d);
    }
    if (count < 0) return tw_mpi_error(c, call, MPI_ERR_COUNT, "negative count");
    if (count > LLONG_MAX / partitions)
        return tw_mpi_error(c, call, MPI_ERR_COUNT, "the message's size overflows");
    if (rank == MPI_ANY_SOURCE)
        return tw_mpi_error(c, call, MPI_ERR_RANK, "MPI_ANY_SOURCE in partitioned communication");
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= c->size)) {
        snprintf(d, sizeof d, "%s %d in a communicator of %d", send ? "destination" : "source",
                 rank, c->size);
        return tw_mpi_error(c, call, MPI_ERR_RANK, d);
    }
    if (tag == MPI_ANY_TAG)
        return tw_mpi_error(c, call, MPI_ERR_TAG, "MPI_ANY_TAG in partitioned communication");
    if (tag < 0 || tag > TW_MPI_TAG_UB) return tw_mpi_error(c, call, MPI_ERR_TAG, NULL);
    if (!tw_mpi_info_ok(info)) return tw_mpi_error(c, call, MPI_ERR_INFO, NULL);
    if (!request) return tw_mpi_error(c, call, MPI_ERR_REQUEST, "request is NULL");
    tw_mpi_buffer_t b;
    int rc = tw_mpi_type_buffer(datatype, buf, count * partitions, &b);
    if (rc == MPI_ERR_TYPE) return tw_mpi_error(c, call, rc, "not a committed datatype");
    if (rc) return tw_mpi_error(c, call, rc, "the message's size overflows");
    if (b.staged)
        return tw_mpi_error(c, call, MPI_ERR_TYPE,
                            "partitioned communication takes datatypes whose data are contiguous");
    if (!b.at && b.bytes) return tw_mpi_error(c, call, MPI_ERR_BUFFER, "NULL buffer");
    size_t words = words_for(partitions);
    inits_of_t *counted = NULL; /* the envelope's initializations (none to MPI_PROC_NULL) */
    tw_part_t *p = calloc(1, sizeof *p);
    if (p) {
        p->send = send;
        p->partitions = partitions;
        p->bytes = b.bytes;
        p->part_bytes = b.bytes / (size_t)partitions;
        p->buf = b.at;
        p->peer = rank == MPI_PROC_NULL ? MPI_PROC_NULL : tw_mpi_world_rank(c, rank);
        p->tag = tag;
        p->context = c->context;
        if (p->peer != MPI_PROC_NULL && !(counted = inits_entry(send, p->peer, tag, c->context))) {
            free(p);
            p = NULL;
        } else if (send) {
            p->ready = calloc(words, sizeof *p->ready);
            p->issued = calloc(words, sizeof *p->issued);
        } else {
            p->arrived = calloc((size_t)partitions, sizeof *p->arrived);
        }
    }
    if (!p || (send ? !p->ready || !p->issued : !p->arrived)) {
        if (p) {
            free((void *)p->ready);
            free(p->issued);
            free(p->landed);
            free(p->arrived);
        }
        free(p);
        return tw_mpi_error(c, call, MPI_ERR_NO_MEM, NULL);
    }
    if (!send && p->bytes && p->peer != MPI_PROC_NULL) {
        rc = tw_reg(tw_mpi.ep, p->buf, p->bytes, TW_PERM_WRITE, &p->region);
        if (rc != TW_OK) {
            free(p->landed);
            free(p->arrived);
            free(p);
            return tw_mpi_error(c, call, MPI_ERR_NO_MEM, "the buffer cannot be registered");
        }
    }
    int i = tw_req_alloc(&tw_channel_main()->reqs, send ? REQ_PSEND : REQ_PRECV);
    if (!i) {
        if (p->region.nla) tw_dereg(tw_mpi.ep, &p->region);
        free((void *)p->ready);
        free(p->issued);
        free(p->landed);
        free(p->arrived);
        free(p);
        return tw_mpi_error(c, call, MPI_ERR_NO_MEM, "no request left");
    }
    req_t *r = &tw_reqs[i];
    if (counted) p->order = ++counted->count; /* counted only once nothing can fail */
    p->slot = i;
    r->part = p;
    r->persistent = 1;
    r->active = 0;
    r->done = 1;
    r->peer = p->peer;
    r->tag = tag;
    r->context = c->context;
    r->buf = b.at;
    r->bytes = b.bytes;
    *request = tw_req_handle(i);
    return MPI_SUCCESS;
}

int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    return part_init("MPI_Psend_init", 1, buf, partitions, count, datatype, dest, tag, comm, info,
                     request);
}

int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
    return part_init("MPI_Precv_init", 0, buf, partitions, count, datatype, source, tag, comm, info,
                     request);
}

/* An error of the unlocked calls: raised under the lock, as every other error is. */
static int ready_error(MPI_Request request, const char *call, int errclass, const char *detail) {
    unsigned took = tw_mpi_threads_on ? tw_mpi_enter() : 0;
    int rc = tw_mpi_error(tw_mpi_request_comm(request), call, errclass, detail);
    if (tw_mpi_threads_on) tw_mpi_leave(took);
    return rc;
}

/* The active partitioned send request names, or NULL with the error raised. */
static tw_part_t *ready_target(const char *call, MPI_Request request, int *rc) {
    if (!tw_mpi.initialized || tw_mpi.finalized) {
        fprintf(stderr, "tollway MPI: %s called %s\n", call,
                tw_mpi.finalized ? "after MPI_Finalize" : "before MPI_Init");
        *rc = MPI_ERR_OTHER;
        return NULL;
    }
    int i = request == MPI_REQUEST_NULL ? -1 : tw_req_index(request);
    if (i <= 0 || tw_reqs[i].kind != REQ_PSEND) {
        *rc = ready_error(request, call, MPI_ERR_REQUEST,
                          request == MPI_REQUEST_NULL ? "the null request"
                          : i > 0 && tw_reqs[i].kind == REQ_PRECV
                              ? "a partitioned receive (only sends have partitions made ready)"
                              : "not a partitioned send request");
        return NULL;
    }
    if (!tw_reqs[i].active) {
        *rc = ready_error(request, call, MPI_ERR_REQUEST,
                          "an inactive partitioned send (MPI_Start it first)");
        return NULL;
    }
    return part_of(i);
}

/* Marks partition k of p; an error class when it is out of range or marked already. */
static int mark(const char *call, MPI_Request request, tw_part_t *p, int k) {
    char d[96];
    if (k < 0 || k >= p->partitions) {
        snprintf(d, sizeof d, "partition %d of a request of %d", k, p->partitions);
        return ready_error(request, call, MPI_ERR_ARG, d);
    }
    uint64_t bit = (uint64_t)1 << (k % 64);
    if (atomic_fetch_or_explicit(&p->ready[k / 64], bit, memory_order_release) & bit) {
        snprintf(d, sizeof d, "partition %d is marked ready already in this round", k);
        return ready_error(request, call, MPI_ERR_ARG, d);
    }
    return MPI_SUCCESS;
}

/* The partitions just marked go (or wait for the receiver to clear the round). */
static void marked(tw_part_t *p) {
    if (!tw_mpi_threads_on) {
        send_ready(p);
        return;
    }
    if (atomic_fetch_add_explicit(&p->pending, 1, memory_order_acq_rel) == 0) take_in_marked(p);
}

int MPI_Pready(int partition, MPI_Request request) {
    int rc = MPI_SUCCESS;
    tw_part_t *p = ready_target("MPI_Pready", request, &rc);
    if (!p) return rc;
    rc = mark("MPI_Pready", request, p, partition);
    if (rc) return rc;
    marked(p);
    return MPI_SUCCESS;
}

int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
    int rc = MPI_SUCCESS;
    tw_part_t *p = ready_target("MPI_Pready_range", request, &rc);
    if (!p) return rc;
    if (partition_low > partition_high || partition_low < 0 || partition_high >= p->partitions) {
        char d[96];
        snprintf(d, sizeof d, "partitions %d to %d of a request of %d", partition_low,
                 partition_high, p->partitions);
        return ready_error(request, "MPI_Pready_range", MPI_ERR_ARG, d);
    }
    for (int k = partition_low; k <= partition_high && !rc; k++)
        rc = mark("MPI_Pready_range", request, p, k);
    marked(p); /* those marked before an error go too */
    return rc;
}

int MPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
    int rc = MPI_SUCCESS;
    tw_part_t *p = ready_target("MPI_Pready_list", request, &rc);
    if (!p) return rc;
    if (length < 0 || (length && !array_of_partitions))
        return ready_error(request, "MPI_Pready_list", MPI_ERR_ARG,
                           length < 0 ? "negative length" : "array_of_partitions is NULL");
    for (int k = 0; k < length && !rc; k++)
        rc = mark("MPI_Pready_list", request, p, array_of_partitions[k]);
    if (length) marked(p);
    return rc;
}

int MPI_Parrived(MPI_Request request, int partition, int *flag) {
    NEED_INIT("MPI_Parrived");
    int i = request == MPI_REQUEST_NULL ? -1 : tw_req_index(request);
    if (i <= 0 || tw_reqs[i].kind != REQ_PRECV)
        return tw_mpi_error(tw_mpi_request_comm(request), "MPI_Parrived", MPI_ERR_REQUEST,
                            request == MPI_REQUEST_NULL ? "the null request"
                                                        : "not a partitioned receive request");
    tw_mpi_comm_t *c = tw_mpi_request_comm(request);
    if (!flag) return tw_mpi_error(c, "MPI_Parrived", MPI_ERR_ARG, "flag is NULL");
    tw_part_t *p = part_of(i);
    if (partition < 0 || partition >= p->partitions) {
        char d[96];
        snprintf(d, sizeof d, "partition %d of a request of %d", partition, p->partitions);
        return tw_mpi_error(c, "MPI_Parrived", MPI_ERR_ARG, d);
    }
    const req_t *r = &tw_reqs[i];
    /* an inactive request has nothing on the way: its partitions count as arrived */
    if (!r->active || r->done || (p->part_bytes && p->arrived[partition] == p->part_bytes)) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    tw_mpi_progress();
    *flag = r->done || (p->part_bytes && p->arrived[partition] == p->part_bytes);
    return MPI_SUCCESS;
}
