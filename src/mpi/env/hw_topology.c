/* The machine's hardware topology through hwloc, read once on first use, and
 * MPI_Get_hw_resource_info (MPI-4.1).
 *
 * A process's place in it is its CPU binding at the time of the call. A process
 * bound inside one object of a type (one NUMA node, one L3 cache...) is "restricted"
 * to it; one whose binding spans several, or an unbound one on a machine with more
 * than one, is not. This is what MPICH does (its hwtopo's ancestor of the binding). */
#include <hwloc.h>
#include <string.h>
#include <strings.h>

#include "mpi/env/hw_topology.h"
#include "mpi/env/error.h"
#include "mpi/env/info.h"
#include "mpi/env/state.h"

const char *const tw_hw_type_names[TW_HW_TYPES] = {"Machine", "Package", "NUMANode", "L3Cache",
                                                   "L2Cache", "L1Cache", "Core",     "PU"};
static const hwloc_obj_type_t hw_types[TW_HW_TYPES] = {
    HWLOC_OBJ_MACHINE, HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_L3CACHE,
    HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE, HWLOC_OBJ_CORE,     HWLOC_OBJ_PU};

static hwloc_topology_t topology;
static int topology_state; /* 0 not read, 1 read, -1 unreadable */

static hwloc_topology_t topo(void) {
    if (!topology_state) {
        topology_state = -1;
        if (!hwloc_topology_init(&topology)) {
            if (!hwloc_topology_load(topology))
                topology_state = 1;
            else
                hwloc_topology_destroy(topology);
        }
    }
    return topology_state == 1 ? topology : NULL;
}

int tw_hw_type(const char *name) {
    if (!name) return -1;
    if (!strncasecmp(name, "hwloc://", 8)) name += 8;
    for (int k = 0; k < TW_HW_TYPES; k++)
        if (!strcasecmp(name, tw_hw_type_names[k])) return k;
    return -1;
}

int tw_hw_object(int type) {
    hwloc_topology_t t = topo();
    if (!t || type < 0 || type >= TW_HW_TYPES) return -1;
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    if (!bound) return -1;
    if (hwloc_get_cpubind(t, bound, HWLOC_CPUBIND_PROCESS) || hwloc_bitmap_iszero(bound))
        hwloc_bitmap_copy(bound, hwloc_topology_get_allowed_cpuset(t));
    int found = -1, n = hwloc_get_nbobjs_by_type(t, hw_types[type]);
    for (int i = 0; i < n && found < 0; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, hw_types[type], (unsigned)i);
        if (o && o->cpuset && hwloc_bitmap_isincluded(bound, o->cpuset))
            found = (int)o->logical_index;
    }
    hwloc_bitmap_free(bound);
    return found;
}

/* One key per type on this machine, "hwloc://<type>", whose value says whether this
 * process is restricted to one of them ("true") or not ("false"), as MPI-4.1 section
 * 11.2.5 has it. The topology unreadable: an empty object. */
int MPI_Get_hw_resource_info(MPI_Info *hw_info) {
    const char *call = "MPI_Get_hw_resource_info";
    NEED_INIT(call);
    if (!hw_info) return tw_mpi_error(NULL, call, MPI_ERR_ARG, "hw_info is NULL");
    MPI_Info info;
    int rc = tw_mpi_info_new(&info);
    hwloc_topology_t t = topo();
    for (int k = 0; k < TW_HW_TYPES && t && !rc; k++) {
        if (hwloc_get_nbobjs_by_type(t, hw_types[k]) <= 0) continue;
        char key[64] = "hwloc://";
        strcat(key, tw_hw_type_names[k]);
        rc = tw_mpi_info_put(info, key, tw_hw_object(k) >= 0 ? "true" : "false");
    }
    if (rc) {
        tw_mpi_info_drop(info);
        return tw_mpi_error(NULL, call, rc, NULL);
    }
    *hw_info = info;
    return MPI_SUCCESS;
}
