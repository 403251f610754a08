/* A member that cannot take part in a shared-memory collective ends the others' wait
 * with an error, not a hang. Rank 1 runs out of address space (RLIMIT_AS) just before
 * an MPI_Allreduce whose non-contiguous buffer it must pack into a copy of 192 KiB: it
 * gets MPI_ERR_NO_MEM, the others an error that names rank 1, and every later
 * shared-memory collective on the communicator fails at every rank, a persistent one
 * on the lines made before too (at its wait, started without waiting), while messages
 * (MPI_Send / MPI_Recv) and a fresh communicator still work. */
#define _DEFAULT_SOURCE
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: ", rank);                                                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

/* doubles, every other one: 192 KiB packed, through shared memory on 2 ranks too */
enum { ITEMS = 24 << 10 };

static int rank;

/* The address space in use now, from /proc/self/statm (pages). */
static size_t address_space(void) {
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%lu", &pages) != 1) pages = 0;
    if (f) fclose(f);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

int main(int argc, char **argv) {
    /* copies of 64 KiB and more are mapped, each on its own, never taken from the heap
     * (glibc would raise the bound once the first such copy is freed) */
    mallopt(M_MMAP_THRESHOLD, 64 << 10);
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Datatype every_other;
    MPI_Type_vector(ITEMS, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    double *in = malloc(2 * ITEMS * sizeof *in), *out = malloc(2 * ITEMS * sizeof *out);
    CHECK(in && out, "no memory for the buffers");
    for (int i = 0; i < 2 * ITEMS; i++) in[i] = rank + 1;

    /* once, whole: the communicator's block is set up and the call works */
    int rc = MPI_Allreduce(in, out, 1, every_other, MPI_SUM, comm);
    CHECK(rc == MPI_SUCCESS, "the first allreduce failed (%d)", rc);
    CHECK(out[0] == size * (size + 1) / 2.0, "the first allreduce gave %g", out[0]);
    /* a persistent allreduce of 8 bytes, on the lines, that works before the failure */
    double pin = rank, pout = -1;
    MPI_Request persistent;
    rc = MPI_Allreduce_init(&pin, &pout, 1, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &persistent);
    CHECK(rc == MPI_SUCCESS, "MPI_Allreduce_init failed (%d)", rc);
    CHECK(MPI_Start(&persistent) == MPI_SUCCESS, "the first start failed");
    CHECK(MPI_Wait(&persistent, MPI_STATUS_IGNORE) == MPI_SUCCESS, "the first run failed");
    CHECK(pout == size * (size - 1) / 2.0, "the persistent allreduce gave %g", pout);
    MPI_Barrier(comm);

    struct rlimit was;
    getrlimit(RLIMIT_AS, &was);
    if (rank == 1) { /* 64 KiB of room: not the copy */
        struct rlimit tight = {address_space() + (64 << 10), was.rlim_max};
        CHECK(!setrlimit(RLIMIT_AS, &tight), "setrlimit failed");
    }
    rc = MPI_Allreduce(in, out, 1, every_other, MPI_SUM, comm);
    if (rank == 1) setrlimit(RLIMIT_AS, &was);
    int class = MPI_SUCCESS;
    MPI_Error_class(rc, &class);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    if (rank == 1) {
        CHECK(class == MPI_ERR_NO_MEM, "rank 1's allreduce gave class %d, not MPI_ERR_NO_MEM",
              class);
    } else {
        CHECK(rc != MPI_SUCCESS, "the allreduce succeeded without rank 1");
        CHECK(strstr(text, "rank 1 ") != NULL, "the error does not name rank 1: %s", text);
    }

    /* the block is out of use for good, at every rank, the one that gave up too */
    double one = 1, sum = 0;
    rc = MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    CHECK(rc != MPI_SUCCESS, "a later allreduce on the communicator succeeded");
    /* the persistent one ends in an error too, the start returning at once */
    CHECK(MPI_Start(&persistent) == MPI_SUCCESS, "a start failed by itself");
    rc = MPI_Wait(&persistent, MPI_STATUS_IGNORE);
    CHECK(rc != MPI_SUCCESS, "a persistent allreduce after the failure succeeded");
    if (rank != 1) {
        MPI_Error_string(rc, text, &len);
        CHECK(strstr(text, "rank 1 ") != NULL, "the persistent error does not name rank 1: %s",
              text);
    }
    CHECK(MPI_Request_free(&persistent) == MPI_SUCCESS, "the request could not be freed");

    /* messages still go, and a new communicator has a block of its own */
    int token = rank;
    if (rank == 0)
        for (int r = 1; r < size; r++) {
            CHECK(MPI_Recv(&token, 1, MPI_INT, r, 7, comm, MPI_STATUS_IGNORE) == MPI_SUCCESS,
                  "a message from %d failed", r);
            CHECK(token == r, "rank %d sent %d", r, token);
        }
    else
        CHECK(MPI_Send(&token, 1, MPI_INT, 0, 7, comm) == MPI_SUCCESS, "a message failed");
    MPI_Comm fresh;
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    rc = MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, fresh);
    CHECK(rc == MPI_SUCCESS && sum == size, "an allreduce on a new communicator failed");
    MPI_Comm_free(&fresh);
    MPI_Comm_free(&comm);
    MPI_Type_free(&every_other);
    free(in);
    free(out);
    MPI_Finalize();
    if (rank == 0) printf("coll_give_up: ok on %d ranks\n", size);
    return 0;
}
