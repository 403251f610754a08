/* Remote atomics under contention: every rank hammers the same words of rank 0 —
 * lock words and shared-heap words, widths 4 and 8 — with fetch-and-add and with
 * compare-and-swap increment loops; the final values must be exact and each rank's
 * fetched values must increase. Then the MPI lock encodings of the thesis (§7.5.4,
 * table 7-3, n = job size) on one lock word of rank 0: lock exclusive (cmp 0,
 * add n+1), lock shared (cmp n, add 1), unlock exclusive (cmp INT_MAX, add -(n+1)),
 * unlock shared (cmp INT_MAX, add -1). Holders of the exclusive lock increment a
 * counter in rank 0's heap non-atomically (get, then put); holder counts kept with
 * fetch-and-add prove mutual exclusion, and the counter must come out exact.
 * Then every rank floods rank 0's notification queue at once. Last, the
 * start/post/complete/wait encoding (tables 7-5, 7-6: idle 3, posted 2,
 * started 1, completed 0): Start is FCAA(cmp 2, add -1), and because FCAA tests
 * "<=" it also succeeds in the started and completed states — the caveat the
 * thesis's encoding carries, asserted here as the behaviour of FCAA. Beside the
 * first phase, one lock word takes fetch-and-adds both through the device and as CPU
 * atomics through its mapping here (tw_heap_local_addr of a lock NLA: rank 0's own,
 * another rank's on one node, NULL over udp), interleaved: both reach the same word. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_rma.h"

enum { TAG_REGION = 1, TAG_DONE };

/* Lock words of rank 0. */
enum { L_FADD8, L_FADD4, L_CAS8, L_MPI, L_HX, L_HS, L_PSCW, L_MIXED };

/* Offsets in rank 0's heap block. */
#define H_FADD8   0
#define H_FADD4   16 /* guard bytes at 12..15 and 20..23 */
#define H_CAS4    32
#define H_COUNTER 64
#define H_FLOOD   512 /* a word per rank */

#define K_FADD   1000 /* fetch-and-add rounds per rank */
#define K_CAS    300  /* successful compare-and-swap increments per rank */
#define M_LOCK   60   /* lock acquisitions per rank, half exclusive */
#define K_NOTE   300  /* notification puts and puts per rank to rank 0 */
#define W4_START 0xffffff00u

static tw_ep_t *ep;
static tw_region_t heap; /* rank 0's heap block, as every rank knows it */
static uint64_t cookie;

typedef struct result {
    uint64_t old; /* masked to the width */
    int ok;
} result_t;

/* One atomic on rank 0, waiting for its completer notification. */
static result_t atomic0(tw_atomic_op_t op, unsigned width, uint64_t nla, uint64_t key, uint64_t a,
                        uint64_t b) {
    uint64_t fetched = 0;
    int rc;
    cookie++;
    while ((rc = tw_atomic(ep, 0, op, width, nla, key, a, b, &fetched, TW_NOTIFY_COMPLETER,
                           cookie)) == TW_RETRY)
        sched_yield();
    CHECK_RC(rc, TW_OK);
    tw_notification_t n;
    nq_next(ep, &n);
    CHECK(n.cls == TW_NOTIFY_COMPLETER && n.op == TW_OP_ATOMIC && n.status == TW_OK);
    CHECK(n.cookie == cookie && n.peer == 0 && n.nla == nla);
    uint64_t m = width == 4 ? 0xffffffffu : UINT64_MAX;
    CHECK((n.value & m) == (fetched & m)); /* stored before the notification */
    return (result_t){n.value & m, n.success};
}

static result_t on_lock(tw_atomic_op_t op, unsigned width, unsigned lock, uint64_t a, uint64_t b) {
    return atomic0(op, width, tw_lock_nla(lock), 0, a, b);
}

static result_t on_heap(tw_atomic_op_t op, unsigned width, size_t off, uint64_t a, uint64_t b) {
    return atomic0(op, width, heap.nla + off, heap.key, a, b);
}

static int32_t s32(uint64_t v) {
    return (int32_t)(uint32_t)v;
}

/* Rank 0 waits here (serving requests) until every other rank has flushed its
 * operations and said so; only then may anyone enter the barrier. */
static void phase_end(int rank, int size) {
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            int dummy;
            recv_msg(ep, TAG_DONE, &dummy, sizeof dummy);
        }
    } else {
        CHECK_RC(tw_rma_flush(ep, -1), TW_OK);
        int dummy = rank;
        send_msg(ep, 0, TAG_DONE, &dummy, sizeof dummy);
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
}

static void fetch_and_add(void) {
    uint64_t prev[4] = {0};
    /* rank 0's lock word as plain memory here, where its segment is mapped; never past
     * the lock region, nor for a rank that is not there */
    uint64_t *mixed = tw_heap_local_addr(ep, 0, tw_lock_nla(L_MIXED), 0, 8);
    const char *link = getenv("TW_LINK");
    if (mp_rank == 0) CHECK(mixed != NULL); /* its own, under every link */
    if (mp_rank != 0 && link && !strcmp(link, "udp")) CHECK(mixed == NULL);
    CHECK(tw_heap_local_addr(ep, 0, tw_lock_nla(TW_LOCKS - 1), 0, 16) == NULL);
    CHECK(tw_heap_local_addr(ep, 64, tw_lock_nla(L_MIXED), 0, 8) == NULL);
    for (int i = 0; i < K_FADD; i++) {
        if (mixed && i % 2)
            __atomic_fetch_add(mixed, 1, __ATOMIC_ACQ_REL);
        else
            on_lock(TW_ATOMIC_FADD, 8, L_MIXED, 1, 0);
        result_t r[4] = {
            on_lock(TW_ATOMIC_FADD, 8, L_FADD8, 1, 0),
            on_lock(TW_ATOMIC_FADD, 4, L_FADD4, 1, 0),
            on_heap(TW_ATOMIC_FADD, 8, H_FADD8, 1, 0),
            on_heap(TW_ATOMIC_FADD, 4, H_FADD4, 1, 0),
        };
        for (int w = 0; w < 4; w++) {
            /* each rank sees its own increments in order (32-bit words wrap) */
            uint64_t step = (r[w].old - prev[w]) & (w % 2 ? 0xffffffffu : UINT64_MAX);
            if (i > 0) CHECK(step >= 1 && step <= 64u * K_FADD);
            prev[w] = r[w].old;
        }
    }
}

static void cas_increments(void) {
    uint64_t lock_seen = 0, heap_seen = 0;
    for (int done = 0; done < K_CAS; done++) {
        for (;;) {
            result_t r = on_lock(TW_ATOMIC_CAS, 8, L_CAS8, lock_seen, lock_seen + 1);
            if (r.ok) {
                CHECK(r.old == lock_seen);
                lock_seen++;
                break;
            }
            CHECK(r.old != lock_seen);
            lock_seen = r.old;
        }
        for (;;) {
            result_t r = on_heap(TW_ATOMIC_CAS, 4, H_CAS4, heap_seen, heap_seen + 1);
            if (r.ok) {
                CHECK(r.old == heap_seen);
                heap_seen = (heap_seen + 1) & 0xffffffffu;
                break;
            }
            CHECK(r.old != heap_seen);
            heap_seen = r.old;
        }
    }
}

static uint64_t get_counter(void) {
    uint64_t v = UINT64_MAX;
    int rc;
    cookie++;
    while ((rc = tw_get(ep, 0, &v, 8, heap.nla + H_COUNTER, heap.key, TW_NOTIFY_COMPLETER,
                        cookie)) == TW_RETRY)
        sched_yield();
    CHECK_RC(rc, TW_OK);
    tw_notification_t n;
    nq_next(ep, &n);
    CHECK(n.cls == TW_NOTIFY_COMPLETER && n.op == TW_OP_GET && n.status == TW_OK);
    CHECK(n.cookie == cookie);
    return v;
}

static void put_counter(uint64_t v) {
    int rc;
    while ((rc = tw_put(ep, 0, &v, 8, heap.nla + H_COUNTER, heap.key, 0, 0)) == TW_RETRY)
        sched_yield();
    CHECK_RC(rc, TW_OK);
    CHECK_RC(tw_rma_flush(ep, 0), TW_OK); /* in place before the lock is released */
}

static void mpi_locks(int rank, int n) {
    const uint64_t excl = (uint64_t)n + 1, int_max = INT32_MAX;
    for (int i = 0; i < M_LOCK; i++) {
        if ((i + rank) % 2 == 0) {
            result_t r;
            while (!(r = on_lock(TW_ATOMIC_FCAA, 4, L_MPI, 0, excl)).ok) {
                CHECK(s32(r.old) >= 1 && s32(r.old) <= n + 1); /* held, never negative */
                sched_yield();
            }
            CHECK(r.old == 0);
            CHECK(on_lock(TW_ATOMIC_FADD, 4, L_HX, 1, 0).old == 0); /* alone */
            CHECK(on_lock(TW_ATOMIC_FADD, 4, L_HS, 0, 0).old == 0); /* no reader */
            uint64_t v = get_counter();
            sched_yield(); /* widen the window a second writer would need */
            put_counter(v + 1);
            CHECK(on_lock(TW_ATOMIC_FADD, 4, L_HX, (uint64_t)-1, 0).old == 1);
            r = on_lock(TW_ATOMIC_FCAA, 4, L_MPI, int_max, -excl);
            CHECK(r.ok == 1 && r.old == excl);
        } else {
            result_t r;
            while (!(r = on_lock(TW_ATOMIC_FCAA, 4, L_MPI, (uint64_t)n, 1)).ok) {
                CHECK(r.old == excl); /* only an exclusive holder keeps a reader out */
                sched_yield();
            }
            CHECK(s32(r.old) >= 0 && s32(r.old) < n);
            uint64_t hs = on_lock(TW_ATOMIC_FADD, 4, L_HS, 1, 0).old;
            CHECK(s32(hs) >= 0 && s32(hs) < n);
            CHECK(on_lock(TW_ATOMIC_FADD, 4, L_HX, 0, 0).old == 0); /* no writer */
            uint64_t v1 = get_counter();
            sched_yield();
            CHECK(get_counter() == v1); /* nobody writes while it is shared */
            hs = on_lock(TW_ATOMIC_FADD, 4, L_HS, (uint64_t)-1, 0).old;
            CHECK(s32(hs) >= 1 && s32(hs) <= n);
            r = on_lock(TW_ATOMIC_FCAA, 4, L_MPI, int_max, (uint64_t)-1);
            CHECK(r.ok == 1 && s32(r.old) >= 1 && s32(r.old) <= n);
        }
    }
}

/* Every other rank at once fills rank 0's notification queue: notification puts and
 * puts with completer notifications, alternating. Rank 0 must see each source's
 * notifications exactly once and in that source's order, each put's data in place. */
static void notification_flood(int rank, int size, const unsigned char *h) {
    if (rank != 0) {
        static uint64_t vals[K_NOTE];
        for (uint64_t i = 0; i < K_NOTE; i++) {
            vals[i] = (uint64_t)rank << 32 | i;
            int rc;
            while ((rc = tw_notify_put(ep, 0, vals[i], 0, i)) == TW_RETRY) sched_yield();
            CHECK_RC(rc, TW_OK);
            while ((rc = tw_put(ep, 0, &vals[i], 8, heap.nla + H_FLOOD + 8 * (size_t)rank, heap.key,
                                TW_NOTIFY_COMPLETER, i)) == TW_RETRY)
                sched_yield();
            CHECK_RC(rc, TW_OK);
        }
        return;
    }
    uint64_t next[64] = {0}; /* per source: notifications seen */
    for (long got = 0; got < 2L * K_NOTE * (size - 1); got++) {
        tw_notification_t n;
        nq_next(ep, &n);
        CHECK(n.peer >= 1 && n.peer < size && n.status == TW_OK);
        CHECK(n.cls == TW_NOTIFY_COMPLETER);
        uint64_t i = next[n.peer] / 2;
        CHECK(n.cookie == i); /* exactly once, in the source's order */
        if (next[n.peer] % 2 == 0) {
            CHECK(n.op == TW_OP_NOTIFY_PUT);
            CHECK(n.value == ((uint64_t)n.peer << 32 | i));
        } else {
            CHECK(n.op == TW_OP_PUT && n.length == 8);
            uint64_t v;
            memcpy(&v, h + H_FLOOD + 8 * (size_t)n.peer, 8);
            CHECK(v >> 32 == (uint64_t)n.peer && (v & 0xffffffffu) >= i); /* in place */
        }
        next[n.peer]++;
    }
}

static void pscw_caveat(void) {
    const uint64_t post_cmp = 3, start_cmp = 2, complete_cmp = 1, wait_cmp = 0;
    const uint64_t minus1 = (uint64_t)-1;
    result_t r = on_lock(TW_ATOMIC_SWAP, 4, L_PSCW, 3, 0); /* idle */
    CHECK(r.old == 0);
    r = on_lock(TW_ATOMIC_FCAA, 4, L_PSCW, start_cmp, minus1); /* start before post */
    CHECK(r.ok == 0 && r.old == 3);
    r = on_lock(TW_ATOMIC_FCAA, 4, L_PSCW, post_cmp, minus1);
    CHECK(r.ok == 1 && r.old == 3);
    r = on_lock(TW_ATOMIC_FCAA, 4, L_PSCW, start_cmp, minus1);
    CHECK(r.ok == 1 && r.old == 2);
    r = on_lock(TW_ATOMIC_FCAA, 4, L_PSCW, complete_cmp, minus1);
    CHECK(r.ok == 1 && r.old == 1);
    r = on_lock(TW_ATOMIC_FCAA, 4, L_PSCW, wait_cmp, 3);
    CHECK(r.ok == 1 && r.old == 0); /* back to idle */
    r = on_lock(TW_ATOMIC_FCAA, 4, L_PSCW, post_cmp, minus1);
    CHECK(r.ok == 1 && r.old == 3);
    r = on_lock(TW_ATOMIC_FCAA, 4, L_PSCW, start_cmp, minus1);
    CHECK(r.ok == 1 && r.old == 2);
    /* The caveat: a second Start in state started (1), and a third in completed (0),
     * succeed too, since FCAA only tests word <= 2. */
    r = on_lock(TW_ATOMIC_FCAA, 4, L_PSCW, start_cmp, minus1);
    CHECK(r.ok == 1 && r.old == 1);
    r = on_lock(TW_ATOMIC_FCAA, 4, L_PSCW, start_cmp, minus1);
    CHECK(r.ok == 1 && r.old == 0);
    r = on_lock(TW_ATOMIC_SWAP, 4, L_PSCW, 3, 0);
    CHECK(r.old == 0xffffffffu); /* the word went below "completed" */
}

int main(void) {
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep), size = tw_ep_size(ep);
    CHECK(size >= 2 && size <= 64);
    unsigned char *h = NULL;
    if (rank == 0) {
        h = tw_heap_alloc(ep, 4096, &heap);
        CHECK(h != NULL);
        memset(h, 0, 4096);
        memset(h + H_FADD4 - 4, 0x77, 12);
        uint32_t w4 = W4_START;
        memcpy(h + H_FADD4, &w4, 4);
        CHECK(on_lock(TW_ATOMIC_SWAP, 4, L_FADD4, W4_START, 0).old == 0);
        for (int r = 1; r < size; r++) send_msg(ep, r, TAG_REGION, &heap, sizeof heap);
    } else {
        recv_msg(ep, TAG_REGION, &heap, sizeof heap);
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);

    fetch_and_add();
    cas_increments();
    phase_end(rank, size);
    if (rank == 0) {
        uint64_t n = (uint64_t)size;
        uint64_t v8;
        uint32_t v4, c4;
        memcpy(&v8, h + H_FADD8, 8);
        memcpy(&v4, h + H_FADD4, 4);
        memcpy(&c4, h + H_CAS4, 4);
        CHECK(v8 == n * K_FADD);
        CHECK(v4 == (uint32_t)(W4_START + n * K_FADD)); /* wrapped, no carry out */
        for (int i = 0; i < 4; i++) CHECK(h[H_FADD4 - 4 + i] == 0x77 && h[H_FADD4 + 4 + i] == 0x77);
        CHECK(c4 == n * K_CAS);
        CHECK(on_lock(TW_ATOMIC_FADD, 8, L_FADD8, 0, 0).old == n * K_FADD);
        CHECK(on_lock(TW_ATOMIC_FADD, 4, L_FADD4, 0, 0).old == (uint32_t)(W4_START + n * K_FADD));
        CHECK(on_lock(TW_ATOMIC_FADD, 8, L_CAS8, 0, 0).old == n * K_CAS);
        CHECK(on_lock(TW_ATOMIC_FADD, 8, L_MIXED, 0, 0).old == n * K_FADD);
    }

    mpi_locks(rank, size);
    phase_end(rank, size);
    if (rank == 0) {
        uint64_t counter;
        memcpy(&counter, h + H_COUNTER, 8);
        CHECK(counter == (uint64_t)size * (M_LOCK / 2));
        CHECK(on_lock(TW_ATOMIC_FADD, 4, L_MPI, 0, 0).old == 0);
        CHECK(on_lock(TW_ATOMIC_FADD, 4, L_HX, 0, 0).old == 0);
        CHECK(on_lock(TW_ATOMIC_FADD, 4, L_HS, 0, 0).old == 0);
    }

    CHECK_RC(tw_ep_barrier(ep), TW_OK); /* rank 0 has taken its own notifications */
    notification_flood(rank, size, h);
    phase_end(rank, size);

    if (rank == 1) pscw_caveat();
    phase_end(rank, size);

    tw_notification_t n;
    CHECK_RC(tw_nq_poll(ep, &n), TW_EMPTY);
    if (rank == 0) CHECK_RC(tw_heap_free(ep, h), TW_OK);
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    return 0;
}
