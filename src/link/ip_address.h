/* The IPv4 address a link's sockets bind: the udp link's data and liveness sockets, and
 * the ofi link's liveness socket where its provider has no IPv4 address of its own. */
#ifndef TW_LINK_IP_ADDRESS_H
#define TW_LINK_IP_ADDRESS_H

#include <netinet/in.h>

#include "runtime/settings.h"

/* TW_UDP_ADDR when set; else loopback when the launcher says every rank of the job is
 * on this node (nothing needs to reach it from outside, so nothing outside can); else
 * the first IPv4 address of an interface that is up and not loopback, else loopback.
 * Port 0. */
void tw_link_ip_address(const tw_config_t *cfg, int all_local, struct sockaddr_in *a);

#endif
