/* Fuzz target of a group as a connection's root or an intercommunicator's leader sends
 * it to another job (src/mpi/comm_create/dynamic_wire.h: tw_dynamic_group_ok, read by
 * comm_create/peers.c and session/dynamic.c): n endpoint ids, then each member's
 * addresses ended by '\0'.
 *
 * Byte 0 gives the channels this side runs (1 to 4), byte 1 the members (1 to 4), then
 * 4 bytes of each id (little-endian), the rest the addresses. The verdict must agree
 * with a plain reading (ids in [0, 2^30), the bytes split at every '\0' into exactly n
 * members each ended by one, each member's addresses taken by tw_dynamic_addresses_ok),
 * and an accepted group walked as peers.c walks it must end exactly at its end. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mpi/comm_create/dynamic_wire.h"

static long tried, accepted;

static int plain_ok(int n, const int *ids, const char *a, size_t len, int channels) {
    for (int k = 0; k < n; k++)
        if (ids[k] < 0 || ids[k] >= (1 << 30)) return 0;
    int members = 0;
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        if (a[i] != '\0') continue;
        if (members == n || i == start || !tw_dynamic_addresses_ok(a + start, i - start, channels))
            return 0;
        members++;
        start = i + 1;
    }
    return members == n && start == len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    int channels = 1 + data[0] % 4, n = 1 + data[1] % 4, ids[4];
    if (size < 2 + 4 * (size_t)n) return 0;
    for (int k = 0; k < n; k++) {
        uint32_t v = (uint32_t)data[2 + 4 * k] | (uint32_t)data[3 + 4 * k] << 8 |
                     (uint32_t)data[4 + 4 * k] << 16 | (uint32_t)data[5 + 4 * k] << 24;
        ids[k] = (int)v;
    }
    size_t len = size - 2 - 4 * (size_t)n;
    char *a = malloc(len ? len : 1); /* exactly len bytes: a read past them is the sanitizer's */
    FUZZ_CHECK(a != NULL);
    memcpy(a, data + 2 + 4 * n, len);
    tried++;
    int ok = tw_dynamic_group_ok(n, ids, a, len, channels);
    FUZZ_CHECK(ok == plain_ok(n, ids, a, len, channels));
    if (ok) {
        accepted++;
        const char *p = a;
        for (int m = 0; m < n; m++) {
            size_t left = strlen(p);
            for (int k = 0; k < channels; k++) {
                size_t one = tw_dynamic_address_len(p, left);
                FUZZ_CHECK(one >= 4 && one < TW_DYNAMIC_ADDRESS_MAX && one <= left);
                p += one + (one < left);
                left -= one + (one < left);
            }
            FUZZ_CHECK(left == 0 && *p == '\0');
            p++;
        }
        FUZZ_CHECK(p == a + len);
    }
    free(a);
    return 0;
}

size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    int channels = 1 + (int)(index % 4), n = 1 + (int)((index / 4) % 4);
    size_t at = 2;
    buf[0] = (uint8_t)(channels - 1);
    buf[1] = (uint8_t)(n - 1);
    for (int k = 0; k < n; k++) {
        uint32_t id = rand32() % 4096;
        if (at + 4 > cap) return 0;
        for (int b = 0; b < 4; b++) buf[at++] = (uint8_t)(id >> (8 * b));
    }
    for (int m = 0; m < n; m++)
        for (int k = 0; k < channels; k++) {
            char one[128];
            int len = snprintf(one, sizeof one, "shm:node%u:/tw-%u-ep%d-r%u%s", rand32() % 8,
                               rand32(), k, rand32() % 4096, k + 1 < channels ? " " : "");
            if (len < 0 || at + (size_t)len + 1 > cap) return 0;
            memcpy(buf + at, one, (size_t)len);
            at += (size_t)len;
            if (k + 1 == channels) buf[at++] = '\0';
        }
    return at;
}

void fuzz_report(FILE *out) {
    fprintf(out, "; accepted: %ld of %ld groups", accepted, tried);
}
