/* A symmetric exchange, the pattern of a fence epoch: every rank puts to every
 * other with completer notifications (argv[1] per round, 96 unless given: no more
 * than a notification queue holds), flushes, meets the others, then takes the rest of
 * its notifications. With as many as the queue holds, every slot the owner took must
 * come back to the others while it waits in tw_rma_flush, and none may be lost to a
 * request refused and offered again.
 * When a put is refused the rank takes what is in its own queue and retries, as the
 * API asks. A posted put already has its notification slot, so the flush must
 * return however the data moves; a rank stuck in tw_rma_flush for STUCK_AFTER seconds
 * fails the test (a watchdog names it) instead of hanging the job. Run with TW_NQ_SLOTS=128
 * on both data paths. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 20
/* seconds: for a hang, not a slow machine (sanitizers, other work); below the
 * job's own limit, so that the rank stuck is named */
#define STUCK_AFTER 300

#include "mp_rma.h"

enum { TAG_REGION = 1, TAG_DONE };

static int per_peer;
static tw_region_t mine;
static uint64_t *mem;

/* One completer notification of round `round`, its data in place. */
static void take(const tw_notification_t *n, int round) {
    CHECK(n->cls == TW_NOTIFY_COMPLETER && n->status == TW_OK && n->cookie == (uint64_t)round);
    size_t slot = (size_t)((n->nla - mine.nla) / 8);
    CHECK(slot / (size_t)per_peer == (size_t)n->peer);
    CHECK(mem[slot] == ((uint64_t)round << 32 | (uint64_t)n->peer << 16 | slot % per_peer));
}

static void stuck(int sig) {
    (void)sig;
    static const char msg[] = "rma_exchange: a rank is stuck in tw_rma_flush\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
    _exit(1);
}

int main(int argc, char **argv) {
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep), size = tw_ep_size(ep);
    CHECK(size >= 2 && size <= 16);
    /* each rank receives per round from the others no more notifications than fit */
    per_peer = (argc > 1 ? atoi(argv[1]) : 96) / (size - 1);
    CHECK(per_peer > 0);
    const size_t words = (size_t)size * (size_t)per_peer;
    mem = calloc(words, 8);
    uint64_t *src = malloc(words * 8);
    tw_region_t *peers = malloc((size_t)size * sizeof *peers);
    CHECK(mem && src && peers);
    CHECK_RC(tw_reg(ep, mem, words * 8, TW_PERM_READ | TW_PERM_WRITE, &mine), TW_OK);
    for (int r = 0; r < size; r++)
        if (r != rank) send_msg(ep, r, TAG_REGION, &mine, sizeof mine);
    for (int i = 0; i < size - 1; i++) {
        tw_region_t reg;
        tw_velo_msg_t msg;
        while (tw_velo_probe(ep, &msg) != TW_OK) sched_yield();
        recv_msg(ep, TAG_REGION, &reg, sizeof reg);
        peers[msg.source] = reg;
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK); /* every region known before any DONE flies */
    signal(SIGALRM, stuck);
    long taken = 0;
    for (int round = 0; round < ROUNDS; round++) {
        long early = 0; /* notifications taken while a put was refused */
        for (int k = 0; k < per_peer; k++)
            for (int d = 0; d < size; d++) {
                if (d == rank) continue;
                size_t slot = (size_t)rank * per_peer + (size_t)k; /* our words at d */
                src[slot] = (uint64_t)round << 32 | (uint64_t)rank << 16 | (uint64_t)k;
                int rc;
                double limit = now() + STUCK_AFTER;
                while ((rc = tw_put(ep, d, &src[slot], 8, peers[d].nla + 8 * slot, peers[d].key,
                                    TW_NOTIFY_COMPLETER, (uint64_t)round)) == TW_RETRY) {
                    tw_notification_t n;
                    if ((rc = tw_nq_poll(ep, &n)) == TW_OK) {
                        take(&n, round);
                        early++;
                    } else {
                        CHECK_RC(rc, TW_EMPTY);
                    }
                    if (now() > limit)
                        fprintf(stderr, "rank %d: put refused for %d s\n", rank, STUCK_AFTER);
                    CHECK(now() < limit);
                }
                CHECK_RC(rc, TW_OK);
            }
        alarm(STUCK_AFTER);
        CHECK_RC(tw_rma_flush(ep, -1), TW_OK);
        alarm(0);
        /* meet the others, serving their requests meanwhile */
        for (int r = 0; r < size; r++)
            if (r != rank) send_msg(ep, r, TAG_DONE, &round, sizeof round);
        for (int i = 0; i < size - 1; i++) {
            int got;
            recv_msg(ep, TAG_DONE, &got, sizeof got);
            CHECK(got == round);
        }
        for (long i = early; i < (size - 1) * per_peer; i++) {
            tw_notification_t n;
            CHECK_RC(tw_nq_poll(ep, &n), TW_OK); /* all in place once the others flushed */
            take(&n, round);
        }
        taken += (long)(size - 1) * per_peer;
        tw_notification_t n;
        CHECK_RC(tw_nq_poll(ep, &n), TW_EMPTY);
        CHECK_RC(tw_ep_barrier(ep), TW_OK); /* nobody posts the next round into a queue in use */
    }
    CHECK(taken == (long)ROUNDS * (size - 1) * per_peer);
    CHECK_RC(tw_dereg(ep, &mine), TW_OK);
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    free(mem);
    free(src);
    free(peers);
    return 0;
}
