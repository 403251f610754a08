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

/* 1 when the first argument asks for help (-h, --help). */
static inline int bench_wants_help(int argc, char **argv) {
    return argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"));
}

/* The test argv[1] names, among n entries of stride bytes each starting with its name
 * (a const char *): its index, or -1 after saying what was wrong (on rank 0). */
static inline int bench_pick_test(const char *prog, int rank, int argc, char **argv,
                                  const void *table, size_t n, size_t stride) {
    for (size_t k = 0; argc >= 2 && k < n; k++) {
        const char *name;
        memcpy(&name, (const char *)table + k * stride, sizeof name);
        if (!strcmp(argv[1], name)) return (int)k;
    }
    if (rank == 0) fprintf(stderr, "%s: %s\n", prog, argc < 2 ? "no test given" : "unknown test");
    return -1;
}

/* 0, or -1 after saying so (on rank 0) when the job has not exactly 2 ranks. */
static inline int bench_need_two_ranks(const char *prog, int rank, int nranks) {
    if (nranks == 2) return 0;
    if (rank == 0) fprintf(stderr, "%s: needs exactly 2 ranks, got %d\n", prog, nranks);
    return -1;
}

#endif
