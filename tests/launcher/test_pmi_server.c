/* twrun's PMI-1 line handler: every command, and the lines it must refuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmi_server.h"

#define JOBID "0123456789abcdef"
#define KVS   "tw-" JOBID

static twr_pmi_result_t res;

static const twr_pmi_result_t *handle_n(twr_pmi_server_t *s, int rank, const char *line,
                                        size_t len) {
    memset(&res, 0x5a, sizeof res);
    twr_pmi_handle(s, rank, line, len, &res);
    if (res.action == TWR_PMI_REPLY || res.action == TWR_PMI_FINALIZED ||
        res.action == TWR_PMI_BARRIER_DONE) {
        assert_true(res.len > 0 && res.len < sizeof res.reply);
        assert_int_equal(strlen(res.reply), res.len);
        assert_int_equal(res.reply[res.len - 1], '\n');
        assert_null(memchr(res.reply, '\n', res.len - 1));
    }
    return &res;
}

static const twr_pmi_result_t *handle(twr_pmi_server_t *s, int rank, const char *line) {
    return handle_n(s, rank, line, strlen(line));
}

static void expect_reply(twr_pmi_server_t *s, int rank, const char *line, const char *reply) {
    const twr_pmi_result_t *r = handle(s, rank, line);
    assert_int_equal(r->action, TWR_PMI_REPLY);
    assert_string_equal(r->reply, reply);
}

static int setup4(void **state) {
    twr_pmi_server_t *s = malloc(sizeof *s);
    if (!s || twr_pmi_server_init(s, 4, JOBID) != 0) return -1;
    *state = s;
    return 0;
}

static int teardown(void **state) {
    twr_pmi_server_destroy(*state);
    free(*state);
    return 0;
}

static void test_init(void **state) {
    twr_pmi_server_t *s = *state;
    expect_reply(s, 0, "cmd=init pmi_version=1 pmi_subversion=1",
                 "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
    expect_reply(s, 1, "cmd=init pmi_version=2 pmi_subversion=0",
                 "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1\n");
    expect_reply(s, 1, "cmd=init", "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1\n");
}

static void test_queries(void **state) {
    twr_pmi_server_t *s = *state;
    expect_reply(s, 0, "cmd=get_maxes",
                 "cmd=maxes rc=0 kvsname_max=256 keylen_max=256 vallen_max=1024\n");
    expect_reply(s, 1, "cmd=get_appnum", "cmd=appnum rc=0 appnum=0\n");
    expect_reply(s, 2, "cmd=get_my_kvsname", "cmd=my_kvsname rc=0 kvsname=" KVS "\n");
    expect_reply(s, 3, "cmd=get_universe_size", "cmd=universe_size rc=0 size=4\n");
    /* Extra spaces between tokens are tolerated, as by MPICH. */
    expect_reply(s, 3, "  cmd=get_appnum  ", "cmd=appnum rc=0 appnum=0\n");
    /* MPMD: each rank learns the index of its program; bad ranks change nothing */
    twr_pmi_set_appnum(s, 2, 1);
    twr_pmi_set_appnum(s, 3, 2);
    twr_pmi_set_appnum(s, 4, 7);
    twr_pmi_set_appnum(s, -1, 7);
    expect_reply(s, 1, "cmd=get_appnum", "cmd=appnum rc=0 appnum=0\n");
    expect_reply(s, 2, "cmd=get_appnum", "cmd=appnum rc=0 appnum=1\n");
    expect_reply(s, 3, "cmd=get_appnum", "cmd=appnum rc=0 appnum=2\n");
}

static void test_put_get(void **state) {
    twr_pmi_server_t *s = *state;
    expect_reply(s, 0, "cmd=put kvsname=" KVS " key=addr0 value=shm:abc",
                 "cmd=put_result rc=0 msg=success\n");
    expect_reply(s, 3, "cmd=get kvsname=" KVS " key=addr0",
                 "cmd=get_result rc=0 value=shm:abc msg=success\n");
    expect_reply(s, 3, "cmd=get kvsname=" KVS " key=addr1",
                 "cmd=get_result rc=-1 msg=key_not_found\n");
    /* The same value again is a harmless retry; a different one is refused. */
    expect_reply(s, 0, "cmd=put kvsname=" KVS " key=addr0 value=shm:abc",
                 "cmd=put_result rc=0 msg=success\n");
    expect_reply(s, 1, "cmd=put kvsname=" KVS " key=addr0 value=other",
                 "cmd=put_result rc=-1 msg=duplicate_key\n");
    expect_reply(s, 3, "cmd=get kvsname=" KVS " key=addr0",
                 "cmd=get_result rc=0 value=shm:abc msg=success\n");
    /* '=' is allowed inside a value. */
    expect_reply(s, 2, "cmd=put kvsname=" KVS " key=eq value=a=b",
                 "cmd=put_result rc=0 msg=success\n");
    expect_reply(s, 2, "cmd=get kvsname=" KVS " key=eq",
                 "cmd=get_result rc=0 value=a=b msg=success\n");
    expect_reply(s, 2, "cmd=get kvsname=" KVS " key=PMI_process_mapping",
                 "cmd=get_result rc=0 value=(vector,(0,1,4)) msg=success\n");
}

static void test_put_errors(void **state) {
    twr_pmi_server_t *s = *state;
    expect_reply(s, 0, "cmd=put kvsname=tw-ffffffffffffffff key=a value=b",
                 "cmd=put_result rc=-1 msg=invalid_kvsname\n");
    expect_reply(s, 0, "cmd=put key=a value=b", "cmd=put_result rc=-1 msg=invalid_kvsname\n");
    expect_reply(s, 0, "cmd=get kvsname=wrong key=a", "cmd=get_result rc=-1 msg=invalid_kvsname\n");
    expect_reply(s, 0, "cmd=put kvsname=" KVS " value=b", "cmd=put_result rc=-1 msg=invalid_key\n");
    expect_reply(s, 0, "cmd=put kvsname=" KVS " key= value=b",
                 "cmd=put_result rc=-1 msg=invalid_key\n");
    expect_reply(s, 0, "cmd=put kvsname=" KVS " key=a", "cmd=put_result rc=-1 msg=invalid_value\n");
    expect_reply(
        s, 0, "cmd=put kvsname=" KVS " key=a value=", "cmd=put_result rc=-1 msg=invalid_value\n");
    expect_reply(s, 0, "cmd=get kvsname=" KVS, "cmd=get_result rc=-1 msg=invalid_key\n");

    char line[TW_PMI_LINE_MAX + 16];
    char big[TW_PMI_VALUE_MAX + 1];
    /* The longest value allowed goes through, and comes back whole. */
    memset(big, 'v', TW_PMI_VALUE_MAX - 1);
    big[TW_PMI_VALUE_MAX - 1] = '\0';
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=big value=%s", KVS, big);
    expect_reply(s, 1, line, "cmd=put_result rc=0 msg=success\n");
    const twr_pmi_result_t *r = handle(s, 2, "cmd=get kvsname=" KVS " key=big");
    assert_int_equal(r->action, TWR_PMI_REPLY);
    assert_non_null(strstr(r->reply, big));
    assert_int_equal(r->len, strlen("cmd=get_result rc=0 value= msg=success\n") + strlen(big));
    /* One byte more is refused. */
    memset(big, 'v', TW_PMI_VALUE_MAX);
    big[TW_PMI_VALUE_MAX] = '\0';
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=big2 value=%s", KVS, big);
    expect_reply(s, 1, line, "cmd=put_result rc=-1 msg=invalid_value\n");
    expect_reply(s, 1, "cmd=get kvsname=" KVS " key=big2",
                 "cmd=get_result rc=-1 msg=key_not_found\n");
    /* Likewise for keys. */
    char key[TW_PMI_KEY_MAX + 1];
    memset(key, 'k', TW_PMI_KEY_MAX);
    key[TW_PMI_KEY_MAX] = '\0';
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=x", KVS, key);
    expect_reply(s, 1, line, "cmd=put_result rc=-1 msg=invalid_key\n");
    key[TW_PMI_KEY_MAX - 1] = '\0';
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=x", KVS, key);
    expect_reply(s, 1, line, "cmd=put_result rc=0 msg=success\n");
}

static void test_store_full(void **state) {
    twr_pmi_server_t *s = *state;
    char line[256], reply[256];
    for (int i = 0; i < TWR_PMI_KEYS_PER_RANK; i++) {
        snprintf(line, sizeof line, "cmd=put kvsname=%s key=r0k%d value=%d", KVS, i, i);
        expect_reply(s, 0, line, "cmd=put_result rc=0 msg=success\n");
    }
    expect_reply(s, 0, "cmd=put kvsname=" KVS " key=one_more value=x",
                 "cmd=put_result rc=-1 msg=kvs_full\n");
    /* Other ranks keep their own share. */
    for (int rank = 1; rank < 4; rank++)
        for (int i = 0; i < TWR_PMI_KEYS_PER_RANK; i++) {
            snprintf(line, sizeof line, "cmd=put kvsname=%s key=r%dk%d value=%d", KVS, rank, i, i);
            expect_reply(s, rank, line, "cmd=put_result rc=0 msg=success\n");
        }
    expect_reply(s, 3, "cmd=put kvsname=" KVS " key=one_more value=x",
                 "cmd=put_result rc=-1 msg=kvs_full\n");
    /* Everything stored survives the table growing. */
    for (int rank = 0; rank < 4; rank++)
        for (int i = 0; i < TWR_PMI_KEYS_PER_RANK; i++) {
            snprintf(line, sizeof line, "cmd=get kvsname=%s key=r%dk%d", KVS, rank, i);
            snprintf(reply, sizeof reply, "cmd=get_result rc=0 value=%d msg=success\n", i);
            expect_reply(s, (rank + 1) % 4, line, reply);
        }
}

static void test_barrier(void **state) {
    twr_pmi_server_t *s = *state;
    for (int round = 0; round < 3; round++) {
        for (int rank = 3; rank > 0; rank--) {
            assert_int_equal(handle(s, rank, "cmd=barrier_in")->action, TWR_PMI_WAIT);
            assert_true(twr_pmi_in_barrier(s, rank));
        }
        assert_false(twr_pmi_in_barrier(s, 0));
        expect_reply(s, 2, "cmd=barrier_in", "cmd=error rc=-1 msg=already_in_barrier\n");
        const twr_pmi_result_t *r = handle(s, 0, "cmd=barrier_in");
        assert_int_equal(r->action, TWR_PMI_BARRIER_DONE);
        assert_string_equal(r->reply, "cmd=barrier_out\n");
        for (int rank = 0; rank < 4; rank++) assert_false(twr_pmi_in_barrier(s, rank));
    }
    assert_false(twr_pmi_in_barrier(s, -1));
    assert_false(twr_pmi_in_barrier(s, 4));
}

static void test_finalize_abort(void **state) {
    twr_pmi_server_t *s = *state;
    const twr_pmi_result_t *r = handle(s, 1, "cmd=finalize");
    assert_int_equal(r->action, TWR_PMI_FINALIZED);
    assert_string_equal(r->reply, "cmd=finalize_ack\n");

    static const struct {
        const char *line;
        int code;
    } aborts[] = {
        {"cmd=abort exitcode=7", 7},
        {"cmd=abort exitcode=7 msg=something_went_wrong", 7},
        {"cmd=abort", 1},
        {"cmd=abort exitcode=0", 1},
        {"cmd=abort exitcode=300", 300 & 0xff},
        {"cmd=abort exitcode=-1", 255},
        {"cmd=abort exitcode=seven", 1},
        {"cmd=abort exitcode=99999999999999999999999", 1},
    };
    for (size_t i = 0; i < sizeof aborts / sizeof aborts[0]; i++) {
        r = handle(s, 2, aborts[i].line);
        assert_int_equal(r->action, TWR_PMI_ABORT);
        assert_int_equal(r->abort_code, aborts[i].code);
    }
}

static void test_malformed(void **state) {
    twr_pmi_server_t *s = *state;
    static const char malformed[] = "cmd=error rc=-1 msg=malformed_line\n";
    expect_reply(s, 0, "cmd", malformed);
    expect_reply(s, 0, "cmd=get_maxes junk", malformed);
    expect_reply(s, 0, "=x", malformed);
    expect_reply(s, 0, "cmd=get_maxes =x", malformed);
    expect_reply(s, 0, "", malformed);
    expect_reply(s, 0, "   ", malformed);
    expect_reply(s, 0, "cmd=get_maxes\r", malformed);
    expect_reply(s, 0, "cmd=get\tkey=a", malformed);
    expect_reply(s, 0, "cmd=get_maxes key=\x80", malformed);
    expect_reply(s, 0, "cmd=get_maxes key=\x7f", malformed);
    expect_reply(s, 0, "a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 cmd=get_maxes", malformed);
    const twr_pmi_result_t *r = handle_n(s, 0, "cmd=get_maxes\0x=y", 17);
    assert_string_equal(r->reply, malformed);
    expect_reply(s, 0, "foo=bar", "cmd=error rc=-1 msg=missing_cmd\n");
    expect_reply(s, 0, "cmd=spawn nprocs=2",
                 "cmd=spawn_result rc=-1 msg=malformed_spawn failed=-1\n");
    expect_reply(s, 0, "cmd=spawn_nothing", "cmd=error rc=-1 msg=unknown_command\n");
    /* a spawn: handed to twrun decoded */
    r = handle(s, 0, "cmd=spawn port=a%3Ab spec=2,-,./x,a%20b;1,/tmp,y");
    assert_int_equal(r->action, TWR_PMI_SPAWN);
    assert_int_equal(r->spawn.ncmds, 2);
    assert_int_equal(r->spawn.total, 3);
    assert_string_equal(r->spawn.port, "a:b");
    assert_int_equal(r->spawn.cmd[0].argc, 2);
    assert_string_equal(r->spawn.cmd[0].argv[1], "a b");
    assert_null(r->spawn.cmd[0].argv[2]);
    assert_null(r->spawn.cmd[0].wdir);
    assert_string_equal(r->spawn.cmd[1].wdir, "/tmp");
    assert_string_equal(r->spawn.cmd[1].argv[0], "y");
    expect_reply(s, 0, "cmd=", "cmd=error rc=-1 msg=unknown_command\n");
    expect_reply(s, 4, "cmd=get_maxes", "cmd=error rc=-1 msg=invalid_rank\n");
    expect_reply(s, -1, "cmd=get_maxes", "cmd=error rc=-1 msg=invalid_rank\n");

    /* Lines at and beyond the limit; the longest one accepted still works. */
    size_t cap = 3 * TW_PMI_LINE_MAX;
    char *line = malloc(cap);
    assert_non_null(line);
    for (size_t len = TW_PMI_LINE_MAX - 2; len <= TW_PMI_LINE_MAX + 1; len++) {
        memcpy(line, "cmd=get_appnum x=", 17);
        memset(line + 17, 'y', len - 17);
        r = handle_n(s, 0, line, len);
        if (len < TW_PMI_LINE_MAX)
            assert_string_equal(r->reply, "cmd=appnum rc=0 appnum=0\n");
        else
            assert_string_equal(r->reply, "cmd=error rc=-1 msg=line_too_long\n");
    }
    memset(line, 'a', cap);
    r = handle_n(s, 0, line, cap);
    assert_string_equal(r->reply, "cmd=error rc=-1 msg=line_too_long\n");
    free(line);

    twr_pmi_line_too_long(&res);
    assert_int_equal(res.action, TWR_PMI_REPLY);
    assert_string_equal(res.reply, "cmd=error rc=-1 msg=line_too_long\n");

    /* The server still serves after all of that. */
    expect_reply(s, 0, "cmd=get_universe_size", "cmd=universe_size rc=0 size=4\n");
}

static void test_sizes(void **state) {
    (void)state;
    twr_pmi_server_t s;
    assert_int_equal(twr_pmi_server_init(&s, 1, JOBID), 0);
    const twr_pmi_result_t *r = handle(&s, 0, "cmd=barrier_in");
    assert_int_equal(r->action, TWR_PMI_BARRIER_DONE);
    expect_reply(&s, 0, "cmd=get kvsname=" KVS " key=PMI_process_mapping",
                 "cmd=get_result rc=0 value=(vector,(0,1,1)) msg=success\n");
    twr_pmi_server_destroy(&s);
    twr_pmi_server_destroy(&s); /* harmless twice */

    assert_int_equal(twr_pmi_server_init(&s, 4096, JOBID), 0);
    expect_reply(&s, 4095, "cmd=get_universe_size", "cmd=universe_size rc=0 size=4096\n");
    twr_pmi_server_destroy(&s);

    /* the universe twrun is told of: its slots, never fewer than the job's ranks */
    assert_int_equal(twr_pmi_server_init(&s, 2, JOBID), 0);
    twr_pmi_set_universe_size(&s, 8);
    expect_reply(&s, 1, "cmd=get_universe_size", "cmd=universe_size rc=0 size=8\n");
    twr_pmi_set_universe_size(&s, 1);
    expect_reply(&s, 0, "cmd=get_universe_size", "cmd=universe_size rc=0 size=2\n");
    twr_pmi_server_destroy(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_init, setup4, teardown),
        cmocka_unit_test_setup_teardown(test_queries, setup4, teardown),
        cmocka_unit_test_setup_teardown(test_put_get, setup4, teardown),
        cmocka_unit_test_setup_teardown(test_put_errors, setup4, teardown),
        cmocka_unit_test_setup_teardown(test_store_full, setup4, teardown),
        cmocka_unit_test_setup_teardown(test_barrier, setup4, teardown),
        cmocka_unit_test_setup_teardown(test_finalize_abort, setup4, teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup4, teardown),
        cmocka_unit_test(test_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
