/* The MPI collective calls, blocking and non-blocking: argument checks, then the
 * packed views of the user's buffers, then the algorithm (coll.c) written into a
 * schedule (schedule.c), which a blocking call runs at once and a non-blocking one
 * hands to its request.
 *
 * The algorithms see packed bytes: a contiguous datatype's buffer as it is, from lb
 * on (no copy), any other packed into scratch when the call starts and unpacked
 * into the user's buffer after the last step — unless it is large: calls on one
 * buffer then go in segments staged one at a time (a reduce-scatter as one such
 * reduction per block, or on an intercommunicator in segments of the whole vector),
 * the direct algorithms of the block calls move a large non-contiguous block as a
 * typed message, staged by the point-to-point engine a chunk at a time, and an
 * all-to-all in place swaps its blocks pairwise, in pieces. On an intercommunicator
 * the same checks and views lead to the algorithms of coll_inter.c: blocks are the
 * remote group's, MPI_IN_PLACE is refused, and rooted calls take MPI_ROOT. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/coll/coll.h"
#include "mpi/coll/persistent.h"
#include "mpi/coll/coll_calls.h"
#include "mpi/coll/coll_shm_block.h"
#include "mpi/coll/vec.h"
#include "mpi/coll/coll_tuning.h"
#include "mpi/comm/comm.h"
#include "mpi/datatype/datatype.h"
#include "mpi/env/error.h"
#include "mpi/coll/op.h"
#include "mpi/coll/schedule.h"
#include "mpi/env/state.h"

/* ---- checks ---- */

static int check_comm(const char *call, MPI_Comm comm, int nonblocking, const MPI_Request *req,
                      tw_mpi_comm_t **c) {
    NEED_INIT(call);
    *c = tw_mpi_comm_get(comm);
    if (!*c) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    if (nonblocking && !req) return tw_mpi_error(*c, call, MPI_ERR_REQUEST, "request is NULL");
    return MPI_SUCCESS;
}

/* count items of type at buf, which must not be MPI_IN_PLACE here. A derived type
 * may address memory absolutely, from MPI_BOTTOM (NULL). */
static int check_data(tw_mpi_comm_t *c, const char *call, const void *buf, MPI_Count count,
                      MPI_Datatype type, tw_mpi_type_layout_t *l) {
    if (count < 0) return tw_mpi_error(c, call, MPI_ERR_COUNT, "negative count");
    if (tw_mpi_type_layout(type, l)) return tw_mpi_error(c, call, MPI_ERR_TYPE, NULL);
    if (buf == MPI_IN_PLACE)
        return tw_mpi_error(c, call, MPI_ERR_BUFFER, "MPI_IN_PLACE where it is not allowed");
    if (!buf && count > 0 && l->size > 0 && tw_mpi_type_extent(type) >= 0)
        return tw_mpi_error(c, call, MPI_ERR_BUFFER, "NULL buffer");
    return MPI_SUCCESS;
}

/* On an intercommunicator root may also be MPI_ROOT or MPI_PROC_NULL (its group). */
static int check_root(tw_mpi_comm_t *c, const char *call, int root) {
    if (root >= 0 && root < c->size) return MPI_SUCCESS;
    if (c->inter && (root == MPI_ROOT || root == MPI_PROC_NULL)) return MPI_SUCCESS;
    char d[64];
    snprintf(d, sizeof d, "root %d in a communicator of %d", root, c->size);
    return tw_mpi_error(c, call, MPI_ERR_ROOT, d);
}

static int check_op(tw_mpi_comm_t *c, const char *call, MPI_Op op, MPI_Datatype type) {
    int rc = tw_mpi_op_check(op, type);
    return rc ? tw_mpi_error(c, call, rc, "the op does not apply to the datatype") : MPI_SUCCESS;
}

/* Send and receive buffers of one rank must not overlap (MPI_IN_PLACE says so). */
static int check_alias(tw_mpi_comm_t *c, const char *call, const void *in, const void *out,
                       size_t bytes) {
    if (in && in == out && bytes)
        return tw_mpi_error(c, call, MPI_ERR_BUFFER, "send and receive buffers are the same");
    return MPI_SUCCESS;
}

/* The same for a rank's one block and the buffer of all blocks it belongs to, which
 * holds this rank's block at item at (of extent bytes): the block at its own place
 * there is MPI_IN_PLACE's case, not said so. */
static int check_alias_block(tw_mpi_comm_t *c, const char *call, const void *one, const void *many,
                             MPI_Count at, MPI_Aint extent, size_t bytes) {
    int rc = check_alias(c, call, one, many, bytes);
    if (rc || !one || !many || !bytes) return rc;
    if ((uintptr_t)one ==
        (uintptr_t)many + (uintptr_t)at * (uintptr_t)extent) /* wraps, as addresses do */
        return tw_mpi_error(c, call, MPI_ERR_BUFFER,
                            "one buffer is this rank's block of the other (MPI_IN_PLACE "
                            "says so)");
    return MPI_SUCCESS;
}

/* counts[] and displs[] of a v call (displs NULL: not needed) for each of n ranks. */
static int check_counts(tw_mpi_comm_t *c, const char *call, int n, tw_mpi_vec_t counts,
                        tw_mpi_vec_t displs, int need_displs) {
    if (!counts.at || (need_displs && !displs.at))
        return tw_mpi_error(c, call, MPI_ERR_ARG, "counts or displacements are NULL");
    for (int i = 0; i < n; i++)
        if (tw_mpi_vec_get(counts, i) < 0)
            return tw_mpi_error(c, call, MPI_ERR_COUNT, "negative count");
    return MPI_SUCCESS;
}

/* ---- segments of one buffer ---- */

/* The collectives on one buffer per rank (bcast, the reductions) run as a series of
 * collectives on segments of at most TW_COLL_SEGMENT packed bytes, one after the
 * other, so a non-contiguous buffer is staged through a copy of one segment and
 * never packed whole. Every member knows how many packed bytes the call moves (MPI's
 * type matching rules), so all agree on the segments whatever their datatypes. A
 * contiguous buffer is used where it is, segment by segment. */
enum { TW_COLL_SEGMENT = 8 << 20 };

typedef struct coll_buf { /* one buffer of the call, as packed bytes */
    void *buf;
    MPI_Count count; /* items of type at buf: the call's, or (set first) more */
    MPI_Datatype type;
    size_t base; /* where the call's packed bytes start in those of buf */
    int staged;
    char *at; /* contiguous: the packed bytes themselves; staged: one segment's copy */
} coll_buf_t;

typedef struct move {
    coll_buf_t *buffer;
    size_t first, len;
    int unpack;
} move_t;

static void move_segment(tw_sched_t *s, void *arg) {
    (void)s;
    move_t *m = arg;
    coll_buf_t *d = m->buffer;
    if (m->unpack)
        tw_mpi_type_unpack_range(d->at, d->count, d->type, d->base + m->first, m->len, d->buf);
    else
        tw_mpi_type_pack_range(d->buf, d->count, d->type, d->base + m->first, m->len, d->at);
}

/* Bytes of segments of at most most bytes for total packed bytes cut at multiples
 * of unit. */
static size_t segment_bytes(size_t total, size_t unit, size_t most) {
    size_t n = most / unit * unit;
    if (!n) n = unit; /* one unit beyond a segment: a user op's item is not cut */
    return n < total ? n : total;
}

/* d->buf and d->base are set, d->count when it is not count. -1 when out of memory
 * (s->error is set). */
static int buf_init(tw_sched_t *s, coll_buf_t *d, MPI_Count count, MPI_Datatype type,
                    const tw_mpi_type_layout_t *l, size_t seg) {
    if (!d->count) d->count = count;
    d->type = type;
    d->staged = !l->contiguous;
    /* from MPI_BOTTOM (NULL) too: lb is then an address */
    d->at = (char *)((uintptr_t)d->buf + (uintptr_t)(l->lb + (MPI_Aint)d->base));
    if (!d->staged) return 0;
    d->at = tw_sched_scratch(s, seg);
    return d->at ? 0 : -1;
}

static void add_move(tw_sched_t *s, coll_buf_t *d, size_t first, size_t len, int unpack) {
    move_t *m = tw_sched_scratch(s, sizeof *m);
    if (!m) return;
    *m = (move_t){d, first, len, unpack};
    if (unpack) tw_sched_fence(s);
    tw_sched_call(s, move_segment, m);
}

/* Packed bytes [first, first + len) of a side; load: packed into its copy first. */
static char *buf_bytes(tw_sched_t *s, coll_buf_t *d, size_t first, size_t len, int load) {
    if (!d->staged) return d->at + first;
    if (load) add_move(s, d, first, len, 0);
    return d->at;
}

/* One call on one buffer per rank, written one segment at a time: the steps of the
 * next segment, with scratch of its own, once the last one's are done. */
typedef enum {
    SEG_BCAST,
    SEG_REDUCE,
    SEG_ALLREDUCE,
    SEG_SCAN,
    SEG_EXSCAN,
    SEG_INTER_REDUCE_SCATTER
} seg_kind_t;
typedef struct segmented {
    seg_kind_t kind;
    int root;
    size_t bytes, seg, first;
    coll_buf_t in, out;
    int gives, takes; /* has an input (in, or out in place) / an output (out) */
    int in_place;     /* the input is out's data */
    int load_out;     /* out holds input: packed before each segment */
    int unpack_out;   /* out receives a result: unpacked after each segment */
    tw_coll_red_t red;
    tw_sched_mark_t mark; /* the scratch that outlives every segment ends here */
    tw_sched_fn *then;    /* not NULL: called once the last segment is done */
    void *then_arg;
    const size_t *blocks; /* a reduce-scatter's: packed bytes of each local rank */
    size_t own;           /* where this rank's block starts in the vector */
    size_t most;          /* the largest segment; 0: TW_COLL_SEGMENT */
} segmented_t;

/* The segments of the reduce-scatters: a block's root (an intercommunicator's
 * leader) holds four (six) buffers of a segment at once: input, output, the
 * reduction's work and ring buffers (the sum and the other group's). */
enum { REDUCE_SCATTER_SEGMENT = TW_COLL_SEGMENT / 4 };
/* A reduce-scatter of unequal blocks of up to this many bytes in all goes as an
 * allreduce through shared memory (tw_coll_call_reduce_scatter). */
enum { REDUCE_SCATTER_WHOLE = 2 << 10 };

/* A segment of an intercommunicator's reduce-scatter: the part of this rank's
 * block within it goes to that part of out. */
static void reduce_scatter_segment(tw_sched_t *s, segmented_t *g, const char *in, size_t first,
                                   size_t len) {
    size_t own = g->own, lo = first > own ? first : own;
    size_t hi = own + g->blocks[s->comm->rank];
    if (hi > first + len) hi = first + len;
    char *o = hi > lo ? buf_bytes(s, &g->out, lo - own, hi - lo, 0) : NULL;
    tw_coll_inter_reduce_scatter(s, in, o, first, len, g->blocks, &g->red);
    if (o && g->out.staged) add_move(s, &g->out, lo - own, hi - lo, 1);
}

static void write_segment(tw_sched_t *s, segmented_t *g, size_t first, size_t len) {
    if (g->kind == SEG_INTER_REDUCE_SCATTER) {
        reduce_scatter_segment(s, g, buf_bytes(s, &g->in, first, len, 1), first, len);
        return;
    }
    char *o = g->takes ? buf_bytes(s, &g->out, first, len, g->load_out) : NULL;
    const char *i = !g->gives ? NULL : g->in_place ? o : buf_bytes(s, &g->in, first, len, 1);
    int inter = s->comm->inter;
    size_t n = len / g->red.item;
    switch (g->kind) {
    case SEG_BCAST:
        if (inter)
            tw_coll_inter_bcast(s, o, len, g->root);
        else
            tw_coll_bcast(s, o, len, 1, g->root);
        break;
    case SEG_REDUCE:
        if (inter)
            tw_coll_inter_reduce(s, i, o, n, &g->red, g->root);
        else
            tw_coll_reduce(s, i, o, n, &g->red, g->root);
        break;
    case SEG_ALLREDUCE:
        if (inter)
            tw_coll_inter_allreduce(s, i, o, n, &g->red);
        else
            tw_coll_allreduce(s, i, o, n, &g->red);
        break;
    case SEG_SCAN:
    case SEG_EXSCAN:
        tw_coll_scan(s, i, o, n, &g->red, g->kind == SEG_EXSCAN);
        break;
    case SEG_INTER_REDUCE_SCATTER: /* above */
        break;
    }
    if (g->unpack_out && g->out.staged) add_move(s, &g->out, first, len, 1);
}

static void next_segment(tw_sched_t *s, void *arg) {
    segmented_t *g = arg;
    tw_sched_release(s, g->mark); /* the last segment's scratch: its steps are done */
    size_t len = g->bytes - g->first < g->seg ? g->bytes - g->first : g->seg;
    write_segment(s, g, g->first, len);
    g->first += len;
    tw_sched_fence(s);
    if (g->first < g->bytes)
        tw_sched_call(s, next_segment, g);
    else if (g->then)
        tw_sched_call(s, g->then, g->then_arg);
}

/* Writes the call g describes: the sides' buffers and the flags are set, the sides
 * are made here for count items of type. g is kept in the schedule's scratch, since
 * the steps refer to its sides. */
static void segmented_run(tw_sched_t *s, const segmented_t *g, MPI_Count count, MPI_Datatype type,
                          const tw_mpi_type_layout_t *l) {
    segmented_t *k = tw_sched_scratch(s, sizeof *k);
    if (!k) return;
    *k = *g;
    k->bytes = (size_t)count * (size_t)l->size;
    k->seg = segment_bytes(k->bytes, k->red.item, k->most ? k->most : TW_COLL_SEGMENT);
    k->first = 0;
    if (k->takes && buf_init(s, &k->out, count, type, l, k->seg)) return;
    if (k->gives && !k->in_place && buf_init(s, &k->in, count, type, l, k->seg)) return;
    if (k->bytes <= k->seg) { /* one segment: written now, as any call */
        write_segment(s, k, 0, k->bytes);
        if (k->then) {
            tw_sched_fence(s);
            tw_sched_call(s, k->then, k->then_arg);
        }
        return;
    }
    k->mark = tw_sched_mark(s);
    tw_sched_snapshot(s, k, sizeof *k); /* next_segment counts in it */
    next_segment(s, k);
}

/* A reduction's unit of segmenting: one basic element for a predefined op, whole
 * items for a user op (its function sees items of the user's type). */
static tw_coll_red_t segment_red(MPI_Op op, MPI_Datatype type, const tw_mpi_type_layout_t *l) {
    if (tw_mpi_op_predefined(op) && l->element != MPI_DATATYPE_NULL)
        return (tw_coll_red_t){op, l->element, (size_t)tw_mpi_basic_packed_size(l->element),
                               tw_mpi_op_commutative(op)};
    return (tw_coll_red_t){op, type, (size_t)l->size, tw_mpi_op_commutative(op)};
}

/* ---- packed views of user buffers ---- */

static const void *packed_in(tw_sched_t *s, const void *buf, MPI_Count count, MPI_Datatype type,
                             const tw_mpi_type_layout_t *l) {
    if (l->contiguous) return (const char *)buf + l->lb;
    void *p = tw_sched_scratch(s, (size_t)count * (size_t)l->size);
    if (p) tw_sched_pack(s, buf, count, type, p);
    return p;
}

/* An output buffer: unpacked after the last step when it is a packed copy. */
typedef struct out {
    void *packed, *buf;
    MPI_Count count;
    MPI_Datatype type;
} out_t;

/* load: the buffer is also an input (its contents are packed now). */
static void *packed_out(tw_sched_t *s, void *buf, MPI_Count count, MPI_Datatype type,
                        const tw_mpi_type_layout_t *l, int load, out_t *o) {
    *o = (out_t){NULL, buf, count, type};
    if (l->contiguous) return (char *)buf + l->lb;
    o->packed = tw_sched_scratch(s, (size_t)count * (size_t)l->size);
    if (o->packed && load) tw_sched_pack(s, buf, count, type, o->packed);
    return o->packed;
}

static void unpack_out(tw_sched_t *s, const out_t *o) {
    if (!o->packed) return;
    tw_sched_fence(s);
    tw_sched_unpack(s, o->packed, o->count, o->type, o->buf);
}

/* The blocks of a v call: rank i's is counts[i] items of its type at displs[i]
 * (in extents of the type, or in bytes for the w calls) of buf. */
typedef struct vspec {
    void *buf;
    tw_mpi_vec_t counts, displs;
    const MPI_Datatype *types; /* one per rank when per_rank, else types[0] for all */
    int per_rank;
} vspec_t;

typedef struct view {
    char *base; /* packed or contiguous: bytes[i] at base + offs[i] are rank i's block */
    size_t *bytes, *offs;
    int packed;               /* base is scratch: blocks are packed there and back */
    tw_sched_block_t *blocks; /* rank i's block, packed, contiguous or typed */
} view_t;

static MPI_Datatype type_of(const vspec_t *v, int i) {
    return v->types[v->per_rank ? i : 0];
}

/* Whether a non-contiguous buffer of bytes packed bytes is moved typed, a staging
 * chunk at a time, rather than packed whole: when the algorithm allows it (typed_ok:
 * a direct one, every block straight between user buffers) and it exceeds a chunk. */
static int goes_typed(int typed_ok, size_t bytes) {
    return typed_ok && bytes > TW_PACK_CHUNK;
}

/* load: -1 none, -2 every block, or the rank whose block is also input (a typed
 * view reads its input where it is). */
static int view_make(tw_sched_t *s, const vspec_t *v, int load, int typed_ok, view_t *w) {
    int p = s->comm->size, contiguous = 1;
    w->bytes = tw_sched_scratch(s, (size_t)p * sizeof *w->bytes);
    w->offs = tw_sched_scratch(s, (size_t)p * sizeof *w->offs);
    w->blocks = NULL;
    if (!w->bytes || !w->offs) return -1;
    size_t total = 0;
    for (int i = 0; i < p; i++) {
        tw_mpi_type_layout_t l;
        tw_mpi_type_layout_held(type_of(v, i), &l); /* checked */
        contiguous &= l.contiguous;
        MPI_Aint at = (MPI_Aint)tw_mpi_vec_get(v->displs, i) * (v->per_rank ? 1 : l.extent);
        w->bytes[i] = (size_t)tw_mpi_vec_get(v->counts, i) * (size_t)l.size;
        w->offs[i] = (size_t)(at + l.lb); /* contiguous case; redone below otherwise */
        total += w->bytes[i];
    }
    w->packed = !contiguous && !goes_typed(typed_ok, total);
    w->base = v->buf;
    if (!contiguous && !w->packed) { /* typed: each block where it is */
        w->base = NULL;
        w->blocks = tw_coll_blocks(s, v->buf, w->offs, w->bytes);
        if (!w->blocks) return -1;
        for (int i = 0; i < p; i++) {
            tw_mpi_type_layout_t l;
            tw_mpi_type_layout_held(type_of(v, i), &l);
            if (l.contiguous) continue;
            MPI_Aint at = (MPI_Aint)tw_mpi_vec_get(v->displs, i) * (v->per_rank ? 1 : l.extent);
            w->blocks[i] =
                (tw_sched_block_t){NULL, (char *)v->buf + at, tw_mpi_vec_get(v->counts, i),
                                   type_of(v, i), w->bytes[i]};
        }
        return 0;
    }
    if (w->packed) {
        w->base = tw_sched_scratch(s, total);
        if (!w->base) return -1;
        total = 0;
        for (int i = 0; i < p; i++) {
            w->offs[i] = total;
            total += w->bytes[i];
            if (load == -2 || load == i) {
                tw_mpi_type_layout_t l;
                tw_mpi_type_layout_held(type_of(v, i), &l);
                MPI_Aint at = (MPI_Aint)tw_mpi_vec_get(v->displs, i) * (v->per_rank ? 1 : l.extent);
                tw_sched_pack(s, (char *)v->buf + at, tw_mpi_vec_get(v->counts, i), type_of(v, i),
                              w->base + w->offs[i]);
            }
        }
    }
    w->blocks = tw_coll_blocks(s, w->base, w->offs, w->bytes);
    return w->blocks ? 0 : -1;
}

/* Unpacks the blocks of a packed view at the end. */
static void view_unpack(tw_sched_t *s, const vspec_t *v, const view_t *w) {
    if (!w->packed) return;
    tw_sched_fence(s);
    for (int i = 0; i < s->comm->size; i++) {
        tw_mpi_type_layout_t l;
        tw_mpi_type_layout_held(type_of(v, i), &l);
        MPI_Aint at = (MPI_Aint)tw_mpi_vec_get(v->displs, i) * (v->per_rank ? 1 : l.extent);
        tw_sched_unpack(s, w->base + w->offs[i], tw_mpi_vec_get(v->counts, i), type_of(v, i),
                        (char *)v->buf + at);
    }
}

/* The single block of a call, count items of type at buf: typed as goes_typed says,
 * else a packed view of it (load: its data packed now; o: what to unpack at the
 * end). NULL when out of memory. */
static tw_sched_block_t *one_block(tw_sched_t *s, const void *buf, MPI_Count count,
                                   MPI_Datatype type, const tw_mpi_type_layout_t *l, int load,
                                   int typed_ok, out_t *o) {
    tw_sched_block_t *b = tw_sched_scratch(s, sizeof *b);
    size_t bytes = (size_t)count * (size_t)l->size;
    *o = (out_t){NULL, (void *)(uintptr_t)buf, count, type};
    if (!b) return NULL;
    if (!l->contiguous && goes_typed(typed_ok, bytes)) {
        *b = (tw_sched_block_t){NULL, (void *)(uintptr_t)buf, count, type, bytes};
        return b;
    }
    char *at = packed_out(s, (void *)(uintptr_t)buf, count, type, l, load, o);
    *b = (tw_sched_block_t){.at = at, .bytes = bytes};
    return at || !bytes ? b : NULL;
}

/* ---- schedules ---- */

/* The schedule of a call: on the stack when blocking, allocated when not; a
 * persistent one (nb TW_COLL_PERSISTENT) is kept for its starts. */
static tw_sched_t *begin(tw_mpi_comm_t *c, MPI_Request *req, int nb, tw_sched_t *stack) {
    if (!req) {
        tw_sched_init(stack, c, tw_mpi_coll_tag(c));
        return stack;
    }
    tw_sched_t *s = tw_sched_new(c);
    if (!s)
        tw_mpi_nbc_tag(c); /* the members still agree on the tags that follow */
    else
        s->keep = nb == TW_COLL_PERSISTENT;
    return s;
}

static int end(const char *call, tw_mpi_comm_t *c, tw_sched_t *s, MPI_Request *req, int nb) {
    if (!s) return tw_mpi_error(c, call, MPI_ERR_NO_MEM, NULL);
    int rc = nb == TW_COLL_PERSISTENT ? tw_coll_persistent_make(s, req)
             : req                    ? tw_sched_start(s, req)
                                      : tw_sched_run(s);
    return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
}

static tw_coll_red_t red_of(MPI_Op op, MPI_Datatype type, const tw_mpi_type_layout_t *l) {
    return (tw_coll_red_t){op, type, (size_t)l->size, tw_mpi_op_commutative(op)};
}

/* ---- the shared-memory path ---- */

/* A buffer as the shared-memory path sees it: the buffer itself when its type is
 * contiguous, else a packed copy (load: of its contents), unpacked by flat_end; a
 * copy of up to FLAT_INLINE bytes in the struct itself, so a small call with a
 * derived type allocates nothing. */
enum { FLAT_INLINE = 256 };
typedef struct flat {
    char *at;
    void *copy, *buf;
    MPI_Count count;
    MPI_Datatype type;
    _Alignas(max_align_t) unsigned char inline_copy[FLAT_INLINE];
} flat_t;

static int flat_begin(flat_t *f, const void *buf, MPI_Count count, MPI_Datatype type,
                      const tw_mpi_type_layout_t *l, int load) {
    f->copy = NULL;
    f->buf = (void *)(uintptr_t)buf;
    f->count = count;
    f->type = type;
    if (l->contiguous) {
        f->at = (char *)(uintptr_t)buf + l->lb;
        return 0;
    }
    size_t bytes = (size_t)count * (size_t)l->size;
    f->copy = bytes <= FLAT_INLINE ? f->inline_copy : malloc(bytes);
    if (!f->copy) return -1;
    f->at = f->copy;
    if (load) tw_mpi_type_pack(buf, count, type, f->copy);
    return 0;
}

/* A buffer not begun: no data (at NULL, which the shared-memory calls read as "none"
 * or "in place"), nothing to end. Not an initialiser: that would clear the inline copy
 * on every call. */
static void flat_none(flat_t *f) {
    f->at = NULL;
    f->copy = NULL;
}

/* unpack: the copy holds a result for the buffer (count items at most: take) */
static void flat_end(flat_t *f, int unpack, MPI_Count take) {
    if (!f->copy) return; /* contiguous: nothing was copied */
    if (unpack) tw_mpi_type_unpack(f->copy, take, f->type, f->buf);
    if (f->copy != f->inline_copy) free(f->copy);
    f->copy = NULL;
}

/* The end of a call that went through shared memory (done 1) or failed to set it up. */
static int shm_end(tw_mpi_comm_t *c, const char *call, int rc) {
    return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
}

/* A blocking call on the shared-memory path that this rank cannot take part in: no
 * memory for a packed copy of a buffer. The others may be waiting for it already. */
static int shm_give_up(tw_mpi_comm_t *c, const char *call) {
    tw_coll_shm_give_up(c);
    return tw_mpi_error(c, call, MPI_ERR_NO_MEM,
                        "no memory for a packed copy of a buffer of a non-contiguous type; the "
                        "other members' calls fail too");
}

/* A persistent call whose blocking form the tuning table sends to shared memory
 * (tuned): on the lines when they take it (tw_coll_shm_persistent), 1; 0: it goes by
 * messages, as the steps of a non-blocking call written into s. op MPI_OP_NULL: no
 * reduction (one of no items goes by messages, as the blocking call). Out of line,
 * and working out its own sizes: the blocking calls pay nothing for it. */
static __attribute__((noinline)) int lines_take(tw_sched_t *s, tw_coll_kind_t tuned, int kind,
                                                int root, const void *in, void *out,
                                                MPI_Count count, MPI_Datatype type,
                                                const tw_mpi_type_layout_t *l, MPI_Op op) {
    if (!s || s->comm->inter || (op != MPI_OP_NULL && !count)) return 0;
    size_t bytes = l ? (size_t)count * (size_t)l->size : 0;
    if (!tw_coll_tuned_shm(tuned, s->comm->size, bytes)) return 0;
    tw_coll_red_t red = {MPI_OP_NULL, type, 0, 1};
    if (op != MPI_OP_NULL) red = red_of(op, type, l);
    return tw_coll_shm_persistent(s, kind, root, in, out, count, type, l,
                                  op != MPI_OP_NULL ? &red : NULL);
}

/* lines_take for a persistent call (nb), 0 for any other */
static inline int persistent_on_lines(tw_sched_t *s, int nb, tw_coll_kind_t tuned, int kind,
                                      int root, const void *in, void *out, MPI_Count count,
                                      MPI_Datatype type, const tw_mpi_type_layout_t *l, MPI_Op op) {
    return nb == TW_COLL_PERSISTENT &&
           lines_take(s, tuned, kind, root, in, out, count, type, l, op);
}

/* ---- the calls; req NULL: blocking ---- */

/* The root of a rooted call: on an intercommunicator the one passing MPI_ROOT. */
static int is_root(const tw_mpi_comm_t *c, int root) {
    return c->inter ? root == MPI_ROOT : c->rank == root;
}

/* A member of the root's group other than the root: it takes no part, but the call
 * still takes its tag, as everywhere else. */
static int takes_no_part(const tw_mpi_comm_t *c, int root) {
    return c->inter && root == MPI_PROC_NULL;
}

/* MPI_IN_PLACE has no meaning on an intercommunicator (MPI-3.1 section 5.2.2). */
static int check_not_in_place(tw_mpi_comm_t *c, const char *call, const void *buf) {
    if (c->inter && buf == MPI_IN_PLACE)
        return tw_mpi_error(c, call, MPI_ERR_BUFFER, "MPI_IN_PLACE on an intercommunicator");
    return MPI_SUCCESS;
}

int tw_coll_call_barrier(const char *call, MPI_Comm comm, MPI_Request *req, int nb) {
    tw_mpi_comm_t *c;
    int rc = check_comm(call, comm, nb, req, &c);
    if (rc) return rc;
    if (!nb && !c->inter && tw_coll_tuned_shm(TW_COLL_KIND_BARRIER, c->size, 0) &&
        (tw_coll_shm_barrier(c, &rc) || rc))
        return rc ? tw_mpi_error(c, call, rc, NULL) : MPI_SUCCESS;
    tw_sched_t stack, *s = begin(c, req, nb, &stack);
    int lines = persistent_on_lines(s, nb, TW_COLL_KIND_BARRIER, TW_COLL_SHM_BARRIER, 0, NULL, NULL,
                                    0, MPI_DATATYPE_NULL, NULL, MPI_OP_NULL);
    if (s && c->inter)
        tw_coll_inter_barrier(s);
    else if (s && !lines)
        tw_coll_barrier(s);
    return end(call, c, s, req, nb);
}

int tw_coll_call_bcast(const char *call, void *buf, MPI_Count count, MPI_Datatype type, int root,
                       MPI_Comm comm, MPI_Request *req, int nb) {
    tw_mpi_comm_t *c;
    tw_mpi_type_layout_t l;
    int rc = check_comm(call, comm, nb, req, &c);
    if (!rc) rc = check_root(c, call, root);
    if (!rc && !takes_no_part(c, root)) rc = check_data(c, call, buf, count, type, &l);
    if (rc) return rc;
    size_t bytes = (size_t)count * (size_t)l.size;
    /* whether shared memory takes it depends on the bytes alone, which every rank
     * knows, not on this rank's type: a non-contiguous one goes packed */
    if (!nb && !c->inter && tw_coll_tuned_shm(TW_COLL_KIND_BCAST, c->size, bytes)) {
        int am_root = is_root(c, root);
        flat_t f;
        if (flat_begin(&f, buf, count, type, &l, am_root)) return shm_give_up(c, call);
        int done = tw_coll_shm_bcast(c, f.at, bytes, root, &rc);
        flat_end(&f, done && !rc && !am_root, count);
        if (done || rc) return shm_end(c, call, rc);
    }
    tw_sched_t stack, *s = begin(c, req, nb, &stack);
    /* a non-blocking call holds what its steps name: the program may free it */
    tw_sched_hold_type(s, type);
    int lines = persistent_on_lines(s, nb, TW_COLL_KIND_BCAST, TW_COLL_SHM_BCAST, root, NULL, buf,
                                    count, type, &l, MPI_OP_NULL);
    if (s && !lines && !takes_no_part(c, root)) {
        /* in bytes: ranks may describe the same bytes with different types, and the
         * algorithm and its blocks must be the same everywhere */
        int am_root = is_root(c, root);
        segmented_t g = {.kind = SEG_BCAST, .root = root, .takes = 1};
        g.out.buf = buf;
        g.load_out = am_root;
        g.unpack_out = !am_root;
        g.red.item = 1;
        segmented_run(s, &g, count, type, &l);
    }
    return end(call, c, s, req, nb);
}

/* The reductions' shared checks: the data, the op, MPI_IN_PLACE as the send buffer
 * only where in_place_ok, and no aliasing. The send buffer is not significant at an
 * intercommunicator's root, which only receives. */
static int check_reduction(tw_mpi_comm_t *c, const char *call, const void *sendbuf,
                           const void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                           int in_place_ok, int send_significant, int recv_significant,
                           tw_mpi_type_layout_t *l) {
    int in_place = sendbuf == MPI_IN_PLACE;
    int rc = check_not_in_place(c, call, sendbuf);
    if (rc) return rc;
    if (in_place && !in_place_ok)
        return tw_mpi_error(c, call, MPI_ERR_BUFFER, "MPI_IN_PLACE where it is not allowed");
    if (send_significant) rc = check_data(c, call, in_place ? recvbuf : sendbuf, count, type, l);
    if (!rc && recv_significant) rc = check_data(c, call, recvbuf, count, type, l);
    if (!rc) rc = check_op(c, call, op, type);
    if (!rc && recv_significant && send_significant)
        rc = check_alias(c, call, sendbuf, recvbuf, (size_t)count * (size_t)l->size);
    return rc;
}

int tw_coll_call_reduce(const char *call, const void *sendbuf, void *recvbuf, MPI_Count count,
                        MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request *req,
                        int nb) {
    tw_mpi_comm_t *c;
    tw_mpi_type_layout_t l;
    int rc = check_comm(call, comm, nb, req, &c);
    if (!rc) rc = check_root(c, call, root);
    if (rc) return rc;
    int am_root = is_root(c, root), in_place = am_root && sendbuf == MPI_IN_PLACE;
    if (!takes_no_part(c, root))
        rc = check_reduction(c, call, sendbuf, recvbuf, count, type, op, am_root,
                             !(c->inter && am_root), am_root, &l);
    if (rc) return rc;
    size_t bytes = (size_t)count * (size_t)l.size;
    if (!nb && !c->inter && count && tw_coll_tuned_shm(TW_COLL_KIND_REDUCE, c->size, bytes)) {
        flat_t fi, fo;
        flat_none(&fi);
        flat_none(&fo);
        tw_coll_red_t red = red_of(op, type, &l);
        int bad = am_root && flat_begin(&fo, recvbuf, count, type, &l, in_place);
        if (!bad && !in_place) bad = flat_begin(&fi, sendbuf, count, type, &l, 1);
        int done = !bad && tw_coll_shm_reduce(c, in_place ? fo.at : fi.at, fo.at, (size_t)count,
                                              &red, root, &rc);
        flat_end(&fi, 0, 0);
        flat_end(&fo, done && !rc, count);
        if (bad) return shm_give_up(c, call);
        if (done || rc) return shm_end(c, call, rc);
    }
    tw_sched_t stack, *s = begin(c, req, nb, &stack);
    tw_sched_hold_type(s, type);
    tw_sched_hold_op(s, op);
    int lines = persistent_on_lines(s, nb, TW_COLL_KIND_REDUCE, TW_COLL_SHM_REDUCE, root,
                                    in_place ? NULL : sendbuf, recvbuf, count, type, &l, op);
    if (s && count && !lines && !takes_no_part(c, root)) {
        /* an intercommunicator's root only receives */
        segmented_t g = {.kind = SEG_REDUCE, .root = root, .gives = !(c->inter && am_root)};
        g.takes = g.unpack_out = am_root;
        g.in_place = g.load_out = in_place;
        g.in.buf = (void *)(uintptr_t)sendbuf;
        g.out.buf = recvbuf;
        g.red = segment_red(op, type, &l);
        segmented_run(s, &g, count, type, &l);
    }
    return end(call, c, s, req, nb);
}

int tw_coll_call_reduce_everyone(const char *call, tw_coll_everyone_t kind, const void *sendbuf,
                                 void *recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm, MPI_Request *req, int nb) {
    tw_mpi_comm_t *c;
    tw_mpi_type_layout_t l;
    int rc = check_comm(call, comm, nb, req, &c);
    if (!rc && c->inter && kind != TW_COLL_ALLREDUCE) /* scans are not defined there */
        return tw_mpi_error(c, call, MPI_ERR_COMM, "a scan on an intercommunicator");
    if (!rc) rc = check_reduction(c, call, sendbuf, recvbuf, count, type, op, 1, 1, 1, &l);
    if (rc) return rc;
    size_t bytes = (size_t)count * (size_t)l.size;
    if (!nb && !c->inter && count &&
        tw_coll_tuned_shm(kind == TW_COLL_ALLREDUCE ? TW_COLL_KIND_ALLREDUCE : TW_COLL_KIND_SCAN,
                          c->size, bytes)) {
        int in_place = sendbuf == MPI_IN_PLACE;
        flat_t fi, fo;
        flat_none(&fi);
        tw_coll_red_t red = red_of(op, type, &l);
        int bad = flat_begin(&fo, recvbuf, count, type, &l, in_place);
        if (!bad && !in_place) bad = flat_begin(&fi, sendbuf, count, type, &l, 1);
        const void *in = in_place ? fo.at : fi.at;
        int done = !bad && (kind == TW_COLL_ALLREDUCE
                                ? tw_coll_shm_reduce(c, in, fo.at, (size_t)count, &red, -1, &rc)
                                : tw_coll_shm_scan(c, in, fo.at, (size_t)count, &red,
                                                   kind == TW_COLL_EXSCAN, &rc));
        flat_end(&fi, 0, 0);
        /* rank 0's exscan result: none, the buffer stays as it was */
        flat_end(&fo, done && !rc && (kind != TW_COLL_EXSCAN || c->rank), count);
        if (bad) return shm_give_up(c, call);
        if (done || rc) return shm_end(c, call, rc);
    }
    tw_sched_t stack, *s = begin(c, req, nb, &stack);
    tw_sched_hold_type(s, type);
    tw_sched_hold_op(s, op);
    int lines =
        kind == TW_COLL_ALLREDUCE &&
        persistent_on_lines(s, nb, TW_COLL_KIND_ALLREDUCE, TW_COLL_SHM_ALLREDUCE, 0,
                            sendbuf == MPI_IN_PLACE ? NULL : sendbuf, recvbuf, count, type, &l, op);
    if (s && count && !lines) {
        static const seg_kind_t kinds[] = {SEG_ALLREDUCE, SEG_SCAN, SEG_EXSCAN};
        segmented_t g = {.kind = kinds[kind], .gives = 1, .takes = 1};
        g.in_place = g.load_out = sendbuf == MPI_IN_PLACE;
        g.unpack_out = kind != TW_COLL_EXSCAN || c->rank; /* rank 0's exscan result: none */
        g.in.buf = (void *)(uintptr_t)sendbuf;
        g.out.buf = recvbuf;
        g.red = segment_red(op, type, &l);
        segmented_run(s, &g, count, type, &l);
    }
    return end(call, c, s, req, nb);
}

/* A large non-contiguous reduce-scatter as p reductions, one after the other: block
 * i of every rank's input reduced to rank i, each segmented, so no more than a few
 * segments are staged at a time. In place, rank i's block is read from where it is
 * and its result written to the front of the buffer: block i's result only lands
 * over input of blocks up to i, whose reductions have read it already. */
typedef struct rs_blocks {
    segmented_t g;       /* what every block's reduction shares */
    tw_mpi_vec_t counts; /* NULL: every block is block items */
    MPI_Count block;
    int next;
    size_t first; /* packed bytes of the blocks before the next */
    tw_mpi_type_layout_t l;
    tw_sched_mark_t mark; /* the scratch of one block's reduction starts here */
} rs_blocks_t;

static void next_block(tw_sched_t *s, void *arg) {
    rs_blocks_t *b = arg;
    tw_sched_release(s, b->mark); /* the last block's, whose steps are done */
    int p = s->comm->size;
    MPI_Count count = 0;
    while (b->next < p && !(count = b->counts.at ? tw_mpi_vec_get(b->counts, b->next) : b->block))
        b->next++;
    if (b->next == p) return;
    int i = b->next++;
    segmented_t g = b->g;
    g.root = i;
    g.takes = g.unpack_out = s->comm->rank == i;
    g.in.base = b->first;
    b->first += (size_t)count * (size_t)b->l.size;
    g.then = next_block;
    g.then_arg = b;
    segmented_run(s, &g, count, g.in.type, &b->l);
}

static void reduce_scatter_blocks(tw_sched_t *s, const void *sendbuf, void *recvbuf,
                                  tw_mpi_vec_t recvcounts, MPI_Count block, MPI_Count total,
                                  MPI_Datatype type, MPI_Op op, const tw_mpi_type_layout_t *l) {
    int p = s->comm->size;
    MPI_Count *counts = NULL;
    rs_blocks_t *b = tw_sched_scratch(s, sizeof *b);
    /* the program's array may be gone before a non-blocking call's last block */
    if (recvcounts.at && (counts = tw_sched_scratch(s, (size_t)p * sizeof *counts)))
        for (int i = 0; i < p; i++) counts[i] = tw_mpi_vec_get(recvcounts, i);
    if (!b || (recvcounts.at && !counts)) return;
    *b = (rs_blocks_t){.counts = tw_mpi_vec_count(counts), .block = block, .l = *l};
    b->g = (segmented_t){.kind = SEG_REDUCE, .gives = 1, .red = segment_red(op, type, l)};
    b->g.most = REDUCE_SCATTER_SEGMENT;
    b->g.in.buf = sendbuf == MPI_IN_PLACE ? recvbuf : (void *)(uintptr_t)sendbuf;
    b->g.in.count = total;
    b->g.in.type = type;
    b->g.out.buf = recvbuf;
    b->g.out.count = recvcounts.at ? tw_mpi_vec_get(recvcounts, s->comm->rank) : block;
    b->mark = tw_sched_mark(s);
    tw_sched_snapshot(s, b, sizeof *b);
    next_block(s, b);
}

/* recvcounts NULL: every block is block items (MPI_Reduce_scatter_block). */
int tw_coll_call_reduce_scatter(const char *call, const void *sendbuf, void *recvbuf,
                                tw_mpi_vec_t recvcounts, MPI_Count block, MPI_Datatype type,
                                MPI_Op op, MPI_Comm comm, MPI_Request *req, int nb) {
    tw_mpi_comm_t *c;
    tw_mpi_type_layout_t l;
    int rc = check_comm(call, comm, nb, req, &c);
    if (rc) return rc;
    if (!recvcounts.at && block < 0) return tw_mpi_error(c, call, MPI_ERR_COUNT, "negative count");
    /* the blocks are the local group's (on an intercommunicator, of the other group's sum) */
    int p = tw_mpi_comm_local_size(c), in_place = sendbuf == MPI_IN_PLACE;
    if (recvcounts.at && (rc = check_counts(c, call, p, recvcounts, tw_mpi_vec_int(NULL), 0)))
        return rc;
    if ((rc = check_not_in_place(c, call, sendbuf))) return rc;
    MPI_Count total = 0;
    for (int i = 0; i < p; i++) {
        MPI_Count n = recvcounts.at ? tw_mpi_vec_get(recvcounts, i) : block;
        if (__builtin_add_overflow(total, n, &total))
            return tw_mpi_error(c, call, MPI_ERR_COUNT, "too many items in all");
    }
    MPI_Count mine = recvcounts.at ? tw_mpi_vec_get(recvcounts, c->rank) : block;
    rc = check_data(c, call, in_place ? recvbuf : sendbuf, total, type, &l);
    if (!rc) rc = check_data(c, call, recvbuf, mine, type, &l);
    if (!rc) rc = check_op(c, call, op, type);
    if (!rc) rc = check_alias(c, call, sendbuf, recvbuf, (size_t)total * (size_t)l.size);
    if (rc) return rc;
    /* equal blocks: every rank knows the counts, so all take the same way */
    int equal = !c->inter;
    for (int i = 0; equal && recvcounts.at && i < p; i++)
        equal = tw_mpi_vec_get(recvcounts, i) == mine;
    if (!nb && equal && total &&
        tw_coll_tuned_shm(TW_COLL_KIND_REDUCE_SCATTER, p, (size_t)mine * (size_t)l.size)) {
        flat_t fi, fo;
        flat_none(&fo);
        tw_coll_red_t red = red_of(op, type, &l);
        /* in place, the input is all of recvbuf and the result its first block */
        int bad = flat_begin(&fi, in_place ? recvbuf : sendbuf, total, type, &l, 1);
        if (!bad && !in_place) bad = flat_begin(&fo, recvbuf, mine, type, &l, 0);
        int done = !bad && tw_coll_shm_reduce_scatter(c, fi.at, in_place ? fi.at : fo.at,
                                                      (size_t)mine, &red, &rc);
        flat_end(&fi, in_place && done && !rc, mine);
        flat_end(&fo, done && !rc, mine);
        if (bad) return shm_give_up(c, call);
        if (done || rc) return shm_end(c, call, rc);
    }
    /* unequal blocks of a short vector (some ranks may have none): reduced whole as an
     * allreduce through shared memory, each rank keeping its block; the counts are the
     * same at every rank, so all take the same way (8 B on 4 ranks of 2 cores: 10.2 us
     * by messages against Intel MPI's 3.7) */
    size_t whole_bytes = (size_t)total * (size_t)l.size;
    if (!nb && !equal && !c->inter && total && whole_bytes <= REDUCE_SCATTER_WHOLE &&
        tw_coll_tuned_shm(TW_COLL_KIND_ALLREDUCE, p, whole_bytes)) {
        _Alignas(max_align_t) unsigned char whole[REDUCE_SCATTER_WHOLE];
        size_t before = 0; /* items of the blocks ahead of this rank's */
        for (int i = 0; i < c->rank; i++) before += (size_t)tw_mpi_vec_get(recvcounts, i);
        flat_t fi, fo;
        flat_none(&fo);
        tw_coll_red_t red = red_of(op, type, &l);
        int bad = flat_begin(&fi, in_place ? recvbuf : sendbuf, total, type, &l, 1);
        if (!bad && !in_place) bad = flat_begin(&fo, recvbuf, mine, type, &l, 0);
        int done = !bad && tw_coll_shm_reduce(c, fi.at, whole, (size_t)total, &red, -1, &rc);
        if (done && !rc && mine)
            memcpy(in_place ? fi.at : fo.at, whole + before * (size_t)l.size,
                   (size_t)mine * (size_t)l.size);
        flat_end(&fi, in_place && done && !rc, mine);
        flat_end(&fo, done && !rc, mine);
        if (bad) return shm_give_up(c, call);
        if (done || rc) return shm_end(c, call, rc);
    }
    tw_sched_t stack, *s = begin(c, req, nb, &stack);
    tw_sched_hold_type(s, type);
    tw_sched_hold_op(s, op);
    /* the datatype is the same on every rank (MPI's rule for reductions), so all
     * take the same way */
    if (s && total && c->inter) {
        /* in segments of the whole vector, each reduced at the leaders and scattered
         * over the other group: the groups agree on the segments by the bytes */
        size_t *blocks = tw_sched_scratch(s, (size_t)p * sizeof *blocks), own = 0;
        segmented_t g = {.kind = SEG_INTER_REDUCE_SCATTER, .gives = 1, .takes = 1};
        g.most = REDUCE_SCATTER_SEGMENT;
        for (int i = 0; blocks && i < p; i++) {
            blocks[i] =
                (size_t)(recvcounts.at ? tw_mpi_vec_get(recvcounts, i) : block) * (size_t)l.size;
            own += i < c->rank ? blocks[i] : 0;
        }
        g.in.buf = (void *)(uintptr_t)sendbuf;
        g.out.buf = recvbuf;
        g.out.count = mine;
        g.red = segment_red(op, type, &l);
        g.blocks = blocks;
        g.own = own;
        if (blocks) segmented_run(s, &g, total, type, &l);
    } else if (s && total && !l.contiguous && (size_t)total * (size_t)l.size > TW_COLL_SEGMENT) {
        reduce_scatter_blocks(s, sendbuf, recvbuf, recvcounts, block, total, type, op, &l);
    } else if (s && total) {
        size_t *counts = tw_sched_scratch(s, (size_t)p * sizeof *counts);
        out_t o;
        /* in place, the input is all of recvbuf and the result its first block */
        void *out = packed_out(s, recvbuf, in_place ? total : mine, type, &l, in_place, &o);
        o.count = mine;
        const void *in = in_place ? out : packed_in(s, sendbuf, total, type, &l);
        tw_coll_red_t red = red_of(op, type, &l);
        if (counts && in && out) {
            for (int i = 0; i < p; i++)
                counts[i] = (size_t)(recvcounts.at ? tw_mpi_vec_get(recvcounts, i) : block);
            tw_coll_reduce_scatter(s, in, out, counts, &red);
        }
        unpack_out(s, &o);
    }
    return end(call, c, s, req, nb);
}

/* Uniform blocks as a v call: count items at i * count extents, for each rank. */
static void uniform(tw_sched_t *s, MPI_Count count, tw_mpi_vec_t *counts, tw_mpi_vec_t *displs) {
    int p = s->comm->size;
    MPI_Count *a = tw_sched_scratch(s, 2 * (size_t)p * sizeof *a);
    if (!a) return;
    for (int i = 0; i < p; i++) {
        a[i] = count;
        a[p + i] = i * count;
    }
    *counts = tw_mpi_vec_count(a);
    *displs = tw_mpi_vec_count(a + p);
}

/* Gather(v) and scatter(v) by the direct algorithms: one is this rank's single block
 * (of layout l; own_block 0: none, or in place at the root), many the root's p
 * blocks (NULL elsewhere). Large non-contiguous blocks go typed. */
static void rooted_direct(tw_sched_t *s, int gather, const void *one, MPI_Count one_count,
                          MPI_Datatype one_type, const tw_mpi_type_layout_t *l, int own_block,
                          const vspec_t *many, int in_place, int root) {
    tw_mpi_comm_t *c = s->comm;
    out_t o = {NULL, NULL, 0, 0};
    view_t w = {NULL, NULL, NULL, 0, NULL};
    if (many && view_make(s, many, gather ? (in_place ? root : -1) : -2, 1, &w)) return;
    tw_sched_block_t *b =
        own_block ? one_block(s, one, one_count, one_type, l, gather, 1, &o) : NULL;
    if (s->error || (own_block && !b)) return;
    if (gather) {
        if (c->inter)
            tw_coll_inter_gatherv(s, b, w.blocks, root);
        else
            tw_coll_gatherv(s, b, w.blocks, root);
        if (many) view_unpack(s, many, &w);
    } else {
        if (c->inter)
            tw_coll_inter_scatterv(s, w.blocks, b, root);
        else
            tw_coll_scatterv(s, w.blocks, b, root);
        unpack_out(s, &o);
    }
}

/* Gather and scatter: the root's side is p blocks of count items of its type. */
int tw_coll_call_rooted(const char *call, int gather, const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *req, int nb) {
    tw_mpi_comm_t *c;
    tw_mpi_type_layout_t sl = {0}, rl = {0};
    int rc = check_comm(call, comm, nb, req, &c);
    if (!rc) rc = check_root(c, call, root);
    if (rc) return rc;
    int p = c->size, am_root = is_root(c, root);
    /* the root's own block may stay in place: its send buffer (gather) or receive buffer
     * (scatter) is then MPI_IN_PLACE; on an intercommunicator, the root's group has none */
    const void *own_in = gather ? sendbuf : recvbuf;
    int in_place = am_root && own_in == MPI_IN_PLACE && !c->inter;
    int own_block = !in_place && !(c->inter && root < 0);
    if (gather) {
        if (own_block) rc = check_data(c, call, sendbuf, sendcount, sendtype, &sl);
        if (!rc && am_root) rc = check_data(c, call, recvbuf, recvcount, recvtype, &rl);
    } else {
        if (am_root) rc = check_data(c, call, sendbuf, sendcount, sendtype, &sl);
        if (!rc && own_block) rc = check_data(c, call, recvbuf, recvcount, recvtype, &rl);
    }
    if (!rc && am_root && own_block)
        rc = gather ? check_alias_block(c, call, sendbuf, recvbuf, (MPI_Count)root * recvcount,
                                        rl.extent, (size_t)recvcount * rl.size)
                    : check_alias_block(c, call, recvbuf, sendbuf, (MPI_Count)root * sendcount,
                                        sl.extent, (size_t)sendcount * sl.size);
    if (rc) return rc;
    /* the bytes of one block, which every rank knows */
    size_t b = gather == am_root ? (size_t)recvcount * rl.size : (size_t)sendcount * sl.size;
    if (!nb && !c->inter &&
        tw_coll_tuned_shm(gather ? TW_COLL_KIND_GATHER : TW_COLL_KIND_SCATTER, p, b)) {
        flat_t one, many;
        flat_none(&one);
        flat_none(&many);
        int bad = 0, done;
        if (gather) {
            if (am_root)
                bad = flat_begin(&many, recvbuf, (MPI_Count)p * recvcount, recvtype, &rl, in_place);
            if (!bad && own_block) bad = flat_begin(&one, sendbuf, sendcount, sendtype, &sl, 1);
            done = !bad && tw_coll_shm_gather(c, one.at, many.at, b, root, &rc);
            flat_end(&many, done && !rc, (MPI_Count)p * recvcount);
            flat_end(&one, 0, 0);
        } else {
            if (am_root)
                bad = flat_begin(&many, sendbuf, (MPI_Count)p * sendcount, sendtype, &sl, 1);
            if (!bad && own_block) bad = flat_begin(&one, recvbuf, recvcount, recvtype, &rl, 0);
            done = !bad && tw_coll_shm_scatter(c, many.at, one.at, b, root, &rc);
            flat_end(&one, done && !rc, recvcount);
            flat_end(&many, 0, 0);
        }
        if (bad) return shm_give_up(c, call);
        if (done || rc) return shm_end(c, call, rc);
    }
    tw_sched_t stack, *s = begin(c, req, nb, &stack);
    tw_sched_hold_type(s, sendtype);
    tw_sched_hold_type(s, recvtype);
    if (s && (c->inter || tw_coll_gather_direct(s, b))) {
        tw_mpi_vec_t counts = {NULL, 0}, displs = {NULL, 0};
        MPI_Count many_count = gather ? recvcount : sendcount;
        MPI_Datatype many_type = gather ? recvtype : sendtype;
        if (am_root) uniform(s, many_count, &counts, &displs);
        vspec_t many = {gather ? recvbuf : (void *)(uintptr_t)sendbuf, counts, displs, &many_type,
                        0};
        if (!s->error)
            rooted_direct(s, gather, gather ? sendbuf : recvbuf, gather ? sendcount : recvcount,
                          gather ? sendtype : recvtype, gather ? &sl : &rl, own_block,
                          am_root ? &many : NULL, in_place, root);
    } else if (s) { /* a binomial tree: small blocks */
        out_t o = {NULL, NULL, 0, 0};
        if (gather) {
            void *out = am_root ? packed_out(s, recvbuf, (MPI_Count)p * recvcount, recvtype, &rl,
                                             in_place, &o)
                                : NULL;
            const void *in = own_block ? packed_in(s, sendbuf, sendcount, sendtype, &sl) : NULL;
            if (!s->error) tw_coll_gather(s, in, out, b, root);
        } else {
            const void *in =
                am_root ? packed_in(s, sendbuf, (MPI_Count)p * sendcount, sendtype, &sl) : NULL;
            void *out = own_block ? packed_out(s, recvbuf, recvcount, recvtype, &rl, 0, &o) : NULL;
            if (!s->error) tw_coll_scatter(s, in, out, b, root);
        }
        unpack_out(s, &o);
    }
    return end(call, c, s, req, nb);
}

int tw_coll_call_rooted_v(const char *call, int gather, const void *sendbuf,
                          tw_mpi_vec_t sendcounts, MPI_Count sendcount, tw_mpi_vec_t displs,
                          MPI_Datatype sendtype, void *recvbuf, tw_mpi_vec_t recvcounts,
                          MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                          MPI_Request *req, int nb) {
    tw_mpi_comm_t *c;
    tw_mpi_type_layout_t l = {0}, vl = {0};
    int rc = check_comm(call, comm, nb, req, &c);
    if (!rc) rc = check_root(c, call, root);
    if (rc) return rc;
    int am_root = is_root(c, root);
    const void *own_in = gather ? sendbuf : recvbuf;
    int in_place = am_root && own_in == MPI_IN_PLACE && !c->inter;
    int own_block = !in_place && !(c->inter && root < 0); /* as in tw_coll_call_rooted() */
    /* the single block of this rank, and the root's many */
    const void *one = gather ? sendbuf : recvbuf;
    MPI_Count one_count = gather ? sendcount : recvcount;
    MPI_Datatype one_type = gather ? sendtype : recvtype;
    void *many = gather ? recvbuf : (void *)(uintptr_t)sendbuf;
    tw_mpi_vec_t counts = gather ? recvcounts : sendcounts;
    MPI_Datatype many_type = gather ? recvtype : sendtype;
    if (own_block) rc = check_data(c, call, one, one_count, one_type, &l);
    if (!rc && am_root) rc = check_counts(c, call, c->size, counts, displs, 1);
    if (!rc && am_root && tw_mpi_type_layout(many_type, &vl))
        rc = tw_mpi_error(c, call, MPI_ERR_TYPE, NULL);
    if (!rc && am_root && own_block)
        rc = check_alias_block(c, call, one, many, tw_mpi_vec_get(displs, root), vl.extent,
                               (size_t)tw_mpi_vec_get(counts, root) * (size_t)vl.size);
    if (rc) return rc;
    tw_sched_t stack, *s = begin(c, req, nb, &stack);
    tw_sched_hold_type(s, sendtype);
    tw_sched_hold_type(s, recvtype);
    if (s) {
        vspec_t v = {many, counts, displs, &many_type, 0};
        rooted_direct(s, gather, one, one_count, one_type, &l, own_block, am_root ? &v : NULL,
                      in_place, root);
    }
    return end(call, c, s, req, nb);
}

/* recvcounts NULL: every block is recvcount items (MPI_Allgather). */
int tw_coll_call_allgather(const char *call, const void *sendbuf, MPI_Count sendcount,
                           MPI_Datatype sendtype, void *recvbuf, tw_mpi_vec_t recvcounts,
                           MPI_Count recvcount, tw_mpi_vec_t displs, MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Request *req, int nb) {
    tw_mpi_comm_t *c;
    tw_mpi_type_layout_t sl = {0}, rl = {0};
    int rc = check_comm(call, comm, nb, req, &c);
    if (!rc) rc = check_not_in_place(c, call, sendbuf);
    if (rc) return rc;
    int p = c->size, in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place) rc = check_data(c, call, sendbuf, sendcount, sendtype, &sl);
    if (!rc && recvcounts.at) rc = check_counts(c, call, c->size, recvcounts, displs, 1);
    if (!rc) rc = check_data(c, call, recvbuf, recvcounts.at ? 0 : recvcount, recvtype, &rl);
    if (!rc && !in_place && !c->inter)
        rc = check_alias_block(c, call, sendbuf, recvbuf,
                               recvcounts.at ? tw_mpi_vec_get(displs, c->rank)
                                             : (MPI_Count)c->rank * recvcount,
                               rl.extent, (size_t)sendcount * (size_t)sl.size);
    else if (!rc && !in_place)
        rc = check_alias(c, call, sendbuf, recvbuf, (size_t)sendcount * (size_t)sl.size);
    if (rc) return rc;
    size_t b = (size_t)recvcount * rl.size;
    if (!nb && !recvcounts.at && !c->inter && tw_coll_tuned_shm(TW_COLL_KIND_ALLGATHER, p, b)) {
        flat_t one, all;
        flat_none(&one);
        int bad = flat_begin(&all, recvbuf, (MPI_Count)p * recvcount, recvtype, &rl, in_place);
        if (!bad && !in_place) bad = flat_begin(&one, sendbuf, sendcount, sendtype, &sl, 1);
        int done = !bad && tw_coll_shm_gather(c, one.at, all.at, b, -1, &rc);
        flat_end(&all, done && !rc, (MPI_Count)p * recvcount);
        flat_end(&one, 0, 0);
        if (bad) return shm_give_up(c, call);
        if (done || rc) return shm_end(c, call, rc);
    }
    tw_sched_t stack, *s = begin(c, req, nb, &stack);
    tw_sched_hold_type(s, sendtype);
    tw_sched_hold_type(s, recvtype);
    if (s && !recvcounts.at && !c->inter && !tw_coll_allgather_direct(s, b)) {
        /* Bruck: small blocks, packed */
        const void *in = in_place ? NULL : packed_in(s, sendbuf, sendcount, sendtype, &sl);
        out_t o;
        void *out = packed_out(s, recvbuf, (MPI_Count)p * recvcount, recvtype, &rl, in_place, &o);
        if (!s->error) tw_coll_allgather(s, in, out, b);
        unpack_out(s, &o);
    } else if (s) { /* the ring, or straight to each remote rank on an intercommunicator */
        if (!recvcounts.at) uniform(s, recvcount, &recvcounts, &displs);
        vspec_t v = {recvbuf, recvcounts, displs, &recvtype, 0};
        view_t w;
        out_t o;
        tw_sched_block_t *in =
            in_place ? NULL : one_block(s, sendbuf, sendcount, sendtype, &sl, 1, 1, &o);
        int ready = !s->error && !view_make(s, &v, in_place ? c->rank : -1, 1, &w);
        if (ready && c->inter)
            tw_coll_inter_allgatherv(s, in, w.blocks);
        else if (ready)
            tw_coll_allgatherv(s, in, w.blocks);
        if (ready) view_unpack(s, &v, &w);
    }
    return end(call, c, s, req, nb);
}

/* An all-to-all in place: recvbuf's blocks are sent and received over. Small, a
 * copy of them is sent from; beyond SWAP_PIECE packed bytes in all (contiguous:
 * TW_COLL_SEGMENT, or a block beyond SWAP_PIECE), a pairwise exchange (round k
 * pairs rank r with k - r, both ends knowing the bytes between them), each block
 * swapped with its peer in pieces of at most SWAP_PIECE bytes: one received into a
 * copy while the block's own piece is sent (packed into a second copy when it is
 * not contiguous), then written over that piece. A block of one piece moves as one
 * message each way, as in the linear and pairwise algorithms, so ranks on either
 * side of the limit still match. */
enum { SWAP_PIECE = 1 << 20 };

static int swaps(const vspec_t *v, int p) {
    size_t total = 0, most = 0;
    int contiguous = 1;
    for (int i = 0; i < p; i++) {
        tw_mpi_type_layout_t l;
        tw_mpi_type_layout_held(type_of(v, i), &l);
        size_t b = (size_t)tw_mpi_vec_get(v->counts, i) * (size_t)l.size;
        contiguous &= l.contiguous;
        total += b;
        most = b > most ? b : most;
    }
    return most > SWAP_PIECE || total > (contiguous ? TW_COLL_SEGMENT : SWAP_PIECE);
}

typedef struct swap {
    coll_buf_t *blocks; /* rank i's block of recvbuf, contiguous or staged */
    size_t *bytes;
    coll_buf_t give, take; /* the block of this round: its piece sent, and received */
    int k, started;
    size_t first; /* the next piece of the round's block */
    char *sent, *received;
    tw_sched_mark_t mark; /* a piece's scratch starts here */
} swap_t;

static void next_piece(tw_sched_t *s, void *arg) {
    swap_t *x = arg;
    int r = s->comm->rank, p = s->comm->size;
    tw_sched_release(s, x->mark); /* the last piece's steps are done */
    while (x->k < p) {
        int peer = ((x->k - r) % p + p) % p;
        size_t b = x->bytes[peer];
        if (peer == r || (x->started && x->first >= b)) { /* the next round */
            x->k++;
            x->first = 0;
            x->started = 0;
            continue;
        }
        if (!x->started) {
            x->give = x->take = x->blocks[peer];
            if (x->give.staged) x->give.at = x->sent;
            x->take.staged = 1;
            x->take.at = x->received;
        }
        x->started = 1;
        size_t len = b - x->first < SWAP_PIECE ? b - x->first : SWAP_PIECE;
        tw_sched_recv(s, x->received, len, peer);
        tw_sched_send(s, buf_bytes(s, &x->give, x->first, len, 1), len, peer);
        add_move(s, &x->take, x->first, len, 1); /* after a fence */
        x->first += len;
        tw_sched_call(s, next_piece, x);
        return;
    }
}

static void alltoall_swap(tw_sched_t *s, const vspec_t *v) {
    int p = s->comm->size;
    swap_t *x = tw_sched_scratch(s, sizeof *x);
    coll_buf_t *blocks = tw_sched_scratch(s, (size_t)p * sizeof *blocks);
    size_t *bytes = tw_sched_scratch(s, (size_t)p * sizeof *bytes);
    char *sent = tw_sched_scratch(s, SWAP_PIECE), *received = tw_sched_scratch(s, SWAP_PIECE);
    if (!x || !blocks || !bytes || !sent || !received) return;
    *x = (swap_t){.blocks = blocks, .bytes = bytes, .sent = sent, .received = received};
    for (int i = 0; i < p; i++) {
        tw_mpi_type_layout_t l;
        tw_mpi_type_layout_held(type_of(v, i), &l);
        MPI_Aint at = (MPI_Aint)tw_mpi_vec_get(v->displs, i) * (v->per_rank ? 1 : l.extent);
        char *buf = (char *)v->buf + at;
        blocks[i] = (coll_buf_t){
            buf, tw_mpi_vec_get(v->counts, i), type_of(v, i), 0, !l.contiguous, buf + l.lb};
        bytes[i] = (size_t)tw_mpi_vec_get(v->counts, i) * (size_t)l.size;
    }
    x->mark = tw_sched_mark(s);
    tw_sched_snapshot(s, x, sizeof *x);
    next_piece(s, x);
}

/* Alltoall(v,w); vform 0: uniform blocks of sendcount and recvcount items. types has
 * one type per rank for the w form (displacements then in bytes). */
int tw_coll_call_alltoall(const char *call, int vform, const void *sendbuf, tw_mpi_vec_t sendcounts,
                          MPI_Count sendcount, tw_mpi_vec_t sdispls, const MPI_Datatype *sendtypes,
                          void *recvbuf, tw_mpi_vec_t recvcounts, MPI_Count recvcount,
                          tw_mpi_vec_t rdispls, const MPI_Datatype *recvtypes, int per_rank,
                          MPI_Comm comm, MPI_Request *req, int nb) {
    tw_mpi_comm_t *c;
    tw_mpi_type_layout_t l;
    int rc = check_comm(call, comm, nb, req, &c);
    if (!rc) rc = check_not_in_place(c, call, sendbuf);
    if (rc) return rc;
    int p = c->size, in_place = sendbuf == MPI_IN_PLACE;
    if (vform && !in_place) rc = check_counts(c, call, c->size, sendcounts, sdispls, 1);
    if (!rc && vform) rc = check_counts(c, call, c->size, recvcounts, rdispls, 1);
    if (!rc && per_rank && (!recvtypes || (!in_place && !sendtypes)))
        rc = tw_mpi_error(c, call, MPI_ERR_ARG, "types are NULL");
    /* every rank's block (a NULL buffer holding data is refused); the buffers alias
     * only when both sides hold data */
    size_t sent = 0, received = 0;
    for (int i = 0; !rc && i < (vform ? p : 1); i++) {
        int t = per_rank ? i : 0;
        MPI_Count sn = vform && !in_place ? tw_mpi_vec_get(sendcounts, i) : sendcount;
        MPI_Count rn = vform ? tw_mpi_vec_get(recvcounts, i) : recvcount;
        if (!in_place) rc = check_data(c, call, sendbuf, sn, sendtypes[t], &l);
        if (!in_place) sent += (size_t)sn * (size_t)l.size;
        if (!rc) rc = check_data(c, call, recvbuf, rn, recvtypes[t], &l);
        received += (size_t)rn * (size_t)l.size;
    }
    if (!rc && !in_place && sendbuf == recvbuf && sendbuf && sent && received)
        rc = tw_mpi_error(c, call, MPI_ERR_BUFFER, "send and receive buffers are the same");
    if (rc) return rc;
    size_t b = (size_t)recvcount * (size_t)l.size; /* a block, when !vform */
    if (!nb && !vform && !c->inter && recvcount && tw_coll_tuned_shm(TW_COLL_KIND_ALLTOALL, p, b)) {
        tw_mpi_type_layout_t sl;
        flat_t fi, fo;
        flat_none(&fi);
        MPI_Count all = (MPI_Count)p * recvcount;
        int bad = flat_begin(&fo, recvbuf, all, recvtypes[0], &l, in_place);
        if (!bad && !in_place) {
            tw_mpi_type_layout(sendtypes[0], &sl);
            bad = flat_begin(&fi, sendbuf, (MPI_Count)p * sendcount, sendtypes[0], &sl, 1);
        }
        int done = !bad && tw_coll_shm_alltoall(c, in_place ? fo.at : fi.at, fo.at, b, &rc);
        flat_end(&fi, 0, 0);
        flat_end(&fo, done && !rc, all);
        if (bad) return shm_give_up(c, call);
        if (done || rc) return shm_end(c, call, rc);
    }
    tw_sched_t stack, *s = begin(c, req, nb, &stack);
    for (int i = 0; i < (per_rank ? p : 1); i++) {
        if (!in_place) tw_sched_hold_type(s, sendtypes[i]);
        tw_sched_hold_type(s, recvtypes[i]);
    }
    if (s) {
        if (!vform) {
            uniform(s, recvcount, &recvcounts, &rdispls);
            if (!in_place) uniform(s, sendcount, &sendcounts, &sdispls);
        }
        /* in place, what recvbuf holds now is sent: a packed copy of it is made first */
        int typed_ok = !in_place;
        vspec_t rv = {recvbuf, recvcounts, rdispls, recvtypes, per_rank};
        view_t rw = {NULL, NULL, NULL, 0, NULL}, sw = rw;
        if (in_place && !s->error && swaps(&rv, p)) {
            alltoall_swap(s, &rv);
        } else if (!s->error && !view_make(s, &rv, in_place ? -2 : -1, typed_ok, &rw)) {
            if (in_place) {
                sw = rw;
                size_t span = 0;
                for (int i = 0; i < p; i++)
                    if (rw.offs[i] + rw.bytes[i] > span) span = rw.offs[i] + rw.bytes[i];
                sw.base = tw_sched_scratch(s, span);
                if (sw.base) tw_sched_copy_input(s, rw.base, sw.base, span);
                sw.blocks = sw.base ? tw_coll_blocks(s, sw.base, sw.offs, sw.bytes) : NULL;
            } else {
                vspec_t sv = {(void *)(uintptr_t)sendbuf, sendcounts, sdispls, sendtypes, per_rank};
                view_make(s, &sv, -2, typed_ok, &sw);
            }
            if (!s->error && c->inter)
                tw_coll_inter_alltoallv(s, sw.blocks, rw.blocks);
            else if (!s->error)
                tw_coll_alltoallv(s, sw.blocks, rw.blocks);
            view_unpack(s, &rv, &rw);
        }
    }
    return end(call, c, s, req, nb);
}

/* ---- the bindings ---- */

int MPI_Barrier(MPI_Comm comm) {
    return tw_coll_call_barrier("MPI_Barrier", comm, NULL, 0);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_barrier("MPI_Ibarrier", comm, request, 1);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
    return tw_coll_call_bcast("MPI_Bcast", buffer, count, datatype, root, comm, NULL, 0);
}
int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request) {
    return tw_coll_call_bcast("MPI_Ibcast", buffer, count, datatype, root, comm, request, 1);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
    return tw_coll_call_reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm,
                               NULL, 0);
}
int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm,
                               request, 1);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
    return tw_coll_call_reduce_everyone("MPI_Allreduce", TW_COLL_ALLREDUCE, sendbuf, recvbuf, count,
                                        datatype, op, comm, NULL, 0);
}
int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_reduce_everyone("MPI_Iallreduce", TW_COLL_ALLREDUCE, sendbuf, recvbuf,
                                        count, datatype, op, comm, request, 1);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm) {
    return tw_coll_call_reduce_everyone("MPI_Scan", TW_COLL_SCAN, sendbuf, recvbuf, count, datatype,
                                        op, comm, NULL, 0);
}
int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_reduce_everyone("MPI_Iscan", TW_COLL_SCAN, sendbuf, recvbuf, count,
                                        datatype, op, comm, request, 1);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) {
    return tw_coll_call_reduce_everyone("MPI_Exscan", TW_COLL_EXSCAN, sendbuf, recvbuf, count,
                                        datatype, op, comm, NULL, 0);
}
int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_reduce_everyone("MPI_Iexscan", TW_COLL_EXSCAN, sendbuf, recvbuf, count,
                                        datatype, op, comm, request, 1);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    if (!recvcounts) { /* told apart from the block form by a non-NULL array */
        NEED_INIT("MPI_Reduce_scatter");
        return tw_mpi_error(tw_mpi_comm_get(comm), "MPI_Reduce_scatter", MPI_ERR_ARG,
                            "recvcounts is NULL");
    }
    return tw_coll_call_reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf,
                                       tw_mpi_vec_int(recvcounts), 0, datatype, op, comm, NULL, 0);
}
int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
    if (!recvcounts) {
        NEED_INIT("MPI_Ireduce_scatter");
        return tw_mpi_error(tw_mpi_comm_get(comm), "MPI_Ireduce_scatter", MPI_ERR_ARG,
                            "recvcounts is NULL");
    }
    return tw_coll_call_reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf,
                                       tw_mpi_vec_int(recvcounts), 0, datatype, op, comm, request,
                                       1);
}
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
    return tw_coll_call_reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf,
                                       tw_mpi_vec_int(NULL), recvcount, datatype, op, comm, NULL,
                                       0);
}
int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request) {
    return tw_coll_call_reduce_scatter("MPI_Ireduce_scatter_block", sendbuf, recvbuf,
                                       tw_mpi_vec_int(NULL), recvcount, datatype, op, comm, request,
                                       1);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return tw_coll_call_rooted("MPI_Gather", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, comm, NULL, 0);
}
int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request *request) {
    return tw_coll_call_rooted("MPI_Igather", 1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, comm, request, 1);
}
int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    return tw_coll_call_rooted("MPI_Scatter", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, comm, NULL, 0);
}
int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request) {
    return tw_coll_call_rooted("MPI_Iscatter", 0, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                               recvtype, root, comm, request, 1);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
    return tw_coll_call_rooted_v("MPI_Gatherv", 1, sendbuf, tw_mpi_vec_int(NULL), sendcount,
                                 tw_mpi_vec_int(displs), sendtype, recvbuf,
                                 tw_mpi_vec_int(recvcounts), 0, recvtype, root, comm, NULL, 0);
}
int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_rooted_v("MPI_Igatherv", 1, sendbuf, tw_mpi_vec_int(NULL), sendcount,
                                 tw_mpi_vec_int(displs), sendtype, recvbuf,
                                 tw_mpi_vec_int(recvcounts), 0, recvtype, root, comm, request, 1);
}
int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
    return tw_coll_call_rooted_v("MPI_Scatterv", 0, sendbuf, tw_mpi_vec_int(sendcounts), 0,
                                 tw_mpi_vec_int(displs), sendtype, recvbuf, tw_mpi_vec_int(NULL),
                                 recvcount, recvtype, root, comm, NULL, 0);
}
int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_rooted_v("MPI_Iscatterv", 0, sendbuf, tw_mpi_vec_int(sendcounts), 0,
                                 tw_mpi_vec_int(displs), sendtype, recvbuf, tw_mpi_vec_int(NULL),
                                 recvcount, recvtype, root, comm, request, 1);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_call_allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf,
                                  tw_mpi_vec_int(NULL), recvcount, tw_mpi_vec_int(NULL), recvtype,
                                  comm, NULL, 0);
}
int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf,
                                  tw_mpi_vec_int(NULL), recvcount, tw_mpi_vec_int(NULL), recvtype,
                                  comm, request, 1);
}
int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
    if (!recvcounts) {
        NEED_INIT("MPI_Allgatherv");
        return tw_mpi_error(tw_mpi_comm_get(comm), "MPI_Allgatherv", MPI_ERR_ARG,
                            "recvcounts is NULL");
    }
    return tw_coll_call_allgather("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                                  tw_mpi_vec_int(recvcounts), 0, tw_mpi_vec_int(displs), recvtype,
                                  comm, NULL, 0);
}
int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request) {
    if (!recvcounts) {
        NEED_INIT("MPI_Iallgatherv");
        return tw_mpi_error(tw_mpi_comm_get(comm), "MPI_Iallgatherv", MPI_ERR_ARG,
                            "recvcounts is NULL");
    }
    return tw_coll_call_allgather("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf,
                                  tw_mpi_vec_int(recvcounts), 0, tw_mpi_vec_int(displs), recvtype,
                                  comm, request, 1);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_call_alltoall("MPI_Alltoall", 0, sendbuf, tw_mpi_vec_int(NULL), sendcount,
                                 tw_mpi_vec_int(NULL), &sendtype, recvbuf, tw_mpi_vec_int(NULL),
                                 recvcount, tw_mpi_vec_int(NULL), &recvtype, 0, comm, NULL, 0);
}
int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
    return tw_coll_call_alltoall("MPI_Ialltoall", 0, sendbuf, tw_mpi_vec_int(NULL), sendcount,
                                 tw_mpi_vec_int(NULL), &sendtype, recvbuf, tw_mpi_vec_int(NULL),
                                 recvcount, tw_mpi_vec_int(NULL), &recvtype, 0, comm, request, 1);
}
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
    return tw_coll_call_alltoall("MPI_Alltoallv", 1, sendbuf, tw_mpi_vec_int(sendcounts), 0,
                                 tw_mpi_vec_int(sdispls), &sendtype, recvbuf,
                                 tw_mpi_vec_int(recvcounts), 0, tw_mpi_vec_int(rdispls), &recvtype,
                                 0, comm, NULL, 0);
}
int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request) {
    return tw_coll_call_alltoall("MPI_Ialltoallv", 1, sendbuf, tw_mpi_vec_int(sendcounts), 0,
                                 tw_mpi_vec_int(sdispls), &sendtype, recvbuf,
                                 tw_mpi_vec_int(recvcounts), 0, tw_mpi_vec_int(rdispls), &recvtype,
                                 0, comm, request, 1);
}
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
    return tw_coll_call_alltoall("MPI_Alltoallw", 1, sendbuf, tw_mpi_vec_int(sendcounts), 0,
                                 tw_mpi_vec_int(sdispls), sendtypes, recvbuf,
                                 tw_mpi_vec_int(recvcounts), 0, tw_mpi_vec_int(rdispls), recvtypes,
                                 1, comm, NULL, 0);
}
int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request) {
    return tw_coll_call_alltoall("MPI_Ialltoallw", 1, sendbuf, tw_mpi_vec_int(sendcounts), 0,
                                 tw_mpi_vec_int(sdispls), sendtypes, recvbuf,
                                 tw_mpi_vec_int(recvcounts), 0, tw_mpi_vec_int(rdispls), recvtypes,
                                 1, comm, request, 1);
}
