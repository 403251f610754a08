/* Fuzz target of twrun's PMI-1 server (tools/twrun/pmi_server.c) fed arbitrary lines
 * by the ranks of a job.
 *
 * The input is a session: its first byte gives the job's size ('1' to '4'), the rest of
 * the first line is ignored, and every further line is sent by the rank its first byte
 * names ('0' to '3'; '/' and digits past the size are ranks that do not exist). Beside
 * the server runs a model of what PMI-1 promises, and after every line:
 *   - a reply is one well-formed line (printable, '\n' at its end, parsed back by the
 *     codec) answering the command sent, with rc=0 exactly when it succeeded;
 *   - a get returns the value put under that key, never one nobody put, and says
 *     key_not_found exactly when nothing was put; a put is refused exactly when the
 *     key, the value or the kvsname is invalid, when another value is under the key,
 *     or when the rank has stored its share of the store;
 *   - the barrier releases everyone exactly when the last rank enters it;
 *   - an abort ends the job with a status of 1 to 255, the code asked for when valid;
 *   - a spawn is handed to twrun decoded (commands with their words, NULL-terminated,
 *     non-empty, inside the request, their processes counted right, and each word
 *     encoded again decodes to itself), or refused as malformed_spawn;
 *   - a spawn's first parts (spawn_part) get no reply and are joined, in order, with
 *     the rank's spawn line: what twrun is handed is that joined request decoded, and
 *     a part that is empty or brings the request to TW_PMI_SPAWN_MAX has the spawn
 *     refused (malformed_spawn, spawn_too_long), after which the rank starts afresh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pmi_server.h"

enum { SIZE_MAX_JOB = 4, MODEL_KEYS = SIZE_MAX_JOB * TWR_PMI_KEYS_PER_RANK + 1 };

static const char kvsname[] = "tw-fuzz";

typedef struct model {
    int size;
    char *keys[MODEL_KEYS], *values[MODEL_KEYS];
    int count;
    int puts_of[SIZE_MAX_JOB];
    int in_barrier[SIZE_MAX_JOB], barrier_count;
    char *part[SIZE_MAX_JOB]; /* a spawn's first parts, joined */
    size_t part_len[SIZE_MAX_JOB];
    const char *part_refused[SIZE_MAX_JOB];
} model_t;

static long lines_sent, puts_stored, gets_found, barriers_done, aborts, spawns, parts_kept;

static int model_find(const model_t *m, const char *key) {
    for (int i = 0; i < m->count; i++)
        if (strcmp(m->keys[i], key) == 0) return i;
    return -1;
}

static void model_store(model_t *m, const char *key, const char *value) {
    FUZZ_CHECK(m->count < MODEL_KEYS);
    m->keys[m->count] = strdup(key);
    m->values[m->count] = strdup(value);
    if (!m->keys[m->count] || !m->values[m->count]) abort();
    m->count++;
}

static int valid_token(const char *s, size_t max, int is_key) {
    size_t n = strlen(s);
    return n > 0 && n < max && (!is_key || !strchr(s, '='));
}

/* The reply is one line that the codec reads, naming cmd, with rc=0 or rc=-1 as told
 * (rc < -1: no rc at all). Returns the parsed reply. */
static const tw_pmi_msg_t *check_reply(const twr_pmi_result_t *res, const char *cmd, int rc) {
    static tw_pmi_msg_t reply;
    FUZZ_CHECK(res->len > 0 && res->len < sizeof res->reply);
    FUZZ_CHECK(strlen(res->reply) == res->len && res->reply[res->len - 1] == '\n');
    FUZZ_CHECK(tw_pmi_parse(&reply, res->reply, res->len - 1) == 0);
    const char *c = tw_pmi_find(&reply, "cmd"), *r = tw_pmi_find(&reply, "rc");
    FUZZ_CHECK(c && strcmp(c, cmd) == 0);
    if (rc < -1)
        FUZZ_CHECK(r == NULL);
    else
        FUZZ_CHECK(r && strcmp(r, rc ? "-1" : "0") == 0);
    return &reply;
}

static void check_error(const twr_pmi_result_t *res, const char *msg) {
    FUZZ_CHECK(res->action == TWR_PMI_REPLY);
    const tw_pmi_msg_t *reply = check_reply(res, "error", -1);
    const char *m = tw_pmi_find(reply, "msg");
    FUZZ_CHECK(m && strcmp(m, msg) == 0);
}

static void check_result(const twr_pmi_result_t *res, const char *cmd, const char *msg) {
    int ok = strcmp(msg, "success") == 0;
    FUZZ_CHECK(res->action == TWR_PMI_REPLY);
    const tw_pmi_msg_t *reply = check_reply(res, cmd, ok ? 0 : -1);
    const char *m = tw_pmi_find(reply, "msg");
    FUZZ_CHECK(m && strcmp(m, msg) == 0);
}

static void put(model_t *m, int rank, const tw_pmi_msg_t *req, const twr_pmi_result_t *res) {
    const char *name = tw_pmi_find(req, "kvsname"), *key = tw_pmi_find(req, "key"),
               *value = tw_pmi_find(req, "value");
    const char *expect = "success";
    int at = key ? model_find(m, key) : -1;
    if (!name || strcmp(name, kvsname) != 0)
        expect = "invalid_kvsname";
    else if (!key || !valid_token(key, TW_PMI_KEY_MAX, 1))
        expect = "invalid_key";
    else if (!value || !valid_token(value, TW_PMI_VALUE_MAX, 0))
        expect = "invalid_value";
    else if (at >= 0)
        expect = strcmp(m->values[at], value) == 0 ? "success" : "duplicate_key";
    else if (m->puts_of[rank] >= TWR_PMI_KEYS_PER_RANK)
        expect = "kvs_full";
    check_result(res, "put_result", expect);
    if (at < 0 && strcmp(expect, "success") == 0) {
        model_store(m, key, value);
        m->puts_of[rank]++;
        puts_stored++;
    }
}

static void get(model_t *m, const tw_pmi_msg_t *req, const twr_pmi_result_t *res) {
    const char *name = tw_pmi_find(req, "kvsname"), *key = tw_pmi_find(req, "key");
    if (!name || strcmp(name, kvsname) != 0) {
        check_result(res, "get_result", "invalid_kvsname");
    } else if (!key || !valid_token(key, TW_PMI_KEY_MAX, 1)) {
        check_result(res, "get_result", "invalid_key");
    } else {
        int at = model_find(m, key);
        check_result(res, "get_result", at >= 0 ? "success" : "key_not_found");
        if (at >= 0) { /* exactly the value put, never another */
            static tw_pmi_msg_t reply;
            FUZZ_CHECK(tw_pmi_parse(&reply, res->reply, res->len - 1) == 0);
            const char *v = tw_pmi_find(&reply, "value");
            FUZZ_CHECK(v && strcmp(v, m->values[at]) == 0);
            gets_found++;
        }
    }
}

static void barrier(model_t *m, int rank, const twr_pmi_result_t *res) {
    if (m->in_barrier[rank]) {
        check_error(res, "already_in_barrier");
        return;
    }
    m->in_barrier[rank] = 1;
    if (++m->barrier_count < m->size) {
        FUZZ_CHECK(res->action == TWR_PMI_WAIT && res->len == 0);
        return;
    }
    FUZZ_CHECK(res->action == TWR_PMI_BARRIER_DONE);
    check_reply(res, "barrier_out", -2);
    memset(m->in_barrier, 0, sizeof m->in_barrier);
    m->barrier_count = 0;
    barriers_done++;
}

/* The status an abort must end the job with: the code when it is a plain number. */
static void check_abort(const tw_pmi_msg_t *req, const twr_pmi_result_t *res) {
    FUZZ_CHECK(res->action == TWR_PMI_ABORT && res->len == 0);
    FUZZ_CHECK(res->abort_code >= 1 && res->abort_code <= 255);
    const char *v = tw_pmi_find(req, "exitcode");
    size_t n = v ? strlen(v) : 0;
    if (n > 0 && n < 10 && strspn(v, "0123456789") == n) {
        long code = atol(v) & 0xff;
        FUZZ_CHECK(res->abort_code == (code ? code : 1));
    }
    aborts++;
}

static void check_word(const tw_pmi_spawn_t *sp, const char *w) {
    FUZZ_CHECK(w && w >= sp->buf && w < sp->buf + sizeof sp->buf);
    size_t n = strnlen(w, (size_t)(sp->buf + sizeof sp->buf - w));
    FUZZ_CHECK(n > 0 && w + n < sp->buf + sizeof sp->buf);
    static char enc[3 * TW_PMI_SPAWN_MAX + 1], spec[3 * TW_PMI_SPAWN_MAX + 16];
    static tw_pmi_spawn_t again;
    FUZZ_CHECK(tw_pmi_spawn_encode(w, enc, sizeof enc) == 0);
    snprintf(spec, sizeof spec, "1,-,%s", enc);
    if (strlen(spec) < sizeof again.buf / 3) { /* room to decode it again */
        FUZZ_CHECK(tw_pmi_spawn_decode(&again, "p", spec) == 0);
        FUZZ_CHECK(again.ncmds == 1 && again.cmd[0].argc == 1 && !strcmp(again.cmd[0].argv[0], w));
    }
}

/* A first part of rank's spawn: no reply; kept by the model too, or the reason its
 * spawn will be refused. */
static void spawn_part(model_t *m, int rank, const tw_pmi_msg_t *req, const twr_pmi_result_t *res) {
    FUZZ_CHECK(res->action == TWR_PMI_NONE && res->len == 0);
    parts_kept++;
    if (m->part_refused[rank]) return;
    const char *v = tw_pmi_find(req, "spec");
    size_t n = v ? strlen(v) : 0;
    if (!n) {
        m->part_refused[rank] = "malformed_spawn";
    } else if (m->part_len[rank] + n >= TW_PMI_SPAWN_MAX) {
        m->part_refused[rank] = "spawn_too_long";
    } else {
        char *grown = realloc(m->part[rank], m->part_len[rank] + n + 1);
        if (!grown) abort();
        memcpy(grown + m->part_len[rank], v, n + 1);
        m->part[rank] = grown;
        m->part_len[rank] += n;
    }
}

static void same_spawn(const tw_pmi_spawn_t *a, const tw_pmi_spawn_t *b) {
    FUZZ_CHECK(a->ncmds == b->ncmds && a->total == b->total && !strcmp(a->port, b->port));
    for (int k = 0; k < a->ncmds; k++) {
        const struct tw_pmi_spawn_cmd *x = &a->cmd[k], *y = &b->cmd[k];
        FUZZ_CHECK(x->maxprocs == y->maxprocs && x->argc == y->argc);
        FUZZ_CHECK(!x->wdir == !y->wdir && (!x->wdir || !strcmp(x->wdir, y->wdir)));
        for (int w = 0; w < x->argc; w++) FUZZ_CHECK(!strcmp(x->argv[w], y->argv[w]));
    }
}

static void check_spawn(model_t *m, int rank, const tw_pmi_msg_t *req,
                        const twr_pmi_result_t *res) {
    /* what the server must have decoded: the rank's parts, then this line's spec */
    static char joined[TW_PMI_SPAWN_MAX + TW_PMI_LINE_MAX];
    static tw_pmi_spawn_t want;
    const char *refused = m->part_refused[rank], *spec = tw_pmi_find(req, "spec");
    if (!refused && m->part_len[rank]) { /* the line's spec is a part too */
        if (!spec || !*spec)
            refused = "malformed_spawn";
        else if (m->part_len[rank] + strlen(spec) >= TW_PMI_SPAWN_MAX)
            refused = "spawn_too_long";
        else
            spec = strcat(strcpy(joined, m->part[rank]), spec);
    }
    free(m->part[rank]);
    m->part[rank] = NULL;
    m->part_len[rank] = 0;
    m->part_refused[rank] = NULL;
    if (!refused && tw_pmi_spawn_decode(&want, tw_pmi_find(req, "port"), spec))
        refused = "malformed_spawn";
    if (refused) {
        const tw_pmi_msg_t *reply = check_reply(res, "spawn_result", -1);
        const char *msg = tw_pmi_find(reply, "msg");
        FUZZ_CHECK(msg && strcmp(msg, refused) == 0);
        return;
    }
    FUZZ_CHECK(res->action == TWR_PMI_SPAWN && res->len == 0);
    FUZZ_CHECK(tw_pmi_find(req, "port") && tw_pmi_find(req, "spec"));
    const tw_pmi_spawn_t *sp = &res->spawn;
    same_spawn(sp, &want);
    FUZZ_CHECK(sp->ncmds >= 1 && sp->ncmds <= TW_PMI_SPAWN_CMDS_MAX);
    check_word(sp, sp->port);
    int total = 0;
    for (int k = 0; k < sp->ncmds; k++) {
        const struct tw_pmi_spawn_cmd *c = &sp->cmd[k];
        FUZZ_CHECK(c->maxprocs >= 1 && c->argc >= 1 && c->argc <= TW_PMI_SPAWN_WORDS_MAX);
        FUZZ_CHECK(c->argv[c->argc] == NULL);
        for (int a = 0; a < c->argc; a++) check_word(sp, c->argv[a]);
        if (c->wdir) check_word(sp, c->wdir);
        total += c->maxprocs;
    }
    FUZZ_CHECK(total == sp->total && total <= TW_PMI_SPAWN_PROCS_MAX);
    spawns++;
}

static void one_line(model_t *m, twr_pmi_server_t *s, int rank, const char *line, size_t len) {
    static twr_pmi_result_t res;
    static tw_pmi_msg_t req;
    memset(&res, 0x5a, sizeof res); /* nothing may be left from before */
    twr_pmi_handle(s, rank, line, len, &res);
    lines_sent++;
    FUZZ_CHECK(res.action >= TWR_PMI_REPLY && res.action <= TWR_PMI_NONE);
    if (rank < 0 || rank >= m->size) {
        check_error(&res, "invalid_rank");
        return;
    }
    if (len >= TW_PMI_LINE_MAX) {
        check_error(&res, "line_too_long");
        return;
    }
    if (tw_pmi_parse(&req, line, len)) {
        check_error(&res, "malformed_line");
        return;
    }
    const char *cmd = tw_pmi_find(&req, "cmd");
    if (!cmd) {
        check_error(&res, "missing_cmd");
    } else if (strcmp(cmd, "init") == 0) {
        const char *v = tw_pmi_find(&req, "pmi_version");
        check_reply(&res, "response_to_init", v && strcmp(v, "1") == 0 ? 0 : -1);
    } else if (strcmp(cmd, "get_maxes") == 0) {
        check_reply(&res, "maxes", 0);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        check_reply(&res, "appnum", 0);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        const char *name = tw_pmi_find(check_reply(&res, "my_kvsname", 0), "kvsname");
        FUZZ_CHECK(name && strcmp(name, kvsname) == 0);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        const char *size = tw_pmi_find(check_reply(&res, "universe_size", 0), "size");
        FUZZ_CHECK(size && atoi(size) == m->size);
    } else if (strcmp(cmd, "put") == 0) {
        put(m, rank, &req, &res);
    } else if (strcmp(cmd, "get") == 0) {
        get(m, &req, &res);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        barrier(m, rank, &res);
    } else if (strcmp(cmd, "finalize") == 0) {
        FUZZ_CHECK(res.action == TWR_PMI_FINALIZED);
        check_reply(&res, "finalize_ack", -2);
    } else if (strcmp(cmd, "abort") == 0) {
        check_abort(&req, &res);
    } else if (strcmp(cmd, "spawn") == 0) {
        check_spawn(m, rank, &req, &res);
    } else if (strcmp(cmd, "spawn_part") == 0) {
        spawn_part(m, rank, &req, &res);
    } else {
        check_error(&res, "unknown_command");
    }
    if (res.action != TWR_PMI_ABORT) FUZZ_CHECK(res.abort_code == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    model_t m = {.size = 1 + ((data[0] - '1') & 3)};
    twr_pmi_server_t s;
    if (twr_pmi_server_init(&s, m.size, "fuzz")) abort();
    char mapping[64];
    snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", m.size);
    model_store(&m, "PMI_process_mapping", mapping);

    const char *p = memchr(data, '\n', size), *end = (const char *)data + size;
    while (p && p + 1 < end) {
        const char *line = p + 1;
        p = memchr(line, '\n', (size_t)(end - line));
        size_t len = (size_t)((p ? p : end) - line);
        int rank = len ? line[0] - '0' : 0;
        if (rank < -1 || rank > m.size) rank = (unsigned char)line[0] % m.size;
        one_line(&m, &s, rank, line + (len > 0), len - (len > 0));
        for (int r = -1; r <= m.size; r++)
            FUZZ_CHECK(twr_pmi_in_barrier(&s, r) == (r >= 0 && r < m.size && m.in_barrier[r]));
    }
    twr_pmi_server_destroy(&s);
    for (int r = 0; r < SIZE_MAX_JOB; r++) free(m.part[r]);
    for (int i = 0; i < m.count; i++) {
        free(m.keys[i]);
        free(m.values[i]);
    }
    return 0;
}

/* Sessions: the start-up every rank of a job of two goes through, refusals of every
 * kind, and a rank that fills its share of the store. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    static const char *const sessions[] = {
        "2\n"
        "0cmd=init pmi_version=1 pmi_subversion=1\n"
        "1cmd=init pmi_version=1 pmi_subversion=1\n"
        "0cmd=get_maxes\n"
        "0cmd=get_my_kvsname\n"
        "1cmd=get_my_kvsname\n"
        "0cmd=put kvsname=tw-fuzz key=tw.ep0.0 value=shm:n~1:/tw-fuzz-ep0-0,udp:127.0.0.1:4000\n"
        "1cmd=put kvsname=tw-fuzz key=tw.ep0.1 value=shm:n~1:/tw-fuzz-ep0-1\n"
        "0cmd=barrier_in\n"
        "1cmd=barrier_in\n"
        "1cmd=get kvsname=tw-fuzz key=tw.ep0.0\n"
        "0cmd=get kvsname=tw-fuzz key=tw.ep0.1\n"
        "0cmd=get kvsname=tw-fuzz key=PMI_process_mapping\n"
        "0cmd=finalize\n"
        "1cmd=finalize\n",
        "2\n"
        "0cmd=put kvsname=tw-fuzz key=a value=1\n"
        "0cmd=put kvsname=tw-fuzz key=a value=1\n"
        "1cmd=put kvsname=tw-fuzz key=a value=2\n"
        "1cmd=put kvsname=other key=b value=2\n"
        "1cmd=put kvsname=tw-fuzz key=b value=\n"
        "1cmd=get kvsname=tw-fuzz key=b\n"
        "0cmd=get kvsname=tw-fuzz key=a\n"
        "0cmd=barrier_in\n"
        "0cmd=barrier_in\n"
        "2cmd=get_universe_size\n"
        "/cmd=get_appnum\n"
        "1cmd=abort exitcode=256\n",
        "1\n"
        "0cmd=init pmi_version=2\n"
        "0cmd=nothing\n"
        "0key=value\n"
        "0cmd\n"
        "0cmd=get_universe_size\n"
        "0cmd=barrier_in\n"
        "0cmd=abort exitcode=7\n",
        "2\n"
        "0cmd=spawn port=tollway-port%3A1%3A2 spec=3,-,./child,a%20b,%25\n"
        "1cmd=spawn port=p spec=1,/tmp,prog;2,-,other,x\n"
        "0cmd=spawn port=p spec=0,-,prog\n"
        "0cmd=spawn port=p spec=1,-,\n"
        "0cmd=spawn port=p spec=1,-,a%0\n"
        "0cmd=spawn port=p spec=1,-,a%00\n"
        "0cmd=spawn port=p spec=4097,-,a\n"
        "0cmd=spawn spec=1,-,a\n",
        "2\n"
        "0cmd=spawn_part spec=2,-,./chi\n"
        "1cmd=spawn_part spec=1,/tmp,prog,a\n"
        "0cmd=spawn_part spec=ld,01234567,0123\n"
        "1cmd=spawn port=p spec=,b;1,-,other\n"
        "0cmd=spawn port=tollway-port%3A1%3A2 spec=4567,x\n"
        "0cmd=spawn_part spec=\n"
        "0cmd=spawn_part spec=1,-,a\n"
        "0cmd=spawn port=p spec=,b\n"
        "1cmd=spawn_part spec=1,-,a\n"
        "1cmd=spawn port=p\n",
    };
    unsigned count = sizeof sessions / sizeof sessions[0];
    if (index % (count + 1) < count) {
        return fuzz_seed_text(buf, cap, sessions[index % (count + 1)]);
    }
    /* a rank that fills its share of the store, and one put more */
    size_t n = (size_t)snprintf((char *)buf, cap, "1\n");
    for (int i = 0; i <= TWR_PMI_KEYS_PER_RANK && n < cap; i++)
        n += (size_t)snprintf((char *)buf + n, cap - n,
                              "0cmd=put kvsname=tw-fuzz key=k%d value=%u\n", i, rand32() % 10);
    return n < cap ? n : cap;
}

void fuzz_report(FILE *out) {
    fprintf(out,
            "; %ld lines, %ld puts stored, %ld gets found, %ld barriers, %ld aborts, %ld spawns, "
            "%ld spawn parts",
            lines_sent, puts_stored, gets_found, barriers_done, aborts, spawns, parts_kept);
}
