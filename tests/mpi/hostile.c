/* An MPI rank facing a peer that does not follow the protocol: rank 0 runs MPI,
 * rank 1 speaks the native API and sends what a broken or malicious peer could —
 * messages too short for a header, unknown protocol tags, requests-to-send of the
 * wrong length or naming memory with the wrong key, clear-to-sends naming unknown
 * sends, ranges past the buffer, a send already complete or a send to another
 * rank, notifications whose cookie names a send to another rank, and pipelined
 * messages' pieces with nothing to continue, of the wrong length, of a size of 0 or
 * too large to keep, or a first piece while one is under way, a synchronous eager
 * message too short to name its send, and a rendezvous by pieces
 * whose first piece names another receive or send, or carries too little. Rank 0 must
 * drop or refuse
 * each one (MPI_ERR_OTHER on the receive it concerns, under MPI_ERRORS_RETURN),
 * never hang, and keep its buffers and its other traffic intact. Needs 2 ranks; run
 * with TW_LINK=udp too, where rank 0's rendezvous sends ask to put the message. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/tollway.h>

#include "mpi/comm/comm.h"
#include "mpi/pt2pt/wire.h"
#include "mpi_check.h"

enum { BIG = 1 << 20 };

/* ---- rank 1: the native peer ---- */

static tw_ep_t *ep;

#define OK(call) CHECK((call) == TW_OK)

static void send_hdr(unsigned velo_tag, int32_t tag, uint32_t context, const void *body,
                     size_t len) {
    tw_mpi_hdr_t h = {tag, context};
    while (tw_velo_sendv(ep, 0, velo_tag, &h, sizeof h, body, len) == TW_RETRY) tw_progress(ep);
}

static void send_raw(unsigned velo_tag, const void *body, size_t len) {
    while (tw_velo_send(ep, 0, velo_tag, body, len) == TW_RETRY) tw_progress(ep);
}

/* The next message from rank 0 with the given VELO tag; others are skipped. */
static size_t next_from_0(unsigned velo_tag, void *buf, size_t cap) {
    for (;;) {
        tw_velo_msg_t m;
        OK(tw_velo_recv(ep, &m, buf, cap));
        if (m.tag == velo_tag) return m.length;
    }
}

static void native_peer(void) {
    OK(tw_ep_open(&ep));
    CHECK(tw_ep_rank(ep) == 1 && tw_ep_size(ep) == 2);
    /* junk: shorter than a header; an unknown tag; an RTS and a CTS of the wrong size */
    send_raw(TW_MPI_EAGER, "abc", 3);
    send_hdr(200, 1, 0, "x", 1);
    send_hdr(TW_MPI_RTS, 1, 0, "short", 5);
    send_raw(TW_MPI_CTS, "short", 5);

    /* the handle of rank 0's split send to itself, which must not be ours to touch */
    unsigned char e[64];
    CHECK(next_from_0(TW_MPI_EAGER, e, sizeof e) == sizeof(tw_mpi_hdr_t) + sizeof(int));
    uint32_t to_self;
    memcpy(&to_self, e + sizeof(tw_mpi_hdr_t), sizeof to_self);

    /* rank 0's split send of BIG bytes, tag 1: its RTS names the buffer */
    unsigned char m[sizeof(tw_mpi_hdr_t) + sizeof(tw_mpi_rts_t)];
    CHECK(next_from_0(TW_MPI_RTS, m, sizeof m) == sizeof m);
    tw_mpi_rts_t rts;
    memcpy(&rts, m + sizeof(tw_mpi_hdr_t), sizeof rts);
    /* a split on one node; across nodes (TW_LINK=udp) the sender puts it all */
    tw_link_caps_t caps;
    OK(tw_ep_link_caps(ep, 0, &caps));
    int across = !strcmp(caps.name, "udp");
    CHECK(rts.size == BIG && rts.split == (across ? TW_RTS_PUT : TW_RTS_SPLIT));
    /* CTSes that must be dropped: an unknown send, a range past the buffer, one
     * whose end wraps around; across nodes, one that does not start at 0. Taken, the
     * last would make rank 0 put 16 bytes to a key that faults, and its send fail. */
    tw_mpi_cts_t bad[5] = {{rts.sreq ^ 0x00ff0000u, 0, 0, 0, 0, 0},
                           {rts.sreq, 0, 0, 0, BIG - 8, 16},
                           {rts.sreq, 0, 0, 0, 8, UINT64_MAX},
                           {to_self, 0, 0, 0, 0, 0},
                           {rts.sreq, 0, 0, 0, 8, 16}};
    for (int k = 0; k < 4 + across; k++) send_raw(TW_MPI_CTS, &bad[k], sizeof bad[k]);
    /* gets whose responder notifications name rank 0's send to itself: they would
     * complete it, and free its buffer before its receive, if rank 0 believed them */
    unsigned char *got = malloc(BIG);
    CHECK(got);
    for (int k = 0; k < 2; k++)
        OK(tw_get(ep, 0, got, 64, rts.nla, rts.key, TW_NOTIFY_RESPONDER, (uint64_t)to_self << 32));
    /* now the honest way: get it all, tell rank 0 there is no put to wait for */
    OK(tw_get(ep, 0, got, BIG, rts.nla, rts.key, TW_NOTIFY_RESPONDER, (uint64_t)rts.sreq << 32));
    OK(tw_rma_flush(ep, 0)); /* across nodes the get completes when its answers come */
    for (size_t i = 0; i < BIG; i++) CHECK(got[i] == (unsigned char)(i * 7));
    tw_mpi_cts_t none = {rts.sreq, 0, 0, 0, 0, 0};
    send_raw(TW_MPI_CTS, &none, sizeof none);
    send_raw(TW_MPI_CTS, &none, sizeof none); /* again, for a send now complete */

    /* RTSes naming our buffer with a wrong key: tag 5 plain, tag 6 asking for a split */
    tw_region_t region;
    OK(tw_reg(ep, got, BIG, TW_PERM_READ, &region));
    for (int k = 0; k < 2; k++) {
        tw_mpi_rts_t lie = {BIG, region.nla, region.key + 1, 77, (uint32_t)k};
        send_hdr(TW_MPI_RTS, 5 + k, 0, &lie, sizeof lie);
    }
    /* pipelined pieces: a piece with no message under way; first pieces of a size of 0,
     * of more than a pipelined message may be, or with less data than they should
     * carry; then a message of tag 8 and 5000 bytes whose second piece comes first
     * with the wrong length (dropped) and a first piece of another message between
     * (dropped), then as it should */
    unsigned char piece[2 * TW_VELO_MAX_SIZE];
    for (size_t i = 0; i < sizeof piece; i++) piece[i] = (unsigned char)(i * 3);
    send_raw(TW_MPI_MORE, piece, 100);
    struct {
        tw_mpi_hdr_t h;
        tw_mpi_first_t f;
    } first = {.h = {8, 0}, .f = {.size = 0}};
    send_raw(TW_MPI_FIRST, &first, sizeof first);
    first.f.size = (uint64_t)1 << 40;
    send_raw(TW_MPI_FIRST, &first, sizeof first);
    first.f.size = 5000;
    unsigned char m1[sizeof first + TW_MPI_FIRST_PIECE];
    memcpy(m1, &first, sizeof first);
    memcpy(m1 + sizeof first, piece, TW_MPI_FIRST_PIECE);
    send_raw(TW_MPI_FIRST, m1, sizeof m1 - 1);
    send_raw(TW_MPI_FIRST, m1, sizeof m1);
    send_raw(TW_MPI_MORE, piece + TW_MPI_FIRST_PIECE, 5000 - TW_MPI_FIRST_PIECE + 1);
    send_raw(TW_MPI_FIRST, m1, sizeof m1);
    send_raw(TW_MPI_MORE, piece + TW_MPI_FIRST_PIECE, 5000 - TW_MPI_FIRST_PIECE);
    send_raw(TW_MPI_MORE, piece, 1); /* the message is whole: nothing to continue */

    /* a synchronous eager message too short to name its send, of the good one's tag */
    int32_t v = 12345, bad_v = 666;
    send_hdr(TW_MPI_SYNC, 7, 0, &bad_v, sizeof bad_v);
    send_hdr(TW_MPI_EAGER, 7, 0, &v, sizeof v); /* and a good message after all that */

    /* a rendezvous by pieces of 5000 bytes, tag 9: once rank 0's CTS says go, first
     * pieces naming another receive, another send, or one byte short (all dropped),
     * then as it should, then a first piece again for the receive now complete */
    tw_mpi_rts_t by_pieces = {5000, 0, 0, 0x2c0a0001u, TW_RTS_PIECES};
    send_hdr(TW_MPI_RTS, 9, 0, &by_pieces, sizeof by_pieces);
    tw_mpi_cts_t go;
    do /* (past the CTS of the lying split above) */
        CHECK(next_from_0(TW_MPI_CTS, &go, sizeof go) == sizeof go);
    while (go.sreq != by_pieces.sreq);
    CHECK(!go.offset && !go.len && !go.nla);
    tw_mpi_pieces_t head = {by_pieces.sreq, go.rreq ^ 0x00ff0000u, {0}};
    unsigned char p1[sizeof head + TW_MPI_FIRST_PIECE];
    for (int k = 0; k < 4; k++) { /* the forged ones carry other data */
        head.rreq = k == 0 ? go.rreq ^ 0x00ff0000u : go.rreq;
        head.sreq = k == 1 ? by_pieces.sreq + 1 : by_pieces.sreq;
        memcpy(p1, &head, sizeof head);
        memcpy(p1 + sizeof head, piece + 1 + (k < 3), TW_MPI_FIRST_PIECE);
        send_raw(TW_MPI_PIECES, p1, sizeof p1 - (k == 2));
    }
    send_raw(TW_MPI_MORE, piece + 1 + TW_MPI_FIRST_PIECE, 5000 - TW_MPI_FIRST_PIECE);
    send_raw(TW_MPI_PIECES, p1, sizeof p1);

    /* MPI_Finalize's barrier: one zero-byte message each way on context 1, under
     * the tag of the first collective on MPI_COMM_WORLD */
    send_hdr(TW_MPI_EAGER, 1, TW_CTX_COLL, NULL, 0);
    unsigned char h[64];
    for (;;) {
        tw_mpi_hdr_t hh;
        size_t n = next_from_0(TW_MPI_EAGER, h, sizeof h);
        memcpy(&hh, h, sizeof hh);
        if (n == sizeof hh && hh.context == TW_CTX_COLL) break;
    }
    OK(tw_dereg(ep, &region));
    free(got);
    OK(tw_ep_barrier(ep)); /* as MPI_Finalize does */
    OK(tw_ep_close(ep));
}

/* ---- rank 0: MPI ---- */

static void mpi_rank(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *out = malloc(BIG), *in = malloc(BIG);
    CHECK(out && in);
    for (size_t i = 0; i < BIG; i++) out[i] = (unsigned char)(i * 7);
    MPI_Request send, to_self;
    CHECK(MPI_Isend(out, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &to_self) == MPI_SUCCESS);
    CHECK(MPI_Send(&to_self, 1, MPI_INT, 1, 3, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Isend(out, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &send) == MPI_SUCCESS);
    CHECK(MPI_Wait(&send, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int k = 0; k < 2; k++) { /* the RTSes with a wrong key fail, buffer untouched */
        memset(in, 0x5a, BIG);
        MPI_Status st;
        CHECK(MPI_Recv(in, BIG, MPI_BYTE, 1, 5 + k, MPI_COMM_WORLD, &st) == MPI_ERR_OTHER);
        for (size_t i = 0; i < BIG; i++) CHECK(in[i] == 0x5a);
    }
    int v = 0, flag = 1, count = 0;
    CHECK(MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(v == 12345);
    /* the one pipelined message that was sent as it should, whole; nothing else came
     * of the pieces */
    MPI_Status st;
    memset(in, 0, 5000 + 64);
    CHECK(MPI_Recv(in, 5000 + 64, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 5000);
    for (size_t i = 0; i < 5000; i++) CHECK(in[i] == (unsigned char)(i * 3));
    CHECK(MPI_Iprobe(1, 8, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(!flag);
    flag = 1;
    /* the rendezvous by pieces, from the pieces that named it whole */
    memset(in, 0, 5000 + 64);
    CHECK(MPI_Recv(in, 5000 + 64, MPI_BYTE, 1, 9, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 5000);
    for (size_t i = 0; i < 5000; i++) CHECK(in[i] == (unsigned char)((i + 1) * 3));
    CHECK(in[5000] == 0);
    /* the send to ourselves was not completed by the forged notifications: its
     * receive gets all of it */
    CHECK(MPI_Test(&to_self, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag);
    memset(in, 0, BIG);
    CHECK(MPI_Recv(in, BIG, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(!memcmp(in, out, BIG));
    CHECK(MPI_Wait(&to_self, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    free(out);
    free(in);
    MPI_Finalize();
    printf("hostile: rank 0 dropped or refused everything the native peer forged\n");
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
