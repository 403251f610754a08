/* Ports within one job: the lower half of the ranks accepts, the upper half connects
 * (the port found through MPI_Publish_name / MPI_Lookup_name), and both check the
 * intercommunicator: sizes, data both ways, MPI_Intercomm_merge, MPI_Comm_disconnect.
 * Then MPI_Comm_join over a Unix socket between ranks 0 and 1, and the errors: a
 * closed port, a name that is no port, a port nobody accepts on (TW_CONNECT_TIMEOUT),
 * names not published or published twice. Runs on 2 or more ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpi_check.h"

static int error_class(int rc) {
    int cls = -1;
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS);
    return cls;
}

/* Data both ways between the groups of inter, and the merged communicator. */
static void check_inter(MPI_Comm inter, int nlocal, int nremote, int low) {
    int me, n;
    CHECK(MPI_Comm_rank(inter, &me) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(inter, &n) == MPI_SUCCESS && n == nlocal);
    CHECK(MPI_Comm_remote_size(inter, &n) == MPI_SUCCESS && n == nremote);
    for (int r = 0; r < nremote; r++) {
        int out[2] = {me, low}, in[2] = {-1, -1};
        CHECK(MPI_Sendrecv(out, 2, MPI_INT, r, 5, in, 2, MPI_INT, r, 5, inter, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS);
        CHECK(in[0] == r && in[1] == !low);
    }
    MPI_Comm merged;
    CHECK(MPI_Intercomm_merge(inter, !low, &merged) == MPI_SUCCESS);
    int mr, ms, sum = 0;
    CHECK(MPI_Comm_rank(merged, &mr) == MPI_SUCCESS);
    CHECK(MPI_Comm_size(merged, &ms) == MPI_SUCCESS && ms == nlocal + nremote);
    CHECK(mr == (low ? me : nremote + me));
    CHECK(MPI_Allreduce(&mr, &sum, 1, MPI_INT, MPI_SUM, merged) == MPI_SUCCESS);
    CHECK(sum == ms * (ms - 1) / 2);
    CHECK(MPI_Comm_free(&merged) == MPI_SUCCESS);
}

/* A stranger connects to the port and sends garbage: the acceptor drops it and goes
 * on waiting for the real connect. */
static void stranger(const char *port) {
    const char *prefix = "tollway-port:";
    CHECK(strncmp(port, prefix, strlen(prefix)) == 0);
    const char *name = port + strlen(prefix);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    CHECK(strlen(name) + 1 < sizeof a.sun_path);
    memcpy(a.sun_path + 1, name, strlen(name));
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, len) == 0);
    char junk[600];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (char)(i * 37 + 11);
    CHECK(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk);
    close(fd);
    if (geteuid() != 0) return;
    /* a process of another user is dropped before it hears the hello, which carries
     * the job key and every member's address */
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        if (setuid(65534) != 0) _exit(3);
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        if (s < 0 || connect(s, (struct sockaddr *)&a, len) != 0) _exit(0); /* refused: fine */
        struct pollfd pf = {.fd = s, .events = POLLIN};
        if (poll(&pf, 1, 600 * 1000) != 1) _exit(2); /* neither dropped nor answered */
        char b;
        ssize_t got = read(s, &b, 1);
        _exit(got > 0 ? 1 : 0); /* 1: it heard the acceptor's hello */
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* What someone else may leave in the name service's place: a FIFO under a name is
 * not published (a lookup neither blocks on it nor reads it), and a directory others
 * may write in is refused for publishing and looking up alike. */
static void planted_names(long tag) {
    char dir[1024], path[1200], tmp[256], found[MPI_MAX_PORT_NAME];
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/tollway-names-%ld", t && *t ? t : "/tmp", (long)geteuid());
    snprintf(path, sizeof path, "%s/fifo-%ld", dir, tag);
    char service[64];
    snprintf(service, sizeof service, "fifo-%ld", tag);
    CHECK(mkfifo(path, 0600) == 0);
    CHECK(error_class(MPI_Lookup_name(service, MPI_INFO_NULL, found)) == MPI_ERR_NAME);
    CHECK(unlink(path) == 0);

    snprintf(tmp, sizeof tmp, "/tmp/tollway-test-names-%ld-XXXXXX", tag);
    CHECK(mkdtemp(tmp) != NULL);
    snprintf(dir, sizeof dir, "%s/tollway-names-%ld", tmp, (long)geteuid());
    CHECK(mkdir(dir, 0777) == 0 && chmod(dir, 0777) == 0);
    char *saved = t ? strdup(t) : NULL;
    CHECK(setenv("TMPDIR", tmp, 1) == 0);
    CHECK(error_class(MPI_Publish_name(service, MPI_INFO_NULL, "tollway-port:x")) ==
          MPI_ERR_SERVICE);
    CHECK(error_class(MPI_Lookup_name(service, MPI_INFO_NULL, found)) == MPI_ERR_NAME);
    CHECK(saved ? setenv("TMPDIR", saved, 1) == 0 : unsetenv("TMPDIR") == 0);
    free(saved);
    CHECK(rmdir(dir) == 0 && rmdir(tmp) == 0);
}

static void join(long tag) {
    /* rank 0 listens, rank 1 connects: the fd each holds is one end of a connection */
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "tollway-test-join-%ld", tag);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    int fd = -1, lfd = -1;
    if (rank == 0) {
        lfd = socket(AF_UNIX, SOCK_STREAM, 0);
        CHECK(lfd >= 0 && bind(lfd, (struct sockaddr *)&a, len) == 0 && listen(lfd, 1) == 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fd = accept(lfd, NULL, NULL);
        close(lfd);
    } else if (rank == 1) {
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, len) == 0);
    }
    if (rank <= 1) {
        CHECK(fd >= 0);
        MPI_Comm inter;
        CHECK(MPI_Comm_join(fd, &inter) == MPI_SUCCESS);
        int v = 100 + rank, got = -1;
        CHECK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 1, &got, 1, MPI_INT, 0, 1, inter,
                           MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(got == 100 + !rank);
        CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS && inter == MPI_COMM_NULL);
        close(fd);
    }
    int rc = MPI_Comm_join(-1, NULL);
    CHECK(error_class(rc) == MPI_ERR_ARG);
    MPI_Comm none;
    rc = MPI_Comm_join(0, &none); /* stdin: no socket */
    CHECK(error_class(rc) == MPI_ERR_ARG && none == MPI_COMM_NULL);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(size >= 2);
    /* a service name of this job's own: jobs may run side by side */
    long tag = (long)getpid();
    MPI_Bcast(&tag, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    char service[64];
    snprintf(service, sizeof service, "tollway-test-%ld", tag);

    int low = rank < size / 2, nlow = size / 2;
    MPI_Comm half, inter;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, !low, rank, &half) == MPI_SUCCESS);
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
    char port[MPI_MAX_PORT_NAME] = "", found[MPI_MAX_PORT_NAME] = "";
    if (rank == 0) {
        CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS);
        CHECK(strlen(port) > 0 && strlen(port) < MPI_MAX_PORT_NAME);
        CHECK(MPI_Publish_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS);
        CHECK(error_class(MPI_Publish_name(service, MPI_INFO_NULL, port)) == MPI_ERR_SERVICE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (low) {
        CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Lookup_name(service, MPI_INFO_NULL, found) == MPI_SUCCESS);
        if (rank == nlow) stranger(found);
        CHECK(MPI_Comm_connect(found, MPI_INFO_NULL, 0, half, &inter) == MPI_SUCCESS);
    }
    check_inter(inter, low ? nlow : size - nlow, low ? size - nlow : nlow, low);
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS && inter == MPI_COMM_NULL);

    /* a second connection over the same port, the other way round: roots not rank 0 */
    if (low) {
        CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter) == MPI_SUCCESS);
    } else {
        int root = size - nlow - 1;
        CHECK(MPI_Comm_connect(rank == size - 1 ? found : "", MPI_INFO_NULL, root, half, &inter) ==
              MPI_SUCCESS);
    }
    check_inter(inter, low ? nlow : size - nlow, low ? size - nlow : nlow, low);
    CHECK(MPI_Comm_free(&inter) == MPI_SUCCESS);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(MPI_Unpublish_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS);
        CHECK(error_class(MPI_Unpublish_name(service, MPI_INFO_NULL, port)) == MPI_ERR_SERVICE);
        CHECK(MPI_Close_port(port) == MPI_SUCCESS);
        CHECK(error_class(MPI_Close_port(port)) == MPI_ERR_PORT);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(error_class(MPI_Lookup_name(service, MPI_INFO_NULL, found)) == MPI_ERR_NAME);
    /* a closed port, a name that is no port: refused at once */
    if (!low) {
        CHECK(error_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter)) == MPI_ERR_PORT);
        CHECK(inter == MPI_COMM_NULL);
        CHECK(error_class(MPI_Comm_connect("no port", MPI_INFO_NULL, 0, half, &inter)) ==
              MPI_ERR_PORT);
    } else {
        /* accept on a port this process did not open */
        CHECK(error_class(MPI_Comm_accept("tollway-port:nothing", MPI_INFO_NULL, 0, half,
                                          &inter)) == MPI_ERR_PORT);
    }
    /* a port open, nobody accepting: the connect gives up after TW_CONNECT_TIMEOUT */
    if (getenv("TW_CONNECT_TIMEOUT")) {
        char idle[MPI_MAX_PORT_NAME] = "";
        if (rank == 0) CHECK(MPI_Open_port(MPI_INFO_NULL, idle) == MPI_SUCCESS);
        MPI_Bcast(idle, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (!low)
            CHECK(error_class(MPI_Comm_connect(idle, MPI_INFO_NULL, 0, half, &inter)) ==
                  MPI_ERR_PORT);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) CHECK(MPI_Close_port(idle) == MPI_SUCCESS);
        /* a join whose other side names a port that sorts after ours (so ours
         * accepts) and never connects: it gives up too */
        if (rank == 0) {
            int sv[2];
            char fake[MPI_MAX_PORT_NAME] = "tollway-port:~never";
            CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
            CHECK(write(sv[1], fake, sizeof fake) == (ssize_t)sizeof fake);
            CHECK(MPI_Comm_join(sv[0], &inter) != MPI_SUCCESS && inter == MPI_COMM_NULL);
            close(sv[0]);
            close(sv[1]);
        }
    }
    /* arguments */
    CHECK(error_class(MPI_Open_port(MPI_INFO_NULL, NULL)) == MPI_ERR_ARG);
    CHECK(error_class(MPI_Comm_accept(port, MPI_INFO_NULL, size, half, &inter)) == MPI_ERR_ROOT);
    CHECK(error_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_NULL, &inter)) ==
          MPI_ERR_COMM);
    CHECK(error_class(MPI_Lookup_name("", MPI_INFO_NULL, found)) == MPI_ERR_NAME);
    CHECK(error_class(MPI_Publish_name(service, MPI_INFO_NULL, NULL)) == MPI_ERR_ARG);
    MPI_Comm world = MPI_COMM_WORLD;
    CHECK(error_class(MPI_Comm_disconnect(&world)) == MPI_ERR_COMM);
    if (rank == 0) planted_names(tag);

    join(tag);
    CHECK(MPI_Comm_free(&half) == MPI_SUCCESS);
    MPI_Finalize();
    return 0;
}
