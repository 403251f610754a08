/* Named shared-memory segments of one job on one node: the shm link's segment
 * operations (tw_link_t, link.h).
 * Every segment is /tw-<job id>-<what>, mode 0600, so twrun and the node's watcher
 * (watch.h) can remove all of a job's segments however the job ends. */
#ifndef TW_LINK_SHM_SEGMENT_H
#define TW_LINK_SHM_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "link/link.h"
#include "runtime/job.h"

/* tw_link_t.segment_name: "/tw-<job id>-ep<index>-<rank>" for an endpoint's segment,
 * "/tw-<job id>-heap<index>-<rank>-<heap id>" for a shared-heap block. */
void tw_shm_segment_name(const tw_job_t *job, int rank, int index, uint32_t heap_id, char *name,
                         size_t cap);

/* tw_link_t.segment_field and segment_of: the field "shm:<node>:<segment>". */
int tw_shm_segment_field(const tw_job_t *job, const char *segment, char *field, size_t cap);
int tw_shm_segment_of(const tw_job_t *job, const char *field, char *segment, size_t cap);

/* tw_link_t.segment_create, segment_map, segment_populate, segment_unmap and
 * segment_unlink. Pages faulted in now are not faulted on a hot path later; what lies
 * past the populated bytes (a table that grows on demand) is touched as it is used,
 * and until then costs no memory. */
void *tw_shm_create(const char *name, size_t size, size_t populate);
void *tw_shm_map(const char *name, size_t min_size, size_t populate, size_t *size);
void tw_shm_populate(void *base, size_t size, size_t populate);
void tw_shm_unmap(void *base, size_t size);
void tw_shm_unlink(const char *name);

#endif
