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

#endif /* _LIBPT_PKT_INTERNAL_H */
