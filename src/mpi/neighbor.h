/* The neighbourhood collectives (neighbor.c), for a blocking call, a non-blocking one
 * or a persistent one (nb: 0, 1 or TW_COLL_PERSISTENT). */
#ifndef TW_MPI_NEIGHBOR_H
#define TW_MPI_NEIGHBOR_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

/* The neighbourhood calls (neighbor.c); vform: the v form; form 0 plain, 1 v, 2 w. */
int tw_coll_neighbor_allgather(const char *call, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                               int vform, MPI_Comm comm, MPI_Request *req, int nb);
int tw_coll_neighbor_alltoall(const char *call, const void *sendbuf, int sendcount,
                              const int *sendcounts, const int *sdispls, const MPI_Aint *sbdispls,
                              MPI_Datatype sendtype, const MPI_Datatype *sendtypes, void *recvbuf,
                              int recvcount, const int *recvcounts, const int *rdispls,
                              const MPI_Aint *rbdispls, MPI_Datatype recvtype,
                              const MPI_Datatype *recvtypes, int form, MPI_Comm comm,
                              MPI_Request *req, int nb);

#pragma GCC visibility pop

#endif
