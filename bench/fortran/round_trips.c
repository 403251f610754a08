/* The C half of the ping-pong benchmark: n 8-byte round trips between ranks 0 and 1
 * through C's MPI_Send and MPI_Recv, µs per half round trip. pingpong.c times it
 * alone; pingpong.F90 times it between its own Fortran timings in one run, so the
 * Fortran bindings' cost against C's is read in the same placement of the ranks. */
#include <mpi.h>

double c_round_trips(int rank, int n);

double c_round_trips(int rank, int n) {
    static double small[1];
    int peer = 1 - rank;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (rank == 0) MPI_Send(small, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(small, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 1) MPI_Send(small, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
    }
    return (MPI_Wtime() - t0) * 1e6 / (2.0 * n);
}
