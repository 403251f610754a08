/* The thread level and main thread as MPI_Init_thread left them, and MPI_Pcontrol. */
#include <pthread.h>

#include "mpi/env/error.h"
#include "mpi/env/state.h"

int MPI_Query_thread(int *provided) {
    NEED_INIT("MPI_Query_thread");
    if (!provided) return tw_mpi_error(NULL, "MPI_Query_thread", MPI_ERR_ARG, "provided is NULL");
    *provided = tw_mpi.thread_level;
    return MPI_SUCCESS;
}

int MPI_Is_thread_main(int *flag) {
    NEED_INIT("MPI_Is_thread_main");
    if (!flag) return tw_mpi_error(NULL, "MPI_Is_thread_main", MPI_ERR_ARG, "flag is NULL");
    *flag = pthread_equal(pthread_self(), tw_mpi.main_thread) != 0;
    return MPI_SUCCESS;
}

/* No profiling library is built in: the levels mean nothing here. */
int MPI_Pcontrol(const int level, ...) {
    (void)level;
    return MPI_SUCCESS;
}
