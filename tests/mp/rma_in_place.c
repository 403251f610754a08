/* Puts received in place across nodes (the udp link with 64 KiB datagrams): rank 0
 * streams puts of one datagram each at rank 1's region, valid ones among puts with
 * a wrong key, past the region's end and into a read-only region. Every valid put
 * lands whole where it was aimed, every faulty one gets its fault and leaves the
 * target's memory untouched, and (argument "in-place") some puts really were read
 * straight into the target's memory. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device/endpoint.h"
#include "link/udp/link.h"
#include "mp_rma.h"

/* The endpoint's udp link, NULL when it has none. */
static tw_link_ctx_t *udp_link_ctx(tw_ep_t *ep) {
    for (unsigned i = 0; i < ep->nlinks; i++)
        if (ep->links[i].link == &tw_link_udp) return ep->links[i].ctx;
    return NULL;
}

enum { TAG_REGIONS = 1, TAG_DONE };
enum { PUTS = 48, CHUNK = 61440, SENTINEL = 0xc5 };
#define REGION ((size_t)PUTS * CHUNK + 4 * CHUNK) /* room past the last put */

typedef struct regions {
    tw_region_t rw, ro;
} regions_t;

/* What put i does: its fault, or TW_OK. */
static int fault_of(int i) {
    switch (i % 6) {
    case 2:
        return TW_ERR_KEY;
    case 4:
        return TW_ERR_PERM;
    case 5:
        return i % 12 == 5 ? TW_ERR_BOUNDS : TW_OK;
    default:
        return TW_OK;
    }
}

static void target(tw_ep_t *ep, int expect_in_place) {
    unsigned char *rw = aligned_alloc(4096, REGION), *ro = aligned_alloc(4096, REGION);
    CHECK(rw && ro);
    memset(rw, SENTINEL, REGION);
    memset(ro, SENTINEL, REGION);
    regions_t r;
    CHECK_RC(tw_reg(ep, rw, REGION, TW_PERM_READ | TW_PERM_WRITE, &r.rw), TW_OK);
    CHECK_RC(tw_reg(ep, ro, REGION, TW_PERM_READ, &r.ro), TW_OK);
    send_msg(ep, 0, TAG_REGIONS, &r, sizeof r);
    uint64_t done;
    recv_msg(ep, TAG_DONE, &done, sizeof done); /* serves the puts meanwhile */
    for (int i = 0; i < PUTS; i++) {
        const unsigned char *at = rw + (size_t)i * CHUNK;
        snprintf(where, sizeof where, "put %d (fault %d)", i, fault_of(i));
        if (fault_of(i) == TW_OK)
            CHECK(check_pattern(at, CHUNK, (uint64_t)i) == CHUNK);
        else
            CHECK(all_bytes(at, CHUNK, SENTINEL));
    }
    CHECK(all_bytes(rw + (size_t)PUTS * CHUNK, REGION - (size_t)PUTS * CHUNK, SENTINEL));
    CHECK(all_bytes(ro, REGION, SENTINEL));
    uint64_t in_place = tw_udp_stats(tw_link_udp_transport(udp_link_ctx(ep)))->in_place;
    if (expect_in_place) CHECK(in_place > 0);
    CHECK_RC(tw_dereg(ep, &r.rw), TW_OK);
    CHECK_RC(tw_dereg(ep, &r.ro), TW_OK);
    free(rw);
    free(ro);
}

static void initiator(tw_ep_t *ep) {
    regions_t r;
    recv_msg(ep, TAG_REGIONS, &r, sizeof r);
    unsigned char *src = malloc((size_t)PUTS * CHUNK);
    CHECK(src != NULL);
    for (int i = 0; i < PUTS; i++) {
        unsigned char *s = src + (size_t)i * CHUNK;
        fill_pattern(s, CHUNK, (uint64_t)i);
        int fault = fault_of(i);
        uint64_t nla = (fault == TW_ERR_PERM ? r.ro.nla : r.rw.nla) + (uint64_t)i * CHUNK;
        uint64_t key = fault == TW_ERR_PERM ? r.ro.key : r.rw.key;
        if (fault == TW_ERR_KEY) key ^= 1;
        if (fault == TW_ERR_BOUNDS) nla = r.rw.nla + REGION - CHUNK / 2; /* half past the end */
        double limit = now() + WAIT_LIMIT;
        int rc;
        while ((rc = tw_put(ep, 1, s, CHUNK, nla, key, REQ, (uint64_t)i)) == TW_RETRY) {
            CHECK(now() < limit);
            tw_progress(ep);
        }
        CHECK_RC(rc, TW_OK);
    }
    int seen[PUTS] = {0};
    for (int j = 0; j < PUTS; j++) {
        tw_notification_t n;
        nq_next(ep, &n);
        CHECK(n.cookie < PUTS && !seen[n.cookie]);
        seen[n.cookie] = 1;
        if (n.status != fault_of((int)n.cookie)) print_notification("wrong status", &n);
        CHECK(n.status == fault_of((int)n.cookie));
    }
    uint64_t done = 1;
    send_msg(ep, 1, TAG_DONE, &done, sizeof done);
    free(src);
}

int main(int argc, char **argv) {
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep);
    CHECK(tw_ep_size(ep) == 2 && udp_link_ctx(ep) != NULL);
    int expect_in_place = argc > 1 && !strcmp(argv[1], "in-place");
    if (rank == 1) target(ep, expect_in_place);
    if (rank == 0) initiator(ep);
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    return 0;
}
