/* Waiting ranks when the node has fewer CPUs than ranks (run under taskset: 3 ranks
 * on 2 CPUs, 4 on 1 or 2).
 *
 *   idle: rank 0 computes for 1 s of its own CPU time while the others wait for it in
 *         MPI_Recv and MPI_Barrier. A waiter that sleeps uses almost no CPU; one that
 *         polls takes what the CPUs have left (the second CPU, shared by two waiters:
 *         half of it each, whatever sched_yield does). Each waiter checks that its CPU
 *         time stayed under a tenth of its wall time; load only lowers a process's CPU
 *         time against its wall time, so a busy machine cannot fail it.
 *   wakeups: many short ping-pongs, barriers, broadcasts, allreduces (blocking and
 *         persistent, whose waiters find their peers' lines in shared memory) and rings, every
 *         result checked, some senders late by a bit of computing so that their
 *         receivers fall asleep, with TW_WAIT=sleep and a sleep bound of a second
 *         (TW_WAIT_SLEEP): a lost wake-up would cost a second each time, and the test's
 *         time limit ends the run. The ranks then check that they slept at all:
 *         voluntary context switches (getrusage), which spinning and yielding make
 *         none of.
 * The point-to-point traffic of both goes over duplicates of MPI_COMM_WORLD, which with
 * TW_CHANNELS run on other channels than the collectives: a waiter must then sleep on
 * every channel's doorbell, and be woken by any. */
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include "mpi_check.h"

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile uint64_t sink;
static MPI_Comm pair, ring; /* duplicates of MPI_COMM_WORLD: other channels */

/* Busy for cpu seconds of this process's own CPU time, however long that takes. */
static void compute(double cpu) {
    double end = seconds(CLOCK_PROCESS_CPUTIME_ID) + cpu;
    uint64_t x = 1;
    while (seconds(CLOCK_PROCESS_CPUTIME_ID) < end)
        for (int i = 0; i < 100000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

static void idle(void) {
    int token = 0;
    MPI_Barrier(MPI_COMM_WORLD); /* everyone connected and past start-up */
    if (rank == 0) {
        compute(1.0);
        for (int r = 1; r < size; r++) CHECK(MPI_Send(&r, 1, MPI_INT, r, 7, pair) == 0);
        compute(0.2); /* and once more, for the barrier */
        CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
        return;
    }
    double wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    CHECK(MPI_Recv(&token, 1, MPI_INT, 0, 7, pair, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(token == rank);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    double wall = seconds(CLOCK_MONOTONIC) - wall0, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    printf("rank %d waited %.3f s using %.3f s of CPU (%.1f%%)\n", rank, wall, cpu,
           100.0 * cpu / wall);
    CHECK(cpu < 0.1 * wall);
}

static long voluntary_switches(void) {
    struct rusage u;
    CHECK(getrusage(RUSAGE_SELF, &u) == 0);
    return u.ru_nvcsw;
}

static void wakeups(void) {
    enum { ROUNDS = 2000 };
    int peer = rank ^ 1;
    long pin = 0, pout = 0; /* a persistent Allreduce, made once and started every fourth round */
    MPI_Request persistent;
    CHECK(MPI_Allreduce_init(&pin, &pout, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &persistent) == MPI_SUCCESS);
    long switches = voluntary_switches();
    for (int i = 0; i < ROUNDS; i++) {
        int v = rank * 1000000 + i, got = -1;
        if (i % 4 == 1 && rank == (i / 4) % size) compute(0.0003); /* late: others sleep */
        if (peer < size) {
            if (rank & 1) {
                CHECK(MPI_Recv(&got, 1, MPI_INT, peer, i, pair, MPI_STATUS_IGNORE) == 0);
                CHECK(got == peer * 1000000 + i);
                CHECK(MPI_Send(&v, 1, MPI_INT, peer, i, pair) == 0);
            } else {
                CHECK(MPI_Send(&v, 1, MPI_INT, peer, i, pair) == 0);
                CHECK(MPI_Recv(&got, 1, MPI_INT, peer, i, pair, MPI_STATUS_IGNORE) == 0);
                CHECK(got == peer * 1000000 + i);
            }
        }
        if (i % 4 == 0) CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
        if (i % 4 == 1) {
            long sum = 0, mine = rank + i;
            CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD) == 0);
            CHECK(sum == (long)size * (size - 1) / 2 + (long)size * i);
            pin = rank + 2L * i;
            CHECK(MPI_Start(&persistent) == MPI_SUCCESS);
            CHECK(MPI_Wait(&persistent, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(pout == (long)size * (size - 1) / 2 + 2L * size * i);
        }
        if (i % 4 == 2) {
            int b = rank == i % size ? i : -1;
            CHECK(MPI_Bcast(&b, 1, MPI_INT, i % size, MPI_COMM_WORLD) == MPI_SUCCESS);
            CHECK(b == i);
        }
        if (i % 4 == 3) { /* a ring of non-blocking exchanges */
            int right = (rank + 1) % size, left = (rank + size - 1) % size, from = -1;
            MPI_Request r[2];
            CHECK(MPI_Irecv(&from, 1, MPI_INT, left, 9, ring, &r[0]) == 0);
            CHECK(MPI_Isend(&v, 1, MPI_INT, right, 9, ring, &r[1]) == 0);
            CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
            CHECK(from == left * 1000000 + i);
        }
    }
    long slept = voluntary_switches() - switches, all = 0;
    CHECK(MPI_Request_free(&persistent) == MPI_SUCCESS);
    CHECK(MPI_Allreduce(&slept, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank == 0)
        printf("wakeups: %d rounds on %d ranks, all results right; %ld sleeps\n", ROUNDS, size,
               all);
    CHECK(all > 0);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2 || (strcmp(argv[1], "idle") && strcmp(argv[1], "wakeups"))) {
        if (rank == 0) fprintf(stderr, "usage: mpi_waiting idle|wakeups\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &pair) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &ring) == MPI_SUCCESS);
    if (!strcmp(argv[1], "idle"))
        idle();
    else
        wakeups();
    MPI_Comm_free(&pair);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
