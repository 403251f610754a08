/* The links of this build, in the order the device prefers them. A new link adds
 * its table here. */
#include "link/link.h"
#include "link/shm/shm.h"
#include "link/udp/link.h"

const tw_link_t *const tw_links[] = {&tw_link_shm, &tw_link_udp};
const unsigned tw_links_count = sizeof tw_links / sizeof tw_links[0];
