/* Many intercommunicators made and freed in a row, between groups that change
 * from one to the next (leaders and sizes), each used once; and MPI_Comm_idup of
 * an intercommunicator. */
#include <mpi.h>

#include "mpi_check.h"

enum { ROUNDS = 200 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < ROUNDS; round++) {
        /* the low group: ranks below cut (1 .. size - 1), leaders vary */
        int cut = 1 + round % (size - 1), low = rank < cut;
        int lsize = low ? cut : size - cut, lrank = low ? rank : rank - cut;
        int leader = round % lsize, rleader = low ? cut + round % (size - cut) : round % cut;
        MPI_Comm local, inter;
        CHECK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local) == MPI_SUCCESS);
        CHECK(MPI_Intercomm_create(local, leader, MPI_COMM_WORLD, rleader, round % 3, &inter) ==
              MPI_SUCCESS);
        int remote;
        CHECK(MPI_Comm_remote_size(inter, &remote) == MPI_SUCCESS && remote == size - lsize);
        if (round % 10 == 0) { /* used: a sum of the other group's world ranks */
            int sum = 0, want = 0;
            CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS);
            for (int r = low ? cut : 0; r < (low ? size : cut); r++) want += r;
            CHECK(sum == want);
        }
        CHECK(MPI_Comm_free(&inter) == MPI_SUCCESS);
        CHECK(MPI_Comm_free(&local) == MPI_SUCCESS);
        (void)lrank;
    }

    /* idup of an intercommunicator, twice at once, while it is used */
    int half = size / 2, low = rank < half;
    MPI_Comm local, inter, d1, d2;
    MPI_Request reqs[2];
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local) == MPI_SUCCESS);
    CHECK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 5, &inter) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(inter, &d1, &reqs[0]) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(inter, &d2, &reqs[1]) == MPI_SUCCESS);
    int sum = 0, want = 0;
    for (int r = low ? half : 0; r < (low ? size : half); r++) want += r;
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS && sum == want);
    CHECK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    MPI_Comm dups[2] = {d1, d2};
    for (int k = 0; k < 2; k++) {
        int flag = 0, rs, ls, lr, cmp;
        CHECK(MPI_Comm_test_inter(dups[k], &flag) == MPI_SUCCESS && flag);
        MPI_Comm_remote_size(dups[k], &rs);
        MPI_Comm_size(dups[k], &ls);
        MPI_Comm_rank(dups[k], &lr);
        CHECK(rs == (low ? size - half : half) && ls == (low ? half : size - half));
        CHECK(lr == (low ? rank : rank - half));
        CHECK(MPI_Comm_compare(dups[k], inter, &cmp) == MPI_SUCCESS && cmp == MPI_CONGRUENT);
        sum = 0;
        CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dups[k]) == MPI_SUCCESS &&
              sum == want);
        /* point-to-point to the remote group's rank 0 and back */
        int v = -1;
        if (lr == 0) {
            CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 1, &v, 1, MPI_INT, 0, 1, dups[k],
                               MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(v == (low ? half : 0));
        }
    }
    MPI_Comm_free(&d1);
    MPI_Comm_free(&d2);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
