/* The PSCW messages of windows (MPI_Win_post and MPI_Win_complete tell each other's
 * ranks), as a rank takes them from a peer: checked and counted here, by the handler
 * win_sync.c registers and by tests/fuzz/fuzz_win_msg.c, which runs exactly this. */
#ifndef TW_MPI_WIN_MSG_H
#define TW_MPI_WIN_MSG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mpi/rma/win.h"

#pragma GCC visibility push(hidden)

typedef struct win_msg {
    uint32_t context, kind; /* the window's context; MSG_POST or MSG_COMPLETE */
} win_msg_t;

/* A message of len bytes at data from world rank source, for one of the windows of
 * table (WIN_MAX entries): 1 when it counted, 0 when it was dropped. Dropped: a length
 * other than a message's, a kind other than these two, no window of that context here,
 * a sender that is no rank of the window, and what a correct peer never sends: a
 * second post from a rank before a start took the first (a target posts again only
 * after its wait, which needs this rank's complete, which follows the start), or more
 * completes than the window has ranks (each origin completes once per epoch, and
 * only after the target's post). The counts so stay bounded whatever a peer sends. */
static inline int tw_win_msg_take(win_t *const *table, int source, const void *data, size_t len) {
    win_msg_t m;
    if (len != sizeof m) return 0;
    memcpy(&m, data, sizeof m);
    if (m.kind != MSG_POST && m.kind != MSG_COMPLETE) return 0;
    for (int i = 0; i < WIN_MAX; i++) {
        win_t *w = table[i];
        if (!w || w->context != m.context) continue;
        int r = tw_mpi_comm_rank_of(w->c, source);
        if (r < 0 || r >= w->size) return 0;
        if (m.kind == MSG_POST) {
            if (w->posts_in[r]) return 0;
            w->posts_in[r] = 1;
        } else {
            if (w->completes_in >= w->size) return 0;
            w->completes_in++;
        }
        return 1;
    }
    return 0;
}

#pragma GCC visibility pop

#endif
