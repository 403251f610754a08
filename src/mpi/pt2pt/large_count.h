/* The point-to-point paths the large-count calls (pt2pt/large_count.c) share with
 * the int forms (pt2pt.c): counts are MPI_Count throughout, and call names the call
 * for its errors. mode is one of TW_SEND_* (p2p.h). */
#ifndef TW_MPI_PT2PT_LARGE_COUNT_H
#define TW_MPI_PT2PT_LARGE_COUNT_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

int tw_mpi_pt2pt_send(const char *call, const void *buf, MPI_Count count, MPI_Datatype type,
                      int dest, int tag, MPI_Comm comm, int mode, int persistent, MPI_Request *req);
int tw_mpi_pt2pt_send_blocking(const char *call, const void *buf, MPI_Count count,
                               MPI_Datatype type, int dest, int tag, MPI_Comm comm, int mode);
int tw_mpi_pt2pt_recv(const char *call, void *buf, MPI_Count count, MPI_Datatype type, int source,
                      int tag, MPI_Comm comm, int persistent, MPI_Request *req);
int tw_mpi_pt2pt_recv_blocking(const char *call, void *buf, MPI_Count count, MPI_Datatype type,
                               int source, int tag, MPI_Comm comm, MPI_Status *status);
int tw_mpi_pt2pt_sendrecv(const char *call, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                          MPI_Comm comm, MPI_Status *status);
int tw_mpi_pt2pt_sendrecv_replace(const char *call, void *buf, MPI_Count count, MPI_Datatype type,
                                  int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                                  MPI_Status *status);
int tw_mpi_pt2pt_imrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype type,
                        MPI_Message *message, MPI_Request *request);
int tw_mpi_pt2pt_mrecv(const char *call, void *buf, MPI_Count count, MPI_Datatype type,
                       MPI_Message *message, MPI_Status *status);

#pragma GCC visibility pop

#endif
