/* Notification queues. Each endpoint has one; RMA operations write a notification
 * to the sides that asked for one:
 *   requester  (TW_NOTIFY_REQUESTER) the initiator: the command has been carried out
 *              as far as the initiator's buffer is concerned — it may be reused;
 *   completer  (TW_NOTIFY_COMPLETER) the side where data lands: the target of a put,
 *              immediate put or notification put; the initiator of a get or atomic
 *              (the data or fetched value is in place before the notification shows);
 *   responder  (TW_NOTIFY_RESPONDER) the target of a get or atomic: the request has
 *              been served.
 * A translation fault always yields a notification to the initiator with the fault
 * in status, whatever bits were asked.
 *
 * Nothing is silently lost: the notification slots an operation needs are reserved
 * before it moves any data, and when a queue is full the operation returns
 * TW_RETRY without having done anything. */
#ifndef TOLLWAY_NOTIFY_H
#define TOLLWAY_NOTIFY_H

#include <stdint.h>

#include <tollway/endpoint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TW_NOTIFY_REQUESTER 1u
#define TW_NOTIFY_COMPLETER 2u
#define TW_NOTIFY_RESPONDER 4u

typedef enum tw_op {
    TW_OP_PUT = 1,
    TW_OP_GET = 2,
    TW_OP_PUT_IMM = 3,
    TW_OP_NOTIFY_PUT = 4,
    TW_OP_ATOMIC = 5,
} tw_op_t;

typedef struct tw_notification {
    uint8_t op;      /* tw_op_t */
    uint8_t cls;     /* which side this is: one TW_NOTIFY_* bit */
    uint8_t success; /* atomics: 1 when FCAA or CAS changed the word */
    int32_t status;  /* TW_OK, or the translation fault (TW_ERR_KEY, ...) */
    int32_t peer;    /* the rank at the other end */
    uint64_t length; /* bytes the operation moved */
    uint64_t cookie; /* the initiator's cookie */
    uint64_t value;  /* atomics: the old value; immediate and notification put: the value */
    uint64_t nla;    /* the remote NLA the command named */
} tw_notification_t;

/* TW_OK with the next notification, or TW_EMPTY. Also serves peers' requests. */
int tw_nq_poll(tw_ep_t *ep, tw_notification_t *n);
/* Waits for the next notification. */
int tw_nq_wait(tw_ep_t *ep, tw_notification_t *n);

#ifdef __cplusplus
}
#endif
#endif
