/* Collective buffers kept across files (see spare.h). A lock, since files close on
 * any thread; only opens, closes and a collective's first use of its buffers take it. */
#include "mpi/io/spare.h"

#include <pthread.h>
#include <stdlib.h>

enum { SLOTS = 2 };

static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char *buf;
    MPI_Offset size;
} slot[SLOTS];

char *tw_io_spare_take(MPI_Offset bytes, MPI_Offset *have) {
    if (bytes < 1) bytes = 1;
    pthread_mutex_lock(&spare_lock);
    int best = -1; /* the smallest that is large enough: the other may fit a larger ask */
    for (int i = 0; i < SLOTS; i++)
        if (slot[i].buf && slot[i].size >= bytes && (best < 0 || slot[i].size < slot[best].size))
            best = i;
    char *buf = NULL;
    if (best >= 0) {
        buf = slot[best].buf;
        *have = slot[best].size;
        slot[best].buf = NULL;
        slot[best].size = 0;
    }
    pthread_mutex_unlock(&spare_lock);
    if (buf) return buf;
    buf = malloc((size_t)bytes);
    *have = buf ? bytes : 0;
    return buf;
}

void tw_io_spare_give(char *buf, MPI_Offset bytes) {
    if (!buf) return;
    if (bytes > TW_IO_SPARE_MOST) {
        free(buf);
        return;
    }
    pthread_mutex_lock(&spare_lock);
    int smallest = 0; /* an empty slot, else the smallest kept: the larger stays */
    for (int i = 1; i < SLOTS && slot[smallest].buf; i++)
        if (!slot[i].buf || slot[i].size < slot[smallest].size) smallest = i;
    char *out = buf;
    if (!slot[smallest].buf || slot[smallest].size < bytes) {
        out = slot[smallest].buf;
        slot[smallest].buf = buf;
        slot[smallest].size = bytes;
    }
    pthread_mutex_unlock(&spare_lock);
    free(out);
}

void tw_io_spare_fini(void) {
    pthread_mutex_lock(&spare_lock);
    for (int i = 0; i < SLOTS; i++) {
        free(slot[i].buf);
        slot[i].buf = NULL;
        slot[i].size = 0;
    }
    pthread_mutex_unlock(&spare_lock);
}
