/* MPI_T events (events.c): what the rest of libmpi raises, and what it costs there.
 *
 * A unit that has something to tell raises it only while a tool listens:
 *
 *     if (tw_mpi_t_event_wanted(TW_EVENT_UNEXPECTED)) tw_mpi_t_event_unexpected(...);
 *
 * With no handle registered that is one load of tw_mpi_t_events_on and one branch
 * the compiler lays out as not taken; everything else is out of line. */
#ifndef TW_MPI_TOOLS_EVENTS_H
#define TW_MPI_TOOLS_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* The event types, by index (MPI_T_event_get_info). */
enum {
    TW_EVENT_UNEXPECTED,  /* a message kept in the unexpected queue */
    TW_EVENT_RNDV_BEGIN,  /* a send goes by rendezvous */
    TW_EVENT_PEER_LOST,   /* a peer declared lost */
    TW_EVENT_RETRANSMITS, /* the udp link sent data packets again */
    TW_EVENT_COUNT
};

/* Bit e: some handle of event type e has a callback. */
extern unsigned tw_mpi_t_events_on;

static inline int tw_mpi_t_event_wanted(int event) {
    return __builtin_expect((tw_mpi_t_events_on >> event) & 1, 0);
}

/* The raisers, one per type (out of line, cold). Ranks are world ranks; context is
 * the context id the message travels on; a rendezvous's variant is 0 by get, 1 by get
 * chunk by chunk, 2 split, 3 by put. */
void tw_mpi_t_event_unexpected(int source, int tag, size_t bytes, uint32_t context);
void tw_mpi_t_event_rndv_begin(int dest, int tag, size_t bytes, uint32_t context, int variant);
void tw_mpi_t_event_peer_lost(int world, int cause, int by);

/* The number of event types; MPI_T_finalize's release of every handle (under the
 * interface's lock). */
int tw_mpi_t_event_count(void);
void tw_mpi_t_events_release(void);

#pragma GCC visibility pop

#endif
