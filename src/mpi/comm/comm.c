/* Communicators as objects: the table, MPI_COMM_WORLD and MPI_COMM_SELF, rank and
 * size, comparison, names, the nodes of world ranks. They are made and freed by
 * comm_create/, which stands above the collectives it uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/comm/attr.h"
#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/comm/group.h"
#include "mpi/env/info.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"

tw_mpi_comm_t *tw_mpi_comm_table[TW_MPI_COMMS];
int tw_mpi_comm_creating;
#define table tw_mpi_comm_table
enum { WORDS = TW_MPI_USED_WORDS, WORLD_INDEX = 0, SELF_INDEX = 1 };

static tw_mpi_comm_part_fn *on_new;

tw_mpi_comm_t *tw_mpi_comm_new(int index, int rank, int size, int *world) {
    tw_mpi_comm_t *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->handle = (MPI_Comm)(0x44000000 | index);
    c->rank = rank;
    c->size = size;
    c->context = 2u * (uint32_t)index;
    c->world = world;
    c->errhandler = MPI_ERRORS_ARE_FATAL;
    if (on_new) on_new(c);
    table[index] = c;
    return c;
}

static tw_mpi_comm_part_fn *parts[TW_COMM_PARTS];

void tw_mpi_comm_on_new(tw_mpi_comm_part_fn *fn) {
    on_new = fn;
}

void tw_mpi_comm_on_destroy(int part, tw_mpi_comm_part_fn *fn) {
    parts[part] = fn;
}

void tw_mpi_comm_destroy(tw_mpi_comm_t *c) {
    table[c->handle & 0xffffff] = NULL;
    for (int part = 0; part < TW_COMM_PARTS; part++)
        if (parts[part]) parts[part](c);
    if (c->group) tw_mpi_group_release(c->group);
    if (c->remote_group) tw_mpi_group_release(c->remote_group);
    tw_mpi_attr_drop_all(c);
    free(c->topo);
    free(c->world);
    free(c->local_world);
    free(c);
}

int tw_mpi_comm_init(void) {
    int *me = malloc(sizeof *me);
    if (!me) return MPI_ERR_NO_MEM;
    *me = tw_mpi.rank;
    /* a spawned job's ids start past its parents' (tw_ep_job_base) */
    int base = tw_ep_job_base(tw_mpi.ep), n = tw_ep_job_size(tw_mpi.ep), *ids = NULL;
    if (base > 0 && !(ids = malloc((size_t)n * sizeof *ids))) return MPI_ERR_NO_MEM;
    for (int r = 0; ids && r < n; r++) ids[r] = base + r;
    tw_mpi_comm_t *world = tw_mpi_comm_new(WORLD_INDEX, tw_mpi.rank - base, n, ids);
    tw_mpi_comm_t *self = world ? tw_mpi_comm_new(SELF_INDEX, 0, 1, me) : NULL;
    if (!self) return MPI_ERR_NO_MEM;
    snprintf(world->name, sizeof world->name, "MPI_COMM_WORLD");
    snprintf(self->name, sizeof self->name, "MPI_COMM_SELF");
    tw_mpi_comm_errhandler_init();
    return MPI_SUCCESS;
}

void tw_mpi_comm_fini(void) {
    for (int i = 0; i < TW_MPI_COMMS; i++)
        if (table[i]) tw_mpi_comm_destroy(table[i]);
}

int tw_mpi_comm_rank_search(const tw_mpi_comm_t *c, int world) {
    for (int r = 0; r < c->size; r++)
        if (c->world[r] == world) return r;
    return -1;
}

int tw_mpi_check_worlds(int n, const int *world) {
    unsigned char *seen = calloc((size_t)tw_mpi.size, 1);
    if (!seen) return MPI_ERR_NO_MEM;
    int ok = 1;
    for (int k = 0; k < n && ok; k++) {
        ok = world[k] >= 0 && world[k] < tw_mpi.size && !seen[world[k]];
        if (ok) seen[world[k]] = 1;
    }
    free(seen);
    return ok ? MPI_SUCCESS : MPI_ERR_INTERN;
}

void tw_mpi_used_entries(uint64_t used[WORDS]) {
    memcpy(used, tw_mpi_comm_held, WORDS * sizeof *used); /* held by idups under way */
    for (int i = 0; i < TW_MPI_COMMS; i++)
        if (table[i]) used[i / 64] |= 1ull << (i % 64);
}

int tw_mpi_lowest_free(const uint64_t used[WORDS]) {
    for (int i = 0; i < TW_MPI_COMMS; i++)
        if (!(used[i / 64] & (1ull << (i % 64)))) return i;
    return -1;
}

/* The node part of world rank's address ("shm:<node>:<mailbox>"), or "" when unknown. */
static void node_name(int world, char *node, size_t cap) {
    char a[256];
    node[0] = 0;
    if (tw_ep_address(tw_mpi.ep, world, a, sizeof a) != TW_OK || strncmp(a, "shm:", 4)) return;
    const char *end = strchr(a + 4, ':');
    size_t n = end ? (size_t)(end - (a + 4)) : 0;
    if (n && n < cap) {
        memcpy(node, a + 4, n);
        node[n] = 0;
    }
}

static int node_known; /* world ranks in tw_mpi_node's table; -1: to be made again */

void tw_mpi_node_forget(void) {
    node_known = -1;
}

int tw_mpi_node(int world) {
    static int *node; /* per world rank: the lowest world rank on its node */
    int known = node_known;
    if (world < 0 || world >= tw_mpi.size) return -1;
    if (!node || known != tw_mpi.size) {
        int *n = malloc((size_t)tw_mpi.size * sizeof *n);
        char(*names)[128] = malloc((size_t)tw_mpi.size * sizeof *names);
        if (!n || !names) { /* every rank its own node: nothing is taken as shared */
            free(n);
            free(names);
            return world;
        }
        for (int w = 0; w < tw_mpi.size; w++) {
            node_name(w, names[w], sizeof names[w]);
            n[w] = w;
            for (int v = 0; v < w && names[w][0]; v++)
                if (!strcmp(names[v], names[w])) {
                    n[w] = n[v];
                    break;
                }
        }
        free(names);
        free(node);
        node = n;
        node_known = tw_mpi.size;
    }
    return node[world];
}

int tw_mpi_shared_color(void) {
    return tw_ep_maps_node(tw_mpi.ep) ? tw_mpi_node(tw_mpi.rank) : tw_mpi.rank;
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
    if (a->inter != b->inter) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    /* an intercommunicator compares both its groups, an intracommunicator its one */
    int local = tw_mpi_compare_worlds(tw_mpi_comm_local_size(a), tw_mpi_comm_local_world(a),
                                      tw_mpi_comm_local_size(b), tw_mpi_comm_local_world(b));
    int remote = a->inter ? tw_mpi_compare_worlds(a->size, a->world, b->size, b->world) : MPI_IDENT;
    int worst = local > remote ? local : remote;
    *result = worst == MPI_IDENT ? MPI_CONGRUENT : worst;
    return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name) {
    NEED_INIT("MPI_Comm_set_name");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_set_name", MPI_ERR_COMM, NULL);
    if (!comm_name) return tw_mpi_error(c, "MPI_Comm_set_name", MPI_ERR_ARG, NULL);
    snprintf(c->name, sizeof c->name, "%s", comm_name); /* longer names are cut */
    return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen) {
    NEED_INIT("MPI_Comm_get_name");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    /* MPI-4.1 (naming objects): the null handle has a name, its own */
    if (!c && comm != MPI_COMM_NULL)
        return tw_mpi_error(NULL, "MPI_Comm_get_name", MPI_ERR_COMM, NULL);
    if (!comm_name || !resultlen) return tw_mpi_error(c, "MPI_Comm_get_name", MPI_ERR_ARG, NULL);
    *resultlen = snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", c ? c->name : "MPI_COMM_NULL");
    return MPI_SUCCESS;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank) {
    NEED_INIT("MPI_Comm_rank");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_rank", MPI_ERR_COMM, NULL);
    if (!rank) return tw_mpi_error(c, "MPI_Comm_rank", MPI_ERR_ARG, "rank is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size) {
    NEED_INIT("MPI_Comm_size");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_size", MPI_ERR_COMM, NULL);
    if (!size) return tw_mpi_error(c, "MPI_Comm_size", MPI_ERR_ARG, "size is NULL");
    *size = tw_mpi_comm_local_size(c); /* an intercommunicator's own group */
    return MPI_SUCCESS;
}
