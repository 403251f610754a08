/* SipHash-2-4 as the udp link computes it: the 64 test vectors of the reference
 * implementation (key 00 01 .. 0f, message 00 01 .. n-1 for n = 0 .. 63), then random
 * keys and messages of every length up to a few blocks past a packet header against
 * OpenSSL libcrypto's SIPHASH (EVP_MAC, 8-byte output, 2 and 4 rounds by default). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "link/siphash.h"

/* The reference implementation's vectors.h (vectors_sip64), each tag read as a
 * little-endian 64-bit number. */
static const uint64_t reference[64] = {
    0x726fdb47dd0e0e31ull, 0x74f839c593dc67fdull, 0x0d6c8009d9a94f5aull, 0x85676696d7fb7e2dull,
    0xcf2794e0277187b7ull, 0x18765564cd99a68dull, 0xcbc9466e58fee3ceull, 0xab0200f58b01d137ull,
    0x93f5f5799a932462ull, 0x9e0082df0ba9e4b0ull, 0x7a5dbbc594ddb9f3ull, 0xf4b32f46226bada7ull,
    0x751e8fbc860ee5fbull, 0x14ea5627c0843d90ull, 0xf723ca908e7af2eeull, 0xa129ca6149be45e5ull,
    0x3f2acc7f57c29bdbull, 0x699ae9f52cbe4794ull, 0x4bc1b3f0968dd39cull, 0xbb6dc91da77961bdull,
    0xbed65cf21aa2ee98ull, 0xd0f2cbb02e3b67c7ull, 0x93536795e3a33e88ull, 0xa80c038ccd5ccec8ull,
    0xb8ad50c6f649af94ull, 0xbce192de8a85b8eaull, 0x17d835b85bbb15f3ull, 0x2f2e6163076bcfadull,
    0xde4daaaca71dc9a5ull, 0xa6a2506687956571ull, 0xad87a3535c49ef28ull, 0x32d892fad841c342ull,
    0x7127512f72f27cceull, 0xa7f32346f95978e3ull, 0x12e0b01abb051238ull, 0x15e034d40fa197aeull,
    0x314dffbe0815a3b4ull, 0x027990f029623981ull, 0xcadcd4e59ef40c4dull, 0x9abfd8766a33735cull,
    0x0e3ea96b5304a7d0ull, 0xad0c42d6fc585992ull, 0x187306c89bc215a9ull, 0xd4a60abcf3792b95ull,
    0xf935451de4f21df2ull, 0xa9538f0419755787ull, 0xdb9acddff56ca510ull, 0xd06c98cd5c0975ebull,
    0xe612a3cb9ecba951ull, 0xc766e62cfcadaf96ull, 0xee64435a9752fe72ull, 0xa192d576b245165aull,
    0x0a8787bf8ecb74b2ull, 0x81b3e73d20b49b6full, 0x7fa8220ba3b2eceaull, 0x245731c13ca42499ull,
    0xb78dbfaf3a8d83bdull, 0xea1ad565322a1a0bull, 0x60e61c23a3795013ull, 0x6606d7e446282b93ull,
    0x6ca4ecb15c5f91e1ull, 0x9f626da15c9625f3ull, 0xe51b38608ef25f57ull, 0x958a324ceb064572ull,
};

static void test_reference_vectors(void **state) {
    (void)state;
    unsigned char key[16], msg[64];
    for (int i = 0; i < 16; i++) key[i] = (unsigned char)i;
    for (int i = 0; i < 64; i++) msg[i] = (unsigned char)i;
    tw_siphash_key_t k = tw_siphash_key(key);
    assert_true(k.k0 == 0x0706050403020100ull && k.k1 == 0x0f0e0d0c0b0a0908ull);
    for (size_t n = 0; n < 64; n++) assert_true(tw_siphash24(&k, msg, n) == reference[n]);
}

/* OpenSSL's SipHash-2-4 of len bytes under key: the 8 bytes of the tag. */
static void openssl_siphash(EVP_MAC *mac, const unsigned char key[16], const unsigned char *msg,
                            size_t len, unsigned char out[8]) {
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    assert_non_null(ctx);
    size_t size = 8, got = 0;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size),
                           OSSL_PARAM_construct_end()};
    assert_int_equal(EVP_MAC_init(ctx, key, 16, params), 1);
    assert_int_equal(EVP_MAC_update(ctx, msg, len), 1);
    assert_int_equal(EVP_MAC_final(ctx, out, &got, 8), 1);
    assert_int_equal(got, 8);
    EVP_MAC_CTX_free(ctx);
}

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t next_random(void) { /* splitmix64: reproducible inputs */
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void test_matches_openssl(void **state) {
    (void)state;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "SIPHASH", NULL);
    assert_non_null(mac);
    unsigned char key[16], msg[256], want[8];
    for (int round = 0; round < 4000; round++) {
        for (size_t i = 0; i < sizeof key; i++) key[i] = (unsigned char)next_random();
        size_t len = round < 256 ? (size_t)round : (size_t)(next_random() % sizeof msg);
        for (size_t i = 0; i < len; i++) msg[i] = (unsigned char)next_random();
        /* the tag over the message at every alignment, as packets lie in buffers */
        size_t shift = (size_t)round % 8;
        unsigned char moved[sizeof msg + 8];
        memcpy(moved + shift, msg, len);
        openssl_siphash(mac, key, msg, len, want);
        tw_siphash_key_t k = tw_siphash_key(key);
        uint64_t tag = tw_siphash24(&k, moved + shift, len);
        for (int b = 0; b < 8; b++) assert_int_equal((unsigned char)(tag >> (8 * b)), want[b]);
    }
    EVP_MAC_free(mac);
}

/* In pieces of every split, the same as in one go. */
static void test_in_pieces(void **state) {
    (void)state;
    unsigned char key[16], msg[100];
    for (int round = 0; round < 200; round++) {
        for (size_t i = 0; i < sizeof key; i++) key[i] = (unsigned char)next_random();
        for (size_t i = 0; i < sizeof msg; i++) msg[i] = (unsigned char)next_random();
        tw_siphash_key_t k = tw_siphash_key(key);
        size_t len = (size_t)round % (sizeof msg + 1);
        uint64_t whole = tw_siphash24(&k, msg, len);
        for (size_t a = 0; a <= len; a++) {
            size_t b = a + (len - a) / 3;
            tw_siphash_t s;
            tw_siphash24_begin(&s, &k);
            tw_siphash24_add(&s, msg, a);
            tw_siphash24_add(&s, msg + a, b - a);
            tw_siphash24_add(&s, msg + b, len - b);
            assert_true(tw_siphash24_end(&s) == whole);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_vectors),
        cmocka_unit_test(test_matches_openssl),
        cmocka_unit_test(test_in_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
