#include "runtime/pmi.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_line(tw_pmi_t *pmi, const char *line) {
    size_t len = strlen(line), off = 0;
    while (off < len) {
        ssize_t n = write(pmi->fd, line + off, len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        off += (size_t)n;
    }
    return 0;
}

int tw_pmi_take_reply(tw_pmi_t *pmi, tw_pmi_msg_t *msg, const char *expect_cmd) {
    char *nl = memchr(pmi->inbuf, '\n', pmi->inlen);
    if (!nl) return pmi->inlen == sizeof pmi->inbuf ? TW_PMI_REPLY_TOO_LONG : TW_PMI_REPLY_PARTIAL;
    size_t len = (size_t)(nl - pmi->inbuf);
    int rc = tw_pmi_parse(msg, pmi->inbuf, len);
    memmove(pmi->inbuf, nl + 1, pmi->inlen - len - 1);
    pmi->inlen -= len + 1;
    const char *cmd = rc ? NULL : tw_pmi_find(msg, "cmd");
    if (!cmd || strcmp(cmd, expect_cmd) != 0) return TW_PMI_REPLY_UNEXPECTED;
    const char *rcs = tw_pmi_find(msg, "rc");
    return rcs && strcmp(rcs, "0") != 0 ? TW_PMI_REPLY_FAILED : TW_PMI_REPLY_OK;
}

/* Reads one reply line and parses it; the expected cmd= guards against a
 * process manager speaking out of turn. */
static int read_reply(tw_pmi_t *pmi, tw_pmi_msg_t *msg, const char *expect_cmd) {
    for (;;) {
        int rc = tw_pmi_take_reply(pmi, msg, expect_cmd);
        if (rc == TW_PMI_REPLY_UNEXPECTED)
            fprintf(stderr, "tollway: unexpected reply from the process manager (wanted %s)\n",
                    expect_cmd);
        if (rc == TW_PMI_REPLY_TOO_LONG) return -1;
        if (rc != TW_PMI_REPLY_PARTIAL) return rc;
        if (pmi->waiting) {
            struct pollfd p = {.fd = pmi->fd, .events = POLLIN};
            if (poll(&p, 1, 1) == 0) {
                pmi->waiting(pmi->waiting_ctx);
                continue;
            }
        }
        ssize_t n = read(pmi->fd, pmi->inbuf + pmi->inlen, sizeof pmi->inbuf - pmi->inlen);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fprintf(stderr, "tollway: lost the connection to the process manager\n");
            return -1;
        }
        pmi->inlen += (size_t)n;
    }
}

static int command(tw_pmi_t *pmi, const char *line, tw_pmi_msg_t *reply, const char *expect) {
    if (write_line(pmi, line)) {
        fprintf(stderr, "tollway: cannot write to the process manager: %s\n", strerror(errno));
        return -1;
    }
    return read_reply(pmi, reply, expect);
}

int tw_pmi_parse_number(const char *s, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > (1L << 30)) return -1;
    *out = (int)v;
    return 0;
}

static int env_int(const char *name, int *out) {
    const char *s = getenv(name);
    if (!s) return -1;
    return tw_pmi_parse_number(s, out) ? -2 : 0;
}

int tw_pmi_init(tw_pmi_t *pmi, char *err, size_t errlen) {
    memset(pmi, 0, sizeof *pmi);
    pmi->fd = -1;
    int fd;
    int rc = env_int("PMI_FD", &fd);
    if (rc || env_int("PMI_RANK", &pmi->rank) || env_int("PMI_SIZE", &pmi->size) || pmi->size < 1 ||
        pmi->rank >= pmi->size) {
        snprintf(err, errlen,
                 "tollway: PMI_FD, PMI_RANK and PMI_SIZE must be set to valid numbers by the "
                 "process manager");
        return -1;
    }
    pmi->fd = fd;
    tw_pmi_msg_t reply;
    if (command(pmi, "cmd=init pmi_version=1 pmi_subversion=1\n", &reply, "response_to_init") ||
        command(pmi, "cmd=get_my_kvsname\n", &reply, "my_kvsname")) {
        snprintf(err, errlen, "tollway: the process manager refused PMI-1 initialisation");
        return -1;
    }
    const char *name = tw_pmi_find(&reply, "kvsname");
    if (!name || !tw_pmi_token_ok(name, sizeof pmi->kvsname, 0)) {
        snprintf(err, errlen, "tollway: the process manager sent no valid kvsname");
        return -1;
    }
    strcpy(pmi->kvsname, name);
    return 0;
}

int tw_pmi_put(tw_pmi_t *pmi, const char *key, const char *value) {
    if (!tw_pmi_token_ok(key, TW_PMI_KEY_MAX, 1) || !tw_pmi_token_ok(value, TW_PMI_VALUE_MAX, 0))
        return -1;
    if (pmi->fd < 0) return -1;
    char line[TW_PMI_LINE_MAX];
    int n = snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=%s\n", pmi->kvsname, key,
                     value);
    if (n < 0 || (size_t)n >= sizeof line) return -1;
    tw_pmi_msg_t reply;
    return command(pmi, line, &reply, "put_result") ? -1 : 0;
}

int tw_pmi_fence(tw_pmi_t *pmi) {
    if (pmi->fd < 0) return -1;
    tw_pmi_msg_t reply;
    return command(pmi, "cmd=barrier_in\n", &reply, "barrier_out") ? -1 : 0;
}

int tw_pmi_get(tw_pmi_t *pmi, const char *key, char *value, size_t cap) {
    if (pmi->fd < 0 || !tw_pmi_token_ok(key, TW_PMI_KEY_MAX, 1)) return -1;
    char line[TW_PMI_LINE_MAX];
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=%s\n", pmi->kvsname, key);
    tw_pmi_msg_t reply;
    if (command(pmi, line, &reply, "get_result")) return -1;
    const char *v = tw_pmi_find(&reply, "value");
    if (!v || strlen(v) >= cap) return -1;
    strcpy(value, v);
    return 0;
}

int tw_pmi_spawn(tw_pmi_t *pmi, const char *port, const char *spec, int *base, int *size, char *why,
                 size_t cap, int *failed) {
    *failed = -1;
    snprintf(why, cap, "no_process_manager");
    if (!tw_pmi_is_twrun(pmi)) return -1;
    char line[TW_PMI_LINE_MAX];
    size_t len = strlen(spec);
    if (len >= TW_PMI_SPAWN_MAX || strlen(port) >= TW_PMI_VALUE_MAX) {
        snprintf(why, cap, "the request takes %zu bytes, past the %d of a spawn", len,
                 TW_PMI_SPAWN_MAX - 1);
        return -1;
    }
    /* what does not fit the spawn line goes first, a line's worth at a time; the server
     * joins the parts in order (a rank's lines reach it in the order written) */
    const size_t room = TW_PMI_LINE_MAX - 64 - strlen(port), part = TW_PMI_LINE_MAX - 64;
    snprintf(why, cap, "cannot_write");
    while (len > room) {
        size_t k = len - room < part ? len - room : part;
        snprintf(line, sizeof line, "cmd=spawn_part spec=%.*s\n", (int)k, spec);
        if (write_line(pmi, line)) return -1;
        spec += k;
        len -= k;
    }
    snprintf(line, sizeof line, "cmd=spawn port=%s spec=%s\n", port, spec);
    tw_pmi_msg_t reply;
    snprintf(why, cap, "not_supported_by_the_process_manager");
    int rc = command(pmi, line, &reply, "spawn_result");
    if (rc < 0) return -1;
    const char *b = tw_pmi_find(&reply, "base"), *sz = tw_pmi_find(&reply, "size");
    if (rc == TW_PMI_REPLY_FAILED) {
        const char *m = tw_pmi_find(&reply, "msg"), *f = tw_pmi_find(&reply, "failed");
        snprintf(why, cap, "%s", m ? m : "refused");
        if (f && tw_pmi_parse_number(f, failed)) *failed = -1;
        return -1;
    }
    snprintf(why, cap, "malformed_reply");
    if (!b || !sz || tw_pmi_parse_number(b, base) || tw_pmi_parse_number(sz, size) || *size < 1)
        return -1;
    return 0;
}

int tw_pmi_is_twrun(const tw_pmi_t *pmi) {
    return pmi->fd >= 0 && strncmp(pmi->kvsname, "tw-", 3) == 0;
}

int tw_pmi_appnum(tw_pmi_t *pmi) {
    tw_pmi_msg_t reply;
    int n = 0;
    if (pmi->fd < 0 || command(pmi, "cmd=get_appnum\n", &reply, "appnum")) return 0;
    const char *v = tw_pmi_find(&reply, "appnum");
    return v && !tw_pmi_parse_number(v, &n) ? n : 0;
}

int tw_pmi_universe_size(tw_pmi_t *pmi) {
    tw_pmi_msg_t reply;
    int n = 0;
    if (pmi->fd < 0 || command(pmi, "cmd=get_universe_size\n", &reply, "universe_size")) return 0;
    const char *v = tw_pmi_find(&reply, "size");
    return v && !tw_pmi_parse_number(v, &n) && n > 0 ? n : 0;
}

int tw_pmi_spawn_other(tw_pmi_t *pmi, const char *port, const char *spec, const char *job,
                       int *base, int *size, char *why, size_t cap, int *failed) {
    static tw_pmi_spawn_t sp;
    *failed = -1;
    snprintf(why, cap, "no_process_manager");
    if (pmi->fd < 0) return -1;
    snprintf(why, cap, "malformed_request");
    if (tw_pmi_spawn_decode(&sp, port, spec)) return -1;
    for (int k = 0; k < sp.ncmds; k++) { /* all checked before a line goes out */
        const struct tw_pmi_spawn_cmd *c = &sp.cmd[k];
        /* PMI-1 is a line protocol: a newline in a word would cut the request */
        int cut = c->wdir && strchr(c->wdir, '\n');
        for (int a = 0; a < c->argc && !cut; a++) cut = strchr(c->argv[a], '\n') != NULL;
        if (cut) return -1;
        if (c->argc > TW_PMI_HYDRA_ARGS_MAX) { /* Hydra 4.0 then dies of SIGSEGV */
            snprintf(why, cap, "more_than_%d_arguments_for_the_process_manager",
                     TW_PMI_HYDRA_ARGS_MAX - 1);
            *failed = k;
            return -1;
        }
        if (!tw_pmi_spawn_can_execute(c->argv[0], c->wdir)) { /* it would end the job */
            snprintf(why, cap, "no_such_command");
            *failed = k;
            return -1;
        }
    }
    snprintf(why, cap, "cannot_write");
    /* PMI-1's spawn: one mcmd segment per command, the reply after the last */
    for (int k = 0; k < sp.ncmds; k++) {
        char line[TW_PMI_LINE_MAX];
        const struct tw_pmi_spawn_cmd *c = &sp.cmd[k];
        int n = snprintf(line, sizeof line,
                         "mcmd=spawn\nnprocs=%d\nexecname=%s\ntotspawns=%d\nspawnssofar=%d\n"
                         "argcnt=%d\n",
                         c->maxprocs, c->argv[0], sp.ncmds, k + 1, c->argc - 1);
        if (n < 0 || (size_t)n >= sizeof line || write_line(pmi, line)) return -1;
        for (int a = 1; a < c->argc; a++) {
            n = snprintf(line, sizeof line, "arg%d=%s\n", a, c->argv[a]);
            if (n < 0 || (size_t)n >= sizeof line || write_line(pmi, line)) return -1;
        }
        char wdir[TW_PMI_LINE_MAX / 2] = "info_num=0\n";
        if (c->wdir &&
            (size_t)snprintf(wdir, sizeof wdir, "info_num=1\ninfo_key_0=wdir\ninfo_val_0=%s\n",
                             c->wdir) >= sizeof wdir)
            return -1;
        n = snprintf(line, sizeof line,
                     "preput_num=2\npreput_key_0=tw.spawn\npreput_val_0=%d.%s\n"
                     "preput_key_1=tw.parent\npreput_val_1=%s\n%sendcmd\n",
                     *base, job, sp.port, wdir);
        if (n < 0 || (size_t)n >= sizeof line || write_line(pmi, line)) return -1;
    }
    tw_pmi_msg_t reply;
    snprintf(why, cap, "refused_by_the_process_manager");
    if (read_reply(pmi, &reply, "spawn_result")) return -1;
    *size = sp.total;
    return 0;
}

int tw_pmi_finalize(tw_pmi_t *pmi) {
    if (pmi->fd < 0) return 0;
    tw_pmi_msg_t reply;
    int rc = command(pmi, "cmd=finalize\n", &reply, "finalize_ack");
    close(pmi->fd);
    pmi->fd = -1;
    return rc ? -1 : 0;
}

void tw_pmi_abort(tw_pmi_t *pmi, int code, const char *msg) {
    if (msg) fprintf(stderr, "%s\n", msg); /* before the launcher ends us */
    if (pmi->fd >= 0) {
        char line[256];
        snprintf(line, sizeof line, "cmd=abort exitcode=%d\n", code);
        (void)write_line(pmi, line);
    }
    _exit(code ? code : 1);
}
