/* The cross-process copy of the shm link: process_vm_readv/writev, one system call
 * for a transfer of any length into memory the peer did not allocate through us
 * (through a buffer of the thread's where the kernel's copy would slow down). */
#include "link/shm/shm.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include <tollway/status.h>

#include "common/aliased_copy.h"

static int copy_direct(pid_t pid, char *local, uint64_t remote, uint64_t len, int write) {
    uint64_t done = 0;
    while (done < len) {
        struct iovec l = {local + done, len - done};
        struct iovec r = {(void *)(uintptr_t)(remote + done), len - done};
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EPERM || errno == ENOSYS || errno == EACCES))
            return TW_LINK_COPY_REFUSED;
        if (n <= 0) return TW_ERR_SYSTEM;
        done += (uint64_t)n;
    }
    return TW_OK;
}

int tw_shm_copy_bounced(pid_t pid, void *local, uint64_t remote, uint64_t len, int write,
                        char *bounce) {
    for (uint64_t done = 0; done < len;) {
        uint64_t chunk = len - done < TW_COPY_BOUNCE_CHUNK ? len - done : TW_COPY_BOUNCE_CHUNK;
        char *b = bounce + tw_copy_bounce_offset((uintptr_t)(remote + done));
        if (write) memcpy(b, (char *)local + done, chunk);
        int rc = copy_direct(pid, b, remote + done, chunk, write);
        if (rc != TW_OK) return rc;
        if (!write) memcpy((char *)local + done, b, chunk);
        done += chunk;
    }
    return TW_OK;
}

/* From a page on, a copy whose destination lies 1 to 63 bytes after its source modulo
 * 4 KiB goes through the buffer where the CPU's copies slow down so (aliased_copy.h):
 * 64 KiB read from another process into memory 16 bytes past its source's place moved
 * 2.1 GB/s straight and 8.1 through the buffer. */
int tw_shm_copy(pid_t pid, void *local, uint64_t remote, uint64_t len, int write) {
    char *bounce = NULL;
    if (len >= 4096 &&
        tw_copy_aliased(write ? (uintptr_t)remote : (uintptr_t)local,
                        write ? (uintptr_t)local : (uintptr_t)remote) &&
        tw_copy_aliased_slow())
        bounce = tw_copy_bounce_buffer();
    return bounce ? tw_shm_copy_bounced(pid, local, remote, len, write, bounce)
                  : copy_direct(pid, local, remote, len, write);
}
