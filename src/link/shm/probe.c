/* Whether this machine can hold the shm link's segments now, for tools (twinfo): every
 * endpoint has one, so without them nothing runs. Also whether the kernel lets one
 * process copy into another's memory (copy.c): a strict ptrace policy refuses it, and
 * RMA into memory outside the shared heap then takes the pipelined copy. */
#include "link/shm/shm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tollway/status.h>

/* Where shm_open keeps segments on Linux. */
#define SHM_DIR "/dev/shm"

/* A child copies a word out of this process, as a rank does out of a sibling rank
 * (neither is the other's ancestor): "allowed", "refused by the kernel (ptrace
 * policy)", or why it could not be tried. */
static const char *cross_copy(void) {
    static volatile unsigned long word = 0x7e57;
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) return "not checked (fork failed)";
    if (child == 0) {
        unsigned long got = 0;
        int rc = tw_shm_copy(parent, &got, (uint64_t)(uintptr_t)&word, sizeof got, 0);
        _exit(rc == TW_OK && got == 0x7e57 ? 0 : rc == TW_LINK_COPY_REFUSED ? 1 : 2);
    }
    int status;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) return "not checked (waitpid failed)";
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 2) return "failed";
    return WEXITSTATUS(status) == 0 ? "allowed"
                                    : "refused by the kernel (ptrace policy): RMA outside the "
                                      "shared heap takes the pipelined copy";
}

static void human_size(char *buf, size_t cap, double bytes) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    while (bytes >= 1024 && u < 4) bytes /= 1024, u++;
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

int tw_shm_probe(size_t segment_size, char *note, size_t cap) {
    char name[TW_LINK_SEGMENT_NAME_MAX];
    snprintf(name, sizeof name, "/tw-probe-%ld", (long)getpid());
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *base = tw_shm_create(name, page, TW_LINK_POPULATE_ALL);
    if (!base && errno == EEXIST) { /* left by a process of this pid that is gone */
        tw_shm_unlink(name);
        base = tw_shm_create(name, page, TW_LINK_POPULATE_ALL);
    }
    if (!base) {
        snprintf(note, cap, "cannot create a shared-memory segment in " SHM_DIR ": %s",
                 strerror(errno));
        return 0;
    }
    tw_shm_unmap(base, page);
    tw_shm_unlink(name);
    struct statvfs fs;
    if (statvfs(SHM_DIR, &fs)) {
        snprintf(note, cap, "cannot read the free space of " SHM_DIR ": %s", strerror(errno));
        return 0;
    }
    double avail = (double)fs.f_bavail * (double)fs.f_frsize;
    char free_text[32], seg_text[32];
    human_size(free_text, sizeof free_text, avail);
    human_size(seg_text, sizeof seg_text, (double)segment_size);
    if (avail < (double)segment_size) {
        snprintf(note, cap, SHM_DIR " has %s free, less than the %s of one endpoint's segment",
                 free_text, seg_text);
        return 0;
    }
    snprintf(note, cap,
             SHM_DIR " has %s free: room for %.0f endpoints of %s; cross-process copy %s",
             free_text, avail / (double)segment_size, seg_text, cross_copy());
    return 1;
}
