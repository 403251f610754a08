/* Error handlers of the program's own for communicators, windows and files, and the
 * calls that make, set, get, call and free them.
 *
 * Handler i has handle 0x54000100 + i. It counts the handles the program holds
 * (its creation and each MPI_*_get_errhandler; MPI_Errhandler_free takes one back),
 * and its slot is reused once none is left and no communicator, window or
 * MPI_FILE_NULL holds it any more (a sweep when a new handler finds no free slot):
 * an object keeps the handler it was given until it is freed or given another. */
#include <stdlib.h>

#include "mpi/env/callback.h"
#include "mpi/env/errhandler.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"

typedef void generic_fn(int *handle, int *code, ...);

typedef struct eh {
    int kind; /* a TW_EH_*; 0: a free slot */
    int refs; /* handles the program holds: the slot is reused once 0 and no object holds it */
    generic_fn *fn;
    tw_mpi_callback_fn *context; /* a face's: the program's function (callback.h) */
} eh_t;

enum { EH_BASE = 0x54000100, EH_MAX = 1 << 20 };
static eh_t *ehs;
static int n_ehs;

MPI_Errhandler tw_mpi_file_eh = MPI_ERRORS_RETURN; /* the standard's default for files */

/* The user handler of a handle, or NULL (predefined ones included). */
static eh_t *eh_get(MPI_Errhandler h) {
    unsigned i = (unsigned)h - EH_BASE;
    return i < (unsigned)n_ehs && ehs[i].kind ? &ehs[i] : NULL;
}

static int predefined(MPI_Errhandler h) {
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT;
}

int tw_mpi_eh_settable(MPI_Errhandler h, int kind) {
    if (predefined(h)) return 1;
    eh_t *e = eh_get(h);
    return e && e->kind == kind;
}

void tw_mpi_eh_ref(MPI_Errhandler h) {
    eh_t *e = eh_get(h);
    if (e) e->refs++;
}

int tw_mpi_eh_call(MPI_Errhandler h, int *handle, int *code) {
    eh_t *e = eh_get(h);
    if (!e) return 0;
    tw_mpi_callback_fn *outer = tw_mpi_callback_context;
    tw_mpi_callback_context = e->context;
    int raised = *code;
    e->fn(handle, code);
    /* a handler that clears the code does not make the failed call a success: the call
     * stopped where it failed, and its callers inside the library must stop too */
    if (*code == MPI_SUCCESS) *code = raised;
    tw_mpi_callback_context = outer;
    return 1;
}

int tw_mpi_eh_context_set(int errhandler, tw_mpi_callback_fn *context) {
    eh_t *e = eh_get(errhandler);
    if (!e) return MPI_ERR_ERRHANDLER;
    e->context = context;
    return MPI_SUCCESS;
}

/* Marks in use[] the handlers the objects hold. */
static void mark(unsigned char *in_use, MPI_Errhandler h) {
    unsigned i = (unsigned)h - EH_BASE;
    if (i < (unsigned)n_ehs) in_use[i] = 1;
}

static tw_mpi_eh_holders_fn *holders[TW_EH_SESSION + 1];

void tw_mpi_eh_holders(int kind, tw_mpi_eh_holders_fn *fn) {
    holders[kind] = fn;
}

/* Frees the slots of handlers freed by the program that nothing holds any more. */
static void sweep(void) {
    unsigned char *in_use = calloc((size_t)n_ehs, 1);
    if (!in_use) return;
    for (int kind = 0; kind <= TW_EH_SESSION; kind++)
        if (holders[kind]) holders[kind](mark, in_use);
    mark(in_use, tw_mpi_file_eh);
    for (int i = 0; i < n_ehs; i++)
        if (!ehs[i].refs && !in_use[i]) ehs[i] = (eh_t){0};
    free(in_use);
}

int tw_mpi_eh_new(const char *call, int kind, void (*user_fn)(int *, int *, ...),
                  MPI_Errhandler *errhandler) {
    generic_fn *fn = user_fn;
    if (!fn || !errhandler)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "the function or errhandler is NULL");
    int i = 0;
    while (i < n_ehs && ehs[i].kind) i++;
    if (i == n_ehs) {
        sweep();
        for (i = 0; i < n_ehs && ehs[i].kind;) i++;
    }
    if (i == n_ehs) {
        int grown = n_ehs ? 2 * n_ehs : 64;
        eh_t *more = grown <= EH_MAX ? realloc(ehs, (size_t)grown * sizeof *more) : NULL;
        if (!more) return tw_mpi_error(NULL, call, MPI_ERR_NO_MEM, "too many error handlers");
        for (int k = n_ehs; k < grown; k++) more[k] = (eh_t){0};
        ehs = more;
        n_ehs = grown;
    }
    ehs[i] = (eh_t){kind, 1, fn, NULL};
    *errhandler = (MPI_Errhandler)(EH_BASE + i);
    return MPI_SUCCESS;
}

static int eh_new(const char *call, int kind, generic_fn *fn, MPI_Errhandler *errhandler) {
    NEED_INIT(call);
    return tw_mpi_eh_new(call, kind, fn, errhandler);
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                               MPI_Errhandler *errhandler) {
    return eh_new("MPI_Comm_create_errhandler", TW_EH_COMM, (generic_fn *)comm_errhandler_fn,
                  errhandler);
}

int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                              MPI_Errhandler *errhandler) {
    return eh_new("MPI_Win_create_errhandler", TW_EH_WIN, (generic_fn *)win_errhandler_fn,
                  errhandler);
}

int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                               MPI_Errhandler *errhandler) {
    return eh_new("MPI_File_create_errhandler", TW_EH_FILE, (generic_fn *)file_errhandler_fn,
                  errhandler);
}

int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler) {
    return eh_new("MPI_Errhandler_create", TW_EH_COMM, (generic_fn *)function, errhandler);
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler) {
    NEED_INIT("MPI_Errhandler_free");
    if (!errhandler) return tw_mpi_error(NULL, "MPI_Errhandler_free", MPI_ERR_ARG, NULL);
    eh_t *e = eh_get(*errhandler);
    if (!e && !predefined(*errhandler))
        return tw_mpi_error(NULL, "MPI_Errhandler_free", MPI_ERR_ARG, "not an error handler");
    if (e && !e->refs)
        return tw_mpi_error(NULL, "MPI_Errhandler_free", MPI_ERR_ARG,
                            "freed already (as often as it was made and got)");
    if (e) e->refs--;
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

/* ---- MPI_FILE_NULL and the open files: their handlers answer the file calls' errors ---- */

static tw_mpi_file_eh_slot_fn *file_slot; /* NULL until a file is opened */

void tw_mpi_files_eh(tw_mpi_file_eh_slot_fn *fn) {
    file_slot = fn;
}

/* The handler slot of fh (MPI_FILE_NULL's included), or NULL: no such file. */
static MPI_Errhandler *slot_of(MPI_File fh) {
    if (fh == MPI_FILE_NULL) return &tw_mpi_file_eh;
    return file_slot ? file_slot(fh) : NULL;
}

/* Reports an error of a file call on fh as its handler (MPI_FILE_NULL's when fh names
 * no open file) says. */
static int file_error(MPI_File fh, const char *call, int errclass, const char *detail) {
    MPI_Errhandler *slot = slot_of(fh);
    if (!slot) {
        slot = &tw_mpi_file_eh;
        fh = MPI_FILE_NULL;
    }
    if (*slot == MPI_ERRORS_RETURN) return errclass;
    if (tw_mpi_eh_call(*slot, &fh, &errclass)) return errclass;
    return tw_mpi_raise(*slot == MPI_ERRORS_ABORT ? MPI_ERRORS_ABORT : MPI_ERRORS_ARE_FATAL, NULL,
                        fh == MPI_FILE_NULL ? "MPI_FILE_NULL" : "a file", call, errclass, detail);
}

int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
    NEED_INIT("MPI_File_set_errhandler");
    MPI_Errhandler *slot = slot_of(file);
    if (!slot) return file_error(file, "MPI_File_set_errhandler", MPI_ERR_FILE, "no such file");
    if (!tw_mpi_eh_settable(errhandler, TW_EH_FILE))
        return file_error(file, "MPI_File_set_errhandler", MPI_ERR_ARG, "not a file error handler");
    *slot = errhandler;
    return MPI_SUCCESS;
}

int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler) {
    NEED_INIT("MPI_File_get_errhandler");
    MPI_Errhandler *slot = slot_of(file);
    if (!slot) return file_error(file, "MPI_File_get_errhandler", MPI_ERR_FILE, "no such file");
    if (!errhandler) return file_error(file, "MPI_File_get_errhandler", MPI_ERR_ARG, NULL);
    *errhandler = *slot;
    tw_mpi_eh_ref(*errhandler);
    return MPI_SUCCESS;
}

int MPI_File_call_errhandler(MPI_File fh, int errorcode) {
    NEED_INIT("MPI_File_call_errhandler");
    if (!slot_of(fh))
        return file_error(fh, "MPI_File_call_errhandler", MPI_ERR_FILE, "no such file");
    file_error(fh, "MPI_File_call_errhandler", errorcode, NULL);
    return MPI_SUCCESS;
}
