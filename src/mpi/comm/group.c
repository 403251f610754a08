/* Groups: ordered sets of processes, each an array of world ranks, and the group
 * constructors, queries and comparison.
 *
 * Groups are reference-counted: a handle the program holds is one reference, and a
 * communicator holds one on the groups it has handed out, so MPI_Group_free of the
 * program's handle never pulls a group from under a communicator. Entry 0 of the
 * table is MPI_GROUP_EMPTY, which is never freed: every constructor whose result
 * has no member returns that handle (MPI-3.1 section 6.3.2, as MPICH does), and
 * MPI_Group_free of it only sets the program's handle to MPI_GROUP_NULL. */
#include <stdlib.h>
#include <string.h>

#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/comm/group.h"
#include "mpi/env/state.h"

static tw_mpi_group_t empty = {1, 0, NULL, 0};
static tw_mpi_group_t **groups; /* handle 0x48000000 | index */
static int n_groups;

tw_mpi_group_t *tw_mpi_group_get(MPI_Group group) {
    unsigned i = (unsigned)group & 0xffffff;
    if (((unsigned)group >> 24) != 0x48) return NULL;
    if (i == 0) return &empty;
    return (int)i < n_groups ? groups[i] : NULL;
}

int tw_mpi_group_new(int n, const int *world, MPI_Group *out) {
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    int index = 1;
    while (index < n_groups && groups[index]) index++;
    if (index >= 0xffffff) return MPI_ERR_NO_MEM;
    if (index >= n_groups) {
        int grown = n_groups ? 2 * n_groups : 16;
        tw_mpi_group_t **more = realloc(groups, (size_t)grown * sizeof *more);
        if (!more) return MPI_ERR_NO_MEM;
        memset(more + n_groups, 0, (size_t)(grown - n_groups) * sizeof *more);
        groups = more;
        n_groups = grown;
    }
    tw_mpi_group_t *g = malloc(sizeof *g);
    int *copy = malloc((size_t)(n ? n : 1) * sizeof *copy);
    if (!g || !copy) {
        free(g);
        free(copy);
        return MPI_ERR_NO_MEM;
    }
    for (int r = 0; r < n; r++) copy[r] = world ? world[r] : r;
    *g = (tw_mpi_group_t){1, n, copy, 0};
    groups[index] = g;
    *out = (MPI_Group)(0x48000000 | index);
    return MPI_SUCCESS;
}

void tw_mpi_group_release(MPI_Group group) {
    tw_mpi_group_t *g = tw_mpi_group_get(group);
    if (!g || g == &empty || --g->refs > 0) return;
    groups[group & 0xffffff] = NULL;
    free(g->world);
    free(g);
}

int tw_mpi_group_of(MPI_Group *cached, int n, const int *world, MPI_Group *out) {
    if (!*cached) {
        int rc = tw_mpi_group_new(n, world, cached);
        if (rc) return rc;
    }
    tw_mpi_group_get(*cached)->refs++;
    *out = *cached;
    return MPI_SUCCESS;
}

/* The rank of world rank w in g, or MPI_UNDEFINED. */
static int rank_in(const tw_mpi_group_t *g, int w) {
    for (int r = 0; r < g->size; r++)
        if (g->world[r] == w) return r;
    return MPI_UNDEFINED;
}

int tw_mpi_compare_worlds(int na, const int *a, int nb, const int *b) {
    if (na != nb) return MPI_UNEQUAL;
    int same_order = 1;
    for (int r = 0; r < na && same_order; r++) same_order = (a ? a[r] : r) == (b ? b[r] : r);
    if (same_order) return MPI_IDENT;
    unsigned char *in_b = calloc((size_t)tw_mpi.size, 1);
    if (!in_b) return MPI_UNEQUAL;
    for (int r = 0; r < nb; r++) in_b[b ? b[r] : r] = 1;
    int same_set = 1;
    for (int r = 0; r < na && same_set; r++) same_set = in_b[a ? a[r] : r];
    free(in_b);
    return same_set ? MPI_SIMILAR : MPI_UNEQUAL;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group) {
    NEED_INIT("MPI_Comm_group");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_group", MPI_ERR_COMM, NULL);
    if (!group) return tw_mpi_error(c, "MPI_Comm_group", MPI_ERR_ARG, NULL);
    int rc =
        tw_mpi_group_of(&c->group, tw_mpi_comm_local_size(c), tw_mpi_comm_local_world(c), group);
    return rc ? tw_mpi_error(c, "MPI_Comm_group", rc, NULL) : MPI_SUCCESS;
}

/* Group errors go to MPI_COMM_WORLD's handler: a group belongs to no communicator. */
#define GROUP_ERROR(call, class, detail) tw_mpi_error(NULL, call, class, detail)

int MPI_Group_size(MPI_Group group, int *size) {
    NEED_INIT("MPI_Group_size");
    tw_mpi_group_t *g = tw_mpi_group_get(group);
    if (!g) return GROUP_ERROR("MPI_Group_size", MPI_ERR_GROUP, NULL);
    if (!size) return GROUP_ERROR("MPI_Group_size", MPI_ERR_ARG, NULL);
    *size = g->size;
    return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int *rank) {
    NEED_INIT("MPI_Group_rank");
    tw_mpi_group_t *g = tw_mpi_group_get(group);
    if (!g) return GROUP_ERROR("MPI_Group_rank", MPI_ERR_GROUP, NULL);
    if (!rank) return GROUP_ERROR("MPI_Group_rank", MPI_ERR_ARG, NULL);
    *rank = rank_in(g, tw_mpi.rank);
    return MPI_SUCCESS;
}

/* Marks n ranks of g in chosen[] (g->size flags); MPI_ERR_RANK when one is out of
 * range or repeats. */
static int choose(const tw_mpi_group_t *g, int n, const int *ranks, unsigned char *chosen) {
    for (int k = 0; k < n; k++) {
        if (ranks[k] < 0 || ranks[k] >= g->size || chosen[ranks[k]]) return MPI_ERR_RANK;
        chosen[ranks[k]] = 1;
    }
    return MPI_SUCCESS;
}

/* The group of the world ranks of g at ranks[0..n) (include) or at every rank not
 * among them (exclude). */
static int select_ranks(const char *call, MPI_Group group, int n, const int *ranks, int include,
                        MPI_Group *newgroup) {
    tw_mpi_group_t *g = tw_mpi_group_get(group);
    if (!g) return GROUP_ERROR(call, MPI_ERR_GROUP, NULL);
    if (n < 0 || (n > 0 && !ranks) || !newgroup) return GROUP_ERROR(call, MPI_ERR_ARG, NULL);
    if (n > g->size) return GROUP_ERROR(call, MPI_ERR_RANK, "more ranks than the group has");
    unsigned char *chosen = calloc((size_t)g->size + 1, 1);
    int *world = malloc(((size_t)g->size + 1) * sizeof *world);
    int rc = chosen && world ? choose(g, n, ranks, chosen) : MPI_ERR_NO_MEM;
    if (!rc) {
        int m = 0;
        if (include)
            for (int k = 0; k < n; k++) world[m++] = g->world[ranks[k]];
        else
            for (int r = 0; r < g->size; r++)
                if (!chosen[r]) world[m++] = g->world[r];
        rc = tw_mpi_group_new(m, world, newgroup);
    }
    free(chosen);
    free(world);
    return rc ? GROUP_ERROR(call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
    NEED_INIT("MPI_Group_incl");
    return select_ranks("MPI_Group_incl", group, n, ranks, 1, newgroup);
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
    NEED_INIT("MPI_Group_excl");
    return select_ranks("MPI_Group_excl", group, n, ranks, 0, newgroup);
}

/* Expands n (first, last, stride) triplets into the ranks they name, in order; each
 * must be a rank of a group of `size`, and there can be at most size of them
 * (more would repeat one). MPI_ERR_ARG for a zero stride. */
static int expand(int size, int n, int ranges[][3], int *ranks, int *count) {
    *count = 0;
    for (int k = 0; k < n; k++) {
        long long first = ranges[k][0], last = ranges[k][1], stride = ranges[k][2];
        if (stride == 0) return MPI_ERR_ARG;
        for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (r < 0 || r >= size || *count >= size) return MPI_ERR_RANK;
            ranks[(*count)++] = (int)r;
        }
    }
    return MPI_SUCCESS;
}

static int select_ranges(const char *call, MPI_Group group, int n, int ranges[][3], int include,
                         MPI_Group *newgroup) {
    tw_mpi_group_t *g = tw_mpi_group_get(group);
    if (!g) return GROUP_ERROR(call, MPI_ERR_GROUP, NULL);
    if (n < 0 || (n > 0 && !ranges) || !newgroup) return GROUP_ERROR(call, MPI_ERR_ARG, NULL);
    int *ranks = malloc(((size_t)g->size + 1) * sizeof *ranks), count;
    if (!ranks) return GROUP_ERROR(call, MPI_ERR_NO_MEM, NULL);
    int rc = expand(g->size, n, ranges, ranks, &count);
    if (rc) {
        free(ranks);
        return GROUP_ERROR(call, rc, "a range");
    }
    rc = select_ranks(call, group, count, ranks, include, newgroup);
    free(ranks);
    return rc;
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
    NEED_INIT("MPI_Group_range_incl");
    return select_ranges("MPI_Group_range_incl", group, n, ranges, 1, newgroup);
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
    NEED_INIT("MPI_Group_range_excl");
    return select_ranges("MPI_Group_range_excl", group, n, ranges, 0, newgroup);
}

enum set_op { UNION, INTERSECTION, DIFFERENCE };

/* Union: group1, then group2's others; intersection and difference: the members of
 * group1 that are (not) in group2. All in group1's order first. */
static int set_op(const char *call, MPI_Group group1, MPI_Group group2, enum set_op op,
                  MPI_Group *newgroup) {
    tw_mpi_group_t *a = tw_mpi_group_get(group1), *b = tw_mpi_group_get(group2);
    if (!a || !b) return GROUP_ERROR(call, MPI_ERR_GROUP, NULL);
    if (!newgroup) return GROUP_ERROR(call, MPI_ERR_ARG, NULL);
    unsigned char *in_a = calloc((size_t)tw_mpi.size, 1), *in_b = calloc((size_t)tw_mpi.size, 1);
    int *world = malloc(((size_t)a->size + (size_t)b->size + 1) * sizeof *world);
    int rc = MPI_ERR_NO_MEM;
    if (in_a && in_b && world) {
        for (int r = 0; r < a->size; r++) in_a[a->world[r]] = 1;
        for (int r = 0; r < b->size; r++) in_b[b->world[r]] = 1;
        int m = 0;
        for (int r = 0; r < a->size; r++)
            if (op == UNION || (op == INTERSECTION) == in_b[a->world[r]]) world[m++] = a->world[r];
        for (int r = 0; r < b->size && op == UNION; r++)
            if (!in_a[b->world[r]]) world[m++] = b->world[r];
        rc = tw_mpi_group_new(m, world, newgroup);
    }
    free(in_a);
    free(in_b);
    free(world);
    return rc ? GROUP_ERROR(call, rc, NULL) : MPI_SUCCESS;
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
    NEED_INIT("MPI_Group_union");
    return set_op("MPI_Group_union", group1, group2, UNION, newgroup);
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
    NEED_INIT("MPI_Group_intersection");
    return set_op("MPI_Group_intersection", group1, group2, INTERSECTION, newgroup);
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
    NEED_INIT("MPI_Group_difference");
    return set_op("MPI_Group_difference", group1, group2, DIFFERENCE, newgroup);
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]) {
    NEED_INIT("MPI_Group_translate_ranks");
    const char *call = "MPI_Group_translate_ranks";
    tw_mpi_group_t *a = tw_mpi_group_get(group1), *b = tw_mpi_group_get(group2);
    if (!a || !b) return GROUP_ERROR(call, MPI_ERR_GROUP, NULL);
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2))) return GROUP_ERROR(call, MPI_ERR_ARG, NULL);
    for (int k = 0; k < n; k++)
        if (ranks1[k] != MPI_PROC_NULL && (ranks1[k] < 0 || ranks1[k] >= a->size))
            return GROUP_ERROR(call, MPI_ERR_RANK, NULL);
    for (int k = 0; k < n; k++)
        ranks2[k] = ranks1[k] == MPI_PROC_NULL ? MPI_PROC_NULL : rank_in(b, a->world[ranks1[k]]);
    return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result) {
    NEED_INIT("MPI_Group_compare");
    tw_mpi_group_t *a = tw_mpi_group_get(group1), *b = tw_mpi_group_get(group2);
    if (!a || !b) return GROUP_ERROR("MPI_Group_compare", MPI_ERR_GROUP, NULL);
    if (!result) return GROUP_ERROR("MPI_Group_compare", MPI_ERR_ARG, NULL);
    *result = tw_mpi_compare_worlds(a->size, a->world, b->size, b->world);
    return MPI_SUCCESS;
}

int MPI_Group_free(MPI_Group *group) {
    NEED_INIT("MPI_Group_free");
    tw_mpi_group_t *g = group ? tw_mpi_group_get(*group) : NULL;
    if (!g) return GROUP_ERROR("MPI_Group_free", MPI_ERR_GROUP, NULL);
    /* the constructors hand out MPI_GROUP_EMPTY, and programs free what they got */
    tw_mpi_group_release(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
