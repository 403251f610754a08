/* What of a shared-heap block is there before its first use: every page of a
 * tw_heap_alloc block; only the first 64 KiB of a tw_heap_alloc_lazy block, the rest
 * coming at its first touch (from the owner or a peer's mapping, and working as
 * well). mincore tells a page of the shared segment is there, seen from the owner
 * (rank 1) and from a peer that mapped it (rank 0: tw_heap_local_addr, one node);
 * the peer's mapping faults in as much as it finds there (measured, not tested:
 * the first put into a fresh window, docs/protocols.md). */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "mp_rma.h"

enum { TAG_BLOCKS = 1, TAG_DONE };
#define BLOCK ((size_t)1 << 20)

/* Whether the page holding p is in memory (for a shared segment: whoever faulted it). */
static int present(const void *p) {
    unsigned char v = 0;
    CHECK(mincore((void *)((uintptr_t)p & ~(uintptr_t)4095), 1, &v) == 0);
    return v & 1;
}

int main(void) {
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep);
    CHECK(tw_ep_size(ep) >= 2);
    tw_region_t r[2];
    if (rank == 1) {
        unsigned char *whole = tw_heap_alloc(ep, BLOCK, &r[0]);
        unsigned char *lazy = tw_heap_alloc_lazy(ep, BLOCK, &r[1]);
        CHECK(whole && lazy);
        CHECK(present(whole) && present(whole + BLOCK - 1));
        CHECK(present(lazy) && !present(lazy + BLOCK - 1));
        send_msg(ep, 0, TAG_BLOCKS, r, sizeof r);
        uint64_t done;
        recv_msg(ep, TAG_DONE, &done, sizeof done);
        uint64_t v;
        memcpy(&v, lazy + BLOCK - 8, 8);
        CHECK(v == 0x5eed); /* rank 0's store into the page first touched there */
        CHECK_RC(tw_heap_free(ep, whole), TW_OK);
        CHECK_RC(tw_heap_free(ep, lazy), TW_OK);
    }
    if (rank == 0) {
        recv_msg(ep, TAG_BLOCKS, r, sizeof r);
        unsigned char *whole = tw_heap_local_addr(ep, 1, r[0].nla, r[0].key, BLOCK);
        unsigned char *lazy = tw_heap_local_addr(ep, 1, r[1].nla, r[1].key, BLOCK);
        CHECK(whole && lazy);
        CHECK(present(whole) && present(whole + BLOCK - 1));
        CHECK(present(lazy) && !present(lazy + BLOCK - 1));
        uint64_t v = 0x5eed;
        memcpy(lazy + BLOCK - 8, &v, 8);
        uint64_t done = 1;
        send_msg(ep, 1, TAG_DONE, &done, sizeof done);
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    return 0;
}
