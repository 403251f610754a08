/* Every large-count (_c) call libmpi claims, with small counts, against its int twin:
 * the same data and counts come out (a miswired argument shows here). Then what a
 * large count changes without moving much data: a negative count is MPI_ERR_COUNT,
 * an int output that cannot hold its value is MPI_UNDEFINED or
 * MPI_ERR_VALUE_TOO_LARGE, and the _c forms give the right MPI_Count. Any number of
 * ranks from 2; MPI_Win_allocate_shared_c only among ranks of one node. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

#define OK(call) CHECK((call) == MPI_SUCCESS)
#define N        6

static int next, prev;

static int class_of(int rc) {
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* ---- point-to-point ---- */

static void fill(int *v, int n, int salt) {
    for (int i = 0; i < n; i++) v[i] = salt * 100 + i;
}

static void expect_from(const int *v, int n, int salt, const MPI_Status *st) {
    for (int i = 0; i < n; i++) CHECK(v[i] == salt * 100 + i);
    if (st) {
        int c;
        MPI_Count cc;
        OK(MPI_Get_count(st, MPI_INT, &c));
        OK(MPI_Get_count_c(st, MPI_INT, &cc));
        CHECK(c == n && cc == n && st->MPI_SOURCE == prev);
    }
}

static void p2p(void) {
    int out[N], in[N];
    MPI_Status st;
    MPI_Request r[2];
    fill(out, N, rank);
    /* blocking: Send_c to the next, Recv_c from the previous (small: the sends are eager) */
    for (int turn = 0; turn < 2; turn++) {
        if ((rank % 2) == turn) {
            OK(MPI_Send_c(out, N, MPI_INT, next, 1, MPI_COMM_WORLD));
        } else {
            memset(in, 0, sizeof in);
            OK(MPI_Recv_c(in, N, MPI_INT, prev, 1, MPI_COMM_WORLD, &st));
            expect_from(in, N, prev, &st);
        }
    }
    /* the non-blocking sends, each against an Irecv_c posted first */
    int (*isend[])(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm,
                   MPI_Request *) = {MPI_Isend_c, MPI_Issend_c, MPI_Irsend_c};
    for (int k = 0; k < 3; k++) {
        memset(in, 0, sizeof in);
        OK(MPI_Irecv_c(in, N, MPI_INT, prev, 10 + k, MPI_COMM_WORLD, &r[0]));
        OK(MPI_Barrier(MPI_COMM_WORLD)); /* posted everywhere: a ready send may go */
        OK(isend[k](out, N, MPI_INT, next, 10 + k, MPI_COMM_WORLD, &r[1]));
        OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        OK(MPI_Wait(&r[0], &st));
        expect_from(in, N, prev, &st);
    }
    /* the blocking synchronous and ready sends */
    int (*bsend[])(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm) = {MPI_Ssend_c,
                                                                                 MPI_Rsend_c};
    for (int k = 0; k < 2; k++) {
        OK(MPI_Irecv_c(in, N, MPI_INT, prev, 20 + k, MPI_COMM_WORLD, &r[0]));
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(bsend[k](out, N, MPI_INT, next, 20 + k, MPI_COMM_WORLD));
        OK(MPI_Wait(&r[0], &st));
        expect_from(in, N, prev, &st);
    }
    /* buffered sends through an attached buffer */
    int room = 4 * (N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *attached = malloc((size_t)room);
    OK(MPI_Buffer_attach(attached, room));
    OK(MPI_Bsend_c(out, N, MPI_INT, next, 30, MPI_COMM_WORLD));
    OK(MPI_Ibsend_c(out, N, MPI_INT, next, 31, MPI_COMM_WORLD, &r[1]));
    OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    for (int tag = 30; tag < 32; tag++) {
        OK(MPI_Recv_c(in, N, MPI_INT, prev, tag, MPI_COMM_WORLD, &st));
        expect_from(in, N, prev, &st);
    }
    /* the persistent forms, started twice */
    int (*init[])(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) = {
        MPI_Send_init_c, MPI_Ssend_init_c, MPI_Rsend_init_c, MPI_Bsend_init_c};
    for (int k = 0; k < 4; k++) {
        OK(MPI_Recv_init_c(in, N, MPI_INT, prev, 40 + k, MPI_COMM_WORLD, &r[0]));
        OK(init[k](out, N, MPI_INT, next, 40 + k, MPI_COMM_WORLD, &r[1]));
        for (int again = 0; again < 2; again++) {
            memset(in, 0, sizeof in);
            OK(MPI_Start(&r[0]));
            OK(MPI_Barrier(MPI_COMM_WORLD));
            OK(MPI_Start(&r[1]));
            OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
            OK(MPI_Wait(&r[0], &st));
            expect_from(in, N, prev, &st);
        }
        OK(MPI_Request_free(&r[0]));
        OK(MPI_Request_free(&r[1]));
    }
    int bytes;
    OK(MPI_Buffer_detach(&attached, &bytes));
    free(attached);
    /* send-receive, and in place */
    memset(in, 0, sizeof in);
    OK(MPI_Sendrecv_c(out, N, MPI_INT, next, 50, in, N, MPI_INT, prev, 50, MPI_COMM_WORLD, &st));
    expect_from(in, N, prev, &st);
    int buf[N];
    fill(buf, N, rank);
    OK(MPI_Sendrecv_replace_c(buf, N, MPI_INT, next, 51, prev, 51, MPI_COMM_WORLD, &st));
    expect_from(buf, N, prev, &st);
    /* matched probes and their receives */
    OK(MPI_Isend_c(out, N, MPI_INT, next, 60, MPI_COMM_WORLD, &r[1]));
    MPI_Message m;
    OK(MPI_Mprobe(prev, 60, MPI_COMM_WORLD, &m, &st));
    memset(in, 0, sizeof in);
    OK(MPI_Mrecv_c(in, N, MPI_INT, &m, &st));
    expect_from(in, N, prev, &st);
    OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    OK(MPI_Isend_c(out, N, MPI_INT, next, 61, MPI_COMM_WORLD, &r[1]));
    int flag = 0;
    while (!flag) OK(MPI_Improbe(prev, 61, MPI_COMM_WORLD, &flag, &m, &st));
    memset(in, 0, sizeof in);
    OK(MPI_Imrecv_c(in, N, MPI_INT, &m, &r[0]));
    OK(MPI_Wait(&r[0], &st));
    expect_from(in, N, prev, &st);
    OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
}

/* ---- collectives: each _c call against its int twin, blocking and not ---- */

static void same(const void *a, const void *b, size_t n) {
    CHECK(memcmp(a, b, n) == 0);
}

static void user_sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type) {
    CHECK(*type == MPI_INT);
    for (MPI_Count i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void coll(void) {
    int p = size;
    int *a = calloc((size_t)p * N, sizeof *a), *b = calloc((size_t)p * N, sizeof *b);
    int *big = malloc((size_t)p * N * sizeof *big), send[N];
    int counts[64], displs[64];
    MPI_Count ccounts[64];
    MPI_Aint cdispls[64], bdispls[64];
    MPI_Datatype types[64];
    CHECK(a && b && big && p <= 64);
    for (int i = 0; i < p * N; i++) big[i] = rank * 1000 + i;
    fill(send, N, rank + 1);
    for (int i = 0; i < p; i++) {
        counts[i] = ccounts[i] = 1 + (i % 3); /* uneven blocks */
        displs[i] = (int)(cdispls[i] = (MPI_Aint)i * N);
        bdispls[i] = cdispls[i] * (MPI_Aint)sizeof(int);
        types[i] = MPI_INT;
    }
    MPI_Request r;
    MPI_Op user;
    OK(MPI_Op_create_c(user_sum_c, 1, &user));
    for (int nb = 0; nb < 3; nb++) {
#define TWIN(int_call, c_call)                                                                     \
    do {                                                                                           \
        memset(a, 0, (size_t)p *N * sizeof *a);                                                    \
        memset(b, 0, (size_t)p *N * sizeof *b);                                                    \
        OK(int_call);                                                                              \
        OK(c_call);                                                                                \
        same(a, b, (size_t)p *N * sizeof *a);                                                      \
    } while (0)
        /* the int call always blocking; the _c one as nb says: 0 blocking, 1 non-blocking,
         * 2 persistent (made, started twice, freed) */
#define NB(blocking, nonblocking, persistent, ...)                                                 \
    (nb == 1   ? (nonblocking(__VA_ARGS__, &r) || MPI_Wait(&r, MPI_STATUS_IGNORE))                 \
     : nb == 2 ? (persistent(__VA_ARGS__, MPI_INFO_NULL, &r) || MPI_Start(&r) ||                   \
                  MPI_Wait(&r, MPI_STATUS_IGNORE) || MPI_Start(&r) ||                              \
                  MPI_Wait(&r, MPI_STATUS_IGNORE) || MPI_Request_free(&r))                         \
               : blocking(__VA_ARGS__))
        TWIN((memcpy(a, big, N * sizeof *a), MPI_Bcast(a, N, MPI_INT, p - 1, MPI_COMM_WORLD)),
             (memcpy(b, big, N * sizeof *b), NB(MPI_Bcast_c, MPI_Ibcast_c, MPI_Bcast_init_c, b, N,
                                                MPI_INT, p - 1, MPI_COMM_WORLD)));
        TWIN(MPI_Reduce(send, a, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD),
             NB(MPI_Reduce_c, MPI_Ireduce_c, MPI_Reduce_init_c, send, b, N, MPI_INT, MPI_SUM, 0,
                MPI_COMM_WORLD));
        TWIN(MPI_Allreduce(send, a, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD),
             NB(MPI_Allreduce_c, MPI_Iallreduce_c, MPI_Allreduce_init_c, send, b, N, MPI_INT,
                MPI_MAX, MPI_COMM_WORLD));
        TWIN(MPI_Allreduce(send, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
             NB(MPI_Allreduce_c, MPI_Iallreduce_c, MPI_Allreduce_init_c, send, b, N, MPI_INT, user,
                MPI_COMM_WORLD));
        TWIN(MPI_Scan(send, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
             NB(MPI_Scan_c, MPI_Iscan_c, MPI_Scan_init_c, send, b, N, MPI_INT, MPI_SUM,
                MPI_COMM_WORLD));
        TWIN(MPI_Exscan(send, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
             NB(MPI_Exscan_c, MPI_Iexscan_c, MPI_Exscan_init_c, send, b, N, MPI_INT, MPI_SUM,
                MPI_COMM_WORLD));
        TWIN(MPI_Reduce_scatter(big, a, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
             NB(MPI_Reduce_scatter_c, MPI_Ireduce_scatter_c, MPI_Reduce_scatter_init_c, big, b,
                ccounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        TWIN(MPI_Reduce_scatter_block(big, a, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
             NB(MPI_Reduce_scatter_block_c, MPI_Ireduce_scatter_block_c,
                MPI_Reduce_scatter_block_init_c, big, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        TWIN(MPI_Gather(send, N, MPI_INT, a, N, MPI_INT, 1, MPI_COMM_WORLD),
             NB(MPI_Gather_c, MPI_Igather_c, MPI_Gather_init_c, send, N, MPI_INT, b, N, MPI_INT, 1,
                MPI_COMM_WORLD));
        TWIN(MPI_Scatter(big, N, MPI_INT, a, N, MPI_INT, 0, MPI_COMM_WORLD),
             NB(MPI_Scatter_c, MPI_Iscatter_c, MPI_Scatter_init_c, big, N, MPI_INT, b, N, MPI_INT,
                0, MPI_COMM_WORLD));
        TWIN(
            MPI_Gatherv(send, counts[rank], MPI_INT, a, counts, displs, MPI_INT, 0, MPI_COMM_WORLD),
            NB(MPI_Gatherv_c, MPI_Igatherv_c, MPI_Gatherv_init_c, send, ccounts[rank], MPI_INT, b,
               ccounts, cdispls, MPI_INT, 0, MPI_COMM_WORLD));
        TWIN(
            MPI_Scatterv(big, counts, displs, MPI_INT, a, counts[rank], MPI_INT, 0, MPI_COMM_WORLD),
            NB(MPI_Scatterv_c, MPI_Iscatterv_c, MPI_Scatterv_init_c, big, ccounts, cdispls, MPI_INT,
               b, ccounts[rank], MPI_INT, 0, MPI_COMM_WORLD));
        TWIN(MPI_Allgather(send, N, MPI_INT, a, N, MPI_INT, MPI_COMM_WORLD),
             NB(MPI_Allgather_c, MPI_Iallgather_c, MPI_Allgather_init_c, send, N, MPI_INT, b, N,
                MPI_INT, MPI_COMM_WORLD));
        TWIN(
            MPI_Allgatherv(send, counts[rank], MPI_INT, a, counts, displs, MPI_INT, MPI_COMM_WORLD),
            NB(MPI_Allgatherv_c, MPI_Iallgatherv_c, MPI_Allgatherv_init_c, send, ccounts[rank],
               MPI_INT, b, ccounts, cdispls, MPI_INT, MPI_COMM_WORLD));
        TWIN(MPI_Alltoall(big, N, MPI_INT, a, N, MPI_INT, MPI_COMM_WORLD),
             NB(MPI_Alltoall_c, MPI_Ialltoall_c, MPI_Alltoall_init_c, big, N, MPI_INT, b, N,
                MPI_INT, MPI_COMM_WORLD));
        /* pairwise counts: what rank r sends rank i is what i takes from r */
        int pc[64];
        MPI_Count cpc[64];
        for (int i = 0; i < p; i++) pc[i] = (int)(cpc[i] = 1 + (rank + i) % 3);
        TWIN(MPI_Alltoallv(big, pc, displs, MPI_INT, a, pc, displs, MPI_INT, MPI_COMM_WORLD),
             NB(MPI_Alltoallv_c, MPI_Ialltoallv_c, MPI_Alltoallv_init_c, big, cpc, cdispls, MPI_INT,
                b, cpc, cdispls, MPI_INT, MPI_COMM_WORLD));
        int bytes_displs[64];
        for (int i = 0; i < p; i++) bytes_displs[i] = (int)bdispls[i];
        TWIN(
            MPI_Alltoallw(big, pc, bytes_displs, types, a, pc, bytes_displs, types, MPI_COMM_WORLD),
            NB(MPI_Alltoallw_c, MPI_Ialltoallw_c, MPI_Alltoallw_init_c, big, cpc, bdispls, types, b,
               cpc, bdispls, types, MPI_COMM_WORLD));
    }
    /* local reductions, with a predefined and a large-count user op */
    int x[N], y[N], z[N];
    fill(x, N, 1);
    fill(y, N, 2);
    memcpy(z, y, sizeof y);
    OK(MPI_Reduce_local(x, y, N, MPI_INT, MPI_SUM));
    OK(MPI_Reduce_local_c(x, z, N, MPI_INT, MPI_SUM));
    same(y, z, sizeof y);
    fill(z, N, 2);
    OK(MPI_Reduce_local_c(x, z, N, MPI_INT, user));
    same(y, z, sizeof y);
    int commute = 0;
    OK(MPI_Op_commutative(user, &commute));
    CHECK(commute == 1);
    OK(MPI_Op_free(&user));
    free(a);
    free(b);
    free(big);
}

/* ---- neighbourhood collectives, on a periodic ring ---- */

static void neighbors(void) {
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    int send[2 * N], a[2 * N], b[2 * N], counts[2] = {N, N - 1}, displs[2] = {0, N};
    MPI_Count ccounts[2] = {N, N - 1};
    MPI_Aint cdispls[2] = {0, N}, bdispls[2] = {0, N * sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    fill(send, 2 * N, rank + 1);
    MPI_Request r;
    for (int nb = 0; nb < 3; nb++) {
#define RING(int_call, c_call)                                                                     \
    do {                                                                                           \
        memset(a, 0, sizeof a);                                                                    \
        memset(b, 0, sizeof b);                                                                    \
        OK(int_call);                                                                              \
        OK(c_call);                                                                                \
        same(a, b, sizeof a);                                                                      \
    } while (0)
        RING(MPI_Neighbor_allgather(send, N, MPI_INT, a, N, MPI_INT, ring),
             NB(MPI_Neighbor_allgather_c, MPI_Ineighbor_allgather_c, MPI_Neighbor_allgather_init_c,
                send, N, MPI_INT, b, N, MPI_INT, ring));
        RING(MPI_Neighbor_allgatherv(send, N - 1, MPI_INT, a, (int[]){N - 1, N - 1}, displs,
                                     MPI_INT, ring),
             NB(MPI_Neighbor_allgatherv_c, MPI_Ineighbor_allgatherv_c,
                MPI_Neighbor_allgatherv_init_c, send, N - 1, MPI_INT, b,
                (MPI_Count[]){N - 1, N - 1}, cdispls, MPI_INT, ring));
        RING(MPI_Neighbor_alltoall(send, N, MPI_INT, a, N, MPI_INT, ring),
             NB(MPI_Neighbor_alltoall_c, MPI_Ineighbor_alltoall_c, MPI_Neighbor_alltoall_init_c,
                send, N, MPI_INT, b, N, MPI_INT, ring));
        /* a ring's -1 neighbour receives what the +1 one was sent: counts pair up */
        int sc[2] = {counts[1], counts[0]};
        MPI_Count csc[2] = {ccounts[1], ccounts[0]};
        RING(MPI_Neighbor_alltoallv(send, sc, displs, MPI_INT, a, counts, displs, MPI_INT, ring),
             NB(MPI_Neighbor_alltoallv_c, MPI_Ineighbor_alltoallv_c, MPI_Neighbor_alltoallv_init_c,
                send, csc, cdispls, MPI_INT, b, ccounts, cdispls, MPI_INT, ring));
        RING(MPI_Neighbor_alltoallw(send, sc, bdispls, types, a, counts, bdispls, types, ring),
             NB(MPI_Neighbor_alltoallw_c, MPI_Ineighbor_alltoallw_c, MPI_Neighbor_alltoallw_init_c,
                send, csc, bdispls, types, b, ccounts, bdispls, types, ring));
    }
    OK(MPI_Comm_free(&ring));
}

/* ---- one-sided ---- */

static void rma(void) {
    int *base;
    MPI_Win w;
    OK(MPI_Win_allocate_c(N * 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                          &w));
    memset(base, 0, N * 4 * sizeof(int));
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* cleared before any rank's first access */
    int out[N], in[N], res[N];
    fill(out, N, rank);
    OK(MPI_Win_fence(0, w));
    OK(MPI_Put_c(out, N, MPI_INT, next, 0, N, MPI_INT, w));
    OK(MPI_Accumulate_c(out, N, MPI_INT, next, N, N, MPI_INT, MPI_SUM, w));
    OK(MPI_Accumulate_c(out, N, MPI_INT, next, N, N, MPI_INT, MPI_SUM, w));
    OK(MPI_Win_fence(0, w));
    expect_from(base, N, prev, NULL);
    for (int i = 0; i < N; i++) CHECK(base[N + i] == 2 * (prev * 100 + i));
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* read before the next epoch changes it */
    memset(in, 0, sizeof in);
    OK(MPI_Get_c(in, N, MPI_INT, next, 0, N, MPI_INT, w));
    OK(MPI_Get_accumulate_c(out, N, MPI_INT, res, N, MPI_INT, next, N, N, MPI_INT, MPI_SUM, w));
    OK(MPI_Win_fence(0, w));
    expect_from(in, N, rank, NULL); /* what this rank put there */
    for (int i = 0; i < N; i++) CHECK(res[i] == 2 * (rank * 100 + i));
    MPI_Request r[4];
    OK(MPI_Win_lock_all(0, w));
    memset(in, 0, sizeof in);
    OK(MPI_Rput_c(out, N, MPI_INT, next, 2 * N, N, MPI_INT, w, &r[0]));
    OK(MPI_Waitall(1, r, MPI_STATUSES_IGNORE));
    OK(MPI_Rget_c(in, N, MPI_INT, next, 2 * N, N, MPI_INT, w, &r[1]));
    OK(MPI_Raccumulate_c(out, N, MPI_INT, next, 3 * N, N, MPI_INT, MPI_SUM, w, &r[2]));
    OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    OK(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
    OK(MPI_Rget_accumulate_c(out, N, MPI_INT, res, N, MPI_INT, next, 3 * N, N, MPI_INT, MPI_SUM, w,
                             &r[3]));
    OK(MPI_Wait(&r[3], MPI_STATUS_IGNORE));
    OK(MPI_Win_unlock_all(w));
    expect_from(in, N, rank, NULL);
    expect_from(res, N, rank, NULL); /* the one Raccumulate_c before it */
    OK(MPI_Win_free(&w));
    /* a window over the program's memory, and a shared one among the node's ranks */
    int mine[N];
    OK(MPI_Win_create_c(mine, sizeof mine, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    OK(MPI_Win_free(&w));
    /* a disp_unit an int cannot hold */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(class_of(MPI_Win_allocate_c(8, (MPI_Aint)1 << 40, MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                                      &w)) == MPI_ERR_DISP);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    if (!all_on_one_node()) return; /* shared memory among the node's ranks only */
    MPI_Comm node;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int *shared;
    OK(MPI_Win_allocate_shared_c(N * sizeof(int), 2, MPI_INFO_NULL, node, &shared, &w));
    MPI_Aint bytes, unit;
    int *at, iunit;
    MPI_Aint ibytes;
    OK(MPI_Win_shared_query_c(w, 0, &bytes, &unit, &at));
    OK(MPI_Win_shared_query(w, 0, &ibytes, &iunit, &at));
    CHECK(bytes == ibytes && bytes == N * (MPI_Aint)sizeof(int) && unit == 2 && iunit == 2);
    OK(MPI_Win_free(&w));
    OK(MPI_Comm_free(&node));
}

/* ---- datatypes and packing ---- */

/* Two types are the same layout: size, extents, and the bytes they pack from one
 * buffer. */
static void same_type(MPI_Datatype t, MPI_Datatype u) {
    OK(MPI_Type_commit(&t));
    OK(MPI_Type_commit(&u));
    int s;
    MPI_Count sc;
    MPI_Aint lb, ext, tlb, text;
    MPI_Count clb, cext, ctlb, ctext;
    OK(MPI_Type_size(t, &s));
    OK(MPI_Type_size_c(u, &sc));
    CHECK(s == sc);
    OK(MPI_Type_get_extent(t, &lb, &ext));
    OK(MPI_Type_get_extent_c(u, &clb, &cext));
    CHECK(lb == clb && ext == cext);
    OK(MPI_Type_get_true_extent(t, &tlb, &text));
    OK(MPI_Type_get_true_extent_c(u, &ctlb, &ctext));
    CHECK(tlb == ctlb && text == ctext);
    static unsigned char src[1 << 12], p1[1 << 12], p2[1 << 12];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (unsigned char)(i * 7);
    int pos = 0;
    MPI_Count cpos = 0, psize;
    int ipsize;
    OK(MPI_Pack_size(2, t, MPI_COMM_WORLD, &ipsize));
    OK(MPI_Pack_size_c(2, u, MPI_COMM_WORLD, &psize));
    CHECK(ipsize == psize && psize == 2 * sc);
    const unsigned char *from = src + (lb < 0 ? -lb : 0) + 64;
    OK(MPI_Pack(from, 2, t, p1, sizeof p1, &pos, MPI_COMM_WORLD));
    OK(MPI_Pack_c(from, 2, u, p2, sizeof p2, &cpos, MPI_COMM_WORLD));
    CHECK(pos == cpos && pos == 2 * s);
    same(p1, p2, (size_t)pos);
    /* back, the _c way */
    static unsigned char back[1 << 12];
    memset(back, 0, sizeof back);
    cpos = 0;
    OK(MPI_Unpack_c(p2, sizeof p2, &cpos, back + (from - src), 2, u, MPI_COMM_WORLD));
    CHECK(cpos == 2 * sc);
    pos = 0;
    memset(p1, 0, sizeof p1);
    OK(MPI_Pack(back + (from - src), 2, t, p1, sizeof p1, &pos, MPI_COMM_WORLD));
    same(p1, p2, (size_t)pos);
    OK(MPI_Type_free(&t));
    OK(MPI_Type_free(&u));
}

/* The large counts a type of a _c constructor gives back, and its combiner. */
static void contents_are(MPI_Datatype t, int combiner, int n, const MPI_Count *want, int nints) {
    MPI_Count ni, na, nc, nd;
    int comb;
    OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == combiner && nc == n && ni == nints && na == 0 && nd >= 1);
    MPI_Count got[32];
    MPI_Datatype ts[8];
    int ints[16];
    OK(MPI_Type_get_contents_c(t, 16, 0, 32, 8, ints, NULL, got, ts));
    for (int i = 0; i < n; i++) CHECK(got[i] == want[i]);
    for (int k = 0; k < nd; k++) {
        int c2, x1, x2, x3;
        MPI_Type_get_envelope(ts[k], &x1, &x2, &x3, &c2);
        if (c2 != MPI_COMBINER_NAMED) MPI_Type_free(&ts[k]);
    }
    /* the int forms cannot describe it */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int i1, i2, i3, i4;
    CHECK(class_of(MPI_Type_get_envelope(t, &i1, &i2, &i3, &i4)) == MPI_ERR_VALUE_TOO_LARGE);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void datatypes(void) {
    MPI_Datatype t, u;
    OK(MPI_Type_contiguous(5, MPI_INT, &t));
    OK(MPI_Type_contiguous_c(5, MPI_INT, &u));
    contents_are(u, MPI_COMBINER_CONTIGUOUS, 1, (MPI_Count[]){5}, 0);
    same_type(t, u);
    OK(MPI_Type_vector(3, 2, 4, MPI_SHORT, &t));
    OK(MPI_Type_vector_c(3, 2, 4, MPI_SHORT, &u));
    contents_are(u, MPI_COMBINER_VECTOR, 3, (MPI_Count[]){3, 2, 4}, 0);
    same_type(t, u);
    OK(MPI_Type_create_hvector(3, 2, 20, MPI_INT, &t));
    OK(MPI_Type_create_hvector_c(3, 2, 20, MPI_INT, &u));
    contents_are(u, MPI_COMBINER_HVECTOR, 3, (MPI_Count[]){3, 2, 20}, 0);
    same_type(t, u);
    int lens[] = {2, 1, 3}, disps[] = {5, 0, 9};
    MPI_Count clens[] = {2, 1, 3}, cdisps[] = {5, 0, 9}, hdisps[] = {40, 0, 72};
    MPI_Aint adisps[] = {40, 0, 72};
    OK(MPI_Type_indexed(3, lens, disps, MPI_DOUBLE, &t));
    OK(MPI_Type_indexed_c(3, clens, cdisps, MPI_DOUBLE, &u));
    contents_are(u, MPI_COMBINER_INDEXED, 7, (MPI_Count[]){3, 2, 1, 3, 5, 0, 9}, 0);
    same_type(t, u);
    OK(MPI_Type_create_hindexed(3, lens, adisps, MPI_DOUBLE, &t));
    OK(MPI_Type_create_hindexed_c(3, clens, hdisps, MPI_DOUBLE, &u));
    same_type(t, u);
    OK(MPI_Type_create_indexed_block(3, 2, disps, MPI_INT, &t));
    OK(MPI_Type_create_indexed_block_c(3, 2, cdisps, MPI_INT, &u));
    contents_are(u, MPI_COMBINER_INDEXED_BLOCK, 5, (MPI_Count[]){3, 2, 5, 0, 9}, 0);
    same_type(t, u);
    OK(MPI_Type_create_hindexed_block(3, 2, adisps, MPI_INT, &t));
    OK(MPI_Type_create_hindexed_block_c(3, 2, hdisps, MPI_INT, &u));
    same_type(t, u);
    MPI_Datatype members[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Aint sdisps[] = {0, 8, 24};
    MPI_Count csdisps[] = {0, 8, 24};
    OK(MPI_Type_create_struct(3, lens, sdisps, members, &t));
    OK(MPI_Type_create_struct_c(3, clens, csdisps, members, &u));
    contents_are(u, MPI_COMBINER_STRUCT, 7, (MPI_Count[]){3, 2, 1, 3, 0, 8, 24}, 0);
    same_type(t, u);
    OK(MPI_Type_create_resized(MPI_INT, -4, 12, &t));
    OK(MPI_Type_create_resized_c(MPI_INT, -4, 12, &u));
    contents_are(u, MPI_COMBINER_RESIZED, 2, (MPI_Count[]){-4, 12}, 0);
    same_type(t, u);
    int sizes[] = {6, 5}, subsizes[] = {3, 2}, starts[] = {1, 2};
    MPI_Count csizes[] = {6, 5}, csubsizes[] = {3, 2}, cstarts[] = {1, 2};
    OK(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t));
    OK(MPI_Type_create_subarray_c(2, csizes, csubsizes, cstarts, MPI_ORDER_C, MPI_INT, &u));
    contents_are(u, MPI_COMBINER_SUBARRAY, 6, (MPI_Count[]){6, 5, 3, 2, 1, 2}, 2);
    same_type(t, u);
    int psizes[] = {2, 1}, distribs[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
        dargs[] = {2, MPI_DISTRIBUTE_DFLT_DARG};
    OK(MPI_Type_create_darray(2, 1, 2, sizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN,
                              MPI_DOUBLE, &t));
    OK(MPI_Type_create_darray_c(2, 1, 2, csizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN,
                                MPI_DOUBLE, &u));
    contents_are(u, MPI_COMBINER_DARRAY, 2, (MPI_Count[]){6, 5}, 10);
    same_type(t, u);
    /* a predefined type's envelope */
    MPI_Count ni, na, nc, nd;
    int comb;
    OK(MPI_Type_get_envelope_c(MPI_INT, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nc == 0 && nd == 0);
    /* an int constructor's type through the _c queries: no large counts */
    OK(MPI_Type_vector(2, 1, 3, MPI_INT, &t));
    OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nc == 0 && nd == 1);
    int ints[3];
    MPI_Datatype old;
    OK(MPI_Type_get_contents_c(t, 3, 0, 0, 1, ints, NULL, NULL, &old));
    CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 3 && old == MPI_INT);
    OK(MPI_Type_free(&t));

    /* counts of a status */
    MPI_Status st;
    int c;
    MPI_Count cc;
    OK(MPI_Status_set_elements(&st, MPI_INT, 7));
    OK(MPI_Get_count(&st, MPI_INT, &c));
    OK(MPI_Get_count_c(&st, MPI_INT, &cc));
    CHECK(c == 7 && cc == 7);
    OK(MPI_Status_set_elements_c(&st, MPI_SHORT, 9));
    OK(MPI_Get_elements(&st, MPI_SHORT, &c));
    OK(MPI_Get_elements_c(&st, MPI_SHORT, &cc));
    CHECK(c == 9 && cc == 9);
    OK(MPI_Get_count_c(&st, MPI_INT, &cc)); /* 18 bytes: not a whole number of ints */
    CHECK(cc == MPI_UNDEFINED);

    /* external32 */
    int v[N], w[N];
    fill(v, N, 3);
    unsigned char e1[64], e2[64];
    MPI_Aint pos = 0, esize;
    MPI_Count cpos = 0, cesize;
    OK(MPI_Pack_external_size("external32", N, MPI_INT, &esize));
    OK(MPI_Pack_external_size_c("external32", N, MPI_INT, &cesize));
    CHECK(esize == cesize && esize == 4 * N);
    OK(MPI_Pack_external("external32", v, N, MPI_INT, e1, sizeof e1, &pos));
    OK(MPI_Pack_external_c("external32", v, N, MPI_INT, e2, sizeof e2, &cpos));
    CHECK(pos == cpos && pos == esize);
    same(e1, e2, (size_t)pos);
    memset(w, 0, sizeof w);
    cpos = 0;
    OK(MPI_Unpack_external_c("external32", e2, sizeof e2, &cpos, w, N, MPI_INT));
    CHECK(cpos == esize);
    same(v, w, sizeof v);
}

/* ---- what large counts change, without moving much data ---- */

static void large_without_data(void) {
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Count big = ((MPI_Count)3 << 30) + 5; /* beyond INT_MAX */
    /* a negative count, large or small, is MPI_ERR_COUNT */
    MPI_Count negative[] = {-1, -((MPI_Count)1 << 40), INT_MIN - (MPI_Count)1};
    int x = 0;
    MPI_Request r;
    MPI_Datatype t;
    for (int k = 0; k < 3; k++) {
        MPI_Count n = negative[k];
        CHECK(class_of(MPI_Send_c(&x, n, MPI_INT, next, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
        CHECK(class_of(MPI_Isend_c(&x, n, MPI_INT, next, 0, MPI_COMM_WORLD, &r)) == MPI_ERR_COUNT);
        CHECK(class_of(MPI_Recv_c(&x, n, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)) ==
              MPI_ERR_COUNT);
        CHECK(class_of(MPI_Bcast_c(&x, n, MPI_INT, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
        CHECK(class_of(MPI_Allreduce_c(&x, &x + 1, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) ==
              MPI_ERR_COUNT);
        CHECK(class_of(MPI_Type_contiguous_c(n, MPI_INT, &t)) == MPI_ERR_COUNT);
        MPI_Count pos = 0, s;
        CHECK(class_of(MPI_Pack_c(&x, n, MPI_INT, &x, 4, &pos, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
        CHECK(class_of(MPI_Pack_size_c(n, MPI_INT, MPI_COMM_WORLD, &s)) == MPI_ERR_COUNT);
    }
    /* a count whose bytes no memory could hold */
    CHECK(class_of(MPI_Send_c(&x, (MPI_Count)1 << 62, MPI_DOUBLE, next, 0, MPI_COMM_WORLD)) ==
          MPI_ERR_COUNT);

    /* a type of more than INT_MAX bytes: the int queries say MPI_UNDEFINED or refuse */
    OK(MPI_Type_contiguous_c(big, MPI_BYTE, &t));
    OK(MPI_Type_commit(&t));
    int s;
    MPI_Count cs;
    OK(MPI_Type_size(t, &s));
    OK(MPI_Type_size_c(t, &cs));
    CHECK(s == MPI_UNDEFINED && cs == big);
    OK(MPI_Type_size_x(t, &cs));
    CHECK(cs == big);
    CHECK(class_of(MPI_Pack_size(1, t, MPI_COMM_WORLD, &s)) == MPI_ERR_VALUE_TOO_LARGE);
    OK(MPI_Pack_size_c(1, t, MPI_COMM_WORLD, &cs));
    CHECK(cs == big);
    MPI_Count lb, ext;
    OK(MPI_Type_get_extent_c(t, &lb, &ext));
    CHECK(lb == 0 && ext == big);
    OK(MPI_Type_free(&t));
    /* 2^31 elements of a vector: its size in ints is past INT_MAX too */
    OK(MPI_Type_vector_c((MPI_Count)1 << 20, (MPI_Count)1 << 11, (MPI_Count)1 << 12, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    OK(MPI_Type_size(t, &s));
    OK(MPI_Type_size_c(t, &cs));
    CHECK(s == MPI_UNDEFINED && cs == ((MPI_Count)1 << 33));
    OK(MPI_Type_free(&t));

    /* a status of more than INT_MAX items */
    MPI_Status st;
    int c;
    MPI_Count cc;
    OK(MPI_Status_set_elements_c(&st, MPI_BYTE, big));
    OK(MPI_Get_count(&st, MPI_BYTE, &c));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &cc));
    CHECK(c == MPI_UNDEFINED && cc == big);
    OK(MPI_Get_elements(&st, MPI_BYTE, &c));
    OK(MPI_Get_elements_c(&st, MPI_BYTE, &cc));
    CHECK(c == MPI_UNDEFINED && cc == big);
    OK(MPI_Get_elements_x(&st, MPI_BYTE, &cc));
    CHECK(cc == big);
    OK(MPI_Get_count(&st, MPI_INT, &c)); /* 3 GiB + 5 bytes: not whole ints */
    CHECK(c == MPI_UNDEFINED);
    OK(MPI_Status_set_elements_c(&st, MPI_INT, (MPI_Count)1 << 31));
    OK(MPI_Get_count_c(&st, MPI_INT, &cc));
    OK(MPI_Get_count(&st, MPI_INT, &c));
    CHECK(cc == (MPI_Count)1 << 31 && c == MPI_UNDEFINED);
    OK(MPI_Status_set_elements_c(&st, MPI_INT, INT_MAX));
    OK(MPI_Get_count(&st, MPI_INT, &c));
    CHECK(c == INT_MAX);

    /* the class has a name */
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    OK(MPI_Error_string(MPI_ERR_VALUE_TOO_LARGE, msg, &len));
    CHECK(len > 0);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* ---- buffers for buffered sends, the process's and a communicator's ---- */

static void buffers(void) {
    int packed;
    OK(MPI_Pack_size(N, MPI_INT, MPI_COMM_WORLD, &packed));
    MPI_Count bytes = 2 * (packed + MPI_BSEND_OVERHEAD);
    char *mem = malloc((size_t)bytes), *cmem = malloc((size_t)bytes);
    CHECK(mem && cmem);
    int out[N], in[N];
    fill(out, N, rank + 7);
    OK(MPI_Buffer_attach_c(mem, bytes));
    OK(MPI_Comm_attach_buffer_c(MPI_COMM_WORLD, cmem, bytes));
    OK(MPI_Bsend_c(out, N, MPI_INT, next, 21, MPI_COMM_WORLD));
    MPI_Status st;
    OK(MPI_Recv(in, N, MPI_INT, prev, 21, MPI_COMM_WORLD, &st));
    expect_from(in, N, prev + 7, &st);
    void *back = NULL;
    MPI_Count n = 0;
    OK(MPI_Comm_detach_buffer_c(MPI_COMM_WORLD, &back, &n));
    CHECK(back == cmem && n == bytes);
    OK(MPI_Buffer_detach_c(&back, &n));
    CHECK(back == mem && n == bytes);
    /* attached with the _c form, detached with the int one: the size fits, and comes back */
    int small = 0;
    OK(MPI_Buffer_attach_c(mem, bytes));
    OK(MPI_Buffer_detach(&back, &small));
    CHECK(back == mem && small == (int)bytes);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(class_of(MPI_Buffer_attach_c(mem, -1)) == MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(mem);
    free(cmem);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    p2p();
    coll();
    neighbors();
    rma();
    datatypes();
    large_without_data();
    buffers();
    OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    if (rank == 0) printf("large_count: every _c call agrees with its int twin\n");
    return 0;
}
