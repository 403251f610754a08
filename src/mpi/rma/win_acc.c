/* MPI one-sided communication: the accumulate family (accumulate, get-accumulate,
 * fetch-and-op, compare-and-swap, and the request-based accumulates), atomic as a
 * whole under the target's accumulate lock word: taken through its mapping on a shm
 * window (then the data is combined in place, a vector op for a range), else with
 * the device's atomics (then the data is read, combined and written back). Every
 * accumulate takes it, since mixing element atomics with a held range is not atomic. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/coll/op.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/env/state.h"
#include "mpi/rma/win.h"
#include "mpi/rma/win_acc_msg.h"

/* ---- accumulate ---- */

static int predefined_op(MPI_Op op) {
    return ((unsigned)op >> 24) == 0x58 && (op & 0xffffff) >= 1 && (op & 0xffffff) <= 14;
}

static int integer_type(MPI_Datatype t) {
    unsigned id = (unsigned)t & 0xff;
    /* char (signed, an extension as in MPICH), signed and unsigned char, short ...
     * unsigned long long, the fixed-width types, MPI_AINT, MPI_COUNT, MPI_OFFSET; not
     * MPI_WCHAR (no arithmetic) */
    return (id >= 1 && id <= 13 && id != 4 && id != 5) || (id >= 18 && id <= 28) || id == 45 ||
           (id >= 50 && id <= 53); /* MPI_INTEGER, MPI_INTEGER1..8 */
}

/* The es (1, 2, 4, 8) bytes at p as the low bytes of a word, and back: copies of
 * a constant size each, never a copy loop of a variable one. */
static inline uint64_t get_bytes(const void *p, int es) {
    switch (es) {
    case 1: {
        uint8_t v;
        memcpy(&v, p, 1);
        return v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static inline void put_bytes(void *p, uint64_t v, int es) {
    switch (es) {
    case 1: {
        uint8_t b = (uint8_t)v;
        memcpy(p, &b, 1);
        break;
    }
    case 2: {
        uint16_t b = (uint16_t)v;
        memcpy(p, &b, 2);
        break;
    }
    case 4: {
        uint32_t b = (uint32_t)v;
        memcpy(p, &b, 4);
        break;
    }
    default:
        memcpy(p, &v, 8);
    }
}

/* cur op v for one type, in registers; 0 when the op is not one of these. A sum or
 * product is worked in U (an integer type's unsigned one), so that one that overflows
 * wraps, as the op library's loops do, rather than being undefined. */
#define COMBINE_NUM(name, T, U)                                                                    \
    static inline int name(MPI_Op op, uint64_t cur, uint64_t v, uint64_t *next) {                  \
        T a, b, r;                                                                                 \
        memcpy(&a, &cur, sizeof a);                                                                \
        memcpy(&b, &v, sizeof b);                                                                  \
        if (op == MPI_SUM)                                                                         \
            r = (T)((U)a + (U)b);                                                                  \
        else if (op == MPI_PROD)                                                                   \
            r = (T)((U)a * (U)b);                                                                  \
        else if (op == MPI_MAX)                                                                    \
            r = b > a ? b : a;                                                                     \
        else if (op == MPI_MIN)                                                                    \
            r = b < a ? b : a;                                                                     \
        else                                                                                       \
            return 0;                                                                              \
        *next = 0;                                                                                 \
        memcpy(next, &r, sizeof r);                                                                \
        return 1;                                                                                  \
    }
#define COMBINE_INT(name, num, T, U)                                                               \
    COMBINE_NUM(num, T, U)                                                                         \
    static inline int name(MPI_Op op, uint64_t cur, uint64_t v, uint64_t *next) {                  \
        T a, b, r;                                                                                 \
        memcpy(&a, &cur, sizeof a);                                                                \
        memcpy(&b, &v, sizeof b);                                                                  \
        if (op == MPI_BAND)                                                                        \
            r = a & b;                                                                             \
        else if (op == MPI_BOR)                                                                    \
            r = a | b;                                                                             \
        else if (op == MPI_BXOR)                                                                   \
            r = a ^ b;                                                                             \
        else                                                                                       \
            return num(op, cur, v, next);                                                          \
        *next = 0;                                                                                 \
        memcpy(next, &r, sizeof r);                                                                \
        return 1;                                                                                  \
    }
COMBINE_NUM(combine_double, double, double)
COMBINE_NUM(combine_float, float, float)
COMBINE_INT(combine_i32, num_i32, int32_t, uint32_t)
COMBINE_INT(combine_u32, num_u32, uint32_t, uint32_t)
COMBINE_INT(combine_i64, num_i64, int64_t, uint64_t)
COMBINE_INT(combine_u64, num_u64, uint64_t, uint64_t)

/* cur op v for the most common types and ops, in registers (little-endian: an
 * element is the low bytes of the word); 0 when the op library must do it. */
static inline int fast_combine(MPI_Op op, MPI_Datatype type, uint64_t cur, uint64_t v,
                               uint64_t *next) {
    switch (type) {
    case MPI_DOUBLE:
        return combine_double(op, cur, v, next);
    case MPI_FLOAT:
        return combine_float(op, cur, v, next);
    case MPI_INT:
    case MPI_INT32_T:
        return combine_i32(op, cur, v, next);
    case MPI_UNSIGNED:
    case MPI_UINT32_T:
        return combine_u32(op, cur, v, next);
    case MPI_LONG:
    case MPI_LONG_LONG:
    case MPI_INT64_T:
        return combine_i64(op, cur, v, next);
    case MPI_UNSIGNED_LONG:
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T:
        return combine_u64(op, cur, v, next);
    default:
        return 0;
    }
}

/* The accumulate lock word of window rank r: held around every accumulate to r.
 * Through its mapping when there is one (test and test-and-set: a waiter reads, it
 * does not write the holder's line), else with the device's atomics. */
static int acc_wait(win_t *w, int r) {
    uint64_t *word = w->t[r].acc_word;
    unsigned spins = 0;
    do {
        while (__atomic_load_n(word, __ATOMIC_RELAXED)) {
            relax(&spins);
            /* its holder may be a member that was lost: it would never give it back */
            if (tw_win_lost(w, -1)) return TW_ERR_LOST;
        }
    } while (__atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE));
    return TW_OK;
}

static int acc_lock(win_t *w, int r) {
    uint64_t *word = w->t[r].acc_word;
    if (word) return __atomic_exchange_n(word, 1, __ATOMIC_ACQUIRE) ? acc_wait(w, r) : TW_OK;
    unsigned spins = 0;
    for (;;) {
        uint64_t old = 1;
        int rc = tw_win_lock_atomic(w, w->t[r].world, TW_ATOMIC_CAS, w->acc_idx, 0, 1, &old);
        if (rc) return rc;
        if (old == 0) return TW_OK;
        relax(&spins);
        if (tw_win_lost(w, -1)) return TW_ERR_LOST;
    }
}

static int acc_unlock(win_t *w, int r) {
    uint64_t *word = w->t[r].acc_word;
    if (word) {
        __atomic_store_n(word, 0, __ATOMIC_RELEASE);
        return TW_OK;
    }
    return tw_win_lock_atomic(w, w->t[r].world, TW_ATOMIC_SWAP, w->acc_idx, 0, 0, NULL);
}

/* The target of an accumulate of n bytes at disp of rank r on a shm window whose
 * lock word is mapped, when the call needs no check the general path makes: NULL
 * when that path must decide (and report errors). */
static inline unsigned char *fast_target(win_t *w, int r, MPI_Aint disp, size_t n) {
    if (!w || !w->shm || tw_mpi_lost_count || (unsigned)r >= (unsigned)w->size || disp < 0 ||
        !access_ok(w, r) || !w->t[r].acc_word)
        return NULL;
    target_t *t = &w->t[r];
    size_t off;
    return win_offset(disp, t->disp_unit, t->size, n, &off) ? t->local + off : NULL;
}

/* The accumulate family on a shm window with one predefined contiguous type on both
 * sides: the range combined in place under the lock word, one element in
 * registers, more by the op's vector loop. 1 when done, 0 when the general path
 * must decide (and report errors). */
static inline int fast_acc(win_t *w, const void *in, void *out, MPI_Count count, MPI_Datatype type,
                           int r, MPI_Aint disp, MPI_Op op) {
    int es = tw_mpi_type_contiguous_size(type);
    if (es <= 0 || count < 0 || !predefined_op(op) || (size_t)count > SIZE_MAX / (size_t)es)
        return 0;
    size_t n = (size_t)count * (size_t)es;
    unsigned char *at = fast_target(w, r, disp, n);
    if (!at) return 0;
    uint64_t one = 0, probe;
    tw_mpi_op_fn *fn = NULL;
    int code = 0;
    size_t elements = 0;
    if (count == 1 && es <= 8 && !(es & (es - 1)) && fast_combine(op, type, 0, 0, &probe))
        one = 1;
    else if (op != MPI_NO_OP && op != MPI_REPLACE &&
             !(fn = tw_mpi_op_resolve(op, type, count, &code, &elements)))
        return count ? 0 : 1;
    if (!n) return 1;
    /* the op's loop reads elements in place: aligned, as the type's own are */
    uintptr_t align = (es & (es - 1)) ? 8 : es > 16 ? 16 : (uintptr_t)es;
    if (fn && (((uintptr_t)at | (uintptr_t)in) & (align - 1))) return 0;
    if (acc_lock(w, r)) return 0; /* a lost holder: the general path says so */
    int rc = MPI_SUCCESS;
    if (out) memcpy(out, at, n);
    if (one) {
        uint64_t next = 0;
        fast_combine(op, type, get_bytes(at, es), get_bytes(in, es), &next);
        put_bytes(at, next, es);
    } else if (op == MPI_REPLACE) {
        memcpy(at, in, n);
    } else if (fn) {
        rc = fn(code, in, at, elements);
    }
    acc_unlock(w, r);
    return rc == MPI_SUCCESS; /* an op the type does not take: reported by the general path */
}

/* The new contents of the n bytes at cur (the former ones, replaced in place) under op
 * with operand in; cmp: compare-and-swap's compare value (then op is ignored). *write:
 * whether they are to be written back. MPI_SUCCESS, or MPI_ERR_OTHER when the op did
 * not take the type. */
static int combine(MPI_Op op, const void *cmp, const unsigned char *in, unsigned char *cur,
                   size_t n, MPI_Datatype elem, int *write) {
    *write = op != MPI_NO_OP;
    if (cmp) {
        *write = !memcmp(cur, cmp, n);
        if (*write) memcpy(cur, in, n);
    } else if (op == MPI_REPLACE) {
        memcpy(cur, in, n);
    } else if (*write) {
        int es = tw_mpi_basic_packed_size(elem); /* of an element in the packed data */
        if (tw_mpi_op_apply(op, in, cur, (MPI_Count)(n / (size_t)es), elem)) return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

/* An accumulate of the n packed bytes in (none for MPI_NO_OP) under the target's
 * accumulate lock, taken here (through its mapping, or with the device's atomics): the
 * target range read, combined and written back; the former contents to out (if not
 * NULL). */
static int acc_locked(win_t *w, int r, const side_t *t, const where_t *at, size_t n, MPI_Op op,
                      const unsigned char *in, const void *cmp, unsigned char *out) {
    int rc = 0;
    pieces_t p;
    MPI_Aint off;
    size_t len, pos;
    unsigned char *cur = malloc(n);
    if (!cur) rc = MPI_ERR_NO_MEM;
    int locked = rc ? TW_OK : acc_lock(w, r);
    if (locked) rc = tw_win_device_error(w, w->t[r].world, locked);
    if (!rc) {
        int dev = TW_OK; /* a device status */
        pieces_init(&p, t->type, t->count, &t->l);
        while (!dev && pieces_next(&p, &off, &len, &pos)) {
            if (at->local)
                memcpy(cur + pos, at->local + off, len);
            else
                dev = rma_get(w, at->dest, cur + pos, len, at->nla + (uint64_t)off, at->key);
        }
        if (!dev && !at->local) dev = tw_rma_flush(tw_mpi.ep, at->dest);
        /* the contents are there, unless a fault or the target's loss ended a read */
        rc = tw_win_completion(w, at->dest, dev);
        if (!rc && out) memcpy(out, cur, n);
        int write = 0;
        if (!rc) rc = combine(op, cmp, in, cur, n, t->l.element, &write);
        pieces_init(&p, t->type, t->count, &t->l);
        while (!rc && !dev && write && pieces_next(&p, &off, &len, &pos)) {
            if (at->local)
                memcpy(at->local + off, cur + pos, len);
            else
                dev = rma_put(w, at->dest, cur + pos, len, at->nla + (uint64_t)off, at->key);
        }
        if (!rc && !dev && !at->local) dev = tw_rma_flush(tw_mpi.ep, at->dest);
        if (!rc && dev) rc = tw_win_completion(w, at->dest, dev);
        int unlocked = tw_win_lost(w, w->t[r].world) ? TW_OK : acc_unlock(w, r);
        if (!rc && unlocked) rc = tw_win_device_error(w, w->t[r].world, unlocked);
        if (!rc) rc = tw_win_lost(w, at->dest); /* the target lost meanwhile */
    }
    free(cur);
    return rc;
}

/* ---- accumulates as messages (win_acc_msg.h) ---- */

/* An accumulate message waiting for its answer, on the waiting thread's stack and listed
 * until the answer came (the list, as all of MPI's state, under the library's lock). */
typedef struct acc_wait {
    uint64_t id;
    int source;         /* the target's world rank: only it answers */
    unsigned char *out; /* where the former contents go, or NULL */
    size_t len;         /* their bytes */
    int status, answered;
    struct acc_wait *next;
} acc_wait_t;
static acc_wait_t *acc_waits;
static uint64_t acc_ids;

/* The accumulate of do_acc as one message to rank r, which applies it under its own lock
 * word and answers (again while that word was held by another). The n bytes lie lb past
 * at: a contiguous derived type's data starts at its lower bound, not at the
 * displacement. */
static int acc_message(win_t *w, int r, const where_t *at, MPI_Aint lb, size_t n, MPI_Datatype elem,
                       MPI_Op op, const unsigned char *in, const void *cmp, unsigned char *out) {
    _Alignas(8) unsigned char msg[sizeof(acc_msg_t) + 2 * TW_WIN_ACC_BYTES_MAX];
    int world = w->t[r].world;
    acc_msg_t h = {.context = w->context,
                   .kind = MSG_ACC,
                   .off = (int64_t)(at->nla - w->t[r].nla) + (int64_t)lb,
                   .len = n,
                   .id = ++acc_ids,
                   .op = (int32_t)op,
                   .type = (int32_t)elem,
                   .flags = (out ? TW_WIN_ACC_FETCH : 0) | (cmp ? TW_WIN_ACC_SWAP : 0)};
    size_t len = sizeof h;
    memcpy(msg, &h, sizeof h);
    if (cmp || op != MPI_NO_OP) memcpy(msg + len, in, n), len += n;
    if (cmp) memcpy(msg + len, cmp, n), len += n;
    acc_wait_t x = {.id = h.id, .source = world, .out = out, .len = out ? n : 0, .next = acc_waits};
    acc_waits = &x;
    unsigned spins = 0;
    int rc;
    for (;;) {
        x.answered = 0;
        while ((rc = tw_velo_send(tw_mpi.ep, world, TW_MPI_WIN, msg, len)) == TW_RETRY)
            relax(&spins);
        if (rc) {
            rc = tw_win_device_error(w, world, rc);
            break;
        }
        while (!x.answered && !(rc = tw_win_lost(w, world))) relax(&spins);
        if (rc || x.status != TW_WIN_ACC_BUSY) break;
        relax(&spins); /* its lock word was held: a while, then again */
    }
    acc_wait_t **link = &acc_waits;
    while (*link != &x) link = &(*link)->next;
    *link = x.next;
    return rc ? rc : x.status;
}

int tw_win_acc_answer_take(int source, const void *data, size_t len) {
    acc_answer_t a;
    if (!tw_win_acc_answer_header(data, len, &a)) return 0;
    for (acc_wait_t *x = acc_waits; x; x = x->next) {
        if (x->id != a.id || x->source != source || x->answered) continue;
        int status = a.status; /* a peer's word: a class, or it is an error of ours */
        if (status != MPI_SUCCESS && status != TW_WIN_ACC_BUSY &&
            (status < 1 || status > MPI_ERR_LASTCODE))
            status = MPI_ERR_OTHER;
        if (status == MPI_SUCCESS && x->out) {
            if (a.len == x->len)
                memcpy(x->out, (const unsigned char *)data + sizeof a, a.len);
            else
                status = MPI_ERR_OTHER;
        }
        x->status = status;
        x->answered = 1;
        return 1;
    }
    return 0;
}

/* Applies the checked message h, its operands at in, to window w under this rank's
 * lock word, the former contents to old: MPI_SUCCESS, TW_WIN_ACC_BUSY or a class. */
static int acc_apply(win_t *w, const acc_msg_t *h, const unsigned char *in, unsigned char *old) {
    int swap = (h->flags & TW_WIN_ACC_SWAP) != 0;
    MPI_Op op = (MPI_Op)h->op;
    MPI_Datatype elem = (MPI_Datatype)h->type;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC || !w->base || !w->acc_self ||
        !tw_win_acc_inside(h, (int64_t)w->bytes))
        return MPI_ERR_RMA_RANGE;
    if (!swap && (!predefined_op(op) || tw_mpi_op_check(op, elem))) return MPI_ERR_OP;
    /* held by an origin here or one that took it over the network: ask again, rather
     * than wait inside progress on what may need this very rank's progress */
    if (__atomic_exchange_n(w->acc_self, 1, __ATOMIC_ACQUIRE)) return TW_WIN_ACC_BUSY;
    _Alignas(16) unsigned char cur[TW_WIN_ACC_BYTES_MAX];
    unsigned char *at = (unsigned char *)w->base + h->off;
    memcpy(old, at, h->len);
    memcpy(cur, old, h->len);
    int write = 0;
    int rc = combine(op, swap ? in + h->len : NULL, in, cur, h->len, elem, &write);
    if (!rc && write) memcpy(at, cur, h->len);
    __atomic_store_n(w->acc_self, 0, __ATOMIC_RELEASE);
    return rc;
}

int tw_win_acc_take(win_t *const *table, int source, const void *data, size_t len) {
    acc_msg_t h;
    if (!tw_win_acc_header(data, len, &h)) return 0;
    _Alignas(16) unsigned char in[2 * TW_WIN_ACC_BYTES_MAX]; /* aligned for the op's loop */
    memcpy(in, (const unsigned char *)data + sizeof h, tw_win_acc_operands(&h));
    struct {
        acc_answer_t a;
        unsigned char old[TW_WIN_ACC_BYTES_MAX];
    } answer = {.a = {h.context, MSG_ACC_ANSWER, h.id, MPI_ERR_WIN, 0, 0}};
    for (int i = 0; i < WIN_MAX; i++) {
        win_t *w = table[i];
        if (!w || w->context != h.context) continue;
        if (tw_mpi_comm_rank_of(w->c, source) >= 0)
            answer.a.status = acc_apply(w, &h, in, answer.old);
        break;
    }
    if (answer.a.status == MPI_SUCCESS && (h.flags & TW_WIN_ACC_FETCH)) answer.a.len = h.len;
    /* inside progress: the device's alone while the origin's mailbox is full (the origin
     * takes its messages in while it waits for this one) */
    while (tw_velo_send(tw_mpi.ep, source, TW_MPI_WIN, &answer, sizeof answer.a + answer.a.len) ==
           TW_RETRY)
        tw_progress(tw_mpi.ep);
    return 1;
}

/* The accumulate family. o: the origin data (ignored for MPI_NO_OP); res: where
 * the target's former contents go (NULL: nowhere); cmp: compare-and-swap's compare
 * value (then op is ignored). A contiguous range of a rank on another node, of at most
 * TW_WIN_ACC_BYTES_MAX bytes, goes as a message; any other under the lock word. */
static int do_acc(win_t *w, int r, const side_t *o, const side_t *res, const side_t *t,
                  const where_t *at, MPI_Op op, const void *cmp) {
    size_t n = side_bytes(t);
    if (!n) return MPI_SUCCESS;
    unsigned char *otmp = NULL, *rtmp = NULL;
    const unsigned char *in = NULL;
    if (op != MPI_NO_OP && !(in = packed_of(o, &otmp))) return MPI_ERR_NO_MEM;
    unsigned char *out = NULL;
    if (res) {
        if (res->l.contiguous)
            out = (unsigned char *)(uintptr_t)res->buf + res->l.lb;
        else if (!(out = rtmp = malloc(n))) {
            free(otmp);
            return MPI_ERR_NO_MEM;
        }
    }
    int rc;
    if (w->t[r].acc_msg && !at->local && t->l.contiguous && n <= TW_WIN_ACC_BYTES_MAX &&
        tw_mpi_type_contiguous_size(t->l.element) > 0)
        rc = acc_message(w, r, at, t->l.lb, n, t->l.element, op, in, cmp, out);
    else
        rc = acc_locked(w, r, t, at, n, op, in, cmp, out);
    if (!rc && rtmp) tw_mpi_type_unpack(rtmp, res->count, res->type, (void *)(uintptr_t)res->buf);
    free(otmp);
    free(rtmp);
    return rc;
}

/* The common front of the accumulate family; 1 for MPI_PROC_NULL. */
static int acc_front(win_t *w, const void *obuf, MPI_Count ocount, MPI_Datatype otype, void *rbuf,
                     MPI_Count rcount, MPI_Datatype rtype, int trank, MPI_Aint tdisp,
                     MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, side_t *o, side_t *res,
                     side_t *t, where_t *at) {
    if (!predefined_op(op)) return MPI_ERR_OP;
    if (trank == MPI_PROC_NULL) return 1;
    if (trank < 0 || trank >= w->size) return MPI_ERR_RANK;
    int rc = side_of(t, NULL, tcount, ttype);
    if (rc) return rc;
    if (t->l.element == MPI_DATATYPE_NULL && side_bytes(t)) return MPI_ERR_TYPE;
    if (side_bytes(t) && (rc = tw_mpi_op_check(op, t->l.element))) return rc;
    if (op != MPI_NO_OP) {
        if ((rc = side_of(o, obuf, ocount, otype))) return rc;
        if (side_bytes(o) != side_bytes(t) || (side_bytes(o) && o->l.element != t->l.element))
            return MPI_ERR_TYPE;
    }
    if (res) {
        if ((rc = side_of(res, rbuf, rcount, rtype))) return rc;
        if (side_bytes(res) != side_bytes(t) || (side_bytes(res) && res->l.element != t->l.element))
            return MPI_ERR_TYPE;
    }
    /* a lost target before the epoch: the loss may be why there is none */
    if ((rc = tw_win_lost(w, w->t[trank].world))) return rc;
    if (!access_ok(w, trank)) return MPI_ERR_RMA_SYNC;
    return tw_win_resolve(w, trank, tdisp, t->count, &t->l, at);
}

static int acc_call(const char *call, const void *origin_addr, MPI_Count origin_count,
                    MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                    MPI_Datatype result_datatype, int fetch, int target_rank, MPI_Aint target_disp,
                    MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    win_t *w = win_get(win);
    if (!w) return tw_mpi_error(NULL, call, MPI_ERR_WIN, NULL);
    side_t o, res, t;
    where_t at;
    int rc = acc_front(w, origin_addr, origin_count, origin_datatype, result_addr, result_count,
                       result_datatype, target_rank, target_disp, target_count, target_datatype, op,
                       &o, fetch ? &res : NULL, &t, &at);
    if (rc == 1) return MPI_SUCCESS;
    if (!rc) rc = do_acc(w, target_rank, &o, fetch ? &res : NULL, &t, &at, op, NULL);
    return rc ? tw_win_error(w, call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    NEED_INIT("MPI_Accumulate");
    if (origin_datatype == target_datatype && origin_count == target_count &&
        fast_acc(win_get(win), origin_addr, NULL, origin_count, origin_datatype, target_rank,
                 target_disp, op))
        return MPI_SUCCESS;
    return acc_call("MPI_Accumulate", origin_addr, origin_count, origin_datatype, NULL, 0,
                    origin_datatype, 0, target_rank, target_disp, target_count, target_datatype, op,
                    win);
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
    NEED_INIT("MPI_Get_accumulate");
    if (origin_datatype == target_datatype && origin_count == target_count &&
        result_datatype == target_datatype && result_count == target_count &&
        fast_acc(win_get(win), origin_addr, result_addr, origin_count, origin_datatype, target_rank,
                 target_disp, op))
        return MPI_SUCCESS;
    return acc_call("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr,
                    result_count, result_datatype, 1, target_rank, target_disp, target_count,
                    target_datatype, op, win);
}

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
    NEED_INIT("MPI_Fetch_and_op");
    /* the common case: a sum of integers on a shm window, in registers under the lock */
    win_t *w = win_get(win);
    int es = tw_mpi_type_extent(datatype);
    unsigned char *at;
    if ((es == 8 || es == 4) && op == MPI_SUM && integer_type(datatype) &&
        (at = fast_target(w, target_rank, target_disp, (size_t)es)) && !acc_lock(w, target_rank)) {
        uint64_t old = get_bytes(at, es);
        put_bytes(at, old + get_bytes(origin_addr, es), es);
        acc_unlock(w, target_rank);
        put_bytes(result_addr, old, es);
        return MPI_SUCCESS;
    }
    if (fast_acc(w, origin_addr, result_addr, 1, datatype, target_rank, target_disp, op))
        return MPI_SUCCESS;
    return acc_call("MPI_Fetch_and_op", origin_addr, 1, datatype, result_addr, 1, datatype, 1,
                    target_rank, target_disp, 1, datatype, op, win);
}

int tw_win_fetch_add(MPI_Win win, int r, MPI_Aint disp, int64_t add, int64_t *old) {
    win_t *w = win_get(win);
    if (!w || w->flavor != MPI_WIN_FLAVOR_ALLOCATE) return MPI_ERR_WIN;
    if ((unsigned)r >= (unsigned)w->size) return MPI_ERR_RANK;
    tw_mpi_type_layout_t l;
    where_t at;
    int rc = tw_mpi_type_layout(MPI_INT64_T, &l);
    if (rc == MPI_SUCCESS) rc = tw_win_resolve(w, r, disp, 1, &l, &at);
    if (rc != MPI_SUCCESS) return rc;
    if (((uintptr_t)at.local | at.nla) & 7) return MPI_ERR_RMA_RANGE; /* no atomic there */
    if (at.local) { /* mapped (ours, or on this node): the CPU's, as the device's are */
        *old = (int64_t)__atomic_fetch_add((uint64_t *)(void *)at.local, (uint64_t)add,
                                           __ATOMIC_SEQ_CST);
        return MPI_SUCCESS;
    }
    if (tw_win_lost(w, at.dest)) return tw_win_lost(w, at.dest);
    uint64_t v = 0;
    unsigned spins = 0;
    int dev;
    while ((dev = tw_atomic(tw_mpi.ep, at.dest, TW_ATOMIC_FADD, 8, at.nla, at.key, (uint64_t)add, 0,
                            &v, 0, cookie_of(w))) == TW_RETRY)
        relax(&spins);
    if (!dev) dev = tw_rma_flush(tw_mpi.ep, at.dest);      /* across nodes the answer brings v */
    if (!dev) dev = tw_ep_peer_status(tw_mpi.ep, at.dest); /* ended by a loss: no value */
    rc = tw_win_completion(w, at.dest, dev);
    if (rc == MPI_SUCCESS) *old = (int64_t)v;
    return rc;
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Win win) {
    const char *call = "MPI_Compare_and_swap";
    NEED_INIT(call);
    win_t *w = win_get(win);
    if (!w) return tw_mpi_error(NULL, call, MPI_ERR_WIN, NULL);
    int es = tw_mpi_type_extent(datatype);
    unsigned char *to;
    if ((es == 8 || es == 4) && integer_type(datatype) &&
        (to = fast_target(w, target_rank, target_disp, (size_t)es)) && !acc_lock(w, target_rank)) {
        uint64_t was = get_bytes(to, es);
        if (was == get_bytes(compare_addr, es)) put_bytes(to, get_bytes(origin_addr, es), es);
        acc_unlock(w, target_rank);
        put_bytes(result_addr, was, es);
        return MPI_SUCCESS;
    }
    /* only integer, logical and byte types may be compared (MPI-3.1 11.3.4); 44: MPI_LOGICAL */
    int id = (int)((unsigned)datatype & 0xff);
    if (es <= 0 || (!integer_type(datatype) && id != 4 && id != 17 && id != 33 && id != 44))
        return tw_win_error(w, call, MPI_ERR_TYPE, NULL);
    side_t o, res, t;
    where_t at;
    int rc = acc_front(w, origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                       target_disp, 1, datatype, MPI_REPLACE, &o, &res, &t, &at);
    if (rc == 1) return MPI_SUCCESS;
    if (!rc) rc = do_acc(w, target_rank, &o, &res, &t, &at, MPI_REPLACE, compare_addr);
    return rc ? tw_win_error(w, call, rc, NULL) : MPI_SUCCESS;
}

/* ---- request-based accumulates ----
 * Complete at the target before the call returns its request. */

static int with_request(win_t *w, const char *call, int rc, MPI_Request *request) {
    if (!w) return rc;
    if (rc) return rc;
    if (!request) return tw_win_error(w, call, MPI_ERR_ARG, NULL);
    if ((rc = tw_mpi_coll_request(w->context, request))) return tw_win_error(w, call, rc, NULL);
    tw_mpi_coll_request_done(*request, MPI_SUCCESS);
    return MPI_SUCCESS;
}

int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) {
    NEED_INIT("MPI_Raccumulate");
    if (!request) return tw_mpi_error(NULL, "MPI_Raccumulate", MPI_ERR_ARG, NULL);
    int rc = acc_call("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, NULL, 0,
                      origin_datatype, 0, target_rank, target_disp, target_count, target_datatype,
                      op, win);
    return with_request(win_get(win), "MPI_Raccumulate", rc, request);
}

int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                        MPI_Request *request) {
    NEED_INIT("MPI_Rget_accumulate");
    if (!request) return tw_mpi_error(NULL, "MPI_Rget_accumulate", MPI_ERR_ARG, NULL);
    int rc = acc_call("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype,
                      result_addr, result_count, result_datatype, 1, target_rank, target_disp,
                      target_count, target_datatype, op, win);
    return with_request(win_get(win), "MPI_Rget_accumulate", rc, request);
}

/* ---- the way in of the large-count calls (rma/large_count.c) ---- */

/* fetch: the result buffer counts (the get forms); request: the request-based forms */
int tw_mpi_rma_accumulate(const char *call, const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int fetch, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                          MPI_Request *request, int with_req) {
    NEED_INIT(call);
    if (with_req && !request) return tw_mpi_error(NULL, call, MPI_ERR_ARG, NULL);
    if (!with_req && origin_datatype == target_datatype && origin_count == target_count &&
        (!fetch || (result_datatype == target_datatype && result_count == target_count)) &&
        fast_acc(win_get(win), origin_addr, fetch ? result_addr : NULL, origin_count,
                 origin_datatype, target_rank, target_disp, op))
        return MPI_SUCCESS;
    int rc = acc_call(call, origin_addr, origin_count, origin_datatype, result_addr, result_count,
                      fetch ? result_datatype : origin_datatype, fetch, target_rank, target_disp,
                      target_count, target_datatype, op, win);
    return with_req ? with_request(win_get(win), call, rc, request) : rc;
}
