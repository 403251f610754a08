/* twrun's command line: what was asked, as Open MPI's mpirun and MPICH's Hydra users
 * spell it. Parsing does no I/O but reading hostfiles and looking at hosts (this
 * machine's names and addresses, /var/run/netns); it never exits, so it can be tested. */
#ifndef TWRUN_OPTIONS_H
#define TWRUN_OPTIONS_H

#include <stddef.h>

enum {
    TWR_MAX_RANKS = 4096,
    TWR_ERR_MAX = 512,
};

typedef enum twr_env_policy {
    TWR_ENV_UNSET, /* a segment that said nothing: the job's policy */
    TWR_ENV_ALL,   /* the ranks get twrun's environment (the default) */
    TWR_ENV_NONE,  /* only what the options set */
    TWR_ENV_LIST,  /* only the variables listed, and what the options set */
} twr_env_policy_t;

/* One variable the options set (value) or pass on from twrun's environment (value NULL). */
typedef struct twr_env_var {
    const char *name;
    const char *value;
} twr_env_var_t;

typedef struct twr_env {
    twr_env_policy_t policy;
    char **list; /* TWR_ENV_LIST: names to pass on, nlist of them */
    int nlist;
    twr_env_var_t *vars; /* applied in order, after the policy */
    int nvars;
} twr_env_t;

/* One program of an MPMD job: the part of the command line between two ':'. */
typedef struct twr_segment {
    int nranks;       /* -n; 0 while not given */
    int first;        /* the MPI_COMM_WORLD rank of its first rank */
    char **argv;      /* the program and its arguments, NULL-terminated */
    const char *wdir; /* NULL: twrun's working directory */
    twr_env_t env;    /* -env, -envall, -envnone, -envlist, and -x after the first ':' */
    char **words;     /* its part of the command line, argv points into it */
} twr_segment_t;

typedef enum twr_host_kind {
    TWR_HOST_LOCAL, /* this machine */
    TWR_HOST_NETNS, /* a network namespace under /var/run/netns standing in for a host */
} twr_host_kind_t;

typedef struct twr_host {
    char *name;
    int slots; /* 0: none given */
    twr_host_kind_t kind;
} twr_host_t;

typedef enum twr_bind {
    TWR_BIND_DEFAULT,
    TWR_BIND_CORE,
    TWR_BIND_HWTHREAD,
    TWR_BIND_NONE
} twr_bind_t;

typedef struct twr_options {
    int help, version; /* asked for; nothing else was checked */
    twr_segment_t *segments;
    int nsegments;
    int size; /* ranks of all segments */
    twr_host_t *hosts;
    int nhosts;
    int netns;       /* the hosts are network namespaces (else: this machine, or none given) */
    int ppn;         /* ranks per host, 0: not given */
    int map_by_node; /* --map-by node: a rank per host in turn */
    int oversubscribe;
    int report_bindings; /* each rank says where it is bound */
    twr_bind_t bind;
    int tag_output;             /* -l, --tag-output, -prepend-rank */
    const char *output_dir;     /* --output-filename DIR */
    int output_copy;            /* and to twrun's stdout/stderr too (not DIR:nocopy) */
    int timeout;                /* seconds, 0: none */
    const char *timeout_source; /* "--timeout" or "MPIEXEC_TIMEOUT" */
    const char *universe;
    twr_env_t genv; /* -genv*, and -x before the first ':' */
} twr_options_t;

/* Parses argv (argv[0] is twrun's name) into o. Returns 0, or -1 with a message in err
 * (no "twrun: " prefix). The strings o points to are argv's or o's own; timeout_env is
 * MPIEXEC_TIMEOUT's value (or NULL). */
int twr_options_parse(twr_options_t *o, int argc, char **argv, const char *timeout_env,
                      char err[TWR_ERR_MAX]);
void twr_options_free(twr_options_t *o);

/* Which host each rank goes to (host[i] for MPI_COMM_WORLD rank i, an index in
 * o->hosts; all 0 when there are no namespaces): in blocks of ppn, or filling each
 * host's slots, cycling through the hosts until every rank has one (as Hydra does); with
 * neither given, in o->nhosts even blocks. */
void twr_options_place(const twr_options_t *o, int *host);

/* Whether name is this machine: localhost, its host name or a longer or shorter form
 * of it, or an address of one of its interfaces. */
int twr_host_is_local(const char *name);

extern const char twr_usage_text[];

#endif
