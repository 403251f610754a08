/* A token passed around a ring of ranks with the native VELO API.
 * Rank 0 starts a token; each rank adds its rank number and passes it on. After
 * LAPS laps rank 0 checks the sum, and the token grows on the way so every lap
 * also carries a message of a new size (up to the VELO maximum).
 * Run: twrun -n 4 build/bin/token_ring [laps] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/tollway.h>

typedef struct token {
    uint64_t sum;
    uint32_t lap;
    uint32_t hops;
    unsigned char pad[TW_VELO_MAX_SIZE - 16];
} token_t;

static void die(const char *what, int rc) {
    fprintf(stderr, "token_ring: %s: %s\n", what, tw_strerror(rc));
    exit(1);
}

static size_t token_size(uint32_t lap) {
    size_t s = 16 + (size_t)lap * 64;
    return s > sizeof(token_t) ? sizeof(token_t) : s;
}

int main(int argc, char **argv) {
    int laps = argc > 1 ? atoi(argv[1]) : 100;
    if (laps < 1) {
        fprintf(stderr, "usage: token_ring [laps >= 1]\n");
        return 2;
    }
    tw_ep_t *ep;
    int rc = tw_ep_open(&ep);
    if (rc) die("tw_ep_open", rc);
    int rank = tw_ep_rank(ep), size = tw_ep_size(ep);
    int next = (rank + 1) % size;
    token_t tok;
    memset(&tok, 0, sizeof tok);
    tw_velo_msg_t msg;

    for (int lap = 0; lap < laps; lap++) {
        if (rank == 0) { /* start the lap, then take the token back */
            tok.lap = (uint32_t)lap;
            while ((rc = tw_velo_send(ep, next, 1, &tok, token_size(tok.lap))) == TW_RETRY) {
            }
            if (rc) die("tw_velo_send", rc);
        }
        if ((rc = tw_velo_recv(ep, &msg, &tok, sizeof tok))) die("tw_velo_recv", rc);
        if (msg.length != token_size(tok.lap) || msg.source != (rank + size - 1) % size) {
            fprintf(stderr, "token_ring: rank %d got a wrong token (%zu bytes from %d)\n", rank,
                    msg.length, msg.source);
            return 1;
        }
        tok.sum += (uint64_t)rank;
        tok.hops++;
        if (rank != 0) {
            while ((rc = tw_velo_send(ep, next, 1, &tok, msg.length)) == TW_RETRY) {
            }
            if (rc) die("tw_velo_send", rc);
        }
    }
    if (rank == 0) {
        uint64_t want = (uint64_t)laps * ((uint64_t)size * (size - 1) / 2);
        int ok = tok.sum == want && tok.hops == (uint32_t)(laps * size);
        printf("token_ring: %d ranks, %d laps, %u hops, sum of ranks %llu (expected %llu): %s\n",
               size, laps, tok.hops, (unsigned long long)tok.sum, (unsigned long long)want,
               ok ? "correct" : "WRONG");
        if (!ok) return 1;
    }
    tw_ep_barrier(ep);
    tw_ep_close(ep);
    return 0;
}
