/* A link's address field, made and taken (address.h). */
#include "link/address.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* A port at *s: decimal, no sign, no leading zero, at most 65535; *s moves past it. */
static int take_port(const char **s, unsigned *port) {
    const char *p = *s;
    unsigned v = 0;
    size_t digits = strspn(p, "0123456789");
    if (!digits || digits > 5 || (digits > 1 && p[0] == '0')) return -1;
    for (size_t i = 0; i < digits; i++) v = v * 10 + (unsigned)(p[i] - '0');
    if (v > 65535) return -1;
    *port = v;
    *s = p + digits;
    return 0;
}

/* "<IPv4>:<port>" at *s into a (port in network order); *s moves past it. */
static int take_ip_port(const char **s, struct sockaddr_in *a) {
    const char *p = *s;
    size_t len = strspn(p, "0123456789.");
    char ip[INET_ADDRSTRLEN];
    unsigned port;
    if (!len || len >= sizeof ip || p[len] != ':') return -1;
    memcpy(ip, p, len);
    ip[len] = 0;
    *a = (struct sockaddr_in){.sin_family = AF_INET};
    if (inet_pton(AF_INET, ip, &a->sin_addr) != 1) return -1; /* no leading zeros either */
    p += len + 1;
    if (take_port(&p, &port)) return -1;
    a->sin_port = htons((uint16_t)port);
    *s = p;
    return 0;
}

static int hex_digit(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int tw_link_udp_address_make(char *out, size_t cap, const struct sockaddr_in *data, unsigned live) {
    char ip[INET_ADDRSTRLEN];
    if (!inet_ntop(AF_INET, &data->sin_addr, ip, sizeof ip)) return TW_ERR_ARG;
    int n = snprintf(out, cap, "udp:%s:%u:%u", ip, (unsigned)ntohs(data->sin_port), live);
    return n < 0 || (size_t)n >= cap ? TW_ERR_SIZE : TW_OK;
}

int tw_link_udp_address_take(const char *addr, struct sockaddr_in *data, unsigned *live) {
    const char *p = addr;
    if (!p || strncmp(p, "udp:", 4)) return TW_ERR_PEER;
    p += 4;
    if (take_ip_port(&p, data) || !data->sin_port || *p++ != ':' || take_port(&p, live) || *p)
        return TW_ERR_PEER;
    return TW_OK;
}

int tw_link_ofi_address_make(char *out, size_t cap, const char *provider, const unsigned char *name,
                             size_t n, const struct sockaddr_in *live) {
    char ip[INET_ADDRSTRLEN];
    if (n > TW_LINK_OFI_NAME_MAX) return TW_ERR_SIZE;
    if (!inet_ntop(AF_INET, &live->sin_addr, ip, sizeof ip) || strchr(provider, ':'))
        return TW_ERR_ARG;
    int len = snprintf(out, cap, "ofi:%s:", provider);
    if (len < 0 || (size_t)len + 2 * n >= cap) return TW_ERR_SIZE;
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[len++] = digits[name[i] >> 4];
        out[len++] = digits[name[i] & 15];
    }
    int tail =
        snprintf(out + len, cap - (size_t)len, ":%s:%u", ip, (unsigned)ntohs(live->sin_port));
    return tail < 0 || (size_t)tail >= cap - (size_t)len ? TW_ERR_SIZE : TW_OK;
}

int tw_link_ofi_address_take(const char *addr, const char **prov, size_t *plen, unsigned char *name,
                             size_t *n, struct sockaddr_in *live) {
    const char *p = addr;
    if (!p || strncmp(p, "ofi:", 4)) return TW_ERR_PEER;
    p += 4;
    size_t pl = strcspn(p, ":");
    if (!pl || p[pl] != ':') return TW_ERR_PEER;
    *prov = p;
    *plen = pl;
    p += pl + 1;
    size_t hex = strcspn(p, ":");
    if (!hex || hex % 2 || hex / 2 > TW_LINK_OFI_NAME_MAX || p[hex] != ':') return TW_ERR_PEER;
    for (size_t i = 0; i < hex / 2; i++) {
        int hi = hex_digit(p[2 * i]), lo = hex_digit(p[2 * i + 1]);
        if (hi < 0 || lo < 0) return TW_ERR_PEER;
        name[i] = (unsigned char)(hi << 4 | lo);
    }
    *n = hex / 2;
    p += hex + 1;
    if (take_ip_port(&p, live) || *p) return TW_ERR_PEER;
    return TW_OK;
}
