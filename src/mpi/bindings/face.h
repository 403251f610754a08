/* What a face's generated C (face_<face>.c, gen_face.py) knows of the native library
 * without its mpi.h, whose names the face's header takes: the native status, the
 * callback context (mpi/env/callback.h), the predefined callbacks and weights, and
 * the helpers of face.c. Native handles are ints. */
#ifndef TW_MPI_BINDINGS_FACE_H
#define TW_MPI_BINDINGS_FACE_H

#include "mpi/comm_create/comm_idup.h" /* MPI_Comm_idup's entry for the faces */

/* the native MPI_Status (include/mpi.h); face.c asserts the layout */
typedef struct {
    int source, tag, error;
    int count_lo, count_hi, cancelled;
} tw_native_status;

/* a native callback's type, whatever it is: converted back by the core's caller */
typedef void tw_native_fn(void);

#pragma GCC visibility push(hidden)

extern _Thread_local tw_native_fn *tw_mpi_callback_context; /* mpi/env/callback.h */
/* Keeps context with handle, a user op or error handler of the program's; an MPI error
 * class (MPI_ERR_OP, MPI_ERR_ERRHANDLER, MPI_ERR_ARG) when it is neither. */
int tw_mpi_callback_context_set(int handle, tw_native_fn *context);

/* the native predefined attribute callbacks, and MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY */
int tw_native_comm_null_copy(int, int, void *, void *, void *,
                             int *) __asm__("MPI_COMM_NULL_COPY_FN");
int tw_native_comm_dup(int, int, void *, void *, void *, int *) __asm__("MPI_COMM_DUP_FN");
int tw_native_comm_null_delete(int, int, void *, void *) __asm__("MPI_COMM_NULL_DELETE_FN");
int tw_native_datatype_null_copy(int, int, void *, void *, void *,
                                 int *) __asm__("MPI_TYPE_NULL_COPY_FN");
int tw_native_datatype_dup(int, int, void *, void *, void *, int *) __asm__("MPI_TYPE_DUP_FN");
int tw_native_datatype_null_delete(int, int, void *, void *) __asm__("MPI_TYPE_NULL_DELETE_FN");
int tw_native_win_null_copy(int, int, void *, void *, void *,
                            int *) __asm__("MPI_WIN_NULL_COPY_FN");
int tw_native_win_dup(int, int, void *, void *, void *, int *) __asm__("MPI_WIN_DUP_FN");
int tw_native_win_null_delete(int, int, void *, void *) __asm__("MPI_WIN_NULL_DELETE_FN");
extern int *const tw_native_unweighted __asm__("MPI_UNWEIGHTED");
extern int *const tw_native_weights_empty __asm__("MPI_WEIGHTS_EMPTY");

/* The length of an alltoallw's type arrays on communicator comm: side 0 its (remote)
 * size, 1 its topology's in-degree, 2 its out-degree; 0 when comm is none of those. */
int tw_face_comm_peers(int comm, int side);
/* n native statuses for a call of a face whose status has its own layout (more than
 * its stack holds: MPI_Waitall of many requests): the thread's array, kept and grown,
 * so that the calls allocate nothing once it is large enough; while it is taken (a
 * callback of the call makes another) a fresh one. NULL without memory. Given back by
 * tw_face_statuses_give. */
tw_native_status *tw_face_statuses_take(int n);
void tw_face_statuses_give(tw_native_status *statuses);
/* The sum of the n counts (MPI_Comm_spawn_multiple's error codes). */
int tw_face_sum(int n, const int *counts);
/* MPI_Abi_get_fortran_booleans (set 0) and MPI_Abi_set_fortran_booleans (set 1): the
 * values of a Fortran LOGICAL of logical_size bytes, as a Fortran library set them. */
int tw_face_fortran_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set,
                             int set);

#pragma GCC visibility pop

#endif
