/* The common blocks of MPICH's mpif.h and mpi module that stand for MPI's special
 * addresses, as MPICH's libmpifort.so.12 names and lays them out (mpif.h: COMMON
 * /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE and the rest): the Fortran
 * face's library compares an argument's address with the program's copy of a block
 * (fortran.h includes this in place of Tollway's names). */
#ifndef TW_MPI_ABI_MPICH_FORTRAN_COMMONS_H
#define TW_MPI_ABI_MPICH_FORTRAN_COMMONS_H

struct tw_mpich_mpipriv1 {
    MPI_Fint bottom, in_place, status_ignore[MPI_F_STATUS_SIZE];
};
struct tw_mpich_mpipriv2 {
    MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE], errcodes_ignore[1];
};
struct tw_mpich_mpiprivc {
    char argvs_null[1], argv_null[1];
};
extern struct tw_mpich_mpipriv1 mpipriv1_;
extern struct tw_mpich_mpipriv2 mpipriv2_;
extern struct tw_mpich_mpiprivc mpiprivc_;
extern MPI_Fint mpifcmb5_; /* MPI_UNWEIGHTED */
extern MPI_Fint mpifcmb9_; /* MPI_WEIGHTS_EMPTY */

#define TW_F_BOTTOM          ((const void *)&mpipriv1_.bottom)
#define TW_F_IN_PLACE        ((const void *)&mpipriv1_.in_place)
#define TW_F_STATUS_IGNORE   ((const void *)mpipriv1_.status_ignore)
#define TW_F_STATUSES_IGNORE ((const void *)mpipriv2_.statuses_ignore)
#define TW_F_ERRCODES_IGNORE ((const void *)mpipriv2_.errcodes_ignore)
#define TW_F_ARGV_NULL       ((const void *)mpiprivc_.argv_null)
#define TW_F_ARGVS_NULL      ((const void *)mpiprivc_.argvs_null)
#define TW_F_UNWEIGHTED      ((const void *)&mpifcmb5_)
#define TW_F_WEIGHTS_EMPTY   ((const void *)&mpifcmb9_)

#endif
