/* A ring of 64-byte slots in shared memory, written by many producers and read by
 * one consumer. It carries VELO mailboxes and notification queues alike.
 *
 * Word 0 of a slot is the status word: VALID, the payload length, and bits for the
 * user of the ring; zero means "nothing here yet". A record takes
 * ceil((8 + len) / 64) consecutive slots, reserved in one compare-and-swap of the
 * shared tail, and never wraps: when it would, the producer first fills the rest of
 * the ring with a PAD record. The producer writes the payload, then the status word
 * (release). The consumer polls only the status word at its head (acquire), reads the
 * record in place and publishes its head lazily, zeroing word 0 of every slot it
 * hands back: when it finds the ring empty with a quarter ring consumed, at half a
 * ring in any case, and at once when a producer found the ring full and said so. Producers check
 * space against a cached copy of the head and reload it only when the ring looks
 * full, so a small record moves exactly one cache line from producer to consumer.
 *
 * Posting is transactional: a push either reserves and fills the whole record or
 * returns TW_RING_FULL having changed nothing visible.
 *
 * Everything read from shared memory is checked before use: indices are masked, a
 * status word that cannot be valid is reported as TW_RING_CORRUPT, never followed. */
#ifndef TW_DEVICE_RING_H
#define TW_DEVICE_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/small_copy.h"

#include "device/bell.h"

#define TW_CACHELINE 64

#define TW_RING_VALID      (1ull << 63)
#define TW_RING_PAD        (1ull << 62) /* fills the ring's end; length = slots to the end */
#define TW_RING_NOP        (1ull << 61) /* a cancelled reservation; length = its payload */
#define TW_RING_LEN_MASK   0xffffull
#define TW_RING_USER_SHIFT 16
#define TW_RING_USER_MASK  (((1ull << 45) - 1) << TW_RING_USER_SHIFT)

enum { TW_RING_OK = 0, TW_RING_FULL = 1, TW_RING_EMPTY = 1, TW_RING_CORRUPT = -1 };

typedef struct tw_slot {
    _Alignas(TW_CACHELINE) uint64_t word[TW_CACHELINE / 8];
} tw_slot_t;

/* Shared control words, each on its own cache line: producers contend on tail,
 * the consumer alone writes head. */
typedef struct tw_ring_ctrl {
    _Alignas(TW_CACHELINE) _Atomic uint64_t tail;
    _Alignas(TW_CACHELINE) _Atomic uint64_t head;
    _Atomic uint64_t want; /* a producer found the ring full: publish when idle */
} tw_ring_ctrl_t;

/* A producer's private view of a ring (one per producing thread). */
typedef struct tw_ring_producer {
    tw_ring_ctrl_t *ctrl;
    tw_slot_t *slots;
    uint64_t size, mask;
    uint64_t cached_head;
    tw_bell_t *bell; /* the consumer's doorbell when it may sleep (TW_WAIT), else NULL */
    const tw_bell_address_t *bell_socket; /* and its bell socket when it sleeps in ppoll */
} tw_ring_producer_t;

/* The consumer's private view. */
typedef struct tw_ring_consumer {
    tw_slot_t *slots;
    uint64_t mask;
    uint64_t head;
    uint64_t published;
    uint64_t publish_every;
    uint64_t size;
    uint32_t max_len;
    tw_ring_ctrl_t *ctrl;
} tw_ring_consumer_t;

/* Asks for a cache line in the state that allows writing it. The reservation
 * below is a locked instruction; the slot's line, which the consumer is polling,
 * travels here meanwhile instead of after it. PREFETCHW is a no-op where the
 * processor lacks it. */
static inline void tw_prefetch_for_write(const void *p) {
#if defined(__x86_64__)
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

static inline uint32_t tw_ring_slots_for(size_t len) {
    return (uint32_t)((len + 8 + TW_CACHELINE - 1) / TW_CACHELINE);
}

/* Zeroes a ring of size slots (a power of two) for its first use. */
void tw_ring_format(tw_ring_ctrl_t *ctrl, tw_slot_t *slots, uint64_t size);
void tw_ring_producer_init(tw_ring_producer_t *p, tw_ring_ctrl_t *ctrl, tw_slot_t *slots,
                           uint64_t size);
/* max_len: the longest record payload the consumer accepts; at most
 * (size / 2) * 64 - 8 so that a record always fits once the ring drains. */
void tw_ring_consumer_init(tw_ring_consumer_t *c, tw_ring_ctrl_t *ctrl, tw_slot_t *slots,
                           uint64_t size, uint32_t max_len);

static inline uint64_t tw_ring_load_status(const tw_slot_t *s) {
    return __atomic_load_n(&s->word[0], __ATOMIC_ACQUIRE);
}

/* Reserves a record of len payload bytes (len <= 0xffff, fitting the ring) and
 * returns its first slot, or NULL when the ring is full. The caller fills the
 * payload (&slot->word[1]) and then commits or cancels it; the consumer sees
 * nothing until then (and nothing behind it: keep the time in between short). */
static inline tw_slot_t *tw_ring_reserve(tw_ring_producer_t *p, size_t len) {
    const uint64_t need = tw_ring_slots_for(len);
    uint64_t tail = atomic_load_explicit(&p->ctrl->tail, memory_order_relaxed);
    for (;;) {
        const uint64_t idx = tail & p->mask;
        tw_prefetch_for_write(&p->slots[idx]);
        const uint64_t to_end = p->size - idx;
        const uint64_t take = need <= to_end ? need : to_end; /* the record, or a PAD */
        if (tail + take - p->cached_head > p->size) {
            p->cached_head = atomic_load_explicit(&p->ctrl->head, memory_order_acquire);
            if (tail + take - p->cached_head > p->size) {
                if (!atomic_load_explicit(&p->ctrl->want, memory_order_relaxed))
                    atomic_store_explicit(&p->ctrl->want, 1, memory_order_relaxed);
                return NULL;
            }
        }
        if (!atomic_compare_exchange_weak_explicit(&p->ctrl->tail, &tail, tail + take,
                                                   memory_order_relaxed, memory_order_relaxed))
            continue;
        tw_slot_t *s = &p->slots[idx];
        if (take < need) { /* the record would wrap: pad to the end, then try again */
            __atomic_store_n(&s->word[0], TW_RING_VALID | TW_RING_PAD | take, __ATOMIC_RELEASE);
            tail += take;
            continue;
        }
        return s;
    }
}

/* Makes a reserved record visible: its payload is in place first (release). */
static inline void tw_ring_commit(tw_slot_t *s, uint64_t user, size_t len) {
    __atomic_store_n(&s->word[0], TW_RING_VALID | (user & TW_RING_USER_MASK) | len,
                     __ATOMIC_RELEASE);
}

/* Gives a reserved record up: the consumer skips it. */
static inline void tw_ring_cancel(tw_slot_t *s, size_t len) {
    __atomic_store_n(&s->word[0], TW_RING_VALID | TW_RING_NOP | len, __ATOMIC_RELEASE);
}

/* After a commit: wakes the consumer if it sleeps. One predictable branch when the
 * consumer never sleeps (a core per rank). */
static inline void tw_ring_wake(const tw_ring_producer_t *p) {
    if (__builtin_expect(p->bell != NULL, 0)) tw_bell_ring(p->bell, p->bell_socket);
}

/* The consumer's side: whether a record (or a pad) waits at its head. */
static inline int tw_ring_ready(const tw_ring_consumer_t *c) {
    return tw_ring_load_status(&c->slots[c->head & c->mask]) != 0;
}

/* Reserves, fills and commits a record. TW_RING_OK or TW_RING_FULL. */
static inline int tw_ring_push(tw_ring_producer_t *p, uint64_t user, const void *data, size_t len) {
    tw_slot_t *s = tw_ring_reserve(p, len);
    if (!s) return TW_RING_FULL;
    tw_copy(&s->word[1], data, len); /* data may be NULL when len is 0 */
    tw_ring_commit(s, user, len);
    tw_ring_wake(p);
    return TW_RING_OK;
}

/* Hands consumed slots back to the producers: zero their word 0, then publish the
 * head. This happens in bulk, not per record: a zeroing store still waiting for
 * its cache line would hold up the next send's compare-and-swap, which waits for
 * every earlier store. */
static inline void tw_ring_publish(tw_ring_consumer_t *c) {
    for (uint64_t i = c->published; i != c->head; i++)
        __atomic_store_n(&c->slots[i & c->mask].word[0], 0, __ATOMIC_RELAXED);
    atomic_store_explicit(&c->ctrl->head, c->head, memory_order_release);
    c->published = c->head;
    if (atomic_load_explicit(&c->ctrl->want, memory_order_relaxed))
        atomic_store_explicit(&c->ctrl->want, 0, memory_order_relaxed);
}

/* Frees n slots at the head. A consumer that never runs dry still hands back
 * space every half ring, and every TW_RING_PUBLISH_WANTED slots while a producer
 * waits for room: two ranks streaming at each other keep each other's ring from ever
 * running dry, and a half-ring step left each waiting most of the time (8 KiB pipelined
 * messages, windows of 64 both ways: 4.1 GB/s, 16-18 GB/s so) */
enum { TW_RING_PUBLISH_WANTED = 64 };
static inline void tw_ring_consume(tw_ring_consumer_t *c, uint64_t n) {
    c->head += n;
    if (c->head - c->published >= 2 * c->publish_every ||
        (c->head - c->published >= TW_RING_PUBLISH_WANTED &&
         atomic_load_explicit(&c->ctrl->want, memory_order_relaxed)))
        tw_ring_publish(c);
}

/* Called when the ring is found empty: publish once a quarter ring is consumed, or
 * at once when a producer is waiting for room. */
static inline void tw_ring_idle(tw_ring_consumer_t *c) {
    if (c->head != c->published && (c->head - c->published >= c->publish_every ||
                                    atomic_load_explicit(&c->ctrl->want, memory_order_relaxed)))
        tw_ring_publish(c);
}

/* True when a record (or PAD/NOP) waits at the head: one load, for cheap checks. */
static inline int tw_ring_pending(const tw_ring_consumer_t *c) {
    return tw_ring_load_status(&c->slots[c->head & c->mask]) != 0;
}

/* Looks at the record at the head: TW_RING_OK with its status word and payload,
 * TW_RING_EMPTY, or TW_RING_CORRUPT. PAD and NOP records are consumed on the way. */
static inline int tw_ring_peek(tw_ring_consumer_t *c, uint64_t *status, void **payload) {
    for (;;) {
        tw_slot_t *s = &c->slots[c->head & c->mask];
        uint64_t st = tw_ring_load_status(s);
        if (st == 0) {
            tw_ring_idle(c);
            return TW_RING_EMPTY;
        }
        const uint64_t to_end = c->size - (c->head & c->mask);
        if (!(st & TW_RING_VALID)) return TW_RING_CORRUPT;
        if (st & TW_RING_PAD) {
            if ((st & TW_RING_LEN_MASK) != to_end) return TW_RING_CORRUPT;
            tw_ring_consume(c, to_end);
            continue;
        }
        const uint64_t len = st & TW_RING_LEN_MASK;
        if (len > c->max_len || tw_ring_slots_for(len) > to_end) return TW_RING_CORRUPT;
        if (st & TW_RING_NOP) {
            tw_ring_consume(c, tw_ring_slots_for(len));
            continue;
        }
        *status = st;
        *payload = &s->word[1];
        return TW_RING_OK;
    }
}

/* Releases the record last returned by tw_ring_peek. */
static inline void tw_ring_release(tw_ring_consumer_t *c, uint64_t status) {
    tw_ring_consume(c, tw_ring_slots_for(status & TW_RING_LEN_MASK));
}

#endif
