/* MPI-IO's non-blocking accesses (MPI-4.1 section 14.4): started at the call, moved by
 * the library's I/O thread, completed by any completion call.
 *
 * - progress without MPI: an iwrite's bytes reach the file while the program makes
 *   no MPI call (read back with plain pread, until they are there);
 * - many outstanding iwrite_at/iread_at to different offsets, completed by Waitall,
 *   Testsome, Waitany and MPI_Request_get_status in whatever order they finish, data
 *   checked across ranks (sync-barrier-sync between);
 * - the pointers move at the call (individual, shared: every record once);
 * - derived types in memory and in the view, the read's type freed at once;
 * - a read after a write of the same bytes, after the write's wait, sees them;
 * - errors: a write to a file open read-only fails at the call; a read past the end
 *   is short; a write that fails in the background (ENOSPC, /dev/full) reports its
 *   class at the wait, through the file's handler, and in Waitall's status;
 *   MPI_Cancel leaves a started access to complete;
 * - close with accesses outstanding waits for them: no data lost.
 *
 * Modes: no argument (MPI_THREAD_SINGLE), "multiple" (the same under
 * MPI_THREAD_MULTIPLE), "finalize" (MPI_Finalize with an iwrite outstanding: the
 * bytes are in the file after it). Nothing waits for a time: a wait ends when the
 * data is there, the job's timeout bounds it. */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_check.h"

enum { REC = 4096, K = 48 };

static unsigned char pattern(long record, int byte) {
    return (unsigned char)(1 + (record * 31 + byte * 7) % 251);
}

static void fill(unsigned char *p, long record, int len) {
    for (int b = 0; b < len; b++) p[b] = pattern(record, b);
}

static int matches(const unsigned char *p, long record, int len) {
    for (int b = 0; b < len; b++)
        if (p[b] != pattern(record, b)) return 0;
    return 1;
}

static int count_of(const MPI_Status *st) {
    int n = -1;
    CHECK(MPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS);
    return n;
}

/* The bytes reach the file while the program makes no MPI call. */
static void progress_without_mpi(void) {
    MPI_File fh;
    char name[64];
    snprintf(name, sizeof name, "alone.%d", rank);
    CHECK(MPI_File_open(MPI_COMM_SELF, path(name), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    int len = 1 << 20;
    unsigned char *buf = malloc((size_t)len), *back = malloc((size_t)len);
    CHECK(buf && back);
    fill(buf, 7, len);
    MPI_Request req;
    CHECK(MPI_File_iwrite_at(fh, 0, buf, len, MPI_BYTE, &req) == MPI_SUCCESS);
    int fd = open(path(name), O_RDONLY);
    CHECK(fd >= 0);
    /* no MPI call until the last byte is there (the job's timeout bounds the loop) */
    for (;;) {
        ssize_t n = pread(fd, back, (size_t)len, 0);
        if (n == len && back[len - 1] == buf[len - 1]) break;
        usleep(1000);
    }
    close(fd);
    MPI_Status st;
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && req == MPI_REQUEST_NULL && count_of(&st) == len);
    CHECK(MPI_File_read_at(fh, 0, back, len, MPI_BYTE, &st) == MPI_SUCCESS);
    CHECK(matches(back, 7, len));
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    CHECK(MPI_File_delete(path(name), MPI_INFO_NULL) == MPI_SUCCESS);
    free(buf);
    free(back);
}

/* K records per rank, written out of order, then each rank reads its neighbour's. */
static void many_outstanding(void) {
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("many"), MPI_MODE_RDWR | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    unsigned char *out = malloc((size_t)K * REC), *in = malloc((size_t)K * REC);
    CHECK(out && in);
    MPI_Request req[K];
    MPI_Status st[K];
    for (int i = 0; i < K; i++) {
        int k = (i * 17) % K; /* a permutation: the offsets jump about */
        long record = (long)rank * K + k;
        fill(out + (size_t)k * REC, record, REC);
        CHECK(MPI_File_iwrite_at(fh, record * REC, out + (size_t)k * REC, REC, MPI_BYTE, &req[i]) ==
              MPI_SUCCESS);
        CHECK(req[i] != MPI_REQUEST_NULL);
    }
    /* Testsome until every one is complete, each exactly once */
    int seen[K] = {0}, left = K;
    while (left) {
        int n = 0, idx[K];
        CHECK(MPI_Testsome(K, req, &n, idx, st) == MPI_SUCCESS);
        CHECK(n != MPI_UNDEFINED);
        for (int j = 0; j < n; j++) {
            CHECK(!seen[idx[j]] && req[idx[j]] == MPI_REQUEST_NULL);
            CHECK(count_of(&st[j]) == REC);
            seen[idx[j]] = 1;
            left--;
        }
    }
    MPI_File_sync(fh); /* sync-barrier-sync: the others' writes are seen */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    int from = (rank + 1) % size;
    memset(in, 0, (size_t)K * REC);
    for (int k = 0; k < K; k++) {
        long record = (long)from * K + k;
        CHECK(MPI_File_iread_at(fh, record * REC, in + (size_t)k * REC, REC, MPI_BYTE, &req[k]) ==
              MPI_SUCCESS);
    }
    /* the first by MPI_Request_get_status (it stays), then Waitany, then Waitall */
    int flag = 0;
    while (!flag) CHECK(MPI_Request_get_status(req[0], &flag, &st[0]) == MPI_SUCCESS);
    CHECK(req[0] != MPI_REQUEST_NULL && count_of(&st[0]) == REC);
    CHECK(matches(in, (long)from * K, REC));
    int index = -1;
    CHECK(MPI_Waitany(K, req, &index, &st[0]) == MPI_SUCCESS && index >= 0 && index < K);
    CHECK(req[index] == MPI_REQUEST_NULL && count_of(&st[0]) == REC);
    CHECK(MPI_Waitall(K, req, st) == MPI_SUCCESS);
    for (int k = 0; k < K; k++) {
        CHECK(req[k] == MPI_REQUEST_NULL);
        CHECK(matches(in + (size_t)k * REC, (long)from * K + k, REC));
    }
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("many"), MPI_INFO_NULL) == MPI_SUCCESS);
    free(out);
    free(in);
}

/* The pointers move at the call; a read after a write's wait sees the write. */
static void pointers(void) {
    MPI_File fh;
    char name[64];
    snprintf(name, sizeof name, "own.%d", rank);
    CHECK(MPI_File_open(MPI_COMM_SELF, path(name), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    unsigned char a[REC], b[REC], back[2 * REC];
    fill(a, 1, REC);
    fill(b, 2, REC);
    MPI_Request req[2];
    CHECK(MPI_File_iwrite(fh, a, REC, MPI_BYTE, &req[0]) == MPI_SUCCESS);
    MPI_Offset at = -1;
    CHECK(MPI_File_get_position(fh, &at) == MPI_SUCCESS && at == REC);
    CHECK(MPI_File_iwrite(fh, b, REC, MPI_BYTE, &req[1]) == MPI_SUCCESS);
    CHECK(MPI_File_get_position(fh, &at) == MPI_SUCCESS && at == 2 * REC);
    CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    /* read after write: the same bytes, through a non-blocking read */
    MPI_Request r;
    MPI_Status st;
    CHECK(MPI_File_iread_at(fh, 0, back, 2 * REC, MPI_BYTE, &r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && count_of(&st) == 2 * REC);
    CHECK(matches(back, 1, REC) && matches(back + REC, 2, REC));
    /* overwrite, wait, then a blocking read sees it */
    fill(a, 3, REC);
    CHECK(MPI_File_iwrite_at(fh, REC, a, REC, MPI_BYTE, &r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_File_read_at(fh, REC, back, REC, MPI_BYTE, &st) == MPI_SUCCESS);
    CHECK(matches(back, 3, REC));
    /* a read that moves the pointer, past the end: short, pointer at the full count */
    CHECK(MPI_File_seek(fh, REC, MPI_SEEK_SET) == MPI_SUCCESS);
    CHECK(MPI_File_iread(fh, back, 2 * REC, MPI_BYTE, &r) == MPI_SUCCESS);
    CHECK(MPI_File_get_position(fh, &at) == MPI_SUCCESS && at == 3 * REC);
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && count_of(&st) == REC);
    CHECK(matches(back, 3, REC));
    CHECK(MPI_File_iread_at(fh, 5 * REC, back, REC, MPI_BYTE, &r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && count_of(&st) == 0);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    CHECK(MPI_File_delete(path(name), MPI_INFO_NULL) == MPI_SUCCESS);
}

/* Every rank's iwrite_shared records land once each; rank 0 checks the file. */
static void shared_pointer(void) {
    MPI_File fh;
    enum { N = 8, LEN = 64 };
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("shared"), MPI_MODE_RDWR | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    unsigned char recs[N][LEN];
    MPI_Request req[N];
    for (int k = 0; k < N; k++) {
        long record = (long)rank * N + k;
        fill(recs[k], record, LEN);
        recs[k][0] = (unsigned char)rank; /* who and which: the record names itself */
        recs[k][1] = (unsigned char)k;
        CHECK(MPI_File_iwrite_shared(fh, recs[k], LEN, MPI_BYTE, &req[k]) == MPI_SUCCESS);
    }
    CHECK(MPI_Waitall(N, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_Offset at = -1;
    CHECK(MPI_File_get_position_shared(fh, &at) == MPI_SUCCESS && at == (MPI_Offset)size * N * LEN);
    if (rank == 0) {
        unsigned char *all = malloc((size_t)size * N * LEN);
        int *seen = calloc((size_t)size * N, sizeof *seen);
        CHECK(all && seen);
        MPI_Status st;
        CHECK(MPI_File_read_at(fh, 0, all, size * N * LEN, MPI_BYTE, &st) == MPI_SUCCESS &&
              count_of(&st) == size * N * LEN);
        for (int i = 0; i < size * N; i++) {
            unsigned char *p = all + (size_t)i * LEN;
            int who = p[0], k = p[1];
            CHECK(who < size && k < N && !seen[who * N + k]++);
            for (int b = 2; b < LEN; b++) CHECK(p[b] == pattern((long)who * N + k, b));
        }
        free(all);
        free(seen);
    }
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("shared"), MPI_INFO_NULL) == MPI_SUCCESS);
}

/* A strided memory type and a strided view; the read's type freed right after the
 * call; the collective forms too. */
static void derived_types(void) {
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("views"), MPI_MODE_RDWR | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    enum { N = 256 };
    /* the view: this rank's ints, every size-th int of the file */
    MPI_Datatype tile, filetype;
    MPI_Type_contiguous(1, MPI_INT, &tile);
    MPI_Type_create_resized(tile, 0, (MPI_Aint)sizeof(int) * size, &filetype);
    MPI_Type_commit(&filetype);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * rank, MPI_INT, filetype, "native",
                            MPI_INFO_NULL) == MPI_SUCCESS);
    /* memory: every other int of a buffer */
    int *mem = calloc(2 * N, sizeof *mem), *back = calloc(2 * N, sizeof *back);
    CHECK(mem && back);
    for (int i = 0; i < N; i++) mem[2 * i] = rank * 100000 + i;
    MPI_Datatype every_other;
    MPI_Type_vector(N, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Request req;
    MPI_Status st;
    CHECK(MPI_File_iwrite_all(fh, mem, 1, every_other, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && count_of(&st) == N * (int)sizeof(int));
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_Datatype copy;
    MPI_Type_dup(every_other, &copy);
    CHECK(MPI_File_iread_at_all(fh, 0, back, 1, copy, &req) == MPI_SUCCESS);
    MPI_Type_free(&copy); /* the pending read keeps what it needs */
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && count_of(&st) == N * (int)sizeof(int));
    for (int i = 0; i < N; i++) CHECK(back[2 * i] == rank * 100000 + i && back[2 * i + 1] == 0);
    /* and the whole file, interleaved, as bytes through the default view */
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    int *all = calloc((size_t)N * size, sizeof *all);
    CHECK(all);
    CHECK(MPI_File_iread_at(fh, 0, all, N * size, MPI_INT, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < N * size; i++) CHECK(all[i] == (i % size) * 100000 + i / size);
    free(all);
    free(mem);
    free(back);
    MPI_Type_free(&every_other);
    MPI_Type_free(&filetype);
    MPI_Type_free(&tile);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("views"), MPI_INFO_NULL) == MPI_SUCCESS);
}

static int handler_calls, handler_class;
static MPI_File handler_file;

static void file_handler(MPI_File *fh, int *code, ...) {
    handler_calls++;
    handler_file = *fh;
    handler_class = class_of(*code);
}

static void errors(void) {
    MPI_File fh;
    char name[64];
    unsigned char buf[REC];
    fill(buf, 5, REC);
    snprintf(name, sizeof name, "ro.%d", rank);
    CHECK(MPI_File_open(MPI_COMM_SELF, path(name), MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    CHECK(MPI_File_open(MPI_COMM_SELF, path(name), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) ==
          MPI_SUCCESS);
    MPI_Request req = (MPI_Request)12345;
    CHECK(class_of(MPI_File_iwrite_at(fh, 0, buf, REC, MPI_BYTE, &req)) == MPI_ERR_READ_ONLY);
    CHECK(req == MPI_REQUEST_NULL);
    CHECK(class_of(MPI_File_iread_at(fh, -1, buf, REC, MPI_BYTE, &req)) == MPI_ERR_ARG);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    CHECK(MPI_File_delete(path(name), MPI_INFO_NULL) == MPI_SUCCESS);

    /* a failure in the background: ENOSPC from /dev/full, at the wait */
    if (access("/dev/full", W_OK) != 0) {
        if (rank == 0) printf("io_nonblocking: no /dev/full: the ENOSPC checks are left out\n");
        return;
    }
    CHECK(MPI_File_open(MPI_COMM_SELF, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) ==
          MPI_SUCCESS);
    MPI_Errhandler eh;
    CHECK(MPI_File_create_errhandler(file_handler, &eh) == MPI_SUCCESS);
    CHECK(MPI_File_set_errhandler(fh, eh) == MPI_SUCCESS);
    CHECK(MPI_File_iwrite_at(fh, 0, buf, REC, MPI_BYTE, &req) == MPI_SUCCESS);
    CHECK(handler_calls == 0);
    int rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(class_of(rc) == MPI_ERR_NO_SPACE && req == MPI_REQUEST_NULL);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_NO_SPACE && handler_file == fh);
    /* MPI_Test reports it the same way */
    CHECK(MPI_File_iwrite_at(fh, 0, buf, REC, MPI_BYTE, &req) == MPI_SUCCESS);
    int flag = 0;
    do rc = MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    while (!flag);
    CHECK(class_of(rc) == MPI_ERR_NO_SPACE && handler_calls == 2);
    /* in Waitall: MPI_ERR_IN_STATUS (on MPI_COMM_WORLD's handler), the class in the
     * failed one's status, the other one complete and successful */
    MPI_Request two[2];
    MPI_Status st[2];
    CHECK(MPI_File_iwrite_at(fh, 0, buf, REC, MPI_BYTE, &two[0]) == MPI_SUCCESS);
    CHECK(MPI_File_iwrite_at(fh, 0, buf, 0, MPI_BYTE, &two[1]) == MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Waitall(2, two, st);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(class_of(rc) == MPI_ERR_IN_STATUS);
    CHECK(class_of(st[0].MPI_ERROR) == MPI_ERR_NO_SPACE && st[1].MPI_ERROR == MPI_SUCCESS);
    CHECK(two[0] == MPI_REQUEST_NULL && two[1] == MPI_REQUEST_NULL);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Errhandler_free(&eh);

    /* MPI_Cancel: a started access is not cancelled, it completes */
    snprintf(name, sizeof name, "cancel.%d", rank);
    CHECK(MPI_File_open(MPI_COMM_SELF, path(name), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    CHECK(MPI_File_iwrite_at(fh, 0, buf, REC, MPI_BYTE, &req) == MPI_SUCCESS);
    CHECK(MPI_Cancel(&req) == MPI_SUCCESS);
    MPI_Status s;
    CHECK(MPI_Wait(&req, &s) == MPI_SUCCESS);
    CHECK(MPI_Test_cancelled(&s, &flag) == MPI_SUCCESS && !flag && count_of(&s) == REC);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    CHECK(MPI_File_delete(path(name), MPI_INFO_NULL) == MPI_SUCCESS);
}

/* Close with K large writes outstanding: they finish first, nothing is lost. */
static void close_outstanding(void) {
    MPI_File fh;
    enum { BIG = 256 << 10 };
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("close"), MPI_MODE_RDWR | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    enum { M = 8 };
    unsigned char *out = malloc((size_t)M * BIG);
    CHECK(out);
    MPI_Request req[M];
    for (int k = 0; k < M; k++) {
        long record = (long)rank * M + k;
        fill(out + (size_t)k * BIG, record, BIG);
        CHECK(MPI_File_iwrite_at(fh, record * BIG, out + (size_t)k * BIG, BIG, MPI_BYTE, &req[k]) ==
              MPI_SUCCESS);
    }
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    /* the requests are complete now; completing them is still allowed */
    int flag = 0;
    CHECK(MPI_Testall(M, req, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS && flag);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("close"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) ==
          MPI_SUCCESS);
    MPI_Offset bytes = 0;
    CHECK(MPI_File_get_size(fh, &bytes) == MPI_SUCCESS && bytes == (MPI_Offset)size * M * BIG);
    int from = (rank + size - 1) % size;
    MPI_Status st;
    CHECK(MPI_File_read_at(fh, (MPI_Offset)from * M * BIG, out, M * BIG, MPI_BYTE, &st) ==
          MPI_SUCCESS);
    for (int k = 0; k < M; k++) CHECK(matches(out + (size_t)k * BIG, (long)from * M + k, BIG));
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("close"), MPI_INFO_NULL) == MPI_SUCCESS);
    free(out);
}

/* MPI_Finalize with an iwrite outstanding (the program's error, tolerated): the bytes
 * are in the file once it returns. */
static int finalize_outstanding(void) {
    /* a directory per rank: each removes its own after MPI_Finalize */
    char mine[512], file[640];
    const char *tmp = getenv("TMPDIR");
    snprintf(mine, sizeof mine, "%s/tw_ionb_fin_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(mine));
    snprintf(file, sizeof file, "%s/fin", mine);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_SELF, file, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
          MPI_SUCCESS);
    int len = 4 << 20;
    unsigned char *buf = malloc((size_t)len);
    CHECK(buf);
    fill(buf, 9, len);
    MPI_Request req;
    CHECK(MPI_File_iwrite_at(fh, 0, buf, len, MPI_BYTE, &req) == MPI_SUCCESS);
    int me = rank;
    MPI_Finalize();
    rank = me;
    struct stat sb;
    int fd = open(file, O_RDONLY);
    if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size != len) {
        fprintf(stderr, "rank %d: %s is not whole after MPI_Finalize\n", me, file);
        return 1;
    }
    memset(buf, 0, (size_t)len);
    ssize_t n = pread(fd, buf, (size_t)len, 0);
    close(fd);
    unlink(file);
    rmdir(mine);
    if (n != len || !matches(buf, 9, len)) {
        fprintf(stderr, "rank %d: %s holds other bytes after MPI_Finalize\n", me, file);
        return 1;
    }
    free(buf);
    printf("io_nonblocking finalize: rank %d ok\n", me);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "single";
    int provided = 0;
    if (!strcmp(mode, "multiple")) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        CHECK(provided == MPI_THREAD_MULTIPLE);
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(mode, "finalize")) return finalize_outstanding();
    io_dir_make("ionb");
    if (strcmp(mode, "single") && strcmp(mode, "multiple")) {
        if (rank == 0) fprintf(stderr, "io_nonblocking: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    progress_without_mpi();
    many_outstanding();
    pointers();
    shared_pointer();
    derived_types();
    errors();
    close_outstanding();
    io_dir_remove(); /* every test removed its files */
    if (rank == 0) printf("io_nonblocking %s: %d ranks ok\n", mode, size);
    MPI_Finalize();
    return 0;
}
