/* Persistent collectives (MPI-4.1 sections 6.13 and 8.8): every one of the 22 _init
 * calls, started several times with new buffer contents each time and its results
 * checked; completed by MPI_Wait, an MPI_Test loop, MPI_Request_get_status then
 * MPI_Wait, or MPI_Waitall; several started at once by MPI_Startall; non-contiguous
 * datatypes (packed at every start), a datatype freed after the init, in-place
 * forms, calls large enough to go in segments; the intercommunicator forms; and the
 * errors: a start of an active request, a free of one, a bad info, a NULL request.
 * Argument "small" leaves the large calls out. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { ROUNDS = 4 };

/* What rank r holds at item i in round k. */
static int val(int r, int k, int i) {
    return r * 100 + k * 10000 + i % 89 + 1;
}

/* Starts r and completes it, a different way in each round; the request stays, inactive. */
static void run(MPI_Request *r, int k) {
    MPI_Request kept = *r;
    MPI_Status st;
    int flag = 0;
    CHECK(MPI_Start(r) == MPI_SUCCESS);
    switch (k % 4) {
    case 0:
        CHECK(MPI_Wait(r, &st) == MPI_SUCCESS);
        break;
    case 1:
        while (!flag) CHECK(MPI_Test(r, &flag, &st) == MPI_SUCCESS);
        break;
    case 2: /* the status of a finished one, which stays active until waited for */
        while (!flag) CHECK(MPI_Request_get_status(*r, &flag, &st) == MPI_SUCCESS);
        check_status_empty(&st);
        CHECK(MPI_Wait(r, &st) == MPI_SUCCESS);
        break;
    default:
        CHECK(MPI_Waitall(1, r, &st) == MPI_SUCCESS);
        break;
    }
    check_status_empty(&st);
    CHECK(*r == kept); /* persistent: not freed by completion */
    /* inactive now: a wait returns at once with an empty status */
    CHECK(MPI_Wait(r, &st) == MPI_SUCCESS);
    check_status_empty(&st);
    CHECK(MPI_Request_get_status(*r, &flag, &st) == MPI_SUCCESS && flag);
    CHECK(*r == kept);
}

static void done(MPI_Request *r) {
    CHECK(MPI_Request_free(r) == MPI_SUCCESS && *r == MPI_REQUEST_NULL);
}

static void barrier(MPI_Comm comm) {
    MPI_Request r;
    CHECK(MPI_Barrier_init(comm, MPI_INFO_NULL, &r) == MPI_SUCCESS);
    for (int k = 0; k < ROUNDS; k++) run(&r, k);
    done(&r);
}

static void bcast(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *buf = zeroed_ints((size_t)n);
    for (int root = 0; root<p; root += p> 2 ? 2 : 1) {
        MPI_Request r;
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "tollway_ignored", "yes"); /* an info with a key is taken */
        CHECK(MPI_Bcast_init(buf, n, MPI_INT, root, comm, info, &r) == MPI_SUCCESS);
        MPI_Info_free(&info);
        for (int k = 0; k < ROUNDS; k++) {
            for (int i = 0; i < n; i++) buf[i] = me == root ? val(root, k, i) : -1;
            run(&r, k);
            for (int i = 0; i < n; i++) CHECK(buf[i] == val(root, k, i));
        }
        done(&r);
    }
    free(buf);
}

/* Every second int of 2n: a vector type, freed after the init (the request holds it). */
static MPI_Datatype strided(int n) {
    MPI_Datatype t;
    CHECK(MPI_Type_vector(n, 1, 2, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    return t;
}

static void bcast_strided(MPI_Comm comm, int n) {
    int me;
    MPI_Comm_rank(comm, &me);
    int *buf = zeroed_ints(2 * (size_t)n);
    MPI_Datatype t = strided(n);
    MPI_Request r;
    CHECK(MPI_Bcast_init(buf, 1, t, 0, comm, MPI_INFO_NULL, &r) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    for (int k = 0; k < ROUNDS; k++) {
        for (int i = 0; i < 2 * n; i++) buf[i] = me == 0 ? val(0, k, i) : -7;
        run(&r, k);
        for (int i = 0; i < 2 * n; i++) CHECK(buf[i] == (i % 2 && me ? -7 : val(0, k, i)));
    }
    done(&r);
    free(buf);
}

static int sum(int p, int k, int i) {
    int s = 0;
    for (int r = 0; r < p; r++) s += val(r, k, i);
    return s;
}

static int partial(int last, int k, int i) {
    return sum(last + 1, k, i);
}

static void reductions(MPI_Comm comm, int n, int in_place) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *in = zeroed_ints((size_t)n), *red = zeroed_ints((size_t)n), *all = zeroed_ints((size_t)n),
        *scan = zeroed_ints((size_t)n), *exscan = zeroed_ints((size_t)n);
    int root = p - 1;
    MPI_Request r[4];
    const void *src = in_place ? MPI_IN_PLACE : in;
    CHECK(MPI_Reduce_init(in_place && me == root ? MPI_IN_PLACE : in, red, n, MPI_INT, MPI_SUM,
                          root, comm, MPI_INFO_NULL, &r[0]) == MPI_SUCCESS);
    CHECK(MPI_Allreduce_init(src, all, n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[1]) ==
          MPI_SUCCESS);
    CHECK(MPI_Scan_init(src, scan, n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[2]) == MPI_SUCCESS);
    CHECK(MPI_Exscan_init(src, exscan, n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[3]) ==
          MPI_SUCCESS);
    for (int k = 0; k < ROUNDS; k++) {
        for (int i = 0; i < n; i++) {
            in[i] = val(me, k, i);
            red[i] = in_place && me == root ? val(me, k, i) : -1;
            all[i] = scan[i] = exscan[i] = in_place ? val(me, k, i) : -1;
        }
        for (int j = 0; j < 4; j++) run(&r[j], k + j);
        for (int i = 0; i < n; i++) {
            if (me == root) CHECK(red[i] == sum(p, k, i));
            CHECK(all[i] == sum(p, k, i));
            CHECK(scan[i] == partial(me, k, i));
            if (me) CHECK(exscan[i] == partial(me - 1, k, i));
        }
    }
    for (int j = 0; j < 4; j++) done(&r[j]);
    free(in), free(red), free(all), free(scan), free(exscan);
}

/* Allreduce on every second int: packed at every start, unpacked after. */
static void allreduce_strided(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *in = zeroed_ints(2 * (size_t)n), *out = zeroed_ints(2 * (size_t)n);
    MPI_Datatype t = strided(n);
    MPI_Request r;
    CHECK(MPI_Allreduce_init(in, out, 1, t, MPI_SUM, comm, MPI_INFO_NULL, &r) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    for (int k = 0; k < ROUNDS; k++) {
        for (int i = 0; i < 2 * n; i++) {
            in[i] = val(me, k, i / 2);
            out[i] = -3;
        }
        run(&r, k);
        for (int i = 0; i < 2 * n; i++) CHECK(out[i] == (i % 2 ? -3 : sum(p, k, i / 2)));
    }
    done(&r);
    free(in), free(out);
}

static void reduce_scatters(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *counts = zeroed_ints((size_t)p), total = 0;
    for (int i = 0; i < p; i++) total += counts[i] = n + i % 3;
    int mine = counts[me], first = 0;
    for (int i = 0; i < me; i++) first += counts[i];
    int *in = zeroed_ints((size_t)(total > n * p ? total : n * p)),
        *out = zeroed_ints((size_t)total), *blk = zeroed_ints((size_t)n);
    MPI_Request r[2];
    CHECK(MPI_Reduce_scatter_init(in, out, counts, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[0]) ==
          MPI_SUCCESS);
    CHECK(MPI_Reduce_scatter_block_init(in, blk, n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[1]) ==
          MPI_SUCCESS);
    for (int k = 0; k < ROUNDS; k++) {
        for (int i = 0; i < total; i++) in[i] = val(me, k, i);
        for (int i = 0; i < n * p; i++) in[i] = val(me, k, i); /* the block form's part */
        memset(out, 0xff, (size_t)total * sizeof *out);
        memset(blk, 0xff, (size_t)n * sizeof *blk);
        run(&r[0], k);
        for (int i = 0; i < mine; i++) CHECK(out[i] == sum(p, k, first + i));
        run(&r[1], k + 1);
        for (int i = 0; i < n; i++) CHECK(blk[i] == sum(p, k, me * n + i));
    }
    done(&r[0]);
    done(&r[1]);
    free(counts), free(in), free(out), free(blk);
}

/* gather, gatherv, scatter, scatterv, allgather, allgatherv, alltoall(v,w) */
static void blocks(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    size_t all = (size_t)n * (size_t)p;
    int *mine = zeroed_ints((size_t)n), *gat = zeroed_ints(all), *gatv = zeroed_ints(2 * all),
        *sca = zeroed_ints((size_t)n), *scav = zeroed_ints((size_t)n), *ag = zeroed_ints(all),
        *agv = zeroed_ints(2 * all), *a2a_in = zeroed_ints(all), *a2a = zeroed_ints(all),
        *a2av = zeroed_ints(all), *a2aw = zeroed_ints(all);
    int *counts = zeroed_ints((size_t)p), *displs = zeroed_ints((size_t)p),
        *bdispls = zeroed_ints((size_t)p);
    MPI_Datatype *types = malloc((size_t)p * sizeof *types);
    CHECK(types);
    for (int i = 0; i < p; i++) {
        counts[i] = n;
        displs[i] = 2 * n * (p - 1 - i); /* reversed, with gaps */
        bdispls[i] = i * n * (int)sizeof(int);
        types[i] = MPI_INT;
    }
    int root = p > 1 ? 1 : 0;
    MPI_Request r[10];
    CHECK(MPI_Gather_init(mine, n, MPI_INT, gat, n, MPI_INT, root, comm, MPI_INFO_NULL, &r[0]) ==
          MPI_SUCCESS);
    CHECK(MPI_Gatherv_init(mine, n, MPI_INT, gatv, counts, displs, MPI_INT, root, comm,
                           MPI_INFO_NULL, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Scatter_init(gat, n, MPI_INT, sca, n, MPI_INT, root, comm, MPI_INFO_NULL, &r[2]) ==
          MPI_SUCCESS);
    CHECK(MPI_Scatterv_init(gatv, counts, displs, MPI_INT, scav, n, MPI_INT, root, comm,
                            MPI_INFO_NULL, &r[3]) == MPI_SUCCESS);
    CHECK(MPI_Allgather_init(mine, n, MPI_INT, ag, n, MPI_INT, comm, MPI_INFO_NULL, &r[4]) ==
          MPI_SUCCESS);
    CHECK(MPI_Allgatherv_init(mine, n, MPI_INT, agv, counts, displs, MPI_INT, comm, MPI_INFO_NULL,
                              &r[5]) == MPI_SUCCESS);
    CHECK(MPI_Alltoall_init(a2a_in, n, MPI_INT, a2a, n, MPI_INT, comm, MPI_INFO_NULL, &r[6]) ==
          MPI_SUCCESS);
    int *seq = zeroed_ints((size_t)p);
    for (int i = 0; i < p; i++) seq[i] = i * n;
    CHECK(MPI_Alltoallv_init(a2a_in, counts, seq, MPI_INT, a2av, counts, seq, MPI_INT, comm,
                             MPI_INFO_NULL, &r[7]) == MPI_SUCCESS);
    CHECK(MPI_Alltoallw_init(a2a_in, counts, bdispls, types, a2aw, counts, bdispls, types, comm,
                             MPI_INFO_NULL, &r[8]) == MPI_SUCCESS);
    /* in place: recvbuf's blocks are sent, and overwritten */
    CHECK(MPI_Alltoall_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a2a_in, n, MPI_INT, comm,
                            MPI_INFO_NULL, &r[9]) == MPI_SUCCESS);
    for (int k = 0; k < ROUNDS; k++) {
        for (int i = 0; i < n; i++) mine[i] = val(me, k, i);
        for (size_t i = 0; i < all; i++) a2a_in[i] = val(me, k, (int)i);
        memset(gat, 0xff, all * sizeof *gat);
        memset(gatv, 0xff, 2 * all * sizeof *gatv);
        memset(agv, 0xff, 2 * all * sizeof *agv);
        memset(ag, 0xff, all * sizeof *ag);
        memset(a2a, 0xff, all * sizeof *a2a);
        memset(a2av, 0xff, all * sizeof *a2av);
        memset(a2aw, 0xff, all * sizeof *a2aw);
        /* Startall of the first two, and of the next ones apart */
        CHECK(MPI_Startall(2, r) == MPI_SUCCESS);
        CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        if (me == root)
            for (int j = 0; j < p; j++)
                for (int i = 0; i < n; i++) {
                    CHECK(gat[j * n + i] == val(j, k, i));
                    CHECK(gatv[displs[j] + i] == val(j, k, i));
                }
        /* the root scatters what it gathered: everyone gets its own back */
        memset(sca, 0xff, (size_t)n * sizeof *sca);
        memset(scav, 0xff, (size_t)n * sizeof *scav);
        run(&r[2], k);
        run(&r[3], k + 1);
        for (int i = 0; i < n; i++) CHECK(sca[i] == val(me, k, i) && scav[i] == val(me, k, i));
        for (int j = 4; j < 9; j++) run(&r[j], k + j);
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++) {
                CHECK(ag[j * n + i] == val(j, k, i));
                CHECK(agv[displs[j] + i] == val(j, k, i));
                CHECK(a2a[j * n + i] == val(j, k, me * n + i));
                CHECK(a2av[j * n + i] == val(j, k, me * n + i));
                CHECK(a2aw[j * n + i] == val(j, k, me * n + i));
            }
        run(&r[9], k);
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++) CHECK(a2a_in[j * n + i] == val(j, k, me * n + i));
    }
    for (int j = 0; j < 10; j++) done(&r[j]);
    free(mine), free(gat), free(gatv), free(sca), free(scav), free(ag), free(agv), free(a2a_in);
    free(a2a), free(a2av), free(a2aw), free(counts), free(displs), free(bdispls), free(types);
    free(seq);
}

/* Blocks of a non-contiguous type (every second int, extent 2n ints): packed into
 * the request's scratch at every start, never at the init. */
static void blocks_strided(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    MPI_Datatype v, t;
    CHECK(MPI_Type_vector(n, 1, 2, MPI_INT, &v) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(v, 0, 2 * n * (MPI_Aint)sizeof(int), &t) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
    MPI_Type_free(&v);
    size_t all = (size_t)n * (size_t)p;
    int *in = zeroed_ints(2 * all), *ag = zeroed_ints(all), *gat = zeroed_ints(all),
        *a2a = zeroed_ints(all), *rsb = zeroed_ints(2 * (size_t)n);
    MPI_Request r[4];
    CHECK(MPI_Allgather_init(in, 1, t, ag, n, MPI_INT, comm, MPI_INFO_NULL, &r[0]) == MPI_SUCCESS);
    CHECK(MPI_Gather_init(in, 1, t, gat, n, MPI_INT, 0, comm, MPI_INFO_NULL, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Alltoall_init(in, 1, t, a2a, n, MPI_INT, comm, MPI_INFO_NULL, &r[2]) == MPI_SUCCESS);
    CHECK(MPI_Reduce_scatter_block_init(in, rsb, 1, t, MPI_SUM, comm, MPI_INFO_NULL, &r[3]) ==
          MPI_SUCCESS);
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    for (int k = 0; k < ROUNDS; k++) {
        for (size_t j = 0; j < 2 * all; j++) /* block b's item i at 2n b + 2i */
            in[j] = j % 2 ? -5 : val(me, k, (int)(j / 2));
        memset(ag, 0xff, all * sizeof *ag);
        memset(gat, 0xff, all * sizeof *gat);
        memset(a2a, 0xff, all * sizeof *a2a);
        for (int i = 0; i < 2 * n; i++) rsb[i] = -9;
        for (int j = 0; j < 4; j++) run(&r[j], k + j);
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++) {
                CHECK(ag[j * n + i] == val(j, k, i));
                if (me == 0) CHECK(gat[j * n + i] == val(j, k, i));
                CHECK(a2a[j * n + i] == val(j, k, me * n + i));
            }
        for (int i = 0; i < n; i++)
            CHECK(rsb[2 * i] == sum(p, k, me * n + i) && rsb[2 * i + 1] == -9);
    }
    for (int j = 0; j < 4; j++) done(&r[j]);
    free(in), free(ag), free(gat), free(a2a), free(rsb);
}

/* Several different persistent collectives started together by MPI_Startall, in
 * a different order of completion each round. */
static void startall(MPI_Comm comm, int n) {
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *in = zeroed_ints((size_t)n), *all = zeroed_ints((size_t)n), *bc = zeroed_ints((size_t)n),
        *ag = zeroed_ints((size_t)n * (size_t)p);
    MPI_Request r[4];
    CHECK(MPI_Allreduce_init(in, all, n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[0]) ==
          MPI_SUCCESS);
    CHECK(MPI_Bcast_init(bc, n, MPI_INT, p - 1, comm, MPI_INFO_NULL, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Barrier_init(comm, MPI_INFO_NULL, &r[2]) == MPI_SUCCESS);
    CHECK(MPI_Allgather_init(in, n, MPI_INT, ag, n, MPI_INT, comm, MPI_INFO_NULL, &r[3]) ==
          MPI_SUCCESS);
    for (int k = 0; k < ROUNDS; k++) {
        for (int i = 0; i < n; i++) {
            in[i] = val(me, k, i);
            bc[i] = me == p - 1 ? val(me, k, i) : -1;
        }
        CHECK(MPI_Startall(4, r) == MPI_SUCCESS);
        if (k % 2) {
            for (int j = 3; j >= 0; j--) CHECK(MPI_Wait(&r[j], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        } else {
            int left = 4, idx;
            while (left--) CHECK(MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
                  idx == MPI_UNDEFINED); /* all inactive */
        }
        for (int i = 0; i < n; i++) {
            CHECK(all[i] == sum(p, k, i));
            CHECK(bc[i] == val(p - 1, k, i));
            for (int j = 0; j < p; j++) CHECK(ag[j * n + i] == val(j, k, i));
        }
    }
    for (int j = 0; j < 4; j++) done(&r[j]);
    free(in), free(all), free(bc), free(ag);
}

/* The neighbourhood calls on a periodic ring (where the ring has 1 or 2 processes,
 * a neighbour is there twice: blocks land by the standard's order). */
static void neighbours(int n) {
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1}, me;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring) == MPI_SUCCESS);
    MPI_Comm_rank(ring, &me);
    int left = (me + size - 1) % size, right = (me + 1) % size;
    int *in = zeroed_ints(2 * (size_t)n), *ag = zeroed_ints(2 * (size_t)n),
        *agv = zeroed_ints(4 * (size_t)n), *a2a = zeroed_ints(2 * (size_t)n),
        *a2av = zeroed_ints(2 * (size_t)n), *a2aw = zeroed_ints(2 * (size_t)n);
    int counts[2] = {n, n}, displs[2] = {0, n}, gaps[2] = {3 * n, 0};
    MPI_Aint bdispls[2] = {0, (MPI_Aint)(n * (int)sizeof(int))};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Request r[5];
    CHECK(MPI_Neighbor_allgather_init(in, n, MPI_INT, ag, n, MPI_INT, ring, MPI_INFO_NULL, &r[0]) ==
          MPI_SUCCESS);
    CHECK(MPI_Neighbor_allgatherv_init(in, n, MPI_INT, agv, counts, gaps, MPI_INT, ring,
                                       MPI_INFO_NULL, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Neighbor_alltoall_init(in, n, MPI_INT, a2a, n, MPI_INT, ring, MPI_INFO_NULL, &r[2]) ==
          MPI_SUCCESS);
    CHECK(MPI_Neighbor_alltoallv_init(in, counts, displs, MPI_INT, a2av, counts, displs, MPI_INT,
                                      ring, MPI_INFO_NULL, &r[3]) == MPI_SUCCESS);
    CHECK(MPI_Neighbor_alltoallw_init(in, counts, bdispls, types, a2aw, counts, bdispls, types,
                                      ring, MPI_INFO_NULL, &r[4]) == MPI_SUCCESS);
    for (int k = 0; k < ROUNDS; k++) {
        for (int i = 0; i < 2 * n; i++) in[i] = val(me, k, i);
        memset(ag, 0xff, 2 * (size_t)n * sizeof *ag);
        memset(agv, 0xff, 4 * (size_t)n * sizeof *agv);
        memset(a2a, 0xff, 2 * (size_t)n * sizeof *a2a);
        memset(a2av, 0xff, 2 * (size_t)n * sizeof *a2av);
        memset(a2aw, 0xff, 2 * (size_t)n * sizeof *a2aw);
        if (k % 2) {
            CHECK(MPI_Startall(5, r) == MPI_SUCCESS);
            CHECK(MPI_Waitall(5, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        } else {
            for (int j = 0; j < 5; j++) run(&r[j], k + j);
        }
        for (int i = 0; i < n; i++) {
            /* in-neighbours: left, then right */
            CHECK(ag[i] == val(left, k, i) && ag[n + i] == val(right, k, i));
            CHECK(agv[3 * n + i] == val(left, k, i) && agv[i] == val(right, k, i));
            /* the left one's block for its right (block 1), the right one's for its left */
            int *got[3] = {a2a, a2av, a2aw};
            for (int g = 0; g < 3; g++)
                CHECK(got[g][i] == val(left, k, n + i) && got[g][n + i] == val(right, k, i));
        }
    }
    for (int j = 0; j < 5; j++) done(&r[j]);
    free(in), free(ag), free(agv), free(a2a), free(a2av), free(a2aw);
    MPI_Comm_free(&ring);
}

/* The intercommunicator forms between the lower and upper half of the world. */
static void inter(int n) {
    if (size < 2) return;
    int low = rank < size / 2, nlow = size / 2;
    MPI_Comm half, ic;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half) == MPI_SUCCESS);
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? nlow : 0, 7, &ic) == MPI_SUCCESS);
    int me, local, remote;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_size(ic, &local);
    MPI_Comm_remote_size(ic, &remote);
    size_t rall = (size_t)n * (size_t)remote;
    int *mine = zeroed_ints((size_t)n), *bc = zeroed_ints((size_t)n), *all = zeroed_ints((size_t)n),
        *red = zeroed_ints((size_t)n), *ag = zeroed_ints(rall), *agv = zeroed_ints(rall),
        *a2a_in = zeroed_ints(rall), *a2a = zeroed_ints(rall), *a2av = zeroed_ints(rall),
        *a2aw = zeroed_ints(rall), *gat = zeroed_ints(rall), *gatv = zeroed_ints(rall),
        *sca = zeroed_ints((size_t)n), *scav = zeroed_ints((size_t)n),
        *rsb_in = zeroed_ints((size_t)n * (size_t)local), *rsb = zeroed_ints((size_t)n),
        *rs = zeroed_ints((size_t)n);
    int *rcounts = zeroed_ints((size_t)remote), *rdispls = zeroed_ints((size_t)remote),
        *rbd = zeroed_ints((size_t)remote), *lcounts = zeroed_ints((size_t)local);
    MPI_Datatype *types = malloc((size_t)remote * sizeof *types);
    CHECK(types);
    for (int i = 0; i < remote; i++) {
        rcounts[i] = n;
        rdispls[i] = i * n;
        rbd[i] = i * n * (int)sizeof(int);
        types[i] = MPI_INT;
    }
    for (int i = 0; i < local; i++) lcounts[i] = n;
    /* group 0's rank 0 is the root of the rooted calls */
    int root = low ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int am_root = root == MPI_ROOT;
    enum { CALLS = 15 };
    MPI_Request r[CALLS];
    int c = 0;
    CHECK(MPI_Barrier_init(ic, MPI_INFO_NULL, &r[c++]) == MPI_SUCCESS);
    CHECK(MPI_Bcast_init(bc, n, MPI_INT, root, ic, MPI_INFO_NULL, &r[c++]) == MPI_SUCCESS);
    CHECK(MPI_Allreduce_init(mine, all, n, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r[c++]) ==
          MPI_SUCCESS);
    CHECK(MPI_Reduce_init(mine, red, n, MPI_INT, MPI_SUM, root, ic, MPI_INFO_NULL, &r[c++]) ==
          MPI_SUCCESS);
    CHECK(MPI_Allgather_init(mine, n, MPI_INT, ag, n, MPI_INT, ic, MPI_INFO_NULL, &r[c++]) ==
          MPI_SUCCESS);
    CHECK(MPI_Allgatherv_init(mine, n, MPI_INT, agv, rcounts, rdispls, MPI_INT, ic, MPI_INFO_NULL,
                              &r[c++]) == MPI_SUCCESS);
    CHECK(MPI_Alltoall_init(a2a_in, n, MPI_INT, a2a, n, MPI_INT, ic, MPI_INFO_NULL, &r[c++]) ==
          MPI_SUCCESS);
    CHECK(MPI_Alltoallv_init(a2a_in, rcounts, rdispls, MPI_INT, a2av, rcounts, rdispls, MPI_INT, ic,
                             MPI_INFO_NULL, &r[c++]) == MPI_SUCCESS);
    CHECK(MPI_Alltoallw_init(a2a_in, rcounts, rbd, types, a2aw, rcounts, rbd, types, ic,
                             MPI_INFO_NULL, &r[c++]) == MPI_SUCCESS);
    CHECK(MPI_Gather_init(mine, n, MPI_INT, gat, n, MPI_INT, root, ic, MPI_INFO_NULL, &r[c++]) ==
          MPI_SUCCESS);
    CHECK(MPI_Gatherv_init(mine, n, MPI_INT, gatv, rcounts, rdispls, MPI_INT, root, ic,
                           MPI_INFO_NULL, &r[c++]) == MPI_SUCCESS);
    /* the root sends out block i = val(101 + i, ...) (in a2a_in, refilled below) */
    CHECK(MPI_Scatter_init(a2a_in, n, MPI_INT, sca, n, MPI_INT, root, ic, MPI_INFO_NULL, &r[c++]) ==
          MPI_SUCCESS);
    CHECK(MPI_Scatterv_init(a2a_in, rcounts, rdispls, MPI_INT, scav, n, MPI_INT, root, ic,
                            MPI_INFO_NULL, &r[c++]) == MPI_SUCCESS);
    /* the groups' vectors are as long only when the groups are as large */
    int scatters = local == remote;
    if (scatters) {
        CHECK(MPI_Reduce_scatter_block_init(rsb_in, rsb, n, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL,
                                            &r[c++]) == MPI_SUCCESS);
        CHECK(MPI_Reduce_scatter_init(rsb_in, rs, lcounts, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL,
                                      &r[c++]) == MPI_SUCCESS);
    }
    int rbase = low ? nlow : 0; /* world rank of the remote group's rank 0 */
    for (int k = 0; k < ROUNDS; k++) {
        for (int i = 0; i < n; i++) {
            mine[i] = val(rank, k, i);
            bc[i] = am_root ? val(rank, k, i) : -1;
        }
        for (size_t i = 0; i < rall; i++) a2a_in[i] = val(rank, k, (int)i);
        for (int i = 0; i < n * local; i++) rsb_in[i] = val(rank, k, i);
        CHECK(MPI_Startall(c, r) == MPI_SUCCESS);
        CHECK(MPI_Waitall(c, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        for (int i = 0; i < n; i++) {
            if (!low) CHECK(bc[i] == val(0, k, i));
            int rsum = 0;
            for (int j = 0; j < remote; j++) rsum += val(rbase + j, k, i);
            CHECK(all[i] == rsum);
            if (am_root) CHECK(red[i] == rsum);
            for (int j = 0; j < remote; j++) {
                CHECK(ag[j * n + i] == val(rbase + j, k, i));
                CHECK(agv[j * n + i] == val(rbase + j, k, i));
                CHECK(a2a[j * n + i] == val(rbase + j, k, me * n + i));
                CHECK(a2av[j * n + i] == val(rbase + j, k, me * n + i));
                CHECK(a2aw[j * n + i] == val(rbase + j, k, me * n + i));
                if (am_root) CHECK(gat[j * n + i] == val(rbase + j, k, i));
                if (am_root) CHECK(gatv[j * n + i] == val(rbase + j, k, i));
            }
            if (!low) CHECK(sca[i] == val(0, k, me * n + i) && scav[i] == val(0, k, me * n + i));
            int rs_sum = 0; /* block me of the other group's vectors, summed */
            for (int j = 0; j < remote; j++) rs_sum += val(rbase + j, k, me * n + i);
            if (scatters) CHECK(rsb[i] == rs_sum && rs[i] == rs_sum);
        }
    }
    for (int j = 0; j < c; j++) done(&r[j]);
    free(mine), free(bc), free(all), free(red), free(ag), free(agv), free(a2a_in), free(a2a);
    free(a2av), free(a2aw), free(gat), free(gatv), free(sca), free(scav), free(rsb_in), free(rsb);
    free(rs), free(rcounts), free(rdispls), free(rbd), free(lcounts), free(types);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
}

static int error_class(int rc) {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* A start of an active request and a free of one are errors (MPI_ERR_REQUEST) that
 * leave the request as it was; so are a bad info and a NULL request. */
static void errors(void) {
    MPI_Comm comm;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = rank, y = -1;
    MPI_Request r;
    CHECK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r) == MPI_SUCCESS);
    CHECK(MPI_Start(&r) == MPI_SUCCESS);
    CHECK(error_class(MPI_Start(&r)) == MPI_ERR_REQUEST);
    CHECK(error_class(MPI_Startall(1, &r)) == MPI_ERR_REQUEST);
    MPI_Request kept = r;
    CHECK(error_class(MPI_Request_free(&r)) == MPI_ERR_REQUEST && r == kept);
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(y == size * (size - 1) / 2);
    /* inactive again: a start works, and once complete, a free */
    x = 2 * rank;
    CHECK(MPI_Start(&r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(y == size * (size - 1));
    done(&r);
    /* bad arguments */
    MPI_Info bad = (MPI_Info)0x12345;
    CHECK(error_class(MPI_Barrier_init(comm, bad, &r)) == MPI_ERR_INFO);
    CHECK(error_class(MPI_Barrier_init(comm, MPI_INFO_NULL, NULL)) == MPI_ERR_REQUEST);
    CHECK(error_class(MPI_Bcast_init(&x, -1, MPI_INT, 0, comm, MPI_INFO_NULL, &r)) ==
          MPI_ERR_COUNT);
    CHECK(error_class(MPI_Reduce_init(&x, &y, 1, MPI_INT, MPI_SUM, size, comm, MPI_INFO_NULL,
                                      &r)) == MPI_ERR_ROOT);
    CHECK(error_class(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, MPI_INFO_NULL,
                                         &r)) == MPI_ERR_COMM);
    CHECK(error_class(MPI_Neighbor_allgather_init(&x, 1, MPI_INT, &y, 1, MPI_INT, comm,
                                                  MPI_INFO_NULL, &r)) == MPI_ERR_TOPOLOGY);
    /* a failed init took no part: the next collective still matches */
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);
}

/* Calls past one segment (8 MiB): the later segments are written as the request
 * runs, and written again at the next start. */
static void large(void) {
    int n = (9 << 20) / (int)sizeof(int) + 13;
    int *in = zeroed_ints((size_t)n), *out = zeroed_ints((size_t)n);
    MPI_Request r[2];
    CHECK(MPI_Allreduce_init(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]) ==
          MPI_SUCCESS);
    CHECK(MPI_Bcast_init(in, n, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]) ==
          MPI_SUCCESS);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < n; i++) in[i] = val(rank, k, i);
        run(&r[0], k);
        for (int i = 0; i < n; i++) CHECK(out[i] == sum(size, k, i));
        run(&r[1], k + 1);
        for (int i = 0; i < n; i++) CHECK(in[i] == val(size - 1, k, i));
    }
    done(&r[0]);
    done(&r[1]);
    free(in), free(out);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int small = argc > 1 && !strcmp(argv[1], "small");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int pass = 0; pass < 2; pass++) {
        MPI_Comm comm = pass ? dup : MPI_COMM_WORLD;
        barrier(comm);
        int sizes[] = {1, 7, 1000, 20000}; /* up to past the eager limit */
        for (unsigned j = 0; j < sizeof sizes / sizeof *sizes; j++) {
            int n = sizes[j];
            bcast(comm, n);
            reductions(comm, n, 0);
            reductions(comm, n, 1);
            reduce_scatters(comm, n);
            blocks(comm, n);
            startall(comm, n);
        }
        bcast_strided(comm, 5);
        bcast_strided(comm, 40000);
        allreduce_strided(comm, 5);
        allreduce_strided(comm, 40000);
        blocks_strided(comm, 3);
        blocks_strided(comm, 3000);
    }
    neighbours(3);
    neighbours(5000);
    inter(4);
    inter(3000);
    errors();
    if (!small) large();
    MPI_Comm_free(&dup);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("persistent collectives: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
