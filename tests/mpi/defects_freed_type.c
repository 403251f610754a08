/* A datatype or user op freed while a non-blocking operation uses it stays alive
 * until the operation completes (MPI-3.1 sections 4.1.9 and 5.9.5): the result is
 * as if it had not been freed. Many types and ops are made and freed on the way,
 * so a freed handle's slot is taken by another one if it is released too early. */
#include <mpi.h>

#include "mpi_check.h"

enum { N = 6 };

/* every other int: a non-contiguous type, packed and unpacked by the schedule */
static MPI_Datatype strided(void) {
    MPI_Datatype v, d;
    CHECK(MPI_Type_vector(N, 1, 2, MPI_INT, &v) == MPI_SUCCESS);
    CHECK(MPI_Type_dup(v, &d) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&v) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&d) == MPI_SUCCESS);
    return d;
}

/* churns the handle tables: makes and frees many types and ops */
static void churn(void) {
    for (int k = 0; k < 1100; k++) {
        MPI_Datatype t;
        CHECK(MPI_Type_contiguous(k % 7 + 1, MPI_DOUBLE, &t) == MPI_SUCCESS);
        CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    }
}

static void my_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    for (int k = 0; k < *len; k++) ((int *)inout)[k] += ((int *)in)[k];
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = malloc(2 * N * (size_t)size * sizeof *buf);
    int *all = malloc(2 * N * (size_t)size * sizeof *all);
    for (int round = 0; round < 20; round++) {
        MPI_Request req;
        MPI_Datatype t = strided();
        /* bcast of a strided buffer, the type freed before the wait */
        for (int k = 0; k < 2 * N; k++) buf[k] = rank == 0 ? 10 * k + round : -1;
        CHECK(MPI_Ibcast(buf, 1, t, 0, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
        MPI_Datatype gone = t;
        CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
        /* the operation still holds it; the program may not name it any more */
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        int one = 0, cls = MPI_SUCCESS;
        MPI_Error_class(MPI_Sendrecv(&one, 1, gone, 0, 9, &one, 1, MPI_INT, 0, 9, MPI_COMM_SELF,
                                     MPI_STATUS_IGNORE),
                        &cls);
        CHECK(cls == MPI_ERR_TYPE);
        MPI_Error_class(MPI_Allreduce(&one, &one, 1, gone, MPI_SUM, MPI_COMM_SELF), &cls);
        CHECK(cls == MPI_ERR_TYPE);
        churn();
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < 2 * N; k++)
            CHECK(buf[k] == (k % 2 == 0 || rank == 0 ? 10 * k + round : -1));

        /* allgather into strided blocks */
        t = strided();
        MPI_Aint lb, ext;
        MPI_Type_get_extent(t, &lb, &ext);
        MPI_Datatype r;
        CHECK(MPI_Type_create_resized(t, 0, 2 * N * (MPI_Aint)sizeof(int), &r) == MPI_SUCCESS);
        CHECK(MPI_Type_commit(&r) == MPI_SUCCESS);
        CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
        int mine[N];
        for (int k = 0; k < N; k++) mine[k] = 100 * rank + k + round;
        for (int k = 0; k < 2 * N * size; k++) all[k] = -1;
        CHECK(MPI_Iallgather(mine, N, MPI_INT, all, 1, r, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
        CHECK(MPI_Type_free(&r) == MPI_SUCCESS);
        churn();
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int p = 0; p < size; p++)
            for (int k = 0; k < 2 * N; k++)
                CHECK(all[2 * N * p + k] == (k % 2 ? -1 : 100 * p + k / 2 + round));

        /* a reduction of a freed type */
        t = strided();
        for (int k = 0; k < 2 * N; k++) buf[k] = k + rank;
        CHECK(MPI_Iallreduce(MPI_IN_PLACE, buf, 1, t, MPI_SUM, MPI_COMM_WORLD, &req) ==
              MPI_SUCCESS);
        CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
        churn();
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < 2 * N; k++)
            CHECK(buf[k] == (k % 2 ? k + rank : size * k + size * (size - 1) / 2));

        /* a reduction with a user op freed before the wait; ops made and freed meanwhile */
        MPI_Op op, other;
        CHECK(MPI_Op_create(my_sum, 1, &op) == MPI_SUCCESS);
        for (int k = 0; k < 2 * N; k++) buf[k] = k + rank;
        CHECK(MPI_Iallreduce(MPI_IN_PLACE, buf, 2 * N, MPI_INT, op, MPI_COMM_WORLD, &req) ==
              MPI_SUCCESS);
        CHECK(MPI_Op_free(&op) == MPI_SUCCESS && op == MPI_OP_NULL);
        for (int k = 0; k < 2000; k++) {
            CHECK(MPI_Op_create(my_sum, k % 2, &other) == MPI_SUCCESS);
            CHECK(MPI_Op_free(&other) == MPI_SUCCESS);
        }
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < 2 * N; k++) CHECK(buf[k] == size * k + size * (size - 1) / 2);

        /* a receive of a freed type */
        t = strided();
        for (int k = 0; k < 2 * N; k++) buf[k] = -1;
        int peer = (rank + 1) % size, from = (rank + size - 1) % size;
        for (int k = 0; k < N; k++) mine[k] = 1000 * from + k;
        CHECK(MPI_Irecv(buf, 1, t, from, 9, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
        CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
        churn();
        for (int k = 0; k < N; k++) mine[k] = 1000 * rank + k;
        CHECK(MPI_Send(mine, N, MPI_INT, peer, 9, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < 2 * N; k++) CHECK(buf[k] == (k % 2 ? -1 : 1000 * from + k / 2));

        /* a neighbourhood all-to-all into strided blocks, on a ring of 3 or more */
        if (size >= 3) {
            MPI_Comm ring;
            int dims[1] = {size}, periodic[1] = {1}, out[2 * N], in[4 * N];
            CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periodic, 0, &ring) == MPI_SUCCESS);
            for (int k = 0; k < 2 * N; k++) out[k] = 100 * rank + k + round;
            for (int k = 0; k < 4 * N; k++) in[k] = -1;
            t = strided(); /* extent 2N - 1 ints: block 1 takes the odd places block 0 leaves */
            CHECK(MPI_Ineighbor_alltoall(out, N, MPI_INT, in, 1, t, ring, &req) == MPI_SUCCESS);
            CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
            churn();
            CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            int left = (rank + size - 1) % size, right = (rank + 1) % size;
            for (int k = 0; k < N; k++) { /* the left one's block for +1, the right one's for -1 */
                CHECK(in[2 * k] == 100 * left + N + k + round);
                CHECK(in[2 * N - 1 + 2 * k] == 100 * right + k + round);
            }
            CHECK(MPI_Comm_free(&ring) == MPI_SUCCESS);
        }
    }
    free(buf);
    free(all);
    MPI_Finalize();
    return 0;
}
