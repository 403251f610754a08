/* Peers declared lost (failure.c).
 *
 * A link that declares a peer lost — it stopped answering for TW_UDP_TIMEOUT, or it
 * reset the link because it had declared us lost — tells the device through
 * tw_link_device_t.peer_lost. The device remembers the cause, ends every operation of
 * ours that waits on that peer with it (RMA in flight: a fault notification), and puts
 * a TW_VELO_TAG_LOST message from that peer into our own mailbox: whoever waits on the
 * mailbox learns it there, among the messages, as a device's error completion; the
 * layer above fails what it waits for. A notice that finds the mailbox full waits for
 * room; the progress engine posts it (tw_dev_post_lost_notices). */
#ifndef TW_DEVICE_FAILURE_H
#define TW_DEVICE_FAILURE_H

#include <stdint.h>

#include "device/endpoint.h"

/* The cause a peer was declared lost with, and whether its notice is in the mailbox. */
typedef struct tw_lost {
    int8_t cause; /* 0: alive; TW_ERR_LOST, TW_ERR_RESET or TW_ERR_DESYNC */
    uint8_t noticed;
} tw_lost_t;

/* tw_link_device_t.peer_lost: dev is the tw_ep_link_t of the link that lost it.
 * Called under the device lock (from the link's poll). */
void tw_dev_peer_lost(void *dev, uint32_t peer, int cause);

/* Posts the notices that waited for room in the mailbox (ep->lost_owed of them). */
void tw_dev_post_lost_notices(tw_ep_t *ep);

#endif
