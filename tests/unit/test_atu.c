/* The ATU's checks against a table in this process: every fault cause, stale NLAs
 * after deregistration and re-registration (past the generation's wrap), the lock region, and the
 * in-flight count that deregistration waits for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "device/atu.h"
#include "device/endpoint.h"

typedef struct fixture {
    tw_ep_t ep;
    _Alignas(64) uint64_t locks[TW_LOCKS];
} fixture_t;

static int setup(void **state) {
    fixture_t *f = calloc(1, sizeof *f);
    f->ep.atu.entries = 16;
    f->ep.atu.table = aligned_alloc(64, 16 * sizeof(tw_atu_entry_t));
    memset(f->ep.atu.table, 0, 16 * sizeof(tw_atu_entry_t));
    assert_int_equal(tw_atu_init(&f->ep), 0);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture_t *f = *state;
    tw_atu_fini(&f->ep);
    free(f->ep.atu.table);
    free(f);
    return 0;
}

static int xlate(fixture_t *f, uint64_t nla, uint64_t key, uint64_t len, unsigned perm,
                 unsigned align, tw_xlate_t *x) {
    return tw_atu_translate(f->ep.atu.table, f->ep.atu.entries, (_Atomic uint64_t *)f->locks, nla,
                            key, len, perm, align, x);
}

static void test_checks(void **state) {
    fixture_t *f = *state;
    static char mem[4096];
    tw_region_t r;
    assert_int_equal(tw_reg(&f->ep, mem, sizeof mem, TW_PERM_READ, &r), TW_OK);
    tw_xlate_t x;
    assert_int_equal(xlate(f, r.nla + 10, r.key, 100, TW_PERM_READ, 1, &x), TW_OK);
    assert_int_equal(x.addr, (uint64_t)(uintptr_t)(mem + 10));
    assert_int_equal(atomic_load(&x.entry->inflight), 1); /* held until released */
    tw_atu_release(&x);
    assert_int_equal(atomic_load(&f->ep.atu.table[0].inflight), 0);

    assert_int_equal(xlate(f, r.nla, r.key ^ 1, 8, TW_PERM_READ, 1, &x), TW_ERR_KEY);
    assert_int_equal(xlate(f, r.nla + 4090, r.key, 8, TW_PERM_READ, 1, &x), TW_ERR_BOUNDS);
    assert_int_equal(xlate(f, r.nla + 4096, r.key, 1, TW_PERM_READ, 1, &x), TW_ERR_BOUNDS);
    assert_int_equal(xlate(f, r.nla, r.key, UINT64_MAX, TW_PERM_READ, 1, &x), TW_ERR_BOUNDS);
    assert_int_equal(xlate(f, r.nla + 4096, r.key, 0, TW_PERM_READ, 1, &x),
                     TW_OK); /* empty, at end */
    tw_atu_release(&x);
    assert_int_equal(xlate(f, r.nla, r.key, 8, TW_PERM_WRITE, 1, &x), TW_ERR_PERM);
    assert_int_equal(xlate(f, r.nla + 3, r.key, 8, TW_PERM_READ, 8, &x),
                     ((uintptr_t)mem + 3) % 8 ? TW_ERR_ALIGN : TW_OK);
    assert_int_equal(xlate(f, (uint64_t)15 << 48, 0, 8, TW_PERM_READ, 1, &x), TW_ERR_STALE);
    assert_int_equal(xlate(f, (uint64_t)999 << 48, 0, 8, TW_PERM_READ, 1, &x), TW_ERR_STALE);
    for (uint32_t i = 0; i < f->ep.atu.entries; i++)
        assert_int_equal(atomic_load(&f->ep.atu.table[i].inflight), 0); /* faults hold nothing */
    assert_int_equal(f->ep.stats.registrations, 1);
}

static void test_stale_after_dereg_and_reuse(void **state) {
    fixture_t *f = *state;
    static char mem[256];
    tw_region_t a, b, c;
    assert_int_equal(tw_reg(&f->ep, mem, sizeof mem, TW_PERM_WRITE, &a), TW_OK);
    tw_region_t old = a;
    assert_int_equal(tw_dereg(&f->ep, &a), TW_OK);
    tw_xlate_t x;
    assert_int_equal(xlate(f, old.nla, old.key, 8, TW_PERM_WRITE, 1, &x), TW_ERR_STALE);
    assert_int_equal(tw_dereg(&f->ep, &old), TW_ERR_ARG); /* twice: refused, harmless */
    /* the same memory again: the same table slot, a new generation and key */
    assert_int_equal(tw_reg(&f->ep, mem, sizeof mem, TW_PERM_WRITE, &b), TW_OK);
    assert_int_equal(b.nla >> 48, old.nla >> 48);
    assert_int_not_equal(b.nla, old.nla);
    assert_int_not_equal(b.key, old.key);
    assert_int_equal(xlate(f, old.nla, old.key, 8, TW_PERM_WRITE, 1, &x), TW_ERR_STALE);
    assert_int_equal(xlate(f, old.nla, b.key, 8, TW_PERM_WRITE, 1, &x), TW_ERR_STALE);
    /* overlapping registrations are independent */
    assert_int_equal(tw_reg(&f->ep, mem + 64, 64, TW_PERM_READ, &c), TW_OK);
    assert_int_equal(xlate(f, c.nla, c.key, 64, TW_PERM_READ, 1, &x), TW_OK);
    tw_atu_release(&x);
    assert_int_equal(tw_dereg(&f->ep, &b), TW_OK);
    assert_int_equal(xlate(f, c.nla, c.key, 64, TW_PERM_READ, 1, &x), TW_OK);
    tw_atu_release(&x);
    assert_int_equal(tw_dereg(&f->ep, &c), TW_OK);
}

/* Entry 0 reused past its 8-bit generation's wrap: never NLA 0 (callers read 0 as
 * "not registered"), and the NLA of the use before is stale each time. */
static void test_generation_wraps_past_zero(void **state) {
    fixture_t *f = *state;
    static char mem[64];
    tw_region_t r, before = {0};
    tw_xlate_t x;
    for (int k = 0; k < 600; k++) {
        assert_int_equal(tw_reg(&f->ep, mem, sizeof mem, TW_PERM_READ, &r), TW_OK);
        assert_int_equal(r.nla >> 48, 0);
        assert_int_not_equal(r.nla, 0);
        if (k) assert_int_equal(xlate(f, before.nla, r.key, 8, TW_PERM_READ, 1, &x), TW_ERR_STALE);
        assert_int_equal(xlate(f, r.nla, r.key, 8, TW_PERM_READ, 1, &x), TW_OK);
        tw_atu_release(&x);
        before = r;
        assert_int_equal(tw_dereg(&f->ep, &r), TW_OK);
    }
}

static void test_table_full_and_bad_arguments(void **state) {
    fixture_t *f = *state;
    static char mem[64];
    tw_region_t r[17];
    for (int i = 0; i < 16; i++)
        assert_int_equal(tw_reg(&f->ep, mem, sizeof mem, TW_PERM_READ, &r[i]), TW_OK);
    assert_int_equal(tw_reg(&f->ep, mem, sizeof mem, TW_PERM_READ, &r[16]), TW_ERR_NOMEM);
    for (int i = 0; i < 16; i++) assert_int_equal(tw_dereg(&f->ep, &r[i]), TW_OK);
    assert_int_equal(tw_reg(&f->ep, mem, 0, TW_PERM_READ, &r[0]), TW_ERR_ARG);
    assert_int_equal(tw_reg(&f->ep, mem, 8, 0, &r[0]), TW_ERR_ARG);
    assert_int_equal(tw_reg(&f->ep, mem, 8, 8, &r[0]), TW_ERR_ARG);
    assert_int_equal(tw_reg(&f->ep, NULL, 8, TW_PERM_READ, &r[0]), TW_ERR_ARG);
    /* 1 GiB registers like 4 KiB: nothing is touched */
    assert_int_equal(tw_reg(&f->ep, (void *)(uintptr_t)0x1000, 1ull << 30, TW_PERM_READ, &r[0]),
                     TW_OK);
    assert_int_equal(tw_dereg(&f->ep, &r[0]), TW_OK);
}

/* A shared-heap block needs no in-flight count (it is only ever unmapped, never
 * reused while mapped) and leaves only through tw_heap_free. */
static void test_heap_registration(void **state) {
    fixture_t *f = *state;
    static char mem[4096];
    tw_region_t r;
    assert_int_equal(tw_atu_register(&f->ep, mem, sizeof mem, TW_PERM_READ | TW_PERM_WRITE, 7, &r),
                     TW_OK);
    tw_xlate_t x;
    assert_int_equal(xlate(f, r.nla + 8, r.key, 8, TW_PERM_WRITE, 8, &x), TW_OK);
    assert_int_equal(x.heap_id, 7);
    assert_null(x.held);
    assert_int_equal(atomic_load(&f->ep.atu.table[tw_nla_index(r.nla)].inflight), 0);
    assert_int_equal(tw_dereg(&f->ep, &r), TW_ERR_ARG);
    assert_int_equal(tw_atu_deregister(&f->ep, &r, 1), TW_OK);
    assert_int_equal(xlate(f, r.nla + 8, r.key, 8, TW_PERM_WRITE, 8, &x), TW_ERR_STALE);
}

static void test_lock_region(void **state) {
    fixture_t *f = *state;
    tw_xlate_t x;
    assert_int_equal(xlate(f, tw_lock_nla(5), 0, 8, TW_PERM_WRITE, 8, &x), TW_OK);
    assert_ptr_equal((void *)(uintptr_t)x.addr, &f->locks[5]);
    assert_null(x.entry);
    assert_int_equal(xlate(f, tw_lock_nla(TW_LOCKS - 1), 0, 8, TW_PERM_WRITE, 8, &x), TW_OK);
    assert_int_equal(xlate(f, tw_lock_nla(TW_LOCKS), 0, 8, TW_PERM_WRITE, 8, &x), TW_ERR_BOUNDS);
    assert_int_equal(xlate(f, tw_lock_nla(3) + 2, 0, 4, TW_PERM_WRITE, 4, &x), TW_ERR_ALIGN);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_after_dereg_and_reuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_generation_wraps_past_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_full_and_bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_heap_registration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_region, setup, teardown),
    };
    return cmocka_run_group_tests_name("atu", tests, NULL, NULL);
}
