#include "pmi_wire.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int tw_pmi_parse(tw_pmi_msg_t *msg, const char *line, size_t len) {
    msg->count = 0;
    if (len >= sizeof msg->buf) return -1;
    memcpy(msg->buf, line, len);
    msg->buf[len] = '\0';
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)msg->buf[i];
        if (c < 0x20 || c > 0x7e) return -1;
    }
    char *p = msg->buf;
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        char *tok = p;
        while (*p && *p != ' ') p++;
        if (*p) *p++ = '\0';
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || msg->count == TW_PMI_TOKENS) return -1;
        *eq = '\0';
        msg->tokens[msg->count].key = tok;
        msg->tokens[msg->count].value = eq + 1;
        msg->count++;
    }
    return msg->count > 0 ? 0 : -1;
}

const char *tw_pmi_find(const tw_pmi_msg_t *msg, const char *key) {
    for (int i = 0; i < msg->count; i++)
        if (strcmp(msg->tokens[i].key, key) == 0) return msg->tokens[i].value;
    return NULL;
}

int tw_pmi_token_ok(const char *s, size_t max, int is_key) {
    size_t n = strnlen(s, max);
    if (n == 0 || n == max) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c > 0x7e || (is_key && c == '=')) return 0;
    }
    return 1;
}

static int unhex(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static int plain(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '/' || c == '+' || c == '-';
}

int tw_pmi_spawn_encode(const char *s, char *out, size_t cap) {
    size_t n = 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (n + 4 > cap) return -1;
        if (plain(c))
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, 4, "%%%02X", c);
    }
    if (n >= cap) return -1;
    out[n] = '\0';
    return 0;
}

/* Decodes the percent-encoded string at *in (up to ',', ';' or the end) into *out;
 * advances both. NULL when malformed or when it decodes to an empty string or holds
 * a NUL. */
static const char *decode_one(const char **in, char **out, const char *end) {
    const char *p = *in;
    char *start = *out, *o = *out;
    while (*p && *p != ',' && *p != ';') {
        if (o + 1 >= end) return NULL;
        if (*p == '%') {
            int hi = unhex(p[1]), lo = hi < 0 ? -1 : unhex(p[2]);
            if (lo < 0 || (hi == 0 && lo == 0)) return NULL;
            *o++ = (char)(hi * 16 + lo);
            p += 3;
        } else if (plain((unsigned char)*p)) {
            *o++ = *p++;
        } else {
            return NULL;
        }
    }
    if (o == start) return NULL;
    *o++ = '\0';
    *in = p;
    *out = o;
    return start;
}

int tw_pmi_spawn_decode(tw_pmi_spawn_t *sp, const char *port, const char *spec) {
    memset(sp, 0, offsetof(tw_pmi_spawn_t, buf));
    char *o = sp->buf, *end = sp->buf + sizeof sp->buf;
    if (!port || !spec || strnlen(port, TW_PMI_LINE_MAX) == TW_PMI_LINE_MAX ||
        strnlen(spec, TW_PMI_SPAWN_MAX) == TW_PMI_SPAWN_MAX)
        return -1;
    if (!(sp->port = decode_one(&port, &o, end)) || *port) return -1;
    const char *p = spec;
    size_t used = 0; /* of words */
    const size_t words = sizeof sp->words / sizeof *sp->words;
    for (;;) {
        if (sp->ncmds == TW_PMI_SPAWN_CMDS_MAX) return -1;
        struct tw_pmi_spawn_cmd *c = &sp->cmd[sp->ncmds];
        const char *n = decode_one(&p, &o, end);
        int v = 0;
        if (!n || strlen(n) > 4 || strspn(n, "0123456789") != strlen(n)) return -1;
        v = atoi(n);
        if (v < 1 || v > TW_PMI_SPAWN_PROCS_MAX - sp->total || *p != ',') return -1;
        c->maxprocs = v;
        sp->total += v;
        p++;
        const char *w = decode_one(&p, &o, end);
        if (!w || *p != ',') return -1;
        c->wdir = strcmp(w, "-") == 0 ? NULL : w;
        c->argv = sp->words + used;
        while (*p == ',') {
            p++;
            if (used + 1 >= words) return -1; /* (buf runs out first) */
            const char *a = decode_one(&p, &o, end);
            if (!a) return -1;
            sp->words[used++] = a;
            c->argc++;
        }
        if (c->argc == 0) return -1;
        sp->words[used++] = NULL;
        sp->ncmds++;
        if (!*p) return 0;
        if (*p != ';') return -1;
        p++;
    }
}

int tw_pmi_spawn_can_execute(const char *name, const char *wdir) {
    char path[PATH_MAX];
    if (strchr(name, '/')) {
        if (name[0] != '/' && wdir) {
            int n = snprintf(path, sizeof path, "%s/%s", wdir, name);
            if (n < 0 || (size_t)n >= sizeof path) return 0;
            name = path;
        }
        return access(name, X_OK) == 0;
    }
    const char *p = getenv("PATH");
    if (!p) p = "/usr/local/bin:/usr/bin:/bin";
    for (;;) {
        const char *colon = strchrnul(p, ':');
        int n = colon == p ? snprintf(path, sizeof path, "./%s", name)
                           : snprintf(path, sizeof path, "%.*s/%s", (int)(colon - p), p, name);
        if (n > 0 && (size_t)n < sizeof path && access(path, X_OK) == 0) return 1;
        if (!*colon) return 0;
        p = colon + 1;
    }
}
