/* The PMI-1 line codec against well-formed and malformed lines, a spawn request to
 * another process manager that a word of it would cut, and spawn requests to twrun of
 * every length up to the longest, as the client cuts them into lines and twrun's server
 * (tools/twrun/pmi_server.c) joins them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "pmi_server.h"
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

/* A spec of exactly len bytes: one command of words of up to 100 bytes. */
static void spec_of(char *spec, size_t len) {
    memset(spec, 'a', len);
    memcpy(spec, "1,-,p", 5);
    for (size_t k = 5; k + 2 < len; k += 101) spec[k] = ',';
    spec[len] = '\0';
}

/* The client's lines for a spawn of every length around the cuts, each fed to twrun's
 * server: each is a line, the first ones are kept without a reply, and the last hands
 * twrun the request decoded as the whole spec decodes. One past the longest is refused
 * before a byte goes out. */
static void test_long_spawn_requests_are_joined(void **state) {
    (void)state;
    const char port[] = "tollway-port%3A1%3A2";
    const size_t room = TW_PMI_LINE_MAX - 64 - strlen(port), part = TW_PMI_LINE_MAX - 64;
    const size_t lengths[] = {6,
                              room - 1,
                              room,
                              room + 1,
                              room + 2,
                              part + room,
                              part + room + 1,
                              3 * part + 17,
                              20000,
                              TW_PMI_SPAWN_MAX - 2,
                              TW_PMI_SPAWN_MAX - 1,
                              TW_PMI_SPAWN_MAX};
    static char spec[TW_PMI_SPAWN_MAX + 1], out[4 * TW_PMI_SPAWN_MAX];
    static tw_pmi_spawn_t want;
    static twr_pmi_result_t res;
    for (size_t k = 0; k < sizeof lengths / sizeof *lengths; k++) {
        size_t len = lengths[k];
        spec_of(spec, len);
        int sv[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        int big = 1 << 20;
        setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
        setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        static tw_pmi_t pmi;
        memset(&pmi, 0, sizeof pmi);
        pmi.fd = sv[0];
        strcpy(pmi.kvsname, "tw-unit");
        const char reply[] = "cmd=spawn_result rc=0 base=5 size=1\n";
        assert_int_equal(write(sv[1], reply, sizeof reply - 1), (ssize_t)(sizeof reply - 1));
        char why[128];
        int base = 0, size = 0, failed = 0;
        int rc = tw_pmi_spawn(&pmi, port, spec, &base, &size, why, sizeof why, &failed);
        ssize_t n = recv(sv[1], out, sizeof out, MSG_DONTWAIT);
        close(sv[0]);
        close(sv[1]);
        if (len >= TW_PMI_SPAWN_MAX) { /* too long: refused, nothing written */
            assert_int_equal(rc, -1);
            assert_true(n <= 0);
            continue;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(base, 5);
        assert_true(n > 0 && out[n - 1] == '\n');
        twr_pmi_server_t server;
        assert_int_equal(twr_pmi_server_init(&server, 1, "unit"), 0);
        size_t lines = 0;
        for (char *line = out, *nl; line < out + n; line = nl + 1, lines++) {
            nl = memchr(line, '\n', (size_t)(out + n - line));
            assert_non_null(nl);
            assert_true((size_t)(nl - line) < TW_PMI_LINE_MAX);
            twr_pmi_handle(&server, 0, line, (size_t)(nl - line), &res);
            assert_int_equal(res.action, nl + 1 < out + n ? TWR_PMI_NONE : TWR_PMI_SPAWN);
        }
        /* as few lines as the cuts allow */
        assert_int_equal(lines, len <= room ? 1 : 1 + (len - room + part - 1) / part);
        assert_int_equal(tw_pmi_spawn_decode(&want, port, spec), 0);
        assert_int_equal(res.spawn.ncmds, 1);
        assert_int_equal(res.spawn.cmd[0].argc, want.cmd[0].argc);
        for (int w = 0; w < want.cmd[0].argc; w++)
            assert_string_equal(res.spawn.cmd[0].argv[w], want.cmd[0].argv[w]);
        assert_string_equal(res.spawn.port, "tollway-port:1:2");
        twr_pmi_server_destroy(&server);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_well_formed),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_token_rules),
        cmocka_unit_test(test_spawn_other_refuses_a_newline_whole),
        cmocka_unit_test(test_long_spawn_requests_are_joined),
    };
    return cmocka_run_group_tests_name("pmi_wire", tests, NULL, NULL);
}
