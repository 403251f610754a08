/* Fuzz target of the accumulate messages a window's target applies and the answers an
 * origin takes (tw_win_acc_header, tw_win_acc_inside and tw_win_acc_answer_header,
 * src/mpi/rma/win_acc_msg.h, which tw_win_acc_take and tw_win_acc_answer_take run on a
 * peer's bytes in win_acc.c).
 *
 * Bytes 0-1 give the window's size (1 to 65536 bytes), byte 2 whether the rest is a
 * message (even) or an answer (odd). An accepted message's lengths agree with its
 * header, its element fills the range a whole number of times (exactly once for a
 * compare-and-swap), and, when it lies inside the window, writing its range as the
 * target does (the operand, or for a compare-and-swap the operand only where the
 * compare value matched) touches no byte outside the window (guard zones; ASan too).
 * An accepted answer carries exactly the former contents its header counts. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mpi/rma/win_acc_msg.h"

enum { GUARD = 4096 };

static long accepted, applied, answers;

static void message(const unsigned char *msg, size_t len, int64_t bytes) {
    acc_msg_t h;
    if (!tw_win_acc_header(msg, len, &h)) return;
    accepted++;
    int es = tw_mpi_type_contiguous_size((MPI_Datatype)h.type);
    int swap = (h.flags & TW_WIN_ACC_SWAP) != 0;
    FUZZ_CHECK(h.kind == MSG_ACC && h.off >= 0 && h.len >= 1 && h.len <= TW_WIN_ACC_BYTES_MAX);
    FUZZ_CHECK(es > 0 && h.len % (uint64_t)es == 0 && (!swap || h.len == (uint64_t)es));
    FUZZ_CHECK(len == sizeof h + tw_win_acc_operands(&h));
    if (!tw_win_acc_inside(&h, bytes)) return;
    FUZZ_CHECK(h.off + (int64_t)h.len <= bytes);
    applied++;
    unsigned char *zone = malloc((size_t)bytes + 2 * GUARD);
    FUZZ_CHECK(zone != NULL);
    memset(zone, 0xa5, (size_t)bytes + 2 * GUARD);
    unsigned char *at = zone + GUARD + h.off, old[TW_WIN_ACC_BYTES_MAX];
    const unsigned char *operand = msg + sizeof h;
    memcpy(old, at, h.len);
    if (tw_win_acc_operands(&h) && (!swap || !memcmp(old, operand + h.len, h.len)))
        memcpy(at, operand, h.len);
    for (size_t k = 0; k < GUARD; k++)
        FUZZ_CHECK(zone[k] == 0xa5 && zone[GUARD + (size_t)bytes + k] == 0xa5);
    free(zone);
}

static void answer(const unsigned char *msg, size_t len) {
    acc_answer_t a;
    if (!tw_win_acc_answer_header(msg, len, &a)) return;
    answers++;
    FUZZ_CHECK(a.kind == MSG_ACC_ANSWER && a.len <= TW_WIN_ACC_BYTES_MAX &&
               len == sizeof a + a.len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3) return 0;
    int64_t bytes = (int64_t)(data[0] | data[1] << 8) + 1;
    size_t len = size - 3;
    /* the message as the mailbox holds it: apart from the input, ASan sees its end */
    unsigned char *copy = malloc(len ? len : 1);
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, data + 3, len);
    if (data[2] & 1)
        answer(copy, len);
    else
        message(copy, len, bytes);
    free(copy);
    return 0;
}

/* On half of the mutated inputs the header is made one: its kind, and a length that
 * the rest of the input holds, so that the checks behind those are reached. */
void fuzz_fixup(uint8_t *buf, size_t size) {
    if (size < 3 + sizeof(acc_msg_t)) return;
    if (buf[2] & 1) {
        acc_answer_t a;
        memcpy(&a, buf + 3, sizeof a);
        a.kind = MSG_ACC_ANSWER;
        a.len = size - 3 - sizeof a;
        memcpy(buf + 3, &a, sizeof a);
        return;
    }
    acc_msg_t h;
    memcpy(&h, buf + 3, sizeof h);
    h.kind = MSG_ACC;
    size_t room = size - 3 - sizeof h;
    h.len = (h.flags & TW_WIN_ACC_SWAP) ? room / 2 : room;
    memcpy(buf + 3, &h, sizeof h);
}

void fuzz_report(FILE *out) {
    fprintf(out, ", %ld accepted, %ld inside the window, %ld answers", accepted, applied, answers);
}
