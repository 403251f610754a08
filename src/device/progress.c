/* The device's progress engine and the optional progress thread (see progress.h).
 *
 * The thread sleeps in ppoll on the descriptors of every open link that has one (a
 * socket of each), so a packet on any of them wakes it at once and an idle link costs
 * nothing but the timer that drives retransmissions. While the owner is calling
 * tollway itself (the lock changed hands since the last look) the thread stays out of
 * its way, sleeping one interval at a time: two threads polling one socket on a
 * two-core machine would only slow both down. */
#include "device/progress.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tollway/status.h>

#include "device/failure.h"
#include "device/nq.h"
#include "device/rma.h"

int tw_dev_poll_links(tw_ep_t *ep) {
    int delivered = 0;
    for (unsigned i = 0; i < ep->nlinks; i++) {
        tw_ep_link_t *via = &ep->links[i];
        if (via->link->caps & TW_LINK_POLLED) delivered += via->link->poll(via->ctx);
    }
    return delivered;
}

int tw_dev_progress(tw_ep_t *ep) {
    if (ep->serving) return 0;
    ep->serving = 1;
    tw_dev_lock(ep);
    int delivered = ep->polled ? tw_dev_poll_links(ep) : 0;                    /* 1. link receive */
    tw_rma_serve(ep);                                                          /* 2. and 3. */
    tw_nq_reclaim(ep);                                                         /* 4. */
    if (__builtin_expect(ep->lost_owed != 0, 0)) tw_dev_post_lost_notices(ep); /* 5. */
    tw_dev_unlock(ep);
    ep->serving = 0;
    return delivered;
}

static void *run(void *arg) {
    tw_ep_t *ep = arg;
    struct tw_progress_thread *p = ep->progress_thread;
    struct timespec interval = {(time_t)(p->interval_us / 1000000u),
                                (long)(p->interval_us % 1000000u) * 1000};
    struct pollfd fds[TW_EP_LINKS_MAX];
    uint64_t seen = atomic_load_explicit(&p->entries, memory_order_relaxed);
    while (!atomic_load_explicit(&p->stop, memory_order_acquire)) {
        uint64_t now = atomic_load_explicit(&p->entries, memory_order_relaxed);
        if (now != seen) { /* the owner is making progress itself */
            seen = now;
            nanosleep(&interval, NULL);
            continue;
        }
        if (pthread_mutex_trylock(&p->lock) != 0) { /* the owner is inside a call */
            nanosleep(&interval, NULL);
            continue;
        }
        p->delivered += (uint64_t)tw_dev_poll_links(ep);
        p->polls++;
        /* the descriptors, each readied where its link asks (arm may also give one up) */
        int unread = 0;
        nfds_t nfds = 0;
        for (unsigned i = 0; i < ep->nlinks && !unread; i++) {
            tw_ep_link_t *via = &ep->links[i];
            unread = via->link->arm && via->link->arm(via->ctx);
            int fd = via->link->fd ? via->link->fd(via->ctx) : -1;
            if (fd >= 0) fds[nfds++] = (struct pollfd){.fd = fd, .events = POLLIN};
        }
        pthread_mutex_unlock(&p->lock);
        if (!unread)
            ppoll(fds, nfds, &interval, NULL); /* until a packet comes, or timers are due */
    }
    return NULL;
}

int tw_progress_thread_start(tw_ep_t *ep) {
    const tw_config_t *cfg = ep->job->config;
    if (!cfg->progress_thread || !ep->polled) return TW_OK;
    struct tw_progress_thread *p = calloc(1, sizeof *p);
    if (!p) return TW_ERR_NOMEM;
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    int rc = pthread_mutex_init(&p->lock, &a);
    pthread_mutexattr_destroy(&a);
    if (rc) {
        free(p);
        return TW_ERR_SYSTEM;
    }
    p->interval_us = cfg->progress_interval_us;
    ep->progress_thread = p; /* before the thread exists: the owner locks from now on */
    /* signals stay with the application's threads */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&p->thread, NULL, run, ep);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        fprintf(stderr, "tollway: rank %d: cannot start the progress thread: %s\n", ep->rank,
                strerror(rc));
        ep->progress_thread = NULL;
        pthread_mutex_destroy(&p->lock);
        free(p);
        return TW_ERR_SYSTEM;
    }
    return TW_OK;
}

void tw_progress_thread_stop(tw_ep_t *ep) {
    struct tw_progress_thread *p = ep->progress_thread;
    if (!p) return;
    atomic_store_explicit(&p->stop, 1, memory_order_release);
    pthread_join(p->thread, NULL);
    if (ep->job->config->stats)
        fprintf(
            stderr, "tollway: rank %d endpoint %d: progress thread: %llu polls, %llu delivered\n",
            ep->rank, ep->index, (unsigned long long)p->polls, (unsigned long long)p->delivered);
    ep->progress_thread = NULL;
    pthread_mutex_destroy(&p->lock);
    free(p);
}
