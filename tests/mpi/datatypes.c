/* external32 packing against big-endian bytes computed by hand, round trips of
 * derived types through it, the f90 type calls and MPI_Type_match_size, the Fortran
 * types in sends and reductions, and the MPI-1 type calls. Runs on any number of
 * ranks; errors are checked under MPI_ERRORS_RETURN. */
#include <complex.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "mpi_check.h"

static const char *X32 = "external32";

/* count items of type at buf pack to exactly the n bytes want, and back */
static void image(const void *buf, int count, MPI_Datatype type, const unsigned char *want, int n) {
    unsigned char out[256];
    MPI_Aint bytes = -1, pos = 0;
    CHECK(MPI_Pack_external_size(X32, count, type, &bytes) == MPI_SUCCESS && bytes == n);
    memset(out, 0xee, sizeof out);
    CHECK(MPI_Pack_external(X32, buf, count, type, out, sizeof out, &pos) == MPI_SUCCESS);
    CHECK(pos == n);
    for (int k = 0; k < n; k++) {
        if (out[k] != want[k]) fprintf(stderr, "byte %d: %02x, not %02x\n", k, out[k], want[k]);
        CHECK(out[k] == want[k]);
    }
    CHECK(out[n] == 0xee); /* nothing beyond */
    /* back: the same bytes unpacked give the same values */
    MPI_Aint lb, extent;
    CHECK(MPI_Type_get_extent(type, &lb, &extent) == MPI_SUCCESS);
    unsigned char back[256];
    memset(back, 0, sizeof back);
    pos = 0;
    CHECK(MPI_Unpack_external(X32, out, n, &pos, back, count, type) == MPI_SUCCESS && pos == n);
    unsigned char again[256];
    pos = 0;
    CHECK(MPI_Pack_external(X32, back, count, type, again, sizeof again, &pos) == MPI_SUCCESS);
    CHECK(pos == n && !memcmp(again, want, (size_t)n));
}

static void external32_images(void) {
    int ints[2] = {1, -2};
    image(ints, 2, MPI_INT, (const unsigned char[]){0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe}, 8);
    short s = 0x1234;
    image(&s, 1, MPI_SHORT, (const unsigned char[]){0x12, 0x34}, 2);
    unsigned u = 0xdeadbeef;
    image(&u, 1, MPI_UNSIGNED, (const unsigned char[]){0xde, 0xad, 0xbe, 0xef}, 4);
    /* long is 4 bytes in external32 (MPI-3.1 table 13.2) */
    long l[2] = {0x12345678, -5};
    image(l, 2, MPI_LONG, (const unsigned char[]){0x12, 0x34, 0x56, 0x78, 0xff, 0xff, 0xff, 0xfb},
          8);
    long long ll = 0x0102030405060708LL;
    image(&ll, 1, MPI_LONG_LONG, (const unsigned char[]){1, 2, 3, 4, 5, 6, 7, 8}, 8);
    double d = 1.0;
    image(&d, 1, MPI_DOUBLE, (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 8);
    float f = -2.5f;
    image(&f, 1, MPI_FLOAT, (const unsigned char[]){0xc0, 0x20, 0, 0}, 4);
    /* long double: IEEE binary128; -3 = -1.1b * 2^1: exponent 16384, fraction 1000... */
    long double ld[2] = {1.0L, -3.0L};
    unsigned char ldw[32] = {0x3f, 0xff};
    ldw[16] = 0xc0, ldw[17] = 0x00, ldw[18] = 0x80;
    image(ld, 2, MPI_LONG_DOUBLE, ldw, 32);
    double _Complex z = 1.0 + 2.0 * I;
    image(&z, 1, MPI_C_DOUBLE_COMPLEX,
          (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0}, 16);
    /* a pair: its two members, no padding */
    struct {
        double v;
        int i;
    } di = {1.5, 7};
    image(&di, 1, MPI_DOUBLE_INT, (const unsigned char[]){0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7},
          12);
    struct {
        short v;
        int i;
    } si = {-1, 258};
    image(&si, 1, MPI_SHORT_INT, (const unsigned char[]){0xff, 0xff, 0, 0, 1, 2}, 6);
    wchar_t w = L'A';
    image(&w, 1, MPI_WCHAR, (const unsigned char[]){0, 0x41}, 2);
    int32_t fi[2] = {5, 1}; /* INTEGER, LOGICAL */
    image(&fi[0], 1, MPI_INTEGER, (const unsigned char[]){0, 0, 0, 5}, 4);
    image(&fi[1], 1, MPI_LOGICAL, (const unsigned char[]){0, 0, 0, 1}, 4);
    float fc[2] = {1.0f, -1.0f}; /* COMPLEX */
    image(fc, 1, MPI_COMPLEX, (const unsigned char[]){0x3f, 0x80, 0, 0, 0xbf, 0x80, 0, 0}, 8);
    char c[3] = "ab";
    image(c, 2, MPI_CHAR, (const unsigned char[]){'a', 'b'}, 2);
    uint16_t h[2] = {0x3c00, 0xc500}; /* binary16 1.0, -5.0; bfloat16 1.0, -2.0 */
    image(h, 2, MPIX_C_FLOAT16, (const unsigned char[]){0x3c, 0x00, 0xc5, 0x00}, 4);
    uint16_t bf[2] = {0x3f80, 0xc000};
    image(bf, 2, MPIX_BFLOAT16, (const unsigned char[]){0x3f, 0x80, 0xc0, 0x00}, 4);

    /* derived: a struct of char, int, double packs its members only, in order */
    struct cid {
        char c;
        int i;
        double d;
    } items[2] = {{'x', 0x01020304, 2.0}, {'y', -1, -0.5}};
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct cid, c), offsetof(struct cid, i), offsetof(struct cid, d)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE}, st;
    CHECK(MPI_Type_create_struct(3, bl, disp, types, &st) == MPI_SUCCESS);
    MPI_Aint bytes;
    CHECK(MPI_Pack_external_size(X32, 2, st, &bytes) == MPI_SUCCESS &&
          bytes == 26); /* uncommitted */
    unsigned char out[64];
    MPI_Aint pos = 0;
    CHECK(MPI_Pack_external(X32, items, 1, st, out, sizeof out, &pos) == MPI_ERR_TYPE);
    CHECK(MPI_Type_commit(&st) == MPI_SUCCESS);
    image(items, 2, st,
          (const unsigned char[]){'x', 1,    2,    3,    4,    0x40, 0,    0, 0, 0, 0, 0, 0,
                                  'y', 0xff, 0xff, 0xff, 0xff, 0xbf, 0xe0, 0, 0, 0, 0, 0, 0},
          26);
    /* a vector of shorts takes every other one */
    short sv[6] = {1, 2, 3, 4, 5, 6};
    MPI_Datatype vec;
    CHECK(MPI_Type_vector(3, 1, 2, MPI_SHORT, &vec) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&vec) == MPI_SUCCESS);
    image(sv, 1, vec, (const unsigned char[]){0, 1, 0, 3, 0, 5}, 6);

    /* one packed buffer built by two calls, read back by two */
    pos = 0;
    CHECK(MPI_Pack_external(X32, &s, 1, MPI_SHORT, out, sizeof out, &pos) == MPI_SUCCESS);
    CHECK(MPI_Pack_external(X32, items, 2, st, out, sizeof out, &pos) == MPI_SUCCESS);
    CHECK(pos == 28 && out[0] == 0x12 && out[2] == 'x' && out[15] == 'y');
    struct cid got[2];
    short s2 = 0;
    memset(got, 0, sizeof got);
    pos = 0;
    CHECK(MPI_Unpack_external(X32, out, 28, &pos, &s2, 1, MPI_SHORT) == MPI_SUCCESS);
    CHECK(MPI_Unpack_external(X32, out, 28, &pos, got, 2, st) == MPI_SUCCESS && pos == 28);
    CHECK(s2 == s && got[0].c == 'x' && got[0].i == 0x01020304 && got[0].d == 2.0);
    CHECK(got[1].c == 'y' && got[1].i == -1 && got[1].d == -0.5);

    /* errors */
    pos = 0;
    CHECK(MPI_Pack_external("native", ints, 1, MPI_INT, out, sizeof out, &pos) == MPI_ERR_ARG);
    CHECK(MPI_Pack_external(NULL, ints, 1, MPI_INT, out, sizeof out, &pos) == MPI_ERR_ARG);
    CHECK(MPI_Pack_external_size("internal", 1, MPI_INT, &bytes) == MPI_ERR_ARG);
    CHECK(MPI_Unpack_external("native", out, 4, &pos, ints, 1, MPI_INT) == MPI_ERR_ARG);
    CHECK(MPI_Pack_external(X32, ints, 2, MPI_INT, out, 7, &pos) == MPI_ERR_TRUNCATE && pos == 0);
    CHECK(MPI_Unpack_external(X32, out, 7, &pos, ints, 2, MPI_INT) == MPI_ERR_TRUNCATE);
    CHECK(MPI_Pack_external(X32, ints, -1, MPI_INT, out, sizeof out, &pos) == MPI_ERR_COUNT);
    CHECK(MPI_Pack_external(X32, ints, 1, MPI_DATATYPE_NULL, out, 64, &pos) == MPI_ERR_TYPE);
    CHECK(MPI_Pack_external_size(X32, 1, MPI_DATATYPE_NULL, &bytes) == MPI_ERR_TYPE);
    pos = 65;
    CHECK(MPI_Pack_external(X32, ints, 1, MPI_INT, out, 64, &pos) == MPI_ERR_ARG);
    pos = 0;
    CHECK(MPI_Pack_external(X32, ints, 1, MPI_INT, out, 64, NULL) == MPI_ERR_ARG);
    long big = 1L << 40; /* does not fit 4 bytes */
    CHECK(MPI_Pack_external(X32, &big, 1, MPI_LONG, out, 64, &pos) == MPI_ERR_CONVERSION);
    CHECK(pos == 0);
    MPI_Type_free(&st);
    MPI_Type_free(&vec);
}

/* a derived type of mixed members survives a round trip through external32 */
static void external32_round_trip(void) {
    typedef struct {
        long l;
        long double ld;
        float _Complex fz;
        struct {
            short v;
            int i;
        } pair;
        unsigned long long ull;
        signed char sc;
        uint16_t u16[3];
    } rec_t;
    enum { N = 5 };
    rec_t in[N], out[N];
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    for (int k = 0; k < N; k++) {
        in[k].l = -100000L * (k + 1);
        in[k].ld = 1.0L / 3.0L + k;
        in[k].fz = (float)k + 0.25f * I;
        in[k].pair.v = (short)(-k);
        in[k].pair.i = 1000 * k;
        in[k].ull = 0xfedcba9876543210ull + (unsigned)k;
        in[k].sc = (signed char)(-k - 1);
        for (int j = 0; j < 3; j++) in[k].u16[j] = (uint16_t)(60000 + k + j);
    }
    int bl[7] = {1, 1, 1, 1, 1, 1, 3};
    MPI_Aint disp[7] = {offsetof(rec_t, l),    offsetof(rec_t, ld),  offsetof(rec_t, fz),
                        offsetof(rec_t, pair), offsetof(rec_t, ull), offsetof(rec_t, sc),
                        offsetof(rec_t, u16)};
    MPI_Datatype types[7] = {MPI_LONG,      MPI_LONG_DOUBLE,        MPI_C_FLOAT_COMPLEX,
                             MPI_SHORT_INT, MPI_UNSIGNED_LONG_LONG, MPI_SIGNED_CHAR,
                             MPI_UINT16_T},
                 t, every_other;
    CHECK(MPI_Type_create_struct(7, bl, disp, types, &t) == MPI_SUCCESS);
    /* every other record, so the type is not contiguous */
    CHECK(MPI_Type_create_resized(t, 0, 2 * (MPI_Aint)sizeof(rec_t), &every_other) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&every_other) == MPI_SUCCESS);
    MPI_Aint bytes, pos = 0;
    int one = 4 + 16 + 8 + 6 + 8 + 1 + 6;
    CHECK(MPI_Pack_external_size(X32, 3, every_other, &bytes) == MPI_SUCCESS && bytes == 3 * one);
    unsigned char *buf = malloc((size_t)bytes);
    CHECK(MPI_Pack_external(X32, in, 3, every_other, buf, bytes, &pos) == MPI_SUCCESS);
    CHECK(pos == bytes);
    /* the first record's long, big-endian in 4 bytes: -100000 = 0xfffe7960 */
    CHECK(buf[0] == 0xff && buf[1] == 0xfe && buf[2] == 0x79 && buf[3] == 0x60);
    pos = 0;
    CHECK(MPI_Unpack_external(X32, buf, bytes, &pos, out, 3, every_other) == MPI_SUCCESS);
    for (int k = 0; k < N; k++) {
        if (k % 2) {
            CHECK(out[k].l == 0 && out[k].ull == 0); /* untouched */
            continue;
        }
        CHECK(out[k].l == in[k].l && out[k].ld == in[k].ld && out[k].fz == in[k].fz);
        CHECK(out[k].pair.v == in[k].pair.v && out[k].pair.i == in[k].pair.i);
        CHECK(out[k].ull == in[k].ull && out[k].sc == in[k].sc);
        CHECK(!memcmp(out[k].u16, in[k].u16, sizeof in[k].u16));
    }
    free(buf);
    MPI_Type_free(&t);
    MPI_Type_free(&every_other);
}

static void envelope(MPI_Datatype t, int combiner, int ni, const int *ints) {
    int a, b, c, comb, got[2];
    MPI_Datatype none;
    MPI_Aint addr;
    CHECK(MPI_Type_get_envelope(t, &a, &b, &c, &comb) == MPI_SUCCESS);
    CHECK(comb == combiner && a == ni && b == 0 && c == 0);
    CHECK(MPI_Type_get_contents(t, 2, 0, 0, got, &addr, &none) == MPI_SUCCESS);
    for (int k = 0; k < ni; k++) CHECK(got[k] == ints[k]);
}

static int size_of(MPI_Datatype t) {
    int s = -1;
    CHECK(MPI_Type_size(t, &s) == MPI_SUCCESS);
    return s;
}

static void f90(void) {
    MPI_Datatype t, t2;
    static const int ranges[][2] = {{1, 1}, {2, 1}, {3, 2},  {4, 2},
                                    {5, 4}, {9, 4}, {10, 8}, {18, 8}};
    for (size_t k = 0; k < sizeof ranges / sizeof *ranges; k++) {
        CHECK(MPI_Type_create_f90_integer(ranges[k][0], &t) == MPI_SUCCESS);
        CHECK(size_of(t) == ranges[k][1]);
        envelope(t, MPI_COMBINER_F90_INTEGER, 1, ranges[k]);
        CHECK(MPI_Type_create_f90_integer(ranges[k][0], &t2) == MPI_SUCCESS && t2 == t);
    }
    CHECK(MPI_Type_create_f90_integer(19, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_f90_integer(5, NULL) == MPI_ERR_ARG);
    /* predefined: not freed */
    CHECK(MPI_Type_create_f90_integer(9, &t) == MPI_SUCCESS);
    t2 = t;
    CHECK(MPI_Type_free(&t2) == MPI_ERR_TYPE && t2 == t);
    /* a duplicate's contents name the type itself, not a new handle to free */
    MPI_Datatype dup, inner;
    int ni, na, nd, comb;
    MPI_Aint none;
    CHECK(MPI_Type_dup(t, &dup) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(dup, &ni, &na, &nd, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_DUP && nd == 1);
    CHECK(MPI_Type_get_contents(dup, 0, 0, 1, &ni, &none, &inner) == MPI_SUCCESS && inner == t);
    CHECK(MPI_Type_free(&dup) == MPI_SUCCESS);
    /* usable at once, in a reduction: MPI_SUM over 4-byte integers */
    int32_t v[2] = {rank + 1, -rank}, sum[2];
    CHECK(MPI_Allreduce(v, sum, 2, t, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(sum[0] == size * (size + 1) / 2 && sum[1] == -size * (size - 1) / 2);

    /* reals: float has 6 digits and range 37, double 15 and 307, long double 18 and 4931 */
    static const int reals[][3] = {
        {6, MPI_UNDEFINED, 4}, {MPI_UNDEFINED, 37, 4},  {7, MPI_UNDEFINED, 8},    {6, 38, 8},
        {15, 307, 8},          {16, MPI_UNDEFINED, 16}, {MPI_UNDEFINED, 308, 16}, {18, 4931, 16}};
    for (size_t k = 0; k < sizeof reals / sizeof *reals; k++) {
        CHECK(MPI_Type_create_f90_real(reals[k][0], reals[k][1], &t) == MPI_SUCCESS);
        CHECK(size_of(t) == reals[k][2]);
        envelope(t, MPI_COMBINER_F90_REAL, 2, reals[k]);
        CHECK(MPI_Type_create_f90_complex(reals[k][0], reals[k][1], &t2) == MPI_SUCCESS);
        CHECK(size_of(t2) == 2 * reals[k][2] && t2 != t);
        envelope(t2, MPI_COMBINER_F90_COMPLEX, 2, reals[k]);
    }
    CHECK(MPI_Type_create_f90_real(19, MPI_UNDEFINED, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_f90_real(MPI_UNDEFINED, 5000, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_f90_complex(40, 10, &t) == MPI_ERR_ARG);
    /* a real kind's type in a reduction */
    CHECK(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t) == MPI_SUCCESS);
    double x = 0.5, y;
    CHECK(MPI_Allreduce(&x, &y, 1, t, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS && y == 0.5 * size);

    /* match_size */
    static const struct {
        int cls, size;
        MPI_Datatype want;
    } m[] = {
        {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},   {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
        {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},   {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
        {MPI_TYPECLASS_REAL, 4, MPI_REAL4},         {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
        {MPI_TYPECLASS_REAL, 16, MPI_REAL16},       {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},
        {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16}, {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32}};
    for (size_t k = 0; k < sizeof m / sizeof *m; k++) {
        CHECK(MPI_Type_match_size(m[k].cls, m[k].size, &t) == MPI_SUCCESS && t == m[k].want);
        CHECK(size_of(t) == m[k].size);
    }
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 2, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 4, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_match_size(99, 4, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, NULL) == MPI_ERR_ARG);
    /* the one handle of two synonyms is named as MPICH names it */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK(MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX);
    CHECK(MPI_Type_get_name(MPI_C_COMPLEX, name, &len) == MPI_SUCCESS &&
          !strcmp(name, "MPI_C_COMPLEX") && len == 13);
}

static void fortran_types(void) {
    static const struct {
        MPI_Datatype t;
        int size;
        const char *name;
    } table[] = {
        {MPI_CHARACTER, 1, "MPI_CHARACTER"},
        {MPI_LOGICAL, 4, "MPI_LOGICAL"},
        {MPI_INTEGER, 4, "MPI_INTEGER"},
        {MPI_REAL, 4, "MPI_REAL"},
        {MPI_DOUBLE_PRECISION, 8, "MPI_DOUBLE_PRECISION"},
        {MPI_COMPLEX, 8, "MPI_COMPLEX"},
        {MPI_DOUBLE_COMPLEX, 16, "MPI_DOUBLE_COMPLEX"},
        {MPI_INTEGER1, 1, "MPI_INTEGER1"},
        {MPI_INTEGER2, 2, "MPI_INTEGER2"},
        {MPI_INTEGER4, 4, "MPI_INTEGER4"},
        {MPI_INTEGER8, 8, "MPI_INTEGER8"},
        {MPI_REAL4, 4, "MPI_REAL4"},
        {MPI_REAL8, 8, "MPI_REAL8"},
        {MPI_REAL16, 16, "MPI_REAL16"},
        {MPI_COMPLEX8, 8, "MPI_COMPLEX8"},
        {MPI_COMPLEX16, 16, "MPI_COMPLEX16"},
        {MPI_COMPLEX32, 32, "MPI_COMPLEX32"},
        {MPI_2REAL, 8, "MPI_2REAL"},
        {MPI_2DOUBLE_PRECISION, 16, "MPI_2DOUBLE_PRECISION"},
        {MPI_2INTEGER, 8, "MPI_2INTEGER"},
    };
    for (size_t k = 0; k < sizeof table / sizeof *table; k++) {
        char name[MPI_MAX_OBJECT_NAME];
        int len, comb, a, b, c;
        MPI_Aint lb, extent;
        CHECK(size_of(table[k].t) == table[k].size);
        CHECK(MPI_Type_get_extent(table[k].t, &lb, &extent) == MPI_SUCCESS);
        CHECK(lb == 0 && extent == table[k].size);
        CHECK(MPI_Type_get_name(table[k].t, name, &len) == MPI_SUCCESS);
        CHECK(!strcmp(name, table[k].name));
        CHECK(MPI_Type_get_envelope(table[k].t, &a, &b, &c, &comb) == MPI_SUCCESS);
        CHECK(comb == MPI_COMBINER_NAMED);
    }
    CHECK(MPI_INTEGER16 == MPI_DATATYPE_NULL && MPI_REAL2 == MPI_DATATYPE_NULL &&
          MPI_COMPLEX4 == MPI_DATATYPE_NULL);

    /* reductions */
    int32_t iv[3] = {rank, 1, -2 * rank}, isum[3];
    CHECK(MPI_Allreduce(iv, isum, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(isum[0] == size * (size - 1) / 2 && isum[1] == size && isum[2] == -size * (size - 1));
    int64_t i8 = (int64_t)1 << 40, i8max;
    i8 += rank;
    CHECK(MPI_Allreduce(&i8, &i8max, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(i8max == ((int64_t)1 << 40) + size - 1);
    double dp = 0.25 * (rank + 1), dsum;
    CHECK(MPI_Allreduce(&dp, &dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    CHECK(dsum == 0.125 * size * (size + 1));
    float _Complex zc = 1.0f + (float)rank * I, zsum;
    CHECK(MPI_Allreduce(&zc, &zsum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(crealf(zsum) == (float)size && cimagf(zsum) == (float)(size * (size - 1) / 2));
    int32_t lg = rank == 0, land, lor;
    CHECK(MPI_Allreduce(&lg, &land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Allreduce(&lg, &lor, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(land == (size == 1) && lor == 1);
    /* MINLOC / MAXLOC on the Fortran pairs: value and index of one type */
    float r2[2] = {(float)(rank % 2 ? -rank : rank), (float)rank}, r2min[2];
    CHECK(MPI_Allreduce(r2, r2min, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
    int lowest = size > 1 ? (size - 1) % 2 ? size - 1 : size - 2 : 0; /* the largest odd rank */
    CHECK(r2min[0] == (float)(size > 1 ? -lowest : 0) && r2min[1] == (float)lowest);
    double d2[2] = {(double)(rank % 3), (double)rank}, d2max[2];
    CHECK(MPI_Allreduce(d2, d2max, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    int best = size > 2 ? 2 : size - 1; /* the first rank with rank % 3 largest */
    CHECK(d2max[0] == (double)(best % 3) && d2max[1] == (double)best);
    int32_t i2[2] = {7, rank}, i2min[2];
    CHECK(MPI_Allreduce(i2, i2min, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(i2min[0] == 7 && i2min[1] == 0); /* ties: the lowest index */
    /* ops a type does not take */
    float rf = 1, rg = 1;
    CHECK(MPI_Reduce_local(&rf, &rg, 1, MPI_REAL, MPI_BAND) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(&lg, &land, 1, MPI_LOGICAL, MPI_SUM) == MPI_ERR_OP);
    CHECK(MPI_Reduce_local(&rf, &rg, 1, MPI_2REAL, MPI_SUM) == MPI_ERR_OP);

    /* sends: a ring of DOUBLE COMPLEX and CHARACTER */
    double _Complex z = (double)rank - 0.5 * I, zr = 0;
    char ch[4] = {'f', 'o', 'r', (char)('0' + rank % 10)}, chr[4];
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    CHECK(MPI_Sendrecv(&z, 1, MPI_DOUBLE_COMPLEX, to, 1, &zr, 1, MPI_DOUBLE_COMPLEX, from, 1,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(creal(zr) == (double)from && cimag(zr) == -0.5);
    MPI_Status st;
    int n;
    CHECK(MPI_Sendrecv(ch, 4, MPI_CHARACTER, to, 2, chr, 4, MPI_CHARACTER, from, 2, MPI_COMM_WORLD,
                       &st) == MPI_SUCCESS);
    CHECK(MPI_Get_count(&st, MPI_CHARACTER, &n) == MPI_SUCCESS && n == 4);
    CHECK(!memcmp(chr, "for", 3) && chr[3] == '0' + from % 10);
    /* a derived type of a Fortran type */
    double col[6] = {rank, -1, rank + 0.5, -1, rank + 0.75, -1}, colr[6] = {0};
    MPI_Datatype vec;
    CHECK(MPI_Type_vector(3, 1, 2, MPI_REAL8, &vec) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&vec) == MPI_SUCCESS);
    CHECK(MPI_Sendrecv(col, 1, vec, to, 3, colr, 1, vec, from, 3, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(colr[0] == from && colr[2] == from + 0.5 && colr[4] == from + 0.75 && colr[1] == 0);
    MPI_Type_free(&vec);

    /* compare-and-swap takes the Fortran integers and LOGICAL */
    int32_t *mem;
    MPI_Win win;
    CHECK(MPI_Win_allocate(2 * sizeof(int32_t), sizeof(int32_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &mem, &win) == MPI_SUCCESS);
    mem[0] = 10, mem[1] = 0;
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    int32_t want = 10, put = 20 + rank, old = -1, f = 0, t = 1;
    CHECK(MPI_Compare_and_swap(&put, &want, &old, MPI_INTEGER, to, 0, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    CHECK(old == 10 && mem[0] == 20 + from);
    CHECK(MPI_Compare_and_swap(&t, &f, &old, MPI_LOGICAL, to, 1, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    CHECK(old == 0 && mem[1] == 1);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

static void mpi1_calls(void) {
    double a[4] = {0};
    MPI_Aint x, y;
    CHECK(MPI_Address(&a[2], &x) == MPI_SUCCESS && MPI_Get_address(&a[2], &y) == MPI_SUCCESS);
    CHECK(x == y);
    MPI_Datatype r, t;
    MPI_Aint e = -1, lb = -1, ub = -1;
    CHECK(MPI_Type_create_resized(MPI_INT, -4, 20, &r) == MPI_SUCCESS);
    CHECK(MPI_Type_extent(r, &e) == MPI_SUCCESS && e == 20);
    CHECK(MPI_Type_lb(r, &lb) == MPI_SUCCESS && lb == -4);
    CHECK(MPI_Type_ub(r, &ub) == MPI_SUCCESS && ub == 16);
    CHECK(MPI_Type_extent(MPI_DOUBLE, &e) == MPI_SUCCESS && e == 8);
    CHECK(MPI_Type_extent(MPI_DATATYPE_NULL, &e) == MPI_ERR_TYPE);
    CHECK(MPI_Type_ub(MPI_INT, NULL) == MPI_ERR_ARG);
    MPI_Type_free(&r);

    int comb, ni, na, nd;
    CHECK(MPI_Type_hvector(3, 2, 24, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_HVECTOR && size_of(t) == 24);
    CHECK(MPI_Type_extent(t, &e) == MPI_SUCCESS && e == 2 * 24 + 8);
    MPI_Type_free(&t);
    int bl[2] = {1, 2};
    MPI_Aint disp[2] = {0, 16};
    CHECK(MPI_Type_hindexed(2, bl, disp, MPI_DOUBLE, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_HINDEXED && size_of(t) == 24);
    CHECK(MPI_Type_extent(t, &e) == MPI_SUCCESS && e == 32);
    MPI_Type_free(&t);
    MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE};
    disp[1] = 8;
    CHECK(MPI_Type_struct(2, bl, disp, types, &t) == MPI_SUCCESS);
    CHECK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_STRUCT && size_of(t) == 17);
    CHECK(MPI_Type_extent(t, &e) == MPI_SUCCESS && e == 24);
    MPI_Type_free(&t);
    CHECK(MPI_Type_hvector(-1, 1, 8, MPI_INT, &t) == MPI_ERR_COUNT);
    /* the Fortran-only combiners are distinct from every other */
    int combiners[] = {MPI_COMBINER_NAMED,
                       MPI_COMBINER_DUP,
                       MPI_COMBINER_CONTIGUOUS,
                       MPI_COMBINER_VECTOR,
                       MPI_COMBINER_HVECTOR,
                       MPI_COMBINER_INDEXED,
                       MPI_COMBINER_HINDEXED,
                       MPI_COMBINER_INDEXED_BLOCK,
                       MPI_COMBINER_HINDEXED_BLOCK,
                       MPI_COMBINER_STRUCT,
                       MPI_COMBINER_SUBARRAY,
                       MPI_COMBINER_DARRAY,
                       MPI_COMBINER_RESIZED,
                       MPI_COMBINER_HVECTOR_INTEGER,
                       MPI_COMBINER_HINDEXED_INTEGER,
                       MPI_COMBINER_STRUCT_INTEGER,
                       MPI_COMBINER_F90_REAL,
                       MPI_COMBINER_F90_COMPLEX,
                       MPI_COMBINER_F90_INTEGER};
    int nc = sizeof combiners / sizeof *combiners;
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < i; j++) CHECK(combiners[i] != combiners[j]);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    external32_images();
    external32_round_trip();
    f90();
    fortran_types();
    mpi1_calls();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("datatypes: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
