/* Full notification queues (run with TW_NQ_SLOTS=128). Nothing is silently lost:
 * an operation whose notification has no room returns TW_RETRY having done nothing,
 * and every notification of every accepted operation arrives exactly once, in order.
 * Each attempt writes its own word with its own value, so a refused attempt that
 * wrote anyway shows. Parts:
 *  A  rank 1 does not poll its queue: rank 0's puts with completer notifications
 *     fill it, then are refused; other operations needing a slot there are refused
 *     too, while those that need none still go; rank 1 then drains and checks.
 *  A2 rank 1 drains in bursts while rank 0 streams puts, retrying when refused.
 *  B  rank 0 does not poll its own queue: its puts with requester notifications
 *     fill it and are refused; rank 0 drains and checks, rank 1 checks the data. */
#include <stdint.h>
#include <string.h>

#include "mp_rma.h"

enum { TAG_REGIONS = 1, TAG_STOP, TAG_DRAINED };

#define SLOTS   128
#define WORDS   131072
#define A_BASE  0
#define A2_BASE 1024
#define A2_PUTS 300
#define A2_MAX  60000
#define B_BASE  100000
#define MORE    10 /* refused attempts made after the first, to be sure */

static uint64_t marker(size_t w) {
    return 0xc0ffee0000000000ull | w;
}

static void expect(tw_ep_t *ep, unsigned cls, size_t cookie, int peer) {
    tw_notification_t n;
    nq_next(ep, &n);
    if (n.cls != cls || n.cookie != cookie || n.status != TW_OK || n.op != TW_OP_PUT ||
        n.length != 8 || n.peer != peer)
        print_notification("notification", &n);
    CHECK(n.cls == cls);
    CHECK(n.cookie == cookie); /* exactly once, in order */
    CHECK(n.status == TW_OK && n.op == TW_OP_PUT && n.length == 8 && n.peer == peer);
}

/* Per attempt: refused, accepted with a notification, accepted without one. */
enum { REFUSED, NOTIFIED, SILENT };

typedef struct stop {
    uint32_t attempts;
    uint8_t state[4000];
} stop_t;

static tw_ep_t *ep;
static tw_region_t words, heapword; /* rank 1's */
static uint64_t *vals;              /* rank 0: the value of each word, by index */
static unsigned long retries;       /* TW_RETRY seen by rank 0 */

static int put_word(size_t w, unsigned notify) {
    int rc = tw_put(ep, 1, &vals[w], 8, words.nla + 8 * w, words.key, notify, w);
    if (rc == TW_RETRY) retries++;
    return rc;
}

/* Puts words from base on, asking for notify, until MORE are refused; nobody drains
 * the queue meanwhile, so once two are refused every later one is (the first refusal
 * hands the producers back, at once, the slots the owner took before: a refused call
 * runs the progress engine, and a full queue wants them back). Each attempt is
 * recorded in st; the number accepted comes back. */
static size_t fill_until_refused(stop_t *st, size_t base, unsigned notify) {
    size_t accepted = 0, refused = 0;
    while (refused < MORE) {
        int rc = put_word(base + st->attempts, notify);
        if (rc == TW_OK) {
            CHECK(refused <= 1); /* once full, full */
            st->state[st->attempts++] = NOTIFIED;
            accepted++;
        } else {
            CHECK_RC(rc, TW_RETRY);
            st->state[st->attempts++] = REFUSED;
            refused++;
        }
        CHECK(st->attempts < 1000);
    }
    return accepted;
}

static void initiator(void) {
    stop_t st = {0};
    /* A: fill rank 1's queue with completer notifications. */
    size_t accepted = fill_until_refused(&st, A_BASE, COMP);
    fprintf(stderr, "rank 0: the peer's %d-slot queue took %zu completer notifications\n", SLOTS,
            accepted);
    CHECK(accepted == SLOTS); /* every slot, the ones taken before too */
    /* Whatever needs a slot in the full queue is refused... */
    size_t w = A_BASE + st.attempts;
    CHECK_RC(tw_put_imm(ep, 1, marker(w), 8, words.nla + 8 * w, words.key, COMP, w), TW_RETRY);
    st.state[st.attempts++] = REFUSED;
    CHECK_RC(tw_notify_put(ep, 1, 5, 0, 0), TW_RETRY);
    uint64_t got = 0x5555;
    CHECK_RC(tw_get(ep, 1, &got, 8, words.nla, words.key, RESP, 0), TW_RETRY);
    uint64_t fetched = 0x6666;
    CHECK_RC(tw_atomic(ep, 1, TW_ATOMIC_FADD, 8, heapword.nla, heapword.key, 1, 0, &fetched,
                       RESP | COMP, 0),
             TW_RETRY);
    retries += 4;
    CHECK(got == 0x5555 && fetched == 0x6666);
    /* ...what needs none goes: no notification, or only one here. */
    w = A_BASE + st.attempts;
    CHECK_RC(put_word(w, 0), TW_OK);
    st.state[st.attempts++] = SILENT;
    w = A_BASE + st.attempts;
    CHECK_RC(put_word(w, REQ), TW_OK);
    st.state[st.attempts++] = SILENT;
    expect(ep, REQ, w, 1);
    CHECK_RC(tw_rma_flush(ep, 1), TW_OK);
    nq_empty(ep);
    send_msg(ep, 1, TAG_STOP, &st, sizeof st);
    uint32_t dummy;
    recv_msg(ep, TAG_DRAINED, &dummy, sizeof dummy);

    /* A2: stream while rank 1 drains in bursts; a refused attempt moves on to the
     * next word. */
    unsigned long r2 = retries;
    uint32_t attempts = 0;
    for (int i = 0; i < A2_PUTS; i++) {
        for (;;) {
            CHECK(attempts < A2_MAX);
            int rc = put_word(A2_BASE + attempts++, COMP);
            if (rc == TW_OK) break;
            CHECK_RC(rc, TW_RETRY);
            sched_yield();
        }
    }
    CHECK_RC(tw_rma_flush(ep, 1), TW_OK);
    nq_empty(ep);
    fprintf(stderr, "rank 0: streaming %d puts took %lu retries\n", A2_PUTS, retries - r2);
    CHECK(retries > r2);
    send_msg(ep, 1, TAG_STOP, &attempts, sizeof attempts);
    recv_msg(ep, TAG_DRAINED, &dummy, sizeof dummy);

    /* B: fill our own queue with requester notifications. */
    memset(&st, 0, sizeof st);
    accepted = fill_until_refused(&st, B_BASE, REQ);
    fprintf(stderr, "rank 0: its own queue took %zu requester notifications\n", accepted);
    CHECK(accepted == SLOTS); /* every slot, the ones taken before too */
    got = 0x5555;
    CHECK_RC(tw_get(ep, 1, &got, 8, words.nla, words.key, COMP, 0), TW_RETRY);
    fetched = 0x6666;
    CHECK_RC(
        tw_atomic(ep, 1, TW_ATOMIC_FADD, 8, heapword.nla, heapword.key, 1, 0, &fetched, COMP, 0),
        TW_RETRY);
    retries += 2;
    CHECK(got == 0x5555 && fetched == 0x6666);
    CHECK_RC(tw_rma_flush(ep, 1), TW_OK);
    for (uint32_t i = 0; i < st.attempts; i++)
        if (st.state[i] == NOTIFIED) expect(ep, REQ, B_BASE + i, 1);
    nq_empty(ep);
    send_msg(ep, 1, TAG_STOP, &st, sizeof st);
    recv_msg(ep, TAG_DRAINED, &dummy, sizeof dummy);
    CHECK(tw_ep_stats(ep)->rma_retries == retries);
}

static void check_words(const uint64_t *m, size_t base, const stop_t *st) {
    for (uint32_t i = 0; i < st->attempts; i++) {
        uint64_t want = st->state[i] == REFUSED ? 0 : marker(base + i);
        if (m[base + i] != want)
            fprintf(stderr, "rank 1: word %zu holds %#llx, expected %#llx\n", base + i,
                    (unsigned long long)m[base + i], (unsigned long long)want);
        CHECK(m[base + i] == want);
    }
}

static void target(uint64_t *m, const uint64_t *hw) {
    stop_t st;
    uint32_t dummy = 0;
    /* A: not a single poll of the queue until rank 0 is done. */
    recv_msg(ep, TAG_STOP, &st, sizeof st);
    check_words(m, A_BASE, &st);
    CHECK(*hw == 0);
    for (uint32_t i = 0; i < st.attempts; i++)
        if (st.state[i] == NOTIFIED) expect(ep, COMP, A_BASE + i, 0);
    nq_empty(ep);
    send_msg(ep, 0, TAG_DRAINED, &dummy, sizeof dummy);

    /* A2: drain in bursts, leaving the queue alone for a while after each. */
    static uint8_t notified[A2_MAX];
    size_t got = 0, last = 0;
    uint32_t attempts = 0;
    int stopped = 0;
    double limit = now() + WAIT_LIMIT;
    while (!stopped || got < A2_PUTS) {
        CHECK(now() < limit);
        tw_notification_t n;
        int rc = tw_nq_poll(ep, &n);
        if (rc == TW_OK) {
            CHECK(n.cls == COMP && n.op == TW_OP_PUT && n.status == TW_OK && n.peer == 0);
            CHECK(n.cookie >= A2_BASE && n.cookie < A2_BASE + A2_MAX);
            CHECK(got == 0 || n.cookie > last); /* in order */
            last = n.cookie;
            CHECK(m[last] == marker(last)); /* data in place before its notification */
            notified[last - A2_BASE] = 1;
            if (++got % 100 == 0) {
                double until = now() + 0.002;
                while (now() < until) CHECK_RC(tw_progress(ep), TW_OK);
            }
        } else {
            CHECK_RC(rc, TW_EMPTY);
        }
        tw_velo_msg_t msg;
        rc = tw_velo_poll(ep, &msg, &attempts, sizeof attempts);
        if (rc == TW_OK) {
            CHECK(msg.tag == TAG_STOP);
            stopped = 1;
        } else {
            CHECK_RC(rc, TW_EMPTY);
        }
    }
    CHECK(got == A2_PUTS);
    nq_empty(ep);
    for (uint32_t i = 0; i < attempts; i++)
        if (!notified[i]) CHECK(m[A2_BASE + i] == 0); /* refused: not written */
    send_msg(ep, 0, TAG_DRAINED, &dummy, sizeof dummy);

    /* B: rank 0's own queue. */
    recv_msg(ep, TAG_STOP, &st, sizeof st);
    check_words(m, B_BASE, &st);
    CHECK(*hw == 0);
    nq_empty(ep);
    send_msg(ep, 0, TAG_DRAINED, &dummy, sizeof dummy);
}

int main(void) {
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep);
    CHECK(tw_ep_size(ep) >= 2);
    uint64_t *m = NULL, *hw = NULL;
    if (rank == 1) {
        m = calloc(WORDS, 8);
        CHECK(m != NULL);
        CHECK_RC(tw_reg(ep, m, WORDS * 8, TW_PERM_READ | TW_PERM_WRITE, &words), TW_OK);
        hw = tw_heap_alloc(ep, 64, &heapword);
        CHECK(hw != NULL);
        *hw = 0;
        tw_region_t r[2] = {words, heapword};
        send_msg(ep, 0, TAG_REGIONS, r, sizeof r);
        target(m, hw);
    } else if (rank == 0) {
        tw_region_t r[2];
        recv_msg(ep, TAG_REGIONS, r, sizeof r);
        words = r[0];
        heapword = r[1];
        vals = malloc(WORDS * 8);
        CHECK(vals != NULL);
        for (size_t w = 0; w < WORDS; w++) vals[w] = marker(w);
        initiator();
        free(vals);
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    if (rank == 1) {
        CHECK_RC(tw_dereg(ep, &words), TW_OK);
        CHECK_RC(tw_heap_free(ep, hw), TW_OK);
        free(m);
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    return 0;
}
