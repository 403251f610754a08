/* MPI_Init_thread provides the level asked for, from MPI_THREAD_SINGLE to
 * MPI_THREAD_MULTIPLE (argv[1]; "below" and "above" ask for one outside the range,
 * answered with the nearest). Calls then work at that level from the main thread;
 * MPI_Query_thread tells the level, MPI_Is_thread_main the thread that initialised. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

static void *not_main(void *arg) {
    int flag = -1;
    CHECK(MPI_Is_thread_main(&flag) == MPI_SUCCESS && flag == 0);
    return arg;
}

int main(int argc, char **argv) {
    int required = MPI_THREAD_SINGLE, want;
    if (argc > 1 && !strcmp(argv[1], "below"))
        required = MPI_THREAD_SINGLE - 1, want = MPI_THREAD_SINGLE;
    else if (argc > 1 && !strcmp(argv[1], "above"))
        required = MPI_THREAD_MULTIPLE + 1, want = MPI_THREAD_MULTIPLE;
    else
        want = required = argc > 1 ? atoi(argv[1]) : MPI_THREAD_SINGLE;
    int provided = -1;
    CHECK(MPI_Init_thread(&argc, &argv, required, &provided) == MPI_SUCCESS);
    CHECK(provided == want);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sum = 0;
    CHECK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(sum == size * (size - 1) / 2);
    int level = -1, flag = -1;
    CHECK(MPI_Query_thread(&level) == MPI_SUCCESS && level == want);
    CHECK(MPI_Is_thread_main(&flag) == MPI_SUCCESS && flag == 1);
    if (want == MPI_THREAD_MULTIPLE) { /* another thread is not the main one */
        pthread_t t;
        CHECK(pthread_create(&t, NULL, not_main, NULL) == 0);
        CHECK(pthread_join(t, NULL) == 0);
    }
    MPI_Finalize();
    return 0;
}
