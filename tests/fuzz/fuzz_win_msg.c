/* Fuzz target of the windows' PSCW messages as a rank takes them from its peers
 * (tw_win_msg_take, src/mpi/rma/win_msg.h, which the handler in win_sync.c runs).
 *
 * Byte 0 sets up three windows (their sizes, 1 to 8 ranks, and where in the table they
 * are); the rest is a session of messages: the sender's world rank (1 byte, signed),
 * the message's length (1 byte: 8, or what it says), then its bytes. After each one
 * the counts of every window agree with a model of the rules: counted only for a
 * window of that context, from a rank of it, of a known kind; a post only when the
 * last one from that rank was taken; completes never more than the window's ranks.
 * Between messages the session's own starts and waits take what was counted, as the
 * calls do. Nothing outside the counts changes. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mpi/rma/win_msg.h"

enum { WINDOWS = 3, RANKS_MAX = 8 };

win_t *tw_win_table[WIN_MAX];

/* The windows' communicators name world ranks directly (world NULL), so the rank
 * search is never needed. */
int tw_mpi_comm_rank_search(const tw_mpi_comm_t *c, int world) {
    (void)c;
    (void)world;
    FUZZ_CHECK(0);
    return -1;
}

static win_t wins[WINDOWS];
static tw_mpi_comm_t comm;
static int posts[WINDOWS][RANKS_MAX], completes[WINDOWS];
static int model_posts[WINDOWS][RANKS_MAX], model_completes[WINDOWS];
static long counted, dropped;

static uint32_t get32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void same_as_model(void) {
    for (int k = 0; k < WINDOWS; k++) {
        FUZZ_CHECK(wins[k].completes_in == model_completes[k]);
        FUZZ_CHECK(wins[k].completes_in >= 0 && wins[k].completes_in <= wins[k].size);
        for (int r = 0; r < RANKS_MAX; r++) {
            FUZZ_CHECK(posts[k][r] == model_posts[k][r]);
            FUZZ_CHECK(posts[k][r] == 0 || posts[k][r] == 1);
            if (r >= wins[k].size) FUZZ_CHECK(posts[k][r] == 0);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    memset(tw_win_table, 0, sizeof tw_win_table);
    memset(posts, 0, sizeof posts);
    memset(model_posts, 0, sizeof model_posts);
    memset(model_completes, 0, sizeof model_completes);
    comm = (tw_mpi_comm_t){0};
    for (int k = 0; k < WINDOWS; k++) {
        wins[k] = (win_t){0};
        wins[k].c = &comm;
        wins[k].context = (uint32_t)(2 * k + 8);
        wins[k].size = 1 + (data[0] >> (2 * k) & 3) * 2 + (k == 2 ? data[0] >> 7 : 0);
        wins[k].posts_in = posts[k];
        completes[k] = 0;
        /* the windows sit at table entries 0, 1 and 1023 or 5, 6 and 7 */
        int at = data[0] & 64 ? 5 + k : k == 2 ? WIN_MAX - 1 : k;
        tw_win_table[at] = &wins[k];
    }
    for (size_t at = 1; at + 2 <= size;) {
        int source = (int8_t)data[at];
        uint8_t sel = data[at + 1];
        at += 2;
        /* a start or wait of this rank, now and then: it takes what was counted */
        if (sel >= 0xf0) {
            int k = sel % WINDOWS, r = source & (RANKS_MAX - 1);
            if (sel & 8) {
                wins[k].completes_in = model_completes[k] = 0;
            } else {
                posts[k][r] = model_posts[k][r] = 0;
            }
            continue;
        }
        size_t len = sel < 0xc0 ? 8 : sel & 15;
        if (len > size - at) len = size - at;
        const uint8_t *msg = data + at;
        at += len;
        int took = tw_win_msg_take(tw_win_table, source, msg, len);
        /* the model */
        int want = 0, k = -1;
        if (len == 8) {
            uint32_t context = get32(msg), kind = get32(msg + 4);
            for (int j = 0; j < WINDOWS; j++)
                if (wins[j].context == context) k = j;
            if (k >= 0 && (kind == MSG_POST || kind == MSG_COMPLETE) && source >= 0 &&
                source < wins[k].size) {
                if (kind == MSG_POST && !model_posts[k][source])
                    want = model_posts[k][source] = 1;
                else if (kind == MSG_COMPLETE && model_completes[k] < wins[k].size)
                    want = ++model_completes[k] > 0;
            }
        }
        FUZZ_CHECK(took == want);
        if (took)
            counted++;
        else
            dropped++;
        same_as_model();
    }
    return 0;
}

/* Sessions of posts and completes from the windows' ranks, with starts and waits. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    buf[0] = (uint8_t)rand32();
    size_t at = 1;
    for (unsigned n = 0; n < 4 + index % 16 && at + 10 <= cap; n++) {
        if (rand32() % 4 == 0) {
            buf[at++] = (uint8_t)(rand32() % RANKS_MAX);
            buf[at++] = (uint8_t)(0xf0 | (rand32() % 16));
            continue;
        }
        buf[at++] = (uint8_t)(rand32() % 3);
        buf[at++] = 0;
        uint32_t m[2] = {2 * (rand32() % WINDOWS) + 8, 1 + rand32() % 2};
        memcpy(buf + at, m, sizeof m);
        at += sizeof m;
    }
    return at;
}

void fuzz_report(FILE *out) {
    fprintf(out, "; %ld messages counted, %ld dropped", counted, dropped);
}
