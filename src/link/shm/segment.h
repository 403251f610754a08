/* Named shared-memory segments of one job on one node.
 * Every segment is /tw-<job id>-<what>, mode 0600, so twrun and the node's watcher
 * (watch.h) can remove all of a job's segments however the job ends. */
#ifndef TW_LINK_SHM_SEGMENT_H
#define TW_LINK_SHM_SEGMENT_H

#include <stddef.h>

enum { TW_SHM_NAME_MAX = 96 };

/* "/tw-<job_id>-ep<index>-<rank>" into name. */
void tw_shm_endpoint_name(char *name, size_t cap, const char *job_id, int rank, int index);

/* Populate every page of a mapping (TW_SHM_POPULATE_ALL), or only the first bytes:
 * what lies past them (a table that grows on demand) is touched as it is used, and
 * until then costs no memory. */
#define TW_SHM_POPULATE_ALL ((size_t)-1)

/* Creates, sizes and maps a new segment, its first `populate` bytes populated. NULL on
 * failure, errno set; EEXIST when the name exists: it is never replaced here, since a
 * live job may hold it. */
void *tw_shm_create(const char *name, size_t size, size_t populate);

/* Maps an existing segment read-write, its first `populate` bytes populated; its size
 * comes back in *size. NULL on failure (errno set): missing, or smaller than min_size. */
void *tw_shm_map(const char *name, size_t min_size, size_t populate, size_t *size);

/* Populates the first bytes of a mapping of size bytes (after tw_shm_map, once the
 * caller knows how much of it is hot). */
void tw_shm_populate(void *base, size_t size, size_t populate);

void tw_shm_unmap(void *base, size_t size);
void tw_shm_unlink(const char *name);

#endif
