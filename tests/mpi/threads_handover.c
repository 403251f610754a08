/* MPI_THREAD_MULTIPLE with waits that sleep (run with TW_WAIT=sleep and a long
 * TW_WAIT_SLEEP): the main thread waits in MPI_Recv, asleep and holding the library's
 * lock, for what a second thread of the same process sends it a moment later; the
 * sender finds the lock taken and wakes the sleeper to get it (thread.c). Each rank
 * talks only to itself, so no peer's message wakes the sleeper instead. Every value
 * received is checked, in order. A lost wake-up costs the whole sleep bound each round:
 * 2000 rounds of it outlast the test's time limit, where the rounds take 2 ms each. */
#include <mpi.h>
#include <pthread.h>
#include <time.h>

#include "mpi_check.h"

enum { ROUNDS = 2000 };

static MPI_Comm self;

static void *sender(void *arg) {
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        struct timespec pause = {0, 2000000}; /* the receiver is asleep by then */
        nanosleep(&pause, NULL);
        CHECK(MPI_Send(&i, 1, MPI_INT, 0, 7, self) == MPI_SUCCESS);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK(MPI_Comm_dup(MPI_COMM_SELF, &self) == MPI_SUCCESS);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, sender, NULL) == 0);
    for (int i = 0; i < ROUNDS; i++) {
        int v = -1;
        MPI_Status st;
        CHECK(MPI_Recv(&v, 1, MPI_INT, 0, 7, self, &st) == MPI_SUCCESS);
        CHECK(v == i && st.MPI_SOURCE == 0 && st.MPI_TAG == 7);
    }
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(MPI_Comm_free(&self) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("threads_handover: %d ranks x %d rounds ok\n", size, ROUNDS);
    MPI_Finalize();
    return 0;
}
