/* The shm link: segments of one job on one node, mapped by every peer that talks to
 * their owner (segment.c), the cross-process copy (copy.c), and the table (link.c). */
#ifndef TW_LINK_SHM_SHM_H
#define TW_LINK_SHM_SHM_H

#include <stdint.h>
#include <sys/types.h>

#include "link/link.h"
#include "link/shm/segment.h"

extern const tw_link_t tw_link_shm;

/* One copy between this process's memory at local and len bytes at remote in process
 * pid (write: to it). TW_OK, TW_SHM_COPY_REFUSED (the kernel will not: ptrace policy),
 * or TW_ERR_SYSTEM. */
enum { TW_SHM_COPY_REFUSED = 1 };
int tw_shm_copy(pid_t pid, void *local, uint64_t remote, uint64_t len, int write);

/* The link's probe (tw_link_t.probe): segments can be created and sized here. */
int tw_shm_probe(size_t segment_size, char *note, size_t cap);

#endif
