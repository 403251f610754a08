/* The info hints of communicators (MPI-4.1 section 7.4.4): MPI_Comm_set_info and
 * MPI_Comm_get_info, and the hints given when one is made.
 *
 * Only the keys Tollway knows are kept, as bits of the communicator's hints field (0:
 * every hint at its default); others are ignored and never reported, as is a known key
 * with a value it cannot take. get_info reports every known key with the value in
 * effect, as MPI-4.1 asks, and a hardware-guided split's resource type. */
#include "mpi/comm/comm.h"
#include "mpi/env/error.h"
#include "mpi/env/info.h"
#include "mpi/env/state.h"

static unsigned set_bit(unsigned hints, unsigned bit, int on) {
    return on < 0 ? hints : on ? hints | bit : hints & ~bit;
}

static const char *const comm_keys[] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
                                        "mpi_assert_exact_length", "mpi_assert_allow_overtaking"};
enum { COMM_KEYS = sizeof comm_keys / sizeof *comm_keys };

unsigned tw_mpi_comm_hints(MPI_Info info, unsigned current) {
    for (unsigned k = 0; k < COMM_KEYS; k++)
        current = set_bit(current, 1u << k, tw_mpi_info_bool(info, comm_keys[k]));
    return current;
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
    NEED_INIT("MPI_Comm_set_info");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_set_info", MPI_ERR_COMM, NULL);
    if (!tw_mpi_info_ok(info)) return tw_mpi_error(c, "MPI_Comm_set_info", MPI_ERR_INFO, NULL);
    c->hints = tw_mpi_comm_hints(info, c->hints);
    return MPI_SUCCESS;
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used) {
    NEED_INIT("MPI_Comm_get_info");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_get_info", MPI_ERR_COMM, NULL);
    if (!info_used) return tw_mpi_error(c, "MPI_Comm_get_info", MPI_ERR_ARG, "info_used is NULL");
    MPI_Info info = MPI_INFO_NULL;
    int rc = tw_mpi_info_new(&info);
    for (unsigned k = 0; k < COMM_KEYS && !rc; k++)
        rc = tw_mpi_info_put(info, comm_keys[k], c->hints >> k & 1 ? "true" : "false");
    /* MPI-4.1: a communicator of a hardware-guided split says the type it was split by */
    if (!rc && c->hw_type) rc = tw_mpi_info_put(info, "mpi_hw_resource_type", c->hw_type);
    if (rc) {
        tw_mpi_info_drop(info);
        return tw_mpi_error(c, "MPI_Comm_get_info", rc, NULL);
    }
    *info_used = info;
    return MPI_SUCCESS;
}
