/* An endpoint's private state and the layout of its shared segment. */
#ifndef TW_DEVICE_ENDPOINT_H
#define TW_DEVICE_ENDPOINT_H

#include <stdint.h>

#include <tollway/endpoint.h>

#include "device/ring.h"
#include "link/shm.h"
#include "runtime/job.h"

#define TW_SEGMENT_MAGIC        0x3147455357544e45ull /* "ENTWSEG1" */
#define TW_SEGMENT_VERSION      1u
#define TW_SEGMENT_SLOTS_OFFSET 4096u

/* The head of an endpoint's segment; the VELO slots follow at
 * TW_SEGMENT_SLOTS_OFFSET. Written by the owner before it announces its address;
 * checked field by field by every peer that maps it. */
typedef struct tw_segment_header {
    uint64_t magic;
    uint64_t job_key;
    uint32_t version;
    uint32_t rank;
    uint32_t index;
    uint32_t velo_slots;
    int32_t owner_pid;
    tw_ring_ctrl_t velo_ctrl;
} tw_segment_header_t;

/* What a sender keeps per peer it has talked to. */
typedef struct tw_peer {
    tw_ring_producer_t velo;
    void *segment;
    size_t segment_size;
} tw_peer_t;

struct tw_ep {
    /* receive side first: the poll path touches only this line and the mailbox */
    tw_ring_consumer_t velo_rx;
    tw_ep_stats_t stats;
    int rank, size;
    tw_peer_t **peers; /* by rank; NULL until first contact */
    int index;
    int yield_when_idle;
    int peeked; /* a message handed out by tw_velo_peek and not yet released */
    tw_job_t *job;
    tw_segment_header_t *segment;
    size_t segment_size;
    char segment_name[TW_SHM_NAME_MAX];
};

/* Maps rank's mailbox on first contact. TW_OK or TW_ERR_PEER / TW_ERR_NOMEM. */
int tw_ep_connect(tw_ep_t *ep, int rank);

/* Pause between polls in blocking calls: a CPU hint, or the core given away
 * when this node has more ranks than cores. */
void tw_ep_idle(tw_ep_t *ep, unsigned *spins);

#endif
