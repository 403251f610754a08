/* The settings table: its parser by type (defaults, every kind of range error, unknown
 * names, choice names) and the public API (<tollway/settings.h>) that enumerates the
 * table and reads the values in effect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <tollway/settings.h>
#include <tollway/status.h>

#include "runtime/settings.h"

static int parse_one(tw_config_t *cfg, const char *entry, char *err, size_t errlen) {
    char *env[] = {(char *)"HOME=/root", (char *)entry, NULL};
    return tw_config_parse(cfg, env, err, errlen);
}

static void expect_accepted(const char *entry) {
    tw_config_t cfg;
    char err[256] = "";
    if (parse_one(&cfg, entry, err, sizeof err)) fail_msg("%s refused: %s", entry, err);
}

/* Refused with a message that names the variable and says what it allows, as the
 * table describes it. */
static void expect_refused(const char *entry) {
    tw_config_t cfg;
    char err[256] = "", name[64], allowed[256];
    size_t n = strcspn(entry, "=");
    snprintf(name, sizeof name, "%.*s", (int)n, entry);
    if (!parse_one(&cfg, entry, err, sizeof err)) fail_msg("%s accepted", entry);
    if (!strstr(err, name)) fail_msg("message '%s' does not name %s", err, name);
    int id = tw_setting_find(name);
    assert_true(id >= 0);
    tw_setting_allowed((tw_setting_id_t)id, allowed, sizeof allowed);
    if (!strstr(err, allowed)) fail_msg("message '%s' does not say '%s'", err, allowed);
}

static void test_defaults(void **state) {
    (void)state;
    tw_config_t cfg;
    char err[256];
    assert_int_equal(tw_config_parse(&cfg, NULL, err, sizeof err), 0);
    assert_int_equal(cfg.velo_slots, 4096);
    assert_int_equal(cfg.nq_slots, 1024);
    assert_int_equal(cfg.rma_slots, 2048);
    assert_int_equal(cfg.atu_entries, 65535);
    assert_int_equal(cfg.rma_copy, TW_RMA_COPY_AUTO);
    assert_int_equal(cfg.stats, 0);
    assert_int_equal(cfg.wait, TW_WAIT_AUTO);
    assert_int_equal(cfg.eager_limit, 4144);
    assert_int_equal(cfg.rndv_split, 65536);
    assert_int_equal(cfg.coll_bcast, TW_BCAST_AUTO);
    assert_int_equal(cfg.coll_reduce, TW_REDUCE_AUTO);
    assert_int_equal(cfg.coll_allreduce, TW_ALLREDUCE_AUTO);
    assert_int_equal(cfg.coll_allgather, TW_ALLGATHER_AUTO);
    assert_int_equal(cfg.coll_alltoall, TW_ALLTOALL_AUTO);
    assert_int_equal(cfg.coll_gather, TW_GATHER_AUTO);
    assert_int_equal(cfg.coll_shm, TW_COLL_SHM_AUTO);
    assert_string_equal(cfg.job_id, "");
    assert_int_equal(cfg.has_job_key, 0);
    assert_int_equal(cfg.local_rank, -1);
    assert_int_equal(cfg.local_size, -1);
    assert_string_equal(cfg.node, "");
    assert_string_equal(cfg.link, "auto");
    assert_string_equal(cfg.udp_addr, "");
    assert_int_equal(cfg.udp_timeout_ms, 30000);
    assert_int_equal(cfg.udp_rto_us, 2000);
    assert_int_equal(cfg.udp_window, 0); /* auto */
    assert_int_equal(cfg.udp_mtu, 0);
    assert_true(cfg.fault_drop == 0 && cfg.fault_delay == 0 && cfg.fault_seed == 0);
    assert_int_equal(cfg.progress_thread, 0);
    assert_int_equal(cfg.progress_interval_us, 200);
}

/* Each row's default, written out, is accepted and changes nothing. */
static void test_defaults_written_out(void **state) {
    (void)state;
    tw_config_t none, set;
    char err[256], entry[128];
    assert_int_equal(tw_config_parse(&none, NULL, err, sizeof err), 0);
    for (size_t id = 0; id < tw_setting_count(); id++) {
        const tw_setting_info_t *in = tw_setting_info((tw_setting_id_t)id);
        if (!in->default_value[0]) continue;
        snprintf(entry, sizeof entry, "%s=%s", in->name, in->default_value);
        if (parse_one(&set, entry, err, sizeof err)) fail_msg("%s refused: %s", entry, err);
        if (memcmp(&none, &set, sizeof set)) fail_msg("%s is not the default", entry);
    }
}

static void test_unsigned_range(void **state) {
    (void)state;
    expect_accepted("TW_ATU_ENTRIES=16");
    expect_accepted("TW_ATU_ENTRIES=65535");
    expect_refused("TW_ATU_ENTRIES=15");
    expect_refused("TW_ATU_ENTRIES=65536");
    expect_refused("TW_ATU_ENTRIES=1k");
    expect_refused("TW_UDP_WINDOW=47");
    expect_refused("TW_UDP_RTO=99");
    expect_refused("TW_PROGRESS_INTERVAL=1000001");
    expect_refused("TW_LOCAL_RANK=-1");
    expect_refused("TW_BOUND_CORE=x");
}

static void test_size_range(void **state) {
    (void)state;
    tw_config_t cfg;
    char err[256];
    expect_accepted("TW_EAGER_LIMIT=0");
    expect_refused("TW_EAGER_LIMIT=4145");
    expect_refused("TW_RNDV_SPLIT=-1");
    assert_int_equal(parse_one(&cfg, "TW_UDP_MTU=auto", err, sizeof err), 0);
    assert_int_equal(cfg.udp_mtu, 0);
    assert_int_equal(parse_one(&cfg, "TW_UDP_MTU=9000", err, sizeof err), 0);
    assert_int_equal(cfg.udp_mtu, 9000);
    expect_refused("TW_UDP_MTU=1499");
    expect_refused("TW_UDP_MTU=65536");
    expect_refused("TW_UDP_MTU=Auto");
}

static void test_power_of_two_range(void **state) {
    (void)state;
    expect_accepted("TW_RMA_SLOTS=1024");
    expect_accepted("TW_NQ_SLOTS=1048576");
    expect_refused("TW_RMA_SLOTS=512");
    expect_refused("TW_RMA_SLOTS=1536");
    expect_refused("TW_NQ_SLOTS=2097152");
}

static void test_boolean(void **state) {
    (void)state;
    expect_accepted("TW_PROGRESS_THREAD=0");
    expect_refused("TW_STATS=2");
    expect_refused("TW_STATS=true");
    expect_refused("TW_PROGRESS_THREAD=");
}

static void test_string_hex_list(void **state) {
    (void)state;
    tw_config_t cfg;
    char err[256], entry[128];
    snprintf(entry, sizeof entry, "TW_NODE=%063d", 7);
    expect_accepted(entry);
    snprintf(entry, sizeof entry, "TW_NODE=%064d", 7);
    expect_refused(entry);
    expect_refused("TW_NODE=");
    expect_refused("TW_UDP_ADDR=::1");
    expect_accepted("TW_CC=clang -O1");
    assert_int_equal(parse_one(&cfg, "TW_JOB_ID=0123456789abcdef0123456789abcdef", err, sizeof err),
                     0);
    assert_string_equal(cfg.job_id, "0123456789abcdef0123456789abcdef");
    expect_refused("TW_JOB_ID=0123456789abcdef0123456789abcdef0");
    expect_refused("TW_JOB_KEY=DEADBEEF00000000");
    expect_refused("TW_JOB_KEY=00000000deadbeef0");
    assert_int_equal(parse_one(&cfg, "TW_JOB_KEY=ffffffffffffffff", err, sizeof err), 0);
    assert_true(cfg.job_key == UINT64_MAX && cfg.has_job_key);
    expect_refused("TW_UDP_FAULTS=seed=x");
    expect_refused("TW_UDP_FAULTS=delay_us=10000001");
    expect_refused("TW_UDP_FAULTS=,drop=0.1");
}

static void test_unknown_names(void **state) {
    (void)state;
    tw_config_t cfg;
    char err[256], entry[200];
    assert_int_equal(parse_one(&cfg, "TW_VELO_SLOTS2=1", err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown variable TW_VELO_SLOTS2"));
    assert_int_equal(parse_one(&cfg, "TW_=1", err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown variable TW_"));
    assert_int_equal(parse_one(&cfg, "TW_coll_bcast=auto", err, sizeof err), -1); /* case */
    memset(entry, 'A', sizeof entry);
    memcpy(entry, "TW_", 3);
    strcpy(entry + 150, "=1");
    assert_int_equal(parse_one(&cfg, entry, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown variable TW_AAA"));
    /* not ours, or not a variable: left alone */
    assert_int_equal(parse_one(&cfg, "TWX_STATS=1", err, sizeof err), 0);
    assert_int_equal(parse_one(&cfg, "TW_NO_EQUALS", err, sizeof err), 0);
}

/* Every choice row: names lowercase and distinct, auto first, each accepted; the
 * collectives' names land as their enum values. */
static void test_choice_names(void **state) {
    (void)state;
    tw_config_t cfg;
    char err[256], entry[128];
    for (size_t id = 0; id < tw_setting_count(); id++) {
        const tw_setting_info_t *in = tw_setting_info((tw_setting_id_t)id);
        if (in->type != TW_SETTING_CHOICE) continue;
        assert_true(in->nchoices >= 2);
        assert_string_equal(in->choices[0], "auto");
        for (size_t c = 0; c < in->nchoices; c++) {
            assert_non_null(in->choices[c]);
            assert_true(strspn(in->choices[c], "abcdefghijklmnopqrstuvwxyz0123456789-") ==
                        strlen(in->choices[c]));
            for (size_t d = 0; d < c; d++) assert_string_not_equal(in->choices[c], in->choices[d]);
            snprintf(entry, sizeof entry, "%s=%s", in->name, in->choices[c]);
            if (parse_one(&cfg, entry, err, sizeof err)) fail_msg("%s refused: %s", entry, err);
        }
        snprintf(entry, sizeof entry, "%s=first", in->name);
        expect_refused(entry);
        /* the refusal lists every valid name */
        parse_one(&cfg, entry, err, sizeof err);
        for (size_t c = 0; c < in->nchoices; c++) assert_non_null(strstr(err, in->choices[c]));
    }
    const struct {
        const char *entry;
        size_t offset;
        int value;
    } named[] = {
        {"TW_COLL_BCAST=binomial", offsetof(tw_config_t, coll_bcast), TW_BCAST_BINOMIAL},
        {"TW_COLL_BCAST=scatter-allgather", offsetof(tw_config_t, coll_bcast),
         TW_BCAST_SCATTER_ALLGATHER},
        {"TW_COLL_REDUCE=binomial", offsetof(tw_config_t, coll_reduce), TW_REDUCE_BINOMIAL},
        {"TW_COLL_REDUCE=ring", offsetof(tw_config_t, coll_reduce), TW_REDUCE_RING},
        {"TW_COLL_ALLREDUCE=recursive-doubling", offsetof(tw_config_t, coll_allreduce),
         TW_ALLREDUCE_RECURSIVE_DOUBLING},
        {"TW_COLL_ALLREDUCE=ring", offsetof(tw_config_t, coll_allreduce), TW_ALLREDUCE_RING},
        {"TW_COLL_ALLGATHER=bruck", offsetof(tw_config_t, coll_allgather), TW_ALLGATHER_BRUCK},
        {"TW_COLL_ALLGATHER=ring", offsetof(tw_config_t, coll_allgather), TW_ALLGATHER_RING},
        {"TW_COLL_ALLTOALL=linear", offsetof(tw_config_t, coll_alltoall), TW_ALLTOALL_LINEAR},
        {"TW_COLL_ALLTOALL=pairwise", offsetof(tw_config_t, coll_alltoall), TW_ALLTOALL_PAIRWISE},
        {"TW_COLL_GATHER=binomial", offsetof(tw_config_t, coll_gather), TW_GATHER_BINOMIAL},
        {"TW_COLL_GATHER=linear", offsetof(tw_config_t, coll_gather), TW_GATHER_LINEAR},
        {"TW_COLL_SHM=p2p", offsetof(tw_config_t, coll_shm), TW_COLL_SHM_P2P},
        {"TW_COLL_SHM=shm", offsetof(tw_config_t, coll_shm), TW_COLL_SHM_SHM},
        {"TW_WAIT=spin", offsetof(tw_config_t, wait), TW_WAIT_SPIN},
        {"TW_RMA_COPY=pipeline", offsetof(tw_config_t, rma_copy), TW_RMA_COPY_PIPELINE},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        int got;
        assert_int_equal(parse_one(&cfg, named[i].entry, err, sizeof err), 0);
        memcpy(&got, (char *)&cfg + named[i].offset, sizeof got);
        if (got != named[i].value) fail_msg("%s gave %d", named[i].entry, got);
    }
    expect_refused("TW_COLL_ALLREDUCE=recdbl");
    expect_refused("TW_COLL_BCAST=scatter_ring");
}

/* The public table: every row complete, found by its name. */
static void test_enumeration(void **state) {
    (void)state;
    assert_int_equal(tw_setting_count(), TW_SETTING_COUNT);
    assert_null(tw_setting_info(TW_SETTING_COUNT));
    assert_null(tw_setting_info((tw_setting_id_t)-1));
    assert_int_equal(tw_setting_find("TW_NOT_A_SETTING"), -1);
    assert_int_equal(tw_setting_find(NULL), -1);
    assert_int_equal(tw_setting_find("TW_COLL_ALLREDUCE"), TW_SETTING_COLL_ALLREDUCE);
    for (size_t id = 0; id < tw_setting_count(); id++) {
        const tw_setting_info_t *in = tw_setting_info((tw_setting_id_t)id);
        char allowed[256];
        assert_non_null(in);
        assert_non_null(in->name);
        assert_true(strncmp(in->name, "TW_", 3) == 0);
        assert_int_equal(tw_setting_find(in->name), (int)id);
        assert_non_null(in->meaning);
        assert_true(strlen(in->meaning) > 10 && !strchr(in->meaning, '\n'));
        assert_non_null(in->default_value);
        assert_string_not_equal(tw_setting_type_name(in->type), "?");
        assert_string_not_equal(tw_setting_owner_name(in->owner), "?");
        assert_true(tw_setting_allowed((tw_setting_id_t)id, allowed, sizeof allowed) > 0);
        assert_true(strlen(allowed) < sizeof allowed - 1);
        switch (in->type) {
        case TW_SETTING_UNSIGNED:
        case TW_SETTING_SIZE:
        case TW_SETTING_POWER_OF_TWO:
        case TW_SETTING_HEX:
            assert_true(in->min <= in->max);
            break;
        case TW_SETTING_CHOICE:
        case TW_SETTING_LIST:
            assert_non_null(in->choices);
            break;
        case TW_SETTING_STRING:
            assert_non_null(in->form);
            break;
        case TW_SETTING_BOOLEAN:
            break;
        }
        if (in->type == TW_SETTING_SIZE) assert_string_equal(in->unit, "bytes");
        if (in->type == TW_SETTING_LIST) assert_non_null(in->form);
    }
    char small[8];
    assert_int_equal(tw_setting_allowed(TW_SETTING_STATS, small, sizeof small), 6);
    assert_string_equal(small, "0 or 1");
    assert_int_equal(tw_setting_allowed(TW_SETTING_WAIT, small, sizeof small),
                     (int)strlen("auto, spin, yield or sleep"));
    assert_string_equal(small, "auto, s"); /* cut, terminated */
}

/* The values in effect: this process's environment is set up in main, before the
 * first read. */
static void test_values_in_effect(void **state) {
    (void)state;
    assert_int_equal(tw_settings_status(), TW_OK);
    assert_int_equal(tw_setting_choice(TW_SETTING_COLL_ALLREDUCE), TW_ALLREDUCE_RING);
    assert_int_equal(tw_setting_choice(TW_SETTING_COLL_BCAST), TW_BCAST_AUTO);
    assert_int_equal(tw_setting_choice(TW_SETTING_COLL_SHM), TW_COLL_SHM_P2P);
    assert_int_equal(tw_setting_choice(TW_SETTING_EAGER_LIMIT), -1); /* not a choice */
    assert_int_equal(tw_setting_choice(TW_SETTING_COUNT), -1);
    assert_int_equal(tw_setting_unsigned(TW_SETTING_EAGER_LIMIT), 100);
    assert_int_equal(tw_setting_unsigned(TW_SETTING_RNDV_SPLIT), 65536);
    assert_int_equal(tw_setting_unsigned(TW_SETTING_UDP_MTU), 0); /* auto */
    assert_int_equal(tw_setting_unsigned(TW_SETTING_STATS), 1);
    assert_int_equal(tw_setting_unsigned(TW_SETTING_LOCAL_RANK), 0); /* unset, no default */
    assert_int_equal(tw_setting_unsigned(TW_SETTING_BOUND_CORE), 3); /* checked, not stored */
    assert_true(tw_setting_unsigned(TW_SETTING_JOB_KEY) == 0x1234abcdull);
    assert_int_equal(tw_setting_unsigned(TW_SETTING_WAIT), 0); /* not a number */
    assert_true(tw_setting_is_set(TW_SETTING_EAGER_LIMIT));
    assert_false(tw_setting_is_set(TW_SETTING_VELO_SLOTS));
    assert_false(tw_setting_is_set(TW_SETTING_COUNT));
    assert_string_equal(tw_setting_text(TW_SETTING_EAGER_LIMIT), "100");
    assert_string_equal(tw_setting_text(TW_SETTING_VELO_SLOTS), "4096");
    assert_string_equal(tw_setting_text(TW_SETTING_NODE), "rack-2");
    assert_string_equal(tw_setting_text(TW_SETTING_UDP_ADDR), "");
    assert_null(tw_setting_text(TW_SETTING_COUNT));
}

/* An invalid environment: reported, and the getters answer with the defaults. Runs
 * in a child, whose first read sees it. */
static void test_invalid_environment(void **state) {
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("TW_EAGER_LIMIT", "5000", 1);
        int ok = tw_settings_status() == TW_ERR_CONFIG &&
                 tw_setting_unsigned(TW_SETTING_EAGER_LIMIT) == 4144 &&
                 tw_setting_choice(TW_SETTING_COLL_ALLREDUCE) == TW_ALLREDUCE_AUTO &&
                 tw_setting_is_set(TW_SETTING_EAGER_LIMIT) &&
                 !strcmp(tw_setting_text(TW_SETTING_EAGER_LIMIT), "5000") && tw_config() == NULL;
        _exit(ok ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

extern char **environ;

int main(void) {
    /* only the settings this test chooses */
    for (int again = 1; again;) {
        again = 0;
        for (char **e = environ; *e; e++)
            if (!strncmp(*e, "TW_", 3) && strchr(*e, '=')) {
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)(strchr(*e, '=') - *e), *e);
                unsetenv(name);
                again = 1;
                break;
            }
    }
    const struct CMUnitTest fork_first[] = {cmocka_unit_test(test_invalid_environment)};
    int failed =
        cmocka_run_group_tests_name("settings (invalid environment)", fork_first, NULL, NULL);
    setenv("TW_COLL_ALLREDUCE", "ring", 1);
    setenv("TW_COLL_SHM", "p2p", 1);
    setenv("TW_EAGER_LIMIT", "100", 1);
    setenv("TW_STATS", "1", 1);
    setenv("TW_NODE", "rack-2", 1);
    setenv("TW_BOUND_CORE", "3", 1);
    setenv("TW_JOB_KEY", "000000001234abcd", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),           cmocka_unit_test(test_defaults_written_out),
        cmocka_unit_test(test_unsigned_range),     cmocka_unit_test(test_size_range),
        cmocka_unit_test(test_power_of_two_range), cmocka_unit_test(test_boolean),
        cmocka_unit_test(test_string_hex_list),    cmocka_unit_test(test_unknown_names),
        cmocka_unit_test(test_choice_names),       cmocka_unit_test(test_enumeration),
        cmocka_unit_test(test_values_in_effect),
    };
    return failed | cmocka_run_group_tests_name("settings", tests, NULL, NULL);
}
