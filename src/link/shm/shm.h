/* The shm link: segments of one job on one node, mapped by every peer that talks to
 * their owner (segment.c), the cross-process copy (copy.c), the node's watcher of a
 * job's segments (watch.c), and the table (link.c). */
#ifndef TW_LINK_SHM_SHM_H
#define TW_LINK_SHM_SHM_H

#include <stdint.h>
#include <sys/types.h>

#include "link/link.h"
#include "link/shm/segment.h"

extern const tw_link_t tw_link_shm;

/* tw_link_t.copy: process_vm_readv/writev, through a buffer of the thread's where the
 * kernel's copy would slow down (tw_shm_copy_bounced). */
int tw_shm_copy(pid_t pid, void *local, uint64_t remote, uint64_t len, int write);
/* The same through bounce (TW_COPY_BOUNCE_CHUNK + 4 KiB bytes, common/aliased_copy.h), a
 * chunk at a time, each placed half a page from its remote address. */
int tw_shm_copy_bounced(pid_t pid, void *local, uint64_t remote, uint64_t len, int write,
                        char *bounce);

/* The link's probe (tw_link_t.probe): segments can be created and sized here. */
int tw_shm_probe(size_t segment_size, char *note, size_t cap);

#endif
