/* twrun: starts the ranks of a job on this machine and serves their PMI-1
 * requests; ends the whole job when any rank fails, and removes the job's
 * shared-memory objects however the job ends. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build_info.h"
#include "pmi_server.h"

enum {
    MAX_RANKS = 4096,
    EXIT_USAGE = 2,
    KILL_GRACE = 2, /* seconds between SIGTERM and SIGKILL when ending a job */
    OUT_CAP = 2 * TWR_PMI_REPLY_MAX + 64,
    OUT_RESERVE = 32, /* kept free for a barrier_out */
};

typedef struct conn {
    int fd; /* -1 when closed */
    int eof;
    int discarding; /* dropping the rest of an over-long line */
    size_t in_len, out_len;
    char in[TW_PMI_LINE_MAX];
    char out[OUT_CAP];
} conn_t;

typedef struct rank {
    pid_t pid;
    int alive;
    int space; /* the job it belongs to: 0 the first, then the spawned ones in order */
    int prank; /* its rank in that job */
    conn_t conn;
} rank_t;

/* A job of its own to the ranks in it (MPI_COMM_WORLD, the PMI key-value space and
 * barrier): the first, and one per spawn. Their ranks take the ids base .. base +
 * size - 1 among all the ranks twrun runs. */
typedef struct space {
    twr_pmi_server_t pmi;
    int base, size;
    int ubase;   /* the endpoint id of its rank 0 (base, unless in a universe) */
    int spawner; /* the id of the rank that asked for it; -1: the first job */
} space_t;

typedef struct job {
    int size;       /* ranks started so far, of every job */
    int first_size; /* those of the first job (-n) */
    space_t *spaces;
    int nspaces;
    struct pollfd *pfd; /* size + 1 entries, for serve */
    int *who;
    char id[17], key[17];
    char secret[33]; /* TW_JOB_SECRET: keys the udp link's packet MACs */
    rank_t *ranks;
    int alive;
    int ending;      /* the ranks are being ended */
    int status;      /* exit status decided so far; -1 while every rank succeeded */
    int interrupted; /* signal that interrupted twrun, or 0 */
    int kill_armed;
    struct timespec kill_at;
    int timeout;                /* seconds, 0 for none */
    const char *timeout_source; /* what set it: "--timeout" or "MPIEXEC_TIMEOUT" */
    struct timespec timeout_at;
    int bind;
    char **hosts; /* --hosts: network namespaces standing in for hosts; NULL: none */
    int nhosts;
    hwloc_topology_t topo;
    pid_t self;
    sigset_t child_mask;
    struct rlimit nofile; /* as twrun found it, for the ranks */
    int reaper_fd;        /* write end of the pipe the reaper reads ranks' pids from */
    const char *universe; /* --universe: jobs of several twruns that may connect; NULL: none */
    int registry_fd;      /* the universe's registry, or -1 */
} job_t;

static const char usage_text[] =
    "Usage: twrun [-n|-np N] [--bind-to core|none] [--timeout SECONDS] [--hosts NS,...]\n"
    "             [--] PROGRAM [ARGS...]\n"
    "Starts N ranks of PROGRAM on this machine and serves them PMI-1.\n"
    "\n"
    "  -n, -np N            number of ranks, 1 to 4096 (required)\n"
    "  --bind-to core|none  bind rank i to core i when there is a core per rank\n"
    "                       (default: core)\n"
    "  --timeout SECONDS    end the job if it runs longer (exit status 124); without it,\n"
    "                       MPIEXEC_TIMEOUT in the environment does the same\n"
    "  --hosts NS,...       place the ranks in these network namespaces (ip netns), in\n"
    "                       blocks in the order given: each stands in for a host, and\n"
    "                       ranks in different ones talk over the udp link (needs root)\n"
    "  --universe NAME      share endpoint ids and the job key with the other twruns of\n"
    "                       this user given the same NAME on this machine, so that their\n"
    "                       jobs can meet through MPI ports (MPI_Comm_connect)\n"
    "  -h, --help           print this help and exit\n"
    "  -V, --version        print the version and exit\n"
    "\n"
    "The exit status is 0 when every rank exits 0, else that of the first rank\n"
    "that failed (its exit code, or 128 + the signal that killed it).\n";

__attribute__((format(printf, 1, 2), noreturn)) static void usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("twrun: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'twrun --help' for more information.\n", stderr);
    exit(EXIT_USAGE);
}

static int parse_int(const char *s, long min, long max, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) return -1;
    *out = (int)v;
    return 0;
}

/* "ns1,ns2,...": names of network namespaces under /var/run/netns. */
static void parse_hosts(job_t *job, const char *val) {
    char *copy = strdup(val);
    if (!copy) usage_error("out of memory");
    job->nhosts = 0;
    job->hosts = calloc(strlen(val) + 1, sizeof *job->hosts);
    if (!job->hosts) usage_error("out of memory");
    for (char *save = NULL, *h = strtok_r(copy, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
        if (!*h || strchr(h, '/') || !strcmp(h, ".") || !strcmp(h, ".."))
            usage_error("--hosts takes names of network namespaces, not '%s'", h);
        job->hosts[job->nhosts++] = h;
    }
    if (job->nhosts == 0) usage_error("--hosts needs at least one network namespace");
}

/* The host (index in --hosts) of a rank: the ranks in blocks, in order. */
static int host_of(const job_t *job, int rank) {
    return (int)((long)rank * job->nhosts / job->first_size);
}

/* Returns the index of PROGRAM in argv. */
static int parse_args(job_t *job, int argc, char **argv) {
    int i = 1;
    job->size = 0;
    job->bind = 1;
    job->timeout = 0;
    for (; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0') break;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            exit(0);
        }
        if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            printf("twrun (tollway) %s\n", TW_VERSION_STRING);
            exit(0);
        }
        const char *opt = a;
        char name[32];
        const char *eq = strchr(a, '=');
        if (eq && a[1] == '-' && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            opt = name;
            val = eq + 1;
        }
        int is_n = strcmp(opt, "-n") == 0 || strcmp(opt, "-np") == 0 || strcmp(opt, "--np") == 0;
        int is_bind = strcmp(opt, "--bind-to") == 0;
        int is_timeout = strcmp(opt, "--timeout") == 0;
        int is_hosts = strcmp(opt, "--hosts") == 0;
        int is_universe = strcmp(opt, "--universe") == 0;
        if (!is_n && !is_bind && !is_timeout && !is_hosts && !is_universe)
            usage_error("unknown option '%s'", a);
        if (!val) {
            if (i + 1 >= argc) usage_error("option '%s' needs a value", opt);
            val = argv[++i];
        }
        if (is_universe) {
            size_t n = strlen(val);
            if (n == 0 || n > 64 ||
                strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                            "0123456789._-") != n)
                usage_error("--universe takes a name of letters, digits, '.', '_' and '-', "
                            "at most 64, not '%s'",
                            val);
            job->universe = val;
        } else if (is_hosts) {
            parse_hosts(job, val);
        } else if (is_n) {
            if (parse_int(val, 1, MAX_RANKS, &job->size))
                usage_error("the number of ranks must be 1 to %d, not '%s'", MAX_RANKS, val);
        } else if (is_bind) {
            if (strcmp(val, "core") == 0)
                job->bind = 1;
            else if (strcmp(val, "none") == 0)
                job->bind = 0;
            else
                usage_error("--bind-to takes 'core' or 'none', not '%s'", val);
        } else if (parse_int(val, 1, INT_MAX / 2, &job->timeout)) {
            usage_error("--timeout takes a positive number of seconds, not '%s'", val);
        }
    }
    if (job->size == 0) usage_error("the number of ranks is missing (-n N)");
    /* Hydra's variable, which test suites set to bound every job; the option wins */
    const char *env_timeout = getenv("MPIEXEC_TIMEOUT");
    job->timeout_source = job->timeout ? "--timeout" : "MPIEXEC_TIMEOUT";
    if (!job->timeout && env_timeout && parse_int(env_timeout, 1, INT_MAX / 2, &job->timeout))
        usage_error("MPIEXEC_TIMEOUT must be a positive number of seconds, not '%s'", env_timeout);
    if (job->universe && job->hosts)
        usage_error("--universe and --hosts do not go together: jobs meet over shared memory");
    if (job->nhosts > job->size)
        usage_error("%d hosts for %d ranks: a host would have none", job->nhosts, job->size);
    if (i >= argc) usage_error("the program to run is missing");
    return i;
}

/* 2 * bytes random lowercase hex digits into out (which holds them and a '\0'). */
static void random_hex_of(char *out, size_t bytes) {
    unsigned char v[16];
    size_t got = 0;
    while (got < bytes) {
        ssize_t n = getrandom(v + got, bytes - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            fprintf(stderr, "twrun: getrandom: %s\n", strerror(errno));
            exit(1);
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < bytes; i++) sprintf(out + 2 * i, "%02x", v[i]);
}

static void random_hex(char out[17]) {
    random_hex_of(out, 8);
}

static const char *sig_name(int sig, char *buf, size_t cap) {
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, cap, "SIG%s", abbrev);
    else
        snprintf(buf, cap, "signal %d", sig);
    return buf;
}

static struct timespec now_plus(int seconds) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += seconds;
    return t;
}

/* Milliseconds until t (at least 0, rounded up). */
static long ms_until(struct timespec t) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ns = (long long)(t.tv_sec - now.tv_sec) * 1000000000LL + (t.tv_nsec - now.tv_nsec);
    if (ns <= 0) return 0;
    long long ms = (ns + 999999) / 1000000;
    return ms > INT_MAX ? INT_MAX : (long)ms;
}

static void signal_ranks(job_t *job, int sig) {
    for (int i = 0; i < job->size; i++)
        if (job->ranks[i].alive) kill(job->ranks[i].pid, sig);
}

/* Ends the job: sig now, SIGKILL to whatever is left KILL_GRACE seconds later. */
static void end_job(job_t *job, int sig) {
    if (!job->ending) {
        job->ending = 1;
        job->kill_armed = 1;
        job->kill_at = now_plus(KILL_GRACE);
    }
    signal_ranks(job, sig);
}

static void fail(job_t *job, int status) {
    if (job->status < 0) job->status = status;
    end_job(job, SIGTERM);
}

/* ---- PMI connections ---- */

static void conn_close(conn_t *c) {
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    c->in_len = c->out_len = 0;
}

static void conn_append(rank_t *r, const char *data, size_t len) {
    conn_t *c = &r->conn;
    if (c->fd < 0 || !r->alive) return; /* nobody will read it */
    if (len > sizeof c->out - c->out_len) {
        /* Cannot happen while lines are only handled with room to answer them;
         * a client this far out of step has lost the protocol. */
        conn_close(c);
        return;
    }
    memcpy(c->out + c->out_len, data, len);
    c->out_len += len;
}

static int conn_has_room(const rank_t *r) {
    return !r->alive || r->conn.out_len + TWR_PMI_REPLY_MAX + OUT_RESERVE <= OUT_CAP;
}

static void conn_flush(conn_t *c) {
    size_t off = 0;
    while (c->fd >= 0 && off < c->out_len) {
        ssize_t n = send(c->fd, c->out + off, c->out_len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n <= 0) {
            conn_close(c);
            return;
        }
        off += (size_t)n;
    }
    if (c->fd < 0) return;
    memmove(c->out, c->out + off, c->out_len - off);
    c->out_len -= off;
}

static const char *rank_name(const job_t *job, int rank, char *buf, size_t cap);

static void on_abort(job_t *job, int rank, int code) {
    if (job->ending) return;
    char who[64];
    fprintf(stderr, "twrun: %s called abort with code %d\n", rank_name(job, rank, who, sizeof who),
            code);
    fail(job, code);
}

static void spawn(job_t *job, int rank, const tw_pmi_spawn_t *sp, twr_pmi_result_t *reply);

static void act(job_t *job, int rank, const twr_pmi_result_t *res) {
    switch (res->action) {
    case TWR_PMI_REPLY:
    case TWR_PMI_FINALIZED:
        conn_append(&job->ranks[rank], res->reply, res->len);
        break;
    case TWR_PMI_WAIT:
        break;
    case TWR_PMI_BARRIER_DONE: {
        const space_t *sp = &job->spaces[job->ranks[rank].space];
        for (int i = sp->base; i < sp->base + sp->size; i++)
            conn_append(&job->ranks[i], res->reply, res->len);
        break;
    }
    case TWR_PMI_ABORT:
        on_abort(job, rank, res->abort_code);
        break;
    case TWR_PMI_SPAWN: {
        twr_pmi_result_t reply;
        spawn(job, rank, &res->spawn, &reply);
        conn_append(&job->ranks[rank], reply.reply, reply.len);
        break;
    }
    }
}

/* Handles the complete lines buffered from rank, as far as there is room for
 * the replies. */
static void conn_process(job_t *job, int rank) {
    rank_t *r = &job->ranks[rank];
    conn_t *c = &r->conn;
    static twr_pmi_result_t res; /* large: a spawn request in it */
    while (c->fd >= 0) {
        char *nl = memchr(c->in, '\n', c->in_len);
        size_t used;
        if (c->discarding) {
            if (!nl) {
                c->in_len = 0;
                return;
            }
            c->discarding = 0;
            used = (size_t)(nl - c->in) + 1;
        } else if (!nl) {
            if (c->in_len < sizeof c->in || !conn_has_room(r)) return;
            twr_pmi_line_too_long(&res);
            act(job, rank, &res);
            c->discarding = 1;
            used = c->in_len;
        } else {
            if (!conn_has_room(r)) return;
            used = (size_t)(nl - c->in) + 1;
            twr_pmi_handle(&job->spaces[r->space].pmi, r->prank, c->in, used - 1, &res);
            act(job, rank, &res);
        }
        if (c->fd < 0) return;
        memmove(c->in, c->in + used, c->in_len - used);
        c->in_len -= used;
    }
}

/* Reads what rank has sent, until the buffer is full or nothing is left.
 * Returns whether anything was read. */
static int conn_read(conn_t *c) {
    int got = 0;
    while (c->fd >= 0 && !c->eof && c->in_len < sizeof c->in) {
        ssize_t n = recv(c->fd, c->in + c->in_len, sizeof c->in - c->in_len, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n <= 0) {
            c->eof = 1;
            break;
        }
        c->in_len += (size_t)n;
        got = 1;
    }
    return got;
}

/* Whether a buffered line waits to be handled (an over-long one included). */
static int conn_pending(const conn_t *c) {
    return c->in_len == sizeof c->in || memchr(c->in, '\n', c->in_len) != NULL;
}

static void conn_service(job_t *job, int rank, short revents) {
    conn_t *c = &job->ranks[rank].conn;
    if (revents & (POLLIN | POLLHUP | POLLERR)) conn_read(c);
    conn_flush(c);
    /* Poll wakes us again for more input or for room to write, but not for lines
     * already buffered: handle those until the replies back up. */
    do {
        conn_process(job, rank);
        conn_flush(c);
    } while (c->fd >= 0 && c->out_len == 0 && conn_pending(c));
    if (c->fd < 0 || !c->eof) return;
    if ((c->out_len == 0 && !conn_pending(c)) || (revents & (POLLHUP | POLLERR))) conn_close(c);
}

/* ---- ranks ---- */

static void bind_to_core(job_t *job, int rank) {
    unsetenv("TW_BOUND_CORE");
    if (!job->topo) return;
    hwloc_obj_t core = hwloc_get_obj_by_type(job->topo, HWLOC_OBJ_CORE, (unsigned)rank);
    if (!core || !core->cpuset) return;
    if (hwloc_set_cpubind(job->topo, core->cpuset, HWLOC_CPUBIND_PROCESS) != 0) return;
    char v[16];
    snprintf(v, sizeof v, "%d", rank);
    setenv("TW_BOUND_CORE", v, 1);
}

static void setenv_int(const char *name, int v) {
    char s[16];
    snprintf(s, sizeof s, "%d", v);
    setenv(name, s, 1);
}

/* What a spawned rank is told besides (TWRUN_*: not settings of the user's, the
 * library reads them only when twrun sets them); NULL for the first job's. */
typedef struct spawned {
    const char *port;
    const char *wdir;
    int appnum;
} spawned_t;

__attribute__((noreturn)) static void run_rank(job_t *job, int rank, int fd, char *const *argv,
                                               const spawned_t *sp) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != job->self) _exit(127); /* twrun died before the line above */
    sigprocmask(SIG_SETMASK, &job->child_mask, NULL);
    setrlimit(RLIMIT_NOFILE, &job->nofile);
    fcntl(fd, F_SETFD, 0);
    if (rank > 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0 && null != STDIN_FILENO) {
            dup2(null, STDIN_FILENO);
            close(null);
        }
    }
    const space_t *space = &job->spaces[job->ranks[rank].space];
    setenv_int("PMI_FD", fd);
    setenv_int("PMI_RANK", job->ranks[rank].prank);
    setenv_int("PMI_SIZE", space->size);
    if (space->ubase > 0) setenv_int("TWRUN_UNIVERSE_BASE", space->ubase);
    if (sp) {
        setenv_int("TWRUN_APPNUM", sp->appnum);
        setenv("TWRUN_PARENT_PORT", sp->port, 1);
        if (sp->wdir && chdir(sp->wdir) != 0) {
            fprintf(stderr, "twrun: cannot enter '%s': %s\n", sp->wdir, strerror(errno));
            _exit(127);
        }
    }
    setenv("TW_JOB_ID", job->id, 1);
    setenv("TW_JOB_KEY", job->key, 1);
    setenv("TW_JOB_SECRET", job->secret, 1);
    int local_rank = job->ranks[rank].prank, local_size = space->size;
    if (job->hosts && !sp) {
        int h = host_of(job, rank), first = rank;
        while (first > 0 && host_of(job, first - 1) == h) first--;
        local_rank = rank - first;
        for (local_size = 0;
             first + local_size < job->first_size && host_of(job, first + local_size) == h;)
            local_size++;
        char path[300];
        snprintf(path, sizeof path, "/var/run/netns/%s", job->hosts[h]);
        int ns = open(path, O_RDONLY | O_CLOEXEC);
        if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) {
            fprintf(stderr, "twrun: rank %d: cannot enter network namespace '%s': %s\n", rank,
                    job->hosts[h], strerror(errno));
            _exit(127);
        }
        close(ns);
    }
    setenv_int("TW_LOCAL_RANK", local_rank);
    setenv_int("TW_LOCAL_SIZE", local_size);
    if (sp) /* the first job's ranks have the cores */
        unsetenv("TW_BOUND_CORE");
    else
        bind_to_core(job, rank);
    execvp(argv[0], argv);
    fprintf(stderr, "twrun: cannot execute '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
}

static void reaper_watch(job_t *job, pid_t pid);

static int start_rank(job_t *job, int rank, char *const *argv, const spawned_t *sp) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(sv[0]);
        close(sv[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) run_rank(job, rank, sv[1], argv, sp);
    close(sv[1]);
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    rank_t *r = &job->ranks[rank];
    r->pid = pid;
    reaper_watch(job, pid);
    r->alive = 1;
    r->conn.fd = sv[0];
    job->alive++;
    return 0;
}

/* "rank R" in the first job, "rank R of spawned job J" in another. */
static const char *rank_name(const job_t *job, int rank, char *buf, size_t cap) {
    const rank_t *r = &job->ranks[rank];
    if (r->space == 0)
        snprintf(buf, cap, "rank %d", r->prank);
    else
        snprintf(buf, cap, "rank %d of spawned job %d", r->prank, r->space);
    return buf;
}

static int universe_take(job_t *job, int size);

/* Starts the job a rank asked for (MPI_Comm_spawn): a PMI job of its own, its ranks
 * taking the next ids. Every command is checked before any process starts, so a
 * spawn that cannot run is refused whole, and the asking rank learns which command. */
static void spawn(job_t *job, int rank, const tw_pmi_spawn_t *sp, twr_pmi_result_t *reply) {
    if (job->ending) {
        twr_pmi_spawn_reply(reply, 0, 0, "job_ending", -1);
        return;
    }
    if (sp->total > MAX_RANKS - job->size) {
        twr_pmi_spawn_reply(reply, 0, 0, "too_many_processes", -1);
        return;
    }
    for (int k = 0; k < sp->ncmds; k++) {
        const char *wdir = sp->cmd[k].wdir;
        struct stat st;
        if (wdir && (stat(wdir, &st) != 0 || !S_ISDIR(st.st_mode))) {
            twr_pmi_spawn_reply(reply, 0, 0, "no_such_directory", k);
            return;
        }
        if (!tw_pmi_spawn_can_execute(sp->cmd[k].argv[0], wdir)) {
            twr_pmi_spawn_reply(reply, 0, 0, "no_such_command", k);
            return;
        }
    }
    space_t *space = &job->spaces[job->nspaces];
    char id[48];
    snprintf(id, sizeof id, "%s.%d", job->id, job->nspaces);
    if (twr_pmi_server_init(&space->pmi, sp->total, id) != 0) {
        twr_pmi_spawn_reply(reply, 0, 0, "out_of_memory", -1);
        return;
    }
    space->base = job->size;
    space->size = sp->total;
    space->spawner = rank;
    space->ubase = job->universe ? universe_take(job, sp->total) : job->size;
    if (space->ubase < 0) {
        twr_pmi_server_destroy(&space->pmi);
        twr_pmi_spawn_reply(reply, 0, 0, "universe_full", -1);
        return;
    }
    int which = job->nspaces++, first = job->size;
    fflush(NULL);
    for (int k = 0, next = first; k < sp->ncmds; k++) {
        spawned_t info = {.port = sp->port, .wdir = sp->cmd[k].wdir, .appnum = k};
        for (int i = 0; i < sp->cmd[k].maxprocs; i++, next++) {
            job->ranks[next].conn.fd = -1;
            job->ranks[next].space = which;
            job->ranks[next].prank = next - first;
            job->size = next + 1;
            if (start_rank(job, next, (char *const *)sp->cmd[k].argv, &info) != 0) {
                fprintf(stderr,
                        "twrun: cannot start rank %d of spawned job %d: %s; ending the job\n",
                        next - first, which, strerror(errno));
                fail(job, 1);
                twr_pmi_spawn_reply(reply, 0, 0, "cannot_start", k);
                return;
            }
        }
    }
    twr_pmi_spawn_reply(reply, space->ubase, sp->total, NULL, 0);
}

static void rank_exited(job_t *job, int rank, int wstatus) {
    rank_t *r = &job->ranks[rank];
    char who[64];
    rank_name(job, rank, who, sizeof who);
    /* What the rank said before it went (an abort, most often) comes first. */
    r->alive = 0;
    job->alive--;
    conn_t *c = &r->conn;
    for (;;) {
        int got = conn_read(c);
        conn_process(job, rank); /* has room always: the replies are dropped */
        if (!got) break;
    }
    conn_close(c);
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return;
    if (job->ending) return;
    if (WIFEXITED(wstatus)) {
        fprintf(stderr, "twrun: %s (pid %ld) exited with status %d; ending the job\n", who,
                (long)r->pid, WEXITSTATUS(wstatus));
        fail(job, WEXITSTATUS(wstatus));
    } else {
        int sig = WTERMSIG(wstatus);
        char name[32];
        fprintf(stderr, "twrun: %s (pid %ld) was killed by signal %d (%s); ending the job\n", who,
                (long)r->pid, sig, sig_name(sig, name, sizeof name));
        fail(job, 128 + sig);
    }
}

static void reap(job_t *job) {
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid < 0 && errno == EINTR) continue;
        if (pid <= 0) return;
        if (!WIFEXITED(st) && !WIFSIGNALED(st)) continue;
        for (int i = 0; i < job->size; i++)
            if (job->ranks[i].alive && job->ranks[i].pid == pid) {
                rank_exited(job, i, st);
                break;
            }
    }
}

/* A barrier that some ranks wait in can never complete once every rank still
 * running waits in it: a rank that would have entered has exited. */
static void check_barrier(job_t *job) {
    for (int k = 0; k < job->nspaces && !job->ending; k++) {
        const space_t *sp = &job->spaces[k];
        if (sp->pmi.barrier_count == 0) continue;
        int missing = -1, waiting = 1;
        for (int i = 0; i < sp->size && waiting; i++) {
            if (twr_pmi_in_barrier(&sp->pmi, i)) continue;
            if (job->ranks[sp->base + i].alive) waiting = 0;
            if (missing < 0) missing = sp->base + i;
        }
        if (!waiting || missing < 0) continue;
        char who[64];
        fprintf(stderr,
                "twrun: %s (pid %ld) exited without entering the PMI barrier the other ranks "
                "wait in; ending the job\n",
                rank_name(job, missing, who, sizeof who), (long)job->ranks[missing].pid);
        fail(job, 1);
    }
}

static void on_signal(job_t *job, int sig) {
    if (!job->interrupted) {
        char name[32];
        fprintf(stderr, "twrun: interrupted by %s; ending the job\n",
                sig_name(sig, name, sizeof name));
        job->interrupted = sig;
    }
    end_job(job, sig);
}

static void read_signals(job_t *job, int sfd) {
    struct signalfd_siginfo si[16];
    int child = 0;
    for (;;) {
        ssize_t n = read(sfd, si, sizeof si);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        for (size_t k = 0; k < (size_t)n / sizeof si[0]; k++) {
            if (si[k].ssi_signo == SIGCHLD)
                child = 1;
            else
                on_signal(job, (int)si[k].ssi_signo);
        }
    }
    if (child) reap(job);
}

/* Whether the object named rest ("ep<index>-<id>" or "heap<index>-<id>-<n>" after the
 * job's prefix) belongs to an endpoint of this twrun's: in a universe the job id is
 * shared, and another twrun's objects stay. */
static int ours(const job_t *job, const char *rest) {
    if (!job->universe) return 1;
    int index, id;
    if (sscanf(rest, "ep%d-%d", &index, &id) != 2 && sscanf(rest, "heap%d-%d-", &index, &id) != 2)
        return 0;
    for (int k = 0; k < job->nspaces; k++)
        if (id >= job->spaces[k].ubase && id - job->spaces[k].ubase < job->spaces[k].size) return 1;
    return 0;
}

/* Removes /dev/shm/tw-<jobid>-*: the library names every segment of the job so. */
static void remove_job_shm(const job_t *job) {
    char prefix[32];
    int plen = snprintf(prefix, sizeof prefix, "tw-%s-", job->id);
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, (size_t)plen) == 0 && ours(job, e->d_name + plen))
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}

/* ---- the universe registry ---- */

/* /dev/shm/tollway-universe-<uid>-<name>, under flock: the universe's job id, key and
 * secret, and the endpoint ids each live twrun took. */
enum { REGISTRY_SLOTS = 1024 };
typedef struct registry {
    uint64_t magic;
    char id[17], key[17], secret[33];
    int32_t next; /* the next id to hand out: ids are never handed out twice while the
                     universe lasts, since its jobs may still know the endpoints */
    struct {
        int32_t base, size, pid;
    } slot[REGISTRY_SLOTS];
} registry_t;
#define REGISTRY_MAGIC 0x7477756e69763032ull /* "twuniv02" */

static void registry_path(const job_t *job, char *path, size_t cap) {
    snprintf(path, cap, "/dev/shm/tollway-universe-%ld-%s", (long)getuid(), job->universe);
}

/* Opens and locks the registry (made on first use); fills reg. -1 on failure. */
static int registry_lock(job_t *job, registry_t *reg) {
    char path[160];
    registry_path(job, path, sizeof path);
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0) return -1;
        struct stat st;
        if (flock(fd, LOCK_EX) != 0 || fstat(fd, &st) != 0) {
            close(fd);
            return -1;
        }
        if (st.st_nlink == 0) { /* removed by its last user while we waited */
            close(fd);
            continue;
        }
        memset(reg, 0, sizeof *reg);
        ssize_t n = pread(fd, reg, sizeof *reg, 0);
        if (n != (ssize_t)sizeof *reg || reg->magic != REGISTRY_MAGIC) {
            if (n > 0 && n != (ssize_t)sizeof *reg) {
                fprintf(stderr, "twrun: %s is not a universe registry\n", path);
                close(fd);
                return -1;
            }
            memset(reg, 0, sizeof *reg);
            reg->magic = REGISTRY_MAGIC;
            random_hex(reg->id);
            random_hex(reg->key);
            random_hex_of(reg->secret, 16);
        }
        job->registry_fd = fd;
        return 0;
    }
    return -1;
}

static void registry_unlock(job_t *job, const registry_t *reg) {
    int live = 0;
    for (int i = 0; i < REGISTRY_SLOTS; i++) live += reg->slot[i].size > 0;
    if (!live) {
        char path[160];
        registry_path(job, path, sizeof path);
        unlink(path); /* the last one out: nothing of the universe is left */
    } else if (pwrite(job->registry_fd, reg, sizeof *reg, 0) != (ssize_t)sizeof *reg) {
        fprintf(stderr, "twrun: cannot write the universe registry: %s\n", strerror(errno));
    }
    close(job->registry_fd);
    job->registry_fd = -1;
}

/* The lowest id from which size ids are free in the universe, taken for this twrun;
 * -1 when the registry cannot be used or is full. */
static int universe_take(job_t *job, int size) {
    registry_t reg;
    if (registry_lock(job, &reg)) return -1;
    int free_slot = -1;
    for (int i = 0; i < REGISTRY_SLOTS; i++) {
        if (reg.slot[i].size > 0 && reg.slot[i].pid != job->self && kill(reg.slot[i].pid, 0) != 0 &&
            errno == ESRCH)
            reg.slot[i].size = 0; /* its twrun is gone */
        if (reg.slot[i].size <= 0 && free_slot < 0) free_slot = i;
    }
    int base = reg.next;
    if (free_slot < 0 || base > (1 << 29)) base = -1;
    if (base >= 0) {
        reg.next += size;
        reg.slot[free_slot].base = base;
        reg.slot[free_slot].size = size;
        reg.slot[free_slot].pid = job->self;
    }
    memcpy(job->id, reg.id, sizeof job->id);
    memcpy(job->key, reg.key, sizeof job->key);
    memcpy(job->secret, reg.secret, sizeof job->secret);
    registry_unlock(job, &reg);
    return base;
}

/* Gives back the ids this twrun took. */
static void universe_leave(job_t *job) {
    registry_t reg;
    if (!job->universe || registry_lock(job, &reg)) return;
    for (int i = 0; i < REGISTRY_SLOTS; i++)
        if (reg.slot[i].size > 0 && reg.slot[i].pid == job->self) reg.slot[i].size = 0;
    registry_unlock(job, &reg);
}

/* A process of its own that outlives twrun, so the job's shared memory goes however
 * twrun ends, SIGKILL included: it reads the ranks' pids from a pipe until twrun
 * closes it (by ending), waits until every rank is gone (they die with twrun, by
 * their parent-death signal) and removes the job's objects. A grandchild in its own
 * session: twrun's waitpid never sees it, and a signal to twrun's group misses it. */
static void start_reaper(job_t *job) {
    job->reaper_fd = -1;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return;
    pid_t mid = fork();
    if (mid == 0) {
        if (fork() != 0) _exit(0);
        setsid();
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGINT, SIG_IGN); /* ^C reaches the terminal's group; not ours, but be sure */
        signal(SIGHUP, SIG_IGN);
        /* it holds nothing of twrun's caller (a terminal, a pipe someone reads to EOF) */
        if (dup2(p[0], 3) != 3) _exit(1);
        p[0] = 3;
        for (int fd = 0; fd < 3; fd++) close(fd);
        closefrom(4);
        pid_t *pids = malloc((size_t)MAX_RANKS * sizeof *pids); /* spawned ranks too */
        size_t n = 0, got = 0, cap = (size_t)MAX_RANKS * sizeof *pids;
        char *at = (char *)pids, past;
        ssize_t r;
        /* until twrun ends (EOF), also once every pid has come: the wait below is
         * bounded, and a job that outlived it would lose its names while running */
        while (pids &&
               (r = got < cap ? read(p[0], at + got, cap - got) : read(p[0], &past, 1)) != 0) {
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) break;
            if (got < cap) got += (size_t)r;
        }
        n = got / sizeof *pids;
        /* the ranks end by SIGKILL as twrun does; bounded, as a pid can be reused */
        for (int tries = 0; tries < 3000; tries++) {
            size_t alive = 0;
            for (size_t i = 0; i < n; i++) alive += kill(pids[i], 0) == 0 || errno != ESRCH;
            if (!alive) break;
            struct timespec pause = {0, 10 * 1000 * 1000};
            nanosleep(&pause, NULL);
        }
        remove_job_shm(job);
        _exit(0);
    }
    close(p[0]);
    if (mid < 0) {
        close(p[1]);
        return;
    }
    while (waitpid(mid, NULL, 0) < 0 && errno == EINTR) {
    }
    job->reaper_fd = p[1];
}

/* Tells the reaper a rank's pid (nothing when there is no reaper). */
static void reaper_watch(job_t *job, pid_t pid) {
    if (job->reaper_fd < 0) return;
    ssize_t w;
    do w = write(job->reaper_fd, &pid, sizeof pid);
    while (w < 0 && errno == EINTR);
}

/* Descriptors 0-2 must be open, so no socket lands there and is clobbered by
 * stdin redirection in a rank. */
static void ensure_std_fds(void) {
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0) {
            int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
            if (n >= 0 && n != fd) {
                dup2(n, fd);
                close(n);
            }
        }
}

/* twrun holds a socket per rank; the usual soft limit of 1024 is too few for
 * large jobs. */
static void raise_fd_limit(job_t *job) {
    if (getrlimit(RLIMIT_NOFILE, &job->nofile) != 0) {
        job->nofile.rlim_cur = job->nofile.rlim_max = RLIM_INFINITY;
        return;
    }
    rlim_t want = (rlim_t)job->size + 64 + 256; /* and some spawned ranks */
    if (job->nofile.rlim_cur != RLIM_INFINITY && job->nofile.rlim_cur < want) {
        struct rlimit more = job->nofile;
        more.rlim_cur =
            more.rlim_max == RLIM_INFINITY || more.rlim_max > want ? want : more.rlim_max;
        setrlimit(RLIMIT_NOFILE, &more);
    }
}

static void load_topology(job_t *job) {
    job->topo = NULL;
    if (!job->bind) return;
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0) return;
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return;
    }
    int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    if (cores <= 0 || job->size > cores) { /* oversubscribed: let the kernel place ranks */
        hwloc_topology_destroy(t);
        return;
    }
    job->topo = t;
}

static void serve(job_t *job, int sfd) {
    struct pollfd *pfd = job->pfd;
    int *who = job->who;
    while (job->alive > 0) {
        int n = 0;
        pfd[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
        for (int i = 0; i < job->size; i++) {
            conn_t *c = &job->ranks[i].conn;
            if (c->fd < 0) continue;
            short ev = 0;
            if (!c->eof && c->in_len < sizeof c->in) ev |= POLLIN;
            if (c->out_len > 0) ev |= POLLOUT;
            who[n] = i;
            pfd[n++] = (struct pollfd){.fd = c->fd, .events = ev};
        }
        long wait_ms = -1;
        if (job->timeout && !job->ending) wait_ms = ms_until(job->timeout_at);
        if (job->kill_armed) {
            long k = ms_until(job->kill_at);
            if (wait_ms < 0 || k < wait_ms) wait_ms = k;
        }
        int rc = poll(pfd, (nfds_t)n, (int)wait_ms);
        if (rc < 0 && errno != EINTR) {
            fprintf(stderr, "twrun: poll: %s\n", strerror(errno));
            fail(job, 1);
        }
        for (int k = 1; rc > 0 && k < n; k++)
            if (pfd[k].revents) conn_service(job, who[k], pfd[k].revents);
        /* Signals after the sockets, so a rank's last words are read before its exit. */
        read_signals(job, sfd);
        check_barrier(job);
        if (job->timeout && !job->ending && ms_until(job->timeout_at) == 0) {
            fprintf(stderr, "twrun: job exceeded %s %d s; ending it\n", job->timeout_source,
                    job->timeout);
            fail(job, 124);
        }
        if (job->kill_armed && ms_until(job->kill_at) == 0) {
            job->kill_armed = 0;
            signal_ranks(job, SIGKILL);
        }
    }
}

int main(int argc, char **argv) {
    static job_t job_storage;
    job_t *job = &job_storage;
    int prog = parse_args(job, argc, argv);
    ensure_std_fds();
    job->status = -1;
    job->self = getpid();
    random_hex(job->id);
    random_hex(job->key);
    random_hex_of(job->secret, 16);
    job->registry_fd = -1;
    int first_base = 0; /* in a universe: the id of rank 0, and its id, key and secret */
    if (job->universe && (first_base = universe_take(job, job->size)) < 0) {
        fprintf(stderr, "twrun: cannot take ids in universe '%s'\n", job->universe);
        return 1;
    }

    sigset_t mask;
    sigemptyset(&mask);
    int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&mask, sigs[i]);
    if (sigprocmask(SIG_BLOCK, &mask, &job->child_mask) != 0) {
        fprintf(stderr, "twrun: sigprocmask: %s\n", strerror(errno));
        return 1;
    }
    int sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0) {
        fprintf(stderr, "twrun: signalfd: %s\n", strerror(errno));
        return 1;
    }
    /* room for every rank it may start, spawned ones too: nothing moves while it runs */
    job->ranks = calloc(MAX_RANKS, sizeof *job->ranks);
    job->pfd = calloc(MAX_RANKS + 1, sizeof *job->pfd);
    job->who = calloc(MAX_RANKS + 1, sizeof *job->who);
    job->spaces = calloc(MAX_RANKS, sizeof *job->spaces);
    job->first_size = job->size;
    if (!job->ranks || !job->pfd || !job->who || !job->spaces ||
        twr_pmi_server_init(&job->spaces[0].pmi, job->size, job->id) != 0) {
        fprintf(stderr, "twrun: out of memory\n");
        return 1;
    }
    job->spaces[0] =
        (space_t){.pmi = job->spaces[0].pmi, .size = job->size, .ubase = first_base, .spawner = -1};
    job->nspaces = 1;
    for (int i = 0; i < job->size; i++) job->ranks[i].conn.fd = -1; /* the rest: as started */
    for (int i = 0; i < job->size; i++) job->ranks[i].prank = i;
    raise_fd_limit(job);
    load_topology(job);
    if (job->timeout) job->timeout_at = now_plus(job->timeout);

    fflush(NULL); /* nothing buffered may be written twice by the ranks */
    start_reaper(job);
    for (int i = 0; i < job->size; i++)
        if (start_rank(job, i, argv + prog, NULL) != 0) {
            fprintf(stderr, "twrun: cannot start rank %d: %s; ending the job\n", i,
                    strerror(errno));
            fail(job, 1);
            break;
        }

    serve(job, sfd);

    remove_job_shm(job);
    universe_leave(job);
    for (int i = 0; i < job->size; i++) conn_close(&job->ranks[i].conn);
    free(job->ranks);
    free(job->pfd);
    free(job->who);
    for (int k = 0; k < job->nspaces; k++) twr_pmi_server_destroy(&job->spaces[k].pmi);
    free(job->spaces);
    if (job->topo) hwloc_topology_destroy(job->topo);
    close(sfd);
    if (job->interrupted) return 128 + job->interrupted;
    return job->status < 0 ? 0 : job->status;
}
