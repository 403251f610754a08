/* Tollway's settings: every TW_* environment variable, described by one table.
 *
 * Each setting has a stable id (its index in the table; new settings are added at
 * the end), a type, a default, the range or the names of its choices, a one-line
 * meaning and the layer that owns it. The environment is read once, on first use;
 * an invalid value or an unknown TW_* name is an error that names the variable
 * (tw_settings_status reports it). The getters answer with the value in effect:
 * the environment's, or the default where it sets none or is invalid. */
#ifndef TOLLWAY_SETTINGS_H
#define TOLLWAY_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tw_setting_id {
    TW_SETTING_VELO_SLOTS,
    TW_SETTING_NQ_SLOTS,
    TW_SETTING_ATU_ENTRIES,
    TW_SETTING_RMA_COPY,
    TW_SETTING_RMA_SLOTS,
    TW_SETTING_STATS,
    TW_SETTING_WAIT,
    TW_SETTING_WAIT_SLEEP,
    TW_SETTING_EAGER_LIMIT,
    TW_SETTING_RNDV_SPLIT,
    TW_SETTING_PIPELINE_LIMIT,
    TW_SETTING_CHANNELS,
    TW_SETTING_CONNECT_TIMEOUT,
    TW_SETTING_BACKTRACE,
    TW_SETTING_NODE,
    TW_SETTING_LINK,
    TW_SETTING_UDP_ADDR,
    TW_SETTING_UDP_TIMEOUT,
    TW_SETTING_UDP_RTO,
    TW_SETTING_UDP_WINDOW,
    TW_SETTING_UDP_MTU,
    TW_SETTING_UDP_FAULTS,
    TW_SETTING_UDP_AUTH,
    TW_SETTING_OFI_MR,
    TW_SETTING_OFI_RMA,
    TW_SETTING_PROGRESS_THREAD,
    TW_SETTING_PROGRESS_INTERVAL,
    TW_SETTING_COLL_BCAST,
    TW_SETTING_COLL_REDUCE,
    TW_SETTING_COLL_ALLREDUCE,
    TW_SETTING_COLL_ALLGATHER,
    TW_SETTING_COLL_ALLTOALL,
    TW_SETTING_COLL_GATHER,
    TW_SETTING_COLL_BARRIER,
    TW_SETTING_COLL_REDUCE_SCATTER,
    TW_SETTING_COLL_SCAN,
    TW_SETTING_COLL_SHM,
    TW_SETTING_COLL_STREAM,
    TW_SETTING_COLL_STREAM_RATE,
    TW_SETTING_CC,
    TW_SETTING_CXX,
    TW_SETTING_JOB_ID,
    TW_SETTING_JOB_KEY,
    TW_SETTING_JOB_SECRET,
    TW_SETTING_LOCAL_RANK,
    TW_SETTING_LOCAL_SIZE,
    TW_SETTING_BOUND_CORE,
    TW_SETTING_MACHINE_SIZE,
    TW_SETTING_LAUNCHER,
    TW_SETTING_ABI,
    TW_SETTING_COUNT
} tw_setting_id_t;

typedef enum tw_setting_type {
    TW_SETTING_UNSIGNED,     /* a whole number from min to max */
    TW_SETTING_SIZE,         /* a byte count from min to max */
    TW_SETTING_POWER_OF_TWO, /* a power of two from min to max */
    TW_SETTING_BOOLEAN,      /* 0 or 1 */
    TW_SETTING_CHOICE,       /* one of the names in choices */
    TW_SETTING_STRING,       /* text of the form that form describes */
    TW_SETTING_HEX,          /* lowercase hex digits, from min to max of them */
    TW_SETTING_LIST,         /* comma-separated key=value items, keys among choices */
} tw_setting_type_t;

/* The layer that reads a setting (launcher: twrun sets it for its ranks; tools: twrun
 * itself, and the mpicc and mpicxx wrappers). */
typedef enum tw_setting_owner {
    TW_OWNER_RUNTIME,
    TW_OWNER_DEVICE,
    TW_OWNER_LINK,
    TW_OWNER_MPI,
    TW_OWNER_LAUNCHER,
    TW_OWNER_TOOLS,
} tw_setting_owner_t;

typedef struct tw_setting_info {
    const char *name; /* "TW_VELO_SLOTS" */
    tw_setting_type_t type;
    tw_setting_owner_t owner;
    const char *default_value;  /* as written in the environment; "": none (meaning says) */
    const char *meaning;        /* one line */
    const char *unit;           /* what a number counts ("bytes"), or NULL */
    uint64_t min, max;          /* numbers: the range; hex: how many digits */
    const char *special;        /* a word accepted besides the range ("auto"), or NULL */
    const char *form;           /* string and list: what a value looks like, in words */
    const char *const *choices; /* choice: the names, in the order of tw_setting_choice's
                                   answers; list: the keys; otherwise NULL */
    size_t nchoices;
} tw_setting_info_t;

/* The choices of the TW_COLL_* settings, as tw_setting_choice answers them. AUTO
 * picks by size and process count; the others force one algorithm. */
typedef enum tw_coll_bcast_choice {
    TW_BCAST_AUTO,
    TW_BCAST_BINOMIAL,
    TW_BCAST_SCATTER_ALLGATHER, /* binomial scatter, then ring allgather */
    TW_BCAST_SHM,               /* through the shared-memory segment (one node) */
} tw_coll_bcast_choice_t;
typedef enum tw_coll_reduce_choice {
    TW_REDUCE_AUTO,
    TW_REDUCE_BINOMIAL,
    TW_REDUCE_RING, /* ring reduce-scatter, then the blocks gathered at the root */
    TW_REDUCE_SHM,
} tw_coll_reduce_choice_t;
typedef enum tw_coll_allreduce_choice {
    TW_ALLREDUCE_AUTO,
    TW_ALLREDUCE_RECURSIVE_DOUBLING,
    TW_ALLREDUCE_RING, /* ring reduce-scatter, then ring allgather */
    TW_ALLREDUCE_SHM,
} tw_coll_allreduce_choice_t;
typedef enum tw_coll_allgather_choice {
    TW_ALLGATHER_AUTO,
    TW_ALLGATHER_BRUCK,
    TW_ALLGATHER_RING,
    TW_ALLGATHER_SHM,
} tw_coll_allgather_choice_t;
typedef enum tw_coll_alltoall_choice {
    TW_ALLTOALL_AUTO,
    TW_ALLTOALL_LINEAR, /* every exchange posted at once */
    TW_ALLTOALL_PAIRWISE,
    TW_ALLTOALL_SHM,
} tw_coll_alltoall_choice_t;
typedef enum tw_coll_gather_choice {
    TW_GATHER_AUTO,
    TW_GATHER_BINOMIAL,
    TW_GATHER_LINEAR,
    TW_GATHER_SHM,
} tw_coll_gather_choice_t;
typedef enum tw_coll_barrier_choice {
    TW_BARRIER_AUTO,
    TW_BARRIER_DISSEMINATION,
    TW_BARRIER_SHM,
} tw_coll_barrier_choice_t;
typedef enum tw_coll_reduce_scatter_choice {
    TW_REDUCE_SCATTER_AUTO,
    TW_REDUCE_SCATTER_RING,            /* ring reduce-scatter (commutative ops only) */
    TW_REDUCE_SCATTER_REDUCE_SCATTERV, /* reduce to rank 0, then scatterv */
    TW_REDUCE_SCATTER_SHM,
} tw_coll_reduce_scatter_choice_t;
typedef enum tw_coll_scan_choice {
    TW_SCAN_AUTO,
    TW_SCAN_RECURSIVE_DOUBLING, /* messages */
    TW_SCAN_SHM,                /* shared memory, whole or chain by size */
    TW_SCAN_SHM_WHOLE,          /* each rank combines the inputs of ranks before it */
    TW_SCAN_SHM_CHAIN,          /* each rank combines its input with its left's prefix */
} tw_coll_scan_choice_t;
typedef enum tw_coll_shm_choice {
    TW_COLL_SHM_AUTO,
    TW_COLL_SHM_P2P, /* messages, never the shared-memory block */
    TW_COLL_SHM_SHM,
} tw_coll_shm_choice_t;

/* TW_LAUNCHER's choices: who starts a job's ranks inside a Slurm allocation. */
typedef enum tw_launcher_choice {
    TW_LAUNCHER_AUTO,  /* srun, inside an allocation and not inside a step; else twrun */
    TW_LAUNCHER_FORK,  /* twrun, on this machine, allocation or not */
    TW_LAUNCHER_SLURM, /* srun; only inside an allocation */
} tw_launcher_choice_t;

/* TW_ABI's choices: whether twrun checks which MPI a program was built for. */
typedef enum tw_abi_choice {
    TW_ABI_AUTO, /* a face serves another MPI's ABI; what none serves is refused */
    TW_ABI_OFF,  /* programs start as they are, unchecked */
} tw_abi_choice_t;

/* Enumeration: ids run from 0 to tw_setting_count() - 1. NULL for an unknown id. */
size_t tw_setting_count(void);
const tw_setting_info_t *tw_setting_info(tw_setting_id_t id);
/* The id of the setting of that name, or -1. */
int tw_setting_find(const char *name);
const char *tw_setting_type_name(tw_setting_type_t type);
const char *tw_setting_owner_name(tw_setting_owner_t owner);
/* What a value may be, in words, as error messages say it ("0 or 1"); the length
 * it needed, as snprintf. */
int tw_setting_allowed(tw_setting_id_t id, char *buf, size_t len);

/* 0 when the environment's TW_* variables are all valid; otherwise TW_ERR_CONFIG, the
 * message (naming the variable) printed on stderr once. */
int tw_settings_status(void);
/* Whether the environment sets it, and the text of the value in effect: the
 * environment's, else the default. NULL for an unknown id. */
int tw_setting_is_set(tw_setting_id_t id);
const char *tw_setting_text(tw_setting_id_t id);
/* Typed values in effect. Unsigned: the number of an unsigned, size, power-of-two or
 * boolean setting, or TW_JOB_KEY's; a special word ("auto") reads 0, and so does an
 * unset setting without a default; 0 for other settings. Choice: the index of the name
 * in choices (the tw_coll_*_choice_t values above for TW_COLL_*); -1 for other settings. */
uint64_t tw_setting_unsigned(tw_setting_id_t id);
int tw_setting_choice(tw_setting_id_t id);

#ifdef __cplusplus
}
#endif

#endif
