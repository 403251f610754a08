/* Collectives on large non-contiguous buffers: the data is staged in bounded pieces,
 * never packed whole. The data are doubles at every other place of the buffers; the
 * results and the untouched gaps are checked, and so is the memory the calls took on
 * top of the buffers (the peak resident size).
 *
 * First reduce-scatters of PACKED bytes in all, in place and not, blocking and not:
 * the peak may grow by the staging copies of a few quarter segments, well under the
 * packed copies of input and result. Then all-to-alls in place, whose blocks are
 * swapped in pieces: the peak grows by far less than one block. Then the
 * collectives of blocks (gather, scatter, allgather, alltoall and their v forms)
 * with blocks of BLOCK packed bytes, some ranks' sides contiguous and others not: a
 * non-contiguous block moves a staging chunk at a time, so the peak grows by far
 * less than one block; the same over an intercommunicator of two halves of the
 * ranks, and a reduce-scatter of PACKED bytes there. Then the collectives on one
 * buffer with PACKED bytes (four collective segments): the peak may grow by the
 * staging copies of a few segments, well under one packed copy of the send and the
 * receive data. Blocking and non-blocking calls. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mpi_check.h"

enum { ITEM = 1000 };                            /* doubles of data per item of the type */
static const size_t PACKED = 32u << 20;          /* bytes of data per call */
static const long GROWTH_LIMIT = 40l << 10;      /* KiB: whole copies would take 64 MiB and more */
enum { BLOCK_ITEMS = 1024 };                     /* items of the type per block: 8 MB packed */
static const long BLOCK_GROWTH_LIMIT = 6l << 10; /* KiB: under one block */
/* KiB: reduce-scatters, a few quarter segments; whole copies would take 64 MiB and more */
static const long SCATTER_GROWTH_LIMIT = 20l << 10;

/* AddressSanitizer keeps freed memory in quarantine, so the peak grows with every
 * staging copy ever made: there the data and gaps are checked, not the memory. */
#if defined(__SANITIZE_ADDRESS__)
enum { CHECK_MEMORY = 0 };
#else
enum { CHECK_MEMORY = 1 };
#endif

static long peak_kib(void) {
    struct rusage u;
    CHECK(getrusage(RUSAGE_SELF, &u) == 0);
    return u.ru_maxrss;
}

/* A section's memory is measured from the peak so far, which may exceed what is
 * resident when it starts (buffers freed, scratch given back): then growth would
 * hide under the peak. The difference is held resident in a balloon for the
 * section, so any growth in it raises the peak. Returns the peak at the start. */
static char *balloon;

static long resident_kib(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return peak_kib(); /* no balloon */
    CHECK(fscanf(f, "%ld %ld", &pages, &resident) == 2);
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static long section_start(void) {
    long gap = peak_kib() - resident_kib();
    if (gap > 0) {
        balloon = malloc((size_t)gap << 10);
        CHECK(balloon);
        memset(balloon, 1, (size_t)gap << 10);
    }
    return peak_kib();
}

/* The memory the section took beyond its start. */
static long section_growth(long start) {
    long grown = peak_kib() - start;
    free(balloon);
    balloon = NULL;
    return grown;
}

/* ITEM doubles at every other place; the next item follows the last gap. */
static MPI_Datatype strided(void) {
    MPI_Datatype v, r;
    CHECK(MPI_Type_vector(ITEM, 1, 2, MPI_DOUBLE, &v) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * ITEM * sizeof(double)), &r) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&v) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&r) == MPI_SUCCESS);
    return r;
}

static double value(int r, size_t i) {
    return (double)r * 1e9 + (double)i;
}

/* n data doubles of rank r at every other place of buf (from data index first), the
 * gaps -1; or the same packed, when dense. */
static void fill(double *buf, size_t n, int r, size_t first, int dense) {
    for (size_t i = 0; i < n; i++) {
        if (dense) {
            buf[i] = value(r, first + i);
        } else {
            buf[2 * i] = value(r, first + i);
            buf[2 * i + 1] = -1.0;
        }
    }
}

static void blank(double *buf, size_t words) {
    for (size_t i = 0; i < words; i++) buf[i] = -1.0;
}

static void check(const double *buf, size_t n, int r, size_t first, int dense) {
    for (size_t i = 0; i < n; i++) {
        if (dense) {
            CHECK(buf[i] == value(r, first + i));
        } else {
            CHECK(buf[2 * i] == value(r, first + i));
            CHECK(buf[2 * i + 1] == -1.0);
        }
    }
}

static void test_blocks(MPI_Datatype t) {
    size_t n = (size_t)BLOCK_ITEMS * ITEM; /* data doubles per block */
    size_t words = 2 * n * (size_t)size;   /* p blocks, strided */
    double *a = malloc(words * sizeof *a), *b = malloc(words * sizeof *b);
    CHECK(a && b);
    blank(a, words);
    blank(b, words);
    long before = section_start();
    int odd = rank % 2; /* odd ranks pass dense doubles where even ones pass t */
    MPI_Datatype mine = odd ? MPI_DOUBLE : t;
    int one = odd ? (int)n : BLOCK_ITEMS;
    size_t stride = odd ? n : 2 * n; /* doubles from one block to the next */

    /* Gather to rank 0, Scatter back from it */
    fill(a, n, rank, 0, odd);
    CHECK(MPI_Gather(a, one, mine, b, one, mine, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0)
        for (int r = 0; r < size; r++) check(b + (size_t)r * stride, n, r, 0, odd);
    blank(a, words);
    CHECK(MPI_Scatter(b, one, mine, a, one, mine, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    check(a, n, rank, 0, odd);

    /* Allgather, then Allgatherv with the blocks in reverse order */
    fill(a, n, rank, 0, odd);
    CHECK(MPI_Allgather(a, one, mine, b, one, mine, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int r = 0; r < size; r++) check(b + (size_t)r * stride, n, r, 0, odd);
    int counts[64], displs[64];
    for (int r = 0; r < size; r++) {
        counts[r] = one;
        displs[r] = (size - 1 - r) * one;
    }
    blank(b, words);
    CHECK(MPI_Allgatherv(a, one, mine, b, counts, displs, mine, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int r = 0; r < size; r++) check(b + (size_t)(size - 1 - r) * stride, n, r, 0, odd);

    /* Alltoall: block r of rank q holds data index r * n.. of rank q */
    for (int r = 0; r < size; r++) fill(a + (size_t)r * stride, n, rank, (size_t)r * n, odd);
    CHECK(MPI_Alltoall(a, one, mine, b, one, mine, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int r = 0; r < size; r++) check(b + (size_t)r * stride, n, r, (size_t)rank * n, odd);

    /* Gatherv and Scatterv at the last rank, blocks in reverse order */
    fill(a, n, rank, 0, odd);
    blank(b, words);
    CHECK(MPI_Gatherv(a, one, mine, b, counts, displs, mine, size - 1, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    if (rank == size - 1)
        for (int r = 0; r < size; r++) check(b + (size_t)(size - 1 - r) * stride, n, r, 0, odd);
    blank(a, words);
    MPI_Request req;
    CHECK(MPI_Iscatterv(b, counts, displs, mine, a, one, mine, size - 1, MPI_COMM_WORLD, &req) ==
          MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    check(a, n, rank, 0, odd);

    long grown = section_growth(before);
    if (CHECK_MEMORY && grown >= BLOCK_GROWTH_LIMIT)
        fprintf(stderr, "rank %d: the collectives of blocks took %ld KiB beyond the buffers\n",
                rank, grown);
    CHECK(!CHECK_MEMORY || grown < BLOCK_GROWTH_LIMIT);
    free(a);
    free(b);
}

/* The data doubles of packed item index i in a strided buffer: at 2 i. */
static double *data_at(double *buf, size_t i) {
    return buf + 2 * i;
}

/* Reduce_scatter(_block), blocking and not, in place and not, on count items of t in
 * all: in holds value(rank, i) at every place, the sums land at the data places of
 * out (in place: of in, which then also keeps its gaps). */
static void test_reduce_scatter(MPI_Datatype t, double *in, double *out, int count) {
    size_t words = 2 * (size_t)count * ITEM;
    double ranks = size * (size - 1) / 2.0;
    for (size_t i = 0; i < words; i++) in[i] = value(rank, i);
    blank(out, words);
    long before = section_start();

    /* Reduce_scatter_block (sum): rank r gets items [r * block, (r + 1) * block) */
    int block = count / size;
    size_t bn = (size_t)block * ITEM; /* data doubles per block */
    CHECK(MPI_Reduce_scatter_block(in, out, block, t, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (size_t d = 0; d < bn; d++) {
        size_t g = (size_t)rank * bn + d;
        CHECK(*data_at(out, d) == ranks * 1e9 + (double)size * (double)(2 * g));
        CHECK(out[2 * d + 1] == -1.0);
    }
    for (size_t w = 2 * bn; w < words; w++) CHECK(out[w] == -1.0);

    /* Ireduce_scatter (max) with uneven blocks: rank r gets r + 1 shares */
    int counts[64], first = 0, mine_first = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = (int)((long)count * 2 * (r + 1) / ((long)size * (size + 1)));
        if (r < rank) mine_first += counts[r];
        first += counts[r];
    }
    blank(out, words);
    MPI_Request req;
    CHECK(MPI_Ireduce_scatter(in, out, counts, t, MPI_MAX, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    size_t mn = (size_t)counts[rank] * ITEM;
    for (size_t d = 0; d < mn; d++) {
        size_t g = (size_t)mine_first * ITEM + d;
        CHECK(*data_at(out, d) == value(size - 1, 2 * g));
        CHECK(out[2 * d + 1] == -1.0);
    }
    for (size_t w = 2 * mn; w < words; w++) CHECK(out[w] == -1.0);

    /* in place: Reduce_scatter_block (sum), then Ireduce_scatter (sum), uneven */
    CHECK(MPI_Reduce_scatter_block(MPI_IN_PLACE, in, block, t, MPI_SUM, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    for (size_t d = 0; d < bn; d++) {
        size_t g = (size_t)rank * bn + d;
        CHECK(*data_at(in, d) == ranks * 1e9 + (double)size * (double)(2 * g));
        CHECK(in[2 * d + 1] == value(rank, 2 * d + 1));
    }
    for (size_t i = 0; i < words; i++) in[i] = value(rank, i);
    CHECK(MPI_Ireduce_scatter(MPI_IN_PLACE, in, counts, t, MPI_SUM, MPI_COMM_WORLD, &req) ==
          MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (size_t d = 0; d < mn; d++) {
        size_t g = (size_t)mine_first * ITEM + d;
        CHECK(*data_at(in, d) == ranks * 1e9 + (double)size * (double)(2 * g));
        CHECK(in[2 * d + 1] == value(rank, 2 * d + 1));
    }

    long grown = section_growth(before);
    if (CHECK_MEMORY && grown >= SCATTER_GROWTH_LIMIT)
        fprintf(stderr, "rank %d: the reduce-scatters took %ld KiB beyond the buffers\n", rank,
                grown);
    CHECK(!CHECK_MEMORY || grown < SCATTER_GROWTH_LIMIT);
}

/* Alltoall and Ialltoallv in place on count items of t in all: block r of rank q
 * holds data index r * bn.. of rank q, and ends with the data of rank r's block q. */
static void test_alltoall_in_place(MPI_Datatype t, double *buf, int count) {
    size_t words = 2 * (size_t)count * ITEM;
    int block = count / size;
    size_t bn = (size_t)block * ITEM;
    for (size_t d = 0; d < (size_t)size * bn; d++) {
        buf[2 * d] = value(rank, d);
        buf[2 * d + 1] = -1.0;
    }
    long before = section_start();
    CHECK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, block, t, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    for (int r = 0; r < size; r++) check(buf + 2 * (size_t)r * bn, bn, r, (size_t)rank * bn, 0);

    /* Ialltoallv: the block between q and r has 1 + (q + r) % 2 shares of half a block,
     * the blocks in reverse order */
    int counts[64], displs[64], at = 0;
    int half = block / 2;
    for (int r = size - 1; r >= 0; r--) {
        counts[r] = (1 + (rank + r) % 2) * half;
        displs[r] = at;
        at += counts[r];
    }
    CHECK((size_t)at * ITEM * 2 <= words);
    for (int r = 0; r < size; r++)
        fill(buf + 2 * (size_t)displs[r] * ITEM, (size_t)counts[r] * ITEM, rank,
             (size_t)r * 1000000, 0);
    MPI_Request req;
    CHECK(MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts, displs, t,
                         MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        check(buf + 2 * (size_t)displs[r] * ITEM, (size_t)counts[r] * ITEM, r,
              (size_t)rank * 1000000, 0);

    /* Alltoallw of dense doubles, small between rank 0 and any (whose calls then copy
     * their few bytes whole) and large between the others (which swap pieces) */
    MPI_Datatype types[64];
    int bytes_at = 0;
    for (int r = 0; r < size; r++) {
        types[r] = MPI_DOUBLE;
        counts[r] = rank && r ? (int)bn / size : 100;
        displs[r] = bytes_at;
        bytes_at += counts[r] * (int)sizeof(double);
        fill(buf + displs[r] / sizeof(double), (size_t)counts[r], rank, (size_t)r * 1000000, 1);
    }
    CHECK(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, displs, types,
                        MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        check(buf + displs[r] / sizeof(double), (size_t)counts[r], r, (size_t)rank * 1000000, 1);

    long grown = section_growth(before);
    if (CHECK_MEMORY && grown >= BLOCK_GROWTH_LIMIT)
        fprintf(stderr, "rank %d: the in-place all-to-alls took %ld KiB beyond the buffer\n", rank,
                grown);
    CHECK(!CHECK_MEMORY || grown < BLOCK_GROWTH_LIMIT);
}

/* Over an intercommunicator of the lower and the upper half of the ranks, blocks of
 * BLOCK_ITEMS items of t: Gatherv to the lower group's first rank (the blocks in
 * reverse order), Allgather and Ialltoall; the upper group's ranks pass dense doubles
 * to Allgather. */
static void test_intercomm(MPI_Datatype t, double *in, double *out, int count) {
    int low = rank < size / 2, lrank, rsize;
    MPI_Comm half, inter;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half) == MPI_SUCCESS);
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 7, &inter) ==
          MPI_SUCCESS);
    CHECK(MPI_Comm_rank(half, &lrank) == MPI_SUCCESS);
    CHECK(MPI_Comm_remote_size(inter, &rsize) == MPI_SUCCESS);
    size_t n = (size_t)BLOCK_ITEMS * ITEM;
    size_t words = 2 * n * (size_t)(rsize > 1 ? rsize : 1);
    double *a = malloc(words * sizeof *a), *b = malloc(words * sizeof *b);
    CHECK(a && b);
    blank(a, words);
    blank(b, words);
    long before = section_start();

    /* Gatherv of the upper group's blocks at the lower group's rank 0 */
    int counts[64], displs[64];
    for (int r = 0; r < rsize; r++) {
        counts[r] = BLOCK_ITEMS;
        displs[r] = (rsize - 1 - r) * BLOCK_ITEMS;
    }
    int root = low ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    if (!low) fill(a, n, lrank, 0, 0);
    CHECK(MPI_Gatherv(a, BLOCK_ITEMS, t, b, counts, displs, t, root, inter) == MPI_SUCCESS);
    if (root == MPI_ROOT)
        for (int r = 0; r < rsize; r++) check(b + 2 * (size_t)(rsize - 1 - r) * n, n, r, 0, 0);

    /* Allgather: every rank gets the remote group's blocks */
    int dense = !low;
    MPI_Datatype mine = dense ? MPI_DOUBLE : t;
    int one = dense ? (int)n : BLOCK_ITEMS;
    size_t stride = dense ? n : 2 * n;
    blank(a, words);
    blank(b, words);
    fill(a, n, lrank + (low ? 0 : 100), 0, dense);
    CHECK(MPI_Allgather(a, one, mine, b, one, mine, inter) == MPI_SUCCESS);
    for (int r = 0; r < rsize; r++) check(b + (size_t)r * stride, n, r + (low ? 100 : 0), 0, dense);

    /* Ialltoall: block r of local rank q holds data index r * n.. of q */
    blank(b, words);
    for (int r = 0; r < rsize; r++)
        fill(a + 2 * (size_t)r * n, n, lrank + (low ? 0 : 100), (size_t)r * n, 0);
    MPI_Request req;
    CHECK(MPI_Ialltoall(a, BLOCK_ITEMS, t, b, BLOCK_ITEMS, t, inter, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int r = 0; r < rsize; r++)
        check(b + 2 * (size_t)r * n, n, r + (low ? 100 : 0), (size_t)lrank * n, 0);

    long grown = section_growth(before);
    if (CHECK_MEMORY && grown >= BLOCK_GROWTH_LIMIT)
        fprintf(stderr,
                "rank %d: the intercommunicator collectives took %ld KiB beyond the buffers\n",
                rank, grown);
    CHECK(!CHECK_MEMORY || grown < BLOCK_GROWTH_LIMIT);
    free(a);
    free(b);

    /* Reduce_scatter (sum) of count items of t, the other group's sum over this one,
     * the last rank's block the largest */
    int lsize, first = 0, mine_first = 0;
    CHECK(MPI_Comm_size(half, &lsize) == MPI_SUCCESS);
    for (int r = 0; r < lsize; r++) {
        counts[r] = r < lsize - 1 ? count / (lsize + 1) : count - first;
        if (r < lrank) mine_first += counts[r];
        first += counts[r];
    }
    words = 2 * (size_t)count * ITEM;
    for (size_t i = 0; i < words; i++) in[i] = value(lrank + (low ? 0 : 100), i);
    blank(out, words);
    before = section_start();
    CHECK(MPI_Reduce_scatter(in, out, counts, t, MPI_SUM, inter) == MPI_SUCCESS);
    double ranks = rsize * (rsize - 1) / 2.0 + (low ? 100.0 * rsize : 0.0);
    size_t mn = (size_t)counts[lrank] * ITEM;
    for (size_t d = 0; d < mn; d++) {
        size_t g = (size_t)mine_first * ITEM + d;
        CHECK(out[2 * d] == ranks * 1e9 + (double)rsize * (double)(2 * g));
        CHECK(out[2 * d + 1] == -1.0);
    }
    for (size_t w = 2 * mn; w < words; w++) CHECK(out[w] == -1.0);
    grown = section_growth(before);
    if (CHECK_MEMORY && grown >= SCATTER_GROWTH_LIMIT)
        fprintf(stderr,
                "rank %d: the intercommunicator reduce-scatter took %ld KiB beyond the buffers\n",
                rank, grown);
    CHECK(!CHECK_MEMORY || grown < SCATTER_GROWTH_LIMIT);
    CHECK(MPI_Comm_free(&inter) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&half) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype t = strided();
    int count = (int)(PACKED / sizeof(double) / ITEM);
    size_t n = (size_t)count * ITEM; /* data doubles; the buffers hold twice as many */
    double *in = malloc(2 * n * sizeof *in), *out = malloc(2 * n * sizeof *out);
    CHECK(in && out);
    /* first, while the peak is that of the buffers */
    test_reduce_scatter(t, in, out, count);
    test_alltoall_in_place(t, out, count);
    test_blocks(t);
    if (size > 1) test_intercomm(t, in, out, count);
    for (size_t i = 0; i < 2 * n; i++) {
        in[i] = value(rank, i);
        out[i] = -1.0;
    }
    long before = section_start();

    /* Bcast from the last rank */
    for (size_t i = 0; i < 2 * n; i++) out[i] = rank == size - 1 ? value(size - 1, i) : -1.0;
    CHECK(MPI_Bcast(out, count, t, size - 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (size_t i = 0; i < n; i++) {
        CHECK(out[2 * i] == value(size - 1, 2 * i));
        CHECK(out[2 * i + 1] == (rank == size - 1 ? value(size - 1, 2 * i + 1) : -1.0));
    }

    /* Allreduce (sum) */
    for (size_t i = 0; i < 2 * n; i++) out[i] = -1.0;
    CHECK(MPI_Allreduce(in, out, count, t, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    double ranks = size * (size - 1) / 2.0;
    for (size_t i = 0; i < n; i++) {
        CHECK(out[2 * i] == ranks * 1e9 + (double)size * (double)(2 * i));
        CHECK(out[2 * i + 1] == -1.0);
    }

    /* Reduce (max) to rank 0, in place there */
    if (rank == 0) memcpy(out, in, 2 * n * sizeof *out);
    CHECK(MPI_Reduce(rank ? in : MPI_IN_PLACE, out, count, t, MPI_MAX, 0, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    if (rank == 0)
        for (size_t i = 0; i < n; i++) {
            CHECK(out[2 * i] == value(size - 1, 2 * i));
            CHECK(out[2 * i + 1] == value(0, 2 * i + 1));
        }

    /* Exscan (sum) */
    for (size_t i = 0; i < 2 * n; i++) out[i] = -1.0;
    CHECK(MPI_Exscan(in, out, count, t, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank)
        for (size_t i = 0; i < n; i++) {
            CHECK(out[2 * i] == rank * (rank - 1) / 2.0 * 1e9 + (double)rank * (double)(2 * i));
            CHECK(out[2 * i + 1] == -1.0);
        }

    /* Iallreduce (min), overlapped with an Ibcast of contiguous data */
    for (size_t i = 0; i < 2 * n; i++) out[i] = -1.0;
    int word = rank == 0 ? 42 : -1;
    MPI_Request r[2];
    CHECK(MPI_Iallreduce(in, out, count, t, MPI_MIN, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS);
    CHECK(MPI_Ibcast(&word, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    CHECK(word == 42);
    for (size_t i = 0; i < n; i++) {
        CHECK(out[2 * i] == value(0, 2 * i));
        CHECK(out[2 * i + 1] == -1.0);
    }

    long grown = section_growth(before);
    if (CHECK_MEMORY && grown >= GROWTH_LIMIT)
        fprintf(stderr, "rank %d: the collectives took %ld KiB of memory beyond the buffers\n",
                rank, grown);
    CHECK(!CHECK_MEMORY || grown < GROWTH_LIMIT);
    CHECK(MPI_Type_free(&t) == MPI_SUCCESS);
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
