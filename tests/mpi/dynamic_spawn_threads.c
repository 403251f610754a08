/* Process management from several threads at once under MPI_THREAD_MULTIPLE: each of
 * THREADS threads makes a connection on a communicator of its own at the same time as
 * the others, ROUNDS times over, and messages cross it both ways before it is
 * disconnected. Each connection takes a communicator table entry free in both of its
 * groups while the other threads take theirs, here and in the other group.
 *
 *   self   each thread duplicates MPI_COMM_SELF and spawns 1 child on it (the odd
 *          threads with MPI_Comm_spawn_multiple, the even ones with MPI_Comm_spawn)
 *   world  each thread spawns 1 child on a duplicate of MPI_COMM_WORLD of its own
 *          (made by the main thread beforehand, in the same order on every rank),
 *          rooted at a rank that differs from thread to thread (the same calls)
 *   ports  2 ranks: in each pair of threads one opens a port and accepts, the other
 *          connects, on duplicates of MPI_COMM_SELF; rank 0 accepts for the even
 *          threads and connects for the odd ones, rank 1 the other way round
 *
 * A spawned child answers every parent's number with the number plus one, and the
 * parents check the answer. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { THREADS = 4, ROUNDS = 3 };

static const char *self_path, *mode;
static int round_now;
static MPI_Comm world_dups[THREADS];

static int number_of(int thread, int from) {
    return 1000000 * round_now + 1000 * from + 10 * thread + 1;
}

/* The parents' side of a spawned child: every parent sends it its number and checks
 * the answer. */
static void talk_to_child(MPI_Comm inter, int thread) {
    int me, remote;
    CHECK(MPI_Comm_rank(inter, &me) == MPI_SUCCESS);
    CHECK(MPI_Comm_remote_size(inter, &remote) == MPI_SUCCESS && remote == 1);
    int v = number_of(thread, me), answer = -1;
    CHECK(MPI_Send(&v, 1, MPI_INT, 0, 0, inter) == MPI_SUCCESS);
    CHECK(MPI_Recv(&answer, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(answer == v + 1);
}

static void spawn_one(MPI_Comm comm, int root, int thread) {
    int parents;
    CHECK(MPI_Comm_size(comm, &parents) == MPI_SUCCESS);
    char n[16];
    snprintf(n, sizeof n, "%d", parents);
    char *args[] = {"child", n, NULL};
    int code = -1;
    MPI_Comm inter = MPI_COMM_NULL;
    if (thread % 2 == 0) {
        CHECK(MPI_Comm_spawn(self_path, args, 1, MPI_INFO_NULL, root, comm, &inter, &code) ==
              MPI_SUCCESS);
    } else { /* the odd threads take the other call, with one command */
        char *commands[] = {(char *)self_path};
        char **argvs[] = {args};
        int procs[] = {1};
        MPI_Info infos[] = {MPI_INFO_NULL};
        CHECK(MPI_Comm_spawn_multiple(1, commands, argvs, procs, infos, root, comm, &inter,
                                      &code) == MPI_SUCCESS);
    }
    CHECK(inter != MPI_COMM_NULL && code == MPI_SUCCESS);
    talk_to_child(inter, thread);
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS && inter == MPI_COMM_NULL);
}

/* One side of a connection through a port between ranks 0 and 1, for thread t. */
static void port_pair(int thread) {
    int other = 1 - rank, accepting = (thread + rank) % 2 == 0;
    MPI_Comm mine, inter = MPI_COMM_NULL;
    CHECK(MPI_Comm_dup(MPI_COMM_SELF, &mine) == MPI_SUCCESS);
    char port[MPI_MAX_PORT_NAME];
    if (accepting) {
        CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS);
        CHECK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, other, thread, MPI_COMM_WORLD) ==
              MPI_SUCCESS);
        CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, mine, &inter) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, other, thread, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, mine, &inter) == MPI_SUCCESS);
    }
    int remote, v = number_of(thread, rank), got = -1;
    CHECK(MPI_Comm_remote_size(inter, &remote) == MPI_SUCCESS && remote == 1);
    CHECK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 2, &got, 1, MPI_INT, 0, 2, inter, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
    CHECK(got == number_of(thread, other));
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS && inter == MPI_COMM_NULL);
    if (accepting) CHECK(MPI_Close_port(port) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&mine) == MPI_SUCCESS);
}

static void *thread_main(void *arg) {
    int t = (int)(long)arg;
    if (!strcmp(mode, "self")) {
        MPI_Comm mine;
        CHECK(MPI_Comm_dup(MPI_COMM_SELF, &mine) == MPI_SUCCESS);
        spawn_one(mine, 0, t);
        CHECK(MPI_Comm_free(&mine) == MPI_SUCCESS);
    } else if (!strcmp(mode, "world")) {
        spawn_one(world_dups[t], t % size, t);
    } else {
        port_pair(t);
    }
    return NULL;
}

/* A spawned child: answers each parent, then leaves. */
static int child(int parents) {
    MPI_Comm p;
    CHECK(MPI_Comm_get_parent(&p) == MPI_SUCCESS && p != MPI_COMM_NULL);
    int n;
    CHECK(size == 1);
    CHECK(MPI_Comm_remote_size(p, &n) == MPI_SUCCESS && n == parents);
    for (int r = 0; r < parents; r++) {
        int v = -1;
        CHECK(MPI_Recv(&v, 1, MPI_INT, r, 0, p, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        v += 1;
        CHECK(MPI_Send(&v, 1, MPI_INT, r, 1, p) == MPI_SUCCESS);
    }
    CHECK(MPI_Comm_disconnect(&p) == MPI_SUCCESS);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv) {
    int provided;
    CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK(argc >= 2);
    if (!strcmp(argv[1], "child")) return child(argc > 2 ? atoi(argv[2]) : 0);
    self_path = argv[0];
    mode = argv[1];
    CHECK(!strcmp(mode, "self") || !strcmp(mode, "world") || !strcmp(mode, "ports"));
    CHECK(strcmp(mode, "ports") || size == 2);
    for (round_now = 0; round_now < ROUNDS; round_now++) {
        if (!strcmp(mode, "world"))
            for (int t = 0; t < THREADS; t++)
                CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &world_dups[t]) == MPI_SUCCESS);
        pthread_t threads[THREADS];
        for (int t = 0; t < THREADS; t++)
            CHECK(pthread_create(&threads[t], NULL, thread_main, (void *)(long)t) == 0);
        for (int t = 0; t < THREADS; t++) CHECK(pthread_join(threads[t], NULL) == 0);
        if (!strcmp(mode, "world"))
            for (int t = 0; t < THREADS; t++) CHECK(MPI_Comm_free(&world_dups[t]) == MPI_SUCCESS);
        /* every rank's threads of this round are done before the next starts */
        CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    }
    if (rank == 0)
        printf("dynamic_spawn_threads %s: %d rounds of %d threads on %d ranks: ok\n", mode, ROUNDS,
               THREADS, size);
    MPI_Finalize();
    return 0;
}
