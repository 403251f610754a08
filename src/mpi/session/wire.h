/* What the members of MPI_Comm_create_from_group tell each other before they agree
 * on a context (from_group.c), and the checks of what another process sent: each
 * member sends its first member a check, and gets a verdict back. */
#ifndef TW_MPI_SESSION_WIRE_H
#define TW_MPI_SESSION_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#pragma GCC visibility push(hidden) /* stays inside libmpi: no PLT, no GOT */

enum { TW_FROM_GROUP_MAGIC = 0x47465754u }; /* "TWFG" */

/* A member's check: the group size and a digest of the stringtag and the group. */
typedef struct tw_from_group_check {
    uint32_t magic, size;
    uint64_t digest;
} tw_from_group_check_t;

/* The digest of a stringtag and a group of n world ranks (FNV-1a, 64 bits). */
static inline uint64_t tw_from_group_digest(const char *stringtag, int n, const int *world) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)stringtag; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    h = (h ^ 0xffu) * 0x100000001b3ull; /* the tag's end: "a" + {1} differs from "a\1" + {} */
    for (int k = 0; k < n; k++)
        for (int b = 0; b < 4; b++)
            h = (h ^ (((unsigned)world[k] >> (8 * b)) & 0xffu)) * 0x100000001b3ull;
    return h;
}

/* Checks len bytes a member sent its group's first member against that member's own
 * size and digest: NULL when they agree, else what differs. */
static inline const char *tw_from_group_check_decode(const void *bytes, size_t len, uint32_t size,
                                                     uint64_t digest) {
    tw_from_group_check_t c;
    if (len != sizeof c) return "a check of the wrong length";
    memcpy(&c, bytes, sizeof c);
    if (c.magic != TW_FROM_GROUP_MAGIC) return "not a check of MPI_Comm_create_from_group";
    if (c.size != size) return "a member gave a group of another size";
    if (c.digest != digest) return "a member gave another group or stringtag";
    return NULL;
}

/* The verdict the first member answers with: 0 every member agrees, 1 one differs.
 * 1 when len bytes are a verdict, which *verdict then holds. */
static inline int tw_from_group_verdict_decode(const void *bytes, size_t len, int *verdict) {
    int v;
    if (len != sizeof v) return 0;
    memcpy(&v, bytes, sizeof v);
    if (v != 0 && v != 1) return 0;
    *verdict = v;
    return 1;
}

#pragma GCC visibility pop

#endif
