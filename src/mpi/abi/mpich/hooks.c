/* The objects MPICH's library exports and its programs refer to by name (docs/abi.md):
 * MPIR_Dup_fn, which MPI_COMM_DUP_FN and the other DUP callbacks are, and the
 * Fortran status placeholders. MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are the native
 * library's own objects, exported under the same names. */
#include <mpich/mpi.h>

int MPIR_Dup_fn(MPI_Comm comm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag) {
    (void)comm, (void)keyval, (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return 0; /* MPI_SUCCESS */
}

/* no Fortran face yet: MPI_Status_f2c and the rest are not exported */
MPI_Fint *MPI_F_STATUS_IGNORE = 0;
MPI_Fint *MPI_F_STATUSES_IGNORE = 0;
