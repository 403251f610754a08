/* The node's watcher of a job's shared memory (watch.h).
 *
 * The lock protocol: a process takes its shared lock on the alive file before it
 * creates any object of the job, and a watcher removes objects only while it holds an
 * exclusive lock on the alive file. Both check after locking that the file they locked
 * is still the one at the path (a watcher that finished removed it): a lock on a
 * removed file guards nothing, and they start over with a new file. So no object is
 * ever removed while a process that may own it lives.
 *
 * The watcher is forked from a rank that may have threads: from the fork on, it makes
 * only async-signal-safe calls (system calls; no malloc, no stdio), on names built
 * before the fork. It double-forks and starts a session of its own, so that the
 * launcher's kill of the rank's process tree or group does not reach it, and closes
 * every inherited descriptor: neither the rank's lock, nor its sockets, nor the output
 * pipes a launcher waits on stay open in it. */
#include "link/shm/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHM_DIR "/dev/shm"

enum { NAME_CAP = 96, JOB_ID_MAX = 32, REMOVE_PASSES = 8, DIRENT_BUFFER = 4096 };

/* One job's files, named relative to SHM_DIR. */
typedef struct {
    char prefix[NAME_CAP]; /* "tw-<id>-": its objects' names start so */
    char alive[NAME_CAP];  /* "tw-<id>-alive": shared-locked by its live processes */
    char watch[NAME_CAP];  /* "tw-<id>-watch": locked by its watcher */
    char ids[NAME_CAP];    /* "tollway-ids-<uid>-<id>": the spawn counter (endpoint.c) */
} job_files_t;

/* All a watcher needs, built before the fork. */
typedef struct {
    job_files_t job;
    char ids_prefix[NAME_CAP]; /* "tollway-ids-<uid>-" */
} watch_plan_t;

/* Appends s to dst (of cap bytes, holding at bytes): the new length, or cap when it
 * does not fit. Async-signal-safe, unlike snprintf. */
static size_t append(char *dst, size_t cap, size_t at, const char *s) {
    size_t n = strlen(s);
    if (at >= cap || n >= cap - at) return cap;
    memcpy(dst + at, s, n + 1);
    return at + n;
}

static int job_id_ok(const char *id, size_t len) {
    if (len == 0 || len > JOB_ID_MAX) return 0;
    for (size_t i = 0; i < len; i++)
        if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f'))) return 0;
    return 1;
}

/* The file names of job id (len characters of id): 0, or -1 when it is no job id. */
static int job_files(job_files_t *f, const char *ids_prefix, const char *id, size_t len) {
    char copy[JOB_ID_MAX + 1];
    if (!job_id_ok(id, len)) return -1;
    memcpy(copy, id, len);
    copy[len] = '\0';
    size_t n = append(f->prefix, NAME_CAP, 0, "tw-");
    n = append(f->prefix, NAME_CAP, n, copy);
    n = append(f->prefix, NAME_CAP, n, "-");
    size_t a = append(f->alive, NAME_CAP, append(f->alive, NAME_CAP, 0, f->prefix), "alive");
    size_t w = append(f->watch, NAME_CAP, append(f->watch, NAME_CAP, 0, f->prefix), "watch");
    size_t i = append(f->ids, NAME_CAP, append(f->ids, NAME_CAP, 0, ids_prefix), copy);
    return n == NAME_CAP || a == NAME_CAP || w == NAME_CAP || i == NAME_CAP ? -1 : 0;
}

/* A descriptor of the file name in dir, locked with op (flock) and still the file at
 * that name once locked; created (mode 0600) when create is set. -1 (errno set) when
 * it cannot be opened, is not a plain file of this user that only this user may open
 * (EPERM), cannot be locked (EWOULDBLOCK with LOCK_NB), or, without create, was
 * removed meanwhile (ENOENT). */
static int lock_current(int dir, const char *name, int op, int create) {
    for (;;) {
        int fd = openat(dir, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0600);
        if (fd < 0) return -1;
        struct stat held, now;
        int rc = fstat(fd, &held);
        if (rc == 0 && (!S_ISREG(held.st_mode) || held.st_uid != geteuid() ||
                        (held.st_mode & 077) != 0)) { /* anyone else's could hold us up */
            errno = EPERM;
            rc = -1;
        }
        while (rc == 0 && (rc = flock(fd, op)) != 0 && errno == EINTR) rc = 0;
        if (rc != 0) {
            int saved = errno;
            close(fd);
            errno = saved;
            return -1;
        }
        if (fstatat(dir, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == held.st_dev &&
            now.st_ino == held.st_ino)
            return fd;
        close(fd); /* removed by a watcher that finished: that generation is over */
        if (!create) {
            errno = ENOENT;
            return -1;
        }
    }
}

/* Whether s starts with a decimal number: past it, or NULL. */
static const char *past_digits(const char *s) {
    if (*s < '0' || *s > '9') return NULL;
    while (*s >= '0' && *s <= '9') s++;
    return s;
}

/* Whether rest, what follows "tw-<id>-", names an object of the job: an endpoint's
 * segment "ep<index>-<rank>" (segment.c) or a heap block "heap<index>-<rank>-<block>"
 * (device/heap.c). Nothing else: another job's id might begin with this one's. */
static int job_object(const char *rest) {
    const char *p;
    int numbers;
    if (strncmp(rest, "ep", 2) == 0)
        p = rest + 2, numbers = 2;
    else if (strncmp(rest, "heap", 4) == 0)
        p = rest + 4, numbers = 3;
    else
        return 0;
    for (int i = 0; i < numbers; i++) {
        if (i > 0 && *p++ != '-') return 0;
        if (!(p = past_digits(p))) return 0;
    }
    return *p == '\0';
}

/* The layout getdents64 fills in. */
struct raw_dirent {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

typedef int (*entry_fn)(int dir, const char *name, const void *ctx);

/* Calls fn on every entry of dir, read from its start: the sum of what fn returned. */
static int each_entry(int dir, entry_fn fn, const void *ctx) {
    _Alignas(8) char buf[DIRENT_BUFFER];
    int sum = 0;
    if (lseek(dir, 0, SEEK_SET) != 0) return 0;
    for (;;) {
        long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
        if (n <= 0) return sum;
        for (long at = 0; at < n;) {
            const struct raw_dirent *e = (const struct raw_dirent *)(buf + at);
            at += e->reclen;
            sum += fn(dir, e->name, ctx);
        }
    }
}

static int remove_if_object(int dir, const char *name, const void *ctx) {
    const job_files_t *f = ctx;
    size_t n = strlen(f->prefix);
    return strncmp(name, f->prefix, n) == 0 && job_object(name + n) && unlinkat(dir, name, 0) == 0;
}

/* Removes the job's objects, its spawn counter, then its lock files: the watch file
 * before the alive file, so that a process of a new generation, which can lock an
 * alive file only once this one is gone, never finds this watcher's watch file. The
 * caller holds the exclusive lock of the alive file. */
static void remove_job(int dir, const job_files_t *f) {
    /* entries removed during a scan may hide others from it: scan until one finds none */
    for (int pass = 0; pass < REMOVE_PASSES && each_entry(dir, remove_if_object, f) > 0; pass++) {
    }
    unlinkat(dir, f->ids, 0);
    unlinkat(dir, f->watch, 0);
    unlinkat(dir, f->alive, 0);
}

typedef struct {
    const watch_plan_t *plan;
    int ops_dir; /* each_entry rewinds the descriptor it scans: removals use another */
} sweep_t;

/* An alive file of another job of this user that no process holds: its job's
 * processes on this node are all dead and its watcher did not finish (killed with
 * them, by a cgroup-wide kill): its objects go now. */
static int remove_if_dead_job(int dir, const char *name, const void *ctx) {
    (void)dir;
    const sweep_t *s = ctx;
    size_t len = strlen(name);
    static const char suffix[] = "-alive";
    if (len < 3 + sizeof suffix || strncmp(name, "tw-", 3) != 0 ||
        strcmp(name + len - (sizeof suffix - 1), suffix) != 0)
        return 0;
    job_files_t f;
    if (job_files(&f, s->plan->ids_prefix, name + 3, len - 3 - (sizeof suffix - 1)) ||
        strcmp(f.alive, s->plan->job.alive) == 0)
        return 0;
    int fd = lock_current(s->ops_dir, f.alive, LOCK_EX | LOCK_NB, 0);
    if (fd < 0) return 0;
    remove_job(s->ops_dir, &f);
    close(fd);
    return 1;
}

static void close_every_descriptor(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 0u, ~0u, 0u) == 0) return;
#endif
    struct rlimit rl;
    long max = 65536;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536)
        max = (long)rl.rlim_cur;
    for (long fd = 0; fd < max; fd++) close((int)fd);
}

/* The grandchild: a session of its own, nothing of the rank's open, default signal
 * handling (the rank's handlers are the rank's); then, if no other watcher of the job
 * runs on this node, it waits for the job's end and cleans up. */
static _Noreturn void watch(const watch_plan_t *plan) {
    setsid();
    close_every_descriptor();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++) sigaction(sig, &dfl, NULL); /* some refuse: fine */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (chdir("/") != 0) _exit(1); /* holds no directory of the job's busy */
    int dir = open(SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int scan = open(SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0 || scan < 0) _exit(1);
    if (lock_current(dir, plan->job.watch, LOCK_EX | LOCK_NB, 1) < 0) _exit(0); /* watched */
    sweep_t sweep = {plan, dir};
    each_entry(scan, remove_if_dead_job, &sweep);
    /* granted when no process of the job on this node holds its shared lock any more */
    if (lock_current(dir, plan->job.alive, LOCK_EX, 1) >= 0) remove_job(dir, &plan->job);
    _exit(0);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TW_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TW_SANITIZED 1
#endif

/* fork without the application's atfork handlers where the C library allows it: the
 * children run none of the application's code. Under a sanitizer, fork, which the
 * sanitizer intercepts to leave its own locks usable in the child. */
static pid_t fork_bare(void) {
#if !defined(TW_SANITIZED) && defined(__GLIBC__) &&                                                \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return _Fork();
#else
    return fork();
#endif
}

static void start_watcher(const watch_plan_t *plan) {
    pid_t child = fork_bare();
    if (child < 0) {
        fprintf(stderr,
                "tollway: cannot start the watcher of the job's shared memory (fork: %s): if the "
                "job is killed, its objects stay in " SHM_DIR "\n",
                strerror(errno));
        return;
    }
    if (child == 0) { /* exits at once: the watcher's parent is gone, it is nobody's child */
        pid_t watcher = fork_bare();
        if (watcher == 0) watch(plan);
        _exit(watcher < 0);
    }
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
}

int tw_shm_watch_join(const char *job_id) {
    watch_plan_t plan;
    memset(&plan, 0, sizeof plan);
    snprintf(plan.ids_prefix, sizeof plan.ids_prefix, "tollway-ids-%ld-", (long)getuid());
    if (job_files(&plan.job, plan.ids_prefix, job_id, strlen(job_id))) {
        fprintf(stderr, "tollway: the job id '%s' is not 1 to %d lowercase hex digits\n", job_id,
                JOB_ID_MAX);
        return -1;
    }
    int dir = open(SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = dir < 0 ? -1 : lock_current(dir, plan.job.alive, LOCK_SH, 1);
    int saved = errno;
    if (dir >= 0) close(dir);
    if (fd < 0) {
        fprintf(stderr,
                "tollway: cannot hold the lock " SHM_DIR "/%s of the job's shared memory: %s%s\n",
                plan.job.alive, strerror(saved),
                saved == EPERM ? " (it must be a file of this user with mode 0600)" : "");
        return -1;
    }
    start_watcher(&plan);
    return fd;
}
