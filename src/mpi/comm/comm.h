/* Communicators (comm.c, intercomm.c): the table, contexts, rank translation,
 * and what creating one needs. */
#ifndef TW_MPI_COMM_H
#define TW_MPI_COMM_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* A communicator's process topology (comm_create/topology.c makes it): one
 * allocation, freed with the communicator. */
typedef struct tw_topo {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* Cartesian: ndims dimensions, and this rank's coordinates */
    int ndims;
    int *dims, *periods, *coords;
    /* graph: the whole graph as given to MPI_Graph_create */
    int nnodes, nedges;
    int *index, *edges;
    /* distributed graph: weights NULL when unweighted */
    int weighted;
    int *sweights, *dweights;
    /* every kind: the ranks this one receives from (in order) and sends to (in
     * order); MPI_PROC_NULL for a Cartesian neighbour off the grid's edge. In a
     * distributed graph these are its sources and destinations. */
    int nin, nout;
    int *in, *out;
    size_t nints; /* every array above lies in data */
    int data[];
} tw_topo_t;

/* Communicator contexts: communicator k of the table uses context 2k for its
 * point-to-point traffic and 2k + 1 for its collectives, so the two never match. */
enum { TW_CTX_COLL = 1, TW_MPI_COMMS = 4096 };

typedef struct tw_mpi_comm {
    MPI_Comm handle;
    int rank, size;
    uint32_t context;
    struct tw_channel *channel; /* its point-to-point channel (pt2pt/channel.h), as its
                                   context id gives it */
    int *world;                 /* world rank of each rank; NULL for MPI_COMM_WORLD itself */
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

void tw_mpi_comm_fini(void);

/* The node of a world rank, named by the lowest world rank on it (comm.c). */
int tw_mpi_node(int world);
/* This rank's color for MPI_COMM_TYPE_SHARED: its node's, or (TW_LINK=udp: every peer
 * over the link, none mapped) its own rank, sharing memory with none. */
int tw_mpi_shared_color(void);
/* Peers' addresses became known (a connection, dynamic.c): the nodes are read again. */
void tw_mpi_node_forget(void);

/* ---- the table, for the making of communicators (comm_create/) ---- */
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
/* MPI_SUCCESS when every one of n world ranks is in range and none repeats. */
int tw_mpi_check_worlds(int n, const int *world);

/* The hints info gives a communicator (comm_info.c), as bits of its hints field: the
 * value for the hints given by info over the current ones. */
unsigned tw_mpi_comm_hints(MPI_Info info, unsigned current);

/* The parts of a communicator that units above this folder keep in it: its buffer
 * for buffered sends (pt2pt/bsend.c), its collectives' shared block (coll/coll_shm.c).
 * Each unit names, when it starts, what frees its part; tw_mpi_comm_destroy runs
 * them in this order (the buffered sends are delivered first). */
enum { TW_COMM_PART_BUFFER, TW_COMM_PART_COLL_SHM, TW_COMM_PARTS };
typedef void tw_mpi_comm_part_fn(tw_mpi_comm_t *c);
void tw_mpi_comm_on_destroy(int part, tw_mpi_comm_part_fn *fn);
/* What a unit above sets on every new communicator (its channel: pt2pt/engine.c). */
void tw_mpi_comm_on_new(tw_mpi_comm_part_fn *fn);

/* At tw_mpi_comm_init: errors on communicators go to their handlers from now on, and
 * the handlers' sweep sees those they hold (comm_errhandler.c). */
void tw_mpi_comm_errhandler_init(void);

#pragma GCC visibility pop

#endif
