/* Communicators: the table, MPI_COMM_WORLD and MPI_COMM_SELF, duplication and
 * splitting, comparison, freeing, and the predefined attributes.
 *
 * A new communicator needs a context that no member uses yet: every member's bitmap
 * of used table entries is OR-ed at the parent's rank 0, which hands the lowest entry
 * free everywhere back with the new membership. These exchanges run on the parent's
 * collective context, so they cannot be confused with the program's messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"

tw_mpi_comm_t *tw_mpi_comm_table[TW_MPI_COMMS];
int tw_mpi_comm_creating;
#define table tw_mpi_comm_table
enum { WORDS = TW_MPI_COMMS / 64, WORLD_INDEX = 0, SELF_INDEX = 1 };

tw_mpi_comm_t *tw_mpi_comm_new(int index, int rank, int size, int *world) {
    tw_mpi_comm_t *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->handle = (MPI_Comm)(0x44000000 | index);
    c->rank = rank;
    c->size = size;
    c->context = 2u * (uint32_t)index;
    c->world = world;
    c->errhandler = MPI_ERRORS_ARE_FATAL;
    table[index] = c;
    return c;
}

int tw_mpi_comm_init(void) {
    int *me = malloc(sizeof *me);
    if (!me) return MPI_ERR_NO_MEM;
    *me = tw_mpi.rank;
    if (!tw_mpi_comm_new(WORLD_INDEX, tw_mpi.rank, tw_mpi.size, NULL) ||
        !tw_mpi_comm_new(SELF_INDEX, 0, 1, me))
        return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

void tw_mpi_comm_fini(void) {
    for (int i = 0; i < TW_MPI_COMMS; i++) {
        if (!table[i]) continue;
        free(table[i]->world);
        free(table[i]);
        table[i] = NULL;
    }
}

int tw_mpi_comm_rank_search(const tw_mpi_comm_t *c, int world) {
    for (int r = 0; r < c->size; r++)
        if (c->world[r] == world) return r;
    return -1;
}

/* ---- the exchanges of communicator creation, on the parent's collective context ---- */

/* Sends out to parent rank `to` and/or receives into in from `from`; the bytes
 * received (0 when a longer message was cut: nothing of it is trusted). */
static size_t exchange(const tw_mpi_comm_t *p, int to, const void *out, size_t outlen, int from,
                       void *in, size_t inlen) {
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st = {0, 0, 0, 0, 0, 0};
    uint32_t ctx = p->context + TW_CTX_COLL;
    if (in) tw_mpi_irecv(in, inlen, tw_mpi_world_rank(p, from), 0, ctx, &r[0]);
    if (out) tw_mpi_isend(out, outlen, tw_mpi_world_rank(p, to), 0, ctx, 0, &r[1]);
    if (r[1] != MPI_REQUEST_NULL) tw_mpi_wait(&r[1], MPI_STATUS_IGNORE);
    if (r[0] != MPI_REQUEST_NULL && tw_mpi_wait(&r[0], &st) == MPI_SUCCESS)
        return (size_t)(uint32_t)st.tw_count_lo;
    return 0;
}

/* What each member tells the parent's rank 0. */
typedef struct ask {
    uint64_t used[WORDS];
    int color, key, world;
} ask_t;

void tw_mpi_comm_used(uint64_t used[WORDS]) {
    memcpy(used, tw_mpi_comm_held, WORDS * sizeof *used);
    for (int i = 0; i < TW_MPI_COMMS; i++)
        if (table[i]) used[i / 64] |= 1ull << (i % 64);
}

/* The answer for parent rank r: entry, new size, new rank, then the world ranks of
 * r's color ordered by key then parent rank (none for MPI_UNDEFINED). Its length. */
static size_t answer_for(const ask_t *all, int size, int r, int entry, int *order, int *answer) {
    int n = 0, me = -1;
    if (all[r].color != MPI_UNDEFINED) {
        for (int q = 0; q < size; q++) {
            if (all[q].color != all[r].color) continue;
            int at = n++; /* insertion keeps equal keys in parent-rank order */
            while (at > 0 && all[order[at - 1]].key > all[q].key) {
                order[at] = order[at - 1];
                at--;
            }
            order[at] = q;
        }
        for (int k = 0; k < n; k++) {
            answer[3 + k] = all[order[k]].world;
            if (order[k] == r) me = k;
        }
    }
    answer[0] = entry;
    answer[1] = n;
    answer[2] = me;
    return ((size_t)n + 3) * sizeof *answer;
}

/* Splits parent by color, ordered by key then parent rank; *out is the new
 * communicator or MPI_COMM_NULL. Collective over parent. */
static int split(tw_mpi_comm_t *p, int color, int key, MPI_Comm *out) {
    ask_t mine = {.color = color, .key = key, .world = tw_mpi.rank};
    tw_mpi_comm_used(mine.used);
    int *answer = malloc(((size_t)p->size + 3) * sizeof *answer);
    if (!answer) return MPI_ERR_NO_MEM;
    size_t answer_len;
    if (p->rank == 0) {
        ask_t *all = malloc((size_t)p->size * sizeof *all);
        int *order = malloc((size_t)p->size * sizeof *order);
        if (!all || !order) return MPI_ERR_NO_MEM;
        all[0] = mine;
        for (int r = 1; r < p->size; r++) exchange(p, -1, NULL, 0, r, &all[r], sizeof all[r]);
        uint64_t used[WORDS] = {0};
        for (int r = 0; r < p->size; r++)
            for (int w = 0; w < WORDS; w++) used[w] |= all[r].used[w];
        int entry = -1;
        for (int i = 0; i < TW_MPI_COMMS && entry < 0; i++)
            if (!(used[i / 64] & (1ull << (i % 64)))) entry = i;
        for (int r = 1; r < p->size; r++) {
            size_t len = answer_for(all, p->size, r, entry, order, answer);
            exchange(p, r, answer, len, -1, NULL, 0);
        }
        answer_len = answer_for(all, p->size, 0, entry, order, answer);
        free(all);
        free(order);
    } else {
        answer_len =
            exchange(p, 0, &mine, sizeof mine, 0, answer, ((size_t)p->size + 3) * sizeof *answer);
    }
    int rc = MPI_SUCCESS;
    *out = MPI_COMM_NULL;
    if (!tw_mpi_split_answer_ok(answer, answer_len, p->size, tw_mpi.size, tw_mpi.rank) ||
        (answer[0] >= 0 && table[answer[0]])) {
        rc = MPI_ERR_INTERN; /* rank 0 of the parent sent what cannot be */
    } else if (answer[0] < 0) {
        rc = MPI_ERR_INTERN; /* every entry of the table is in use somewhere */
    } else if (answer[1] > 0) {
        int *world = malloc((size_t)answer[1] * sizeof *world);
        if (!world)
            rc = MPI_ERR_NO_MEM;
        else {
            memcpy(world, answer + 3, (size_t)answer[1] * sizeof *world);
            tw_mpi_comm_t *c = tw_mpi_comm_new(answer[0], answer[2], answer[1], world);
            if (!c)
                rc = MPI_ERR_NO_MEM;
            else {
                c->errhandler = p->errhandler;
                *out = c->handle;
            }
        }
    }
    free(answer);
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
    NEED_INIT("MPI_Comm_split");
    tw_mpi_comm_t *p = tw_mpi_comm_get(comm);
    if (!p) return tw_mpi_error(NULL, "MPI_Comm_split", MPI_ERR_COMM, NULL);
    if (!newcomm) return tw_mpi_error(p, "MPI_Comm_split", MPI_ERR_ARG, NULL);
    if (color < 0 && color != MPI_UNDEFINED)
        return tw_mpi_error(p, "MPI_Comm_split", MPI_ERR_ARG, "negative color");
    tw_mpi_comm_creating++;
    int rc = split(p, color, key, newcomm);
    tw_mpi_comm_creating--;
    return rc ? tw_mpi_error(p, "MPI_Comm_split", rc, NULL) : MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
    NEED_INIT("MPI_Comm_dup");
    tw_mpi_comm_t *p = tw_mpi_comm_get(comm);
    if (!p) return tw_mpi_error(NULL, "MPI_Comm_dup", MPI_ERR_COMM, NULL);
    if (!newcomm) return tw_mpi_error(p, "MPI_Comm_dup", MPI_ERR_ARG, NULL);
    tw_mpi_comm_creating++;
    int rc = split(p, 0, p->rank, newcomm);
    tw_mpi_comm_creating--;
    return rc ? tw_mpi_error(p, "MPI_Comm_dup", rc, NULL) : MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm *comm) {
    NEED_INIT("MPI_Comm_free");
    tw_mpi_comm_t *c = comm ? tw_mpi_comm_get(*comm) : NULL;
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_free", MPI_ERR_COMM, NULL);
    int index = *comm & 0xffffff;
    if (index == WORLD_INDEX || index == SELF_INDEX)
        return tw_mpi_error(c, "MPI_Comm_free", MPI_ERR_COMM, "a predefined communicator");
    table[index] = NULL;
    free(c->world);
    free(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result) {
    NEED_INIT("MPI_Comm_compare");
    tw_mpi_comm_t *a = tw_mpi_comm_get(comm1), *b = tw_mpi_comm_get(comm2);
    if (!a || !b) return tw_mpi_error(NULL, "MPI_Comm_compare", MPI_ERR_COMM, NULL);
    if (!result) return tw_mpi_error(a, "MPI_Comm_compare", MPI_ERR_ARG, NULL);
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (a->size != b->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int same_order = 1, same_set = 1;
    for (int r = 0; r < a->size; r++) {
        int w = tw_mpi_world_rank(a, r);
        same_order &= w == tw_mpi_world_rank(b, r);
        same_set &= tw_mpi_comm_rank_of(b, w) >= 0;
    }
    *result = same_order ? MPI_CONGRUENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag) {
    NEED_INIT("MPI_Comm_get_attr");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_get_attr", MPI_ERR_COMM, NULL);
    if (!attribute_val || !flag) return tw_mpi_error(c, "MPI_Comm_get_attr", MPI_ERR_ARG, NULL);
    static int tag_ub = TW_MPI_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0,
               appnum = 0, universe, lastcode = MPI_ERR_LASTCODE;
    universe = tw_mpi.size;
    int *v = keyval == MPI_TAG_UB            ? &tag_ub
             : keyval == MPI_HOST            ? &host
             : keyval == MPI_IO              ? &io
             : keyval == MPI_WTIME_IS_GLOBAL ? &wtime_global
             : keyval == MPI_APPNUM          ? &appnum
             : keyval == MPI_UNIVERSE_SIZE   ? &universe
             : keyval == MPI_LASTUSEDCODE    ? &lastcode
                                             : NULL;
    if (!v && (keyval & 0xff000000) != 0x64000000)
        return tw_mpi_error(c, "MPI_Comm_get_attr", MPI_ERR_KEYVAL, "unknown key");
    *flag = v != NULL;
    if (v) *(int **)attribute_val = v;
    return MPI_SUCCESS;
}
