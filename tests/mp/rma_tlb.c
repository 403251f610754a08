/* The initiator's TLB never outlives a registration: rank 0 puts into a heap block
 * of rank 1 (caching the translation), rank 1 frees it and allocates another, which
 * takes the same table entry; a put through the old NLA must fault and leave the new
 * block untouched, and one through the new NLA must land. Needs 2 ranks. */
#include <string.h>

#include "mp_rma.h"

enum { LEN = 4096, ROUNDS = 50 };

int main(void) {
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep);
    CHECK(tw_ep_size(ep) == 2);
    tw_region_t region, old = {0};
    unsigned char *block = NULL, buf[64];
    tw_notification_t n;
    for (int round = 0; round < ROUNDS; round++) {
        if (rank == 1) {
            if (block) CHECK_RC(tw_heap_free(ep, block), TW_OK);
            block = tw_heap_alloc(ep, LEN, &region);
            CHECK(block);
            memset(block, 0, LEN);
            send_msg(ep, 0, 1, &region, sizeof region);
            recv_msg(ep, 2, buf, 0);      /* rank 0 is done with this round */
            for (int i = 0; i < LEN; i++) /* only the put through the live NLA landed */
                CHECK(block[i] == (i < 8 ? (unsigned char)(round + 1) : 0));
        } else {
            recv_msg(ep, 1, &region, sizeof region);
            if (round > 0) {
                memset(buf, 0xee, 8);
                CHECK_RC(tw_put(ep, 1, buf, 8, old.nla, old.key, 0, 1), TW_OK);
                nq_next(ep, &n); /* the fault, from a translation cached last round */
                CHECK(n.status == TW_ERR_STALE || n.status == TW_ERR_KEY);
            }
            memset(buf, round + 1, 8);
            CHECK_RC(tw_put(ep, 1, buf, 8, region.nla, region.key, 0, 2), TW_OK);
            CHECK_RC(tw_put(ep, 1, buf, 8, region.nla, region.key, 0, 3), TW_OK); /* a TLB hit */
            nq_empty(ep);
            old = region;
            send_msg(ep, 1, 2, buf, 0);
        }
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    return 0;
}
