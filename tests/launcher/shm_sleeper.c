/* A job that holds shared memory and then sleeps, to be killed by the tests of the
 * clean-up after a killed job (shm_watch_test.sh beside it, tests/slurm): it
 * allocates a window with MPI_Win_allocate (heap blocks) and runs a collective
 * (the communicator's collective segment), then prints
 *   shm_sleeper: rank R pid P job ID objects N
 * where ID is the job id read from the name of its own endpoint's segment and N the
 * number of the job's objects it sees in /dev/shm, and sleeps SECONDS (default 300)
 * before finalising. usage: mpi_shm_sleeper [SECONDS] */
#include <mpi.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const char *what) {
    fprintf(stderr, "shm_sleeper: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The job id in the path of this process's own endpoint segment,
 * /dev/shm/tw-<id>-ep<index>-<rank>, as /proc/self/maps shows it. */
static void own_job_id(char *id, size_t cap) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) die("cannot read /proc/self/maps");
    char line[512];
    id[0] = '\0';
    while (!id[0] && fgets(line, sizeof line, maps)) {
        const char *at = strstr(line, "/dev/shm/tw-");
        const char *end = at ? strstr(at + 12, "-ep") : NULL;
        if (end && (size_t)(end - (at + 12)) < cap) {
            memcpy(id, at + 12, (size_t)(end - (at + 12)));
            id[end - (at + 12)] = '\0';
        }
    }
    fclose(maps);
    if (!id[0]) die("no endpoint segment of this process in /proc/self/maps");
}

static int count_objects(const char *id) {
    char prefix[64];
    int n = 0, len = snprintf(prefix, sizeof prefix, "tw-%s-", id);
    DIR *d = opendir("/dev/shm");
    if (!d) die("cannot list /dev/shm");
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, prefix, (size_t)len) == 0;
    closedir(d);
    return n;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int seconds = argc > 1 ? atoi(argv[1]) : 300;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *base;
    MPI_Win win;
    if (MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win) != MPI_SUCCESS)
        die("MPI_Win_allocate failed");
    long mine = rank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    char id[64];
    own_job_id(id, sizeof id);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank's objects exist */
    printf("shm_sleeper: rank %d pid %ld job %s objects %d\n", rank, (long)getpid(), id,
           count_objects(id));
    fflush(stdout);
    for (int s = 0; s < seconds; s++) sleep(1);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
