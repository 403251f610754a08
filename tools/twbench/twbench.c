/* twbench NAME [--csv] [--sizes MIN:MAX] [--iters N] [--senders K]: the native
 * benchmarks, run under twrun. A table by default; --csv prints
 * benchmark,op,size,value,unit lines. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct bench_entry {
    const char *name;
    int (*run)(const bench_ctx_t *);
    size_t min_size, max_size; /* the default range */
    size_t limit;              /* the largest size --sizes may ask for */
    const char *about;
} bench_entry_t;

static const bench_entry_t benches[] = {
    {"velo-latency", bench_velo_latency, 1, TW_VELO_MAX_SIZE, TW_VELO_MAX_SIZE,
     "ping-pong between ranks 0 and 1: half round trip by size (2 ranks)"},
    {"velo-rate", bench_velo_rate, 8, 8, TW_VELO_MAX_SIZE,
     "messages per second from --senders K ranks to rank 0 (K+1 ranks)"},
    {"rma-latency", bench_rma_latency, 8, 8, (size_t)16 << 20,
     "put, get, immediate and notification put, FCAA and VELO latency (2 ranks)"},
    {"rma-bw", bench_rma_bw, 8, (size_t)64 << 20, (size_t)64 << 20,
     "put and get bandwidth to shared-heap and registered memory, and memcpy (2 ranks)"},
    {"reg-cost", bench_reg_cost, 4096, (size_t)1 << 30, (size_t)1 << 30,
     "tw_reg + tw_dereg of 4 KiB .. 1 GiB, sizes in powers of 4 (1 rank)"},
    {"thesis", bench_thesis, 8, 8, 8,
     "the rows of the EXTOLL thesis Table 9-1 measured here, beside the thesis (2 ranks)"},
};

static void usage(FILE *out) {
    fprintf(out, "usage: twrun -n N twbench NAME [--csv] [--sizes MIN:MAX] [--iters N] "
                 "[--senders K]\nbenchmarks:\n");
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        fprintf(out, "  %-14s %s\n", benches[i].name, benches[i].about);
}

static int parse_size(const char *s, size_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    else if (*end == 'G' || *end == 'g')
        v <<= 30, end++;
    if (*end) return -1;
    *out = (size_t)v;
    return 0;
}

static int bad(const char *msg, const char *arg) {
    fprintf(stderr, "twbench: %s: '%s'\n", msg, arg);
    usage(stderr);
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 2) return bad("missing benchmark name", "");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    const bench_entry_t *b = NULL;
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        if (!strcmp(argv[1], benches[i].name)) b = &benches[i];
    if (!b) return bad("unknown benchmark", argv[1]);

    bench_opts_t opts = {.min_size = b->min_size, .max_size = b->max_size, .senders = 1};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--csv")) {
            opts.csv = 1;
        } else if (!strcmp(a, "--sizes") && v) {
            char buf[64];
            snprintf(buf, sizeof buf, "%s", v);
            char *colon = strchr(buf, ':');
            if (colon) *colon = '\0';
            if (parse_size(buf, &opts.min_size) ||
                parse_size(colon ? colon + 1 : buf, &opts.max_size) ||
                opts.min_size > opts.max_size)
                return bad("--sizes wants MIN:MAX in bytes (K, M and G suffixes allowed)", v);
            i++;
        } else if (!strcmp(a, "--iters") && v) {
            char *end;
            opts.iters = strtol(v, &end, 10);
            if (*end || opts.iters < 1) return bad("--iters wants a positive count", v);
            i++;
        } else if (!strcmp(a, "--senders") && v) {
            char *end;
            opts.senders = (int)strtol(v, &end, 10);
            if (*end || opts.senders < 1) return bad("--senders wants a positive count", v);
            i++;
        } else {
            return bad("unknown or incomplete option", a);
        }
    }
    if (opts.max_size > b->limit) {
        fprintf(stderr, "twbench: %s goes up to %zu bytes\n", b->name, b->limit);
        return 2;
    }

    tw_ep_t *ep;
    int rc = tw_ep_open(&ep);
    if (rc) {
        fprintf(stderr, "twbench: cannot open an endpoint: %s\n", tw_strerror(rc));
        return 1;
    }
    bench_ctx_t ctx = {ep, tw_ep_rank(ep), tw_ep_size(ep), &opts, b->name};
    rc = b->run(&ctx);
    tw_ep_barrier(ep);
    tw_ep_close(ep);
    return rc;
}
