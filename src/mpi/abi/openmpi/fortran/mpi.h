/* The face's header under the name libmpifort's C includes (fortran.h: <mpi.h>), for
 * the Fortran library of Open MPI's face. */
#include <tollway/face_openmpi.h>
