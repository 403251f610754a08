#include "pmi_wire.h"

#include <string.h>

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
