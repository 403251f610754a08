/* Intercommunicators: creation from two disjoint groups that talk through their
 * leaders, duplication, splitting, merging into an intracommunicator, and the queries.
 *
 * An intercommunicator's size and world[] describe the remote group, so that
 * point-to-point addresses remote ranks unchanged; its own group is local_size and
 * local_world[], and rank is the caller's rank there.
 *
 * Its table entry must be free in both groups: each group's leader ORs its members'
 * used-entry bitmaps, the two leaders swap theirs, both take the lowest entry free in
 * the union and tell their members. */
#include <stdlib.h>
#include <string.h>

#include "mpi/comm/comm.h"
#include "mpi/comm_create/comm_create.h"
#include "mpi/comm_create/intercomm.h"
#include "mpi/comm_create/peers.h"
#include "mpi/env/error.h"
#include "mpi/comm/group.h"
#include "mpi/env/state.h"
#include "mpi/env/thread.h"

enum { WORDS = TW_MPI_USED_WORDS };

static int world_of(const int *members, int i) {
    return members ? members[i] : i;
}

/* Gathers the used-entry bitmaps of the n processes members[] (NULL: 0..n-1; `me`
 * among them) at members[leader] on context and tag; there `used` becomes their OR. */
static void gather_used(uint32_t context, int tag, int n, const int *members, int me, int leader,
                        uint64_t used[WORDS]) {
    tw_mpi_used_entries(used);
    if (me != leader) {
        tw_mpi_exchange(context, tag, world_of(members, leader), used, WORDS * sizeof *used, -1,
                        NULL, 0);
        return;
    }
    for (int r = 0; r < n; r++) {
        uint64_t theirs[WORDS];
        if (r == leader) continue;
        if (tw_mpi_exchange(context, tag, -1, NULL, 0, world_of(members, r), theirs,
                            sizeof theirs) != sizeof theirs)
            memset(theirs, 0xff, sizeof theirs); /* unknown: no entry is taken as free */
        for (int w = 0; w < WORDS; w++) used[w] |= theirs[w];
    }
}

/* Under MPI_THREAD_MULTIPLE other threads may make communicators while a creation
 * waits, so the entry picked may be taken (or held) here by the time it comes. Every
 * member of both groups then says 2 (it takes the entry, held meanwhile), 1 (taken
 * here: the creation runs again) or 0 (an error); each group's leader takes its
 * members' lowest, the two leaders swap theirs, and the lowest is everyone's
 * verdict. Members talk to their leader on (context, tag), the leaders to each other
 * on (leaders_context, leaders_tag); other < 0: no remote leader to ask. */
static int vote(uint32_t context, int tag, int n, const int *members, int me, int leader,
                uint32_t leaders_context, int leaders_tag, int other, int say) {
    int all = say;
    if (me == leader) {
        for (int r = 0; r < n; r++) {
            int v = 0;
            if (r == leader) continue;
            if (tw_mpi_exchange(context, tag, -1, NULL, 0, world_of(members, r), &v, sizeof v) !=
                sizeof v)
                v = 0;
            if (v < all) all = v;
        }
        int theirs = 0;
        if (other < 0 || tw_mpi_exchange(leaders_context, leaders_tag, other, &all, sizeof all,
                                         other, &theirs, sizeof theirs) != sizeof theirs)
            theirs = 0;
        if (theirs < all) all = theirs;
        for (int r = 0; r < n; r++)
            if (r != leader)
                tw_mpi_exchange(context, tag, world_of(members, r), &all, sizeof all, -1, NULL, 0);
    } else if (tw_mpi_exchange(context, tag, world_of(members, leader), &say, sizeof say,
                               world_of(members, leader), &all, sizeof all) != sizeof all) {
        all = 0;
    }
    return all < 0 ? 0 : all < say ? all : say;
}

/* What this member says of entry (-1: none; wanted: it would make a communicator). */
static int say_of(int ok, int entry, int wanted) {
    if (!ok) return 0;
    if (!wanted) return 2;
    if (entry < 0) return 0;
    return tw_mpi_comm_table[entry] || (tw_mpi_comm_held[entry / 64] >> (entry % 64) & 1) ? 1 : 2;
}

static void hold(int entry, int say, int on) {
    if (say != 2 || entry < 0) return;
    uint64_t bit = 1ull << (entry % 64);
    if (on)
        tw_mpi_comm_held[entry / 64] |= bit;
    else
        tw_mpi_comm_held[entry / 64] &= ~bit;
}

/* Makes an intercommunicator in table entry `entry` from copies of both groups. */
static int inter_new(int entry, int rank, int remote_n, const int *remote, int local_n,
                     const int *local, MPI_Errhandler eh, MPI_Comm *out) {
    int *world = malloc((size_t)remote_n * sizeof *world);
    int *local_world = malloc((size_t)local_n * sizeof *local_world);
    tw_mpi_comm_t *c = world && local_world ? tw_mpi_comm_new(entry, rank, remote_n, world) : NULL;
    if (!c) {
        free(world);
        free(local_world);
        return MPI_ERR_NO_MEM;
    }
    memcpy(world, remote, (size_t)remote_n * sizeof *world);
    for (int r = 0; r < local_n; r++) local_world[r] = world_of(local, r);
    c->inter = 1;
    c->local_size = local_n;
    c->local_world = local_world;
    c->errhandler = eh;
    *out = c->handle;
    return MPI_SUCCESS;
}

/* Processes of other jobs a remote group may hold beyond those this process knows. */
enum { FOREIGN_MAX = 1 << 16 };

/* Whether the new intercommunicator's processes (c's local group and the remote
 * ids) span jobs: then not every member knows every endpoint (a spawned job, or one
 * met through MPI_Comm_connect, is known to the processes that met it only), and the
 * leaders pass the remote group's addresses on. Every member decides alike: all in
 * its own job means all in one job. */
static int spans_jobs(const tw_mpi_comm_t *l, int n, const int *ids) {
    int base = tw_ep_job_base(tw_mpi.ep), end = base + tw_ep_job_size(tw_mpi.ep);
    for (int r = 0; r < l->size; r++) {
        int w = tw_mpi_world_rank(l, r);
        if (w < base || w >= end) return 1;
    }
    for (int k = 0; k < n; k++)
        if (ids[k] < base || ids[k] >= end) return 1;
    return 0;
}

/* The leaders' part of MPI_Intercomm_create: swaps bitmaps and groups with the remote
 * leader, and when the groups span jobs (*spans) the members' addresses too, learning
 * the remote ones (*addrs, *addrs_len: to be passed on and freed). Fills answer with the
 * entry, the remote size and the remote world ranks; its length, or 0 with *rc set.
 * The peer may be an intercommunicator: the remote leader is then a rank of its
 * remote group (its size and world ranks are those of that group), and both sides of
 * it share its context. */
static size_t leaders_swap(const tw_mpi_comm_t *l, uint64_t used[WORDS], MPI_Comm peer_comm,
                           int remote_leader, int tag, int *answer, size_t cap, char **addrs,
                           size_t *addrs_len, int *spans, int *rc) {
    tw_mpi_comm_t *peer = tw_mpi_comm_get(peer_comm);
    *rc = !peer ? MPI_ERR_COMM
          : remote_leader < 0 || remote_leader >= peer->size ||
                  tw_mpi_world_rank(peer, remote_leader) == tw_mpi.rank
              ? MPI_ERR_RANK
              : MPI_SUCCESS;
    if (*rc) return 0;
    int other = tw_mpi_world_rank(peer, remote_leader);
    uint32_t context = peer->context + TW_CTX_COLL;
    int t = tw_mpi_creation_tag(TW_MPI_TAG_INTERCOMM_CREATE, tag);
    uint64_t theirs[WORDS];
    if (tw_mpi_exchange(context, t, other, used, WORDS * sizeof *used, other, theirs,
                        sizeof theirs) != sizeof theirs)
        memset(theirs, 0xff, sizeof theirs);
    for (int w = 0; w < WORDS; w++) used[w] |= theirs[w];
    /* my group: its size, then its world ranks */
    int *mine = malloc(((size_t)l->size + 1) * sizeof *mine);
    if (!mine) {
        *rc = MPI_ERR_NO_MEM;
        return 0;
    }
    mine[0] = l->size;
    for (int r = 0; r < l->size; r++) mine[1 + r] = tw_mpi_world_rank(l, r);
    size_t len = tw_mpi_exchange(context, t, other, mine, ((size_t)l->size + 1) * sizeof *mine,
                                 other, answer + 1, cap - sizeof *answer);
    free(mine);
    answer[0] = tw_mpi_lowest_free(used);
    int n = len >= sizeof *answer ? answer[1] : 0;
    if (n < 1 || len != ((size_t)n + 1) * sizeof *answer || !spans_jobs(l, n, answer + 2))
        return len + sizeof *answer; /* a malformed group is refused with the answer */
    *spans = 1;
    char *my_addrs = NULL;
    size_t my_len = 0, their_cap = tw_mpi_peers_addresses_cap(n);
    int *ids = malloc((size_t)l->size * sizeof *ids);
    for (int r = 0; ids && r < l->size; r++) ids[r] = tw_mpi_world_rank(l, r);
    *rc = ids ? tw_mpi_peers_addresses(l->size, ids, &my_addrs, &my_len) : MPI_ERR_NO_MEM;
    free(ids);
    *addrs = *rc ? NULL : malloc(their_cap);
    if (!*rc && !*addrs) *rc = MPI_ERR_NO_MEM;
    if (!*rc) {
        *addrs_len = tw_mpi_exchange(context, t, other, my_addrs, my_len, other, *addrs, their_cap);
        *rc = tw_mpi_peers_learn(n, answer + 2, *addrs, *addrs_len);
    }
    free(my_addrs);
    if (*rc) {
        free(*addrs);
        *addrs = NULL;
        return 0;
    }
    return len + sizeof *answer;
}

/* Across jobs no member may hear from the new intercommunicator before every member of
 * both groups knows the other group's endpoints: a process cannot take a message from
 * one it does not know, and one stuck at the head of its ring holds the rest back. So
 * the members that learned tell their leader, the leaders swap, then release their
 * members (released: whether this leader's members took the addresses). */
static void learned_everywhere(const tw_mpi_comm_t *l, int local_leader, int released,
                               MPI_Comm peer_comm, int remote_leader, int tag) {
    uint32_t context = l->context + TW_CTX_COLL;
    int mine = 1, theirs = 0;
    if (l->rank != local_leader) {
        int leader = tw_mpi_world_rank(l, local_leader);
        tw_mpi_exchange(context, 0, leader, &mine, sizeof mine, leader, &theirs, sizeof theirs);
        return;
    }
    for (int r = 0; released && r < l->size; r++)
        if (r != local_leader)
            tw_mpi_exchange(context, 0, -1, NULL, 0, tw_mpi_world_rank(l, r), &theirs,
                            sizeof theirs);
    tw_mpi_comm_t *peer = tw_mpi_comm_get(peer_comm);
    int other = tw_mpi_world_rank(peer, remote_leader);
    tw_mpi_exchange(peer->context + TW_CTX_COLL,
                    tw_mpi_creation_tag(TW_MPI_TAG_INTERCOMM_CREATE, tag), other, &mine,
                    sizeof mine, other, &theirs, sizeof theirs);
    for (int r = 0; released && r < l->size; r++)
        if (r != local_leader)
            tw_mpi_exchange(context, 0, tw_mpi_world_rank(l, r), &mine, sizeof mine, -1, NULL, 0);
}

static int intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                            int remote_leader, int tag, MPI_Comm *newintercomm) {
    NEED_INIT("MPI_Intercomm_create");
    const char *call = "MPI_Intercomm_create";
    tw_mpi_comm_t *l = tw_mpi_comm_get(local_comm);
    if (!l) return tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    if (l->inter) return tw_mpi_error(l, call, MPI_ERR_COMM, "an intercommunicator");
    if (!newintercomm) return tw_mpi_error(l, call, MPI_ERR_ARG, NULL);
    if (local_leader < 0 || local_leader >= l->size)
        return tw_mpi_error(l, call, MPI_ERR_RANK, "local leader");
    if (tag < 0 || tag > TW_MPI_TAG_UB) return tw_mpi_error(l, call, MPI_ERR_TAG, NULL);
    *newintercomm = MPI_COMM_NULL;
    uint32_t context = l->context + TW_CTX_COLL;
    size_t cap = ((size_t)tw_mpi.size + FOREIGN_MAX + 2) * sizeof(int), len;
    int *answer = malloc(cap), rc;
    if (!answer) return tw_mpi_error(l, call, MPI_ERR_NO_MEM, NULL);
    for (;;) {
        uint64_t used[WORDS];
        char *addrs = NULL;
        size_t addrs_len = 0;
        int spans = 0;
        rc = MPI_SUCCESS;
        gather_used(context, 0, l->size, l->world, l->rank, local_leader, used);
        if (l->rank == local_leader) {
            len = leaders_swap(l, used, peer_comm, remote_leader, tag, answer, cap, &addrs,
                               &addrs_len, &spans, &rc);
            if (rc) { /* the members learn it too, instead of waiting forever */
                answer[0] = -1;
                answer[1] = rc;
                len = 2 * sizeof *answer;
            }
            for (int r = 0; r < l->size; r++) {
                if (r == local_leader) continue;
                int to = tw_mpi_world_rank(l, r);
                tw_mpi_exchange(context, 0, to, answer, len, -1, NULL, 0);
                if (addrs) tw_mpi_exchange(context, 0, to, addrs, addrs_len, -1, NULL, 0);
            }
        } else {
            int leader = tw_mpi_world_rank(l, local_leader);
            len = tw_mpi_exchange(context, 0, -1, NULL, 0, leader, answer, cap);
            int known; /* a class of this library, or not to be trusted */
            if (len == 2 * sizeof *answer && answer[0] == -1)
                rc = answer[1] != MPI_SUCCESS && MPI_Error_class(answer[1], &known) == MPI_SUCCESS
                         ? answer[1]
                         : MPI_ERR_INTERN;
            int n = len >= 2 * sizeof *answer ? answer[1] : 0;
            if (!rc && n >= 1 && len == ((size_t)n + 2) * sizeof *answer &&
                spans_jobs(l, n, answer + 2)) { /* the leader sends the remote addresses */
                size_t acap = tw_mpi_peers_addresses_cap(n);
                char none; /* without room the message is still taken, and dropped */
                addrs = malloc(acap);
                addrs_len = tw_mpi_exchange(context, 0, -1, NULL, 0, leader, addrs ? addrs : &none,
                                            addrs ? acap : 0);
                rc = addrs ? tw_mpi_peers_learn(n, answer + 2, addrs, addrs_len) : MPI_ERR_NO_MEM;
                spans = 1;
            }
        }
        if (spans)
            learned_everywhere(l, local_leader, addrs != NULL, peer_comm, remote_leader, tag);
        free(addrs);
        int ok = !rc && tw_mpi_intercomm_answer_ok(answer, len, tw_mpi.size, l->size, l->world);
        if (!tw_mpi_threads_on) {
            if (!rc && (!ok || tw_mpi_comm_table[answer[0]])) rc = MPI_ERR_INTERN;
            break;
        }
        int say = say_of(ok, ok ? answer[0] : -1, 1), other = -1;
        tw_mpi_comm_t *peer = l->rank == local_leader ? tw_mpi_comm_get(peer_comm) : NULL;
        if (peer && !rc) other = tw_mpi_world_rank(peer, remote_leader);
        hold(ok ? answer[0] : -1, say, 1);
        int verdict = vote(context, 0, l->size, l->world, l->rank, local_leader,
                           peer ? peer->context + TW_CTX_COLL : 0,
                           tw_mpi_creation_tag(TW_MPI_TAG_INTERCOMM_CREATE, tag), other, say);
        hold(ok ? answer[0] : -1, say, 0);
        if (verdict == 1) continue;
        if (!rc && verdict != 2) rc = MPI_ERR_INTERN;
        break;
    }
    if (!rc)
        rc = inter_new(answer[0], l->rank, answer[1], answer + 2, l->size, l->world, l->errhandler,
                       newintercomm);
    free(answer);
    return rc ? tw_mpi_error(l, call, rc, NULL) : MPI_SUCCESS;
}

/* Agrees on a table entry free in both groups of intercommunicator c, and swaps one
 * number between the two groups: *remote_info is the other group's info. Collective
 * over both groups, on c's collective context; led by each group's rank 0. */
static int inter_agree(tw_mpi_comm_t *c, int info, int *entry, int *remote_info) {
    uint32_t context = c->context + TW_CTX_COLL;
    for (;;) {
        uint64_t used[WORDS];
        gather_used(context, 0, c->local_size, c->local_world, c->rank, 0, used);
        int answer[2] = {-1, 0};
        size_t len = sizeof answer;
        if (c->rank == 0) {
            struct {
                uint64_t used[WORDS];
                int64_t info;
            } mine = {{0}, info}, theirs;
            memcpy(mine.used, used, sizeof mine.used);
            if (tw_mpi_exchange(context, 0, c->world[0], &mine, sizeof mine, c->world[0], &theirs,
                                sizeof theirs) == sizeof theirs) {
                for (int w = 0; w < WORDS; w++) used[w] |= theirs.used[w];
                answer[0] = tw_mpi_lowest_free(used);
                answer[1] = (int)theirs.info;
            }
            for (int r = 1; r < c->local_size; r++)
                tw_mpi_exchange(context, 0, c->local_world[r], answer, sizeof answer, -1, NULL, 0);
        } else {
            len =
                tw_mpi_exchange(context, 0, -1, NULL, 0, c->local_world[0], answer, sizeof answer);
        }
        int ok = len == sizeof answer && answer[0] >= 0 && answer[0] < TW_MPI_COMMS;
        if (!tw_mpi_threads_on) {
            if (!ok || tw_mpi_comm_table[answer[0]]) return MPI_ERR_INTERN;
        } else {
            int say = say_of(ok, ok ? answer[0] : -1, 1);
            hold(ok ? answer[0] : -1, say, 1);
            int verdict = vote(context, 0, c->local_size, c->local_world, c->rank, 0, context, 0,
                               c->world[0], say);
            hold(ok ? answer[0] : -1, say, 0);
            if (verdict == 1) continue;
            if (verdict != 2) return MPI_ERR_INTERN;
        }
        *entry = answer[0];
        *remote_info = answer[1];
        return MPI_SUCCESS;
    }
}

int tw_mpi_intercomm_dup(tw_mpi_comm_t *p, MPI_Comm *out) {
    int entry, unused;
    int rc = inter_agree(p, 0, &entry, &unused);
    if (rc) return rc;
    return inter_new(entry, p->rank, p->size, p->world, p->local_size, p->local_world,
                     p->errhandler, out);
}

/* What each member tells its group's leader for a split. */
typedef struct split_ask {
    uint64_t used[WORDS];
    int color, key;
} split_ask_t;

/* Checks a split answer from the leader — entry, local size, my rank, remote size,
 * then both lists of world ranks — against c's groups. */
static int split_answer_ok(const tw_mpi_comm_t *c, const int *a, size_t len, int free_here) {
    if (len < 4 * sizeof *a) return 0;
    int entry = a[0], nl = a[1], me = a[2], nr = a[3];
    if (entry < -1 || entry >= TW_MPI_COMMS ||
        (free_here && entry >= 0 && tw_mpi_comm_table[entry]))
        return 0;
    if (nl < 0 || nl > c->local_size || nr < 0 || nr > c->size) return 0;
    if (len != ((size_t)nl + (size_t)nr + 4) * sizeof *a) return 0;
    if (nl == 0 || nr == 0 || entry < 0) return me == -1 || nl > 0;
    if (me < 0 || me >= nl || a[4 + me] != tw_mpi.rank) return 0;
    if (tw_mpi_check_worlds(nl, a + 4) || tw_mpi_check_worlds(nr, a + 4 + nl)) return 0;
    for (int k = 0; k < nr; k++) /* the remote ones are in c's remote group... */
        if (tw_mpi_comm_rank_of(c, a[4 + nl + k]) < 0) return 0;
    for (int k = 0; k < nl; k++) { /* ...and the local ones in its own */
        int found = 0;
        for (int j = 0; j < c->local_size && !found; j++) found = c->local_world[j] == a[4 + k];
        if (!found) return 0;
    }
    return 1;
}

/* The leader's answer for its member r: entry, the members of r's color in each
 * group by key (mine: color_key of my group; theirs: of the remote one). Its length. */
static size_t split_answer_for(const tw_mpi_comm_t *c, const int *mine, const int *theirs, int r,
                               int entry, int *order, int *answer) {
    int color = mine[2 * r], nl = tw_mpi_pick_color(c->local_size, mine, color, order), me = -1;
    for (int k = 0; k < nl; k++) {
        answer[4 + k] = c->local_world[order[k]];
        if (order[k] == r) me = k;
    }
    int nr = tw_mpi_pick_color(c->size, theirs, color, order);
    for (int k = 0; k < nr; k++) answer[4 + nl + k] = c->world[order[k]];
    answer[0] = entry;
    answer[1] = nl;
    answer[2] = me;
    answer[3] = nr;
    return ((size_t)nl + (size_t)nr + 4) * sizeof *answer;
}

/* The leader's part of a split: gathers its group's colors and keys, swaps them and
 * the used entries with the remote leader, answers each member. Its own answer's
 * length, or 0 when out of memory. */
static size_t split_lead(tw_mpi_comm_t *c, const split_ask_t *own, int *answer) {
    uint32_t context = c->context + TW_CTX_COLL;
    int n = c->local_size;
    int *mine = malloc(2 * (size_t)n * sizeof *mine);
    int *theirs = malloc(2 * (size_t)c->size * sizeof *theirs);
    int *order = malloc(((size_t)n + (size_t)c->size) * sizeof *order);
    size_t len = 0;
    if (mine && theirs && order) {
        uint64_t used[WORDS], their_used[WORDS];
        memcpy(used, own->used, sizeof used);
        mine[0] = own->color;
        mine[1] = own->key;
        for (int r = 1; r < n; r++) {
            split_ask_t a;
            if (tw_mpi_exchange(context, 0, -1, NULL, 0, c->local_world[r], &a, sizeof a) !=
                sizeof a) {
                memset(a.used, 0xff, sizeof a.used); /* unknown: nothing is free */
                a.color = MPI_UNDEFINED;
            }
            for (int w = 0; w < WORDS; w++) used[w] |= a.used[w];
            mine[2 * r] = a.color;
            mine[2 * r + 1] = a.key;
        }
        int other = c->world[0];
        if (tw_mpi_exchange(context, 0, other, used, sizeof used, other, their_used,
                            sizeof their_used) != sizeof their_used)
            memset(their_used, 0xff, sizeof their_used);
        if (tw_mpi_exchange(context, 0, other, mine, 2 * (size_t)n * sizeof *mine, other, theirs,
                            2 * (size_t)c->size * sizeof *theirs) !=
            2 * (size_t)c->size * sizeof *theirs)
            for (int q = 0; q < c->size; q++) theirs[2 * q] = MPI_UNDEFINED;
        for (int w = 0; w < WORDS; w++) used[w] |= their_used[w];
        int entry = tw_mpi_lowest_free(used);
        for (int r = 1; r < n; r++) {
            len = split_answer_for(c, mine, theirs, r, entry, order, answer);
            tw_mpi_exchange(context, 0, c->local_world[r], answer, len, -1, NULL, 0);
        }
        len = split_answer_for(c, mine, theirs, 0, entry, order, answer);
    }
    free(mine);
    free(theirs);
    free(order);
    return len;
}

int tw_mpi_intercomm_split(tw_mpi_comm_t *c, int color, int key, MPI_Comm *out) {
    split_ask_t mine = {.color = color, .key = key};
    size_t cap = ((size_t)c->local_size + (size_t)c->size + 4) * sizeof(int), len;
    int *answer = malloc(cap), rc = MPI_SUCCESS;
    if (!answer) return MPI_ERR_NO_MEM;
    *out = MPI_COMM_NULL;
    for (;;) {
        tw_mpi_used_entries(mine.used);
        if (c->rank == 0)
            len = split_lead(c, &mine, answer);
        else
            len = tw_mpi_exchange(c->context + TW_CTX_COLL, 0, c->local_world[0], &mine,
                                  sizeof mine, c->local_world[0], answer, cap);
        int ok = split_answer_ok(c, answer, len, !tw_mpi_threads_on);
        int wanted = ok && answer[1] > 0 && answer[3] > 0;
        if (!tw_mpi_threads_on) {
            if (!ok)
                rc = MPI_ERR_INTERN; /* the leader sent what cannot be */
            else if (wanted && answer[0] < 0)
                rc = MPI_ERR_INTERN; /* every entry of the table is in use somewhere */
            break;
        }
        int say = say_of(ok, ok ? answer[0] : -1, wanted);
        if (wanted) hold(answer[0], say, 1);
        uint32_t context = c->context + TW_CTX_COLL;
        int verdict = vote(context, 0, c->local_size, c->local_world, c->rank, 0, context, 0,
                           c->world[0], say);
        if (wanted) hold(answer[0], say, 0);
        if (verdict == 1) continue;
        if (verdict != 2) rc = MPI_ERR_INTERN;
        break;
    }
    if (!rc && answer[1] > 0 && answer[3] > 0)
        rc = inter_new(answer[0], answer[2], answer[3], answer + 4 + answer[1], answer[1],
                       answer + 4, c->errhandler, out);
    free(answer);
    return rc;
}

static int intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
    NEED_INIT("MPI_Intercomm_merge");
    tw_mpi_comm_t *c = tw_mpi_comm_get(intercomm);
    if (!c) return tw_mpi_error(NULL, "MPI_Intercomm_merge", MPI_ERR_COMM, NULL);
    if (!c->inter)
        return tw_mpi_error(c, "MPI_Intercomm_merge", MPI_ERR_COMM, "not an intercommunicator");
    if (!newintracomm) return tw_mpi_error(c, "MPI_Intercomm_merge", MPI_ERR_ARG, NULL);
    high = high != 0;
    int entry, remote_high;
    int rc = inter_agree(c, high, &entry, &remote_high);
    if (rc) return tw_mpi_error(c, "MPI_Intercomm_merge", rc, NULL);
    /* The group that passed high false comes first; when both passed the same, the
     * group whose leader has the lower world rank. */
    int first = high != (remote_high != 0) ? !high : c->local_world[0] < c->world[0];
    int n = c->local_size + c->size;
    int *world = malloc((size_t)n * sizeof *world);
    if (!world) return tw_mpi_error(c, "MPI_Intercomm_merge", MPI_ERR_NO_MEM, NULL);
    int *mine = first ? world : world + c->size, *theirs = first ? world + c->local_size : world;
    memcpy(mine, c->local_world, (size_t)c->local_size * sizeof *world);
    memcpy(theirs, c->world, (size_t)c->size * sizeof *world);
    tw_mpi_comm_t *m = tw_mpi_comm_new(entry, (int)(mine - world) + c->rank, n, world);
    if (!m) {
        free(world);
        return tw_mpi_error(c, "MPI_Intercomm_merge", MPI_ERR_NO_MEM, NULL);
    }
    m->errhandler = c->errhandler;
    *newintracomm = m->handle;
    return MPI_SUCCESS;
}

/* While these run, an MPI_Comm_idup under way picks no table entry (comm_idup.c): it
 * could take the one they are agreeing on, which their members learn of only at the
 * end (MPICH's comm_idup_comm, under load: MPI_ERR_INTERN, or a communicator made twice
 * in one entry). */
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm) {
    tw_mpi_comm_creating++;
    int rc =
        intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm);
    tw_mpi_comm_creating--;
    return rc;
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
    tw_mpi_comm_creating++;
    int rc = intercomm_merge(intercomm, high, newintracomm);
    tw_mpi_comm_creating--;
    return rc;
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag) {
    NEED_INIT("MPI_Comm_test_inter");
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c) return tw_mpi_error(NULL, "MPI_Comm_test_inter", MPI_ERR_COMM, NULL);
    if (!flag) return tw_mpi_error(c, "MPI_Comm_test_inter", MPI_ERR_ARG, NULL);
    *flag = c->inter;
    return MPI_SUCCESS;
}

/* An intercommunicator argument: c, or NULL after raising MPI_ERR_COMM as *rc. */
static tw_mpi_comm_t *inter(MPI_Comm comm, const char *call, int *rc) {
    tw_mpi_comm_t *c = tw_mpi_comm_get(comm);
    if (!c)
        *rc = tw_mpi_error(NULL, call, MPI_ERR_COMM, NULL);
    else if (!c->inter)
        *rc = tw_mpi_error(c, call, MPI_ERR_COMM, "not an intercommunicator");
    return c && c->inter ? c : NULL;
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size) {
    NEED_INIT("MPI_Comm_remote_size");
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = inter(comm, "MPI_Comm_remote_size", &rc);
    if (!c) return rc;
    if (!size) return tw_mpi_error(c, "MPI_Comm_remote_size", MPI_ERR_ARG, NULL);
    *size = c->size;
    return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group) {
    NEED_INIT("MPI_Comm_remote_group");
    int rc = MPI_SUCCESS;
    tw_mpi_comm_t *c = inter(comm, "MPI_Comm_remote_group", &rc);
    if (!c) return rc;
    if (!group) return tw_mpi_error(c, "MPI_Comm_remote_group", MPI_ERR_ARG, NULL);
    rc = tw_mpi_group_of(&c->remote_group, c->size, c->world, group);
    return rc ? tw_mpi_error(c, "MPI_Comm_remote_group", rc, NULL) : MPI_SUCCESS;
}
