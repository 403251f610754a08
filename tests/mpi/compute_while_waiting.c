/* Ranks that compute for several peer timeouts without a call into MPI, while the
 * others wait on them: a healthy job that a failure detector must never declare failed.
 * Run over the udp link (TW_LINK=udp, or across hosts) with a short TW_UDP_TIMEOUT.
 *
 * usage: compute_while_waiting PATTERN SECONDS [talked]
 *   The computing ranks are 0 and every third rank after it (0, 3, 6 …); the others
 *   wait while they compute for SECONDS (a busy loop, no MPI call), in PATTERN:
 *     finalize  the waiting ranks go straight to MPI_Finalize;
 *     recv      each waiting rank receives from the computing rank before it (rank 1
 *               and 2 from rank 0, 4 and 5 from 3 …), which sends once it is done;
 *     send      each waiting rank sends a message of 1 MiB (a rendezvous the computing
 *               rank answers only when it calls in) and waits for it to complete;
 *     coll      everyone meets in MPI_Allreduce and MPI_Barrier;
 *     rma       each waiting rank locks the computing rank's window, puts and gets
 *               (answered only when the target calls in), and unlocks;
 *     spawn     rank 0 spawns one process that computes while rank 0 waits in a
 *               receive from it; the other computing ranks compute meanwhile, and
 *               the rest of the world waits on them in MPI_Barrier.
 *   talked: every pair of ranks exchanges a message first (the link then knows every
 *   peer); without it most pairs meet for the first time in the pattern itself.
 * Prints "compute_while_waiting: rank N: ok" per rank when every check held; any
 * error (a peer declared lost among them) ends the job non-zero. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#define BIG (1 << 20)

static int rank, size;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A busy loop of the given length: no MPI call, so nothing of the library's runs on
 * this thread meanwhile. Returns a value that depends on every step, so it is kept. */
static uint64_t compute(double seconds) {
    uint64_t x = 88172645463325252ull;
    double end = now_s() + seconds;
    while (now_s() < end)
        for (int k = 0; k < 100000; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
    return x;
}

static int computing(int r) {
    return r % 3 == 0;
}

static void fail(const char *what) {
    fprintf(stderr, "compute_while_waiting: rank %d: FAILED: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check(int ok, const char *what) {
    if (!ok) fail(what);
}

/* Every pair exchanges one message: every link then knows every peer. */
static void talk_to_everyone(void) {
    for (int k = 1; k < size; k++) {
        int to = (rank + k) % size, from = (rank - k + size) % size, got = -1;
        MPI_Sendrecv(&rank, 1, MPI_INT, to, 1, &got, 1, MPI_INT, from, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        check(got == from, "the exchange with every rank");
    }
}

static void pattern_recv(double seconds) {
    int c = rank - rank % 3; /* the computing rank before this one */
    if (computing(rank)) {
        uint64_t x = compute(seconds);
        for (int r = rank + 1; r < rank + 3 && r < size; r++)
            MPI_Send(&x, 1, MPI_UINT64_T, r, 2, MPI_COMM_WORLD);
    } else {
        uint64_t x = 0;
        MPI_Recv(&x, 1, MPI_UINT64_T, c, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(x != 0, "the value the computing rank sent");
    }
}

static void pattern_send(double seconds) {
    char *buf = malloc(BIG);
    check(buf != NULL, "memory");
    int c = rank - rank % 3;
    if (computing(rank)) {
        compute(seconds);
        for (int r = rank + 1; r < rank + 3 && r < size; r++) {
            MPI_Recv(buf, BIG, MPI_CHAR, r, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < BIG; i += 4096) check(buf[i] == (char)(r + i / 4096), "the data");
        }
    } else {
        for (int i = 0; i < BIG; i += 4096) buf[i] = (char)(rank + i / 4096);
        MPI_Send(buf, BIG, MPI_CHAR, c, 3, MPI_COMM_WORLD);
    }
    free(buf);
}

static void pattern_coll(double seconds) {
    if (computing(rank)) compute(seconds);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check(sum == size * (size - 1) / 2, "the sum of the ranks");
    MPI_Barrier(MPI_COMM_WORLD);
}

static void pattern_rma(double seconds) {
    int64_t *base;
    MPI_Win win;
    MPI_Win_allocate(64 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    for (int i = 0; i < 64; i++) base[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (computing(rank)) {
        compute(seconds);
    } else {
        int c = rank - rank % 3;
        int64_t mine = rank, back = -1;
        MPI_Win_lock(MPI_LOCK_SHARED, c, 0, win);
        MPI_Put(&mine, 1, MPI_INT64_T, c, rank % 64, 1, MPI_INT64_T, win);
        MPI_Win_flush(c, win);
        MPI_Get(&back, 1, MPI_INT64_T, c, rank % 64, 1, MPI_INT64_T, win);
        MPI_Win_unlock(c, win);
        check(back == mine, "the value read back from the computing rank's window");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (computing(rank))
        for (int r = rank + 1; r < rank + 3 && r < size; r++)
            check(base[r % 64] == r, "the values the waiting ranks put");
    MPI_Win_free(&win);
}

static void pattern_spawn(const char *self, double seconds) {
    if (rank == 0) {
        MPI_Comm child;
        char secs[32];
        snprintf(secs, sizeof secs, "%g", seconds);
        char *argv[] = {"child", secs, NULL};
        int code = -1;
        MPI_Comm_spawn(self, argv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child, &code);
        check(code == MPI_SUCCESS, "the spawn");
        uint64_t x = 0;
        MPI_Recv(&x, 1, MPI_UINT64_T, 0, 4, child, MPI_STATUS_IGNORE);
        check(x != 0, "the value the spawned process computed");
        MPI_Comm_disconnect(&child);
    } else if (computing(rank)) {
        compute(seconds);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The spawned process: computes, then sends its result to rank 0 of its parents. */
static int spawned(double seconds) {
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    uint64_t x = compute(seconds);
    MPI_Send(&x, 1, MPI_UINT64_T, 0, 4, parent);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc >= 3 && !strcmp(argv[1], "child")) return spawned(atof(argv[2]));
    if (argc < 3) {
        if (rank == 0) fprintf(stderr, "usage: %s PATTERN SECONDS [talked]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    const char *pattern = argv[1];
    double seconds = atof(argv[2]);
    if (argc > 3 && !strcmp(argv[3], "talked")) talk_to_everyone();
    if (!strcmp(pattern, "finalize")) {
        if (computing(rank)) compute(seconds);
    } else if (!strcmp(pattern, "recv")) {
        pattern_recv(seconds);
    } else if (!strcmp(pattern, "send")) {
        pattern_send(seconds);
    } else if (!strcmp(pattern, "coll")) {
        pattern_coll(seconds);
    } else if (!strcmp(pattern, "rma")) {
        pattern_rma(seconds);
    } else if (!strcmp(pattern, "spawn")) {
        pattern_spawn(argv[0], seconds);
    } else {
        fail("unknown pattern");
    }
    printf("compute_while_waiting: rank %d: ok\n", rank);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
