/* MPI_Comm_idup and MPI_Comm_idup_with_info: a duplicate made without blocking, as a schedule
 * (schedule.c).
 *
 * A new communicator needs a table entry free at every member. The members OR their
 * bitmaps of used entries with a non-blocking allreduce, each picks the lowest entry
 * free in the result and holds it, and a second allreduce (MIN of "I can take it")
 * settles it: taken everywhere, or released everywhere and tried again with fresh
 * bitmaps. A held entry counts as used for every other creation in this process
 * (tw_mpi_used_entries), so two duplications under way at once never pick the same
 * entry; one that loses a race says so in the second round and tries again. While
 * a blocking dup or split runs here, whose entry is known only at its end, an idup
 * says it cannot take its pick, and tries again afterwards.
 *
 * An intercommunicator's entry must be free in both groups. Its allreduce gives a
 * group the other group's result, so each round reduces twice: first what this
 * rank has, then that combined with the first result, which brings the whole of
 * both groups to both. */
#include <stdlib.h>
#include <string.h>

#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/env/info.h"
#include "mpi/coll/schedule.h"
#include "mpi/env/state.h"
#include "mpi/comm_create/topology.h"
#include "mpi/comm_create/comm_idup.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/channel.h"

enum { WORDS = TW_MPI_COMMS / 64 };

/* Entries held by duplications under way in this process. */
uint64_t tw_mpi_comm_held[TW_MPI_COMMS / 64];

typedef struct idup {
    tw_mpi_comm_t *parent;
    tw_mpi_handle_deliver_fn *deliver; /* writes the new handle into slot */
    void *slot;
    uint64_t mine[WORDS], all[WORDS];
    int entry; /* the entry picked this round; -1: none free */
    int can, everyone_can;
    uint64_t remote[WORDS]; /* an intercommunicator's: the other group's first result */
    int remote_can;
    unsigned hints; /* the new communicator's: the parent's, or those of the info given */
} idup_t;

static int held(int entry) {
    return entry >= 0 && (tw_mpi_comm_held[entry / 64] >> (entry % 64) & 1);
}

static void hold(int entry, int on) {
    uint64_t bit = 1ull << (entry % 64);
    if (on)
        tw_mpi_comm_held[entry / 64] |= bit;
    else
        tw_mpi_comm_held[entry / 64] &= ~bit;
}

/* Writes one round: offer the bitmap, OR them, pick, agree, settle. */
static void round_of(tw_sched_t *s, idup_t *d);

static void pick(tw_sched_t *s, void *arg) {
    idup_t *d = arg;
    d->entry = -1;
    for (int i = 0; i < TW_MPI_COMMS && d->entry < 0; i++)
        if (!(d->all[i / 64] >> (i % 64) & 1)) d->entry = i;
    /* taken or held here since the bitmap went out (another creation got there
     * first), or a blocking creation may be about to take it */
    d->can =
        d->entry >= 0 && !tw_mpi_comm_table[d->entry] && !held(d->entry) && !tw_mpi_comm_creating;
    if (d->can) hold(d->entry, 1);
}

static void settle(tw_sched_t *s, void *arg) {
    idup_t *d = arg;
    if (d->can) hold(d->entry, 0);
    if (d->entry < 0) { /* every entry is in use somewhere */
        s->error = MPI_ERR_INTERN;
        free(d);
        return;
    }
    if (!d->everyone_can) { /* released everywhere: once more, with fresh bitmaps */
        round_of(s, d);
        return;
    }
    const tw_mpi_comm_t *p = d->parent;
    int *world = NULL, *local = NULL;
    if (p->world) {
        world = malloc((size_t)p->size * sizeof *world);
        if (world) memcpy(world, p->world, (size_t)p->size * sizeof *world);
    }
    if (p->inter && (local = malloc((size_t)p->local_size * sizeof *local)))
        memcpy(local, p->local_world, (size_t)p->local_size * sizeof *local);
    tw_mpi_comm_t *c = (world || !p->world) && (local || !p->inter)
                           ? tw_mpi_comm_new(d->entry, p->rank, p->size, world)
                           : NULL;
    if (!c) {
        free(world);
        free(local);
        s->error = MPI_ERR_NO_MEM;
    } else if (tw_topo_copy(p, c)) { /* a duplicate has its parent's topology */
        tw_mpi_comm_destroy(c);
        s->error = MPI_ERR_NO_MEM;
    } else {
        c->errhandler = p->errhandler;
        if (p->inter) { /* the same two groups */
            c->inter = 1;
            c->local_size = p->local_size;
            c->local_world = local;
        }
        c->hints = d->hints;
        d->deliver(d->slot, c->handle);
    }
    free(d);
}

/* An intercommunicator's second reductions take this rank's own value combined
 * with the other group's first result. */
static void combine_used(tw_sched_t *s, void *arg) {
    (void)s;
    idup_t *d = arg;
    for (int w = 0; w < WORDS; w++) d->remote[w] |= d->mine[w];
}

static void combine_can(tw_sched_t *s, void *arg) {
    (void)s;
    idup_t *d = arg;
    if (d->can < d->remote_can) d->remote_can = d->can;
}

/* out: the reduction of in over both groups (d's parent: either kind). */
static void reduce_all(tw_sched_t *s, idup_t *d, void *in, void *out, size_t n,
                       const tw_coll_red_t *red, void *first, tw_sched_fn *combine) {
    if (!d->parent->inter) {
        tw_coll_allreduce(s, in, out, n, red);
        tw_sched_fence(s);
        return;
    }
    tw_coll_inter_allreduce(s, in, first, n, red);
    tw_sched_fence(s);
    tw_sched_call(s, combine, d);
    tw_coll_inter_allreduce(s, first, out, n, red);
    tw_sched_fence(s);
}

static void offer(tw_sched_t *s, void *arg) {
    idup_t *d = arg;
    tw_mpi_used_entries(d->mine);
}

static void round_of(tw_sched_t *s, idup_t *d) {
    static const tw_coll_red_t bor = {MPI_BOR, MPI_UINT64_T, sizeof(uint64_t), 1};
    static const tw_coll_red_t min = {MPI_MIN, MPI_INT, sizeof(int), 1};
    tw_sched_call(s, offer, d);
    reduce_all(s, d, d->mine, d->all, WORDS, &bor, d->remote, combine_used);
    tw_sched_call(s, pick, d);
    reduce_all(s, d, &d->can, &d->everyone_can, 1, &min, &d->remote_can, combine_can);
    tw_sched_call(s, settle, d);
}

/* Both calls: the hints are read at the call, as the program may free the info
 * before the duplicate is made. The new handle is known only when the duplicate is
 * made: deliver writes it into slot then (and MPI_COMM_NULL now). */
static int idup(const char *call, MPI_Comm comm, const MPI_Info *info,
                tw_mpi_handle_deliver_fn *deliver, void *slot, MPI_Request *request) {
    NEED_INIT(call);
    tw_mpi_comm_t *p = tw_mpi_comm_get(comm);
    if (!p) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    if (info && !tw_mpi_info_ok(*info)) return tw_mpi_error(p, call, MPI_ERR_INFO, NULL);
    if (!slot) return tw_mpi_error(p, call, MPI_ERR_ARG, "newcomm is NULL");
    if (!request) return tw_mpi_error(p, call, MPI_ERR_REQUEST, "request is NULL");
    tw_sched_t *s = tw_sched_new(p);
    idup_t *d = calloc(1, sizeof *d);
    if (!s || !d) {
        if (s)
            tw_sched_free(s);
        else
            tw_mpi_nbc_tag(p); /* the members still agree on the tags that follow */
        free(d);
        return tw_mpi_error(p, call, MPI_ERR_NO_MEM, NULL);
    }
    d->parent = p;
    d->deliver = deliver;
    d->slot = slot;
    d->hints = info ? tw_mpi_comm_hints(*info, 0) : p->hints; /* info's, not p's */
    deliver(slot, MPI_COMM_NULL);
    round_of(s, d);
    int rc = tw_sched_start(s, request);
    return rc ? tw_mpi_error(p, call, rc, NULL) : MPI_SUCCESS;
}

static void write_handle(void *slot, int handle) {
    *(MPI_Comm *)slot = handle;
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) {
    return idup("MPI_Comm_idup", comm, NULL, write_handle, newcomm, request);
}

int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request) {
    return idup("MPI_Comm_idup_with_info", comm, &info, write_handle, newcomm, request);
}

int tw_mpi_comm_idup_deliver(int comm, const int *info, tw_mpi_handle_deliver_fn *deliver,
                             void *slot, int *request) {
    const char *call = info ? "MPI_Comm_idup_with_info" : "MPI_Comm_idup";
    if (!__builtin_expect(tw_mpi_threads_on, 0))
        return idup(call, comm, info, deliver, slot, request);
    unsigned took = tw_mpi_lock_set(TW_MPI_LOCK_LIBRARY | tw_mpi_lock_of_comm(comm));
    int rc = idup(call, comm, info, deliver, slot, request);
    tw_mpi_unlock_set(took);
    return rc;
}
