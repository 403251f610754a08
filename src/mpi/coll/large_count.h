/* The collective paths the large-count calls (coll/large_count.c) share with the int
 * forms (coll_calls.c): counts are MPI_Count, count and displacement arrays either
 * kind (coll/vec.h), call names the call for its errors, nb says non-blocking (req
 * then receives the request). */
#ifndef TW_MPI_COLL_LARGE_COUNT_H
#define TW_MPI_COLL_LARGE_COUNT_H

#include <mpi.h>

#include "mpi/coll/vec.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

enum { TW_MPI_ALLREDUCE, TW_MPI_SCAN, TW_MPI_EXSCAN };

int tw_mpi_coll_bcast(const char *call, void *buf, MPI_Count count, MPI_Datatype type, int root,
                      MPI_Comm comm, MPI_Request *req, int nb);
int tw_mpi_coll_reduce(const char *call, const void *sendbuf, void *recvbuf, MPI_Count count,
                       MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request *req,
                       int nb);
/* kind: TW_MPI_ALLREDUCE, _SCAN or _EXSCAN */
int tw_mpi_coll_reduce_everyone(const char *call, int kind, const void *sendbuf, void *recvbuf,
                                MPI_Count count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                MPI_Request *req, int nb);
/* recvcounts absent: every block is block items */
int tw_mpi_coll_reduce_scatter(const char *call, const void *sendbuf, void *recvbuf,
                               tw_mpi_vec_t recvcounts, MPI_Count block, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm, MPI_Request *req, int nb);
/* gather 1: gather, 0: scatter */
int tw_mpi_coll_rooted(const char *call, int gather, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *req, int nb);
int tw_mpi_coll_rooted_v(const char *call, int gather, const void *sendbuf, tw_mpi_vec_t sendcounts,
                         MPI_Count sendcount, tw_mpi_vec_t displs, MPI_Datatype sendtype,
                         void *recvbuf, tw_mpi_vec_t recvcounts, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *req, int nb);
/* recvcounts absent: every block is recvcount items (allgather) */
int tw_mpi_coll_allgather(const char *call, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf, tw_mpi_vec_t recvcounts,
                          MPI_Count recvcount, tw_mpi_vec_t displs, MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request *req, int nb);
/* vform 0: uniform blocks; per_rank: one type per rank, displacements in bytes (w) */
int tw_mpi_coll_alltoall(const char *call, int vform, const void *sendbuf, tw_mpi_vec_t sendcounts,
                         MPI_Count sendcount, tw_mpi_vec_t sdispls, const MPI_Datatype *sendtypes,
                         void *recvbuf, tw_mpi_vec_t recvcounts, MPI_Count recvcount,
                         tw_mpi_vec_t rdispls, const MPI_Datatype *recvtypes, int per_rank,
                         MPI_Comm comm, MPI_Request *req, int nb);
/* the neighbourhood collectives (neighbor.c): vform 1 the v form; form 1 v, 2 w
 * (byte displacements sbdispls and rbdispls, one type per neighbour) */
int tw_mpi_neighbor_allgather(const char *call, const void *sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                              tw_mpi_vec_t recvcounts, tw_mpi_vec_t displs, MPI_Datatype recvtype,
                              int vform, MPI_Comm comm, MPI_Request *req, int nb);
int tw_mpi_neighbor_alltoall(const char *call, const void *sendbuf, MPI_Count sendcount,
                             tw_mpi_vec_t sendcounts, tw_mpi_vec_t sdispls,
                             const MPI_Aint *sbdispls, MPI_Datatype sendtype,
                             const MPI_Datatype *sendtypes, void *recvbuf, MPI_Count recvcount,
                             tw_mpi_vec_t recvcounts, tw_mpi_vec_t rdispls,
                             const MPI_Aint *rbdispls, MPI_Datatype recvtype,
                             const MPI_Datatype *recvtypes, int form, MPI_Comm comm,
                             MPI_Request *req, int nb);

#pragma GCC visibility pop

#endif
