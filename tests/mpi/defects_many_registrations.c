/* Registrations past the first table's 1024 entries: many windows at once, many
 * regions attached to a dynamic window, and many synchronous rendezvous sends
 * outstanding before their receives are posted. Each of these once stopped with
 * "cannot register the memory"; the table now grows as registrations are made. */
#include <stdlib.h>

#include <mpi.h>

#include "mpi_check.h"

enum { WINDOWS = 1300, ATTACHED = 2500, SENDS = 1200, SEND_INTS = 2048 /* 8 KiB: rendezvous */ };

static void many_windows(void) {
    int target = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Win *wins = malloc(WINDOWS * sizeof *wins);
    int *cells = malloc(WINDOWS * sizeof *cells);
    for (int k = 0; k < WINDOWS; k++) {
        cells[k] = -1;
        CHECK(MPI_Win_create(&cells[k], sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &wins[k]) == MPI_SUCCESS);
    }
    for (int k = 0; k < WINDOWS; k++) MPI_Win_fence(0, wins[k]);
    for (int k = 0; k < WINDOWS; k++) {
        int v = 100000 * rank + k;
        CHECK(MPI_Put(&v, 1, MPI_INT, target, 0, 1, MPI_INT, wins[k]) == MPI_SUCCESS);
        MPI_Win_fence(0, wins[k]);
    }
    for (int k = 0; k < WINDOWS; k++) CHECK(cells[k] == 100000 * from + k);
    for (int k = 0; k < WINDOWS; k++) CHECK(MPI_Win_free(&wins[k]) == MPI_SUCCESS);
    free(cells);
    free(wins);
}

static void many_attached(void) {
    int target = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Win win;
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int *many = malloc(2 * ATTACHED * sizeof *many); /* every other int: none adjacent */
    for (int k = 0; k < 2 * ATTACHED; k++) many[k] = -1;
    for (int k = 0; k < ATTACHED; k++)
        CHECK(MPI_Win_attach(win, &many[2 * k], sizeof(int)) == MPI_SUCCESS);
    MPI_Aint base, *bases = malloc((size_t)size * sizeof *bases);
    MPI_Get_address(many, &base);
    MPI_Allgather(&base, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    for (int k = 0; k < ATTACHED; k++) {
        int v = 1000000 * rank + k;
        CHECK(MPI_Put(&v, 1, MPI_INT, target, bases[target] + 2 * k * (MPI_Aint)sizeof(int), 1,
                      MPI_INT, win) == MPI_SUCCESS);
    }
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < ATTACHED; k++) CHECK(many[2 * k] == 1000000 * from + k);
    for (int k = 0; k < ATTACHED; k++) CHECK(MPI_Win_detach(win, &many[2 * k]) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
    free(bases);
    free(many);
}

/* Every send of rank 0 is outstanding, its buffer registered, before rank 1 posts a
 * receive: the barrier orders them. */
static void many_sends(void) {
    if (size < 2) return;
    int n = rank == 0 || rank == 1 ? SENDS : 0;
    int *buf = malloc((size_t)SENDS * SEND_INTS * sizeof *buf);
    MPI_Request *reqs = malloc(SENDS * sizeof *reqs);
    if (rank == 0) {
        for (int k = 0; k < SENDS; k++) {
            for (int i = 0; i < SEND_INTS; i++) buf[(size_t)k * SEND_INTS + i] = k ^ i;
            CHECK(MPI_Issend(&buf[(size_t)k * SEND_INTS], SEND_INTS, MPI_INT, 1, k, MPI_COMM_WORLD,
                             &reqs[k]) == MPI_SUCCESS);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        for (int k = 0; k < SENDS; k++)
            CHECK(MPI_Irecv(&buf[(size_t)k * SEND_INTS], SEND_INTS, MPI_INT, 0, k, MPI_COMM_WORLD,
                            &reqs[k]) == MPI_SUCCESS);
    }
    if (n) CHECK(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    if (rank == 1)
        for (int k = 0; k < SENDS; k++)
            for (int i = 0; i < SEND_INTS; i += 97)
                CHECK(buf[(size_t)k * SEND_INTS + i] == (k ^ i));
    free(reqs);
    free(buf);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    many_windows();
    many_attached();
    many_sends();
    MPI_Finalize();
    return 0;
}
