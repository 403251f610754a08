/* Communicator management beyond dup and split: an intercommunicator between the two
 * halves of MPI_COMM_WORLD (messages across it, its queries, its duplicate, merging
 * it both ways), MPI_Comm_create and MPI_Comm_create_group with groups in odd
 * orders, MPI_Comm_split_type, names, attributes with counted callbacks, and invalid
 * arguments under MPI_ERRORS_RETURN. Needs 4 or more ranks. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpi_check.h"

static int copies, deletes;

/* copies the value plus one, so a copy is told from the original */
static int copy_plus_one(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out,
                         int *flag) {
    (void)oldcomm, (void)keyval;
    CHECK(extra == &copies);
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
    (void)comm, (void)keyval, (void)value, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int refuse_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
    (void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

static int refuse_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
    (void)comm, (void)keyval, (void)value;
    return *(int *)extra ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* The world ranks of a communicator's group, as seen through MPI_Group_translate_ranks. */
static void world_ranks(MPI_Group g, int *out, int *n) {
    MPI_Group world;
    int ranks[64];
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(g, n);
    for (int k = 0; k < *n; k++) ranks[k] = k;
    MPI_Group_translate_ranks(g, *n, ranks, world, out);
    MPI_Group_free(&world);
}

/* A message round the ring of an intracommunicator, statuses in its ranks. */
static void ring(MPI_Comm c) {
    int r, s, got = -1;
    MPI_Status st;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    CHECK(MPI_Sendrecv(&r, 1, MPI_INT, (r + 1) % s, 3, &got, 1, MPI_INT, MPI_ANY_SOURCE, 3, c,
                       &st) == MPI_SUCCESS);
    CHECK(got == (r - 1 + s) % s && st.MPI_SOURCE == got);
}

static void intercommunicator(void) {
    int nlow = size / 2, nhigh = size - nlow, high = rank >= nlow;
    int nlocal = high ? nhigh : nlow, nremote = high ? nlow : nhigh;
    int lrank = high ? rank - nlow : rank;
    MPI_Comm half, inter, dup, merged;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, high, rank, &half) == MPI_SUCCESS);
    /* leaders: local rank 0 of each half; the remote one named by its world rank */
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, high ? 0 : nlow, 77, &inter) ==
          MPI_SUCCESS);
    int flag, r, s, cmp;
    CHECK(MPI_Comm_test_inter(inter, &flag) == MPI_SUCCESS && flag);
    CHECK(MPI_Comm_test_inter(half, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Comm_rank(inter, &r) == MPI_SUCCESS && r == lrank);
    CHECK(MPI_Comm_size(inter, &s) == MPI_SUCCESS && s == nlocal);
    CHECK(MPI_Comm_remote_size(inter, &s) == MPI_SUCCESS && s == nremote);
    MPI_Group g;
    int w[64], n;
    CHECK(MPI_Comm_remote_group(inter, &g) == MPI_SUCCESS);
    world_ranks(g, w, &n);
    CHECK(n == nremote);
    for (int k = 0; k < n; k++) CHECK(w[k] == (high ? 0 : nlow) + k);
    MPI_Group_free(&g);
    CHECK(MPI_Comm_group(inter, &g) == MPI_SUCCESS);
    world_ranks(g, w, &n);
    CHECK(n == nlocal);
    for (int k = 0; k < n; k++) CHECK(w[k] == (high ? nlow : 0) + k);
    MPI_Group_free(&g);

    /* messages across: low rank i sends to remote rank i % nhigh, which takes them
     * with MPI_ANY_SOURCE and answers each by the status's (remote) rank */
    if (!high) {
        int v = rank, back = -1;
        MPI_Status st;
        CHECK(MPI_Send(&v, 1, MPI_INT, lrank % nhigh, 11, inter) == MPI_SUCCESS);
        CHECK(MPI_Recv(&back, 1, MPI_INT, lrank % nhigh, 12, inter, &st) == MPI_SUCCESS);
        CHECK(back == nlow + lrank % nhigh && st.MPI_SOURCE == lrank % nhigh);
    } else {
        for (int i = lrank; i < nlow; i += nhigh) {
            int v = -1;
            MPI_Status st;
            CHECK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 11, inter, &st) == MPI_SUCCESS);
            CHECK(st.MPI_SOURCE == v && v % nhigh == lrank); /* low world rank == its rank */
            CHECK(MPI_Send(&rank, 1, MPI_INT, st.MPI_SOURCE, 12, inter) == MPI_SUCCESS);
        }
    }
    CHECK(MPI_Send(&rank, 1, MPI_INT, nremote, 1, inter) == MPI_ERR_RANK); /* remote ranks only */

    /* a duplicate: the same groups, its own context */
    CHECK(MPI_Comm_dup(inter, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_test_inter(dup, &flag) == MPI_SUCCESS && flag);
    CHECK(MPI_Comm_compare(inter, dup, &cmp) == MPI_SUCCESS && cmp == MPI_CONGRUENT);
    CHECK(MPI_Comm_compare(inter, half, &cmp) == MPI_SUCCESS && cmp == MPI_UNEQUAL);
    CHECK(MPI_Comm_remote_size(dup, &s) == MPI_SUCCESS && s == nremote);
    if (lrank == 0) { /* the same tag on both: each receive gets its own communicator's */
        int a = 1, b = 2, x = 0, y = 0;
        MPI_Request q[2];
        MPI_Isend(&a, 1, MPI_INT, 0, 5, inter, &q[0]);
        MPI_Isend(&b, 1, MPI_INT, 0, 5, dup, &q[1]);
        MPI_Recv(&y, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        CHECK(x == 1 && y == 2);
    }

    /* merging: the group that says high goes last; on a tie the group of the lower
     * leader comes first */
    for (int way = 0; way < 3; way++) {
        int say_high = way == 0 ? high : way == 1 ? !high : 0;
        CHECK(MPI_Intercomm_merge(way == 2 ? dup : inter, say_high, &merged) == MPI_SUCCESS);
        CHECK(MPI_Comm_test_inter(merged, &flag) == MPI_SUCCESS && !flag);
        MPI_Comm_size(merged, &s);
        MPI_Comm_rank(merged, &r);
        CHECK(s == size);
        CHECK(r == (way == 1 ? (high ? lrank : nhigh + lrank) : rank));
        ring(merged);
        CHECK(MPI_Comm_free(&merged) == MPI_SUCCESS);
    }

    /* split by parity of the local rank, keys reversed: each parity's members of both
     * groups, highest local rank first */
    MPI_Comm part;
    CHECK(MPI_Comm_split(inter, lrank % 2, -lrank, &part) == MPI_SUCCESS);
    CHECK(MPI_Comm_test_inter(part, &flag) == MPI_SUCCESS && flag);
    int nl = (nlocal - lrank % 2 + 1) / 2, nr = (nremote - lrank % 2 + 1) / 2;
    MPI_Comm_size(part, &s);
    MPI_Comm_rank(part, &r);
    CHECK(s == nl && r == (nlocal - 1 - lrank) / 2); /* those of my parity above me */
    CHECK(MPI_Comm_remote_size(part, &s) == MPI_SUCCESS && s == nr);
    CHECK(MPI_Comm_remote_group(part, &g) == MPI_SUCCESS);
    world_ranks(g, w, &n);
    MPI_Group_free(&g);
    for (int k = 0, q = nremote - 1; q >= 0; q--) /* the remote parity, downwards */
        if (q % 2 == lrank % 2) CHECK(w[k++] == (high ? 0 : nlow) + q);
    if (r == 0) { /* the two rank 0s swap their world ranks across */
        int theirs = -1;
        CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 8, &theirs, 1, MPI_INT, 0, 8, part,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(theirs == w[0]);
    }
    CHECK(MPI_Comm_free(&part) == MPI_SUCCESS);
    /* a color that only one group has: MPI_COMM_NULL for its members */
    CHECK(MPI_Comm_split(inter, !high || lrank == 0 ? 7 : 8, 0, &part) == MPI_SUCCESS);
    if (high && lrank) {
        CHECK(part == MPI_COMM_NULL);
    } else {
        CHECK(MPI_Comm_remote_size(part, &s) == MPI_SUCCESS && s == (high ? nlow : 1));
        CHECK(MPI_Comm_size(part, &s) == MPI_SUCCESS && s == (high ? 1 : nlow));
        CHECK(MPI_Comm_free(&part) == MPI_SUCCESS);
    }

    /* create from each side's group reversed, minus its local rank 1: an
     * intercommunicator of the rest, in group order */
    MPI_Group lg, sub;
    MPI_Comm_group(inter, &lg);
    int pick[64], np = 0;
    for (int k = nlocal - 1; k >= 0; k--)
        if (k != 1) pick[np++] = k;
    MPI_Group_incl(lg, np, pick, &sub);
    CHECK(MPI_Comm_create(inter, sub, &part) == MPI_SUCCESS);
    if (lrank == 1) {
        CHECK(part == MPI_COMM_NULL);
    } else {
        CHECK(MPI_Comm_test_inter(part, &flag) == MPI_SUCCESS && flag);
        MPI_Comm_size(part, &s);
        MPI_Comm_rank(part, &r);
        CHECK(s == nlocal - 1 && pick[r] == lrank);
        CHECK(MPI_Comm_remote_size(part, &s) == MPI_SUCCESS && s == nremote - 1);
        int theirs = -1, want = (high ? 0 : nlow) + nremote - 1 - r; /* their rank r, reversed */
        if (r == nremote - 2) want = high ? 0 : nlow;                /* ...skipping rank 1 */
        if (r < nremote - 1) {
            CHECK(MPI_Sendrecv(&rank, 1, MPI_INT, r, 8, &theirs, 1, MPI_INT, r, 8, part,
                               MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(theirs == want);
        }
        CHECK(MPI_Comm_free(&part) == MPI_SUCCESS);
    }
    MPI_Group_free(&sub);
    CHECK(MPI_Comm_create(inter, MPI_GROUP_NULL, &part) == MPI_ERR_GROUP);
    MPI_Group world_g;
    MPI_Comm_group(MPI_COMM_WORLD, &world_g);
    CHECK(MPI_Comm_create(inter, world_g, &part) == MPI_ERR_GROUP); /* not the local group's */
    MPI_Group_free(&world_g);
    MPI_Group_free(&lg);

    MPI_Comm out;
    CHECK(MPI_Intercomm_merge(half, 0, &out) == MPI_ERR_COMM);
    CHECK(MPI_Comm_remote_size(half, &s) == MPI_ERR_COMM);
    CHECK(MPI_Comm_remote_group(MPI_COMM_WORLD, &g) == MPI_ERR_COMM);
    CHECK(MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 1, &out) == MPI_ERR_COMM);
    CHECK(MPI_Intercomm_create(half, nlocal, MPI_COMM_WORLD, 0, 1, &out) == MPI_ERR_RANK);
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 0, -1, &out) == MPI_ERR_TAG);
    /* a leader's error reaches its whole group: a remote leader out of range */
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, size, 78, &out) == MPI_ERR_RANK);
    CHECK(out == MPI_COMM_NULL);

    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&inter) == MPI_SUCCESS && inter == MPI_COMM_NULL);
    CHECK(MPI_Comm_free(&half) == MPI_SUCCESS);
}

static void from_groups(void) {
    MPI_Group world, odd, even, mine;
    MPI_Comm c;
    int r, s, cmp;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    /* the odd ranks, highest first: the evens get MPI_COMM_NULL */
    int ranks[64], n = 0;
    for (int k = size - 1; k >= 0; k--)
        if (k % 2) ranks[n++] = k;
    MPI_Group_incl(world, n, ranks, &odd);
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, odd, &c) == MPI_SUCCESS);
    if (rank % 2 == 0) {
        CHECK(c == MPI_COMM_NULL);
    } else {
        MPI_Comm_size(c, &s);
        MPI_Comm_rank(c, &r);
        CHECK(s == n && ranks[r] == rank);
        MPI_Group cg;
        MPI_Comm_group(c, &cg);
        CHECK(MPI_Group_compare(cg, odd, &cmp) == MPI_SUCCESS && cmp == MPI_IDENT);
        MPI_Group_free(&cg);
        ring(c);
        MPI_Comm_free(&c);
    }
    /* disjoint groups on different processes (MPI-3.1): evens and odds at once */
    MPI_Group_difference(world, odd, &even);
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, rank % 2 ? odd : even, &c) == MPI_SUCCESS);
    MPI_Comm_size(c, &s);
    MPI_Comm_rank(c, &r);
    CHECK(s == (rank % 2 ? n : size - n));
    CHECK(rank % 2 ? ranks[r] == rank : r == rank / 2);
    ring(c);
    MPI_Comm_free(&c);

    /* the whole world reversed: the same processes in another order */
    MPI_Group reversed;
    for (int k = 0; k < size; k++) ranks[k] = size - 1 - k;
    MPI_Group_incl(world, size, ranks, &reversed);
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, reversed, &c) == MPI_SUCCESS);
    MPI_Comm_rank(c, &r);
    CHECK(r == size - 1 - rank);
    CHECK(MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp) == MPI_SUCCESS && cmp == MPI_SIMILAR);
    ring(c);
    MPI_Comm_free(&c);
    MPI_Group_free(&reversed);

    /* create_group: only the members call; two disjoint groups at once with the same
     * tag: {size-1, 1, 2} in that order, and the others upwards */
    int first[3] = {size - 1, 1, 2}, in_first = rank == size - 1 || rank == 1 || rank == 2;
    if (in_first) {
        MPI_Group_incl(world, 3, first, &mine);
    } else {
        MPI_Group_excl(world, 3, first, &mine);
    }
    CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 9, &c) == MPI_SUCCESS);
    MPI_Comm_size(c, &s);
    MPI_Comm_rank(c, &r);
    CHECK(s == (in_first ? 3 : size - 3));
    if (in_first) CHECK(first[r] == rank);
    if (!in_first) CHECK(r == (rank == 0 ? 0 : rank - 2));
    ring(c);
    MPI_Comm_free(&c);
    MPI_Group_free(&mine);
    /* a process outside the group takes no part and gets MPI_COMM_NULL */
    if (rank % 2 == 0) {
        CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, odd, 4, &c) == MPI_SUCCESS);
        CHECK(c == MPI_COMM_NULL);
    } else {
        CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, odd, 4, &c) == MPI_SUCCESS);
        ring(c);
        MPI_Comm_free(&c);
    }

    /* split_type: one node, ordered by key */
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &c) ==
          MPI_SUCCESS);
    MPI_Comm_size(c, &s);
    MPI_Comm_rank(c, &r);
    CHECK(s == size && r == size - 1 - rank);
    MPI_Comm_free(&c);
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, rank ? MPI_COMM_TYPE_SHARED : MPI_UNDEFINED, 0,
                              MPI_INFO_NULL, &c) == MPI_SUCCESS);
    if (!rank) CHECK(c == MPI_COMM_NULL);
    if (rank) {
        MPI_Comm_size(c, &s);
        CHECK(s == size - 1);
        MPI_Comm_free(&c);
    }

    /* invalid */
    CHECK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c) == MPI_ERR_GROUP);
    CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, world, -1, &c) == MPI_ERR_TAG);
    CHECK(MPI_Comm_create_group(MPI_COMM_NULL, world, 1, &c) == MPI_ERR_COMM);
    CHECK(MPI_Comm_create(MPI_COMM_SELF, world, &c) == MPI_ERR_GROUP); /* not a subgroup */
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, 99, 0, MPI_INFO_NULL, &c) == MPI_ERR_ARG);
    /* an info handle that names no object (0x5c000001 is MPI_INFO_ENV) */
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, (MPI_Info)0x5c0fffff, &c) ==
          MPI_ERR_INFO);
    CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, (MPI_Info)0x5c0fffff, &c) == MPI_ERR_INFO);
    MPI_Group_free(&even);
    MPI_Group_free(&odd);
    MPI_Group_free(&world);
}

static void names(void) {
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len) == MPI_SUCCESS);
    CHECK(!strcmp(name, "MPI_COMM_WORLD") && len == 14);
    CHECK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len) == MPI_SUCCESS);
    CHECK(!strcmp(name, "MPI_COMM_SELF"));
    MPI_Comm c, d;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    CHECK(MPI_Comm_get_name(c, name, &len) == MPI_SUCCESS && len == 0 && !name[0]);
    CHECK(MPI_Comm_set_name(c, "solver") == MPI_SUCCESS);
    CHECK(MPI_Comm_get_name(c, name, &len) == MPI_SUCCESS && !strcmp(name, "solver") && len == 6);
    MPI_Comm_dup(c, &d); /* a name is not inherited */
    CHECK(MPI_Comm_get_name(d, name, &len) == MPI_SUCCESS && len == 0);
    char long_name[300];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    CHECK(MPI_Comm_set_name(d, long_name) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_name(d, name, &len) == MPI_SUCCESS && len == MPI_MAX_OBJECT_NAME - 1);
    CHECK(MPI_Comm_set_name(d, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Comm_set_name(MPI_COMM_NULL, "solver") == MPI_ERR_COMM);
    /* MPI-4.1: the null handle's name is its own */
    CHECK(MPI_Comm_get_name(MPI_COMM_NULL, name, &len) == MPI_SUCCESS &&
          !strcmp(name, "MPI_COMM_NULL"));
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
}

static void attributes(void) {
    int counted, null_copy, dup_copy, refusing, fail = 1;
    static char data[4];
    void *v;
    int flag;
    MPI_Comm c, d;
    CHECK(MPI_Comm_create_keyval(copy_plus_one, count_delete, &counted, &copies) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &null_copy,
                                 NULL) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &dup_copy, NULL) == MPI_SUCCESS);
    CHECK(counted != null_copy && null_copy != dup_copy);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    CHECK(MPI_Comm_get_attr(c, counted, &v, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Comm_set_attr(c, counted, data) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(c, null_copy, data + 1) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(c, dup_copy, data + 2) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_attr(c, counted, &v, &flag) == MPI_SUCCESS && flag && v == data);
    /* overwriting deletes the old value */
    CHECK(MPI_Comm_set_attr(c, counted, data + 1) == MPI_SUCCESS && deletes == 1);
    CHECK(MPI_Comm_set_attr(c, counted, data) == MPI_SUCCESS && deletes == 2);

    /* dup: the counted one copied (value + 1), MPI_COMM_NULL_COPY_FN's not, MPI_COMM_DUP_FN's as it
     * is */
    CHECK(MPI_Comm_dup(c, &d) == MPI_SUCCESS && copies == 1);
    CHECK(MPI_Comm_get_attr(d, counted, &v, &flag) == MPI_SUCCESS && flag && v == data + 1);
    CHECK(MPI_Comm_get_attr(d, null_copy, &v, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Comm_get_attr(d, dup_copy, &v, &flag) == MPI_SUCCESS && flag && v == data + 2);
    CHECK(MPI_Comm_get_attr(c, null_copy, &v, &flag) == MPI_SUCCESS && flag && v == data + 1);

    /* delete_attr runs the callback; the attribute is gone */
    CHECK(MPI_Comm_delete_attr(d, counted) == MPI_SUCCESS && deletes == 3);
    CHECK(MPI_Comm_get_attr(d, counted, &v, &flag) == MPI_SUCCESS && !flag);
    CHECK(MPI_Comm_delete_attr(d, counted) == MPI_ERR_KEYVAL);
    /* free runs the rest: d's dup_copy; then c's counted and dup_copy, with the key of
     * counted already freed by the program */
    CHECK(MPI_Comm_free(&d) == MPI_SUCCESS && deletes == 4);
    CHECK(MPI_Comm_free_keyval(&counted) == MPI_SUCCESS && counted == MPI_KEYVAL_INVALID);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS && deletes == 6);

    /* a callback's error comes back from the call that ran it */
    CHECK(MPI_Comm_create_keyval(refuse_copy, refuse_delete, &refusing, &fail) == MPI_SUCCESS);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    CHECK(MPI_Comm_set_attr(c, refusing, data) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(c, &d) == MPI_ERR_OTHER && d == MPI_COMM_NULL);
    CHECK(MPI_Comm_delete_attr(c, refusing) == MPI_ERR_OTHER);
    CHECK(MPI_Comm_set_attr(c, refusing, data + 1) == MPI_ERR_OTHER);
    CHECK(MPI_Comm_free(&c) == MPI_ERR_OTHER && c != MPI_COMM_NULL);
    fail = 0;
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);

    /* attributes on an intercommunicator are copied by its dup too */
    MPI_Comm half, inter;
    int high = rank >= size / 2;
    MPI_Comm_split(MPI_COMM_WORLD, high, 0, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, high ? 0 : size / 2, 5, &inter);
    CHECK(MPI_Comm_create_keyval(copy_plus_one, count_delete, &counted, &copies) == MPI_SUCCESS);
    MPI_Comm_set_attr(inter, counted, data);
    CHECK(MPI_Comm_dup(inter, &d) == MPI_SUCCESS && copies == 2);
    CHECK(MPI_Comm_get_attr(d, counted, &v, &flag) == MPI_SUCCESS && flag && v == data + 1);
    MPI_Comm_free(&d);
    MPI_Comm_free(&inter);
    CHECK(deletes == 8);
    MPI_Comm_free(&half);

    /* invalid keys */
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, data) == MPI_ERR_KEYVAL);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, counted + 1000, &v, &flag) == MPI_ERR_KEYVAL);
    CHECK(MPI_Comm_free_keyval(&counted) == MPI_SUCCESS);
    int stale = MPI_KEYVAL_INVALID;
    CHECK(MPI_Comm_free_keyval(&stale) == MPI_ERR_KEYVAL);
    CHECK(MPI_Comm_set_attr(MPI_COMM_NULL, null_copy, data) == MPI_ERR_COMM);
    CHECK(MPI_Comm_create_keyval(NULL, NULL, NULL, NULL) == MPI_ERR_ARG);
    /* MPI_COMM_SELF's attributes are deleted first thing in MPI_Finalize */
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, dup_copy, data) == MPI_SUCCESS);
    MPI_Comm_free_keyval(&null_copy);
    MPI_Comm_free_keyval(&dup_copy);
    MPI_Comm_free_keyval(&refusing);
}

/* Intercommunicators made and merged while duplications of MPI_COMM_WORLD by
 * MPI_Comm_idup are under way (MPICH's comm_idup_comm): every communicator made has
 * an entry of its own. An idup that picked the entry a blocking creation was agreeing
 * on made one of them fail or two share it, mostly on a loaded node. */
static void idups_meanwhile(void) {
    enum { IDUPS = 5, ROUNDS = 10 };
    for (int round = 0; round < ROUNDS; round++) {
        MPI_Comm dups[IDUPS], local, inter, merged;
        MPI_Request reqs[IDUPS];
        for (int i = 0; i < IDUPS; i++)
            CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &dups[i], &reqs[i]) == MPI_SUCCESS);
        int left = rank < size / 2;
        CHECK(MPI_Comm_split(MPI_COMM_WORLD, left, rank, &local) == MPI_SUCCESS);
        int leader = rank == 0 ? size / 2 : rank == size / 2 ? 0 : -1;
        CHECK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, leader, 99, &inter) == MPI_SUCCESS);
        CHECK(MPI_Intercomm_merge(inter, !left, &merged) == MPI_SUCCESS);
        CHECK(MPI_Waitall(IDUPS, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        /* all distinct, and each carries its own traffic */
        MPI_Comm all[IDUPS + 3] = {local, inter, merged};
        for (int i = 0; i < IDUPS; i++) all[3 + i] = dups[i];
        for (int i = 0; i < IDUPS + 3; i++) {
            for (int j = 0; j < i; j++) CHECK(all[i] != all[j]);
            int flag, sum = 0, one = 1;
            CHECK(MPI_Comm_test_inter(all[i], &flag) == MPI_SUCCESS && flag == (i == 1));
            if (!flag) {
                CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, all[i]) == MPI_SUCCESS);
                int n;
                MPI_Comm_size(all[i], &n);
                CHECK(sum == n);
            }
        }
        for (int i = 0; i < IDUPS + 3; i++) CHECK(MPI_Comm_free(&all[i]) == MPI_SUCCESS);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 4 && size <= 64);
    /* errors come back as values; every call's result is checked */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    intercommunicator();
    from_groups();
    names();
    attributes();
    idups_meanwhile();
    MPI_Finalize();
    if (deletes != 9) {
        fprintf(stderr, "rank %d: %d delete callbacks run, 9 expected\n", rank, deletes);
        return 1;
    }
    if (rank == 0) printf("intercomm: ok on %d ranks\n", size);
    return 0;
}
