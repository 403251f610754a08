/* The machine's hardware topology, through hwloc (env/hw_topology.c): what
 * MPI_Get_hw_resource_info reports and the hardware-guided splits use. */
#ifndef TW_MPI_ENV_HW_TOPOLOGY_H
#define TW_MPI_ENV_HW_TOPOLOGY_H

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* The resource types, largest first, by hwloc's names. */
enum { TW_HW_TYPES = 8 };
extern const char *const tw_hw_type_names[TW_HW_TYPES];

/* The type named name ("NUMANode", "hwloc://L3Cache", case ignored), as an index into
 * tw_hw_type_names; -1 when it is none of them. */
int tw_hw_type(const char *name);
/* The logical index of the one object of type this process is bound inside (its
 * CPU binding; an unbound process is bound to every CPU it may use), or -1 when
 * its binding spans several (or the type is not on this machine, or the topology
 * cannot be read). */
int tw_hw_object(int type);

#pragma GCC visibility pop

#endif
