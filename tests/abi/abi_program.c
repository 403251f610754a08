/* A program of portable MPI C (what every ABI has), built against another MPI's
 * header and run on Tollway through that ABI's face (docs/abi.md): every handle kind,
 * the status, the predefined operations and types, MPI_IN_PLACE and MPI_BOTTOM, error
 * classes, a user operation, attribute, error handler and generalized request callbacks. Each
 * result is checked; the first wrong one is named and the job ends with status 1. Rank 0 prints
 * MPI_Get_library_version's answer. */
#include <mpi.h>
#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* Open MPI 5's MPIX_C_FLOAT16 */
#endif
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

/* MPI-4.0's calls (sessions, MPI_Info_get_string): Open MPI 5 has them while its mpi.h
 * still says MPI 3.1; Open MPI 4.1 has not */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define HAVE_MPI_4 1
#else
#define HAVE_MPI_4 0
#endif

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "abi_program: rank %d: wrong: ", rank);                                \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);                                     \
            fflush(stderr);                                                                        \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS, "%s did not return MPI_SUCCESS", #call)

/* A small positive integer n as a 16-bit float of mant fraction bits and exponent bias
 * (binary16: 10, 15; bfloat16: 7, 127), exactly. */
static inline uint16_t float16_of(unsigned n, unsigned mant, unsigned bias) {
    unsigned e = 0;
    while (n >> (e + 1)) e++;
    return (uint16_t)((e + bias) << mant | ((n << (mant - e)) & ((1u << mant) - 1)));
}

/* ---- the user operation: checks that its datatype is the program's MPI_INT ---- */
static int op_calls, op_wrong_type;
static void my_sum(void *in, void *inout, int *len, MPI_Datatype *type) {
    op_calls++;
    if (*type != MPI_INT) op_wrong_type++;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

/* ---- attribute callbacks ---- */
static int copies, deletes, copy_wrong, delete_wrong;
static MPI_Comm attr_comm;
static int attr_key;
static int my_copy(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag) {
    copies++;
    if (old != attr_comm || key != attr_key || extra != &copies) copy_wrong++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int my_delete(MPI_Comm comm, int key, void *value, void *extra) {
    deletes++;
    if (comm == MPI_COMM_NULL || key != attr_key || value != (void *)&attr_key || extra != &copies)
        delete_wrong++;
    return MPI_SUCCESS;
}

/* ---- the user error handler ---- */
static int handled, handled_class;
static MPI_Comm handled_comm;
static void my_handler(MPI_Comm *comm, int *code, ...) {
    handled++;
    handled_comm = *comm;
    MPI_Error_class(*code, &handled_class);
    *code = MPI_ERR_OTHER; /* what the failed call returns */
}

/* ---- a generalized request: its status comes from the program's query ---- */
static int greq_freed;
static int greq_query(void *extra, MPI_Status *status) {
    MPI_Status_set_elements(status, MPI_BYTE, 5);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = *(int *)extra;
    return MPI_SUCCESS;
}
static int greq_free(void *extra) {
    greq_freed += extra != NULL;
    return MPI_SUCCESS;
}
static int greq_cancel(void *extra, int complete) {
    return extra && complete >= 0 ? MPI_SUCCESS : MPI_ERR_ARG;
}

static void generalized_request(void) {
    static int tag = 77;
    MPI_Request req;
    OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &tag, &req));
    CHECK(req != MPI_REQUEST_NULL, "MPI_Grequest_start gave MPI_REQUEST_NULL");
    OK(MPI_Grequest_complete(req));
    MPI_Status s;
    OK(MPI_Wait(&req, &s));
    int count = -1, cancelled = 1;
    OK(MPI_Get_count(&s, MPI_BYTE, &count));
    OK(MPI_Test_cancelled(&s, &cancelled));
    CHECK(req == MPI_REQUEST_NULL && greq_freed == 1, "the generalized request was not freed");
    CHECK(count == 5 && !cancelled, "the generalized request's status: count %d, cancelled %d",
          count, cancelled);
    CHECK(s.MPI_SOURCE == MPI_PROC_NULL && s.MPI_TAG == 77,
          "the generalized request's status: source %d, tag %d", s.MPI_SOURCE, s.MPI_TAG);
}

static void reductions(void) {
    /* each predefined op on MPI_INT */
    struct {
        MPI_Op op;
        const char *name;
        int expect;
    } ops[] = {{MPI_SUM, "MPI_SUM", size * (size + 1) / 2},
               {MPI_MAX, "MPI_MAX", size},
               {MPI_MIN, "MPI_MIN", 1},
               {MPI_PROD, "MPI_PROD", 0},
               {MPI_LAND, "MPI_LAND", 1},
               {MPI_LOR, "MPI_LOR", 1},
               {MPI_LXOR, "MPI_LXOR", size % 2},
               {MPI_BAND, "MPI_BAND", 0},
               {MPI_BOR, "MPI_BOR", 0},
               {MPI_BXOR, "MPI_BXOR", 0}};
    int prod = 1, bor = 0, bxor = 0, band = -1;
    for (int r = 1; r <= size; r++) prod *= r, bor |= r, bxor ^= r, band &= r;
    ops[3].expect = prod, ops[7].expect = band, ops[8].expect = bor, ops[9].expect = bxor;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        int mine = rank + 1, out = -7;
        OK(MPI_Allreduce(&mine, &out, 1, MPI_INT, ops[i].op, MPI_COMM_WORLD));
        CHECK(out == ops[i].expect, "MPI_Allreduce with %s gave %d, not %d", ops[i].name, out,
              ops[i].expect);
    }
    /* MINLOC and MAXLOC on the pair types */
    struct {
        int v, i;
    } p = {10 - rank, rank}, q;
    OK(MPI_Allreduce(&p, &q, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(q.v == 10 - (size - 1) && q.i == size - 1, "MPI_MINLOC on MPI_2INT gave (%d, %d)", q.v,
          q.i);
    struct {
        double v;
        int i;
    } d = {rank * 1.5, rank}, e;
    OK(MPI_Allreduce(&d, &e, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    CHECK(e.v == (size - 1) * 1.5 && e.i == size - 1, "MPI_MAXLOC on MPI_DOUBLE_INT gave (%g, %d)",
          e.v, e.i);
    /* each predefined type in a sum (bitwise or for the byte and the boolean) */
#define SUM(ctype, mtype)                                                                          \
    do {                                                                                           \
        ctype a = (ctype)(rank + 1), b = (ctype)0;                                                 \
        OK(MPI_Allreduce(&a, &b, 1, mtype, MPI_SUM, MPI_COMM_WORLD));                              \
        CHECK(b == (ctype)(size * (size + 1) / 2), "MPI_SUM on %s", #mtype);                       \
    } while (0)
    SUM(signed char, MPI_SIGNED_CHAR);
    SUM(unsigned char, MPI_UNSIGNED_CHAR);
    SUM(short, MPI_SHORT);
    SUM(unsigned short, MPI_UNSIGNED_SHORT);
    SUM(int, MPI_INT);
    SUM(unsigned, MPI_UNSIGNED);
    SUM(long, MPI_LONG);
    SUM(unsigned long, MPI_UNSIGNED_LONG);
    SUM(long long, MPI_LONG_LONG);
    SUM(unsigned long long, MPI_UNSIGNED_LONG_LONG);
    SUM(float, MPI_FLOAT);
    SUM(double, MPI_DOUBLE);
    SUM(long double, MPI_LONG_DOUBLE);
    SUM(int8_t, MPI_INT8_T);
    SUM(int16_t, MPI_INT16_T);
    SUM(int32_t, MPI_INT32_T);
    SUM(int64_t, MPI_INT64_T);
    SUM(uint8_t, MPI_UINT8_T);
    SUM(uint16_t, MPI_UINT16_T);
    SUM(uint32_t, MPI_UINT32_T);
    SUM(uint64_t, MPI_UINT64_T);
    SUM(MPI_Aint, MPI_AINT);
    SUM(MPI_Offset, MPI_OFFSET);
    SUM(MPI_Count, MPI_COUNT);
    unsigned char byte = (unsigned char)(1 << (rank % 8)), bytes = 0;
    OK(MPI_Allreduce(&byte, &bytes, 1, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD));
    CHECK(bytes == (unsigned char)((1 << (size < 8 ? size : 8)) - 1), "MPI_BOR on MPI_BYTE gave %d",
          bytes);
    _Bool flag = rank == 0, any = 0;
    OK(MPI_Allreduce(&flag, &any, 1, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(any, "MPI_LOR on MPI_C_BOOL");
#ifdef MPIX_C_FLOAT16
    /* MPICH's and Open MPI 5's 16-bit float: a sum of ones is the count, exactly */
    uint16_t one = 0x3c00, ones = 0;
    OK(MPI_Allreduce(&one, &ones, 1, MPIX_C_FLOAT16, MPI_SUM, MPI_COMM_WORLD));
    CHECK(ones == float16_of((unsigned)size, 10, 15), "MPI_SUM on MPIX_C_FLOAT16 gave %#x", ones);
#endif
#ifdef MPIX_BFLOAT16
    uint16_t bone = 0x3f80, bones = 0;
    OK(MPI_Allreduce(&bone, &bones, 1, MPIX_BFLOAT16, MPI_SUM, MPI_COMM_WORLD));
    CHECK(bones == float16_of((unsigned)size, 7, 127), "MPI_SUM on MPIX_BFLOAT16 gave %#x", bones);
#endif
    /* MPI_IN_PLACE */
    int v = rank + 1;
    OK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(v == size * (size + 1) / 2, "MPI_Allreduce in place gave %d", v);
    /* the user operation */
    MPI_Op op;
    OK(MPI_Op_create(my_sum, 1, &op));
    int commute = 0;
    OK(MPI_Op_commutative(op, &commute));
    CHECK(commute == 1, "MPI_Op_commutative of a commutative op");
    int mine = rank + 1, out = 0;
    OK(MPI_Allreduce(&mine, &out, 1, MPI_INT, op, MPI_COMM_WORLD));
    CHECK(out == size * (size + 1) / 2, "the user op's MPI_Allreduce gave %d", out);
    int calls[2] = {op_calls, op_wrong_type}, all[2];
    OK(MPI_Allreduce(calls, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(size == 1 || all[0] > 0, "the user op was not called");
    CHECK(all[1] == 0, "the user op saw another datatype than MPI_INT");
    OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL, "MPI_Op_free left the handle");
}

/* More requests than a face keeps statuses for on its stack (MPICH's: 16), twice (the
 * second time into the array the first one left), then MPI_Waitsome over as many. */
enum { MANY = 40 };
static void many_requests(int right, int left) {
    for (int round = 0; round < 3; round++) {
        int out[MANY], in[MANY], done = 0;
        MPI_Request reqs[2 * MANY];
        MPI_Status st[2 * MANY];
        for (int i = 0; i < MANY; i++) {
            out[i] = rank * 1000 + i;
            in[i] = -1;
            OK(MPI_Irecv(&in[i], 1, MPI_INT, left, 100 + i, MPI_COMM_WORLD, &reqs[i]));
        }
        for (int i = 0; i < MANY; i++)
            OK(MPI_Isend(&out[i], 1, MPI_INT, right, 100 + i, MPI_COMM_WORLD, &reqs[MANY + i]));
        if (round < 2) {
            OK(MPI_Waitall(2 * MANY, reqs, st));
        } else {
            while (done < 2 * MANY) {
                int outcount = 0, indices[2 * MANY];
                OK(MPI_Waitsome(2 * MANY, reqs, &outcount, indices, st));
                CHECK(outcount > 0 && outcount <= 2 * MANY, "MPI_Waitsome's outcount %d", outcount);
                for (int k = 0; k < outcount; k++) {
                    int i = indices[k];
                    if (i < MANY)
                        CHECK(st[k].MPI_SOURCE == left && st[k].MPI_TAG == 100 + i,
                              "MPI_Waitsome's status %d: source %d tag %d", i, st[k].MPI_SOURCE,
                              st[k].MPI_TAG);
                }
                done += outcount;
            }
        }
        for (int i = 0; i < MANY; i++) {
            CHECK(in[i] == left * 1000 + i, "request %d of %d received %d", i, MANY, in[i]);
            if (round == 2) continue;
            int count = -1;
            OK(MPI_Get_count(&st[i], MPI_INT, &count));
            CHECK(st[i].MPI_SOURCE == left && st[i].MPI_TAG == 100 + i && count == 1,
                  "MPI_Waitall's status %d of %d: source %d tag %d count %d", i, 2 * MANY,
                  st[i].MPI_SOURCE, st[i].MPI_TAG, count);
        }
    }
}

static void point_to_point(void) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[3] = {rank, rank * 10, rank * 100}, in[3] = {-1, -1, -1};
    MPI_Request reqs[2];
    MPI_Status st[2];
    OK(MPI_Irecv(in, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Isend(out, 3, MPI_INT, right, 40 + rank, MPI_COMM_WORLD, &reqs[1]));
    OK(MPI_Waitall(2, reqs, st));
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "MPI_Waitall left requests");
    CHECK(st[0].MPI_SOURCE == left, "status MPI_SOURCE %d, not %d", st[0].MPI_SOURCE, left);
    CHECK(st[0].MPI_TAG == 40 + left, "status MPI_TAG %d, not %d", st[0].MPI_TAG, 40 + left);
    int count = -1;
    OK(MPI_Get_count(&st[0], MPI_INT, &count));
    CHECK(count == 3, "MPI_Get_count gave %d", count);
    CHECK(in[0] == left && in[2] == left * 100, "received %d %d", in[0], in[2]);
    /* from MPI_PROC_NULL: the empty status */
    MPI_Status s;
    OK(MPI_Recv(in, 3, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &s));
    CHECK(s.MPI_SOURCE == MPI_PROC_NULL, "a receive from MPI_PROC_NULL: source %d", s.MPI_SOURCE);
    CHECK(s.MPI_TAG == MPI_ANY_TAG, "a receive from MPI_PROC_NULL: tag %d", s.MPI_TAG);
    OK(MPI_Get_count(&s, MPI_INT, &count));
    CHECK(count == 0, "a receive from MPI_PROC_NULL: count %d", count);
    OK(MPI_Send(out, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    /* a call that gives one status leaves its MPI_ERROR field as the program had it (an
     * error class whose value differs between ABIs, so a translation would show) */
    s.MPI_ERROR = MPI_ERR_TOPOLOGY;
    OK(MPI_Sendrecv(out, 1, MPI_INT, right, 7, in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &s));
    CHECK(in[0] == left, "MPI_Sendrecv gave %d", in[0]);
    CHECK(s.MPI_SOURCE == left && s.MPI_TAG == 7, "MPI_Sendrecv's status (source %d, tag %d)",
          s.MPI_SOURCE, s.MPI_TAG);
    CHECK(s.MPI_ERROR == MPI_ERR_TOPOLOGY, "MPI_Sendrecv wrote its status's MPI_ERROR: %d, not %d",
          s.MPI_ERROR, MPI_ERR_TOPOLOGY);
    /* messages: matched probe, and none from MPI_PROC_NULL */
    MPI_Message msg;
    OK(MPI_Isend(out, 2, MPI_INT, right, 9, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Mprobe(left, 9, MPI_COMM_WORLD, &msg, &s));
    CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "MPI_Mprobe's message");
    OK(MPI_Get_count(&s, MPI_INT, &count));
    CHECK(count == 2 && s.MPI_SOURCE == left, "MPI_Mprobe's status (count %d, source %d)", count,
          s.MPI_SOURCE);
    OK(MPI_Mrecv(in, 2, MPI_INT, &msg, MPI_STATUS_IGNORE));
    CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv left the message");
    OK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
    OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &s));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_Mprobe from MPI_PROC_NULL");
    int flag = 1;
    OK(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 0, "MPI_Iprobe found a message never sent");
    many_requests(right, left);
}

/* ---- what a call leaves in the program's statuses ----
 * A status a call did not fill (MPI_Iprobe and MPI_Test that say "not yet") keeps the
 * program's values; so do the MPI_ERROR fields of an array of statuses when no request
 * failed (the array is filled but for them); an empty status says MPI_ANY_SOURCE. */
static void statuses_kept(int right, int left) {
    MPI_Status s;
    s.MPI_SOURCE = 1234, s.MPI_TAG = 5678, s.MPI_ERROR = MPI_ERR_OTHER;
    int flag = -1;
    OK(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, &s));
    CHECK(!flag && s.MPI_SOURCE == 1234 && s.MPI_TAG == 5678 && s.MPI_ERROR == MPI_ERR_OTHER,
          "MPI_Iprobe with nothing to find changed the status: flag %d, %d %d %d", flag,
          s.MPI_SOURCE, s.MPI_TAG, s.MPI_ERROR);
    MPI_Request r;
    int in = -1, out = rank;
    OK(MPI_Irecv(&in, 1, MPI_INT, left, 998, MPI_COMM_WORLD, &r));
    OK(MPI_Test(&r, &flag, &s));
    CHECK(!flag && s.MPI_SOURCE == 1234 && s.MPI_TAG == 5678,
          "MPI_Test of a receive not yet matched changed the status: flag %d, %d %d", flag,
          s.MPI_SOURCE, s.MPI_TAG);
    OK(MPI_Barrier(MPI_COMM_WORLD)); /* every rank tested before any sends */
    OK(MPI_Send(&out, 1, MPI_INT, right, 998, MPI_COMM_WORLD));
    OK(MPI_Wait(&r, &s));
    CHECK(in == left && s.MPI_SOURCE == left && s.MPI_TAG == 998, "the receive: %d from %d tag %d",
          in, s.MPI_SOURCE, s.MPI_TAG);
    MPI_Request rs[2];
    MPI_Status st[2];
    st[0].MPI_ERROR = st[1].MPI_ERROR = MPI_ERR_OTHER;
    OK(MPI_Irecv(&in, 1, MPI_INT, left, 997, MPI_COMM_WORLD, &rs[0]));
    OK(MPI_Isend(&out, 1, MPI_INT, right, 997, MPI_COMM_WORLD, &rs[1]));
    OK(MPI_Waitall(2, rs, st));
    CHECK(st[0].MPI_SOURCE == left && st[0].MPI_ERROR == MPI_ERR_OTHER &&
              st[1].MPI_ERROR == MPI_ERR_OTHER,
          "MPI_Waitall's statuses: source %d, errors %d %d (the program's were kept: %d)",
          st[0].MPI_SOURCE, st[0].MPI_ERROR, st[1].MPI_ERROR, MPI_ERR_OTHER);
    MPI_Request none = MPI_REQUEST_NULL;
    OK(MPI_Request_get_status(none, &flag, &s));
    CHECK(flag && s.MPI_SOURCE == MPI_ANY_SOURCE && s.MPI_TAG == MPI_ANY_TAG,
          "MPI_Request_get_status of MPI_REQUEST_NULL: flag %d source %d tag %d", flag,
          s.MPI_SOURCE, s.MPI_TAG);
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    int v = 0;
    OK(MPI_Status_set_source(&s, MPI_PROC_NULL));
    OK(MPI_Status_get_source(&s, &v));
    CHECK(v == MPI_PROC_NULL && s.MPI_SOURCE == MPI_PROC_NULL,
          "MPI_Status_set_source/get_source of MPI_PROC_NULL gave %d (field %d)", v, s.MPI_SOURCE);
    s.MPI_SOURCE = MPI_ANY_SOURCE;
    OK(MPI_Status_get_source(&s, &v));
    CHECK(v == MPI_ANY_SOURCE, "MPI_Status_get_source of MPI_ANY_SOURCE gave %d", v);
#endif
}

/* ---- MPI_Comm_idup: the handle comes when the request completes ---- */
static void idup_later(void) {
    MPI_Comm dup = MPI_COMM_WORLD;
    MPI_Request r;
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r));
    /* other work in between, on this frame's stack and the next ones' */
    int v = rank, sum = -1;
    OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(dup != MPI_COMM_NULL && dup != MPI_COMM_WORLD, "MPI_Comm_idup gave no new communicator");
    int n = -1, result = -1;
    OK(MPI_Comm_size(dup, &n));
    OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
    CHECK(n == size && result == MPI_CONGRUENT, "the idup's size %d, comparison %d", n, result);
    OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(sum == size * (size - 1) / 2, "an MPI_Allreduce on the idup gave %d", sum);
    OK(MPI_Comm_free(&dup));
}

static void communicators_groups(void) {
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int result = -1;
    OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
    CHECK(result == MPI_CONGRUENT, "MPI_Comm_compare gave %d, not MPI_CONGRUENT", result);
    OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
    CHECK(result == MPI_IDENT, "MPI_Comm_compare of a communicator with itself gave %d", result);
    /* split: rank 0 out (MPI_UNDEFINED), the others in one */
    MPI_Comm part;
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &part));
    if (rank == 0) {
        CHECK(part == MPI_COMM_NULL, "MPI_Comm_split with MPI_UNDEFINED gave a communicator");
    } else {
        int n;
        OK(MPI_Comm_size(part, &n));
        CHECK(n == size - 1, "the split's size %d", n);
        OK(MPI_Comm_free(&part));
        CHECK(part == MPI_COMM_NULL, "MPI_Comm_free left the handle");
    }
    MPI_Group world, self, empty;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    OK(MPI_Comm_group(MPI_COMM_SELF, &self));
    int n = -1;
    OK(MPI_Group_size(world, &n));
    CHECK(n == size, "MPI_Group_size %d", n);
    int ranks[2] = {0, MPI_PROC_NULL}, out[2] = {-5, -5};
    OK(MPI_Group_translate_ranks(self, 2, ranks, world, out));
    CHECK(out[0] == rank && out[1] == MPI_PROC_NULL, "MPI_Group_translate_ranks gave %d %d", out[0],
          out[1]);
    OK(MPI_Group_compare(world, world, &result));
    CHECK(result == MPI_IDENT, "MPI_Group_compare %d", result);
    int zero = 0;
    OK(MPI_Group_incl(world, 0, &zero, &empty));
    OK(MPI_Group_compare(empty, MPI_GROUP_EMPTY, &result));
    CHECK(result == MPI_IDENT, "an empty group is not MPI_GROUP_EMPTY's like (%d)", result);
    OK(MPI_Group_rank(self, &n));
    CHECK(n == 0, "MPI_Group_rank of self %d", n);
    OK(MPI_Group_free(&world));
    OK(MPI_Group_free(&self));
    OK(MPI_Group_free(&empty));
    CHECK(world == MPI_GROUP_NULL, "MPI_Group_free left the handle");
    /* attributes: copied on a dup, deleted on a free */
    void *value;
    int flag = 0;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag));
    CHECK(flag && *(int *)value >= 32767, "MPI_TAG_UB");
    OK(MPI_Comm_create_keyval(my_copy, my_delete, &attr_key, &copies));
    CHECK(attr_key != MPI_KEYVAL_INVALID, "MPI_Comm_create_keyval gave MPI_KEYVAL_INVALID");
    attr_comm = dup;
    OK(MPI_Comm_set_attr(dup, attr_key, &attr_key));
    MPI_Comm dup2;
    OK(MPI_Comm_dup(dup, &dup2));
    CHECK(copies == 1 && copy_wrong == 0, "the copy callback (%d calls, %d wrong)", copies,
          copy_wrong);
    OK(MPI_Comm_get_attr(dup2, attr_key, &value, &flag));
    CHECK(flag && value == &attr_key, "the copied attribute");
    OK(MPI_Comm_free(&dup2));
    CHECK(deletes == 1 && delete_wrong == 0, "the delete callback (%d calls, %d wrong)", deletes,
          delete_wrong);
    OK(MPI_Comm_delete_attr(dup, attr_key));
    CHECK(deletes == 2, "MPI_Comm_delete_attr's delete callback");
    OK(MPI_Comm_free_keyval(&attr_key));
    CHECK(attr_key == MPI_KEYVAL_INVALID, "MPI_Comm_free_keyval left the key");
    /* a topology: a line, whose ends have MPI_PROC_NULL for neighbours */
    MPI_Comm line;
    int dims[1] = {size}, periods[1] = {0}, topo = -1, from = -9, to = -9;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line));
    OK(MPI_Topo_test(line, &topo));
    CHECK(topo == MPI_CART, "MPI_Topo_test gave %d, not MPI_CART", topo);
    OK(MPI_Topo_test(MPI_COMM_WORLD, &topo));
    CHECK(topo == MPI_UNDEFINED, "MPI_Topo_test of the world gave %d, not MPI_UNDEFINED", topo);
    OK(MPI_Cart_shift(line, 0, 1, &from, &to));
    CHECK(from == (rank == 0 ? MPI_PROC_NULL : rank - 1) &&
              to == (rank == size - 1 ? MPI_PROC_NULL : rank + 1),
          "MPI_Cart_shift gave %d and %d", from, to);
    OK(MPI_Comm_free(&line));
    /* the predefined callbacks: copied by MPI_COMM_DUP_FN, not by MPI_COMM_NULL_COPY_FN */
    int dup_key, null_key;
    OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dup_key, NULL));
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &null_key, NULL));
    OK(MPI_Comm_set_attr(dup, dup_key, &dup_key));
    OK(MPI_Comm_set_attr(dup, null_key, &null_key));
    OK(MPI_Comm_dup(dup, &dup2));
    OK(MPI_Comm_get_attr(dup2, dup_key, &value, &flag));
    CHECK(flag && value == &dup_key, "MPI_COMM_DUP_FN did not copy the attribute");
    OK(MPI_Comm_get_attr(dup2, null_key, &value, &flag));
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied the attribute");
    OK(MPI_Comm_free(&dup2));
    OK(MPI_Comm_free_keyval(&dup_key));
    OK(MPI_Comm_free_keyval(&null_key));
    /* errors: a bad rank, returned, then to the program's handler */
    OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    int rc = MPI_Send(&n, 1, MPI_INT, size + 5, 0, dup);
    int cls = -1;
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RANK, "a send to rank %d: class %d, not MPI_ERR_RANK (%d)", size + 5, cls,
          MPI_ERR_RANK);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    OK(MPI_Error_string(rc, text, &len));
    CHECK(len > 0 && (int)strlen(text) == len, "MPI_Error_string of the bad rank's code");
    OK(MPI_Error_class(MPI_ERR_TAG, &cls));
    CHECK(cls == MPI_ERR_TAG, "MPI_Error_class(MPI_ERR_TAG) gave %d", cls);
    /* a negative tag that is no ABI's MPI_ANY_TAG (-1 in MPICH's and Open MPI's, -2 in the
     * standard ABI) */
    rc = MPI_Recv(&n, 1, MPI_INT, 0, -1000, dup, MPI_STATUS_IGNORE);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_TAG, "a receive with tag -1000: class %d, not MPI_ERR_TAG", cls);
    MPI_Errhandler eh, got;
    OK(MPI_Comm_create_errhandler(my_handler, &eh));
    OK(MPI_Comm_set_errhandler(dup, eh));
    OK(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == eh, "MPI_Comm_get_errhandler gave another handler");
    OK(MPI_Errhandler_free(&got));
    rc = MPI_Send(&n, 1, MPI_INT, size + 5, 0, dup);
    CHECK(handled == 1 && handled_comm == dup && handled_class == MPI_ERR_RANK,
          "the program's error handler (%d calls, class %d)", handled, handled_class);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_OTHER, "the call returned class %d, not the handler's MPI_ERR_OTHER", cls);
    OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free left the handle");
    OK(MPI_Comm_free(&dup));
}

static void datatypes(void) {
    MPI_Datatype vec;
    OK(MPI_Type_contiguous(3, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    int n = 0, ni, na, nd, combiner;
    OK(MPI_Type_size(vec, &n));
    CHECK(n == 3 * (int)sizeof(int), "MPI_Type_size %d", n);
    OK(MPI_Type_get_envelope(vec, &ni, &na, &nd, &combiner));
    CHECK(combiner == MPI_COMBINER_CONTIGUOUS && nd == 1, "MPI_Type_get_envelope: combiner %d",
          combiner);
    MPI_Datatype inner = MPI_DATATYPE_NULL;
    int count;
    MPI_Aint aints[1];
    OK(MPI_Type_get_contents(vec, 1, 0, 1, &count, aints, &inner));
    CHECK(count == 3 && inner == MPI_INT, "MPI_Type_get_contents");
    OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &combiner));
    CHECK(combiner == MPI_COMBINER_NAMED, "MPI_INT's combiner %d", combiner);
    /* a darray and a subarray: their constants come back from MPI_Type_get_contents */
    MPI_Datatype darray, sub;
    int gsizes[1] = {2 * size}, distribs[1] = {MPI_DISTRIBUTE_BLOCK},
        dargs[1] = {MPI_DISTRIBUTE_DFLT_DARG}, psizes[1] = {size};
    OK(MPI_Type_create_darray(size, rank, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT,
                              &darray));
    OK(MPI_Type_size(darray, &n));
    CHECK(n == 2 * (int)sizeof(int), "the darray's size %d", n);
    int ints[8];
    MPI_Datatype old;
    OK(MPI_Type_get_envelope(darray, &ni, &na, &nd, &combiner));
    CHECK(combiner == MPI_COMBINER_DARRAY && ni == 8,
          "the darray's envelope: combiner %d, %d integers", combiner, ni);
    OK(MPI_Type_get_contents(darray, 8, 0, 1, ints, aints, &old));
    CHECK(ints[4] == MPI_DISTRIBUTE_BLOCK && ints[5] == MPI_DISTRIBUTE_DFLT_DARG &&
              ints[7] == MPI_ORDER_C && old == MPI_INT,
          "the darray's contents: distribution %d, argument %d, order %d", ints[4], ints[5],
          ints[7]);
    int sizes[1] = {4}, subsizes[1] = {2}, starts[1] = {1};
    OK(MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub));
    OK(MPI_Type_get_contents(sub, 8, 0, 1, ints, aints, &old));
    CHECK(ints[4] == MPI_ORDER_FORTRAN, "the subarray's order %d", ints[4]);
    OK(MPI_Type_free(&darray));
    OK(MPI_Type_free(&sub));
    /* a struct at absolute addresses, broadcast from MPI_BOTTOM */
    struct {
        int i;
        double d;
    } item = {rank == 0 ? 42 : 0, rank == 0 ? 2.5 : 0};
    int lens[2] = {1, 1};
    MPI_Aint where[2];
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, abs;
    OK(MPI_Get_address(&item.i, &where[0]));
    OK(MPI_Get_address(&item.d, &where[1]));
    OK(MPI_Type_create_struct(2, lens, where, types, &abs));
    OK(MPI_Type_commit(&abs));
    OK(MPI_Bcast(MPI_BOTTOM, 1, abs, 0, MPI_COMM_WORLD));
    CHECK(item.i == 42 && item.d == 2.5, "MPI_Bcast from MPI_BOTTOM gave %d %g", item.i, item.d);
    OK(MPI_Type_free(&abs));
    OK(MPI_Type_free(&vec));
    CHECK(vec == MPI_DATATYPE_NULL, "MPI_Type_free left the handle");
}

static void info_win_file(void) {
    MPI_Info info;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "abi_key", "abi_value"));
    int nkeys = 0, flag = 0, len = 64;
    OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 1, "MPI_Info_get_nkeys %d", nkeys);
    char value[64];
#if HAVE_MPI_4
    OK(MPI_Info_get_string(info, "abi_key", &len, value, &flag));
    CHECK(flag && strcmp(value, "abi_value") == 0, "MPI_Info_get_string");
#else
    OK(MPI_Info_get(info, "abi_key", len - 1, value, &flag));
    CHECK(flag && strcmp(value, "abi_value") == 0, "MPI_Info_get");
#endif
    /* a window: each rank puts its rank into its right neighbour's */
    int slot = -1;
    MPI_Win win;
    OK(MPI_Win_create(&slot, sizeof slot, sizeof slot, info, MPI_COMM_WORLD, &win));
    int *attr, has = 0;
    OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &attr, &has));
    CHECK(has && *attr == MPI_WIN_FLAVOR_CREATE,
          "MPI_WIN_CREATE_FLAVOR is %d, not MPI_WIN_FLAVOR_CREATE", *attr);
    OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &attr, &has));
    CHECK(has && (*attr == MPI_WIN_SEPARATE || *attr == MPI_WIN_UNIFIED), "MPI_WIN_MODEL is %d",
          *attr);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &attr, &has));
    CHECK(has && (*attr == MPI_PROC_NULL || (*attr >= 0 && *attr < size)), "MPI_HOST is %d", *attr);
    OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    OK(MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win));
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(slot == (rank + size - 1) % size, "the window holds %d", slot);
    OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
    OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "MPI_Info_free left the handle");
    /* a file, each rank's int at its place */
    char path[256];
    if (rank == 0) snprintf(path, sizeof path, "/tmp/tollway_abi_program_%ld.dat", (long)getpid());
    OK(MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD));
    MPI_File fh;
    OK(MPI_File_open(MPI_COMM_WORLD, path,
                     MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                     &fh));
    int amode = 0;
    OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE),
          "MPI_File_get_amode %#x", amode);
    MPI_Status s;
    int mine = 1000 + rank, back = -1, count = -1;
    OK(MPI_File_write_at(fh, (MPI_Offset)rank * (MPI_Offset)sizeof(int), &mine, 1, MPI_INT, &s));
    OK(MPI_Get_count(&s, MPI_INT, &count));
    CHECK(count == 1, "MPI_File_write_at's count %d", count);
    OK(MPI_File_sync(fh));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_File_sync(fh));
    int other = (rank + 1) % size;
    OK(MPI_File_read_at(fh, (MPI_Offset)other * (MPI_Offset)sizeof(int), &back, 1, MPI_INT,
                        MPI_STATUS_IGNORE));
    CHECK(back == 1000 + other, "read %d from the file", back);
    OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "MPI_File_close left the handle");
}

static void sessions(void) {
#if HAVE_MPI_4
    MPI_Session session;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
    CHECK(session != MPI_SESSION_NULL, "MPI_Session_init gave MPI_SESSION_NULL");
    int n = 0;
    OK(MPI_Session_get_num_psets(session, MPI_INFO_NULL, &n));
    CHECK(n >= 2, "MPI_Session_get_num_psets %d", n);
    MPI_Group group;
    OK(MPI_Group_from_session_pset(session, "mpi://WORLD", &group));
    int gsize = 0;
    OK(MPI_Group_size(group, &gsize));
    CHECK(gsize == size, "mpi://WORLD's size %d", gsize);
    OK(MPI_Group_free(&group));
    OK(MPI_Session_finalize(&session));
    CHECK(session == MPI_SESSION_NULL, "MPI_Session_finalize left the handle");
#endif
}

/* ---- the conversions to Fortran's handles, which C programs call (mpi4py, HDF5);
 * the standard ABI leaves them to a Fortran library ---- */
static void fortran_conversions(void) {
#ifndef MPI_ABI_VERSION
    MPI_Comm dup, back;
    int result = -1, bytes = 0;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    back = MPI_Comm_f2c(MPI_Comm_c2f(dup));
    OK(MPI_Comm_compare(dup, back, &result));
    CHECK(result == MPI_IDENT, "MPI_Comm_f2c(MPI_Comm_c2f(a dup)) compares %d", result);
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD,
          "MPI_COMM_WORLD through MPI_Comm_c2f and back");
    OK(MPI_Type_size(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)), &bytes));
    CHECK(bytes == (int)sizeof(double), "MPI_DOUBLE through MPI_Type_c2f and back: %d bytes",
          bytes);
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "MPI_SUM through MPI_Op_c2f and back");
    MPI_Status st, st2;
    MPI_Fint fst[32]; /* MPI_F_STATUS_SIZE or fewer (Open MPI 4.1 does not define it) */
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = 3;
    st.MPI_TAG = 7;
    st.MPI_ERROR = MPI_ERR_TRUNCATE;
    OK(MPI_Status_c2f(&st, fst));
    OK(MPI_Status_f2c(fst, &st2));
    CHECK(st2.MPI_SOURCE == 3 && st2.MPI_TAG == 7 && st2.MPI_ERROR == MPI_ERR_TRUNCATE,
          "a status through MPI_Status_c2f and back: %d %d %d", st2.MPI_SOURCE, st2.MPI_TAG,
          st2.MPI_ERROR);
#ifdef MPICH
    /* MPICH's: a Fortran handle is the C one's value, a Fortran status the C one's
     * ints (mpif.h has MPI_COMM_WORLD and the rest so) */
    CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) == (MPI_Fint)MPI_COMM_WORLD &&
              MPI_Type_c2f(MPI_DOUBLE) == (MPI_Fint)MPI_DOUBLE &&
              MPI_Op_c2f(MPI_SUM) == (MPI_Fint)MPI_SUM && MPI_Comm_c2f(dup) == (MPI_Fint)dup,
          "MPICH's Fortran handles are its C ones: MPI_Comm_c2f(MPI_COMM_WORLD) is %d, not %d",
          (int)MPI_Comm_c2f(MPI_COMM_WORLD), (int)MPI_COMM_WORLD);
    CHECK(fst[2] == 3 && fst[3] == 7 && fst[4] == MPI_ERR_TRUNCATE,
          "MPICH's Fortran status is its C one: source, tag, error %d %d %d", fst[2], fst[3],
          fst[4]);
    /* the IGNOREs are no statuses to convert: errors, not copies of their objects */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Status_c2f(MPI_STATUS_IGNORE, fst) != MPI_SUCCESS &&
              MPI_Status_f2c(MPI_F_STATUS_IGNORE, &st2) != MPI_SUCCESS,
          "MPI_Status_c2f/f2c of MPI_STATUS_IGNORE or MPI_F_STATUS_IGNORE succeeded");
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
#endif
#ifdef OPEN_MPI
    /* Open MPI's: a predefined handle's Fortran value is its index, as its mpif.h has
     * them (MPI_COMM_WORLD 0, MPI_SUM 3, MPI_INTEGER 7) */
    CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) == 0 && MPI_Comm_c2f(MPI_COMM_SELF) == 1 &&
              MPI_Op_c2f(MPI_SUM) == 3 && MPI_Type_c2f(MPI_INTEGER) == 7 &&
              MPI_Comm_f2c(0) == MPI_COMM_WORLD && MPI_Type_f2c(7) == MPI_INTEGER,
          "Open MPI's Fortran values of predefined handles: MPI_COMM_WORLD is %d, not 0",
          (int)MPI_Comm_c2f(MPI_COMM_WORLD));
    /* no handle (a null pointer) is -1, as Open MPI answers, not MPI_COMM_WORLD's 0 */
    CHECK(MPI_Comm_c2f((MPI_Comm)0) == -1, "MPI_Comm_c2f of a null pointer is %d, not -1",
          (int)MPI_Comm_c2f((MPI_Comm)0));
#endif
    OK(MPI_Comm_free(&dup));
#endif
}

int main(int argc, char **argv) {
    int provided = -1;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
              provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
          "MPI_Init_thread's level %d", provided);
    int query = -1;
    OK(MPI_Query_thread(&query));
    CHECK(query == provided, "MPI_Query_thread %d, not %d", query, provided);
    if (rank == 0) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        OK(MPI_Get_library_version(version, &len));
        CHECK(len > 0, "MPI_Get_library_version's length");
        printf("library: %s\n", version);
    }
    reductions();
    point_to_point();
    statuses_kept((rank + 1) % size, (rank + size - 1) % size);
    idup_later();
    communicators_groups();
    datatypes();
    info_win_file();
    sessions();
    generalized_request();
    fortran_conversions();
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("abi_program: %d ranks: every check passed\n", size);
    OK(MPI_Finalize());
    return 0;
}
