/* Liveness of the peers of a link that carries messages (liveness.c: the udp and ofi
 * links): a socket and a thread of its own, speaking the udp link's control packets.
 *
 * A link hears from a peer while they exchange data. A rank that only waits — for a
 * message, in a collective — sends nothing, and a peer that stopped (killed, stopped,
 * cut off) would leave it waiting forever. So the thread probes every peer the link has
 * talked to that has been silent for a probe interval, while the link's owner polls
 * (it waits on something) or has data in flight to that peer; the peer's own thread
 * answers with an echo. A peer that answers neither data nor probes for the link's
 * timeout, probed all along, is declared lost: the only evidence taken. The answering
 * is done by a thread from the moment the link is open, not by the owner's polls, so
 * a peer that computes for minutes without calling the library is alive, not lost.
 *
 * Every peer answers every peer of the job, known or not: a link that was told where a
 * peer's liveness socket is (the exchanged address) introduces itself with probes
 * until the first echo, and a thread learns where a peer it was not told of lives from
 * that peer's first authenticated probe (as the link learns a data address from a
 * first packet). So both sides of any pair that exchanged data can probe each other,
 * whichever side spoke first.
 *
 * A peer that was declared lost and speaks again (it was stopped, or cut off, and
 * comes back) is answered with a reset (TW_UDP_RST), by the thread to its probes and
 * by the link to its data: it learns at once that it was declared lost and declares
 * this side lost in turn, with the cause TW_ERR_RESET.
 *
 * The probe interval is a tenth of the timeout, between 20 ms and 1 s; a silent peer
 * is declared lost between the timeout and the timeout plus one interval after its
 * last packet, counted from when probing began.
 *
 * Every probe and echo also says how far the sender's data to the addressee has been
 * acknowledged (its una, in seq). An honest peer's una is never past the last
 * acknowledgement this side sent it: that is where una comes from. A peer whose una
 * is past it took an acknowledgement this side never sent — forged by someone who
 * holds the job's secret — and gave up data this side never got, which it will never
 * send again: this side would wait for it for good while both threads answer each
 * other's probes. Such a peer is declared lost with the cause TW_ERR_DESYNC once two
 * announcements, half an interval apart or more, find it past an acknowledgement that
 * did not move in between (one forged announcement alone is not believed), and reset,
 * so that it fails too. No timer is involved: a slow retransmission, a receiver that
 * computes without polling or a stopped sender leave the peer's una behind this side's
 * acknowledgement, as ever.
 *
 * Shared with the link's owner, which drives the link: per peer, atomics only (the
 * owner publishes what it heard, what it has in flight, how far its data and the
 * peer's are acknowledged and what it declared; the thread publishes its verdicts
 * and counts them). */
#ifndef TW_LINK_UDP_LIVENESS_H
#define TW_LINK_UDP_LIVENESS_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stdint.h>

#include "link/udp/udp_wire.h"

/* Where a peer's liveness socket is, in one word so that the owner may publish it while
 * the thread reads it: 0 while unknown, else TW_UDP_LIVE_KNOWN, TW_UDP_LIVE_PUBLISHED
 * when it came from the exchanged address (learnt from a probe otherwise), the IPv4
 * address and the port, both in network order. */
enum { TW_UDP_LIVE_ADDR_SHIFT = 16 };
#define TW_UDP_LIVE_KNOWN     (1ull << 63)
#define TW_UDP_LIVE_PUBLISHED (1ull << 62)

typedef struct tw_udp_live_peer {
    _Atomic uint64_t where;    /* its liveness socket (above) */
    _Atomic int watched;       /* the link has talked to it, and it has not closed */
    _Atomic int in_flight;     /* the link has data to it not yet acknowledged */
    _Atomic int lost;          /* the link's verdict (0, or the cause): answered by resets */
    _Atomic int verdict;       /* the thread's: 0, TW_ERR_LOST, TW_ERR_RESET or TW_ERR_DESYNC */
    _Atomic uint64_t heard_ns; /* the last packet of data the link took from it */
    _Atomic uint64_t echo_ns;  /* the last echo or probe from it */
    _Atomic uint32_t una;      /* the link's data to it acknowledged up to here (announced) */
    _Atomic uint32_t acked;    /* the last acknowledgement the link sent it, published before
                                  it goes: the furthest the peer's una may honestly be */
    uint64_t probing_since, probe_ns, reset_ns; /* the thread's own */
    uint64_t ahead_ns; /* the thread's: when an announcement was first found past acked */
    uint32_t ahead_of; /* the thread's: the acked it was found past then */
} tw_udp_live_peer_t;

typedef struct tw_udp_liveness tw_udp_liveness_t;

/* Binds a socket on addr's IP address (port 0: any; the one got comes back in addr)
 * and starts the thread. NULL on failure, errno set. */
tw_udp_liveness_t *tw_udp_liveness_open(const tw_siphash_key_t *key, uint32_t self, uint32_t peers,
                                        unsigned timeout_ms, struct sockaddr_in *addr);
void tw_udp_liveness_close(tw_udp_liveness_t *lv);

/* Where peer's liveness socket is, as the job's exchange says: it replaces what a
 * probe taught, and the thread introduces this side to it. */
void tw_udp_liveness_set_peer(tw_udp_liveness_t *lv, uint32_t peer, const struct sockaddr_in *addr);
/* The peers' shared entries (an array of peers). */
tw_udp_live_peer_t *tw_udp_liveness_peers(tw_udp_liveness_t *lv);
/* The owner polls (it waits): probes go while this is recent. */
void tw_udp_liveness_polled(tw_udp_liveness_t *lv, uint64_t now_ns);
/* Verdicts the thread has reached so far: the owner looks at the peers when it changes. */
unsigned tw_udp_liveness_verdicts(tw_udp_liveness_t *lv);
/* Probe interval, in ns. */
uint64_t tw_udp_liveness_interval_ns(const tw_udp_liveness_t *lv);

/* Counters, read after close or by the owner (relaxed). */
typedef struct tw_udp_liveness_stats {
    uint64_t probes_sent, echoes_sent, resets_sent, resets_received, dropped;
} tw_udp_liveness_stats_t;
void tw_udp_liveness_stats(tw_udp_liveness_t *lv, tw_udp_liveness_stats_t *out);

/* A control packet (TW_UDP_PROBE, TW_UDP_ECHO, TW_UDP_RST) of the link's format, into
 * pkt (TW_UDP_HDR_SIZE bytes); una (0 for a RST): how far self's data to dst is
 * acknowledged, 0 to say nothing. */
void tw_udp_control_packet(void *pkt, const tw_siphash_key_t *key, uint32_t self, uint32_t dst,
                           uint16_t flag, uint32_t una);

#endif
