/* Progress at a target that computes: rank 1 spins on a word of its own memory
 * without calling tollway while rank 0, reached over the udp link, sends it VELO
 * messages (more than one window holds), puts, gets and applies atomics to its
 * memory, and finally adds 1 to that word.
 *
 * usage: rma_progress SECONDS THREAD
 *   THREAD 1 (run with TW_PROGRESS_THREAD=1): everything must complete while the
 *   target computes; it gives up after SECONDS (generous: the test fails only if
 *   the data never came, never on timing).
 *   THREAD 0 (no progress thread): nothing can reach the target's memory while it
 *   computes for SECONDS; once it calls tollway again everything completes.
 * Both ways the data, the atomics' results, the messages and the target's completer
 * notification are checked afterwards. */
#include <stdint.h>
#include <string.h>

#define WAIT_LIMIT 300.0

#include "mp_rma.h"

enum { TAG_REGION = 1, TAG_MSG, TAG_DONE };
enum { NMSG = 300, DATA = 256 << 10, HEAP = 1 << 20 };
enum { COUNTER = HEAP - 64, FLAG = HEAP - 8 }; /* offsets of two words in the heap block */

/* The next notification, waiting inside tollway calls. */
static tw_notification_t wait_note(tw_ep_t *ep) {
    double limit = now() + WAIT_LIMIT;
    tw_notification_t n;
    int rc;
    while ((rc = tw_nq_poll(ep, &n)) == TW_EMPTY) CHECK(now() < limit);
    CHECK_RC(rc, TW_OK);
    if (n.status != TW_OK) print_notification("unexpected", &n);
    CHECK(n.status == TW_OK);
    return n;
}

/* An operation posted (retrying while refused) and its requester notification. */
#define POST(call)                                                                                 \
    do {                                                                                           \
        double limit_ = now() + WAIT_LIMIT;                                                        \
        int prc_;                                                                                  \
        while ((prc_ = (call)) == TW_RETRY) CHECK(now() < limit_);                                 \
        CHECK_RC(prc_, TW_OK);                                                                     \
    } while (0)

static void initiator(tw_ep_t *ep) {
    tw_region_t t;
    recv_msg(ep, TAG_REGION, &t, sizeof t);
    snprintf(where, sizeof where, "messages to the computing target");
    for (uint64_t i = 0; i < NMSG; i++) {
        double limit = now() + WAIT_LIMIT;
        int rc;
        while ((rc = tw_velo_send(ep, 1, TAG_MSG, &i, sizeof i)) == TW_RETRY) {
            CHECK(now() < limit);
            tw_progress(ep);
        }
        CHECK_RC(rc, TW_OK);
    }
    unsigned char *buf = malloc(DATA), *back = malloc(DATA);
    CHECK(buf && back);
    fill_pattern(buf, DATA, 7);
    snprintf(where, sizeof where, "put");
    POST(tw_put(ep, 1, buf, DATA, t.nla, t.key, REQ | COMP, 1));
    tw_notification_t n = wait_note(ep);
    CHECK(n.cls == REQ && n.cookie == 1);
    snprintf(where, sizeof where, "get");
    POST(tw_get(ep, 1, back, DATA, t.nla, t.key, REQ, 2));
    n = wait_note(ep);
    CHECK(n.cls == REQ && n.cookie == 2);
    CHECK(check_pattern(back, DATA, 7) == DATA);
    snprintf(where, sizeof where, "atomics");
    uint64_t old = 99;
    POST(tw_atomic(ep, 1, TW_ATOMIC_FADD, 8, t.nla + COUNTER, t.key, 5, 0, &old, COMP, 3));
    n = wait_note(ep);
    CHECK(n.cls == COMP && n.cookie == 3 && old == 0);
    POST(tw_atomic(ep, 1, TW_ATOMIC_CAS, 8, t.nla + COUNTER, t.key, 5, 7, &old, COMP, 4));
    n = wait_note(ep);
    CHECK(n.cls == COMP && n.success && old == 5);
    uint32_t old32 = 99;
    uint64_t wide = 0;
    POST(tw_atomic(ep, 1, TW_ATOMIC_FCAA, 4, tw_lock_nla(3), 0, 0, 2, &wide, COMP, 5));
    n = wait_note(ep);
    old32 = (uint32_t)wide;
    CHECK(n.cls == COMP && n.success && old32 == 0);
    snprintf(where, sizeof where, "the flag");
    POST(tw_atomic(ep, 1, TW_ATOMIC_FADD, 8, t.nla + FLAG, t.key, 1, 0, NULL, REQ, 6));
    n = wait_note(ep);
    CHECK(n.cls == REQ && n.cookie == 6);
    snprintf(where, sizeof where, "waiting for the target's verdict");
    char done;
    recv_msg(ep, TAG_DONE, &done, 1);
    free(buf);
    free(back);
}

static void target(tw_ep_t *ep, double seconds, int thread) {
    tw_region_t mine;
    unsigned char *mem = tw_heap_alloc(ep, HEAP, &mine);
    CHECK(mem);
    memset(mem, 0, HEAP);
    uint64_t *flag = (uint64_t *)(void *)(mem + FLAG);
    send_msg(ep, 0, TAG_REGION, &mine, sizeof mine);
    /* compute: no tollway call until the flag is set or the time is up */
    double start = now(), limit = start + seconds;
    volatile uint64_t x = 1;
    int arrived = 0;
    while (!(arrived = __atomic_load_n(flag, __ATOMIC_ACQUIRE) == 1) && now() < limit)
        for (int i = 0; i < 1000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    fprintf(stderr, "rank 1: %s after %.3f s of computing\n",
            arrived ? "everything arrived" : "nothing arrived", now() - start);
    if (thread)
        CHECK(arrived); /* the progress thread served the link meanwhile */
    else
        CHECK(!arrived); /* nobody could: the data moves only with progress */
    snprintf(where, sizeof where, "taking the rest after computing");
    double wait = now() + WAIT_LIMIT;
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != 1) {
        CHECK(now() < wait);
        tw_progress(ep);
    }
    CHECK(check_pattern(mem, DATA, 7) == DATA);
    CHECK(*(uint64_t *)(void *)(mem + COUNTER) == 7);
    for (uint64_t i = 0; i < NMSG; i++) {
        uint64_t v;
        recv_msg(ep, TAG_MSG, &v, sizeof v);
        CHECK(v == i);
    }
    tw_notification_t n = wait_note(ep); /* the completer's of the put, written meanwhile */
    CHECK(n.cls == COMP && n.cookie == 1 && n.length == DATA && n.peer == 0);
    CHECK(tw_nq_poll(ep, &n) == TW_EMPTY);
    char done = 1;
    send_msg(ep, 0, TAG_DONE, &done, 1);
}

int main(int argc, char **argv) {
    atexit(print_where);
    CHECK(argc == 3);
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    mp_rank = tw_ep_rank(ep);
    CHECK(tw_ep_size(ep) == 2);
    if (mp_rank == 0)
        initiator(ep);
    else
        target(ep, atof(argv[1]), atoi(argv[2]));
    CHECK_RC(tw_ep_close(ep), TW_OK);
    where[0] = '\0';
    return 0;
}
