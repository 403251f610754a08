/* Collectives take MPI_BOTTOM (NULL) with datatypes of absolute addresses, and a
 * NULL buffer wherever it holds no data. */
#include <mpi.h>

#include "mpi_check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* two separate variables, described by their addresses */
    int a, b;
    MPI_Aint disps[2];
    MPI_Get_address(&a, &disps[0]);
    MPI_Get_address(&b, &disps[1]);
    int lens[2] = {1, 1};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, abs_t;
    CHECK(MPI_Type_create_struct(2, lens, disps, types, &abs_t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&abs_t) == MPI_SUCCESS);

    /* bcast from MPI_BOTTOM */
    a = rank == 0 ? 11 : -1;
    b = rank == 0 ? 22 : -1;
    CHECK(MPI_Bcast(MPI_BOTTOM, 1, abs_t, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(a == 11 && b == 22);
    MPI_Request req;
    a = rank == size - 1 ? 33 : -1;
    b = rank == size - 1 ? 44 : -1;
    CHECK(MPI_Ibcast(MPI_BOTTOM, 1, abs_t, size - 1, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(a == 33 && b == 44);

    /* allreduce from and to MPI_BOTTOM in place */
    a = rank;
    b = 1;
    CHECK(MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, abs_t, MPI_SUM, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(a == size * (size - 1) / 2 && b == size);

    /* gather: each rank sends its (a, b) from MPI_BOTTOM */
    int *all = malloc(2 * (size_t)size * sizeof *all);
    a = rank;
    b = 100 + rank;
    CHECK(MPI_Gather(MPI_BOTTOM, 1, abs_t, all, 2, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0)
        for (int r = 0; r < size; r++) CHECK(all[2 * r] == r && all[2 * r + 1] == 100 + r);
    CHECK(MPI_Allgather(MPI_BOTTOM, 1, abs_t, all, 2, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int r = 0; r < size; r++) CHECK(all[2 * r] == r && all[2 * r + 1] == 100 + r);
    /* scatter into MPI_BOTTOM */
    for (int r = 0; r < size; r++) all[2 * r] = 7 * r, all[2 * r + 1] = 7 * r + 1;
    CHECK(MPI_Scatter(all, 2, MPI_INT, MPI_BOTTOM, 1, abs_t, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(a == 7 * rank && b == 7 * rank + 1);
    /* reduce into MPI_BOTTOM at the root */
    a = 1;
    b = rank;
    CHECK(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : MPI_BOTTOM, MPI_BOTTOM, 1, abs_t, MPI_SUM, 0,
                     MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) CHECK(a == size && b == size * (size - 1) / 2);

    /* alltoallw: block r of the send side is (a, b) from MPI_BOTTOM for every peer */
    int *sc = malloc((size_t)size * sizeof *sc), *rc = malloc((size_t)size * sizeof *rc),
        *sd = malloc((size_t)size * sizeof *sd), *rd = malloc((size_t)size * sizeof *rd);
    MPI_Datatype *st = malloc((size_t)size * sizeof *st), *rt = malloc((size_t)size * sizeof *rt);
    for (int r = 0; r < size; r++) {
        sc[r] = 1;
        sd[r] = 0;
        st[r] = abs_t;
        rc[r] = 2;
        rd[r] = 2 * r * (int)sizeof(int);
        rt[r] = MPI_INT;
    }
    a = 5 * rank;
    b = 5 * rank + 3;
    CHECK(MPI_Alltoallw(MPI_BOTTOM, sc, sd, st, all, rc, rd, rt, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int r = 0; r < size; r++) CHECK(all[2 * r] == 5 * r && all[2 * r + 1] == 5 * r + 3);
    /* and the other way: rank 0 receives its own block into (a, b), from MPI_BOTTOM */
    for (int r = 0; r < size; r++) {
        sc[r] = rank == 0 && r == 0 ? 2 : 0;
        st[r] = MPI_INT;
        sd[r] = 0;
        rc[r] = rank == 0 && r == 0 ? 1 : 0;
        rd[r] = 0;
        rt[r] = r == 0 ? abs_t : MPI_INT;
    }
    int mine[2] = {9, 9 + rank};
    a = b = -1;
    CHECK(MPI_Alltoallw(mine, sc, sd, st, MPI_BOTTOM, rc, rd, rt, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0) CHECK(a == 9 && b == 9);

    /* NULL with predefined types is still refused where there is data */
    CHECK(MPI_Bcast(NULL, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_ERR_BUFFER);
    /* and accepted with no data */
    CHECK(MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS);

    free(all);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    free(st);
    free(rt);
    MPI_Type_free(&abs_t);
    MPI_Finalize();
    return 0;
}
