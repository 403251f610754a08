/* TW_LINK=auto in a job across hosts, on a node with no device for a hardware provider
 * of libfabric: the ranks on the other host are reached over udp, and libfabric is never
 * loaded, since its first fi_getinfo starts every provider it has (0.37 s a process on
 * this machine). Exits 77 (skipped) where such a device is, or FI_PROVIDER is set: auto
 * asks libfabric there. Run across two hosts (tests/net). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "device/endpoint.h"
#include "link/ofi/link.h"
#include "link/udp/link.h"
#include "mp_check.h"

int main(void) {
    if (getenv("FI_PROVIDER") || tw_link_ofi_device_present()) {
        printf("auto_link: a device for a hardware provider is here, or FI_PROVIDER is set: "
               "skipped\n");
        return 77;
    }
    tw_ep_t *ep;
    CHECK_RC(tw_ep_open(&ep), TW_OK);
    mp_rank = tw_ep_rank(ep);
    int udp = 0, ofi = 0;
    for (unsigned i = 0; i < ep->nlinks; i++) {
        udp |= ep->links[i].link == &tw_link_udp;
        ofi |= ep->links[i].link == &tw_link_ofi;
    }
    CHECK(udp && !ofi);
    CHECK(dlopen("libfabric.so.1", RTLD_NOW | RTLD_NOLOAD) == NULL);
    printf("auto_link: rank %d: udp open, ofi not, libfabric not loaded\n", mp_rank);
    tw_ep_close(ep);
    return 0;
}
