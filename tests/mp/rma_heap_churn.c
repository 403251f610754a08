/* Shared-heap churn, the pattern of MPI_Win_allocate / MPI_Win_free in a loop: rank
 * 1 allocates a block, fills it, lets rank 0 put into it and get from it, and frees
 * it; many times. Each round's data must be right, the freed block's old NLA must
 * fault TW_ERR_STALE, and the memory must really be given back: rank 0's address
 * space (which maps the blocks it accessed) must not grow with the number of
 * blocks. The node's shared memory in use is printed too (not checked: other jobs
 * share it). tw_heap_local_addr gives each block as plain memory on one node, and
 * nothing for a wrong key, out of bounds, a freed block, or over the udp link. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "mp_rma.h"

enum { TAG_BLOCK = 1, TAG_DONE };

#define ROUNDS 100
#define BLOCK  ((size_t)16 << 20)

/* This process's virtual memory size in KiB. */
static long vm_size_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    CHECK(f != NULL);
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %ld kB", &kib) == 1) break;
    fclose(f);
    CHECK(kib > 0);
    return kib;
}

/* Shared memory in use on the node, in MiB. */
static long shm_used_mib(void) {
    struct statvfs s;
    CHECK(statvfs("/dev/shm", &s) == 0);
    return (long)((s.f_blocks - s.f_bfree) * s.f_frsize >> 20);
}

typedef struct block_msg {
    uint64_t round;
    tw_region_t region;
} block_msg_t;

static void owner(tw_ep_t *ep) {
    long shm_before = shm_used_mib();
    for (uint64_t r = 0; r < ROUNDS; r++) {
        block_msg_t m = {r, {0}};
        unsigned char *b = tw_heap_alloc(ep, BLOCK, &m.region);
        CHECK(b != NULL);
        memset(b, (int)(r & 0xff), BLOCK); /* every page in use */
        send_msg(ep, 0, TAG_BLOCK, &m, sizeof m);
        uint64_t done;
        recv_msg(ep, TAG_DONE, &done, sizeof done);
        CHECK(done == r);
        uint64_t v;
        memcpy(&v, b + BLOCK - 8, 8);
        CHECK(v == (0xabcd000000000000ull | r)); /* rank 0's put */
        CHECK_RC(tw_heap_free(ep, b), TW_OK);
    }
    uint64_t end = UINT64_MAX;
    block_msg_t m = {end, {0}};
    send_msg(ep, 0, TAG_BLOCK, &m, sizeof m);
    uint64_t done;
    recv_msg(ep, TAG_DONE, &done, sizeof done);
    long grown = shm_used_mib() - shm_before;
    fprintf(stderr, "rank 1: shared memory in use grew by %ld MiB over %d freed %zu MiB blocks\n",
            grown, ROUNDS, BLOCK >> 20);
}

static void user(tw_ep_t *ep) {
    long vm_before = -1;
    tw_region_t prev = {0};
    for (;;) {
        block_msg_t m;
        recv_msg(ep, TAG_BLOCK, &m, sizeof m);
        tw_notification_t n;
        if (prev.nla) { /* the block freed last round is gone */
            uint64_t x = 0x1111;
            CHECK_RC(tw_get(ep, 1, &x, 8, prev.nla, prev.key, TW_NOTIFY_COMPLETER, 1), TW_OK);
            nq_next(ep, &n);
            CHECK(n.status == TW_ERR_STALE && n.cookie == 1);
            CHECK(x == 0x1111);
        }
        if (m.round == UINT64_MAX) {
            send_msg(ep, 1, TAG_DONE, &m.round, sizeof m.round);
            break;
        }
        uint64_t got = 0;
        CHECK_RC(
            tw_get(ep, 1, &got, 8, m.region.nla + BLOCK / 2, m.region.key, TW_NOTIFY_COMPLETER, 2),
            TW_OK);
        nq_next(ep, &n);
        CHECK(n.status == TW_OK && n.cookie == 2);
        CHECK(got == 0x0101010101010101ull * (m.round & 0xff));
        /* the block as plain memory here, on one node; never with a wrong key, out of
         * bounds, once freed, or over the udp link */
        const char *link = getenv("TW_LINK");
        unsigned char *p =
            tw_heap_local_addr(ep, 1, m.region.nla + BLOCK / 2, m.region.key, sizeof got);
        if (link && !strcmp(link, "udp")) {
            CHECK(p == NULL);
        } else {
            CHECK(p != NULL);
            CHECK(memcmp(p, &got, sizeof got) == 0);
        }
        CHECK(tw_heap_local_addr(ep, 1, m.region.nla, m.region.key ^ 1, 8) == NULL);
        CHECK(tw_heap_local_addr(ep, 1, m.region.nla + BLOCK - 4, m.region.key, 8) == NULL);
        CHECK(tw_heap_local_addr(ep, 2, m.region.nla, m.region.key, 8) == NULL); /* no rank 2 */
        if (prev.nla) CHECK(tw_heap_local_addr(ep, 1, prev.nla, prev.key, 8) == NULL);
        uint64_t v = 0xabcd000000000000ull | m.round;
        CHECK_RC(tw_put(ep, 1, &v, 8, m.region.nla + BLOCK - 8, m.region.key, 0, 3), TW_OK);
        CHECK_RC(tw_rma_flush(ep, 1), TW_OK);
        if (m.round == 1) vm_before = vm_size_kib(); /* after the first block is mapped */
        send_msg(ep, 1, TAG_DONE, &m.round, sizeof m.round);
        prev = m.region;
    }
    long grown = (vm_size_kib() - vm_before) >> 10;
    fprintf(stderr, "rank 0: address space grew by %ld MiB over %d peer blocks of %zu MiB\n", grown,
            ROUNDS, BLOCK >> 20);
    CHECK(grown < (long)(4 * BLOCK >> 20));
}

int main(void) {
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep);
    CHECK(tw_ep_size(ep) >= 2);
    if (rank == 1) owner(ep);
    if (rank == 0) user(ep);
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    return 0;
}
