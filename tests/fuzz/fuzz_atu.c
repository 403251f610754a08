/* Fuzz target of the ATU translation (src/device/atu.h: tw_atu_translate), which a
 * target's device applies to the NLA, key and length of every request from a peer,
 * and an initiator to a peer's table it reads from shared memory.
 *
 * The input is the access (nla 8 bytes, key 8, len 8, then a byte: permission asked
 * and alignment), then the table, TW_ATU entry records of 36 bytes (state, base,
 * length, key, heap id) as an owner, or a hostile peer, left them. An access is
 * accepted exactly when the table's entry at the NLA's index is valid, of the NLA's
 * generation and key, holds [offset, offset + len) and grants the permission, and the
 * address is aligned; or when it lies inside the lock region. Accepted, its address
 * is inside that registration (or the lock region), and it is counted in flight until
 * released, for ordinary memory only; refused, nothing is held. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tollway/atu.h>
#include <tollway/status.h>

#include "device/atu.h"
#include "fuzz.h"

enum { ENTRIES = 8, QUERY = 25, RECORD = 36 };

static _Alignas(64) tw_atu_entry_t table[ENTRIES];
static _Atomic uint64_t locks[TW_LOCKS];
static long verdicts[32];

static const unsigned perms[] = {TW_PERM_READ, TW_PERM_WRITE, TW_PERM_READ | TW_PERM_WRITE};
static const unsigned aligns[] = {1, 4, 8};

/* The translation as the ATU's documentation states it. */
static int reference(uint32_t entries, uint64_t nla, uint64_t key, uint64_t len, unsigned perm,
                     unsigned align) {
    uint32_t idx = (uint32_t)(nla >> 48), gen = (uint32_t)(nla >> 40) & 0xff;
    uint64_t off = nla & ((1ull << 40) - 1);
    if (idx == 0xffff) {
        uint64_t region = TW_LOCKS * sizeof(uint64_t);
        if (gen || off > region || len > region - off) return TW_ERR_BOUNDS;
        return (uintptr_t)locks % align || off % align ? TW_ERR_ALIGN : TW_OK;
    }
    if (idx >= entries) return TW_ERR_STALE;
    const tw_atu_entry_t *e = &table[idx];
    uint64_t st = e->state;
    if (!(st & 1) || ((st >> 8) & 0xff) != gen) return TW_ERR_STALE;
    if (e->key != key) return TW_ERR_KEY;
    if (off > e->length || len > e->length - off) return TW_ERR_BOUNDS;
    if ((((unsigned)(st >> 1)) & perm) != perm) return TW_ERR_PERM;
    return (e->base + off) % align ? TW_ERR_ALIGN : TW_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < QUERY) return 0;
    uint64_t nla, key, len;
    memcpy(&nla, data, 8);
    memcpy(&key, data + 8, 8);
    memcpy(&len, data + 16, 8);
    unsigned perm = perms[data[24] % 3], align = aligns[(data[24] >> 2) % 3];
    memset(table, 0, sizeof table);
    uint32_t entries = 0;
    for (size_t at = QUERY; at + RECORD <= size && entries < ENTRIES; at += RECORD, entries++) {
        tw_atu_entry_t *e = &table[entries];
        uint64_t st;
        memcpy(&st, data + at, 8);
        atomic_store(&e->state, st);
        memcpy(&e->base, data + at + 8, 8);
        memcpy(&e->length, data + at + 16, 8);
        memcpy(&e->key, data + at + 24, 8);
        memcpy(&e->heap_id, data + at + 32, 4);
    }
    uint64_t inflight_before[ENTRIES];
    for (uint32_t i = 0; i < ENTRIES; i++) inflight_before[i] = atomic_load(&table[i].inflight);

    tw_xlate_t x;
    memset(&x, 0xa5, sizeof x);
    int rc = tw_atu_translate(table, entries, locks, nla, key, len, perm, align, &x);
    FUZZ_CHECK(rc == reference(entries, nla, key, len, perm, align));
    verdicts[-rc & 31]++;
    uint64_t off = nla & TW_NLA_OFFSET_MASK;
    if (rc != TW_OK) { /* nothing held */
        FUZZ_CHECK(x.held == NULL);
        for (uint32_t i = 0; i < ENTRIES; i++)
            FUZZ_CHECK(atomic_load(&table[i].inflight) == inflight_before[i]);
        return 0;
    }
    if (tw_nla_index(nla) == TW_NLA_LOCK_INDEX) { /* inside the lock region */
        FUZZ_CHECK(x.entry == NULL && x.held == NULL);
        FUZZ_CHECK(x.addr >= (uintptr_t)locks && x.addr - (uintptr_t)locks <= sizeof locks &&
                   len <= sizeof locks - (x.addr - (uintptr_t)locks));
        FUZZ_CHECK(x.addr % align == 0);
        return 0;
    }
    /* inside the registration named, of that key and generation, with that permission */
    uint32_t idx = tw_nla_index(nla);
    tw_atu_entry_t *e = &table[idx];
    uint64_t st = atomic_load(&e->state);
    FUZZ_CHECK(idx < entries && x.entry == e);
    FUZZ_CHECK((st & TW_ATU_VALID) && ((st >> 8) & 0xff) == tw_nla_gen(nla) && e->key == key);
    FUZZ_CHECK(((st >> 1) & perm) == perm);
    FUZZ_CHECK(x.addr == e->base + off && x.offset == off);
    FUZZ_CHECK(off <= e->length && len <= e->length - off);
    FUZZ_CHECK(x.addr % align == 0 && x.heap_id == e->heap_id);
    /* ordinary memory is counted in flight until released; a heap block is not */
    FUZZ_CHECK(x.held == (e->heap_id ? NULL : e));
    FUZZ_CHECK(atomic_load(&e->inflight) == inflight_before[idx] + (e->heap_id ? 0 : 1));
    tw_atu_release(&x);
    FUZZ_CHECK(atomic_load(&e->inflight) == inflight_before[idx]);
    return 0;
}

/* The key and generation of the entry the NLA names, made right, so that bounds,
 * permission and alignment are what is tried. */
void fuzz_fixup(uint8_t *data, size_t size) {
    if (size < QUERY) return;
    uint64_t nla;
    memcpy(&nla, data, 8);
    size_t at = QUERY + (size_t)(tw_nla_index(nla) % ENTRIES) * RECORD;
    if (at + RECORD > size) return;
    uint64_t st;
    memcpy(&st, data + at, 8);
    st |= TW_ATU_VALID;
    memcpy(data + at, &st, 8);
    nla = (nla & ~(0xffffull << 48) & ~(0xffull << 40)) | (uint64_t)((at - QUERY) / RECORD) << 48 |
          ((st >> 8) & 0xff) << 40;
    memcpy(data, &nla, 8);
    memcpy(data + 8, data + at + 24, 8);
}

/* A table of registrations as tw_atu_register makes them, and an access to one of them
 * (or to the lock region) near its edges. */
size_t fuzz_seed(uint8_t *buf, size_t cap, unsigned index, uint32_t (*rand32)(void)) {
    if (cap < QUERY + ENTRIES * RECORD) return 0;
    uint32_t n = 1 + rand32() % ENTRIES;
    uint64_t st[ENTRIES], base[ENTRIES], length[ENTRIES], key[ENTRIES];
    for (uint32_t i = 0; i < n; i++) {
        uint64_t gen = rand32() % 300, p = 1 + rand32() % 3, heap = rand32() % 4 == 0;
        st[i] = gen << 8 | p << 1 | (rand32() % 8 ? TW_ATU_VALID : 0);
        base[i] = ((uint64_t)rand32() << 16) & ~(uint64_t)(rand32() % 2 ? 7 : 0);
        length[i] = 1 + rand32() % (rand32() % 2 ? 64 : 1u << 20);
        key[i] = (uint64_t)rand32() << 32 | rand32();
        uint8_t *r = buf + QUERY + i * RECORD;
        memcpy(r, &st[i], 8);
        memcpy(r + 8, &base[i], 8);
        memcpy(r + 16, &length[i], 8);
        memcpy(r + 24, &key[i], 8);
        uint32_t heap_id = heap ? 1 + rand32() % 16 : 0;
        memcpy(r + 32, &heap_id, 4);
    }
    uint64_t nla, k = 0, len;
    if (index % 5 == 4) { /* the lock region */
        uint64_t lock = rand32() % TW_LOCKS;
        nla = tw_lock_nla((unsigned)lock);
        len = 8;
    } else {
        uint32_t i = rand32() % n;
        uint64_t off = rand32() % (length[i] + 1);
        len = rand32() % 2 ? length[i] - off : rand32() % 9;
        nla = (uint64_t)i << 48 | ((st[i] >> 8) & 0xff) << 40 | off;
        k = key[i];
    }
    memcpy(buf, &nla, 8);
    memcpy(buf + 8, &k, 8);
    memcpy(buf + 16, &len, 8);
    buf[24] = (uint8_t)(rand32() % 3 | (rand32() % 3) << 2);
    return QUERY + n * RECORD;
}

void fuzz_report(FILE *out) {
    fprintf(out, "; %ld accepted, refused: %ld stale, %ld key, %ld bounds, %ld perm, %ld align",
            verdicts[0], verdicts[-TW_ERR_STALE & 31], verdicts[-TW_ERR_KEY & 31],
            verdicts[-TW_ERR_BOUNDS & 31], verdicts[-TW_ERR_PERM & 31],
            verdicts[-TW_ERR_ALIGN & 31]);
}
