/* Collectives through shared memory, for communicators whose ranks share a node.
 *
 * Barrier, and broadcast and allreduce of up to 56 bytes of contiguous data, when
 * blocking (MPI never matches a blocking collective with a non-blocking one), go
 * through a block of the shared heap instead of messages: two cache lines per rank,
 * used by turns (the protocol is in coll_shm_block.h).
 *
 * One cache line moves from each giver to each taker; on two ranks an allreduce or a
 * barrier is one line each way, both at once.
 *
 * The block is set up by the communicator's first such call, which is collective:
 * rank 0 allocates and clears it and broadcasts its address by messages, every rank
 * maps it, and an allreduce of the outcome makes all agree. A communicator that
 * cannot have one (a rank on another node, no heap) keeps to messages. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/coll.h"
#include "mpi/coll_shm_block.h"
#include "mpi/comm.h"
#include "mpi/failure.h"
#include "mpi/op.h"
#include "mpi/p2p_progress.h"
#include "mpi/schedule.h"
#include "mpi/state.h"
#include "mpi/thread.h"

#include <tollway/settings.h>

_Static_assert((int)TW_COLL_LINE_DATA == (int)TW_COLL_SHM_MAX,
               "a call's data fills one line at most");

struct tw_coll_shm {
    tw_coll_line_t *lines; /* 2 per rank */
    uint64_t seq;          /* operations so far */
    void *block;           /* rank 0: the heap block, freed with the communicator */
};

/* A call on the block as its wait sees it: ring, while this rank's line is still to
 * be published and peers may sleep (TW_WAIT=sleep), whose waits learn of it only
 * through their doorbells. */
typedef struct shm_wait {
    tw_mpi_comm_t *c;
    tw_coll_shm_run_t *x;
    const void *give;
    void *take;
    int done, ring;
} shm_wait_t;

/* Advances the call (never again once done: a taker would read a line reused by
 * then) and wakes the other members once this rank's line is out. 1 when something
 * moved. */
static int shm_step(void *arg) {
    shm_wait_t *w = arg;
    if (w->done) return 1;
    tw_coll_shm_run_t *x = w->x;
    int step = x->step, next = x->next;
    w->done = tw_coll_shm_advance(x, w->give, w->take);
    if (w->ring && atomic_load_explicit(&tw_coll_shm_line(x, x->rank, x->k)->seq,
                                        memory_order_relaxed) == x->k) {
        w->ring = 0;
        for (int r = 0; r < x->size; r++)
            if (r != x->rank) tw_ep_wake(tw_mpi.ep, tw_mpi_world_rank(w->c, r));
    }
    return w->done || x->step != step || x->next != next;
}

/* Runs the next call on c's block to its end; others may wait for this rank's
 * messages meanwhile. MPI_SUCCESS, or the code of a lost member of c (another rank
 * found it lost): the lines it would write may never show. */
static int run(tw_mpi_comm_t *c, tw_coll_shm_run_t *x, int kind, int root, size_t bytes,
               const void *give, void *take) {
    *x = (tw_coll_shm_run_t){.lines = c->shm->lines, .size = c->size, .rank = c->rank};
    tw_coll_shm_start(x, ++c->shm->seq, kind, root, bytes);
    shm_wait_t w = {c, x, give, take, 0, tw_ep_sleeps(tw_mpi.ep)};
    unsigned spins = 0;
    while ((void)shm_step(&w), !w.done) {
        tw_mpi_progress();
        int lost = tw_mpi_lost_count ? tw_mpi_comm_lost_member(c) : -1;
        if (lost >= 0) return tw_mpi_lost_code(lost);
        tw_mpi_relax_until(&spins, shm_step, &w);
    }
    return MPI_SUCCESS;
}

/* ---- set-up ---- */

/* Whether every rank of c is on this process's node: the same answer at every rank. */
static int all_on_node(const tw_mpi_comm_t *c) {
    int mine = tw_mpi_node(tw_mpi_world_rank(c, c->rank));
    for (int r = 0; r < c->size; r++)
        if (tw_mpi_node(tw_mpi_world_rank(c, r)) != mine) return 0;
    return 1;
}

/* The collective set-up; leaves c->shm NULL when the communicator keeps to messages.
 * MPI_SUCCESS, or the error of a failed exchange. */
static int set_up(tw_mpi_comm_t *c) {
    c->shm_tried = 1;
    if (c->inter || c->size < 2 || !all_on_node(c)) return MPI_SUCCESS; /* same everywhere */
    size_t bytes = (size_t)c->size * 2 * sizeof(tw_coll_line_t);
    tw_coll_shm_t *sh = calloc(1, sizeof *sh);
    uint64_t where[2] = {0, 0}; /* NLA and key of the block; 0: none */
    tw_region_t region;
    if (c->rank == 0 && sh && (sh->block = tw_heap_alloc(tw_mpi.ep, bytes, &region))) {
        memset(sh->block, 0, bytes);
        where[0] = region.nla;
        where[1] = region.key;
        sh->lines = sh->block;
    }
    tw_sched_t s;
    tw_sched_init(&s, c, tw_mpi_coll_tag(c));
    tw_coll_bcast(&s, where, sizeof where, 1, 0);
    int rc = tw_sched_run(&s);
    if (!rc && c->rank && sh && where[0])
        sh->lines =
            tw_heap_local_addr(tw_mpi.ep, tw_mpi_world_rank(c, 0), where[0], where[1], bytes);
    int ok = !rc && sh && sh->lines, all = 0;
    tw_coll_red_t red = {MPI_MIN, MPI_INT, sizeof(int), 1};
    tw_sched_init(&s, c, tw_mpi_coll_tag(c));
    tw_coll_allreduce(&s, &ok, &all, 1, &red);
    int rc2 = tw_sched_run(&s);
    if (!rc) rc = rc2;
    if (!rc && all) {
        c->shm = sh;
        return MPI_SUCCESS;
    }
    if (sh && sh->block) tw_heap_free(tw_mpi.ep, sh->block);
    free(sh);
    return rc;
}

/* A member may return from the block's last call before the others have read its
 * lines. With one thread per process, the member that owns the block can free it and
 * give its memory to another communicator only after some later exchange with them,
 * which they join once that call has returned; another thread's exchange is no such
 * sign, so every member first passes a barrier that keeps off the block. */
void tw_coll_shm_quiesce(tw_mpi_comm_t *c) {
    if (!c->shm) return;
    tw_sched_t s;
    tw_sched_init(&s, c, tw_mpi_coll_tag(c));
    tw_coll_barrier(&s);
    (void)tw_sched_run(&s); /* a lost member: nobody is left to read the block */
}

void tw_coll_shm_free(tw_mpi_comm_t *c) {
    if (!c->shm) return;
    if (c->shm->block && tw_mpi.ep) tw_heap_free(tw_mpi.ep, c->shm->block); /* else closed */
    free(c->shm);
    c->shm = NULL;
}

/* The communicator's block, set up on first use; NULL: messages. */
static tw_coll_shm_t *usable(tw_mpi_comm_t *c, int *rc) {
    *rc = MPI_SUCCESS;
    if (c->shm) return c->shm;
    if (c->shm_tried || c->inter || c->size < 2) return NULL;
    if (tw_setting_choice(TW_SETTING_COLL_SHM) == TW_COLL_SHM_P2P) return NULL;
    *rc = set_up(c);
    return c->shm;
}

/* ---- the operations ---- */

int tw_coll_shm_barrier(tw_mpi_comm_t *c, int *rc) {
    tw_coll_shm_t *sh = usable(c, rc);
    if (!sh) return 0;
    tw_mpi_coll_tag(c); /* the tags of later calls stay as without the block */
    tw_coll_shm_run_t x;
    *rc = run(c, &x, TW_COLL_SHM_BARRIER, 0, 0, NULL, NULL);
    return 1;
}

int tw_coll_shm_bcast(tw_mpi_comm_t *c, void *buf, size_t bytes, int root, int *rc) {
    if (bytes > TW_COLL_LINE_DATA) return 0;
    tw_coll_shm_t *sh = usable(c, rc);
    if (!sh) return 0;
    tw_mpi_coll_tag(c);
    tw_coll_shm_run_t x;
    *rc = run(c, &x, TW_COLL_SHM_BCAST, root, bytes, buf, buf);
    return 1;
}

int tw_coll_shm_allreduce(tw_mpi_comm_t *c, const void *in, void *out, size_t count,
                          const tw_coll_red_t *red, int *rc) {
    size_t bytes = count * red->item;
    if (bytes > TW_COLL_LINE_DATA) return 0;
    tw_coll_shm_t *sh = usable(c, rc);
    if (!sh) return 0;
    tw_mpi_coll_tag(c);
    tw_coll_shm_run_t x;
    if ((*rc = run(c, &x, TW_COLL_SHM_ALLREDUCE, 0, bytes, in, NULL))) return 1;
    /* every rank combines the same data in the same order, so all get the same
     * result: rank 0's op (rank 1's op (... rank p-1's)), MPI's order for a
     * non-commutative op */
    if (bytes) memcpy(out, tw_coll_shm_line(&x, c->size - 1, x.k)->data, bytes);
    for (int r = c->size - 2; r >= 0 && !*rc; r--)
        *rc = tw_mpi_op_apply(red->op, tw_coll_shm_line(&x, r, x.k)->data, out, (MPI_Count)count,
                              red->type);
    return 1;
}
