/* Data representations of MPI-IO (MPI-4.1 section 14.5): external32 views of types
 * whose external32 size is not their native one (MPI_LONG, long double, a struct of
 * mixed types) through contiguous and strided views, the file bytes checked against
 * the big-endian external32 layout; a program's representation (MPI_Register_datarep
 * and _c: ints as 8-byte big-endian) with its conversion functions called with the
 * standard's arguments, positions past 0 when an access is split, the extent function,
 * MPI_CONVERSION_FN_NULL; and the errors. Runs on any number of ranks. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_check.h"

static uint64_t be(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int k = 0; k < n; k++) v = v << 8 | p[k];
    return v;
}

/* The whole file, read natively by bytes (every rank). */
static unsigned char *file_bytes(MPI_File fh, MPI_Offset *len) {
    MPI_Status st;
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
    CHECK(MPI_File_get_size(fh, len) == MPI_SUCCESS);
    unsigned char *raw = malloc((size_t)*len + 1);
    CHECK(raw);
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    CHECK(MPI_File_read_at(fh, 0, raw, (int)*len, MPI_BYTE, &st) == MPI_SUCCESS);
    int got = -1;
    MPI_Get_count(&st, MPI_BYTE, &got);
    CHECK(got == *len);
    return raw;
}

static long long_value(int r, int i) {
    return (i % 2 ? -1L : 1L) * (long)(r * 100000 + i * 7 + 1);
}

/* MPI_LONG: 4 bytes in external32. A contiguous view, then one strided across ranks
 * (a vector of the etype: its stride scales to the file's sizes). */
static void external32_long(void) {
    enum { N = 50 };
    MPI_File fh;
    MPI_Status st;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("long"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    long out[N], in[N];
    for (int i = 0; i < N; i++) out[i] = long_value(rank, i);
    CHECK(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_Aint ext = 0;
    CHECK(MPI_File_get_type_extent(fh, MPI_LONG, &ext) == MPI_SUCCESS && ext == 4);
    CHECK(MPI_File_write_at_all(fh, (MPI_Offset)rank * N, out, N, MPI_LONG, &st) == MPI_SUCCESS);
    int got = -1;
    MPI_Get_count(&st, MPI_LONG, &got);
    CHECK(got == N); /* counted in the memory type's items */
    memset(in, 0, sizeof in);
    CHECK(MPI_File_read_at_all(fh, (MPI_Offset)rank * N, in, N, MPI_LONG, &st) == MPI_SUCCESS);
    CHECK(memcmp(in, out, sizeof in) == 0);
    /* the individual pointer moves by etypes of the view */
    CHECK(MPI_File_seek(fh, (MPI_Offset)rank * N + 3, MPI_SEEK_SET) == MPI_SUCCESS);
    long one = 0;
    CHECK(MPI_File_read(fh, &one, 1, MPI_LONG, &st) == MPI_SUCCESS && one == out[3]);
    MPI_Offset where = 0, byte = 0;
    CHECK(MPI_File_get_position(fh, &where) == MPI_SUCCESS && where == (MPI_Offset)rank * N + 4);
    CHECK(MPI_File_get_byte_offset(fh, where, &byte) == MPI_SUCCESS && byte == where * 4);
    /* non-blocking accesses convert too (done at the call, the request complete) */
    MPI_Request req;
    long again[N];
    for (int i = 0; i < N; i++) again[i] = -out[i];
    CHECK(MPI_File_iwrite_at(fh, (MPI_Offset)rank * N, again, N, MPI_LONG, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && MPI_Get_count(&st, MPI_LONG, &got) == 0 &&
          got == N);
    memset(in, 0, sizeof in);
    CHECK(MPI_File_iread_at(fh, (MPI_Offset)rank * N, in, N, MPI_LONG, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS && memcmp(in, again, sizeof in) == 0);
    CHECK(MPI_File_write_at(fh, (MPI_Offset)rank * N, out, N, MPI_LONG, &st) == MPI_SUCCESS);
    /* a value that does not fit 4 bytes */
    long big = (long)1 << 40;
    CHECK(class_of(MPI_File_write_at(fh, 0, &big, 1, MPI_LONG, &st)) == MPI_ERR_CONVERSION);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset len;
    unsigned char *raw = file_bytes(fh, &len);
    CHECK(len == (MPI_Offset)size * N * 4);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            CHECK((int32_t)(uint32_t)be(raw + ((size_t)r * N + i) * 4, 4) == long_value(r, i));
    free(raw);
    MPI_Barrier(MPI_COMM_WORLD);

    /* strided: long i of rank r at file long i * size + r */
    MPI_Datatype strided;
    MPI_Type_vector(N, 1, size, MPI_LONG, &strided);
    MPI_Type_commit(&strided);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * 4, MPI_LONG, strided, "external32",
                            MPI_INFO_NULL) == MPI_SUCCESS);
    CHECK(MPI_File_get_type_extent(fh, strided, &ext) == MPI_SUCCESS &&
          ext == (MPI_Aint)((N - 1) * size + 1) * 4);
    for (int i = 0; i < N; i++) out[i] = long_value(rank + 7, i);
    CHECK(MPI_File_write_all(fh, out, N, MPI_LONG, &st) == MPI_SUCCESS);
    memset(in, 0, sizeof in);
    CHECK(MPI_File_read_at_all(fh, 0, in, N, MPI_LONG, &st) == MPI_SUCCESS);
    CHECK(memcmp(in, out, sizeof in) == 0);
    /* a strided memory type too: every other long */
    MPI_Datatype every_other;
    MPI_Type_vector(N / 2, 1, 2, MPI_LONG, &every_other);
    MPI_Type_commit(&every_other);
    memset(in, 0, sizeof in);
    CHECK(MPI_File_read_at(fh, 0, in, 1, every_other, &st) == MPI_SUCCESS);
    for (int i = 0; i < N; i++) CHECK(in[i] == (i % 2 ? 0 : out[i / 2]));
    MPI_Barrier(MPI_COMM_WORLD);
    raw = file_bytes(fh, &len);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            CHECK((int32_t)(uint32_t)be(raw + ((size_t)i * size + r) * 4, 4) ==
                  long_value(r + 7, i));
    free(raw);
    MPI_Type_free(&strided);
    MPI_Type_free(&every_other);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("long"), MPI_INFO_NULL) == MPI_SUCCESS);
}

/* long double: IEEE binary128, big-endian, in external32. */
static void external32_long_double(void) {
    MPI_File fh;
    MPI_Status st;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("ld"), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    long double out[3] = {1.5L, -2.25L, (long double)(rank + 1)}, in[3] = {0, 0, 0};
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * 48, MPI_LONG_DOUBLE, MPI_LONG_DOUBLE,
                            "external32", MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_Aint ext = 0;
    CHECK(MPI_File_get_type_extent(fh, MPI_LONG_DOUBLE, &ext) == MPI_SUCCESS && ext == 16);
    CHECK(MPI_File_write_at(fh, 0, out, 3, MPI_LONG_DOUBLE, &st) == MPI_SUCCESS);
    CHECK(MPI_File_read_at(fh, 0, in, 3, MPI_LONG_DOUBLE, &st) == MPI_SUCCESS);
    CHECK(in[0] == out[0] && in[1] == out[1] && in[2] == out[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset len;
    unsigned char *raw = file_bytes(fh, &len);
    CHECK(len == (MPI_Offset)size * 48);
    for (int r = 0; r < size; r++) {
        const unsigned char *p = raw + r * 48;
        /* 1.5: exponent 0x3fff, fraction .1; -2.25: sign, 0x4000, .001 */
        CHECK(be(p, 8) == 0x3fff800000000000ull && be(p + 8, 8) == 0);
        CHECK(be(p + 16, 8) == 0xc000200000000000ull && be(p + 24, 8) == 0);
    }
    free(raw);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("ld"), MPI_INFO_NULL) == MPI_SUCCESS);
}

typedef struct rec {
    int a;
    double b;
    long c;
    char d;
} rec_t;

static rec_t rec_value(int r, int i) {
    return (rec_t){.a = -(r * 1000 + i), .b = i + 0.5, .c = r * 10 + i, .d = (char)('a' + i)};
}

/* A struct of mixed types: 17 bytes in external32 (int 4, double 8, long 4, char 1),
 * through a stream of bytes and through a filetype of the records' file layout that
 * interleaves the ranks (byte displacements, as the file has them). */
static void external32_struct(void) {
    enum { N = 20, REC = 17 };
    MPI_File fh;
    MPI_Status st;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("rec"), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    int lens[4] = {1, 1, 1, 1};
    MPI_Datatype types[4] = {MPI_INT, MPI_DOUBLE, MPI_LONG, MPI_CHAR}, memtype, filetype, loose;
    MPI_Aint mem_disp[4] = {offsetof(rec_t, a), offsetof(rec_t, b), offsetof(rec_t, c),
                            offsetof(rec_t, d)};
    MPI_Type_create_struct(4, lens, mem_disp, types, &loose);
    MPI_Type_create_resized(loose, 0, sizeof(rec_t), &memtype);
    MPI_Type_commit(&memtype);
    MPI_Type_free(&loose);
    rec_t out[N], in[N];
    memset(out, 0, sizeof out);
    for (int i = 0; i < N; i++) out[i] = rec_value(rank, i);

    /* a stream of bytes: record i of rank r at (r * N + i) * 17 */
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * N * REC, MPI_BYTE, MPI_BYTE, "external32",
                            MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_Aint ext = 0;
    CHECK(MPI_File_get_type_extent(fh, memtype, &ext) == MPI_SUCCESS && ext == sizeof(rec_t));
    CHECK(MPI_File_write_at_all(fh, 0, out, N, memtype, &st) == MPI_SUCCESS);
    memset(in, 0, sizeof in);
    CHECK(MPI_File_read_at_all(fh, 0, in, N, memtype, &st) == MPI_SUCCESS);
    int got = -1;
    MPI_Get_count(&st, memtype, &got);
    CHECK(got == N);
    for (int i = 0; i < N; i++)
        CHECK(in[i].a == out[i].a && in[i].b == out[i].b && in[i].c == out[i].c &&
              in[i].d == out[i].d);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset len;
    unsigned char *raw = file_bytes(fh, &len);
    CHECK(len == (MPI_Offset)size * N * REC);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++) {
            const unsigned char *p = raw + ((size_t)r * N + i) * REC;
            rec_t v = rec_value(r, i);
            double b;
            uint64_t bits = be(p + 4, 8);
            memcpy(&b, &bits, 8);
            CHECK((int32_t)(uint32_t)be(p, 4) == v.a && b == v.b);
            CHECK((int32_t)(uint32_t)be(p + 12, 4) == v.c && p[16] == (unsigned char)v.d);
        }
    free(raw);
    MPI_Barrier(MPI_COMM_WORLD);

    /* the records' file layout, one per rank per tile: record i of rank r at
     * (i * size + r) * 17 */
    MPI_Aint file_disp[4] = {0, 4, 12, 16};
    MPI_Type_create_struct(4, lens, file_disp, types, &loose);
    MPI_Type_create_resized(loose, 0, (MPI_Aint)size * REC, &filetype);
    MPI_Type_commit(&filetype);
    MPI_Type_free(&loose);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * REC, memtype, filetype, "external32",
                            MPI_INFO_NULL) == MPI_SUCCESS);
    CHECK(MPI_File_get_type_extent(fh, filetype, &ext) == MPI_SUCCESS &&
          ext == (MPI_Aint)size * REC);
    for (int i = 0; i < N; i++) out[i] = rec_value(rank + 3, i);
    CHECK(MPI_File_write_all(fh, out, N, memtype, &st) == MPI_SUCCESS);
    memset(in, 0, sizeof in);
    CHECK(MPI_File_read_at_all(fh, 0, in, N, memtype, &st) == MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(in[i].a == out[i].a && in[i].b == out[i].b && in[i].c == out[i].c &&
              in[i].d == out[i].d);
    MPI_Barrier(MPI_COMM_WORLD);
    raw = file_bytes(fh, &len);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++) {
            const unsigned char *p = raw + ((size_t)i * size + r) * REC;
            rec_t v = rec_value(r + 3, i);
            CHECK((int32_t)(uint32_t)be(p, 4) == v.a && (int32_t)(uint32_t)be(p + 12, 4) == v.c);
            CHECK(p[16] == (unsigned char)v.d);
        }
    free(raw);
    MPI_Type_free(&memtype);
    MPI_Type_free(&filetype);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("rec"), MPI_INFO_NULL) == MPI_SUCCESS);
}

/* ---- a program's representation: MPI_INT as 8-byte big-endian ---- */

typedef struct calls {
    int reads, writes, extents, fail;
    MPI_Offset last_position, max_position;
    long long items; /* converted, in all */
} calls_t;

static calls_t calls;

static int int8_extent(MPI_Datatype type, MPI_Aint *extent, void *state) {
    CHECK(state == &calls);
    calls.extents++;
    if (type == MPI_INT) {
        *extent = 8;
        return MPI_SUCCESS;
    }
    return MPI_ERR_TYPE; /* only ints are stored */
}

/* Item k of the tiled datatype: the program's types here are ints at a fixed stride
 * (MPI_INT, or an int resized to 8 bytes). */
static int *int_at(void *userbuf, MPI_Datatype type, MPI_Offset k) {
    MPI_Aint lb, extent;
    MPI_Type_get_extent(type, &lb, &extent);
    return (int *)((char *)userbuf + k * extent);
}

static int convert(void *userbuf, MPI_Datatype type, MPI_Count count, void *filebuf,
                   MPI_Offset position, void *state, int write) {
    CHECK(state == &calls);
    CHECK(count > 0 && position >= 0);
    if (calls.fail) return MPI_ERR_OTHER;
    if (write)
        calls.writes++;
    else
        calls.reads++;
    calls.last_position = position;
    if (position > calls.max_position) calls.max_position = position;
    calls.items += count;
    unsigned char *f = filebuf;
    for (MPI_Count k = 0; k < count; k++, f += 8) {
        int *u = int_at(userbuf, type, position + k);
        if (write) {
            uint64_t v = (uint64_t)(int64_t)*u;
            for (int j = 7; j >= 0; j--, v >>= 8) f[j] = (unsigned char)v;
        } else {
            *u = (int)(int64_t)be(f, 8);
        }
    }
    return MPI_SUCCESS;
}

static int int8_read(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                     MPI_Offset position, void *state) {
    return convert(userbuf, type, count, filebuf, position, state, 0);
}
static int int8_write(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                      MPI_Offset position, void *state) {
    return convert(userbuf, type, count, filebuf, position, state, 1);
}
static int int8_read_c(void *userbuf, MPI_Datatype type, MPI_Count count, void *filebuf,
                       MPI_Offset position, void *state) {
    return convert(userbuf, type, count, filebuf, position, state, 0);
}
static int int8_write_c(void *userbuf, MPI_Datatype type, MPI_Count count, void *filebuf,
                        MPI_Offset position, void *state) {
    return convert(userbuf, type, count, filebuf, position, state, 1);
}

/* A program's extent function that answers an extent of 0 or -8: refused at the view
 * or the access, never used to size anything. */
static int bad_extent(MPI_Datatype type, MPI_Aint *extent, void *state) {
    (void)type;
    *extent = *(MPI_Aint *)state;
    return MPI_SUCCESS;
}

static int native_extent(MPI_Datatype type, MPI_Aint *extent, void *state) {
    (void)state;
    MPI_Aint lb;
    return MPI_Type_get_extent(type, &lb, extent);
}

static int int_value(int r, int i) {
    return (i % 3 ? 1 : -1) * (r * 1000003 + i);
}

/* One representation through int-form or large-count functions: a strided view that
 * interleaves the ranks (or one block a rank), accesses split into chunks (positions
 * past 0), a strided memory type, the file's bytes. */
static void int8_views(const char *datarep, int n, int buffer_size, int interleave) {
    MPI_File fh;
    MPI_Status st;
    MPI_Info info;
    MPI_Info_create(&info);
    char value[32];
    snprintf(value, sizeof value, "%d", buffer_size);
    MPI_Info_set(info, "tw_datarep_buffer_size", value);
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("int8"), MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) ==
          MPI_SUCCESS);
    MPI_Info_free(&info);
    MPI_Datatype strided, spread;
    int stride = interleave ? size : 1;
    MPI_Offset first = interleave ? (MPI_Offset)rank * 8 : (MPI_Offset)rank * n * 8;
    MPI_Type_vector(n, 1, stride, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    CHECK(MPI_File_set_view(fh, first, MPI_INT, strided, datarep, MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_Aint ext = 0;
    CHECK(MPI_File_get_type_extent(fh, MPI_INT, &ext) == MPI_SUCCESS && ext == 8);
    CHECK(MPI_File_get_type_extent(fh, strided, &ext) == MPI_SUCCESS &&
          ext == (MPI_Aint)((n - 1) * stride + 1) * 8);
    char got_rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype et, ft;
    CHECK(MPI_File_get_view(fh, &disp, &et, &ft, got_rep) == MPI_SUCCESS);
    CHECK(!strcmp(got_rep, datarep) && disp == first);
    MPI_Type_free(&ft);
    int *out = malloc((size_t)n * sizeof *out), *in = calloc((size_t)n * 2, sizeof *in);
    CHECK(out && in);
    for (int i = 0; i < n; i++) out[i] = int_value(rank, i);
    int per_chunk = buffer_size / 8, chunks = (n + per_chunk - 1) / per_chunk;
    memset(&calls, 0, sizeof calls);
    CHECK(MPI_File_write_all(fh, out, n, MPI_INT, &st) == MPI_SUCCESS);
    CHECK(calls.writes == chunks && calls.items == n);
    CHECK(calls.max_position == (MPI_Offset)(chunks - 1) * per_chunk);
    int got = -1;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == n);
    /* read back into every other int */
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spread);
    MPI_Type_commit(&spread);
    memset(&calls, 0, sizeof calls);
    CHECK(MPI_File_read_at_all(fh, 0, in, n, spread, &st) == MPI_SUCCESS);
    CHECK(calls.reads == chunks && calls.items == n);
    for (int i = 0; i < n; i++) CHECK(in[2 * i] == out[i] && in[2 * i + 1] == 0);
    MPI_Get_count(&st, spread, &got);
    CHECK(got == n);
    /* a conversion function's error */
    calls.fail = 1;
    CHECK(class_of(MPI_File_read_at(fh, 0, in, 1, MPI_INT, &st)) == MPI_ERR_CONVERSION);
    CHECK(class_of(MPI_File_write_at(fh, 0, in, 1, MPI_INT, &st)) == MPI_ERR_CONVERSION);
    calls.fail = 0;
    /* a type the extent function refuses */
    double dbl = 1;
    CHECK(class_of(MPI_File_write_at(fh, 0, &dbl, 1, MPI_DOUBLE, &st)) == MPI_ERR_CONVERSION);
    /* reading past the end: the items read whole (the last rank's tiles end the file;
     * the others' next tile holds the next ranks' ints) */
    MPI_Barrier(MPI_COMM_WORLD);
    memset(in, 0, (size_t)n * 2 * sizeof *in);
    CHECK(MPI_File_read_at(fh, n - 2, in, 5, MPI_INT, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(in[0] == out[n - 2] && in[1] == out[n - 1]);
    if (rank == size - 1) CHECK(got == 2 && in[2] == 0);
    if (rank < size - 1) /* interleaved: one tile more, of 1 int before the file's end */
        CHECK(got == (interleave ? 3 : 5) && in[2] == int_value(rank + 1, interleave ? n - 1 : 0));
    MPI_Offset len;
    unsigned char *raw = file_bytes(fh, &len);
    CHECK(len == (MPI_Offset)n * size * 8);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < n; i++)
            CHECK((int64_t)be(raw + (interleave ? (size_t)i * size + r : (size_t)r * n + i) * 8,
                              8) == int_value(r, i));
    free(raw);
    free(out);
    free(in);
    MPI_Type_free(&strided);
    MPI_Type_free(&spread);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("int8"), MPI_INFO_NULL) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void user_datarep(void) {
    CHECK(MPI_Register_datarep("int8be", int8_read, int8_write, int8_extent, &calls) ==
          MPI_SUCCESS);
    CHECK(MPI_Register_datarep_c("int8be_c", int8_read_c, int8_write_c, int8_extent, &calls) ==
          MPI_SUCCESS);
    /* 100 ints, 8 a chunk: 13 calls, the last at position 96 */
    int8_views("int8be", 100, 64, 1);
    int8_views("int8be_c", 100, 64, 1);
    /* the default buffer (4 MiB): 600000 ints are two chunks */
    int8_views("int8be_c", 600000, 4 << 20, 0);

    /* MPI_CONVERSION_FN_NULL: the data moved as they are, in the extent function's sizes */
    CHECK(MPI_Register_datarep("as-is", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                               native_extent, NULL) == MPI_SUCCESS);
    CHECK(MPI_Register_datarep_c("as-is-but-wide", MPI_CONVERSION_FN_NULL_C,
                                 MPI_CONVERSION_FN_NULL_C, int8_extent, &calls) == MPI_SUCCESS);
    MPI_File fh;
    MPI_Status st;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("asis"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * 12, MPI_INT, MPI_INT, "as-is", MPI_INFO_NULL) ==
          MPI_SUCCESS);
    int v[3] = {rank, -rank, 0x01020304}, w[3] = {0, 0, 0};
    CHECK(MPI_File_write_at(fh, 0, v, 3, MPI_INT, &st) == MPI_SUCCESS);
    CHECK(MPI_File_read_at(fh, 0, w, 3, MPI_INT, &st) == MPI_SUCCESS);
    CHECK(memcmp(v, w, sizeof v) == 0);
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS);
    memset(w, 0, sizeof w);
    CHECK(MPI_File_read_at(fh, (MPI_Offset)rank * 12, w, 3, MPI_INT, &st) == MPI_SUCCESS);
    CHECK(memcmp(v, w, sizeof v) == 0);
    /* moved as they are, an int cannot fill 8 bytes */
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "as-is-but-wide", MPI_INFO_NULL) ==
          MPI_SUCCESS);
    CHECK(class_of(MPI_File_write_at(fh, 0, v, 3, MPI_INT, &st)) == MPI_ERR_CONVERSION);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("asis"), MPI_INFO_NULL) == MPI_SUCCESS);
}

static void errors(void) {
    /* names defined already: a registered one, and the standard's */
    CHECK(class_of(MPI_Register_datarep("int8be", int8_read, int8_write, int8_extent, &calls)) ==
          MPI_ERR_DUP_DATAREP);
    CHECK(class_of(MPI_Register_datarep_c("int8be", int8_read_c, int8_write_c, int8_extent,
                                          NULL)) == MPI_ERR_DUP_DATAREP);
    const char *standard[3] = {"native", "internal", "external32"};
    for (int k = 0; k < 3; k++)
        CHECK(class_of(MPI_Register_datarep(standard[k], NULL, NULL, native_extent, NULL)) ==
              MPI_ERR_DUP_DATAREP);
    /* bad arguments */
    char long_name[MPI_MAX_DATAREP_STRING + 1];
    memset(long_name, 'x', MPI_MAX_DATAREP_STRING);
    long_name[MPI_MAX_DATAREP_STRING] = 0;
    CHECK(class_of(MPI_Register_datarep(NULL, NULL, NULL, native_extent, NULL)) == MPI_ERR_ARG);
    CHECK(class_of(MPI_Register_datarep("", NULL, NULL, native_extent, NULL)) == MPI_ERR_ARG);
    CHECK(class_of(MPI_Register_datarep(long_name, NULL, NULL, native_extent, NULL)) ==
          MPI_ERR_ARG);
    CHECK(class_of(MPI_Register_datarep("no-extent", NULL, NULL, NULL, NULL)) == MPI_ERR_ARG);
    /* an unknown name at the view, on every rank */
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("err"), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    CHECK(class_of(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL)) ==
          MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK(class_of(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-extent", MPI_INFO_NULL)) ==
          MPI_ERR_UNSUPPORTED_DATAREP);
    /* an extent function that answers a size that is not positive */
    static MPI_Aint zero = 0, negative = -8;
    CHECK(MPI_Register_datarep("zero-extent", NULL, NULL, bad_extent, &zero) == MPI_SUCCESS);
    CHECK(MPI_Register_datarep("negative-extent", NULL, NULL, bad_extent, &negative) ==
          MPI_SUCCESS);
    const char *bad[2] = {"zero-extent", "negative-extent"};
    for (int k = 0; k < 2; k++) {
        int rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, bad[k], MPI_INFO_NULL);
        if (rc == MPI_SUCCESS) { /* then the access refuses it */
            int v = 7;
            rc = MPI_File_write_at(fh, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
            CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) ==
                  MPI_SUCCESS);
        }
        CHECK(class_of(rc) == MPI_ERR_CONVERSION);
    }
    MPI_Offset size_now = -1;
    CHECK(MPI_File_get_size(fh, &size_now) == MPI_SUCCESS && size_now == 0); /* nothing written */
    /* the view stays native */
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype et, ft;
    CHECK(MPI_File_get_view(fh, &disp, &et, &ft, rep) == MPI_SUCCESS && !strcmp(rep, "native"));
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("err"), MPI_INFO_NULL) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make("io_datarep");

    external32_long();
    external32_long_double();
    external32_struct();
    user_datarep();
    errors();

    io_dir_remove(); /* every test removed its files */
    if (rank == 0) printf("io_datarep: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
