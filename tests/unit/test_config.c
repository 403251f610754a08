/* TW_* parsing: defaults, good values, and every kind of bad value rejected with a
 * message that names the variable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/settings.h"

static int parse(tw_config_t *cfg, const char *a, const char *b, char *err) {
    char *env[] = {(char *)a, (char *)b, (char *)"PATH=/bin", NULL};
    return tw_config_parse(cfg, env, err, 256);
}

static void test_defaults(void **state) {
    (void)state;
    tw_config_t cfg;
    char err[256];
    char *env[] = {(char *)"HOME=/root", NULL};
    assert_int_equal(tw_config_parse(&cfg, env, err, sizeof err), 0);
    assert_int_equal(cfg.velo_slots, TW_VELO_SLOTS_DEFAULT);
    assert_int_equal(cfg.stats, 0);
    assert_int_equal(cfg.wait, TW_WAIT_AUTO);
    assert_int_equal(cfg.has_job_key, 0);
    assert_int_equal(cfg.local_size, -1);
    assert_int_equal(cfg.coll_allreduce, TW_ALLREDUCE_AUTO);
    assert_int_equal(cfg.progress_thread, 0);
    assert_int_equal(cfg.progress_interval_us, TW_PROGRESS_INTERVAL_DEFAULT);
    assert_int_equal(cfg.wait_sleep_us, TW_WAIT_SLEEP_DEFAULT);
}

static void test_good_values(void **state) {
    (void)state;
    tw_config_t cfg;
    char err[256];
    assert_int_equal(parse(&cfg, "TW_VELO_SLOTS=128", "TW_STATS=1", err), 0);
    assert_int_equal(cfg.velo_slots, 128);
    assert_int_equal(cfg.stats, 1);
    assert_int_equal(parse(&cfg, "TW_JOB_KEY=00000000deadbeef", "TW_WAIT=yield", err), 0);
    assert_int_equal(cfg.job_key, 0xdeadbeefull);
    assert_int_equal(cfg.wait, TW_WAIT_YIELD);
    assert_int_equal(parse(&cfg, "TW_WAIT=sleep", "TW_WAIT_SLEEP=500", err), 0);
    assert_int_equal(cfg.wait, TW_WAIT_SLEEP);
    assert_int_equal(cfg.wait_sleep_us, 500);
    assert_int_equal(parse(&cfg, "TW_JOB_ID=abc123", "TW_LOCAL_SIZE=4", err), 0);
    assert_string_equal(cfg.job_id, "abc123");
    assert_int_equal(cfg.local_size, 4);
    assert_int_equal(parse(&cfg, "TW_UDP_FAULTS=drop=0.01,corrupt=0.001,delay_us=500,seed=7",
                           "TW_LINK=udp", err),
                     0);
    assert_true(cfg.fault_drop == 0.01 && cfg.fault_corrupt == 0.001 && cfg.fault_duplicate == 0);
    assert_int_equal(cfg.fault_delay_us, 500);
    assert_int_equal(cfg.fault_seed, 7);
    assert_string_equal(cfg.link, "udp");
    assert_int_equal(parse(&cfg, "TW_NODE=rack1-n07", "TW_UDP_ADDR=10.0.0.2", err), 0);
    assert_string_equal(cfg.node, "rack1-n07");
    assert_string_equal(cfg.udp_addr, "10.0.0.2");
    assert_int_equal(cfg.udp_timeout_ms, TW_UDP_TIMEOUT_DEFAULT);
    assert_int_equal(parse(&cfg, "TW_COLL_ALLREDUCE=ring", "TW_COLL_BCAST=binomial", err), 0);
    assert_int_equal(cfg.coll_allreduce, TW_ALLREDUCE_RING);
    assert_int_equal(cfg.coll_bcast, TW_BCAST_BINOMIAL);
    assert_int_equal(parse(&cfg, "TW_COLL_ALLGATHER=auto", "TW_COLL_GATHER=linear", err), 0);
    assert_int_equal(cfg.coll_allgather, TW_ALLGATHER_AUTO);
    assert_int_equal(cfg.coll_gather, TW_GATHER_LINEAR);
    assert_int_equal(parse(&cfg, "TW_PROGRESS_THREAD=1", "TW_PROGRESS_INTERVAL=50", err), 0);
    assert_int_equal(cfg.progress_thread, 1);
    assert_int_equal(cfg.progress_interval_us, 50);
}

static void expect_rejected(const char *var, const char *name) {
    tw_config_t cfg;
    char err[256] = "";
    assert_int_equal(parse(&cfg, var, NULL, err), -1);
    if (!strstr(err, name)) fail_msg("message '%s' does not name %s", err, name);
}

static void test_bad_values(void **state) {
    (void)state;
    expect_rejected("TW_VELO_SLOTS=100", "TW_VELO_SLOTS");     /* not a power of two */
    expect_rejected("TW_VELO_SLOTS=64", "TW_VELO_SLOTS");      /* too small */
    expect_rejected("TW_VELO_SLOTS=4194304", "TW_VELO_SLOTS"); /* too large */
    expect_rejected("TW_VELO_SLOTS=", "TW_VELO_SLOTS");
    expect_rejected("TW_VELO_SLOTS=12x", "TW_VELO_SLOTS");
    expect_rejected("TW_VELO_SLOTS=-128", "TW_VELO_SLOTS");
    expect_rejected("TW_STATS=yes", "TW_STATS");
    expect_rejected("TW_WAIT=nap", "TW_WAIT");
    expect_rejected("TW_WAIT_SLEEP=5", "TW_WAIT_SLEEP");       /* under 10 us */
    expect_rejected("TW_WAIT_SLEEP=2000000", "TW_WAIT_SLEEP"); /* over a second */
    expect_rejected("TW_JOB_KEY=1234", "TW_JOB_KEY");
    expect_rejected("TW_JOB_KEY=zzzzzzzzzzzzzzzz", "TW_JOB_KEY");
    expect_rejected("TW_JOB_ID=../../etc", "TW_JOB_ID");
    expect_rejected("TW_LOCAL_SIZE=0", "TW_LOCAL_SIZE");
    expect_rejected("TW_VELO_SLOT=256", "TW_VELO_SLOT"); /* a typo: unknown name */
    expect_rejected("TW_UDP_FAULTS=drop=1.5", "TW_UDP_FAULTS");
    expect_rejected("TW_UDP_FAULTS=drop", "TW_UDP_FAULTS");
    expect_rejected("TW_UDP_FAULTS=lose=0.1", "TW_UDP_FAULTS");
    expect_rejected("TW_UDP_FAULTS=drop=0.1,,", "TW_UDP_FAULTS");
    expect_rejected("TW_UDP_ADDR=10.0.0.256", "TW_UDP_ADDR");
    expect_rejected("TW_UDP_ADDR=host.example", "TW_UDP_ADDR");
    expect_rejected("TW_UDP_ADDR= 10.0.0.1", "TW_UDP_ADDR"); /* the link could not read it */
    expect_rejected("TW_UDP_ADDR=10.0.0", "TW_UDP_ADDR");
    expect_rejected("TW_UDP_FAULTS=drop=0.1,", "TW_UDP_FAULTS");
    expect_rejected("TW_NODE=a b", "TW_NODE");
    /* a name of no link is the device's to refuse (test_links); these are no names */
    expect_rejected("TW_LINK=", "TW_LINK");
    expect_rejected("TW_LINK=UDP", "TW_LINK");
    expect_rejected("TW_LINK=shm:", "TW_LINK");
    expect_rejected("TW_LINK=averyverylonglinkname", "TW_LINK");
    expect_rejected("TW_UDP_WINDOW=8", "TW_UDP_WINDOW");
    expect_rejected("TW_UDP_TIMEOUT=5", "TW_UDP_TIMEOUT");
    expect_rejected("TW_PROGRESS_THREAD=yes", "TW_PROGRESS_THREAD");
    expect_rejected("TW_PROGRESS_INTERVAL=5", "TW_PROGRESS_INTERVAL");
    expect_rejected("TW_COLL_ALLREDUCE=rabenseifner", "TW_COLL_ALLREDUCE");
    expect_rejected("TW_COLL_ALLTOALL=", "TW_COLL_ALLTOALL");
    expect_rejected("TW_COLL_BCAST=Binomial", "TW_COLL_BCAST");
}

/* Faults under which no packet gets through would leave the job waiting for its
 * timeout: refused, with the reason. */
static void test_faults_without_progress(void **state) {
    (void)state;
    const char *hopeless[] = {"TW_UDP_FAULTS=drop=1",
                              "TW_UDP_FAULTS=drop=1.0",
                              "TW_UDP_FAULTS=corrupt=1",
                              "TW_UDP_FAULTS=drop=0.5,corrupt=1,seed=3",
                              "TW_UDP_FAULTS=corrupt=0.2,drop=1,duplicate=0.5",
                              "TW_UDP_FAULTS=drop=0,drop=1"}; /* the last one counts */
    for (size_t i = 0; i < sizeof hopeless / sizeof hopeless[0]; i++) {
        expect_rejected(hopeless[i], "TW_UDP_FAULTS");
        tw_config_t cfg;
        char err[256] = "";
        parse(&cfg, hopeless[i], NULL, err);
        if (!strstr(err, "no packet would get through"))
            fail_msg("%s: message '%s' does not say why", hopeless[i], err);
    }
    /* anything short of that is a test of the link */
    tw_config_t cfg;
    char err[256];
    assert_int_equal(parse(&cfg, "TW_UDP_FAULTS=drop=0.99,corrupt=0.99", NULL, err), 0);
    assert_int_equal(parse(&cfg, "TW_UDP_FAULTS=drop=1,drop=0.5", NULL, err), 0);
    assert_int_equal(parse(&cfg, "TW_UDP_FAULTS=duplicate=1,reorder=1,delay=1", NULL, err), 0);
}

static void test_every_variable_documented(void **state) {
    (void)state;
    size_t n = tw_setting_count();
    assert_true(n >= 3);
    for (size_t i = 0; i < n; i++) {
        const tw_setting_info_t *v = tw_setting_info((tw_setting_id_t)i);
        assert_true(strncmp(v->name, "TW_", 3) == 0);
        assert_true(strlen(v->meaning) > 10);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_good_values),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_faults_without_progress),
        cmocka_unit_test(test_every_variable_documented),
    };
    return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
