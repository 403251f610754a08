/* A PMPI tool built for an ABI (by its mpicc_abi, as a shared library preloaded into a
 * program of that ABI): it counts the program's MPI_Send calls, reaches the library
 * through PMPI_Send, and says how many it saw at MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>

static int sends;

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    sends++;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Finalize(void) {
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("abi_tool: rank %d saw %d MPI_Send calls\n", rank, sends);
    fflush(stdout);
    return PMPI_Finalize();
}
