/* Persistent collectives (coll/persistent.c, MPI-4.1 sections 6.13 and 8.8): the
 * collective calls of coll_calls.c and neighbor.c, written once into a schedule
 * kept by an inactive persistent request; MPI_Start runs its steps again. */
#ifndef TW_MPI_COLL_PERSISTENT_H
#define TW_MPI_COLL_PERSISTENT_H

#include <mpi.h>

#include "mpi/schedule.h"

#pragma GCC visibility push(hidden)

/* The nb argument of the calls below: 0 blocking, 1 non-blocking, or this: a
 * persistent request (req) whose schedule is written now and run at each start. */
enum { TW_COLL_PERSISTENT = 2 };

/* Seals schedule s (written with keep set) and gives it to a new inactive
 * persistent request; frees s on failure. 0 or the error class. */
int tw_coll_persistent_make(tw_sched_t *s, MPI_Request *req);
/* MPI_Start of request slot handle r, whose schedule is s (p2p.c's tw_mpi_start). */
int tw_coll_persistent_start(tw_sched_t *s, MPI_Request r);

/* The calls (coll_calls.c): checks, algorithm, schedule; call names the MPI call. */
typedef enum { TW_COLL_ALLREDUCE, TW_COLL_SCAN, TW_COLL_EXSCAN } tw_coll_everyone_t;
int tw_coll_call_barrier(const char *call, MPI_Comm comm, MPI_Request *req, int nb);
int tw_coll_call_bcast(const char *call, void *buf, int count, MPI_Datatype type, int root,
                       MPI_Comm comm, MPI_Request *req, int nb);
int tw_coll_call_reduce(const char *call, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request *req,
                        int nb);
int tw_coll_call_reduce_everyone(const char *call, tw_coll_everyone_t kind, const void *sendbuf,
                                 void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm, MPI_Request *req, int nb);
/* recvcounts NULL: every block is block items (the block form) */
int tw_coll_call_reduce_scatter(const char *call, const void *sendbuf, void *recvbuf,
                                const int *recvcounts, int block, MPI_Datatype type, MPI_Op op,
                                MPI_Comm comm, MPI_Request *req, int nb);
/* gather 1: a gather, 0: a scatter */
int tw_coll_call_rooted(const char *call, int gather, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                        int root, MPI_Comm comm, MPI_Request *req, int nb);
int tw_coll_call_rooted_v(const char *call, int gather, const void *sendbuf, const int *sendcounts,
                          int sendcount, const int *displs, MPI_Datatype sendtype, void *recvbuf,
                          const int *recvcounts, int recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm, MPI_Request *req, int nb);
/* recvcounts NULL: every block is recvcount items (allgather) */
int tw_coll_call_allgather(const char *call, const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                           int recvcount, const int *displs, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *req, int nb);
/* vform 0: uniform blocks; per_rank: one type per rank, displacements in bytes (w) */
int tw_coll_call_alltoall(const char *call, int vform, const void *sendbuf, const int *sendcounts,
                          int sendcount, const int *sdispls, const MPI_Datatype *sendtypes,
                          void *recvbuf, const int *recvcounts, int recvcount, const int *rdispls,
                          const MPI_Datatype *recvtypes, int per_rank, MPI_Comm comm,
                          MPI_Request *req, int nb);

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
