/* The parsed TW_* settings as the device and the runtime read them: one field per
 * setting, filled from the settings table (settings.c, one row per variable). An
 * invalid value (or an unknown TW_* name, most often a typo) is an error that names
 * the variable; nothing is silently ignored. Other layers use <tollway/settings.h>. */
#ifndef TW_RUNTIME_SETTINGS_H
#define TW_RUNTIME_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include <tollway/settings.h>

typedef enum tw_wait_mode {
    TW_WAIT_AUTO,  /* spin while this node has a core per rank, else sleep */
    TW_WAIT_SPIN,  /* always spin */
    TW_WAIT_YIELD, /* yield the core between polls after a short spin */
    TW_WAIT_SLEEP, /* spin briefly, yield, then sleep until a peer rings */
} tw_wait_mode_t;

typedef enum tw_rma_copy {
    TW_RMA_COPY_AUTO,     /* one process_vm_* copy; pipelined when the kernel refuses it */
    TW_RMA_COPY_CMA,      /* one process_vm_* copy, or a fault when refused */
    TW_RMA_COPY_PIPELINE, /* always pipelined through shared memory, served by the target */
} tw_rma_copy_t;

typedef enum tw_udp_auth {
    TW_UDP_AUTH_AUTO,    /* the header: as TW_UDP_AUTH_HEADER */
    TW_UDP_AUTH_HEADER,  /* the header, and the payload through its CRC32C */
    TW_UDP_AUTH_PAYLOAD, /* the header and the payload */
} tw_udp_auth_t;

typedef enum tw_ofi_mr {
    TW_OFI_MR_AUTO,   /* what the provider's mr_mode asks for */
    TW_OFI_MR_STRICT, /* every registration path, asked for or not */
} tw_ofi_mr_t;

typedef enum tw_ofi_rma {
    TW_OFI_RMA_AUTO,     /* native on a hardware provider, messages on a software one */
    TW_OFI_RMA_NATIVE,   /* puts and gets with the fabric's writes and reads, where it has them */
    TW_OFI_RMA_MESSAGES, /* every RMA as messages, executed by the target's device */
} tw_ofi_rma_t;

typedef struct tw_config {
    uint32_t velo_slots; /* mailbox slots per endpoint */
    uint32_t nq_slots;   /* notification queue entries per endpoint */
    uint32_t rma_slots;  /* slots of each pipelined-RMA request and response ring */
    uint32_t atu_entries;
    tw_rma_copy_t rma_copy;
    int stats; /* print counters at close */
    tw_wait_mode_t wait;
    uint32_t wait_sleep_us;   /* longest sleep of a waiting rank before it polls again */
    uint32_t eager_limit;     /* MPI: largest message sent eagerly */
    uint64_t rndv_split;      /* MPI: smallest message copied by both sides; 0: none */
    uint32_t pipeline_limit;  /* MPI: largest message sent in pieces through the mailbox */
    uint32_t channels;        /* MPI: endpoints a process opens, communicators spread over */
    uint32_t connect_timeout; /* MPI: seconds MPI_Comm_connect waits for an accept */
    /* MPI collectives: auto, or the algorithm named */
    tw_coll_bcast_choice_t coll_bcast;
    tw_coll_reduce_choice_t coll_reduce;
    tw_coll_allreduce_choice_t coll_allreduce;
    tw_coll_allgather_choice_t coll_allgather;
    tw_coll_alltoall_choice_t coll_alltoall;
    tw_coll_gather_choice_t coll_gather;
    tw_coll_barrier_choice_t coll_barrier;
    tw_coll_reduce_scatter_choice_t coll_reduce_scatter;
    tw_coll_scan_choice_t coll_scan;
    tw_coll_shm_choice_t coll_shm;
    uint64_t coll_stream;      /* MPI: smallest part a shm reduction streams into the segment */
    uint32_t coll_stream_rate; /* MPI: MB/s of a plain copy below which it streams; 0: always */
    /* Set by twrun for its ranks; absent when a process manager or nobody started us. */
    char job_id[33];
    uint64_t job_key;
    int has_job_key;
    char job_secret[33];        /* hex; empty when unset */
    int local_rank, local_size; /* -1 when unset */
    int machine_size;           /* TW_MACHINE_SIZE: -1 when unset */
    /* nodes and links */
    char node[64];     /* TW_NODE: this node's identity; empty: host name + network namespace */
    char link[16];     /* TW_LINK: "auto", or the name of the link for every peer */
    char udp_addr[16]; /* TW_UDP_ADDR: the IPv4 address to bind; empty: found */
    uint32_t udp_timeout_ms, udp_rto_us, udp_window;
    uint32_t udp_mtu;       /* 0: the MTU of the interface the link binds */
    tw_udp_auth_t udp_auth; /* what the MAC of a udp packet covers */
    tw_ofi_mr_t ofi_mr;     /* TW_OFI_MR: the ofi link's memory registration */
    tw_ofi_rma_t ofi_rma;   /* TW_OFI_RMA: how the ofi link moves puts and gets */
    double fault_drop, fault_duplicate, fault_reorder, fault_corrupt, fault_delay;
    uint32_t fault_delay_us;
    uint64_t fault_seed;
    int progress_thread;           /* TW_PROGRESS_THREAD: serve the udp link from a thread */
    uint32_t progress_interval_us; /* how long that thread sleeps between looks */
    tw_launcher_choice_t launcher; /* TW_LAUNCHER: read by twrun, checked in the ranks */
} tw_config_t;

/* Ranges the device also checks a peer's segment against, and defaults: the settings
 * table (settings.c) takes its defaults from these, as text. */
#define TW_VELO_SLOTS_MIN            128
#define TW_VELO_SLOTS_MAX            (1 << 20)
#define TW_VELO_SLOTS_DEFAULT        4096
#define TW_NQ_SLOTS_MIN              128
#define TW_NQ_SLOTS_DEFAULT          1024
#define TW_RMA_SLOTS_MIN             1024
#define TW_RMA_SLOTS_DEFAULT         2048
#define TW_ATU_ENTRIES_MIN           16
#define TW_ATU_ENTRIES_MAX           65535
#define TW_ATU_ENTRIES_DEFAULT       65535
#define TW_EAGER_LIMIT_MAX           4144 /* a VELO message less the MPI header */
#define TW_RNDV_SPLIT_DEFAULT        65536
#define TW_CHANNELS_MAX              16
#define TW_PIPELINE_LIMIT_MAX        262144 /* a derived datatype's packed window (TW_PACK_CHUNK) */
#define TW_PIPELINE_LIMIT_DEFAULT    8192
#define TW_UDP_TIMEOUT_DEFAULT       30000 /* ms without an acknowledgement: the peer is lost */
#define TW_UDP_RTO_DEFAULT           2000 /* least us before a timeout resends (the probe: sooner) */
#define TW_UDP_WINDOW_LEAST          64   /* packets in flight per peer, whatever the MTU */
#define TW_UDP_WINDOW_BYTES          (1u << 20) /* TW_UDP_WINDOW=auto: about this much in flight */
#define TW_PROGRESS_INTERVAL_DEFAULT 200        /* us */
#define TW_WAIT_SLEEP_DEFAULT        2000       /* us */

/* Parses the TW_* entries of envp (NULL-terminated "NAME=value" strings).
 * Returns 0, or -1 with a message naming the variable in err. */
int tw_config_parse(tw_config_t *cfg, char *const *envp, char *err, size_t errlen);

/* The same, for the process environment, parsed once and cached. NULL on error
 * (the message has been printed on stderr). */
const tw_config_t *tw_config(void);

#endif
