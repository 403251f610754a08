/* Peers declared lost (see failure.h). */
#include "device/failure.h"

#include <stdlib.h>

#include <tollway/status.h>
#include <tollway/velo.h>

#include "device/progress.h"
#include "device/rma.h"
#include "device/velo.h"

/* The notice for peer: a message of 4 bytes, its cause, from that peer. 1 when posted. */
static int post_notice(tw_ep_t *ep, int peer) {
    int32_t cause = ep->lost[peer].cause;
    tw_slot_t *s = tw_ring_reserve(&ep->velo_self, sizeof cause);
    if (!s) return 0;
    tw_copy(&s->word[1], &cause, sizeof cause);
    tw_ring_commit(s,
                   ((uint64_t)TW_VELO_TAG_LOST << TW_VELO_TAG_SHIFT) |
                       ((uint64_t)peer << TW_VELO_SOURCE_SHIFT),
                   sizeof cause);
    tw_ring_wake(&ep->velo_self);
    ep->lost[peer].noticed = 1;
    return 1;
}

void tw_dev_peer_lost(void *dev, uint32_t peer, int cause) {
    tw_ep_t *ep = ((tw_ep_link_t *)dev)->ep;
    if (peer >= (uint32_t)ep->size || !tw_status_peer_lost(cause)) return;
    if (!ep->lost && !(ep->lost = calloc((size_t)ep->size, sizeof *ep->lost))) {
        /* no memory to remember it: the link still refuses every operation toward it */
        return;
    }
    if (ep->lost[peer].cause) return;
    ep->lost[peer].cause = (int8_t)cause;
    tw_rma_fail_peer(ep, (int)peer, cause);
    if (!post_notice(ep, (int)peer)) ep->lost_owed++;
}

void tw_dev_post_lost_notices(tw_ep_t *ep) {
    for (int r = 0; r < ep->size && ep->lost_owed; r++)
        if (ep->lost[r].cause && !ep->lost[r].noticed) {
            if (!post_notice(ep, r)) return;
            ep->lost_owed--;
        }
}

int tw_ep_peer_status(tw_ep_t *ep, int rank) {
    if (!ep) return TW_ERR_ARG;
    if (rank < 0 || rank >= ep->size) return TW_ERR_RANK;
    tw_dev_lock(ep); /* the progress thread may be declaring it now */
    int cause = ep->lost ? ep->lost[rank].cause : TW_OK;
    tw_dev_unlock(ep);
    return cause;
}
