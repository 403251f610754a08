/* A process started on its own: a job of one rank, its key-value store kept here. */
#include "runtime/pm.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int singleton_init(tw_pm_t *pm, char *err, size_t errlen) {
    (void)err;
    (void)errlen;
    pm->rank = 0;
    pm->size = 1;
    pm->local_rank = pm->node_id = 0;
    pm->local_size = 1;
    snprintf(pm->name, sizeof pm->name, "singleton-%ld", (long)getpid());
    return 0;
}

static int singleton_put(tw_pm_t *pm, const char *key, const char *value) {
    if (!tw_pmi_token_ok(key, TW_PMI_KEY_MAX, 1) || !tw_pmi_token_ok(value, TW_PMI_VALUE_MAX, 0))
        return -1;
    if (pm->nkeys == TW_PM_SINGLETON_KEYS) return -1;
    strcpy(pm->keys[pm->nkeys], key);
    strcpy(pm->values[pm->nkeys], value);
    pm->nkeys++;
    return 0;
}

static int singleton_fence(tw_pm_t *pm) {
    (void)pm;
    return 0;
}

static int singleton_get(tw_pm_t *pm, int rank, const char *key, char *value, size_t cap) {
    (void)rank;
    for (int i = pm->nkeys - 1; i >= 0; i--) /* the latest put of a key wins */
        if (strcmp(pm->keys[i], key) == 0) {
            if (strlen(pm->values[i]) >= cap) return -1;
            strcpy(value, pm->values[i]);
            return 0;
        }
    return -1;
}

static int singleton_finalize(tw_pm_t *pm) {
    (void)pm;
    return 0;
}

static int singleton_appnum(tw_pm_t *pm) {
    (void)pm;
    return 0;
}

static int singleton_universe_size(tw_pm_t *pm) {
    (void)pm;
    return 0; /* none: the job of one */
}

static int singleton_spawn(tw_pm_t *pm, const char *port, const char *spec, const char *job,
                           int *base, int *size, char *why, size_t cap, int *failed) {
    (void)pm, (void)port, (void)spec, (void)job, (void)base, (void)size;
    *failed = -1;
    snprintf(why, cap, "no process manager (run it under twrun or mpiexec)");
    return -1;
}

static void singleton_abort(tw_pm_t *pm, int code, const char *msg) {
    (void)pm;
    if (msg) fprintf(stderr, "%s\n", msg);
    _exit(code ? code : 1);
}

const tw_pm_ops_t tw_pm_singleton_ops = {
    .name = "singleton",
    .init = singleton_init,
    .put = singleton_put,
    .fence = singleton_fence,
    .get = singleton_get,
    .finalize = singleton_finalize,
    .appnum = singleton_appnum,
    .universe_size = singleton_universe_size,
    .spawn = singleton_spawn,
    .abort = singleton_abort,
};
