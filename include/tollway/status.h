/* Return codes of the native API. Zero is success, positive codes are "not now"
 * (nothing happened, try again after making progress), negative codes are errors. */
#ifndef TOLLWAY_STATUS_H
#define TOLLWAY_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

enum tw_status {
    TW_OK = 0,
    TW_RETRY = 1, /* send: the receiver's mailbox is full; nothing was posted */
    TW_EMPTY = 2, /* poll/probe: no message is waiting */

    TW_ERR_ARG = -1,      /* a NULL pointer or otherwise invalid argument */
    TW_ERR_RANK = -2,     /* rank outside 0..size-1 */
    TW_ERR_SIZE = -3,     /* message longer than TW_VELO_MAX_SIZE */
    TW_ERR_TAG = -4,      /* tag above TW_VELO_TAG_MAX */
    TW_ERR_TRUNCATE = -5, /* receive buffer too small; the message stays queued */
    TW_ERR_CONFIG = -6,   /* an invalid TW_* environment variable */
    TW_ERR_RUNTIME = -7,  /* the launcher or process manager failed or refused */
    TW_ERR_SYSTEM = -8,   /* a system call failed (errno says why) */
    TW_ERR_PEER = -9,     /* a peer's endpoint cannot be reached or is not valid */
    TW_ERR_CORRUPT = -10, /* a mailbox holds a status word that cannot be valid */
    TW_ERR_NOMEM = -11,   /* out of memory */
    TW_ERR_STATE = -12,   /* call not valid in the current state */

    /* Translation faults of the ATU, reported in error notifications: the access
     * touched no memory. */
    TW_ERR_KEY = -13,    /* the key does not match the registration */
    TW_ERR_BOUNDS = -14, /* the access runs outside the registered range */
    TW_ERR_STALE = -15,  /* no such registration (never made, or deregistered) */
    TW_ERR_PERM = -16,   /* the registration does not allow this access */
    TW_ERR_ALIGN = -17,  /* an atomic on an address not aligned to its width */

    TW_ERR_LOST = -18,   /* the peer stopped answering and was declared lost */
    TW_ERR_RESET = -19,  /* the peer had declared this endpoint lost (it reset the link) */
    TW_ERR_DESYNC = -20, /* the peer gave up data this endpoint never received (it took an
                            acknowledgement this endpoint never sent: a forgery) */
};

/* A short English description of a tw_status code. */
const char *tw_strerror(int status);

/* 1 when status is one of the causes a peer is declared lost for (TW_ERR_LOST,
 * TW_ERR_RESET, TW_ERR_DESYNC): the one test every layer asks, so a new cause is added
 * here once. */
static inline int tw_status_peer_lost(int status) {
    return status == TW_ERR_LOST || status == TW_ERR_RESET || status == TW_ERR_DESYNC;
}

#ifdef __cplusplus
}
#endif
#endif
