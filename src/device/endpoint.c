#include "device/endpoint.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tollway/status.h>
#include <tollway/velo.h>

static size_t segment_size_for(uint32_t slots) {
    return TW_SEGMENT_SLOTS_OFFSET + (size_t)slots * sizeof(tw_slot_t);
}

size_t tw_ep_memory_size(void) {
    const tw_config_t *cfg = tw_config();
    return segment_size_for(cfg ? cfg->velo_slots : TW_VELO_SLOTS_DEFAULT);
}

static tw_slot_t *segment_slots(void *segment) {
    return (tw_slot_t *)((char *)segment + TW_SEGMENT_SLOTS_OFFSET);
}

static void address_key(char *key, size_t cap, int index, int rank) {
    snprintf(key, cap, "tw.ep%d.%d", index, rank);
}

int tw_ep_open(tw_ep_t **out) {
    if (!out) return TW_ERR_ARG;
    *out = NULL;
    tw_job_t *job;
    int rc = tw_job_attach(&job);
    if (rc) return rc;
    tw_ep_t *ep = calloc(1, sizeof *ep);
    if (ep) ep->peers = calloc((size_t)job->size, sizeof *ep->peers);
    if (!ep || !ep->peers) {
        free(ep);
        tw_job_detach(job);
        return TW_ERR_NOMEM;
    }
    ep->job = job;
    ep->rank = job->rank;
    ep->size = job->size;
    ep->index = job->next_index++;
    const tw_config_t *cfg = job->config;
    ep->yield_when_idle =
        cfg->wait == TW_WAIT_YIELD || (cfg->wait == TW_WAIT_AUTO && job->local_size > job->cores);

    const uint32_t slots = cfg->velo_slots;
    ep->segment_size = segment_size_for(slots);
    tw_shm_endpoint_name(ep->segment_name, sizeof ep->segment_name, job->job_id, ep->rank,
                         ep->index);
    tw_segment_header_t *seg = tw_shm_create(ep->segment_name, ep->segment_size);
    if (!seg) {
        fprintf(stderr, "tollway: cannot create the mailbox %s (%zu bytes): %s\n", ep->segment_name,
                ep->segment_size, strerror(errno));
        free(ep->peers);
        free(ep);
        tw_job_detach(job);
        return TW_ERR_SYSTEM;
    }
    ep->segment = seg;
    seg->job_key = job->job_key;
    seg->version = TW_SEGMENT_VERSION;
    seg->rank = (uint32_t)ep->rank;
    seg->index = (uint32_t)ep->index;
    seg->velo_slots = slots;
    seg->owner_pid = (int32_t)getpid();
    tw_ring_format(&seg->velo_ctrl, segment_slots(seg), slots);
    __atomic_store_n(&seg->magic, TW_SEGMENT_MAGIC, __ATOMIC_RELEASE);
    tw_ring_consumer_init(&ep->velo_rx, &seg->velo_ctrl, segment_slots(seg), slots,
                          TW_VELO_MAX_SIZE);

    /* Announce the mailbox; after the fence every peer may map it. */
    char key[64], value[TW_PMI_VALUE_MAX];
    address_key(key, sizeof key, ep->index, ep->rank);
    snprintf(value, sizeof value, "shm:%s:%s", job->node, ep->segment_name);
    if (tw_pmi_put(&job->pmi, key, value) || tw_pmi_fence(&job->pmi)) {
        fprintf(stderr, "tollway: cannot publish the endpoint address of rank %d\n", ep->rank);
        tw_ep_close(ep);
        return TW_ERR_RUNTIME;
    }
    *out = ep;
    return TW_OK;
}

int tw_ep_address(tw_ep_t *ep, int rank, char *buf, size_t cap) {
    if (!ep || !buf) return TW_ERR_ARG;
    if (rank < 0 || rank >= ep->size) return TW_ERR_RANK;
    char key[64];
    address_key(key, sizeof key, ep->index, rank);
    return tw_pmi_get(&ep->job->pmi, key, buf, cap) ? TW_ERR_RUNTIME : TW_OK;
}

/* Checks every field a peer's segment header claims before trusting it. */
static int segment_valid(const tw_segment_header_t *seg, size_t size, const tw_ep_t *ep, int rank) {
    if (__atomic_load_n(&seg->magic, __ATOMIC_ACQUIRE) != TW_SEGMENT_MAGIC) return 0;
    uint32_t slots = seg->velo_slots;
    return seg->version == TW_SEGMENT_VERSION && seg->job_key == ep->job->job_key &&
           seg->rank == (uint32_t)rank && seg->index == (uint32_t)ep->index &&
           slots >= TW_VELO_SLOTS_MIN && slots <= TW_VELO_SLOTS_MAX && !(slots & (slots - 1)) &&
           size >= segment_size_for(slots);
}

int tw_ep_connect(tw_ep_t *ep, int rank) {
    char addr[TW_PMI_VALUE_MAX];
    if (tw_ep_address(ep, rank, addr, sizeof addr)) return TW_ERR_PEER;
    /* "shm:<node>:<segment>" */
    const char *name = strrchr(addr, ':');
    if (strncmp(addr, "shm:", 4) != 0 || !name || name[1] != '/') return TW_ERR_PEER;
    name++;
    tw_peer_t *peer = calloc(1, sizeof *peer);
    if (!peer) return TW_ERR_NOMEM;
    peer->segment = tw_shm_map(name, TW_SEGMENT_SLOTS_OFFSET, &peer->segment_size);
    if (!peer->segment || !segment_valid(peer->segment, peer->segment_size, ep, rank)) {
        tw_shm_unmap(peer->segment, peer->segment_size);
        free(peer);
        return TW_ERR_PEER;
    }
    tw_segment_header_t *seg = peer->segment;
    tw_ring_producer_init(&peer->velo, &seg->velo_ctrl, segment_slots(seg), seg->velo_slots);
    ep->peers[rank] = peer;
    ep->stats.peers_mapped++;
    return TW_OK;
}

int tw_ep_close(tw_ep_t *ep) {
    if (!ep) return TW_ERR_ARG;
    if (ep->job->config->stats) tw_ep_print_stats(ep, stderr);
    for (int r = 0; r < ep->size; r++) {
        if (!ep->peers[r]) continue;
        tw_shm_unmap(ep->peers[r]->segment, ep->peers[r]->segment_size);
        free(ep->peers[r]);
    }
    tw_shm_unmap(ep->segment, ep->segment_size);
    tw_shm_unlink(ep->segment_name);
    tw_job_detach(ep->job);
    free(ep->peers);
    free(ep);
    return TW_OK;
}

int tw_ep_rank(const tw_ep_t *ep) {
    return ep ? ep->rank : -1;
}
int tw_ep_size(const tw_ep_t *ep) {
    return ep ? ep->size : -1;
}
const tw_ep_stats_t *tw_ep_stats(const tw_ep_t *ep) {
    return ep ? &ep->stats : NULL;
}

int tw_ep_barrier(tw_ep_t *ep) {
    if (!ep) return TW_ERR_ARG;
    return tw_pmi_fence(&ep->job->pmi) ? TW_ERR_RUNTIME : TW_OK;
}

void tw_ep_print_stats(const tw_ep_t *ep, FILE *out) {
    const tw_ep_stats_t *s = &ep->stats;
    fprintf(out,
            "tollway: rank %d endpoint %d: sent %llu msgs (%llu B), received %llu msgs (%llu B), "
            "retries on full %llu, empty polls %llu, peers mapped %llu\n",
            ep->rank, ep->index, (unsigned long long)s->msgs_sent,
            (unsigned long long)s->bytes_sent, (unsigned long long)s->msgs_received,
            (unsigned long long)s->bytes_received, (unsigned long long)s->send_retries,
            (unsigned long long)s->polls_empty, (unsigned long long)s->peers_mapped);
}

void tw_ep_idle(tw_ep_t *ep, unsigned *spins) {
    if (ep->yield_when_idle && ++*spins >= 64) {
        *spins = 0;
        sched_yield();
        return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}
