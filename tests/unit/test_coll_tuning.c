/* The tuning table (src/mpi/coll/coll_tuning.c) on its own: the one-range answer kept for
 * 2 ranks is the answer worked out in full (settings, the copy limit, the rows), for
 * every collective around every edge of every row, with a collective's setting
 * forced either way, and (ctest) with TW_COLL_SHM at each of its values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mpi/coll/coll_tuning.h"

/* libmpi's tools interface, here a table of choices (-1: the environment's) */
unsigned tw_mpi_t_choice_writes;
static int chosen[TW_SETTING_COUNT];

int tw_mpi_t_choice(tw_setting_id_t id) {
    return chosen[id] >= 0 ? chosen[id] : tw_setting_choice(id);
}

static void choose(tw_setting_id_t id, int value) {
    chosen[id] = value;
    tw_mpi_t_choice_writes++; /* as a tool's write: the table loads again */
}

/* The answer on 2 ranks, and the same worked out in full, as on any other count. */
static int pair_answer(tw_coll_kind_t k, size_t bytes) {
    return tw_coll_tuned_shm(k, 2, bytes);
}

static int full_answer(tw_coll_kind_t k, size_t bytes) {
    unsigned char kept = tw_coll_tuning.pair_rows[k];
    tw_coll_tuning.pair_rows[k] = 2; /* "more than one row": no short cut */
    int shm = tw_coll_tuned_shm(k, 2, bytes);
    tw_coll_tuning.pair_rows[k] = kept;
    return shm;
}

/* Every kind around every edge; counts the answers of each kind in *yes and *no. */
static void check_all(int *yes, int *no) {
    const size_t K = 1024;
    const size_t edges[] = {0,       1,        56,       57,       256,      3 * K,       4 * K,
                            8 * K,   16 * K,   32 * K,   48 * K,   64 * K,   128 * K,     256 * K,
                            512 * K, 1024 * K, 2048 * K, 4096 * K, 8192 * K, SIZE_MAX / 4};
    for (int k = 0; k < TW_COLL_KINDS; k++)
        for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
            for (int d = -1; d <= 1; d++) {
                if (!edges[e] && d < 0) continue;
                size_t bytes = edges[e] + (size_t)d;
                (void)pair_answer((tw_coll_kind_t)k, bytes); /* loads the table first */
                int full = full_answer((tw_coll_kind_t)k, bytes);
                assert_int_equal(pair_answer((tw_coll_kind_t)k, bytes), full);
                *yes += full;
                *no += !full;
            }
}

/* ctest runs this also with TW_COLL_SHM=p2p and =shm (read once, from the environment) */
static void test_pairs_agree_by_default(void **state) {
    (void)state;
    int yes = 0, no = 0, all = tw_setting_choice(TW_SETTING_COLL_SHM);
    check_all(&yes, &no);
    assert_true(all == TW_COLL_SHM_P2P ? yes == 0 : yes > 0);
    assert_true(no > 0); /* the rows, or the copy limit */
}

static void test_pairs_agree_with_a_forced_collective(void **state) {
    (void)state;
    /* one collective forced to shared memory and to an algorithm of messages */
    const int bcast[] = {TW_BCAST_SHM, TW_BCAST_BINOMIAL};
    for (size_t b = 0; b < 2; b++) {
        int yes = 0, no = 0;
        choose(TW_SETTING_COLL_BCAST, bcast[b]);
        check_all(&yes, &no);
        assert_int_equal(pair_answer(TW_COLL_KIND_BCAST, 1 << 20), bcast[b] == TW_BCAST_SHM);
        choose(TW_SETTING_COLL_BCAST, -1);
    }
}

static int set_up(void **state) {
    (void)state;
    for (int i = 0; i < TW_SETTING_COUNT; i++) chosen[i] = -1;
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_agree_by_default),
        cmocka_unit_test(test_pairs_agree_with_a_forced_collective),
    };
    return cmocka_run_group_tests(tests, set_up, NULL);
}
