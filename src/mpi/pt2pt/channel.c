/* The channels' state: set up once a process, grown when a connection adds peers,
 * and given the endpoint each time the library opens it. */
#include <stdlib.h>

#include "mpi/pt2pt/channel.h"

#include "mpi/env/thread.h"
#include "mpi/datatype/datatype.h"
#include "mpi/pt2pt/engine.h"

tw_channel_t tw_channels[TW_CHANNELS_MOST];
unsigned tw_channel_mask;

_Static_assert((int)TW_CHANNELS_MOST <= (int)TW_MPI_LOCKS, "a lock for every channel");

int tw_channels_init(int count, int peers, size_t unexpected_max) {
    tw_channel_mask = (unsigned)count - 1;
    for (int k = 0; k < count; k++) {
        tw_channel_t *ch = &tw_channels[k];
        tw_match_init(&ch->match, unexpected_max);
        ch->reqs.channel = (uint8_t)k;
        ch->pending_to = calloc((size_t)peers, sizeof *ch->pending_to);
        ch->refused_in = calloc((size_t)peers, sizeof *ch->refused_in);
        ch->pieces = calloc((size_t)peers, sizeof *ch->pieces);
        if (!ch->pending_to || !ch->refused_in || !ch->pieces) return -1;
    }
    return 0;
}

int tw_channels_grow(int peers, int n) {
    for (int k = 0; k < tw_channel_count(); k++) {
        tw_channel_t *ch = &tw_channels[k];
        int *to = realloc(ch->pending_to, (size_t)n * sizeof *to);
        if (!to) return -1;
        ch->pending_to = to;
        unsigned *in = realloc(ch->refused_in, (size_t)n * sizeof *in);
        if (!in) return -1;
        ch->refused_in = in;
        tw_pieces_t *pieces = realloc(ch->pieces, (size_t)n * sizeof *pieces);
        if (!pieces) return -1;
        ch->pieces = pieces;
        for (int r = peers; r < n; r++) {
            to[r] = 0;
            in[r] = 0;
            pieces[r] = (tw_pieces_t){MPI_REQUEST_NULL, NULL, 0, 0};
        }
    }
    return 0;
}

_Static_assert(TW_CHANNELS_MOST <= TW_EP_WAIT_SET_MOST,
               "a wait sleeps on every channel's doorbell at once");

int tw_channels_open(tw_ep_t *first) {
    tw_channels[0].ep = first;
    for (int k = 1; k < tw_channel_count(); k++) {
        int rc = tw_ep_open(&tw_channels[k].ep);
        if (rc) {
            tw_channels[k].ep = NULL;
            tw_channels_close();
            return rc;
        }
    }
    /* a wait sleeps on every channel's doorbell: another channel's traffic does not
     * ring the first's */
    for (int k = 0; k < tw_channel_count(); k++) tw_mpi.eps[k] = tw_channels[k].ep;
    tw_mpi.neps = tw_channel_count();
    return TW_OK;
}

void tw_channels_close(void) {
    tw_mpi.neps = 0;
    for (int k = 1; k < tw_channel_count(); k++)
        if (tw_channels[k].ep) {
            tw_ep_close(tw_channels[k].ep);
            tw_channels[k].ep = NULL;
        }
    tw_channels[0].ep = NULL;
}

static unsigned lock_of(const tw_channel_t *ch) {
    return 1u << (ch - tw_channels);
}

unsigned tw_mpi_lock_of_comm(MPI_Comm comm) {
    if (tw_channel_single()) return TW_MPI_LOCK_LIBRARY;
    const tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    return c ? lock_of(c->channel) : TW_MPI_LOCK_LIBRARY;
}

unsigned tw_mpi_lock_of_comm_at(const MPI_Comm *comm) {
    return comm ? tw_mpi_lock_of_comm(*comm) : TW_MPI_LOCK_LIBRARY;
}

unsigned tw_mpi_lock_of_requests(int count, const MPI_Request *requests) {
    if (tw_channel_single() || !requests || count <= 0) return TW_MPI_LOCK_LIBRARY;
    unsigned set = 0;
    for (int k = 0; k < count; k++) {
        MPI_Request h = requests[k];
        if (h == MPI_REQUEST_NULL || h == TW_MPI_REQUEST_SENT) continue; /* nothing to guard */
        int i = tw_req_index(h);
        set |= i > 0 ? 1u << tw_reqs[i].channel : TW_MPI_LOCK_LIBRARY;
        /* a persistent buffered send starts in the buffer, the library's; one staged
         * through a derived datatype looks it up in the library's table */
        if (i > 0 && ((tw_reqs[i].kind == REQ_SEND && tw_reqs[i].mode == TW_SEND_BUFFERED) ||
                      tw_reqs[i].staged))
            set |= TW_MPI_LOCK_LIBRARY;
    }
    return set ? set : TW_MPI_LOCK_LIBRARY;
}

unsigned tw_mpi_lock_of_message(const MPI_Message *message) {
    if (tw_channel_single() || !message) return TW_MPI_LOCK_LIBRARY;
    int i = tw_req_slot(*message, 0x6c);
    return i > 0 ? 1u << tw_reqs[i].channel : TW_MPI_LOCK_LIBRARY;
}

unsigned tw_mpi_lock_of_type(MPI_Datatype type) {
    return tw_channel_single() || tw_mpi_type_contiguous_size(type) >= 0 ? 0 : TW_MPI_LOCK_LIBRARY;
}

unsigned tw_mpi_lock_all(void) {
    return tw_channel_single() ? TW_MPI_LOCK_LIBRARY : (1u << tw_channel_count()) - 1;
}
