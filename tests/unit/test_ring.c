/* Unit tests of the slot ring: the status-word protocol, wrap-around with PAD
 * records, a full ring, corrupt status words, and a stress test with several
 * producer threads (run under ThreadSanitizer too) and several processes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pthread.h>

#include <cmocka.h>

#include "device/ring.h"

typedef struct ring_mem {
    tw_ring_ctrl_t ctrl;
    tw_slot_t slots[];
} ring_mem_t;

static ring_mem_t *ring_new(uint64_t size, int shared) {
    size_t bytes = sizeof(ring_mem_t) + size * sizeof(tw_slot_t);
    ring_mem_t *r = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                         (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
    assert_ptr_not_equal(r, MAP_FAILED);
    tw_ring_format(&r->ctrl, r->slots, size);
    return r;
}

static void ring_free(ring_mem_t *r, uint64_t size) {
    munmap(r, sizeof(ring_mem_t) + size * sizeof(tw_slot_t));
}

/* A private 128-slot ring with one producer and the consumer. */
typedef struct fixture {
    ring_mem_t *r;
    tw_ring_producer_t p;
    tw_ring_consumer_t c;
} fixture_t;

static fixture_t fixture_new(void) {
    fixture_t f;
    f.r = ring_new(128, 0);
    tw_ring_producer_init(&f.p, &f.r->ctrl, f.r->slots, 128);
    tw_ring_consumer_init(&f.c, &f.r->ctrl, f.r->slots, 128, 4096);
    return f;
}

static int pop(tw_ring_consumer_t *c, void *buf, size_t *len, uint64_t *user) {
    uint64_t st = 0;
    void *payload = NULL;
    int rc = tw_ring_peek(c, &st, &payload);
    if (rc != TW_RING_OK) return rc;
    *len = st & TW_RING_LEN_MASK;
    *user = st & TW_RING_USER_MASK;
    memcpy(buf, payload, *len);
    tw_ring_release(c, st);
    return TW_RING_OK;
}

static void test_slot_accounting(void **state) {
    (void)state;
    assert_int_equal(tw_ring_slots_for(0), 1);
    assert_int_equal(tw_ring_slots_for(56), 1);
    assert_int_equal(tw_ring_slots_for(57), 2);
    assert_int_equal(tw_ring_slots_for(120), 2);
    assert_int_equal(tw_ring_slots_for(4096), 65);
}

static void test_status_word_protocol(void **state) {
    (void)state;
    fixture_t f = fixture_new();
    ring_mem_t *r = f.r;
    tw_ring_producer_t p = f.p;
    tw_ring_consumer_t c = f.c;
    uint64_t st = 0;
    void *payload = NULL;
    assert_int_equal(tw_ring_peek(&c, &st, &payload), TW_RING_EMPTY);

    const char msg[56] = "exactly one cache line";
    uint64_t user = 0x2aull << TW_RING_USER_SHIFT;
    assert_int_equal(tw_ring_push(&p, user, msg, sizeof msg), TW_RING_OK);
    /* The record is one slot: status word in word 0, payload right behind it. */
    uint64_t w0 = r->slots[0].word[0];
    assert_true(w0 & TW_RING_VALID);
    assert_int_equal(w0 & TW_RING_LEN_MASK, 56);
    assert_int_equal(w0 & TW_RING_USER_MASK, user);
    assert_memory_equal(&r->slots[0].word[1], msg, sizeof msg);
    assert_int_equal(r->slots[1].word[0], 0);

    assert_int_equal(tw_ring_peek(&c, &st, &payload), TW_RING_OK);
    assert_ptr_equal(payload, &r->slots[0].word[1]);
    tw_ring_release(&c, st);
    assert_int_not_equal(r->slots[0].word[0], 0); /* zeroed when handed back, not before */
    assert_int_equal(tw_ring_peek(&c, &st, &payload), TW_RING_EMPTY);
    /* A zero-length message still has a non-zero status word. */
    assert_int_equal(tw_ring_push(&p, 0, NULL, 0), TW_RING_OK);
    assert_int_not_equal(r->slots[1].word[0], 0);
    ring_free(r, 128);
}

static void test_lazy_head(void **state) {
    (void)state;
    fixture_t f = fixture_new();
    ring_mem_t *r = f.r;
    tw_ring_producer_t p = f.p;
    tw_ring_consumer_t c = f.c;
    char buf[64];
    size_t len;
    uint64_t user;
    uint64_t st;
    void *payload;
    /* a consumer that never runs dry hands space back every half ring */
    for (int i = 0; i < 100; i++) assert_int_equal(tw_ring_push(&p, 0, buf, 8), TW_RING_OK);
    for (int i = 0; i < 63; i++) assert_int_equal(pop(&c, buf, &len, &user), TW_RING_OK);
    assert_int_equal(atomic_load(&r->ctrl.head), 0);
    assert_int_not_equal(r->slots[0].word[0], 0); /* consumed, not yet handed back */
    assert_int_equal(pop(&c, buf, &len, &user), TW_RING_OK);
    assert_int_equal(atomic_load(&r->ctrl.head), 64);
    assert_int_equal(r->slots[63].word[0], 0); /* zeroed when handed back */
    /* found empty with a quarter ring consumed: handed back */
    while (pop(&c, buf, &len, &user) == TW_RING_OK) {
    }
    assert_int_equal(atomic_load(&r->ctrl.head), 100);
    /* found empty with less consumed: kept, so the next send does not wait on it */
    for (int i = 0; i < 5; i++) assert_int_equal(tw_ring_push(&p, 0, buf, 8), TW_RING_OK);
    while (pop(&c, buf, &len, &user) == TW_RING_OK) {
    }
    assert_int_equal(atomic_load(&r->ctrl.head), 100);
    /* ... until a producer finds the ring full and says so */
    int pushed = 0;
    while (tw_ring_push(&p, 0, buf, 8) == TW_RING_OK) pushed++;
    assert_int_equal(pushed, 128 - 5);
    assert_int_equal(atomic_load(&r->ctrl.want), 1);
    for (int i = 0; i < pushed; i++) assert_int_equal(pop(&c, buf, &len, &user), TW_RING_OK);
    assert_int_equal(tw_ring_peek(&c, &st, &payload), TW_RING_EMPTY);
    assert_int_equal(atomic_load(&r->ctrl.head), 105 + (uint64_t)pushed);
    assert_int_equal(atomic_load(&r->ctrl.want), 0);
    assert_int_equal(tw_ring_push(&p, 0, buf, 8), TW_RING_OK);
    ring_free(r, 128);
}

static void test_full_ring_is_transactional(void **state) {
    (void)state;
    fixture_t f = fixture_new();
    ring_mem_t *r = f.r;
    tw_ring_producer_t p = f.p;
    tw_ring_consumer_t c = f.c;
    char buf[4096];
    size_t len;
    uint64_t user;
    int pushed = 0;
    while (tw_ring_push(&p, 0, &pushed, sizeof pushed) == TW_RING_OK) pushed++;
    assert_int_equal(pushed, 128);
    uint64_t tail = atomic_load(&r->ctrl.tail);
    assert_int_equal(tw_ring_push(&p, 0, buf, 8), TW_RING_FULL);
    assert_int_equal(atomic_load(&r->ctrl.tail), tail); /* a refused push leaves no trace */
    for (int i = 0; i < 128; i++) {
        int v;
        assert_int_equal(pop(&c, &v, &len, &user), TW_RING_OK);
        assert_int_equal(v, i);
    }
    assert_int_equal(pop(&c, buf, &len, &user), TW_RING_EMPTY);
    assert_int_equal(tw_ring_push(&p, 0, buf, 8), TW_RING_OK);
    ring_free(r, 128);
}

static void test_wraparound_with_padding(void **state) {
    (void)state;
    fixture_t f = fixture_new();
    ring_mem_t *r = f.r;
    tw_ring_producer_t p = f.p;
    tw_ring_consumer_t c = f.c;
    unsigned char in[4096], out[4096];
    size_t len;
    uint64_t user;
    /* Sizes that do not divide the ring force PAD records at every wrap. */
    const size_t sizes[] = {4096, 100, 0, 56, 57, 1000, 3000, 1, 4096, 200};
    uint32_t seq = 0;
    for (int lap = 0; lap < 50; lap++) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t n = sizes[k];
            for (size_t i = 0; i < n; i++) in[i] = (unsigned char)(seq * 31 + i);
            uint64_t u = (uint64_t)seq << TW_RING_USER_SHIFT;
            assert_int_equal(tw_ring_push(&p, u, in, n), TW_RING_OK);
            assert_int_equal(pop(&c, out, &len, &user), TW_RING_OK);
            assert_int_equal(len, n);
            assert_int_equal(user, u);
            assert_memory_equal(in, out, n);
            seq++;
        }
    }
    assert_true(c.head > 128 * 10); /* it really wrapped many times */
    ring_free(r, 128);
}

static void test_corrupt_status_words(void **state) {
    (void)state;
    ring_mem_t *r = ring_new(128, 0);
    tw_ring_consumer_t c;
    tw_ring_consumer_init(&c, &r->ctrl, r->slots, 128, 4096);
    uint64_t st = 0;
    void *payload = NULL;
    /* no VALID bit */
    r->slots[0].word[0] = 5;
    assert_int_equal(tw_ring_peek(&c, &st, &payload), TW_RING_CORRUPT);
    /* longer than the consumer accepts */
    r->slots[0].word[0] = TW_RING_VALID | 5000;
    assert_int_equal(tw_ring_peek(&c, &st, &payload), TW_RING_CORRUPT);
    /* a PAD whose length is not the rest of the ring */
    r->slots[0].word[0] = TW_RING_VALID | TW_RING_PAD | 3;
    assert_int_equal(tw_ring_peek(&c, &st, &payload), TW_RING_CORRUPT);
    /* a record that would run past the end of the ring */
    r->slots[0].word[0] = 0;
    c.head = 120;
    r->slots[120].word[0] = TW_RING_VALID | 1000;
    assert_int_equal(tw_ring_peek(&c, &st, &payload), TW_RING_CORRUPT);
    assert_int_equal(c.head, 120); /* nothing consumed */
    ring_free(r, 128);
}

/* Stress: PRODUCERS producers, each sending COUNT records carrying (producer,
 * sequence) and bytes derived from both; the consumer checks every record
 * arrives once, in order per producer, intact. */
enum { PRODUCERS = 4, COUNT = 100000, STRESS_SLOTS = 256 };

static void produce(ring_mem_t *r, int id) {
    tw_ring_producer_t p;
    tw_ring_producer_init(&p, &r->ctrl, r->slots, STRESS_SLOTS);
    unsigned char buf[300];
    for (uint32_t seq = 0; seq < COUNT; seq++) {
        size_t len = 4 + (seq * 7 + (uint32_t)id) % 290;
        memcpy(buf, &seq, 4);
        for (size_t i = 4; i < len; i++) buf[i] = (unsigned char)(seq + i + (size_t)id);
        uint64_t user = (uint64_t)id << TW_RING_USER_SHIFT;
        while (tw_ring_push(&p, user, buf, len) == TW_RING_FULL) {
        }
    }
}

static void *producer_thread(void *arg) {
    ring_mem_t **rp = arg;
    static _Atomic int next_id;
    produce(*rp, atomic_fetch_add(&next_id, 1) % PRODUCERS);
    return NULL;
}

static void consume_all(ring_mem_t *r) {
    tw_ring_consumer_t c;
    tw_ring_consumer_init(&c, &r->ctrl, r->slots, STRESS_SLOTS, 4096);
    uint32_t next[PRODUCERS] = {0};
    unsigned char buf[4096];
    size_t len;
    uint64_t user;
    for (long got = 0; got < (long)PRODUCERS * COUNT;) {
        int rc = pop(&c, buf, &len, &user);
        if (rc == TW_RING_EMPTY) continue;
        assert_int_equal(rc, TW_RING_OK);
        int id = (int)(user >> TW_RING_USER_SHIFT);
        assert_in_range(id, 0, PRODUCERS - 1);
        uint32_t seq;
        memcpy(&seq, buf, 4);
        assert_int_equal(seq, next[id]);
        assert_int_equal(len, 4 + (seq * 7 + (uint32_t)id) % 290);
        for (size_t i = 4; i < len; i++)
            if (buf[i] != (unsigned char)(seq + i + (size_t)id)) fail_msg("payload corrupted");
        next[id]++;
        got++;
    }
    for (int i = 0; i < PRODUCERS; i++) assert_int_equal(next[i], COUNT);
    uint64_t st = 0;
    void *payload = NULL;
    assert_int_equal(tw_ring_peek(&c, &st, &payload), TW_RING_EMPTY);
}

static void test_stress_threads(void **state) {
    (void)state;
    ring_mem_t *r = ring_new(STRESS_SLOTS, 0);
    pthread_t t[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) pthread_create(&t[i], NULL, producer_thread, &r);
    consume_all(r);
    for (int i = 0; i < PRODUCERS; i++) pthread_join(t[i], NULL);
    ring_free(r, STRESS_SLOTS);
}

static void test_stress_processes(void **state) {
    (void)state;
#ifdef TW_NO_FORK_TESTS
    skip(); /* ThreadSanitizer follows threads, not processes sharing memory */
#endif
    ring_mem_t *r = ring_new(STRESS_SLOTS, 1);
    pid_t pids[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            produce(r, i);
            _exit(0);
        }
    }
    consume_all(r);
    for (int i = 0; i < PRODUCERS; i++) {
        int status;
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    ring_free(r, STRESS_SLOTS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slot_accounting),
        cmocka_unit_test(test_status_word_protocol),
        cmocka_unit_test(test_lazy_head),
        cmocka_unit_test(test_full_ring_is_transactional),
        cmocka_unit_test(test_wraparound_with_padding),
        cmocka_unit_test(test_corrupt_status_words),
        cmocka_unit_test(test_stress_threads),
        cmocka_unit_test(test_stress_processes),
    };
    return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
