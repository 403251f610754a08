/* MPI one-sided communication on the device's RMA and atomics (MPI-3.1 chapter 11),
 * as the EXTOLL thesis mapped MPI-2's (section 8.6): put and get are RMA put and
 * get, passive-target locks are FCAA words in the targets' lock regions, and the
 * accumulate family is atomic per basic element.
 *
 * Memory. A window's memory at each rank is named by NLA and key (exchanged when the
 * window is made). When every rank's memory is a shared-heap block that this process
 * can map (MPI_Win_allocate, MPI_Win_allocate_shared, MPI_Win_create of MPI_Alloc_mem
 * memory, all ranks on one node), the window is a "shm" window: puts and gets are
 * plain copies into the mapped memory, and accumulates are CPU atomics on it. Any
 * other window goes through tw_put / tw_get: on one node the initiator moves the data
 * itself (process_vm_readv/writev), across nodes the target's device does.
 *
 * Accumulates are atomic per basic element against each other, consistently within
 * a window: on a shm window, elements of 1, 2, 4 or 8 bytes are updated with CPU
 * atomics (fetch-add, exchange, or a compare-and-swap loop); wider elements, and
 * every accumulate of any other window, take the target's per-window accumulate
 * lock word (a CAS in its lock region), then get, combine, put, flush, release.
 *
 * Synchronization. Fence: every operation of this process completes at its targets
 * (tw_rma_flush), then a barrier on the window's own communicator. PSCW: post and
 * complete are VELO messages (tag TW_MPI_WIN) counted at the receiver. Lock: one
 * 64-bit lock word per window at every target, the same index everywhere (agreed
 * when the window is made): exclusive = CAS 0 -> WRITER, shared = FCAA(WRITER - 1, 1),
 * which adds only while no writer holds it; unlock subtracts after a flush. On one
 * node none of this needs the target's participation.
 *
 * Every operation completes at the target by the next synchronization; the
 * request-based ones complete (remotely) before they return their request. Faults
 * of the device (a detached or freed region) come back as error notifications with
 * the window's cookie and are reported at the next synchronization call.
 *
 * This file makes, names and frees windows; win.h holds what the units share,
 * win_rma.c the target side and put and get, win_acc.c the accumulate family,
 * win_sync.c the PSCW messages and every synchronization call. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/comm/attr.h"
#include "mpi/comm/comm.h"
#include "mpi/env/errhandler.h"
#include "mpi/env/error.h"
#include "mpi/env/info.h"
#include "mpi/pt2pt/engine_progress.h"
#include "mpi/env/state.h"
#include "mpi/rma/win.h"
#include "mpi/rma/win_acc_msg.h"
#include "mpi/pt2pt/wire.h"

win_t *tw_win_table[WIN_MAX];

/* The handlers the windows hold, for the handlers' sweep (env/errhandler.c). */
static void eh_holders(tw_mpi_eh_mark_fn *mark, unsigned char *in_use) {
    for (int k = 0; k < WIN_MAX; k++)
        if (tw_win_table[k]) mark(in_use, tw_win_table[k]->eh);
}

void tw_mpi_win_init(void) {
    tw_mpi_progress_on_message(TW_MPI_WIN, tw_mpi_win_message);
    tw_mpi_progress_on_notification(tw_mpi_win_notification);
    tw_mpi_eh_holders(TW_EH_WIN, eh_holders);
}
static uint64_t locks_used[TW_LOCKS / 64];

/* MPI_Alloc_mem blocks, so that a window made on one is a heap window */
typedef struct mem_block {
    void *base;
    size_t len;
    tw_region_t region;
    struct mem_block *next;
} mem_block_t;
static mem_block_t *mem_blocks;

/* ---- handles and errors ---- */

int tw_win_error(win_t *w, const char *call, int errclass, const char *detail) {
    if (!w) return tw_mpi_error(NULL, call, errclass, detail);
    if (w->eh == MPI_ERRORS_RETURN) return errclass;
    MPI_Win h = w->handle;
    if (tw_mpi_eh_call(w->eh, &h, &errclass)) return errclass;
    tw_mpi_comm_t fatal = {.errhandler = w->eh == MPI_ERRORS_ABORT ? w->eh : MPI_ERRORS_ARE_FATAL};
    return tw_mpi_error(&fatal, call, errclass, detail);
}

/* ---- creation and destruction ---- */

typedef struct exchange {
    uint64_t nla, key, tab_nla, tab_key, ctr_nla, ctr_key;
    int64_t size;
    int32_t disp_unit;
    int32_t served; /* a progress thread serves its device: RMA needs no MPI call there */
} exchange_t;

/* A new window over comm, up to the exchange: its duplicate communicator, table
 * entry and lock words. */
/* Under MPI_THREAD_MULTIPLE other threads may make windows while this one waits in
 * its allreduces: the table slot and the lock words picked are held until the window
 * takes them (or fails), and the members agree that nobody saw its pick taken
 * meanwhile (2: all can; 1: one cannot, pick again; the lowest wins). */
static unsigned char slot_held[WIN_MAX];
static uint64_t locks_held[TW_LOCKS / 64];

static int lock_taken(int k) {
    return (int)((locks_used[k / 64] | locks_held[k / 64]) >> (k % 64) & 1);
}

static void hold_locks(int l1, int l2, int on) {
    uint64_t b1 = (uint64_t)1 << (l1 % 64), b2 = (uint64_t)1 << (l2 % 64);
    if (on) {
        locks_held[l1 / 64] |= b1;
        locks_held[l2 / 64] |= b2;
    } else {
        locks_held[l1 / 64] &= ~b1;
        locks_held[l2 / 64] &= ~b2;
    }
}

/* A free table slot here (-1: none) and two lock words free at every member (l2 -1:
 * none), every member agreeing on success; on success all three are held (the
 * caller lets go once the window has them). */
static int pick(MPI_Comm comm, int *idx, int *l1, int *l2) {
    *idx = -1;
    for (int i = 1; i < WIN_MAX && *idx < 0; i++)
        if (!tw_win_table[i] && !slot_held[i]) *idx = i;
    if (*idx >= 0) slot_held[*idx] = 1;
    for (;;) {
        /* every member must agree on success: the slot and lock words are agreed here */
        uint64_t used[TW_LOCKS / 64 + 1];
        for (int w = 0; w < TW_LOCKS / 64; w++) used[w] = locks_used[w] | locks_held[w];
        used[TW_LOCKS / 64] = *idx < 0;
        int rc = MPI_Allreduce(MPI_IN_PLACE, used, TW_LOCKS / 64 + 1, MPI_UINT64_T, MPI_BOR, comm);
        *l1 = *l2 = -1;
        for (int k = 0; !rc && k < TW_LOCKS && *l2 < 0; k++)
            if (!(used[k / 64] >> (k % 64) & 1)) {
                if (*l1 < 0)
                    *l1 = k;
                else
                    *l2 = k;
            }
        if (!rc && used[TW_LOCKS / 64]) *l2 = -1;
        if (rc || *l2 < 0) {
            if (*idx >= 0) slot_held[*idx] = 0;
            return rc;
        }
        if (!tw_mpi_threads_on) {
            hold_locks(*l1, *l2, 1);
            return MPI_SUCCESS;
        }
        int mine = lock_taken(*l1) || lock_taken(*l2) ? 1 : 2, all = mine;
        if (mine == 2) hold_locks(*l1, *l2, 1);
        rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
        if (!rc && all == 2) return MPI_SUCCESS;
        if (mine == 2) hold_locks(*l1, *l2, 0);
        if (rc) {
            if (*idx >= 0) slot_held[*idx] = 0;
            return rc;
        }
    }
}

static int win_new(const char *call, MPI_Comm comm, int flavor, win_t **out) {
    tw_mpi_comm_t *pc = tw_mpi_comm_get(comm);
    if (!pc) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    if (pc->inter) return tw_mpi_error(pc, call, MPI_ERR_COMM, "an intercommunicator");
    int idx, l1, l2;
    int rc = pick(comm, &idx, &l1, &l2);
    if (rc) return rc;
    if (idx < 0 || l2 < 0)
        return tw_mpi_error(pc, call, MPI_ERR_NO_MEM, "no free window (or lock word) left");
    win_t *w = calloc(1, sizeof *w);
    if (w) rc = MPI_Comm_dup(comm, &w->comm); /* other threads may run meanwhile */
    slot_held[idx] = 0;
    hold_locks(l1, l2, 0);
    if (!w) return tw_mpi_error(pc, call, MPI_ERR_NO_MEM, NULL);
    if (rc) {
        free(w);
        return rc;
    }
    w->c = tw_mpi_comm_get(w->comm);
    w->context = w->c->context;
    w->rank = w->c->rank;
    w->size = w->c->size;
    w->flavor = flavor;
    w->lock_idx = (unsigned)l1;
    w->acc_idx = (unsigned)l2;
    w->eh = MPI_ERRORS_ARE_FATAL;
    w->handle = (MPI_Win)(WIN_KIND << 24 | (unsigned)idx);
    w->t = calloc((size_t)w->size, sizeof *w->t);
    w->tacc = calloc((size_t)w->size, 1);
    w->posts_in = calloc((size_t)w->size, sizeof *w->posts_in);
    if (!w->t || !w->tacc || !w->posts_in) {
        MPI_Comm_free(&w->comm);
        free(w->t);
        free(w->tacc);
        free(w->posts_in);
        free(w);
        return tw_mpi_error(pc, call, MPI_ERR_NO_MEM, NULL);
    }
    locks_used[l1 / 64] |= (uint64_t)1 << (l1 % 64);
    locks_used[l2 / 64] |= (uint64_t)1 << (l2 % 64);
    for (int r = 0; r < w->size; r++) w->t[r].world = w->t[r].dest = tw_mpi_world_rank(w->c, r);
    tw_win_table[idx] = w; /* from now on PSCW messages for it are taken in */
    *out = w;
    return MPI_SUCCESS;
}

static void win_release(win_t *w) {
    tw_win_table[(unsigned)w->handle & 0xffffff] = NULL;
    if (w->applied) tw_heap_free(tw_mpi.ep, w->applied);
    locks_used[w->lock_idx / 64] &= ~((uint64_t)1 << (w->lock_idx % 64));
    locks_used[w->acc_idx / 64] &= ~((uint64_t)1 << (w->acc_idx % 64));
    for (int r = 0; r < w->size; r++) free(w->t[r].tab);
    free(w->t);
    free(w->tacc);
    free(w->posts_in);
    MPI_Comm_free(&w->comm);
    free(w);
}

/* On a shm window every accumulate to a rank holds that rank's accumulate lock word
 * through its mapping here (win_acc.c); a word not mapped leaves the device's atomics
 * to take it. */
static void map_acc_words(win_t *w) {
    for (int r = 0; w->shm && r < w->size; r++)
        w->t[r].acc_word = tw_heap_local_addr(tw_mpi.ep, w->t[r].world, tw_lock_nla(w->acc_idx), 0,
                                              sizeof(uint64_t));
}

/* Exchanges what each rank's window memory is, and decides whether the window is a
 * shm one. Collective; every member returns the same. */
static int win_exchange(win_t *w, const char *call) {
    exchange_t mine = {w->region.nla,
                       w->region.key,
                       0,
                       0,
                       0,
                       0,
                       (int64_t)w->bytes,
                       w->disp_unit,
                       tw_ep_progress_thread(tw_mpi.ep)};
    /* the counts of puts taken as messages (win_put.c); without them none are sent */
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC &&
        (w->applied =
             tw_heap_alloc(tw_mpi.ep, (size_t)w->size * sizeof *w->applied, &w->applied_region))) {
        memset(w->applied, 0, (size_t)w->size * sizeof *w->applied);
        mine.ctr_nla = w->applied_region.nla;
        mine.ctr_key = w->applied_region.key;
    }
    if (w->dyn) {
        mine.tab_nla = w->dyn_region.nla;
        mine.tab_key = w->dyn_region.key;
    }
    exchange_t *all = malloc((size_t)w->size * sizeof *all);
    if (!all) return tw_win_error(w, call, MPI_ERR_NO_MEM, NULL);
    int rc = MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, w->comm);
    if (rc) {
        free(all);
        return rc;
    }
    int shm = w->flavor != MPI_WIN_FLAVOR_DYNAMIC;
    for (int r = 0; r < w->size; r++) {
        target_t *t = &w->t[r];
        t->nla = all[r].nla;
        t->key = all[r].key;
        t->size = (MPI_Aint)all[r].size;
        t->disp_unit = all[r].disp_unit;
        t->tab_nla = all[r].tab_nla;
        t->tab_key = all[r].tab_key;
        t->ctr_nla = all[r].ctr_nla;
        t->ctr_key = all[r].ctr_key;
        t->acc_msg = !all[r].served; /* decided below */
        if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC || !t->size) continue;
        t->local = r == w->rank && w->own != 1
                       ? w->base
                       : tw_heap_local_addr(tw_mpi.ep, t->world, t->nla, t->key, (size_t)t->size);
        if (!t->local) shm = 0;
    }
    free(all);
    rc = MPI_Allreduce(MPI_IN_PLACE, &shm, 1, MPI_INT, MPI_MIN, w->comm);
    if (rc) return rc;
    w->shm = shm;
    if (!shm)
        for (int r = 0; r < w->size; r++) w->t[r].local = NULL;
    map_acc_words(w);
    /* accumulates to a rank whose device moves RMA only when the rank makes progress
     * (no progress thread serves it) go as one message it applies (win_acc_msg.h), when
     * the link carries one that large */
    w->acc_self = tw_heap_local_addr(tw_mpi.ep, w->t[w->rank].world, tw_lock_nla(w->acc_idx), 0,
                                     sizeof(uint64_t));
    for (int r = 0; r < w->size; r++) {
        tw_link_caps_t caps;
        w->t[r].acc_msg =
            w->t[r].acc_msg && !shm && w->flavor != MPI_WIN_FLAVOR_DYNAMIC && r != w->rank &&
            w->acc_self && tw_ep_link_caps(tw_mpi.ep, w->t[r].world, &caps) == TW_OK &&
            !caps.rma_by_initiator && caps.velo_max >= sizeof(acc_msg_t) + 2 * TW_WIN_ACC_BYTES_MAX;
    }
    return MPI_SUCCESS;
}

static int check_create(const char *call, MPI_Aint size, int disp_unit, MPI_Info info, void *out) {
    if (!tw_mpi_info_ok(info)) return tw_mpi_error(NULL, call, MPI_ERR_INFO, NULL);
    if (size < 0) return tw_mpi_error(NULL, call, MPI_ERR_SIZE, "negative size");
    if (disp_unit <= 0) return tw_mpi_error(NULL, call, MPI_ERR_DISP, "disp_unit must be > 0");
    if (!out) return tw_mpi_error(NULL, call, MPI_ERR_ARG, NULL);
    return MPI_SUCCESS;
}

static mem_block_t *mem_block_of(const void *base, size_t len) {
    for (mem_block_t *b = mem_blocks; b; b = b->next)
        if ((const char *)base >= (char *)b->base &&
            (size_t)((const char *)base - (char *)b->base) + len <= b->len)
            return b;
    return NULL;
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win) {
    NEED_INIT("MPI_Win_create");
    int rc = check_create("MPI_Win_create", size, disp_unit, info, win);
    if (rc) return rc;
    win_t *w;
    if ((rc = win_new("MPI_Win_create", comm, MPI_WIN_FLAVOR_CREATE, &w))) return rc;
    w->base = base;
    w->bytes = size;
    w->disp_unit = disp_unit;
    int fail = 0;
    if (size > 0) {
        mem_block_t *b = base ? mem_block_of(base, (size_t)size) : NULL;
        if (b) { /* MPI_Alloc_mem memory: a heap window */
            w->region = b->region;
            w->region.nla += (uint64_t)((char *)base - (char *)b->base);
            w->own = 3;
        } else if (!base || tw_reg(tw_mpi.ep, base, (size_t)size, TW_PERM_READ | TW_PERM_WRITE,
                                   &w->region)) {
            fail = 1;
        } else {
            w->own = 1;
        }
    }
    rc = MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, w->comm);
    if (!rc && fail) rc = MPI_ERR_NO_MEM;
    if (!rc) rc = win_exchange(w, "MPI_Win_create");
    if (rc) {
        if (w->own == 1) tw_dereg(tw_mpi.ep, &w->region);
        win_release(w);
        return tw_mpi_error(tw_mpi_comm_get(comm), "MPI_Win_create", rc,
                            fail ? "cannot register the memory" : NULL);
    }
    w->hints = tw_mpi_win_hints(info, 0);
    *win = w->handle;
    return MPI_SUCCESS;
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win) {
    NEED_INIT("MPI_Win_allocate");
    int rc = check_create("MPI_Win_allocate", size, disp_unit, info, win);
    if (!rc && !baseptr) rc = tw_mpi_error(NULL, "MPI_Win_allocate", MPI_ERR_ARG, NULL);
    if (rc) return rc;
    win_t *w;
    if ((rc = win_new("MPI_Win_allocate", comm, MPI_WIN_FLAVOR_ALLOCATE, &w))) return rc;
    w->bytes = size;
    w->disp_unit = disp_unit;
    int fail = 0;
    if (size > 0) {
        w->heap = w->base = tw_heap_alloc(tw_mpi.ep, (size_t)size, &w->region);
        fail = !w->base;
        w->own = 2;
    }
    rc = MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, w->comm);
    if (!rc && fail) rc = MPI_ERR_NO_MEM;
    if (!rc) rc = win_exchange(w, "MPI_Win_allocate");
    if (rc) {
        if (w->heap) tw_heap_free(tw_mpi.ep, w->heap);
        win_release(w);
        return tw_mpi_error(tw_mpi_comm_get(comm), "MPI_Win_allocate", rc, NULL);
    }
    *(void **)baseptr = w->base;
    w->hints = tw_mpi_win_hints(info, 0);
    *win = w->handle;
    return MPI_SUCCESS;
}

/* One heap block at rank 0 holds every rank's part, one after the other (MPI's
 * default: contiguous across ranks); each rank maps it. */
int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win) {
    const char *call = "MPI_Win_allocate_shared";
    NEED_INIT(call);
    int rc = check_create(call, size, disp_unit, info, win);
    if (!rc && !baseptr) rc = tw_mpi_error(NULL, call, MPI_ERR_ARG, NULL);
    if (rc) return rc;
    win_t *w;
    if ((rc = win_new(call, comm, MPI_WIN_FLAVOR_SHARED, &w))) return rc;
    w->bytes = size;
    w->disp_unit = disp_unit;
    int64_t *sizes = malloc((size_t)w->size * 2 * sizeof *sizes);
    if (!sizes) {
        win_release(w);
        return tw_mpi_error(tw_mpi_comm_get(comm), call, MPI_ERR_NO_MEM, NULL);
    }
    int64_t me[2] = {size, disp_unit};
    rc = MPI_Allgather(me, 2, MPI_INT64_T, sizes, 2, MPI_INT64_T, w->comm);
    int64_t total = 0;
    for (int r = 0; !rc && r < w->size; r++) total += sizes[2 * r];
    uint64_t blk[3] = {0, 0, 0}; /* nla, key, failed */
    if (!rc && w->rank == 0) {
        w->heap = tw_heap_alloc(tw_mpi.ep, total ? (size_t)total : 1, &w->region);
        blk[0] = w->region.nla;
        blk[1] = w->region.key;
        blk[2] = !w->heap;
        w->own = 2;
    }
    if (!rc) rc = MPI_Bcast(blk, 3, MPI_UINT64_T, 0, w->comm);
    int fail = rc || blk[2];
    unsigned char *at = NULL;
    if (!fail) {
        at = w->rank == 0 ? w->heap
                          : tw_heap_local_addr(tw_mpi.ep, w->t[0].world, blk[0], blk[1],
                                               total ? (size_t)total : 1);
        fail = !at;
    }
    if (!rc) rc = MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, w->comm);
    if (!rc && fail) rc = blk[2] ? MPI_ERR_NO_MEM : MPI_ERR_RMA_SHARED;
    if (rc) {
        free(sizes);
        if (w->heap) tw_heap_free(tw_mpi.ep, w->heap);
        win_release(w);
        return tw_mpi_error(tw_mpi_comm_get(comm), call, rc,
                            rc == MPI_ERR_RMA_SHARED ? "the ranks are not on one node" : NULL);
    }
    int64_t off = 0;
    for (int r = 0; r < w->size; r++) {
        target_t *t = &w->t[r];
        t->nla = blk[0] + (uint64_t)off;
        t->key = blk[1];
        t->size = (MPI_Aint)sizes[2 * r];
        t->disp_unit = (int)sizes[2 * r + 1];
        t->dest = w->t[0].world;
        t->local = at + off;
        off += sizes[2 * r];
    }
    free(sizes);
    w->base = w->t[w->rank].local;
    w->shm = 1;
    map_acc_words(w);
    *(void **)baseptr = w->base;
    w->hints = tw_mpi_win_hints(info, 0);
    *win = w->handle;
    return MPI_SUCCESS;
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr) {
    GET_WIN("MPI_Win_shared_query", win);
    /* MPI-4.1: any flavor but the dynamic one, whose memory is attached piecewise */
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return tw_win_error(w, "MPI_Win_shared_query", MPI_ERR_RMA_FLAVOR,
                            "a dynamic window (its memory is attached, not queried)");
    if (!size || !disp_unit || !baseptr)
        return tw_win_error(w, "MPI_Win_shared_query", MPI_ERR_ARG, NULL);
    if (rank == MPI_PROC_NULL) { /* the first rank with memory */
        for (rank = 0; rank < w->size - 1 && !w->t[rank].size; rank++)
            ;
    }
    if (rank < 0 || rank >= w->size)
        return tw_win_error(w, "MPI_Win_shared_query", MPI_ERR_RANK, NULL);
    /* the memory of a created or allocated window is the caller's own, or mapped
     * here when every target's is (w->shm); any other is not shared with the
     * caller: size 0 and NULL, as MPI-4.1 has it */
    int shm_flavor = w->flavor == MPI_WIN_FLAVOR_SHARED;
    void *local = !shm_flavor && rank == w->rank ? w->base : w->t[rank].local;
    *size = shm_flavor || local ? w->t[rank].size : 0;
    *disp_unit = w->t[rank].disp_unit;
    /* a shared window's segment of no bytes is at NULL, as MPICH has it, not where the
     * next rank's begins (nothing of it may be touched) */
    *(void **)baseptr = shm_flavor && !*size ? NULL : local;
    return MPI_SUCCESS;
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win) {
    const char *call = "MPI_Win_create_dynamic";
    NEED_INIT(call);
    if (!tw_mpi_info_ok(info)) return tw_mpi_error(NULL, call, MPI_ERR_INFO, NULL);
    if (!win) return tw_mpi_error(NULL, call, MPI_ERR_ARG, NULL);
    win_t *w;
    int rc = win_new(call, comm, MPI_WIN_FLAVOR_DYNAMIC, &w);
    if (rc) return rc;
    w->disp_unit = 1;
    w->dyn = tw_heap_alloc(tw_mpi.ep, sizeof(dyn_table_t), &w->dyn_region);
    int fail = !w->dyn;
    if (w->dyn) memset(w->dyn, 0, sizeof *w->dyn);
    rc = MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, w->comm);
    if (!rc && fail) rc = MPI_ERR_NO_MEM;
    if (!rc) rc = win_exchange(w, call);
    if (rc) {
        if (w->dyn) tw_heap_free(tw_mpi.ep, w->dyn);
        win_release(w);
        return tw_mpi_error(tw_mpi_comm_get(comm), call, rc, NULL);
    }
    w->hints = tw_mpi_win_hints(info, 0);
    *win = w->handle;
    return MPI_SUCCESS;
}

/* ---- the table of a dynamic window ---- */

/* Room for one more entry: the entries move to a block twice as large when full.
 * MPI_SUCCESS or MPI_ERR_NO_MEM. */
static int dyn_room(win_t *w) {
    dyn_table_t *d = w->dyn;
    if (d->n < w->dyn_cap) return MPI_SUCCESS;
    uint64_t cap = w->dyn_cap ? 2 * w->dyn_cap : 16;
    tw_region_t r;
    dyn_local_t *l = realloc(w->dyn_local, cap * sizeof *l);
    if (l) w->dyn_local = l;
    void **old = realloc(w->dyn_old, ((size_t)w->ndyn_old + 1) * sizeof *old);
    if (old) w->dyn_old = old;
    dyn_entry_t *e = l && old ? tw_heap_alloc(tw_mpi.ep, cap * sizeof *e, &r) : NULL;
    if (!e) return MPI_ERR_NO_MEM;
    if (d->n) memcpy(e, w->dyn_e, d->n * sizeof *e);
    if (w->dyn_e) w->dyn_old[w->ndyn_old++] = w->dyn_e; /* an origin may be reading it */
    w->dyn_e = e;
    w->dyn_cap = cap;
    __atomic_store_n(&d->key, r.key, __ATOMIC_RELAXED);
    __atomic_store_n(&d->nla, r.nla, __ATOMIC_RELEASE);
    __atomic_fetch_add(&d->gen, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

/* A new entry for [base, base + len): a region attached, or a run of them. */
static int dyn_add(win_t *w, uint64_t base, uint64_t len, int run) {
    int rc = dyn_room(w);
    if (rc) return rc;
    dyn_table_t *d = w->dyn;
    dyn_local_t *l = &w->dyn_local[d->n];
    if (tw_reg(tw_mpi.ep, (void *)(uintptr_t)base, (size_t)len, TW_PERM_READ | TW_PERM_WRITE,
               &l->reg))
        return MPI_ERR_RMA_ATTACH;
    l->run = run;
    w->dyn_e[d->n] = (dyn_entry_t){base, len, l->reg.nla, l->reg.key};
    __atomic_store_n(&d->n, d->n + 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&d->gen, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

static void dyn_remove(win_t *w, uint64_t i) {
    dyn_table_t *d = w->dyn;
    uint64_t last = d->n - 1;
    tw_dereg(tw_mpi.ep, &w->dyn_local[i].reg);
    w->dyn_e[i] = w->dyn_e[last];
    w->dyn_local[i] = w->dyn_local[last];
    __atomic_store_n(&d->n, last, __ATOMIC_RELEASE);
    __atomic_fetch_add(&d->gen, 1, __ATOMIC_RELEASE);
}

/* Drops the run entries that overlap [lo, hi). */
static void dyn_drop_runs(win_t *w, uint64_t lo, uint64_t hi) {
    for (uint64_t i = w->dyn->n; i-- > 0;)
        if (w->dyn_local[i].run && w->dyn_e[i].base < hi && lo < w->dyn_e[i].base + w->dyn_e[i].len)
            dyn_remove(w, i);
}

/* The run of adjacent regions around the region [lo, hi): one entry for all of
 * them when there are several. Without room or registration, accesses across
 * their boundaries are refused, as before. */
static void dyn_run(win_t *w, uint64_t lo, uint64_t hi) {
    int regions = 1;
    for (int grew = 1; grew;) {
        grew = 0;
        for (uint64_t i = 0; i < w->dyn->n; i++) {
            const dyn_entry_t *e = &w->dyn_e[i];
            if (w->dyn_local[i].run) continue;
            if (e->base + e->len == lo) {
                lo = e->base;
                grew = 1;
                regions++;
            } else if (e->base == hi) {
                hi = e->base + e->len;
                grew = 1;
                regions++;
            }
        }
    }
    dyn_drop_runs(w, lo, hi);
    if (regions > 1) dyn_add(w, lo, hi - lo, 1);
}

int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size) {
    GET_WIN("MPI_Win_attach", win);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return tw_win_error(w, "MPI_Win_attach", MPI_ERR_RMA_FLAVOR, "not a dynamic window");
    if (size < 0) return tw_win_error(w, "MPI_Win_attach", MPI_ERR_SIZE, NULL);
    if (!size) return MPI_SUCCESS;
    if (!base) return tw_win_error(w, "MPI_Win_attach", MPI_ERR_RMA_ATTACH, "no memory");
    dyn_table_t *d = w->dyn;
    uint64_t b = (uint64_t)(uintptr_t)base, len = (uint64_t)size;
    if (b + len < b) return tw_win_error(w, "MPI_Win_attach", MPI_ERR_SIZE, NULL);
    for (uint64_t i = 0; i < d->n; i++)
        if (!w->dyn_local[i].run && b < w->dyn_e[i].base + w->dyn_e[i].len &&
            w->dyn_e[i].base < b + len)
            return tw_win_error(w, "MPI_Win_attach", MPI_ERR_RMA_ATTACH,
                                "overlaps memory attached already");
    int rc = dyn_add(w, b, len, 0);
    if (rc)
        return tw_win_error(w, "MPI_Win_attach", rc,
                            rc == MPI_ERR_NO_MEM ? NULL : "cannot register the memory");
    dyn_run(w, b, b + len);
    return MPI_SUCCESS;
}

int MPI_Win_detach(MPI_Win win, const void *base) {
    GET_WIN("MPI_Win_detach", win);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return tw_win_error(w, "MPI_Win_detach", MPI_ERR_RMA_FLAVOR, "not a dynamic window");
    dyn_table_t *d = w->dyn;
    for (uint64_t i = 0; i < d->n; i++) {
        if (w->dyn_local[i].run || w->dyn_e[i].base != (uint64_t)(uintptr_t)base) continue;
        uint64_t lo = w->dyn_e[i].base, hi = lo + w->dyn_e[i].len;
        dyn_drop_runs(w, lo, hi); /* moves entries: find the region again */
        for (i = 0; w->dyn_e[i].base != lo || w->dyn_local[i].run; i++) continue;
        dyn_remove(w, i);
        /* what stays on either side may still be runs */
        for (uint64_t k = 0; k < d->n; k++) {
            const dyn_entry_t *e = &w->dyn_e[k];
            if (!w->dyn_local[k].run && e->base + e->len == lo) {
                dyn_run(w, e->base, lo);
                break;
            }
        }
        for (uint64_t k = 0; k < d->n; k++) {
            const dyn_entry_t *e = &w->dyn_e[k];
            if (!w->dyn_local[k].run && e->base == hi) {
                dyn_run(w, hi, e->base + e->len);
                break;
            }
        }
        return MPI_SUCCESS;
    }
    return tw_win_error(w, "MPI_Win_detach", MPI_ERR_RMA_ATTACH, "no memory attached there");
}

int MPI_Win_free(MPI_Win *win) {
    NEED_INIT("MPI_Win_free");
    win_t *w = win ? win_get(*win) : NULL;
    if (!w) return tw_mpi_error(NULL, "MPI_Win_free", MPI_ERR_WIN, NULL);
    int held = w->lock_all || w->started || w->posted;
    for (int r = 0; r < w->size && !held; r++) held = w->tacc[r] != 0;
    if (held) return tw_win_error(w, "MPI_Win_free", MPI_ERR_RMA_SYNC, "an epoch is still open");
    int arc = tw_mpi_attr_object_free(w->handle); /* an error keeps the window */
    if (arc) return tw_win_error(w, "MPI_Win_free", arc, "an attribute's delete callback failed");
    int rc = tw_win_completion(w, -1, tw_win_flush_all(w));
    /* nobody frees memory a peer may still reach */
    int brc = MPI_Barrier(w->comm);
    if (w->own == 1) tw_dereg(tw_mpi.ep, &w->region);
    if (w->heap) tw_heap_free(tw_mpi.ep, w->heap);
    if (w->dyn) {
        for (uint64_t i = 0; i < w->dyn->n; i++) tw_dereg(tw_mpi.ep, &w->dyn_local[i].reg);
        tw_heap_free(tw_mpi.ep, w->dyn);
        if (w->dyn_e) tw_heap_free(tw_mpi.ep, w->dyn_e);
        for (int k = 0; k < w->ndyn_old; k++) tw_heap_free(tw_mpi.ep, w->dyn_old[k]);
        free(w->dyn_local);
        free(w->dyn_old);
    }
    win_release(w);
    *win = MPI_WIN_NULL;
    if (!rc) rc = brc;
    return rc ? tw_mpi_error(NULL, "MPI_Win_free", rc, NULL) : MPI_SUCCESS;
}

/* ---- memory ---- */

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr) {
    NEED_INIT("MPI_Alloc_mem");
    if (size < 0) return tw_mpi_error(NULL, "MPI_Alloc_mem", MPI_ERR_SIZE, NULL);
    if (!tw_mpi_info_ok(info)) return tw_mpi_error(NULL, "MPI_Alloc_mem", MPI_ERR_INFO, NULL);
    if (!baseptr) return tw_mpi_error(NULL, "MPI_Alloc_mem", MPI_ERR_ARG, NULL);
    mem_block_t *b = malloc(sizeof *b);
    if (!b) return tw_mpi_error(NULL, "MPI_Alloc_mem", MPI_ERR_NO_MEM, NULL);
    b->len = size ? (size_t)size : 1;
    b->base = tw_heap_alloc(tw_mpi.ep, b->len, &b->region);
    if (!b->base) {
        free(b);
        return tw_mpi_error(NULL, "MPI_Alloc_mem", MPI_ERR_NO_MEM, NULL);
    }
    b->next = mem_blocks;
    mem_blocks = b;
    *(void **)baseptr = b->base;
    return MPI_SUCCESS;
}

int MPI_Free_mem(void *base) {
    NEED_INIT("MPI_Free_mem");
    if (!base) return MPI_SUCCESS;
    for (mem_block_t **p = &mem_blocks; *p; p = &(*p)->next) {
        if ((*p)->base != base) continue;
        mem_block_t *b = *p;
        *p = b->next;
        tw_heap_free(tw_mpi.ep, b->base);
        free(b);
        return MPI_SUCCESS;
    }
    return tw_mpi_error(NULL, "MPI_Free_mem", MPI_ERR_BASE, "not memory from MPI_Alloc_mem");
}

/* ---- attributes, names, groups, error handlers ---- */

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag) {
    GET_WIN("MPI_Win_get_attr", win);
    if (!attribute_val || !flag) return tw_win_error(w, "MPI_Win_get_attr", MPI_ERR_ARG, NULL);
    void **out = attribute_val;
    *flag = 1;
    w->attr_size = w->bytes;
    w->attr_disp = w->disp_unit;
    w->attr_flavor = w->flavor;
    w->attr_model = MPI_WIN_UNIFIED;
    switch (win_keyval) {
    case MPI_WIN_BASE:
        *out = w->base;
        break;
    case MPI_WIN_SIZE:
        *out = &w->attr_size;
        break;
    case MPI_WIN_DISP_UNIT:
        *out = &w->attr_disp;
        break;
    case MPI_WIN_CREATE_FLAVOR:
        *out = &w->attr_flavor;
        break;
    case MPI_WIN_MODEL:
        *out = &w->attr_model;
        break;
    default:
        *flag = 0;
        if (tw_mpi_win_attr_get(win, win_keyval, attribute_val, flag))
            return tw_win_error(w, "MPI_Win_get_attr", MPI_ERR_KEYVAL, NULL);
    }
    return MPI_SUCCESS;
}

int MPI_Win_get_group(MPI_Win win, MPI_Group *group) {
    GET_WIN("MPI_Win_get_group", win);
    if (!group) return tw_win_error(w, "MPI_Win_get_group", MPI_ERR_ARG, NULL);
    return MPI_Comm_group(w->comm, group);
}

int MPI_Win_set_name(MPI_Win win, const char *win_name) {
    GET_WIN("MPI_Win_set_name", win);
    if (!win_name) return tw_win_error(w, "MPI_Win_set_name", MPI_ERR_ARG, NULL);
    snprintf(w->name, sizeof w->name, "%s", win_name);
    return MPI_SUCCESS;
}

int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen) {
    NEED_INIT("MPI_Win_get_name");
    win_t *w = win_get(win);
    /* MPI-4.1 (naming objects): the null handle has a name, its own */
    if (!w && win != MPI_WIN_NULL) return tw_mpi_error(NULL, "MPI_Win_get_name", MPI_ERR_WIN, NULL);
    if (!win_name || !resultlen)
        return w ? tw_win_error(w, "MPI_Win_get_name", MPI_ERR_ARG, NULL)
                 : tw_mpi_error(NULL, "MPI_Win_get_name", MPI_ERR_ARG, NULL);
    *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w ? w->name : "MPI_WIN_NULL");
    return MPI_SUCCESS;
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
    GET_WIN("MPI_Win_set_errhandler", win);
    if (!tw_mpi_eh_settable(errhandler, TW_EH_WIN))
        return tw_win_error(w, "MPI_Win_set_errhandler", MPI_ERR_ARG, "unknown error handler");
    w->eh = errhandler;
    return MPI_SUCCESS;
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler) {
    GET_WIN("MPI_Win_get_errhandler", win);
    if (!errhandler) return tw_win_error(w, "MPI_Win_get_errhandler", MPI_ERR_ARG, NULL);
    *errhandler = w->eh;
    tw_mpi_eh_ref(*errhandler); /* a new handle, for MPI_Errhandler_free */
    return MPI_SUCCESS;
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode) {
    GET_WIN("MPI_Win_call_errhandler", win);
    tw_win_error(w, "MPI_Win_call_errhandler", errorcode, NULL);
    return MPI_SUCCESS;
}
