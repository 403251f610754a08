/* Collectives on an intercommunicator between two groups of MPI_COMM_WORLD of
 * different sizes: every collective, blocking and non-blocking, with each group as
 * the root's side, checked against values computed here; then argument errors under
 * MPI_ERRORS_RETURN. Needs 3 or more ranks. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int group, lrank, nlocal, nremote, nonblocking;
static MPI_Request request;

/* Item i of what rank l of group g contributes (never 0, never -1). */
static int value(int g, int l, int i) {
    return 1000000 * g + 1000 * l + i + 1;
}

static void done(int rc) {
    CHECK(rc == MPI_SUCCESS);
    if (nonblocking) CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS);
}

/* A blocking call or its non-blocking twin, then its wait. */
#define COLL(blocking, nb, ...)                                                                    \
    done(nonblocking ? nb(__VA_ARGS__, &request) : blocking(__VA_ARGS__))

enum { N = 3000, SENTINEL = -1 }; /* N ints: long enough for a rendezvous */

static int *sentinel_ints(size_t n) {
    int *a = malloc(n * sizeof *a);
    CHECK(a);
    for (size_t i = 0; i < n; i++) a[i] = SENTINEL;
    return a;
}

/* The root of rooted calls: the last rank of group root_group. */
static int root_arg(int root_group, int root_size) {
    if (group != root_group) return root_size - 1;
    return lrank == root_size - 1 ? MPI_ROOT : MPI_PROC_NULL;
}

static void rooted(MPI_Comm inter, int root_group) {
    int other = !group, root_size = group == root_group ? nlocal : nremote;
    int root = root_arg(root_group, root_size), remote_root = root_size - 1;
    int *buf = sentinel_ints((size_t)N * (nremote + 1)), *mine = sentinel_ints(N);
    for (int i = 0; i < N; i++) mine[i] = value(group, lrank, i);

    /* Bcast: the root's values reach the whole other group */
    int *b = root == MPI_ROOT ? mine : buf;
    COLL(MPI_Bcast, MPI_Ibcast, b, N, MPI_INT, root, inter);
    for (int i = 0; i < N; i++)
        if (root >= 0) CHECK(buf[i] == value(root_group, remote_root, i));
    if (root == MPI_PROC_NULL) CHECK(buf[0] == SENTINEL);

    /* Bcast of a non-contiguous type: every other item, the gaps left alone */
    MPI_Datatype every_other;
    MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int i = 0; i < N; i++) buf[i] = SENTINEL;
    COLL(MPI_Bcast, MPI_Ibcast, b, 1, every_other, root, inter);
    for (int i = 0; i < N; i++)
        if (root >= 0) CHECK(buf[i] == (i % 2 ? SENTINEL : value(root_group, remote_root, i)));
    MPI_Type_free(&every_other);

    /* Reduce: the root gets the sum over the other group */
    for (int i = 0; i < N; i++) buf[i] = SENTINEL;
    COLL(MPI_Reduce, MPI_Ireduce, root == MPI_ROOT ? NULL : mine, buf, N, MPI_INT, MPI_SUM, root,
         inter);
    for (int i = 0; i < N; i++) {
        int sum = 0;
        for (int l = 0; l < nremote; l++) sum += value(other, l, i);
        CHECK(buf[i] == (root == MPI_ROOT ? sum : SENTINEL));
    }

    /* Gather and scatter: block l of the root's buffer is remote rank l's */
    int n = 7;
    for (int i = 0; i < N; i++) buf[i] = SENTINEL;
    COLL(MPI_Gather, MPI_Igather, mine, n, MPI_INT, buf, n, MPI_INT, root, inter);
    for (int l = 0; l < nremote; l++)
        for (int i = 0; i < n; i++)
            CHECK(buf[l * n + i] == (root == MPI_ROOT ? value(other, l, i) : SENTINEL));
    int *got = sentinel_ints(N), *blocks = sentinel_ints((size_t)N * (nremote + 1));
    for (int l = 0; l < nremote; l++)
        for (int i = 0; i < n; i++) blocks[l * n + i] = value(group, l, i);
    COLL(MPI_Scatter, MPI_Iscatter, blocks, n, MPI_INT, got, n, MPI_INT, root, inter);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == (root >= 0 ? value(root_group, lrank, i) : SENTINEL));

    /* Gatherv and scatterv: remote rank l's block is l + 1 items, with gaps between */
    int counts[64], displs[64];
    for (int l = 0; l < nremote; l++) counts[l] = l + 1, displs[l] = 2 * l * (nremote + 1);
    for (int i = 0; i < N; i++) buf[i] = got[i] = SENTINEL;
    COLL(MPI_Gatherv, MPI_Igatherv, mine, lrank + 1, MPI_INT, buf, counts, displs, MPI_INT, root,
         inter);
    for (int l = 0; l < nremote; l++)
        for (int i = 0; i < l + 1; i++)
            CHECK(buf[displs[l] + i] == (root == MPI_ROOT ? value(other, l, i) : SENTINEL));
    for (int l = 0; l < nremote; l++)
        for (int i = 0; i < l + 1; i++) blocks[displs[l] + i] = value(group, l, i);
    COLL(MPI_Scatterv, MPI_Iscatterv, blocks, counts, displs, MPI_INT, got, lrank + 1, MPI_INT,
         root, inter);
    for (int i = 0; i < lrank + 1; i++)
        CHECK(got[i] == (root >= 0 ? value(root_group, lrank, i) : SENTINEL));
    CHECK(got[lrank + 1] == SENTINEL);
    free(buf), free(mine), free(got), free(blocks);
}

/* How many items local rank l sends to remote rank r in the v and w calls. */
static int pair_count(int l, int r) {
    return (l + 2 * r) % 3 + 1;
}

static void everyone(MPI_Comm inter) {
    int other = !group;
    int *buf = sentinel_ints((size_t)N * (nremote + 1)), *mine = sentinel_ints((size_t)N * nlocal);
    for (int i = 0; i < N * nlocal; i++) mine[i] = value(group, lrank, i);

    COLL(MPI_Barrier, MPI_Ibarrier, inter);

    /* Allreduce: each group gets the sum over the other */
    for (int count = 1; count <= N; count += N - 1) {
        for (int i = 0; i < N; i++) buf[i] = SENTINEL;
        COLL(MPI_Allreduce, MPI_Iallreduce, mine, buf, count, MPI_INT, MPI_SUM, inter);
        for (int i = 0; i < count; i++) {
            int sum = 0;
            for (int l = 0; l < nremote; l++) sum += value(other, l, i);
            CHECK(buf[i] == sum);
        }
        CHECK(buf[count] == SENTINEL);
    }

    /* Allgather(v): each group gets the other's blocks */
    int n = 5;
    COLL(MPI_Allgather, MPI_Iallgather, mine, n, MPI_INT, buf, n, MPI_INT, inter);
    for (int l = 0; l < nremote; l++)
        for (int i = 0; i < n; i++) CHECK(buf[l * n + i] == value(other, l, i));
    int counts[64], displs[64], rcounts[64], rdispls[64], sdispls[64];
    for (int l = 0; l < nremote; l++) counts[l] = l + 1, displs[l] = 5 * l;
    COLL(MPI_Allgatherv, MPI_Iallgatherv, mine, lrank + 1, MPI_INT, buf, counts, displs, MPI_INT,
         inter);
    for (int l = 0; l < nremote; l++)
        for (int i = 0; i < l + 1; i++) CHECK(buf[displs[l] + i] == value(other, l, i));

    /* Alltoall(v,w): item i of the block for remote rank r is value(group, lrank, 100 r + i) */
    int *out = sentinel_ints((size_t)N * (nremote + 1));
    for (int r = 0; r < nremote; r++)
        for (int i = 0; i < n; i++) out[r * n + i] = value(group, lrank, 100 * r + i);
    COLL(MPI_Alltoall, MPI_Ialltoall, out, n, MPI_INT, buf, n, MPI_INT, inter);
    for (int l = 0; l < nremote; l++)
        for (int i = 0; i < n; i++) CHECK(buf[l * n + i] == value(other, l, 100 * lrank + i));
    MPI_Datatype types[64];
    for (int r = 0; r < nremote; r++) {
        counts[r] = pair_count(lrank, r), sdispls[r] = 4 * r;
        rcounts[r] = pair_count(r, lrank), rdispls[r] = 4 * (nremote - 1 - r);
        types[r] = MPI_INT;
        for (int i = 0; i < counts[r]; i++) out[sdispls[r] + i] = value(group, lrank, 100 * r + i);
    }
    for (int w = 0; w < 2; w++) {
        for (int i = 0; i < N; i++) buf[i] = SENTINEL;
        if (w) {
            int sbytes[64], rbytes[64];
            for (int r = 0; r < nremote; r++)
                sbytes[r] = sdispls[r] * (int)sizeof(int),
                rbytes[r] = rdispls[r] * (int)sizeof(int);
            COLL(MPI_Alltoallw, MPI_Ialltoallw, out, counts, sbytes, types, buf, rcounts, rbytes,
                 types, inter);
        } else {
            COLL(MPI_Alltoallv, MPI_Ialltoallv, out, counts, sdispls, MPI_INT, buf, rcounts,
                 rdispls, MPI_INT, inter);
        }
        for (int l = 0; l < nremote; l++) {
            for (int i = 0; i < rcounts[l]; i++)
                CHECK(buf[rdispls[l] + i] == value(other, l, 100 * lrank + i));
            CHECK(buf[rdispls[l] + rcounts[l]] == SENTINEL);
        }
    }

    /* Reduce_scatter(_block): the sum over the other group, scattered over this one;
     * both groups reduce total items */
    int total = nlocal * nremote, at = 0;
    for (int l = 0; l < nlocal; l++) counts[l] = total / nlocal + (l < total % nlocal);
    for (int l = 0; l < lrank; l++) at += counts[l];
    for (int block = 0; block < 2; block++) {
        for (int i = 0; i < N; i++) buf[i] = SENTINEL;
        int mycount = block ? nremote : counts[lrank], first = block ? lrank * nremote : at;
        if (block)
            COLL(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, mine, buf, nremote, MPI_INT,
                 MPI_SUM, inter);
        else
            COLL(MPI_Reduce_scatter, MPI_Ireduce_scatter, mine, buf, counts, MPI_INT, MPI_SUM,
                 inter);
        for (int i = 0; i < mycount; i++) {
            int sum = 0;
            for (int l = 0; l < nremote; l++) sum += value(other, l, first + i);
            CHECK(buf[i] == sum);
        }
        CHECK(buf[mycount] == SENTINEL);
    }
    free(buf), free(mine), free(out);
}

#define EXPECT(call, class)                                                                        \
    do {                                                                                           \
        int rc_ = (call), class_;                                                                  \
        MPI_Error_class(rc_, &class_);                                                             \
        CHECK(class_ == (class));                                                                  \
    } while (0)

static void errors(MPI_Comm inter) {
    int a[4] = {0}, b[64] = {0};
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT(MPI_Bcast(a, 1, MPI_INT, nremote, inter), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(a, 1, MPI_INT, -7, inter), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, MPI_ANY_SOURCE, inter), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(a, 1, MPI_INT, MPI_ROOT, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT(MPI_Allreduce(MPI_IN_PLACE, a, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
    EXPECT(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, inter), MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, inter), MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce_scatter_block(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
    EXPECT(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, 0, inter), MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, 0, inter), MPI_ERR_BUFFER);
    EXPECT(MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
    MPI_Request r;
    EXPECT(MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, inter, &r), MPI_ERR_COMM);
    /* the failed calls took no tag: the groups still agree */
    CHECK(MPI_Barrier(inter) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 3 && size <= 64);
    int na = (size - 1) / 2; /* group A is the smaller */
    group = rank >= na;
    nlocal = group ? size - na : na, nremote = size - nlocal, lrank = group ? rank - na : rank;
    MPI_Comm half, inter;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, group, rank, &half) == MPI_SUCCESS);
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, group ? 0 : na, 5, &inter) == MPI_SUCCESS);
    for (nonblocking = 0; nonblocking < 2; nonblocking++) {
        everyone(inter);
        for (int root_group = 0; root_group < 2; root_group++) rooted(inter, root_group);
    }
    errors(inter);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    if (rank == 0) printf("intercoll: ok\n");
    MPI_Finalize();
    return 0;
}
