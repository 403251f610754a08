/* The check of a communicator-split answer, which arrives from another process:
 * well-formed answers pass, every field out of range is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mpi/comm/comm.h"
#include "mpi/comm_create/comm_create.h"

static int ok(const int *a, size_t n_ints, int parent, int world, int me) {
    return tw_mpi_split_answer_ok(a, n_ints * sizeof(int), parent, world, me);
}

static void test_well_formed(void **state) {
    (void)state;
    const int a[] = {5, 3, 1, 6, 2, 4}; /* entry 5, size 3, I am rank 1 = world 2 */
    assert_true(ok(a, 6, 4, 8, 2));
    const int out[] = {5, 0, -1}; /* MPI_UNDEFINED: no communicator */
    assert_true(ok(out, 3, 4, 8, 2));
}

static void test_refused(void **state) {
    (void)state;
    int a[] = {5, 3, 1, 6, 2, 4};
    assert_false(ok(a, 5, 4, 8, 2)); /* shorter than it says */
    assert_false(ok(a, 2, 4, 8, 2)); /* not even a header */
    assert_false(ok(a, 6, 4, 8, 6)); /* names another process as me */
    assert_false(ok(a, 6, 2, 8, 2)); /* larger than the parent */
    assert_false(ok(a, 6, 4, 5, 2)); /* a world rank past the job */
    a[0] = TW_MPI_COMMS;             /* a table entry that does not exist */
    assert_false(ok(a, 6, 4, 8, 2));
    a[0] = -7;
    assert_false(ok(a, 6, 4, 8, 2));
    a[0] = 5;
    a[2] = 3; /* my rank past the size */
    assert_false(ok(a, 6, 4, 8, 2));
    a[2] = 1;
    a[5] = -1; /* a negative world rank */
    assert_false(ok(a, 6, 4, 8, 2));
    const int neg[] = {5, -2, 0};
    assert_false(ok(neg, 3, 4, 8, 2));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_well_formed),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests_name("mpi_split", tests, NULL, NULL);
}
