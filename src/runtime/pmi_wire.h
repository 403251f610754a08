/* PMI-1 wire format: one line of space-separated key=value tokens ending in '\n'.
 * Shared by the library's PMI client and twrun's PMI server, so both read and
 * write the protocol the same way (and the same way MPICH's Hydra does). */
#ifndef TW_PMI_WIRE_H
#define TW_PMI_WIRE_H

#include <stddef.h>

enum {
    TW_PMI_LINE_MAX = 2048,  /* longest line either side accepts, '\n' included */
    TW_PMI_KEY_MAX = 256,    /* keylen_max announced by the server */
    TW_PMI_VALUE_MAX = 1024, /* vallen_max announced by the server */
    TW_PMI_TOKENS = 8,       /* most key=value tokens in one command */
};

typedef struct tw_pmi_token {
    const char *key;
    const char *value;
} tw_pmi_token_t;

typedef struct tw_pmi_msg {
    char buf[TW_PMI_LINE_MAX]; /* the line, split in place */
    tw_pmi_token_t tokens[TW_PMI_TOKENS];
    int count;
} tw_pmi_msg_t;

/* Splits a line (without its '\n') into tokens. Returns 0, or -1 when the line is
 * too long, has too many tokens, a token without '=', an empty key, or a byte that
 * is not printable ASCII. Never reads past len. */
int tw_pmi_parse(tw_pmi_msg_t *msg, const char *line, size_t len);

/* The value of key in msg, or NULL. */
const char *tw_pmi_find(const tw_pmi_msg_t *msg, const char *key);

/* True when s may stand as a key or value on the wire: non-empty, printable,
 * no space, no '=' (keys only, when is_key), shorter than max. */
int tw_pmi_token_ok(const char *s, size_t max, int is_key);

#endif
