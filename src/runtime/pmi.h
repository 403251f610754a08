/* PMI-1 client: rank, size and the key-value exchange from the process manager
 * (twrun, MPICH's Hydra, Slurm's srun --mpi=pmi2), over the socket named by PMI_FD.
 * Used through the process-manager table (pm.h). */
#ifndef TW_PMI_H
#define TW_PMI_H

#include <stddef.h>

#include "runtime/pmi_wire.h"

typedef struct tw_pmi {
    int fd; /* -1: not connected */
    int rank, size;
    char kvsname[TW_PMI_KEY_MAX];
    char inbuf[TW_PMI_LINE_MAX];
    size_t inlen;
    /* Called about every millisecond while a reply is awaited, so that what must go on
     * meanwhile does (the udp link acknowledges and retransmits); NULL: none. */
    void (*waiting)(void *ctx);
    void *waiting_ctx;
} tw_pmi_t;

/* All return 0 on success, -1 with a message in err (init) or on stderr. */
int tw_pmi_init(tw_pmi_t *pmi, char *err, size_t errlen);
int tw_pmi_put(tw_pmi_t *pmi, const char *key, const char *value);
int tw_pmi_fence(tw_pmi_t *pmi); /* barrier: puts before it are visible to gets after */
int tw_pmi_get(tw_pmi_t *pmi, const char *key, char *value, size_t cap);
int tw_pmi_finalize(tw_pmi_t *pmi);
/* Asks twrun for a new job (cmd=spawn; the encoding is twrun's, tools/twrun/pmi_server.h):
 * 0 with its ids base .. base + *size - 1, or -1 with twrun's reason in why (one word)
 * and the index of the command it refused in *failed (-1: none in particular). */
int tw_pmi_spawn(tw_pmi_t *pmi, const char *port, const char *spec, int *base, int *size, char *why,
                 size_t cap, int *failed);
/* The same of another PMI-1 process manager (MPICH's Hydra: mcmd=spawn): the new job's
 * ids start at *base as the caller chose, and its key-value space gets tw.spawn =
 * "<base>.<job>" (job: what the caller gives, the job id, key and secret) and
 * tw.parent = the port. */
int tw_pmi_spawn_other(tw_pmi_t *pmi, const char *port, const char *spec, const char *job,
                       int *base, int *size, char *why, size_t cap, int *failed);
/* Whether the process manager is twrun (its key-value spaces are named "tw-..."). */
int tw_pmi_is_twrun(const tw_pmi_t *pmi);
/* The appnum the process manager gives this process (0 when it gives none). */
int tw_pmi_appnum(tw_pmi_t *pmi);
/* The size get_universe_size answers; 0 when it gives none (Hydra's -usize INFINITE,
 * its default, answers -1). */
int tw_pmi_universe_size(tw_pmi_t *pmi);
void tw_pmi_abort(tw_pmi_t *pmi, int code, const char *msg);

/* The decoding inside the calls above, without their I/O (and fuzzed on its own). */
enum {
    TW_PMI_REPLY_OK = 0,          /* the reply expected, with rc=0 or none */
    TW_PMI_REPLY_FAILED = 1,      /* the reply expected, with another rc */
    TW_PMI_REPLY_PARTIAL = 2,     /* no whole line in inbuf yet */
    TW_PMI_REPLY_UNEXPECTED = -1, /* a malformed line, or a reply to another command */
    TW_PMI_REPLY_TOO_LONG = -2,   /* inbuf is full and holds no whole line */
};
/* Takes the first line out of pmi->inbuf, parses it into msg and checks that it is
 * the reply named expect_cmd. */
int tw_pmi_take_reply(tw_pmi_t *pmi, tw_pmi_msg_t *msg, const char *expect_cmd);
/* 0 and *out for a number as PMI_FD, PMI_RANK and PMI_SIZE hold one (decimal,
 * 0 to 2^30); -1 for anything else. */
int tw_pmi_parse_number(const char *s, int *out);

#endif
