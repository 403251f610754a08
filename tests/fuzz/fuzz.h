/* What a fuzz target defines. LLVMFuzzerTestOneInput is required: it gets one input
 * and abort()s when a property the code promises does not hold. The other hooks are
 * optional (the driver and the libFuzzer glue look for them as weak symbols):
 *
 *   fuzz_seed    writes a valid, structured input into buf (at most cap bytes) and
 *                returns its length; index counts 0, 1, 2, ... and rand32 is a
 *                deterministic generator. Used by the driver beside the corpus, and by
 *                `--write-corpus DIR` to make the seed corpus committed in the tree.
 *   fuzz_fixup   repairs a mutated input (a checksum) so that the checks behind it
 *                are reached; applied to half of the mutated inputs.
 *   fuzz_report  prints what the target counted (", 123 accepted") after the
 *                driver's "<target>: N inputs".
 *
 * Inputs are at most FUZZ_INPUT_MAX bytes. */
#ifndef TW_FUZZ_H
#define TW_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { FUZZ_INPUT_MAX = 8192 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void));
void fuzz_fixup(uint8_t *buf, size_t size);
void fuzz_report(FILE *out);

/* A seed that is one text, cut to cap bytes. */
static inline size_t fuzz_seed_text(uint8_t *buf, size_t cap, const char *text) {
    size_t n = strlen(text) < cap ? strlen(text) : cap;
    memcpy(buf, text, n);
    return n;
}

/* A property the code promises does not hold: say which, and abort. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, #cond);          \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
