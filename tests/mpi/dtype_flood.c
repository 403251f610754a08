/* Large non-contiguous sends ahead of their receives: rank 1 starts 300 sends of a
 * vector of 32768 doubles, every other one (256 KiB each, 75 MiB in all), then one int
 * with another tag; rank 0 receives the int first, then the vectors, in order. A
 * pipelined message that comes before its receive is kept whole, and past the 64 MiB a
 * receiver keeps the later messages wait behind it: these go by rendezvous, which keeps
 * nothing, so the int is not held back (pipelined, the job hung). Needs 2 ranks. */
#include <stdio.h>
#include <stdlib.h>

#include "mpi_check.h"

enum { N = 300, DOUBLES = 32768 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    MPI_Datatype t;
    CHECK(MPI_Type_vector(DOUBLES, 1, 2, MPI_DOUBLE, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    double *v = calloc(2 * DOUBLES, sizeof *v);
    CHECK(v != NULL);
    if (rank == 1) {
        MPI_Request *r = malloc((N + 1) * sizeof *r);
        CHECK(r != NULL);
        for (int k = 0; k < DOUBLES; k++) v[2 * k] = k; /* every send reads the same buffer */
        for (int i = 0; i < N; i++)
            CHECK(MPI_Isend(v, 1, t, 0, 1, MPI_COMM_WORLD, &r[i]) == MPI_SUCCESS);
        int token = 42;
        CHECK(MPI_Isend(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &r[N]) == MPI_SUCCESS);
        CHECK(MPI_Waitall(N + 1, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        free(r);
    } else {
        int token = 0;
        CHECK(MPI_Recv(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == 0);
        CHECK(token == 42);
        for (int i = 0; i < N; i++) {
            v[2 * (DOUBLES - 1)] = -1;
            CHECK(MPI_Recv(v, 1, t, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(v[2 * (DOUBLES - 1)] == DOUBLES - 1 && v[2] == 1);
        }
        printf("dtype_flood: %d sends of 256 KiB ahead of their receives, then one more: ok\n", N);
    }
    free(v);
    MPI_Type_free(&t);
    MPI_Finalize();
    return 0;
}
