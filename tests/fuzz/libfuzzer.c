/* Glue for a target built with libFuzzer: its fixup hook, when it has one, repairs half
 * of libFuzzer's mutations as the driver does (a CRC made right again), so that the
 * checks behind a checksum are reached. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz.h"

void fuzz_fixup(uint8_t *buf, size_t size) __attribute__((weak));
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    size = LLVMFuzzerMutate(data, size, max_size);
    if (fuzz_fixup && (seed & 1)) fuzz_fixup(data, size);
    return size;
}
