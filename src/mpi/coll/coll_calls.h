/* The collective calls as the MPI bindings and the persistent collectives reach them
 * (coll_calls.c): checks, algorithm choice and schedule, for a blocking call, a
 * non-blocking one or a persistent one (nb: 0, 1 or TW_COLL_PERSISTENT). */
#ifndef TW_MPI_COLL_CALLS_H
#define TW_MPI_COLL_CALLS_H

#include <mpi.h>

#include "mpi/coll/vec.h"

#pragma GCC visibility push(hidden)

/* The calls (coll_calls.c): checks, algorithm, schedule; call names the MPI call. */
/* Counts are MPI_Count, count and displacement arrays either kind (coll/vec.h): the
 * int forms and the large-count forms (coll/large_count.c) share these. */
typedef enum { TW_COLL_ALLREDUCE, TW_COLL_SCAN, TW_COLL_EXSCAN } tw_coll_everyone_t;
int tw_coll_call_barrier(const char *call, MPI_Comm comm, MPI_Request *req, int nb);
int tw_coll_call_bcast(const char *call, void *buf, MPI_Count count, MPI_Datatype type, int root,
                       MPI_Comm comm, MPI_Request *req, int nb);
int tw_coll_call_reduce(const char *call, const void *sendbuf, void *recvbuf, MPI_Count count,
                        MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request *req,
                        int nb);
int tw_coll_call_reduce_everyone(const char *call, tw_coll_everyone_t kind, const void *sendbuf,
                                 void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm, MPI_Request *req, int nb);
/* recvcounts absent: every block is block items */
int tw_coll_call_reduce_scatter(const char *call, const void *sendbuf, void *recvbuf,
                                tw_mpi_vec_t recvcounts, MPI_Count block, MPI_Datatype type,
                                MPI_Op op, MPI_Comm comm, MPI_Request *req, int nb);
/* gather 1: gather, 0: scatter */
int tw_coll_call_rooted(const char *call, int gather, const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *req, int nb);
int tw_coll_call_rooted_v(const char *call, int gather, const void *sendbuf,
                          tw_mpi_vec_t sendcounts, MPI_Count sendcount, tw_mpi_vec_t displs,
                          MPI_Datatype sendtype, void *recvbuf, tw_mpi_vec_t recvcounts,
                          MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                          MPI_Request *req, int nb);
/* recvcounts absent: every block is recvcount items (allgather) */
int tw_coll_call_allgather(const char *call, const void *sendbuf, MPI_Count sendcount,
                           MPI_Datatype sendtype, void *recvbuf, tw_mpi_vec_t recvcounts,
                           MPI_Count recvcount, tw_mpi_vec_t displs, MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Request *req, int nb);
/* vform 0: uniform blocks; per_rank: one type per rank, displacements in bytes (w) */
int tw_coll_call_alltoall(const char *call, int vform, const void *sendbuf, tw_mpi_vec_t sendcounts,
                          MPI_Count sendcount, tw_mpi_vec_t sdispls, const MPI_Datatype *sendtypes,
                          void *recvbuf, tw_mpi_vec_t recvcounts, MPI_Count recvcount,
                          tw_mpi_vec_t rdispls, const MPI_Datatype *recvtypes, int per_rank,
                          MPI_Comm comm, MPI_Request *req, int nb);
#pragma GCC visibility pop

#endif
