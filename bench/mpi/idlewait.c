/* idlewait: what waiting ranks cost while another computes (TW_WAIT).
 *
 * usage: idlewait SECONDS
 *   Rank 0 computes for SECONDS of its own CPU time, then sends each other rank a
 *   message and joins a barrier; the odd ranks wait in MPI_Recv for the message (then
 *   the barrier), the even ones in the barrier (then take the message). Run under /usr/bin/time:
 * the job's user + system time less rank 0's SECONDS is what the waiters burnt
 *   (bench/mpi/ab_waiting.sh). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double secs = argc == 2 ? atof(argv[1]) : -1;
    if (secs < 0 || secs > 3600) {
        if (rank == 0) fprintf(stderr, "usage: idlewait SECONDS (0 to 3600)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int token = 0;
    if (rank == 0) {
        volatile uint64_t x = 1;
        for (double end = cpu_seconds() + secs; cpu_seconds() < end;)
            for (int i = 0; i < 100000; i++) x = x * 6364136223846793005ull + 1;
        for (int r = 1; r < size; r++) MPI_Send(&r, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank % 2) {
        MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank && token != rank) {
        fprintf(stderr, "idlewait: rank %d got %d\n", rank, token);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
