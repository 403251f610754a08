#include "pmi_server.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPICH ranks read this to learn that every rank shares one node. */
static const char process_mapping_key[] = "PMI_process_mapping";

static uint64_t hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static twr_pmi_entry_t *slot_of(const twr_pmi_server_t *s, const char *key) {
    size_t mask = s->table_cap - 1;
    for (size_t i = (size_t)hash(key) & mask;; i = (i + 1) & mask)
        if (!s->table[i].key || strcmp(s->table[i].key, key) == 0) return &s->table[i];
}

static int grow(twr_pmi_server_t *s) {
    size_t cap = s->table_cap ? s->table_cap * 2 : 64;
    twr_pmi_entry_t *old = s->table;
    size_t old_cap = s->table_cap;
    s->table = calloc(cap, sizeof *s->table);
    if (!s->table) {
        s->table = old;
        return -1;
    }
    s->table_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key) *slot_of(s, old[i].key) = old[i];
    free(old);
    return 0;
}

/* Stores key=value (copied); the caller has checked for duplicates and limits. */
static int store(twr_pmi_server_t *s, const char *key, const char *value) {
    if ((s->count + 1) * 2 > s->table_cap && grow(s)) return -1;
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    twr_pmi_entry_t *e = slot_of(s, key);
    e->key = k;
    e->value = v;
    s->count++;
    return 0;
}

int twr_pmi_server_init(twr_pmi_server_t *s, int size, const char *jobid) {
    memset(s, 0, sizeof *s);
    s->size = size;
    s->universe_size = size;
    s->max_count = (size_t)size * TWR_PMI_KEYS_PER_RANK + 1;
    snprintf(s->kvsname, sizeof s->kvsname, "tw-%s", jobid);
    s->keys_of = calloc((size_t)size, sizeof *s->keys_of);
    s->in_barrier = calloc((size_t)size, 1);
    s->appnum = calloc((size_t)size, sizeof *s->appnum);
    s->spawn_parts = calloc((size_t)size, sizeof *s->spawn_parts);
    char mapping[64];
    snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", size);
    if (!s->keys_of || !s->in_barrier || !s->appnum || !s->spawn_parts ||
        store(s, process_mapping_key, mapping)) {
        twr_pmi_server_destroy(s);
        return -1;
    }
    return 0;
}

void twr_pmi_set_universe_size(twr_pmi_server_t *s, int slots) {
    s->universe_size = slots > s->size ? slots : s->size;
}

void twr_pmi_server_destroy(twr_pmi_server_t *s) {
    for (size_t i = 0; i < s->table_cap; i++) {
        free(s->table[i].key);
        free(s->table[i].value);
    }
    free(s->table);
    free(s->keys_of);
    free(s->in_barrier);
    free(s->appnum);
    for (int r = 0; s->spawn_parts && r < s->size; r++) free(s->spawn_parts[r].spec);
    free(s->spawn_parts);
    memset(s, 0, sizeof *s);
}

void twr_pmi_set_appnum(twr_pmi_server_t *s, int rank, int appnum) {
    if (rank >= 0 && rank < s->size) s->appnum[rank] = appnum;
}

int twr_pmi_in_barrier(const twr_pmi_server_t *s, int rank) {
    return rank >= 0 && rank < s->size && s->in_barrier[rank];
}

__attribute__((format(printf, 3, 4))) static void
respond(twr_pmi_result_t *out, twr_pmi_action_t action, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out->reply, sizeof out->reply - 1, fmt, ap);
    va_end(ap);
    /* Every format fits by construction; clamp anyway so a reply is always one line. */
    size_t len = n < 0 ? 0 : (size_t)n;
    if (len > sizeof out->reply - 2) len = sizeof out->reply - 2;
    out->reply[len++] = '\n';
    out->reply[len] = '\0';
    out->len = len;
    out->action = action;
}

void twr_pmi_line_too_long(twr_pmi_result_t *out) {
    respond(out, TWR_PMI_REPLY, "cmd=error rc=-1 msg=line_too_long");
}

static void do_init(const tw_pmi_msg_t *m, twr_pmi_result_t *out) {
    const char *v = tw_pmi_find(m, "pmi_version");
    int rc = v && strcmp(v, "1") == 0 ? 0 : -1;
    respond(out, TWR_PMI_REPLY, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=%d", rc);
}

static int kvsname_ok(const twr_pmi_server_t *s, const tw_pmi_msg_t *m) {
    const char *k = tw_pmi_find(m, "kvsname");
    return k && strcmp(k, s->kvsname) == 0;
}

static void do_put(twr_pmi_server_t *s, int rank, const tw_pmi_msg_t *m, twr_pmi_result_t *out) {
    const char *key = tw_pmi_find(m, "key"), *value = tw_pmi_find(m, "value");
    const char *err = NULL;
    if (!kvsname_ok(s, m))
        err = "invalid_kvsname";
    else if (!key || !tw_pmi_token_ok(key, TW_PMI_KEY_MAX, 1))
        err = "invalid_key";
    else if (!value || !tw_pmi_token_ok(value, TW_PMI_VALUE_MAX, 0))
        err = "invalid_value";
    if (!err) {
        const twr_pmi_entry_t *e = slot_of(s, key);
        if (e->key) {
            /* A repeated identical put is harmless (a retry); a changed value is not. */
            if (strcmp(e->value, value) != 0) err = "duplicate_key";
        } else if (s->keys_of[rank] >= TWR_PMI_KEYS_PER_RANK || s->count >= s->max_count) {
            err = "kvs_full";
        } else if (store(s, key, value)) {
            err = "out_of_memory";
        } else {
            s->keys_of[rank]++;
        }
    }
    if (err)
        respond(out, TWR_PMI_REPLY, "cmd=put_result rc=-1 msg=%s", err);
    else
        respond(out, TWR_PMI_REPLY, "cmd=put_result rc=0 msg=success");
}

static void do_get(twr_pmi_server_t *s, const tw_pmi_msg_t *m, twr_pmi_result_t *out) {
    const char *key = tw_pmi_find(m, "key");
    if (!kvsname_ok(s, m)) {
        respond(out, TWR_PMI_REPLY, "cmd=get_result rc=-1 msg=invalid_kvsname");
        return;
    }
    if (!key || !tw_pmi_token_ok(key, TW_PMI_KEY_MAX, 1)) {
        respond(out, TWR_PMI_REPLY, "cmd=get_result rc=-1 msg=invalid_key");
        return;
    }
    const twr_pmi_entry_t *e = slot_of(s, key);
    if (e->key)
        respond(out, TWR_PMI_REPLY, "cmd=get_result rc=0 value=%s msg=success", e->value);
    else
        respond(out, TWR_PMI_REPLY, "cmd=get_result rc=-1 msg=key_not_found");
}

static void do_barrier(twr_pmi_server_t *s, int rank, twr_pmi_result_t *out) {
    if (s->in_barrier[rank]) {
        respond(out, TWR_PMI_REPLY, "cmd=error rc=-1 msg=already_in_barrier");
        return;
    }
    s->in_barrier[rank] = 1;
    if (++s->barrier_count < s->size) {
        out->action = TWR_PMI_WAIT;
        out->len = 0;
        out->reply[0] = '\0';
        return;
    }
    memset(s->in_barrier, 0, (size_t)s->size);
    s->barrier_count = 0;
    respond(out, TWR_PMI_BARRIER_DONE, "cmd=barrier_out");
}

static void do_abort(const tw_pmi_msg_t *m, twr_pmi_result_t *out) {
    const char *v = tw_pmi_find(m, "exitcode");
    long code = 1;
    if (v) {
        char *end;
        errno = 0;
        code = strtol(v, &end, 10);
        if (errno || end == v || *end) code = 1;
    }
    /* As an exit status: 0..255, and an abort never reads as success. */
    code &= 0xff;
    out->abort_code = code ? (int)code : 1;
    out->action = TWR_PMI_ABORT;
    out->len = 0;
    out->reply[0] = '\0';
}

void twr_pmi_spawn_reply(twr_pmi_result_t *out, int base, int size, const char *msg, int failed) {
    if (msg)
        respond(out, TWR_PMI_REPLY, "cmd=spawn_result rc=-1 msg=%s failed=%d", msg, failed);
    else
        respond(out, TWR_PMI_REPLY, "cmd=spawn_result rc=0 base=%d size=%d", base, size);
}

/* Appends a spec value v to the parts a rank keeps: NULL, or why its spawn will be
 * refused. */
static const char *keep_part(twr_pmi_spawn_parts_t *k, const char *v) {
    size_t n = v ? strlen(v) : 0;
    if (!n) return "malformed_spawn";
    if (n >= TW_PMI_SPAWN_MAX - k->len) return "spawn_too_long";
    char *grown = realloc(k->spec, k->len + n + 1);
    if (!grown) return "out_of_memory";
    memcpy(grown + k->len, v, n + 1);
    k->spec = grown;
    k->len += n;
    return NULL;
}

/* A first part of rank's spawn request, whose spawn line joins it: kept, no reply.
 * What goes wrong is told when the spawn line comes (the client reads one reply). */
static void do_spawn_part(twr_pmi_server_t *s, int rank, const tw_pmi_msg_t *m,
                          twr_pmi_result_t *out) {
    twr_pmi_spawn_parts_t *k = &s->spawn_parts[rank];
    if (!k->refused) k->refused = keep_part(k, tw_pmi_find(m, "spec"));
    out->action = TWR_PMI_NONE;
    out->len = 0;
    out->reply[0] = '\0';
}

static void do_spawn(twr_pmi_server_t *s, int rank, const tw_pmi_msg_t *m, twr_pmi_result_t *out) {
    twr_pmi_spawn_parts_t *k = &s->spawn_parts[rank];
    const char *spec = tw_pmi_find(m, "spec"), *refused = k->refused;
    if (!refused && k->len) { /* the parts first, then this line's */
        refused = keep_part(k, spec);
        spec = k->spec;
    }
    if (!refused && tw_pmi_spawn_decode(&out->spawn, tw_pmi_find(m, "port"), spec))
        refused = "malformed_spawn";
    free(k->spec);
    *k = (twr_pmi_spawn_parts_t){0};
    if (refused) {
        twr_pmi_spawn_reply(out, 0, 0, refused, -1);
        return;
    }
    out->action = TWR_PMI_SPAWN;
    out->len = 0;
    out->reply[0] = '\0';
}

void twr_pmi_handle(twr_pmi_server_t *s, int rank, const char *line, size_t len,
                    twr_pmi_result_t *out) {
    tw_pmi_msg_t m;
    out->abort_code = 0;
    if (rank < 0 || rank >= s->size) {
        respond(out, TWR_PMI_REPLY, "cmd=error rc=-1 msg=invalid_rank");
        return;
    }
    if (len >= TW_PMI_LINE_MAX) {
        twr_pmi_line_too_long(out);
        return;
    }
    if (tw_pmi_parse(&m, line, len)) {
        respond(out, TWR_PMI_REPLY, "cmd=error rc=-1 msg=malformed_line");
        return;
    }
    const char *cmd = tw_pmi_find(&m, "cmd");
    if (!cmd)
        respond(out, TWR_PMI_REPLY, "cmd=error rc=-1 msg=missing_cmd");
    else if (strcmp(cmd, "init") == 0)
        do_init(&m, out);
    else if (strcmp(cmd, "get_maxes") == 0)
        respond(out, TWR_PMI_REPLY, "cmd=maxes rc=0 kvsname_max=%d keylen_max=%d vallen_max=%d",
                TW_PMI_KEY_MAX, TW_PMI_KEY_MAX, TW_PMI_VALUE_MAX);
    else if (strcmp(cmd, "get_appnum") == 0)
        respond(out, TWR_PMI_REPLY, "cmd=appnum rc=0 appnum=%d", s->appnum[rank]);
    else if (strcmp(cmd, "get_my_kvsname") == 0)
        respond(out, TWR_PMI_REPLY, "cmd=my_kvsname rc=0 kvsname=%s", s->kvsname);
    else if (strcmp(cmd, "get_universe_size") == 0)
        respond(out, TWR_PMI_REPLY, "cmd=universe_size rc=0 size=%d", s->universe_size);
    else if (strcmp(cmd, "put") == 0)
        do_put(s, rank, &m, out);
    else if (strcmp(cmd, "get") == 0)
        do_get(s, &m, out);
    else if (strcmp(cmd, "barrier_in") == 0)
        do_barrier(s, rank, out);
    else if (strcmp(cmd, "finalize") == 0)
        respond(out, TWR_PMI_FINALIZED, "cmd=finalize_ack");
    else if (strcmp(cmd, "abort") == 0)
        do_abort(&m, out);
    else if (strcmp(cmd, "spawn") == 0)
        do_spawn(s, rank, &m, out);
    else if (strcmp(cmd, "spawn_part") == 0)
        do_spawn_part(s, rank, &m, out);
    else
        respond(out, TWR_PMI_REPLY, "cmd=error rc=-1 msg=unknown_command");
}
