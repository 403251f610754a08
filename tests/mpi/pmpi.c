/* The profiling interface: with a tool (pmpi_tool.c) linked in or preloaded, the tool
 * sees exactly the calls this program makes — none of the calls the library makes to
 * itself inside collectives, Sendrecv or Comm_dup — and every call still works. */
#include <dlfcn.h>

#include "mpi_check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int (*count)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "pmpi_tool_count");
    CHECK(count != NULL); /* the tool is there */

    /* the calls the tool counts, each a known number of times */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, x = rank, y = -1;
    MPI_Comm dup;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    for (int k = 0; k < 3; k++) {
        CHECK(MPI_Sendrecv(&x, 1, MPI_INT, right, k, &y, 1, MPI_INT, left, k, dup,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(y == left);
    }
    MPI_Request r[2];
    CHECK(MPI_Irecv(&y, 1, MPI_INT, left, 9, dup, &r[0]) == MPI_SUCCESS);
    CHECK(MPI_Isend(&x, 1, MPI_INT, right, 9, dup, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS && y == left);
    if (size > 1) {
        if (rank == 0) CHECK(MPI_Send(&x, 1, MPI_INT, 1, 5, dup) == MPI_SUCCESS);
        if (rank == 1) CHECK(MPI_Recv(&y, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    int big[4096], sum[4096];
    for (int k = 0; k < 4096; k++) big[k] = rank == 0 ? k : -1;
    CHECK(MPI_Bcast(big, 4096, MPI_INT, 0, dup) == MPI_SUCCESS);
    for (int k = 0; k < 4096; k++) CHECK(big[k] == k);
    CHECK(MPI_Allreduce(big, sum, 4096, MPI_INT, MPI_SUM, dup) == MPI_SUCCESS);
    for (int k = 0; k < 4096; k++) CHECK(sum[k] == k * size);
    CHECK(MPI_Barrier(dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);

    int sends = size > 1 && rank == 0, recvs = size > 1 && rank == 1;
    CHECK(count("MPI_Init") == 1);
    CHECK(count("MPI_Comm_dup") == 1);
    CHECK(count("MPI_Sendrecv") == 3);
    CHECK(count("MPI_Isend") == 1);
    CHECK(count("MPI_Irecv") == 1);
    CHECK(count("MPI_Waitall") == 1);
    CHECK(count("MPI_Wait") == 0);
    CHECK(count("MPI_Send") == sends);
    CHECK(count("MPI_Recv") == recvs);
    CHECK(count("MPI_Bcast") == 1);
    CHECK(count("MPI_Allreduce") == 1);
    CHECK(count("MPI_Barrier") == 1);
    CHECK(count("MPI_Comm_free") == 1);
    MPI_Finalize();
    return 0;
}
