/* pcollbench: what a persistent collective saves over the blocking call, in any MPI
 * that has the MPI-4 persistent collectives (builds with any mpicc; one without
 * them, by MPI_VERSION < 4, is told so and the program exits 3 — Open MPI 5
 * declares them while it still reports MPI 3.1, so its mpi.h is recognised by name,
 * as Tollway's is).
 *
 * usage: pcollbench [--iters N] [--rounds R] [TEST...]
 *   TEST: allreduce (8 B: one double, MPI_SUM), bcast (8 B from rank 0), barrier;
 *   default all three. Each test times N calls of the blocking form and N
 *   MPI_Start + MPI_Wait of the persistent form (its _init made once, before), after a
 *   warm-up of each, alternating the two forms R times (default 5) so that drift on a
 *   shared machine hits both alike. Prints per round and form one CSV line
 *   "pcoll,<test>,<form>,<round>,<us per call>" (form: blocking or persistent; the
 *   mean over the ranks of the time per call) and at the end, per test, the median
 *   of each form and their ratio: "pcoll-median,<test>,<blocking>,<persistent>,<ratio>".
 * Every result is checked (an error names the call and ends the run with status 1). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(TOLLWAY_MPI_H) && !(defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5) &&        \
    (!defined(MPI_VERSION) || MPI_VERSION < 4)
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!rank)
        fprintf(stderr, "pcollbench: this MPI (MPI_VERSION < 4) has no persistent collectives\n");
    MPI_Finalize();
    return 3;
}
#else

enum { MAX_ROUNDS = 64 };
static int rank, size;

static void check(int ok, const char *what) {
    if (ok) return;
    fprintf(stderr, "pcollbench: rank %d: %s failed\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static double in, out;

/* One call of the blocking form (persistent 0) or a start and wait of r. */
static void once(const char *test, int persistent, MPI_Request *r) {
    if (persistent) {
        check(MPI_Start(r) == MPI_SUCCESS, "MPI_Start");
        check(MPI_Wait(r, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait");
    } else if (!strcmp(test, "allreduce")) {
        check(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
              "MPI_Allreduce");
    } else if (!strcmp(test, "bcast")) {
        check(MPI_Bcast(&in, 8, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Bcast");
    } else {
        check(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Barrier");
    }
}

/* The mean over the ranks of the time per call of n calls, in us. */
static double timed(const char *test, int persistent, MPI_Request *r, long n) {
    for (long i = 0; i < n / 10 + 10; i++) once(test, persistent, r); /* warm-up */
    check(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Barrier");
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) once(test, persistent, r);
    double mine = (MPI_Wtime() - t0) / (double)n * 1e6, all = 0;
    check(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
          "MPI_Allreduce of the times");
    return all / size;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void run(const char *test, long n, int rounds) {
    MPI_Request r = MPI_REQUEST_NULL;
    int rc;
    if (!strcmp(test, "allreduce"))
        rc = MPI_Allreduce_init(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &r);
    else if (!strcmp(test, "bcast"))
        rc = MPI_Bcast_init(&in, 8, MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    else
        rc = MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    check(rc == MPI_SUCCESS, "the _init call");
    double t[2][MAX_ROUNDS];
    for (int k = 0; k < rounds; k++)
        for (int j = 0; j < 2; j++) {
            int persistent = (j + k) % 2; /* the first form alternates */
            in = rank + 1 + k;
            out = -1;
            t[persistent][k] = timed(test, persistent, &r, n);
            if (!strcmp(test, "allreduce"))
                check(out == (double)size * (size + 1) / 2 + (double)size * k,
                      "the allreduce's result");
            if (!strcmp(test, "bcast")) check(in == 1 + k, "the bcast's result");
            if (!rank)
                printf("pcoll,%s,%s,%d,%.3f\n", test, persistent ? "persistent" : "blocking", k,
                       t[persistent][k]);
        }
    check(MPI_Request_free(&r) == MPI_SUCCESS, "MPI_Request_free");
    double b = median(t[0], rounds), p = median(t[1], rounds);
    if (!rank) printf("pcoll-median,%s,%.3f,%.3f,%.3f\n", test, b, p, p / b);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = 20000;
    int rounds = 5, ntests = 0;
    const char *tests[8];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if ((!strcmp(argv[i], "allreduce") || !strcmp(argv[i], "bcast") ||
                  !strcmp(argv[i], "barrier")) &&
                 ntests < 8)
            tests[ntests++] = argv[i];
        else {
            if (!rank)
                fprintf(stderr, "usage: pcollbench [--iters N] [--rounds R] "
                                "[allreduce|bcast|barrier ...]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (n < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
        if (!rank) fprintf(stderr, "pcollbench: N must be > 0 and R from 1 to %d\n", MAX_ROUNDS);
        MPI_Finalize();
        return 2;
    }
    if (!ntests) {
        tests[ntests++] = "allreduce";
        tests[ntests++] = "bcast";
        tests[ntests++] = "barrier";
    }
    for (int i = 0; i < ntests; i++) run(tests[i], n, rounds);
    MPI_Finalize();
    return 0;
}
#endif
