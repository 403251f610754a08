/* More than 2^31 bytes in one operation, through the large-count (_c) calls, on 2
 * ranks (pack: 1): every byte checked, and the counts the status gives. Each case
 * holds about 2.3 GiB a rank (pack: 4.6 GiB in its one rank), so the tests of
 * this program run one at a time (RESOURCE_LOCK large_memory, label "large").
 *   p2p     MPI_Send_c/MPI_Recv_c of an MPI_BYTE count past INT_MAX, then one item of
 *           an MPI_Type_contiguous_c type of that size; MPI_Get_count/_elements say
 *           MPI_UNDEFINED, their _c forms the count
 *   bcast   MPI_Bcast_c of an MPI_BYTE count past INT_MAX from rank 1
 *   gatherv MPI_Gatherv_c: rank 1's contribution past INT_MAX bytes to rank 0
 *   rma     MPI_Put_c into a window of MPI_Win_allocate_c, then MPI_Get_c back
 *   pack    MPI_Pack_c/MPI_Unpack_c of an MPI_Type_vector_c type holding more than
 *           2^31 bytes, with MPI_Type_size (MPI_UNDEFINED), _size_c and _Pack_size_c */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

#define OK(call) CHECK((call) == MPI_SUCCESS)

/* 2^31 + 2^27 + 8 bytes: past INT_MAX, a whole number of words, not of pages */
static const MPI_Count BYTES = ((MPI_Count)1 << 31) + ((MPI_Count)1 << 27) + 8;

static uint64_t word(size_t i, unsigned salt) {
    return ((uint64_t)i * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)salt << 56);
}

static void *alloc(size_t n) {
    void *p = malloc(n);
    CHECK(p);
    return p;
}

static void fill(void *buf, size_t bytes, unsigned salt) {
    uint64_t *w = buf;
    for (size_t i = 0; i < bytes / 8; i++) w[i] = word(i, salt);
}

static void expect(const void *buf, size_t bytes, unsigned salt, const char *what) {
    const uint64_t *w = buf;
    for (size_t i = 0; i < bytes / 8; i++)
        if (w[i] != word(i, salt)) {
            fprintf(stderr, "rank %d: %s: word %zu of %zu wrong\n", rank, what, i, bytes / 8);
            CHECK(0);
        }
}

/* The counts of a status of BYTES bytes: past what an int holds. */
static void status_is_large(const MPI_Status *st) {
    int c;
    MPI_Count cc;
    OK(MPI_Get_count(st, MPI_BYTE, &c));
    CHECK(c == MPI_UNDEFINED);
    OK(MPI_Get_count_c(st, MPI_BYTE, &cc));
    CHECK(cc == BYTES);
    OK(MPI_Get_elements(st, MPI_BYTE, &c));
    CHECK(c == MPI_UNDEFINED);
    OK(MPI_Get_elements_c(st, MPI_BYTE, &cc));
    CHECK(cc == BYTES);
}

static void p2p(void) {
    unsigned char *buf = alloc((size_t)BYTES + 64);
    MPI_Status st;
    if (rank == 0) {
        fill(buf, (size_t)BYTES, 1);
        OK(MPI_Send_c(buf, BYTES, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
    } else {
        memset(buf + BYTES, 0xab, 64);
        OK(MPI_Recv_c(buf, BYTES, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st));
        status_is_large(&st);
        expect(buf, (size_t)BYTES, 1, "MPI_BYTE message");
        for (int i = 0; i < 64; i++) CHECK(buf[BYTES + i] == 0xab); /* nothing past the end */
    }
    /* the other way, as one item of a type that large */
    MPI_Datatype whole;
    OK(MPI_Type_contiguous_c(BYTES, MPI_BYTE, &whole));
    OK(MPI_Type_commit(&whole));
    if (rank == 1) {
        fill(buf, (size_t)BYTES, 2);
        OK(MPI_Send_c(buf, 1, whole, 0, 2, MPI_COMM_WORLD));
    } else {
        memset(buf, 0, (size_t)BYTES);
        OK(MPI_Recv_c(buf, 1, whole, 1, 2, MPI_COMM_WORLD, &st));
        MPI_Count cc;
        OK(MPI_Get_count_c(&st, whole, &cc));
        CHECK(cc == 1);
        status_is_large(&st);
        expect(buf, (size_t)BYTES, 2, "one item of a large type");
    }
    OK(MPI_Type_free(&whole));
    free(buf);
}

static void bcast(void) {
    unsigned char *buf = alloc((size_t)BYTES);
    if (rank == 1)
        fill(buf, (size_t)BYTES, 3);
    else
        memset(buf, 0, (size_t)BYTES);
    OK(MPI_Bcast_c(buf, BYTES, MPI_BYTE, 1, MPI_COMM_WORLD));
    expect(buf, (size_t)BYTES, 3, "MPI_Bcast_c");
    free(buf);
}

static void gatherv(void) {
    /* rank 0 gives nothing and takes rank 1's block, at a displacement of 8 bytes */
    MPI_Count counts[2] = {0, BYTES};
    MPI_Aint displs[2] = {0, 8};
    unsigned char *buf = alloc((size_t)BYTES + 8);
    if (rank == 1) {
        fill(buf, (size_t)BYTES, 4);
        OK(MPI_Gatherv_c(buf, BYTES, MPI_BYTE, NULL, NULL, NULL, MPI_BYTE, 0, MPI_COMM_WORLD));
    } else {
        memset(buf, 0x5a, 8);
        OK(MPI_Gatherv_c(buf, 0, MPI_BYTE, buf, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD));
        for (int i = 0; i < 8; i++) CHECK(buf[i] == 0x5a);
        expect(buf + 8, (size_t)BYTES, 4, "MPI_Gatherv_c");
    }
    free(buf);
}

static void rma(void) {
    unsigned char *base, *origin = NULL;
    MPI_Win w;
    MPI_Aint mine = rank == 1 ? (MPI_Aint)BYTES : 0;
    OK(MPI_Win_allocate_c(mine, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w));
    if (rank == 0) {
        origin = alloc((size_t)BYTES);
        fill(origin, (size_t)BYTES, 5);
    }
    OK(MPI_Win_fence(0, w));
    if (rank == 0) OK(MPI_Put_c(origin, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, w));
    OK(MPI_Win_fence(0, w));
    if (rank == 1) {
        expect(base, (size_t)BYTES, 5, "MPI_Put_c");
        fill(base, (size_t)BYTES, 6); /* what the get brings back */
    }
    OK(MPI_Win_fence(0, w));
    if (rank == 0) OK(MPI_Get_c(origin, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, w));
    OK(MPI_Win_fence(0, w));
    if (rank == 0) expect(origin, (size_t)BYTES, 6, "MPI_Get_c");
    OK(MPI_Win_free(&w));
    free(origin);
}

static void pack(void) {
    /* 4032 bytes of every 4096: more than 2^31 bytes of data in 2.4 GiB of extent */
    const MPI_Count block = 4032, stride = 4096, count = ((MPI_Count)600) << 10;
    const MPI_Count data = count * block, span = count * stride;
    CHECK(data > INT_MAX);
    MPI_Datatype t;
    OK(MPI_Type_vector_c(count, block, stride, MPI_BYTE, &t));
    OK(MPI_Type_commit(&t));
    int s;
    MPI_Count cs, ps;
    OK(MPI_Type_size(t, &s));
    CHECK(s == MPI_UNDEFINED);
    OK(MPI_Type_size_c(t, &cs));
    CHECK(cs == data);
    OK(MPI_Pack_size_c(1, t, MPI_COMM_WORLD, &ps));
    CHECK(ps == data);
    unsigned char *user = alloc((size_t)span), *packed = alloc((size_t)data);
    fill(user, (size_t)span, 7);
    MPI_Count pos = 0;
    OK(MPI_Pack_c(user, 1, t, packed, data, &pos, MPI_COMM_WORLD));
    CHECK(pos == data);
    /* packed block k is bytes [k * stride, k * stride + block) of user */
    for (MPI_Count k = 0; k < count; k += 997)
        CHECK(!memcmp(packed + k * block, user + k * stride, (size_t)block));
    CHECK(!memcmp(packed + (count - 1) * block, user + (count - 1) * stride, (size_t)block));
    /* and back into a cleared buffer: the data where it was, the gaps untouched */
    memset(user, 0, (size_t)span);
    pos = 0;
    OK(MPI_Unpack_c(packed, data, &pos, user, 1, t, MPI_COMM_WORLD));
    CHECK(pos == data);
    free(packed);
    const uint64_t *w = (const uint64_t *)user;
    for (size_t i = 0; i < (size_t)span / 8; i++) {
        size_t in_block = (i * 8) % (size_t)stride;
        CHECK(in_block < (size_t)block ? w[i] == word(i, 7) : w[i] == 0);
    }
    free(user);
    OK(MPI_Type_free(&t));
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "pack")) {
        pack();
    } else {
        CHECK(size == 2);
        if (!strcmp(what, "p2p"))
            p2p();
        else if (!strcmp(what, "bcast"))
            bcast();
        else if (!strcmp(what, "gatherv"))
            gatherv();
        else if (!strcmp(what, "rma"))
            rma();
        else
            CHECK(!"the case is one of p2p, bcast, gatherv, rma, pack");
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    if (rank == 0) printf("large_data %s: %lld bytes, every one right\n", what, (long long)BYTES);
    return 0;
}
