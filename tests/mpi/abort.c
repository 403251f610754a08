/* MPI_Abort on one rank ends the whole job with its code (abort256: a code of 256,
 * which must not read as success); an invalid call under the default
 * MPI_ERRORS_ARE_FATAL ends it with a message naming rank, call and error. Either way
 * what the rank printed before (held in stdio's buffer: stdout is a pipe) comes out.
 * usage: abort abort|abort256|fatal */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        printf("rank 1 printed this before the end\n"); /* buffered, not flushed */
        if (argc > 1 && strcmp(argv[1], "fatal") == 0)
            MPI_Send(&v, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
        else if (argc > 1 && strcmp(argv[1], "abort256") == 0)
            MPI_Abort(MPI_COMM_WORLD, 256);
        else
            MPI_Abort(MPI_COMM_WORLD, 7);
    }
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE); /* never comes */
    MPI_Finalize();
    return 0;
}
