/* Error classes, codes and strings the program adds (MPI_Add_error_*).
 *
 * They are numbered above MPI_ERR_LASTCODE, in the order they are added, from one
 * counter: the last one is MPI_LASTUSEDCODE. */
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

int tw_mpi_user_class(int code, int *errclass) {
    user_code_t *u = code_get(code);
    if (u) *errclass = u->errclass;
    return u != NULL;
}

int tw_mpi_user_string(int code, char *string, int *resultlen) {
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
