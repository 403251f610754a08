/* Instructions of the smallest blocking collectives on MPI_COMM_WORLD, counted by
 * callgrind: N calls of one of Barrier, an 8-byte Bcast from rank 0, an Allreduce or
 * a Reduce to rank 0 of one double; iallreduce: MPI_Iallreduce and MPI_Wait; or
 * (pbarrier, pbcast, pallreduce, preduce) the MPI_Start and MPI_Wait of the same as a
 * persistent collective made once before. The calls
 * are collected alone, after a warm-up of each, and dumped under the collective's
 * name; coll_instructions.sh takes the wait out. Run under twrun -n 2 with valgrind
 * --tool=callgrind --collect-atstart=no. The persistent forms are built with
 * -DCOUNT_PERSISTENT only, so the rest still builds against an MPI without them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>

static double in = 1, out;
static void call_barrier(void) {
    MPI_Barrier(MPI_COMM_WORLD);
}
static void call_bcast(void) {
    MPI_Bcast(&in, 8, MPI_BYTE, 0, MPI_COMM_WORLD);
}
static void call_allreduce(void) {
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
static void call_reduce(void) {
    MPI_Reduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}
static MPI_Request persistent = MPI_REQUEST_NULL;
static void call_iallreduce(void) {
    MPI_Request r;
    MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}
#ifdef COUNT_PERSISTENT
static void call_persistent(void) {
    MPI_Start(&persistent);
    MPI_Wait(&persistent, MPI_STATUS_IGNORE);
}
#endif

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int n = argc > 2 ? atoi(argv[2]) : 0;
    const char *what = argc > 1 ? argv[1] : "";
    const struct {
        const char *name;
        void (*call)(void);
    } known[] = {
        {"barrier", call_barrier},       {"bcast", call_bcast},
        {"allreduce", call_allreduce},   {"reduce", call_reduce},
        {"iallreduce", call_iallreduce},
#ifdef COUNT_PERSISTENT
        {"pbarrier", call_persistent},   {"pbcast", call_persistent},
        {"pallreduce", call_persistent}, {"preduce", call_persistent},
#endif
    };
    void (*call)(void) = NULL;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(what, known[i].name)) call = known[i].call;
    if (!call || n < 1) {
        fprintf(stderr,
                "usage: twrun -n 2 coll_count barrier|bcast|allreduce|reduce|iallreduce N\n"
                "  (and pbarrier|pbcast|pallreduce|preduce when built with -DCOUNT_PERSISTENT)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
#ifdef COUNT_PERSISTENT
    if (!strcmp(what, "pbarrier"))
        MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);
    else if (!strcmp(what, "pbcast"))
        MPI_Bcast_init(&in, 8, MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);
    else if (!strcmp(what, "pallreduce"))
        MPI_Allreduce_init(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &persistent);
    else if (!strcmp(what, "preduce"))
        MPI_Reduce_init(&in, &out, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                        &persistent);
#endif
    for (int i = 0; i < 100; i++) call(); /* first contact, set-up, code */
    CALLGRIND_TOGGLE_COLLECT;
    for (int i = 0; i < n; i++) call();
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT(what);
    if (persistent != MPI_REQUEST_NULL) MPI_Request_free(&persistent);
    MPI_Finalize();
    return 0;
}
