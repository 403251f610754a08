/* Rank 1 dies of a signal while the others wait for a message that never comes.
 * usage: crash segv|overflow|abort|own
 *   segv      dereferences NULL
 *   overflow  recurses until the stack runs out
 *   abort     calls abort()
 *   own       sets a SIGSEGV handler of its own before MPI_Init (it says "own handler"
 *             and exits 42), then dereferences NULL: MPI_Init must leave it in place */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int stop_recursing; /* never set: keeps the compiler from seeing an endless
                                       recursion */

static int deep(int n) {
    volatile char frame[1024];
    frame[0] = (char)n;
    if (stop_recursing) return n;
    return deep(n + 1) + frame[0]; /* not a tail call: every level keeps its frame */
}

static void own_handler(int sig) {
    (void)sig;
    static const char msg[] = "own handler\n";
    if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) _exit(43);
    _exit(42);
}

int main(int argc, char **argv) {
    const char *how = argc > 1 ? argv[1] : "segv";
    if (!strcmp(how, "own")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = own_handler;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, NULL);
    }
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        volatile int *nowhere = NULL;
        if (!strcmp(how, "overflow"))
            v = deep(0);
        else if (!strcmp(how, "abort"))
            abort();
        else
            v = *nowhere;
    }
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE); /* never comes */
    MPI_Finalize();
    return v;
}
