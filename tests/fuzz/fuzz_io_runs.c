/* Fuzz target of what an aggregator of MPI-IO's collective buffering takes from another
 * rank: the runs of the rank's access in the aggregator's file domain
 * (tw_io_runs_take, src/mpi/io/two_phase_wire.h, run by src/mpi/io/two_phase.c).
 *
 * Bytes 0-7: the domain's start and length, byte 8-9 the window (the round's bytes);
 * the rest are pairs of int32 (offset from the domain's start, which may be negative,
 * and length). The verdict agrees with a plain reading of the rules; for runs taken,
 * every piece of every window lands inside the window's buffer (as the aggregator
 * copies it), and the windows together hold each run's bytes exactly once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mpi/io/two_phase_wire.h"

enum { HEAD = 10, PAIRS_MAX = (FUZZ_INPUT_MAX - HEAD) / 8 };

static long tried, taken;

/* The rules, read plainly: in order, none over another, inside, a byte or more each. */
static int plain(const MPI_Offset *v, int n, MPI_Offset from, MPI_Offset to) {
    for (int k = 0; k < n; k += 2) {
        if (v[k + 1] <= 0 || v[k] < from || v[k] + v[k + 1] > to) return 0;
        if (k && v[k] < v[k - 2] + v[k - 1]) return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < HEAD) return 0;
    uint32_t start, length;
    uint16_t window;
    memcpy(&start, data, 4);
    memcpy(&length, data + 4, 4);
    memcpy(&window, data + 8, 2);
    MPI_Offset from = start % (1u << 20), to = from + length % (1u << 16);
    MPI_Offset w = 1 + window % 4096;
    static MPI_Offset v[2 * PAIRS_MAX];
    int n = 0;
    for (size_t at = HEAD; at + 8 <= size; at += 8, n += 2) {
        int32_t off, len;
        memcpy(&off, data + at, 4);
        memcpy(&len, data + at + 4, 4);
        v[n] = from + off % 70000, v[n + 1] = len % 70000;
    }
    tried++;
    int ok = tw_io_runs_take(v, n, from, to);
    FUZZ_CHECK(ok == plain(v, n, from, to));
    FUZZ_CHECK(!tw_io_runs_take(v, n + 1, from, to) || n + 1 < 0); /* never half a pair */
    if (!ok) return 0;
    taken++;
    /* the aggregator's rounds: windows of w bytes from the domain's start */
    MPI_Offset moved = 0, total = 0;
    for (int k = 0; k < n; k += 2) total += v[k + 1];
    for (MPI_Offset ws = from; ws < to; ws += w) {
        MPI_Offset we = ws + w < to ? ws + w : to;
        for (int k = 0; k < n; k += 2) {
            MPI_Offset a = v[k] > ws ? v[k] : ws;
            MPI_Offset e = v[k] + v[k + 1] < we ? v[k] + v[k + 1] : we;
            if (e <= a) continue;
            FUZZ_CHECK(a - ws >= 0 && e - ws <= w); /* inside the window's buffer */
            moved += e - a;
        }
    }
    FUZZ_CHECK(moved == total);
    return 0;
}

size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    if (cap < HEAD) return 0;
    uint32_t start = rand32() % 100000, length = 1 + rand32() % 60000;
    uint16_t window = (uint16_t)(index % 3 == 0 ? 4095 : rand32() % 512);
    memcpy(buf, &start, 4);
    memcpy(buf + 4, &length, 4);
    memcpy(buf + 8, &window, 2);
    size_t at = HEAD;
    int32_t off = (int32_t)(rand32() % 64);
    for (unsigned k = 0; k < 2 + index % 40 && at + 8 <= cap; k++, at += 8) {
        int32_t len = (int32_t)(1 + rand32() % 300);
        if (off + len > (int32_t)length) break;
        memcpy(buf + at, &off, 4);
        memcpy(buf + at + 4, &len, 4);
        off += len + (int32_t)(rand32() % 200);
    }
    return at;
}

void fuzz_report(FILE *out) {
    fprintf(out, "; %ld lists, %ld taken", tried, taken);
}
