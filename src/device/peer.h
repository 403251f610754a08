/* What an endpoint keeps per peer it has talked to, and per link it has opened. */
#ifndef TW_DEVICE_PEER_H
#define TW_DEVICE_PEER_H

#include <stdint.h>
#include <sys/types.h>

#include <tollway/endpoint.h>

#include "device/atu.h"
#include "device/heap.h"
#include "device/ring.h"
#include "device/rma.h"
#include "device/segment.h"
#include "link/link.h"

/* The device's side of one open link: its table, its instance (NULL for a mapped
 * link, which has none), and the endpoint it delivers to. */
typedef struct tw_ep_link {
    const tw_link_t *link;
    tw_link_ctx_t *ctx;
    tw_ep_t *ep;
} tw_ep_link_t;

enum { TW_PEER_MAPPED = 1, TW_PEER_MAPPED_SLEEPS = 2 };

/* A peer: its link, and, when the link maps its segment, producer views of its
 * rings, its tables, and the peer's shared-heap blocks mapped so far. */
typedef struct tw_peer {
    tw_tlb_entry_t tlb[TW_TLB_ENTRIES];
    /* mapped next to velo: a send reads both, and they share a cache line */
    int mapped;          /* the link maps the peer's segment (TW_LINK_MAPPED): the device
                            writes its rings itself; else (0) everything goes through via, the link it is
                            reached by.          TW_PEER_MAPPED_SLEEPS when the peer may sleep in its waits:
                            a send to          it then takes a path that rings its doorbell */
    uint32_t unanswered; /* not mapped: RMA requests sent, not answered yet */
    tw_ring_producer_t velo, nq, req, resp;
    tw_ep_link_t *via;
    tw_segment_header_t *segment;
    size_t segment_size;
    tw_atu_entry_t *atu;
    uint32_t atu_entries;
    _Atomic uint64_t *locks;
    pid_t pid;
    int pipelined;        /* sticky: RMA to this peer goes through its request ring */
    uint32_t outstanding; /* operations executed by the peer's device not yet answered */
    tw_heap_map_t heap;
    tw_bell_address_t bell_socket; /* when it sleeps in ppoll (TW_BELL_SOCKET, bell.h) */
} tw_peer_t;

#endif
