/* Malformed RMA requests and answers over the udp link: rank 1 writes link messages
 * by hand that no device would send (short, lengths that do not add up, unknown
 * operations, a forged source, chunks outside their operation, answers to nothing).
 * Rank 0 drops and counts every one, touches no memory, writes no notification, and
 * still serves a valid put afterwards. Needs 2 ranks and TW_LINK=udp. */
#include <string.h>

#include "device/endpoint.h"
#include "device/rma.h"
#include "link/udp/link.h"
#include "mp_rma.h"

/* The endpoint's udp link, NULL when it has none. */
static tw_link_ctx_t *udp_link_ctx(tw_ep_t *ep) {
    for (unsigned i = 0; i < ep->nlinks; i++)
        if (ep->links[i].link == &tw_link_udp) return ep->links[i].ctx;
    return NULL;
}

enum { TAG_REGION = 1, TAG_DONE, MEMLEN = 4096 };

/* The device's message header on the link (link/udp/link.c): kind, unused, tag. */
enum { KIND_RMA_REQ = 2, KIND_RMA_ANSWER = 3 };

static void send_raw(tw_ep_t *ep, uint8_t kind, const void *body, size_t len) {
    unsigned char msg[4 + sizeof(rma_req_t) + 64] = {kind};
    CHECK(len <= sizeof msg - 4);
    memcpy(msg + 4, body, len);
    int rc;
    while ((rc = tw_udp_send(tw_link_udp_transport(udp_link_ctx(ep)), 0, msg, 4 + len)) == TW_RETRY)
        tw_progress(ep);
    CHECK_RC(rc, TW_OK);
}

static void send_req(tw_ep_t *ep, const rma_req_t *r, size_t data_len) {
    unsigned char body[sizeof *r + 64] = {0};
    memcpy(body, r, sizeof *r);
    send_raw(ep, KIND_RMA_REQ, body, sizeof *r + data_len);
}

int main(void) {
    atexit(print_where);
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep);
    CHECK(tw_ep_size(ep) == 2);
    CHECK(udp_link_ctx(ep) != NULL); /* TW_LINK=udp */
    tw_region_t reg;
    unsigned char *mem = NULL;
    if (rank == 0) {
        mem = malloc(MEMLEN);
        CHECK(mem != NULL);
        memset(mem, 0x5a, MEMLEN);
        CHECK_RC(tw_reg(ep, mem, MEMLEN, TW_PERM_READ | TW_PERM_WRITE, &reg), TW_OK);
        send_msg(ep, 1, TAG_REGION, &reg, sizeof reg);
    } else {
        recv_msg(ep, TAG_REGION, &reg, sizeof reg);
        /* a valid put of 8 bytes, each case spoils one field of it */
        const rma_req_t good = {.op = TW_OP_PUT,
                                .notify = TW_NOTIFY_COMPLETER,
                                .source = 1,
                                .handle = 1,
                                .chunk_len = 8,
                                .nla = reg.nla,
                                .key = reg.key,
                                .total = 8};
        int sent = 0;
        rma_req_t r;
        snprintf(where, sizeof where, "sending malformed requests");
        send_raw(ep, KIND_RMA_REQ, &good, 10), sent++;           /* shorter than a request */
        r = good, r.chunk_len = 16, send_req(ep, &r, 8), sent++; /* data shorter than said */
        r = good, r.op = 9, send_req(ep, &r, 8), sent++;         /* no such operation */
        r = good, r.source = 0, send_req(ep, &r, 8), sent++;     /* not who sent it */
        r = good, r.offset = 4, send_req(ep, &r, 8), sent++;     /* chunk past the end */
        r = good, r.total = 1ull << 62, r.offset = r.total - 4, send_req(ep, &r, 8), sent++;
        r = good, r.notify = TW_NOTIFY_RESPONDER, send_req(ep, &r, 8), sent++; /* not for a put */
        r = good, r.op = TW_OP_GET, send_req(ep, &r, 8), sent++; /* a get carries no data */
        r = good, r.op = TW_OP_ATOMIC, r.width = 3, r.atomic_op = TW_ATOMIC_FADD, r.total = 3,
        r.chunk_len = 0, send_req(ep, &r, 0), sent++; /* no such width */
        r = good, r.op = TW_OP_PUT_IMM, r.chunk_len = 16, r.total = 16, send_req(ep, &r, 16),
        sent++; /* an immediate holds 8 bytes at most */
        rma_answer_t a = {.handle = 7, .kind = ANSWER_ACK};
        send_raw(ep, KIND_RMA_ANSWER, &a, sizeof a), sent++; /* answers nothing */
        send_raw(ep, KIND_RMA_ANSWER, &a, 6), sent++;        /* shorter than an answer */
        a.kind = 9, send_raw(ep, KIND_RMA_ANSWER, &a, sizeof a), sent++;
        send_msg(ep, 0, TAG_DONE, &sent, sizeof sent); /* after them on the same stream */
    }
    if (rank == 0) {
        int sent;
        snprintf(where, sizeof where, "taking malformed requests");
        recv_msg(ep, TAG_DONE, &sent, sizeof sent);
        if (tw_link_udp_malformed(udp_link_ctx(ep)) != (uint64_t)sent)
            fprintf(stderr, "rank 0: %llu malformed counted, %d sent\n",
                    (unsigned long long)tw_link_udp_malformed(udp_link_ctx(ep)), sent);
        CHECK(tw_link_udp_malformed(udp_link_ctx(ep)) == (uint64_t)sent);
        CHECK(all_bytes(mem, MEMLEN, 0x5a));
        nq_empty(ep);
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    /* the device still serves a valid one */
    snprintf(where, sizeof where, "a valid put after them");
    if (rank == 1) {
        uint64_t v = 0x0123456789abcdefull;
        int rc;
        while ((rc = tw_put(ep, 0, &v, 8, reg.nla + 64, reg.key, TW_NOTIFY_REQUESTER, 5)) ==
               TW_RETRY)
            tw_progress(ep);
        CHECK_RC(rc, TW_OK);
        tw_notification_t n;
        nq_next(ep, &n);
        CHECK(n.cls == TW_NOTIFY_REQUESTER && n.status == TW_OK && n.cookie == 5);
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    if (rank == 0) {
        uint64_t v;
        memcpy(&v, mem + 64, 8);
        CHECK(v == 0x0123456789abcdefull);
        CHECK_RC(tw_dereg(ep, &reg), TW_OK);
        free(mem);
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    return 0;
}
