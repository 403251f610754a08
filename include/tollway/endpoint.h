/* Endpoints. An endpoint is a VPID: the unit that owns a VELO mailbox and, as
 * the device grows, a notification queue and an address translation table.
 *
 * A process started by twrun (or by a PMI-1 process manager such as MPICH's
 * Hydra) opens its endpoints collectively: every rank of the job opens the same
 * number of endpoints in the same order, and endpoint k of one rank talks to
 * endpoint k of the others. A process started on its own is a job of one rank.
 *
 * An endpoint is used by one thread at a time. */
#ifndef TOLLWAY_ENDPOINT_H
#define TOLLWAY_ENDPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tw_ep tw_ep_t;

/* Per-endpoint counters; TW_STATS=1 prints them when the endpoint closes. */
typedef struct tw_ep_stats {
    uint64_t msgs_sent;
    uint64_t bytes_sent;
    uint64_t msgs_received;
    uint64_t bytes_received;
    uint64_t send_retries; /* sends refused because the receiver's mailbox was full */
    uint64_t polls_empty;  /* polls that found nothing */
    uint64_t peers_mapped; /* peers' mailboxes mapped (on first contact) */
    /* RMA, as initiator */
    uint64_t rma_ops;       /* put, get, immediate and notification put, atomics */
    uint64_t rma_bytes;     /* bytes moved by them */
    uint64_t rma_retries;   /* refused because a notification queue was full */
    uint64_t rma_pipelined; /* carried through shared memory by the target */
    uint64_t notifications; /* notifications taken from this endpoint's queue */
    /* ATU, as owner */
    uint64_t registrations;
    uint64_t deregistrations;
    uint64_t translations; /* NLAs translated (by this endpoint, as initiator) */
    /* translation faults on this endpoint's table, counted whoever caused them */
    uint64_t faults_key, faults_bounds, faults_stale, faults_perm, faults_align;
} tw_ep_stats_t;

/* Opens the next endpoint of this process. Collective over the job. Returns
 * TW_OK, or TW_ERR_CONFIG (with a message on stderr naming the variable) when a
 * TW_* variable is invalid, or TW_ERR_RUNTIME / TW_ERR_SYSTEM. A rank whose
 * TW_CHANNELS (the endpoints each process opens) differs from rank 0's ends the
 * whole job through the process manager, naming both, at its first endpoint. */
int tw_ep_open(tw_ep_t **ep);

/* Closes the endpoint: prints its counters when TW_STATS=1, unmaps peers and
 * removes its mailbox. Local; call tw_ep_barrier first when peers may still send. */
int tw_ep_close(tw_ep_t *ep);

/* Keeps this process attached to its job (the process manager's connection) after
 * its last endpoint closes, until tw_ep_release_job: PMI and PMIx allow one init and
 * one finalize a process, so a process that opens endpoints again later (the MPI
 * library started anew by an MPI_Session_init after its last user ended) holds the
 * job from its first endpoint to its exit. Each keep needs one release. */
int tw_ep_keep_job(tw_ep_t *ep);
void tw_ep_release_job(void);

int tw_ep_rank(const tw_ep_t *ep);
int tw_ep_size(const tw_ep_t *ep);

/* A job that twrun spawns (MPI_Comm_spawn) shares the id space of the jobs before it:
 * its ranks are tw_ep_job_base() + 0 .. tw_ep_job_size() - 1, the ranks below are the
 * earlier jobs'. tw_ep_rank is this endpoint's id in that space; tw_ep_size is one past
 * the highest id it knows, and grows as peers are added. */
int tw_ep_job_base(const tw_ep_t *ep);
int tw_ep_job_size(const tw_ep_t *ep);
/* The size of the job this process was started in, as its launcher's environment
 * says (twrun, Hydra, srun, prterun), without an endpoint or a word to the manager:
 * what a program may ask before MPI_Init. 1 started alone; 0 when it does not say. */
int tw_launch_size(void);
/* The processes the process manager has room for, as it says (twrun: the slots it was
 * given; PMIx: PMIX_UNIV_SIZE); the job's size when it says none. Asks the manager: not
 * for a hot path. -1 without an endpoint. */
int tw_ep_universe_size(tw_ep_t *ep);

/* Makes the endpoint rank (an id outside this job) reachable at address, as
 * tw_ep_address gives it in that endpoint's process; grows the size past rank. Such
 * peers are reached through shared memory, on this node only, and must share the job
 * key (jobs twrun spawned from one another). TW_OK (also when rank is known at that
 * address already), TW_ERR_ARG, TW_ERR_RANK, TW_ERR_PEER (known at another address),
 * TW_ERR_NOMEM. Call it from the thread that drives the endpoint. */
int tw_ep_add_peer(tw_ep_t *ep, int rank, const char *address);

/* The longest spec tw_ep_spawn takes, '\0' included. */
#define TW_SPAWN_SPEC_MAX 65536

/* Asks the launcher (twrun) to start a job: spec says its commands, in the encoding of
 * src/runtime/pmi_wire.h, shorter than TW_SPAWN_SPEC_MAX; port reaches its parents.
 * TW_OK with its ids base .. base + *size - 1, or TW_ERR_RUNTIME with the launcher's
 * reason in why (one word) and in *failed the command it refused (-1: none in
 * particular), TW_ERR_ARG. */
int tw_ep_spawn(tw_ep_t *ep, const char *port, const char *spec, int *base, int *size, char *why,
                size_t cap, int *failed);

/* For a job spawned so: TW_OK with the port its parents wait at; TW_ERR_PEER for a job
 * nobody spawned. *appnum: the index of its command (0 when not spawned). */
int tw_ep_parent(tw_ep_t *ep, char *port, size_t cap, int *appnum);

/* The address of rank's endpoint as a printable string: "shm:<node>:<mailbox>", followed
 * by ",udp:<ip>:<port>:<liveness port>" when the job spans nodes. */
int tw_ep_address(tw_ep_t *ep, int rank, char *buf, size_t cap);

/* What the link that reaches rank's endpoint can do, for a layer above that chooses
 * its protocols by it. This node (and this endpoint itself) is reached by "shm",
 * other nodes by "udp" (every other rank with TW_LINK=udp). */
typedef struct tw_link_caps {
    char name[16];        /* the link's name: "shm", "udp" */
    int rma_by_initiator; /* 1: the initiator moves an RMA's bytes itself, at once;
                             0: the target's device does, when the target makes progress */
    int put_cheaper;      /* 1: a put is the cheaper way to move a large message; 0: a get */
    int shared_copy;      /* 1: both sides can copy parts of one large message at once */
    size_t velo_max;      /* the longest VELO message */
} tw_link_caps_t;
/* TW_OK with *caps filled, or TW_ERR_ARG, TW_ERR_RANK (rank out of range),
 * TW_ERR_PEER (its address is unknown), with *caps zeroed. Does not contact rank. */
int tw_ep_link_caps(tw_ep_t *ep, int rank, tw_link_caps_t *caps);

/* TW_OK while rank's endpoint is alive as far as this one knows; once it was declared
 * lost, the cause: TW_ERR_LOST (it stopped answering for TW_UDP_TIMEOUT),
 * TW_ERR_RESET (it had declared this endpoint lost) or TW_ERR_DESYNC (it gave up data
 * this endpoint never received: an acknowledgement forged with the job's secret). TW_ERR_ARG,
 * TW_ERR_RANK. The mailbox has a TW_VELO_TAG_LOST message for each peer lost. */
int tw_ep_peer_status(tw_ep_t *ep, int rank);

/* A barrier over all ranks of the job, through the process manager. It is meant for
 * start-up, tests and benchmarks, not for hot loops. */
int tw_ep_barrier(tw_ep_t *ep);

/* The counters, brought up to date (faults are counted in the shared segment). */
const tw_ep_stats_t *tw_ep_stats(tw_ep_t *ep);
void tw_ep_print_stats(tw_ep_t *ep, FILE *out);

/* The counters of the links beyond shared memory (udp: packets, retransmissions,
 * drops by reason, ...), for tools such as MPI_T: a list fixed for the build, indexed
 * from 0, the same in every process and before any endpoint is open. */
typedef struct tw_link_counter_info {
    const char *link;    /* "udp" */
    const char *name;    /* "retransmits", unique within the link */
    const char *meaning; /* one line */
} tw_link_counter_info_t;
size_t tw_link_counter_count(void);
/* NULL past the end. */
const tw_link_counter_info_t *tw_link_counter_info(size_t i);
/* Counter i of the endpoint's link (the count so far; it only grows); 0 where the
 * endpoint has no such link open (a job on one node), for a NULL ep or a bad i. Read
 * on demand: the links count as they always do. */
uint64_t tw_ep_link_counter(tw_ep_t *ep, size_t i);

/* Between two polls of a wait loop (*spins starts at 0): a count on a core of its
 * own, the core given away after many empty polls in a row, and now and then when
 * the node has more ranks than cores (TW_WAIT). */
void tw_ep_relax(tw_ep_t *ep, unsigned *spins);

/* tw_ep_relax for a wait on something a peer writes to memory the caller polls (a
 * line of a shared block), not to this endpoint's rings: before it sleeps, the wait
 * calls ready(ctx), which advances what it can and returns non-zero when something
 * moved, so a write made just before the sleep is not missed. The writer wakes the
 * reader with tw_ep_wake. */
void tw_ep_relax_until(tw_ep_t *ep, unsigned *spins, int (*ready)(void *ctx), void *ctx);

/* tw_ep_relax_until over the endpoints eps[0..n) of one process (at most
 * TW_EP_WAIT_SET_MOST; eps[0]'s TW_WAIT settings), for a wait whose progress may come
 * through any of them (MPI's channels): where it would sleep it announces itself on
 * every doorbell, looks at every one's rings, and sleeps until any is rung (Linux's
 * futex_waitv; a kernel without it gives the core away instead). The caller must be
 * the only user of each endpoint meanwhile. */
#define TW_EP_WAIT_SET_MOST 16
void tw_ep_relax_until_set(tw_ep_t *const *eps, int n, unsigned *spins, int (*ready)(void *ctx),
                           void *ctx);

/* tw_ep_relax_until for a thread that waits while other threads of its process use
 * the endpoint (MPI_THREAD_MULTIPLE: a wait on memory only its own call reads, made
 * without the lock that serialises the endpoint's users). It reads the endpoint's
 * settings and its doorbell, nothing another thread writes. Where it would sleep it
 * announces itself on the doorbell first, then asks awake(ctx): non-zero to stay up.
 * awake answers what it waits for and, holding that lock, tw_ep_has_work (when it
 * cannot take the lock, another thread polls: stay up). */
void tw_ep_relax_shared(tw_ep_t *ep, unsigned *spins, int (*awake)(void *ctx), void *ctx);
/* Whether a progress pass has work: anything waits in the endpoint's rings or is owed
 * to them, or a send was refused for a full ring since the last look (the peer that
 * frees it rings no bell). For a caller that serialises the endpoint's users. */
int tw_ep_has_work(tw_ep_t *ep);

/* Whether this endpoint's waits may sleep (TW_WAIT=sleep, or auto with more ranks
 * than CPUs on the node): then a peer that writes to it rings its doorbell. */
int tw_ep_sleeps(const tw_ep_t *ep);
/* Whether this node's ranks outnumber the CPUs they may run on (TW_WAIT=auto sleeps
 * then): a peer's core is not free for work handed to it. */
int tw_ep_crowded(const tw_ep_t *ep);
/* Whether a progress thread serves this endpoint's links (TW_PROGRESS_THREAD): then
 * RMA requests peers leave for its device complete while the program computes. */
int tw_ep_progress_thread(const tw_ep_t *ep);
/* Whether this job's ranks on one node reach each other through the mapped link (and
 * so can share memory): 1, unless TW_LINK names a link that carries every peer (the
 * same for every rank of the job). */
int tw_ep_maps_node(const tw_ep_t *ep);
/* Wakes rank's endpoint (of the same index) if it sleeps in a wait, after writing
 * something it waits for that it finds by polling memory (a line of a shared block),
 * not in its rings: a fence and a load, nothing when it never sleeps or is not
 * mapped here. */
void tw_ep_wake(tw_ep_t *ep, int rank);
/* Wakes a thread of this process that sleeps in a wait on ep, when another thread of
 * the process needs it awake (a lock the sleeper holds). Safe from any thread: a fence
 * and a load, a system call only when one sleeps. */
void tw_ep_wake_self(tw_ep_t *ep);

/* Ends the whole job with this exit code, through the launcher or process manager;
 * msg (may be NULL) is printed first. Does not return. */
void tw_ep_abort(tw_ep_t *ep, int code, const char *msg);

/* Bytes of shared memory one endpoint's mailbox takes when it opens, with the current
 * settings (its registration table grows from one page as registrations are made,
 * up to TW_ATU_ENTRIES entries of 64 bytes). */
size_t tw_ep_memory_size(void);

/* The links this build has, in the order the device prefers them, and whether this
 * machine can use each now: what twinfo reports. */
typedef struct tw_link_report {
    const char *name; /* "shm" */
    int node_local;   /* 1: reaches ranks on this node (maps their memory); 0: other nodes,
                         or every rank under TW_LINK=udp */
    int usable;       /* 1 when this machine can use it now */
    char note[256];   /* usable: what was found; otherwise why not */
} tw_link_report_t;
size_t tw_link_report_count(void);
/* Checks link i: TW_OK, or TW_ERR_ARG past the end or for a NULL r. Not for a job's
 * path: it creates a segment, binds sockets and may start a process. */
int tw_link_report(size_t i, tw_link_report_t *r);

#ifdef __cplusplus
}
#endif
#endif
