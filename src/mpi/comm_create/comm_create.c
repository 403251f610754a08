/* Making and freeing communicators (MPI-4.1 sections 7.4.2 and 7.4.3): duplication,
 * splitting and creation from groups, and freeing; the exchanges they run, which
 * intercommunicators (intercomm.c) and sessions share.
 *
 * A new communicator needs a context that no member uses yet: every member's bitmap
 * of used table entries is OR-ed at one coordinating member, which hands the lowest
 * entry free everywhere back with the new membership. These exchanges run on the
 * parent's collective context, so they cannot be confused with the program's
 * messages. Communicators are made collectively: this folder stands above coll. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/coll/coll.h"
#include "mpi/comm/attr.h"
#include "mpi/comm/comm.h"
#include "mpi/comm/group.h"
#include "mpi/comm_create/comm_create.h"
#include "mpi/comm_create/intercomm.h"
#include "mpi/comm_create/split_hw.h"
#include "mpi/comm_create/topology.h"
#include "mpi/env/error.h"
#include "mpi/env/info.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"
#include "mpi/pt2pt/engine.h"

#define table tw_mpi_comm_table
enum { WORDS = TW_MPI_USED_WORDS, WORLD_INDEX = 0, SELF_INDEX = 1 };

/* ---- the exchanges of communicator creation ---- */

size_t tw_mpi_exchange(uint32_t context, int tag, int to, const void *out, size_t outlen, int from,
                       void *in, size_t inlen) {
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st = {0, 0, 0, 0, 0, 0};
    if (in) tw_mpi_irecv(in, inlen, from, tag, context, &r[0]);
    if (out) tw_mpi_isend(out, outlen, to, tag, context, 0, &r[1]);
    if (r[1] != MPI_REQUEST_NULL) tw_mpi_wait(&r[1], MPI_STATUS_IGNORE);
    if (r[0] != MPI_REQUEST_NULL && tw_mpi_wait(&r[0], &st) == MPI_SUCCESS)
        return (size_t)(uint32_t)st.tw_count_lo;
    return 0;
}

/* One round that makes intracommunicators: each of the n processes members[] (world
 * ranks; NULL: 0..n-1), `me` among them, tells members[0] its used entries, color and
 * key on context and tag; members[0] answers each with its new communicator. */
typedef struct round {
    uint32_t context;
    int tag, n, me;
    const int *members;
} round_t;

static int member(const round_t *rd, int i) {
    return rd->members ? rd->members[i] : i;
}

/* What each member tells members[0]. */
typedef struct ask {
    uint64_t used[WORDS];
    int color, key, world;
} ask_t;

int tw_mpi_pick_color(int n, const int *color_key, int color, int *order) {
    int m = 0;
    if (color == MPI_UNDEFINED) return 0;
    for (int q = 0; q < n; q++) {
        if (color_key[2 * q] != color) continue;
        int at = m++; /* insertion keeps equal keys in index order */
        while (at > 0 && color_key[2 * order[at - 1] + 1] > color_key[2 * q + 1]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = q;
    }
    return m;
}

/* The answer for member r: entry, new size, new rank, then the world ranks of r's
 * color ordered by key then member index (none for MPI_UNDEFINED). Its length. */
static size_t answer_for(const ask_t *all, const int *color_key, int n_all, int r, int entry,
                         int *order, int *answer) {
    int n = tw_mpi_pick_color(n_all, color_key, all[r].color, order), me = -1;
    for (int k = 0; k < n; k++) {
        answer[3 + k] = all[order[k]].world;
        if (order[k] == r) me = k;
    }
    answer[0] = entry;
    answer[1] = n;
    answer[2] = me;
    return ((size_t)n + 3) * sizeof *answer;
}

/* The coordinator's part: gathers every ask, answers each member, and writes its own
 * answer. Its length, or 0 when out of memory. */
static size_t coordinate(const round_t *rd, const ask_t *mine, int *answer) {
    ask_t *all = malloc((size_t)rd->n * sizeof *all);
    int *order = malloc((size_t)rd->n * sizeof *order);
    int *color_key = malloc(2 * (size_t)rd->n * sizeof *color_key);
    size_t len = 0;
    if (all && order && color_key) {
        all[0] = *mine;
        for (int r = 1; r < rd->n; r++) {
            if (tw_mpi_exchange(rd->context, rd->tag, -1, NULL, 0, member(rd, r), &all[r],
                                sizeof all[r]) != sizeof all[r]) {
                memset(all[r].used, 0xff, sizeof all[r].used); /* unknown: nothing is free */
                all[r].color = MPI_UNDEFINED;
            }
            all[r].world = member(rd, r); /* who sent it, whatever it says */
        }
        for (int r = 0; r < rd->n; r++) {
            color_key[2 * r] = all[r].color;
            color_key[2 * r + 1] = all[r].key;
        }
        uint64_t used[WORDS] = {0};
        for (int r = 0; r < rd->n; r++)
            for (int w = 0; w < WORDS; w++) used[w] |= all[r].used[w];
        int entry = tw_mpi_lowest_free(used);
        for (int r = 1; r < rd->n; r++) {
            len = answer_for(all, color_key, rd->n, r, entry, order, answer);
            tw_mpi_exchange(rd->context, rd->tag, member(rd, r), answer, len, -1, NULL, 0);
        }
        len = answer_for(all, color_key, rd->n, 0, entry, order, answer);
    }
    free(all);
    free(order);
    free(color_key);
    return len;
}

/* Under MPI_THREAD_MULTIPLE other threads may create communicators while a round
 * waits, so the entry picked may be taken (or held by an idup) here by the time the
 * answer comes. The members then agree: each says 2 (it takes the entry, held
 * meanwhile), 1 (taken here: the round runs again with fresh bitmaps) or 0 (an
 * error); the lowest is everyone's verdict. */
static int agree(const round_t *rd, int say) {
    int all = say;
    if (rd->me == 0) {
        for (int r = 1; r < rd->n; r++) {
            int v = 0;
            if (tw_mpi_exchange(rd->context, rd->tag, -1, NULL, 0, member(rd, r), &v, sizeof v) !=
                sizeof v)
                v = 0;
            if (v < all) all = v < 0 ? 0 : v;
        }
        for (int r = 1; r < rd->n; r++)
            tw_mpi_exchange(rd->context, rd->tag, member(rd, r), &all, sizeof all, -1, NULL, 0);
    } else if (tw_mpi_exchange(rd->context, rd->tag, member(rd, 0), &say, sizeof say, member(rd, 0),
                               &all, sizeof all) != sizeof all) {
        all = 0;
    }
    return all < 0 ? 0 : all < say ? all : say;
}

static int entry_held(int entry) {
    return tw_mpi_comm_held[entry / 64] >> (entry % 64) & 1;
}

/* Runs a round; *out is the new communicator (errors handled by eh) or MPI_COMM_NULL. */
static int create_round(const round_t *rd, int color, int key, MPI_Errhandler eh, MPI_Comm *out) {
    ask_t mine = {.color = color, .key = key, .world = tw_mpi.rank};
    size_t cap = ((size_t)rd->n + 3) * sizeof(int);
    int *answer = malloc(cap);
    if (!answer) return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    *out = MPI_COMM_NULL;
    for (;;) {
        tw_mpi_used_entries(mine.used);
        size_t answer_len = rd->me == 0
                                ? coordinate(rd, &mine, answer)
                                : tw_mpi_exchange(rd->context, rd->tag, member(rd, 0), &mine,
                                                  sizeof mine, member(rd, 0), answer, cap);
        int ok = tw_mpi_split_answer_ok(answer, answer_len, rd->n, tw_mpi.size, tw_mpi.rank) &&
                 !tw_mpi_check_worlds(answer[1], answer + 3);
        int taken = ok && answer[0] >= 0 && table[answer[0]];
        if (!tw_mpi_threads_on) {
            /* taken: the coordinator sent what cannot be; a negative entry: every
             * entry of the table is in use somewhere */
            rc = !ok || taken || answer[0] < 0 ? MPI_ERR_INTERN : MPI_SUCCESS;
            break;
        }
        taken = taken || (ok && answer[0] >= 0 && entry_held(answer[0]));
        int say = !ok || answer[0] < 0 ? 0 : taken ? 1 : 2;
        uint64_t bit = say == 2 ? 1ull << (answer[0] % 64) : 0;
        if (bit) tw_mpi_comm_held[answer[0] / 64] |= bit;
        int verdict = agree(rd, say);
        if (bit) tw_mpi_comm_held[answer[0] / 64] &= ~bit;
        if (verdict == 1) continue;
        rc = verdict == 2 ? MPI_SUCCESS : MPI_ERR_INTERN;
        break;
    }
    if (!rc && answer[1] > 0) {
        int *world = malloc((size_t)answer[1] * sizeof *world);
        tw_mpi_comm_t *c = NULL;
        if (world) {
            memcpy(world, answer + 3, (size_t)answer[1] * sizeof *world);
            c = tw_mpi_comm_new(answer[0], answer[2], answer[1], world);
        }
        if (!c) {
            free(world);
            rc = MPI_ERR_NO_MEM;
        } else {
            c->errhandler = eh;
            *out = c->handle;
        }
    }
    free(answer);
    return rc;
}

int tw_mpi_create_round(uint32_t context, int tag, int n, int me, const int *members, int key,
                        MPI_Errhandler eh, MPI_Comm *out) {
    round_t rd = {context, tag, n, me, members};
    return create_round(&rd, 0, key, eh, out);
}

/* Splits parent by color, ordered by key then parent rank. Collective over parent,
 * coordinated by its rank 0. The new communicator derives from p's session. */
static int split(tw_mpi_comm_t *p, int color, int key, MPI_Comm *out) {
    round_t rd = {p->context + TW_CTX_COLL, 0, p->size, p->rank, p->world};
    int rc = create_round(&rd, color, key, p->errhandler, out);
    if (!rc && *out != MPI_COMM_NULL) tw_mpi_comm_get(*out)->session = p->session;
    return rc;
}

/* An intracommunicator argument: c, or NULL after raising MPI_ERR_COMM as *rc. */
static tw_mpi_comm_t *intra(MPI_Comm comm, const char *call, int *rc) {
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c)
        *rc = tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    else if (c->inter)
        *rc = tw_mpi_error(c, call, MPI_ERR_COMM, "an intercommunicator");
    return c && !c->inter ? c : NULL;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
    NEED_INIT("MPI_Comm_split");
    tw_mpi_comm_t *p = tw_mpi_comm_get(comm);
    if (!p) return tw_mpi_error(NULL, "MPI_Comm_split", MPI_ERR_COMM, NULL);
    if (!newcomm) return tw_mpi_error(p, "MPI_Comm_split", MPI_ERR_ARG, NULL);
    if (color < 0 && color != MPI_UNDEFINED)
        return tw_mpi_error(p, "MPI_Comm_split", MPI_ERR_ARG, "negative color");
    tw_mpi_comm_creating++;
    int rc =
        p->inter ? tw_mpi_intercomm_split(p, color, key, newcomm) : split(p, color, key, newcomm);
    tw_mpi_comm_creating--;
    return rc ? tw_mpi_error(p, "MPI_Comm_split", rc, NULL) : MPI_SUCCESS;
}

int tw_mpi_comm_split_color(tw_mpi_comm_t *p, int color, int key, MPI_Comm *newcomm) {
    if (!p->inter) return split(p, color, key, newcomm);
    /* its local group is split, into intracommunicators (as MPICH does) */
    round_t rd = {p->context + TW_CTX_COLL, 0, p->local_size, p->rank, p->local_world};
    tw_mpi_comm_creating++;
    int rc = create_round(&rd, color, key, p->errhandler, newcomm);
    tw_mpi_comm_creating--;
    return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) {
    NEED_INIT("MPI_Comm_split_type");
    tw_mpi_comm_t *p = tw_mpi_comm_get(comm);
    if (!p) return tw_mpi_error(NULL, "MPI_Comm_split_type", MPI_ERR_COMM, NULL);
    if (!newcomm) return tw_mpi_error(p, "MPI_Comm_split_type", MPI_ERR_ARG, NULL);
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED &&
        split_type != MPI_COMM_TYPE_HW_GUIDED && split_type != MPI_COMM_TYPE_HW_UNGUIDED &&
        split_type != MPI_COMM_TYPE_RESOURCE_GUIDED)
        return tw_mpi_error(p, "MPI_Comm_split_type", MPI_ERR_ARG, "unknown split type");
    if (!tw_mpi_info_ok(info)) return tw_mpi_error(p, "MPI_Comm_split_type", MPI_ERR_INFO, NULL);
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return tw_mpi_split_hw(p, split_type, key, info, newcomm);
    int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED : tw_mpi_shared_color();
    int rc = tw_mpi_comm_split_color(p, color, key, newcomm);
    return rc ? tw_mpi_error(p, "MPI_Comm_split_type", rc, NULL) : MPI_SUCCESS;
}

/* The rank of world rank w in the group of p the caller belongs to, or -1. */
static int local_rank_of(const tw_mpi_comm_t *p, int w) {
    const int *world = tw_mpi_comm_local_world(p);
    if (!world) return w;
    for (int r = 0; r < tw_mpi_comm_local_size(p); r++)
        if (world[r] == w) return r;
    return -1;
}

/* Checks that group g is a subset of p's (local) group; *me is the caller's rank in
 * g (-1: none). */
static int group_in(tw_mpi_comm_t *p, const char *call, MPI_Group group, tw_mpi_group_t **g,
                    int *me) {
    *g = tw_mpi_group_get(group);
    if (!*g) return tw_mpi_error(p, call, MPI_ERR_GROUP, NULL);
    *me = -1;
    for (int k = 0; k < (*g)->size; k++) {
        if (local_rank_of(p, (*g)->world[k]) < 0)
            return tw_mpi_error(p, call, MPI_ERR_GROUP, "not a subgroup of the communicator");
        if ((*g)->world[k] == tw_mpi.rank) *me = k;
    }
    return MPI_SUCCESS;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
    NEED_INIT("MPI_Comm_create");
    tw_mpi_comm_t *p = tw_mpi_comm_get(comm);
    if (!p) return tw_mpi_error(NULL, "MPI_Comm_create", MPI_ERR_COMM, NULL);
    if (!newcomm) return tw_mpi_error(p, "MPI_Comm_create", MPI_ERR_ARG, NULL);
    tw_mpi_group_t *g;
    int me, rc = group_in(p, "MPI_Comm_create", group, &g, &me);
    if (rc) return rc;
    if (p->inter) { /* the members of both sides' groups, in group order */
        rc = tw_mpi_intercomm_split(p, me >= 0 ? 0 : MPI_UNDEFINED, me, newcomm);
        return rc ? tw_mpi_error(p, "MPI_Comm_create", rc, NULL) : MPI_SUCCESS;
    }
    /* Groups given on different processes are disjoint, so a group's lowest world
     * rank names it among them. */
    int color = MPI_UNDEFINED;
    for (int k = 0; k < g->size && me >= 0; k++)
        if (color == MPI_UNDEFINED || g->world[k] < color) color = g->world[k];
    rc = split(p, color, me, newcomm);
    return rc ? tw_mpi_error(p, "MPI_Comm_create", rc, NULL) : MPI_SUCCESS;
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
    NEED_INIT("MPI_Comm_create_group");
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *p = intra(comm, "MPI_Comm_create_group", &rc);
    if (!p) return rc;
    if (!newcomm) return tw_mpi_error(p, "MPI_Comm_create_group", MPI_ERR_ARG, NULL);
    if (tag < 0 || tag > TW_MPI_TAG_UB)
        return tw_mpi_error(p, "MPI_Comm_create_group", MPI_ERR_TAG, NULL);
    tw_mpi_group_t *g;
    int me;
    rc = group_in(p, "MPI_Comm_create_group", group, &g, &me);
    if (rc) return rc;
    *newcomm = MPI_COMM_NULL;
    if (me < 0) return MPI_SUCCESS; /* not a member: nothing to take part in */
    /* Only the group's members talk, to its first member, under a tag of their own. */
    round_t rd = {p->context + TW_CTX_COLL, tw_mpi_creation_tag(TW_MPI_TAG_CREATE_GROUP, tag),
                  g->size, me, g->world};
    rc = create_round(&rd, 0, me, p->errhandler, newcomm);
    return rc ? tw_mpi_error(p, "MPI_Comm_create_group", rc, NULL) : MPI_SUCCESS;
}

static int dup_comm(tw_mpi_comm_t *p, MPI_Comm *newcomm) {
    int rc = p->inter ? tw_mpi_intercomm_dup(p, newcomm) : split(p, 0, p->rank, newcomm);
    if (rc) return rc;
    tw_mpi_comm_t *c = tw_mpi_comm_get(*newcomm);
    c->hints = p->hints; /* a duplicate keeps the hints and its parent's topology */
    rc = tw_topo_copy(p, c);
    if (!rc) rc = tw_mpi_attr_copy_all(p, c);
    if (rc) {
        tw_mpi_attr_delete_all(c);
        tw_mpi_comm_destroy(c);
        *newcomm = MPI_COMM_NULL;
    }
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
    NEED_INIT("MPI_Comm_dup");
    tw_mpi_comm_t *p = tw_mpi_comm_get(comm);
    if (!p) return tw_mpi_error(NULL, "MPI_Comm_dup", MPI_ERR_COMM, NULL);
    if (!newcomm) return tw_mpi_error(p, "MPI_Comm_dup", MPI_ERR_ARG, NULL);
    tw_mpi_comm_creating++;
    int rc = dup_comm(p, newcomm);
    tw_mpi_comm_creating--;
    return rc ? tw_mpi_error(p, "MPI_Comm_dup", rc, NULL) : MPI_SUCCESS;
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
    NEED_INIT("MPI_Comm_dup_with_info");
    tw_mpi_comm_t *p = tw_mpi_comm_get(comm);
    if (!p) return tw_mpi_error(NULL, "MPI_Comm_dup_with_info", MPI_ERR_COMM, NULL);
    if (!newcomm) return tw_mpi_error(p, "MPI_Comm_dup_with_info", MPI_ERR_ARG, NULL);
    if (!tw_mpi_info_ok(info)) return tw_mpi_error(p, "MPI_Comm_dup_with_info", MPI_ERR_INFO, NULL);
    int rc = dup_comm(p, newcomm);
    if (!rc) tw_mpi_comm_get(*newcomm)->hints = tw_mpi_comm_hints(info, 0); /* info's, not p's */
    return rc ? tw_mpi_error(p, "MPI_Comm_dup_with_info", rc, NULL) : MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm *comm) {
    NEED_INIT("MPI_Comm_free");
    tw_mpi_comm_t *c = comm ? tw_mpi_comm_get(*comm) : NULL;
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_free", MPI_ERR_COMM, NULL);
    int index = *comm & 0xffffff;
    if (index == WORLD_INDEX || index == SELF_INDEX)
        return tw_mpi_error(c, "MPI_Comm_free", MPI_ERR_COMM, "a predefined communicator");
    int rc = tw_mpi_attr_delete_all(c); /* a delete callback's error keeps the communicator */
    if (rc) return tw_mpi_error(c, "MPI_Comm_free", rc, "an attribute's delete callback failed");
    if (tw_mpi_threads_on) tw_coll_shm_quiesce(c);
    tw_mpi_comm_destroy(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
