/* Communicators (comm.c, intercomm.c): the table, contexts, rank translation,
 * and what creating one needs. */
#ifndef TW_MPI_COMM_H
#define TW_MPI_COMM_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* Communicator contexts: communicator k of the table uses context 2k for its
 * point-to-point traffic and 2k + 1 for its collectives, so the two never match. */
enum { TW_CTX_COLL = 1, TW_MPI_COMMS = 4096 };

typedef struct tw_mpi_comm {
    MPI_Comm handle;
    int rank, size;
    uint32_t context;
    int *world; /* world rank of each rank; NULL for MPI_COMM_WORLD itself */
    MPI_Errhandler errhandler;
    int inter;         /* an intercommunicator: size and world[] describe the remote group */
    uint32_t coll_seq; /* blocking collectives started here so far: each takes the next tag */
    uint32_t nbc_seq;  /* the same of the non-blocking ones, whose tags are apart */
    /* An intercommunicator's own group (rank is a rank in it); unused otherwise. */
    int local_size;
    int *local_world;
    MPI_Group group, remote_group;    /* made on first request (0 until then); held until freed */
    struct tw_mpi_attr *attrs;        /* cached attributes, in the order they were set */
    struct tw_coll_shm *shm;          /* the shared block of its collectives (coll_shm.c) */
    int shm_tried;                    /* its set-up ran (shm NULL: the ranks keep to messages) */
    struct tw_coll_shm *shm_given_up; /* shm, once this rank gave a call on it up: calls fail */
    unsigned hints;                   /* its info hints (comm_info.c) */
    char name[MPI_MAX_OBJECT_NAME];
    struct tw_topo *topo;       /* its process topology (topology.c); NULL: none */
    int session;                /* the session it derives from, as index + 1 (session.c); 0: none */
    struct tw_mpi_bbuf *buffer; /* its buffer for buffered sends (bsend.c); NULL: none */
    const char *hw_type; /* the mpi_hw_resource_type it was split by (split_hw.c); NULL: none */
} tw_mpi_comm_t;

/* The size of the group the calling process belongs to. */
static inline int tw_mpi_comm_local_size(const tw_mpi_comm_t *c) {
    return c->inter ? c->local_size : c->size;
}

/* The world rank of each rank of that group (NULL: rank r is world rank r). */
static inline const int *tw_mpi_comm_local_world(const tw_mpi_comm_t *c) {
    return c->inter ? c->local_world : c->world;
}

/* The tag of the next blocking collective on c, on c's collective context. Every
 * member starts c's collectives in the same order, so they agree on it; it is never
 * 0, the tag of the exchanges that create communicators. */
static inline int tw_mpi_coll_tag(tw_mpi_comm_t *c) {
    c->coll_seq = c->coll_seq % 0x3fffffffu + 1;
    return (int)c->coll_seq;
}

/* The tag of the next non-blocking collective on c: a sequence of their own, so a
 * blocking collective started while one is pending never takes its messages, even
 * where members start the two in different orders (as MPICH allows). */
static inline int tw_mpi_nbc_tag(tw_mpi_comm_t *c) {
    c->nbc_seq = c->nbc_seq % 0x3fffffffu + 1;
    return (int)(0x40000000u | c->nbc_seq);
}

/* The world rank of a communicator rank (MPI_PROC_NULL and MPI_ANY_SOURCE pass). */
static inline int tw_mpi_world_rank(const tw_mpi_comm_t *c, int rank) {
    return rank < 0 || !c->world ? rank : c->world[rank];
}

/* The communicators; entry k has contexts 2k and 2k + 1, and handle 0x44000000 | k. */
extern tw_mpi_comm_t *tw_mpi_comm_table[TW_MPI_COMMS];

/* The communicator of a handle; NULL when it names none. */
static inline tw_mpi_comm_t *tw_mpi_comm_get(MPI_Comm comm) {
    unsigned i = (unsigned)comm & 0xffffff;
    return ((unsigned)comm >> 24) == 0x44 && i < TW_MPI_COMMS ? tw_mpi_comm_table[i] : NULL;
}

/* The communicator a context belongs to; NULL once it is freed. */
static inline tw_mpi_comm_t *tw_mpi_comm_of_context(uint32_t context) {
    return context / 2 < TW_MPI_COMMS ? tw_mpi_comm_table[context / 2] : NULL;
}

int tw_mpi_comm_rank_search(const tw_mpi_comm_t *c, int world);

/* The communicator rank of a world rank, or -1 (MPI_PROC_NULL and MPI_ANY_SOURCE pass). */
static inline int tw_mpi_comm_rank_of(const tw_mpi_comm_t *c, int world) {
    return world < 0 || !c->world ? world : tw_mpi_comm_rank_search(c, world);
}
int tw_mpi_comm_init(void); /* WORLD and SELF */
/* The table entries that MPI_Comm_idup calls under way hold (comm_idup.c); they
 * count as used (tw_mpi_used_entries). */
extern uint64_t tw_mpi_comm_held[TW_MPI_COMMS / 64];
/* Blocking creations (dup, split) under way here: an idup takes no entry meanwhile,
 * since the entry a creation will get is known only when it ends. */
extern int tw_mpi_comm_creating;

/* Checks the answer a communicator split gets from the parent's rank 0 — len bytes
 * of: table entry (-1: none free), new size n, new rank, n world ranks — before any
 * of it is used. 1 when every field is in range and this process is where it says. */
static inline int tw_mpi_split_answer_ok(const int *a, size_t len, int parent_size, int world_size,
                                         int my_world) {
    if (len < 3 * sizeof *a) return 0;
    int entry = a[0], n = a[1], me = a[2];
    if (entry < -1 || entry >= TW_MPI_COMMS) return 0;
    if (n < 0 || n > parent_size || len != ((size_t)n + 3) * sizeof *a) return 0;
    if (entry == -1 || n == 0) return n == 0 && me == -1;
    if (me < 0 || me >= n || a[3 + me] != my_world) return 0;
    for (int k = 0; k < n; k++)
        if (a[3 + k] < 0 || a[3 + k] >= world_size) return 0;
    return 1;
}
void tw_mpi_comm_fini(void);

/* The node of a world rank, named by the lowest world rank on it (comm.c). */
int tw_mpi_node(int world);
/* Peers' addresses became known (a connection, dynamic.c): the nodes are read again. */
void tw_mpi_node_forget(void);

/* ---- communicator creation (comm.c), shared with intercomm.c ---- */
enum { TW_MPI_USED_WORDS = TW_MPI_COMMS / 64 };
/* A new communicator in table entry index, its handlers MPI_ERRORS_ARE_FATAL; it
 * takes world (malloc'ed). NULL when out of memory. */
tw_mpi_comm_t *tw_mpi_comm_new(int index, int rank, int size, int *world);
/* Frees c and its table entry, without running attribute callbacks. */
void tw_mpi_comm_destroy(tw_mpi_comm_t *c);
/* The table entries this process uses, and the lowest entry free in such a bitmap
 * (-1: none). */
void tw_mpi_used_entries(uint64_t used[TW_MPI_USED_WORDS]);
int tw_mpi_lowest_free(const uint64_t used[TW_MPI_USED_WORDS]);
/* Sends out to world rank to and/or receives into in from world rank from (-1: not),
 * on context and tag; the bytes received (0 when a longer message was cut). */
size_t tw_mpi_exchange(uint32_t context, int tag, int to, const void *out, size_t outlen, int from,
                       void *in, size_t inlen);
/* The tags of the creation exchanges that are not collective over the communicator
 * they run on: negative, so never a collective's or a split's, and apart by kind. A
 * user tag picks one of 2^29 (tags equal modulo 2^29 share one). */
enum { TW_MPI_TAG_CREATE_GROUP = 0, TW_MPI_TAG_INTERCOMM_CREATE = 1, TW_MPI_TAG_FROM_GROUP = 2 };
static inline int tw_mpi_creation_tag(int kind, int tag) {
    return -2 - kind * 0x20000000 - (tag & 0x1fffffff);
}
/* Makes an intracommunicator of the n processes members[] (world ranks; `me` the
 * caller's index), ordered by key, coordinated by members[0] on context and tag;
 * *out gets errhandler eh. Collective over the members (comm.c). */
int tw_mpi_create_round(uint32_t context, int tag, int n, int me, const int *members, int key,
                        MPI_Errhandler eh, MPI_Comm *out);
/* The members of a split that chose color, as indices into n (color, key) pairs,
 * ordered by key then index; their number (0 for MPI_UNDEFINED). */
int tw_mpi_pick_color(int n, const int *color_key, int color, int *order);
/* MPI_SUCCESS when every one of n world ranks is in range and none repeats. */
int tw_mpi_check_worlds(int n, const int *world);

/* A split of p by color (MPI_UNDEFINED: none) and key: of its local group when p is
 * an intercommunicator; an error class. */
int tw_mpi_comm_split_color(tw_mpi_comm_t *p, int color, int key, MPI_Comm *newcomm);

/* ---- intercommunicators (intercomm.c) ---- */
/* Checks the answer a member of MPI_Intercomm_create gets from its leader — len bytes
 * of: table entry, remote size n, n world ranks — before any of it is used. 1 when
 * the entry exists, n is 1..world_size, the ranks are in range, none repeats and
 * none is in the local group (local_n world ranks; NULL: 0..local_n-1). */
static inline int tw_mpi_intercomm_answer_ok(const int *a, size_t len, int world_size, int local_n,
                                             const int *local) {
    if (len < 2 * sizeof *a) return 0;
    int entry = a[0], n = a[1];
    if (entry < 0 || entry >= TW_MPI_COMMS) return 0;
    if (n < 1 || n > world_size || len != ((size_t)n + 2) * sizeof *a) return 0;
    for (int k = 0; k < n; k++) {
        int w = a[2 + k];
        if (w < 0 || w >= world_size) return 0;
        for (int j = 0; j < k; j++)
            if (a[2 + j] == w) return 0;
        for (int j = 0; j < local_n; j++)
            if ((local ? local[j] : j) == w) return 0; /* the groups must be disjoint */
    }
    return 1;
}

/* The hints info gives a communicator (comm_info.c), as bits of its hints field: the
 * value for the hints given by info over the current ones. */
unsigned tw_mpi_comm_hints(MPI_Info info, unsigned current);

/* At tw_mpi_comm_init: errors on communicators go to their handlers from now on, and
 * the handlers' sweep sees those they hold (comm_errhandler.c). */
void tw_mpi_comm_errhandler_init(void);

#pragma GCC visibility pop

#endif
