/* MPI_ERR_QUOTA, raised where the file system refuses a write for a quota (EDQUOT):
 * no file system of a test machine has quotas on, so the kernel is made to refuse the
 * file's writes with EDQUOT by a seccomp filter that matches only that file's
 * descriptor (pwrite64 and fallocate on it; every other descriptor and call is left
 * alone). Checked: an independent write, a non-blocking one (moved on the I/O thread,
 * which the filter covers too), MPI_File_preallocate, and a collective write through
 * collective buffering on a file every rank shares, whose writes only rank 0 (its
 * aggregator) has refused: every rank sees it fail, blocking and non-blocking (which
 * shows that the other ranks' data went through the aggregator); the error string
 * says quota; the file stays readable and closes. Runs on any number of
 * ranks; skipped (77) where seccomp filters cannot be installed. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "io_check.h"

#if defined(__x86_64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* The descriptor this process holds open on the file at path p (its real path), or -1. */
static int descriptor_of(const char *p) {
    char want[PATH_MAX], link[PATH_MAX], have[PATH_MAX];
    CHECK(realpath(p, want));
    DIR *d = opendir("/proc/self/fd");
    CHECK(d);
    int found = -1;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, have, sizeof have - 1);
        if (n <= 0) continue;
        have[n] = 0;
        if (strcmp(have, want) == 0) found = atoi(e->d_name);
    }
    closedir(d);
    return found;
}

/* Every thread of the process gets EDQUOT from pwrite64 and fallocate on descriptor fd.
 * 0, or -1 where the kernel refuses the filter. */
static int refuse_writes(int fd) {
#ifdef TEST_AUDIT_ARCH
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pwrite64, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fallocate, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)fd, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EDQUOT & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof code / sizeof code[0], .filter = code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) == 0
               ? 0
               : -1;
#else
    (void)fd;
    return -1;
#endif
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make("quota");
    char mine[64];
    snprintf(mine, sizeof mine, "rank%d", rank);
    enum { LEN = 4096 };
    static char data[LEN], back[LEN];
    for (int i = 0; i < LEN; i++) data[i] = (char)(1 + (i * 7 + rank) % 251);

    /* before the filter: the rank's own file holds LEN bytes, and the shared one exists */
    MPI_File own, shared;
    CHECK(MPI_File_open(MPI_COMM_SELF, path(mine), MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &own) == MPI_SUCCESS);
    CHECK(MPI_File_write_at(own, 0, data, LEN, MPI_CHAR, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable"); /* through the aggregators */
    CHECK(MPI_File_open(MPI_COMM_WORLD, path("shared"), MPI_MODE_RDWR | MPI_MODE_CREATE, info,
                        &shared) == MPI_SUCCESS);
    MPI_Info_free(&info);
    int own_fd = descriptor_of(path(mine)), shared_fd = descriptor_of(path("shared"));
    CHECK(own_fd >= 0 && shared_fd >= 0 && own_fd != shared_fd);

    int filtered = refuse_writes(own_fd) == 0 && (rank || refuse_writes(shared_fd) == 0), all = 0;
    MPI_Allreduce(&filtered, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0) printf("io_quota: seccomp filters cannot be installed here: skipped\n");
        MPI_File_close(&own);
        MPI_File_close(&shared);
        if (rank == 0) MPI_File_delete(path("shared"), MPI_INFO_NULL);
        MPI_File_delete(path(mine), MPI_INFO_NULL);
        io_dir_remove();
        MPI_Finalize();
        return 77;
    }

    /* an independent write: MPI_ERR_QUOTA, whose string says so; nothing was written */
    int rc = MPI_File_write_at(own, LEN, data, LEN, MPI_CHAR, MPI_STATUS_IGNORE);
    CHECK(class_of(rc) == MPI_ERR_QUOTA);
    char text[MPI_MAX_ERROR_STRING];
    int text_len = 0;
    CHECK(MPI_Error_string(rc, text, &text_len) == MPI_SUCCESS && strstr(text, "quota"));
    MPI_Offset bytes = -1;
    CHECK(MPI_File_get_size(own, &bytes) == MPI_SUCCESS && bytes == LEN);

    /* a non-blocking write, done on the I/O thread: the error is the request's */
    MPI_Request req;
    CHECK(MPI_File_iwrite_at(own, 0, data, LEN, MPI_CHAR, &req) == MPI_SUCCESS);
    CHECK(class_of(MPI_Wait(&req, MPI_STATUS_IGNORE)) == MPI_ERR_QUOTA);
    CHECK(req == MPI_REQUEST_NULL);

    /* preallocation past the end (fallocate) */
    CHECK(class_of(MPI_File_preallocate(own, 4 * LEN)) == MPI_ERR_QUOTA);

    /* the file is still read and closed as before */
    CHECK(MPI_File_read_at(own, 0, back, LEN, MPI_CHAR, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(memcmp(back, data, LEN) == 0);
    CHECK(MPI_File_close(&own) == MPI_SUCCESS);

    /* a collective write through the aggregator (rank 0, one node): every rank's call
     * fails, though only the aggregator's writes are refused */
    rc = MPI_File_write_at_all(shared, (MPI_Offset)rank * LEN, data, LEN, MPI_CHAR,
                               MPI_STATUS_IGNORE);
    CHECK(class_of(rc) == MPI_ERR_QUOTA);
    /* the same non-blocking: the error is every rank's request's */
    CHECK(MPI_File_iwrite_at_all(shared, (MPI_Offset)rank * LEN, data, LEN, MPI_CHAR, &req) ==
          MPI_SUCCESS);
    CHECK(class_of(MPI_Wait(&req, MPI_STATUS_IGNORE)) == MPI_ERR_QUOTA);
    CHECK(MPI_File_iwrite_all(shared, data, LEN, MPI_CHAR, &req) == MPI_SUCCESS);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(class_of(rc) == MPI_ERR_QUOTA);
    CHECK(MPI_Error_string(rc, text, &text_len) == MPI_SUCCESS && strstr(text, "quota"));
    CHECK(MPI_File_close(&shared) == MPI_SUCCESS);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK(MPI_File_delete(path("shared"), MPI_INFO_NULL) == MPI_SUCCESS);
    CHECK(MPI_File_delete(path(mine), MPI_INFO_NULL) == MPI_SUCCESS);
    io_dir_remove();
    MPI_Finalize();
    if (rank == 0) printf("io_quota: MPI_ERR_QUOTA raised by every write path on %d ranks\n", size);
    return 0;
}
