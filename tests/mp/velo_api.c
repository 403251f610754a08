/* The VELO API between two ranks: every size from 0 to the maximum with its bytes
 * checked, in one slot up to 56 bytes, some written in place by a fill; the in-place
 * receive; probe; and every
 * bad argument answered with its error code, never a crash, nothing lost. */
#include <stdint.h>
#include <string.h>

#include "mp_check.h"

static void pattern(unsigned char *buf, size_t len, size_t salt) {
    for (size_t i = 0; i < len; i++) buf[i] = (unsigned char)(i * 31 + salt);
}

/* A body written in place (tw_velo_send_fill): copied from ctx, counted. */
static int fills;
static void fill_from(void *ctx, void *to, size_t len) {
    fills++;
    memcpy(to, ctx, len);
}

/* Every size; every third one written in place by a fill, behind a header of up to
 * 7 bytes, so the receiver checks that header and body meet. */
static void send_all_sizes(tw_ep_t *ep, int dest) {
    unsigned char buf[TW_VELO_MAX_SIZE];
    for (size_t len = 0; len <= TW_VELO_MAX_SIZE; len++) {
        pattern(buf, len, len);
        unsigned tag = (unsigned)(len % 256);
        size_t hlen = len % 8 < len ? len % 8 : len;
        int rc, filled = fills;
        if (len % 3 == 1) {
            while ((rc = tw_velo_send_fill(ep, dest, tag, buf, hlen, len - hlen, fill_from,
                                           buf + hlen)) == TW_RETRY) {
            }
            CHECK(fills > filled); /* into a mailbox once; a link may ask again */
        } else {
            while ((rc = tw_velo_send(ep, dest, tag, buf, len)) == TW_RETRY) {
            }
        }
        CHECK_RC(rc, TW_OK);
    }
}

static void receive_all_sizes(tw_ep_t *ep, int source, int in_place) {
    unsigned char want[TW_VELO_MAX_SIZE], got[TW_VELO_MAX_SIZE];
    for (size_t len = 0; len <= TW_VELO_MAX_SIZE; len++) {
        tw_velo_msg_t msg;
        pattern(want, len, len);
        if (in_place) {
            int rc;
            while ((rc = tw_velo_peek(ep, &msg)) == TW_EMPTY) {
            }
            CHECK_RC(rc, TW_OK);
            CHECK(msg.length == len);
            CHECK(msg.slots_ == (len <= TW_VELO_INLINE_SIZE ? 1u : (uint32_t)(len + 8 + 63) / 64));
            CHECK(len == 0 || memcmp(msg.data, want, len) == 0);
            CHECK_RC(tw_velo_release(ep, &msg), TW_OK);
        } else {
            memset(got, 0xee, sizeof got);
            CHECK_RC(tw_velo_recv(ep, &msg, got, sizeof got), TW_OK);
            CHECK(msg.length == len);
            CHECK(memcmp(got, want, len) == 0);
        }
        CHECK(msg.source == source);
        CHECK(msg.tag == len % 256);
    }
}

static void bad_arguments(tw_ep_t *ep, int size) {
    unsigned char buf[TW_VELO_MAX_SIZE + 1] = {0};
    tw_velo_msg_t msg;
    CHECK_RC(tw_velo_send(ep, 0, 0, buf, TW_VELO_MAX_SIZE + 1), TW_ERR_SIZE);
    CHECK_RC(tw_velo_send(ep, 0, 0, buf, (size_t)-1), TW_ERR_SIZE);
    CHECK_RC(tw_velo_send(ep, size, 0, buf, 8), TW_ERR_RANK);
    CHECK_RC(tw_velo_send(ep, -1, 0, buf, 8), TW_ERR_RANK);
    CHECK_RC(tw_velo_send(ep, 0, TW_VELO_TAG_MAX + 1, buf, 8), TW_ERR_TAG);
    CHECK_RC(tw_velo_send(ep, 0, 0, NULL, 8), TW_ERR_ARG);
    CHECK_RC(tw_velo_send(NULL, 0, 0, buf, 8), TW_ERR_ARG);
    /* a fill: none, too long, or no room in a mailbox: an error, and the fill is never
     * called */
    int filled = fills;
    CHECK_RC(tw_velo_send_fill(ep, 0, 0, buf, 8, 8, NULL, buf), TW_ERR_ARG);
    CHECK_RC(tw_velo_send_fill(ep, 0, 0, buf, 8, TW_VELO_MAX_SIZE - 7, fill_from, buf),
             TW_ERR_SIZE);
    CHECK_RC(tw_velo_send_fill(ep, 0, 0, NULL, 8, 8, fill_from, buf), TW_ERR_ARG);
    CHECK_RC(tw_velo_send_fill(ep, size, 0, buf, 8, 8, fill_from, buf), TW_ERR_RANK);
    int queued = 0, rc;
    while ((rc = tw_velo_send(ep, tw_ep_rank(ep), 1, NULL, 0)) == TW_OK) queued++; /* a slot each */
    CHECK_RC(rc, TW_RETRY);
    CHECK_RC(tw_velo_send_fill(ep, tw_ep_rank(ep), 2, buf, 8, 8, fill_from, buf), TW_RETRY);
    CHECK(fills == filled);
    CHECK(queued > 0);
    for (; queued > 0; queued--) CHECK_RC(tw_velo_recv(ep, &msg, buf, sizeof buf), TW_OK);
    CHECK_RC(tw_velo_send(ep, tw_ep_rank(ep), 0, NULL, 0), TW_OK); /* empty: no buffer needed */
    CHECK_RC(tw_velo_recv(ep, &msg, NULL, 0), TW_OK);
    CHECK(msg.length == 0);
    CHECK_RC(tw_velo_poll(ep, NULL, buf, 8), TW_ERR_ARG);
    CHECK_RC(tw_velo_release(ep, &msg), TW_ERR_STATE); /* nothing peeked */
    char addr[256];
    CHECK_RC(tw_ep_address(ep, size, addr, sizeof addr), TW_ERR_RANK);
    CHECK_RC(tw_ep_address(ep, 0, addr, sizeof addr), TW_OK);
    CHECK(strncmp(addr, "shm:", 4) == 0);

    /* Too small a buffer: the message stays queued, whole. */
    pattern(buf, 300, 7);
    CHECK_RC(tw_velo_send(ep, tw_ep_rank(ep), 9, buf, 300), TW_OK);
    unsigned char small[100];
    CHECK_RC(tw_velo_poll(ep, &msg, small, sizeof small), TW_ERR_TRUNCATE);
    CHECK(msg.length == 300);
    CHECK_RC(tw_velo_probe(ep, &msg), TW_OK);
    CHECK(msg.length == 300 && msg.tag == 9);
    /* One peek at a time. */
    CHECK_RC(tw_velo_peek(ep, &msg), TW_OK);
    CHECK(msg.length == 300 && memcmp(msg.data, buf, 300) == 0); /* not lost, intact */
    tw_velo_msg_t other;
    CHECK_RC(tw_velo_peek(ep, &other), TW_ERR_STATE);
    CHECK_RC(tw_velo_poll(ep, &other, buf, sizeof buf), TW_ERR_STATE);
    CHECK_RC(tw_velo_release(ep, &msg), TW_OK);
    CHECK_RC(tw_velo_probe(ep, &msg), TW_EMPTY);
    /* unpeek: the message stays first, whole, and the next peek finds it again */
    CHECK_RC(tw_velo_unpeek(ep, &msg), TW_ERR_STATE); /* nothing peeked */
    CHECK_RC(tw_velo_send(ep, tw_ep_rank(ep), 4, buf, 20), TW_OK);
    CHECK_RC(tw_velo_send(ep, tw_ep_rank(ep), 5, buf, 30), TW_OK);
    CHECK_RC(tw_velo_peek(ep, &msg), TW_OK);
    CHECK(msg.tag == 4 && msg.length == 20);
    CHECK_RC(tw_velo_unpeek(ep, &msg), TW_OK);
    CHECK(msg.data == NULL);
    CHECK_RC(tw_velo_peek(ep, &msg), TW_OK);
    CHECK(msg.tag == 4 && msg.length == 20 && memcmp(msg.data, buf, 20) == 0);
    CHECK_RC(tw_velo_release(ep, &msg), TW_OK);
    CHECK_RC(tw_velo_recv(ep, &msg, small, sizeof small), TW_OK);
    CHECK(msg.tag == 5 && msg.length == 30);
}

int main(void) {
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep), size = tw_ep_size(ep);
    CHECK(size >= 2);
    if (rank == 0) {
        send_all_sizes(ep, 1);
        send_all_sizes(ep, 1);
    } else if (rank == 1) {
        receive_all_sizes(ep, 0, 0);
        receive_all_sizes(ep, 0, 1);
    }
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    bad_arguments(ep, size);
    CHECK(tw_ep_stats(ep)->peers_mapped >= 1);
    CHECK_RC(tw_ep_barrier(ep), TW_OK);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    return 0;
}
