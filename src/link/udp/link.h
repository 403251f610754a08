/* The udp link (link.c: its table; udp.c: the transport under it). */
#ifndef TW_LINK_UDP_LINK_H
#define TW_LINK_UDP_LINK_H

#include <netinet/in.h>
#include <stdint.h>

#include "link/link.h"
#include "link/udp/udp.h"

extern const tw_link_t tw_link_udp;

/* The IPv4 address the link binds (TW_UDP_ADDR; loopback for a job all on this node;
 * else the first interface that is up): the ofi link's liveness socket binds it too
 * where its provider has no IPv4 address of its own. */
void tw_link_udp_bind_address(const tw_config_t *cfg, int all_local, struct sockaddr_in *a);

/* For tests that speak to the transport directly, or count what the link refused. */
tw_udp_link_t *tw_link_udp_transport(tw_link_ctx_t *l);
/* Link messages that were no device message (or that the device found malformed). */
uint64_t tw_link_udp_malformed(const tw_link_ctx_t *l);

#endif
