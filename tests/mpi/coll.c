/* Every blocking collective against a reference computed locally: counts 0, 1, 7 and
 * one above the rendezvous threshold, with and without MPI_IN_PLACE, roots first and
 * last, on MPI_COMM_WORLD, on halves split by parity in reversed key order, and on
 * MPI_COMM_SELF. Run with any number of ranks (and with each TW_COLL_* forced). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int me, p; /* in the communicator under test */

/* What rank r contributes at position i. */
static int val(int r, int i) {
    return r * 1000 + i % 997 + 1;
}

static void fill(int *a, size_t n, int r, int offset) {
    for (size_t i = 0; i < n; i++) a[i] = val(r, (int)i + offset);
}

static void bcast(MPI_Comm comm, int n) {
    int *a = zeroed_ints((size_t)n);
    for (int root = 0; root<p; root += p - 1> 0 ? p - 1 : 1) {
        if (me == root)
            fill(a, (size_t)n, root, 0);
        else
            memset(a, 0xff, (size_t)n * sizeof *a);
        CHECK(MPI_Bcast(a, n, MPI_INT, root, comm) == MPI_SUCCESS);
        for (int i = 0; i < n; i++) CHECK(a[i] == val(root, i));
        /* the root's items are pairs of ints, the others' ints: the same bytes */
        if (me == root)
            fill(a, (size_t)n, root, 1);
        else
            memset(a, 0xff, (size_t)n * sizeof *a);
        if (me == root)
            CHECK(MPI_Bcast(a, n / 2, MPI_2INT, root, comm) == MPI_SUCCESS);
        else
            CHECK(MPI_Bcast(a, n / 2 * 2, MPI_INT, root, comm) == MPI_SUCCESS);
        for (int i = 0; i < n / 2 * 2; i++) CHECK(a[i] == val(root, i + 1));
    }
    free(a);
}

static int sum_of(int i, int first, int last) { /* the sum of val(r, i) for r in [first, last] */
    int s = 0;
    for (int r = first; r <= last; r++) s += val(r, i);
    return s;
}

static void reduce(MPI_Comm comm, int n) {
    int *in = zeroed_ints((size_t)n), *out = zeroed_ints((size_t)n);
    for (int root = 0; root<p; root += p - 1> 0 ? p - 1 : 1) {
        for (int in_place = 0; in_place < 2; in_place++) {
            fill(in, (size_t)n, me, 0);
            if (in_place && me == root) memcpy(out, in, (size_t)n * sizeof *in);
            CHECK(MPI_Reduce(in_place && me == root ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM,
                             root, comm) == MPI_SUCCESS);
            if (me == root)
                for (int i = 0; i < n; i++) CHECK(out[i] == sum_of(i, 0, p - 1));
            CHECK(MPI_Reduce(in, out, n, MPI_INT, MPI_MAX, root, comm) == MPI_SUCCESS);
            if (me == root)
                for (int i = 0; i < n; i++) CHECK(out[i] == val(p - 1, i));
        }
    }
    free(in);
    free(out);
}

static void allreduce(MPI_Comm comm, int n) {
    int *in = zeroed_ints((size_t)n), *out = zeroed_ints((size_t)n);
    for (int in_place = 0; in_place < 2; in_place++) {
        fill(in_place ? out : in, (size_t)n, me, 0);
        CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, comm) ==
              MPI_SUCCESS);
        for (int i = 0; i < n; i++) CHECK(out[i] == sum_of(i, 0, p - 1));
    }
    fill(in, (size_t)n, me, 0);
    CHECK(MPI_Allreduce(in, out, n, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS);
    for (int i = 0; i < n; i++) CHECK(out[i] == val(0, i));
    free(in);
    free(out);
}

static void scans(MPI_Comm comm, int n) {
    int *in = zeroed_ints((size_t)n), *out = zeroed_ints((size_t)n);
    for (int in_place = 0; in_place < 2; in_place++) {
        fill(in_place ? out : in, (size_t)n, me, 0);
        CHECK(MPI_Scan(in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, comm) ==
              MPI_SUCCESS);
        for (int i = 0; i < n; i++) CHECK(out[i] == sum_of(i, 0, me));
        fill(in_place ? out : in, (size_t)n, me, 0);
        CHECK(MPI_Exscan(in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, comm) ==
              MPI_SUCCESS);
        if (me > 0)
            for (int i = 0; i < n; i++) CHECK(out[i] == sum_of(i, 0, me - 1));
    }
    free(in);
    free(out);
}

/* block b of rank r's reduce_scatter input: counts[b] items from offs[b] */
static void reduce_scatters(MPI_Comm comm, int n) {
    int *counts = zeroed_ints((size_t)p), total = 0;
    for (int i = 0; i < p; i++) total += counts[i] = n + i % 3;
    int *in = zeroed_ints((size_t)total), *out = zeroed_ints((size_t)total), before = 0;
    for (int i = 0; i < me; i++) before += counts[i];
    for (int in_place = 0; in_place < 2; in_place++) {
        fill(in_place ? out : in, (size_t)total, me, 0);
        CHECK(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in, out, counts, MPI_INT, MPI_SUM,
                                 comm) == MPI_SUCCESS);
        for (int i = 0; i < counts[me]; i++) CHECK(out[i] == sum_of(before + i, 0, p - 1));
        fill(in_place ? out : in, (size_t)n * (size_t)p, me, 0);
        CHECK(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM,
                                       comm) == MPI_SUCCESS);
        for (int i = 0; i < n; i++) CHECK(out[i] == sum_of(me * n + i, 0, p - 1));
    }
    free(counts);
    free(in);
    free(out);
}

static void gathers(MPI_Comm comm, int n) {
    size_t all = (size_t)n * (size_t)p;
    int *mine = zeroed_ints((size_t)n), *many = zeroed_ints(all + (size_t)p),
        *counts = zeroed_ints((size_t)p), *displs = zeroed_ints((size_t)p);
    /* v forms: rank i sends n + i % 2 items, placed in reverse rank order with gaps of 1 */
    int at = 0;
    for (int i = p - 1; i >= 0; i--) {
        counts[i] = n + i % 2;
        displs[i] = at;
        at += counts[i] + 1;
    }
    int *vmany = zeroed_ints((size_t)at);
    for (int root = 0; root<p; root += p - 1> 0 ? p - 1 : 1) {
        for (int in_place = 0; in_place < 2; in_place++) {
            int ip = in_place && me == root;
            fill(mine, (size_t)n, me, 0);
            memset(many, 0xff, all * sizeof *many);
            if (ip) fill(many + (size_t)me * (size_t)n, (size_t)n, me, 0);
            CHECK(MPI_Gather(ip ? MPI_IN_PLACE : mine, n, MPI_INT, many, n, MPI_INT, root, comm) ==
                  MPI_SUCCESS);
            if (me == root)
                for (int r = 0; r < p; r++)
                    for (int i = 0; i < n; i++) CHECK(many[r * n + i] == val(r, i));
            /* scatter: block r of the root is val(r, .) */
            if (me == root)
                for (int r = 0; r < p; r++) fill(many + (size_t)r * (size_t)n, (size_t)n, r, 0);
            memset(mine, 0xff, (size_t)n * sizeof *mine);
            CHECK(MPI_Scatter(many, n, MPI_INT, ip ? MPI_IN_PLACE : mine, n, MPI_INT, root, comm) ==
                  MPI_SUCCESS);
            if (!ip)
                for (int i = 0; i < n; i++) CHECK(mine[i] == val(me, i));
            /* gatherv */
            int *v = zeroed_ints((size_t)counts[me]);
            fill(v, (size_t)counts[me], me, 0);
            memset(vmany, 0xff, (size_t)at * sizeof *vmany);
            if (ip) fill(vmany + displs[me], (size_t)counts[me], me, 0);
            CHECK(MPI_Gatherv(ip ? MPI_IN_PLACE : v, counts[me], MPI_INT, vmany, counts, displs,
                              MPI_INT, root, comm) == MPI_SUCCESS);
            if (me == root)
                for (int r = 0; r < p; r++)
                    for (int i = 0; i < counts[r]; i++) CHECK(vmany[displs[r] + i] == val(r, i));
            memset(v, 0xff, (size_t)counts[me] * sizeof *v);
            CHECK(MPI_Scatterv(vmany, counts, displs, MPI_INT, ip ? MPI_IN_PLACE : v, counts[me],
                               MPI_INT, root, comm) == MPI_SUCCESS);
            if (!ip)
                for (int i = 0; i < counts[me]; i++) CHECK(v[i] == val(me, i));
            free(v);
        }
    }
    free(mine);
    free(many);
    free(vmany);
    free(counts);
    free(displs);
}

static void allgathers(MPI_Comm comm, int n) {
    size_t all = (size_t)n * (size_t)p;
    int *mine = zeroed_ints((size_t)n), *many = zeroed_ints(all), *counts = zeroed_ints((size_t)p),
        *displs = zeroed_ints((size_t)p);
    int at = 0;
    for (int i = p - 1; i >= 0; i--) {
        counts[i] = n + i % 2;
        displs[i] = at;
        at += counts[i] + 1;
    }
    int *vmany = zeroed_ints((size_t)at);
    for (int in_place = 0; in_place < 2; in_place++) {
        fill(mine, (size_t)n, me, 0);
        memset(many, 0xff, all * sizeof *many);
        if (in_place) fill(many + (size_t)me * (size_t)n, (size_t)n, me, 0);
        CHECK(MPI_Allgather(in_place ? MPI_IN_PLACE : mine, n, MPI_INT, many, n, MPI_INT, comm) ==
              MPI_SUCCESS);
        for (int r = 0; r < p; r++)
            for (int i = 0; i < n; i++) CHECK(many[r * n + i] == val(r, i));
        int *v = zeroed_ints((size_t)counts[me]);
        fill(v, (size_t)counts[me], me, 0);
        memset(vmany, 0xff, (size_t)at * sizeof *vmany);
        if (in_place) fill(vmany + displs[me], (size_t)counts[me], me, 0);
        CHECK(MPI_Allgatherv(in_place ? MPI_IN_PLACE : v, counts[me], MPI_INT, vmany, counts,
                             displs, MPI_INT, comm) == MPI_SUCCESS);
        for (int r = 0; r < p; r++)
            for (int i = 0; i < counts[r]; i++) CHECK(vmany[displs[r] + i] == val(r, i));
        free(v);
    }
    free(mine);
    free(many);
    free(vmany);
    free(counts);
    free(displs);
}

/* what rank `from` sends rank `to` at position i */
static int a2a(int from, int to, int i) {
    return val(from, i) * 7 + to;
}

static void alltoalls(MPI_Comm comm, int n) {
    size_t all = (size_t)n * (size_t)p;
    int *in = zeroed_ints(all), *out = zeroed_ints(all);
    for (int in_place = 0; in_place < 2; in_place++) {
        int *src = in_place ? out : in;
        for (int r = 0; r < p; r++)
            for (int i = 0; i < n; i++) src[r * n + i] = a2a(me, r, i);
        CHECK(MPI_Alltoall(in_place ? MPI_IN_PLACE : in, n, MPI_INT, out, n, MPI_INT, comm) ==
              MPI_SUCCESS);
        for (int r = 0; r < p; r++)
            for (int i = 0; i < n; i++) CHECK(out[r * n + i] == a2a(r, me, i));
    }
    /* v and w: rank `from` sends (from + to) % 3 + n items to `to`, blocks in reverse order */
    int *sc = zeroed_ints((size_t)p), *sd = zeroed_ints((size_t)p), *rc = zeroed_ints((size_t)p),
        *rd = zeroed_ints((size_t)p);
    int *sdb = zeroed_ints((size_t)p), *rdb = zeroed_ints((size_t)p);
    MPI_Datatype *types = malloc((size_t)p * sizeof *types);
    CHECK(types);
    int sat = 0, rat = 0;
    for (int r = p - 1; r >= 0; r--) {
        sc[r] = (me + r) % 3 + n;
        sd[r] = sat;
        sdb[r] = sat * (int)sizeof(int);
        sat += sc[r];
        rc[r] = (r + me) % 3 + n;
        rd[r] = rat;
        rdb[r] = rat * (int)sizeof(int);
        rat += rc[r];
        types[r] = MPI_INT;
    }
    int *vin = zeroed_ints((size_t)sat), *vout = zeroed_ints((size_t)rat);
    for (int w = 0; w < 2; w++) {
        for (int in_place = 0; in_place < 2; in_place++) {
            /* in place needs the same layout both ways: it is (counts are symmetric) */
            int *src = in_place ? vout : vin;
            for (int r = 0; r < p; r++)
                for (int i = 0; i < sc[r]; i++) src[sd[r] + i] = a2a(me, r, i);
            const void *sb = in_place ? MPI_IN_PLACE : vin;
            if (w)
                CHECK(MPI_Alltoallw(sb, sc, sdb, types, vout, rc, rdb, types, comm) == MPI_SUCCESS);
            else
                CHECK(MPI_Alltoallv(sb, sc, sd, MPI_INT, vout, rc, rd, MPI_INT, comm) ==
                      MPI_SUCCESS);
            for (int r = 0; r < p; r++)
                for (int i = 0; i < rc[r]; i++) CHECK(vout[rd[r] + i] == a2a(r, me, i));
        }
    }
    free(in);
    free(out);
    free(vin);
    free(vout);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sdb);
    free(rdb);
    free(types);
}

static void all_on(MPI_Comm comm, int big) {
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    const int counts[] = {0, 1, 7, big};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        int n = counts[k];
        CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
        bcast(comm, n);
        reduce(comm, n);
        allreduce(comm, n);
        scans(comm, n);
        reduce_scatters(comm, n);
        gathers(comm, n);
        allgathers(comm, n);
        alltoalls(comm, n);
    }
}

/* Many small blocking calls back to back, roots moving, each checked: the calls a
 * node's ranks make through shared cache lines (TW_COLL_SHM), where a rank that is
 * ahead must not overwrite data another still reads. A user op that is not
 * commutative (the first operand wins) must give rank 0's value. */
static void first_wins(void *in, void *inout, int *len, MPI_Datatype *type) {
    MPI_Aint lb, extent; /* ints, or every other int (below) */
    MPI_Type_get_extent(*type, &lb, &extent);
    size_t step = (size_t)extent / sizeof(int);
    for (size_t i = 0; i < (size_t)*len; i++) ((int *)inout)[step * i] = ((int *)in)[step * i];
}

static void small_back_to_back(MPI_Comm comm) {
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    MPI_Op first;
    CHECK(MPI_Op_create(first_wins, 0, &first) == MPI_SUCCESS);
    MPI_Datatype strided; /* every other int */
    CHECK(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&strided) == MPI_SUCCESS);
    for (int k = 0; k < 3000; k++) {
        int root = k % p, b[14], sum[14], mine[14];
        for (int i = 0; i < 14; i++) {
            b[i] = me == root ? val(root, k + i) : -1;
            mine[i] = val(me, k + i);
        }
        switch (k % 5) {
        case 0:
            CHECK(MPI_Bcast(b, 14, MPI_INT, root, comm) == MPI_SUCCESS);
            for (int i = 0; i < 14; i++) CHECK(b[i] == val(root, k + i));
            break;
        case 1:
            CHECK(MPI_Allreduce(mine, sum, 14, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
            for (int i = 0; i < 14; i++)
                CHECK(sum[i] == 1000 * p * (p - 1) / 2 + p * ((k + i) % 997 + 1));
            break;
        case 2:
            CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
            break;
        case 3:
            CHECK(MPI_Allreduce(MPI_IN_PLACE, mine, 14, MPI_INT, first, comm) == MPI_SUCCESS);
            for (int i = 0; i < 14; i++) CHECK(mine[i] == val(0, k + i));
            break;
        case 4: { /* unequal blocks of a short vector, some empty (as OSU's at 4 and 8
                     bytes), in place or not, of ints or every other int */
            enum { MOST = 64 };
            int counts[MOST], total = 0, before = 0, in[4 * MOST], out[4 * MOST];
            if (p > MOST) break;
            for (int i = 0; i < p; i++) total += counts[i] = (i + k) % 3;
            for (int i = 0; i < me; i++) before += counts[i];
            int in_place = k / 5 % 2, step = k / 10 % 2 ? 2 : 1;
            MPI_Datatype type = step == 2 ? strided : MPI_INT;
            for (int i = 0; i < 4 * MOST; i++) in[i] = out[i] = -7;
            int *data = in_place ? out : in;
            for (int i = 0; i < total; i++) data[step * i] = val(me, k + i);
            CHECK(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in, out, counts, type, first,
                                     comm) == MPI_SUCCESS);
            for (int i = 0; i < counts[me]; i++) CHECK(out[step * i] == val(0, k + before + i));
            if (step == 2) /* the gaps stay as they were */
                for (int i = 0; i < counts[me]; i++) CHECK(out[2 * i + 1] == -7);
            break;
        }
        }
    }
    CHECK(MPI_Type_free(&strided) == MPI_SUCCESS);
    CHECK(MPI_Op_free(&first) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* above the rendezvous threshold; smaller when many ranks share the cores */
    int big = size > 4 ? 5000 : 100000;
    all_on(MPI_COMM_WORLD, big);
    small_back_to_back(MPI_COMM_WORLD);
    MPI_Comm half;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half) == MPI_SUCCESS);
    all_on(half, big / 4);
    small_back_to_back(half);
    MPI_Comm_free(&half);
    all_on(MPI_COMM_SELF, big);
    if (rank == 0) printf("coll: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
