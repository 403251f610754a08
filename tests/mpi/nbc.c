/* Non-blocking collectives: every one of them started, overlapped with each other
 * (several outstanding on one communicator and on a duplicate) and with
 * point-to-point traffic, completed by MPI_Waitall, MPI_Testany, MPI_Waitsome, in
 * reverse order, or freed with MPI_Request_free; results and the empty statuses
 * of collective requests checked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int val(int r, int i) {
    return r * 1000 + i % 997 + 1;
}

static int sum_of(int i, int last) {
    int s = 0;
    for (int r = 0; r <= last; r++) s += val(r, i);
    return s;
}

/* Every non-blocking collective at once on comm, with a ring of point-to-point
 * messages in between; completed by Waitall over all of them. */
static void everything_at_once(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    size_t all = (size_t)n * (size_t)p;
    int *in = zeroed_ints(all), *red = zeroed_ints((size_t)n), *allred = zeroed_ints((size_t)n),
        *bc = zeroed_ints((size_t)n), *gat = zeroed_ints(all), *sca = zeroed_ints((size_t)n),
        *ag = zeroed_ints(all), *a2a_in = zeroed_ints(all), *a2a = zeroed_ints(all),
        *rsb = zeroed_ints((size_t)n), *scan = zeroed_ints((size_t)n),
        *exs = zeroed_ints((size_t)n), *ring_out = zeroed_ints((size_t)n),
        *ring_in = zeroed_ints((size_t)n);
    for (size_t i = 0; i < all; i++) in[i] = val(me, (int)i);
    for (int r = 0; r < p; r++)
        for (int i = 0; i < n; i++) a2a_in[r * n + i] = val(me, i) + r;
    if (me == 0)
        for (int i = 0; i < n; i++) bc[i] = val(0, i);
    for (int i = 0; i < n; i++) ring_out[i] = val(me, i) + 5;
    MPI_Request r[16];
    int k = 0;
    CHECK(MPI_Irecv(ring_in, n, MPI_INT, (me + p - 1) % p, 9, comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Ibarrier(comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Ireduce(in, red, n, MPI_INT, MPI_SUM, p - 1, comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Iallreduce(in, allred, n, MPI_INT, MPI_SUM, comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Ibcast(bc, n, MPI_INT, 0, comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Isend(ring_out, n, MPI_INT, (me + 1) % p, 9, comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Igather(in, n, MPI_INT, gat, n, MPI_INT, 0, comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Iscatter(in, n, MPI_INT, sca, n, MPI_INT, 0, comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Iallgather(in, n, MPI_INT, ag, n, MPI_INT, comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Ialltoall(a2a_in, n, MPI_INT, a2a, n, MPI_INT, comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Ireduce_scatter_block(in, rsb, n, MPI_INT, MPI_SUM, comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Iscan(in, scan, n, MPI_INT, MPI_SUM, comm, &r[k++]) == MPI_SUCCESS);
    CHECK(MPI_Iexscan(in, exs, n, MPI_INT, MPI_SUM, comm, &r[k++]) == MPI_SUCCESS);
    MPI_Status st[16];
    CHECK(MPI_Waitall(k, r, st) == MPI_SUCCESS);
    for (int j = 0; j < k; j++) CHECK(r[j] == MPI_REQUEST_NULL);
    check_status_empty(&st[1]);
    check_status_empty(&st[3]);
    for (int i = 0; i < n; i++) {
        CHECK(allred[i] == sum_of(i, p - 1));
        if (me == p - 1) CHECK(red[i] == sum_of(i, p - 1));
        CHECK(bc[i] == val(0, i));
        CHECK(ring_in[i] == val((me + p - 1) % p, i) + 5);
        CHECK(sca[i] == val(0, me * n + i));
        CHECK(rsb[i] == sum_of(me * n + i, p - 1));
        CHECK(scan[i] == sum_of(i, me));
        if (me) CHECK(exs[i] == sum_of(i, me - 1));
        for (int q = 0; q < p; q++) {
            if (me == 0) CHECK(gat[q * n + i] == val(q, i));
            CHECK(ag[q * n + i] == val(q, i));
            CHECK(a2a[q * n + i] == val(q, i) + me);
        }
    }
    free(in), free(red), free(allred), free(bc), free(gat), free(sca), free(ag), free(a2a_in);
    free(a2a), free(rsb), free(scan), free(exs), free(ring_out), free(ring_in);
}

/* The v and w forms, each rank sending rank q (me + q) % 2 + 1 items. */
static void v_forms(MPI_Comm comm) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *c = zeroed_ints((size_t)p), *d = zeroed_ints((size_t)p), *rc = zeroed_ints((size_t)p),
        *rd = zeroed_ints((size_t)p), *db = zeroed_ints((size_t)p), *rdb = zeroed_ints((size_t)p),
        sat = 0, rat = 0;
    MPI_Datatype *t = malloc((size_t)p * sizeof *t);
    CHECK(t);
    for (int q = 0; q < p; q++) {
        c[q] = (me + q) % 2 + 1;
        d[q] = sat;
        db[q] = sat * (int)sizeof(int);
        sat += c[q];
        rc[q] = (q + me) % 2 + 1;
        rd[q] = rat;
        rdb[q] = rat * (int)sizeof(int);
        rat += rc[q];
        t[q] = MPI_INT;
    }
    int *s = zeroed_ints((size_t)sat), *v = zeroed_ints((size_t)rat), *w = zeroed_ints((size_t)rat);
    for (int q = 0; q < p; q++)
        for (int i = 0; i < c[q]; i++) s[d[q] + i] = me * 100 + q * 10 + i;
    /* gatherv/scatterv/allgatherv with rank q's block of q % 3 + 1 items */
    int *gc = zeroed_ints((size_t)p), *gd = zeroed_ints((size_t)p), gat = 0;
    for (int q = 0; q < p; q++) {
        gc[q] = q % 3 + 1;
        gd[q] = gat;
        gat += gc[q];
    }
    int *mine = zeroed_ints(3), *gv = zeroed_ints((size_t)gat), *agv = zeroed_ints((size_t)gat),
        *sv = zeroed_ints(3);
    for (int i = 0; i < gc[me]; i++) mine[i] = me * 10 + i;
    int *rcounts = zeroed_ints((size_t)p), *rs_in = zeroed_ints((size_t)gat), rs_out[3];
    for (int i = 0; i < gat; i++) rs_in[i] = me + i;
    MPI_Request r[8];
    CHECK(MPI_Ialltoallv(s, c, d, MPI_INT, v, rc, rd, MPI_INT, comm, &r[0]) == MPI_SUCCESS);
    CHECK(MPI_Ialltoallw(s, c, db, t, w, rc, rdb, t, comm, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Igatherv(mine, gc[me], MPI_INT, gv, gc, gd, MPI_INT, p - 1, comm, &r[2]) ==
          MPI_SUCCESS);
    CHECK(MPI_Iallgatherv(mine, gc[me], MPI_INT, agv, gc, gd, MPI_INT, comm, &r[3]) == MPI_SUCCESS);
    /* the root scatters what it will have gathered: its own gv filled the same way */
    int *root_src = zeroed_ints((size_t)gat);
    for (int q = 0; q < p; q++)
        for (int i = 0; i < gc[q]; i++) root_src[gd[q] + i] = q * 10 + i;
    CHECK(MPI_Iscatterv(root_src, gc, gd, MPI_INT, sv, gc[me], MPI_INT, 0, comm, &r[4]) ==
          MPI_SUCCESS);
    CHECK(MPI_Ireduce_scatter(rs_in, rs_out, gc, MPI_INT, MPI_SUM, comm, &r[5]) == MPI_SUCCESS);
    /* completed in reverse order */
    for (int j = 5; j >= 0; j--) CHECK(MPI_Wait(&r[j], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int q = 0; q < p; q++)
        for (int i = 0; i < rc[q]; i++) {
            CHECK(v[rd[q] + i] == q * 100 + me * 10 + i);
            CHECK(w[rd[q] + i] == q * 100 + me * 10 + i);
        }
    for (int q = 0; q < p; q++)
        for (int i = 0; i < gc[q]; i++) {
            if (me == p - 1) CHECK(gv[gd[q] + i] == q * 10 + i);
            CHECK(agv[gd[q] + i] == q * 10 + i);
        }
    for (int i = 0; i < gc[me]; i++) {
        CHECK(sv[i] == me * 10 + i);
        CHECK(rs_out[i] == p * (p - 1) / 2 + p * (gd[me] + i));
    }
    free(c), free(d), free(rc), free(rd), free(db), free(rdb), free(t), free(s), free(v), free(w);
    free(gc), free(gd), free(mine), free(gv), free(agv), free(sv), free(rcounts), free(rs_in);
    free(root_src);
}

/* Two communicators, each with outstanding collectives, completed by Testany and
 * Waitsome as they come; one Ibarrier freed with MPI_Request_free. */
static void mixed_completion(void) {
    MPI_Comm dup;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    enum { N = 50000 };
    int *a = zeroed_ints(N), *b = zeroed_ints(N), *x = zeroed_ints(N), *y = zeroed_ints(N), c[7];
    for (int i = 0; i < N; i++) a[i] = x[i] = val(rank, i);
    MPI_Request freed;
    CHECK(MPI_Ibarrier(dup, &freed) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&freed) == MPI_SUCCESS && freed == MPI_REQUEST_NULL);
    MPI_Request r[4];
    CHECK(MPI_Iallreduce(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
    CHECK(MPI_Iallreduce(x, y, N, MPI_INT, MPI_MAX, dup, &r[1]) == MPI_SUCCESS);
    if (rank == size - 1)
        for (int i = 0; i < 7; i++) c[i] = val(rank, i);
    CHECK(MPI_Ibcast(c, 7, MPI_INT, size - 1, dup, &r[2]) == MPI_SUCCESS);
    CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &r[3]) == MPI_SUCCESS);
    int left = 4;
    while (left > 2) {
        int index, flag;
        MPI_Status st;
        CHECK(MPI_Testany(4, r, &index, &flag, &st) == MPI_SUCCESS);
        if (flag) {
            CHECK(index >= 0 && r[index] == MPI_REQUEST_NULL);
            check_status_empty(&st);
            left--;
        }
    }
    while (left > 0) {
        int outcount, idx[4];
        CHECK(MPI_Waitsome(4, r, &outcount, idx, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        CHECK(outcount >= 1);
        left -= outcount;
    }
    for (int i = 0; i < N; i++) {
        CHECK(b[i] == sum_of(i, size - 1));
        CHECK(y[i] == val(size - 1, i));
    }
    for (int i = 0; i < 7; i++) CHECK(c[i] == val(size - 1, i));
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
    free(a), free(b), free(x), free(y);
}

/* Duplications under way at once on WORLD and on a split, with a blocking one in
 * between: distinct communicators, congruent with their parents, that keep their
 * messages apart. */
static void idups(void) {
    MPI_Comm half, a, b, c, d;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half) == MPI_SUCCESS);
    MPI_Request r[3];
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &r[0]) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(half, &c, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &b, &r[2]) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &d) == MPI_SUCCESS);
    MPI_Status st[3];
    CHECK(MPI_Waitall(3, r, st) == MPI_SUCCESS);
    check_status_empty(&st[0]);
    MPI_Comm all[4] = {a, b, c, d};
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) CHECK(all[i] != all[j]);
    int result;
    CHECK(MPI_Comm_compare(a, MPI_COMM_WORLD, &result) == MPI_SUCCESS && result == MPI_CONGRUENT);
    CHECK(MPI_Comm_compare(b, MPI_COMM_WORLD, &result) == MPI_SUCCESS && result == MPI_CONGRUENT);
    CHECK(MPI_Comm_compare(c, half, &result) == MPI_SUCCESS && result == MPI_CONGRUENT);
    /* the same tag on a and b: each message stays on its communicator */
    int to = (rank + 1) % size, from = (rank + size - 1) % size, x = rank, y = -rank, gx, gy;
    MPI_Request s[2];
    CHECK(MPI_Isend(&x, 1, MPI_INT, to, 4, a, &s[0]) == MPI_SUCCESS);
    CHECK(MPI_Isend(&y, 1, MPI_INT, to, 4, b, &s[1]) == MPI_SUCCESS);
    CHECK(MPI_Recv(&gy, 1, MPI_INT, from, 4, b, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Recv(&gx, 1, MPI_INT, from, 4, a, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK(gx == from && gy == -from);
    int one = 1, n = 0, half_size;
    MPI_Comm_size(half, &half_size);
    CHECK(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS && n == half_size);
    for (int i = 0; i < 4; i++) CHECK(MPI_Comm_free(&all[i]) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&half) == MPI_SUCCESS);
}

static void add(void *in, void *inout, int *len, MPI_Datatype *type) {
    CHECK(*type == MPI_INT);
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((const int *)in)[i];
}

static void never(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)in, (void)inout, (void)len, (void)type;
    CHECK(!"an op created after the reduction started ran in it");
}

/* A user op freed while a reduction that uses it is under way: it still runs, and
 * an op created meanwhile does not take its place. */
static void freed_op(void) {
    MPI_Op op;
    CHECK(MPI_Op_create(add, 1, &op) == MPI_SUCCESS);
    int x[3] = {rank, 1, -rank}, y[3];
    MPI_Request r;
    CHECK(MPI_Iallreduce(x, y, 3, MPI_INT, op, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    CHECK(MPI_Op_free(&op) == MPI_SUCCESS);
    CHECK(MPI_Op_create(never, 1, &op) == MPI_SUCCESS); /* while the old one is in use */
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(y[0] == size * (size - 1) / 2 && y[1] == size && y[2] == -y[0]);
    CHECK(MPI_Op_free(&op) == MPI_SUCCESS);
}

/* A blocking collective started while a non-blocking one is pending, in a different
 * order on one rank than on the others (mpi4py's fallback Comm.Iagree does so, and
 * MPICH and Open MPI complete it): each rank in turn starts its Iallreduce before the
 * Barrier, the others after it. */
static void blocking_while_pending(void) {
    for (int root = 0; root < size; root++) {
        int mine = rank == root ? 0xb : 0xd, all = -1;
        MPI_Request r;
        if (rank == root) {
            CHECK(MPI_Iallreduce(&mine, &all, 1, MPI_INT, MPI_BAND, MPI_COMM_WORLD, &r) ==
                  MPI_SUCCESS);
            CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
        } else {
            CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
            CHECK(MPI_Iallreduce(&mine, &all, 1, MPI_INT, MPI_BAND, MPI_COMM_WORLD, &r) ==
                  MPI_SUCCESS);
        }
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(all == (size > 1 ? 0x9 : 0xb));
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int counts[] = {0, 1, 7, size > 4 ? 3000 : 30000};
    for (int k = 0; k < 4; k++) everything_at_once(MPI_COMM_WORLD, counts[k]);
    MPI_Comm half;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half) == MPI_SUCCESS);
    everything_at_once(half, 7);
    v_forms(MPI_COMM_WORLD);
    v_forms(half);
    MPI_Comm_free(&half);
    mixed_completion();
    for (int k = 0; k < 3; k++) idups();
    freed_op();
    blocking_while_pending();
    if (rank == 0) printf("nbc: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
