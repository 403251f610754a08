#include <tollway/status.h>

const char *tw_strerror(int status) {
    switch (status) {
    case TW_OK:
        return "success";
    case TW_RETRY:
        return "receiver's mailbox is full; make progress and retry";
    case TW_EMPTY:
        return "no message waiting";
    case TW_ERR_ARG:
        return "invalid argument";
    case TW_ERR_RANK:
        return "rank out of range";
    case TW_ERR_SIZE:
        return "message longer than TW_VELO_MAX_SIZE";
    case TW_ERR_TAG:
        return "tag above TW_VELO_TAG_MAX";
    case TW_ERR_TRUNCATE:
        return "receive buffer too small; message left queued";
    case TW_ERR_CONFIG:
        return "invalid TW_* environment variable";
    case TW_ERR_RUNTIME:
        return "launcher or process manager failure";
    case TW_ERR_SYSTEM:
        return "system call failed";
    case TW_ERR_PEER:
        return "peer endpoint unreachable or invalid";
    case TW_ERR_CORRUPT:
        return "mailbox holds an invalid status word";
    case TW_ERR_NOMEM:
        return "out of memory";
    case TW_ERR_STATE:
        return "call not valid in this state";
    case TW_ERR_KEY:
        return "translation fault: wrong key";
    case TW_ERR_BOUNDS:
        return "translation fault: access outside the registered range";
    case TW_ERR_STALE:
        return "translation fault: no such registration (gone or never made)";
    case TW_ERR_PERM:
        return "translation fault: permission denied by the registration";
    case TW_ERR_ALIGN:
        return "translation fault: atomic on an unaligned address";
    case TW_ERR_LOST:
        return "peer lost: it stopped answering";
    case TW_ERR_RESET:
        return "peer lost: it had declared this endpoint lost and reset the link";
    case TW_ERR_DESYNC:
        return "peer lost: it gave up data this endpoint never received (a forged "
               "acknowledgement)";
    default:
        return "unknown status code";
    }
}
