/* One file written and read by a job on two hosts that both see its directory
 * (tests/net: two network namespaces, one file system): the shared file pointer,
 * which is a fetch-and-add on a window at rank 0 and so crosses the udp link, and the
 * consistency rules of MPI-4.1 section 14.6.10's examples.
 *
 * - write_shared from every rank: every record in the file exactly once, the shared
 *   pointer at the sum; read_shared takes every record once between the ranks;
 * - write_ordered then read_ordered: the records in rank order, each rank reading its
 *   own back;
 * - atomic mode, no synchronisation: a reader racing a writer sees the region all old
 *   or all new, never a mix, and never older than what it saw before;
 * - atomic mode, a barrier between: the reader sees the new data (the second);
 * - non-atomic mode, sync-barrier-sync between: the reader sees the new data (the
 *   third).
 *
 * - collective buffering as a job across nodes has it by default: the hints report one
 *   aggregator per node, and interleaved records written and read through a view with
 *   write_at_all/read_at_all (the ranks' ranges interleave: automatic buffers them
 *   when the job spans nodes) land byte for byte where the view says.
 *
 * Mode "lose_peer": the last rank (on the other host than rank 0) kills itself in the
 * middle of the shared-pointer writes; the job must end in an error naming it, not
 * hang (the test runs it under expect_output.sh --fail). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_check.h"

static void sync_barrier_sync(MPI_File fh) {
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
}

/* A record: who wrote it, which of its records, and a pattern of both. */
enum { RECS = 24, WORDS = 16 };
typedef struct record {
    int who, which, body[WORDS];
} record_t;

static void make_record(record_t *r, int who, int which) {
    r->who = who;
    r->which = which;
    for (int w = 0; w < WORDS; w++) r->body[w] = who * 1000003 + which * 131 + w;
}

static int record_ok(const record_t *r) {
    if (r->who < 0 || r->who >= size || r->which < 0 || r->which >= RECS) return 0;
    for (int w = 0; w < WORDS; w++)
        if (r->body[w] != r->who * 1000003 + r->which * 131 + w) return 0;
    return 1;
}

static void shared_pointer(int lose_peer) {
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("shared"), MPI_MODE_RDWR | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    for (int i = 0; i < RECS; i++) {
        if (lose_peer && rank == size - 1 && i == RECS / 2) raise(SIGKILL);
        record_t r;
        make_record(&r, rank, i);
        MPI_Status st;
        int n = -1;
        CHECK(MPI_File_write_shared(fh, &r, (int)sizeof r, MPI_BYTE, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &n) == MPI_SUCCESS && n == (int)sizeof r);
    }
    sync_barrier_sync(fh);
    MPI_Offset at = -1, bytes = -1;
    CHECK(MPI_File_get_position_shared(fh, &at) == MPI_SUCCESS &&
          at == (MPI_Offset)size * RECS * (MPI_Offset)sizeof(record_t));
    CHECK(MPI_File_get_size(fh, &bytes) == MPI_SUCCESS && bytes == at);
    /* every rank checks the whole file: each record once */
    int total = size * RECS;
    record_t *all = calloc((size_t)total, sizeof *all);
    char *seen = calloc((size_t)total, 1);
    CHECK(all && seen);
    CHECK(MPI_File_read_at(fh, 0, all, total * (int)sizeof(record_t), MPI_BYTE,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int k = 0; k < total; k++) {
        CHECK(record_ok(&all[k]));
        CHECK(!seen[all[k].who * RECS + all[k].which]++);
    }
    /* read_shared from the start: between the ranks, every record once */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
    memset(seen, 0, (size_t)total);
    int mine = 0;
    for (;;) {
        record_t r;
        MPI_Status st;
        int n = -1;
        CHECK(MPI_File_read_shared(fh, &r, (int)sizeof r, MPI_BYTE, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &n) == MPI_SUCCESS);
        if (n == 0) break; /* the end of the file */
        CHECK(n == (int)sizeof r && record_ok(&r));
        CHECK(!seen[r.who * RECS + r.which]++);
        mine++;
    }
    int sum = 0;
    char *any = calloc((size_t)total, 1);
    CHECK(any);
    MPI_Allreduce(seen, any, total, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < total; k++) CHECK(any[k] == 1);
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == total);
    free(any);
    free(all);
    free(seen);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("shared"), MPI_INFO_NULL) == MPI_SUCCESS);
}

/* write_ordered: rank r writes r + 1 records, in rank order; then read_ordered gives
 * each rank its own. Twice, the second pass after the first. */
static void ordered(void) {
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("ordered"), MPI_MODE_RDWR | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    int n = rank + 1;
    record_t *mine = calloc((size_t)n, sizeof *mine), *back = calloc((size_t)n, sizeof *back);
    CHECK(mine && back);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) make_record(&mine[i], rank, pass * 10 + i);
        CHECK(MPI_File_write_ordered(fh, mine, n * (int)sizeof(record_t), MPI_BYTE,
                                     MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    sync_barrier_sync(fh);
    int per_pass = size * (size + 1) / 2, total = 2 * per_pass;
    record_t *all = calloc((size_t)total, sizeof *all);
    CHECK(all);
    CHECK(MPI_File_read_at(fh, 0, all, total * (int)sizeof(record_t), MPI_BYTE,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < r + 1; i++, k++)
                CHECK(all[k].who == r && all[k].which == pass * 10 + i && record_ok(&all[k]));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
    for (int pass = 0; pass < 2; pass++) {
        MPI_Status st;
        int got = -1;
        CHECK(MPI_File_read_ordered(fh, back, n * (int)sizeof(record_t), MPI_BYTE, &st) ==
              MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &got) == MPI_SUCCESS &&
              got == n * (int)sizeof(record_t));
        for (int i = 0; i < n; i++)
            CHECK(back[i].who == rank && back[i].which == pass * 10 + i && record_ok(&back[i]));
    }
    free(all);
    free(mine);
    free(back);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("ordered"), MPI_INFO_NULL) == MPI_SUCCESS);
}

/* MPI-4.1 section 14.6.10: rank 0 writes a region, the last rank (on the other host)
 * reads it. Each round writes a new value over the previous one. */
enum { REGION = 4096, ROUNDS = 20 };

static void fill_region(int *a, int value) {
    for (int i = 0; i < REGION; i++) a[i] = value;
}

/* all of the region one value; returns it (-1: a mix) */
static int region_value(const int *a) {
    for (int i = 1; i < REGION; i++)
        if (a[i] != a[0]) return -1;
    return a[0];
}

static void consistency(void) {
    MPI_File fh;
    int reader = size - 1;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("consistency"), MPI_MODE_RDWR | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    int *a = malloc(REGION * sizeof *a);
    CHECK(a);
    if (rank == 0) {
        fill_region(a, 0);
        CHECK(MPI_File_write_at(fh, 0, a, REGION, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    sync_barrier_sync(fh);

    /* atomic mode, no synchronisation between the write and the read: all old or all
     * new (the reader may see any of the rounds' values, each whole) */
    CHECK(MPI_File_set_atomicity(fh, 1) == MPI_SUCCESS);
    int flag = 0;
    CHECK(MPI_File_get_atomicity(fh, &flag) == MPI_SUCCESS && flag == 1);
    int last = 0;
    for (int round = 1; round <= ROUNDS; round++) {
        if (rank == 0) {
            fill_region(a, round);
            CHECK(MPI_File_write_at(fh, 0, a, REGION, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        } else if (rank == reader) {
            CHECK(MPI_File_read_at(fh, 0, a, REGION, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            int v = region_value(a);
            CHECK(v >= last && v <= ROUNDS); /* whole, and never older than before */
            last = v;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the reads above end before the writes below */
    /* atomic mode, a barrier between: the new data */
    for (int round = 1; round <= ROUNDS; round++) {
        int value = 100 + round;
        if (rank == 0) {
            fill_region(a, value);
            CHECK(MPI_File_write_at(fh, 0, a, REGION, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == reader) {
            CHECK(MPI_File_read_at(fh, 0, a, REGION, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(region_value(a) == value);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* the next write comes after this read */
    }
    /* non-atomic mode, sync-barrier-sync between: the new data, at every rank */
    CHECK(MPI_File_set_atomicity(fh, 0) == MPI_SUCCESS);
    for (int round = 1; round <= ROUNDS; round++) {
        int value = 200 + round;
        if (rank == 0) {
            fill_region(a, value);
            CHECK(MPI_File_write_at(fh, 0, a, REGION, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        }
        sync_barrier_sync(fh);
        if (rank != 0) {
            CHECK(MPI_File_read_at(fh, 0, a, REGION, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(region_value(a) == value);
        }
        sync_barrier_sync(fh); /* the next write comes after these reads */
    }
    free(a);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("consistency"), MPI_INFO_NULL) == MPI_SUCCESS);
}

/* Collective buffering with the default hints. Rank r owns records r, r + P, ... of
 * CB_REC bytes; byte k of record j is a function of both. */
enum { CB_REC = 40, CB_RECS = 300 };

static unsigned char cb_byte(long record, int k) {
    return (unsigned char)(3 + (record * 13 + k * 5) % 249);
}

static void collective_across(void) {
    /* the nodes as MPI groups them: what cb_nodes must say */
    MPI_Comm node;
    int local = 0, firsts = 0, first;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    first = local == 0;
    MPI_Allreduce(&first, &firsts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("cb"), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    CHECK(MPI_File_get_info(fh, &info) == MPI_SUCCESS);
    CHECK(MPI_Info_get(info, "cb_nodes", MPI_MAX_INFO_VAL, value, &flag) == MPI_SUCCESS && flag);
    CHECK(atoi(value) == firsts);
    MPI_Info_free(&info);
    MPI_Datatype rec, tile;
    MPI_Type_contiguous(CB_REC, MPI_BYTE, &rec);
    MPI_Type_create_resized(rec, 0, (MPI_Aint)CB_REC * size, &tile);
    MPI_Type_commit(&tile);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)CB_REC * rank, MPI_BYTE, tile, "native",
                            MPI_INFO_NULL) == MPI_SUCCESS);
    unsigned char *mine = malloc((size_t)CB_REC * CB_RECS),
                  *back = malloc((size_t)CB_REC * CB_RECS);
    CHECK(mine && back);
    for (long j = 0; j < CB_RECS; j++)
        for (int k = 0; k < CB_REC; k++) mine[j * CB_REC + k] = cb_byte(j * size + rank, k);
    MPI_Status st;
    int count = -1;
    CHECK(MPI_File_write_at_all(fh, 0, mine, CB_REC * CB_RECS, MPI_BYTE, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && count == CB_REC * CB_RECS);
    memset(back, 0, (size_t)CB_REC * CB_RECS);
    CHECK(MPI_File_read_at_all(fh, 0, back, CB_REC * CB_RECS, MPI_BYTE, &st) == MPI_SUCCESS);
    CHECK(memcmp(mine, back, (size_t)CB_REC * CB_RECS) == 0);
    /* the whole file, through the bytes view: every record where the view put it */
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    long total = (long)CB_RECS * size;
    unsigned char *all = malloc((size_t)CB_REC * (size_t)total);
    CHECK(all);
    CHECK(MPI_File_read_at(fh, 0, all, (int)(CB_REC * total), MPI_BYTE, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && count == CB_REC * total);
    for (long j = 0; j < total; j++)
        for (int k = 0; k < CB_REC; k++) CHECK(all[j * CB_REC + k] == cb_byte(j, k));
    free(all);
    free(mine);
    free(back);
    MPI_Type_free(&rec);
    MPI_Type_free(&tile);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("cb"), MPI_INFO_NULL) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int lose_peer = argc > 1 && !strcmp(argv[1], "lose_peer");
    if (argc > 1 && !lose_peer) {
        if (rank == 0) fprintf(stderr, "io_hosts: unknown mode %s\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (lose_peer && size < 2) {
        if (rank == 0) fprintf(stderr, "io_hosts: lose_peer needs 2 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    io_dir_make("io_hosts");
    shared_pointer(lose_peer);
    ordered();
    consistency();
    collective_across();
    io_dir_remove(); /* every test removed its files */
    if (rank == 0) printf("io_hosts: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
