/* One program of an MPMD job, built twice (MPMD_PROGRAM 'a' and 'b'):
 *   mpmd_rank_X SIZES     SIZES: the ranks of each program in order, as "2,1"
 * Every rank checks that MPI_COMM_WORLD holds all the programs' ranks, that its
 * MPI_APPNUM is the index of its program, and, from every rank's program letter and
 * MPI_APPNUM, that the ranks are numbered in the order the programs were given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mpi/mpi_check.h"

#ifndef MPMD_PROGRAM
#error "MPMD_PROGRAM: the letter of this program"
#endif

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc == 2);
    int sizes[16], nprog = 0, total = 0;
    for (char *p = argv[1]; nprog < 16 && *p; p += *p == ',') {
        sizes[nprog] = (int)strtol(p, &p, 10);
        total += sizes[nprog++];
    }
    CHECK(total == size);
    int *appnum, flag = 0;
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag) == MPI_SUCCESS);
    CHECK(flag);
    int mine[2] = {*appnum, MPMD_PROGRAM};
    int *all = malloc(2 * (size_t)size * sizeof *all);
    CHECK(all != NULL);
    CHECK(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int k = 0, r = 0; k < nprog; k++)
        for (int i = 0; i < sizes[k]; i++, r++) {
            CHECK(all[2 * r] == k);
            /* the programs alternate a, b, a, ... in the tests */
            CHECK(all[2 * r + 1] == (k % 2 ? 'b' : 'a'));
        }
    if (rank == 0) printf("mpmd: %d ranks of %d programs\n", size, nprog);
    free(all);
    MPI_Finalize();
    return 0;
}
