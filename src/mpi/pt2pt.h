/* The point-to-point calls (pt2pt.c): the parts of a send-receive that its
 * non-blocking forms (pt2pt/isendrecv.c) share. */
#ifndef TW_MPI_PT2PT_H
#define TW_MPI_PT2PT_H

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Checks both halves of a send-receive (errors raised as call), then starts the
 * receive as r[0] and the send as r[1]; on an error neither is left running. */
int tw_mpi_sendrecv_start(const char *call, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                          MPI_Comm comm, MPI_Request r[2]);
/* A packed copy (malloc'ed) of count items of datatype at buf, to send from while the
 * reply lands in buf; its size in *bytes. NULL with *rc the error raised as call. */
void *tw_mpi_sendrecv_copy(const char *call, void *buf, int count, MPI_Datatype datatype,
                           MPI_Comm comm, int *bytes, int *rc);

#pragma GCC visibility pop

#endif
