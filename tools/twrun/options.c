#include "options.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

const char twr_usage_text[] =
    "Usage: twrun [JOB OPTIONS] [-n N] [PROGRAM OPTIONS] PROGRAM [ARGS...]\n"
    "                   [: [-n N] [PROGRAM OPTIONS] PROGRAM [ARGS...]]...\n"
    "Starts the ranks of a job on this machine (or in its network namespaces) and\n"
    "serves them PMI-1; inside a Slurm allocation, hands the job to srun instead.\n"
    "Programs separated by ' : ' form one MPI_COMM_WORLD (MPMD),\n"
    "ranked in the order given; MPI_APPNUM is a program's index. Also installed as\n"
    "mpiexec and mpirun; docs/launching.md maps Open MPI's and MPICH's spellings.\n"
    "Long options take one dash or two (-np 4, --np=4); options end at the program.\n"
    "\n"
    "For each program (after a ':', for that program only):\n"
    "  -n, -np, -c N         number of ranks (also -n4, -n=4, --np=4), 1 to 4096 in\n"
    "                        all\n"
    "  -env VAR VALUE        set VAR for this program's ranks\n"
    "  -envlist A,B,...      pass on only these of twrun's variables (and those set)\n"
    "  -envnone, -envall     pass on none / all of twrun's variables\n"
    "  -x VAR[=VALUE]        set VAR, or pass it on from twrun's environment; before\n"
    "                        the first ':', for every program\n"
    "  -wdir, -wd DIR        the ranks' working directory, where a relative PROGRAM\n"
    "                        is looked for; before the first ':', also of every\n"
    "                        program that names none\n"
    "For the whole job (only before the first program):\n"
    "  --host, --hosts, -H HOST[:SLOTS],...\n"
    "                        the hosts: this machine (localhost, its name or an\n"
    "                        address of it) or network namespaces (ip netns; each\n"
    "                        stands in for a host; needs root)\n"
    "  -f, --hostfile, --machinefile FILE\n"
    "                        the hosts, a line each: HOST, HOST:SLOTS or\n"
    "                        HOST slots=SLOTS; '#' starts a comment\n"
    "  -ppn, --npernode, -N N  ranks per host, in blocks, cycling through the hosts\n"
    "  --map-by ppr:N:node | node | slot | core\n"
    "                        N per host / a rank per host in turn / fill each host's\n"
    "                        slots (the default)\n"
    "  --oversubscribe       accepted: more ranks than slots or cores never fails;\n"
    "                        it turns binding off unless --bind-to is given\n"
    "  --bind-to core | hwthread | none\n"
    "                        bind rank i to core (hardware thread) i, or to i mod\n"
    "                        the cores when ranks outnumber them (default: core)\n"
    "  --report-bindings     each rank says on stderr which CPUs it is bound to\n"
    "  -genv VAR VALUE       set VAR for every rank\n"
    "  -genvlist A,B,...     pass on only these of twrun's variables (and those set)\n"
    "  -genvnone, -genvall   pass on none / all (the default) of twrun's variables\n"
    "  -l, -prepend-rank, --tag-output\n"
    "                        prefix each line the ranks print with '[RANK] '\n"
    "                        ('[J,RANK] ' for spawned job J)\n"
    "  --output-filename DIR[:nocopy]\n"
    "                        also write rank R's output to DIR/1/rank.R/stdout and\n"
    "                        .../stderr (spawned job J: DIR/J+1/...); with :nocopy,\n"
    "                        only there\n"
    "  --timeout SECONDS     end the job if it runs longer (exit status 124);\n"
    "                        without it, MPIEXEC_TIMEOUT in the environment does so\n"
    "  --universe NAME       share endpoint ids and the job key with the other\n"
    "                        twruns of this user given the same NAME on this\n"
    "                        machine, so that their jobs can meet through MPI ports\n"
    "  --allow-run-as-root   accepted (twrun runs as any user)\n"
    "  -launcher, -bootstrap fork | slurm\n"
    "                        who starts the ranks: twrun, on this machine, even inside\n"
    "                        a Slurm allocation / srun, inside one (the default there);\n"
    "                        wins over TW_LAUNCHER (auto, fork or slurm)\n"
    "  -v, --verbose         say on stderr how the job is started\n"
    "  -h, --help            print this help and exit\n"
    "  -V, --version         print the version and exit\n"
    "\n"
    "Without -n, a job given hosts runs a rank per slot (a host without SLOTS has\n"
    "one), or -ppn on each host. More ranks than slots cycle through the hosts again,\n"
    "as Hydra does.\n"
    "Inside a Slurm allocation (SLURM_JOB_ID set, SLURM_STEP_ID not) twrun runs\n"
    "srun --mpi=pmix (or pmi2) with the options srun has too, and exits as srun does;\n"
    "without -n, a rank per task of the allocation, and more ranks than its tasks\n"
    "only with --oversubscribe (docs/launching.md).\n"
    "The exit status is 0 when every rank exits 0, else that of the\n"
    "first rank that failed (its exit code, or 128 + the signal that killed it); 127\n"
    "when a program cannot be found; 2 for a command line twrun cannot run.\n";

/* Option ids: the long-only ones past any character (from OPT_HOSTS on). */
enum {
    OPT_NP = 'n',
    OPT_HOSTS = 256,
    OPT_HOSTFILE,
    OPT_PPN,
    OPT_MAP_BY,
    OPT_OVERSUBSCRIBE,
    OPT_BIND_TO,
    OPT_TIMEOUT,
    OPT_UNIVERSE,
    OPT_TAG,
    OPT_OUTPUT_FILENAME,
    OPT_GENV,
    OPT_GENVLIST,
    OPT_GENVALL,
    OPT_GENVNONE,
    OPT_ENV,
    OPT_ENVLIST,
    OPT_ENVALL,
    OPT_ENVNONE,
    OPT_EXPORT,
    OPT_WDIR,
    OPT_AS_ROOT,
    OPT_REPORT_BINDINGS,
    OPT_LAUNCHER,
    OPT_MCA,
    OPT_VERBOSE,
    OPT_HELP,
    OPT_VERSION,
};

/* Single-dash spellings are long options too (getopt_long_only): -np, -hosts, -genv. */
static const struct option long_options[] = {
    {"n", required_argument, NULL, OPT_NP},
    {"np", required_argument, NULL, OPT_NP},
    {"host", required_argument, NULL, OPT_HOSTS},
    {"hosts", required_argument, NULL, OPT_HOSTS},
    {"hostfile", required_argument, NULL, OPT_HOSTFILE},
    {"machinefile", required_argument, NULL, OPT_HOSTFILE},
    {"ppn", required_argument, NULL, OPT_PPN},
    {"perhost", required_argument, NULL, OPT_PPN},
    {"npernode", required_argument, NULL, OPT_PPN},
    {"map-by", required_argument, NULL, OPT_MAP_BY},
    {"oversubscribe", no_argument, NULL, OPT_OVERSUBSCRIBE},
    {"bind-to", required_argument, NULL, OPT_BIND_TO},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"universe", required_argument, NULL, OPT_UNIVERSE},
    {"prepend-rank", no_argument, NULL, OPT_TAG},
    {"tag-output", no_argument, NULL, OPT_TAG},
    {"output-filename", required_argument, NULL, OPT_OUTPUT_FILENAME},
    {"genv", required_argument, NULL, OPT_GENV},
    {"genvlist", required_argument, NULL, OPT_GENVLIST},
    {"genvall", no_argument, NULL, OPT_GENVALL},
    {"genvnone", no_argument, NULL, OPT_GENVNONE},
    {"env", required_argument, NULL, OPT_ENV},
    {"envlist", required_argument, NULL, OPT_ENVLIST},
    {"envall", no_argument, NULL, OPT_ENVALL},
    {"envnone", no_argument, NULL, OPT_ENVNONE},
    {"wdir", required_argument, NULL, OPT_WDIR},
    {"wd", required_argument, NULL, OPT_WDIR},
    {"allow-run-as-root", no_argument, NULL, OPT_AS_ROOT},
    {"report-bindings", no_argument, NULL, OPT_REPORT_BINDINGS},
    {"launcher", required_argument, NULL, OPT_LAUNCHER},
    {"bootstrap", required_argument, NULL, OPT_LAUNCHER},
    {"mca", required_argument, NULL, OPT_MCA},
    {"gmca", required_argument, NULL, OPT_MCA},
    {"verbose", no_argument, NULL, OPT_VERBOSE},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};
/* "+": options end at the program; ":": a missing value is reported as such. */
static const char short_options[] = "+:n:c:H:f:N:x:lvhV";

int twr_error(char *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, TWR_ERR_MAX, fmt, ap);
    va_end(ap);
    return -1;
}

static int parse_int(const char *s, long min, long max, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) return -1;
    *out = (int)v;
    return 0;
}

/* ---- environment options ---- */

static int env_name_ok(const char *name) {
    return *name && !strchr(name, '=');
}

static void env_set(twr_env_t *e, const char *name, const char *value) {
    e->vars[e->nvars++] = (twr_env_var_t){name, value};
}

/* "A,B,...": the names twrun passes on. */
static int env_list(twr_env_t *e, const char *opt, const char *val, char *err) {
    e->policy = TWR_ENV_LIST;
    const char *p = val;
    for (;;) {
        size_t n = strcspn(p, ",");
        if (n > 0) {
            char *name = strndup(p, n);
            if (!name) return twr_error(err, "out of memory");
            char **more = realloc(e->list, (size_t)(e->nlist + 1) * sizeof *more);
            if (!more) {
                free(name);
                return twr_error(err, "out of memory");
            }
            e->list = more;
            e->list[e->nlist++] = name;
            if (!env_name_ok(name))
                return twr_error(err, "%s: '%s' is not a variable name", opt, name);
        }
        if (!p[n]) break;
        p += n + 1;
    }
    if (e->nlist == 0) return twr_error(err, "%s needs at least one variable name", opt);
    return 0;
}

static void env_free(twr_env_t *e) {
    for (int i = 0; i < e->nlist; i++) free(e->list[i]);
    free(e->list);
    free(e->vars);
}

/* ---- hosts ---- */

static int add_host(twr_options_t *o, const char *name, size_t len, int slots, const char *where,
                    char *err) {
    if (len == 0) return twr_error(err, "%s: a host name is empty", where);
    /* a rank on each at most: bounds the slots added up over the hosts, too */
    if (o->nhosts >= TWR_MAX_RANKS)
        return twr_error(err, "%s: more than %d hosts", where, TWR_MAX_RANKS);
    twr_host_t *more = realloc(o->hosts, (size_t)(o->nhosts + 1) * sizeof *more);
    if (!more) return twr_error(err, "out of memory");
    o->hosts = more;
    char *copy = strndup(name, len);
    if (!copy) return twr_error(err, "out of memory");
    o->hosts[o->nhosts++] = (twr_host_t){.name = copy, .slots = slots};
    if (strchr(copy, '/') || !strcmp(copy, ".") || !strcmp(copy, ".."))
        return twr_error(err, "%s: '%s' is not a host name", where, copy);
    return 0;
}

/* "HOST[:SLOTS]" of len bytes; an IPv6 address (more than one ':') has no slots. */
static int add_host_spec(twr_options_t *o, const char *spec, size_t len, const char *where,
                         char *err) {
    const char *colon = memchr(spec, ':', len);
    int slots = 0;
    if (colon && !memchr(colon + 1, ':', len - (size_t)(colon + 1 - spec))) {
        char num[16];
        size_t n = len - (size_t)(colon + 1 - spec);
        if (n > 0 && n < sizeof num) { /* else: no number at all, or far too long one */
            memcpy(num, colon + 1, n);
            num[n] = '\0';
        }
        if (n == 0 || n >= sizeof num || parse_int(num, 1, TWR_MAX_RANKS, &slots))
            return twr_error(err, "%s: the slots of '%.*s' must be 1 to %d", where, (int)len, spec,
                             TWR_MAX_RANKS);
        len = (size_t)(colon - spec);
    }
    return add_host(o, spec, len, slots, where, err);
}

/* "a:2,b,c:4" (Hydra's -hosts, Open MPI's -H). */
static int add_host_list(twr_options_t *o, const char *opt, const char *val, char *err) {
    int before = o->nhosts;
    for (const char *p = val;;) {
        size_t n = strcspn(p, ",");
        if (n > 0 && add_host_spec(o, p, n, opt, err)) return -1;
        if (!p[n]) break;
        p += n + 1;
    }
    if (o->nhosts == before) return twr_error(err, "%s needs at least one host", opt);
    return 0;
}

/* A line of a hostfile: "HOST", "HOST:SLOTS" (Hydra), "HOST slots=N [max_slots=M]"
 * (Open MPI); what follows '#' is a comment. */
static int hostfile_line(twr_options_t *o, char *line, const char *where, char *err) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    char *save = NULL, *host = strtok_r(line, " \t\r\n", &save);
    if (!host) return 0;
    int slots = -1;
    for (char *w = strtok_r(NULL, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
        int n;
        if (!strncmp(w, "slots=", 6) && !parse_int(w + 6, 1, TWR_MAX_RANKS, &n))
            slots = n;
        else if ((!strncmp(w, "max_slots=", 10) || !strncmp(w, "max-slots=", 10)) &&
                 !parse_int(w + 10, 0, INT_MAX, &n))
            continue; /* a limit: twrun cycles through the hosts instead */
        else
            return twr_error(err, "%s: '%s' is neither slots=N nor max_slots=N", where, w);
    }
    if (add_host_spec(o, host, strlen(host), where, err)) return -1;
    if (slots > 0) {
        if (o->hosts[o->nhosts - 1].slots)
            return twr_error(err, "%s: '%s' gives its slots twice", where, host);
        o->hosts[o->nhosts - 1].slots = slots;
    }
    return 0;
}

static int add_hostfile(twr_options_t *o, const char *path, char *err) {
    FILE *f = fopen(path, "r");
    if (!f) return twr_error(err, "cannot read hostfile '%s': %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int before = o->nhosts, rc = 0;
    for (long number = 1; rc == 0 && getline(&line, &cap, f) >= 0; number++) {
        char where[PATH_MAX + 32];
        snprintf(where, sizeof where, "%s:%ld", path, number);
        rc = hostfile_line(o, line, where, err);
    }
    free(line);
    if (rc == 0 && ferror(f))
        rc = twr_error(err, "cannot read hostfile '%s': %s", path, strerror(errno));
    fclose(f);
    if (rc == 0 && o->nhosts == before) rc = twr_error(err, "hostfile '%s' names no host", path);
    return rc;
}

/* Whether the address in text is one of this machine's interfaces' (loopback too). */
static int is_local_address(const char *text) {
    unsigned char a4[4], a6[16];
    int family = inet_pton(AF_INET, text, a4) == 1    ? AF_INET
                 : inet_pton(AF_INET6, text, a6) == 1 ? AF_INET6
                                                      : 0;
    if (!family) return 0;
    if (family == AF_INET && a4[0] == 127) return 1;
    struct ifaddrs *list;
    if (getifaddrs(&list) != 0) return 0;
    int found = 0;
    for (struct ifaddrs *i = list; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != family) continue;
        if (family == AF_INET)
            found = !memcmp(&((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, a4, 4);
        else
            found = !memcmp(&((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr, a6, 16);
    }
    freeifaddrs(list);
    return found;
}

/* Whether a and b are one name, one of them with domain parts the other has not
 * ("node1" and "node1.cluster.example"). */
static int same_host_name(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;
    if (strncasecmp(a, b, n) != 0) return 0;
    return la == lb || (la > lb ? a[n] : b[n]) == '.';
}

int twr_host_is_local(const char *name) {
    if (!strcasecmp(name, "localhost") || !strncasecmp(name, "localhost.", 10)) return 1;
    char self[256];
    if (gethostname(self, sizeof self) == 0) {
        self[sizeof self - 1] = '\0';
        if (same_host_name(name, self)) return 1;
    }
    return is_local_address(name);
}

static int netns_exists(const char *name) {
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof path, "/var/run/netns/%s", name);
    return stat(path, &st) == 0;
}

/* Each host is this machine or a network namespace, and not both kinds in one job:
 * ranks in twrun's namespace and in another could not reach each other. */
static int classify_hosts(twr_options_t *o, char *err) {
    int local = 0, netns = 0;
    for (int i = 0; i < o->nhosts; i++) {
        twr_host_t *h = &o->hosts[i];
        if (twr_host_is_local(h->name)) {
            h->kind = TWR_HOST_LOCAL;
            local++;
        } else if (netns_exists(h->name)) {
            h->kind = TWR_HOST_NETNS;
            netns++;
        } else {
            return twr_error(
                err,
                "unknown host '%s': it is neither this machine nor a network namespace "
                "(/var/run/netns/%s). twrun starts jobs only on this machine and in its "
                "network namespaces; for other machines use a cluster launcher (Slurm's "
                "srun, MPICH's mpiexec.hydra)",
                h->name, h->name);
        }
    }
    if (local && netns)
        return twr_error(err,
                         "the hosts mix this machine and network namespaces: give only one kind");
    o->netns = netns > 0;
    return 0;
}

/* ---- the command line ---- */

/* Remembers the first option given that srun has no equivalent for: refused only when
 * the job is handed to srun (twr_launch_decide). */
static void srun_lacks(twr_options_t *o, const char *opt) {
    if (!o->not_for_srun[0]) snprintf(o->not_for_srun, sizeof o->not_for_srun, "%s", opt);
}

/* The options that concern the whole job: they may only come before the first ':'. */
static int job_wide(int id) {
    switch (id) {
    case OPT_NP:
    case 'c':
    case OPT_ENV:
    case OPT_ENVLIST:
    case OPT_ENVALL:
    case OPT_ENVNONE:
    case 'x':
    case OPT_WDIR:
        return 0;
    default:
        return 1;
    }
}

static int map_by(twr_options_t *o, const char *val, char *err) {
    char *copy = strdup(val);
    if (!copy) return twr_error(err, "out of memory");
    int rc = 0;
    /* the mapping, then modifiers after ':' (ppr's own fields first) */
    char *save = NULL, *how = strtok_r(copy, ":", &save), *mod;
    if (!how) {
        rc = twr_error(err, "--map-by needs a value");
    } else if (!strcasecmp(how, "ppr")) {
        char *n = strtok_r(NULL, ":", &save), *unit = strtok_r(NULL, ":", &save);
        if (!n || !unit || strcasecmp(unit, "node") || parse_int(n, 1, TWR_MAX_RANKS, &o->ppn))
            rc = twr_error(err, "--map-by ppr takes ppr:N:node, not '%s'", val);
    } else if (!strcasecmp(how, "node")) {
        o->map_by_node = 1;
    } else if (strcasecmp(how, "slot") && strcasecmp(how, "core") && strcasecmp(how, "hwthread")) {
        rc = twr_error(err, "--map-by takes ppr:N:node, node, slot, core or hwthread, not '%s'",
                       val);
    }
    while (rc == 0 && (mod = strtok_r(NULL, ":,", &save)))
        if (!strcasecmp(mod, "oversubscribe"))
            o->oversubscribe = 1;
        else if (strcasecmp(mod, "nooversubscribe"))
            rc = twr_error(err, "--map-by: unknown modifier '%s'", mod);
    free(copy);
    return rc;
}

/* One option of segment s (index k) with its value. */
static int apply_option(twr_options_t *o, int k, int id, const char *opt, char *val, char **argv,
                        int argc, char *err) {
    twr_segment_t *s = &o->segments[k];
    switch (id) {
    case OPT_NP:
    case 'c':
        /* -np4: getopt reads -n with "p4" */
        if (val[0] == 'p' && !strncmp(opt, "-np", 3) && val[1]) val++;
        if (parse_int(val, 1, TWR_MAX_RANKS, &s->nranks))
            return twr_error(err, "the number of ranks must be 1 to %d, not '%s'", TWR_MAX_RANKS,
                             val);
        return 0;
    case OPT_HOSTS:
    case 'H':
        srun_lacks(o, opt);
        return add_host_list(o, opt, val, err);
    case OPT_HOSTFILE:
    case 'f':
        srun_lacks(o, opt);
        return add_hostfile(o, val, err);
    case OPT_PPN:
    case 'N':
        if (parse_int(val, 1, TWR_MAX_RANKS, &o->ppn))
            return twr_error(err, "%s takes a number of ranks per host, 1 to %d, not '%s'", opt,
                             TWR_MAX_RANKS, val);
        return 0;
    case OPT_MAP_BY:
        return map_by(o, val, err);
    case OPT_OVERSUBSCRIBE:
        o->oversubscribe = 1;
        return 0;
    case OPT_BIND_TO:
        if (!strcmp(val, "core"))
            o->bind = TWR_BIND_CORE;
        else if (!strcmp(val, "hwthread"))
            o->bind = TWR_BIND_HWTHREAD;
        else if (!strcmp(val, "none"))
            o->bind = TWR_BIND_NONE;
        else
            return twr_error(err, "--bind-to takes 'core', 'hwthread' or 'none', not '%s'", val);
        o->bind_given = 1;
        return 0;
    case OPT_TIMEOUT:
        if (parse_int(val, 1, INT_MAX / 2, &o->timeout))
            return twr_error(err, "--timeout takes a positive number of seconds, not '%s'", val);
        o->timeout_source = "--timeout";
        return 0;
    case OPT_UNIVERSE: {
        size_t n = strlen(val);
        if (n == 0 || n > 64 ||
            strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
            return twr_error(
                err,
                "--universe takes a name of letters, digits, '.', '_' and '-', at most 64, "
                "not '%s'",
                val);
        srun_lacks(o, opt);
        o->universe = val;
        return 0;
    }
    case OPT_TAG:
    case 'l':
        o->tag_output = 1;
        return 0;
    case OPT_OUTPUT_FILENAME: {
        size_t n = strlen(val);
        o->output_copy = 1;
        if (n >= 7 && !strcasecmp(val + n - 7, ":nocopy")) {
            val[n - 7] = '\0';
            o->output_copy = 0;
        }
        if (!*val) return twr_error(err, "--output-filename needs a directory");
        srun_lacks(o, opt);
        o->output_dir = val;
        return 0;
    }
    case OPT_GENV:
    case OPT_ENV: {
        twr_env_t *e = id == OPT_GENV ? &o->genv : &s->env;
        if (optind >= argc) /* its value: the next word */
            return twr_error(err, "%s takes a variable and its value: %s VAR VALUE", opt, opt);
        if (!env_name_ok(val)) return twr_error(err, "%s: '%s' is not a variable name", opt, val);
        env_set(e, val, argv[optind++]);
        return 0;
    }
    case 'x': {
        twr_env_t *e = k == 0 ? &o->genv : &s->env;
        char *eq = strchr(val, '=');
        if (eq == val || !*val) return twr_error(err, "-x takes VAR or VAR=VALUE, not '%s'", val);
        if (eq) *eq = '\0'; /* argv's own string: VAR, then VALUE */
        env_set(e, val, eq ? eq + 1 : NULL);
        return 0;
    }
    case OPT_GENVLIST:
        return env_list(&o->genv, opt, val, err);
    case OPT_ENVLIST:
        return env_list(&s->env, opt, val, err);
    case OPT_GENVALL:
    case OPT_GENVNONE:
        o->genv.policy = id == OPT_GENVALL ? TWR_ENV_ALL : TWR_ENV_NONE;
        return 0;
    case OPT_ENVALL:
    case OPT_ENVNONE:
        s->env.policy = id == OPT_ENVALL ? TWR_ENV_ALL : TWR_ENV_NONE;
        return 0;
    case OPT_WDIR: {
        struct stat st;
        if (stat(val, &st) != 0 || !S_ISDIR(st.st_mode))
            return twr_error(err, "%s: '%s' is not a directory", opt, val);
        s->wdir = val;
        return 0;
    }
    case OPT_AS_ROOT:
        return 0;
    case OPT_LAUNCHER: /* Hydra's: how ranks are started on the hosts */
        if (!strcmp(val, "fork"))
            o->launcher = TW_LAUNCHER_FORK;
        else if (!strcmp(val, "slurm"))
            o->launcher = TW_LAUNCHER_SLURM;
        else
            return twr_error(
                err,
                "%s %s: twrun starts ranks on this machine, by fork (%s fork), or "
                "inside a Slurm allocation through srun (%s slurm); for other "
                "machines use a cluster launcher (Slurm's srun, MPICH's mpiexec.hydra)",
                opt, val, opt, opt);
        o->launcher_source = strstr(opt, "bootstrap") ? "-bootstrap" : "-launcher";
        return 0;
    case OPT_MCA:
        return twr_error(
            err,
            "%s: Open MPI's MCA parameters mean nothing to Tollway, which is set up by "
            "its TW_* variables (twinfo lists them)",
            opt);
    case OPT_REPORT_BINDINGS:
        o->report_bindings = 1;
        return 0;
    case OPT_VERBOSE:
    case 'v':
        o->verbose = 1;
        return 0;
    case OPT_HELP:
    case 'h':
        o->help = 1;
        return 0;
    case OPT_VERSION:
    case 'V':
        o->version = 1;
        return 0;
    default:
        return twr_error(err, "unknown option '%s'", opt);
    }
}

/* The options of segment k (words argv[1..argc-1], argv[0] a stand-in for the name),
 * and then its program. */
static int parse_segment(twr_options_t *o, int k, int argc, char **argv, char *err) {
    twr_segment_t *s = &o->segments[k];
    s->env.vars = calloc((size_t)argc, sizeof *s->env.vars);
    if (!s->env.vars) return twr_error(err, "out of memory");
    optind = 0; /* glibc: start over on this vector */
    opterr = 0;
    for (;;) {
        int prev = optind ? optind : 1;
        int id = getopt_long_only(argc, argv, short_options, long_options, NULL);
        if (id == -1) break;
        /* the word that held the option: getopt has moved past it (and its value) */
        const char *word = argv[prev];
        char opt[64];
        snprintf(opt, sizeof opt, "%.*s", (int)strcspn(word, "="), word);
        if (id == '?' && optopt >= OPT_HOSTS && strchr(word, '='))
            return twr_error(err, "option '%s' takes no value", opt); /* --oversubscribe=1 */
        if (id == '?') return twr_error(err, "unknown option '%s'", word);
        if (id == ':') return twr_error(err, "option '%s' needs a value", opt);
        /* A one-letter option is a word of its own ("-frob" is not -f rob), but for -n4
         * and -np4, as Hydra and Open MPI users type them. */
        if (id < 256 && id != OPT_NP && word[1] != '-' && strlen(word) > 2)
            return twr_error(err, "unknown option '%s'", word);
        if (k > 0 && job_wide(id))
            return twr_error(err,
                             "'%s' applies to the whole job: give it before the first program, not "
                             "after ':'",
                             opt);
        if (apply_option(o, k, id, opt, optarg, argv, argc, err)) return -1;
        if (o->help || o->version) return 0;
    }
    if (optind >= argc) {
        if (s->nranks == 0 && o->nhosts == 0 && o->nsegments == 1)
            return twr_error(err,
                             "the number of ranks is missing (-n N), and so is the program to run");
        if (o->nsegments > 1)
            return twr_error(err, "program %d of the job (after ':' number %d) is missing", k + 1,
                             k);
        return twr_error(err, "the program to run is missing");
    }
    s->argv = argv + optind;
    return 0;
}

/* What follows from all the options: who starts the ranks, the hosts' kinds, the
 * number of ranks, the environment of each program, the timeout. */
static int finish(twr_options_t *o, char *const *envp, char *err) {
    const char *timeout_env = twr_env_get(envp, "MPIEXEC_TIMEOUT");
    if (twr_launch_decide(o, envp, err)) return -1;
    if (o->nhosts && classify_hosts(o, err)) return -1;
    int slots = 0, any_slots = 0;
    for (int i = 0; i < o->nhosts; i++) {
        slots += o->hosts[i].slots ? o->hosts[i].slots : 1;
        any_slots |= o->hosts[i].slots > 0;
    }
    /* without -n: a rank per slot, or -ppn on every host (as Open MPI does) */
    if (o->ppn) slots = o->nhosts * o->ppn;
    if (o->nsegments == 1 && o->segments[0].nranks == 0 && o->nhosts)
        o->segments[0].nranks = slots > TWR_MAX_RANKS ? TWR_MAX_RANKS : slots;
    o->size = 0;
    for (int k = 0; k < o->nsegments; k++) {
        twr_segment_t *s = &o->segments[k];
        if (s->nranks == 0) {
            if (o->nsegments == 1) return twr_error(err, "the number of ranks is missing (-n N)");
            return twr_error(err, "program %d of the job ('%s') has no number of ranks (-n N)",
                             k + 1, s->argv[0]);
        }
        s->first = o->size;
        if (s->nranks > TWR_MAX_RANKS - o->size)
            return twr_error(err, "the job has more than %d ranks", TWR_MAX_RANKS);
        o->size += s->nranks;
        if (k > 0 && !s->wdir) s->wdir = o->segments[0].wdir;
    }
    /* Namespaces in even blocks (neither slots nor ranks per host given): each needs a rank. */
    if (o->netns && !any_slots && !o->ppn && !o->map_by_node && o->nhosts > o->size)
        return twr_error(err, "%d hosts for %d ranks: a host would have none", o->nhosts, o->size);
    if (o->universe && o->netns)
        return twr_error(err,
                         "--universe and network namespaces do not go together: jobs meet over "
                         "shared memory");
    if (!o->timeout && timeout_env) {
        /* Hydra's variable, which test suites set to bound every job; the option wins */
        if (parse_int(timeout_env, 1, INT_MAX / 2, &o->timeout))
            return twr_error(err, "MPIEXEC_TIMEOUT must be a positive number of seconds, not '%s'",
                             timeout_env);
        o->timeout_source = "MPIEXEC_TIMEOUT";
    }
    if (o->bind == TWR_BIND_DEFAULT) o->bind = o->oversubscribe ? TWR_BIND_NONE : TWR_BIND_CORE;
    return 0;
}

int twr_options_parse(twr_options_t *o, int argc, char **argv, char *const *envp,
                      char err[TWR_ERR_MAX]) {
    memset(o, 0, sizeof *o);
    err[0] = '\0';
    o->genv.policy = TWR_ENV_ALL;
    o->genv.vars = calloc((size_t)argc + 1, sizeof *o->genv.vars);
    /* the segments: the words between ':'s, each after a stand-in for argv[0] */
    int nseg = 1;
    for (int i = 1; i < argc; i++) nseg += strcmp(argv[i], ":") == 0;
    o->segments = calloc((size_t)nseg, sizeof *o->segments);
    if (!o->genv.vars || !o->segments) return twr_error(err, "out of memory");
    o->nsegments = nseg;
    for (int k = 0, i = 1; k < nseg; k++) {
        int end = i;
        while (end < argc && strcmp(argv[end], ":") != 0) end++;
        int n = end - i;
        char **words = calloc((size_t)n + 2, sizeof *words);
        if (!words) return twr_error(err, "out of memory");
        o->segments[k].words = words;
        words[0] = argv[0];
        memcpy(words + 1, argv + i, (size_t)n * sizeof *words);
        if (parse_segment(o, k, n + 1, words, err)) return -1;
        if (o->help || o->version) return 0;
        i = end + 1;
    }
    return finish(o, envp, err);
}

void twr_options_free(twr_options_t *o) {
    for (int k = 0; k < o->nsegments; k++) {
        free(o->segments[k].words);
        env_free(&o->segments[k].env);
    }
    free(o->segments);
    for (int i = 0; i < o->nhosts; i++) free(o->hosts[i].name);
    free(o->hosts);
    env_free(&o->genv);
    memset(o, 0, sizeof *o);
}

int twr_options_slots(const twr_options_t *o, int cpus) {
    long slots = o->nhosts ? 0 : cpus;
    for (int i = 0; i < o->nhosts; i++) slots += o->hosts[i].slots > 0 ? o->hosts[i].slots : 1;
    if (slots > TWR_MAX_RANKS) slots = TWR_MAX_RANKS;
    return slots > o->size ? (int)slots : o->size;
}

void twr_options_place(const twr_options_t *o, int *host) {
    int n = o->size, h = 0, used = 0;
    if (!o->netns) {
        for (int i = 0; i < n; i++) host[i] = 0;
        return;
    }
    int any_slots = 0;
    for (int i = 0; i < o->nhosts; i++) any_slots |= o->hosts[i].slots > 0;
    if (!any_slots && !o->ppn && !o->map_by_node) { /* even blocks, in order */
        for (int i = 0; i < n; i++) host[i] = (int)((long)i * o->nhosts / n);
        return;
    }
    for (int i = 0; i < n; i++) {
        int per = o->map_by_node ? 1 : o->ppn ? o->ppn : o->hosts[h].slots ? o->hosts[h].slots : 1;
        if (used == per) {
            h = (h + 1) % o->nhosts;
            used = 0;
        }
        host[i] = h;
        used++;
    }
}
