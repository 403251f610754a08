/* The neighbourhood collectives (neighbor.c), for a blocking call, a non-blocking one
 * or a persistent one (nb: 0, 1 or TW_COLL_PERSISTENT). */
#ifndef TW_MPI_NEIGHBOR_H
#define TW_MPI_NEIGHBOR_H

#include <mpi.h>

#include "mpi/coll/vec.h"

#pragma GCC visibility push(hidden)

/* the neighbourhood collectives (neighbor.c): vform 1 the v form; form 1 v, 2 w
 * (byte displacements sbdispls and rbdispls, one type per neighbour) */
int tw_coll_neighbor_allgather(const char *call, const void *sendbuf, MPI_Count sendcount,
                               MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                               tw_mpi_vec_t recvcounts, tw_mpi_vec_t displs, MPI_Datatype recvtype,
                               int vform, MPI_Comm comm, MPI_Request *req, int nb);
int tw_coll_neighbor_alltoall(const char *call, const void *sendbuf, MPI_Count sendcount,
                              tw_mpi_vec_t sendcounts, tw_mpi_vec_t sdispls,
                              const MPI_Aint *sbdispls, MPI_Datatype sendtype,
                              const MPI_Datatype *sendtypes, void *recvbuf, MPI_Count recvcount,
                              tw_mpi_vec_t recvcounts, tw_mpi_vec_t rdispls,
                              const MPI_Aint *rbdispls, MPI_Datatype recvtype,
                              const MPI_Datatype *recvtypes, int form, MPI_Comm comm,
                              MPI_Request *req, int nb);

#pragma GCC visibility pop

#endif
