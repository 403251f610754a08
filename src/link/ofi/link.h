/* The ofi link (link.c): device messages over a libfabric reliable-datagram endpoint,
 * on whatever provider libfabric chooses (FI_PROVIDER and the other FI_* variables as
 * libfabric reads them). Built when libfabric is found. */
#ifndef TW_LINK_OFI_LINK_H
#define TW_LINK_OFI_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "link/link.h"

extern const tw_link_t tw_link_ofi;

/* 1 when this node has a device one of libfabric's hardware providers could drive:
 * TW_LINK=auto asks libfabric only then, or when FI_PROVIDER is set. */
int tw_link_ofi_device_present(void);

/* What a message holds before the device message (message.h): the sender's rank, which
 * the endpoint does not report, and its place in the sender's stream to this receiver.
 * A provider keeps the order in which messages are matched to receives, not always the
 * order of their completions (tcp;ofi_rxm completes a long message, which it moves by
 * rendezvous, after the short ones behind it): the receiver delivers by seq. */
typedef struct tw_ofi_hdr {
    uint32_t source;
    uint32_t seq;
} tw_ofi_hdr_t;

/* Receives posted per endpoint. One sender's messages are matched to them in its order, so
 * the one due from it holds a receive (arriving) whenever a later one has come: a later
 * one is never TW_OFI_WINDOW or more ahead of the one due. */
enum { TW_OFI_WINDOW = 32 };

/* Where a message with sequence number seq stands when expected is the one due from its
 * sender: delivered now, kept until those before it came, or never (behind, or further
 * ahead than any sender can be: dropped, lest it hold a receive for good). */
enum { TW_OFI_DUE, TW_OFI_LATER, TW_OFI_NEVER };
int tw_link_ofi_order(uint32_t expected, uint32_t seq);

/* The link's own messages, beside the device's (message.h), tagged with the high bit in
 * their first byte: the sender closes; a translation asked for (tw_ofi_ask_t) and given
 * (tw_ofi_xlate_t); a translation given withdrawn, and the holder's answer that nothing
 * of its own goes through it any more (both tw_ofi_ask_t); a translation offered for one
 * put, unasked (tw_ofi_xlate_t: tw_offer_put, a rendezvous's receive buffer), which the
 * holder forgets once it has sent that put's last chunk and its owner closes without
 * asking. */
enum {
    TW_OFI_OWN = 0x80,
    TW_OFI_BYE = 0x80, /* alone: one byte */
    TW_OFI_XLATE_ASK = 0x81,
    TW_OFI_XLATE = 0x82,
    TW_OFI_REVOKE = 0x83,
    TW_OFI_REVOKED = 0x84,
    TW_OFI_XLATE_ONCE = 0x85,
};

/* A registration of the receiver's, named by its first NLA and the key the sender showed
 * (TW_OFI_XLATE_ASK; the key is 0 in TW_OFI_REVOKE and TW_OFI_REVOKED). */
typedef struct tw_ofi_ask {
    uint8_t kind; /* TW_OFI_XLATE_ASK, TW_OFI_REVOKE or TW_OFI_REVOKED */
    uint8_t unused[7];
    uint64_t nla, key;
} tw_ofi_ask_t;

/* The record of kind in the len bytes at msg (after the link's header): TW_OK with it in
 * *out, or TW_ERR_CORRUPT. They come from another process (fuzz_ofi_deliver). */
int tw_link_ofi_ask_take(const void *msg, size_t len, unsigned kind, tw_ofi_ask_t *out);

/* A translation (the link's own message TW_OFI_XLATE): one of the target's registrations,
 * as the initiator reaches it with the fabric's writes and reads. The target sends it to
 * an initiator that asked with the registration's key, once its device has checked that
 * key; the initiator then moves the data of puts and gets to it without the target's
 * device, the provider checking rkey. */
typedef struct tw_ofi_xlate {
    uint8_t kind; /* TW_OFI_XLATE, or TW_OFI_XLATE_ONCE: offered for one put */
    uint8_t unused[3];
    uint32_t perms;  /* TW_PERM_* */
    uint64_t nla;    /* of the registration's first byte */
    uint64_t key;    /* the key it was asked with */
    uint64_t addr;   /* its first byte as the fabric addresses it (0 where by offset) */
    uint64_t length; /* bytes */
    uint64_t rkey;   /* the provider's key */
} tw_ofi_xlate_t;

/* The translation in the len bytes at msg (after the link's header), checked: TW_OK with
 * it in *out, or TW_ERR_CORRUPT. They come from another process (fuzz_ofi_deliver). */
int tw_link_ofi_xlate_take(const void *msg, size_t len, tw_ofi_xlate_t *out);

/* The decoding of what arrives (exposed for the fuzz target): the message of len bytes
 * received from a peer of peers, handed to the device as tw_link_msg_deliver does, the
 * sender taken from its header. The device's verdict, or TW_ERR_CORRUPT. */
int tw_link_ofi_deliver(const tw_link_device_t *dev, void *dev_ctx, uint32_t peers, const void *msg,
                        size_t len);

#endif
