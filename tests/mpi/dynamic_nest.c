/* Spawns from communicators other than MPI_COMM_WORLD, and spawned jobs that spawn in
 * turn: each half of the first job spawns 2 children, which together spawn 1
 * grandchild. Every parent asks its children's rank 0 for a value only it can compute.
 * Then each half meets its children once more through a port of its own, whose name
 * it sends over the parent intercommunicator. Runs on 2 ranks or more. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_check.h"

/* The children's rank 0 answers v with v + 1000 * (its level). */
static void answer(MPI_Comm p, int level) {
    if (rank != 0) return;
    int v;
    CHECK(MPI_Recv(&v, 1, MPI_INT, 0, 0, p, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    v += 1000 * level;
    CHECK(MPI_Send(&v, 1, MPI_INT, 0, 1, p) == MPI_SUCCESS);
}

static void ask(MPI_Comm inter, int local_rank, int v, int child_level) {
    if (local_rank != 0) return;
    int got = -1;
    CHECK(MPI_Send(&v, 1, MPI_INT, 0, 0, inter) == MPI_SUCCESS);
    CHECK(MPI_Recv(&got, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(got == v + 1000 * child_level);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int level = argc > 1 ? atoi(argv[1]) : 0;
    MPI_Comm parent;
    CHECK(MPI_Comm_get_parent(&parent) == MPI_SUCCESS);
    CHECK((parent == MPI_COMM_NULL) == (level == 0));
    char next[16];
    snprintf(next, sizeof next, "%d", level + 1);
    char *args[] = {next, NULL};

    if (level == 0) {
        MPI_Comm half, inter;
        CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half) == MPI_SUCCESS);
        int hr, hs, n;
        MPI_Comm_rank(half, &hr);
        MPI_Comm_size(half, &hs);
        CHECK(MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, half, &inter,
                             MPI_ERRCODES_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Comm_remote_size(inter, &n) == MPI_SUCCESS && n == 2);
        CHECK(MPI_Comm_size(inter, &n) == MPI_SUCCESS && n == hs);
        ask(inter, hr, 10 + rank, 1);
        /* a port between the half and its children */
        char port[MPI_MAX_PORT_NAME] = "";
        if (hr == 0) {
            CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS);
            CHECK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 2, inter) == MPI_SUCCESS);
        }
        MPI_Comm again;
        CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &again) == MPI_SUCCESS);
        CHECK(MPI_Comm_remote_size(again, &n) == MPI_SUCCESS && n == 2);
        int sum = 0, mine = hr;
        CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, again) == MPI_SUCCESS);
        CHECK(sum == 0 + 1); /* the children's ranks, 0 and 1 */
        CHECK(MPI_Comm_disconnect(&again) == MPI_SUCCESS);
        if (hr == 0) CHECK(MPI_Close_port(port) == MPI_SUCCESS);
        CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS);
        CHECK(MPI_Comm_free(&half) == MPI_SUCCESS);
    } else if (level == 1) {
        MPI_Comm inter;
        CHECK(MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 1, MPI_COMM_WORLD, &inter,
                             MPI_ERRCODES_IGNORE) == MPI_SUCCESS);
        ask(inter, rank, 20 + rank, 2);
        CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS);
        answer(parent, 1);
        char port[MPI_MAX_PORT_NAME] = "";
        if (rank == 0)
            CHECK(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 2, parent, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS);
        MPI_Comm again;
        int n, sum = 0, mine = rank;
        CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &again) == MPI_SUCCESS);
        CHECK(MPI_Comm_remote_size(again, &n) == MPI_SUCCESS && n >= 1);
        CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, again) == MPI_SUCCESS);
        CHECK(sum == n * (n - 1) / 2); /* the half's ranks */
        CHECK(MPI_Comm_disconnect(&again) == MPI_SUCCESS);
    } else {
        answer(parent, 2);
    }
    if (parent != MPI_COMM_NULL) CHECK(MPI_Comm_disconnect(&parent) == MPI_SUCCESS);
    MPI_Finalize();
    return 0;
}
