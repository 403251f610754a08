/* What MPI puts on the wire: its VELO message kinds and their bodies. */
#ifndef TW_MPI_WIRE_H
#define TW_MPI_WIRE_H

#include <stdint.h>

#include <tollway/tollway.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

/* The kinds of VELO message MPI sends (the VELO tag). The point-to-point kinds are
 * dispatched directly by the engine (engine.c); the others go through the handler table
 * (progress.h). */
enum {
    TW_MPI_EAGER = 1,   /* header and payload */
    TW_MPI_RTS = 2,     /* request-to-send: header and tw_mpi_rts_t */
    TW_MPI_CTS = 3,     /* clear-to-send, receiver to sender: tw_mpi_cts_t */
    TW_MPI_READY = 4,   /* the next chunk of a chunked rendezvous is there: tw_mpi_ready_t */
    TW_MPI_WIN = 5,     /* window synchronisation (win_sync.c) */
    TW_MPI_LOST = 6,    /* a peer this sender found lost: tw_mpi_lost_notice_t (failure.c) */
    TW_MPI_PART = 7,    /* partitioned communication: pt2pt/partitioned_wire.h */
    TW_MPI_FIRST = 8,   /* a pipelined message's first piece: header, tw_mpi_first_t, data */
    TW_MPI_MORE = 9,    /* its next piece: data only */
    TW_MPI_PIECES = 10, /* a rendezvous by pieces' first: tw_mpi_pieces_t, data */
    TW_MPI_SYNC = 11,   /* a synchronous eager message: header, tw_mpi_sync_t, payload */
    TW_MPI_CANCEL = 12, /* a send's cancel, asked and answered: tw_mpi_cancel_t */
    TW_MPI_KINDS = 13   /* kinds are below this */
};

/* What a TW_MPI_LOST notice carries: the world rank found lost and the cause the
 * sender's device gave (TW_ERR_LOST, TW_ERR_RESET or TW_ERR_DESYNC). */
typedef struct tw_mpi_lost_notice {
    int32_t rank, cause;
} tw_mpi_lost_notice_t;

/* The header in front of every MPI message. */
typedef struct tw_mpi_hdr {
    int32_t tag;
    uint32_t context;
} tw_mpi_hdr_t;

/* What a request-to-send carries after the header. */
typedef struct tw_mpi_rts {
    uint64_t size;
    uint64_t nla, key;
    uint32_t sreq;  /* the sender's request handle */
    uint32_t split; /* 0, or the TW_RTS_* variant below; TW_RTS_SPLIT and TW_RTS_PUT are
                       answered with a CTS */
} tw_mpi_rts_t;

/* A split rendezvous's clear-to-send, receiver to sender: put [offset, offset + len)
 * of your buffer to nla (len 0: I get it all myself). After TW_RTS_PUT the offset is
 * 0 and len the whole receive (or 0). */
typedef struct tw_mpi_cts {
    uint32_t sreq, rreq;
    uint64_t nla, key;
    uint64_t offset, len;
} tw_mpi_cts_t;

#define TW_MPI_EAGER_MAX (TW_VELO_MAX_SIZE - sizeof(tw_mpi_hdr_t))

/* A synchronous send short enough (TW_MPI_SYNC_MAX) goes as an eager message that
 * names the send (TW_MPI_SYNC): the receiver takes it as an eager one and, once a
 * receive has matched it, answers with a CTS of no part, which completes the send. Two
 * messages, where a rendezvous takes three or a system call. */
typedef struct tw_mpi_sync {
    uint32_t sreq, pad; /* the sender's request handle; the payload stays 8-aligned */
} tw_mpi_sync_t;
#define TW_MPI_SYNC_MAX (TW_MPI_EAGER_MAX - sizeof(tw_mpi_sync_t))

/* MPI_Cancel of a send whose RTS or synchronous eager message went (engine.c): the
 * sender asks (TW_CANCEL_ASK) naming its request as that message did; the receiver
 * drops the message if no receive has taken it and answers TW_CANCEL_WITHDRAWN, else
 * TW_CANCEL_MATCHED, and the send then completes as it would have. The ask follows
 * the message on the same endpoint, which keeps the sender's order, so the receiver
 * has the message by then: kept, or taken by a receive. */
typedef struct tw_mpi_cancel {
    uint32_t sreq;    /* the sender's request handle */
    uint32_t verdict; /* TW_CANCEL_* */
} tw_mpi_cancel_t;
enum { TW_CANCEL_ASK = 1, TW_CANCEL_WITHDRAWN = 2, TW_CANCEL_MATCHED = 3 };

/* A pipelined message (proto_pipeline.c): what its first piece carries after the
 * header, the size of the whole message, then as much of the data as fills the VELO
 * message. The rest follows in the sender's next TW_MPI_MORE messages to that peer,
 * TW_VELO_MAX_SIZE bytes each but the last: VELO keeps a sender's order, and the
 * sender starts no other message to that peer before its last piece. The padding
 * puts every byte of the message at the same offset within a cache line in the
 * mailbox (whose payloads start 8 bytes into a line) as in a line-aligned buffer, so
 * that both copies run aligned. */
typedef struct tw_mpi_first {
    uint64_t size;
    unsigned char pad[TW_VELO_SLOT_SIZE - 8 - 8 - 8];
} tw_mpi_first_t;
#define TW_MPI_FIRST_PIECE (TW_VELO_MAX_SIZE - sizeof(tw_mpi_hdr_t) - sizeof(tw_mpi_first_t))
/* The largest pipelined message (TW_PIPELINE_LIMIT's most): a derived datatype's whole
 * packed stream fits its window (TW_PACK_CHUNK), and a receiver keeps no more than
 * this for one that comes before its receive. */
#define TW_MPI_PIPELINE_MOST ((size_t)256 << 10)

/* Rendezvous variants (tw_mpi_rts_t.split). TW_RTS_SPLIT: the receiver's CTS names a
 * part of its buffer for the sender to put while it gets the rest. A chunked
 * rendezvous (TW_RTS_CHUNKED): the sender's NLA names a window holding TW_PACK_CHUNK
 * bytes of its stream at a time, from 0. The receiver gets each chunk (nothing of
 * what lies past its buffer) asking for a responder notification; the sender then
 * packs the next chunk into the window and says so with a TW_MPI_READY. */
enum { TW_RTS_SPLIT = 1, TW_RTS_CHUNKED = 2 };
/* A rendezvous across nodes (tw_mpi_rts_t.split == TW_RTS_PUT): the receiver's CTS
 * names its whole buffer and the sender puts the message into it, which the udp link
 * sends from the sender's buffer and lands in the receiver's; a get's answer would be
 * copied aside for retransmission first. A receive that is unpacked from a window
 * (a derived datatype) answers with len 0 and gets the message as usual. */
enum { TW_RTS_PUT = 3 };
/* A rendezvous by pieces (TW_RTS_PIECES; on one node, a derived datatype's message
 * past what is pipelined at once, or a synchronous one of up to 16 KiB): the RTS names no memory
 * (nla and key 0). The receiver answers with a CTS of len 0, and the sender then sends the message
 * as a pipelined one's pieces, packed straight into the mailbox: a TW_MPI_PIECES naming the
 * receive, then TW_MPI_MORE, queued behind (and ahead of) its other messages to that
 * peer as a pipelined message is. So the receiver unpacks each piece while the sender
 * packs the next, and nothing comes before its receive does. */
enum { TW_RTS_PIECES = 4 };
/* The first piece of a rendezvous by pieces: the two requests, then as much data as
 * a pipelined message's first piece carries, at the same offset (so it too lands
 * line-aligned). */
typedef struct tw_mpi_pieces {
    uint32_t sreq, rreq;
    unsigned char pad[sizeof(tw_mpi_hdr_t) + sizeof(tw_mpi_first_t) - 8];
} tw_mpi_pieces_t;
_Static_assert(sizeof(tw_mpi_pieces_t) == sizeof(tw_mpi_hdr_t) + sizeof(tw_mpi_first_t),
               "a first piece's data at the same offset in both protocols");
typedef struct tw_mpi_ready {
    uint32_t sreq, rreq;
    uint64_t offset; /* the stream offset of the chunk now in the window */
} tw_mpi_ready_t;

#pragma GCC visibility pop

#endif
