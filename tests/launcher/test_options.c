/* twrun's command line: the spellings of Open MPI and Hydra users, MPMD segments, hosts
 * and hostfiles, the environment options, placement, and the lines it must refuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "options.h"

static twr_options_t opt;
static char err[TWR_ERR_MAX];
static char *words[64];
static int nwords;

static void forget(void) {
    twr_options_free(&opt);
    for (int i = 0; i < nwords; i++) free(words[i]);
    nwords = 0;
}

/* Parses "twrun " + line (words split at single spaces); returns the parser's result. */
static int parse_env(const char *line, const char *timeout_env) {
    forget();
    words[nwords++] = strdup("twrun");
    char *copy = strdup(line), *save = NULL;
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
        words[nwords++] = strdup(w);
    free(copy);
    words[nwords] = NULL;
    memset(err, 0, sizeof err);
    return twr_options_parse(&opt, nwords, words, timeout_env, err);
}

static int parse(const char *line) {
    return parse_env(line, NULL);
}

static void expect_ok(const char *line) {
    if (parse(line) != 0) fail_msg("'%s' refused: %s", line, err);
}

/* line is refused with a message that contains what. */
static void expect_error(const char *line, const char *what) {
    if (parse(line) == 0) fail_msg("'%s' accepted", line);
    if (!strstr(err, what)) fail_msg("'%s': message '%s' does not say '%s'", line, err, what);
}

static void test_rank_count_spellings(void **state) {
    (void)state;
    const char *lines[] = {"-n 4 prog",   "-n4 prog",   "-n=4 prog",  "--np=4 prog",
                           "-np 4 prog",  "-np4 prog",  "--n 4 prog", "-c 4 prog",
                           "--np 4 prog", "-np=4 prog", "--n=4 prog"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        expect_ok(lines[i]);
        assert_int_equal(opt.size, 4);
        assert_int_equal(opt.nsegments, 1);
        assert_string_equal(opt.segments[0].argv[0], "prog");
        assert_null(opt.segments[0].argv[1]);
    }
    expect_ok("-n 1 -n 3 prog"); /* the last one counts */
    assert_int_equal(opt.size, 3);
}

static void test_program_arguments(void **state) {
    (void)state;
    /* the options end at the program: what follows is its own */
    expect_ok("-n 2 prog -n 5 --bind-to x -genv");
    assert_int_equal(opt.size, 2);
    char **a = opt.segments[0].argv;
    assert_string_equal(a[0], "prog");
    assert_string_equal(a[1], "-n");
    assert_string_equal(a[4], "x");
    assert_string_equal(a[5], "-genv");
    assert_null(a[6]);
    expect_ok("-n 2 -- -prog x");
    assert_string_equal(opt.segments[0].argv[0], "-prog");
}

static void test_mpmd(void **state) {
    (void)state;
    expect_ok("-genv G 1 -n 2 -env A 1 -wdir / ./a x : -n 1 -env B 2 ./b y z : -np 3 -wd /tmp ./c");
    assert_int_equal(opt.nsegments, 3);
    assert_int_equal(opt.size, 6);
    const twr_segment_t *s = opt.segments;
    assert_int_equal(s[0].nranks, 2);
    assert_int_equal(s[0].first, 0);
    assert_int_equal(s[1].first, 2);
    assert_int_equal(s[2].first, 3);
    assert_string_equal(s[0].argv[0], "./a");
    assert_string_equal(s[0].argv[1], "x");
    assert_null(s[0].argv[2]);
    assert_string_equal(s[1].argv[0], "./b");
    assert_string_equal(s[1].argv[2], "z");
    assert_null(s[1].argv[3]);
    assert_string_equal(s[2].argv[0], "./c");
    /* -env: its own program; -genv: all; -wdir before the first ':' is the default */
    assert_int_equal(opt.genv.nvars, 1);
    assert_string_equal(opt.genv.vars[0].name, "G");
    assert_int_equal(s[0].env.nvars, 1);
    assert_string_equal(s[0].env.vars[0].name, "A");
    assert_int_equal(s[1].env.nvars, 1);
    assert_string_equal(s[1].env.vars[0].value, "2");
    assert_int_equal(s[2].env.nvars, 0);
    assert_string_equal(s[0].wdir, "/");
    assert_string_equal(s[1].wdir, "/");
    assert_string_equal(s[2].wdir, "/tmp");
}

static void test_mpmd_errors(void **state) {
    (void)state;
    /* never a job of ./a with the rest as its arguments */
    expect_error("-n 1 ./a : ./b", "program 2 of the job ('./b') has no number of ranks");
    expect_error("-n 1 ./a :", "program 2 of the job");
    expect_error("-n 1 ./a : : -n 1 ./b", "program 2 of the job");
    expect_error(": -n 1 ./b", "program 1 of the job");
    expect_error("-n 1 ./a : -n 1 -ppn 2 ./b", "'-ppn' applies to the whole job");
    expect_error("-n 1 ./a : -n 1 --timeout 5 ./b", "'--timeout' applies to the whole job");
    expect_error("-n 4000 ./a : -n 97 ./b", "more than 4096 ranks");
}

static void test_errors(void **state) {
    (void)state;
    expect_error("--frobnicate -n 2 prog", "unknown option '--frobnicate'");
    expect_error("-frob -n 2 prog", "unknown option '-frob'");
    expect_error("-xFOO -n 2 prog", "unknown option '-xFOO'");
    expect_error("-n 0 prog", "'0'");
    expect_error("-n 4097 prog", "'4097'");
    expect_error("-n abc prog", "'abc'");
    expect_error("-n 2", "program to run is missing");
    expect_error("prog", "number of ranks is missing");
    expect_error("-n", "needs a value");
    expect_error("-n 2 --bind-to socket prog", "'socket'");
    expect_error("-n 2 --timeout -5 prog", "'-5'");
    expect_error("-n 2 -genv A", "-genv VAR VALUE");
    expect_error("-n 2 -genv A=1 x prog", "'A=1' is not a variable name");
    expect_error("-n 2 -x =1 prog", "-x takes VAR");
    expect_error("-n 2 -genvlist , prog", "at least one variable");
    expect_error("-n 2 --map-by ppr:2:socket prog", "ppr:N:node");
    expect_error("-n 2 --map-by numa prog", "'numa'");
    expect_error("-n 2 -ppn 0 prog", "'0'");
    expect_error("-n 2 -wdir /no/such/dir prog", "'/no/such/dir' is not a directory");
    expect_error("-n 2 --universe a/b prog", "'a/b'");
    expect_error("-n 2 --output-filename :nocopy prog", "needs a directory");
    expect_error("-n 2 --mca btl self prog", "--mca: Open MPI's MCA parameters mean nothing");
    expect_error("-n 2 -launcher ssh prog", "-launcher ssh: twrun starts ranks only on this");
    expect_error("-n 2 -bootstrap slurm prog", "mpiexec.hydra");
    expect_error("-n 2 -ho x prog", "unknown option '-ho'"); /* host, hosts, hostfile */
    expect_error("-n 2 --oversubscribe=1 prog", "'--oversubscribe' takes no value");
}

static void test_flags(void **state) {
    (void)state;
    expect_ok("-n 2 prog");
    assert_int_equal(opt.bind, TWR_BIND_CORE);
    assert_false(opt.tag_output);
    assert_null(opt.output_dir);
    assert_int_equal(opt.genv.policy, TWR_ENV_ALL);
    expect_ok("-n 2 --oversubscribe prog"); /* other work shares the cores: no binding */
    assert_int_equal(opt.bind, TWR_BIND_NONE);
    expect_ok("-n 2 --oversubscribe --bind-to core prog");
    assert_int_equal(opt.bind, TWR_BIND_CORE);
    expect_ok("-n 2 --bind-to hwthread prog");
    assert_int_equal(opt.bind, TWR_BIND_HWTHREAD);
    expect_ok("-n 2 --map-by core:OVERSUBSCRIBE prog");
    assert_true(opt.oversubscribe);
    const char *tags[] = {"-l", "-prepend-rank", "--tag-output", "-tag-output"};
    for (size_t i = 0; i < 4; i++) {
        char line[64];
        snprintf(line, sizeof line, "-n 2 %s prog", tags[i]);
        expect_ok(line);
        assert_true(opt.tag_output);
    }
    expect_ok("-n 2 --output-filename /tmp/out prog");
    assert_string_equal(opt.output_dir, "/tmp/out");
    assert_true(opt.output_copy);
    expect_ok("-n 2 --output-filename=/tmp/out:nocopy prog");
    assert_string_equal(opt.output_dir, "/tmp/out");
    assert_false(opt.output_copy);
    expect_ok("--allow-run-as-root --report-bindings -launcher fork -n 1 prog");
    assert_true(opt.report_bindings);
    expect_ok("-h");
    assert_true(opt.help);
    expect_ok("--version");
    assert_true(opt.version);
    expect_ok("-n 1 -ppn 3 prog");
    assert_int_equal(opt.ppn, 3);
    expect_ok("-n 1 --npernode 2 prog");
    assert_int_equal(opt.ppn, 2);
    expect_ok("-n 1 -N 5 prog");
    assert_int_equal(opt.ppn, 5);
    expect_ok("-n 1 --map-by ppr:4:node prog");
    assert_int_equal(opt.ppn, 4);
}

static void test_environment(void **state) {
    (void)state;
    expect_ok("-x A=1 -x HOME -genvlist PATH,USER -genv B two -n 1 -x C=3 prog : -n 1 -x D "
              "-envnone prog");
    assert_int_equal(opt.genv.policy, TWR_ENV_LIST);
    assert_int_equal(opt.genv.nlist, 2);
    assert_string_equal(opt.genv.list[1], "USER");
    /* -x before the first ':' is for every program, after it for its own */
    assert_int_equal(opt.genv.nvars, 4);
    assert_string_equal(opt.genv.vars[0].name, "A");
    assert_string_equal(opt.genv.vars[0].value, "1");
    assert_string_equal(opt.genv.vars[1].name, "HOME");
    assert_null(opt.genv.vars[1].value); /* passed on from twrun's environment */
    assert_string_equal(opt.genv.vars[2].value, "two");
    assert_string_equal(opt.genv.vars[3].name, "C");
    assert_int_equal(opt.segments[0].env.policy, TWR_ENV_UNSET);
    assert_int_equal(opt.segments[1].env.policy, TWR_ENV_NONE);
    assert_int_equal(opt.segments[1].env.nvars, 1);
    assert_string_equal(opt.segments[1].env.vars[0].name, "D");
    expect_ok("-genvnone -n 1 -envall prog");
    assert_int_equal(opt.genv.policy, TWR_ENV_NONE);
    assert_int_equal(opt.segments[0].env.policy, TWR_ENV_ALL);
}

static void test_timeout(void **state) {
    (void)state;
    assert_int_equal(parse_env("-n 1 prog", "7"), 0);
    assert_int_equal(opt.timeout, 7);
    assert_string_equal(opt.timeout_source, "MPIEXEC_TIMEOUT");
    assert_int_equal(parse_env("-n 1 --timeout 3 prog", "7"), 0); /* the option wins */
    assert_int_equal(opt.timeout, 3);
    assert_string_equal(opt.timeout_source, "--timeout");
    assert_int_equal(parse_env("-n 1 prog", "soon"), -1);
    assert_non_null(strstr(err, "MPIEXEC_TIMEOUT"));
    expect_ok("-n 1 prog");
    assert_int_equal(opt.timeout, 0);
}

static void test_local_hosts(void **state) {
    (void)state;
    char self[256], line[600];
    assert_int_equal(gethostname(self, sizeof self), 0);
    assert_true(twr_host_is_local("localhost"));
    assert_true(twr_host_is_local("LOCALHOST"));
    assert_true(twr_host_is_local("127.0.0.1"));
    assert_true(twr_host_is_local("127.0.1.1"));
    assert_true(twr_host_is_local(self));
    snprintf(line, sizeof line, "%s.some.domain", self); /* its FQDN */
    assert_true(twr_host_is_local(line));
    assert_false(twr_host_is_local("tw-no-such-host-anywhere"));
    assert_false(twr_host_is_local("198.51.100.254")); /* TEST-NET-2: nobody's */

    expect_ok("-host localhost -n 3 prog");
    assert_int_equal(opt.nhosts, 1);
    assert_int_equal(opt.hosts[0].kind, TWR_HOST_LOCAL);
    assert_false(opt.netns);
    assert_int_equal(opt.size, 3);
    /* without -n: a rank per slot */
    snprintf(line, sizeof line, "-hosts localhost:2,127.0.0.1,%s:3 prog", self);
    expect_ok(line);
    assert_int_equal(opt.nhosts, 3);
    assert_int_equal(opt.hosts[0].slots, 2);
    assert_int_equal(opt.hosts[1].slots, 0);
    assert_int_equal(opt.size, 6);
    expect_ok("-H localhost:4 prog");
    assert_int_equal(opt.size, 4);
    expect_ok("-H localhost:4,127.0.0.1 -ppn 3 prog"); /* -ppn on each host */
    assert_int_equal(opt.size, 6);
    expect_ok("--host localhost -n 5 prog"); /* more than the slots: as Hydra, no error */
    assert_int_equal(opt.size, 5);
    int host[5];
    twr_options_place(&opt, host);
    for (int i = 0; i < 5; i++) assert_int_equal(host[i], 0);

    expect_error("-host node17.example.org -n 2 prog", "unknown host 'node17.example.org'");
    assert_non_null(strstr(err, "srun"));
    assert_non_null(strstr(err, "mpiexec.hydra"));
    expect_error("-host localhost:0 -n 2 prog", "slots of 'localhost:0'");
    expect_error("-host localhost:x -n 2 prog", "slots of 'localhost:x'");
    expect_error("-host localhost: -n 2 prog", "slots of 'localhost:'");
    expect_error("-host localhost:12345678901234567890 -n 2 prog", "slots of 'localhost:1234");
    expect_error("-host , -n 2 prog", "at least one host");
    expect_error("-host a/b -n 2 prog", "'a/b' is not a host name");
    expect_error("-host .. -n 2 prog", "'..' is not a host name");
}

static void test_hostfile(void **state) {
    (void)state;
    char path[] = "/tmp/twrun-hostfile-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("# the nodes\n\n  localhost slots=2 max_slots=8  # Open MPI's form\n"
          "127.0.0.1:3\n\t\n127.0.0.2\n",
          f);
    fclose(f);
    char line[128];
    snprintf(line, sizeof line, "-f %s prog", path);
    expect_ok(line);
    assert_int_equal(opt.nhosts, 3);
    assert_string_equal(opt.hosts[0].name, "localhost");
    assert_int_equal(opt.hosts[0].slots, 2);
    assert_int_equal(opt.hosts[1].slots, 3);
    assert_int_equal(opt.hosts[2].slots, 0);
    assert_int_equal(opt.size, 6);
    const char *spellings[] = {"--hostfile", "-hostfile", "-machinefile", "--machinefile"};
    for (int i = 0; i < 4; i++) {
        snprintf(line, sizeof line, "%s %s -n 2 prog", spellings[i], path);
        expect_ok(line);
        assert_int_equal(opt.nhosts, 3);
        assert_int_equal(opt.size, 2);
    }

    f = fopen(path, "w");
    fputs("localhost\nlocalhost slotz=2\n", f);
    fclose(f);
    snprintf(line, sizeof line, "-f %s prog", path);
    char where[128];
    snprintf(where, sizeof where, "%s:2: 'slotz=2'", path);
    expect_error(line, where);
    f = fopen(path, "w");
    fputs("localhost:2 slots=3\n", f);
    fclose(f);
    expect_error(line, "gives its slots twice");
    f = fopen(path, "w");
    fputs("# nothing\n\n", f);
    fclose(f);
    expect_error(line, "names no host");
    f = fopen(path, "w");
    fputs("localhost\nnode17\n", f);
    fclose(f);
    expect_error(line, "unknown host 'node17'");
    f = fopen(path, "w"); /* more hosts than ranks could ever be: refused, not added up */
    for (int i = 0; i <= 4096; i++) fputs("localhost slots=4096\n", f);
    fclose(f);
    expect_error(line, "more than 4096 hosts");
    unlink(path);
    expect_error(line, "cannot read hostfile");
    expect_error("-f /tmp prog", "cannot read hostfile '/tmp': Is a directory");
}

/* Placement over namespaces, on options made by hand (namespaces need root). */
static void test_place(void **state) {
    (void)state;
    twr_host_t hosts[3] = {{.name = "a"}, {.name = "b"}, {.name = "c"}};
    twr_options_t o = {.hosts = hosts, .nhosts = 2, .netns = 1, .size = 6};
    int host[8];
    /* neither slots nor ppn: even blocks, as --hosts always did */
    twr_options_place(&o, host);
    int blocks[] = {0, 0, 0, 1, 1, 1};
    assert_memory_equal(host, blocks, sizeof blocks);
    /* ranks per host: blocks of that many, cycling */
    o.ppn = 2;
    o.nhosts = 3;
    o.size = 8;
    twr_options_place(&o, host);
    int ppn[] = {0, 0, 1, 1, 2, 2, 0, 0};
    assert_memory_equal(host, ppn, sizeof ppn);
    /* slots: filled in order, cycling (a host without slots has one) */
    o.ppn = 0;
    hosts[0].slots = 3;
    hosts[2].slots = 2;
    o.size = 8;
    twr_options_place(&o, host);
    int slots[] = {0, 0, 0, 1, 2, 2, 0, 0};
    assert_memory_equal(host, slots, sizeof slots);
    /* --map-by node: one each in turn */
    o.map_by_node = 1;
    o.size = 5;
    twr_options_place(&o, host);
    int node[] = {0, 1, 2, 0, 1};
    assert_memory_equal(host, node, sizeof node);
}

static int teardown(void **state) {
    (void)state;
    forget();
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_rank_count_spellings, teardown),
        cmocka_unit_test_teardown(test_program_arguments, teardown),
        cmocka_unit_test_teardown(test_mpmd, teardown),
        cmocka_unit_test_teardown(test_mpmd_errors, teardown),
        cmocka_unit_test_teardown(test_errors, teardown),
        cmocka_unit_test_teardown(test_flags, teardown),
        cmocka_unit_test_teardown(test_environment, teardown),
        cmocka_unit_test_teardown(test_timeout, teardown),
        cmocka_unit_test_teardown(test_local_hosts, teardown),
        cmocka_unit_test_teardown(test_hostfile, teardown),
        cmocka_unit_test_teardown(test_place, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
