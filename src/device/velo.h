/* The VELO unit: the format of a mailbox record, and what links that carry device
 * messages hand it. The mailbox itself is a ring (ring.h) in the endpoint's segment;
 * its consumer is the first field of the endpoint (endpoint.h). */
#ifndef TW_DEVICE_VELO_H
#define TW_DEVICE_VELO_H

#include <stddef.h>
#include <stdint.h>

/* VELO status word bits above the ring's own: tag in 16..24 (a peer's up to
 * TW_VELO_TAG_MAX, the device's own TW_VELO_TAG_LOST), source rank in 25..56. */
#define TW_VELO_TAG_SHIFT    16
#define TW_VELO_TAG_MASK     0x1ffu
#define TW_VELO_SOURCE_SHIFT 25

/* A VELO message from a peer on another node (tw_link_device_t.velo), put into our
 * own mailbox as a sender on this node would. dev is the receiving tw_ep_link_t. */
int tw_velo_link_deliver(void *dev, uint32_t source, unsigned tag, const void *data, size_t len);

#endif
