/* The PMI-1 line codec against well-formed and malformed lines, and a spawn request
 * to another process manager that a word of it would cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/pmi.h"
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

/* A newline in any word of a spawn (command, argument, wdir) is refused before a byte
 * goes to the process manager: PMI-1 is a line protocol, and half a request would
 * leave the stream cut. */
static void test_spawn_other_refuses_a_newline_whole(void **state) {
    (void)state;
    const char *specs[] = {"1,-,/bin/true,a%0Ab", "1,-,/bin/tr%0Aue", "1,/t%0Amp,/bin/true",
                           "1,-,/bin/true;1,-,/bin/true,x%0Ay"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        int sv[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        static tw_pmi_t pmi;
        memset(&pmi, 0, sizeof pmi);
        pmi.fd = sv[0];
        char why[64];
        int base = 0, size = 0, failed = 0;
        assert_int_equal(tw_pmi_spawn_other(&pmi, "port", specs[k], "job", &base, &size, why,
                                            sizeof why, &failed),
                         -1);
        char b;
        assert_int_equal(recv(sv[1], &b, 1, MSG_DONTWAIT), -1); /* nothing was written */
        close(sv[0]);
        close(sv[1]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_well_formed),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_token_rules),
        cmocka_unit_test(test_spawn_other_refuses_a_newline_whole),
    };
    return cmocka_run_group_tests_name("pmi_wire", tests, NULL, NULL);
}
