/* Derived datatypes of no data: zero-count constructors (with or without their
 * arrays) make valid types of size 0 and extent 0, usable everywhere, and a type
 * with zero-length blocks or an empty member at extreme displacements is built and
 * committed, its bounds those of its data. */
#include <mpi.h>
#include <stdint.h>

#include "mpi_check.h"

/* An empty type: size 0, extent 0, true extent 0, and n of them move nothing. */
static void expect_empty(MPI_Datatype t) {
    int s = -1, dummy = 0, peer = (rank + 1) % size, from = (rank + size - 1) % size, c = -1;
    MPI_Aint lb = -1, extent = -1;
    MPI_Count sx = -1;
    MPI_Status st;
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    CHECK(MPI_Type_size(t, &s) == MPI_SUCCESS && s == 0);
    CHECK(MPI_Type_size_x(t, &sx) == MPI_SUCCESS && sx == 0);
    CHECK(MPI_Type_get_extent(t, &lb, &extent) == MPI_SUCCESS && lb == 0 && extent == 0);
    CHECK(MPI_Type_get_true_extent(t, &lb, &extent) == MPI_SUCCESS && lb == 0 && extent == 0);
    CHECK(MPI_Sendrecv(&dummy, 5, t, peer, 3, &dummy, 5, t, from, 3, MPI_COMM_WORLD, &st) ==
          MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, t, &c) == MPI_SUCCESS && c == 0);
    CHECK(MPI_Get_elements(&st, t, &c) == MPI_SUCCESS && c == 0);
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    int zi = 0;
    MPI_Aint za = 0;

    /* zero counts, with NULL arrays and with real ones */
    CHECK(MPI_Type_create_indexed_block(0, 1, NULL, MPI_INT, &t) == MPI_SUCCESS);
    expect_empty(t);
    CHECK(MPI_Type_create_indexed_block(0, 3, &zi, MPI_INT, &t) == MPI_SUCCESS);
    expect_empty(t);
    CHECK(MPI_Type_create_hindexed_block(0, 2, NULL, MPI_DOUBLE, &t) == MPI_SUCCESS);
    expect_empty(t);
    CHECK(MPI_Type_indexed(0, NULL, NULL, MPI_INT, &t) == MPI_SUCCESS);
    expect_empty(t);
    CHECK(MPI_Type_create_hindexed(0, NULL, NULL, MPI_INT, &t) == MPI_SUCCESS);
    expect_empty(t);
    CHECK(MPI_Type_create_struct(0, NULL, NULL, NULL, &t) == MPI_SUCCESS);
    expect_empty(t);
    CHECK(MPI_Type_contiguous(0, MPI_INT, &t) == MPI_SUCCESS);
    expect_empty(t);
    CHECK(MPI_Type_vector(0, 2, 3, MPI_INT, &t) == MPI_SUCCESS);
    expect_empty(t);
    CHECK(MPI_Type_create_hindexed(1, &zi, &za, MPI_INT, &t) == MPI_SUCCESS);
    expect_empty(t);

    /* the contents of a zero-count indexed block type name what it was built from */
    int ni, na, nt, comb, ints[4];
    MPI_Datatype types[1];
    CHECK(MPI_Type_create_indexed_block(0, 7, NULL, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_INDEXED_BLOCK && ni == 2 && na == 0 && nt == 1);
    CHECK(MPI_Type_get_contents(t, 4, 0, 1, ints, NULL, types) == MPI_SUCCESS);
    CHECK(ints[0] == 0 && ints[1] == 7 && types[0] == MPI_INT);
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);

    /* zero-length blocks at extreme displacements, around one int at 8 */
    const MPI_Aint big = (MPI_Aint)(INTPTR_MAX - 16), small = (MPI_Aint)(INTPTR_MIN + 16);
    int lens[3] = {0, 1, 0};
    MPI_Aint disps[3] = {big, 8, small};
    MPI_Datatype h, empty, s;
    MPI_Aint lb, extent;
    CHECK(MPI_Type_create_hindexed(3, lens, disps, MPI_INT, &h) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&h) == MPI_SUCCESS);
    CHECK(MPI_Type_get_extent(h, &lb, &extent) == MPI_SUCCESS && lb == 8 && extent == 4);
    /* an hindexed type of zero-length blocks only, at the same places */
    int zeros[2] = {0, 0};
    MPI_Aint far[2] = {big, small};
    CHECK(MPI_Type_create_hindexed(2, zeros, far, MPI_DOUBLE, &empty) == MPI_SUCCESS);
    /* a struct of both, the empty one far from the data: it adds nothing */
    int sl[3] = {1, 1, 2};
    MPI_Aint sd[3] = {0, big, small};
    MPI_Datatype st[3] = {h, empty, empty};
    CHECK(MPI_Type_create_struct(3, sl, sd, st, &s) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&s) == MPI_SUCCESS);
    int sz;
    CHECK(MPI_Type_size(s, &sz) == MPI_SUCCESS && sz == 4);
    CHECK(MPI_Type_get_true_extent(s, &lb, &extent) == MPI_SUCCESS && lb == 8 && extent == 4);
    /* and it carries its int */
    int in[4] = {1, 2, 42, 3}, out[4] = {0, 0, 0, 0};
    CHECK(MPI_Sendrecv(in, 1, s, 0, 5, out, 1, s, 0, 5, MPI_COMM_SELF, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 42 && out[3] == 0);
    MPI_Type_free(&s);
    MPI_Type_free(&empty);
    MPI_Type_free(&h);

    MPI_Finalize();
    return 0;
}
