/* The RMA unit.
 *
 * Direct execution: the initiator translates the NLA through the target's table
 * (mapped from the target's segment), checks it, moves the data — memcpy into the
 * target's shared heap or lock region, one copy by the link (tw_link_t.copy: a
 * process_vm_readv/writev) into its other registered memory — and writes the
 * notifications asked for. Notification slots
 * are reserved before any data moves, so a full queue turns the whole operation
 * into TW_RETRY.
 *
 * Pipelined execution (TW_RMA_COPY=pipeline, or where the kernel refuses
 * cross-process copies, and atomics on ordinary registered memory): the initiator
 * sends requests, with put data in chunks, into the target's request ring; the
 * target's device serves them inside any tollway call and answers into the
 * initiator's response ring. The initiator reserves every notification slot the
 * operation needs at issue, its own and the target's, exactly as on the direct
 * path; the target fills (or cancels) the one the request names. Answers never wait
 * on anything, so requests and answers cannot deadlock. Once a peer
 * is reached this way, every later operation to it is too: operations from one
 * endpoint to one target complete in order. */
#include "device/rma.h"

#include <string.h>

#include <tollway/rma.h>
#include <tollway/status.h>

#include "device/atu.h"
#include "device/endpoint.h"
#include "device/nq.h"
#include "device/progress.h"

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

enum { CHUNK = RMA_CHUNK };

/* The permission an operation needs at the target: an atomic reads as well as writes
 * (it returns the old value), so write-only memory never answers one. */
static inline unsigned perm_of(uint8_t op) {
    return op == TW_OP_GET      ? TW_PERM_READ
           : op == TW_OP_ATOMIC ? TW_PERM_READ | TW_PERM_WRITE
                                : TW_PERM_WRITE;
}

static const unsigned allowed_notify[] = {
    [TW_OP_PUT] = TW_NOTIFY_REQUESTER | TW_NOTIFY_COMPLETER,
    [TW_OP_GET] = TW_NOTIFY_REQUESTER | TW_NOTIFY_COMPLETER | TW_NOTIFY_RESPONDER,
    [TW_OP_PUT_IMM] = TW_NOTIFY_REQUESTER | TW_NOTIFY_COMPLETER,
    [TW_OP_NOTIFY_PUT] = TW_NOTIFY_REQUESTER | TW_NOTIFY_COMPLETER,
    [TW_OP_ATOMIC] = TW_NOTIFY_REQUESTER | TW_NOTIFY_COMPLETER | TW_NOTIFY_RESPONDER,
};

static tw_notification_t note(uint8_t op, unsigned cls, int status, int peer, uint64_t length,
                              uint64_t cookie, uint64_t value, uint64_t nla, int success) {
    tw_notification_t n = {.op = op,
                           .cls = (uint8_t)cls,
                           .success = (uint8_t)success,
                           .status = status,
                           .peer = peer,
                           .length = length,
                           .cookie = cookie,
                           .value = value,
                           .nla = nla};
    return n;
}

void tw_rma_init(tw_ep_t *ep) {
    for (uint32_t i = 0; i < TW_RMA_OUTSTANDING; i++) ep->rma.free[i] = TW_RMA_OUTSTANDING - 1 - i;
    ep->rma.free_count = TW_RMA_OUTSTANDING;
}

static int check_args(tw_ep_t *ep, int dest, uint8_t op, unsigned notify) {
    if (unlikely(!ep)) return TW_ERR_ARG;
    if (unlikely((unsigned)dest >= (unsigned)ep->size)) return TW_ERR_RANK;
    if (unlikely(notify & ~allowed_notify[op])) return TW_ERR_ARG;
    return TW_OK;
}

/* ---- the atomic operations themselves, on memory this process can address ---- */

static uint64_t atomic_apply(void *p, unsigned width, int op, uint64_t a, uint64_t b,
                             uint8_t *success) {
    *success = 0;
    if (width == 4) {
        uint32_t *w = p, old = __atomic_load_n(w, __ATOMIC_RELAXED), want;
        switch (op) {
        case TW_ATOMIC_FADD:
            return __atomic_fetch_add(w, (uint32_t)a, __ATOMIC_SEQ_CST);
        case TW_ATOMIC_SWAP:
            return __atomic_exchange_n(w, (uint32_t)a, __ATOMIC_SEQ_CST);
        case TW_ATOMIC_CAS:
            want = (uint32_t)a;
            *success = __atomic_compare_exchange_n(w, &want, (uint32_t)b, 0, __ATOMIC_SEQ_CST,
                                                   __ATOMIC_SEQ_CST);
            return want;
        default: /* FCAA: if (*d <= cmp) *d += add, signed */
            do {
                if ((int32_t)old > (int32_t)a) return old;
            } while (!__atomic_compare_exchange_n(w, &old, old + (uint32_t)b, 1, __ATOMIC_SEQ_CST,
                                                  __ATOMIC_RELAXED));
            *success = 1;
            return old;
        }
    }
    uint64_t *w = p, old = __atomic_load_n(w, __ATOMIC_RELAXED), want;
    switch (op) {
    case TW_ATOMIC_FADD:
        return __atomic_fetch_add(w, a, __ATOMIC_SEQ_CST);
    case TW_ATOMIC_SWAP:
        return __atomic_exchange_n(w, a, __ATOMIC_SEQ_CST);
    case TW_ATOMIC_CAS:
        want = a;
        *success = __atomic_compare_exchange_n(w, &want, b, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        return want;
    default:
        do {
            if ((int64_t)old > (int64_t)a) return old;
        } while (
            !__atomic_compare_exchange_n(w, &old, old + b, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
        *success = 1;
        return old;
    }
}

/* ---- notification slots: requester [0], completer [1], responder [2] ---- */

/* The completer is told where the data lands: the initiator of a get or atomic,
 * the target of everything else. */
static inline int completer_at_initiator(uint8_t op) {
    return op == TW_OP_GET || op == TW_OP_ATOMIC;
}

static inline void cancel_notes(tw_slot_t *slot[3]) {
    for (int i = 0; i < 3; i++)
        if (slot[i]) tw_nq_cancel(slot[i]);
}

/* Reserves the slots of the classes asked for, each in the queue of the side it
 * tells: TW_OK, or TW_RETRY with nothing reserved. */
__attribute__((always_inline)) static inline int
reserve_notes(tw_ep_t *ep, tw_peer_t *peer, uint8_t op, unsigned notify, tw_slot_t *slot[3]) {
    slot[0] = slot[1] = slot[2] = NULL;
    if (likely(!notify)) return TW_OK;
    if ((notify & TW_NOTIFY_REQUESTER) && !(slot[0] = tw_nq_reserve(&ep->nq_self))) goto full;
    if ((notify & TW_NOTIFY_COMPLETER) &&
        !(slot[1] = tw_nq_reserve(completer_at_initiator(op) ? &ep->nq_self : &peer->nq)))
        goto full;
    if ((notify & TW_NOTIFY_RESPONDER) && !(slot[2] = tw_nq_reserve(&peer->nq))) goto full;
    return TW_OK;
full:
    cancel_notes(slot);
    return TW_RETRY;
}

__attribute__((always_inline)) static inline void
commit_notes(tw_ep_t *ep, tw_peer_t *peer, tw_slot_t *slot[3], uint8_t op, int dest, uint64_t len,
             uint64_t cookie, uint64_t value, uint64_t nla, int success) {
    if (slot[0])
        tw_nq_write(slot[0], op, TW_NOTIFY_REQUESTER, success, TW_OK, dest, len, cookie, value,
                    nla);
    if (slot[1])
        tw_nq_write(slot[1], op, TW_NOTIFY_COMPLETER, success, TW_OK,
                    completer_at_initiator(op) ? dest : ep->rank, len, cookie, value, nla);
    if (slot[2])
        tw_nq_write(slot[2], op, TW_NOTIFY_RESPONDER, success, TW_OK, ep->rank, len, cookie, value,
                    nla);
    if (slot[1] || slot[2]) tw_ring_wake(&peer->nq); /* the target may sleep on its queue */
}

/* ---- pipelined: the initiator's side ---- */

static tw_rma_op_t *op_alloc(tw_ep_t *ep, uint32_t *handle) {
    if (!ep->rma.free_count) return NULL;
    uint32_t i = ep->rma.free[--ep->rma.free_count];
    tw_rma_op_t *o = &ep->rma.ops[i];
    uint16_t gen = (uint16_t)(o->gen + 1);
    memset(o, 0, sizeof *o);
    o->gen = gen;
    o->in_use = 1;
    *handle = (uint32_t)gen << 16 | i;
    return o;
}

static tw_rma_op_t *op_lookup(tw_ep_t *ep, uint32_t handle) {
    uint32_t i = handle & 0xffff;
    if (i >= TW_RMA_OUTSTANDING) return NULL;
    tw_rma_op_t *o = &ep->rma.ops[i];
    return o->in_use && o->gen == (uint16_t)(handle >> 16) ? o : NULL;
}

static void op_free(tw_ep_t *ep, tw_rma_op_t *o) {
    o->in_use = 0;
    ep->rma.free[ep->rma.free_count++] = (uint32_t)(o - ep->rma.ops);
}

/* A fault with no slot reserved for it: pushed when there is room. 1 when out. */
static int deliver_owed(tw_ep_t *ep, tw_rma_op_t *o) {
    tw_notification_t n =
        note(o->op, TW_NOTIFY_REQUESTER, o->status, o->dest, o->length, o->cookie, 0, o->nla, 0);
    if (tw_nq_push(&ep->nq_dev, &n) != TW_RING_OK) return 0; /* under the device lock */
    if (o->owed) ep->rma.owed--;
    op_free(ep, o);
    return 1;
}

/* Writes what a finished pipelined operation owes its initiator: the requester and
 * completer notifications asked for, or exactly one fault notification (a fault was
 * counted by the target that saw it). */
static void op_complete(tw_ep_t *ep, tw_rma_op_t *o) {
    if (ep->peers[o->dest]) /* perhaps by the progress thread, while the owner reads it */
        __atomic_fetch_sub(&ep->peers[o->dest]->outstanding, 1, __ATOMIC_RELAXED);
    if (o->op == TW_OP_ATOMIC && o->status == TW_OK && o->local)
        memcpy(o->local, &o->value, sizeof o->value);
    tw_notification_t n = note(o->op, TW_NOTIFY_REQUESTER, o->status, o->dest, o->length, o->cookie,
                               o->value, o->nla, o->success);
    if (o->status == TW_OK) {
        if (o->requester) tw_nq_commit(o->requester, &n);
        n.cls = TW_NOTIFY_COMPLETER;
        if (o->completer) tw_nq_commit(o->completer, &n);
    } else if (o->requester || o->completer) {
        tw_nq_commit(o->requester ? o->requester : o->completer, &n);
        if (o->requester && o->completer) tw_nq_cancel(o->completer);
    } else {
        if (!deliver_owed(ep, o)) { /* complete for flush and ordering; the note follows */
            o->owed = 1;
            ep->rma.owed++;
        }
        return; /* deliver_owed frees the entry once the note is out */
    }
    tw_ring_wake(&ep->nq_self); /* perhaps the progress thread, the owner asleep */
    op_free(ep, o);
}

/* A table entry for a new operation, as the pipelined and the remote paths keep it. */
static void op_setup(tw_rma_op_t *o, uint8_t op, unsigned notify, int dest, uint64_t len,
                     uint64_t cookie, uint64_t nla, void *local, tw_slot_t *requester,
                     tw_slot_t *completer) {
    o->op = op;
    o->notify = (uint8_t)notify;
    o->dest = dest;
    o->length = len;
    o->cookie = cookie;
    o->nla = nla;
    o->local = local;
    o->requester = requester;
    o->completer = completer;
}

/* The request for chunk [off, off + n) of operation o (n: bytes of data it carries). */
static rma_req_t request_of(const tw_rma_op_t *o, int source, uint32_t handle, uint64_t key,
                            int atomic_op, unsigned width, uint64_t a, uint64_t b, uint64_t off,
                            uint32_t n) {
    rma_req_t r = {.op = o->op,
                   .notify = o->notify,
                   .atomic_op = (uint8_t)atomic_op,
                   .width = (uint8_t)width,
                   .source = source,
                   .handle = handle,
                   .chunk_len = n,
                   .nla = o->nla,
                   .key = key,
                   .total = o->length,
                   .offset = off,
                   .cookie = o->cookie,
                   .a = a,
                   .b = b};
    return r;
}

/* Sends one pipelined operation: the first request record decides between TW_OK
 * and TW_RETRY; later chunks of a long put wait for room, serving meanwhile. */
static int pipelined(tw_ep_t *ep, tw_peer_t *peer, int dest, uint8_t op, const void *src,
                     void *local, uint64_t len, uint64_t nla, uint64_t key, unsigned notify,
                     uint64_t cookie, int atomic_op, unsigned width, uint64_t a, uint64_t b) {
    tw_slot_t *slot[3];
    if (reserve_notes(ep, peer, op, notify, slot)) goto retry;
    uint32_t handle;
    tw_dev_lock(ep); /* the table is shared with operations to other nodes */
    tw_rma_op_t *o = op_alloc(ep, &handle);
    tw_dev_unlock(ep);
    if (!o) {
        cancel_notes(slot);
        goto retry;
    }
    int completer_here = op == TW_OP_GET || op == TW_OP_ATOMIC;
    op_setup(o, op, notify, dest, len, cookie, nla, local, slot[0],
             completer_here ? slot[1] : NULL);
    tw_slot_t *theirs = completer_here ? slot[2] : slot[1];
    uint64_t note_slot = theirs ? (uint64_t)(theirs - peer->nq.slots) + 1 : 0; /* 0: none */
    int has_data = op == TW_OP_PUT || op == TW_OP_PUT_IMM;
    o->chunks = has_data && len > CHUNK ? (uint32_t)((len + CHUNK - 1) / CHUNK) : 1;

    uint64_t off = 0;
    for (uint32_t c = 0; c < o->chunks; c++) {
        uint32_t n = has_data ? (uint32_t)(len - off < CHUNK ? len - off : CHUNK) : 0;
        tw_slot_t *s;
        unsigned spins = 0;
        while (!(s = tw_ring_reserve(&peer->req, sizeof(rma_req_t) + n))) {
            if (c == 0) { /* nothing sent yet: the whole operation is TW_RETRY */
                tw_dev_lock(ep);
                op_free(ep, o);
                tw_dev_unlock(ep);
                cancel_notes(slot);
                goto retry;
            }
            tw_dev_progress(ep);
            tw_ep_idle(ep, &spins);
        }
        rma_req_t r = request_of(o, ep->rank, handle, key, atomic_op, width, a, b, off, n);
        r.note_slot = note_slot;
        memcpy(&s->word[1], &r, sizeof r);
        if (n) memcpy((char *)&s->word[1] + sizeof r, (const char *)src + off, n);
        tw_ring_commit(s, 0, sizeof r + n);
        tw_ring_wake(&peer->req);
        off += n;
        if (c == 0) __atomic_fetch_add(&peer->outstanding, 1, __ATOMIC_RELAXED);
    }
    ep->stats.rma_ops++;
    ep->stats.rma_pipelined++;
    ep->stats.rma_bytes += len;
    return TW_OK;
retry:
    ep->stats.rma_retries++;
    return TW_RETRY;
}

/* ---- pipelined: the target's side ---- */

int tw_rma_request_valid(const rma_req_t *r, int size, uint32_t max_chunk) {
    if (r->source < 0 || r->source >= size || r->op < TW_OP_PUT || r->op > TW_OP_ATOMIC) return 0;
    if (r->notify & ~allowed_notify[r->op]) return 0;
    if (r->offset > r->total || r->chunk_len > max_chunk || r->chunk_len > r->total - r->offset)
        return 0;
    switch (r->op) {
    case TW_OP_ATOMIC:
        return (r->width == 4 || r->width == 8) && r->atomic_op >= TW_ATOMIC_FCAA &&
               r->atomic_op <= TW_ATOMIC_SWAP && r->total == r->width && r->chunk_len == 0;
    case TW_OP_PUT_IMM:
        return r->chunk_len <= 8 && r->total == r->chunk_len && r->offset == 0;
    case TW_OP_GET: /* no data: the chunk asked for is implied by offset and total */
        return r->chunk_len == 0 && (r->offset < r->total || r->offset == 0);
    case TW_OP_NOTIFY_PUT:
        return r->chunk_len == 0 && r->total == 0;
    default:
        return 1;
    }
}

/* A slot of our queue that a peer says it reserved: it must lie between our head
 * and the producers' tail and still be empty, or it is not used. */
static tw_slot_t *named_slot(tw_ep_t *ep, uint64_t index) {
    tw_ring_consumer_t *c = &ep->nq_rx;
    if (index > c->mask) return NULL;
    uint64_t tail = atomic_load_explicit(&c->ctrl->tail, memory_order_acquire);
    if (((index - c->head) & c->mask) >= tail - c->head) return NULL;
    tw_slot_t *s = &c->slots[index];
    return tw_ring_load_status(s) == 0 ? s : NULL;
}

/* Serves the request at the head of the request ring. 1 when consumed, 0 when it
 * must wait for room in an answer ring or in our own queue. */
static int serve_request(tw_ep_t *ep, const rma_req_t *r, const char *data) {
    tw_peer_t *peer;
    if (tw_ep_peer(ep, r->source, &peer)) return 1; /* no way to answer: dropped */
    int is_get = r->op == TW_OP_GET;
    uint64_t total = r->total;
    int last = r->op != TW_OP_PUT || r->offset + r->chunk_len >= total; /* only puts are chunked */
    /* the notification slot the initiator reserved for us, filled on the last chunk */
    tw_slot_t *mine = NULL;
    unsigned my_cls = 0;
    if (last && r->note_slot) {
        mine = named_slot(ep, r->note_slot - 1);
        my_cls =
            r->op == TW_OP_GET || r->op == TW_OP_ATOMIC ? TW_NOTIFY_RESPONDER : TW_NOTIFY_COMPLETER;
    }

    unsigned perm = perm_of(r->op);
    unsigned align = r->op == TW_OP_ATOMIC ? r->width : 1;
    uint64_t span = r->op == TW_OP_ATOMIC ? r->width : total;
    tw_xlate_t x = {0};
    int status = r->op == TW_OP_NOTIFY_PUT
                     ? TW_OK /* touches no memory */
                     : tw_atu_translate(ep->atu.table, ep->atu.entries, ep->atu.locks, r->nla,
                                        r->key, span, perm, align, &x);

    /* a get streams its data first, resuming where it stopped */
    while (is_get && status == TW_OK && ep->rma.serve_offset < total) {
        uint64_t n = total - ep->rma.serve_offset < CHUNK ? total - ep->rma.serve_offset : CHUNK;
        tw_slot_t *s = tw_ring_reserve(&peer->resp, sizeof(rma_answer_t) + n);
        if (!s) {
            tw_atu_release(&x);
            return 0;
        }
        rma_answer_t d = {.handle = r->handle,
                          .kind = ANSWER_DATA,
                          .chunk_len = (uint32_t)n,
                          .offset = ep->rma.serve_offset};
        memcpy(&s->word[1], &d, sizeof d);
        memcpy((char *)&s->word[1] + sizeof d,
               (const char *)(uintptr_t)x.addr + ep->rma.serve_offset, n);
        tw_ring_commit(s, 0, sizeof d + n);
        tw_ring_wake(&peer->resp);
        ep->rma.serve_offset += n;
    }

    tw_slot_t *ack = tw_ring_reserve(&peer->resp, sizeof(rma_answer_t));
    if (!ack) {
        if (status == TW_OK) tw_atu_release(&x);
        return 0;
    }
    rma_answer_t ans = {.handle = r->handle, .status = status, .kind = ANSWER_ACK};
    if (status == TW_OK) {
        void *at = (char *)(uintptr_t)x.addr + (r->op == TW_OP_ATOMIC ? 0 : r->offset);
        if (r->op == TW_OP_ATOMIC)
            ans.value = atomic_apply(at, r->width, r->atomic_op, r->a, r->b, &ans.success);
        else if (r->op == TW_OP_PUT_IMM)
            memcpy(at, &r->a, r->chunk_len);
        else if (r->op == TW_OP_PUT)
            memcpy(at, data, r->chunk_len);
        tw_atu_release(&x);
    } else if (r->offset == 0) {
        tw_atu_count_fault(ep->segment, status);
    }
    memcpy(&ack->word[1], &ans, sizeof ans);
    tw_ring_commit(ack, 0, sizeof ans);
    tw_ring_wake(&peer->resp);
    if (mine && status != TW_OK) {
        tw_nq_cancel(mine); /* the fault goes to the initiator only */
    } else if (mine) {
        tw_notification_t n =
            note(r->op, my_cls, TW_OK, r->source, total, r->cookie,
                 r->op == TW_OP_PUT_IMM || r->op == TW_OP_NOTIFY_PUT ? r->a : ans.value, r->nla,
                 ans.success);
        tw_nq_commit(mine, &n);
        tw_ring_wake(&ep->nq_dev); /* perhaps the progress thread, the owner asleep */
    }
    ep->rma.serve_offset = 0;
    return 1;
}

/* An answer to chunks of operation o (either link): the last completes it. */
static void op_answered(tw_ep_t *ep, tw_rma_op_t *o, const rma_answer_t *a, uint32_t chunks) {
    if (a->status != TW_OK && o->status == TW_OK) o->status = a->status;
    o->value = a->value;
    o->success = a->success;
    o->chunks_acked += chunks;
    if (o->chunks_acked == o->chunks) op_complete(ep, o);
}

void tw_rma_fail_peer(tw_ep_t *ep, int peer, int cause) {
    for (uint32_t i = 0; i < TW_RMA_OUTSTANDING; i++) {
        tw_rma_op_t *o = &ep->rma.ops[i];
        if (!o->in_use || o->owed || o->dest != peer) continue;
        o->status = cause;
        o->chunks_acked = o->chunks;
        op_complete(ep, o);
    }
    if (ep->peers[peer]) ep->peers[peer]->unanswered = 0;
}

static void take_answer(tw_ep_t *ep, const rma_answer_t *a, const char *data, size_t data_len) {
    tw_rma_op_t *o = op_lookup(ep, a->handle);
    if (!o) return; /* not ours (any more): ignored */
    if (a->kind == ANSWER_DATA) {
        if (o->op == TW_OP_GET && a->offset <= o->length && data_len <= o->length - a->offset)
            memcpy((char *)o->local + a->offset, data, data_len);
        return;
    }
    op_answered(ep, o, a, 1);
}

void tw_rma_serve(tw_ep_t *ep) {
    uint64_t st;
    void *payload;
    /* answers first: they always complete, and free room for more */
    while (tw_ring_peek(&ep->resp_rx, &st, &payload) == TW_RING_OK) {
        size_t len = st & TW_RING_LEN_MASK;
        if (len >= sizeof(rma_answer_t)) {
            rma_answer_t a;
            memcpy(&a, payload, sizeof a);
            if (a.chunk_len == len - sizeof a)
                take_answer(ep, &a, (const char *)payload + sizeof a, a.chunk_len);
        }
        tw_ring_release(&ep->resp_rx, st);
    }
    while (tw_ring_peek(&ep->req_rx, &st, &payload) == TW_RING_OK) {
        size_t len = st & TW_RING_LEN_MASK;
        rma_req_t r;
        int valid = len >= sizeof r;
        if (valid) {
            memcpy(&r, payload, sizeof r);
            valid = r.chunk_len == len - sizeof r && tw_rma_request_valid(&r, ep->size, CHUNK);
        }
        if (valid && !serve_request(ep, &r, (const char *)payload + sizeof r)) break;
        tw_ring_release(&ep->req_rx, st);
    }
    for (uint32_t i = 0; ep->rma.owed && i < TW_RMA_OUTSTANDING; i++)
        if (ep->rma.ops[i].in_use && ep->rma.ops[i].owed && !deliver_owed(ep, &ep->rma.ops[i]))
            break;
}

int tw_progress(tw_ep_t *ep) {
    if (!ep) return TW_ERR_ARG;
    tw_dev_progress(ep);
    return TW_OK;
}

int tw_rma_flush(tw_ep_t *ep, int dest) {
    if (!ep) return TW_ERR_ARG;
    if (dest >= ep->size || dest < -1) return TW_ERR_RANK;
    unsigned spins = 0;
    for (;;) {
        int busy = 0;
        tw_dev_lock(ep); /* the progress thread completes operations to other nodes */
        for (int r = dest < 0 ? 0 : dest; r <= (dest < 0 ? ep->size - 1 : dest) && !busy; r++)
            busy = ep->peers[r] && __atomic_load_n(&ep->peers[r]->outstanding, __ATOMIC_RELAXED);
        tw_dev_unlock(ep);
        if (!busy) return TW_OK;
        tw_dev_progress(ep);
        tw_ep_idle(ep, &spins);
    }
}

/* ---- direct execution by the initiator ---- */

/* A translation fault: one error notification to the initiator, counted at the
 * target once it is out. */
__attribute__((noinline, cold)) static int fault(tw_ep_t *ep, tw_peer_t *peer, int dest, uint8_t op,
                                                 int status, uint64_t len, uint64_t cookie,
                                                 uint64_t nla) {
    tw_notification_t n = note(op, TW_NOTIFY_REQUESTER, status, dest, len, cookie, 0, nla, 0);
    if (tw_nq_push(&ep->nq_self, &n) != TW_RING_OK) {
        ep->stats.rma_retries++;
        return TW_RETRY;
    }
    tw_atu_count_fault(peer->segment, status);
    ep->stats.rma_ops++;
    return TW_OK;
}

/* The address of the target memory in this process, when it has one. */
static inline void *direct_address(tw_ep_t *ep, tw_peer_t *peer, int dest, const tw_xlate_t *x,
                                   uint64_t len) {
    if (!x->entry) return (void *)(uintptr_t)x->addr; /* lock region, mapped with the segment */
    if (x->heap_id) return tw_heap_peer_addr(ep, &peer->heap, dest, x->heap_id, x->offset, len);
    return NULL;
}

/* The memory is not mapped here: one cross-process copy, or the pipelined path when
 * the kernel refuses it (or TW_RMA_COPY says so). Slots are reserved, x is held. */
__attribute__((noinline, cold)) static int direct_far(tw_ep_t *ep, tw_peer_t *peer, int dest,
                                                      uint8_t op, void *local, size_t len,
                                                      uint64_t nla, uint64_t key, unsigned notify,
                                                      uint64_t cookie, uint64_t value,
                                                      tw_xlate_t *x, tw_slot_t *slot[3]) {
    int to_target = op != TW_OP_GET;
    int status = TW_ERR_SYSTEM; /* a heap block that could not be mapped */
    if (!x->heap_id && (ep->rma.copy == TW_RMA_COPY_PIPELINE ||
                        (status = peer->via->link->copy(peer->pid, local, x->addr, len,
                                                        to_target)) == TW_LINK_COPY_REFUSED)) {
        cancel_notes(slot);
        tw_atu_release(x);
        if (ep->rma.copy == TW_RMA_COPY_CMA)
            return fault(ep, peer, dest, op, TW_ERR_PERM, len, cookie, nla);
        peer->pipelined = 1;
        return pipelined(ep, peer, dest, op, local, local, len, nla, key, notify, cookie, 0, 0,
                         value, 0);
    }
    tw_atu_release(x);
    if (status != TW_OK) {
        cancel_notes(slot);
        tw_notification_t n = note(op, TW_NOTIFY_REQUESTER, status, dest, len, cookie, 0, nla, 0);
        tw_nq_push(&ep->nq_self, &n);
        return TW_OK;
    }
    commit_notes(ep, peer, slot, op, dest, len, cookie, value, nla, 0);
    ep->stats.rma_ops++;
    ep->stats.rma_bytes += len;
    return TW_OK;
}

/* A put, get or immediate put carried out here: translate, reserve the
 * notifications, copy, notify. The common case — shared-heap or lock memory — stays
 * small and inline; everything else is in direct_far. */
/* The peer's heap memory for [nla, nla + len) from the TLB, or NULL on a miss. */
static inline unsigned char *tlb_lookup(tw_peer_t *peer, uint64_t nla, uint64_t key, uint64_t len,
                                        unsigned perm) {
    uint32_t idx = tw_nla_index(nla);
    tw_tlb_entry_t *t = &peer->tlb[idx % TW_TLB_ENTRIES];
    if (t->index != idx + 1 || t->key != key) return NULL;
    uint64_t st = atomic_load_explicit(&peer->atu[idx].state, memory_order_acquire);
    uint64_t off = tw_nla_offset(nla);
    if (st != t->state || ((st >> 8) & 0xff) != tw_nla_gen(nla) || off > t->length ||
        len > t->length - off || (((unsigned)(st >> 1)) & perm) != perm)
        return NULL; /* changed, or an access the entry may refuse: the full check decides */
    return t->local + off;
}

static inline void tlb_fill(tw_peer_t *peer, const tw_xlate_t *x, uint64_t key, void *p) {
    if (!x->heap_id) return; /* ordinary memory is counted in and out: never cached */
    uint32_t idx = (uint32_t)(x->entry - peer->atu);
    tw_tlb_entry_t *t = &peer->tlb[idx % TW_TLB_ENTRIES];
    t->state = atomic_load_explicit(&x->entry->state, memory_order_acquire);
    t->key = key;
    t->length = __atomic_load_n(&x->entry->length, __ATOMIC_RELAXED);
    t->local = (unsigned char *)p - x->offset;
    t->index = idx + 1;
}

/* A put, get or immediate put carried out here: translate (the TLB first), reserve
 * the notifications, copy, notify. The common case — shared-heap or lock memory —
 * stays small and inline; everything else is in direct_far. */
__attribute__((always_inline)) static inline int direct(tw_ep_t *ep, tw_peer_t *peer, int dest,
                                                        uint8_t op, void *local, size_t len,
                                                        uint64_t nla, uint64_t key, unsigned notify,
                                                        uint64_t cookie, uint64_t value) {
    int to_target = op != TW_OP_GET;
    unsigned perm = to_target ? TW_PERM_WRITE : TW_PERM_READ;
    tw_slot_t *slot[3];
    ep->stats.translations++;
    unsigned char *p = tlb_lookup(peer, nla, key, len, perm);
    if (likely(p)) {
        if (unlikely(reserve_notes(ep, peer, op, notify, slot))) {
            ep->stats.rma_retries++;
            return TW_RETRY;
        }
        if (to_target)
            tw_copy(p, local, len);
        else
            tw_copy(local, p, len);
    } else {
        tw_xlate_t x;
        int rc =
            tw_atu_translate(peer->atu, peer->atu_entries, peer->locks, nla, key, len, perm, 1, &x);
        if (unlikely(rc)) return fault(ep, peer, dest, op, rc, len, cookie, nla);
        if (unlikely(reserve_notes(ep, peer, op, notify, slot))) {
            tw_atu_release(&x);
            ep->stats.rma_retries++;
            return TW_RETRY;
        }
        p = direct_address(ep, peer, dest, &x, len);
        if (unlikely(!p))
            return direct_far(ep, peer, dest, op, local, len, nla, key, notify, cookie, value, &x,
                              slot);
        if (to_target)
            tw_copy(p, local, len);
        else
            tw_copy(local, p, len);
        tlb_fill(peer, &x, key, p);
        tw_atu_release(&x);
    }
    commit_notes(ep, peer, slot, op, dest, len, cookie, value, nla, 0);
    ep->stats.rma_ops++;
    ep->stats.rma_bytes += len;
    return TW_OK;
}

/* ---- across nodes ----
 *
 * A peer whose link does not map its segment is reached only through the
 * link's messages, so its device
 * executes the operation when it makes progress: the initiator sends requests (put
 * data in chunks in the same link messages; a long get as one request per chunk, each
 * answered with its data), keeps the operation in the table of pipelined operations
 * and completes it on the last answer. The target translates through its own table,
 * moves the data in its own memory and writes the notification it owes into its own
 * queue, reserved before it acts; the initiator reserves its own slots at issue. */

static inline uint64_t chunk_at(uint64_t total, uint64_t offset, uint64_t chunk) {
    return total - offset < chunk ? total - offset : chunk;
}

/* The first request decides between TW_OK and TW_RETRY; later chunks wait for room in
 * the link's window, taking in what arrives meanwhile. */
static int link_issue_locked(tw_ep_t *ep, tw_peer_t *peer, int dest, uint8_t op, const void *src,
                             void *local, uint64_t len, uint64_t nla, uint64_t key, unsigned notify,
                             uint64_t cookie, int atomic_op, unsigned width, uint64_t a,
                             uint64_t b) {
    int completer_here = completer_at_initiator(op);
    tw_slot_t *requester = NULL, *completer = NULL;
    /* What would refuse the first request is checked before any slot is reserved: a
     * refused call retried in a loop would otherwise fill our queue with cancelled
     * slots behind one that waits for this peer's answer, until the queue has no room
     * for the notifications the peer's requests need, and both ends wait. */
    int chunked = op == TW_OP_PUT || op == TW_OP_GET;
    tw_ep_link_t *via = peer->via;
    const tw_link_t *link = via->link;
    rma_req_t probe = {.op = op,
                       .notify = (uint8_t)notify,
                       .source = ep->rank,
                       .nla = nla,
                       .key = key,
                       .total = len,
                       .b = b};
    uint64_t chunk = chunked ? link->rma_chunk(via->ctx, dest, &probe) : len;
    if (chunked && len > chunk) { /* chunks of one size: none too small to land in place */
        uint64_t n = (len + chunk - 1) / chunk;
        chunk = ((len + n - 1) / n + 63) & ~(uint64_t)63;
    }
    uint64_t first = op == TW_OP_PUT ? chunk_at(len, 0, chunk) : op == TW_OP_PUT_IMM ? len : 0;
    probe.chunk_len = (uint32_t)first;
    if (op == TW_OP_GET) probe.b = chunk_at(len, 0, chunk);
    if (peer->unanswered >= RMA_UNANSWERED_MAX || !ep->rma.free_count ||
        !link->rma_can_request(via->ctx, dest, &probe, (size_t)first))
        goto retry;
    if ((notify & TW_NOTIFY_REQUESTER) && !(requester = tw_nq_reserve(&ep->nq_self))) goto retry;
    if (completer_here && (notify & TW_NOTIFY_COMPLETER) &&
        !(completer = tw_nq_reserve(&ep->nq_self)))
        goto cancel;
    uint32_t handle;
    tw_rma_op_t *o = op_alloc(ep, &handle);
    if (!o) goto cancel;
    op_setup(o, op, notify, dest, len, cookie, nla, local, requester, completer);
    o->chunks = chunked && len > chunk ? (uint32_t)((len + chunk - 1) / chunk) : 1;
    o->chunk = (uint32_t)chunk;

    uint64_t off = 0;
    for (uint32_t c = 0; c < o->chunks; c++) {
        uint64_t span = chunked ? chunk_at(len, off, chunk) : len;
        uint32_t n = op == TW_OP_PUT || op == TW_OP_PUT_IMM ? (uint32_t)span : 0; /* data sent */
        rma_req_t r = request_of(o, ep->rank, handle, key, atomic_op, width, a, b, off, n);
        if (op == TW_OP_GET) r.b = span; /* the chunk it asks for */
        unsigned spins = 0;
        int rc;
        while ((rc = peer->unanswered >= RMA_UNANSWERED_MAX
                         ? TW_RETRY
                         : link->rma_request(via->ctx, dest, &r, n ? (const char *)src + off : NULL,
                                             n)) == TW_RETRY &&
               c > 0) {
            tw_dev_poll_links(ep);
            tw_ep_idle(ep, &spins);
        }
        if (rc && c == 0) { /* nothing sent: the whole operation is refused */
            op_free(ep, o);
            if (requester) tw_nq_cancel(requester);
            if (completer) tw_nq_cancel(completer);
            if (rc == TW_RETRY) goto retry;
            return rc;
        }
        if (c == 0) __atomic_fetch_add(&peer->outstanding, 1, __ATOMIC_RELAXED);
        if (!rc) peer->unanswered++;
        if (rc) { /* the peer was lost midway: the operation ends with that */
            o->status = rc;
            op_complete(ep, o);
            break;
        }
        off += span;
    }
    ep->stats.rma_ops++;
    ep->stats.rma_pipelined++;
    ep->stats.rma_bytes += len;
    return TW_OK;
cancel:
    if (requester) tw_nq_cancel(requester);
retry:
    ep->stats.rma_retries++;
    return TW_RETRY;
}

static int link_issue(tw_ep_t *ep, tw_peer_t *peer, int dest, uint8_t op, const void *src,
                      void *local, uint64_t len, uint64_t nla, uint64_t key, unsigned notify,
                      uint64_t cookie, int atomic_op, unsigned width, uint64_t a, uint64_t b) {
    tw_dev_lock(ep);
    int rc = link_issue_locked(ep, peer, dest, op, src, local, len, nla, key, notify, cookie,
                               atomic_op, width, a, b);
    tw_dev_unlock(ep);
    return rc;
}

/* The first half of serving a request from another node: the notification slot it
 * owes and room for its answer reserved, the memory translated. TW_RETRY (nothing
 * held) when there is no room now. */
static int link_serve_prepare(tw_ep_t *ep, tw_ep_link_t *via, const rma_req_t *r,
                              tw_rma_serving_t *v) {
    int is_get = r->op == TW_OP_GET;
    v->span = is_get ? chunk_at(r->total, r->offset, r->b) : r->chunk_len;
    int last = (r->op != TW_OP_PUT && !is_get) || r->offset + v->span >= r->total; /* chunked */
    v->cls = completer_at_initiator(r->op) ? TW_NOTIFY_RESPONDER : TW_NOTIFY_COMPLETER;
    v->mine = NULL;
    /* room for the answer first, as link_issue_locked checks before it reserves: a slot
     * reserved and cancelled at each refusal stays in our queue, behind notifications
     * the owner takes only once the peer's operations finish, until no room is left for
     * this one's */
    if (!via->link->rma_can_answer(via->ctx)) return TW_RETRY;
    if (last && (r->notify & v->cls) && !(v->mine = tw_nq_reserve(&ep->nq_dev))) return TW_RETRY;
    unsigned perm = perm_of(r->op);
    unsigned align = r->op == TW_OP_ATOMIC ? r->width : 1;
    v->x = (tw_xlate_t){0};
    v->status = r->op == TW_OP_NOTIFY_PUT
                    ? TW_OK /* touches no memory */
                    : tw_atu_translate(ep->atu.table, ep->atu.entries, ep->atu.locks, r->nla,
                                       r->key, r->total, perm, align, &v->x);
    /* our own memory: the translated address is ours to use */
    v->at = v->status == TW_OK
                ? (char *)(uintptr_t)v->x.addr + (r->op == TW_OP_ATOMIC ? 0 : r->offset)
                : NULL;
    return TW_OK;
}

/* The second half: the operation done (a put's data copied from data, or already in
 * place when data is NULL), answered and notified. */
static void link_serve_finish(tw_ep_t *ep, tw_ep_link_t *via, int source, const rma_req_t *r,
                              tw_rma_serving_t *v, const void *data) {
    rma_answer_t ans = {.handle = r->handle,
                        .status = v->status,
                        .kind = ANSWER_ACK,
                        .chunks = 1,
                        .offset = r->offset};
    const void *reply = NULL;
    if (v->status == TW_OK) {
        if (r->op == TW_OP_ATOMIC)
            ans.value = atomic_apply(v->at, r->width, r->atomic_op, r->a, r->b, &ans.success);
        else if (r->op == TW_OP_PUT_IMM)
            memcpy(v->at, &r->a, r->chunk_len);
        else if (r->op == TW_OP_PUT && v->span && data)
            memcpy(v->at, data, v->span);
        else if (r->op == TW_OP_GET) {
            reply = v->at;
            ans.chunk_len = (uint32_t)v->span;
        }
    } else if (r->offset == 0) {
        tw_atu_count_fault(ep->segment, v->status);
    }
    int last = r->op != TW_OP_PUT || r->offset + v->span >= r->total;
    via->link->rma_answer(via->ctx, source, &ans, reply, ans.chunk_len, !last); /* copies */
    if (v->status == TW_OK) tw_atu_release(&v->x);
    if (v->mine && v->status != TW_OK) {
        tw_nq_cancel(v->mine); /* the fault goes to the initiator only */
    } else if (v->mine) {
        tw_notification_t n =
            note(r->op, v->cls, TW_OK, source, r->total, r->cookie,
                 r->op == TW_OP_PUT_IMM || r->op == TW_OP_NOTIFY_PUT ? r->a : ans.value, r->nla,
                 ans.success);
        tw_nq_commit(v->mine, &n);
    }
}

int tw_rma_answer_fits(const tw_rma_op_t *o, const rma_answer_t *a, size_t len) {
    if (a->kind != ANSWER_ACK || a->chunk_len != len ||
        (a->status != TW_OK && (a->status > TW_ERR_KEY || a->status < TW_ERR_ALIGN)) ||
        !a->chunks || a->chunks > o->chunks - o->chunks_acked ||
        (a->chunks > 1 && o->op != TW_OP_PUT))
        return 0;
    uint64_t expect = 0;
    if (o->op == TW_OP_GET && a->status == TW_OK) {
        /* at the start of one of its chunks, as the initiator asked for them */
        if (a->offset > o->length || (a->offset == o->length && o->length) || a->offset % o->chunk)
            return 0;
        expect = chunk_at(o->length, a->offset, o->chunk);
    }
    return len == expect;
}

/* The operation an answer answers, the answer checked against it; NULL when it
 * answers nothing of ours or does not fit. Its data goes to o->local + a->offset. */
static tw_rma_op_t *answered_op(tw_ep_t *ep, int source, const rma_answer_t *a, size_t len) {
    tw_rma_op_t *o = op_lookup(ep, a->handle);
    return o && o->dest == source && tw_rma_answer_fits(o, a, len) ? o : NULL;
}

static void answer_taken(tw_ep_t *ep, int source, tw_rma_op_t *o, const rma_answer_t *a) {
    tw_peer_t *peer = ep->peers[source];
    peer->unanswered = peer->unanswered > a->chunks ? peer->unanswered - a->chunks : 0;
    op_answered(ep, o, a, a->chunks);
}

/* A request or answer from a peer on another node comes only over the link that
 * reaches it (a peer that spoke first may not be connected yet: the link knows where
 * it is). */
static int from_link(const tw_ep_t *ep, uint32_t source, const tw_ep_link_t *via) {
    return source < (uint32_t)ep->size && (!ep->peers[source] || ep->peers[source]->via == via);
}

int tw_rma_link_request_ok(int size, uint32_t source, const rma_req_t *r, size_t len,
                           size_t chunk_max) {
    uint32_t max = chunk_max < REMOTE_CHUNK_MAX ? (uint32_t)chunk_max : REMOTE_CHUNK_MAX;
    return len >= sizeof *r && r->chunk_len == len - sizeof *r && r->source == (int32_t)source &&
           tw_rma_request_valid(r, size, max) &&
           !(r->op == TW_OP_GET && (r->b > max || (!r->b && r->offset < r->total)));
}

int tw_rma_link_request(void *dev, uint32_t source, const void *msg, size_t len) {
    tw_ep_link_t *via = dev;
    tw_ep_t *ep = via->ep;
    rma_req_t r;
    if (!from_link(ep, source, via) || len < sizeof r) return TW_ERR_CORRUPT;
    memcpy(&r, msg, sizeof r);
    if (!tw_rma_link_request_ok(ep->size, source, &r, len, via->link->rma_chunk_max))
        return TW_ERR_CORRUPT;
    tw_rma_serving_t v;
    if (link_serve_prepare(ep, via, &r, &v) == TW_RETRY) return TW_RETRY;
    link_serve_finish(ep, via, (int)source, &r, &v, (const char *)msg + sizeof r);
    return TW_OK;
}

int tw_rma_link_answer(void *dev, uint32_t source, const void *msg, size_t len) {
    tw_ep_link_t *via = dev;
    tw_ep_t *ep = via->ep;
    rma_answer_t a;
    if (!from_link(ep, source, via) || len < sizeof a) return TW_ERR_CORRUPT;
    memcpy(&a, msg, sizeof a);
    size_t data = len - sizeof a;
    tw_rma_op_t *o = answered_op(ep, (int)source, &a, data);
    if (!o) return TW_ERR_CORRUPT;
    if (data) memcpy((char *)o->local + a.offset, (const char *)msg + sizeof a, data);
    answer_taken(ep, (int)source, o, &a);
    return TW_OK;
}

/* Receiving in place: a put request's data straight into our memory, prepared as
 * serving it would be (a notification slot, room for the answer, the memory
 * translated) and finished in landed; a get answer's into the buffer of the get. */
enum { LANDING_NONE, LANDING_PUT, LANDING_ANSWER };

void *tw_rma_link_land_request(void *dev, uint32_t source, const void *msg, size_t len,
                               size_t *skip) {
    tw_ep_link_t *via = dev;
    tw_ep_t *ep = via->ep;
    tw_rma_t *g = &ep->rma;
    g->landing = LANDING_NONE;
    if (!from_link(ep, source, via) || len < sizeof g->req) return NULL;
    memcpy(&g->req, msg, sizeof g->req);
    const rma_req_t *r = &g->req;
    if (!tw_rma_link_request_ok(ep->size, source, r, len, via->link->rma_chunk_max))
        return NULL; /* refused the usual way */
    if (r->op != TW_OP_PUT || !r->chunk_len ||
        link_serve_prepare(ep, via, r, &g->serving) == TW_RETRY)
        return NULL;
    if (g->serving.status != TW_OK) {
        if (g->serving.mine) tw_nq_cancel(g->serving.mine); /* a fault: taken the usual way */
        return NULL;
    }
    g->landing = LANDING_PUT;
    *skip = sizeof g->req;
    return g->serving.at;
}

void *tw_rma_link_land_answer(void *dev, uint32_t source, const void *msg, size_t len,
                              size_t *skip) {
    tw_ep_link_t *via = dev;
    tw_ep_t *ep = via->ep;
    tw_rma_t *g = &ep->rma;
    g->landing = LANDING_NONE;
    if (!from_link(ep, source, via) || len < sizeof g->answer) return NULL;
    memcpy(&g->answer, msg, sizeof g->answer);
    size_t data = len - sizeof g->answer;
    tw_rma_op_t *o = data ? answered_op(ep, (int)source, &g->answer, data) : NULL;
    if (!o) return NULL;
    g->landing = LANDING_ANSWER;
    *skip = sizeof g->answer;
    return (char *)o->local + g->answer.offset;
}

void tw_rma_link_landed(void *dev, uint32_t source, size_t len, int ok) {
    tw_ep_link_t *via = dev;
    tw_ep_t *ep = via->ep;
    tw_rma_t *g = &ep->rma;
    if (g->landing == LANDING_PUT) {
        if (ok) {
            link_serve_finish(ep, via, (int)source, &g->req, &g->serving, NULL);
        } else {
            tw_atu_release(&g->serving.x); /* damaged on the way: it comes again */
            if (g->serving.mine) tw_nq_cancel(g->serving.mine);
        }
    } else if (g->landing == LANDING_ANSWER && ok) {
        tw_rma_op_t *o = answered_op(ep, (int)source, &g->answer, len - sizeof g->answer);
        if (o) answer_taken(ep, (int)source, o, &g->answer);
    }
    g->landing = LANDING_NONE;
}

/* ---- the calls ---- */

/* A refused call serves pending pipelined work on its way out, so that a caller
 * retrying in a loop makes progress; a call that goes through skips that. */
static inline int retried(tw_ep_t *ep, int rc) {
    if (unlikely(rc == TW_RETRY)) tw_dev_progress(ep);
    return rc;
}

/* Operations to a peer complete in order: once pipelined ones are under way (or the
 * peer can only be reached that way), later ones queue behind them. Read without the
 * device lock: the progress thread may be counting an answer down meanwhile, and a
 * count it has just taken to 0 only lets this operation go direct a little later. */
static inline int queue_behind(const tw_peer_t *peer) {
    return peer->pipelined || __atomic_load_n(&peer->outstanding, __ATOMIC_RELAXED);
}

/* Everything tw_put's fast path leaves: argument errors, a first contact, the
 * pipelined path, TLB misses, requester notifications, full queues. */
__attribute__((noinline)) static int put_general(tw_ep_t *ep, int dest, const void *src, size_t len,
                                                 uint64_t nla, uint64_t key, unsigned notify,
                                                 uint64_t cookie) {
    int rc = check_args(ep, dest, TW_OP_PUT, notify);
    if (rc) return rc;
    if (unlikely(!src && len)) return TW_ERR_ARG;
    tw_peer_t *peer;
    if ((rc = tw_ep_peer(ep, dest, &peer))) return rc;
    if (unlikely(!peer->mapped))
        return retried(ep, link_issue(ep, peer, dest, TW_OP_PUT, src, NULL, len, nla, key, notify,
                                      cookie, 0, 0, 0, 0));
    if (queue_behind(peer))
        return retried(ep, pipelined(ep, peer, dest, TW_OP_PUT, src, NULL, len, nla, key, notify,
                                     cookie, 0, 0, 0, 0));
    return retried(ep, direct(ep, peer, dest, TW_OP_PUT, (void *)(uintptr_t)src, len, nla, key,
                              notify, cookie, 0));
}

int tw_put(tw_ep_t *ep, int dest, const void *src, size_t len, uint64_t nla, uint64_t key,
           unsigned notify, uint64_t cookie) {
    /* The common case first: a peer already reached directly, a translation in the
     * TLB, no notification or only the completer's. Anything else, or a full queue,
     * takes the general path below, which decides from scratch. */
    if (likely(ep && (unsigned)dest < (unsigned)ep->size && !(notify & ~TW_NOTIFY_COMPLETER) &&
               (src || !len))) {
        tw_peer_t *peer = ep->peers[dest];
        unsigned char *p;
        if (likely(peer && !queue_behind(peer) &&
                   (p = tlb_lookup(peer, nla, key, len, TW_PERM_WRITE)))) {
            tw_slot_t *slot = notify ? tw_nq_reserve(&peer->nq) : NULL;
            if (likely(slot || !notify)) {
                tw_copy(p, src, len);
                if (slot) {
                    tw_nq_write(slot, TW_OP_PUT, TW_NOTIFY_COMPLETER, 0, TW_OK, ep->rank, len,
                                cookie, 0, nla);
                    tw_ring_wake(&peer->nq);
                }
                ep->stats.translations++;
                ep->stats.rma_ops++;
                ep->stats.rma_bytes += len;
                return TW_OK;
            }
        }
    }
    return put_general(ep, dest, src, len, nla, key, notify, cookie);
}

int tw_offer_put(tw_ep_t *ep, int peer, const tw_region_t *region) {
    if (!ep || !region || !region->nla || !region->length) return TW_ERR_ARG;
    if (peer < 0 || peer >= ep->size) return TW_ERR_RANK;
    tw_peer_t *p = ep->peers[peer];
    if (!p || p->mapped || !p->via || !p->via->link->offer_put) return TW_OK;
    tw_link_region_t g = {region->nla, (uint64_t)(uintptr_t)region->addr, region->length,
                          region->perms};
    tw_dev_lock(ep);
    p->via->link->offer_put(p->via->ctx, peer, &g, region->key);
    tw_dev_unlock(ep);
    return TW_OK;
}

int tw_get(tw_ep_t *ep, int dest, void *dst, size_t len, uint64_t nla, uint64_t key,
           unsigned notify, uint64_t cookie) {
    int rc = check_args(ep, dest, TW_OP_GET, notify);
    if (rc) return rc;
    if (unlikely(!dst && len)) return TW_ERR_ARG;
    tw_peer_t *peer;
    if ((rc = tw_ep_peer(ep, dest, &peer))) return rc;
    if (unlikely(!peer->mapped))
        return retried(ep, link_issue(ep, peer, dest, TW_OP_GET, NULL, dst, len, nla, key, notify,
                                      cookie, 0, 0, 0, 0));
    if (queue_behind(peer))
        return retried(ep, pipelined(ep, peer, dest, TW_OP_GET, NULL, dst, len, nla, key, notify,
                                     cookie, 0, 0, 0, 0));
    return retried(ep, direct(ep, peer, dest, TW_OP_GET, dst, len, nla, key, notify, cookie, 0));
}

int tw_put_imm(tw_ep_t *ep, int dest, uint64_t value, size_t len, uint64_t nla, uint64_t key,
               unsigned notify, uint64_t cookie) {
    int rc = check_args(ep, dest, TW_OP_PUT_IMM, notify);
    if (rc) return rc;
    if (len != 1 && len != 2 && len != 4 && len != 8) return TW_ERR_ARG;
    tw_peer_t *peer;
    if ((rc = tw_ep_peer(ep, dest, &peer))) return rc;
    if (unlikely(!peer->mapped))
        return retried(ep, link_issue(ep, peer, dest, TW_OP_PUT_IMM, &value, NULL, len, nla, key,
                                      notify, cookie, 0, 0, value, 0));
    if (queue_behind(peer))
        return retried(ep, pipelined(ep, peer, dest, TW_OP_PUT_IMM, &value, NULL, len, nla, key,
                                     notify, cookie, 0, 0, value, 0));
    return retried(
        ep, direct(ep, peer, dest, TW_OP_PUT_IMM, &value, len, nla, key, notify, cookie, value));
}

int tw_notify_put(tw_ep_t *ep, int dest, uint64_t value, unsigned notify, uint64_t cookie) {
    int rc = check_args(ep, dest, TW_OP_NOTIFY_PUT, notify);
    if (rc) return rc;
    tw_peer_t *peer;
    if ((rc = tw_ep_peer(ep, dest, &peer))) return rc;
    notify |= TW_NOTIFY_COMPLETER;
    if (unlikely(!peer->mapped))
        return retried(ep, link_issue(ep, peer, dest, TW_OP_NOTIFY_PUT, NULL, NULL, 0, 0, 0, notify,
                                      cookie, 0, 0, value, 0));
    if (queue_behind(peer))
        return retried(ep, pipelined(ep, peer, dest, TW_OP_NOTIFY_PUT, NULL, NULL, 0, 0, 0, notify,
                                     cookie, 0, 0, value, 0));
    tw_slot_t *slot[3];
    if (reserve_notes(ep, peer, TW_OP_NOTIFY_PUT, notify, slot)) {
        ep->stats.rma_retries++;
        return retried(ep, TW_RETRY);
    }
    commit_notes(ep, peer, slot, TW_OP_NOTIFY_PUT, dest, 0, cookie, value, 0, 0);
    ep->stats.rma_ops++;
    return TW_OK;
}

int tw_atomic(tw_ep_t *ep, int dest, tw_atomic_op_t op, unsigned width, uint64_t nla, uint64_t key,
              uint64_t a, uint64_t b, uint64_t *fetched, unsigned notify, uint64_t cookie) {
    int rc = check_args(ep, dest, TW_OP_ATOMIC, notify);
    if (rc) return rc;
    if ((width != 4 && width != 8) || op < TW_ATOMIC_FCAA || op > TW_ATOMIC_SWAP) return TW_ERR_ARG;
    tw_peer_t *peer;
    if ((rc = tw_ep_peer(ep, dest, &peer))) return rc;
    if (unlikely(!peer->mapped))
        return retried(ep, link_issue(ep, peer, dest, TW_OP_ATOMIC, NULL, fetched, width, nla, key,
                                      notify, cookie, op, width, a, b));
    if (queue_behind(peer))
        return retried(ep, pipelined(ep, peer, dest, TW_OP_ATOMIC, NULL, fetched, width, nla, key,
                                     notify, cookie, op, width, a, b));
    tw_xlate_t x;
    ep->stats.translations++;
    rc = tw_atu_translate(peer->atu, peer->atu_entries, peer->locks, nla, key, width,
                          perm_of(TW_OP_ATOMIC), width, &x);
    if (unlikely(rc))
        return retried(ep, fault(ep, peer, dest, TW_OP_ATOMIC, rc, width, cookie, nla));
    void *p = direct_address(ep, peer, dest, &x, width);
    if (!p) { /* ordinary memory: only its owner can update it atomically */
        tw_atu_release(&x);
        return retried(ep, pipelined(ep, peer, dest, TW_OP_ATOMIC, NULL, fetched, width, nla, key,
                                     notify, cookie, op, width, a, b));
    }
    tw_slot_t *slot[3];
    if (unlikely(reserve_notes(ep, peer, TW_OP_ATOMIC, notify, slot))) {
        tw_atu_release(&x);
        ep->stats.rma_retries++;
        return retried(ep, TW_RETRY);
    }
    uint8_t success;
    uint64_t old = atomic_apply(p, width, op, a, b, &success);
    tw_atu_release(&x);
    if (fetched) *fetched = old;
    commit_notes(ep, peer, slot, TW_OP_ATOMIC, dest, width, cookie, old, nla, success);
    ep->stats.rma_ops++;
    ep->stats.rma_bytes += width;
    return TW_OK;
}
