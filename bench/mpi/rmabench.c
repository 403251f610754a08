/* rmabench: MPI one-sided communication (MPI-3.1 RMA) between two ranks.
 *
 * usage: rmabench TEST [--min SIZE] [--max SIZE] [--iters N] [--csv]
 *   SIZE is bytes, optionally with K or M (binary), at most 4M; sizes run from --min
 *   doubling up to --max. Rank 0 is the origin of every operation, rank 1 the target.
 *   Every window comes from MPI_Win_allocate (disp_unit 1; rank 0 exposes 0 bytes).
 *
 *   put-lat        MPI_Put, then MPI_Win_flush, inside one MPI_Win_lock(MPI_LOCK_SHARED)
 *                  epoch; the target waits in MPI_Barrier. Default 8 B.
 *   get-lat        the same with MPI_Get.
 *   put-fence-lat  MPI_Put, then MPI_Win_fence on both ranks (the target only fences);
 *                  the first fence asserts MPI_MODE_NOPRECEDE, the one after the timed
 *                  loop MPI_MODE_NOSUCCEED. Default 8 B.
 *   get-fence-lat  the same with MPI_Get.
 *   acc-lat        MPI_Accumulate of one int64 (MPI_INT64_T, MPI_SUM), then flush,
 *                  under lock. 8 B only.
 *   fop-lat        MPI_Fetch_and_op (MPI_INT64_T, MPI_SUM), then flush. 8 B only.
 *   cas-lat        MPI_Compare_and_swap (MPI_INT64_T), then flush. 8 B only.
 *     The latencies are us per operation including its completion (flush or fence):
 *     the median of 25 batch averages after a warm-up batch. --iters N (default 10000)
 *     operations per size up to 8 KiB, fewer above (N * 8K / SIZE, at least 100).
 *   put-bw         under one lock, windows of W puts of SIZE bytes to distinct places
 *                  of the target, each window completed by one MPI_Win_flush;
 *                  W = 64, fewer from 2 MiB (at most 64 MiB in flight). MB/s = 10^6
 *                  bytes/s, median of 9 repetitions. Default 1K..4M; --iters N (default
 *                  200) windows per repetition up to 8 KiB, N * 8K / SIZE (at least 2)
 *                  above.
 *   overlap        how much of a passive-target put hides behind computation, the
 *                  measurement of the EXTOLL thesis's §9.2 (after Santhanaraman et al.,
 *                  IPDPS 2008: synchronization, put, computation, synchronization). Under
 *                  one MPI_Win_lock(MPI_LOCK_SHARED) epoch the origin times, in us per
 *                  repetition:
 *                    t_comm  MPI_Put of SIZE bytes; MPI_Win_flush
 *                    t_comp  a compute loop calibrated to last about t_comm
 *                    t_both  MPI_Put; the same compute loop; MPI_Win_flush
 *                  overlap % = (t_comm + t_comp - t_both) / t_comm * 100: the share of
 *                  the transfer during which the origin could compute without taking
 *                  longer (100: fully hidden; 0: none, t_both = t_comm + t_comp;
 *                  below 0 when the two interleaved cost more than apart, and noise
 *                  moves it by several points either way). The target makes no MPI
 *                  call while the origin measures: each batch of repetitions sits
 *                  between two barriers, and between them the target computes for a
 *                  fixed time well beyond the batch's expected length (5 ms more
 *                  at least). A batch of puts that outlasts it completed only once
 *                  the target called MPI again: when most do (or the first 3 all do),
 *                  the MPI gives no passive-target progress to a computing target,
 *                  the times would measure the target's computation rather than the
 *                  transfer, and the size gets no figure (a "-" in the table, no CSV
 *                  line, a note on stderr); a few are noted on stderr. The three
 *                  times are medians of 9 batches of each kind, taken interleaved in
 *                  a rotating order (a batch of t_both does half the repetitions, so
 *                  that all last about as long). Default 1K..1M; --iters N (default
 *                  1000) repetitions per batch up to 8 KiB, N * 8K / SIZE (at least
 *                  10) above. The table shows the three times; --csv only the overlap.
 *   --csv prints lines "mpibench,<test>,<size>,<value>,<unit>" (unit us, MB/s or %):
 *   the format of mpibench and collbench, which bench/mpi/compare.sh collects.
 *
 * Every transfer is checked: put payloads carry a pattern that changes with each
 * operation and the target checks the last one at the end of each size; gets poison
 * their buffer before each call and check what arrived; accumulate, fetch-and-op and
 * compare-and-swap check the values returned and the final count. A wrong result aborts
 * the run. Uses only MPI-3.1 calls, so any MPI with one-sided communication builds it. */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_cli.h"
#define BENCH_NAME "rmabench"
#include "bench_check.h"

enum {
    BATCHES = 25,      /* latency: batches whose averages give the median */
    REPS = 9,          /* bandwidth: repetitions; overlap: batches of each kind */
    WINDOW = 64,       /* put-bw: puts per flush, as mpibench's window of sends */
    LARGE = 8192,      /* sizes above this get proportionally fewer iterations */
    TARGET_BYTE = 0x5a /* what get-lat and get-fence-lat read */
};
#define MAX_SIZE  ((size_t)4 << 20)
#define BW_REGION ((size_t)64 << 20) /* put-bw: the most bytes of one window of puts */

typedef enum {
    PUT_LAT,
    GET_LAT,
    PUT_FENCE,
    GET_FENCE,
    ACC_LAT,
    FOP_LAT,
    CAS_LAT,
    PUT_BW,
    OVERLAP
} kind_t;

struct test {
    const char *name, *unit, *what;
    size_t floor, ceiling, min, max; /* allowed sizes, default sizes */
    long iters, least;               /* default --iters, floor of the scaled count */
};

static const struct test tests[] = {
    [PUT_LAT] = {"put-lat", "us", "MPI_Put + MPI_Win_flush under MPI_Win_lock(SHARED)", 1, MAX_SIZE,
                 8, 8, 10000, 100},
    [GET_LAT] = {"get-lat", "us", "MPI_Get + MPI_Win_flush under MPI_Win_lock(SHARED)", 1, MAX_SIZE,
                 8, 8, 10000, 100},
    [PUT_FENCE] = {"put-fence-lat", "us", "MPI_Put + MPI_Win_fence", 1, MAX_SIZE, 8, 8, 10000, 100},
    [GET_FENCE] = {"get-fence-lat", "us", "MPI_Get + MPI_Win_fence", 1, MAX_SIZE, 8, 8, 10000, 100},
    [ACC_LAT] = {"acc-lat", "us", "MPI_Accumulate int64 MPI_SUM + MPI_Win_flush under lock", 8, 8,
                 8, 8, 10000, 100},
    [FOP_LAT] = {"fop-lat", "us", "MPI_Fetch_and_op int64 MPI_SUM + MPI_Win_flush under lock", 8, 8,
                 8, 8, 10000, 100},
    [CAS_LAT] = {"cas-lat", "us", "MPI_Compare_and_swap int64 + MPI_Win_flush under lock", 8, 8, 8,
                 8, 10000, 100},
    [PUT_BW] = {"put-bw", "MB/s",
                "windows of puts + MPI_Win_flush under lock, 10^6 bytes/s, median of 9 "
                "repetitions",
                1, MAX_SIZE, 1024, MAX_SIZE, 200, 2},
    [OVERLAP] = {"overlap", "%",
                 "passive-target put hidden behind computation, "
                 "(t_comm + t_comp - t_both) / t_comm, medians of 9 batches",
                 1, MAX_SIZE, 1024, (size_t)1 << 20, 1000, 10},
};
#define NTESTS (sizeof tests / sizeof tests[0])

static MPI_Win win;
static unsigned char *base; /* this rank's part of the window (rank 1's is the target) */
static unsigned char *buf;  /* the origin's buffer */
static long seq;            /* operations issued at this size: what the payloads carry */

static void usage(FILE *f) {
    if (rank != 0) return;
    fprintf(f, "usage: rmabench TEST [--min SIZE] [--max SIZE] [--iters N] [--csv]\n"
               "  TEST: put-lat get-lat put-fence-lat get-fence-lat acc-lat fop-lat cas-lat\n"
               "        put-bw overlap\n"
               "  SIZE in bytes, K or M suffix allowed (binary), 1 .. 4M (acc-lat, fop-lat,\n"
               "  cas-lat: 8); run with 2 ranks\n");
}

/* The byte put operation i carries; consecutive operations differ. */
static unsigned char pattern(long i) {
    return (unsigned char)(i * 37 + 11);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static long iters_for(const struct test *t, long iters, size_t size) {
    if (size <= LARGE) return iters;
    long n = (long)((double)iters * LARGE / (double)size);
    long floor = t->least < iters ? t->least : iters;
    return n > floor ? n : floor;
}

/* put-bw: puts per window at this size. */
static int window_for(size_t size) {
    size_t w = BW_REGION / size;
    return w < WINDOW ? (int)w : WINDOW;
}

/* The simulated computation of the overlap test: a chain of dependent floating-point
 * operations the compiler can neither drop nor shorten. */
static volatile double sink = 1.0;
static void compute(long n) {
    double x = sink;
    for (long i = 0; i < n; i++) x = x * 0.999999 + 1.0;
    sink = x;
}

/* Seconds from a clock that is not MPI's: the overlap test's target must make no MPI
 * call, MPI_Wtime included, while it computes. */
static double now(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The target sets up (init) or checks (!init) its part of the window for a test at this
 * size after `total` operations: put payloads in `slots` places SIZE bytes apart
 * (poisoned with the complement of the last pattern), the byte gets read, or the int64
 * counter the atomics add to. Done under a lock of its own window, so the accesses are
 * ordered with the origin's in every memory model. */
static void target_window(kind_t k, size_t size, int slots, long total, int init) {
    if (rank != 1) return;
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
    int64_t *counter = (int64_t *)(void *)base;
    unsigned char want = k == GET_LAT || k == GET_FENCE ? TARGET_BYTE : pattern(total - 1);
    switch (k) {
    case ACC_LAT:
    case FOP_LAT:
    case CAS_LAT:
        if (init)
            *counter = 0;
        else if (*counter != total)
            die("%s: the target's counter is %lld after %ld operations", tests[k].name,
                (long long)*counter, total);
        break;
    default:
        for (int s = 0; s < slots; s++) {
            unsigned char *p = base + (size_t)s * size;
            if (init)
                p[0] = p[size - 1] = k == GET_LAT || k == GET_FENCE ? want : (unsigned char)~want;
            else if (p[0] != want || p[size - 1] != want)
                die("%s of %zu B: the target holds 0x%02x..0x%02x at place %d, expected 0x%02x",
                    tests[k].name, size, p[0], p[size - 1], s, want);
        }
    }
    CHECK(MPI_Win_unlock(1, win));
}

/* One operation of a latency test on the origin, completed (flush or fence) and checked. */
static void one(kind_t k, size_t size) {
    int64_t add = 1, cmp = seq, next = seq + 1, got = -1;
    switch (k) {
    case PUT_LAT:
    case PUT_FENCE:
        buf[0] = buf[size - 1] = pattern(seq);
        CHECK(MPI_Put(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win));
        break;
    case GET_LAT:
    case GET_FENCE:
        buf[0] = buf[size - 1] = (unsigned char)~TARGET_BYTE;
        CHECK(MPI_Get(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win));
        break;
    case ACC_LAT:
        CHECK(MPI_Accumulate(&add, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, MPI_SUM, win));
        break;
    case FOP_LAT:
        CHECK(MPI_Fetch_and_op(&add, &got, MPI_INT64_T, 1, 0, MPI_SUM, win));
        break;
    case CAS_LAT:
        CHECK(MPI_Compare_and_swap(&next, &cmp, &got, MPI_INT64_T, 1, 0, win));
        break;
    default:
        break;
    }
    if (k == PUT_FENCE || k == GET_FENCE)
        CHECK(MPI_Win_fence(0, win));
    else
        CHECK(MPI_Win_flush(1, win));
    if ((k == GET_LAT || k == GET_FENCE) && (buf[0] != TARGET_BYTE || buf[size - 1] != TARGET_BYTE))
        die("%s of %zu B, operation %ld: read 0x%02x..0x%02x, expected 0x%02x", tests[k].name, size,
            seq, buf[0], buf[size - 1], TARGET_BYTE);
    if ((k == FOP_LAT || k == CAS_LAT) && got != seq)
        die("%s, operation %ld: fetched %lld, expected %ld", tests[k].name, seq, (long long)got,
            seq);
    seq++;
}

/* A latency test at one size: seconds per operation, the median of the batch averages
 * (rank 0). The target waits in MPI_Barrier (lock tests) or fences along. */
static double latency(kind_t k, size_t size, long iters) {
    int batches = iters < BATCHES ? (int)iters : BATCHES;
    long per = iters / batches, warm = per > 10 ? per : 10;
    int fence = k == PUT_FENCE || k == GET_FENCE;
    double avg[BATCHES];
    long total = warm + per * batches;
    seq = 0;
    target_window(k, size, 1, total, 1);
    if (fence)
        CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    else
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0 && !fence) CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
    for (int b = -1; b < batches; b++) {
        long n = b < 0 ? warm : per;
        double t0 = MPI_Wtime();
        for (long j = 0; j < n; j++) {
            if (rank == 0)
                one(k, size);
            else if (fence)
                CHECK(MPI_Win_fence(0, win));
        }
        if (b >= 0) avg[b] = (MPI_Wtime() - t0) / (double)n;
    }
    if (fence)
        CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    else {
        if (rank == 0) CHECK(MPI_Win_unlock(1, win));
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    target_window(k, size, 1, total, 0);
    return median(avg, batches);
}

/* put-bw at one size: the median over REPS of the seconds per window (rank 0). */
static double bandwidth(size_t size, long n) {
    int w = window_for(size);
    long warm = n / 10 > 2 ? n / 10 : 2;
    double per_window[REPS];
    seq = 0;
    target_window(PUT_BW, size, w, warm + REPS * n, 1);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        for (int r = -1; r < REPS; r++) {
            long count = r < 0 ? warm : n;
            double t0 = MPI_Wtime();
            for (long j = 0; j < count; j++, seq++) {
                buf[0] = buf[size - 1] = pattern(seq);
                for (int s = 0; s < w; s++)
                    CHECK(MPI_Put(buf, (int)size, MPI_BYTE, 1, (MPI_Aint)((size_t)s * size),
                                  (int)size, MPI_BYTE, win));
                CHECK(MPI_Win_flush(1, win));
            }
            if (r >= 0) per_window[r] = (MPI_Wtime() - t0) / (double)count;
        }
        CHECK(MPI_Win_unlock(1, win));
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    target_window(PUT_BW, size, w, warm + REPS * n, 0);
    return median(per_window, REPS);
}

enum { COMM, COMP, BOTH };

/* One batch of n overlap repetitions between two barriers: the origin times them, the
 * target computes for `d` seconds without calling MPI. Returns the seconds per repetition
 * (rank 0) and counts a batch of puts alone (COMM) that outlasted the target's
 * computation in *late. */
static double batch(int mode, size_t size, long n, long ncomp, double d, int *late) {
    double per = 0;
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        double t0 = MPI_Wtime();
        for (long j = 0; j < n; j++) {
            if (mode != COMP) {
                buf[0] = buf[size - 1] = pattern(seq++);
                CHECK(MPI_Put(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win));
            }
            if (mode != COMM) compute(ncomp);
            if (mode != COMP) CHECK(MPI_Win_flush(1, win));
        }
        double t = MPI_Wtime() - t0;
        if (mode == COMM && t > 0.8 * d) ++*late;
        per = t / (double)n;
    } else {
        double end = now() + d;
        while (now() < end) compute(200);
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    return per;
}

/* The overlap test at one size: t[COMM], t[COMP], t[BOTH] in seconds per repetition
 * (rank 0); returns how many of the REPS timed batches of puts were late, or -1 when the
 * first CALIB batches all were and nothing more was timed. `per_iter` is the seconds per
 * iteration of compute(), calibrated by rank 0. */
static int overlap(size_t size, long n, double per_iter, double t[3]) {
    enum { CALIB = 3 };
    double v[3][REPS], c[CALIB], d = 0, est = 0;
    long ncomp = 0;
    int late = 0;
    /* A batch of BOTH does half the repetitions, so that every batch lasts about as long
     * and a busy machine interrupts each kind as often. */
    long half = n / 2 > 0 ? n / 2 : 1;
    long total = n + CALIB * n + REPS * (n + half); /* puts: estimate, calibration, COMM, BOTH */
    seq = 0;
    target_window(OVERLAP, size, 1, total, 1);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
    /* A first estimate, the target waiting in MPI_Barrier: it sets the target's time. */
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        double t0 = MPI_Wtime();
        for (long j = 0; j < n; j++) {
            buf[0] = buf[size - 1] = pattern(seq++);
            CHECK(MPI_Put(buf, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win));
            CHECK(MPI_Win_flush(1, win));
        }
        est = (MPI_Wtime() - t0) / (double)n;
        d = 5e-3 + 8.0 * (double)n * est;
    }
    CHECK(MPI_Bcast(&d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    /* t_comm with the target computing, to calibrate the compute loop. */
    for (int b = 0; b < CALIB; b++) c[b] = batch(COMM, size, n, 0, d, &late);
    if (rank == 0) {
        double tc = median(c, CALIB);
        ncomp = (long)(tc / per_iter + 0.5);
        if (late == CALIB)
            d = -1; /* no passive-target progress: nothing to measure */
        else if (!late)
            d = 5e-3 + 8.0 * (double)n * tc; /* a BOTH batch takes about 2 n tc */
    }
    CHECK(MPI_Bcast(&d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    late = 0;
    if (d < 0) {
        late = -1;
        total = n + CALIB * n;
        for (int r = 0; r < REPS; r++) v[COMM][r] = v[COMP][r] = v[BOTH][r] = 0;
    } else
        /* The order rotates, lest a period in the machine's other load favour one kind. */
        for (int r = 0; r < REPS; r++)
            for (int j = 0; j < 3; j++) {
                int m = (r + j) % 3;
                v[m][r] = batch(m, size, m == BOTH ? half : n, ncomp, d, &late);
            }
    if (rank == 0) CHECK(MPI_Win_unlock(1, win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    target_window(OVERLAP, size, 1, total, 0);
    for (int m = COMM; m <= BOTH; m++) t[m] = median(v[m], REPS);
    return late;
}

/* Seconds per iteration of compute(): the least of a few timed runs. */
static double calibrate(void) {
    const long n = 200000;
    double best = 1e30;
    compute(n);
    for (int k = 0; k < 7; k++) {
        double t0 = MPI_Wtime();
        compute(n);
        double t = MPI_Wtime() - t0;
        if (t < best) best = t;
    }
    return best / (double)n;
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
    int k = bench_pick_test("rmabench", rank, argc, argv, tests, NTESTS, sizeof tests[0]);
    int csv = 0, bad = k < 0;
    const struct test *t = k < 0 ? NULL : &tests[k];
    size_t min = t ? t->min : 0, max = t ? t->max : 0;
    long iters = t ? t->iters : 0;
    if (!bad && bench_parse_options("rmabench", rank, argc, argv, t->floor, t->ceiling, &min, &max,
                                    &iters, &csv))
        bad = 1;
    if (!bad && bench_need_two_ranks("rmabench", rank, nranks)) bad = 1;
    if (bad) {
        usage(stderr);
        MPI_Finalize();
        return 2;
    }

    /* The target's part of the window: the largest size, or a window of puts. */
    size_t region = max;
    if (k == PUT_BW)
        for (size_t s = min; s <= max; s *= 2)
            if ((size_t)window_for(s) * s > region) region = (size_t)window_for(s) * s;
    CHECK(MPI_Win_allocate(rank == 1 ? (MPI_Aint)region : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                           &base, &win));
    buf = alloc(rank == 0 ? max : 1);
    double per_iter = 0;
    if (k == OVERLAP) {
        if (rank == 0) per_iter = calibrate();
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    if (rank == 0 && !csv) {
        printf("# rmabench %s: %s; window from MPI_Win_allocate, rank 0 origin, rank 1 "
               "target\n",
               t->name, t->what);
        if (k == OVERLAP)
            printf("# %10s %10s %10s %10s %9s\n", "size", "t_comm us", "t_comp us", "t_both us",
                   "overlap %");
        else
            printf("# %10s %14s  %s\n", "size", "value", "unit");
        fflush(stdout);
    }
    int stalled = 0; /* sizes with no passive-target progress at all */
    for (size_t size = min; size <= max; size *= 2) {
        long n = iters_for(t, iters, size);
        double v, tt[3] = {0, 0, 0};
        int late = 0;
        if (k == PUT_BW)
            v = (double)window_for(size) * (double)size / bandwidth(size, n) / 1e6;
        else if (k == OVERLAP) {
            late = overlap(size, n, per_iter, tt);
            v = tt[COMM] > 0 ? 100.0 * (tt[COMM] + tt[COMP] - tt[BOTH]) / tt[COMM] : 0;
        } else
            v = 1e6 * latency((kind_t)k, size, n);
        if (rank == 0) {
            const char *fmt = t->unit[0] == 'u' ? "%.3f" : "%.1f";
            char num[64];
            snprintf(num, sizeof num, fmt, v);
            int none = late < 0 || late > REPS / 2; /* no passive-target progress */
            if (late < 0) {                         /* said at the first such size, counted after */
                if (!stalled++)
                    fprintf(stderr,
                            "rmabench: overlap at %zu B: the first batches of puts all completed "
                            "only once the computing target called MPI again: no passive-target "
                            "progress, no figure\n",
                            size);
            } else if (late)
                fprintf(stderr,
                        "rmabench: overlap at %zu B: %d of %d batches of puts completed only "
                        "once the computing target called MPI again%s\n",
                        size, late, REPS, none ? ": no passive-target progress, no figure" : "");
            if (none) snprintf(num, sizeof num, "-");
            if (csv) {
                if (!none) printf("mpibench,%s,%zu,%s,%s\n", t->name, size, num, t->unit);
            } else if (k == OVERLAP && none)
                printf("  %10zu %10s %10s %10s %9s\n", size, "-", "-", "-", num);
            else if (k == OVERLAP)
                printf("  %10zu %10.3f %10.3f %10.3f %9s\n", size, 1e6 * tt[COMM], 1e6 * tt[COMP],
                       1e6 * tt[BOTH], num);
            else
                printf("  %10zu %14s  %s\n", size, num, t->unit);
            fflush(stdout);
        }
    }
    if (rank == 0 && stalled > 1)
        fprintf(stderr, "rmabench: overlap: the same at %d more sizes, no figures\n", stalled - 1);
    CHECK(MPI_Win_free(&win));
    free(buf);
    CHECK(MPI_Finalize());
    return 0;
}
