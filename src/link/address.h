/* The field a rank publishes for each of its links (tw_link_t.open), and the parse of a
 * peer's (tw_link_t.connect): made here and taken here, one form per link. A peer's field
 * comes from another process: every byte of it is checked, and only the form this side
 * makes is taken (decimal without leading zeros, lowercase hex), so that taking a field
 * and making it again gives the same bytes. */
#ifndef TW_LINK_ADDRESS_H
#define TW_LINK_ADDRESS_H

#include <netinet/in.h>
#include <stddef.h>

#include <tollway/status.h>

/* The longest endpoint name the ofi form carries (fi_getname's, in bytes). */
enum { TW_LINK_OFI_NAME_MAX = 256 };

/* "udp:<IPv4>:<data port>:<liveness port>" (liveness port 0 in a job of one). TW_OK, or
 * TW_ERR_SIZE when cap is too short. */
int tw_link_udp_address_make(char *out, size_t cap, const struct sockaddr_in *data, unsigned live);

/* TW_OK with the data socket's address and the liveness port, or TW_ERR_PEER. A data port
 * of 0 is refused. */
int tw_link_udp_address_take(const char *addr, struct sockaddr_in *data, unsigned *live);

/* "ofi:<provider>:<endpoint name, hex>:<liveness IPv4>:<port>" (port 0 in a job of one).
 * TW_OK, or TW_ERR_SIZE when cap is too short or the name longer than
 * TW_LINK_OFI_NAME_MAX. */
int tw_link_ofi_address_make(char *out, size_t cap, const char *provider, const unsigned char *name,
                             size_t n, const struct sockaddr_in *live);

/* TW_OK with the provider's name (*plen bytes at *prov, within addr), the endpoint's name
 * (*n bytes, at most TW_LINK_OFI_NAME_MAX, into name) and the liveness socket's address;
 * or TW_ERR_PEER. Whether the provider is this side's is the caller's to check. */
int tw_link_ofi_address_take(const char *addr, const char **prov, size_t *plen, unsigned char *name,
                             size_t *n, struct sockaddr_in *live);

#endif
