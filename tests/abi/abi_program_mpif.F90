! abi_program.F90 through mpif.h instead of the mpi module
#define TW_MPIF_H
#include "abi_program.F90"
