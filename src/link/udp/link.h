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

/* The decoding of what arrives (exposed for the fuzz target): the device message in one
 * link message of len bytes from source (of peers) handed to the callback of dev for
 * its kind, with the body after the link's header; the callback's verdict, or
 * TW_ERR_CORRUPT when it is no device message. tw_link_udp_land likewise asks the
 * device where a message received in place goes (prefix holds its first bytes, len is
 * its length); NULL to take it the usual way, else *skip is the bytes that stay. */
int tw_link_udp_deliver(const tw_link_device_t *dev, void *dev_ctx, uint32_t peers, uint32_t source,
                        const void *msg, size_t len);
void *tw_link_udp_land(const tw_link_device_t *dev, void *dev_ctx, uint32_t peers, uint32_t source,
                       const void *prefix, size_t len, size_t *skip);

#endif
