/* The flattened datatype engine (src/mpi/datatype/typemap.c) on its own: maps merge into
 * the fewest blocks, any byte range of a packed stream packs and unpacks exactly as
 * the same bytes of the whole stream do, elements of partial streams are counted,
 * and overflowing sizes are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mpi/datatype/datatype.h"
#include "mpi/datatype/typemap.h"

static void test_vector_of_doubles_is_one_block(void **state) {
    (void)state;
    tw_typemap_t d, block, v, c;
    assert_int_equal(tw_typemap_basic(&d, MPI_DOUBLE), MPI_SUCCESS);
    tw_typemap_init(&block);
    assert_int_equal(tw_typemap_append(&block, &d, 3, 0, 8), MPI_SUCCESS); /* 3 doubles */
    tw_typemap_init(&v);
    assert_int_equal(tw_typemap_append(&v, &block, 1000, 0, 40), MPI_SUCCESS);
    assert_int_equal(v.nblocks, 1);
    assert_int_equal(v.blocks[0].len, 24);
    assert_int_equal(v.blocks[0].reps, 1000);
    assert_int_equal(v.blocks[0].stride, 40);
    assert_int_equal(v.size, 24000);
    assert_int_equal(tw_typemap_extent(&v), 999 * 40 + 24);
    assert_int_equal(v.nruns, 1);
    assert_int_equal(v.element, MPI_DOUBLE);
    /* contiguous of contiguous: one piece */
    tw_typemap_init(&c);
    assert_int_equal(tw_typemap_append(&c, &block, 50, 0, 24), MPI_SUCCESS);
    assert_int_equal(c.nblocks, 1);
    assert_int_equal(c.blocks[0].reps, 1);
    assert_int_equal(c.blocks[0].len, 1200);
    tw_typemap_free(&c);
    tw_typemap_free(&v);
    tw_typemap_free(&block);
    tw_typemap_free(&d);
}

/* A map of mixed pieces: an int, then 3 doubles at a negative stride, then 2
 * shorts; resized so that items interleave with gaps. */
static void mixed(tw_typemap_t *m) {
    tw_typemap_t i, d, s;
    tw_typemap_basic(&i, MPI_INT);
    tw_typemap_basic(&d, MPI_DOUBLE);
    tw_typemap_basic(&s, MPI_SHORT);
    tw_typemap_init(m);
    assert_int_equal(tw_typemap_append(m, &i, 1, 40, 4), MPI_SUCCESS);
    assert_int_equal(tw_typemap_append(m, &d, 3, 24, -12), MPI_SUCCESS);
    assert_int_equal(tw_typemap_append(m, &s, 2, 44, 2), MPI_SUCCESS);
    tw_typemap_resize(m, 0, 56);
    tw_typemap_free(&i);
    tw_typemap_free(&d);
    tw_typemap_free(&s);
}

static void test_ranges_match_the_whole(void **state) {
    (void)state;
    tw_typemap_t m;
    mixed(&m);
    assert_int_equal(m.size, 4 + 24 + 4);
    assert_int_equal(m.true_lb, 0);
    assert_int_equal(m.true_ub, 48);
    enum { COUNT = 5, SPAN = 56 * COUNT };
    unsigned char buf[SPAN], whole[32 * COUNT], part[32 * COUNT], back[SPAN], back2[SPAN];
    for (int k = 0; k < SPAN; k++) buf[k] = (unsigned char)(k * 31 + 7);
    size_t total = (size_t)m.size * COUNT;
    tw_typemap_move(&m, buf, COUNT, whole, 0, total, 0);
    /* the first item by hand: int at 40, doubles at 24, 12, 0, shorts at 44 */
    assert_memory_equal(whole, buf + 40, 4);
    assert_memory_equal(whole + 4, buf + 24, 8);
    assert_memory_equal(whole + 12, buf + 12, 8);
    assert_memory_equal(whole + 20, buf + 0, 8);
    assert_memory_equal(whole + 28, buf + 44, 4);
    assert_memory_equal(whole + 32, buf + 56 + 40, 4);
    memset(back, 0, sizeof back);
    tw_typemap_move(&m, back, COUNT, whole, 0, total, 1);
    const size_t steps[] = {1, 3, 7, 13, 32, 33, 100};
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        memset(part, 0, sizeof part);
        memset(back2, 0, sizeof back2);
        for (size_t at = 0; at < total; at += steps[s]) {
            size_t n = total - at < steps[s] ? total - at : steps[s];
            tw_typemap_move(&m, buf, COUNT, part + at, at, n, 0);
            tw_typemap_move(&m, back2, COUNT, whole + at, at, n, 1);
        }
        assert_memory_equal(part, whole, total);
        assert_memory_equal(back2, back, sizeof back);
    }
    /* the gaps stay untouched */
    for (int k = 0; k < COUNT; k++) {
        assert_int_equal(back[56 * k], buf[56 * k]);
        for (int g = 8; g < 12; g++) assert_int_equal(back[56 * k + g], 0);
        for (int g = 48; g < 56; g++) assert_int_equal(back[56 * k + g], 0);
    }
    tw_typemap_free(&m);
}

static void test_elements_of_partial_streams(void **state) {
    (void)state;
    tw_typemap_t m, p, two;
    mixed(&m); /* 1 int, 3 doubles, 2 shorts: 6 elements in 32 bytes */
    assert_int_equal(m.elements, 6);
    assert_int_equal(tw_typemap_elements(&m, 0), 0);
    assert_int_equal(tw_typemap_elements(&m, 4), 1);
    assert_int_equal(tw_typemap_elements(&m, 12), 2);
    assert_int_equal(tw_typemap_elements(&m, 30), 5);
    assert_int_equal(tw_typemap_elements(&m, 32 + 12), 8);
    assert_int_equal(tw_typemap_elements(&m, 6), -1); /* inside a double */
    /* pairs: two elements each; of a pair cut short, the members there whole count
     * (the value alone is one, less than it none), never "no whole number" */
    tw_typemap_basic(&p, MPI_DOUBLE_INT);
    tw_typemap_init(&two);
    assert_int_equal(tw_typemap_append(&two, &p, 2, 0, 16), MPI_SUCCESS);
    assert_int_equal(two.size, 24); /* packed without the structs' padding */
    assert_int_equal(two.data_size, 24);
    assert_int_equal(tw_typemap_extent(&two), 32);
    assert_int_equal(tw_typemap_elements(&two, 12), 2);
    assert_int_equal(tw_typemap_elements(&two, 20), 3);
    assert_int_equal(tw_typemap_elements(&two, 16), 2);
    assert_int_equal(tw_typemap_elements(&two, 24), 4);
    tw_typemap_free(&two);
    tw_typemap_free(&p);
    tw_typemap_free(&m);
}

static void test_overflow_is_refused(void **state) {
    (void)state;
    tw_typemap_t d, big, huge, t;
    tw_typemap_basic(&d, MPI_DOUBLE);
    tw_typemap_init(&big);
    assert_int_equal(tw_typemap_append(&big, &d, 1LL << 40, 0, 8), MPI_SUCCESS);
    tw_typemap_init(&huge);
    assert_int_equal(tw_typemap_append(&huge, &big, 1LL << 20, 0, 8LL << 40), MPI_ERR_ARG);
    assert_int_equal(huge.size, 0); /* nothing added */
    tw_typemap_init(&t);
    assert_int_equal(tw_typemap_append(&t, &d, 4, INTPTR_MAX - 8, 8), MPI_ERR_ARG);
    assert_int_equal(tw_typemap_append(&t, &d, 3, 0, INTPTR_MIN / 2), MPI_ERR_ARG);
    tw_typemap_free(&t);
    tw_typemap_free(&huge);
    tw_typemap_free(&big);
    tw_typemap_free(&d);
}

/* The layout a call reads off a contiguous predefined type's handle is the one its
 * map gives: the same size, bounds and element, and contiguous. The pairs whose C
 * struct pads are the value then the int (MPI-3.1 section 5.9.4): their size is
 * less than their extent, and the handle says they are not contiguous. */
static void test_basic_layout_matches_the_map(void **state) {
    (void)state;
    static const MPI_Datatype basics[] = {MPI_CHAR,
                                          MPI_SIGNED_CHAR,
                                          MPI_UNSIGNED_CHAR,
                                          MPI_BYTE,
                                          MPI_WCHAR,
                                          MPI_SHORT,
                                          MPI_UNSIGNED_SHORT,
                                          MPI_INT,
                                          MPI_UNSIGNED,
                                          MPI_LONG,
                                          MPI_UNSIGNED_LONG,
                                          MPI_LONG_LONG_INT,
                                          MPI_UNSIGNED_LONG_LONG,
                                          MPI_FLOAT,
                                          MPI_DOUBLE,
                                          MPI_LONG_DOUBLE,
                                          MPI_C_BOOL,
                                          MPI_INT8_T,
                                          MPI_INT16_T,
                                          MPI_INT32_T,
                                          MPI_INT64_T,
                                          MPI_UINT8_T,
                                          MPI_UINT16_T,
                                          MPI_UINT32_T,
                                          MPI_UINT64_T,
                                          MPI_AINT,
                                          MPI_COUNT,
                                          MPI_OFFSET,
                                          MPI_PACKED,
                                          MPI_C_FLOAT_COMPLEX,
                                          MPI_C_DOUBLE_COMPLEX,
                                          MPI_C_LONG_DOUBLE_COMPLEX,
                                          MPI_CXX_BOOL,
                                          MPI_CXX_FLOAT_COMPLEX,
                                          MPI_CXX_DOUBLE_COMPLEX,
                                          MPI_CXX_LONG_DOUBLE_COMPLEX,
                                          MPI_FLOAT_INT,
                                          MPI_DOUBLE_INT,
                                          MPI_LONG_INT,
                                          MPI_2INT,
                                          MPI_SHORT_INT,
                                          MPI_LONG_DOUBLE_INT,
                                          MPI_CHARACTER,
                                          MPI_LOGICAL,
                                          MPI_INTEGER,
                                          MPI_REAL,
                                          MPI_DOUBLE_PRECISION,
                                          MPI_COMPLEX,
                                          MPI_DOUBLE_COMPLEX,
                                          MPI_INTEGER1,
                                          MPI_INTEGER2,
                                          MPI_INTEGER4,
                                          MPI_INTEGER8,
                                          MPI_REAL4,
                                          MPI_REAL8,
                                          MPI_REAL16,
                                          MPI_COMPLEX8,
                                          MPI_COMPLEX16,
                                          MPI_COMPLEX32,
                                          MPI_2REAL,
                                          MPI_2DOUBLE_PRECISION,
                                          MPI_2INTEGER};
    int padded = 0;
    for (size_t i = 0; i < sizeof basics / sizeof basics[0]; i++) {
        MPI_Datatype t = basics[i];
        tw_typemap_t m;
        assert_int_equal(tw_typemap_basic(&m, t), MPI_SUCCESS);
        assert_true(tw_mpi_type_extent(t) > 0);
        assert_int_equal(tw_mpi_basic_packed_size(t), m.size);
        assert_int_equal(tw_mpi_basic_packed_size(t), tw_mpi_basic_data_size(t));
        assert_int_equal(tw_typemap_extent(&m), tw_mpi_type_extent(t));
        if (tw_mpi_type_contiguous_size(t) < 0) { /* a padded pair */
            int value = tw_mpi_basic_value_size(t);
            assert_true(value > 0);
            assert_int_equal(m.size, value + (int)sizeof(int));
            assert_true(m.size < tw_typemap_extent(&m));
            assert_int_equal(m.true_lb, 0);
            assert_int_equal(m.blocks[0].disp, 0);
            assert_int_equal(m.blocks[m.nblocks - 1].disp + (MPI_Aint)m.blocks[m.nblocks - 1].len,
                             m.true_ub);
            assert_int_equal(m.element, t);
            padded++;
            tw_typemap_free(&m);
            continue;
        }
        tw_mpi_type_layout_t l = tw_mpi_type_basic_layout(t, tw_mpi_type_contiguous_size(t));
        assert_int_equal(l.size, m.size);
        assert_int_equal(l.lb, m.lb);
        assert_int_equal(l.extent, tw_typemap_extent(&m));
        assert_int_equal(l.true_lb, m.true_lb);
        assert_int_equal(l.true_extent, m.true_ub - m.true_lb);
        assert_int_equal(m.nblocks, 1);
        assert_true(l.contiguous);
        assert_int_equal(m.blocks[0].len, (size_t)l.extent);
        assert_int_equal(l.element, m.element);
        tw_typemap_free(&m);
    }
    assert_int_equal(padded, 4); /* DOUBLE_INT, LONG_INT, SHORT_INT, LONG_DOUBLE_INT */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_of_doubles_is_one_block),
        cmocka_unit_test(test_basic_layout_matches_the_map),
        cmocka_unit_test(test_ranges_match_the_whole),
        cmocka_unit_test(test_elements_of_partial_streams),
        cmocka_unit_test(test_overflow_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
