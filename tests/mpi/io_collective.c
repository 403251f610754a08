/* MPI-IO's collective buffering, data sieving and the hints that steer them
 * (docs/io.md): collective writes and reads through interleaved, subarray and irregular
 * (indexed, resized with a negative lower bound) views, with collective buffering
 * forced on, forced off and automatic (which on one node buffers the writes of the
 * interleaved views' 100-byte records, not their reads), one and two aggregators, small buffers
 * (many rounds), the shared-memory window, ranks with nothing to move, split collectives, the
 * non-blocking forms; each file compared byte by byte with what the independent path writes, holes
 * included (the file is filled first). Data sieving of reads and writes on a view of
 * small pieces, every rank at once (the write's lock), checked against the file's
 * bytes. get_info's hints with their values and defaults, bad values ignored. Runs on
 * any number of ranks. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_check.h"

enum { FILL = 0xEE };

static unsigned char pattern(int r, long i) {
    return (unsigned char)(1 + (r * 131 + i * 7) % 251);
}

/* The file's bytes (rank 0), size in *n. */
static unsigned char *file_bytes(const char *name, long *n) {
    int fd = open(path(name), O_RDONLY);
    CHECK(fd >= 0);
    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    unsigned char *b = malloc((size_t)st.st_size + 1);
    CHECK(b);
    CHECK(read(fd, b, (size_t)st.st_size) == st.st_size);
    close(fd);
    *n = st.st_size;
    return b;
}

/* A file of bytes FILL (made by rank 0 before the others look). */
static void filled(const char *name, long bytes) {
    if (rank == 0) {
        int fd = open(path(name), O_WRONLY | O_CREAT | O_TRUNC, 0666);
        CHECK(fd >= 0);
        unsigned char *b = malloc((size_t)bytes + 1);
        CHECK(b);
        memset(b, FILL, (size_t)bytes);
        CHECK(write(fd, b, (size_t)bytes) == bytes);
        close(fd);
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- the views ---- */

enum { INTERLEAVED, SUBARRAY, IRREGULAR, N_VIEWS };
static const char *const view_names[N_VIEWS] = {"interleaved", "subarray", "irregular"};

typedef struct view {
    MPI_Datatype filetype;
    MPI_Offset disp;
    int count; /* bytes this rank moves */
    long file_bytes;
} view_t;

static view_t make_view(int which, int zero_rank) {
    view_t v = {.disp = 16};
    MPI_Datatype t;
    if (which == INTERLEAVED) { /* records of 100 bytes, rank r owns r, r+P, ... */
        enum { R = 100, M = 60 };
        MPI_Datatype rec;
        MPI_Type_contiguous(R, MPI_BYTE, &rec);
        MPI_Type_create_resized(rec, 0, (MPI_Aint)R * size, &t);
        MPI_Type_free(&rec);
        MPI_Type_create_resized(t, 0, (MPI_Aint)R * size, &v.filetype);
        MPI_Type_free(&t);
        v.disp += (MPI_Offset)rank * R;
        v.count = R * M;
        v.file_bytes = 16 + (long)R * M * size;
    } else if (which == SUBARRAY) { /* a 2-D array of 4-byte cells cut into blocks */
        enum { N = 96 };
        int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
        MPI_Dims_create(size, 2, dims);
        MPI_Comm cart;
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
        MPI_Cart_coords(cart, rank, 2, coords);
        MPI_Comm_free(&cart);
        int gs[2] = {N, N * 4}, ls[2], st[2];
        for (int d = 0; d < 2; d++) {
            int n = N / dims[d], extra = N % dims[d];
            ls[d] = n + (coords[d] < extra);
            st[d] = coords[d] * n + (coords[d] < extra ? coords[d] : extra);
        }
        ls[1] *= 4, st[1] *= 4;
        MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_BYTE, &v.filetype);
        v.count = ls[0] * ls[1];
        v.file_bytes = 16 + (long)N * N * 4;
    } else { /* pieces of 1 to 5 bytes, rank r's in slot r of 8-byte cells, the tile
              * resized to a negative lower bound */
        enum { PIECES = 40, CELL = 8 };
        int lens[PIECES], disps[PIECES], bytes = 0;
        for (int i = 0; i < PIECES; i++) {
            lens[i] = 1 + (i + rank) % 5;
            disps[i] = (i * size + rank) * CELL + 8;
            bytes += lens[i];
        }
        MPI_Type_indexed(PIECES, lens, disps, MPI_BYTE, &t);
        MPI_Type_create_resized(t, -8, (MPI_Aint)PIECES * size * CELL, &v.filetype);
        MPI_Type_free(&t);
        v.count = bytes * 3; /* three tiles */
        v.file_bytes = 16 + 8 + 3L * PIECES * size * CELL;
    }
    MPI_Type_commit(&v.filetype);
    if (zero_rank && rank == size - 1 && size > 1) v.count = 0;
    return v;
}

static MPI_Info hints(const char *const *kv) {
    MPI_Info info;
    MPI_Info_create(&info);
    for (; kv && kv[0]; kv += 2) MPI_Info_set(info, kv[0], kv[1]);
    return info;
}

enum { AT_ALL, ALL, SPLIT, IAT_ALL, IALL, MIXED };

/* Writes the view's data into name (filled first) through the call, under the hints;
 * then reads it back the same way and checks it. */
static void write_then_read(const char *name, int which, int zero_rank, const char *const *kv,
                            int call) {
    view_t v = make_view(which, zero_rank);
    filled(name, v.file_bytes);
    unsigned char *data = malloc((size_t)v.count + 1), *back = malloc((size_t)v.count + 1);
    CHECK(data && back);
    for (int i = 0; i < v.count; i++) data[i] = pattern(rank, i);
    MPI_Info info = hints(kv);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path(name), MPI_MODE_RDWR, info, &fh) == MPI_SUCCESS);
    CHECK(MPI_File_set_view(fh, v.disp, MPI_BYTE, v.filetype, "native", info) == MPI_SUCCESS);
    MPI_Status st;
    int got = -1;
    if (!kv) { /* the independent path: the reference */
        CHECK(MPI_File_write_at(fh, 0, data, v.count, MPI_BYTE, &st) == MPI_SUCCESS);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(MPI_File_read_at(fh, 0, back, v.count, MPI_BYTE, &st) == MPI_SUCCESS);
    } else if (call == AT_ALL) {
        CHECK(MPI_File_write_at_all(fh, 0, data, v.count, MPI_BYTE, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &got) == MPI_SUCCESS && got == v.count);
        CHECK(MPI_File_read_at_all(fh, 0, back, v.count, MPI_BYTE, &st) == MPI_SUCCESS);
    } else if (call == ALL) {
        CHECK(MPI_File_write_all(fh, data, v.count, MPI_BYTE, &st) == MPI_SUCCESS);
        CHECK(MPI_File_seek(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
        CHECK(MPI_File_read_all(fh, back, v.count, MPI_BYTE, &st) == MPI_SUCCESS);
    } else if (call == IAT_ALL) { /* non-blocking, two halves under way at once */
        MPI_Request req, two[2];
        MPI_Status sts[2];
        int half = v.count / 2;
        CHECK(MPI_File_iwrite_at_all(fh, 0, data, half, MPI_BYTE, &two[0]) == MPI_SUCCESS);
        CHECK(MPI_File_iwrite_at_all(fh, half, data + half, v.count - half, MPI_BYTE, &two[1]) ==
              MPI_SUCCESS);
        CHECK(MPI_Waitall(2, two, sts) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&sts[0], MPI_BYTE, &got) == MPI_SUCCESS && got == half);
        CHECK(MPI_Get_count(&sts[1], MPI_BYTE, &got) == MPI_SUCCESS && got == v.count - half);
        CHECK(MPI_File_iread_at_all(fh, 0, back, v.count, MPI_BYTE, &req) == MPI_SUCCESS);
        CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    } else if (call == IALL) { /* non-blocking, tested until done: the pointer moved at once */
        MPI_Request req;
        MPI_Offset at = -1;
        int done = 0;
        CHECK(MPI_File_iwrite_all(fh, data, v.count, MPI_BYTE, &req) == MPI_SUCCESS);
        CHECK(MPI_File_get_position(fh, &at) == MPI_SUCCESS && at == v.count);
        while (!done) CHECK(MPI_Test(&req, &done, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &got) == MPI_SUCCESS && got == v.count);
        CHECK(MPI_File_seek(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
        CHECK(MPI_File_iread_all(fh, back, v.count, MPI_BYTE, &req) == MPI_SUCCESS);
        for (done = 0; !done;) CHECK(MPI_Test(&req, &done, &st) == MPI_SUCCESS);
    } else if (call == MIXED) {
        /* blocking first (on one node it makes the shared window), then non-blocking
         * through it while a blocking one waits for it, then two non-blocking reads at
         * once (the second by messages: the first holds the window) */
        MPI_Request two[2];
        MPI_Status sts[2];
        int half = v.count / 2;
        CHECK(MPI_File_write_at_all(fh, 0, data, half, MPI_BYTE, &st) == MPI_SUCCESS);
        CHECK(MPI_File_iwrite_at_all(fh, half, data + half, v.count - half, MPI_BYTE, &two[0]) ==
              MPI_SUCCESS);
        CHECK(MPI_File_write_at_all(fh, 0, data, half, MPI_BYTE, &st) == MPI_SUCCESS);
        CHECK(MPI_Wait(&two[0], &sts[0]) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&sts[0], MPI_BYTE, &got) == MPI_SUCCESS && got == v.count - half);
        CHECK(MPI_File_iread_at_all(fh, 0, back, half, MPI_BYTE, &two[0]) == MPI_SUCCESS);
        CHECK(MPI_File_iread_at_all(fh, half, back + half, v.count - half, MPI_BYTE, &two[1]) ==
              MPI_SUCCESS);
        CHECK(MPI_Waitall(2, two, sts) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&sts[0], MPI_BYTE, &got) == MPI_SUCCESS && got == half);
        CHECK(MPI_Get_count(&sts[1], MPI_BYTE, &got) == MPI_SUCCESS && got == v.count - half);
        CHECK(!memcmp(back, data, (size_t)v.count));
        CHECK(MPI_File_read_at_all(fh, 0, back, v.count, MPI_BYTE, &st) == MPI_SUCCESS);
    } else {
        CHECK(MPI_File_write_at_all_begin(fh, 0, data, v.count, MPI_BYTE) == MPI_SUCCESS);
        CHECK(MPI_File_write_at_all_end(fh, data, &st) == MPI_SUCCESS);
        CHECK(MPI_File_read_at_all_begin(fh, 0, back, v.count, MPI_BYTE) == MPI_SUCCESS);
        CHECK(MPI_File_read_at_all_end(fh, back, &st) == MPI_SUCCESS);
    }
    CHECK(MPI_Get_count(&st, MPI_BYTE, &got) == MPI_SUCCESS && got == v.count);
    CHECK(!memcmp(back, data, (size_t)v.count));
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Info_free(&info);
    MPI_Type_free(&v.filetype);
    free(data);
    free(back);
}

/* The file written through each set of hints is byte for byte the independent one. */
static void collective_buffering(void) {
    static const char *const on[] = {"romio_cb_write", "enable", "romio_cb_read", "enable", NULL};
    static const char *const off[] = {"romio_cb_write", "disable", "romio_cb_read", "disable",
                                      NULL};
    static const char *const automatic[] = {"romio_cb_write", "automatic", NULL};
    static const char *const one[] = {
        "romio_cb_write", "enable", "romio_cb_read", "enable", "cb_nodes", "1", NULL};
    static const char *const two[] = {
        "romio_cb_write", "enable", "romio_cb_read", "enable", "cb_nodes", "2", NULL};
    static const char *const rounds[] = {"romio_cb_write", "enable",   "romio_cb_read",
                                         "enable",         "cb_nodes", "2",
                                         "cb_buffer_size", "4096",     NULL};
    static const char *const tiny[] = {
        "romio_cb_write", "enable", "romio_cb_read", "enable", "cb_buffer_size", "64", NULL};
    static const char *const shm[] = {"romio_cb_write", "enable",    "romio_cb_read",
                                      "enable",         "tw_cb_shm", "enable",
                                      "cb_buffer_size", "4096",      NULL};
    static const char *const shm_two[] = {"romio_cb_write", "enable",    "romio_cb_read",
                                          "enable",         "tw_cb_shm", "enable",
                                          "cb_nodes",       "2",         NULL};
    static const char *const no_ds[] = {"romio_cb_write", "enable",         "romio_cb_read",
                                        "enable",         "romio_ds_write", "disable",
                                        "romio_ds_read",  "disable",        NULL};
    /* on one node, the exchange of messages (the shared window off): each aggregator's
     * own pieces move between its stream and its window, the others' through messages */
    static const char *const messages[] = {"romio_cb_write", "enable",    "romio_cb_read",
                                           "enable",         "tw_cb_shm", "disable",
                                           "cb_nodes",       "2",         NULL};
    /* the non-blocking forms (the last seven) through collective buffering, through
     * each rank's own access, in many rounds, and through the shared window */
    const char *const *sets[] = {on,   off,       automatic, one,   two,      rounds,
                                 tiny, shm,       shm_two,   no_ds, messages, on,
                                 off,  automatic, rounds,    tiny,  shm,      shm_two};
    const char *set_names[] = {"on",
                               "off",
                               "automatic",
                               "cb_nodes=1",
                               "cb_nodes=2",
                               "rounds",
                               "tiny",
                               "shm",
                               "shm_two",
                               "no_ds",
                               "messages",
                               "on, iwrite_at_all",
                               "off, iwrite_all",
                               "automatic, iwrite_all",
                               "rounds, iwrite_all",
                               "tiny, iwrite_at_all",
                               "shm, blocking and non-blocking",
                               "shm_two, blocking and non-blocking"};
    static const int calls[] = {AT_ALL, ALL,    AT_ALL, AT_ALL,  AT_ALL, SPLIT,
                                AT_ALL, AT_ALL, AT_ALL, AT_ALL,  ALL,    IAT_ALL,
                                IALL,   IALL,   IALL,   IAT_ALL, MIXED,  MIXED};
    enum { NSETS = sizeof sets / sizeof sets[0] };
    _Static_assert(sizeof calls / sizeof calls[0] == NSETS &&
                       sizeof set_names / sizeof set_names[0] == NSETS,
                   "a set, its name and its call each");
    for (int which = 0; which < N_VIEWS; which++)
        for (int zero = 0; zero < 2; zero++) {
            write_then_read("ref", which, zero, NULL, AT_ALL);
            long nref = 0;
            unsigned char *ref = rank == 0 ? file_bytes("ref", &nref) : NULL;
            for (int s = 0; s < NSETS; s++) {
                write_then_read("cb", which, zero, sets[s], calls[s]);
                if (rank == 0) {
                    long n = 0;
                    unsigned char *b = file_bytes("cb", &n);
                    long first = -1;
                    for (long i = 0; i < n && i < nref && first < 0; i++)
                        if (b[i] != ref[i]) first = i;
                    if (n != nref || first >= 0)
                        fprintf(stderr,
                                "%s view, %s, zero rank %d: %ld bytes (%ld independent), "
                                "first difference at %ld\n",
                                view_names[which], set_names[s], zero, n, nref, first);
                    CHECK(n == nref && first < 0);
                    free(b);
                }
                MPI_Barrier(MPI_COMM_WORLD);
            }
            free(ref);
            if (rank == 0) CHECK(unlink(path("ref")) == 0 && unlink(path("cb")) == 0);
        }
}

/* A non-blocking collective through collective buffering where one rank's call fails
 * (a negative count): that rank gets its error at the call, every other its request's
 * error at the wait, and none waits for ever for the rank that failed. */
static void failed_rank_nonblocking(void) {
    if (size < 2) return;
    static const char *const on[] = {"romio_cb_write", "enable", "romio_cb_read", "enable", NULL};
    MPI_Info info = hints(on);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("failed"), MPI_MODE_RDWR | MPI_MODE_CREATE, info,
                        &fh) == MPI_SUCCESS);
    char data[64];
    memset(data, rank + 1, sizeof data);
    MPI_Request req = MPI_REQUEST_NULL;
    int bad = rank == 1,
        rc = MPI_File_iwrite_at_all(fh, rank * 64, data, bad ? -1 : 64, MPI_CHAR, &req), class = -1;
    if (bad) {
        MPI_Error_class(rc, &class);
        CHECK(class == MPI_ERR_COUNT && req == MPI_REQUEST_NULL);
    } else {
        CHECK(rc == MPI_SUCCESS);
        MPI_Error_class(MPI_Wait(&req, MPI_STATUS_IGNORE), &class);
        CHECK(class == MPI_ERR_COUNT);
    }
    /* the file goes on: a collective read of what rank 0 wrote, if it was written */
    CHECK(MPI_File_iread_at_all(fh, 0, data, 16, MPI_CHAR, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(unlink(path("failed")) == 0);
}

/* A collective read past the end of the file stops there, as each rank's own does. */
static void short_collective_read(void) {
    static const char *const on[] = {"romio_cb_read", "enable", NULL};
    view_t v = make_view(INTERLEAVED, 0);
    filled("short", v.file_bytes / 2);
    MPI_Info info = hints(on);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("short"), MPI_MODE_RDONLY, info, &fh) == MPI_SUCCESS);
    CHECK(MPI_File_set_view(fh, v.disp, MPI_BYTE, v.filetype, "native", MPI_INFO_NULL) ==
          MPI_SUCCESS);
    unsigned char *back = malloc((size_t)v.count);
    MPI_Status st;
    int all = -1, own = -1;
    CHECK(MPI_File_read_at_all(fh, 0, back, v.count, MPI_BYTE, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_BYTE, &all) == MPI_SUCCESS);
    for (int i = 0; i < all; i++) CHECK(back[i] == FILL);
    CHECK(MPI_File_read_at(fh, 0, back, v.count, MPI_BYTE, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_BYTE, &own) == MPI_SUCCESS);
    CHECK(all == own && own < v.count);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Info_free(&info);
    MPI_Type_free(&v.filetype);
    free(back);
    if (rank == 0) CHECK(unlink(path("short")) == 0);
}

/* Data sieving: 6-byte pieces in 8-byte slots of every rank, written by all at once
 * (the sieved write's read-modify-write holds a lock of its span) and read back. */
static void data_sieving(void) {
    enum { PIECE = 6, SLOT = 8, PIECES = 3000 };
    static const char *const on[] = {
        "romio_ds_write", "enable", "romio_ds_read", "enable", "ind_wr_buffer_size", "4096", NULL};
    static const char *const automatic[] = {NULL};
    const char *const *sets[] = {on, automatic};
    for (int s = 0; s < 2; s++) {
        long bytes = (long)PIECES * SLOT * (size + 1);
        filled("ds", bytes);
        MPI_Datatype piece, tile;
        MPI_Type_contiguous(PIECE, MPI_BYTE, &piece);
        MPI_Type_create_resized(piece, 0, (MPI_Aint)SLOT * (size + 1), &tile); /* a free slot */
        MPI_Type_commit(&tile);
        int count = PIECES * PIECE;
        unsigned char *data = malloc((size_t)count), *back = malloc((size_t)count + 64);
        for (int i = 0; i < count; i++) data[i] = pattern(rank, i);
        MPI_Info info = hints(sets[s]);
        MPI_File fh;
        CHECK(MPI_File_open(MPI_COMM_WORLD, path("ds"), MPI_MODE_RDWR, info, &fh) == MPI_SUCCESS);
        CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * SLOT, MPI_BYTE, tile, "native",
                                MPI_INFO_NULL) == MPI_SUCCESS);
        MPI_Status st;
        int got = -1;
        CHECK(MPI_File_write_at(fh, 0, data, count, MPI_BYTE, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &got) == MPI_SUCCESS && got == count);
        MPI_Barrier(MPI_COMM_WORLD);
        /* a read asking past the end gets what there is, as without sieving */
        CHECK(MPI_File_read_at(fh, 0, back, count + 64, MPI_BYTE, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &got) == MPI_SUCCESS && got == count);
        CHECK(!memcmp(back, data, (size_t)count));
        CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
        if (rank == 0) { /* every piece where it belongs, the holes as they were */
            long n = 0;
            unsigned char *b = file_bytes("ds", &n);
            CHECK(n == bytes);
            for (long at = 0; at < n; at++) {
                long slot = at / SLOT, in = at % SLOT, cell = slot % (size + 1);
                long k = slot / (size + 1);
                unsigned char want = FILL;
                if (cell < size && in < PIECE) want = pattern((int)cell, k * PIECE + in);
                if (b[at] != want)
                    fprintf(stderr, "ds set %d: byte %ld is %d, not %d\n", s, at, b[at], want);
                CHECK(b[at] == want);
            }
            free(b);
            CHECK(unlink(path("ds")) == 0);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Info_free(&info);
        MPI_Type_free(&tile);
        MPI_Type_free(&piece);
        free(data);
        free(back);
    }
}

static void expect(MPI_Info info, const char *key, const char *value) {
    char got[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    CHECK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, got, &flag) == MPI_SUCCESS);
    if (!flag || strcmp(got, value))
        fprintf(stderr, "hint %s: %s, not %s\n", key, flag ? got : "(none)", value);
    CHECK(flag && !strcmp(got, value));
}

static void reported_hints(void) {
    /* the nodes: one aggregator each by default */
    MPI_Comm node;
    int local, nodes = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    int leader = local == 0;
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char text[32];
    MPI_File fh;
    MPI_Info used;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("h"), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    CHECK(MPI_File_get_info(fh, &used) == MPI_SUCCESS);
    snprintf(text, sizeof text, "%d", nodes);
    expect(used, "cb_nodes", text);
    expect(used, "cb_buffer_size", "16777216");
    expect(used, "romio_cb_read", "automatic");
    expect(used, "romio_cb_write", "automatic");
    expect(used, "romio_ds_read", "automatic");
    expect(used, "romio_ds_write", "automatic");
    expect(used, "ind_rd_buffer_size", "4194304");
    expect(used, "ind_wr_buffer_size", "524288");
    expect(used, "collective_buffering", "true");
    expect(used, "cb_config_list", "*:1");
    expect(used, "romio_no_indep_rw", "false");
    expect(used, "tw_cb_shm", "automatic");
    MPI_Info_free(&used);
    /* given values, bad ones (ignored: the default stays), rank 0's shared ones */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_Info_set(info, "cb_nodes", rank == 0 ? "1" : "2");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_ds_read", "sometimes");
    MPI_Info_set(info, "ind_rd_buffer_size", "-5");
    MPI_Info_set(info, "striping_factor", "4");
    MPI_Info_set(info, "striping_unit", "lots");
    MPI_Info_set(info, "access_style", "read_mostly");
    MPI_Info_set(info, "my_own_key", "as given");
    CHECK(MPI_File_set_info(fh, info) == MPI_SUCCESS);
    MPI_Info_free(&info);
    CHECK(MPI_File_get_info(fh, &used) == MPI_SUCCESS);
    expect(used, "cb_buffer_size", "4096");
    expect(used, "cb_nodes", "1");
    expect(used, "romio_cb_write", "enable");
    expect(used, "romio_cb_read", "automatic");
    expect(used, "romio_ds_read", "automatic");
    expect(used, "ind_rd_buffer_size", "4194304");
    expect(used, "striping_factor", "4");
    expect(used, "access_style", "read_mostly");
    expect(used, "my_own_key", "as given");
    int flag = 1;
    char got[64];
    CHECK(MPI_Info_get(used, "striping_unit", 63, got, &flag) == MPI_SUCCESS && !flag);
    MPI_Info_free(&used);
    /* collective_buffering=false turns both off; bad sizes and counts are ignored */
    MPI_Info_create(&info);
    MPI_Info_set(info, "collective_buffering", "false");
    MPI_Info_set(info, "cb_buffer_size", "0");
    MPI_Info_set(info, "cb_nodes", "many");
    MPI_Info_set(info, "romio_cb_write", "whenever");
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info) == MPI_SUCCESS);
    MPI_Info_free(&info);
    CHECK(MPI_File_get_info(fh, &used) == MPI_SUCCESS);
    expect(used, "romio_cb_read", "disable");
    expect(used, "romio_cb_write", "disable");
    expect(used, "collective_buffering", "false");
    expect(used, "cb_buffer_size", "16777216");
    expect(used, "cb_nodes", text);
    MPI_Info_free(&used);
    /* and the file still works through them */
    char c = 'x';
    MPI_Status st;
    CHECK(MPI_File_write_at_all(fh, rank, &c, 1, MPI_CHAR, &st) == MPI_SUCCESS);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(unlink(path("h")) == 0);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make("iocb");
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);

    reported_hints();
    collective_buffering();
    short_collective_read();
    failed_rank_nonblocking();
    data_sieving();

    io_dir_remove(); /* every test removed its files */
    if (rank == 0) printf("io_collective: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
