#include "link/siphash.h"

#include <endian.h>
#include <string.h>

static inline uint64_t rotl(uint64_t x, int b) {
    return (x << b) | (x >> (64 - b));
}

static inline uint64_t load_le64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return le64toh(v);
}

#define SIPROUND                                                                                   \
    do {                                                                                           \
        v0 += v1;                                                                                  \
        v1 = rotl(v1, 13);                                                                         \
        v1 ^= v0;                                                                                  \
        v0 = rotl(v0, 32);                                                                         \
        v2 += v3;                                                                                  \
        v3 = rotl(v3, 16);                                                                         \
        v3 ^= v2;                                                                                  \
        v0 += v3;                                                                                  \
        v3 = rotl(v3, 21);                                                                         \
        v3 ^= v0;                                                                                  \
        v2 += v1;                                                                                  \
        v1 = rotl(v1, 17);                                                                         \
        v1 ^= v2;                                                                                  \
        v2 = rotl(v2, 32);                                                                         \
    } while (0)

tw_siphash_key_t tw_siphash_key(const unsigned char bytes[TW_SIPHASH_KEY_SIZE]) {
    return (tw_siphash_key_t){load_le64(bytes), load_le64(bytes + 8)};
}

void tw_siphash24_begin(tw_siphash_t *s, const tw_siphash_key_t *key) {
    s->v0 = key->k0 ^ 0x736f6d6570736575ull;
    s->v1 = key->k1 ^ 0x646f72616e646f6dull;
    s->v2 = key->k0 ^ 0x6c7967656e657261ull;
    s->v3 = key->k1 ^ 0x7465646279746573ull;
    s->tail = 0;
    s->len = 0;
}

void tw_siphash24_add(tw_siphash_t *s, const void *data, size_t len) {
    const unsigned char *p = data, *end = p + len;
    uint64_t v0 = s->v0, v1 = s->v1, v2 = s->v2, v3 = s->v3;
    size_t have = s->len & 7; /* bytes in tail */
    s->len += len;
    if (have) { /* fill the unfinished word first */
        for (; have < 8 && p != end; have++) s->tail |= (uint64_t)*p++ << (8 * have);
        if (have < 8) return;
        v3 ^= s->tail;
        SIPROUND;
        SIPROUND;
        v0 ^= s->tail;
        s->tail = 0;
    }
    for (; end - p >= 8; p += 8) {
        uint64_t m = load_le64(p);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    for (int i = 0; p != end; i++) s->tail |= (uint64_t)*p++ << (8 * i);
    s->v0 = v0, s->v1 = v1, s->v2 = v2, s->v3 = v3;
}

uint64_t tw_siphash24_end(tw_siphash_t *s) {
    uint64_t v0 = s->v0, v1 = s->v1, v2 = s->v2, v3 = s->v3;
    uint64_t b = ((uint64_t)s->len << 56) | s->tail;
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t tw_siphash24(const tw_siphash_key_t *key, const void *data, size_t len) {
    const unsigned char *p = data;
    uint64_t v0 = key->k0 ^ 0x736f6d6570736575ull; /* "somepseudorandomlygeneratedbytes" */
    uint64_t v1 = key->k1 ^ 0x646f72616e646f6dull;
    uint64_t v2 = key->k0 ^ 0x6c7967656e657261ull;
    uint64_t v3 = key->k1 ^ 0x7465646279746573ull;
    const unsigned char *end = p + (len & ~(size_t)7);
    for (; p != end; p += 8) { /* c = 2 compression rounds per word */
        uint64_t m = load_le64(p);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    /* the last word: the remaining bytes, and the length modulo 256 in its top byte */
    uint64_t b = (uint64_t)len << 56;
    switch (len & 7) {
    case 7:
        b |= (uint64_t)p[6] << 48; /* fall through */
    case 6:
        b |= (uint64_t)p[5] << 40; /* fall through */
    case 5:
        b |= (uint64_t)p[4] << 32; /* fall through */
    case 4:
        b |= (uint64_t)p[3] << 24; /* fall through */
    case 3:
        b |= (uint64_t)p[2] << 16; /* fall through */
    case 2:
        b |= (uint64_t)p[1] << 8; /* fall through */
    case 1:
        b |= (uint64_t)p[0];
        break;
    case 0:
        break;
    }
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff; /* d = 4 finalization rounds */
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}
