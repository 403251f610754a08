/* The shm link's table: peers on this node, whose segments are mapped.
 *
 * The device reaches such a peer through memory alone: it writes the peer's mailbox,
 * notification queue and RMA request ring itself, and as the initiator of an RMA it
 * moves the bytes itself — by memcpy into memory mapped here (the shared heap, the
 * lock region), by one cross-process copy (copy.c) into other registered memory, or,
 * where the kernel refuses that, by the pipelined copy through the target's request
 * and the initiator's response rings. So the table carries no operation of a link
 * that carries messages: its operations are the segments (segment.c) that make the
 * peers' memory reachable, the watcher that removes them after the job (watch.c), and
 * the copy. */
#include "link/shm/shm.h"

#include <tollway/status.h>
#include <tollway/velo.h>

#include "link/shm/watch.h"

/* The process's lock on the job's segments of this node, taken once (job->shm_hold). */
static int hold(tw_job_t *job) {
    if (job->shm_hold < 0) job->shm_hold = tw_shm_watch_join(job->job_id);
    return job->shm_hold < 0 ? TW_ERR_SYSTEM : TW_OK;
}

const tw_link_t tw_link_shm = {
    .name = "shm",
    .caps = TW_LINK_MAPPED | TW_LINK_SHARED_COPY,
    .velo_max = TW_VELO_MAX_SIZE,
    .probe = tw_shm_probe,
    .hold = hold,
    .segment_name = tw_shm_segment_name,
    .segment_create = tw_shm_create,
    .segment_map = tw_shm_map,
    .segment_populate = tw_shm_populate,
    .segment_unmap = tw_shm_unmap,
    .segment_unlink = tw_shm_unlink,
    .segment_field = tw_shm_segment_field,
    .segment_of = tw_shm_segment_of,
    .copy = tw_shm_copy,
};
