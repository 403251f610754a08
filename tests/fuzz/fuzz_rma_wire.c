/* Fuzz target of the checks a target's device makes on an RMA request, and an
 * initiator's device on an answer, before either touches memory (src/device/rma.c:
 * tw_rma_request_valid for requests from this node's request rings,
 * tw_rma_link_request_ok for requests from another node, tw_rma_answer_fits for the
 * answers from another node).
 *
 * Byte 0 picks the check. A request: byte 1 the job's size, byte 2 the sender, then the
 * message (rma_req_t, then put data). An answer: byte 1 the operation (kind), bytes 2-9
 * (and how the data's length is read) its length, 10-11 its chunk, 12-13 the chunks already
 * answered, then the message (rma_answer_t, then get data). What is accepted must be safe to serve
 * as the device serves it: the bytes it touches inside the operation, data only where the operation
 * carries data and no more than a message holds, an atomic of a width it knows, a get
 * that makes progress; and an answer's data only for a get, inside the get's buffer, at
 * a chunk of it, never more chunks than wait. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/notify.h>
#include <tollway/rma.h>
#include <tollway/status.h>

#include "device/rma.h"
#include "fuzz.h"
#include "link/rma_wire.h"

enum { MODE_LINK_REQUEST, MODE_RING_REQUEST, MODE_ANSWER, MODES };

static long accepted[MODES], refused[MODES];

/* The notifications each operation may ask for (tollway/notify.h). */
static unsigned notify_allowed(uint8_t op) {
    unsigned rc = TW_NOTIFY_REQUESTER | TW_NOTIFY_COMPLETER;
    return op == TW_OP_GET || op == TW_OP_ATOMIC ? rc | TW_NOTIFY_RESPONDER : rc;
}

/* What every accepted request guarantees, from either path: max_chunk bytes of data
 * at most, and span bytes touched at offset, inside the operation. */
static void check_request(const rma_req_t *r, int size, uint32_t max_chunk, uint64_t span) {
    FUZZ_CHECK(r->source >= 0 && r->source < size);
    FUZZ_CHECK(r->op >= TW_OP_PUT && r->op <= TW_OP_ATOMIC);
    FUZZ_CHECK(!(r->notify & ~notify_allowed(r->op)));
    FUZZ_CHECK(r->chunk_len <= max_chunk);
    FUZZ_CHECK(r->offset <= r->total && span <= r->total - r->offset);
    switch (r->op) {
    case TW_OP_ATOMIC: /* applied at the registration's start, as wide as it says */
        FUZZ_CHECK(r->width == 4 || r->width == 8);
        FUZZ_CHECK(r->total == r->width && r->chunk_len == 0);
        FUZZ_CHECK(r->atomic_op >= TW_ATOMIC_FCAA && r->atomic_op <= TW_ATOMIC_SWAP);
        break;
    case TW_OP_PUT_IMM: /* its data is the operand a */
        FUZZ_CHECK(r->chunk_len <= sizeof r->a && r->total == r->chunk_len && r->offset == 0);
        break;
    case TW_OP_NOTIFY_PUT: /* touches no memory */
        FUZZ_CHECK(r->chunk_len == 0 && r->total == 0);
        break;
    case TW_OP_GET:
        FUZZ_CHECK(r->chunk_len == 0);
        break;
    default:
        FUZZ_CHECK(span == r->chunk_len);
    }
}

static void link_request(const uint8_t *data, size_t size) {
    int ranks = 1 + data[1] % 64;
    uint32_t source = data[2] % 80u;
    /* the link's bound: udp's, ofi's, or one beyond what any request may carry */
    static const size_t chunk_maxes[] = {61440, REMOTE_CHUNK_MAX, 2 * REMOTE_CHUNK_MAX};
    size_t chunk_max = chunk_maxes[data[1] / 64 % 3];
    uint32_t bound = chunk_max < REMOTE_CHUNK_MAX ? (uint32_t)chunk_max : REMOTE_CHUNK_MAX;
    const uint8_t *msg = data + 3;
    size_t len = size - 3;
    rma_req_t r = {0};
    memcpy(&r, msg, len < sizeof r ? len : sizeof r);
    if (!tw_rma_link_request_ok(ranks, source, &r, len, chunk_max)) {
        refused[MODE_LINK_REQUEST]++;
        return;
    }
    accepted[MODE_LINK_REQUEST]++;
    FUZZ_CHECK(len >= sizeof r && r.chunk_len == len - sizeof r);
    FUZZ_CHECK(r.source == (int32_t)source);
    FUZZ_CHECK(tw_rma_request_valid(&r, ranks, bound));
    uint64_t span = r.chunk_len;
    if (r.op == TW_OP_GET) { /* the chunk it asks for: b, or what is left */
        span = r.total - r.offset < r.b ? r.total - r.offset : r.b;
        FUZZ_CHECK(span > 0 || r.total == 0); /* a get that asks for nothing never ends */
        FUZZ_CHECK(span <= bound);            /* its answer fits the link's message */
    } else if (r.op == TW_OP_ATOMIC) {
        span = 0;
    }
    check_request(&r, ranks, bound, span);
}

static void ring_request(const uint8_t *data, size_t size) {
    int ranks = 1 + data[1] % 64;
    rma_req_t r = {0};
    memcpy(&r, data + 3, size - 3 < sizeof r ? size - 3 : sizeof r);
    if (!tw_rma_request_valid(&r, ranks, RMA_CHUNK)) {
        refused[MODE_RING_REQUEST]++;
        return;
    }
    accepted[MODE_RING_REQUEST]++;
    /* a get streams the whole operation from offset 0 */
    uint64_t span = r.op == TW_OP_ATOMIC ? 0 : r.op == TW_OP_GET ? r.total - r.offset : r.chunk_len;
    check_request(&r, ranks, RMA_CHUNK, span);
}

static void answer(const uint8_t *data, size_t size) {
    if (size < 14) return;
    static const uint8_t ops[] = {TW_OP_PUT, TW_OP_GET, TW_OP_PUT_IMM, TW_OP_NOTIFY_PUT,
                                  TW_OP_ATOMIC};
    uint8_t op = ops[data[1] % sizeof ops];
    uint64_t length;
    memcpy(&length, data + 2, 8);
    uint16_t chunk16, acked16;
    memcpy(&chunk16, data + 10, 2);
    memcpy(&acked16, data + 12, 2);
    /* an operation as the initiator sets it up: chunks of one size for a put or a get */
    tw_rma_op_t o = {.op = op, .in_use = 1};
    int chunked = op == TW_OP_PUT || op == TW_OP_GET;
    o.length = chunked ? length % (64ull << 20) : op == TW_OP_ATOMIC ? 8 : length % 9;
    o.chunk = RMA_CHUNK + (uint32_t)(chunk16 % (REMOTE_CHUNK_MAX - RMA_CHUNK + 1));
    if (o.length % 5 == 0) o.chunk = 64 + 64 * (chunk16 % 256); /* small ones too */
    o.chunks = chunked && o.length > o.chunk ? (uint32_t)((o.length + o.chunk - 1) / o.chunk) : 1;
    o.chunks_acked = acked16 % o.chunks;
    static uint8_t buffer[1]; /* where a get's data would go: only o.local + offset is looked at */
    o.local = buffer;

    const uint8_t *msg = data + 14;
    size_t len = size - 14;
    rma_answer_t a = {0};
    if (len < sizeof a) return;
    memcpy(&a, msg, sizeof a);
    /* the data's length: what follows, or (flag bits of byte 1) what the answer says, or
     * what the operation would expect at the answer's offset, so that offsets are tried
     * with a length that fits them */
    size_t carried = len - sizeof a;
    if (data[1] & 0x40 && a.offset <= o.length) {
        carried = o.length - a.offset < o.chunk ? o.length - a.offset : o.chunk;
        a.chunk_len = (uint32_t)carried;
    } else if (data[1] & 0x80) {
        carried = a.chunk_len;
    }
    if (!tw_rma_answer_fits(&o, &a, carried)) {
        refused[MODE_ANSWER]++;
        return;
    }
    accepted[MODE_ANSWER]++;
    FUZZ_CHECK(a.kind == ANSWER_ACK && a.chunk_len == carried);
    FUZZ_CHECK(a.status == TW_OK || (a.status >= TW_ERR_ALIGN && a.status <= TW_ERR_KEY));
    FUZZ_CHECK(a.chunks >= 1 && a.chunks <= o.chunks - o.chunks_acked);
    FUZZ_CHECK(a.chunks == 1 || op == TW_OP_PUT);
    if (carried) { /* data: only a get's, inside its buffer, one whole chunk of it */
        FUZZ_CHECK(op == TW_OP_GET && a.status == TW_OK);
        FUZZ_CHECK(a.offset < o.length && carried <= o.length - a.offset);
        FUZZ_CHECK(a.offset % o.chunk == 0);
        FUZZ_CHECK(carried == (o.length - a.offset < o.chunk ? o.length - a.offset : o.chunk));
    } else { /* a get's data comes with its acknowledgement, unless it failed or is empty */
        FUZZ_CHECK(op != TW_OP_GET || a.status != TW_OK || o.length == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 3) return 0;
    switch (data[0] % MODES) {
    case MODE_LINK_REQUEST:
        link_request(data, size);
        break;
    case MODE_RING_REQUEST:
        ring_request(data, size);
        break;
    default:
        answer(data, size);
    }
    return 0;
}

/* The length fields made to agree with the input's size, so that the checks behind
 * them are reached. */
void fuzz_fixup(uint8_t *data, size_t size) {
    if (size < 3) return;
    if (data[0] % MODES == MODE_LINK_REQUEST && size >= 3 + sizeof(rma_req_t)) {
        rma_req_t r;
        memcpy(&r, data + 3, sizeof r);
        r.chunk_len = (uint32_t)(size - 3 - sizeof r);
        r.source = data[2] % 80;
        memcpy(data + 3, &r, sizeof r);
    } else if (data[0] % MODES == MODE_ANSWER && size >= 14 + sizeof(rma_answer_t)) {
        rma_answer_t a;
        memcpy(&a, data + 14, sizeof a);
        a.chunk_len = (uint32_t)(size - 14 - sizeof a);
        memcpy(data + 14, &a, sizeof a);
    }
}

/* Requests and answers as the devices make them. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    if (cap < 14 + sizeof(rma_req_t) + 256) return 0;
    unsigned mode = index % MODES;
    uint8_t op = (uint8_t)(TW_OP_PUT + (index / MODES) % 5);
    memset(buf, 0, 14 + sizeof(rma_req_t));
    buf[0] = (uint8_t)mode;
    if (mode != MODE_ANSWER) {
        buf[1] = 7; /* 8 ranks */
        buf[2] = (uint8_t)(rand32() % 8);
        uint32_t data_len = op == TW_OP_PUT ? rand32() % 256 : op == TW_OP_PUT_IMM ? 8 : 0;
        uint64_t total = op == TW_OP_ATOMIC ? 8 : op == TW_OP_NOTIFY_PUT ? 0 : 4096;
        if (op == TW_OP_PUT_IMM) total = 8;
        rma_req_t r = {.op = op,
                       .notify = (uint8_t)(rand32() & notify_allowed(op)),
                       .atomic_op = op == TW_OP_ATOMIC ? TW_ATOMIC_FCAA + rand32() % 4 : 0,
                       .width = op == TW_OP_ATOMIC ? 8 : 0,
                       .source = buf[2],
                       .handle = rand32(),
                       .chunk_len = data_len,
                       .nla = (uint64_t)rand32() << 32,
                       .key = rand32(),
                       .total = total,
                       .offset = op == TW_OP_PUT || op == TW_OP_GET ? 1024 : 0,
                       .cookie = rand32(),
                       .a = rand32(),
                       .b = op == TW_OP_GET ? 1024 : rand32(),
                       .note_slot = rand32() % 64};
        memcpy(buf + 3, &r, sizeof r);
        for (uint32_t i = 0; i < data_len; i++) buf[3 + sizeof r + i] = (uint8_t)rand32();
        return 3 + sizeof r + data_len;
    }
    /* an answer to a put of 4 chunks, or to a get's chunk, or to one of the others */
    uint8_t kinds[] = {0, 1, 2, 3, 4}; /* the index into the target's list of operations */
    buf[1] = kinds[(index / MODES) % 5];
    uint64_t length = 4 * 1024;
    memcpy(buf + 2, &length, 8);
    uint16_t chunk = 0, acked = 0; /* chunk RMA_CHUNK; length % 5 != 0 */
    memcpy(buf + 10, &chunk, 2);
    memcpy(buf + 12, &acked, 2);
    int get = buf[1] == 1;
    rma_answer_t a = {.handle = rand32(),
                      .status = rand32() % 4 ? TW_OK : TW_ERR_KEY,
                      .kind = ANSWER_ACK,
                      .chunks = 1,
                      .chunk_len = get ? 4096 : 0};
    if (get && a.status != TW_OK) a.chunk_len = 0;
    memcpy(buf + 14, &a, sizeof a);
    for (uint32_t i = 0; i < a.chunk_len && 14 + sizeof a + i < cap; i++)
        buf[14 + sizeof a + i] = (uint8_t)rand32();
    return 14 + sizeof a + a.chunk_len;
}

void fuzz_report(FILE *out) {
    fprintf(out,
            "; link requests %ld accepted, %ld refused; ring requests %ld accepted, %ld refused; "
            "answers %ld accepted, %ld refused",
            accepted[MODE_LINK_REQUEST], refused[MODE_LINK_REQUEST], accepted[MODE_RING_REQUEST],
            refused[MODE_RING_REQUEST], accepted[MODE_ANSWER], refused[MODE_ANSWER]);
}
