/* The cross-process copy of the shm link: process_vm_readv/writev, one system call
 * for a transfer of any length into memory the peer did not allocate through us. */
#include "link/shm/shm.h"

#include <errno.h>
#include <sys/uio.h>

#include <tollway/status.h>

int tw_shm_copy(pid_t pid, void *local, uint64_t remote, uint64_t len, int write) {
    uint64_t done = 0;
    while (done < len) {
        struct iovec l = {(char *)local + done, len - done};
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
