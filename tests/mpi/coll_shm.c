/* The collectives a node's ranks run through shared memory (coll_shm.c), at sizes
 * that take one cache line, one step of the segment and many steps, against values
 * computed here rank by rank: bcast, reduce and allreduce (a sum, and an op that does
 * not commute, whose result shows the order), gather, scatter, allgather and
 * reduce_scatter_block, scan and exscan, alltoall, with roots moving, MPI_IN_PLACE, a strided
 * datatype on some ranks, on MPI_COMM_WORLD and on a communicator whose ranks are WORLD's in
 * another order. The same calls go by messages under TW_COLL_SHM=p2p, so the test checks either
 * way; ctest runs it with each.
 *
 * usage: mpi_coll_shm [small]   small: barrier, bcast and allreduce of a few sizes
 * (for many ranks on few cores). */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static int me, p; /* in the communicator under test */

/* The value rank r gives at index i of call k. */
static unsigned val(int r, size_t i, int k) {
    return (unsigned)(r * 7919 + (int)i * 31 + k * 101 + 1);
}

static unsigned *alloc_u(size_t n) {
    unsigned *a = malloc((n ? n : 1) * sizeof *a);
    CHECK(a);
    return a;
}

/* Affine maps x -> a x + b mod 2^32 as pairs (a, b); in op inout is in after inout:
 * associative, not commutative. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    const unsigned *f = in;
    unsigned *g = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a = f[2 * i] * g[2 * i], b = f[2 * i] * g[2 * i + 1] + f[2 * i + 1];
        g[2 * i] = a;
        g[2 * i + 1] = b;
    }
}

/* the pair rank r gives at item i of call k: a odd, so no product is 0 */
static void pair(int r, size_t i, int k, unsigned out[2]) {
    out[0] = 2 * val(r, i, k) + 1;
    out[1] = val(r, i, k + 1);
}

/* What ranks 0 .. upto - 1 give at item i of call k, combined in rank order: the pair
 * of rank 0 op (rank 1 op (... rank upto - 1)), as MPI orders a reduction. */
static void in_rank_order(int upto, size_t i, int k, unsigned want[2]) {
    unsigned f[2];
    pair(upto - 1, i, k, want);
    for (int r = upto - 2; r >= 0; r--) {
        int one = 1;
        MPI_Datatype none = MPI_DATATYPE_NULL;
        pair(r, i, k, f);
        compose(f, want, &one, &none);
    }
}

static int calls; /* a new k for every call */

static void bcasts(MPI_Comm comm, size_t n, MPI_Datatype strided) {
    for (int root = 0; root < p; root += (p + 1) / 2) {
        int k = calls++;
        unsigned *a = alloc_u(2 * n);
        for (size_t i = 0; i < 2 * n; i++) a[i] = me == root ? val(root, i, k) : 0xdeadbeef;
        CHECK(MPI_Bcast(a, (int)n, MPI_UNSIGNED, root, comm) == MPI_SUCCESS);
        for (size_t i = 0; i < n; i++) CHECK(a[i] == val(root, i, k));
        /* odd ranks receive into every other place of a buffer twice as long */
        k = calls++;
        for (size_t i = 0; i < 2 * n; i++) a[i] = 0xdeadbeef;
        if (me == root)
            for (size_t i = 0; i < n; i++) a[me % 2 ? 2 * i : i] = val(root, i, k);
        if (me % 2)
            CHECK(MPI_Bcast(a, (int)n, strided, root, comm) == MPI_SUCCESS);
        else
            CHECK(MPI_Bcast(a, (int)n, MPI_UNSIGNED, root, comm) == MPI_SUCCESS);
        for (size_t i = 0; i < n; i++) CHECK(a[me % 2 ? 2 * i : i] == val(root, i, k));
        if (me % 2)
            for (size_t i = 0; i < n; i++) CHECK(a[2 * i + 1] == 0xdeadbeef);
        free(a);
    }
}

static void sums(MPI_Comm comm, size_t n) {
    int k = calls++;
    unsigned *in = alloc_u(n), *out = alloc_u(n);
    for (size_t i = 0; i < n; i++) in[i] = val(me, i, k);
    for (int in_place = 0; in_place < 2; in_place++) {
        if (in_place) memcpy(out, in, n * sizeof *in);
        CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, (int)n, MPI_UNSIGNED, MPI_SUM,
                            comm) == MPI_SUCCESS);
        for (size_t i = 0; i < n; i++) {
            unsigned want = 0;
            for (int r = 0; r < p; r++) want += val(r, i, k);
            CHECK(out[i] == want);
        }
    }
    for (int root = p - 1; root >= 0; root -= (p + 1) / 2) {
        for (size_t i = 0; i < n; i++) out[i] = me == root ? in[i] : 0xdeadbeef;
        int in_place = me == root && root % 2;
        CHECK(MPI_Reduce(in_place ? MPI_IN_PLACE : in, out, (int)n, MPI_UNSIGNED, MPI_SUM, root,
                         comm) == MPI_SUCCESS);
        for (size_t i = 0; me == root && i < n; i++) {
            unsigned want = 0;
            for (int r = 0; r < p; r++) want += val(r, i, k);
            CHECK(out[i] == want);
        }
    }
    free(in);
    free(out);
}

/* Allreduce gives every rank the same bits, whatever the sum's rounding: doubles of
 * magnitudes far apart, so that another order of the additions rounds otherwise, in
 * place and not; every rank's result against rank 0's. */
static void same_bits(MPI_Comm comm, size_t n) {
    double *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out),
           *first = malloc(n * sizeof *first);
    CHECK(in && out && first);
    for (size_t i = 0; i < n; i++)
        in[i] = ldexp((me + i) % 2 ? 1.0 : -1.0, (int)((me * 37 + i * 11) % 60)) + 0.1 * (me + 1);
    for (int in_place = 0; in_place < 2; in_place++) {
        if (in_place) memcpy(out, in, n * sizeof *in);
        CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, (int)n, MPI_DOUBLE, MPI_SUM, comm) ==
              MPI_SUCCESS);
        memcpy(first, out, n * sizeof *out);
        CHECK(MPI_Bcast(first, (int)n, MPI_DOUBLE, 0, comm) == MPI_SUCCESS);
        CHECK(!memcmp(first, out, n * sizeof *out));
    }
    free(in);
    free(out);
    free(first);
}

/* an op that does not commute, over items of two unsigned */
static void ordered(MPI_Comm comm, size_t n, MPI_Op op, MPI_Datatype two) {
    int k = calls++;
    unsigned *in = alloc_u(2 * n), *out = alloc_u(2 * n), want[2];
    for (size_t i = 0; i < n; i++) pair(me, i, k, in + 2 * i);
    /* allreduce, then reduce to p - 1 and to 0, each also in place at the root (whose
     * input is then where its result goes, read before it is overwritten) */
    for (int pass = 0; pass < 5; pass++) {
        int root = pass == 0 ? -1 : pass % 2 ? p - 1 : 0, in_place = pass > 2 && me == root;
        memset(out, 0, 2 * n * sizeof *out);
        if (in_place) memcpy(out, in, 2 * n * sizeof *out);
        if (root < 0)
            CHECK(MPI_Allreduce(in, out, (int)n, two, op, comm) == MPI_SUCCESS);
        else
            CHECK(MPI_Reduce(in_place ? MPI_IN_PLACE : in, out, (int)n, two, op, root, comm) ==
                  MPI_SUCCESS);
        for (size_t i = 0; (root < 0 || me == root) && i < n; i++) {
            in_rank_order(p, i, k, want);
            CHECK(out[2 * i] == want[0] && out[2 * i + 1] == want[1]);
        }
    }
    free(in);
    free(out);
}

/* gather, scatter and allgather of n unsigned per rank */
static void blocks(MPI_Comm comm, size_t n) {
    int k = calls++;
    size_t all = n * (size_t)p;
    unsigned *mine = alloc_u(n), *many = alloc_u(all);
    for (size_t i = 0; i < n; i++) mine[i] = val(me, i, k);
    for (int root = 0; root < p; root += (p + 1) / 2) {
        int in_place = me == root && (root + k) % 2;
        for (size_t i = 0; i < all; i++) many[i] = 0xdeadbeef;
        if (in_place) memcpy(many + (size_t)me * n, mine, n * sizeof *mine);
        CHECK(MPI_Gather(in_place ? MPI_IN_PLACE : mine, (int)n, MPI_UNSIGNED, many, (int)n,
                         MPI_UNSIGNED, root, comm) == MPI_SUCCESS);
        for (int r = 0; me == root && r < p; r++)
            for (size_t i = 0; i < n; i++) CHECK(many[(size_t)r * n + i] == val(r, i, k));
        /* scatter: the root's blocks, rank r's from val(r, ., k + 1) */
        for (int r = 0; r < p; r++)
            for (size_t i = 0; i < n; i++) many[(size_t)r * n + i] = val(r, i, k + 1);
        unsigned *got = alloc_u(n);
        for (size_t i = 0; i < n; i++) got[i] = 0xdeadbeef;
        CHECK(MPI_Scatter(many, (int)n, MPI_UNSIGNED, in_place ? MPI_IN_PLACE : got, (int)n,
                          MPI_UNSIGNED, root, comm) == MPI_SUCCESS);
        for (size_t i = 0; !in_place && i < n; i++) CHECK(got[i] == val(me, i, k + 1));
        free(got);
    }
    for (int in_place = 0; in_place < 2; in_place++) {
        for (size_t i = 0; i < all; i++) many[i] = 0xdeadbeef;
        if (in_place) memcpy(many + (size_t)me * n, mine, n * sizeof *mine);
        CHECK(MPI_Allgather(in_place ? MPI_IN_PLACE : mine, (int)n, MPI_UNSIGNED, many, (int)n,
                            MPI_UNSIGNED, comm) == MPI_SUCCESS);
        for (int r = 0; r < p; r++)
            for (size_t i = 0; i < n; i++) CHECK(many[(size_t)r * n + i] == val(r, i, k));
    }
    free(mine);
    free(many);
}

/* alltoall of n unsigned per pair: out of place, in place, and strided on odd ranks
 * (both buffers, the type describing both); block j of rank r is val(r, ., k + j) */
static void alltoalls(MPI_Comm comm, size_t n, MPI_Datatype strided) {
    int k = calls;
    calls += p;
    size_t all = n * (size_t)p;
    unsigned *in = alloc_u(2 * all), *out = alloc_u(2 * all);
    for (int how = 0; how < 3; how++) {
        int spread = how == 2 && me % 2, at = spread ? 2 : 1;
        for (size_t i = 0; i < 2 * all; i++) in[i] = out[i] = 0xdeadbeef;
        unsigned *give = how == 1 ? out : in;
        for (int j = 0; j < p; j++)
            for (size_t i = 0; i < n; i++) give[at * ((size_t)j * n + i)] = val(me, i, k + j);
        MPI_Datatype t = spread ? strided : MPI_UNSIGNED;
        CHECK(MPI_Alltoall(how == 1 ? MPI_IN_PLACE : in, (int)n, t, out, (int)n, t, comm) ==
              MPI_SUCCESS);
        for (int j = 0; j < p; j++)
            for (size_t i = 0; i < n; i++) {
                CHECK(out[at * ((size_t)j * n + i)] == val(j, i, k + me));
                if (spread) CHECK(out[2 * ((size_t)j * n + i) + 1] == 0xdeadbeef);
            }
    }
    free(in);
    free(out);
}

/* reduce_scatter_block of n unsigned per rank: a sum, and the op that does not commute */
static void reduce_scatters(MPI_Comm comm, size_t n, MPI_Op op, MPI_Datatype two) {
    int k = calls++;
    size_t all = n * (size_t)p;
    unsigned *in = alloc_u(2 * all), *out = alloc_u(2 * all), want[2];
    for (int in_place = 0; in_place < 2; in_place++) {
        for (size_t i = 0; i < all; i++) (in_place ? out : in)[i] = val(me, i, k);
        CHECK(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, (int)n, MPI_UNSIGNED,
                                       MPI_SUM, comm) == MPI_SUCCESS);
        for (size_t i = 0; i < n; i++) {
            unsigned sum = 0;
            for (int r = 0; r < p; r++) sum += val(r, (size_t)me * n + i, k);
            CHECK(out[i] == sum);
        }
    }
    for (size_t i = 0; i < all; i++) pair(me, i, k, in + 2 * i);
    CHECK(MPI_Reduce_scatter_block(in, out, (int)n, two, op, comm) == MPI_SUCCESS);
    for (size_t i = 0; i < n; i++) {
        size_t at = (size_t)me * n + i;
        in_rank_order(p, at, k, want);
        CHECK(out[2 * i] == want[0] && out[2 * i + 1] == want[1]);
    }
    free(in);
    free(out);
}

/* scan and exscan of n items: a sum, in and out of place and with strided buffers on
 * odd ranks, and the op that does not commute over pairs */
static void scans(MPI_Comm comm, size_t n, MPI_Op op, MPI_Datatype two, MPI_Datatype strided) {
    int k = calls++;
    unsigned *in = alloc_u(2 * n), *out = alloc_u(2 * n), want[2];
    for (int exclusive = 0; exclusive < 2; exclusive++) {
        int (*scan)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm) =
            exclusive ? MPI_Exscan : MPI_Scan;
        int upto = me + 1 - exclusive;      /* the ranks whose input counts here */
        for (int how = 0; how < 3; how++) { /* out of place, in place, strided out */
            int spread = how == 2 && me % 2;
            for (size_t i = 0; i < 2 * n; i++) out[i] = 0xdeadbeef;
            /* the type describes both buffers: spread, the input is strided too */
            for (size_t i = 0; i < n; i++) in[spread ? 2 * i : i] = val(me, i, k);
            if (how == 1) memcpy(out, in, n * sizeof *in);
            CHECK(scan(how == 1 ? MPI_IN_PLACE : in, out, (int)n, spread ? strided : MPI_UNSIGNED,
                       MPI_SUM, comm) == MPI_SUCCESS);
            for (size_t i = 0; upto && i < n; i++) {
                unsigned sum = 0;
                for (int r = 0; r < upto; r++) sum += val(r, i, k);
                CHECK(out[spread ? 2 * i : i] == sum);
                if (spread) CHECK(out[2 * i + 1] == 0xdeadbeef);
            }
        }
        for (size_t i = 0; i < n; i++) pair(me, i, k, in + 2 * i);
        memset(out, 0, 2 * n * sizeof *out);
        CHECK(scan(in, out, (int)n, two, op, comm) == MPI_SUCCESS);
        for (size_t i = 0; upto && i < n; i++) { /* in_0 op in_1 op ... in rank order */
            in_rank_order(upto, i, k, want);
            CHECK(out[2 * i] == want[0] && out[2 * i + 1] == want[1]);
        }
    }
    free(in);
    free(out);
}

static void all_on(MPI_Comm comm, int small) {
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    MPI_Op op;
    MPI_Datatype two, strided;
    CHECK(MPI_Op_create(compose, 0, &op) == MPI_SUCCESS);
    CHECK(MPI_Type_contiguous(2, MPI_UNSIGNED, &two) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&two) == MPI_SUCCESS);
    CHECK(MPI_Type_vector(1, 1, 2, MPI_UNSIGNED, &strided) == MPI_SUCCESS);
    MPI_Datatype s2;
    CHECK(MPI_Type_create_resized(strided, 0, 2 * sizeof(unsigned), &s2) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&s2) == MPI_SUCCESS);
    /* a line (<= 56 bytes), a step, several steps (slots are 16 to 256 KiB; with 4
     * steps or more a rank reuses each half of the segment twice) */
    const size_t small_counts[] = {1, 14, 300, 5000};
    const size_t counts[] = {0, 1, 14, 15, 300, 4096, 5000, 70001, 270001};
    const size_t *c = small ? small_counts : counts;
    size_t nc = small ? 4 : 9;
    for (size_t j = 0; j < nc; j++) {
        CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
        bcasts(comm, c[j], s2);
        sums(comm, c[j]);
        same_bits(comm, c[j]);
        ordered(comm, c[j], op, two);
        scans(comm, c[j], op, two, s2);
        if (small) continue;
        blocks(comm, c[j] / 4);
        reduce_scatters(comm, c[j] / 8, op, two);
        alltoalls(comm, c[j] / 8, s2);
    }
    CHECK(MPI_Type_free(&two) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&strided) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&s2) == MPI_SUCCESS);
    CHECK(MPI_Op_free(&op) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int small = argc > 1 && !strcmp(argv[1], "small");
    all_on(MPI_COMM_WORLD, small);
    /* WORLD's ranks in another order, not contiguous: 3 r mod size when 3 does not
     * divide size, else reversed; and the odd ranks of that */
    MPI_Comm mixed, odd;
    int key = size % 3 ? (3 * rank) % size : size - 1 - rank;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, key, &mixed) == MPI_SUCCESS);
    all_on(mixed, small);
    CHECK(MPI_Comm_split(mixed, rank % 2, -rank, &odd) == MPI_SUCCESS);
    all_on(odd, small);
    CHECK(MPI_Comm_free(&odd) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&mixed) == MPI_SUCCESS);
    if (rank == 0) printf("coll_shm: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
