/* MPI progress (engine.c): one pass takes in what the mailbox and the notification
 * queue hold and moves every request on. The point-to-point kinds of message are
 * handled by the engine itself; other units register handlers for their own kinds,
 * for notifications of their own operations, and hooks to run in every pass.
 * The engine never calls those units by name. */
#ifndef TW_MPI_P2P_PROGRESS_H
#define TW_MPI_P2P_PROGRESS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <tollway/tollway.h>

#include "mpi/env/hooks.h" /* the hooks each pass runs */

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* One progress pass. */
void tw_mpi_progress(void);

/* A handler of one kind of VELO message (wire.h), from world rank source. */
typedef void tw_mpi_message_fn(int source, const void *data, size_t len);
void tw_mpi_progress_on_message(int kind, tw_mpi_message_fn *fn);

/* The handler of the device's TW_VELO_TAG_LOST messages (failure.c): a peer was
 * declared lost. */
void tw_mpi_progress_on_lost(tw_mpi_message_fn *fn);

/* Notifications whose cookie has this bit set belong to operations of another unit
 * (windows): they go to its handler, and are looked for only while
 * tw_mpi_notify_waiters is non-zero (that unit counts what it waits for there). */
#define TW_MPI_COOKIE_HOOKED ((uint64_t)1 << 63)
typedef void tw_mpi_notification_fn(const tw_notification_t *n);
void tw_mpi_progress_on_notification(tw_mpi_notification_fn *fn);
extern _Atomic int tw_mpi_notify_waiters; /* read by every channel's pass */
/* Notifications whose cookie has this bit set (and not TW_MPI_COOKIE_HOOKED) are the
 * puts of partitioned requests (pt2pt/partitioned.c); looked for on the same terms. */
#define TW_MPI_COOKIE_PART ((uint64_t)1 << 62)
void tw_mpi_progress_on_part_notification(tw_mpi_notification_fn *fn);

#pragma GCC visibility pop

#endif
