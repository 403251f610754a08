/* twrun's command line: the spellings of Open MPI and Hydra users, MPMD segments, hosts
 * and hostfiles, the environment options, placement, and the lines it must refuse; and
 * inside made-up Slurm allocations, the rank count, the refusals and srun's command line. */
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

/* Parses "twrun " + line (words split at single spaces) in the environment env
 * ("NAME=value" strings, NULL-terminated; NULL: an empty one); returns the parser's result. */
static int parse_in(const char *line, char *const *env) {
    forget();
    words[nwords++] = strdup("twrun");
    char *copy = strdup(line), *save = NULL;
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
        words[nwords++] = strdup(w);
    free(copy);
    words[nwords] = NULL;
    memset(err, 0, sizeof err);
    return twr_options_parse(&opt, nwords, words, env, err);
}

static int parse_env(const char *line, const char *timeout_env) {
    char var[64];
    snprintf(var, sizeof var, "MPIEXEC_TIMEOUT=%s", timeout_env ? timeout_env : "");
    char *env[] = {var, NULL};
    return parse_in(line, timeout_env ? env : NULL);
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
    expect_error("-n 2 -launcher ssh prog", "-launcher ssh: twrun starts ranks on this");
    expect_error("-n 2 -bootstrap rsh prog", "mpiexec.hydra");
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
    /* MPI_UNIVERSE_SIZE: the slots (1 for a host without a count), not the CPUs */
    assert_int_equal(twr_options_slots(&opt, 64), 6);
    expect_ok("-hosts localhost:5,127.0.0.1:3 -n 2 prog");
    assert_int_equal(twr_options_slots(&opt, 1), 8);
    expect_ok("-n 3 prog"); /* no hosts: this machine's CPUs, at least the ranks */
    assert_int_equal(twr_options_slots(&opt, 8), 8);
    assert_int_equal(twr_options_slots(&opt, 2), 3);
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

/* ---- inside a Slurm allocation (made-up environments) ---- */

/* Parses line in the environment of the variables given, NULL-terminated. */
static int parse_slurm(const char *line, ...) {
    static char *env[16];
    va_list ap;
    va_start(ap, line);
    int n = 0;
    for (char *v; n < 15 && (v = va_arg(ap, char *));) env[n++] = v;
    va_end(ap);
    env[n] = NULL;
    return parse_in(line, env);
}

static void expect_slurm_error(const char *what, int rc) {
    if (rc == 0) fail_msg("accepted; expected an error saying '%s'", what);
    if (!strstr(err, what)) fail_msg("message '%s' does not say '%s'", err, what);
}

static void test_slurm_rank_count(void **state) {
    (void)state;
    /* salloc -n 4 mpiexec ./prog: a rank per task, through srun */
    assert_int_equal(parse_slurm("prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=4", NULL), 0);
    assert_int_equal(opt.launch, TWR_LAUNCH_SRUN);
    assert_int_equal(opt.size, 4);
    assert_string_equal(opt.alloc.job_id, "42");
    assert_int_equal(opt.alloc.tasks, 4);
    assert_string_equal(opt.alloc.tasks_from, "SLURM_NTASKS=4");
    /* fewer ranks than tasks, or as many: asked for */
    assert_int_equal(parse_slurm("-n 2 prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=2", NULL), 0);
    assert_int_equal(opt.size, 2);
    assert_int_equal(parse_slurm("-n 1 prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=2", NULL), 0);
    assert_int_equal(opt.size, 1);
    /* the variables in turn when the first ones are missing */
    assert_int_equal(
        parse_slurm("prog", "SLURM_JOB_ID=7", "SLURM_NPROCS=3", "SLURM_TASKS_PER_NODE=9", NULL), 0);
    assert_int_equal(opt.size, 3);
    assert_int_equal(parse_slurm("prog", "SLURM_JOB_ID=7", "SLURM_TASKS_PER_NODE=2(x3),1",
                                 "SLURM_JOB_NUM_NODES=4", NULL),
                     0);
    assert_int_equal(opt.size, 7);
    assert_string_equal(opt.alloc.tasks_from, "SLURM_TASKS_PER_NODE=2(x3),1");
    assert_int_equal(parse_slurm("prog", "SLURM_JOB_ID=7", "SLURM_JOB_NUM_NODES=3", NULL), 0);
    assert_int_equal(opt.size, 3);
    assert_int_equal(parse_slurm("prog", "SLURM_JOB_ID=7", "SLURM_NNODES=2", NULL), 0);
    assert_int_equal(opt.size, 2);
    /* outside an allocation, and inside a step (srun started twrun): twrun's own ranks */
    expect_slurm_error("number of ranks is missing", parse_slurm("prog", "SLURM_NTASKS=4", NULL));
    assert_int_equal(parse_slurm("-n 6 prog", "SLURM_NTASKS=2", NULL), 0);
    assert_int_equal(opt.launch, TWR_LAUNCH_HERE);
    assert_int_equal(
        parse_slurm("-n 6 prog", "SLURM_JOB_ID=42", "SLURM_STEP_ID=0", "SLURM_NTASKS=2", NULL), 0);
    assert_int_equal(opt.launch, TWR_LAUNCH_HERE);
    assert_int_equal(opt.size, 6);
    expect_slurm_error(
        "number of ranks is missing",
        parse_slurm("prog", "SLURM_JOB_ID=42", "SLURM_STEP_ID=0", "SLURM_NTASKS=4", NULL));
}

static void test_slurm_refusals(void **state) {
    (void)state;
    /* salloc -n 2 mpiexec -n 6: the count, the variable and the ways out */
    int rc = parse_slurm("-n 6 prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=2", NULL);
    expect_slurm_error("not enough slots: 6 ranks asked for (-n 6), but Slurm job 42 holds 2 "
                       "tasks (SLURM_NTASKS=2)",
                       rc);
    assert_non_null(strstr(err, "--oversubscribe"));
    assert_non_null(strstr(err, "-launcher fork"));
    assert_int_equal(
        parse_slurm("-n 6 --oversubscribe prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=2", NULL), 0);
    assert_int_equal(opt.size, 6);
    expect_slurm_error("holds 1 task (SLURM_NNODES=1)",
                       parse_slurm("-n 2 prog", "SLURM_JOB_ID=42", "SLURM_NNODES=1", NULL));
    /* what Slurm set cannot be read, or says nothing of the size */
    expect_slurm_error("SLURM_NTASKS='0' is not a positive number",
                       parse_slurm("prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=0", NULL));
    expect_slurm_error("SLURM_TASKS_PER_NODE='2(x' is not a list",
                       parse_slurm("prog", "SLURM_JOB_ID=42", "SLURM_TASKS_PER_NODE=2(x", NULL));
    expect_slurm_error("SLURM_TASKS_PER_NODE='2,,1'",
                       parse_slurm("prog", "SLURM_JOB_ID=42", "SLURM_TASKS_PER_NODE=2,,1", NULL));
    expect_slurm_error("the allocation's size is unknown; give -n N",
                       parse_slurm("prog", "SLURM_JOB_ID=42", NULL));
    expect_slurm_error("more than twrun's 4096 ranks",
                       parse_slurm("prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=5000", NULL));
    /* what srun cannot do, named; with -launcher fork it runs here */
    const char *lines[][2] = {{"-n 1 ./a : -n 1 ./b", "--multi-prog"},
                              {"--host localhost -n 1 prog", "'--host'"},
                              {"-H localhost -n 1 prog", "'-H'"},
                              {"--output-filename /tmp/o -n 1 prog", "'--output-filename'"},
                              {"--universe u -n 1 prog", "'--universe'"}};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        expect_slurm_error(lines[i][1],
                           parse_slurm(lines[i][0], "SLURM_JOB_ID=42", "SLURM_NTASKS=4", NULL));
        assert_non_null(strstr(err, "-launcher fork"));
        char line[128];
        snprintf(line, sizeof line, "-launcher fork %s", lines[i][0]);
        if (parse_slurm(line, "SLURM_JOB_ID=42", "SLURM_NTASKS=4", NULL))
            fail_msg("'%s' refused: %s", line, err);
        assert_int_equal(opt.launch, TWR_LAUNCH_HERE);
    }
}

static void test_slurm_launcher_choice(void **state) {
    (void)state;
    /* the opt-out: the option, or TW_LAUNCHER; then -n is needed as anywhere */
    assert_int_equal(
        parse_slurm("-launcher fork -n 6 prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=2", NULL), 0);
    assert_int_equal(opt.launch, TWR_LAUNCH_HERE);
    assert_int_equal(opt.size, 6);
    assert_int_equal(
        parse_slurm("-n 6 prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=2", "TW_LAUNCHER=fork", NULL), 0);
    assert_int_equal(opt.launch, TWR_LAUNCH_HERE);
    expect_slurm_error(
        "number of ranks is missing",
        parse_slurm("-bootstrap fork prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=2", NULL));
    /* the option wins over the setting */
    assert_int_equal(parse_slurm("-bootstrap slurm prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=3",
                                 "TW_LAUNCHER=fork", NULL),
                     0);
    assert_int_equal(opt.launch, TWR_LAUNCH_SRUN);
    assert_int_equal(opt.size, 3);
    /* slurm asked for: inside a step too, never outside an allocation */
    assert_int_equal(parse_slurm("prog", "SLURM_JOB_ID=42", "SLURM_STEP_ID=3", "SLURM_NTASKS=2",
                                 "TW_LAUNCHER=slurm", NULL),
                     0);
    assert_int_equal(opt.launch, TWR_LAUNCH_SRUN);
    expect_slurm_error("TW_LAUNCHER slurm: not inside a Slurm allocation (SLURM_JOB_ID is not set)",
                       parse_slurm("-n 2 prog", "TW_LAUNCHER=slurm", NULL));
    expect_slurm_error("-launcher slurm: not inside a Slurm allocation",
                       parse_slurm("-n 2 -launcher slurm prog", NULL));
    expect_slurm_error("TW_LAUNCHER must be auto, fork or slurm, not 'ssh'",
                       parse_slurm("-n 2 prog", "TW_LAUNCHER=ssh", NULL));
    assert_int_equal(
        parse_slurm("prog", "SLURM_JOB_ID=42", "SLURM_NTASKS=2", "TW_LAUNCHER=auto", NULL), 0);
    assert_int_equal(opt.launch, TWR_LAUNCH_SRUN);
}

/* The srun command line of line inside a 4-task allocation, as one string. */
static twr_srun_t cmd;
static char cmdline[1024];
static int srun_line(const char *line, const char *mpi) {
    twr_srun_free(&cmd);
    if (parse_slurm(line, "SLURM_JOB_ID=42", "SLURM_NTASKS=8", NULL))
        fail_msg("'%s' refused: %s", line, err);
    if (twr_srun_command(&opt, mpi, &cmd, err)) return -1;
    cmdline[0] = '\0';
    for (int i = 0; i < cmd.argc; i++) {
        assert_non_null(cmd.argv[i]);
        snprintf(cmdline + strlen(cmdline), sizeof cmdline - strlen(cmdline), "%s%s", i ? " " : "",
                 cmd.argv[i]);
    }
    assert_null(cmd.argv[cmd.argc]);
    return 0;
}

static void test_srun_command(void **state) {
    (void)state;
    assert_int_equal(srun_line("./prog a b", "pmix"), 0);
    assert_string_equal(cmdline,
                        "srun --mpi=pmix -n 8 --export=ALL --kill-on-bad-exit=1 ./prog a b");
    assert_int_equal(cmd.nset, 0);
    assert_int_equal(srun_line("-n 2 -x A=1 -genv B x,y -x HOME -l -wdir /tmp ./prog", "pmi2"), 0);
    assert_string_equal(cmdline, "srun --mpi=pmi2 -n 2 --export=ALL --kill-on-bad-exit=1 --label "
                                 "--chdir=/tmp ./prog");
    /* the values go through srun's environment: a ',' in one is kept */
    assert_int_equal(cmd.nset, 2);
    assert_string_equal(cmd.set[0].name, "A");
    assert_string_equal(cmd.set[0].value, "1");
    assert_string_equal(cmd.set[1].name, "B");
    assert_string_equal(cmd.set[1].value, "x,y");
    assert_int_equal(srun_line("-n 12 --oversubscribe -ppn 2 --map-by node --bind-to core "
                               "--report-bindings -- -prog",
                               "pmix"),
                     0);
    assert_string_equal(cmdline, "srun --mpi=pmix -n 12 --export=ALL --kill-on-bad-exit=1 "
                                 "--overcommit --ntasks-per-node=2 --distribution=cyclic "
                                 "--cpu-bind=verbose,cores -- -prog");
    assert_int_equal(srun_line("--bind-to none ./prog", "pmix"), 0);
    assert_non_null(strstr(cmdline, " --cpu-bind=none "));
    assert_int_equal(srun_line("--bind-to hwthread ./prog", "pmix"), 0);
    assert_non_null(strstr(cmdline, " --cpu-bind=threads "));
    assert_int_equal(srun_line("--report-bindings ./prog", "pmix"), 0);
    assert_non_null(strstr(cmdline, " --cpu-bind=verbose "));
    /* only the variables named: srun's --export list, values set in its environment */
    assert_int_equal(srun_line("-genvlist PATH,USER -x A=1 -x HOME ./prog", "pmix"), 0);
    assert_non_null(strstr(cmdline, " --export=PATH,USER,A,HOME "));
    assert_int_equal(cmd.nset, 1);
    assert_int_equal(srun_line("-genvnone ./prog", "pmix"), 0);
    assert_non_null(strstr(cmdline, " --export=NONE "));
    assert_int_equal(srun_line("-genvnone -envall ./prog", "pmix"), 0);
    assert_non_null(strstr(cmdline, " --export=ALL "));
    assert_int_equal(srun_line("-x A,B=1 ./prog", "pmix"), -1);
    assert_non_null(strstr(err, "'A,B' cannot be passed through srun"));
    twr_srun_free(&cmd);
}

static void test_srun_mpi(void **state) {
    (void)state;
    const char *list = "srun: MPI types are...\nsrun: cray_shasta\nsrun: none\nsrun: pmi2\n"
                       "srun: pmix\nsrun: pmix_v4\n";
    assert_string_equal(twr_srun_mpi(list, 1), "pmix");
    assert_string_equal(twr_srun_mpi(list, 0), "pmi2"); /* a build without a PMIx client */
    assert_string_equal(twr_srun_mpi("MPI plugin types are...\n\tnone\n\tpmi2\n", 1), "pmi2");
    assert_null(twr_srun_mpi("srun: none\nsrun: cray_shasta\nsrun: pmix_v4\n", 0));
    assert_null(twr_srun_mpi("srun: none\nsrun: pmi2x\n", 1));
    assert_null(twr_srun_mpi("", 1));
    assert_null(twr_srun_mpi(NULL, 1));
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
        cmocka_unit_test_teardown(test_slurm_rank_count, teardown),
        cmocka_unit_test_teardown(test_slurm_refusals, teardown),
        cmocka_unit_test_teardown(test_slurm_launcher_choice, teardown),
        cmocka_unit_test_teardown(test_srun_command, teardown),
        cmocka_unit_test_teardown(test_srun_mpi, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
