/* Which process manager a process joins, from its environment: PMI-1 over PMI_FD,
 * PMIx, a job of one, or an error naming the fix when a manager started it but cannot
 * be reached (Slurm without --mpi=, Open MPI without PMIx, a PMI launcher without
 * PMI_FD). Also Slurm's tasks-per-node list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/pm.h"

/* ctx: a NULL-ended list of "NAME=value" */
static const char *lookup(const char *name, void *ctx) {
    size_t n = strlen(name);
    for (const char *const *e = ctx; *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
    return NULL;
}

typedef struct {
    const char *env[8];
    int have_pmix;
    enum tw_pm_kind want;
    const char *why; /* a piece of the reason, for TW_PM_REFUSED */
} case_t;

static const case_t cases[] = {
    {{NULL}, 1, TW_PM_SINGLETON, NULL},
    {{"HOME=/root", "PATH=/bin", NULL}, 0, TW_PM_SINGLETON, NULL},
    /* PMI-1: twrun, Hydra, srun --mpi=pmi2; the socket wins over everything else */
    {{"PMI_FD=3", "PMI_RANK=0", "PMI_SIZE=4", NULL}, 1, TW_PM_PMI1, NULL},
    {{"PMI_FD=3", "PMIX_NAMESPACE=x", "SLURM_JOB_ID=5", "SLURM_STEP_ID=0", "SLURM_NTASKS=4",
      "OMPI_COMM_WORLD_SIZE=4", NULL},
     0,
     TW_PM_PMI1,
     NULL},
    {{"PMI_FD=", NULL}, 1, TW_PM_SINGLETON, NULL}, /* empty is unset */
    /* PMIx: srun --mpi=pmix, Open MPI's mpirun, prterun */
    {{"PMIX_NAMESPACE=slurm.pmix.5.0", "PMIX_RANK=1", "SLURM_JOB_ID=5", "SLURM_STEP_ID=0",
      "SLURM_STEP_NUM_TASKS=4", NULL},
     1,
     TW_PM_PMIX,
     NULL},
    {{"PMIX_SERVER_URI41=x;tcp4://127.0.0.1:1", NULL}, 1, TW_PM_PMIX, NULL},
    {{"PMIX_NAMESPACE=1234", "PMIX_RANK=0", "OMPI_COMM_WORLD_SIZE=2", NULL},
     0,
     TW_PM_REFUSED,
     "this build of Tollway has no PMIx client"},
    {{"PMIX_SERVER_URI41=x;tcp4://127.0.0.1:1", NULL}, 0, TW_PM_SINGLETON, NULL},
    /* Slurm without a PMI plugin: refused when the step has more than one task */
    {{"SLURM_JOB_ID=5", "SLURM_STEP_ID=0", "SLURM_STEP_NUM_TASKS=2", "SLURM_PROCID=1", NULL},
     1,
     TW_PM_REFUSED,
     "run with srun --mpi=pmi2 or srun --mpi=pmix"},
    {{"SLURM_JOB_ID=5", "SLURM_STEP_ID=0", "SLURM_NTASKS=8", NULL},
     0,
     TW_PM_REFUSED,
     "step 5.0 of 8 tasks"},
    {{"SLURM_JOB_ID=5", "SLURM_STEP_ID=0", "SLURM_NTASKS=lots", NULL},
     1,
     TW_PM_REFUSED,
     "srun --mpi=pmi2"},
    /* srun -n 1 inside an allocation of 4: the step's count, not the job's */
    {{"SLURM_JOB_ID=5", "SLURM_STEP_ID=1", "SLURM_STEP_NUM_TASKS=1", "SLURM_NTASKS=4", NULL},
     1,
     TW_PM_SINGLETON,
     NULL},
    /* a batch script's own process has SLURM_PROCID and SLURM_NTASKS, but no step */
    {{"SLURM_JOB_ID=5", "SLURM_PROCID=0", "SLURM_NTASKS=4", "SLURM_LOCALID=0", NULL},
     1,
     TW_PM_SINGLETON,
     NULL},
    /* Open MPI's variables, no PMIx server in sight */
    {{"OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=0", NULL},
     1,
     TW_PM_REFUSED,
     "started by Open MPI's mpirun (OMPI_COMM_WORLD_SIZE=2)"},
    {{"OMPI_COMM_WORLD_SIZE=1", NULL}, 1, TW_PM_SINGLETON, NULL},
    /* an MPICH-style launcher that gave no socket */
    {{"PMI_RANK=0", "PMI_SIZE=4", NULL}, 1, TW_PM_REFUSED, "PMI_SIZE=4 is set"},
    {{"PMI_RANK=0", "PMI_SIZE=1", NULL}, 1, TW_PM_SINGLETON, NULL},
    {{"PMI_PORT=node1:5000", "PMI_RANK=0", "PMI_SIZE=1", NULL}, 1, TW_PM_REFUSED, "PMI_PORT"},
};

static void test_choices(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const case_t *c = &cases[i];
        char why[512] = "junk";
        enum tw_pm_kind got = tw_pm_choose(lookup, (void *)c->env, c->have_pmix, why, sizeof why);
        if (got != c->want) print_error("case %zu (%s ...): got %d\n", i, c->env[0], (int)got);
        assert_int_equal(got, c->want);
        if (c->want == TW_PM_REFUSED) {
            assert_non_null(strstr(why, c->why));
            assert_non_null(strstr(why, "tollway: ")); /* says whose error it is */
        } else {
            assert_string_equal(why, "");
        }
    }
}

/* A reason longer than the buffer is cut, never overrun. */
static void test_short_buffer(void **state) {
    (void)state;
    const char *env[] = {"SLURM_JOB_ID=5", "SLURM_STEP_ID=0", "SLURM_NTASKS=2", NULL};
    char why[16];
    memset(why, 'x', sizeof why);
    assert_int_equal(tw_pm_choose(lookup, env, 1, why, 10), TW_PM_REFUSED);
    assert_int_equal(strlen(why), 9);
    assert_int_equal(why[10], 'x');
}

static void test_slurm_tasks_on_node(void **state) {
    (void)state;
    assert_int_equal(tw_pm_slurm_tasks_on_node("4", 0), 4);
    assert_int_equal(tw_pm_slurm_tasks_on_node("4", 1), -1);
    assert_int_equal(tw_pm_slurm_tasks_on_node("2(x3),1", 0), 2);
    assert_int_equal(tw_pm_slurm_tasks_on_node("2(x3),1", 2), 2);
    assert_int_equal(tw_pm_slurm_tasks_on_node("2(x3),1", 3), 1);
    assert_int_equal(tw_pm_slurm_tasks_on_node("2(x3),1", 4), -1);
    assert_int_equal(tw_pm_slurm_tasks_on_node("3,1(x2),5", 3), 5);
    const char *bad[] = {"", "x", "2(x", "2(x3", "2(x0)", "0", "-1", "2,", "2;1", "2(x3)1", NULL};
    for (const char **b = bad; *b; b++)
        assert_int_equal(
            tw_pm_slurm_tasks_on_node(*b, 0) > 0 && tw_pm_slurm_tasks_on_node(*b, 1) > 0, 0);
    assert_int_equal(tw_pm_slurm_tasks_on_node(NULL, 0), -1);
    assert_int_equal(tw_pm_slurm_tasks_on_node("4", -1), -1);
}

/* The job's size as the launcher set it, read before MPI_Init (MPI_Info_create_env). */
static void test_launch_size(void **state) {
    (void)state;
    static const struct {
        const char *env[8];
        int want;
    } sizes[] = {
        {{NULL}, 1}, /* started alone */
        {{"PMI_FD=3", "PMI_RANK=2", "PMI_SIZE=4", NULL}, 4},
        {{"PMI_FD=3", "PMI_RANK=0", "PMI_SIZE=four", NULL}, 0}, /* not a number: unknown */
        {{"PMIX_NAMESPACE=prterun-vm-1@1", "PMIX_RANK=1", "OMPI_COMM_WORLD_SIZE=6", NULL}, 6},
        {{"PMIX_NAMESPACE=slurm.pmix.5.0", "PMIX_RANK=1", "SLURM_JOB_ID=5", "SLURM_STEP_ID=0",
          "SLURM_STEP_NUM_TASKS=3", NULL},
         3},
        {{"PMIX_SERVER_URI41=x;tcp4://127.0.0.1:1", NULL}, 0}, /* a server, no job size */
        {{"SLURM_JOB_ID=5", "SLURM_STEP_ID=0", "SLURM_NTASKS=8", NULL}, 0}, /* refused */
    };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        assert_int_equal(tw_pm_launch_size(lookup, (void *)sizes[i].env, 1), sizes[i].want);
    /* a PMIx server's address left over in a build without PMIx: a process alone, as
     * tw_pm_choose takes it there */
    const char *leftover[] = {"PMIX_SERVER_URI41=x;tcp4://127.0.0.1:1", NULL};
    assert_int_equal(tw_pm_launch_size(lookup, (void *)leftover, 0), 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choices),
        cmocka_unit_test(test_short_buffer),
        cmocka_unit_test(test_slurm_tasks_on_node),
        cmocka_unit_test(test_launch_size),
    };
    return cmocka_run_group_tests_name("pm_choose", tests, NULL, NULL);
}
