/* Fuzz target of what the MPI layer takes from a peer's VELO message and from a
 * rendezvous notification (src/mpi/pt2pt/wire_check.h, the checks engine.c, proto_eager.c,
 * proto_pipeline.c, proto_rndv_get.c and proto_rndv_split.c run): the envelope of an eager
 * message, synchronous eager message or request-to-send, a pipelined message's pieces,
 * and the request a
 * clear-to-send, a READY, a rendezvous by pieces' first piece, a send's cancel or a
 * notification names.
 *
 * Byte 0 picks the mode. Envelope: byte 1 says eager or RTS and the tag a receive asks
 * for, the rest is the message. Pieces: byte 1 says first piece or a later one, bytes
 * 2-9 are the receiver's state for the sender (bytes come, of the message's size:
 * 32 bits each), the rest is the message.
 * The others: bytes 1-22 set up one slot of the request pool (slot, generation, kind,
 * state, protocol, done and a cancel's step, parts, peer, source of its RTS, the sender's
 * handle in it, and the send's size or the RTS's), byte 23 is the world rank the message
 * comes from, and the rest is the CTS, READY, first piece or cancel, or the notification
 * (op, class, status, peer, cookie). Every verdict agrees with a plain reading of the
 * rules; an accepted message names the slot set up, a request of the right kind, state
 * and peer, and a CTS's part lies inside the send's buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mpi/pt2pt/wire_check.h"

/* The request pool the checks look into: only the slot an input sets up is non-zero. */
static req_t pool[TW_MAX_REQUESTS + 1];
req_t *tw_reqs = pool;

enum {
    MODE_ENVELOPE,
    MODE_CTS,
    MODE_READY,
    MODE_NOTIFIED,
    MODE_PIECES,
    MODE_RNDV_PIECES,
    MODE_SYNC,
    MODE_CANCEL,
    MODES
};
enum { SETUP = 24, NOTE = 16 };

static long tried[MODES], accepted[MODES];

static uint64_t get64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint32_t get32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void envelope(const uint8_t *data, size_t size) {
    int is_rts = data[1] & 1;
    const uint8_t *msg = data + 2;
    size_t len = size - 2;
    tw_mpi_hdr_t h;
    tw_mpi_rts_t rts;
    memset(&rts, 0xa5, sizeof rts);
    int ok = tw_mpi_envelope_take(msg, len, &h, is_rts ? &rts : NULL);
    /* the model: a header, a tag of 0 or more on a point-to-point (even) context, and
     * for an RTS exactly its body, of a known variant */
    int want = len >= 8 && ((int32_t)get32(msg) >= 0 || (get32(msg + 4) & 1)) &&
               (!is_rts || (len == 8 + 32 && get32(msg + 8 + 28) <= TW_RTS_PIECES));
    FUZZ_CHECK(ok == want);
    tried[MODE_ENVELOPE]++;
    /* the blocking receive's fast path reads the header only, and its matching takes no
     * negative tag, whatever the receive asks for */
    tw_mpi_hdr_t head;
    FUZZ_CHECK(tw_mpi_header_take(msg, len, &head) == (len >= 8));
    if (len >= 8) {
        /* any tag, one of 0 or more, or a creation exchange's negative one */
        int want_tag = data[1] & 2 ? MPI_ANY_TAG : data[1] & 4 ? -2 - (data[1] >> 3) : data[1] >> 3;
        int taken =
            tw_match_accepts(MPI_ANY_SOURCE, want_tag, head.context, 3, head.tag, head.context);
        FUZZ_CHECK(taken == (want_tag == MPI_ANY_TAG ? head.tag >= 0 : want_tag == head.tag));
    }
    if (!ok) return;
    accepted[MODE_ENVELOPE]++;
    FUZZ_CHECK(h.tag == (int32_t)get32(msg) && h.context == get32(msg + 4));
    FUZZ_CHECK(h.tag >= 0 || h.context % 2 == 1);
    if (is_rts) {
        FUZZ_CHECK(rts.size == get64(msg + 8) && rts.nla == get64(msg + 16) &&
                   rts.key == get64(msg + 24) && rts.sreq == get32(msg + 32) &&
                   rts.split == get32(msg + 36));
        FUZZ_CHECK(rts.split == 0 || rts.split == TW_RTS_SPLIT || rts.split == TW_RTS_CHUNKED ||
                   rts.split == TW_RTS_PUT || rts.split == TW_RTS_PIECES);
    }
}

/* A synchronous eager message: an eager envelope, then the sender's handle. */
static void sync_eager(const uint8_t *data, size_t size) {
    const uint8_t *msg = data + 1;
    size_t len = size - 1;
    tw_mpi_hdr_t h;
    uint32_t sreq = 0xa5a5a5a5u;
    int ok = tw_mpi_sync_take(msg, len, &h, &sreq);
    tried[MODE_SYNC]++;
    int want = len >= 16 && ((int32_t)get32(msg) >= 0 || (get32(msg + 4) & 1));
    FUZZ_CHECK(sizeof(tw_mpi_sync_t) == 8 && ok == want);
    if (!ok) return;
    accepted[MODE_SYNC]++;
    FUZZ_CHECK(h.tag == (int32_t)get32(msg) && h.context == get32(msg + 4) &&
               sreq == get32(msg + 8));
}

/* Whether handle h names slot i as it is now: the model of tw_req_index. */
static int names(uint32_t h, int i) {
    return i > 0 && h >> 24 == 0x2c && (h & 0xffff) == (uint32_t)i &&
           ((h >> 16) & 0xff) == pool[i].gen &&
           (pool[i].kind == REQ_SEND || pool[i].kind == REQ_RECV || pool[i].kind == REQ_COLL ||
            pool[i].kind == REQ_GREQ);
}

static void cts(int slot, int source, const uint8_t *body, size_t len) {
    tw_mpi_cts_t c;
    int i = tw_mpi_cts_check(source, body, len, &c);
    tried[MODE_CTS]++;
    int want = 0;
    if (len == sizeof c) {
        uint32_t sreq = get32(body);
        uint64_t offset = get64(body + 24), part = get64(body + 32);
        const req_t *r = &pool[slot];
        want = names(sreq, slot) && r->kind == REQ_SEND && r->state == TW_STATE_WAIT_CTS &&
               r->peer == source && !r->done && (unsigned __int128)offset + part <= r->bytes &&
               !(r->proto == TW_PROTO_RNDV_PUT && offset) &&
               !((r->proto == TW_PROTO_RNDV_PIECES || r->proto == TW_PROTO_EAGER_SYNC) &&
                 (offset || part));
    }
    FUZZ_CHECK((i != 0) == want);
    if (!i) return;
    accepted[MODE_CTS]++;
    FUZZ_CHECK(i == slot && !memcmp(&c, body, sizeof c));
    /* what the put then reads lies inside the send's buffer */
    FUZZ_CHECK(c.offset <= pool[i].bytes && c.offset + c.len <= pool[i].bytes &&
               c.offset + c.len >= c.offset);
}

static void ready(int slot, int source, const uint8_t *body, size_t len) {
    tw_mpi_ready_t m;
    int i = tw_mpi_ready_check(source, body, len, &m);
    tried[MODE_READY]++;
    int want = 0;
    if (len == sizeof m) {
        const req_t *r = &pool[slot];
        want = names(get32(body + 4), slot) && r->kind == REQ_RECV &&
               r->proto == TW_PROTO_RNDV_CHUNKED && !r->done && r->got_from == source &&
               r->got.sreq == get32(body) && get64(body + 8) < r->got.size;
    }
    FUZZ_CHECK((i != 0) == want);
    if (!i) return;
    accepted[MODE_READY]++;
    FUZZ_CHECK(i == slot && !memcmp(&m, body, sizeof m) && m.offset < pool[i].got.size);
}

/* A rendezvous by pieces' first piece: the receive it names, waiting for it. */
static void rndv_piece(int slot, int source, const uint8_t *body, size_t len) {
    int i = tw_mpi_pieces_check(source, body, len);
    tried[MODE_RNDV_PIECES]++;
    int want = 0;
    if (len >= 56) {
        const req_t *r = &pool[slot];
        size_t of = (size_t)r->got.size;
        want = names(get32(body + 4), slot) && r->kind == REQ_RECV &&
               r->proto == TW_PROTO_RNDV_PIECES && r->state == TW_STATE_CTS_SENT && !r->done &&
               r->got_from == source && r->got.sreq == get32(body) && of &&
               len - 56 == (of < 4096 ? of : 4096);
    }
    FUZZ_CHECK(sizeof(tw_mpi_pieces_t) == 56);
    FUZZ_CHECK((i != 0) == want);
    if (!i) return;
    accepted[MODE_RNDV_PIECES]++;
    FUZZ_CHECK(i == slot && len - 56 <= pool[i].got.size);
}

/* A send's cancel: an ask is taken whatever it names (the receiver looks for the
 * message among those it keeps); an answer only for a send of ours to that peer that
 * asked and waits. */
static void cancel(int slot, int source, const uint8_t *body, size_t len) {
    tw_mpi_cancel_t c;
    int ok = tw_mpi_cancel_take(body, len, &c);
    tried[MODE_CANCEL]++;
    uint32_t verdict = len == 8 ? get32(body + 4) : 0;
    FUZZ_CHECK(sizeof c == 8 && ok == (len == 8 && verdict >= 1 && verdict <= 3));
    if (!ok) return;
    FUZZ_CHECK(c.sreq == get32(body) && c.verdict == verdict);
    int i = tw_mpi_cancel_answer_check(source, &c);
    const req_t *r = &pool[slot];
    int want = verdict != TW_CANCEL_ASK && names(c.sreq, slot) && r->kind == REQ_SEND &&
               r->peer == source && r->cancel_asked == TW_CANCEL_ASKED && !r->done;
    FUZZ_CHECK((i != 0) == want);
    if (!i) return;
    accepted[MODE_CANCEL]++;
    FUZZ_CHECK(i == slot && pool[i].kind == REQ_SEND);
}

static void notified(int slot, const uint8_t *note) {
    tw_notification_t n = {.op = note[0],
                           .cls = note[1],
                           .success = note[2] & 1,
                           .status = (int8_t)note[3],
                           .peer = (int8_t)note[4],
                           .cookie = get64(note + 8)};
    int i = tw_mpi_notified_check(&n);
    tried[MODE_NOTIFIED]++;
    int want = 0;
    if (n.op == TW_OP_GET || n.op == TW_OP_PUT) {
        int high = n.cls == TW_NOTIFY_RESPONDER ||
                   (n.op == TW_OP_PUT && n.cls == TW_NOTIFY_COMPLETER && n.status == TW_OK);
        uint32_t h = high ? (uint32_t)(n.cookie >> 32) : (uint32_t)n.cookie;
        const req_t *r = &pool[slot];
        want =
            names(h, slot) && r->parts && n.peer == (r->kind == REQ_SEND ? r->peer : r->got_from);
    }
    FUZZ_CHECK((i != 0) == want);
    if (!i) return;
    accepted[MODE_NOTIFIED]++;
    /* a notification completes a request awaiting a part, of the peer it names */
    FUZZ_CHECK(i == slot && pool[i].parts > 0);
    FUZZ_CHECK(n.peer == pool[i].peer || n.peer == pool[i].got_from);
}

/* A first piece, or a later one for a message of size bytes of which at have come. */
static void pieces(const uint8_t *data, size_t size) {
    if (size < 10) return;
    const uint8_t *msg = data + 10;
    size_t len = size - 10, head = sizeof(tw_mpi_hdr_t) + sizeof(tw_mpi_first_t);
    tried[MODE_PIECES]++;
    if (data[1] & 1) {
        size_t at = get32(data + 2), of = get32(data + 6);
        int ok = tw_mpi_piece_check(at, of, len);
        /* the model: the next piece, of a message under way: 4152 bytes or what is left */
        FUZZ_CHECK(ok == (at < of && len == (of - at < 4152 ? of - at : 4152)));
        accepted[MODE_PIECES] += ok;
        return;
    }
    tw_mpi_hdr_t h;
    size_t n = 0;
    int ok = tw_mpi_first_take(msg, len, &h, &n);
    /* the model: an envelope as an eager one's, a size from 1 to the most, and the first
     * TW_MPI_FIRST_PIECE bytes of it (all of it when shorter) after the 56-byte head */
    uint64_t want_size = len >= 16 ? get64(msg + 8) : 0;
    int want = len >= head && ((int32_t)get32(msg) >= 0 || (get32(msg + 4) & 1)) && want_size &&
               want_size <= TW_MPI_PIPELINE_MOST &&
               len - head == (want_size < 4096 ? want_size : 4096);
    FUZZ_CHECK(head == 56 && TW_MPI_FIRST_PIECE == 4096);
    FUZZ_CHECK(ok == want);
    if (!ok) return;
    accepted[MODE_PIECES]++;
    FUZZ_CHECK(n == want_size && h.tag == (int32_t)get32(msg) && h.context == get32(msg + 4));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    unsigned mode = data[0] % MODES;
    if (mode == MODE_ENVELOPE) {
        envelope(data, size);
        return 0;
    }
    if (mode == MODE_PIECES) {
        pieces(data, size);
        return 0;
    }
    if (mode == MODE_SYNC) {
        sync_eager(data, size);
        return 0;
    }
    if (size < SETUP) return 0;
    const uint8_t *s = data + 1;
    int slot = (int)(s[0] | s[1] << 8);
    req_t *r = &pool[slot];
    *r = (req_t){.gen = s[2],
                 .kind = (uint8_t)(s[3] % 6),
                 .state = (uint8_t)(s[4] % 6),
                 .proto = (uint8_t)(s[5] % 8),
                 .done = s[6] & 1,
                 .cancel_asked = (uint8_t)((s[6] >> 1) % 3),
                 .parts = s[7] % 3,
                 .peer = (int8_t)s[8],
                 .got_from = (int8_t)s[9],
                 .bytes = (size_t)get64(s + 14)};
    r->got.sreq = get32(s + 10);
    r->got.size = get64(s + 14);
    int source = (int8_t)s[22];
    const uint8_t *body = data + SETUP;
    size_t len = size - SETUP;
    if (mode == MODE_CTS) {
        cts(slot, source, body, len);
    } else if (mode == MODE_READY) {
        ready(slot, source, body, len);
    } else if (mode == MODE_RNDV_PIECES) {
        rndv_piece(slot, source, body, len);
    } else if (mode == MODE_CANCEL) {
        cancel(slot, source, body, len);
    } else {
        uint8_t note[NOTE] = {0};
        memcpy(note, body, len < NOTE ? len : NOTE);
        notified(slot, note);
    }
    *r = (req_t){0};
    return 0;
}

/* On half of the mutated inputs the handle in the message names the slot set up, so
 * that the checks behind it are reached. */
void fuzz_fixup(uint8_t *data, size_t size) {
    unsigned mode = data[0] % MODES;
    if (mode == MODE_ENVELOPE || mode == MODE_PIECES || mode == MODE_SYNC || size < SETUP) return;
    uint32_t h = 0x2cu << 24 | (uint32_t)data[3] << 16 | (uint32_t)(data[1] | data[2] << 8);
    size_t at = mode == MODE_CTS || mode == MODE_CANCEL          ? 0
                : mode == MODE_READY || mode == MODE_RNDV_PIECES ? 4
                                                                 : 8;
    if (size >= SETUP + at + 4) memcpy(data + SETUP + at, &h, 4);
    if (mode == MODE_NOTIFIED && size >= SETUP + 16) memcpy(data + SETUP + 12, &h, 4);
}

static size_t put(uint8_t *buf, size_t at, const void *v, size_t n) {
    memcpy(buf + at, v, n);
    return at + n;
}

/* Valid messages: an eager message or RTS; a CTS, READY, first piece or notification
 * that the slot set up takes. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    if (cap < SETUP + 128) return 0;
    unsigned mode = index % MODES;
    memset(buf, 0, SETUP + 64);
    buf[0] = (uint8_t)mode;
    if (mode == MODE_PIECES) { /* a first piece, or the next of a message under way */
        int later = (index / MODES) & 1;
        buf[1] = (uint8_t)later;
        uint32_t of = 4097 + rand32() % 60000,
                 at = 4096 + 4152 * (rand32() % ((of - 4096) / 4152 + 1));
        if (at >= of) at = 4096;
        memcpy(buf + 2, &at, 4);
        memcpy(buf + 6, &of, 4);
        if (later) return 10 + (of - at < 4152 ? of - at : 4152);
        struct {
            tw_mpi_hdr_t h;
            tw_mpi_first_t f;
        } first = {.h = {(int32_t)(rand32() % 1000), rand32() % 8}, .f = {.size = of}};
        size_t at0 = put(buf, 10, &first, sizeof first);
        if (at0 + 4096 > cap) return 0;
        for (size_t k = 0; k < 4096; k++) buf[at0 + k] = (uint8_t)rand32();
        return at0 + 4096;
    }
    if (mode == MODE_SYNC) {
        struct {
            tw_mpi_hdr_t h;
            tw_mpi_sync_t s;
        } head = {{(int32_t)(rand32() % 1000), rand32() % 8}, {0x2c010001u + rand32() % 64, 0}};
        size_t at = put(buf, 1, &head, sizeof head), len = rand32() % 96;
        for (size_t k = 0; k < len; k++) buf[at + k] = (uint8_t)rand32();
        return at + len;
    }
    if (mode == MODE_ENVELOPE) {
        int is_rts = (index / MODES) & 1;
        buf[1] = (uint8_t)is_rts;
        tw_mpi_hdr_t h = {(int32_t)(rand32() % 1000), rand32() % 8};
        size_t at = put(buf, 2, &h, sizeof h);
        if (is_rts) {
            tw_mpi_rts_t rts = {rand32() % 100000, 0x10000 + rand32() % 4096, rand32(), 0x2c010001,
                                rand32() % 4};
            return put(buf, at, &rts, sizeof rts);
        }
        size_t len = rand32() % 96;
        for (size_t k = 0; k < len; k++) buf[at + k] = (uint8_t)rand32();
        return at + len;
    }
    uint8_t *s = buf + 1;
    int slot = 1 + (int)(rand32() % 64);
    uint8_t gen = (uint8_t)(1 + rand32() % 8), peer = (uint8_t)(rand32() % 4);
    uint32_t h = 0x2cu << 24 | (uint32_t)gen << 16 | (uint32_t)slot;
    uint64_t size = 4096 + rand32() % 100000;
    s[0] = (uint8_t)slot;
    s[1] = (uint8_t)(slot >> 8);
    s[2] = gen;
    s[7] = 1; /* a part awaited */
    s[8] = s[9] = peer;
    uint32_t sreq = 0x2c020002;
    memcpy(s + 10, &sreq, 4);
    memcpy(s + 14, &size, 8);
    s[22] = peer;
    if (mode == MODE_CTS) {
        s[3] = REQ_SEND;
        s[4] = TW_STATE_WAIT_CTS;
        s[5] = (index / MODES) & 1 ? TW_PROTO_RNDV_PUT : TW_PROTO_RNDV_SPLIT;
        uint64_t off = s[5] == TW_PROTO_RNDV_PUT ? 0 : size / 2;
        tw_mpi_cts_t c = {h, 0x2c030003, 0x20000, rand32(), off, size - off};
        return put(buf, SETUP, &c, sizeof c);
    }
    if (mode == MODE_RNDV_PIECES) {
        s[3] = REQ_RECV;
        s[4] = TW_STATE_CTS_SENT;
        s[5] = TW_PROTO_RNDV_PIECES;
        size = 1 + rand32() % 9000;
        memcpy(s + 14, &size, 8);
        tw_mpi_pieces_t f = {sreq, h, {0}};
        size_t at = put(buf, SETUP, &f, sizeof f), n = size < 4096 ? size : 4096;
        if (at + n > cap) return 0;
        for (size_t k = 0; k < n; k++) buf[at + k] = (uint8_t)rand32();
        return at + n;
    }
    if (mode == MODE_CANCEL) { /* an answer to a send that asked, or an ask */
        s[3] = REQ_SEND;
        s[6] = TW_CANCEL_ASKED << 1;
        tw_mpi_cancel_t c = {h, TW_CANCEL_ASK + rand32() % 3};
        return put(buf, SETUP, &c, sizeof c);
    }
    if (mode == MODE_READY) {
        s[3] = REQ_RECV;
        s[5] = TW_PROTO_RNDV_CHUNKED;
        tw_mpi_ready_t m = {sreq, h, (uint64_t)(rand32() % 4) * 65536 % size};
        return put(buf, SETUP, &m, sizeof m);
    }
    s[3] = (index / MODES) & 1 ? REQ_SEND : REQ_RECV;
    uint8_t note[NOTE] = {TW_OP_GET, TW_NOTIFY_COMPLETER, 0, 0, peer};
    if (s[3] == REQ_SEND) note[1] = TW_NOTIFY_RESPONDER;
    uint64_t cookie = (uint64_t)h << 32 | h;
    memcpy(note + 8, &cookie, 8);
    return put(buf, SETUP, note, sizeof note);
}

void fuzz_report(FILE *out) {
    fprintf(out,
            "; accepted: %ld of %ld envelopes, %ld of %ld CTSs, %ld of %ld READYs, %ld of %ld "
            "notifications, %ld of %ld pieces, %ld of %ld rendezvous first pieces, %ld of %ld "
            "synchronous eager, %ld of %ld cancels",
            accepted[MODE_ENVELOPE], tried[MODE_ENVELOPE], accepted[MODE_CTS], tried[MODE_CTS],
            accepted[MODE_READY], tried[MODE_READY], accepted[MODE_NOTIFIED], tried[MODE_NOTIFIED],
            accepted[MODE_PIECES], tried[MODE_PIECES], accepted[MODE_RNDV_PIECES],
            tried[MODE_RNDV_PIECES], accepted[MODE_SYNC], tried[MODE_SYNC], accepted[MODE_CANCEL],
            tried[MODE_CANCEL]);
}
