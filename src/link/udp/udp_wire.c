#include "link/udp/udp_wire.h"

#include <endian.h>
#include <string.h>

#include "link/udp/crc32c.h"

_Static_assert(sizeof(tw_udp_hdr_t) == TW_UDP_HDR_SIZE, "the header has no padding");

static void to_wire(tw_udp_hdr_t *w, const tw_udp_hdr_t *h) {
    w->magic = htole32(h->magic);
    w->crc = htole32(h->crc);
    w->mac = htole64(h->mac);
    w->src = htole32(h->src);
    w->dst = htole32(h->dst);
    w->seq = htole32(h->seq);
    w->ack = htole32(h->ack);
    w->flags = htole16(h->flags);
    w->len = htole16(h->len);
    w->msg_len = htole32(h->msg_len);
    w->hcrc = htole32(h->hcrc);
    w->held = htole32(h->held);
}

static void from_wire(tw_udp_hdr_t *h, const tw_udp_hdr_t *w) {
    h->magic = le32toh(w->magic);
    h->crc = le32toh(w->crc);
    h->mac = le64toh(w->mac);
    h->src = le32toh(w->src);
    h->dst = le32toh(w->dst);
    h->seq = le32toh(w->seq);
    h->ack = le32toh(w->ack);
    h->flags = le16toh(w->flags);
    h->len = le16toh(w->len);
    h->msg_len = le32toh(w->msg_len);
    h->hcrc = le32toh(w->hcrc);
    h->held = le32toh(w->held);
}

/* CRC32C of a packet's header in wire order, its crc, hcrc and mac fields counted as 0. */
static uint32_t header_crc(const unsigned char *pkt) {
    tw_udp_hdr_t w;
    memcpy(&w, pkt, sizeof w);
    w.crc = w.hcrc = 0;
    w.mac = 0;
    return tw_crc32c(0, &w, sizeof w);
}

/* The MAC of a packet in wire order, its mac field counted as 0: of its header, or
 * with TW_UDP_MAC_PAYLOAD (flags as the header says) of its header then its payload,
 * here bytes behind the header and rest_len at rest. */
static uint64_t packet_mac(const unsigned char *pkt, uint16_t flags, size_t here, const void *rest,
                           size_t rest_len, const tw_siphash_key_t *key) {
    tw_udp_hdr_t w;
    memcpy(&w, pkt, sizeof w);
    w.mac = 0;
    if (!(flags & TW_UDP_MAC_PAYLOAD)) return tw_siphash24(key, &w, sizeof w);
    tw_siphash_t s;
    tw_siphash24_begin(&s, key);
    tw_siphash24_add(&s, &w, sizeof w);
    tw_siphash24_add(&s, pkt + TW_UDP_HDR_SIZE, here);
    if (rest_len) tw_siphash24_add(&s, rest, rest_len);
    return tw_siphash24_end(&s);
}

static size_t prefix_of(size_t payload) {
    return payload < TW_UDP_PREFIX ? payload : TW_UDP_PREFIX;
}

void tw_udp_encode(void *pkt, tw_udp_hdr_t *hdr, const void *payload, const tw_siphash_key_t *key) {
    if (hdr->len) memcpy((unsigned char *)pkt + TW_UDP_HDR_SIZE, payload, hdr->len);
    tw_udp_seal(pkt, hdr, key);
}

void tw_udp_seal(void *pkt, tw_udp_hdr_t *hdr, const tw_siphash_key_t *key) {
    tw_udp_seal_split(pkt, hdr, NULL, 0, key);
}

void tw_udp_seal_split(void *pkt, tw_udp_hdr_t *hdr, const void *rest, size_t rest_len,
                       const tw_siphash_key_t *key) {
    unsigned char *p = pkt;
    hdr->magic = TW_UDP_MAGIC;
    hdr->crc = hdr->hcrc = 0;
    hdr->mac = 0;
    tw_udp_hdr_t w;
    to_wire(&w, hdr);
    memcpy(p, &w, sizeof w);
    size_t here = hdr->len - rest_len; /* payload bytes in pkt */
    size_t prefix = prefix_of(hdr->len);
    uint32_t head = tw_crc32c(header_crc(p), p + TW_UDP_HDR_SIZE, prefix);
    hdr->hcrc = head;
    /* the whole packet's CRC goes on from the prefix's */
    uint32_t all = tw_crc32c(head, p + TW_UDP_HDR_SIZE + prefix, here - prefix);
    hdr->crc = rest_len ? tw_crc32c(all, rest, rest_len) : all;
    uint32_t crc = htole32(hdr->crc), hcrc = htole32(hdr->hcrc);
    memcpy(p + offsetof(tw_udp_hdr_t, crc), &crc, sizeof crc);
    memcpy(p + offsetof(tw_udp_hdr_t, hcrc), &hcrc, sizeof hcrc);
    /* last: the MAC covers both CRCs */
    hdr->mac = packet_mac(p, hdr->flags, here, rest, rest_len, key);
    uint64_t mac = htole64(hdr->mac);
    memcpy(p + offsetof(tw_udp_hdr_t, mac), &mac, sizeof mac);
}

void tw_udp_reseal(void *pkt, const void *rest, size_t rest_len, const tw_siphash_key_t *key) {
    tw_udp_hdr_t w, h;
    memcpy(&w, pkt, sizeof w);
    from_wire(&h, &w);
    tw_udp_seal_split(pkt, &h, rest, rest_len, key);
}

/* Flags, lengths and sequence numbers that can go together. */
static int fields_ok(const tw_udp_hdr_t *h) {
    if (h->flags & ~(TW_UDP_FLAGS | TW_UDP_MAC_PAYLOAD)) return 0;
    if (h->flags & TW_UDP_CONTROL) /* exactly one of them, and nothing else but a probe's
                                      or an echo's una */
        return (h->flags == TW_UDP_RST ? h->seq == 0
                                       : h->flags == TW_UDP_PROBE || h->flags == TW_UDP_ECHO) &&
               h->ack == 0 && h->msg_len == 0 && h->held == 0;
    if (!(h->flags & TW_UDP_DATA)) /* a bare acknowledgement, the last one with FIN */
        return (h->flags & ~TW_UDP_FIN) == TW_UDP_ACK && h->seq == 0 && h->msg_len == 0 &&
               h->ack != 0;
    if (h->flags & TW_UDP_FIN) return 0;
    if (h->seq == 0 || !(h->flags & TW_UDP_ACK) || h->ack == 0) return 0;
    return 1;
}

static int lengths_ok(const tw_udp_hdr_t *h) {
    if (!(h->flags & TW_UDP_DATA)) return h->len == 0;
    if (!(h->flags & TW_UDP_FIRST)) return h->msg_len == 0;
    if (h->msg_len > TW_UDP_MSG_MAX || h->len > h->msg_len) return 0;
    return !(h->flags & TW_UDP_LAST) || h->len == h->msg_len;
}

/* What both decoders check once the CRCs and the MAC are right. */
static tw_udp_verdict_t fields_verdict(const tw_udp_hdr_t *h, size_t n, uint32_t self) {
    if ((size_t)h->len != n - TW_UDP_HDR_SIZE || !lengths_ok(h)) return TW_UDP_BAD_LEN;
    if (h->dst != self || h->held == 1 || h->held > TW_UDP_WINDOW_MAX || !fields_ok(h))
        return TW_UDP_BAD_FIELD;
    return TW_UDP_OK;
}

/* Size, magic and hcrc: what tells a packet of this protocol, undamaged in its header
 * and prefix. TW_UDP_OK when they hold, *hdr read. */
static tw_udp_verdict_t prefix_verdict(const void *pkt, size_t n, size_t total, tw_udp_hdr_t *hdr) {
    if (n < TW_UDP_HDR_SIZE || total < TW_UDP_HDR_SIZE) return TW_UDP_SHORT;
    tw_udp_hdr_t w;
    memcpy(&w, pkt, sizeof w);
    from_wire(hdr, &w);
    if (hdr->magic != TW_UDP_MAGIC) return TW_UDP_BAD_MAGIC;
    size_t prefix = prefix_of(total - TW_UDP_HDR_SIZE);
    if (n < TW_UDP_HDR_SIZE + prefix) return TW_UDP_SHORT;
    const unsigned char *p = pkt;
    if (tw_crc32c(header_crc(p), p + TW_UDP_HDR_SIZE, prefix) != hdr->hcrc) return TW_UDP_BAD_CRC;
    return TW_UDP_OK;
}

/* The MAC, then the fields, of a packet of total bytes whose CRCs hold, n of them at
 * pkt. */
static tw_udp_verdict_t proven_verdict(const void *pkt, size_t n, size_t total,
                                       const tw_siphash_key_t *key, uint32_t self,
                                       const tw_udp_hdr_t *hdr) {
    if ((hdr->flags & TW_UDP_MAC_PAYLOAD) && n < total) return TW_UDP_BAD_MAC; /* not proven */
    if (packet_mac(pkt, hdr->flags, n - TW_UDP_HDR_SIZE, NULL, 0, key) != hdr->mac)
        return TW_UDP_BAD_MAC;
    return fields_verdict(hdr, total, self);
}

tw_udp_verdict_t tw_udp_decode_prefix(const void *pkt, size_t n, size_t total,
                                      const tw_siphash_key_t *key, uint32_t self,
                                      tw_udp_hdr_t *hdr) {
    tw_udp_verdict_t v = prefix_verdict(pkt, n, total, hdr);
    return v != TW_UDP_OK ? v : proven_verdict(pkt, n, total, key, self, hdr);
}

int tw_udp_crc_split_ok(const void *pkt, size_t n, const void *rest, size_t rest_len,
                        const tw_udp_hdr_t *hdr) {
    /* the whole packet's CRC goes on from hcrc (tw_udp_seal_split): only the payload
     * past the prefix, wherever it lies, is hashed here */
    const unsigned char *p = pkt;
    size_t here = n - TW_UDP_HDR_SIZE, prefix = prefix_of(here + rest_len);
    uint32_t c = hdr->hcrc;
    if (here > prefix) c = tw_crc32c(c, p + TW_UDP_HDR_SIZE + prefix, here - prefix);
    size_t in_rest = here < prefix ? prefix - here : 0; /* prefix bytes at the start of rest */
    if (rest_len > in_rest)
        c = tw_crc32c(c, (const unsigned char *)rest + in_rest, rest_len - in_rest);
    return c == hdr->crc;
}

tw_udp_verdict_t tw_udp_decode(const void *pkt, size_t n, const tw_siphash_key_t *key,
                               uint32_t self, tw_udp_hdr_t *hdr) {
    /* both CRCs, then the MAC, before any field is believed */
    tw_udp_verdict_t v = prefix_verdict(pkt, n, n, hdr);
    if (v != TW_UDP_OK) return v;
    if (!tw_udp_crc_split_ok(pkt, n, NULL, 0, hdr)) return TW_UDP_BAD_CRC;
    return proven_verdict(pkt, n, n, key, self, hdr);
}

const char *tw_udp_verdict_name(tw_udp_verdict_t v) {
    static const char *const names[TW_UDP_VERDICTS] = {
        "ok", "short", "bad magic", "bad crc", "bad mac", "bad length", "bad field"};
    return v < TW_UDP_VERDICTS ? names[v] : "unknown";
}
