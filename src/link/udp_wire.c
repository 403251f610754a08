#include "link/udp_wire.h"

#include <endian.h>
#include <string.h>

#include "link/crc32c.h"

_Static_assert(sizeof(tw_udp_hdr_t) == TW_UDP_HDR_SIZE, "the header has no padding");

static void to_wire(tw_udp_hdr_t *w, const tw_udp_hdr_t *h) {
    w->magic = htole32(h->magic);
    w->crc = htole32(h->crc);
    w->job_key = htole64(h->job_key);
    w->src = htole32(h->src);
    w->dst = htole32(h->dst);
    w->seq = htole32(h->seq);
    w->ack = htole32(h->ack);
    w->flags = htole16(h->flags);
    w->len = htole16(h->len);
    w->msg_len = htole32(h->msg_len);
}

static void from_wire(tw_udp_hdr_t *h, const tw_udp_hdr_t *w) {
    h->magic = le32toh(w->magic);
    h->crc = le32toh(w->crc);
    h->job_key = le64toh(w->job_key);
    h->src = le32toh(w->src);
    h->dst = le32toh(w->dst);
    h->seq = le32toh(w->seq);
    h->ack = le32toh(w->ack);
    h->flags = le16toh(w->flags);
    h->len = le16toh(w->len);
    h->msg_len = le32toh(w->msg_len);
}

/* CRC32C of a packet whose header is in wire order, its crc field counted as 0. */
static uint32_t packet_crc(const unsigned char *pkt, size_t n) {
    static const uint32_t zero = 0;
    uint32_t c = tw_crc32c(0, pkt, offsetof(tw_udp_hdr_t, crc));
    c = tw_crc32c(c, &zero, sizeof zero);
    size_t rest = offsetof(tw_udp_hdr_t, crc) + sizeof zero;
    return tw_crc32c(c, pkt + rest, n - rest);
}

void tw_udp_encode(void *pkt, tw_udp_hdr_t *hdr, const void *payload) {
    if (hdr->len) memcpy((unsigned char *)pkt + TW_UDP_HDR_SIZE, payload, hdr->len);
    tw_udp_seal(pkt, hdr);
}

void tw_udp_seal(void *pkt, tw_udp_hdr_t *hdr) {
    unsigned char *p = pkt;
    hdr->magic = TW_UDP_MAGIC;
    hdr->crc = 0;
    tw_udp_hdr_t w;
    to_wire(&w, hdr);
    memcpy(p, &w, sizeof w);
    hdr->crc = packet_crc(p, TW_UDP_HDR_SIZE + (size_t)hdr->len);
    uint32_t crc = htole32(hdr->crc);
    memcpy(p + offsetof(tw_udp_hdr_t, crc), &crc, sizeof crc);
}

/* Flags, lengths and sequence numbers that can go together. */
static int fields_ok(const tw_udp_hdr_t *h) {
    if (h->flags & ~TW_UDP_FLAGS) return 0;
    if (!(h->flags & TW_UDP_DATA)) /* a bare acknowledgement */
        return h->flags == TW_UDP_ACK && h->seq == 0 && h->msg_len == 0 && h->ack != 0;
    if (h->seq == 0 || !(h->flags & TW_UDP_ACK) || h->ack == 0) return 0;
    return 1;
}

static int lengths_ok(const tw_udp_hdr_t *h) {
    if (!(h->flags & TW_UDP_DATA)) return h->len == 0;
    if (!(h->flags & TW_UDP_FIRST)) return h->msg_len == 0;
    if (h->msg_len > TW_UDP_MSG_MAX || h->len > h->msg_len) return 0;
    return !(h->flags & TW_UDP_LAST) || h->len == h->msg_len;
}

tw_udp_verdict_t tw_udp_decode(const void *pkt, size_t n, uint64_t job_key, uint32_t self,
                               tw_udp_hdr_t *hdr) {
    if (n < TW_UDP_HDR_SIZE) return TW_UDP_SHORT;
    tw_udp_hdr_t w;
    memcpy(&w, pkt, sizeof w);
    from_wire(hdr, &w);
    if (hdr->magic != TW_UDP_MAGIC) return TW_UDP_BAD_MAGIC;
    if (packet_crc(pkt, n) != hdr->crc) return TW_UDP_BAD_CRC;
    if (hdr->job_key != job_key) return TW_UDP_BAD_KEY;
    if ((size_t)hdr->len != n - TW_UDP_HDR_SIZE || !lengths_ok(hdr)) return TW_UDP_BAD_LEN;
    if (hdr->dst != self || !fields_ok(hdr)) return TW_UDP_BAD_FIELD;
    return TW_UDP_OK;
}

const char *tw_udp_verdict_name(tw_udp_verdict_t v) {
    static const char *const names[TW_UDP_VERDICTS] = {
        "ok", "short", "bad magic", "bad crc", "wrong job key", "bad length", "bad field"};
    return v < TW_UDP_VERDICTS ? names[v] : "unknown";
}
