/* Every TW_* environment variable is defined and parsed here, in one place.
 * An invalid value (or an unknown TW_* name, most often a typo) is an error
 * that names the variable; nothing is silently ignored. */
#ifndef TW_CONFIG_H
#define TW_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef enum tw_wait_mode {
    TW_WAIT_AUTO,  /* spin while this node has a core per rank, else yield */
    TW_WAIT_SPIN,  /* always spin */
    TW_WAIT_YIELD, /* yield the core between polls after a short spin */
} tw_wait_mode_t;

typedef enum tw_rma_copy {
    TW_RMA_COPY_AUTO,     /* one process_vm_* copy; pipelined when the kernel refuses it */
    TW_RMA_COPY_CMA,      /* one process_vm_* copy, or a fault when refused */
    TW_RMA_COPY_PIPELINE, /* always pipelined through shared memory, served by the target */
} tw_rma_copy_t;

/* The algorithm of a collective: chosen by size and process count, or forced. */
typedef enum tw_coll_choice { TW_COLL_AUTO, TW_COLL_FIRST, TW_COLL_SECOND } tw_coll_choice_t;

typedef struct tw_config {
    uint32_t velo_slots; /* mailbox slots per endpoint */
    uint32_t nq_slots;   /* notification queue entries per endpoint */
    uint32_t rma_slots;  /* slots of each pipelined-RMA request and response ring */
    uint32_t atu_entries;
    tw_rma_copy_t rma_copy;
    int stats; /* print counters at close */
    tw_wait_mode_t wait;
    uint32_t eager_limit; /* MPI: largest message sent eagerly */
    uint64_t rndv_split;  /* MPI: smallest message copied by both sides; 0: none */
    /* MPI collectives: auto, or the first or second algorithm its variable names */
    tw_coll_choice_t coll_bcast, coll_reduce, coll_allreduce, coll_allgather, coll_alltoall,
        coll_gather, coll_shm;
    /* Set by twrun for its ranks; absent when a process manager or nobody started us. */
    char job_id[33];
    uint64_t job_key;
    int has_job_key;
    int local_rank, local_size; /* -1 when unset */
    /* nodes and links */
    char node[64];      /* TW_NODE: this node's identity; empty: host name + network namespace */
    int udp_everywhere; /* TW_LINK=udp: every peer over udp, those on this node too */
    char udp_addr[16];  /* TW_UDP_ADDR: the IPv4 address to bind; empty: found */
    uint32_t udp_timeout_ms, udp_rto_us, udp_window;
    uint32_t udp_mtu; /* 0: the MTU of the interface the link binds */
    double fault_drop, fault_duplicate, fault_reorder, fault_corrupt, fault_delay;
    uint32_t fault_delay_us;
    uint64_t fault_seed;
    int progress_thread;           /* TW_PROGRESS_THREAD: serve the udp link from a thread */
    uint32_t progress_interval_us; /* how long that thread sleeps between looks */
} tw_config_t;

typedef struct tw_config_var {
    const char *name;
    const char *default_value;
    const char *meaning;
    int set_by_launcher; /* 1: twrun sets it for its ranks; users leave it alone */
} tw_config_var_t;

enum {
    TW_VELO_SLOTS_MIN = 128,
    TW_VELO_SLOTS_MAX = 1 << 20,
    TW_VELO_SLOTS_DEFAULT = 4096,
    TW_NQ_SLOTS_MIN = 128,
    TW_NQ_SLOTS_DEFAULT = 1024,
    TW_RMA_SLOTS_MIN = 1024,
    TW_RMA_SLOTS_DEFAULT = 2048,
    TW_ATU_ENTRIES_MIN = 16,
    TW_ATU_ENTRIES_MAX = 65535,
    TW_ATU_ENTRIES_DEFAULT = 1024,
    TW_EAGER_LIMIT_MAX = 4088, /* a VELO message less the MPI header */
    TW_RNDV_SPLIT_DEFAULT = 65536,
    TW_UDP_TIMEOUT_DEFAULT = 30000,     /* ms without an acknowledgement: the peer is lost */
    TW_UDP_RTO_DEFAULT = 2000,          /* least us before a timeout resends (the probe: sooner) */
    TW_UDP_WINDOW_DEFAULT = 64,         /* packets in flight per peer */
    TW_PROGRESS_INTERVAL_DEFAULT = 200, /* us */
};

/* Parses the TW_* entries of envp (NULL-terminated "NAME=value" strings).
 * Returns 0, or -1 with a message naming the variable in err. */
int tw_config_parse(tw_config_t *cfg, char *const *envp, char *err, size_t errlen);

/* The same, for the process environment, parsed once and cached. NULL on error
 * (the message has been printed on stderr). */
const tw_config_t *tw_config(void);

/* The table of variables, for twinfo and the README. */
const tw_config_var_t *tw_config_vars(size_t *count);

#endif
