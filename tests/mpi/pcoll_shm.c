/* Persistent collectives on the shared-memory lines (coll_shm.c): Barrier, Reduce and
 * Allreduce of up to 56 bytes, Bcast of as many on two ranks, run by MPI_Start without
 * waiting and finished by the request's progress. Each is started many times with new
 * values at every start, every result checked exactly: several ops and datatypes, a
 * non-contiguous type (packed at every start), MPI_IN_PLACE, a user op that does not
 * commute (the result must keep rank order). Then the orderings the lines must keep:
 * a persistent call started and a blocking one run before it is waited for, two and
 * three persistent calls on one communicator started back to back (MPI_Startall too)
 * and completed by MPI_Waitall in either order, and persistent calls on two
 * communicators at once. Calls of more than 56 bytes (by messages) run beside them.
 * Passes on any rank count; the lines serve 2 to 4 ranks by default (3 with
 * TW_COLL_SHM=shm for the 8-byte Allreduce). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { ITERS = 120, MOST = 15 };

/* What rank r gives at item i in iteration k. */
static int val(int r, int k, int i) {
    return (r + 1) * 1000 + k * 7 + i;
}

/* Starts r and completes it, a different way by k. */
static void run(MPI_Request *r, int k) {
    MPI_Request kept = *r;
    int flag = 0;
    CHECK(MPI_Start(r) == MPI_SUCCESS);
    switch (k % 3) {
    case 0:
        CHECK(MPI_Wait(r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        break;
    case 1:
        while (!flag) CHECK(MPI_Test(r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        break;
    default:
        CHECK(MPI_Waitall(1, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        break;
    }
    CHECK(*r == kept);
}

static void allreduce_int(MPI_Comm comm, int n, MPI_Op op, int in_place) {
    int in[MOST] = {0}, out[MOST + 1];
    MPI_Request r;
    CHECK(MPI_Allreduce_init(in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, op, comm, MPI_INFO_NULL,
                             &r) == MPI_SUCCESS);
    for (int k = 0; k < ITERS; k++) {
        for (int i = 0; i < n; i++) in[i] = val(rank, k, i);
        for (int i = 0; i <= MOST; i++) out[i] = -1;
        if (in_place) memcpy(out, in, (size_t)n * sizeof *in);
        run(&r, k);
        for (int i = 0; i < n; i++) {
            int want = op == MPI_SUM ? 0 : val(0, k, i);
            for (int p = 0; p < size; p++)
                want = op == MPI_SUM         ? want + val(p, k, i)
                       : val(p, k, i) > want ? val(p, k, i)
                                             : want;
            CHECK(out[i] == want);
            if (!in_place) CHECK(in[i] == val(rank, k, i)); /* the input stays as it was */
        }
        CHECK(out[n] == -1); /* nothing past the result */
    }
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
}

static void allreduce_types(MPI_Comm comm) {
    /* doubles: MIN */
    double d[3] = {0}, dmin[3];
    long long l[7] = {0}, lx[7];
    MPI_Request rd, rl;
    CHECK(MPI_Allreduce_init(d, dmin, 3, MPI_DOUBLE, MPI_MIN, comm, MPI_INFO_NULL, &rd) ==
          MPI_SUCCESS);
    CHECK(MPI_Allreduce_init(l, lx, 7, MPI_LONG_LONG, MPI_BXOR, comm, MPI_INFO_NULL, &rl) ==
          MPI_SUCCESS);
    for (int k = 0; k < ITERS; k++) {
        for (int i = 0; i < 3; i++) d[i] = 0.5 * val(rank, k, i) - (rank == size - 1 ? k : 0);
        for (int i = 0; i < 7; i++) l[i] = (long long)val(rank, k, i) << (i * 5);
        run(&rd, k);
        run(&rl, k + 1);
        for (int i = 0; i < 3; i++) {
            double want = 0.5 * val(0, k, i) - (size == 1 ? k : 0);
            for (int p = 1; p < size; p++) {
                double v = 0.5 * val(p, k, i) - (p == size - 1 ? k : 0);
                if (v < want) want = v;
            }
            CHECK(dmin[i] == want);
        }
        for (int i = 0; i < 7; i++) {
            long long want = 0;
            for (int p = 0; p < size; p++) want ^= (long long)val(p, k, i) << (i * 5);
            CHECK(lx[i] == want);
        }
    }
    CHECK(MPI_Request_free(&rd) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&rl) == MPI_SUCCESS);
}

/* Every other int: 2 items of 3 ints each, 24 bytes packed; the gaps stay as they were. */
static void allreduce_strided(MPI_Comm comm) {
    MPI_Datatype every_other;
    MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int in[12] = {0}, out[12];
    MPI_Request r;
    CHECK(MPI_Allreduce_init(in, out, 2, every_other, MPI_SUM, comm, MPI_INFO_NULL, &r) ==
          MPI_SUCCESS);
    MPI_Type_free(&every_other); /* the request keeps it */
    for (int k = 0; k < ITERS; k++) {
        for (int i = 0; i < 12; i++) {
            in[i] = val(rank, k, i);
            out[i] = -7;
        }
        run(&r, k);
        /* the vector's extent is 5 ints: item 1 starts at int 5 */
        static const int at[6] = {0, 2, 4, 5, 7, 9};
        for (int j = 0; j < 6; j++) {
            int want = 0;
            for (int p = 0; p < size; p++) want += val(p, k, at[j]);
            CHECK(out[at[j]] == want);
            out[at[j]] = -7;
        }
        for (int i = 0; i < 12; i++) CHECK(out[i] == -7);
    }
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
}

/* An affine map x -> a x + b; in op inout is in after inout: (in.a inout.a, in.a
 * inout.b + in.b). Associative, not commutative: the result is rank 0's map after
 * rank 1's ... after the last rank's. */
typedef struct affine {
    unsigned a, b;
} affine_t;

static void compose(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    const affine_t *f = in;
    affine_t *g = inout;
    for (int i = 0; i < *len; i++) g[i] = (affine_t){f[i].a * g[i].a, f[i].a * g[i].b + f[i].b};
}

static affine_t map_of(int r, int k, int i) {
    return (affine_t){(unsigned)(2 * r + 3 + k + i), (unsigned)(7 * r + k + 11 * i)};
}

static void allreduce_user_op(MPI_Comm comm, int in_place) {
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    MPI_Op op;
    MPI_Op_create(compose, 0, &op);
    affine_t in[3] = {{0, 0}}, out[3];
    MPI_Request r;
    CHECK(MPI_Allreduce_init(in_place ? MPI_IN_PLACE : in, out, 3, pair, op, comm, MPI_INFO_NULL,
                             &r) == MPI_SUCCESS);
    MPI_Op_free(&op); /* the request keeps it */
    for (int k = 0; k < ITERS; k++) {
        for (int i = 0; i < 3; i++) in[i] = map_of(rank, k, i);
        if (in_place) memcpy(out, in, sizeof in);
        run(&r, k);
        for (int i = 0; i < 3; i++) {
            affine_t want = map_of(size - 1, k, i);
            for (int p = size - 2; p >= 0; p--) {
                affine_t f = map_of(p, k, i);
                want = (affine_t){f.a * want.a, f.a * want.b + f.b};
            }
            CHECK(out[i].a == want.a && out[i].b == want.b);
        }
    }
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
    MPI_Type_free(&pair);
}

static void reduce(MPI_Comm comm, int in_place) {
    int root = size - 1, in[4] = {0}, out[5];
    int here = in_place && rank == root;
    MPI_Request r;
    CHECK(MPI_Reduce_init(here ? MPI_IN_PLACE : in, out, 4, MPI_INT, MPI_SUM, root, comm,
                          MPI_INFO_NULL, &r) == MPI_SUCCESS);
    for (int k = 0; k < ITERS; k++) {
        for (int i = 0; i < 4; i++) in[i] = val(rank, k, i);
        for (int i = 0; i < 5; i++) out[i] = -1;
        if (here) memcpy(out, in, sizeof in);
        run(&r, k);
        for (int i = 0; i < 4; i++) {
            int want = 0;
            for (int p = 0; p < size; p++) want += val(p, k, i);
            CHECK(rank == root ? out[i] == want : out[i] == -1); /* a giver's out untouched */
        }
        CHECK(out[4] == -1);
    }
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
}

static void bcast(MPI_Comm comm, int n) {
    int root = size - 1, buf[MOST];
    MPI_Request r;
    CHECK(MPI_Bcast_init(buf, n, MPI_INT, root, comm, MPI_INFO_NULL, &r) == MPI_SUCCESS);
    for (int k = 0; k < ITERS; k++) {
        for (int i = 0; i < n; i++) buf[i] = rank == root ? val(root, k, i) : -1;
        run(&r, k);
        for (int i = 0; i < n; i++) CHECK(buf[i] == val(root, k, i));
    }
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
}

static void barrier(MPI_Comm comm) {
    MPI_Request r;
    CHECK(MPI_Barrier_init(comm, MPI_INFO_NULL, &r) == MPI_SUCCESS);
    for (int k = 0; k < ITERS; k++) run(&r, k);
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
}

static int sum_at(int k, int i) {
    int s = 0;
    for (int p = 0; p < size; p++) s += val(p, k, i);
    return s;
}

/* A persistent allreduce started, then blocking calls on the same communicator (on
 * the lines and in the segment), then its wait: every result right. */
static void interleaved(MPI_Comm comm) {
    int pin[2] = {0}, pout[2], bin[2], bout[2], big_in[64], big_out[64], token[2];
    MPI_Request r;
    CHECK(MPI_Allreduce_init(pin, pout, 2, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r) ==
          MPI_SUCCESS);
    for (int k = 0; k < ITERS; k++) {
        for (int i = 0; i < 2; i++) {
            pin[i] = val(rank, k, i);
            bin[i] = val(rank, k + 1, i);
            pout[i] = bout[i] = -1;
        }
        for (int i = 0; i < 64; i++) big_in[i] = val(rank, k, i);
        CHECK(MPI_Start(&r) == MPI_SUCCESS);
        switch (k % 4) {
        case 0:
            CHECK(MPI_Allreduce(bin, bout, 2, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
            break;
        case 1: /* 256 bytes: the segment on two ranks, beside the lines */
            CHECK(MPI_Allreduce(big_in, big_out, 64, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
            for (int i = 0; i < 64; i++) CHECK(big_out[i] == sum_at(k, i));
            memcpy(bout, (int[2]){sum_at(k + 1, 0), sum_at(k + 1, 1)}, sizeof bout);
            break;
        case 2:
            CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
            token[0] = rank == 0 ? k : -1;
            CHECK(MPI_Bcast(token, 1, MPI_INT, 0, comm) == MPI_SUCCESS);
            CHECK(token[0] == k);
            memcpy(bout, (int[2]){sum_at(k + 1, 0), sum_at(k + 1, 1)}, sizeof bout);
            break;
        default: /* the persistent call done first, by a test loop, then a blocking one */
            for (int flag = 0; !flag;) CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(MPI_Allreduce(bin, bout, 2, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
            break;
        }
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int i = 0; i < 2; i++) {
            CHECK(pout[i] == sum_at(k, i));
            CHECK(bout[i] == sum_at(k + 1, i));
        }
    }
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS);
}

/* Two and three persistent calls on one communicator started back to back, completed
 * together in either order; a third behind a blocking call. */
static void back_to_back(MPI_Comm comm) {
    int in1[3] = {0}, out1[3], in2[1] = {0}, out2[1], in3[2] = {0}, out3[2], bin, bout;
    MPI_Request r[3], backwards[2];
    CHECK(MPI_Allreduce_init(in1, out1, 3, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r[0]) ==
          MPI_SUCCESS);
    CHECK(MPI_Allreduce_init(in2, out2, 1, MPI_INT, MPI_MAX, comm, MPI_INFO_NULL, &r[1]) ==
          MPI_SUCCESS);
    CHECK(MPI_Reduce_init(in3, out3, 2, MPI_INT, MPI_SUM, 0, comm, MPI_INFO_NULL, &r[2]) ==
          MPI_SUCCESS);
    for (int k = 0; k < ITERS; k++) {
        for (int i = 0; i < 3; i++) in1[i] = val(rank, k, i);
        in2[0] = val(rank, k, 9);
        for (int i = 0; i < 2; i++) in3[i] = val(rank, k + 5, i);
        bin = val(rank, k + 3, 0);
        out1[0] = out1[1] = out1[2] = out2[0] = out3[0] = out3[1] = bout = -1;
        int three = k % 3 == 2;
        switch (k % 3) {
        case 0:
            CHECK(MPI_Start(&r[0]) == MPI_SUCCESS);
            CHECK(MPI_Start(&r[1]) == MPI_SUCCESS);
            CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
            break;
        case 1: /* Startall, then the later one completed first */
            CHECK(MPI_Startall(2, r) == MPI_SUCCESS);
            backwards[0] = r[1];
            backwards[1] = r[0];
            CHECK(MPI_Waitall(2, backwards, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
            CHECK(backwards[0] == r[1] && backwards[1] == r[0]);
            break;
        default: /* two started, a blocking call, a third started, all three waited for */
            CHECK(MPI_Startall(2, r) == MPI_SUCCESS);
            CHECK(MPI_Allreduce(&bin, &bout, 1, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
            CHECK(MPI_Start(&r[2]) == MPI_SUCCESS);
            CHECK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
            CHECK(bout == sum_at(k + 3, 0));
            break;
        }
        for (int i = 0; i < 3; i++) CHECK(out1[i] == sum_at(k, i));
        CHECK(out2[0] == val(size - 1, k, 9));
        for (int i = 0; i < 2; i++)
            CHECK(three && rank == 0 ? out3[i] == sum_at(k + 5, i) : out3[i] == -1);
    }
    for (int i = 0; i < 3; i++) CHECK(MPI_Request_free(&r[i]) == MPI_SUCCESS);
}

/* Persistent calls on two communicators at once, completed in the other order. */
static void two_communicators(MPI_Comm a, MPI_Comm b) {
    int ain = 0, aout, bin = 0, bout;
    MPI_Request r[2];
    CHECK(MPI_Allreduce_init(&ain, &aout, 1, MPI_INT, MPI_SUM, a, MPI_INFO_NULL, &r[0]) ==
          MPI_SUCCESS);
    CHECK(MPI_Allreduce_init(&bin, &bout, 1, MPI_INT, MPI_SUM, b, MPI_INFO_NULL, &r[1]) ==
          MPI_SUCCESS);
    for (int k = 0; k < ITERS; k++) {
        ain = val(rank, k, 0);
        bin = val(rank, k, 1);
        aout = bout = -1;
        CHECK(MPI_Startall(2, r) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r[1], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(aout == sum_at(k, 0) && bout == sum_at(k, 1));
    }
    for (int i = 0; i < 2; i++) CHECK(MPI_Request_free(&r[i]) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm, other;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    /* 1, 3 and 14 ints on the lines (4 to 56 bytes), 15 (60 bytes) by messages */
    static const int counts[] = {1, 3, 14, 15};
    for (int j = 0; j < 4; j++) {
        allreduce_int(comm, counts[j], MPI_SUM, 0);
        allreduce_int(comm, counts[j], MPI_MAX, 1);
    }
    allreduce_types(comm);
    allreduce_strided(comm);
    allreduce_user_op(comm, 0);
    allreduce_user_op(comm, 1);
    reduce(comm, 0);
    reduce(comm, 1);
    bcast(comm, 2);
    bcast(comm, 14);
    bcast(comm, 15);
    barrier(comm);
    interleaved(comm);
    back_to_back(comm);
    two_communicators(comm, other);
    /* on a communicator whose first collective is a persistent init (it sets the
     * block up) */
    MPI_Comm fresh;
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    back_to_back(fresh);
    MPI_Comm_free(&fresh);
    MPI_Comm_free(&other);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    if (rank == 0) printf("pcoll_shm: ok on %d ranks\n", size);
    return 0;
}
