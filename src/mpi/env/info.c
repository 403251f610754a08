/* Info objects (MPI-3.1 chapter 9): ordered sets of (key, value) strings, and the
 * predefined MPI_INFO_ENV, filled at MPI_Init with what MPI-3.1 section 9 lists.
 * As MPI-4.0 allows, every info call works before MPI_Init and after MPI_Finalize
 * too (their errors then end the process, there being no communicator to return
 * them on).
 *
 * An info object is named by 0x5c000000 | index into a table that grows as needed;
 * index 1 is MPI_INFO_ENV, which a program may read but not change or free. Keys
 * keep the order they were first set in (MPI_Info_get_nthkey); setting a key again
 * replaces its value in place. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tollway/endpoint.h>

#include "mpi/env/error.h"
#include "mpi/env/info.h"
#include "mpi/env/state.h"

typedef struct info {
    int n, cap;
    char **keys, **values;
} info_t;

enum { ENV_INDEX = 1, MAX_INFOS = 1 << 24 };
#define INFO_KIND 0x5cu

static info_t **table; /* index 0 unused */
static size_t table_len, table_cap;
static int *free_idx; /* indices freed, reused last in first out */
static size_t free_n, free_cap;

static info_t *object_of(MPI_Info h) {
    size_t i = (unsigned)h & 0xffffff;
    if (((unsigned)h >> 24) != INFO_KIND || i == 0 || i >= table_len) return NULL;
    return table[i];
}

int tw_mpi_info_ok(MPI_Info info) {
    return info == MPI_INFO_NULL || object_of(info) != NULL;
}

/* A new, empty object and its handle; MPI_ERR_NO_MEM. */
static int handle_new(MPI_Info *h) {
    info_t *o = calloc(1, sizeof *o);
    if (!o) return MPI_ERR_NO_MEM;
    size_t i;
    if (free_n) {
        i = (size_t)free_idx[--free_n];
    } else {
        if (!table_len) table_len = ENV_INDEX + 1; /* MPI_INFO_ENV's slot is reserved */
        if (table_len >= MAX_INFOS) {
            free(o);
            return MPI_ERR_NO_MEM;
        }
        if (table_len >= table_cap) {
            size_t n = table_cap ? table_cap * 2 : 64;
            info_t **t = realloc(table, n * sizeof *t);
            if (!t) {
                free(o);
                return MPI_ERR_NO_MEM;
            }
            memset(t + table_cap, 0, (n - table_cap) * sizeof *t);
            table = t;
            table_cap = n;
        }
        i = table_len++;
    }
    table[i] = o;
    *h = (MPI_Info)(INFO_KIND << 24 | i);
    return MPI_SUCCESS;
}

static void object_free(info_t *o) {
    for (int k = 0; k < o->n; k++) {
        free(o->keys[k]);
        free(o->values[k]);
    }
    free(o->keys);
    free(o->values);
    free(o);
}

static void handle_free(MPI_Info h) {
    size_t i = (unsigned)h & 0xffffff;
    object_free(table[i]);
    table[i] = NULL;
    if (free_n == free_cap) {
        size_t n = free_cap ? free_cap * 2 : 64;
        int *f = realloc(free_idx, n * sizeof *f);
        if (!f) return; /* the index is lost, not reused */
        free_idx = f;
        free_cap = n;
    }
    free_idx[free_n++] = (int)i;
}

static int find(const info_t *o, const char *key) {
    for (int k = 0; k < o->n; k++)
        if (!strcmp(o->keys[k], key)) return k;
    return -1;
}

/* Adds or replaces key; MPI_ERR_NO_MEM leaves the object as it was. */
static int put(info_t *o, const char *key, const char *value) {
    char *v = strdup(value);
    if (!v) return MPI_ERR_NO_MEM;
    int k = find(o, key);
    if (k >= 0) {
        free(o->values[k]);
        o->values[k] = v;
        return MPI_SUCCESS;
    }
    if (o->n == o->cap) {
        int n = o->cap ? o->cap * 2 : 8;
        char **ks = realloc(o->keys, (size_t)n * sizeof *ks);
        if (ks) o->keys = ks;
        char **vs = ks ? realloc(o->values, (size_t)n * sizeof *vs) : NULL;
        if (vs) o->values = vs;
        if (!ks || !vs) {
            free(v);
            return MPI_ERR_NO_MEM;
        }
        o->cap = n;
    }
    char *kc = strdup(key);
    if (!kc) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    o->keys[o->n] = kc;
    o->values[o->n++] = v;
    return MPI_SUCCESS;
}

/* ---- the interface of the rest of the library ---- */

const char *tw_mpi_info_value(MPI_Info info, const char *key) {
    info_t *o = object_of(info);
    int k = o ? find(o, key) : -1;
    return k >= 0 ? o->values[k] : NULL;
}

int tw_mpi_info_new(MPI_Info *info) {
    return handle_new(info);
}

int tw_mpi_info_put(MPI_Info info, const char *key, const char *value) {
    info_t *o = object_of(info);
    return o ? put(o, key, value) : MPI_ERR_INFO;
}

void tw_mpi_info_drop(MPI_Info info) {
    if (object_of(info)) handle_free(info);
}

static const char *thread_level_name(int level) {
    switch (level) {
    case MPI_THREAD_SINGLE:
        return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
        return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
        return "MPI_THREAD_SERIALIZED";
    default:
        return "MPI_THREAD_MULTIPLE";
    }
}

/* Sets key of MPI_INFO_ENV to value cut to MPI_MAX_INFO_VAL characters. */
static void env_put(info_t *env, const char *key, const char *value) {
    char v[MPI_MAX_INFO_VAL + 1];
    snprintf(v, sizeof v, "%s", value);
    if (v[0]) put(env, key, v);
}

/* The process's own command line from /proc: its words, NUL-separated, in buf. */
static int own_argv(char *buf, size_t cap, char **words, int max) {
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f) return 0;
    size_t len = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[len] = '\0';
    int n = 0;
    for (size_t at = 0; at < len && n < max; at += strlen(buf + at) + 1) words[n++] = buf + at;
    return n;
}

/* Fills an object with the keys of MPI_INFO_ENV (MPI-3.1 section 9, MPI-4.1 section
 * 11.2.4): the command line (argv, or the process's own when NULL), the job's size
 * and where it runs (job_size 0: not known); thread_level when known (NULL: not). */
static void fill_env(info_t *env, int argc, char **argv, int job_size, const char *thread_level) {
    char buf[8192], *words[256];
    if (!argv || argc <= 0) {
        argc = own_argv(buf, sizeof buf, words, 256);
        argv = words;
    }
    if (argc > 0 && argv[0]) env_put(env, "command", argv[0]);
    char args[MPI_MAX_INFO_VAL + 1] = "";
    size_t at = 0;
    for (int k = 1; k < argc && argv[k] && at < sizeof args - 1; k++)
        at += (size_t)snprintf(args + at, sizeof args - at, "%s%s", k > 1 ? " " : "", argv[k]);
    env_put(env, "argv", args);
    if (job_size > 0) {
        char num[32];
        snprintf(num, sizeof num, "%d", job_size);
        env_put(env, "maxprocs", num);
        env_put(env, "soft", num); /* the one count the job was started with */
    }
    char host[256];
    if (!gethostname(host, sizeof host)) {
        host[sizeof host - 1] = '\0';
        env_put(env, "host", host);
    }
    struct utsname u;
    if (!uname(&u)) env_put(env, "arch", u.machine);
    char *wdir = getcwd(NULL, 0);
    if (wdir) env_put(env, "wdir", wdir);
    free(wdir);
    if (thread_level) env_put(env, "thread_level", thread_level);
}

void tw_mpi_info_env_init(int argc, char **argv, int required) {
    if (table_cap <= ENV_INDEX) { /* no object yet: the table starts here */
        info_t **t = calloc(64, sizeof *t);
        if (!t) return;
        table = t;
        table_cap = 64;
        table_len = ENV_INDEX + 1;
    }
    if (!table[ENV_INDEX] && !(table[ENV_INDEX] = calloc(1, sizeof(info_t)))) return;
    fill_env(table[ENV_INDEX], argc, argv, tw_mpi.size, thread_level_name(required));
}

/* ---- the calls ---- */

/* The object of a handle for call, or NULL after raising MPI_ERR_INFO; writable:
 * MPI_INFO_ENV refused too. */
static info_t *info_of(const char *call, MPI_Info info, int writable, int *rc) {
    info_t *o = object_of(info);
    *rc = MPI_SUCCESS;
    if (!o)
        *rc = tw_mpi_error(NULL, call, MPI_ERR_INFO,
                           info == MPI_INFO_NULL ? "MPI_INFO_NULL" : "not an info object");
    else if (writable && ((unsigned)info & 0xffffff) == ENV_INDEX)
        *rc = tw_mpi_error(NULL, call, MPI_ERR_INFO, "MPI_INFO_ENV cannot be changed or freed");
    return *rc ? NULL : o;
}

/* MPI_SUCCESS when key is 1..MPI_MAX_INFO_KEY characters, else the error raised. */
static int check_key(const char *call, const char *key) {
    if (!key) return tw_mpi_error(NULL, call, MPI_ERR_INFO_KEY, "key is NULL");
    size_t len = strnlen(key, MPI_MAX_INFO_KEY + 1);
    if (!len) return tw_mpi_error(NULL, call, MPI_ERR_INFO_KEY, "empty key");
    if (len > MPI_MAX_INFO_KEY)
        return tw_mpi_error(NULL, call, MPI_ERR_INFO_KEY, "key longer than MPI_MAX_INFO_KEY");
    return MPI_SUCCESS;
}

int MPI_Info_create(MPI_Info *info) {
    if (!info) return tw_mpi_error(NULL, "MPI_Info_create", MPI_ERR_ARG, "info is NULL");
    int rc = handle_new(info);
    return rc ? tw_mpi_error(NULL, "MPI_Info_create", rc, NULL) : MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info info, const char *key, const char *value) {
    const char *call = "MPI_Info_set";
    int rc;
    info_t *o = info_of(call, info, 1, &rc);
    if (!o) return rc;
    if ((rc = check_key(call, key))) return rc;
    if (!value) return tw_mpi_error(NULL, call, MPI_ERR_INFO_VALUE, "value is NULL");
    size_t len = strnlen(value, MPI_MAX_INFO_VAL + 1);
    if (!len) return tw_mpi_error(NULL, call, MPI_ERR_INFO_VALUE, "empty value");
    if (len > MPI_MAX_INFO_VAL)
        return tw_mpi_error(NULL, call, MPI_ERR_INFO_VALUE, "value longer than MPI_MAX_INFO_VAL");
    rc = put(o, key, value);
    return rc ? tw_mpi_error(NULL, call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char *key) {
    const char *call = "MPI_Info_delete";
    int rc;
    info_t *o = info_of(call, info, 1, &rc);
    if (!o) return rc;
    if ((rc = check_key(call, key))) return rc;
    int k = find(o, key);
    if (k < 0) return tw_mpi_error(NULL, call, MPI_ERR_INFO_NOKEY, NULL);
    free(o->keys[k]);
    free(o->values[k]);
    memmove(o->keys + k, o->keys + k + 1, (size_t)(o->n - k - 1) * sizeof *o->keys);
    memmove(o->values + k, o->values + k + 1, (size_t)(o->n - k - 1) * sizeof *o->values);
    o->n--;
    return MPI_SUCCESS;
}

int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag) {
    const char *call = "MPI_Info_get";
    int rc;
    info_t *o = info_of(call, info, 0, &rc);
    if (!o) return rc;
    if ((rc = check_key(call, key))) return rc;
    if (valuelen < 0) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "negative valuelen");
    if (!value || !flag) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "value or flag is NULL");
    int k = find(o, key);
    *flag = k >= 0;
    if (k >= 0) { /* at most valuelen characters, then the terminator */
        size_t len = strlen(o->values[k]);
        if (len > (size_t)valuelen) len = (size_t)valuelen;
        memcpy(value, o->values[k], len);
        value[len] = '\0';
    }
    return MPI_SUCCESS;
}

int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag) {
    const char *call = "MPI_Info_get_valuelen";
    int rc;
    info_t *o = info_of(call, info, 0, &rc);
    if (!o) return rc;
    if ((rc = check_key(call, key))) return rc;
    if (!valuelen || !flag) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "an output is NULL");
    int k = find(o, key);
    *flag = k >= 0;
    if (k >= 0) *valuelen = (int)strlen(o->values[k]);
    return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info info, int *nkeys) {
    int rc;
    info_t *o = info_of("MPI_Info_get_nkeys", info, 0, &rc);
    if (!o) return rc;
    if (!nkeys) return tw_mpi_error(NULL, "MPI_Info_get_nkeys", MPI_ERR_ARG, "nkeys is NULL");
    *nkeys = o->n;
    return MPI_SUCCESS;
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char *key) {
    const char *call = "MPI_Info_get_nthkey";
    int rc;
    info_t *o = info_of(call, info, 0, &rc);
    if (!o) return rc;
    if (n < 0 || n >= o->n) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "n is not 0..nkeys-1");
    if (!key) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "key is NULL");
    snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", o->keys[n]);
    return MPI_SUCCESS;
}

int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo) {
    const char *call = "MPI_Info_dup";
    int rc;
    if (!info_of(call, info, 0, &rc)) return rc;
    if (!newinfo) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "newinfo is NULL");
    MPI_Info h;
    if ((rc = handle_new(&h))) return tw_mpi_error(NULL, call, rc, NULL);
    info_t *o = object_of(info), *d = object_of(h); /* the table may have moved */
    for (int k = 0; k < o->n && !rc; k++) rc = put(d, o->keys[k], o->values[k]);
    if (rc) {
        handle_free(h);
        return tw_mpi_error(NULL, call, rc, NULL);
    }
    *newinfo = h;
    return MPI_SUCCESS;
}

int MPI_Info_free(MPI_Info *info) {
    if (!info) return tw_mpi_error(NULL, "MPI_Info_free", MPI_ERR_ARG, "info is NULL");
    int rc;
    if (!info_of("MPI_Info_free", *info, 1, &rc)) return rc;
    handle_free(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

/* ---- MPI-4.0 ---- */

/* An object built as MPI_INFO_ENV is, from argc and argv (NULL: the process's own
 * command line, as MPI_Init(NULL, NULL) does); callable before MPI_Init, when the
 * job's size and thread level are not known yet and their keys are left out. */
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info) {
    const char *call = "MPI_Info_create_env";
    if (!info) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "info is NULL");
    if (argc < 0) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "negative argc");
    MPI_Info h;
    int rc = handle_new(&h);
    if (rc) return tw_mpi_error(NULL, call, rc, NULL);
    /* the same keys before MPI_Init, during and after MPI_Finalize: the job's size as
     * its launcher gave it, and no thread_level, which only MPI_Init_thread sets */
    fill_env(object_of(h), argc, argv, tw_launch_size(), NULL);
    *info = h;
    return MPI_SUCCESS;
}

/* buflen in: the room at value, the terminator included; out: the value's length
 * plus one, so a caller learns the room it needs (0 in: nothing written, value may
 * be NULL). A longer value is cut to buflen - 1 characters. A key not there: flag
 * 0 and buflen untouched. */
int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag) {
    const char *call = "MPI_Info_get_string";
    int rc;
    info_t *o = info_of(call, info, 0, &rc);
    if (!o) return rc;
    if ((rc = check_key(call, key))) return rc;
    if (!buflen || !flag) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "buflen or flag is NULL");
    if (*buflen < 0) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "negative buflen");
    if (*buflen > 0 && !value) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "value is NULL");
    int k = find(o, key);
    *flag = k >= 0;
    if (k < 0) return MPI_SUCCESS;
    size_t len = strlen(o->values[k]);
    if (*buflen > 0) {
        size_t n = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;
        memcpy(value, o->values[k], n);
        value[n] = '\0';
    }
    *buflen = (int)len + 1;
    return MPI_SUCCESS;
}

int tw_mpi_info_bool(MPI_Info info, const char *key) {
    const char *v = tw_mpi_info_value(info, key);
    if (!v) return -1;
    if (!strcasecmp(v, "true")) return 1;
    if (!strcasecmp(v, "false")) return 0;
    return -1;
}
