/* The collective buffers kept across files (src/mpi/io/spare.c) on their own: a buffer
 * given back comes back to the next take that it fits, the smaller of two that fit is
 * taken, a third given replaces the smaller kept, one above the cap is not kept, and
 * after the finalisation nothing is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mpi/io/spare.h"

/* A take of bytes, written through (ASan checks it holds them); its size in *have. */
static char *take(MPI_Offset bytes, MPI_Offset *have) {
    char *buf = tw_io_spare_take(bytes, have);
    assert_non_null(buf);
    assert_true(*have >= bytes);
    memset(buf, 0x5a, (size_t)bytes);
    return buf;
}

static void kept_for_the_next_file(void **state) {
    (void)state;
    MPI_Offset have;
    char *a = take(1000, &have);
    assert_int_equal(have, 1000); /* nothing kept yet: a new one of the size asked */
    tw_io_spare_give(a, have);
    MPI_Offset again;
    char *b = take(600, &again);
    assert_ptr_equal(b, a); /* the pages already faulted in */
    assert_int_equal(again, 1000);
    tw_io_spare_give(b, again);
    tw_io_spare_fini();
}

static void too_small_is_left_kept(void **state) {
    (void)state;
    MPI_Offset small_size, big_size, got;
    char *small = take(1000, &small_size);
    tw_io_spare_give(small, small_size);
    char *big = take(5000, &big_size); /* the kept one is too small for it */
    assert_ptr_not_equal(big, small);
    assert_int_equal(big_size, 5000);
    tw_io_spare_give(big, big_size);
    char *fit = take(800, &got); /* both fit: the smaller is taken */
    assert_ptr_equal(fit, small);
    tw_io_spare_give(fit, got);
    fit = take(4000, &got);
    assert_ptr_equal(fit, big);
    tw_io_spare_give(fit, got);
    tw_io_spare_fini();
}

static void a_third_replaces_the_smaller(void **state) {
    (void)state;
    MPI_Offset s1, s2, s3, got;
    char *one = take(1000, &s1), *two = take(2000, &s2), *three = take(3000, &s3);
    tw_io_spare_give(one, s1);
    tw_io_spare_give(two, s2);
    tw_io_spare_give(three, s3); /* the 1000 bytes go */
    char *x = take(10, &got);
    assert_ptr_equal(x, two); /* the smallest kept now */
    assert_int_equal(got, 2000);
    char *y = take(10, &got);
    assert_ptr_equal(y, three);
    char *z = take(10, &got); /* none left: a new one */
    assert_int_equal(got, 10);
    tw_io_spare_give(x, 2000);
    tw_io_spare_give(y, 3000);
    tw_io_spare_give(z, 10); /* smaller than both kept: freed */
    x = take(10, &got);
    assert_int_equal(got, 2000);
    tw_io_spare_give(x, got);
    tw_io_spare_fini();
}

static void above_the_cap_is_freed(void **state) {
    (void)state;
    MPI_Offset have, got;
    char *huge = tw_io_spare_take((MPI_Offset)TW_IO_SPARE_MOST + 1, &have);
    assert_non_null(huge);
    tw_io_spare_give(huge, have);
    char *x = take(1, &got);
    assert_ptr_not_equal(x, huge);
    assert_int_equal(got, 1);
    tw_io_spare_give(x, got);
    tw_io_spare_fini();
}

static void nothing_kept_after_fini(void **state) {
    (void)state;
    MPI_Offset have, got;
    char *a = take(4096, &have);
    tw_io_spare_give(a, have);
    tw_io_spare_fini();
    char *b = take(16, &got);
    assert_int_equal(got, 16); /* not the 4096 bytes kept before */
    tw_io_spare_give(b, got);
    tw_io_spare_give(NULL, 100); /* nothing to keep */
    b = take(32, &got);
    assert_int_equal(got, 32);
    tw_io_spare_give(b, got);
    tw_io_spare_fini();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kept_for_the_next_file),       cmocka_unit_test(too_small_is_left_kept),
        cmocka_unit_test(a_third_replaces_the_smaller), cmocka_unit_test(above_the_cap_is_freed),
        cmocka_unit_test(nothing_kept_after_fini),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
