/* Bad bytes from another process in the pipelined-RMA rings. Rank 1 writes malformed
 * requests straight into rank 0's request ring; rank 0 writes malformed answers into
 * rank 1's answer ring. Each side consumes them without a crash, touches no memory,
 * writes no notification, counts only the real translation fault, and afterwards
 * both the direct and the pipelined paths still work. Needs 2 ranks. */
#include <string.h>

#include "device/endpoint.h"
#include "device/rma.h"
#include "mp_rma.h"

enum { LEN = 4096 };

static void push(tw_ring_producer_t *ring, const void *rec, size_t len) {
    while (tw_ring_push(ring, 0, rec, len) != TW_RING_OK) {
    }
}

static void forge_requests(tw_ep_t *ep, const tw_region_t *r) {
    tw_peer_t *peer = ep->peers[0];
    unsigned char buf[sizeof(rma_req_t) + 16] = {0};
    rma_req_t good = {
        .op = TW_OP_PUT, .source = 1, .chunk_len = 8, .nla = r->nla, .key = r->key, .total = 8};
    rma_req_t q;
    push(&peer->req, buf, 5); /* shorter than a request */
#define FORGE(field_changes, extra)                                                                \
    do {                                                                                           \
        q = good;                                                                                  \
        field_changes;                                                                             \
        memcpy(buf, &q, sizeof q);                                                                 \
        memset(buf + sizeof q, 0x77, 16);                                                          \
        push(&peer->req, buf, sizeof q + (extra));                                                 \
    } while (0)
    FORGE(q.chunk_len = 12, 8); /* data length disagrees with the record */
    FORGE(q.source = 7, 8);     /* no such rank */
    FORGE(q.source = -1, 8);
    FORGE(q.op = 99, 8);                                            /* no such operation */
    FORGE((q.op = TW_OP_ATOMIC, q.width = 3), 0);                   /* no such width */
    FORGE((q.offset = 100, q.total = 8), 8);                        /* a chunk past the operation */
    FORGE((q.op = TW_OP_PUT_IMM, q.chunk_len = 9, q.total = 9), 9); /* immediates are 8 B */
    FORGE(q.key ^= 1, 8); /* well formed, wrong key: a fault */
    /* a valid put naming a notification slot it never reserved: the data lands at
     * offset 64, the slot is refused */
    FORGE((q.note_slot = 999999, q.nla = r->nla + 64), 8);
    FORGE((q.nla = r->nla + LEN - 4), 8); /* out of bounds: a fault */
#undef FORGE
}

static void forge_answers(tw_ep_t *ep) {
    tw_peer_t *peer = ep->peers[1];
    unsigned char buf[sizeof(rma_answer_t) + 16] = {0};
    rma_answer_t a = {.handle = 0x12345, .kind = ANSWER_ACK};
    push(&peer->resp, buf, 3); /* shorter than an answer */
    memcpy(buf, &a, sizeof a);
    push(&peer->resp, buf, sizeof a); /* an ACK for an operation that does not exist */
    a.kind = ANSWER_DATA;
    a.chunk_len = 16;
    a.offset = 1ull << 40;
    memcpy(buf, &a, sizeof a);
    push(&peer->resp, buf, sizeof a + 16); /* data for no operation, far away */
    a.chunk_len = 99;
    memcpy(buf, &a, sizeof a);
    push(&peer->resp, buf, sizeof a + 16); /* length disagrees with the record */
}

int main(void) {
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep);
    CHECK(tw_ep_size(ep) == 2);
    tw_region_t r;
    tw_notification_t n;
    unsigned char *mem = NULL;
    if (rank == 0) {
        mem = tw_heap_alloc(ep, LEN, &r);
        CHECK(mem);
        memset(mem, 0x11, LEN);
        send_msg(ep, 1, 1, &r, sizeof r);
    } else {
        recv_msg(ep, 1, &r, sizeof r);
        tw_peer_t *peer;
        CHECK_RC(tw_ep_peer(ep, 0, &peer), TW_OK);
        forge_requests(ep, &r);
        send_msg(ep, 0, 2, NULL, 0);
    }
    if (rank == 0) {
        recv_msg(ep, 2, NULL, 0);
        CHECK_RC(tw_progress(ep), TW_OK);
        CHECK(!tw_ring_pending(&ep->req_rx)); /* every record consumed */
        CHECK(all_bytes(mem, 64, 0x11) && all_bytes(mem + 64, 8, 0x77) &&
              all_bytes(mem + 72, LEN - 72, 0x11)); /* only the one valid put wrote */
        CHECK_RC(tw_nq_poll(ep, &n), TW_EMPTY);
        const tw_ep_stats_t *st = tw_ep_stats(ep);
        CHECK(st->faults_key == 1 && st->faults_bounds == 1);
        tw_peer_t *peer;
        CHECK_RC(tw_ep_peer(ep, 1, &peer), TW_OK);
        forge_answers(ep);
        send_msg(ep, 1, 3, NULL, 0);
    } else {
        recv_msg(ep, 3, NULL, 0);
        CHECK_RC(tw_progress(ep), TW_OK);
        CHECK(!tw_ring_pending(&ep->resp_rx));
        CHECK(ep->rma.free_count == TW_RMA_OUTSTANDING); /* no operation touched */
        CHECK_RC(tw_nq_poll(ep, &n), TW_EMPTY);
        /* both paths still work: a direct put, then a pipelined one */
        uint64_t v = 0x2222222222222222ull;
        CHECK_RC(tw_put(ep, 0, &v, 8, r.nla, r.key, TW_NOTIFY_COMPLETER, 1), TW_OK);
        ep->peers[0]->pipelined = 1;
        v = 0x3333333333333333ull;
        CHECK_RC(tw_put(ep, 0, &v, 8, r.nla + 8, r.key, TW_NOTIFY_COMPLETER, 2), TW_OK);
        while (ep->peers[0]->outstanding) tw_progress(ep);
        send_msg(ep, 0, 4, NULL, 0);
    }
    if (rank == 0) {
        for (uint64_t cookie = 1; cookie <= 2; cookie++) {
            nq_next(ep, &n); /* serves the pipelined request while it waits */
            CHECK(n.cls == TW_NOTIFY_COMPLETER && n.status == TW_OK && n.cookie == cookie);
        }
        recv_msg(ep, 4, NULL, 0);
        CHECK(all_bytes(mem, 8, 0x22) && all_bytes(mem + 8, 8, 0x33) &&
              all_bytes(mem + 16, 48, 0x11) && all_bytes(mem + 64, 8, 0x77) &&
              all_bytes(mem + 72, LEN - 72, 0x11));
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    return 0;
}
