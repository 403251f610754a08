/* A partitioned receive facing a peer that does not follow the protocol: rank 0 runs
 * MPI, rank 1 speaks the native API and sends what a broken or malicious peer could —
 * set-up messages too short, of an unknown kind, with no partitions or partitions that
 * do not divide the size, a CLEAR naming no send; then, matched with rank 0's receive,
 * puts into its buffer that are no partition (misaligned, of another length, naming
 * another request), a partition put twice, and a send of another size. Rank 0 must drop
 * each one, count nothing twice, complete the receive only once every byte came, with
 * the data intact, and fail the mismatched one with MPI_ERR_TRUNCATE. Needs 2 ranks; run
 * with TW_LINK=udp too. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/tollway.h>

#include "mpi/comm/comm.h"
#include "mpi/pt2pt/partitioned_wire.h"
#include "mpi/pt2pt/wire.h"
#include "mpi_check.h"

enum { PARTS = 4, PART = 1024, BYTES = PARTS * PART, TAG = 3, MISMATCH_TAG = 5 };

static unsigned char pattern(size_t i) {
    return (unsigned char)(i * 13 + 1);
}

/* ---- rank 1: the native peer ---- */

static tw_ep_t *ep;

#define OK(call) CHECK((call) == TW_OK)

static void send_raw(unsigned velo_tag, const void *body, size_t len) {
    while (tw_velo_send(ep, 0, velo_tag, body, len) == TW_RETRY) tw_progress(ep);
}

static void send_hdr(unsigned velo_tag, int32_t tag, uint32_t context, const void *body,
                     size_t len) {
    tw_mpi_hdr_t h = {tag, context};
    while (tw_velo_sendv(ep, 0, velo_tag, &h, sizeof h, body, len) == TW_RETRY) tw_progress(ep);
}

static size_t next_from_0(unsigned velo_tag, void *buf, size_t cap) {
    for (;;) {
        tw_velo_msg_t m;
        OK(tw_velo_recv(ep, &m, buf, cap));
        if (m.tag == velo_tag) return m.length;
    }
}

static void put(const void *src, size_t len, uint64_t nla, uint64_t key, uint64_t cookie) {
    int rc;
    while ((rc = tw_put(ep, 0, src, len, nla, key, TW_NOTIFY_COMPLETER, cookie)) == TW_RETRY)
        tw_progress(ep);
    OK(rc);
}

static void native_peer(void) {
    OK(tw_ep_open(&ep));
    CHECK(tw_ep_rank(ep) == 1 && tw_ep_size(ep) == 2);
    const uint32_t sreq = 0x2c000777u; /* what rank 0 takes for our send's handle */
    /* junk: short, an unknown kind, no partitions, partitions that do not divide the
     * size, a negative tag, a SEND of no order, a CLEAR and an EMPTY naming nothing of
     * rank 0's */
    send_raw(TW_MPI_PART, "abc", 3);
    tw_part_msg_t junk[] = {
        {.op = 9, .tag = TAG, .partitions = 1, .bytes = BYTES},
        {.op = TW_PART_SEND, .tag = TAG, .sreq = sreq, .partitions = 0, .bytes = BYTES},
        {.op = TW_PART_SEND, .tag = TAG, .sreq = sreq, .partitions = 3, .bytes = BYTES},
        {.op = TW_PART_SEND, .tag = -1, .sreq = sreq, .partitions = 2, .bytes = BYTES},
        {.op = TW_PART_SEND,
         .tag = TAG,
         .sreq = sreq,
         .partitions = 2,
         .bytes = BYTES}, /* order 0 */
        {.op = TW_PART_CLEAR, .sreq = 0x2c000001u, .rreq = 1, .partitions = 1, .bytes = BYTES},
        {.op = TW_PART_EMPTY, .sreq = sreq, .rreq = 0x2c000001u, .partitions = 1},
    };
    for (size_t k = 0; k < sizeof junk / sizeof junk[0]; k++)
        send_raw(TW_MPI_PART, &junk[k], sizeof junk[k]);
    /* the real send: 2 partitions of 2048 bytes */
    tw_part_msg_t send = {.op = TW_PART_SEND,
                          .tag = TAG,
                          .context = 0,
                          .sreq = sreq,
                          .partitions = 2,
                          .bytes = BYTES,
                          .order = 1};
    send_raw(TW_MPI_PART, &send, sizeof send);
    tw_part_msg_t clear;
    CHECK(next_from_0(TW_MPI_PART, &clear, sizeof clear) == sizeof clear);
    CHECK(clear.op == TW_PART_CLEAR && clear.sreq == sreq && clear.bytes == BYTES &&
          clear.partitions == PARTS);
    static unsigned char data[BYTES], noise[BYTES];
    for (size_t i = 0; i < BYTES; i++) {
        data[i] = pattern(i);
        noise[i] = 0xee;
    }
    uint64_t cookie = tw_part_cookie(sreq, clear.rreq);
    const size_t half = BYTES / 2;
    put(noise, half, clear.nla + 1, clear.key, cookie);                /* not at a partition */
    put(noise, PART, clear.nla, clear.key, cookie);                    /* another length */
    put(noise, half, clear.nla + half, clear.key, cookie ^ 0x3000000); /* another request */
    put(data, half, clear.nla, clear.key, cookie);                     /* partition 0 ... */
    put(data, half, clear.nla, clear.key, cookie);                     /* ... twice */
    OK(tw_rma_flush(ep, 0));
    int32_t v = 1;
    send_hdr(TW_MPI_EAGER, 4, 0, &v, sizeof v); /* rank 0 looks now */
    unsigned char m[64];
    next_from_0(TW_MPI_EAGER, m, sizeof m); /* it looked */
    put(data + half, half, clear.nla + half, clear.key, cookie);
    OK(tw_rma_flush(ep, 0));

    /* a send of twice the size of rank 0's receive */
    tw_part_msg_t big = {.op = TW_PART_SEND,
                         .tag = MISMATCH_TAG,
                         .sreq = sreq + 1,
                         .partitions = 2,
                         .bytes = 2 * BYTES,
                         .order = 1};
    send_raw(TW_MPI_PART, &big, sizeof big);
    CHECK(next_from_0(TW_MPI_PART, &clear, sizeof clear) == sizeof clear);
    CHECK(clear.op == TW_PART_CLEAR && clear.sreq == sreq + 1 && clear.bytes == BYTES);

    /* MPI_Finalize's barrier, as tests/mpi/hostile.c answers it */
    send_hdr(TW_MPI_EAGER, 1, TW_CTX_COLL, NULL, 0);
    for (;;) {
        tw_mpi_hdr_t hh;
        size_t n = next_from_0(TW_MPI_EAGER, m, sizeof m);
        memcpy(&hh, m, sizeof hh);
        if (n == sizeof hh && hh.context == TW_CTX_COLL) break;
    }
    OK(tw_ep_barrier(ep)); /* as MPI_Finalize does */
    OK(tw_ep_close(ep));
}

/* ---- rank 0: MPI ---- */

static void mpi_rank(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static unsigned char in[BYTES], other[BYTES];
    MPI_Request req, mismatch;
    CHECK(MPI_Precv_init(in, PARTS, PART, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
          MPI_SUCCESS);
    CHECK(MPI_Precv_init(other, 2, BYTES / 2, MPI_BYTE, 1, MISMATCH_TAG, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &mismatch) == MPI_SUCCESS);
    CHECK(MPI_Start(&req) == MPI_SUCCESS);
    int v, flag = 0;
    CHECK(MPI_Recv(&v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    /* partition 0 of the sender's (0 and 1 of ours) landed, and nothing else counted */
    double give_up = MPI_Wtime() + 120;
    for (int k = 0; k < 2; k++) do {
            CHECK(MPI_Wtime() < give_up);
            CHECK(MPI_Parrived(req, k, &flag) == MPI_SUCCESS);
        } while (!flag);
    for (int k = 2; k < 4; k++) {
        CHECK(MPI_Parrived(req, k, &flag) == MPI_SUCCESS);
        CHECK(!flag);
    }
    CHECK(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(!flag); /* the partition put twice did not count twice */
    CHECK(MPI_Send(&v, 1, MPI_INT, 1, 8, MPI_COMM_WORLD) == MPI_SUCCESS);
    MPI_Status st;
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == TAG);
    for (size_t i = 0; i < BYTES; i++) CHECK(in[i] == pattern(i));
    CHECK(MPI_Start(&mismatch) == MPI_SUCCESS);
    int rc = MPI_Wait(&mismatch, MPI_STATUS_IGNORE), cls = rc;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE);
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS && MPI_Request_free(&mismatch) == MPI_SUCCESS);
    MPI_Finalize();
    printf("partitioned_hostile: rank 0 dropped or refused everything the native peer forged\n");
}

int main(int argc, char **argv) {
    const char *r = getenv("PMI_RANK");
    if (r && !strcmp(r, "1")) {
        rank = 1;
        native_peer();
    } else {
        mpi_rank(argc, argv);
    }
    return 0;
}
