/* Collectives through shared memory, for communicators whose ranks share a node.
 *
 * Barrier, and broadcast and allreduce of up to 56 bytes of contiguous data, when
 * blocking (MPI never matches a blocking collective with a non-blocking one), go
 * through a block of the shared heap instead of messages. Each rank owns two cache
 * lines of it and uses them by turns: operation k of the communicator takes line
 * k mod 2. A line is a sequence word and 56 bytes of data.
 *
 *   - A rank that gives data writes it into its line, then k into the word.
 *   - A rank that takes data waits until the giver's word is k or more, reads, and
 *     then writes k into its own word (nothing else of the line).
 *   - Before writing data for operation k, a rank waits until every other rank's
 *     word for operation k - 1 is k - 1 or more: each has begun k - 1, so each is
 *     done reading what the line held for k - 2.
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
#include "mpi/comm.h"
#include "mpi/failure.h"
#include "mpi/op.h"
#include "mpi/p2p_progress.h"
#include "mpi/schedule.h"
#include "mpi/state.h"

#include <tollway/settings.h>

enum { LINE = 64, LINE_DATA = LINE - 8 };
_Static_assert((int)LINE_DATA == (int)TW_COLL_SHM_MAX, "a call's data fills one line at most");

typedef struct line {
    _Atomic uint64_t seq;
    unsigned char data[LINE_DATA];
} line_t;
_Static_assert(sizeof(line_t) == LINE, "a line is one cache line");

struct tw_coll_shm {
    line_t *lines; /* 2 per rank */
    uint64_t seq;  /* operations so far */
    void *block;   /* rank 0: the heap block, freed with the communicator */
};

static line_t *line_of(const tw_coll_shm_t *sh, int rank, uint64_t k) {
    return &sh->lines[2 * rank + (int)(k & 1)];
}

/* Waits until line l shows operation k; MPI_SUCCESS, or the code of a lost member
 * of c (another rank found it lost): then the line may never show it. */
static int wait_for(const tw_mpi_comm_t *c, const line_t *l, uint64_t k) {
    unsigned spins = 0;
    while (atomic_load_explicit(&l->seq, memory_order_acquire) < k) {
        tw_mpi_progress(); /* others may wait for this rank's messages meanwhile */
        int w = tw_mpi_lost_count ? tw_mpi_comm_lost_member(c) : -1;
        if (w >= 0) return tw_mpi_lost_code(w);
        tw_ep_relax(tw_mpi.ep, &spins);
    }
    return MPI_SUCCESS;
}

/* Before operation k writes data into this rank's line: every other rank has begun
 * operation k - 1, so none still reads the line's last data (operation k - 2). */
static int wait_line_free(const tw_mpi_comm_t *c, const tw_coll_shm_t *sh, uint64_t k) {
    int rc = MPI_SUCCESS;
    for (int r = 0; r < c->size && !rc; r++)
        if (r != c->rank) rc = wait_for(c, line_of(sh, r, k - 1), k - 1);
    return rc;
}

static void publish(line_t *l, uint64_t k) {
    atomic_store_explicit(&l->seq, k, memory_order_release);
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
    size_t bytes = (size_t)c->size * 2 * sizeof(line_t);
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
    tw_sched_init(&s, c);
    tw_coll_bcast(&s, where, sizeof where, 1, 0);
    int rc = tw_sched_run(&s);
    if (!rc && c->rank && sh && where[0])
        sh->lines =
            tw_heap_local_addr(tw_mpi.ep, tw_mpi_world_rank(c, 0), where[0], where[1], bytes);
    int ok = !rc && sh && sh->lines, all = 0;
    tw_coll_red_t red = {MPI_MIN, MPI_INT, sizeof(int), 1};
    tw_sched_init(&s, c);
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
    uint64_t k = ++sh->seq;
    publish(line_of(sh, c->rank, k), k);
    for (int r = 0; r < c->size && !*rc; r++)
        if (r != c->rank) *rc = wait_for(c, line_of(sh, r, k), k);
    return 1;
}

int tw_coll_shm_bcast(tw_mpi_comm_t *c, void *buf, size_t bytes, int root, int *rc) {
    if (bytes > LINE_DATA) return 0;
    tw_coll_shm_t *sh = usable(c, rc);
    if (!sh) return 0;
    tw_mpi_coll_tag(c);
    uint64_t k = ++sh->seq;
    line_t *from = line_of(sh, root, k);
    if (c->rank == root) {
        if ((*rc = wait_line_free(c, sh, k))) return 1;
        memcpy(from->data, buf, bytes);
        publish(from, k);
        return 1;
    }
    if ((*rc = wait_for(c, from, k))) return 1;
    memcpy(buf, from->data, bytes);
    publish(line_of(sh, c->rank, k), k); /* done with the root's line */
    return 1;
}

int tw_coll_shm_allreduce(tw_mpi_comm_t *c, const void *in, void *out, size_t count,
                          const tw_coll_red_t *red, int *rc) {
    size_t bytes = count * red->item;
    if (bytes > LINE_DATA) return 0;
    tw_coll_shm_t *sh = usable(c, rc);
    if (!sh) return 0;
    tw_mpi_coll_tag(c);
    uint64_t k = ++sh->seq;
    line_t *mine = line_of(sh, c->rank, k);
    if ((*rc = wait_line_free(c, sh, k))) return 1;
    memcpy(mine->data, in, bytes);
    publish(mine, k);
    for (int r = 0; r < c->size && !*rc; r++)
        if (r != c->rank) *rc = wait_for(c, line_of(sh, r, k), k);
    if (*rc) return 1;
    /* every rank combines the same data in the same order, so all get the same
     * result: rank 0's op (rank 1's op (... rank p-1's)), MPI's order for a
     * non-commutative op */
    memcpy(out, line_of(sh, c->size - 1, k)->data, bytes);
    for (int r = c->size - 2; r >= 0 && !*rc; r--)
        *rc = tw_mpi_op_apply(red->op, line_of(sh, r, k)->data, out, (MPI_Count)count, red->type);
    return 1;
}
