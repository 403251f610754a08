/* The shm link's table: peers on this node, whose segments are mapped.
 *
 * The device reaches such a peer through memory alone: it writes the peer's mailbox,
 * notification queue and RMA request ring itself, and as the initiator of an RMA it
 * moves the bytes itself — by memcpy into memory mapped here (the shared heap, the
 * lock region), by one cross-process copy (copy.c) into other registered memory, or,
 * where the kernel refuses that, by the pipelined copy through the target's request
 * and the initiator's response rings. So the table carries no operation: its
 * capabilities say all the device needs. Segments are named and mapped by segment.c. */
#include "link/shm/shm.h"

#include <tollway/velo.h>

const tw_link_t tw_link_shm = {
    .name = "shm",
    .caps = TW_LINK_MAPPED | TW_LINK_SHARED_COPY,
    .velo_max = TW_VELO_MAX_SIZE,
    .probe = tw_shm_probe,
};
