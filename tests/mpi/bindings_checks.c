/* The generated argument checks (src/mpi/bindings): a negative count is
 * MPI_ERR_COUNT, reported through the handler of the communicator the call names
 * (not the world's), at every thread level; a valid call after it still works.
 * usage: mpi_bindings_checks [multiple] */
#include "mpi_check.h"

static int heard, heard_class;
static MPI_Comm heard_comm;

static void on_error(MPI_Comm *comm, int *code, ...) {
    int cls;
    MPI_Error_class(*code, &cls);
    heard++;
    heard_class = cls;
    heard_comm = *comm;
}

static void world_error(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    (void)code;
    fprintf(stderr, "rank %d: the world's handler heard an error of another communicator\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* call's error reached dup's handler as MPI_ERR_COUNT, once */
#define EXPECT_COUNT_ERROR(call)                                                                   \
    do {                                                                                           \
        heard = 0;                                                                                 \
        int rc_ = (call);                                                                          \
        int cls_;                                                                                  \
        MPI_Error_class(rc_, &cls_);                                                               \
        CHECK(cls_ == MPI_ERR_COUNT);                                                              \
        CHECK(heard == 1 && heard_class == MPI_ERR_COUNT && heard_comm == dup);                    \
    } while (0)

int main(int argc, char **argv) {
    int multiple = argc > 1 && !strcmp(argv[1], "multiple"), provided;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(!multiple || provided == MPI_THREAD_MULTIPLE);

    MPI_Errhandler world_eh, eh;
    CHECK(MPI_Comm_create_errhandler(world_error, &world_eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_eh) == MPI_SUCCESS);
    MPI_Comm dup;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_errhandler(on_error, &eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(dup, eh) == MPI_SUCCESS);

    int buf[2] = {0, 0}, peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Request req = MPI_REQUEST_NULL;
    EXPECT_COUNT_ERROR(MPI_Send(buf, -1, MPI_INT, peer, 0, dup));
    EXPECT_COUNT_ERROR(MPI_Ssend(buf, -5, MPI_INT, peer, 0, dup));
    EXPECT_COUNT_ERROR(MPI_Recv(buf, -1, MPI_INT, from, 0, dup, MPI_STATUS_IGNORE));
    EXPECT_COUNT_ERROR(MPI_Isend(buf, -1, MPI_INT, peer, 0, dup, &req));
    EXPECT_COUNT_ERROR(MPI_Irecv(buf, -1, MPI_INT, from, 0, dup, &req));
    EXPECT_COUNT_ERROR(MPI_Send_init(buf, -1, MPI_INT, peer, 0, dup, &req));
    EXPECT_COUNT_ERROR(
        MPI_Sendrecv_replace(buf, -1, MPI_INT, peer, 0, from, 0, dup, MPI_STATUS_IGNORE));
    /* the profiling names check as the MPI_ ones (they are the same call) */
    EXPECT_COUNT_ERROR(PMPI_Rsend(buf, -1, MPI_INT, peer, 0, dup));
    CHECK(req == MPI_REQUEST_NULL);

    /* an invalid communicator is still the first error: MPI_ERR_COMM */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Send(buf, -1, MPI_INT, peer, 0, MPI_COMM_NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM);

    /* with MPI_ERRORS_RETURN the class comes back and nothing else happens */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    rc = MPI_Send(buf, -1, MPI_INT, peer, 0, dup);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT);

    /* and the communicator still carries messages */
    int out = rank, in = -1;
    CHECK(MPI_Sendrecv(&out, 1, MPI_INT, peer, 7, &in, 1, MPI_INT, from, 7, dup,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(in == from);

    MPI_Errhandler_free(&eh);
    MPI_Errhandler_free(&world_eh);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    if (rank == 0) printf("bindings_checks: ok\n");
    return 0;
}
