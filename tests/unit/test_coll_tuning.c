/* The tuning table (src/mpi/coll_tuning.c) on its own: the one-range answer kept for
 * 2 ranks is the answer the rows give, for every collective and around every edge of
 * every row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mpi/coll_tuning.h"

/* libmpi's tools interface, as at start-up: the environment's choices */
unsigned tw_mpi_t_choice_writes;
int tw_mpi_t_choice(tw_setting_id_t id) {
    return tw_setting_choice(id);
}

static void test_pairs_agree_with_the_rows(void **state) {
    (void)state;
    const size_t K = 1024;
    const size_t edges[] = {0,       1,       56,      57,       256,      3 * K,
                            4 * K,   8 * K,   16 * K,  32 * K,   48 * K,   64 * K,
                            128 * K, 256 * K, 512 * K, 1024 * K, 2048 * K, 4096 * K};
    int some = 0, none = 0;
    tw_coll_tuning_load(); /* the rows are found through it */
    for (int k = 0; k < TW_COLL_KINDS; k++)
        for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++)
            for (int d = -1; d <= 1; d++) {
                size_t bytes = edges[e] + (size_t)d;
                if (!edges[e] && d < 0) continue;
                int rows = tw_coll_tuned_rows((tw_coll_kind_t)k, 2, bytes);
                size_t whole = k >= TW_COLL_KIND_GATHER ? 2 * bytes : bytes;
                if (whole > TW_COLL_SHM_COPY_MOST) rows = 0;
                assert_int_equal(tw_coll_tuned_shm((tw_coll_kind_t)k, 2, bytes), rows);
                some += rows;
                none += !rows;
            }
    assert_true(some > 0 && none > 0); /* both answers were asked for */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pairs_agree_with_the_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
