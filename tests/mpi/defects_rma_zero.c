/* A put or request-based put of no data from a NULL origin buffer succeeds and
 * moves nothing, as a get of the same does, on every window flavour. */
#include <mpi.h>

#include "mpi_check.h"

static void zero_puts(MPI_Win win, MPI_Aint disp, const int *mem, int n) {
    MPI_Request req;
    int target = (rank + 1) % size;
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    CHECK(MPI_Put(NULL, 0, MPI_INT, target, disp, 0, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Rput(NULL, 0, MPI_INT, target, disp, 0, MPI_INT, win, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Get(NULL, 0, MPI_INT, target, disp, 0, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Rget(NULL, 0, MPI_INT, target, disp, 0, MPI_INT, win, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(NULL, 0, MPI_INT, target, disp, 0, MPI_INT, MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush_all(win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < n; k++) CHECK(mem[k] == 100 * rank + k);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win win;
    int *mem, local[4];

    CHECK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &win) == MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int k = 0; k < 4; k++) mem[k] = 100 * rank + k;
    MPI_Barrier(MPI_COMM_WORLD);
    zero_puts(win, 1, mem, 4);
    MPI_Win_free(&win);

    for (int k = 0; k < 4; k++) local[k] = 100 * rank + k;
    CHECK(MPI_Win_create(local, sizeof local, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
          MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    zero_puts(win, 2, local, 4);
    MPI_Win_free(&win);

    /* a dynamic window: the displacement is an address at the target */
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK(MPI_Win_attach(win, local, sizeof local) == MPI_SUCCESS);
    MPI_Aint mine, *addrs = malloc((size_t)size * sizeof *addrs);
    MPI_Get_address(local, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    zero_puts(win, addrs[(rank + 1) % size], local, 4);
    CHECK(MPI_Win_detach(win, local) == MPI_SUCCESS);
    MPI_Win_free(&win);
    free(addrs);

    MPI_Finalize();
    return 0;
}
