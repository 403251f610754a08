/* A group constructor whose result has no member returns MPI_GROUP_EMPTY itself, as
 * MPI-3.1 section 6.3.2 says ("If n = 0, then newgroup is MPI_GROUP_EMPTY"; of the
 * set operations, "the new group can be empty, that is, equal to MPI_GROUP_EMPTY")
 * and MPICH does: programs compare the handle. Freeing it, as programs free every
 * group they were given, succeeds (as in MPICH) and leaves MPI_GROUP_NULL. */
#include <mpi.h>
#include <stdlib.h>

#include "mpi_check.h"

/* g is MPI_GROUP_EMPTY, and freeing it is fine */
static void expect_empty(MPI_Group g) {
    int n = -1;
    CHECK(g == MPI_GROUP_EMPTY);
    CHECK(MPI_Group_size(g, &n) == MPI_SUCCESS && n == 0);
    CHECK(MPI_Group_free(&g) == MPI_SUCCESS && g == MPI_GROUP_NULL);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world, g;
    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS);
    int *all = malloc((size_t)size * sizeof *all);
    CHECK(all);
    for (int r = 0; r < size; r++) all[r] = size - 1 - r;
    CHECK(MPI_Group_excl(world, size, all, &g) == MPI_SUCCESS);
    expect_empty(g);
    CHECK(MPI_Group_incl(world, 0, all, &g) == MPI_SUCCESS);
    expect_empty(g);
    CHECK(MPI_Group_incl(world, 0, NULL, &g) == MPI_SUCCESS);
    expect_empty(g);
    int every[1][3] = {{size - 1, 0, -1}};
    CHECK(MPI_Group_range_excl(world, 1, every, &g) == MPI_SUCCESS);
    expect_empty(g);
    CHECK(MPI_Group_range_incl(world, 0, every, &g) == MPI_SUCCESS);
    expect_empty(g);
    CHECK(MPI_Group_difference(world, world, &g) == MPI_SUCCESS);
    expect_empty(g);
    CHECK(MPI_Group_intersection(world, MPI_GROUP_EMPTY, &g) == MPI_SUCCESS);
    expect_empty(g);
    CHECK(MPI_Group_union(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &g) == MPI_SUCCESS);
    expect_empty(g);
    if (size > 1) { /* disjoint halves intersect in nothing */
        MPI_Group low, high;
        int half[1][3] = {{0, size / 2 - 1, 1}};
        CHECK(MPI_Group_range_incl(world, 1, half, &low) == MPI_SUCCESS);
        CHECK(MPI_Group_range_excl(world, 1, half, &high) == MPI_SUCCESS);
        CHECK(MPI_Group_intersection(low, high, &g) == MPI_SUCCESS);
        expect_empty(g);
        CHECK(MPI_Group_free(&low) == MPI_SUCCESS && MPI_Group_free(&high) == MPI_SUCCESS);
    }
    /* an empty group still works as an operand after a free of a copy of it */
    int n = -1;
    CHECK(MPI_Group_size(MPI_GROUP_EMPTY, &n) == MPI_SUCCESS && n == 0);
    /* a non-empty result is a group of its own */
    CHECK(MPI_Group_excl(world, size - 1, all, &g) == MPI_SUCCESS && g != MPI_GROUP_EMPTY);
    CHECK(MPI_Group_size(g, &n) == MPI_SUCCESS && n == 1);
    CHECK(MPI_Group_free(&g) == MPI_SUCCESS);
    CHECK(MPI_Group_free(&world) == MPI_SUCCESS);
    free(all);
    MPI_Finalize();
    return 0;
}
