/* The checks an RMA answer from another node passes before it touches an operation:
 * a put's chunks may be answered several at once, never more than are waiting, never
 * none; a get's one at a time, each where and as long as the operation expects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "device/endpoint.h"
#include "device/rma.h"

static tw_rma_op_t op_of(uint8_t op, uint64_t length, uint32_t chunk, uint32_t acked) {
    tw_rma_op_t o = {.op = op, .length = length, .chunk = chunk, .chunks_acked = acked};
    o.chunks = (uint32_t)((length + chunk - 1) / chunk);
    return o;
}

static void test_put_answers(void **state) {
    (void)state;
    tw_rma_op_t o = op_of(TW_OP_PUT, 5 * 1000, 1000, 1); /* 4 chunks wait */
    rma_answer_t a = {.kind = ANSWER_ACK, .chunks = 1};
    assert_true(tw_rma_answer_fits(&o, &a, 0));
    a.chunks = 4; /* all that wait, at once */
    assert_true(tw_rma_answer_fits(&o, &a, 0));
    a.chunks = 5; /* more than wait */
    assert_false(tw_rma_answer_fits(&o, &a, 0));
    a.chunks = 0; /* none */
    assert_false(tw_rma_answer_fits(&o, &a, 0));
    a.chunks = 2, a.status = TW_ERR_KEY; /* a fault a target gives */
    assert_true(tw_rma_answer_fits(&o, &a, 0));
    a.status = TW_ERR_NOMEM; /* one it does not */
    assert_false(tw_rma_answer_fits(&o, &a, 0));
    a.status = TW_OK, a.chunk_len = 8; /* a put's answer carries no data */
    assert_false(tw_rma_answer_fits(&o, &a, 8));
    a.chunk_len = 0, a.kind = ANSWER_DATA;
    assert_false(tw_rma_answer_fits(&o, &a, 0));
}

static void test_get_answers(void **state) {
    (void)state;
    tw_rma_op_t o = op_of(TW_OP_GET, 2500, 1000, 0);
    rma_answer_t a = {.kind = ANSWER_ACK, .chunks = 1, .chunk_len = 1000, .offset = 1000};
    assert_true(tw_rma_answer_fits(&o, &a, 1000));
    a.chunks = 2; /* a get's chunks each bring their data */
    assert_false(tw_rma_answer_fits(&o, &a, 1000));
    a.chunks = 1, a.offset = 2000, a.chunk_len = 500; /* the short last one */
    assert_true(tw_rma_answer_fits(&o, &a, 500));
    a.chunk_len = 1000; /* longer than what is left */
    assert_false(tw_rma_answer_fits(&o, &a, 1000));
    a.offset = 2500, a.chunk_len = 0; /* past the end */
    assert_false(tw_rma_answer_fits(&o, &a, 0));
    a.offset = 0, a.chunk_len = 1000; /* says 1000, brings 999 */
    assert_false(tw_rma_answer_fits(&o, &a, 999));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_answers),
        cmocka_unit_test(test_get_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
