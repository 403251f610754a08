/* The links of this build and whether this machine can use each now (endpoint.h),
 * from the link table: a new link shows up here with the probe it brings. */
#include <stdio.h>

#include <tollway/endpoint.h>
#include <tollway/status.h>

#include "link/link.h"

size_t tw_link_report_count(void) {
    return tw_links_count;
}

int tw_link_report(size_t i, tw_link_report_t *r) {
    if (i >= tw_links_count || !r) return TW_ERR_ARG;
    const tw_link_t *link = tw_links[i];
    r->name = link->name;
    r->node_local = !!(link->caps & TW_LINK_MAPPED);
    r->note[0] = '\0';
    if (link->probe)
        r->usable = link->probe(tw_ep_memory_size(), r->note, sizeof r->note);
    else {
        r->usable = 1;
        snprintf(r->note, sizeof r->note, "no check: this link has no probe");
    }
    return TW_OK;
}
