/* The device messages a link that carries them sends (tw_link_t.velo_send,
 * rma_request, rma_answer): a small header naming the kind, then the VELO payload or
 * the RMA record (rma_wire.h) and its data. One format for every such link, and one
 * decoder handing what arrives to the device; a link adds what its transport lacks
 * (the ofi link: the sender's rank) in front. */
#ifndef TW_LINK_MESSAGE_H
#define TW_LINK_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "link/link.h"

enum { TW_LINK_MSG_VELO = 1, TW_LINK_MSG_RMA_REQ = 2, TW_LINK_MSG_RMA_ANSWER = 3 };

/* What precedes the payload of every device message. */
typedef struct tw_link_msg_hdr {
    uint8_t kind;
    uint8_t unused;
    uint16_t tag; /* a VELO message's */
} tw_link_msg_hdr_t;

/* The longest RMA message: its header, the record, the longest chunk. */
enum { TW_LINK_RMA_MSG_MAX = sizeof(tw_link_msg_hdr_t) + sizeof(rma_req_t) + REMOTE_CHUNK_MAX };

/* The device message in one link message of len bytes from source (of peers), handed to
 * the callback of dev for its kind, with the body after the header; the callback's
 * verdict, or TW_ERR_CORRUPT when it is no device message. These bytes come from
 * another process: everything is checked. */
int tw_link_msg_deliver(const tw_link_device_t *dev, void *dev_ctx, uint32_t peers, uint32_t source,
                        const void *msg, size_t len);
/* Receiving in place: asks the device where the data of the message (prefix holds its
 * first bytes, len is its length) goes; NULL to take it the usual way, else *skip is
 * the bytes that stay. */
void *tw_link_msg_land(const tw_link_device_t *dev, void *dev_ctx, uint32_t peers, uint32_t source,
                       const void *prefix, size_t len, size_t *skip);

#endif
