/* The ofi link's table (tw_link_ofi): device messages over a libfabric FI_EP_RDM
 * endpoint, so that a job reaches its peers on other nodes through whatever fabric
 * libfabric drives (verbs, efa, cxi, opx, psm3, tcp…).
 *
 * Each Tollway endpoint opens one libfabric endpoint and publishes its name (fi_getname)
 * beside its segment's; a peer's name goes into an FI_AV_TABLE address vector when the
 * device first reaches it. VELO messages and RMA requests and answers (message.h) travel
 * as messages, preceded by the sender's rank, and the target's device executes the RMA
 * as it does for udp: only FI_MSG is asked of the provider, so every provider serves.
 * The endpoint is reliable and keeps the order of one sender's messages (FI_ORDER_SAS),
 * which the device relies on as it does on udp's streams.
 *
 * Memory. Every message leaves from one of SEND_SLOTS slots of one registered pool
 * (FI_MR_LOCAL providers need a descriptor), or inline (fi_inject) when short enough
 * and nothing waits before it; RECV_SLOTS receives of the longest message are posted
 * from the same pool. A message the device cannot take now (a full mailbox) keeps its
 * receive buffer until it can; the messages behind it from the same sender wait with it,
 * the others' go on. ANSWER_RESERVE slots are kept for RMA answers, so that two
 * endpoints whose slots are full of requests to each other still answer them.
 *
 * Progress. Providers such as tcp;ofi_rxm move nothing unless their completion queue is
 * read: every poll reads it, and so does a send that finds no slot or gets
 * -FI_EAGAIN. The queue's wait descriptor, when the provider has one, is what the
 * progress thread sleeps on.
 *
 * Liveness. A reliable endpoint reports a peer that died, but not one that stopped or
 * is cut off while nothing is in flight to it: its completions simply never come. So
 * the link watches its peers as the udp link does, with the same liveness thread and
 * socket (liveness.h: probes on the host's IPv4 network, answered by the peer's
 * thread, TW_UDP_TIMEOUT), and a peer that closes says so last (TW_OFI_BYE), so that
 * one that finished is not probed.
 *
 * TW_OFI_MR=strict registers and passes descriptors for every buffer even where the
 * provider does not ask, so the software providers of CI take the paths hardware would. */
#include "link/ofi/link.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <tollway/atu.h>
#include <tollway/notify.h>
#include <tollway/status.h>
#include <tollway/velo.h>

#include "link/message.h"
#include "link/address.h"
#include "link/ip_address.h"
#include "link/liveness.h"
#include "link/siphash.h"
#include "runtime/settings.h"

enum {
    SEND_SLOTS = 32,
    RECV_SLOTS = TW_OFI_WINDOW,
    ANSWER_RESERVE = 8,
    /* the longest put that goes as one write: a chunk's length is 32 bits */
    WRITE_MAX = 1u << 30,
    /* the shortest put auto moves with the fabric's writes on a software provider */
    NATIVE_SOFTWARE_MIN = 128 << 10,
    /* a put's chunk at least this long is sent from the caller's memory, not copied */
    BORROW_MIN = 4096,
    CQ_BATCH = 16,
    /* the sender's rank, the message's header, then the longest RMA record and chunk
     * (a VELO message is shorter), rounded to a cache line */
    SLOT_SIZE = (sizeof(tw_ofi_hdr_t) + TW_LINK_RMA_MSG_MAX + 63) & ~63u,
    /* how long a closing endpoint waits for what it sent to complete */
    CLOSE_LINGER_MS = 10000,
};
#define OFI_API FI_VERSION(1, 9)

/* Native RMA (TW_OFI_RMA=auto on a provider with FI_RMA). Registrations of peers this
 * endpoint learnt (REMOTES, a cache in sets of REMOTE_WAYS: a newcomer replaces one not
 * offered for a put still to come), and of
 * its own that it exposed to the fabric (EXPOSED_MAX: a registration beyond stays
 * reachable by messages only). */
enum { REMOTES = 1024, REMOTE_WAYS = 4, EXPOSED_MAX = 4096 };

/* Commits (a put's request with no data that brings its completer the notification, once
 * the put's writes are delivered) to one peer not answered yet, kept apart from the other
 * requests sent as messages: the next put's writes need not wait for them, since its own
 * completion, by its commit, comes behind theirs. One more goes as an ordinary request. */
enum { COMMITS_MAX = 32 };
typedef struct commits {
    uint32_t handle[COMMITS_MAX]; /* in the order sent, which is the order answered */
    uint8_t head, count;
} commits_t;

/* libfabric, opened when the link is first asked for: a process that never opens the link
 * never loads it, nor the libraries of its providers (libibverbs, libpsm2, …). Some of
 * these take over SIGSEGV when they load (libpsm_infinipath), which would turn a
 * program's crash into an exit status of 1: load gives the signals back. Its few exported functions
 * are looked up; the rest of its API is inline calls through the objects it returns. Each takes the
 * structures it allocated (fi_dupinfo), so a newer libfabric than the headers serves as well. */
static struct {
    pthread_once_t once;
    int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
                   const struct fi_info *hints, struct fi_info **info);
    void (*freeinfo)(struct fi_info *info);
    struct fi_info *(*dupinfo)(const struct fi_info *info);
    int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
    const char *(*strerror)(int errnum);
    char why[200]; /* empty when loaded */
} lib = {.once = PTHREAD_ONCE_INIT};

static void load(void) {
    /* the providers' libraries that take over signals as they load (PSM's SIGSEGV,
     * SIGBUS…) give them back: a crash stays the program's, reported as the signal */
    struct sigaction before[NSIG];
    for (int sig = 1; sig < NSIG; sig++) sigaction(sig, NULL, &before[sig]);
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction now;
        if (!sigaction(sig, NULL, &now) &&
            (now.sa_handler != before[sig].sa_handler || now.sa_flags != before[sig].sa_flags))
            sigaction(sig, &before[sig], NULL);
    }
    if (!h) {
        snprintf(lib.why, sizeof lib.why, "libfabric cannot be loaded: %s", dlerror());
        return;
    }
    *(void **)&lib.getinfo = dlsym(h, "fi_getinfo");
    *(void **)&lib.freeinfo = dlsym(h, "fi_freeinfo");
    *(void **)&lib.dupinfo = dlsym(h, "fi_dupinfo");
    *(void **)&lib.fabric = dlsym(h, "fi_fabric");
    *(void **)&lib.strerror = dlsym(h, "fi_strerror");
    if (!lib.getinfo || !lib.freeinfo || !lib.dupinfo || !lib.fabric || !lib.strerror)
        snprintf(lib.why, sizeof lib.why,
                 "libfabric.so.1 lacks fi_getinfo, fi_dupinfo, "
                 "fi_freeinfo, fi_fabric or fi_strerror");
}

/* 1 when libfabric is loaded; else 0, with the reason in lib.why. */
static int loaded(void) {
    pthread_once(&lib.once, load);
    return !lib.why[0];
}

/* What a send slot carries: a message, or one of the fabric's own writes or reads, whose
 * answer the link writes for the device once it completes (rma_answer_t, first in buf
 * for a read, its data after it). */
enum { SLOT_MESSAGE, SLOT_WRITE, SLOT_READ, SLOT_ABANDONED };

typedef struct slot {
    struct fi_context2 ctx; /* first: the provider's, and how a completion finds its slot */
    unsigned char *buf;
    size_t len;
    int dest;
    uint8_t kind;      /* SLOT_* */
    uint8_t commit;    /* a write: the request follows it, with no data (the notification) */
    uint8_t completed; /* a write or read: its completion came */
    int error;         /* a write or read: the provider's error, 0 when it completed */
    /* a message's last piece sent from where it lies (a put's data: the device keeps it
     * until the put is answered, which is after the provider has read it), not copied.
     * A put to a peer declared lost ends unanswered: a send of it still in the provider
     * may then read memory the program has reused, and carries that to the lost peer,
     * whose receive has failed; the process's own memory is only read. */
    const void *tail;
    size_t tail_len;
    rma_answer_t answer;
    rma_req_t req;
} slot_t;

/* A peer's registration as this side reaches it with the fabric's operations. */
enum { REMOTE_SEEN, REMOTE_ASKED, REMOTE_KNOWN };

typedef struct remote {
    int dest;  /* -1: empty */
    int state; /* REMOTE_*: met once; its translation asked for; known */
    int once;  /* offered for one put (TW_OFI_XLATE_ONCE): forgotten once its last chunk went */
    tw_ofi_xlate_t x;
} remote_t;

/* One of our registrations exposed to the fabric. */
typedef struct exposed {
    struct fid_mr *mr; /* NULL: empty */
    uint64_t nla;      /* of its first byte */
    uint8_t *holders;  /* bit per rank: given its translation, not yet revoked */
} exposed_t;

typedef struct pending {
    uint32_t recv; /* the receive slot */
    uint32_t len;
} pending_t;

struct tw_link_ctx {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_mr *mr;
    void *desc; /* the pool's descriptor, or NULL where the provider needs none */
    int wait_fd;
    const tw_link_device_t *dev;
    void *dev_ctx;
    int self, size;
    fi_addr_t *peer;   /* per rank: FI_ADDR_NOTAVAIL until connected */
    uint32_t *tx_seq;  /* per rank: the seq of the next message to it */
    uint32_t *rx_seq;  /* per rank: the seq of the next message from it to deliver */
    int8_t *lost;      /* per rank: 0, or the cause it was lost for (TW_ERR_*) */
    uint8_t *closed;   /* per rank: it said goodbye (TW_OFI_BYE): it sends nothing more */
    int lost_owed;     /* peers lost that the device has not been told of */
    size_t inject_max; /* the longest message fi_inject takes */
    unsigned char *pool;
    unsigned char *scratch; /* an inline message, gathered */
    slot_t send[SEND_SLOTS], recv[RECV_SLOTS];
    uint32_t free_slots[SEND_SLOTS], nfree;
    uint32_t queue[SEND_SLOTS], qhead, qcount; /* slots waiting to be posted, in order */
    pending_t pending[RECV_SLOTS];             /* received, not taken yet, in order */
    uint32_t npending;
    uint32_t unposted[RECV_SLOTS], nunposted; /* receives to post again */
    tw_link_held_t held;                      /* a long put's answers not sent yet */
    /* writes and reads in the order they were issued: answered in that order, as the
     * device's operations to one target complete in order */
    uint32_t native_q[SEND_SLOTS], native_head, native_count;
    uint32_t *native_out;  /* per rank: writes and reads not answered yet */
    uint32_t *message_out; /* per rank: RMA requests sent as messages, not answered yet,
                              but the commits counted in commits */
    commits_t *commits;    /* per rank */
    /* per rank: 0, or 1 + the count of writes and reads answered (native_head) once those
     * issued before its TW_OFI_REVOKE arrived are: then it is acknowledged */
    uint32_t *revoke_until;
    int rma;             /* native RMA: the provider has FI_RMA, and it is asked */
    uint64_t native_min; /* the shortest put native RMA moves (and no get when not 0) */
    uint64_t write_max;  /* the longest put that goes as one write */
    int mr_local;        /* local buffers registered (FI_MR_LOCAL, or strict) */
    int borrow;          /* a put's data sent from where it lies (send_msg_borrowing) */
    uint64_t mr_mode;
    uint64_t next_key; /* the key asked for the next exposed registration (no FI_MR_PROV_KEY) */
    remote_t *remotes;
    exposed_t *exposed;
    uint32_t nexposed;
    int delivering;
    int closing;
    int error_said;
    tw_udp_liveness_t *live; /* NULL for a job of one */
    tw_udp_live_peer_t *live_peers;
    unsigned live_verdicts;
    uint64_t now_ns; /* the clock when this side last polled (with liveness) */
    struct sockaddr_in live_addr;
    struct {
        uint64_t msgs_sent, msgs_inline, msgs_borrowed, msgs_received, bytes_sent, bytes_received;
        uint64_t eagain, no_slot, refused, malformed, cq_errors;
        uint64_t native_writes, native_reads, native_long_writes, native_bytes, native_faults,
            xlates_asked, xlates_given, xlates_refused, xlates_offered;
    } stats;
};

static const char *provider(const tw_link_ctx_t *l) {
    return l->info->fabric_attr->prov_name;
}

/* A provider's refusal, once per endpoint on stderr: which provider, which call. */
static void say_error(tw_link_ctx_t *l, const char *call, int dest, const char *what) {
    if (l->closing || l->error_said++) return;
    if (dest >= 0)
        fprintf(stderr, "tollway: rank %d: ofi link (provider %s): %s to rank %d: %s\n", l->self,
                provider(l), call, dest, what);
    else
        fprintf(stderr, "tollway: rank %d: ofi link (provider %s): %s: %s\n", l->self, provider(l),
                call, what);
}

static void mark_lost(tw_link_ctx_t *l, int rank, int cause) {
    if (rank < 0 || rank >= l->size || l->lost[rank]) return;
    l->lost[rank] = (int8_t)cause;
    l->lost_owed = 1;
}

static uint64_t clock_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The liveness thread watches rank from now (the link talks to it), or no longer (it
 * closed). */
static void watch(tw_link_ctx_t *l, int rank, int on) {
    if (l->live_peers)
        atomic_store_explicit(&l->live_peers[rank].watched, on, memory_order_relaxed);
}

static void repost(tw_link_ctx_t *l, uint32_t i) {
    ssize_t rc =
        fi_recv(l->ep, l->recv[i].buf, SLOT_SIZE, l->desc, FI_ADDR_UNSPEC, &l->recv[i].ctx);
    if (rc) l->unposted[l->nunposted++] = i; /* -FI_EAGAIN: again at the next poll */
}

static void send_done(tw_link_ctx_t *l, slot_t *s) {
    s->kind = SLOT_MESSAGE;
    s->tail_len = 0;
    l->free_slots[l->nfree++] = (uint32_t)(s - l->send);
}

/* One completion: a receive waits to be delivered, a send's slot is free again. */
static void completed(tw_link_ctx_t *l, void *context, size_t len) {
    slot_t *s = context;
    if (s >= l->recv && s < l->recv + RECV_SLOTS) {
        l->pending[l->npending++] = (pending_t){(uint32_t)(s - l->recv), (uint32_t)len};
        l->stats.msgs_received++;
        l->stats.bytes_received += len;
    } else if (s >= l->send && s < l->send + SEND_SLOTS) {
        if (s->kind == SLOT_MESSAGE || s->kind == SLOT_ABANDONED)
            send_done(l, s);
        else
            s->completed = 1; /* answered at the next poll, in order */
    }
}

/* Errors that say the peer is gone (a reliable endpoint gave up on it), rather than that
 * it refused one operation. */
static int peer_gone(int err) {
    return err == FI_ECONNREFUSED || err == FI_ECONNRESET || err == FI_ECONNABORTED ||
           err == FI_EHOSTUNREACH || err == FI_ENOTCONN || err == FI_ETIMEDOUT || err == FI_EIO;
}

static void cq_error(tw_link_ctx_t *l) {
    struct fi_cq_err_entry e = {0};
    if (fi_cq_readerr(l->cq, &e, 0) != 1) return;
    slot_t *s = e.op_context;
    if (e.err == FI_ECANCELED) {
        if (s >= l->send && s < l->send + SEND_SLOTS) send_done(l, s);
        return;
    }
    l->stats.cq_errors++;
    char why[256];
    snprintf(why, sizeof why, "%s (%s)", lib.strerror(e.err),
             fi_cq_strerror(l->cq, e.prov_errno, e.err_data, NULL, 0));
    if (s >= l->send && s < l->send + SEND_SLOTS && s->kind != SLOT_MESSAGE) {
        /* a write or read: a key the target revoked (its registration went), or the peer */
        l->stats.native_faults++;
        s->error = e.err ? e.err : FI_EOTHER;
        if (peer_gone(s->error)) {
            say_error(l, s->kind == SLOT_WRITE ? "fi_writemsg" : "fi_readmsg", s->dest, why);
            mark_lost(l, s->dest, TW_ERR_LOST);
        }
        s->completed = 1;
    } else if (s >= l->send && s < l->send + SEND_SLOTS) {
        say_error(l, "fi_send", s->dest, why);
        mark_lost(l, s->dest, TW_ERR_LOST); /* a reliable endpoint gave up on it */
        send_done(l, s);
    } else if (s >= l->recv && s < l->recv + RECV_SLOTS) {
        say_error(l, "fi_recv", -1, why);
        repost(l, (uint32_t)(s - l->recv));
    }
}

/* Reads the completion queue dry: this is also what makes the provider progress. Not
 * while the device takes what was received (a send of its callbacks may ask): the
 * receives pending then stay the ones being delivered, at most RECV_SLOTS. */
static void read_cq(tw_link_ctx_t *l) {
    struct fi_cq_msg_entry e[CQ_BATCH];
    if (l->delivering) return;
    for (;;) {
        ssize_t n = fi_cq_read(l->cq, e, CQ_BATCH);
        if (n == -FI_EAVAIL) {
            cq_error(l);
            continue;
        }
        if (n <= 0) {
            if (n != -FI_EAGAIN && n != 0) say_error(l, "fi_cq_read", -1, lib.strerror((int)-n));
            return;
        }
        for (ssize_t i = 0; i < n; i++) completed(l, e[i].op_context, e[i].len);
        if (n < CQ_BATCH) return;
    }
}

/* Posts the waiting slots in order, until the provider says -FI_EAGAIN. */
static void drain_queue(tw_link_ctx_t *l) {
    while (l->qcount) {
        slot_t *s = &l->send[l->queue[l->qhead]];
        struct iovec v[2] = {{s->buf, s->len}, {(void *)s->tail, s->tail_len}};
        void *desc[2] = {l->desc, NULL};
        ssize_t rc = l->lost[s->dest] ? -FI_ECONNABORTED
                     : s->tail_len
                         ? fi_sendv(l->ep, v, desc, 2, l->peer[s->dest], &s->ctx)
                         : fi_send(l->ep, s->buf, s->len, l->desc, l->peer[s->dest], &s->ctx);
        if (rc == -FI_EAGAIN) {
            l->stats.eagain++;
            return;
        }
        l->qhead = (l->qhead + 1) % SEND_SLOTS;
        l->qcount--;
        if (rc) {
            if (!l->lost[s->dest]) {
                say_error(l, "fi_send", s->dest, lib.strerror((int)-rc));
                mark_lost(l, s->dest, TW_ERR_LOST);
            }
            send_done(l, s);
            continue;
        }
        l->stats.msgs_sent++;
        l->stats.bytes_sent += s->len + s->tail_len;
    }
}

static void waiting(tw_link_ctx_t *l);

/* What a sender that waits does: completions read (the provider moves meanwhile), the
 * waiting slots posted again, and the peers watched (one may be why it waits). */
static void progress(tw_link_ctx_t *l) {
    waiting(l);
    read_cq(l);
    if (l->qcount) drain_queue(l);
}

/* The message into buf: the link's header h, then the n pieces of iov. */
static void gather(unsigned char *buf, const tw_ofi_hdr_t *h, const struct iovec *iov, int n) {
    memcpy(buf, h, sizeof *h);
    buf += sizeof *h;
    for (int i = 0; i < n; i++) {
        if (iov[i].iov_len) memcpy(buf, iov[i].iov_base, iov[i].iov_len);
        buf += iov[i].iov_len;
    }
}

/* Sends the message gathered from iov (the sender's rank is put in front): TW_OK when it
 * went or waits in a slot, TW_RETRY when no slot is free beyond `reserve`. With `borrow`,
 * a long last piece is sent from where it lies (link_rma_request's data), not copied. */
static int send_msg_borrowing(tw_link_ctx_t *l, int dest, const struct iovec *iov, int n,
                              size_t reserve, int borrow) {
    if (l->lost[dest]) return TW_ERR_LOST;
    if (l->peer[dest] == FI_ADDR_NOTAVAIL) return TW_ERR_PEER;
    tw_ofi_hdr_t h = {(uint32_t)l->self, l->tx_seq[dest]};
    size_t total = sizeof h;
    for (int i = 0; i < n; i++) total += iov[i].iov_len;
    if (total > SLOT_SIZE) return TW_ERR_SIZE;
    if (!l->qcount && total <= l->inject_max) { /* inline: nothing waits before it */
        gather(l->scratch, &h, iov, n);
        ssize_t rc = fi_inject(l->ep, l->scratch, total, l->peer[dest]);
        if (rc == 0) {
            l->tx_seq[dest]++;
            l->stats.msgs_sent++;
            l->stats.msgs_inline++;
            l->stats.bytes_sent += total;
            return TW_OK;
        }
        if (rc != -FI_EAGAIN) {
            say_error(l, "fi_inject", dest, lib.strerror((int)-rc));
            mark_lost(l, dest, TW_ERR_LOST);
            return TW_ERR_LOST;
        }
        l->stats.eagain++;
    }
    if (l->nfree <= reserve) progress(l);
    if (l->nfree <= reserve) {
        l->stats.no_slot++;
        return TW_RETRY;
    }
    slot_t *s = &l->send[l->free_slots[--l->nfree]];
    borrow = borrow && l->borrow && iov[n - 1].iov_len >= BORROW_MIN;
    gather(s->buf, &h, iov, borrow ? n - 1 : n);
    s->tail = borrow ? iov[n - 1].iov_base : NULL;
    s->tail_len = borrow ? iov[n - 1].iov_len : 0;
    s->len = total - s->tail_len;
    l->stats.msgs_borrowed += borrow;
    s->dest = dest;
    l->tx_seq[dest]++;
    l->queue[(l->qhead + l->qcount++) % SEND_SLOTS] = (uint32_t)(s - l->send);
    drain_queue(l);
    if (l->qcount) progress(l); /* -FI_EAGAIN: the provider moves on when its queue is read */
    return TW_OK;
}

static int send_msg(tw_link_ctx_t *l, int dest, const struct iovec *iov, int n, size_t reserve) {
    return send_msg_borrowing(l, dest, iov, n, reserve, 0);
}

/* ---- native RMA: puts and gets with the fabric's writes and reads ----
 *
 * The target's device checks every key (the ATU, as miNI checks keys at the owner), so
 * the fabric's key of a registration is handed only to an initiator that showed the
 * registration's key: the initiator asks (TW_OFI_XLATE_ASK) the first time it meets a
 * registration, the target's link asks its device (tw_link_device_t.region), registers
 * the memory with the provider and answers (TW_OFI_XLATE). Meanwhile, and for whatever the
 * fabric cannot do alone (a get's responder notification, put-immediate, atomics), the
 * requests go as messages and the target's device executes them as over udp; atomics
 * always do, since the target's node updates the same words with the CPU's atomics,
 * which a provider's atomics are not atomic with.
 *
 * A write or read completes before its answer is written for the device: a write with
 * FI_DELIVERY_COMPLETE, so that the data is in the target's memory when the requester's
 * notification says so. A put whose completer wants its notification sends, once its
 * last chunk's write has completed, that chunk's request with no data: the target's
 * device checks it, writes the notification and answers, as for data that landed in
 * place. A registration that goes (tw_dereg) closes its provider registration first
 * (region_gone): a late write or read then fails in the provider, and its answer says
 * TW_ERR_STALE, as the target's device would. */

/* dest's registration with key: its slot among the REMOTE_WAYS of its set, or, not there,
 * the slot a newcomer takes (an empty one, else one not offered for a put to come). */
static remote_t *remote_slot(tw_link_ctx_t *l, int dest, uint64_t key) {
    uint64_t h = (key ^ (uint64_t)(uint32_t)dest * 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
    remote_t *set = &l->remotes[(h >> 54) & ~(uint64_t)(REMOTE_WAYS - 1)]; /* REMOTES = 1024 */
    remote_t *empty = NULL, *kept = NULL;
    for (int i = 0; i < REMOTE_WAYS; i++) {
        if (set[i].dest == dest && set[i].x.key == key) return &set[i];
        if (set[i].dest < 0 && !empty) empty = &set[i];
        if (!set[i].once && !kept) kept = &set[i];
    }
    return empty ? empty : kept ? kept : set;
}

static int ask_translation(tw_link_ctx_t *l, int dest, uint64_t nla, uint64_t key) {
    tw_ofi_ask_t a = {.kind = TW_OFI_XLATE_ASK, .nla = nla, .key = key};
    struct iovec v = {&a, sizeof a};
    int rc = send_msg(l, dest, &v, 1, ANSWER_RESERVE);
    if (!rc) l->stats.xlates_asked++;
    return rc;
}

/* The span of data r moves: a put's len bytes, or the get's chunk it asks for. */
static uint64_t span_of(const rma_req_t *r, size_t len) {
    return r->op == TW_OP_PUT ? len : (r->total - r->offset < r->b ? r->total - r->offset : r->b);
}

/* The translation the operation r (span bytes) would go through with the fabric's writes
 * and reads now, or NULL when it goes as a message: what the fabric cannot do alone, a
 * registration whose translation is not known (or refuses it), requests sent as messages
 * to dest still under way (it waits behind them, in order). No side effect: asked also
 * before the device commits to the operation (rma_can_request). */
static remote_t *native_target(tw_link_ctx_t *l, int dest, const rma_req_t *r, uint64_t span) {
    int fabric_can =
        r->op == TW_OP_PUT || (r->op == TW_OP_GET && !(r->notify & TW_NOTIFY_RESPONDER));
    /* behind commits only a put that ends with one of its own */
    int behind =
        l->message_out[dest] ||
        (l->commits[dest].count && !(r->op == TW_OP_PUT && (r->notify & TW_NOTIFY_COMPLETER)));
    int worth = r->op == TW_OP_PUT ? r->total >= l->native_min : !l->native_min;
    if (!l->rma || !fabric_can || !worth || !span || behind || l->lost[dest] ||
        l->peer[dest] == FI_ADDR_NOTAVAIL ||
        (r->op == TW_OP_GET && span > SLOT_SIZE - sizeof(rma_answer_t)))
        return NULL;
    remote_t *m = remote_slot(l, dest, r->key);
    if (m->dest != dest || m->x.key != r->key || m->state != REMOTE_KNOWN) return NULL;
    unsigned perm = r->op == TW_OP_PUT ? TW_PERM_WRITE : TW_PERM_READ;
    uint64_t at = r->nla - m->x.nla; /* where the operation starts in it */
    if ((m->x.perms & perm) != perm || at >= m->x.length || r->offset > m->x.length - at ||
        span > m->x.length - at - r->offset)
        return NULL; /* the target's device refuses it, as it must */
    return m;
}

/* r goes as a message: a registration met for the first time is remembered, and at its
 * next operation its translation is asked for (so that one used once, a rendezvous
 * message's buffer, costs the target no registration with the provider). */
static void met(tw_link_ctx_t *l, int dest, const rma_req_t *r) {
    if (r->offset || !(r->op == TW_OP_PUT || r->op == TW_OP_GET) ||
        (r->op == TW_OP_PUT ? r->total < l->native_min : l->native_min != 0))
        return; /* not one native RMA would move */
    remote_t *m = remote_slot(l, dest, r->key);
    if (m->dest != dest || m->x.key != r->key) /* a key names one registration */
        *m = (remote_t){.dest = dest, .state = REMOTE_SEEN, .x = {.nla = r->nla, .key = r->key}};
    else if (m->state == REMOTE_SEEN && ask_translation(l, dest, r->nla, r->key) == TW_OK)
        m->state = REMOTE_ASKED;
}

/* native's answer when r goes as a message instead (beside TW_OK and TW_RETRY). */
enum { AS_MESSAGE = 100 };

/* Sends r with the fabric's write or read: TW_OK, TW_RETRY, or AS_MESSAGE. */
static int native(tw_link_ctx_t *l, int dest, const rma_req_t *r, const void *data, size_t len) {
    int put = r->op == TW_OP_PUT;
    uint64_t span = span_of(r, len);
    remote_t *m = native_target(l, dest, r, span);
    if (!m) { /* as a message: after the writes and reads before it, in order; a put's
               * chunk longer than a message is offered again, to be cut (link_rma_chunk) */
        return l->native_out[dest] || len > REMOTE_CHUNK_MAX ? TW_RETRY : AS_MESSAGE;
    }
    if (l->nfree <= ANSWER_RESERVE) progress(l);
    if (l->nfree <= ANSWER_RESERVE) {
        l->stats.no_slot++;
        return TW_RETRY;
    }
    slot_t *s = &l->send[l->free_slots[--l->nfree]];
    s->kind = put ? SLOT_WRITE : SLOT_READ;
    s->dest = dest;
    s->error = 0;
    s->answer = (rma_answer_t){.handle = r->handle,
                               .status = TW_OK,
                               .kind = ANSWER_ACK,
                               .chunks = 1,
                               .chunk_len = put ? 0 : (uint32_t)span,
                               .offset = r->offset};
    s->commit = put && (r->notify & TW_NOTIFY_COMPLETER) && r->offset + len >= r->total;
    s->req = *r;
    s->req.chunk_len = 0; /* the commit: the data is in place, */
    s->req.offset += len; /* and this, the put's last, chunk is behind it */
    void *local = put ? (void *)data : s->buf + sizeof(rma_answer_t);
    void *desc = NULL;
    if (put && l->mr_local && span) { /* from registered memory: the slot's */
        memcpy(s->buf, data, span);
        local = s->buf;
    }
    if (l->mr_local || !put) desc = l->desc;
    struct iovec iov = {local, span};
    const tw_ofi_xlate_t *x = &m->x;
    struct fi_rma_iov rma = {x->addr + (r->nla - x->nla) + r->offset, span, x->rkey};
    struct fi_msg_rma msg = {.msg_iov = &iov,
                             .desc = &desc,
                             .iov_count = 1,
                             .addr = l->peer[dest],
                             .rma_iov = &rma,
                             .rma_iov_count = 1,
                             .context = &s->ctx};
    /* -FI_EAGAIN: the provider moves when its queue is read, and this waits for it rather
     * than refuse the operation (TW_RETRY now would leave the device's reservations
     * cancelled in our queue, once per try) */
    ssize_t rc;
    while ((rc = put ? fi_writemsg(l->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE)
                     : fi_readmsg(l->ep, &msg, FI_COMPLETION)) == -FI_EAGAIN &&
           !l->lost[dest]) {
        l->stats.eagain++;
        progress(l);
    }
    if (rc) send_done(l, s);
    if (rc == -FI_EAGAIN) return AS_MESSAGE; /* lost meanwhile: said there */
    if (rc) { /* refused before it went: as a message instead, from now on */
        say_error(l, put ? "fi_writemsg" : "fi_readmsg", dest, lib.strerror((int)-rc));
        l->rma = 0;
        return AS_MESSAGE;
    }
    l->native_q[(l->native_head + l->native_count++) % SEND_SLOTS] = (uint32_t)(s - l->send);
    l->native_out[dest]++;
    if (m->once && put && r->offset + len >= r->total)
        m->dest = -1; /* the put it was offered for has gone: its owner closes it unasked */
    if (put) {
        l->stats.native_writes++;
        l->stats.native_long_writes += len > REMOTE_CHUNK_MAX;
    } else {
        l->stats.native_reads++;
    }
    l->stats.native_bytes += span;
    return TW_OK;
}

/* Writes and reads completed, in the order they were issued: their answers to the device
 * (from poll, as a received answer would be), or the request that brings the completer
 * its notification. The number answered. */
static int answer_native(tw_link_ctx_t *l) {
    int n = 0;
    while (l->native_count) {
        slot_t *s = &l->send[l->native_q[l->native_head % SEND_SLOTS]];
        if (!s->completed && !l->lost[s->dest]) break;
        l->native_head++;
        l->native_count--;
        if (l->native_out[s->dest]) l->native_out[s->dest]--;
        if (l->lost[s->dest]) { /* the device ends its operations to a peer lost */
            if (s->completed)
                send_done(l, s);
            else
                s->kind = SLOT_ABANDONED; /* its completion may never come: the slot waits */
            s->completed = 0;
            continue;
        }
        s->completed = 0;
        n++;
        if (s->error) { /* the fabric refused the key: its registration went */
            remote_t *m = remote_slot(l, s->dest, s->req.key);
            if (m->dest == s->dest && m->x.key == s->req.key) m->dest = -1;
            s->answer.status = TW_ERR_STALE;
            s->answer.chunk_len = 0;
        } else if (s->commit) {
            tw_link_msg_hdr_t h = {TW_LINK_MSG_RMA_REQ, 0, 0};
            tw_ofi_hdr_t o = {(uint32_t)l->self, l->tx_seq[s->dest]++};
            struct iovec v[2] = {{&h, sizeof h}, {&s->req, sizeof s->req}};
            gather(s->buf, &o, v, 2); /* the slot goes on as that message */
            s->len = sizeof o + sizeof h + sizeof s->req;
            s->kind = SLOT_MESSAGE;
            commits_t *c = &l->commits[s->dest];
            if (c->count < COMMITS_MAX)
                c->handle[(c->head + c->count++) % COMMITS_MAX] = s->req.handle;
            else
                l->message_out[s->dest]++;
            l->queue[(l->qhead + l->qcount++) % SEND_SLOTS] = (uint32_t)(s - l->send);
            drain_queue(l);
            continue;
        }
        if (s->kind == SLOT_READ && !s->error) {
            memcpy(s->buf, &s->answer, sizeof s->answer);
            l->dev->rma_answer(l->dev_ctx, (uint32_t)s->dest, s->buf,
                               sizeof s->answer + s->answer.chunk_len);
        } else {
            l->dev->rma_answer(l->dev_ctx, (uint32_t)s->dest, &s->answer, sizeof s->answer);
        }
        send_done(l, s);
    }
    return n;
}

static exposed_t *exposed_slot(tw_link_ctx_t *l, uint64_t nla) {
    uint64_t h = nla * 0x9e3779b97f4a7c15ull;
    return &l->exposed[h >> 52]; /* EXPOSED_MAX = 4096 */
}

/* Our registration g exposed to the fabric (registered with the provider once): its slot,
 * or NULL when it cannot be (its place taken, the provider refused, keys too long). */
static exposed_t *expose(tw_link_ctx_t *l, const tw_link_region_t *g) {
    exposed_t *e = exposed_slot(l, g->nla);
    if (e->mr && e->nla != g->nla) return NULL; /* its place is taken: messages only */
    if (!e->mr) {
        uint64_t access = (g->perms & TW_PERM_READ ? FI_REMOTE_READ : 0) |
                          (g->perms & TW_PERM_WRITE ? FI_REMOTE_WRITE : 0);
        struct fid_mr *mr = NULL;
        int rc = fi_mr_reg(l->domain, (void *)(uintptr_t)g->base, g->length, access, 0, l->next_key,
                           0, &mr, NULL);
        if (!rc && (l->mr_mode & FI_MR_ENDPOINT) &&
            ((rc = fi_mr_bind(mr, &l->ep->fid, 0)) || (rc = fi_mr_enable(mr))))
            fi_close(&mr->fid);
        if (rc) { /* the peer goes on with messages; not said, lest it hide a real error */
            l->stats.xlates_refused++;
            return NULL;
        }
        l->next_key++;
        *e = (exposed_t){mr, g->nla, NULL};
        l->nexposed++;
    }
    return fi_mr_key(e->mr) == FI_KEY_NOTAVAIL ? NULL : e; /* FI_MR_RAW: keys too long */
}

/* Sends dest the translation of g (exposed as e), shown with key: TW_OK when it went. */
static int send_translation(tw_link_ctx_t *l, int dest, unsigned kind, const exposed_t *e,
                            const tw_link_region_t *g, uint64_t key) {
    tw_ofi_xlate_t x = {.kind = (uint8_t)kind,
                        .perms = g->perms,
                        .nla = g->nla,
                        .key = key,
                        .addr = l->mr_mode & FI_MR_VIRT_ADDR ? g->base : 0,
                        .length = g->length,
                        .rkey = fi_mr_key(e->mr)};
    struct iovec v = {&x, sizeof x};
    return send_msg(l, dest, &v, 1, 0);
}

/* A peer asks for the translation of its access to nla with key: given when our device
 * says the key opens a registration there, and the provider registers it. Nothing is
 * answered otherwise: the peer goes on with messages, faults reported the usual way.
 * The peer holds it until our registration goes and it says it let go (TW_OFI_REVOKED). */
static void give_translation(tw_link_ctx_t *l, int source, const tw_ofi_ask_t *a) {
    tw_link_region_t g;
    if (!l->rma) return;
    if (!l->dev->region || l->dev->region(l->dev_ctx, a->nla, a->key, &g) != TW_OK) return;
    exposed_t *e = expose(l, &g);
    if (!e) return;
    if (!e->holders && !(e->holders = calloc(((size_t)l->size + 7) / 8, 1))) return;
    if (send_translation(l, source, TW_OFI_XLATE, e, &g, a->key) != TW_OK) return;
    e->holders[source / 8] |= (uint8_t)(1u << (source % 8));
    l->stats.xlates_given++;
}

/* tw_offer_put: dest is about to put into g, covering its last byte, with a completer
 * notification. Its translation goes ahead of the message naming g, for that put only:
 * dest forgets it once the put's last chunk has gone, and the completer notification
 * comes after every write of the put has been delivered (FI_DELIVERY_COMPLETE), so g's
 * owner closes it at tw_dereg without a round trip. Not offered when no slot is free: the
 * put then goes as messages. */
static void link_offer_put(tw_link_ctx_t *l, int dest, const tw_link_region_t *g, uint64_t key) {
    if (!l->rma || !(g->perms & TW_PERM_WRITE) || g->length < l->native_min || dest < 0 ||
        dest >= l->size || l->lost[dest] || l->peer[dest] == FI_ADDR_NOTAVAIL)
        return;
    exposed_t *e = expose(l, g);
    if (e && send_translation(l, dest, TW_OFI_XLATE_ONCE, e, g, key) == TW_OK)
        l->stats.xlates_offered++;
}

int tw_link_ofi_ask_take(const void *msg, size_t len, unsigned kind, tw_ofi_ask_t *out) {
    if (len != sizeof *out || *(const uint8_t *)msg != kind) return TW_ERR_CORRUPT;
    memcpy(out, msg, sizeof *out);
    return TW_OK;
}

int tw_link_ofi_xlate_take(const void *msg, size_t len, tw_ofi_xlate_t *out) {
    tw_ofi_xlate_t x;
    if (len != sizeof x) return TW_ERR_CORRUPT;
    memcpy(&x, msg, sizeof x);
    if ((x.kind != TW_OFI_XLATE && x.kind != TW_OFI_XLATE_ONCE) || !x.perms ||
        (x.perms & ~(TW_PERM_READ | TW_PERM_WRITE)) || !x.length || x.length > (1ull << 40) ||
        x.nla + x.length < x.nla || x.addr + x.length < x.addr)
        return TW_ERR_CORRUPT;
    *out = x;
    return TW_OK;
}

/* The translation we asked source for, or one it offered for a put: kept for the
 * operations that follow (an offered one in place of what its slot held). */
static void take_translation(tw_link_ctx_t *l, int source, const unsigned char *msg, size_t len) {
    tw_ofi_xlate_t x;
    if (tw_link_ofi_xlate_take(msg, len, &x) != TW_OK) {
        l->stats.malformed++;
        return;
    }
    remote_t *m = remote_slot(l, source, x.key);
    if (x.kind == TW_OFI_XLATE_ONCE) {
        *m = (remote_t){.dest = source, .state = REMOTE_KNOWN, .once = 1, .x = x};
        return;
    }
    if (m->dest != source || m->state != REMOTE_ASKED || m->x.key != x.key ||
        m->x.nla - x.nla >= x.length)
        /* not asked, or its slot went to another since: dropped */
        return;
    m->x = x;
    m->state = REMOTE_KNOWN;
    m->once = 0;
}

/* A peer that held our registration's translation says it no longer uses it. */
static void revoked(tw_link_ctx_t *l, int source, const tw_ofi_ask_t *m) {
    exposed_t *e = l->exposed ? exposed_slot(l, m->nla) : NULL;
    if (e && e->mr && e->nla == m->nla && e->holders)
        e->holders[source / 8] &= (uint8_t) ~(1u << (source % 8));
}

/* The target source withdraws a translation (TW_OFI_REVOKE): forgotten at once, and
 * acknowledged once every write and read issued before is answered (they may use it).
 * TW_OK when done, TW_RETRY while those are under way (the message waits, and the
 * sender's behind it). */
static int withdraw(tw_link_ctx_t *l, int source, const unsigned char *msg, size_t len) {
    tw_ofi_ask_t m;
    if (tw_link_ofi_ask_take(msg, len, TW_OFI_REVOKE, &m)) {
        l->stats.malformed++;
        return TW_OK;
    }
    if (!l->remotes) return TW_OK;
    if (!l->revoke_until[source]) {
        for (int i = 0; i < REMOTES; i++)
            if (l->remotes[i].dest == source && l->remotes[i].x.nla == m.nla)
                l->remotes[i].dest = -1;
        l->revoke_until[source] = 1 + l->native_head + l->native_count;
    }
    if ((int32_t)(l->native_head - (l->revoke_until[source] - 1)) < 0) return TW_RETRY;
    m.kind = TW_OFI_REVOKED;
    struct iovec v = {&m, sizeof m};
    if (send_msg(l, source, &v, 1, 0) == TW_RETRY) return TW_RETRY;
    l->revoke_until[source] = 0;
    return TW_OK;
}

/* The link's own message from source (TW_OFI_OWN set in its first byte). */
static void link_message(tw_link_ctx_t *l, int source, const unsigned char *msg, size_t len) {
    tw_ofi_ask_t a;
    if (msg[0] == TW_OFI_BYE && len == 1) {
        watch(l, source, 0);
        l->closed[source] = 1;
    } else if (!tw_link_ofi_ask_take(msg, len, TW_OFI_XLATE_ASK, &a)) {
        give_translation(l, source, &a);
    } else if (msg[0] == TW_OFI_XLATE || msg[0] == TW_OFI_XLATE_ONCE) {
        take_translation(l, source, msg, len);
    } else if (!tw_link_ofi_ask_take(msg, len, TW_OFI_REVOKED, &a)) {
        revoked(l, source, &a);
    } else {
        l->stats.malformed++;
    }
}

static int link_poll(tw_link_ctx_t *l);

/* A registration goes (tw_dereg): every peer that asked for its translation is told, and
 * the provider's registration closes once each has answered that nothing of its own goes
 * through it any more (or is lost, or has closed); a peer it was offered to for a put
 * (link_offer_put) is not asked: that put has ended. Closed under a peer's write instead, the
 * provider would not answer that write: tcp drops the connection ("invalid rma iov"), shm the
 * command, verbs breaks the queue pair. A peer that does not poll meanwhile (computing,
 * no progress thread) delays tw_dereg until it does. */
static void link_region_gone(tw_link_ctx_t *l, uint64_t nla) {
    if (!l->nexposed) return;
    exposed_t *e = exposed_slot(l, nla);
    if (!e->mr || e->nla != nla) return;
    for (int r = 0; e->holders && r < l->size; r++) {
        if (!(e->holders[r / 8] & (1u << (r % 8)))) continue;
        tw_ofi_ask_t m = {.kind = TW_OFI_REVOKE, .nla = nla};
        struct iovec v = {&m, sizeof m};
        int rc;
        while ((rc = send_msg(l, r, &v, 1, 0)) == TW_RETRY) link_poll(l);
        if (rc) e->holders[r / 8] &= (uint8_t) ~(1u << (r % 8)); /* lost: nothing to wait for */
    }
    for (int r = 0; e->holders && r < l->size; r++) {
        while ((e->holders[r / 8] & (1u << (r % 8))) && !l->lost[r] && !l->closed[r] &&
               !l->delivering) {
            link_poll(l);
            if (l->wait_fd >= 0 && (e->holders[r / 8] & (1u << (r % 8)))) {
                struct pollfd p = {.fd = l->wait_fd, .events = POLLIN};
                const struct timespec tenth_ms = {0, 100000};
                ppoll(&p, 1, &tenth_ms, NULL);
            }
        }
    }
    fi_close(&e->mr->fid);
    free(e->holders);
    *e = (exposed_t){0};
    l->nexposed--;
}

int tw_link_ofi_order(uint32_t expected, uint32_t seq) {
    uint32_t ahead = seq - expected; /* modulo 2^32, as the sequence numbers wrap */
    return ahead == 0 ? TW_OFI_DUE : ahead < TW_OFI_WINDOW ? TW_OFI_LATER : TW_OFI_NEVER;
}

int tw_link_ofi_deliver(const tw_link_device_t *dev, void *dev_ctx, uint32_t peers, const void *msg,
                        size_t len) {
    tw_ofi_hdr_t h;
    if (len < sizeof h) return TW_ERR_CORRUPT;
    memcpy(&h, msg, sizeof h);
    return tw_link_msg_deliver(dev, dev_ctx, peers, h.source, (const unsigned char *)msg + sizeof h,
                               len - sizeof h);
}

/* A message came from peer (in this poll): it is alive now, and watched from now on. The
 * clock of the poll, and the watched flag written only when it changes: the thread
 * reads both, and a write per message would move their line between the cores. */
static void heard(tw_link_ctx_t *l, uint32_t peer) {
    tw_udp_live_peer_t *p = &l->live_peers[peer];
    atomic_store_explicit(&p->heard_ns, l->now_ns, memory_order_relaxed);
    if (!atomic_load_explicit(&p->watched, memory_order_relaxed)) watch(l, (int)peer, 1);
}

/* A message the device took from source: when it answers our RMA requests, they are
 * no longer under way (native RMA waits for them, to keep the order). */
static void answered(tw_link_ctx_t *l, uint32_t source, const unsigned char *msg, size_t len) {
    rma_answer_t a;
    if (msg[0] != TW_LINK_MSG_RMA_ANSWER || len < sizeof(tw_link_msg_hdr_t) + sizeof a) return;
    memcpy(&a, msg + sizeof(tw_link_msg_hdr_t), sizeof a);
    commits_t *c = &l->commits[source];
    uint32_t chunks = a.chunks;
    if (c->count && c->handle[c->head] == a.handle && a.chunk_len == 0) { /* a commit's */
        c->head = (uint8_t)((c->head + 1) % COMMITS_MAX);
        c->count--;
        chunks--;
    }
    l->message_out[source] = l->message_out[source] > chunks ? l->message_out[source] - chunks : 0;
}

/* Hands the device what was received, each sender's messages in its order; a sender
 * whose next message the device cannot take now keeps it, and those behind it, for the
 * next poll. A message that is no device message is dropped without waiting. */
static int deliver_pending(tw_link_ctx_t *l) {
    uint32_t blocked[RECV_SLOTS], nblocked = 0;
    int delivered = 0, moved;
    do { /* again while one delivered makes the next of its sender due */
        moved = 0;
        uint32_t keep = 0;
        for (uint32_t i = 0; i < l->npending; i++) {
            pending_t p = l->pending[i];
            const unsigned char *buf = l->recv[p.recv].buf;
            tw_ofi_hdr_t h = {UINT32_MAX, 0};
            if (p.len >= sizeof h) memcpy(&h, buf, sizeof h);
            int known = h.source < (uint32_t)l->size;
            int order = known ? tw_link_ofi_order(l->rx_seq[h.source], h.seq) : TW_OFI_DUE;
            int wait = order == TW_OFI_LATER;
            if (known && l->lost[h.source]) { /* declared lost: nothing more taken */
                repost(l, p.recv);
                continue;
            }
            if (order == TW_OFI_NEVER) {
                l->stats.malformed++;
                repost(l, p.recv);
                if (known && (int32_t)(h.seq - l->rx_seq[h.source]) > 0) {
                    /* a receive can hold a message this far ahead only when the provider
                     * lost or reordered one before it: that stream would wait for good */
                    char why[160];
                    snprintf(why, sizeof why,
                             "message %u arrived while %u was due: the provider lost one, or "
                             "did not keep the order of the sender's messages (FI_ORDER_SAS)",
                             h.seq, l->rx_seq[h.source]);
                    say_error(l, "fi_recv", (int)h.source, why);
                    mark_lost(l, (int)h.source, TW_ERR_LOST);
                }
                continue;
            }
            for (uint32_t b = 0; b < nblocked && !wait; b++) wait = blocked[b] == h.source;
            if (!wait && known && p.len > sizeof h && buf[sizeof h] == TW_OFI_REVOKE &&
                withdraw(l, (int)h.source, buf + sizeof h, p.len - sizeof h) == TW_RETRY) {
                blocked[nblocked++] = h.source;
                wait = 1;
            } else if (!wait && known && p.len > sizeof h && (buf[sizeof h] & TW_OFI_OWN)) {
                if (buf[sizeof h] != TW_OFI_REVOKE)
                    link_message(l, (int)h.source, buf + sizeof h, p.len - sizeof h);
                l->rx_seq[h.source]++;
                repost(l, p.recv);
                moved = 1;
                continue;
            }
            if (!wait) {
                if (known && l->live_peers) heard(l, h.source);
                int rc = tw_link_ofi_deliver(l->dev, l->dev_ctx, (uint32_t)l->size, buf, p.len);
                if (rc == TW_RETRY) {
                    blocked[nblocked++] = h.source;
                    l->stats.refused++;
                    wait = 1;
                } else {
                    if (rc == TW_OK && l->message_out)
                        answered(l, h.source, buf + sizeof h, p.len - sizeof h);
                    if (rc == TW_OK)
                        delivered++;
                    else
                        l->stats.malformed++;
                    if (known) l->rx_seq[h.source]++;
                    repost(l, p.recv);
                    moved = 1;
                }
            }
            if (wait) l->pending[keep++] = p;
        }
        l->npending = keep;
    } while (moved && l->npending);
    return delivered;
}

/* Takes the liveness thread's new verdicts. */
static void take_verdicts(tw_link_ctx_t *l, unsigned verdicts) {
    l->live_verdicts = verdicts;
    for (int r = 0; r < l->size; r++) {
        int v = atomic_load_explicit(&l->live_peers[r].verdict, memory_order_relaxed);
        if (v) mark_lost(l, r, v);
    }
}

/* This side waits (it polls, or a send waits for room): the thread probes meanwhile,
 * and its verdicts are taken. */
static void waiting(tw_link_ctx_t *l) {
    if (!l->live) return;
    l->now_ns = clock_ns();
    tw_udp_liveness_polled(l->live, l->now_ns);
    unsigned verdicts = tw_udp_liveness_verdicts(l->live);
    if (__builtin_expect(verdicts != l->live_verdicts, 0)) take_verdicts(l, verdicts);
}

static int link_poll(tw_link_ctx_t *l) {
    if (l->delivering) return 0;
    waiting(l);
    read_cq(l);
    if (l->qcount) drain_queue(l);
    for (uint32_t n = l->nunposted; n; n--) repost(l, l->unposted[--l->nunposted]);
    l->delivering = 1;
    int delivered = l->npending ? deliver_pending(l) : 0;
    if (l->native_count) delivered += answer_native(l);
    l->delivering = 0;
    if (__builtin_expect(l->lost_owed, 0)) {
        l->lost_owed = 0;
        for (int r = 0; r < l->size; r++)
            if (l->lost[r]) l->dev->peer_lost(l->dev_ctx, (uint32_t)r, l->lost[r]); /* once */
    }
    return delivered;
}

/* The hints every endpoint asks with: reliable datagrams, messages (and the fabric's own
 * writes and reads in caps, for native RMA), one sender's in order, the device's lock for
 * threads; every mr_mode bit this link can honour. */
static struct fi_info *ask(uint64_t caps) {
    if (!loaded()) return NULL;
    struct fi_info *hints = lib.dupinfo(NULL);
    if (!hints) return NULL;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = caps;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_ALLOCATED | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    struct fi_info *info = NULL;
    lib.getinfo(OFI_API, NULL, NULL, 0, hints, &info);
    lib.freeinfo(hints);
    return info;
}

/* An address on this host alone (loopback), or one that needs its interface named
 * (IPv6 link-local): other nodes cannot reach an endpoint there. */
static int unreachable_from_afar(const struct fi_info *i) {
    if (!i->src_addr) return 0;
    if (i->addr_format == FI_SOCKADDR_IN && i->src_addrlen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *a = i->src_addr;
        return ntohl(a->sin_addr.s_addr) >> 24 == 127;
    }
    if (i->addr_format == FI_SOCKADDR_IN6 && i->src_addrlen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *a = i->src_addr;
        return IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) || IN6_IS_ADDR_LINKLOCAL(&a->sin6_addr);
    }
    return 0;
}

/* Of what libfabric offers, best first: the best provider's first interface that other
 * nodes reach — or, for a job all on this node, its loopback one, which nothing outside
 * reaches (as the udp link binds). A copy, or NULL; *none_afar set when a job across nodes
 * found only interfaces that other nodes cannot reach (an interface just brought up is
 * offered once it runs: loopback alone until then). */
static struct fi_info *choose(int all_local, uint64_t caps, int *none_afar) {
    struct fi_info *all = ask(caps), *pick = all_local ? all : NULL;
    *none_afar = 0;
    for (struct fi_info *i = all; i; i = i->next) {
        if (strcmp(i->fabric_attr->prov_name, all->fabric_attr->prov_name)) continue;
        int here = unreachable_from_afar(i);
        if (all_local ? here && i->addr_format == FI_SOCKADDR_IN : !here) {
            pick = i;
            break;
        }
    }
    *none_afar = all && !pick;
    struct fi_info *copy = pick ? lib.dupinfo(pick) : NULL;
    if (all) lib.freeinfo(all);
    return copy;
}

static int software_provider(const char *name);

static void release(tw_link_ctx_t *l) {
    if (l->live) tw_udp_liveness_close(l->live);
    for (uint32_t i = 0; l->exposed && l->nexposed && i < EXPOSED_MAX; i++)
        if (l->exposed[i].mr) {
            fi_close(&l->exposed[i].mr->fid);
            free(l->exposed[i].holders);
            l->nexposed--;
        }
    free(l->exposed);
    free(l->remotes);
    free(l->native_out);
    free(l->message_out);
    free(l->commits);
    free(l->revoke_until);
    if (l->mr) fi_close(&l->mr->fid);
    if (l->ep) fi_close(&l->ep->fid);
    if (l->av) fi_close(&l->av->fid);
    if (l->cq) fi_close(&l->cq->fid);
    if (l->domain) fi_close(&l->domain->fid);
    if (l->fabric) fi_close(&l->fabric->fid);
    if (l->info) lib.freeinfo(l->info);
    free(l->pool);
    free(l->scratch);
    free(l->peer);
    free(l->tx_seq);
    free(l->rx_seq);
    free(l->lost);
    free(l->closed);
    free(l);
}

static tw_link_ctx_t *link_open(const tw_job_t *job, const tw_link_device_t *dev, void *dev_ctx,
                                char *addr, size_t cap) {
    if (!loaded()) {
        fprintf(stderr, "tollway: rank %d: cannot open the ofi link: %s\n", job->rank, lib.why);
        return NULL;
    }
    tw_link_ctx_t *l = calloc(1, sizeof *l);
    const char *call = "fi_getinfo";
    int rc = -FI_ENOMEM;
    if (!l) goto fail;
    l->self = job->rank;
    l->size = job->size;
    l->dev = dev;
    l->dev_ctx = dev_ctx;
    l->wait_fd = -1;
    l->peer = malloc((size_t)job->size * sizeof *l->peer);
    l->lost = calloc((size_t)job->size, 1);
    l->closed = calloc((size_t)job->size, 1);
    l->tx_seq = calloc((size_t)job->size, sizeof *l->tx_seq);
    l->rx_seq = calloc((size_t)job->size, sizeof *l->rx_seq);
    l->pool = aligned_alloc(4096, (size_t)(SEND_SLOTS + RECV_SLOTS) * SLOT_SIZE);
    if (!l->peer || !l->lost || !l->closed || !l->tx_seq || !l->rx_seq || !l->pool) goto fail;
    for (int r = 0; r < job->size; r++) l->peer[r] = FI_ADDR_NOTAVAIL;
    int all_local = job->local_known && job->local_size == job->size;
    /* a host whose only interface up is loopback holds the whole job, whatever the
     * launcher said (the udp link binds loopback then too): nothing to wait for */
    struct sockaddr_in outer;
    tw_link_ip_address(job->config, 0, &outer);
    if (ntohl(outer.sin_addr.s_addr) >> 24 == 127) all_local = 1;
    /* an interface other nodes reach, waited for as long as a peer may stay silent: one
     * brought up a moment ago (a link that flapped) is offered once it runs */
    int none_afar;
    uint64_t give_up = clock_ns() + (uint64_t)job->config->udp_timeout_ms * 1000000u;
    while (!(l->info = choose(all_local, FI_MSG, &none_afar)) && none_afar &&
           clock_ns() < give_up) {
        const struct timespec tenth = {0, 100000000};
        nanosleep(&tenth, NULL);
    }
    if (none_afar) {
        fprintf(stderr,
                "tollway: rank %d: ofi link: libfabric offers no interface another node can "
                "reach (only loopback and link-local addresses, for %u ms); a job across "
                "nodes needs one (FI_TCP_IFACE, FI_PROVIDER)\n",
                job->rank, job->config->udp_timeout_ms);
        goto quiet;
    }
    /* native RMA where it is wanted and the same provider offers FI_RMA: auto wants it on
     * hardware, and on a software provider for long puts only (over tcp;ofi_rxm an 8-byte
     * put and flush took 15.3 us natively, 11.7 as messages, and an 8 KiB rendezvous 1.4
     * times as long; from 128 KiB on, writes moved 1.7-3.3 times as much: docs/protocols.md) */
    int want_rma = l->info && job->config->ofi_rma != TW_OFI_RMA_MESSAGES;
    l->native_min = job->config->ofi_rma == TW_OFI_RMA_AUTO && software_provider(provider(l))
                        ? NATIVE_SOFTWARE_MIN
                        : 0;
    struct fi_info *rma = want_rma ? choose(all_local, FI_MSG | FI_RMA, &none_afar) : NULL;
    if (rma && !strcmp(rma->fabric_attr->prov_name, provider(l))) {
        lib.freeinfo(l->info);
        l->info = rma;
    } else if (rma) {
        lib.freeinfo(rma); /* the best provider lacks FI_RMA: it, with messages */
    }
    l->rma = want_rma && (l->info->caps & FI_RMA) && l->info->domain_attr->mr_key_size <= 8;
    rc = -FI_ENODATA;
    if (!l->info) goto fail;
    struct fi_info *info = l->info;
    if (info->ep_attr->max_msg_size < SLOT_SIZE) {
        fprintf(stderr,
                "tollway: rank %d: ofi link: provider %s carries messages of %zu bytes at most; "
                "the link needs %zu\n",
                job->rank, provider(l), info->ep_attr->max_msg_size, (size_t)SLOT_SIZE);
        goto quiet;
    }
    l->inject_max = info->tx_attr->inject_size < SLOT_SIZE ? info->tx_attr->inject_size : 0;
    l->scratch = malloc(l->inject_max ? l->inject_max : 1);
    if (!l->scratch) goto fail;
    call = "fi_fabric";
    if ((rc = lib.fabric(info->fabric_attr, &l->fabric, NULL))) goto fail;
    call = "fi_domain";
    if ((rc = fi_domain(l->fabric, info, &l->domain, NULL))) goto fail;
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_MSG, .wait_obj = FI_WAIT_FD};
    call = "fi_cq_open";
    if (fi_cq_open(l->domain, &cq_attr, &l->cq, NULL)) { /* no descriptor: polled only */
        cq_attr.wait_obj = FI_WAIT_NONE;
        if ((rc = fi_cq_open(l->domain, &cq_attr, &l->cq, NULL))) goto fail;
    } else if (fi_control(&l->cq->fid, FI_GETWAIT, &l->wait_fd)) {
        l->wait_fd = -1;
    }
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)job->size};
    call = "fi_av_open";
    if ((rc = fi_av_open(l->domain, &av_attr, &l->av, NULL))) goto fail;
    call = "fi_endpoint";
    if ((rc = fi_endpoint(l->domain, info, &l->ep, NULL))) goto fail;
    call = "fi_ep_bind";
    if ((rc = fi_ep_bind(l->ep, &l->av->fid, 0)) ||
        (rc = fi_ep_bind(l->ep, &l->cq->fid, FI_TRANSMIT | FI_RECV)))
        goto fail;
    if (!strcmp(provider(l), "shm")) {
        /* libfabric's shm provider names its shared memory after the process id unless
         * told otherwise, and a process killed before it closed leaves that name in
         * /dev/shm: a later process of the same id then fails fi_enable with EBUSY.
         * Named as the job's own segments are, twrun removes it when the job ends; and
         * after the endpoint being opened (the job's last counted), as a process may
         * open several (MPI's channels). */
        char name[96];
        snprintf(name, sizeof name, "tw-%s-ofi-%d-%d", job->job_id, job->rank, job->next_index - 1);
        call = "fi_setname";
        if ((rc = fi_setname(&l->ep->fid, name, strlen(name) + 1))) goto fail;
    }
    call = "fi_enable";
    if ((rc = fi_enable(l->ep))) goto fail;
    uint64_t mr_mode = info->domain_attr->mr_mode;
    if (job->config->ofi_mr == TW_OFI_MR_STRICT) mr_mode |= FI_MR_LOCAL;
    l->mr_mode = mr_mode;
    l->mr_local = !!(mr_mode & FI_MR_LOCAL);
    l->write_max =
        info->ep_attr->max_msg_size < WRITE_MAX ? info->ep_attr->max_msg_size : WRITE_MAX;
    /* not through a utility provider (tcp;ofi_rxm, verbs;ofi_rxm): over tcp;ofi_rxm
     * (libfabric 1.17) borrowed pieces moved 0.80-0.88 times what pieces copied into the
     * send slots, registered once, did (512 KiB-4 MiB), as rxm gets no descriptor for them */
    l->borrow = !l->mr_local && info->tx_attr->iov_limit >= 2 && !strchr(provider(l), ';');
    l->next_key = 1; /* keys this endpoint asks for: never one twice (FI_MR_PROV_KEY aside) */
    if (l->rma) {
        l->remotes = calloc(REMOTES, sizeof *l->remotes);
        l->exposed = calloc(EXPOSED_MAX, sizeof *l->exposed);
        l->native_out = calloc((size_t)job->size, sizeof *l->native_out);
        l->message_out = calloc((size_t)job->size, sizeof *l->message_out);
        l->revoke_until = calloc((size_t)job->size, sizeof *l->revoke_until);
        l->commits = calloc((size_t)job->size, sizeof *l->commits);
        if (!l->remotes || !l->exposed || !l->native_out || !l->message_out || !l->revoke_until ||
            !l->commits)
            goto fail;
        for (int i = 0; i < REMOTES; i++) l->remotes[i].dest = -1;
    }
    if (mr_mode & FI_MR_LOCAL) {
        call = "fi_mr_reg";
        if ((rc = fi_mr_reg(l->domain, l->pool, (size_t)(SEND_SLOTS + RECV_SLOTS) * SLOT_SIZE,
                            FI_SEND | FI_RECV | (l->rma ? FI_READ | FI_WRITE : 0), 0, l->next_key++,
                            0, &l->mr, NULL)))
            goto fail;
        if (mr_mode & FI_MR_ENDPOINT) {
            call = "fi_mr_bind";
            if ((rc = fi_mr_bind(l->mr, &l->ep->fid, 0)) || (rc = fi_mr_enable(l->mr))) goto fail;
        }
        l->desc = fi_mr_desc(l->mr);
    }
    for (uint32_t i = 0; i < SEND_SLOTS; i++) {
        l->send[i].buf = l->pool + (size_t)i * SLOT_SIZE;
        l->free_slots[l->nfree++] = SEND_SLOTS - 1 - i;
    }
    call = "fi_recv";
    for (uint32_t i = 0; i < RECV_SLOTS; i++) {
        l->recv[i].buf = l->pool + (size_t)(SEND_SLOTS + i) * SLOT_SIZE;
        if ((rc = (int)fi_recv(l->ep, l->recv[i].buf, SLOT_SIZE, l->desc, FI_ADDR_UNSPEC,
                               &l->recv[i].ctx)))
            goto fail;
    }
    unsigned char name[TW_LINK_OFI_NAME_MAX];
    size_t nlen = sizeof name;
    call = "fi_getname";
    if ((rc = fi_getname(&l->ep->fid, name, &nlen))) goto fail;
    /* liveness on the provider's own IPv4 address, else where the udp link would bind */
    if (job->size > 1) {
        if (info->addr_format == FI_SOCKADDR_IN && info->src_addr &&
            info->src_addrlen >= sizeof l->live_addr)
            memcpy(&l->live_addr, info->src_addr, sizeof l->live_addr);
        else
            tw_link_ip_address(job->config, job->local_known && job->local_size == job->size,
                               &l->live_addr);
        l->live_addr.sin_port = 0;
        tw_siphash_key_t key = tw_siphash_key(job->secret);
        call = "the liveness socket";
        l->live = tw_udp_liveness_open(&key, (uint32_t)job->rank, (uint32_t)job->size,
                                       job->config->udp_timeout_ms, &l->live_addr);
        if (!l->live) {
            rc = -errno;
            goto fail;
        }
        l->live_peers = tw_udp_liveness_peers(l->live);
    }
    /* the provider's name travels too: two providers' endpoints cannot talk; then the
     * liveness socket's address */
    if (tw_link_ofi_address_make(addr, cap, provider(l), name, nlen, &l->live_addr)) {
        fprintf(stderr,
                "tollway: rank %d: ofi link: the name of provider %s's endpoint (%zu "
                "bytes) does not fit an address\n",
                job->rank, provider(l), nlen);
        goto quiet;
    }
    return l;
fail:
    fprintf(stderr, "tollway: rank %d: cannot open the ofi link: %s%s%s: %s\n", job->rank, call,
            l && l->info ? " on provider " : "", l && l->info ? provider(l) : "",
            rc == -FI_ENODATA ? "no provider offers reliable datagrams (FI_EP_RDM) here "
                                "(FI_PROVIDER may name one that is missing)"
                              : lib.strerror(-rc));
quiet:
    if (l) release(l);
    return NULL;
}

/* A peer's field: "ofi:<provider>:<endpoint name, hex>:<liveness IPv4>:<port>" (port 0
 * in a job of one). It comes from another process: all of it is checked. */
static int link_connect(tw_link_ctx_t *l, int rank, const char *addr) {
    const char *prov = "";
    size_t plen = 0, n;
    unsigned char name[TW_LINK_OFI_NAME_MAX];
    struct sockaddr_in live;
    if (rank < 0 || rank >= l->size ||
        tw_link_ofi_address_take(addr, &prov, &plen, name, &n, &live) != TW_OK)
        return TW_ERR_PEER;
    if (plen != strlen(provider(l)) || strncmp(prov, provider(l), plen)) {
        fprintf(stderr,
                "tollway: rank %d: ofi link: rank %d's address '%.80s' is not of provider %s "
                "(every rank of a job must use the same provider: FI_PROVIDER)\n",
                l->self, rank, addr, provider(l));
        return TW_ERR_PEER;
    }
    fi_addr_t a = FI_ADDR_NOTAVAIL;
    int rc = fi_av_insert(l->av, name, 1, &a, 0, NULL);
    if (rc != 1) {
        say_error(l, "fi_av_insert", rank, rc < 0 ? lib.strerror(-rc) : "address refused");
        return TW_ERR_PEER;
    }
    l->peer[rank] = a;
    if (l->live && live.sin_port) {
        tw_udp_liveness_set_peer(l->live, (uint32_t)rank, &live);
        watch(l, rank, 1);
    }
    return TW_OK;
}

static int link_poll(tw_link_ctx_t *l);

static int link_velo_send(tw_link_ctx_t *l, int dest, unsigned tag, const void *hdr, size_t hlen,
                          const void *buf, size_t len) {
    tw_link_msg_hdr_t h = {TW_LINK_MSG_VELO, 0, (uint16_t)tag};
    struct iovec v[3] = {{&h, sizeof h}, {(void *)hdr, hlen}, {(void *)buf, len}};
    int rc = send_msg(l, dest, v, 3, ANSWER_RESERVE);
    if (rc == TW_RETRY) { /* no room: take in what came, and tell the device of peers lost */
        link_poll(l);
        rc = send_msg(l, dest, v, 3, ANSWER_RESERVE);
    }
    return rc;
}

static int link_rma_request(tw_link_ctx_t *l, int dest, const rma_req_t *r, const void *data,
                            size_t len) {
    tw_link_msg_hdr_t h = {TW_LINK_MSG_RMA_REQ, 0, 0};
    if (l->rma) {
        int rc = native(l, dest, r, data, len);
        if (rc != AS_MESSAGE) return rc;
    }
    if (sizeof h + sizeof *r + len > TW_LINK_RMA_MSG_MAX) return TW_ERR_SIZE;
    struct iovec v[3] = {{&h, sizeof h}, {(void *)r, sizeof *r}, {(void *)data, len}};
    int rc = send_msg_borrowing(l, dest, v, 3, ANSWER_RESERVE, 1);
    if (rc == TW_OK && l->rma) {
        l->message_out[dest]++;
        /* after the request, never before: a slot the translation's question took could
         * refuse the request once the device has reserved for it (rma_can_request), and a
         * request refused and offered again would count as a second operation */
        met(l, dest, r);
    }
    return rc;
}

static int link_rma_can_request(tw_link_ctx_t *l, int dest, const rma_req_t *r, size_t len) {
    if (l->nfree <= ANSWER_RESERVE) progress(l);
    if (l->nfree <= ANSWER_RESERVE) return 0;
    /* behind writes and reads under way to dest, only another write or read goes now */
    return !l->rma || !l->native_out[dest] || native_target(l, dest, r, span_of(r, len));
}

static uint64_t link_rma_chunk(tw_link_ctx_t *l, int dest, const rma_req_t *r) {
    /* A put the fabric's writes can move now goes as one write however long, where
     * 60 KiB chunks cost a completion each, and over tcp a delivery acknowledgement
     * each. Not from a registered slot (FI_MR_LOCAL), which holds one message. */
    if (l->rma && r->op == TW_OP_PUT && !l->mr_local && r->total > REMOTE_CHUNK_MAX &&
        r->total <= l->write_max && native_target(l, dest, r, r->total))
        return r->total;
    return REMOTE_CHUNK_MAX;
}

static int link_rma_can_answer(tw_link_ctx_t *l) {
    if (!l->nfree) progress(l);
    return l->nfree > 0;
}

static void send_answer(tw_link_ctx_t *l, int dest, const rma_answer_t *a, const void *data,
                        size_t len) {
    tw_link_msg_hdr_t h = {TW_LINK_MSG_RMA_ANSWER, 0, 0};
    struct iovec v[3] = {{&h, sizeof h}, {(void *)a, sizeof *a}, {(void *)data, len}};
    if (send_msg(l, dest, v, 3, 0) == TW_RETRY) l->stats.no_slot++; /* rma_can_answer said */
}

/* A long put's answers go several at once (message.h): each is a message of its own
 * through the target's provider and the initiator's device. */
static void link_rma_answer(tw_link_ctx_t *l, int dest, const rma_answer_t *a, const void *data,
                            size_t len, int may_wait) {
    tw_link_answer_hold(&l->held, l, dest, a, data, len, may_wait, send_answer);
}

static int link_fd(tw_link_ctx_t *l) {
    return l->wait_fd;
}

static int link_arm(tw_link_ctx_t *l) {
    if (l->wait_fd < 0) return 0;
    struct fid *cq = &l->cq->fid;
    int rc = fi_trywait(l->fabric, &cq, 1);
    if (rc == -FI_EAGAIN) return 1;
    if (rc) l->wait_fd = -1; /* a provider that cannot say: its waits sleep bounded times */
    return 0;
}

static void link_close(tw_link_ctx_t *l) {
    /* last, in each stream: this side closes, so that a peer's liveness thread stops
     * watching it rather than declare it lost once it has gone */
    l->closing = 1; /* a peer that went first refuses them: no error said */
    uint64_t deadline = clock_ns() + CLOSE_LINGER_MS * 1000000ull;
    for (int r = 0; r < l->size; r++) {
        unsigned char bye = TW_OFI_BYE;
        struct iovec v = {&bye, 1};
        if (l->peer[r] == FI_ADDR_NOTAVAIL || l->lost[r] || (!l->tx_seq[r] && !l->rx_seq[r]))
            continue; /* it never heard of this side */
        while (send_msg(l, r, &v, 1, 0) == TW_RETRY && clock_ns() < deadline) progress(l);
    }
    /* what was sent completes (or its peer is found lost) before the endpoint goes */
    while (l->nfree + l->qcount < SEND_SLOTS || l->qcount) {
        read_cq(l);
        for (; l->native_count && l->send[l->native_q[l->native_head]].completed; l->native_count--)
            send_done(l, &l->send[l->native_q[l->native_head++ % SEND_SLOTS]]); /* unanswered */
        drain_queue(l);
        if (clock_ns() > deadline) break;
        if (l->wait_fd >= 0) {
            struct pollfd p = {.fd = l->wait_fd, .events = POLLIN};
            const struct timespec tenth_ms = {0, 100000};
            ppoll(&p, 1, &tenth_ms, NULL);
        }
    }
    release(l);
}

static void link_print_stats(tw_link_ctx_t *l, FILE *out, int rank, int index) {
    fprintf(out,
            "tollway: rank %d endpoint %d: ofi on %s (%s): %llu msgs out (%llu inline, %llu data "
            "not copied), %llu in; "
            "bytes %llu out, %llu in; -FI_EAGAIN %llu, no slot %llu, refused %llu, malformed "
            "%llu, completion errors %llu\n",
            rank, index, provider(l), l->info->domain_attr->name,
            (unsigned long long)l->stats.msgs_sent, (unsigned long long)l->stats.msgs_inline,
            (unsigned long long)l->stats.msgs_borrowed, (unsigned long long)l->stats.msgs_received,
            (unsigned long long)l->stats.bytes_sent, (unsigned long long)l->stats.bytes_received,
            (unsigned long long)l->stats.eagain, (unsigned long long)l->stats.no_slot,
            (unsigned long long)l->stats.refused, (unsigned long long)l->stats.malformed,
            (unsigned long long)l->stats.cq_errors);
    if (l->rma)
        fprintf(
            out,
            "tollway: rank %d endpoint %d: ofi native RMA: %llu writes (%llu longer than a "
            "message), %llu reads, %llu bytes, %llu refused; translations %llu asked, %llu given, "
            "%llu not given, %llu "
            "offered\n",
            rank, index, (unsigned long long)l->stats.native_writes,
            (unsigned long long)l->stats.native_long_writes,
            (unsigned long long)l->stats.native_reads, (unsigned long long)l->stats.native_bytes,
            (unsigned long long)l->stats.native_faults, (unsigned long long)l->stats.xlates_asked,
            (unsigned long long)l->stats.xlates_given, (unsigned long long)l->stats.xlates_refused,
            (unsigned long long)l->stats.xlates_offered);
    if (l->live) {
        tw_udp_liveness_stats_t v;
        tw_udp_liveness_stats(l->live, &v);
        fprintf(out,
                "tollway: rank %d endpoint %d: ofi liveness: probes %llu, echoes %llu, resets out "
                "%llu, in %llu\n",
                rank, index, (unsigned long long)v.probes_sent, (unsigned long long)v.echoes_sent,
                (unsigned long long)v.resets_sent, (unsigned long long)v.resets_received);
    }
}

static const tw_link_counter_info_t link_counters[] = {
    {"ofi", "msgs_sent", "messages sent"},
    {"ofi", "msgs_inline", "messages sent inline (fi_inject)"},
    {"ofi", "msgs_borrowed", "messages whose data went from the caller's memory, not copied"},
    {"ofi", "msgs_received", "messages received"},
    {"ofi", "bytes_sent", "bytes sent, headers included"},
    {"ofi", "bytes_received", "bytes received, headers included"},
    {"ofi", "eagain", "sends the provider put off (-FI_EAGAIN)"},
    {"ofi", "no_slot", "sends refused for want of a free slot (TW_RETRY)"},
    {"ofi", "refused", "received messages the device could not take at once"},
    {"ofi", "malformed", "received messages that were no device message: dropped"},
    {"ofi", "cq_errors", "completions in error"},
    {"ofi", "native_writes", "puts' chunks moved with the fabric's writes (native RMA)"},
    {"ofi", "native_reads", "gets' chunks moved with the fabric's reads (native RMA)"},
    {"ofi", "native_long_writes", "puts longer than a message moved as one write each"},
    {"ofi", "native_bytes", "bytes moved with the fabric's writes and reads"},
    {"ofi", "native_faults", "writes and reads the fabric refused (answered TW_ERR_STALE)"},
    {"ofi", "xlates_asked", "translations of peers' registrations asked for"},
    {"ofi", "xlates_given", "translations of our registrations given to peers"},
    {"ofi", "xlates_refused", "translations not given: the provider refused to register"},
    {"ofi", "xlates_offered", "translations offered to peers for one put (a rendezvous)"},
};

static uint64_t link_counter(tw_link_ctx_t *l, unsigned i) {
    const uint64_t *v = &l->stats.msgs_sent; /* the fields of stats, in the order above */
    _Static_assert(sizeof l->stats == sizeof link_counters / sizeof link_counters[0] * 8,
                   "link_counters and stats disagree");
    return i < sizeof link_counters / sizeof link_counters[0] ? v[i] : 0;
}

/* Providers that run over the host's own network stack or memory: udp does as well
 * there, so auto does not open the ofi link for them. */
static int software_provider(const char *name) {
    static const char *const software[] = {"tcp", "udp", "sockets", "shm", "net", "sm2"};
    size_t core = strcspn(name, ";"); /* "tcp;ofi_rxm": the core provider, then utilities */
    for (size_t i = 0; i < sizeof software / sizeof software[0]; i++)
        if (strlen(software[i]) == core && !strncmp(name, software[i], core)) return 1;
    return 0;
}

/* The devices libfabric's hardware providers drive: RDMA devices (verbs, efa, usnic,
 * psm3, ucx), Omni-Path's (psm2, opx), the old InfiniPath (psm), Slingshot's (cxi) and
 * Aries' (gni). */
static const char *const fabric_devices[] = {
    "/sys/class/infiniband/*", "/dev/hfi1_*", "/dev/ipath*",
    "/sys/class/cxi/*",        "/dev/cxi*",   "/dev/kgni*"};

/* 1 when this node has a device some hardware provider could drive. Without one, auto
 * asks libfabric nothing: its first fi_getinfo starts every provider it has, which here
 * took 0.37 s and 0.18 s of CPU time in each process (800 sleeps of 125 us, /proc/kallsyms
 * read twice), to find software providers only. */
int tw_link_ofi_device_present(void) {
    for (size_t i = 0; i < sizeof fabric_devices / sizeof fabric_devices[0]; i++) {
        glob_t g;
        int found = glob(fabric_devices[i], GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
        globfree(&g);
        if (found) return 1;
    }
    return 0;
}

/* Auto opens the link when the provider a job would use drives hardware: libfabric is
 * asked when a device is there for one, or when FI_PROVIDER names the providers. */
static int link_chosen_by_auto(void) {
    static int chosen = -1; /* asked once a process: fi_getinfo looks at every provider */
    if (chosen < 0 && !getenv("FI_PROVIDER") && !tw_link_ofi_device_present()) chosen = 0;
    if (chosen < 0) {
        struct fi_info *all = ask(FI_MSG);
        chosen = all && !software_provider(all->fabric_attr->prov_name);
        if (all) lib.freeinfo(all);
    }
    return chosen;
}

/* The providers libfabric offers this link here, and the one a job would use (the
 * first: libfabric orders them best first, FI_PROVIDER filtering). */
static int link_probe(size_t segment_size, char *note, size_t cap) {
    (void)segment_size;
    struct fi_info *all = ask(FI_MSG);
    if (!all && lib.why[0]) {
        snprintf(note, cap, "%s", lib.why);
        return 0;
    }
    if (!all) {
        snprintf(note, cap, "no libfabric provider offers reliable datagrams (FI_EP_RDM) here%s",
                 getenv("FI_PROVIDER") ? " (FI_PROVIDER is set)" : "");
        return 0;
    }
    size_t at = (size_t)snprintf(note, cap,
                                 "a job would use %s on %s; offered:", all->fabric_attr->prov_name,
                                 all->domain_attr->name);
    for (struct fi_info *i = all; i && at < cap; i = i->next) {
        int seen = 0;
        for (struct fi_info *j = all; j != i && !seen; j = j->next)
            seen = !strcmp(j->fabric_attr->prov_name, i->fabric_attr->prov_name);
        if (!seen)
            at += (size_t)snprintf(note + at, cap - at, "%s %s", i == all ? "" : ",",
                                   i->fabric_attr->prov_name);
    }
    if (at < cap)
        snprintf(note + at, cap - at, "; TW_LINK=auto opens it: %s",
                 software_provider(all->fabric_attr->prov_name) ? "no (a software provider)"
                 : tw_link_ofi_device_present() || getenv("FI_PROVIDER")
                     ? "yes (a hardware provider)"
                     : "no (no device for a hardware provider here)");
    lib.freeinfo(all);
    return 1;
}

const tw_link_t tw_link_ofi = {
    .name = "ofi",
    .caps = TW_LINK_PUT_CHEAPER | TW_LINK_POLLED,
    .velo_max = TW_VELO_MAX_SIZE,
    .rma_chunk_max = REMOTE_CHUNK_MAX,
    .open = link_open,
    .connect = link_connect,
    .velo_send = link_velo_send,
    .rma_request = link_rma_request,
    .rma_can_request = link_rma_can_request,
    .rma_chunk = link_rma_chunk,
    .rma_can_answer = link_rma_can_answer,
    .rma_answer = link_rma_answer,
    .poll = link_poll,
    .fd = link_fd,
    .arm = link_arm,
    .close = link_close,
    .print_stats = link_print_stats,
    .counters = link_counters,
    .ncounters = sizeof link_counters / sizeof link_counters[0],
    .counter = link_counter,
    .chosen_by_auto = link_chosen_by_auto,
    .probe = link_probe,
    .region_gone = link_region_gone,
    .offer_put = link_offer_put,
};
