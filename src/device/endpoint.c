#include "device/endpoint.h"

#include "device/bell.h"

#include "device/failure.h"
#include "device/progress.h"
#include "device/rma.h"
#include "device/velo.h"
#include "link/link.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tollway/status.h>
#include <tollway/atu.h>
#include <tollway/velo.h>

/* The live process that holds an existing segment name: its header's owner while that
 * process lives (also a creator that has not finished its header yet), else 0 — the
 * name is a leftover of a job that died, and may be replaced. */
static pid_t segment_holder(const tw_link_t *mapped, const char *name) {
    size_t size;
    const tw_segment_header_t *h = mapped->segment_map(name, sizeof *h, sizeof *h, &size);
    if (!h) return 0;
    pid_t pid = (pid_t)h->owner_pid;
    int alive = pid > 0 && pid != getpid() && (kill(pid, 0) == 0 || errno == EPERM);
    mapped->segment_unmap((void *)h, size);
    return alive ? pid : 0;
}

static void config_layout(const tw_config_t *cfg, tw_segment_layout_t *l) {
    tw_segment_layout(cfg->velo_slots, cfg->nq_slots, cfg->rma_slots, cfg->atu_entries, l);
}

size_t tw_ep_memory_size(void) {
    const tw_config_t *cfg = tw_config();
    tw_segment_layout_t l;
    if (cfg)
        config_layout(cfg, &l);
    else
        tw_segment_layout(TW_VELO_SLOTS_DEFAULT, TW_NQ_SLOTS_DEFAULT, TW_RMA_SLOTS_DEFAULT,
                          TW_ATU_ENTRIES_DEFAULT, &l);
    /* the ATU table's pages come as registrations are made: count its first */
    size_t table_page = 4096;
    return l.total - l.atu < table_page ? l.total : l.atu + table_page;
}

static void address_key(char *key, size_t cap, int index, int rank) {
    snprintf(key, cap, "tw.ep%d.%d", index, rank);
}

static int region_of(void *dev, uint64_t nla, uint64_t key, tw_link_region_t *out) {
    return tw_atu_describe(((tw_ep_link_t *)dev)->ep, nla, key, out);
}

/* What the links that carry messages hand the device. */
static const tw_link_device_t device_side = {
    .velo = tw_velo_link_deliver,
    .rma_request = tw_rma_link_request,
    .rma_answer = tw_rma_link_answer,
    .land_request = tw_rma_link_land_request,
    .land_answer = tw_rma_link_land_answer,
    .landed = tw_rma_link_landed,
    .peer_lost = tw_dev_peer_lost,
    .region = region_of,
};

/* The process's endpoints with links that must be polled: every one of them, not only
 * the last opened, goes on while the process manager's client waits (an MPI process
 * opens several, one per channel, and a peer may wait for a retransmission on any). */
enum { POLLED_EPS_MAX = 64 };
static tw_ep_t *polled_eps[POLLED_EPS_MAX];
static int npolled_eps;

/* The process manager's client waits for answers in a loop: the links go on meanwhile
 * (a peer may wait for our acknowledgements to reach the same fence). With several
 * endpoints, only in a fence (every thread of the process is then in the collective
 * call that made it): a get maps a peer on first contact, from a thread that holds one
 * endpoint while other threads may be using the others. */
static _Atomic int fencing;

static void links_while_waiting(void *ctx) {
    (void)ctx;
    if (npolled_eps > 1 && !atomic_load_explicit(&fencing, memory_order_relaxed)) return;
    for (int i = 0; i < npolled_eps; i++) {
        tw_ep_t *ep = polled_eps[i];
        tw_dev_lock(ep);
        tw_dev_poll_links(ep);
        tw_dev_unlock(ep);
    }
}

/* The job's fence, the links of every endpoint going on meanwhile. */
static int fence(tw_job_t *job) {
    atomic_fetch_add_explicit(&fencing, 1, memory_order_relaxed);
    int rc = tw_pm_fence(&job->pm);
    atomic_fetch_sub_explicit(&fencing, 1, memory_order_relaxed);
    return rc;
}

static void polled_add(tw_ep_t *ep) {
    if (npolled_eps == POLLED_EPS_MAX)
        return; /* beyond: its own link thread, or its peers'
                   retransmissions, carry it */
    polled_eps[npolled_eps++] = ep;
    tw_pm_set_waiting(&ep->job->pm, links_while_waiting, NULL);
}

static void polled_remove(tw_ep_t *ep) {
    for (int i = 0; i < npolled_eps; i++)
        if (polled_eps[i] == ep) {
            polled_eps[i] = polled_eps[--npolled_eps];
            break;
        }
    if (!npolled_eps) tw_pm_set_waiting(&ep->job->pm, NULL, NULL);
}

/* The first mapped link of the build: every endpoint's segment is one of its. */
static const tw_link_t *mapped_link(void) {
    for (unsigned i = 0; i < tw_links_count; i++)
        if (tw_links[i]->caps & TW_LINK_MAPPED) return tw_links[i];
    return NULL;
}

/* The link TW_LINK names into *chosen (NULL for auto: each peer by its node). TW_OK, or
 * TW_ERR_CONFIG with the reason on stderr: no link of this build has that name, or it
 * names a mapped link, which reaches this node only, and the job spans nodes. */
static int choose_link(const tw_job_t *job, const tw_link_t **chosen) {
    const char *name = job->config->link;
    *chosen = NULL;
    if (!strcmp(name, "auto")) return TW_OK;
    *chosen = tw_link_named(name, strlen(name));
    if (!*chosen) {
        char valid[160];
        size_t at = (size_t)snprintf(valid, sizeof valid, "auto");
        for (unsigned i = 0; i < tw_links_count && at < sizeof valid; i++)
            at += (size_t)snprintf(valid + at, sizeof valid - at, "%s%s",
                                   i + 1 == tw_links_count ? " or " : ", ", tw_links[i]->name);
        fprintf(stderr, "tollway: invalid TW_LINK='%s': must be %s\n", name, valid);
        return TW_ERR_CONFIG;
    }
    if (((*chosen)->caps & TW_LINK_MAPPED) && job->local_size < job->size) {
        fprintf(stderr,
                "tollway: rank %d: TW_LINK=%s reaches ranks on this node only, but the job spans "
                "nodes (%d of its %d ranks are here): unset TW_LINK, or run the job on one node\n",
                job->base + job->rank, name, job->local_size, job->size);
        return TW_ERR_CONFIG;
    }
    return TW_OK;
}

/* The links that carry messages, beside the mapped one: opened when the job spans
 * nodes, or when TW_LINK names one of them (then that one alone, for every peer of the
 * job). Each appends its address to addr (",<name>:..."). A spawned job (base > 0)
 * runs on its launcher's node: the mapped link alone reaches it. */
static int open_links(tw_ep_t *ep, const tw_link_t *chosen, char *addr, size_t cap) {
    tw_job_t *job = ep->job;
    if ((chosen && (chosen->caps & TW_LINK_MAPPED)) || job->size == 1 || job->base > 0 ||
        (!chosen && job->local_size == job->size))
        return 0;
    for (unsigned i = 0; i < tw_links_count && ep->nlinks < TW_EP_LINKS_MAX; i++) {
        const tw_link_t *link = tw_links[i];
        if ((link->caps & TW_LINK_MAPPED) || (chosen && link != chosen) ||
            (!chosen && link->chosen_by_auto && !link->chosen_by_auto()))
            continue;
        tw_ep_link_t *via = &ep->links[ep->nlinks];
        *via = (tw_ep_link_t){.link = link, .ep = ep};
        char mine[256];
        via->ctx = link->open(job, &device_side, via, mine, sizeof mine);
        if (!via->ctx) return -1;
        ep->nlinks++;
        if (link == chosen) ep->every_peer = via;
        if ((link->caps & TW_LINK_POLLED) && !ep->polled) ep->polled = via;
        int n = snprintf(addr, cap, ",%s", mine);
        if (n < 0 || (size_t)n >= cap) return -1;
        addr += n;
        cap -= (size_t)n;
    }
    if (ep->polled) polled_add(ep);
    return 0;
}

/* Every rank of a job opens as many endpoints as the others (TW_CHANNELS of an MPI
 * process), each with a fence: a rank that opens more would wait in a fence the others
 * never reach. Rank 0's first endpoint publishes its count beside its address, and
 * every other rank compares its own with it. A rank that differs ends the whole job
 * through the process manager, with the reason: returning alone would leave the others
 * in a fence under managers that do not end a job when one of its processes exits
 * (Hydra). */
#define ENDPOINTS_KEY "tw.endpoints"

static int endpoints_agree(tw_job_t *job, const char *mine) {
    char theirs[16], why[256];
    if (job->rank == 0) return TW_OK;
    if (tw_pm_get(&job->pm, 0, ENDPOINTS_KEY, theirs, sizeof theirs)) {
        fprintf(stderr, "tollway: rank %d: cannot read rank 0's count of endpoints\n",
                job->base + job->rank);
        return TW_ERR_RUNTIME;
    }
    if (strcmp(mine, theirs) == 0) return TW_OK;
    snprintf(why, sizeof why,
             "tollway: rank %d has TW_CHANNELS=%s but rank 0 has TW_CHANNELS=%s: every rank of a "
             "job must open as many endpoints (set TW_CHANNELS alike for all ranks)",
             job->base + job->rank, mine, theirs);
    tw_pm_abort(&job->pm, 1, why);
    return TW_ERR_CONFIG; /* not reached: the abort exits */
}

/* TW_WAIT: spin, yield or sleep; auto sleeps when this node's ranks outnumber the
 * CPUs they may run on (tw_ep_crowded), where a spinning rank takes the time slice of
 * the rank it waits for. */
static void set_wait(tw_ep_t *ep, const tw_config_t *cfg) {
    tw_wait_mode_t mode = cfg->wait;
    if (mode == TW_WAIT_AUTO) mode = tw_ep_crowded(ep) ? TW_WAIT_SLEEP : TW_WAIT_AUTO;
    ep->idle_spins = mode == TW_WAIT_SPIN   ? UINT_MAX
                     : mode == TW_WAIT_AUTO ? TW_EP_SPINS_BEFORE_YIELD
                                            : 1;
    ep->sleep_us = mode == TW_WAIT_SLEEP ? cfg->wait_sleep_us : 0;
}

int tw_ep_open(tw_ep_t **out) {
    if (!out) return TW_ERR_ARG;
    *out = NULL;
    tw_job_t *job;
    int rc = tw_job_attach(&job);
    if (rc) return rc;
    const tw_link_t *mapped = mapped_link(), *chosen;
    if (!mapped) {
        fprintf(stderr, "tollway: this build has no mapped link to hold an endpoint's segment\n");
        rc = TW_ERR_SYSTEM;
    } else {
        rc = choose_link(job, &chosen);
    }
    /* before the first segment of the job: it must not be taken for a leftover */
    if (!rc) rc = mapped->hold(job);
    if (rc) {
        tw_job_detach(job);
        return rc;
    }
    tw_ep_t *ep = calloc(1, sizeof *ep);
    if (ep) ep->peers = calloc((size_t)(job->base + job->size), sizeof *ep->peers);
    if (!ep || !ep->peers) {
        free(ep);
        tw_job_detach(job);
        return TW_ERR_NOMEM;
    }
    ep->job = job;
    ep->bell_fd = -1;
    ep->rank = job->base + job->rank;
    ep->size = job->base + job->size;
    ep->index = job->next_index++;
    const tw_config_t *cfg = job->config;
    set_wait(ep, cfg);
    ep->links[ep->nlinks] = (tw_ep_link_t){.link = mapped, .ep = ep};
    ep->mapped = &ep->links[ep->nlinks++];

    tw_segment_layout_t l;
    config_layout(cfg, &l);
    ep->segment_size = l.total;
    mapped->segment_name(job, ep->rank, ep->index, 0, ep->segment_name, sizeof ep->segment_name);
    tw_segment_header_t *seg = mapped->segment_create(ep->segment_name, ep->segment_size, l.atu);
    pid_t holder = 0;
    if (!seg && errno == EEXIST && !(holder = segment_holder(mapped, ep->segment_name))) {
        mapped->segment_unlink(ep->segment_name); /* left by a job that died with the same id */
        seg = mapped->segment_create(ep->segment_name, ep->segment_size, l.atu);
    }
    if (!seg) {
        if (holder)
            fprintf(stderr,
                    "tollway: rank %d: the segment %s belongs to process %d, which is alive: a "
                    "job with the same id (TW_JOB_ID %s) is running; not touching it\n",
                    ep->rank, ep->segment_name, (int)holder, job->job_id);
        else
            fprintf(stderr, "tollway: cannot create the segment %s (%zu bytes): %s\n",
                    ep->segment_name, ep->segment_size, strerror(errno));
        free(ep->peers);
        free(ep);
        tw_job_detach(job);
        return TW_ERR_SYSTEM;
    }
    ep->segment = seg;
    seg->job_key = job->job_key;
    seg->version = TW_SEGMENT_VERSION;
    seg->rank = (uint32_t)ep->rank;
    seg->index = (uint32_t)ep->index;
    seg->velo_slots = cfg->velo_slots;
    seg->nq_slots = cfg->nq_slots;
    seg->rma_slots = cfg->rma_slots;
    seg->atu_entries = cfg->atu_entries;
    seg->owner_pid = (int32_t)getpid();
    seg->sleeps = ep->sleep_us ? TW_BELL_FUTEX : 0; /* with a bell socket: below */
    tw_ring_format(&seg->velo_ctrl, tw_segment_slots(seg, l.velo), cfg->velo_slots);
    tw_ring_format(&seg->nq_ctrl, tw_segment_slots(seg, l.nq), cfg->nq_slots);
    tw_ring_format(&seg->req_ctrl, tw_segment_slots(seg, l.req), cfg->rma_slots);
    tw_ring_format(&seg->resp_ctrl, tw_segment_slots(seg, l.resp), cfg->rma_slots);
    ep->atu.locks = (_Atomic uint64_t *)((char *)seg + l.locks);
    ep->atu.table = (tw_atu_entry_t *)((char *)seg + l.atu);
    ep->atu.entries = cfg->atu_entries;
    ep->atu.used = &seg->atu_used;
    __atomic_store_n(&seg->magic, TW_SEGMENT_MAGIC, __ATOMIC_RELEASE);
    tw_ring_consumer_init(&ep->velo_rx, &seg->velo_ctrl, tw_segment_slots(seg, l.velo),
                          cfg->velo_slots, TW_VELO_MAX_SIZE);
    tw_ring_consumer_init(&ep->nq_rx, &seg->nq_ctrl, tw_segment_slots(seg, l.nq), cfg->nq_slots,
                          TW_VELO_INLINE_SIZE);
    tw_ring_consumer_init(&ep->req_rx, &seg->req_ctrl, tw_segment_slots(seg, l.req), cfg->rma_slots,
                          TW_RING_LEN_MASK);
    tw_ring_consumer_init(&ep->resp_rx, &seg->resp_ctrl, tw_segment_slots(seg, l.resp),
                          cfg->rma_slots, TW_RING_LEN_MASK);
    tw_ring_producer_init(&ep->nq_self, &seg->nq_ctrl, tw_segment_slots(seg, l.nq), cfg->nq_slots);
    tw_ring_producer_init(&ep->nq_dev, &seg->nq_ctrl, tw_segment_slots(seg, l.nq), cfg->nq_slots);
    tw_ring_producer_init(&ep->velo_self, &seg->velo_ctrl, tw_segment_slots(seg, l.velo),
                          cfg->velo_slots);
    if (seg->sleeps) /* the progress thread writes these while the owner may sleep */
        ep->velo_self.bell = ep->nq_self.bell = ep->nq_dev.bell = &seg->bell;
    ep->rma.copy = cfg->rma_copy;
    tw_rma_init(ep);
    if (tw_atu_init(ep)) {
        tw_ep_close(ep);
        return TW_ERR_NOMEM;
    }

    /* The mapped link reaches this node; a job that spans nodes (or TW_LINK) opens the
     * links that carry messages too. Each adds its field to our address. */
    char key[64], value[TW_PMI_VALUE_MAX];
    int at = mapped->segment_field(job, ep->segment_name, value, sizeof value);
    if (at < 0 || open_links(ep, chosen, value + at, sizeof value - (size_t)at)) {
        tw_ep_close(ep);
        return TW_ERR_SYSTEM;
    }
    /* A link that must be polled and no progress thread to poll it: the waits sleep in
     * ppoll on its socket and a bell socket that producers here ring too (bell.h). */
    if (ep->sleep_us && ep->polled && !cfg->progress_thread) {
        tw_bell_address(job->job_key, (uint32_t)ep->rank, (uint32_t)ep->index, &ep->bell_socket);
        ep->bell_fd = tw_bell_socket(&ep->bell_socket);
        if (ep->bell_fd >= 0) {
            seg->sleeps = TW_BELL_SOCKET; /* before the address is out: peers map after */
            ep->velo_self.bell_socket = ep->nq_self.bell_socket = ep->nq_dev.bell_socket =
                &ep->bell_socket;
        }
    }

    /* Announce the mailbox (and the links); after the fence every peer may map it. */
    address_key(key, sizeof key, ep->index, job->rank);
    char count[16];
    snprintf(count, sizeof count, "%u", cfg->channels);
    int first = ep->index == 0 && job->size > 1;
    if (tw_pm_put(&job->pm, key, value) ||
        (first && job->rank == 0 && tw_pm_put(&job->pm, ENDPOINTS_KEY, count)) || fence(job)) {
        fprintf(stderr, "tollway: cannot publish the endpoint address of rank %d\n", ep->rank);
        tw_ep_close(ep);
        return TW_ERR_RUNTIME;
    }
    if (first && (rc = endpoints_agree(job, count))) {
        tw_ep_close(ep);
        return rc;
    }
    if (tw_progress_thread_start(ep)) {
        tw_ep_close(ep);
        return TW_ERR_SYSTEM;
    }
    *out = ep;
    return TW_OK;
}

int tw_ep_address(tw_ep_t *ep, int rank, char *buf, size_t cap) {
    if (!ep || !buf) return TW_ERR_ARG;
    if (rank < 0 || rank >= ep->size) return TW_ERR_RANK;
    int job_rank = rank - ep->job->base;
    if (job_rank < 0 || job_rank >= ep->job->size) { /* a peer added later, or none */
        const char *a = ep->addrs ? ep->addrs[rank] : NULL;
        if (!a || strlen(a) >= cap) return TW_ERR_PEER;
        strcpy(buf, a);
        return TW_OK;
    }
    char key[64];
    address_key(key, sizeof key, ep->index, job_rank);
    return tw_pm_get(&ep->job->pm, job_rank, key, buf, cap) ? TW_ERR_RUNTIME : TW_OK;
}

/* Under another process manager the ids of spawned jobs come from a counter in a file
 * that every job of the spawn tree shares (named by the job id, which spawned jobs
 * inherit), so that groups spawning at once take different ones. */
static void ids_path(const tw_job_t *job, char *path, size_t cap) {
    snprintf(path, cap, "/dev/shm/tollway-ids-%ld-%s", (long)getuid(), job->job_id);
}

static int take_ids(tw_ep_t *ep, int count) {
    char path[128];
    ids_path(ep->job, path, sizeof path);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600), next = 0;
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        if (fd >= 0) close(fd);
        return ep->size; /* past every id known here, at least */
    }
    if (pread(fd, &next, sizeof next, 0) != (ssize_t)sizeof next || next < ep->size)
        next = ep->size;
    int base = next;
    next += count;
    if (pwrite(fd, &next, sizeof next, 0) != (ssize_t)sizeof next) base = ep->size;
    close(fd);
    return base;
}

/* A spawn that failed returns its ids when nobody took any after them, and the file
 * with them when they were the first: a job the failure ends leaves nothing behind. */
static void give_back_ids(tw_ep_t *ep, int base, int count) {
    char path[128];
    ids_path(ep->job, path, sizeof path);
    int fd = open(path, O_RDWR | O_CLOEXEC), next = 0;
    if (fd < 0) return;
    if (flock(fd, LOCK_EX) == 0 && pread(fd, &next, sizeof next, 0) == (ssize_t)sizeof next &&
        next == base + count) {
        if (base <= ep->size)
            unlink(path);
        else /* a failed write keeps it as it was: ids lost, never given twice */
            (void)!pwrite(fd, &base, sizeof base, 0);
    }
    close(fd);
}

int tw_ep_spawn(tw_ep_t *ep, const char *port, const char *spec, int *base, int *size, char *why,
                size_t cap, int *failed) {
    if (!ep || !port || !spec || !base || !size || !why || !failed) return TW_ERR_ARG;
    tw_job_t *job = ep->job;
    if (job->pm.kind == TW_PM_SINGLETON || tw_pm_is_twrun(&job->pm))
        return tw_pm_spawn(&job->pm, port, spec, NULL, base, size, why, cap, failed)
                   ? TW_ERR_RUNTIME
                   : TW_OK;
    /* another process manager (Hydra, Slurm, PMIx): the new job takes the ids past every one known
     * here, and the job id, key and secret of this one */
    char id[2 * TW_JOB_SECRET_SIZE + 64];
    int n = snprintf(id, sizeof id, "%s.%016llx.", job->job_id, (unsigned long long)job->job_key);
    for (int i = 0; i < TW_JOB_SECRET_SIZE && n > 0 && (size_t)n + 3 < sizeof id; i++)
        n += snprintf(id + n, sizeof id - (size_t)n, "%02x", job->secret[i]);
    tw_pmi_spawn_t *sp = malloc(sizeof *sp);
    int total = sp && !tw_pmi_spawn_decode(sp, port, spec) ? sp->total : 0;
    free(sp);
    if (!total) {
        snprintf(why, cap, "malformed_request");
        return TW_ERR_ARG;
    }
    *base = take_ids(ep, total);
    int first = *base;
    if (tw_pm_spawn(&job->pm, port, spec, id, base, size, why, cap, failed) == 0) return TW_OK;
    give_back_ids(ep, first, total);
    return TW_ERR_RUNTIME;
}

int tw_ep_parent(tw_ep_t *ep, char *port, size_t cap, int *appnum) {
    if (!ep || !port || !appnum) return TW_ERR_ARG;
    tw_job_t *job = ep->job;
    const char *p = getenv("TWRUN_PARENT_PORT"), *app = getenv("TWRUN_APPNUM");
    port[0] = '\0';
    *appnum = 0;
    if (tw_pm_is_twrun(&job->pm)) {
        if (app && tw_pmi_parse_number(app, appnum)) *appnum = 0;
        if (!p || job->base == 0) return TW_ERR_PEER; /* not spawned */
        if (strlen(p) >= cap) return TW_ERR_SIZE;
        strcpy(port, p);
        return TW_OK;
    }
    *appnum = tw_pm_appnum(&job->pm);
    if (!job->spawned) return TW_ERR_PEER;
    return tw_pm_get(&job->pm, TW_PM_ANY_RANK, "tw.parent", port, cap) ? TW_ERR_RUNTIME : TW_OK;
}

int tw_ep_job_base(const tw_ep_t *ep) {
    return ep ? ep->job->base : -1;
}

int tw_ep_job_size(const tw_ep_t *ep) {
    return ep ? ep->job->size : -1;
}

int tw_ep_universe_size(tw_ep_t *ep) {
    if (!ep) return -1;
    /* twrun, handing a job to srun inside an allocation, tells its tasks: Slurm's PMI
     * and PMIx say the step's */
    const char *tasks = getenv("TWRUN_UNIVERSE_SIZE");
    int n = 0;
    if (tasks && getenv("SLURM_JOB_ID") && !tw_pm_is_twrun(&ep->job->pm) &&
        !tw_pmi_parse_number(tasks, &n) && n >= ep->job->size)
        return n;
    n = tw_pm_universe_size(&ep->job->pm);
    return n > 0 ? n : ep->job->size;
}

/* The mapped link's field of addr: 1 with the peer's segment name in segment when the
 * peer is on this node, 0 when it is on another, -1 when addr has no such field or a
 * malformed one. *field (unless NULL) points to it. */
static int mapped_field(tw_ep_t *ep, const char *addr, char segment[TW_LINK_SEGMENT_NAME_MAX],
                        const char **field) {
    const tw_link_t *mapped = ep->mapped->link;
    const char *f = tw_link_field(addr, mapped);
    if (field) *field = f;
    return f ? mapped->segment_of(ep->job, f, segment, TW_LINK_SEGMENT_NAME_MAX) : -1;
}

int tw_ep_add_peer(tw_ep_t *ep, int rank, const char *address) {
    if (!ep || !address) return TW_ERR_ARG;
    if (rank < 0 || rank >= (1 << 30)) return TW_ERR_RANK;
    if (rank >= ep->job->base && rank < ep->job->base + ep->job->size) return TW_OK; /* ours */
    char segment[TW_LINK_SEGMENT_NAME_MAX];
    if (strlen(address) >= TW_PMI_VALUE_MAX || mapped_field(ep, address, segment, NULL) < 0)
        return TW_ERR_ARG;
    if (rank < ep->size && ep->addrs && ep->addrs[rank])
        return strcmp(ep->addrs[rank], address) ? TW_ERR_PEER : TW_OK;
    char *copy = strdup(address);
    if (!copy) return TW_ERR_NOMEM;
    tw_dev_lock(ep); /* the progress thread reads the tables grown here */
    int rc = TW_OK;
    if (rank >= ep->size || !ep->addrs) {
        int n = rank >= ep->size ? rank + 1 : ep->size;
        tw_peer_t **peers = realloc(ep->peers, (size_t)n * sizeof *peers);
        if (peers) ep->peers = peers;
        char **addrs = peers ? realloc(ep->addrs, (size_t)n * sizeof *addrs) : NULL;
        if (addrs) {
            if (!ep->addrs) memset(addrs, 0, (size_t)ep->size * sizeof *addrs);
            ep->addrs = addrs;
        }
        tw_lost_t *lost = addrs && ep->lost ? realloc(ep->lost, (size_t)n * sizeof *lost) : NULL;
        if (lost) ep->lost = lost;
        if (!peers || !addrs || (ep->lost && !lost)) {
            rc = TW_ERR_NOMEM;
        } else {
            for (int r = ep->size; r < n; r++) {
                ep->peers[r] = NULL;
                ep->addrs[r] = NULL;
                if (ep->lost) ep->lost[r] = (tw_lost_t){0};
            }
            ep->size = n;
        }
    }
    if (!rc) ep->addrs[rank] = copy;
    tw_dev_unlock(ep);
    if (rc) free(copy);
    return rc;
}

/* The open link that reaches rank, whose address is addr (a field per link it opened,
 * the mapped link's among them): the mapped link for this endpoint itself and for this
 * node (unless TW_LINK names another), else the first of our other links whose field
 * the address has. *field points to that link's field. NULL when the address is
 * malformed or no link of ours reaches it. */
static tw_ep_link_t *via_to(tw_ep_t *ep, int rank, const char *addr, const char **field) {
    char segment[TW_LINK_SEGMENT_NAME_MAX];
    int here = mapped_field(ep, addr, segment, field);
    if (here < 0) return NULL;
    int ours = rank >= ep->job->base && rank < ep->job->base + ep->job->size;
    if (rank == ep->rank || (here && !(ours && ep->every_peer))) return ep->mapped;
    if (!ours) return NULL; /* other jobs: the mapped link only */
    for (unsigned i = 0; i < ep->nlinks; i++) {
        tw_ep_link_t *via = &ep->links[i];
        if (via != ep->mapped && (*field = tw_link_field(addr, via->link))) return via;
    }
    return NULL;
}

/* The link that would reach rank (connected or not), or NULL. */
static const tw_link_t *link_to(tw_ep_t *ep, int rank) {
    if (ep->peers[rank]) return ep->peers[rank]->via->link;
    char addr[TW_PMI_VALUE_MAX];
    const char *field;
    if (tw_ep_address(ep, rank, addr, sizeof addr)) return NULL;
    tw_ep_link_t *via = via_to(ep, rank, addr, &field);
    return via ? via->link : NULL;
}

int tw_ep_link_caps(tw_ep_t *ep, int rank, tw_link_caps_t *caps) {
    if (!ep || !caps) return TW_ERR_ARG;
    memset(caps, 0, sizeof *caps);
    if (rank < 0 || rank >= ep->size) return TW_ERR_RANK;
    const tw_link_t *link = link_to(ep, rank);
    if (!link) return TW_ERR_PEER;
    snprintf(caps->name, sizeof caps->name, "%s", link->name);
    caps->rma_by_initiator = !!(link->caps & TW_LINK_MAPPED);
    caps->put_cheaper = !!(link->caps & TW_LINK_PUT_CHEAPER);
    caps->shared_copy = !!(link->caps & TW_LINK_SHARED_COPY);
    caps->velo_max = link->velo_max;
    return TW_OK;
}

/* A peer whose link carries messages: the link is told where it is. */
static int connect_linked(tw_ep_t *ep, int rank, tw_ep_link_t *via, const char *field) {
    char mine[TW_PMI_VALUE_MAX];
    snprintf(mine, sizeof mine, "%s", field);
    char *end = strchr(mine, ',');
    if (end) *end = '\0';
    if (via->link->connect(via->ctx, rank, mine)) return TW_ERR_PEER;
    tw_peer_t *peer = calloc(1, sizeof *peer);
    if (!peer) return TW_ERR_NOMEM;
    peer->via = via;
    ep->peers[rank] = peer;
    return TW_OK;
}

/* A peer whose segment the mapped link maps. */
static int connect_mapped(tw_ep_t *ep, int rank, tw_ep_link_t *via, const char *field);

int tw_ep_connect(tw_ep_t *ep, int rank) {
    char addr[TW_PMI_VALUE_MAX];
    if (tw_ep_address(ep, rank, addr, sizeof addr)) return TW_ERR_PEER;
    tw_dev_lock(ep); /* the progress thread reads the peers table and the links */
    const char *field;
    tw_ep_link_t *via = via_to(ep, rank, addr, &field);
    int rc = !via                               ? TW_ERR_PEER
             : via->link->caps & TW_LINK_MAPPED ? connect_mapped(ep, rank, via, field)
                                                : connect_linked(ep, rank, via, field);
    tw_dev_unlock(ep);
    return rc;
}

static int connect_mapped(tw_ep_t *ep, int rank, tw_ep_link_t *via, const char *field) {
    const tw_link_t *mapped = via->link;
    char name[TW_LINK_SEGMENT_NAME_MAX];
    if (mapped->segment_of(ep->job, field, name, sizeof name) != 1) return TW_ERR_PEER;
    tw_peer_t *peer = calloc(1, sizeof *peer);
    if (!peer) return TW_ERR_NOMEM;
    peer->segment = mapped->segment_map(name, TW_SEGMENT_HEADER_SIZE, TW_SEGMENT_HEADER_SIZE,
                                        &peer->segment_size);
    /* The header is checked and then used from one copy: the peer can rewrite its own
     * after the check, and ring sizes read again could reach past the mapping. */
    tw_segment_header_t *seg = peer->segment, h;
    if (seg) {
        (void)__atomic_load_n(&seg->magic, __ATOMIC_ACQUIRE); /* the owner's fields before it */
        memcpy(&h, seg, sizeof h);
    }
    if (!seg || !tw_segment_valid(&h, peer->segment_size, ep->job->job_key, (uint32_t)rank,
                                  (uint32_t)ep->index)) {
        mapped->segment_unmap(peer->segment, peer->segment_size);
        free(peer);
        return TW_ERR_PEER;
    }
    tw_segment_layout_t l;
    tw_segment_layout(h.velo_slots, h.nq_slots, h.rma_slots, h.atu_entries, &l);
    mapped->segment_populate(seg, peer->segment_size, l.atu); /* rings, locks; the table as used */
    tw_ring_producer_init(&peer->velo, &seg->velo_ctrl, tw_segment_slots(seg, l.velo),
                          h.velo_slots);
    tw_ring_producer_init(&peer->nq, &seg->nq_ctrl, tw_segment_slots(seg, l.nq), h.nq_slots);
    tw_ring_producer_init(&peer->req, &seg->req_ctrl, tw_segment_slots(seg, l.req), h.rma_slots);
    tw_ring_producer_init(&peer->resp, &seg->resp_ctrl, tw_segment_slots(seg, l.resp), h.rma_slots);
    if (h.sleeps) /* the peer may sleep: what is written to it rings its doorbell */
        peer->velo.bell = peer->nq.bell = peer->req.bell = peer->resp.bell = &seg->bell;
    if (h.sleeps == TW_BELL_SOCKET) { /* in ppoll: and its bell socket */
        tw_bell_address(ep->job->job_key, (uint32_t)rank, (uint32_t)ep->index, &peer->bell_socket);
        peer->velo.bell_socket = peer->nq.bell_socket = peer->req.bell_socket =
            peer->resp.bell_socket = &peer->bell_socket;
    }
    peer->atu = (tw_atu_entry_t *)((char *)seg + l.atu);
    peer->atu_entries = h.atu_entries;
    peer->locks = (_Atomic uint64_t *)((char *)seg + l.locks);
    peer->pid = (pid_t)h.owner_pid;
    peer->pipelined = ep->rma.copy == TW_RMA_COPY_PIPELINE;
    peer->mapped = h.sleeps ? TW_PEER_MAPPED_SLEEPS : TW_PEER_MAPPED;
    peer->via = via;
    ep->peers[rank] = peer;
    ep->stats.peers_mapped++;
    return TW_OK;
}

int tw_ep_close(tw_ep_t *ep) {
    if (!ep) return TW_ERR_ARG;
    tw_progress_thread_stop(ep); /* first: it uses everything below */
    if (ep->job->config->stats) tw_ep_print_stats(ep, stderr);
    tw_heap_fini(ep);
    tw_atu_fini(ep);
    const tw_link_t *mapped = ep->mapped->link;
    for (unsigned i = 0; i < ep->nlinks; i++)
        if (ep->links[i].ctx) ep->links[i].link->close(ep->links[i].ctx);
    polled_remove(ep);
    ep->nlinks = 0;
    ep->polled = ep->every_peer = NULL;
    for (int r = 0; r < ep->size; r++) {
        tw_peer_t *peer = ep->peers[r];
        if (!peer) continue;
        if (peer->mapped) {
            tw_heap_peer_unmap_all(ep, &peer->heap);
            mapped->segment_unmap(peer->segment, peer->segment_size);
        }
        free(peer);
    }
    mapped->segment_unmap(ep->segment, ep->segment_size);
    mapped->segment_unlink(ep->segment_name);
    if (ep->bell_fd >= 0) close(ep->bell_fd);
    if (ep->job->pm.kind != TW_PM_SINGLETON && !tw_pm_is_twrun(&ep->job->pm) &&
        ep->job->base == 0 &&
        ep->rank == 0) { /* the first job's rank 0 takes the spawn tree's counter along */
        char path[128];
        ids_path(ep->job, path, sizeof path);
        unlink(path);
    }
    tw_job_detach(ep->job);
    for (int r = 0; ep->addrs && r < ep->size; r++) free(ep->addrs[r]);
    free(ep->addrs);
    free(ep->peers);
    free(ep->lost);
    free(ep);
    return TW_OK;
}

static tw_job_t *kept_job; /* held by tw_ep_keep_job */
static int kept;

int tw_ep_keep_job(tw_ep_t *ep) {
    if (!ep) return TW_ERR_ARG;
    ep->job->users++;
    kept_job = ep->job;
    kept++;
    return TW_OK;
}

void tw_ep_release_job(void) {
    if (kept <= 0) return;
    kept--;
    tw_job_detach(kept_job);
}

int tw_ep_rank(const tw_ep_t *ep) {
    return ep ? ep->rank : -1;
}
int tw_ep_size(const tw_ep_t *ep) {
    return ep ? ep->size : -1;
}
const tw_ep_stats_t *tw_ep_stats(tw_ep_t *ep) {
    if (!ep) return NULL;
    _Atomic uint64_t *f = ep->segment->faults;
    ep->stats.faults_key = atomic_load_explicit(&f[TW_FAULT_KEY], memory_order_relaxed);
    ep->stats.faults_bounds = atomic_load_explicit(&f[TW_FAULT_BOUNDS], memory_order_relaxed);
    ep->stats.faults_stale = atomic_load_explicit(&f[TW_FAULT_STALE], memory_order_relaxed);
    ep->stats.faults_perm = atomic_load_explicit(&f[TW_FAULT_PERM], memory_order_relaxed);
    ep->stats.faults_align = atomic_load_explicit(&f[TW_FAULT_ALIGN], memory_order_relaxed);
    return &ep->stats;
}

int tw_ep_barrier(tw_ep_t *ep) {
    if (!ep) return TW_ERR_ARG;
    return fence(ep->job) ? TW_ERR_RUNTIME : TW_OK;
}

size_t tw_link_counter_count(void) {
    size_t n = 0;
    for (unsigned k = 0; k < tw_links_count; k++) n += tw_links[k]->ncounters;
    return n;
}

/* The link of counter i and its index within that link's; NULL past the end. */
static const tw_link_t *link_counter(size_t i, unsigned *within) {
    for (unsigned k = 0; k < tw_links_count; k++) {
        if (i < tw_links[k]->ncounters) {
            *within = (unsigned)i;
            return tw_links[k];
        }
        i -= tw_links[k]->ncounters;
    }
    return NULL;
}

const tw_link_counter_info_t *tw_link_counter_info(size_t i) {
    unsigned j;
    const tw_link_t *link = link_counter(i, &j);
    return link ? &link->counters[j] : NULL;
}

uint64_t tw_ep_link_counter(tw_ep_t *ep, size_t i) {
    unsigned j;
    const tw_link_t *link = link_counter(i, &j);
    if (!ep || !link) return 0;
    uint64_t v = 0;
    tw_dev_lock(ep); /* the progress thread may be serving the link */
    for (unsigned p = 0; p < ep->nlinks; p++)
        if (ep->links[p].link == link && ep->links[p].ctx) v += link->counter(ep->links[p].ctx, j);
    tw_dev_unlock(ep);
    return v;
}

void tw_ep_print_stats(tw_ep_t *ep, FILE *out) {
    const tw_ep_stats_t *s = tw_ep_stats(ep);
    fprintf(out,
            "tollway: rank %d endpoint %d: sent %llu msgs (%llu B), received %llu msgs (%llu B), "
            "retries on full %llu, empty polls %llu, peers mapped %llu\n",
            ep->rank, ep->index, (unsigned long long)s->msgs_sent,
            (unsigned long long)s->bytes_sent, (unsigned long long)s->msgs_received,
            (unsigned long long)s->bytes_received, (unsigned long long)s->send_retries,
            (unsigned long long)s->polls_empty, (unsigned long long)s->peers_mapped);
    if (ep->sleep_us && ep->bell_fd >= 0)
        fprintf(out,
                "tollway: rank %d endpoint %d: waits slept %llu times (TW_WAIT=sleep, %u us at "
                "most), in ppoll on the bell and link sockets: %llu ended by a packet or a ring\n",
                ep->rank, ep->index, (unsigned long long)ep->sleeps, ep->sleep_us,
                (unsigned long long)ep->sleeps_ended);
    else if (ep->sleep_us)
        fprintf(
            out,
            "tollway: rank %d endpoint %d: waits slept %llu times (TW_WAIT=sleep, %u us at most)\n",
            ep->rank, ep->index, (unsigned long long)ep->sleeps, ep->sleep_us);
    if (ep->nlinks > 1) {
        /* the connection table: which link reaches each peer contacted so far; one
         * write, so that the lines of several ranks do not mix */
        char line[4096];
        int n =
            snprintf(line, sizeof line, "tollway: rank %d endpoint %d: node %s; links:", ep->rank,
                     ep->index, ep->job->node);
        for (int r = 0; r < ep->size && n > 0 && (size_t)n < sizeof line - 16; r++)
            if (ep->peers[r])
                n += snprintf(line + n, sizeof line - (size_t)n, " %d:%s", r,
                              ep->peers[r]->via->link->name);
        fprintf(out, "%s\n", line);
        for (unsigned i = 0; i < ep->nlinks; i++)
            if (ep->links[i].ctx)
                ep->links[i].link->print_stats(ep->links[i].ctx, out, ep->rank, ep->index);
    }
    if (!s->rma_ops && !s->registrations && !s->notifications) return;
    fprintf(out,
            "tollway: rank %d endpoint %d: RMA %llu ops (%llu B, %llu pipelined, %llu retries), "
            "notifications %llu, registrations %llu/%llu, translations %llu, faults key %llu "
            "bounds %llu stale %llu perm %llu align %llu\n",
            ep->rank, ep->index, (unsigned long long)s->rma_ops, (unsigned long long)s->rma_bytes,
            (unsigned long long)s->rma_pipelined, (unsigned long long)s->rma_retries,
            (unsigned long long)s->notifications, (unsigned long long)s->registrations,
            (unsigned long long)s->deregistrations, (unsigned long long)s->translations,
            (unsigned long long)s->faults_key, (unsigned long long)s->faults_bounds,
            (unsigned long long)s->faults_stale, (unsigned long long)s->faults_perm,
            (unsigned long long)s->faults_align);
}

/* Whether anything waits in this endpoint's rings, or is owed to them. */
static int ep_has_work(const tw_ep_t *ep) {
    return tw_ring_ready(&ep->velo_rx) || tw_ring_ready(&ep->nq_rx) || tw_ring_ready(&ep->req_rx) ||
           tw_ring_ready(&ep->resp_rx) || ep->lost_owed || ep->rma.owed;
}

/* Whether a send was refused for a full ring since the last look: the peer that
 * frees the ring rings no bell here, so a wait with such a send to retry polls rather
 * than sleeps. */
static int ep_retried(tw_ep_t *ep) {
    uint64_t retries = ep->stats.send_retries + ep->stats.rma_retries;
    if (retries == ep->retries_seen) return 0;
    ep->retries_seen = retries;
    return 1;
}

int tw_ep_has_work(tw_ep_t *ep) {
    return ep && (ep_has_work(ep) || ep_retried(ep));
}

/* A sleep's bound: a link that must be polled keeps its timers only while polled, and
 * without a bell socket its packets do not end the sleep either. With one, a link with
 * no timer running (quiet) lets the wait sleep its whole bound: a packet ends it. */
static unsigned sleep_bound_us(const tw_ep_t *ep) {
    unsigned us = ep->sleep_us;
    if (!ep->polled || ep->progress_thread || us <= TW_EP_SLEEP_POLLED_US) return us;
    for (unsigned i = 0; ep->bell_fd >= 0 && i < ep->nlinks; i++) {
        const tw_ep_link_t *via = &ep->links[i];
        if ((via->link->caps & TW_LINK_POLLED) &&
            (!via->link->quiet || !via->link->quiet(via->ctx)))
            return TW_EP_SLEEP_POLLED_US;
    }
    return ep->bell_fd >= 0 ? us : TW_EP_SLEEP_POLLED_US;
}

/* Sleeps up to us microseconds on the bells of eps[0..n) unless rung since their
 * tickets: in ppoll on their bell sockets and their links' sockets when each has a bell
 * socket (then a packet on a link that must be polled ends it too), else on the
 * futexes (several only where the kernel waits on several at once). A link whose
 * descriptor must be readied first (arm) is readied only by a caller that may drive the
 * links (drives: it holds the endpoints); for one that may not, the link is its
 * holder's to watch. Returns 0 without sleeping when a link has something to read. */
static int ep_sleep(tw_ep_t *const *eps, tw_bell_t *const *bells, const uint32_t *tickets, int n,
                    unsigned us, int drives) {
    int sockets = 1;
    for (int i = 0; i < n; i++) sockets &= eps[i]->bell_fd >= 0;
    if (!sockets) {
        if (n == 1)
            tw_bell_sleep(bells[0], tickets[0], us);
        else
            tw_bell_sleep_any(bells, tickets, n, us);
        return 1;
    }
    struct pollfd fds[TW_EP_WAIT_SET_MOST * (TW_EP_LINKS_MAX + 1)];
    nfds_t k = 0;
    for (int i = 0; i < n; i++) {
        fds[k++] = (struct pollfd){.fd = eps[i]->bell_fd, .events = POLLIN};
        for (unsigned j = 0; j < eps[i]->nlinks; j++) {
            const tw_ep_link_t *via = &eps[i]->links[j];
            if (!via->link->fd || !(via->link->caps & TW_LINK_POLLED)) continue;
            if (via->link->arm && (!drives || via->link->arm(via->ctx))) {
                if (drives) return 0; /* something to read first */
                continue;
            }
            int fd = via->link->fd(via->ctx);
            if (fd >= 0) fds[k++] = (struct pollfd){.fd = fd, .events = POLLIN};
        }
    }
    struct timespec t = {(time_t)(us / 1000000u), (long)(us % 1000000u) * 1000};
    if (ppoll(fds, k, &t, NULL) <= 0) return 1;
    eps[0]->sleeps_ended++;
    for (int i = 0; i < n; i++) /* each bell socket is the first of its endpoint's */
        for (nfds_t j = 0; j < k; j++)
            if (fds[j].fd == eps[i]->bell_fd && (fds[j].revents & POLLIN))
                tw_bell_socket_drain(eps[i]->bell_fd);
    return 1;
}

/* TW_WAIT=sleep over the endpoints eps[0..n) (the first's settings): a pause, then the
 * core given away, then a sleep on their doorbells, until any is rung (what a wait
 * waits for may come through any of them), unless one has work or ready (when not
 * NULL) finds what the caller waits for once announced. Several endpoints sleep only
 * where the kernel waits on several futexes at once; elsewhere they give the core
 * away. */
static void ep_doze(tw_ep_t *const *eps, int n, unsigned *spins, int (*ready)(void *), void *ctx) {
    tw_ep_t *ep = eps[0];
    if (*spins < TW_EP_SLEEP_PAUSES) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return;
    }
    int retried = 0;
    for (int i = 0; i < n; i++) retried |= ep_retried(eps[i]);
    int sockets = 1; /* every one sleeps in ppoll: as many as it takes */
    for (int i = 0; i < n; i++) sockets &= eps[i]->bell_fd >= 0;
    if (*spins < TW_EP_SLEEP_PAUSES + TW_EP_SLEEP_YIELDS || retried ||
        (n > 1 && !sockets && !tw_bell_sleep_any_works())) {
        if (*spins > TW_EP_SLEEP_PAUSES + TW_EP_SLEEP_YIELDS) *spins = TW_EP_SLEEP_PAUSES;
        sched_yield();
        return;
    }
    *spins = TW_EP_SLEEP_PAUSES + TW_EP_SLEEP_YIELDS; /* sleeps from now on */
    tw_bell_t *bells[TW_EP_WAIT_SET_MOST];
    uint32_t tickets[TW_EP_WAIT_SET_MOST];
    unsigned bound = sleep_bound_us(ep);
    for (int i = 0; i < n; i++) {
        bells[i] = &eps[i]->segment->bell;
        tickets[i] = tw_bell_announce(bells[i]);
        unsigned us = sleep_bound_us(eps[i]);
        if (us < bound) bound = us;
    }
    int work = ready && ready(ctx);
    for (int i = 0; i < n && !work; i++) work = ep_has_work(eps[i]);
    if (!work && ep_sleep(eps, bells, tickets, n, bound, 1)) ep->sleeps++;
    for (int i = 0; i < n; i++) tw_bell_leave(bells[i]);
}

/* TW_WAIT=yield and auto: the core given away now and then, a pause between. */
static void ep_give_core(const tw_ep_t *ep, unsigned *spins) {
    if (*spins >= (ep->idle_spins > TW_EP_YIELD_EVERY ? ep->idle_spins : TW_EP_YIELD_EVERY)) {
        *spins = 0;
        sched_yield();
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause(); /* let the rank sharing this core run */
#endif
}

/* A wait over the endpoints eps[0..n) that has polled idle_spins times (the first's
 * TW_WAIT settings). */
static void ep_yield(tw_ep_t *const *eps, int n, unsigned *spins, int (*ready)(void *), void *ctx) {
    tw_ep_t *ep = eps[0];
    if (ep->idle_spins == UINT_MAX) { /* TW_WAIT=spin: never a system call */
        *spins = 0;
        return;
    }
    if (ep->sleep_us) {
        ep_doze(eps, n, spins, ready, ctx);
        return;
    }
    /* TW_WAIT=yield: every TW_EP_YIELD_EVERY polls; auto: every idle_spins */
    ep_give_core(ep, spins);
}

void tw_ep_yield(tw_ep_t *ep, unsigned *spins) {
    ep_yield(&ep, 1, spins, NULL, NULL);
}

void tw_ep_relax(tw_ep_t *ep, unsigned *spins) {
    tw_ep_idle(ep, spins);
}

void tw_ep_relax_until(tw_ep_t *ep, unsigned *spins, int (*ready)(void *ctx), void *ctx) {
    if (++*spins >= ep->idle_spins) ep_yield(&ep, 1, spins, ready, ctx);
}

void tw_ep_relax_until_set(tw_ep_t *const *eps, int n, unsigned *spins, int (*ready)(void *ctx),
                           void *ctx) {
    if (n < 1 || ++*spins < eps[0]->idle_spins) return;
    ep_yield(eps, n < TW_EP_WAIT_SET_MOST ? n : TW_EP_WAIT_SET_MOST, spins, ready, ctx);
}

void tw_ep_relax_shared(tw_ep_t *ep, unsigned *spins, int (*awake)(void *ctx), void *ctx) {
    /* reads the endpoint's settings, which no thread changes after tw_ep_open, and
     * its doorbell, which is atomic: nothing another thread's use of it writes */
    if (++*spins < ep->idle_spins) return;
    if (ep->idle_spins == UINT_MAX) {
        *spins = 0;
        return;
    }
    if (!ep->sleep_us) {
        ep_give_core(ep, spins);
        return;
    }
    if (*spins < TW_EP_SLEEP_PAUSES) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return;
    }
    if (*spins < TW_EP_SLEEP_PAUSES + TW_EP_SLEEP_YIELDS) {
        if (*spins > TW_EP_SLEEP_PAUSES + TW_EP_SLEEP_YIELDS) *spins = TW_EP_SLEEP_PAUSES;
        sched_yield();
        return;
    }
    *spins = TW_EP_SLEEP_PAUSES + TW_EP_SLEEP_YIELDS; /* sleeps from now on */
    tw_bell_t *bell = &ep->segment->bell;
    uint32_t ticket = tw_bell_announce(bell);
    int up = awake(ctx);
    if (!up) ep_sleep(&ep, &bell, &ticket, 1, sleep_bound_us(ep), 0); /* not its lock */
    tw_bell_leave(bell);
    if (up) { /* as ep_doze: the core given away for a while before the next try */
        *spins = TW_EP_SLEEP_PAUSES;
        sched_yield();
    }
}

int tw_ep_crowded(const tw_ep_t *ep) {
    return ep && ep->job->local_size > ep->job->cores;
}

int tw_ep_progress_thread(const tw_ep_t *ep) {
    return ep && ep->progress_thread != NULL;
}

int tw_ep_maps_node(const tw_ep_t *ep) {
    return ep && !ep->every_peer;
}

int tw_ep_sleeps(const tw_ep_t *ep) {
    return ep && ep->sleep_us != 0;
}

void tw_ep_wake(tw_ep_t *ep, int rank) {
    tw_peer_t *peer;
    if (!ep || (unsigned)rank >= (unsigned)ep->size || tw_ep_peer(ep, rank, &peer)) return;
    if (peer->mapped) tw_ring_wake(&peer->velo); /* its doorbell, if it may sleep */
}

void tw_ep_wake_self(tw_ep_t *ep) {
    if (ep) tw_bell_ring(&ep->segment->bell, ep->bell_fd >= 0 ? &ep->bell_socket : NULL);
}

void tw_ep_abort(tw_ep_t *ep, int code, const char *msg) {
    tw_pm_abort(&ep->job->pm, code, msg);
}
