/* twrun's command line: what was asked, as Open MPI's mpirun and MPICH's Hydra users
 * spell it, and whether twrun starts the ranks or hands the job to Slurm's srun (inside
 * an allocation). Parsing does no I/O but reading hostfiles and looking at hosts (this
 * machine's names and addresses, /var/run/netns); the environment it reads is given,
 * and it never exits, so it can be tested. */
#ifndef TWRUN_OPTIONS_H
#define TWRUN_OPTIONS_H

#include <stddef.h>

#include <tollway/settings.h>

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

/* Who does, as decided. */
typedef enum twr_launch {
    TWR_LAUNCH_HERE, /* twrun forks the ranks and serves them PMI-1 */
    TWR_LAUNCH_SRUN, /* twrun runs srun (twr_srun_command), which starts them */
} twr_launch_t;

/* The Slurm allocation twrun runs in, from the variables Slurm sets. */
typedef struct twr_allocation {
    const char *job_id;  /* SLURM_JOB_ID; NULL outside an allocation */
    const char *step_id; /* SLURM_STEP_ID: twrun runs in a step (srun started it) */
    int tasks;           /* the tasks it holds (when handing to srun) */
    char tasks_from[80]; /* the variable that said so, with its value: "SLURM_NTASKS=4" */
} twr_allocation_t;

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
    twr_env_t genv;                /* -genv*, and -x before the first ':' */
    int verbose;                   /* -v: say how the job is started */
    int bind_given;                /* --bind-to was given (bind is set either way) */
    tw_launcher_choice_t launcher; /* -launcher, -bootstrap, else TW_LAUNCHER */
    const char *launcher_source;   /* what asked for it: "-launcher", "TW_LAUNCHER"; NULL: auto */
    twr_launch_t launch;
    twr_allocation_t alloc;
    char not_for_srun[64]; /* the first option given that srun has no equivalent for; "" */
} twr_options_t;

/* Parses argv (argv[0] is twrun's name) into o. Returns 0, or -1 with a message in err
 * (no "twrun: " prefix). The strings o points to are argv's, envp's or o's own. envp
 * (NULL-terminated, or NULL for none) is the environment twrun runs in: it reads
 * MPIEXEC_TIMEOUT, TW_LAUNCHER and Slurm's SLURM_* variables from it. Inside an
 * allocation that the job is handed to srun in, a missing -n is the allocation's task
 * count, and more ranks than that are refused (unless --oversubscribe). */
int twr_options_parse(twr_options_t *o, int argc, char **argv, char *const *envp,
                      char err[TWR_ERR_MAX]);
void twr_options_free(twr_options_t *o);

/* Which host each rank goes to (host[i] for MPI_COMM_WORLD rank i, an index in
 * o->hosts; all 0 when there are no namespaces): in blocks of ppn, or filling each
 * host's slots, cycling through the hosts until every rank has one (as Hydra does); with
 * neither given, in o->nhosts even blocks. */
void twr_options_place(const twr_options_t *o, int *host);

/* The slots of the job's hosts, MPI_UNIVERSE_SIZE: the slot counts given (a host given
 * without one is one slot, as in Hydra), or with no hosts cpus (this machine's, as Open
 * MPI counts them); never fewer than the job's ranks. */
int twr_options_slots(const twr_options_t *o, int cpus);

/* Whether name is this machine: localhost, its host name or a longer or shorter form
 * of it, or an address of one of its interfaces. */
int twr_host_is_local(const char *name);

/* The value of name in envp, or NULL. */
const char *twr_env_get(char *const *envp, const char *name);

/* The srun command line that runs the job o describes (o->launch == TWR_LAUNCH_SRUN),
 * with Slurm's MPI plugin mpi ("pmix" or "pmi2"), and the variables to set in srun's
 * environment first (the -x, -genv and -env values, which srun passes on). */
typedef struct twr_srun {
    char **argv; /* "srun", its options, the program and its arguments; NULL-terminated */
    int argc;
    twr_env_var_t *set; /* name and value pairs, nset of them */
    int nset;
    char *export_list; /* argv's --export= value, owned here */
} twr_srun_t;
int twr_srun_command(const twr_options_t *o, const char *mpi, twr_srun_t *cmd,
                     char err[TWR_ERR_MAX]);
void twr_srun_free(twr_srun_t *cmd);

/* The MPI plugin srun is to use, from what `srun --mpi=list` printed: "pmix" when this
 * build has a PMIx client (have_pmix) and srun lists pmix, else "pmi2" when it lists
 * that; NULL when it lists neither. */
const char *twr_srun_mpi(const char *mpi_list, int have_pmix);

extern const char twr_usage_text[];

/* Writes the message into err (TWR_ERR_MAX bytes); returns -1, a parser's failure. */
__attribute__((format(printf, 2, 3))) int twr_error(char *err, const char *fmt, ...);

/* For the parser (slurm.c): decides o->launch from o->launcher, TW_LAUNCHER and the
 * SLURM_* variables of envp, and when srun is to start the job, fills o->alloc, gives a
 * single program without -n the allocation's tasks, and refuses what srun cannot run. */
int twr_launch_decide(twr_options_t *o, char *const *envp, char err[TWR_ERR_MAX]);

#endif
