/* Handle and status conversion between the C and Fortran bindings.
 *
 * Handles are ints in both, of the same value: a conversion passes the value, and
 * whatever is not a handle stays one that the calls refuse. A Fortran status is
 * the C status's fields in order, as MPI_Fint; an MPI_F08_status the same. */
#include <string.h>

#include "mpi/env/error.h"
#include "mpi/env/state.h"

_Static_assert(sizeof(MPI_Status) == sizeof(MPI_F08_status), "a status is six ints in C and F08");
_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "a status is a whole number of ints");

#define CONVERT(Kind, type)                                                                        \
    MPI_Fint MPI_##Kind##_c2f(type h) {                                                            \
        return (MPI_Fint)h;                                                                        \
    }                                                                                              \
    type MPI_##Kind##_f2c(MPI_Fint h) {                                                            \
        return (type)h;                                                                            \
    }

CONVERT(Comm, MPI_Comm)
CONVERT(Type, MPI_Datatype)
CONVERT(Group, MPI_Group)
CONVERT(Request, MPI_Request)
CONVERT(Op, MPI_Op)
CONVERT(Info, MPI_Info)
CONVERT(Win, MPI_Win)
CONVERT(Errhandler, MPI_Errhandler)
CONVERT(Message, MPI_Message)
CONVERT(File, MPI_File)

/* Both sides are plain ints in the same order: a status converts by its bytes. */
static int copy_status(const char *call, const void *from, void *to) {
    if (!from || !to)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "a status is NULL (or an IGNORE)");
    memmove(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status) {
    return copy_status("MPI_Status_c2f", c_status, f_status);
}

int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status) {
    return copy_status("MPI_Status_f2c", f_status, c_status);
}

int MPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status) {
    return copy_status("MPI_Status_c2f08", c_status, f08_status);
}

int MPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status) {
    return copy_status("MPI_Status_f082c", f08_status, c_status);
}

/* MPI-4.1: the Fortran status and the Fortran 2008 one hold the same MPI_Fint fields */
int MPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status) {
    return copy_status("MPI_Status_f082f", f08_status, f_status);
}

int MPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status) {
    return copy_status("MPI_Status_f2f08", f_status, f08_status);
}
