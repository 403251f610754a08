/* The links of this build, in the order the device prefers them, and how the device
 * finds one by name or by the tag of an address field. A new link adds its table here. */
#include <string.h>

#include "build_info.h"
#include "link/link.h"
#include "link/shm/shm.h"
#include "link/udp/link.h"
#if TW_HAVE_OFI
#include "link/ofi/link.h"
#endif

/* ofi before udp: where auto opens both (a hardware provider), it reaches the peers */
const tw_link_t *const tw_links[] = {&tw_link_shm,
#if TW_HAVE_OFI
                                     &tw_link_ofi,
#endif
                                     &tw_link_udp};
const unsigned tw_links_count = sizeof tw_links / sizeof tw_links[0];

const tw_link_t *tw_link_named(const char *name, size_t len) {
    for (unsigned i = 0; i < tw_links_count; i++)
        if (strlen(tw_links[i]->name) == len && !strncmp(name, tw_links[i]->name, len))
            return tw_links[i];
    return NULL;
}

const tw_link_t *tw_link_of_field(const char *field) {
    const char *colon = strchr(field, ':'), *comma = strchr(field, ',');
    if (!colon || (comma && comma < colon)) return NULL;
    return tw_link_named(field, (size_t)(colon - field));
}

const char *tw_link_field(const char *addr, const tw_link_t *link) {
    for (const char *f = addr; f; f = strchr(f, ',')) {
        if (*f == ',') f++;
        if (tw_link_of_field(f) == link) return f;
    }
    return NULL;
}
