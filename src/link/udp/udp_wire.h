/* The udp link's packet: a fixed header, then up to one MTU of payload.
 *
 * Every field is little-endian on the wire. A packet is trusted only once
 * tw_udp_decode has accepted it: right size, magic, CRC32Cs, message authentication
 * code and addressee, flags that make sense together, lengths that agree.
 *
 * Two CRC32Cs: crc over the whole packet, hcrc over the header and the first
 * TW_UDP_PREFIX bytes of the payload. hcrc lets a receiver that has read only that
 * much (tw_udp_decode_prefix) believe the header, and the headers of the layer above
 * within the prefix, before it chooses where the rest of the datagram goes.
 *
 * The MAC is SipHash-2-4 under the job's 128-bit secret over the whole header, its
 * own field taken as 0: every field, crc (which covers the payload) and hcrc; with
 * TW_UDP_MAC_PAYLOAD among the flags, over the header and then the payload. Only the
 * job's processes hold the secret, so only they make packets a receiver accepts; the
 * CRCs are computed with the MAC field taken as 0, so the MAC comes last when sealing. */
#ifndef TW_LINK_UDP_WIRE_H
#define TW_LINK_UDP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "link/siphash.h"

enum {
    TW_UDP_MAGIC = 0x32555754, /* "TWU2": authenticated */
    TW_UDP_HDR_SIZE = 48,
    TW_UDP_PREFIX = 96,        /* payload bytes under hcrc (fewer when the payload is shorter) */
    TW_UDP_MSG_MAX = 65536,    /* the longest message the link carries */
    TW_UDP_WINDOW_MAX = 65536, /* the most packets in flight per peer; held is no more */
};

/* flags */
enum {
    TW_UDP_DATA = 1,  /* carries a segment of a message, with a sequence number */
    TW_UDP_FIRST = 2, /* DATA: the message's first segment (msg_len says its size) */
    TW_UDP_LAST = 4,  /* DATA: the message's last segment */
    TW_UDP_ACK = 8,   /* ack is valid (every DATA packet carries one as well) */
    TW_UDP_FIN = 16,  /* bare ACK only: the sender has closed; its ack is final and it
                         takes nothing more (TCP's FIN, for a link that lingers) */
    /* control packets, alone, with no acknowledgement (liveness.h); PROBE and ECHO
       say in seq how far the sender's data to the addressee is acknowledged: */
    TW_UDP_RST = 32,    /* the sender had declared the addressee lost (TCP's RST) */
    TW_UDP_PROBE = 256, /* are you alive? (to a peer's liveness socket) */
    TW_UDP_ECHO = 512,  /* yes: the answer to a probe */
    TW_UDP_CONTROL = TW_UDP_RST | TW_UDP_PROBE | TW_UDP_ECHO,
    TW_UDP_FLAGS = 31 | TW_UDP_CONTROL,
};
/* DATA, under TW_UDP_AUTH=payload: the MAC covers the payload as well as the header */
enum { TW_UDP_MAC_PAYLOAD = 64 };

typedef struct tw_udp_hdr {
    uint32_t magic;
    uint32_t crc;      /* CRC32C of the header (crc, hcrc and mac taken as 0) and the payload */
    uint64_t mac;      /* SipHash-2-4 of the header, this field taken as 0, under the secret */
    uint32_t src, dst; /* endpoint ids */
    uint32_t seq;      /* DATA: this packet's sequence number, from 1; PROBE, ECHO: how far
                          the sender's data to the addressee is acknowledged (its una), 0
                          when it does not say */
    uint32_t ack;      /* ACK: every packet before this sequence number arrived */
    uint16_t flags;
    uint16_t len;     /* payload bytes after the header */
    uint32_t msg_len; /* FIRST: bytes of the whole message; else 0 */
    uint32_t hcrc;    /* CRC32C of the header (crc, hcrc and mac taken as 0) and the prefix */
    uint32_t held;    /* ACK: 0, or (2 or more) packets from ack up to and including the
                         furthest the receiver holds past the gap at ack */
} tw_udp_hdr_t;

/* Why a packet was refused (TW_UDP_OK: accepted). */
typedef enum tw_udp_verdict {
    TW_UDP_OK = 0,
    TW_UDP_SHORT,     /* shorter than a header */
    TW_UDP_BAD_MAGIC, /* not a packet of this protocol */
    TW_UDP_BAD_CRC,   /* damaged on the way */
    TW_UDP_BAD_MAC,   /* another job's, forged, or its MAC damaged */
    TW_UDP_BAD_LEN,   /* len disagrees with the datagram, or msg_len with len */
    TW_UDP_BAD_FIELD, /* flags, addressee or sequence numbers that cannot be */
    TW_UDP_VERDICTS
} tw_udp_verdict_t;

/* Writes hdr (its crc, hcrc and mac computed here, mac under key) and copies payload
 * behind it into pkt, which holds TW_UDP_HDR_SIZE + hdr->len bytes. */
void tw_udp_encode(void *pkt, tw_udp_hdr_t *hdr, const void *payload, const tw_siphash_key_t *key);
/* The same for a packet whose hdr->len bytes of payload are in place already. */
void tw_udp_seal(void *pkt, tw_udp_hdr_t *hdr, const tw_siphash_key_t *key);
/* The same for a packet whose last rest_len bytes of payload are at rest, not behind
 * the others (the prefix, at least, is in pkt). */
void tw_udp_seal_split(void *pkt, tw_udp_hdr_t *hdr, const void *rest, size_t rest_len,
                       const tw_siphash_key_t *key);
/* Seals again a packet sealed so (the last rest_len payload bytes at rest): its fields
 * as they are, both CRCs and the MAC computed anew over what pkt and rest hold now. */
void tw_udp_reseal(void *pkt, const void *rest, size_t rest_len, const tw_siphash_key_t *key);

/* Checks n bytes received by endpoint self of the job whose secret is key; on
 * TW_UDP_OK the header is in *hdr and the payload at pkt + TW_UDP_HDR_SIZE. In this
 * order: size, magic, hcrc, crc, MAC, lengths, fields (the first that fails names
 * the verdict: damage is told from forgery by the CRCs, which come first). */
tw_udp_verdict_t tw_udp_decode(const void *pkt, size_t n, const tw_siphash_key_t *key,
                               uint32_t self, tw_udp_hdr_t *hdr);

/* Checks the first n bytes (at least the header and the prefix, or the whole packet
 * when it is shorter) of a datagram of total bytes, as tw_udp_decode does but with
 * hcrc alone in place of both CRCs: the MAC proves the header, crc among it, so the
 * payload beyond n needs only tw_udp_crc_split_ok. A packet whose MAC covers payload
 * beyond n (TW_UDP_MAC_PAYLOAD) cannot be proven so: TW_UDP_BAD_MAC, as not proven
 * (such packets are received whole). */
tw_udp_verdict_t tw_udp_decode_prefix(const void *pkt, size_t n, size_t total,
                                      const tw_siphash_key_t *key, uint32_t self,
                                      tw_udp_hdr_t *hdr);
/* 1 when the CRC of a packet whose first n bytes are at pkt and the rest (rest_len
 * bytes) at rest is hdr->crc, for a packet whose header and prefix hcrc has proved
 * already (tw_udp_decode_prefix): the CRC goes on from hcrc over what follows the
 * prefix, so those bytes are not hashed again. */
int tw_udp_crc_split_ok(const void *pkt, size_t n, const void *rest, size_t rest_len,
                        const tw_udp_hdr_t *hdr);

const char *tw_udp_verdict_name(tw_udp_verdict_t v);

#endif
