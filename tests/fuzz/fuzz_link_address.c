/* Fuzz target of the links' address fields as a rank takes a peer's (src/link/address.c:
 * tw_link_udp_address_take, tw_link_ofi_address_take): text another process published
 * through the process manager.
 *
 * Byte 0 picks the mode:
 *  0 the rest is a udp field, 1 an ofi field: taken only when it is exactly the form
 *    this side makes, so that making it again from what was taken gives the same text;
 *    a data port is never 0, ports never above 65535, a name never longer than
 *    TW_LINK_OFI_NAME_MAX, the provider a span of the field without ':';
 *  2 the rest gives the values (address, ports, provider, name): the field made of them is
 *    taken back, with the same values. */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/status.h>

#include "fuzz.h"
#include "link/address.h"

enum { FIELD_MAX = 1024 };

static long taken[2], made;

static void take_udp(const char *text) {
    struct sockaddr_in data;
    unsigned live = 99999;
    if (tw_link_udp_address_take(text, &data, &live) != TW_OK) return;
    taken[0]++;
    FUZZ_CHECK(data.sin_family == AF_INET && data.sin_port != 0 && live <= 65535);
    char again[FIELD_MAX + 1];
    FUZZ_CHECK(tw_link_udp_address_make(again, sizeof again, &data, live) == TW_OK);
    FUZZ_CHECK(!strcmp(again, text));
}

static void take_ofi(const char *text) {
    const char *prov = NULL;
    size_t plen = 0, n = SIZE_MAX;
    unsigned char name[TW_LINK_OFI_NAME_MAX];
    struct sockaddr_in live;
    if (tw_link_ofi_address_take(text, &prov, &plen, name, &n, &live) != TW_OK) return;
    taken[1]++;
    FUZZ_CHECK(prov >= text && prov + plen <= text + strlen(text) && plen > 0);
    FUZZ_CHECK(!memchr(prov, ':', plen) && n <= TW_LINK_OFI_NAME_MAX);
    char provider[FIELD_MAX + 1], again[FIELD_MAX + 1];
    memcpy(provider, prov, plen);
    provider[plen] = 0;
    FUZZ_CHECK(tw_link_ofi_address_make(again, sizeof again, provider, name, n, &live) == TW_OK);
    FUZZ_CHECK(!strcmp(again, text));
}

/* Values from the bytes: IPv4 4, data port 2, liveness port 2, provider length 1 and its
 * bytes (no ':' nor NUL), name length 1 and its bytes. */
static void make_and_take(const uint8_t *d, size_t size) {
    if (size < 10) return;
    struct sockaddr_in a = {.sin_family = AF_INET};
    memcpy(&a.sin_addr, d, 4);
    memcpy(&a.sin_port, d + 4, 2);
    unsigned live = (unsigned)d[6] << 8 | d[7];
    size_t plen = d[8] % 32, at = 9;
    char provider[32];
    memset(provider, 'p', sizeof provider);
    size_t given = size - at < plen ? size - at : plen;
    memcpy(provider, d + at, given);
    at += given;
    provider[plen] = 0;
    for (char *c = provider; (c = strpbrk(c, ":")) != NULL;) *c = '_';
    if (strlen(provider) < plen) plen = strlen(provider); /* a NUL among the bytes ends it */
    size_t n = at < size ? d[at++] : 0;
    unsigned char name[255];
    for (size_t i = 0; i < n; i++) name[i] = at < size ? d[at++] : (unsigned char)i;
    char field[FIELD_MAX];
    made++;

    struct sockaddr_in data;
    unsigned back = 0;
    FUZZ_CHECK(tw_link_udp_address_make(field, sizeof field, &a, live) == TW_OK);
    FUZZ_CHECK(tw_link_udp_address_take(field, &data, &back) == (a.sin_port ? TW_OK : TW_ERR_PEER));
    FUZZ_CHECK(!a.sin_port || (data.sin_addr.s_addr == a.sin_addr.s_addr &&
                               data.sin_port == a.sin_port && back == live));

    if (!plen) return; /* the provider is never empty */
    const char *prov;
    size_t pl, m;
    unsigned char got[TW_LINK_OFI_NAME_MAX];
    FUZZ_CHECK(tw_link_ofi_address_make(field, sizeof field, provider, name, n, &a) == TW_OK);
    int rc = tw_link_ofi_address_take(field, &prov, &pl, got, &m, &data);
    FUZZ_CHECK(rc == (n ? TW_OK : TW_ERR_PEER)); /* a name of no bytes is no endpoint */
    FUZZ_CHECK(rc ||
               (pl == plen && !memcmp(prov, provider, plen) && m == n && !memcmp(got, name, n) &&
                data.sin_addr.s_addr == a.sin_addr.s_addr && data.sin_port == a.sin_port));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    if (data[0] % 3 == 2) {
        make_and_take(data + 1, size - 1);
        return 0;
    }
    char text[FIELD_MAX + 1];
    size_t n = size - 1 < FIELD_MAX ? size - 1 : FIELD_MAX;
    memcpy(text, data + 1, n);
    text[n] = 0;
    if (data[0] % 3 == 0)
        take_udp(text);
    else
        take_ofi(text);
    return 0;
}

/* Fields as ranks publish them, and values to make them of. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    char field[FIELD_MAX];
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)(1 + rand32()))};
    a.sin_addr.s_addr = htonl(index % 2 ? 0x7f000001u : rand32());
    unsigned char name[32];
    for (size_t i = 0; i < sizeof name; i++) name[i] = (unsigned char)rand32();
    static const char *providers[] = {"tcp;ofi_rxm", "shm", "verbs;ofi_rxm", "efa", "cxi"};
    if (cap < 2) return 0;
    switch (index % 3) {
    case 0:
        tw_link_udp_address_make(field, sizeof field, &a, rand32() % 65536);
        break;
    case 1:
        tw_link_ofi_address_make(field, sizeof field, providers[rand32() % 5], name,
                                 1 + rand32() % sizeof name, &a);
        break;
    default:
        buf[0] = 2;
        for (size_t i = 1; i < cap && i < 64; i++) buf[i] = (uint8_t)rand32();
        return cap < 64 ? cap : 64;
    }
    buf[0] = (uint8_t)(index % 3);
    return 1 + fuzz_seed_text(buf + 1, cap - 1, field);
}

void fuzz_report(FILE *out) {
    fprintf(out, "; taken: %ld udp, %ld ofi fields; %ld made and taken back", taken[0], taken[1],
            made);
}
