#include "runtime/pm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/endpoint.h>

#include "build_info.h"

static const char *env_value(tw_pm_env_fn env, void *ctx, const char *name) {
    const char *v = env(name, ctx);
    return v && v[0] ? v : NULL;
}

/* The number of processes a variable says, or -1 when it is not a number: a count
 * that cannot be read is taken for many, so that the verdict errs towards an error. */
static int count_of(const char *v) {
    int n;
    return v && tw_pmi_parse_number(v, &n) == 0 ? n : -1;
}

/* The first of the names that is set, or NULL. */
static const char *first_set(tw_pm_env_fn env, void *ctx, const char *const *names,
                             const char **value) {
    for (; *names; names++)
        if ((*value = env_value(env, ctx, *names))) return *names;
    return NULL;
}

enum tw_pm_kind tw_pm_choose(tw_pm_env_fn env, void *ctx, int have_pmix, char *why, size_t cap) {
    const char *v;
    snprintf(why, cap, "%s", "");
    /* PMI-1 first: twrun and Hydra hand the socket itself down, whatever else the
     * environment holds (a twrun started inside another manager's job) */
    if (env_value(env, ctx, "PMI_FD")) return TW_PM_PMI1;

    static const char *const pmix_vars[] = {
        "PMIX_NAMESPACE",   "PMIX_RANK",        "PMIX_SERVER_URI41",
        "PMIX_SERVER_URI4", "PMIX_SERVER_URI3", "PMIX_SERVER_URI21",
        "PMIX_SERVER_URI2", "PMIX_SERVER_URI",  NULL};
    const char *pmix_var = first_set(env, ctx, pmix_vars, &v);
    static const char *const slurm_tasks[] = {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", NULL};
    const char *tasks = NULL;
    int slurm_step = env_value(env, ctx, "SLURM_JOB_ID") && env_value(env, ctx, "SLURM_STEP_ID");
    int slurm_size = slurm_step && first_set(env, ctx, slurm_tasks, &tasks) ? count_of(tasks) : 1;
    int ompi_size = count_of(env_value(env, ctx, "OMPI_COMM_WORLD_SIZE"));
    if (!env_value(env, ctx, "OMPI_COMM_WORLD_SIZE")) ompi_size = 1;

    if (pmix_var) {
        if (have_pmix) return TW_PM_PMIX;
        if (slurm_size == 1 && ompi_size == 1 && !env_value(env, ctx, "PMIX_NAMESPACE"))
            return TW_PM_SINGLETON; /* only a server's address left over: no job to join */
        snprintf(why, cap,
                 "tollway: started by a PMIx process manager (%s is set), but this build of "
                 "Tollway has no PMIx client (libpmix-dev was missing when it was built); "
                 "rebuild it with libpmix-dev, or launch with srun --mpi=pmi2, mpiexec.hydra "
                 "or twrun",
                 pmix_var);
        return TW_PM_REFUSED;
    }
    if (slurm_size != 1) {
        snprintf(why, cap,
                 "tollway: started by Slurm's srun without a process-management interface "
                 "(step %s.%s of %s tasks, but neither PMI_FD nor PMIX_* in the "
                 "environment); run with srun --mpi=pmi2 or srun --mpi=pmix",
                 env_value(env, ctx, "SLURM_JOB_ID"), env_value(env, ctx, "SLURM_STEP_ID"), tasks);
        return TW_PM_REFUSED;
    }
    if (ompi_size != 1) {
        snprintf(why, cap,
                 "tollway: started by Open MPI's mpirun (OMPI_COMM_WORLD_SIZE=%s), but no PMIx "
                 "server is reachable (no PMIX_NAMESPACE or PMIX_SERVER_URI* in the "
                 "environment); use an mpirun/prterun whose PMIx server sets them, or "
                 "launch with twrun or mpiexec.hydra",
                 env_value(env, ctx, "OMPI_COMM_WORLD_SIZE"));
        return TW_PM_REFUSED;
    }
    const char *pmi_size = env_value(env, ctx, "PMI_SIZE");
    if (env_value(env, ctx, "PMI_PORT")) {
        snprintf(why, cap,
                 "tollway: PMI_PORT is set but PMI_FD is not: PMI-1 over a TCP port is not "
                 "supported; launch with twrun, mpiexec.hydra (which hands PMI_FD down), or "
                 "srun --mpi=pmi2");
        return TW_PM_REFUSED;
    }
    if (pmi_size && count_of(pmi_size) != 1) {
        snprintf(why, cap,
                 "tollway: PMI_SIZE=%s is set (an MPICH-style launcher) but PMI_FD is not, so "
                 "the process manager cannot be reached; launch with twrun, mpiexec.hydra or "
                 "srun --mpi=pmi2",
                 pmi_size);
        return TW_PM_REFUSED;
    }
    return TW_PM_SINGLETON; /* started on its own, or a job of one */
}

int tw_pm_launch_size(tw_pm_env_fn env, void *ctx, int have_pmix) {
    char why[8];
    static const char *const slurm_tasks[] = {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", NULL};
    const char *v = NULL;
    int n = -1;
    switch (tw_pm_choose(env, ctx, have_pmix, why, sizeof why)) {
    case TW_PM_PMI1:
        n = count_of(env_value(env, ctx, "PMI_SIZE"));
        break;
    case TW_PM_SINGLETON:
        return 1;
    case TW_PM_PMIX: /* prterun says it as Open MPI's mpirun did; srun as Slurm does */
        if ((v = env_value(env, ctx, "OMPI_COMM_WORLD_SIZE")))
            n = count_of(v);
        else if (env_value(env, ctx, "SLURM_STEP_ID") && first_set(env, ctx, slurm_tasks, &v))
            n = count_of(v);
        break;
    default:
        break;
    }
    return n > 0 ? n : 0;
}

int tw_pm_slurm_tasks_on_node(const char *list, int node_id) {
    const char *p = list;
    int found = -1;
    if (!p || node_id < 0) return -1;
    for (;;) { /* the whole list read: a malformed one is no answer at all */
        char *end;
        long tasks = strtol(p, &end, 10), repeat = 1;
        if (end == p || *p < '0' || *p > '9' || tasks < 1 || tasks > (1L << 30)) return -1;
        p = end;
        if (strncmp(p, "(x", 2) == 0) {
            const char *r = p + 2;
            repeat = strtol(r, &end, 10);
            if (end == r || *r < '0' || *r > '9' || *end != ')' || repeat < 1 ||
                repeat > (1L << 30))
                return -1;
            p = end + 1;
        }
        if (found < 0 && node_id < repeat) found = (int)tasks;
        if (found < 0) node_id -= (int)repeat;
        if (*p == '\0') return found;
        if (*p != ',') return -1;
        p++;
    }
}

static const char *process_env(const char *name, void *ctx) {
    (void)ctx;
    return getenv(name);
}

int tw_launch_size(void) {
    return tw_pm_launch_size(process_env, NULL, TW_HAVE_PMIX);
}

int tw_pm_init(tw_pm_t *pm, char *err, size_t errlen) {
    memset(pm, 0, sizeof *pm);
    pthread_mutex_init(&pm->lock, NULL);
    pm->local_rank = pm->local_size = pm->node_id = -1;
    pm->kind = tw_pm_choose(process_env, NULL, TW_HAVE_PMIX, err, errlen);
    switch (pm->kind) {
    case TW_PM_PMI1:
        pm->ops = &tw_pm_pmi1_ops;
        break;
#if TW_HAVE_PMIX
    case TW_PM_PMIX:
        pm->ops = &tw_pm_pmix_ops;
        break;
#endif
    case TW_PM_SINGLETON:
        pm->ops = &tw_pm_singleton_ops;
        break;
    default:
        pm->ops = &tw_pm_singleton_ops;
        return -1;
    }
    return pm->ops->init(pm, err, errlen);
}

void tw_pm_set_waiting(tw_pm_t *pm, void (*waiting)(void *ctx), void *ctx) {
    pm->waiting = waiting;
    pm->waiting_ctx = ctx;
    pm->pmi1.waiting = waiting; /* the PMI-1 client waits on its own socket */
    pm->pmi1.waiting_ctx = ctx;
}

int tw_pm_is_twrun(const tw_pm_t *pm) {
    return pm->kind == TW_PM_PMI1 && tw_pmi_is_twrun(&pm->pmi1);
}
