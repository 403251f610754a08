/* Process creation and management (MPI-3.1 chapter 10): ports, accept and connect,
 * join, spawn, the parent of a spawned job, and the name service.
 *
 * A port is a listening Unix socket in the abstract namespace, named by the port name
 * ("tollway-port:<socket name>"). MPI_Comm_accept and MPI_Comm_connect meet there: the
 * two roots swap their groups (each member's endpoint id and the addresses of its
 * endpoints, one per channel) and the table entries their groups use, then tell their
 * own groups; every member adds the other group's endpoints to its own, channel by
 * channel (tw_ep_add_peer), and makes the intercommunicator in the lowest entry free
 * on both sides. Both sides must run as many channels (TW_CHANNELS). Endpoint ids are
 * unique among all the jobs one twrun started (the first and the spawned ones share its
 * id space and job key), so the other group's ids serve as world ranks unchanged.
 *
 * MPI_Comm_spawn asks twrun for a job (tw_ep_spawn) whose ranks find their parents at
 * a port the root opened for it (TWRUN_PARENT_PORT): the parents accept, the children
 * connect from MPI_Init.
 *
 * Names are published as files in a directory shared by the jobs of the machine. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <tollway/settings.h>
#include <tollway/status.h>

#include "common/deadline.h"
#include "mpi/comm/comm.h"
#include "mpi/session/dynamic.h"
#include "mpi/comm_create/dynamic_wire.h"
#include "mpi/comm_create/peers.h"
#include "mpi/env/error.h"
#include "mpi/env/info.h"
#include "mpi/pt2pt/channel.h"
#include "mpi/pt2pt/failure.h"
#include "mpi/pt2pt/engine.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"

enum {
    WORDS = TW_MPI_USED_WORDS,
    HELLO_MAGIC = 0x54574459, /* "TWDY" */
    GROUP_MAX = 4096,         /* processes in one group of a connection */
    ADDRESS_MAX = TW_DYNAMIC_ADDRESS_MAX,
    SPEC_MAX = TW_SPAWN_SPEC_MAX, /* a spawn request's encoded commands (tw_ep_spawn) */
    VERDICT_OK = 0x4f,            /* the acceptor took the connection */
    ACCEPT_POLL_MS = 1000,        /* an accept looks for a closed port this often */
    ENTRY_CHOICES = 64,           /* a retried connection's entry: one of this many free */
    ENTRY_ROUNDS = 1000,          /* a connection gives up on finding an entry after this many */
    BACKLOG = 64,
};

static const char port_prefix[] = "tollway-port:";

/* The ports this process opened: their names and listening sockets. */
typedef struct port {
    char name[MPI_MAX_PORT_NAME];
    int fd;
    struct port *next;
} port_t;
static port_t *ports;
static unsigned ports_opened;

static MPI_Comm parent = MPI_COMM_NULL;

/* ---- socket I/O with a deadline ---- */

/* poll() of one descriptor for up to ms milliseconds; under MPI_THREAD_MULTIPLE in
 * short slices, between which the program's other threads get the library's lock. */
static int poll_relaxed(struct pollfd *pf, int ms) {
    if (!tw_mpi_threads_on) return poll(pf, 1, ms);
    struct timespec until = tw_deadline_in_ms(ms);
    for (;;) {
        int left = tw_ms_until(until), rc = poll(pf, 1, left < 2 ? left : 2);
        if (rc != 0 || left == 0) return rc;
        tw_mpi_thread_yield();
    }
}

/* Moves len bytes over fd (in: read, else write) before the deadline. 0 or -1. */
static int io_all(int fd, void *buf, size_t len, int in, struct timespec until) {
    char *p = buf;
    while (len > 0) {
        struct pollfd pf = {.fd = fd, .events = in ? POLLIN : POLLOUT};
        int rc = poll_relaxed(&pf, tw_ms_until(until));
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) return -1;
        ssize_t n =
            in ? recv(fd, p, len, MSG_DONTWAIT) : send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* For MPI_Comm_join's fd, which may be blocking: poll first, always. */
static int fd_all(int fd, void *buf, size_t len, int in, struct timespec until) {
    char *p = buf;
    while (len > 0) {
        struct pollfd pf = {.fd = fd, .events = in ? POLLIN : POLLOUT};
        int rc = poll_relaxed(&pf, tw_ms_until(until));
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) return -1;
        ssize_t n = in ? recv(fd, p, len, 0) : send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ---- port names ---- */

/* The abstract socket address a port name stands for; its length, or 0 when the name is
 * not one of ours. */
static socklen_t port_address(const char *name, struct sockaddr_un *a) {
    size_t plen = sizeof port_prefix - 1;
    size_t n = strnlen(name, MPI_MAX_PORT_NAME);
    if (n == MPI_MAX_PORT_NAME || n <= plen || strncmp(name, port_prefix, plen) != 0) return 0;
    const char *sock = name + plen;
    size_t slen = n - plen;
    if (slen + 1 > sizeof a->sun_path) return 0;
    for (size_t i = 0; i < slen; i++)
        if (sock[i] <= ' ' || sock[i] > '~') return 0;
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    memcpy(a->sun_path + 1, sock, slen); /* abstract: a leading NUL */
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + slen);
}

static port_t *port_find(const char *name) {
    for (port_t *p = ports; p; p = p->next)
        if (strncmp(p->name, name, sizeof p->name) == 0) return p;
    return NULL;
}

/* Opens a port: 0 with its name, or an MPI error class. */
static int port_open(char name[MPI_MAX_PORT_NAME]) {
    port_t *p = calloc(1, sizeof *p);
    if (!p) return MPI_ERR_NO_MEM;
    snprintf(p->name, sizeof p->name, "%stollway-%d-%ld-%u", port_prefix, tw_mpi.rank,
             (long)getpid(), ports_opened++);
    struct sockaddr_un a;
    socklen_t len = port_address(p->name, &a);
    p->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (p->fd < 0 || !len || bind(p->fd, (struct sockaddr *)&a, len) != 0 ||
        listen(p->fd, BACKLOG) != 0) {
        if (p->fd >= 0) close(p->fd);
        free(p);
        return MPI_ERR_OTHER;
    }
    p->next = ports;
    ports = p;
    memcpy(name, p->name, sizeof p->name);
    return MPI_SUCCESS;
}

static int port_close(const char *name) {
    for (port_t **at = &ports; *at; at = &(*at)->next)
        if (strncmp((*at)->name, name, sizeof(*at)->name) == 0) {
            port_t *p = *at;
            *at = p->next;
            close(p->fd);
            free(p);
            return MPI_SUCCESS;
        }
    return MPI_ERR_PORT;
}

/* ---- what the two roots swap ---- */

typedef struct hello {
    uint32_t magic, n;
    uint64_t key;      /* a hash of the job key: only jobs of one twrun can meet */
    uint32_t channels; /* TW_CHANNELS of the sender's side */
    uint32_t reserved;
    uint64_t used[WORDS];
} hello_t;

/* The most a member's addresses take: one per channel, separated by spaces. */
static size_t addresses_max(void) {
    return tw_mpi_peers_addresses_cap(1);
}

/* A group: n endpoint ids and their addresses, one after the other, '\0'-ended; a
 * member's addresses are its endpoints', channel 0 first, separated by spaces. */
typedef struct group {
    int n;
    int *ids;
    char *addrs;
    size_t addrs_len;
} group_t;

static void group_free(group_t *g) {
    free(g->ids);
    free(g->addrs);
    memset(g, 0, sizeof *g);
}

static uint64_t key_hash(void) {
    /* the job id in this endpoint's address ("shm:<node>:/tw-<job id>-ep..."): the jobs
     * of one twrun share it, and with it the job key their segments are checked by */
    char addr[ADDRESS_MAX];
    uint64_t h = 1469598103934665603ull;
    if (tw_ep_address(tw_mpi.ep, tw_mpi.rank, addr, sizeof addr) != TW_OK) return h;
    const char *id = strstr(addr, ":/tw-");
    for (const char *p = id ? id + 5 : ""; *p && *p != '-'; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

/* The local group of c with every member's addresses, one per channel. */
static int group_of(const tw_mpi_comm_t *c, group_t *g) {
    memset(g, 0, sizeof *g);
    g->n = c->size;
    g->ids = malloc((size_t)g->n * sizeof *g->ids);
    if (!g->ids) return MPI_ERR_NO_MEM;
    for (int r = 0; r < g->n; r++) g->ids[r] = tw_mpi_world_rank(c, r);
    int rc = tw_mpi_peers_addresses(g->n, g->ids, &g->addrs, &g->addrs_len);
    if (rc) group_free(g);
    return rc;
}

/* Whether the group sent by the other side is sound: ids in range and distinct, none
 * of the local group's, addresses printable, one per id. */
static int group_ok(const group_t *g, const tw_mpi_comm_t *local) {
    if (g->n < 1 || g->n > GROUP_MAX ||
        !tw_dynamic_group_ok(g->n, g->ids, g->addrs, g->addrs_len, tw_channel_count()))
        return 0;
    for (int k = 0; k < g->n; k++) {
        for (int j = 0; j < k; j++)
            if (g->ids[j] == g->ids[k]) return 0;
        for (int r = 0; r < local->size; r++)
            if (tw_mpi_world_rank(local, r) == g->ids[k]) return 0;
    }
    return 1;
}

static int send_group(int fd, const hello_t *h, const group_t *g, struct timespec until) {
    if (io_all(fd, (void *)h, sizeof *h, 0, until)) return -1;
    const char *a = g->addrs;
    for (int k = 0; k < g->n; k++) {
        uint32_t rec[2] = {(uint32_t)g->ids[k], (uint32_t)strlen(a)};
        if (io_all(fd, rec, sizeof rec, 0, until) || io_all(fd, (void *)a, rec[1], 0, until))
            return -1;
        a += rec[1] + 1;
    }
    return 0;
}

static int recv_group(int fd, hello_t *h, group_t *g, struct timespec until) {
    memset(g, 0, sizeof *g);
    if (io_all(fd, h, sizeof *h, 1, until) || h->magic != HELLO_MAGIC || h->n < 1 ||
        h->n > GROUP_MAX)
        return -1;
    g->n = (int)h->n;
    g->ids = malloc((size_t)g->n * sizeof *g->ids);
    g->addrs = malloc((size_t)g->n * addresses_max());
    if (!g->ids || !g->addrs) return -1;
    for (int k = 0; k < g->n; k++) {
        uint32_t rec[2];
        if (io_all(fd, rec, sizeof rec, 1, until) || rec[1] == 0 || rec[1] >= addresses_max() ||
            io_all(fd, g->addrs + g->addrs_len, rec[1], 1, until))
            return -1;
        g->ids[k] = (int)(rec[0] & 0x7fffffffu);
        if (rec[0] >= (1u << 30)) g->ids[k] = -1; /* refused by group_ok */
        g->addrs_len += rec[1];
        g->addrs[g->addrs_len++] = '\0';
    }
    return 0;
}

/* The root's side of a meeting over a connected socket: swaps hellos and groups
 * (the acceptor first) and the verdict. 0 with *entry and the remote group, or -1. */
static int meet(int fd, int acceptor, const tw_mpi_comm_t *c, const uint64_t used[WORDS],
                int *entry, group_t *remote) {
    struct timespec until = tw_deadline_in((int)tw_setting_unsigned(TW_SETTING_CONNECT_TIMEOUT));
    group_t mine;
    memset(remote, 0, sizeof *remote);
    if (group_of(c, &mine)) return -1;
    hello_t h = {.magic = HELLO_MAGIC,
                 .n = (uint32_t)mine.n,
                 .key = key_hash(),
                 .channels = (uint32_t)tw_channel_count()},
            theirs = {0};
    memcpy(h.used, used, sizeof h.used);
    int ok = 0;
    if (acceptor) {
        ok = !send_group(fd, &h, &mine, until) && !recv_group(fd, &theirs, remote, until) &&
             theirs.key == h.key && group_ok(remote, c);
        unsigned char v = ok ? VERDICT_OK : 0;
        if (ok && io_all(fd, &v, 1, 0, until)) ok = 0;
    } else {
        unsigned char v = 0;
        ok = !recv_group(fd, &theirs, remote, until) && theirs.key == h.key &&
             group_ok(remote, c) && !send_group(fd, &h, &mine, until) &&
             !io_all(fd, &v, 1, 1, until) && v == VERDICT_OK;
    }
    group_free(&mine);
    if (!ok && theirs.magic == HELLO_MAGIC && theirs.key == h.key && theirs.channels != h.channels)
        fprintf(stderr,
                "tollway: rank %d: the other side of a connection runs TW_CHANNELS=%u and this "
                "one %u: both must run as many\n",
                tw_mpi.rank, theirs.channels, h.channels);
    if (!ok) {
        group_free(remote);
        return -1;
    }
    uint64_t all[WORDS];
    for (int w = 0; w < WORDS; w++) all[w] = used[w] | theirs.used[w];
    *entry = tw_mpi_lowest_free(all);
    return 0;
}

/* ---- making the intercommunicator on every member ---- */

static int inter_make(tw_mpi_comm_t *c, int entry, const group_t *g, MPI_Comm *out) {
    if (entry < 0 || entry >= TW_MPI_COMMS || tw_mpi_comm_table[entry]) return MPI_ERR_INTERN;
    int *world = malloc((size_t)g->n * sizeof *world);
    int *local = malloc((size_t)c->size * sizeof *local);
    tw_mpi_comm_t *n = world && local ? tw_mpi_comm_new(entry, c->rank, g->n, world) : NULL;
    if (!n) {
        free(world);
        free(local);
        return MPI_ERR_NO_MEM;
    }
    memcpy(world, g->ids, (size_t)g->n * sizeof *world);
    for (int r = 0; r < c->size; r++) local[r] = tw_mpi_world_rank(c, r);
    n->inter = 1;
    n->local_size = c->size;
    n->local_world = local;
    n->errhandler = c->errhandler;
    *out = n->handle;
    return MPI_SUCCESS;
}

static void share_body(tw_mpi_comm_t *c, int root, int *rc, group_t *g, const int head[4]);

/* What the root tells its group: the outcome, the entry, the remote group. Returns the
 * root's outcome; *rc becomes this member's. */
static int share(tw_mpi_comm_t *c, int root, int *rc, int *entry, group_t *g) {
    int head[4] = {*rc, *entry, g->n, (int)g->addrs_len};
    MPI_Bcast(head, 4, MPI_INT, root, c->handle);
    *rc = head[0];
    *entry = head[1];
    if (*rc) return *rc;
    share_body(c, root, rc, g, head);
    return MPI_SUCCESS;
}

static void share_body(tw_mpi_comm_t *c, int root, int *rc, group_t *g, const int head[4]) {
    if (c->rank != root) {
        if (head[2] < 1 || head[2] > GROUP_MAX || head[3] < 1 ||
            (size_t)head[3] > GROUP_MAX * addresses_max()) {
            *rc = MPI_ERR_INTERN; /* not from a root of this library */
            return;
        }
        g->n = head[2];
        g->addrs_len = (size_t)head[3];
        g->ids = malloc((size_t)g->n * sizeof *g->ids);
        g->addrs = malloc(g->addrs_len);
        if (!g->ids || !g->addrs) {
            group_free(g);
            /* the broadcasts go on, into a scratch buffer, so the group stays in step */
        }
    }
    int *ids = g->ids ? g->ids : calloc((size_t)head[2], sizeof *ids);
    char *addrs = g->addrs ? g->addrs : calloc((size_t)head[3], 1);
    if (ids && addrs) {
        MPI_Bcast(ids, head[2], MPI_INT, root, c->handle);
        MPI_Bcast(addrs, head[3], MPI_CHAR, root, c->handle);
    }
    if (ids != g->ids) free(ids);
    if (addrs != g->addrs) free(addrs);
    if (!g->ids || !ids || !addrs)
        *rc = MPI_ERR_NO_MEM;
    else if (g->addrs[g->addrs_len - 1] != '\0')
        *rc = MPI_ERR_INTERN;
}

/* The root's part: meets the other root; MPI_SUCCESS with the entry, the remote group
 * and the socket to the other root still open in *sock, or an error class. */
typedef int root_fn(void *arg, const tw_mpi_comm_t *c, const uint64_t used[WORDS], int *entry,
                    group_t *remote, int *sock);
static root_fn accept_root;

/* The roots' swap of their groups' verdicts over their socket: the lower is both's
 * (0 when the other root cannot be heard). */
static int roots_verdict(int sock, int mine) {
    struct timespec until = tw_deadline_in((int)tw_setting_unsigned(TW_SETTING_CONNECT_TIMEOUT));
    unsigned char me = (unsigned char)mine, them = 0;
    if (sock < 0 || io_all(sock, &me, 1, 0, until) || io_all(sock, &them, 1, 1, until)) return 0;
    return them < me ? them : me;
}

/* The entry both groups try next: the connector sends its group's bitmap, the
 * acceptor picks among the lowest ENTRY_CHOICES entries free in both at random (two
 * connections that raced for one entry then rarely pick the same one again) and sends
 * it back. -1: none free, or the other root cannot be heard. */
static int roots_pick(int sock, int acceptor, const uint64_t used[WORDS]) {
    struct timespec until = tw_deadline_in((int)tw_setting_unsigned(TW_SETTING_CONNECT_TIMEOUT));
    int32_t entry = -1;
    if (sock < 0) return -1;
    if (!acceptor)
        return io_all(sock, (void *)used, WORDS * sizeof *used, 0, until) ||
                       io_all(sock, &entry, sizeof entry, 1, until)
                   ? -1
                   : entry;
    uint64_t all[WORDS];
    if (io_all(sock, all, sizeof all, 1, until)) return -1;
    int free_ones[ENTRY_CHOICES], n = 0;
    for (int i = 0; i < TW_MPI_COMMS && n < ENTRY_CHOICES; i++)
        if (!((all[i / 64] | used[i / 64]) >> (i % 64) & 1)) free_ones[n++] = i;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    unsigned seed = (unsigned)now.tv_nsec ^ (unsigned)getpid();
    if (n) entry = free_ones[rand_r(&seed) % n];
    return io_all(sock, &entry, sizeof entry, 0, until) ? -1 : entry;
}

/* Makes the intercommunicator in a table entry that both groups agree on. Under
 * MPI_THREAD_MULTIPLE other threads, here or in the other group, may make
 * communicators while a connection is made, so the entry picked may be taken by the
 * time it comes. Every member makes the intercommunicator there (and says 2), or says
 * the entry is taken here (1) or that it failed (0); each group's lowest, swapped by
 * the roots, is everyone's verdict. On 1 everyone undoes it and both groups try an
 * entry the acceptor picks from fresh bitmaps. Nobody returns before the verdict, so
 * nobody sends to the other group before every member of both has added the other's
 * endpoints (a message from an endpoint not added yet would wait at the head of the
 * mailbox, before messages this group still needs to get there). */
static int take_entry(tw_mpi_comm_t *c, int root, int acceptor, int sock, int entry, int rc,
                      const group_t *remote, MPI_Comm *out) {
    for (int round = 1;; round++) {
        int say = 0, verdict[2] = {0, -1}; /* the verdict, and the entry to try next */
        if (!rc && entry >= 0 && entry < TW_MPI_COMMS) {
            if (tw_mpi_comm_table[entry] || tw_mpi_comm_held[entry / 64] >> (entry % 64) & 1)
                say = 1;
            else
                say = (rc = inter_make(c, entry, remote, out)) ? 0 : 2;
        }
        MPI_Allreduce(&say, &verdict[0], 1, MPI_INT, MPI_MIN, c->handle);
        if (c->rank == root) verdict[0] = roots_verdict(sock, verdict[0]);
        MPI_Bcast(verdict, 1, MPI_INT, root, c->handle);
        if (verdict[0] == 2) return MPI_SUCCESS;
        if (*out != MPI_COMM_NULL) tw_mpi_comm_destroy(tw_mpi_comm_get(*out));
        *out = MPI_COMM_NULL;
        if (verdict[0] != 1) return rc ? rc : MPI_ERR_PORT;
        /* both groups count the same rounds: they give up together */
        if (round == ENTRY_ROUNDS) return MPI_ERR_INTERN;
        uint64_t mine[WORDS], used[WORDS];
        tw_mpi_used_entries(mine);
        MPI_Allreduce(mine, used, WORDS, MPI_UINT64_T, MPI_BOR, c->handle);
        if (c->rank == root) verdict[1] = roots_pick(sock, acceptor, used);
        MPI_Bcast(&verdict[1], 1, MPI_INT, root, c->handle);
        entry = verdict[1];
    }
}

/* MPI_Comm_accept, MPI_Comm_connect and the rest: collective over c; the root does
 * its part, the others learn the outcome from it. */
static int establish(tw_mpi_comm_t *c, int root, root_fn *fn, void *arg, MPI_Comm *out) {
    uint64_t mine[WORDS], used[WORDS];
    tw_mpi_comm_creating++;
    tw_mpi_used_entries(mine);
    MPI_Allreduce(mine, used, WORDS, MPI_UINT64_T, MPI_BOR, c->handle);
    int rc = MPI_SUCCESS, entry = -1, sock = -1;
    group_t remote = {0};
    if (c->rank == root) {
        rc = fn(arg, c, used, &entry, &remote, &sock);
        if (!rc && entry < 0) rc = MPI_ERR_INTERN; /* no entry free on both sides */
    }
    /* members that fail after the root succeeded fail at the agreement below */
    int shared = share(c, root, &rc, &entry, &remote) == MPI_SUCCESS;
    if (!rc) rc = tw_mpi_peers_learn(remote.n, remote.ids, remote.addrs, remote.addrs_len);
    if (shared) rc = take_entry(c, root, fn == accept_root, sock, entry, rc, &remote, out);
    group_free(&remote);
    if (sock >= 0) close(sock);
    tw_mpi_comm_creating--;
    return rc;
}

/* Whether the process at the other end of a connected socket runs as this user. A
 * port is an abstract socket, which any local process may reach whatever its user:
 * the hello a meeting starts with carries the job key and every member's address,
 * so another user's process is dropped before it hears anything. */
static int same_user(int fd) {
    struct ucred who;
    socklen_t len = sizeof who;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &who, &len) == 0 && who.uid == geteuid();
}

typedef struct accept_arg {
    port_t *port;
    const struct timespec *until; /* NULL: for good, as MPI_Comm_accept waits */
} accept_arg_t;

static int accept_root(void *arg, const tw_mpi_comm_t *c, const uint64_t used[WORDS], int *entry,
                       group_t *remote, int *sock) {
    port_t *p = ((accept_arg_t *)arg)->port;
    if (!p) return MPI_ERR_PORT;
    for (;;) { /* until a connector meets us: a stranger's connection is dropped */
        struct pollfd pf = {.fd = p->fd, .events = POLLIN};
        int rc = poll_relaxed(&pf, ACCEPT_POLL_MS);
        if (rc < 0 && errno != EINTR) return MPI_ERR_PORT;
        accept_arg_t *a = arg;
        if (rc == 0 && a->until && !tw_ms_until(*a->until)) return MPI_ERR_PORT;
        if (rc <= 0) continue;
        int fd = accept4(p->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED) continue;
            return MPI_ERR_PORT;
        }
        rc = same_user(fd) ? meet(fd, 1, c, used, entry, remote) : -1;
        if (rc == 0) {
            *sock = fd;
            return MPI_SUCCESS;
        }
        close(fd);
    }
}

typedef struct connect_arg {
    const char *name;
} connect_arg_t;

static int connect_root(void *arg, const tw_mpi_comm_t *c, const uint64_t used[WORDS], int *entry,
                        group_t *remote, int *sock) {
    struct sockaddr_un a;
    socklen_t len = port_address(((connect_arg_t *)arg)->name, &a);
    if (!len) return MPI_ERR_PORT;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return MPI_ERR_OTHER;
    int rc = connect(fd, (struct sockaddr *)&a, len);
    while (rc != 0 && errno == EINTR) rc = connect(fd, (struct sockaddr *)&a, len);
    if (rc != 0 || !same_user(fd)) { /* nobody listens there (closed, never opened), or
                                      * another user's process does */
        close(fd);
        return MPI_ERR_PORT;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    rc = meet(fd, 0, c, used, entry, remote);
    if (rc) {
        close(fd);
        return MPI_ERR_PORT;
    }
    *sock = fd;
    return MPI_SUCCESS;
}

/* The intracommunicator of a call that takes one, or NULL with *rc set. */
static tw_mpi_comm_t *intra(MPI_Comm comm, const char *call, int *rc) {
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) {
        *rc = tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
        return NULL;
    }
    if (c->inter) {
        *rc = tw_mpi_error(c, call, MPI_ERR_COMM, "an intercommunicator");
        return NULL;
    }
    return c;
}

int MPI_Open_port(MPI_Info info, char *port_name) {
    NEED_INIT("MPI_Open_port");
    (void)info; /* no key of its own is known: every one is ignored */
    if (!port_name) return tw_mpi_error(NULL, "MPI_Open_port", MPI_ERR_ARG, "port_name is NULL");
    int rc = port_open(port_name);
    return rc ? tw_mpi_error(NULL, "MPI_Open_port", rc, "cannot listen") : MPI_SUCCESS;
}

int MPI_Close_port(const char *port_name) {
    NEED_INIT("MPI_Close_port");
    if (!port_name) return tw_mpi_error(NULL, "MPI_Close_port", MPI_ERR_ARG, "port_name is NULL");
    return port_close(port_name)
               ? tw_mpi_error(NULL, "MPI_Close_port", MPI_ERR_PORT, "not a port opened here")
               : MPI_SUCCESS;
}

int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *newcomm) {
    NEED_INIT("MPI_Comm_accept");
    const char *call = "MPI_Comm_accept";
    (void)info;
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = intra(comm, call, &rc);
    if (!c) return rc;
    if (!newcomm) return tw_mpi_error(c, call, MPI_ERR_ARG, "newcomm is NULL");
    if (root < 0 || root >= c->size) return tw_mpi_error(c, call, MPI_ERR_ROOT, NULL);
    *newcomm = MPI_COMM_NULL;
    /* the port matters at the root only */
    accept_arg_t arg = {c->rank == root && port_name ? port_find(port_name) : NULL, NULL};
    rc = establish(c, root, accept_root, &arg, newcomm);
    return rc ? tw_mpi_error(c, call, rc, rc == MPI_ERR_PORT ? "not a port opened here" : NULL)
              : MPI_SUCCESS;
}

int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm) {
    NEED_INIT("MPI_Comm_connect");
    const char *call = "MPI_Comm_connect";
    (void)info;
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = intra(comm, call, &rc);
    if (!c) return rc;
    if (!newcomm) return tw_mpi_error(c, call, MPI_ERR_ARG, "newcomm is NULL");
    if (root < 0 || root >= c->size) return tw_mpi_error(c, call, MPI_ERR_ROOT, NULL);
    *newcomm = MPI_COMM_NULL;
    connect_arg_t arg = {port_name ? port_name : ""};
    rc = establish(c, root, connect_root, &arg, newcomm);
    return rc ? tw_mpi_error(c, call, rc,
                             rc == MPI_ERR_PORT ? "no accept at that port (closed, not a port, "
                                                  "another job's, or TW_CONNECT_TIMEOUT passed)"
                                                : NULL)
              : MPI_SUCCESS;
}

int MPI_Comm_disconnect(MPI_Comm *comm) {
    NEED_INIT("MPI_Comm_disconnect");
    tw_mpi_comm_t *c = comm ? tw_mpi_comm_get(*comm) : NULL;
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_disconnect", MPI_ERR_COMM, NULL);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return tw_mpi_error(c, "MPI_Comm_disconnect", MPI_ERR_COMM, "a predefined communicator");
    /* every member has sent all it will and received all it was sent once each has
     * entered: what is pending completes before the barrier ends */
    int rc = MPI_Barrier(*comm);
    if (rc) return rc;
    if (*comm == parent) parent = MPI_COMM_NULL;
    return MPI_Comm_free(comm);
}

int MPI_Comm_get_parent(MPI_Comm *out) {
    NEED_INIT("MPI_Comm_get_parent");
    if (!out) return tw_mpi_error(NULL, "MPI_Comm_get_parent", MPI_ERR_ARG, "parent is NULL");
    /* once freed (or disconnected) it is gone */
    *out = parent;
    return MPI_SUCCESS;
}

/* ---- MPI_Comm_join ---- */

int MPI_Comm_join(int fd, MPI_Comm *intercomm) {
    NEED_INIT("MPI_Comm_join");
    const char *call = "MPI_Comm_join";
    tw_mpi_comm_t *self = tw_mpi_comm_get(MPI_COMM_SELF);
    int rc = MPI_SUCCESS;
    if (!intercomm) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "intercomm is NULL");
    *intercomm = MPI_COMM_NULL;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "fd is not a socket");
    /* both sides open a port and swap names over fd; the smaller name accepts */
    char mine[MPI_MAX_PORT_NAME], theirs[MPI_MAX_PORT_NAME];
    rc = port_open(mine);
    if (rc) return tw_mpi_error(NULL, call, rc, "cannot listen");
    struct timespec until = tw_deadline_in((int)tw_setting_unsigned(TW_SETTING_CONNECT_TIMEOUT));
    memset(theirs, 0, sizeof theirs);
    if (fd_all(fd, mine, sizeof mine, 0, until) || fd_all(fd, theirs, sizeof theirs, 1, until) ||
        !memchr(theirs, '\0', sizeof theirs) || !strcmp(mine, theirs)) {
        port_close(mine);
        return tw_mpi_error(NULL, call, MPI_ERR_OTHER, "no answer over fd");
    }
    int c = strcmp(mine, theirs);
    if (c < 0) { /* the other side said it would connect: it has until the deadline */
        until = tw_deadline_in((int)tw_setting_unsigned(TW_SETTING_CONNECT_TIMEOUT));
        accept_arg_t arg = {port_find(mine), &until};
        rc = establish(self, 0, accept_root, &arg, intercomm);
    } else {
        connect_arg_t arg = {theirs};
        rc = establish(self, 0, connect_root, &arg, intercomm);
    }
    port_close(mine);
    return rc ? tw_mpi_error(NULL, call, rc, NULL) : MPI_SUCCESS;
}

/* ---- spawn ---- */

static int plain(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '/' || c == '+' || c == '-';
}

/* Appends s percent-encoded (twrun's spawn encoding) and then sep; -1 when full. */
static int spec_add(char *spec, size_t *n, const char *s, char sep) {
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (*n + 5 > SPEC_MAX) return -1;
        if (plain(ch))
            spec[(*n)++] = (char)ch;
        else
            *n += (size_t)snprintf(spec + *n, 4, "%%%02X", ch);
    }
    if (*n + 2 > SPEC_MAX) return -1;
    if (sep) spec[(*n)++] = sep;
    spec[*n] = '\0';
    return 0;
}

typedef struct spawn_req {
    int count;
    char **commands;
    char ***argvs; /* NULL: no arguments for any */
    const int *maxprocs;
    const MPI_Info *infos; /* NULL: none */
} spawn_req_t;

/* The command as "path" (a colon-separated list of directories) finds it: the first
 * executable path/command, in buf; else the command as given. */
static const char *on_path(const char *command, const char *path, char *buf, size_t cap) {
    if (!path || strchr(command, '/')) return command;
    for (const char *p = path; *p;) {
        const char *colon = strchrnul(p, ':');
        int n = snprintf(buf, cap, "%.*s/%s", (int)(colon - p), p, command);
        if (colon > p && n > 0 && (size_t)n < cap && access(buf, X_OK) == 0) return buf;
        p = *colon ? colon + 1 : colon;
    }
    return command;
}

/* The root's checks of the arguments that matter there only. */
static int spawn_args_ok(const spawn_req_t *q, const char **why) {
    *why = NULL;
    if (q->count < 1 || q->count > 16) return *why = "count must be 1 to 16", MPI_ERR_ARG;
    if (!q->commands || !q->maxprocs) return *why = "commands or maxprocs is NULL", MPI_ERR_ARG;
    for (int k = 0; q->infos && k < q->count; k++) {
        if (!tw_mpi_info_ok(q->infos[k])) return *why = "not an info object", MPI_ERR_INFO;
    }
    long total = 0;
    for (int k = 0; k < q->count; k++) {
        if (!q->commands[k] || !q->commands[k][0]) return *why = "a command is empty", MPI_ERR_ARG;
        if (q->maxprocs[k] < 1 || q->maxprocs[k] > 4096)
            return *why = "maxprocs must be 1 to 4096", MPI_ERR_ARG;
        total += q->maxprocs[k];
    }
    return total > 4096 ? (*why = "more than 4096 processes", MPI_ERR_ARG) : MPI_SUCCESS;
}

/* What one spawn's root writes as it goes: its own, as other threads may spawn at the
 * same time. */
typedef struct spawn_text {
    char spec[SPEC_MAX], port_enc[SPEC_MAX]; /* the request to the process manager */
    char found[4096];                        /* a command found along the info's path */
    char why[256];                           /* why the spawn was refused, for its error */
} spawn_text_t;

static int spawn_root(const spawn_req_t *q, spawn_text_t *t, char port[MPI_MAX_PORT_NAME],
                      int *failed) {
    size_t n = 0, pn = 0;
    *failed = -1;
    snprintf(t->why, sizeof t->why,
             "the commands and arguments encode to more than %d bytes, past the longest spawn "
             "request (a byte outside [A-Za-z0-9._/+-] takes 3)",
             SPEC_MAX - 1);
    for (int k = 0; k < q->count; k++) {
        char num[16];
        snprintf(num, sizeof num, "%d", q->maxprocs[k]);
        /* info: wdir and path are read; host and other keys are ignored (every
         * process runs on the launcher's machine) */
        MPI_Info info = q->infos ? q->infos[k] : MPI_INFO_NULL; /* checked */
        const char *w = tw_mpi_info_value(info, "wdir");
        const char *cmd =
            on_path(q->commands[k], tw_mpi_info_value(info, "path"), t->found, sizeof t->found);
        if ((k && spec_add(t->spec, &n, "", ';')) || spec_add(t->spec, &n, num, ',') ||
            spec_add(t->spec, &n, w ? w : "-", ',') || spec_add(t->spec, &n, cmd, 0))
            return MPI_ERR_SPAWN;
        char **argv = q->argvs ? q->argvs[k] : NULL;
        for (int a = 0; argv && argv[a]; a++) {
            if (!argv[a][0]) continue; /* an empty word cannot be passed: twrun needs one */
            if (spec_add(t->spec, &n, "", ',') || spec_add(t->spec, &n, argv[a], 0))
                return MPI_ERR_SPAWN;
        }
    }
    snprintf(t->why, sizeof t->why, "cannot open a port");
    if (port_open(port)) return MPI_ERR_SPAWN;
    int base, size;
    char why[128];
    if (spec_add(t->port_enc, &pn, port, 0) ||
        tw_ep_spawn(tw_mpi.ep, t->port_enc, t->spec, &base, &size, why, sizeof why, failed) !=
            TW_OK) {
        snprintf(t->why, sizeof t->why, "the process manager refused it: %s (command %d)",
                 pn ? why : "request too long", *failed);
        port_close(port);
        return MPI_ERR_SPAWN;
    }
    return MPI_SUCCESS;
}

static int spawn_common(const char *call, const spawn_req_t *q, int root, MPI_Comm comm,
                        MPI_Comm *intercomm, int *errcodes) {
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = intra(comm, call, &rc);
    if (!c) return rc;
    if (!intercomm) return tw_mpi_error(c, call, MPI_ERR_ARG, "intercomm is NULL");
    if (root < 0 || root >= c->size) return tw_mpi_error(c, call, MPI_ERR_ROOT, NULL);
    *intercomm = MPI_COMM_NULL;
    char port[MPI_MAX_PORT_NAME] = "";
    const char *why = NULL;
    int head[3] = {MPI_SUCCESS, 0, -1}; /* outcome, processes asked for, command refused */
    spawn_text_t *t = NULL;
    if (c->rank == root) {
        head[0] = spawn_args_ok(q, &why);
        for (int k = 0; !head[0] && k < q->count; k++) head[1] += q->maxprocs[k];
        if (!head[0] && !(t = malloc(sizeof *t))) head[0] = MPI_ERR_NO_MEM;
        if (!head[0]) {
            t->why[0] = '\0';
            head[0] = spawn_root(q, t, port, &head[2]);
        }
    }
    MPI_Bcast(head, 3, MPI_INT, root, comm);
    const char *failed = c->rank != root ? "refused at the root" : t ? t->why : NULL;
    if (!head[0]) {
        accept_arg_t arg = {c->rank == root ? port_find(port) : NULL, NULL};
        head[0] = establish(c, root, accept_root, &arg, intercomm);
        if (c->rank == root) port_close(port);
        failed = "the spawned processes could not be connected to";
    }
    if (errcodes && head[1] > 0)
        for (int i = 0; i < head[1]; i++) errcodes[i] = head[0] ? MPI_ERR_SPAWN : MPI_SUCCESS;
    if (head[0] == MPI_ERR_ARG || head[0] == MPI_ERR_INFO)
        rc = tw_mpi_error(c, call, head[0], why);
    else if (head[0])
        rc = tw_mpi_error(c, call, head[0], failed);
    free(t);
    return rc;
}

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                   MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]) {
    NEED_INIT("MPI_Comm_spawn");
    char *cmds[1] = {(char *)command};
    char **argvs[1] = {argv};
    int procs[1] = {maxprocs};
    MPI_Info infos[1] = {info};
    spawn_req_t q = {1, cmds, argvs, procs, infos};
    return spawn_common("MPI_Comm_spawn", &q, root, comm, intercomm, array_of_errcodes);
}

int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                            const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                            MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]) {
    NEED_INIT("MPI_Comm_spawn_multiple");
    spawn_req_t q = {count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info};
    return spawn_common("MPI_Comm_spawn_multiple", &q, root, comm, intercomm, array_of_errcodes);
}

/* The parent intercommunicator's attribute: freeing it forgets the parent, so that a
 * communicator taking its table entry later is not taken for it. */
static int parent_freed(MPI_Comm comm, int keyval, void *value, void *extra) {
    (void)comm, (void)keyval, (void)value, (void)extra;
    parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

void tw_mpi_dynamic_init(void) {
    char port[MPI_MAX_PORT_NAME];
    if (tw_ep_parent(tw_mpi.ep, port, sizeof port, &tw_mpi.appnum) != TW_OK)
        return; /* not spawned */
    tw_mpi_comm_t *w = tw_mpi_comm_get(MPI_COMM_WORLD);
    connect_arg_t arg = {port};
    int rc = establish(w, 0, connect_root, &arg, &parent), keyval;
    if (rc) tw_mpi_error(NULL, "MPI_Init", rc, "cannot reach the parents of this spawned job");
    tw_mpi_comm_t *p = tw_mpi_comm_get(parent);
    if (p) /* its default name (MPI-3.1 section 6.8), as MPI_COMM_WORLD has its own */
        snprintf(p->name, sizeof p->name, "MPI_COMM_PARENT");
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, parent_freed, &keyval, NULL) == MPI_SUCCESS)
        MPI_Comm_set_attr(parent, keyval, NULL);
}

/* ---- the name service: a file per name in a directory of the user's ---- */

/* The file of a service name; 0, or -1 when the name is not one. */
static int name_path(const char *service, char *path, size_t cap) {
    if (!service || !*service || strnlen(service, 256) == 256) return -1;
    const char *tmp = getenv("TMPDIR");
    int n = snprintf(path, cap, "%s/tollway-names-%ld", tmp && *tmp ? tmp : "/tmp", (long)getuid());
    if (n < 0 || (size_t)n >= cap) return -1;
    /* the directory is this user's own and no one else's to write in (another user
     * could have made it first, to plant names) */
    struct stat st;
    mkdir(path, 0700);
    if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
        return -1;
    size_t at = (size_t)n;
    if (at + 2 >= cap) return -1;
    path[at++] = '/';
    for (const char *s = service; *s; s++) { /* any name: encoded into one file name */
        unsigned char ch = (unsigned char)*s;
        if (at + 4 >= cap) return -1;
        if (plain(ch) && ch != '/')
            path[at++] = (char)ch;
        else
            at += (size_t)snprintf(path + at, 4, "%%%02X", ch);
    }
    path[at] = '\0';
    return 0;
}

int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name) {
    NEED_INIT("MPI_Publish_name");
    const char *call = "MPI_Publish_name";
    (void)info;
    char path[1024];
    if (!port_name || strnlen(port_name, MPI_MAX_PORT_NAME) == MPI_MAX_PORT_NAME)
        return tw_mpi_error(NULL, call, MPI_ERR_ARG, "port_name is NULL or too long");
    if (name_path(service_name, path, sizeof path))
        return tw_mpi_error(NULL, call, MPI_ERR_SERVICE, "not a service name");
    /* written whole under a name of its own, then linked in: a lookup meanwhile finds
     * the name either absent or complete */
    char tmp[sizeof path + 8];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) return tw_mpi_error(NULL, call, MPI_ERR_SERVICE, "cannot publish");
    size_t len = strlen(port_name);
    int ok = write(fd, port_name, len) == (ssize_t)len;
    close(fd);
    int linked = ok && link(tmp, path) == 0, exists = ok && !linked && errno == EEXIST;
    unlink(tmp);
    if (!linked)
        return tw_mpi_error(NULL, call, MPI_ERR_SERVICE,
                            exists ? "published already" : "cannot publish");
    return MPI_SUCCESS;
}

/* The port name published under path: 0, or -1. */
static int read_name(const char *path, char *port) {
    /* a plain file only: a FIFO planted there would block the read for good */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    ssize_t n = read(fd, port, MPI_MAX_PORT_NAME - 1);
    close(fd);
    if (n <= 0) return -1;
    port[n] = '\0';
    return 0;
}

int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name) {
    NEED_INIT("MPI_Unpublish_name");
    const char *call = "MPI_Unpublish_name";
    (void)info;
    char path[1024], was[MPI_MAX_PORT_NAME];
    if (!port_name) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "port_name is NULL");
    if (name_path(service_name, path, sizeof path) || read_name(path, was))
        return tw_mpi_error(NULL, call, MPI_ERR_SERVICE, "not published");
    if (strcmp(was, port_name) != 0)
        return tw_mpi_error(NULL, call, MPI_ERR_SERVICE, "published with another port");
    unlink(path);
    return MPI_SUCCESS;
}

int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name) {
    NEED_INIT("MPI_Lookup_name");
    const char *call = "MPI_Lookup_name";
    (void)info;
    char path[1024];
    if (!port_name) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "port_name is NULL");
    if (name_path(service_name, path, sizeof path) || read_name(path, port_name))
        return tw_mpi_error(NULL, call, MPI_ERR_NAME, "not published");
    return MPI_SUCCESS;
}
