/* partbench: partitioned communication (MPI-4.1 chapter 4) against one whole send,
 * when the parts of a message become ready one by one.
 *
 * usage: partbench [--mode partitioned|whole|both] [--threads T] [--partitions P]
 *                  [--bytes B] [--compute-us U] [--rounds R] [--csv]
 *   Two ranks. Each round, T threads of rank 0 (default 4) each compute its share of
 *   the P partitions (default 16) of a message of B bytes (default 1 MiB), one
 *   partition after another, a compute step of U microseconds each (default 50: a
 *   busy loop that writes the partition's data); rank 1 receives the message, checks
 *   it and answers with an empty message.
 *   partitioned: MPI_Psend_init / MPI_Precv_init once; each round MPI_Start, and each
 *   thread calls MPI_Pready for a partition as soon as it is computed, so the data
 *   moves while the other partitions are computed (MPI_THREAD_MULTIPLE).
 *   whole: the threads compute everything, then one MPI_Send of the whole message.
 *   The figure is the time per round at rank 0 (from the round's start to the
 *   answer), the median of R rounds (default 200) after 10 not counted; the ideal is
 *   the compute time alone, P / T * U.
 *   Prints a table, or with --csv lines
 *   "partbench,<mode>,<threads>,<partitions>,<bytes>,<compute us>,<us per round>".
 * Only MPI-4's partitioned calls, MPI-3.1 and POSIX threads, so the mpicc of any library
 * with partitioned communication builds it. Received
 * data are checked: a broken delivery aborts the run. */
#define _POSIX_C_SOURCE 200809L /* pthread barriers under -std=c11 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WARMUP = 10, TAG = 7, TAG_ACK = 8 };

static int rank, threads = 4, partitions = 16, rounds = 200, csv;
static long bytes = 1 << 20;
static double compute_us = 50;
static unsigned char *buf;
static long part_bytes;

/* the run's state, which the threads of rank 0 follow */
static MPI_Request psend;
static int partitioned_mode, round_no, stop;
static pthread_barrier_t go, done;

static void die(const char *what) {
    fprintf(stderr, "partbench: rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static unsigned char byte_of(int round, long i) {
    return (unsigned char)(round * 7 + i * 13);
}

/* A compute step: writes partition k's data, and spins for the rest of U us. */
static void compute(int k) {
    double until = MPI_Wtime() + compute_us * 1e-6;
    unsigned char *p = buf + (long)k * part_bytes;
    for (long i = 0; i < part_bytes; i++) p[i] = byte_of(round_no, (long)k * part_bytes + i);
    while (MPI_Wtime() < until) {
    }
}

/* Thread t owns partitions t, t + T, ... */
static void *worker(void *arg) {
    int t = (int)(long)arg;
    for (;;) {
        pthread_barrier_wait(&go);
        if (stop) return NULL;
        for (int k = t; k < partitions; k += threads) {
            compute(k);
            if (partitioned_mode && MPI_Pready(k, psend) != MPI_SUCCESS) die("MPI_Pready failed");
        }
        pthread_barrier_wait(&done);
    }
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One mode's rounds; rank 0's median time per round in microseconds. */
static double run(int partitioned) {
    MPI_Request precv = MPI_REQUEST_NULL;
    partitioned_mode = partitioned;
    if (partitioned) {
        int rc = rank == 0 ? MPI_Psend_init(buf, partitions, part_bytes, MPI_BYTE, 1, TAG,
                                            MPI_COMM_WORLD, MPI_INFO_NULL, &psend)
                           : MPI_Precv_init(buf, partitions, part_bytes, MPI_BYTE, 0, TAG,
                                            MPI_COMM_WORLD, MPI_INFO_NULL, &precv);
        if (rc != MPI_SUCCESS) die("MPI_Psend_init / MPI_Precv_init failed");
    }
    double *times = malloc((size_t)rounds * sizeof *times);
    if (!times) die("out of memory");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < WARMUP + rounds; r++) {
        round_no = r;
        if (rank == 0) {
            double t0 = MPI_Wtime();
            if (partitioned && MPI_Start(&psend) != MPI_SUCCESS) die("MPI_Start failed");
            pthread_barrier_wait(&go);
            /* the partitioned send is waited for while the threads compute */
            if (partitioned && MPI_Wait(&psend, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                die("MPI_Wait failed");
            pthread_barrier_wait(&done);
            if (!partitioned && MPI_Send(buf, (int)bytes, MPI_BYTE, 1, TAG, MPI_COMM_WORLD))
                die("MPI_Send failed");
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (r >= WARMUP) times[r - WARMUP] = (MPI_Wtime() - t0) * 1e6;
        } else {
            if (partitioned) {
                if (MPI_Start(&precv) != MPI_SUCCESS || MPI_Wait(&precv, MPI_STATUS_IGNORE))
                    die("the partitioned receive failed");
            } else if (MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, TAG, MPI_COMM_WORLD,
                                MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                die("MPI_Recv failed");
            }
            for (long i = 0; i < bytes; i++)
                if (buf[i] != byte_of(r, i)) die("wrong data received");
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    if (partitioned) MPI_Request_free(rank == 0 ? &psend : &precv);
    double median = 0;
    if (rank == 0) {
        qsort(times, (size_t)rounds, sizeof *times, cmp);
        median = times[rounds / 2];
    }
    free(times);
    return median;
}

static void usage(const char *why) {
    if (rank == 0 && why) fprintf(stderr, "partbench: %s\n", why);
    if (rank == 0)
        fprintf(stderr, "usage: partbench [--mode partitioned|whole|both] [--threads T] "
                        "[--partitions P] [--bytes B] [--compute-us U] [--rounds R] [--csv]\n");
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv) {
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = "both";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--csv"))
            csv = 1;
        else if (!v)
            usage("an option without its value");
        else if (!strcmp(a, "--mode"))
            mode = argv[++i];
        else if (!strcmp(a, "--threads"))
            threads = atoi(argv[++i]);
        else if (!strcmp(a, "--partitions"))
            partitions = atoi(argv[++i]);
        else if (!strcmp(a, "--bytes"))
            bytes = atol(argv[++i]);
        else if (!strcmp(a, "--compute-us"))
            compute_us = atof(argv[++i]);
        else if (!strcmp(a, "--rounds"))
            rounds = atoi(argv[++i]);
        else
            usage("an unknown option");
    }
    int want_p = !strcmp(mode, "partitioned") || !strcmp(mode, "both");
    int want_w = !strcmp(mode, "whole") || !strcmp(mode, "both");
    if (!want_p && !want_w) usage("--mode is partitioned, whole or both");
    if (threads < 1 || threads > 64 || partitions < 1 || rounds < 1 || compute_us < 0)
        usage("--threads 1 to 64, --partitions and --rounds 1 or more, --compute-us 0 or more");
    if (bytes < partitions || bytes % partitions || bytes > 1L << 30)
        usage("--bytes is a multiple of --partitions, up to 1 GiB");
    if (size != 2) die("runs on 2 ranks");
    if (provided < MPI_THREAD_MULTIPLE) die("MPI_THREAD_MULTIPLE is not provided");
    part_bytes = bytes / partitions;
    buf = malloc((size_t)bytes);
    if (!buf) die("out of memory");
    pthread_t th[64];
    if (rank == 0) {
        pthread_barrier_init(&go, NULL, (unsigned)threads + 1);
        pthread_barrier_init(&done, NULL, (unsigned)threads + 1);
        for (long t = 0; t < threads; t++) pthread_create(&th[t], NULL, worker, (void *)t);
    }
    double us[2] = {0, 0};
    if (want_p) us[0] = run(1);
    if (want_w) us[1] = run(0);
    if (rank == 0) {
        stop = 1;
        pthread_barrier_wait(&go);
        for (int t = 0; t < threads; t++) pthread_join(th[t], NULL);
        double ideal = (double)((partitions + threads - 1) / threads) * compute_us;
        if (!csv)
            printf("%-12s %7s %10s %10s %10s %12s %12s\n", "mode", "threads", "partitions", "bytes",
                   "compute_us", "us_per_round", "compute_only");
        for (int m = 0; m < 2; m++) {
            if (!(m ? want_w : want_p)) continue;
            const char *name = m ? "whole" : "partitioned";
            if (csv)
                printf("partbench,%s,%d,%d,%ld,%g,%.1f\n", name, threads, partitions, bytes,
                       compute_us, us[m]);
            else
                printf("%-12s %7d %10d %10ld %10g %12.1f %12.1f\n", name, threads, partitions,
                       bytes, compute_us, us[m], ideal);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
