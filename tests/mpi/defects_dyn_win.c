/* Dynamic windows: no fixed limit on the regions attached, and an access across
 * the boundaries of adjacent attached regions works as one inside a region does. */
#include <mpi.h>

#include "mpi_check.h"

enum { MANY = 300, SLICES = 8, SLICE = 16 }; /* SLICE ints per slice */

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int target = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Win win;
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    /* many separate regions (every other int of an array: none adjacent) */
    int *many = malloc(2 * MANY * sizeof *many);
    for (int k = 0; k < 2 * MANY; k++) many[k] = -1;
    for (int k = 0; k < MANY; k++)
        CHECK(MPI_Win_attach(win, &many[2 * k], sizeof(int)) == MPI_SUCCESS);
    MPI_Aint base, *bases = malloc((size_t)size * sizeof *bases);
    MPI_Get_address(many, &base);
    MPI_Allgather(&base, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    for (int k = 0; k < MANY; k++) {
        int v = 1000 * rank + k;
        CHECK(MPI_Put(&v, 1, MPI_INT, target, bases[target] + 2 * k * (MPI_Aint)sizeof(int), 1,
                      MPI_INT, win) == MPI_SUCCESS);
    }
    /* the ints between are not attached */
    int v = 0;
    CHECK(MPI_Put(&v, 1, MPI_INT, target, bases[target] + (MPI_Aint)sizeof(int), 1, MPI_INT, win) ==
          MPI_ERR_RMA_RANGE);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < MANY; k++) CHECK(many[2 * k] == 1000 * from + k && many[2 * k + 1] == -1);
    for (int k = 0; k < MANY; k++) CHECK(MPI_Win_detach(win, &many[2 * k]) == MPI_SUCCESS);

    /* adjacent slices of one array, attached one by one, out of order */
    int *arr = malloc(SLICES * SLICE * sizeof *arr), *src = malloc(SLICES * SLICE * sizeof *src);
    for (int k = 0; k < SLICES * SLICE; k++) arr[k] = -1, src[k] = 100000 * rank + k;
    for (int s = 0; s < SLICES; s++) {
        int at = (s * 3) % SLICES; /* 0 3 6 1 4 7 2 5 */
        CHECK(MPI_Win_attach(win, &arr[at * SLICE], SLICE * sizeof(int)) == MPI_SUCCESS);
    }
    MPI_Get_address(arr, &base);
    MPI_Allgather(&base, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    /* the whole array in one put, and a get across one boundary */
    CHECK(MPI_Put(src, SLICES * SLICE, MPI_INT, target, bases[target], SLICES * SLICE, MPI_INT,
                  win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(target, win) == MPI_SUCCESS);
    int got[4] = {0};
    CHECK(MPI_Get(got, 4, MPI_INT, target, bases[target] + (SLICE - 2) * (MPI_Aint)sizeof(int), 4,
                  MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_flush(target, win) == MPI_SUCCESS);
    for (int k = 0; k < 4; k++) CHECK(got[k] == 100000 * rank + SLICE - 2 + k);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < SLICES * SLICE; k++) CHECK(arr[k] == 100000 * from + k);

    /* a slice detached in the middle: across it is refused, either side still works */
    CHECK(MPI_Win_detach(win, &arr[3 * SLICE]) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    CHECK(MPI_Put(src, 2 * SLICE, MPI_INT, target,
                  bases[target] + 2 * SLICE * (MPI_Aint)sizeof(int), 2 * SLICE, MPI_INT,
                  win) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Put(src, 3 * SLICE, MPI_INT, target, bases[target], 3 * SLICE, MPI_INT, win) ==
          MPI_SUCCESS);
    CHECK(MPI_Put(src, 4 * SLICE, MPI_INT, target,
                  bases[target] + 4 * SLICE * (MPI_Aint)sizeof(int), 4 * SLICE, MPI_INT,
                  win) == MPI_SUCCESS);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int s = 0; s < SLICES; s++) {
        if (s == 3) continue;
        int off = s < 3 ? 0 : 4 * SLICE;
        for (int k = s * SLICE; k < (s + 1) * SLICE; k++) CHECK(arr[k] == 100000 * from + k - off);
    }
    for (int s = 0; s < SLICES; s++)
        if (s != 3) CHECK(MPI_Win_detach(win, &arr[s * SLICE]) == MPI_SUCCESS);
    CHECK(MPI_Win_detach(win, &arr[3 * SLICE]) == MPI_ERR_RMA_ATTACH);

    MPI_Win_free(&win);
    free(many);
    free(arr);
    free(src);
    free(bases);
    MPI_Finalize();
    return 0;
}
