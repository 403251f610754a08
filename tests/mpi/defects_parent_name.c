/* The intercommunicator MPI_Comm_get_parent returns in a spawned process is named
 * "MPI_COMM_PARENT" (MPI-3.1 section 6.8: the default names of MPI_COMM_WORLD,
 * MPI_COMM_SELF and the parent communicator), as in MPICH and Open MPI; a name the
 * program sets replaces it. The program spawns two copies of itself. */
#include <mpi.h>
#include <string.h>

#include "mpi_check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm parent, inter;
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK(MPI_Comm_get_parent(&parent) == MPI_SUCCESS);
    if (parent == MPI_COMM_NULL) {
        CHECK(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                             MPI_ERRCODES_IGNORE) == MPI_SUCCESS);
        /* the parents' side has no default name */
        CHECK(MPI_Comm_get_name(inter, name, &len) == MPI_SUCCESS && len == 0 && !name[0]);
        CHECK(MPI_Barrier(inter) == MPI_SUCCESS);
        CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Comm_get_name(parent, name, &len) == MPI_SUCCESS);
        CHECK(!strcmp(name, "MPI_COMM_PARENT") && len == (int)strlen("MPI_COMM_PARENT"));
        CHECK(MPI_Comm_set_name(parent, "mine") == MPI_SUCCESS);
        CHECK(MPI_Comm_get_name(parent, name, &len) == MPI_SUCCESS && !strcmp(name, "mine"));
        CHECK(MPI_Barrier(parent) == MPI_SUCCESS);
        CHECK(MPI_Comm_disconnect(&parent) == MPI_SUCCESS);
    }
    MPI_Finalize();
    return 0;
}
