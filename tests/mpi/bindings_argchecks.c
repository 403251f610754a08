/* The argument checks generated from the MPI Forum's description (gen_bindings.py,
 * Procedure.checks): a sample of every kind of check — a negative count or size, a
 * null datatype, op, group or info — in every chapter that has them, each asserted
 * to return its class and to reach the handler of the right object: the call's
 * communicator, its window, or (a call with neither) MPI_COMM_WORLD's. After the
 * errors the objects still work. bindings_self_test.py checks that the generator
 * makes each of these checks (so the sample drives the generated ones, not only the
 * implementation's).
 * usage: mpi_bindings_argchecks */
#include "mpi_check.h"

enum { HEARD_NONE, HEARD_COMM, HEARD_WIN, HEARD_WORLD };
static int heard, heard_class, heard_count;

static void record(int who, int code) {
    int cls = -1;
    MPI_Error_class(code, &cls);
    heard = who;
    heard_class = cls;
    heard_count++;
}
static void on_comm(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    record(HEARD_COMM, *code);
}
static void on_world(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    record(HEARD_WORLD, *code);
}
static void on_win(MPI_Win *win, int *code, ...) {
    (void)win;
    record(HEARD_WIN, *code);
}

/* call returned errclass, and only the handler of who heard of it, once */
#define EXPECT(who, errclass, call)                                                                \
    do {                                                                                           \
        heard = HEARD_NONE;                                                                        \
        heard_count = 0;                                                                           \
        int rc_ = (call), cls_ = -1;                                                               \
        MPI_Error_class(rc_, &cls_);                                                               \
        if (cls_ != (errclass) || heard != (who) || heard_count != 1 || heard_class != cls_) {     \
            fprintf(stderr, "%s: class %d (want %d), heard by %d (want %d) %d time(s)\n", #call,   \
                    cls_, (errclass), heard, (who), heard_count);                                  \
            CHECK(0);                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Errhandler world_eh, comm_eh, win_eh;
    CHECK(MPI_Comm_create_errhandler(on_world, &world_eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_errhandler(on_comm, &comm_eh) == MPI_SUCCESS);
    CHECK(MPI_Win_create_errhandler(on_win, &win_eh) == MPI_SUCCESS);
    MPI_Comm dup;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_eh) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(dup, comm_eh) == MPI_SUCCESS);
    int winbuf[4] = {0};
    MPI_Win win;
    CHECK(MPI_Win_create(winbuf, sizeof winbuf, sizeof(int), MPI_INFO_NULL, dup, &win) ==
          MPI_SUCCESS);
    CHECK(MPI_Win_set_errhandler(win, win_eh) == MPI_SUCCESS);

    int buf[8] = {0}, peer = (rank + 1) % size, from = (rank + size - 1) % size, flag, n;
    int sources[1] = {0}, degrees[1] = {0}, dests[1] = {0};
    MPI_Request req = MPI_REQUEST_NULL, reqs[1] = {MPI_REQUEST_NULL};
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Comm newcomm = MPI_COMM_NULL;
    MPI_Group group = MPI_GROUP_NULL;
    MPI_Aint lb, extent;
    char value[8];

    /* point to point: counts, datatypes; the large-count forms too */
    EXPECT(HEARD_COMM, MPI_ERR_TYPE, MPI_Ssend(buf, 1, MPI_DATATYPE_NULL, peer, 0, dup));
    EXPECT(HEARD_COMM, MPI_ERR_COUNT, MPI_Send_init(buf, -1, MPI_INT, peer, 0, dup, &req));
    EXPECT(HEARD_COMM, MPI_ERR_TYPE, MPI_Recv_init(buf, 1, MPI_DATATYPE_NULL, from, 0, dup, &req));
    EXPECT(
        HEARD_COMM, MPI_ERR_COUNT,
        MPI_Sendrecv(buf, -2, MPI_INT, peer, 0, buf, 1, MPI_INT, from, 0, dup, MPI_STATUS_IGNORE));
    EXPECT(HEARD_COMM, MPI_ERR_COUNT, MPI_Send_c(buf, -1, MPI_INT, peer, 0, dup));
    EXPECT(HEARD_COMM, MPI_ERR_COUNT,
           MPI_Psend_init(buf, 1, -1, MPI_INT, peer, 0, dup, MPI_INFO_NULL, &req));
    CHECK(req == MPI_REQUEST_NULL);
    /* request arrays: no communicator, the world's handler */
    EXPECT(HEARD_WORLD, MPI_ERR_COUNT, MPI_Waitall(-1, reqs, MPI_STATUSES_IGNORE));
    EXPECT(HEARD_WORLD, MPI_ERR_COUNT, MPI_Testany(-1, reqs, &n, &flag, MPI_STATUS_IGNORE));

    /* collectives: the receive side (the send side may be MPI_IN_PLACE), ops */
    EXPECT(HEARD_COMM, MPI_ERR_COUNT, MPI_Allgather(buf, 1, MPI_INT, buf, -1, MPI_INT, dup));
    EXPECT(HEARD_COMM, MPI_ERR_OP,
           MPI_Iallreduce(buf, buf + 4, 1, MPI_INT, MPI_OP_NULL, dup, &req));
    EXPECT(HEARD_COMM, MPI_ERR_TYPE,
           MPI_Reduce_scatter_block(buf, buf + 4, 1, MPI_DATATYPE_NULL, MPI_SUM, dup));
    EXPECT(HEARD_COMM, MPI_ERR_COUNT, MPI_Allreduce(buf, buf + 4, -1, MPI_INT, MPI_SUM, dup));
    EXPECT(HEARD_COMM, MPI_ERR_COUNT,
           MPI_Alltoall_init(buf, 1, MPI_INT, buf + 4, -1, MPI_INT, dup, MPI_INFO_NULL, &req));
    CHECK(req == MPI_REQUEST_NULL);

    /* groups, communicators, topologies */
    EXPECT(HEARD_COMM, MPI_ERR_GROUP, MPI_Comm_create(dup, MPI_GROUP_NULL, &newcomm));
    EXPECT(HEARD_WORLD, MPI_ERR_GROUP, MPI_Group_size(MPI_GROUP_NULL, &n));
    EXPECT(HEARD_WORLD, MPI_ERR_GROUP, MPI_Group_union(MPI_GROUP_NULL, MPI_GROUP_NULL, &group));
    EXPECT(HEARD_COMM, MPI_ERR_ARG,
           MPI_Dist_graph_create(dup, -1, sources, degrees, dests, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &newcomm));
    CHECK(newcomm == MPI_COMM_NULL && group == MPI_GROUP_NULL);

    /* datatypes: counts (MPI_ERR_COUNT), block lengths and sizes (MPI_ERR_ARG) */
    EXPECT(HEARD_WORLD, MPI_ERR_COUNT, MPI_Type_contiguous(-1, MPI_INT, &type));
    EXPECT(HEARD_WORLD, MPI_ERR_ARG, MPI_Type_vector(2, -1, 3, MPI_INT, &type));
    EXPECT(HEARD_WORLD, MPI_ERR_TYPE, MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &extent));
    EXPECT(HEARD_WORLD, MPI_ERR_TYPE, MPI_Type_dup(MPI_DATATYPE_NULL, &type));
    CHECK(type == MPI_DATATYPE_NULL);
    n = 0;
    EXPECT(HEARD_COMM, MPI_ERR_ARG, MPI_Pack(buf, 1, MPI_INT, buf + 4, -1, &n, dup));
    EXPECT(HEARD_COMM, MPI_ERR_COUNT, MPI_Pack_size(-1, MPI_INT, dup, &n));

    /* one-sided: the window's handler */
    EXPECT(HEARD_WIN, MPI_ERR_COUNT, MPI_Put(buf, -1, MPI_INT, peer, 0, 1, MPI_INT, win));
    EXPECT(HEARD_WIN, MPI_ERR_TYPE, MPI_Get(buf, 1, MPI_INT, peer, 0, 1, MPI_DATATYPE_NULL, win));
    EXPECT(HEARD_WIN, MPI_ERR_OP,
           MPI_Accumulate(buf, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_OP_NULL, win));
    EXPECT(HEARD_WIN, MPI_ERR_GROUP, MPI_Win_post(MPI_GROUP_NULL, 0, win));

    /* environment: info, op */
    EXPECT(HEARD_WORLD, MPI_ERR_INFO, MPI_Info_set(MPI_INFO_NULL, "key", "value"));
    EXPECT(HEARD_WORLD, MPI_ERR_INFO, MPI_Info_get_string(MPI_INFO_NULL, "key", &n, value, &flag));
    EXPECT(HEARD_WORLD, MPI_ERR_OP, MPI_Op_commutative(MPI_OP_NULL, &flag));
    EXPECT(HEARD_WORLD, MPI_ERR_COUNT, MPI_Reduce_local(buf, buf + 4, -1, MPI_INT, MPI_SUM));

    /* a null communicator or window is the first error, to the world's handler */
    EXPECT(HEARD_WORLD, MPI_ERR_COMM,
           MPI_Ssend(buf, -1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_NULL));
    EXPECT(HEARD_WORLD, MPI_ERR_WIN, MPI_Put(buf, -1, MPI_INT, peer, 0, 1, MPI_INT, MPI_WIN_NULL));

    /* MPI_ERRORS_RETURN: the class comes back, no handler runs */
    CHECK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    heard_count = 0;
    int cls = -1;
    MPI_Error_class(MPI_Issend(buf, 1, MPI_DATATYPE_NULL, peer, 0, dup, &req), &cls);
    CHECK(cls == MPI_ERR_TYPE && heard_count == 0 && req == MPI_REQUEST_NULL);

    /* the objects still work */
    int out = rank, in = -1;
    CHECK(MPI_Sendrecv(&out, 1, MPI_INT, peer, 7, &in, 1, MPI_INT, from, 7, dup,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(in == from);
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    CHECK(MPI_Put(&out, 1, MPI_INT, peer, 0, 1, MPI_INT, win) == MPI_SUCCESS);
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    CHECK(winbuf[0] == from);

    MPI_Win_free(&win);
    MPI_Comm_free(&dup);
    MPI_Errhandler_free(&win_eh);
    MPI_Errhandler_free(&comm_eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&world_eh);
    MPI_Finalize();
    if (rank == 0) printf("bindings_argchecks: ok\n");
    return 0;
}
