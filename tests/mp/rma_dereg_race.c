/* Deregistration racing with access. Rank 1 registers a buffer, announces it to
 * rank 0, keeps it registered for a random while, deregisters it, fills it with a
 * sentinel at once and checks, until it registers the buffer again (with new
 * contents), that nothing touched it. Rank 0 meanwhile hammers puts and gets at the
 * newest NLA it has heard of. Every operation must either complete with correct
 * data or fault with TW_ERR_STALE: a get that completes returns the contents of the
 * very registration it named (the generation is part of the data), a put that
 * completes lands whole, and only in the registration it named. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_rma.h"

enum { TAG_ANNOUNCE = 1, TAG_FINISH, TAG_ACK };

#define HALF     4096 /* the buffer: a half that gets read, then a half that puts write */
#define ROUNDS   1000
#define BATCH    4
#define SENTINEL 0xdb

/* The put half carries its salt (generation << 32 | sequence) in its first 8 bytes. */
static void fill_put_half(unsigned char *p, uint64_t salt) {
    memcpy(p, &salt, 8);
    for (size_t i = 8; i < HALF; i++) p[i] = pat(i, salt);
}

typedef struct announce {
    uint64_t gen;
    tw_region_t region;
} announce_t;

typedef struct tally {
    uint64_t ok, stale;
} tally_t;

static void owner(tw_ep_t *ep) {
    unsigned char *b = aligned_alloc(4096, 2 * HALF);
    CHECK(b != NULL);
    unsigned seed = 12345;
    for (uint64_t gen = 1; gen <= ROUNDS; gen++) {
        fill_pattern(b, HALF, gen);
        fill_put_half(b + HALF, gen << 32);
        announce_t a = {gen, {0}};
        CHECK_RC(tw_reg(ep, b, 2 * HALF, TW_PERM_READ | TW_PERM_WRITE, &a.region), TW_OK);
        send_msg(ep, 0, TAG_ANNOUNCE, &a, sizeof a);
        double until = now() + (20 + rand_r(&seed) % 300) * 1e-6;
        while (now() < until) CHECK_RC(tw_progress(ep), TW_OK);
        CHECK_RC(tw_dereg(ep, &a.region), TW_OK);
        /* Whatever completed before tw_dereg returned is whole, and was meant for
         * this registration: the read half as written, the put half one put. */
        CHECK(check_pattern(b, HALF, gen) == HALF);
        uint64_t salt;
        memcpy(&salt, b + HALF, 8);
        CHECK(salt >> 32 == gen);
        for (size_t i = 8; i < HALF; i++) CHECK(b[HALF + i] == pat(i, salt));
        memset(b, SENTINEL, 2 * HALF);
        until = now() + (20 + rand_r(&seed) % 100) * 1e-6;
        while (now() < until) CHECK_RC(tw_progress(ep), TW_OK);
        CHECK(all_bytes(b, 2 * HALF, SENTINEL));
    }
    uint64_t end = 0;
    send_msg(ep, 0, TAG_FINISH, &end, sizeof end);
    tally_t t;
    tw_velo_msg_t msg;
    double limit = now() + WAIT_LIMIT;
    int rc;
    while ((rc = tw_velo_poll(ep, &msg, &t, sizeof t)) == TW_EMPTY) {
        CHECK(all_bytes(b, 2 * HALF, SENTINEL));
        CHECK(now() < limit);
        sched_yield();
    }
    CHECK_RC(rc, TW_OK);
    CHECK(msg.tag == TAG_ACK);
    CHECK(all_bytes(b, 2 * HALF, SENTINEL));
    tw_notification_t n;
    CHECK_RC(tw_nq_poll(ep, &n), TW_EMPTY); /* the initiator alone hears of faults */
    CHECK(tw_ep_stats(ep)->faults_stale == t.stale);
    CHECK(tw_ep_stats(ep)->registrations >= ROUNDS);
    CHECK(tw_ep_stats(ep)->deregistrations >= ROUNDS);
    free(b);
}

static void hammer(tw_ep_t *ep) {
    announce_t cur = {0, {0}};
    int live = 0, finished = 0;
    uint64_t seq = 0;
    tally_t t = {0, 0};
    unsigned char *src = malloc(BATCH * HALF), *dst = malloc(BATCH * HALF);
    CHECK(src && dst);
    double limit = now() + WAIT_LIMIT;
    while (!finished) {
        CHECK(now() < limit);
        /* the newest announcement wins; older regions are gone or going */
        announce_t a;
        tw_velo_msg_t msg;
        int rc;
        while ((rc = tw_velo_poll(ep, &msg, &a, sizeof a)) == TW_OK) {
            if (msg.tag == TAG_FINISH) {
                finished = 1;
                break;
            }
            CHECK(msg.tag == TAG_ANNOUNCE && msg.length == sizeof a);
            CHECK(a.gen > cur.gen);
            cur = a;
            live = 1;
        }
        if (rc != TW_OK) CHECK_RC(rc, TW_EMPTY);
        if (!live || finished) {
            sched_yield();
            continue;
        }
        uint64_t salts[BATCH];
        for (int k = 0; k < BATCH; k++) {
            unsigned char *s = src + k * HALF, *d = dst + k * HALF;
            const tw_region_t *r = &cur.region;
            if (k % 2 == 0) {
                salts[k] = cur.gen << 32 | ++seq;
                fill_put_half(s, salts[k]);
                while ((rc = tw_put(ep, 1, s, HALF, r->nla + HALF, r->key, TW_NOTIFY_REQUESTER,
                                    (uint64_t)k)) == TW_RETRY)
                    sched_yield();
            } else {
                memset(d, 0x77, HALF);
                while ((rc = tw_get(ep, 1, d, HALF, r->nla, r->key, TW_NOTIFY_COMPLETER,
                                    (uint64_t)k)) == TW_RETRY)
                    sched_yield();
            }
            CHECK_RC(rc, TW_OK);
        }
        int seen[BATCH] = {0};
        for (int j = 0; j < BATCH; j++) {
            /* requester and completer notifications need not come in issue order */
            tw_notification_t n;
            nq_next(ep, &n);
            if (n.cookie >= BATCH || seen[n.cookie])
                fprintf(stderr, "rank 0: second notification for cookie %llu: status %d (%s)\n",
                        (unsigned long long)n.cookie, n.status, tw_strerror(n.status));
            CHECK(n.cookie < BATCH && !seen[n.cookie]);
            int k = (int)n.cookie;
            seen[k] = 1;
            CHECK(n.op == (k % 2 == 0 ? TW_OP_PUT : TW_OP_GET));
            if (n.status != TW_OK && n.status != TW_ERR_STALE)
                fprintf(stderr, "rank 0: generation %llu: status %d (%s)\n",
                        (unsigned long long)cur.gen, n.status, tw_strerror(n.status));
            CHECK(n.status == TW_OK || n.status == TW_ERR_STALE);
            unsigned char *d = dst + k * HALF;
            if (n.status == TW_ERR_STALE) {
                t.stale++;
                live = 0;
                if (k % 2) CHECK(all_bytes(d, HALF, 0x77));
                continue;
            }
            t.ok++;
            if (k % 2) CHECK(check_pattern(d, HALF, cur.gen) == HALF);
        }
    }
    CHECK_RC(tw_rma_flush(ep, 1), TW_OK);
    tw_notification_t n;
    CHECK_RC(tw_nq_poll(ep, &n), TW_EMPTY);
    fprintf(stderr, "rank 0: %llu operations completed, %llu faulted stale\n",
            (unsigned long long)t.ok, (unsigned long long)t.stale);
    CHECK(t.ok > 0 && t.stale > 0);
    send_msg(ep, 1, TAG_ACK, &t, sizeof t);
    free(src);
    free(dst);
}

int main(void) {
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep);
    CHECK(tw_ep_size(ep) >= 2);
    if (rank == 1) owner(ep);
    if (rank == 0) hammer(ep);
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    return 0;
}
