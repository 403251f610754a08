/* MPI_SIZEOF of Open MPI's mpi and mpi_f08 modules: external subroutines, one for a
 * scalar and one for each rank up to 15, of each type, and their PMPI_ twins,
 * mpi_sizeof_<type>_scalar_ and mpi_sizeof_<type>_r<rank>_ (ompi/mpi/fortran/base/
 * gen-mpi-sizeof.pl, run with --maxrank=15 for gfortran; the array an assumed-size
 * DIMENSION(1,..,1,*), passed by address). Open MPI's libmpi_usempi_ignore_tkr.so.40
 * exports them, for the mpi module, which the library of this file stands for (face.json's
 * "fortran" "libraries"); libmpi_usempif08.so.40 exports them too (ierror OPTIONAL
 * there), and is Open MPI's own over the face. The size is STORAGE_SIZE(x)/8
 * of one element: of both parts of a complex, of a CHARACTER (of length 1) 1, of a
 * default LOGICAL 4. Open MPI 4.1 has the types from int8 to complex128; 5 adds real16
 * and complex16 (REAL of 2 bytes) where the compiler has them. */
#include "mpi/abi/fortran_sizeof.h"

/* clang-format off */
/* X(type, bytes) */
#define TW_OMPI_SIZEOF_TYPES(X)                                                                    \
    X(int8, 1)      X(int16, 2)     X(int32, 4)      X(int64, 8)                                   \
    X(real16, 2)    X(real32, 4)    X(real64, 8)     X(real128, 16)                                \
    X(complex16, 4) X(complex32, 8) X(complex64, 16) X(complex128, 32)                             \
    X(character, 1) X(logical, 4)

/* X(type, rank, bytes) for every rank of a type */
#define TW_OMPI_SIZEOF_RANKS(X, t, bytes)                                                          \
    X(t, scalar, bytes)                                                                            \
    X(t, r1, bytes)  X(t, r2, bytes)  X(t, r3, bytes)  X(t, r4, bytes)  X(t, r5, bytes)            \
    X(t, r6, bytes)  X(t, r7, bytes)  X(t, r8, bytes)  X(t, r9, bytes)  X(t, r10, bytes)           \
    X(t, r11, bytes) X(t, r12, bytes) X(t, r13, bytes) X(t, r14, bytes) X(t, r15, bytes)
/* clang-format on */

#define TW_OMPI_SIZEOF(t, rank, bytes)                                                             \
    TW_F_SIZEOF(mpi_sizeof_##t##_##rank##_, bytes)                                                 \
    TW_F_SIZEOF(pmpi_sizeof_##t##_##rank##_, bytes)
#define TW_OMPI_SIZEOF_TYPE(t, bytes) TW_OMPI_SIZEOF_RANKS(TW_OMPI_SIZEOF, t, bytes)

TW_OMPI_SIZEOF_TYPES(TW_OMPI_SIZEOF_TYPE)
