/* core_probe: the one-way time of a bare cache-line ping-pong between cores 0 and 1,
 * in microseconds. make bench runs it around every pair of measurements: on a
 * virtual machine the two cores are sometimes placed on sibling hyperthreads, which
 * makes every latency about three times shorter, and a pair measured across such a
 * change compares nothing. */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { ROUNDS = 50000 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

int main(void) {
    volatile uint64_t *line =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (line == MAP_FAILED) {
        perror("core_probe: mmap");
        return 1;
    }
    volatile uint64_t *ping = line, *pong = line + 16; /* two cache lines */
    pid_t child = fork();
    if (child < 0) {
        perror("core_probe: fork");
        return 1;
    }
    pin(child == 0 ? 1 : 0);
    if (child == 0) {
        for (uint64_t i = 1; i <= ROUNDS; i++) {
            while (*ping != i) {
            }
            *pong = i;
        }
        _exit(0);
    }
    double t0 = now();
    for (uint64_t i = 1; i <= ROUNDS; i++) {
        *ping = i;
        while (*pong != i) {
        }
    }
    double t = (now() - t0) / ROUNDS / 2;
    waitpid(child, NULL, 0);
    printf("%.4f\n", t * 1e6);
    return 0;
}
