#include "link/shm/segment.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "link/shm/shm.h"

void tw_shm_segment_name(const tw_job_t *job, int rank, int index, uint32_t heap_id, char *name,
                         size_t cap) {
    if (heap_id)
        snprintf(name, cap, "/tw-%s-heap%d-%d-%u", job->job_id, index, rank, heap_id);
    else
        snprintf(name, cap, "/tw-%s-ep%d-%d", job->job_id, index, rank);
}

int tw_shm_segment_field(const tw_job_t *job, const char *segment, char *field, size_t cap) {
    int n = snprintf(field, cap, "%s:%s:%s", tw_link_shm.name, job->node, segment);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

int tw_shm_segment_of(const tw_job_t *job, const char *field, char *segment, size_t cap) {
    size_t tag = strlen(tw_link_shm.name), len = strcspn(field, ",");
    if (len <= tag || strncmp(field, tw_link_shm.name, tag) || field[tag] != ':') return -1;
    const char *node = field + tag + 1, *end = field + len;
    const char *name = memchr(node, ':', (size_t)(end - node));
    if (!name || name + 1 == end || name[1] != '/' || (size_t)(end - name - 1) >= cap) return -1;
    memcpy(segment, name + 1, (size_t)(end - name - 1));
    segment[end - name - 1] = '\0';
    size_t node_len = (size_t)(name - node);
    return node_len == strlen(job->node) && !strncmp(node, job->node, node_len);
}

/* Pages faulted in now are not faulted on a hot path later. MADV_POPULATE_WRITE does
 * a part of a mapping; without it (before Linux 5.14) the pages come on first touch. */
static void populate_prefix(void *base, size_t size, size_t populate) {
    size_t n = populate < size ? populate : size;
    if (!n) return;
#ifdef MADV_POPULATE_WRITE
    (void)madvise(base, (n + 4095) & ~(size_t)4095, MADV_POPULATE_WRITE);
#else
    (void)base;
#endif
}

static void *map_shared(int fd, size_t size, size_t populate) {
#ifdef MADV_POPULATE_WRITE
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base != MAP_FAILED) populate_prefix(base, size, populate);
    return base;
#else
    (void)populate;
    return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
#endif
}

void *tw_shm_create(const char *name, size_t size, size_t populate) {
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return NULL; /* EEXIST: the caller decides whether the holder is gone */
    void *base = MAP_FAILED;
    if (ftruncate(fd, (off_t)size) == 0) base = map_shared(fd, size, populate);
    int saved = errno;
    close(fd);
    if (base == MAP_FAILED) {
        shm_unlink(name);
        errno = saved;
        return NULL;
    }
    return base;
}

void *tw_shm_map(const char *name, size_t min_size, size_t populate, size_t *size) {
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) return NULL;
    struct stat st;
    void *base = MAP_FAILED;
    if (fstat(fd, &st) == 0) {
        if ((size_t)st.st_size < min_size)
            errno = EPROTO;
        else
            base = map_shared(fd, (size_t)st.st_size, populate);
    }
    int saved = errno;
    close(fd);
    errno = saved;
    if (base == MAP_FAILED) return NULL;
    *size = (size_t)st.st_size;
    return base;
}

void tw_shm_populate(void *base, size_t size, size_t populate) {
    if (base) populate_prefix(base, size, populate);
}

void tw_shm_unmap(void *base, size_t size) {
    if (base) munmap(base, size);
}

void tw_shm_unlink(const char *name) {
    shm_unlink(name);
}
