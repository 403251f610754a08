/* PMI-1 wire format: one line of space-separated key=value tokens ending in '\n'.
 * Shared by the library's PMI client and twrun's PMI server, so both read and
 * write the protocol the same way (and the same way MPICH's Hydra does). */
#ifndef TW_PMI_WIRE_H
#define TW_PMI_WIRE_H

#include <stddef.h>

#include <tollway/endpoint.h>

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

enum {
    TW_PMI_SPAWN_CMDS_MAX = 16, /* commands in one spawn */
    /* a spawn's encoded commands (its spec), '\0' included: past a line, the client sends
     * the first bytes as "cmd=spawn_part spec=..." lines, which the server joins with
     * the spawn line's spec (pmi.c, twrun's pmi_server.c) */
    TW_PMI_SPAWN_MAX = TW_SPAWN_SPEC_MAX,
    /* words (names and arguments) of all the commands of one spawn: each decodes to two
     * bytes of buf at least (a character and its NUL), so no request that fits buf is
     * refused for their number; the length of the request is the only bound */
    TW_PMI_SPAWN_WORDS_MAX = TW_PMI_SPAWN_MAX / 2,
    TW_PMI_SPAWN_PROCS_MAX = 4096,
    /* words of one command (its name among them) a PMI-1 spawn through another process
     * manager passes: Hydra (MPICH 4.0.2) dies of SIGSEGV from 1000 on, which ends the
     * job; such a spawn is refused instead */
    TW_PMI_HYDRA_ARGS_MAX = 999,
};

/* A spawn request to twrun (MPI_Comm_spawn), decoded: "cmd=spawn port=P cmds=C" followed by, per
 * command, "n=N" "wdir=W" (a '-' alone: none) and its words, as one value
 * "spec=N,W,argv0,argv1,..;N,W,..." where every string is percent-encoded (any byte
 * but [A-Za-z0-9._/+-] as %XX). The strings point into buf, which holds the decoded
 * port (one line's at most) and spec. */
typedef struct tw_pmi_spawn {
    int ncmds;
    int total; /* processes in all */
    struct tw_pmi_spawn_cmd {
        int maxprocs;
        int argc;
        const char **argv; /* NULL-terminated, in words */
        const char *wdir;  /* NULL: twrun's own */
    } cmd[TW_PMI_SPAWN_CMDS_MAX];
    const char *port; /* where the children find their parents (MPI_Comm_get_parent) */
    char buf[TW_PMI_LINE_MAX + TW_PMI_SPAWN_MAX];
    const char *words[TW_PMI_SPAWN_WORDS_MAX + TW_PMI_SPAWN_CMDS_MAX]; /* every argv, in turn */
} tw_pmi_spawn_t;

/* Decodes a spawn request's port and spec values into sp. 0, or -1 when malformed or
 * when spec is TW_PMI_SPAWN_MAX bytes or longer. */
int tw_pmi_spawn_decode(tw_pmi_spawn_t *sp, const char *port, const char *spec);
/* Percent-encodes s into out (cap bytes, '\0' included). 0, or -1 when it does not fit. */
int tw_pmi_spawn_encode(const char *s, char *out, size_t cap);
/* Whether name is a program execvp would find and run (from wdir, when given): a
 * spawn is refused whole, before anything starts, when one of its commands is not. */
int tw_pmi_spawn_can_execute(const char *name, const char *wdir);

#endif
