/* The I/O hints that act: parsing (a bad value is ignored and the default kept, as
 * ROMIO does), the aggregators of collective buffering, and the report of
 * MPI_File_get_info. The values every rank must share (cb_nodes, cb_buffer_size,
 * romio_cb_read, romio_cb_write, collective_buffering) are rank 0's. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mpi/comm/comm.h"
#include "mpi/env/state.h"
#include "mpi/io/file.h"
#include "mpi/io/hints.h"
#include "mpi/io/spare.h"

enum {
    CB_BUFFER_DEFAULT = 16 << 20,
    IND_RD_DEFAULT = 4 << 20,
    IND_WR_DEFAULT = 512 << 10,
};

static const char *const switch_names[] = {
    [TW_IO_AUTOMATIC] = "automatic", [TW_IO_ENABLE] = "enable", [TW_IO_DISABLE] = "disable"};

/* The value of key in info, in buf; 0 when absent (or longer than buf). */
static int hint(MPI_Info info, const char *key, char *buf, int size) {
    int len = size, flag = 0;
    if (MPI_Info_get_string(info, key, &len, buf, &flag) != MPI_SUCCESS || !flag) return 0;
    return len <= size;
}

/* A positive integer up to max, or -1. */
static long long positive(const char *text, long long max) {
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || v <= 0 || v > max) return -1;
    return v;
}

static void take_positive(MPI_Info info, const char *key, long long max, MPI_Offset *into) {
    char buf[64];
    long long v;
    if (hint(info, key, buf, sizeof buf) && (v = positive(buf, max)) > 0) *into = v;
}

static void take_switch(MPI_Info info, const char *key, int *into) {
    char buf[32];
    if (!hint(info, key, buf, sizeof buf)) return;
    for (int s = 0; s < 3; s++)
        if (!strcasecmp(buf, switch_names[s])) *into = s;
}

/* true or false: 1, 0; -1 for anything else or nothing. */
static int boolean(MPI_Info info, const char *key) {
    char buf[16];
    if (!hint(info, key, buf, sizeof buf)) return -1;
    return !strcasecmp(buf, "true") ? 1 : !strcasecmp(buf, "false") ? 0 : -1;
}

static int by_node_order(const void *a, const void *b) {
    const int *x = a, *y = b; /* {node, rank} */
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

static int by_spread_order(const void *a, const void *b) {
    const int *x = a, *y = b; /* {local rank, node, rank} */
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

void tw_io_hints_open(tw_io_file_t *f) {
    tw_io_hints_t *h = &f->hints;
    h->cb_win = MPI_WIN_NULL;
    h->nodes = 1;
    h->local_rank = 0;
    /* the ranks' nodes, known here without a word to anyone (comm.c's tw_mpi_node):
     * {node's first rank, rank} sorted by node then rank gives each rank its place */
    const tw_mpi_comm_t *c = tw_mpi_comm_get(f->comm);
    int *all = malloc(sizeof(int) * 3 * (size_t)f->size);
    h->by_spread = malloc(sizeof(int) * (size_t)f->size);
    /* under TW_LINK=udp no rank maps another's memory: each is a node of its own, as
     * MPI_COMM_TYPE_SHARED has it (decided alike everywhere: a spawned job maps its
     * node whatever its parents do) */
    int ok[2] = {all && h->by_spread && c, tw_ep_maps_node(tw_mpi.ep)};
    MPI_Allreduce(MPI_IN_PLACE, ok, 2, MPI_INT, MPI_MIN, f->comm); /* the same choice everywhere */
    if (ok[0]) {
        for (int r = 0; r < f->size; r++)
            all[3 * r] = ok[1] ? tw_mpi_node(tw_mpi_world_rank(c, r)) : r, all[3 * r + 1] = r;
        qsort(all, (size_t)f->size, 3 * sizeof(int), by_node_order);
        int local = 0; /* now {local rank, node, rank}: the rank's place on its node */
        for (int k = 0; k < f->size; k++) {
            int node = all[3 * k], rank = all[3 * k + 1];
            local = k && node == all[3 * (k - 1) + 1] ? local + 1 : 0;
            all[3 * k] = local, all[3 * k + 1] = node, all[3 * k + 2] = rank;
            if (rank == f->rank) h->local_rank = local;
        }
        qsort(all, (size_t)f->size, 3 * sizeof(int), by_spread_order);
        h->nodes = 0;
        for (int r = 0; r < f->size; r++) {
            h->by_spread[r] = all[3 * r + 2];
            h->nodes += all[3 * r] == 0;
        }
    } else if (h->by_spread) { /* no memory somewhere: as if on one node */
        for (int r = 0; r < f->size; r++) h->by_spread[r] = r;
    }
    free(all);
    tw_io_hints_apply(f);
}

void tw_io_hints_apply(tw_io_file_t *f) {
    tw_io_hints_t *h = &f->hints;
    MPI_Info info = f->info;
    /* the shared ones, rank 0's */
    MPI_Offset shared[5] = {0, CB_BUFFER_DEFAULT, TW_IO_AUTOMATIC, TW_IO_AUTOMATIC, TW_IO_DISABLE};
    if (f->rank == 0) {
        int shm = TW_IO_AUTOMATIC;
        take_switch(info, "tw_cb_shm", &shm);
        shared[4] = shm;
        int read = TW_IO_AUTOMATIC, write = TW_IO_AUTOMATIC;
        int cb = boolean(info, "collective_buffering");
        if (cb >= 0) read = write = cb ? TW_IO_ENABLE : TW_IO_DISABLE;
        take_switch(info, "romio_cb_read", &read);
        take_switch(info, "romio_cb_write", &write);
        take_positive(info, "cb_nodes", INT_MAX, &shared[0]);
        take_positive(info, "cb_buffer_size", INT_MAX, &shared[1]);
        shared[2] = read, shared[3] = write;
    }
    MPI_Bcast(shared, 5, MPI_OFFSET, 0, f->comm);
    h->cb_shm = (int)shared[4];
    h->cb_nodes_given = (int)shared[0];
    h->cb_buffer_size = shared[1];
    h->cb_read = (int)shared[2], h->cb_write = (int)shared[3];
    /* the rank's own */
    h->ds_read = h->ds_write = TW_IO_AUTOMATIC;
    take_switch(info, "romio_ds_read", &h->ds_read);
    take_switch(info, "romio_ds_write", &h->ds_write);
    h->ind_rd_buffer_size = IND_RD_DEFAULT;
    h->ind_wr_buffer_size = IND_WR_DEFAULT;
    take_positive(info, "ind_rd_buffer_size", INT_MAX, &h->ind_rd_buffer_size);
    take_positive(info, "ind_wr_buffer_size", INT_MAX, &h->ind_wr_buffer_size);
    /* the aggregators: the first cb_nodes ranks spread over the nodes */
    int n = h->cb_nodes_given ? h->cb_nodes_given : h->nodes;
    if (n > f->size) n = f->size;
    if (n < 1) n = 1;
    int *aggs = realloc(h->aggregators, sizeof(int) * (size_t)n);
    if (aggs) h->aggregators = aggs;
    if (!h->aggregators || !h->by_spread) {
        /* no memory: one aggregator, rank 0 (two_phase.c's fallback) */
        free(h->aggregators);
        h->aggregators = NULL;
        h->naggregators = 1;
        return;
    }
    for (int i = 0; i < n; i++) h->aggregators[i] = h->by_spread[i];
    h->naggregators = n;
}

int tw_io_hints_report(tw_io_file_t *f, MPI_Info *out) {
    const tw_io_hints_t *h = &f->hints;
    MPI_Info info;
    int rc = MPI_Info_dup(f->info, &info);
    if (rc != MPI_SUCCESS) return rc;
    char text[64];
    snprintf(text, sizeof text, "%d", h->naggregators);
    MPI_Info_set(info, "cb_nodes", text);
    snprintf(text, sizeof text, "%lld", (long long)h->cb_buffer_size);
    MPI_Info_set(info, "cb_buffer_size", text);
    MPI_Info_set(info, "romio_cb_read", switch_names[h->cb_read]);
    MPI_Info_set(info, "romio_cb_write", switch_names[h->cb_write]);
    MPI_Info_set(info, "collective_buffering",
                 h->cb_read == TW_IO_DISABLE && h->cb_write == TW_IO_DISABLE ? "false" : "true");
    MPI_Info_set(info, "tw_cb_shm", switch_names[h->cb_shm]);
    MPI_Info_set(info, "romio_ds_read", switch_names[h->ds_read]);
    MPI_Info_set(info, "romio_ds_write", switch_names[h->ds_write]);
    snprintf(text, sizeof text, "%lld", (long long)h->ind_rd_buffer_size);
    MPI_Info_set(info, "ind_rd_buffer_size", text);
    snprintf(text, sizeof text, "%lld", (long long)h->ind_wr_buffer_size);
    MPI_Info_set(info, "ind_wr_buffer_size", text);
    char given[MPI_MAX_INFO_VAL + 1];
    if (!hint(info, "cb_config_list", given, sizeof given))
        MPI_Info_set(info, "cb_config_list", "*:1");
    int b = boolean(info, "romio_no_indep_rw");
    MPI_Info_set(info, "romio_no_indep_rw", b == 1 ? "true" : "false");
    /* recorded ones: a bad value is not reported as if it were in effect */
    const char *counts[] = {"striping_factor", "striping_unit"};
    for (int k = 0; k < 2; k++)
        if (hint(info, counts[k], given, sizeof given) && positive(given, LLONG_MAX) < 0)
            MPI_Info_delete(info, counts[k]);
    *out = info;
    return MPI_SUCCESS;
}

void tw_io_hints_free(tw_io_hints_t *h) {
    if (h->cb_win != MPI_WIN_NULL && h->cb_win != 0) {
        MPI_Win_unlock_all(h->cb_win);
        MPI_Win_free(&h->cb_win);
    }
    free(h->cb_bases);
    h->cb_bases = NULL;
    tw_io_spare_give(h->cb_buf, h->cb_buf_size); /* for the next file's collectives */
    tw_io_spare_give(h->cb_recv, h->cb_recv_size);
    h->cb_buf = h->cb_recv = NULL;
    h->cb_buf_size = h->cb_recv_size = 0;
    free(h->aggregators);
    free(h->by_spread);
    h->aggregators = h->by_spread = NULL;
}
