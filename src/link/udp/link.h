/* The udp link (link.c: its table; udp.c: the transport under it). */
#ifndef TW_LINK_UDP_LINK_H
#define TW_LINK_UDP_LINK_H

#include <stdint.h>

#include "link/link.h"
#include "link/udp/udp.h"

extern const tw_link_t tw_link_udp;

/* For tests that speak to the transport directly, or count what the link refused. */
tw_udp_link_t *tw_link_udp_transport(tw_link_ctx_t *l);
/* Link messages that were no device message (or that the device found malformed). */
uint64_t tw_link_udp_malformed(const tw_link_ctx_t *l);

#endif
