/* Checks for the multi-process tests: a failed check names the rank, the line and
 * the expression, and ends the rank with status 1 (twrun then ends the job). */
#ifndef TW_MP_CHECK_H
#define TW_MP_CHECK_H

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <tollway/tollway.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: rank %d: check failed: %s\n", __FILE__, __LINE__, mp_rank,     \
                    #cond);                                                                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_RC(expr, want)                                                                       \
    do {                                                                                           \
        int rc_ = (expr);                                                                          \
        if (rc_ != (want)) {                                                                       \
            fprintf(stderr, "%s:%d: rank %d: %s returned %d (%s), expected %s\n", __FILE__,        \
                    __LINE__, mp_rank, #expr, rc_, tw_strerror(rc_), #want);                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static int mp_rank = -1;

/* Sends, making progress on our own mailbox while the receiver's is full: the
 * transactional-posting discipline that keeps floods deadlock-free. Messages
 * drained meanwhile go to on_msg. */
static inline void mp_send(tw_ep_t *ep, int dest, unsigned tag, const void *buf, size_t len,
                           void (*on_msg)(const tw_velo_msg_t *, void *), void *arg) {
    for (;;) {
        int rc = tw_velo_send(ep, dest, tag, buf, len);
        if (rc == TW_OK) return;
        CHECK_RC(rc, TW_RETRY);
        tw_velo_msg_t msg;
        if (on_msg && tw_velo_peek(ep, &msg) == TW_OK) {
            on_msg(&msg, arg);
            CHECK_RC(tw_velo_release(ep, &msg), TW_OK);
        } else {
            sched_yield(); /* the tests run more ranks than cores */
        }
    }
}

#endif
