/* The channels' state: set up once a process, grown when a connection adds peers,
 * and given the endpoint each time the library opens it. */
#include <stdlib.h>

#include "mpi/pt2pt/channel.h"

tw_channel_t tw_channels[TW_CHANNELS];

int tw_channels_init(int peers, size_t unexpected_max) {
    for (int k = 0; k < TW_CHANNELS; k++) {
        tw_channel_t *ch = &tw_channels[k];
        tw_match_init(&ch->match, unexpected_max / TW_CHANNELS);
        ch->pending_to = calloc((size_t)peers, sizeof *ch->pending_to);
        ch->refused_in = calloc((size_t)peers, sizeof *ch->refused_in);
        ch->pieces = calloc((size_t)peers, sizeof *ch->pieces);
        if (!ch->pending_to || !ch->refused_in || !ch->pieces) return -1;
    }
    return 0;
}

int tw_channels_grow(int peers, int n) {
    for (int k = 0; k < TW_CHANNELS; k++) {
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

void tw_channels_attach(tw_ep_t *ep) {
    for (int k = 0; k < TW_CHANNELS; k++) tw_channels[k].ep = ep;
}
