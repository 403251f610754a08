/* An MPI program as users build it: prints the library's own version line (which only
 * Tollway's MPI_Get_library_version says) and checks an allreduce over the ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0, len;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(version, &len);
    if (rank == 0) printf("%s: %d ranks, sum %d\n", version, size, sum);
    MPI_Finalize();
    return sum != size * (size - 1) / 2;
}
