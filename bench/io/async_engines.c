/* The two ways MPI_File_iwrite/iread could move data in the background, measured on
 * their own (no MPI): a worker thread that runs pwrite/pread (what src/mpi/io/progress.c
 * does), and io_uring (liburing), as submitted by default and with IOSQE_ASYNC (the
 * kernel's io-wq workers). For each size and direction: the access alone (start +
 * wait), a compute loop alone, and start + the loop + wait; the overlap is the part of
 * the shorter of the two hidden behind the other. Then the latency of a small read:
 * start and wait, against a plain pread. docs/io.md records the figures.
 *
 *   async_engines DIR [--reps N]   (DIR: e.g. /dev/shm and a directory on a disk)
 *
 * Built by bench/io/async_engines.sh (liburing is no dependency of the library). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- the thread engine: one worker, a queue of one job, a done flag polled ---- */

typedef struct job {
    int fd, write;
    char *mem;
    size_t len;
    off_t at;
    atomic_int done;
} job_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static job_t *queued;

static void *worker(void *arg) {
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!queued) pthread_cond_wait(&wake, &lock);
        job_t *j = queued;
        queued = NULL;
        pthread_mutex_unlock(&lock);
        size_t moved = 0;
        while (moved < j->len) {
            ssize_t n = j->write ? pwrite(j->fd, j->mem + moved, j->len - moved, j->at + moved)
                                 : pread(j->fd, j->mem + moved, j->len - moved, j->at + moved);
            if (n <= 0) break;
            moved += (size_t)n;
        }
        atomic_store_explicit(&j->done, 1, memory_order_release);
    }
    return NULL;
}

static void thread_start(job_t *j) {
    atomic_store(&j->done, 0);
    pthread_mutex_lock(&lock);
    queued = j;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
}

static void thread_wait(job_t *j) {
    while (!atomic_load_explicit(&j->done, memory_order_acquire)) sched_yield();
}

/* ---- io_uring ---- */

static struct io_uring ring;

static void uring_start(job_t *j, int async) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    if (j->write)
        io_uring_prep_write(sqe, j->fd, j->mem, (unsigned)j->len, (unsigned long long)j->at);
    else
        io_uring_prep_read(sqe, j->fd, j->mem, (unsigned)j->len, (unsigned long long)j->at);
    if (async) sqe->flags |= IOSQE_ASYNC;
    io_uring_submit(&ring);
}

static void uring_wait(void) {
    struct io_uring_cqe *cqe;
    for (;;) { /* polled, as the progress engine would: no system call */
        if (io_uring_peek_cqe(&ring, &cqe) == 0) break;
        sched_yield();
    }
    if (cqe->res < 0) fprintf(stderr, "io_uring: %s\n", strerror(-cqe->res));
    io_uring_cqe_seen(&ring, cqe);
}

enum { THREAD, URING, URING_ASYNC, ENGINES };
static const char *names[ENGINES] = {"thread", "io_uring", "io_uring+ASYNC"};

static void start(int engine, job_t *j) {
    if (engine == THREAD)
        thread_start(j);
    else
        uring_start(j, engine == URING_ASYNC);
}

static void wait_done(int engine, job_t *j) {
    if (engine == THREAD)
        thread_wait(j);
    else
        uring_wait();
}

static volatile double sink;

static void compute(long iters) {
    double x = 1.0;
    for (long i = 0; i < iters; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: async_engines DIR [--reps N]\n");
        return 2;
    }
    int reps = 9;
    if (argc >= 4 && !strcmp(argv[2], "--reps")) reps = atoi(argv[3]);
    if (reps < 1 || reps > 1000) {
        fprintf(stderr, "async_engines: bad option or value: --reps %s\n", argv[3]);
        return 2;
    }
    int err = -io_uring_queue_init(8, &ring, 0);
    if (err) {
        fprintf(stderr, "async_engines: io_uring_queue_init: %s\n", strerror(err));
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/async_engines.%d", argv[1], (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        fprintf(stderr, "async_engines: %s: %s\n", path, strerror(errno));
        return 1;
    }
    pthread_t tid;
    pthread_create(&tid, NULL, worker, NULL);
    size_t max = 16 << 20;
    char *mem = aligned_alloc(4096, max);
    memset(mem, 'x', max);
    if (pwrite(fd, mem, max, 0) != (ssize_t)max) return 1;

    /* the compute loop's rate, to match each access's time */
    double per_iter = 1;
    for (int k = 0; k < 7; k++) { /* the best of a few: a busy machine only slows one */
        double t0 = now();
        compute(2000000);
        double t = (now() - t0) / 2000000;
        if (t < per_iter) per_iter = t;
    }

    printf("# %s: median of %d; times in us; overlap = (io + compute - both) / min(io, "
           "compute)\n",
           argv[1], reps);
    printf("%-15s %-5s %9s %10s %10s %10s %8s\n", "engine", "op", "bytes", "io", "compute", "both",
           "overlap");
    size_t sizes[] = {64 << 10, 1 << 20, 16 << 20};
    for (int w = 1; w >= 0; w--)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (int e = 0; e < ENGINES; e++) {
                job_t j = {.fd = fd, .write = w, .mem = mem, .len = sizes[s], .at = 0};
                double io[1000], co[1000], both[1000];
                for (int r = 0; r < reps; r++) {
                    double a = now();
                    start(e, &j);
                    wait_done(e, &j);
                    io[r] = now() - a;
                }
                double t_io = median(io, reps);
                long iters = (long)(t_io / per_iter);
                for (int r = 0; r < reps; r++) {
                    double a = now();
                    compute(iters);
                    co[r] = now() - a;
                    a = now();
                    start(e, &j);
                    compute(iters);
                    wait_done(e, &j);
                    both[r] = now() - a;
                }
                double t_co = median(co, reps), t_both = median(both, reps);
                double shorter = t_io < t_co ? t_io : t_co;
                printf("%-15s %-5s %9zu %10.1f %10.1f %10.1f %7.0f%%\n", names[e],
                       w ? "write" : "read", sizes[s], 1e6 * t_io, 1e6 * t_co, 1e6 * t_both,
                       100 * (t_io + t_co - t_both) / shorter);
            }

    printf("# a small read (4096 bytes at 0): start + wait, us (median of %d)\n", reps * 20);
    int n = reps * 20 > 1000 ? 1000 : reps * 20;
    for (int e = -1; e < ENGINES; e++) {
        double lat[1000];
        job_t j = {.fd = fd, .write = 0, .mem = mem, .len = 4096, .at = 0};
        for (int r = 0; r < n; r++) {
            double a = now();
            if (e < 0) {
                if (pread(fd, mem, 4096, 0) != 4096) return 1;
            } else {
                start(e, &j);
                wait_done(e, &j);
            }
            lat[r] = now() - a;
        }
        printf("%-15s %8.2f\n", e < 0 ? "pread" : names[e], 1e6 * median(lat, n));
    }
    unlink(path);
    return 0;
}
