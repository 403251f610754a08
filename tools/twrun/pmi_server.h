/* twrun's PMI-1 server: the protocol state of one job (key-value store, barrier)
 * and the handling of one received line. No I/O here; twrun.c moves the bytes. */
#ifndef TWRUN_PMI_SERVER_H
#define TWRUN_PMI_SERVER_H

#include <stddef.h>

#include "runtime/pmi_wire.h"

enum {
    TWR_PMI_KEYS_PER_RANK = 64,               /* puts one rank may store */
    TWR_PMI_REPLY_MAX = TW_PMI_LINE_MAX + 64, /* longest reply, '\n' included */
    TWR_PMI_KVSNAME_MAX = 64,
};

typedef enum twr_pmi_action {
    TWR_PMI_REPLY,        /* send reply to the sender */
    TWR_PMI_WAIT,         /* nothing to send yet: the sender entered the barrier */
    TWR_PMI_BARRIER_DONE, /* everyone entered the barrier: send reply to every rank */
    TWR_PMI_FINALIZED,    /* send reply to the sender, which has finalized */
    TWR_PMI_ABORT,        /* the sender aborts the job with abort_code; no reply */
    TWR_PMI_SPAWN,        /* the sender asks for the new job in spawn; twrun replies */
    TWR_PMI_NONE,         /* nothing to send: a first part of a spawn request was kept */
} twr_pmi_action_t;

typedef struct twr_pmi_result {
    twr_pmi_action_t action;
    int abort_code;
    size_t len; /* of reply, which ends in '\n' and is NUL-terminated */
    char reply[TWR_PMI_REPLY_MAX];
    tw_pmi_spawn_t spawn; /* TWR_PMI_SPAWN */
} twr_pmi_result_t;

typedef struct twr_pmi_entry {
    char *key;
    char *value;
} twr_pmi_entry_t;

/* The first parts of a rank's spawn request (cmd=spawn_part), until its spawn line. */
typedef struct twr_pmi_spawn_parts {
    char *spec; /* the parts' bytes, joined */
    size_t len;
    const char *refused; /* why its spawn line will be refused (one token), or NULL */
} twr_pmi_spawn_parts_t;

typedef struct twr_pmi_server {
    int size;
    int universe_size; /* get_universe_size's answer: the job's size until told otherwise */
    char kvsname[TWR_PMI_KVSNAME_MAX];
    /* open-addressing hash table of entries, grown as needed */
    twr_pmi_entry_t *table;
    size_t table_cap, count, max_count;
    int *keys_of; /* puts stored per rank */
    unsigned char *in_barrier;
    int barrier_count;
    int *appnum; /* per rank: the index of its program (MPMD), for get_appnum */
    twr_pmi_spawn_parts_t *spawn_parts; /* per rank */
} twr_pmi_server_t;

/* jobid names the key-value space "tw-<jobid>". Returns 0, or -1 when out of memory. */
int twr_pmi_server_init(twr_pmi_server_t *s, int size, const char *jobid);
void twr_pmi_server_destroy(twr_pmi_server_t *s);

/* Sets what get_universe_size answers (MPI_UNIVERSE_SIZE): slots, never fewer than the
 * job's size. */
void twr_pmi_set_universe_size(twr_pmi_server_t *s, int slots);

/* Tells rank it runs program appnum of an MPMD job (all run program 0 until told). */
void twr_pmi_set_appnum(twr_pmi_server_t *s, int rank, int appnum);

/* Handles one line from rank (without its '\n'; any bytes, any length). */
void twr_pmi_handle(twr_pmi_server_t *s, int rank, const char *line, size_t len,
                    twr_pmi_result_t *out);

/* Fills out with the reply to a spawn: its ids base .. base + size - 1 (rc=0), or why
 * command `failed` could not be started (msg, one token). */
void twr_pmi_spawn_reply(twr_pmi_result_t *out, int base, int size, const char *msg, int failed);

/* Fills out with the error reply to a line longer than TW_PMI_LINE_MAX. */
void twr_pmi_line_too_long(twr_pmi_result_t *out);

/* Whether rank is waiting in the current barrier. */
int twr_pmi_in_barrier(const twr_pmi_server_t *s, int rank);

#endif
