/* MPI_SIZEOF as the faces' Fortran libraries export it: each MPI's module resolves the
 * generic to specific procedures of its own names, one for each type (and rank), which
 * its library exports, and a program built with that module calls them by those names
 * (MPICH's module procedures __mpi_sizeofs_MOD_mpi_sizeof_i ...: mpich/fortran/sizeof.c;
 * Open MPI's external mpi_sizeof_int32_r2_ ...: openmpi/fortran/usempi/sizeof.c).
 *
 * TW_F_SIZEOF(NAME, BYTES) defines one: subroutine NAME(x, size, ierror) sets size to
 * BYTES, the size of one element of x (of the whole of a complex: both parts), and
 * ierror to MPI_SUCCESS (0 in every MPI). x is passed by address and not read; a
 * CHARACTER's procedure is also passed its length, after these (gfortran's hidden
 * length), which it does not read either: it is the size of a CHARACTER of length 1
 * that MPICH and Open MPI give, whatever the length. ierror may be absent (NULL): Open
 * MPI's mpi_f08 module declares it OPTIONAL and calls the same names. */
#ifndef TW_MPI_ABI_FORTRAN_SIZEOF_H
#define TW_MPI_ABI_FORTRAN_SIZEOF_H

#define TW_F_SIZEOF(name, bytes)                                                                   \
    void name(const void *x, int *size, int *ierror);                                              \
    void name(const void *x, int *size, int *ierror) {                                             \
        (void)x;                                                                                   \
        *size = (bytes);                                                                           \
        if (ierror) *ierror = 0;                                                                   \
    }

#endif
