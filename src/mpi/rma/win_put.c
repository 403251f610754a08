/* MPI one-sided communication: puts of many small pieces as messages the target
 * applies.
 *
 * A put whose target layout is many small pieces would move each piece as one
 * device operation (one cross-process copy each on a node, one packet each across
 * nodes). Instead the origin sends the packed data, with the target datatype's
 * flattened map (typemap.h: a few blocks, however many pieces), as window messages
 * of at most TW_VELO_MAX_SIZE bytes; the target unpacks each into its window memory
 * when it takes it (in any MPI call, as it takes every window message), after
 * checking that every byte lands inside the window. It counts the puts it finished
 * from each origin in a word of a heap block the origins know (exchanged when the
 * window is made); a flush to that target reads the word until it counts every
 * such put sent there. Only for windows whose memory is one block (not dynamic
 * ones), to other ranks, over links where the initiator moves an RMA's bytes
 * itself (shm): where the target's device serves RMA (udp), its answers travel
 * behind the messages, and a device flush that does not take messages in (a lock's,
 * say) would wait on them forever. */
#include <stdlib.h>
#include <string.h>

#include "mpi/pt2pt/failure.h"
#include "mpi/rma/win.h"
#include "mpi/rma/win_put_msg.h"
#include "mpi/pt2pt/wire.h"

/* A put goes as messages beyond this many pieces (a device operation each, else)
 * of at most PIECE_MAX bytes on average. */
enum { PIECES_MIN = 64, PIECE_MAX = 512 };

/* The pieces count items of map m are, and whether they qualify. */
static int qualifies(const tw_typemap_t *m, MPI_Count count) {
    if (!m || m->nblocks > TW_WIN_PUT_BLOCKS_MAX || count <= 0 || m->size <= 0) return 0;
    uint64_t pieces = 0;
    for (size_t b = 0; b < m->nblocks; b++) pieces += m->blocks[b].reps;
    pieces *= (uint64_t)count;
    return pieces >= PIECES_MIN && (uint64_t)m->size * (uint64_t)count / pieces <= PIECE_MAX;
}

int tw_win_put_batched(win_t *w, int r, const side_t *o, const side_t *t, const where_t *at,
                       int *taken) {
    target_t *tg = &w->t[r];
    *taken = 0;
    /* the cheap tests first: every put of a contiguous target passes here */
    if (at->local || t->l.contiguous || w->flavor == MPI_WIN_FLAVOR_DYNAMIC || r == w->rank ||
        !tg->ctr_key)
        return MPI_SUCCESS;
    const tw_typemap_t *m = tw_mpi_type_map(t->type);
    tw_link_caps_t caps;
    if (!qualifies(m, t->count) || tw_ep_link_caps(tw_mpi.ep, tg->world, &caps) != TW_OK ||
        !caps.rma_by_initiator)
        return MPI_SUCCESS;
    unsigned char *tmp;
    const unsigned char *src = packed_of(o, &tmp);
    if (!src) return MPI_ERR_NO_MEM;
    size_t total = side_bytes(t), head = sizeof(put_msg_t) + m->nblocks * sizeof *m->blocks;
    size_t room = TW_VELO_MAX_SIZE - head;
    unsigned char hdr[sizeof(put_msg_t) + TW_WIN_PUT_BLOCKS_MAX * sizeof(tw_typemap_block_t)];
    memcpy(hdr + sizeof(put_msg_t), m->blocks, m->nblocks * sizeof *m->blocks);
    int rc = TW_OK;
    for (size_t first = 0; first < total && rc == TW_OK;) {
        size_t len = total - first < room ? total - first : room;
        put_msg_t h = {w->context,
                       MSG_PUT,
                       (int64_t)(at->nla - tg->nla),
                       (int64_t)t->count,
                       (int64_t)(m->ub - m->lb),
                       first,
                       len,
                       (uint32_t)m->nblocks,
                       first + len == total};
        memcpy(hdr, &h, sizeof h);
        unsigned spins = 0;
        while ((rc = tw_velo_sendv(tw_mpi.ep, tg->world, TW_MPI_WIN, hdr, head, src + first,
                                   len)) == TW_RETRY)
            relax(&spins);
        first += len;
    }
    free(tmp);
    if (rc != TW_OK) return tw_win_device_error(w, tg->world, rc);
    tg->puts_sent++;
    *taken = 1;
    return MPI_SUCCESS;
}

int tw_win_put_wait(win_t *w, int r) {
    target_t *tg = &w->t[r];
    unsigned spins = 0;
    while (tg->puts_seen < tg->puts_sent) {
        uint64_t v = 0;
        int rc = tw_win_get_waiting(w, r, &v, sizeof v, tg->ctr_nla + (uint64_t)w->rank * sizeof v,
                                    tg->ctr_key);
        int cls;
        if (rc) /* a lost target stays one: the caller names it */
            return tw_mpi_lost_class(rc, &cls) ? TW_ERR_LOST : TW_ERR_SYSTEM;
        if (v > tg->puts_sent) return TW_ERR_ARG; /* more than we sent: not to be trusted */
        tg->puts_seen = v;
        if (v < tg->puts_sent) relax(&spins);
    }
    return TW_OK;
}

int tw_win_put_take(win_t *const *table, int source, const void *data, size_t len) {
    put_msg_t h;
    size_t head;
    if (!tw_win_put_header(data, len, &h, &head)) return 0;
    for (int i = 0; i < WIN_MAX; i++) {
        win_t *w = table[i];
        if (!w || w->context != h.context) continue;
        int r = tw_mpi_comm_rank_of(w->c, source);
        if (r < 0 || r >= w->size || !w->applied || w->flavor == MPI_WIN_FLAVOR_DYNAMIC || !w->base)
            return 0;
        tw_typemap_block_t blocks[TW_WIN_PUT_BLOCKS_MAX];
        tw_typemap_t m;
        if (!tw_win_put_map(&h, data, (int64_t)w->bytes, blocks, &m)) return 0;
        tw_typemap_move(&m, (unsigned char *)w->base + h.off, h.count,
                        (unsigned char *)(uintptr_t)data + head, h.first, h.len, 1);
        if (h.last) __atomic_fetch_add(&w->applied[r], 1, __ATOMIC_RELEASE);
        return 1;
    }
    return 0;
}
