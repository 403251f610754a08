/* OSU-style ping-pong latency between ranks 0 and 1, in portable MPI C, so that the
 * one source builds with mpicc (the native library) and mpicc_abi (a face): for each
 * size, the half round trip in microseconds, averaged over the iterations after the
 * warm-up. usage: pingpong [ITERATIONS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iterations = argc > 1 ? atoi(argv[1]) : 10000;
    if (size != 2 || iterations < 1) {
        if (rank == 0) fprintf(stderr, "usage: mpiexec -n 2 pingpong [ITERATIONS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static char buf[4096];
    memset(buf, 1, sizeof buf);
    const int sizes[] = {0, 8, 64, 512, 4096};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s], warmup = iterations / 10;
        double start = 0;
        for (int i = 0; i < iterations + warmup; i++) {
            if (i == warmup) {
                MPI_Barrier(MPI_COMM_WORLD);
                start = MPI_Wtime();
            }
            if (rank == 0) {
                MPI_Send(buf, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        double usec = (MPI_Wtime() - start) * 1e6 / (2.0 * iterations);
        if (rank == 0) printf("latency-%dB %.4f\n", n, usec);
    }
    MPI_Finalize();
    return 0;
}
