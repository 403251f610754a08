/* iobench: the MPI-IO access patterns of real programs, written and read back through
 * MPI-IO alone, independent and collective, with every read checked byte for byte.
 *
 * usage: iobench [--dir DIR] [--patterns LIST] [--modes LIST] [--reps N] [--block SIZE]
 *                [--record SIZE] [--records N] [--grid N] [--small SIZE]
 *                [--small-records N] [--hint KEY=VALUE]... [--inject-error]
 *        (iobench --help describes each option)
 *
 * Patterns (P ranks, r this rank):
 *   contiguous   each rank one block of B bytes at r*B (a file per process, in one file);
 *                MPI_File_write_at / read_at, collective write_at_all / read_at_all.
 *   interleaved  records of R bytes, rank r owns records r, r+P, r+2P ... (M of them), seen
 *                through a view whose filetype is a strided vector (MPI_Type_create_hvector,
 *                resized to M*P*R): the layout of a table written a row per rank at a time.
 *   subarray     a checkpoint of a global N x N x N array of doubles cut into a Cartesian
 *                grid of blocks (MPI_Dims_create); each rank's block goes through a view
 *                made with MPI_Type_create_subarray, the file in C order, as HDF5 and
 *                PnetCDF lay out a distributed array.
 *   shared       small records of S bytes through the shared file pointer, M per rank, one
 *                call per record: MPI_File_write_shared / read_shared (independent: the
 *                records land in whatever order the ranks get there) and
 *                MPI_File_write_ordered / read_ordered (collective: in rank order), the
 *                way a log or an event stream is written.
 * Modes: independent and collective as above; nonblocking (asked for with --modes) the
 * collective calls' non-blocking forms, MPI_File_iwrite_at_all / iread_at_all, each waited
 * for at once (shared: iwrite_shared / iread_shared), which shows what an MPI's
 * non-blocking collective access costs against its blocking one.
 *
 * Timing. Each repetition writes a fresh file (rank 0 deletes the old one first, outside
 * the timing) and reads it back. Open and set_view are outside the timed region; the
 * region is fenced by MPI_Barrier on both sides and, for writes, includes MPI_File_sync,
 * so a write's time covers getting the data to the file system's storage, not just into
 * the page cache. Reads drop nothing from any cache: the file was written moments before
 * on the same node, so on a disk-backed directory the reads are page-cache reads (memory
 * bandwidth through the kernel and the MPI's I/O layer, not the disk's). Each figure is
 * the time from the fence before to the barrier after, the longest any rank saw; the
 * best and the median of the repetitions are printed.
 *
 * Checking. The bytes written depend on their offset in the file and on the repetition,
 * so a byte in the wrong place, a stale byte of an earlier repetition or a short read is
 * found. After every read (outside the timed region) each rank compares what it read;
 * the first wrong byte is named and the run fails (exit status 1). The shared pattern's
 * records carry their identity: each must be intact and, together, every record must have
 * been read exactly once (read_shared) or in rank order (read_ordered).
 *
 * Output (stdout, rank 0): a header, then one CSV line per pattern, mode and op:
 *   iobench,PATTERN,MODE,OP,RANKS,BYTES,REPS,BEST_S,MEDIAN_S,MB_S
 * BYTES is moved by all ranks together per repetition; MB_S = BYTES / MEDIAN_S / 10^6.
 * Files are named DIR/iobench-<pid of rank 0>-<pattern>-<mode> and deleted afterwards.
 *
 * Only the MPI-3.1 I/O chapter and datatype calls are used, so every MPI builds it. */
#include <mpi.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum pattern { CONTIGUOUS, INTERLEAVED, SUBARRAY, SHARED, N_PATTERNS };
enum mode { INDEPENDENT, COLLECTIVE, NONBLOCKING, N_MODES };
static const char *const pattern_names[N_PATTERNS] = {"contiguous", "interleaved", "subarray",
                                                      "shared"};
static const char *const mode_names[N_MODES] = {"independent", "collective", "nonblocking"};

#define MAX_LOCAL_BYTES ((size_t)1 << 30) /* per rank and pattern: an int count of bytes */
#define MAX_HINTS       32

struct options {
    const char *dir;
    int patterns[N_PATTERNS], modes[N_MODES];
    long reps;
    size_t block, record, small;
    long records, grid, small_records;
    int inject_error;
    MPI_Info info;
};

static int rank, nranks;
static char current_path[4096]; /* the file in use, removed when the run dies */

static _Noreturn void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "iobench: rank %d: ", rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (rank == 0 && current_path[0]) remove(current_path);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2); /* in case Abort returns */
}

/* Files return errors by default (MPI_ERRORS_RETURN): each is fatal, with its text. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            char text_[MPI_MAX_ERROR_STRING];                                                      \
            int len_ = 0;                                                                          \
            if (MPI_Error_string(rc_, text_, &len_) != MPI_SUCCESS) len_ = 0;                      \
            text_[len_] = '\0';                                                                    \
            die("%s failed: %s (file %s)", #call, text_, current_path);                            \
        }                                                                                          \
    } while (0)

static void *alloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) die("cannot allocate %zu bytes", bytes);
    memset(p, 0, bytes ? bytes : 1);
    return p;
}

/* ---- the data: a function of the file offset and of the repetition ---- */

static uint64_t mix(uint64_t x, uint64_t seed) {
    x ^= seed * 0x9E3779B97F4A7C15u;
    x ^= x >> 30, x *= 0xBF58476D1CE4E5B9u;
    x ^= x >> 27, x *= 0x94D049BB133111EBu;
    return x ^ (x >> 31);
}

/* Byte o of the file holds byte o % 8 of mix(o / 8, seed). */
static void fill_bytes(unsigned char *p, size_t n, uint64_t offset, uint64_t seed) {
    size_t i = 0;
    while (i < n) {
        uint64_t o = offset + i, w = mix(o >> 3, seed);
        for (unsigned s = (unsigned)(o & 7); s < 8 && i < n; s++, i++)
            p[i] = (unsigned char)(w >> (8 * s));
    }
}

/* The index of the first byte that differs from fill_bytes, or n. */
static size_t check_bytes(const unsigned char *p, size_t n, uint64_t offset, uint64_t seed) {
    size_t i = 0;
    while (i < n) {
        uint64_t o = offset + i, w = mix(o >> 3, seed);
        for (unsigned s = (unsigned)(o & 7); s < 8 && i < n; s++, i++)
            if (p[i] != (unsigned char)(w >> (8 * s))) return i;
    }
    return n;
}

/* An element of the global array: an integer below 2^53, exact as a double. */
static double element(uint64_t index, uint64_t seed) {
    return (double)((mix(index, seed) >> 12) ^ (index & 0xFFF));
}

/* ---- one pattern's layout on this rank ---- */

struct layout {
    size_t local_bytes;                   /* this rank's share */
    MPI_Offset total_bytes;               /* all ranks' */
    MPI_Datatype etype, filetype;         /* the view (MPI_BYTE, MPI_BYTE: none) */
    MPI_Offset disp;                      /* the view's displacement */
    MPI_Offset offset;                    /* of write_at / read_at, in etypes */
    int count;                            /* of memtype */
    MPI_Datatype memtype;                 /* MPI_BYTE or MPI_DOUBLE */
    size_t segments, segment_bytes;       /* contiguous, interleaved: pieces of the buffer */
    MPI_Offset first_segment, seg_stride; /* their file offsets: first + k * stride */
    int gsizes[3], lsizes[3], starts[3];  /* subarray */
};

static void make_layout(enum pattern p, const struct options *o, struct layout *l) {
    memset(l, 0, sizeof *l);
    l->etype = l->filetype = l->memtype = MPI_BYTE;
    switch (p) {
    case CONTIGUOUS:
        l->local_bytes = l->segment_bytes = o->block;
        l->segments = 1;
        l->first_segment = l->offset = (MPI_Offset)rank * (MPI_Offset)o->block;
        break;
    case INTERLEAVED: {
        MPI_Datatype strided;
        l->segments = (size_t)o->records;
        l->segment_bytes = o->record;
        l->local_bytes = l->segments * l->segment_bytes;
        l->first_segment = l->disp = (MPI_Offset)rank * (MPI_Offset)o->record;
        l->seg_stride = (MPI_Offset)nranks * (MPI_Offset)o->record;
        CHECK(MPI_Type_create_hvector((int)o->records, (int)o->record, (MPI_Aint)l->seg_stride,
                                      MPI_BYTE, &strided));
        /* resized to the whole table, so a view that tiles it continues where it ended */
        CHECK(MPI_Type_create_resized(strided, 0, (MPI_Aint)l->seg_stride * o->records,
                                      &l->filetype));
        CHECK(MPI_Type_free(&strided));
        CHECK(MPI_Type_commit(&l->filetype));
        break;
    }
    case SUBARRAY: {
        int dims[3] = {0, 0, 0}, coords[3];
        CHECK(MPI_Dims_create(nranks, 3, dims));
        /* the coordinates MPI_Cart_create would give without reordering (row-major) */
        coords[2] = rank % dims[2];
        coords[1] = rank / dims[2] % dims[1];
        coords[0] = rank / (dims[2] * dims[1]);
        size_t elements = 1;
        for (int d = 0; d < 3; d++) {
            int n = (int)o->grid, base = n / dims[d], extra = n % dims[d];
            l->gsizes[d] = n;
            l->lsizes[d] = base + (coords[d] < extra);
            l->starts[d] = coords[d] * base + (coords[d] < extra ? coords[d] : extra);
            elements *= (size_t)l->lsizes[d];
        }
        l->local_bytes = elements * sizeof(double);
        l->etype = l->memtype = MPI_DOUBLE;
        CHECK(MPI_Type_create_subarray(3, l->gsizes, l->lsizes, l->starts, MPI_ORDER_C, MPI_DOUBLE,
                                       &l->filetype));
        CHECK(MPI_Type_commit(&l->filetype));
        l->count = (int)elements;
        l->total_bytes = (MPI_Offset)o->grid * o->grid * o->grid * (MPI_Offset)sizeof(double);
        return;
    }
    case SHARED:
        l->local_bytes = (size_t)o->small_records * o->small;
        l->count = (int)o->small;
        l->total_bytes = (MPI_Offset)l->local_bytes * nranks;
        return;
    default:
        break;
    }
    l->count = (int)l->local_bytes;
    l->total_bytes = (MPI_Offset)l->local_bytes * nranks;
}

static void free_layout(struct layout *l) {
    if (l->filetype != MPI_BYTE) CHECK(MPI_Type_free(&l->filetype));
}

/* ---- filling and checking a rank's buffer ---- */

static void fill(enum pattern p, const struct layout *l, unsigned char *buf, uint64_t seed) {
    if (p == SUBARRAY) {
        double *v = (double *)(void *)buf;
        size_t k = 0;
        for (int i = 0; i < l->lsizes[0]; i++)
            for (int j = 0; j < l->lsizes[1]; j++)
                for (int m = 0; m < l->lsizes[2]; m++) {
                    uint64_t g = ((uint64_t)(l->starts[0] + i) * (uint64_t)l->gsizes[1] +
                                  (uint64_t)(l->starts[1] + j)) *
                                     (uint64_t)l->gsizes[2] +
                                 (uint64_t)(l->starts[2] + m);
                    v[k++] = element(g, seed);
                }
        return;
    }
    for (size_t s = 0; s < l->segments; s++)
        fill_bytes(buf + s * l->segment_bytes, l->segment_bytes,
                   (uint64_t)(l->first_segment + (MPI_Offset)s * l->seg_stride), seed);
}

/* 0, or 1 after naming the first wrong byte or element of this rank. */
static int check(enum pattern p, const struct layout *l, const unsigned char *buf, uint64_t seed) {
    if (p == SUBARRAY) {
        const double *v = (const double *)(const void *)buf;
        size_t k = 0;
        for (int i = 0; i < l->lsizes[0]; i++)
            for (int j = 0; j < l->lsizes[1]; j++)
                for (int m = 0; m < l->lsizes[2]; m++, k++) {
                    uint64_t g = ((uint64_t)(l->starts[0] + i) * (uint64_t)l->gsizes[1] +
                                  (uint64_t)(l->starts[1] + j)) *
                                     (uint64_t)l->gsizes[2] +
                                 (uint64_t)(l->starts[2] + m);
                    if (v[k] != element(g, seed)) {
                        fprintf(stderr,
                                "iobench: rank %d: subarray: element (%d,%d,%d) (file offset "
                                "%llu) read %.17g, written %.17g\n",
                                rank, l->starts[0] + i, l->starts[1] + j, l->starts[2] + m,
                                (unsigned long long)(g * sizeof(double)), v[k], element(g, seed));
                        return 1;
                    }
                }
        return 0;
    }
    for (size_t s = 0; s < l->segments; s++) {
        uint64_t off = (uint64_t)(l->first_segment + (MPI_Offset)s * l->seg_stride);
        const unsigned char *piece = buf + s * l->segment_bytes;
        size_t bad = check_bytes(piece, l->segment_bytes, off, seed);
        if (bad < l->segment_bytes) {
            unsigned char want;
            fill_bytes(&want, 1, off + bad, seed);
            fprintf(stderr,
                    "iobench: rank %d: %s: byte at file offset %llu read 0x%02x, "
                    "written 0x%02x\n",
                    rank, pattern_names[p], (unsigned long long)(off + bad), piece[bad], want);
            return 1;
        }
    }
    return 0;
}

/* A shared-pointer record: its identity (rank * M + seq, masked by the seed) in the first
 * 8 bytes, then bytes that depend on the identity and the seed. */
static void fill_record(unsigned char *rec, size_t size, uint64_t id, uint64_t seed) {
    uint64_t head = id ^ mix(~(uint64_t)0, seed);
    memcpy(rec, &head, sizeof head);
    fill_bytes(rec + 8, size - 8, id * size + 8, seed);
}

/* The record's identity when it is intact and below limit, else UINT64_MAX. */
static uint64_t record_id(const unsigned char *rec, size_t size, uint64_t limit, uint64_t seed) {
    uint64_t head;
    memcpy(&head, rec, sizeof head);
    uint64_t id = head ^ mix(~(uint64_t)0, seed);
    if (id >= limit || check_bytes(rec + 8, size - 8, id * size + 8, seed) != size - 8)
        return UINT64_MAX;
    return id;
}

/* ---- timing ---- */

static void remove_file(const char *path) {
    if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL); /* absent is fine */
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

static MPI_File open_file(const char *path, int amode, const struct options *o,
                          const struct layout *l) {
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, amode, o->info, &fh));
    CHECK(MPI_File_set_view(fh, l->disp, l->etype, l->filetype, "native", o->info));
    return fh;
}

static double fence(void) {
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    return MPI_Wtime();
}

/* The region that began at start, up to the barrier after it (the method says both
 * sides): from the first rank's start to the last rank's end. Each rank's time alone,
 * without that barrier, missed what a rank waited for its core after taking its start:
 * 4 ranks on 2 cores, a pread of 16 MiB (3 ms) runs whole before its neighbour's, and
 * the slower rank's figure was 3 or 6 ms by the order they left the fence in. */
static double elapsed(double start) {
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double mine = MPI_Wtime() - start, longest;
    CHECK(MPI_Allreduce(&mine, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return longest;
}

static void write_data(enum pattern p, enum mode m, MPI_File fh, const struct layout *l,
                       const unsigned char *buf, const struct options *o) {
    MPI_Status st;
    MPI_Request req;
    if (p != SHARED) {
        if (m == COLLECTIVE) {
            CHECK(MPI_File_write_at_all(fh, l->offset, buf, l->count, l->memtype, &st));
        } else if (m == NONBLOCKING) {
            CHECK(MPI_File_iwrite_at_all(fh, l->offset, buf, l->count, l->memtype, &req));
            CHECK(MPI_Wait(&req, &st));
        } else {
            CHECK(MPI_File_write_at(fh, l->offset, buf, l->count, l->memtype, &st));
        }
        return;
    }
    for (long k = 0; k < o->small_records; k++) {
        const unsigned char *rec = buf + (size_t)k * o->small;
        if (m == COLLECTIVE) {
            CHECK(MPI_File_write_ordered(fh, rec, l->count, MPI_BYTE, &st));
        } else if (m == NONBLOCKING) {
            CHECK(MPI_File_iwrite_shared(fh, rec, l->count, MPI_BYTE, &req));
            CHECK(MPI_Wait(&req, &st));
        } else {
            CHECK(MPI_File_write_shared(fh, rec, l->count, MPI_BYTE, &st));
        }
    }
}

/* Reads, and returns how many bytes the MPI says it read. */
static long long read_data(enum pattern p, enum mode m, MPI_File fh, const struct layout *l,
                           unsigned char *buf, const struct options *o) {
    MPI_Status st;
    int got;
    long long bytes = 0;
    MPI_Request req;
    if (p != SHARED) {
        if (m == COLLECTIVE) {
            CHECK(MPI_File_read_at_all(fh, l->offset, buf, l->count, l->memtype, &st));
        } else if (m == NONBLOCKING) {
            CHECK(MPI_File_iread_at_all(fh, l->offset, buf, l->count, l->memtype, &req));
            CHECK(MPI_Wait(&req, &st));
        } else {
            CHECK(MPI_File_read_at(fh, l->offset, buf, l->count, l->memtype, &st));
        }
        CHECK(MPI_Get_count(&st, MPI_BYTE, &got));
        return got;
    }
    for (long k = 0; k < o->small_records; k++) {
        unsigned char *rec = buf + (size_t)k * o->small;
        if (m == COLLECTIVE) {
            CHECK(MPI_File_read_ordered(fh, rec, l->count, MPI_BYTE, &st));
        } else if (m == NONBLOCKING) {
            CHECK(MPI_File_iread_shared(fh, rec, l->count, MPI_BYTE, &req));
            CHECK(MPI_Wait(&req, &st));
        } else {
            CHECK(MPI_File_read_shared(fh, rec, l->count, MPI_BYTE, &st));
        }
        CHECK(MPI_Get_count(&st, MPI_BYTE, &got));
        bytes += got;
    }
    return bytes;
}

/* 0, or 1 after naming what was wrong: every record intact; read_ordered in rank order,
 * read_shared each record exactly once across the ranks. */
static int check_shared(enum mode m, const unsigned char *buf, const struct options *o,
                        uint64_t seed) {
    uint64_t total = (uint64_t)o->small_records * (uint64_t)nranks;
    int *seen = alloc(total * sizeof *seen), *all = alloc(total * sizeof *all), bad = 0;
    for (long k = 0; k < o->small_records && !bad; k++) {
        uint64_t id = record_id(buf + (size_t)k * o->small, o->small, total, seed);
        /* write_ordered's k-th call put rank r's record at k * P + r */
        uint64_t want = (uint64_t)rank * (uint64_t)o->small_records + (uint64_t)k;
        if (id == UINT64_MAX) {
            fprintf(stderr, "iobench: rank %d: shared: record %ld read is not one written\n", rank,
                    k);
            bad = 1;
        } else if (m == COLLECTIVE && id != want) {
            fprintf(stderr,
                    "iobench: rank %d: shared: read_ordered call %ld got record %llu of rank "
                    "%llu, not its own record %ld\n",
                    rank, k, (unsigned long long)(id % (uint64_t)o->small_records),
                    (unsigned long long)(id / (uint64_t)o->small_records), k);
            bad = 1;
        } else
            seen[id]++;
    }
    /* total fits an int: parse_options saw to it */
    CHECK(MPI_Allreduce(seen, all, (int)total, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (uint64_t id = 0; id < total && !bad && rank == 0; id++)
        if (all[id] != 1) {
            fprintf(stderr, "iobench: shared: record %llu of rank %llu was read %d times\n",
                    (unsigned long long)(id % (uint64_t)o->small_records),
                    (unsigned long long)(id / (uint64_t)o->small_records), all[id]);
            bad = 1;
        }
    free(seen);
    free(all);
    return bad;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(enum pattern p, enum mode m, const char *op, MPI_Offset bytes, double *times,
                   long reps) {
    if (rank != 0) return;
    qsort(times, (size_t)reps, sizeof *times, by_value);
    double median = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
    printf("iobench,%s,%s,%s,%d,%lld,%ld,%.6f,%.6f,%.3f\n", pattern_names[p], mode_names[m], op,
           nranks, (long long)bytes, reps, times[0], median,
           median > 0 ? (double)bytes / median / 1e6 : 0.0);
    fflush(stdout);
}

/* Runs one pattern in one mode; 0, or 1 when a read came back wrong. */
static int run(enum pattern p, enum mode m, const struct options *o, int tag) {
    struct layout l;
    make_layout(p, o, &l);
    char path[sizeof current_path];
    if (rank == 0)
        snprintf(path, sizeof path, "%s/iobench-%d-%s-%s", o->dir, tag, pattern_names[p],
                 mode_names[m]);
    CHECK(MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD));
    memcpy(current_path, path, sizeof path);

    unsigned char *out = alloc(l.local_bytes), *in = alloc(l.local_bytes);
    double *wtimes = alloc((size_t)o->reps * sizeof(double));
    double *rtimes = alloc((size_t)o->reps * sizeof(double));
    int failed = 0;
    for (long r = 0; r < o->reps && !failed; r++) {
        uint64_t seed = (uint64_t)r + 1 + 1000u * (uint64_t)(p * N_MODES + m);
        if (p == SHARED)
            for (long k = 0; k < o->small_records; k++)
                fill_record(out + (size_t)k * o->small, o->small,
                            (uint64_t)rank * (uint64_t)o->small_records + (uint64_t)k, seed);
        else
            fill(p, &l, out, seed);
        memset(in, 0xA5, l.local_bytes);

        remove_file(path);
        MPI_File fh = open_file(path, MPI_MODE_CREATE | MPI_MODE_WRONLY, o, &l);
        double start = fence();
        write_data(p, m, fh, &l, out, o);
        CHECK(MPI_File_sync(fh));
        wtimes[r] = elapsed(start);
        CHECK(MPI_File_close(&fh));

        fh = open_file(path, MPI_MODE_RDONLY, o, &l);
        start = fence();
        long long got = read_data(p, m, fh, &l, in, o);
        rtimes[r] = elapsed(start);
        CHECK(MPI_File_close(&fh));

        if (o->inject_error && rank == nranks - 1 && l.local_bytes > 0)
            in[l.local_bytes / 2] ^= 0x10; /* the check must catch this */
        int bad = 0;
        if (got != (long long)l.local_bytes) {
            fprintf(stderr, "iobench: rank %d: %s %s: read %lld bytes of %zu\n", rank,
                    pattern_names[p], mode_names[m], got, l.local_bytes);
            bad = 1;
        } else if (p == SHARED) {
            bad = check_shared(m, in, o, seed);
        } else {
            bad = check(p, &l, in, seed);
        }
        CHECK(MPI_Allreduce(&bad, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        if (failed && rank == 0)
            fprintf(stderr, "iobench: %s %s: repetition %ld read back wrong data from %s\n",
                    pattern_names[p], mode_names[m], r + 1, path);
    }
    if (!failed) {
        report(p, m, "write", l.total_bytes, wtimes, o->reps);
        report(p, m, "read", l.total_bytes, rtimes, o->reps);
    }
    remove_file(path);
    current_path[0] = '\0';
    free(out);
    free(in);
    free(wtimes);
    free(rtimes);
    free_layout(&l);
    return failed;
}

/* ---- the command line ---- */

static void usage(FILE *f) {
    if (rank != 0) return;
    fprintf(f,
            "usage: iobench [OPTION]...\n"
            "MPI-IO access patterns, each written then read back and checked; one CSV line\n"
            "per pattern, mode and op: iobench,PATTERN,MODE,OP,RANKS,BYTES,REPS,BEST_S,"
            "MEDIAN_S,MB_S\n"
            "SIZE is bytes, optionally with K, M or G (binary: 4M = 4194304).\n"
            "  -d, --dir DIR            where the files go (default .); they are deleted after\n"
            "  -p, --patterns LIST      comma-separated: contiguous, interleaved, subarray,\n"
            "                           shared, or all (default all)\n"
            "  -m, --modes LIST         independent, collective, nonblocking (the collective\n"
            "                           calls' i*_all forms, each waited for), or all\n"
            "                           (default independent,collective)\n"
            "  -n, --reps N             repetitions of each write and read (default 5)\n"
            "  -b, --block SIZE         contiguous: bytes per rank (default 16M)\n"
            "  -r, --record SIZE        interleaved: bytes per record (default 64K)\n"
            "  -R, --records N          interleaved: records per rank (default 64)\n"
            "  -g, --grid N             subarray: the global array is N^3 doubles (default 128:\n"
            "                           16 MiB); N at least the largest dimension of the grid\n"
            "  -s, --small SIZE         shared: bytes per record, at least 8 (default 256)\n"
            "  -S, --small-records N    shared: records per rank (default 256)\n"
            "  -H, --hint KEY=VALUE     an MPI_Info hint for open and set_view (repeatable),\n"
            "                           e.g. cb_nodes=1 or romio_cb_write=enable\n"
            "      --inject-error       flip one byte the last rank read before checking it:\n"
            "                           the run must fail (tests the check)\n"
            "  -h, --help               this text\n"
            "Write times include MPI_File_sync; reads are page-cache reads (nothing is\n"
            "dropped from the caches). Each rank's share is at most 1 GiB per pattern.\n");
}

/* Bytes, optionally with K, M or G; -1 unless floor <= value <= ceiling. */
static int parse_size(const char *s, size_t floor, size_t ceiling, size_t *out) {
    char *end;
    if (*s < '0' || *s > '9') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end != '\0' || v > (ceiling >> shift)) return -1;
    v <<= shift;
    if (v < floor || v > ceiling) return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_count(const char *s, long floor, long ceiling, long *out) {
    char *end;
    if (*s < '0' || *s > '9') return -1;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < floor || v > ceiling) return -1;
    *out = v;
    return 0;
}

/* Sets flags[k] for each name of LIST (comma-separated, or "all"); -1 on an unknown name. */
static int parse_list(const char *list, const char *const *names, int n, int *flags) {
    memset(flags, 0, (size_t)n * sizeof *flags);
    if (!strcmp(list, "all")) {
        for (int k = 0; k < n; k++) flags[k] = 1;
        return 0;
    }
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ",");
        int k = 0;
        while (k < n && (strlen(names[k]) != len || strncmp(p, names[k], len))) k++;
        if (k == n) return -1;
        flags[k] = 1;
        if (p[len] == '\0') return 0;
        p += len + 1;
    }
}

/* 0, 1 after --help, or -1 after saying (on rank 0) what was wrong. */
static int parse_options(int argc, char **argv, struct options *o) {
    static const struct option longs[] = {
        {"dir", required_argument, NULL, 'd'},     {"patterns", required_argument, NULL, 'p'},
        {"modes", required_argument, NULL, 'm'},   {"reps", required_argument, NULL, 'n'},
        {"block", required_argument, NULL, 'b'},   {"record", required_argument, NULL, 'r'},
        {"records", required_argument, NULL, 'R'}, {"grid", required_argument, NULL, 'g'},
        {"small", required_argument, NULL, 's'},   {"small-records", required_argument, NULL, 'S'},
        {"hint", required_argument, NULL, 'H'},    {"inject-error", no_argument, NULL, 'E'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    const char *why = NULL, *value = NULL; /* what was wrong, and the value given */
    int c, hints = 0;
    opterr = 0; /* every rank parses; only rank 0 speaks */
    while (!why && (c = getopt_long(argc, argv, ":d:p:m:n:b:r:R:g:s:S:H:h", longs, NULL)) != -1) {
        value = optarg;
        switch (c) {
        case 'd':
            if (!*optarg) why = "--dir: an empty directory name";
            o->dir = optarg;
            break;
        case 'p':
            if (parse_list(optarg, pattern_names, N_PATTERNS, o->patterns))
                why = "--patterns: names are contiguous, interleaved, subarray, shared, or all";
            break;
        case 'm':
            if (parse_list(optarg, mode_names, N_MODES, o->modes))
                why = "--modes: names are independent, collective, nonblocking, or all";
            break;
        case 'n':
            if (parse_count(optarg, 1, 100000, &o->reps)) why = "--reps: a number from 1 to 100000";
            break;
        case 'b':
            if (parse_size(optarg, 1, MAX_LOCAL_BYTES, &o->block))
                why = "--block: a size from 1 byte to 1G";
            break;
        case 'r':
            if (parse_size(optarg, 1, MAX_LOCAL_BYTES, &o->record))
                why = "--record: a size from 1 byte to 1G";
            break;
        case 'R':
            if (parse_count(optarg, 1, 1L << 30, &o->records))
                why = "--records: a number from 1 to 1073741824";
            break;
        case 'g':
            if (parse_count(optarg, 1, 4096, &o->grid)) why = "--grid: a number from 1 to 4096";
            break;
        case 's':
            if (parse_size(optarg, 8, 1 << 20, &o->small))
                why = "--small: a size from 8 bytes (the record's identity) to 1M";
            break;
        case 'S':
            if (parse_count(optarg, 1, 1L << 24, &o->small_records))
                why = "--small-records: a number from 1 to 16777216";
            break;
        case 'H': {
            const char *eq = strchr(optarg, '=');
            char key[MPI_MAX_INFO_KEY + 1];
            size_t klen = eq ? (size_t)(eq - optarg) : 0;
            if (!eq || klen == 0 || klen > MPI_MAX_INFO_KEY || !eq[1] ||
                strlen(eq + 1) > MPI_MAX_INFO_VAL)
                why = "--hint: KEY=VALUE, both non-empty";
            else if (++hints > MAX_HINTS)
                why = "--hint: at most 32 hints";
            else {
                if (o->info == MPI_INFO_NULL) CHECK(MPI_Info_create(&o->info));
                memcpy(key, optarg, klen);
                key[klen] = '\0';
                CHECK(MPI_Info_set(o->info, key, eq + 1));
            }
            break;
        }
        case 'E':
            o->inject_error = 1;
            break;
        case 'h':
            usage(stdout);
            return 1;
        case ':':
            if (rank == 0) fprintf(stderr, "iobench: %s needs a value\n", argv[optind - 1]);
            return -1;
        default:
            if (rank == 0) fprintf(stderr, "iobench: unknown option %s\n", argv[optind - 1]);
            usage(stderr);
            return -1;
        }
    }
    if (!why) value = NULL;
    if (!why && optind < argc) {
        if (rank == 0) fprintf(stderr, "iobench: unexpected argument %s\n", argv[optind]);
        return -1;
    }
    /* what a single option cannot tell */
    if (!why && (size_t)o->records * o->record > MAX_LOCAL_BYTES)
        why = "--records * --record: a rank's share is at most 1G";
    if (!why && (size_t)o->small_records * o->small > MAX_LOCAL_BYTES)
        why = "--small-records * --small: a rank's share is at most 1G";
    if (!why && o->small_records * nranks > INT32_MAX)
        why = "--small-records * ranks: at most 2^31 - 1 records in all";
    if (!why && o->record * (size_t)nranks > (size_t)INT32_MAX)
        why = "--record * ranks: the interleaved stride must stay below 2G";
    if (!why && o->patterns[SUBARRAY]) {
        int dims[3] = {0, 0, 0};
        CHECK(MPI_Dims_create(nranks, 3, dims));
        size_t local = 8;
        for (int d = 0; d < 3; d++) local *= (size_t)((o->grid + dims[d] - 1) / dims[d]);
        if (o->grid < dims[0]) {
            if (rank == 0)
                fprintf(stderr, "iobench: --grid %ld: below the grid's %d x %d x %d ranks\n",
                        o->grid, dims[0], dims[1], dims[2]);
            return -1;
        }
        if (local > MAX_LOCAL_BYTES) why = "--grid: a rank's block is at most 1G";
    }
    if (!why && rank == 0) { /* before any MPI call fails on it, less clearly */
        struct stat st;
        if (stat(o->dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(o->dir, W_OK | X_OK) != 0)
            why = "--dir: a directory this process can write in", value = o->dir;
    }
    int verdict = why != NULL;
    CHECK(MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (verdict && !why) return -1; /* rank 0 said why */
    if (why) {
        if (rank == 0 && value)
            fprintf(stderr, "iobench: %s, not \"%s\" (try --help)\n", why, value);
        else if (rank == 0)
            fprintf(stderr, "iobench: %s (try --help)\n", why);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct options o = {.dir = ".",
                        .patterns = {1, 1, 1, 1},
                        .modes = {1, 1, 0},
                        .reps = 5,
                        .block = 16 << 20,
                        .record = 64 << 10,
                        .records = 64,
                        .grid = 128,
                        .small = 256,
                        .small_records = 256,
                        .info = MPI_INFO_NULL};
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0) {
        MPI_Finalize();
        return parsed > 0 ? 0 : 2;
    }

    /* a name of this run: rank 0's process id */
    int tag = (int)getpid();
    CHECK(MPI_Bcast(&tag, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        printf("benchmark,pattern,mode,op,ranks,bytes,reps,best_s,median_s,mb_s\n");
        fflush(stdout);
    }
    int failed = 0;
    for (int p = 0; p < N_PATTERNS && !failed; p++)
        for (int m = 0; m < N_MODES && !failed; m++)
            if (o.patterns[p] && o.modes[m]) failed = run((enum pattern)p, (enum mode)m, &o, tag);
    if (o.info != MPI_INFO_NULL) CHECK(MPI_Info_free(&o.info));
    MPI_Finalize();
    return failed;
}
