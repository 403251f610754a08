#include "runtime/job.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tollway/settings.h>
#include <tollway/status.h>

static tw_job_t the_job;
static int joined;

static int random_bytes(void *out, size_t n) {
    return getrandom(out, n, 0) == (ssize_t)n ? 0 : -1; /* up to 256 bytes come whole */
}

static int random_u64(uint64_t *out) {
    return random_bytes(out, sizeof *out);
}

/* A job id for processes not started by twrun: under another process manager it
 * is derived from the kvsname (the same on every rank), alone it is random. */
static void derive_job_id(tw_job_t *job) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    if (job->pm.kind != TW_PM_SINGLETON) {
        for (const char *p = job->pm.name; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    } else if (random_u64(&h)) {
        h ^= (uint64_t)getpid() << 20;
    }
    snprintf(job->job_id, sizeof job->job_id, "%016llx", (unsigned long long)h);
}

int tw_job_key_parse(const char *s, uint64_t *key) {
    /* exactly what rank 0 writes: anything else would become another key in silence */
    if (strlen(s) != 16 || strspn(s, "0123456789abcdef") != 16) return -1;
    *key = strtoull(s, NULL, 16);
    return 0;
}

int tw_job_secret_parse(const char *s, unsigned char secret[TW_JOB_SECRET_SIZE]) {
    if (strlen(s) != 2 * TW_JOB_SECRET_SIZE ||
        strspn(s, "0123456789abcdef") != 2 * TW_JOB_SECRET_SIZE)
        return -1;
    for (int i = 0; i < TW_JOB_SECRET_SIZE; i++) {
        char byte[3] = {s[2 * i], s[2 * i + 1], '\0'};
        secret[i] = (unsigned char)strtoul(byte, NULL, 16);
    }
    return 0;
}

static void secret_hex(const unsigned char secret[TW_JOB_SECRET_SIZE], char *out) {
    for (int i = 0; i < TW_JOB_SECRET_SIZE; i++) sprintf(out + 2 * i, "%02x", secret[i]);
}

/* Without twrun, rank 0 draws what twrun would have (the key, the secret, or both)
 * and hands it to the others through the process manager's key-value store. */
static int agree_job_key(tw_job_t *job, int key, int secret) {
    char value[2 * TW_JOB_SECRET_SIZE + 1];
    if (job->rank == 0) {
        if (key) {
            if (random_u64(&job->job_key)) return -1;
            snprintf(value, sizeof value, "%016llx", (unsigned long long)job->job_key);
            if (tw_pm_put(&job->pm, "tw.jobkey", value)) return -1;
        }
        if (secret) {
            if (random_bytes(job->secret, sizeof job->secret)) return -1;
            secret_hex(job->secret, value);
            if (tw_pm_put(&job->pm, "tw.jobsecret", value)) return -1;
        }
    }
    if (tw_pm_fence(&job->pm)) return -1;
    if (job->rank != 0) {
        if (key && (tw_pm_get(&job->pm, 0, "tw.jobkey", value, sizeof value) ||
                    tw_job_key_parse(value, &job->job_key)))
            return -1;
        if (secret && (tw_pm_get(&job->pm, 0, "tw.jobsecret", value, sizeof value) ||
                       tw_job_secret_parse(value, job->secret)))
            return -1;
    }
    return 0;
}

/* TW_NODE, else the host name and the network namespace: processes in different
 * namespaces of one machine cannot share their loopback sockets, and tests stand
 * namespaces in for hosts. */
static void node_identity(tw_job_t *job) {
    if (job->config->node[0]) {
        snprintf(job->node, sizeof job->node, "%s", job->config->node);
        return;
    }
    char host[40] = "localhost";
    if (gethostname(host, sizeof host - 1)) strcpy(host, "localhost");
    host[sizeof host - 1] = '\0';
    for (char *p = host; *p; p++) /* the address format's separators stay out */
        if (*p == ':' || *p == ' ') *p = '_';
    struct stat st;
    unsigned long long ns = stat("/proc/self/ns/net", &st) == 0 ? (unsigned long long)st.st_ino : 0;
    snprintf(job->node, sizeof job->node, "%s~%llx", host, ns);
}

/* What the launcher told this process about its node must fit the job it joined: a
 * process started by hand with twrun's variables left over, or with made-up ones, is
 * stopped with the reason rather than left to misplace its shared memory. */
static int placement_ok(const tw_job_t *job) {
    const tw_config_t *cfg = job->config;
    if (cfg->local_size > job->size) {
        fprintf(stderr,
                "tollway: TW_LOCAL_SIZE=%d, but the job has %d rank%s: it cannot have more on "
                "one node (twrun sets it for its ranks; unset it)\n",
                cfg->local_size, job->size, job->size == 1 ? "" : "s");
        return 0;
    }
    if (cfg->machine_size > 0 &&
        (cfg->machine_size > job->size || cfg->machine_size < job->local_size)) {
        fprintf(stderr,
                "tollway: TW_MACHINE_SIZE=%d is not between the %d rank%s on this node and the "
                "job's %d (twrun sets it for its ranks in network namespaces; unset it)\n",
                cfg->machine_size, job->local_size, job->local_size == 1 ? "" : "s", job->size);
        return 0;
    }
    if (cfg->local_rank >= 0 && cfg->local_rank >= job->local_size) {
        fprintf(stderr,
                "tollway: TW_LOCAL_RANK=%d is not below the %d rank%s on this node (twrun sets "
                "it for its ranks; unset it)\n",
                cfg->local_rank, job->local_size, job->local_size == 1 ? "" : "s");
        return 0;
    }
    if (tw_setting_is_set(TW_SETTING_BOUND_CORE)) {
        uint64_t core = tw_setting_unsigned(TW_SETTING_BOUND_CORE);
        cpu_set_t mine;
        if (sched_getaffinity(0, sizeof mine, &mine) == 0 &&
            (core >= CPU_SETSIZE || !CPU_ISSET((int)core, &mine))) {
            fprintf(stderr,
                    "tollway: TW_BOUND_CORE=%llu is not a core this process may run on (twrun "
                    "sets it when it binds; unset it)\n",
                    (unsigned long long)core);
            return 0;
        }
    }
    return 1;
}

/* The CPUs the ranks of this node may share. A rank's own affinity mask says little
 * alone: a launcher that binds each rank to a core of its own (twrun, srun
 * --cpu-bind, mpirun --bind-to core) leaves it one CPU, and so does `taskset -c 0
 * mpiexec`, where all ranks share that CPU. The launcher keeps the set it divides, so
 * the answer is the CPUs of this process and of its parent together; a rank twrun
 * bound to a core (TW_BOUND_CORE) has a core of its own by twrun's decision. */
static int node_cores(void) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int cores = online > 0 ? (int)online : 1;
    if (tw_setting_is_set(TW_SETTING_BOUND_CORE)) return cores;
    cpu_set_t mine, parent;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) return cores;
    if (sched_getaffinity(getppid(), sizeof parent, &parent) == 0) CPU_OR(&mine, &mine, &parent);
    int allowed = CPU_COUNT(&mine);
    return allowed > 0 && allowed < cores ? allowed : cores;
}

/* A job that another process manager (Hydra, Slurm, PMIx) spawned for a Tollway job
 * finds in its key-value store tw.spawn = "<base>.<job id>.<job key>.<secret>": 0 when so, with
 * them taken; 1 when not spawned; -1 when the value is malformed. */
static int spawned_by_other(tw_job_t *job) {
    char v[TW_PMI_VALUE_MAX], *save = NULL;
    if (tw_pm_get(&job->pm, TW_PM_ANY_RANK, "tw.spawn", v, sizeof v)) return 1;
    char *b = strtok_r(v, ".", &save), *id = strtok_r(NULL, ".", &save);
    char *key = strtok_r(NULL, ".", &save), *secret = strtok_r(NULL, ".", &save);
    int base;
    if (!b || !id || !key || !secret || tw_pmi_parse_number(b, &base) ||
        base > (1 << 30) - job->size || strlen(id) >= sizeof job->job_id ||
        tw_job_key_parse(key, &job->job_key) || tw_job_secret_parse(secret, job->secret))
        return -1;
    job->base = base;
    strcpy(job->job_id, id);
    job->spawned = 1;
    return 0;
}

int tw_job_attach(tw_job_t **out) {
    tw_job_t *job = &the_job;
    if (!joined) {
        memset(job, 0, sizeof *job);
        job->shm_hold = -1;
        job->config = tw_config();
        if (!job->config) return TW_ERR_CONFIG;
        char err[256];
        if (tw_pm_init(&job->pm, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return TW_ERR_RUNTIME;
        }
        job->rank = job->pm.rank;
        job->size = job->pm.size;
        /* a job twrun spawned: set by twrun, not a setting of the user's */
        const char *base = getenv("TWRUN_UNIVERSE_BASE");
        if (base && (tw_pmi_parse_number(base, &job->base) || job->base > (1 << 30) - job->size)) {
            fprintf(stderr, "tollway: TWRUN_UNIVERSE_BASE is not a valid id\n");
            return TW_ERR_CONFIG;
        }
        if (job->config->job_id[0])
            strcpy(job->job_id, job->config->job_id);
        else
            derive_job_id(job);
        int has_key = job->config->has_job_key, has_secret = job->config->job_secret[0] != '\0';
        if (has_key) job->job_key = job->config->job_key;
        if (has_secret && tw_job_secret_parse(job->config->job_secret, job->secret)) {
            fprintf(stderr, "tollway: TW_JOB_SECRET is not 32 lowercase hex digits\n");
            return TW_ERR_CONFIG;
        }
        if (job->pm.kind != TW_PM_SINGLETON && !tw_pm_is_twrun(&job->pm) && !base) {
            int rc = spawned_by_other(job); /* its parents' id, key and secret, its ids */
            if (rc < 0) {
                fprintf(stderr, "tollway: tw.spawn in the key-value store is malformed\n");
                return TW_ERR_RUNTIME;
            }
            if (rc == 0) has_key = has_secret = 1;
        }
        if ((!has_key || !has_secret) && agree_job_key(job, !has_key, !has_secret)) {
            fprintf(stderr, "tollway: cannot agree on a job key and secret with the other ranks\n");
            return TW_ERR_RUNTIME;
        }
        /* ranks on this node: from twrun, else from the process manager, else all */
        int local = job->pm.local_size;
        job->local_size = job->config->local_size > 0 ? job->config->local_size
                          : local > 0                 ? local
                                                      : job->size;
        job->local_known = job->config->local_size > 0 || local > 0;
        if (!placement_ok(job)) {
            tw_pm_finalize(&job->pm);
            return TW_ERR_CONFIG;
        }
        job->cores = node_cores();
        /* nodes that are network namespaces of one machine share its CPUs: this one
         * counts on its ranks' share of them (twrun's TW_MACHINE_SIZE) */
        int machine = job->config->machine_size; /* placement_ok: local_size to size */
        if (machine > job->local_size) {
            int share = (int)((long long)job->cores * job->local_size / machine);
            job->cores = share > 0 ? share : 1;
        }
        node_identity(job);
        joined = 1;
    }
    job->users++;
    *out = job;
    return TW_OK;
}

void tw_job_detach(tw_job_t *job) {
    if (--job->users == 0) {
        if (job->shm_hold >= 0) close(job->shm_hold); /* every object of ours is gone */
        job->shm_hold = -1;
        tw_pm_finalize(&job->pm);
        joined = 0;
    }
}
