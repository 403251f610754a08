/* The native side of the faces' generated C (face.h). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi/bindings/comm_peers.h"
#include "mpi/bindings/face.h"
#include "mpi/coll/op.h"
#include "mpi/env/callback.h"
#include "mpi/env/errhandler.h"

_Static_assert(sizeof(tw_native_status) == sizeof(MPI_Status) &&
                   offsetof(tw_native_status, source) == offsetof(MPI_Status, MPI_SOURCE) &&
                   offsetof(tw_native_status, tag) == offsetof(MPI_Status, MPI_TAG) &&
                   offsetof(tw_native_status, error) == offsetof(MPI_Status, MPI_ERROR),
               "face.h's status is mpi.h's");

int tw_mpi_callback_context_set(int handle, tw_native_fn *context) {
    switch ((unsigned)handle >> 24) { /* the handle's kind (mpi.h) */
    case 0x58:
        return tw_mpi_op_context_set(handle, context);
    case 0x54:
        return tw_mpi_eh_context_set(handle, context);
    default:
        return MPI_ERR_ARG;
    }
}

int tw_face_comm_peers(int comm, int side) {
    return tw_comm_peers(comm, side);
}

/* the thread's statuses: kept for the thread's life (a few KiB at most in practice) */
static _Thread_local tw_native_status *statuses_kept;
static _Thread_local size_t statuses_kept_n;
static _Thread_local int statuses_taken;

tw_native_status *tw_face_statuses_take(int n) {
    if (n <= 0) return NULL;
    if (statuses_taken) return malloc((size_t)n * sizeof(tw_native_status));
    if (statuses_kept_n < (size_t)n) {
        tw_native_status *more = realloc(statuses_kept, (size_t)n * sizeof *more);
        if (!more) return NULL;
        statuses_kept = more;
        statuses_kept_n = (size_t)n;
    }
    statuses_taken = 1;
    return statuses_kept;
}

void tw_face_statuses_give(tw_native_status *statuses) {
    if (statuses && statuses == statuses_kept && statuses_taken)
        statuses_taken = 0;
    else
        free(statuses);
}

int tw_face_sum(int n, const int *counts) {
    int sum = 0;
    for (int i = 0; counts && i < n; i++) sum += counts[i] > 0 ? counts[i] : 0;
    return sum;
}

/* what MPI_Abi_set_fortran_booleans set, by size: 1, 2, 4, 8 and 16 bytes */
static struct {
    int set;
    unsigned char true_value[16], false_value[16];
} booleans[5];

int tw_face_fortran_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set,
                             int set) {
    int i = logical_size == 1    ? 0
            : logical_size == 2  ? 1
            : logical_size == 4  ? 2
            : logical_size == 8  ? 3
            : logical_size == 16 ? 4
                                 : -1;
    if (i < 0 || !logical_true || !logical_false || (!set && !is_set)) return MPI_ERR_ARG;
    if (set) {
        memcpy(booleans[i].true_value, logical_true, (size_t)logical_size);
        memcpy(booleans[i].false_value, logical_false, (size_t)logical_size);
        booleans[i].set = 1;
        return MPI_SUCCESS;
    }
    *is_set = booleans[i].set;
    if (booleans[i].set) {
        memcpy(logical_true, booleans[i].true_value, (size_t)logical_size);
        memcpy(logical_false, booleans[i].false_value, (size_t)logical_size);
    }
    return MPI_SUCCESS;
}
