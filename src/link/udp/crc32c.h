/* CRC32C (Castagnoli), the checksum of the udp link's packets. */
#ifndef TW_LINK_CRC32C_H
#define TW_LINK_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues crc (0 to start) over len bytes; uses the CPU's crc32 instruction when
 * it has one. crc32c("123456789") == 0xe3069283. */
uint32_t tw_crc32c(uint32_t crc, const void *data, size_t len);

/* The ways of computing it this CPU has (a byte table, then each faster one it can
 * run), and tw_crc32c by one of them, 0 to tw_crc32c_ways() - 1: so that a test
 * checks every way the machine it runs on has, not only the fastest. */
size_t tw_crc32c_ways(void);
uint32_t tw_crc32c_by(size_t way, uint32_t crc, const void *data, size_t len);

#endif
