/* The PMI-1 line codec against well-formed and malformed lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/pmi_wire.h"

static int parse(tw_pmi_msg_t *m, const char *s) {
    return tw_pmi_parse(m, s, strlen(s));
}

static void test_well_formed(void **state) {
    (void)state;
    tw_pmi_msg_t m;
    assert_int_equal(parse(&m, "cmd=put kvsname=tw-1 key=a value=shm:x:/tw-1-ep0-0"), 0);
    assert_int_equal(m.count, 4);
    assert_string_equal(tw_pmi_find(&m, "cmd"), "put");
    assert_string_equal(tw_pmi_find(&m, "value"), "shm:x:/tw-1-ep0-0");
    assert_null(tw_pmi_find(&m, "missing"));
    assert_int_equal(parse(&m, "  cmd=barrier_out  "), 0);
    assert_int_equal(m.count, 1);
    assert_int_equal(parse(&m, "cmd=get_result rc=0 value="), 0); /* empty value allowed */
    assert_string_equal(tw_pmi_find(&m, "value"), "");
}

static void test_malformed(void **state) {
    (void)state;
    tw_pmi_msg_t m;
    assert_int_equal(parse(&m, ""), -1);
    assert_int_equal(parse(&m, "   "), -1);
    assert_int_equal(parse(&m, "cmd"), -1);
    assert_int_equal(parse(&m, "=value"), -1);
    assert_int_equal(parse(&m, "cmd=a\tkey=b"), -1);
    assert_int_equal(parse(&m, "cmd=a key=\x01"), -1);
    assert_int_equal(parse(&m, "a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9"), -1);
    char big[TW_PMI_LINE_MAX + 10];
    memset(big, 'a', sizeof big);
    big[0] = 'k';
    big[1] = '=';
    assert_int_equal(tw_pmi_parse(&m, big, sizeof big), -1);
    /* bytes after len are never read: a line cut short stays cut */
    assert_int_equal(tw_pmi_parse(&m, "cmd=xyz", 5), 0);
    assert_string_equal(tw_pmi_find(&m, "cmd"), "x");
}

static void test_token_rules(void **state) {
    (void)state;
    assert_true(tw_pmi_token_ok("tw.ep0.3", 256, 1));
    assert_false(tw_pmi_token_ok("", 256, 1));
    assert_false(tw_pmi_token_ok("a b", 256, 0));
    assert_false(tw_pmi_token_ok("a=b", 256, 1));
    assert_true(tw_pmi_token_ok("a=b", 256, 0));
    assert_false(tw_pmi_token_ok("abcdef", 6, 0)); /* must be shorter than max */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_well_formed),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_token_rules),
    };
    return cmocka_run_group_tests_name("pmi_wire", tests, NULL, NULL);
}
