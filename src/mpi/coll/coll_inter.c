/* Collectives on intercommunicators (MPI-3.1 section 5.2.2): each is written into a
 * schedule of the intercommunicator, so blocking and non-blocking calls share it.
 *
 * Design: the steps between the two groups address remote ranks, as any step of an
 * intercommunicator's schedule does. The steps within the local group come from the
 * intracommunicator algorithms of coll.c, run on a view of the local group: a
 * communicator record in the schedule's scratch with the local rank, size and world
 * ranks and the intercommunicator's context, put in s->comm while those steps are
 * written. Both groups take the same tag, and every step names its peer by world
 * rank, so the local and the inter-group messages of one call never mix: no hidden
 * communicator to create, and intracommunicator calls do not change.
 *
 * Rooted calls: the root passes MPI_ROOT, the rest of its group MPI_PROC_NULL (they
 * take no part), the other group the root's remote rank. Reductions, barrier,
 * broadcast and scatter of the reduced vector meet at the leaders (local rank 0 of
 * each group); the gathers, scatters and all-to-alls exchange blocks directly. */
#include "mpi/coll/coll.h"
#include "mpi/comm/comm.h"
#include "mpi/coll/schedule.h"

/* Points s->comm at a view of the local group; returns the intercommunicator. */
static tw_mpi_comm_t *enter_local(tw_sched_t *s) {
    tw_mpi_comm_t *inter = s->comm, *local = tw_sched_scratch(s, sizeof *local);
    if (!local) return NULL;
    *local = (tw_mpi_comm_t){.handle = inter->handle,
                             .rank = inter->rank,
                             .size = inter->local_size,
                             .context = inter->context,
                             .world = inter->local_world,
                             .errhandler = inter->errhandler};
    s->comm = local;
    return inter;
}

static void leave_local(tw_sched_t *s, tw_mpi_comm_t *inter) {
    s->comm = inter;
}

/* The leaders swap send for recv (bytes each way may differ). */
static void leaders_swap(tw_sched_t *s, const void *send, size_t sbytes, void *recv,
                         size_t rbytes) {
    tw_sched_fence(s);
    if (s->comm->rank == 0) {
        tw_sched_recv(s, recv, rbytes, 0);
        tw_sched_send(s, send, sbytes, 0);
    }
    tw_sched_fence(s);
}

void tw_coll_inter_barrier(tw_sched_t *s) {
    tw_mpi_comm_t *inter = enter_local(s);
    if (!inter) return;
    tw_coll_barrier(s); /* the whole local group has arrived */
    leave_local(s, inter);
    leaders_swap(s, NULL, 0, NULL, 0); /* and so has the remote one */
    if (!enter_local(s)) return;
    tw_coll_barrier(s); /* which the leader tells its group */
    leave_local(s, inter);
}

void tw_coll_inter_bcast(tw_sched_t *s, void *buf, size_t bytes, int root) {
    if (root == MPI_ROOT) tw_sched_send(s, buf, bytes, 0);
    if (root < 0) return;
    if (s->comm->rank == 0) tw_sched_recv(s, buf, bytes, root);
    tw_sched_fence(s);
    tw_mpi_comm_t *inter = enter_local(s);
    if (!inter) return;
    tw_coll_bcast(s, buf, bytes, 1, 0);
    leave_local(s, inter);
}

/* The reduction of the local group's in, at the leader (NULL elsewhere). */
static void *reduce_to_leader(tw_sched_t *s, const void *in, size_t count,
                              const tw_coll_red_t *red) {
    void *sum = s->comm->rank == 0 ? tw_sched_scratch(s, count * red->item) : NULL;
    if (s->comm->rank == 0 && !sum) return NULL;
    tw_mpi_comm_t *inter = enter_local(s);
    if (!inter) return NULL;
    tw_coll_reduce(s, in, sum, count, red, 0);
    leave_local(s, inter);
    return sum;
}

void tw_coll_inter_reduce(tw_sched_t *s, const void *in, void *out, size_t count,
                          const tw_coll_red_t *red, int root) {
    if (root == MPI_ROOT) tw_sched_recv(s, out, count * red->item, 0);
    if (root < 0) return;
    void *sum = reduce_to_leader(s, in, count, red);
    tw_sched_fence(s);
    if (sum) tw_sched_send(s, sum, count * red->item, root);
}

void tw_coll_inter_allreduce(tw_sched_t *s, const void *in, void *out, size_t count,
                             const tw_coll_red_t *red) {
    void *sum = reduce_to_leader(s, in, count, red);
    if (s->error) return;
    leaders_swap(s, sum, count * red->item, out, count * red->item);
    tw_mpi_comm_t *inter = enter_local(s);
    if (!inter) return;
    tw_coll_bcast(s, out, count * red->item, 1, 0);
    leave_local(s, inter);
}

/* One segment of a reduce-scatter: the items of bytes packed bytes from first of
 * the whole vector, whose blocks[i] bytes go to local rank i in order; out takes
 * this rank's part of the segment (NULL: none). */
void tw_coll_inter_reduce_scatter(tw_sched_t *s, const void *in, void *out, size_t first,
                                  size_t bytes, const size_t *blocks, const tw_coll_red_t *red) {
    int n = s->comm->local_size;
    size_t at = 0, *part = tw_sched_scratch(s, 2 * (size_t)n * sizeof *part);
    if (!part) return;
    for (int i = 0; i < n; i++) { /* block i within the segment, from its start */
        size_t lo = at > first ? at : first, hi = at + blocks[i];
        if (hi > first + bytes) hi = first + bytes;
        part[i] = hi > lo ? hi - lo : 0;
        part[n + i] = hi > lo ? lo - first : 0;
        at += blocks[i];
    }
    size_t count = bytes / red->item;
    void *sum = reduce_to_leader(s, in, count, red);
    void *remote_sum = s->comm->rank == 0 ? tw_sched_scratch(s, bytes) : NULL;
    if (s->error) return;
    /* the other group's reduction is scattered over this one */
    leaders_swap(s, sum, bytes, remote_sum, bytes);
    tw_mpi_comm_t *inter = enter_local(s);
    if (!inter) return;
    tw_sched_block_t one = {.at = out, .bytes = part[s->comm->rank]};
    tw_coll_scatterv(s, remote_sum ? tw_coll_blocks(s, remote_sum, part + n, part) : NULL, &one, 0);
    leave_local(s, inter);
}

/* The direct exchanges of blocks: each block goes straight between the user buffers,
 * so any may be typed (staged by the point-to-point engine a chunk at a time). */
void tw_coll_inter_gatherv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out,
                           int root) {
    if (root == MPI_ROOT && out)
        for (int i = 0; i < s->comm->size; i++) tw_sched_recv_block(s, &out[i], i);
    else if (root >= 0 && in)
        tw_sched_send_block(s, in, root);
}

void tw_coll_inter_scatterv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out,
                            int root) {
    if (root == MPI_ROOT && in)
        for (int i = 0; i < s->comm->size; i++) tw_sched_send_block(s, &in[i], i);
    else if (root >= 0 && out)
        tw_sched_recv_block(s, out, root);
}

/* in[i] to remote rank i, out[i] from it; one (not NULL): the same block to each. */
static void exchange(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *one,
                     const tw_sched_block_t *out) {
    int p = s->comm->size;
    for (int i = 0; i < p; i++) tw_sched_recv_block(s, &out[i], i);
    /* starting at one's own rank spreads the load over the remote group */
    for (int k = 0; k < p; k++) {
        int i = (s->comm->rank + k) % p;
        tw_sched_send_block(s, one ? one : &in[i], i);
    }
}

void tw_coll_inter_alltoallv(tw_sched_t *s, const tw_sched_block_t *in,
                             const tw_sched_block_t *out) {
    if (in && out) exchange(s, in, NULL, out);
}

/* Every remote rank gets this rank's one block. */
void tw_coll_inter_allgatherv(tw_sched_t *s, const tw_sched_block_t *in,
                              const tw_sched_block_t *out) {
    if (in && out) exchange(s, NULL, in, out);
}
