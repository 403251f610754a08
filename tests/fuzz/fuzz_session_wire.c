/* Fuzz target of what MPI_Comm_create_from_group's members take from one another
 * before they agree on a context (src/mpi/session/wire.h, run by
 * src/mpi/session/from_group.c): a member's check as the group's first member reads
 * it, and the verdict a member reads back.
 *
 * Byte 0 picks the mode. Check: bytes 1-4 are the first member's group size, bytes
 * 5-12 its digest, the rest the check received. Verdict: the rest is the verdict
 * received. Every verdict agrees with a plain reading of the format: a check is taken
 * exactly when it is 16 bytes of the magic, that size and that digest; a verdict
 * exactly when it is one int of 0 or 1. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mpi/session/wire.h"

enum { MODE_CHECK, MODE_VERDICT, MODES };
enum { SETUP = 13 };

static long tried[MODES], accepted[MODES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int mode = data[0] % MODES;
    tried[mode]++;
    if (mode == MODE_VERDICT) {
        int verdict = -7;
        int ok = tw_from_group_verdict_decode(data + 1, size - 1, &verdict);
        int plain = -1;
        if (size - 1 == sizeof(int)) memcpy(&plain, data + 1, sizeof plain);
        FUZZ_CHECK(ok == (size - 1 == sizeof(int) && (plain == 0 || plain == 1)));
        FUZZ_CHECK(ok ? verdict == plain : verdict == -7); /* untouched when refused */
        accepted[mode] += ok;
        return 0;
    }
    if (size < SETUP) return 0;
    uint32_t n;
    uint64_t digest;
    memcpy(&n, data + 1, 4);
    memcpy(&digest, data + 5, 8);
    const uint8_t *msg = data + SETUP;
    size_t len = size - SETUP;
    const char *why = tw_from_group_check_decode(msg, len, n, digest);
    tw_from_group_check_t c = {0, 0, 0};
    if (len == sizeof c) memcpy(&c, msg, sizeof c);
    int plain =
        len == sizeof c && c.magic == TW_FROM_GROUP_MAGIC && c.size == n && c.digest == digest;
    FUZZ_CHECK((why == NULL) == plain);
    FUZZ_CHECK(why == NULL || strlen(why) > 0); /* a refusal says what was wrong */
    accepted[mode] += plain;
    return 0;
}

size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    if (cap < SETUP + sizeof(tw_from_group_check_t)) return 0;
    int mode = (int)(index % MODES);
    buf[0] = (uint8_t)mode;
    if (mode == MODE_VERDICT) {
        int v = (int)(index / MODES) & 1;
        memcpy(buf + 1, &v, sizeof v);
        return 1 + sizeof v;
    }
    int world[4] = {0, 1, 2, (int)(rand32() % 64)};
    uint32_t n = 1 + rand32() % 4;
    uint64_t digest = tw_from_group_digest("tests/seed", (int)n, world);
    memcpy(buf + 1, &n, 4);
    memcpy(buf + 5, &digest, 8);
    tw_from_group_check_t c = {TW_FROM_GROUP_MAGIC, n, digest};
    memcpy(buf + SETUP, &c, sizeof c);
    return SETUP + sizeof c;
}

void fuzz_report(FILE *out) {
    fprintf(out, "; accepted: %ld of %ld checks, %ld of %ld verdicts", accepted[MODE_CHECK],
            tried[MODE_CHECK], accepted[MODE_VERDICT], tried[MODE_VERDICT]);
}
