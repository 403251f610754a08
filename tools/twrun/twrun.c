/* twrun: starts the ranks of a job on this machine and serves their PMI-1
 * requests; ends the whole job when any rank fails, and removes the job's
 * shared-memory objects however the job ends. Inside a Slurm allocation it runs srun
 * instead (run_srun). */
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

#include "abi.h"
#include "build_info.h"
#include "common/deadline.h"
#include "options.h"
#include "output.h"
#include "pmi_server.h"

enum {
    MAX_RANKS = TWR_MAX_RANKS,
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
    int slots;      /* MPI_UNIVERSE_SIZE of every job: twr_options_slots */
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
    const twr_options_t *opt;
    int *host;              /* of each rank of the first job, an index in opt->hosts (namespaces) */
    int forwarded;          /* the ranks' output comes through twrun (output.h says when) */
    twr_stream_t **streams; /* when forwarded: stdout and stderr of each rank, as started */
    hwloc_topology_t topo;
    hwloc_obj_type_t bind_type; /* a core or a hardware thread per rank */
    int bind_objs;              /* how many there are; fewer than ranks: shared in turn */
    pid_t self;
    sigset_t child_mask;
    struct rlimit nofile;   /* as twrun found it, for the ranks */
    int reaper_fd;          /* write end of the pipe the reaper reads ranks' pids from */
    const char *universe;   /* --universe: jobs of several twruns that may connect; NULL: none */
    int registry_fd;        /* the universe's registry, or -1 */
    twr_abi_plan_t *abi;    /* of each program (segment): how it is started; NULL: TW_ABI=off */
    char abi_dir[PATH_MAX]; /* the faces directory; "" when not found */
} job_t;

__attribute__((format(printf, 1, 2), noreturn)) static void usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("twrun: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'twrun --help' for more information.\n", stderr);
    exit(EXIT_USAGE);
}

extern char **environ;

/* The CPUs twrun may run on (its affinity mask, as nproc counts them): the slots of this
 * machine when no host is given. */
static int cpus_here(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* True when fd is a regular file. A rank is not handed one as its stdout or stderr:
 * gfortran buffers a unit on a regular file (and on nothing else), so a Fortran
 * program's lines would come after the C lines it wrote later, and be lost when the
 * job ends by MPI_Abort or a signal. Through a pipe, as under MPICH's and Open MPI's
 * launchers, they come in the order written. */
static int regular_file(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads the command line into job->opt; exits on help, version or an error. */
static void parse_args(job_t *job, int argc, char **argv) {
    static twr_options_t opt;
    char err[TWR_ERR_MAX];
    if (twr_options_parse(&opt, argc, argv, environ, err)) usage_error("%s", err);
    if (opt.help) {
        fputs(twr_usage_text, stdout);
        exit(0);
    }
    if (opt.version) {
        printf("twrun (tollway) %s\n", TW_VERSION_STRING);
        exit(0);
    }
    job->opt = &opt;
    job->size = opt.size;
    job->timeout = opt.timeout;
    job->timeout_source = opt.timeout_source;
    job->universe = opt.universe;
    job->forwarded = opt.tag_output || opt.output_dir || regular_file(STDOUT_FILENO) ||
                     regular_file(STDERR_FILENO);
}

static char *path_of(const twr_options_t *o, const twr_segment_t *seg);

static void set_path(const char *path) {
    if (path)
        setenv("PATH", path, 1);
    else
        unsetenv("PATH");
}

/* Every program can be found before any rank starts: a job is never half started for
 * a typing mistake. Exits 127, as a shell does, when one cannot. */
static void check_programs(const twr_options_t *o) {
    for (int k = 0; k < o->nsegments; k++) {
        const twr_segment_t *s = &o->segments[k];
        /* looked for along the PATH the ranks will have, as execvp will */
        char *mine = getenv("PATH") ? strdup(getenv("PATH")) : NULL, *theirs = path_of(o, s);
        set_path(theirs);
        int found = tw_pmi_spawn_can_execute(s->argv[0], s->wdir);
        set_path(mine);
        free(mine);
        free(theirs);
        if (found) continue;
        char which[64] = "";
        if (o->nsegments > 1) snprintf(which, sizeof which, " (program %d of the job)", k + 1);
        int slash = strchr(s->argv[0], '/') != NULL;
        fprintf(stderr, "twrun: cannot execute '%s'%s: %s%s%s\n", s->argv[0], which,
                slash ? "no executable file there" : "not found in PATH",
                slash && s->wdir && s->argv[0][0] != '/' ? ", from " : "",
                slash && s->wdir && s->argv[0][0] != '/' ? s->wdir : "");
        exit(127);
    }
}

/* Prepends value to the variable name, ':'-separated (set alone when it was unset). */
static void prepend_env(const char *name, const char *value) {
    const char *old = getenv(name);
    if (!old || !*old) {
        setenv(name, value, 1);
        return;
    }
    char *both = NULL;
    if (asprintf(&both, "%s:%s", value, old) < 0) _exit(127);
    setenv(name, both, 1);
    free(both);
}

/* TW_ABI from twrun's environment: whether programs are checked (auto, the default). */
static int abi_checks(void) {
    const char *v = getenv("TW_ABI");
    const tw_setting_info_t *in = tw_setting_info(TW_SETTING_ABI);
    if (!v) return 1;
    for (size_t k = 0; k < in->nchoices; k++)
        if (!strcmp(v, in->choices[k])) return k == TW_ABI_AUTO;
    usage_error("TW_ABI must be auto or off, not '%s'", v);
}

static twr_env_policy_t env_plan(const twr_options_t *o, const twr_segment_t *seg,
                                 twr_env_var_t **keep, int *m);

/* Before any rank starts: which MPI each program was built for (abi.h). A program no
 * face serves ends twrun with EXIT_USAGE and one message, never a job of ranks that
 * each run alone; one a face serves gets it on its ranks' library path (apply_abi),
 * and so does one whose ELF needs no MPI (a python whose module may need a face).
 * A program not found here (srun may find it on the nodes) is left unchecked. */
static void plan_programs(job_t *job) {
    const twr_options_t *o = job->opt;
    if (!abi_checks()) {
        if (o->verbose) fprintf(stderr, "twrun: TW_ABI=off: programs start unchecked\n");
        return;
    }
    if (tw_abi_faces_dir(job->abi_dir, sizeof job->abi_dir)) job->abi_dir[0] = '\0';
    job->abi = calloc((size_t)o->nsegments, sizeof *job->abi);
    if (!job->abi) {
        fprintf(stderr, "twrun: out of memory\n");
        exit(1);
    }
    for (int k = 0; k < o->nsegments; k++) {
        const twr_segment_t *s = &o->segments[k];
        char *theirs = path_of(o, s), file[PATH_MAX];
        int found = twr_abi_find_program(s->argv[0], theirs, s->wdir, file, sizeof file) == 0;
        free(theirs);
        if (!found) continue; /* AS_IS, zeroed */
        twr_abi_plan_t *plan = &job->abi[k];
        twr_env_var_t *keep;
        int m, whole = env_plan(o, s, &keep, &m) == TWR_ENV_ALL; /* not -envnone, -envlist */
        free(keep);
        twr_abi_plan(file, s->argv[0], job->abi_dir[0] ? job->abi_dir : NULL, whole, plan);
        if (plan->action == TWR_ABI_REFUSE) {
            fprintf(stderr, "twrun: %s\n", plan->message);
            exit(EXIT_USAGE);
        }
        if (o->verbose && plan->message[0]) fprintf(stderr, "twrun: %s\n", plan->message);
    }
}

/* In a rank (or in twrun before srun): the face on the library path, as plan says. */
static void apply_plan(const job_t *job, const twr_abi_plan_t *plan) {
    if (!plan || (plan->action != TWR_ABI_FACE && !plan->faces_on_path)) return;
    prepend_env("LD_LIBRARY_PATH", job->abi_dir);
    if (plan->preload) prepend_env("LD_PRELOAD", plan->face_path);
}

/* The same for a rank of program k of the first job. */
static void apply_abi(const job_t *job, int k) {
    apply_plan(job, job->abi ? &job->abi[k] : NULL);
}

/* The program (segment) a rank of the first job runs. */
static const twr_segment_t *segment_of(const job_t *job, int rank) {
    const twr_options_t *o = job->opt;
    int k = o->nsegments - 1;
    while (k > 0 && o->segments[k].first > rank) k--;
    return &o->segments[k];
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

static void signal_ranks(job_t *job, int sig) {
    for (int i = 0; i < job->size; i++)
        if (job->ranks[i].alive) kill(job->ranks[i].pid, sig);
}

/* Ends the job: sig now, SIGKILL to whatever is left KILL_GRACE seconds later. */
static void end_job(job_t *job, int sig) {
    if (!job->ending) {
        job->ending = 1;
        job->kill_armed = 1;
        job->kill_at = tw_deadline_in(KILL_GRACE);
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
    case TWR_PMI_NONE:
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
        static twr_pmi_result_t reply; /* large: a spawn request in it */
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

/* --report-bindings: "twrun: rank R bound to core C: CPUs LIST", or "not bound". */
static void report_binding(const job_t *job, int rank, hwloc_obj_t obj) {
    if (!job->opt->report_bindings) return;
    char *cpus = NULL;
    if (obj && hwloc_bitmap_list_asprintf(&cpus, obj->cpuset) >= 0)
        fprintf(stderr, "twrun: rank %d bound to %s %u: CPUs %s\n", rank,
                job->bind_type == HWLOC_OBJ_PU ? "hardware thread" : "core", obj->logical_index,
                cpus);
    else
        fprintf(stderr, "twrun: rank %d not bound\n", rank);
    free(cpus);
}

/* Binds rank i to core (or hardware thread) i, when load_topology found one per rank,
 * else to i mod their count. */
static void bind_rank(job_t *job, int rank) {
    unsetenv("TW_BOUND_CORE");
    /* shared: more ranks than cores; otherwise a rank past the cores (one spawned
     * later) stays unbound */
    int shared = job->topo && job->size > job->bind_objs;
    unsigned at = shared ? (unsigned)(rank % job->bind_objs) : (unsigned)rank;
    hwloc_obj_t obj = job->topo ? hwloc_get_obj_by_type(job->topo, job->bind_type, at) : NULL;
    if (obj && (!obj->cpuset || hwloc_set_cpubind(job->topo, obj->cpuset, HWLOC_CPUBIND_PROCESS)))
        obj = NULL;
    report_binding(job, rank, obj);
    /* a core shared with other ranks is not one of its own (TW_BOUND_CORE says so) */
    if (!obj || shared) return;
    char v[16];
    snprintf(v, sizeof v, "%d", job->bind_type == HWLOC_OBJ_PU ? (int)obj->os_index : rank);
    setenv("TW_BOUND_CORE", v, 1);
}

static void setenv_int(const char *name, int v) {
    char s[16];
    snprintf(s, sizeof s, "%d", v);
    setenv(name, s, 1);
}

/* What the options make of a rank's environment (seg NULL: a spawned rank's, which
 * gets the job-wide ones): the policy for twrun's variables, and the variables to set
 * after it, in order (*keep, m of them: -genvlist/-envlist names with twrun's values,
 * then -genv and -x, then the program's -env and -x). NULL values: not set. */
static twr_env_policy_t env_plan(const twr_options_t *o, const twr_segment_t *seg,
                                 twr_env_var_t **keep, int *m) {
    const twr_env_t *sets[2] = {&o->genv, seg ? &seg->env : NULL};
    const twr_env_t *own = seg && seg->env.policy != TWR_ENV_UNSET ? &seg->env : &o->genv;
    int n = own->nlist + o->genv.nvars + (seg ? seg->env.nvars : 0);
    *m = 0;
    *keep = calloc((size_t)n + 1, sizeof **keep);
    if (!*keep) return own->policy;
    if (own->policy == TWR_ENV_LIST)
        for (int i = 0; i < own->nlist; i++)
            (*keep)[(*m)++] = (twr_env_var_t){own->list[i], getenv(own->list[i])};
    for (int k = 0; k < 2; k++)
        for (int i = 0; sets[k] && i < sets[k]->nvars; i++) {
            const twr_env_var_t *v = &sets[k]->vars[i];
            (*keep)[(*m)++] = (twr_env_var_t){v->name, v->value ? v->value : getenv(v->name)};
        }
    return own->policy;
}

/* Makes the rank's environment what the options ask for, in the child, before
 * twrun's own variables are set. */
static void apply_env(const twr_options_t *o, const twr_segment_t *seg) {
    twr_env_var_t *keep;
    int m;
    twr_env_policy_t policy = env_plan(o, seg, &keep, &m);
    if (!keep) _exit(127);
    /* copies: clearenv may free what getenv pointed to */
    for (int i = 0; i < m; i++)
        if (keep[i].value && !(keep[i].value = strdup(keep[i].value))) _exit(127);
    if (policy != TWR_ENV_ALL) clearenv();
    for (int i = 0; i < m; i++)
        if (keep[i].value) setenv(keep[i].name, keep[i].value, 1);
}

/* The PATH a program's ranks will have (NULL: none), to look for the program in. */
static char *path_of(const twr_options_t *o, const twr_segment_t *seg) {
    twr_env_var_t *keep;
    int m;
    const char *path = env_plan(o, seg, &keep, &m) == TWR_ENV_ALL ? getenv("PATH") : NULL;
    for (int i = 0; keep && i < m; i++)
        if (!strcmp(keep[i].name, "PATH")) path = keep[i].value;
    char *copy = path ? strdup(path) : NULL;
    free(keep);
    return copy;
}

/* Sends the rank's stdout and stderr into the pipes twrun reads (forwarded output). */
static void redirect_output(const int *pipes) {
    if (!pipes) return;
    for (int k = 0; k < 2; k++)
        if (dup2(pipes[2 * k + 1], STDOUT_FILENO + k) < 0) _exit(127);
}

/* What a spawned rank is told besides (TWRUN_*: not settings of the user's, the
 * library reads them only when twrun sets them); NULL for the first job's. */
typedef struct spawned {
    const char *port;
    const char *wdir;
    int appnum;
    const twr_abi_plan_t *abi; /* how its program starts (plan_programs); NULL: as it is */
} spawned_t;

/* pipes: stdout's read and write end, then stderr's; NULL when the output is not forwarded. */
__attribute__((noreturn)) static void run_rank(job_t *job, int rank, int fd, char *const *argv,
                                               const spawned_t *sp, const int *pipes) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != job->self) _exit(127); /* twrun died before the line above */
    signal(SIGPIPE, SIG_DFL);               /* twrun ignores it; a rank as any program */
    sigprocmask(SIG_SETMASK, &job->child_mask, NULL);
    setrlimit(RLIMIT_NOFILE, &job->nofile);
    fcntl(fd, F_SETFD, 0);
    redirect_output(pipes);
    if (rank > 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0 && null != STDIN_FILENO) {
            dup2(null, STDIN_FILENO);
            close(null);
        }
    }
    const space_t *space = &job->spaces[job->ranks[rank].space];
    const twr_segment_t *seg = sp ? NULL : segment_of(job, rank);
    apply_env(job->opt, seg);
    if (seg) apply_abi(job, (int)(seg - job->opt->segments));
    if (sp) apply_plan(job, sp->abi);
    setenv_int("PMI_FD", fd);
    setenv_int("PMI_RANK", job->ranks[rank].prank);
    setenv_int("PMI_SIZE", space->size);
    if (space->ubase > 0) setenv_int("TWRUN_UNIVERSE_BASE", space->ubase);
    const char *wdir = sp ? sp->wdir : seg->wdir;
    if (sp) {
        setenv_int("TWRUN_APPNUM", sp->appnum);
        setenv("TWRUN_PARENT_PORT", sp->port, 1);
    } else {
        setenv_int("TWRUN_APPNUM", (int)(seg - job->opt->segments));
        unsetenv("TWRUN_PARENT_PORT");
    }
    if (wdir && chdir(wdir) != 0) {
        fprintf(stderr, "twrun: cannot enter '%s': %s\n", wdir, strerror(errno));
        _exit(127);
    }
    setenv("TW_JOB_ID", job->id, 1);
    setenv("TW_JOB_KEY", job->key, 1);
    setenv("TW_JOB_SECRET", job->secret, 1);
    int local_rank = job->ranks[rank].prank, local_size = space->size;
    unsetenv("TW_MACHINE_SIZE");
    if (job->opt->netns && !sp) {
        const twr_host_t *hosts = job->opt->hosts;
        const char *name = hosts[job->host[rank]].name;
        local_rank = local_size = 0;
        for (int i = 0; i < job->first_size; i++) { /* a host may be listed twice */
            int same = !strcmp(hosts[job->host[i]].name, name);
            local_rank += i < rank && same;
            local_size += same;
        }
        char path[PATH_MAX];
        snprintf(path, sizeof path, "/var/run/netns/%s", name);
        int ns = open(path, O_RDONLY | O_CLOEXEC);
        if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) {
            fprintf(stderr, "twrun: rank %d: cannot enter network namespace '%s': %s\n", rank, name,
                    strerror(errno));
            _exit(127);
        }
        close(ns);
        /* the namespaces stand in for hosts but share this machine's CPUs: a host's
         * ranks that took them for their own would all spin where they should sleep */
        setenv_int("TW_MACHINE_SIZE", job->first_size);
    }
    setenv_int("TW_LOCAL_RANK", local_rank);
    setenv_int("TW_LOCAL_SIZE", local_size);
    /* what the scripts of Hydra's and Open MPI's users read (to pick a GPU, a file) */
    setenv_int("MPI_LOCALRANKID", local_rank);
    setenv_int("MPI_LOCALNRANKS", local_size);
    setenv_int("OMPI_COMM_WORLD_RANK", job->ranks[rank].prank);
    setenv_int("OMPI_COMM_WORLD_SIZE", space->size);
    setenv_int("OMPI_COMM_WORLD_LOCAL_RANK", local_rank);
    setenv_int("OMPI_COMM_WORLD_LOCAL_SIZE", local_size);
    if (sp) /* the first job's ranks have the cores */
        unsetenv("TW_BOUND_CORE");
    else
        bind_rank(job, rank);
    execvp(argv[0], argv);
    fprintf(stderr, "twrun: cannot execute '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
}

static void reaper_watch(job_t *job, pid_t pid);

/* mkdir -p path (which is changed and restored on the way). */
static int make_dirs(char *path) {
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = '\0';
        int rc = mkdir(path, 0777);
        *p = c;
        if (rc != 0 && errno != EEXIST) return -1;
        if (!c) return 0;
    }
}

/* --output-filename: DIR/<job>/rank.<rank>/stdout and stderr, as Open MPI names them
 * (the first job is 1, spawned job J is J + 1). Fills file[2]; -1 with a message. */
static int open_output_files(job_t *job, int rank, int file[2]) {
    const rank_t *r = &job->ranks[rank];
    char path[PATH_MAX];
    int n =
        snprintf(path, sizeof path, "%s/%d/rank.%d", job->opt->output_dir, r->space + 1, r->prank);
    file[0] = file[1] = -1;
    if (n < 0 || (size_t)n + 8 >= sizeof path) {
        errno = ENAMETOOLONG;
    } else if (make_dirs(path) == 0) {
        for (int k = 0; k < 2; k++) {
            snprintf(path + n, sizeof path - (size_t)n, "/%s", k ? "stderr" : "stdout");
            file[k] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (file[k] < 0) break;
        }
        if (file[1] >= 0) return 0;
    }
    int e = errno;
    fprintf(stderr, "twrun: cannot write '%s': %s\n", path, strerror(e));
    for (int k = 0; k < 2; k++)
        if (file[k] >= 0) close(file[k]);
    errno = e;
    return -1;
}

/* Pipes for the rank's stdout and stderr (read, write, read, write), and the streams
 * twrun reads them through. */
static int open_output(job_t *job, int rank, int pipes[4]) {
    int file[2] = {-1, -1};
    twr_stream_t **st = &job->streams[2 * rank];
    for (int k = 0; k < 2; k++) {
        if (st[k]) continue;
        if (!(st[k] = malloc(sizeof *st[k]))) return -1; /* errno: ENOMEM */
        /* closed until its pipe opens: a failure below leaves nothing to read or close */
        twr_stream_init(st[k], -1, -1, -1, "");
    }
    if (job->opt->output_dir && open_output_files(job, rank, file) != 0) return -1;
    for (int k = 0; k < 4; k++) pipes[k] = -1;
    for (int k = 0; k < 2; k++)
        if (pipe2(pipes + 2 * k, O_CLOEXEC) != 0) {
            int e = errno;
            for (int i = 0; i < 4; i++)
                if (pipes[i] >= 0) close(pipes[i]);
            for (int i = 0; i < 2; i++)
                if (file[i] >= 0) close(file[i]);
            errno = e;
            return -1;
        }
    const rank_t *r = &job->ranks[rank];
    char prefix[TWR_PREFIX_MAX] = "";
    if (job->opt->tag_output) {
        if (r->space == 0)
            snprintf(prefix, sizeof prefix, "[%d] ", r->prank);
        else
            snprintf(prefix, sizeof prefix, "[%d,%d] ", r->space, r->prank);
    }
    for (int k = 0; k < 2; k++) {
        fcntl(pipes[2 * k], F_SETFL, O_NONBLOCK);
        int to = job->opt->output_dir && !job->opt->output_copy ? -1 : STDOUT_FILENO + k;
        twr_stream_init(st[k], pipes[2 * k], to, file[k], prefix);
    }
    return 0;
}

static int start_rank(job_t *job, int rank, char *const *argv, const spawned_t *sp) {
    int sv[2], pipes[4];
    if (job->forwarded && open_output(job, rank, pipes) != 0) return -1;
    pid_t pid = -1;
    int made = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0;
    if (made) pid = fork();
    if (pid < 0) {
        int e = errno;
        if (made) {
            close(sv[0]);
            close(sv[1]);
        }
        if (job->forwarded)
            for (int k = 0; k < 2; k++) {
                close(pipes[2 * k + 1]);
                twr_stream_close(job->streams[2 * rank + k]);
            }
        errno = e;
        return -1;
    }
    if (pid == 0) run_rank(job, rank, sv[1], argv, sp, job->forwarded ? pipes : NULL);
    close(sv[1]);
    if (job->forwarded) {
        close(pipes[1]);
        close(pipes[3]);
    }
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    rank_t *r = &job->ranks[rank];
    r->pid = pid;
    reaper_watch(job, pid);
    r->alive = 1;
    r->conn.fd = sv[0];
    job->alive++;
    return 0;
}

/* Passes on what the rank's stdout and stderr hold (all of it, once it has exited). */
static void drain_output(job_t *job, int rank) {
    if (!job->forwarded) return;
    for (int k = 0; k < 2; k++)
        if (job->streams[2 * rank + k]) twr_stream_drain(job->streams[2 * rank + k], TWR_DRAIN_ALL);
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
    /* each program as the first job's are (plan_programs): a python whose module may
     * load an MPI library gets the faces on its path, a program built for an MPI no
     * face serves is refused */
    twr_abi_plan_t *plans = calloc((size_t)sp->ncmds, sizeof *plans);
    if (!plans) {
        twr_pmi_spawn_reply(reply, 0, 0, "out_of_memory", -1);
        return;
    }
    if (job->abi) {
        twr_env_var_t *keep;
        int m, whole = env_plan(job->opt, NULL, &keep, &m) == TWR_ENV_ALL;
        free(keep);
        char *theirs = path_of(job->opt, NULL), file[PATH_MAX];
        for (int k = 0; k < sp->ncmds; k++) {
            if (twr_abi_find_program(sp->cmd[k].argv[0], theirs, sp->cmd[k].wdir, file,
                                     sizeof file))
                continue; /* as it is */
            twr_abi_plan(file, sp->cmd[k].argv[0], job->abi_dir[0] ? job->abi_dir : NULL, whole,
                         &plans[k]);
            if (plans[k].action == TWR_ABI_REFUSE) {
                fprintf(stderr, "twrun: %s\n", plans[k].message);
                free(theirs);
                free(plans);
                twr_pmi_spawn_reply(reply, 0, 0, "built_for_an_mpi_no_face_serves", k);
                return;
            }
        }
        free(theirs);
    }
    space_t *space = &job->spaces[job->nspaces];
    char id[48];
    snprintf(id, sizeof id, "%s.%d", job->id, job->nspaces);
    if (twr_pmi_server_init(&space->pmi, sp->total, id) != 0) {
        free(plans);
        twr_pmi_spawn_reply(reply, 0, 0, "out_of_memory", -1);
        return;
    }
    twr_pmi_set_universe_size(&space->pmi, job->slots);
    space->base = job->size;
    space->size = sp->total;
    space->spawner = rank;
    space->ubase = job->universe ? universe_take(job, sp->total) : job->size;
    if (space->ubase < 0) {
        twr_pmi_server_destroy(&space->pmi);
        free(plans);
        twr_pmi_spawn_reply(reply, 0, 0, "universe_full", -1);
        return;
    }
    int which = job->nspaces++, first = job->size;
    fflush(NULL);
    for (int k = 0, next = first; k < sp->ncmds; k++) {
        spawned_t info = {.port = sp->port, .wdir = sp->cmd[k].wdir, .appnum = k, .abi = &plans[k]};
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
                free(plans);
                twr_pmi_spawn_reply(reply, 0, 0, "cannot_start", k);
                return;
            }
        }
    }
    free(plans);
    twr_pmi_spawn_reply(reply, space->ubase, sp->total, NULL, 0);
}

static void rank_exited(job_t *job, int rank, int wstatus) {
    rank_t *r = &job->ranks[rank];
    char who[64];
    rank_name(job, rank, who, sizeof who);
    /* What the rank said before it went (its output, an abort) comes first. */
    drain_output(job, rank);
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
    /* a socket per rank, and when forwarded two pipes and maybe two files; and some
     * spawned ranks */
    rlim_t per = job->forwarded ? (job->opt->output_dir ? 5 : 3) : 1;
    rlim_t want = (rlim_t)job->size * per + 64 + 256 * per;
    if (job->nofile.rlim_cur != RLIM_INFINITY && job->nofile.rlim_cur < want) {
        struct rlimit more = job->nofile;
        more.rlim_cur =
            more.rlim_max == RLIM_INFINITY || more.rlim_max > want ? want : more.rlim_max;
        setrlimit(RLIMIT_NOFILE, &more);
    }
}

static void load_topology(job_t *job) {
    job->topo = NULL;
    if (job->opt->bind == TWR_BIND_NONE) return;
    job->bind_type = job->opt->bind == TWR_BIND_HWTHREAD ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0) return;
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return;
    }
    /* only the CPUs twrun itself may run on (taskset, a batch system's binding): the
     * ranks share those, and a rank bound outside them would escape the user's choice */
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    if (mine && hwloc_get_cpubind(t, mine, HWLOC_CPUBIND_PROCESS) == 0 &&
        !hwloc_bitmap_iszero(mine))
        (void)hwloc_topology_restrict(t, mine, 0); /* unchanged when it fails */
    hwloc_bitmap_free(mine);
    int cores = hwloc_get_nbobjs_by_type(t, job->bind_type);
    /* more ranks than cores: they take the cores in turn, as Intel MPI's pinning and
     * Hydra's -bind-to do. Left to the kernel, a rank whose turn it is waits on a core
     * behind others that wait, and threads of a rank on cores other ranks need (on
     * 4 to 16 ranks of 2 cores, collectives took 0.89 of the time bound, geometric
     * mean; IMB-MT's 4 ranks of 2 threads, 0.13 to 0.33; docs/performance.md) */
    if (cores <= 0) {
        hwloc_topology_destroy(t);
        return;
    }
    job->topo = t;
    job->bind_objs = cores;
}

static void serve(job_t *job, int sfd) {
    struct pollfd *pfd = job->pfd;
    int *who = job->who;
    while (job->alive > 0) {
        int n = 0;
        pfd[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
        for (int i = 0; i < job->size; i++) {
            conn_t *c = &job->ranks[i].conn;
            for (int k = 0; job->forwarded && k < 2; k++) {
                const twr_stream_t *st = job->streams[2 * i + k];
                if (!st || st->fd < 0) continue;
                who[n] = -1 - (2 * i + k); /* a stream: below 0 */
                pfd[n++] = (struct pollfd){.fd = st->fd, .events = POLLIN};
            }
            if (c->fd < 0) continue;
            short ev = 0;
            if (!c->eof && c->in_len < sizeof c->in) ev |= POLLIN;
            if (c->out_len > 0) ev |= POLLOUT;
            who[n] = i;
            pfd[n++] = (struct pollfd){.fd = c->fd, .events = ev};
        }
        long wait_ms = -1;
        if (job->timeout && !job->ending) wait_ms = tw_ms_until(job->timeout_at);
        if (job->kill_armed) {
            long k = tw_ms_until(job->kill_at);
            if (wait_ms < 0 || k < wait_ms) wait_ms = k;
        }
        int rc = poll(pfd, (nfds_t)n, (int)wait_ms);
        if (rc < 0 && errno != EINTR) {
            fprintf(stderr, "twrun: poll: %s\n", strerror(errno));
            fail(job, 1);
        }
        for (int k = 1; rc > 0 && k < n; k++)
            if (pfd[k].revents && who[k] < 0)
                twr_stream_drain(job->streams[-1 - who[k]], 16);
            else if (pfd[k].revents)
                conn_service(job, who[k], pfd[k].revents);
        /* Signals after the sockets, so a rank's last words are read before its exit. */
        read_signals(job, sfd);
        check_barrier(job);
        if (job->timeout && !job->ending && tw_ms_until(job->timeout_at) == 0) {
            fprintf(stderr, "twrun: job exceeded %s %d s; ending it\n", job->timeout_source,
                    job->timeout);
            fail(job, 124);
        }
        if (job->kill_armed && tw_ms_until(job->kill_at) == 0) {
            job->kill_armed = 0;
            signal_ranks(job, SIGKILL);
        }
    }
    /* What is left of the output; a process a rank left behind may hold a pipe open */
    for (int i = 0; job->forwarded && i < 2 * job->size; i++)
        if (job->streams[i]) {
            twr_stream_drain(job->streams[i], TWR_DRAIN_ALL);
            twr_stream_close(job->streams[i]);
        }
}

/* ---- inside a Slurm allocation: srun starts the ranks ---- */

enum {
    SRUN_LIST_WAIT = 60, /* seconds `srun --mpi=list` may take */
    SRUN_GRACE = 10,     /* seconds between SIGTERM and SIGKILL to srun at a timeout */
};

/* What `srun --mpi=list` prints on stdout and stderr (bounded). Exits when srun cannot
 * be run: 127 when it is not found, as a shell would. */
static char *srun_mpi_list(const twr_options_t *o) {
    static char out[16384];
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        fprintf(stderr, "twrun: pipe: %s\n", strerror(errno));
        exit(1);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, STDIN_FILENO);
        dup2(p[1], STDOUT_FILENO);
        dup2(p[1], STDERR_FILENO);
        execlp("srun", "srun", "--mpi=list", (char *)NULL);
        dprintf(STDERR_FILENO, "%s", strerror(errno));
        _exit(127);
    }
    close(p[1]);
    if (pid < 0) {
        fprintf(stderr, "twrun: fork: %s\n", strerror(errno));
        exit(1);
    }
    size_t len = 0;
    struct timespec until = tw_deadline_in(SRUN_LIST_WAIT);
    for (;;) {
        struct pollfd pfd = {.fd = p[0], .events = POLLIN};
        int rc = poll(&pfd, 1, tw_ms_until(until));
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) {
            kill(pid, SIGKILL);
            fprintf(stderr,
                    "twrun: 'srun --mpi=list' has not ended in %d s; give -launcher fork (or "
                    "set TW_LAUNCHER=fork) to run the job on this machine instead\n",
                    SRUN_LIST_WAIT);
            exit(1);
        }
        char scratch[512];
        int full = len + 1 >= sizeof out;
        ssize_t n = full ? read(p[0], scratch, sizeof scratch)
                         : read(p[0], out + len, sizeof out - 1 - len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (!full) len += (size_t)n;
    }
    out[len] = '\0';
    close(p[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        fprintf(stderr,
                "twrun: inside Slurm job %s twrun hands the job to srun, which cannot be run "
                "(srun: %s); give -launcher fork (or set TW_LAUNCHER=fork) to run the job on "
                "this machine instead\n",
                o->alloc.job_id, out);
        exit(127);
    }
    return out;
}

/* A word as a shell would read it back: in single quotes unless it needs none. */
static void print_word(const char *w) {
    if (*w &&
        strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=,:+@%") ==
            strlen(w)) {
        fputs(w, stderr);
        return;
    }
    fputc('\'', stderr);
    for (; *w; w++)
        if (*w == '\'')
            fputs("'\\''", stderr);
        else
            fputc(*w, stderr);
    fputc('\'', stderr);
}

/* Runs srun as a child, for twrun's --timeout (MPIEXEC_TIMEOUT): at the deadline srun
 * gets SIGTERM, which it passes to the ranks, and SIGKILL SRUN_GRACE s later. The
 * signals twrun is sent go to srun; a ^C reaches srun from the terminal itself. Returns
 * twrun's exit status: srun's, or 124 after the timeout. */
static int supervise_srun(char **argv, const twr_options_t *o) {
    sigset_t mask, old;
    sigemptyset(&mask);
    int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaddset(&mask, sigs[i]);
    sigprocmask(SIG_BLOCK, &mask, &old);
    pid_t pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        execvp(argv[0], argv);
        fprintf(stderr, "twrun: cannot execute srun: %s\n", strerror(errno));
        _exit(127);
    }
    if (pid < 0) {
        fprintf(stderr, "twrun: fork: %s\n", strerror(errno));
        return 1;
    }
    struct timespec deadline = tw_deadline_in(o->timeout);
    int timed_out = 0, st;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) break;
        int ms = tw_ms_until(deadline);
        if (ms == 0 && !timed_out) {
            fprintf(stderr, "twrun: job exceeded %s %d s; ending it\n", o->timeout_source,
                    o->timeout);
            kill(pid, SIGTERM);
            timed_out = 1;
            deadline = tw_deadline_in(SRUN_GRACE);
            continue;
        }
        if (ms == 0) { /* srun did not end in its grace time */
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
            }
            break;
        }
        struct timespec wait = {ms / 1000, (ms % 1000) * 1000000L};
        siginfo_t si;
        int sig = sigtimedwait(&mask, &si, &wait);
        if (sig > 0 && sig != SIGCHLD && (sig != SIGINT || si.si_code == SI_USER)) kill(pid, sig);
    }
    if (timed_out) return 124;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Inside a Slurm allocation: runs the job with srun, with the MPI plugin the ranks'
 * library can talk to (PMIx when both sides have it, else PMI-2's plugin, whose PMI-1
 * lines it speaks); exits with srun's status. */
__attribute__((noreturn)) static void run_srun(const job_t *job) {
    const twr_options_t *o = job->opt;
    const char *list = srun_mpi_list(o);
    const char *mpi = twr_srun_mpi(list, TW_HAVE_PMIX);
    if (!mpi) {
        fprintf(stderr,
                "twrun: inside Slurm job %s twrun hands the job to srun, but srun offers "
                "neither --mpi=pmix nor --mpi=pmi2, which Tollway's ranks need (srun "
                "--mpi=list: %s)\n",
                o->alloc.job_id, list);
        exit(1);
    }
    twr_srun_t cmd;
    char err[TWR_ERR_MAX];
    if (twr_srun_command(o, mpi, &cmd, err)) usage_error("%s", err);
    for (int i = 0; i < cmd.nset; i++) setenv(cmd.set[i].name, cmd.set[i].value, 1);
    if (job->abi && (job->abi[0].action == TWR_ABI_FACE || job->abi[0].faces_on_path)) {
        /* srun passes on its environment, or only what --export lists */
        apply_abi(job, 0);
        for (int i = 0; i < cmd.argc; i++) {
            if (strncmp(cmd.argv[i], "--export=", 9) || !strcmp(cmd.argv[i], "--export=ALL"))
                continue;
            char *more = NULL;
            const char *names =
                job->abi[0].preload ? "LD_LIBRARY_PATH,LD_PRELOAD" : "LD_LIBRARY_PATH";
            if (!strcmp(cmd.argv[i], "--export=NONE")
                    ? asprintf(&more, "--export=%s", names) < 0
                    : asprintf(&more, "%s,%s", cmd.argv[i], names) < 0) {
                fprintf(stderr, "twrun: out of memory\n");
                exit(1);
            }
            free(cmd.argv[i]);
            cmd.argv[i] = more;
        }
    }
    /* MPI_UNIVERSE_SIZE: the allocation's tasks (Slurm's PMI and PMIx say the step's) */
    int tasks = o->alloc.tasks > o->segments[0].nranks ? o->alloc.tasks : o->segments[0].nranks;
    setenv_int("TWRUN_UNIVERSE_SIZE", tasks);
    if (o->verbose) {
        fprintf(stderr, "twrun: inside Slurm job %s (%s), running: ", o->alloc.job_id,
                o->alloc.tasks_from);
        for (int i = 0; i < cmd.nset; i++) {
            fprintf(stderr, "%s=", cmd.set[i].name);
            print_word(cmd.set[i].value);
            fputc(' ', stderr);
        }
        for (int i = 0; i < cmd.argc; i++) {
            print_word(cmd.argv[i]);
            fputc(i + 1 < cmd.argc ? ' ' : '\n', stderr);
        }
    }
    fflush(NULL);
    if (o->timeout) exit(supervise_srun(cmd.argv, o));
    execvp(cmd.argv[0], cmd.argv);
    fprintf(stderr, "twrun: cannot execute srun: %s\n", strerror(errno));
    exit(127);
}

int main(int argc, char **argv) {
    static job_t job_storage;
    job_t *job = &job_storage;
    parse_args(job, argc, argv);
    if (job->opt->launch == TWR_LAUNCH_SRUN) {
        plan_programs(job);
        run_srun(job);
    }
    if (job->opt->verbose)
        fprintf(stderr, "twrun: starting %d rank%s on this machine\n", job->opt->size,
                job->opt->size == 1 ? "" : "s");
    check_programs(job->opt);
    plan_programs(job);
    ensure_std_fds();
    signal(SIGPIPE, SIG_IGN); /* a reader of forwarded output gone: write says so */
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
    job->pfd = calloc(3 * MAX_RANKS + 1, sizeof *job->pfd);
    job->who = calloc(3 * MAX_RANKS + 1, sizeof *job->who);
    job->spaces = calloc(MAX_RANKS, sizeof *job->spaces);
    job->host = calloc((size_t)job->size, sizeof *job->host);
    if (job->forwarded) job->streams = calloc(2 * MAX_RANKS, sizeof *job->streams);
    job->first_size = job->size;
    if (!job->ranks || !job->pfd || !job->who || !job->spaces || !job->host ||
        (job->forwarded && !job->streams) ||
        twr_pmi_server_init(&job->spaces[0].pmi, job->size, job->id) != 0) {
        fprintf(stderr, "twrun: out of memory\n");
        return 1;
    }
    job->spaces[0] =
        (space_t){.pmi = job->spaces[0].pmi, .size = job->size, .ubase = first_base, .spawner = -1};
    job->slots = twr_options_slots(job->opt, cpus_here());
    twr_pmi_set_universe_size(&job->spaces[0].pmi, job->slots);
    job->nspaces = 1;
    for (int i = 0; i < job->size; i++) job->ranks[i].conn.fd = -1; /* the rest: as started */
    for (int i = 0; i < job->size; i++) job->ranks[i].prank = i;
    for (int k = 0; k < job->opt->nsegments; k++) /* MPMD: MPI_APPNUM through PMI too */
        for (int i = 0; i < job->opt->segments[k].nranks; i++)
            twr_pmi_set_appnum(&job->spaces[0].pmi, job->opt->segments[k].first + i, k);
    twr_options_place(job->opt, job->host);
    raise_fd_limit(job);
    load_topology(job);
    if (job->timeout) job->timeout_at = tw_deadline_in(job->timeout);

    fflush(NULL); /* nothing buffered may be written twice by the ranks */
    start_reaper(job);
    for (int i = 0; i < job->size; i++)
        if (start_rank(job, i, segment_of(job, i)->argv, NULL) != 0) {
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
    free(job->host);
    for (int i = 0; job->forwarded && i < 2 * job->size; i++) free(job->streams[i]);
    free(job->streams);
    twr_options_free((twr_options_t *)job->opt);
    for (int k = 0; k < job->nspaces; k++) twr_pmi_server_destroy(&job->spaces[k].pmi);
    free(job->spaces);
    free(job->abi);
    if (job->topo) hwloc_topology_destroy(job->topo);
    close(sfd);
    if (job->interrupted) return 128 + job->interrupted;
    return job->status < 0 ? 0 : job->status;
}
