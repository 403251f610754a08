/* Fuzz target of a member's addresses as the other root of a connection sends them
 * (src/mpi/comm_create/dynamic_wire.h, read by src/mpi/session/dynamic.c): one per channel,
 * separated by spaces.
 *
 * Byte 0 gives the channels this side runs (1 to 16), the rest are the addresses. The
 * verdict must agree with a plain reading of the format, and the addresses of a member
 * taken apart the way dynamic.c does (tw_dynamic_address_len) must be exactly that many,
 * and put back together with their spaces, the bytes received. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mpi/comm_create/dynamic_wire.h"

static long tried, accepted;

/* The format read plainly: split at every space, then each part checked. */
static int plain_ok(const char *a, size_t n, int channels) {
    int parts = 1;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && a[i] != ' ') continue;
        size_t len = i - start;
        if (len < 4 || len >= TW_DYNAMIC_ADDRESS_MAX || memcmp(a + start, "shm:", 4) != 0) return 0;
        for (size_t j = start; j < i; j++)
            if ((unsigned char)a[j] <= ' ' || (unsigned char)a[j] > '~') return 0;
        if (i < n) parts++;
        start = i + 1;
    }
    return parts == channels;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int channels = 1 + data[0] % 16;
    size_t n = size - 1;
    char *a = malloc(n ? n : 1); /* exactly n bytes: a read past them is the sanitizer's */
    FUZZ_CHECK(a != NULL);
    memcpy(a, data + 1, n);
    tried++;
    int ok = n > 0 && tw_dynamic_addresses_ok(a, n, channels);
    FUZZ_CHECK(ok == (n > 0 && plain_ok(a, n, channels)));
    if (ok) {
        accepted++;
        char *again = malloc(n);
        FUZZ_CHECK(again != NULL);
        size_t at = 0, left = n;
        for (int k = 0; k < channels; k++) {
            size_t len = tw_dynamic_address_len(a + at, left);
            FUZZ_CHECK(len >= 4 && len < TW_DYNAMIC_ADDRESS_MAX && len <= left);
            FUZZ_CHECK((k + 1 < channels) == (len < left)); /* a space after all but the last */
            memcpy(again + at, a + at, len);
            if (len < left) again[at + len] = ' ';
            at += len + (len < left);
            left -= len + (len < left);
        }
        FUZZ_CHECK(left == 0 && at == n && memcmp(again, a, n) == 0);
        free(again);
    }
    free(a);
    return 0;
}

size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    int channels = 1 << (index % 5); /* 1 to 16 */
    size_t n = 1;
    buf[0] = (uint8_t)(channels - 1);
    for (int k = 0; k < channels; k++) {
        char one[128];
        int len = snprintf(one, sizeof one, "%sshm:node%u:/tw-%u-ep%d-r%u", k ? " " : "",
                           rand32() % 8, rand32(), k, rand32() % 4096);
        if (len < 0 || n + (size_t)len > cap) return 0;
        memcpy(buf + n, one, (size_t)len);
        n += (size_t)len;
    }
    return n;
}

void fuzz_report(FILE *out) {
    fprintf(out, "; accepted: %ld of %ld members' addresses", accepted, tried);
}
