/* The face's header under the name libmpifort's C includes (fortran.h: <mpi.h>), for
 * the Fortran library of Open MPI's face. */
#include <tollway/face_openmpi.h>

/* Open MPI's mpif.h entry points call its implementation under these names, and so
 * does its own libmpi_usempif08 (the mpi_f08 module's procedures), which then runs
 * over this library: ompi_send_f, and ompix_bcast_init_f for Open MPI 4.1's persistent
 * collectives (fortran.h) */
#define TW_F_ALSO(ret, name, params)                                                               \
    ret ompi_##name##_f params __attribute__((weak, alias("pmpi_" #name "_")));
#define TW_F_ALSO_PERSISTENT_COLLECTIVE(ret, name, params)                                         \
    ret ompix_##name##_f params __attribute__((weak, alias("pmpi_" #name "_")));
