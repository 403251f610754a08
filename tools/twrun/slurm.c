/* Inside a Slurm allocation twrun hands the job to srun, as Hydra's slurm bootstrap and
 * Open MPI's mpirun do: the allocation's nodes need not include the one salloc's shell
 * runs on, and srun places the ranks on them. Here: whether to, the allocation's task
 * count, and the srun command line; twrun.c runs it. No I/O: the environment is given. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

const char *twr_env_get(char *const *envp, const char *name) {
    size_t n = strlen(name);
    for (char *const *e = envp; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=') return *e + n + 1;
    return NULL;
}

/* A whole positive number, at most INT_MAX. */
static int count_of(const char *s, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > INT_MAX) return -1;
    *out = v;
    return 0;
}

/* SLURM_TASKS_PER_NODE: "2(x3),1" is 2 on each of 3 nodes, then 1: 7 in all. */
static int tasks_per_node_sum(const char *s, long *out) {
    long sum = 0;
    for (const char *p = s;;) {
        char *end;
        errno = 0;
        long per = strtol(p, &end, 10), times = 1;
        if (errno || end == p || per < 0 || per > INT_MAX) return -1;
        p = end;
        if (!strncmp(p, "(x", 2)) {
            times = strtol(p + 2, &end, 10);
            if (errno || end == p + 2 || *end != ')' || times < 1 || times > INT_MAX) return -1;
            p = end + 1;
        }
        if (per > (INT_MAX - sum) / times) return -1;
        sum += per * times;
        if (!*p) break;
        if (*p++ != ',') return -1;
    }
    if (sum < 1) return -1;
    *out = sum;
    return 0;
}

/* The tasks the allocation holds, from the first variable Slurm set of those that say
 * it: the task count (salloc -n), else the tasks per node added up, else a task per
 * node (salloc -N alone). */
static int allocation_tasks(twr_allocation_t *a, char *const *envp, char *err) {
    static const char *const vars[] = {"SLURM_NTASKS", "SLURM_NPROCS", "SLURM_TASKS_PER_NODE",
                                       "SLURM_JOB_NUM_NODES", "SLURM_NNODES"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = twr_env_get(envp, vars[i]);
        if (!v) continue;
        long n;
        int per_node = !strcmp(vars[i], "SLURM_TASKS_PER_NODE");
        if (per_node ? tasks_per_node_sum(v, &n) : count_of(v, &n))
            return twr_error(err, "inside Slurm job %s, %s='%s' is not a %s", a->job_id, vars[i], v,
                             per_node ? "list of tasks per node (such as 2(x3),1)"
                                      : "positive number");
        a->tasks = (int)n;
        snprintf(a->tasks_from, sizeof a->tasks_from, "%s=%.*s", vars[i], 40, v);
        return 0;
    }
    return twr_error(err,
                     "inside Slurm job %s, but Slurm set none of SLURM_NTASKS, SLURM_NPROCS, "
                     "SLURM_TASKS_PER_NODE, SLURM_JOB_NUM_NODES: the allocation's size is unknown; "
                     "give -n N",
                     a->job_id);
}

/* How to go back to starting the ranks here, for the messages. */
static const char fork_hint[] =
    "give -launcher fork (or set TW_LAUNCHER=fork) to run the job on this machine instead";

int twr_launch_decide(twr_options_t *o, char *const *envp, char err[TWR_ERR_MAX]) {
    twr_allocation_t *a = &o->alloc;
    memset(a, 0, sizeof *a);
    const char *job = twr_env_get(envp, "SLURM_JOB_ID");
    a->job_id = job && *job ? job : NULL;
    a->step_id = twr_env_get(envp, "SLURM_STEP_ID");
    o->launch = TWR_LAUNCH_HERE;
    if (!o->launcher_source) { /* no option: the setting */
        const char *v = twr_env_get(envp, "TW_LAUNCHER");
        const tw_setting_info_t *in = tw_setting_info(TW_SETTING_LAUNCHER);
        if (v) {
            size_t k = 0;
            while (k < in->nchoices && strcmp(v, in->choices[k])) k++;
            if (k == in->nchoices)
                return twr_error(err, "TW_LAUNCHER must be auto, fork or slurm, not '%s'", v);
            o->launcher = (tw_launcher_choice_t)k;
            if (o->launcher != TW_LAUNCHER_AUTO) o->launcher_source = "TW_LAUNCHER";
        }
    }
    switch (o->launcher) {
    case TW_LAUNCHER_FORK:
        return 0;
    case TW_LAUNCHER_SLURM:
        if (!a->job_id)
            return twr_error(err,
                             "%s slurm: not inside a Slurm allocation (SLURM_JOB_ID is not set); "
                             "run twrun under salloc or sbatch, or start the job with srun",
                             o->launcher_source);
        break;
    case TW_LAUNCHER_AUTO:
        /* in a step, srun started twrun: the ranks are twrun's (no srun within srun) */
        if (!a->job_id || a->step_id) return 0;
        break;
    }
    o->launch = TWR_LAUNCH_SRUN;
    if (o->nsegments > 1)
        return twr_error(err,
                         "inside Slurm job %s twrun hands the job to srun, which takes several "
                         "programs (':') only from a file (srun --multi-prog); run that yourself, "
                         "or %s",
                         a->job_id, fork_hint);
    if (o->not_for_srun[0])
        return twr_error(err,
                         "inside Slurm job %s twrun hands the job to srun, which has no "
                         "equivalent of '%s'; leave it out (the allocation decides where the "
                         "ranks run), or %s",
                         a->job_id, o->not_for_srun, fork_hint);
    if (allocation_tasks(a, envp, err)) return -1;
    twr_segment_t *s = &o->segments[0];
    if (s->nranks == 0) {
        if (a->tasks > TWR_MAX_RANKS)
            return twr_error(err,
                             "Slurm job %s holds %d tasks (%s), more than twrun's %d ranks; give "
                             "-n N",
                             a->job_id, a->tasks, a->tasks_from, TWR_MAX_RANKS);
        s->nranks = a->tasks;
    } else if (s->nranks > a->tasks && !o->oversubscribe) {
        return twr_error(err,
                         "not enough slots: %d ranks asked for (-n %d), but Slurm job %s holds %d "
                         "task%s (%s); ask salloc or sbatch for more, give --oversubscribe to run "
                         "them on its CPUs anyway (srun --overcommit), or %s",
                         s->nranks, s->nranks, a->job_id, a->tasks, a->tasks == 1 ? "" : "s",
                         a->tasks_from, fork_hint);
    }
    return 0;
}

const char *twr_srun_mpi(const char *mpi_list, int have_pmix) {
    int pmix = 0, pmi2 = 0;
    /* whole words: "pmix_v4" is a version of pmix, listed besides "pmix" */
    for (const char *p = mpi_list ? mpi_list : ""; *p;) {
        size_t skip = strspn(p, " \t\r\n:,"), n;
        p += skip;
        n = strcspn(p, " \t\r\n:,");
        pmix |= n == 4 && !strncmp(p, "pmix", 4);
        pmi2 |= n == 4 && !strncmp(p, "pmi2", 4);
        p += n;
    }
    if (pmix && have_pmix) return "pmix";
    return pmi2 ? "pmi2" : NULL;
}

static int push(twr_srun_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int push(twr_srun_t *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *word = NULL;
    int rc = vasprintf(&word, fmt, ap);
    va_end(ap);
    if (rc < 0) return -1;
    c->argv[c->argc++] = word;
    return 0;
}

/* Names joined by ',' for srun's --export (appended to *list, which grows). */
static int add_name(char **list, size_t *len, const char *name) {
    size_t n = strlen(name);
    char *more = realloc(*list, *len + n + 2);
    if (!more) return -1;
    *list = more;
    if (*len) more[(*len)++] = ',';
    memcpy(more + *len, name, n + 1);
    *len += n;
    return 0;
}

int twr_srun_command(const twr_options_t *o, const char *mpi, twr_srun_t *c,
                     char err[TWR_ERR_MAX]) {
    memset(c, 0, sizeof *c);
    const twr_segment_t *s = &o->segments[0];
    const twr_env_t *own = s->env.policy != TWR_ENV_UNSET ? &s->env : &o->genv;
    const twr_env_t *sets[2] = {&o->genv, &s->env};
    int nprog = 0;
    while (s->argv[nprog]) nprog++;
    c->argv = calloc((size_t)nprog + 16, sizeof *c->argv);
    c->set = calloc((size_t)(o->genv.nvars + s->env.nvars) + 1, sizeof *c->set);
    if (!c->argv || !c->set) return twr_error(err, "out of memory");
    /* The variables the options set go into srun's own environment, which it passes
     * on: --export=VAR=VALUE would cut a value at its first ','. */
    size_t len = 0;
    if (own->policy == TWR_ENV_LIST)
        for (int i = 0; i < own->nlist; i++)
            if (add_name(&c->export_list, &len, own->list[i]))
                return twr_error(err, "out of memory");
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < sets[k]->nvars; i++) {
            const twr_env_var_t *v = &sets[k]->vars[i];
            if (strchr(v->name, ','))
                return twr_error(err,
                                 "'%s' cannot be passed through srun, whose --export takes "
                                 "names separated by ','",
                                 v->name);
            if (v->value) c->set[c->nset++] = *v;
            if (own->policy != TWR_ENV_ALL && add_name(&c->export_list, &len, v->name))
                return twr_error(err, "out of memory");
        }
    if (own->policy == TWR_ENV_ALL) {
        free(c->export_list);
        c->export_list = strdup("ALL");
    } else if (!c->export_list) {
        c->export_list = strdup("NONE");
    }
    if (!c->export_list) return twr_error(err, "out of memory");
    int bad = push(c, "srun") || push(c, "--mpi=%s", mpi) || push(c, "-n") ||
              push(c, "%d", s->nranks) || push(c, "--export=%s", c->export_list) ||
              /* twrun ends the whole job when a rank fails; so does srun with this */
              push(c, "--kill-on-bad-exit=1");
    if (!bad && o->oversubscribe) bad = push(c, "--overcommit");
    if (!bad && o->ppn) bad = push(c, "--ntasks-per-node=%d", o->ppn);
    if (!bad && o->map_by_node) bad = push(c, "--distribution=cyclic");
    if (!bad && (o->bind_given || o->report_bindings)) {
        const char *how = !o->bind_given                 ? ""
                          : o->bind == TWR_BIND_NONE     ? "none"
                          : o->bind == TWR_BIND_HWTHREAD ? "threads"
                                                         : "cores";
        bad = push(c, "--cpu-bind=%s%s%s", o->report_bindings ? "verbose" : "",
                   o->report_bindings && *how ? "," : "", how);
    }
    if (!bad && o->tag_output) bad = push(c, "--label");
    if (!bad && s->wdir) bad = push(c, "--chdir=%s", s->wdir);
    if (!bad && s->argv[0][0] == '-') bad = push(c, "--");
    for (int i = 0; !bad && i < nprog; i++) bad = push(c, "%s", s->argv[i]);
    if (bad) return twr_error(err, "out of memory");
    return 0;
}

void twr_srun_free(twr_srun_t *c) {
    for (int i = 0; c->argv && i < c->argc; i++) free(c->argv[i]);
    free(c->argv);
    free(c->set);
    free(c->export_list);
    memset(c, 0, sizeof *c);
}
