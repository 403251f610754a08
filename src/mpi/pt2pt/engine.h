/* The point-to-point engine as the rest of MPI sees it: sends, receives,
 * probes, requests and their completion. Peers are world ranks. */
#ifndef TW_MPI_P2P_H
#define TW_MPI_P2P_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>
#include <tollway/tollway.h>

#include "mpi/pt2pt/channel.h"
#include "mpi/pt2pt/request.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_comm tw_mpi_comm_t;
typedef struct tw_mpi_staged tw_mpi_staged_t;

void tw_mpi_p2p_init(void);
/* Room for world ranks up to n - 1 (peers a connection adds, dynamic.c). */
int tw_mpi_p2p_grow(int n);
/* The handle of every eager send that left at once: complete from the start, it
 * takes no request slot (as MPICH's lightweight requests). Its index bits are 0, so
 * it is never a slot's handle. */
#define TW_MPI_REQUEST_SENT ((MPI_Request)0x2c7f0000)

/* send modes; a ready send is a standard one */
enum { TW_SEND_STANDARD, TW_SEND_SYNC, TW_SEND_BUFFERED };
int tw_mpi_isend(const void *buf, size_t bytes, int dest_world, int tag, uint32_t context, int mode,
                 MPI_Request *req);
int tw_mpi_irecv(void *buf, size_t bytes, int source_world, int tag, uint32_t context,
                 MPI_Request *req);
/* Receive modes. An operand is combined by this rank right after it lands (a
 * reduction's): a rendezvous into it is not split (proto_rndv_split.c), so all of it
 * lands in this core's cache, where a split leaves the sender's half in the sender's
 * (2-rank osu_reduce, 64 KiB: 11.6 us split, 8.0 not). */
enum { TW_RECV_STANDARD, TW_RECV_OPERAND };
int tw_mpi_irecv_as(void *buf, size_t bytes, int source_world, int tag, uint32_t context, int mode,
                    MPI_Request *req);
/* Persistent requests, created inactive; tw_mpi_start runs one once more. */
int tw_mpi_send_init(const void *buf, size_t bytes, int dest_world, int tag, uint32_t context,
                     int mode, MPI_Request *req);
int tw_mpi_recv_init(void *buf, size_t bytes, int source_world, int tag, uint32_t context,
                     MPI_Request *req);
int tw_mpi_start(MPI_Request req);
int tw_mpi_iprobe(int source_world, int tag, uint32_t context, int *flag, MPI_Status *status);
int tw_mpi_improbe(int source_world, int tag, uint32_t context, int *flag, MPI_Message *msg,
                   MPI_Status *status);
int tw_mpi_imrecv(void *buf, size_t bytes, MPI_Message *msg, MPI_Request *req);
/* The same for a buffer staged through a packed copy (a non-contiguous derived
 * datatype): the request takes st over, and frees it even when starting fails. */
int tw_mpi_send_staged(tw_mpi_staged_t *st, int dest_world, int tag, uint32_t context, int mode,
                       int persistent, MPI_Request *req);
int tw_mpi_recv_staged(tw_mpi_staged_t *st, int source_world, int tag, uint32_t context,
                       int persistent, MPI_Request *req);
int tw_mpi_imrecv_staged(tw_mpi_staged_t *st, MPI_Message *msg, MPI_Request *req);
int tw_mpi_message_valid(MPI_Message msg);
/* The communicator of a matched message, for its errors (NULL: none). */
tw_mpi_comm_t *tw_mpi_message_comm(MPI_Message msg);

/* How a buffered send starts (bsend.c registers it): the data is copied aside and
 * sent from there; buf NULL: packed from st. */
typedef int tw_mpi_buffered_fn(const void *buf, const tw_mpi_staged_t *st, size_t bytes,
                               int dest_world, int tag, uint32_t context);
void tw_mpi_p2p_set_buffered(tw_mpi_buffered_fn *fn);

/* One message from channel ch's mailbox. 0 when it cannot be taken now: it stays in
 * the mailbox and holds its sender back. */
int tw_p2p_arrive(tw_channel_t *ch, const tw_velo_msg_t *m);

/* The protocol of send request r (its mode and size set). */
tw_proto_t tw_proto_choose(const req_t *r);

#pragma GCC visibility pop

#endif
