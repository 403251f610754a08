/* The point-to-point calls (pt2pt.c): the parts of a send-receive that its
 * non-blocking forms (pt2pt/isendrecv.c) share. */
#ifndef TW_MPI_PT2PT_H
#define TW_MPI_PT2PT_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Checks both halves of a send-receive (errors raised as call), then starts the
 * receive as r[0] and the send as r[1]; on an error neither is left running. */
int tw_mpi_sendrecv_start(const char *call, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                          MPI_Comm comm, MPI_Request r[2]);
/* A packed copy (malloc'ed) of count items of datatype at buf, to send from while the
 * reply lands in buf; its size in *bytes. NULL with *rc the error raised as call. */
void *tw_mpi_sendrecv_copy(const char *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Comm comm, MPI_Count *bytes, int *rc);

/* for the large-count forms (MPI_Count counts; the int forms call these too) */
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
