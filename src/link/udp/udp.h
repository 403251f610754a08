/* The udp link: reliable, in-order delivery of messages between endpoints on
 * different nodes, over one UDP socket per endpoint.
 *
 * Per pair of endpoints: sequence numbers, cumulative acknowledgements (carried by
 * every data packet, and sent alone when there is no data to carry them),
 * selective retransmission (the receiver keeps what comes after a gap, and its
 * acknowledgements say how far past the gap packets came) on a timeout set from the
 * measured round trip (RFC 6298) with exponential backoff, the first of them a probe
 * after two round trips (RFC 8985), or at once when the receiver reports three
 * packets past a missing one, duplicate suppression, CRC32C over header and payload,
 * and a bounded send window. A message longer than one packet is cut into segments
 * of the path MTU and put together again in order.
 * Sending is transactional, as posting to a VELO mailbox: a message either goes into
 * the window whole or the call returns TW_RETRY at once.
 *
 * A receiver that cannot take a message yet (its mailbox is full) refuses it; the
 * link keeps it, offers it again at every poll, and acknowledges nothing past it
 * until it is taken: the sender's window fills and its sends return TW_RETRY, so back
 * pressure travels to the sender instead of memory growing.
 *
 * A peer from which nothing is heard for `peer_timeout_ms` while data to it is
 * outstanding is declared lost: sends to it fail with TW_ERR_LOST. With `liveness`, a
 * second socket and a thread (liveness.h) also probe the peers while the owner waits,
 * answer the peers' probes, reset a peer declared lost that speaks again, and declare
 * lost a peer that gave up data this side never received (a forged acknowledgement).
 *
 * Every packet carries a MAC under the job's secret (udp_wire.h). Every datagram is
 * checked by tw_udp_decode before anything of it is used, then its source: a peer's
 * packets come from the address published for it (tw_udp_set_peer), or, for a peer
 * not told yet, from where its first authenticated packet came. Packets that replay
 * what was taken already (an old sequence number, an acknowledgement behind the one
 * taken) change nothing but the count. A refused one is counted by its reason. Faults can be
 * injected on the way out (drop, duplicate, reorder, corrupt, delay), each with a probability, to
 * exercise all of this on a healthy network. Not thread-safe: one thread drives a link. */
#ifndef TW_LINK_UDP_H
#define TW_LINK_UDP_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "link/udp/udp_wire.h"

typedef struct tw_udp_faults {
    double drop, duplicate, reorder, corrupt, delay; /* probabilities, 0 .. 1 */
    unsigned delay_us;                               /* how long a delayed packet waits */
    uint64_t seed;                                   /* of the injector's generator */
} tw_udp_faults_t;

enum { TW_UDP_SECRET_SIZE = TW_SIPHASH_KEY_SIZE };

typedef struct tw_udp_config {
    unsigned char secret[TW_UDP_SECRET_SIZE]; /* the job's: keys every packet's MAC */
    uint32_t self;                            /* this endpoint's id */
    uint32_t peers;                           /* ids are 0 .. peers - 1 */
    unsigned mtu;    /* bytes of IP datagram: payload per packet = mtu - 28 - header */
    unsigned window; /* packets in flight per peer (>= one longest message) */
    unsigned rto_us; /* least retransmission timeout after the first (a probe, sooner);
                        doubles per timeout up to 64x */
    unsigned peer_timeout_ms;
    unsigned ack_delay_us; /* how long an acknowledgement may wait for data to carry it */
    int liveness;          /* 1: probe the peers, answer theirs (liveness.h) */
    int mac_payload;       /* data packets' MACs cover their payloads (TW_UDP_MAC_PAYLOAD), and
                              a data packet whose MAC does not is refused; no receiving in place */
    int offload;           /* 1: segmentation offload both ways: runs of packets to one peer
                              leave as one datagram the kernel cuts (UDP_SEGMENT; off by
                              itself where the kernel refuses it), and below TW_UDP_IN_PLACE_MIN
                              a peer's packets may come joined into one (UDP_GRO) */
    tw_udp_faults_t faults;
} tw_udp_config_t;

/* Counters of one link. */
typedef struct tw_udp_stats {
    uint64_t msgs_sent, msgs_received, packets_sent, packets_received;
    uint64_t retransmits, timeouts, acks_sent, out_of_order;
    uint64_t duplicates; /* data packets taken or kept already (a resend, or a replay): dropped */
    uint64_t stale_acks; /* bare acknowledgements behind the last one taken, or of what was
                            never sent (late, or replayed): dropped */
    uint64_t fins_sent;  /* closing: FINs sent (tw_udp_finish) */
    uint64_t resets_sent, resets_received; /* TW_UDP_RST, on this socket */
    uint64_t refused;                      /* whole messages the receiver did not take at once */
    uint64_t in_place;                     /* messages received straight where they belong */
    uint64_t segmented; /* packets sent in runs the kernel cut (UDP_SEGMENT), not one by one */
    uint64_t joined;    /* packets received in datagrams the kernel joined (UDP_GRO) */
    uint64_t dropped[TW_UDP_VERDICTS]; /* received datagrams refused, by verdict */
    uint64_t unknown_peer;             /* accepted, but from no peer of this link */
    uint64_t wrong_source; /* accepted, but from another address or port than the peer's */
    uint64_t protocol;     /* segments out of order within a message */
    uint64_t injected_drop, injected_duplicate, injected_reorder, injected_corrupt, injected_delay;
} tw_udp_stats_t;

typedef struct tw_udp_link tw_udp_link_t;

/* Defaults: MTU 1500, window 64, least RTO 2 ms, peer timeout 30 s, segmentation on, no
 * faults. */
void tw_udp_config_default(tw_udp_config_t *cfg);

/* Opens a link bound to addr (port 0: any free port); the address it got comes back
 * in *addr. NULL on failure, with errno set (EINVAL: a configuration that cannot be). */
tw_udp_link_t *tw_udp_open(const tw_udp_config_t *cfg, struct sockaddr_in *addr);
void tw_udp_close(tw_udp_link_t *link);

/* Where peer id lives. TW_OK, or TW_ERR_RANK. */
int tw_udp_set_peer(tw_udp_link_t *link, uint32_t peer, const struct sockaddr_in *addr);
/* With liveness: the port of this link's liveness socket (on the link's address), and
 * the port of peer's, once its address is set. 0 / TW_ERR_RANK without liveness. */
unsigned tw_udp_liveness_port(const tw_udp_link_t *link);
int tw_udp_set_peer_liveness(tw_udp_link_t *link, uint32_t peer, unsigned port);

/* Queues a message of len bytes (up to TW_UDP_MSG_MAX) to peer and sends it: TW_OK,
 * TW_RETRY (the window has no room for it: poll and retry), TW_ERR_LOST, TW_ERR_SIZE,
 * TW_ERR_RANK, TW_ERR_NOMEM. */
int tw_udp_send(tw_udp_link_t *link, uint32_t peer, const void *msg, size_t len);
/* The same for a message gathered from n pieces (no copy of it is made first). */
int tw_udp_sendv(tw_udp_link_t *link, uint32_t peer, const struct iovec *iov, int n);
/* The same, but the last piece is sent (and sent again) from where it lies, not
 * copied into the send window, when the message goes as one packet: the caller keeps
 * it unchanged until the peer has acknowledged it, which it knows once the peer's
 * answer to the message has come (acknowledgements are taken before the data they
 * arrive with is delivered) or the peer is lost. */
int tw_udp_sendv_kept(tw_udp_link_t *link, uint32_t peer, const struct iovec *iov, int n);

/* Takes a message that arrived whole and in order: 0 when taken, non-zero to refuse
 * it for now (it comes again). */
typedef int (*tw_udp_deliver_fn)(void *ctx, uint32_t peer, const void *msg, size_t len);

/* Receiving in place. While large datagrams stream in, the link first reads the
 * header and the first TW_UDP_PREFIX bytes of each (believed through their own CRC)
 * and, for a message that is whole in this one datagram and next in order, asks land
 * where it should go: land returns dest and sets *skip (at most TW_UDP_PREFIX and the
 * message's length), and the kernel copies the message's first *skip bytes to the
 * link and the rest straight to dest. landed follows at once, with ok = 1 when the
 * datagram proved whole and undamaged (the message is then taken, as if delivered;
 * prefix holds its first skip bytes), or ok = 0 (nothing is taken; it comes again).
 * So land may write dest only with bytes that are written again before anyone may
 * read them. land returns NULL to take the message the usual way (deliver). */
typedef struct tw_udp_lander {
    void *(*land)(void *ctx, uint32_t peer, const void *prefix, size_t len, size_t *skip);
    void (*landed)(void *ctx, uint32_t peer, const void *prefix, size_t len, int ok);
} tw_udp_lander_t;
/* Datagrams from this size on are received in place when the lander allows it (never
 * with mac_payload: a lander set then is not used). */
enum { TW_UDP_IN_PLACE_MIN = 16384 };
void tw_udp_set_lander(tw_udp_link_t *link, const tw_udp_lander_t *lander);

/* Receives what arrived, acknowledges, retransmits what timed out, sends held
 * packets that are due. Returns the number of messages delivered. ctx goes to
 * deliver and to the lander. */
int tw_udp_poll(tw_udp_link_t *link, tw_udp_deliver_fn deliver, void *ctx);

/* Bytes of message one packet carries. */
size_t tw_udp_payload_max(const tw_udp_link_t *link);
/* 1 when tw_udp_send of len bytes to peer would not return TW_RETRY now. */
int tw_udp_room(const tw_udp_link_t *link, uint32_t peer, size_t len);
/* Packets sent to peer and not yet acknowledged. */
unsigned tw_udp_in_flight(const tw_udp_link_t *link, uint32_t peer);
/* 0 while peer is alive; once it has been declared lost, why: TW_ERR_LOST (it did not
 * answer for peer_timeout_ms), TW_ERR_RESET (it had declared us lost) or, with
 * liveness, TW_ERR_DESYNC (it gave up data this side never received: liveness.h). */
int tw_udp_peer_lost(const tw_udp_link_t *link, uint32_t peer);
/* Peers declared lost so far: a layer above looks for which only when it changes. */
unsigned tw_udp_lost_count(const tw_udp_link_t *link);
/* 1 when no packet waits for its acknowledgement (from a peer not lost) and no
 * acknowledgement waits to be sent: closing now loses nothing. */
int tw_udp_idle(const tw_udp_link_t *link);

/* Closing, once tw_udp_idle: sends FINs (a bare final acknowledgement) to the peers
 * heard from until each has sent its own, at most 10 rounds 10 ms apart; poll in
 * between. 1 when done: closing takes at most 100 ms past the last acknowledgement. */
int tw_udp_finish(tw_udp_link_t *link);
const tw_udp_stats_t *tw_udp_stats(const tw_udp_link_t *link);
/* The liveness thread's counters (zeros without liveness). */
void tw_udp_liveness_counters(const tw_udp_link_t *link, uint64_t *probes, uint64_t *echoes,
                              uint64_t *resets_sent, uint64_t *resets_received);
/* The socket, for a caller that wants to sleep in poll(2) until data comes. */
int tw_udp_fd(const tw_udp_link_t *link);
/* 1 when no timer of the link runs: idle (tw_udp_idle), no packet held back by the
 * fault injector, no message parked. */
int tw_udp_quiet(const tw_udp_link_t *link);

#endif
