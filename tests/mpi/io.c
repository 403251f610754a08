/* MPI-IO (MPI-4.1 chapter 14): opening in every access mode and its errors, the error
 * classes of failed system calls, size, preallocation, group, amode, hints, sync,
 * atomicity, views (get_view, byte offsets, seek, type extents, external32), and
 * every form of data access: explicit offsets, individual and shared pointers,
 * ordered, collective, non-blocking, split collective and large-count. Every file
 * lies in a directory the test makes under $TMPDIR (or /tmp) and removes. Data is
 * checked byte by byte. Runs on any number of ranks. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_check.h"

static int exists(const char *name) {
    struct stat st;
    return stat(path(name), &st) == 0;
}

/* A byte every (record, byte) pair of the tests writes: not 0, not uniform. */
static unsigned char pattern(long record, int byte) {
    return (unsigned char)(1 + (record * 31 + byte * 7) % 251);
}

static void open_modes(void) {
    MPI_File fh;
    /* the access mode's rules */
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, path("a"), MPI_MODE_RDONLY | MPI_MODE_CREATE,
                                 MPI_INFO_NULL, &fh)) == MPI_ERR_AMODE);
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, path("a"), MPI_MODE_RDONLY | MPI_MODE_EXCL,
                                 MPI_INFO_NULL, &fh)) == MPI_ERR_AMODE);
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, path("a"), MPI_MODE_RDWR | MPI_MODE_WRONLY,
                                 MPI_INFO_NULL, &fh)) == MPI_ERR_AMODE);
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, path("a"), MPI_MODE_CREATE, MPI_INFO_NULL, &fh)) ==
          MPI_ERR_AMODE);
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, path("a"), MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL,
                                 MPI_INFO_NULL, &fh)) == MPI_ERR_AMODE);
    CHECK(fh == MPI_FILE_NULL);
    /* errno's classes */
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, path("missing"), MPI_MODE_RDONLY, MPI_INFO_NULL,
                                 &fh)) == MPI_ERR_NO_SUCH_FILE);
    CHECK(class_of(MPI_File_delete(path("missing"), MPI_INFO_NULL)) == MPI_ERR_NO_SUCH_FILE);
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, "pvfs9:/x", MPI_MODE_RDONLY, MPI_INFO_NULL,
                                 &fh)) == MPI_ERR_BAD_FILE);
    /* a full device: the write fails with ENOSPC, the class MPI_ERR_NO_SPACE */
    if (access("/dev/full", W_OK) == 0) {
        CHECK(MPI_File_open(MPI_COMM_SELF, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS);
        char full[64] = {1};
        CHECK(class_of(MPI_File_write_at(fh, 0, full, 64, MPI_CHAR, MPI_STATUS_IGNORE)) ==
              MPI_ERR_NO_SPACE);
        CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    }
    /* the running program opened for writing: ETXTBSY, the class MPI_ERR_FILE_IN_USE (the
     * kernel refuses it before anything is written) */
    char self[512];
    ssize_t self_len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (self_len > 0) {
        self[self_len] = 0;
        CHECK(class_of(MPI_File_open(MPI_COMM_SELF, self, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh)) ==
              MPI_ERR_FILE_IN_USE);
        CHECK(fh == MPI_FILE_NULL);
    }
    /* create with a "ufs:" prefix, then EXCL finds it there */
    char ufs[700];
    snprintf(ufs, sizeof ufs, "ufs:%s", path("a"));
    CHECK(MPI_File_open(MPI_COMM_WORLD, ufs, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    CHECK(fh != MPI_FILE_NULL && MPI_File_c2f(fh) == (MPI_Fint)fh &&
          MPI_File_f2c(MPI_File_c2f(fh)) == fh);
    int amode = 0;
    CHECK(MPI_File_get_amode(fh, &amode) == MPI_SUCCESS &&
          amode == (MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL));
    MPI_Group g;
    int gsize = 0, cmp = -1;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    CHECK(MPI_File_get_group(fh, &g) == MPI_SUCCESS && MPI_Group_size(g, &gsize) == MPI_SUCCESS &&
          gsize == size);
    MPI_Group_compare(g, world, &cmp);
    CHECK(cmp == MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    /* a file open WRONLY refuses reads */
    char c;
    CHECK(class_of(MPI_File_read_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE)) == MPI_ERR_ACCESS);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS && fh == MPI_FILE_NULL);
    MPI_File fh2;
    CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, path("a"),
                                 MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL, MPI_INFO_NULL,
                                 &fh2)) == MPI_ERR_FILE_EXISTS);
    /* RDONLY refuses writes, size changes */
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("a"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) ==
          MPI_SUCCESS);
    CHECK(class_of(MPI_File_write_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE)) ==
          MPI_ERR_READ_ONLY);
    CHECK(class_of(MPI_File_set_size(fh, 10)) == MPI_ERR_READ_ONLY);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    /* an invalid handle */
    MPI_File bogus = (MPI_File)0x30001234;
    CHECK(class_of(MPI_File_get_amode(bogus, &amode)) == MPI_ERR_FILE);
    CHECK(class_of(MPI_File_close(&bogus)) == MPI_ERR_FILE);
    /* no permission (root reads anything: only when not root) */
    if (geteuid() != 0) {
        if (rank == 0) chmod(path("a"), 0);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(class_of(MPI_File_open(MPI_COMM_WORLD, path("a"), MPI_MODE_RDONLY, MPI_INFO_NULL,
                                     &fh)) == MPI_ERR_ACCESS);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) chmod(path("a"), 0644);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(ufs, MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(!exists("a"));

    /* DELETE_ON_CLOSE, UNIQUE_OPEN, on MPI_COMM_SELF: each rank its own file */
    char mine[32];
    snprintf(mine, sizeof mine, "self%d", rank);
    CHECK(MPI_File_open(MPI_COMM_SELF, path(mine),
                        MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE |
                            MPI_MODE_UNIQUE_OPEN,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    CHECK(exists(mine));
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    CHECK(!exists(mine));
    MPI_Barrier(MPI_COMM_WORLD);
}

static void size_info_atomicity(void) {
    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "striping_unit", "1048576");
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("s"), MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh) ==
          MPI_SUCCESS);
    MPI_Info_free(&info);
    MPI_Info used;
    char value[64];
    int flag = 0;
    CHECK(MPI_File_get_info(fh, &used) == MPI_SUCCESS);
    CHECK(MPI_Info_get(used, "striping_unit", 63, value, &flag) == MPI_SUCCESS && flag &&
          !strcmp(value, "1048576"));
    MPI_Info_free(&used);
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "write_once");
    CHECK(MPI_File_set_info(fh, info) == MPI_SUCCESS);
    MPI_Info_free(&info);
    CHECK(MPI_File_get_info(fh, &used) == MPI_SUCCESS);
    CHECK(MPI_Info_get(used, "access_style", 63, value, &flag) == MPI_SUCCESS && flag &&
          !strcmp(value, "write_once"));
    CHECK(MPI_Info_get(used, "cb_nodes", 63, value, &flag) == MPI_SUCCESS && flag &&
          !strcmp(value, "1"));
    MPI_Info_free(&used);

    MPI_Offset sz = -1;
    CHECK(MPI_File_get_size(fh, &sz) == MPI_SUCCESS && sz == 0);
    CHECK(MPI_File_set_size(fh, 1000) == MPI_SUCCESS);
    CHECK(MPI_File_get_size(fh, &sz) == MPI_SUCCESS && sz == 1000);
    CHECK(MPI_File_preallocate(fh, 500) == MPI_SUCCESS); /* never shrinks */
    CHECK(MPI_File_get_size(fh, &sz) == MPI_SUCCESS && sz == 1000);
    CHECK(MPI_File_preallocate(fh, 4096) == MPI_SUCCESS);
    CHECK(MPI_File_get_size(fh, &sz) == MPI_SUCCESS && sz == 4096);
    CHECK(MPI_File_set_size(fh, 10) == MPI_SUCCESS);
    CHECK(MPI_File_get_size(fh, &sz) == MPI_SUCCESS && sz == 10);
    CHECK(class_of(MPI_File_set_size(fh, -1)) == MPI_ERR_ARG);
    if (size > 1) CHECK(class_of(MPI_File_set_size(fh, rank)) == MPI_ERR_NOT_SAME);
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS);

    flag = -1;
    CHECK(MPI_File_get_atomicity(fh, &flag) == MPI_SUCCESS && flag == 0);
    CHECK(MPI_File_set_atomicity(fh, 1) == MPI_SUCCESS);
    CHECK(MPI_File_get_atomicity(fh, &flag) == MPI_SUCCESS && flag == 1);
    /* atomic mode: every rank writes its block under a lock, then reads all */
    int block[16], all[64];
    for (int k = 0; k < 16; k++) block[k] = rank * 100 + k;
    CHECK(MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof block, block, 16, MPI_INT,
                                MPI_STATUS_IGNORE) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    int peer = (rank + 1) % size;
    CHECK(MPI_File_read_at(fh, (MPI_Offset)peer * sizeof block, all, 16, MPI_INT,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int k = 0; k < 16; k++) CHECK(all[k] == peer * 100 + k);
    CHECK(MPI_File_set_atomicity(fh, 0) == MPI_SUCCESS);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("s"), MPI_INFO_NULL) == MPI_SUCCESS);
}

static int handler_calls, handler_class;
static void file_handler(MPI_File *fh, int *code, ...) {
    (void)fh;
    handler_calls++;
    handler_class = class_of(*code);
}

static void error_handlers(void) {
    MPI_Errhandler eh, got;
    CHECK(MPI_File_get_errhandler(MPI_FILE_NULL, &got) == MPI_SUCCESS && got == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&got);
    CHECK(MPI_File_create_errhandler(file_handler, &eh) == MPI_SUCCESS);
    /* a file takes MPI_FILE_NULL's handler at its open */
    CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, eh) == MPI_SUCCESS);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("e"), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    CHECK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_File_get_errhandler(fh, &got) == MPI_SUCCESS && got == eh);
    MPI_Errhandler_free(&got);
    handler_calls = 0;
    CHECK(MPI_File_seek(fh, 0, 12345) != MPI_SUCCESS && handler_calls == 1 &&
          handler_class == MPI_ERR_ARG);
    CHECK(MPI_File_call_errhandler(fh, MPI_ERR_IO) == MPI_SUCCESS && handler_calls == 2 &&
          handler_class == MPI_ERR_IO);
    CHECK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(class_of(MPI_File_seek(fh, -1, MPI_SEEK_SET)) == MPI_ERR_ARG && handler_calls == 2);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Errhandler_free(&eh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) MPI_File_delete(path("e"), MPI_INFO_NULL);
}

/* Interleaved records: rank r writes records r, r + P, ... through a vector view
 * (collective), then rank 0 reads the whole file as bytes and checks each. */
static void interleaved(void) {
    enum { RECORD = 12, MINE = 9 };
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("i"), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    MPI_Datatype rec, strided;
    MPI_Type_contiguous(RECORD, MPI_BYTE, &rec);
    MPI_Type_commit(&rec);
    MPI_Type_create_resized(rec, 0, (MPI_Aint)RECORD * size, &strided);
    MPI_Type_commit(&strided);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * RECORD, MPI_BYTE, strided, "native",
                            MPI_INFO_NULL) == MPI_SUCCESS);
    unsigned char out[RECORD * MINE];
    for (int i = 0; i < MINE; i++)
        for (int b = 0; b < RECORD; b++) out[i * RECORD + b] = pattern((long)i * size + rank, b);
    MPI_Status st;
    int count = -1;
    CHECK(MPI_File_write_all(fh, out, MINE, rec, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, rec, &count) == MPI_SUCCESS && count == MINE);
    MPI_Offset pos = -1, at = -1;
    CHECK(MPI_File_get_position(fh, &pos) == MPI_SUCCESS && pos == RECORD * MINE);
    CHECK(MPI_File_get_byte_offset(fh, RECORD + 3, &at) == MPI_SUCCESS &&
          at == (MPI_Offset)rank * RECORD + (MPI_Offset)RECORD * size + 3);
    /* get_view: the predefined etype as is, the derived filetype a duplicate */
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK(MPI_File_get_view(fh, &disp, &et, &ft, rep) == MPI_SUCCESS);
    CHECK(disp == (MPI_Offset)rank * RECORD && et == MPI_BYTE && ft != strided &&
          !strcmp(rep, "native"));
    MPI_Aint lb, extent;
    MPI_Type_get_extent(ft, &lb, &extent);
    CHECK(lb == 0 && extent == (MPI_Aint)RECORD * size);
    MPI_Type_free(&ft);
    /* back through the same view, by seek */
    unsigned char in[RECORD * MINE];
    CHECK(MPI_File_seek(fh, RECORD * 2, MPI_SEEK_SET) == MPI_SUCCESS);
    CHECK(MPI_File_read(fh, in, RECORD, MPI_BYTE, &st) == MPI_SUCCESS);
    CHECK(!memcmp(in, out + RECORD * 2, RECORD));
    CHECK(MPI_File_seek(fh, -RECORD, MPI_SEEK_CUR) == MPI_SUCCESS);
    CHECK(MPI_File_get_position(fh, &pos) == MPI_SUCCESS && pos == RECORD * 2);
    CHECK(MPI_File_seek(fh, 0, MPI_SEEK_END) == MPI_SUCCESS);
    CHECK(MPI_File_get_position(fh, &pos) == MPI_SUCCESS && pos == RECORD * MINE);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Type_free(&rec);
    MPI_Type_free(&strided);

    if (rank == 0) {
        long n = (long)RECORD * MINE * size;
        unsigned char *whole = malloc((size_t)n + 8);
        CHECK(MPI_File_open(MPI_COMM_SELF, path("i"), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS);
        MPI_Offset sz;
        CHECK(MPI_File_get_size(fh, &sz) == MPI_SUCCESS && sz == n);
        /* asking for more than there is: the count says what was read */
        CHECK(MPI_File_read(fh, whole, (int)n + 8, MPI_BYTE, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && count == n);
        for (long k = 0; k < n; k++) CHECK(whole[k] == pattern(k / RECORD, (int)(k % RECORD)));
        CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
        CHECK(MPI_File_delete(path("i"), MPI_INFO_NULL) == MPI_SUCCESS);
        free(whole);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A hole, zero-length accesses, a resized filetype with a negative lower bound,
 * MPI_BOTTOM with absolute addresses, external32, non-blocking and large-count. */
static void odd_views(void) {
    MPI_File fh;
    MPI_Status st;
    int count = -1;
    char mine[32];
    snprintf(mine, sizeof mine, "odd%d", rank);
    CHECK(MPI_File_open(MPI_COMM_SELF, path(mine), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    /* a hole: written at 1 MiB; the bytes before read as zeros */
    unsigned char b[64];
    for (int k = 0; k < 64; k++) b[k] = pattern(rank, k);
    CHECK(MPI_File_write_at(fh, 1 << 20, b, 64, MPI_BYTE, &st) == MPI_SUCCESS);
    MPI_Offset sz;
    CHECK(MPI_File_get_size(fh, &sz) == MPI_SUCCESS && sz == (1 << 20) + 64);
    unsigned char z[256];
    memset(z, 0xee, sizeof z);
    CHECK(MPI_File_read_at(fh, 4096, z, 256, MPI_BYTE, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && count == 256);
    for (int k = 0; k < 256; k++) CHECK(z[k] == 0);
    /* past the end: nothing read, a count of 0 */
    CHECK(MPI_File_read_at(fh, 2 << 20, z, 16, MPI_BYTE, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_BYTE, &count) == MPI_SUCCESS && count == 0);
    /* zero-length accesses */
    CHECK(MPI_File_write_at(fh, 0, NULL, 0, MPI_INT, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS && count == 0);
    CHECK(MPI_File_read(fh, NULL, 0, MPI_INT, &st) == MPI_SUCCESS);
    CHECK(MPI_File_get_size(fh, &sz) == MPI_SUCCESS && sz == (1 << 20) + 64);
    CHECK(class_of(MPI_File_read(fh, z, -1, MPI_BYTE, &st)) == MPI_ERR_COUNT);
    CHECK(class_of(MPI_File_read(fh, z, 1, MPI_DATATYPE_NULL, &st)) == MPI_ERR_TYPE);
    /* a filetype with no data, and one whose extent does not advance: refused at the
     * view (an access would divide by its size, or never move on) */
    MPI_Datatype empty, still;
    CHECK(MPI_Type_contiguous(0, MPI_INT, &empty) == MPI_SUCCESS && MPI_Type_commit(&empty) == 0);
    CHECK(class_of(MPI_File_set_view(fh, 0, MPI_BYTE, empty, "native", MPI_INFO_NULL)) ==
          MPI_ERR_TYPE);
    CHECK(MPI_Type_create_resized(MPI_INT, 0, 0, &still) == MPI_SUCCESS &&
          MPI_Type_commit(&still) == 0);
    CHECK(class_of(MPI_File_set_view(fh, 0, MPI_BYTE, still, "native", MPI_INFO_NULL)) ==
          MPI_ERR_TYPE);
    /* a filetype made by a large-count constructor (as mpi4py makes every type): kept,
     * used and given back like any other */
    MPI_Datatype every_other, back_etype, back_ftype;
    MPI_Offset back_disp = -1;
    char back_rep[MPI_MAX_DATAREP_STRING];
    CHECK(MPI_Type_vector_c(4, 1, 2, MPI_INT, &every_other) == MPI_SUCCESS &&
          MPI_Type_commit(&every_other) == MPI_SUCCESS);
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, every_other, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    int odd[4] = {11, 13, 15, 17}, got[4] = {0};
    CHECK(MPI_File_write_at(fh, 0, odd, 4, MPI_INT, &st) == MPI_SUCCESS);
    CHECK(MPI_File_get_view(fh, &back_disp, &back_etype, &back_ftype, back_rep) == MPI_SUCCESS);
    CHECK(back_disp == 0 && back_etype == MPI_INT && !strcmp(back_rep, "native"));
    CHECK(MPI_Type_free(&back_ftype) == MPI_SUCCESS);
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    CHECK(MPI_File_read_at(fh, 8, got, 2, MPI_INT, &st) == MPI_SUCCESS);
    CHECK(got[0] == 13 && got[1] == 0); /* the second item at 2 ints, the gap untouched */
    CHECK(MPI_Type_free(&every_other) == MPI_SUCCESS);
    MPI_Type_free(&empty);
    MPI_Type_free(&still);
    CHECK(MPI_File_read_at(fh, 0, z, 4, MPI_BYTE, &st) == MPI_SUCCESS); /* the view is as before */
    CHECK(MPI_File_set_size(fh, 0) == MPI_SUCCESS);

    /* a resized filetype with a negative lower bound: one int then a gap of one */
    MPI_Datatype ft;
    MPI_Type_create_resized(MPI_INT, -4, 8, &ft);
    MPI_Type_commit(&ft);
    CHECK(MPI_File_set_view(fh, 4, MPI_INT, ft, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    int v[4] = {11, 22, 33, 44}, back[8];
    CHECK(MPI_File_write(fh, v, 4, MPI_INT, &st) == MPI_SUCCESS);
    MPI_Offset at;
    CHECK(MPI_File_get_byte_offset(fh, 2, &at) == MPI_SUCCESS && at == 4 + 16);
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    memset(back, 0, sizeof back);
    CHECK(MPI_File_read_at(fh, 0, back, 8, MPI_INT, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS && count == 8);
    CHECK(back[1] == 11 && back[3] == 22 && back[5] == 33 && back[7] == 44 && back[0] == 0 &&
          back[2] == 0);
    MPI_Type_free(&ft);

    /* MPI_BOTTOM and absolute addresses: a struct of two separate ints */
    int first = 1234, second = 5678, r1 = 0, r2 = 0;
    MPI_Aint addr[2];
    MPI_Get_address(&first, &addr[0]);
    MPI_Get_address(&second, &addr[1]);
    int lens[2] = {1, 1};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT}, pair;
    MPI_Type_create_struct(2, lens, addr, types, &pair);
    MPI_Type_commit(&pair);
    CHECK(MPI_File_write_at(fh, 10, MPI_BOTTOM, 1, pair, &st) == MPI_SUCCESS);
    MPI_Get_address(&r1, &addr[0]);
    MPI_Get_address(&r2, &addr[1]);
    MPI_Datatype pair2;
    MPI_Type_create_struct(2, lens, addr, types, &pair2);
    MPI_Type_commit(&pair2);
    CHECK(MPI_File_read_at(fh, 10, MPI_BOTTOM, 1, pair2, &st) == MPI_SUCCESS);
    CHECK(r1 == 1234 && r2 == 5678);
    MPI_Type_free(&pair);
    MPI_Type_free(&pair2);

    /* external32: big-endian in the file */
    CHECK(MPI_File_set_view(fh, 100, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL) == MPI_SUCCESS);
    int x = 0x01020304, y = 0;
    CHECK(MPI_File_write_at(fh, 0, &x, 1, MPI_INT, &st) == MPI_SUCCESS);
    MPI_Aint ext;
    CHECK(MPI_File_get_type_extent(fh, MPI_INT, &ext) == MPI_SUCCESS && ext == 4);
    MPI_Count extc;
    CHECK(MPI_File_get_type_extent_c(fh, MPI_LONG, &extc) == MPI_SUCCESS && extc == 4);
    CHECK(MPI_File_read_at(fh, 0, &y, 1, MPI_INT, &st) == MPI_SUCCESS && y == x);
    CHECK(class_of(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "bogus", MPI_INFO_NULL)) ==
          MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "internal", MPI_INFO_NULL) == MPI_SUCCESS);
    unsigned char raw[4];
    CHECK(MPI_File_read_at(fh, 100, raw, 4, MPI_BYTE, &st) == MPI_SUCCESS);
    CHECK(raw[0] == 1 && raw[1] == 2 && raw[2] == 3 && raw[3] == 4);

    /* non-blocking and large-count */
    MPI_Request req[2];
    long w[3] = {7, 8, 9}, rd[3] = {0, 0, 0};
    CHECK(MPI_File_iwrite_at(fh, 200, w, 3, MPI_LONG, &req[0]) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req[0], &st) == MPI_SUCCESS && req[0] == MPI_REQUEST_NULL);
    CHECK(MPI_Get_count(&st, MPI_LONG, &count) == MPI_SUCCESS && count == 3);
    CHECK(MPI_File_iread_at_c(fh, 200, rd, (MPI_Count)3, MPI_LONG, &req[1]) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req[1], &st) == MPI_SUCCESS && rd[0] == 7 && rd[1] == 8 && rd[2] == 9);
    CHECK(MPI_File_seek(fh, 200, MPI_SEEK_SET) == MPI_SUCCESS);
    memset(rd, 0, sizeof rd);
    CHECK(MPI_File_iread(fh, rd, 3 * (int)sizeof(long), MPI_BYTE, &req[0]) == MPI_SUCCESS);
    int flag = 0; /* the read moves in the background: tested until it is complete */
    while (!flag) CHECK(MPI_Test(&req[0], &flag, &st) == MPI_SUCCESS);
    CHECK(rd[2] == 9);
    MPI_Count cc = -1;
    CHECK(MPI_File_read_at_c(fh, 200, rd, (MPI_Count)1, MPI_LONG, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count_c(&st, MPI_LONG, &cc) == MPI_SUCCESS && cc == 1);
    CHECK(MPI_File_write_c(fh, w, (MPI_Count)1, MPI_LONG, &st) == MPI_SUCCESS);
    CHECK(MPI_File_iwrite(fh, w, 1, MPI_LONG, &req[0]) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    CHECK(MPI_File_delete(path(mine), MPI_INFO_NULL) == MPI_SUCCESS);
}

/* MPI-4.1 section 14.1: an etype's and a filetype's typemap displacements are
 * non-negative and non-decreasing, and their pieces may not overlap in a file open for
 * writing (MPI_ERR_IO, ROMIO's class). Overlaps are legal read-only; a resized type
 * whose lower bound is negative while its data is not stays legal. */
static void illegal_view_types(void) {
    enum { NEGATIVE, DECREASING, OVERLAPPING, KINDS };
    static const int disps[KINDS][2] = {{-2, 2}, {3, 0}, {0, 1}};
    static const int lens[KINDS][2] = {{1, 1}, {1, 1}, {3, 1}};
    char mine[32];
    snprintf(mine, sizeof mine, "illegal%d", rank);
    for (int readonly = 0; readonly < 2; readonly++) {
        MPI_File fh;
        int amode = readonly ? MPI_MODE_RDONLY : MPI_MODE_RDWR | MPI_MODE_CREATE;
        CHECK(MPI_File_open(MPI_COMM_SELF, path(mine), amode, MPI_INFO_NULL, &fh) == MPI_SUCCESS);
        for (int kind = 0; kind < KINDS; kind++) {
            MPI_Datatype t;
            CHECK(MPI_Type_indexed(2, lens[kind], disps[kind], MPI_INT, &t) == MPI_SUCCESS);
            CHECK(MPI_Type_commit(&t) == MPI_SUCCESS);
            int legal = readonly && kind == OVERLAPPING;
            int want = legal ? MPI_SUCCESS : MPI_ERR_IO;
            CHECK(class_of(MPI_File_set_view(fh, 0, t, t, "native", MPI_INFO_NULL)) == want);
            CHECK(class_of(MPI_File_set_view(fh, 0, MPI_INT, t, "native", MPI_INFO_NULL)) == want);
            MPI_Type_free(&t);
        }
        /* the same as a vector: a negative stride decreases, one shorter than a block
         * overlaps; a stride of one block exactly is contiguous and legal */
        MPI_Datatype back, tight, abutting;
        CHECK(MPI_Type_vector(3, 1, -2, MPI_INT, &back) == MPI_SUCCESS);
        CHECK(MPI_Type_create_hvector(3, 2, 4, MPI_INT, &tight) == MPI_SUCCESS);
        CHECK(MPI_Type_create_hvector(5, 2, 8, MPI_INT, &abutting) == MPI_SUCCESS);
        MPI_Type_commit(&back), MPI_Type_commit(&tight), MPI_Type_commit(&abutting);
        CHECK(class_of(MPI_File_set_view(fh, 0, MPI_INT, back, "native", MPI_INFO_NULL)) ==
              MPI_ERR_IO);
        CHECK(class_of(MPI_File_set_view(fh, 0, MPI_INT, tight, "native", MPI_INFO_NULL)) ==
              (readonly ? MPI_SUCCESS : MPI_ERR_IO));
        CHECK(MPI_File_set_view(fh, 0, MPI_INT, abutting, "native", MPI_INFO_NULL) == MPI_SUCCESS);
        /* a refused view leaves the one before in place */
        MPI_Offset d = -1;
        MPI_Datatype e, ft;
        char rep[MPI_MAX_DATAREP_STRING];
        CHECK(class_of(MPI_File_set_view(fh, 8, MPI_INT, back, "native", MPI_INFO_NULL)) ==
              MPI_ERR_IO);
        CHECK(MPI_File_get_view(fh, &d, &e, &ft, rep) == MPI_SUCCESS);
        MPI_Aint lb, extent;
        CHECK(MPI_Type_get_extent(ft, &lb, &extent) == MPI_SUCCESS);
        CHECK(d == 0 && e == MPI_INT && lb == 0 && extent == 40);
        MPI_Type_free(&ft);
        MPI_Type_free(&back), MPI_Type_free(&tight), MPI_Type_free(&abutting);
        CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    }
    CHECK(MPI_File_delete(path(mine), MPI_INFO_NULL) == MPI_SUCCESS);
}

/* A file past 4 GiB (sparse: only the bytes written take space): explicit offsets,
 * a view whose displacement and etype offsets pass 2^32 bytes, the individual pointer
 * and the size beyond it. Each rank its own file. */
static void big_offsets(void) {
    MPI_File fh;
    MPI_Status st;
    int count = -1;
    char mine[32];
    snprintf(mine, sizeof mine, "big%d", rank);
    CHECK(MPI_File_open(MPI_COMM_SELF, path(mine), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    const MPI_Offset five_gib = (MPI_Offset)5 << 30;
    double w[4] = {1.5, -2.5, 3.25, rank}, r[4] = {0};
    CHECK(MPI_File_write_at(fh, five_gib, w, 4, MPI_DOUBLE, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_DOUBLE, &count) == MPI_SUCCESS && count == 4);
    MPI_Offset sz = 0;
    CHECK(MPI_File_get_size(fh, &sz) == MPI_SUCCESS && sz == five_gib + 32);
    CHECK(MPI_File_read_at(fh, five_gib, r, 4, MPI_DOUBLE, &st) == MPI_SUCCESS);
    CHECK(!memcmp(w, r, sizeof w));
    /* a view at 4 GiB of 16-byte etypes: etype 2^26 + 1 lies at 5 GiB + 16 */
    MPI_Datatype pair;
    CHECK(MPI_Type_contiguous(2, MPI_DOUBLE, &pair) == MPI_SUCCESS && MPI_Type_commit(&pair) == 0);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)4 << 30, pair, pair, "native", MPI_INFO_NULL) ==
          MPI_SUCCESS);
    MPI_Offset etype_at = ((MPI_Offset)1 << 26) + 1, byte = 0;
    CHECK(MPI_File_get_byte_offset(fh, etype_at, &byte) == MPI_SUCCESS && byte == five_gib + 16);
    CHECK(MPI_File_seek(fh, etype_at, MPI_SEEK_SET) == MPI_SUCCESS);
    memset(r, 0, sizeof r);
    CHECK(MPI_File_read(fh, r, 1, pair, &st) == MPI_SUCCESS);
    CHECK(r[0] == w[2] && r[1] == w[3]);
    MPI_Offset pos = 0;
    CHECK(MPI_File_get_position(fh, &pos) == MPI_SUCCESS && pos == etype_at + 1);
    /* past the end by the pointer: nothing read */
    CHECK(MPI_File_read(fh, r, 1, pair, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, pair, &count) == MPI_SUCCESS && count == 0);
    /* the size shrinks back below 4 GiB and the bytes past it are gone */
    CHECK(MPI_File_set_size(fh, 4096) == MPI_SUCCESS);
    CHECK(MPI_File_get_size(fh, &sz) == MPI_SUCCESS && sz == 4096);
    MPI_Type_free(&pair);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    CHECK(MPI_File_delete(path(mine), MPI_INFO_NULL) == MPI_SUCCESS);
}

/* The shared pointer: every rank writes its records through it; each record is in the
 * file exactly once. Then ordered writes, in rank order; then ordered reads. */
static void shared_pointer(void) {
    enum { RECS = 5, LEN = 8 };
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("sh"), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    for (int i = 0; i < RECS; i++) {
        int rec[2] = {rank, i}; /* LEN bytes: who and which */
        if (i % 2)
            CHECK(MPI_File_write_shared(fh, rec, 2, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        else {
            MPI_Request r;
            CHECK(MPI_File_iwrite_shared(fh, rec, 2, MPI_INT, &r) == MPI_SUCCESS);
            CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset pos = -1;
    CHECK(MPI_File_get_position_shared(fh, &pos) == MPI_SUCCESS &&
          pos == (MPI_Offset)RECS * LEN * size);
    if (rank == 0) {
        int *all = malloc((size_t)RECS * size * LEN);
        int *seen = calloc((size_t)RECS * size, sizeof *seen);
        CHECK(MPI_File_read_at(fh, 0, all, RECS * size * 2, MPI_INT, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS);
        for (int k = 0; k < RECS * size; k++) {
            CHECK(all[2 * k] >= 0 && all[2 * k] < size && all[2 * k + 1] >= 0 &&
                  all[2 * k + 1] < RECS);
            seen[all[2 * k] * RECS + all[2 * k + 1]]++;
        }
        for (int k = 0; k < RECS * size; k++) CHECK(seen[k] == 1);
        free(all);
        free(seen);
    }
    /* read_shared from every rank reads every record once, too */
    CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
    int rec[2], count = -1, got = 0;
    MPI_Status st;
    for (int i = 0; i < RECS; i++) {
        CHECK(MPI_File_read_shared(fh, rec, 2, MPI_INT, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS && count == 2);
        CHECK(rec[0] >= 0 && rec[0] < size && rec[1] >= 0 && rec[1] < RECS);
        got += rec[0] * RECS + rec[1];
    }
    /* each record read once: the sum of their numbers over all ranks */
    int sum = 0;
    MPI_Allreduce(&got, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == RECS * size * (RECS * size - 1) / 2);
    MPI_Barrier(MPI_COMM_WORLD); /* every record read: the next read is past the end */
    MPI_Request r;
    CHECK(MPI_File_iread_shared(fh, rec, 2, MPI_INT, &r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS);
    CHECK(count == 0); /* past the end */

    /* ordered: rank r writes r + 1 ints of value r, after the records */
    CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_END) == MPI_SUCCESS);
    CHECK(MPI_File_get_position_shared(fh, &pos) == MPI_SUCCESS &&
          pos == (MPI_Offset)RECS * LEN * size);
    int vals[64];
    for (int k = 0; k <= rank; k++) vals[k] = rank;
    CHECK(MPI_File_write_ordered(fh, vals, rank + 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    MPI_Offset end = (MPI_Offset)RECS * LEN * size + 4 * (MPI_Offset)size * (size + 1) / 2;
    CHECK(MPI_File_get_position_shared(fh, &pos) == MPI_SUCCESS && pos == end);
    /* read back ordered from the ordered start: each rank its own values */
    CHECK(MPI_File_seek_shared(fh, (MPI_Offset)RECS * LEN * size, MPI_SEEK_SET) == MPI_SUCCESS);
    memset(vals, 0xff, sizeof vals);
    CHECK(MPI_File_read_ordered(fh, vals, rank + 1, MPI_INT, &st) == MPI_SUCCESS);
    for (int k = 0; k <= rank; k++) CHECK(vals[k] == rank);
    if (rank == 0) {
        int n = size * (size + 1) / 2, *all = malloc((size_t)n * sizeof *all), k = 0;
        CHECK(MPI_File_read_at(fh, (MPI_Offset)RECS * LEN * size, all, n, MPI_INT,
                               MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int p = 0; p < size; p++)
            for (int j = 0; j <= p; j++) CHECK(all[k++] == p);
        free(all);
    }
    /* the split ordered forms */
    CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_END) == MPI_SUCCESS);
    CHECK(MPI_File_write_ordered_begin(fh, vals, 1, MPI_INT) == MPI_SUCCESS);
    CHECK(class_of(MPI_File_write_ordered_begin(fh, vals, 1, MPI_INT)) == MPI_ERR_OTHER);
    CHECK(MPI_File_write_ordered_end(fh, vals, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS && count == 1);
    CHECK(class_of(MPI_File_write_ordered_end(fh, vals, &st)) == MPI_ERR_OTHER);
    CHECK(MPI_File_seek_shared(fh, end, MPI_SEEK_SET) == MPI_SUCCESS);
    CHECK(MPI_File_read_ordered_begin_c(fh, vals, 1, MPI_INT) == MPI_SUCCESS);
    CHECK(MPI_File_read_ordered_end(fh, vals, &st) == MPI_SUCCESS && vals[0] == rank);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("sh"), MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Ordered access through collective buffering forced on (the automatic hint needs no
 * plan for it) and forced off, through a view of records of 3 ints every 5: rank r
 * writes r + 2 records in rank order, a rank with none among them, and each reads its
 * own back; rank 0 checks the file, the view's gaps untouched. */
static void ordered_hints(void) {
    static const char *const modes[] = {"enable", "disable", "automatic"};
    enum { REC = 3, STRIDE = 5 };
    for (int m = 0; m < 3; m++) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "romio_cb_write", modes[m]);
        MPI_Info_set(info, "romio_cb_read", modes[m]);
        MPI_File fh;
        CHECK(MPI_File_open(MPI_COMM_WORLD, path("ord"), MPI_MODE_RDWR | MPI_MODE_CREATE, info,
                            &fh) == MPI_SUCCESS);
        MPI_Datatype rec, tile;
        MPI_Type_contiguous(REC, MPI_INT, &rec);
        MPI_Type_create_resized(rec, 0, STRIDE * (MPI_Aint)sizeof(int), &tile);
        MPI_Type_commit(&tile);
        CHECK(MPI_File_set_view(fh, 0, MPI_INT, tile, "native", info) == MPI_SUCCESS);
        int mine = rank == 1 ? 0 : rank + 2, vals[64 * REC], n = 0; /* rank 1: nothing */
        for (int k = 0; k < mine * REC; k++) vals[k] = 1000 * rank + k;
        CHECK(MPI_File_write_ordered(fh, vals, mine * REC, MPI_INT, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS);
        CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS);
        memset(vals, 0xff, sizeof vals);
        MPI_Status st;
        CHECK(MPI_File_read_ordered(fh, vals, mine * REC, MPI_INT, &st) == MPI_SUCCESS);
        CHECK(MPI_Get_count(&st, MPI_INT, &n) == MPI_SUCCESS && n == mine * REC);
        for (int k = 0; k < mine * REC; k++) CHECK(vals[k] == 1000 * rank + k);
        CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
        if (rank == 0) { /* the records in rank order, every gap still a hole (zero) */
            int total = 0;
            for (int r = 0; r < size; r++) total += r == 1 ? 0 : r + 2;
            int *all = calloc((size_t)total * STRIDE, sizeof *all);
            MPI_File raw;
            CHECK(MPI_File_open(MPI_COMM_SELF, path("ord"), MPI_MODE_RDONLY, MPI_INFO_NULL, &raw) ==
                  MPI_SUCCESS);
            CHECK(MPI_File_read_at(raw, 0, all, total * STRIDE - (STRIDE - REC), MPI_INT, &st) ==
                  MPI_SUCCESS);
            CHECK(MPI_File_close(&raw) == MPI_SUCCESS);
            int at = 0;
            for (int r = 0; r < size; r++)
                for (int k = 0; k < (r == 1 ? 0 : r + 2) * REC; k++, at++) {
                    CHECK(all[at / REC * STRIDE + at % REC] == 1000 * r + k);
                    if (at % REC == REC - 1 && at / REC + 1 < total)
                        CHECK(all[at / REC * STRIDE + REC] == 0 &&
                              all[at / REC * STRIDE + REC + 1] == 0);
                }
            free(all);
            CHECK(MPI_File_delete(path("ord"), MPI_INFO_NULL) == MPI_SUCCESS);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Type_free(&tile);
        MPI_Type_free(&rec);
        MPI_Info_free(&info);
    }
}

/* SEQUENTIAL: only the shared pointer; MPI_DISPLACEMENT_CURRENT. APPEND: the pointers
 * start at the end. */
static void sequential_append(void) {
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("q"),
                        MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    int v = rank;
    CHECK(class_of(MPI_File_write(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE)) ==
          MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(class_of(MPI_File_write_at(fh, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE)) ==
          MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(class_of(MPI_File_seek(fh, 0, MPI_SEEK_SET)) == MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(MPI_File_write_ordered(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                            MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK(MPI_File_get_view(fh, &disp, &et, &ft, rep) == MPI_SUCCESS);
    CHECK(disp == 4 * (MPI_Offset)size && et == MPI_INT && ft == MPI_INT);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    /* DISPLACEMENT_CURRENT without SEQUENTIAL */
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("q"), MPI_MODE_RDWR | MPI_MODE_APPEND, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    MPI_Offset pos = -1;
    CHECK(MPI_File_get_position(fh, &pos) == MPI_SUCCESS && pos == 4 * (MPI_Offset)size);
    CHECK(MPI_File_get_position_shared(fh, &pos) == MPI_SUCCESS && pos == 4 * (MPI_Offset)size);
    CHECK(class_of(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                                     MPI_INFO_NULL)) == MPI_ERR_ARG);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("q"), MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The double buffering of MPI-4.1 section 14.9.1 with split collectives: compute into
 * one buffer while the other is written; then every collective form once. */
static void double_buffering(void) {
    enum { BUFSIZE = 64, STEPS = 6 };
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("db"), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    MPI_Datatype blocks;
    MPI_Type_vector(1, BUFSIZE, BUFSIZE * size, MPI_INT, &blocks);
    MPI_Datatype tile;
    MPI_Type_create_resized(blocks, 0, (MPI_Aint)BUFSIZE * size * sizeof(int), &tile);
    MPI_Type_commit(&tile);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * BUFSIZE * sizeof(int), MPI_INT, tile, "native",
                            MPI_INFO_NULL) == MPI_SUCCESS);
    int buffer[2][BUFSIZE], which = 0;
    MPI_Status st;
    for (int step = 0; step < STEPS; step++) {
        for (int k = 0; k < BUFSIZE; k++) buffer[which][k] = (step * size + rank) * 1000 + k;
        if (step > 0) CHECK(MPI_File_write_all_end(fh, buffer[!which], &st) == MPI_SUCCESS);
        CHECK(MPI_File_write_all_begin(fh, buffer[which], BUFSIZE, MPI_INT) == MPI_SUCCESS);
        which = !which;
    }
    CHECK(MPI_File_write_all_end(fh, buffer[!which], &st) == MPI_SUCCESS);
    /* read back: block s of rank r at ints (s * P + r) * BUFSIZE */
    int in[BUFSIZE];
    int peer = (rank + 1) % size;
    /* a zero-length split collective */
    int count = -1;
    CHECK(MPI_File_read_at_all_begin(fh, 0, in, 0, MPI_INT) == MPI_SUCCESS);
    CHECK(MPI_File_read_at_all_end(fh, in, &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS && count == 0);
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    for (int step = 0; step < STEPS; step++) {
        MPI_Offset at = ((MPI_Offset)step * size + peer) * BUFSIZE * sizeof(int);
        CHECK(MPI_File_read_at_all(fh, at, in, BUFSIZE, MPI_INT, &st) == MPI_SUCCESS);
        for (int k = 0; k < BUFSIZE; k++) CHECK(in[k] == (step * size + peer) * 1000 + k);
    }
    /* every other collective form once, each on its own block */
    MPI_Offset base = (MPI_Offset)STEPS * size * BUFSIZE * sizeof(int) + (MPI_Offset)rank * 64;
    int v[4] = {rank, rank + 1, rank + 2, rank + 3}, r[4];
    MPI_Request req;
    CHECK(MPI_File_write_at_all_begin(fh, base, v, 4, MPI_INT) == MPI_SUCCESS);
    CHECK(MPI_File_write_at_all_end(fh, v, &st) == MPI_SUCCESS);
    CHECK(MPI_File_iwrite_at_all(fh, base + 16, v, 4, MPI_INT, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_File_write_at_all_c(fh, base + 32, v, 4, MPI_INT, &st) == MPI_SUCCESS);
    CHECK(MPI_File_seek(fh, base + 48, MPI_SEEK_SET) == MPI_SUCCESS);
    CHECK(MPI_File_iwrite_all(fh, v, 4, MPI_INT, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int blk = 0; blk < 4; blk++) {
        memset(r, 0, sizeof r);
        if (blk == 0) {
            CHECK(MPI_File_iread_at_all(fh, base, r, 4, MPI_INT, &req) == MPI_SUCCESS);
            CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        } else if (blk == 1) {
            CHECK(MPI_File_read_at_all_c(fh, base + 16, r, 4, MPI_INT, &st) == MPI_SUCCESS);
        } else if (blk == 2) {
            CHECK(MPI_File_seek(fh, base + 32, MPI_SEEK_SET) == MPI_SUCCESS);
            CHECK(MPI_File_read_all_begin(fh, r, 4, MPI_INT) == MPI_SUCCESS);
            CHECK(MPI_File_read_all_end(fh, r, &st) == MPI_SUCCESS);
        } else {
            CHECK(MPI_File_seek(fh, base + 48, MPI_SEEK_SET) == MPI_SUCCESS);
            CHECK(MPI_File_iread_all(fh, r, 4, MPI_INT, &req) == MPI_SUCCESS);
            CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        }
        for (int k = 0; k < 4; k++) CHECK(r[k] == rank + k);
    }
    CHECK(MPI_File_seek(fh, base, MPI_SEEK_SET) == MPI_SUCCESS);
    CHECK(MPI_File_read_all(fh, r, 4, MPI_INT, &st) == MPI_SUCCESS && r[3] == rank + 3);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Type_free(&blocks);
    MPI_Type_free(&tile);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("db"), MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make("io");

    open_modes();
    size_info_atomicity();
    error_handlers();
    interleaved();
    odd_views();
    illegal_view_types();
    big_offsets();
    shared_pointer();
    ordered_hints();
    sequential_append();
    double_buffering();

    io_dir_remove(); /* every test removed its files */
    if (rank == 0) printf("io: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
