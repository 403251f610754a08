/* Fortran procedures the library calls back with a handle (a user operation's
 * datatype, an error handler's communicator, window, file or session). Where a C
 * handle is an INTEGER (Tollway's, MPICH's) the procedure is called as the C function
 * it matches argument for argument. Where it is wider (Open MPI's face: a pointer),
 * the C library gets a trampoline that passes the handle's INTEGER: one of
 * TW_F_SLOTS per kind, bound to the procedure the first time it is given (the same
 * procedure given again shares its slot), for the process's life. */
#include <pthread.h>
#include <stdio.h>

#include "mpi/bindings/fortran/fortran.h"

enum { TW_F_SLOTS = 32 };

typedef void tw_f_proc(void);
typedef void tw_f_user_fn(void *in, void *inout, MPI_Fint *len, MPI_Fint *datatype);
typedef void tw_f_user_c_fn(void *in, void *inout, MPI_Count *len, MPI_Fint *datatype);
typedef void tw_f_errhandler_fn(MPI_Fint *handle, MPI_Fint *code);

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

/* the slot of proc in procs (taken when free), or -1 when all are another's */
static int slot(tw_f_proc **procs, tw_f_proc *proc, const char *kind) {
    int found = -1;
    pthread_mutex_lock(&slots_lock);
    for (int i = 0; i < TW_F_SLOTS && found < 0; i++) {
        if (!procs[i]) procs[i] = proc;
        if (procs[i] == proc) found = i;
    }
    pthread_mutex_unlock(&slots_lock);
    if (found < 0)
        fprintf(stderr,
                "tollway MPI: more than %d Fortran %s procedures given to this MPI's "
                "Fortran library, which converts their handles through one slot each: "
                "the call fails\n",
                TW_F_SLOTS, kind);
    return found;
}

/* clang-format off */
#define TW_F_SLOT_LIST(X)                                                                          \
    X(0)  X(1)  X(2)  X(3)  X(4)  X(5)  X(6)  X(7)                                                 \
    X(8)  X(9)  X(10) X(11) X(12) X(13) X(14) X(15)                                                \
    X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)                                                \
    X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)
/* clang-format on */

/* user operations: the datatype's INTEGER (len is the C one's: an int, or an MPI_Count) */
#define USER_OPS(name, ctype, lentype, ftype)                                                      \
    static tw_f_proc *name##_procs[TW_F_SLOTS];                                                    \
    TW_F_SLOT_LIST(USER_OP_TRAMPOLINE_##name)                                                      \
    static ctype *const name##_trampolines[TW_F_SLOTS] = {TW_F_SLOT_LIST(TRAMPOLINE_NAME_##name)}; \
    ctype *tw_f_##ctype(void (*proc)(void)) {                                                      \
        if (sizeof(MPI_Datatype) == sizeof(MPI_Fint)) return (ctype *)proc;                        \
        int i = slot(name##_procs, proc, "user operation");                                        \
        return i < 0 ? NULL : name##_trampolines[i];                                               \
    }
#define USER_OP_TRAMPOLINE(name, lentype, ftype, i)                                                \
    static void name##_trampoline_##i(void *in, void *inout, lentype *len, MPI_Datatype *type) {   \
        MPI_Fint type_f = PMPI_Type_c2f(*type);                                                    \
        ((ftype *)name##_procs[i])(in, inout, len, &type_f);                                       \
    }
#define USER_OP_TRAMPOLINE_user(i)   USER_OP_TRAMPOLINE(user, int, tw_f_user_fn, i)
#define USER_OP_TRAMPOLINE_user_c(i) USER_OP_TRAMPOLINE(user_c, MPI_Count, tw_f_user_c_fn, i)
#define TRAMPOLINE_NAME_user(i)      user_trampoline_##i,
#define TRAMPOLINE_NAME_user_c(i)    user_c_trampoline_##i,

USER_OPS(user, MPI_User_function, int, tw_f_user_fn)
USER_OPS(user_c, MPI_User_function_c, MPI_Count, tw_f_user_c_fn)

/* error handlers: the object's INTEGER */
#define ERRHANDLERS(name, type, kind)                                                              \
    static tw_f_proc *name##_procs[TW_F_SLOTS];                                                    \
    TW_F_SLOT_LIST(EH_TRAMPOLINE_##name)                                                           \
    static MPI_##kind##_errhandler_function *const name##_trampolines[TW_F_SLOTS] = {              \
        TW_F_SLOT_LIST(TRAMPOLINE_NAME_##name)};                                                   \
    MPI_##kind##_errhandler_function *tw_f_MPI_##kind##_errhandler_function(void (*proc)(void)) {  \
        if (sizeof(type) == sizeof(MPI_Fint)) return (MPI_##kind##_errhandler_function *)proc;     \
        int i = slot(name##_procs, proc, "error handler");                                         \
        return i < 0 ? NULL : name##_trampolines[i];                                               \
    }
#define EH_TRAMPOLINE(name, type, kind, i)                                                         \
    static void name##_trampoline_##i(type *handle, int *code, ...) {                              \
        MPI_Fint handle_f = PMPI_##kind##_c2f(*handle);                                            \
        ((tw_f_errhandler_fn *)name##_procs[i])(&handle_f, code);                                  \
    }
#define EH_TRAMPOLINE_comm(i)      EH_TRAMPOLINE(comm, MPI_Comm, Comm, i)
#define EH_TRAMPOLINE_win(i)       EH_TRAMPOLINE(win, MPI_Win, Win, i)
#define EH_TRAMPOLINE_file(i)      EH_TRAMPOLINE(file, MPI_File, File, i)
#define EH_TRAMPOLINE_session(i)   EH_TRAMPOLINE(session, MPI_Session, Session, i)
#define TRAMPOLINE_NAME_comm(i)    comm_trampoline_##i,
#define TRAMPOLINE_NAME_win(i)     win_trampoline_##i,
#define TRAMPOLINE_NAME_file(i)    file_trampoline_##i,
#define TRAMPOLINE_NAME_session(i) session_trampoline_##i,

ERRHANDLERS(comm, MPI_Comm, Comm)
ERRHANDLERS(win, MPI_Win, Win)
ERRHANDLERS(file, MPI_File, File)
ERRHANDLERS(session, MPI_Session, Session)
