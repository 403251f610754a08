/* Error classes, codes and strings the program adds (MPI_Add_error_*).
 *
 * They are numbered above MPI_ERR_LASTCODE, in the order they are added, from one
 * counter: the last one is MPI_LASTUSEDCODE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/env/errcode.h"
#include "mpi/env/errhandler.h"
#include "mpi/env/error.h"
#include "mpi/env/state.h"

typedef struct user_code {
    int errclass; /* the class of a code; a class's own value for a class */
    char *string; /* NULL: "" */
} user_code_t;

enum { FIRST = MPI_ERR_LASTCODE + 1, MAX_CODES = 1 << 20 };
static user_code_t *codes; /* FIRST + i is codes[i] */
static int n_codes, cap_codes;
int tw_mpi_lastusedcode = MPI_ERR_LASTCODE;

/* A code or class the program added and has not removed (errclass 0: removed; its
 * number is never given out again). */
static user_code_t *code_get(int code) {
    long long i = (long long)code - FIRST;
    return i >= 0 && i < n_codes && codes[i].errclass ? &codes[i] : NULL;
}

static int user_class(int code, int *errclass) {
    user_code_t *u = code_get(code);
    if (u) *errclass = u->errclass;
    return u != NULL;
}

static int user_string(int code, char *string, int *resultlen) {
    user_code_t *u = code_get(code);
    if (!u) return 0;
    size_t n = u->string ? strlen(u->string) : 0;
    memcpy(string, u->string ? u->string : "", n + 1);
    *resultlen = (int)n;
    return 1;
}

/* A new code of class errclass (-1: a new class, its own); 0 when out of room. */
static int code_new(int errclass) {
    if (n_codes == cap_codes) {
        int grown = cap_codes ? 2 * cap_codes : 16;
        user_code_t *more =
            grown <= MAX_CODES ? realloc(codes, (size_t)grown * sizeof *more) : NULL;
        if (!more) return 0;
        codes = more;
        cap_codes = grown;
    }
    int code = FIRST + n_codes;
    codes[n_codes++] = (user_code_t){errclass < 0 ? code : errclass, NULL};
    tw_mpi_lastusedcode = code;
    return code;
}

int MPI_Add_error_class(int *errorclass) {
    NEED_INIT("MPI_Add_error_class");
    if (!errorclass) return tw_mpi_error(NULL, "MPI_Add_error_class", MPI_ERR_ARG, NULL);
    int c = code_new(-1);
    if (!c) return tw_mpi_error(NULL, "MPI_Add_error_class", MPI_ERR_NO_MEM, NULL);
    *errorclass = c;
    return MPI_SUCCESS;
}

/* errorclass: a class of the standard's or one the program added. */
int MPI_Add_error_code(int errorclass, int *errorcode) {
    NEED_INIT("MPI_Add_error_code");
    if (!errorcode) return tw_mpi_error(NULL, "MPI_Add_error_code", MPI_ERR_ARG, NULL);
    int cls;
    if (errorclass == MPI_SUCCESS || MPI_Error_class(errorclass, &cls) || cls != errorclass)
        return tw_mpi_error(NULL, "MPI_Add_error_code", MPI_ERR_ARG, "not an error class");
    int c = code_new(errorclass);
    if (!c) return tw_mpi_error(NULL, "MPI_Add_error_code", MPI_ERR_NO_MEM, NULL);
    *errorcode = c;
    return MPI_SUCCESS;
}

/* Only the program's own codes and classes take a string; a new one replaces the old. */
int MPI_Add_error_string(int errorcode, const char *string) {
    NEED_INIT("MPI_Add_error_string");
    user_code_t *u = code_get(errorcode);
    if (!u)
        return tw_mpi_error(NULL, "MPI_Add_error_string", MPI_ERR_ARG,
                            "not an error code or class the program added");
    if (!string) return tw_mpi_error(NULL, "MPI_Add_error_string", MPI_ERR_ARG, "string is NULL");
    size_t n = strnlen(string, MPI_MAX_ERROR_STRING);
    if (n >= MPI_MAX_ERROR_STRING)
        return tw_mpi_error(NULL, "MPI_Add_error_string", MPI_ERR_ARG,
                            "longer than MPI_MAX_ERROR_STRING - 1");
    char *copy = malloc(n + 1);
    if (!copy) return tw_mpi_error(NULL, "MPI_Add_error_string", MPI_ERR_NO_MEM, NULL);
    memcpy(copy, string, n + 1);
    free(u->string);
    u->string = copy;
    return MPI_SUCCESS;
}

/* ---- MPI-4.1: removing them again ---- */

/* The program's own class or code named errorcode (class: 1 for a class, 0 for a
 * code), or NULL after raising what it is not. */
static user_code_t *removable(const char *call, int errorcode, int class) {
    user_code_t *u = code_get(errorcode);
    if (!u || (u->errclass == errorcode) != class) {
        tw_mpi_error(NULL, call, MPI_ERR_ARG,
                     class ? "not an error class the program added (or removed already)"
                           : "not an error code the program added (or removed already)");
        return NULL;
    }
    return u;
}

/* Refused while the class has codes or a string (as MPICH: MPI_ERR_OTHER). */
int MPI_Remove_error_class(int errorclass) {
    const char *call = "MPI_Remove_error_class";
    NEED_INIT(call);
    user_code_t *u = removable(call, errorclass, 1);
    if (!u) return MPI_ERR_ARG;
    for (int i = 0; i < n_codes; i++)
        if (codes[i].errclass == errorclass && FIRST + i != errorclass)
            return tw_mpi_error(NULL, call, MPI_ERR_OTHER,
                                "the class still has error codes; remove them first");
    if (u->string)
        return tw_mpi_error(NULL, call, MPI_ERR_OTHER,
                            "the class still has a string; remove it first");
    u->errclass = 0;
    return MPI_SUCCESS;
}

int MPI_Remove_error_code(int errorcode) {
    const char *call = "MPI_Remove_error_code";
    NEED_INIT(call);
    user_code_t *u = removable(call, errorcode, 0);
    if (!u) return MPI_ERR_ARG;
    if (u->string)
        return tw_mpi_error(NULL, call, MPI_ERR_OTHER,
                            "the code still has a string; remove it first");
    u->errclass = 0;
    return MPI_SUCCESS;
}

/* A code or class without a string has nothing to remove: not an error (as MPICH). */
int MPI_Remove_error_string(int errorcode) {
    const char *call = "MPI_Remove_error_string";
    NEED_INIT(call);
    user_code_t *u = code_get(errorcode);
    if (!u)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG,
                            "not an error code or class the program added (or removed already)");
    free(u->string);
    u->string = NULL;
    return MPI_SUCCESS;
}

/* ---- every code's class and string ---- */

static struct {
    tw_mpi_code_class_fn *cls;
    tw_mpi_code_string_fn *str;
} kinds[TW_CODES_KINDS];

void tw_mpi_error_codes(int kind, tw_mpi_code_class_fn *cls, tw_mpi_code_string_fn *str) {
    kinds[kind].cls = cls;
    kinds[kind].str = str;
}

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
    [MPIX_ERR_PROC_FAILED_PENDING] = "process failed: a receive from any source is pending",
    [MPIX_ERR_REVOKED] = "communicator revoked",
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_PROC_ABORTED] = "a process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "a value does not fit its output argument",
    [MPI_ERR_ERRHANDLER] = "invalid error handler",
};

int MPI_Error_class(int errorcode, int *errorclass) {
    if (!errorclass) return MPI_ERR_ARG;
    for (int kind = 0; kind < TW_CODES_KINDS; kind++)
        if (kinds[kind].cls && kinds[kind].cls(errorcode, errorclass)) return MPI_SUCCESS;
    if (user_class(errorcode, errorclass)) return MPI_SUCCESS;
    if (errorcode < 0 || errorcode >= (int)(sizeof class_names / sizeof *class_names) ||
        !class_names[errorcode])
        return MPI_ERR_ARG; /* not an error code of this library */
    *errorclass = errorcode;
    return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen) {
    if (!string || !resultlen) return MPI_ERR_ARG;
    for (int kind = 0; kind < TW_CODES_KINDS; kind++)
        if (kinds[kind].str && kinds[kind].str(errorcode, string, resultlen)) return MPI_SUCCESS;
    if (user_string(errorcode, string, resultlen)) return MPI_SUCCESS;
    const char *s = errorcode >= 0 && errorcode < (int)(sizeof class_names / sizeof *class_names) &&
                            class_names[errorcode]
                        ? class_names[errorcode]
                        : "unknown error code";
    *resultlen = snprintf(string, MPI_MAX_ERROR_STRING, "%s", s);
    return MPI_SUCCESS;
}
