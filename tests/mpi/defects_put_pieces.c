/* Passive-target puts of many small pieces (a vector type of 262144 elements, and
 * others) into windows over memory of the program's own: the data lands where the
 * target datatype says, nothing else changes, and it completes with the flush.
 * Such puts go as messages the target applies (win_put.c); measured by hand, a
 * put of 262144 ints every other int took 1.5 s over the shm link and 0.006 s after. */
#include <mpi.h>

#include "mpi_check.h"

enum { N = 262144 };

static void one_shape(MPI_Win win, int *mem, int n, MPI_Datatype ttype, int tcount, int stride,
                      MPI_Aint disp, int lock_all) {
    int target = (rank + 1) % size, from = (rank + size - 1) % size;
    int *src = malloc((size_t)n * sizeof *src);
    for (int k = 0; k < n; k++) src[k] = k * 7 + rank;
    for (size_t k = 0; k < 2 * (size_t)N + 64; k++) mem[k] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (lock_all) {
        CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
        CHECK(MPI_Put(src, n, MPI_INT, target, disp, tcount, ttype, win) == MPI_SUCCESS);
        CHECK(MPI_Win_flush(target, win) == MPI_SUCCESS);
        CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    } else {
        MPI_Request req;
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win) == MPI_SUCCESS);
        CHECK(MPI_Rput(src, n, MPI_INT, target, disp, tcount, ttype, win, &req) == MPI_SUCCESS);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < n; k++) src[k] = -7; /* the origin buffer is free again */
        CHECK(MPI_Win_unlock(target, win) == MPI_SUCCESS);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* element k went to disp + k * stride ints */
    int bad = 0;
    for (size_t k = 0, e = 0; k < 2 * (size_t)N + 64; k++) {
        int want = -1;
        if (k >= (size_t)disp && (k - (size_t)disp) % (size_t)stride == 0 && e < (size_t)n) {
            want = (int)e * 7 + from;
            e++;
        }
        bad += mem[k] != want;
    }
    CHECK(bad == 0);
    free(src);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t bytes = (2 * (size_t)N + 64) * sizeof(int);
    int *mem = malloc(bytes);
    MPI_Win win;
    CHECK(MPI_Win_create(mem, (MPI_Aint)bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
          MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    MPI_Datatype vec, one, strided3;
    CHECK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&vec) == MPI_SUCCESS);
    /* every other int: one vector item of N elements, at displacement 3 */
    one_shape(win, mem, N, vec, 1, 2, 3, 1);
    /* the same by request, under a shared lock */
    one_shape(win, mem, N, vec, 1, 2, 0, 0);
    /* many items of a resized type: one int every 3 */
    CHECK(MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &strided3) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&strided3) == MPI_SUCCESS);
    one_shape(win, mem, 100000, strided3, 100000, 3, 5, 1);
    /* a small one, below the batching threshold */
    CHECK(MPI_Type_vector(10, 1, 2, MPI_INT, &one) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&one) == MPI_SUCCESS);
    one_shape(win, mem, 10, one, 1, 2, 1, 1);

    /* a put past the window's end is refused, not applied */
    CHECK(MPI_Win_lock_all(0, win) == MPI_SUCCESS);
    int *src = calloc(N, sizeof *src);
    CHECK(MPI_Put(src, N, MPI_INT, (rank + 1) % size, 2 * N, 1, vec, win) == MPI_ERR_RMA_RANGE);
    CHECK(MPI_Win_unlock_all(win) == MPI_SUCCESS);
    free(src);

    MPI_Type_free(&vec);
    MPI_Type_free(&one);
    MPI_Type_free(&strided3);
    MPI_Win_free(&win);
    free(mem);
    MPI_Finalize();
    return 0;
}
