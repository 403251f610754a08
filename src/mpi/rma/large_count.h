/* The one-sided paths the large-count calls (rma/large_count.c) share with the int
 * forms (win_rma.c, win_acc.c): counts are MPI_Count, call names the call. */
#ifndef TW_MPI_RMA_LARGE_COUNT_H
#define TW_MPI_RMA_LARGE_COUNT_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* get 0: a put, 1: a get; request NULL: not request-based */
int tw_mpi_rma_put_get(const char *call, int get, void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                       MPI_Request *request);
/* fetch: the get forms (the result buffer counts); with_req: the request-based forms */
int tw_mpi_rma_accumulate(const char *call, const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int fetch, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                          MPI_Request *request, int with_req);

#pragma GCC visibility pop

#endif
