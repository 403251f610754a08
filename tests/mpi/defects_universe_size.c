/* MPI_UNIVERSE_SIZE reports the slots the launcher has, as Open MPI's mpirun and
 * MPICH's Hydra (-usize SYSTEM) do, not the job's size: programs that check it
 * before they spawn then spawn. Run by the test with the size expected in
 * UNIVERSE_SIZE_WANTED (twrun given hosts with slots, or none: this machine's CPUs, at
 * least the job's size); a spawned copy of the program sees the same universe. With the
 * argument print it only prints "MPI_UNIVERSE_SIZE N" at rank 0 (tests/slurm). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int universe(void) {
    int *v = NULL, flag = 0;
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag) == MPI_SUCCESS && flag);
    return *v;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp(argv[1], "print")) {
        if (rank == 0) printf("MPI_UNIVERSE_SIZE %d\n", universe());
        MPI_Finalize();
        return 0;
    }
    const char *want = getenv("UNIVERSE_SIZE_WANTED");
    CHECK(want && atoi(want) > 0);
    int u = universe();
    if (u != atoi(want)) fprintf(stderr, "rank %d: MPI_UNIVERSE_SIZE %d, want %s\n", rank, u, want);
    CHECK(u == atoi(want));
    MPI_Comm parent, inter;
    CHECK(MPI_Comm_get_parent(&parent) == MPI_SUCCESS);
    if (parent == MPI_COMM_NULL) {
        /* the room left, as programs that spawn work it out: at least one here */
        CHECK(u > size);
        CHECK(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                             MPI_ERRCODES_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Comm_disconnect(&parent) == MPI_SUCCESS);
    }
    MPI_Finalize();
    return 0;
}
