/* The common blocks of mpif.h and the mpi module that stand for MPI's special
 * addresses (gen_bindings.py SPECIAL_ADDRESSES): defined here, in their own unit, so
 * that libmpifort reaches them through the GOT and compares with the program's copy;
 * aligned as gfortran aligns a common block. */
#include "mpi/bindings/fortran/fortran.h"

MPI_Fint mpi_fortran_bottom_ __attribute__((aligned(16)));
MPI_Fint mpi_fortran_in_place_ __attribute__((aligned(16)));
MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE] __attribute__((aligned(16)));
MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE] __attribute__((aligned(16)));
MPI_Fint mpi_fortran_errcodes_ignore_[1] __attribute__((aligned(16)));
char mpi_fortran_argv_null_[1] __attribute__((aligned(16)));
char mpi_fortran_argvs_null_[1] __attribute__((aligned(16)));
MPI_Fint mpi_fortran_unweighted_[1] __attribute__((aligned(16)));
MPI_Fint mpi_fortran_weights_empty_[1] __attribute__((aligned(16)));
