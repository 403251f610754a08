/* A small MPI program: pi by the midpoint rule, the work split over the ranks and
 * the partial sums sent to rank 0; with exactly 2 ranks (one per core, so the time
 * means something) also an 8-byte ping-pong.
 * Build: build/bin/mpicc -O2 examples/mpi_pi.c -o mpi_pi   Run: build/bin/mpiexec -n 4 ./mpi_pi */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const long n = 50000000;
    const double h = 1.0 / (double)n;
    double sum = 0;
    for (long i = rank; i < n; i += size) {
        double x = h * ((double)i + 0.5);
        sum += 4.0 / (1.0 + x * x);
    }
    sum *= h;
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            double part;
            MPI_Recv(&part, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += part;
        }
        printf("mpi_pi: %d ranks: pi = %.12f, error %.1e: %s\n", size, sum, fabs(sum - M_PI),
               fabs(sum - M_PI) < 1e-9 ? "correct" : "WRONG");
    } else {
        MPI_Send(&sum, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }

    if (size == 2) {
        char buf[8] = {0};
        const int iters = 100000;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        if (rank == 0)
            printf("mpi_pi: MPI ping-pong 8 B between ranks 0 and 1: %.3f us half round trip\n",
                   (MPI_Wtime() - t0) / (2.0 * iters) * 1e6);
    }
    MPI_Finalize();
    return 0;
}
