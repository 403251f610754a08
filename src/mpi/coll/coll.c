/* Collective algorithms, chosen by message size and process count.
 *
 *   barrier        dissemination: ceil(log2 p) rounds of one zero-byte exchange.
 *   bcast          binomial tree; from 64 KiB on 3 or more ranks, a binomial scatter
 *                  of p blocks then a ring allgather of them (van de Geijn), which
 *                  moves about 2 n bytes per rank instead of n log p at the root.
 *   reduce         binomial tree in rank order (a subtree holds consecutive ranks, so
 *                  the result is op applied in rank order); a non-commutative op with
 *                  a root other than 0 is reduced to rank 0 and sent on. From 64 KiB
 *                  with a commutative op: the ring reduce-scatter below, then each
 *                  rank's block straight into the root's buffer.
 *   allreduce      recursive doubling, with the usual fix-up for p not a power of two
 *                  (the first 2 r ranks pair off: even ones hand their data to the odd
 *                  ones and get the result back); from 64 KiB with a commutative op, a
 *                  ring reduce-scatter then a ring allgather of p blocks, which moves
 *                  2 n (p - 1) / p bytes per rank, every rank reducing one block.
 *   reduce_scatter commutative from 64 KiB: the ring reduce-scatter; otherwise a
 *                  reduce to rank 0 and a linear scatterv.
 *   scan, exscan   recursive doubling (correct for non-commutative ops).
 *   gather,        binomial up to 8 KiB gathered on 3 or more ranks (log p rounds);
 *   scatter        linear beyond, every block straight between the user buffers.
 *   gatherv, scatterv  linear.
 *   allgather      Bruck (ceil(log2 p) rounds, any p) below 64 KiB gathered on 3 or
 *                  more ranks; ring from there and on 2 ranks (p - 1 rounds, each
 *                  block received in place).
 *   allgatherv     ring.
 *   alltoall(v,w)  linear (every receive, then every send, posted at once) below
 *                  8 KiB per peer; pairwise exchange beyond (round k: send to r + k,
 *                  receive from r - k), which keeps one transfer each way in flight.
 * TW_COLL_BCAST, TW_COLL_REDUCE, TW_COLL_ALLREDUCE, TW_COLL_ALLGATHER, TW_COLL_ALLTOALL,
 * TW_COLL_GATHER, TW_COLL_BARRIER and TW_COLL_REDUCE_SCATTER force one algorithm, for
 * measurement; on one node the tuning table (coll_tuning.c) may send a blocking call
 * through shared memory (coll_shm.c) instead.
 *
 * Receives of a round are posted before its sends, so long messages go by the
 * engine's rendezvous straight into their final place. */
#include <string.h>

#include "mpi/coll/coll.h"
#include "mpi/coll/schedule.h"
#include "mpi/env/state.h"
#include "mpi/tools/tools.h"

#include <tollway/settings.h>

enum {
    BCAST_LONG = 64 << 10,
    REDUCE_LONG = 64 << 10,
    ALLREDUCE_LONG = 64 << 10,
    ALLGATHER_LONG = 64 << 10,
    ALLTOALL_PAIRWISE = 8 << 10,
    GATHER_BINOMIAL_MAX = 8 << 10,
};

/* The forced choice of a collective (TW_COLL_* names it, or a tool wrote it), or its AUTO. */
#define FORCED(setting) tw_mpi_t_choice(TW_SETTING_##setting)

static int mod(int a, int p) {
    return ((a % p) + p) % p;
}

/* The largest power of two not above p. */
static int pof2_below(int p) {
    int m = 1;
    while (m * 2 <= p) m *= 2;
    return m;
}

/* In a binomial tree over positions 0..p-1 rooted at 0: the lowest set bit of vr,
 * which is how far its parent is and bounds its subtree (for the root: the least
 * power of two not below p). */
static int subtree_mask(int vr, int p) {
    int mask = 1;
    while (mask < p && !(vr & mask)) mask <<= 1;
    return mask;
}

static size_t min_size(size_t a, size_t b) {
    return a < b ? a : b;
}

/* count items split in p blocks as evenly as possible: offsets and lengths in bytes */
static int even_blocks(tw_sched_t *s, size_t count, size_t item, size_t **offs, size_t **lens) {
    int p = s->comm->size;
    *offs = tw_sched_scratch(s, (size_t)p * sizeof **offs);
    *lens = tw_sched_scratch(s, (size_t)p * sizeof **lens);
    if (!*offs || !*lens) return -1;
    size_t q = count / (size_t)p, rem = count % (size_t)p;
    for (int i = 0; i < p; i++) {
        (*offs)[i] = ((size_t)i * q + min_size((size_t)i, rem)) * item;
        (*lens)[i] = (q + ((size_t)i < rem)) * item;
    }
    return 0;
}

void tw_coll_barrier(tw_sched_t *s) {
    int r = s->comm->rank, p = s->comm->size;
    for (int k = 1; k < p; k <<= 1) {
        tw_sched_recv(s, NULL, 0, mod(r - k, p));
        tw_sched_send(s, NULL, 0, mod(r + k, p));
        tw_sched_fence(s);
    }
}

tw_sched_block_t *tw_coll_blocks(tw_sched_t *s, const void *base, const size_t *offs,
                                 const size_t *lens) {
    int p = s->comm->size;
    tw_sched_block_t *b = tw_sched_scratch(s, (size_t)p * sizeof *b);
    if (!b) return NULL;
    for (int i = 0; i < p; i++)
        b[i] = (tw_sched_block_t){.at = (char *)(uintptr_t)base + offs[i], .bytes = lens[i]};
    return b;
}

/* Ring allgather over positions 0..p-1: position v is rank (v + base) mod p and
 * starts with block v (or with own when not NULL: then it is copied into block v
 * while the first round's transfers run); round k passes block v - k on to the
 * right. */
static void ring_allgather(tw_sched_t *s, const tw_sched_block_t *blocks, int v, int base,
                           const tw_sched_block_t *own) {
    int p = s->comm->size, right = mod(v + 1 + base, p), left = mod(v - 1 + base, p);
    if (!blocks) return;
    for (int k = 0; k < p - 1; k++) {
        int sb = mod(v - k, p), rb = mod(v - k - 1, p);
        tw_sched_recv_block(s, &blocks[rb], left);
        tw_sched_send_block(s, k == 0 && own ? own : &blocks[sb], right);
        if (k == 0 && own) tw_sched_copy_block(s, own, &blocks[v]);
        tw_sched_fence(s);
    }
    if (p == 1 && own) tw_sched_copy_block(s, own, &blocks[v]);
}

static void bcast_binomial(tw_sched_t *s, void *buf, size_t bytes, int root) {
    int p = s->comm->size, vr = mod(s->comm->rank - root, p);
    int mask = subtree_mask(vr, p);
    if (vr) {
        tw_sched_recv(s, buf, bytes, mod(vr - mask + root, p));
        tw_sched_fence(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p) tw_sched_send(s, buf, bytes, mod(vr + mask + root, p));
}

/* Block i of the scatter is block i of the relative positions. */
static void bcast_scatter_ring(tw_sched_t *s, void *buf, size_t count, size_t item, int root) {
    int p = s->comm->size, vr = mod(s->comm->rank - root, p);
    size_t *offs, *lens;
    if (even_blocks(s, count, item, &offs, &lens)) return;
    char *b = buf;
    int mask = subtree_mask(vr, p);
    /* blocks [a, z) span from offs[a] to the end of block z - 1 */
#define SPAN(a, z) (offs[(z)-1] + lens[(z)-1] - offs[a])
    if (vr) {
        int z = vr + mask < p ? vr + mask : p;
        tw_sched_recv(s, b + offs[vr], SPAN(vr, z), mod(vr - mask + root, p));
        tw_sched_fence(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int child = vr + mask;
        if (child >= p) continue;
        int z = child + mask < p ? child + mask : p;
        tw_sched_send(s, b + offs[child], SPAN(child, z), mod(child + root, p));
    }
#undef SPAN
    tw_sched_fence(s);
    ring_allgather(s, tw_coll_blocks(s, b, offs, lens), vr, root, NULL);
}

void tw_coll_bcast(tw_sched_t *s, void *buf, size_t count, size_t item, int root) {
    int p = s->comm->size;
    if (p == 1 || !count) return;
    int forced = FORCED(COLL_BCAST);
    int scatter = forced == TW_BCAST_AUTO ? count * item >= BCAST_LONG && p >= 3
                                          : forced == TW_BCAST_SCATTER_ALLGATHER;
    if (scatter && count >= (size_t)p)
        bcast_scatter_ring(s, buf, count, item, root);
    else
        bcast_binomial(s, buf, count * item, root);
}

/* Binomial reduction of in towards position 0 (rank root). Returns, at the root,
 * where the result is (in itself when p is 1); NULL elsewhere. out: where the root's
 * last round may leave it (saves a copy of the whole result), or NULL (out is in). */
static const void *reduce_binomial(tw_sched_t *s, const void *in, void *out, size_t count,
                                   const tw_coll_red_t *red, int root) {
    int p = s->comm->size, vr = mod(s->comm->rank - root, p);
    size_t bytes = count * red->item;
    const void *acc = in;
    void *spare[2] = {NULL, NULL};
    for (int mask = 1; mask < p; mask <<= 1) {
        if (vr & mask) {
            tw_sched_send(s, acc, bytes, mod(vr - mask + root, p));
            return NULL;
        }
        if (vr + mask >= p) continue;
        /* the child's part lands beside acc; acc op child goes there, and becomes acc */
        int k = acc == spare[0];
        if (!vr && out && mask << 1 >= p) /* the root's last round */
            spare[k] = out;
        if (!spare[k] && !(spare[k] = tw_sched_scratch(s, bytes))) return NULL;
        tw_sched_recv_operand(s, spare[k], bytes, mod(vr + mask + root, p));
        tw_sched_fence(s);
        tw_sched_reduce(s, acc, spare[k], (MPI_Count)count, red->type, red->op);
        acc = spare[k];
    }
    return acc;
}

static void ring_reduce_scatter(tw_sched_t *s, char *buf, const size_t *offs, const size_t *lens,
                                const tw_coll_red_t *red);

/* Ring reduce-scatter of a copy of in, then the blocks gathered at the root. */
static void reduce_ring(tw_sched_t *s, const void *in, void *out, size_t count,
                        const tw_coll_red_t *red, int root) {
    int r = s->comm->rank, p = s->comm->size;
    size_t *offs, *lens;
    char *work = tw_sched_scratch(s, count * red->item), *o = out;
    if (!work || even_blocks(s, count, red->item, &offs, &lens)) return;
    tw_sched_copy(s, in, work, count * red->item);
    ring_reduce_scatter(s, work, offs, lens, red);
    if (r != root) {
        tw_sched_send(s, work + offs[r], lens[r], root);
        return;
    }
    for (int i = 0; i < p; i++)
        if (i != r) tw_sched_recv(s, o + offs[i], lens[i], i);
    tw_sched_copy(s, work + offs[r], o + offs[r], lens[r]);
}

void tw_coll_reduce(tw_sched_t *s, const void *in, void *out, size_t count,
                    const tw_coll_red_t *red, int root) {
    int r = s->comm->rank, p = s->comm->size;
    size_t bytes = count * red->item;
    int forced = FORCED(COLL_REDUCE);
    /* on two ranks the ring only splits one message in two and adds a step: binomial
     * measured faster at every size (bench/mpi/ab_coll.sh, TW_COLL_REDUCE forced) */
    int ring = forced == TW_REDUCE_AUTO ? p > 2 && bytes >= REDUCE_LONG : forced == TW_REDUCE_RING;
    if (ring && red->commute && count >= (size_t)p && p > 1) {
        reduce_ring(s, in, out, count, red, root);
        return;
    }
    if (red->commute || root == 0) {
        const void *acc = reduce_binomial(s, in, in == out ? NULL : out, count, red, root);
        if (r == root && acc && acc != out) tw_sched_copy(s, acc, out, bytes);
        return;
    }
    /* rank order needs the tree rooted at rank 0 */
    const void *acc = reduce_binomial(s, in, NULL, count, red, 0);
    if (r == 0 && acc) {
        tw_sched_fence(s);
        tw_sched_send(s, acc, bytes, root);
    } else if (r == root) {
        tw_sched_fence(s); /* out may be the in just sent */
        tw_sched_recv(s, out, bytes, 0);
    }
}

/* out holds this rank's data and ends with the result. */
static void allreduce_recdbl(tw_sched_t *s, void *out, size_t count, const tw_coll_red_t *red) {
    int r = s->comm->rank, p = s->comm->size, pof2 = pof2_below(p), rem = p - pof2, newrank;
    size_t bytes = count * red->item;
    void *tmp = tw_sched_scratch(s, bytes);
    if (!tmp) return;
    if (r < 2 * rem) {
        if (r % 2 == 0) {
            tw_sched_send(s, out, bytes, r + 1);
            tw_sched_fence(s);
            newrank = -1;
        } else {
            tw_sched_recv_operand(s, tmp, bytes, r - 1);
            tw_sched_fence(s);
            tw_sched_reduce(s, tmp, out, (MPI_Count)count, red->type, red->op);
            newrank = r / 2;
        }
    } else {
        newrank = r - rem;
    }
    for (int mask = 1; newrank >= 0 && mask < pof2; mask <<= 1) {
        int nd = newrank ^ mask, dst = nd < rem ? nd * 2 + 1 : nd + rem;
        tw_sched_recv_operand(s, tmp, bytes, dst);
        tw_sched_send(s, out, bytes, dst);
        tw_sched_fence(s);
        if (dst < r || red->commute) { /* the peer's ranks come first */
            tw_sched_reduce(s, tmp, out, (MPI_Count)count, red->type, red->op);
        } else {
            tw_sched_reduce(s, out, tmp, (MPI_Count)count, red->type, red->op);
            tw_sched_copy(s, tmp, out, bytes);
        }
    }
    if (r < 2 * rem) {
        if (r % 2)
            tw_sched_send(s, out, bytes, r - 1);
        else
            tw_sched_recv(s, out, bytes, r + 1);
    }
}

/* Ring reduce-scatter of buf's p blocks (a commutative op): round k passes the
 * partial block r - 1 - k to the right and adds the left's block r - 2 - k into
 * its own, so rank r ends with block r complete. */
static void ring_reduce_scatter(tw_sched_t *s, char *buf, const size_t *offs, const size_t *lens,
                                const tw_coll_red_t *red) {
    int r = s->comm->rank, p = s->comm->size;
    size_t most = 0;
    for (int i = 0; i < p; i++) most = lens[i] > most ? lens[i] : most;
    void *tmp = tw_sched_scratch(s, most);
    if (!tmp) return;
    for (int k = 0; k < p - 1; k++) {
        int sb = mod(r - 1 - k, p), rb = mod(r - 2 - k, p);
        tw_sched_recv_operand(s, tmp, lens[rb], mod(r - 1, p));
        tw_sched_send(s, buf + offs[sb], lens[sb], mod(r + 1, p));
        tw_sched_fence(s);
        tw_sched_reduce(s, tmp, buf + offs[rb], (MPI_Count)(lens[rb] / red->item), red->type,
                        red->op);
    }
}

/* The ring reduce-scatter above, reading this rank's data from in and leaving the
 * sums in out (in != out): each block received lands in out and has in's block added
 * to it there, so nothing is copied first. Rank r ends with block r of out complete
 * (block r - 1 of out is left for the allgather to fill). */
static void ring_reduce_scatter_from(tw_sched_t *s, const char *in, char *out, const size_t *offs,
                                     const size_t *lens, const tw_coll_red_t *red) {
    int r = s->comm->rank, p = s->comm->size;
    for (int k = 0; k < p - 1; k++) {
        int sb = mod(r - 1 - k, p), rb = mod(r - 2 - k, p);
        tw_sched_recv_operand(s, out + offs[rb], lens[rb], mod(r - 1, p));
        tw_sched_send(s, (k == 0 ? in : out) + offs[sb], lens[sb], mod(r + 1, p));
        tw_sched_fence(s);
        tw_sched_reduce(s, in + offs[rb], out + offs[rb], (MPI_Count)(lens[rb] / red->item),
                        red->type, red->op);
    }
}

void tw_coll_allreduce(tw_sched_t *s, const void *in, void *out, size_t count,
                       const tw_coll_red_t *red) {
    int p = s->comm->size;
    int forced = FORCED(COLL_ALLREDUCE);
    int ring = forced == TW_ALLREDUCE_AUTO ? count * red->item >= ALLREDUCE_LONG
                                           : forced == TW_ALLREDUCE_RING;
    if (ring && red->commute && count >= (size_t)p && p > 1 && in && in != out) {
        size_t *offs, *lens;
        if (even_blocks(s, count, red->item, &offs, &lens)) return;
        ring_reduce_scatter_from(s, in, out, offs, lens, red);
        ring_allgather(s, tw_coll_blocks(s, out, offs, lens), s->comm->rank, 0, NULL);
        return;
    }
    tw_sched_copy(s, in, out, count * red->item);
    if (p == 1 || !count) return;
    if (ring && red->commute && count >= (size_t)p) {
        size_t *offs, *lens;
        if (even_blocks(s, count, red->item, &offs, &lens)) return;
        ring_reduce_scatter(s, out, offs, lens, red);
        ring_allgather(s, tw_coll_blocks(s, out, offs, lens), s->comm->rank, 0, NULL);
    } else {
        allreduce_recdbl(s, out, count, red);
    }
}

void tw_coll_reduce_scatter(tw_sched_t *s, const void *in, void *out, const size_t *counts,
                            const tw_coll_red_t *red) {
    int r = s->comm->rank, p = s->comm->size;
    size_t *offs = tw_sched_scratch(s, (size_t)p * sizeof *offs);
    size_t *lens = tw_sched_scratch(s, (size_t)p * sizeof *lens);
    if (!offs || !lens) return;
    size_t total = 0;
    for (int i = 0; i < p; i++) {
        offs[i] = total;
        lens[i] = counts[i] * red->item;
        total += lens[i];
    }
    int forced = FORCED(COLL_REDUCE_SCATTER);
    int ring = forced == TW_REDUCE_SCATTER_RING ||
               (forced != TW_REDUCE_SCATTER_REDUCE_SCATTERV && total >= ALLREDUCE_LONG);
    if (red->commute && ring && p > 1) {
        char *work = tw_sched_scratch(s, total);
        if (!work) return;
        tw_sched_copy(s, in, work, total);
        ring_reduce_scatter(s, work, offs, lens, red);
        tw_sched_copy(s, work + offs[r], out, lens[r]);
        return;
    }
    const void *all = reduce_binomial(s, in, NULL, total / red->item, red, 0);
    tw_sched_fence(s);
    tw_sched_block_t one = {.at = out, .bytes = lens[r]};
    tw_coll_scatterv(s, r ? NULL : tw_coll_blocks(s, all, offs, lens), &one, 0);
}

void tw_coll_scan(tw_sched_t *s, const void *in, void *out, size_t count, const tw_coll_red_t *red,
                  int exclusive) {
    int r = s->comm->rank, p = s->comm->size, have = !exclusive;
    size_t bytes = count * red->item;
    MPI_Count n = (MPI_Count)count;
    /* partial: the reduction of this rank's block of the tree so far; in itself until
     * a round changes it (on two ranks it never does: no copy, and only tmp's scratch,
     * which fits in the schedule's own up to 1536 bytes). In place, in is out, which
     * the first round changes: partial is a copy from the start. */
    const void *partial = in;
    void *own = NULL, *tmp = tw_sched_scratch(s, bytes);
    if (!tmp) return;
    if (in == out && !(own = tw_sched_scratch(s, bytes))) return;
    if (own) tw_sched_copy(s, in, own, bytes), partial = own;
    if (!exclusive && in != out) tw_sched_copy(s, in, out, bytes);
    for (int mask = 1; mask < p; mask <<= 1) {
        int dst = r ^ mask;
        if (dst >= p) continue;
        /* partial is not read after the last round: there the lower rank only gives
         * and the higher only takes (on two ranks, one message instead of two) */
        int last = mask << 1 >= p;
        if (last && r < dst) {
            tw_sched_send(s, partial, bytes, dst);
            break;
        }
        tw_sched_recv_operand(s, tmp, bytes, dst);
        if (!last) tw_sched_send(s, partial, bytes, dst);
        tw_sched_fence(s);
        if (!last && !own) { /* this round changes partial */
            if (!(own = tw_sched_scratch(s, bytes))) return;
            tw_sched_copy(s, in, own, bytes);
            partial = own;
        }
        if (r > dst) { /* tmp holds lower ranks */
            if (!last) tw_sched_reduce(s, tmp, own, n, red->type, red->op);
            if (have) {
                tw_sched_reduce(s, tmp, out, n, red->type, red->op);
            } else {
                tw_sched_copy(s, tmp, out, bytes);
                have = 1;
            }
        } else if (red->commute) {
            tw_sched_reduce(s, tmp, own, n, red->type, red->op);
        } else {
            tw_sched_reduce(s, own, tmp, n, red->type, red->op);
            tw_sched_copy(s, tmp, own, bytes);
        }
    }
}

static int use_binomial(tw_sched_t *s, size_t total) {
    int forced = FORCED(COLL_GATHER);
    return forced == TW_GATHER_AUTO ? total <= GATHER_BINOMIAL_MAX && s->comm->size >= 3
                                    : forced == TW_GATHER_BINOMIAL;
}

void tw_coll_gatherv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out,
                     int root) {
    int r = s->comm->rank, p = s->comm->size;
    if (r != root) {
        tw_sched_send_block(s, in, root);
        return;
    }
    if (!out) return;
    for (int i = 0; i < p; i++)
        if (i != root) tw_sched_recv_block(s, &out[i], i);
    if (in) tw_sched_copy_block(s, in, &out[root]);
}

void tw_coll_scatterv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out,
                      int root) {
    int r = s->comm->rank, p = s->comm->size;
    if (r != root) {
        tw_sched_recv_block(s, out, root);
        return;
    }
    if (!in) return;
    if (out) tw_sched_copy_block(s, &in[root], out);
    for (int i = 0; i < p; i++)
        if (i != root) tw_sched_send_block(s, &in[i], i);
}

/* Uniform blocks of b bytes: offsets and lengths for the v forms. */
static int uniform_blocks(tw_sched_t *s, size_t b, size_t **offs, size_t **lens) {
    return even_blocks(s, (size_t)s->comm->size, b, offs, lens);
}

/* Binomial gather: position vr collects the blocks of positions [vr, vr + subtree)
 * in order, and the root turns them from positions into ranks. */
static void gather_binomial(tw_sched_t *s, const void *in, char *out, size_t b, int root) {
    int r = s->comm->rank, p = s->comm->size, vr = mod(r - root, p);
    int mask = subtree_mask(vr, p), n = vr ? (vr + mask < p ? mask : p - vr) : p;
    if (!in) in = out + (size_t)r * b;
    if (vr && n == 1) { /* a leaf */
        tw_sched_send(s, in, b, mod(vr - mask + root, p));
        return;
    }
    char *tmp = vr == 0 && root == 0 ? out : tw_sched_scratch(s, (size_t)n * b);
    if (!tmp) return;
    tw_sched_copy(s, in, tmp, b);
    for (int m = 1; m < mask && vr + m < p; m <<= 1) {
        int k = vr + 2 * m < p ? m : p - vr - m;
        tw_sched_recv(s, tmp + (size_t)m * b, (size_t)k * b, mod(vr + m + root, p));
    }
    tw_sched_fence(s);
    if (vr) {
        tw_sched_send(s, tmp, (size_t)n * b, mod(vr - mask + root, p));
        return;
    }
    size_t head = (size_t)(p - root) * b;
    tw_sched_copy(s, tmp, out + (size_t)root * b, head);
    tw_sched_copy(s, tmp + head, out, (size_t)root * b);
}

void tw_coll_gather(tw_sched_t *s, const void *in, void *out, size_t bytes, int root) {
    if (use_binomial(s, bytes * (size_t)s->comm->size)) {
        gather_binomial(s, in, out, bytes, root);
        return;
    }
    size_t *offs, *lens;
    if (uniform_blocks(s, bytes, &offs, &lens)) return;
    tw_sched_block_t one = {.at = (char *)(uintptr_t)in, .bytes = bytes};
    tw_coll_gatherv(s, in ? &one : NULL, out ? tw_coll_blocks(s, out, offs, lens) : NULL, root);
}

/* Binomial scatter, the gather reversed. */
static void scatter_binomial(tw_sched_t *s, const char *in, void *out, size_t b, int root) {
    int r = s->comm->rank, p = s->comm->size, vr = mod(r - root, p);
    int mask = subtree_mask(vr, p), n = vr ? (vr + mask < p ? mask : p - vr) : p;
    if (vr && n == 1) { /* a leaf */
        tw_sched_recv(s, out, b, mod(vr - mask + root, p));
        return;
    }
    const char *tmp = in;
    if (vr) {
        char *t = tw_sched_scratch(s, (size_t)n * b);
        if (!t) return;
        tw_sched_recv(s, t, (size_t)n * b, mod(vr - mask + root, p));
        tw_sched_fence(s);
        tmp = t;
    } else if (root) { /* the blocks in position order */
        char *t = tw_sched_scratch(s, (size_t)p * b);
        if (!t) return;
        size_t head = (size_t)(p - root) * b;
        tw_sched_copy(s, in + (size_t)root * b, t, head);
        tw_sched_copy(s, in, t + head, (size_t)root * b);
        tmp = t;
    }
    for (int m = mask >> 1; m > 0; m >>= 1) {
        if (vr + m >= p) continue;
        int k = vr + 2 * m < p ? m : p - vr - m;
        tw_sched_send(s, tmp + (size_t)m * b, (size_t)k * b, mod(vr + m + root, p));
    }
    if (out) tw_sched_copy(s, tmp, out, b);
}

void tw_coll_scatter(tw_sched_t *s, const void *in, void *out, size_t bytes, int root) {
    if (use_binomial(s, bytes * (size_t)s->comm->size)) {
        scatter_binomial(s, in, out, bytes, root);
        return;
    }
    size_t *offs, *lens;
    if (uniform_blocks(s, bytes, &offs, &lens)) return;
    tw_sched_block_t one = {.at = out, .bytes = bytes};
    tw_coll_scatterv(s, in ? tw_coll_blocks(s, in, offs, lens) : NULL, out ? &one : NULL, root);
}

void tw_coll_allgatherv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out) {
    ring_allgather(s, out, s->comm->rank, 0, in);
}

/* Bruck: round k sends the first min(2^k, p - 2^k) blocks gathered so far to
 * r - 2^k and receives as many from r + 2^k behind them; block j then belongs to
 * rank r + j. */
static void allgather_bruck(tw_sched_t *s, const void *in, char *out, size_t b) {
    int r = s->comm->rank, p = s->comm->size;
    char *tmp = tw_sched_scratch(s, (size_t)p * b);
    if (!tmp) return;
    tw_sched_copy(s, in ? in : out + (size_t)r * b, tmp, b);
    for (int dist = 1; dist < p; dist <<= 1) {
        size_t n = (size_t)(dist < p - dist ? dist : p - dist);
        tw_sched_recv(s, tmp + (size_t)dist * b, n * b, mod(r + dist, p));
        tw_sched_send(s, tmp, n * b, mod(r - dist, p));
        tw_sched_fence(s);
    }
    size_t head = (size_t)(p - r) * b;
    tw_sched_copy(s, tmp, out + (size_t)r * b, head);
    tw_sched_copy(s, tmp + head, out, (size_t)r * b);
}

void tw_coll_allgather(tw_sched_t *s, const void *in, void *out, size_t bytes) {
    /* on 2 ranks both take one exchange, and the ring's lands in place */
    if (!tw_coll_allgather_direct(s, bytes)) {
        allgather_bruck(s, in, out, bytes);
        return;
    }
    size_t *offs, *lens;
    if (uniform_blocks(s, bytes, &offs, &lens)) return;
    tw_sched_block_t one = {.at = (char *)(uintptr_t)in, .bytes = bytes};
    tw_coll_allgatherv(s, in ? &one : NULL, tw_coll_blocks(s, out, offs, lens));
}

void tw_coll_alltoallv(tw_sched_t *s, const tw_sched_block_t *in, const tw_sched_block_t *out) {
    int r = s->comm->rank, p = s->comm->size;
    if (!in || !out) return;
    size_t total = 0;
    for (int i = 0; i < p; i++) total += in[i].bytes;
    int forced = FORCED(COLL_ALLTOALL);
    /* shm: a call the segment does not take (alltoallv, w) goes as auto picks. On a
     * crowded node every exchange posted at once: each round of pairs waits for ranks
     * that wait for a core (1 MiB on 16 ranks, 2 cores: 0.97x Open MPI's time so,
     * 1.28x pairwise; 64 KiB 0.76x against 1.59x) */
    int pairwise = forced == TW_ALLTOALL_AUTO || forced == TW_ALLTOALL_SHM
                       ? total / (size_t)p >= ALLTOALL_PAIRWISE && !tw_mpi.crowded
                       : forced == TW_ALLTOALL_PAIRWISE;
    /* the own block is copied once the first transfers are under way, so the peers'
     * copies run beside this one */
    if (pairwise) {
        for (int k = 1; k < p; k++) {
            int dst = mod(r + k, p), src = mod(r - k, p);
            tw_sched_recv_block(s, &out[src], src);
            tw_sched_send_block(s, &in[dst], dst);
            if (k == 1) tw_sched_copy_block(s, &in[r], &out[r]);
            tw_sched_fence(s);
        }
        if (p == 1) tw_sched_copy_block(s, &in[r], &out[r]);
        return;
    }
    for (int k = 1; k < p; k++) {
        int src = mod(r - k, p);
        tw_sched_recv_block(s, &out[src], src);
    }
    for (int k = 1; k < p; k++) {
        int dst = mod(r + k, p);
        tw_sched_send_block(s, &in[dst], dst);
    }
    tw_sched_copy_block(s, &in[r], &out[r]);
}

/* Whether the calls above take the direct algorithms, each block straight from its
 * sender's buffer to its receiver's: then a block may be a typed one. */
int tw_coll_gather_direct(tw_sched_t *s, size_t bytes) {
    return !use_binomial(s, bytes * (size_t)s->comm->size);
}

int tw_coll_allgather_direct(tw_sched_t *s, size_t bytes) {
    int p = s->comm->size;
    int forced = FORCED(COLL_ALLGATHER);
    return forced == TW_ALLGATHER_AUTO ? p == 2 || bytes * (size_t)p >= ALLGATHER_LONG
                                       : forced == TW_ALLGATHER_RING;
}
