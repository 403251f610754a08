/* The hot paths — send, a poll that finds nothing, a poll, recv, probe, peek and
 * release — make no system call, allocate nothing and take no lock; nor does
 * registering and deregistering memory with the ATU.
 * After warm-up each rank enters seccomp strict mode, where any system call but
 * read, write and exit kills the process, and runs a ping-pong with all of them;
 * malloc and pthread_mutex_lock are interposed and counted. Needs 2 ranks. */
#include <dlfcn.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mp_check.h"

static _Atomic long allocations, locks;

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static int (*real_mutex_lock)(pthread_mutex_t *);

void *malloc(size_t n) {
    allocations++;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
    allocations++;
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
    allocations++;
    return __libc_realloc(p, n);
}
int pthread_mutex_lock(pthread_mutex_t *m) {
    locks++;
    if (!real_mutex_lock)
        real_mutex_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    return real_mutex_lock(m);
}

static void say(const char *s) {
    if (write(2, s, strlen(s)) < 0) syscall(SYS_exit, 3);
}

int main(void) {
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    int rank = mp_rank = tw_ep_rank(ep);
    CHECK(tw_ep_size(ep) == 2);
    int peer = 1 - rank;
    char buf[TW_VELO_MAX_SIZE];
    memset(buf, 1, sizeof buf);
    tw_velo_msg_t msg;
    /* warm-up: first contact maps the peer (system calls allowed here) */
    CHECK_RC(tw_velo_send(ep, peer, 0, buf, 8), TW_OK);
    CHECK_RC(tw_velo_recv(ep, &msg, buf, sizeof buf), TW_OK);
    CHECK_RC(tw_ep_barrier(ep), TW_OK);

    long allocs0 = allocations, locks0 = locks;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) != 0) {
        perror("prctl(PR_SET_SECCOMP)");
        return 1;
    }
    long empty_polls = 0;
    for (int i = 0; i < 20000; i++) {
        size_t len = (size_t)(i % 3 == 0 ? 8 : i % 3 == 1 ? 56 : 1000);
        if ((i + rank) % 2 == 0) {
            while (tw_velo_send(ep, peer, 1, buf, len) == TW_RETRY) {
            }
        } else {
            int rc;
            switch (i % 4) {
            case 0:
                rc = tw_velo_recv(ep, &msg, buf, sizeof buf);
                break;
            case 1:
                while ((rc = tw_velo_poll(ep, &msg, buf, sizeof buf)) == TW_EMPTY) empty_polls++;
                break;
            default:
                while ((rc = tw_velo_probe(ep, &msg)) == TW_EMPTY) empty_polls++;
                if (rc == TW_OK && (rc = tw_velo_peek(ep, &msg)) == TW_OK)
                    rc = tw_velo_release(ep, &msg);
                break;
            }
            if (rc != TW_OK || msg.length != len) {
                say("velo_hotpath: receive failed\n");
                syscall(SYS_exit, 1);
            }
        }
    }
    /* registration: a table entry and a key, nothing from the kernel */
    static char region_mem[1 << 16];
    for (int i = 0; i < 1000; i++) {
        tw_region_t r;
        if (tw_reg(ep, region_mem, sizeof region_mem, TW_PERM_READ | TW_PERM_WRITE, &r) != TW_OK ||
            tw_dereg(ep, &r) != TW_OK) {
            say("velo_hotpath: registration failed\n");
            syscall(SYS_exit, 1);
        }
    }
    if (allocations != allocs0 || locks != locks0) {
        say("velo_hotpath: the hot path allocated memory or took a lock\n");
        syscall(SYS_exit, 1);
    }
    if (empty_polls == 0) say("velo_hotpath: note: no empty poll happened\n");
    say(rank == 0 ? "velo_hotpath: 20000 operations and 1000 registrations, no system call, "
                    "allocation or lock\n"
                  : "");
    syscall(SYS_exit, 0); /* exit_group is not allowed in strict mode */
}
