/* Collective calls with invalid arguments under MPI_ERRORS_RETURN: each returns the
 * class that names the fault, on every rank alike (no rank starts the collective,
 * so nothing is left half done); afterwards the collectives still work. */
#include <mpi.h>
#include <stdio.h>

#include "mpi_check.h"

#define EXPECT(call, want)                                                                         \
    do {                                                                                           \
        int got_ = (call);                                                                         \
        if (got_ != (want))                                                                        \
            fprintf(stderr, "%s:%d: %s returned %d, not %d\n", __FILE__, __LINE__, #call, got_,    \
                    want);                                                                         \
        CHECK(got_ == (want));                                                                     \
    } while (0)

static void noop(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)in, (void)inout, (void)len, (void)type;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int a[64] = {0}, b[64] = {0}, counts[64], displs[64];
    for (int i = 0; i < 64; i++) counts[i] = 1, displs[i] = i;
    MPI_Datatype types[64];
    for (int i = 0; i < 64; i++) types[i] = MPI_INT;
    MPI_Request r = MPI_REQUEST_NULL;

    /* communicators and requests */
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Bcast(a, 1, MPI_INT, 0, 0x44000fff), MPI_ERR_COMM);
    EXPECT(MPI_Ibarrier(w, NULL), MPI_ERR_REQUEST);
    EXPECT(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, w, NULL), MPI_ERR_REQUEST);
    /* roots */
    EXPECT(MPI_Bcast(a, 1, MPI_INT, size, w), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(a, 1, MPI_INT, -1, w), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, size, w), MPI_ERR_ROOT);
    EXPECT(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, -3, w), MPI_ERR_ROOT);
    EXPECT(MPI_Iscatterv(a, counts, displs, MPI_INT, b, 1, MPI_INT, size, w, &r), MPI_ERR_ROOT);
    /* counts */
    EXPECT(MPI_Bcast(a, -1, MPI_INT, 0, w), MPI_ERR_COUNT);
    EXPECT(MPI_Allreduce(a, b, -2, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    EXPECT(MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, w), MPI_ERR_COUNT);
    EXPECT(MPI_Reduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    counts[0] = -1;
    EXPECT(MPI_Allgatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, w), MPI_ERR_COUNT);
    EXPECT(MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, w), MPI_ERR_COUNT);
    counts[0] = 1;
    /* types */
    EXPECT(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, w), MPI_ERR_TYPE);
    EXPECT(MPI_Allreduce(a, b, 1, (MPI_Datatype)0x4c0004ff, MPI_SUM, w), MPI_ERR_TYPE);
    EXPECT(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_COMM_WORLD, w), MPI_ERR_TYPE);
    /* ops */
    EXPECT(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(a, b, 1, MPI_INT, MPI_MINLOC, w), MPI_ERR_OP);
    EXPECT(MPI_Reduce(a, b, 1, MPI_FLOAT, MPI_BAND, 0, w), MPI_ERR_OP);
    EXPECT(MPI_Scan(a, b, 1, MPI_C_BOOL, MPI_SUM, w), MPI_ERR_OP);
    EXPECT(MPI_Iexscan(a, b, 1, MPI_WCHAR, MPI_MAX, w, &r), MPI_ERR_OP);
    EXPECT(MPI_Reduce_local(a, b, 1, MPI_BYTE, MPI_SUM), MPI_ERR_OP);
    MPI_Op op = MPI_SUM;
    EXPECT(MPI_Op_free(&op), MPI_ERR_OP);
    int commute;
    EXPECT(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP);
    EXPECT(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG);
    CHECK(MPI_Op_create(noop, 1, &op) == MPI_SUCCESS);
    CHECK(MPI_Op_free(&op) == MPI_SUCCESS);
    EXPECT(MPI_Allreduce(a, b, 1, MPI_INT, op, w), MPI_ERR_OP); /* freed: MPI_OP_NULL */
    /* NULL arrays */
    EXPECT(MPI_Allgatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, w), MPI_ERR_ARG);
    EXPECT(MPI_Allgatherv(a, 1, MPI_INT, b, counts, NULL, MPI_INT, w), MPI_ERR_ARG);
    EXPECT(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, w), MPI_ERR_ARG);
    EXPECT(MPI_Alltoallv(a, NULL, displs, MPI_INT, b, counts, displs, MPI_INT, w), MPI_ERR_ARG);
    EXPECT(MPI_Alltoallw(a, counts, displs, NULL, b, counts, displs, types, w), MPI_ERR_ARG);
    if (rank == 0) {
        EXPECT(MPI_Gatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, 0, w), MPI_ERR_ARG);
        EXPECT(MPI_Scatterv(a, counts, NULL, MPI_INT, b, 1, MPI_INT, 0, w), MPI_ERR_ARG);
    }
    /* MPI_IN_PLACE where it is not allowed, and aliased buffers */
    EXPECT(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Allgather(a, 1, MPI_INT, a, 1, MPI_INT, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoall(a, 1, MPI_INT, a, 1, MPI_INT, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce_local(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    if (size > 1) { /* only the root may give MPI_IN_PLACE */
        int root = rank == 0 ? 1 : 0;
        EXPECT(MPI_Reduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, root, w), MPI_ERR_BUFFER);
        EXPECT(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, root, w), MPI_ERR_BUFFER);
        EXPECT(MPI_Scatter(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root, w), MPI_ERR_BUFFER);
    }
    EXPECT(MPI_Reduce(a, a, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF), MPI_ERR_BUFFER);
    EXPECT(MPI_Reduce_local(a, a, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    /* a rank's own block at its place in the buffer of all blocks, without MPI_IN_PLACE */
    EXPECT(MPI_Allgather(&a[rank], 1, MPI_INT, a, 1, MPI_INT, w), MPI_ERR_BUFFER);
    EXPECT(MPI_Iallgather(&a[rank], 1, MPI_INT, a, 1, MPI_INT, w, &r), MPI_ERR_BUFFER);
    EXPECT(MPI_Allgatherv(&a[displs[rank]], 1, MPI_INT, a, counts, displs, MPI_INT, w),
           MPI_ERR_BUFFER);
    if (rank == size - 1) { /* found at the root before it sends anything: no other rank calls */
        int root = rank;
        EXPECT(MPI_Gather(&a[root], 1, MPI_INT, a, 1, MPI_INT, root, w), MPI_ERR_BUFFER);
        EXPECT(MPI_Gatherv(&a[displs[root]], 1, MPI_INT, a, counts, displs, MPI_INT, root, w),
               MPI_ERR_BUFFER);
        EXPECT(MPI_Scatter(a, 1, MPI_INT, &a[root], 1, MPI_INT, root, w), MPI_ERR_BUFFER);
        EXPECT(MPI_Iscatterv(a, counts, displs, MPI_INT, &a[displs[root]], 1, MPI_INT, root, w, &r),
               MPI_ERR_BUFFER);
    }

    /* ranks that disagree on a count (an erroneous program): the root sends more than
     * the others take. Every rank ends the call (none waits for a rank that stopped at
     * its error), and none takes more than its buffer; by messages (the non-blocking
     * call always) the root's children end with MPI_ERR_TRUNCATE. The blocking call of
     * a few bytes on one node goes through shared lines, which hold no count. */
    for (int nb = 0; nb < 2; nb++) {
        int n = rank == 0 ? 8 : 1, rc, truncated = 0, found = 0;
        for (int i = 0; i < 8; i++) a[i] = rank == 0 ? 70 + i : -1;
        if (nb) {
            rc = MPI_Ibcast(a, n, MPI_INT, 0, w, &r);
            if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Bcast(a, n, MPI_INT, 0, w);
        }
        int cls = rc;
        if (rc) MPI_Error_class(rc, &cls);
        CHECK(rank == 0 ? rc == MPI_SUCCESS : rc == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE);
        CHECK(a[0] == 70 && (rank == 0 || a[1] == -1)); /* what fitted came, no more */
        truncated = cls == MPI_ERR_TRUNCATE;
        CHECK(MPI_Allreduce(&truncated, &found, 1, MPI_INT, MPI_SUM, w) == MPI_SUCCESS);
        CHECK(size == 1 || !nb || found > 0);
    }

    /* the collectives still work */
    int one = 1, sum = 0;
    CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, w) == MPI_SUCCESS && sum == size);
    CHECK(MPI_Ibarrier(w, &r) == MPI_SUCCESS && MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    if (rank == 0) printf("coll_errors: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
