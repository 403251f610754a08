/* Collective algorithms (coll.c): each writes the steps of one collective into a
 * schedule. Buffers are packed bytes (coll_calls.c packs and unpacks around them);
 * sizes are bytes, counts of reductions are items. */
#ifndef TW_MPI_COLL_H
#define TW_MPI_COLL_H

#include "mpi/comm/comm.h"
#include "mpi/coll/schedule.h"

/* What a reduction combines with: op over items of type, item bytes each. */
typedef struct tw_coll_red {
    MPI_Op op;
    MPI_Datatype type;
    size_t item;
    int commute;
} tw_coll_red_t;

void tw_coll_barrier(tw_sched_t *s);
void tw_coll_bcast(tw_sched_t *s, void *buf, size_t count, size_t item, int root);
/* out is significant at the root only; in may be out there */
void tw_coll_reduce(tw_sched_t *s, const void *in, void *out, size_t count,
                    const tw_coll_red_t *red, int root);
void tw_coll_allreduce(tw_sched_t *s, const void *in, void *out, size_t count,
                       const tw_coll_red_t *red);
/* in holds the counts[0] + ... + counts[p-1] items; rank r gets block r in out */
void tw_coll_reduce_scatter(tw_sched_t *s, const void *in, void *out, const size_t *counts,
                            const tw_coll_red_t *red);
void tw_coll_scan(tw_sched_t *s, const void *in, void *out, size_t count, const tw_coll_red_t *red,
                  int exclusive);
/* Rank i's block is bytes bytes at i * bytes of the root's (or everyone's) buffer;
 * in NULL: the caller's own block is in place already. */
void tw_coll_gather(tw_sched_t *s, const void *in, void *out, size_t bytes, int root);
void tw_coll_scatter(tw_sched_t *s, const void *in, void *out, size_t bytes, int root);
void tw_coll_allgather(tw_sched_t *s, const void *in, void *out, size_t bytes);

/* The direct algorithms, on blocks (p of them, rank i's at [i]; one for a single
 * block), each moved straight between the user buffers, so any may be a typed block.
 * A single block NULL: the caller's own is in place already (gatherv: in at the
 * root; allgatherv: in). */
void tw_coll_gatherv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out,
                     int root);
void tw_coll_scatterv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out,
                      int root);
void tw_coll_allgatherv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out);
void tw_coll_alltoallv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out);
/* Whether gather and scatter of bytes per rank, and allgather, take them. */
int tw_coll_gather_direct(tw_sched_t *s, size_t bytes);
int tw_coll_allgather_direct(tw_sched_t *s, size_t bytes);
/* The blocks of a packed buffer: rank i's lens[i] bytes at base + offs[i]. */
tw_sched_block_t *tw_coll_blocks(tw_sched_t *s, const void *base, const size_t *offs,
                                 const size_t *lens);

/* The same on an intercommunicator (coll_inter.c): the peers of remote blocks are
 * remote ranks; root is MPI_ROOT, MPI_PROC_NULL or the root's remote rank. Reduce
 * counts are items; reduce_scatter's blocks are the local group's. */
void tw_coll_inter_barrier(tw_sched_t *s);
void tw_coll_inter_bcast(tw_sched_t *s, void *buf, size_t bytes, int root);
void tw_coll_inter_reduce(tw_sched_t *s, const void *in, void *out, size_t count,
                          const tw_coll_red_t *red, int root);
void tw_coll_inter_allreduce(tw_sched_t *s, const void *in, void *out, size_t count,
                             const tw_coll_red_t *red);
/* in: a segment of bytes packed bytes from first of the vector whose local blocks
 * are blocks[] bytes; out: this rank's part of the segment */
void tw_coll_inter_reduce_scatter(tw_sched_t *s, const void *in, void *out, size_t first,
                                  size_t bytes, const size_t *blocks, const tw_coll_red_t *red);
/* The direct ones, on blocks as above: p of the remote group's, or one. */
void tw_coll_inter_gatherv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out,
                           int root);
void tw_coll_inter_scatterv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out,
                            int root);
void tw_coll_inter_allgatherv(tw_sched_t *s, const tw_sched_block_t *in,
                              const tw_sched_block_t *out);
void tw_coll_inter_alltoallv(tw_sched_t *s, const tw_sched_block_t *in,
                             const tw_sched_block_t *out);

/* Collectives through shared memory on one node (coll_shm.c), blocking calls on an
 * intracommunicator only. Each returns 1 when it did the call (*rc: its error
 * class), 0 when the call must go by messages (*rc: the error of a failed set-up, or
 * MPI_SUCCESS). Data are packed bytes (blocks: bytes per rank, rank j's at j *
 * bytes); reductions count items of red->item bytes. Calls of up to TW_COLL_SHM_MAX
 * bytes (barrier, bcast, allreduce) go through one cache line per rank, larger ones
 * through the communicator's shared segment, in steps. Whether a call goes this way
 * must be decided alike at every rank (coll_tuning.c). */
enum { TW_COLL_SHM_MAX = 56 };
typedef struct tw_coll_shm tw_coll_shm_t;
int tw_coll_shm_barrier(tw_mpi_comm_t *c, int *rc);
int tw_coll_shm_bcast(tw_mpi_comm_t *c, void *buf, size_t bytes, int root, int *rc);
/* root -1: an allreduce; out matters at the root (all for -1); in may be out */
int tw_coll_shm_reduce(tw_mpi_comm_t *c, const void *in, void *out, size_t count,
                       const tw_coll_red_t *red, int root, int *rc);
/* exclusive 1: an exscan, whose out at rank 0 stays as it was; in may be out */
int tw_coll_shm_scan(tw_mpi_comm_t *c, const void *in, void *out, size_t count,
                     const tw_coll_red_t *red, int exclusive, int *rc);
/* root -1: an allgather; in NULL: this rank's block is in out already */
int tw_coll_shm_gather(tw_mpi_comm_t *c, const void *in, void *out, size_t bytes, int root,
                       int *rc);
/* out NULL at the root: its block stays in place */
int tw_coll_shm_scatter(tw_mpi_comm_t *c, const void *in, void *out, size_t bytes, int root,
                        int *rc);
/* in: p blocks of count items; out (may be in): this rank's block of the result */
int tw_coll_shm_reduce_scatter(tw_mpi_comm_t *c, const void *in, void *out, size_t count,
                               const tw_coll_red_t *red, int *rc);
/* in (may be out): p blocks of bytes, block j for rank j; out: block j from rank j */
int tw_coll_shm_alltoall(tw_mpi_comm_t *c, const void *in, void *out, size_t bytes, int *rc);

/* Persistent calls on the lines, for a persistent schedule s (coll/persistent.c) on an
 * intracommunicator whose blocking call the tuning table sends to shared memory:
 * Barrier, Reduce and Allreduce of up to TW_COLL_SHM_MAX bytes, Bcast of as many on
 * two ranks (kind: a TW_COLL_SHM_* of coll_shm_block.h; root 0 where there is none).
 * in: count items of type (layout l) that this rank gives, NULL: in place (out holds
 * them); out: where its result goes (a broadcast's buffer, given at its root). 1 when
 * the lines take the call (s->shm_op, or s->error when it failed), 0 when it goes by
 * messages. Whether it goes this way depends on what every member knows alike. */
struct tw_mpi_type_layout;
typedef struct tw_coll_shm_op tw_coll_shm_op_t;
int tw_coll_shm_persistent(tw_sched_t *s, int kind, int root, const void *in, void *out,
                           MPI_Count count, MPI_Datatype type, const struct tw_mpi_type_layout *l,
                           const tw_coll_red_t *red);
/* MPI_Start of such a call, whose request is r: gives this rank's data and returns;
 * the progress hook, or the next blocking call on the block, finishes it. */
int tw_coll_shm_persistent_start(tw_coll_shm_op_t *op, MPI_Request r);

/* For a blocking collective this rank cannot take part in (no memory for a packed
 * copy of its buffer) after the others may have begun it: marks c's block so that the
 * others' waits end in an error that names this rank (tw_mpi_gave_up_code) instead of
 * waiting for ever. Its own later calls on the block fail at once; the others' fail
 * once they wait (a taker of a broadcast from another root may still get its data). */
void tw_coll_shm_give_up(tw_mpi_comm_t *c);

/* Frees communicator c's collective shared block (coll_shm.c). */
void tw_coll_shm_free(tw_mpi_comm_t *c);
/* Before MPI_Comm_free frees it under MPI_THREAD_MULTIPLE: a barrier by messages, so
 * no member still reads the block when its owner frees it. */
void tw_coll_shm_quiesce(tw_mpi_comm_t *c);

#endif
