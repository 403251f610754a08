/* mtrate: the message rate of several threads per rank, two ranks, under
 * MPI_THREAD_MULTIPLE.
 *
 * usage: mtrate [--threads LIST] [--mode comm|tag] [--size BYTES] [--windows N] [--blocked]
 *               [--csv]
 *   Each of T threads of rank 0 sends windows of 64 Isends of SIZE bytes (default 8)
 *   to the same thread of rank 1, which answers each window with a 4-byte ack once its
 *   64 Irecvs are complete (as osu_mbw_mr, with threads instead of processes).
 *   mode comm: every thread on a communicator of its own (MPI_Comm_dup); mode tag: all
 *   on MPI_COMM_WORLD, a tag per thread. LIST is thread counts, e.g. 1,2,4 (default).
 *   The figure is all threads' messages per second, the median of 5 repetitions of N
 *   windows per thread (default 1000) after one not counted, threads started and
 *   joined inside the timing.
 *   --blocked: each rank has one more thread, blocked in MPI_Recv on a communicator
 *   of its own for as long as the others stream (released after the timing); what it
 *   costs them is the rate against a run without (mode "comm+blocked", "tag+blocked").
 *   Prints a table, or with --csv lines "mtrate,<mode>,<threads>,<size>,<msg/s>".
 * Only MPI-3.1 calls and POSIX threads, so any MPI's mpicc builds it. Received
 * payloads are checked: a broken delivery aborts the run. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WINDOW = 64, REPS = 5, MAX_THREADS = 64, TAG_ACK = 30000 };

static int rank, size_, by_tag, windows = 1000, blocked;
static size_t bytes = 8;
static MPI_Comm comms[MAX_THREADS], blocked_comm;

static void die(const char *what) {
    fprintf(stderr, "mtrate: rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void *run(void *arg) {
    int t = (int)(long)arg;
    MPI_Comm c = by_tag ? MPI_COMM_WORLD : comms[t];
    int tag = by_tag ? t : 0, ack_tag = by_tag ? TAG_ACK + t : TAG_ACK;
    unsigned char *buf = malloc(WINDOW * (bytes ? bytes : 1));
    if (!buf) die("out of memory");
    MPI_Request r[WINDOW];
    for (int w = 0; w < windows; w++) {
        unsigned char mark = (unsigned char)(w * 31 + t);
        if (rank == 0) {
            for (int k = 0; k < WINDOW; k++) {
                if (bytes) buf[k * bytes] = mark;
                MPI_Isend(buf + k * bytes, (int)bytes, MPI_BYTE, 1, tag, c, &r[k]);
            }
            MPI_Waitall(WINDOW, r, MPI_STATUSES_IGNORE);
            int ack;
            MPI_Recv(&ack, 1, MPI_INT, 1, ack_tag, c, MPI_STATUS_IGNORE);
            if (ack != w) die("wrong ack");
        } else {
            for (int k = 0; k < WINDOW; k++)
                MPI_Irecv(buf + k * bytes, (int)bytes, MPI_BYTE, 0, tag, c, &r[k]);
            MPI_Waitall(WINDOW, r, MPI_STATUSES_IGNORE);
            for (int k = 0; bytes && k < WINDOW; k++)
                if (buf[k * bytes] != mark) die("wrong payload");
            MPI_Send(&w, 1, MPI_INT, 0, ack_tag, c);
        }
    }
    free(buf);
    return NULL;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* --blocked: a receive that the other rank satisfies only after the timing. */
static void *wait_blocked(void *arg) {
    (void)arg;
    int v = -1;
    MPI_Recv(&v, 1, MPI_INT, 1 - rank, 0, blocked_comm, MPI_STATUS_IGNORE);
    if (v != 1 - rank) die("wrong release");
    return NULL;
}

/* All threads' messages per second, median of REPS. */
static double measure(int nthreads) {
    double rate[REPS + 1];
    for (int rep = 0; rep <= REPS; rep++) { /* the first warms up: not counted */
        pthread_t th[MAX_THREADS], waiter;
        if (blocked && pthread_create(&waiter, NULL, wait_blocked, NULL)) die("pthread_create");
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (long t = 0; t < nthreads; t++)
            if (pthread_create(&th[t], NULL, run, (void *)t)) die("pthread_create");
        for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
        double dt = MPI_Wtime() - t0, longest;
        if (blocked) {
            MPI_Send(&rank, 1, MPI_INT, 1 - rank, 0, blocked_comm);
            pthread_join(waiter, NULL);
        }
        MPI_Allreduce(&dt, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        rate[rep] = (double)nthreads * windows * WINDOW / longest;
    }
    qsort(rate + 1, REPS, sizeof *rate, cmp);
    return rate[1 + REPS / 2];
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (provided != MPI_THREAD_MULTIPLE) die("MPI_THREAD_MULTIPLE not provided");
    if (size_ != 2) die("runs on 2 ranks");
    const char *list = "1,2,4";
    int csv = 0;
    for (int a = 1; a < argc; a++) {
        const char *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(argv[a], "--csv"))
            csv = 1;
        else if (!strcmp(argv[a], "--threads") && val)
            list = argv[++a];
        else if (!strcmp(argv[a], "--mode") && val && (!strcmp(val, "comm") || !strcmp(val, "tag")))
            by_tag = !strcmp(argv[++a], "tag");
        else if (!strcmp(argv[a], "--size") && val && atol(val) >= 0 && atol(val) <= (1 << 20))
            bytes = (size_t)atol(argv[++a]);
        else if (!strcmp(argv[a], "--windows") && val && atoi(val) > 0)
            windows = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--blocked"))
            blocked = 1;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: mtrate [--threads LIST] [--mode comm|tag] [--size BYTES] "
                                "[--windows N] [--blocked] [--csv]\n");
            MPI_Finalize();
            return 2;
        }
    }
    for (int t = 0; t < MAX_THREADS; t++) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    MPI_Comm_dup(MPI_COMM_WORLD, &blocked_comm);
    const char *mode = by_tag    ? (blocked ? "tag+blocked" : "tag")
                       : blocked ? "comm+blocked"
                                 : "comm";
    if (rank == 0 && !csv)
        printf("# mtrate: %s, %zu B, windows of %d, %d per thread, median of %d\n%-8s %-12s %14s\n",
               by_tag ? "one communicator, a tag per thread" : "a communicator per thread", bytes,
               WINDOW, windows, REPS, "threads", "mode", "msg/s");
    for (const char *p = list; *p;) {
        int n = atoi(p);
        if (n < 1 || n > MAX_THREADS) die("a thread count is 1 to 64");
        double r = measure(n);
        if (rank == 0) {
            if (csv)
                printf("mtrate,%s,%d,%zu,%.0f\n", mode, n, bytes, r);
            else
                printf("%-8d %-12s %14.0f\n", n, mode, r);
            fflush(stdout);
        }
        p = strchr(p, ',');
        if (!p) break;
        p++;
    }
    for (int t = 0; t < MAX_THREADS; t++) MPI_Comm_free(&comms[t]);
    MPI_Comm_free(&blocked_comm);
    MPI_Finalize();
    return 0;
}
