/* MPI_Comm_split_type's hardware-guided splits (MPI-4.0 section 7.4.2, MPI-4.1):
 *
 * - MPI_COMM_TYPE_HW_GUIDED: info's "mpi_hw_resource_type" names a type
 *   ("NUMANode", "L3Cache", "Package", "Core"..., with or without "hwloc://"; or
 *   "mpi_shared_memory", as MPI_COMM_TYPE_SHARED). The processes restricted to the
 *   same object of it on the same node share a communicator; one not restricted to
 *   a single object (its binding spans several: env/hw_topology.c) gets
 *   MPI_COMM_NULL, as do all when the type is unknown or the key is missing (so the
 *   call stays collective, as in MPICH).
 * - MPI_COMM_TYPE_HW_UNGUIDED: the largest level of the hierarchy (node, then the
 *   types from Package down to PU) at which every process is restricted to one
 *   object and the processes are not all in one; MPI_COMM_NULL when there is none.
 *   Info, when not MPI_INFO_NULL, gets "mpi_hw_resource_type": that level's type.
 * - MPI_COMM_TYPE_RESOURCE_GUIDED: "mpi_pset_name" ("mpi://WORLD": one
 *   communicator; "mpi://SELF": one each), else "mpi_hw_resource_type" as above.
 *
 * The new communicator's info reports the type it was split by. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mpi/comm/comm.h"
#include "mpi/comm_create/comm_create.h"
#include "mpi/comm_create/split_hw.h"
#include "mpi/env/hw_topology.h"
#include "mpi/env/error.h"
#include "mpi/env/info.h"
#include "mpi/env/state.h"

/* colors: node * OBJECTS + object, unique while both fit */
enum { OBJECTS = 4096, SHARED_LEVEL = -2 };

static int color_of(int level) {
    if (level == SHARED_LEVEL) return tw_mpi_shared_color();
    int node = tw_mpi_node(tw_mpi.rank);
    int obj = tw_hw_object(level);
    if (obj < 0 || obj >= OBJECTS || node >= 0x7fffffff / OBJECTS) return MPI_UNDEFINED;
    return node * OBJECTS + obj;
}

static int guided_level(const char *type) {
    if (!type) return -1;
    if (!strcasecmp(type, "mpi_shared_memory")) return SHARED_LEVEL;
    return tw_hw_type(type);
}

static const char *level_name(int level) {
    return level == SHARED_LEVEL ? "mpi_shared_memory" : tw_hw_type_names[level];
}

/* The level the unguided split takes, agreed by all of p (-1: none). */
static int unguided_level(tw_mpi_comm_t *p, int *rc) {
    enum { LEVELS = TW_HW_TYPES };
    int mine[LEVELS], *all = malloc((size_t)p->size * sizeof mine);
    if (!all) {
        *rc = MPI_ERR_NO_MEM;
        return -1; /* (the others still wait in the allgather: a broken job ends) */
    }
    mine[0] = color_of(SHARED_LEVEL); /* the node, in place of "Machine" */
    for (int k = 1; k < LEVELS; k++) mine[k] = color_of(k);
    *rc = MPI_Allgather(mine, LEVELS, MPI_INT, all, LEVELS, MPI_INT, p->handle);
    int chosen = -1;
    for (int k = 0; k < LEVELS && chosen < 0 && !*rc; k++) {
        int defined = 1, several = 0;
        for (int r = 0; r < p->size; r++) {
            defined &= all[r * LEVELS + k] != MPI_UNDEFINED;
            several |= all[r * LEVELS + k] != all[k];
        }
        if (defined && several) chosen = k ? k : SHARED_LEVEL;
    }
    free(all);
    return chosen;
}

int tw_mpi_split_hw(tw_mpi_comm_t *p, int split_type, int key, MPI_Info info, MPI_Comm *newcomm) {
    const char *call = "MPI_Comm_split_type";
    if (p->inter && split_type == MPI_COMM_TYPE_HW_UNGUIDED)
        return tw_mpi_error(p, call, MPI_ERR_COMM, "an unguided split of an intercommunicator");
    const char *pset = split_type == MPI_COMM_TYPE_RESOURCE_GUIDED
                           ? tw_mpi_info_value(info, "mpi_pset_name")
                           : NULL;
    int rc = MPI_SUCCESS, color = MPI_UNDEFINED, level = -1;
    if (pset) {
        if (!strcasecmp(pset, "mpi://WORLD")) color = 0;
        if (!strcasecmp(pset, "mpi://SELF")) color = p->rank;
    } else if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
        level = unguided_level(p, &rc);
        if (rc) return tw_mpi_error(p, call, rc, NULL);
        if (level != -1) color = color_of(level);
    } else {
        level = guided_level(tw_mpi_info_value(info, "mpi_hw_resource_type"));
        if (level != -1) color = color_of(level);
    }
    rc = tw_mpi_comm_split_color(p, color, key, newcomm);
    if (rc) return tw_mpi_error(p, call, rc, NULL);
    tw_mpi_comm_t *c = tw_mpi_comm_get(*newcomm);
    if (c && level != -1) c->hw_type = level_name(level);
    /* the unguided split tells the caller, in the info given, what it split by */
    if (c && level != -1 && split_type == MPI_COMM_TYPE_HW_UNGUIDED && info != MPI_INFO_NULL) {
        rc = tw_mpi_info_put(info, "mpi_hw_resource_type", level_name(level));
        if (rc) return tw_mpi_error(p, call, rc, "setting mpi_hw_resource_type in info");
    }
    return MPI_SUCCESS;
}
