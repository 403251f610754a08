/* MPI matching (src/mpi/pt2pt/match.c) on its own, without an endpoint: envelopes are fed
 * in, receives posted, and what matches what, in which order, is checked — wildcards,
 * non-overtaking, probes, matched probes, cancel, and the bound on what is kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mpi/pt2pt/match.h"

enum { CTX = 4, OTHER_CTX = 6 };

static tw_posted_t recv_of(int source, int tag, uint32_t context) {
    return (tw_posted_t){NULL, source, tag, context};
}

/* An eager arrival no receive took, with an int payload. */
static tw_unexpected_t *keep_int(tw_match_t *m, int source, int tag, uint32_t context, int value) {
    return tw_match_keep(m, source, tag, context, NULL, &value, sizeof value);
}

static int payload(const tw_unexpected_t *u) {
    int v;
    memcpy(&v, u->data, sizeof v);
    return v;
}

static void test_posted_receives_match_in_posting_order(void **state) {
    (void)state;
    tw_match_t m;
    tw_match_init(&m, 1 << 20);
    assert_true(tw_match_idle(&m));
    tw_posted_t a = recv_of(1, 7, CTX), b = recv_of(MPI_ANY_SOURCE, 7, CTX),
                c = recv_of(1, MPI_ANY_TAG, CTX);
    tw_match_post(&m, &a);
    tw_match_post(&m, &b);
    tw_match_post(&m, &c);
    assert_false(tw_match_idle(&m));
    /* wrong context, wrong tag: nothing */
    assert_null(tw_match_arrival(&m, 1, 7, OTHER_CTX));
    assert_null(tw_match_arrival(&m, 2, 8, CTX));
    /* the oldest that accepts takes each */
    assert_ptr_equal(tw_match_arrival(&m, 1, 7, CTX), &a);
    assert_ptr_equal(tw_match_arrival(&m, 1, 7, CTX), &b);
    assert_ptr_equal(tw_match_arrival(&m, 1, 9, CTX), &c);
    assert_null(tw_match_arrival(&m, 1, 7, CTX));
    assert_true(tw_match_idle(&m));
    tw_match_fini(&m);
}

/* Negative tags are the communicator creation exchanges': their own receives name
 * them, and a receive of any tag, which would report an impossible tag, takes none. */
static void test_any_tag_takes_no_negative_tag(void **state) {
    (void)state;
    tw_match_t m;
    tw_match_init(&m, 1 << 20);
    tw_posted_t any = recv_of(MPI_ANY_SOURCE, MPI_ANY_TAG, CTX), creation = recv_of(1, -2, CTX);
    tw_match_post(&m, &any);
    assert_null(tw_match_arrival(&m, 1, MPI_ANY_TAG, CTX));
    assert_null(tw_match_arrival(&m, 1, -5, CTX));
    tw_match_post(&m, &creation);
    assert_ptr_equal(tw_match_arrival(&m, 1, -2, CTX), &creation);
    assert_ptr_equal(tw_match_arrival(&m, 1, 0, CTX), &any);
    keep_int(&m, 1, -2, CTX, 1);
    assert_null(tw_match_probe(&m, MPI_ANY_SOURCE, MPI_ANY_TAG, CTX));
    assert_non_null(tw_match_probe(&m, 1, -2, CTX));
    tw_match_fini(&m);
}

static void test_any_source_skips_to_the_one_that_fits(void **state) {
    (void)state;
    tw_match_t m;
    tw_match_init(&m, 1 << 20);
    tw_posted_t from2 = recv_of(2, 5, CTX), any = recv_of(MPI_ANY_SOURCE, MPI_ANY_TAG, CTX);
    tw_match_post(&m, &from2);
    tw_match_post(&m, &any);
    assert_ptr_equal(tw_match_arrival(&m, 3, 5, CTX), &any); /* passes from2 by */
    assert_ptr_equal(tw_match_arrival(&m, 2, 5, CTX), &from2);
    tw_match_fini(&m);
}

static void test_unexpected_messages_keep_their_order(void **state) {
    (void)state;
    tw_match_t m;
    tw_match_init(&m, 1 << 20);
    for (int k = 0; k < 4; k++) assert_non_null(keep_int(&m, 1, 7, CTX, k));
    assert_non_null(keep_int(&m, 2, 8, CTX, 100));
    assert_false(tw_match_idle(&m));
    /* non-overtaking: the same (source, tag) comes out in the order it went in */
    for (int k = 0; k < 2; k++) {
        tw_unexpected_t *u = tw_match_take(&m, 1, 7, CTX);
        assert_non_null(u);
        assert_int_equal(payload(u), k);
        tw_match_release(&m, u);
    }
    /* a wildcard receive takes the oldest of all */
    tw_unexpected_t *u = tw_match_take(&m, MPI_ANY_SOURCE, MPI_ANY_TAG, CTX);
    assert_int_equal(payload(u), 2);
    tw_match_release(&m, u);
    /* any tag from 2: passes the older ones from 1 */
    u = tw_match_take(&m, 2, MPI_ANY_TAG, CTX);
    assert_int_equal(payload(u), 100);
    assert_int_equal(u->source, 2);
    assert_int_equal(u->tag, 8);
    tw_match_release(&m, u);
    assert_null(tw_match_take(&m, 1, 7, OTHER_CTX));
    u = tw_match_take(&m, 1, MPI_ANY_TAG, CTX);
    assert_int_equal(payload(u), 3);
    tw_match_release(&m, u);
    assert_true(tw_match_idle(&m));
    assert_int_equal(m.unexpected_bytes, 0);
    tw_match_fini(&m);
}

static void test_probe_leaves_take_removes(void **state) {
    (void)state;
    tw_match_t m;
    tw_match_init(&m, 1 << 20);
    tw_mpi_rts_t rts = {.size = 1 << 20, .nla = 0x1000, .key = 42, .sreq = 9};
    assert_non_null(tw_match_keep(&m, 3, 1, CTX, &rts, NULL, sizeof rts));
    assert_non_null(keep_int(&m, 3, 2, CTX, 5));
    /* a probe sees the oldest and leaves it */
    tw_unexpected_t *p = tw_match_probe(&m, 3, MPI_ANY_TAG, CTX);
    assert_non_null(p);
    assert_true(p->is_rts);
    assert_int_equal(tw_unexpected_size(p), 1 << 20);
    assert_int_equal(p->rts.sreq, 9);
    assert_ptr_equal(tw_match_probe(&m, 3, MPI_ANY_TAG, CTX), p);
    assert_null(tw_match_probe(&m, 4, MPI_ANY_TAG, CTX));
    /* a matched probe takes it: no other receive or probe sees it again */
    tw_unexpected_t *t = tw_match_take(&m, 3, MPI_ANY_TAG, CTX);
    assert_ptr_equal(t, p);
    p = tw_match_probe(&m, MPI_ANY_SOURCE, MPI_ANY_TAG, CTX);
    assert_non_null(p);
    assert_false(p->is_rts);
    assert_int_equal(tw_unexpected_size(p), sizeof(int));
    /* its payload counts until it is released */
    assert_int_equal(m.unexpected_bytes, sizeof(int));
    tw_match_release(&m, t); /* an RTS keeps no payload */
    assert_int_equal(m.unexpected_bytes, sizeof(int));
    tw_match_fini(&m);
}

static void test_cancel_takes_a_posted_receive_out(void **state) {
    (void)state;
    tw_match_t m;
    tw_match_init(&m, 1 << 20);
    tw_posted_t a = recv_of(1, 1, CTX), b = recv_of(1, 1, CTX), c = recv_of(1, 1, CTX);
    tw_match_post(&m, &a);
    tw_match_post(&m, &b);
    tw_match_post(&m, &c);
    assert_true(tw_match_unpost(&m, &b));
    assert_false(tw_match_unpost(&m, &b)); /* once */
    assert_ptr_equal(tw_match_arrival(&m, 1, 1, CTX), &a);
    assert_true(tw_match_unpost(&m, &c)); /* the tail */
    assert_null(tw_match_arrival(&m, 1, 1, CTX));
    assert_true(tw_match_idle(&m));
    /* the queue still works after losing its tail */
    tw_match_post(&m, &a);
    assert_ptr_equal(tw_match_arrival(&m, 1, 1, CTX), &a);
    tw_match_fini(&m);
}

/* A send's cancel finds the message its sender's request named, an RTS or a
 * synchronous eager message from that source, among those no receive has taken;
 * withdrawn, it is gone and the others keep their order and bytes. */
static void test_cancelled_send_is_found_and_withdrawn(void **state) {
    (void)state;
    tw_match_t m;
    tw_match_init(&m, 1 << 20);
    tw_mpi_rts_t rts = {.size = 1 << 20, .sreq = 0x2c010005};
    keep_int(&m, 1, 7, CTX, 10);                                               /* eager */
    tw_unexpected_t *r = tw_match_keep(&m, 1, 7, CTX, &rts, &rts, sizeof rts); /* RTS */
    tw_unexpected_t *s = keep_int(&m, 2, 7, CTX, 20); /* synchronous eager */
    s->sync = 0x2c020009;
    keep_int(&m, 1, 7, CTX, 30);
    size_t kept = m.unexpected_bytes;
    assert_ptr_equal(tw_match_find_send(&m, 1, 0x2c010005), r);
    assert_ptr_equal(tw_match_find_send(&m, 2, 0x2c020009), s);
    assert_null(tw_match_find_send(&m, 2, 0x2c010005)); /* another source's handle */
    assert_null(tw_match_find_send(&m, 1, 0x2c020009));
    assert_null(tw_match_find_send(&m, 1, 0)); /* a plain eager message names no send */
    tw_match_withdraw(&m, r);
    tw_match_withdraw(&m, s);
    assert_int_equal(m.unexpected_bytes, kept - sizeof(int));
    assert_null(tw_match_find_send(&m, 1, 0x2c010005));
    /* the rest, in order; a receive of that tag takes the eager ones alone */
    tw_unexpected_t *u = tw_match_take(&m, MPI_ANY_SOURCE, 7, CTX);
    assert_int_equal(payload(u), 10);
    tw_match_release(&m, u);
    u = tw_match_take(&m, MPI_ANY_SOURCE, 7, CTX);
    assert_int_equal(payload(u), 30);
    assert_ptr_equal(m.unexpected_tail, NULL);
    tw_match_release(&m, u);
    assert_int_equal(m.unexpected_bytes, 0);
    /* the last entry withdrawn: the tail goes with it */
    r = tw_match_keep(&m, 1, 7, CTX, &rts, &rts, sizeof rts);
    tw_match_withdraw(&m, r);
    assert_null(m.unexpected);
    assert_null(m.unexpected_tail);
    keep_int(&m, 1, 8, CTX, 40);
    assert_ptr_equal(m.unexpected, m.unexpected_tail);
    tw_match_fini(&m);
}

static void test_unexpected_bytes_are_bounded(void **state) {
    (void)state;
    tw_match_t m;
    tw_match_init(&m, 1000);
    unsigned char big[600] = {1};
    assert_non_null(tw_match_keep(&m, 1, 1, CTX, NULL, big, sizeof big));
    /* beyond the bound: refused, so the caller leaves it in the mailbox */
    assert_null(tw_match_keep(&m, 1, 1, CTX, NULL, big, sizeof big));
    /* an RTS keeps no payload: taken */
    tw_mpi_rts_t rts = {.size = 1 << 30};
    assert_non_null(tw_match_keep(&m, 1, 1, CTX, &rts, NULL, sizeof rts));
    tw_unexpected_t *u = tw_match_take(&m, 1, 1, CTX);
    assert_int_equal(u->len, sizeof big);
    assert_int_equal(u->data[0], 1);
    tw_match_release(&m, u);
    assert_non_null(tw_match_keep(&m, 1, 1, CTX, NULL, big, sizeof big)); /* room again */
    /* a queue with nothing in it takes even a message over the bound */
    tw_match_t e;
    tw_match_init(&e, 10);
    assert_non_null(tw_match_keep(&e, 1, 1, CTX, NULL, big, sizeof big));
    tw_match_fini(&e);
    tw_match_fini(&m);
}

static void test_small_entries_are_recycled(void **state) {
    (void)state;
    tw_match_t m;
    tw_match_init(&m, 1 << 20);
    tw_unexpected_t *u = keep_int(&m, 1, 1, CTX, 1);
    assert_ptr_equal(tw_match_take(&m, 1, 1, CTX), u);
    tw_match_release(&m, u);
    assert_int_equal(m.pool->spares, 1);
    assert_ptr_equal(keep_int(&m, 1, 1, CTX, 2), u); /* the same entry again */
    assert_int_equal(m.pool->spares, 0);
    tw_match_fini(&m);
}

/* Larger entries too, by size class: a message of 8 KiB gets back the entry of the last
 * one of 5 to 8 KiB, not one of 4 KiB; past TW_MATCH_POOLED, and beyond
 * TW_MATCH_POOL_BYTES of spares, entries are freed. */
static void test_large_entries_are_recycled_by_class(void **state) {
    (void)state;
    static unsigned char big[TW_MATCH_POOLED + 1];
    tw_match_t m;
    tw_match_init(&m, 64 << 20);
    tw_unexpected_t *u8 = tw_match_keep(&m, 1, 1, CTX, NULL, big, 6000);
    tw_unexpected_t *u4 = tw_match_keep(&m, 1, 2, CTX, NULL, big, 4000);
    assert_non_null(u8);
    assert_non_null(u4);
    tw_match_release(&m, tw_match_take(&m, 1, 1, CTX));
    tw_match_release(&m, tw_match_take(&m, 1, 2, CTX));
    assert_int_equal(m.pool->spare_bytes, 8192 + 4096);
    tw_unexpected_t *again = tw_match_keep(&m, 1, 3, CTX, NULL, big, 8192);
    assert_ptr_equal(again, u8);
    assert_int_equal(again->len, 8192);
    assert_int_equal(m.pool->spare_bytes, 4096);
    tw_match_release(&m, tw_match_take(&m, 1, 3, CTX));
    /* past the largest class: not kept */
    assert_non_null(tw_match_keep(&m, 1, 4, CTX, NULL, big, sizeof big));
    tw_match_release(&m, tw_match_take(&m, 1, 4, CTX));
    assert_int_equal(m.pool->spare_bytes, 8192 + 4096);
    /* the spares are bounded */
    enum { N = TW_MATCH_POOL_BYTES / TW_MATCH_POOLED + 4 };
    for (int i = 0; i < N; i++)
        assert_non_null(tw_match_keep(&m, 1, 10 + i, CTX, NULL, big, TW_MATCH_POOLED));
    for (int i = 0; i < N; i++) tw_match_release(&m, tw_match_take(&m, 1, 10 + i, CTX));
    assert_true(m.pool->spare_bytes <= TW_MATCH_POOL_BYTES);
    assert_true(m.pool->spare_bytes > TW_MATCH_POOL_BYTES - TW_MATCH_POOLED);
    tw_match_fini(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_posted_receives_match_in_posting_order),
        cmocka_unit_test(test_any_source_skips_to_the_one_that_fits),
        cmocka_unit_test(test_any_tag_takes_no_negative_tag),
        cmocka_unit_test(test_unexpected_messages_keep_their_order),
        cmocka_unit_test(test_probe_leaves_take_removes),
        cmocka_unit_test(test_cancel_takes_a_posted_receive_out),
        cmocka_unit_test(test_cancelled_send_is_found_and_withdrawn),
        cmocka_unit_test(test_unexpected_bytes_are_bounded),
        cmocka_unit_test(test_small_entries_are_recycled),
        cmocka_unit_test(test_large_entries_are_recycled_by_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
