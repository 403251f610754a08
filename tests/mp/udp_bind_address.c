/* Where the udp link of each rank is bound, against what the job's placement asks:
 * `loopback` when every rank is on this node (TW_LINK=udp on one host: nothing
 * outside needs to reach it, so nothing outside can), `external` when ranks are on
 * other hosts too. Needs TW_LINK=udp or a job across hosts. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "device/endpoint.h"
#include "link/udp/link.h"
#include "mp_check.h"

int main(int argc, char **argv) {
    CHECK(argc == 2 && (!strcmp(argv[1], "loopback") || !strcmp(argv[1], "external")));
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    mp_rank = tw_ep_rank(ep);
    tw_link_ctx_t *udp = NULL;
    for (unsigned i = 0; i < ep->nlinks; i++)
        if (ep->links[i].link == &tw_link_udp) udp = ep->links[i].ctx;
    CHECK(udp != NULL);
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    CHECK(getsockname(tw_udp_fd(tw_link_udp_transport(udp)), (struct sockaddr *)&a, &alen) == 0);
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
    int loopback = ntohl(a.sin_addr.s_addr) >> 24 == 127;
    printf("rank %d: udp link bound to %s\n", mp_rank, ip);
    CHECK(loopback == !strcmp(argv[1], "loopback"));
    tw_ep_close(ep);
    return 0;
}
