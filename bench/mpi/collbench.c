/* collbench: the time of MPI collectives, as the OSU collective benchmarks measure it.
 *
 * usage: collbench barrier|bcast|reduce|allreduce|gather|scatter|allgather|alltoall|
 *                  reduce_scatter|scan|exscan [--min SIZE] [--max SIZE] [--iters N] [--csv]
 *   SIZE is bytes, optionally with K or M (binary), at most 4M; sizes run from --min
 *   doubling up to --max (default 8 .. 1M; barrier has the one size 0).
 *   barrier    MPI_Barrier
 *   bcast      MPI_Bcast of SIZE bytes from rank 0
 *   reduce     MPI_Reduce to rank 0, MPI_SUM of SIZE / 8 doubles
 *   allreduce  MPI_Allreduce, MPI_SUM of SIZE / 8 doubles
 *   gather     MPI_Gather to rank 0 of SIZE bytes from each rank
 *   scatter    MPI_Scatter from rank 0 of SIZE bytes to each rank
 *   allgather  MPI_Allgather of SIZE bytes from each rank
 *   alltoall   MPI_Alltoall of SIZE bytes to each rank
 *   reduce_scatter  MPI_Reduce_scatter_block, MPI_SUM of SIZE / 8 doubles per rank
 *   scan       MPI_Scan, MPI_SUM of SIZE / 8 doubles
 *   exscan     MPI_Exscan, MPI_SUM of SIZE / 8 doubles
 *   Each call is timed on its own and followed by an untimed MPI_Barrier (as OSU does,
 *   so a root that returns early does not run ahead into the next call). A batch's
 *   figure is the mean time per call averaged over the ranks; the value printed is the
 *   median of 25 batches, in us, so a burst of noise spoils one batch, not the figure.
 *   --iters N (default 10000) applies up to 8 KiB; larger sizes get N * 8K / SIZE, at
 *   least 100.
 *   --csv prints lines "mpibench,<test>,<size>,<value>,us" (the format of mpibench).
 *
 * Every result is checked against what the call must produce, from a pattern that
 * changes each iteration: a wrong or stale result aborts the run. Any number of ranks. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cli.h"
#define BENCH_NAME "collbench"
#include "bench_check.h"

enum { BATCHES = 25, LARGE = 8192, FLOOR = 100 };
#define MAX_SIZE ((size_t)4 << 20)

typedef enum {
    BARRIER,
    BCAST,
    REDUCE,
    ALLREDUCE,
    GATHER,
    SCATTER,
    ALLGATHER,
    ALLTOALL,
    REDUCE_SCATTER,
    SCAN,
    EXSCAN
} test_t;
static const char *const names[] = {"barrier",        "bcast",   "reduce",    "allreduce",
                                    "gather",         "scatter", "allgather", "alltoall",
                                    "reduce_scatter", "scan",    "exscan"};

static int nranks;

static void usage(FILE *f) {
    if (rank != 0) return;
    fprintf(f, "usage: collbench barrier|bcast|reduce|allreduce|gather|scatter|allgather|"
               "alltoall|reduce_scatter|scan|exscan [--min SIZE] [--max SIZE] [--iters N] [--csv]\n"
               "  SIZE in bytes, K or M suffix allowed (binary), 8 .. 4M\n");
}

/* The byte rank r contributes in iteration i (bcast, allgather, alltoall: to peer p). */
static unsigned char pattern(long i, int r, int p) {
    return (unsigned char)(i * 37 + r * 11 + p * 5 + 1);
}

/* One call of the test in iteration i, with its inputs set and its result checked. */
static void one(test_t t, size_t size, long i, unsigned char *sbuf, unsigned char *rbuf,
                double *elapsed) {
    size_t n = size / 8;
    double *sd = (double *)sbuf, *rd = (double *)rbuf;
    switch (t) {
    case BCAST:
        if (rank == 0) sbuf[0] = sbuf[size - 1] = pattern(i, 0, 0);
        break;
    case REDUCE:
    case ALLREDUCE:
    case SCAN:
    case EXSCAN:
        sd[0] = sd[n - 1] = (double)(i % 1000 + rank);
        break;
    case GATHER:
    case ALLGATHER:
        sbuf[0] = sbuf[size - 1] = pattern(i, rank, 0);
        break;
    case SCATTER:
        for (int p = 0; rank == 0 && p < nranks; p++)
            sbuf[(size_t)p * size] = sbuf[(size_t)p * size + size - 1] = pattern(i, 0, p);
        break;
    case REDUCE_SCATTER:
        for (int p = 0; p < nranks; p++)
            sd[(size_t)p * n] = sd[(size_t)p * n + n - 1] = (double)(i % 1000 + rank + p);
        break;
    case ALLTOALL:
        for (int p = 0; p < nranks; p++)
            sbuf[(size_t)p * size] = sbuf[(size_t)p * size + size - 1] = pattern(i, rank, p);
        break;
    default:
        break;
    }
    double t0 = MPI_Wtime();
    switch (t) {
    case BARRIER:
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        break;
    case BCAST:
        CHECK(MPI_Bcast(sbuf, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD));
        break;
    case REDUCE:
        CHECK(MPI_Reduce(sbuf, rbuf, (int)n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
        break;
    case ALLREDUCE:
        CHECK(MPI_Allreduce(sbuf, rbuf, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        break;
    case GATHER:
        CHECK(MPI_Gather(sbuf, (int)size, MPI_BYTE, rbuf, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD));
        break;
    case SCATTER:
        CHECK(MPI_Scatter(sbuf, (int)size, MPI_BYTE, rbuf, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD));
        break;
    case REDUCE_SCATTER:
        CHECK(MPI_Reduce_scatter_block(sbuf, rbuf, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        break;
    case SCAN:
        CHECK(MPI_Scan(sbuf, rbuf, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        break;
    case EXSCAN:
        CHECK(MPI_Exscan(sbuf, rbuf, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        break;
    case ALLGATHER:
        CHECK(MPI_Allgather(sbuf, (int)size, MPI_BYTE, rbuf, (int)size, MPI_BYTE, MPI_COMM_WORLD));
        break;
    case ALLTOALL:
        CHECK(MPI_Alltoall(sbuf, (int)size, MPI_BYTE, rbuf, (int)size, MPI_BYTE, MPI_COMM_WORLD));
        break;
    }
    *elapsed += MPI_Wtime() - t0;
    if (t != BARRIER) CHECK(MPI_Barrier(MPI_COMM_WORLD));
    switch (t) {
    case BCAST:
        if (sbuf[0] != pattern(i, 0, 0) || sbuf[size - 1] != pattern(i, 0, 0))
            die("bcast of %zu B, iteration %ld: wrong data", size, i);
        break;
    case REDUCE:
    case ALLREDUCE: {
        double want = (double)nranks * (double)(i % 1000) + (double)nranks * (nranks - 1) / 2;
        if ((t == ALLREDUCE || rank == 0) && (rd[0] != want || rd[n - 1] != want))
            die("%s of %zu B, iteration %ld: %g, expected %g", names[t], size, i, rd[0], want);
        break;
    }
    case REDUCE_SCATTER: {
        double want =
            (double)nranks * (double)(i % 1000 + rank) + (double)nranks * (nranks - 1) / 2;
        if (rd[0] != want || rd[n - 1] != want)
            die("reduce_scatter of %zu B, iteration %ld: %g, expected %g", size, i, rd[0], want);
        break;
    }
    case SCAN:
    case EXSCAN: { /* ranks 0 to r (r - 1) */
        int upto = t == SCAN ? rank + 1 : rank;
        double want = (double)upto * (double)(i % 1000) + (double)upto * (upto - 1) / 2;
        if (upto && (rd[0] != want || rd[n - 1] != want))
            die("%s of %zu B, iteration %ld: %g, expected %g", names[t], size, i, rd[0], want);
        break;
    }
    case SCATTER:
        if (rbuf[0] != pattern(i, 0, rank) || rbuf[size - 1] != pattern(i, 0, rank))
            die("scatter of %zu B, iteration %ld: wrong data", size, i);
        break;
    case GATHER:
        if (rank != 0) break;
        /* fall through */
    case ALLGATHER:
    case ALLTOALL:
        for (int p = 0; p < nranks; p++) {
            unsigned char want = pattern(i, p, t == ALLTOALL ? rank : 0);
            const unsigned char *b = rbuf + (size_t)p * size;
            if (b[0] != want || b[size - 1] != want)
                die("%s of %zu B, iteration %ld: wrong data from rank %d", names[t], size, i, p);
        }
        break;
    default:
        break;
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median over BATCHES of the mean time per call, averaged over the ranks (us). */
static double measure(test_t t, size_t size, long iters, unsigned char *sbuf, unsigned char *rbuf) {
    double batch[BATCHES];
    long per = iters / BATCHES > 1 ? iters / BATCHES : 2, i = 0;
    double ignored = 0;
    for (long k = 0; k < per; k++, i++) one(t, size, i, sbuf, rbuf, &ignored); /* warm-up */
    for (int b = 0; b < BATCHES; b++) {
        double mine = 0, sum = 0;
        for (long k = 0; k < per; k++, i++) one(t, size, i, sbuf, rbuf, &mine);
        mine /= (double)per;
        CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        batch[b] = 1e6 * sum / nranks;
    }
    qsort(batch, BATCHES, sizeof *batch, cmp_double);
    return batch[BATCHES / 2];
}

int main(int argc, char **argv) {
    CHECK(MPI_Init(&argc, &argv));
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
    if (bench_wants_help(argc, argv)) {
        usage(stdout);
        MPI_Finalize();
        return 0;
    }
    int t = bench_pick_test("collbench", rank, argc, argv, names, sizeof names / sizeof names[0],
                            sizeof names[0]);
    int csv = 0, bad = t < 0;
    size_t min = 8, max = (size_t)1 << 20;
    long iters = 10000;
    if (!bad &&
        bench_parse_options("collbench", rank, argc, argv, 8, MAX_SIZE, &min, &max, &iters, &csv))
        bad = 1;
    if (bad) {
        usage(stderr);
        MPI_Finalize();
        return 2;
    }
    if (t == BARRIER) min = max = 0;
    size_t many = (size_t)nranks;
    int sends_many = t == ALLTOALL || t == SCATTER || t == REDUCE_SCATTER;
    int receives_many = t == ALLGATHER || t == ALLTOALL || t == GATHER;
    unsigned char *sbuf = alloc(max * (sends_many ? many : 1));
    unsigned char *rbuf = alloc(max * (receives_many ? many : 1));
    if (rank == 0 && !csv) {
        printf("# collbench %s on %d ranks: us per call, median of %d batches\n# %10s %14s\n",
               names[t], nranks, BATCHES, "size", "us");
        fflush(stdout);
    }
    for (size_t size = min;; size *= 2) {
        long n = size <= LARGE ? iters : (long)((double)iters * LARGE / (double)size);
        if (n < FLOOR) n = FLOOR < iters ? FLOOR : iters;
        double v = measure((test_t)t, size, n, sbuf, rbuf);
        if (rank == 0) {
            if (csv)
                printf("mpibench,%s,%zu,%.3f,us\n", names[t], size, v);
            else
                printf("  %10zu %14.3f\n", size, v);
            fflush(stdout);
        }
        if (size == 0 || size * 2 > max) break;
    }
    free(sbuf);
    free(rbuf);
    CHECK(MPI_Finalize());
    return 0;
}
