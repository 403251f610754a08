/* latewait: how soon a waiting rank takes a message whose sender was late (TW_WAIT).
 *
 * usage: latewait [ROUNDS [LATE_US]]   (default 200 rounds, 3000 us)
 *   Each round: a barrier; rank 0 computes LATE_US, then sends its clock
 *   (CLOCK_MONOTONIC) to the last rank, which has waited in MPI_Recv all along (asleep,
 *   when its waits sleep). The delay is the receiver's clock at the receive's return
 *   less the sender's at the send: both read one clock only where the ranks share a
 *   kernel (one machine, or the network namespaces of tests/net/two_hosts.sh). The
 *   last rank prints the median and the 90th percentile, as
 *   latewait,late-sender-median,LATE_US,US,us and ...-p90 (bench/ab_summary.py rows). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long rounds = argc > 1 ? atol(argv[1]) : 200, late_us = argc > 2 ? atol(argv[2]) : 3000;
    if (size < 2 || rounds < 1 || rounds > 100000 || late_us < 0 || late_us > 10000000) {
        if (rank == 0)
            fprintf(stderr, "usage: latewait [ROUNDS (1-100000) [LATE_US (0-10000000)]], "
                            "2 ranks or more\n");
        MPI_Finalize(); /* every rank refuses: none ends the job before rank 0 said why */
        return 2;
    }
    double *delay = malloc((size_t)rounds * sizeof *delay);
    if (!delay) MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < rounds; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            double start = now();
            while (now() - start < (double)late_us * 1e-6) {
            }
            double sent = now();
            MPI_Send(&sent, 1, MPI_DOUBLE, size - 1, 0, MPI_COMM_WORLD);
        } else if (rank == size - 1) {
            double sent;
            MPI_Recv(&sent, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            delay[i] = (now() - sent) * 1e6;
        }
    }
    if (rank == size - 1) {
        qsort(delay, (size_t)rounds, sizeof *delay, by_value);
        printf("latewait,late-sender-median,%ld,%.2f,us\n", late_us, delay[rounds / 2]);
        printf("latewait,late-sender-p90,%ld,%.2f,us\n", late_us, delay[rounds * 9 / 10]);
    }
    free(delay);
    MPI_Finalize();
    return 0;
}
