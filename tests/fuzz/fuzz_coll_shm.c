/* Fuzz target of the shared-memory collective block (src/mpi/coll/coll_shm_block.h, the
 * steps coll_shm.c runs for MPI_Barrier, MPI_Bcast, MPI_Reduce and MPI_Allreduce of
 * up to 56 bytes): what each rank reads from the lines its peers write, and when.
 *
 * Byte 0 gives the number of ranks (2 to 5), byte 1 the number of calls (1 to 16), then
 * two bytes per call (kind and root; bytes of data); the rest picks, byte by byte, the
 * rank that takes its next step: start its next call, advance it (tw_coll_shm_advance,
 * once), or, once it is done, read its result as coll_shm.c does. When the input ends,
 * the ranks go on in turn until all are done. Whatever the order: a broadcast takes the
 * root's data; an allreduce (a reduce at its root) combines every rank's data for that
 * call (as a sum here), read from the lines after the call is done, before this rank
 * begins its next one; a barrier, an allreduce and a reduce's root end at a rank only
 * once every rank has begun the call; and the ranks never stop
 * short of the end (no rank waits for good). The first 8 bytes are also read as the
 * block's gave-up word, which a peer writes: it names a member or none. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mpi/coll/coll_shm_block.h"

enum { RANKS_MAX = 5, CALLS_MAX = 16, WORDS = TW_COLL_LINE_DATA / 8 };
enum { IDLE, RUNNING, DONE };

typedef struct call {
    int kind, root;
    size_t bytes;
} call_t;

static struct rank {
    int call, phase; /* the call it is at (calls: all done), and how far */
    tw_coll_shm_run_t x;
    uint8_t give[TW_COLL_LINE_DATA], take[TW_COLL_LINE_DATA];
} ranks[RANKS_MAX];
static call_t calls[CALLS_MAX];
static int p, n;
static tw_coll_line_t *lines;
static long steps_run, calls_done;

/* What rank r gives to call i: its bytes, or its words to sum. */
static uint64_t value(int i, int r, int j) {
    uint64_t v = (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)(r + 1) << 20 ^ (uint64_t)j;
    return v * 0xbf58476d1ce4e5b9ull;
}

static void fill_give(int r, int i) {
    for (int j = 0; j < WORDS; j++) {
        uint64_t v = value(i, r, j);
        memcpy(ranks[r].give + 8 * j, &v, 8);
    }
}

/* Whether rank r has begun call i. */
static int begun(int r, int i) {
    return ranks[r].call > i || (ranks[r].call == i && ranks[r].phase != IDLE);
}

/* A done call's result, read as coll_shm.c reads it, checked. */
static void finish(int r) {
    struct rank *me = &ranks[r];
    int i = me->call;
    const call_t *c = &calls[i];
    if (c->kind == TW_COLL_SHM_BCAST && r != c->root) {
        for (size_t j = 0; j < c->bytes; j++) {
            uint64_t v = value(i, c->root, (int)(j / 8));
            FUZZ_CHECK(me->take[j] == ((const uint8_t *)&v)[j % 8]);
        }
    } else if (c->kind == TW_COLL_SHM_ALLREDUCE ||
               (c->kind == TW_COLL_SHM_REDUCE && r == c->root)) {
        for (size_t j = 0; j < c->bytes / 8; j++) {
            uint64_t sum = 0, want = 0;
            for (int q = p - 1; q >= 0; q--) {
                uint64_t v;
                memcpy(&v, tw_coll_shm_line(&me->x, q, me->x.k)->data + 8 * j, 8);
                sum += v;
                want += value(i, q, (int)j);
            }
            FUZZ_CHECK(sum == want);
        }
    }
    me->call++;
    me->phase = IDLE;
    calls_done++;
}

/* One step of rank r. */
static void step(int r) {
    struct rank *me = &ranks[r];
    if (me->call >= n) return;
    const call_t *c = &calls[me->call];
    if (me->phase == DONE) {
        finish(r);
        return;
    }
    if (me->phase == IDLE) {
        me->x = (tw_coll_shm_run_t){.lines = lines, .size = p, .rank = r};
        tw_coll_shm_start(&me->x, (uint64_t)me->call + 1, c->kind, c->root, c->bytes);
        fill_give(r, me->call);
        me->phase = RUNNING;
    }
    steps_run++;
    if (!tw_coll_shm_advance(&me->x, me->give, me->take)) return;
    /* done: what it waited for has happened */
    if (c->kind == TW_COLL_SHM_BARRIER || c->kind == TW_COLL_SHM_ALLREDUCE ||
        (c->kind == TW_COLL_SHM_REDUCE && r == c->root))
        for (int q = 0; q < p; q++) FUZZ_CHECK(begun(q, me->call));
    if (c->kind == TW_COLL_SHM_BCAST) FUZZ_CHECK(begun(c->root, me->call));
    me->phase = DONE;
}

/* The block's gave-up word, written by a peer: any value names a member or none. */
static void check_gave_up_word(const uint8_t *data, size_t size) {
    uint64_t word = 0;
    memcpy(&word, data, size < sizeof word ? size : sizeof word);
    for (int members = 1; members <= 3; members++) {
        int who = tw_coll_shm_gave_up_rank(word, members);
        FUZZ_CHECK(who >= -1 && who < members);
        FUZZ_CHECK(who < 0 || (uint64_t)who + 1 == word); /* the rank it wrote */
    }
    FUZZ_CHECK(tw_coll_shm_gave_up_rank(0, 8) == -1 && tw_coll_shm_gave_up_rank(8, 8) == 7 &&
               tw_coll_shm_gave_up_rank(9, 8) == -1 &&
               tw_coll_shm_gave_up_rank(UINT64_MAX, 8) == -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    check_gave_up_word(data, size);
    if (size < 2) return 0;
    p = 2 + data[0] % 4;
    n = 1 + data[1] % CALLS_MAX;
    size_t at = 2;
    for (int i = 0; i < n; i++) {
        uint8_t a = at < size ? data[at] : 0, b = at + 1 < size ? data[at + 1] : 0;
        at += 2;
        calls[i].kind = a % 4;
        calls[i].root = (a / 4) % p;
        calls[i].bytes = calls[i].kind == TW_COLL_SHM_BARRIER ? 0
                         : calls[i].kind == TW_COLL_SHM_BCAST ? (size_t)b % (TW_COLL_LINE_DATA + 1)
                                                              : (size_t)(b % (WORDS + 1)) * 8;
    }
    /* the block exactly: reading past it is a fault under the sanitizer */
    lines = calloc((size_t)p * 2, sizeof *lines);
    if (!lines) abort();
    memset(ranks, 0, sizeof ranks);
    for (; at < size; at++) step(data[at] % p);
    /* the ranks go on in turn: none may wait for good, so every turn moves one on */
    for (;;) {
        int left = 0, moved = 0;
        for (int r = 0; r < p; r++) {
            const struct rank *me = &ranks[r];
            int was[4] = {me->call, me->phase, me->x.step, me->x.next};
            step(r);
            moved |= was[0] != me->call || was[1] != me->phase || was[2] != me->x.step ||
                     was[3] != me->x.next;
            left |= me->call < n;
        }
        if (!left) break;
        FUZZ_CHECK(moved);
    }
    free(lines);
    return 0;
}

/* A few calls and a scheduler of random steps. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    if (cap < 2 + 2 * CALLS_MAX + 256) return 0;
    buf[0] = (uint8_t)(index % 4);
    int calls_n = 1 + (int)(rand32() % CALLS_MAX);
    buf[1] = (uint8_t)(calls_n - 1);
    size_t at = 2;
    for (int i = 0; i < calls_n; i++) {
        buf[at++] = (uint8_t)(rand32() % 20); /* kind, root */
        buf[at++] = (uint8_t)(rand32() % 57);
    }
    size_t sched = 16 + rand32() % 200;
    for (size_t k = 0; k < sched; k++) buf[at++] = (uint8_t)rand32();
    return at;
}

void fuzz_report(FILE *out) {
    fprintf(out, "; %ld steps, %ld calls done", steps_run, calls_done);
}
