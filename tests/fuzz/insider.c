/* The insider: a network fuzzer against a live job's udp link, from a process that
 * holds the job's secret.
 *
 * It makes a network namespace of its own (only loopback, up), then runs campaigns:
 * each launches a job (twrun -n RANKS, TW_LINK=udp: every peer over the udp link, on
 * 127.0.0.1) of insider_job, an MPI program that checks every byte it receives, and
 * attacks it until it ends. It learns what it needs as root on the node can:
 *
 *   - the secret and each rank's id from the ranks' environments (/proc/PID/environ:
 *     TW_JOB_SECRET, PMI_RANK), the processes being those of the namespace;
 *   - each rank's two sockets, the data socket and the liveness socket, from its file
 *     descriptors and /proc/PID/net/udp (the data socket is opened first), confirmed by
 *     what it captures: packets of data and acknowledgements come from data sockets,
 *     probes and echoes from liveness sockets;
 *   - the link's traffic, captured on loopback (AF_PACKET), every datagram decoded
 *     with the secret (tw_udp_decode): the packets themselves, to replay and mutate,
 *     and per pair of ranks the last sequence number sent and the last acknowledgement.
 *
 * and sends, from the peers' own addresses (a raw socket, IP_HDRINCL, source address
 * and port set to the peer's data or liveness socket) or from its own socket, packets
 * sealed with the secret through the project's encoder (tw_udp_encode, tw_udp_reseal,
 * tw_udp_control_packet), to the ranks' data and liveness sockets. The kinds, each
 * one bit of --kinds:
 *
 *   replay   a captured packet sent again as it was       dup     the same, 2-5 times
 *   reorder  the last captured packets of a pair, in reverse order
 *   trunc    a captured packet cut short, or a byte of it changed
 *   badlen   a captured packet with the right MAC but lengths or fields that cannot be:
 *            a datagram longer or shorter than its header says (resealed over what is
 *            there), msg_len against len and FIRST/LAST, held 1 or past the window,
 *            DATA with FIN, a control flag with others, unknown flags, seq or ack 0, the
 *            DATA flag taken from a packet that keeps its payload, another addressee
 *   ack      bare acknowledgements: the pair's last one again, one behind it, one of
 *            what was never sent, any number; held 0, 2, small, 65536 or any
 *   fin      FIN: the pair's last acknowledgement, with the FIN flag
 *   stale    data with a fresh payload, sealed: a sequence number the receiver has
 *            acknowledged already, or one past any window
 *   rst      RST, to the data or the liveness socket, from either of the peer's
 *   probe    PROBE      echo   ECHO (to liveness sockets mostly, data sockets too),
 *            announcing no una, or the last acknowledgement seen (an honest one)
 *   own      a quarter of the packets from the insider's own socket, not spoofed
 *   ahead    acknowledgements of everything the peer sent (what it may not have
 *            received yet), or a PROBE or ECHO announcing that all of it is
 *            acknowledged
 *
 * What it never sends, because the secret lets it and no link can tell it from the
 * peer: data at a sequence number the receiver may still take (its content would be
 * taken as the peer's). An acknowledgement "ahead" cannot be told from the peer's
 * either, but its consequence can: if the data it acknowledged is then lost, the
 * sender, which gave it up, announces an una past what the receiver acknowledged, and
 * the receiver declares it lost (TW_ERR_DESYNC) rather than wait for good.
 *
 * Campaigns go round three settings: a clean network without RST; the link's own fault
 * injector dropping, duplicating and reordering (TW_UDP_FAULTS) without RST, and every
 * other time without ahead; and every kind with RST. The run stops at the first campaign that
 * fails. Without RST and ahead the job must complete with its data intact; with RST it may instead
 * end with the library's error naming the peer ("process failed: rank N lost"), with ahead with the
 * error that names the peer for data it gave up, or the reset that follows it. Never: a job still
 * running at twrun's --timeout (exit 124), a rank killed by a signal, a sanitizer's report, data
 * that differs ("CORRUPT").
 *
 * usage: insider --twrun PATH --job PATH [--seed N] [--seconds S] [--job-seconds S]
 *                [--ranks N] [--rate PACKETS_PER_S] [--kinds LIST] [--campaign C]
 *                [--job-timeout S] [--verbose]
 * Needs root (namespaces, raw and packet sockets): exits 77 otherwise. */
#include <arpa/inet.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "link/udp/crc32c.h"
#include "link/liveness.h"
#include "link/siphash.h"
#include "link/udp/udp_wire.h"

enum {
    K_REPLAY,
    K_DUP,
    K_REORDER,
    K_TRUNC,
    K_BADLEN,
    K_ACK,
    K_FIN,
    K_STALE,
    K_RST,
    K_PROBE,
    K_ECHO,
    K_OWN,
    K_AHEAD,
    KINDS
};
static const char *const kind_names[KINDS] = {"replay", "dup", "reorder", "trunc", "badlen",
                                              "ack",    "fin", "stale",   "rst",   "probe",
                                              "echo",   "own", "ahead"};
#define BIT(k)        (1u << (k))
#define DEFAULT_KINDS (BIT(KINDS) - 1)

enum { RANKS_MAX = 16, CAPTURED = 256, PKT_MAX = 65536, RECENT = 4096 };

typedef struct options {
    const char *twrun, *job;
    uint64_t seed;
    double seconds, job_seconds;
    int ranks, rate, job_timeout, verbose, campaign;
    unsigned kinds; /* 0: each campaign's own */
} options_t;

typedef struct rank_info {
    pid_t pid;
    uint16_t data, live; /* ports */
    int data_seen;       /* the data port confirmed by a captured packet */
} rank_info_t;

/* What was seen going from one rank to another. */
typedef struct flow {
    int has_seq, has_ack;
    uint32_t max_seq;  /* the furthest data packet */
    uint32_t last_ack; /* the furthest acknowledgement */
} flow_t;

typedef struct captured {
    uint32_t src, dst;
    uint16_t sport, dport;
    size_t len;
    unsigned char *pkt;
} captured_t;

typedef struct campaign {
    unsigned kinds;
    int faults;
    uint64_t rng;
    unsigned char secret[TW_SIPHASH_KEY_SIZE];
    tw_siphash_key_t key;
    rank_info_t rank[RANKS_MAX];
    int nranks;
    flow_t flow[RANKS_MAX][RANKS_MAX];
    captured_t cap[CAPTURED];
    unsigned ncap, cap_next;
    uint64_t recent[RECENT]; /* MACs of what we sent: not taken for the job's traffic */
    unsigned recent_next;
    uint64_t sent[KINDS], captured_count;
    int keyed; /* the secret is known */
} campaign_t;

static options_t opt = {.seed = 1,
                        .seconds = 20,
                        .job_seconds = 4,
                        .ranks = 4,
                        .rate = 2000,
                        .job_timeout = 120,
                        .campaign = -1};
static int raw_fd = -1, own_fd = -1, packet_fd = -1;
static char netns[64];

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "insider: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static void skip(const char *why) {
    fprintf(stderr, "insider: %s: skipped\n", why);
    exit(77);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t below(campaign_t *c, uint32_t n) {
    return n ? (uint32_t)(splitmix(&c->rng) % n) : 0;
}

static int one_in(campaign_t *c, uint32_t n) {
    return below(c, n) == 0;
}

static void put16(unsigned char *p, size_t off, uint16_t v) {
    v = htole16(v);
    memcpy(p + off, &v, sizeof v);
}
static void put32(unsigned char *p, size_t off, uint32_t v) {
    v = htole32(v);
    memcpy(p + off, &v, sizeof v);
}
static uint32_t get32(const unsigned char *p, size_t off) {
    uint32_t v;
    memcpy(&v, p + off, sizeof v);
    return le32toh(v);
}
static uint16_t get16(const unsigned char *p, size_t off) {
    uint16_t v;
    memcpy(&v, p + off, sizeof v);
    return le16toh(v);
}

#define OFF(field) offsetof(tw_udp_hdr_t, field)

/* ---- the namespace and the sockets ---- */

static void enter_namespace(void) {
    if (geteuid() != 0) skip("needs root (a network namespace, raw and packet sockets)");
    if (unshare(CLONE_NEWNET)) skip("cannot make a network namespace");
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq r = {0};
    snprintf(r.ifr_name, sizeof r.ifr_name, "lo");
    if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &r)) die("lo: %s", strerror(errno));
    r.ifr_flags |= IFF_UP;
    if (ioctl(fd, SIOCSIFFLAGS, &r)) die("cannot bring lo up: %s", strerror(errno));
    close(fd);
    ssize_t n = readlink("/proc/self/ns/net", netns, sizeof netns - 1);
    if (n <= 0) die("/proc/self/ns/net: %s", strerror(errno));
    netns[n] = 0;

    raw_fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW); /* IP_HDRINCL implied */
    if (raw_fd < 0) skip("cannot open a raw socket");
    own_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (own_fd < 0 || bind(own_fd, (struct sockaddr *)&lo, sizeof lo))
        die("own socket: %s", strerror(errno));
    packet_fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_IP));
    if (packet_fd < 0) skip("cannot open a packet socket");
    struct sockaddr_ll ll = {.sll_family = AF_PACKET,
                             .sll_protocol = htons(ETH_P_IP),
                             .sll_ifindex = (int)if_nametoindex("lo")};
    if (bind(packet_fd, (struct sockaddr *)&ll, sizeof ll)) die("bind lo: %s", strerror(errno));
    int big = 8 << 20;
    setsockopt(packet_fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big);
}

/* Sends len bytes to 127.0.0.1:to as from 127.0.0.1:from (0: from our own socket). */
static void send_as(uint16_t from, uint16_t to, const unsigned char *pkt, size_t len) {
    struct sockaddr_in dst = {
        .sin_family = AF_INET, .sin_port = htons(to), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (!from) {
        (void)sendto(own_fd, pkt, len, MSG_DONTWAIT, (struct sockaddr *)&dst, sizeof dst);
        return;
    }
    static unsigned char dgram[sizeof(struct iphdr) + sizeof(struct udphdr) + PKT_MAX];
    size_t total = sizeof(struct iphdr) + sizeof(struct udphdr) + len;
    if (total > 65535) return;
    struct iphdr *ip = (struct iphdr *)dgram;
    struct udphdr *udp = (struct udphdr *)(dgram + sizeof *ip);
    *ip = (struct iphdr){.version = 4,
                         .ihl = 5,
                         .ttl = 64,
                         .protocol = IPPROTO_UDP,
                         .tot_len = htons((uint16_t)total), /* the kernel fills id and check */
                         .saddr = htonl(INADDR_LOOPBACK),
                         .daddr = htonl(INADDR_LOOPBACK)};
    *udp = (struct udphdr){.source = htons(from),
                           .dest = htons(to),
                           .len = htons((uint16_t)(sizeof *udp + len)),
                           .check = 0}; /* none: allowed over IPv4 */
    memcpy(dgram + sizeof *ip + sizeof *udp, pkt, len);
    (void)sendto(raw_fd, dgram, total, MSG_DONTWAIT, (struct sockaddr *)&dst, sizeof dst);
}

/* ---- finding the job: its ranks, its secret, their sockets ---- */

static int read_file(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0) n += (size_t)r;
    close(fd);
    buf[n] = 0;
    return (int)n;
}

static const char *env_value(const char *env, int n, const char *name) {
    size_t len = strlen(name);
    for (int i = 0; i < n; i += (int)strlen(env + i) + 1)
        if (!strncmp(env + i, name, len) && env[i + len] == '=') return env + i + len + 1;
    return NULL;
}

static int parse_secret(const char *hex, unsigned char *out) {
    if (strlen(hex) != 2 * TW_SIPHASH_KEY_SIZE) return -1;
    for (int i = 0; i < TW_SIPHASH_KEY_SIZE; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (unsigned char)v;
    }
    return 0;
}

/* The UDP ports of pid's sockets bound on loopback, in the order of its descriptors. */
static int udp_ports(pid_t pid, uint16_t *ports, int cap) {
    static char table[1 << 16];
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/net/udp", (int)pid);
    if (read_file(path, table, sizeof table) < 0) return 0;
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    if (!d) return 0;
    int fds[64], nfd = 0;
    unsigned long inodes[64];
    struct dirent *e;
    while ((e = readdir(d)) && nfd < 64) {
        char link[300], target[64];
        snprintf(link, sizeof link, "/proc/%d/fd/%s", (int)pid, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = 0;
        unsigned long ino;
        if (sscanf(target, "socket:[%lu]", &ino) != 1) continue;
        fds[nfd] = atoi(e->d_name);
        inodes[nfd++] = ino;
    }
    closedir(d);
    for (int i = 1; i < nfd; i++) /* by descriptor */
        for (int j = i; j > 0 && fds[j] < fds[j - 1]; j--) {
            int f = fds[j];
            fds[j] = fds[j - 1];
            fds[j - 1] = f;
            unsigned long x = inodes[j];
            inodes[j] = inodes[j - 1];
            inodes[j - 1] = x;
        }
    int n = 0;
    for (int i = 0; i < nfd && n < cap; i++) {
        for (char *line = strchr(table, '\n'); line && *++line; line = strchr(line, '\n')) {
            unsigned ip, port;
            unsigned long ino;
            if (sscanf(line, " %*d: %x:%x %*x:%*x %*x %*x:%*x %*x:%*x %*x %*u %*u %lu", &ip, &port,
                       &ino) == 3 &&
                ino == inodes[i] && ip == htonl(INADDR_LOOPBACK) && port) {
                ports[n++] = (uint16_t)port;
                break;
            }
        }
    }
    return n;
}

/* Looks for the job's ranks among the processes of our namespace: 1 once all are found
 * with their secret and both sockets. */
static int find_job(campaign_t *c, pid_t launcher) {
    DIR *d = opendir("/proc");
    if (!d) die("/proc: %s", strerror(errno));
    struct dirent *e;
    int found = 0;
    static char env[1 << 16];
    while ((e = readdir(d))) {
        pid_t pid = atoi(e->d_name);
        if (pid <= 0 || pid == getpid() || pid == launcher) continue;
        char path[64], ns[64];
        snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
        ssize_t n = readlink(path, ns, sizeof ns - 1);
        if (n <= 0) continue;
        ns[n] = 0;
        if (strcmp(ns, netns)) continue;
        snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
        int len = read_file(path, env, sizeof env);
        const char *secret = len > 0 ? env_value(env, len, "TW_JOB_SECRET") : NULL;
        const char *prank = len > 0 ? env_value(env, len, "PMI_RANK") : NULL;
        if (!secret || !prank) continue;
        int r = atoi(prank);
        unsigned char s[TW_SIPHASH_KEY_SIZE];
        if (r < 0 || r >= c->nranks || parse_secret(secret, s)) continue;
        if (found == 0) {
            memcpy(c->secret, s, sizeof s);
        } else if (memcmp(c->secret, s, sizeof s)) {
            continue; /* not of this job */
        }
        uint16_t ports[8];
        if (udp_ports(pid, ports, 8) < 2) continue; /* not yet */
        rank_info_t *ri = &c->rank[r];
        if (!ri->data_seen) {
            ri->data = ports[0];
            ri->live = ports[1];
        }
        ri->pid = pid;
        found++;
    }
    closedir(d);
    if (found == c->nranks) {
        c->key = tw_siphash_key(c->secret);
        c->keyed = 1;
    }
    return found == c->nranks;
}

/* ---- capture ---- */

static int ours(const campaign_t *c, uint64_t mac) {
    for (unsigned i = 0; i < RECENT; i++)
        if (c->recent[i] == mac && mac) return 1;
    return 0;
}

static void remember(campaign_t *c, const unsigned char *pkt, size_t len) {
    if (len < TW_UDP_HDR_SIZE) return;
    uint64_t mac;
    memcpy(&mac, pkt + OFF(mac), sizeof mac);
    c->recent[c->recent_next++ % RECENT] = mac;
}

static int rank_of_port(const campaign_t *c, uint16_t port, int *live) {
    for (int r = 0; r < c->nranks; r++) {
        if (c->rank[r].data == port) {
            *live = 0;
            return r;
        }
        if (c->rank[r].live == port) {
            *live = 1;
            return r;
        }
    }
    return -1;
}

static void learn(campaign_t *c, const tw_udp_hdr_t *h, uint16_t sport, uint16_t dport,
                  const unsigned char *pkt, size_t len) {
    if (h->src >= (uint32_t)c->nranks || h->dst >= (uint32_t)c->nranks) return;
    rank_info_t *ri = &c->rank[h->src];
    if (!(h->flags & TW_UDP_CONTROL) && ri->data != sport) { /* the descriptors' order lied */
        if (ri->live == sport) ri->live = ri->data;
        ri->data = sport;
    }
    if (!(h->flags & TW_UDP_CONTROL)) ri->data_seen = 1;
    if ((h->flags & (TW_UDP_PROBE | TW_UDP_ECHO)) && ri->data_seen && ri->data != sport)
        ri->live = sport;
    flow_t *f = &c->flow[h->src][h->dst];
    if ((h->flags & TW_UDP_DATA) && (!f->has_seq || (int32_t)(h->seq - f->max_seq) > 0)) {
        f->max_seq = h->seq;
        f->has_seq = 1;
    }
    if ((h->flags & TW_UDP_ACK) && (!f->has_ack || (int32_t)(h->ack - f->last_ack) > 0)) {
        f->last_ack = h->ack;
        f->has_ack = 1;
    }
    captured_t *k = &c->cap[c->cap_next++ % CAPTURED];
    if (!k->pkt && !(k->pkt = malloc(PKT_MAX))) die("out of memory");
    *k = (captured_t){h->src, h->dst, sport, dport, len, k->pkt};
    memcpy(k->pkt, pkt, len);
    if (c->ncap < CAPTURED) c->ncap++;
    c->captured_count++;
}

static void capture(campaign_t *c) {
    static unsigned char buf[PKT_MAX + 64];
    for (int k = 0; k < 256; k++) {
        struct sockaddr_ll from;
        socklen_t flen = sizeof from;
        ssize_t n = recvfrom(packet_fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen);
        if (n < 0) return;
        if (from.sll_pkttype == PACKET_OUTGOING) continue; /* loopback shows each twice */
        const struct iphdr *ip = (const struct iphdr *)buf;
        size_t ihl = (size_t)ip->ihl * 4;
        if ((size_t)n < ihl + sizeof(struct udphdr) || ip->protocol != IPPROTO_UDP) continue;
        const struct udphdr *udp = (const struct udphdr *)(buf + ihl);
        size_t len = (size_t)n - ihl - sizeof *udp;
        const unsigned char *pkt = buf + ihl + sizeof *udp;
        if (len < TW_UDP_HDR_SIZE || !c->keyed) continue;
        uint64_t mac;
        memcpy(&mac, pkt + OFF(mac), sizeof mac);
        if (ours(c, mac)) continue;
        tw_udp_hdr_t h;
        if (tw_udp_decode(pkt, len, &c->key, get32(pkt, OFF(dst)), &h) != TW_UDP_OK) continue;
        learn(c, &h, ntohs(udp->source), ntohs(udp->dest), pkt, len);
    }
}

/* ---- what is sent ---- */

/* A pair of distinct ranks whose data ports are known, or 0. */
static int pick_pair(campaign_t *c, int *s, int *d) {
    *s = (int)below(c, (uint32_t)c->nranks);
    *d = ((int)below(c, (uint32_t)c->nranks - 1) + *s + 1) % c->nranks;
    return c->rank[*s].data && c->rank[*d].data;
}

/* Sends a packet that claims to be from rank s to rank d, to d's data socket (or, with
 * live, its liveness socket), from s's matching socket, or from our own. */
static void deliver(campaign_t *c, int kind, int s, int d, int live, const unsigned char *pkt,
                    size_t len) {
    uint16_t to = live ? c->rank[d].live : c->rank[d].data;
    uint16_t from = live ? c->rank[s].live : c->rank[s].data;
    if (one_in(c, 8)) from = live ? c->rank[s].data : c->rank[s].live; /* the other one */
    if ((c->kinds & BIT(K_OWN)) && one_in(c, 4)) {
        from = 0;
        c->sent[K_OWN]++;
    }
    remember(c, pkt, len);
    send_as(from, to, pkt, len);
    c->sent[kind]++;
}

static const captured_t *pick_captured(campaign_t *c) {
    if (!c->ncap) return NULL;
    const captured_t *k = &c->cap[below(c, c->ncap)];
    return k->src < (uint32_t)c->nranks && k->dst < (uint32_t)c->nranks ? k : NULL;
}

/* To the socket it went to, mostly; now and then to the rank's other one. */
static int to_live(campaign_t *c, const captured_t *k) {
    int live = 0;
    rank_of_port(c, k->dport, &live);
    return one_in(c, 5) ? !live : live;
}

static void replay(campaign_t *c, int kind) {
    const captured_t *k = pick_captured(c);
    if (!k) return;
    int live = to_live(c, k), times = kind == K_DUP ? 2 + (int)below(c, 4) : 1;
    for (int t = 0; t < times; t++)
        deliver(c, kind, (int)k->src, (int)k->dst, live, k->pkt, k->len);
}

static void reorder(campaign_t *c) {
    const captured_t *k = pick_captured(c);
    if (!k) return;
    unsigned n = 2 + below(c, 7), got = 0;
    const captured_t *burst[8];
    for (unsigned back = 1; back <= c->ncap && got < n; back++) { /* the newest first */
        const captured_t *x = &c->cap[(c->cap_next - back) % CAPTURED];
        if (x->src == k->src && x->dst == k->dst) burst[got++] = x;
    }
    for (unsigned i = 0; i < got; i++) /* newest first: the reverse of their order */
        deliver(c, K_REORDER, (int)k->src, (int)k->dst, 0, burst[i]->pkt, burst[i]->len);
}

static void truncate_or_damage(campaign_t *c) {
    const captured_t *k = pick_captured(c);
    if (!k) return;
    static unsigned char pkt[PKT_MAX];
    memcpy(pkt, k->pkt, k->len);
    size_t len = k->len;
    if (one_in(c, 2))
        len = one_in(c, 3) ? below(c, TW_UDP_HDR_SIZE) : below(c, (uint32_t)k->len);
    else
        pkt[below(c, (uint32_t)len)] ^= (unsigned char)(1 + below(c, 255));
    deliver(c, K_TRUNC, (int)k->src, (int)k->dst, to_live(c, k), pkt, len);
}

/* Seals a packet whose header's len may disagree with the n bytes there are: the CRCs
 * over what is there, then the MAC, as tw_udp_seal does for a packet whose len is
 * right (the encoder cannot make one that is not; this is its one copy here). */
static void seal_as_is(unsigned char *pkt, size_t n, const tw_siphash_key_t *key) {
    tw_udp_hdr_t w;
    memcpy(&w, pkt, sizeof w);
    w.crc = w.hcrc = 0;
    w.mac = 0;
    size_t payload = n - TW_UDP_HDR_SIZE,
           prefix = payload < TW_UDP_PREFIX ? payload : TW_UDP_PREFIX;
    uint32_t hcrc = tw_crc32c(tw_crc32c(0, &w, sizeof w), pkt + TW_UDP_HDR_SIZE, prefix);
    uint32_t crc = tw_crc32c(hcrc, pkt + TW_UDP_HDR_SIZE + prefix, payload - prefix);
    put32(pkt, OFF(crc), crc);
    put32(pkt, OFF(hcrc), hcrc);
    memset(pkt + OFF(mac), 0, 8);
    uint64_t mac;
    if (get16(pkt, OFF(flags)) & TW_UDP_MAC_PAYLOAD) {
        tw_siphash_t s;
        tw_siphash24_begin(&s, key);
        tw_siphash24_add(&s, pkt, n);
        mac = tw_siphash24_end(&s);
    } else {
        mac = tw_siphash24(key, pkt, TW_UDP_HDR_SIZE);
    }
    mac = htole64(mac);
    memcpy(pkt + OFF(mac), &mac, sizeof mac);
}

/* A captured packet made impossible with a MAC that is right: tw_udp_decode refuses
 * every one of them (bad length or bad field), whatever its sequence number. */
static void bad_lengths(campaign_t *c) {
    const captured_t *k = pick_captured(c);
    if (!k) return;
    static unsigned char pkt[PKT_MAX + 16];
    memcpy(pkt, k->pkt, k->len);
    size_t len = k->len;
    uint16_t flags = get16(pkt, OFF(flags)), plen = get16(pkt, OFF(len));
    int data = (flags & TW_UDP_DATA) != 0;
    switch (below(c, 9)) {
    case 0: /* a datagram longer or shorter than its header says */
        if (one_in(c, 2) || plen == 0) {
            size_t more = 1 + below(c, 16);
            for (size_t i = 0; i < more; i++) pkt[len + i] = (unsigned char)below(c, 256);
            len += more;
        } else {
            len -= 1 + below(c, plen < 16 ? plen : 16);
        }
        seal_as_is(pkt, len, &c->key);
        deliver(c, K_BADLEN, (int)k->src, (int)k->dst, 0, pkt, len);
        return;
    case 1: /* held 1, or past any window */
        if (!(flags & TW_UDP_ACK)) return;
        put32(pkt, OFF(held), one_in(c, 2) ? 1 : TW_UDP_WINDOW_MAX + 1 + below(c, 1000));
        break;
    case 2: /* msg_len against len */
        if (!data) return;
        if (!(flags & TW_UDP_FIRST))
            put32(pkt, OFF(msg_len), 1 + below(c, 1000));
        else if (one_in(c, 2))
            put32(pkt, OFF(msg_len), TW_UDP_MSG_MAX + 1 + below(c, 1000));
        else if (plen)
            put32(pkt, OFF(msg_len), plen - 1u);
        else
            return;
        break;
    case 3: /* LAST with a message longer than what it carries */
        if ((flags & (TW_UDP_DATA | TW_UDP_FIRST | TW_UDP_LAST)) !=
                (TW_UDP_DATA | TW_UDP_FIRST | TW_UDP_LAST) ||
            plen == UINT16_MAX)
            return;
        put32(pkt, OFF(msg_len), plen + 1u);
        break;
    case 4: /* flags that cannot go together, or that do not exist */
    {
        static const uint16_t bad[] = {TW_UDP_DATA | TW_UDP_ACK | TW_UDP_FIN,
                                       TW_UDP_RST | TW_UDP_ACK,
                                       TW_UDP_PROBE | TW_UDP_ECHO,
                                       128,
                                       1024,
                                       TW_UDP_DATA}; /* data without ACK */
        put16(pkt, OFF(flags), (uint16_t)((flags & (data ? 0xffff : 0)) | bad[below(c, 6)]));
        if (get16(pkt, OFF(flags)) == flags) return;
        break;
    }
    case 5: /* sequence number or acknowledgement 0 */
        if (!data) return;
        put32(pkt, one_in(c, 2) ? OFF(seq) : OFF(ack), 0);
        break;
    case 6: /* no longer data, the payload kept */
        if (!data || !plen) return;
        put16(pkt, OFF(flags), TW_UDP_ACK);
        put32(pkt, OFF(seq), 0);
        put32(pkt, OFF(msg_len), 0);
        break;
    case 7: /* addressed to another rank (or none), sent to this one */
    {
        uint32_t other = (k->dst + 1 + below(c, (uint32_t)c->nranks)) % (uint32_t)(c->nranks + 1);
        if (other == k->dst) other = (uint32_t)c->nranks;
        put32(pkt, OFF(dst), other);
        break;
    }
    default: /* bare acknowledgement carrying msg_len */
        if (data) return;
        put32(pkt, OFF(msg_len), 1 + below(c, 100));
        break;
    }
    tw_udp_reseal(pkt, NULL, 0, &c->key);
    deliver(c, K_BADLEN, (int)k->src, (int)k->dst, 0, pkt, len);
}

/* A bare acknowledgement from s to d, held as given. */
static void bare_ack(campaign_t *c, int kind, int s, int d, uint32_t ack, uint32_t held,
                     uint16_t flags) {
    unsigned char pkt[TW_UDP_HDR_SIZE];
    tw_udp_hdr_t h = {
        .src = (uint32_t)s, .dst = (uint32_t)d, .flags = flags, .ack = ack, .held = held};
    tw_udp_encode(pkt, &h, NULL, &c->key);
    deliver(c, kind, s, d, 0, pkt, sizeof pkt);
}

static uint32_t any_held(campaign_t *c) {
    switch (below(c, 5)) {
    case 0:
        return 0;
    case 1:
        return 2;
    case 2:
        return 3 + below(c, 62);
    case 3:
        return TW_UDP_WINDOW_MAX;
    default:
        return below(c, TW_UDP_WINDOW_MAX + 1) | 2; /* never 1 */
    }
}

static void forge_ack(campaign_t *c) {
    int s, d;
    if (!pick_pair(c, &s, &d)) return;
    const flow_t *f = &c->flow[s][d], *back = &c->flow[d][s];
    uint32_t ack;
    switch (below(c, 4)) {
    case 0: /* the last one again */
        if (!f->has_ack) return;
        ack = f->last_ack;
        break;
    case 1: /* behind it */
        if (!f->has_ack || f->last_ack < 3) return;
        ack = f->last_ack - 1 - below(c, f->last_ack - 2 < 200 ? f->last_ack - 2 : 200);
        break;
    case 2: /* of what d never sent: past any window it could have in flight */
        ack = (back->has_seq ? back->max_seq : 1) + TW_UDP_WINDOW_MAX + 1 + below(c, 1000);
        break;
    default:
        ack = (uint32_t)splitmix(&c->rng) | 1;
        if (back->has_seq && (int32_t)(ack - back->max_seq) >= 0 &&
            (int32_t)(ack - back->max_seq) <= TW_UDP_WINDOW_MAX + 1)
            return; /* it could acknowledge what s has not received: that is "ahead" */
        break;
    }
    bare_ack(c, K_ACK, s, d, ack, any_held(c), TW_UDP_ACK);
}

/* Acknowledgements of all d sent s, which s may not have yet: to d, as if from s, or
 * announced to s in a probe or echo, as if from d. */
static void forge_ahead(campaign_t *c) {
    int s, d;
    if (!pick_pair(c, &s, &d) || !c->flow[d][s].has_seq) return;
    uint32_t all = c->flow[d][s].max_seq + 1;
    if (one_in(c, 2) || !c->rank[s].live || !c->rank[d].live) {
        bare_ack(c, K_AHEAD, s, d, all, 0, TW_UDP_ACK);
        return;
    }
    unsigned char pkt[TW_UDP_HDR_SIZE];
    tw_udp_control_packet(pkt, &c->key, (uint32_t)d, (uint32_t)s,
                          one_in(c, 2) ? TW_UDP_PROBE : TW_UDP_ECHO, all);
    deliver(c, K_AHEAD, d, s, 1, pkt, sizeof pkt);
}

static void forge_fin(campaign_t *c) {
    int s, d;
    if (!pick_pair(c, &s, &d) || !c->flow[s][d].has_ack) return;
    bare_ack(c, K_FIN, s, d, c->flow[s][d].last_ack, 0, TW_UDP_ACK | TW_UDP_FIN);
}

/* Data from s to d under the secret, at a sequence number d cannot take: one it has
 * acknowledged already, or one past any window. */
static void forge_stale(campaign_t *c) {
    int s, d;
    if (!pick_pair(c, &s, &d) || !c->flow[s][d].has_ack) return;
    const flow_t *f = &c->flow[s][d], *back = &c->flow[d][s];
    uint32_t seq;
    if (one_in(c, 2)) {
        if (!back->has_ack || back->last_ack < 2) return;
        seq = back->last_ack - 1 - below(c, back->last_ack - 1 < 64 ? back->last_ack - 1 : 64);
    } else {
        seq = (f->has_seq ? f->max_seq : 1) + TW_UDP_WINDOW_MAX + 1 + below(c, 1000);
    }
    static unsigned char pkt[TW_UDP_HDR_SIZE + 2048], payload[2048];
    uint16_t len = (uint16_t)below(c, sizeof payload);
    for (uint16_t i = 0; i < len; i++) payload[i] = (unsigned char)below(c, 256);
    uint16_t place = (uint16_t)below(c, 3); /* a whole message, a first or a later segment */
    tw_udp_hdr_t h = {.src = (uint32_t)s,
                      .dst = (uint32_t)d,
                      .seq = seq,
                      .ack = f->last_ack,
                      .flags = (uint16_t)(TW_UDP_DATA | TW_UDP_ACK |
                                          (place == 0   ? TW_UDP_FIRST | TW_UDP_LAST
                                           : place == 1 ? TW_UDP_FIRST
                                                        : 0)),
                      .len = len,
                      .msg_len = place == 0   ? len
                                 : place == 1 ? len + below(c, 4000)
                                              : 0};
    tw_udp_encode(pkt, &h, payload, &c->key);
    deliver(c, K_STALE, s, d, 0, pkt, TW_UDP_HDR_SIZE + len);
}

static void forge_control(campaign_t *c, int kind, uint16_t flag) {
    int s, d;
    if (!pick_pair(c, &s, &d) || !c->rank[s].live || !c->rank[d].live) return;
    unsigned char pkt[TW_UDP_HDR_SIZE];
    /* s's una toward d: none, or the last acknowledgement d sent s (it may be s's) */
    const flow_t *back = &c->flow[d][s];
    uint32_t una = flag == TW_UDP_RST || !back->has_ack || one_in(c, 2) ? 0 : back->last_ack;
    tw_udp_control_packet(pkt, &c->key, (uint32_t)s, (uint32_t)d, flag, una);
    int live = flag == TW_UDP_RST ? (int)below(c, 2) : !one_in(c, 4);
    deliver(c, kind, s, d, live, pkt, sizeof pkt);
}

static void inject(campaign_t *c) {
    int kinds[KINDS], n = 0;
    for (int k = 0; k < KINDS; k++)
        if ((c->kinds & BIT(k)) && k != K_OWN) kinds[n++] = k;
    if (!n) return;
    switch (kinds[below(c, (uint32_t)n)]) {
    case K_REPLAY:
        replay(c, K_REPLAY);
        break;
    case K_DUP:
        replay(c, K_DUP);
        break;
    case K_REORDER:
        reorder(c);
        break;
    case K_TRUNC:
        truncate_or_damage(c);
        break;
    case K_BADLEN:
        bad_lengths(c);
        break;
    case K_ACK:
        forge_ack(c);
        break;
    case K_FIN:
        forge_fin(c);
        break;
    case K_STALE:
        forge_stale(c);
        break;
    case K_RST:
        break; /* one per campaign, at its time (run_campaign) */
    case K_PROBE:
        forge_control(c, K_PROBE, TW_UDP_PROBE);
        break;
    case K_ECHO:
        forge_control(c, K_ECHO, TW_UDP_ECHO);
        break;
    case K_AHEAD:
        forge_ahead(c);
        break;
    }
}

/* ---- a campaign ---- */

static void print_kinds(FILE *out, unsigned kinds) {
    const char *sep = "";
    for (int k = 0; k < KINDS; k++)
        if (kinds & BIT(k)) {
            fprintf(out, "%s%s", sep, kind_names[k]);
            sep = ",";
        }
}

static unsigned parse_kinds(const char *s) {
    if (!strcmp(s, "all")) return DEFAULT_KINDS;
    unsigned kinds = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < KINDS && strcmp(w, kind_names[k])) k++;
        if (k == KINDS) die("--kinds: no kind '%s'", w);
        kinds |= BIT(k);
    }
    free(copy);
    return kinds;
}

/* What the job printed, in a file. */
static char *slurp(int fd) {
    struct stat st;
    if (fstat(fd, &st)) return strdup("");
    char *s = malloc((size_t)st.st_size + 1);
    ssize_t n = pread(fd, s, (size_t)st.st_size, 0);
    s[n > 0 ? n : 0] = 0;
    return s;
}

enum { COMPLETED, NAMED_ERROR, FAILED };

static int run_campaign(int index, uint64_t seed, unsigned kinds, int faults) {
    static campaign_t camp;
    campaign_t *c = &camp;
    for (unsigned i = 0; i < CAPTURED; i++) free(c->cap[i].pkt);
    memset(c, 0, sizeof *c);
    c->rng = seed;
    c->kinds = kinds;
    c->faults = faults;
    c->nranks = opt.ranks;
    printf("insider: campaign %d: seed %llu, kinds ", index, (unsigned long long)seed);
    print_kinds(stdout, kinds);
    printf("%s\n", faults ? ", TW_UDP_FAULTS on" : "");
    fflush(stdout);

    char path[] = "/tmp/insider-job-XXXXXX";
    int out = mkstemp(path);
    if (out < 0) die("mkstemp: %s", strerror(errno));
    unlink(path);
    char ranks[16], timeout[16], seconds[32], fault_seed[128];
    snprintf(ranks, sizeof ranks, "%d", opt.ranks);
    snprintf(timeout, sizeof timeout, "%d", opt.job_timeout);
    snprintf(seconds, sizeof seconds, "%g", opt.job_seconds);
    snprintf(fault_seed, sizeof fault_seed,
             "drop=0.01,duplicate=0.01,reorder=0.01,delay=0.005,delay_us=300,seed=%llu",
             (unsigned long long)(seed % 1000000007 + 1));
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(out, 1);
        dup2(out, 2);
        setenv("TW_LINK", "udp", 1);
        setenv("TW_STATS", "1", 1);
        if (faults) setenv("TW_UDP_FAULTS", fault_seed, 1);
        execl(opt.twrun, opt.twrun, "-n", ranks, "--timeout", timeout, opt.job, seconds,
              (char *)NULL);
        fprintf(stderr, "insider: cannot run %s: %s\n", opt.twrun, strerror(errno));
        _exit(127);
    }
    double started = now_s(), last_look = 0, t0 = 0;
    /* a RST ends the job: one, at a time anywhere in its run (start-up and the end too) */
    double rst_at =
        (kinds & BIT(K_RST)) ? (double)below(c, 1000) / 1000 * (opt.job_seconds + 1) : -1;
    int ready = 0, status = 0;
    uint64_t due = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        double t = now_s();
        if (!ready && t - last_look > 0.02) {
            last_look = t;
            if ((ready = find_job(c, pid))) t0 = t;
        }
        if (ready) {
            capture(c);
            uint64_t should = (uint64_t)((t - t0) * opt.rate);
            for (int burst = 0; due < should && burst < 64; burst++, due++) inject(c);
            if (rst_at >= 0 && t - t0 >= rst_at && !c->sent[K_RST])
                forge_control(c, K_RST, TW_UDP_RST);
            due = should; /* behind (a slow machine): what was not sent is not owed */
        }
        struct pollfd p = {.fd = packet_fd, .events = POLLIN};
        poll(&p, 1, 1);
    }
    while (recv(packet_fd, (char[1]){0}, 1, MSG_DONTWAIT | MSG_TRUNC) >= 0) {
    } /* what is left of this job's traffic */
    char *text = slurp(out);
    close(out);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    int verified = strstr(text, "rounds verified") != NULL;
    int named = strstr(text, "process failed: rank ") && strstr(text, " lost: ");
    /* what ahead may end in: the peer named for data it gave up, or its reset of us */
    int gave_up = strstr(text, " lost: it gave up data ") || strstr(text, " lost: it had declared");
    const char *bad = strstr(text, "CORRUPT")                ? "data corrupted"
                      : strstr(text, "Sanitizer")            ? "a sanitizer's report"
                      : strstr(text, "runtime error:")       ? "undefined behaviour"
                      : strstr(text, "was killed by signal") ? "a rank killed by a signal"
                      : code == 124                          ? "still running at --timeout (hung)"
                      : !ready                               ? "the job was not found running"
                      : code == 0 && !verified               ? "status 0 without its data verified"
                      : code != 0 && !named                  ? "an error that names no peer"
                      : code != 0 && !c->sent[K_RST] && !(c->sent[K_AHEAD] && gave_up)
                          ? "an error although no RST was sent, nor ahead"
                          : NULL;
    int outcome = bad ? FAILED : code == 0 ? COMPLETED : NAMED_ERROR;
    uint64_t total = 0;
    for (int k = 0; k < KINDS; k++) total += k == K_OWN ? 0 : c->sent[k];
    printf("insider: campaign %d: %.1f s, %llu packets captured, %llu sent (", index,
           now_s() - started, (unsigned long long)c->captured_count, (unsigned long long)total);
    const char *sep = "";
    for (int k = 0; k < KINDS; k++)
        if (c->sent[k]) {
            printf("%s%s %llu", sep, kind_names[k], (unsigned long long)c->sent[k]);
            sep = ", ";
        }
    printf("): %s\n", outcome == COMPLETED     ? "completed, data verified"
                      : outcome == NAMED_ERROR ? "ended with an error naming the peer"
                                               : "FAILED");
    if (outcome == NAMED_ERROR) {
        const char *m = strstr(text, "process failed: rank ");
        const char *e = m ? strchr(m, '\n') : NULL;
        printf("insider:   %.*s\n", m ? (int)(e ? e - m : (int)strlen(m)) : 0, m ? m : "");
    }
    if (outcome == FAILED || opt.verbose) {
        if (bad) printf("insider: campaign %d FAILED: %s (status %d)\n", index, bad, code);
        printf("---- the job's output ----\n%s---- end ----\n", text);
        if (outcome == FAILED)
            printf("insider: again: --seed %llu --campaign %d (same kinds and faults; the "
                   "job's timing differs)\n",
                   (unsigned long long)opt.seed, index);
    }
    fflush(stdout);
    free(text);
    return outcome;
}

static void usage(void) {
    fprintf(stderr,
            "usage: insider --twrun PATH --job PATH [--seed N] [--seconds S] [--job-seconds S]\n"
            "               [--ranks N] [--rate PACKETS_PER_S] [--kinds LIST|all] [--campaign C]\n"
            "               [--job-timeout S] [--verbose]\n"
            "kinds: ");
    print_kinds(stderr, BIT(KINDS) - 1);
    fprintf(stderr, "\n");
    exit(2);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--verbose")) {
            opt.verbose = 1;
            continue;
        }
        if (!v) usage();
        i++;
        if (!strcmp(a, "--twrun"))
            opt.twrun = v;
        else if (!strcmp(a, "--job"))
            opt.job = v;
        else if (!strcmp(a, "--seed"))
            opt.seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--seconds"))
            opt.seconds = atof(v);
        else if (!strcmp(a, "--job-seconds"))
            opt.job_seconds = atof(v);
        else if (!strcmp(a, "--ranks"))
            opt.ranks = atoi(v);
        else if (!strcmp(a, "--rate"))
            opt.rate = atoi(v);
        else if (!strcmp(a, "--kinds"))
            opt.kinds = parse_kinds(v);
        else if (!strcmp(a, "--campaign"))
            opt.campaign = atoi(v);
        else if (!strcmp(a, "--job-timeout"))
            opt.job_timeout = atoi(v);
        else
            usage();
    }
    if (!opt.twrun || !opt.job || opt.ranks < 2 || opt.ranks > RANKS_MAX || opt.rate < 0 ||
        opt.job_seconds <= 0 || opt.job_timeout <= 0)
        usage();
    enter_namespace();
    signal(SIGPIPE, SIG_IGN);
    printf("insider: seed %llu, %g s, %d ranks, %d packets/s\n", (unsigned long long)opt.seed,
           opt.seconds, opt.ranks, opt.rate);
    double start = now_s();
    int counts[3] = {0}, n = 0;
    for (int index = opt.campaign >= 0 ? opt.campaign : 0;; index++) {
        /* three settings in turn: clean, faults, RST; each campaign's seed from the run's.
         * Every other faults campaign goes without ahead, which ends most of them early
         * (data it acknowledged is then dropped): those must complete */
        uint64_t x = opt.seed ^ (0x5851f42d4c957f2dull * (uint64_t)(index + 1));
        uint64_t seed = splitmix(&x);
        int setting = index % 3;
        unsigned kinds = opt.kinds      ? opt.kinds
                         : setting == 2 ? DEFAULT_KINDS
                         : setting == 1 && index / 3 % 2 == 0
                             ? DEFAULT_KINDS & ~BIT(K_RST) & ~BIT(K_AHEAD)
                             : DEFAULT_KINDS & ~BIT(K_RST);
        counts[run_campaign(index, seed, kinds, setting == 1)]++;
        n++;
        if (opt.campaign >= 0 || counts[FAILED] || now_s() - start >= opt.seconds) break;
    }
    printf("insider: seed %llu: %d campaigns in %.0f s: %d completed with their data verified, "
           "%d ended with an error naming the peer, %d failed\n",
           (unsigned long long)opt.seed, n, now_s() - start, counts[COMPLETED], counts[NAMED_ERROR],
           counts[FAILED]);
    return counts[FAILED] ? 1 : 0;
}
