/* MPI one-sided communication: what the window's units share. win.c makes, names
 * and frees windows; win_rma.c resolves targets and does put and get; win_acc.c
 * the accumulate family; win_sync.c the PSCW messages and every synchronization
 * call. The helpers on the put/get/accumulate paths are static inline here. */
#ifndef TW_MPI_WIN_H
#define TW_MPI_WIN_H

#include <stdlib.h>
#include <string.h>

#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/datatype/typemap.h"

#pragma GCC visibility push(hidden)

/* Window control messages travel as VELO messages of kind TW_MPI_WIN, and
 * notifications of window operations carry TW_WIN_COOKIE: the progress pass hands
 * both here (registered by tw_mpi_win_init), the notifications only while
 * tw_mpi_notify_waiters is non-zero. */
#define TW_WIN_COOKIE TW_MPI_COOKIE_HOOKED
void tw_mpi_win_init(void);
void tw_mpi_win_message(int source, const void *data, size_t len);
void tw_mpi_win_notification(const tw_notification_t *n);

enum { WIN_MAX = 4096 }; /* two lock words each: TW_LOCKS / 2 */
#define WIN_KIND 0xa8u
#define WRITER   ((uint64_t)1 << 40)
/* in a notification's cookie: the last piece of a request-based put or get, whose
 * request handle is in bits 16..47 */
#define REQ_COOKIE ((uint64_t)1 << 62)

/* per target access state */
enum { ACC_SHARED = 1, ACC_EXCL = 2, ACC_NOCHECK = 4, ACC_STARTED = 8 };
enum { MSG_POST = 1, MSG_COMPLETE = 2, MSG_PUT = 3, MSG_ACC = 4, MSG_ACC_ANSWER = 5 };

/* The regions attached to a dynamic window at one rank, kept in a heap block that
 * origins fetch to translate addresses, and grows (a new block, twice as large):
 * its header, in a block of its own whose address origins learn when the window
 * is made, says where the entries are now. Blocks outgrown stay until the window
 * is freed, since an origin may still be reading one. Besides each region there is
 * an entry for each run of adjacent regions (registered as one), so that an access
 * across their boundaries lies inside one entry. */
typedef struct dyn_entry {
    uint64_t base, len, nla, key;
} dyn_entry_t;
typedef struct dyn_table {
    uint64_t gen, n;   /* n entries */
    uint64_t nla, key; /* where they are */
} dyn_table_t;
/* The target's own record of an entry. */
typedef struct dyn_local {
    tw_region_t reg;
    int run; /* the entry of a run of adjacent regions, not a region attached */
} dyn_local_t;

typedef struct target {
    uint64_t nla, key;    /* the window memory at that rank (of dest's ATU) */
    MPI_Aint size;        /* bytes */
    int disp_unit;        /* as that rank gave it */
    int world;            /* its world rank: lock words, PSCW messages */
    int dest;             /* the world rank whose ATU translates nla */
    unsigned char *local; /* the memory mapped here (shm windows), else NULL */
    uint64_t *acc_word;   /* its accumulate lock word mapped here (shm windows), else NULL */
    int acc_msg;          /* 1: accumulates to it go as messages (win_acc_msg.h) */
    /* dynamic windows: the target's table, and a copy fetched at sync */
    uint64_t tab_nla, tab_key;
    dyn_entry_t *tab;
    uint64_t tab_n, tab_cap;
    unsigned tab_sync; /* w->sync when fetched, +1 (0: never) */
    /* puts sent as messages (win_put.c): the word at that rank counting those it
     * applied from us (key 0: none), and the counts on our side */
    uint64_t ctr_nla, ctr_key;
    uint64_t puts_sent, puts_seen;
} target_t;

typedef struct win {
    MPI_Win handle;
    MPI_Comm comm; /* a private duplicate: window traffic never matches the user's */
    tw_mpi_comm_t *c;
    uint32_t context;
    int rank, size;
    int flavor;
    void *base;
    MPI_Aint bytes;
    int disp_unit;
    tw_region_t region;
    int own; /* 1: region registered by tw_reg; 2: a heap block of ours */
    void *heap;
    target_t *t;
    int shm; /* every target's memory is mapped here: copies and CPU atomics */
    unsigned lock_idx, acc_idx;
    uint64_t *acc_self; /* this rank's accumulate lock word, mapped here */
    /* epochs */
    int fence;    /* an access epoch opened by a fence */
    int lock_all; /* 1, or 2 with MPI_MODE_NOCHECK */
    uint8_t *tacc;
    int started;
    int posted, npost;
    int *posts_in; /* posts received from each rank not yet taken by a start */
    int completes_in;
    int faults;
    unsigned sync;
    /* dynamic windows */
    dyn_table_t *dyn;
    tw_region_t dyn_region;
    dyn_entry_t *dyn_e; /* the entries, in a heap block of dyn_cap */
    dyn_local_t *dyn_local;
    uint64_t dyn_cap;
    void **dyn_old; /* blocks of entries outgrown */
    int ndyn_old;
    /* puts taken as messages from each rank (a heap block; NULL: none) */
    uint64_t *applied;
    tw_region_t applied_region;
    MPI_Errhandler eh;
    /* attribute values handed out by pointer */
    MPI_Aint attr_size;
    int attr_disp, attr_flavor, attr_model;
    unsigned hints; /* its info hints (win_info.c) */
    char name[MPI_MAX_OBJECT_NAME];
} win_t;

/* every window, by the index in its handle */
extern win_t *tw_win_table[WIN_MAX];

/* ---- handles and errors ---- */

/* The byte offset of displacement disp (units of unit bytes) in a window of size
 * bytes, when it and the n bytes from it lie inside: 1, else 0. A product that
 * would overflow is outside, never a wrapped offset. */
static inline int win_offset(MPI_Aint disp, int unit, MPI_Aint size, size_t n, size_t *off) {
    size_t o;
    if (disp < 0 || unit <= 0 || __builtin_mul_overflow((size_t)disp, (size_t)unit, &o) ||
        o > (size_t)size || n > (size_t)size - o)
        return 0;
    *off = o;
    return 1;
}

static inline win_t *win_get(MPI_Win h) {
    unsigned i = (unsigned)h & 0xffffff;
    return ((unsigned)h >> 24) == WIN_KIND && i < WIN_MAX ? tw_win_table[i] : NULL;
}

/* Reports errclass through the window's error handler (w NULL: MPI's default). */
int tw_win_error(win_t *w, const char *call, int errclass, const char *detail);

#define GET_WIN(call, h)                                                                           \
    NEED_INIT(call);                                                                               \
    win_t *w = win_get(h);                                                                         \
    if (!w) return tw_mpi_error(NULL, call, MPI_ERR_WIN, NULL)

/* ---- progress helpers ---- */

static inline void relax(unsigned *spins) {
    tw_mpi_progress();
    tw_mpi_relax(spins);
}

/* Takes in the notifications of window operations now: the number of translation
 * faults among them (a loss is recorded as one, not counted: tw_win_lost). */
static inline int take_faults(win_t *w) {
    tw_mpi_notify_waiters++;
    tw_mpi_progress();
    tw_mpi_notify_waiters--;
    int f = w->faults;
    w->faults = 0;
    return f;
}

static inline uint64_t cookie_of(const win_t *w) {
    return TW_WIN_COOKIE | ((unsigned)w->handle & 0xffffff);
}

/* RMA calls retried while the device's queues are full. */
static inline int rma_put_n(win_t *w, int dest, const void *src, size_t len, uint64_t nla,
                            uint64_t key, unsigned notify, uint64_t cookie) {
    unsigned spins = 0;
    int rc;
    while ((rc = tw_put(tw_mpi.ep, dest, src, len, nla, key, notify,
                        notify ? cookie : cookie_of(w))) == TW_RETRY)
        relax(&spins);
    return rc;
}

static inline int rma_get_n(win_t *w, int dest, void *dst, size_t len, uint64_t nla, uint64_t key,
                            unsigned notify, uint64_t cookie) {
    unsigned spins = 0;
    int rc;
    while ((rc = tw_get(tw_mpi.ep, dest, dst, len, nla, key, notify,
                        notify ? cookie : cookie_of(w))) == TW_RETRY)
        relax(&spins);
    return rc;
}

static inline int rma_put(win_t *w, int dest, const void *src, size_t len, uint64_t nla,
                          uint64_t key) {
    return rma_put_n(w, dest, src, len, nla, key, 0, 0);
}

static inline int rma_get(win_t *w, int dest, void *dst, size_t len, uint64_t nla, uint64_t key) {
    return rma_get_n(w, dest, dst, len, nla, key, 0, 0);
}

/* ---- the target side of an operation (win_rma.c) ---- */

/* Where an operation lands: the first byte of the target buffer (target_disp) as
 * NLA and key at dest, or as a mapped address. */
typedef struct where {
    int dest;
    uint64_t nla, key;
    unsigned char *local;
} where_t;

/* Checks that count items of a type (layout l) at target_disp lie inside rank r's
 * window, and says where they are. MPI_SUCCESS or an error class. */
int tw_win_resolve(win_t *w, int r, MPI_Aint disp, MPI_Count count, const tw_mpi_type_layout_t *l,
                   where_t *at);

/* Walks the contiguous pieces of count items of a map: offset from the buffer,
 * length, and position in the packed stream. */
typedef struct pieces {
    const tw_typemap_t *m;
    MPI_Count count, k;
    size_t b, i;
    int contig, done;
    MPI_Aint lb;
} pieces_t;

static inline void pieces_init(pieces_t *p, MPI_Datatype type, MPI_Count count,
                               const tw_mpi_type_layout_t *l) {
    *p = (pieces_t){tw_mpi_type_map(type),  count, 0, 0, 0, l->contiguous,
                    count <= 0 || !l->size, l->lb};
}

static inline int pieces_next(pieces_t *p, MPI_Aint *off, size_t *len, size_t *pos) {
    if (p->done) return 0;
    if (p->contig) {
        *off = p->lb;
        *len = (size_t)(p->count * p->m->size);
        *pos = 0;
        p->done = 1;
        return 1;
    }
    const tw_typemap_block_t *bl = &p->m->blocks[p->b];
    *off = (MPI_Aint)p->k * (p->m->ub - p->m->lb) + bl->disp + (MPI_Aint)p->i * bl->stride;
    *len = bl->len;
    *pos = (size_t)p->k * (size_t)p->m->size + bl->pos + p->i * bl->len;
    if (++p->i == bl->reps) {
        p->i = 0;
        if (++p->b == p->m->nblocks) {
            p->b = 0;
            if (++p->k == p->count) p->done = 1;
        }
    }
    return 1;
}

/* ---- checks common to every operation ---- */

static inline int access_ok(const win_t *w, int r) {
    return w->fence || w->lock_all || w->tacc[r];
}

typedef struct side {
    const void *buf;
    MPI_Count count;
    MPI_Datatype type;
    tw_mpi_type_layout_t l;
} side_t;

static inline int side_of(side_t *s, const void *buf, MPI_Count count, MPI_Datatype type) {
    if (count < 0) return MPI_ERR_COUNT;
    s->buf = buf;
    s->count = count;
    s->type = type;
    if (tw_mpi_type_layout(type, &s->l)) return MPI_ERR_TYPE;
    /* a large count whose bytes no buffer could hold */
    if (s->l.size && count > PTRDIFF_MAX / s->l.size) return MPI_ERR_COUNT;
    return MPI_SUCCESS;
}

static inline size_t side_bytes(const side_t *s) {
    return (size_t)(s->count * s->l.size);
}

/* The packed bytes of an origin buffer: the buffer itself when contiguous, else a
 * packed copy in *tmp (freed by the caller). */
static inline const unsigned char *packed_of(const side_t *s, unsigned char **tmp) {
    *tmp = NULL;
    if (s->l.contiguous) return (const unsigned char *)s->buf + s->l.lb;
    size_t n = side_bytes(s);
    if (!(*tmp = malloc(n ? n : 1))) return NULL;
    tw_mpi_type_pack(s->buf, s->count, s->type, *tmp);
    return *tmp;
}
/* ---- puts as messages (win_put.c) ---- */

/* A put the target applies from messages, when it is many small pieces there:
 * *taken = 1 when it went so. MPI_SUCCESS or an error class. */
int tw_win_put_batched(win_t *w, int r, const side_t *o, const side_t *t, const where_t *at,
                       int *taken);
/* (win_rma.c) A read from window rank r waited for under the whole MPI progress. */
int tw_win_get_waiting(win_t *w, int r, void *dst, size_t len, uint64_t nla, uint64_t key);
/* Waits until rank r applied every such put of ours: TW_OK or a device status. */
int tw_win_put_wait(win_t *w, int r);
/* A put message from world rank source: 1 when applied, 0 when dropped (not one, or
 * not landing inside the window). */
int tw_win_put_take(win_t *const *table, int source, const void *data, size_t len);

/* ---- the library's own atomics (win_acc.c) ---- */

/* An 8-byte fetch-and-add at disp of rank r of win by one atomic of the CPU or the
 * device, without the accumulate lock word, the old value in *old: for a window of the
 * library's own whose every update is one of these (the shared file pointer), where a
 * lock, a read and a write back would be three round trips across nodes. Only for
 * windows made by MPI_Win_allocate (the shared heap, which the device's atomics reach);
 * mixed with MPI's accumulates on the same bytes it would not be atomic. MPI_SUCCESS
 * or an error code. */
int tw_win_fetch_add(MPI_Win win, int r, MPI_Aint disp, int64_t add, int64_t *old);

/* An accumulate message (win_acc_msg.h) from world rank source, for one of the windows
 * of table: applied and answered, 1; 0 when dropped (not one). */
int tw_win_acc_take(win_t *const *table, int source, const void *data, size_t len);
/* An answer to one of this rank's accumulate messages: 1 when one waited for it. */
int tw_win_acc_answer_take(int source, const void *data, size_t len);

/* ---- synchronization (win_sync.c) ---- */

/* An atomic on lock word idx of world rank `world`; the old value once it is known. */
int tw_win_lock_atomic(win_t *w, int world, tw_atomic_op_t op, unsigned idx, uint64_t a, uint64_t b,
                       uint64_t *old);
/* Every operation of this process to the window's targets completed there. */
int tw_win_flush_all(win_t *w);

/* ---- a lost peer (win_sync.c) ----
 * The one place where what the device says about a lost peer (TW_ERR_LOST,
 * TW_ERR_RESET or TW_ERR_DESYNC from a call or in a notification, tw_ep_peer_status) becomes an MPI
 * error of a window: a call that involves a lost peer (an operation or
 * synchronization toward it; a call on every member, or on a group, that contains
 * it; a wait for a PSCW message that has not come, once any member is lost) reports
 * the peer's code, of class MPIX_ERR_PROC_FAILED, before any check of the epoch's
 * state, and no other class comes out of the loss. */

/* The code of a loss that concerns a call toward world rank peer, or with peer -1
 * toward every member of w: peer's, or a lost member's; 0 when MPI knows of none
 * (one load while no peer is lost). */
int tw_win_lost(const win_t *w, int peer);
/* The error of device status rc (not TW_OK) of an operation of w toward world rank
 * peer (-1: toward several members; w may be NULL when peer is given): the code of
 * the lost peer (recorded now, if its notice is still in the mailbox) when rc says a
 * peer is lost, MPI_ERR_RMA_RANGE for a translation fault, else MPI_ERR_OTHER. */
int tw_win_device_error(const win_t *w, int peer, int rc);
/* After a flush toward world rank peer (-1: every member) that returned rc:
 * MPI_SUCCESS, or the error of what went wrong meanwhile (rc, a translation fault,
 * a loss that concerns the call: the loss first). */
int tw_win_completion(win_t *w, int peer, int rc);

/* for the large-count forms (MPI_Count counts; the int forms call these too) */
/* get 0: a put, 1: a get; request NULL: not request-based */
int tw_mpi_rma_put_get(const char *call, int get, void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                       MPI_Request *request);
/* fetch: the get forms (the result buffer counts); with_req: the request-based forms */
int tw_mpi_rma_accumulate(const char *call, const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int fetch, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                          MPI_Request *request, int with_req);

/* The hints info gives a window (win_info.c), as bits of its hints field: the value
 * for the hints given by info over the current ones. */
unsigned tw_mpi_win_hints(MPI_Info info, unsigned current);

/* MPI_Win_get_attr of a key of the program's (win_attr.c): MPI_ERR_KEYVAL when it is
 * none. */
int tw_mpi_win_attr_get(MPI_Win win, int win_keyval, void *attribute_val, int *flag);

#pragma GCC visibility pop

#endif
