/* The schedule engine: one implementation serves blocking and non-blocking
 * collectives.
 *
 * A collective algorithm (coll.c) writes its steps into a schedule: sends and
 * receives on the communicator's collective context under the call's own tag, and
 * local reductions, copies and unpacks, cut into rounds by fences. Steps start in
 * order; a fence holds the next ones back until every step before it has completed,
 * and a local step runs when it is reached (so a reduction comes after a fence that
 * waits for its operands). Receives of a round are written before its sends, so a
 * long message lands straight in its buffer.
 *
 * A blocking call keeps its schedule on the stack, with a few steps and some
 * scratch inline, so small calls do not allocate. A non-blocking call allocates
 * the schedule, ties it to a request of the point-to-point pool, and leaves it on
 * the list of active schedules, which every progress pass moves on. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/coll/op.h"
#include "mpi/coll/persistent.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/pt2pt/proto.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/coll/schedule.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/wire.h"

int tw_mpi_scheds_active;
static tw_sched_t *active;

typedef struct block {
    struct block *next;
    size_t capacity; /* bytes of data */
    max_align_t data[];
} block_t;

/* Scratch beyond a schedule's inline bytes: blocks of KEEP_LEAST to KEEP_MOST bytes
 * outlive their schedule, a few of them, for the next call. Without them glibc maps
 * (or grows the heap), faults in and trims fresh pages every call: Scan of 1 MiB on 2
 * ranks took 950 us, against 120 us when malloc was told to keep its memory. Smaller
 * blocks come from malloc's free lists anyway; larger ones would hold much memory for
 * a cost that is small beside their own collective. Slots are atomic: under
 * MPI_THREAD_MULTIPLE schedules start and end on several threads at once. */
enum { KEEP_SLOTS = 4 };
#define KEEP_LEAST ((size_t)64 << 10)
#define KEEP_MOST  ((size_t)16 << 20)
static _Atomic(block_t *) kept[KEEP_SLOTS];

static block_t *block_take(size_t need) {
    if (need >= KEEP_LEAST && need <= KEEP_MOST)
        for (int i = 0; i < KEEP_SLOTS; i++) {
            block_t *b = atomic_exchange(&kept[i], NULL);
            if (b && b->capacity >= need) return b;
            free(b); /* too small: a fitting one takes its slot when it ends */
        }
    block_t *b = malloc(sizeof *b + need);
    if (b) b->capacity = need;
    return b;
}

static void block_give(block_t *b) {
    if (b->capacity >= KEEP_LEAST && b->capacity <= KEEP_MOST)
        for (int i = 0; i < KEEP_SLOTS; i++) {
            block_t *none = NULL;
            if (atomic_compare_exchange_strong(&kept[i], &none, b)) return;
        }
    free(b);
}

void tw_sched_fini(void) {
    for (int i = 0; i < KEEP_SLOTS; i++) free(atomic_exchange(&kept[i], NULL));
}

void tw_sched_init(tw_sched_t *s, tw_mpi_comm_t *c, int tag) {
    s->comm = c;
    s->context = c->context + TW_CTX_COLL;
    s->tag = tag;
    s->error = s->truncated = MPI_SUCCESS;
    s->steps = s->inline_steps;
    s->nsteps = s->next = s->waiting = s->heap = 0;
    s->cap = TW_SCHED_STEPS;
    s->request = MPI_REQUEST_NULL;
    s->ended = NULL;
    s->ended_arg = NULL;
    s->shm_op = NULL;
    s->next_active = NULL;
    s->blocks = NULL;
    s->scratch_used = 0;
    s->held_types = NULL;
    s->held_ops = NULL;
    s->keep = s->sealed = 0;
    s->sealed_steps = 0;
    s->sealed_used = 0;
    s->sealed_blocks = NULL;
    s->snapshots = NULL;
    s->nheld_types = s->nheld_ops = s->held_types_cap = s->held_ops_cap = 0;
    /* a collective on a communicator that lost a member fails at once */
    if (tw_mpi_lost_count) {
        int w = tw_mpi_comm_lost_member(c);
        if (w >= 0) s->error = tw_mpi_lost_code(w);
    }
}

tw_sched_t *tw_sched_new(tw_mpi_comm_t *c) {
    tw_sched_t *s = malloc(sizeof *s);
    if (!s) return NULL;
    tw_sched_init(s, c, tw_mpi_nbc_tag(c));
    s->heap = 1;
    return s;
}

/* State put back at every run of a persistent schedule: saved holds what bytes
 * bytes at at held when the schedule was sealed. */
typedef struct tw_sched_snapshot {
    struct tw_sched_snapshot *next;
    void *at;
    size_t bytes;
    max_align_t saved[];
} snapshot_t;

void tw_sched_free(tw_sched_t *s) {
    for (snapshot_t *p = s->snapshots, *next; p; p = next) {
        next = p->next;
        free(p);
    }
    for (block_t *b = s->blocks, *next; b; b = next) {
        next = b->next;
        block_give(b);
    }
    if (s->steps != s->inline_steps) free(s->steps);
    for (int k = 0; k < s->nheld_types; k++) tw_mpi_type_release((MPI_Datatype)s->held_types[k]);
    for (int k = 0; k < s->nheld_ops; k++) tw_mpi_op_release((MPI_Op)s->held_ops[k]);
    free(s->held_types);
    free(s->held_ops);
    if (s->heap) free(s);
}

/* Appends v to an array of handles unless it is there already; 0, or -1 when out
 * of memory (s->error set). */
static int add_held(tw_sched_t *s, unsigned **a, int *n, int *cap, unsigned v) {
    for (int k = 0; k < *n; k++)
        if ((*a)[k] == v) return -1;
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 4;
        unsigned *b = realloc(*a, (size_t)c * sizeof *b);
        if (!b) {
            s->error = MPI_ERR_NO_MEM;
            return -1;
        }
        *a = b;
        *cap = c;
    }
    (*a)[(*n)++] = v;
    return 0;
}

void tw_sched_hold_type(tw_sched_t *s, MPI_Datatype type) {
    if (!s || !s->heap || tw_mpi_type_extent(type) >= 0) return; /* predefined */
    if (!add_held(s, &s->held_types, &s->nheld_types, &s->held_types_cap, (unsigned)type))
        tw_mpi_type_hold(type);
}

void tw_sched_hold_op(tw_sched_t *s, MPI_Op op) {
    if (!s || !s->heap || tw_mpi_op_predefined(op)) return;
    if (!add_held(s, &s->held_ops, &s->nheld_ops, &s->held_ops_cap, (unsigned)op))
        tw_mpi_op_hold(op);
}

void *tw_sched_scratch(tw_sched_t *s, size_t bytes) {
    size_t align = _Alignof(max_align_t), need = (bytes + align - 1) / align * align;
    if (need <= TW_SCHED_SCRATCH - s->scratch_used) {
        void *p = s->scratch + s->scratch_used;
        s->scratch_used += need;
        return p;
    }
    block_t *b = block_take(need);
    if (!b) {
        s->error = MPI_ERR_NO_MEM;
        return NULL;
    }
    b->next = s->blocks;
    s->blocks = b;
    return b->data;
}

tw_sched_mark_t tw_sched_mark(const tw_sched_t *s) {
    return (tw_sched_mark_t){s->scratch_used, s->blocks, s->sealed};
}

void tw_sched_release(tw_sched_t *s, tw_sched_mark_t mark) {
    /* a persistent schedule keeps what it was sealed with: its first steps use it
     * again at the next run */
    if (s->sealed && !mark.after_seal)
        mark = (tw_sched_mark_t){s->sealed_used, s->sealed_blocks, 1};
    while (s->blocks != mark.blocks) {
        block_t *b = s->blocks;
        s->blocks = b->next;
        block_give(b);
    }
    s->scratch_used = mark.used;
}

static void fail_early(tw_sched_t *s) {
    if (!s->error) s->error = MPI_ERR_NO_MEM;
}

static tw_step_t *add(tw_sched_t *s, int kind) {
    if (s->nsteps == s->cap) {
        int cap = 2 * s->cap;
        tw_step_t *steps = malloc((size_t)cap * sizeof *steps);
        if (!steps) {
            s->error = MPI_ERR_NO_MEM;
            return NULL;
        }
        memcpy(steps, s->steps, (size_t)s->nsteps * sizeof *steps);
        if (s->steps != s->inline_steps) free(s->steps);
        s->steps = steps;
        s->cap = cap;
    }
    tw_step_t *t = &s->steps[s->nsteps++];
    t->kind = (uint8_t)kind;
    t->deferred = 0;
    t->typed = 0;
    t->operand = 0;
    t->req = MPI_REQUEST_NULL;
    return t;
}

void tw_sched_send(tw_sched_t *s, const void *buf, size_t bytes, int peer) {
    tw_step_t *t = add(s, TW_STEP_SEND);
    if (!t) return;
    t->src = buf;
    t->bytes = bytes;
    t->peer = tw_mpi_world_rank(s->comm, peer);
}

void tw_sched_recv(tw_sched_t *s, void *buf, size_t bytes, int peer) {
    tw_step_t *t = add(s, TW_STEP_RECV);
    if (!t) return;
    t->dst = buf;
    t->bytes = bytes;
    t->peer = tw_mpi_world_rank(s->comm, peer);
}

void tw_sched_recv_operand(tw_sched_t *s, void *buf, size_t bytes, int peer) {
    int n = s->nsteps;
    tw_sched_recv(s, buf, bytes, peer);
    if (s->nsteps > n) s->steps[n].operand = 1;
}

void tw_sched_reduce(tw_sched_t *s, const void *in, void *inout, MPI_Count count, MPI_Datatype type,
                     MPI_Op op) {
    tw_step_t *t = add(s, TW_STEP_REDUCE);
    if (!t) return;
    t->src = in;
    t->dst = inout;
    t->count = count;
    t->type = type;
    t->op = op;
}

void tw_sched_copy(tw_sched_t *s, const void *src, void *dst, size_t bytes) {
    if (!bytes || src == dst) return;
    tw_step_t *t = add(s, TW_STEP_COPY);
    if (!t) return;
    t->src = src;
    t->dst = dst;
    t->bytes = bytes;
}

void tw_sched_unpack(tw_sched_t *s, const void *packed, MPI_Count count, MPI_Datatype type,
                     void *buf) {
    tw_step_t *t = add(s, TW_STEP_UNPACK);
    if (!t) return;
    t->src = packed;
    t->dst = buf;
    t->count = count;
    t->type = type;
}

void tw_sched_pack(tw_sched_t *s, const void *buf, MPI_Count count, MPI_Datatype type,
                   void *packed) {
    if (!s->keep) {
        tw_mpi_type_pack(buf, count, type, packed);
        return;
    }
    tw_step_t *t = add(s, TW_STEP_PACK);
    if (!t) return;
    t->src = buf;
    t->dst = packed;
    t->count = count;
    t->type = type;
}

void tw_sched_copy_input(tw_sched_t *s, const void *src, void *dst, size_t bytes) {
    if (s->keep)
        tw_sched_copy(s, src, dst, bytes);
    else if (bytes && src != dst)
        memcpy(dst, src, bytes);
}

void tw_sched_snapshot(tw_sched_t *s, void *at, size_t bytes) {
    if (!s->keep || s->sealed) return; /* written anew at every run after the seal */
    snapshot_t *p = malloc(sizeof *p + bytes);
    if (!p) {
        fail_early(s);
        return;
    }
    *p = (snapshot_t){s->snapshots, at, bytes};
    s->snapshots = p;
}

void tw_sched_call(tw_sched_t *s, tw_sched_fn *fn, void *arg) {
    tw_step_t *t = add(s, TW_STEP_CALL);
    if (!t) return;
    t->fn = fn;
    t->dst = arg;
}

void tw_sched_wait(tw_sched_t *s, MPI_Request req) {
    tw_step_t *t = add(s, TW_STEP_WAIT);
    if (t) t->req = req;
}

void tw_sched_fence(tw_sched_t *s) {
    if (s->nsteps && s->steps[s->nsteps - 1].kind == TW_STEP_FENCE) return;
    add(s, TW_STEP_FENCE);
}

void tw_sched_send_block(tw_sched_t *s, const tw_sched_block_t *b, int peer) {
    if (b->at || !b->bytes) {
        tw_sched_send(s, b->at, b->bytes, peer);
        return;
    }
    tw_step_t *t = add(s, TW_STEP_SEND);
    if (!t) return;
    *t = (tw_step_t){.kind = TW_STEP_SEND,
                     .typed = 1,
                     .peer = tw_mpi_world_rank(s->comm, peer),
                     .src = b->buf,
                     .bytes = b->bytes,
                     .count = b->count,
                     .type = b->type,
                     .req = MPI_REQUEST_NULL};
}

void tw_sched_recv_block(tw_sched_t *s, const tw_sched_block_t *b, int peer) {
    if (b->at || !b->bytes) {
        tw_sched_recv(s, b->at, b->bytes, peer);
        return;
    }
    tw_step_t *t = add(s, TW_STEP_RECV);
    if (!t) return;
    *t = (tw_step_t){.kind = TW_STEP_RECV,
                     .typed = 1,
                     .peer = tw_mpi_world_rank(s->comm, peer),
                     .dst = b->buf,
                     .bytes = b->bytes,
                     .count = b->count,
                     .type = b->type,
                     .req = MPI_REQUEST_NULL};
}

typedef struct block_copy {
    tw_sched_block_t from, to;
} block_copy_t;

/* A copy where one side is not contiguous: straight between the two when the other
 * is, else through a bounce buffer of one staging chunk. */
static void copy_blocks(tw_sched_t *s, void *arg) {
    const block_copy_t *c = arg;
    const tw_sched_block_t *f = &c->from, *t = &c->to;
    if (f->at) {
        tw_mpi_type_unpack(f->at, t->count, t->type, t->buf);
        return;
    }
    if (t->at) {
        tw_mpi_type_pack(f->buf, f->count, f->type, t->at);
        return;
    }
    size_t chunk = f->bytes < TW_PACK_CHUNK ? f->bytes : TW_PACK_CHUNK;
    void *bounce = malloc(chunk);
    if (!bounce) {
        if (!s->error) s->error = MPI_ERR_NO_MEM;
        return;
    }
    for (size_t first = 0; first < f->bytes; first += chunk) {
        size_t len = f->bytes - first < chunk ? f->bytes - first : chunk;
        tw_mpi_type_pack_range(f->buf, f->count, f->type, first, len, bounce);
        tw_mpi_type_unpack_range(bounce, t->count, t->type, first, len, t->buf);
    }
    free(bounce);
}

void tw_sched_copy_block(tw_sched_t *s, const tw_sched_block_t *from, const tw_sched_block_t *to) {
    if (from->at && to->at) {
        tw_sched_copy(s, from->at, to->at, from->bytes);
        return;
    }
    if (!from->bytes) return;
    block_copy_t *c = tw_sched_scratch(s, sizeof *c);
    if (!c) return;
    *c = (block_copy_t){*from, *to};
    tw_sched_call(s, copy_blocks, c);
}

static void fail(tw_sched_t *s, int error) {
    if (!s->error) s->error = error;
}

/* A step that ended in error: the schedule stops, but for a truncated receive, which
 * has what fitted and lets the steps after it run (tw_sched_t.truncated). */
static void step_failed(tw_sched_t *s, int error) {
    if (error != MPI_ERR_TRUNCATE)
        fail(s, error);
    else if (!s->truncated)
        s->truncated = error;
}

/* The schedule's result once it has ended. */
static int result(tw_sched_t *s) {
    if (!s->error) s->error = s->truncated;
    return s->error;
}

/* A send or receive of a typed block, staged by the point-to-point engine in
 * windows of TW_PACK_CHUNK bytes. */
static int start_typed(tw_sched_t *s, tw_step_t *t) {
    tw_mpi_staged_t *st;
    int send = t->kind == TW_STEP_SEND;
    int rc = tw_mpi_staged_new(send ? (void *)(uintptr_t)t->src : t->dst, t->count, t->type,
                               TW_PACK_CHUNK, &st);
    if (rc) return rc;
    return send ? tw_mpi_send_staged(st, t->peer, s->tag, s->context, TW_SEND_STANDARD, 0, &t->req)
                : tw_mpi_recv_staged(st, t->peer, s->tag, s->context, 0, &t->req);
}

/* Starts step t; a local one is done by the time this returns. */
static void start(tw_sched_t *s, tw_step_t *t) {
    int rc = MPI_SUCCESS;
    switch (t->kind) {
    case TW_STEP_CALL: /* it may add steps, moving the array: t is not used after it */
        t->fn(s, t->dst);
        return;
    case TW_STEP_SEND: /* straight into the peer's mailbox when it can: no request */
        if (t->typed) {
            rc = start_typed(s, t);
            break;
        }
        if (tw_mpi_send_now(tw_channel_of_context(s->context), t->src, t->bytes, t->peer, s->tag,
                            s->context) == MPI_SUCCESS)
            break;
        rc = tw_mpi_isend(t->src, t->bytes, t->peer, s->tag, s->context, TW_SEND_STANDARD, &t->req);
        break;
    case TW_STEP_RECV:
        /* a blocking schedule takes a small message straight from the mailbox when
         * it waits for nothing else (tw_mpi_recv_now in advance): no request */
        if (t->typed) {
            rc = start_typed(s, t);
            break;
        }
        if (!s->heap && t->bytes <= TW_MPI_EAGER_MAX) {
            t->deferred = 1;
            t->req = MPI_REQUEST_NULL;
            return;
        }
        rc = tw_mpi_irecv_as(t->dst, t->bytes, t->peer, s->tag, s->context,
                             t->operand ? TW_RECV_OPERAND : TW_RECV_STANDARD, &t->req);
        break;
    case TW_STEP_REDUCE:
        rc = tw_mpi_op_apply(t->op, t->src, t->dst, t->count, t->type);
        break;
    case TW_STEP_COPY:
        memmove(t->dst, t->src, t->bytes);
        break;
    case TW_STEP_UNPACK:
        tw_mpi_type_unpack(t->src, t->count, t->type, t->dst);
        break;
    case TW_STEP_PACK:
        tw_mpi_type_pack(t->src, t->count, t->type, t->dst);
        break;
    case TW_STEP_WAIT: /* its request was under way already */
        break;
    }
    if (rc) {
        t->req = MPI_REQUEST_NULL;
        fail(s, rc);
    }
}

/* A deferred receive at the head of the waiting steps: taken straight from the
 * mailbox when it is the last step of its round still under way (tw_mpi_recv_now
 * waits for the next message); else, or when that message is not the one, posted as
 * any receive. 1 when it is no longer deferred; 0 while steps of its round are still
 * to start. */
static int receive_deferred(tw_sched_t *s, tw_step_t *t) {
    if (s->error) { /* nothing more starts */
        t->deferred = 0;
        return 1;
    }
    if (s->next < s->nsteps && s->steps[s->next].kind != TW_STEP_FENCE)
        return 0; /* the rest of its round starts first */
    int last = 1; /* the steps started after it are done */
    for (tw_step_t *u = t + 1; last && u < &s->steps[s->next]; u++)
        last = u->req == MPI_REQUEST_NULL && !u->deferred;
    if (last) {
        int rc = tw_mpi_recv_now(t->dst, t->bytes, t->peer, s->tag, s->context, MPI_STATUS_IGNORE);
        if (rc != 1) {
            t->deferred = 0;
            if (rc) step_failed(s, rc);
            return 1;
        }
    }
    t->deferred = 0;
    int rc = tw_mpi_irecv(t->dst, t->bytes, t->peer, s->tag, s->context, &t->req);
    if (rc) {
        t->req = MPI_REQUEST_NULL;
        fail(s, rc);
    }
    return 1;
}

/* Moves s on as far as it goes now; 1 when it has ended. After a failure no step
 * starts, and s ends once the started ones have completed. */
static int advance(tw_sched_t *s) {
    for (;;) {
        while (s->waiting < s->next) {
            tw_step_t *t = &s->steps[s->waiting];
            if (t->deferred && !receive_deferred(s, t)) break;
            if (t->req != MPI_REQUEST_NULL) {
                if (!tw_mpi_request_finished(t->req)) break;
                int rc = tw_mpi_finish(&t->req, MPI_STATUS_IGNORE);
                if (rc) step_failed(s, rc);
            }
            s->waiting++;
        }
        if (s->next == s->nsteps || s->error) return s->waiting == s->next;
        tw_step_t *t = &s->steps[s->next];
        if (t->kind == TW_STEP_FENCE) {
            if (s->waiting < s->next) return 0;
            s->waiting = ++s->next;
            continue;
        }
        s->next++;
        start(s, t);
    }
}

int tw_sched_run(tw_sched_t *s) {
    unsigned spins = 0;
    while (!advance(s)) {
        tw_mpi_progress();
        if (advance(s)) break;
        tw_mpi_relax(&spins);
    }
    int rc = result(s);
    tw_sched_free(s);
    return rc;
}

static void go(tw_sched_t *s);

/* A schedule that has ended: its request completes, or its owner's function runs. */
static void ended(tw_sched_t *s) {
    result(s);
    if (s->ended)
        s->ended(s, s->ended_arg);
    else
        tw_mpi_coll_request_done(s->request, s->error);
}

void tw_sched_start_then(tw_sched_t *s, tw_sched_fn *fn, void *arg) {
    s->ended = fn;
    s->ended_arg = arg;
    s->request = MPI_REQUEST_NULL;
    go(s);
}

int tw_sched_start(tw_sched_t *s, MPI_Request *req) {
    int rc = s->error ? s->error : tw_mpi_coll_request(s->context - TW_CTX_COLL, req);
    if (rc) {
        tw_sched_free(s);
        return rc;
    }
    s->request = *req;
    go(s);
    return MPI_SUCCESS;
}

/* Moves a started schedule as far as it goes; what is left, the progress hook does. */
static void go(tw_sched_t *s) {
    if (advance(s)) { /* nothing to wait for */
        ended(s);
        if (!s->keep) tw_sched_free(s);
        return;
    }
    /* on the list only now: the first steps may have made progress passes */
    s->next_active = active;
    active = s;
    if (!tw_mpi_scheds_active++) tw_mpi_hook_on(TW_HOOK_SCHED);
}

int tw_sched_seal(tw_sched_t *s) {
    if (s->error) return s->error;
    for (snapshot_t *p = s->snapshots; p; p = p->next) memcpy(p->saved, p->at, p->bytes);
    s->sealed_steps = s->nsteps;
    s->sealed_used = s->scratch_used;
    s->sealed_blocks = s->blocks;
    s->sealed = 1;
    return MPI_SUCCESS;
}

void tw_sched_rerun(tw_sched_t *s, MPI_Request r) {
    tw_sched_release(s, (tw_sched_mark_t){s->sealed_used, s->sealed_blocks, 1});
    s->nsteps = s->sealed_steps;
    s->next = s->waiting = 0;
    for (int k = 0; k < s->nsteps; k++) {
        s->steps[k].req = MPI_REQUEST_NULL;
        s->steps[k].deferred = 0;
    }
    for (snapshot_t *p = s->snapshots; p; p = p->next) memcpy(p->at, p->saved, p->bytes);
    s->error = s->truncated = MPI_SUCCESS;
    if (tw_mpi_lost_count) { /* as a new call would: it fails at once */
        int w = tw_mpi_comm_lost_member(s->comm);
        if (w >= 0) s->error = tw_mpi_lost_code(w);
    }
    s->request = r;
    go(s);
}

/* The progress hook: moves every running schedule on, ends those that are done. */
static void sched_progress(void) {
    static int busy; /* a step's send may make a progress pass of its own */
    if (busy) return;
    busy = 1;
    for (tw_sched_t **at = &active; *at;) {
        tw_sched_t *s = *at;
        if (!advance(s)) {
            at = &s->next_active;
            continue;
        }
        *at = s->next_active;
        if (!--tw_mpi_scheds_active) tw_mpi_hook_off(TW_HOOK_SCHED);
        ended(s);
        if (!s->keep) tw_sched_free(s);
    }
    busy = 0;
}

/* A persistent collective's schedule, run again and freed through its request. */
static int start_persistent(void *s, MPI_Request req) {
    return tw_coll_persistent_start(s, req);
}
static void free_persistent(void *s) {
    tw_sched_free(s);
}

void tw_mpi_sched_init(void) {
    tw_mpi_persistent_colls(start_persistent, free_persistent);
    tw_mpi_progress_hook(TW_HOOK_SCHED, sched_progress);
    tw_mpi_comm_on_destroy(TW_COMM_PART_COLL_SHM, tw_coll_shm_free);
}
