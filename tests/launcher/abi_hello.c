/* Built by another MPI's mpicc (abi_test.sh): says which rank of how many it is, and
 * which MPI library it runs on. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n")] = '\0'; /* MPICH's goes on for lines */
    printf("rank %d of %d: %.60s\n", rank, size, version);
    MPI_Finalize();
    return 0;
}
