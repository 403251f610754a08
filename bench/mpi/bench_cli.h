/* The command line the MPI benchmarks share (mpibench.c, collbench.c, rmabench.c):
 * sizes with K or M suffixes, and the options --min SIZE, --max SIZE, --iters N, --csv.
 * Only C and the MPI-independent C library, so any MPI's mpicc builds it. */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes, optionally with K or M (binary); -1 unless floor <= value <= ceiling. */
static int bench_parse_size(const char *s, size_t floor, size_t ceiling, size_t *out) {
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *s == '-') return -1;
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    if (*end != '\0' || v < floor || v > ceiling) return -1;
    *out = (size_t)v;
    return 0;
}

/* Parses argv[2..]: updates *min, *max, *iters, *csv from the options given. 0, or
 * -1 after saying what was wrong (on rank 0; every rank reaches the same verdict). */
static int bench_parse_options(const char *prog, int rank, int argc, char **argv, size_t floor,
                               size_t ceiling, size_t *min, size_t *max, long *iters, int *csv) {
    int bad = 0;
    for (int a = 2; !bad && a < argc; a++) {
        const char *opt = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(opt, "--csv")) {
            *csv = 1;
            continue;
        }
        if (!val)
            bad = 1;
        else if (!strcmp(opt, "--min"))
            bad = bench_parse_size(val, floor, ceiling, min) != 0;
        else if (!strcmp(opt, "--max"))
            bad = bench_parse_size(val, floor, ceiling, max) != 0;
        else if (!strcmp(opt, "--iters")) {
            char *end;
            *iters = strtol(val, &end, 10);
            bad = end == val || *end != '\0' || *iters < 1;
        } else
            bad = 1;
        if (bad && rank == 0)
            fprintf(stderr, "%s: bad option or value: %s%s%s\n", prog, opt, val ? " " : "",
                    val ? val : "");
        a++;
    }
    if (!bad && *min > *max) {
        if (rank == 0) fprintf(stderr, "%s: --min is above --max\n", prog);
        bad = 1;
    }
    return bad ? -1 : 0;
}

#endif
