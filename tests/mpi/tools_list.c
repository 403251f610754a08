/* The tools information interface (MPI_T): lists every control variable, performance
 * variable and category with all their information (rank 0 prints them), reads every
 * variable and checks what it says against the rules of MPI-3.1 chapter 14 and the
 * environment (the test sets TW_EAGER_LIMIT and TW_COLL_BCAST), counts messages
 * between a start and a read, checks the matching queues' lengths, the error codes
 * of bad indices, names, handles and sessions, and MPI_T before MPI_Init and after
 * MPI_Finalize. Runs on any number of ranks; the counting needs two. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tollway/endpoint.h>

#include "mpi_check.h"

static int ncvars, npvars, ncats;

static void t_init(void) {
    int provided = -1;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_SINGLE);
}

static int pvar_index(const char *name, int cls) {
    int i = -1;
    CHECK(MPI_T_pvar_get_index(name, cls, &i) == MPI_SUCCESS);
    CHECK(i >= 0 && i < npvars);
    return i;
}

static unsigned long long pread(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
    unsigned long long v = 0xdeadbeef;
    CHECK(MPI_T_pvar_read(s, h, &v) == MPI_SUCCESS);
    return v;
}

static const char *type_name(MPI_Datatype t) {
    return t == MPI_INT                  ? "int"
           : t == MPI_UNSIGNED_LONG      ? "unsigned long"
           : t == MPI_CHAR               ? "char"
           : t == MPI_UNSIGNED_LONG_LONG ? "unsigned long long"
                                         : "?";
}

/* An enum: its items numbered 0.. with names; a bad item refused. */
static void check_enum(MPI_T_enum e, int print) {
    int num = -1, len = 0;
    char name[256], item[256];
    CHECK(MPI_T_enum_get_info(e, &num, NULL, &len) == MPI_SUCCESS && len > 1);
    len = sizeof name;
    CHECK(MPI_T_enum_get_info(e, &num, name, &len) == MPI_SUCCESS);
    CHECK(num > 0 && len == (int)strlen(name) + 1);
    for (int k = 0; k < num; k++) {
        int value = -1, ilen = sizeof item;
        CHECK(MPI_T_enum_get_item(e, k, &value, item, &ilen) == MPI_SUCCESS);
        CHECK(ilen == (int)strlen(item) + 1 && ilen > 1);
        CHECK(value == k);
        if (print) printf("      item %d: %s\n", value, item);
    }
    int value;
    CHECK(MPI_T_enum_get_item(e, num, &value, item, &len) == MPI_T_ERR_INVALID_ITEM);
    CHECK(MPI_T_enum_get_item(e, -1, &value, item, &len) == MPI_T_ERR_INVALID_ITEM);
}

/* Every control variable: its information, its index by name, its value, and a write
 * refused as its scope says. Values checked against the environment where it sets them. */
static void list_cvars(int print) {
    CHECK(MPI_T_cvar_get_num(&ncvars) == MPI_SUCCESS && ncvars > 0);
    if (print) printf("%d control variables\n", ncvars);
    for (int i = 0; i < ncvars; i++) {
        char name[256], desc[1024];
        int name_len = 0, desc_len = 0, verbosity = -1, bind = -1, scope = -1;
        MPI_Datatype type = MPI_DATATYPE_NULL;
        MPI_T_enum e = MPI_T_ENUM_NULL;
        /* the lengths alone first */
        CHECK(MPI_T_cvar_get_info(i, NULL, &name_len, NULL, NULL, NULL, NULL, &desc_len, NULL,
                                  NULL) == MPI_SUCCESS);
        CHECK(name_len > 1 && desc_len > 1 && name_len <= (int)sizeof name);
        int want_name = name_len, want_desc = desc_len;
        name_len = sizeof name;
        desc_len = sizeof desc;
        CHECK(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &e, desc, &desc_len, &bind,
                                  &scope) == MPI_SUCCESS);
        CHECK(name_len == want_name && name_len == (int)strlen(name) + 1);
        CHECK(desc_len == want_desc && desc_len == (int)strlen(desc) + 1);
        CHECK(!strncmp(name, "TW_", 3));
        CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL);
        CHECK(bind == MPI_T_BIND_NO_OBJECT);
        CHECK(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ);
        CHECK(type == MPI_INT || type == MPI_UNSIGNED_LONG || type == MPI_CHAR);
        CHECK(e == MPI_T_ENUM_NULL || type == MPI_INT);
        /* a short buffer: cut, terminated */
        char cut[4] = "xxx";
        int cut_len = 3;
        CHECK(MPI_T_cvar_get_info(i, cut, &cut_len, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_SUCCESS);
        CHECK(cut_len == 3 && !strncmp(cut, name, 2) && cut[2] == '\0');
        int index = -1;
        CHECK(MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS && index == i);

        MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
        int count = 0;
        CHECK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS);
        CHECK(h != MPI_T_CVAR_HANDLE_NULL && count >= 1);
        char text[1024] = "";
        int ivalue = -1;
        unsigned long ulvalue = 0;
        if (type == MPI_CHAR) {
            CHECK(count <= (int)sizeof text);
            CHECK(MPI_T_cvar_read(h, text) == MPI_SUCCESS);
            CHECK((int)strlen(text) + 1 == count);
        } else if (type == MPI_INT) {
            CHECK(count == 1 && MPI_T_cvar_read(h, &ivalue) == MPI_SUCCESS);
            snprintf(text, sizeof text, "%d", ivalue);
        } else {
            CHECK(count == 1 && MPI_T_cvar_read(h, &ulvalue) == MPI_SUCCESS);
            snprintf(text, sizeof text, "%lu", ulvalue);
        }
        /* what the environment says, where it says it (a number, or a choice's name) */
        const char *env = getenv(name);
        if (env && e != MPI_T_ENUM_NULL) {
            char item[256];
            int len = sizeof item, value;
            CHECK(MPI_T_enum_get_item(e, ivalue, &value, item, &len) == MPI_SUCCESS);
            CHECK(!strcmp(item, env));
        } else if (env && type != MPI_CHAR && env[0] >= '0' && env[0] <= '9') {
            CHECK(strtoul(env, NULL, 10) == (type == MPI_INT ? (unsigned long)ivalue : ulvalue));
        } else if (env && type == MPI_CHAR && strcmp(name, "TW_JOB_KEY") &&
                   strcmp(name, "TW_JOB_SECRET")) {
            CHECK(!strcmp(text, env));
        }
        if (!strcmp(name, "TW_JOB_KEY") || !strcmp(name, "TW_JOB_SECRET"))
            CHECK(text[0] == '\0'); /* never handed out */
        if (print)
            printf("  cvar %d %s: %s = \"%s\"%s; verbosity %d, scope %d: %s\n", i, name,
                   type_name(type), text, env ? " (environment)" : "", verbosity, scope, desc);
        if (e != MPI_T_ENUM_NULL) check_enum(e, print);
        int rc = type == MPI_CHAR  ? MPI_T_cvar_write(h, text)
                 : type == MPI_INT ? MPI_T_cvar_write(h, &ivalue)
                                   : MPI_T_cvar_write(h, &ulvalue);
        if (scope == MPI_T_SCOPE_CONSTANT || scope == MPI_T_SCOPE_READONLY)
            CHECK(rc == MPI_T_ERR_CVAR_SET_NEVER || rc == MPI_T_ERR_CVAR_SET_NOT_NOW);
        else
            CHECK(rc == MPI_SUCCESS || rc == MPI_T_ERR_CVAR_SET_NOT_NOW);
        CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS && h == MPI_T_CVAR_HANDLE_NULL);
    }
}

/* The settings the test's environment sets, read through their names. */
static void check_environment(void) {
    int i, count;
    MPI_T_cvar_handle h;
    unsigned long limit = 0;
    CHECK(MPI_T_cvar_get_index("TW_EAGER_LIMIT", &i) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS && count == 1);
    CHECK(MPI_T_cvar_read(h, &limit) == MPI_SUCCESS);
    CHECK(getenv("TW_EAGER_LIMIT") && limit == 2000 &&
          limit == strtoul(getenv("TW_EAGER_LIMIT"), 0, 10));
    CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS);

    MPI_T_enum e;
    MPI_Datatype type;
    int choice = -1, value, len;
    char item[64];
    CHECK(MPI_T_cvar_get_index("TW_COLL_BCAST", &i) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_get_info(i, NULL, NULL, NULL, &type, &e, NULL, NULL, NULL, NULL) ==
          MPI_SUCCESS);
    CHECK(type == MPI_INT && e != MPI_T_ENUM_NULL);
    CHECK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS && count == 1);
    CHECK(MPI_T_cvar_read(h, &choice) == MPI_SUCCESS);
    len = sizeof item;
    CHECK(MPI_T_enum_get_item(e, choice, &value, item, &len) == MPI_SUCCESS);
    CHECK(!strcmp(item, "binomial") && value == choice);
    CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS);
}

/* A handle of the control variable of that name. */
static MPI_T_cvar_handle cvar_handle(const char *name) {
    int i, count;
    MPI_T_cvar_handle h;
    CHECK(MPI_T_cvar_get_index(name, &i) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS && count == 1);
    return h;
}

/* Writes: refused for what is read once; outside MPI for what MPI holds. */
static void check_writes_outside_mpi(void) {
    unsigned long v = 100;
    int slots = 4096;
    MPI_T_cvar_handle eager = cvar_handle("TW_EAGER_LIMIT"), velo = cvar_handle("TW_VELO_SLOTS");
    CHECK(MPI_T_cvar_write(eager, &v) == MPI_T_ERR_CVAR_SET_NOT_NOW);
    CHECK(MPI_T_cvar_write(velo, &slots) == MPI_T_ERR_CVAR_SET_NEVER);
    CHECK(MPI_T_cvar_read(eager, &v) == MPI_SUCCESS && v == 2000);
    CHECK(MPI_T_cvar_handle_free(&eager) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_handle_free(&velo) == MPI_SUCCESS);
    /* a collective's algorithm may be written at any time (here: what it is) */
    MPI_T_cvar_handle bcast = cvar_handle("TW_COLL_BCAST");
    int choice = 1;
    CHECK(MPI_T_cvar_write(bcast, &choice) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_read(bcast, &choice) == MPI_SUCCESS && choice == 1);
    CHECK(MPI_T_cvar_handle_free(&bcast) == MPI_SUCCESS);
}

/* RMA operations of the job (every rank's) while rank 0 sends 1000 bytes to rank 1. */
static unsigned long long rma_ops_for_one_send(void) {
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    int count;
    char buf[1000] = {0};
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_handle_alloc(s, pvar_index("rma_ops", MPI_T_PVAR_CLASS_COUNTER), NULL, &h,
                                  &count) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_T_pvar_start(s, h) == MPI_SUCCESS);
    if (rank == 0)
        CHECK(MPI_Send(buf, sizeof buf, MPI_BYTE, 1, 20, MPI_COMM_WORLD) == MPI_SUCCESS);
    else if (rank == 1)
        CHECK(MPI_Recv(buf, sizeof buf, MPI_BYTE, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS);
    CHECK(MPI_T_pvar_stop(s, h) == MPI_SUCCESS);
    unsigned long long mine = pread(s, h), all = 0;
    CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS);
    CHECK(MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD) ==
          MPI_SUCCESS);
    return all;
}

/* VELO messages rank 0 sends in a broadcast of 64 doubles from it (by the algorithm
 * TW_COLL_BCAST names), the data checked. */
static unsigned long long bcast_messages(void) {
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    int count;
    double d[64];
    for (int k = 0; k < 64; k++) d[k] = rank == 0 ? k * 0.5 : -1;
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_handle_alloc(s, pvar_index("velo_msgs_sent", MPI_T_PVAR_CLASS_COUNTER), NULL,
                                  &h, &count) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_T_pvar_start(s, h) == MPI_SUCCESS);
    CHECK(MPI_Bcast(d, 64, MPI_DOUBLE, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_stop(s, h) == MPI_SUCCESS);
    for (int k = 0; k < 64; k++) CHECK(d[k] == k * 0.5);
    unsigned long long sent = pread(s, h);
    CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS);
    MPI_Bcast(&sent, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    return sent;
}

/* TW_COLL_BCAST is written on every rank at the same point: the next broadcast takes
 * the algorithm written. */
static void check_choice_writes(void) {
    MPI_T_cvar_handle h = cvar_handle("TW_COLL_BCAST");
    int i, scope, choice = -1;
    CHECK(MPI_T_cvar_get_index("TW_COLL_BCAST", &i) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &scope) ==
          MPI_SUCCESS);
    CHECK(scope == MPI_T_SCOPE_ALL_EQ);
    CHECK(MPI_T_cvar_read(h, &choice) == MPI_SUCCESS && choice == 1); /* binomial */
    unsigned long long binomial = bcast_messages();
    choice = 2; /* scatter-allgather */
    CHECK(MPI_T_cvar_write(h, &choice) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_read(h, &choice) == MPI_SUCCESS && choice == 2);
    unsigned long long scatter_allgather = bcast_messages();
    /* binomial: the root sends to ranks 1, 2, 4, ...; the scatter and the ring, more */
    unsigned long long children = 0;
    for (int d = 1; d < size; d *= 2) children++;
    CHECK(binomial == children);
    if (size >= 2) CHECK(scatter_allgather > binomial);
    choice = 3; /* shm: on one node, no message at all */
    CHECK(MPI_T_cvar_write(h, &choice) == MPI_SUCCESS);
    unsigned long long shm = bcast_messages();
    if (all_on_one_node()) CHECK(shm == 0);
    choice = 4;
    CHECK(MPI_T_cvar_write(h, &choice) == MPI_T_ERR_INVALID);
    choice = -1;
    CHECK(MPI_T_cvar_write(h, &choice) == MPI_T_ERR_INVALID);
    choice = 1;
    CHECK(MPI_T_cvar_write(h, &choice) == MPI_SUCCESS);
    CHECK(bcast_messages() == binomial);
    CHECK(MPI_T_cvar_handle_free(&h) == MPI_SUCCESS);
}

/* TW_EAGER_LIMIT and TW_PIPELINE_LIMIT are written while MPI runs, and the next send
 * follows them: 1000 bytes go eagerly (no RMA) under the environment's 2000, in pieces
 * (no RMA either) under 64 and a pipeline of the default 8 KiB where the ranks share a
 * node's memory (TW_LINK auto or shm; across a link, by rendezvous), by rendezvous (RMA)
 * once the pipeline is off too. */
static void check_writes(void) {
    MPI_T_cvar_handle eager = cvar_handle("TW_EAGER_LIMIT"),
                      pipeline = cvar_handle("TW_PIPELINE_LIMIT");
    int i, scope;
    unsigned long v;
    CHECK(MPI_T_cvar_get_index("TW_EAGER_LIMIT", &i) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &scope) ==
          MPI_SUCCESS);
    CHECK(scope == MPI_T_SCOPE_LOCAL);
    if (size >= 2) CHECK(rma_ops_for_one_send() == 0);
    v = 64;
    CHECK(MPI_T_cvar_write(eager, &v) == MPI_SUCCESS);
    v = 0;
    CHECK(MPI_T_cvar_read(eager, &v) == MPI_SUCCESS && v == 64);
    CHECK(MPI_T_cvar_read(pipeline, &v) == MPI_SUCCESS && v == 8192);
    const char *link = getenv("TW_LINK");
    int mapped = !link || !strcmp(link, "auto") || !strcmp(link, "shm");
    if (size >= 2) CHECK((rma_ops_for_one_send() == 0) == mapped);
    v = 0;
    CHECK(MPI_T_cvar_write(pipeline, &v) == MPI_SUCCESS);
    if (size >= 2) CHECK(rma_ops_for_one_send() >= 1);
    v = 1UL << 20; /* beyond the range: a pipelined message is 256 KiB at most */
    CHECK(MPI_T_cvar_write(pipeline, &v) == MPI_T_ERR_INVALID);
    v = 8192;
    CHECK(MPI_T_cvar_write(pipeline, &v) == MPI_SUCCESS);
    v = 1UL << 20; /* beyond the range */
    CHECK(MPI_T_cvar_write(eager, &v) == MPI_T_ERR_INVALID);
    CHECK(MPI_T_cvar_read(eager, &v) == MPI_SUCCESS && v == 64);
    v = 2000;
    CHECK(MPI_T_cvar_write(eager, &v) == MPI_SUCCESS);
    if (size >= 2) CHECK(rma_ops_for_one_send() == 0);
    CHECK(MPI_T_cvar_handle_free(&eager) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_handle_free(&pipeline) == MPI_SUCCESS);
}

/* Every performance variable: its information, its index by name and class, a handle
 * read, and what its class allows. */
static void list_pvars(int print) {
    MPI_T_pvar_session s;
    CHECK(MPI_T_pvar_get_num(&npvars) == MPI_SUCCESS && npvars > 0);
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS && s != MPI_T_PVAR_SESSION_NULL);
    if (print) printf("%d performance variables\n", npvars);
    for (int i = 0; i < npvars; i++) {
        char name[256], desc[1024];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, cls, bind, readonly,
            continuous, atomic;
        MPI_Datatype type;
        MPI_T_enum e;
        CHECK(MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &cls, &type, &e, desc, &desc_len,
                                  &bind, &readonly, &continuous, &atomic) == MPI_SUCCESS);
        CHECK(name_len == (int)strlen(name) + 1 && name_len > 1);
        CHECK(desc_len == (int)strlen(desc) + 1 && desc_len > 1);
        CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL);
        CHECK(cls >= MPI_T_PVAR_CLASS_STATE && cls <= MPI_T_PVAR_CLASS_GENERIC);
        CHECK(cls == MPI_T_PVAR_CLASS_COUNTER || cls == MPI_T_PVAR_CLASS_LEVEL ||
              cls == MPI_T_PVAR_CLASS_HIGHWATERMARK);
        CHECK(type == MPI_UNSIGNED_LONG_LONG && e == MPI_T_ENUM_NULL);
        CHECK(bind == MPI_T_BIND_NO_OBJECT);
        CHECK((readonly == 0 || readonly == 1) && (continuous == 0 || continuous == 1) &&
              (atomic == 0 || atomic == 1));
        CHECK(pvar_index(name, cls) == i);
        int other =
                cls == MPI_T_PVAR_CLASS_COUNTER ? MPI_T_PVAR_CLASS_TIMER : MPI_T_PVAR_CLASS_COUNTER,
            index;
        CHECK(MPI_T_pvar_get_index(name, other, &index) == MPI_T_ERR_INVALID_NAME);

        MPI_T_pvar_handle h;
        int count = 0;
        CHECK(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count) == MPI_SUCCESS && count == 1);
        CHECK(h != MPI_T_PVAR_HANDLE_NULL && h != MPI_T_PVAR_ALL_HANDLES);
        unsigned long long v = pread(s, h);
        if (!continuous) CHECK(v == 0); /* not started: nothing counted */
        if (continuous) {
            CHECK(MPI_T_pvar_start(s, h) == MPI_T_ERR_PVAR_NO_STARTSTOP);
            CHECK(MPI_T_pvar_stop(s, h) == MPI_T_ERR_PVAR_NO_STARTSTOP);
        } else {
            CHECK(MPI_T_pvar_start(s, h) == MPI_SUCCESS);
            CHECK(MPI_T_pvar_stop(s, h) == MPI_SUCCESS);
        }
        if (readonly) {
            CHECK(MPI_T_pvar_write(s, h, &v) == MPI_T_ERR_PVAR_NO_WRITE);
            CHECK(MPI_T_pvar_reset(s, h) == MPI_T_ERR_PVAR_NO_WRITE);
            CHECK(MPI_T_pvar_readreset(s, h, &v) == MPI_T_ERR_PVAR_NO_WRITE);
        } else {
            unsigned long long w = 1234;
            CHECK(MPI_T_pvar_write(s, h, &w) == MPI_SUCCESS && pread(s, h) == 1234);
            CHECK(MPI_T_pvar_readreset(s, h, &w) == MPI_SUCCESS && w == 1234);
            CHECK(pread(s, h) == 0);
        }
        /* the current value of the source, for the listing */
        if (!continuous) {
            CHECK(MPI_T_pvar_start(s, h) == MPI_SUCCESS);
            CHECK(MPI_T_pvar_write(s, h, &(unsigned long long){0}) == MPI_SUCCESS);
        }
        v = pread(s, h);
        if (print)
            printf("  pvar %d %s: class %d, %s%s%s= %llu; verbosity %d: %s\n", i, name, cls,
                   continuous ? "continuous, " : "", readonly ? "read-only, " : "",
                   atomic ? "atomic " : "", v, verbosity, desc);
        CHECK(MPI_T_pvar_handle_free(s, &h) == MPI_SUCCESS && h == MPI_T_PVAR_HANDLE_NULL);
    }
    CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS && s == MPI_T_PVAR_SESSION_NULL);
}

/* Every category: its information and members; every variable is in one. */
static void list_categories(int print) {
    int stamp = -1, stamp2 = -2;
    CHECK(MPI_T_category_get_num(&ncats) == MPI_SUCCESS && ncats > 0);
    CHECK(MPI_T_category_changed(&stamp) == MPI_SUCCESS);
    int *cvar_seen = calloc((size_t)ncvars, sizeof(int)),
        *pvar_seen = calloc((size_t)npvars, sizeof(int)),
        *idx = malloc((size_t)(ncvars + npvars + ncats + 1) * sizeof(int));
    if (print) printf("%d categories\n", ncats);
    for (int c = 0; c < ncats; c++) {
        char name[256], desc[1024];
        int name_len = sizeof name, desc_len = sizeof desc, nc = -1, np = -1, nk = -1, index;
        CHECK(MPI_T_category_get_info(c, name, &name_len, desc, &desc_len, &nc, &np, &nk) ==
              MPI_SUCCESS);
        CHECK(name_len == (int)strlen(name) + 1 && desc_len == (int)strlen(desc) + 1);
        CHECK(nc >= 0 && nc <= ncvars && np >= 0 && np <= npvars && nk >= 0 && nk < ncats);
        CHECK(MPI_T_category_get_index(name, &index) == MPI_SUCCESS && index == c);
        if (print) printf("  category %d %s: %s\n", c, name, desc);
        CHECK(MPI_T_category_get_cvars(c, nc, idx) == MPI_SUCCESS);
        for (int k = 0; k < nc; k++) {
            CHECK(idx[k] >= 0 && idx[k] < ncvars);
            cvar_seen[idx[k]]++;
            if (print) printf("    cvar %d\n", idx[k]);
        }
        CHECK(MPI_T_category_get_pvars(c, np, idx) == MPI_SUCCESS);
        for (int k = 0; k < np; k++) {
            CHECK(idx[k] >= 0 && idx[k] < npvars);
            pvar_seen[idx[k]]++;
            if (print) printf("    pvar %d\n", idx[k]);
        }
        CHECK(MPI_T_category_get_categories(c, nk, idx) == MPI_SUCCESS);
        for (int k = 0; k < nk; k++) {
            CHECK(idx[k] >= 0 && idx[k] < ncats && idx[k] != c);
            if (print) printf("    category %d\n", idx[k]);
        }
        /* a shorter list: only the first ones written */
        if (nc > 1) {
            int first = -1;
            idx[1] = -7;
            CHECK(MPI_T_category_get_cvars(c, 1, idx) == MPI_SUCCESS && idx[1] == -7);
            first = idx[0];
            CHECK(first >= 0 && first < ncvars);
        }
    }
    for (int i = 0; i < ncvars; i++) CHECK(cvar_seen[i] >= 1);
    for (int i = 0; i < npvars; i++) CHECK(pvar_seen[i] >= 1);
    CHECK(MPI_T_category_changed(&stamp2) == MPI_SUCCESS && stamp2 == stamp);
    free(cvar_seen);
    free(pvar_seen);
    free(idx);
}

/* The links' counters come from the link table: each in the category named after its
 * link, which is one of the counters' categories. */
static void check_link_categories(void) {
    int counters, n, *sub = malloc((size_t)ncats * sizeof(int));
    CHECK(MPI_T_category_get_index("counters", &counters) == MPI_SUCCESS);
    CHECK(MPI_T_category_get_info(counters, NULL, NULL, NULL, NULL, NULL, NULL, &n) == MPI_SUCCESS);
    CHECK(MPI_T_category_get_categories(counters, n, sub) == MPI_SUCCESS);
    for (size_t i = 0; i < tw_link_counter_count(); i++) {
        const tw_link_counter_info_t *in = tw_link_counter_info(i);
        char name[128];
        snprintf(name, sizeof name, "%s_%s", in->link, in->name);
        int pvar = pvar_index(name, MPI_T_PVAR_CLASS_COUNTER), cat, np, found = 0, under = 0;
        CHECK(MPI_T_category_get_index(in->link, &cat) == MPI_SUCCESS);
        CHECK(MPI_T_category_get_info(cat, NULL, NULL, NULL, NULL, NULL, &np, NULL) == MPI_SUCCESS);
        int *members = malloc((size_t)np * sizeof(int));
        CHECK(MPI_T_category_get_pvars(cat, np, members) == MPI_SUCCESS);
        for (int k = 0; k < np; k++) found |= members[k] == pvar;
        for (int k = 0; k < n; k++) under |= sub[k] == cat;
        CHECK(found && under);
        free(members);
    }
    free(sub);
}

/* Bad indices, names, handles and sessions. */
static void check_errors(void) {
    char name[64];
    int len = sizeof name, i, count;
    CHECK(MPI_T_cvar_get_info(-1, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
          MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_cvar_get_info(ncvars, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
          MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_pvar_get_info(npvars, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL, NULL) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_category_get_info(ncats, name, &len, NULL, NULL, NULL, NULL, NULL) ==
          MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_category_get_cvars(-1, 0, NULL) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_category_get_pvars(ncats, 0, NULL) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_category_get_categories(ncats, 0, NULL) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_cvar_get_index("TW_NO_SUCH_SETTING", &i) == MPI_T_ERR_INVALID_NAME);
    CHECK(MPI_T_pvar_get_index("no_such_counter", MPI_T_PVAR_CLASS_COUNTER, &i) ==
          MPI_T_ERR_INVALID_NAME);
    CHECK(MPI_T_category_get_index("no_such_category", &i) == MPI_T_ERR_INVALID_NAME);
    MPI_T_cvar_handle ch;
    CHECK(MPI_T_cvar_handle_alloc(ncvars, NULL, &ch, &count) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_cvar_handle_alloc(-1, NULL, &ch, &count) == MPI_T_ERR_INVALID_INDEX);
    int v;
    CHECK(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &v) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_cvar_write(MPI_T_CVAR_HANDLE_NULL, &v) == MPI_T_ERR_INVALID_HANDLE);
    ch = MPI_T_CVAR_HANDLE_NULL;
    CHECK(MPI_T_cvar_handle_free(&ch) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &v, name, &len) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_enum_get_item(MPI_T_ENUM_NULL, 0, &v, name, &len) == MPI_T_ERR_INVALID_HANDLE);
    /* a cvar handle is no enum */
    int k;
    CHECK(MPI_T_cvar_get_index("TW_EAGER_LIMIT", &k) == MPI_SUCCESS);
    CHECK(MPI_T_cvar_handle_alloc(k, NULL, &ch, &count) == MPI_SUCCESS);
    CHECK(MPI_T_enum_get_info((MPI_T_enum)(void *)ch, &v, name, &len) == MPI_T_ERR_INVALID_HANDLE);
    MPI_T_cvar_handle freed = ch;
    CHECK(MPI_T_cvar_handle_free(&ch) == MPI_SUCCESS);
    unsigned long ul;
    CHECK(MPI_T_cvar_read(freed, &ul) == MPI_T_ERR_INVALID_HANDLE);

    MPI_T_pvar_session s, s2, gone;
    MPI_T_pvar_handle h, h2;
    unsigned long long x;
    int sent = pvar_index("velo_msgs_sent", MPI_T_PVAR_CLASS_COUNTER);
    CHECK(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, sent, NULL, &h, &count) ==
          MPI_T_ERR_INVALID_SESSION);
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_session_create(&s2) == MPI_SUCCESS && s2 != s);
    CHECK(MPI_T_pvar_handle_alloc(s, npvars, NULL, &h, &count) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_pvar_handle_alloc(s, -1, NULL, &h, &count) == MPI_T_ERR_INVALID_INDEX);
    CHECK(MPI_T_pvar_handle_alloc(s, sent, NULL, &h, &count) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_handle_alloc(s2, sent, NULL, &h2, &count) == MPI_SUCCESS);
    /* a handle of another session, none, all */
    CHECK(MPI_T_pvar_read(s, h2, &x) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_start(s2, h) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_read(s, MPI_T_PVAR_HANDLE_NULL, &x) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &x) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_write(s, MPI_T_PVAR_ALL_HANDLES, &x) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_readreset(s, MPI_T_PVAR_ALL_HANDLES, &x) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_handle_free(s2, &h) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_start(MPI_T_PVAR_SESSION_NULL, h) == MPI_T_ERR_INVALID_SESSION);
    CHECK(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, h, &x) == MPI_T_ERR_INVALID_SESSION);
    /* ALL_HANDLES starts, stops and resets what can be */
    CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
    x = 5;
    CHECK(MPI_T_pvar_write(s, h, &x) == MPI_SUCCESS && pread(s, h) == 5);
    CHECK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS && pread(s, h) == 0);
    /* a freed session takes its handles with it */
    gone = s2;
    CHECK(MPI_T_pvar_session_free(&s2) == MPI_SUCCESS && s2 == MPI_T_PVAR_SESSION_NULL);
    CHECK(MPI_T_pvar_read(gone, h2, &x) == MPI_T_ERR_INVALID_SESSION);
    CHECK(MPI_T_pvar_session_free(&gone) == MPI_T_ERR_INVALID_SESSION);
    CHECK(MPI_T_pvar_handle_free(s, &h) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_read(s, h, &x) == MPI_T_ERR_INVALID_HANDLE);
    CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS);
}

/* Ranks 2 and up wait here until rank 0 lets them go (once ranks 0 and 1 have counted):
 * meanwhile none of them sends anything (such as a collective's message) that would
 * count at rank 0 or 1. */
static void hold_others(void) {
    if (rank == 0)
        for (int r = 2; r < size; r++)
            CHECK(MPI_Send(NULL, 0, MPI_BYTE, r, 13, MPI_COMM_WORLD) == MPI_SUCCESS);
    else if (rank >= 2)
        CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
}

/* Messages counted between a start and a read: exactly those sent (ranks 0 and 1). */
static void check_counting(void) {
    enum { N = 10 };
    const int sent = pvar_index("velo_msgs_sent", MPI_T_PVAR_CLASS_COUNTER),
              received = pvar_index("velo_msgs_received", MPI_T_PVAR_CLASS_COUNTER),
              bytes = pvar_index("velo_bytes_sent", MPI_T_PVAR_CLASS_COUNTER);
    MPI_T_pvar_session s;
    MPI_T_pvar_handle hs, hr, hb, hu;
    int count;
    double payload[N] = {0};
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_handle_alloc(s, pvar_index("udp_msgs_sent", MPI_T_PVAR_CLASS_COUNTER), NULL,
                                  &hu, &count) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_handle_alloc(s, sent, NULL, &hs, &count) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_handle_alloc(s, received, NULL, &hr, &count) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_handle_alloc(s, bytes, NULL, &hb, &count) == MPI_SUCCESS);
    const char *link = getenv("TW_LINK");
    const int over_udp = link && !strcmp(link, "udp"), one_node = all_on_one_node();
    MPI_Barrier(MPI_COMM_WORLD); /* nothing of it is left in flight to either rank */
    if (rank == 0) {
        CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
        CHECK(pread(s, hs) == 0 && pread(s, hb) == 0);
        CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS); /* rank 1 counts from now */
        for (int k = 0; k < N; k++)
            CHECK(MPI_Send(&payload[k], 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(pread(s, hs) == N);
        CHECK(pread(s, hb) >= N * sizeof(double));
        /* over the udp link each of them is a message of the link too; on one node none */
        if (over_udp)
            CHECK(pread(s, hu) == N);
        else if (one_node)
            CHECK(pread(s, hu) == 0);
        CHECK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
        /* stopped: the next message is not counted */
        CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Send(payload, 1, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(pread(s, hs) == N);
        /* started again: it goes on from N */
        CHECK(MPI_T_pvar_start(s, hs) == MPI_SUCCESS);
        CHECK(MPI_Send(payload, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD) == MPI_SUCCESS);
        unsigned long long v = 0;
        CHECK(MPI_T_pvar_readreset(s, hs, &v) == MPI_SUCCESS && v == N + 1);
        CHECK(pread(s, hs) == 0);
        /* nothing else (a barrier's message) goes to rank 1 while it counts */
        CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else if (rank == 1) {
        CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS);
        CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(pread(s, hs) == 1);
        for (int k = 0; k < N; k++)
            CHECK(MPI_Recv(&payload[k], 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS);
        CHECK(pread(s, hr) == N);
        CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(MPI_Recv(payload, 1, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS);
        CHECK(MPI_Recv(payload, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS);
        CHECK(pread(s, hr) == N + 2);
        CHECK(pread(s, hs) == 2);
        CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, 6, MPI_COMM_WORLD) == MPI_SUCCESS);
    }
    hold_others();
    CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The matching queues' lengths: receives posted and not matched, messages kept
 * before their receive (rank 1 of two). */
static void check_queues(void) {
    enum { M = 5, N = 7 };
    MPI_T_pvar_session s;
    MPI_T_pvar_handle posted, unexpected, ubytes;
    int count;
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_handle_alloc(s, pvar_index("mpi_posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL),
                                  NULL, &posted, &count) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_handle_alloc(s,
                                  pvar_index("mpi_unexpected_recvq_length", MPI_T_PVAR_CLASS_LEVEL),
                                  NULL, &unexpected, &count) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_handle_alloc(s,
                                  pvar_index("mpi_unexpected_recvq_bytes", MPI_T_PVAR_CLASS_LEVEL),
                                  NULL, &ubytes, &count) == MPI_SUCCESS);
    /* what was kept already: messages of what comes next (below) another rank sent
     * early, taken in while this one finished its last call */
    const unsigned long long kept = pread(s, unexpected), kept_bytes = pread(s, ubytes);
    CHECK(pread(s, posted) == 0);
    MPI_Request r[M];
    int buf[M];
    for (int k = 0; k < M; k++) {
        CHECK(MPI_Irecv(&buf[k], 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &r[k]) ==
              MPI_SUCCESS);
        CHECK(pread(s, posted) == (unsigned long long)k + 1);
    }
    for (int k = 0; k < M; k++) {
        CHECK(MPI_Cancel(&r[k]) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r[k], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    CHECK(pread(s, posted) == 0);

    if (size >= 2 && rank == 0) {
        int v[N + 1];
        /* rank 1 has looked at its queues */
        CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k <= N; k++) {
            v[k] = k;
            CHECK(MPI_Send(&v[k], 1, MPI_INT, 1, k < N ? 10 : 11, MPI_COMM_WORLD) == MPI_SUCCESS);
        }
        /* nothing else (a barrier's message) goes to rank 1 while it counts */
        CHECK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else if (size >= 2 && rank == 1) {
        MPI_Status st;
        CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, 14, MPI_COMM_WORLD) == MPI_SUCCESS);
        /* the last one seen means every one before it has been taken in and kept */
        CHECK(MPI_Probe(0, 11, MPI_COMM_WORLD, &st) == MPI_SUCCESS);
        CHECK(pread(s, unexpected) == kept + N + 1);
        CHECK(pread(s, ubytes) == kept_bytes + (N + 1) * sizeof(int));
        for (int k = 0; k <= N; k++) {
            int v = -1;
            CHECK(MPI_Recv(&v, 1, MPI_INT, 0, k < N ? 10 : 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                  MPI_SUCCESS);
            CHECK(v == k);
            CHECK(pread(s, unexpected) == kept + (unsigned long long)(N - k));
        }
        CHECK(pread(s, ubytes) == kept_bytes);
        CHECK(MPI_Send(NULL, 0, MPI_BYTE, 0, 12, MPI_COMM_WORLD) == MPI_SUCCESS);
    }
    hold_others();
    CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS);
}

int main(int argc, char **argv) {
    rank = -1; /* in messages, until MPI knows */
    int n;
    /* before MPI_Init: not yet initialised, then twice (reference counted) */
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED);
    t_init();
    t_init();
    list_cvars(0);
    check_environment();
    CHECK(MPI_T_pvar_get_num(&npvars) == MPI_SUCCESS && npvars > 0);
    CHECK(MPI_T_category_get_num(&ncats) == MPI_SUCCESS);
    check_errors();
    check_writes_outside_mpi();
    /* a counter started before MPI_Init counts from 0 */
    MPI_T_pvar_session early;
    MPI_T_pvar_handle early_sent;
    int count;
    CHECK(MPI_T_pvar_session_create(&early) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_handle_alloc(early, pvar_index("velo_msgs_sent", MPI_T_PVAR_CLASS_COUNTER),
                                  NULL, &early_sent, &count) == MPI_SUCCESS);
    CHECK(MPI_T_pvar_start(early, early_sent) == MPI_SUCCESS);
    CHECK(pread(early, early_sent) == 0);
    CHECK(MPI_T_finalize() == MPI_SUCCESS); /* one reference left */
    CHECK(MPI_T_cvar_get_num(&n) == MPI_SUCCESS && n == ncvars);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    list_cvars(rank == 0);
    check_environment();
    list_pvars(rank == 0);
    list_categories(rank == 0);
    check_link_categories();
    check_errors();
    check_writes();
    check_choice_writes();
    if (size >= 2) check_counting();
    check_queues();
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned long long last = pread(early, early_sent);
    if (size >= 2 && rank <= 1) CHECK(last > 0);
    CHECK(MPI_Finalize() == MPI_SUCCESS);

    /* after MPI_Finalize: still usable; the counter keeps its last value */
    CHECK(pread(early, early_sent) == last);
    list_cvars(0);
    check_environment();
    list_pvars(0);
    list_categories(0);
    check_errors();
    check_writes_outside_mpi();
    CHECK(MPI_T_pvar_session_free(&early) == MPI_SUCCESS);
    CHECK(MPI_T_finalize() == MPI_SUCCESS);
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
    CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED);
    /* and again, from the start */
    t_init();
    CHECK(MPI_T_pvar_get_num(&n) == MPI_SUCCESS && n == npvars);
    CHECK(MPI_T_finalize() == MPI_SUCCESS);
    if (rank == 0) printf("tools_list: %d ranks ok\n", size);
    return 0;
}
