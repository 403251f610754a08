/* The info hints of windows (MPI-4.1 section 12.2.7): MPI_Win_set_info and
 * MPI_Win_get_info, and the hints given when one is made.
 *
 * Only the keys Tollway knows are kept, as bits of the window's hints field (0: every
 * hint at its default); others are ignored and never reported, as is a known key with a
 * value it cannot take. get_info reports every known key with the value in effect. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mpi/env/info.h"
#include "mpi/rma/win.h"

static unsigned set_bit(unsigned hints, unsigned bit, int on) {
    return on < 0 ? hints : on ? hints | bit : hints & ~bit;
}

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
    h = set_bit(h, NO_LOCKS, tw_mpi_info_bool(info, "no_locks"));
    h = set_bit(h, SAME_SIZE, tw_mpi_info_bool(info, "same_size"));
    h = set_bit(h, SAME_DISP_UNIT, tw_mpi_info_bool(info, "same_disp_unit"));
    h = set_bit(h, NONCONTIG, tw_mpi_info_bool(info, "alloc_shared_noncontig"));
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
