/* libmpifort's conversions (fortran.h) and the predefined attribute callbacks a
 * Fortran program names (MPI_COMM_DUP_FN ...), with Fortran's arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/bindings/fortran/fortran.h"

#define TW_COMM_PEERS_CALL(name) PMPI_##name /* a tool sees the program's calls only */
#include "mpi/bindings/comm_peers.h"

int tw_f_comm_peers(MPI_Fint comm, int side) {
    return tw_comm_peers(TW_F2C(MPI_Comm, Comm, comm), side);
}

/* the conversions of TW_F_HANDLES_IN and _DONE, for each kind of handle that comes in
 * arrays (not called where a C handle is an INTEGER) */
#undef TW_F_HANDLE_ARRAYS
#define TW_F_HANDLE_ARRAYS(type, kind)                                                             \
    type *tw_f_##kind##_array_in(const MPI_Fint *f, int n, type *small) {                          \
        if (!f || n < 0) return NULL;                                                              \
        type *c = n <= TW_F_SMALL ? small : malloc((size_t)n * sizeof *c);                         \
        for (int i = 0; c && i < n; i++) c[i] = PMPI_##kind##_f2c(f[i]);                           \
        return c;                                                                                  \
    }                                                                                              \
    void tw_f_##kind##_array_done(type *c, const MPI_Fint *f, int n, type *small, int write) {     \
        for (int i = 0; c && write && i < n; i++) ((MPI_Fint *)f)[i] = PMPI_##kind##_c2f(c[i]);    \
        if (c != small) free(c);                                                                   \
    }
TW_F_HANDLE_ARRAYS(MPI_Request, Request)
TW_F_HANDLE_ARRAYS(MPI_Datatype, Type)
TW_F_HANDLE_ARRAYS(MPI_Info, Info)

void tw_f_indices_from_1(int *indices, int n) {
    if (n == MPI_UNDEFINED) return;
    for (int i = 0; i < n; i++) indices[i] += 1;
}

char *tw_f_string_buf(size_t len) {
    char *c = calloc(len + 1, 1);
    if (!c) {
        fprintf(stderr, "libmpifort: no memory for a string of %zu characters\n", len);
        abort();
    }
    return c;
}

char *tw_f_string_in(const char *s, size_t len) {
    while (len > 0 && s[len - 1] == ' ') len--;
    char *c = tw_f_string_buf(len);
    memcpy(c, s, len);
    return c;
}

char *tw_f_string_trimmed_in(const char *s, size_t len) {
    while (len > 0 && *s == ' ') s++, len--;
    return tw_f_string_in(s, len);
}

void tw_f_string_out(const char *c, char *f, size_t len) {
    size_t n = strnlen(c, len);
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

static void *array_of(size_t n, size_t size) {
    void *a = calloc(n, size);
    if (!a) {
        fprintf(stderr, "libmpifort: no memory for an array of %zu strings\n", n);
        abort();
    }
    return a;
}

static int blank(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ') return 0;
    return 1;
}

char **tw_f_strings_in(const char *a, size_t len, size_t stride, int n) {
    if ((const void *)a == TW_F_ARGV_NULL) return MPI_ARGV_NULL;
    size_t count = 0;
    if (n >= 0)
        count = (size_t)n;
    else
        while (!blank(a + count * stride * len, len)) count++;
    char **strings = array_of(count + 1, sizeof *strings);
    for (size_t i = 0; i < count; i++)
        strings[i] = tw_f_string_trimmed_in(a + i * stride * len, len);
    return strings;
}

void tw_f_strings_free(char **strings) {
    if (!strings) return;
    for (char **s = strings; *s; s++) free(*s);
    free(strings);
}

char ***tw_f_argvs_in(const char *a, size_t len, int rows) {
    if ((const void *)a == TW_F_ARGVS_NULL || rows <= 0) return MPI_ARGVS_NULL;
    char ***argvs = array_of((size_t)rows, sizeof *argvs);
    for (int i = 0; i < rows; i++) argvs[i] = tw_f_strings_in(a + i * len, len, (size_t)rows, -1);
    return argvs;
}

void tw_f_argvs_free(char ***argvs, int rows) {
    if (!argvs) return;
    for (int i = 0; i < rows; i++) tw_f_strings_free(argvs[i]);
    free(argvs);
}

MPI_Aint *tw_f_aints_in(const MPI_Fint *values, int n) {
    MPI_Aint *a = array_of(n > 0 ? (size_t)n : 1, sizeof *a);
    for (int i = 0; i < n; i++) a[i] = values[i];
    return a;
}

int tw_f_aint_out(MPI_Aint value, MPI_Fint *out, const char *call, const char *arg) {
    if (value == (MPI_Fint)value) {
        *out = (MPI_Fint)value;
        return MPI_SUCCESS;
    }
    fprintf(stderr,
            "libmpifort: %s: %s is %lld, which a default INTEGER cannot hold (the MPI-2 call "
            "with INTEGER(KIND=MPI_ADDRESS_KIND) can)\n",
            call, arg, (long long)value);
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG);
    return MPI_ERR_ARG;
}

/* The predefined copy and delete functions, as Fortran calls them (all arguments by
 * reference; the values INTEGER(KIND=MPI_ADDRESS_KIND), the MPI-1 ones INTEGER). */
#define NULL_COPY(name, value)                                                                     \
    void name(MPI_Fint *old, MPI_Fint *keyval, value *extra, value *in, value *out,                \
              MPI_Fint *flag, MPI_Fint *ierror);                                                   \
    void name(MPI_Fint *old, MPI_Fint *keyval, value *extra, value *in, value *out,                \
              MPI_Fint *flag, MPI_Fint *ierror) {                                                  \
        *flag = 0;                                                                                 \
        *ierror = MPI_SUCCESS;                                                                     \
    }
#define DUP(name, value)                                                                           \
    void name(MPI_Fint *old, MPI_Fint *keyval, value *extra, value *in, value *out,                \
              MPI_Fint *flag, MPI_Fint *ierror);                                                   \
    void name(MPI_Fint *old, MPI_Fint *keyval, value *extra, value *in, value *out,                \
              MPI_Fint *flag, MPI_Fint *ierror) {                                                  \
        *out = *in;                                                                                \
        *flag = 1;                                                                                 \
        *ierror = MPI_SUCCESS;                                                                     \
    }
#define NULL_DELETE(name, value)                                                                   \
    void name(MPI_Fint *obj, MPI_Fint *keyval, value *attr, value *extra, MPI_Fint *ierror);       \
    void name(MPI_Fint *obj, MPI_Fint *keyval, value *attr, value *extra, MPI_Fint *ierror) {      \
        *ierror = MPI_SUCCESS;                                                                     \
    }

NULL_COPY(mpi_null_copy_fn_, MPI_Fint)
DUP(mpi_dup_fn_, MPI_Fint)
NULL_DELETE(mpi_null_delete_fn_, MPI_Fint)
NULL_COPY(mpi_comm_null_copy_fn_, MPI_Aint)
DUP(mpi_comm_dup_fn_, MPI_Aint)
NULL_DELETE(mpi_comm_null_delete_fn_, MPI_Aint)
NULL_COPY(mpi_type_null_copy_fn_, MPI_Aint)
DUP(mpi_type_dup_fn_, MPI_Aint)
NULL_DELETE(mpi_type_null_delete_fn_, MPI_Aint)
NULL_COPY(mpi_win_null_copy_fn_, MPI_Aint)
DUP(mpi_win_dup_fn_, MPI_Aint)
NULL_DELETE(mpi_win_null_delete_fn_, MPI_Aint)

/* MPI_F_SYNC_REG (MPI-4.1 19.1.17): a call the compiler cannot see into, so that it
 * keeps a register copy of buf from moving across it; it does nothing. */
void pmpi_f_sync_reg_(void *buf);
void pmpi_f_sync_reg_(void *buf) {}
void mpi_f_sync_reg_(void *buf) __attribute__((weak, alias("pmpi_f_sync_reg_")));
TW_F_ALSO(void, f_sync_reg, (void *buf))
