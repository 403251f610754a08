/* The cost of opening a file: MPI_File_open on MPI_COMM_WORLD, one 64-byte
 * MPI_File_write_at_all, MPI_File_close, repeated; what HDF5 and its tests do
 * thousands of times. Built with each MPI's mpicc and run side by side (README.md).
 * usage: open_close [DIR] [N]   (default /dev/shm, 200; 20 more first, untimed)
 * Prints: open_close,RANKS,N,MICROSECONDS_EACH */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *dir = argc > 1 ? argv[1] : "/dev/shm";
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 200;
    if (n < 1) {
        if (rank == 0) fprintf(stderr, "open_close: N must be a positive count, not %s\n", argv[2]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/open_close.dat", dir);
    char record[64] = {0};
    MPI_File fh;
    double seconds = 0;
    for (int timed = 0; timed < 2; timed++) {
        long times = timed ? n : 20;
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        for (long i = 0; i < times; i++) {
            if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                              &fh) != MPI_SUCCESS ||
                MPI_File_write_at_all(fh, (MPI_Offset)rank * 64, record, 64, MPI_BYTE,
                                      MPI_STATUS_IGNORE) != MPI_SUCCESS ||
                MPI_File_close(&fh) != MPI_SUCCESS) {
                fprintf(stderr, "open_close: rank %d: an access to %s failed\n", rank, path);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        seconds = MPI_Wtime() - start;
    }
    if (rank == 0) {
        printf("open_close,%d,%ld,%.1f\n", size, n, seconds / (double)n * 1e6);
        MPI_File_delete(path, MPI_INFO_NULL);
    }
    MPI_Finalize();
    return 0;
}
