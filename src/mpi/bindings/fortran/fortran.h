/* libmpifort's conversions between Fortran's arguments and C's, which the generated
 * entry points (gen_bindings.py fortran-c) and the hand-written ones (by_hand.c) use,
 * in libmpifort and, compiled against a face's header, in that face's Fortran library
 * (docs/abi.md). The special addresses of mpif.h and the mpi module (MPI_BOTTOM,
 * MPI_IN_PLACE, MPI_STATUS_IGNORE ...) are common blocks that the library defines
 * (commons.c, or the face's MPI's, TW_F_COMMONS): an argument is one when its address
 * is the block's. */
#ifndef TW_MPI_BINDINGS_FORTRAN_H
#define TW_MPI_BINDINGS_FORTRAN_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#ifdef TW_F_COMMONS
/* a face's library (src/mpi/abi/<face>/fortran/): its MPI's common blocks */
#include TW_F_COMMONS
#else
/* gfortran's names of the common blocks (lower case, one trailing underscore); read
 * through the GOT, so that the program's copy of a block is the one compared with */
extern MPI_Fint mpi_fortran_bottom_;
extern MPI_Fint mpi_fortran_in_place_;
extern MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_errcodes_ignore_[1];
extern char mpi_fortran_argv_null_[1];
extern char mpi_fortran_argvs_null_[1];
extern MPI_Fint mpi_fortran_unweighted_[1];
extern MPI_Fint mpi_fortran_weights_empty_[1];
#define TW_F_BOTTOM          ((const void *)&mpi_fortran_bottom_)
#define TW_F_IN_PLACE        ((const void *)&mpi_fortran_in_place_)
#define TW_F_STATUS_IGNORE   ((const void *)mpi_fortran_status_ignore_)
#define TW_F_STATUSES_IGNORE ((const void *)mpi_fortran_statuses_ignore_)
#define TW_F_ERRCODES_IGNORE ((const void *)mpi_fortran_errcodes_ignore_)
#define TW_F_ARGV_NULL       ((const void *)mpi_fortran_argv_null_)
#define TW_F_ARGVS_NULL      ((const void *)mpi_fortran_argvs_null_)
#define TW_F_UNWEIGHTED      ((const void *)mpi_fortran_unweighted_)
#define TW_F_WEIGHTS_EMPTY   ((const void *)mpi_fortran_weights_empty_)
#endif

/* Another name of an entry point, for another MPI's library that calls the entry points
 * under it (Open MPI's libmpi_usempif08, the mpi_f08 module's procedures, calls
 * ompi_send_f): a face's fortran/mpi.h defines these; none by default. name: the entry
 * point's without its mpi_ prefix; the second for MPI-4.0's persistent collectives
 * (mpi_bcast_init_), which Open MPI 4.1 had as extensions (ompix_bcast_init_f). */
#ifndef TW_F_ALSO
#define TW_F_ALSO(ret, name, params)
#endif
#ifndef TW_F_ALSO_PERSISTENT_COLLECTIVE
#define TW_F_ALSO_PERSISTENT_COLLECTIVE(ret, name, params)
#endif

/* A handle's INTEGER as the C handle, and back: the same value (Tollway's handles are
 * ints, as are those of the faces whose Fortran handles are their C ones); a handle
 * wider than an int (MPICH's MPI_File) goes through the library's conversion. */
#define TW_F2C(type, kind, f)                                                                      \
    (sizeof(type) == sizeof(MPI_Fint) ? (type)(intptr_t)(f) : PMPI_##kind##_f2c(f))
#define TW_C2F(type, kind, c)                                                                      \
    (sizeof(type) == sizeof(MPI_Fint) ? (MPI_Fint)(intptr_t)(c) : PMPI_##kind##_c2f(c))

/* An array of n INTEGER handles as C's: the array itself where a C handle is an
 * INTEGER (Tollway's, MPICH's), else a converted copy, in small when n <= TW_F_SMALL
 * (NULL when no room can be had: the call reports the array). TW_F_HANDLES_DONE after
 * the call writes an array the call wrote (write) back and gives the copy back. */
#define TW_F_SMALL 16
#define TW_F_HANDLES_IN(type, kind, f, n, small)                                                   \
    (sizeof(type) == sizeof(MPI_Fint) ? (type *)(f) : tw_f_##kind##_array_in(f, n, small))
#define TW_F_HANDLES_DONE(type, kind, c, f, n, small, write)                                       \
    (sizeof(type) == sizeof(MPI_Fint) ? (void)(small)                                              \
                                      : tw_f_##kind##_array_done(c, f, n, small, write))
#define TW_F_HANDLE_ARRAYS(type, kind)                                                             \
    type *tw_f_##kind##_array_in(const MPI_Fint *f, int n, type *small);                           \
    void tw_f_##kind##_array_done(type *c, const MPI_Fint *f, int n, type *small, int write);
TW_F_HANDLE_ARRAYS(MPI_Request, Request)
TW_F_HANDLE_ARRAYS(MPI_Datatype, Type)
TW_F_HANDLE_ARRAYS(MPI_Info, Info)

/* A Fortran procedure the library calls back with a handle, as the C function to give
 * it (callbacks.c): itself, or a trampoline that passes the handle's INTEGER; NULL
 * when no trampoline is left (the call then fails on it). */
MPI_User_function *tw_f_MPI_User_function(void (*proc)(void));
MPI_User_function_c *tw_f_MPI_User_function_c(void (*proc)(void));
MPI_Comm_errhandler_function *tw_f_MPI_Comm_errhandler_function(void (*proc)(void));
MPI_Win_errhandler_function *tw_f_MPI_Win_errhandler_function(void (*proc)(void));
MPI_File_errhandler_function *tw_f_MPI_File_errhandler_function(void (*proc)(void));
MPI_Session_errhandler_function *tw_f_MPI_Session_errhandler_function(void (*proc)(void));

/* the length of an array indexed by comm's peers (comm_peers.h) */
int tw_f_comm_peers(MPI_Fint comm, int side);

/* a choice buffer: MPI_BOTTOM and MPI_IN_PLACE become C's */
static inline void *tw_f_buf(const void *buf) {
    if (buf == TW_F_BOTTOM) return MPI_BOTTOM;
    if (buf == TW_F_IN_PLACE) return MPI_IN_PLACE;
    return (void *)buf;
}

static inline int tw_f_status_ignored(const MPI_Fint *status) {
    return (const void *)status == TW_F_STATUS_IGNORE;
}

/* an array of Fortran statuses is one of C statuses (the same ints, convert.c) */
static inline MPI_Status *tw_f_statuses(MPI_Fint *statuses) {
    return (const void *)statuses == TW_F_STATUSES_IGNORE ? MPI_STATUSES_IGNORE
                                                          : (MPI_Status *)statuses;
}

static inline int *tw_f_errcodes(int *codes) {
    return (const void *)codes == TW_F_ERRCODES_IGNORE ? MPI_ERRCODES_IGNORE : codes;
}

static inline int *tw_f_weights(const int *weights) {
    if ((const void *)weights == TW_F_UNWEIGHTED) return MPI_UNWEIGHTED;
    if ((const void *)weights == TW_F_WEIGHTS_EMPTY) return MPI_WEIGHTS_EMPTY;
    return (int *)weights;
}

/* whether this process is comm's root, where the arguments only the root reads are
 * converted (MPI_Comm_spawn's argv); a null communicator counts as one, for the C
 * call to report */
static inline int tw_f_is_root(const MPI_Fint *root, const MPI_Fint *comm) {
    MPI_Comm c = TW_F2C(MPI_Comm, Comm, *comm);
    int rank = -1;
    return c == MPI_COMM_NULL || (PMPI_Comm_rank(c, &rank) == MPI_SUCCESS && rank == *root);
}

/* The removed MPI-1 calls' addresses, extents and displacements, default INTEGERs in
 * Fortran: n of them as a new array of MPI_Aint (to be freed); and one out, or, when
 * it does not fit the INTEGER, an error (MPI_ERR_ARG, to MPI_COMM_WORLD's handler)
 * with a message naming the call and the argument. */
MPI_Aint *tw_f_aints_in(const MPI_Fint *values, int n);
int tw_f_aint_out(MPI_Aint value, MPI_Fint *out, const char *call, const char *arg);

/* C's indices count from 0, Fortran's from 1 (n may be MPI_UNDEFINED: none) */
void tw_f_indices_from_1(int *indices, int n);

/* A CHARACTER input as a C string: without its trailing blanks (MPI-4.1 19.3.9),
 * NUL-terminated, to be freed. */
char *tw_f_string_in(const char *s, size_t len);
/* A CHARACTER input without its leading and trailing blanks: an info key or value
 * (MPI_Info_set: "In Fortran, leading and trailing spaces in key and value are
 * stripped"), a spawned program's argument (as MPICH and Open MPI take it). */
char *tw_f_string_trimmed_in(const char *s, size_t len);
/* room for a C string of at most len characters and its NUL, to be freed */
char *tw_f_string_buf(size_t len);
/* a C string into a CHARACTER of len: cut at len, padded with blanks */
void tw_f_string_out(const char *c, char *f, size_t len);

/* An array of CHARACTER*(len) in as a NULL-terminated array of C strings (each
 * without its leading and trailing blanks), to be freed by tw_f_strings_free: n entries, or
 * (n < 0) those before the first blank entry (an argv, MPI-4.1 11.8.2); stride
 * entries apart (a row of a 2-D array: the number of rows). MPI_ARGV_NULL is C's. */
char **tw_f_strings_in(const char *a, size_t len, size_t stride, int n);
void tw_f_strings_free(char **strings);
/* array_of_argv(rows, *): an argv a row; MPI_ARGVS_NULL is C's */
char ***tw_f_argvs_in(const char *a, size_t len, int rows);
void tw_f_argvs_free(char ***argvs, int rows);

#endif
