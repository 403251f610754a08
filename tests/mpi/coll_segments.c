/* Collectives on large non-contiguous buffers: the data is staged in bounded pieces,
 * never packed whole. The data are doubles at every other place of the buffers; the
 * results and the untouched gaps are checked, and so is the memory the calls took on
 * top of the buffers (the peak resident size).
 *
 * First the collectives of blocks (gather, scatter, allgather, alltoall and their v
 * forms) with blocks of BLOCK packed bytes, some ranks' sides contiguous and others
 * not: a non-contiguous block moves a staging chunk at a time, so the peak grows by
 * far less than one block. Then the collectives on one buffer with PACKED bytes (four
 * collective segments): the peak may grow by the staging copies of a few segments,
 * well under one packed copy of the send and the receive data. Blocking and
 * non-blocking calls. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "mpi_check.h"

enum { ITEM = 1000 };                            /* doubles of data per item of the type */
static const size_t PACKED = 32u << 20;          /* bytes of data per call */
static const long GROWTH_LIMIT = 40l << 10;      /* KiB: whole copies would take 64 MiB and more */
enum { BLOCK_ITEMS = 1024 };                     /* items of the type per block: 8 MB packed */
static const long BLOCK_GROWTH_LIMIT = 6l << 10; /* KiB: under one block */

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
    long before = peak_kib();
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

    long grown = peak_kib() - before;
    if (CHECK_MEMORY && grown >= BLOCK_GROWTH_LIMIT)
        fprintf(stderr, "rank %d: the collectives of blocks took %ld KiB beyond the buffers\n",
                rank, grown);
    CHECK(!CHECK_MEMORY || grown < BLOCK_GROWTH_LIMIT);
    free(a);
    free(b);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype t = strided();
    test_blocks(t);
    int count = (int)(PACKED / sizeof(double) / ITEM);
    size_t n = (size_t)count * ITEM; /* data doubles; the buffers hold twice as many */
    double *in = malloc(2 * n * sizeof *in), *out = malloc(2 * n * sizeof *out);
    CHECK(in && out);
    for (size_t i = 0; i < 2 * n; i++) {
        in[i] = value(rank, i);
        out[i] = -1.0;
    }
    long before = peak_kib();

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

    long grown = peak_kib() - before;
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
