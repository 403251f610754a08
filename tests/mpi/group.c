/* Groups: every constructor against rank lists computed by hand, ranks, translation,
 * comparison, reference counting through communicators, and invalid arguments under
 * MPI_ERRORS_RETURN. Runs on any number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_check.h"

static MPI_Group world_group;

/* g holds exactly the world ranks want[0..n), in that order, and my rank in it is right. */
static void expect(MPI_Group g, int n, const int *want) {
    int s, r, me = MPI_UNDEFINED;
    CHECK(MPI_Group_size(g, &s) == MPI_SUCCESS && s == n);
    int *ranks = malloc((size_t)(n + 1) * sizeof *ranks),
        *got = malloc((size_t)(n + 1) * sizeof *got);
    for (int k = 0; k < n; k++) ranks[k] = k;
    CHECK(MPI_Group_translate_ranks(g, n, ranks, world_group, got) == MPI_SUCCESS);
    for (int k = 0; k < n; k++) {
        CHECK(got[k] == want[k]);
        if (want[k] == rank) me = k;
    }
    CHECK(MPI_Group_rank(g, &r) == MPI_SUCCESS && r == me);
    free(ranks);
    free(got);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *want = malloc((size_t)(size + 1) * sizeof *want),
        *ranks = malloc((size_t)(size + 1) * sizeof *ranks), n, cmp;

    CHECK(MPI_Comm_group(MPI_COMM_WORLD, &world_group) == MPI_SUCCESS);
    for (int k = 0; k < size; k++) want[k] = k;
    expect(world_group, size, want);

    /* MPI_COMM_SELF: just me */
    MPI_Group self;
    CHECK(MPI_Comm_group(MPI_COMM_SELF, &self) == MPI_SUCCESS);
    expect(self, 1, &rank);

    /* incl: the even ranks, highest first */
    MPI_Group evens_down, g, h;
    n = 0;
    for (int k = (size - 1) / 2 * 2; k >= 0; k -= 2) want[n] = ranks[n] = k, n++;
    CHECK(MPI_Group_incl(world_group, n, ranks, &evens_down) == MPI_SUCCESS);
    expect(evens_down, n, want);

    /* excl: everything but the evens, in world order */
    CHECK(MPI_Group_excl(world_group, n, ranks, &g) == MPI_SUCCESS);
    int m = 0;
    for (int k = 1; k < size; k += 2) want[m++] = k;
    expect(g, m, want);
    MPI_Group odds = g;

    /* range_incl: the evens upwards, then the odds downwards */
    int top_odd = (size - 1) % 2 ? size - 1 : size - 2;
    int ranges[2][3] = {{0, size - 1, 2}, {top_odd, 1, -2}};
    CHECK(MPI_Group_range_incl(world_group, size > 1 ? 2 : 1, ranges, &g) == MPI_SUCCESS);
    m = 0;
    for (int k = 0; k < size; k += 2) want[m++] = k;
    for (int k = top_odd; k >= 1; k -= 2) want[m++] = k;
    expect(g, m, want);
    CHECK(MPI_Group_compare(g, world_group, &cmp) == MPI_SUCCESS);
    CHECK(cmp == (size <= 2 ? MPI_IDENT : MPI_SIMILAR));
    MPI_Group_free(&g);
    CHECK(g == MPI_GROUP_NULL);

    /* range_excl: drop ranks 1, 4, 7 ...; a range with first > last and a positive
     * stride is empty (on 1 rank both are) */
    int drop[2][3] = {{1, size - 1, 3}, {size - 1, size - 2, 1}};
    CHECK(MPI_Group_range_excl(world_group, 2, drop, &g) == MPI_SUCCESS);
    m = 0;
    for (int k = 0; k < size; k++)
        if (k % 3 != 1) want[m++] = k;
    expect(g, m, want);
    MPI_Group_free(&g);

    /* union, intersection, difference of evens_down and the low half */
    MPI_Group low;
    int half = (size + 1) / 2;
    for (int k = 0; k < half; k++) ranks[k] = k;
    CHECK(MPI_Group_incl(world_group, half, ranks, &low) == MPI_SUCCESS);
    CHECK(MPI_Group_union(evens_down, low, &g) == MPI_SUCCESS);
    m = 0;
    for (int k = (size - 1) / 2 * 2; k >= 0; k -= 2) want[m++] = k;
    for (int k = 1; k < half; k += 2) want[m++] = k;
    expect(g, m, want);
    MPI_Group_free(&g);
    CHECK(MPI_Group_intersection(evens_down, low, &g) == MPI_SUCCESS);
    m = 0;
    for (int k = (size - 1) / 2 * 2; k >= 0; k -= 2)
        if (k < half) want[m++] = k;
    expect(g, m, want);
    MPI_Group_free(&g);
    CHECK(MPI_Group_difference(low, evens_down, &g) == MPI_SUCCESS);
    m = 0;
    for (int k = 1; k < half; k += 2) want[m++] = k;
    expect(g, m, want);
    MPI_Group_free(&g);
    /* difference with itself: empty, the same as MPI_GROUP_EMPTY */
    CHECK(MPI_Group_difference(low, low, &g) == MPI_SUCCESS);
    expect(g, 0, want);
    CHECK(MPI_Group_compare(g, MPI_GROUP_EMPTY, &cmp) == MPI_SUCCESS && cmp == MPI_IDENT);
    MPI_Group_free(&g);
    expect(MPI_GROUP_EMPTY, 0, want);
    /* union with the empty group changes nothing */
    CHECK(MPI_Group_union(MPI_GROUP_EMPTY, evens_down, &g) == MPI_SUCCESS);
    CHECK(MPI_Group_compare(g, evens_down, &cmp) == MPI_SUCCESS && cmp == MPI_IDENT);
    MPI_Group_free(&g);

    /* translate_ranks: world ranks to evens_down ranks; odd ranks are not there */
    int from[3] = {0, MPI_PROC_NULL, size - 1}, to[3];
    CHECK(MPI_Group_translate_ranks(world_group, 3, from, evens_down, to) == MPI_SUCCESS);
    CHECK(to[0] == (size - 1) / 2);
    CHECK(to[1] == MPI_PROC_NULL);
    CHECK(to[2] == ((size - 1) % 2 ? MPI_UNDEFINED : 0));

    /* compare */
    CHECK(MPI_Group_compare(world_group, world_group, &cmp) == MPI_SUCCESS && cmp == MPI_IDENT);
    CHECK(MPI_Group_compare(evens_down, odds, &cmp) == MPI_SUCCESS);
    CHECK(cmp == MPI_UNEQUAL);
    for (int k = 0; k < size; k++) ranks[k] = size - 1 - k;
    CHECK(MPI_Group_incl(world_group, size, ranks, &g) == MPI_SUCCESS);
    CHECK(MPI_Group_compare(g, world_group, &cmp) == MPI_SUCCESS);
    CHECK(cmp == (size == 1 ? MPI_IDENT : MPI_SIMILAR));
    MPI_Group_free(&g);

    /* reference counting: a communicator's group outlives the handle and the
     * communicator it came from */
    MPI_Comm dup;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_group(dup, &g) == MPI_SUCCESS);
    CHECK(MPI_Comm_group(dup, &h) == MPI_SUCCESS);
    CHECK(MPI_Group_free(&g) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
    CHECK(MPI_Group_compare(h, world_group, &cmp) == MPI_SUCCESS && cmp == MPI_IDENT);
    CHECK(MPI_Group_free(&h) == MPI_SUCCESS);

    /* invalid arguments */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Group_size(MPI_GROUP_NULL, &n) == MPI_ERR_GROUP);
    CHECK(MPI_Group_size((MPI_Group)MPI_COMM_WORLD, &n) == MPI_ERR_GROUP);
    CHECK(MPI_Group_size(g, &n) == MPI_ERR_GROUP); /* freed */
    CHECK(MPI_Group_rank(world_group, NULL) == MPI_ERR_ARG);
    MPI_Group e = MPI_GROUP_EMPTY; /* freed as MPICH lets it be: the handle only */
    CHECK(MPI_Group_free(&e) == MPI_SUCCESS && e == MPI_GROUP_NULL);
    CHECK(MPI_Group_size(MPI_GROUP_EMPTY, &n) == MPI_SUCCESS && n == 0);
    int bad[2] = {0, size};
    CHECK(MPI_Group_incl(world_group, 2, bad, &g) == MPI_ERR_RANK);
    bad[1] = -1;
    CHECK(MPI_Group_excl(world_group, 2, bad, &g) == MPI_ERR_RANK);
    bad[1] = 0;
    CHECK(MPI_Group_incl(world_group, 2, bad, &g) == MPI_ERR_RANK); /* a rank twice */
    CHECK(MPI_Group_incl(world_group, -1, bad, &g) == MPI_ERR_ARG);
    int zero_stride[1][3] = {{0, 0, 0}}, past_end[1][3] = {{0, size, 1}},
        twice[2][3] = {{0, 0, 1}, {0, 0, 1}};
    CHECK(MPI_Group_range_incl(world_group, 1, zero_stride, &g) == MPI_ERR_ARG);
    CHECK(MPI_Group_range_incl(world_group, 1, past_end, &g) == MPI_ERR_RANK);
    CHECK(MPI_Group_range_excl(world_group, 2, twice, &g) == MPI_ERR_RANK);
    int all_twice[2][3] = {{0, size - 1, 1}, {0, size - 1, 1}}; /* more ranks than the group */
    CHECK(MPI_Group_range_incl(world_group, 2, all_twice, &g) == MPI_ERR_RANK);
    from[0] = size;
    CHECK(MPI_Group_translate_ranks(world_group, 1, from, evens_down, to) == MPI_ERR_RANK);
    CHECK(MPI_Group_union(world_group, MPI_GROUP_NULL, &g) == MPI_ERR_GROUP);
    CHECK(MPI_Group_compare(world_group, evens_down, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_group(MPI_COMM_NULL, &g) == MPI_ERR_COMM);

    MPI_Group_free(&low);
    MPI_Group_free(&odds);
    MPI_Group_free(&evens_down);
    MPI_Group_free(&self);
    MPI_Group_free(&world_group);
    free(want);
    free(ranks);
    MPI_Finalize();
    if (rank == 0) printf("group: ok on %d ranks\n", size);
    return 0;
}
