/* Buffered sends (bsend.c): MPI_Bsend copies into an attached buffer. */
#ifndef TW_MPI_BSEND_H
#define TW_MPI_BSEND_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

typedef struct tw_mpi_staged tw_mpi_staged_t;
struct tw_mpi_comm;

/* A buffer for buffered sends, as MPI-4.1 lets the process, a communicator or a
 * session own one: the program's memory, or (MPI_BUFFER_AUTOMATIC) copies the
 * library allocates per message. A buffered send uses its communicator's buffer,
 * else its session's (tw_mpi_bbuf_of_session), else the process's. */
typedef struct tw_mpi_bbuf tw_mpi_bbuf_t;

/* Attach (a new buffer object in *owner, which must be NULL: else MPI_ERR_BUFFER),
 * detach (the object freed and *owner NULL once its sends are delivered; nothing
 * attached: NULL and 0 back), flush (waits for its sends) and a non-blocking flush
 * (a request that completes once none of its sends is in flight). call names the
 * errors, raised on comm (NULL: MPI_COMM_WORLD's handler). */
int tw_mpi_bbuf_attach(tw_mpi_bbuf_t **owner, void *buffer, MPI_Count size,
                       struct tw_mpi_comm *comm, const char *call);
int tw_mpi_bbuf_detach(tw_mpi_bbuf_t **owner, void *buffer_addr, MPI_Count *size,
                       struct tw_mpi_comm *comm, const char *call);
/* detach for the int forms: a size past INT_MAX comes back MPI_UNDEFINED, with
 * MPI_ERR_VALUE_TOO_LARGE (the buffer is detached all the same) */
int tw_mpi_bbuf_detach_int(tw_mpi_bbuf_t **owner, void *buffer_addr, int *size,
                           struct tw_mpi_comm *comm, const char *call);
void tw_mpi_bbuf_flush(tw_mpi_bbuf_t *b);
int tw_mpi_bbuf_iflush(tw_mpi_bbuf_t *b, uint32_t context, MPI_Request *request);
/* A communicator's buffer at its end: its sends delivered, the object freed. */
void tw_mpi_bbuf_release(tw_mpi_bbuf_t **owner);
/* Where a session's buffer is found (set by the session unit; NULL: no sessions):
 * the buffer of the session a communicator context was made from, or NULL. */
extern tw_mpi_bbuf_t *(*tw_mpi_bbuf_of_session)(uint32_t context);

/* Registers buffered sends with the point-to-point engine. */
void tw_mpi_bsend_init(void);
/* buffered sends (bsend.c) */
int tw_mpi_bsend(const void *buf, size_t bytes, int dest_world, int tag, uint32_t context);
void tw_mpi_bsend_fini(void); /* waits for every buffered send of the process's buffer */
/* A buffered send of a staged buffer: packed straight into the attached buffer. */
int tw_mpi_bsend_staged(const tw_mpi_staged_t *st, int dest_world, int tag, uint32_t context);

#pragma GCC visibility pop

#endif
