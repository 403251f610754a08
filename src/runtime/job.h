/* The job this process belongs to: rank, size, job id and key, the key-value
 * exchange. Set up on first use, shared by every endpoint of the process. */
#ifndef TW_JOB_H
#define TW_JOB_H

#include <stdint.h>

#include "runtime/settings.h"
#include "runtime/pm.h"

enum { TW_JOB_SECRET_SIZE = 16 };

typedef struct tw_job {
    int rank, size;   /* in this job, as the process manager numbers it */
    int base;         /* ids of this job's endpoints start here: jobs that twrun spawns
                         later take the ids after those of the jobs before them */
    int local_size;   /* ranks on this node */
    int local_known;  /* local_size is the launcher's word (twrun, Hydra, PMIx), not assumed */
    int cores;        /* CPUs the ranks of this node may run on (node_cores) */
    char job_id[33];  /* hex; names the job's shared-memory objects */
    uint64_t job_key; /* random; stamped in every mailbox and checked by peers */
    unsigned char secret[TW_JOB_SECRET_SIZE]; /* random; keys the udp link's packet MACs,
                                                 never sent on the network */
    char node[64];                            /* this node's name */
    const tw_config_t *config;
    tw_pm_t pm;     /* the process manager that started it */
    int spawned;    /* started by another process manager's spawn (tw.spawn in its store) */
    int users;      /* open endpoints, and keeps (tw_ep_keep_job) */
    int next_index; /* index of the next endpoint this process opens */
    int shm_hold;   /* the lock that keeps the node's watcher off the job's shared memory
                       (link/shm/watch.h), -1 until the first endpoint takes it; closed
                       when the last user detaches */
} tw_job_t;

/* Joins the job (first call) and counts one more user. 0, or a tw_status error
 * with the reason printed on stderr. */
int tw_job_attach(tw_job_t **job);
/* One user fewer; the last one finalises with the process manager. */
void tw_job_detach(tw_job_t *job);

/* The job key as rank 0 hands it to the others through the key-value store: 16
 * lowercase hex digits. 0, or -1 for anything else. */
int tw_job_key_parse(const char *s, uint64_t *key);
/* The job secret so (TW_JOB_SECRET, or from rank 0): 32 lowercase hex digits, byte by
 * byte. 0, or -1 for anything else. */
int tw_job_secret_parse(const char *s, unsigned char secret[TW_JOB_SECRET_SIZE]);

#endif
