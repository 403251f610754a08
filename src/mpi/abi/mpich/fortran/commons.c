/* MPICH's common blocks (commons.h), defined here so that the library has them when a
 * program's do not preempt them; aligned as gfortran aligns a common block. */
#include "mpi/bindings/fortran/fortran.h"

struct tw_mpich_mpipriv1 mpipriv1_ __attribute__((aligned(16)));
struct tw_mpich_mpipriv2 mpipriv2_ __attribute__((aligned(16)));
struct tw_mpich_mpiprivc mpiprivc_ __attribute__((aligned(16)));
MPI_Fint mpifcmb5_ __attribute__((aligned(16)));
MPI_Fint mpifcmb9_ __attribute__((aligned(16)));
