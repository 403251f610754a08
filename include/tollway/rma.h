/* RMA: one-sided put, get, immediate put, notification put and atomics to any rank.
 *
 * The remote side is named by an NLA (see atu.h) and its key; the local side by a
 * plain pointer (no registration needed). notify is any combination of the TW_NOTIFY_*
 * bits the operation allows (see each call); cookie comes back in every notification.
 *
 * On one node the initiator carries the operation out itself, as the NIC would:
 * it translates the NLA through the target's table, checks it, moves the data
 * (memcpy for shared-heap memory, process_vm_readv/writev otherwise) and writes the
 * notifications. When the kernel refuses cross-process access (or TW_RMA_COPY=pipeline)
 * the data goes through shared memory in pipelined chunks that the target's device
 * moves whenever the target is inside a tollway call. Operations from one endpoint to
 * one target complete in order. Any length: the device splits transfers itself.
 *
 * Every call returns TW_OK (posted), TW_RETRY (a queue is full: nothing was done; make
 * progress and retry), or an argument error (TW_ERR_ARG, TW_ERR_RANK). Translation
 * faults arrive as notifications. */
#ifndef TOLLWAY_RMA_H
#define TOLLWAY_RMA_H

#include <stddef.h>
#include <stdint.h>

#include <tollway/atu.h>
#include <tollway/notify.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tw_atomic_op {
    TW_ATOMIC_FCAA = 1, /* if (*d <= a) { *d += b; ok } : old value and ok (signed compare) */
    TW_ATOMIC_FADD = 2, /* *d += a : old value */
    TW_ATOMIC_CAS = 3,  /* if (*d == a) { *d = b; ok } : old value and ok */
    TW_ATOMIC_SWAP = 4, /* *d = a : old value */
} tw_atomic_op_t;

/* Copies len bytes from src to the target. notify: REQUESTER, COMPLETER. src may
 * change once the requester notification has come (or tw_rma_flush has returned): to
 * a peer on another node the data leaves from src itself, and is sent from there
 * again if a packet is lost. */
int tw_put(tw_ep_t *ep, int dest, const void *src, size_t len, uint64_t nla, uint64_t key,
           unsigned notify, uint64_t cookie);

/* Tells peer, ahead of one put it is about to make into region (ours: a rendezvous's
 * receive buffer, named to it in a message that follows), what lets that put move
 * with the fabric's own writes where the link reaching peer has them (ofi with native
 * RMA); elsewhere it does nothing. The put must cover the region's last byte and ask
 * for the completer notification: once that has come nothing more of the put reaches
 * the region, which its tw_dereg then closes to the fabric without asking peer. Send the
 * message naming the region after this call (the same link keeps their order).
 * TW_OK (also when nothing was offered), TW_ERR_ARG or TW_ERR_RANK. */
int tw_offer_put(tw_ep_t *ep, int peer, const tw_region_t *region);

/* Copies len bytes from the target to dst. notify: REQUESTER, COMPLETER, RESPONDER. */
int tw_get(tw_ep_t *ep, int dest, void *dst, size_t len, uint64_t nla, uint64_t key,
           unsigned notify, uint64_t cookie);

/* Writes the low len bytes (1, 2, 4 or 8) of value, carried in the command itself.
 * notify: REQUESTER, COMPLETER (the completer notification carries the value). */
int tw_put_imm(tw_ep_t *ep, int dest, uint64_t value, size_t len, uint64_t nla, uint64_t key,
               unsigned notify, uint64_t cookie);

/* Writes only a notification at the target, carrying value and cookie.
 * notify: COMPLETER (implied) and REQUESTER. */
int tw_notify_put(tw_ep_t *ep, int dest, uint64_t value, unsigned notify, uint64_t cookie);

/* An atomic on a 4- or 8-byte word (width) of the target's lock region (tw_lock_nla)
 * or shared-heap memory, atomic against every process. a and b as tw_atomic_op_t
 * says; for width 4 they are taken as 32-bit values. The old value is stored at
 * *fetched (if not NULL) before the completer notification, which also carries it.
 * notify: REQUESTER, COMPLETER, RESPONDER. */
int tw_atomic(tw_ep_t *ep, int dest, tw_atomic_op_t op, unsigned width, uint64_t nla, uint64_t key,
              uint64_t a, uint64_t b, uint64_t *fetched, unsigned notify, uint64_t cookie);

/* Serves requests that peers left for this endpoint's device (pipelined copies).
 * Every tollway call does this too; call it while computing for a long time. */
int tw_progress(tw_ep_t *ep);

/* Waits until every operation this endpoint started to dest (-1: to every rank) has
 * completed at the target. */
int tw_rma_flush(tw_ep_t *ep, int dest);

#ifdef __cplusplus
}
#endif
#endif
