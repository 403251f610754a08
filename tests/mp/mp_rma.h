/* Helpers shared by the RMA multi-process tests: bounded waits for messages and
 * notifications, notification printing, byte patterns, and a note of what a rank
 * was doing when a check failed. */
#ifndef TW_MP_RMA_H
#define TW_MP_RMA_H

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "mp_check.h"

#define REQ  TW_NOTIFY_REQUESTER
#define COMP TW_NOTIFY_COMPLETER
#define RESP TW_NOTIFY_RESPONDER

/* Waits long enough for anything correct, short of twrun's own timeout; a test
 * may define a shorter one before including this header. */
#ifndef WAIT_LIMIT
#define WAIT_LIMIT 300.0
#endif

/* Seconds on the monotonic clock, for the bounded waits. */
static inline double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* What a failed check was doing: set by the test, printed by print_where (give it
 * to atexit) when a rank exits with status 1. */
static char where[200] __attribute__((unused));
static inline void print_where(void) {
    if (where[0]) fprintf(stderr, "rank %d: failed during: %s\n", mp_rank, where);
}

/* A byte of the test pattern at position pos; the salt (a round, a generation)
 * makes each use's data its own, so misplaced or stale data shows. */
static inline unsigned char pat(size_t pos, uint64_t salt) {
    return (unsigned char)(((uint32_t)pos * 2654435761u + (uint32_t)salt * 40503u +
                            (uint32_t)(pos >> 32) + (uint32_t)(salt >> 32) * 977u) >>
                           24);
}

static inline void fill_pattern(unsigned char *p, size_t len, uint64_t salt) {
    for (size_t i = 0; i < len; i++) p[i] = pat(i, salt);
}

/* The first byte that differs from the pattern, or len. */
static inline size_t check_pattern(const unsigned char *p, size_t len, uint64_t salt) {
    for (size_t i = 0; i < len; i++)
        if (p[i] != pat(i, salt)) return i;
    return len;
}

/* Whether all len bytes are v: guard bytes and sentinels left alone. */
static inline int all_bytes(const unsigned char *p, size_t len, unsigned char v) {
    for (size_t i = 0; i < len; i++)
        if (p[i] != v) return 0;
    return 1;
}

/* Sends a control message, retrying while the receiver's mailbox is full. */
static inline void send_msg(tw_ep_t *ep, int dest, unsigned tag, const void *buf, size_t len) {
    double limit = now() + WAIT_LIMIT;
    for (;;) {
        int rc = tw_velo_send(ep, dest, tag, buf, len);
        if (rc == TW_OK) return;
        CHECK_RC(rc, TW_RETRY);
        CHECK(now() < limit);
        sched_yield();
    }
}

/* Receives the next message, which must have this tag and length; waits inside
 * tw_velo_poll so that peers' pipelined requests are served meanwhile. */
static inline void recv_msg(tw_ep_t *ep, unsigned tag, void *buf, size_t len) {
    double limit = now() + WAIT_LIMIT;
    tw_velo_msg_t msg;
    for (;;) {
        int rc = tw_velo_poll(ep, &msg, buf, len);
        if (rc == TW_OK) break;
        CHECK_RC(rc, TW_EMPTY);
        CHECK(now() < limit);
        sched_yield();
    }
    CHECK(msg.tag == tag);
    CHECK(msg.length == len);
}

/* Every field of a notification, for the message before a failing check. */
static inline void print_notification(const char *what, const tw_notification_t *n) {
    fprintf(stderr,
            "rank %d: %s: op %u cls %u success %u status %d (%s) peer %d length %llu cookie %llu "
            "value %#llx nla %#llx\n",
            mp_rank, what, n->op, n->cls, n->success, n->status, tw_strerror(n->status), n->peer,
            (unsigned long long)n->length, (unsigned long long)n->cookie,
            (unsigned long long)n->value, (unsigned long long)n->nla);
}

/* Takes the next notification, waiting for it within WAIT_LIMIT. */
static inline void nq_next(tw_ep_t *ep, tw_notification_t *n) {
    double limit = now() + WAIT_LIMIT;
    for (;;) {
        int rc = tw_nq_poll(ep, n);
        if (rc == TW_OK) return;
        CHECK_RC(rc, TW_EMPTY);
        CHECK(now() < limit);
        sched_yield();
    }
}

/* Checks the notification queue is empty, printing whatever is there instead. */
static inline void nq_empty(tw_ep_t *ep) {
    tw_notification_t n;
    int rc = tw_nq_poll(ep, &n);
    if (rc == TW_OK) print_notification("unexpected notification", &n);
    CHECK_RC(rc, TW_EMPTY);
}

/* An operation's name for failure messages. */
static inline const char *op_name(int op) {
    static const char *const names[] = {"?", "put", "get", "put_imm", "notify_put", "atomic"};
    return op >= 1 && op <= 5 ? names[op] : "?";
}

#endif
