/* mpibench: point-to-point latency, bandwidth and message rate between two MPI ranks.
 *
 * usage: mpibench latency|bandwidth|rate|strided [--min SIZE] [--max SIZE] [--iters N] [--csv]
 *                [--recv-offset N]
 *   SIZE is bytes, optionally with K or M (binary: 4M = 4194304), at most 4M; sizes run
 *   from --min doubling up to --max.
 *   latency    ping-pong, half round trip in us; the median of 25 batch averages, so a
 *              burst of noise on a shared machine spoils one batch, not the figure.
 *              Default 1..4M, 10000 round trips per size.
 *   bandwidth  rank 0 posts a window of 64 Isends, rank 1 answers with a 4-byte ack once
 *              its 64 Irecvs are complete (as OSU osu_bw); MB/s = 10^6 bytes/s, median
 *              of 9 repetitions. Default 1K..4M, 200 windows per repetition.
 *   rate       the same windows at 8 B, messages/s, median of 9 repetitions; default
 *              5000 windows per repetition.
 *   strided    the latency ping-pong with a derived datatype on both sides: SIZE bytes
 *              as a vector of SIZE/8 doubles, every other one (a halo's column), from
 *              and into buffers twice as long; what packing and unpacking cost. Default
 *              64..1M (SIZE at least 8).
 *   --iters N applies up to 8 KiB; larger sizes get N * 8K / SIZE (with a floor), so the
 *   time per size stays roughly flat instead of growing with the size.
 *   --csv prints lines "mpibench,<test>,<size>,<value>,<unit>" (unit us, MB/s, msg/s).
 *   --recv-offset N (0..4095, default 0): the receive buffers start N bytes past a page,
 *   the send buffers at one, as a program's malloc'd buffers (16 bytes past a page) do
 *   against page-aligned ones; some CPUs copy several times slower at a destination 1 to
 *   63 bytes past its source's place in a page.
 *
 * Only MPI-3.1 point-to-point basics are used (Init, Finalize, Comm_rank/size, Send,
 * Recv, Isend, Irecv, Waitall, Barrier, Wtime, Abort, and for strided Type_vector,
 * Type_commit, Type_free), so a young MPI can run it.
 * The window's 64 receives go to distinct buffers, as MPI requires of outstanding
 * receives (OSU reuses one): large windows then stream through memory, not cache,
 * which lowers absolute figures at large sizes alike for every MPI.
 * The first and last byte of every received payload, and every ack, are checked against
 * a pattern that changes each iteration: a broken or stale delivery aborts the run. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cli.h"
#define BENCH_NAME "mpibench"
#include "bench_check.h"

enum {
    WINDOW = 64,  /* non-blocking sends in flight, as OSU */
    BATCHES = 25, /* latency: batches whose averages give the median */
    REPS = 9,     /* bandwidth and rate: timed repetitions */
    LARGE = 8192, /* sizes above this get proportionally fewer iterations */
    TAG_DATA = 1,
    TAG_ACK = 2,
};
#define MAX_SIZE ((size_t)4 << 20)

struct test {
    const char *name, *unit, *what;
    size_t min, max;
    long iters, floor;
};

static const struct test tests[] = {
    {"latency", "us", "half round trip, median of 25 batch averages", 1, MAX_SIZE, 10000, 100},
    {"bandwidth", "MB/s", "window of 64, 10^6 bytes/s, median of 9 repetitions", 1024, MAX_SIZE,
     200, 1},
    {"rate", "msg/s", "window of 64, messages/s, median of 9 repetitions", 8, 8, 5000, 1},
    {"strided", "us", "vector of doubles, every other one, half round trip, median of 25", 64,
     (size_t)1 << 20, 10000, 100},
};
#define STRIDED (&tests[3])

static void usage(FILE *f) {
    if (rank != 0) return;
    fprintf(f, "usage: mpibench latency|bandwidth|rate|strided [--min SIZE] [--max SIZE] "
               "[--iters N] "
               "[--csv] [--recv-offset N]\n"
               "  SIZE in bytes, K or M suffix allowed (binary), 1 .. 4M; run with 2 ranks\n");
}

/* The byte both ends expect in iteration i; consecutive iterations differ, so a payload
 * left over from the previous one is caught. */
static unsigned char pattern(long i) {
    return (unsigned char)(i * 37 + 11);
}

static void expect(const unsigned char *buf, size_t size, long i, const char *what) {
    unsigned char want = pattern(i);
    if (buf[0] != want)
        die("%s payload of %zu B, iteration %ld: first byte 0x%02x, expected 0x%02x", what, size, i,
            buf[0], want);
    if (buf[size - 1] != want)
        die("%s payload of %zu B, iteration %ld: last byte 0x%02x, expected 0x%02x", what, size, i,
            buf[size - 1], want);
}

/* Receive buffers start each size holding a value iteration 0 does not send. */
static void poison(unsigned char *buf, size_t size) {
    buf[0] = buf[size - 1] = ~pattern(0);
}

static long iters_for(const struct test *t, long iters, size_t size) {
    if (size <= LARGE) return iters;
    long n = (long)((double)iters * LARGE / (double)size);
    long floor = t->floor < iters ? t->floor : iters;
    return n > floor ? n : floor;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Ping-pong: rank 1 echoes what it received, count items of type (size bytes of data,
 * the last of them at buf[last]). Iteration numbers continue from the warm-up into the
 * timed batches so that every payload differs from the previous one. Returns the half
 * round trip in seconds (rank 0). */
static double latency(unsigned char *sbuf, unsigned char *rbuf, size_t size, MPI_Datatype type,
                      int count, size_t last, long iters) {
    int batches = iters < BATCHES ? (int)iters : BATCHES;
    long per = iters / batches, warm = per > 10 ? per : 10, i = 0;
    double avg[BATCHES];
    poison(rbuf, last + 1);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    for (int b = -1; b < batches; b++) {
        long n = b < 0 ? warm : per;
        double t0 = MPI_Wtime();
        for (long k = 0; k < n; k++, i++) {
            if (rank == 0) {
                sbuf[0] = sbuf[last] = pattern(i);
                CHECK(MPI_Send(sbuf, count, type, 1, TAG_DATA, MPI_COMM_WORLD));
                CHECK(MPI_Recv(rbuf, count, type, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                expect(rbuf, last + 1, i, "echoed");
            } else {
                CHECK(MPI_Recv(rbuf, count, type, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                expect(rbuf, last + 1, i, "ping");
                CHECK(MPI_Send(rbuf, count, type, 0, TAG_DATA, MPI_COMM_WORLD));
            }
        }
        if (b >= 0) avg[b] = (MPI_Wtime() - t0) / (2.0 * (double)n);
    }
    return median(avg, batches);
}

/* Windows of WINDOW messages: rank 0 sends them all from one buffer (allowed since
 * MPI-3), rank 1 receives them into distinct slots, then acks with the window number.
 * Returns the median over REPS of the seconds per window (rank 0). */
static double windows(unsigned char *sbuf, unsigned char *slots, size_t size, long n) {
    MPI_Request req[WINDOW];
    MPI_Status st[WINDOW]; /* MPI_STATUSES_IGNORE trips gcc's -Wstringop-overflow on MPICH */
    double per_window[REPS];
    long warm = n / 10 > 2 ? n / 10 : 2, w = 0;
    if (rank == 1)
        for (int k = 0; k < WINDOW; k++) poison(slots + (size_t)k * size, size);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    for (int r = -1; r < REPS; r++) {
        long count = r < 0 ? warm : n;
        double t0 = MPI_Wtime();
        for (long j = 0; j < count; j++, w++) {
            int ack;
            if (rank == 0) {
                sbuf[0] = sbuf[size - 1] = pattern(w);
                for (int k = 0; k < WINDOW; k++)
                    CHECK(
                        MPI_Isend(sbuf, (int)size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &req[k]));
                CHECK(MPI_Waitall(WINDOW, req, st));
                CHECK(MPI_Recv(&ack, 1, MPI_INT, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                if (ack != (int)w) die("ack %d, expected %ld", ack, w);
            } else {
                for (int k = 0; k < WINDOW; k++)
                    CHECK(MPI_Irecv(slots + (size_t)k * size, (int)size, MPI_BYTE, 0, TAG_DATA,
                                    MPI_COMM_WORLD, &req[k]));
                CHECK(MPI_Waitall(WINDOW, req, st));
                for (int k = 0; k < WINDOW; k++)
                    expect(slots + (size_t)k * size, size, w, "window");
                ack = (int)w;
                CHECK(MPI_Send(&ack, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD));
            }
        }
        if (r >= 0) per_window[r] = (MPI_Wtime() - t0) / (double)count;
    }
    return median(per_window, REPS);
}

int main(int argc, char **argv) {
    int nranks;
    CHECK(MPI_Init(&argc, &argv));
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));

    /* Every rank parses the same arguments and so reaches the same verdict. */
    if (bench_wants_help(argc, argv)) {
        usage(stdout);
        MPI_Finalize();
        return 0;
    }
    /* --recv-offset is mpibench's own: taken out before the options every bench shares */
    long recv_offset = 0;
    int offset_bad = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--recv-offset")) continue;
        char *end = NULL;
        recv_offset = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : -1;
        if (!end || *end || recv_offset < 0 || recv_offset > 4095) {
            if (rank == 0) fprintf(stderr, "mpibench: --recv-offset takes 0 .. 4095\n");
            offset_bad = 1;
        }
        int gone = i + 1 < argc ? 2 : 1;
        for (int j = i; j + gone <= argc; j++) argv[j] = argv[j + gone];
        argc -= gone;
        break;
    }
    int k = bench_pick_test("mpibench", rank, argc, argv, tests, sizeof tests / sizeof tests[0],
                            sizeof tests[0]);
    const struct test *t = k < 0 ? NULL : &tests[k];
    int csv = 0, bad = !t || offset_bad;
    size_t min = t ? t->min : 0, max = t ? t->max : 0;
    long iters = t ? t->iters : 0;
    if (!bad &&
        bench_parse_options("mpibench", rank, argc, argv, 1, MAX_SIZE, &min, &max, &iters, &csv))
        bad = 1;
    if (!bad && t == STRIDED && min < 8) {
        if (rank == 0) fprintf(stderr, "mpibench: strided needs --min of at least 8 (a double)\n");
        bad = 1;
    }
    if (!bad && bench_need_two_ranks("mpibench", rank, nranks)) bad = 1;
    if (bad) {
        usage(stderr);
        MPI_Finalize();
        return 2;
    }

    int lat = t == &tests[0], strided = t == STRIDED;
    unsigned char *sbuf = alloc(strided ? 2 * max : max);
    /* the receive buffer recv_offset bytes past a page (its base freed at the end) */
    size_t rbytes = strided ? 2 * max : lat ? max : (rank == 1 ? WINDOW * max : 1);
    unsigned char *rbase = alloc(rbytes + 4096), *rbuf = rbase + recv_offset;
    if (rank == 0 && !csv) {
        printf("# mpibench %s: %s\n# %10s %14s  %s\n", t->name, t->what, "size", "value", "unit");
        fflush(stdout);
    }
    for (size_t size = min; size <= max; size *= 2) {
        long n = iters_for(t, iters, size);
        double v;
        if (lat)
            v = 1e6 * latency(sbuf, rbuf, size, MPI_BYTE, (int)size, size - 1, n);
        else if (strided) {
            MPI_Datatype column;
            int doubles = (int)(size / 8);
            CHECK(MPI_Type_vector(doubles, 1, 2, MPI_DOUBLE, &column));
            CHECK(MPI_Type_commit(&column));
            v = 1e6 * latency(sbuf, rbuf, size, column, 1, 16 * (size_t)(doubles - 1) + 7, n);
            CHECK(MPI_Type_free(&column));
        } else {
            double s = windows(sbuf, rbuf, size, n);
            v = t == &tests[1] ? (double)WINDOW * (double)size / s / 1e6 : WINDOW / s;
        }
        if (rank == 0) {
            const char *fmt = lat || strided ? "%.3f" : t == &tests[1] ? "%.1f" : "%.0f";
            char num[64];
            snprintf(num, sizeof num, fmt, v);
            if (csv)
                printf("mpibench,%s,%zu,%s,%s\n", t->name, size, num, t->unit);
            else
                printf("  %10zu %14s  %s\n", size, num, t->unit);
            fflush(stdout);
        }
    }
    free(sbuf);
    free(rbase);
    CHECK(MPI_Finalize());
    return 0;
}
