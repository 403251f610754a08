/* The C twin of pingpong.F90: the 8-byte ping-pong (round_trips.c) and the
 * vector-datatype exchange, for the MPIs without Fortran (latency.sh). */
#include <float.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { REPEATS = 5, STRIDED = 1024 };

double c_round_trips(int rank, int n);

static double best(int rank, int n, void *buf, int count, MPI_Datatype t, int tag) {
    double us = DBL_MAX;
    for (int r = 0; r < REPEATS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                MPI_Send(buf, count, t, 1, tag, MPI_COMM_WORLD);
                MPI_Recv(buf, count, t, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, count, t, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, count, t, 0, tag, MPI_COMM_WORLD);
            }
        }
        double one = (MPI_Wtime() - t0) * 1e6 / (2.0 * n);
        if (one < us) us = one;
    }
    return us;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        if (rank == 0) fprintf(stderr, "pingpong: run it on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int iters = argc > 1 ? atoi(argv[1]) : 100000;
    if (iters < 10) iters = 10;
    static double a[2 * STRIDED];
    double lat = DBL_MAX;
    for (int r = 0; r < REPEATS; r++) {
        double one = c_round_trips(rank, iters);
        if (one < lat) lat = one;
    }
    MPI_Datatype vec;
    MPI_Type_vector(STRIDED, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    double strided = best(rank, iters / 10, a, 1, vec, 2);
    MPI_Type_free(&vec);
    if (rank == 0) printf("latency_8B %.4f\nstrided_vector_8KiB %.4f\n", lat, strided);
    MPI_Finalize();
    return 0;
}
