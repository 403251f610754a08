/* Reduction operations: every predefined op on every predefined type through
 * MPI_Reduce_local, accepted exactly where MPI-3.1 (5.9.2) allows it and refused
 * with MPI_ERR_OP elsewhere, with values checked; a few through MPI_Allreduce;
 * MINLOC and MAXLOC ties; user ops, commutative or not (2x2 matrix products, which
 * must come out in rank order from every reduction). */
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

enum { INTEGER = 1, FLOATING = 2, COMPLEX = 4, LOGICAL = 8, BYTE = 16, PAIR = 32, NONE = 64 };

static const struct {
    MPI_Datatype type;
    int kind;
} types[] = {
    {MPI_CHAR, INTEGER}, /* an extension, as in MPICH and Open MPI */
    {MPI_SIGNED_CHAR, INTEGER},
    {MPI_UNSIGNED_CHAR, INTEGER},
    {MPI_BYTE, BYTE},
    {MPI_WCHAR, NONE},
    {MPI_SHORT, INTEGER},
    {MPI_UNSIGNED_SHORT, INTEGER},
    {MPI_INT, INTEGER},
    {MPI_UNSIGNED, INTEGER},
    {MPI_LONG, INTEGER},
    {MPI_UNSIGNED_LONG, INTEGER},
    {MPI_LONG_LONG, INTEGER},
    {MPI_UNSIGNED_LONG_LONG, INTEGER},
    {MPI_FLOAT, FLOATING},
    {MPI_DOUBLE, FLOATING},
    {MPI_LONG_DOUBLE, FLOATING},
    {MPI_C_BOOL, LOGICAL},
    {MPI_INT8_T, INTEGER},
    {MPI_INT16_T, INTEGER},
    {MPI_INT32_T, INTEGER},
    {MPI_INT64_T, INTEGER},
    {MPI_UINT8_T, INTEGER},
    {MPI_UINT16_T, INTEGER},
    {MPI_UINT32_T, INTEGER},
    {MPI_UINT64_T, INTEGER},
    {MPI_AINT, INTEGER},
    {MPI_COUNT, INTEGER},
    {MPI_OFFSET, INTEGER},
    {MPI_PACKED, NONE},
    {MPI_C_FLOAT_COMPLEX, COMPLEX},
    {MPI_C_DOUBLE_COMPLEX, COMPLEX},
    {MPI_C_LONG_DOUBLE_COMPLEX, COMPLEX},
    {MPI_CXX_BOOL, LOGICAL},
    {MPI_CXX_FLOAT_COMPLEX, COMPLEX},
    {MPI_CXX_DOUBLE_COMPLEX, COMPLEX},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, COMPLEX},
    {MPI_FLOAT_INT, PAIR},
    {MPI_DOUBLE_INT, PAIR},
    {MPI_LONG_INT, PAIR},
    {MPI_2INT, PAIR},
    {MPI_SHORT_INT, PAIR},
    {MPI_LONG_DOUBLE_INT, PAIR},
    {MPIX_C_FLOAT16, FLOATING},
    {MPIX_BFLOAT16, FLOATING},
};

/* the kinds of type each op applies to */
static const struct {
    MPI_Op op;
    int kinds;
} ops[] = {
    {MPI_MAX, INTEGER | FLOATING},
    {MPI_MIN, INTEGER | FLOATING},
    {MPI_SUM, INTEGER | FLOATING | COMPLEX},
    {MPI_PROD, INTEGER | FLOATING | COMPLEX},
    {MPI_LAND, INTEGER | LOGICAL},
    {MPI_LOR, INTEGER | LOGICAL},
    {MPI_LXOR, INTEGER | LOGICAL},
    {MPI_BAND, INTEGER | BYTE},
    {MPI_BOR, INTEGER | BYTE},
    {MPI_BXOR, INTEGER | BYTE},
    {MPI_MINLOC, PAIR},
    {MPI_MAXLOC, PAIR},
    {MPI_REPLACE, ~0},
    {MPI_NO_OP, ~0},
};

/* Every (op, type): allowed or MPI_ERR_OP, on 4 zeroed items (which no op can fault on). */
static void matrix(void) {
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            _Alignas(16) unsigned char a[4 * 32] = {0}, b[4 * 32] = {0};
            int rc = MPI_Reduce_local(a, b, 4, types[t].type, ops[o].op);
            int want = ops[o].kinds & types[t].kind ? MPI_SUCCESS : MPI_ERR_OP;
            if (rc != want) fprintf(stderr, "op %zu type %zu: got %d, want %d\n", o, t, rc, want);
            CHECK(rc == want);
        }
}

/* Values of each integer type, op by op: x op y for x, y over a few values. */
#define INTEGER_VALUES(T, mt)                                                                      \
    do {                                                                                           \
        T x[] = {5, 0, 3, 1, 12}, y[] = {3, 0, 7, 1, 10}, z[5];                                    \
        struct {                                                                                   \
            MPI_Op op;                                                                             \
            int n;                                                                                 \
        } k[] = {{MPI_MAX, 0},  {MPI_MIN, 1},  {MPI_SUM, 2},      {MPI_PROD, 3},                   \
                 {MPI_LAND, 4}, {MPI_LOR, 5},  {MPI_LXOR, 6},     {MPI_BAND, 7},                   \
                 {MPI_BOR, 8},  {MPI_BXOR, 9}, {MPI_REPLACE, 10}, {MPI_NO_OP, 11}};                \
        for (size_t j = 0; j < sizeof k / sizeof k[0]; j++) {                                      \
            memcpy(z, y, sizeof z);                                                                \
            CHECK(MPI_Reduce_local(x, z, 5, mt, k[j].op) == MPI_SUCCESS);                          \
            for (int i = 0; i < 5; i++) {                                                          \
                T a = x[i], b = y[i], e;                                                           \
                switch (k[j].n) {                                                                  \
                case 0:                                                                            \
                    e = a > b ? a : b;                                                             \
                    break;                                                                         \
                case 1:                                                                            \
                    e = a < b ? a : b;                                                             \
                    break;                                                                         \
                case 2:                                                                            \
                    e = (T)(a + b);                                                                \
                    break;                                                                         \
                case 3:                                                                            \
                    e = (T)(a * b);                                                                \
                    break;                                                                         \
                case 4:                                                                            \
                    e = (T)(a && b);                                                               \
                    break;                                                                         \
                case 5:                                                                            \
                    e = (T)(a || b);                                                               \
                    break;                                                                         \
                case 6:                                                                            \
                    e = (T)(!a != !b);                                                             \
                    break;                                                                         \
                case 7:                                                                            \
                    e = (T)(a & b);                                                                \
                    break;                                                                         \
                case 8:                                                                            \
                    e = (T)(a | b);                                                                \
                    break;                                                                         \
                case 9:                                                                            \
                    e = (T)(a ^ b);                                                                \
                    break;                                                                         \
                case 10:                                                                           \
                    e = a;                                                                         \
                    break;                                                                         \
                default:                                                                           \
                    e = b;                                                                         \
                    break;                                                                         \
                }                                                                                  \
                CHECK(z[i] == e);                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define FLOATING_VALUES(T, mt)                                                                     \
    do {                                                                                           \
        T x[] = {1.5, -2, 4}, y[] = {2.5, 3, -0.5}, z[3];                                          \
        MPI_Op k[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD};                                        \
        for (int j = 0; j < 4; j++) {                                                              \
            memcpy(z, y, sizeof z);                                                                \
            CHECK(MPI_Reduce_local(x, z, 3, mt, k[j]) == MPI_SUCCESS);                             \
            for (int i = 0; i < 3; i++) {                                                          \
                T a = x[i], b = y[i];                                                              \
                T e = j == 0   ? (a > b ? a : b)                                                   \
                      : j == 1 ? (a < b ? a : b)                                                   \
                      : j == 2 ? a + b                                                             \
                               : a * b;                                                            \
                CHECK(z[i] == e);                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define COMPLEX_VALUES(T, mt)                                                                      \
    do {                                                                                           \
        T x[] = {1 + 2 * I, -3 + 0.5 * I}, y[] = {2 - 1 * I, 4 + 2 * I}, z[2];                     \
        memcpy(z, y, sizeof z);                                                                    \
        CHECK(MPI_Reduce_local(x, z, 2, mt, MPI_SUM) == MPI_SUCCESS);                              \
        for (int i = 0; i < 2; i++) CHECK(z[i] == x[i] + y[i]);                                    \
        memcpy(z, y, sizeof z);                                                                    \
        CHECK(MPI_Reduce_local(x, z, 2, mt, MPI_PROD) == MPI_SUCCESS);                             \
        for (int i = 0; i < 2; i++) CHECK(z[i] == x[i] * y[i]);                                    \
    } while (0)

/* MINLOC/MAXLOC: the better value wins; of equal values, the lower index. */
#define PAIR_VALUES(V, mt)                                                                         \
    do {                                                                                           \
        struct {                                                                                   \
            V v;                                                                                   \
            int i;                                                                                 \
        } x[3] = {{1, 5}, {4, 9}, {2, 1}}, y[3] = {{3, 2}, {4, 3}, {2, 7}}, z[3];                  \
        memcpy(z, y, sizeof z);                                                                    \
        CHECK(MPI_Reduce_local(x, z, 3, mt, MPI_MINLOC) == MPI_SUCCESS);                           \
        CHECK(z[0].v == 1 && z[0].i == 5 && z[1].v == 4 && z[1].i == 3 && z[2].v == 2 &&           \
              z[2].i == 1);                                                                        \
        memcpy(z, y, sizeof z);                                                                    \
        CHECK(MPI_Reduce_local(x, z, 3, mt, MPI_MAXLOC) == MPI_SUCCESS);                           \
        CHECK(z[0].v == 3 && z[0].i == 2 && z[1].v == 4 && z[1].i == 3 && z[2].v == 2 &&           \
              z[2].i == 1);                                                                        \
    } while (0)

/* The 16-bit floats: every value comes back from x * 1 and from x + 0 as it was (each
 * widened and rounded back); sums that fall halfway round to even, in normals,
 * subnormals and past the largest finite value. one: 1.0's bits. */
static void float16_values(MPI_Datatype t, uint16_t one, uint16_t inf) {
    static uint16_t x[65536], y[65536];
    uint16_t nan_exponent = inf;
    for (unsigned v = 0; v < 65536; v++) x[v] = (uint16_t)v, y[v] = one;
    CHECK(MPI_Reduce_local(x, y, 65536, t, MPI_PROD) == MPI_SUCCESS);
    for (unsigned v = 0; v < 65536; v++)
        if ((v & inf) != nan_exponent || (v & (uint16_t) ~(inf | 0x8000)) == 0) /* not NaN */
            CHECK(y[v] == v);
        else /* a NaN stays a NaN */
            CHECK((y[v] & inf) == inf && (y[v] & (uint16_t) ~(inf | 0x8000)) != 0);
    for (unsigned v = 0; v < 65536; v++) x[v] = (uint16_t)v, y[v] = 0x8000; /* -0 */
    CHECK(MPI_Reduce_local(x, y, 65536, t, MPI_SUM) == MPI_SUCCESS);
    for (unsigned v = 0; v < 65536; v++)
        if ((v & inf) != inf) CHECK(y[v] == v);
}

static void float16_rounding(void) {
    /* binary16: 1 + 2^-11 and 0x3c01 + 2^-11 (halfway: to the even neighbour);
     * 65504 + 16 (halfway past the largest: infinity) and 65504 + 8 (back to 65504);
     * 2^-24 + 2^-24; 2^-24 * 0.5 (halfway to 0: 0), 3 * 2^-24 * 0.5 (to 2 * 2^-24);
     * max and min of -2 and 1 */
    uint16_t hx[] = {0x1000, 0x1000, 0x4c00, 0x4800, 0x0001, 0x0001, 0x0003, 0xc000, 0xc000},
             hy[] = {0x3c00, 0x3c01, 0x7bff, 0x7bff, 0x0001, 0x3800, 0x3800, 0x3c00, 0x3c00},
             want[] = {0x3c00, 0x3c02, 0x7c00, 0x7bff, 0x0002, 0x0000, 0x0002, 0x3c00, 0xc000};
    MPI_Op op[] = {MPI_SUM,  MPI_SUM,  MPI_SUM, MPI_SUM, MPI_SUM,
                   MPI_PROD, MPI_PROD, MPI_MAX, MPI_MIN};
    for (int k = 0; k < 9; k++) {
        uint16_t z = hy[k];
        CHECK(MPI_Reduce_local(&hx[k], &z, 1, MPIX_C_FLOAT16, op[k]) == MPI_SUCCESS);
        CHECK(z == want[k]);
    }
    /* bfloat16: 1 + 2^-8 (halfway: 1), 0x3f81 + 2^-8 (0x3f82), the largest + its half
     * ulp (infinity), 3 * 2 */
    uint16_t bx[] = {0x3b80, 0x3b80, 0x7b00, 0x4040}, by[] = {0x3f80, 0x3f81, 0x7f7f, 0x4000},
             bwant[] = {0x3f80, 0x3f82, 0x7f80, 0x40c0};
    MPI_Op bop[] = {MPI_SUM, MPI_SUM, MPI_SUM, MPI_PROD};
    for (int k = 0; k < 4; k++) {
        uint16_t z = by[k];
        CHECK(MPI_Reduce_local(&bx[k], &z, 1, MPIX_BFLOAT16, bop[k]) == MPI_SUCCESS);
        CHECK(z == bwant[k]);
    }
    char name[MPI_MAX_OBJECT_NAME];
    int len, type_size;
    CHECK(MPI_Type_get_name(MPIX_C_FLOAT16, name, &len) == MPI_SUCCESS &&
          strcmp(name, "MPIX_C_FLOAT16") == 0);
    CHECK(MPI_Type_size(MPIX_BFLOAT16, &type_size) == MPI_SUCCESS && type_size == 2);
}

static void values(void) {
    INTEGER_VALUES(signed char, MPI_SIGNED_CHAR);
    INTEGER_VALUES(unsigned char, MPI_UNSIGNED_CHAR);
    INTEGER_VALUES(short, MPI_SHORT);
    INTEGER_VALUES(unsigned short, MPI_UNSIGNED_SHORT);
    INTEGER_VALUES(int, MPI_INT);
    INTEGER_VALUES(unsigned, MPI_UNSIGNED);
    INTEGER_VALUES(long, MPI_LONG);
    INTEGER_VALUES(unsigned long, MPI_UNSIGNED_LONG);
    INTEGER_VALUES(long long, MPI_LONG_LONG);
    INTEGER_VALUES(unsigned long long, MPI_UNSIGNED_LONG_LONG);
    INTEGER_VALUES(int8_t, MPI_INT8_T);
    INTEGER_VALUES(int16_t, MPI_INT16_T);
    INTEGER_VALUES(int32_t, MPI_INT32_T);
    INTEGER_VALUES(int64_t, MPI_INT64_T);
    INTEGER_VALUES(uint8_t, MPI_UINT8_T);
    INTEGER_VALUES(uint16_t, MPI_UINT16_T);
    INTEGER_VALUES(uint32_t, MPI_UINT32_T);
    INTEGER_VALUES(uint64_t, MPI_UINT64_T);
    INTEGER_VALUES(MPI_Aint, MPI_AINT);
    INTEGER_VALUES(MPI_Count, MPI_COUNT);
    INTEGER_VALUES(MPI_Offset, MPI_OFFSET);
    FLOATING_VALUES(float, MPI_FLOAT);
    FLOATING_VALUES(double, MPI_DOUBLE);
    FLOATING_VALUES(long double, MPI_LONG_DOUBLE);
    COMPLEX_VALUES(float _Complex, MPI_C_FLOAT_COMPLEX);
    COMPLEX_VALUES(double _Complex, MPI_C_DOUBLE_COMPLEX);
    COMPLEX_VALUES(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX);
    COMPLEX_VALUES(double _Complex, MPI_CXX_DOUBLE_COMPLEX);
    PAIR_VALUES(float, MPI_FLOAT_INT);
    PAIR_VALUES(double, MPI_DOUBLE_INT);
    PAIR_VALUES(long, MPI_LONG_INT);
    PAIR_VALUES(int, MPI_2INT);
    PAIR_VALUES(short, MPI_SHORT_INT);
    PAIR_VALUES(long double, MPI_LONG_DOUBLE_INT);
    bool bx[] = {true, true, false, false}, by[] = {true, false, true, false}, bz[4];
    MPI_Op lk[] = {MPI_LAND, MPI_LOR, MPI_LXOR};
    for (int j = 0; j < 3; j++) {
        memcpy(bz, by, sizeof bz);
        CHECK(MPI_Reduce_local(bx, bz, 4, MPI_C_BOOL, lk[j]) == MPI_SUCCESS);
        for (int i = 0; i < 4; i++)
            CHECK(bz[i] == (j == 0 ? bx[i] && by[i] : j == 1 ? bx[i] || by[i] : bx[i] != by[i]));
    }
    unsigned char cx[] = {0xf0, 0x3c}, cy[] = {0x0f, 0x66}, cz[2];
    memcpy(cz, cy, 2);
    CHECK(MPI_Reduce_local(cx, cz, 2, MPI_BYTE, MPI_BXOR) == MPI_SUCCESS);
    CHECK(cz[0] == 0xff && cz[1] == 0x5a);
    float16_values(MPIX_C_FLOAT16, 0x3c00, 0x7c00);
    float16_values(MPIX_BFLOAT16, 0x3f80, 0x7f80);
    float16_rounding();
}

/* An integer from 1 to 2047 in binary16, exactly. */
static uint16_t binary16_of(unsigned n) {
    unsigned e = 0;
    while (n >> (e + 1)) e++;
    return (uint16_t)((e + 15) << 10 | ((n << (10 - e)) & 0x3ff));
}

/* Across ranks: sums of several kinds, and MINLOC/MAXLOC ties broken by the lowest rank. */
static void across(void) {
    double d = rank + 0.5, ds;
    CHECK(MPI_Allreduce(&d, &ds, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(ds == size * (size - 1) / 2.0 + 0.5 * size);
    double _Complex c = rank + 1.0 * I, cs;
    CHECK(MPI_Allreduce(&c, &cs, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(cs == size * (size - 1) / 2.0 + size * I);
    struct {
        double v;
        int i;
    } mine[2] = {{7.0, rank}, {(double)(rank % 2), rank}}, lo[2], hi[2];
    CHECK(MPI_Allreduce(mine, lo, 2, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Allreduce(mine, hi, 2, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(lo[0].v == 7.0 && lo[0].i == 0 && hi[0].v == 7.0 && hi[0].i == 0);
    CHECK(lo[1].v == 0 && lo[1].i == 0);
    CHECK(size == 1 ? hi[1].i == 0 : hi[1].v == 1 && hi[1].i == 1);
    uint16_t h = binary16_of(rank + 1u), hs; /* sums below 2048: exact in binary16 */
    CHECK(MPI_Allreduce(&h, &hs, 1, MPIX_C_FLOAT16, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(size > 63 || hs == binary16_of((unsigned)size * (size + 1u) / 2));
    bool b = rank % 2, bx;
    CHECK(MPI_Allreduce(&b, &bx, 1, MPI_C_BOOL, MPI_LXOR, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(bx == (size / 2) % 2);
    int bad = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Allreduce(&d, &bad, 1, MPI_DOUBLE, MPI_BXOR, MPI_COMM_WORLD) == MPI_ERR_OP);
    CHECK(MPI_Allreduce(&d, &bad, 1, MPI_DOUBLE, MPI_OP_NULL, MPI_COMM_WORLD) == MPI_ERR_OP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* 2x2 matrices of unsigned (arithmetic mod 2^32): inout = in * inout, so a
 * reduction in rank order is M_0 M_1 ... M_{p-1}. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type) {
    CHECK(*type == MPI_UNSIGNED && *len % 4 == 0);
    const unsigned *a = in;
    unsigned *b = inout;
    for (int k = 0; k < *len; k += 4) {
        unsigned r[4] = {a[k] * b[k] + a[k + 1] * b[k + 2], a[k] * b[k + 1] + a[k + 1] * b[k + 3],
                         a[k + 2] * b[k] + a[k + 3] * b[k + 2],
                         a[k + 2] * b[k + 1] + a[k + 3] * b[k + 3]};
        memcpy(b + k, r, sizeof r);
    }
}

/* rank r's matrix number j */
static void matrix_of(int r, int j, unsigned m[4]) {
    m[0] = (unsigned)(r + 1); /* no two of them commute */
    m[1] = (unsigned)(j + 1);
    m[2] = (unsigned)(r * r + 1);
    m[3] = 1;
}

/* M_first ... M_last for matrix j */
static void product(int first, int last, int j, unsigned out[4]) {
    unsigned id[4] = {1, 0, 0, 1};
    memcpy(out, id, sizeof id);
    for (int r = last; r >= first; r--) { /* out = M_r out */
        unsigned m[4];
        matrix_of(r, j, m);
        int four = 4;
        MPI_Datatype t = MPI_UNSIGNED;
        matmul(m, out, &four, &t);
    }
}

static void non_commutative(int n) {
    MPI_Op op;
    CHECK(MPI_Op_create(matmul, 0, &op) == MPI_SUCCESS);
    int commute = 1;
    CHECK(MPI_Op_commutative(op, &commute) == MPI_SUCCESS && commute == 0);
    CHECK(MPI_Op_commutative(MPI_SUM, &commute) == MPI_SUCCESS && commute == 1);
    size_t items = 4 * (size_t)n * (size_t)size;
    unsigned *in = malloc(items * sizeof *in), *out = malloc(items * sizeof *out), want[4];
    CHECK(in && out);
    for (int j = 0; j < n * size; j++) matrix_of(rank, j, in + 4 * j);
    for (int root = 0; root<size; root += size - 1> 0 ? size - 1 : 1) {
        CHECK(MPI_Reduce(in, out, 4 * n, MPI_UNSIGNED, op, root, MPI_COMM_WORLD) == MPI_SUCCESS);
        if (rank == root)
            for (int j = 0; j < n; j++) {
                product(0, size - 1, j, want);
                CHECK(memcmp(out + 4 * j, want, sizeof want) == 0);
            }
    }
    CHECK(MPI_Allreduce(in, out, 4 * n, MPI_UNSIGNED, op, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int j = 0; j < n; j++) {
        product(0, size - 1, j, want);
        CHECK(memcmp(out + 4 * j, want, sizeof want) == 0);
    }
    CHECK(MPI_Scan(in, out, 4 * n, MPI_UNSIGNED, op, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int j = 0; j < n; j++) {
        product(0, rank, j, want);
        CHECK(memcmp(out + 4 * j, want, sizeof want) == 0);
    }
    CHECK(MPI_Exscan(in, out, 4 * n, MPI_UNSIGNED, op, MPI_COMM_WORLD) == MPI_SUCCESS);
    for (int j = 0; rank > 0 && j < n; j++) {
        product(0, rank - 1, j, want);
        CHECK(memcmp(out + 4 * j, want, sizeof want) == 0);
    }
    CHECK(MPI_Reduce_scatter_block(in, out, 4 * n, MPI_UNSIGNED, op, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    for (int j = 0; j < n; j++) {
        product(0, size - 1, rank * n + j, want);
        CHECK(memcmp(out + 4 * j, want, sizeof want) == 0);
    }
    CHECK(MPI_Op_free(&op) == MPI_SUCCESS && op == MPI_OP_NULL);
    free(in);
    free(out);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* Reduce_local's errors */
    matrix();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    values();
    across();
    non_commutative(1);
    non_commutative(5000); /* 80 KB: rendezvous, and past the ring threshold */
    if (rank == 0) printf("ops: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
