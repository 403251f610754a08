/* A program on Tollway's native API: the last rank sends its rank to rank 0 as a VELO
 * message. */
#include <stdio.h>
#include <tollway/tollway.h>

int main(void) {
    tw_ep_t *ep;
    int rc = tw_ep_open(&ep);
    if (rc) {
        fprintf(stderr, "tw_ep_open: %s\n", tw_strerror(rc));
        return 1;
    }
    int rank = tw_ep_rank(ep), size = tw_ep_size(ep), got = -1;
    if (size > 1 && rank == size - 1) {
        while ((rc = tw_velo_send(ep, 0, 1, &rank, sizeof rank)) == TW_RETRY)
            ;
    } else if (size > 1 && rank == 0) {
        tw_velo_msg_t msg;
        rc = tw_velo_recv(ep, &msg, &got, sizeof got);
        printf("Tollway native API %d.%d.%d: %d ranks, rank 0 got %d\n", TW_VERSION_MAJOR,
               TW_VERSION_MINOR, TW_VERSION_PATCH, size, got);
    }
    tw_ep_barrier(ep);
    tw_ep_close(ep);
    return rc != TW_OK;
}
