/* PMI-1 over PMI_FD (twrun, MPICH's Hydra, Slurm's srun --mpi=pmi2): the client in
 * pmi.c behind the process-manager table. Its keys are global to the job, so a get
 * needs no rank. */
#include "runtime/pm.h"

#include <stdio.h>
#include <stdlib.h>

static int pmi1_init(tw_pm_t *pm, char *err, size_t errlen) {
    if (tw_pmi_init(&pm->pmi1, err, errlen)) return -1;
    pm->pmi1.waiting = pm->waiting;
    pm->pmi1.waiting_ctx = pm->waiting_ctx;
    pm->rank = pm->pmi1.rank;
    pm->size = pm->pmi1.size;
    snprintf(pm->name, sizeof pm->name, "%s", pm->pmi1.kvsname);
    /* PMI-1 says nothing of nodes: Hydra tells its ranks in variables of its own, and
     * so does Slurm (srun --mpi=pmi2) */
    int n, node = -1;
    const char *local = getenv("MPI_LOCALNRANKS"), *id = getenv("MPI_LOCALRANKID");
    if (!local && !id && !tw_pmi_is_twrun(&pm->pmi1) && getenv("SLURM_STEP_ID")) {
        const char *nodeid = getenv("SLURM_NODEID");
        if (nodeid && !tw_pmi_parse_number(nodeid, &node)) {
            n = tw_pm_slurm_tasks_on_node(getenv("SLURM_STEP_TASKS_PER_NODE"), node);
            if (n > 0 && n <= pm->size) pm->local_size = n;
            pm->node_id = node;
        }
        id = getenv("SLURM_LOCALID");
    } else if (local && !tw_pmi_parse_number(local, &n) && n > 0 && n <= pm->size) {
        pm->local_size = n;
    }
    if (id && !tw_pmi_parse_number(id, &n) && n < pm->local_size) pm->local_rank = n;
    return 0;
}

static int pmi1_put(tw_pm_t *pm, const char *key, const char *value) {
    return tw_pmi_put(&pm->pmi1, key, value);
}

static int pmi1_fence(tw_pm_t *pm) {
    return tw_pmi_fence(&pm->pmi1);
}

static int pmi1_get(tw_pm_t *pm, int rank, const char *key, char *value, size_t cap) {
    (void)rank;
    return tw_pmi_get(&pm->pmi1, key, value, cap);
}

static int pmi1_finalize(tw_pm_t *pm) {
    return tw_pmi_finalize(&pm->pmi1);
}

static int pmi1_appnum(tw_pm_t *pm) {
    return tw_pmi_appnum(&pm->pmi1);
}

static int pmi1_universe_size(tw_pm_t *pm) {
    return tw_pmi_universe_size(&pm->pmi1);
}

static int pmi1_spawn(tw_pm_t *pm, const char *port, const char *spec, const char *job, int *base,
                      int *size, char *why, size_t cap, int *failed) {
    return job ? tw_pmi_spawn_other(&pm->pmi1, port, spec, job, base, size, why, cap, failed)
               : tw_pmi_spawn(&pm->pmi1, port, spec, base, size, why, cap, failed);
}

static void pmi1_abort(tw_pm_t *pm, int code, const char *msg) {
    tw_pmi_abort(&pm->pmi1, code, msg);
}

const tw_pm_ops_t tw_pm_pmi1_ops = {
    .name = "pmi1",
    .init = pmi1_init,
    .put = pmi1_put,
    .fence = pmi1_fence,
    .get = pmi1_get,
    .finalize = pmi1_finalize,
    .appnum = pmi1_appnum,
    .universe_size = pmi1_universe_size,
    .spawn = pmi1_spawn,
    .abort = pmi1_abort,
};
