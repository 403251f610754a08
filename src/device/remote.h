/* Peers on other nodes, reached over the udp link (remote.c). */
#ifndef TW_DEVICE_REMOTE_H
#define TW_DEVICE_REMOTE_H

#include <stddef.h>
#include <stdio.h>

#include "device/rma_wire.h"

/* Opens the endpoint's udp link; its address ("udp:<ip>:<port>") into addr. */
int tw_remote_open(tw_ep_t *ep, char *addr, size_t cap);
/* Tells the link where rank is, from the address rank published. */
int tw_remote_connect(tw_ep_t *ep, int rank, const char *addr);
/* tw_velo_sendv to a peer on another node. */
int tw_remote_velo_send(tw_ep_t *ep, int dest, unsigned tag, const void *hdr, size_t hlen,
                        const void *buf, size_t len);
/* An RMA request (rma.c) to a peer on another node, len bytes of put data after
 * it: TW_OK, TW_RETRY (the window is full), or the link's error. */
int tw_remote_rma_request(tw_ep_t *ep, int dest, const rma_req_t *r, const void *data, size_t len);
/* Bytes of put data per request, and of get data per answer, to peers on other nodes:
 * as much as one datagram of the link holds, from RMA_CHUNK to REMOTE_CHUNK_MAX. */
uint64_t tw_remote_chunk(tw_ep_t *ep);
/* 1 when a request carrying len bytes of data to dest fits the link's window now. */
int tw_remote_can_request(tw_ep_t *ep, int dest, size_t len);
/* 1 when an answer can be sent now or queued: checked before a request is served. */
int tw_remote_can_answer(tw_ep_t *ep);
/* Sends an answer (len bytes of get data after it), or queues it behind others. With
 * may_wait (a put's chunk but its last, done) it may be held back instead, to go as
 * one answer with those of the operation's next chunks (rma_answer_t.chunks). */
void tw_remote_rma_answer(tw_ep_t *ep, int dest, const rma_answer_t *a, const void *data,
                          size_t len, int may_wait);
/* Receives from the link into the mailbox, acknowledges, retransmits; takes the
 * device lock when there is a progress thread. */
int tw_remote_progress(tw_ep_t *ep);
/* The same, for a caller that holds the lock (or where there is no thread). */
int tw_remote_poll(tw_ep_t *ep);
void tw_remote_close(tw_ep_t *ep);
void tw_remote_print_stats(tw_ep_t *ep, FILE *out);

#endif
