/* Whether messages on one node split (TW_RNDV_SPLIT): only where the sender has a core
 * of its own. Reads the setting MPI holds, as the control variable TW_RNDV_SPLIT, and
 * checks it is argv[1]: 0 on a node whose ranks outnumber their CPUs (the test runs
 * under taskset), unless the environment sets it. */
#include <mpi.h>
#include <stdlib.h>

#include "mpi_check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc == 2);
    int provided, i, count;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
    MPI_T_cvar_handle h;
    unsigned long split = 1;
    CHECK(MPI_T_cvar_get_index("TW_RNDV_SPLIT", &i) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS && count == 1);
    CHECK(MPI_T_cvar_read(h, &split) == MPI_SUCCESS);
    CHECK(split == strtoul(argv[1], NULL, 10));
    CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS);
    CHECK(MPI_T_finalize() == MPI_SUCCESS);
    /* a message long enough to split, either way, arrives whole */
    enum { N = 1 << 18 };
    unsigned *buf = malloc(N * sizeof *buf);
    CHECK(buf != NULL);
    for (unsigned k = 0; k < N; k++) buf[k] = rank ? 0 : k * 2654435761u;
    if (size > 1 && rank < 2)
        CHECK(MPI_Sendrecv_replace(buf, N, MPI_UNSIGNED, 1 - rank, 0, 1 - rank, 0, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (unsigned k = 0; size > 1 && rank == 1 && k < N; k++) CHECK(buf[k] == k * 2654435761u);
    free(buf);
    MPI_Finalize();
    return 0;
}
