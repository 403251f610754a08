/* MPI_Comm_split_type on an intercommunicator splits its local group into
 * intracommunicators (MPI-3.1 section 6.4.2 allows it; MPICH does so). */
#include <mpi.h>

#include "mpi_check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int half = size / 2, low = rank < half, lrank, lsize, one_node = all_on_one_node();
    MPI_Comm local, inter, node;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local) == MPI_SUCCESS);
    CHECK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 7, &inter) == MPI_SUCCESS);
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    for (int round = 0; round < 3; round++) {
        /* keys reverse the order */
        CHECK(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, lsize - lrank, MPI_INFO_NULL,
                                  &node) == MPI_SUCCESS);
        int flag = 1, nsize, nrank;
        CHECK(MPI_Comm_test_inter(node, &flag) == MPI_SUCCESS && !flag);
        MPI_Comm_size(node, &nsize);
        MPI_Comm_rank(node, &nrank);
        CHECK(nsize >= 1 && nsize <= lsize);
        if (one_node) CHECK(nsize == lsize && nrank == lsize - 1 - lrank);
        /* it works: the sum of the world ranks of my group on my node */
        int total = 0, want = 0;
        CHECK(MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, node) == MPI_SUCCESS);
        for (int r = low ? 0 : half; r < (low ? half : size); r++) want += r;
        if (one_node) CHECK(total == want);
        /* and the intercommunicator still does */
        int remote_sum = 0;
        CHECK(MPI_Allreduce(&rank, &remote_sum, 1, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS);
        CHECK(remote_sum == size * (size - 1) / 2 - want);
        MPI_Comm_free(&node);
    }
    CHECK(MPI_Comm_split_type(inter, MPI_UNDEFINED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS);
    CHECK(node == MPI_COMM_NULL);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
