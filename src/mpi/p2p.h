/* The point-to-point engine as the rest of MPI sees it: sends, receives,
 * probes, requests and their completion. Peers are world ranks. */
#ifndef TW_MPI_P2P_H
#define TW_MPI_P2P_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_comm tw_mpi_comm_t;
typedef struct tw_mpi_staged tw_mpi_staged_t;

void tw_mpi_p2p_init(void);
/* The handle of every eager send that left at once: complete from the start, it
 * takes no request slot (as MPICH's lightweight requests). Its index bits are 0, so
 * it is never a slot's handle. */
#define TW_MPI_REQUEST_SENT ((MPI_Request)0x2c7f0000)

/* send modes; a ready send is a standard one */
enum { TW_SEND_STANDARD, TW_SEND_SYNC, TW_SEND_BUFFERED };
int tw_mpi_isend(const void *buf, size_t bytes, int dest_world, int tag, uint32_t context, int mode,
                 MPI_Request *req);
/* A blocking eager send straight into the mailbox, when nothing is queued to that
 * peer: MPI_SUCCESS, or 1 when the general path must take it. */
int tw_mpi_send_now(const void *buf, size_t bytes, int dest_world, int tag, uint32_t context);
/* A blocking receive taken straight from the mailbox when nothing else is under
 * way and the first message is an eager one that matches: MPI_SUCCESS or
 * MPI_ERR_TRUNCATE with the status filled, or 1 for the general path. */
int tw_mpi_recv_now(void *buf, size_t bytes, int source_world, int tag, uint32_t context,
                    MPI_Status *status);
int tw_mpi_irecv(void *buf, size_t bytes, int source_world, int tag, uint32_t context,
                 MPI_Request *req);
/* Persistent requests, created inactive; tw_mpi_start runs one once more. */
int tw_mpi_send_init(const void *buf, size_t bytes, int dest_world, int tag, uint32_t context,
                     int mode, MPI_Request *req);
int tw_mpi_recv_init(void *buf, size_t bytes, int source_world, int tag, uint32_t context,
                     MPI_Request *req);
int tw_mpi_start(MPI_Request req);
/* Statuses name the source by its rank in the request's communicator. */
/* Waits for one request and fills status; frees it, or makes a persistent one
 * inactive. Returns the request's error class. */
int tw_mpi_wait(MPI_Request *req, MPI_Status *status);
int tw_mpi_test(MPI_Request *req, int *flag, MPI_Status *status);
/* tw_mpi_test of a request known valid and finished (tw_mpi_request_finished). */
int tw_mpi_finish(MPI_Request *req, MPI_Status *status);
/* MPI_Request_get_status: the status of a finished request, which stays as it is. */
int tw_mpi_request_status(MPI_Request req, int *flag, MPI_Status *status);
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
int tw_mpi_cancel(MPI_Request req);
int tw_mpi_request_valid(MPI_Request req);
int tw_mpi_request_active(MPI_Request req); /* valid, and not an inactive persistent one */
int tw_mpi_request_done(MPI_Request req);   /* active and complete */
/* Null, inactive or complete; req must be null or valid (not checked). */
int tw_mpi_request_finished(MPI_Request req);
int tw_mpi_request_free(MPI_Request *req);
/* The communicator of a request, for its errors (NULL: MPI_COMM_WORLD's handler). */
tw_mpi_comm_t *tw_mpi_request_comm(MPI_Request req);
int tw_mpi_message_valid(MPI_Message msg);
/* The communicator of a matched message, for its errors (NULL: none). */
tw_mpi_comm_t *tw_mpi_message_comm(MPI_Message msg);

/* Requests of non-blocking collectives and of request-based window operations: a
 * slot in the request pool that completes when tw_mpi_coll_request_done says so. */
int tw_mpi_coll_request(uint32_t context, MPI_Request *req);
void tw_mpi_coll_request_done(MPI_Request req, int error);

/* How a buffered send starts (bsend.c registers it): the data is copied aside and
 * sent from there; buf NULL: packed from st. */
typedef int tw_mpi_buffered_fn(const void *buf, const tw_mpi_staged_t *st, size_t bytes,
                               int dest_world, int tag, uint32_t context);
void tw_mpi_p2p_set_buffered(tw_mpi_buffered_fn *fn);

#pragma GCC visibility pop

#endif
