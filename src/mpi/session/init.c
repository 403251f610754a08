/* MPI environment: init and finalize, errors and error handlers, communicators
 * WORLD and SELF, datatype sizes, time. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/library_version.h"
#include "mpi/comm/attr.h"
#include "mpi/pt2pt/bsend.h"
#include "mpi/comm/comm.h"
#include "mpi/session/dynamic.h"
#include "mpi/env/errcode.h"
#include "mpi/env/errhandler.h"
#include "mpi/env/error.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/env/fatal_signal.h"
#include "mpi/env/info.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/coll/schedule.h"
#include "mpi/session/runtime.h"
#include "mpi/env/state.h"
#include "mpi/pt2pt/partitioned.h"
#include "mpi/env/thread.h"
#include "mpi/rma/win.h"

tw_mpi_state_t tw_mpi;

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    if (tw_mpi.initialized) {
        fprintf(stderr, "tollway MPI: MPI_Init called %s\n",
                tw_mpi.finalized ? "after MPI_Finalize" : "twice");
        return MPI_ERR_OTHER;
    }
    /* every level is provided; MULTIPLE switches the library's lock on (thread.h) */
    int level = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                 : required;
    if (tw_mpi_users_add("MPI_Init", level)) _exit(1);
    tw_mpi_info_env_init(argc ? *argc : 0, argv ? *argv : NULL, required);
    tw_mpi.initialized = 1;
    tw_mpi_dynamic_init(); /* a spawned job connects to its parents */
    if (provided) *provided = tw_mpi.thread_level;
    return MPI_SUCCESS;
}

int MPI_Init(int *argc, char ***argv) {
    int provided;
    return MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}

int MPI_Finalize(void) {
    if (!tw_mpi.initialized || tw_mpi.finalized) {
        fprintf(stderr, "tollway MPI: MPI_Finalize called %s\n",
                tw_mpi.finalized ? "twice" : "before MPI_Init");
        return MPI_ERR_OTHER;
    }
    /* MPI_COMM_SELF's attributes go first: their delete callbacks may still use MPI */
    tw_mpi_attr_finalize_self();
    tw_mpi_bsend_fini(); /* buffered sends are delivered */
    /* nobody leaves while a peer may still talk to it; by messages unless WORLD's
     * collectives have their shared block already (none is made to be freed at once) */
    tw_mpi_comm_get(MPI_COMM_WORLD)->shm_tried = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    tw_mpi.finalized = 1;
    tw_mpi_users_drop(); /* the endpoint closes unless a session still uses it */
    return MPI_SUCCESS;
}

int MPI_Initialized(int *flag) {
    if (!flag) return MPI_ERR_ARG;
    *flag = tw_mpi.initialized;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag) {
    if (!flag) return MPI_ERR_ARG;
    *flag = tw_mpi.finalized;
    return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
    (void)comm;
    char msg[128];
    snprintf(msg, sizeof msg, "tollway MPI: rank %d called MPI_Abort(%d)", tw_mpi.rank, errorcode);
    /* as an exit status: the code modulo 256 as a process's own exit takes it, and never
     * 0 (MPI_Abort(comm, 256) is no success); the launcher's PMI server reads it so too */
    int status = errorcode & 0xff ? errorcode & 0xff : 1;
    fflush(NULL); /* what the program printed is not lost with the process (_exit below) */
    if (tw_mpi.ep) tw_ep_abort(tw_mpi.ep, status, msg);
    fprintf(stderr, "%s\n", msg);
    _exit(status);
}

int MPI_Get_processor_name(char *name, int *resultlen) {
    if (!name || !resultlen) return MPI_ERR_ARG;
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME))
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion) {
    if (!version || !subversion) return MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

/* What every program built with mpi.h refers to (mpi.h says why). */
const char tollway_mpi_h_needs_tollway_libmpi_so_0[] = TW_MPI_LIBRARY_VERSION;

int MPI_Get_library_version(char *version, int *resultlen) {
    if (!version || !resultlen) return MPI_ERR_ARG;
    *resultlen = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s", TW_MPI_LIBRARY_VERSION);
    return MPI_SUCCESS;
}

double MPI_Wtime(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double MPI_Wtick(void) {
    struct timespec t;
    clock_getres(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
