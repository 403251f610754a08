/* coll_cycle: where the time of a small collective goes when it follows a barrier.
 *
 * usage: coll_cycle bcast|scatter|scan|allreduce|reduce [--iters N]
 *   Each of N calls (8 B: a double, or 8 bytes from and to rank 0) is timed on its
 *   own and followed by a timed MPI_Barrier, as collbench and OSU run them (but for
 *   the barrier's timing). Prints one CSV line:
 *   "coll_cycle,<test>,<call>,<cycle>,<sleeps>" and then each rank's
 *   "<call>/<barrier>", in us: call is the mean time in the call over the ranks, cycle
 *   the mean time of call and barrier together, sleeps the voluntary context switches
 *   (a wait that slept) per cycle, summed over the ranks.
 *
 * With more ranks than cores a call's time is mostly that of waking and scheduling
 * ranks, and which of the two calls it is charged to depends on the order in which
 * ranks leave the barrier; the cycle does not. */
#define _DEFAULT_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *what = argc > 1 ? argv[1] : "";
    long n = argc > 3 && !strcmp(argv[2], "--iters") ? atol(argv[3]) : 3000;
    const char *known[] = {"bcast", "scatter", "scan", "allreduce", "reduce"};
    int t = -1;
    for (int i = 0; i < 5; i++)
        if (!strcmp(what, known[i])) t = i;
    if (t < 0 || n < 1) {
        if (!rank)
            fprintf(stderr, "usage: coll_cycle bcast|scatter|scan|allreduce|reduce [--iters N]\n");
        MPI_Finalize();
        return 2;
    }
    double in = rank + 1, out = 0, *all = calloc((size_t)size, 8); /* the scatter's blocks */
    double in_call = 0, in_barrier = 0;
    struct rusage before, after;
    for (long i = -100; i < n; i++) { /* 100 calls of warm-up */
        double t0 = MPI_Wtime();
        if (t == 0)
            MPI_Bcast(&in, 8, MPI_BYTE, 0, MPI_COMM_WORLD);
        else if (t == 1)
            MPI_Scatter(all, 8, MPI_BYTE, &out, 8, MPI_BYTE, 0, MPI_COMM_WORLD);
        else if (t == 2)
            MPI_Scan(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else if (t == 3)
            MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Reduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        if (i == -1) getrusage(RUSAGE_SELF, &before);
        if (i >= 0) {
            in_call += t1 - t0;
            in_barrier += t2 - t1;
        }
    }
    getrusage(RUSAGE_SELF, &after);
    double mine[3] = {1e6 * in_call / (double)n, 1e6 * in_barrier / (double)n,
                      (double)(after.ru_nvcsw - before.ru_nvcsw) / (double)n};
    double *each = malloc(24 * (size_t)size);
    MPI_Gather(mine, 3, MPI_DOUBLE, each, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (!rank) {
        double call = 0, cycle = 0, sleeps = 0;
        for (int r = 0; r < size; r++) {
            call += each[3 * r];
            cycle += each[3 * r] + each[3 * r + 1];
            sleeps += each[3 * r + 2];
        }
        printf("coll_cycle,%s,%.3f,%.3f,%.3f", what, call / size, cycle / size, sleeps);
        for (int r = 0; r < size; r++) printf(",%.2f/%.2f", each[3 * r], each[3 * r + 1]);
        printf("\n");
    }
    free(all);
    free(each);
    MPI_Finalize();
    return 0;
}
