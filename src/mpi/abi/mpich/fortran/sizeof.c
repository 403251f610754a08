/* MPI_SIZEOF of MPICH's mpi module: the module procedures of its module mpi_sizeofs,
 * which its libmpifort.so.12 exports under gfortran's names,
 * __mpi_sizeofs_MOD_mpi_sizeof_<s> for a scalar and ..._<s>v for an array (X(*)).
 * MPICH 4.0 and before (src/binding/fortran/use_mpi/mpi_sizeofs.f90.in; Debian's 4.0)
 * name them by the type, with its size as configure found it for gfortran's default
 * kinds (INTEGER, REAL, LOGICAL 4, DOUBLE PRECISION 8, CHARACTER 1, COMPLEX of default
 * REALs 8, no DOUBLE COMPLEX); 4.1 and later (maint/local_python/binding_f90.py,
 * dump_f90_sizeofs) by type and size, COMPLEX*16 among them. Both sets are here:
 * INTEGER*1, *2 and *8 are named alike in both. */

/* TW_F_SIZEOF(NAME, BYTES) defines one: subroutine NAME(x, size, ierror) sets size to
 * BYTES, the size of one element of x (of the whole of a complex: both parts), and
 * ierror to MPI_SUCCESS (0). x is passed by address and not read; a CHARACTER's
 * procedure is also passed its length, after these (gfortran's hidden length), which
 * it does not read either: MPICH gives the size of a CHARACTER of length 1, whatever
 * the length. */
#define TW_F_SIZEOF(name, bytes)                                                                   \
    void name(const void *x, int *size, int *ierror);                                              \
    void name(const void *x, int *size, int *ierror) {                                             \
        (void)x;                                                                                   \
        *size = (bytes);                                                                           \
        if (ierror) *ierror = 0;                                                                   \
    }

/* clang-format off */
/* X(suffix, bytes): MPICH 4.0's, then those 4.1 added */
#define TW_MPICH_SIZEOFS(X)                                                                        \
    X(i, 4)  X(r, 4)  X(d, 8)  X(l, 4)  X(ch, 1)  X(cx, 8)  X(i1, 1) X(i2, 2) X(i8, 8)             \
    X(i4, 4) X(r4, 4) X(r8, 8) X(l4, 4) X(ch1, 1) X(cx8, 8) X(cx16, 16)
/* clang-format on */

#define TW_MPICH_SIZEOF(s, bytes)                                                                  \
    TW_F_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_##s, bytes)                                           \
    TW_F_SIZEOF(__mpi_sizeofs_MOD_mpi_sizeof_##s##v, bytes)

TW_MPICH_SIZEOFS(TW_MPICH_SIZEOF)
