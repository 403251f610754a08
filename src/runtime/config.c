#include "runtime/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const tw_config_var_t vars[] = {
    {"TW_VELO_SLOTS", "4096",
     "slots (64 B each) in an endpoint's VELO mailbox; a power of two, 128..1048576", 0},
    {"TW_NQ_SLOTS", "1024",
     "entries (64 B each) in an endpoint's notification queue; a power of two, 128..1048576", 0},
    {"TW_ATU_ENTRIES", "1024", "registrations an endpoint can hold at once; 16..65535", 0},
    {"TW_RMA_COPY", "auto",
     "how RMA reaches ordinary registered memory of a peer on this node: cma (one "
     "process_vm_readv/writev), pipeline (chunks through shared memory, moved by the target), "
     "or auto (cma, pipeline where the kernel refuses it)",
     0},
    {"TW_RMA_SLOTS", "2048",
     "slots (64 B each) of each pipelined-RMA request and response ring; a power of two, "
     "1024..1048576",
     0},
    {"TW_STATS", "0", "1: print each endpoint's counters on stderr when it closes", 0},
    {"TW_WAIT", "auto",
     "how blocking calls wait: spin, yield (give the core away between polls), or auto "
     "(spin while the node has a core per rank)",
     0},
    {"TW_EAGER_LIMIT", "4088",
     "largest MPI message, in bytes, sent eagerly (copied through the receiver's mailbox); "
     "longer ones go by rendezvous (the receiver gets them from the sender's buffer); 0..4088",
     0},
    {"TW_RNDV_SPLIT", "65536",
     "MPI messages from this many bytes on, between ranks on one node (over shm), are "
     "copied by both sides at once: the receiver gets the first half while the sender puts "
     "the second; 0 turns it off",
     0},
    {"TW_NODE", "",
     "this node's identity; ranks with the same one talk over shared memory, others over udp "
     "(default: the host name and the network namespace)",
     0},
    {"TW_LINK", "auto", "auto (shm on this node, udp to others), or udp: every peer over udp", 0},
    {"TW_UDP_ADDR", "",
     "IPv4 address the udp link binds (default: the first non-loopback address that is up, "
     "else 127.0.0.1)",
     0},
    {"TW_UDP_TIMEOUT", "30000",
     "milliseconds a peer with data outstanding to it may stay silent before it is declared "
     "lost (it answers while it makes progress: inside tollway calls); 100..3600000",
     0},
    {"TW_UDP_RTO", "2000",
     "least microseconds before the udp link sends a packet again on a timeout (doubling per "
     "timeout, up to 64x); the first after progress is a probe, due sooner: two smoothed round "
     "trips and the ack delay; 100..10000000",
     0},
    {"TW_UDP_WINDOW", "64", "udp packets in flight per peer; 48..65536", 0},
    {"TW_UDP_MTU", "auto",
     "bytes of IP datagram the udp link sends at most: 1500..65535, or auto (the MTU of the "
     "interface the link binds, within those bounds)",
     0},
    {"TW_UDP_FAULTS", "",
     "faults the udp link injects into what it sends, for tests: comma-separated drop=P, "
     "duplicate=P, reorder=P, corrupt=P, delay=P (probabilities 0..1), delay_us=N, seed=N",
     0},
    {"TW_PROGRESS_THREAD", "0",
     "1: a thread of each endpoint serves the udp link (RMA requests, atomics and messages "
     "from other nodes) while the process computes outside tollway calls; 0: only tollway "
     "calls do",
     0},
    {"TW_PROGRESS_INTERVAL", "200",
     "microseconds the progress thread sleeps between looks at the link when nothing comes "
     "(it wakes at once when a packet arrives); 10..1000000",
     0},
    {"TW_COLL_BCAST", "auto",
     "MPI broadcast algorithm: binomial (tree), scatter_ring (binomial scatter, then ring "
     "allgather), or auto (scatter_ring from 64 KiB on 3 or more ranks)",
     0},
    {"TW_COLL_REDUCE", "auto",
     "MPI reduce algorithm: binomial (tree), ring (ring reduce-scatter, then the blocks "
     "gathered at the root; commutative ops only), or auto (ring from 64 KiB)",
     0},
    {"TW_COLL_ALLREDUCE", "auto",
     "MPI allreduce algorithm: recdbl (recursive doubling), ring (ring reduce-scatter, then "
     "ring allgather; commutative ops only), or auto (ring from 64 KiB)",
     0},
    {"TW_COLL_ALLGATHER", "auto",
     "MPI allgather algorithm: bruck, ring, or auto (ring from 64 KiB gathered)", 0},
    {"TW_COLL_ALLTOALL", "auto",
     "MPI alltoall(v,w) algorithm: linear (every exchange at once), pairwise (one peer per "
     "round), or auto (pairwise from 8 KiB per peer)",
     0},
    {"TW_COLL_GATHER", "auto",
     "MPI gather and scatter algorithm: binomial, linear, or auto (binomial up to 8 KiB in all "
     "on 3 or more ranks)",
     0},
    {"TW_COLL_SHM", "auto",
     "MPI barrier, and broadcast and allreduce of up to 56 bytes, on a communicator whose "
     "ranks share a node: shm (through cache lines of a shared-memory block), p2p (messages), "
     "or auto (shm where it can)",
     0},
    {"TW_CC", "", "C compiler mpicc runs (default: the one Tollway was built with)", 0},
    {"TW_CXX", "", "C++ compiler mpicxx runs (default: c++)", 0},
    {"TW_JOB_ID", "", "job id (hex); names the job's shared-memory objects", 1},
    {"TW_JOB_KEY", "", "random 64-bit job key (16 hex digits); checked on every mailbox mapped", 1},
    {"TW_LOCAL_RANK", "", "rank among the ranks on this node", 1},
    {"TW_LOCAL_SIZE", "", "number of ranks on this node", 1},
    {"TW_BOUND_CORE", "", "core the rank is bound to, when twrun binds", 1},
};

const tw_config_var_t *tw_config_vars(size_t *count) {
    *count = sizeof vars / sizeof vars[0];
    return vars;
}

static int fail(char *err, size_t errlen, const char *name, const char *value, const char *why) {
    snprintf(err, errlen, "tollway: invalid %s='%s': %s", name, value, why);
    return -1;
}

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

static int power_of_two(const char *value, long min, long max, uint32_t *out) {
    long v;
    if (parse_long(value, min, max, &v) || (v & (v - 1))) return -1;
    *out = (uint32_t)v;
    return 0;
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

/* "drop=0.01,corrupt=0.001,delay_us=500,..." */
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
    return 0;
}

/* Dotted IPv4 exactly as the link will read it (inet_pton), so nothing accepted here
 * is refused there. */
static int parse_ipv4(const char *s) {
    struct in_addr a;
    return strlen(s) < 16 && inet_pton(AF_INET, s, &a) == 1 ? 0 : -1;
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
/* A TW_COLL_* choice between auto and two algorithms. */
static int coll_choice(const char *value, const char *first, const char *second,
                       tw_coll_choice_t *out) {
    if (!strcmp(value, "auto"))
        *out = TW_COLL_AUTO;
    else if (!strcmp(value, first))
        *out = TW_COLL_FIRST;
    else if (!strcmp(value, second))
        *out = TW_COLL_SECOND;
    else
        return -1;
    return 0;
}

static const struct {
    const char *name, *first, *second, *why;
    size_t offset;
} coll_vars[] = {
    {"TW_COLL_BCAST", "binomial", "scatter_ring", "must be auto, binomial or scatter_ring",
     offsetof(tw_config_t, coll_bcast)},
    {"TW_COLL_REDUCE", "binomial", "ring", "must be auto, binomial or ring",
     offsetof(tw_config_t, coll_reduce)},
    {"TW_COLL_ALLREDUCE", "recdbl", "ring", "must be auto, recdbl or ring",
     offsetof(tw_config_t, coll_allreduce)},
    {"TW_COLL_ALLGATHER", "bruck", "ring", "must be auto, bruck or ring",
     offsetof(tw_config_t, coll_allgather)},
    {"TW_COLL_ALLTOALL", "linear", "pairwise", "must be auto, linear or pairwise",
     offsetof(tw_config_t, coll_alltoall)},
    {"TW_COLL_GATHER", "binomial", "linear", "must be auto, binomial or linear",
     offsetof(tw_config_t, coll_gather)},
    {"TW_COLL_SHM", "p2p", "shm", "must be auto, p2p or shm", offsetof(tw_config_t, coll_shm)},
};

static int set_var(tw_config_t *cfg, const char *name, const char *value, char *err,
                   size_t errlen) {
    long v;
    for (size_t i = 0; i < sizeof coll_vars / sizeof coll_vars[0]; i++) {
        if (strcmp(name, coll_vars[i].name)) continue;
        tw_coll_choice_t *field = (tw_coll_choice_t *)((char *)cfg + coll_vars[i].offset);
        if (coll_choice(value, coll_vars[i].first, coll_vars[i].second, field))
            return fail(err, errlen, name, value, coll_vars[i].why);
        return 0;
    }
    if (strcmp(name, "TW_VELO_SLOTS") == 0) {
        if (power_of_two(value, TW_VELO_SLOTS_MIN, TW_VELO_SLOTS_MAX, &cfg->velo_slots))
            return fail(err, errlen, name, value, "must be a power of two from 128 to 1048576");
    } else if (strcmp(name, "TW_NQ_SLOTS") == 0) {
        if (power_of_two(value, TW_NQ_SLOTS_MIN, TW_VELO_SLOTS_MAX, &cfg->nq_slots))
            return fail(err, errlen, name, value, "must be a power of two from 128 to 1048576");
    } else if (strcmp(name, "TW_RMA_SLOTS") == 0) {
        if (power_of_two(value, TW_RMA_SLOTS_MIN, TW_VELO_SLOTS_MAX, &cfg->rma_slots))
            return fail(err, errlen, name, value, "must be a power of two from 1024 to 1048576");
    } else if (strcmp(name, "TW_ATU_ENTRIES") == 0) {
        if (parse_long(value, TW_ATU_ENTRIES_MIN, TW_ATU_ENTRIES_MAX, &v))
            return fail(err, errlen, name, value, "must be a number from 16 to 65535");
        cfg->atu_entries = (uint32_t)v;
    } else if (strcmp(name, "TW_RMA_COPY") == 0) {
        if (!strcmp(value, "auto"))
            cfg->rma_copy = TW_RMA_COPY_AUTO;
        else if (!strcmp(value, "cma"))
            cfg->rma_copy = TW_RMA_COPY_CMA;
        else if (!strcmp(value, "pipeline"))
            cfg->rma_copy = TW_RMA_COPY_PIPELINE;
        else
            return fail(err, errlen, name, value, "must be auto, cma or pipeline");
    } else if (strcmp(name, "TW_EAGER_LIMIT") == 0) {
        if (parse_long(value, 0, TW_EAGER_LIMIT_MAX, &v))
            return fail(err, errlen, name, value, "must be a byte count from 0 to 4088");
        cfg->eager_limit = (uint32_t)v;
    } else if (strcmp(name, "TW_RNDV_SPLIT") == 0) {
        if (parse_long(value, 0, 1L << 40, &v))
            return fail(err, errlen, name, value, "must be a byte count, 0 to turn it off");
        cfg->rndv_split = (uint64_t)v;
    } else if (strcmp(name, "TW_STATS") == 0) {
        if (strcmp(value, "0") && strcmp(value, "1"))
            return fail(err, errlen, name, value, "must be 0 or 1");
        cfg->stats = value[0] == '1';
    } else if (strcmp(name, "TW_WAIT") == 0) {
        if (!strcmp(value, "auto"))
            cfg->wait = TW_WAIT_AUTO;
        else if (!strcmp(value, "spin"))
            cfg->wait = TW_WAIT_SPIN;
        else if (!strcmp(value, "yield"))
            cfg->wait = TW_WAIT_YIELD;
        else
            return fail(err, errlen, name, value, "must be auto, spin or yield");
    } else if (strcmp(name, "TW_JOB_ID") == 0) {
        if (!is_hex(value, 1, sizeof cfg->job_id - 1))
            return fail(err, errlen, name, value, "must be 1 to 32 lowercase hex digits");
        strcpy(cfg->job_id, value);
    } else if (strcmp(name, "TW_JOB_KEY") == 0) {
        if (!is_hex(value, 16, 16))
            return fail(err, errlen, name, value, "must be 16 lowercase hex digits");
        cfg->job_key = strtoull(value, NULL, 16);
        cfg->has_job_key = 1;
    } else if (strcmp(name, "TW_LOCAL_RANK") == 0) {
        if (parse_long(value, 0, 1 << 30, &v))
            return fail(err, errlen, name, value, "must be a rank number");
        cfg->local_rank = (int)v;
    } else if (strcmp(name, "TW_LOCAL_SIZE") == 0) {
        if (parse_long(value, 1, 1 << 30, &v))
            return fail(err, errlen, name, value, "must be a positive count");
        cfg->local_size = (int)v;
    } else if (strcmp(name, "TW_NODE") == 0) {
        if (!node_name_ok(value))
            return fail(err, errlen, name, value,
                        "must be 1 to 63 letters, digits or the characters . _ - ~");
        strcpy(cfg->node, value);
    } else if (strcmp(name, "TW_LINK") == 0) {
        if (strcmp(value, "auto") && strcmp(value, "udp"))
            return fail(err, errlen, name, value, "must be auto or udp");
        cfg->udp_everywhere = value[0] == 'u';
    } else if (strcmp(name, "TW_UDP_ADDR") == 0) {
        if (parse_ipv4(value))
            return fail(err, errlen, name, value, "must be an IPv4 address such as 10.0.0.1");
        strcpy(cfg->udp_addr, value);
    } else if (strcmp(name, "TW_UDP_TIMEOUT") == 0) {
        if (parse_long(value, 100, 3600000, &v))
            return fail(err, errlen, name, value, "must be milliseconds from 100 to 3600000");
        cfg->udp_timeout_ms = (uint32_t)v;
    } else if (strcmp(name, "TW_UDP_RTO") == 0) {
        if (parse_long(value, 100, 10000000, &v))
            return fail(err, errlen, name, value, "must be microseconds from 100 to 10000000");
        cfg->udp_rto_us = (uint32_t)v;
    } else if (strcmp(name, "TW_UDP_WINDOW") == 0) {
        if (parse_long(value, 48, 65536, &v))
            return fail(err, errlen, name, value, "must be a packet count from 48 to 65536");
        cfg->udp_window = (uint32_t)v;
    } else if (strcmp(name, "TW_UDP_MTU") == 0) {
        if (!strcmp(value, "auto"))
            cfg->udp_mtu = 0;
        else if (parse_long(value, 1500, 65535, &v))
            return fail(err, errlen, name, value,
                        "must be auto or a byte count from 1500 to 65535");
        else
            cfg->udp_mtu = (uint32_t)v;
    } else if (strcmp(name, "TW_UDP_FAULTS") == 0) {
        if (parse_faults(cfg, value))
            return fail(err, errlen, name, value,
                        "must be comma-separated drop=P, duplicate=P, reorder=P, corrupt=P, "
                        "delay=P (P from 0 to 1), delay_us=N or seed=N");
    } else if (strcmp(name, "TW_PROGRESS_THREAD") == 0) {
        if (strcmp(value, "0") && strcmp(value, "1"))
            return fail(err, errlen, name, value, "must be 0 or 1");
        cfg->progress_thread = value[0] == '1';
    } else if (strcmp(name, "TW_PROGRESS_INTERVAL") == 0) {
        if (parse_long(value, 10, 1000000, &v))
            return fail(err, errlen, name, value, "must be microseconds from 10 to 1000000");
        cfg->progress_interval_us = (uint32_t)v;
    } else if (strcmp(name, "TW_CC") == 0 || strcmp(name, "TW_CXX") == 0) {
        /* read by the mpicc and mpicxx wrappers, not by the library */
    } else if (strcmp(name, "TW_BOUND_CORE") == 0) {
        if (parse_long(value, 0, 1 << 20, &v))
            return fail(err, errlen, name, value, "must be a core number");
    } else {
        snprintf(err, errlen, "tollway: unknown variable %s (twinfo lists the TW_* variables)",
                 name);
        return -1;
    }
    return 0;
}

int tw_config_parse(tw_config_t *cfg, char *const *envp, char *err, size_t errlen) {
    memset(cfg, 0, sizeof *cfg);
    cfg->velo_slots = TW_VELO_SLOTS_DEFAULT;
    cfg->nq_slots = TW_NQ_SLOTS_DEFAULT;
    cfg->rma_slots = TW_RMA_SLOTS_DEFAULT;
    cfg->atu_entries = TW_ATU_ENTRIES_DEFAULT;
    cfg->rma_copy = TW_RMA_COPY_AUTO;
    cfg->wait = TW_WAIT_AUTO;
    cfg->eager_limit = TW_EAGER_LIMIT_MAX;
    cfg->rndv_split = TW_RNDV_SPLIT_DEFAULT;
    cfg->local_rank = cfg->local_size = -1;
    cfg->udp_timeout_ms = TW_UDP_TIMEOUT_DEFAULT;
    cfg->udp_rto_us = TW_UDP_RTO_DEFAULT;
    cfg->udp_window = TW_UDP_WINDOW_DEFAULT;
    cfg->udp_mtu = 0; /* auto */
    cfg->progress_interval_us = TW_PROGRESS_INTERVAL_DEFAULT;
    for (char *const *e = envp; e && *e; e++) {
        if (strncmp(*e, "TW_", 3) != 0) continue;
        const char *eq = strchr(*e, '=');
        if (!eq) continue;
        char name[64];
        size_t n = (size_t)(eq - *e);
        if (n >= sizeof name) {
            snprintf(err, errlen, "tollway: unknown variable %.*s", 60, *e);
            return -1;
        }
        memcpy(name, *e, n);
        name[n] = '\0';
        if (set_var(cfg, name, eq + 1, err, errlen)) return -1;
    }
    return 0;
}

extern char **environ;

const tw_config_t *tw_config(void) {
    static tw_config_t cfg;
    static int state; /* 0 unparsed, 1 good, -1 bad */
    if (state == 0) {
        char err[256];
        state = tw_config_parse(&cfg, environ, err, sizeof err) ? -1 : 1;
        if (state < 0) fprintf(stderr, "%s\n", err);
    }
    return state > 0 ? &cfg : NULL;
}
