/* The IPv4 address a link binds (ip_address.h). */
#include "link/ip_address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>

void tw_link_ip_address(const tw_config_t *cfg, int all_local, struct sockaddr_in *a) {
    *a = (struct sockaddr_in){.sin_family = AF_INET};
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (cfg->udp_addr[0]) {
        inet_pton(AF_INET, cfg->udp_addr, &a->sin_addr);
        return;
    }
    if (all_local) return;
    struct ifaddrs *all;
    if (getifaddrs(&all)) return;
    for (struct ifaddrs *i = all; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
            !(i->ifa_flags & IFF_LOOPBACK)) {
            a->sin_addr = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
            break;
        }
    freeifaddrs(all);
}
