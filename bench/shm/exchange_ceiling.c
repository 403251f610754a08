/* What the kernel alone costs for the exchange at the heart of a 2-rank Allgather or
 * Alltoall on one node, with no MPI on top: each of two processes, pinned to two cores,
 * copies its own SIZE-byte block into its output and gets the other's block into the
 * rest of it, by one of these means:
 *
 *   memcpy     only the own block (the one a process keeps: the part of the work every
 *              MPI must do; no transfer)
 *   cma-read   own block by memcpy, the other's block for it by process_vm_readv from
 *              the other's send buffer (the single copy Tollway, Open MPI 4.1's vader
 *              and MPICH 4.0 make: one such call per rank per Allgather, under strace)
 *   cma-write  own block by memcpy, its block for the other into the other's output by
 *              process_vm_writev
 *   vmsplice   its block for the other spliced (by reference) into a pipe, own block by
 *              memcpy, the other's block read from the other's pipe (MPICH2's old
 *              vmsplice LMT)
 *   bounce     its block for the other copied into a shared segment, own block into the
 *              output, the other's block copied out of the segment (copy-in/copy-out, a
 *              shared-memory transport's way without a single-copy mechanism)
 *
 * One call is timed as the MPI benchmarks time a collective: from leaving a barrier (a
 * cache-line handshake) to leaving the next one, which both processes reach once their
 * output is complete; every call writes a new pattern into the send buffers and checks
 * it in the outputs, so a means that moves the wrong bytes fails. Printed per size: the
 * median over 11 batches of the mean time per call, averaged over the two processes.
 *
 * The send buffers are laid out as an Allgather's (one block, for both processes:
 * the default) or as an Alltoall's (two blocks, one for each); each process's buffers
 * come from its own heap, as an MPI program's do, or with huge, 2 MiB-aligned and
 * advised MADV_HUGEPAGE, so that the kernel backs them with transparent huge pages
 * where it has them (what the page size costs the cross-process copies).
 *
 * usage: exchange_ceiling all|MODE [allgather|alltoall] [huge] [--min SIZE]
 *        [--max SIZE] [--iters N] [--csv]
 *        (SIZE 4K .. 4M, default 64K .. 1M; --iters as collbench's: N calls up to 8 KiB,
 *        N * 8K / SIZE beyond, at least 20; --csv prints exchange,MODE,LAYOUT,SIZE,us) */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../mpi/bench_cli.h"

enum { MIN_SIZE = 4 << 10, MAX_SIZE = 4 << 20, LARGE = 8 << 10, FLOOR = 20, BATCHES = 11 };
typedef enum { MEMCPY, CMA_READ, CMA_WRITE, VMSPLICE, BOUNCE, MODES } means_t;
static const char *const mode_names[MODES] = {"memcpy", "cma-read", "cma-write", "vmsplice",
                                              "bounce"};

/* What the two processes share: one cache line each for the barrier, where each other's
 * buffers are, each one's mean per batch, and the bounce segment. */
typedef struct {
    _Alignas(64) _Atomic uint64_t arrived[2][8];
    _Atomic int failed;
    pid_t pid[2];
    unsigned char *send[2], *out[2];
    double batch[2][BATCHES];
    _Alignas(4096) unsigned char segment[2][MAX_SIZE];
} shared_t;

static shared_t *sh;
static int me;
static uint64_t generation;
static int splice_out = -1; /* the write end of this process's pipe */
/* alltoall: each send buffer holds one block per process, block r for process r (an
 * Alltoall's layout); else one block for both (an Allgather's) */
static int alltoall;
static int huge; /* buffers on transparent huge pages */

/* len bytes for a buffer (from the heap, or on huge pages), or NULL. */
static unsigned char *buffer(size_t len) {
    if (!huge) return aligned_alloc(64, len);
    size_t page = 2 << 20, span = (len + page - 1) / page * page + page;
    unsigned char *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    unsigned char *at = (unsigned char *)(((uintptr_t)m + page - 1) & ~(uintptr_t)(page - 1));
    madvise(at, span - page, MADV_HUGEPAGE); /* a kernel without THP: ordinary pages */
    return at;
}

/* Where process r's send buffer holds its block for process to. */
static unsigned char *block_of(int r, int to, size_t b) {
    return sh->send[r] + (alltoall ? (size_t)to * b : 0);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Whether the other process has ended (the parent reaps its child to tell). */
static int peer_gone(void) {
    return me ? getppid() != sh->pid[0] : waitpid(sh->pid[1], NULL, WNOHANG) != 0;
}

/* Both processes here; 0, or -1 when the other failed or is gone (no hang). */
static int barrier(void) {
    uint64_t g = ++generation;
    atomic_store_explicit(&sh->arrived[me][0], g, memory_order_release);
    for (unsigned long spin = 1;; spin++) {
        if (atomic_load_explicit(&sh->arrived[!me][0], memory_order_acquire) >= g) return 0;
        if (atomic_load_explicit(&sh->failed, memory_order_relaxed)) return -1;
        if (!(spin & 0xfffff) && peer_gone()) {
            fprintf(stderr, "exchange_ceiling: the other process ended\n");
            return -1;
        }
    }
}

/* Says what failed and makes the other process stop at its next barrier. */
static int fail(const char *mode, const char *what) {
    fprintf(stderr, "exchange_ceiling: %s: %s: %s%s\n", mode, what, strerror(errno),
            errno == EPERM ? " (cross-process copies need ptrace permission: "
                             "/proc/sys/kernel/yama/ptrace_scope 0 or 1, one user)"
                           : "");
    atomic_store(&sh->failed, 1);
    close(splice_out); /* a peer waiting in read() on this pipe sees its end */
    splice_out = -1;
    return -1;
}

/* Reads exactly n bytes from a pipe. */
static int read_all(int fd, unsigned char *to, size_t n) {
    while (n) {
        ssize_t k = read(fd, to, n);
        if (k <= 0) {
            if (k < 0 && errno == EINTR) continue;
            if (k == 0) errno = EPIPE;
            return -1;
        }
        to += k, n -= (size_t)k;
    }
    return 0;
}

/* One exchange of b bytes by the given means; 0, or -1 after saying why. */
static int exchange(means_t mode, size_t b, const int pipes[2][2], size_t pipe_bytes) {
    const char *name = mode_names[mode];
    unsigned char *mine = block_of(me, me, b), *send = block_of(me, !me, b);
    unsigned char *own = sh->out[me] + (size_t)me * b;
    unsigned char *theirs = sh->out[me] + (size_t)!me * b;
    pid_t peer = sh->pid[!me];
    switch (mode) {
    case MEMCPY:
        memcpy(own, mine, b);
        return 0;
    case CMA_READ: {
        memcpy(own, mine, b);
        struct iovec local = {theirs, b}, remote = {block_of(!me, me, b), b};
        ssize_t got = process_vm_readv(peer, &local, 1, &remote, 1, 0);
        if (got >= 0 && got != (ssize_t)b) errno = EIO; /* a short copy */
        return got == (ssize_t)b ? 0 : fail(name, "process_vm_readv");
    }
    case CMA_WRITE: {
        memcpy(own, mine, b);
        struct iovec local = {send, b}, remote = {sh->out[!me] + (size_t)me * b, b};
        ssize_t put = process_vm_writev(peer, &local, 1, &remote, 1, 0);
        if (put >= 0 && put != (ssize_t)b) errno = EIO; /* a short copy */
        if (put != (ssize_t)b) return fail(name, "process_vm_writev");
        return 0; /* the peer's block is here once the peer reaches the next barrier */
    }
    case VMSPLICE:
        /* In pieces the pipe holds; each side splices its piece before reading the
         * other's, so neither pipe ever holds more than one piece. */
        for (size_t at = 0; at < b; at += pipe_bytes) {
            size_t n = b - at < pipe_bytes ? b - at : pipe_bytes;
            struct iovec piece = {send + at, n};
            for (size_t put = 0; put < n;) {
                ssize_t k = vmsplice(pipes[me][1], &piece, 1, 0);
                if (k <= 0) return fail(name, "vmsplice");
                put += (size_t)k, piece.iov_base = (char *)piece.iov_base + k;
                piece.iov_len -= (size_t)k;
            }
            if (at == 0) memcpy(own, mine, b);
            if (read_all(pipes[!me][0], theirs + at, n) < 0) return fail(name, "read");
        }
        return 0;
    case BOUNCE:
        memcpy(sh->segment[me], send, b);
        memcpy(own, mine, b);
        if (barrier() < 0) return -1;
        memcpy(theirs, sh->segment[!me], b);
        return 0;
    default:
        return -1;
    }
}

static unsigned char pattern(long i, int r) {
    return (unsigned char)(i * 37 + r * 11 + 1);
}

/* One timed call (time added to *t); 0, or -1 after saying why. */
static int one(means_t mode, size_t b, long i, const int pipes[2][2], size_t pipe_bytes,
               double *t) {
    unsigned char *out = sh->out[me];
    for (int to = 0; to < 2; to++) {
        unsigned char *blk = block_of(me, to, b);
        blk[0] = blk[b - 1] = pattern(i, me);
    }
    if (barrier() < 0) return -1;
    double t0 = now();
    if (exchange(mode, b, pipes, pipe_bytes) < 0 || barrier() < 0) return -1;
    *t += now() - t0;
    for (int r = 0; r < 2; r++) {
        if (mode == MEMCPY && r != me) continue;
        const unsigned char *blk = out + (size_t)r * b;
        if (blk[0] != pattern(i, r) || blk[b - 1] != pattern(i, r)) {
            fprintf(stderr, "exchange_ceiling: %s of %zu B, call %ld: wrong data from %d\n",
                    mode_names[mode], b, i, r);
            atomic_store(&sh->failed, 1);
            return -1;
        }
    }
    return 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median batch mean of both processes, in us; -1 on failure. */
static double measure(means_t mode, size_t b, long iters, const int pipes[2][2],
                      size_t pipe_bytes) {
    long per = iters / BATCHES > 1 ? iters / BATCHES : 2, i = 0;
    double ignored = 0;
    for (long k = 0; k < per; k++, i++)
        if (one(mode, b, i, pipes, pipe_bytes, &ignored) < 0) return -1;
    for (int batch = 0; batch < BATCHES; batch++) {
        double t = 0;
        for (long k = 0; k < per; k++, i++)
            if (one(mode, b, i, pipes, pipe_bytes, &t) < 0) return -1;
        sh->batch[me][batch] = t / (double)per;
    }
    if (barrier() < 0) return -1;
    double mean[BATCHES];
    for (int batch = 0; batch < BATCHES; batch++)
        mean[batch] = 1e6 * (sh->batch[0][batch] + sh->batch[1][batch]) / 2;
    qsort(mean, BATCHES, sizeof *mean, cmp_double);
    return mean[BATCHES / 2];
}

/* The first two CPUs this process may run on, or -1 when it has fewer. */
static int two_cpus(int cpu[2]) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) < 0) return -1;
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &set)) cpu[n++] = c;
    return n == 2 ? 0 : -1;
}

int main(int argc, char **argv) {
    if (bench_wants_help(argc, argv)) {
        printf("usage: exchange_ceiling all|memcpy|cma-read|cma-write|vmsplice|bounce "
               "[allgather|alltoall] [huge] [--min SIZE] [--max SIZE] [--iters N] [--csv]\n");
        return 0;
    }
    int first = -1, last = -1;
    if (argc >= 2 && !strcmp(argv[1], "all")) first = 0, last = MODES - 1;
    for (int m = 0; argc >= 2 && m < MODES; m++)
        if (!strcmp(argv[1], mode_names[m])) first = last = m;
    if (first < 0) {
        fprintf(stderr,
                "exchange_ceiling: %s (all, memcpy, cma-read, cma-write, vmsplice or "
                "bounce)\n",
                argc < 2 ? "no mode given" : "unknown mode");
        return 2;
    }
    size_t min = 64 << 10, max = 1 << 20;
    long iters = 10000;
    int csv = 0, shift = 0;
    for (int w = 2; w < argc; w++, shift++) { /* the words before the options */
        if (!strcmp(argv[w], "allgather") || !strcmp(argv[w], "alltoall"))
            alltoall = !strcmp(argv[w], "alltoall");
        else if (!strcmp(argv[w], "huge"))
            huge = 1;
        else
            break;
    }
    argv[1 + shift] = argv[1]; /* the options start at argv[2] of what is parsed */
    if (bench_parse_options("exchange_ceiling", 0, argc - shift, argv + shift, MIN_SIZE, MAX_SIZE,
                            &min, &max, &iters, &csv) < 0)
        return 2;
    int cpu[2];
    if (two_cpus(cpu) < 0) {
        fprintf(stderr, "exchange_ceiling: needs two CPUs to run on\n");
        return 1;
    }
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("exchange_ceiling: mmap");
        return 1;
    }
    /* pipes[r] carries r's block to the other; as large as the system lets it be */
    int pipes[2][2];
    if (pipe(pipes[0]) < 0 || pipe(pipes[1]) < 0) {
        perror("exchange_ceiling: pipe");
        return 1;
    }
    /* a whole block and the page it may straddle; else as much as an unprivileged
     * process may ask for (fs.pipe-max-size, 1 MiB by default); else the default */
    int capacity = fcntl(pipes[0][1], F_SETPIPE_SZ, MAX_SIZE + 4096);
    if (capacity < 0) capacity = fcntl(pipes[0][1], F_SETPIPE_SZ, 1 << 20);
    if (capacity < 0) capacity = fcntl(pipes[0][1], F_GETPIPE_SZ);
    if (fcntl(pipes[1][1], F_SETPIPE_SZ, capacity) < 0 || capacity < 8192) {
        perror("exchange_ceiling: F_SETPIPE_SZ");
        return 1;
    }
    /* a piece may straddle one more page than it fills */
    size_t pipe_bytes = (size_t)capacity - 4096;
    sh->pid[0] = getpid();
    pid_t child = fork();
    if (child < 0) {
        perror("exchange_ceiling: fork");
        return 1;
    }
    me = child == 0;
    /* each keeps only its pipe's write end and the other's read end, so that either
     * one's end, or a failure that closes it, ends a read the other is waiting in */
    close(pipes[me][0]);
    close(pipes[!me][1]);
    splice_out = pipes[me][1];
    signal(SIGPIPE, SIG_IGN); /* a gone peer: vmsplice fails with EPIPE, said so */
    /* under Yama's ptrace_scope 1 the child may not otherwise read its parent */
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    if (me) sh->pid[1] = getpid();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu[me], &set);
    sched_setaffinity(0, sizeof set, &set);
    /* each process's own buffers (huge ones are left to the process's end) */
    sh->send[me] = buffer(2 * max);
    sh->out[me] = buffer(2 * max);
    if (!sh->send[me] || !sh->out[me]) {
        fprintf(stderr, "exchange_ceiling: out of memory for %zu-byte buffers\n", max);
        atomic_store(&sh->failed, 1);
    } else {
        memset(sh->send[me], me + 1, 2 * max);
        memset(sh->out[me], 0, 2 * max);
    }
    int status = 0;
    if (barrier() < 0) status = 1;
    if (!status && !me && !csv)
        printf("# exchange of SIZE bytes each way between cores %d and %d, us per call\n"
               "%-10s %-14s %8s %10s\n",
               cpu[0], cpu[1], "mode", "layout", "size", "us");
    for (int m = first; !status && m <= last; m++) {
        for (size_t b = min; b <= max; b *= 2) {
            long n = b <= LARGE ? iters : (long)((double)iters * LARGE / (double)b);
            if (n < FLOOR) n = FLOOR < iters ? FLOOR : iters;
            double us = measure((means_t)m, b, n, pipes, pipe_bytes);
            if (us < 0) {
                status = 1;
                break;
            }
            const char *layout = alltoall ? (huge ? "alltoall+huge" : "alltoall")
                                          : (huge ? "allgather+huge" : "allgather");
            if (!me && csv) printf("exchange,%s,%s,%zu,%.3f\n", mode_names[m], layout, b, us);
            if (!me && !csv) printf("%-10s %-14s %8zu %10.3f\n", mode_names[m], layout, b, us);
            fflush(stdout);
            if (b > max / 2) break;
        }
    }
    close(splice_out);
    if (!huge) {
        free(sh->send[me]);
        free(sh->out[me]);
    }
    if (me) _exit(status);
    int child_status = 0;
    if (waitpid(child, &child_status, 0) == child &&
        (!WIFEXITED(child_status) || WEXITSTATUS(child_status)))
        status = 1;
    return status;
}
