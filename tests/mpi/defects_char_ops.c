/* MPI_CHAR in reductions and accumulates: a small signed integer, as MPICH and Open
 * MPI take it (an extension; benchmarks such as osu_acc_latency use it). */
#include <mpi.h>

#include "mpi_check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* each rank: -rank, rank + 1, 3, and a bit of its own */
    char in[4] = {(char)-rank, (char)(rank + 1), 3, (char)(1 << (rank % 7))}, out[4];
    int sum = 0, prod = 1, bits = 0;
    for (int r = 0; r < size; r++) sum += -r, prod *= 3, bits |= 1 << (r % 7);
    CHECK(MPI_Allreduce(in, out, 4, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(out[0] == (char)sum && out[2] == (char)(3 * size));
    CHECK(MPI_Allreduce(in, out, 4, MPI_CHAR, MPI_MIN, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(out[0] == (char)-(size - 1) && out[1] == 1); /* signed: negative is less */
    CHECK(MPI_Allreduce(in, out, 4, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(out[0] == 0 && out[1] == (char)size);
    CHECK(MPI_Allreduce(in, out, 4, MPI_CHAR, MPI_PROD, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(out[2] == (char)prod);
    CHECK(MPI_Allreduce(in, out, 4, MPI_CHAR, MPI_BOR, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(out[3] == (char)bits);
    CHECK(MPI_Allreduce(in, out, 4, MPI_CHAR, MPI_LAND, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(out[1] == 1 && out[0] == 0); /* rank 0 gives 0 */
    MPI_Request req;
    CHECK(MPI_Ireduce(in, out, 4, MPI_CHAR, MPI_SUM, 0, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    if (rank == 0) CHECK(out[0] == (char)sum);
    char a[2] = {-5, 100}, b[2] = {7, 100};
    CHECK(MPI_Reduce_local(a, b, 2, MPI_CHAR, MPI_SUM) == MPI_SUCCESS);
    CHECK(b[0] == 2 && b[1] == (char)200);
    /* MINLOC is still for the pairs only, and MPI_WCHAR takes no arithmetic */
    CHECK(MPI_Allreduce(in, out, 1, MPI_CHAR, MPI_MINLOC, MPI_COMM_WORLD) == MPI_ERR_OP);
    int w = 0, wo;
    CHECK(MPI_Allreduce(&w, &wo, 1, MPI_WCHAR, MPI_SUM, MPI_COMM_WORLD) == MPI_ERR_OP);

    /* accumulates on a window of chars, as osu_acc_latency and osu_get_acc_latency do */
    char *mem;
    MPI_Win win;
    CHECK(MPI_Win_allocate(4, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win) == MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    mem[0] = mem[1] = mem[2] = mem[3] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    char one = 1, got = -1, minus = -2;
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    CHECK(MPI_Accumulate(&one, 1, MPI_CHAR, 0, 0, 1, MPI_CHAR, MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Get_accumulate(&minus, 1, MPI_CHAR, &got, 1, MPI_CHAR, 0, 1, 1, MPI_CHAR, MPI_MIN,
                             win) == MPI_SUCCESS);
    CHECK(MPI_Fetch_and_op(&one, &got, MPI_CHAR, 0, 2, MPI_SUM, win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(mem[0] == (char)size && mem[1] == -2 && mem[2] == (char)size);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
