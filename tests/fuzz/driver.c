/* The main() of every fuzz target when it is not built with libFuzzer: a small,
 * deterministic mutation fuzzer, so that `make test` runs each target without clang.
 *
 *   fuzz_X [--runs N] [--seconds S] [--seed X] [CORPUS_DIR_OR_FILE...]
 *   fuzz_X --write-corpus DIR [--count N]
 *
 * It runs every corpus file once as it is, then N mutated inputs (or as many as fit in
 * S seconds), each made from a corpus entry or a fresh structured seed by one to four
 * mutations: bit flips, bytes and words set to interesting values, cuts, erasures,
 * extensions, copies of spans, long runs of a byte and splices of two entries. The same seed gives
 * the same inputs. When an input breaks a property, it is written to crash-<target> before the
 * process dies, to be replayed by passing that file as the corpus. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void))
    __attribute__((weak));
void fuzz_fixup(uint8_t *buf, size_t size) __attribute__((weak));
void fuzz_report(FILE *out) __attribute__((weak));
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

typedef struct entry {
    uint8_t *data;
    size_t size;
} entry_t;

static uint64_t rng_state;

static uint32_t rng(void) { /* xorshift64 */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static size_t below(size_t n) {
    return n ? rng() % n : 0;
}

/* The input under test, kept where a dying process can still write it out. */
static const char *target_name;
static const uint8_t *current;
static size_t current_size;
static char crash_path[512];

static void save_current(void) {
    int fd = creat(crash_path, 0644);
    if (fd < 0) return;
    ssize_t n = current ? write(fd, current, current_size) : 0;
    (void)n;
    close(fd);
    static const char msg[] = "the failing input is in ";
    n = write(2, msg, sizeof msg - 1);
    n = write(2, crash_path, strlen(crash_path));
    n = write(2, "\n", 1);
}

static void on_fatal_signal(int sig) {
    save_current();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void run_one(const uint8_t *data, size_t size) {
    /* an allocation of exactly size bytes, so a read past the input is caught */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) abort();
    memcpy(copy, data, size);
    current = copy;
    current_size = size;
    LLVMFuzzerTestOneInput(copy, size);
    current = NULL;
    free(copy);
}

static void add_entry(entry_t **pool, size_t *n, const uint8_t *data, size_t size) {
    if (size > FUZZ_INPUT_MAX) size = FUZZ_INPUT_MAX;
    entry_t *grown = realloc(*pool, (*n + 1) * sizeof **pool);
    uint8_t *copy = malloc(size ? size : 1);
    if (!grown || !copy) abort();
    memcpy(copy, data, size);
    *pool = grown;
    grown[(*n)++] = (entry_t){copy, size};
}

static int load_file(const char *path, entry_t **pool, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    static uint8_t buf[FUZZ_INPUT_MAX];
    size_t size = fread(buf, 1, sizeof buf, f);
    fclose(f);
    add_entry(pool, n, buf, size);
    return 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's regular files in name order, so that runs are reproducible. */
static int load_corpus(const char *path, entry_t **pool, size_t *n) {
    struct stat st;
    if (stat(path, &st)) return -1;
    if (!S_ISDIR(st.st_mode)) return load_file(path, pool, n);
    DIR *d = opendir(path);
    if (!d) return -1;
    char **names = NULL;
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char **grown = realloc(names, (count + 1) * sizeof *names);
        if (!grown) abort();
        names = grown;
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[count] = malloc(len);
        if (!names[count]) abort();
        snprintf(names[count++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) load_file(names[i], pool, n);
        free(names[i]);
    }
    free(names);
    return 0;
}

/* Values that sit on the edges of what decoders check, and the separators of the
 * text formats (the PMI wire's ' ', '=' and '\n'). */
static const uint8_t interesting_bytes[] = {0,    1,    0x7f, 0x80, 0xff, 0x20, '=',
                                            '\n', '\r', '0',  '9',  'a',  0x7e, 0x1f};
static const uint32_t interesting_words[] = {
    0,      1,       0x7f,   0x80,       0xff,       0x100,      0x7fff,    0x8000,
    0xffff, 0x10000, 0x5ea4, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff};

/* One mutation of buf (size *n, room for FUZZ_INPUT_MAX), other for splices. */
static void mutate(uint8_t *buf, size_t *n, const entry_t *other) {
    size_t size = *n < FUZZ_INPUT_MAX ? *n : FUZZ_INPUT_MAX;
    switch (rng() % 11) {
    case 0: /* flip a bit */
        if (size) buf[below(size)] ^= (uint8_t)(1u << (rng() % 8));
        break;
    case 1: /* a byte set to an interesting value */
        if (size) buf[below(size)] = interesting_bytes[below(sizeof interesting_bytes)];
        break;
    case 2: { /* a 2- or 4-byte word set to an interesting or random value, either order */
        size_t width = rng() % 2 ? 4 : 2;
        if (size < width) break;
        uint32_t v = rng() % 2 ? interesting_words[below(sizeof interesting_words / 4)] : rng();
        if (rng() % 2) v = __builtin_bswap32(v) >> (width == 2 ? 16 : 0);
        /* half of the time among the first 64 bytes, 2-aligned, where headers keep fields */
        size_t span = size < 64 ? size : 64;
        size_t at = rng() % 2 ? below((span - width) / 2 + 1) * 2 : below(size - width + 1);
        memcpy(buf + at, &v, width);
        break;
    }
    case 3: /* cut the end */
        size = below(size);
        break;
    case 4: { /* erase a span */
        if (!size) break;
        size_t at = below(size), len = 1 + below(size - at < 16 ? size - at : 16);
        memmove(buf + at, buf + at + len, size - at - len);
        size -= len;
        break;
    }
    case 5: { /* extend with random bytes */
        size_t more = 1 + below(64);
        if (more > FUZZ_INPUT_MAX - size) more = FUZZ_INPUT_MAX - size;
        for (size_t i = 0; i < more; i++) buf[size + i] = (uint8_t)rng();
        size += more;
        break;
    }
    case 6: { /* insert random bytes */
        size_t at = below(size + 1), more = 1 + below(8);
        if (more > FUZZ_INPUT_MAX - size) more = FUZZ_INPUT_MAX - size;
        memmove(buf + at + more, buf + at, size - at);
        for (size_t i = 0; i < more; i++) buf[at + i] = (uint8_t)rng();
        size += more;
        break;
    }
    case 7: { /* copy a span over another place */
        if (size < 2) break;
        size_t from = below(size), to = below(size), len = 1 + below(size - from);
        if (len > size - to) len = size - to;
        memmove(buf + to, buf + from, len);
        break;
    }
    case 8: { /* insert a copy of a span */
        if (!size) break;
        size_t from = below(size), to = below(size + 1), len = 1 + below(size - from);
        if (len > FUZZ_INPUT_MAX - size) len = FUZZ_INPUT_MAX - size;
        uint8_t span[FUZZ_INPUT_MAX];
        memcpy(span, buf + from, len);
        memmove(buf + to + len, buf + to, size - to);
        memcpy(buf + to, span, len);
        size += len;
        break;
    }
    case 9: { /* insert a long run of one byte: lengths near the limits decoders check */
        size_t at = below(size + 1), more = below(FUZZ_INPUT_MAX - size + 1);
        memmove(buf + at + more, buf + at, size - at);
        memset(buf + at, size ? buf[below(size)] : 'a', more);
        size += more;
        break;
    }
    default: { /* splice: this one's beginning, the other's end */
        if (!other || !other->size) break;
        size_t keep = below(size + 1), from = below(other->size);
        size_t len = other->size - from;
        if (len > FUZZ_INPUT_MAX - keep) len = FUZZ_INPUT_MAX - keep;
        memcpy(buf + keep, other->data + from, len);
        size = keep + len;
    }
    }
    *n = size;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_corpus(const char *dir, unsigned count) {
    if (!fuzz_seed) {
        fprintf(stderr, "%s: this target has no seed hook; write its corpus by hand\n",
                target_name);
        return 2;
    }
    if (mkdir(dir, 0755) && errno != EEXIST) {
        fprintf(stderr, "%s: cannot make %s: %s\n", target_name, dir, strerror(errno));
        return 1;
    }
    static uint8_t buf[FUZZ_INPUT_MAX];
    for (unsigned i = 0; i < count; i++) {
        size_t n = fuzz_seed(buf, sizeof buf, i, rng);
        char path[4096];
        snprintf(path, sizeof path, "%s/seed-%02u", dir, i);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
            fprintf(stderr, "%s: cannot write %s\n", target_name, path);
            return 1;
        }
    }
    printf("%s: %u seeds written to %s\n", target_name, count, dir);
    return 0;
}

static void usage(void) {
    fprintf(stderr,
            "usage: %s [--runs N] [--seconds S] [--seed X] [CORPUS_DIR_OR_FILE...]\n"
            "       %s --write-corpus DIR [--count N]\n",
            target_name, target_name);
    exit(2);
}

int main(int argc, char **argv) {
    const char *slash = strrchr(argv[0], '/');
    target_name = slash ? slash + 1 : argv[0];
    long runs = -1;
    double seconds = 0;
    uint64_t seed = 1;
    const char *corpus_out = NULL;
    unsigned count = 8;
    entry_t *pool = NULL;
    size_t pool_size = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(a, "--runs") && has_value)
            runs = atol(argv[++i]);
        else if (!strcmp(a, "--seconds") && has_value)
            seconds = atof(argv[++i]);
        else if (!strcmp(a, "--seed") && has_value)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(a, "--write-corpus") && has_value)
            corpus_out = argv[++i];
        else if (!strcmp(a, "--count") && has_value)
            count = (unsigned)atoi(argv[++i]);
        else if (a[0] == '-')
            usage();
        else if (load_corpus(a, &pool, &pool_size)) {
            fprintf(stderr, "%s: cannot read %s: %s\n", target_name, a, strerror(errno));
            return 2;
        }
    }
    rng_state = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    if (!rng_state) rng_state = 1;
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    if (corpus_out) return write_corpus(corpus_out, count);
    if (runs < 0) runs = seconds > 0 ? -1 : 100000;

    snprintf(crash_path, sizeof crash_path, "crash-%s", target_name);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(save_current);
    static const int fatal[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) signal(fatal[i], on_fatal_signal);

    double start = now();
    size_t corpus_files = pool_size;
    for (size_t i = 0; i < pool_size; i++) run_one(pool[i].data, pool[i].size);

    static uint8_t buf[FUZZ_INPUT_MAX];
    long mutated = 0;
    unsigned seeds_made = 0;
    while (runs < 0 || mutated < runs) {
        if (seconds > 0 && (mutated & 255) == 0 && now() - start >= seconds) break;
        size_t n = 0;
        const entry_t *other = pool_size ? &pool[below(pool_size)] : NULL;
        if (fuzz_seed && (!pool_size || rng() % 2)) {
            n = fuzz_seed(buf, sizeof buf, seeds_made++, rng);
        } else if (pool_size) {
            const entry_t *base = &pool[below(pool_size)];
            memcpy(buf, base->data, base->size);
            n = base->size;
        }
        int mutations = 1 + (int)(rng() % 4);
        for (int m = 0; m < mutations; m++) mutate(buf, &n, other);
        if (fuzz_fixup && rng() % 2) fuzz_fixup(buf, n);
        run_one(buf, n);
        mutated++;
    }
    double elapsed = now() - start;
    long total = (long)corpus_files + mutated;
    printf("%s: %ld inputs (%zu corpus files, %ld mutated) in %.2f s, %.0f inputs/s, seed %llu",
           target_name, total, corpus_files, mutated, elapsed,
           elapsed > 0 ? (double)total / elapsed : 0.0, (unsigned long long)seed);
    if (fuzz_report) fuzz_report(stdout);
    printf("\n");
    for (size_t i = 0; i < pool_size; i++) free(pool[i].data);
    free(pool);
    return 0;
}
