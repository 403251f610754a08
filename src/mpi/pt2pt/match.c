/* Matching: the posted-receive and unexpected-message queues (see match.h). */
#include <stdlib.h>
#include <string.h>

#include "mpi/pt2pt/match.h"

void tw_match_init(tw_match_t *m, size_t bytes_max) {
    *m = (tw_match_t){.bytes_max = bytes_max};
}

void tw_match_fini(tw_match_t *m) {
    for (tw_unexpected_t *u = m->unexpected, *next; u; u = next) {
        next = u->next;
        free(u);
    }
    for (int c = 0; m->pool && c < TW_MATCH_CLASSES; c++)
        for (tw_unexpected_t *u = m->pool->spare[c], *next; u; u = next) {
            next = u->next;
            free(u);
        }
    free(m->pool);
    tw_match_init(m, m->bytes_max);
}

static void posted_unlink(tw_match_t *m, tw_posted_t *p, tw_posted_t *prev) {
    if (prev)
        prev->next = p->next;
    else
        m->posted = p->next;
    if (m->posted_tail == p) m->posted_tail = prev;
}

int tw_match_unpost(tw_match_t *m, tw_posted_t *p) {
    for (tw_posted_t *q = m->posted, *prev = NULL; q; prev = q, q = q->next) {
        if (q != p) continue;
        posted_unlink(m, p, prev);
        return 1;
    }
    return 0;
}

/* Payload bytes an entry keeps (an RTS keeps none: the data stays with its sender). */
static size_t kept_bytes(const tw_unexpected_t *u) {
    return u->is_rts ? 0 : u->len;
}

/* The size class of an entry keeping keep bytes: 0 up to TW_MATCH_SMALL, c for up to
 * 128 << c (256 B to TW_MATCH_POOLED), -1 past those (allocated and freed alone). */
static int class_of(size_t keep) {
    if (keep <= TW_MATCH_SMALL) return 0;
    if (keep > TW_MATCH_POOLED) return -1;
    int c = 1;
    while ((size_t)128 << c < keep) c++;
    return c;
}

static size_t class_bytes(int c) {
    return c ? (size_t)128 << c : TW_MATCH_SMALL;
}

static tw_unexpected_t *entry_new(tw_match_t *m, size_t keep) {
    int c = class_of(keep);
    if (c < 0) return malloc(sizeof(tw_unexpected_t) + keep);
    tw_match_pool_t *p = m->pool;
    tw_unexpected_t *u = p ? p->spare[c] : NULL;
    if (!u) return malloc(sizeof(tw_unexpected_t) + class_bytes(c));
    p->spare[c] = u->next;
    if (c)
        p->spare_bytes -= class_bytes(c);
    else
        p->spares--;
    return u;
}

/* An entry for a message of size bytes (an RTS: rts, and none kept), with the first len
 * of them at data. */
static tw_unexpected_t *keep_entry(tw_match_t *m, int source, int tag, uint32_t context,
                                   const tw_mpi_rts_t *rts, const void *data, size_t len,
                                   size_t size) {
    size_t keep = rts ? 0 : size;
    if (m->unexpected_bytes + keep > m->bytes_max && m->unexpected) return NULL;
    tw_unexpected_t *u = entry_new(m, keep);
    if (!u) return NULL;
    *u = (tw_unexpected_t){.source = source,
                           .tag = tag,
                           .context = context,
                           .is_rts = rts != NULL,
                           .len = rts ? len : size,
                           .missing = rts ? 0 : size - len,
                           .waiter = MPI_REQUEST_NULL};
    if (rts) u->rts = *rts;
    if (keep && len) memcpy(u->data, data, len);
    if (m->unexpected_tail)
        m->unexpected_tail->next = u;
    else
        m->unexpected = u;
    m->unexpected_tail = u;
    m->unexpected_bytes += keep;
    return u;
}

tw_unexpected_t *tw_match_keep(tw_match_t *m, int source, int tag, uint32_t context,
                               const tw_mpi_rts_t *rts, const void *data, size_t len) {
    return keep_entry(m, source, tag, context, rts, data, len, len);
}

tw_unexpected_t *tw_match_keep_first(tw_match_t *m, int source, int tag, uint32_t context,
                                     const void *data, size_t len, size_t size) {
    return keep_entry(m, source, tag, context, NULL, data, len, size);
}

/* The oldest entry a receive takes, and the one before it (NULL: it is the first). */
static tw_unexpected_t *find(const tw_match_t *m, int source, int tag, uint32_t context,
                             tw_unexpected_t **prev) {
    *prev = NULL;
    for (tw_unexpected_t *u = m->unexpected; u; *prev = u, u = u->next)
        if (tw_match_accepts(source, tag, context, u->source, u->tag, u->context)) return u;
    return NULL;
}

tw_unexpected_t *tw_match_probe(const tw_match_t *m, int source, int tag, uint32_t context) {
    tw_unexpected_t *prev;
    return find(m, source, tag, context, &prev);
}

static void unexpected_unlink(tw_match_t *m, tw_unexpected_t *u, tw_unexpected_t *prev) {
    if (prev)
        prev->next = u->next;
    else
        m->unexpected = u->next;
    if (m->unexpected_tail == u) m->unexpected_tail = prev;
    u->next = NULL;
}

tw_unexpected_t *tw_match_take_search(tw_match_t *m, int source, int tag, uint32_t context) {
    tw_unexpected_t *prev, *u = find(m, source, tag, context, &prev);
    if (u) unexpected_unlink(m, u, prev);
    return u;
}

tw_unexpected_t *tw_match_find_send(const tw_match_t *m, int source, uint32_t sreq) {
    for (tw_unexpected_t *u = m->unexpected; u; u = u->next)
        if (u->source == source && (u->is_rts ? u->rts.sreq == sreq : u->sync && u->sync == sreq))
            return u;
    return NULL;
}

void tw_match_withdraw(tw_match_t *m, tw_unexpected_t *u) {
    tw_unexpected_t *prev = NULL;
    for (tw_unexpected_t *q = m->unexpected; q && q != u; q = q->next) prev = q;
    unexpected_unlink(m, u, prev);
    tw_match_release(m, u);
}

void tw_match_release(tw_match_t *m, tw_unexpected_t *u) {
    m->unexpected_bytes -= kept_bytes(u);
    int c = class_of(kept_bytes(u));
    if (c >= 0 && !m->pool) m->pool = calloc(1, sizeof *m->pool); /* none: not recycled */
    tw_match_pool_t *p = m->pool;
    if (c < 0 || !p ||
        (c ? p->spare_bytes + class_bytes(c) > TW_MATCH_POOL_BYTES : p->spares >= TW_MATCH_KEPT)) {
        free(u);
        return;
    }
    u->next = p->spare[c];
    p->spare[c] = u;
    if (c)
        p->spare_bytes += class_bytes(c);
    else
        p->spares++;
}
