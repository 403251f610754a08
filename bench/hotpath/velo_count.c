/* Instructions of the native hot paths, counted by callgrind: an 8-byte tw_velo_send,
 * a tw_velo_poll that finds an 8-byte message, and one that finds nothing. Rank 0
 * sends N messages and meets rank 1 in the job barrier (which does not poll the
 * mailbox); rank 1 then polls them, all already there, then polls N times more on an
 * empty mailbox. Each phase is collected alone and dumped under its own name, so the
 * counts hold no waiting and do not depend on timing. Run under twrun -n 2 with
 * valgrind --tool=callgrind --collect-atstart=no (hotpath/instructions.sh does). */
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/callgrind.h>

#include <tollway/tollway.h>

static void fail(const char *what, int rc) {
    fprintf(stderr, "velo_count: %s: %s\n", what, tw_strerror(rc));
    exit(1);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    if (n < 1 || n > 2000) {
        fprintf(stderr, "velo_count: N must be 1..2000 (it must fit one mailbox)\n");
        return 2;
    }
    tw_ep_t *ep;
    int rc = tw_ep_open(&ep);
    if (rc) fail("tw_ep_open", rc);
    if (tw_ep_size(ep) != 2) {
        fprintf(stderr, "velo_count: needs exactly 2 ranks\n");
        return 2;
    }
    char buf[8] = "8 bytes";
    tw_velo_msg_t msg;
    if (tw_ep_rank(ep) == 0) { /* warm up: map the peer, touch the code */
        if ((rc = tw_velo_send(ep, 1, 1, buf, 8))) fail("tw_velo_send", rc);
    } else {
        if ((rc = tw_velo_recv(ep, &msg, buf, sizeof buf))) fail("tw_velo_recv", rc);
    }
    tw_ep_barrier(ep);
    if (tw_ep_rank(ep) == 0) {
        CALLGRIND_TOGGLE_COLLECT;
        for (int i = 0; i < n; i++)
            if ((rc = tw_velo_send(ep, 1, 1, buf, 8))) fail("tw_velo_send", rc);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT("velo-send-8B");
        tw_ep_barrier(ep);
    } else {
        tw_ep_barrier(ep);
        CALLGRIND_TOGGLE_COLLECT;
        for (int i = 0; i < n; i++)
            if ((rc = tw_velo_poll(ep, &msg, buf, sizeof buf))) fail("tw_velo_poll", rc);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT("velo-poll-found-8B");
        CALLGRIND_TOGGLE_COLLECT;
        for (int i = 0; i < n; i++)
            if ((rc = tw_velo_poll(ep, &msg, buf, sizeof buf)) != TW_EMPTY)
                fail("tw_velo_poll of an empty mailbox", rc);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT("velo-poll-empty");
    }
    tw_ep_barrier(ep);
    tw_ep_close(ep);
    return 0;
}
