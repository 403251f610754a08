/* The settings table: one row per TW_* variable. Parsing, defaults, the error for an
 * invalid value, twinfo's listing, docs/settings.md and <tollway/settings.h> all come
 * from these rows; a row also says which field of tw_config_t it fills. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/settings.h>
#include <tollway/status.h>

#include "runtime/settings.h"

/* Where a row's value goes in tw_config_t. */
typedef enum store {
    STORE_NONE,   /* checked only: read by the tools or the launcher */
    STORE_NUMBER, /* an unsigned, int or enum field */
    STORE_TEXT,   /* a char array */
    STORE_FAULTS, /* the fault_* fields of TW_UDP_FAULTS */
} store_t;

typedef struct setting_row {
    tw_setting_info_t info;
    store_t store;
    size_t offset, size; /* the field */
    int has_flag;        /* flag_offset names an int set to 1 when the environment sets it */
    size_t flag_offset;
    long unset;                         /* stored when neither environment nor default sets it */
    int (*has_form)(const char *value); /* string: whether a value has the form described */
} setting_row_t;

#define TEXT_OF_(x) #x
#define TEXT_OF(x)  TEXT_OF_(x)
#define FIELD_AT(f) .offset = offsetof(tw_config_t, f), .size = sizeof(((tw_config_t *)0)->f)
#define NUMBER(f)   .store = STORE_NUMBER, FIELD_AT(f)
#define TEXT(f)     .store = STORE_TEXT, FIELD_AT(f)
#define CHOICES(names)                                                                             \
    .type = TW_SETTING_CHOICE, .choices = names, .nchoices = sizeof names / sizeof names[0]

/* Choice names, in the order of the values tw_setting_choice answers. */
static const char *const rma_copy_names[] = {
    [TW_RMA_COPY_AUTO] = "auto", [TW_RMA_COPY_CMA] = "cma", [TW_RMA_COPY_PIPELINE] = "pipeline"};
static const char *const wait_names[] = {[TW_WAIT_AUTO] = "auto",
                                         [TW_WAIT_SPIN] = "spin",
                                         [TW_WAIT_YIELD] = "yield",
                                         [TW_WAIT_SLEEP] = "sleep"};
static const char *const ofi_mr_names[] = {
    [TW_OFI_MR_AUTO] = "auto", [TW_OFI_MR_STRICT] = "strict"};
static const char *const ofi_rma_names[] = {
    [TW_OFI_RMA_AUTO] = "auto", [TW_OFI_RMA_NATIVE] = "native", [TW_OFI_RMA_MESSAGES] = "messages"};
static const char *const udp_auth_names[] = {[TW_UDP_AUTH_AUTO] = "auto",
                                             [TW_UDP_AUTH_HEADER] = "header",
                                             [TW_UDP_AUTH_PAYLOAD] = "payload"};
static const char *const bcast_names[] = {[TW_BCAST_AUTO] = "auto",
                                          [TW_BCAST_BINOMIAL] = "binomial",
                                          [TW_BCAST_SCATTER_ALLGATHER] = "scatter-allgather",
                                          [TW_BCAST_SHM] = "shm"};
static const char *const reduce_names[] = {[TW_REDUCE_AUTO] = "auto",
                                           [TW_REDUCE_BINOMIAL] = "binomial",
                                           [TW_REDUCE_RING] = "ring",
                                           [TW_REDUCE_SHM] = "shm"};
static const char *const allreduce_names[] = {[TW_ALLREDUCE_AUTO] = "auto",
                                              [TW_ALLREDUCE_RECURSIVE_DOUBLING] =
                                                  "recursive-doubling",
                                              [TW_ALLREDUCE_RING] = "ring",
                                              [TW_ALLREDUCE_SHM] = "shm"};
static const char *const allgather_names[] = {[TW_ALLGATHER_AUTO] = "auto",
                                              [TW_ALLGATHER_BRUCK] = "bruck",
                                              [TW_ALLGATHER_RING] = "ring",
                                              [TW_ALLGATHER_SHM] = "shm"};
static const char *const alltoall_names[] = {[TW_ALLTOALL_AUTO] = "auto",
                                             [TW_ALLTOALL_LINEAR] = "linear",
                                             [TW_ALLTOALL_PAIRWISE] = "pairwise",
                                             [TW_ALLTOALL_SHM] = "shm"};
static const char *const gather_names[] = {[TW_GATHER_AUTO] = "auto",
                                           [TW_GATHER_BINOMIAL] = "binomial",
                                           [TW_GATHER_LINEAR] = "linear",
                                           [TW_GATHER_SHM] = "shm"};
static const char *const barrier_names[] = {[TW_BARRIER_AUTO] = "auto",
                                            [TW_BARRIER_DISSEMINATION] = "dissemination",
                                            [TW_BARRIER_SHM] = "shm"};
static const char *const reduce_scatter_names[] = {[TW_REDUCE_SCATTER_AUTO] = "auto",
                                                   [TW_REDUCE_SCATTER_RING] = "ring",
                                                   [TW_REDUCE_SCATTER_REDUCE_SCATTERV] =
                                                       "reduce-scatterv",
                                                   [TW_REDUCE_SCATTER_SHM] = "shm"};
static const char *const scan_names[] = {[TW_SCAN_AUTO] = "auto",
                                         [TW_SCAN_RECURSIVE_DOUBLING] = "recursive-doubling",
                                         [TW_SCAN_SHM] = "shm",
                                         [TW_SCAN_SHM_WHOLE] = "shm-whole",
                                         [TW_SCAN_SHM_CHAIN] = "shm-chain"};
static const char *const coll_shm_names[] = {
    [TW_COLL_SHM_AUTO] = "auto", [TW_COLL_SHM_P2P] = "p2p", [TW_COLL_SHM_SHM] = "shm"};
static const char *const launcher_names[] = {
    [TW_LAUNCHER_AUTO] = "auto", [TW_LAUNCHER_FORK] = "fork", [TW_LAUNCHER_SLURM] = "slurm"};
static const char *const abi_names[] = {[TW_ABI_AUTO] = "auto", [TW_ABI_OFF] = "off"};
static const char *const fault_keys[] = {"drop",  "duplicate", "reorder", "corrupt",
                                         "delay", "delay_us",  "seed"};

static int node_name_ok(const char *s);
static int link_name_ok(const char *s);
static int ipv4_ok(const char *s);

static const setting_row_t rows[TW_SETTING_COUNT] = {
    [TW_SETTING_VELO_SLOTS] = {{.name = "TW_VELO_SLOTS",
                                .type = TW_SETTING_POWER_OF_TWO,
                                .owner = TW_OWNER_DEVICE,
                                .default_value = TEXT_OF(TW_VELO_SLOTS_DEFAULT),
                                .min = TW_VELO_SLOTS_MIN,
                                .max = TW_VELO_SLOTS_MAX,
                                .unit = "slots",
                                .meaning = "slots (64 B each) in an endpoint's VELO mailbox"},
                               NUMBER(velo_slots)},
    [TW_SETTING_NQ_SLOTS] = {{.name = "TW_NQ_SLOTS",
                              .type = TW_SETTING_POWER_OF_TWO,
                              .owner = TW_OWNER_DEVICE,
                              .default_value = TEXT_OF(TW_NQ_SLOTS_DEFAULT),
                              .min = TW_NQ_SLOTS_MIN,
                              .max = TW_VELO_SLOTS_MAX,
                              .unit = "entries",
                              .meaning = "entries (64 B each) in an endpoint's notification queue"},
                             NUMBER(nq_slots)},
    [TW_SETTING_ATU_ENTRIES] =
        {{.name = "TW_ATU_ENTRIES",
          .type = TW_SETTING_UNSIGNED,
          .owner = TW_OWNER_DEVICE,
          .default_value = TEXT_OF(TW_ATU_ENTRIES_DEFAULT),
          .min = TW_ATU_ENTRIES_MIN,
          .max = TW_ATU_ENTRIES_MAX,
          .unit = "entries",
          .meaning =
              "registrations an endpoint can hold at once; its table (64 B an entry) grows to this "
              "as registrations are made, so the bound costs address space, not memory"},
         NUMBER(atu_entries)},
    [TW_SETTING_RMA_COPY] = {{.name = "TW_RMA_COPY",
                              CHOICES(rma_copy_names),
                              .owner = TW_OWNER_DEVICE,
                              .default_value = "auto",
                              .meaning = "how RMA reaches ordinary registered memory of a peer on "
                                         "this node: cma (one process_vm_readv/writev), pipeline "
                                         "(chunks through shared memory, moved by the target), or "
                                         "auto (cma, pipeline where the kernel refuses it)"},
                             NUMBER(rma_copy)},
    [TW_SETTING_RMA_SLOTS] = {{.name = "TW_RMA_SLOTS",
                               .type = TW_SETTING_POWER_OF_TWO,
                               .owner = TW_OWNER_DEVICE,
                               .default_value = TEXT_OF(TW_RMA_SLOTS_DEFAULT),
                               .min = TW_RMA_SLOTS_MIN,
                               .max = TW_VELO_SLOTS_MAX,
                               .unit = "slots",
                               .meaning = "slots (64 B each) of each pipelined-RMA request and "
                                          "response ring"},
                              NUMBER(rma_slots)},
    [TW_SETTING_STATS] = {{.name = "TW_STATS",
                           .type = TW_SETTING_BOOLEAN,
                           .owner = TW_OWNER_DEVICE,
                           .default_value = "0",
                           .meaning = "1: print each endpoint's counters on stderr when it closes"},
                          NUMBER(stats)},
    [TW_SETTING_WAIT] = {{.name = "TW_WAIT",
                          CHOICES(wait_names),
                          .owner = TW_OWNER_DEVICE,
                          .default_value = "auto",
                          .meaning = "how blocking calls wait: spin; yield (give the core away "
                                     "between polls); sleep (poll briefly, then sleep until a peer "
                                     "on the node writes to this rank, or TW_WAIT_SLEEP passes); "
                                     "or auto (spin, giving the core away once every 256 empty "
                                     "polls, while the node has a core per rank; else sleep)"},
                         NUMBER(wait)},
    [TW_SETTING_WAIT_SLEEP] = {{.name = "TW_WAIT_SLEEP",
                                .type = TW_SETTING_UNSIGNED,
                                .owner = TW_OWNER_DEVICE,
                                .default_value = TEXT_OF(TW_WAIT_SLEEP_DEFAULT),
                                .min = 10,
                                .max = 1000000,
                                .unit = "microseconds",
                                .meaning = "TW_WAIT=sleep: the longest a waiting rank sleeps "
                                           "before it polls again (a peer on the node wakes it "
                                           "at once; what only polling finds waits this long)"},
                               NUMBER(wait_sleep_us)},
    [TW_SETTING_EAGER_LIMIT] = {{.name = "TW_EAGER_LIMIT",
                                 .type = TW_SETTING_SIZE,
                                 .owner = TW_OWNER_MPI,
                                 .default_value = TEXT_OF(TW_EAGER_LIMIT_MAX),
                                 .min = 0,
                                 .max = TW_EAGER_LIMIT_MAX,
                                 .unit = "bytes",
                                 .meaning =
                                     "largest MPI message sent eagerly (copied through the "
                                     "receiver's mailbox); longer ones go by rendezvous (the "
                                     "receiver gets them from the sender's buffer)"},
                                NUMBER(eager_limit)},
    [TW_SETTING_RNDV_SPLIT] = {{.name = "TW_RNDV_SPLIT",
                                .type = TW_SETTING_SIZE,
                                .owner = TW_OWNER_MPI,
                                .default_value = TEXT_OF(TW_RNDV_SPLIT_DEFAULT),
                                .min = 0,
                                .max = 1ull << 40,
                                .unit = "bytes",
                                .meaning = "MPI messages from this many bytes on, between ranks on "
                                           "one node (over shm), are copied by both sides at once: "
                                           "the receiver gets the first half while the sender puts "
                                           "the second; 0 turns it off. Off unless set on a "
                                           "node whose ranks outnumber their CPUs, where the "
                                           "sender has no core of its own for its half"},
                               NUMBER(rndv_split)},
    [TW_SETTING_PIPELINE_LIMIT] = {{.name = "TW_PIPELINE_LIMIT",
                                    .type = TW_SETTING_SIZE,
                                    .owner = TW_OWNER_MPI,
                                    .default_value = TEXT_OF(TW_PIPELINE_LIMIT_DEFAULT),
                                    .min = 0,
                                    .max = TW_PIPELINE_LIMIT_MAX,
                                    .unit = "bytes",
                                    .meaning =
                                        "largest MPI message between ranks on one node (over "
                                        "shm) sent past TW_EAGER_LIMIT as a pipeline of eager "
                                        "pieces through the receiver's mailbox, which the "
                                        "receiver copies out while the sender copies in the "
                                        "next; longer ones go by rendezvous, but a "
                                        "non-contiguous one (a derived datatype, packed "
                                        "straight into the pieces) is pipelined up to "
                                        "65536 bytes at least, and a longer one sends the "
                                        "same pieces once its receive has matched, where a "
                                        "rendezvous would pack it into a window first; 0 "
                                        "turns both off"},
                                   NUMBER(pipeline_limit)},
    [TW_SETTING_CHANNELS] = {{.name = "TW_CHANNELS",
                              .type = TW_SETTING_POWER_OF_TWO,
                              .owner = TW_OWNER_MPI,
                              .default_value = "1",
                              .min = 1,
                              .max = TW_CHANNELS_MAX,
                              .unit = "channels",
                              .meaning = "channels of an MPI process: each an endpoint of its own "
                                         "with its own matching queues and requests, over which "
                                         "communicators are spread by context id (every rank of "
                                         "the job sets the same, and so must jobs that "
                                         "connect)"},
                             NUMBER(channels)},
    [TW_SETTING_CONNECT_TIMEOUT] = {{.name = "TW_CONNECT_TIMEOUT",
                                     .type = TW_SETTING_UNSIGNED,
                                     .owner = TW_OWNER_MPI,
                                     .default_value = "60",
                                     .min = 1,
                                     .max = 86400,
                                     .unit = "seconds",
                                     .meaning = "how long MPI_Comm_connect waits for the other "
                                                "side to accept on a port that is open before "
                                                "it fails with MPI_ERR_PORT"},
                                    NUMBER(connect_timeout)},
    [TW_SETTING_BACKTRACE] = {{.name = "TW_BACKTRACE",
                               .type = TW_SETTING_BOOLEAN,
                               .owner = TW_OWNER_MPI,
                               .default_value = "1",
                               .meaning = "1: a rank killed by SIGSEGV, SIGBUS, SIGFPE, SIGILL or "
                                          "SIGABRT prints its rank, pid, host, the signal and a "
                                          "backtrace on stderr, then dies of the signal "
                                          "(MPI_Init handles them where the program has no "
                                          "handler of its own); 0: no handler"},
                              .store = STORE_NONE},
    [TW_SETTING_NODE] = {{.name = "TW_NODE",
                          .type = TW_SETTING_STRING,
                          .owner = TW_OWNER_RUNTIME,
                          .default_value = "",
                          .form = "1 to 63 letters, digits or the characters . _ - ~",
                          .meaning = "this node's identity; ranks with the same one talk over "
                                     "shared memory, others over udp (default: the host name and "
                                     "the network namespace)"},
                         TEXT(node),
                         .has_form = node_name_ok},
    /* the links are the device's to know: it refuses a name none of them has */
    [TW_SETTING_LINK] = {{.name = "TW_LINK",
                          .type = TW_SETTING_STRING,
                          .owner = TW_OWNER_DEVICE,
                          .default_value = "auto",
                          .form = "auto, or the name of a link of this build (twinfo --links)",
                          .meaning = "auto (shm on this node, udp to others, ofi instead of "
                                     "udp where libfabric offers a hardware provider), or the "
                                     "link for every peer: udp or ofi (those on this node too), "
                                     "shm (a job on one node only)"},
                         TEXT(link),
                         .has_form = link_name_ok},
    [TW_SETTING_UDP_ADDR] = {{.name = "TW_UDP_ADDR",
                              .type = TW_SETTING_STRING,
                              .owner = TW_OWNER_LINK,
                              .default_value = "",
                              .form = "an IPv4 address such as 10.0.0.1",
                              .meaning = "IPv4 address the udp link binds (default: 127.0.0.1 "
                                         "when every rank is on this node, else the first "
                                         "non-loopback address that is up, else 127.0.0.1)"},
                             TEXT(udp_addr),
                             .has_form = ipv4_ok},
    [TW_SETTING_UDP_TIMEOUT] = {{.name = "TW_UDP_TIMEOUT",
                                 .type = TW_SETTING_UNSIGNED,
                                 .owner = TW_OWNER_LINK,
                                 .default_value = TEXT_OF(TW_UDP_TIMEOUT_DEFAULT),
                                 .min = 100,
                                 .max = 3600000,
                                 .unit = "milliseconds",
                                 .meaning =
                                     "how long a peer may stay silent, probed while this rank "
                                     "waits or with data outstanding, before it is declared "
                                     "lost (a thread answers probes, so a peer that computes "
                                     "is alive)"},
                                NUMBER(udp_timeout_ms)},
    [TW_SETTING_UDP_RTO] = {{.name = "TW_UDP_RTO",
                             .type = TW_SETTING_UNSIGNED,
                             .owner = TW_OWNER_LINK,
                             .default_value = TEXT_OF(TW_UDP_RTO_DEFAULT),
                             .min = 100,
                             .max = 10000000,
                             .unit = "microseconds",
                             .meaning =
                                 "least time before the udp link sends a packet again on a "
                                 "timeout (doubling per timeout, up to 64x); the first after "
                                 "progress is a probe, due sooner: two smoothed round trips "
                                 "and the ack delay"},
                            NUMBER(udp_rto_us)},
    [TW_SETTING_UDP_WINDOW] = {{.name = "TW_UDP_WINDOW",
                                .type = TW_SETTING_UNSIGNED,
                                .owner = TW_OWNER_LINK,
                                .default_value = "auto",
                                .min = 48,
                                .max = 65536,
                                .unit = "packets",
                                .special = "auto",
                                .meaning = "udp packets in flight per peer; auto: 1 MiB of them at "
                                           "the link's MTU, and at least 64"},
                               NUMBER(udp_window)},
    [TW_SETTING_UDP_MTU] = {{.name = "TW_UDP_MTU",
                             .type = TW_SETTING_SIZE,
                             .owner = TW_OWNER_LINK,
                             .default_value = "auto",
                             .min = 1500,
                             .max = 65535,
                             .unit = "bytes",
                             .special = "auto",
                             .meaning = "largest IP datagram the udp link sends; auto: the MTU of "
                                        "the interface the link binds, within the range"},
                            NUMBER(udp_mtu)},
    [TW_SETTING_UDP_FAULTS] = {{.name = "TW_UDP_FAULTS",
                                .type = TW_SETTING_LIST,
                                .owner = TW_OWNER_LINK,
                                .default_value = "",
                                .choices = fault_keys,
                                .nchoices = sizeof fault_keys / sizeof fault_keys[0],
                                .form = "comma-separated drop=P, duplicate=P, reorder=P, "
                                        "corrupt=P, delay=P (P from 0 to 1; drop and corrupt "
                                        "below 1), delay_us=N or seed=N",
                                .meaning = "faults the udp link injects into what it sends, for "
                                           "tests: each kind with its probability, the delay in "
                                           "microseconds, the seed of the random choices. A drop "
                                           "or corrupt rate of 1, under which no packet gets "
                                           "through, is refused"},
                               .store = STORE_FAULTS},
    [TW_SETTING_UDP_AUTH] = {{.name = "TW_UDP_AUTH",
                              CHOICES(udp_auth_names),
                              .owner = TW_OWNER_LINK,
                              .default_value = "auto",
                              .meaning = "what the MAC of every udp packet covers: auto or "
                                         "header, the header (the payload through its CRC32C); "
                                         "payload, the payload too (no receiving in place); the "
                                         "same on every rank of a job"},
                             NUMBER(udp_auth)},
    [TW_SETTING_OFI_MR] = {{.name = "TW_OFI_MR",
                            CHOICES(ofi_mr_names),
                            .owner = TW_OWNER_LINK,
                            .default_value = "auto",
                            .meaning = "the ofi link's memory registration: auto, what the "
                                       "provider's mr_mode asks for; strict, every buffer "
                                       "registered and its descriptor passed even where the "
                                       "provider needs none (tests the paths hardware takes)"},
                           NUMBER(ofi_mr)},
    [TW_SETTING_OFI_RMA] = {{.name = "TW_OFI_RMA",
                             CHOICES(ofi_rma_names),
                             .owner = TW_OWNER_LINK,
                             .default_value = "auto",
                             .meaning = "how the ofi link moves puts and gets: native, with the "
                                        "fabric's own writes and reads where the provider "
                                        "offers them (FI_RMA), the target's key checked by its "
                                        "device first; messages, executed by the target's "
                                        "device as over udp; auto, native on a hardware "
                                        "provider, and on a software one (tcp, shm…) native "
                                        "for puts of 128 KiB or more only (below, a "
                                        "rendezvous was slower natively), gets and shorter "
                                        "puts as messages"},
                            NUMBER(ofi_rma)},
    [TW_SETTING_PROGRESS_THREAD] = {{.name = "TW_PROGRESS_THREAD",
                                     .type = TW_SETTING_BOOLEAN,
                                     .owner = TW_OWNER_DEVICE,
                                     .default_value = "0",
                                     .meaning = "1: a thread of each endpoint serves the links "
                                                "that carry messages, udp (RMA requests, atomics "
                                                "and messages from other nodes) while the process "
                                                "computes outside tollway calls; 0: only tollway "
                                                "calls do"},
                                    NUMBER(progress_thread)},
    [TW_SETTING_PROGRESS_INTERVAL] = {{.name = "TW_PROGRESS_INTERVAL",
                                       .type = TW_SETTING_UNSIGNED,
                                       .owner = TW_OWNER_DEVICE,
                                       .default_value = TEXT_OF(TW_PROGRESS_INTERVAL_DEFAULT),
                                       .min = 10,
                                       .max = 1000000,
                                       .unit = "microseconds",
                                       .meaning = "how long the progress thread sleeps between "
                                                  "looks at the links when nothing comes (it "
                                                  "wakes at once when a packet arrives)"},
                                      NUMBER(progress_interval_us)},
    [TW_SETTING_COLL_BCAST] = {{.name = "TW_COLL_BCAST",
                                CHOICES(bcast_names),
                                .owner = TW_OWNER_MPI,
                                .default_value = "auto",
                                .meaning = "MPI broadcast algorithm: binomial (tree), "
                                           "scatter-allgather (binomial scatter, then ring "
                                           "allgather), shm (through shared memory, on one node), "
                                           "or auto (the tuning table: shm on one node where it "
                                           "was measured faster; else scatter-allgather from 64 "
                                           "KiB on 3 or more ranks)"},
                               NUMBER(coll_bcast)},
    [TW_SETTING_COLL_REDUCE] = {{.name = "TW_COLL_REDUCE",
                                 CHOICES(reduce_names),
                                 .owner = TW_OWNER_MPI,
                                 .default_value = "auto",
                                 .meaning = "MPI reduce algorithm: binomial (tree), ring (ring "
                                            "reduce-scatter, then the blocks gathered at the root; "
                                            "commutative ops only), shm (through shared memory, on "
                                            "one node), or auto (the tuning table: shm on one node "
                                            "where it was measured faster; else ring from 64 KiB)"},
                                NUMBER(coll_reduce)},
    [TW_SETTING_COLL_ALLREDUCE] = {{.name = "TW_COLL_ALLREDUCE",
                                    CHOICES(allreduce_names),
                                    .owner = TW_OWNER_MPI,
                                    .default_value = "auto",
                                    .meaning =
                                        "MPI allreduce algorithm: recursive-doubling, ring "
                                        "(ring reduce-scatter, then ring allgather; "
                                        "commutative ops only), shm (through shared memory, "
                                        "on one node), or auto (the tuning table: shm on one "
                                        "node where it was measured faster; else ring from "
                                        "64 KiB)"},
                                   NUMBER(coll_allreduce)},
    [TW_SETTING_COLL_ALLGATHER] = {{.name = "TW_COLL_ALLGATHER",
                                    CHOICES(allgather_names),
                                    .owner = TW_OWNER_MPI,
                                    .default_value = "auto",
                                    .meaning = "MPI allgather algorithm: bruck, ring, shm (through "
                                               "shared memory, on one node), or auto (the tuning "
                                               "table: shm on one node where it was measured "
                                               "faster; else ring from 64 KiB gathered, and on 2 "
                                               "ranks)"},
                                   NUMBER(coll_allgather)},
    [TW_SETTING_COLL_ALLTOALL] = {{.name = "TW_COLL_ALLTOALL",
                                   CHOICES(alltoall_names),
                                   .owner = TW_OWNER_MPI,
                                   .default_value = "auto",
                                   .meaning = "MPI alltoall(v,w) algorithm: linear (every exchange "
                                              "at once), pairwise (one peer per round), shm "
                                              "(through shared memory, on one node; alltoall "
                                              "only), or auto (the tuning table: shm on one node "
                                              "where it was measured faster; else pairwise from "
                                              "8 KiB per peer)"},
                                  NUMBER(coll_alltoall)},
    [TW_SETTING_COLL_GATHER] = {{.name = "TW_COLL_GATHER",
                                 CHOICES(gather_names),
                                 .owner = TW_OWNER_MPI,
                                 .default_value = "auto",
                                 .meaning = "MPI gather and scatter algorithm: binomial, linear, "
                                            "shm (through shared memory, on one node), or auto "
                                            "(the tuning table: shm on one node where it was "
                                            "measured faster; else binomial up to 8 KiB in all on "
                                            "3 or more ranks)"},
                                NUMBER(coll_gather)},
    [TW_SETTING_COLL_BARRIER] = {{.name = "TW_COLL_BARRIER",
                                  CHOICES(barrier_names),
                                  .owner = TW_OWNER_MPI,
                                  .default_value = "auto",
                                  .meaning = "MPI barrier algorithm: dissemination (messages), shm "
                                             "(shared cache lines, on one node), or auto (shm on "
                                             "one node)"},
                                 NUMBER(coll_barrier)},
    [TW_SETTING_COLL_REDUCE_SCATTER] = {{.name = "TW_COLL_REDUCE_SCATTER",
                                         CHOICES(reduce_scatter_names),
                                         .owner = TW_OWNER_MPI,
                                         .default_value = "auto",
                                         .meaning = "MPI reduce_scatter(_block) algorithm: ring "
                                                    "(commutative ops only), reduce-scatterv "
                                                    "(reduce to rank 0, then scatterv), shm "
                                                    "(through shared memory, on one node; equal "
                                                    "blocks only), or auto (the tuning table: shm "
                                                    "on one node where it was measured faster; "
                                                    "else ring from 64 KiB with a commutative op)"},
                                        NUMBER(coll_reduce_scatter)},
    [TW_SETTING_COLL_SCAN] = {{.name = "TW_COLL_SCAN",
                               CHOICES(scan_names),
                               .owner = TW_OWNER_MPI,
                               .default_value = "auto",
                               .meaning = "MPI scan and exscan algorithm: recursive-doubling "
                                          "(messages), shm (through shared memory, on one node: "
                                          "shm-chain from 128 KiB on 4 or more ranks, else "
                                          "shm-whole), shm-whole (each rank combines the inputs "
                                          "of the ranks before it), shm-chain (each rank "
                                          "combines its input with the prefix of the rank before "
                                          "it), or auto (the tuning table: shm on one node where "
                                          "it was measured faster; else recursive-doubling)"},
                              NUMBER(coll_scan)},
    [TW_SETTING_COLL_SHM] = {{.name = "TW_COLL_SHM",
                              CHOICES(coll_shm_names),
                              .owner = TW_OWNER_MPI,
                              .default_value = "auto",
                              .meaning = "MPI collectives on a communicator whose ranks share a "
                                         "node (blocking barrier, bcast, reduce, allreduce, "
                                         "gather, scatter, allgather, reduce_scatter_block): shm "
                                         "(every call through shared memory, up to 4 MiB in a "
                                         "buffer), p2p (messages), or auto (as the tuning table "
                                         "and TW_COLL_<NAME> choose)"},
                             NUMBER(coll_shm)},
    [TW_SETTING_COLL_STREAM] = {{.name = "TW_COLL_STREAM",
                                 .type = TW_SETTING_SIZE,
                                 .owner = TW_OWNER_MPI,
                                 .default_value = "4096",
                                 .min = 0,
                                 .max = 1ull << 40,
                                 .unit = "bytes",
                                 .meaning = "a reduction, allreduce or broadcast through "
                                            "shared memory may write the parts other ranks read "
                                            "with non-temporal stores from this many bytes a part "
                                            "on (as TW_COLL_STREAM_RATE decides), which need not "
                                            "take the lines from the core that read them last; 0 "
                                            "turns it off"},
                                NUMBER(coll_stream)},
    [TW_SETTING_COLL_STREAM_RATE] = {{.name = "TW_COLL_STREAM_RATE",
                                      .type = TW_SETTING_UNSIGNED,
                                      .owner = TW_OWNER_MPI,
                                      .default_value = "4000",
                                      .min = 0,
                                      .max = 1000000,
                                      .unit = "MB/s",
                                      .meaning = "parts of TW_COLL_STREAM bytes or more are "
                                                 "streamed while a plain copy into the segment "
                                                 "runs slower than this (between cores that share "
                                                 "no cache), as timed on the first of every 64 "
                                                 "such parts, which goes plainly; 0 streams every "
                                                 "such part"},
                                     NUMBER(coll_stream_rate)},
    [TW_SETTING_CC] = {{.name = "TW_CC",
                        .type = TW_SETTING_STRING,
                        .owner = TW_OWNER_TOOLS,
                        .default_value = "",
                        .form = "a command",
                        .meaning = "C compiler mpicc runs: after -cc=, before MPICH_CC and "
                                   "OMPI_CC (default: the one Tollway was built with)"},
                       .store = STORE_NONE},
    [TW_SETTING_CXX] = {{.name = "TW_CXX",
                         .type = TW_SETTING_STRING,
                         .owner = TW_OWNER_TOOLS,
                         .default_value = "",
                         .form = "a command",
                         .meaning = "C++ compiler mpicxx runs: after -cxx=, before MPICH_CXX "
                                    "and OMPI_CXX (default: c++)"},
                        .store = STORE_NONE},
    [TW_SETTING_JOB_ID] = {{.name = "TW_JOB_ID",
                            .type = TW_SETTING_HEX,
                            .owner = TW_OWNER_LAUNCHER,
                            .default_value = "",
                            .min = 1,
                            .max = 32,
                            .meaning = "job id; names the job's shared-memory objects"},
                           TEXT(job_id)},
    [TW_SETTING_JOB_KEY] = {{.name = "TW_JOB_KEY",
                             .type = TW_SETTING_HEX,
                             .owner = TW_OWNER_LAUNCHER,
                             .default_value = "",
                             .min = 16,
                             .max = 16,
                             .meaning = "random 64-bit job key; checked on every mailbox mapped"},
                            NUMBER(job_key),
                            .has_flag = 1,
                            .flag_offset = offsetof(tw_config_t, has_job_key)},
    [TW_SETTING_JOB_SECRET] = {{.name = "TW_JOB_SECRET",
                                .type = TW_SETTING_HEX,
                                .owner = TW_OWNER_LAUNCHER,
                                .default_value = "",
                                .min = 32,
                                .max = 32,
                                .meaning = "random 128-bit job secret; keys the MAC of every udp "
                                           "packet, never sent"},
                               TEXT(job_secret)},
    [TW_SETTING_LOCAL_RANK] = {{.name = "TW_LOCAL_RANK",
                                .type = TW_SETTING_UNSIGNED,
                                .owner = TW_OWNER_LAUNCHER,
                                .default_value = "",
                                .min = 0,
                                .max = 1 << 30,
                                .meaning = "rank among the ranks on this node"},
                               NUMBER(local_rank),
                               .unset = -1},
    [TW_SETTING_LOCAL_SIZE] = {{.name = "TW_LOCAL_SIZE",
                                .type = TW_SETTING_UNSIGNED,
                                .owner = TW_OWNER_LAUNCHER,
                                .default_value = "",
                                .min = 1,
                                .max = 1 << 30,
                                .unit = "ranks",
                                .meaning = "number of ranks on this node"},
                               NUMBER(local_size),
                               .unset = -1},
    [TW_SETTING_BOUND_CORE] = {{.name = "TW_BOUND_CORE",
                                .type = TW_SETTING_UNSIGNED,
                                .owner = TW_OWNER_LAUNCHER,
                                .default_value = "",
                                .min = 0,
                                .max = 1 << 20,
                                .meaning = "core the rank is bound to, when twrun binds"},
                               .store = STORE_NONE},
    [TW_SETTING_MACHINE_SIZE] = {{.name = "TW_MACHINE_SIZE",
                                  .type = TW_SETTING_UNSIGNED,
                                  .owner = TW_OWNER_LAUNCHER,
                                  .default_value = "",
                                  .min = 1,
                                  .max = 1 << 30,
                                  .unit = "ranks",
                                  .meaning = "number of ranks on this machine when its nodes are "
                                             "network namespaces that share its CPUs: a node's "
                                             "ranks count on their share of them"},
                                 NUMBER(machine_size),
                                 .unset = -1},
    [TW_SETTING_LAUNCHER] = {{.name = "TW_LAUNCHER",
                              CHOICES(launcher_names),
                              .owner = TW_OWNER_TOOLS,
                              .default_value = "auto",
                              .meaning = "who starts the ranks of twrun (mpiexec, mpirun): auto "
                                         "(inside a Slurm allocation, SLURM_JOB_ID set and "
                                         "SLURM_STEP_ID not, Slurm's srun on the allocation's "
                                         "nodes; else twrun on this machine), fork (twrun on "
                                         "this machine, allocation or not), or slurm (srun; "
                                         "only inside an allocation). twrun's -launcher and "
                                         "-bootstrap options win over it"},
                             NUMBER(launcher)},
    [TW_SETTING_ABI] = {{.name = "TW_ABI",
                         CHOICES(abi_names),
                         .owner = TW_OWNER_TOOLS,
                         .default_value = "auto",
                         .meaning = "whether twrun (mpiexec, mpirun) checks which MPI a program "
                                    "was built for before starting it: auto (a program built "
                                    "for another MPI's ABI gets Tollway's face of that ABI on "
                                    "its library path; one no face serves, or with another "
                                    "MPI linked in statically, is refused with a message), or "
                                    "off (every program starts as it is)"},
                        .store = STORE_NONE},
};

/* ---- checks of values ---- */

static int parse_long(const char *s, long min, long max, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < min || v > max) return -1;
    *out = v;
    return 0;
}

static int is_hex(const char *s, size_t minlen, size_t maxlen) {
    size_t n = strlen(s);
    if (n < minlen || n > maxlen) return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return 0;
    return 1;
}

static int parse_prob(const char *s, size_t n, double *out) {
    char buf[32], *end;
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    double v = strtod(buf, &end);
    if (errno || *end || !(v >= 0 && v <= 1)) return -1;
    *out = v;
    return 0;
}

enum { FAULTS_NO_PROGRESS = -2 }; /* parse_faults: well formed, but nothing gets through */

/* "drop=0.01,corrupt=0.001,delay_us=500,..."; -1 when malformed, FAULTS_NO_PROGRESS
 * when every packet would be dropped or corrupted (and the job would run until its
 * timeout). */
static int parse_faults(tw_config_t *cfg, const char *value) {
    for (const char *p = value; *p;) {
        const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (!eq) return -1;
        size_t klen = (size_t)(eq - p), vlen = (size_t)(end - eq - 1);
        struct {
            const char *key;
            double *prob;
        } probs[] = {{"drop", &cfg->fault_drop},
                     {"duplicate", &cfg->fault_duplicate},
                     {"reorder", &cfg->fault_reorder},
                     {"corrupt", &cfg->fault_corrupt},
                     {"delay", &cfg->fault_delay}};
        int known = 0;
        for (size_t k = 0; k < sizeof probs / sizeof probs[0]; k++)
            if (strlen(probs[k].key) == klen && !strncmp(p, probs[k].key, klen)) {
                if (parse_prob(eq + 1, vlen, probs[k].prob)) return -1;
                known = 1;
            }
        if (!known) {
            char num[24];
            long v;
            if (vlen == 0 || vlen >= sizeof num) return -1;
            memcpy(num, eq + 1, vlen);
            num[vlen] = '\0';
            if (klen == 8 && !strncmp(p, "delay_us", 8) && !parse_long(num, 0, 10000000, &v))
                cfg->fault_delay_us = (uint32_t)v;
            else if (klen == 4 && !strncmp(p, "seed", 4) && !parse_long(num, 0, LONG_MAX, &v))
                cfg->fault_seed = (uint64_t)v;
            else
                return -1;
        }
        if (comma && !comma[1]) return -1; /* a trailing comma: an item missing */
        p = comma ? comma + 1 : end;
    }
    /* a corrupted packet fails its check and is dropped by the receiver too */
    if ((1 - cfg->fault_drop) * (1 - cfg->fault_corrupt) <= 0) return FAULTS_NO_PROGRESS;
    return 0;
}

/* Dotted IPv4 exactly as the link will read it (inet_pton), so nothing accepted here
 * is refused there. */
static int ipv4_ok(const char *s) {
    struct in_addr a;
    return strlen(s) < 16 && inet_pton(AF_INET, s, &a) == 1;
}

/* A link's name as a field of an address tags it: lowercase letters and digits. */
static int link_name_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 15) return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z'))) return 0;
    return 1;
}

static int node_name_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 63) return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= 'A' && s[i] <= 'Z') || strchr("._-~", s[i])))
            return 0;
    return 1;
}

static int is_number_type(tw_setting_type_t t) {
    return t == TW_SETTING_UNSIGNED || t == TW_SETTING_SIZE || t == TW_SETTING_POWER_OF_TWO ||
           t == TW_SETTING_BOOLEAN;
}

int tw_setting_allowed(tw_setting_id_t id, char *buf, size_t len) {
    const tw_setting_info_t *in = tw_setting_info(id);
    if (!in) return snprintf(buf, len, "%s", "");
    const char *unit = in->unit ? in->unit : "";
    const char *space = in->unit ? " " : "";
    unsigned long long min = in->min, max = in->max;
    switch (in->type) {
    case TW_SETTING_UNSIGNED:
    case TW_SETTING_SIZE:
        return snprintf(buf, len, "%s%s%llu to %llu%s%s", in->special ? in->special : "",
                        in->special ? " or " : "", min, max, space, unit);
    case TW_SETTING_POWER_OF_TWO:
        return snprintf(buf, len, "a power of two from %llu to %llu%s%s", min, max, space, unit);
    case TW_SETTING_BOOLEAN:
        return snprintf(buf, len, "0 or 1");
    case TW_SETTING_CHOICE: {
        int n = 0;
        for (size_t i = 0; i < in->nchoices; i++) {
            const char *sep = i == 0 ? "" : i + 1 == in->nchoices ? " or " : ", ";
            size_t at = (size_t)n < len ? (size_t)n : len;
            n += snprintf(buf + at, len - at, "%s%s", sep, in->choices[i]);
        }
        return n;
    }
    case TW_SETTING_HEX:
        if (min == max) return snprintf(buf, len, "%llu lowercase hex digits", min);
        return snprintf(buf, len, "%llu to %llu lowercase hex digits", min, max);
    case TW_SETTING_STRING:
    case TW_SETTING_LIST:
        break;
    }
    return snprintf(buf, len, "%s", in->form);
}

/* Number fields are uint64_t, or 32 bits: uint32_t, int or an enum. */
static void store_number(tw_config_t *cfg, const setting_row_t *row, uint64_t v) {
    char *field = (char *)cfg + row->offset;
    if (row->size == sizeof(uint64_t)) {
        memcpy(field, &v, sizeof v);
    } else {
        uint32_t v32 = (uint32_t)v; /* int and enum fields too: -1 stays -1 */
        memcpy(field, &v32, sizeof v32);
    }
}

static uint64_t load_number(const tw_config_t *cfg, const setting_row_t *row) {
    const char *field = (const char *)cfg + row->offset;
    if (row->size == sizeof(uint64_t)) {
        uint64_t v;
        memcpy(&v, field, sizeof v);
        return v;
    }
    uint32_t v32;
    memcpy(&v32, field, sizeof v32);
    return v32;
}

static int invalid(const setting_row_t *row, const char *value, char *err, size_t errlen) {
    char allowed[200];
    tw_setting_allowed((tw_setting_id_t)(row - rows), allowed, sizeof allowed);
    snprintf(err, errlen, "tollway: invalid %s='%s': must be %s", row->info.name, value, allowed);
    return -1;
}

/* Checks value against the row and stores it in cfg. */
static int set_value(tw_config_t *cfg, const setting_row_t *row, const char *value, char *err,
                     size_t errlen) {
    const tw_setting_info_t *in = &row->info;
    uint64_t number = 0;
    long v;
    switch (in->type) {
    case TW_SETTING_UNSIGNED:
    case TW_SETTING_SIZE:
    case TW_SETTING_POWER_OF_TWO:
        if (in->special && !strcmp(value, in->special)) break; /* 0 */
        if (parse_long(value, (long)in->min, (long)in->max, &v) ||
            (in->type == TW_SETTING_POWER_OF_TWO && (v & (v - 1))))
            return invalid(row, value, err, errlen);
        number = (uint64_t)v;
        break;
    case TW_SETTING_BOOLEAN:
        if (strcmp(value, "0") && strcmp(value, "1")) return invalid(row, value, err, errlen);
        number = value[0] == '1';
        break;
    case TW_SETTING_CHOICE:
        while (number < in->nchoices && strcmp(value, in->choices[number])) number++;
        if (number == in->nchoices) return invalid(row, value, err, errlen);
        break;
    case TW_SETTING_HEX:
        if (!is_hex(value, in->min, in->max)) return invalid(row, value, err, errlen);
        number = strtoull(value, NULL, 16);
        break;
    case TW_SETTING_STRING:
        if (row->has_form && !row->has_form(value)) return invalid(row, value, err, errlen);
        break;
    case TW_SETTING_LIST: {
        int rc = parse_faults(cfg, value);
        if (rc == FAULTS_NO_PROGRESS) {
            snprintf(err, errlen,
                     "tollway: invalid %s='%s': no packet would get through (drop=%g, "
                     "corrupt=%g); drop and corrupt must each be below 1",
                     in->name, value, cfg->fault_drop, cfg->fault_corrupt);
            return -1;
        }
        if (rc) return invalid(row, value, err, errlen);
        break;
    }
    }
    switch (row->store) {
    case STORE_NUMBER:
        store_number(cfg, row, number);
        break;
    case STORE_TEXT:
        if (strlen(value) >= row->size) return invalid(row, value, err, errlen);
        strcpy((char *)cfg + row->offset, value);
        break;
    case STORE_NONE:
    case STORE_FAULTS:
        break;
    }
    if (row->has_flag) *(int *)((char *)cfg + row->flag_offset) = 1;
    return 0;
}

/* The row of a "NAME=value" entry; NULL when the name is not in the table. */
static const setting_row_t *row_of(const char *entry, size_t name_len) {
    for (size_t i = 0; i < TW_SETTING_COUNT; i++)
        if (strlen(rows[i].info.name) == name_len && !strncmp(entry, rows[i].info.name, name_len))
            return &rows[i];
    return NULL;
}

/* Defaults, then the TW_* entries of envp; texts (optional) learns each entry's value. */
static int parse_env(tw_config_t *cfg, char *const *envp, const char **texts, char *err,
                     size_t errlen) {
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < TW_SETTING_COUNT; i++) {
        const setting_row_t *row = &rows[i];
        if (row->info.default_value[0]) {
            if (set_value(cfg, row, row->info.default_value, err, errlen)) return -1;
        } else if (row->store == STORE_NUMBER) {
            store_number(cfg, row, (uint64_t)row->unset);
        }
    }
    for (char *const *e = envp; e && *e; e++) {
        if (strncmp(*e, "TW_", 3) != 0) continue;
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        const setting_row_t *row = row_of(*e, (size_t)(eq - *e));
        if (!row) {
            snprintf(err, errlen,
                     "tollway: unknown variable %.*s (twinfo lists the TW_* variables)",
                     (int)(eq - *e < 60 ? eq - *e : 60), *e);
            return -1;
        }
        if (texts) texts[row - rows] = eq + 1;
        if (set_value(cfg, row, eq + 1, err, errlen)) return -1;
    }
    return 0;
}

int tw_config_parse(tw_config_t *cfg, char *const *envp, char *err, size_t errlen) {
    return parse_env(cfg, envp, NULL, err, errlen);
}

/* ---- the process's settings ---- */

extern char **environ;

static tw_config_t process_config;
static tw_config_t defaults_config; /* in effect when the environment is invalid */
static int process_state;           /* 0 unparsed, 1 good, -1 invalid */
/* The environment's text of each setting, pointing into environ (whose strings
 * setenv and unsetenv leave in place); NULL: unset. */
static const char *process_texts[TW_SETTING_COUNT];

const tw_config_t *tw_config(void) {
    if (process_state == 0) {
        char err[256];
        int rc = parse_env(&process_config, environ, process_texts, err, sizeof err);
        process_state = rc ? -1 : 1;
        if (rc) {
            fprintf(stderr, "%s\n", err);
            /* every entry's text, also those after the invalid one */
            for (char **e = environ; e && *e; e++) {
                const char *eq = strncmp(*e, "TW_", 3) ? NULL : strchr(*e, '=');
                const setting_row_t *row = eq ? row_of(*e, (size_t)(eq - *e)) : NULL;
                if (row) process_texts[row - rows] = eq + 1;
            }
            parse_env(&defaults_config, NULL, NULL, err, sizeof err);
        }
    }
    return process_state > 0 ? &process_config : NULL;
}

static const tw_config_t *in_effect(void) {
    const tw_config_t *cfg = tw_config();
    return cfg ? cfg : &defaults_config;
}

/* ---- the public API ---- */

size_t tw_setting_count(void) {
    return TW_SETTING_COUNT;
}

const tw_setting_info_t *tw_setting_info(tw_setting_id_t id) {
    return (unsigned)id < TW_SETTING_COUNT ? &rows[id].info : NULL;
}

int tw_setting_find(const char *name) {
    const setting_row_t *row = name ? row_of(name, strlen(name)) : NULL;
    return row ? (int)(row - rows) : -1;
}

const char *tw_setting_type_name(tw_setting_type_t type) {
    static const char *const names[] = {[TW_SETTING_UNSIGNED] = "unsigned",
                                        [TW_SETTING_SIZE] = "size",
                                        [TW_SETTING_POWER_OF_TWO] = "power of two",
                                        [TW_SETTING_BOOLEAN] = "boolean",
                                        [TW_SETTING_CHOICE] = "choice",
                                        [TW_SETTING_STRING] = "string",
                                        [TW_SETTING_HEX] = "hex",
                                        [TW_SETTING_LIST] = "list"};
    return (unsigned)type < sizeof names / sizeof names[0] ? names[type] : "?";
}

const char *tw_setting_owner_name(tw_setting_owner_t owner) {
    static const char *const names[] = {
        [TW_OWNER_RUNTIME] = "runtime",   [TW_OWNER_DEVICE] = "device",
        [TW_OWNER_LINK] = "link",         [TW_OWNER_MPI] = "mpi",
        [TW_OWNER_LAUNCHER] = "launcher", [TW_OWNER_TOOLS] = "tools"};
    return (unsigned)owner < sizeof names / sizeof names[0] ? names[owner] : "?";
}

int tw_settings_status(void) {
    return tw_config() ? TW_OK : TW_ERR_CONFIG;
}

int tw_setting_is_set(tw_setting_id_t id) {
    if ((unsigned)id >= TW_SETTING_COUNT) return 0;
    tw_config();
    return process_texts[id] != NULL;
}

const char *tw_setting_text(tw_setting_id_t id) {
    if ((unsigned)id >= TW_SETTING_COUNT) return NULL;
    tw_config();
    return process_texts[id] ? process_texts[id] : rows[id].info.default_value;
}

uint64_t tw_setting_unsigned(tw_setting_id_t id) {
    if ((unsigned)id >= TW_SETTING_COUNT) return 0;
    const setting_row_t *row = &rows[id];
    const tw_config_t *cfg = in_effect();
    int valid = cfg != &defaults_config;
    if (!is_number_type(row->info.type) && row->info.type != TW_SETTING_HEX) return 0;
    if (row->store == STORE_NUMBER) {
        if (row->info.default_value[0] || (valid && process_texts[id]))
            return load_number(cfg, row);
        return 0;
    }
    /* checked, not stored: read from its text */
    const char *text = valid ? tw_setting_text(id) : row->info.default_value;
    return row->info.type == TW_SETTING_HEX || !text[0] ? 0 : strtoull(text, NULL, 10);
}

int tw_setting_choice(tw_setting_id_t id) {
    if ((unsigned)id >= TW_SETTING_COUNT || rows[id].info.type != TW_SETTING_CHOICE) return -1;
    return (int)load_number(in_effect(), &rows[id]);
}
