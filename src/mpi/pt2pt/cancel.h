/* MPI_Cancel of receives and sends (cancel.c). */
#ifndef TW_MPI_CANCEL_H
#define TW_MPI_CANCEL_H

#include <mpi.h>
#include <tollway/tollway.h>

#include "mpi/pt2pt/channel.h"

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* MPI_Cancel of request req (point-to-point): MPI_SUCCESS, or MPI_ERR_REQUEST when it
 * names no active one. */
int tw_mpi_cancel(MPI_Request req);
/* Asks the receiver of send i to drop its message; on a full mailbox the ask waits
 * with the refused gets, which send it again. The answer is a part of the send. */
void tw_proto_cancel_ask(int i);
/* A TW_MPI_CANCEL from m->source on ch: an ask, which drops the message it names if no
 * receive has taken it and answers which (0: the answer found no room; take the ask
 * again later), or an answer to one of ours. Dropped when it is neither. */
int tw_proto_cancel_take(tw_channel_t *ch, const tw_velo_msg_t *m);

#pragma GCC visibility pop

#endif
