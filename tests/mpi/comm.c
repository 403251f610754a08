/* Communicators: dup, split (by parity, keys reversed; one rank out), messages and
 * barriers inside them with statuses in their own ranks, no crosstalk between a
 * communicator and its duplicate, compare, free, the predefined attributes, and
 * invalid arguments. Needs 4 or more ranks. */
#include <mpi.h>
#include <stdio.h>

#include "mpi_check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 4);

    /* dup: same ranks, a separate context */
    MPI_Comm dup;
    int r, s, cmp;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    MPI_Comm_rank(dup, &r);
    MPI_Comm_size(dup, &s);
    CHECK(r == rank && s == size);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
    CHECK(cmp == MPI_CONGRUENT);
    MPI_Comm_compare(dup, dup, &cmp);
    CHECK(cmp == MPI_IDENT);
    /* the same tag on both: each receive gets its own communicator's message */
    int a = 1, b = 2, x = 0, y = 0;
    if (rank == 0) {
        MPI_Send(&a, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 1, 5, dup);
    } else if (rank == 1) {
        MPI_Recv(&y, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(x == 1 && y == 2);
    }

    /* split by parity, keys reversed; the last rank stays out */
    MPI_Comm half;
    int color = rank == size - 1 ? MPI_UNDEFINED : rank % 2;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half) == MPI_SUCCESS);
    if (color == MPI_UNDEFINED) {
        CHECK(half == MPI_COMM_NULL);
    } else {
        int members = 0;
        for (int q = 0; q < size - 1; q++) members += q % 2 == color;
        MPI_Comm_rank(half, &r);
        MPI_Comm_size(half, &s);
        CHECK(s == members);
        /* keys reversed: the highest world rank of the color is rank 0 */
        int higher = 0;
        for (int q = rank + 1; q < size - 1; q++) higher += q % 2 == color;
        CHECK(r == higher);
        /* a ring inside the new communicator, statuses in its ranks */
        int token = rank, got = -1;
        MPI_Status st;
        MPI_Sendrecv(&token, 1, MPI_INT, (r + 1) % s, 9, &got, 1, MPI_INT, MPI_ANY_SOURCE, 9, half,
                     &st);
        CHECK(st.MPI_SOURCE == (r - 1 + s) % s);
        CHECK(got % 2 == color);
        CHECK(MPI_Barrier(half) == MPI_SUCCESS);
        MPI_Comm_compare(half, MPI_COMM_WORLD, &cmp);
        CHECK(cmp == MPI_UNEQUAL);
        /* split of a split, then free both */
        MPI_Comm one;
        CHECK(MPI_Comm_split(half, r, 0, &one) == MPI_SUCCESS);
        MPI_Comm_size(one, &s);
        CHECK(s == 1);
        CHECK(MPI_Comm_free(&one) == MPI_SUCCESS && one == MPI_COMM_NULL);
        CHECK(MPI_Comm_free(&half) == MPI_SUCCESS && half == MPI_COMM_NULL);
    }
    CHECK(MPI_Barrier(dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);

    /* attributes */
    int *v, flag;
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag) == MPI_SUCCESS);
    CHECK(flag && *v >= 32767);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag) == MPI_SUCCESS);
    CHECK(flag);

    /* invalid arguments */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm w = MPI_COMM_WORLD, bad = (MPI_Comm)0x44000fff;
    CHECK(MPI_Comm_free(&w) == MPI_ERR_COMM); /* predefined */
    CHECK(MPI_Comm_dup(bad, &dup) == MPI_ERR_COMM);
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, -3, 0, &dup) == MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Finalize();
    if (rank == 0) printf("comm: all checks passed on %d ranks\n", size);
    return 0;
}
