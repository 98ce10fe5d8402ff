/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libpt packet decoder internals shared by libpt/pkt_*.c.
 */
#ifndef _LIBPT_PKT_INTERNAL_H
#define _LIBPT_PKT_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include <lwpt/pt_pkt.h>

#define LPT_LIKELY(x)	__builtin_expect(!!(x), 1)
#define LPT_UNLIKELY(x)	__builtin_expect(!!(x), 0)

/* Little-endian loads of possibly unaligned bytes (SDM 33.4.2: payloads
 * are little-endian). */
static inline uint64_t lpt_ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline uint16_t lpt_ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

/* The bits of the IP an IP payload with IPBytes @ipc (0..7; the field's
 * three bits) carries (SDM Table 33-18); 0 for suppressed (000b) and the
 * reserved values. */
static inline uint64_t lpt_ip_payload_bits(unsigned int ipc)
{
	static const uint64_t bits[8] = {
		0, 0xffffull, 0xffffffffull, 0xffffffffffffull,
		0xffffffffffffull, 0, ~0ull, 0,
	};

	return bits[ipc & 7];
}

/*
 * The IP an IP payload @payload with IPBytes @ipc (one with payload bits:
 * 001b, 010b, 011b, 100b, 110b) gives after Last IP @last: its bits over
 * Last IP's upper ones, sign-extended from bit 47 for 011b (SDM 33.4.2.2
 * "IP Compression", Table 33-18). No branch on @ipc: the coverage
 * decoder's hot loop uses it too.
 */
static inline uint64_t lpt_ip_reconstruct(uint64_t last, unsigned int ipc,
					  uint64_t payload)
{
	uint64_t bits = lpt_ip_payload_bits(ipc);
	uint64_t ip = (last & ~bits) | (payload & bits);
	unsigned int sh = ipc == PT_IPBYTES_SEXT_48 ? 16 : 0;

	return (uint64_t)((int64_t)(ip << sh) >> sh);
}

/* The decoder object (opaque in the API). */
struct lpt_pkt_decoder {
	const uint8_t *begin;
	const uint8_t *end;
	const uint8_t *pos;	/* next packet; NULL: not synchronised */
	const uint8_t *sync;	/* last sync point; NULL: none */
	struct lpt_pkt_block block;
	struct lpt_pkt_config cfg;
};

/* Decode the packet at @buf (@len bytes valid) in the tail-safe way.
 * Defined in pkt_decode.c. */
int lpt_pkt_decode_tail(const uint8_t *buf, size_t len,
			struct lpt_pkt_block *block, struct lpt_packet *pkt,
			uint32_t flags);

/* PSB search (pkt_sync.c): offset of a complete PSB, or -1. */
const uint8_t *lpt_psb_find_forward(const uint8_t *begin, const uint8_t *end,
				    const uint8_t *from);
const uint8_t *lpt_psb_find_backward(const uint8_t *begin,
				     const uint8_t *end,
				     const uint8_t *before);

/*
 * Intel PT errata by the name of Intel's specification updates, as
 * libipt 2.0.5's struct pt_errata (intel-pt.h) has them.
 */
#define LPT_ERRATUM_BDM70	0x001u	/* PSB+ FUP while tracing is off */
#define LPT_ERRATUM_BDM64	0x002u	/* branch trace lost before a TSX abort */
#define LPT_ERRATUM_SKD007	0x004u	/* OVF corrupted into CYC */
#define LPT_ERRATUM_SKD022	0x008u	/* VMLAUNCH/VMRESUME disable with FUP */
#define LPT_ERRATUM_SKD010	0x010u	/* FUP after OVF dropped */
#define LPT_ERRATUM_SKL014	0x020u	/* suppressed TIP.PGD on a filter exit */
#define LPT_ERRATUM_SKL168	0x040u	/* CYC dropped */
#define LPT_ERRATUM_SKZ84	0x080u	/* TMA with reserved bits */
#define LPT_ERRATUM_APL11	0x100u	/* TIP.PGD after OVF */
#define LPT_ERRATUM_APL12	0x200u	/* FUP after OVF while tracing is off */

/* All LPT_ERRATUM_* of @cpu (pkt_decoder.c); lpt_cpu_errata() is the
 * packet decoder's share of them. */
uint32_t lpt_cpu_errata_all(const struct lpt_cpu *cpu);

#endif /* _LIBPT_PKT_INTERNAL_H */
