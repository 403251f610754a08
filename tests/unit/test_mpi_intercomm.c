/* The check of the answer a member of MPI_Intercomm_create gets from its leader,
 * which carries the other group: well-formed answers pass, every field out of range
 * is refused, and so is a remote group that overlaps the local one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mpi/comm/comm.h"
#include "mpi/comm_create/intercomm.h"

static const int local[] = {0, 2, 4}; /* the local group: world ranks 0, 2, 4 */

static int ok(const int *a, size_t n_ints, int world) {
    return tw_mpi_intercomm_answer_ok(a, n_ints * sizeof(int), world, 3, local);
}

static void test_well_formed(void **state) {
    (void)state;
    const int a[] = {7, 3, 5, 1, 3}; /* entry 7, remote group world 5, 1, 3 */
    assert_true(ok(a, 5, 6));
    const int one[] = {7, 1, 5};
    assert_true(ok(one, 3, 6));
    /* a local group given as 0..n-1 (MPI_COMM_WORLD's ranks) */
    assert_true(tw_mpi_intercomm_answer_ok(one, sizeof one, 6, 2, NULL));
}

static void test_refused(void **state) {
    (void)state;
    int a[] = {7, 3, 5, 1, 3};
    assert_false(ok(a, 4, 6)); /* shorter than it says */
    assert_false(ok(a, 1, 6)); /* not even a header */
    assert_false(ok(a, 5, 5)); /* a world rank past the job */
    a[0] = TW_MPI_COMMS;       /* a table entry that does not exist */
    assert_false(ok(a, 5, 6));
    a[0] = -1;
    assert_false(ok(a, 5, 6));
    a[0] = 7;
    a[1] = 0; /* an empty remote group */
    assert_false(ok(a, 2, 6));
    a[1] = 7; /* more processes than the job */
    assert_false(ok(a, 9, 6));
    a[1] = 3;
    a[4] = 5; /* a process twice */
    assert_false(ok(a, 5, 6));
    a[4] = 2; /* a process of the local group */
    assert_false(ok(a, 5, 6));
    a[4] = -3;
    assert_false(ok(a, 5, 6));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_well_formed),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests_name("mpi_intercomm", tests, NULL, NULL);
}
