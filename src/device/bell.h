/* A doorbell in an endpoint's shared segment: how a waiting rank sleeps until a peer
 * has written something for it, when ranks outnumber cores (TW_WAIT=sleep).
 *
 * The waiter reads seq, announces itself in sleepers, checks its rings once more and
 * sleeps on seq (a futex, shared between processes: the segment is MAP_SHARED) for a
 * bounded time. A producer publishes its record, then looks at sleepers and rings
 * (seq + 1, FUTEX_WAKE) only when someone sleeps. Both sides put a full fence
 * between their store and their load (Dekker): either the waiter's check sees the
 * record, or the producer sees the sleeper; and since the waiter read seq before it
 * announced itself, a ring after that makes its FUTEX_WAIT return at once. No wake-up
 * is lost. The bell socket keeps the same order: a datagram sent after the sleeper
 * announced itself waits in the socket for the ppoll that follows. */
#ifndef TW_DEVICE_BELL_H
#define TW_DEVICE_BELL_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

typedef struct tw_bell {
    _Atomic uint32_t sleepers; /* threads of the owner asleep or about to be */
    _Atomic uint32_t seq;      /* the futex word: rung when it changes */
} tw_bell_t;

/* An owner whose link must be polled to receive (udp, with no progress thread) could
 * not sleep on the futex alone: the link's packets ring no bell. It sleeps in ppoll on
 * the link's socket and on a bell socket of its own, a datagram socket with an
 * abstract name (no file) made of the job key, its rank and its endpoint index, which
 * producers on the node send an empty datagram to as they ring (the segment header's
 * sleeps says which: TW_BELL_SOCKET). */
enum { TW_BELL_FUTEX = 1, TW_BELL_SOCKET = 2 };
typedef struct tw_bell_address {
    struct sockaddr_un addr;
    socklen_t len;
} tw_bell_address_t;

/* The bell socket's name of endpoint index of rank in the job of job_key. */
void tw_bell_address(uint64_t job_key, uint32_t rank, uint32_t index, tw_bell_address_t *a);
/* The owner's bell socket, bound to a (non-blocking, close-on-exec); -1 when it cannot
 * be made (then the owner sleeps on the futex alone). */
int tw_bell_socket(const tw_bell_address_t *a);
/* Takes what rang the bell socket fd in (after a ppoll). */
void tw_bell_socket_drain(int fd);

/* Wakes whoever sleeps on b (a system call; two with at, the bell socket's address,
 * when the owner sleeps in ppoll). */
void tw_bell_wake(tw_bell_t *b, const tw_bell_address_t *at);

/* After publishing what b's owner waits for: rings when the owner sleeps. A fence
 * and a load of the owner's line (written only when it falls asleep or wakes). */
static inline void tw_bell_ring(tw_bell_t *b, const tw_bell_address_t *at) {
    atomic_thread_fence(memory_order_seq_cst);
    if (__builtin_expect(atomic_load_explicit(&b->sleepers, memory_order_seq_cst) != 0, 0))
        tw_bell_wake(b, at);
}

/* The waiter's side, in three steps: tw_bell_announce returns the ticket to sleep
 * on; the caller then checks whether anything came (and skips the sleep if so), and
 * tw_bell_sleep sleeps up to timeout_us unless rung since the ticket; both end with
 * tw_bell_leave. */
static inline uint32_t tw_bell_announce(tw_bell_t *b) {
    uint32_t ticket = atomic_load_explicit(&b->seq, memory_order_seq_cst);
    atomic_fetch_add_explicit(&b->sleepers, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    return ticket;
}
void tw_bell_sleep(tw_bell_t *b, uint32_t ticket, unsigned timeout_us);
/* tw_bell_sleep on n bells at once (futex_waitv): until any is rung since its ticket,
 * or timeout_us. Only when tw_bell_sleep_any_works. */
void tw_bell_sleep_any(tw_bell_t *const *bells, const uint32_t *tickets, int n,
                       unsigned timeout_us);
/* Whether the kernel has futex_waitv (Linux 5.16): asked once. */
int tw_bell_sleep_any_works(void);
static inline void tw_bell_leave(tw_bell_t *b) {
    atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_relaxed);
}

#endif
