/* SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF", 2012):
 * a keyed 64-bit tag of a short message: the udp link's packet authentication code, and the
 * liveness packets' (liveness.h).
 * The construction exactly as the paper specifies it; tests/unit/test_siphash.c holds
 * it to the paper's test vectors and to OpenSSL's implementation. */
#ifndef TW_LINK_SIPHASH_H
#define TW_LINK_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

enum { TW_SIPHASH_KEY_SIZE = 16 };

/* The key as the algorithm takes it: its 16 bytes read as two little-endian words. */
typedef struct tw_siphash_key {
    uint64_t k0, k1;
} tw_siphash_key_t;

/* The key of 16 bytes. */
tw_siphash_key_t tw_siphash_key(const unsigned char bytes[TW_SIPHASH_KEY_SIZE]);

/* SipHash-2-4 of len bytes under key, as the little-endian 64-bit number the paper
 * calls the output (its 8 bytes on the wire are that number, little-endian). */
uint64_t tw_siphash24(const tw_siphash_key_t *key, const void *data, size_t len);

/* The same over a message that lies in pieces: begin, then add each piece in order
 * (any lengths), then end gives what tw_siphash24 gives for the pieces joined. */
typedef struct tw_siphash {
    uint64_t v0, v1, v2, v3;
    uint64_t tail; /* the bytes of an unfinished word, little-endian */
    size_t len;    /* bytes added so far */
} tw_siphash_t;

void tw_siphash24_begin(tw_siphash_t *s, const tw_siphash_key_t *key);
void tw_siphash24_add(tw_siphash_t *s, const void *data, size_t len);
uint64_t tw_siphash24_end(tw_siphash_t *s);

#endif
