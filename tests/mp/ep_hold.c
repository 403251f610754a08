/* Holds an endpoint open for a while, then checks that its own mailbox still works
 * (a message to itself comes back whole): what a second job with the same id must not
 * take away. Prints "open" once the endpoint is, so a script knows when to start the
 * second job. usage: ep_hold SECONDS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_check.h"

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 0;
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    mp_rank = tw_ep_rank(ep);
    printf("open\n");
    fflush(stdout);
    for (int s = 0; s < seconds; s++) sleep(1);
    char out[32] = "still mine", in[32] = {0};
    CHECK_RC(tw_velo_send(ep, mp_rank, 3, out, sizeof out), TW_OK);
    tw_velo_msg_t m;
    CHECK_RC(tw_velo_recv(ep, &m, in, sizeof in), TW_OK);
    CHECK(m.length == sizeof out && memcmp(in, out, sizeof out) == 0);
    CHECK_RC(tw_ep_close(ep), TW_OK);
    printf("ep_hold: the endpoint stayed whole\n");
    return 0;
}
