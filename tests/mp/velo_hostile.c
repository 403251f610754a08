/* Bad bytes from another process: a peer that writes impossible status words into
 * our mailbox, and a mailbox whose header does not belong to this job. The victim
 * gets an error code and loses nothing; no process crashes. Needs 2 ranks. */
#include <string.h>

#include "device/endpoint.h"
#include "mp_check.h"

int main(void) {
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep);
    CHECK(tw_ep_size(ep) == 2);
    tw_velo_msg_t msg;
    char buf[64] = "payload";
    tw_slot_t *my_slots = ep->velo_rx.slots;

    /* 1. Rank 0 spoils its own header before rank 1's first contact: rank 1 must
     *    refuse to map it (wrong job key, then wrong magic), and accept it once restored. */
    uint64_t key = ep->segment->job_key;
    if (rank == 0) ep->segment->job_key = key ^ 1;
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    if (rank == 1) CHECK_RC(tw_velo_send(ep, 0, 1, buf, 8), TW_ERR_PEER);
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    if (rank == 0) {
        ep->segment->job_key = key;
        ep->segment->magic = 0;
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    if (rank == 1) CHECK_RC(tw_velo_send(ep, 0, 1, buf, 8), TW_ERR_PEER);
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    if (rank == 0) ep->segment->magic = TW_SEGMENT_MAGIC;
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    if (rank == 1) CHECK_RC(tw_velo_send(ep, 0, 1, buf, 8), TW_OK);
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    if (rank == 0) {
        CHECK_RC(tw_velo_recv(ep, &msg, buf, sizeof buf), TW_OK);
        CHECK(msg.source == 1 && msg.length == 8);
    }

    /* 2. Rank 1 writes impossible status words straight into rank 0's mailbox. */
    uint64_t bad[] = {
        5,                                /* VALID bit missing */
        TW_RING_VALID | 5000,             /* longer than any message */
        TW_RING_VALID | (7ull << 24) | 8, /* source rank 7 in a job of 2 */
        TW_RING_VALID | TW_RING_PAD | 3,  /* padding that does not reach the ring's end */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_RC(tw_ep_barrier(ep), TW_OK);
        if (rank == 1) {
            tw_peer_t *peer = ep->peers[0];
            uint64_t at = atomic_load(&peer->velo.ctrl->tail) & peer->velo.mask;
            __atomic_store_n(&peer->velo.slots[at].word[0], bad[i], __ATOMIC_RELEASE);
        }
        CHECK_RC(tw_ep_barrier(ep), TW_OK);
        if (rank == 0) {
            uint64_t received = tw_ep_stats(ep)->msgs_received;
            CHECK_RC(tw_velo_poll(ep, &msg, buf, sizeof buf), TW_ERR_CORRUPT);
            CHECK_RC(tw_velo_probe(ep, &msg), TW_ERR_CORRUPT);
            CHECK(tw_ep_stats(ep)->msgs_received == received);
            /* the owner repairs the slot; the mailbox works again */
            __atomic_store_n(&my_slots[ep->velo_rx.head & ep->velo_rx.mask].word[0], 0,
                             __ATOMIC_RELEASE);
            CHECK_RC(tw_velo_poll(ep, &msg, buf, sizeof buf), TW_EMPTY);
        }
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    if (rank == 1) CHECK_RC(tw_velo_send(ep, 0, 2, buf, 8), TW_OK);
    if (rank == 0) {
        CHECK_RC(tw_velo_recv(ep, &msg, buf, sizeof buf), TW_OK);
        CHECK(msg.tag == 2);
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    return 0;
}
