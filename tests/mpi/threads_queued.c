/* MPI_THREAD_MULTIPLE, a collective's wait without the library's lock (thread.c,
 * tw_mpi_thread_pause_free) while sends of this process wait for room in a full
 * mailbox: run with TW_WAIT=sleep, a long TW_WAIT_SLEEP and a small mailbox
 * (TW_VELO_SLOTS). Each round rank 0 starts more sends to rank 1 than its mailbox
 * holds, then waits in MPI_Barrier on another communicator; rank 1 computes a moment,
 * so rank 0 is asleep in the barrier by then, takes the messages, checks each, and
 * joins the barrier. The peer that frees a mailbox rings no doorbell, so only rank 0's
 * barrier wait retries the sends: if it slept while they waited, each round would cost
 * the sleep bound, and 1000 rounds of it outlast the test's time limit, where they take
 * some 2 ms each. Runs on 2 ranks. */
#include <time.h>

#include "mpi_check.h"

enum { ROUNDS = 1000, SENDS = 600 };

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE && size == 2);
    MPI_Comm data, sync;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &data) == MPI_SUCCESS);
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &sync) == MPI_SUCCESS);
    static int out[SENDS], in[SENDS];
    MPI_Request reqs[SENDS];
    for (int r = 0; r < ROUNDS; r++) {
        if (rank == 0) {
            for (int i = 0; i < SENDS; i++) {
                out[i] = r * SENDS + i;
                CHECK(MPI_Isend(&out[i], 1, MPI_INT, 1, i, data, &reqs[i]) == MPI_SUCCESS);
            }
            CHECK(MPI_Barrier(sync) == MPI_SUCCESS);
            CHECK(MPI_Waitall(SENDS, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        } else {
            double until = cpu_seconds() + 0.002; /* rank 0 falls asleep meanwhile */
            while (cpu_seconds() < until) {
            }
            for (int i = 0; i < SENDS; i++) {
                CHECK(MPI_Recv(&in[i], 1, MPI_INT, 0, i, data, MPI_STATUS_IGNORE) == MPI_SUCCESS);
                CHECK(in[i] == r * SENDS + i);
            }
            CHECK(MPI_Barrier(sync) == MPI_SUCCESS);
        }
    }
    CHECK(MPI_Comm_free(&data) == MPI_SUCCESS && MPI_Comm_free(&sync) == MPI_SUCCESS);
    if (rank == 0) printf("threads_queued: %d rounds ok\n", ROUNDS);
    MPI_Finalize();
    return 0;
}
