/* The process manager: what started this process and tells it its rank, size and
 * peers. One table of operations with three implementations: PMI-1 over PMI_FD (twrun,
 * MPICH's Hydra, Slurm's srun --mpi=pmi2), PMIx (srun --mpi=pmix, Open MPI's mpirun,
 * prterun), and the singleton (started on its own: a job of one with a local store).
 * Which one is chosen from the environment (tw_pm_choose); a process whose manager
 * is there but cannot be reached stops with the reason instead of running alone. */
#ifndef TW_PM_H
#define TW_PM_H

#include <pthread.h>
#include <stddef.h>

#include "runtime/pmi.h"

enum tw_pm_kind {
    TW_PM_REFUSED = -1, /* started by a manager it cannot talk to */
    TW_PM_SINGLETON = 0,
    TW_PM_PMI1 = 1,
    TW_PM_PMIX = 2,
};

enum {
    TW_PM_ANY_RANK = -1, /* get: a key the manager put for the job, not a rank */
    TW_PM_SINGLETON_KEYS = 64,
    TW_PM_NAME_MAX = 256,
};

typedef struct tw_pm tw_pm_t;

typedef struct tw_pm_ops {
    const char *name; /* "pmi1", "pmix", "singleton" */
    int (*init)(tw_pm_t *pm, char *err, size_t errlen);
    int (*put)(tw_pm_t *pm, const char *key, const char *value);
    int (*fence)(tw_pm_t *pm);
    int (*get)(tw_pm_t *pm, int rank, const char *key, char *value, size_t cap);
    int (*finalize)(tw_pm_t *pm);
    int (*appnum)(tw_pm_t *pm);
    int (*universe_size)(tw_pm_t *pm);
    int (*spawn)(tw_pm_t *pm, const char *port, const char *spec, const char *job, int *base,
                 int *size, char *why, size_t cap, int *failed);
    void (*abort)(tw_pm_t *pm, int code, const char *msg);
} tw_pm_ops_t;

struct tw_pm {
    const tw_pm_ops_t *ops;
    enum tw_pm_kind kind;
    int rank, size;
    int local_rank, local_size; /* on this node; -1: the manager does not say */
    int node_id;                /* -1: the manager does not say */
    char name[TW_PM_NAME_MAX];  /* the job's name there (kvsname, namespace): the same on
                                   every rank, different for every job */
    /* Called about every millisecond while a reply or a fence is awaited, so that what
     * must go on meanwhile does (the udp link acknowledges and retransmits); NULL: none. */
    void (*waiting)(void *ctx);
    void *waiting_ctx;
    /* One exchange with the manager at a time: threads of an MPI process on different
     * channels map their peers (a get each) at once. */
    pthread_mutex_t lock;
    tw_pmi_t pmi1; /* TW_PM_PMI1 */
    void *pmix;    /* TW_PM_PMIX: its state (pm_pmix.c) */
    int nkeys;     /* TW_PM_SINGLETON: the local store */
    char keys[TW_PM_SINGLETON_KEYS][TW_PMI_KEY_MAX];
    char values[TW_PM_SINGLETON_KEYS][TW_PMI_VALUE_MAX];
};

/* Chooses the process manager from the environment and connects to it. 0, or -1 with
 * the reason in err (which names the fix when the manager is one it cannot reach). */
int tw_pm_init(tw_pm_t *pm, char *err, size_t errlen);
void tw_pm_set_waiting(tw_pm_t *pm, void (*waiting)(void *ctx), void *ctx);

/* All return 0 on success, -1 with the reason on stderr. */
static inline int tw_pm_put(tw_pm_t *pm, const char *key, const char *value) {
    pthread_mutex_lock(&pm->lock);
    int rc = pm->ops->put(pm, key, value);
    pthread_mutex_unlock(&pm->lock);
    return rc;
}
/* A barrier of the job: puts before it are visible to gets after it on every rank. */
static inline int tw_pm_fence(tw_pm_t *pm) {
    pthread_mutex_lock(&pm->lock);
    int rc = pm->ops->fence(pm);
    pthread_mutex_unlock(&pm->lock);
    return rc;
}
/* The value rank put under key. TW_PM_ANY_RANK: one the job's spawner gave it (PMI-1:
 * preput in its key-value space; PMIx: in its environment, pm_pmix.c). */
static inline int tw_pm_get(tw_pm_t *pm, int rank, const char *key, char *value, size_t cap) {
    pthread_mutex_lock(&pm->lock);
    int rc = pm->ops->get(pm, rank, key, value, cap);
    pthread_mutex_unlock(&pm->lock);
    return rc;
}
static inline int tw_pm_finalize(tw_pm_t *pm) {
    return pm->ops->finalize(pm);
}
/* The appnum the process manager gives this process (0 when it gives none). */
static inline int tw_pm_appnum(tw_pm_t *pm) {
    return pm->ops->appnum(pm);
}
/* The processes the process manager has room for (PMI-1's get_universe_size, PMIx's
 * PMIX_UNIV_SIZE), or 0 when it says none. Asks it each time. */
static inline int tw_pm_universe_size(tw_pm_t *pm) {
    return pm->ops->universe_size(pm);
}
/* A new job (MPI_Comm_spawn). twrun numbers its ids itself (job: NULL); a manager that
 * does not (Hydra) gets job, "<job id>.<key>.<secret>", and the first id in *base.
 * 0 with *base and *size, or -1 with the reason in why and the index of the command
 * refused in *failed (-1: none in particular). */
static inline int tw_pm_spawn(tw_pm_t *pm, const char *port, const char *spec, const char *job,
                              int *base, int *size, char *why, size_t cap, int *failed) {
    return pm->ops->spawn(pm, port, spec, job, base, size, why, cap, failed);
}
/* Prints msg, asks the manager to end the whole job with code, and exits. */
static inline void tw_pm_abort(tw_pm_t *pm, int code, const char *msg) {
    pm->ops->abort(pm, code, msg);
}
/* Whether the process manager is twrun, which numbers the ids of spawned jobs. */
int tw_pm_is_twrun(const tw_pm_t *pm);

/* The choice, without I/O: env looks a variable up (getenv, or a test's table);
 * have_pmix: whether this build has the PMIx client. The kind to use, or
 * TW_PM_REFUSED with the reason (naming the fix) in why. */
typedef const char *(*tw_pm_env_fn)(const char *name, void *ctx);
enum tw_pm_kind tw_pm_choose(tw_pm_env_fn env, void *ctx, int have_pmix, char *why, size_t cap);

/* The size of the job this process was started in, read from what its launcher set
 * (PMI_SIZE beside PMI_FD, a Slurm step's task count, OMPI_COMM_WORLD_SIZE; 1 when
 * started alone), without reaching the manager: what MPI_Info_create_env reports
 * before MPI_Init; have_pmix as tw_pm_choose has it, so that both read one
 * environment alike. 0 when the environment does not say. */
int tw_pm_launch_size(tw_pm_env_fn env, void *ctx, int have_pmix);

/* The tasks on node node_id by Slurm's SLURM_STEP_TASKS_PER_NODE ("2(x3),1": 2 on
 * each of nodes 0-2, 1 on node 3), or -1 when the list is malformed or too short. */
int tw_pm_slurm_tasks_on_node(const char *tasks_per_node, int node_id);

/* The implementations (pm_pmi1.c, pm_pmix.c, pm_singleton.c). */
extern const tw_pm_ops_t tw_pm_pmi1_ops, tw_pm_pmix_ops, tw_pm_singleton_ops;

#endif
