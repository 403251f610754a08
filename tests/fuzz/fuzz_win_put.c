/* Fuzz target of the put messages a window's target applies (tw_win_put_header and
 * tw_win_put_map, src/mpi/rma/win_put_msg.h, which tw_win_put_take runs on a peer's bytes
 * before it writes them into the window).
 *
 * Bytes 0-1 give the window's size (1 to 65536 bytes); the rest is the message. When
 * the checks accept it, its data is unpacked into a window of exactly that size between
 * two guard zones, as tw_win_put_take does: the guards stay untouched (under ASan, any
 * byte outside the window is an error too), and the header's lengths agree with the
 * message's. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mpi/rma/win_put_msg.h"

enum { GUARD = 4096 };

static long accepted;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    int64_t bytes = (int64_t)(data[0] | data[1] << 8) + 1;
    const uint8_t *msg = data + 2;
    size_t len = size - 2;
    /* the message as a peer's mailbox slot holds it: aligned, apart from the input */
    unsigned char *copy = malloc(len ? len : 1);
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, msg, len);
    put_msg_t h;
    size_t head;
    tw_typemap_block_t blocks[TW_WIN_PUT_BLOCKS_MAX];
    tw_typemap_t m;
    if (tw_win_put_header(copy, len, &h, &head) && tw_win_put_map(&h, copy, bytes, blocks, &m)) {
        accepted++;
        FUZZ_CHECK(head + h.len == len && h.nblocks <= TW_WIN_PUT_BLOCKS_MAX);
        FUZZ_CHECK(h.off >= 0 && h.off <= bytes && h.count > 0);
        unsigned char *zone = malloc((size_t)bytes + 2 * GUARD);
        FUZZ_CHECK(zone != NULL);
        memset(zone, 0xa5, (size_t)bytes + 2 * GUARD);
        tw_typemap_move(&m, zone + GUARD + h.off, h.count, copy + head, h.first, h.len, 1);
        for (size_t k = 0; k < GUARD; k++)
            FUZZ_CHECK(zone[k] == 0xa5 && zone[GUARD + (size_t)bytes + k] == 0xa5);
        free(zone);
    }
    free(copy);
    return 0;
}

/* On half of the mutated inputs the header is made one: its kind, a block count the
 * message has room for, and the data length that is left, so that the map's checks
 * behind it are reached. */
void fuzz_fixup(uint8_t *buf, size_t size) {
    if (size < 2 + sizeof(put_msg_t)) return;
    put_msg_t h;
    memcpy(&h, buf + 2, sizeof h);
    size_t room = (size - 2 - sizeof h) / sizeof(tw_typemap_block_t);
    h.kind = MSG_PUT;
    h.nblocks %= (uint32_t)(room < TW_WIN_PUT_BLOCKS_MAX ? room : TW_WIN_PUT_BLOCKS_MAX) + 1;
    h.len = size - 2 - sizeof h - h.nblocks * sizeof(tw_typemap_block_t);
    memcpy(buf + 2, &h, sizeof h);
}

void fuzz_report(FILE *out) {
    fprintf(out, ", %ld accepted", accepted);
}
