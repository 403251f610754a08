#include "device/ring.h"

void tw_ring_format(tw_ring_ctrl_t *ctrl, tw_slot_t *slots, uint64_t size) {
    memset(slots, 0, size * sizeof *slots);
    atomic_store_explicit(&ctrl->head, 0, memory_order_relaxed);
    atomic_store_explicit(&ctrl->want, 0, memory_order_relaxed);
    atomic_store_explicit(&ctrl->tail, 0, memory_order_release);
}

void tw_ring_producer_init(tw_ring_producer_t *p, tw_ring_ctrl_t *ctrl, tw_slot_t *slots,
                           uint64_t size) {
    p->ctrl = ctrl;
    p->slots = slots;
    p->size = size;
    p->mask = size - 1;
    p->cached_head = atomic_load_explicit(&ctrl->head, memory_order_acquire);
    p->bell = NULL;
    p->bell_socket = NULL;
}

void tw_ring_consumer_init(tw_ring_consumer_t *c, tw_ring_ctrl_t *ctrl, tw_slot_t *slots,
                           uint64_t size, uint32_t max_len) {
    c->ctrl = ctrl;
    c->slots = slots;
    c->size = size;
    c->mask = size - 1;
    c->head = c->published = atomic_load_explicit(&ctrl->head, memory_order_acquire);
    c->publish_every = size / 4;
    c->max_len = max_len;
}
