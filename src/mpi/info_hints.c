/* The info hints of communicators and windows (MPI-3.1 sections 6.4.4 and 11.2.7):
 * MPI_Comm_set_info / get_info, MPI_Win_set_info / get_info, and the hints given
 * when they are made.
 *
 * Only the keys Tollway knows are kept, as bits in a field of the communicator or
 * window (0: every hint at its default); others are ignored and never reported, as
 * is a known key with a value it cannot take. get_info reports every known key with
 * the value in effect, as MPI-4.1 asks (the hints the library understood and uses,
 * those the program set among them), and a hardware-guided split's resource type. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mpi/comm.h"
#include "mpi/error.h"
#include "mpi/info.h"
#include "mpi/state.h"
#include "mpi/win.h"

/* A boolean hint's value: 1 true, 0 false, -1 neither (ignored). */
static int boolean(const char *v) {
    if (!v) return -1;
    if (!strcasecmp(v, "true")) return 1;
    if (!strcasecmp(v, "false")) return 0;
    return -1;
}

static unsigned set_bit(unsigned hints, unsigned bit, int on) {
    return on < 0 ? hints : on ? hints | bit : hints & ~bit;
}

/* ---- communicators ---- */

static const char *const comm_keys[] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
                                        "mpi_assert_exact_length", "mpi_assert_allow_overtaking"};
enum { COMM_KEYS = sizeof comm_keys / sizeof *comm_keys };

unsigned tw_mpi_comm_hints(MPI_Info info, unsigned current) {
    for (unsigned k = 0; k < COMM_KEYS; k++)
        current = set_bit(current, 1u << k, boolean(tw_mpi_info_value(info, comm_keys[k])));
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

/* ---- windows ---- */

/* the bits of a window's hints; the orderings are kept as those given up */
enum {
    NO_LOCKS = 1,
    NOT_RAR = 2,
    NOT_RAW = 4,
    NOT_WAR = 8,
    NOT_WAW = 16,
    ORDERING = NOT_RAR | NOT_RAW | NOT_WAR | NOT_WAW,
    SAME_OP = 32,
    SAME_SIZE = 64,
    SAME_DISP_UNIT = 128,
    NONCONTIG = 256,
};
static const char *const orders[] = {"rar", "raw", "war", "waw"};

/* The NOT_* bits of an accumulate_ordering value, or -1 when it is not one. */
static int ordering(const char *v) {
    if (!strcasecmp(v, "none")) return ORDERING;
    int kept = 0;
    while (*v) {
        while (isspace((unsigned char)*v)) v++;
        size_t len = strcspn(v, ",");
        size_t end = len;
        while (end && isspace((unsigned char)v[end - 1])) end--;
        int k = 0;
        while (k < 4 && !(end == 3 && !strncasecmp(v, orders[k], 3))) k++;
        if (k == 4) return -1;
        kept |= NOT_RAR << k;
        v += len;
        if (*v == ',') v++;
    }
    return kept ? ORDERING & ~kept : -1;
}

unsigned tw_mpi_win_hints(MPI_Info info, unsigned h) {
    h = set_bit(h, NO_LOCKS, boolean(tw_mpi_info_value(info, "no_locks")));
    h = set_bit(h, SAME_SIZE, boolean(tw_mpi_info_value(info, "same_size")));
    h = set_bit(h, SAME_DISP_UNIT, boolean(tw_mpi_info_value(info, "same_disp_unit")));
    h = set_bit(h, NONCONTIG, boolean(tw_mpi_info_value(info, "alloc_shared_noncontig")));
    const char *v = tw_mpi_info_value(info, "accumulate_ordering");
    int o = v ? ordering(v) : -1;
    if (o >= 0) h = (h & ~(unsigned)ORDERING) | (unsigned)o;
    v = tw_mpi_info_value(info, "accumulate_ops");
    if (v && !strcasecmp(v, "same_op")) h |= SAME_OP;
    if (v && !strcasecmp(v, "same_op_no_op")) h &= ~(unsigned)SAME_OP;
    return h;
}

int MPI_Win_set_info(MPI_Win win, MPI_Info info) {
    GET_WIN("MPI_Win_set_info", win);
    if (!tw_mpi_info_ok(info)) return tw_win_error(w, "MPI_Win_set_info", MPI_ERR_INFO, NULL);
    w->hints = tw_mpi_win_hints(info, w->hints);
    return MPI_SUCCESS;
}

int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used) {
    GET_WIN("MPI_Win_get_info", win);
    if (!info_used) return tw_win_error(w, "MPI_Win_get_info", MPI_ERR_ARG, "info_used is NULL");
    unsigned h = w->hints;
    char order[32] = "";
    for (int k = 0; k < 4; k++)
        if (!(h & (NOT_RAR << k)))
            snprintf(order + strlen(order), sizeof order - strlen(order), "%s%s",
                     order[0] ? "," : "", orders[k]);
    MPI_Info info = MPI_INFO_NULL;
    int rc = tw_mpi_info_new(&info);
    if (!rc) rc = tw_mpi_info_put(info, "no_locks", h & NO_LOCKS ? "true" : "false");
    if (!rc) rc = tw_mpi_info_put(info, "accumulate_ordering", order[0] ? order : "none");
    if (!rc)
        rc = tw_mpi_info_put(info, "accumulate_ops", h & SAME_OP ? "same_op" : "same_op_no_op");
    if (!rc) rc = tw_mpi_info_put(info, "same_size", h & SAME_SIZE ? "true" : "false");
    if (!rc) rc = tw_mpi_info_put(info, "same_disp_unit", h & SAME_DISP_UNIT ? "true" : "false");
    if (!rc) rc = tw_mpi_info_put(info, "alloc_shared_noncontig", h & NONCONTIG ? "true" : "false");
    if (rc) {
        tw_mpi_info_drop(info);
        return tw_win_error(w, "MPI_Win_get_info", rc, NULL);
    }
    *info_used = info;
    return MPI_SUCCESS;
}
