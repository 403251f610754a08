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

static const char *class_names[] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid operation",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_IN_STATUS] = "error code in status",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_KEYVAL] = "invalid attribute key",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_RMA_CONFLICT] = "conflicting accesses to a window",
    [MPI_ERR_RMA_SYNC] = "wrong synchronization of RMA calls",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_ASSERT] = "invalid assertion",
    [MPI_ERR_RMA_RANGE] = "target memory outside the window",
    [MPI_ERR_RMA_ATTACH] = "memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
    [MPI_ERR_DIMS] = "invalid dimensions",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_AMODE] = "invalid file access mode",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_CONVERSION] = "data conversion failed",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_INFO_KEY] = "info key too long",
    [MPI_ERR_INFO_VALUE] = "info value too long",
    [MPI_ERR_INFO_NOKEY] = "no such info key",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_NAME] = "service name not published",
    [MPI_ERR_NOT_SAME] = "arguments differ between processes",
    [MPI_ERR_NO_SPACE] = "no space left",
    [MPI_ERR_NO_SUCH_FILE] = "no such file",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "read-only file",
    [MPI_ERR_SERVICE] = "invalid service name",
    [MPI_ERR_SPAWN] = "processes could not be spawned",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "unsupported operation",
    [MPI_T_ERR_MEMORY] = "tools interface: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "tools interface not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "tools interface cannot be initialized",
    [MPI_T_ERR_INVALID_INDEX] = "tools interface: invalid index",
    [MPI_T_ERR_INVALID_ITEM] = "tools interface: invalid item",
    [MPI_T_ERR_INVALID_HANDLE] = "tools interface: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "tools interface: out of handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "tools interface: out of sessions",
    [MPI_T_ERR_INVALID_SESSION] = "tools interface: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "control variable cannot be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "performance variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "performance variable cannot be written",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "performance variable cannot be read and reset atomically",
    [MPI_T_ERR_INVALID_NAME] = "tools interface: no variable of that name",
    [MPI_T_ERR_INVALID] = "tools interface: invalid use",
    [MPI_T_ERR_NOT_SUPPORTED] = "tools interface: not supported",
    [MPI_T_ERR_NOT_ACCESSIBLE] = "tools interface: not accessible now",
    [MPIX_ERR_PROC_FAILED] = "process failed",
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_PROC_ABORTED] = "a process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "a value does not fit its output argument",
    [MPI_ERR_ERRHANDLER] = "invalid error handler",
};

int MPI_Error_class(int errorcode, int *errorclass) {
    if (!errorclass) return MPI_ERR_ARG;
    if (tw_mpi_lost_class(errorcode, errorclass) || tw_mpi_gave_up_class(errorcode, errorclass) ||
        tw_mpi_user_class(errorcode, errorclass))
        return MPI_SUCCESS;
    if (errorcode < 0 || errorcode >= (int)(sizeof class_names / sizeof *class_names) ||
        !class_names[errorcode])
        return MPI_ERR_ARG; /* not an error code of this library */
    *errorclass = errorcode;
    return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen) {
    if (!string || !resultlen) return MPI_ERR_ARG;
    if (tw_mpi_lost_string(errorcode, string, resultlen) ||
        tw_mpi_gave_up_string(errorcode, string, resultlen) ||
        tw_mpi_user_string(errorcode, string, resultlen))
        return MPI_SUCCESS;
    const char *s = errorcode >= 0 && errorcode < (int)(sizeof class_names / sizeof *class_names) &&
                            class_names[errorcode]
                        ? class_names[errorcode]
                        : "unknown error code";
    *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s", s);
    return MPI_SUCCESS;
}

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
