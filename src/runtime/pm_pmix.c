/* PMIx client (libpmix): srun --mpi=pmix, Open MPI's mpirun, prterun. Keys are put
 * under the putting process's name, so a get names the rank that put it. */
#include "runtime/pm.h"

#include "build_info.h"

#if TW_HAVE_PMIX

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;

/* A number the server holds for the job (rank: PMIX_RANK_WILDCARD) or for one process:
 * 0 and *out, or -1 when it holds none that fits an int. */
static int get_number(pmix_rank_t rank, const char *key, int *out) {
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    if (PMIx_Get(&p, key, NULL, 0, &v) != PMIX_SUCCESS || !v) return -1;
    long long n = -1;
    switch (v->type) {
    case PMIX_UINT16:
        n = v->data.uint16;
        break;
    case PMIX_UINT32:
        n = v->data.uint32;
        break;
    case PMIX_INT:
        n = v->data.integer;
        break;
    case PMIX_UINT:
        n = v->data.uint;
        break;
    case PMIX_INT32:
        n = v->data.int32;
        break;
    case PMIX_PROC_RANK:
        n = v->data.rank;
        break;
    default:
        break;
    }
    PMIX_VALUE_RELEASE(v);
    if (n < 0 || n > (1 << 30)) return -1;
    *out = (int)n;
    return 0;
}

/* PMIx_Init fails at once when nothing listens at the server's address, but waits for
 * ever on a socket whose other end never answers (an address left over from another
 * job, now another program's): a watchdog ends that wait with the reason. */
enum { PMIX_INIT_SECONDS = 60 };
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t init_cond = PTHREAD_COND_INITIALIZER;
static int init_over;

static void *init_watchdog(void *arg) {
    (void)arg;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += PMIX_INIT_SECONDS;
    pthread_mutex_lock(&init_lock);
    int rc = 0;
    while (!init_over && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&init_cond, &init_lock, &until);
    if (!init_over) {
        const char *ns = getenv("PMIX_NAMESPACE");
        fprintf(stderr,
                "tollway: started by a PMIx process manager (%s%s), but its server has not "
                "answered PMIx_Init in %d s; are PMIX_* variables left over from another job?\n",
                ns ? "PMIX_NAMESPACE=" : "PMIX_SERVER_URI* set", ns ? ns : "",
                (int)PMIX_INIT_SECONDS);
        _exit(1);
    }
    pthread_mutex_unlock(&init_lock);
    return NULL;
}

static pmix_status_t init_bounded(void) {
    pthread_t watchdog;
    init_over = 0;
    int watched = pthread_create(&watchdog, NULL, init_watchdog, NULL) == 0;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    pthread_mutex_lock(&init_lock);
    init_over = 1;
    pthread_cond_signal(&init_cond);
    pthread_mutex_unlock(&init_lock);
    if (watched) pthread_join(watchdog, NULL);
    return rc;
}

static int pmix_init(tw_pm_t *pm, char *err, size_t errlen) {
    pmix_status_t rc = init_bounded();
    if (rc != PMIX_SUCCESS) {
        const char *ns = getenv("PMIX_NAMESPACE");
        snprintf(err, errlen,
                 "tollway: started by a PMIx process manager (%s%s), but its server cannot be "
                 "reached (PMIx_Init: %s); has the launcher gone, or are PMIX_* variables left "
                 "over from another job?",
                 ns ? "PMIX_NAMESPACE=" : "PMIX_SERVER_URI* set", ns ? ns : "",
                 PMIx_Error_string(rc));
        return -1;
    }
    pm->pmix = &me;
    int size;
    if (get_number(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &size) || size < 1 ||
        me.rank >= (pmix_rank_t)size) {
        snprintf(err, errlen, "tollway: the PMIx server gives no valid job size for rank %u",
                 (unsigned)me.rank);
        PMIx_Finalize(NULL, 0);
        pm->pmix = NULL;
        return -1;
    }
    pm->rank = (int)me.rank;
    pm->size = size;
    snprintf(pm->name, sizeof pm->name, "%s", me.nspace);
    int n;
    if (!get_number(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, &n) && n > 0 && n <= size)
        pm->local_size = n;
    if (!get_number(me.rank, PMIX_LOCAL_RANK, &n) && n < pm->local_size) pm->local_rank = n;
    if (!get_number(me.rank, PMIX_NODEID, &n)) pm->node_id = n;
    return 0;
}

static int pmix_put(tw_pm_t *pm, const char *key, const char *value) {
    if (!pm->pmix || !tw_pmi_token_ok(key, TW_PMI_KEY_MAX, 1) ||
        !tw_pmi_token_ok(value, TW_PMI_VALUE_MAX, 0))
        return -1;
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_STRING;
    v.data.string = (char *)value; /* PMIx_Put copies it */
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "tollway: PMIx_Put(%s): %s\n", key, PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

/* A non-blocking call's completion, which PMIx reports on its own thread. */
typedef struct {
    atomic_int state; /* 0: running, 1: done, -1: failed */
    pmix_status_t status;
} pmix_wait_t;

static void op_done(pmix_status_t status, void *cbdata) {
    pmix_wait_t *w = cbdata;
    w->status = status;
    atomic_store(&w->state, status == PMIX_SUCCESS ? 1 : -1);
}

/* Waits for w after the call that started it returned rc, calling waiting meanwhile (the
 * udp link needs it). 0, or -1 with the status in w. */
static int wait_for(tw_pm_t *pm, pmix_wait_t *w, pmix_status_t rc) {
    if (rc == PMIX_OPERATION_SUCCEEDED) return 0; /* done at once: no callback comes */
    if (rc != PMIX_SUCCESS) {                     /* refused: no callback comes */
        w->status = rc;
        return -1;
    }
    while (atomic_load(&w->state) == 0) {
        if (pm->waiting) pm->waiting(pm->waiting_ctx);
        poll(NULL, 0, 1);
    }
    return atomic_load(&w->state) > 0 ? 0 : -1;
}

/* Commits the puts and waits for the job's fence, collecting everyone's data. */
static int pmix_fence(tw_pm_t *pm) {
    if (!pm->pmix) return -1;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "tollway: PMIx_Commit: %s\n", PMIx_Error_string(rc));
        return -1;
    }
    pmix_wait_t w = {0, PMIX_SUCCESS};
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    int failed = wait_for(pm, &w, PMIx_Fence_nb(NULL, 0, &info, 1, op_done, &w));
    PMIX_INFO_DESTRUCT(&info);
    if (failed) fprintf(stderr, "tollway: PMIx_Fence: %s\n", PMIx_Error_string(w.status));
    return failed ? -1 : 0;
}

/* Keys for the whole job that its spawner set (tw.spawn, tw.parent) come as environment
 * variables given to the children with PMIx_Spawn: TOLLWAY_PMIX_ and the key with its
 * dots as underscores. Not TW_*, which the settings table keeps for settings. */
static int job_key_variable(const char *key, char *name, size_t cap) {
    int n = snprintf(name, cap, "TOLLWAY_PMIX_%s", key);
    if (n < 0 || (size_t)n >= cap) return -1;
    for (char *c = name; *c; c++)
        if (*c == '.') *c = '_';
    return 0;
}

static int pmix_get(tw_pm_t *pm, int rank, const char *key, char *value, size_t cap) {
    if (!pm->pmix || !tw_pmi_token_ok(key, TW_PMI_KEY_MAX, 1)) return -1;
    if (rank == TW_PM_ANY_RANK) {
        char name[TW_PMI_KEY_MAX + 16];
        const char *v = job_key_variable(key, name, sizeof name) ? NULL : getenv(name);
        if (!v || strlen(v) >= cap) return -1;
        strcpy(value, v);
        return 0;
    }
    if (rank < 0 || rank >= pm->size) return -1;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, (pmix_rank_t)rank);
    /* every get follows the fence that collected the key: one not there now never will
     * be, and asking the host for it would wait for ever */
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS || !v) return -1;
    int ok = v->type == PMIX_STRING && v->data.string && strlen(v->data.string) < cap;
    if (ok) strcpy(value, v->data.string);
    PMIX_VALUE_RELEASE(v);
    return ok ? 0 : -1;
}

static int pmix_finalize(tw_pm_t *pm) {
    if (!pm->pmix) return 0;
    pm->pmix = NULL;
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

static int pmix_appnum(tw_pm_t *pm) {
    int n;
    return pm->pmix && !get_number(me.rank, PMIX_APPNUM, &n) ? n : 0;
}

static int pmix_universe_size(tw_pm_t *pm) {
    int n;
    return pm->pmix && !get_number(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, &n) && n > 0 ? n : 0;
}

static void spawn_done(pmix_status_t status, char nspace[], void *cbdata) {
    (void)nspace;
    op_done(status, cbdata);
}

/* PMIx_Spawn of the commands, one app each; the children learn their first id, the
 * parents' job id, key and secret (tw.spawn) and the port (tw.parent) from their
 * environment. Waits as the fence does, the udp link kept going. */
static int pmix_spawn(tw_pm_t *pm, const char *port, const char *spec, const char *job, int *base,
                      int *size, char *why, size_t cap, int *failed) {
    *failed = -1;
    snprintf(why, cap, "no_process_manager");
    if (!pm->pmix || !job) return -1;
    snprintf(why, cap, "malformed_request");
    tw_pmi_spawn_t *sp = malloc(sizeof *sp);
    pmix_app_t *apps = calloc(TW_PMI_SPAWN_CMDS_MAX, sizeof *apps);
    char *env[2] = {NULL, NULL};
    int rc = -1;
    if (!sp || !apps || tw_pmi_spawn_decode(sp, port, spec)) goto out;
    for (int k = 0; k < sp->ncmds; k++)
        if (!tw_pmi_spawn_can_execute(sp->cmd[k].argv[0], sp->cmd[k].wdir)) {
            snprintf(why, cap, "no_such_command");
            *failed = k;
            goto out;
        }
    if (asprintf(&env[0], "TOLLWAY_PMIX_tw_spawn=%d.%s", *base, job) < 0) {
        env[0] = NULL; /* undefined after a failure */
        goto out;
    }
    if (asprintf(&env[1], "TOLLWAY_PMIX_tw_parent=%s", sp->port) < 0) {
        env[1] = NULL;
        goto out;
    }
    char *envp[3] = {env[0], env[1], NULL};
    for (int k = 0; k < sp->ncmds; k++) { /* pointers into sp and envp: nothing to free */
        apps[k].cmd = (char *)sp->cmd[k].argv[0];
        apps[k].argv = (char **)sp->cmd[k].argv;
        apps[k].env = envp;
        apps[k].cwd = (char *)sp->cmd[k].wdir;
        apps[k].maxprocs = sp->cmd[k].maxprocs;
    }
    pmix_wait_t w = {0, PMIX_SUCCESS};
    if (wait_for(pm, &w, PMIx_Spawn_nb(NULL, 0, apps, (size_t)sp->ncmds, spawn_done, &w))) {
        snprintf(why, cap, "PMIx_Spawn: %s", PMIx_Error_string(w.status));
        goto out;
    }
    *size = sp->total;
    rc = 0;
out:
    free(env[0]);
    free(env[1]);
    free(apps);
    free(sp);
    return rc;
}

static void pmix_abort(tw_pm_t *pm, int code, const char *msg) {
    if (msg) fprintf(stderr, "%s\n", msg); /* before the manager ends us */
    if (pm->pmix) PMIx_Abort(code ? code : 1, msg ? msg : "MPI_Abort", NULL, 0);
    _exit(code ? code : 1);
}

const tw_pm_ops_t tw_pm_pmix_ops = {
    .name = "pmix",
    .init = pmix_init,
    .put = pmix_put,
    .fence = pmix_fence,
    .get = pmix_get,
    .finalize = pmix_finalize,
    .appnum = pmix_appnum,
    .universe_size = pmix_universe_size,
    .spawn = pmix_spawn,
    .abort = pmix_abort,
};

#endif
