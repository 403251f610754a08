/* Under MPI_THREAD_MULTIPLE a thread waiting in MPI_Comm_accept lets the others into
 * MPI: rank 0 accepts in a thread of its own while its main thread still exchanges
 * messages with rank 1, which connects only once it has had them. (A process cannot
 * connect to itself: both sides would need the same communicator table entry.) */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "mpi_check.h"

static char port[MPI_MAX_PORT_NAME];
static MPI_Comm accepted = MPI_COMM_NULL;

static void *acceptor(void *arg) {
    (void)arg;
    CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &accepted) == MPI_SUCCESS);
    int v = -1;
    CHECK(MPI_Recv(&v, 1, MPI_INT, 0, 0, accepted, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(v == 101);
    v += 1;
    CHECK(MPI_Send(&v, 1, MPI_INT, 0, 1, accepted) == MPI_SUCCESS);
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE && size >= 2);
    if (rank == 0) {
        CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS);
        pthread_t t;
        CHECK(pthread_create(&t, NULL, acceptor, NULL) == 0);
        /* while the thread waits in the accept */
        int v = -1;
        CHECK(MPI_Recv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(v == 55);
        CHECK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 6, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK(MPI_Comm_disconnect(&accepted) == MPI_SUCCESS);
        CHECK(MPI_Close_port(port) == MPI_SUCCESS);
    } else if (rank == 1) {
        int v = 55;
        CHECK(MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 6, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
        MPI_Comm inter;
        CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter) == MPI_SUCCESS);
        v = 101;
        int got = -1;
        CHECK(MPI_Send(&v, 1, MPI_INT, 0, 0, inter) == MPI_SUCCESS);
        CHECK(MPI_Recv(&got, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(got == 102);
        CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS);
    }
    MPI_Finalize();
    return 0;
}
